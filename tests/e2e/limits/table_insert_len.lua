-- table.insert at 1 in a table whose __len says 2^63 - 2: the shift is one C loop. Expected: the
-- load limit, exit 2.
local tp = require "tp"
table.insert(setmetatable({}, { __len = function() return math.maxinteger - 1 end }), 1, 1)
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
