# The bowl shot driven through the add-on's panel like a user, headless:
#   blender -b --factory-startup --python-exit-code 1 --python bowl_test.py -- TPLAN WORKDIR ADDON_DIR
# The set is modelled already (a table, an open bowl mesh on it, a ball beside the bowl): building
# it is the artist's work in either tool and is not counted. Then every click an animator makes in
# the panel counts one action: selecting an object (click or shift-click), an operator's button,
# each value changed in a field, a drop-down or an operator's redo panel, and Play. The shot (mark
# the table and the bowl static, the ball active, its material and mass, the region = inside of
# the bowl, a key tolerance, Plan, which bakes the keys when done) must take at most 20 actions,
# and it must work: the ball ends at rest inside the bowl in Blender's own evaluation of the keys,
# the keys are reduced (fewer than one per frame) and every frame is within the tolerance of the
# plan. Prints the action count, the time from Plan to keys and the keys kept. Exits non-zero on
# failure.
import json
import math
import os
import sys
import time

import bpy
from mathutils import Quaternion, Vector

args = sys.argv[sys.argv.index("--") + 1:]
tplan, work, addon_dir = os.path.abspath(args[0]), os.path.abspath(args[1]), os.path.abspath(args[2])
sys.path.insert(0, addon_dir)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
import scene_kit as kit  # noqa: E402
import tplan_blender  # noqa: E402
from tplan_blender import core  # noqa: E402

tplan_blender.register()
# the user installed tplan: it is on the PATH (the panel's default program name "tplan")
os.environ["PATH"] = os.path.dirname(tplan) + os.pathsep + os.environ.get("PATH", "")
failures = []
MAX_ACTIONS = 20
TOLERANCE = 0.001  # m: the key tolerance the user types


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


# ---- the set, modelled before the shot (not counted) ---------------------------------------------
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps, scene.render.fps_base = 24, 1.0
scene.frame_start, scene.frame_end, scene.frame_current = 1, 48, 1


def obj(name, me, loc):
    return kit.link(scene, name, me, loc)


table = obj("Table", kit.box_mesh("table", 1.4, 0.8, 0.75), (0.0, 0.0, 0.375))
bowl = obj("Bowl", kit.bowl_mesh(), (0.25, 0.05, 0.75))
ball = obj("Ball", kit.ball_mesh("ball", 0.03), (-0.35, -0.1, 0.78))
bpy.context.view_layer.update()


# ---- the user --------------------------------------------------------------------------------------
class User:
    """Drives the panel as a user does; every action counted (and listed)."""

    def __init__(self):
        self.actions = []

    def _count(self, what):
        self.actions.append(what)

    def click(self, o, extend=False):
        """Clicks an object in the viewport (shift: adds it to the selection); it becomes active."""
        if not extend:
            for x in scene.objects:
                x.select_set(False)
        o.select_set(True)
        bpy.context.view_layer.objects.active = o
        self._count(("shift-click " if extend else "click ") + o.name)

    def button(self, op, preset=None, **redo):
        """Presses an operator's button (preset: the values the button itself passes, as the panel's
        Static / Passive / Active buttons do); each redo-panel value changed counts one more."""
        self._count("button %s%s" % (op, " %s" % preset if preset else ""))
        for k in redo:
            self._count("  redo %s = %r" % (k, redo[k]))
        group, name = op.split(".")
        try:
            return getattr(getattr(bpy.ops, group), name)(**dict(preset or {}, **redo))
        except RuntimeError as e:  # an operator's error report (background mode raises it)
            return str(e)

    def set(self, owner, prop, value):
        """Changes one field or drop-down."""
        self._count("set %s = %r" % (prop, value))
        if prop.startswith('["'):
            owner[prop[2:-2]] = value
        else:
            setattr(owner, prop, value)


