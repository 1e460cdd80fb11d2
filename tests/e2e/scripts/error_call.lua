-- error() raised by the script itself on line 3.
local tp = require "tp"
error("stop here")
return tp.domain {}
