#!/usr/bin/env bash
# glTF physics scenes: every file omi_assets.py writes from the OMI and KHR
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
local T = tp.param("t", 0.2)
local bodies, names, regions, joints = tp.scene(F, { default = "skip" })
print("NBODIES", #bodies, table.concat(names, ","))
print("NJOINTS", #joints)
bodies[#bodies + 1] = tp.box { name = "probe", class = "active", size = {0.1, 0.1, 0.1}, mass = 1, pos = {100, 100, 0.05} }
return tp.domain { name = "omi", dt = 1 / 60, substeps = 4, bodies = bodies, joints = joints,
  tactics = { tp.tactic { name = "w", body = "probe", skills = { tp.skill.wait { name = "wait", duration = T / 2 } } } },
  goal = function(st) return st.t >= T end, planner = { max_iters = math.max(20, math.ceil(70 * T)), seed = 1 } }
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
    elif k == "joints":
        got = [l.split()[1] for l in out.splitlines() if l.startswith("NJOINTS")]
        if got != [v]:
            bad.append("%s joints, want %s" % (got, v))
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

# joints from the files: a pendulum on a hinge (each of the three forms) swings with the period of
# a physical pendulum, T = 2 pi sqrt(I / (m g L)) with I = m (L^2 + 2/5 r^2) (L = 1 m, r = 0.05 m,
# 0.1 rad: the amplitude adds (0.1)^2 / 16 = 0.06 %), within 0.5 %; its bob keeps 1 m from the pivot;
# a door on a hinge with limits stops at its limit; the plans replay bit for bit
for f in pendulum_omi_old pendulum_omi pendulum_khr door_limits; do
  "$tplan" plan "$work/box/omi.lua" --set file=$f.gltf --set t=4 -q -o "$work/$f.json" >"$work/out.txt" 2>&1
  check "$f: planned" $?
  python3 - "$work/$f.json" "$f" <<'PY'
import json, math, sys
p, f = json.load(open(sys.argv[1])), sys.argv[2]
b = {x["name"]: x for x in p["bodies"]}
dt = p["domain"]["dt"] if "domain" in p and "dt" in p["domain"] else 1 / 60
tr = b["Door" if f == "door_limits" else "Bob"]["trajectory"]
if f == "door_limits":
    yaw = [2 * math.atan2(r[6], r[3]) for r in tr]  # about z (the hinge is vertical)
    lo, hi = min(yaw), max(yaw)
    print("  door: yaw in [%.4f, %.4f] rad (limit [-0.6, 0.2])" % (lo, hi))
    sys.exit(0 if -0.63 < lo < -0.57 and hi < 0.23 else 1)
x = [r[0] for r in tr]
L = max(abs(math.hypot(r[0], r[2] - 2) - 1) for r in tr)
ups = [i - 1 + x[i - 1] / (x[i - 1] - x[i]) for i in range(1, len(x)) if (x[i - 1] < 0) != (x[i] < 0)]
T = 2 * (ups[-1] - ups[0]) / (len(ups) - 1) * dt  # every crossing: half periods
want = 2 * math.pi * math.sqrt((1 + 0.4 * 0.05 ** 2) / 9.81) * (1 + 0.1 ** 2 / 16)
print("  %s: period %.5f s over %d half swings, want %.5f (%.3f %%); rod kept within %.2g m" %
      (f, T, len(ups) - 1, want, 100 * (T / want - 1), L))
sys.exit(0 if abs(T / want - 1) < 0.005 and L < 1e-3 and len(ups) >= 3 else 1)
PY
  check "$f: the joint holds (period within 0.5 %, or the door within its limit)" $?
  "$tplan" replay "$work/$f.json" --check >"$work/replay.txt" 2>&1
  check "$f: replay --check" $?
done

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
