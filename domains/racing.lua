-- Racing (Adam 2007): a car driven by the Appendix A model rounds a 90 degree corner
-- among traffic. The drive_track skill replans at every clip boundary (finite-horizon A* over the
-- automatically built move tree: walls = the static boxes' edges, traffic = the other moving
-- bodies along their known paths) and plays the chosen clip's steering/throttle/brake through the
-- car model's tyre forces on the ODE body (the ground itself has no friction with the car).
--
--   road     12 m wide along +x for 60 m, then a left corner and up along +y; walls 1 m high
--   car      box 4 x 1.8 x 1.2 m, 1500 kg, from rest at (0, 0) heading +x
--   traffic  three slower cars (tactic-free foreign bodies): each keeps its lane along the road,
--            round the corner and up the leg, facing where it drives (tp.waypoints), and stops at
--            the road's end (its front 3 m short of y = 100, queued 6.5 m apart in its lane)
--   goal     the car's centre past y = 50 in the upward leg
--
-- The thesis's other scenarios come from the track files in domains/tracks/ (walls as segments,
-- traffic, start, goal, finish line; docs/navigation.md):
--   tplan plan racing --set track=straight        a long straight with cars
--   tplan plan racing --set track=cornered        the cornered track; cornered_cars: with cars
--   tplan plan racing --set track=sharp           the sharp-cornered track
--   tplan plan racing --set track=final           the final track with traffic
-- A file track is planned with BK-BGT (it declares no sampling space for BK-RRT); there drive_track
-- uses the to-go heuristic. It can also draw its horizon (--set hmin=4 --set hmax=5) and a lane
-- offset of its goal (--set lane=2) at every decision point, so that the search tree branches;
-- measured over seeds 1-5 that solved fewer tracks (sharp 4/5) than the fixed 4-clip horizon and no
-- offset, which solve all five on every seed -- so those are the defaults.
-- Traffic follows the road (ROADS: each track's centre line; a track file with cars needs one):
-- it keeps its lane round the corners, faces where it drives and stops queued at the road's end,
-- and drive_track predicts it along its known future poses. On cornered_cars and final the cars
-- turning the corners beside the car squeeze it at full speed (0 of 5 seeds solved), so there the
-- car's top speed is 12 m/s by default (--set top=M m/s, 0 = none; 5 of 5 solved; docs/domains.md).
local tp = require "tp"

local TRACK = tp.param("track", "builtin")
-- file tracks: the horizon is drawn from HMIN..HMAX clips, the lane offset from {-LANE, 0, LANE} m
local HMIN, HMAX, LANE_M = tp.param("hmin", 4, { min = 1, max = 16, integer = true }),
  tp.param("hmax", 4, { min = 1, max = 16, integer = true }), tp.param("lane", 0, { min = 0, max = 10 })
local hs = {}
for h = HMIN, HMAX do hs[#hs + 1] = h end
local HORIZON = tp.choice(hs)
local LANE = LANE_M > 0 and tp.choice({-LANE_M, 0, LANE_M}) or nil
-- the car's top speed (m/s, 0 = none): by default 12 m/s on the file tracks whose traffic turns
-- corners (cornered_cars, final), none elsewhere (see ROADS below and docs/domains.md)
local TOP_DEFAULT = { cornered_cars = 12, final = 12 }
local TOP_MS = tp.param("top", TOP_DEFAULT[TRACK] or 0, { min = 0, max = 100 })
local TOP = TOP_MS > 0 and TOP_MS or nil

local H, T = 1.0, 0.5
local function wall(name, x0, y0, x1, y1)
  return tp.box { name = name, class = "static", size = {x1 - x0, y1 - y0, H},
                  pos = {(x0 + x1) / 2, (y0 + y1) / 2, H / 2}, material = "wall", color = {0.6, 0.6, 0.6, 1} }
end

-- The road's centre line per track: its corners (a polyline from the start's back wall to the
-- road's open end) and the radius of the arc that rounds each inner corner (half the road width:
-- the arc's centre is the inner corner of the walls). Traffic keeps its lane (its signed offset
-- from this line at t = 0) along it and stops STOP_GAP before the end, queued by arrival in its
-- lane. Constant-velocity traffic (tp.linear) drove through the corner walls and off the open end.
-- `lanes` (offsets, m, left > 0): the cars join the nearest over their first leg instead. On final
-- two cars start 2 m apart and the faster passes the other in the second corner, where their boxes
-- (1.8 m wide) would overlap by 0.13 m; 3 m lanes keep them apart (elsewhere the passes happen on
-- straights, 0.2 m apart, and moving lanes there would change the builtin benchmark's traffic).
local ROADS = {
  builtin = { points = { {-5, 0}, {60, 0}, {60, 100} }, radius = 6 },
  cornered = { points = { {-5, 0}, {60, 0}, {60, 100} }, radius = 6 },
  cornered_cars = { points = { {-5, 0}, {60, 0}, {60, 100} }, radius = 6 },
  sharp = { points = { {-5, 0}, {150, 0}, {150, 100} }, radius = 4 },
  final = { points = { {-5, 0}, {80, 0}, {80, 60}, {200, 60} }, radius = 6, lanes = {-3, 0, 3} },
  straight = { points = { {-5, 0}, {420, 0} }, radius = 5 },
}
local CAR_LEN, STOP_GAP, QUEUE_GAP = 4, 3, 6.5 -- m: a car, its front to the road's end, car to car
local MAX_POINTS = 16                            -- tp.waypoints' limit

-- The centre line as pieces: straights {kind = "line", a, b, h} and corner arcs {kind = "arc", c
-- (centre), r, h0, h1} (heading in rad, continuous: a left turn adds, a right turn subtracts).
local function road_pieces(road)
  local P, R = road.points, road.radius
  local pieces, h = {}, math.atan(P[2][2] - P[1][2], P[2][1] - P[1][1])
  local from = P[1]
  for i = 2, #P do
    local ux, uy = P[i][1] - P[i - 1][1], P[i][2] - P[i - 1][2]
    local len = math.sqrt(ux * ux + uy * uy)
    ux, uy = ux / len, uy / len
    if i == #P then
      pieces[#pieces + 1] = { kind = "line", a = from, b = P[i], h = h }
    else
      local vx, vy = P[i + 1][1] - P[i][1], P[i + 1][2] - P[i][2]
      local vl = math.sqrt(vx * vx + vy * vy)
      vx, vy = vx / vl, vy / vl
      local turn = math.atan(ux * vy - uy * vx, ux * vx + uy * vy) -- signed, left > 0
      local t = R * math.tan(math.abs(turn) / 2)
      local t1 = { P[i][1] - ux * t, P[i][2] - uy * t }
      local side = turn > 0 and 1 or -1
      pieces[#pieces + 1] = { kind = "line", a = from, b = t1, h = h }
      pieces[#pieces + 1] = { kind = "arc", c = { t1[1] - side * uy * R, t1[2] + side * ux * R }, r = R,
                              h0 = h, h1 = h + turn, side = side }
      h = h + turn
      from = { P[i][1] + vx * t, P[i][2] + vy * t }
    end
  end
  return pieces
end

-- Stations of the centre line {s (m along it), x, y, h}: every straight's ends and `legs` chords
-- per arc.
local function road_stations(pieces, legs)
  local st, s = {}, 0
  local function add(x, y, h)
    local last = st[#st]
    if last then
      local d = math.sqrt((x - last.x) ^ 2 + (y - last.y) ^ 2)
      if d < 1e-9 then return end
      s = s + (last.arc and last.arc_step or d)
    end
    st[#st + 1] = { s = s, x = x, y = y, h = h }
  end
  for _, p in ipairs(pieces) do
    if p.kind == "line" then
      add(p.a[1], p.a[2], p.h)
      add(p.b[1], p.b[2], p.h)
    else
      for k = 0, legs do
        local h = p.h0 + (p.h1 - p.h0) * k / legs
        -- the point on the arc: from the centre, perpendicular to the heading, away from the turn
        add(p.c[1] + p.side * p.r * math.sin(h), p.c[2] - p.side * p.r * math.cos(h), h)
        st[#st].arc, st[#st].arc_step = true, p.r * math.abs(p.h1 - p.h0) / legs
      end
      st[#st].arc = nil
    end
  end
  return st
end

-- The car at (x, y) on the road: its distance s along the centre line, its lane offset d (left of
-- the direction of travel) and the heading of the straight it is on. Traffic starts on straights.
local function on_road(pieces, x, y)
  local best
  local s = 0
  for _, p in ipairs(pieces) do
    if p.kind == "line" then
      local ux, uy = math.cos(p.h), math.sin(p.h)
      local len = (p.b[1] - p.a[1]) * ux + (p.b[2] - p.a[2]) * uy
      local along = (x - p.a[1]) * ux + (y - p.a[2]) * uy
      local d = -(x - p.a[1]) * uy + (y - p.a[2]) * ux
      if along >= -1e-9 and along <= len + 1e-9 and (not best or math.abs(d) < math.abs(best.d)) then
        best = { s = s + along, d = d, h = p.h }
      end
      s = s + len
    else
      s = s + p.r * math.abs(p.h1 - p.h0)
    end
  end
  return best, s
end

-- Traffic: each car's tp.waypoints along its lane (offsets from its start, yaw relative to its
-- start heading: the yaw is interpolated linearly along a chord, so at mid-chord it is the
-- chord's direction), at its constant speed, stopping at its queue place at the road's end.
local function traffic_bodies(road, cars)
  local pieces = road_pieces(road)
  local arcs = 0
  for _, p in ipairs(pieces) do if p.kind == "arc" then arcs = arcs + 1 end end
  -- start, end, and each arc's legs + 1 stations within the 16 points
  local legs = arcs > 0 and math.min(8, (MAX_POINTS - 2) // arcs - 1) or 1
  local st = road_stations(pieces, legs)
  local total = st[#st].s
  local info = {}
  for i, c in ipairs(cars) do
    local at = on_road(pieces, c.pos[1], c.pos[2])
    if not at then error(("traffic car %d at (%g, %g) is not beside a straight of the road"):format(i, c.pos[1], c.pos[2])) end
    local speed = math.sqrt(c.vel[1] ^ 2 + c.vel[2] ^ 2)
    if speed <= 0 or c.vel[1] * math.cos(at.h) + c.vel[2] * math.sin(at.h) < 0.99 * speed then
      error(("traffic car %d: its velocity must point along the road"):format(i))
    end
    local d = road.lanes and road.lanes[1] or at.d
    for _, l in ipairs(road.lanes or {}) do
      if math.abs(l - at.d) < math.abs(d - at.d) then d = l end
    end
    info[i] = { car = c, s0 = at.s, d = d, h0 = at.h, speed = speed, lane = d,
                arrive = (total - at.s) / speed }
  end
  -- queue places: in each lane, the k-th car to reach the end stops k QUEUE_GAPs before it
  local order = {}
  for i = 1, #info do order[i] = i end
  table.sort(order, function(a, b)
    if info[a].arrive ~= info[b].arrive then return info[a].arrive < info[b].arrive end
    return a < b
  end)
  local queued = {}
  for _, i in ipairs(order) do
    local q = queued[info[i].lane] or 0
    info[i].s_end = total - CAR_LEN / 2 - STOP_GAP - q * QUEUE_GAP
    queued[info[i].lane] = q + 1
  end
  local bodies = {}
  for i, t in ipairs(info) do
    local c, d = t.car, t.d
    local x0, y0 = c.pos[1], c.pos[2]
    local yaw0 = c.heading or t.h0
    local function point(x, y, h)
      return { x - d * math.sin(h) - x0, y + d * math.cos(h) - y0, 0, h - yaw0 }
    end
    local pts = { {0, 0, 0, t.h0 - yaw0} }
    for k = 2, #st do
      local a, b = st[k - 1], st[k]
      if b.s > t.s0 + 1e-6 then
        if b.s >= t.s_end then
          -- the stop lies on this leg (the road's last straight): interpolate it
          local u = (t.s_end - a.s) / (b.s - a.s)
          if t.s_end > t.s0 + 1e-6 then
            pts[#pts + 1] = point(a.x + u * (b.x - a.x), a.y + u * (b.y - a.y), b.h)
          end
          break
        end
        pts[#pts + 1] = point(b.x, b.y, b.h)
      end
    end
    local motion
    if #pts < 2 then -- already at its queue place: parked
      motion = tp.linear { vel = {0, 0, 0} }
    else
      motion = tp.waypoints { points = pts, speed = t.speed, loop = "once" }
    end
    bodies[i] = tp.box { name = "traffic_" .. i, class = "foreign", size = {CAR_LEN, 1.8, 1.2}, pos = {x0, y0, 0.65},
                         yaw = yaw0, motion = motion, material = "wall", color = {0.8, 0.7, 0.2, 1} }
  end
  return bodies
end

-- 16 points along the road's centre line (the straight, the corner, the upward leg)
local road = {}
for k = 0, 7 do road[#road + 1] = {k * 8, 0} end
for k = 0, 7 do road[#road + 1] = {60, k * 8 + 6} end

local scene
if TRACK == "builtin" then
  scene = {
    bodies = {
      tp.plane { name = "road", normal = {0, 0, 1}, offset = 0, material = "road", color = {0.3, 0.3, 0.32, 1} },
      wall("outer_bottom", -5, -6 - T, 66 + T, -6),
      wall("outer_right", 66, -6, 66 + T, 100),
      wall("inner_bottom", -5, 6, 54, 6 + T),
      wall("inner_right", 54 - T, 6 + T, 54, 100),
      wall("back", -5 - T, -6 - T, -5, 6 + T),
      tp.box { name = "car", class = "active", size = {4, 1.8, 1.2}, mass = 1500, pos = {0, 0, 0.6},
               planar = true, material = "car", color = {0.8, 0.1, 0.1, 1} },
    },
    target = {60, 120},
    goal = tp.inside { body = "car", min = {54, 50, -1}, max = {66, 100, 5} },
    -- sampled on the road only (the inner corner is off the track: uniform samples there pull
    -- the nearest-node search back to the first straight)
    sampling = { tp.choice(road), body = "car" },
    quality = tp.distance { body = "car", to = {60, 60}, planar = true },
    speed = TOP,
  }
  local cars = { { pos = {30, 2}, vel = {4, 0}, heading = 0 }, { pos = {60, 30}, vel = {0, 3}, heading = math.pi / 2 },
                 { pos = {20, -3}, vel = {6, 0}, heading = 0 } }
  for _, b in ipairs(traffic_bodies(ROADS.builtin, cars)) do scene.bodies[#scene.bodies + 1] = b end
else
  local track = tp.nav.track(TRACK)
  local bodies = {
    tp.plane { name = "road", normal = {0, 0, 1}, offset = 0, material = "road", color = {0.3, 0.3, 0.32, 1} },
  }
  -- each wall segment becomes a static box T thick along it
  for i, w in ipairs(track.walls) do
    local dx, dy = w[3] - w[1], w[4] - w[2]
    local len = math.sqrt(dx * dx + dy * dy)
    bodies[#bodies + 1] = tp.box { name = "wall_" .. i, class = "static", size = {len + T, T, H},
                                   pos = {(w[1] + w[3]) / 2, (w[2] + w[4]) / 2, H / 2}, yaw = math.atan(dy, dx),
                                   material = "wall", color = {0.6, 0.6, 0.6, 1} }
  end
  local st = track.start
  bodies[#bodies + 1] = tp.box { name = "car", class = "active", size = {4, 1.8, 1.2}, mass = 1500,
                                 pos = {st[1], st[2], 0.6}, yaw = st[3], planar = true, material = "car",
                                 color = {0.8, 0.1, 0.1, 1} }
  if #track.cars > 0 then
    local road = ROADS[TRACK]
    if not road then
      error(("track '%s' has traffic but racing.lua has no centre line for it (add it to ROADS)"):format(TRACK))
    end
    for _, b in ipairs(traffic_bodies(road, track.cars)) do bodies[#bodies + 1] = b end
  end
  -- the goal: the car's centre in a band 3 m deep across the finish line (at 24 m/s the car
  -- moves 0.4 m per step, so it cannot jump over it)
  local f = track.finish
  local lo = {math.min(f[1], f[3]) - 1.5, math.min(f[2], f[4]) - 1.5, -1}
  local hi = {math.max(f[1], f[3]) + 1.5, math.max(f[2], f[4]) + 1.5, 5}
  scene = {
    bodies = bodies,
    target = track.goal,
    -- drive_track samples at every decision point (so the BK-BGT tree branches there): the A*
    -- horizon in clips and a lateral offset of the A* goal; its heuristic is the shortest path
    -- around the walls (the straight line leads into the outer wall of the S-curve's corners)
    togo = true, horizon = HORIZON, lane = LANE, speed = TOP,
    goal = tp.inside { body = "car", min = lo, max = hi },
    quality = tp.distance { body = "car", to = {(f[1] + f[3]) / 2, (f[2] + f[4]) / 2}, planar = true },
  }
end

return tp.domain {
  name = "racing",
  description = "a car (Adam 2007 Appendix A model) drives a cornered track among traffic with move-tree A*",
  dt = 1 / 60,
  gravity = {0, 0, -9.81},
  materials = {
    tp.material { name = "road", friction = 0.8 },
    tp.material { name = "wall", friction = 0.5, restitution = 0.2 },
    tp.material { name = "car", friction = 0.8 },
  },
  -- the tyre forces come from the car model, so the car slides on the road without friction
  contacts = { tp.contact { "road", "car", friction = 0.0 } },
  bodies = scene.bodies,
  tactics = {
    tp.tactic {
      name = "driver", body = "car", start = "drive",
      skills = { tp.skill.drive_track { name = "drive", point = scene.target, tolerance = 6, togo = scene.togo, lane = scene.lane, horizon = scene.horizon, speed = scene.speed } },
      transitions = { drive = { drive = 1 } },
    },
  },
  goal = scene.goal,
  sampling = scene.sampling,
  quality = scene.quality,
  solution_metric = "steps",
  -- file tracks branch at every decision point, so their trees need more iterations than one chain
  -- from straight above: the track and the line the car drives
  view = { yaw = -90, pitch = 89 },
  planner = { algorithm = "bgt", mu = 1000, max_iters = TRACK == "builtin" and 3000 or 30000 },
}
