-- e2e: fallbacks.sh. An animation shot whose goal does not ask for rest (like dice's arrangement):
-- the region floats out of the throw's reach, so no node reaches it and quality alone picked the
-- apex of a throw (closest to the region, in mid-air). fallback = "rest" makes the approximate plan
-- end with the crate at rest on the floor, the best by quality among such nodes, and shot.min
-- keeps it no shorter than 1.5 s (shot.max: no longer than 6 s).
local tp = require "tp"
local LO, HI = { 1.0, -0.3, 1.5 }, { 1.6, 0.3, 1.8 }
return tp.domain {
  name = "shot_fallback",
  fallback = "rest",
  shot = { min = 1.5, max = 6 },
  materials = { tp.material { name = "rubber", friction = 0.8, restitution = 0.1 } },
  bodies = { tp.plane { name = "floor", material = "rubber" },
             tp.box { name = "crate", class = "active", size = { 0.1, 0.1, 0.1 }, mass = 0.2, pos = { 0, 0, 0.05 },
                      max_force = 200, material = "rubber" } },
  tactics = { tp.tactic { name = "t", body = "crate", skills = {
    tp.skill.impulse { name = "throw", speed = tp.uniform(2, 4), direction = tp.uniform({ 0.2, -0.05, 1 }, { 0.8, 0.05, 1 }) },
    tp.skill.wait { name = "wait", duration = tp.uniform(0.1, 0.4) } },
    transitions = { throw = { wait = 1 }, wait = { wait = 3, throw = 1 } } } },
  goal = tp.inside { body = "crate", min = LO, max = HI },
  quality = function(st)
    local p, d = { st:pos("crate") }, 0
    for k = 1, 3 do d = d + math.max(0, LO[k] - p[k], p[k] - HI[k]) end
    return d
  end,
  planner = { max_iters = 300 },
}
