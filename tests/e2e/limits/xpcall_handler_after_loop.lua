-- A loop in the protected function, then a long loop in the message handler: the limit error
-- raised inside the hook called the handler with hooks off (1e12 iterations: hours). Expected: the
-- load limit, exit 2.
local tp = require "tp"
xpcall(function() while true do end end, function() for _ = 1, 1e12 do end end)
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
