#!/usr/bin/env bash
# glTF physics scenes (issue 36, item 4): every file omi_assets.py writes from the OMI and KHR
# specifications' text (each OMI_physics_shape type, body types, triggers, compounds, velocities,
# joints, Godot 4's layouts, KHR_physics_rigid_bodies + KHR_implicit_shapes, buffers in a .bin
# beside the file) loads with the expected bodies (count, names, shapes, classes, initial
# velocities), the warnings name what is not used, the plans replay bit for bit; a scene with no
# body is an error; external buffers obey the script folder's sandbox.
# Usage: omi.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/omi
rm -rf "$work" && mkdir -p "$work/box" "$work/outside"
. "$(dirname "$0")/lib.sh"
python3 "$(dirname "$0")/omi_assets.py" "$work/box" >"$work/rows.txt" || { echo "FAIL: omi_assets.py"; exit 1; }
cat >"$work/box/omi.lua" <<'LUA'
local tp = require "tp"
local F = tp.param("file", "dynamic_box.gltf")
local bodies, names = tp.scene(F, { default = "skip" })
print("NBODIES", #bodies, table.concat(names, ","))
bodies[#bodies + 1] = tp.box { name = "probe", class = "active", size = {0.1, 0.1, 0.1}, mass = 1, pos = {100, 100, 0.05} }
return tp.domain { name = "omi", dt = 1 / 60, substeps = 4, bodies = bodies,
  tactics = { tp.tactic { name = "w", body = "probe", skills = { tp.skill.wait { name = "wait", duration = 0.1 } } } },
  goal = function(st) return st.t >= 0.2 end, planner = { max_iters = 20, seed = 1 } }
LUA
loaded=0 total=0
while IFS='|' read -r f expect; do
  total=$((total + 1))
  "$tplan" plan "$work/box/omi.lua" --set file="$f" -q -o "$work/p.json" >"$work/out.txt" 2>&1
  rc=$?
  case $expect in
  error=*)
    grep -qF -- "${expect#error=}" "$work/out.txt" && [ $rc -eq 2 ]
    st=$?
    [ $st -eq 0 ] || echo "  $f: rc $rc, said: $(head -c 300 "$work/out.txt")"
    check "$f refused (${expect#error=})" $st
    continue ;;
  esac
  [ $rc -eq 0 ] && loaded=$((loaded + 1))
  python3 - "$work/p.json" "$work/out.txt" "$expect" "$rc" <<'PY'
import json, sys
plan, out, expect, rc = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3].split(), int(sys.argv[4])
bad = []
if rc != 0:
    print("  rc %d: %s" % (rc, out[:400]))
    sys.exit(1)
p = json.load(open(plan))
bodies = {b["name"]: b for b in p["bodies"] if b["name"] != "probe"}
for e in expect:
    k, _, v = e.partition("=")
    if k == "bodies" and len(bodies) != int(v):
        bad.append("%d bodies, want %s (%s)" % (len(bodies), v, ",".join(bodies)))
    elif k in ("vel", "angvel"):
        first = [b for b in p["bodies"] if b["name"] != "probe" and "trajectory" in b][0]
        got = first["trajectory"][0][7:10] if k == "vel" else first["trajectory"][0][10:13]
        want = [float(x) for x in v.split(",")]
        if max(abs(a - b) for a, b in zip(got, want)) > 1e-9:
            bad.append("%s %s, want %s" % (k, got, want))
    elif k == "warn":
        text = e[5:].replace("~", " ")
        if text not in out:
            bad.append("no warning with \"%s\"" % text)
    elif ":" in e:
        name, shape, cls = e.split(":")
        b = bodies.get(name)
        want_cls = "static" if cls == "marker" else cls
        if b is None:
            bad.append("no body %s" % name)
        elif b["shape"] != shape or b["class"] != want_cls:
            bad.append("%s is %s %s, want %s %s" % (name, b["class"], b["shape"], want_cls, shape))
for x in bad:
    print("  " + x)
sys.exit(1 if bad else 0)
PY
  check "$f: $(echo "$expect" | cut -c1-90)" $?
  case $expect in # the scenes with something moving replay bit for bit (a static one has nothing to replay)
  *:passive* | *:foreign*)
    "$tplan" replay "$work/p.json" --check >"$work/replay.txt" 2>&1
    check "$f: replay --check" $? ;;
  esac
