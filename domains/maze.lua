-- Maze / office (Kuffner 1998): a round robot must reach a goal region on the far side
-- of a small office whose walls leave only winding corridors. The nav_to skill plans a grid
-- path around the static walls at skill start (A*, 8-connected, grown by the robot radius) and
-- follows it with Kuffner's controller; the tactics planner only chooses where to go.
--
--   floor    plane z = 0, room x in [0, 6], y in [0, 4], walls 0.5 high, 0.1 thick
--   walls    three staggered partitions: x = 1.5 (gap at the top), x = 3 (gap at the bottom),
--            x = 4.5 (gap at the top), each gap 1 m wide
--   robot    cylinder r 0.15, height 0.4, 8 kg, starts at (0.5, 0.5); planar force <= 40 N
--   goal     robot centre within 0.3 of (5.5, 0.5), speed < 0.2 m/s
local tp = require "tp"
local walls = require "walls" -- domains/lib/walls.lua

local GOAL = {5.5, 0.5}
local W, H, T, WH = 6.0, 4.0, 0.1, 0.5
local wall = walls.maker { height = WH, material = "wall", color = {0.6, 0.6, 0.65, 1} }
local room = walls.room(wall, W, H, T)

return tp.domain {
  name = "maze",
  description = "a robot navigates an office maze to a goal region (nav_to: Kuffner grid planner + controller)",
  dt = 1 / 60,
  gravity = {0, 0, -9.81},
  materials = {
    tp.material { name = "floor", friction = 0.3 },
    tp.material { name = "wall", friction = 0.3, restitution = 0.1 },
    tp.material { name = "robot", friction = 0.05 },
  },
  bodies = {
    tp.plane { name = "floor", normal = {0, 0, 1}, offset = 0, material = "floor", color = {0.8, 0.78, 0.7, 1} },
    room[1], room[2], room[3], room[4], -- the outer walls: south, north, west, east
    wall("part_1", 1.5 - T / 2, 0, 1.5 + T / 2, H - 1.0),
    wall("part_2", 3.0 - T / 2, 1.0, 3.0 + T / 2, H),
    wall("part_3", 4.5 - T / 2, 0, 4.5 + T / 2, H - 1.0),
    tp.cylinder { name = "robot", class = "active", radius = 0.15, length = 0.4, mass = 8, pos = {0.5, 0.5, 0.2},
                  max_force = 40, max_torque = 4, planar = true, material = "robot", color = {0.2, 0.3, 0.8, 1} },
  },
  tactics = {
    tp.tactic {
      name = "walker", body = "robot", start = "go",
      skills = {
        -- go to a sampled spot anywhere in the office (the RRT sample steers BK-RRT) ...
        tp.skill.nav_to { name = "go", body = "robot", point = tp.uniform({0.3, 0.3}, {W - 0.3, H - 0.3}),
                          max_speed = 1.0, nav_cell = 0.05, tolerance = 0.05 },
        -- ... or to the goal region directly
        tp.skill.nav_to { name = "finish", body = "robot", point = tp.disc(GOAL, 0, 0.15),
                          max_speed = 1.0, nav_cell = 0.05, tolerance = 0.05 },
      },
      transitions = {
        go = { go = 0.7, finish = 0.3 },
        finish = { go = 0.5, finish = 0.5 },
      },
    },
  },
  goal = tp.all {
    tp.within { body = "robot", center = GOAL, radius = 0.3 },
    tp.slower { body = "robot", speed = 0.2 },
  },
  valid = tp.inside { body = "robot", min = {0, 0, -1}, max = {W, H, 1} },
  sampling = { tp.uniform({0, 0}, {W, H}), body = "robot" },
  quality = tp.distance { body = "robot", to = GOAL, planar = true },
  solution_metric = "steps",
  -- from straight above: the corridors and the path through them
  view = { yaw = -90, pitch = 89 },
  planner = { algorithm = "bgt", mu = 1000, max_iters = 20000 },
}
