-- Exponential backtracking in one string.find call: a single C call the count hook never sees
-- (the repro of plan_file_pattern_hang.sh). Expected: the load limit, exit 2.
local tp = require "tp"
string.find(("a"):rep(1e6), ("a*"):rep(30) .. "b")
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
