-- The domain every case of this folder is (limits.sh plans it, then puts each case into the plan
-- in its place to replay it): a robot that waits 0.1 s.
local tp = require "tp"

return tp.domain {
  name = "limits",
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.2}, mass = 1, pos = {0, 0, 0.1} },
  },
  tactics = { tp.tactic { name = "t", body = "robot", skills = { tp.skill.wait { name = "w", duration = 0.1 } } } },
  goal = function(s) return s.t > 0.05 end,
  planner = { max_iters = 50 },
}