u = User()
t = scene.tplan
u.click(table)
u.click(bowl, extend=True)
u.button("tplan.mark", preset={"cls": "static"})  # the Static button
u.click(ball)
u.button("tplan.mark", preset={"cls": "active"})  # the Active button: the ball is thrown
u.set(ball, "tplan_material", "plastic")  # the material drop-down of the ball's row
u.set(ball, '["mass"]', 0.06)  # kg, the mass field of its row
u.click(bowl)
u.button("tplan.region_from_object")
u.set(t, "bake_tolerance", TOLERANCE)
t0 = time.monotonic()
r = u.button("tplan.plan")
plan_to_keys = time.monotonic() - t0
u._count("Play")  # the user plays the shot
print("tplan:", t.status)

# ---- what the panel did ------------------------------------------------------------------------------
n = len(u.actions)
for a in u.actions:
    print("  action:", a)
if n > MAX_ACTIONS:
    fail("the bowl shot took %d actions, at most %d" % (n, MAX_ACTIONS))
if not (table.get("tplan_class") == "static" and bowl.get("tplan_class") == "static"
        and ball.get("tplan_class") == "active" and ball.get("material") == "plastic"
        and abs(ball.get("mass", 0) - 0.06) < 1e-9):
    fail("marks: %s %s %s" % (dict(table), dict(bowl), dict(ball)))
if t.goal != "INSIDE" or t.region != bowl:
    fail("region = inside of the bowl: goal %s, region %s" % (t.goal, t.region))
if r != {"FINISHED"} or not t.status.startswith("solved") or "keyed 1 object" not in t.status:
    fail("plan: %s, %s" % (r, t.status))
else:
    plan = core.read_plan(t.plan_path)
    script = open(os.path.join(os.path.dirname(t.plan_path), "blender.lua")).read()
    if 'tp.material { name = "plastic"' not in script:
        fail("the ball's material is not in the script")
    traj = core.solutions(plan)[0]["trajectories"]["Ball"]
    act = ball.animation_data.action if ball.animation_data else None
    if act is None or act.name != "Ball.tplan.0":
        fail("the ball has no tplan action after Plan: %s" % act)
    else:
        nloc = len(act.fcurves.find("location", index=0).keyframe_points)
        nrot = len(act.fcurves.find("rotation_quaternion", index=0).keyframe_points)
        steps = len(traj)
        if not (nloc < steps and nrot < steps):
            fail("keys not reduced: %d location and %d rotation keys for %d steps" % (nloc, nrot, steps))
        # Blender's own evaluation of the reduced keys at every frame against the plan
        body = next(b for b in plan["bodies"] if b["name"] == "Ball")
        origin = Vector(body["mesh"]["origin"])
        radius = max((Vector(v) - origin).length for v in (body["mesh"].get("vertices") or [[0.03, 0, 0]]))
        worst_p = worst_a = 0.0
        for i, row in enumerate(traj):
            scene.frame_set(scene.frame_start + i)
            q = Quaternion(row[3:7])
            wp = Vector(row[:3]) + q @ origin
            worst_p = max(worst_p, (ball.matrix_world.translation - wp).length)
            ang = abs(ball.matrix_world.to_quaternion().rotation_difference(q).angle)
            worst_a = max(worst_a, min(ang, 2 * math.pi - ang))
        # float32 f-curves: the reducer's guarantee plus single-precision rounding
        if worst_p > TOLERANCE + 1e-5:
            fail("reduced keys: %.3g m from the plan at worst, tolerance %g m" % (worst_p, TOLERANCE))
        if worst_a > TOLERANCE / 0.029 + 1e-4:  # rotations within tolerance / r (r ~ the ball's 3 cm)
            fail("reduced keys: %.3g rad from the plan at worst" % worst_a)
        lo, hi = tplan_blender._world_box(bowl)
        p = ball.matrix_world.translation
        if not all(lo[j] <= p[j] <= hi[j] for j in range(3)):
            fail("the ball ends at %s, outside the bowl %s..%s" % (tuple(p), lo, hi))
        v = traj[-1][7:10]
        if math.sqrt(sum(x * x for x in v)) > 0.05:
            fail("the ball still moves at the end: %s m/s" % (v,))
        print("bowl_shot: keys %d location + %d rotation for %d frames (tolerance %g m), worst %.3g m %.3g rad"
              % (nloc, nrot, steps, TOLERANCE, worst_p, worst_a))
    st = plan["stats"]
    print("bowl_shot: %d actions; Plan to keys %.2f s (planning %.2f s, %d iterations, %d steps)"
          % (n, plan_to_keys, st.get("timing", {}).get("total", 0), st.get("iterations", 0), plan["steps"]))

