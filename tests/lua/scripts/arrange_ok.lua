-- Three sliding boxes form an "I" pattern: tp.pattern, the steer skill, tp.arranged as goal,
-- quality and report, tp.peak_force, the sap broad phase, a compact (planar) action slot
-- (tests/lua/test_arrange.c).
local tp = require "tp"
local cells = tp.pattern { text = "I", count = 3, pitch = 0.3 }
local bodies = { tp.plane { name = "floor" } }
local names, points, tactics = {}, {}, {}
for i = 1, 3 do
  local n = "d" .. i
  names[i], points[i] = n, { cells[i][1], cells[i][2], 0.05 }
  bodies[#bodies + 1] = tp.box { name = n, class = "active", size = { 0.1, 0.1, 0.1 }, mass = 0.1,
                                 pos = { cells[i][1] + 0.1, cells[i][2], 0.05 }, max_force = 0.3,
                                 planar = i == 1 }
  tactics[i] = tp.tactic { name = n, body = n, skills = {
    tp.skill.steer { name = "slide", point = { cells[i][1], cells[i][2] }, force = tp.uniform(0.15, 0.2),
                     duration = 0.5, max_z = 1, kp = 1.5, kv = 8, max_speed = 0.5, tolerance = 0.01 } } }
end
local on = tp.arranged { bodies = names, points = points, radius = 0.03, speed = 0.05 }
return tp.domain {
  name = "arrange", space = tp.param("space", "sap"), solver = "quickstep",
  materials = { tp.material { name = "slick", friction = 0.1 } },
  bodies = bodies, tactics = tactics, goal = on, quality = on, solution_metric = tp.peak_force(),
  report = { { "on_target", on }, { "peak", tp.peak_force { bodies = { "d1" } } }, { "steps", "steps" } },
  planner = { max_iters = 2000 },
}
