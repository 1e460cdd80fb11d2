#!/usr/bin/env bash
# tplan state / tplan simulate / tplan plan --state on pool: the state at a step of a plan,
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

# pool_kick (a tp.sequence goal): the state after the cushion carries the conditions' memory; a plan
# from it records that memory (temporal changes at step 0, temporal version 2), needs no second
# cushion and replays with --check; a bad memory or tactic names the field
expect "plan pool_kick" "$tplan" plan pool_kick --seed 1 -q -o k.json
expect "state --step 30 of pool_kick" "$tplan" state k.json --step 30 -o k30.json
grep -q '"version": 2, "domain": "pool_kick"' k30.json && grep -q '"memory": \[1, 0, 1\]}$' k30.json
check "pool_kick after the cushion: a version 2 state with the sequence's memory (1, 0, 1)" $?
"$tplan" plan pool_kick --state k30.json --seed 1 -q -o k2.json
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]
check "plan --state k30.json: solved or approximate (exit $rc)" $?
grep -q '"temporal": {"version": 2, .*"changes": \[\[\[0, 0, 1\], \[0, 2, 1\]' k2.json
check "the plan records the start's memory (changes at step 0, temporal version 2)" $?
expect "replay --check of the plan from the state with memory" "$tplan" replay k2.json --check -q
expect "state --step 0 of it" "$tplan" state k2.json --step 0 -o k2s0.json
cmp -s k2s0.json k30.json
check "its start state, memory included, is the state it was planned from" $?
grep -q '"temporal": {"version": 1,' k.json
check "a plan from the initial state keeps temporal version 1" $?
# --tactics: the tactics' state too, by making the plan's search again (the stroke still busy)
expect "state --step 30 --tactics" "$tplan" state k.json --step 30 --tactics -o kt30.json
grep -q '"cue_ball": {"skill": 0, "busy": true, "started": true, "vars": \[' kt30.json
check "--tactics: the stroke at step 30, busy, with its variables" $?
"$tplan" plan pool_kick --state kt30.json --seed 1 -q -o kt2.json
check "plan --state with the tactics: solved (the same shot goes on)" $?
[ "$(sed -n 's/^  "steps": \([0-9]*\),$/\1/p' kt2.json)" -eq "$(( $(sed -n 's/^  "steps": \([0-9]*\),$/\1/p' k.json) - 30 ))" ]
check "... in the original's remaining steps" $?
expect "replay --check of it" "$tplan" replay kt2.json --check -q
sed 's/^  "seed": 1,/  "seed": 2,/' k.json > kseed.json
"$tplan" state kseed.json --step 30 --tactics -o kx.json 2> kx.err
[ $? -eq 1 ] && grep -q "is not the plan bit for bit" kx.err
check "--tactics of a plan its search does not make again: exit 1, one line" $?
sed 's/"memory": \[1, 0, 1\]/"memory": [4, 0, 1]/' k30.json > kbad.json
bad "a memory beyond its condition" "kbad.json: memory[0]: 4 is beyond the condition's 3" \
  "$tplan" plan pool_kick --state kbad.json -q --no-out
sed 's/"memory": \[1, 0, 1\]/"memory": [1, 0]/' k30.json > kcount.json
bad "a memory of the wrong count" "kcount.json: memory: 2 values given, the domain 'pool_kick' has 3" \
  "$tplan" plan pool_kick --state kcount.json -q --no-out
sed 's/"memory": \[1, 0, 1\]}/"memory": [1, 0, 1], "tactics": {"cue_ball": {"skill": 2, "busy": false, "started": true, "vars": []}}}/' \
  k30.json > ktac.json
bad "a skill index out of range" "ktac.json: tactics.cue_ball.skill: 2 is not a skill of the tactic (0..0" \
  "$tplan" plan pool_kick --state ktac.json -q --no-out

finish "state"
