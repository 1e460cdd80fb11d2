-- A plain find of a 15 MB needle in a 30 MB haystack of the same letter: the standard library
-- compares the needle at every position (quadratic: hours in one C call). Ours is linear: it
-- answers at once, and the loop after it is stopped. Expected: the load limit, exit 2.
local tp = require "tp"
local s = ("a"):rep(3e7)
assert(string.find(s, s:sub(1, 1.5e7) .. "b", 1, true) == nil)
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
