-- e2e: planner_refusals.sh. A plank tilted 17.6 degrees whose low end starts about
-- 1.8 cm inside the floor, beyond the default 5 mm max_static_penetration: every step from the
-- root would be refused, so the domain is refused at load, naming the plank's line, the floor and
-- the depth. --set case=pair instead overlaps two boxes 3 cm (beyond max_body_penetration 2 cm);
-- case=within sinks the plank only 2 mm (within the limit): planned as usual.
local tp = require "tp"
local case = tp.param("case", "static", { choices = { "static", "pair", "within" } })
local a = math.rad(17.6)
local low = 0.5 * math.sin(a) + 0.01 * math.cos(a) -- the plank's centre height when its corner touches
local sink = ({ static = 0.018, pair = 0, within = 0.002 })[case]
local bodies = {
  tp.plane { name = "floor" },
  tp.box { name = "plank", class = "passive", size = { 1, 0.2, 0.02 }, mass = 0.4, pos = { 0, 0, low - sink },
           quat = { math.cos(-a / 2), 0, math.sin(-a / 2), 0 } },
  tp.sphere { name = "ball", class = "active", radius = 0.05, mass = 0.2, pos = { 1, 0, 0.05 }, max_force = 50 },
}
if case == "pair" then
  bodies[#bodies + 1] = tp.box { name = "crate", class = "passive", size = { 0.2, 0.2, 0.2 }, mass = 1, pos = { -1, 0, 0.1 } }
  bodies[#bodies + 1] = tp.box { name = "lid", class = "passive", size = { 0.2, 0.2, 0.2 }, mass = 1, pos = { -0.83, 0, 0.1 } }
end
return tp.domain {
  name = "start_overlap",
  max_body_penetration = 0.02,
  bodies = bodies,
  tactics = { tp.tactic { name = "t", body = "ball", skills = { tp.skill.impulse { name = "roll", speed = 1, direction = tp.angle(-1, 1) } } } },
  goal = tp.within { body = "ball", center = { 3, 0 }, radius = 0.1 },
  planner = { max_iters = 200 },
}
