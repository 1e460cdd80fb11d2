#!/usr/bin/env bash
# Compound bodies through the CLI: scripts/compound_table.lua, a robot that must
# shove a table (tp.compound: a top and four legs, one rigid body) to a spot. Both planners on seeds
# 1-2 solve it, every plan replays bit for bit (--check: no overlap beyond the plan's limits), the
# same seed gives the same plan byte for byte, and the plan file (version 4) carries the table's five
# parts with the table resting level on its four legs throughout (every foot within 5 mm of the
# floor). `tplan export` writes a glTF whose table node carries the parts and whose mesh spans them.
# Usage: compound.sh TPLAN SCRIPTS_DIR WORKDIR
set -u
tplan=$1 scripts=$2 work=$3/compound
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
for planner in bgt rrt; do
  for seed in 1 2; do
    plan=$work/$planner$seed.json
    "$tplan" plan "$scripts/compound_table.lua" --planner $planner --seed $seed -q -o "$plan"
    check "$planner seed $seed: solved" $?
    "$tplan" replay -q --check "$plan"
    check "$planner seed $seed: replays bit for bit within the plan's limits" $?
    python3 - "$plan" <<'PY'
import json, math, sys
plan = json.load(open(sys.argv[1]))
assert plan["version"] == 4, plan["version"]
table = [b for b in plan["bodies"] if b["name"] == "table"][0]
assert table["shape"] == "compound"
parts = table["compound"]["parts"]
assert [p["shape"] for p in parts] == ["box"] + ["cylinder"] * 4, parts
def rot(q, v):
    w, x, y, z = q
    R = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return [sum(R[i][k] * v[k] for k in range(3)) for i in range(3)]
worst, tilt = 0.0, 0.0
for f in table["trajectory"][60:]:  # after the 2 cm drop
    q = f[3:7]
    tilt = max(tilt, math.acos(max(-1.0, min(1.0, 1 - 2 * (q[1] ** 2 + q[2] ** 2)))))
    for p in parts[1:]:
        foot = [p["pos"][0], p["pos"][1], p["pos"][2] - 0.5 * p["size"][1]]
        z = f[2] + rot(q, foot)[2]
        worst = max(worst, abs(z))
assert worst < 5e-3, f"a foot left the floor or sank by {worst} m"
assert tilt < 0.01, f"the table tilted by {tilt} rad"
x, y = table["trajectory"][-1][:2]
assert math.hypot(x - 1.2, y) <= 0.25, f"the table ends at {x}, {y}"
PY
    check "$planner seed $seed: the plan carries the parts and the table stood on its four legs" $?
  done
done
"$tplan" plan "$scripts/compound_table.lua" --seed 2 -q -o "$work/again.json"
same "$work/bgt2.json" "$work/again.json"
check "the same seed gives the same plan byte for byte" $?
"$tplan" export "$work/bgt1.json" --format gltf -o "$work/t.gltf" >/dev/null
check "export --format gltf" $?
python3 - "$work/t.gltf" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
node = [n for n in g["nodes"] if n.get("name") == "table"][0]
assert [p["shape"] for p in node["extras"]["parts"]] == ["box"] + ["cylinder"] * 4
acc = g["accessors"][g["meshes"][node["mesh"]]["primitives"][0]["attributes"]["POSITION"]]
# y up: the legs reach the floor (the node is the artist's origin, on the floor) and the top 0.4 m
assert abs(acc["min"][1]) < 1e-6 and abs(acc["max"][1] - 0.4) < 1e-6, (acc["min"], acc["max"])
assert abs(acc["max"][0] - 0.3) < 1e-6 and abs(acc["max"][2] - 0.2) < 1e-6, acc["max"]
PY
check "the glTF's table node carries its parts and its mesh spans top and legs" $?
"$tplan" export "$work/bgt1.json" --format glb -o "$work/t.glb" >/dev/null
tools=$(cd "$(dirname "$0")/../export" && pwd)
if command -v node >/dev/null && [ -d "$tools/node_modules/gltf-validator" ]; then
  node "$tools/validate.js" "$work/t.glb" | grep -q ": 0 errors, 0 warnings"
  check "the Khronos glTF-Validator passes the compound's .glb with 0 errors, 0 warnings" $?
else
  echo "SKIP: the glTF-Validator (tests/export/node_modules, .ci/install-deps) is missing"
fi
# A moving bowl of five box colliders from a glTF file (omi_assets.py's dynamic_bowl.gltf, OMI
# layout): tp.scene makes it one compound, and a ball dropped into it rests on its base (z 0.06 m),
# not on the hull of the bowl (0.21 m); the plan replays bit for bit.
mkdir -p "$work/omi"
python3 "$(dirname "$0")/omi_assets.py" "$work/omi" >/dev/null
cat >"$work/omi/bowl.lua" <<'LUA'
local tp = require "tp"
local bodies = tp.scene("dynamic_bowl.gltf", { default = "skip" })
bodies[#bodies + 1] = tp.plane { name = "floor" }
bodies[#bodies + 1] = tp.sphere { name = "ball", class = "active", radius = 0.04, mass = 0.1, pos = { 0.02, 0, 0.4 } }
return tp.domain { name = "bowl", dt = 1 / 60, bodies = bodies,
  tactics = { tp.tactic { name = "w", body = "ball", skills = { tp.skill.wait { name = "wait", duration = 0.1 } } } },
  goal = function(st) return st.t >= 3 end, planner = { max_iters = 400, seed = 1 } }
LUA
"$tplan" plan "$work/omi/bowl.lua" -q -o "$work/bowl.json" 2>"$work/bowl.err"
check "the glTF bowl scene plans" $?
grep -qF "moving bodies of several colliders are compound bodies, one part per collider: Bowl (5 colliders)" "$work/bowl.err"
check "tp.scene notes the bowl as a compound of its five colliders" $?
"$tplan" replay -q --check "$work/bowl.json"
check "the bowl plan replays bit for bit" $?
python3 - "$work/bowl.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
b = {x["name"]: x for x in p["bodies"]}
assert b["Bowl"]["shape"] == "compound" and len(b["Bowl"]["compound"]["parts"]) == 5
z = b["ball"]["trajectory"][-1][2]
assert abs(z - 0.06) < 5e-3, f"the ball ends at z {z} m, not on the bowl's base (0.06 m)"
PY
check "the ball rests inside the moving bowl, on its base" $?
finish "compound"
