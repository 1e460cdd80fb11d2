-- Parking: a tricycle on hinge2 wheels is driven into a parking spot. The front wheel's
-- hinge2 has both motors driven: its steering is a servo (tp.skill.motor { angle }) and its spin a
-- speed (tp.skill.motor { speed }); the two rear wheels are hinge2 joints whose steering is locked
-- (limit {0, 0}) and whose spin is free. Two tactics run side by side, one steering, one on the
-- throttle, each choosing a sampled target and how long to hold it.
--
--   car    chassis box 0.5 x 0.3 x 0.06 m, 3 kg, at the origin facing +x; wheels spheres 0.08 m,
--          0.3 kg: front at (0.25, 0), rear at (-0.2, +-0.2); wheelbase 0.45 m, steering +-0.5 rad
--          (turning radius about 0.82 m), the front wheel driven at up to 20 rad/s (1.6 m/s)
--   spot   centred at (SX, SY), facing +y (heading pi/2), between two parked boxes; the goal: the
--          chassis's centre within 0.15 m of the spot's centre, its heading within 0.25 rad of +y,
--          slower than 0.1 m/s
--   valid  the car stays inside the lot (x in [-1, 3.5], y in [-1.5, 2.5]) and off the parked boxes
local tp = require "tp"
local SX = tp.param("spot_x", 1.3, { min = 1, max = 3 })   -- m
local SY = tp.param("spot_y", 1.3, { min = 1, max = 2 })   -- m
local POS_TOL, HEAD_TOL = 0.2, 0.3                          -- m, rad: the spot's tolerances
local HEADING = math.pi / 2
local STEER = 0.5                                          -- rad: the steering's stops
local wheel = function(name, x, y)
  return tp.sphere { name = name, class = "passive", radius = 0.08, mass = 0.3, pos = { x, y, 0.08 }, material = "rubber",
                     color = { 0.15, 0.15, 0.15, 1 } }
end
local parked = function(name, x)
  return tp.box { name = name, class = "static", size = { 0.3, 0.5, 0.2 }, pos = { x, SY, 0.1 }, color = { 0.6, 0.6, 0.65, 1 } }
end
return tp.domain {
  name = "parking",
  description = "steer a tricycle on hinge2 wheels (steering servo, driven spin) into a parking spot",
  dt = 1 / 60, substeps = 2,
  materials = {
    tp.material { name = "asphalt", friction = 0.9 },
    tp.material { name = "rubber", friction = 0.9, rolling_friction = 0.002 },
  },
  bodies = {
    tp.plane { name = "ground", material = "asphalt" },
    tp.box { name = "chassis", class = "passive", size = { 0.5, 0.3, 0.06 }, mass = 3, pos = { 0, 0, 0.14 },
             color = { 0.2, 0.5, 0.9, 1 } },
    wheel("front", 0.25, 0), wheel("rear_l", -0.2, 0.2), wheel("rear_r", -0.2, -0.2),
    parked("parked_w", SX - 0.6), parked("parked_e", SX + 0.6),
  },
  joints = {
    -- spin axis -y: a positive spin target drives the car forward (+x)
    tp.joint { name = "front", kind = "hinge2", bodies = { "chassis", "front" }, anchor = { 0.25, 0, 0.08 },
               axis = { 0, 0, 1 }, axis2 = { 0, -1, 0 }, limit = { -STEER, STEER },
               motor = { max_torque = 20, driven = true, max_speed = 4 },
               motor2 = { max_torque = 3, driven = true, max_speed = 20 } },
    tp.joint { name = "rear_l", kind = "hinge2", bodies = { "chassis", "rear_l" }, anchor = { -0.2, 0.2, 0.08 },
               axis = { 0, 0, 1 }, axis2 = { 0, 1, 0 }, limit = { 0, 0 } },
    tp.joint { name = "rear_r", kind = "hinge2", bodies = { "chassis", "rear_r" }, anchor = { -0.2, -0.2, 0.08 },
               axis = { 0, 0, 1 }, axis2 = { 0, 1, 0 }, limit = { 0, 0 } },
  },
  -- one tactic, a driver's: set the steering (the servo turns the wheel to a sampled angle; when
  -- it ends, the steering motor's declared speed 0 holds the wheel there), then drive (the front
  -- wheel spun at a sampled speed for a sampled time; when it ends, its brake stops the car), and
  -- again: a parking manoeuvre as a few steer-and-drive moves
  tactics = {
    tp.tactic { name = "drive", start = "steer",
      skills = {
        -- full lock either way or straight, give or take 0.1 rad
        tp.skill.motor { name = "steer", joint = "front", angle = tp.choice({ -0.4, 0, 0.4 }, nil, 0.1), duration = 0.3 },
        -- forward at 0.3-1.1 m/s (4-14 rad/s), or now and then back a little
        tp.skill.motor { name = "go", joint = "front", axis = 2, speed = tp.choice({ 9, -5 }, { 3, 1 }, { 5, 2 }),
                         duration = tp.uniform(0.2, 2) },
      },
      transitions = { steer = { go = 1 }, go = { steer = 1 } } },
  },
  goal = tp.all {
    tp.within { body = "chassis", center = { SX, SY }, radius = POS_TOL },
    function(s)
      local d = (s:yaw("chassis") - HEADING + math.pi) % (2 * math.pi) - math.pi
      return math.abs(d) <= HEAD_TOL
    end,
    tp.slower { body = "chassis", speed = 0.1 },
  },
  valid = tp.all {
    tp.inside { body = "chassis", min = { -0.8, -1 }, max = { SX + 1.2, SY + 0.8 } },
    tp.negate(tp.touching { body = "chassis", others = { "parked_w", "parked_e" } }),
    tp.upright { body = "chassis", tolerance = 0.5 },
    function(s) return s.t <= 12 end, -- a car still not parked after 12 s is cut: the search tries other moves
  },
  -- goal-biased: a third of the samples within 0.3 m of the spot, the rest over the lot
  sampling = { tp.choice({ { SX, SY }, { 0.5 * SX, 0.3 * SY } }, { 1, 2 }, { 0.3, 1.6 }), body = "chassis" }, -- BK-RRT grows the car toward these
  planner = { algorithm = "rrt", max_iters = 100000 },
}
