-- syntax error on line 3
local tp = require "tp"
local x = = 1
return x
