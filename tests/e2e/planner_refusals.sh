#!/usr/bin/env bash
# The "skills that fail silently", from the domain authors' reproductions:
# - a scene that starts with bodies overlapping beyond max_static_penetration or
#   max_body_penetration is refused at load, exit 2, in one line naming the body's line, the pair
#   and the depth (it spent its whole budget rejecting the root's children before); within the
#   limits it plans as before;
# - BK-RRT on a domain without a sampling space (from the command line or the script's planner
#   table) says what to declare, not "planner.kind = RRT requires problem.key_dim > 0";
# - `wait` may name its own body as its target (wait until it itself rests).
# Usage: planner_refusals.sh TPLAN SCRIPTS_DIR WORKDIR
set -u
tplan=$1 scripts=$2 work=$3/planner-refusals
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"

ov="$scripts/start_overlap.lua"
"$tplan" plan "$ov" -o "$work/ov.json" >"$work/out.txt" 2>"$work/err.txt"
rc=$?
check "start_overlap: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
want="$ov:13: body 'plank' starts 0.018 m into static 'floor' (max_static_penetration 0.005 m): move it out, or raise the limit"
check "start_overlap: the one line, got: $(head -c 600 "$work/err.txt")" $([ "$(cat "$work/err.txt")" = "$want" ]; echo $?)
check "start_overlap: no search, no plan" $([ ! -s "$work/out.txt" ] && [ ! -e "$work/ov.json" ]; echo $?)

"$tplan" plan "$ov" --set case=pair -q --no-out 2>"$work/err.txt"
rc=$?
want="$ov:18: bodies 'crate' and 'lid' start overlapping 0.03 m (max_body_penetration 0.02 m): move them apart, or raise the limit"
check "start_overlap pair: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
check "start_overlap pair: the one line, got: $(head -c 600 "$work/err.txt")" $([ "$(cat "$work/err.txt")" = "$want" ]; echo $?)

"$tplan" plan "$ov" --set case=within -q -o "$work/within.json" 2>"$work/err.txt"
rc=$?
check "start_overlap within the limit: exit $rc, expected 0 or 3 (planned)" $([ $rc -eq 0 ] || [ $rc -eq 3 ]; echo $?)
check "start_overlap within the limit: a plan" $([ -s "$work/within.json" ]; echo $?)

rrt="$scripts/rrt_no_sampling.lua"
for how in "--planner rrt" "--set inscript=1"; do
  # shellcheck disable=SC2086
  "$tplan" plan "$rrt" $how -q --no-out 2>"$work/err.txt"
  rc=$?
  check "rrt_no_sampling ($how): exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
  check "rrt_no_sampling ($how): says what to declare, got: $(head -c 600 "$work/err.txt")" \
    $(grep -q "BK-RRT needs a sampling space: add sampling = { ... } to tp.domain" "$work/err.txt" &&
      ! grep -q "key_dim" "$work/err.txt" && [ "$(wc -l <"$work/err.txt")" -eq 1 ]; echo $?)
done
"$tplan" plan "$rrt" -q --no-out 2>/dev/null
rc=$?
check "rrt_no_sampling with BK-BGT: exit $rc, expected 0 or 3" $([ $rc -eq 0 ] || [ $rc -eq 3 ]; echo $?)

ws="$scripts/wait_self.lua"
"$tplan" plan "$ws" -q -o "$work/ws.json" 2>"$work/err.txt"
rc=$?
check "wait_self: exit $rc, expected 0 (solved), stderr: $(head -c 300 "$work/err.txt")" $([ $rc -eq 0 ]; echo $?)
expect "wait_self: replays bit for bit" "$tplan" replay "$work/ws.json" --check -q
finish planner_refusals
