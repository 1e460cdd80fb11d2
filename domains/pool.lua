-- Pool table (Zickler & Veloso 2009, Sec. 6.3, Figs. 9 and 10). Metres, kilograms, seconds, z up.
--
--   table    9-ft bed 2.54 x 1.27 (top at z = 0), cushions 0.05 wide and 0.04 high on the bed, so
--            the cloth inside the cushions is x in [-1.22, 1.22], y in [-0.585, 0.585]
--   pockets  six real holes: the bed has square holes at the four corners (0.14 x 0.14, mouth
--            ~0.127 m between the cushion tips) and the long cushions have 0.13 m gaps at the
--            middle, past which the bed ends. A ball that reaches a hole drops into a pit bounded
--            by the table frame and is caught on the floor (z = -0.2): pockets need no special
--            physics, and "pocketed in P" is the data condition "below the bed, in P's pit".
--   balls    radius 0.028575, 0.17 kg (regulation). Cloth: friction 0.2 and rolling friction
--            0.0005 m (a rolling ball slows by ~0.12 m/s^2); ball-ball restitution 0.95;
--            cushion restitution 0.8.
--   cue      the cue ball is an active body; the cue's stroke is an `impulse` skill: a sampled
--            force for one step (dv = F dt / m, a centre-ball hit without spin). No cue stick body.
--
-- Two modes (`--set mode=...`):
--
--   chain (default; the paper's Figs. 9-10): the cue ball strikes the touching pair blue/yellow
--     at once; blue delivers purple into the north-east corner pocket and yellow delivers red
--     into the south-east one; no striped ball may move (X_valid). Blue and yellow are active
--     bodies with very limited actuation (0.3 N): each carries the 'sampled spin' skill, which
--     after the ball is hit bends its path gently (<= 0.1 N sideways, for a sampled 0.05-0.3 s)
--     toward a sampled point within 2 cm of its ideal contact point (the ghost-ball point): a
--     sampled perturbation of its natural path. Among several solutions (planner.solutions) the
--     plan with the least perturbation wins: solution_metric = tp.effort of blue and yellow.
--     Measured over seeds 1-60 (BK-BGT, 3 solutions): 4.7 shots per solution and a mean selected
--     perturbation of 0.0039 N s; with no spin at all 5.2 shots, with a plain constant push
--     toward a point within 5 cm (the skill without `aim`) 6.1 shots and 0.0101 N s.
--
--   single (the "opponent AI for pool" use of Sec. 7.1): any legal arrangement of the balls and
--     a target ball; find a cue shot that pockets the target (in any pocket, or the one named)
--     without touching the forbidden balls (default: the striped ones) and without scratching.
--     Every pocket reachable by a direct cut is a candidate, aimed by ghost-ball geometry; the
--     stroke samples a candidate (clear paths and easy cuts first) and a force around its aim.
--       tplan plan pool --set mode=single --set target=purple --set pocket=ne
--       tplan plan pool --set mode=single --set layout="cue:-0.8,0.2;black:0.6,-0.3" --set target=black
--
-- Parameters (all optional):
--   mode       "chain" | "single"
--   layout     "name:x,y;name:x,y;..." moves balls (cloth coordinates above); "name:off" takes a
--              ball off the table. Balls: cue, yellow, blue, red, purple, black, s9 .. s13.
--   target     single: the ball to pocket (default "red"; black is blocked in the default layout)
--   pocket     single: ne, nw, se, sw, n or s: only this pocket (default: any pocket)
--   forbidden  single: "stripes" (default), "others" (every ball but cue and target) or a
--              comma-separated list of ball names
--   speed      single: cue ball speed in m/s (default: from the distances, 1.2 .. 3.5)
--   prune      chain: false drops the dead-end prunes (slower; for checking that they are sound)
local tp = require "tp"

local R, M = 0.028575, 0.17           -- ball radius (m) and mass (kg)
local L, W = 1.27, 0.635              -- half length / half width of the bed (m)
local CW, CH = 0.05, 0.04             -- cushion width and height (m)
local CORNER = 0.14                   -- corner hole side (m), measured from the bed corner
local SIDE = 0.065                    -- half width of the side pocket gap (m)
local FRAME = 0.1                     -- width of the pit between the bed edge and the frame (m)
local FLOOR = -0.2                    -- z of the floor that catches pocketed balls (m)
local IL, IW = L - CW, W - CW         -- the cloth inside the cushions: |x| <= IL, |y| <= IW

local mode = tp.param("mode", "chain")
local layout = tp.param("layout", "")
local target_name = tp.param("target", "red")
local pocket_name = tp.param("pocket", "")
local forbidden_spec = tp.param("forbidden", "stripes")
local speed_param = tp.param("speed", 0.0, { min = 0, max = 100 })
local prune = tp.param("prune", true)
if mode ~= "chain" and mode ~= "single" then
  error("--set mode=" .. mode .. ": expected chain or single")
end
if mode == "chain" and (target_name ~= "red" or pocket_name ~= "" or forbidden_spec ~= "stripes" or speed_param ~= 0) then
  error("--set target/pocket/forbidden/speed are for --set mode=single")
end
if mode == "single" and not prune then error("--set prune is for --set mode=chain") end

-- ---------------------------------------------------------------------------------------------
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
  error("--set pocket=" .. name .. ": expected ne, nw, se, sw, n or s")
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
-- the chord from the start to 0.6 m further is at +-32.9 degrees for the default stroke (measured
-- once from a plan of the natural shot). Purple sits where blue, 0.6 m along that chord, meets it
-- on its line to the north-east pocket; red mirrors it.
local function ghost_target(from, angle, s, pocket)
  local gx, gy = from[1] + s * math.cos(angle), from[2] + s * math.sin(angle)
  local dx, dy = pocket[1] - gx, pocket[2] - gy
  local n = math.sqrt(dx * dx + dy * dy)
  return { gx + 2 * R * dx / n, gy + 2 * R * dy / n }, { gx, gy }
end
local AIM_NE, AIM_SE = { IL + 0.02, IW + 0.02 }, { IL + 0.02, -IW - 0.02 }  -- into the corner holes
local BLUE0, YELLOW0 = { -0.3, R }, { -0.3, -R }
local PURPLE0, BLUE_GHOST = ghost_target(BLUE0, math.rad(30.64), 0.6, AIM_NE)
local RED0, YELLOW_GHOST = ghost_target(YELLOW0, math.rad(-30.64), 0.6, AIM_SE)

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
    error(what .. ": unknown ball '" .. name .. "' (balls: " .. table.concat(names, ", ") .. ")")
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

-- ---------------------------------------------------------------------------------------------
-- Static table: bed with holes, cushions with gaps, frame around the pits, floor
local wood, cloth = { 0.35, 0.2, 0.1, 1 }, { 0.05, 0.45, 0.2, 1 }
local function slab(name, x0, x1, y0, y1, z0, z1, material, color)
  return tp.box { name = name, class = "static", size = { x1 - x0, y1 - y0, z1 - z0 },
                  pos = { (x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2 }, material = material, color = color }
end
local BED_T = 0.05
local bodies = {
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

-- which balls carry tactics (and so need a control slot)
local active = { cue = true }
if mode == "chain" then active.blue, active.yellow = true, true end
for i, b in ipairs(BALLS) do
  local pos = b.off and { -1.0 + 0.1 * i, W + FRAME + 0.3, FLOOR + R } or { b.pos[1], b.pos[2], R }
  local cls = active[b.name] and "active" or "passive"
  bodies[#bodies + 1] = tp.sphere {
    name = b.name, class = cls, radius = R, mass = M, pos = pos, material = "ball", color = b.color,
    -- the cue's stroke (impulse) may reach 60 N for one step; blue and yellow only spin gently
    max_force = (b.name == "cue") and 60 or (cls == "active" and 0.3 or nil),
  }
end

local function any_touch(body, others)
  local t = {}
  for _, o in ipairs(others) do t[#t + 1] = tp.touching { body = body, other = o } end
  return tp.any(t)
end

local dt = 1 / 60
-- force (N) for one step that makes a ball at rest leave at speed v (m/s) along (dx, dy)
local function stroke(v, dx, dy)
  local n = math.sqrt(dx * dx + dy * dy)
  local f = M * v / dt
  return { f * dx / n, f * dy / n }
end
-- the stroke: a sampled force on the cue ball for one step. follow = true keeps the skill busy
-- until every ball rests, so a whole shot is one deterministic segment (the only decision point
-- is the root: every expansion of the tree is one sampled shot)
local function stroke_skill(force)
  return tp.skill.impulse { name = "stroke", force = force, follow = true,
                            trigger_speed = 0.02, timeout = 20 }
end
-- a shot that ends with every ball at rest and no goal is a dead end
local function all_rest()
  local t = {}
  for _, b in ipairs(BALLS) do t[#t + 1] = tp.slower { body = b.name, speed = 0.02 } end
  return tp.all(t)
end

-- ---------------------------------------------------------------------------------------------
local tactics, goal, valid, metric, description

if mode == "chain" then
  description = "cue ball -> blue/yellow -> purple/red into the east corner pockets, stripes untouched (paper Sec. 6.3, Figs. 9-10)"
  local ne, se = pocket_by_name("ne"), pocket_by_name("se")
  local cue = by_name.cue.pos
  local aim = { (BLUE0[1] + YELLOW0[1]) / 2 - cue[1], (BLUE0[2] + YELLOW0[2]) / 2 - cue[2] }
  local F = stroke(2.4, aim[1], aim[2])
  local Fn = math.sqrt(F[1] ^ 2 + F[2] ^ 2)
  -- the 'sampled spin' of an intermediate ball: after it is hit, bend its path (aim: pure
  -- pursuit, a sideways force of at most a sampled 0-0.1 N for a sampled 0.05-0.3 s) toward a
  -- sampled point within 2 cm of its ghost-ball point
  local function spin(ghost)
    return tp.skill.spin { name = "spin", aim = true, point = tp.disc(ghost, 0, 0.02), force = tp.uniform(0, 0.1),
                           duration = tp.uniform(0.05, 0.3), trigger_speed = 0.02, timeout = 20, follow = true }
  end
  tactics = {
    -- red tactic of Fig. 10: the cue ball samples the stroke (speed and direction) and rolls on
    tp.tactic { name = "cue_ball", body = "cue", skills = { stroke_skill(tp.disc(F, 0, 0.01 * Fn)) } },
    -- green and blue tactics: the sampled spin once hit
    tp.tactic { name = "blue_ball", body = "blue", skills = { spin(BLUE_GHOST) } },
    tp.tactic { name = "yellow_ball", body = "yellow", skills = { spin(YELLOW_GHOST) } },
  }
  goal = tp.all { pocketed("purple", ne), pocketed("red", se) }
  local stripes = {}
  for _, b in ipairs(BALLS) do
    if b.stripe then stripes[#stripes + 1] = tp.moved { body = b.name, tolerance = 0.001 } end
  end
  local invalid = {
    tp.any(stripes),                                   -- X_valid of the paper: no stripe moves
    all_rest(),
    tp.inside { body = "cue", max = { math.huge, math.huge, -0.01 } },   -- no scratch
  }
  -- Dead ends, pruned early (they only save simulation: each must hold of no shot that would
  -- still pocket both targets; `--set prune=false` drops them, and the e2e test checks that the
  -- same shots are found either way): a target ball that hits a cushion away from its pocket (the
  -- two cushions whose tips are the pocket's jaws may be touched on the way in) or comes to rest
  -- unpocketed, a carrier that reaches a cushion before its target moved
  local dead_ends = {
    any_touch("purple", away_from(ne)), any_touch("red", away_from(se)),
    tp.all { tp.moved { body = "purple" }, tp.slower { body = "purple", speed = 0.02 },
             tp.negate(pocketed("purple", ne)) },
    tp.all { tp.moved { body = "red" }, tp.slower { body = "red", speed = 0.02 },
             tp.negate(pocketed("red", se)) },
    tp.all { any_touch("blue", CUSHIONS), tp.negate(tp.moved { body = "purple" }) },
    tp.all { any_touch("yellow", CUSHIONS), tp.negate(tp.moved { body = "red" }) },
    tp.all { tp.slower { body = "blue", speed = 0.02 }, tp.moved { body = "blue" },
             tp.negate(tp.moved { body = "purple" }) },
    tp.all { tp.slower { body = "yellow", speed = 0.02 }, tp.moved { body = "yellow" },
             tp.negate(tp.moved { body = "red" }) },
    -- a carrier that has run past its target's x without touching it can no longer reach it
    -- (it could only come back off a cushion, which is pruned above)
    tp.all { tp.inside { body = "blue", min = { PURPLE0[1] + 2 * R, -math.huge, -math.huge } },
             tp.negate(tp.moved { body = "purple" }) },
    tp.all { tp.inside { body = "yellow", min = { RED0[1] + 2 * R, -math.huge, -math.huge } },
             tp.negate(tp.moved { body = "red" }) },
  }
  if prune then
    for _, c in ipairs(dead_ends) do invalid[#invalid + 1] = c end
  end
  valid = tp.negate(tp.any(invalid))
  metric = tp.effort { bodies = { "blue", "yellow" } }   -- least perturbation of the natural paths
else
  -- single shot: cue ball -> target ball -> pocket
  local tb = ball(target_name, "--set target")
  if tb.name == "cue" then error("--set target: the target must be an object ball, not the cue ball", 0) end
  if tb.off then error("--set target: ball '" .. tb.name .. "' is off the table", 0) end
  local T, C = tb.pos, by_name.cue.pos
  -- aim at the middle of a pocket's mouth: between the cushion tips of a corner, at the cushion
  -- line of a middle pocket; the ghost ball touches the target on the side away from it
  local function mouth_of(p)
    local sy = p.at[2] > 0 and 1 or -1
    if p.at[1] == 0 then return { 0, sy * IW } end
    local sx = p.at[1] > 0 and 1 or -1
    return { sx * (L - (CORNER + CW) / 2), sy * (W - (CORNER + CW) / 2) }
  end
  -- a direct shot at pocket p: its mouth, the ghost-ball point G, the lengths of the cue ball's
  -- path (C -> G) and the target's (T -> mouth), and the cut angle between the two paths
  local function shot_at(p)
    local mouth = mouth_of(p)
    local dx, dy = mouth[1] - T[1], mouth[2] - T[2]
    local d2 = math.sqrt(dx * dx + dy * dy)
    local G = { T[1] - 2 * R * dx / d2, T[2] - 2 * R * dy / d2 }
    local cx, cy = G[1] - C[1], G[2] - C[2]
    local d1 = math.sqrt(cx * cx + cy * cy)
    local cut = math.acos(math.max(-1, math.min(1, (cx * dx + cy * dy) / (d1 * d2))))
    return { mouth = mouth, G = G, d1 = d1, d2 = d2, cut = cut }
  end
  -- balls on the cloth other than the cue and target ball (obstacles of a direct shot)
  local others = {}
  for _, b in ipairs(BALLS) do
    if not b.off and b.name ~= "cue" and b.name ~= tb.name then others[#others + 1] = b end
  end
  -- distance from point q to the segment a-b
  local function seg_dist(q, a, b)
    local abx, aby = b[1] - a[1], b[2] - a[2]
    local l2 = abx * abx + aby * aby
    local u = l2 > 0 and math.max(0, math.min(1, ((q[1] - a[1]) * abx + (q[2] - a[2]) * aby) / l2)) or 0
    local x, y = a[1] + u * abx - q[1], a[2] + u * aby - q[2]
    return math.sqrt(x * x + y * y)
  end
  -- is the path of a ball rolling from a to b clear of every other ball (centre distance >= 2R)?
  local function clear(a, b)
    for _, o in ipairs(others) do
      if seg_dist(o.pos, a, b) < 2 * R then return false end
    end
    return true
  end
  -- every pocket with a direct cut (cut angle <= 80 degrees): its stroke and a weight. A shot whose
  -- two paths (cue -> ghost ball, target -> mouth) are clear is 20x as likely to be sampled as an
  -- obstructed one (which may still work: the obstacle can be grazed past); easier cuts and shorter
  -- shots are preferred (weight cos(cut)^2 / length).
  local candidates = {}
  for _, p in ipairs(POCKETS) do
    local s = shot_at(p)
    if (pocket_name == "" or p.name == pocket_name) and s.cut <= math.rad(80) then
      local G, d = s.G, s.d1 + s.d2
      local v = speed_param > 0 and speed_param or math.min(3.5, math.max(1.2, 0.8 + 0.9 * d))
      local is_clear = clear(C, G) and clear(T, s.mouth)
      candidates[#candidates + 1] = {
        pocket = p, force = stroke(v, G[1] - C[1], G[2] - C[2]), clear = is_clear,
        weight = math.cos(s.cut) ^ 2 / d * (is_clear and 20 or 1),
      }
    end
  end
  if pocket_name ~= "" then pocket_by_name(pocket_name) end   -- an unknown name is an error
  if #candidates == 0 then
    if pocket_name ~= "" then
      error(string.format("--set pocket=%s: cut angle %.0f degrees, the target cannot be sent there", pocket_name,
        math.deg(shot_at(pocket_by_name(pocket_name)).cut)))
    end
    error("--set target=" .. tb.name .. ": no pocket can be reached by a direct cut (every cut angle is over 80 degrees)")
  end
  local any_clear = false
  for _, c in ipairs(candidates) do any_clear = any_clear or c.clear end
  if not any_clear then   -- worth knowing before a long fruitless search (print goes to stderr)
    print("pool: every direct shot at " .. tb.name .. " has a ball in the way (of the cue ball or of the target); " ..
          "sampling them anyway, but only bank and kick shots, which the stroke does not aim, may exist")
  end
  description = "single shot: pocket a target ball without touching forbidden balls (pool AI, paper Sec. 7.1)"
  -- the cue ball's tactic: one stroke whose force is a mixture over the candidate pockets: pick a
  -- pocket by weight, then the force within 5 % of its ghost-ball stroke (any direction)
  local forces, weights, spreads = {}, {}, {}
  for _, c in ipairs(candidates) do
    forces[#forces + 1] = c.force
    weights[#weights + 1] = c.weight
    spreads[#spreads + 1] = 0.05 * math.sqrt(c.force[1] ^ 2 + c.force[2] ^ 2)
  end
  tactics = {
    tp.tactic { name = "cue_ball", body = "cue", skills = { stroke_skill(tp.choice(forces, weights, spreads)) } },
  }
  local in_pocket = {}
  for _, c in ipairs(candidates) do in_pocket[#in_pocket + 1] = pocketed(tb.name, c.pocket) end
  local pocketed_any = tp.any(in_pocket)
  -- forbidden balls
  local forbidden = {}
  if forbidden_spec == "stripes" or forbidden_spec == "others" then
    for _, b in ipairs(BALLS) do
      if not b.off and b.name ~= "cue" and b.name ~= tb.name and (forbidden_spec == "others" or b.stripe) then
        forbidden[#forbidden + 1] = b.name
      end
    end
  else
    for name in string.gmatch(forbidden_spec, "[^,%s]+") do
      local b = ball(name, "--set forbidden")
      if b.name == "cue" or b.name == tb.name then
        error("--set forbidden: '" .. name .. "' is the cue or the target ball")
      end
      forbidden[#forbidden + 1] = b.name
    end
  end
  local bad = {
    all_rest(),
    tp.inside { body = "cue", max = { math.huge, math.huge, -0.01 } },   -- no scratch
    tp.all { tp.moved { body = tb.name }, tp.slower { body = tb.name, speed = 0.02 },
             tp.negate(pocketed_any) },                                  -- came to rest
    tp.all { tp.moved { body = "cue" }, tp.slower { body = "cue", speed = 0.02 },
             tp.negate(tp.moved { body = tb.name }) },                   -- missed it
  }
  for _, name in ipairs(forbidden) do bad[#bad + 1] = tp.moved { body = name, tolerance = 0.001 } end
  goal = pocketed_any
  valid = tp.negate(tp.any(bad))
  metric = "steps"
end

return tp.domain {
  name = "pool",
  description = description,
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
  tactics = tactics,
  goal = goal,
  valid = valid,
  -- BK-RRT: every shot starts at the root (the only decision point), so y only drives selection
  sampling = { tp.uniform({ -IL, -IW }, { IL, IW }), distance = "euclidean", body = "cue" },
  solution_metric = metric,
  planner = { algorithm = "bgt", mu = 1000, max_iters = 100000, solutions = mode == "chain" and 3 or 1 },
}
