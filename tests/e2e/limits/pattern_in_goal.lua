-- The catastrophic pattern in a callback while planning. Expected: the call limit, exit 2.
local tp = require "tp"

return tp.domain {
  name = "limits",
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.2}, mass = 1, pos = {0, 0, 0.1} },
  },
  tactics = { tp.tactic { name = "t", body = "robot", skills = { tp.skill.wait { name = "w", duration = 0.1 } } } },
  goal = function(s) string.find(("a"):rep(1e5), ("a*"):rep(30) .. "b") return true end,
  planner = { max_iters = 50 },
}
