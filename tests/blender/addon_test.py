# The Blender add-on end to end (headless), against a real `tplan serve` this script starts:
#   blender -b --factory-startup --python-exit-code 1 --python addon_test.py -- TPLAN WORKDIR ADDON_DIR
# Builds a scene in Blender (a bucket mesh, three dice meshes, one of them active and one under a
# moved and turned parent, a region box), marks them with the add-on's operator, plans through the
# service (the scene travels inside the script) with two solutions (many worlds), applies, then
# reads the keyframes back and compares them with the plan file's trajectories: the key values of
# every step of every solution's action, and the objects' evaluated world positions at every step
# of the selected one, within 1e-5 m; the first keys are the objects' own start poses (axes through
# the glTF round trip). Then plans the same scene with the local tplan (the same trajectories) and
# checks that a passive object without a mass is refused before anything runs.
# Prints the worst position error and the plan time. Exits non-zero on failure.
import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import time

import bmesh
import bpy
from mathutils import Matrix, Quaternion, Vector

args = sys.argv[sys.argv.index("--") + 1:]
tplan, work, addon_dir = os.path.abspath(args[0]), os.path.abspath(args[1]), os.path.abspath(args[2])
sys.path.insert(0, addon_dir)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import tplan_blender  # noqa: E402
from tplan_blender import core  # noqa: E402

tplan_blender.register()
failures = []
TOL = 1e-5


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


# ---- the scene -----------------------------------------------------------------------------------
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps, scene.render.fps_base = 30, 1.0
scene.frame_start, scene.frame_end = 1, 10


def link(name, me, loc=(0, 0, 0), rot=(1, 0, 0, 0), parent=None):
    ob = bpy.data.objects.new(name, me)
    scene.collection.objects.link(ob)
    ob.location = loc
    ob.rotation_mode = "QUATERNION"
    ob.rotation_quaternion = rot
    if parent is not None:
        ob.parent = parent
    return ob


def bucket_mesh(r=0.35, h=0.3, wall=0.02, seg=24):
    """An open-topped bucket: outer wall, inner wall, rim, outer bottom and inner floor."""
    v, f = [], []
    for z in (0.0, h):
        for rr in (r, r - wall):
            for j in range(seg):
                a = 2 * math.pi * j / seg
                v.append((rr * math.cos(a), rr * math.sin(a), z))
    idx = lambda zi, ri, j: (zi * 2 + ri) * seg + j % seg  # noqa: E731
    cb = len(v)
    v.append((0, 0, 0))
    ct = len(v)
    v.append((0, 0, wall))
    fl = len(v)
    for j in range(seg):
        a = 2 * math.pi * j / seg
        v.append(((r - wall) * math.cos(a), (r - wall) * math.sin(a), wall))
    for j in range(seg):
        k = j + 1
        f += [(idx(0, 0, j), idx(0, 0, k), idx(1, 0, k), idx(1, 0, j)),
              (fl + j, idx(1, 1, j), idx(1, 1, k), fl + k % seg),
              (idx(1, 0, j), idx(1, 0, k), idx(1, 1, k), idx(1, 1, j)),
              (cb, idx(0, 0, k), idx(0, 0, j)), (ct, fl + j, fl + k % seg)]
    me = bpy.data.meshes.new("bucket")
    me.from_pydata(v, [], f)
    me.update()
    return me


def die_mesh(name):
    me = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=0.1)
    bm.to_mesh(me)
    bm.free()
    return me


