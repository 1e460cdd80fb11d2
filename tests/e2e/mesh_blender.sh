#!/usr/bin/env bash
# Keyframes back on the artist's objects, checked in Blender: a glTF scene (from
# mesh_assets.py) becomes a domain by tp.scene, is planned, exported with `tplan export --format
# glb` and imported into Blender (headless); mesh_blender.py checks the objects' names, face
# counts and origins against the artist's scene and the plan within 1e-5 m and prints the worst
# error. Exits 77 (ctest: skipped) when blender is not installed (.ci/install-deps installs it).
# Usage: mesh_blender.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/mesh_blender
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v blender > /dev/null; then
  echo "blender is not installed: skipped"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
python3 "$here/mesh_assets.py" "$work" || exit 1
cp "$here/scripts/glb_scene.lua" "$work/scene.lua"
"$tplan" plan "$work/scene.lua" -q -o "$work/s.json" || { echo "FAIL: plan"; exit 1; }
"$tplan" export "$work/s.json" --format glb -o "$work/s.glb" -q || { echo "FAIL: export"; exit 1; }
# HOME inside the work folder: Blender writes its user config there, not into the real home
HOME="$work" blender -b --factory-startup --python-exit-code 1 --python "$here/mesh_blender.py" -- \
  "$work/s.glb" "$work/s.json" "$work/scene.glb" > "$work/blender.log" 2>&1
rc=$?
grep -E "^(FAIL|mesh_blender)" "$work/blender.log"
[ $rc -eq 0 ] || { echo "FAIL: blender check (log: $work/blender.log)"; exit 1; }
echo "mesh_blender: ok"
