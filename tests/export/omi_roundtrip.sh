#!/usr/bin/env bash
# OMI round trip: a glTF scene of every shape (box, sphere, capsule, cylinder, a
# convex mesh, a static compound of mesh parts, a moving compound with a mesh part, a KHR plane),
# initial velocities, a kinematic body and joints (a hinge and a slider with limits, a ball, a
# fixed joint; from drives, a hinge with a motor and a slider with a spring) is planned, exported
# with `tplan export --format glb` (and gltf), checked by the Khronos glTF-Validator (0 errors, 0
# warnings) and read back by tp.scene: the second plan has the same bodies (names, classes, shapes,
# sizes, parts, initial poses and velocities), as many joints, and the same trajectories (the
# joints hold and drive the same way) within 1e-6 m; the export has the scene file's tree (every node
# under a node of the same name; a body in a turned group, a Godot body / collider / visual); a
# body under another moving body makes a flat export with a warning.
# Usage: omi_roundtrip.sh TPLAN TOOLS_DIR(tests/export) E2E_DIR(tests/e2e) WORKDIR
set -u
tplan=$1 tools=$2 e2e=$3 work=$4/omi_roundtrip
rm -rf "$work" && mkdir -p "$work"
fails=0
check() { if [ "$2" -eq 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }
python3 - "$work" "$e2e" <<'PY' || { echo "FAIL: the scene"; exit 1; }
import math, os, sys
sys.path.insert(0, sys.argv[2])
import omi_assets as a
g = a.Doc()
g.doc["extensionsUsed"].append("OMI_physics_joint")
g.doc["extensions"]["OMI_physics_joint"] = {"constraints": [
    {"linearAxes": [0, 1, 2]}, {"angularAxes": [0, 1]}, {"angularAxes": [2], "lowerLimit": -1, "upperLimit": 1},
    {"linearAxes": [1, 2]}, {"angularAxes": [0, 1, 2]}, {"linearAxes": [0], "lowerLimit": -0.5, "upperLimit": 0.5}]}
dyn = lambda m, **kw: dict({"type": "dynamic", "mass": m}, **kw)
g.body("Floor", motion={"type": "static"}, collider=g.shape("box", size=[10, 0.2, 10]), translation=(0, 0, -0.1))
g.body("Crate", motion=dyn(2, linearVelocity=[1, 0, 0]), collider=g.shape("box", size=[0.3, 0.2, 0.4]),
       translation=(-2, 0, 0.5))
g.body("Ball", motion=dyn(0.5, angularVelocity=[0, 2, 0]), collider=g.shape("sphere", radius=0.1),
       translation=(-1, 1, 0.4))
g.body("Pill", motion=dyn(0.3), collider=g.shape("capsule", height=0.2, radiusTop=0.05, radiusBottom=0.05),
       translation=(0, 1, 0.6))
g.body("Can", motion=dyn(0.4), collider=g.shape("cylinder", height=0.2, radiusTop=0.06, radiusBottom=0.06),
       translation=(1, 1, 0.3), rotation=[0, 0, 0.38268343236509, 0.923879532511287])
die = g.mesh(*a.cube(0.1), "die")
g.body("Die", motion=dyn(0.2), collider=g.shape("convex", mesh=die), mesh=die, translation=(2, 1, 0.5))
plank = g.shape("convex", mesh=g.mesh(*a.cube(0.2), "plank"))
l_ = g.node("ShelfLeft", extensions={"OMI_physics_body": {"collider": {"shape": plank}}}, translation=(-0.3, 0, 0),
            root=False)
r_ = g.node("ShelfRight", extensions={"OMI_physics_body": {"collider": {"shape": plank}}}, translation=(0.3, 0, 0),
            root=False)
g.body("Shelf", motion={"type": "static"}, children=[l_, r_], translation=(0, -2, 0.2))
seat = g.node("Seat", extensions={"OMI_physics_body": {"collider": {"shape": g.shape("box", size=[0.4, 0.05, 0.4])}}},
              translation=(0, 0, 0.2), root=False)
leg = g.node("Leg", extensions={"OMI_physics_body": {"collider": {"shape": g.shape("cylinder", height=0.4,
             radiusTop=0.03, radiusBottom=0.03)}}}, root=False)
knob = g.node("Knob", extensions={"OMI_physics_body": {"collider": {"shape": g.shape("convex", mesh=die)}}},
              translation=(0.15, 0, 0.25), root=False)
g.body("Stool", motion=dyn(1.5), children=[seat, leg, knob], translation=(2, -2, 0.45))
g.body("Platform", motion={"type": "kinematic", "linearVelocity": [0, 0, 0.5]},
       collider=g.shape("box", size=[0.5, 0.05, 0.5]), translation=(-2, -2, 0.1))
piv = g.body("Pivot", motion={"type": "static"}, collider=g.shape("box", size=[0.05, 0.05, 0.05]),
             translation=(0, 3, 2))
bob = g.body("Bob", motion=dyn(1), collider=g.shape("sphere", radius=0.05),
             translation=(math.sin(0.5), 3, 2 - math.cos(0.5)))
g.node("Hinge", extensions={"OMI_physics_joint": {"constraints": [0, 1, 2], "nodeA": piv, "nodeB": bob}},
       translation=(0, 3, 2))
rail = g.body("Rail", motion={"type": "static"}, collider=g.shape("box", size=[0.05, 0.05, 0.05]),
              translation=(3, 3, 1))
car = g.body("Carriage", motion=dyn(1, linearVelocity=[2, 0, 0]), collider=g.shape("box", size=[0.1, 0.1, 0.1]),
             translation=(3.2, 3, 1))
g.node("Slide", extensions={"OMI_physics_joint": {"constraints": [3, 4, 5], "nodeA": rail, "nodeB": car}},
       translation=(3.2, 3, 1))
l1 = g.body("Link1", motion=dyn(0.2), collider=g.shape("capsule", height=0.2, radiusTop=0.03, radiusBottom=0.03),
            translation=(-3, 3, 1.8))
l2 = g.body("Link2", motion=dyn(0.2, linearVelocity=[0.5, 0, 0]), collider=g.shape("sphere", radius=0.05),
            translation=(-3, 3, 1.6))
g.node("Pin", extensions={"OMI_physics_joint": {"constraints": [0], "nodeA": l1, "nodeB": l2}}, translation=(-3, 3, 1.7))
g.node("Weld", extensions={"OMI_physics_joint": {"constraints": [0, 4], "nodeA": l1, "nodeB": -1 if False else piv}},
       translation=(-3, 3, 1.9))
# OMI's later form (physicsJoints, connectedNode): a wheel on a hinge driven by a motor, a block on
# a slider held by a spring (drives)
g.doc["extensions"]["OMI_physics_joint"]["physicsJoints"] = [
    {"limits": [{"linearAxes": [0, 1, 2], "min": 0, "max": 0}, {"angularAxes": [0, 1], "min": 0, "max": 0}],
     "drives": [{"type": "angular", "mode": "force", "axis": 2, "velocityTarget": 2, "maxForce": 5}]},
    {"limits": [{"linearAxes": [1, 2], "min": 0, "max": 0}, {"angularAxes": [0, 1, 2], "min": 0, "max": 0}],
     "drives": [{"type": "linear", "mode": "force", "axis": 0, "stiffness": 20, "damping": 1, "positionTarget": 0}]}]
hub = g.body("Hub", motion={"type": "static"}, collider=g.shape("box", size=[0.05, 0.05, 0.05]), translation=(0, 5, 1))
wj = g.node("Axle", extensions={"OMI_physics_joint": {"joint": 0, "connectedNode": hub}}, root=False)
g.body("Wheel", motion=dyn(0.5), collider=g.shape("cylinder", height=0.05, radiusTop=0.2, radiusBottom=0.2),
       translation=(0, 5, 1), children=[wj])
anchor = g.node("SpringAnchor", translation=(2, 5, 1))
sj = g.node("Spring", extensions={"OMI_physics_joint": {"joint": 1, "connectedNode": anchor}}, root=False)
g.body("Block", motion=dyn(1, linearVelocity=[1, 0, 0]), collider=g.shape("box", size=[0.1, 0.1, 0.1]),
       translation=(2, 5, 1), children=[sj])
# a group turned 90 degrees about the vertical: a body inside it (animated relative to the group) and
# a plain node, and a Godot layout (body / collider / visual) under it
toy = g.body("Toy", motion=dyn(0.3, linearVelocity=[0.5, 0, 0]), collider=g.shape("sphere", radius=0.08),
             translation=(1, 0.5, 0), root=False)
mark = g.node("Marker", translation=(0, 1, 0), scale=[2, 2, 2], root=False)
gcol = g.node("ToyBoxCollider", extensions={"OMI_physics_body": {"collider": {"shape": g.shape("box", size=[0.2, 0.2, 0.2])}}},
              root=False)
gvis = g.node("ToyBoxVisual", mesh=die, root=False)
tbox = g.body("ToyBox", motion=dyn(0.5), children=[gcol, gvis], translation=(-1, 0.5, 0), root=False)
g.node("Props", children=[toy, mark, tbox], translation=(0, 0, -8), rotation=[0, 0.7071067811865476, 0, 0.7071067811865476])
# a wall plane (KHR_implicit_shapes: OMI has none): its normal the node's y, turned to tplan's -x
g.doc["extensionsUsed"] += ["KHR_physics_rigid_bodies", "KHR_implicit_shapes"]
g.doc["extensions"]["KHR_implicit_shapes"] = {"shapes": [{"type": "plane", "plane": {}}]}
g.node("Wall", extensions={"KHR_physics_rigid_bodies": {"collider": {"geometry": {"shape": 0}}}},
       translation=(200, 0, 0), rotation=[0, 0, 0.7071067811865476, 0.7071067811865476])
open(os.path.join(sys.argv[1], "scene.gltf"), "wb").write(g.gltf())
PY
cat >"$work/rt.lua" <<'LUA'
local tp = require "tp"
local bodies, names, regions, joints = tp.scene(tp.param("file", "scene.gltf"))
print("NJOINTS", #joints)
local have = false -- the export has it: it is a body of the plan
for _, n in ipairs(names) do have = have or n == "probe" end
if not have then
  bodies[#bodies + 1] = tp.box { name = "probe", class = "active", size = {0.1, 0.1, 0.1}, mass = 1, pos = {100, 100, 0.05} }
end
return tp.domain { name = "omi_roundtrip", dt = 1 / 60, substeps = 4, bodies = bodies, joints = joints,
  tactics = { tp.tactic { name = "w", body = "probe", skills = { tp.skill.wait { name = "wait", duration = 0.25 } } } },
  goal = function(st) return st.t >= 0.5 end, planner = { max_iters = 60, seed = 1 } }
LUA
"$tplan" plan "$work/rt.lua" -q -o "$work/a.json" >"$work/a.txt" 2>&1
check "the scene is planned" $?
"$tplan" export "$work/a.json" --format glb -o "$work/rt.glb" -q >"$work/x.txt" 2>&1
check "tplan export --format glb" $?
"$tplan" export "$work/a.json" --format gltf -o "$work/rt.gltf" -q >>"$work/x.txt" 2>&1
check "tplan export --format gltf" $?
node "$tools/validate.js" "$work/rt.glb" "$work/rt.gltf" >"$work/v.txt" 2>&1
st=$?
cat "$work/v.txt"
check "glTF-Validator: 0 errors, 0 warnings" $st
"$tplan" plan "$work/rt.lua" --set file=rt.glb -q -o "$work/b.json" >"$work/b.txt" 2>&1
st=$?
[ $st -eq 0 ] || cat "$work/b.txt"
check "the export is read back by tp.scene and planned" $st
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
a, b = json.load(open(w + "/a.json")), json.load(open(w + "/b.json"))
bad = []
nj = [[l.split()[1] for l in open(w + "/%s.txt" % k) if l.startswith("NJOINTS")] for k in "ab"]
if nj[0] != nj[1] or nj[0] != ["6"]:
    bad.append("joints: %s then %s (want 6)" % (nj[0], nj[1]))
doc = json.load(open(w + "/rt.gltf"))
if len(doc["extensions"]["OMI_physics_joint"]["physicsJoints"]) != 6:
    bad.append("the file has %d physicsJoints" % len(doc["extensions"]["OMI_physics_joint"]["physicsJoints"]))
A = {x["name"]: x for x in a["bodies"]}
B = {x["name"]: x for x in b["bodies"]}
if sorted(A) != sorted(B):
    bad.append("bodies %s then %s" % (sorted(A), sorted(B)))
def close(u, v, tol):
    return len(u) == len(v) and all(abs(p - q) <= tol for p, q in zip(u, v))
worst = 0.0
for n in sorted(set(A) & set(B)):
    x, y = A[n], B[n]
    for k in ("class", "shape"):
        if x[k] != y[k]:
            bad.append("%s: %s %s then %s" % (n, k, x[k], y[k]))
    if not close(x["size"], y["size"], 1e-6):
        bad.append("%s: size %s then %s" % (n, x["size"], y["size"]))
    px = [(p["shape"], p["pos"], p["quat"]) for p in x.get("compound", {}).get("parts", [])]
    py = [(p["shape"], p["pos"], p["quat"]) for p in y.get("compound", {}).get("parts", [])]
    if len(px) != len(py) or any(s != t or not close(u, v, 1e-6) or not close(q, r, 1e-6)
                                 for (s, u, q), (t, v, r) in zip(px, py)):
        bad.append("%s: parts %s then %s" % (n, px, py))
    if "trajectory" in x:
        if "trajectory" not in y or len(x["trajectory"]) != len(y["trajectory"]):
            bad.append("%s: no trajectory read back" % n)
            continue
        d = max(abs(p - q) for r, s in zip(x["trajectory"], y["trajectory"]) for p, q in zip(r[:13], s[:13]))
        worst = max(worst, d)
        if d > 1e-6:
            bad.append("%s: trajectories differ by %.3g" % (n, d))
    elif x["shape"] != "plane" and not close(x["pose"], y["pose"], 1e-6):  # a plane is its equation (size)
        bad.append("%s: pose %s then %s" % (n, x["pose"], y["pose"]))
# the scene file's tree is written back: every node of the source (but its joint nodes, which the
# export makes anew) under a node of the same name as in the source
src = json.load(open(w + "/scene.gltf"))
def tree(doc, skip_joints):
    nodes, up = doc["nodes"], {}
    for i, n in enumerate(nodes):
        for c in n.get("children", []):
            up[c] = i
    out = {}
    for i, n in enumerate(nodes):
        if skip_joints and "OMI_physics_joint" in n.get("extensions", {}):
            continue
        p = up.get(i)
        while skip_joints and p is not None and "OMI_physics_joint" in nodes[p].get("extensions", {}):
            p = up.get(p)
        out[n["name"]] = nodes[p]["name"] if p is not None else None
    return out
ts, te = tree(src, True), tree(doc, False)
for n, p in sorted(ts.items()):
    if n not in te or te[n] != p:
        bad.append("node %s: under %s in the scene file, under %s in the export" % (n, p, te.get(n, "(missing)")))
nested = [n for n, p in ts.items() if p is not None]
# a compound's collider nodes are its parts' nodes (no "NAME part K" beside them); a Godot body's
# collider node carries its collider (and the body's node none)
dup = [n["name"] for n in doc["nodes"] if n["name"].startswith(("Stool part", "Shelf part"))]
if dup:
    bad.append("compound parts written beside the file's collider nodes: %s" % dup)
for n in ("Seat", "Leg", "Knob", "ShelfLeft", "ShelfRight", "ToyBoxCollider"):
    if not any(x["name"] == n and "OMI_physics_body" in x.get("extensions", {}) for x in doc["nodes"]):
        bad.append("the collider node %s carries no collider" % n)
tb = [x for x in doc["nodes"] if x["name"] == "ToyBox"]
if len(tb) != 1 or "collider" in tb[0]["extensions"]["OMI_physics_body"]:
    bad.append("ToyBox's node: %s (its collider belongs on ToyBoxCollider)" % tb)
print("  the scene file's %d nodes written back in its tree (%d of them under another)" % (len(ts), len(nested)))
print("  %d bodies, %s joints; trajectories within %.3g (poses, velocities)" % (len(A), nj[0], worst))
for m in bad:
    print("  " + m)
sys.exit(1 if bad else 0)
PY
check "read back: the same bodies, shapes, parts, joints and trajectories" $?
# a body under another moving body cannot be animated relative to it: the export is flat, and says why
python3 - "$work" "$e2e" <<'PY' || { echo "FAIL: the nested scene"; exit 1; }
import os, sys
sys.path.insert(0, sys.argv[2])
import omi_assets as a
g = a.Doc()
g.body("Floor", motion={"type": "static"}, collider=g.shape("box", size=[10, 0.2, 10]), translation=(0, 0, -0.1))
kid = g.body("Kid", motion={"type": "dynamic", "mass": 0.2}, collider=g.shape("sphere", radius=0.05),
             translation=(0, 0, 0.3), root=False)
g.body("Parent", motion={"type": "dynamic", "mass": 1}, collider=g.shape("box", size=[0.2, 0.2, 0.2]),
       translation=(0, 0, 1), children=[kid])
open(os.path.join(sys.argv[1], "nested.gltf"), "wb").write(g.gltf())
PY
"$tplan" plan "$work/rt.lua" --set file=nested.gltf -q -o "$work/n.json" >/dev/null 2>&1
"$tplan" export "$work/n.json" --format glb -o "$work/n.glb" >"$work/n.txt" 2>&1
st=$?
grep -q "the scene file's node tree is not written (one root node per body): body 'Kid' is under the moving body 'Parent'" "$work/n.txt"
check "a body under a moving body: a flat export (exit $st) with a warning saying why" $?
echo "omi_roundtrip: $fails failure(s)"
[ $fails -eq 0 ]
