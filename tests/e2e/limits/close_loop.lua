-- A to-be-closed variable whose __close loops, in the main thread: closed on the error with hooks
-- on (this one always stopped). Expected: the load limit, exit 2.
local tp = require "tp"
local x <close> = setmetatable({}, { __close = function() while true do end end })
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
