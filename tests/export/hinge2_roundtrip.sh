#!/usr/bin/env bash
# hinge2 through OMI: OMI_physics_joint has no wheel joint, so `tplan export`
# writes a hinge2 as the 6-DOF frame of a universal (linear locks, or two and a suspension spring
# along the steering axis X; angular Z locked; steering X with its stops and motor; spin Y with its
# motor) marked extras.tplan_kind = "hinge2" (docs/export.md). A cart of a chassis and two wheels on
# hinge2 joints whose motors run at fixed speeds (a steering motor driving into its stop, a spinning
# wheel, one suspension) is planned, exported (glb and gltf; glTF-Validator 0 errors, 0 warnings),
# read back by tp.scene and planned again: two hinge2 joints with the same anchors and axes, and the
# same trajectories within 1e-6 (the stops, motors and springs act the same). A hinge2 whose axes
# are not perpendicular is not written, with a warning naming it.
# Usage: hinge2_roundtrip.sh TPLAN TOOLS_DIR(tests/export) WORKDIR
set -u
tplan=$1 tools=$2 work=$3/hinge2_roundtrip
rm -rf "$work" && mkdir -p "$work"
fails=0
check() { if [ "$2" -eq 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }
cat >"$work/cart.lua" <<'LUA'
local tp = require "tp"
local skew = tp.param("skew", 0)  -- the rear wheel's spin axis tilted off perpendicular (rad)
local wheel = function(name, x, y)
  return tp.sphere { name = name, class = "passive", radius = 0.08, mass = 0.3, pos = { x, y, 0.1 } }
end
return tp.domain { name = "hinge2_cart", dt = 1 / 60, substeps = 2,
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "chassis", class = "passive", size = { 0.5, 0.3, 0.06 }, mass = 3, pos = { 0, 0, 0.16 } },
    wheel("front", 0.25, 0), wheel("rear", -0.25, 0),
    tp.box { name = "probe", class = "active", size = { 0.1, 0.1, 0.1 }, mass = 1, pos = { 50, 50, 0.05 } },
  },
  joints = {
    tp.joint { name = "steer", kind = "hinge2", bodies = { "chassis", "front" }, anchor = { 0.25, 0, 0.1 },
               axis = { 0, 0, 1 }, axis2 = { 0, -1, 0 }, limit = { -0.3, 0.3 },
               motor = { speed = 1, max_torque = 2 }, motor2 = { speed = 6, max_torque = 1 } },
    tp.joint { name = "axle", kind = "hinge2", bodies = { "chassis", "rear" }, anchor = { -0.25, 0, 0.1 },
               axis = { 0, 0, 1 }, axis2 = { 0, math.cos(skew), math.sin(skew) }, limit = { 0, 0 },
               spring = { stiffness = 3000, damping = 30 } },
  },
  tactics = { tp.tactic { name = "w", body = "probe", skills = { tp.skill.wait { name = "wait", duration = 0.25 } } } },
  goal = function(st) return st.t >= 1.2 end, planner = { max_iters = 200, seed = 1 } }
LUA
cat >"$work/rt.lua" <<'LUA'
local tp = require "tp"
local bodies, names, regions, joints = tp.scene(tp.param("file", "rt.glb"))
return tp.domain { name = "hinge2_cart", dt = 1 / 60, substeps = 2, bodies = bodies, joints = joints,
  tactics = { tp.tactic { name = "w", body = "probe", skills = { tp.skill.wait { name = "wait", duration = 0.25 } } } },
  goal = function(st) return st.t >= 1.2 end, planner = { max_iters = 200, seed = 1 } }
LUA
"$tplan" plan "$work/cart.lua" -q -o "$work/a.json" >"$work/a.txt" 2>&1
check "the cart is planned" $?
"$tplan" export "$work/a.json" --format glb -o "$work/rt.glb" -q >"$work/x.txt" 2>&1
st=$?
check "tplan export --format glb" $st
! grep -q "not written" "$work/x.txt"
check "no joint left out (perpendicular axes)" $?
"$tplan" export "$work/a.json" --format gltf -o "$work/rt.gltf" -q >>"$work/x.txt" 2>&1
check "tplan export --format gltf" $?
node "$tools/validate.js" "$work/rt.glb" "$work/rt.gltf" >"$work/v.txt" 2>&1
st=$?
cat "$work/v.txt"
check "glTF-Validator: 0 errors, 0 warnings" $st
"$tplan" plan "$work/rt.lua" -q -o "$work/b.json" >"$work/b.txt" 2>&1
st=$?
[ $st -eq 0 ] || cat "$work/b.txt"
check "the export is read back by tp.scene and planned" $st
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
a, b = json.load(open(w + "/a.json")), json.load(open(w + "/b.json"))
doc = json.load(open(w + "/rt.gltf"))
bad = []
pj = doc["extensions"]["OMI_physics_joint"]["physicsJoints"]
if len(pj) != 2 or any(j.get("extras", {}).get("tplan_kind") != "hinge2" for j in pj):
    bad.append("physicsJoints: %s" % pj)
