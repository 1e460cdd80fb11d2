# Imports a tplan glTF export into Blender (headless) and checks it against the plan file:
#   blender -b --factory-startup --python-exit-code 1 --python blender_check.py -- \
#       FILE.glb PLAN.json BODY[,BODY...] [TOL]
# Checks: one mesh object per plan body, named after it; the action of every moving body spans
# frames 0..steps (the scene's frame rate is set to 1/dt before import, so frame i is step i); the
# world position of each listed body at the first, a middle and the last frame is the plan's within
# TOL (default 1e-4 m), which also checks glTF's y-up against Blender's z-up. Exits non-zero on failure.
import json
import math
import sys

import bpy
import numpy

# Debian 12 pairs Blender 3.4 with numpy 1.24, which removed the alias np.bool that Blender 3.4's
# glTF importer still uses (set_poly_smoothing); restore it so the importer runs unchanged.
if "bool" not in numpy.__dict__:
    numpy.bool = bool

args = sys.argv[sys.argv.index("--") + 1:]
glb, plan_path, names = args[0], args[1], args[2].split(",")
tol = float(args[3]) if len(args) > 3 else 1e-4
plan = json.load(open(plan_path))
dt, steps = plan["dt"], plan["steps"]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


# an empty scene at the plan's frame rate (frame i = step i)
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
rate = 1.0 / dt
scene.render.fps = round(rate)
scene.render.fps_base = round(rate) / rate
bpy.ops.import_scene.gltf(filepath=glb)

meshes = sorted(o.name for o in scene.objects if o.type == "MESH")
bodies = sorted(b["name"] for b in plan["bodies"])
print("objects: %d mesh objects, plan: %d bodies" % (len(meshes), len(bodies)))
if meshes != bodies:
    fail("mesh objects %s != plan bodies %s" % (meshes[:10], bodies[:10]))

for b in plan["bodies"]:
    obj = scene.objects.get(b["name"])
    if obj is None:
        continue
    moving = "trajectory" in b
    act = obj.animation_data.action if obj.animation_data else None
    if moving and act is None:
        fail("%s: moving body without an action" % b["name"])
    elif not moving and act is not None:
        fail("%s: static body with an action" % b["name"])
    elif moving:
        lo, hi = act.frame_range
        if abs(lo) > 1e-3 or abs(hi - steps * dt * rate) > 1e-3:
            fail("%s: action frames %g..%g, expected 0..%d" % (b["name"], lo, hi, steps))

frames = [steps // 3, steps // 2 + 1, steps]
for name in names:
    body = next((b for b in plan["bodies"] if b["name"] == name), None)
    obj = scene.objects.get(name)
    if body is None or obj is None or "trajectory" not in body:
        fail("%s: not a moving body of the plan, or not imported" % name)
        continue
    for f in frames:
        scene.frame_set(f)
        got = obj.matrix_world.translation
        want = body["trajectory"][f][:3]
        err = math.dist(tuple(got), want)
        print("%s frame %d: blender (%.6f, %.6f, %.6f) plan (%.6f, %.6f, %.6f) error %.2e m"
              % (name, f, got[0], got[1], got[2], want[0], want[1], want[2], err))
        if not err <= tol:
            fail("%s at frame %d: %.3g m from the plan" % (name, f, err))

print("blender_check: %s" % ("FAILED (%d)" % len(failures) if failures else "ok"))
sys.exit(1 if failures else 0)
