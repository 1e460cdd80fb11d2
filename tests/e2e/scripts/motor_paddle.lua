-- A motor-driven paddle: a bar hinged to the world at one end about z, its motor
-- declared driven (the target speed is part of the action), swings to bat a ball into a goal disc.
-- The only tactic drives the joint: tp.skill.motor with a sampled target speed and duration, then a
-- wait (the motor returns to its declared speed 0: a brake). No body is controlled by forces.
-- Used by tests/e2e/motor.sh: both planners solve it, every plan replays bit for bit, and the
-- plan's motor targets are what the paddle turned at.
local tp = require "tp"
return tp.domain {
  name = "motor_paddle", dt = 1 / 60, substeps = 2,
  materials = { tp.material { name = "felt", friction = 0.4, rolling_friction = 0.03 } },
  bodies = {
    tp.plane { name = "ground" },
    -- 0.6 m long, 2 cm above the floor (the hinge holds it up); pivot at the origin
    tp.box { name = "paddle", class = "passive", size = { 0.6, 0.06, 0.1 }, mass = 1, pos = { 0.3, 0, 0.07 },
             color = { 0.8, 0.6, 0.3, 1 } },
    tp.sphere { name = "ball", class = "passive", radius = 0.05, mass = 0.1, pos = { 0.45, 0.09, 0.05 },
                color = { 0.9, 0.2, 0.2, 1 } },
  },
  joints = {
    tp.joint { name = "arm", kind = "hinge", bodies = { "paddle", "world" }, anchor = { 0, 0, 0.07 },
               axis = { 0, 0, 1 }, motor = { max_torque = 5, driven = true, max_speed = 12 } },
  },
  tactics = {
    tp.tactic { name = "bat",
      skills = {
        tp.skill.motor { name = "swing", joint = "arm", range = { 0.5, 8 }, duration = tp.uniform(0.05, 0.4) },
        tp.skill.wait { name = "settle", duration = 0.5 },
      },
      transitions = { swing = { settle = 1 }, settle = { swing = 1 } },
    },
  },
  goal = tp.all {
    tp.inside { body = "ball", min = { -1.5, 0.8 }, max = { 1, 1.6 } },
    tp.slower { body = "ball", speed = 0.3 },
  },
  -- a ball batted too hard rolls out of the yard, one batted too softly comes to rest out of the
  -- paddle's reach short of the goal: such states are cut, so a swing must be just so
  valid = tp.all {
    tp.inside { body = "ball", min = { -1.5, -0.5 }, max = { 1, 1.6 } },
    tp.any {
      tp.within { body = "ball", center = { 0, 0 }, radius = 0.6 },
      tp.faster { body = "ball", speed = 0.02 },
      tp.inside { body = "ball", min = { -1.5, 0.8 }, max = { 1, 1.6 } },
    },
  },
  sampling = { tp.uniform({ -1.5, -0.5 }, { 1, 1.6 }), body = "ball" }, -- RRT grows the ball toward these
  planner = { max_iters = 3000 },
}
