-- Many-dice (Zickler & Veloso 2009, Sec. 6.4, Figs. 11 and 12): dice dropped at random
-- positions fall through a grid of static spheres into a bucket and come to rest forming a
-- pattern. Each die carries its own instance of the Fig. 11 tactic, whose skills are the phases
-- of the fall; every skill is sampling-based, biased toward the die's target cell, and adds only
-- a small horizontal force (at most `force` x the die's weight) so the fall still looks passive.
-- Metres, kilograms, seconds, z up.
--
--   bucket   floor z = 0 (slippery: mu 0.08 against a die), walls around the pattern as high as the
--            highest start (a die a peg knocks sideways stays in), with a 0.5 m margin
--   grid     static spheres ("pegs") r 0.12 in two staggered layers at z = 4.2 and 3.8, 0.7 apart
--   dice     cubes of edge 0.1, 0.15 kg, dropped at rest in random orientations from random points
--            over the bucket at z in [4.7, 6.2]; each carries a tactic whose skills (`steer`) push
--            it horizontally by at most `force` x its weight (0.25 by default)
--   pattern  `text` in the built-in 5x7 font, or `image` (PBM/PGM), rasterised into `count`
--            cells `pitch` apart; each die gets a cell near where it falls (strip matching, then
--            pairwise swaps that shorten the squared distances)
--   goal     at least `goal_fraction` of the dice rest (< 5 cm/s) within `tolerance` of their cell
--   physics  4 substeps per 1/60 s step (`--set substeps=N`; a step takes more by itself while a
--            die would move more than half its size in one): dice reach 6-11 m/s, 10-18 cm per
--            step. Speculative contacts stop them at the pegs, the floor and each other instead
--            of a step later (400 dice, seed 1: deepest 1.3 cm, 4 of 1,176 touching pairs
--            beyond 5 mm; before them 4.4 cm, 425 pairs beyond 1 cm); the limits below say so.
--   planner  BK-BGT, mu 1000, a preset tree of at most 3000 nodes; the approximate answer is the
--            node with the most dice on target. `report` prints the on-target fraction and the
--            largest control force per weight of the selected plan.
--
-- tplan plan dice                                 400 dice spelling "TP"
-- tplan plan dice --set count=30 --set text=I --set force=0.3   a quick instance (the tests use it)
-- tplan plan dice --set image=logo.pbm            any PBM/PGM image (relative to this script)
-- tplan plan dice --set goal_fraction=1           grow the whole preset tree, keep the best node
-- tplan plan dice --solutions 3                  many worlds: the solution with the most dice on target
local tp = require "tp"

local COUNT = tp.param("count", 400, { min = 1, max = 100000, integer = true })              -- number of dice
local TEXT = tp.param("text", "TP")               -- pattern text (ignored when `image` is set)
local IMAGE = tp.param("image", "")               -- PBM/PGM file; dark pixels form the pattern
local INVERT = tp.param("invert", false)          -- swap lit and unlit pixels
local SEED = tp.param("layout_seed", 1, { min = 0, max = 4294967295, integer = true })           -- initial positions (the planner seed is --seed)
local FORCE = tp.param("force", 0.25, { min = 0, max = 100 })             -- largest control force, fraction of a die's weight
local TOL = tp.param("tolerance", 0.07, { min = 0, max = 10 })           -- m, distance of a resting die to its cell centre
local FRACTION = tp.param("goal_fraction", 0.9, { min = 0, max = 1 })   -- of the dice on target
local GRID = tp.param("grid", true)               -- the sphere grid (false: a free fall)
local FLOOR_MU = tp.param("floor_friction", 0.08, { min = 0, max = 100 }) -- dice on the bucket floor (ODE uses a friction pyramid)
local GRID_HEIGHT = tp.param("grid_z", 4.2, { min = 0, max = 1000 })       -- m, height of the upper layer of pegs
local DROP = tp.param("drop", 1.5, { min = 0, max = 1000 })                -- m, range of start heights
local PITCH = tp.param("pitch", 0.22, { min = 0.05, max = 10 })             -- m, cell spacing (dice are 0.1 wide)
local PEG_E = tp.param("peg_restitution", 0.1, { min = 0, max = 1 })
local PEG_MU = tp.param("peg_friction", 0.1, { min = 0, max = 100 })
local SUBSTEPS = tp.param("substeps", 4, { min = 1, max = 64, integer = true })          -- physics substeps per 1/60 s step (see the header)

local EDGE, MASS = 0.1, 0.15                      -- m, kg
local G = 9.81
local WEIGHT = MASS * G

assert(math.type(COUNT) == "integer" and COUNT >= 1 and COUNT <= 2000, "count must be an integer 1..2000")
assert(math.type(SEED) == "integer", "layout_seed must be an integer")
assert(FORCE > 0 and PITCH > EDGE and TOL > 0 and FRACTION > 0 and FRACTION <= 1,
       "need force > 0, pitch > 0.1, tolerance > 0, 0 < goal_fraction <= 1")

-- Target cells, centred on the origin.
local cells = tp.pattern { text = IMAGE == "" and TEXT or nil, image = IMAGE ~= "" and IMAGE or nil,
                           count = COUNT, pitch = PITCH, invert = INVERT }
local xmin, xmax, ymin, ymax = math.huge, -math.huge, math.huge, -math.huge
for _, c in ipairs(cells) do
  xmin, xmax = math.min(xmin, c[1]), math.max(xmax, c[1])
  ymin, ymax = math.min(ymin, c[2]), math.max(ymax, c[2])
end
local MARGIN = 0.5
local BX0, BX1, BY0, BY1 = xmin - MARGIN, xmax + MARGIN, ymin - MARGIN, ymax + MARGIN

-- A small seeded generator for the layout (math.random is disabled in domain scripts):
-- 64-bit xorshift*, deterministic on every platform with Lua 5.4 integers.
local state = 0x9E3779B97F4A7C15 ~ SEED
local function rand()
  state = state ~ (state >> 12)
  state = state ~ (state << 25)
  state = state ~ (state >> 27)
  return ((state * 0x2545F4914F6CDD1D) >> 11) / 9007199254740992.0 -- [0, 1)
end

-- Dice start at random positions above the bucket (a little inside its walls), at staggered
-- heights so they do not all arrive at once, in random orientations, and apart: no two start
-- closer than a die's diagonal (a die drawn too close to an earlier one is drawn again), so none
-- overlaps another at the start (the physics refuses overlaps deeper than 5 mm).
local starts = {}
local TOP = GRID_HEIGHT + 0.5
local APART = EDGE * math.sqrt(3) + 0.005           -- m: the diagonal, and a little air
local cells_taken = {}                               -- spatial hash of the dice placed so far
local function cell_key(ix, iy, iz) return (ix * 4096 + iy) * 4096 + iz end
local function too_close(p)
  local ix, iy, iz = math.floor(p[1] / APART), math.floor(p[2] / APART), math.floor(p[3] / APART)
  for dx = -1, 1 do for dy = -1, 1 do for dz = -1, 1 do
    for _, q in ipairs(cells_taken[cell_key(ix + dx, iy + dy, iz + dz)] or {}) do
      if (p[1] - q[1]) ^ 2 + (p[2] - q[2]) ^ 2 + (p[3] - q[3]) ^ 2 < APART * APART then return true end
    end
  end end end
  return false
end
for i = 1, COUNT do
  local pos
  for _ = 1, 1000 do
    pos = { BX0 + 0.3 + (BX1 - BX0 - 0.6) * rand(), BY0 + 0.3 + (BY1 - BY0 - 0.6) * rand(), TOP + DROP * rand() }
    if not too_close(pos) then break end
    pos = nil
  end
  assert(pos, "dice: no room to drop " .. COUNT .. " dice apart over this bucket (fewer dice, or a larger drop)")
  local k = cell_key(math.floor(pos[1] / APART), math.floor(pos[2] / APART), math.floor(pos[3] / APART))
  cells_taken[k] = cells_taken[k] or {}
  table.insert(cells_taken[k], pos)
  local u1, u2, u3 = rand(), rand(), rand()
  local s1, s2 = math.sqrt(1 - u1), math.sqrt(u1)
  starts[i] = {
    pos = pos,
    quat = { s2 * math.cos(2 * math.pi * u3), s1 * math.sin(2 * math.pi * u2), s1 * math.cos(2 * math.pi * u2),
             s2 * math.sin(2 * math.pi * u3) },
  }
end

-- Assign cells to dice so that each die's target is near where it falls: cut dice and cells
-- into the same number of x strips of equal count, then pair them by y within each strip.
local function order(list, key, lo, hi)
  local idx = {}
  for k = lo, hi do idx[#idx + 1] = list[k] end
  table.sort(idx, function(a, b)
    if key(a) ~= key(b) then return key(a) < key(b) end
    return a.id < b.id
  end)
  return idx
end
local dice, targets = {}, {}
for i = 1, COUNT do
  dice[i] = { id = i, x = starts[i].pos[1], y = starts[i].pos[2] }
  targets[i] = { id = i, x = cells[i][1], y = cells[i][2] }
end
local byx = function(e) return e.x end
local byy = function(e) return e.y end
dice, targets = order(dice, byx, 1, COUNT), order(targets, byx, 1, COUNT)
local target_of = {}
local STRIPS = math.max(1, math.floor(math.sqrt(COUNT / 4) + 0.5))
for s = 0, STRIPS - 1 do
  local lo, hi = s * COUNT // STRIPS + 1, (s + 1) * COUNT // STRIPS
  local d, t = order(dice, byy, lo, hi), order(targets, byy, lo, hi)
  for k = 1, #d do target_of[d[k].id] = { t[k].x, t[k].y } end
end
-- then improve it by pairwise swaps that shorten the sum of squared distances (2-opt sweeps of
-- O(count^2)): the dice have less far to travel, which is what lets their fall look natural
local sx, sy = {}, {}
for i = 1, COUNT do sx[i], sy[i] = starts[i].pos[1], starts[i].pos[2] end
for _ = 1, 4 do
  local swapped = 0
  for i = 1, COUNT - 1 do
    local ti = target_of[i]
    for j = i + 1, COUNT do
      local tj = target_of[j]
      local a = (sx[i] - ti[1]) ^ 2 + (sy[i] - ti[2]) ^ 2 + (sx[j] - tj[1]) ^ 2 + (sy[j] - tj[2]) ^ 2
      local b = (sx[i] - tj[1]) ^ 2 + (sy[i] - tj[2]) ^ 2 + (sx[j] - ti[1]) ^ 2 + (sy[j] - ti[2]) ^ 2
      if b < a - 1e-12 then
        target_of[i], target_of[j] = tj, ti
        ti = tj
        swapped = swapped + 1
      end
    end
  end
  if swapped == 0 then break end
end

-- Scene.
local bodies = {
  tp.plane { name = "floor", material = "floor", color = { 0.35, 0.3, 0.25, 1 } },
}
-- The walls rise above the highest start: a die that strikes a peg near the edge leaves it at up to
-- 2 m/s sideways and, with 0.4 m walls, landed outside the bucket (10 of 400 on seed 1; 3.5 m walls
-- still lost 2, deflected by the upper layer). From above they frame the pattern as before.
local WALL_H = tp.param("wall_height", GRID and TOP + DROP + 0.3 or 0.4, { min = 0.1, max = 1000 }) -- m
local WALL_T = 0.1 -- m
local wall_color = { 0.5, 0.4, 0.3, 1 }
local cx, cy, lx, ly = (BX0 + BX1) / 2, (BY0 + BY1) / 2, BX1 - BX0, BY1 - BY0
bodies[#bodies + 1] = tp.box { name = "wall_w", class = "static", size = { WALL_T, ly, WALL_H },
                               pos = { BX0 - WALL_T / 2, cy, WALL_H / 2 }, material = "wall", color = wall_color }
bodies[#bodies + 1] = tp.box { name = "wall_e", class = "static", size = { WALL_T, ly, WALL_H },
                               pos = { BX1 + WALL_T / 2, cy, WALL_H / 2 }, material = "wall", color = wall_color }
bodies[#bodies + 1] = tp.box { name = "wall_s", class = "static", size = { lx + 2 * WALL_T, WALL_T, WALL_H },
                               pos = { cx, BY0 - WALL_T / 2, WALL_H / 2 }, material = "wall", color = wall_color }
bodies[#bodies + 1] = tp.box { name = "wall_n", class = "static", size = { lx + 2 * WALL_T, WALL_T, WALL_H },
                               pos = { cx, BY1 + WALL_T / 2, WALL_H / 2 }, material = "wall", color = wall_color }

local GRID_R, GRID_D = 0.12, 0.7
local GRID_Z = { GRID_HEIGHT, GRID_HEIGHT - 0.4 } -- two staggered layers
local GRID_TOP, GRID_BOT = GRID_Z[1] + GRID_R + EDGE, GRID_Z[2] - GRID_R - EDGE
if GRID then
  for layer, z in ipairs(GRID_Z) do
    local off = (layer - 1) * GRID_D / 2
    local nx, ny = math.floor((lx - off) / GRID_D), math.floor((ly - off) / GRID_D)
    for ix = 0, nx do
      for iy = 0, ny do
        bodies[#bodies + 1] = tp.sphere { name = string.format("peg_%d_%d_%d", layer, ix, iy), class = "static",
                                          radius = GRID_R, pos = { BX0 + off + ix * GRID_D, BY0 + off + iy * GRID_D, z },
                                          material = "peg", color = { 0.7, 0.7, 0.75, 1 } }
      end
    end
  end
end

-- The dice and their tactics (Fig. 11): one tactic per die, its phases chosen by height.
local LAND = 0.35                              -- below this height a die is in the bucket
local names, points = {}, {}
local tactics = {}
local F = FORCE * WEIGHT                       -- N
-- transition rows (Fig. 11), shared by all dice (read-only tables: no garbage per decision)
local FALL, BOUNCE, GLIDE = { fall = 1 }, { bounce = 1 }, { glide = 1 }
local SETTLE, STUCK = { settle = 1 }, { settle = 0.6, sidestep = 0.4 }
for i = 1, COUNT do
  local name = string.format("die%03d", i)
  local goal = target_of[i]
  names[i], points[i] = name, { goal[1], goal[2], EDGE / 2 }
  -- alternate pip-side colours so the pattern reads well from above
  bodies[#bodies + 1] = tp.box { name = name, class = "active", size = { EDGE, EDGE, EDGE }, mass = MASS,
                                 pos = starts[i].pos, quat = starts[i].quat, max_force = F, planar = true, material = "die",
                                 color = { 0.85, 0.1 + 0.1 * (i % 3), 0.1, 1 } }
  local aim = function(sd) return tp.normal(goal, sd) end
  tactics[i] = tp.tactic {
    name = name, body = name, start = "fall",
    skills = {
      -- above the grid: drift toward the target column
      tp.skill.steer { name = "fall", point = aim(0.1), force = tp.uniform(0.3 * F, F),
                       duration = tp.uniform(0.15, 0.4), min_z = GRID_TOP, kp = 1.5, kv = 4, max_speed = 1.5 },
      -- among the pegs: mostly passive, a faint nudge
      tp.skill.steer { name = "bounce", point = aim(0.1), force = tp.uniform(0.3 * F, F),
                       duration = tp.uniform(0.1, 0.3), min_z = GRID_BOT, max_z = GRID_TOP, kp = 1.5, kv = 3 },
      -- below the grid: home in on the cell before landing
      tp.skill.steer { name = "glide", point = aim(0.03), force = tp.uniform(0.6 * F, F),
                       duration = tp.uniform(0.1, 0.3), min_z = LAND, max_z = GRID_BOT, kp = 2, kv = 6,
                       max_speed = 2 },
      -- in the bucket: slide onto the cell and stop there
      tp.skill.steer { name = "settle", point = goal, force = tp.uniform(0.8 * F, F),
                       duration = tp.uniform(0.3, 0.8), max_z = LAND, kp = 1.5, kv = 8, max_speed = 0.5, tolerance = 0.015 },
      -- stuck behind other dice: step aside to a sampled spot nearby, then settle again
      tp.skill.steer { name = "sidestep", frame = "body", point = tp.disc({ 0, 0 }, 0.15, 0.3),
                       force = tp.uniform(0.8 * F, F), duration = tp.uniform(0.3, 0.6), max_z = LAND, kp = 1.5,
                       kv = 8, max_speed = 0.5, tolerance = 0.015 },
    },
    -- every row is the same function of the die's state: the phase of the fall it is in
    transitions = (function()
      local rows = {}
      local function phase(s)
        local x, y, z = s:pos(name)
        if z > GRID_TOP then return FALL end
        if z > GRID_BOT then return BOUNCE end
        if z > LAND then return GLIDE end
        if s:speed(name) < 0.05 and (x - goal[1]) ^ 2 + (y - goal[2]) ^ 2 > TOL * TOL then
          return STUCK -- resting off target: blocked, perhaps
        end
        return SETTLE
      end
      for _, k in ipairs { "fall", "bounce", "glide", "settle", "sidestep" } do rows[k] = phase end
      return rows
    end)(),
  }
end

local on_target = tp.arranged { bodies = names, points = points, radius = TOL, speed = 0.05, fraction = FRACTION }

return tp.domain {
  name = "dice",
  fallback = "rest", -- an animation shot: an approximate plan ends at rest and landed (docs/lua-api.md#fallbacks)
  description = "many dice fall through a grid of pegs and come to rest forming a pattern (paper Sec. 6.4)",
  dt = 1 / 60,
  substeps = SUBSTEPS,
  gravity = { 0, 0, -G },
  solver = "quickstep",
  space = tp.param("space", "sap"), -- broad phase: sweep and prune is the fastest for hundreds of dice
  quickstep_iters = 10,
  max_contacts = 4,
  -- Penetration limits: the default 5 mm (docs/physics.md). Until the contact audit the domain loosened them
  -- to 2 cm: dice land at 6-11 m/s in crowds and a die struck within one substep sank a centimetre
  -- or so. Two changes made 5 mm hold: the swept pass's approach of a spinning die's point along a
  -- contact normal is its true travel (a spurious lever arm had let spinning dice close gaps they
  -- did not have), and BK-BGT retires a node whose children are all refused (a die pair overlapping
  -- whatever the action) instead of expanding it for the rest of the run. At 5 mm: 400 dice 20/20
  -- seeds solved (tplan bench --domains dice), 50, 100 and 200 dice seeds 1-5 all solved.
  materials = {
    tp.material { name = "die", friction = 0.3, restitution = 0.2 },
    tp.material { name = "floor", friction = 0.25, restitution = 0.05 },
    tp.material { name = "wall", friction = 0.3, restitution = 0.2 },
    tp.material { name = "peg", friction = PEG_MU, restitution = PEG_E },
  },
  contacts = {
    tp.contact { "die", "floor", friction = FLOOR_MU, restitution = 0.05 },
  },
  bodies = bodies,
  tactics = tactics,
  goal = on_target,
  -- BK-BGT with a preset tree size (Table 1): without a goal node the best arrangement is kept
  quality = on_target,
  solution_metric = on_target,      -- many-worlds (--solutions K): keep the most dice on target
  report = {
    { "on_target", on_target },
    { "peak_force_per_weight", tp.peak_force() },
  },
  -- from above the bucket, like the paper's Fig. 11: the pattern reads left to right through the pegs
  view = { yaw = -90, pitch = 89, target = { 0, 0, 0 } },
  planner = { algorithm = "bgt", mu = 1000, max_iters = 3000 },
}
