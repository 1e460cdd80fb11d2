-- follow_path replanning fixture (tests/e2e/follow_path.sh): a robot crosses an empty 6 x 4 m room
-- from (0.5, 2) to (5.5, 2) while a cart (a foreign box on a fixed linear motion) comes head-on
-- along its straight line; the tactic is deterministic (one skill, re-selected forever), and `valid`
-- forbids any contact with the cart. --set skill=follow_path (replans around the cart at its
-- current pose and velocity) must solve; --set skill=nav_to (plans once around the static walls
-- only, so it drives the straight line into the cart) must not.
local tp = require "tp"

local kind = tp.param("skill", "follow_path")
if kind ~= "follow_path" and kind ~= "nav_to" then error("--set skill=" .. kind .. ": expected follow_path or nav_to") end
local W, H, T = 6.0, 4.0, 0.1
local function wall(name, x0, y0, x1, y1)
  return tp.box { name = name, class = "static", size = {x1 - x0, y1 - y0, 0.5}, pos = {(x0 + x1) / 2, (y0 + y1) / 2, 0.25},
                  material = "wall" }
end
local go = { name = "go", point = {5.5, 2}, max_speed = 1.0, nav_cell = 0.1, tolerance = 0.05 }
return tp.domain {
  name = "follow_path_cart",
  dt = 1 / 30,
  gravity = {0, 0, -9.81},
  materials = { tp.material { name = "floor", friction = 0.3 }, tp.material { name = "wall", friction = 0.3 },
                tp.material { name = "robot", friction = 0.05 } },
  bodies = {
    tp.plane { name = "floor", normal = {0, 0, 1}, offset = 0, material = "floor" },
    wall("s", 0, -T, W, 0), wall("n", 0, H, W, H + T), wall("w", -T, -T, 0, H + T), wall("e", W, -T, W + T, H + T),
    tp.cylinder { name = "robot", class = "active", radius = 0.15, length = 0.4, mass = 8, pos = {0.5, 2, 0.2},
                  max_force = 40, max_torque = 4, planar = true, material = "robot" },
    -- the cart comes head-on along the robot's straight line
    tp.box { name = "cart", class = "foreign", size = {0.6, 0.6, 0.3}, pos = {4, 2, 0.15},
             motion = tp.linear { vel = {-0.3, 0, 0} }, material = "wall" },
  },
  tactics = { tp.tactic { name = "walker", body = "robot", start = "go",
                          skills = { tp.skill[kind](go) }, transitions = { go = { go = 1 } } } },
  goal = tp.all { tp.within { body = "robot", center = {5.5, 2}, radius = 0.3 }, tp.slower { body = "robot", speed = 0.2 } },
  valid = tp.negate(tp.touching { body = "robot", other = "cart" }),
  quality = tp.distance { body = "robot", to = {5.5, 2}, planar = true },
  solution_metric = "steps",
  planner = { algorithm = "bgt", mu = 1000, max_iters = 3000 },
}
