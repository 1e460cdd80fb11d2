-- Navigation (Kuffner 1998): several characters move through a maze or an office, each
-- driven by its own tactic with the follow_path skill (grid A* around the static walls AND the
-- other moving bodies at their current poses, replanned at least every second), among a moving
-- obstacle (a cart shuttling on a fixed motion) and with goal changes:
--
--   robot     the planned character (active): go to a sampled spot or to the goal region, or
--             wait; it must never come closer than 0.32 m (centres) to another character
--   courier   a foreign character with a goal queue: to its first goal, then (once within 0.4 m
--             of it) to its second goal
--   escort    a foreign character whose goal moves: it follows the cart (frame "target"), its
--             goal re-read at each replanning
--   cart      a foreign box on a fixed motion (tp.oscillate): everyone plans around it
--
-- --set layout=maze   (default) an 8 x 6 m room with three staggered partitions (1.5 m gaps)
-- --set layout=office a 2 m corridor along the middle of an 8 x 6 m floor with three rooms on each
--                     side, each reached through a 0.9 m door
--
--   floor    plane z = 0, walls 0.5 high, 0.1 thick
--   robot    cylinder r 0.15, height 0.4, 8 kg; planar force <= 40 N
--   goal     robot centre within 0.3 of GOAL, speed < 0.2 m/s
local tp = require "tp"
local walls = require "walls" -- domains/lib/walls.lua

local layout = tp.param("layout", "maze")
local W, H, T, WH = 8.0, 6.0, 0.1, 0.5
local wall = walls.maker { height = WH, material = "wall", color = {0.6, 0.6, 0.65, 1} }

