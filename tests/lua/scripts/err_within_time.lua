-- tp.within_time with from > to (line 4)
local tp = require "tp"
local near = tp.within { body = "ball", center = { 0, 0 }, radius = 1 }
local goal = tp.within_time { near, from = 2, to = 1 }
return goal
