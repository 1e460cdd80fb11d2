-- e2e: fallbacks.sh. The goal "end inside a region, at rest" cannot hold: the region
-- floats in mid-air. The approximate plan must end with the crate at rest on the floor (the goal
-- asks for rest), not at the instant it flies through the region (quality 0, 2-4 m/s), which is
-- what the summed distance outside the region alone picked.
local tp = require "tp"
local LO, HI = { 1.0, -0.3, 0.2 }, { 1.6, 0.3, 0.5 }
return tp.domain {
  name = "midair_fallback",
  materials = { tp.material { name = "rubber", friction = 0.8, restitution = 0.1 } },
  bodies = { tp.plane { name = "floor", material = "rubber" },
             tp.box { name = "crate", class = "active", size = { 0.1, 0.1, 0.1 }, mass = 0.2, pos = { 0, 0, 0.05 },
                      max_force = 200, material = "rubber" } },
  tactics = { tp.tactic { name = "t", body = "crate", skills = {
    tp.skill.impulse { name = "throw", speed = tp.uniform(2, 4), direction = tp.uniform({ 0.2, -0.05, 1 }, { 0.8, 0.05, 1 }) },
    tp.skill.wait { name = "wait", duration = tp.uniform(0.1, 0.4) } },
    transitions = { throw = { wait = 1 }, wait = { wait = 3, throw = 1 } } } },
  goal = tp.all { tp.inside { body = "crate", min = LO, max = HI },
                  tp.settled { bodies = { "crate" }, speed = 0.05, angular = 0.5 } },
  quality = function(st)
    local p, d = { st:pos("crate") }, 0
    for k = 1, 3 do d = d + math.max(0, LO[k] - p[k], p[k] - HI[k]) end
    return d
  end,
  planner = { max_iters = 300 },
}
