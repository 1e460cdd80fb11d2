-- tp.heading fixture: a ball rolls along +x from the origin; `to` and `angle` come from --set
local tp = require "tp"
return tp.domain {
  name = "heading",
  bodies = { tp.sphere { name = "b", class = "passive", mass = 1, radius = 0.1, pos = { 0, 0, 0.1 },
                         vel = { tp.param("vx", 1.0), 0, 0 } } },
  goal = tp.heading { body = "b", to = { tp.param("tx", 2.0), tp.param("ty", 0.0) },
                      angle = tp.param("angle", 0.1), speed = 0.5 },
}
