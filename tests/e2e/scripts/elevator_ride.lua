-- An elevator (tp.waypoints: up 2 m at 0.5 m/s after a 1 s pause, back and forth) carries a crate
-- that can only wait: the goal (the crate 2.1 m up) is reached by riding. e2e: plan, replay, ride.
local tp = require "tp"
return tp.domain {
  name = "elevator_ride",
  bodies = {
    tp.plane { name = "floor" },
    tp.box { name = "lift", class = "foreign", size = {1, 1, 0.1}, pos = {0, 0, 0.05},
             motion = tp.waypoints { points = {{0, 0, 0}, {0, 0, 2}}, speed = 0.5, pause = 1, loop = "pingpong" } },
    tp.box { name = "crate", class = "active", size = {0.3, 0.3, 0.3}, mass = 2, pos = {0, 0, 0.25}, max_force = 5 },
  },
  tactics = { tp.tactic { name = "t", body = "crate", skills = { tp.skill.wait { name = "w", duration = tp.uniform(0.1, 0.5) } } } },
  goal = tp.inside { body = "crate", min = {-1, -1, 2.1}, max = {1, 1, 3} },
  planner = { max_iters = 2000 },
}
