#!/usr/bin/env bash
# Plans minigolf with one planner and seed, expects "solved" (exit 0), then replays the plan bit
# for bit (exit 0). Usage: minigolf.sh TPLAN rrt|bgt SEED WORKDIR
set -u
tplan=$1 planner=$2 seed=$3 work=$4
out="$work/minigolf-$planner-$seed.plan.json"
"$tplan" plan minigolf --planner "$planner" --seed "$seed" -o "$out"
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: tplan plan minigolf --planner $planner --seed $seed exited $rc (expected 0 = solved)"
  exit 1
fi
"$tplan" replay "$out"
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: tplan replay $out exited $rc"
  exit 1
fi
echo "1 passed, 0 failed"
