-- A backtracking pattern in the gmatch iterator (also a single C call per match). Expected: the
-- load limit, exit 2.
local tp = require "tp"
for _ in (("a"):rep(1e5)):gmatch("a-a-a-b") do end
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
