-- A pile of 50 boxes dropped into a 0.8 m square: 50 small wooden boxes rest on a
-- table beside a square marked on the floor; one after another each is thrown (tp.skill.throw:
-- one release step, then no force at all) into the square, and all 50 must end at rest inside it.
-- Metres, kilograms, seconds, z up.
--
--   floor    a plane, z = 0; the square [-0.4, 0.4] x [-0.4, 0.4] is a marker (drawn, never hit)
--   table    a static box, top at z = 0.5, from x = -1.4 to -0.6 (1.5 m long in y)
--   boxes    50 cubes of 0.08 m and 0.2 kg on the table, a 5 x 10 grid 0.14 m apart, all at yaw 0
--   throws   box k waits (k - 1) x `gap` s, then is thrown without spin at its own cell: the 25
--            cells of a 5 x 5 grid 0.11 m apart (within 0.22 m of the centre) on the floor for boxes
--            1-25, the same cells one box up for boxes 26-50 (a second layer, each box on the one
--            below it); the aim is uniform within `aim` m of the cell, 0-2 cm over where the box
--            rests, after a flight of 0.7-0.9 s (the next throw comes 1 s later, so a box has landed
--            before the next decision). No spin: a box keeps its yaw (0) and lands flat, and the
--            landing's friction takes its horizontal speed (seed 1: 0.95-1.81 m/s against 3.9-4.8
--            m/s down). The first ten boxes, whose cells are the farthest, sit in the table's
--            column nearest the square
--   goal     every box inside the square (its centre within 0.36 m of the centre along x and y:
--            the whole box over the square) and everything at rest (5 cm/s, 0.5 rad/s)
--   valid    a box low outside the square, slower than 1 m/s (it landed or slid out: no force can
--            bring it back), is a dead end: the search goes back to that throw
--   planner  BK-BGT (mu 100000, below); the approximate answer is the node with the most boxes inside
--
-- Why cells, and not a throw anywhere in the square: a box aimed anywhere lands on or against the
-- boxes already there and slides or tumbles off the heap, and the last of 50 throws have to find
-- the few spots left (the hard-problems audit reported an earlier pile at 80-90 % in, with a longer search giving
-- the same best node). A cell of its own, and a second layer on the first, keeps every landing on a
-- flat face, and a box that falls off the second layer still lands inside the square (the cells
-- are within 0.22 m of the centre, a fallen box within 0.33 m). `--set cells=false` is the
-- ablation: the same throws aimed anywhere over the cells' footprint (docs/domains.md).
--
-- The pile runs on quickstep (O(n) per island; the exact LCP of a 50-box pile is slow) with its
-- position projection, at the default 5 mm penetration limits: nothing is loosened for the domain.
--
-- tplan plan pile                        50 boxes (the figure: 10 seeds, docs/domains.md)
-- tplan plan pile --set count=8          eight (the e2e test's small pile)
local tp = require "tp"

local COUNT = tp.param("count", 50, { min = 1, max = 50, integer = true }) -- boxes thrown
local GAP = tp.param("gap", 1.0, { min = 0.1, max = 10 })                  -- s between two throws
local AIM = tp.param("aim", 0.01, { min = 0, max = 0.1 })                  -- m, aim radius about a cell
-- false: the ablation, each box aimed anywhere over the cells' footprint (0.23 m about the centre),
-- 4-20 cm up, instead of at its own cell (docs/domains.md: what the tactic samples)
local CELLS = tp.param("cells", true)

local S = 0.08                 -- box edge (m)
local SQUARE = 0.4             -- m, half the square's side
local IN = SQUARE - S / 2      -- m, a box's centre at most this far from the centre (x, y)
local PITCH = 0.11             -- m, between two cells
local TABLE_PITCH = 0.14       -- m, between two boxes on the table
local TOP, TX = 0.5, -1.0      -- table top z, table centre x (m)

local bodies = {
  tp.plane { name = "floor", material = "floor" },
  tp.box { name = "square", class = "static", marker = true, size = { 2 * SQUARE, 2 * SQUARE, 0.002 }, pos = { 0, 0, 0.001 }, color = { 0.2, 0.5, 0.9, 0.5 } },
  tp.box { name = "table", class = "static", size = { 0.8, 1.5, TOP }, pos = { TX, 0, TOP / 2 }, material = "wood" },
}

-- cell c (0..24) of the 5 x 5 grid, the far column (+x) first
local function cell(c)
  local i, j = c // 5, c % 5
  return (2 - i) * PITCH, (j - 2) * PITCH
end

local names, tactics, goal_parts, valid_parts = {}, {}, {}, {}
-- the pile's longest length: a branch still short of the goal 4 s after the last landing is dropped
local MAX_T = (COUNT - 1) * GAP + 0.9 + 4
for k = 1, COUNT do
  local name = string.format("box%02d", k)
  -- on the table: column 4 - (k - 1) // 10 (the first ten in the column nearest the square, as
  -- their cells are the farthest), row (k - 1) % 10
  local ti, tj = 4 - (k - 1) // 10, (k - 1) % 10
  bodies[#bodies + 1] = tp.box {
    name = name, class = "active", size = { S, S, S }, mass = 0.2, material = "wood",
    pos = { TX + (ti - 2) * TABLE_PITCH, (tj - 4.5) * TABLE_PITCH, TOP + S / 2 },
    color = { 0.5 + 0.01 * k, 0.35, 0.2 + 0.01 * k, 1 },
  }
  names[#names + 1] = name
  local cx, cy = cell((k - 1) % 25)
  local z = S / 2 + S * ((k - 1) // 25)
  tactics[#tactics + 1] = tp.tactic {
    name = name, body = name, start = "turn",
    skills = {
      tp.skill.wait { name = "turn", body = name, duration = (k - 1) * GAP },
      tp.skill.throw {
        name = "throw", body = name,
        point = CELLS and tp.uniform({ cx - AIM, cy - AIM, z }, { cx + AIM, cy + AIM, z + 0.02 })
                      or tp.uniform({ -2 * PITCH - AIM, -2 * PITCH - AIM, S / 2 }, { 2 * PITCH + AIM, 2 * PITCH + AIM, S / 2 + 2 * S }),
        flight_time = tp.uniform(0.7, 0.9),
        -- the segment runs on (no force) until everything rests: the throw is the only decision
        follow = true, timeout = MAX_T,
      },
      tp.skill.wait { name = "rest", body = name, target = name, duration = MAX_T, timeout = MAX_T },
    },
    transitions = { turn = { throw = 1 }, throw = { rest = 1 }, rest = { rest = 1 } },
  }
  goal_parts[#goal_parts + 1] = tp.inside { body = name, min = { -IN, -IN, -math.huge }, max = { IN, IN, 0.3 } }
  valid_parts[#valid_parts + 1] = tp.any {
    tp.inside { body = name, min = { -math.huge, -math.huge, 0.25 } },   -- on the table or in flight
    tp.inside { body = name, min = { -IN, -IN, -math.huge }, max = { IN, IN, math.huge } },
    tp.faster { body = name, speed = 1.0 },                              -- coming down
  }
end
goal_parts[#goal_parts + 1] = tp.settled { bodies = names, speed = 0.05, angular = 0.5 }
valid_parts[#valid_parts + 1] = function(s) return s.t <= MAX_T end

-- The approximate answer: the most boxes in the square, counted in C (a Lua function here would be
-- called for every node when the search ends without a solution: over 100,000 nodes of 50 boxes it
-- took longer than the time limit's 1 s of grace, and the run ended in an error). A box within
-- 0.36 m of the centre (the circle inside the goal's square) is counted.
local centre = {}
for k = 1, COUNT do centre[k] = { 0, 0 } end
local in_square = tp.arranged { bodies = names, points = centre, radius = IN }

return tp.domain {
  name = "pile",
  fallback = "rest", -- an animation shot: an approximate plan ends at rest and landed (docs/lua-api.md#fallbacks)
  description = "a pile of 50 boxes thrown one after another into a 0.8 m square, all at rest inside",
  dt = 1 / 60, solver = "quickstep", quickstep_iters = 40, space = "sap",
  materials = {
    tp.material { name = "floor", friction = 0.6, restitution = 0.05 },
    tp.material { name = "wood", friction = 0.6, restitution = 0.05 },
  },
  bodies = bodies,
  tactics = tactics,
  goal = tp.all(goal_parts),
  valid = tp.all(valid_parts),
  quality = in_square,
  report = { { "in_square", in_square } },
  -- BK-RRT (the other planner's figure): the last box's position over the square
  sampling = { tp.uniform({ -SQUARE, -SQUARE, 0 }, { SQUARE, SQUARE, 2 * S }), distance = "euclidean",
               body = names[COUNT] },
  -- mu 100000, not the default 1000: mu bounds the ratio of the leaves' mean depth (in steps) to the
  -- mean branching, and the pile's leaves are up to 3,000 steps deep. At 1000, once they pass about
  -- 1,000 steps (box 17) BK-BGT branches from earlier nodes picked uniformly and regrows the long
  -- pile from there: with 40 boxes, seed 1, the best node after 15,000 iterations is at 33 s. At
  -- 100000 it deepens: seed 1 solves in 2,998 iterations, one per step of the plan (docs/domains.md)
  planner = { algorithm = "bgt", mu = 100000, max_iters = 200000, time_limit = 60, solutions = 1, seed = 1 },
  view = { yaw = -50, pitch = 35, target = { -0.4, 0, 0.2 } },
}
