#!/usr/bin/env bash
# Compound bodies through the CLI (issue 36 item 3): scripts/compound_table.lua, a robot that must
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
finish "compound"
