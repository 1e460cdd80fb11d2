#!/usr/bin/env bash
# The Blender add-on's figures (docs/blender.md "Figures"): headless Blender drives
# the panel's operators on scenes built by tests/blender/figures.py and prints one line per run:
#   the toss: six props on a table tossed into a bowl, throws only, seeds 1..SEEDS, 60 s each
#   (solved or not, time, iterations, steps of force per prop, Plan to keys)
#   a drop-and-settle shot of 50 props (time, steps, where they end, Plan to keys, keys kept)
# Minutes of planning: not a ctest. Usage: tools/blender_figures.sh [TPLAN] [toss|drop|all] [SEEDS]
# (TPLAN default build/tplan). Writes its scenes, plans and figures.json under build/blender_figures.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
tplan=$(realpath "${1:-$root/build/tplan}")
which=${2:-all} seeds=${3:-10}
command -v blender > /dev/null || { echo "blender is not installed" >&2; exit 2; }
work=$root/build/blender_figures
rm -rf "$work" && mkdir -p "$work"
HOME="$work" blender -b --factory-startup --python-exit-code 1 --python "$root/tests/blender/figures.py" -- \
  "$tplan" "$work" "$root/blender" "$which" "$seeds" > "$work/blender.log" 2>&1
rc=$?
grep -E "^(toss|drop)" "$work/blender.log"
[ $rc -eq 0 ] || { echo "blender_figures: failed (log: $work/blender.log)" >&2; exit 1; }
