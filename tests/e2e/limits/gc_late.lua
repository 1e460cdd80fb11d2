-- A __gc added to a metatable after setmetatable (which refuses __gc) is not a finalizer: Lua
-- marks an object for finalization only when its metatable has __gc at setmetatable. So the loop
-- in it never runs; the loop after it is stopped. Expected: the load limit, exit 2.
local tp = require "tp"
local mt = {}
local t = setmetatable({}, mt)
mt.__gc = function() while true do end end
t = nil collectgarbage() collectgarbage()
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
