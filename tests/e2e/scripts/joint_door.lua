-- A robot behind a spring-loaded door: the only way to the goal is through a doorway
-- that a door hinged at one side (tp.joint, a hinge about z with a closing spring) blocks; the robot
-- must push it open. Used by tests/e2e/joints.sh: both planners solve it, the plan replays bit for
-- bit, and the door turned on its hinge.
local tp = require "tp"
local wall = function(name, y0, y1)
  return tp.box { name = name, class = "static", size = { 0.1, y1 - y0, 0.6 }, pos = { 1, 0.5 * (y0 + y1), 0.3 } }
end
return tp.domain {
  name = "joint_door", dt = 1/60,
  bodies = {
    tp.plane { name = "ground" },
    wall("wall_s", -3, -0.56), wall("wall_n", 0.56, 3),
    tp.box { name = "robot", class = "active", size = { 0.2, 0.2, 0.1 }, mass = 2, pos = { 0, 0, 0.05 },
             max_force = 20, planar = true },
    -- the door fills the doorway, 2 cm above the floor (the hinge holds it up)
    tp.box { name = "door", class = "passive", size = { 0.04, 1.0, 0.5 }, mass = 1, pos = { 1, 0, 0.27 } },
  },
  joints = {
    tp.joint { name = "hinge", kind = "hinge", bodies = { "door", "world" }, anchor = { 1, -0.52, 0.27 },
               axis = { 0, 0, 1 }, spring = { stiffness = 2, damping = 0.5 } },
  },
  tactics = {
    tp.tactic { name = "t", body = "robot",
      skills = { tp.skill.drive_to { name = "go", point = tp.uniform({ -0.5, -1 }, { 2.5, 1 }) } },
    },
  },
  sampling = { tp.uniform({ -0.5, -1 }, { 2.5, 1 }), body = "robot" },
  goal = tp.within { body = "robot", center = { 2, 0 }, radius = 0.3 },
}
