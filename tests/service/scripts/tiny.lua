-- A small domain for the service tests: a robot waits or pushes; solved within a few iterations.
local tp = require "tp"
local W = tp.param("w", 1.0, { min = 0.1, max = 10 })
return tp.domain {
  name = "tiny",
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.2}, mass = 1, pos = {0, 0, 0.1}, max_force = 10, planar = true },
  },
  tactics = { tp.tactic { name = "t", body = "robot", skills = {
      tp.skill.wait { name = "w", duration = tp.uniform(0, 0.1) } } } },
  goal = function(s) return s.t > 0.2 * W end,
  planner = { max_iters = 300 },
}
