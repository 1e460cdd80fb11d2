-- Soccer (Zickler & Veloso 2009, Sec. 6.2, Figs. 7 and 8): one attacking situation. Our robot
-- must score against two defenders and a goalie without ever touching them. Metres, kilograms,
-- seconds, z up; the goal we attack is at x = +L.
--
--   field    plane z = 0, x in [-L, L], y in [-W, W] (L = 2.5, W = 1.6), walls 0.1 high around it
--   goal     mouth |y| < 0.35 on the line x = L, 0.18 deep, 0.2 high (net: back, side walls and roof)
--   robot    box 0.18 x 0.18 x 0.15, 2.5 kg, starts top right of the ball at (0.3, 1.2);
--            planar force <= 20 N, yaw torque <= 2 N m (active: driven by the planner)
--   ball     sphere r 0.0215, 0.046 kg at (-0.2, 0.5), rolls on the carpet (rolling friction).
--            It is declared "active" with max_force 20 only because the robot's chip kicker
--            (tp.skill.chip) applies its impulse to it as a force; no tactic drives the ball.
--   defenders and goalie: foreign boxes like the robot, same 20 N / 2 N m limits and the same
--            1.5 m/s cruise speed, each driven by a deterministic foreign tactic (tp.skill.guard):
--              defender_n  stays 1.2 m out on the line from (L, 0.1) to the ball
--              defender_s  stays 0.7 m out on the line from (L, -0.1) to the ball
--                          (together they block the ball-goal line, one far and one near;
--                          --set defense=mark makes defender_n mark the ball instead, see below)
--              goalie      stays 0.22 m out on the line from the goal centre to the ball, i.e. it
--                          tracks the ball along (an arc around) the goal line
--            The planner predicts them exactly: their tactics are part of Sim.
--
-- The robot's tactic (Fig. 7): go to the ball, dribble it to a sampled spot, minikick (drive into
-- the ball) or minichip (the chip kicker lifts it, tp.skill.chip) to a sampled spot near it, shoot
-- it with the flat kicker (a chip with loft 0) at a sampled speed toward a sampled point in the
-- goal, or lob it: the chip kicker at loft 0.4-0.9 rad toward a landing spot 0.1-0.5 m in front of
-- the goal line (|y| <= 0.25), so that it flies over the defenders (0.15 m high) and comes down
-- under the 0.2 m crossbar, directly or after a bounce. The dribble, minikick and minichip spots
-- are sampled in the ball's frame turned toward the goal centre (`toward`): "ahead" is toward the
-- goal, whatever the ball's position, so the ball is worked forward (dribble 0.3-1.4 m ahead, up to
-- 0.8 m aside; minikick -0.2-1.0 m ahead, up to 1 m aside; minichip 0.7-1.6 m ahead, over a marker
-- 0.5 m in front of the ball, up to 0.6 m aside).
-- A minichip at loft 0.5-0.9 toward a spot 0.7-1.6 m ahead clears a 0.15 m robot standing 0.5 m in
-- front of the ball for about 80 % of the samples (the short, flat ones hit it: ballistic height).
-- Goal: the ball is inside the goal (behind the goal line, between the posts, below the crossbar).
-- Valid (X_valid): the robot never touches an adversary, and stays on the field.
-- Try: tplan plan soccer --planner rrt --seed 3
--
-- With honest physics (the substeps and the swept pass, below) the defenders really block flat shots: without the lob
-- (--set lob=0) BK-RRT solves the zone defence for 10 of 20 seeds (median 7.3 s), BK-BGT for 0 of
-- 10. With the lob nearly every solution is "go to the ball, lob" (see docs/domains.md for the
-- figures of tplan bench --domains soccer --seeds 20 [--set defense=mark]).
local tp = require "tp"

local L, W = 2.5, 1.6                 -- half length / half width of the field (m)
local GOAL_W, GOAL_D, GOAL_H = 0.35, 0.18, 0.2  -- goal half width, depth, height (m)
local WALL_H, WALL_T = 0.1, 0.05
local ROBOT = {0.18, 0.18, 0.15}
local MAX_F, MAX_T, CRUISE = 20, 2, 1.5   -- the same limits for our robot and the adversaries

