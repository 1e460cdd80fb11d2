-- A scripted slab comes down on a resting crate (the repro of the moving-platforms audit): ODE gives scripted
-- bodies infinite mass, so it squeezes the crate through the static floor. The goal "the crate's
-- centre 5 cm below the floor" is reached by simply waiting unless the physics refuses states
-- where a body sank deeper than max_static_penetration into static geometry (here 0.05 m; the
-- slab pressing into the crate meets max_body_penetration, set to the same).
--   --set check=0   turns both checks off (the planner then "solves" it by the crush)
local tp = require "tp"
local CHECK = tp.param("check", 0.05, { min = 0, max = 1 })
return tp.domain {
  name = "kinematic_crush",
  max_static_penetration = CHECK,
  max_body_penetration = CHECK,
  bodies = {
    tp.plane { name = "floor" },
    -- slab 0.1 thick, centre z = 0.35 + 0.6 sin(2 pi t / 8): it comes down through the crate and the floor
    tp.box { name = "slab", class = "foreign", size = { 0.8, 0.8, 0.1 }, pos = { 0, 0, 0.35 },
             motion = tp.oscillate { amplitude = { 0, 0, 0.6 }, period = 8, phase = 0 } },
    tp.box { name = "crate", class = "passive", size = { 0.3, 0.3, 0.2 }, mass = 5, pos = { 0, 0, 0.1 } },
    -- an active robot far away that only waits (a tactic is needed for the planner to expand)
    tp.box { name = "robot", class = "active", size = { 0.2, 0.2, 0.2 }, mass = 1, pos = { 3, 0, 0.1 } },
  },
  tactics = { tp.tactic { name = "idle", body = "robot", skills = { tp.skill.wait { name = "wait", duration = 1 } } } },
  goal = tp.inside { body = "crate", max = { math.huge, math.huge, -0.05 } },
  planner = { max_iters = 2000 },
}
