#!/usr/bin/env bash
# The fallbacks that land: a goal that asks for rest ("end inside a region, at rest", the
# Blender add-on's template) that no node reaches gets an approximate plan judged at rest first:
# it ends with the bodies at rest on something, as close to the region as the search got, not at
# the instant they fly through the region (quality 0 in mid-air, which quality alone picked).
# Usage: fallbacks.sh TPLAN SCRIPTS_DIR WORKDIR
set -u
tplan=$1 scripts=$2 work=$3/fallbacks
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"

"$tplan" plan "$scripts/midair_fallback.lua" -q -o "$work/mf.json" 2>"$work/err.txt"
rc=$?
check "midair_fallback: exit $rc, expected 3 (approximate), stderr: $(head -c 300 "$work/err.txt")" \
  $([ $rc -eq 3 ]; echo $?)
python3 - "$work/mf.json" <<'PY'
import json, math, sys
p = json.load(open(sys.argv[1]))
x = [b for b in p["bodies"] if b["name"] == "crate"][0]["trajectory"][-1]
speed, spin = math.hypot(*x[7:10]), math.hypot(*x[10:13])
# at rest (the goal's 0.05 m/s, 0.5 rad/s) and on the floor: the 0.1 m crate's centre 5 cm up,
# within TP_SUPPORT_GAP (it flew through the region at z 0.2-0.5 at 2-4 m/s)
ok = speed < 0.05 and spin < 0.5 and 0.045 < x[2] < 0.056 and p["status"] == "approximate"
sys.exit(0 if ok else print("end: z %.4f, %.3f m/s, %.3f rad/s, %s" % (x[2], speed, spin, p["status"])) or 1)
PY
check "midair_fallback: the plan ends at rest on the floor" $?
expect "midair_fallback: replays bit for bit" "$tplan" replay "$work/mf.json" --check -q
finish fallbacks
