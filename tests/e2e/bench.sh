#!/usr/bin/env bash
# tplan bench on a tiny budget: the table has a row per domain x planner with the paper columns,
# a missing domain gets a "domain not found" line and exit 3 while the others still run, the raw
# records (JSON and CSV) hold seeds x planners x domains runs with every field, the Fig. 13 data
# (and the PNG when gnuplot is installed) is written, bad options exit 2. Also: a BK-RRT plan is
# byte-identical (timing aside) with and without the nearest-neighbour index.
# Usage: bench.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/bench
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
ok() { [ "$1" ] && echo 0 || echo 1; }

# --- table + JSON -------------------------------------------------------------------------
"$tplan" bench --domains minigolf,minigolf_random,no_such_domain --planners rrt,bgt --seeds 2 \
  --max-iters 1500 --out "$work/b.json" -q >"$work/table.txt" 2>"$work/err.txt"
rc=$?
check "missing domain: exit 3 (got $rc; $(head -c 300 "$work/err.txt"))" $([ $rc -eq 3 ]; echo $?)
cat "$work/table.txt"
grep -q "^no_such_domain .*domain not found" "$work/table.txt"; check "domain not found line" $?
for row in "minigolf  *BK-RRT  *2 " "minigolf  *BK-BGT  *2 " "minigolf_random  *BK-RRT  *2 " "minigolf_random  *BK-BGT  *2 "; do
  grep -q "^$row" "$work/table.txt"; check "table row '$row'" $?
done
# a row: solved %, time to the first solution ("-" when the median run is unsolved), two times,
# nodes, four shares
grep "^minigolf  *BK-RRT" "$work/table.txt" |
  grep -Eq "[0-9.]+% +([0-9.]+s|-) +[0-9.]+s +[0-9.]+s +[0-9]+ \| +[0-9.]+% +[0-9.]+% +[0-9.]+% +[0-9.]+% \|"
check "row format" $?
# the ablation solves nothing in 1500 iterations: no first-solution time
grep "^minigolf_random  *BK-RRT" "$work/table.txt" | grep -Eq "0\.0% +- +[0-9.]+s"
check "unsolved row: t_first is -" $?
# a domain without a sampling space (dice) has no BK-RRT row: "n/a", not an error (exit 0)
"$tplan" bench --domains dice --planners rrt --seeds 1 -q >"$work/dice.txt" 2>&1
rc=$?
check "dice BK-RRT: exit 0 (got $rc)" $([ $rc -eq 0 ]; echo $?)
grep -q "^dice  *rrt  *n/a: the domain has no sampling space" "$work/dice.txt"; check "dice BK-RRT n/a line" $?
# per-run records: 2 domains x 2 planners x 2 seeds
n=$(grep -c '"seed":' "$work/b.json")
check "JSON: 8 run records (got $n)" $([ "$n" = 8 ]; echo $?)
for f in domain planner seed solved time time_first nodes_first nodes iterations solution_steps tree_bytes \
         maxrss_kb breakdown select copy tactics search physics check other; do
  c=$(grep -c "\"$f\":" "$work/b.json")
  check "JSON: field $f in every record (got $c)" $([ "$c" = 8 ]; echo $?)
done
for d in minigolf minigolf_random; do
  for p in rrt bgt; do
    c=$(grep -A1 "\"domain\":.*\"$d\"" "$work/b.json" | grep -c "\"planner\":.*\"$p\"")
    check "JSON: 2 records for $d/$p (got $c)" $([ "$c" = 2 ]; echo $?)
  done
done
grep -q '"iterations":.*1500' "$work/b.json"; check "JSON: --max-iters reaches the runs" $?

# --- CSV + plot ---------------------------------------------------------------------------
"$tplan" bench --domains minigolf --planners rrt,bgt --seeds 2 --max-iters 1500 --out "$work/b.csv" \
  --plot "$work/fig13.png" --plot-iters 3000 -q >"$work/table2.txt" 2>"$work/err2.txt"