else:
    steer, axle = pj
    lims = {(tuple(l.get("linearAxes", [])), tuple(l.get("angularAxes", []))): (l["min"], l["max"]) for l in steer["limits"]}
    want = {((0, 1, 2), ()): (0, 0), ((), (2,)): (0, 0), ((), (0,)): (-0.3, 0.3)}
    if lims != want:
        bad.append("steer limits %s (want %s)" % (lims, want))
    drv = sorted((d["type"], d["axis"], d.get("velocityTarget"), d.get("maxForce")) for d in steer["drives"])
    if drv != [("angular", 0, 1, 2), ("angular", 1, 6, 1)]:
        bad.append("steer drives %s" % drv)
    lin = [l for l in axle["limits"] if l.get("linearAxes")]
    spr = [d for d in axle.get("drives", []) if d["type"] == "linear"]
    if lin != [{"linearAxes": [1, 2], "min": 0, "max": 0}] or len(spr) != 1 or spr[0]["axis"] != 0 \
            or spr[0]["stiffness"] != 3000 or spr[0]["damping"] != 30:
        bad.append("axle: suspension %s %s" % (lin, spr))
ja = {j["name"]: j for j in a["joints"]}
jb = {j["name"]: j for j in b["joints"]}
if sorted(ja) != sorted(jb):
    bad.append("joints %s then %s" % (sorted(ja), sorted(jb)))
for n in sorted(set(ja) & set(jb)):
    x, y = ja[n], jb[n]
    if x["kind"] != y["kind"] or x["bodies"] != y["bodies"]:
        bad.append("%s: %s %s then %s %s" % (n, x["kind"], x["bodies"], y["kind"], y["bodies"]))
    for k in ("anchor", "axis", "axis2"):
        if max(abs(p - q) for p, q in zip(x[k], y[k])) > 1e-9:
            bad.append("%s: %s %s then %s" % (n, k, x[k], y[k]))
A = {x["name"]: x for x in a["bodies"]}
B = {x["name"]: x for x in b["bodies"]}
worst = 0.0
for n in ("chassis", "front", "rear"):
    x, y = A[n]["trajectory"], B.get(n, {}).get("trajectory", [])
    if len(x) != len(y):
        bad.append("%s: %d then %d states" % (n, len(x), len(y)))
        continue
    worst = max(worst, max(abs(p - q) for r, s in zip(x, y) for p, q in zip(r[:13], s[:13])))
if worst > 1e-6:
    bad.append("trajectories differ by %.3g" % worst)
# the motors did something: the front wheel steered into its stop, the cart moved
fx = A["front"]["trajectory"]
moved = abs(A["chassis"]["trajectory"][-1][0] - A["chassis"]["trajectory"][0][0])
if moved < 0.05:
    bad.append("the cart moved only %.3f m" % moved)
print("  2 hinge2 joints; trajectories within %.3g; the cart moved %.3f m" % (worst, moved))
for m in bad:
    print("  " + m)
sys.exit(1 if bad else 0)
PY
check "read back: two hinge2 joints, the same anchors, axes and trajectories" $?
"$tplan" plan "$work/cart.lua" --set skew=0.3 -q -o "$work/skew.json" >/dev/null 2>&1
"$tplan" export "$work/skew.json" --format glb -o "$work/skew.glb" >"$work/skew.txt" 2>&1
st=$?
grep -q "joint 'axle' (hinge2) is not written: its steering and spin axes are not perpendicular" "$work/skew.txt"
check "a hinge2 with skewed axes: exported without it, with a warning naming it (exit $st)" $?
echo "hinge2_roundtrip: $fails failure(s)"
[ $fails -eq 0 ]