bucket = link("Bucket", bucket_mesh())
dice_me = die_mesh("die")
# a die modelled off its origin (its centre 4 cm along its x): the body is at its centre of mass,
# the keys must put the artist's origin back where it belongs
off_me = die_mesh("die_off")
off_me.transform(Matrix.Translation((0.04, 0.0, 0.0)))
d0 = link("Die.A", dice_me, (0.08, 0.0, 0.45), (math.cos(0.2), math.sin(0.2), 0, 0))
d1 = link("Die.B", off_me, (-0.14, 0.05, 0.62), (math.cos(0.4), 0, math.sin(0.4), 0))
# a die under an empty moved up 0.3 m and turned 90 degrees about z: its key must undo the parent's
group = bpy.data.objects.new("Group", None)
scene.collection.objects.link(group)
group.location = (0.0, 0.0, 0.3)
group.rotation_euler = (0, 0, math.pi / 2)
d2 = link("Die.C", dice_me, (-0.1, 0.0, 0.5), (math.cos(0.3), 0, 0, math.sin(0.3)), parent=group)
region_me = die_mesh("region")
region = link("Region", region_me, (0, 0, 0.15))
region.scale = (6.0, 6.0, 3.0)  # 0.6 x 0.6 x 0.3 m: the bucket's inside
bpy.context.view_layer.update()
start = {o.name: (o.matrix_world.translation.copy(), o.matrix_world.to_quaternion()) for o in (d0, d1, d2)}
basis = {o.name: (o.location.copy(), o.rotation_quaternion.copy()) for o in (d0, d1, d2)}

# mark with the add-on's operator (selected objects)
def mark(objs, cls, **kw):
    for o in scene.objects:
        o.select_set(o in objs)
    bpy.ops.tplan.mark(cls=cls, **kw)


mark([bucket], "static", material="wood")
mark([d0, d1], "passive", mass=0.15, material="dice")
mark([d2], "active", mass=0.15, material="dice")
if not (d0["tplan_class"] == "passive" and abs(d0["mass"] - 0.15) < 1e-6 and bucket["material"] == "wood"
        and "mass" not in bucket):
    fail("mark: custom properties %s, %s" % (dict(d0), dict(bucket)))

t = scene.tplan
t.goal = "INSIDE"
t.region = region
t.solutions = 2
t.seed = 3
t.iterations = 20000
t.time_budget = 60
t.tplan_path = tplan
t.bake_when_done = False  # Apply is tested on its own (the selected objects only)

class Stop(Exception):
    """A failure after which the rest cannot run (already counted by fail)."""


def plan_origin(plan, name):
    return next(b for b in plan["bodies"] if b["name"] == name)["mesh"]["origin"]


# ---- a real tplan serve --------------------------------------------------------------------------
data = os.path.join(work, "serve")
shutil.rmtree(data, ignore_errors=True)
os.makedirs(data)
log = open(os.path.join(work, "serve.log"), "w")
server = subprocess.Popen([tplan, "serve", "--port", "0", "--data", data, "--workers", "1", "--no-web",
                           "--drain-timeout", "0"],
                          stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True)
ready, _, _ = select.select([server.stdout], [], [], 120)
line = server.stdout.readline() if ready else ""
if not line.startswith("listening on http://"):
    server.kill()
    print("FAIL: the server did not start: %r" % line)
    sys.exit(1)
t.url = line.split()[2].rstrip(",")
print("server:", line.strip())

