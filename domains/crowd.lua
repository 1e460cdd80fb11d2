-- Crowd (Dapper 2007): a robot crosses a park with several exits among a crowd of
-- pedestrians. Every pedestrian is a tactic-driven foreign body whose follow_field skill descends
-- the harmonic map of its current goal and, every step, a 15 x 15 local map in which every other
-- moving body near it (the robot included) is an obstacle. The robot plans with follow_field too.
--
--   park     plane z = 0, x in [0, 30], y in [0, 20], walls 1 m high with four 3 m exits (the
--            middle of each side), eight kiosks
--   walkers  --set pedestrians=N (default 120) cylinders r 0.25, 60 kg, placed on a fixed
--            low-discrepancy sequence (no randomness: the tactics are deterministic predictions),
--            with four behaviours in turn:
--              commuter  crosses the park from one exit to the opposite one (1.2-1.5 m/s)
--              visitor   walks to a kiosk, stays there 3 s, then leaves by an exit (a goal queue)
--              jogger    runs a loop around the park's four corners (2.2 m/s), forever
--              idler     stands (waits) 4-12 s, then strolls (0.6 m/s) to an exit
--   robot    cylinder r 0.3, 30 kg, starts at (1.5, 10) inside the west exit; goal: within 0.8
--            of (27.5, 15.5), slower than 0.3 m/s; grid cells 0.5 m (15 x 15 local maps of 7.5 m)
local tp = require "tp"

local N = tp.param("pedestrians", 120, { min = 1, max = 10000, integer = true })
if N < 0 or N > 400 or N % 1 ~= 0 then
  error("--set pedestrians=" .. tostring(N) .. ": expected an integer in 0..400")
end
local W, H, T, WH, EXIT = 30.0, 20.0, 0.2, 1.0, 3.0
local GOAL = {27.5, 15.5}
local wall_color = {0.5, 0.45, 0.4, 1}
local kiosk_color = {0.8, 0.6, 0.2, 1}

local function box(name, x0, y0, x1, y1, color)
  return tp.box { name = name, class = "static", size = {x1 - x0, y1 - y0, WH},
                  pos = {(x0 + x1) / 2, (y0 + y1) / 2, WH / 2}, material = "wall", color = color or wall_color }
end

