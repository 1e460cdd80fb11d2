-- coroutine.close, called by a __close of the main thread while the limit error unwinds it, on a
-- coroutine the limit stopped (hooks off in it): its looping __close ran for ever. Expected: the
-- load limit, exit 2.
local tp = require "tp"
local co = coroutine.create(function()
  local x <close> = setmetatable({}, { __close = function() while true do end end })
  while true do end
end)
local y <close> = setmetatable({}, { __close = function() coroutine.close(co) end })
coroutine.resume(co)
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
