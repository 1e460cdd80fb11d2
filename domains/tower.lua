-- A 5-block tower: five wooden cubes lie on the floor in a ring around the tower's
-- spot; one after another each is thrown (tp.skill.throw: one release step, then no force at all)
-- onto the top of the tower so far, and the five must end stacked into a tower that stands at rest.
-- Metres, kilograms, seconds, z up.
--
--   floor    a plane, z = 0
--   blocks   five 0.1 m cubes of 0.4 kg (wood: friction 0.6, restitution 0.05) at rest on the floor,
--            0.3 m from the tower's spot (the origin), one every 72 degrees
--   throws   block k waits (k - 1) x `gap` s, then is thrown without spin so that its centre reaches
--            a point within `aim` m (xy) of the tower's axis, 0-2 cm above where it rests on level
--            k - 1 (block k - 1's top), after a flight of 0.35-0.7 s; it lands flat (no spin, so
--            it keeps the orientation it had on the floor) and the impact's friction takes its
--            horizontal speed (0.4-0.9 m/s): the longer the flight the harder it lands, the
--            shorter the more it slides. A landing that knocks the tower or slides off is pruned
--            (below)
--   goal     block k's centre within 3.5 cm (xy) of the axis and within 1 cm of level k's height
--            (z = 0.05 + 0.1 (k - 1)), every block at rest (2 cm/s, 0.2 rad/s)
--   valid    a block below its own level near the axis (fell off, or the tower was knocked over)
--            is a dead end: the search goes back to the throws
--   planner  BK-BGT (mu 1000); the approximate answer is the node closest to the stacked tower
--
-- The stack runs on the exact LCP solver ("step"): five cubes are small islands, and the tower
-- holds at rest within the default 5 mm penetration limits (docs/physics.md "a tall vertical
-- stack"). Nothing is loosened for the domain.
--
-- tplan plan tower                       five blocks (the figure: 10 seeds, docs/domains.md)
-- tplan plan tower --set count=3         three (the e2e test's small tower)
local tp = require "tp"

local COUNT = tp.param("count", 5, { min = 1, max = 5, integer = true }) -- blocks in the tower
local GAP = tp.param("gap", 1.0, { min = 0.2, max = 10 })                -- s between two throws
local AIM = tp.param("aim", 0.01, { min = 0, max = 0.05 })               -- m, aim radius about the axis

local S = 0.1         -- cube edge (m)
local RING = 0.3      -- m, start distance from the tower's axis
local XY_TOL = 0.035  -- m, a block's centre off the axis still counted as stacked
local Z_TOL = 0.01    -- m, off its level's height

local function level_z(k) return S / 2 + S * (k - 1) end

local bodies = { tp.plane { name = "floor", material = "floor" } }
local tactics, names = {}, {}
local goal_parts, valid_parts = {}, {}
-- the tower's length: a branch still short of the goal 3 s after the last block's longest flight
-- is dropped (the search then tries other throws)
local MAX_T = (COUNT - 1) * GAP + 0.7 + 3
for k = 1, COUNT do
  local name = "block" .. k
  local a = 2 * math.pi * (k - 1) / 5
  bodies[#bodies + 1] = tp.box {
    name = name, class = "active", size = { S, S, S }, mass = 0.4, material = "wood",
    pos = { RING * math.cos(a), RING * math.sin(a), S / 2 }, yaw = a,
    color = { 0.55 + 0.08 * k, 0.35 + 0.05 * k, 0.2, 1 },
  }
  names[#names + 1] = name
  local z = level_z(k)
  tactics[#tactics + 1] = tp.tactic {
    name = name, body = name, start = "turn",
    skills = {
      tp.skill.wait { name = "turn", body = name, duration = (k - 1) * GAP },
      tp.skill.throw {
        name = "throw", body = name,
        point = tp.uniform({ -AIM, -AIM, z }, { AIM, AIM, z + 0.02 }),
        flight_time = tp.uniform(0.35, 0.7),
        -- the segment runs on (no force) until everything rests: the throw is the only decision
        follow = true, timeout = MAX_T,
      },
      tp.skill.wait { name = "rest", body = name, target = name, duration = MAX_T, timeout = MAX_T },
    },
    transitions = { turn = { throw = 1 }, throw = { rest = 1 }, rest = { rest = 1 } },
  }
  goal_parts[#goal_parts + 1] = tp.inside { body = name, min = { -XY_TOL, -XY_TOL, z - Z_TOL },
                                            max = { XY_TOL, XY_TOL, z + Z_TOL } }
  -- near the axis (within 0.2 m: not its start spot) a block must not be below its own level
  valid_parts[#valid_parts + 1] = tp.any {
    tp.negate(tp.within { body = name, center = { 0, 0 }, radius = 0.2 }),
    tp.inside { body = name, min = { -math.huge, -math.huge, z - 0.03 } },
  }
end
goal_parts[#goal_parts + 1] = tp.settled { bodies = names, speed = 0.02, angular = 0.2 }
valid_parts[#valid_parts + 1] = function(s) return s.t <= MAX_T end

-- The approximate answer: the most blocks in their places (within 3.5 cm of their level's centre),
-- counted in C.
local places = {}
for k = 1, COUNT do places[k] = { 0, 0, level_z(k) } end
local stacked = tp.arranged { bodies = names, points = places, radius = XY_TOL }

return tp.domain {
  name = "tower",
  fallback = "rest", -- an animation shot: an approximate plan ends at rest and landed (docs/lua-api.md#fallbacks)
  description = "five cubes thrown one after another onto a tower that must stand at rest",
  dt = 1 / 60, substeps = 2,
  materials = {
    tp.material { name = "floor", friction = 0.6, restitution = 0.05 },
    tp.material { name = "wood", friction = 0.6, restitution = 0.05 },
  },
  bodies = bodies,
  tactics = tactics,
  goal = tp.all(goal_parts),
  valid = tp.all(valid_parts),
  quality = stacked,
  report = { { "stacked", stacked } },
  -- BK-RRT (the other planner's figure): every block's position in the tower's space (one draw per
  -- block). Not the top block alone: it lies asleep on the floor until the last throw, so the nodes
  -- differed only by the 2.5 um it settled in the first 36 steps, and the root (unsettled, 2.5 um
  -- higher) was the nearest node to every sample above 5 cm: 0/10 at any budget (the hard-problems audit,
  -- docs/domains.md). With all five, a block thrown onto the tower moves the key by 30 cm
  sampling = { tp.uniform({ -0.35, -0.35, 0 }, { 0.35, 0.35, S * COUNT }), distance = "euclidean",
               bodies = names },
  planner = { algorithm = "bgt", mu = 1000, max_iters = 200000, time_limit = 60, solutions = 1, seed = 1 },
  view = { yaw = -60, pitch = 25, target = { 0, 0, 0.2 } },
}
