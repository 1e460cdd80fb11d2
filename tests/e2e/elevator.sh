#!/usr/bin/env bash
# The elevator problem (issue 14): domains/elevator.lua, a ledge reachable only by a waypoint
# elevator with pauses; the ride skill learns the elevator by watching it. Each seed must solve,
# replay bit for bit, and the plan file (read with python3, not the planner's goal test) must show
# a ride: the robot ends standing on the ledge, and at some frame it stood on the lift above 1 m
# (inside the lift's footprint, resting on its top) before that.
# Usage: elevator.sh TPLAN DOMAIN_FILE WORKDIR
set -u
tplan=$1 domain=$2 work=$3/elevator
rm -rf "$work" && mkdir -p "$work"
pass=0 fail=0
check() { # name, condition result (0 = ok)
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}
for seed in 1 2; do
  "$tplan" plan "$domain" --seed $seed -q -o "$work/plan$seed.json"
  check "seed $seed: solved" $?
  "$tplan" replay -q "$work/plan$seed.json"
  check "seed $seed: replay" $?
  python3 - "$work/plan$seed.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
bodies = {b["name"]: b for b in plan["bodies"]}
robot, lift = bodies["robot"]["trajectory"], bodies["lift"]["trajectory"]
x, y, z = robot[-1][:3]
assert 5.6 <= x <= 9.2 and abs(y) <= 1.8 and abs(z - 2.2) < 0.05, f"the robot ends at {robot[-1][:3]}, not on the ledge"
# lift centre: x 4.7, y 0, top = z + 0.05; the robot (0.4 m box) rests on it when its centre is
# 0.2 above the top and inside the lift's 1.2 m footprint
rode = [k for k, (r, l) in enumerate(zip(robot, lift))
        if abs(r[0] - 4.7) < 0.6 and abs(r[1]) < 0.6 and abs(r[2] - (l[2] + 0.05 + 0.2)) < 0.03 and l[2] > 1.0]
assert rode, "the robot never stood on the lift above 1 m"
assert min(r[2] for r in robot) > 0.15, "the robot went below the floor"
first_ledge = next(k for k, r in enumerate(robot) if r[0] > 5.6 and r[2] > 2.1)
assert rode[0] < first_ledge, "the ride does not come before the ledge"
PY
  check "seed $seed: the robot rode the lift to the ledge (python3 reads the plan)" $?
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
