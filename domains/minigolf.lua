-- Minigolf (Zickler & Veloso 2009, Sec. 6.1, Figs. 5 and 6): a robot must kick a ball past a
-- rotating bar into the hole. The reference course of tplan: metres, kilograms, seconds, z up.
--
--   green    plane z = 0, x in [-2, 2], y in [-0.75, 0.75], static walls 0.1 high, 0.05 thick
--   robot    box 0.18 x 0.18 x 0.12, 2.5 kg, starts at (-1.7, 0, 0.06); planar force <= 20 N,
--            yaw torque <= 2 N m; must stay in the tee zone x <= -0.6
--   ball     sphere r 0.0215, 0.046 kg, starts at (-1.2, 0.2, 0.0215); passive, rolling friction
--   divider  static walls across x = 0 for y in [-0.75, -0.55] and [0.55, 0.75]
--   bar      box 1.0 x 0.06 x 0.1 at (0, 0, 0.05), rotating about z at 0.6 rad/s (foreign)
--   hole     centre (1.6, -0.45), radius 0.054; goal: ball centre inside, ball speed < 1 m/s
--            (drawn as a marker: a static body that never collides)
local tp = require "tp"

local HOLE = {1.6, -0.45}
local HOLE_R = 0.054
local TEE_X = -0.6          -- the robot must stay at x <= TEE_X
local L, W = 2.0, 0.75      -- half length and half width of the green
local WALL_H, WALL_T = 0.1, 0.05

local wall_color = {0.45, 0.3, 0.2, 1}

