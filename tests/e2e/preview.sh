#!/usr/bin/env bash
# tplan plan --preview FILE (docs/cli.md, "The preview file"; the Blender add-on's preview while
# planning): the plan is the same bytes with and without it; the last preview, written when the run
# ends, is the solved plan's world (goal true, the plan's steps, every body's trajectory equal to
# the plan's, number for number); an approximate run's last preview is a world of the tree (its
# first row the initial state); refusals: --preview with --jobs, the same file as --out, exit 2
# with one line. (Previews while the run goes on are written at its progress calls, every 0.25 s:
# how many depends on the machine's speed, so only the last one is checked here; the add-on's
# e2e_blender_bowl waits for one while planning.)
# Usage: preview.sh TPLAN DOMAINS_DIR WORKDIR
set -u
tplan=$1 domains=$2 work=$3/preview
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
dom=$domains/toss.lua
# seed 2 of the six-prop toss: 1,685 iterations, about 0.3 s here (previews while it runs too)
"$tplan" plan "$dom" --seed 2 -q -o "$work/a.json"
check "the toss plans" $?
"$tplan" plan "$dom" --seed 2 -o "$work/b.json" --preview "$work/p.json" > "$work/b.txt"
check "the toss plans with --preview" $?
same "$work/a.json" "$work/b.json"
check "the same plan with and without --preview" $?
grep "^preview " "$work/b.txt"
grep -q "^preview    [1-9][0-9]* written to $work/p.json (the last: [0-9]* steps, a solution)" "$work/b.txt"
check "the summary's preview line" $?
python3 - "$work/a.json" "$work/p.json" <<'PY'
import json, sys
plan, prev = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = []
if prev.get("format") != "tplan-preview" or prev.get("version") != 1:
    bad.append("format %r version %r" % (prev.get("format"), prev.get("version")))
if plan["status"] != "solved" or prev.get("goal") is not True or prev.get("steps") != plan["steps"]:
    bad.append("plan %s %d steps, preview goal %s %s steps" % (plan["status"], plan["steps"], prev.get("goal"),
                                                               prev.get("steps")))
want = {b["name"]: b["trajectory"] for b in plan["bodies"] if "trajectory" in b}
got = {b["name"]: [r for r in b["trajectory"]] for b in prev["bodies"]}
if sorted(want) != sorted(got):
    bad.append("bodies %s, the plan's %s" % (sorted(got), sorted(want)))
for n in want:
    if n in got and [r[:7] for r in want[n]] != got[n]:
        bad.append("%s: the preview's trajectory is not the plan's" % n)
for b in bad:
    print("FAIL: preview:", b)
sys.exit(1 if bad else 0)
PY
check "the last preview is the solved plan's world" $?
# a longer world of 25 boxes (about 0.5 s here): previews are written while it plans (how many
# depends on the machine: printed, not checked), and the plan is the same bytes
"$tplan" plan pile --set count=25 -q -o "$work/d.json"
check "the pile of 25 plans" $?
"$tplan" plan pile --set count=25 -o "$work/e.json" --preview "$work/pp.json" | grep "^preview "
check "the pile of 25 plans with --preview" "${PIPESTATUS[0]}"
same "$work/d.json" "$work/e.json"
check "the pile: the same plan with and without --preview" $?
# approximate: a budget of iterations too small to solve
"$tplan" plan "$dom" --set count=3 --seed 2 --max-iters 20 -q -o "$work/c.json" --preview "$work/q.json"
rc=$?
[ $rc -eq 3 ]
check "20 iterations: approximate (exit 3, got $rc)" $?
python3 - "$work/c.json" "$work/q.json" <<'PY'
import json, sys
plan, prev = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
first = {b["name"]: b["trajectory"][0][:7] for b in plan["bodies"] if "trajectory" in b}
ok = prev["goal"] is False and prev["iterations"] == 20 and all(
    b["trajectory"][0] == first[b["name"]] and len(b["trajectory"]) == prev["steps"] + 1 for b in prev["bodies"])
if not ok:
    print("FAIL: the approximate run's preview: goal %s, %s iterations, %d steps" % (prev["goal"], prev["iterations"],
                                                                                 prev["steps"]))
sys.exit(0 if ok else 1)
PY
check "the approximate run's last preview: a world of its tree from the initial state" $?
out=$("$tplan" plan "$dom" --jobs 2 --preview "$work/r.json" -q -o "$work/r.plan.json" 2>&1)
rc=$?
[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s' "$out" | grep -q -- "--preview cannot go with --jobs"
check "--preview with --jobs: exit 2, one line ($rc: $out)" $?
out=$("$tplan" plan "$dom" --preview "$work/s.json" -q -o "$work/s.json" 2>&1)
rc=$?
[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ]
check "--preview the same file as --out: exit 2, one line ($rc: $out)" $?
finish preview
