-- A goal function that raises on line 10 (test fixture: line numbers matter).
local tp = require "tp"
return tp.domain {
  name = "cberr",
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.1}, mass = 2, pos = {0, 0, 0.05} },
  },
  tactics = { tp.tactic { name = "t", skills = { tp.skill.wait { name = "w", body = "robot", duration = 0.1 } } } },
  goal = function(s) if s.t > 0.05 then error("boom") end return false end,
}
