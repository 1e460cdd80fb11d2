-- table.concat of 2^40 elements produced by a C __index: it reads them until the memory limit,
-- for many seconds past the time limit. Expected: the load limit, exit 2.
local tp = require "tp"
table.concat(setmetatable({}, { __len = function() return 2 ^ 40 end, __index = rawlen }))
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
