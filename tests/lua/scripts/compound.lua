-- tp.compound: a box and a mesh cube at density 1000, a sphere of given mass, placed by
-- pos and yaw; a static shelf of two boards. Used by tests/lua/test_lua.c (test_compound).
local tp = require "tp"
return tp.domain {
  name = "compound", dt = 1/60,
  bodies = {
    tp.plane { name = "ground" },
    tp.compound { name = "thing", class = "passive", density = 1000, pos = { 1, 0, 0.5 }, yaw = 0.5,
      parts = { { shape = "box", size = { 0.2, 0.1, 0.1 }, pos = { 0, 0, 0 } },
                { shape = "mesh", file = "cube.obj", pos = { 0.15, 0, 0 }, yaw = 0.3 },
                { shape = "sphere", radius = 0.05, pos = { -0.15, 0, 0 }, mass = 2 } } },
    tp.compound { name = "shelf", class = "static", pos = { -1, 0, 0 },
      parts = { { shape = "box", size = { 0.8, 0.3, 0.02 }, pos = { 0, 0, 0.3 } },
                { shape = "box", size = { 0.8, 0.3, 0.02 }, pos = { 0, 0, 0.6 } } } },
    tp.box { name = "robot", class = "active", size = { 0.2, 0.2, 0.1 }, mass = 2, pos = { 0, 1, 0.05 } },
  },
  tactics = { tp.tactic { name = "t", body = "robot", skills = { tp.skill.wait { name = "w", duration = 0.5 } } } },
  goal = function(s) return s.t > 1 end,
}
