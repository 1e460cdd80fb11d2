local tp = require "tp"
local t = nil
return t.field
