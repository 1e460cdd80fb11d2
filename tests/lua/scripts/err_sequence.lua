-- tp.sequence with no condition (line 3)
local tp = require "tp"
local goal = tp.sequence {}
return goal
