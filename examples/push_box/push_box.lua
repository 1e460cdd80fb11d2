-- A robot pushes a box into a circle (examples/push_box/controller.py: a receding-horizon
-- controller over tplan.Search, the box disturbed while it goes).
local tp = require "tp"

local GOAL = { 1.0, 0.0 } -- m: centre of the target circle

return tp.domain {
  name = "push_box",
  description = "A robot pushes a box into a circle",
  dt = 1 / 60,
  materials = {
    tp.material { name = "floor", friction = 0.5, restitution = 0.0 },
    tp.material { name = "rubber", friction = 0.8, restitution = 0.1 },
  },
  bodies = {
    tp.plane { name = "ground", material = "floor" },
    tp.box { name = "robot", class = "active", size = { 0.18, 0.18, 0.12 }, mass = 2.5, pos = { -0.6, 0, 0.06 },
             max_force = 25, max_torque = 3, planar = true, material = "rubber", color = { 0.2, 0.3, 0.8, 1 } },
    tp.box { name = "box", class = "passive", size = { 0.16, 0.16, 0.16 }, mass = 0.4, pos = { -0.2, 0.1, 0.08 },
             material = "floor", color = { 0.8, 0.5, 0.2, 1 } },
  },
  tactics = {
    tp.tactic { name = "pusher", body = "robot", start = "position",
      skills = {
        tp.skill.drive_to { name = "position", target = "box", frame = "target", point = tp.disc({ 0, 0 }, 0.2, 0.35) },
        tp.skill.push { name = "push", target = "box", point = tp.disc(GOAL, 0, 0.1), speed = tp.uniform(0.2, 0.6) },
      },
      transitions = { position = { push = 1 }, push = { position = 1, push = 1 } },
    },
  },
  goal = tp.all {
    tp.within { body = "box", center = GOAL, radius = 0.15 },
    tp.slower { body = "box", speed = 0.1 },
  },
  valid = tp.inside { body = "box", min = { -1.5, -1 }, max = { 1.5, 1 } },
  quality = tp.distance { body = "box", to = GOAL },
  planner = { algorithm = "bgt", max_iters = 20000, solutions = 1 },
}