local bodies = {
  tp.plane { name = "floor", normal = {0, 0, 1}, offset = 0, material = "floor", color = {0.8, 0.78, 0.7, 1} },
}
for _, w in ipairs(walls.room(wall, W, H, T)) do bodies[#bodies + 1] = w end
local L -- the layout's places
if layout == "maze" then
  -- partitions at x = 2 (gap at the top), 4 (gap at the bottom), 6 (gap at the top), gaps 1.5 m
  bodies[#bodies + 1] = wall("part_1", 2 - T / 2, 0, 2 + T / 2, H - 1.5)
  bodies[#bodies + 1] = wall("part_2", 4 - T / 2, 1.5, 4 + T / 2, H)
  bodies[#bodies + 1] = wall("part_3", 6 - T / 2, 0, 6 + T / 2, H - 1.5)
  L = {
    start = {0.6, 0.6}, goal = {7.4, 0.6},
    -- the cart shuttles up and down the third bay, across the robot's way
    cart = {5, 3}, cart_amp = {0, 2.2, 0}, cart_period = 9,
    courier = {7.4, 5.4}, courier_goals = {{0.6, 5.4}, {3.0, 0.6}},
    escort = {5.0, 5.5},
  }
elseif layout == "office" then
  -- corridor y in [2.0, 4.0]; rooms below and above split at x = 8/3 and 16/3; doors 0.9 m
  local y0, y1, D = 2.0, 4.0, 0.9
  local xs = {0, W / 3, 2 * W / 3, W}
  for r = 1, 3 do
    local a, b = xs[r], xs[r + 1]
    local c = (a + b) / 2
    bodies[#bodies + 1] = wall("south_" .. r .. "a", a, y0 - T, c - D / 2, y0)
    bodies[#bodies + 1] = wall("south_" .. r .. "b", c + D / 2, y0 - T, b, y0)
    bodies[#bodies + 1] = wall("north_" .. r .. "a", a, y1, c - D / 2, y1 + T)
    bodies[#bodies + 1] = wall("north_" .. r .. "b", c + D / 2, y1, b, y1 + T)
  end
  for r = 2, 3 do
    bodies[#bodies + 1] = wall("split_s" .. r, xs[r] - T / 2, 0, xs[r] + T / 2, y0 - T)
    bodies[#bodies + 1] = wall("split_n" .. r, xs[r] - T / 2, y1 + T, xs[r] + T / 2, H)
  end
  L = {
    start = {0.7, 0.7}, goal = {7.3, 5.3},
    -- the cart shuttles along the corridor
    cart = {4, 3}, cart_amp = {2.4, 0, 0}, cart_period = 12,
    courier = {1.3, 5.2}, courier_goals = {{6.7, 0.8}, {4.0, 5.2}},
    escort = {4.0, 1.0},
  }
else
  error("--set layout=" .. tostring(layout) .. ": expected maze or office")
end

local function character(name, pos, color, class)
  return tp.cylinder { name = name, class = class or "foreign", radius = 0.15, length = 0.4, mass = 8,
                       pos = {pos[1], pos[2], 0.2}, max_force = 40, max_torque = 4, planar = true,
                       material = "robot", color = color }
end
bodies[#bodies + 1] = character("robot", L.start, {0.2, 0.3, 0.8, 1}, "active")
bodies[#bodies + 1] = character("courier", L.courier, {0.8, 0.4, 0.2, 1})
bodies[#bodies + 1] = character("escort", L.escort, {0.3, 0.7, 0.3, 1})
bodies[#bodies + 1] = tp.box { name = "cart", class = "foreign", size = {0.4, 0.4, 0.3},
                               pos = {L.cart[1], L.cart[2], 0.15},
                               motion = tp.oscillate { amplitude = L.cart_amp, period = L.cart_period },
                               material = "wall", color = {0.7, 0.2, 0.6, 1} }

local function path(name, point, extra)
  local s = { name = name, point = point, max_speed = 1.2, nav_cell = 0.1, tolerance = 0.05, nav_replan = 1.0 }
  for k, v in pairs(extra or {}) do s[k] = v end
  return tp.skill.follow_path(s)
end

local G1, G2 = L.courier_goals[1], L.courier_goals[2]
local tactics = {
  tp.tactic {
    name = "walker", body = "robot", start = "go",
    skills = {
      -- go to a sampled spot anywhere (the RRT sample steers BK-RRT) ... or to the goal region
      path("go", tp.uniform({0.3, 0.3}, {W - 0.3, H - 0.3})),
      path("finish", tp.disc(L.goal, 0, 0.15)),
      -- ... or stand still and let the others pass
      tp.skill.wait { name = "yield", duration = tp.uniform(0.3, 1.5) },
    },
    transitions = {
      go = { go = 0.4, finish = 0.4, yield = 0.2 },
      finish = { go = 0.1, finish = 0.8, yield = 0.1 },
      yield = { go = 0.5, finish = 0.5 },
    },
  },
  -- goal change: the first goal until within 0.4 m of it, then the second for good
  tp.tactic {
    name = "courier", body = "courier", foreign = true, start = "first",
    skills = { path("first", G1, { max_speed = 0.8 }), path("second", G2, { max_speed = 0.8 }) },
    transitions = {
      first = function(s)
        local x, y = s:pos("courier")
        if (x - G1[1]) ^ 2 + (y - G1[2]) ^ 2 < 0.16 then return { second = 1 } end
        return { first = 1 }
      end,
      second = { second = 1 },
    },
  },
  -- a moving goal: 0.6 m south of the cart's current position, re-read at every replanning
  tp.tactic {
    name = "escort", body = "escort", foreign = true, start = "follow",
    skills = { path("follow", {0, -0.6}, { target = "cart", frame = "target", max_speed = 0.8, tolerance = 0.1 }) },
    transitions = { follow = { follow = 1 } },
  },
}

return tp.domain {
  name = "navigation",
  description = "characters navigate a " .. layout .. " around each other and a moving cart (follow_path: grid A* with replanning)",
  dt = 1 / 30,
  gravity = {0, 0, -9.81},
  materials = {
    tp.material { name = "floor", friction = 0.3 },
    tp.material { name = "wall", friction = 0.3, restitution = 0.1 },
    tp.material { name = "robot", friction = 0.05 },
  },
  bodies = bodies,
  tactics = tactics,
  goal = tp.all {
    tp.within { body = "robot", center = L.goal, radius = 0.3 },
    tp.slower { body = "robot", speed = 0.2 },
  },
  -- the planned robot must never touch another character or the cart (the foreign characters
  -- only replan around it; a plan where they meet head-on in a door is rejected)
  valid = tp.all {
    tp.inside { body = "robot", min = {0, 0, -1}, max = {W, H, 1} },
    tp.negate(tp.touching { body = "robot", other = "courier" }),
    tp.negate(tp.touching { body = "robot", other = "escort" }),
    tp.negate(tp.touching { body = "robot", other = "cart" }),
  },
  sampling = { tp.uniform({0, 0}, {W, H}), body = "robot" },
  quality = tp.distance { body = "robot", to = L.goal, planar = true },
  solution_metric = "steps",
  -- from straight above: the rooms, the characters' paths and the cart
  view = { yaw = -90, pitch = 89 },
  planner = { algorithm = "bgt", mu = 1000, max_iters = 60000 },
}
