-- tp.joint: one joint of each kind; tests/lua/test_lua.c checks what tp.domain made
local tp = require "tp"
return tp.domain {
  name = "joints", dt = 1/60,
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "post", class = "static", size = {0.1, 0.1, 1}, pos = {0, 0, 0.5} },
    tp.box { name = "a", class = "passive", size = {0.2, 0.2, 0.2}, mass = 1, pos = {1, 0, 1} },
    tp.box { name = "b", class = "passive", size = {0.2, 0.2, 0.2}, mass = 1, pos = {2, 0, 1} },
    tp.sphere { name = "c", class = "passive", radius = 0.1, mass = 1, pos = {3, 0, 1} },
  },
  joints = {
    tp.joint { name = "door", kind = "hinge", bodies = {"a", "post"}, anchor = {0.5, 0, 1}, axis = {0, 0, 2},
               limit = {-0.5, 1, bounce = 0.2}, motor = {speed = 1, max_torque = 3} },
    tp.joint { kind = "slider", bodies = {"b", "world"}, axis = {1, 0, 0}, spring = {stiffness = 10, damping = 1, rest = 0.1} },
    tp.joint { kind = "ball", bodies = {"c", "b"}, anchor = {2.5, 0, 1} },
    tp.joint { kind = "fixed", bodies = {"a", "b"}, collide = true },
    tp.joint { kind = "universal", bodies = {"c"}, anchor = {3, 0, 2}, axis = {1, 0, 0}, axis2 = {0, 1, 0},
               limit2 = {-1, 1} },
    tp.joint { kind = "hinge2", bodies = {"a", "c"}, anchor = {3, 0, 1}, axis = {0, 0, 1}, axis2 = {0, 1, 0},
               limit = {0, 0}, spring = {stiffness = 1000, damping = 20}, motor2 = {speed = 5, max_torque = 2} },
    tp.joint { kind = "distance", bodies = {"c", "a"} },
  },
  tactics = {},
  goal = function(s) return s.t > 1 end,
}
