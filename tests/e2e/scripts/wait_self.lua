-- e2e: planner_refusals.sh. `wait` watching its own body: a ball rolled, then waiting
-- until it itself rests ("'target' must differ from 'body'" before); the goal holds only once it
-- rests beyond x = 0.2.
local tp = require "tp"
return tp.domain {
  name = "wait_self",
  materials = { tp.material { name = "cloth", friction = 0.3, rolling_friction = 0.01 } },
  bodies = { tp.plane { name = "floor", material = "cloth" },
             tp.sphere { name = "ball", class = "active", radius = 0.03, mass = 0.1, pos = { 0, 0, 0.03 }, max_force = 20,
                         material = "cloth" } },
  tactics = { tp.tactic { name = "t", body = "ball", skills = {
    tp.skill.impulse { name = "roll", speed = tp.uniform(0.3, 0.8), direction = { 1, 0 } },
    tp.skill.wait { name = "settle", target = "ball", duration = 0 } },
    transitions = { roll = { settle = 1 }, settle = { roll = 1 } } } },
  goal = function(s)
    local vx, vy, vz = s:vel("ball")
    return s:pos("ball") > 0.2 and math.sqrt(vx * vx + vy * vy + vz * vz) < 0.05
  end,
  planner = { max_iters = 400 },
}
