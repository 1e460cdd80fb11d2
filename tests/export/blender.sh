#!/usr/bin/env bash
# Blender imports tplan's GLB exports (headless): blender_check.py checks the object names and count,
# the actions' frame range and the world position of the minigolf ball and of two pool balls at
# three frames against the plan within 1e-4 m, for the unreduced and the --tolerance 1e-4 exports.
# Exits 77 (ctest: skipped) when blender is not installed (.ci/install-deps installs it).
# Usage: blender.sh TPLAN TESTS_EXPORT_DIR WORKDIR
set -u
tplan=$1 tools=$2 work=$3/blender
if ! command -v blender > /dev/null; then
  echo "blender is not installed: skipped"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
fail=0
run() { # run NAME BODIES DOMAIN ARGS...
  local name=$1 bodies=$2
  shift 2
  "$tplan" plan "$@" -q -o "$work/$name.json" || { echo "FAIL: $name: plan"; fail=$((fail + 1)); return; }
  "$tplan" export "$work/$name.json" -o "$work/$name.glb" -q || fail=$((fail + 1))
  "$tplan" export "$work/$name.json" -o "$work/$name.r.glb" --tolerance 1e-4 -q || fail=$((fail + 1))
  for f in "$work/$name.glb" "$work/$name.r.glb"; do
    # HOME inside the work folder: Blender writes its user config there, not into the real home
    if ! HOME="$work" blender -b --factory-startup --python-exit-code 1 --python "$tools/blender_check.py" -- \
      "$f" "$work/$name.json" "$bodies" 1e-4 > "$f.log" 2>&1; then
      echo "FAIL: blender check of $f:"
      fail=$((fail + 1))
    fi
    grep -E "^(objects|FAIL|blender_check)|frame" "$f.log" | sed "s|^|$(basename "$f"): |"
  done
}
run minigolf ball minigolf --seed 1
run pool cue,red pool --seed 1
echo "blender: $fail failure(s)"
[ $fail -eq 0 ]
