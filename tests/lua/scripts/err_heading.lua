local tp = require "tp"
return tp.domain {
  name = "h", bodies = { tp.sphere { name = "b", class = "passive", mass = 1, radius = 0.1 } },
  goal = tp.heading { body = "b", to = { 1, 0 }, angle = 4 },
}
