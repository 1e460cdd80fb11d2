-- An 8 kg box robot (0.3 x 0.2 m) with max_torque 5 N m on a floor where its corners' friction
-- torque is mu 0.5657 x 8 kg x 9.81 m/s^2 x 0.1803 m = 8.004 N m: a turn_to cannot turn it in place,
-- and tplan warns before planning naming this file and the line of the robot (line 12). With
-- --set skill=nav_to (it turns while it drives) or --set max_torque=20 there is no warning.
local tp = require "tp"
local K = tp.param("skill", "turn_to", { choices = { "turn_to", "nav_to" } })
local MAX_TORQUE = tp.param("max_torque", 5, { min = 0.001, max = 1000 })
return tp.domain {
  name = "weak_turn",
  materials = { tp.material { name = "floor", friction = 0.4 }, tp.material { name = "rubber", friction = 0.8 } },
  bodies = { tp.plane { name = "floor", material = "floor" },
    tp.box { name = "robot", class = "active", size = { 0.3, 0.2, 0.2 }, mass = 8, pos = { 0, 0, 0.1 }, max_force = 80, max_torque = MAX_TORQUE, planar = true, material = "rubber" },
  },
  tactics = { tp.tactic { name = "t", body = "robot", skills = {
    K == "turn_to" and tp.skill.turn_to { name = "go", heading = 0.8 } or tp.skill.nav_to { name = "go", point = { 1, 1 } } } } },
  goal = tp.within { body = "robot", center = { 1, 1 }, radius = 0.1 },
  planner = { max_iters = 20 },
}
