#!/usr/bin/env bash
# Driven joint motors through the CLI: scripts/motor_paddle.lua, a paddle on a
# hinge whose motor target is part of the action (tp.skill.motor) bats a ball into a goal region.
# Both planners on seeds 1-3 solve it and every plan replays bit for bit (--check); the plan is
# format version 3 with the motor's targets (read with python3: each step's target is the sampled
# speed while the swing runs, the motor's declared 0 while the tactic waits, the paddle turned and
# the ball rests in the goal); the same seed gives the same bytes; a changed target is a replay
# mismatch; the reader refuses a version 3 plan without "motors" and a version 1 plan with them;
# the CSV export writes motors.csv and the glb export works; `tplan state` + `tplan simulate
# --controls` give the plan's state bit for bit (the targets travel with the controls); a plan from
# a state taken mid-plan is version 3 with a start and replays.
# Usage: motor.sh TPLAN SCRIPTS_DIR WORKDIR
set -u
tplan=$1 scripts=$2 work=$3/motor
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
dom=$scripts/motor_paddle.lua
for planner in bgt rrt; do
  for seed in 1 2 3; do
    plan=$work/$planner$seed.json
    "$tplan" plan "$dom" --planner $planner --seed $seed -q -o "$plan"
    check "$planner seed $seed: solved" $?
    "$tplan" replay -q --check "$plan"
    check "$planner seed $seed: replays bit for bit within the plan's limits" $?
    python3 - "$plan" <<'PY'
import json, math, sys
plan = json.load(open(sys.argv[1]))
assert plan["version"] == 3, plan["version"]
[m] = plan["motors"]
assert m["joint"] == "arm" and m["axis"] == 1, m
targets, active = m["targets"], plan["tactics"][0]["active"]
skills = plan["tactics"][0]["skills"]
assert len(targets) == plan["steps"] == len(active)
for v, a in zip(targets, active):
    if skills[a] == "swing":
        assert 0.5 <= v <= 8, f"swing target {v} outside the range {{0.5, 8}}"
    else:
        assert v == 0, f"the motor runs at {v} while the tactic waits (declared speed 0)"
assert any(skills[a] == "swing" for a in active)
traj = {b["name"]: b["trajectory"] for b in plan["bodies"] if "trajectory" in b}
turn = max(abs(2 * math.atan2(f[6], f[3])) for f in traj["paddle"])
assert turn > 0.2, f"the paddle turned only {turn} rad"
x, y = traj["ball"][-1][:2]
assert -1.5 <= x <= 1 and 0.8 <= y <= 1.6, f"the ball ends at {x}, {y}"
PY
    check "$planner seed $seed: version 3 with the motor's targets; the paddle batted the ball into the goal" $?
  done
done
"$tplan" plan "$dom" --seed 2 -q -o "$work/again.json"
same "$work/bgt2.json" "$work/again.json"
check "the same seed gives the same plan byte for byte" $?
p=$work/bgt1.json
python3 - "$p" "$work" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
w = sys.argv[2]
t = plan["motors"][0]["targets"]
tac = plan["tactics"][0]
paddle = next(b["trajectory"] for b in plan["bodies"] if b["name"] == "paddle")
# a step in which the tactic waits and the motor holds the paddle at rest (far from saturated)
i = next(k for k, a in enumerate(tac["active"]) if tac["skills"][a] == "settle" and paddle[k][12] == 0)
t[i] += 0.01
json.dump(plan, open(w + "/changed.json", "w"))
plan = json.load(open(sys.argv[1]))
del plan["motors"]
json.dump(plan, open(w + "/nomotors.json", "w"))
plan = json.load(open(sys.argv[1]))
plan["version"] = 1
json.dump(plan, open(w + "/v1motors.json", "w"))
PY
"$tplan" replay -q --check "$work/changed.json" >"$work/changed.txt" 2>&1
[ $? -ne 0 ] && grep -q "step" "$work/changed.txt"
check "a target changed by 0.01 rad/s is a replay mismatch" $?
"$tplan" replay -q "$work/nomotors.json" >"$work/nomotors.txt" 2>&1
[ $? -ne 0 ] && grep -q '"motors"\|motors: a version 3 plan needs' "$work/nomotors.txt"
check "a version 3 plan without motors is refused, naming the member" $?
"$tplan" replay -q "$work/v1motors.json" >"$work/v1motors.txt" 2>&1
[ $? -ne 0 ] && grep -q "motors: a version 1 plan has no driven motors" "$work/v1motors.txt"
check "a version 1 plan with motors is refused" $?
"$tplan" export "$p" --format csv -o "$work/csv" >/dev/null
check "CSV export" $?
steps=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['steps'])" "$p")
[ "$(head -1 "$work/csv/motors.csv")" = "step,t,joint,axis,target" ] &&
  [ "$(wc -l <"$work/csv/motors.csv")" -eq $((steps + 1)) ] && grep -q '^0,0,arm,1,' "$work/csv/motors.csv"
check "motors.csv: a header and one row per step" $?
"$tplan" export "$p" --format glb -o "$work/plan.glb" >/dev/null && [ -s "$work/plan.glb" ]
check "glb export of a plan with a driven motor" $?
"$tplan" state "$p" --step 0 -o "$work/s0.json" >/dev/null &&
  "$tplan" state "$p" --step "$steps" -o "$work/send.json" >/dev/null &&
  "$tplan" simulate "$dom" --state "$work/s0.json" --controls "$p" -o "$work/sim.json" >/dev/null &&
  cmp -s "$work/send.json" "$work/sim.json"
check "tplan simulate with the plan's controls and motor targets gives its last state bit for bit" $?
# two workers, two solutions: the alternative carries its motor_targets and every world replays
"$tplan" plan "$dom" --jobs 2 --solutions 2 -q -o "$work/par.json" && "$tplan" replay -q --check --all "$work/par.json" &&
  python3 -c "import json,sys; a=json.load(open(sys.argv[1]))['alternatives']; assert a and all(len(x['motor_targets'][0]) == x['steps'] for x in a)" \
    "$work/par.json"
check "--jobs 2 --solutions 2: the alternatives' motor_targets, every world replayed bit for bit" $?
# a sampled target the motor's max_speed does not allow (a normal distribution) stops the run naming the joint
sed 's/range = { 0.5, 8 }/speed = tp.normal(0, 100)/' "$dom" >"$work/normal.lua"
"$tplan" plan "$work/normal.lua" -q -o "$work/normal.json" >"$work/normal.txt" 2>&1
[ $? -ne 0 ] && grep -q "the skills gave joint 'arm' a motor target of .* rad/s, outside +-12 (its motor.max_speed)" \
  "$work/normal.txt"
check "a sampled target beyond max_speed is an error naming the joint" $?
# a plan from a state taken mid-plan: version 3 with a start, replayed bit for bit
"$tplan" state "$p" --step 30 -o "$work/s30.json" >/dev/null &&
  "$tplan" plan "$dom" --state "$work/s30.json" --seed 4 -q -o "$work/fromstate.json" &&
  "$tplan" replay -q --check "$work/fromstate.json" &&
  python3 -c "import json,sys; p=json.load(open(sys.argv[1])); assert p['version'] == 3 and 'start' in p and p['motors']" \
    "$work/fromstate.json"
check "a plan from a mid-plan state: version 3 with a start, replayed bit for bit" $?
finish motor
