-- runtime error on line 4
local tp = require "tp"
local helpers = {}
helpers.missing()
return tp.domain {}
