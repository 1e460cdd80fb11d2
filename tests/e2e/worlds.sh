#!/usr/bin/env bash
# The animator audit, many-worlds browsing from the command line: a --solutions 5 plan of the shipped
# minigolf domain carries one summary per world (member "worlds"); `tplan worlds` filters them by
# space-time queries and ranks them, each answer checked against the trajectories read here in
# Python; --pick makes another world the selected one (replays bit for bit); `tplan plan
# --from-plan --world K --until T` keeps world K up to T and plans the rest (the kept rows are
# world K's, bit for bit, the whole replays) and --where selects a solution that satisfies a query;
# bad queries (an unknown body, an empty region) get one line naming the clause and field, exit 2.
# Usage: worlds.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/worlds
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"

"$tplan" plan minigolf --seed 1 --solutions 5 -q -o "$work/p.json"
check "minigolf --solutions 5: solved" $?
"$tplan" plan minigolf --seed 1 -q -o "$work/one.json"
check "minigolf one solution: solved" $?
check "a single-world plan has no worlds member" $(grep -q '"worlds"' "$work/one.json"; [ $? -eq 1 ]; echo $?)

# the answers, against Python's reading of the file
q1='duration < 13'
q2='ball inside [1.5,1.7]x[-0.6,-0.3]x[-inf,inf] between 0 12.65'
q3='never robot touches ball'
"$tplan" worlds "$work/p.json" --json --where "$q1" --rank -duration > "$work/q1.json"
check "worlds --where '$q1'" $?
"$tplan" worlds "$work/p.json" --json --where "$q2" --rank duration,-impulse > "$work/q2.json"
check "worlds --where '$q2'" $?
"$tplan" worlds "$work/p.json" --json --where "$q3" > "$work/q3.json"
check "worlds --where '$q3'" $?
"$tplan" worlds "$work/p.json" --json > "$work/all.json"
check "worlds (all)" $?
python3 - "$work" <<'PY'
import json, math, sys
w = sys.argv[1]
p = json.load(open(w + "/p.json"))
dt = p["dt"]
names = [b["name"] for b in p["bodies"]]
# world k: 0 the plan's own, k its alternative k
worlds = [{b["name"]: b["trajectory"] for b in p["bodies"] if "trajectory" in b}]
worlds += [a["trajectories"] for a in p["alternatives"]]
steps = [p["steps"]] + [a["steps"] for a in p["alternatives"]]
assert len(worlds) == 5, len(worlds)
summ = p["worlds"]["summaries"]
assert p["worlds"]["version"] == 1 and len(summ) == 5
bad = []
for k, s in enumerate(summ):
    if s["world"] != k or s["steps"] != steps[k] or abs(s["duration"] - steps[k] * dt) > 1e-9:
        bad.append("summary %d: %s" % (k, s))
    end = worlds[k]["ball"][-1]
    if s["end"]["ball"][:3] != end[:3]:
        bad.append("summary %d: ball end %s != %s" % (k, s["end"]["ball"], end[:3]))
def ranked(match, key):
    return sorted(match, key=key)
q1 = json.load(open(w + "/q1.json"))
m1 = [k for k in range(5) if steps[k] * dt < 13]
want1 = sorted(m1, key=lambda k: (-steps[k], k))
if q1["order"] != want1 or [x["match"] for x in q1["worlds"]] != [k in m1 for k in range(5)]:
    bad.append("q1: %s, want %s" % (q1["order"], want1))
q2 = json.load(open(w + "/q2.json"))
def inside(k):
    return any(1.5 <= r[0] <= 1.7 and -0.6 <= r[1] <= -0.3 for i, r in enumerate(worlds[k]["ball"]) if i * dt <= 12.65)
m2 = [k for k in range(5) if inside(k)]
imp = [s["control"]["impulse"] for s in summ]
want2 = sorted(m2, key=lambda k: (steps[k], -imp[k], k))
if q2["order"] != want2:
    bad.append("q2: %s, want %s" % (q2["order"], want2))
if not (0 < len(m1) < 5 and 0 < len(m2) < 5):
    bad.append("the queries do not split the worlds: %s %s" % (m1, m2))
allw = json.load(open(w + "/all.json"))
if allw["order"] != [0, 1, 2, 3, 4] or [x["world"] for x in allw["worlds"]] != [0, 1, 2, 3, 4]:
    bad.append("all: %s" % allw["order"])
# the file's summaries and the browser's are the same objects (less "match")
for a, b in zip(summ, allw["worlds"]):
    b = dict(b); b.pop("match")
    if a != b:
        bad.append("summary %d differs from the browser's" % a["world"])
print("\n".join(bad)) if bad else None
sys.exit(1 if bad else 0)
PY
check "the answers match the trajectories (filter, rank, summaries)" $?

# the table
"$tplan" worlds "$work/p.json" --where "$q1" > "$work/table.txt"
check "table: names the matching count" $(grep -q "of 5 worlds match 'duration < 13'" "$work/table.txt"; echo $?)

# bad queries: one line naming the clause and the field, exit 2
"$tplan" worlds "$work/p.json" --where 'robot touches bal' 2> "$work/e1.txt"
rc=$?
check "unknown body: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
check "unknown body: one line naming it: $(cat "$work/e1.txt")" \
  $(grep -q "^tplan: error: --where: query: clause 1 (touches): other body: no body named 'bal' (bodies: " "$work/e1.txt" &&
    [ "$(wc -l < "$work/e1.txt")" -eq 1 ]; echo $?)