rc=$?
check "CSV run: exit 0 (got $rc; $(head -c 300 "$work/err2.txt"))" $([ $rc -eq 0 ]; echo $?)
n=$(wc -l <"$work/b.csv")
check "CSV: header + 4 runs (got $n lines)" $([ "$n" = 5 ]; echo $?)
head -1 "$work/b.csv" | grep -q "^domain,planner,seed,solved,time_s,nodes,iterations,solution_steps,tree_bytes,maxrss_kb,select_s,tactics_s,physics_s,check_s,other_s,first_time_s,first_nodes,search_s,copy_s$"
check "CSV header" $?
bad=$(awk -F, 'NR > 1 && NF != 19' "$work/b.csv" | wc -l)
check "CSV: 19 columns per run" $([ "$bad" = 0 ]; echo $?)
# pool (3 solutions, many-worlds selection) solves in well under a second: the first solution
# came before the end of the run, with fewer nodes
"$tplan" bench --domains pool --planners bgt --seeds 2 --out "$work/pool.csv" -q >"$work/pool.txt" 2>&1
c=$(awk -F, 'NR > 1 && $4 == 1 && $16 != "" && $16 <= $5 && $17 >= 2 && $17 < $6' "$work/pool.csv" | wc -l)
check "CSV: pool runs solved, first solution within the run (got $c of 2)" $([ "$c" = 2 ]; echo $?)
grep "^pool  *BK-BGT" "$work/pool.txt" | grep -Eq "100\.0% +[0-9.]+s +[0-9.]+s"
check "pool row: a t_first" $?
c=$(grep -c "^minigolf,rrt," "$work/b.csv"); check "CSV: 2 rrt runs" $([ "$c" = 2 ]; echo $?)
c=$(grep -c "^minigolf,bgt," "$work/b.csv"); check "CSV: 2 bgt runs" $([ "$c" = 2 ]; echo $?)
[ -s "$work/fig13.png.dat" ]; check "fig13 data written" $?
last=$(tail -1 "$work/fig13.png.dat" | awk '{print $2}')
check "fig13: the plot run reaches --plot-iters (last sample at $last iterations)" $([ "$last" = 3000 ]; echo $?)
if command -v gnuplot >/dev/null 2>&1; then
  [ "$(head -c 4 "$work/fig13.png" | tail -c 3)" = "PNG" ]; check "fig13 PNG written" $?
fi
# without gnuplot: a clear message and the data file anyway
PATH=/nonexistent "$tplan" bench --domains minigolf --planners bgt --seeds 1 --max-iters 500 \
  --plot "$work/nogp.png" --plot-iters 500 -q >"$work/nogp.txt" 2>&1
rc=$?
check "no gnuplot: exit 0 (got $rc)" $([ $rc -eq 0 ]; echo $?)
grep -q "gnuplot is not installed" "$work/nogp.txt"; check "no gnuplot: message" $?
[ -s "$work/nogp.png.dat" ] && [ ! -e "$work/nogp.png" ]; check "no gnuplot: data only" $?

# --- bad options --------------------------------------------------------------------------
"$tplan" bench --out "$work/x.txt" >/dev/null 2>&1; check "--out x.txt: exit 2" $([ $? -eq 2 ]; echo $?)
"$tplan" bench --planners foo >/dev/null 2>&1; check "--planners foo: exit 2" $([ $? -eq 2 ]; echo $?)
"$tplan" bench --seeds 0 >/dev/null 2>&1; check "--seeds 0: exit 2" $([ $? -eq 2 ]; echo $?)
"$tplan" bench --help | grep -q "usage: tplan bench"; check "bench --help" $?

# --- the NN index does not change plans ---------------------------------------------------
for f in index linear; do
  extra=""; [ $f = linear ] && extra=--no-nn-index
  "$tplan" plan minigolf_random --planner rrt --seed 3 --max-iters 4000 --set distance=euclidean \
    --set hold_max=0.0167 -q -o "$work/nn_$f.json" $extra
  sed 's/"timing": {[^}]*}/"timing": {}/' "$work/nn_$f.json" >"$work/nn_$f.cmp"
done
cmp -s "$work/nn_index.cmp" "$work/nn_linear.cmp"; check "same plan with and without the NN index" $?
grep -q '"nodes": [0-9]\{4\}' "$work/nn_index.json"; check "NN plan run built a tree of thousands of nodes" $?

# --- --jobs: the same records in the same order as a sequential run (timing and memory aside) ---
for j in 1 2; do
  "$tplan" bench --domains minigolf,dice --planners rrt,bgt --seeds 3 --max-iters 300 --set dice:count=10 \
    --jobs $j -q --out "$work/jobs$j.json" >/dev/null 2>&1
  check "bench --jobs $j ran" $?
done
python3 "$(dirname "$0")/same_records.py" "$work/jobs1.json" "$work/jobs2.json" 9
check "bench --jobs 2: the records of --jobs 1, in the same order" $?
# --- the skills' navigation searches: measured inside tactics on a navigation domain, absent elsewhere ---
"$tplan" bench --domains maze,minigolf --planners bgt --seeds 1 -q --out "$work/search.json" >/dev/null 2>&1
check "bench maze,minigolf ran" $?
python3 - "$work/search.json" <<'PY'
import json, sys
runs = {r["domain"]: r["breakdown"] for r in json.load(open(sys.argv[1]))["runs"]}
maze, golf = runs["maze"], runs["minigolf"]
ok = 0 < maze["search"] <= maze["tactics"] and golf["search"] == 0
print("maze search %.4f of tactics %.4f; minigolf search %g" % (maze["search"], maze["tactics"], golf["search"]))
sys.exit(0 if ok else 1)
PY
check "breakdown.search: > 0 and within tactics for maze (nav_to), 0 for minigolf" $?
"$tplan" plan maze --seed 1 --no-out | grep -q "of which the skills' navigation searches"
check "plan maze: prints the navigation-search share" $?
"$tplan" plan minigolf --seed 1 --no-out | grep -q "navigation searches"
check "plan minigolf: no navigation-search line" $([ $? -ne 0 ]; echo $?)
"$tplan" bench --jobs 0 >/dev/null 2>&1; check "--jobs 0: exit 2" $([ $? -eq 2 ]; echo $?)

finish bench.sh
