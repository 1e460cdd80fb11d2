-- A table (tp.compound: a top and four legs, one rigid body) that a robot must shove to a spot
-- (compound bodies). The table starts 2 cm above the floor and drops onto its legs. Used
-- by tests/e2e/compound.sh: both planners solve it, every plan replays bit for bit, and the plan
-- file carries the table's parts (version 4) with the table resting level on its four legs.
local tp = require "tp"
local leg = function(x, y)
  return { shape = "cylinder", radius = 0.025, length = 0.36, pos = { x, y, 0.18 } }
end
return tp.domain {
  name = "compound_table", dt = 1/60,
  bodies = {
    tp.plane { name = "ground" },
    tp.compound { name = "table", class = "passive", mass = 3, pos = { 0.8, 0, 0.02 }, color = { 0.6, 0.4, 0.2, 1 },
      parts = {
        { shape = "box", size = { 0.6, 0.4, 0.04 }, pos = { 0, 0, 0.38 } },
        leg(0.26, 0.16), leg(-0.26, 0.16), leg(0.26, -0.16), leg(-0.26, -0.16),
      } },
    tp.box { name = "robot", class = "active", size = { 0.3, 0.3, 0.2 }, mass = 4, pos = { 0, 0, 0.1 },
             max_force = 40, planar = true },
  },
  tactics = {
    tp.tactic { name = "t", body = "robot",
      skills = { tp.skill.drive_to { name = "go", point = tp.uniform({ -0.5, -1 }, { 2.5, 1 }) } },
    },
  },
  sampling = { tp.uniform({ -0.5, -1 }, { 2.5, 1 }), body = "table" },
  goal = tp.within { body = "table", center = { 1.2, 0 }, radius = 0.25 },
}