done <"$work/rows.txt"
echo "omi: $loaded of $((total - 1)) scenes loaded (no_physics.gltf must not)"

# triggers are regions: tp.scene's third result gives each one's box and bounding sphere, a goal
# uses it, and a ball falls into it (a marker never collides: resting on it, the ball would stay out)
cat >"$work/box/regions.lua" <<'LUA'
local tp = require "tp"
local bodies, names, regions = tp.scene("compound_trigger.gltf", { default = "skip" })
for _, k in ipairs({ "GoalA", "GoalB" }) do
  local r = regions[k]
  print(string.format("REGION %s center %.3f %.3f %.3f min %.3f %.3f %.3f max %.3f %.3f %.3f radius %.3f", k,
    r.center[1], r.center[2], r.center[3], r.min[1], r.min[2], r.min[3], r.max[1], r.max[2], r.max[3], r.radius))
end
bodies[#bodies + 1] = tp.sphere { name = "ball", class = "passive", radius = 0.05, mass = 0.1, pos = { 1, 0, 1.2 } }
bodies[#bodies + 1] = tp.plane { name = "floor", offset = -0.5 }
return tp.domain { name = "regions", bodies = bodies, planner = { max_iters = 50, seed = 1 },
  goal = tp.inside { body = "ball", min = regions.GoalA.min, max = regions.GoalA.max } }
LUA
"$tplan" plan "$work/box/regions.lua" -q -o "$work/r.json" >"$work/out.txt" 2>&1
st=$?
grep -qF "REGION GoalA center 1.000 -0.000 0.000 min 0.500 -0.500 -0.500 max 1.500 0.500 0.500 radius 0.866" "$work/out.txt" &&
  grep -qF "REGION GoalB center -1.000 -0.000 0.000 min -1.300 -0.300 -0.300 max -0.700 0.300 0.300 radius 0.300" "$work/out.txt"
check "tp.scene's regions: each trigger's box and radius" $?
check "a ball falls into a trigger region: the goal is reached (solved)" $st

# external buffers follow the sandbox of the file itself: a .bin that is a link out of the folder
# is refused, and so is one named by a scene given as data (no folder to read it from)
mkdir -p "$work/box/sub"
cp "$work/box/ball_pit.gltf" "$work/box/sub/pit.gltf"
cp "$work/box/ball_pit0.bin" "$work/outside/ball_pit0.bin"
ln -s ../../outside/ball_pit0.bin "$work/box/sub/ball_pit0.bin"
"$tplan" plan "$work/box/omi.lua" --set file=sub/pit.gltf -q --no-out >"$work/out.txt" 2>&1
[ $? -eq 2 ] && grep -qF "outside the script's folder" "$work/out.txt"
check "a .bin linked from outside the script's folder is refused" $?
cp "$work/box/ball_pit0.bin" "$work/box/sub/real.bin" && rm "$work/box/sub/ball_pit0.bin" &&
  sed 's/"ball_pit0.bin"/"real.bin"/' "$work/box/ball_pit.gltf" >"$work/box/sub/pit.gltf"
"$tplan" plan "$work/box/omi.lua" --set file=sub/pit.gltf -q --no-out >"$work/out.txt" 2>&1
check "a .bin in a subfolder beside its .gltf is read" $?
cat >"$work/box/asdata.lua" <<'LUA'
local tp = require "tp"
return tp.domain { name = "d", bodies = tp.scene("pit.gltf", { data = DATA }), goal = function(s) return true end }
LUA
python3 - "$work/box" <<'PY'
import sys
d = sys.argv[1]
data = open(d + "/ball_pit.gltf").read()
src = open(d + "/asdata.lua").read().replace("DATA", "[==[" + data + "]==]")
open(d + "/asdata.lua", "w").write(src)
PY
"$tplan" plan "$work/box/asdata.lua" -q --no-out >"$work/out.txt" 2>&1
[ $? -eq 2 ] && grep -qF "the scene came as data" "$work/out.txt"
check "a scene given as data cannot name a .bin" $?
finish omi
