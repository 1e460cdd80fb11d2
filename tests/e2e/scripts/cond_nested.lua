-- The goal condition calls a local function that raises on line 4 during planning.
local tp = require "tp"
local function late(s)
  if s.t > 0.05 then error("too late") end
  return false
end
return tp.domain {
  name = "condnested",
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.1}, mass = 2, pos = {0, 0, 0.05} },
  },
  tactics = { tp.tactic { name = "t", skills = { tp.skill.wait { name = "w", body = "robot", duration = 0.1 } } } },
  goal = function(s) return late(s) end,
}
