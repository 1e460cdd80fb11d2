#!/usr/bin/env python3
"""A receding-horizon controller over tplan.Search (docs/python.md).

A robot pushes a box into a circle (push_box.lua). Every control cycle the controller searches on
for a budget, plays the first `horizon` steps of the best plan so far on the "real" world (here
Domain.simulate, the planner's own physics), and re-roots the search on the state the world is
then in: when nothing disturbed it, that state is a node of the tree bit for bit and its subtree
is kept; when someone kicked the box, the search starts afresh from where the box went.

    python3 controller.py [--budget S | --iterations N] [--cycles N] [--horizon STEPS]

--iterations (the default, 300 a cycle) makes the run the same every time; --budget S gives each
cycle S seconds of wall clock instead. Prints one line a cycle; exit status 0 when the box ends in
the circle, 1 otherwise."""

import argparse
import os
import sys

import numpy as np

import tplan

GOAL, RADIUS = np.array([1.0, 0.0]), 0.15
# cycle -> the push someone gives the box then (m of displacement in x, y; m/s)
DISTURBANCES = {3: ((0.0, 0.12), (0.0, 0.3)), 7: ((-0.10, -0.08), (-0.2, 0.0))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, help="s of wall clock a cycle (instead of --iterations)")
    ap.add_argument("--iterations", type=int, default=300, help="iterations a cycle (default 300)")
    ap.add_argument("--cycles", type=int, default=40)
    ap.add_argument("--horizon", type=int, default=30, help="plan steps played a cycle (default 30: 0.5 s)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    domain = tplan.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "push_box.lua"))
    world = domain.initial_state()
    search = tplan.Search(domain, seed=a.seed)
    kept_total = restarts = 0
    for cycle in range(1, a.cycles + 1):
        plan = search.run(a.budget) if a.budget else search.run(iterations=a.iterations)
        n = min(a.horizon, plan.steps)
        if n > 0:
            world = domain.simulate(world, plan.controls[:n])
        if n < a.horizon:  # the plan ends here (solved): the robot waits
            world = domain.simulate(world, steps=a.horizon - n)
        if cycle in DISTURBANCES:  # someone kicks the box
            (dx, dy), (vx, vy) = DISTURBANCES[cycle]
            row = world.body("box").row.copy()
            row[0] += dx
            row[1] += dy
            row[7], row[8] = vx, vy
            world.set_body("box", row, 0)
        kept = search.reroot(world)
        kept_total += kept
        restarts += kept == 0
        box = world.body("box").row
        dist = float(np.hypot(*(box[:2] - GOAL)))
        speed = float(np.hypot(box[7], box[8]))
        print("cycle %2d: %-11s plan of %4d steps, played %2d; box %.3f m from the goal at %.2f m/s; %s"
              % (cycle, plan.status, plan.steps, n, dist, speed,
                 "kept %d nodes" % kept if kept else "restarted (the world left the tree)"
                 + (" - the box was kicked" if cycle in DISTURBANCES else "")))
        if dist < RADIUS and speed < 0.1 and plan.solved:
            print("the box is in the circle after %d cycles (%.1f s); %d re-roots kept their subtree, %d restarted"
                  % (cycle, cycle * a.horizon * plan.dt, cycle - restarts, restarts))
            return 0
    print("the box did not reach the circle in %d cycles" % a.cycles)
    return 1


if __name__ == "__main__":
    sys.exit(main())
