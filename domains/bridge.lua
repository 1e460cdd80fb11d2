-- Bridge (Lopez, Lamarche & Li 2011): a gap between two pads is bridged, for a while in
-- every period, by a plank that slides into it (tp.waypoints with pauses); on the far pad a
-- sweeper box goes back and forth across the way to the goal. The character cannot jump. The
-- `ride` skill learns the plank's relations by watching it, boards when the plank is in place
-- (after a sampled margin), steps off on the far side, and plans its walk in space-time around the
-- sweeper (its motion extrapolated linearly over 2 s, replanned every 0.5 s while it detours or
-- waits). The tactics planner chooses the margins and the spot in the goal region.
--
--   pit      plane z = -1
--   start    static box x in [-3, 0], y in [-1.5, 1.5], top z = 0
--   plank    foreign 1.5 x 1.2 x 0.1 box, top 0, x in [0.05, 1.55]; slides from y = -3 into the gap
--            (y = 0) at 1 m/s, 4 s pauses at each end (period 14 s)
--   far      static box x in [1.6, 5.6], y in [-1.5, 1.5], top z = 0
--   sweeper  foreign 0.4 x 0.4 x 0.6 box at x = 3, back and forth in y between -1.1 and 1.1 at
--            0.5 m/s with 0.5 s pauses
--   robot    box 0.4 m, 2 kg, planar force <= 20 N, starts at (-1.5, 0)
--   goal     robot centre in x [4, 5.4], y [-1.3, 1.3] on the far pad, slower than 0.3 m/s
--   valid    the robot never touches the sweeper (the local planner's linear extrapolation can be
--            wrong at the sweeper's turns; a branch that touches it is cut)
local tp = require "tp"
local rider = require "rider" -- domains/lib/rider.lua: materials, robot, tactic

return tp.domain {
  name = "bridge",
  description = "cross a gap on a sliding plank, then pass a moving sweeper (ride: Lopez 2011)",
  dt = 1 / 60,
  gravity = {0, 0, -9.81},
  materials = rider.materials(0.4),
  bodies = {
    rider.pit(),
    tp.box { name = "start", class = "static", size = {3, 3, 1}, pos = {-1.5, 0, -0.5}, material = "ground",
             color = {0.8, 0.78, 0.7, 1} },
    tp.box { name = "far", class = "static", size = {4, 3, 1}, pos = {3.6, 0, -0.5}, material = "ground",
             color = {0.8, 0.78, 0.7, 1} },
    tp.box { name = "plank", class = "foreign", size = {1.5, 1.2, 0.1}, pos = {0.8, -3, -0.05}, material = "ground",
             color = {0.6, 0.4, 0.2, 1},
             motion = tp.waypoints { points = {{0, 0, 0}, {0, 3, 0}}, speed = 1, pause = 4, loop = "pingpong" } },
    tp.box { name = "sweeper", class = "foreign", size = {0.4, 0.4, 0.6}, pos = {3, -1.1, 0.3}, material = "ground",
             color = {0.8, 0.2, 0.2, 1},
             motion = tp.waypoints { points = {{0, 0, 0}, {0, 2.2, 0}}, speed = 0.5, pause = 0.5, loop = "pingpong" } },
    rider.robot(-1.5, 0),
  },
  tactics = { rider.tactic(tp.uniform({4.2, -1, 0}, {5.2, 1, 0}), tp.uniform(0, 0.5)) },
  goal = tp.all {
    tp.inside { body = "robot", min = {4, -1.3, 0.15}, max = {5.4, 1.3, 0.3} },
    tp.slower { body = "robot", speed = 0.3 },
  },
  valid = tp.negate(tp.touching { body = "robot", other = "sweeper" }),
  -- mu 3000, not the paper's 1000: plans here are 1,700-2,100 steps deep, and with 1000 the tree
  -- keeps branching at random inner nodes (docs/navigation.md), starving the leaves that crossed
  planner = { algorithm = "bgt", mu = 3000, max_iters = 20000 },
}
