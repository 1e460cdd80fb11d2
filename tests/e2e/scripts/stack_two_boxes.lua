-- Two 0.15 x 0.15 x 0.075 boxes stacked exactly touching on the floor (the repro): with the
-- default `step` solver ODE's Dantzig LCP gave up on the degenerate first step and the bottom box
-- free-fell through the floor to z = -0.043 before both were thrown up. Now both rest where they
-- are, with either solver, whatever the hair's breadth between them (tests/e2e/physics_truth.sh).
--   --set h=0.1 (exact binary sums), --set gap=1e-7 or gap=-1e-12, --set solver=quickstep,
--   --set msp=0.005 (the default limit: no state may be refused), --set sleep=0 (sleep_speed: 0 =
--   nobody sleeps, the solver alone holds them; the default sleeps them once they rest)
local tp = require "tp"
local H = tp.param("h", 0.075)
local GAP = tp.param("gap", 0.0)
local SOLVER = tp.param("solver", "step")
local MSP = tp.param("msp", 0.005)
local SLEEP = tp.param("sleep", 0.005)
return tp.domain {
  name = "stack2", solver = SOLVER, max_static_penetration = MSP, sleep_speed = SLEEP,
  bodies = {
    tp.plane { name = "floor" },
    tp.sphere { name = "ball", class = "active", radius = 0.035, mass = 0.15, pos = { -1, 0, 0.035 }, max_force = 100 },
    tp.box { name = "b1", class = "passive", size = { 0.15, 0.15, H }, mass = 0.4, pos = { 0, 0, H / 2 + GAP } },
    tp.box { name = "b2", class = "passive", size = { 0.15, 0.15, H }, mass = 0.4, pos = { 0, 0, 1.5 * H + 2 * GAP } },
  },
  tactics = { tp.tactic { name = "t", body = "ball", skills = { tp.skill.wait { name = "w", duration = 0.5 } } } },
  goal = function(s) return s.t > 1 end,
}
