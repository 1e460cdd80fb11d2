-- Curling hit-and-stay: our stone, delivered at the hog line, slides down the ice,
-- hits the opponent's stone out of the house and stays in the house itself. One throw
-- (tp.skill.throw: one release step, then no force at all: no sweeping, no curl) is the whole
-- shot; everything after the release is physics. Metres, kilograms, seconds, z up.
--
--   sheet    a plane of ice (stone on ice: friction 0.0168, a stone slides 6.4 m from 1.45 m/s),
--            4.75 m wide between two side boards, a back board 3.6 m behind the tee
--   house    the target circles, radius 1.83 m about the tee at (6.4, 0) (markers: drawn, never hit)
--   stones   granite cylinders, radius 0.145 m, 0.114 m high, 19.1 kg, restitution 0.85 between
--            stones. Ours at the hog line (0, 0); the opponent's in the house at (`target_x`,
--            `target_y`) from the tee
--   throw    speed 1.5-3.5 m/s along a heading within 0.3 rad of the sheet's axis, no spin
--   goal     the opponent's stone out of the house (no part of it over the house: its centre more
--            than 1.83 + 0.145 m from the tee), ours in it (some part over the house), our stone
--            touched theirs, every stone at rest (1 cm/s)
--   valid    our stone touching a board (out of play in curling) or past the back line is a dead
--            end; so is a shot still moving after 40 s
--   planner  BK-BGT (mu 1000); the approximate answer is the shot that leaves ours closest to the
--            tee with theirs farthest out
--
-- tplan plan curling                          the shot (the figure: 10 seeds, docs/domains.md)
-- tplan plan curling --set target_y=0         the opponent's stone on the centre line
local tp = require "tp"

local TX = tp.param("target_x", -0.3, { min = -1.5, max = 1.5 }) -- m, their stone from the tee (along)
local TY = tp.param("target_y", 0.5, { min = -1.5, max = 1.5 })  -- m, across

local TEE = { 6.4, 0 }          -- m, the house's centre (21 ft from the hog line)
local HOUSE = 1.83              -- m, the house's radius (the 12-foot circle)
local R, H, M = 0.145, 0.114, 19.1 -- stone radius, height (m), mass (kg)
local HALF_W = 2.375            -- m, half the sheet's width
local BACK = TEE[1] + HOUSE     -- m, the back line (at the back of the house)
local MAX_T = 40                -- s

assert(math.sqrt(TX * TX + TY * TY) + R < HOUSE, "curling.lua: the opponent's stone must start in the house")

local boards = { "board_n", "board_s", "board_back" }
local bodies = {
  tp.plane { name = "ice", material = "ice" },
  tp.box { name = "board_n", class = "static", size = { 14, 0.1, 0.2 }, pos = { 3, HALF_W + 0.05, 0.1 }, material = "board" },
  tp.box { name = "board_s", class = "static", size = { 14, 0.1, 0.2 }, pos = { 3, -HALF_W - 0.05, 0.1 }, material = "board" },
  tp.box { name = "board_back", class = "static", size = { 0.1, 2 * HALF_W, 0.2 }, pos = { TEE[1] + 3.6, 0, 0.1 }, material = "board" },
  -- the house, drawn on the ice (markers never collide)
  tp.cylinder { name = "house", class = "static", marker = true, radius = HOUSE, length = 0.002, pos = { TEE[1], TEE[2], 0.001 }, color = { 0.2, 0.4, 0.9, 0.5 } },
  tp.cylinder { name = "button", class = "static", marker = true, radius = 0.61, length = 0.003, pos = { TEE[1], TEE[2], 0.0015 }, color = { 0.9, 0.2, 0.2, 0.6 } },
  tp.cylinder { name = "stone", class = "active", radius = R, length = H, mass = M, pos = { 0, 0, H / 2 }, material = "granite", color = { 0.9, 0.8, 0.1, 1 } },
  tp.cylinder { name = "theirs", class = "passive", radius = R, length = H, mass = M, pos = { TEE[1] + TX, TEE[2] + TY, H / 2 }, material = "granite", color = { 0.8, 0.1, 0.1, 1 } },
}

local stones = { "stone", "theirs" }
local in_house = function(body) return tp.within { body = body, center = TEE, radius = HOUSE + R } end
local hit = tp.touching { body = "stone", other = "theirs" }

local function quality(s)
  local x, y = s:pos("stone")
  local u, v = s:pos("theirs")
  local ours = math.max(0, math.sqrt((x - TEE[1]) ^ 2 + (y - TEE[2]) ^ 2) - HOUSE - R)
  local theirs = math.max(0, HOUSE + R - math.sqrt((u - TEE[1]) ^ 2 + (v - TEE[2]) ^ 2))
  return ours + theirs
end

return tp.domain {
  name = "curling",
  description = "curling hit-and-stay: one throw knocks the opponent's stone out of the house and stays in it",
  dt = 1 / 60,
  materials = {
    tp.material { name = "ice", friction = 0.02, restitution = 0 },
    tp.material { name = "granite", friction = 0.2, restitution = 0.85, bounce_velocity = 0.01 },
    tp.material { name = "board", friction = 0.3, restitution = 0.3 },
  },
  contacts = { tp.contact { "ice", "granite", friction = 0.0168, restitution = 0 } },
  bodies = bodies,
  tactics = {
    tp.tactic {
      name = "delivery", body = "stone", start = "throw",
      skills = {
        tp.skill.throw {
          name = "throw", body = "stone",
          speed = tp.uniform(1.5, 3.5), direction = tp.angle(-0.3, 0.3),
          -- one segment until both stones rest: the throw is the only decision
          follow = true, trigger_speed = 0.01, timeout = MAX_T,
        },
        tp.skill.wait { name = "rest", body = "stone", target = "stone", duration = MAX_T, timeout = MAX_T },
      },
      transitions = { throw = { rest = 1 }, rest = { rest = 1 } },
    },
  },
  goal = tp.all {
    tp.ever(hit),
    tp.negate(in_house("theirs")),
    in_house("stone"),
    tp.settled { bodies = stones, speed = 0.01 },
  },
  valid = tp.all {
    tp.never(tp.touching { body = "stone", others = boards }),
    tp.inside { body = "stone", max = { BACK + R, math.huge, math.huge } },
    function(s) return s.t <= MAX_T end,
  },
  quality = quality,
  -- BK-RRT (the other planner's figure): our stone's position on the sheet
  sampling = { tp.uniform({ 0, -HALF_W }, { BACK, HALF_W }), distance = "euclidean", body = "stone" },
  planner = { algorithm = "bgt", mu = 1000, max_iters = 200000, time_limit = 60, solutions = 1, seed = 1 },
  view = { yaw = -90, pitch = 60, target = { 4, 0, 0 } },
}
