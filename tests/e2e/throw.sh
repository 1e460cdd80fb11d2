#!/usr/bin/env bash
# Passive direction through the CLI: domains/toss.lua with two props (a small
# toss) solves, replays bit for bit, and its plan shows throws only: each prop has exactly one step
# of force (the release), the summary and plan.json's "control" say so, and the same seed gives the
# same bytes. A thrown prop then follows the free-flight closed form (python3 from the plan's own
# numbers). With nudges (--set nudge=true) each prop gets one more step of force at its landing,
# within a quarter of the landing's impulse and 5 degrees. The strict reader refuses a "control"
# figure out of its range. Bad input (a throw range with min > max, a nudge budget < 0, a throw on
# a body with max_force, both velocity and point) gets one-line errors naming the field or the
# script's line.
# Usage: throw.sh TPLAN DOMAINS_DIR WORKDIR
set -u
tplan=$1 domains=$2 work=$3/throw
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
dom=$domains/toss.lua
"$tplan" plan "$dom" --set count=2 --seed 1 -o "$work/a.json" >"$work/a.txt" 2>&1
check "the small toss (2 props) solves" $?
grep -q "^status     solved" "$work/a.txt" && grep -q "^control    .* forces during 0.0333 s (2 of [0-9]* steps)" "$work/a.txt" &&
  grep -q "ball .* 1 step, crate .* 1 step" "$work/a.txt"
check "the summary's control line: one step of force per prop" $?
"$tplan" replay -q --check "$work/a.json"
check "it replays bit for bit" $?
"$tplan" plan "$dom" --set count=2 --seed 1 -q -o "$work/b.json" && same "$work/a.json" "$work/b.json"
check "the same seed gives the same bytes" $?
python3 - "$work/a.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
dt, g = p["dt"], -9.81
bodies = {b["name"]: b for b in p["bodies"]}
for name in ("ball", "crate"):
    b = bodies[name]
    acted = [k for k, c in enumerate(b["controls"]) if any(x != 0 for x in c)]
    assert len(acted) == 1, (name, acted)
    c = p["control"]["bodies"][name]
    assert c["time"] == dt and c["impulse"] > 0, c
    # after the release step: free flight (4 substeps of h, from the state after it) until something is hit
    k, tr, S = acted[0], b["trajectory"], 4
    h = dt / S
    s1 = tr[k + 1]
    for n in range(1, 8):
        K = n * S
        for a in range(3):
            ga = g if a == 2 else 0.0
            v = s1[7 + a] + K * h * ga
            x = s1[a] + K * h * s1[7 + a] + ga * h * h * K * (K + 1) / 2
            s = tr[k + 1 + n]
            assert abs(s[7 + a] - v) < 1e-9 and abs(s[a] - x) < 1e-9, (name, n, a, s[a] - x, s[7 + a] - v)
assert p["control"]["total"]["time"] == 2 * dt
PY
check "one release step per prop, then the free-flight closed form to 1e-9" $?
sed 's/"time": 0.016666666666666666}}/"time": -0.02}}/' "$work/a.json" >"$work/bad.json"
"$tplan" replay -q "$work/bad.json" >"$work/bad.txt" 2>&1
[ $? -eq 2 ] && grep -q "control.bodies.crate.time: -0.02 is negative" "$work/bad.txt"
check "the reader refuses a control report out of its range, naming the field" $?
# with nudges: a second step of force per prop at its landing, its impulse within a quarter of the
# landing's own (m |dv - g dt| of the step before) and its turn within 5 degrees
"$tplan" plan "$dom" --set count=2 --set nudge=true --seed 1 -q -o "$work/n.json" && "$tplan" replay -q --check "$work/n.json" &&
  python3 - "$work/n.json" <<'PY'
import json, math, sys
p = json.load(open(sys.argv[1]))
dt, g, mass = p["dt"], -9.81, {"ball": 0.15, "crate": 0.3}
for b in p["bodies"]:
    if "controls" not in b:
        continue
    acted = [k for k, c in enumerate(b["controls"]) if any(x != 0 for x in c)]
    assert len(acted) == 2, (b["name"], acted)  # the throw, then the nudge
    k, tr, m, f = acted[1], b["trajectory"], mass[b["name"]], b["controls"][acted[1]]
    vk, vp = tr[k][7:10], tr[k - 1][7:10]
    hit = math.sqrt((vk[0] - vp[0]) ** 2 + (vk[1] - vp[1]) ** 2 + (vk[2] - vp[2] - g * dt) ** 2)
    fn = math.sqrt(sum(x * x for x in f[:3]))
    assert 0 < fn * dt <= 0.25 * m * hit * (1 + 1e-9), (b["name"], fn * dt, m * hit)
    v1 = [vk[i] + f[i] * dt / m for i in range(3)]
    turn = abs((math.atan2(v1[1], v1[0]) - math.atan2(vk[1], vk[0]) + math.pi) % (2 * math.pi) - math.pi)
    assert turn <= math.radians(5) + 1e-9, math.degrees(turn)
    assert all(c == 0 for c in f[3:])  # no torque
PY
check "nudge=true: one nudge per prop at its landing, within the budget and 5 degrees; replays" $?
refuse() { # NAME SED WANT: the toss with one edit is refused with one line naming the field
  sed "$2" "$dom" >"$work/r.lua"
  "$tplan" plan "$work/r.lua" --set count=2 -q -o "$work/r.json" >"$work/r.txt" 2>&1
  local rc=$?
  [ $rc -ne 0 ] && [ "$(wc -l <"$work/r.txt")" -eq 1 ] && grep -q "$3" "$work/r.txt"
  check "$1" $?
  [ $rc -ne 0 ] || cat "$work/r.txt"
}
refuse "a throw range with min > max" 's/flight_time = tp.uniform(0.9, 1.2)/flight_time = tp.uniform(1.2, 0.9)/' \
  "r.lua:[0-9]*: .*lo must be <= hi"
refuse "a spin range with min > max" 's/angular_velocity = tp.uniform({ -4, -4, -4 }, { 4, 4, 4 })/angular_velocity = tp.uniform({ 4, -4, -4 }, { -4, 4, 4 })/' \
  "r.lua:[0-9]*: .*lo must be <= hi"
refuse "velocity and point together" 's/flight_time = tp.uniform(0.9, 1.2),/velocity = { 1, 0, 1 },/' \
  "r.lua:[0-9]*: .*'velocity' replaces 'point'"
refuse "a nudge budget < 0" 's/tp.skill.wait { name = "rest", body = name, target = name, duration = MAX_T, timeout = MAX_T }/tp.skill.nudge { name = "rest", body = name, budget = -0.5 }/' \
  "r.lua:[0-9]*: .*budget"
refuse "a throw on a body with max_force" 's/radius = 0.04, mass = 0.15,/radius = 0.04, mass = 0.15, max_force = 5,/' \
  "max_force set: a throw sets the velocity exactly"
finish throw
