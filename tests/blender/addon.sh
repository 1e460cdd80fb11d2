#!/usr/bin/env bash
# The Blender add-on (blender/tplan_blender, docs/blender.md) end to end in Debian's Blender,
# headless, against a real `tplan serve` that addon_test.py starts: a scene built in Blender is
# marked, planned through the service and locally, applied as keyframes and read back against the
# plan within 1e-5 m. Exits 77 (ctest: skipped) when blender is not installed (.ci/install-deps
# installs it). Usage: addon.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/blender_addon
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v blender > /dev/null; then
  echo "blender is not installed: skipped"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
# HOME inside the work folder: Blender writes its user config there, not into the real home
HOME="$work" blender -b --factory-startup --python-exit-code 1 --python "$here/addon_test.py" -- \
  "$tplan" "$work" "$here/../../blender" > "$work/blender.log" 2>&1
rc=$?
grep -E "^(FAIL|blender_addon|service plan|local plan)" "$work/blender.log"
[ $rc -eq 0 ] || { echo "FAIL: blender add-on test (log: $work/blender.log)"; tail -20 "$work/blender.log"; exit 1; }
