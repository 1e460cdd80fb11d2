-- Crowd (issue 5, Dapper 2007): a robot crosses a small park while pedestrians walk between its
-- corners. Every pedestrian is a tactic-driven foreign body whose follow_field skill descends
-- the harmonic map of its goal and, every step, a 15 x 15 local map in which every other moving
-- body (the robot included) is an obstacle. The robot plans with follow_field too.
--
--   park     plane z = 0, x in [0, 16], y in [0, 12], walls 1 m high, four kiosks
--   walkers  8 cylinders r 0.25, 60 kg, crossing the park (fixed goals: deterministic tactics)
--   robot    cylinder r 0.3, 30 kg, starts at (1, 6); goal: within 0.6 of (15, 6), slower than 0.3
local tp = require "tp"

local W, H, T, WH = 16.0, 12.0, 0.2, 1.0
local GOAL = {15.0, 6.0}
local wall_color = {0.5, 0.45, 0.4, 1}

local function box(name, x0, y0, x1, y1, color)
  return tp.box { name = name, class = "static", size = {x1 - x0, y1 - y0, WH},
                  pos = {(x0 + x1) / 2, (y0 + y1) / 2, WH / 2}, material = "wall", color = color or wall_color }
end

local bodies = {
  tp.plane { name = "ground", normal = {0, 0, 1}, offset = 0, material = "ground", color = {0.35, 0.6, 0.3, 1} },
  box("wall_s", -T, -T, W + T, 0), box("wall_n", -T, H, W + T, H + T),
  box("wall_w", -T, 0, 0, H), box("wall_e", W, 0, W + T, H),
  box("kiosk_1", 4, 2, 5, 3.5, {0.8, 0.6, 0.2, 1}), box("kiosk_2", 7.5, 7, 8.5, 9, {0.8, 0.6, 0.2, 1}),
  box("kiosk_3", 11, 2.5, 12, 4, {0.8, 0.6, 0.2, 1}), box("kiosk_4", 11.5, 8, 12.5, 9.5, {0.8, 0.6, 0.2, 1}),
  tp.cylinder { name = "robot", class = "active", radius = 0.3, length = 0.6, mass = 30, pos = {1, 6, 0.3},
                max_force = 200, max_torque = 20, planar = true, material = "agent", color = {0.2, 0.3, 0.8, 1} },
}
-- walkers: start -> goal pairs crossing the robot's way
local walks = {
  {{3, 1}, {13, 11}}, {{13, 1}, {3, 11}}, {{6, 11}, {6, 1}}, {{10, 1}, {10, 11}},
  {{15, 10}, {2, 2}}, {{14, 3}, {2, 10}}, {{8, 1}, {14, 11}}, {{9, 11}, {3, 1}},
}
local tactics = {}
for k, w in ipairs(walks) do
  local name = "walker_" .. k
  bodies[#bodies + 1] = tp.cylinder { name = name, class = "foreign", radius = 0.25, length = 0.8, mass = 60,
                                      pos = {w[1][1], w[1][2], 0.4}, max_force = 300, max_torque = 30, planar = true,
                                      material = "agent", color = {0.8, 0.3, 0.3, 1} }
  tactics[#tactics + 1] = tp.tactic {
    name = name, body = name, foreign = true, start = "walk",
    skills = { tp.skill.follow_field { name = "walk", point = w[2], max_speed = 1.2, nav_cell = 0.25,
                                       tolerance = 0.3, timeout = 60 } },
    transitions = { walk = { walk = 1 } },
  }
end
tactics[#tactics + 1] = tp.tactic {
  name = "robot", body = "robot", start = "go",
  skills = {
    tp.skill.follow_field { name = "go", point = tp.uniform({1, 1}, {W - 1, H - 1}), max_speed = 1.5,
                            nav_cell = 0.25, tolerance = 0.3, timeout = 8 },
    tp.skill.follow_field { name = "finish", point = GOAL, max_speed = 1.5, nav_cell = 0.25, tolerance = 0.3,
                            timeout = 15 },
    tp.skill.wait { name = "wait", body = "robot", duration = tp.uniform(0.5, 2) },
  },
  transitions = {
    go = { go = 0.4, finish = 0.4, wait = 0.2 },
    finish = { go = 0.5, finish = 0.3, wait = 0.2 },
    wait = { go = 0.5, finish = 0.5 },
  },
}

return tp.domain {
  name = "crowd",
  description = "a robot crosses a park among pedestrians driven by harmonic potential fields (Dapper 2007)",
  dt = 1 / 30,
  gravity = {0, 0, -9.81},
  materials = {
    tp.material { name = "ground", friction = 0.3 },
    tp.material { name = "wall", friction = 0.3, restitution = 0.1 },
    tp.material { name = "agent", friction = 0.1 },
  },
  bodies = bodies,
  tactics = tactics,
  goal = tp.all { tp.within { body = "robot", center = GOAL, radius = 0.6 }, tp.slower { body = "robot", speed = 0.3 } },
  sampling = { tp.uniform({0, 0}, {W, H}), body = "robot" },
  quality = tp.distance { body = "robot", to = GOAL, planar = true },
  solution_metric = "steps",
  planner = { algorithm = "bgt", mu = 1000, max_iters = 20000 },
}
