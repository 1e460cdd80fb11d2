-- tp.nav error fixture (line numbers matter)
local tp = require "tp"
local g = tp.nav.grid { cell = 0.1, size = {10, 10}, shapes = { { kind = "cone", center = {1, 1} } } }
