-- Rube Goldberg machine: a ball released on a platform rolls down a ramp, hits the bob
-- of a pendulum (a distance joint: a rod to a pivot above), the bob swings up under the long arm
-- of a lever (a plank on a hinge with stops), tips it, and the ball resting on the lever's short
-- arm rolls off its end into a cup. The planner's one decision is the release: the ball's
-- velocity (tp.skill.throw, sampled), after which everything is physics.
--
--   platform  static box x in [-2.3, -1.6], top z = 0.5; the ball (0.06 m, 0.5 kg) starts on it
--   ramp      static plank from (-1.6, 0.5) down to (-0.6, 0) onto the floor
--   pendulum  bob (0.06 m, 0.2 kg) hanging 5 mm above the floor at x = 0 on a 0.935 m rod from
--             (0, 0, 1)
--   lever     plank 1 m long, hinged 0.6 m from its left end (x = LX + 0.6), underside z = 0.25,
--             resting on its stop (the long left arm is heavier); it may tip right-end-down by
--             up to 0.45 rad; the target ball (0.04 m, 0.05 kg) lies on the short right arm
--   cup       static walls around x in [CX - 0.2, CX + 0.2], |y| <= 0.2, below the lever's right end
--   goal      the target ball at rest (slower than 0.1 m/s) inside the cup
--   valid     the released ball stays on the run (|y| <= 0.3 m) and the machine is done within 7 s
local tp = require "tp"
local CX = tp.param("cup_x", 1.75, { min = 1.6, max = 2.2 }) -- m: the cup's centre
local LX = 0.45                                               -- m: the lever's left end
local PIVOT = LX + 0.6                                        -- m: the lever's hinge
local RAMP = math.atan(0.5, 1.0)                              -- rad: the ramp's slope
local wall = function(name, x, y, sx, sy)
  return tp.box { name = name, class = "static", size = { sx, sy, 0.12 }, pos = { x, y, 0.06 }, color = { 0.5, 0.35, 0.2, 1 } }
end
return tp.domain {
  name = "rube_goldberg",
  fallback = "rest", -- an animation shot: an approximate plan ends at rest and landed (docs/lua-api.md#fallbacks)
  description = "release a ball down a ramp into a pendulum that tips a lever, dropping a ball into a cup",
  dt = 1 / 60, substeps = 4,
  materials = { tp.material { name = "wood", friction = 0.5, restitution = 0.3, rolling_friction = 0.001 } },
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "platform", class = "static", size = { 0.7, 0.6, 0.5 }, pos = { -1.95, 0, 0.25 } },
    -- the ramp's top surface runs from (-1.6, 0.5) to (-0.6, 0); 2 cm thick, its top end tucked under the platform's edge
    tp.box { name = "ramp", class = "static", size = { 1.16, 0.6, 0.04 },
             pos = { -1.1 + 0.02 * math.sin(RAMP), 0, 0.25 - 0.02 * math.cos(RAMP) },
             quat = { math.cos(RAMP / 2), 0, math.sin(RAMP / 2), 0 }, color = { 0.6, 0.6, 0.7, 1 } },
    tp.sphere { name = "ball", class = "active", radius = 0.06, mass = 0.5, pos = { -2.1, 0, 0.56 },
                color = { 0.2, 0.3, 0.9, 1 } },
    tp.box { name = "gallows", class = "static", size = { 0.05, 0.05, 1.05 }, pos = { 0, -0.35, 0.525 } },
    tp.sphere { name = "bob", class = "passive", radius = 0.06, mass = 0.2, pos = { 0, 0, 0.065 },
                color = { 0.8, 0.7, 0.1, 1 } },
    tp.box { name = "post", class = "static", size = { 0.06, 0.1, 0.23 }, pos = { PIVOT, 0.15, 0.115 } },
    tp.box { name = "lever", class = "passive", size = { 1.0, 0.2, 0.03 }, mass = 0.3, pos = { LX + 0.5, 0, 0.265 },
             color = { 0.8, 0.6, 0.3, 1 } },
    tp.sphere { name = "target", class = "passive", radius = 0.04, mass = 0.05, pos = { PIVOT + 0.25, 0, 0.32 },
                color = { 0.9, 0.2, 0.2, 1 } },
    wall("cup_w", CX - 0.225, 0, 0.05, 0.45), wall("cup_e", CX + 0.225, 0, 0.05, 0.45),
    wall("cup_s", CX, -0.225, 0.4, 0.05), wall("cup_n", CX, 0.225, 0.4, 0.05),
  },
  joints = {
    tp.joint { name = "rod", kind = "distance", bodies = { "bob", "world" }, anchor = { 0, 0, 0.065 }, anchor2 = { 0, 0, 1 } },
    -- axis +y: a positive angle lifts the long left arm (the right end goes down)
    tp.joint { name = "pivot", kind = "hinge", bodies = { "lever", "world" }, anchor = { PIVOT, 0, 0.265 },
               axis = { 0, 1, 0 }, limit = { 0, 0.45 } },
  },
  tactics = {
    tp.tactic { name = "release", body = "ball", start = "release",
      skills = {
        tp.skill.throw { name = "release", velocity = tp.uniform({ 0.2, -0.1, 0 }, { 2.5, 0.1, 0 }), follow = true, timeout = 6 },
        tp.skill.wait { name = "rest", target = "ball", duration = 6, timeout = 6 },
      },
      transitions = { release = { rest = 1 }, rest = { rest = 1 } },
    },
  },
  goal = tp.all {
    tp.inside { body = "target", min = { CX - 0.2, -0.2, 0 }, max = { CX + 0.2, 0.2, 0.12 } },
    tp.slower { body = "target", speed = 0.1 },
  },
  -- a released ball off the run, or a machine still not done after 7 s (a release too weak to
  -- leave the platform, one that missed the bob), is cut: the search tries other releases
  valid = tp.all {
    tp.inside { body = "ball", min = { -2.5, -0.3, 0 }, max = { 4, 0.3, 2 } },
    function(s) return s.t <= 7 end,
  },
  sampling = { tp.uniform({ -0.5, -0.3 }, { 2.2, 0.3 }), body = "target" }, -- BK-RRT grows the target toward these
  planner = { max_iters = 10000 },
}
