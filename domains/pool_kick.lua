-- Pool kick shot (issue 39 item 5): the black ball blocks the straight line from the cue ball to
-- the red, so the cue ball must come off a cushion first, then hit the red, which must drop into a
-- pocket. The order is the goal itself, a tp.sequence (docs/lua-api.md "Conditions over time"):
--   1. the cue ball touches a cushion, 2. then (at a later step) the red, 3. then the red is in a
-- pocket. A direct hit that happens to pocket the red, or a red that reaches a pocket off a rim
-- before the cue ball ever touched a cushion, does not count (no geometry encodes the order).
-- The valid condition says the rest: tp.never(the cue ball touches the black) prunes a shot the
-- step it happens, and a red that moves before the cue ball has touched a cushion (a direct hit)
-- is a dead end.
--
-- The stroke is aimed by the kick's geometry: for every pocket and every rail, the ghost-ball
-- point G behind the red (for that pocket's mouth) and the point B on the rail (the line of the
-- ball's centre, R off the cushion face) from which a rebound that keeps the tangential speed and
-- `rebound` of the normal one reaches G. Candidates whose three legs (cue -> B, B -> G,
-- red -> mouth) are clear of the black, whose B is on a cushion (not in a pocket's gap) and whose
-- cut at the red is at most 60 degrees are sampled by weight, then the stroke within a disc of
-- tan(`spread`) times its length around the aim (its direction within `spread` degrees, its
-- strength within as many per cent times 1.75).
--
-- Parameters (all optional):
--   layout   "name:x,y;..." as pool's (balls: cue, red, black; the others are off the table)
--   rebound  the cushion's ratio of normal speeds used by the aim (default 0.8, its restitution)
--   spread   degrees: the half width of the sampled stroke direction around each aim (default 1.0)
--   order    "sequence" (default): the goal and valid above. "none": what a script without conditions
--            over time can say, goal = the red in a pocket, valid without tp.never and tp.ever (for
--            measurements: the cost of the temporal conditions, docs/domains.md). "watch": as "none",
--            plus the kick's sequence in the valid condition as an observer that refuses nothing
--            (tp.any { s, tp.negate(s) }): the plan's "temporal" member then says whether the
--            pocketing shot it found was a kick
local tp = require "tp"
local T = require "pool_table"  -- domains/lib/pool_table.lua: the table, its pockets and the rack

local R, M, L, W, CORNER, SIDE, FRAME, FLOOR, IL, IW = T.R, T.M, T.L, T.W, T.CORNER, T.SIDE, T.FRAME, T.FLOOR,
  T.IL, T.IW

local layout = tp.param("layout", "")
local rebound = tp.param("rebound", 0.8, { min = 0.1, max = 1.0 })
local spread = tp.param("spread", 1.0, { min = 0.0, max = 45.0 })
local order = tp.param("order", "sequence", { choices = { "sequence", "none", "watch" } })

-- every ball but cue, red and black off the table; then the script's layout over it
local base = "cue:-0.7,0.05;black:-0.1,0.02;red:0.55,0.0"
for _, name in ipairs { "yellow", "blue", "purple", "s9", "s10", "s11", "s12", "s13" } do
  base = base .. ";" .. name .. ":off"
end
local rack = T.rack(base .. (layout ~= "" and ";" .. layout or ""))
local BALLS, by_name = rack.balls, rack.by_name
if by_name.red.off or by_name.black.off then error("--set layout: the kick needs the red and the black on the table", 0) end
local bodies = T.table_bodies()
for i, b in ipairs(BALLS) do
  local pos = b.off and { -1.0 + 0.1 * i, W + FRAME + 0.3, FLOOR + R } or { b.pos[1], b.pos[2], R }
  bodies[#bodies + 1] = tp.sphere {
    name = b.name, class = b.name == "cue" and "active" or "passive", radius = R, mass = M, pos = pos,
    material = "ball", color = b.color, max_force = b.name == "cue" and 60 or nil,
  }
end

local C, RED, BLACK = by_name.cue.pos, by_name.red.pos, by_name.black.pos
local dt = 1 / 60

-- distance from point q to the segment a-b
local function seg_dist(q, a, b)
  local abx, aby = b[1] - a[1], b[2] - a[2]
  local l2 = abx * abx + aby * aby
  local u = l2 > 0 and math.max(0, math.min(1, ((q[1] - a[1]) * abx + (q[2] - a[2]) * aby) / l2)) or 0
  local x, y = a[1] + u * abx - q[1], a[2] + u * aby - q[2]
  return math.sqrt(x * x + y * y)
end
local function clear(a, b) return seg_dist(BLACK, a, b) >= 2 * R + 0.005 end
local function mouth_of(p)
  local sy = p.at[2] > 0 and 1 or -1
  if p.at[1] == 0 then return { 0, sy * IW } end
  local sx = p.at[1] > 0 and 1 or -1
  return { sx * (L - (CORNER + T.CW) / 2), sy * (W - (CORNER + T.CW) / 2) }
end
-- the rails: the coordinate k (1 = x, 2 = y) of the ball centre's line at a rebound, and whether
-- the other coordinate u of a rebound point is on a cushion there
local RAILS = {
  { k = 2, at = -(IW - R), on = function(u) return math.abs(u) >= SIDE + 0.02 and math.abs(u) <= L - CORNER - 0.02 end },
  { k = 2, at = IW - R, on = function(u) return math.abs(u) >= SIDE + 0.02 and math.abs(u) <= L - CORNER - 0.02 end },
  { k = 1, at = -(IL - R), on = function(u) return math.abs(u) <= W - CORNER - 0.02 end },
  { k = 1, at = IL - R, on = function(u) return math.abs(u) <= W - CORNER - 0.02 end },
}
-- the rebound point B on a rail from which the cue ball reaches G: along the rail's normal the
-- speed turns and shrinks by `rebound`, along it it stays, so B splits the way in the ratio
-- rebound * (C's distance to the rail) : (G's distance to it)
local function rebound_point(rail, G)
  local k, j = rail.k, 3 - rail.k
  if (rail.at - C[k]) * (rail.at - G[k]) <= 0 then return nil end  -- not both on the cloth's side
  local a, b = rebound * math.abs(rail.at - C[k]), math.abs(G[k] - rail.at)
  local u = (a * G[j] + b * C[j]) / (a + b)
  local B = {}
  B[k], B[j] = rail.at, u
  return rail.on(u) and B or nil
end

local candidates = {}
for _, p in ipairs(T.POCKETS) do
  local mouth = mouth_of(p)
  local dx, dy = mouth[1] - RED[1], mouth[2] - RED[2]
  local d2 = math.sqrt(dx * dx + dy * dy)
  local G = { RED[1] - 2 * R * dx / d2, RED[2] - 2 * R * dy / d2 }
  for _, rail in ipairs(RAILS) do
    local B = rebound_point(rail, G)
    if B and clear(C, B) and clear(B, G) and clear(RED, mouth) then
      local ix, iy = G[1] - B[1], G[2] - B[2]
      local l1 = math.sqrt((B[1] - C[1]) ^ 2 + (B[2] - C[2]) ^ 2)
      local l2 = math.sqrt(ix * ix + iy * iy)
      local cut = math.acos(math.max(-1, math.min(1, (ix * dx + iy * dy) / (l2 * d2))))
      if cut <= math.rad(60) then
        local len = l1 + l2 + d2
        -- a rebound loses speed: the stroke gives the red enough for its own way
        local v = math.min(4.0, math.max(1.5, 1.0 + 0.9 * len))
        local ang = math.atan(B[2] - C[2], B[1] - C[1])
        candidates[#candidates + 1] = { ang = ang, v = v, weight = math.cos(cut) ^ 2 / len }
      end
    end
  end
end
if #candidates == 0 then
  error("pool_kick: no kick shot (off one cushion, clear of the black, cut <= 60 degrees) reaches a pocket from this layout", 0)
end

-- the stroke: pick a candidate by weight, then the force within the disc; follow = true keeps the skill busy until every ball rests (one shot, one segment)
local forces, weights, spreads = {}, {}, {}
for _, c in ipairs(candidates) do
  local f = M * c.v / dt
  forces[#forces + 1] = { f * math.cos(c.ang), f * math.sin(c.ang) }
  weights[#weights + 1] = c.weight
  spreads[#spreads + 1] = f * math.tan(math.rad(spread))   -- a disc: direction and strength
end

local in_pocket = {}
for _, p in ipairs(T.POCKETS) do in_pocket[#in_pocket + 1] = T.pocketed("red", p) end
local cue_cushion = tp.touching { body = "cue", others = T.CUSHIONS }
local red_pocketed = tp.any(in_pocket)
local names = {}
for _, b in ipairs(BALLS) do names[#names + 1] = b.name end

-- the goal: the order of the kick, step after step
local kick = tp.sequence {
  cue_cushion,                                   -- 1. the cue ball off a cushion
  tp.touching { body = "cue", other = "red" },   -- 2. then onto the red
  red_pocketed,                                  -- 3. then the red down
}
local bad = {
  tp.moved { body = "black", tolerance = 0.001 },            -- the black moved (by the red)
  tp.settled { bodies = names, speed = 0.02 },                -- a shot that ended without the goal
  tp.inside { body = "cue", max = { math.huge, math.huge, -0.01 } },   -- no scratch
  -- the red came to rest on the cloth
  tp.all { tp.moved { body = "red" }, tp.slower { body = "red", speed = 0.02 }, tp.negate(red_pocketed) },
}
local goal, valid
if order == "sequence" then
  goal = kick
  -- a direct hit: the red moved before the cue ball had come off a cushion
  bad[#bad + 1] = tp.all { tp.moved { body = "red" }, tp.negate(tp.ever(cue_cushion)) }
  valid = tp.all {
    tp.never(tp.touching { body = "cue", other = "black" }),  -- the blocker is never touched
    tp.negate(tp.any(bad)),
  }
else
  goal = red_pocketed
  bad[#bad + 1] = tp.touching { body = "cue", other = "black" }   -- at this step only: no memory
  valid = tp.negate(tp.any(bad))
  if order == "watch" then valid = tp.all { valid, tp.any { kick, tp.negate(kick) } } end
end

return tp.domain {
  name = "pool_kick",
  description = "kick shot: the cue ball off one cushion, then the red into a pocket, the black never touched (a tp.sequence goal)",
  dt = dt,
  max_contacts = 4,
  materials = {
    tp.material { name = "cloth", friction = 0.2, restitution = 0.0, rolling_friction = 0.0005 },
    tp.material { name = "ball", friction = 0.01, restitution = 0.95 },
    tp.material { name = "cushion", friction = 0.15, restitution = 0.8 },
    tp.material { name = "frame", friction = 0.3, restitution = 0.2 },
    tp.material { name = "floor", friction = 0.5, restitution = 0.1, rolling_friction = 0.01 },
  },
  contacts = {
    tp.contact { "ball", "cloth", friction = 0.2, restitution = 0.1, rolling_friction = 0.0005 },
    tp.contact { "ball", "cushion", friction = 0.15, restitution = 0.8 },
    tp.contact { "ball", "frame", friction = 0.3, restitution = 0.2 },
    tp.contact { "ball", "floor", friction = 0.5, restitution = 0.1, rolling_friction = 0.01 },
  },
  bodies = bodies,
  tactics = {
    tp.tactic { name = "cue_ball", body = "cue", skills = {
      tp.skill.impulse { name = "stroke", force = tp.choice(forces, weights, spreads), follow = true,
                         trigger_speed = 0.02, timeout = 20 } } },
  },
  goal = goal,
  valid = valid,
  sampling = { tp.uniform({ -IL, -IW }, { IL, IW }), distance = "euclidean", body = "cue" },
  solution_metric = "steps",
  view = { yaw = -90, pitch = 75, target = { 0, 0, 0 } },
  planner = { algorithm = "bgt", mu = 1000, max_iters = 100000, solutions = 1 },
}
