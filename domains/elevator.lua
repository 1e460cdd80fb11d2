-- Elevator (Lopez, Lamarche & Li 2011, "the elevator problem"): a character on the
-- floor must reach a ledge 2 m up that no static path reaches; an elevator in a shaft between
-- them goes up and down with pauses (tp.waypoints). The character cannot jump. The `ride` skill
-- learns the elevator's relations to the floor and the ledge by watching it (the nav module's
-- space-time planner: the motion is not given to it), walks to the boarding point, waits there
-- until the elevator is flush with the floor plus a sampled margin, steps on, is carried up by
-- friction, and steps off onto the ledge. The tactics planner chooses the margin and the goal
-- spot on the ledge: a margin too long misses the pause (the elevator leaves under a half-boarded
-- character), which the physics shows.
--
--   pit      plane z = -1 (the shaft's bottom)
--   floor    static box x in [-4, 4], y in [-2, 2], top z = 0
--   lift     foreign box 1.2 x 1.2 x 0.1 in the shaft x in [4.1, 5.3], top from 0 to 2 m at 1 m/s,
--            1.5 s pauses at each end (period 7 s)
--   ledge    static box x in [5.4, 9.4], top z = 2
--   robot    box 0.4 m, 2 kg, planar force <= 20 N, starts at (-2, 0)
--   goal     robot on the ledge: centre in x [6.5, 9], y [-1.5, 1.5], z [2.0, 2.6], slower than 0.3 m/s
local tp = require "tp"
local rider = require "rider" -- domains/lib/rider.lua: materials, robot, tactic

return tp.domain {
  name = "elevator",
  description = "reach a ledge only an elevator with pauses reaches (ride: Lopez 2011 space-time planner)",
  dt = 1 / 60,
  gravity = {0, 0, -9.81},
  materials = rider.materials(),
  bodies = {
    rider.pit(),
    tp.box { name = "floor", class = "static", size = {8, 4, 1}, pos = {0, 0, -0.5}, material = "ground",
             color = {0.8, 0.78, 0.7, 1} },
    tp.box { name = "lift", class = "foreign", size = {1.2, 1.2, 0.1}, pos = {4.7, 0, -0.05}, material = "ground",
             color = {0.9, 0.6, 0.2, 1},
             motion = tp.waypoints { points = {{0, 0, 0}, {0, 0, 2}}, speed = 1, pause = 1.5, loop = "pingpong" } },
    tp.box { name = "ledge", class = "static", size = {4, 4, 3}, pos = {7.4, 0, 0.5}, material = "ground",
             color = {0.7, 0.75, 0.8, 1} },
    rider.robot(-2, 0),
  },
  tactics = { rider.tactic(tp.uniform({7, -1, 2}, {8.5, 1, 2}), tp.uniform(0, 0.6)) },
  goal = tp.all {
    tp.inside { body = "robot", min = {6.5, -1.5, 2.0}, max = {9, 1.5, 2.6} },
    tp.slower { body = "robot", speed = 0.3 },
  },
  planner = { algorithm = "bgt", mu = 1000, max_iters = 20000 },
}
