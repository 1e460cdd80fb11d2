-- A script that calls nil on line 4.
local tp = require "tp"
local helper = nil
helper()
return tp.domain {}
