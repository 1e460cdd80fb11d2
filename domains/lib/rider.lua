-- rider.lua: what the moving-surface domains (elevator.lua, platforms.lua, bridge.lua) share: the
-- materials, the robot (a 0.4 m box, 2 kg, planar force <= 20 N; or the jumper, which can hop) and
-- its one tactic, the `ride` skill re-selected at every decision point. `local rider = require "rider"`.
--
--   rider.materials(robot_friction)    {ground (friction 0.8), robot (robot_friction, default 0.8)}
--   rider.robot(x, y)                  the robot standing on a face of top 0 at (x, y)
--   rider.jumper(x, y)                 the same box, able to hop: force <= 450 N in any direction (one
--                                      step of it is the take-off: 2 kg x (2 m/s up, up to 3 m/s across
--                                      the carried velocity) / (1/60 s) plus its weight), not planar
--   rider.tactic(point, margin, jump)  tactic "crosser": ride to `point` (a distribution, dim 3) with
--                                      the boarding margin `margin` (a distribution, s); jump true:
--                                      the ride may hop (the paper's 2 m/s impulse bounds), walking
--                                      with at most 20 N like rider.robot
--   rider.pit()                        the shaft's bottom, a plane at z = -1
local tp = require "tp"

local rider = {}

function rider.materials(robot_friction)
  return { tp.material { name = "ground", friction = 0.8 },
           tp.material { name = "robot", friction = robot_friction or 0.8 } }
end

function rider.robot(x, y)
  return tp.box { name = "robot", class = "active", size = {0.4, 0.4, 0.4}, mass = 2, pos = {x, y, 0.2},
                  max_force = 20, max_torque = 2, planar = true, material = "robot", color = {0.2, 0.3, 0.8, 1} }
end

function rider.jumper(x, y)
  return tp.box { name = "robot", class = "active", size = {0.4, 0.4, 0.4}, mass = 2, pos = {x, y, 0.2},
                  max_force = 450, max_torque = 2, material = "robot", color = {0.2, 0.3, 0.8, 1} }
end

function rider.tactic(point, margin, jump)
  local ride = { name = "ride", body = "robot", point = point, duration = margin, max_speed = 1.0, tolerance = 0.05 }
  if jump then
    ride.jump, ride.walk_force = true, 40
  end
  return tp.tactic {
    name = "crosser", body = "robot", start = "ride",
    skills = { tp.skill.ride(ride) },
    transitions = { ride = { ride = 1 } },
  }
end

function rider.pit()
  return tp.plane { name = "pit", normal = {0, 0, 1}, offset = -1, material = "ground", color = {0.3, 0.3, 0.32, 1} }
end

return rider
