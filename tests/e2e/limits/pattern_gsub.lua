-- Polynomial backtracking in one gsub: every start position tries every split. Expected: the
-- load limit, exit 2.
local tp = require "tp"
local s = ("x"):rep(1e5) s:gsub(".-.-.-.-b", "")
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
