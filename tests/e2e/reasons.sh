#!/usr/bin/env bash
# Why the planner rejects states: a scripted slab presses a stack of two boxes into the
# floor (tests/e2e/scripts/stack_press.lua). The summary has a line per reason under the search
# line, naming the pair of bodies (physics), the condition as the script wrote it with its
# file:line (a `valid` leaf), or the script line of a `valid` function; the plan file's
# stats.rejections carries the same counts (adding up to stats.rejected) and first examples; the
# same with --jobs 2; the bench's JSON records and the plan stay deterministic.
# Usage: reasons.sh TPLAN SCRIPTS WORKDIR
set -u
tplan=$1 scripts=$2 work=$3/reasons
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
script=$scripts/stack_press.lua

# stats.rejections of a plan file as "reason count iteration|first" lines, and stats.rejected
stats() {
  python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
r = s.get("rejections", {})
print("rejected", s["rejected"], "sum", sum(e["count"] for e in r.values()))
for k, e in r.items():
    print(k, e["count"], e["iteration"], e["first"], sep="|")
PY
}

# plan REFUSE [options]: plans, keeps the summary in $work/REFUSE.txt and the stats in .stats
plan() {
  local refuse=$1
  shift
  "$tplan" plan "$script" --set refuse="$refuse" -o "$work/$refuse.json" "$@" >"$work/$refuse.txt" 2>"$work/$refuse.err"
  local rc=$?
  check "$refuse: exit 3, approximate (got $rc: $(head -c 300 "$work/$refuse.err"))" $([ $rc -eq 3 ]; echo $?)
  stats "$work/$refuse.json" >"$work/$refuse.stats"
  cat "$work/$refuse.txt"
}

# the summary's rejected lines come right under the search line, and agree with the plan file
agree() {
  local refuse=$1 reason=$2 label=$3
  local n_search n_file
  n_search=$(sed -n 's/^search .* \([0-9][0-9]*\) rejected (invalid).*/\1/p' "$work/$refuse.txt")
  read -r _ n_file _ sum <"$work/$refuse.stats"
  check "$refuse: the search line's rejected ($n_search) is stats.rejected ($n_file)" \
    $([ -n "$n_search" ] && [ "$n_search" = "$n_file" ]; echo $?)
  check "$refuse: stats.rejections add up to stats.rejected ($sum vs $n_file)" $([ "$sum" = "$n_file" ]; echo $?)
  grep -A1 '^search ' "$work/$refuse.txt" | tail -1 | grep -q '^rejected   '
  check "$refuse: a rejected line right under the search line" $?
  local line count iter first
  line=$(grep "^$reason|" "$work/$refuse.stats")
  IFS='|' read -r _ count iter first <<<"$line"
  check "$refuse: stats.rejections.$reason present" $([ -n "$line" ] && [ "$count" -gt 0 ]; echo $?)
  grep -qF "rejected   $count $label, first at iteration $iter: $first" "$work/$refuse.txt"
  check "$refuse: the summary line is the plan file's ($count $label, iteration $iter: $first)" $?
}

# --- the physics refuses: the lower box pressed into the floor --------------------------------
plan none
agree none static_penetration "static penetration"
grep -Eq "^rejected   [0-9]+ static penetration, first at iteration [0-9]+: 'lower' 0\.0[5-9][0-9]* m into static 'floor' \(limit 0\.05 m\) in the step from t = [0-9.]+ s$" "$work/none.txt"
check "none: names the pair (lower into floor), the depth, the limit and the time" $?
grep -Eq "^rejected .* (valid|unspecified|out of range)" "$work/none.txt"
check "none: no other reason" $([ $? -ne 0 ]; echo $?)

# --- a valid condition's leaf refuses: named as the script wrote it ------------------------------
plan leaf
agree leaf valid "valid"
grep -Eq "^rejected   [0-9]+ valid, first at iteration [0-9]+: tp\.inside 'upper' \([^)]*stack_press\.lua:13\) was false: 'upper' at \([^)]*, 0\.2[0-6][0-9]*\) at t = [0-9.]+ s$" "$work/leaf.txt"
check "leaf: names tp.inside 'upper' with its file:line and the value" $?

# --- a valid function refuses: its file:line --------------------------------------------------
plan function
agree function valid "valid"
grep -Eq "^rejected   [0-9]+ valid, first at iteration [0-9]+: function \([^)]*stack_press\.lua:16\) was false: it returned false at t = [0-9.]+ s$" "$work/function.txt"
check "function: names the function's file:line" $?

# --- determinism: the same run twice writes the same plan (timing aside) ---------------------
"$tplan" plan "$script" --set refuse=leaf -o "$work/leaf2.json" -q
check "leaf: byte-identical plan on a second run" $(same "$work/leaf.json" "$work/leaf2.json"; echo $?)
# the replay reads the new member
"$tplan" replay "$work/none.json" -q >/dev/null 2>"$work/replay.err"
check "none: replays ($(head -c 200 "$work/replay.err"))" $?

# --- --jobs 2: the merged statistics (the selected worker's) with their reasons -------------
cp "$work/leaf.txt" "$work/leaf1.txt"
plan leaf --jobs 2 -o "$work/leafj.json"
mv "$work/leaf.txt" "$work/leafj.txt"; mv "$work/leaf1.txt" "$work/leaf.txt"
stats "$work/leafj.json" >"$work/leafj.stats"
read -r _ nj _ sumj <"$work/leafj.stats"
check "--jobs 2: stats.rejections add up ($sumj vs $nj)" $([ "$sumj" = "$nj" ]; echo $?)
grep -A1 '^search ' "$work/leafj.txt" | tail -1 | grep -q "^rejected   [0-9]* valid, first at iteration [0-9]*: tp.inside 'upper'"
check "--jobs 2: the rejected line under the search line" $?

# --- bench: the JSON records carry the reasons ---------------------------------------------
"$tplan" bench --domains "$script" --planners bgt --seeds 2 --set refuse=leaf --out "$work/b.json" -q >/dev/null 2>&1
python3 - "$work/b.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert len(runs) == 2, runs
for r in runs:
    rj = r["rejections"]
    assert sum(e["count"] for e in rj.values()) == r["rejected"] > 0, r
    assert "tp.inside 'upper'" in rj["valid"]["first"], rj
PY
check "bench JSON: rejected and rejections per run" $?

finish reasons
