#!/usr/bin/env bash
# Scripted motion: an elevator carries a crate that can only wait, moved by tp.waypoints
# (elevator_ride.lua) and by a tp.motion Lua function that returns no velocities (motion_ride.lua:
# the physics gets central differences). The plan must solve, replay bit for bit, and the crate
# must really ride: read from the plan file with a JSON parser (not the planner's own goal test),
# its last height is above 2.1 m and it never left the lift's footprint; the tp.motion lift's
# finite-difference vz is 2/3 m/s while it rises.
# Usage: motion.sh TPLAN SCRIPTS_DIR WORKDIR
set -u
tplan=$1 scripts=$2 work=$3/motion
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
for run in elevator_ride:1 elevator_ride:2 motion_ride:1 motion_ride:2; do
  script=${run%:*} seed=${run#*:}
  plan=$work/$script$seed.json
  "$tplan" plan "$scripts/$script.lua" --seed $seed -q -o "$plan"
  check "$script seed $seed: solved" $?
  "$tplan" replay -q "$plan"
  check "$script seed $seed: replay" $?
  python3 - "$script" "$plan" <<'PY'
import json, sys
script, plan = sys.argv[1], json.load(open(sys.argv[2]))
bodies = {b["name"]: b for b in plan["bodies"]}
crate, lift = bodies["crate"]["trajectory"], bodies["lift"]["trajectory"]
assert crate[-1][2] > 2.1, f"the crate ends at z = {crate[-1][2]}"
assert max(r[2] for r in lift) - lift[0][2] > 1.5, "the lift did not go up"
for c, l in zip(crate, lift):
    assert abs(c[0] - l[0]) < 0.5 and abs(c[1] - l[1]) < 0.5, "the crate left the lift"
    assert c[2] > l[2], "the crate is below the lift's centre"
if script == "motion_ride":  # up 2 m in 3 s from t = 1 s, period 8 s
    rising = [r[9] for k, r in enumerate(lift) if 1.1 < k * plan["dt"] % 8 < 3.9]
    assert rising and all(abs(v - 2 / 3) < 1e-6 for v in rising), "finite-difference vz is not 2/3 m/s"
PY
  check "$script seed $seed: the crate rode the lift (python3 reads the plan)" $?
done
# A scripted slab must not crush a crate through the floor: with the default check the "crate
# below the floor" goal is unreachable (exit 3); with the check off the planner reaches it (exit
# 0), which shows the check is what stops it.
"$tplan" plan "$scripts/kinematic_crush.lua" --no-out -q
rc=$?
check "kinematic crush, default check: exit $rc, expected 3 (no solution)" $([ $rc -eq 3 ]; echo $?)
"$tplan" plan "$scripts/kinematic_crush.lua" --set check=0 -q -o "$work/crush.json"
rc=$?
check "kinematic crush, check off: exit $rc, expected 0 (the crush 'solves' it)" $([ $rc -eq 0 ]; echo $?)
"$tplan" replay -q "$work/crush.json"
check "kinematic crush, check off: replay" $?

finish
