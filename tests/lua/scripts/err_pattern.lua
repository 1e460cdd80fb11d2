local tp = require "tp"
local c = tp.pattern { text = "A~", count = 5, pitch = 1 }
