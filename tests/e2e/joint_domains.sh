#!/usr/bin/env bash
# The joint domains of the joints audit through the CLI: domains/rube_goldberg.lua (a ball released down a
# ramp hits a pendulum that tips a lever, dropping a ball into a cup) and domains/parking.lua (a
# tricycle on hinge2 wheels: a steering servo, tp.skill.motor { angle }, and a driven spin, parked
# in a bay). Both planners solve each on the seeds below and every plan replays bit for bit
# (--check); python3 reads each plan: the target ball rests in the cup, the lever turned within its
# stops and the pendulum's rod kept its length; the car stands in the bay (within 0.2 m and 0.3 rad
# of the spot), the plan (version 3) carries the front wheel's two motors, the servo's targets stay
# within the steering's max_speed and the steering angle within its stops; each plan's "joints" member names the domain's joints with
# their anchors and axes (drawn by the viewers); the same seed gives the same bytes.
# Usage: joint_domains.sh TPLAN DOMAINS_DIR WORKDIR
set -u
tplan=$1 domains=$2 work=$3/joint_domains
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
for run in "rube_goldberg bgt 1" "rube_goldberg bgt 2" "rube_goldberg rrt 1" "rube_goldberg rrt 2" \
  "parking rrt 3" "parking bgt 7"; do
  set -- $run
  dom=$1 planner=$2 seed=$3
  plan=$work/$dom-$planner$seed.json
  "$tplan" plan "$domains/$dom.lua" --planner "$planner" --seed "$seed" -q -o "$plan"
  check "$dom $planner seed $seed: solved" $?
  "$tplan" replay -q --check "$plan"
  check "$dom $planner seed $seed: replays bit for bit within the plan's limits" $?
  python3 - "$plan" "$dom" <<'PY'
import json, math, sys
plan, dom = json.load(open(sys.argv[1])), sys.argv[2]
traj = {b["name"]: b["trajectory"] for b in plan["bodies"] if "trajectory" in b}
joints = {j["name"]: j for j in plan["joints"]}
def yaw(f):
    w, x, y, z = f[3:7]
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
if dom == "rube_goldberg":
    x, y, z = traj["target"][-1][:3]
    assert 1.55 <= x <= 1.95 and abs(y) <= 0.2 and z < 0.12, f"the target ends at {x}, {y}, {z}"
    # the lever turns about y only: its angle from the quaternion
    turn = [2 * math.atan2(f[5], f[3]) for f in traj["lever"]]
    assert max(turn) > 0.1, f"the lever turned only {max(turn)} rad"
    assert -0.02 <= min(turn) and max(turn) <= 0.47, f"the lever left its stops: [{min(turn)}, {max(turn)}]"
    rod = [math.dist(f[:3], (0, 0, 1)) for f in traj["bob"]]
    assert max(abs(r - 0.935) for r in rod) < 2e-3, f"the rod's length varied: [{min(rod)}, {max(rod)}]"
    assert joints["rod"]["kind"] == "distance" and joints["pivot"]["kind"] == "hinge", joints
    assert joints["pivot"]["bodies"] == ["lever", None], joints["pivot"]
else:
    x, y = traj["chassis"][-1][:2]
    d = (yaw(traj["chassis"][-1]) - math.pi / 2 + math.pi) % (2 * math.pi) - math.pi
    assert math.hypot(x - 1.3, y - 1.3) <= 0.2 and abs(d) <= 0.3, f"the car ends at {x}, {y} heading off by {d}"
    assert plan["version"] == 3, plan["version"]
    m = [(k["joint"], k["axis"]) for k in plan["motors"]]
    assert m == [("front", 1), ("front", 2)], m
    tac = plan["tactics"][0]
    steer = [t for t, a in zip(plan["motors"][0]["targets"], tac["active"]) if tac["skills"][a] == "steer"]
    assert steer and max(abs(t) for t in steer) <= 4 and any(t != 0 for t in steer), "servo targets"
    assert joints["front"]["kind"] == "hinge2" and joints["front"]["bodies"] == ["chassis", "front"], joints["front"]
    # the steering angle (the wheel's spin axis, -y at the start, seen from the chassis) stays within
    # its stops (+-0.5 rad) give or take one substep at its max_speed (4 rad/s / 120 = 0.033 rad)
    def qmul(a, b):
        return (a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0])
    def rot(q, v):
        return qmul(qmul(q, (0, *v)), (q[0], -q[1], -q[2], -q[3]))[1:]
    worst = 0.0
    for c, f in zip(traj["chassis"], traj["front"]):
        qc = c[3:7]
        s = rot((qc[0], -qc[1], -qc[2], -qc[3]), rot(f[3:7], (0, -1, 0)))
        worst = max(worst, abs(math.atan2(s[0], -s[1])))
    assert worst <= 0.5 + 4 / 120, f"the steering reached {worst} rad (stops +-0.5)"
for j in plan["joints"]:
    assert len(j["anchor"]) == 3 and len(j["axis"]) == 3, j
PY
  check "$dom $planner seed $seed: the machine did its job (python3 reads the plan)" $?
done
"$tplan" plan "$domains/rube_goldberg.lua" --seed 2 -q -o "$work/again.json"
same "$work/rube_goldberg-bgt2.json" "$work/again.json"
check "the same seed gives the same plan byte for byte" $?
finish joint_domains
