#!/usr/bin/env bash
# tplan plan --jobs N (docs/parallel.md): --jobs 1 is byte for byte the run without --jobs; the
# same --seed/--jobs give the same plan bytes on every run (timing aside) whatever the workers'
# timing; the plan is the selected worker's own run (tplan plan --seed <its seed> gives the same
# bytes); many-worlds pools the workers' solutions deterministically and every world replays; an
# unsolved run is approximate (exit 3) and deterministic; --tree writes the selected worker's
# tree; bad --jobs values exit 2; --help documents the options.
# Usage: parallel.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/parallel
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
seed_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seed"])' "$1"; }

# --- K = 1: --jobs 1 is today's run; --jobs 2 and 3 are deterministic -------------------------
"$tplan" plan soccer --seed 3 -q -o "$work/seq.json"; check "plan soccer (no --jobs)" $?
"$tplan" plan soccer --seed 3 --jobs 1 -q -o "$work/j1.json"; check "plan soccer --jobs 1" $?
same "$work/seq.json" "$work/j1.json"; check "--jobs 1 gives the plan of a run without --jobs" $?
for j in 2 3; do
  for r in 1 2 3; do
    "$tplan" plan soccer --seed 3 --jobs $j -o "$work/j$j.$r.json" >"$work/j$j.$r.txt"
    check "plan soccer --jobs $j (run $r)" $?
  done
  same "$work/j$j.1.json" "$work/j$j.2.json" && same "$work/j$j.1.json" "$work/j$j.3.json"
  check "--jobs $j: the same plan bytes on three runs" $?
  grep -q "^workers    $j processes; B = [0-9]* iterations to 1 solution; selected: worker [0-9]" "$work/j$j.1.txt"
  check "--jobs $j: the summary names the selected worker" $?
  [ "$(grep -c '^  worker ' "$work/j$j.1.txt")" -eq $j ]; check "--jobs $j: one statistics line per worker" $?
  # the plan is the selected worker's own run: its seed reproduces it without --jobs
  s=$(seed_of "$work/j$j.1.json")
  "$tplan" plan soccer --seed "$s" -q -o "$work/alone$j.json"
  same "$work/j$j.1.json" "$work/alone$j.json"; check "--jobs $j: the plan of the selected worker's seed $s alone" $?
  "$tplan" replay "$work/j$j.1.json" >/dev/null; check "--jobs $j: the plan replays" $?
done
# the selected worker needed the fewest iterations (ties to the lowest worker)
python3 - "$work/j3.1.txt" <<'PY'
import re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("  worker ")]
first = [int(m.group(1)) if (m := re.search(r"first at iteration (\d+)", l)) else None for l in rows]
sel = [i for i, l in enumerate(rows) if "<- selected" in l]
best = min(f for f in first if f is not None)
assert sel == [first.index(best)], (sel, first)
PY
check "--jobs 3: the selected worker has the fewest iterations, the lowest index on ties" $?

# --- --tree: the selected worker's tree --------------------------------------------------------
"$tplan" plan soccer --seed 3 --jobs 2 -q -o "$work/t.json" --tree "$work/t.tree"; check "--jobs 2 --tree" $?
s=$(seed_of "$work/t.json")
"$tplan" plan soccer --seed "$s" -q -o "$work/t_alone.json" --tree "$work/t_alone.tree"
cmp -s "$work/t.tree" "$work/t_alone.tree"; check "--jobs 2 --tree: the tree of the selected worker's seed" $?

# --- many-worlds: pooled, deterministic, every world replays -----------------------------------
for r in 1 2 3; do
  "$tplan" plan pool --seed 1 --solutions 3 --jobs 3 -q -o "$work/k3.$r.json"; check "pool --solutions 3 --jobs 3" $?
done
same "$work/k3.1.json" "$work/k3.2.json" && same "$work/k3.1.json" "$work/k3.3.json"
check "--solutions 3 --jobs 3: the same plan bytes on three runs" $?
python3 - "$work/k3.1.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
costs = [p["cost"]] + [a["cost"] for a in p["alternatives"]]
assert len(costs) == 3 and costs == sorted(costs), costs
PY
check "--solutions 3 --jobs 3: three worlds, the cheapest selected, in cost order" $?
"$tplan" replay --all "$work/k3.1.json" >"$work/k3.replay.txt"; check "--solutions 3 --jobs 3: replay --all" $?
[ "$(grep -c 'replayed bit for bit' "$work/k3.replay.txt")" -eq 3 ]; check "all three worlds replay bit for bit" $?

# --- approximate: nobody solves --------------------------------------------------------------
for r in 1 2; do
  "$tplan" plan minigolf_random --seed 1 --max-iters 200 --jobs 2 -q -o "$work/ap.$r.json"
  rc=$?
  check "--jobs 2 unsolved: exit 3 (got $rc)" $([ $rc -eq 3 ]; echo $?)
done
same "$work/ap.1.json" "$work/ap.2.json"; check "--jobs 2 unsolved: the same plan bytes" $?
grep -q '"status": "approximate"' "$work/ap.1.json"; check "--jobs 2 unsolved: an approximate plan" $?

# --- the coordinator killed outright: its workers go with it (PR_SET_PDEATHSIG) ---------------
"$tplan" plan minigolf_random --jobs 2 --max-iters 1000000000 --no-out -q &
coord=$!
# wait (bounded) until both workers run, then kill -9 the coordinator and wait for them to go
timeout 60 bash -c "until [ \$(pgrep -c -P $coord) -eq 2 ]; do sleep 0.05; done"
check "--jobs 2: two worker processes start" $?
workers=$(pgrep -P $coord | tr '\n' ' ')
{ kill -9 $coord && wait $coord; } 2>/dev/null
timeout 60 bash -c "while kill -0 $workers 2>/dev/null; do sleep 0.05; done"
check "--jobs 2: the workers ($workers) end with their killed coordinator" $?

# --- bad input ------------------------------------------------------------------------------
for bad in 0 257 x; do
  "$tplan" plan soccer --jobs $bad --no-out -q 2>"$work/bad.txt"
  rc=$?
  check "--jobs $bad: exit 2 (got $rc)" $([ $rc -eq 2 ]; echo $?)
  [ "$(wc -l <"$work/bad.txt")" -eq 1 ]; check "--jobs $bad: one error line" $?
done
"$tplan" plan soccer --jobs 2 --mpi --no-out -q 2>/dev/null
rc=$?
check "--jobs 2 --mpi: exit 2 (got $rc)" $([ $rc -eq 2 ]; echo $?)
"$tplan" plan "$work/no_such.lua" --jobs 2 -q 2>/dev/null
rc=$?
check "--jobs 2, no such domain: exit 2 (got $rc)" $([ $rc -eq 2 ]; echo $?)
printf 'error("boom")\n' >"$work/bad.lua"
"$tplan" plan "$work/bad.lua" --jobs 2 -q 2>"$work/bad_script.txt"
rc=$?
check "--jobs 2, script error: exit 2 (got $rc)" $([ $rc -eq 2 ]; echo $?)
grep -q 'bad.lua:1: boom' "$work/bad_script.txt"; check "--jobs 2, script error: the script's message" $?
"$tplan" plan --help | grep -q -- "--jobs N" && "$tplan" plan --help | grep -q -- "--mpi"
check "plan --help documents --jobs and --mpi" $?
"$tplan" bench --help | grep -q -- "--mpi"; check "bench --help documents --mpi" $?

finish parallel.sh
