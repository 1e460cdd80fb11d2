-- A small valid domain exercising most constructors (test fixture: line numbers matter).
local tp = require "tp"
local common = require "common"
local W = tp.param("width", 4.0)
local label = tp.param("label", "green")
local fast = tp.param("fast", false)
return tp.domain {
  name = "minigolf", description = "test fixture " .. label,
  dt = 1/60, gravity = {0, 0, -9.81}, solver = "step",
  materials = {
    tp.material { name = "green", friction = 0.4, restitution = 0.1, rolling_friction = 0.0015 },
    tp.material { name = "wall", friction = 0.3, restitution = 0.7 },
  },
  contacts = { tp.contact { "green", "wall", restitution = 0.8 } },
  bodies = {
    common.ground("green"),
    tp.box { name = "wall_n", class = "static", size = {W + 0.1, 0.05, 0.1}, pos = {0, 0.775, 0.05}, material = "wall" },
    tp.box { name = "robot", class = "active", size = {0.18, 0.18, 0.12}, mass = 2.5, pos = {-1.7, 0, 0.06},
             max_force = 20, max_torque = 2, planar = true, color = {0.2, 0.2, 0.25, 1} },
    tp.sphere { name = "ball", class = "passive", radius = 0.0215, mass = 0.046, pos = {-1.2, 0.2, 0.0215} },
    tp.box { name = "bar", class = "foreign", size = {1, 0.06, 0.1}, pos = {0, 0, 0.05},
             motion = tp.rotate { rate = fast and 1.2 or 0.6, axis = {0, 0, 1}, phase = 0 } },
  },
  tactics = {
    tp.tactic { name = "golfer", body = "robot", start = "wait",
      skills = {
        tp.skill.wait { name = "wait", duration = tp.uniform(0, 4) },
        tp.skill.drive_to { name = "position", target = "ball", frame = "target", point = tp.disc({0, 0}, 0.15, 0.45) },
        tp.skill.kick { name = "kick", target = "ball", point = tp.uniform({0.3, -0.7}, {1.9, 0.7}), speed = tp.uniform(0.4, 3.0) },
      },
      transitions = {
        wait = { position = 1 },
        position = { kick = 0.75, wait = 0.25 },
        kick = function(s) return { wait = 1 } end,
      },
    },
  },
  goal = tp.all { tp.within { body = "ball", center = {1.6, -0.45}, radius = 0.054 }, tp.slower { body = "ball", speed = 1.0 } },
  valid = tp.inside { body = "robot", max = {-0.6, math.huge, math.huge} },
  sampling = { tp.uniform({-2, -0.75}, {-0.6, 0.75}), distance = "min_time", body = "robot" },
  quality = tp.distance { body = "ball", to = {1.6, -0.45}, planar = true },
  solution_metric = "steps",
  planner = { algorithm = "bgt", mu = 1000, max_iters = 500, time_limit = 0, solutions = 1, seed = 7 },
}