-- --set defense=mark: defender_n marks the ball (stays 0.5 m in front of it, toward the goal
-- centre) instead of guarding its zone: a direct shot is blocked, and solutions lob or minichip
-- over the marker, or dribble toward the goal first and shoot past it. Before the lob those plans
-- were 4-33 s long (median 10-11 s), and BK-BGT keeps its average leaf depth near mu x branching
-- factor, in steps: at mu = 100 (the paper's soccer value) that is about 100 steps (1.7 s), so its
-- tree only ever branches at the root and at the end of the first go_to_ball and never chained a
-- dribble and a shot (0 of 20 seeds). The marking variant therefore plans with mu = 1000 (the
-- paper's value for its other domains); --mu overrides it. (With the lob, "go to the ball, lob" is
-- one skill after the first go_to_ball, and mu = 100 solves 19 of 20 seeds too: docs/domains.md.)
local defense = tp.param("defense", "zone")
if defense ~= "zone" and defense ~= "mark" then
  error("--set defense=" .. defense .. ": expected zone or mark")
end

local wall_color = {0.9, 0.9, 0.9, 1}
local foe_color = {0.8, 0.2, 0.2, 1}

local function wall(name, x, y, sx, sy, h)
  return tp.box { name = name, class = "static", size = {sx, sy, h or WALL_H}, pos = {x, y, (h or WALL_H) / 2},
                  material = "wall", color = wall_color }
end

-- an adversary: a foreign body like our robot, driven by its own tactic below
local function foe(name, x, y)
  return tp.box { name = name, class = "foreign", size = ROBOT, mass = 2.5, pos = {x, y, ROBOT[3] / 2},
                  max_force = MAX_F, max_torque = MAX_T, planar = true, material = "robot", color = foe_color }
end

-- a deterministic adversarial tactic: guard `point` against the ball from `dist` m out
local function guard_tactic(name, body, point, dist, mark)
  return tp.tactic { name = name, body = body, foreign = true,
    skills = { tp.skill.guard { name = "guard", target = "ball", point = point, approach = dist, mark = mark,
                                max_speed = CRUISE } },
  }
end

-- Physics substeps (`substeps` in docs/lua-api.md): 1 ODE step per 1/60 s planning step, and more
-- where a body moves fast: the physics adds substeps when a body would travel more than twice its
-- thickness in one (a 6 m/s shot gets 2), and its swept pass makes contacts along the ball's path,
-- so a shot into a defender's corner bounces off instead of slipping through (the conformance case
-- truth_cornerShot: 3-10 m/s into a 0.18 m box, none of 18 paths crosses it). The scene ran 4
-- substeps from the plan-hold audit until that held (docs/domains.md: before the swept pass, every solution of
-- seeds 1-10 at 1 substep went through a defender; the e2e tests check every plan for it).
-- --set substeps=N overrides.
local SUBSTEPS = tp.param("substeps", 1, { min = 1, max = 64, integer = true })
-- --set lob=W: the weight of the lob in the transitions (default 1; 0 = the tactic without it)
local LOB = tp.param("lob", 1, { min = 0, max = 100 })

local side_len = W - GOAL_W              -- length of the end wall on each side of the mouth

