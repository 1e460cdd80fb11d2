-- A loop in an xpcall message handler. The first error calls the handler; its loop
-- trips the time limit, whose error, raised inside the count hook, called the handler again with
-- hooks off: the loop then ran for ever. Expected: the load limit, exit 2.
local tp = require "tp"
xpcall(error, function() while true do end end)
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
