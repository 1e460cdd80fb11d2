local tp = require "tp"
return tp.domain {
  name = "r", space = "octree", bodies = { tp.sphere { name = "b", class = "passive", mass = 1, radius = 0.1 } },
  goal = tp.slower { body = "b", speed = 1 },
}
