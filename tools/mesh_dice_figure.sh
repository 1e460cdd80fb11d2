#!/usr/bin/env bash
# The 400-dice figure of docs/physics.md ("Mesh bodies"): domains/dice.lua with its four walls
# replaced by a static tp.mesh bucket read from a .glb (and, with --mesh-dice, its dice as convex
# meshes from an OBJ), planned and checked with `replay --check`. The variant and its assets are
# written to a temporary folder (domains/dice.lua itself is not changed: its plans stay the same).
# usage: tools/mesh_dice_figure.sh [BUILD_DIR] [--mesh-dice] [SEED]
set -eu
build=${1:-build}
dice=""; [ "${2:-}" = "--mesh-dice" ] && dice="--set die_file=die.obj"
seed=${3:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$root" "$work" <<'PY'
import sys
root, work = sys.argv[1], sys.argv[2]
sys.path.insert(0, root + "/tests/e2e")
import mesh_assets as m
s = open(root + "/domains/dice.lua").read()
a = 'bodies[#bodies + 1] = tp.box { name = "wall_w", class = "static", size = { WALL_T, ly, WALL_H },'
i, j = s.index(a), s.index("local GRID_R, GRID_D = 0.12, 0.7")
s = s[:i] + '''print(string.format("BOUNDS %.17g %.17g %.17g %.17g %.17g %.17g", BX0, BX1, BY0, BY1, WALL_H, WALL_T))
local BUCKET = tp.param("bucket", "")
if BUCKET ~= "" then
  bodies[#bodies + 1] = tp.mesh { name = "bucket", class = "static", file = BUCKET, material = "wall", color = wall_color }
else
''' + s[i:j] + "end\n\n" + s[j:]
a = '  bodies[#bodies + 1] = tp.box { name = name, class = "active", size = { EDGE, EDGE, EDGE }, mass = MASS,'
assert a in s
s = s.replace(a, '''  local DIE = tp.param("die_file", "")
  bodies[#bodies + 1] = DIE ~= "" and tp.mesh { name = name, class = "active", file = DIE, mass = MASS,
    pos = starts[i].pos, quat = starts[i].quat, max_force = F, planar = true, material = "die",
    color = { 0.85, 0.1 + 0.1 * (i % 3), 0.1, 1 } } or tp.box { name = name, class = "active", size = { EDGE, EDGE, EDGE }, mass = MASS,''')
open(work + "/dice_mesh.lua", "w").write(s)
open(work + "/die.obj", "wb").write(m.obj(*m.cube()))
PY
# the walls' bounds as the domain computes them, then the bucket: the four wall boxes as one glTF scene
bounds=$("$build/tplan" plan "$work/dice_mesh.lua" --max-iters 1 -q -o /dev/null 2>&1 | awk '/^BOUNDS/ {print $2, $3, $4, $5, $6, $7}')
python3 - "$root" "$work" $bounds <<'PY'
import sys
root, work = sys.argv[1], sys.argv[2]
bx0, bx1, by0, by1, h, t = map(float, sys.argv[3:9])
sys.path.insert(0, root + "/tests/e2e")
import mesh_assets as m
def box(c, sz):
    v, tr = m.cube(1.0)
    return [(c[0] + x * sz[0], c[1] + y * sz[1], c[2] + z * sz[2]) for x, y, z in v], tr
lx, ly = bx1 - bx0, by1 - by0
walls = {"wall_w": ((bx0 - t / 2, 0, h / 2), (t, ly, h)), "wall_e": ((bx1 + t / 2, 0, h / 2), (t, ly, h)),
         "wall_s": ((0, by0 - t / 2, h / 2), (lx + 2 * t, t, h)), "wall_n": ((0, by1 + t / 2, h / 2), (lx + 2 * t, t, h))}
g = m.Gltf()
for n, (c, sz) in walls.items():
    g.node(n, g.mesh(*box(c, sz), n), extras={"tplan_class": "static"})
open(work + "/bucket.glb", "wb").write(g.glb())
PY
"$build/tplan" plan "$work/dice_mesh.lua" --set bucket=bucket.glb $dice --seed "$seed" -o "$work/p.json" | grep -v "^BOUNDS"
"$build/tplan" replay "$work/p.json" --check | tail -2
