-- tp.never of a string (line 3)
local tp = require "tp"
local valid = tp.never("vase")
return valid
