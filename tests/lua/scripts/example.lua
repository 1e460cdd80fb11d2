-- kick.lua: a robot kicks a ball into a circle past a sliding blocker (docs/lua-api.md example).
local tp = require "tp"

local GOAL = { 1.2, 0.0 }                      -- centre of the target circle (m)
local GOAL_R = tp.param("goal_radius", 0.15)   -- --set goal_radius=0.1 makes it harder

return tp.domain {
  name = "kick",
  description = "A robot kicks a ball into a circle past a sliding blocker",
  dt = 1 / 60,
  materials = {
    tp.material { name = "floor", friction = 0.4, restitution = 0.1, rolling_friction = 0.002 },
    tp.material { name = "rubber", friction = 0.6, restitution = 0.6 },
  },
  contacts = { tp.contact { "floor", "rubber", friction = 0.3 } },
  bodies = {
    tp.plane { name = "ground", material = "floor" },
    tp.box { name = "robot", class = "active", size = { 0.18, 0.18, 0.12 }, mass = 2.5, pos = { -1, 0, 0.06 },
             max_force = 20, max_torque = 2, planar = true, material = "rubber", color = { 0.2, 0.3, 0.8, 1 } },
    tp.sphere { name = "ball", class = "passive", radius = 0.0215, mass = 0.046, pos = { -0.5, 0.2, 0.0215 },
                material = "floor", color = { 1, 0.5, 0, 1 } },
    tp.box { name = "blocker", class = "foreign", size = { 0.1, 0.3, 0.1 }, pos = { 0.4, 0, 0.05 },
             motion = tp.oscillate { amplitude = { 0, 0.4, 0 }, period = 4 } },
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
        -- after a kick: wait while the ball still rolls, otherwise try again at once
        kick = function(s)
          if s:speed("ball") > 0.05 then return { wait = 1 } end
          return { position = 1, kick = 1 }
        end,
      },
    },
  },
  goal = tp.all {
    tp.within { body = "ball", center = GOAL, radius = GOAL_R },
    tp.slower { body = "ball", speed = 0.5 },
  },
  valid = tp.inside { body = "ball", min = { -1.5, -1 }, max = { 1.5, 1 } },
  quality = tp.distance { body = "ball", to = GOAL },
  solution_metric = "steps",
  planner = { algorithm = "bgt", mu = 1000, max_iters = 20000, solutions = 1, seed = 2 },
}
