-- tp.motion against the built-in motions: with --set fn=true the slider, the swing and the spinner
-- move by Lua functions that compute exactly what tp.linear, tp.oscillate and tp.rotate compute
-- (same operations, same order, velocities returned), so the plan must be the same file but for
-- its overrides. The slider shoves the crate, the swing and the spinner sweep through its way.
-- e2e: lua_motion.sh plans both and compares them; --set nudge=1e-9 (fn only) must differ.
local tp = require "tp"
local fn = tp.param("fn", false)
local nudge = tp.param("nudge", 0) -- m added to the slider function's x: the test's control case

local p_slider, v_slider = {-1.5, 0, 0.25}, {0.6, 0, 0}
local p_swing, amp, period, phase = {1, 0, 0.2}, {0, 1.2, 0}, 3, 0.5
local p_spin, rate = {0.5, 1.2, 0.15}, 2

local slider, swing, spinner
if fn then
  slider = tp.motion(function(t)
    return {p_slider[1] + v_slider[1] * t + nudge, p_slider[2] + v_slider[2] * t, p_slider[3] + v_slider[3] * t},
           {1, 0, 0, 0}, v_slider, {0, 0, 0}
  end)
  swing = tp.motion(function(t)
    local w = 2.0 * math.pi / period
    local s, c = math.sin(w * t + phase), math.cos(w * t + phase)
    return {p_swing[1] + amp[1] * s, p_swing[2] + amp[2] * s, p_swing[3] + amp[3] * s}, {1, 0, 0, 0},
           {amp[1] * w * c, amp[2] * w * c, amp[3] * w * c}, {0, 0, 0}
  end)
  spinner = tp.motion(function(t)
    local a = 0 + rate * t
    return p_spin, {math.cos(0.5 * a), 0, 0, math.sin(0.5 * a)}, {0, 0, 0}, {rate * 0, rate * 0, rate * 1}
  end)
else
  slider = tp.linear { vel = v_slider }
  swing = tp.oscillate { amplitude = amp, period = period, phase = phase }
  spinner = tp.rotate { rate = rate }
end

return tp.domain {
  name = "motion_function",
  bodies = {
    tp.plane { name = "floor" },
    tp.box { name = "slider", class = "foreign", size = {0.4, 1, 0.5}, pos = p_slider, motion = slider },
    tp.box { name = "swing", class = "foreign", size = {0.3, 0.3, 0.4}, pos = p_swing, motion = swing },
    tp.box { name = "spinner", class = "foreign", size = {1.2, 0.1, 0.3}, pos = p_spin, motion = spinner },
    tp.box { name = "crate", class = "active", size = {0.3, 0.3, 0.3}, mass = 1, pos = {-0.9, 0, 0.15},
             max_force = 8, planar = true },
  },
  tactics = { tp.tactic { name = "t", body = "crate", skills = {
    tp.skill.wait { name = "w", duration = tp.uniform(0.1, 0.4) },
    tp.skill.impulse { name = "p", body = "crate", force = tp.uniform({-8, -8}, {8, 8}), duration = 0.3 } } } },
  goal = tp.inside { body = "crate", min = {1.8, -3, 0}, max = {4, 3, 1} },
  planner = { max_iters = 3000 },
}
