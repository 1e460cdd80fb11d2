-- Platforms (Lopez, Lamarche & Li 2011, Fig. 6f "disconnected environment"): a start pad
-- and a goal pad over a pit, never connected by a static path; two moving platforms (tp.waypoints
-- with pauses) come near the pads and each other in every period, but never closer than 0.4 m:
-- every face is 0.4 m from the next at best, as wide as the character, so it cannot walk across
-- and hops (the `ride` skill with `jump`: one step of take-off force within the paper's 2 m/s
-- vertical and horizontal impulse speeds, a ballistic flight, landing within 3 m/s). The skill
-- learns the relations by watching (nothing is told about the motion), and the tactics planner
-- chooses the margins and the spot on the goal pad.
--
--   pit      plane z = -1
--   start    static box x in [-3, 0], y in [-1.5, 1.5], top z = 0
--   a        foreign 1.2 x 1.2 x 0.1 box, top 0, x in [0.4, 1.6] -> [3.4, 4.6] at 1 m/s, 2 s pauses
--            (period 10 s): 0.4 m from the start pad at its near end
--   b        foreign 1.2 x 1.2 x 0.1 box, top 0, x in [5, 6.2], slides y 3 -> 0 -> 3 at 1 m/s, 2 s
--            pauses: at y = 0 (0.4 m from a) while a is at its far end (t in [5, 7] mod 10), at y = 3
--            0.4 m from the goal pad
--   goal     static box x in [4.1, 7.1], y in [4, 7], top z = 0
--   robot    box 0.4 m, 2 kg, force <= 450 N (walking <= 20 N), starts at (-1.5, 0) (rider.jumper)
--   goal     robot on the goal pad (centre y >= 4.3, z in [0.15, 0.3]), slower than 0.3 m/s
local tp = require "tp"
local rider = require "rider" -- domains/lib/rider.lua: materials, robot, tactic

local function pad(name, x0, y0, x1, y1)
  return tp.box { name = name, class = "static", size = {x1 - x0, y1 - y0, 1}, pos = {(x0 + x1) / 2, (y0 + y1) / 2, -0.5},
                  material = "ground", color = {0.8, 0.78, 0.7, 1} }
end

local function platform(name, pos, points)
  return tp.box { name = name, class = "foreign", size = {1.2, 1.2, 0.1}, pos = pos, material = "ground",
                  color = {0.9, 0.6, 0.2, 1},
                  motion = tp.waypoints { points = points, speed = 1, pause = 2, loop = "pingpong" } }
end

return tp.domain {
  name = "platforms",
  description = "hop across a pit on two moving platforms that never touch the pads or each other (ride: Lopez 2011)",
  dt = 1 / 60,
  substeps = 4, -- a hop lands at ~2 m/s: 3.3 cm per 1/60 s step, sinking up to 2 cm into a face with one substep
  gravity = {0, 0, -9.81},
  materials = rider.materials(),
  bodies = {
    rider.pit(),
    pad("start", -3, -1.5, 0, 1.5),
    pad("goal", 4.1, 4, 7.1, 7),
    platform("a", {1, 0, -0.05}, {{0, 0, 0}, {3, 0, 0}}),
    platform("b", {5.6, 3, -0.05}, {{0, 0, 0}, {0, -3, 0}}),
    rider.jumper(-1.5, 0),
  },
  tactics = { rider.tactic(tp.uniform({4.6, 4.6, 0}, {6.6, 6.6, 0}), tp.uniform(0, 0.5), true) },
  goal = tp.all {
    tp.inside { body = "robot", min = {4.3, 4.3, 0.15}, max = {6.9, 6.9, 0.3} },
    tp.slower { body = "robot", speed = 0.3 },
  },
  -- mu 3000, not the paper's 1000: plans here are 1,700-2,100 steps deep, and with 1000 the tree
  -- keeps branching at random inner nodes (docs/navigation.md), starving the leaves that crossed
  planner = { algorithm = "bgt", mu = 3000, max_iters = 20000 },
}