return tp.domain {
  name = "soccer",
  description = "score past two defenders and a goalie without touching them (paper Sec. 6.2, Figs. 7-8)",
  dt = 1 / 60,
  substeps = SUBSTEPS,

  materials = {
    tp.material { name = "carpet", friction = 0.4, restitution = 0.0 },
    tp.material { name = "wall", friction = 0.2, restitution = 0.5 },
    tp.material { name = "ball", friction = 0.4, restitution = 0.5, rolling_friction = 0.0015 },
    tp.material { name = "robot", friction = 0.05, restitution = 0.3 },
  },
  contacts = {
    tp.contact { "robot", "carpet", friction = 0.05 },   -- wheeled robots glide
  },

  bodies = {
    tp.plane { name = "field", material = "carpet", color = {0.15, 0.5, 0.2, 1} },
    wall("wall_north", 0, W + WALL_T / 2, 2 * L + 2 * WALL_T, WALL_T),
    wall("wall_south", 0, -W - WALL_T / 2, 2 * L + 2 * WALL_T, WALL_T),
    wall("wall_west", -L - WALL_T / 2, 0, WALL_T, 2 * W),
    -- the east end: walls beside the goal mouth, then the goal's net (back and sides)
    wall("end_north", L + WALL_T / 2, GOAL_W + side_len / 2, WALL_T, side_len),
    wall("end_south", L + WALL_T / 2, -GOAL_W - side_len / 2, WALL_T, side_len),
    wall("net_back", L + GOAL_D + WALL_T / 2, 0, WALL_T, 2 * GOAL_W + 2 * WALL_T, GOAL_H),
    wall("net_north", L + GOAL_D / 2, GOAL_W + WALL_T / 2, GOAL_D, WALL_T, GOAL_H),
    wall("net_south", L + GOAL_D / 2, -GOAL_W - WALL_T / 2, GOAL_D, WALL_T, GOAL_H),
    -- the roof of the net: a lob cannot drop into the goal from above the crossbar
    tp.box { name = "net_top", class = "static", size = {GOAL_D, 2 * GOAL_W + 2 * WALL_T, 0.02},
             pos = {L + GOAL_D / 2, 0, GOAL_H + 0.01}, material = "wall", color = wall_color },

    tp.box { name = "robot", class = "active", size = ROBOT, mass = 2.5, pos = {0.3, 1.2, ROBOT[3] / 2},
             max_force = MAX_F, max_torque = MAX_T, planar = true, material = "robot", color = {0.2, 0.3, 0.9, 1} },
    tp.sphere { name = "ball", class = "active", radius = 0.0215, mass = 0.046, pos = {-0.2, 0.5, 0.0215},
                max_force = 20, material = "ball", color = {1, 0.55, 0, 1} },
    foe("defender_n", 1.4, 0.3),
    foe("defender_s", 1.8, -0.2),
    foe("goalie", L - 0.25, 0),
  },

  tactics = {
    -- Fig. 7 for our robot
    tp.tactic {
      name = "attacker", body = "robot", start = "go_to_ball",
      skills = {
        tp.skill.drive_to { name = "go_to_ball", target = "ball", frame = "target",
                            point = tp.disc({0, 0}, 0.2, 0.45), max_speed = CRUISE },
        tp.skill.dribble { name = "dribble", target = "ball", frame = "target", toward = {L, 0},
                           point = tp.uniform({0.3, -0.8}, {1.4, 0.8}), speed = tp.uniform(0.3, 0.8), max_speed = 1.0 },
        tp.skill.kick { name = "minikick", target = "ball", frame = "target", toward = {L, 0},
                        point = tp.uniform({-0.2, -1.0}, {1.0, 1.0}), speed = tp.uniform(0.8, 2.0), max_speed = 2.5 },
        tp.skill.chip { name = "minichip", target = "ball", frame = "target", toward = {L, 0},
                        point = tp.uniform({0.7, -0.6}, {1.6, 0.6}), loft = tp.uniform(0.5, 0.9), approach = 0.1 },
        -- the lob: the chip kicker toward a landing spot just in front of the goal, so the ball flies
        -- over the defenders and bounces on under the crossbar. Not closer than 0.5 m: a lob aimed at
        -- 0.6-0.8 m comes down on defender_s (0.7 m out); before the plan-hold audit the chip launched 2.9 % faster
        -- than asked and cleared it (from the start, random lobs score 42 % with 0.1-0.5 m, 29 % with
        -- 0.1-0.8 m)
        tp.skill.chip { name = "lob", target = "ball", point = tp.uniform({L - 0.5, -0.25}, {L - 0.1, 0.25}),
                        loft = tp.uniform(0.4, 0.9), approach = 0.1, follow = true, trigger_speed = 0.05 },
        -- the shot: the robot's flat kicker (a chip with loft 0) toward a sampled point in the goal
        tp.skill.chip { name = "kick", target = "ball", point = tp.uniform({L, -GOAL_W + 0.05}, {L, GOAL_W - 0.05}),
                        loft = 0, speed = tp.uniform(3.0, 6.0), approach = 0.1,
                        follow = true, trigger_speed = 0.05 },   -- the shot rolls out as one segment
      },
      transitions = {
        go_to_ball = { dribble = 1, minikick = 0.5, minichip = 0.5, kick = 1, lob = LOB },
        dribble = { kick = 1, minikick = 0.5, minichip = 0.5, go_to_ball = 0.5, lob = LOB },
        minikick = { go_to_ball = 1 },
        minichip = { go_to_ball = 1 },
        kick = { go_to_ball = 1 },
        lob = { go_to_ball = 1 },
      },
    },
    -- the adversaries' deterministic tactics
    defense == "zone" and guard_tactic("defend_n", "defender_n", {L, 0.1}, 1.2)
                      or guard_tactic("defend_n", "defender_n", {L, 0}, 0.5, true),
    guard_tactic("defend_s", "defender_s", {L, -0.1}, 0.7),
    guard_tactic("keep", "goalie", {L, 0}, 0.22),
  },

  -- the ball is in the goal: behind the goal line, between the posts, under the crossbar
  goal = tp.inside { body = "ball", min = {L + 0.0215, -GOAL_W, -math.huge}, max = {L + GOAL_D, GOAL_W, GOAL_H} },
  valid = tp.all {
    tp.negate(tp.any {
      tp.touching { body = "robot", other = "defender_n" },
      tp.touching { body = "robot", other = "defender_s" },
      tp.touching { body = "robot", other = "goalie" },
    }),
    tp.inside { body = "robot", min = {-L, -W}, max = {L, W} },
  },

  -- BK-RRT: samples y over the field, distance = minimal-time estimate for the robot
  sampling = { tp.uniform({-L, -W}, {L, W}), distance = "min_time", body = "robot" },
  quality = tp.distance { body = "ball", to = {L + GOAL_D / 2, 0}, planar = true },
  solution_metric = "steps",
  -- mu = 100 as in the paper; the marking variant needs BK-BGT to look further ahead (see the top)
  -- from behind our half toward the goal we attack (+x): the defenders between the ball and it
  view = { yaw = 180, pitch = 40 },
  planner = { algorithm = "bgt", mu = defense == "mark" and 1000 or 100, max_iters = 150000 },
}
