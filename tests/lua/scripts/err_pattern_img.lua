local tp = require "tp"
local c = tp.pattern { image = "no_such.pgm", count = 5, pitch = 1 }
