#!/usr/bin/env bash
# Moving surfaces: domains/elevator.lua (a ledge reachable only by a waypoint elevator
# with pauses), domains/platforms.lua (two moving platforms across a pit that never come within
# 0.4 m of each other or the pads: paper Fig. 6f, the character hops) and domains/bridge.lua (a
# plank sliding into a gap, then a sweeper to pass); the ride skill learns the moving bodies by
# watching them. Each seed must solve, replay bit for bit (--check: nothing sank into static
# geometry or another body deeper than the plan's limits, 5 mm), and the plan file
# (read with python3, not the planner's goal test) must show the crossing:
#  - elevator: the robot ends standing on the ledge, and before that it stood on the lift above 1 m;
#  - platforms: no static path: at every frame the five faces (start pad, a, b, goal pad) are at
#    least 0.4 m apart (the robot's width) from each other; the robot ends standing on the goal
#    pad; it stood on platform a and then on platform b while each was moving; and it was airborne
#    three times, each time in the gap between two faces (its centre over no face, its bottom above
#    every top by 2 cm: touching nothing), the hops start -> a -> b -> goal in that order, each
#    landing on the face it flew to;
#  - bridge: the robot ends in the goal region of the far pad, it stood on the plank while the
#    plank moved or bridged the gap, and it never touched the sweeper (both boxes axis-aligned:
#    their centres stay more than 0.4 m apart along x or y).
# Usage: moving_surfaces.sh TPLAN DOMAINS_DIR WORKDIR
set -u
tplan=$1 domains=$2 work=$3/moving_surfaces
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
for run in elevator:1 elevator:2 platforms:1 platforms:2 bridge:2 bridge:3; do
  domain=${run%:*} seed=${run#*:}
  {
    plan=$work/$domain$seed.json
    "$tplan" plan "$domains/$domain.lua" --seed $seed -q -o "$plan"
    check "$domain seed $seed: solved" $?
    "$tplan" replay -q --check "$plan"
    check "$domain seed $seed: replay bit for bit, no overlap beyond the plan's limits (5 mm)" $?
    python3 - "$domain" "$plan" <<'PY'
import json, sys
domain, path = sys.argv[1], sys.argv[2]
plan = json.load(open(path))
traj = {b["name"]: b["trajectory"] for b in plan["bodies"] if "trajectory" in b}
robot = traj["robot"]
assert min(r[2] for r in robot) > 0.15, "the robot went below the floor"

def stands_on(k, name, top_offset=0.05):
    """The robot (0.4 m box) rests on the 1.2 x 1.2 x 0.1 platform `name` at frame k."""
    r, p = robot[k], traj[name][k]
    return abs(r[0] - p[0]) < 0.6 and abs(r[1] - p[1]) < 0.6 and abs(r[2] - (p[2] + top_offset + 0.2)) < 0.03

def moving(k, name):
    p, q = traj[name][max(k - 1, 0)], traj[name][k]
    return any(abs(a - b) > 1e-6 for a, b in zip(p[:3], q[:3]))

x, y, z = robot[-1][:3]
if domain == "elevator":
    assert 5.6 <= x <= 9.2 and abs(y) <= 1.8 and abs(z - 2.2) < 0.05, f"the robot ends at {robot[-1][:3]}, not on the ledge"
    rode = [k for k in range(len(robot)) if stands_on(k, "lift") and traj["lift"][k][2] > 1.0]
    assert rode, "the robot never stood on the lift above 1 m"
    arrived = next(k for k, r in enumerate(robot) if r[0] > 5.6 and r[2] > 2.1)
    assert rode[0] < arrived, "the ride does not come before the ledge"
elif domain == "bridge":
    assert 4.0 <= x <= 5.4 and abs(y) <= 1.3 and abs(z - 0.2) < 0.05, f"the robot ends at {robot[-1][:3]}, not in the goal region"
    on = [k for k in range(len(robot)) if stands_on(k, "plank")]
    assert on, "the robot never stood on the plank"
    gap = min(max(abs(r[0] - s[0]), abs(r[1] - s[1])) for r, s in zip(robot, traj["sweeper"]))
    assert gap > 0.4, f"the robot touched the sweeper (centres {gap:.3f} m apart)"
else:
    bodies = {b["name"]: b for b in plan["bodies"]}
    def rect(name, k):
        """Footprint (x0, y0, x1, y1) and top of a box at frame k (axis-aligned: no yaw here)."""
        b = bodies[name]
        p = traj[name][k] if name in traj else b["pose"]
        hx, hy, hz = (s / 2 for s in b["size"][:3])
        return (p[0] - hx, p[1] - hy, p[0] + hx, p[1] + hy), p[2] + hz
    faces = ["start", "a", "b", "goal"]
    for k in range(len(robot)):
        for i in range(len(faces)):
            for j in range(i + 1, len(faces)):
                (a0, a1, a2, a3), _ = rect(faces[i], k)
                (b0, b1, b2, b3), _ = rect(faces[j], k)
                gap = max(b0 - a2, a0 - b2, b1 - a3, a1 - b3)
                assert gap >= 0.4 - 1e-9, f"{faces[i]} and {faces[j]} are {gap:.3f} m apart at frame {k}"
    assert 4.1 <= x <= 7.1 and 4.0 <= y <= 7.0 and abs(z - 0.2) < 0.05, f"the robot ends at {robot[-1][:3]}, not on the goal pad"
    on_a = [k for k in range(len(robot)) if stands_on(k, "a") and moving(k, "a")]
    on_b = [k for k in range(len(robot)) if stands_on(k, "b") and moving(k, "b")]
    assert on_a and on_b, "the robot did not ride both platforms while they moved"
    assert on_a[0] < on_b[0], "platform b was ridden before platform a"
    def under(k):
        """The face whose footprint holds the robot's centre at frame k, else None."""
        for f in faces:
            (x0, y0, x1, y1), _ = rect(f, k)
            if x0 <= robot[k][0] <= x1 and y0 <= robot[k][1] <= y1:
                return f
        return None
    def resting(k, f):
        (x0, y0, x1, y1), top = rect(f, k)
        return x0 <= robot[k][0] <= x1 and y0 <= robot[k][1] <= y1 and abs(robot[k][2] - 0.2 - top) < 0.03
    # flights: maximal runs of frames with the centre over no face; the box must fly over them
    flights, k = [], 0
    while k < len(robot):
        if under(k) is None:
            e = k
            while e + 1 < len(robot) and under(e + 1) is None:
                e += 1
            flights.append((k, e))
            k = e + 1
        else:
            k += 1
    hops = []
    for s, e in flights:
        tops = max(rect(f, k)[1] for f in faces for k in (s, e))
        low = min(robot[k][2] - 0.2 for k in range(s, e + 1))
        assert low > tops + 0.02, f"frames {s}-{e}: over the gap with its bottom {low:.3f} m high: not airborne"
        src, dst = under(s - 1), under(e + 1)
        landed = next((k for k in range(e + 1, min(e + 60, len(robot))) if resting(k, dst)), None)
        assert landed is not None, f"the hop at frames {s}-{e} did not land on {dst}"
        hops.append((src, dst))
    assert hops == [("start", "a"), ("a", "b"), ("b", "goal")], f"hops {hops}, expected start -> a -> b -> goal"
PY
    check "$domain seed $seed: the robot crossed on the moving surfaces (python3 reads the plan)" $?
  }
done
finish
