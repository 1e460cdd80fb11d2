-- e2e: temporal.sh. A ball rolled toward a spot past a vase: the strokes that
-- graze the vase would still reach the spot, but valid = tp.never(the ball touches the vase)
-- prunes them the step the touch happens, so the plan's ball never touches it (replay --check
-- lists the touching pairs). The goal is a tp.sequence: past the line x = 0.4 first (a gate),
-- then in the spot at rest.
local tp = require "tp"
return tp.domain {
  name = "vase",
  materials = { tp.material { name = "cloth", friction = 0.2, rolling_friction = 0.002 } },
  bodies = { tp.plane { name = "floor", material = "cloth" },
             tp.box { name = "vase", size = { 0.08, 0.08, 0.2 }, pos = { 0.45, 0.05, 0.1 }, class = "static",
                     material = "cloth" },
             tp.sphere { name = "ball", class = "active", radius = 0.03, mass = 0.16, pos = { 0, 0, 0.03 },
                         max_force = 100, material = "cloth" } },
  tactics = { tp.tactic { name = "t", body = "ball", skills = {
    tp.skill.impulse { name = "stroke", speed = tp.uniform(0.6, 1.2), direction = tp.angle(-0.3, 0.3),
                       follow = true, trigger_speed = 0.02, timeout = 20 } } } },
  goal = tp.sequence {
    tp.inside { body = "ball", min = { 0.4, -math.huge, -math.huge } },
    tp.all { tp.within { body = "ball", center = { 0.9, 0 }, radius = 0.2 },
             tp.settled { bodies = { "ball" }, speed = 0.02 } },
  },
  valid = tp.never(tp.touching { body = "ball", other = "vase" }),
  planner = { max_iters = 20000, coast = 2 },
}
