-- The goal condition calls a function of a required sibling module that raises during planning
-- (err_helper.lua:4).
local tp = require "tp"
local helper = require "err_helper"
return tp.domain {
  name = "conderr",
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.1}, mass = 2, pos = {0, 0, 0.05} },
  },
  tactics = { tp.tactic { name = "t", skills = { tp.skill.wait { name = "w", body = "robot", duration = 0.1 } } } },
  goal = function(s) return helper.past(s) end,
}
