#!/usr/bin/env bash
# The add-on's settings never reach an exported scene: settings_leak_test.py in
# Debian's Blender, with the add-on installed from its zip and enabled as a user installs it.
#   settings_leak.sh WORKDIR        exits 77 (ctest: skipped) when blender is not installed
set -u
work=$1/blender_settings_leak
here=$(cd "$(dirname "$0")" && pwd)
addon=$here/../../blender
if ! command -v blender > /dev/null; then
  echo "blender is not installed: skipped"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/home" "$work/out"
(cd "$addon" && python3 -m zipfile -c "$work/tplan_blender.zip" tplan_blender) || exit 1
HOME="$work/home" blender -b --factory-startup --python-exit-code 1 --python "$here/settings_leak_test.py" -- \
  "$work/tplan_blender.zip" "$work/out" > "$work/blender.log" 2>&1
rc=$?
grep -E "^(FAIL|blender_settings_leak)" "$work/blender.log"
[ $rc -eq 0 ] || { echo "FAIL: settings leak test (log: $work/blender.log)"; exit 1; }
