#!/usr/bin/env bash
# The pool chain domain prunes dead-end shots early (domains/pool.lua, `dead_ends`). A prune may
# only save simulation: it must never reject a shot that would still pocket both targets. Every
# expansion of the pool tree is one whole shot drawn from the same random stream whatever the
# prunes do, so planning with and without them (--set prune=false) must select the very same
# solutions: the plan files must be equal apart from the recorded override and the search stats
# (counts, rejections by reason, timing).
# Usage: pool_prune.sh TPLAN WORKDIR "SEEDS" [PLANNER]
set -u
tplan=$1 work=$2 seeds=$3 planner=${4:-bgt}
rm -rf "$work" && mkdir -p "$work"
fail=0
# (stats.rejections spans lines: from its opening line to the one closing it, "...}},")
strip() { sed '/"rejections": {/,/}},$/d' "$1" | grep -v -e '"overrides"' -e '"stats"' -e '"first_solution_nodes"' -e '"timing"'; }
for seed in $seeds; do
  a="$work/$seed.pruned.json" b="$work/$seed.unpruned.json"
  if ! "$tplan" plan pool --planner "$planner" --seed "$seed" -q -o "$a" ||
     ! "$tplan" plan pool --planner "$planner" --seed "$seed" -q -o "$b" --set prune=false; then
    echo "FAIL: pool $planner seed $seed: not solved"
    fail=$((fail + 1))
    continue
  fi
  if ! cmp -s <(strip "$a") <(strip "$b"); then
    echo "FAIL: pool $planner seed $seed: the prunes changed the selected solutions (a prune rejected a shot that pockets both targets)"
    diff <(strip "$a") <(strip "$b") | head -5
    fail=$((fail + 1))
  fi
done
[ $fail -eq 0 ] && echo "pool prunes sound on seeds: $seeds"
exit $((fail > 0))
