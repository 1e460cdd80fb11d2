-- pool_table.lua: the 9-ft pool table of domains/pool.lua (Zickler & Veloso 2009, Sec. 6.3) as a
-- module, for pool domains: `local T = require "pool_table"` (domains/lib/pool_table.lua).
--
--   T.R, T.M, T.L, T.W, T.CW, T.CH, T.CORNER, T.SIDE, T.FRAME, T.FLOOR, T.IL, T.IW
--                            ball radius and mass; bed, cushion, pocket and pit sizes (see pool.lua)
--   T.POCKETS                the six pockets {name, at = centre of the pit}: ne, nw, se, sw, n, s
--   T.pocket_by_name(name)   one of them (an error naming the caller's line if unknown)
--   T.pocketed(ball, p)      the condition "ball is in pocket p" (below the bed, in p's pit)
--   T.rack(layout)           the balls: the default (chain) arrangement with a --set layout string
--                            applied ("name:x,y;name:off"), checked (on the cloth, no overlap);
--                            returns { balls, by_name, ball = function(name, what), blue0, yellow0,
--                            purple0, red0, blue_ghost, yellow_ghost }
--   T.table_bodies()         a new array of the static bodies: floor plane, bed, cushions, frame
--   T.CUSHIONS, T.away_from(p)  the cushion names; those that are not the jaws of corner pocket p
local tp = require "tp"
local walls = require "walls"

local R, M = 0.028575, 0.17           -- ball radius (m) and mass (kg)
local L, W = 1.27, 0.635              -- half length / half width of the bed (m)
local CW, CH = 0.05, 0.04             -- cushion width and height (m)
local CORNER = 0.14                   -- corner hole side (m), measured from the bed corner
local SIDE = 0.065                    -- half width of the side pocket gap (m)
local FRAME = 0.1                     -- width of the pit between the bed edge and the frame (m)
local FLOOR = -0.2                    -- z of the floor that catches pocketed balls (m)
local IL, IW = L - CW, W - CW         -- the cloth inside the cushions: |x| <= IL, |y| <= IW

-- Pockets: name -> centre of its pit (xy) and the region a dropped ball ends up in
local POCKETS = {
  { name = "ne", at = { L, W } }, { name = "nw", at = { -L, W } },
  { name = "se", at = { L, -W } }, { name = "sw", at = { -L, -W } },
  { name = "n", at = { 0, W } }, { name = "s", at = { 0, -W } },
}
local function pocket_by_name(name)
  for _, p in ipairs(POCKETS) do
    if p.name == name then return p end
  end
  error("--set pocket=" .. name .. ": expected ne, nw, se, sw, n or s", 2)
end
-- "ball is in pocket p": below the bed and inside p's pit
local function pocketed(ball, p)
  local x, y = p.at[1], p.at[2]
  local sx, sy = x >= 0 and 1 or -1, y >= 0 and 1 or -1
  local lo, hi = {}, {}
  if x == 0 then
    lo[1], hi[1] = -0.3, 0.3
  else
    lo[1], hi[1] = math.min(sx * (L - CORNER), sx * (L + FRAME)), math.max(sx * (L - CORNER), sx * (L + FRAME))
  end
  local inner = x == 0 and W - CW or W - CORNER
  lo[2], hi[2] = math.min(sy * inner, sy * (W + FRAME)), math.max(sy * inner, sy * (W + FRAME))
  return tp.inside { body = ball, min = { lo[1], lo[2], -math.huge }, max = { hi[1], hi[2], -0.02 } }
end

-- ---------------------------------------------------------------------------------------------
-- Balls: the default (chain) arrangement, by ghost-ball geometry.
-- The cue ball hits the touching pair blue/yellow head-on: ideally they leave at +-30 degrees;
-- in this simulation (ball-ball friction throws them, then the cloth bends their sliding paths)
-- the chord from the start to 0.6 m further is at +-31.5 degrees for the default stroke (CHORD,
-- measured from the natural shot: the stroke F of pool.lua with no spin). Purple sits where blue,
-- 0.6 m along that chord, meets it on its line to the north-east pocket; red mirrors it. The
-- layout is that sensitive: with 30.64 (the chord of an earlier physics) purple left 9 degrees
-- off its line and the planner needed 1.8x the nodes; each 0.1 degree turns purple by ~1 degree.
-- Re-measure CHORD when the contact physics changes (docs/domains.md#pool-table).
local function ghost_target(from, angle, s, pocket)
  local gx, gy = from[1] + s * math.cos(angle), from[2] + s * math.sin(angle)
  local dx, dy = pocket[1] - gx, pocket[2] - gy
  local n = math.sqrt(dx * dx + dy * dy)
  return { gx + 2 * R * dx / n, gy + 2 * R * dy / n }, { gx, gy }
end
local AIM_NE, AIM_SE = { IL + 0.02, IW + 0.02 }, { IL + 0.02, -IW - 0.02 }  -- into the corner holes
local BLUE0, YELLOW0 = { -0.3, R }, { -0.3, -R }
local CHORD = 31.5   -- degrees
local PURPLE0, BLUE_GHOST = ghost_target(BLUE0, math.rad(CHORD), 0.6, AIM_NE)
local RED0, YELLOW_GHOST = ghost_target(YELLOW0, math.rad(-CHORD), 0.6, AIM_SE)

local function rack(layout)
  local BALLS = {   -- array: the order is the body order
    { name = "cue", pos = { -0.75, 0.0 }, color = { 1, 1, 1, 1 } },
    { name = "yellow", pos = YELLOW0, color = { 0.95, 0.8, 0.1, 1 } },
    { name = "blue", pos = BLUE0, color = { 0.1, 0.2, 0.8, 1 } },
    { name = "red", pos = RED0, color = { 0.8, 0.1, 0.1, 1 } },
    { name = "purple", pos = PURPLE0, color = { 0.45, 0.1, 0.5, 1 } },
    { name = "black", pos = { 0.75, 0.05 }, color = { 0.05, 0.05, 0.05, 1 } },
    { name = "s9", pos = { 0.45, 0.0 }, stripe = true, color = { 0.95, 0.8, 0.1, 1 } },
    { name = "s10", pos = { 1.0, -0.1 }, stripe = true, color = { 0.1, 0.2, 0.8, 1 } },
    { name = "s11", pos = { -0.2, 0.45 }, stripe = true, color = { 0.8, 0.1, 0.1, 1 } },
    { name = "s12", pos = { -0.1, -0.5 }, stripe = true, color = { 0.45, 0.1, 0.5, 1 } },
    { name = "s13", pos = { -1.0, -0.3 }, stripe = true, color = { 1.0, 0.5, 0.0, 1 } },
  }
  local by_name = {}
  for i, b in ipairs(BALLS) do by_name[b.name] = b; b.index = i end
  local function ball(name, what)
    local b = by_name[name]
    if not b then
      local names = {}
      for _, x in ipairs(BALLS) do names[#names + 1] = x.name end
      error(what .. ": unknown ball '" .. name .. "' (balls: " .. table.concat(names, ", ") .. ")", 2)
    end
    return b
  end

  -- --set layout="name:x,y;name:off;..."
  for entry in string.gmatch(layout, "[^;]+") do
    local name, rest = string.match(entry, "^%s*([%w_]+)%s*:%s*(.-)%s*$")
    if not name then error("--set layout: expected name:x,y or name:off, got '" .. entry .. "'", 0) end
    local b = ball(name, "--set layout")
    if rest == "off" then
      b.off = true
    else
      local x, y = string.match(rest, "^([-+%d.eE]+)%s*,%s*([-+%d.eE]+)$")
      x, y = tonumber(x), tonumber(y)
      if not x or not y then error("--set layout: " .. name .. ": expected x,y numbers, got '" .. rest .. "'", 0) end
      if math.abs(x) > IL - R or math.abs(y) > IW - R then
        error(string.format("--set layout: %s at (%g, %g) is off the cloth (|x| <= %.4f, |y| <= %.4f)", name, x, y,
          IL - R, IW - R))
      end
      if math.abs(x) > L - CORNER and math.abs(y) > W - CORNER then
        error(string.format("--set layout: %s at (%g, %g) is over a corner pocket's hole (|x| > %.2f and |y| > %.3f)",
          name, x, y, L - CORNER, W - CORNER), 0)
      end
      b.pos = { x, y }
    end
  end
  -- a legal arrangement: balls on the cloth must not overlap
  for i = 1, #BALLS do
    for j = i + 1, #BALLS do
      local a, b = BALLS[i], BALLS[j]
      if not a.off and not b.off then
        local dx, dy = a.pos[1] - b.pos[1], a.pos[2] - b.pos[2]
        if dx * dx + dy * dy < (2 * R - 1e-6) ^ 2 then
          error(string.format("layout: balls %s and %s overlap (centres %.4f m apart, need >= %.4f)", a.name, b.name,
            math.sqrt(dx * dx + dy * dy), 2 * R))
        end
      end
    end
  end
  if by_name.cue.off then error("layout: the cue ball must be on the table", 0) end
  return { balls = BALLS, by_name = by_name, ball = ball, blue0 = BLUE0, yellow0 = YELLOW0, purple0 = PURPLE0,
           red0 = RED0, blue_ghost = BLUE_GHOST, yellow_ghost = YELLOW_GHOST }
end

-- ---------------------------------------------------------------------------------------------
-- Static table: bed with holes, cushions with gaps, frame around the pits, floor
local wood, cloth = { 0.35, 0.2, 0.1, 1 }, { 0.05, 0.45, 0.2, 1 }
local slab = walls.slab
local BED_T = 0.05
local function table_bodies()
  return {
    tp.plane { name = "floor", offset = FLOOR, material = "floor", color = { 0.3, 0.3, 0.3, 1 } },
    -- the bed: a full-length middle band plus two side bands, leaving the corner squares open
    slab("bed_mid", -L, L, -W + CORNER, W - CORNER, -BED_T, 0, "cloth", cloth),
    slab("bed_north", -L + CORNER, L - CORNER, W - CORNER, W, -BED_T, 0, "cloth", cloth),
    slab("bed_south", -L + CORNER, L - CORNER, -W, -W + CORNER, -BED_T, 0, "cloth", cloth),
    -- cushions (on the bed): two on each long side (gap at the middle pocket), one on each end
    slab("cushion_nw", -L + CORNER, -SIDE, W - CW, W, 0, CH, "cushion", cloth),
    slab("cushion_ne", SIDE, L - CORNER, W - CW, W, 0, CH, "cushion", cloth),
    slab("cushion_sw", -L + CORNER, -SIDE, -W, -W + CW, 0, CH, "cushion", cloth),
    slab("cushion_se", SIDE, L - CORNER, -W, -W + CW, 0, CH, "cushion", cloth),
    slab("cushion_e", L - CW, L, -W + CORNER, W - CORNER, 0, CH, "cushion", cloth),
    slab("cushion_w", -L, -L + CW, -W + CORNER, W - CORNER, 0, CH, "cushion", cloth),
    -- the frame: walls around the pits, from the floor to the cushion top
    slab("frame_n", -L - FRAME, L + FRAME, W + FRAME, W + FRAME + 0.05, FLOOR, CH, "frame", wood),
    slab("frame_s", -L - FRAME, L + FRAME, -W - FRAME - 0.05, -W - FRAME, FLOOR, CH, "frame", wood),
    slab("frame_e", L + FRAME, L + FRAME + 0.05, -W - FRAME, W + FRAME, FLOOR, CH, "frame", wood),
    slab("frame_w", -L - FRAME - 0.05, -L - FRAME, -W - FRAME, W + FRAME, FLOOR, CH, "frame", wood),
  }
end
local CUSHIONS = { "cushion_nw", "cushion_ne", "cushion_sw", "cushion_se", "cushion_e", "cushion_w" }
-- the cushions that do not form the jaws of corner pocket p (a ball touching one of them is not
-- going into p: the pocket is 0.14 m wide and its two jaw cushions end at its mouth)
local function away_from(p)
  local jaws = { (p.at[2] > 0 and "cushion_n" or "cushion_s") .. (p.at[1] > 0 and "e" or "w"),
                 p.at[1] > 0 and "cushion_e" or "cushion_w" }
  local t = {}
  for _, c in ipairs(CUSHIONS) do
    if c ~= jaws[1] and c ~= jaws[2] then t[#t + 1] = c end
  end
  return t
end
-- distance from point q to the segment a-b, in the table's plane (x, y); the shots' test of a
-- clear path (pool.lua, pool_shots.lua)
local function seg_dist(q, a, b)
  local abx, aby = b[1] - a[1], b[2] - a[2]
  local l2 = abx * abx + aby * aby
  local u = l2 > 0 and math.max(0, math.min(1, ((q[1] - a[1]) * abx + (q[2] - a[2]) * aby) / l2)) or 0
  local x, y = a[1] + u * abx - q[1], a[2] + u * aby - q[2]
  return math.sqrt(x * x + y * y)
end

return {
  R = R, M = M, L = L, W = W, CW = CW, CH = CH, CORNER = CORNER, SIDE = SIDE, FRAME = FRAME, FLOOR = FLOOR,
  IL = IL, IW = IW, POCKETS = POCKETS, pocket_by_name = pocket_by_name, pocketed = pocketed, rack = rack,
  table_bodies = table_bodies, CUSHIONS = CUSHIONS, away_from = away_from, seg_dist = seg_dist,
}
