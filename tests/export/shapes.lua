-- Every shape for the export tests: the worked example of docs/lua-api.md (a robot kicks a ball
-- past a sliding blocker) plus a translucent static cylinder, and a capsule and a cylinder that
-- fall and roll (passive), so that capsule meshes, alpha and tumbling rotations are exported.
local tp = require "tp"

local GOAL = { 1.2, 0.0 }

return tp.domain {
  name = "shapes",
  description = "Export test scene: every shape, a translucent colour, falling bodies",
  dt = 1 / 60,
  materials = {
    tp.material { name = "floor", friction = 0.4, restitution = 0.1, rolling_friction = 0.002 },
    tp.material { name = "rubber", friction = 0.6, restitution = 0.6 },
  },
  bodies = {
    tp.plane { name = "ground", material = "floor" },
    tp.box { name = "robot", class = "active", size = { 0.18, 0.18, 0.12 }, mass = 2.5, pos = { -1, 0, 0.06 },
             max_force = 20, max_torque = 2, planar = true, material = "rubber", color = { 0.2, 0.3, 0.8, 1 } },
    tp.sphere { name = "ball", class = "passive", radius = 0.0215, mass = 0.046, pos = { -0.5, 0.2, 0.0215 },
                material = "floor", color = { 1, 0.5, 0, 1 } },
    tp.box { name = "blocker", class = "foreign", size = { 0.1, 0.3, 0.1 }, pos = { 0.4, 0, 0.05 },
             motion = tp.oscillate { amplitude = { 0, 0.4, 0 }, period = 4 } },
    tp.cylinder { name = "post", class = "static", radius = 0.05, length = 0.3, pos = { 0, 0.8, 0.15 },
                  color = { 0.6, 0.6, 0.6, 0.5 } },
    tp.capsule { name = "pin", class = "passive", radius = 0.03, length = 0.2, mass = 0.2, pos = { 0.8, -0.7, 0.4 },
                 color = { 0.9, 0.9, 0.2, 1 } },
    tp.cylinder { name = "can", class = "passive", radius = 0.04, length = 0.12, mass = 0.1,
                  pos = { -0.6, -0.6, 0.3 }, color = { 0.8, 0.1, 0.1, 1 } },
  },
  tactics = {
    tp.tactic { name = "kicker", body = "robot", start = "wait",
      skills = {
        tp.skill.wait { name = "wait", duration = tp.uniform(0, 2) },
        tp.skill.drive_to { name = "position", target = "ball", frame = "target",
                            point = tp.disc({ 0, 0 }, 0.15, 0.4) },
        tp.skill.kick { name = "kick", target = "ball", point = tp.uniform({ 1.0, -0.2 }, { 1.4, 0.2 }),
                        speed = tp.uniform(0.5, 2.5) },
      },
      transitions = {
        wait = { position = 1, kick = 1 },
        position = { kick = 1 },
        kick = function(s)
          if s:speed("ball") > 0.05 then return { wait = 1 } end
          return { position = 1, kick = 1 }
        end,
      },
    },
  },
  goal = tp.all {
    tp.within { body = "ball", center = GOAL, radius = 0.15 },
    tp.slower { body = "ball", speed = 0.5 },
  },
  valid = tp.inside { body = "ball", min = { -1.5, -1 }, max = { 1.5, 1 } },
  quality = tp.distance { body = "ball", to = GOAL },
  solution_metric = "steps",
  planner = { algorithm = "bgt", mu = 1000, max_iters = 20000, solutions = 2, seed = 1 },
}
