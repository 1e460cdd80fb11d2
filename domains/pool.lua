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
--     toward a sampled point within 1 cm of its ideal contact point (the ghost-ball point): a
--     sampled perturbation of its natural path. Among several solutions (planner.solutions) the
--     plan with the least perturbation wins: solution_metric = tp.effort of blue and yellow.
--     Measured over seeds 1-60 (BK-BGT, 3 solutions, docs/domains.md): median 1,495 nodes and a
--     mean selected perturbation of 0.0029 N s; within 2 cm (until the contact audit's physics
--     ran balls true) 2,976 nodes and 0.0037 N s; with no spin at all 2,968 nodes.
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
local T = require "pool_table"  -- domains/lib/pool_table.lua: the table, its pockets and the rack

local R, M, L, W, CW, CORNER, FRAME, FLOOR, IL, IW, seg_dist = T.R, T.M, T.L, T.W, T.CW, T.CORNER, T.FRAME,
  T.FLOOR, T.IL, T.IW, T.seg_dist

local mode = tp.param("mode", "chain", { choices = { "chain", "single" } })
local layout = tp.param("layout", "")
local target_name = tp.param("target", "red", { choices = { "yellow", "blue", "red", "purple", "black", "s9", "s10", "s11", "s12", "s13" } })
local pocket_name = tp.param("pocket", "", { choices = { "", "ne", "nw", "se", "sw", "n", "s" } })
local forbidden_spec = tp.param("forbidden", "stripes")  -- also a list of names: no fixed choices
local speed_param = tp.param("speed", 0.0, { min = 0, max = 100 })
local prune = tp.param("prune", true)
if mode ~= "chain" and mode ~= "single" then
  error("--set mode=" .. mode .. ": expected chain or single")
end
if mode == "chain" and (target_name ~= "red" or pocket_name ~= "" or forbidden_spec ~= "stripes" or speed_param ~= 0) then
  error("--set target/pocket/forbidden/speed are for --set mode=single")
end
if mode == "single" and not prune then error("--set prune is for --set mode=chain") end

local POCKETS, pocket_by_name, pocketed = T.POCKETS, T.pocket_by_name, T.pocketed
local rack = T.rack(layout)  -- the balls, with --set layout applied and checked
local BALLS, by_name, ball = rack.balls, rack.by_name, rack.ball
local BLUE0, YELLOW0, PURPLE0, RED0 = rack.blue0, rack.yellow0, rack.purple0, rack.red0
local BLUE_GHOST, YELLOW_GHOST = rack.blue_ghost, rack.yellow_ghost
local bodies = T.table_bodies()
local CUSHIONS, away_from = T.CUSHIONS, T.away_from


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

local function any_touch(body, others) return tp.touching { body = body, others = others } end

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
local function stroke_skill(force, direction)
  return tp.skill.impulse { name = "stroke", force = force, direction = direction, follow = true,
                            trigger_speed = 0.02, timeout = 20 }
end
-- a shot that ends with every ball at rest and no goal is a dead end
local function all_rest()
  local names = {}
  for _, b in ipairs(BALLS) do names[#names + 1] = b.name end
  return tp.settled { bodies = names, speed = 0.02 }
end

-- ---------------------------------------------------------------------------------------------
local tactics, goal, valid, metric, description

if mode == "chain" then
  description = "cue ball -> blue/yellow -> purple/red into the east corner pockets, stripes untouched (paper Sec. 6.3, Figs. 9-10)"
  local ne, se = pocket_by_name("ne"), pocket_by_name("se")
  local cue = by_name.cue.pos
  local aim = { (BLUE0[1] + YELLOW0[1]) / 2 - cue[1], (BLUE0[2] + YELLOW0[2]) / 2 - cue[2] }
  local F = stroke(2.4, aim[1], aim[2])
  local AIM_SPREAD = math.rad(0.05)
  local Fn = math.sqrt(F[1] ^ 2 + F[2] ^ 2)
  -- the 'sampled spin' of an intermediate ball: after it is hit, bend its path (aim: pure
  -- pursuit, a sideways force of at most a sampled 0-0.1 N for a sampled 0.05-0.3 s) toward a
  -- sampled point within 1 cm of its ghost-ball point
  local function spin(ghost)
    return tp.skill.spin { name = "spin", aim = true, point = tp.disc(ghost, 0, 0.01), force = tp.uniform(0, 0.1),
                           duration = tp.uniform(0.05, 0.3), trigger_speed = 0.02, timeout = 20, follow = true }
  end
  tactics = {
    -- red tactic of Fig. 10: the cue ball samples the stroke (speed and direction) and rolls on
    -- (the stroke's strength within 1 % and its direction within 0.05 degrees of the natural shot's: the
    -- layout is that sensitive, each 0.1 degree turns purple by about 1 degree; a disc of 1 % of F
    -- in any direction, as before the friction cone, spreads the direction over +-0.57 degrees,
    -- which the old friction rule bent back toward the x axis, and then needed 4 times the shots)
    tp.tactic { name = "cue_ball", body = "cue",
                skills = { stroke_skill(tp.uniform(0.99 * Fn, 1.01 * Fn),
                                        tp.angle(math.atan(F[2], F[1]) - AIM_SPREAD, math.atan(F[2], F[1]) + AIM_SPREAD)) } },
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
  fallback = "rest", -- an animation shot: an approximate plan ends at rest and landed (docs/lua-api.md#fallbacks)
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
  -- from above the table, a little from the south side: the pockets and the balls' lines
  view = { yaw = -90, pitch = 75, target = { 0, 0, 0 } },
  planner = { algorithm = "bgt", mu = 1000, max_iters = 100000, solutions = mode == "chain" and 3 or 1 },
}
