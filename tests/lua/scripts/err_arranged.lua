local tp = require "tp"
local on = tp.arranged { bodies = { "a", "b" }, points = { { 0, 0 } }, radius = 0.1 }
