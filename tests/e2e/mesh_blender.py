# Imports the .glb tplan exported from a plan of a glTF scene (tests/e2e/mesh_blender.sh) into
# Blender (headless) and checks that the keyframes land on the artist's objects:
#   blender -b --factory-startup --python-exit-code 1 --python mesh_blender.py -- OUT.glb PLAN.json SCENE.glb
# Every body that came from a node is a mesh object of the node's name with the node's triangle
# count; at frame 0 each object is at its node's origin in the artist's scene (read from SCENE.glb:
# glTF y up, Blender z up); at every 10th frame and the last, each moving object's origin is where
# the plan puts the artist's origin (the body's position + R(q) mesh.origin), within 1e-5 m.
# Prints the worst position error. Exits non-zero on failure.
import json
import math
import struct
import sys

import bpy
import numpy

# Debian 12 pairs Blender 3.4 with numpy 1.24, which removed the alias np.bool that Blender 3.4's
# glTF importer still uses (set_poly_smoothing); restore it so the importer runs unchanged.
if "bool" not in numpy.__dict__:
    numpy.bool = bool

args = sys.argv[sys.argv.index("--") + 1:]
glb, plan_path, scene_path = args
plan = json.load(open(plan_path))
d = open(scene_path, "rb").read()
src = json.loads(d[20:20 + struct.unpack_from("<I", d, 12)[0]])
failures = []
worst = 0.0


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
rate = 1.0 / plan["dt"]
scene.render.fps = round(rate)
scene.render.fps_base = round(rate) / rate
bpy.ops.import_scene.gltf(filepath=glb)


def rot(q, v):  # (w, x, y, z) applied to v
    w, x, y, z = q
    R = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return [sum(R[i][j] * v[j] for j in range(3)) for i in range(3)]


bodies = {b["name"]: b for b in plan["bodies"]}
nodes = {n["name"]: n for n in src["nodes"] if "mesh" in n and n["name"] in bodies}
for name, node in nodes.items():
    ob = bpy.data.objects.get(name)
    if ob is None or ob.type != "MESH":
        fail("%s: no mesh object" % name)
        continue
    prim = src["meshes"][node["mesh"]]["primitives"][0]
    ntri = src["accessors"][prim["indices"]]["count"] // 3
    if len(ob.data.polygons) != ntri:
        fail("%s: %d faces, the artist's mesh has %d" % (name, len(ob.data.polygons), ntri))
    b = bodies[name]
    frames = [0] + (list(range(10, plan["steps"], 10)) + [plan["steps"]] if "trajectory" in b else [])
    for f in frames:
        scene.frame_set(f)
        got = list(ob.matrix_world.translation)
        s = b["trajectory"][f] if "trajectory" in b else b["pose"]
        o = b["mesh"]["origin"]
        want = [p + r for p, r in zip(s[:3], rot(s[3:7], o))]
        if f == 0:  # also the artist's own origin, from the source scene (y up -> z up)
            t = node.get("translation", [0, 0, 0])
            art = [t[0], -t[2], t[1]]
            if name == "Die.Child":  # under a group 0.4 m up, turned 90 degrees about z
                art = [0.0, 0.1, 0.4]
            if max(abs(a - g) for a, g in zip(art, got)) > 1e-5:
                fail("%s: frame 0 at %s, the artist's origin %s" % (name, got, art))
        err = max(abs(a - g) for a, g in zip(want, got))
        worst = max(worst, err)
        if err > 1e-5:
            fail("%s: frame %d at %s, the plan says %s (%.2g m)" % (name, f, got, want, err))
print("mesh_blender: %d objects checked, worst position error %.3g m" % (len(nodes), worst))
sys.exit(1 if failures else 0)
