-- e2e: coast.sh (goals the planner steps over). A stroke's segment ends when the
-- ball is below the skill's trigger speed (5 cm/s, follow = true); the goal asks for rest below
-- 1 cm/s within 15 cm of a spot. After a segment only new strokes follow, so the goal, which holds
-- a few steps later if the ball is left alone, is never tested there: unsolved. With
-- planner.coast (--set coast=1: 1 s of zero action after each segment, tested for the goal) the
-- ball's last roll joins the tree and the goal is found.
local tp = require "tp"
local coast = tp.param("coast", 0)
return tp.domain {
  name = "coast_goal",
  materials = { tp.material { name = "cloth", friction = 0.2, rolling_friction = 0.002 } },
  bodies = { tp.plane { name = "floor", material = "cloth" },
             tp.sphere { name = "ball", class = "active", radius = 0.03, mass = 0.16, pos = { 0, 0, 0.03 },
                         max_force = 100, material = "cloth" } },
  tactics = { tp.tactic { name = "t", body = "ball", skills = {
    tp.skill.impulse { name = "stroke", speed = tp.uniform(0.3, 0.8), direction = tp.angle(-0.2, 0.2),
                       follow = true, trigger_speed = 0.05, timeout = 20 } } } },
  goal = tp.all { tp.within { body = "ball", center = { 0.5, 0 }, radius = 0.15 },
                  tp.settled { bodies = { "ball" }, speed = 0.01, angular = 1 } },
  planner = { max_iters = 3000, coast = coast },
}
