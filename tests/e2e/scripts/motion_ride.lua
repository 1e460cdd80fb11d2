-- A crate waits on a lift moved by tp.motion (up 2 m in 3 s, 1 s pauses, period 8 s); the function
-- returns no velocities, so the physics gets central differences: the crate must ride up anyway.
-- e2e: motion.sh plans, replays and reads the ride from the plan file.
local tp = require "tp"
local function lift(t)
  local u = t % 8
  local z
  if u < 1 then z = 0 elseif u < 4 then z = 2 * (u - 1) / 3 elseif u < 5 then z = 2 else z = 2 - 2 * (u - 5) / 3 end
  return {0, 0, 0.05 + z}, {1, 0, 0, 0}
end
return tp.domain {
  name = "motion_ride",
  bodies = {
    tp.plane { name = "floor" },
    tp.box { name = "lift", class = "foreign", size = {1, 1, 0.1}, motion = tp.motion(lift) },
    tp.box { name = "crate", class = "active", size = {0.3, 0.3, 0.3}, mass = 2, pos = {0, 0, 0.25}, max_force = 5 },
  },
  tactics = { tp.tactic { name = "t", body = "crate", skills = { tp.skill.wait { name = "w", duration = tp.uniform(0.1, 0.5) } } } },
  goal = tp.inside { body = "crate", min = {-1, -1, 2.1}, max = {1, 1, 3} },
  planner = { max_iters = 2000 },
}
