#!/usr/bin/env bash
# The animator audit ("fallbacks that land"): every shipped domain planned with a small iteration budget,
# so that most runs end approximate, and how its fallback plan ends: exit code, status, steps and the
# fastest moving body at the last step. A fallback should end at rest (or the closest to rest the
# search found), never in mid-air. Not a test: a measurement for the notes and the issue.
# usage: tools/fallback_sweep.sh [TPLAN] [ITERS]     (defaults: build/tplan, 60)
set -u
tplan=${1:-build/tplan} iters=${2:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-16s %3s %-12s %6s  %-28s %s\n' domain rc status steps "fastest body at the end" \
  "fastest passive/active (m/s, rad/s)"
for f in "$root"/domains/*.lua; do
  d=$(basename "$f" .lua)
  timeout 300 "$tplan" plan "$f" -q --max-iters "$iters" -o "$work/$d.json" > /dev/null 2> "$work/$d.err"
  rc=$?
  python3 - "$work/$d.json" "$d" "$rc" "$work/$d.err" <<'PY'
import json, math, sys
path, d, rc, err = sys.argv[1:5]
try:
    p = json.load(open(path))
except (OSError, ValueError):
    print("%-16s %3s no plan: %s" % (d, rc, open(err).read()[:100].strip()))
    sys.exit()
worst, who, own, own_w, own_who = 0.0, "-", 0.0, 0.0, "-"
for b in p["bodies"]:
    t = b.get("trajectory")
    if t and math.hypot(*t[-1][7:10]) > worst:
        worst, who = math.hypot(*t[-1][7:10]), b["name"]
    # the bodies a fallback judged at rest looks at (not foreign: traffic, walkers, sweepers)
    if t and b.get("class") in ("passive", "active") and math.hypot(*t[-1][7:10]) > own:
        own, own_w, own_who = math.hypot(*t[-1][7:10]), math.hypot(*t[-1][10:13]), b["name"]
print("%-16s %3s %-12s %6d  %-28s %.3f, %.2f (%s)" % (d, rc, p["status"], p["steps"], "%.3f m/s (%s)" % (worst, who),
                                                    own, own_w, own_who))
PY
done
