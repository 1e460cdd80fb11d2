-- tp.sequence with a number among its conditions (line 4)
local tp = require "tp"
local near = tp.within { body = "ball", center = { 0, 0 }, radius = 1 }
local goal = tp.sequence { near, 42 }
return goal