local bodies = {
  tp.plane { name = "ground", normal = {0, 0, 1}, offset = 0, material = "ground", color = {0.35, 0.6, 0.3, 1} },
  -- the outer wall, each side split by an exit in its middle
  box("wall_s1", -T, -T, W / 2 - EXIT / 2, 0), box("wall_s2", W / 2 + EXIT / 2, -T, W + T, 0),
  box("wall_n1", -T, H, W / 2 - EXIT / 2, H + T), box("wall_n2", W / 2 + EXIT / 2, H, W + T, H + T),
  box("wall_w1", -T, 0, 0, H / 2 - EXIT / 2), box("wall_w2", -T, H / 2 + EXIT / 2, 0, H),
  box("wall_e1", W, 0, W + T, H / 2 - EXIT / 2), box("wall_e2", W, H / 2 + EXIT / 2, W + T, H),
  tp.cylinder { name = "robot", class = "active", radius = 0.3, length = 0.6, mass = 30, pos = {1.5, 10, 0.3},
                max_force = 200, max_torque = 20, planar = true, material = "agent", color = {0.2, 0.3, 0.8, 1} },
}
local kiosks = {
  {5, 4, 6.5, 5.5}, {5, 14.5, 6.5, 16}, {11, 8, 12, 12}, {14, 3, 16, 4}, {14, 16, 16, 17},
  {18, 8, 19, 12}, {23.5, 4, 25, 5.5}, {23.5, 14.5, 25, 16},
}
for k, q in ipairs(kiosks) do bodies[#bodies + 1] = box("kiosk_" .. k, q[1], q[2], q[3], q[4], kiosk_color) end

-- the exits (their mouths inside the park) and the spot in front of each kiosk
local exits = { {W / 2, 0.8}, {W - 0.8, H / 2}, {W / 2, H - 0.8}, {0.8, H / 2} }
local fronts = {}
for k, q in ipairs(kiosks) do fronts[k] = { (q[1] + q[3]) / 2, q[2] - 0.6 } end
local corners = { {3, 2.5}, {27, 2.5}, {27, 17.5}, {3, 17.5} }

-- fixed low-discrepancy start positions (R2 sequence), kept off the kiosks and the robot's start
local function free(x, y)
  if (x - 1.5) ^ 2 + (y - 10) ^ 2 < 9 then return false end
  for _, q in ipairs(kiosks) do
    if x > q[1] - 0.6 and x < q[3] + 0.6 and y > q[2] - 0.6 and y < q[4] + 0.6 then return false end
  end
  return true
end
local starts, u = {}, 0
while #starts < N do
  u = u + 1
  local x = 1.0 + (W - 2.0) * ((0.5 + u * 0.7548776662466927) % 1)
  local y = 1.0 + (H - 2.0) * ((0.5 + u * 0.5698402909980532) % 1)
  local ok = free(x, y)
  for _, p in ipairs(starts) do
    if ok and (p[1] - x) ^ 2 + (p[2] - y) ^ 2 < 0.81 then ok = false end
  end
  if ok then starts[#starts + 1] = {x, y} end
end

local function near(s, name, p, r)
  local x, y = s:pos(name)
  return (x - p[1]) ^ 2 + (y - p[2]) ^ 2 < r * r
end
local function walk(name, point, speed, extra)
  local sk = { name = name, point = point, max_speed = speed, nav_cell = 0.5, tolerance = 0.3, timeout = 60 }
  for k, v in pairs(extra or {}) do sk[k] = v end
  return tp.skill.follow_field(sk)
end

local tactics = {}
local kinds = { "commuter", "visitor", "jogger", "idler" }
for k = 1, N do
  local name = "walker_" .. k
  local kind = kinds[(k - 1) % 4 + 1]
  local p = starts[k]
  bodies[#bodies + 1] = tp.cylinder { name = name, class = "foreign", radius = 0.25, length = 0.8, mass = 60,
                                      pos = {p[1], p[2], 0.4}, max_force = 300, max_torque = 30, planar = true,
                                      material = "agent", color = {0.8, 0.3 + 0.1 * ((k - 1) % 4), 0.3, 1} }
  local tac
  if kind == "commuter" then
    -- the exit farthest from the start
    local best, bd = 1, -1
    for e, q in ipairs(exits) do
      local d = (q[1] - p[1]) ^ 2 + (q[2] - p[2]) ^ 2
      if d > bd then best, bd = e, d end
    end
    tac = { start = "go", skills = { walk("go", exits[best], 1.2 + 0.1 * (k % 4)) },
            transitions = { go = { go = 1 } } }
  elseif kind == "visitor" then
    local kiosk = fronts[(k // 4) % #fronts + 1]
    local exit = exits[(k // 3) % #exits + 1]
    tac = { start = "shop",
            skills = { walk("shop", kiosk, 1.0), tp.skill.wait { name = "stay", duration = 3 },
                       walk("leave", exit, 1.0) },
            transitions = {
              shop = function(s) return near(s, name, kiosk, 0.6) and { stay = 1 } or { shop = 1 } end,
              stay = { leave = 1 },
              leave = { leave = 1 },
            } }
  elseif kind == "jogger" then
    -- the loop of corners, starting with the nearest one
    local c0, bd = 1, math.huge
    for c, q in ipairs(corners) do
      local d = (q[1] - p[1]) ^ 2 + (q[2] - p[2]) ^ 2
      if d < bd then c0, bd = c, d end
    end
    local skills, transitions = {}, {}
    for j = 1, 4 do
      local c = corners[(c0 + j - 2) % 4 + 1]
      local this, nxt = "leg" .. j, "leg" .. (j % 4 + 1)
      skills[j] = walk(this, c, 2.2, { tolerance = 0.8 })
      transitions[this] = function(s) return near(s, name, c, 1.0) and { [nxt] = 1 } or { [this] = 1 } end
    end
    tac = { start = "leg1", skills = skills, transitions = transitions }
  else -- idler
    tac = { start = "stand",
            skills = { tp.skill.wait { name = "stand", duration = 4 + (k % 9) },
                       walk("stroll", exits[(k // 4) % #exits + 1], 0.6) },
            transitions = { stand = { stroll = 1 }, stroll = { stroll = 1 } } }
  end
  tac.name, tac.body, tac.foreign = name, name, true
  tactics[#tactics + 1] = tp.tactic(tac)
end
local waypoints = {}
for i = 1, 4 do
  for j = 1, 3 do waypoints[#waypoints + 1] = { 3 + (i - 1) * 8, 3.5 + (j - 1) * 6.5 } end
end
tactics[#tactics + 1] = tp.tactic {
  name = "robot", body = "robot", start = "go",
  skills = {
    -- to one of a fixed set of waypoints (each goal costs one harmonic map; the maps are cached)
    tp.skill.follow_field { name = "go", point = tp.choice(waypoints), max_speed = 1.5,
                            nav_cell = 0.5, tolerance = 0.3, timeout = 8 },
    tp.skill.follow_field { name = "finish", point = GOAL, max_speed = 1.5, nav_cell = 0.5, tolerance = 0.3,
                            timeout = 25 },
    tp.skill.wait { name = "wait", body = "robot", duration = tp.uniform(0.5, 2) },
  },
  transitions = {
    go = { go = 0.3, finish = 0.5, wait = 0.2 },
    finish = { go = 0.4, finish = 0.4, wait = 0.2 },
    wait = { go = 0.5, finish = 0.5 },
  },
}

return tp.domain {
  name = "crowd",
  description = "a robot crosses a park with four exits among " .. N ..
                " pedestrians driven by harmonic potential fields (Dapper 2007)",
  dt = 1 / 30,
  -- Penetration limits: 0.25 m, not the default 5 mm (docs/physics.md). The pedestrians are
  -- driven by potential-field forces that do not yield: pressed against the walls and into each
  -- other by the crowd behind them they overlap by up to about 0.2 m (measured, seed 1: walkers
  -- 15-17 cm into each other; with a 5 mm limit 625 of 20,000 states are refused, the first at
  -- t = 1 s, and the plan is lost). The crowd is the Dapper potential-field demonstration, not a
  -- contact study, so its limits say what the field model does rather than paying for it.
  max_static_penetration = 0.25,
  max_body_penetration = 0.25,
  gravity = {0, 0, -9.81},
  materials = {
    tp.material { name = "ground", friction = 0.3 },
    tp.material { name = "wall", friction = 0.3, restitution = 0.1 },
    tp.material { name = "agent", friction = 0.1 },
  },
  bodies = bodies,
  tactics = tactics,
  goal = tp.all { tp.within { body = "robot", center = GOAL, radius = 0.8 }, tp.slower { body = "robot", speed = 0.3 } },
  sampling = { tp.uniform({0, 0}, {W, H}), body = "robot" },
  quality = tp.distance { body = "robot", to = GOAL, planar = true },
  solution_metric = "steps",
  -- from straight above: the pedestrians' lanes and the robot's way through them
  view = { yaw = -90, pitch = 89 },
  planner = { algorithm = "bgt", mu = 1000, max_iters = 20000 },
}
