-- math.random is disabled (line 3)
local tp = require "tp"
local r = math.random()
return r
