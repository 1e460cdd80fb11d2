#!/usr/bin/env bash
# The hard-problems audit, goals over time: tp.sequence, tp.never & co. keep their memory in the node's
# state; the plan records it (member "temporal", its own version) and replay reproduces it.
#   vase.lua: valid = tp.never(the ball touches the vase) prunes the touching strokes (the run's
#     rejections name it) and the plan's ball never touches the vase (replay --check's pairs).
#   pool_kick: the goal is a tp.sequence; the same seed gives the same plan, it replays with its
#     memory, a plan whose recorded memory was edited is a mismatch, a stopped run names the
#     sequence's step it waits for, and the member is read strictly.
#   pool_bank: a goal of one sequence per pocket; the plan completes one and replays.
# Usage: temporal.sh TPLAN SCRIPTS_DIR WORKDIR
set -u
tplan=$1 scripts=$2 work=$3/temporal
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"

"$tplan" plan "$scripts/vase.lua" -o "$work/v.json" >"$work/v.txt" 2>&1
rc=$?
check "vase: exit $rc, expected 0 (solved)" $([ $rc -eq 0 ]; echo $?)
check "vase: the rejections name tp.never: $(grep rejected "$work/v.txt")" \
  $(grep -q "rejected .*tp.never (vase.lua:[0-9]*) was false: tp.touching 'ball' 'vase' (vase.lua:[0-9]*) held" "$work/v.txt"; echo $?)
"$tplan" replay "$work/v.json" --check >"$work/vc.txt" 2>&1
rc=$?
check "vase: replay --check exit $rc" $([ $rc -eq 0 ]; echo $?)
check "vase: the ball never touched the vase" $(! grep -q "vase - ball\|ball - vase" "$work/vc.txt"; echo $?)

"$tplan" plan pool_kick --seed 3 -q -o "$work/a.json" 2>/dev/null
rc=$?
check "pool_kick seed 3: exit $rc, expected 0" $([ $rc -eq 0 ]; echo $?)
"$tplan" plan pool_kick --seed 3 -q -o "$work/b.json" 2>/dev/null
expect "pool_kick: the same seed gives the same plan, memory included" same "$work/a.json" "$work/b.json"
expect "pool_kick: replays bit for bit with its memory" "$tplan" replay "$work/a.json" --check -q
line=$(grep '^  "temporal": ' "$work/a.json")
check "pool_kick: the plan records the sequence and its progress to 3: ${line:0:300}" \
  $(echo "$line" | grep -q '"version": 1, "conditions": \[{"name": "tp.sequence (pool_kick.lua:[0-9]*)", "kind": "sequence", "size": 3}' &&
    echo "$line" | grep -q ', 0, 3\]\]'; echo $?)
# the cushion touch that started the sequence lasted one step, inside the stroke's busy segment
# (follow = true: the shot is one segment from the root): the cue ball is clear of every rail's line
# (> 1 mm) in the states before and after that step, and its velocity turned in it
first=$(echo "$line" | grep -o '\[[0-9]*, 0, 1\]' | head -1 | tr -dc '0-9,' | cut -d, -f1)
python3 - "$work/a.json" "$first" >"$work/touch.txt" 2>&1 <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); s = int(sys.argv[2])
cue = next(b for b in p["bodies"] if b["name"] == "cue")["trajectory"]
IL, IW, R = 1.27 - 0.05, 0.635 - 0.05, 0.028575
gap = lambda r: min(IW - R - abs(r[1]), IL - R - abs(r[0]))
turned = any(cue[s - 1][7 + k] * cue[s][7 + k] < 0 for k in (0, 1))
print(f"step {s}: gaps {gap(cue[s - 1]):.4f} m before, {gap(cue[s]):.4f} m after, turned {turned}")
sys.exit(0 if gap(cue[s - 1]) > 1e-3 and gap(cue[s]) > 1e-3 and turned and s > 1 else 1)
PY
check "pool_kick: a one-step cushion touch inside the segment advanced the sequence: $(cat "$work/touch.txt")" $?
# the step at which the sequence reached 2, one later in the file: the replay remembers otherwise
step=$(echo "$line" | grep -o '\[[0-9]*, 0, 2\]' | head -1 | tr -dc '0-9,' | cut -d, -f1)
sed "s/\[$step, 0, 2\]/[$((step + 1)), 0, 2]/" "$work/a.json" >"$work/edited.json"
"$tplan" replay "$work/edited.json" -q >"$work/e.txt" 2>&1
rc=$?
check "edited memory: exit $rc (expected non-zero), $(head -c 300 "$work/e.txt")" \
  $([ $rc -ne 0 ] && grep -q "step $step: temporal condition tp.sequence (pool_kick.lua:[0-9]*) (sequence) memory differs: recorded 1, replayed 2" "$work/e.txt"; echo $?)
sed 's/"temporal": {"version": 1,/"temporal": {"version": 3,/' "$work/a.json" >"$work/v3.json"
"$tplan" replay "$work/v3.json" -q >"$work/e.txt" 2>&1
check "temporal.version 3 is refused by name: $(head -c 300 "$work/e.txt")" \
  $(grep -q "temporal.version: 3 is not supported (this reader knows 1..2)" "$work/e.txt"; echo $?)
sed 's/"temporal": {"version": 1,/"temporal": {"version": 1, "extra": 0,/' "$work/a.json" >"$work/x.json"
"$tplan" replay "$work/x.json" -q >"$work/e.txt" 2>&1
check "an unknown member of temporal is refused: $(head -c 300 "$work/e.txt")" \
  $(grep -q 'temporal: unknown field "extra"' "$work/e.txt"; echo $?)
# a run stopped before its goal: the summary names the sequence's step it waits for (at 30
# iterations the "rest" fallback keeps a node before the first cushion, step 1; at 100 one after it)
"$tplan" plan pool_kick --max-iters 100 -o "$work/s.json" >"$work/s.txt" 2>&1
check "stopped run: the summary names the unmet step: $(grep '^goal' "$work/s.txt")" \
  $(grep -q "^goal       not reached: tp.sequence (pool_kick.lua:[0-9]*) was false: step 2 of 3 (tp.touching 'cue' 'red' (pool_kick.lua:[0-9]*)) not reached" "$work/s.txt"; echo $?)
check "stopped run: the status names the rest fallback: $(grep '^status' "$work/s.txt")" \
  $(grep -q "^status     approximate: no solution within the limits; the closest to rest found (fallback by rest), quality " "$work/s.txt"; echo $?)
check "stopped run: the plan's temporal member holds the same words" \
  $(grep -q '"unmet": "tp.sequence (pool_kick.lua:[0-9]*) was false: step 2 of 3' "$work/s.json"; echo $?)
expect "stopped run: replays" "$tplan" replay "$work/s.json" -q
# pool_bank: one sequence per pocket; the plan's bank reached the end of one of them
"$tplan" plan pool_bank --seed 2 -q -o "$work/bank.json" 2>/dev/null
rc=$?
check "pool_bank seed 2: exit $rc, expected 0" $([ $rc -eq 0 ]; echo $?)
expect "pool_bank: replays bit for bit with its memory" "$tplan" replay "$work/bank.json" --check -q
check "pool_bank: a bank sequence reached 3 of 3" $(grep '^  "temporal": ' "$work/bank.json" | grep -q ', [0-5], 3\]'; echo $?)
finish temporal
