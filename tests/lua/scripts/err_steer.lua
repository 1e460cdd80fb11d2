local tp = require "tp"
local s = tp.skill.steer { name = "s", min_z = 2, max_z = 1 }
