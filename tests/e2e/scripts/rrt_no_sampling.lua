-- e2e: planner_refusals.sh. No `sampling` table: BK-RRT (asked on the command line
-- or, with --set inscript=1, by the script's planner table) is refused with a message that says
-- what to declare, not "problem.key_dim > 0".
local tp = require "tp"
local inscript = tp.param("inscript", 0)
return tp.domain {
  name = "rrt_no_sampling",
  bodies = { tp.plane { name = "floor" },
             tp.sphere { name = "ball", class = "active", radius = 0.05, mass = 0.2, pos = { 0, 0, 0.05 }, max_force = 50 } },
  tactics = { tp.tactic { name = "t", body = "ball", skills = { tp.skill.impulse { name = "roll", speed = 1, direction = tp.angle(-1, 1) } } } },
  goal = tp.within { body = "ball", center = { 1, 0 }, radius = 0.1 },
  planner = { algorithm = inscript == 1 and "rrt" or "bgt", max_iters = 100 },
}
