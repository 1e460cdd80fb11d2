-- skittle.lua: knock one pin over and leave the other standing, everything at rest at the end:
-- the orientation and settling conditions (tp.tilted, tp.upright, tp.settled) as the goal, and
-- the speed + direction forms of the impulse and kick skills (no force vector built in Lua).
--   --set bowler=impulse  the ball is active: an impulse gives it a sampled speed along a sampled
--                         heading angle (default)
--   --set bowler=kick     a robot kicks the (passive) ball at a sampled speed along a sampled
--                         direction vector
-- Used by tests/e2e/vocab.sh.
local tp = require "tp"

local bowler = tp.param("bowler", "impulse")
assert(bowler == "impulse" or bowler == "kick", "--set bowler=impulse or kick")
local kick = bowler == "kick"

local bodies = {
  tp.plane { name = "ground" },
  tp.sphere { name = "ball", class = kick and "passive" or "active", radius = 0.05, mass = 0.5,
              pos = { 0, 0, 0.05 }, color = { 0.9, 0.3, 0.1, 1 },
              -- the impulse: up to 0.5 kg * 3 m/s in one step (1/60 s) = 90 N
              max_force = (not kick) and 200 or nil },
  tp.box { name = "pin", class = "passive", size = { 0.06, 0.06, 0.3 }, mass = 0.2, pos = { 1.0, 0.0, 0.15 } },
  tp.box { name = "other", class = "passive", size = { 0.06, 0.06, 0.3 }, mass = 0.2, pos = { 1.0, 0.3, 0.15 } },
}
local skill
if kick then
  bodies[#bodies + 1] = tp.box { name = "robot", class = "active", size = { 0.18, 0.18, 0.12 }, mass = 2.5,
                                 pos = { -0.6, 0, 0.06 }, max_force = 20, max_torque = 2, planar = true,
                                 material = "wheels" }
  -- toward the pin (6 cm wide, 1 m away: +-3 degrees); a +-17 degree spread mostly missed once
  -- the kick took its full run-up (before, it struck from the robot's start, always along x)
  skill = tp.skill.kick { name = "roll", body = "robot", target = "ball", speed = tp.uniform(1.5, 2.5), max_speed = 3,
                          direction = tp.uniform({ 1, -0.05 }, { 1, 0.05 }), follow = true }
else
  skill = tp.skill.impulse { name = "roll", body = "ball", speed = tp.uniform(1.0, 3.0),
                             direction = tp.angle(-0.4, 0.4), follow = true, timeout = 8 }
end

return tp.domain {
  name = "skittle",
  description = "knock one pin over, leave the other standing",
  materials = { tp.material { name = "floor", friction = 0.5, restitution = 0.1, rolling_friction = 0.004 },
                tp.material { name = "wheels", friction = 0.5 } },
  contacts = { tp.contact { "floor", "wheels", friction = 0.02 } }, -- the robot rolls on wheels
  bodies = bodies,
  tactics = { tp.tactic { name = "bowler", body = kick and "robot" or "ball", skills = { skill } } },
  goal = tp.all {
    tp.tilted { body = "pin", more_than = 1.2 },
    tp.upright { body = "other", tolerance = 0.1 },
    tp.settled { bodies = { "ball", "pin", "other" }, speed = 0.05, angular = 0.2 },
  },
  planner = { algorithm = "bgt", mu = 50, max_iters = 20000 },
}
