-- A negative mass on line 6.
local tp = require "tp"
return tp.domain {
  name = "negative", description = "negative mass",
  bodies = {
    tp.sphere { name = "ball", class = "passive", radius = 0.02, mass = -1, pos = {0, 0, 0.02} },
  },
  goal = tp.within { body = "ball", center = {1, 0}, radius = 0.1 },
}
