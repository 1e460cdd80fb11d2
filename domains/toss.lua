-- The toss: six props on a table are tossed one after another into a bowl on the
-- floor, with throws only: each prop's tactic waits its turn (no force), then one release step
-- (tp.skill.throw, aimed at a sampled point of the bowl after a sampled flight time, with a sampled
-- spin) and then nothing: every flight, bounce and settle after the release is pure physics.
-- The plan's control report (`control` in the summary) shows one step of force per prop.
-- Metres, kilograms, seconds, z up.
--
--   floor    a plane, z = 0
--   table    a static box, top at z = 0.7, centred 1.3 m from the bowl (-x side)
--   bowl     static boxes: a base 0.5 x 0.5 m, 4 cm thick, and four walls `wall_h` m high around it
--            (inner 0.44 x 0.44 m)
--   props    a ball, a crate, a can (cylinder), a capsule, a small box and a puck, 4-9 cm, 0.1-0.3 kg,
--            resting on the table
--   throws   prop k waits k x `gap` s, then is thrown at a point uniform within `spread` m of the
--            bowl's centre, 12 cm over its base, after a flight of 0.6-0.9 s, spinning up to 4 rad/s
--   goal     every prop inside the bowl (its centre within the inner walls, below their top) and
--            everything at rest (5 cm/s, 0.5 rad/s)
--   planner  BK-BGT; the approximate answer is the node with the most props in the bowl
--
-- tplan plan toss                      six props (the figure: 10 seeds, docs/blender.md)
-- tplan plan toss --set count=2        two props (the e2e test's small toss)
-- tplan plan toss --set nudge=true     and a nudge at each prop's landing (at most 1/4 of its impulse)
local tp = require "tp"

local COUNT = tp.param("count", 6, { min = 1, max = 6, integer = true }) -- props tossed
local GAP = tp.param("gap", 0.6, { min = 0, max = 10 })                   -- s between two throws
local SPREAD = tp.param("spread", 0.1, { min = 0, max = 0.2 })           -- m, aim radius about the centre
local NUDGE = tp.param("nudge", false)                                   -- a nudge at each prop's first hit
local WALL_H = tp.param("wall_h", 0.25, { min = 0.05, max = 1 })         -- m, bowl walls over the floor

local BX, BY = 0.0, 0.0            -- bowl centre (m)
local HALF, T, BASE = 0.25, 0.03, 0.04 -- bowl half width, wall thickness, base thickness (m)
local TX, TOP = -1.3, 0.7          -- table centre x, table top z (m)

local bodies = {
  tp.plane { name = "floor", material = "floor" },
  tp.box { name = "table", class = "static", size = { 0.6, 1.0, TOP }, pos = { TX, 0, TOP / 2 }, material = "wood" },
  tp.box { name = "bowl_base", class = "static", size = { 2 * HALF, 2 * HALF, BASE }, pos = { BX, BY, BASE / 2 }, material = "wood" },
  tp.box { name = "bowl_n", class = "static", size = { 2 * HALF, T, WALL_H }, pos = { BX, BY + HALF - T / 2, WALL_H / 2 }, material = "wood" },
  tp.box { name = "bowl_s", class = "static", size = { 2 * HALF, T, WALL_H }, pos = { BX, BY - HALF + T / 2, WALL_H / 2 }, material = "wood" },
  tp.box { name = "bowl_e", class = "static", size = { T, 2 * HALF - 2 * T, WALL_H }, pos = { BX + HALF - T / 2, BY, WALL_H / 2 }, material = "wood" },
  tp.box { name = "bowl_w", class = "static", size = { T, 2 * HALF - 2 * T, WALL_H }, pos = { BX - HALF + T / 2, BY, WALL_H / 2 }, material = "wood" },
}

-- The props, resting on the table (z of their centre = TOP + half height).
local PROPS = {
  function(n, y) return tp.sphere { name = n, class = "active", radius = 0.04, mass = 0.15, pos = { TX, y, TOP + 0.04 }, material = "rubber" } end,
  function(n, y) return tp.box { name = n, class = "active", size = { 0.09, 0.09, 0.09 }, mass = 0.3, pos = { TX, y, TOP + 0.045 }, material = "wood" } end,
  function(n, y) return tp.cylinder { name = n, class = "active", radius = 0.035, length = 0.09, mass = 0.2, pos = { TX, y, TOP + 0.045 }, material = "metal" } end,
  function(n, y) return tp.capsule { name = n, class = "active", radius = 0.025, length = 0.06, mass = 0.1, pos = { TX, y, TOP + 0.055 }, material = "plastic" } end,
  function(n, y) return tp.box { name = n, class = "active", size = { 0.08, 0.05, 0.04 }, mass = 0.12, pos = { TX, y, TOP + 0.02 }, material = "wood" } end,
  function(n, y) return tp.cylinder { name = n, class = "active", radius = 0.045, length = 0.03, mass = 0.15, pos = { TX, y, TOP + 0.015 }, material = "plastic" } end,
}
local NAMES = { "ball", "crate", "can", "capsule", "block", "puck" }

local moving, tactics = {}, {}
local goal_parts, valid_parts = {}, {}
local IN_LO = { BX - HALF + T, BY - HALF + T, BASE - 0.01 }
local IN_HI = { BX + HALF - T, BY + HALF - T, WALL_H }
local AIM_Z = BASE + 0.12
-- the shot's longest length: a branch still short of the goal 6 s after the last throw lands is
-- dropped (the search then spends its time on other throws, not on a world that never settles)
local MAX_T = (COUNT - 1) * GAP + 1.2 + 6
for k = 1, COUNT do
  local name = NAMES[k]
  local y = -0.375 + (k - 1) * 0.15
  bodies[#bodies + 1] = PROPS[k](name, y)
  moving[#moving + 1] = name
  local throw = tp.skill.throw {
    name = "throw", body = name,
    point = tp.uniform({ BX - SPREAD, BY - SPREAD, AIM_Z }, { BX + SPREAD, BY + SPREAD, AIM_Z }),
    flight_time = tp.uniform(0.9, 1.2),
    angular_velocity = tp.uniform({ -4, -4, -4 }, { 4, 4, 4 }),
    -- the segment runs on (no force) until everything rests: the throw is the decision, so two
    -- solutions (--solutions 2) are two throws, never one world found twice
    follow = not NUDGE, timeout = MAX_T,
  }
  local skills = {
    tp.skill.wait { name = "turn", body = name, duration = (k - 1) * GAP },
    throw,
    -- one segment to the shot's end: no decision point after the throw, so BK-BGT branches at the
    -- throws (with a decision at every step of a resting prop it grew the deepest rests instead:
    -- 65,288 iterations on seed 7, 608 at most now)
    tp.skill.wait { name = "rest", body = name, target = name, duration = MAX_T, timeout = MAX_T },
    -- with nudge: at the prop's first hit (its landing), one step turns its velocity by up to 5
    -- degrees, the impulse at most a quarter of the hit's (Many-Worlds Browsing's perturbations)
    tp.skill.nudge { name = "nudge", body = name, budget = 0.25, deflection = math.rad(5), timeout = MAX_T },
  }
  tactics[#tactics + 1] = tp.tactic {
    name = name, body = name, start = "turn", skills = skills,
    transitions = { turn = { throw = 1 }, throw = NUDGE and { nudge = 1 } or { rest = 1 }, nudge = { rest = 1 },
                    rest = { rest = 1 } },
  }
  goal_parts[#goal_parts + 1] = tp.inside { body = name, min = IN_LO, max = IN_HI }
  -- a prop low beside the bowl (below its walls' top, outside its footprint) or on the floor
  -- missed: the branch is pruned there
  valid_parts[#valid_parts + 1] = tp.any {
    tp.inside { body = name, min = { -math.huge, -math.huge, WALL_H + 0.02 } },
    tp.inside { body = name, min = { BX - HALF, BY - HALF, BASE }, max = { BX + HALF, BY + HALF, math.huge } },
  }
end
goal_parts[#goal_parts + 1] = tp.settled { bodies = moving, speed = 0.05, angular = 0.5 }
goal_parts[#goal_parts + 1] = function(s) return s.t >= (COUNT - 1) * GAP + 0.6 end
valid_parts[#valid_parts + 1] = function(s) return s.t <= MAX_T end

-- The approximate answer: the most props in the bowl (each prop's distance outside the inner box).
local function quality(s)
  local d = 0
  for _, n in ipairs(moving) do
    local p = { s:pos(n) }
    for i = 1, 3 do d = d + math.max(0, IN_LO[i] - p[i], p[i] - IN_HI[i]) end
  end
  return d
end

return tp.domain {
  name = "toss",
  fallback = "rest", -- an animation shot: an approximate plan ends at rest and landed (docs/lua-api.md#fallbacks)
  description = "six props tossed one after another into a bowl with throws only, pure physics after each release",
  dt = 1 / 60, substeps = 4,
  materials = {
    tp.material { name = "floor", friction = 0.6, restitution = 0.1, rolling_friction = 0.004 },
    tp.material { name = "wood", friction = 0.6, restitution = 0.2, rolling_friction = 0.004 },
    tp.material { name = "metal", friction = 0.3, restitution = 0.1, rolling_friction = 0.004 },
    tp.material { name = "plastic", friction = 0.4, restitution = 0.3, rolling_friction = 0.004 },
    tp.material { name = "rubber", friction = 0.9, restitution = 0.35, rolling_friction = 0.004 },
  },
  bodies = bodies,
  tactics = tactics,
  goal = tp.all(goal_parts),
  valid = tp.all(valid_parts),
  quality = quality,
  planner = { algorithm = "bgt", mu = 1000, max_iters = 200000, time_limit = 60, solutions = 1, seed = 1 },
}
