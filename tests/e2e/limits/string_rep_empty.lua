-- string.rep of an empty string 2^63 - 1 times: Lua's loop runs n times producing nothing.
-- Expected: an empty string at once, then the loop after it is stopped at the load limit, exit 2.
local tp = require "tp"
local s = string.rep("", math.maxinteger)
assert(s == "")
while true do end
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
