-- Shots by rebound geometry on pool's table (domains/lib/pool_table.lua), shared by
-- domains/pool_kick.lua (the cue ball off a cushion) and domains/pool_bank.lua (the object ball
-- off a cushion): a three-ball rack, the rails, the rebound point that reaches a target off a rail,
-- the sampled stroke over candidate aims, and the table's materials as a tp.domain.
local tp = require "tp"
local T = require "pool_table"

local R, M, L, W, CORNER, SIDE, FRAME, FLOOR, IL, IW = T.R, T.M, T.L, T.W, T.CORNER, T.SIDE, T.FRAME, T.FLOOR,
  T.IL, T.IW
local DT = 1 / 60

-- The table with the balls of `base` ("name:x,y;..."), every other ball off, then `layout` over it
-- (pool's --set layout syntax): the bodies and the rack (balls by name).
local function table3(base, layout)
  for _, name in ipairs { "yellow", "blue", "purple", "black", "s9", "s10", "s11", "s12", "s13" } do
    if not string.find(base, name .. ":", 1, true) then base = base .. ";" .. name .. ":off" end
  end
  local rack = T.rack(base .. (layout ~= "" and ";" .. layout or ""))
  local bodies = T.table_bodies()
  for i, b in ipairs(rack.balls) do
    local pos = b.off and { -1.0 + 0.1 * i, W + FRAME + 0.3, FLOOR + R } or { b.pos[1], b.pos[2], R }
    bodies[#bodies + 1] = tp.sphere {
      name = b.name, class = b.name == "cue" and "active" or "passive", radius = R, mass = M, pos = pos,
      material = "ball", color = b.color, max_force = b.name == "cue" and 60 or nil,
    }
  end
  return bodies, rack
end

local seg_dist = T.seg_dist -- domains/lib/pool_table.lua
-- the middle of a pocket's mouth: between the cushion tips of a corner, at the cushion line of a
-- middle pocket (pool.lua's single mode aims there too)
local function mouth_of(p)
  local sy = p.at[2] > 0 and 1 or -1
  if p.at[1] == 0 then return { 0, sy * IW } end
  local sx = p.at[1] > 0 and 1 or -1
  return { sx * (L - (CORNER + T.CW) / 2), sy * (W - (CORNER + T.CW) / 2) }
end
-- the rails: the coordinate k (1 = x, 2 = y) of a ball centre's line at a rebound, its side
-- (-1, 1), its cushions, and whether the other coordinate u of a rebound point is on a cushion
local function on_long(u) return math.abs(u) >= SIDE + 0.02 and math.abs(u) <= L - CORNER - 0.02 end
local function on_short(u) return math.abs(u) <= W - CORNER - 0.02 end
local RAILS = {
  { name = "south", k = 2, side = -1, at = -(IW - R), on = on_long, cushions = { "cushion_sw", "cushion_se" } },
  { name = "north", k = 2, side = 1, at = IW - R, on = on_long, cushions = { "cushion_nw", "cushion_ne" } },
  { name = "west", k = 1, side = -1, at = -(IL - R), on = on_short, cushions = { "cushion_w" } },
  { name = "east", k = 1, side = 1, at = IL - R, on = on_short, cushions = { "cushion_e" } },
}
-- whether a rail is one of pocket p's own sides (a ball off it into p is a rail shot or a rim-in,
-- no bank)
local function rail_of_pocket(rail, p)
  local c = p.at[rail.k]
  return c ~= 0 and (c > 0 and 1 or -1) == rail.side
end
-- the point B on a rail from which a ball rolling from A, rebounding, reaches G: along the rail's
-- normal the speed turns and shrinks by `rebound`, along it it stays, so B splits the way in the
-- ratio rebound * (A's distance to the rail) : (G's distance to it). nil when A or G is beyond the
-- rail's line or B is not on a cushion.
local function rebound_point(rail, A, G, rebound)
  local k, j = rail.k, 3 - rail.k
  if (rail.at - A[k]) * (rail.at - G[k]) <= 0 then return nil end
  local a, b = rebound * math.abs(rail.at - A[k]), math.abs(G[k] - rail.at)
  local u = (a * G[j] + b * A[j]) / (a + b)
  local B = {}
  B[k], B[j] = rail.at, u
  return rail.on(u) and B or nil
end
local function dist(a, b) return math.sqrt((a[1] - b[1]) ^ 2 + (a[2] - b[2]) ^ 2) end
-- the cut angle (rad) between the cue ball's way in (from -> G) and the object ball's way out (G -> to)
local function cut_angle(from, G, to)
  local ix, iy, ox, oy = G[1] - from[1], G[2] - from[2], to[1] - G[1], to[2] - G[2]
  return math.acos(math.max(-1, math.min(1, (ix * ox + iy * oy) / (math.sqrt(ix * ix + iy * iy) * math.sqrt(ox * ox + oy * oy)))))
end
-- the ghost-ball point: where the cue ball's centre is when it sends the ball at `ball` toward `to`
local function ghost(ball, to)
  local d = dist(ball, to)
  return { ball[1] - 2 * R * (to[1] - ball[1]) / d, ball[2] - 2 * R * (to[2] - ball[2]) / d }
end

-- The stroke over candidates {ang = rad, v = m/s, weight}: pick one by weight, then the force
-- within a disc of tan(spread) of its length (direction within `spread` degrees); follow = true
-- keeps the skill busy until every ball rests (one shot, one segment).
local function stroke(candidates, spread)
  local forces, weights, spreads = {}, {}, {}
  for _, c in ipairs(candidates) do
    local f = M * c.v / DT
    forces[#forces + 1] = { f * math.cos(c.ang), f * math.sin(c.ang) }
    weights[#weights + 1] = c.weight
    spreads[#spreads + 1] = f * math.tan(math.rad(spread))
  end
  return tp.skill.impulse { name = "stroke", force = tp.choice(forces, weights, spreads), follow = true,
                            trigger_speed = 0.02, timeout = 20 }
end

-- The goal and valid condition of a shot for --set order (o: shot = the ordered goal, a sequence;
-- plain = the goal without order; bad = the dead ends of both; ordered_bad, plain_bad = more dead
-- ends of either; ordered_valid = conditions the ordered shot's valid condition also asks for,
-- e.g. a tp.never). "sequence": the
-- shot; "none": what a script without memory can say; "watch": "none" with the shot observed in
-- the valid condition, refusing nothing (tp.any { shot, tp.negate(shot) }), for the plan's
-- "temporal" member to say whether the solution was the shot.
local function orders(order, o)
  local bad = {}
  for _, c in ipairs(o.bad) do bad[#bad + 1] = c end
  for _, c in ipairs(order == "sequence" and o.ordered_bad or o.plain_bad or {}) do bad[#bad + 1] = c end
  local valid = tp.negate(tp.any(bad))
  if order == "sequence" then
    if o.ordered_valid then
      local all = {}
      for _, c in ipairs(o.ordered_valid) do all[#all + 1] = c end
      all[#all + 1] = valid
      valid = tp.all(all)
    end
    return o.shot, valid
  end
  if order == "watch" then valid = tp.all { valid, tp.any { o.shot, tp.negate(o.shot) } } end
  return o.plain, valid
end

-- tp.domain with pool's materials, contacts, camera and sampling space, and the fields of d
local function domain(d)
  d.dt = DT
  d.max_contacts = 4
  d.materials = {
    tp.material { name = "cloth", friction = 0.2, restitution = 0.0, rolling_friction = 0.0005 },
    tp.material { name = "ball", friction = 0.01, restitution = 0.95 },
    tp.material { name = "cushion", friction = 0.15, restitution = 0.8 },
    tp.material { name = "frame", friction = 0.3, restitution = 0.2 },
    tp.material { name = "floor", friction = 0.5, restitution = 0.1, rolling_friction = 0.01 },
  }
  d.contacts = {
    tp.contact { "ball", "cloth", friction = 0.2, restitution = 0.1, rolling_friction = 0.0005 },
    tp.contact { "ball", "cushion", friction = 0.15, restitution = 0.8 },
    tp.contact { "ball", "frame", friction = 0.3, restitution = 0.2 },
    tp.contact { "ball", "floor", friction = 0.5, restitution = 0.1, rolling_friction = 0.01 },
  }
  d.sampling = { tp.uniform({ -IL, -IW }, { IL, IW }), distance = "euclidean", body = "cue" }
  d.solution_metric = "steps"
  d.view = { yaw = -90, pitch = 75, target = { 0, 0, 0 } }
  d.planner = { algorithm = "bgt", mu = 1000, max_iters = 100000, solutions = 1 }
  return tp.domain(d)
end

return {
  table3 = table3, seg_dist = seg_dist, mouth_of = mouth_of, RAILS = RAILS, rail_of_pocket = rail_of_pocket,
  rebound_point = rebound_point, dist = dist, cut_angle = cut_angle, ghost = ghost, stroke = stroke,
  orders = orders, domain = domain,
}