"$tplan" worlds "$work/p.json" --where 'ends at rest and ball inside [0,1]x[2,1]x[0,1]' 2> "$work/e2.txt"
rc=$?
check "empty region: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
check "empty region: names it: $(cat "$work/e2.txt")" \
  $(grep -q "clause 2 (inside): empty region: y from 2 to 1" "$work/e2.txt" && [ "$(wc -l < "$work/e2.txt")" -eq 1 ]; echo $?)
"$tplan" worlds "$work/p.json" --rank speed 2> "$work/e3.txt"
check "unknown rank key: exit 2" $([ $? -eq 2 ]; echo $?)

# --pick: world 2 becomes the selected one
"$tplan" worlds "$work/p.json" --pick 2 -o "$work/pick2.json"
check "--pick 2" $?
expect "--pick 2: replays bit for bit" "$tplan" replay "$work/pick2.json" --check -q
python3 - "$work/p.json" "$work/pick2.json" <<'PY'
import json, sys
p, q = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ball = [b for b in q["bodies"] if b["name"] == "ball"][0]["trajectory"]
sys.exit(0 if ball == p["alternatives"][1]["trajectories"]["ball"] and q["steps"] == p["alternatives"][1]["steps"] else 1)
PY
check "--pick 2: the selected world is the old world 2" $?

# refine: keep world 2 up to 4 s, plan the rest again
"$tplan" plan minigolf --from-plan "$work/p.json" --world 2 --until 4 --solutions 3 -q -o "$work/r.json"
check "refine: solved" $?
expect "refine: replays bit for bit from the start" "$tplan" replay "$work/r.json" --check -q
python3 - "$work/p.json" "$work/r.json" <<'PY'
import json, sys
p, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
old = p["alternatives"][1]
k = round(4 / p["dt"])
bad = []
for b in r["bodies"]:
    if "trajectory" in b and b["trajectory"][:k + 1] != old["trajectories"][b["name"]][:k + 1]:
        bad.append("%s: the first %d rows are not world 2's" % (b["name"], k + 1))
    if "controls" in b and b["controls"][:k] != old["controls"][b["name"]][:k]:
        bad.append("%s: the first %d controls are not world 2's" % (b["name"], k))
for a in r["alternatives"]:
    if a["trajectories"]["ball"][:k + 1] != old["trajectories"]["ball"][:k + 1]:
        bad.append("an alternative does not keep world 2")
if r["version"] != p["version"] or "start" in r:
    bad.append("version %s, start %s" % (r["version"], r.get("start")))
if r["status"] != "solved" or r["steps"] <= k:
    bad.append("status %s, steps %d" % (r["status"], r["steps"]))
print("\n".join(bad)) if bad else None
sys.exit(1 if bad else 0)
PY
check "refine: the kept part is world 2's, bit for bit, in every world" $?
# the extra goal: the longest of the solutions must be selected by 'duration > D'
d=$(python3 -c "
import json,sys; r=json.load(open('$work/r.json')); s=sorted([r['steps']]+[a['steps'] for a in r['alternatives']])
print((s[-1]+s[-2])/2*r['dt'] if len(s) > 1 and s[-1] != s[-2] else '')")
if [ -n "$d" ]; then
  "$tplan" plan minigolf --from-plan "$work/p.json" --world 2 --until 4 --solutions 3 --where "duration > $d" -q \
    -o "$work/rw.json"
  check "refine --where: solved" $?
  python3 -c "
import json,sys; r=json.load(open('$work/rw.json'))
sys.exit(0 if r['steps']*r['dt'] > $d and all(a['steps']*r['dt'] <= $d for a in r['alternatives']) else 1)"
  check "refine --where 'duration > $d': the selected solution satisfies it, no other does" $?
  expect "refine --where: replays" "$tplan" replay "$work/rw.json" --check -q
else
  check "refine: three solutions of different lengths" 1
fi
"$tplan" plan minigolf --from-plan "$work/p.json" --world 2 --until 4 --where 'duration > 100000' -q --no-out \
  2> "$work/e4.txt"
rc=$?
check "refine --where nothing satisfies: exit $rc, expected 3, a warning" \
  $([ $rc -eq 3 ] && grep -q "none of the 1 solutions satisfies" "$work/e4.txt"; echo $?)
"$tplan" plan minigolf --from-plan "$work/p.json" --world 7 --until 4 -q --no-out 2> "$work/e5.txt"
check "refine: a world out of range names --world" \
  $([ $? -eq 2 ] && grep -q "^tplan: error: --world: 7 is not a world of" "$work/e5.txt"; echo $?)
"$tplan" plan minigolf --from-plan "$work/p.json" --until 99 -q --no-out 2> "$work/e6.txt"
check "refine: a time past the world names --until" \
  $([ $? -eq 2 ] && grep -q "^tplan: error: --until: 99 s is not within world 0" "$work/e6.txt"; echo $?)
"$tplan" plan minigolf --from-plan "$work/p.json" --until 4 --where 'vase ends at rest' -q --no-out 2> "$work/e7.txt"
check "refine: an unknown body in --where, before planning" \
  $([ $? -eq 2 ] && grep -q "no body named 'vase'" "$work/e7.txt"; echo $?)
"$tplan" plan minigolf --until 4 -q --no-out 2> /dev/null
check "--until without --from-plan: exit 2" $([ $? -eq 2 ]; echo $?)
finish worlds
