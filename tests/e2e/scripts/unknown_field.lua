-- A typo in a field name (mas instead of mass) on line 6.
local tp = require "tp"
return tp.domain {
  name = "typo", description = "unknown field",
  bodies = {
    tp.sphere { name = "ball", class = "passive", radius = 0.02, mas = 0.05, pos = {0, 0, 0.02} },
  },
  goal = tp.within { body = "ball", center = {1, 0}, radius = 0.1 },
}
