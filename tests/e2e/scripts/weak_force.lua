-- A 2 kg robot with max_force 2 N on a floor with friction 0.5 (it needs 9.81 N to slide): tplan
-- warns before planning, also under -q, naming this file and the line of the robot (line 10).
-- From a domain author's report; --set max_force=20 is strong enough (no warning).
local tp = require "tp"
local MAX_FORCE = tp.param("max_force", 2, { min = 0.001, max = 1000 })
return tp.domain {
  name = "weak",
  materials = { tp.material { name = "rough", friction = 0.5 } },
  bodies = { tp.plane { name = "floor" },
    tp.box { name = "robot", class = "active", size = { 0.2, 0.2, 0.1 }, mass = 2, pos = { 0, 0, 0.05 }, max_force = MAX_FORCE, planar = true },
  },
  tactics = { tp.tactic { name = "t", body = "robot",
    skills = { tp.skill.drive_to { name = "go", point = tp.uniform({ 0.5, -0.5 }, { 1, 0.5 }) } } } },
  goal = tp.within { body = "robot", center = { 1, 0 }, radius = 0.2 },
  quality = tp.distance { body = "robot", to = { 1, 0 } },
  planner = { max_iters = 300 },
}
