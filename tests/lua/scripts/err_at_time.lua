-- tp.at_time without its time (line 4)
local tp = require "tp"
local near = tp.within { body = "ball", center = { 0, 0 }, radius = 1 }
local goal = tp.at_time { near }
return goal
