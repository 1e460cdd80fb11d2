#!/usr/bin/env bash
# The hard problems of the hard-problems audit as shipped domains, on a small budget each (so the test
# stays well under 30 s under ASan): domains/pile.lua with 8 boxes, domains/tower.lua with its 5
# blocks, domains/curling.lua's hit-and-stay, seed 1, the domain's default planner. Each solves,
# replays bit for bit (tplan replay --check), has one step of force per throw and nothing else,
# and its end state is what the goal says, checked from the plan's own numbers (python3): the pile's
# boxes inside the square, the tower's blocks stacked level by level, the opponent's stone out of
# the house and ours in it. A tower cut short (150 iterations) answers with the tower so far (steps,
# blocks stacked), not a 0-step plan.
# Usage: hard.sh TPLAN DOMAINS_DIR WORKDIR
set -u
tplan=$1 domains=$2 work=$3/hard
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"

plan() { # NAME ARGS...: plans domains/NAME.lua into $work/NAME.json, checks it solves and replays
  local name=$1
  shift
  "$tplan" plan "$domains/$name.lua" --seed 1 -o "$work/$name.json" "$@" >"$work/$name.txt" 2>&1
  check "$name: exit 0 ($(grep '^status' "$work/$name.txt"))" $?
  grep -q "^status     solved" "$work/$name.txt"
  check "$name: solved" $?
  "$tplan" replay -q --check "$work/$name.json"
  check "$name: replays bit for bit" $?
}

plan pile --set count=8
plan tower
plan curling

# BK-RRT, the other planner (0/10 on both before its nearest neighbour broke ties toward
# the newest node and retired failing chains, and before the tower's key listed every block): each
# solves, its tree deeper than the first throw, and replays
for run in "pile --set count=8" "tower"; do
  set -- $run
  name=$1
  shift
  "$tplan" plan "$domains/$name.lua" --planner rrt --seed 1 --max-iters 3000 -o "$work/rrt_$name.json" "$@" \
    >"$work/rrt_$name.txt" 2>&1
  check "$name BK-RRT: solved within 3000 iterations ($(grep '^status\|^search' "$work/rrt_$name.txt" | tr '\n' ' '))" \
    $(grep -q "^status     solved" "$work/rrt_$name.txt"; echo $?)
  "$tplan" replay -q --check "$work/rrt_$name.json"
  check "$name BK-RRT: replays bit for bit" $?
done

# sampling.bodies refusals: one line naming the field (the tower's sampling made wrong three ways)
bad() { # WHAT SED-EXPRESSION EXPECTED-TEXT
  sed "$2" "$domains/tower.lua" >"$work/bad.lua"
  "$tplan" plan "$work/bad.lua" --no-out -q >"$work/bad.txt" 2>&1
  rc=$?
  check "sampling.bodies $1: exit 2, got $rc, says '$3': $(head -c 300 "$work/bad.txt")" \
    $([ $rc -eq 2 ] && grep -q "$3" "$work/bad.txt"; echo $?)
}
bad "with min_time" 's/distance = "euclidean",$/distance = "min_time",/' 'sampling.bodies needs distance = "euclidean"'
bad "with body" 's/bodies = names },/bodies = names, body = "block1" },/' 'body and bodies are exclusive'
bad "unknown name" 's/bodies = names },/bodies = { "block1", "nosuch" } },/' 'nosuch'

# an unsolved tower's approximate answer is the tower so far, at rest, not the 0-step plan the hard-problems audit
# saw on 3 of 10 seeds (the quality is tp.arranged: the blocks in their places)
"$tplan" plan "$domains/tower.lua" --seed 1 --max-iters 150 -o "$work/short.json" >"$work/short.txt" 2>&1
rc=$?
steps=$(sed -n 's/^plan       \([0-9]*\) steps.*/\1/p' "$work/short.txt")
check "tower at 150 iterations: exit 3 (approximate), got $rc" $([ $rc -eq 3 ]; echo $?)
check "tower at 150 iterations: the approximate plan has steps (${steps:-none}) and stacked blocks ($(grep '^report' "$work/short.txt"))" \
  $([ "${steps:-0}" -gt 0 ] && grep -q "^report     stacked 0\.[1-9]" "$work/short.txt"; echo $?)

python3 - "$work" <<'PY'
import json, math, sys
work = sys.argv[1]
fails = 0
def expect(what, ok):
    global fails
    if not ok:
        fails += 1
        print("FAIL:", what)

def load(name):
    p = json.load(open(f"{work}/{name}.json"))
    return p, {b["name"]: b for b in p["bodies"]}

def end(b):
    return b["trajectory"][-1]

def throws_only(name, p, bodies, thrown):
    for n in thrown:
        acted = [k for k, c in enumerate(bodies[n]["controls"]) if any(x != 0 for x in c)]
        expect(f"{name}: {n} has exactly one step of force (its release), got {len(acted)}", len(acted) == 1)

# the pile: every box's centre within 0.36 m of the square's centre (x and y), at rest on the floor
p, bodies = load("pile")
boxes = [n for n in bodies if n.startswith("box")]
expect(f"pile: 8 boxes, got {len(boxes)}", len(boxes) == 8)
throws_only("pile", p, bodies, boxes)
for n in boxes:
    x, y, z = end(bodies[n])[:3]
    expect(f"pile: {n} inside the square: ({x:.3f}, {y:.3f}, {z:.3f})", abs(x) <= 0.36 and abs(y) <= 0.36 and z < 0.3)

# the tower: block k's centre within 3.5 cm of the axis and 1 cm of 0.05 + 0.1 (k - 1) m
p, bodies = load("tower")
blocks = [f"block{k}" for k in range(1, 6)]
throws_only("tower", p, bodies, blocks)
for k, n in enumerate(blocks):
    x, y, z = end(bodies[n])[:3]
    expect(f"tower: {n} on level {k + 1}: ({x:.3f}, {y:.3f}, {z:.3f})",
           abs(x) <= 0.035 and abs(y) <= 0.035 and abs(z - (0.05 + 0.1 * k)) <= 0.01)

# curling: theirs out of the house (centre > 1.83 + 0.145 m from the tee), ours in, and they touched
p, bodies = load("curling")
throws_only("curling", p, bodies, ["stone"])
tee = (6.4, 0.0)
def from_tee(n):
    x, y = end(bodies[n])[:2]
    return math.hypot(x - tee[0], y - tee[1])
expect(f"curling: their stone out of the house ({from_tee('theirs'):.3f} m)", from_tee("theirs") > 1.975)
expect(f"curling: our stone in the house ({from_tee('stone'):.3f} m)", from_tee("stone") < 1.975)
# they touched: the two centres came within two radii (plus the contact slack) at some step
close = min(math.hypot(a[0] - b[0], a[1] - b[1])
            for a, b in zip(bodies["stone"]["trajectory"], bodies["theirs"]["trajectory"]))
expect(f"curling: the stones touched (closest {close:.4f} m)", close < 2 * 0.145 + 0.01)
sys.exit(1 if fails else 0)
PY
check "the end states are the goals' (from the plans' numbers)" $?

finish hard