# ---- preview while planning: the best world so far keyed on the ball, then put back on cancel -------
# A region high in the air: the ball can be thrown through it but never rest there, so tplan plans
# on (no solution) while the preview improves. Waits for the first preview (an event), then cancels.
far = obj("Sky", kit.box_mesh("sky", 0.3, 0.3, 0.3), (0.0, 0.0, 2.5))
t.region, t.time_budget, t.iterations = far, 300, 100000000
scene.frame_set(scene.frame_start)
had = ball.animation_data.action.name if ball.animation_data and ball.animation_data.action else None
frame_end = scene.frame_end
run = tplan_blender.start_plan(bpy.context)
t0 = time.monotonic()
seen = None
while tplan_blender.poll_run(scene, run) == "running" and time.monotonic() - t0 < 120:
    act = ball.animation_data.action if ball.animation_data else None
    if act is not None and act.name == "Ball.tplan.preview":
        seen = (act, run.preview)
        break
    time.sleep(0.05)
if seen is None:
    fail("no preview within 120 s of planning (status %s, %s)" % (run.state, run.text()))
    run.cancel()
else:
    act, doc = seen
    rows = next(b for b in doc["bodies"] if b["name"] == "Ball")["trajectory"]
    nkeys = len(act.fcurves.find("location", index=0).keyframe_points)
    k0 = Vector([act.fcurves.find("location", index=j).keyframe_points[0].co[1] for j in range(3)])
    if nkeys != len(rows) or nkeys != doc["steps"] + 1:
        fail("preview: %d keys, the preview %d rows (%d steps)" % (nkeys, len(rows), doc["steps"]))
    if (k0 - Vector((-0.35, -0.1, 0.78))).length > 1e-5:
        fail("preview: the first key %s is not the ball's start" % (tuple(k0),))
    print("bowl_shot: preview after %.1f s of planning: %d steps, %d iterations, quality %s"
          % (time.monotonic() - t0, doc["steps"], doc["iterations"], doc["quality"]))
    run.cancel()
tplan_blender.finish_plan(scene, run)
now = ball.animation_data.action.name if ball.animation_data and ball.animation_data.action else None
if t.status != "cancelled" or now != had or "Ball.tplan.preview" in bpy.data.actions or scene.frame_end != frame_end:
    fail("after cancel: status %r, action %s (had %s), frame_end %d (was %d)" % (t.status, now, had,
                                                                                 scene.frame_end, frame_end))
if run.proc.poll() is None:
    fail("after cancel: tplan still runs")
t.region = bowl

# ---- refusals (not part of the shot) ----------------------------------------------------------------
for o in scene.objects:
    o.select_set(o is ball)
bpy.context.view_layer.objects.active = ball
try:
    r = bpy.ops.tplan.region_from_object()
except RuntimeError as e:
    r = str(e)
if "Ball moves" not in str(r) or t.region != bowl:
    fail("region = inside of a moving object: %s, region %s" % (r, t.region))
try:
    core.reduce_keys(tplan, t.plan_path, 1 / 24, float("nan"), work)
    fail("a NaN key tolerance was accepted")
except core.PlanError as e:
    if "key tolerance" not in str(e):
        fail("a NaN key tolerance: %s" % e)
ball["material"] = "jelly"
try:
    r = bpy.ops.tplan.plan()
except RuntimeError as e:
    r = str(e)
if "Ball: unknown material 'jelly'" not in t.status:
    fail("an unknown material: %s, %r" % (r, t.status))

print("bowl_shot: %s" % ("FAILED (%d)" % len(failures) if failures else "ok"))
with open(os.path.join(work, "bowl_result.json"), "w") as f:
    json.dump({"actions": u.actions, "plan_to_keys": plan_to_keys, "failures": failures}, f, indent=1)
sys.exit(1 if failures else 0)
