-- tp.choice with a negative spread (line 3)
local tp = require "tp"
local force = tp.choice({ { 1, 0 }, { 0, 1 } }, { 1, 2 }, { 0.1, -0.2 })
return force
