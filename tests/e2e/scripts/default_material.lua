-- The material "default" can be named whether or not the script defines materials (it
-- failed with "unknown material 'default' (materials: none defined)"). A box slides from 1 m/s on a
-- floor until it rests; the floor's material is --set floor=NAME ("omit": no material field) and
-- the domain's materials --set mats=none | two (ice 0.1, rubber 0.9: "default" is ice, the first)
-- | own (ice, then the script's own "default" 0.9: it replaces the built-in default and is what
-- bodies naming no material get) | twice (two "default": refused at the second one's line, 14).
local tp = require "tp"
local FLOOR, MATS = tp.param("floor", "default"), tp.param("mats", "none")
local materials = ({
  none = nil,
  two = { tp.material { name = "ice", friction = 0.1 }, tp.material { name = "rubber", friction = 0.9 } },
  own = { tp.material { name = "ice", friction = 0.1 }, tp.material { name = "default", friction = 0.9 } },
  twice = { tp.material { name = "default", friction = 0.1 },
            tp.material { name = "default", friction = 0.9 } },
})[MATS]
return tp.domain {
  name = "defmat",
  materials = materials,
  bodies = { tp.plane { name = "floor", material = FLOOR ~= "omit" and FLOOR or nil },
    tp.box { name = "crate", class = "active", size = { 0.2, 0.2, 0.1 }, mass = 1, pos = { 0, 0, 0.05 },
             max_force = 1000, planar = true, material = MATS == "none" and "default" or nil } },
  tactics = { tp.tactic { name = "t", body = "crate", start = "push",
    skills = { tp.skill.impulse { name = "push", speed = 1, direction = { 1, 0 } },
               tp.skill.wait { name = "coast", duration = 10 } },
    transitions = { push = { coast = 1 }, coast = { coast = 1 } } } },
  goal = tp.all { tp.moved { body = "crate" }, tp.slower { body = "crate", speed = 0.005 } },
  planner = { max_iters = 2000 },
}
