-- Why states are rejected: a scripted slab comes down on a stack of two boxes and
-- presses it into the floor, so the physics refuses the steps where the lower box sinks deeper
-- than max_static_penetration; or the domain's `valid` refuses the pressed states first.
--   --set refuse=none      only the physics refuses (static penetration: 'lower' into 'floor')
--   --set refuse=leaf      valid = tp.all { tp.inside { body = "upper", min z 0.27 }, ... }
--   --set refuse=function  valid = a Lua function (its file:line names it)
local tp = require "tp"
local REFUSE = tp.param("refuse", "none")
local valid = nil
if REFUSE == "leaf" then
  valid = tp.all {
    tp.upright { body = "upper", tolerance = 1.5 },
    tp.inside { body = "upper", min = { -math.huge, -math.huge, 0.27 } },
  }
elseif REFUSE == "function" then
  valid = function(s)
    local _, _, z = s:pos("upper")
    return z > 0.27
  end
end
return tp.domain {
  name = "stack_press",
  -- 5 cm rather than the default 5 mm: the press must get deep enough for `valid` to refuse first
  max_static_penetration = 0.05, max_body_penetration = 0.05,
  bodies = {
    tp.plane { name = "floor" },
    -- slab 0.1 thick, centre z = 0.55 - 0.6 sin(2 pi t / 8): from 0.1 m above the stack down through it
    tp.box { name = "slab", class = "foreign", size = { 0.8, 0.8, 0.1 }, pos = { 0, 0, 0.55 },
             motion = tp.oscillate { amplitude = { 0, 0, 0.6 }, period = 8, phase = math.pi } },
    tp.box { name = "lower", class = "passive", size = { 0.3, 0.3, 0.2 }, mass = 5, pos = { 0, 0, 0.1 } },
    tp.box { name = "upper", class = "passive", size = { 0.3, 0.3, 0.2 }, mass = 5, pos = { 0, 0, 0.299 } }, -- 1 mm into the lower box: resting
    -- an active robot far away that only waits (a tactic is needed for the planner to expand)
    tp.box { name = "robot", class = "active", size = { 0.2, 0.2, 0.2 }, mass = 1, pos = { 3, 0, 0.1 } },
  },
  tactics = { tp.tactic { name = "idle", body = "robot", skills = { tp.skill.wait { name = "wait", duration = 1 } } } },
  goal = tp.inside { body = "lower", max = { math.huge, math.huge, -0.05 } },
  valid = valid,
  planner = { max_iters = 600 },
}
