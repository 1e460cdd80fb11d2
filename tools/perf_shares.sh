#!/usr/bin/env bash
# The physics share of planning time two ways: as `tplan bench` reports it (its own timers around
# the physics callback) and as `perf` samples it (the samples under cb_simulate, the physics
# callback, over those under tpPlanner_Run, with DWARF call graphs). The two should agree within a
# few points (in_planner: the share of all samples inside the planner; the rest is start-up,
# Lua loading and the bench itself). Samples whose call chain perf cannot unwind up to
# tpPlanner_Run count in neither: crowd's chains stop in the vectorised relaxation kernel
# (relaxHalf.avx2, a quarter of its samples), so its perf figure overstates physics; check such a
# domain with `perf report --no-children`. A large gap elsewhere means a timer is attributing
# work to the wrong column. Needs perf (Debian: apt-get install linux-perf) and a Release build
# with symbols (the default).
# usage: tools/perf_shares.sh [BUILD_DIR] [SEEDS] DOMAIN...   (default: build, 10 seeds, BK-BGT)
# e.g.   tools/perf_shares.sh build 10 pool elevator
set -euo pipefail
build=build
seeds=10
if [ $# -gt 0 ] && [ -d "$1" ]; then build=$1; shift; fi
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then seeds=$1; shift; fi
[ $# -gt 0 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
command -v perf > /dev/null || { echo "perf_shares: perf not found (apt-get install linux-perf)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-12s %8s %8s %10s\n' domain bench perf in_planner
for d in "$@"; do
  perf record -q -F 4000 --call-graph dwarf,65528 -o "$tmp/perf.data" -- \
    "$build/tplan" bench --domains "$d" --planners bgt --seeds "$seeds" --out "$tmp/b.json" > /dev/null 2>&1
  bench=$(python3 -c '
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
print("%.1f" % (100 * sum(r["breakdown"]["physics"] for r in runs) / sum(r["time"] for r in runs)))' "$tmp/b.json")
  # children (inclusive) percentages of the two frames; their ratio is the physics share
  perf report -q -i "$tmp/perf.data" --children --stdio --sort sym -g none 2> /dev/null |
    awk -v d="$d" -v b="$bench" '
      $NF == "tpPlanner_Run" { run = $1 + 0 }
      $NF == "cb_simulate"   { sim = $1 + 0 }
      END {
        if (run <= 0) { printf "%-12s %7s%% %8s %8s\n", d, b, "-", "no tpPlanner_Run samples"; exit }
        printf "%-12s %7s%% %7.1f%% %9.1f%%\n", d, b, 100 * sim / run, run
      }'
done
