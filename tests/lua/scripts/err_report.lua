local tp = require "tp"
return tp.domain {
  name = "r", bodies = { tp.sphere { name = "b", class = "passive", mass = 1, radius = 0.1 } },
  goal = tp.slower { body = "b", speed = 1 },
  report = { { "x", "steps" }, { "x", tp.peak_force() } },
}
