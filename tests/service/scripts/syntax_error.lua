local tp = require "tp"
-- line 3 below is not Lua
local x = = 1
return tp.domain {}