return tp.domain {
  name = "minigolf",
  description = "kick a ball past a rotating bar into the hole (paper Sec. 6.1, Figs. 5-6)",
  dt = 1 / 60,
  gravity = {0, 0, -9.81},

  materials = {
    tp.material { name = "green", friction = 0.3, restitution = 0.0 },
    tp.material { name = "wall", friction = 0.2, restitution = 0.6 },
    tp.material { name = "ball", friction = 0.3, restitution = 0.5, rolling_friction = 0.0015 },
    tp.material { name = "robot", friction = 0.05, restitution = 0.5 },
  },
  contacts = {
    -- the robot glides on the green (it stands for a wheeled robot), the ball rolls on it
    tp.contact { "robot", "green", friction = 0.05 },
    tp.contact { "ball", "wall", restitution = 0.7, friction = 0.1 },
  },

  bodies = {
    tp.plane { name = "green", normal = {0, 0, 1}, offset = 0, material = "green", color = {0.2, 0.55, 0.25, 1} },
    tp.box { name = "wall_north", class = "static", size = {2 * L + 2 * WALL_T, WALL_T, WALL_H},
             pos = {0, W + WALL_T / 2, WALL_H / 2}, material = "wall", color = wall_color },
    tp.box { name = "wall_south", class = "static", size = {2 * L + 2 * WALL_T, WALL_T, WALL_H},
             pos = {0, -W - WALL_T / 2, WALL_H / 2}, material = "wall", color = wall_color },
    tp.box { name = "wall_west", class = "static", size = {WALL_T, 2 * W, WALL_H},
             pos = {-L - WALL_T / 2, 0, WALL_H / 2}, material = "wall", color = wall_color },
    tp.box { name = "wall_east", class = "static", size = {WALL_T, 2 * W, WALL_H},
             pos = {L + WALL_T / 2, 0, WALL_H / 2}, material = "wall", color = wall_color },
    tp.box { name = "divider_south", class = "static", size = {WALL_T, 0.2, WALL_H},
             pos = {0, -0.65, WALL_H / 2}, material = "wall", color = wall_color },
    tp.box { name = "divider_north", class = "static", size = {WALL_T, 0.2, WALL_H},
             pos = {0, 0.65, WALL_H / 2}, material = "wall", color = wall_color },
    tp.box { name = "bar", class = "foreign", size = {1.0, 0.06, 0.1}, pos = {0, 0, 0.05},
             motion = tp.rotate { rate = 0.6, axis = {0, 0, 1} }, material = "wall", color = {0.8, 0.2, 0.2, 1} },
    -- the hole: drawn on the green (a marker never collides; the goal below is what counts)
    tp.cylinder { name = "hole", class = "static", marker = true, radius = HOLE_R, length = 0.002,
                  pos = {HOLE[1], HOLE[2], 0.001}, color = {0.05, 0.05, 0.05, 1} },
    tp.box { name = "robot", class = "active", size = {0.18, 0.18, 0.12}, mass = 2.5, pos = {-1.7, 0, 0.06},
             max_force = 20, max_torque = 2, planar = true, material = "robot", color = {0.15, 0.15, 0.2, 1} },
    tp.sphere { name = "ball", class = "passive", radius = 0.0215, mass = 0.046, pos = {-1.2, 0.2, 0.0215},
                material = "ball", color = {1, 1, 1, 1} },
  },

  tactics = {
    -- Fig. 5: wait a sampled time -> drive to a sampled spot near the ball -> kick it toward a
    -- sampled target. Waiting matters because the bar moves: the wait spans a whole half turn
    -- of the bar (pi / 0.6 = 5.2 s), so every phase of it can be tried.
    --
    -- Beyond Fig. 5, one skill a golfer would use: `place` rolls the ball to a sampled spot in
    -- the lower half of the tee zone. From there the line to the hole crosses the bar's circle
    -- near its rim, where the bar blocks it for a short time of each half turn; from the tee
    -- spot the line passes 8 cm from the bar's pivot and is blocked almost always.
    tp.tactic {
      name = "golfer", body = "robot", start = "wait",
      skills = {
        -- (watching the ball: the wait also lasts until the ball rests)
        tp.skill.wait { name = "wait", body = "robot", duration = tp.uniform(0, 5.3), target = "ball",
                        trigger_speed = 0.02 },
        tp.skill.drive_to { name = "position", body = "robot", target = "ball", frame = "target",
                            point = tp.disc({0, 0}, 0.2, 0.4), max_speed = 1.2 },
        -- the shot: aimed within 4 cm of the hole's centre, arriving slower than the goal's 1 m/s
        -- (the skill turns an arrival speed into a strike with a sliding-then-rolling ball model)
        tp.skill.kick { name = "kick", body = "robot", target = "ball",
                        point = tp.disc(HOLE, 0, 0.04), arrive_speed = tp.uniform(0, 0.9),
                        max_speed = 2.5,
                        -- follow-through: stay busy until the kicked ball rests, so the roll is one
                        -- deterministic segment (no branching while it rolls; a dead end ends in a
                        -- busy, never-selected node)
                        follow = true, trigger_speed = 0.02 },
        tp.skill.kick { name = "place", body = "robot", target = "ball",
                        point = tp.uniform({-1.5, -0.55}, {-0.9, -0.25}), arrive_speed = 0,
                        max_speed = 2.5, follow = true, trigger_speed = 0.02 },
      },
      transitions = {
        -- Fig. 5's chain, with shortcuts so every decision point can also re-time the shot
        -- against the bar: a wait may go straight to the kick, a position may wait again
        wait = { position = 0.2, kick = 0.5, place = 0.3 },
        position = { kick = 0.7, wait = 0.3 },
        kick = { wait = 1 },
        place = { wait = 1 },
      },
    },
  },

  goal = tp.all {
    tp.within { body = "ball", center = HOLE, radius = HOLE_R },
    tp.slower { body = "ball", speed = 1.0 },
  },
  valid = tp.all {
    -- the paper's constraint: the robot stays in the tee zone
    tp.inside { body = "robot", max = {TEE_X, math.huge, math.huge} },
    -- pruning dead ends: a ball at rest beyond the tee zone (and not in the hole) can never be
    -- played again, so such states cannot lead to the goal
    tp.negate(tp.all {
      tp.slower { body = "ball", speed = 0.02 },
      tp.inside { body = "ball", min = {TEE_X, -math.huge, -math.huge} },
      tp.negate(tp.within { body = "ball", center = HOLE, radius = HOLE_R }),
    }),
  },

  -- BK-RRT: samples y over the tee zone, distance = minimal-time estimate for the robot
  sampling = { tp.uniform({-L, -W}, {TEE_X, W}), distance = "min_time", body = "robot" },
  quality = tp.distance { body = "ball", to = HOLE, planar = true },
  solution_metric = "steps",
  -- from behind the tee: the bar sweeping across the line to the hole
  view = { yaw = -115, pitch = 65 },
  planner = { algorithm = "bgt", mu = 1000, max_iters = 50000 },
}