try:
    t.backend = "SERVICE"
    t.work_dir = os.path.join(work, "service")
    t0 = time.monotonic()
    r = bpy.ops.tplan.plan()
    plan_time = time.monotonic() - t0
    print("service plan:", t.status)
    if r != {"FINISHED"}:
        fail("plan through the service: %s" % t.status)
        raise Stop
    plan = json.load(open(t.plan_path))
    if plan["domain"]["file"] != "job.lua" or plan["status"] != "solved":
        fail("the service's plan: file %s, status %s" % (plan["domain"]["file"], plan["status"]))
    sols = core.solutions(plan)
    if len(sols) != 2:
        fail("many worlds: %d solutions, asked 2" % len(sols))
    elif sols[0]["trajectories"]["Die.C"] == sols[1]["trajectories"]["Die.C"]:
        fail("many worlds: the two solutions move the active die alike")

    # ---- apply and read the keys back --------------------------------------------------------------
    if max(abs(c) for c in plan_origin(plan, "Die.B")) < 0.01:
        fail("Die.B: the plan's mesh origin %s, the mesh is 4 cm off it" % plan_origin(plan, "Die.B"))
    for o in scene.objects:  # the selected objects only
        o.select_set(o is d0)
    bpy.ops.tplan.apply()
    if d1.animation_data is not None and d1.animation_data.action is not None:
        fail("apply with Die.A selected keyed Die.B too")
    for o in scene.objects:
        o.select_set(o in (d0, d1, d2))
    if bpy.ops.tplan.apply() != {"FINISHED"}:
        fail("apply")
        raise Stop
    bodies = {b["name"]: b for b in plan["bodies"]}
    rate = scene.render.fps / scene.render.fps_base
    worst = 0.0
    if abs(plan["dt"] * rate - 1) > 1e-12:
        fail("the plan's step %g s is not one frame at %g fps" % (plan["dt"], rate))

    def want_world(row, origin):
        q = Quaternion(row[3:7])
        return Vector(row[:3]) + q @ Vector(origin), q

    for k, sol in enumerate(sols):
        for o in (d0, d1, d2):
            act = bpy.data.actions.get("%s.tplan.%d" % (o.name, k))
            rows = sol["trajectories"][o.name]
            if act is None:
                fail("%s: no action for solution %d" % (o.name, k))
                continue
            curves = {(c.data_path, c.array_index): c for c in act.fcurves}
            n = len(rows)
            for c in curves.values():
                if len(c.keyframe_points) != n:
                    fail("%s solution %d: %s[%d] has %d keys, the plan %d states"
                         % (o.name, k, c.data_path, c.array_index, len(c.keyframe_points), n))
            origin = bodies[o.name]["mesh"]["origin"]
            pm = None if o.parent is None else o.parent.matrix_world @ o.matrix_parent_inverse
            scale = o.matrix_world.to_scale()
            for i, row in enumerate(rows):
                loc = Vector([curves[("location", j)].keyframe_points[i].co[1] for j in range(3)])
                rot = Quaternion([curves[("rotation_quaternion", j)].keyframe_points[i].co[1] for j in range(4)])
                fr = curves[("location", 0)].keyframe_points[i].co[0]
                if fr != scene.frame_start + i:
                    fail("%s solution %d: key %d at frame %g, expected %d" % (o.name, k, i, fr, scene.frame_start + i))
                    break
                world = Matrix.LocRotScale(loc, rot, Vector((1, 1, 1)) if pm is None else scale)
                if pm is not None:
                    world = pm @ world
                wp, wq = want_world(row, origin)
                err = (world.translation - wp).length
                worst = max(worst, err)
                turn = abs(world.to_quaternion().rotation_difference(wq).angle)
                turn = min(turn, 2 * math.pi - turn)  # q and -q are one rotation (an angle of 2 pi is none)
                if err > TOL or turn > 1e-4:
                    fail("%s solution %d step %d: keyed at %s, the plan %s (%.3g m, %.3g rad)"
                         % (o.name, k, i, tuple(world.translation), tuple(wp), err, turn))
                    break
                if i == 0:  # the glTF round trip (z up -> y up -> z up) puts it where the artist did
                    p0, q0 = start[o.name]
                    e0 = (world.translation - p0).length
                    if e0 > TOL or abs(world.to_quaternion().rotation_difference(q0).angle) > 1e-4:
                        fail("%s: first key at %s, the object was at %s" % (o.name, tuple(world.translation), tuple(p0)))
    # the selected solution through Blender's own evaluation (parent, fcurves, rotation mode)
    for i in range(0, plan["steps"] + 1):
        scene.frame_set(scene.frame_start + i)
        for o in (d0, d1, d2):
            wp, _ = want_world(sols[0]["trajectories"][o.name][i], bodies[o.name]["mesh"]["origin"])
            err = (o.matrix_world.translation - wp).length
            worst = max(worst, err)
            if err > TOL:
                fail("%s at frame %d: %s, the plan %s (%.3g m)" % (o.name, i, tuple(o.matrix_world.translation),
                                                                    tuple(wp), err))
                break
    # every die ended inside the region (the goal held)
    lo, hi = tplan_blender._world_box(region)
    scene.frame_set(scene.frame_start + plan["steps"])
    for o in (d0, d1, d2):
        p = o.matrix_world.translation
        if not all(lo[j] <= p[j] <= hi[j] for j in range(3)):
            fail("%s ends at %s, outside the region" % (o.name, tuple(p)))
    # switching the solution assigns the other actions
    t.solution = 1
    if d0.animation_data.action.name != "Die.A.tplan.1":
        fail("solution 1 selected, %s has %s" % (d0.name, d0.animation_data.action.name))
    t.solution = 0
    print("blender_addon: round trip of %d steps x %d solutions x 3 objects, worst position error %.3g m"
          % (plan["steps"], len(sols), worst))

    # ---- the same plan baked with keyframe reduction (tplan's reducer through the local tplan, on a
    # plan the service made): every frame within the tolerance, the parented and off-origin dice too
    t.bake_tolerance = 1e-3
    for o in scene.objects:
        o.select_set(o in (d0, d1, d2))
    if bpy.ops.tplan.apply() != {"FINISHED"} or "keys of" not in t.status:
        fail("reduced bake: %s" % t.status)
    red_worst = 0.0
    nkeys = sum(len(bpy.data.actions["%s.tplan.0" % o.name].fcurves[0].keyframe_points) for o in (d0, d1, d2))
    for i in range(0, plan["steps"] + 1):
        scene.frame_set(scene.frame_start + i)
        for o in (d0, d1, d2):
            wp, _ = want_world(sols[0]["trajectories"][o.name][i], bodies[o.name]["mesh"]["origin"])
            red_worst = max(red_worst, (o.matrix_world.translation - wp).length)
    if red_worst > 1e-3 + 1e-5 or nkeys >= 3 * (plan["steps"] + 1):
        fail("reduced bake: %.3g m at worst (tolerance 1 mm), %d location keys for 3 x %d steps"
             % (red_worst, nkeys, plan["steps"] + 1))
    print("blender_addon: reduced bake (1 mm): %s; worst %.3g m over every frame" % (t.status, red_worst))
    t.bake_tolerance = 0.0
    bpy.ops.tplan.apply()  # back to a key per step for what follows
    print("blender_addon: service plan time %.2f s (export, job, plan download)" % plan_time)

    # ---- many-worlds browsing: filter and rank the solutions (the service's evaluator) ---------------
    def browse(where, rank=""):
        t.where, t.rank = where, rank
        try:
            r = bpy.ops.tplan.worlds()
        except RuntimeError as e:  # the operator's error report, raised in background mode
            r = str(e)
        return r

    e1 = sols[1]["trajectories"]["Die.C"][-1]
    box = "x".join("[%r,%r]" % (e1[j] - 1e-4, e1[j] + 1e-4) for j in range(3))
    e0 = sols[0]["trajectories"]["Die.C"][-1]
    if max(abs(e0[j] - e1[j]) for j in range(3)) > 2e-4:
        r = browse("Die.C ends inside %s and not Die.C touches Bucket before 0" % box)
        if r != {"FINISHED"} or t.matches != "1" or t.solution != 1 or d2.animation_data.action.name != "Die.C.tplan.1":
            fail("filter (service): %s, matches %r, solution %d, %s" % (r, t.matches, t.solution,
                                                                         d2.animation_data.action.name))
        print("blender_addon: filter 'Die.C ends inside (world 1's end)': %s" % t.status)
    else:
        fail("the two solutions end with Die.C at the same place: no query tells them apart")
    dur = [x["steps"] for x in sols]
    r = browse("", "-duration")
    want = " ".join(str(k) for k in sorted(range(len(sols)), key=lambda k: (-dur[k], k)))
    if r != {"FINISHED"} or t.matches != want:
        fail("rank -duration: %s, matches %r, want %r" % (r, t.matches, want))
    r = browse("Die.Q ends at rest")
    if r == {"FINISHED"} or "no body named 'Die.Q'" not in t.status:
        fail("a query naming no body: %s, status %r" % (r, t.status))
    r = browse("Die.C inside [0,1]x[1,0]x[0,1]")
    if r == {"FINISHED"} or "empty region: y from 1 to 0" not in t.status:
        fail("an empty region: %s, status %r" % (r, t.status))
    t.where, t.rank = "", ""
    t.solution = 0

    # ---- the local tplan: the same plan ------------------------------------------------------------
    t.backend = "LOCAL"
    t.work_dir = os.path.join(work, "local")
    for o in (d0, d1, d2):  # back where the artist put them (the keys are single precision)
        o.animation_data.action = None
        o.location, o.rotation_quaternion = basis[o.name]
    scene.frame_set(scene.frame_start)
    t0 = time.monotonic()
    r = bpy.ops.tplan.plan()
    print("local plan: %s (%.2f s)" % (t.status, time.monotonic() - t0))
    if r != {"FINISHED"}:
        fail("local plan: %s" % t.status)
    else:
        local = json.load(open(t.plan_path))
        ls = core.solutions(local)
        if [x["trajectories"] for x in ls] != [x["trajectories"] for x in sols]:
            fail("the local tplan and the service planned different trajectories")
        # the local tplan's evaluator gives the service's answer
        t.where = "Die.C ends inside %s" % box
        try:
            bpy.ops.tplan.worlds()
        except RuntimeError:
            pass
        if t.matches != "1":
            fail("filter (local tplan): matches %r, status %r" % (t.matches, t.status))
        t.where = ""

    # ---- the other goal templates (local tplan): a body reaches a point; objects at rest -----------
    point = bpy.data.objects.new("Point", None)
    scene.collection.objects.link(point)
    point.location = (0.12, 0.1, 0.05)
    t.goal, t.body, t.target, t.radius, t.solutions = "REACH", d2, point, 0.06, 1
    try:
        r = bpy.ops.tplan.plan()
    except RuntimeError as e:
        r = str(e)
    print("reach plan:", t.status)
    if r != {"FINISHED"} or not t.status.startswith("solved"):
        fail("REACH: %s, %s" % (r, t.status))
    else:
        bpy.ops.tplan.apply()
        reach = json.load(open(t.plan_path))
        scene.frame_set(scene.frame_start + reach["steps"])
        c = d2.matrix_world @ Vector(d2.bound_box[0]).lerp(Vector(d2.bound_box[6]), 0.5)  # the die's centre
        if math.hypot(c[0] - 0.12, c[1] - 0.1) > 0.06 + 1e-6:
            fail("REACH: the active die ends at %s, not within 0.06 m of (0.12, 0.1)" % tuple(c))
        scene.frame_set(scene.frame_start)
    for o in (d0, d1, d2):
        o.animation_data.action = None
        o.location, o.rotation_quaternion = basis[o.name]
    t.goal = "REST"
    try:
        r = bpy.ops.tplan.plan()
    except RuntimeError as e:
        r = str(e)
    print("rest plan:", t.status)
    if r != {"FINISHED"} or not t.status.startswith("solved"):
        fail("REST: %s, %s" % (r, t.status))
    else:
        rest = json.load(open(t.plan_path))
        for b in rest["bodies"]:
            if "trajectory" in b:
                v = b["trajectory"][-1][7:10]
                if math.sqrt(sum(x * x for x in v)) >= 0.05 or rest["steps"] * rest["dt"] < 0.5 - 1e-9:
                    fail("REST: %s still moves at the end (%s)" % (b["name"], v))

    # ---- refusals before anything runs -------------------------------------------------------------
    del d0["mass"]
    try:
        r = bpy.ops.tplan.plan()
    except RuntimeError as e:  # the operator's error report, raised in background mode
        r = str(e)
    if "Die.A: a passive object needs a mass" not in t.status:
        fail("a passive object without mass: %s, %r" % (r, t.status))
except Stop:
    pass
finally:
    server.send_signal(signal.SIGTERM)
    server.wait(60)
    log.close()
    # the sanitizer build: a report from the server or a worker fails the test
    text = open(os.path.join(work, "serve.log"), errors="replace").read()
    for bad in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"):
        if bad in text:
            fail("sanitizer report in %s" % os.path.join(work, "serve.log"))
    if server.returncode != 0:
        fail("the server exited with status %s" % server.returncode)

print("blender_addon: %s" % ("FAILED (%d)" % len(failures) if failures else "ok"))
sys.exit(1 if failures else 0)
