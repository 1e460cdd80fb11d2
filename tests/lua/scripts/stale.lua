-- A goal function that keeps its state view and uses it in the next call (line 9).
local tp = require "tp"
local saved
return tp.domain {
  name = "stale",
  bodies = { tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.1}, mass = 2 } },
  tactics = { tp.tactic { name = "t", skills = { tp.skill.wait { name = "w", body = "robot", duration = 0.1 } } } },
  goal = function(s)
    if saved then return saved:pos("robot") > 100 end
    saved = s
    return false
  end,
}
