-- a goal callback that never returns: stopped by the time limit while planning
local tp = require "tp"
return tp.domain {
  name = "loop_goal",
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.2}, mass = 1, pos = {0, 0, 0.1}, max_force = 10 },
  },
  tactics = { tp.tactic { name = "t", body = "robot", skills = { tp.skill.wait { name = "w", duration = 0.1 } } } },
  goal = function(s) while true do end end,
  planner = { max_iters = 50 },
}
