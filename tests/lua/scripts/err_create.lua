-- a passive skill body is rejected at the skill line (14)
local tp = require "tp"
return tp.domain {
  name = "e", dt = 1/60,
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.1}, mass = 2, pos = {0, 0, 0.05} },
    tp.sphere { name = "ball", class = "passive", radius = 0.02, mass = 0.05, pos = {0.5, 0, 0.02} },
  },
  tactics = {
    tp.tactic { name = "t", body = "robot",
      skills = {
        tp.skill.wait { name = "wait", duration = 0.5 },
        tp.skill.drive_to { name = "go", body = "ball", point = tp.uniform({-1, -1}, {1, 1}) },
      },
      transitions = { wait = { go = 1 }, go = { wait = 1 } },
    },
  },
  goal = tp.within { body = "ball", center = {1, 0}, radius = 0.1 },
}
