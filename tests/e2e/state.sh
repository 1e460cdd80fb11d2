#!/usr/bin/env bash
# tplan state / tplan simulate / tplan plan --state (issue 37) on pool: the state at a step of a plan,
# a plan's controls simulated from its start reproduce its states bit for bit, a plan from a state
# taken mid-shot (balls rolling and asleep) records it and replays with --check, and bad state files
# and arguments get one line naming the file and the field (exit 2).
# usage: state.sh TPLAN WORKDIR
set -u
tplan=$1
work=$2/state
. "$(dirname "$0")/lib.sh"
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

expect "plan pool" "$tplan" plan pool --seed 1 -q -o p.json
steps=$(sed -n 's/^  "steps": \([0-9]*\),$/\1/p' p.json)
[ "${steps:-0}" -gt 20 ]
check "pool's plan has steps ($steps)" $?
mid=$((steps / 2))

# the start state, and the states mid-plan and at the end
expect "state --step 0" "$tplan" state p.json --step 0 -o s0.json
expect "state --step $mid" "$tplan" state p.json --step "$mid" -o smid.json
expect "state --step $steps" "$tplan" state p.json --step "$steps" -o send.json
grep -q '"format": "tplan-state", "version": 1, "domain": "pool", "time": 0,' s0.json
check "a state file names its format, version, domain and time" $?
grep -q '"rest": [1-9]' smid.json
check "mid-shot, some balls have a rest count (asleep or settling)" $?
"$tplan" state p.json --step "$mid" > smid_stdout.json
cmp -s smid.json smid_stdout.json
check "state to stdout: the same bytes" $?

# simulate the plan's controls from its start: its states, bit for bit (rest counts and time too)
expect "simulate all steps" "$tplan" simulate pool --state s0.json --controls p.json -o sim_end.json
cmp -s sim_end.json send.json
check "simulate from the start with the plan's controls = the plan's end state" $?
expect "simulate $mid steps" "$tplan" simulate pool --state s0.json --controls p.json --steps "$mid" -o sim_mid.json
cmp -s sim_mid.json smid.json
check "simulate $mid steps = the plan's state at step $mid" $?
expect "simulate without controls" "$tplan" simulate pool --state send.json --steps 30 -o sim_free.json
grep -q '"domain": "pool"' sim_free.json
check "simulate with no forces writes a state" $?

# a plan from the state mid-shot: version 2, starts there, replays bit for bit with --check
"$tplan" plan pool --state smid.json --seed 2 --max-iters 300 -q -o p2.json
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]
check "plan --state: solved or approximate (exit $rc)" $?
grep -q '"version": 2,' p2.json && grep -q '^  "start": {"time": ' p2.json
check "the plan from a state is version 2 with a start member" $?
expect "replay --check of the plan from a state" "$tplan" replay p2.json --check -q
expect "state --step 0 of it" "$tplan" state p2.json --step 0 -o p2s0.json
cmp -s p2s0.json smid.json
check "its start state is the state it was planned from" $?
"$tplan" plan pool --state smid.json --seed 2 --max-iters 300 -q -o p3.json
same p2.json p3.json
check "the same run from the same state: the same plan" $?
grep -q '"version": 1,' p.json && ! grep -q '"start"' p.json
check "a plan from the initial state is still version 1" $?

# bad input: one line naming the file and the field, exit 2
bad() { # NAME WANT_IN_MESSAGE COMMAND...
  local name=$1 want=$2
  shift 2
  "$@" > out.txt 2> err.txt
  local rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "$want" err.txt && [ "$(wc -l < err.txt)" -eq 1 ]; then
    check "$name" 0
  else
    echo "--- $name: exit $rc, stderr:"
    cat err.txt
    check "$name" 1
  fi
}
bad "a state of another domain" "s0.json: domain: a state of 'pool', not of 'minigolf'" \
  "$tplan" plan minigolf --state s0.json -q --no-out
sed 's/"domain": "pool"/"domain": "minigolf"/' s0.json > other.json
bad "another domain's bodies" "other.json: bodies.cue: no such body in the domain" \
  "$tplan" plan minigolf --state other.json -q --no-out
sed 's/"time": 0,/"time": -0.5,/' s0.json > neg.json
bad "time < 0" "neg.json: time: expected a number of seconds" "$tplan" plan pool --state neg.json -q --no-out
grep -v '^  "cue"' s0.json > missing.json
bad "a missing body" "missing.json: bodies: 10 bodies given, the domain 'pool' has 11 (missing 'cue')" \
  "$tplan" plan pool --state missing.json -q --no-out
sed '0,/"cue"/s//"ghost"/' s0.json > ghost.json
bad "an unknown body" "ghost.json: bodies.ghost: no such body" "$tplan" plan pool --state ghost.json -q --no-out
sed '0,/"quaternion": \[1,/s//"quaternion": [0.5,/' s0.json > quat.json
bad "a quaternion that is not unit" "quat.json: bodies.cue.quaternion: norm 0.5" \
  "$tplan" simulate pool --state quat.json --steps 1
sed '0,/"position": \[-0.75,/s//"position": [1e400,/' s0.json > inf.json
bad "an infinite number" "inf.json: bodies.cue.position[0]: not a finite number" \
  "$tplan" simulate pool --state inf.json --steps 1
yellow=$(grep '^  "yellow"' s0.json | sed 's/.*"position": \(\[[^]]*\]\).*/\1/')
awk -v y="$yellow" '/^  "blue"/ {sub(/"position": \[[^]]*\]/, "\"position\": " y)} {print}' s0.json > overlap.json
bad "two balls in one place" "overlap.json: bodies.yellow: bodies 'yellow' and 'blue' overlap" \
  "$tplan" plan pool --state overlap.json -q --no-out
bad "steps <= 0" "--steps" "$tplan" simulate pool --state s0.json --steps 0
bad "step beyond the plan" "--step $((steps + 1)): world 0 has steps 0..$steps" "$tplan" state p.json --step $((steps + 1))
printf '{"format": "tplan-state"} trailing' > trailing.json
bad "trailing text" "trailing.json: text after the JSON value at line 1" "$tplan" simulate pool --state trailing.json --steps 1

finish "state"
