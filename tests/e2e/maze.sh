#!/usr/bin/env bash
# Plans the maze domain (nav_to: grid planner + Kuffner controller) for seeds 1..N; every seed
# must be solved (exit 0) and its plan must replay bit for bit. Usage: maze.sh TPLAN N WORKDIR
set -u
tplan=$1 n=$2 work=$3/maze
rm -rf "$work" && mkdir -p "$work"
fail=0
for seed in $(seq 1 "$n"); do
  out="$work/$seed.plan.json"
  "$tplan" plan maze --seed "$seed" -q -o "$out"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: seed $seed: tplan plan exited $rc (0 = solved expected)"
    fail=$((fail + 1))
    continue
  fi
  if ! "$tplan" replay -q "$out"; then
    echo "FAIL: seed $seed: tplan replay $out failed"
    fail=$((fail + 1))
  fi
done
echo "maze: $((n - fail)) of $n seeds solved and replayed"
[ $fail -eq 0 ]
