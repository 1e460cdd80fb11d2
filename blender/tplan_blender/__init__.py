# tplan Blender add-on: mark objects for physics, plan their motion with tplan (the local program or
# a `tplan serve` URL) and key the result on the artist's own objects. docs/blender.md.
bl_info = {
    "name": "tplan",
    "author": "tplan",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Sidebar > tplan",
    "description": "Plan physics-based motion with tplan and key it on your objects",
    "doc_url": "https://github.com/tplan/tplan/blob/main/docs/blender.md",
    "category": "Animation",
}

import json
import os
import tempfile

import bpy
from bpy.props import (BoolProperty, EnumProperty, FloatProperty, IntProperty, PointerProperty,
                       StringProperty)
from mathutils import Matrix, Quaternion, Vector

from . import core

# Debian 12 pairs Blender 3.4 with numpy 1.24, which removed the alias numpy.bool that Blender 3.4's
# glTF exporter and importer still use; restore it so they run unchanged (a no-op elsewhere).
try:
    import numpy
    if "bool" not in numpy.__dict__:
        numpy.bool = bool
except ImportError:
    pass

_runs = {}  # scene name -> the core.Run in progress (one per scene)


# ------------------------------------------------------------------------------------------------
# Settings

class TplanSettings(bpy.types.PropertyGroup):
    goal: EnumProperty(name="Goal", items=[
        ("INSIDE", "End inside a region", "every passive and active object ends at rest inside the region object's box"),
        ("REACH", "Body reaches a point", "one body ends within the radius of the target object's origin"),
        ("REST", "Objects at rest", "every passive and active object comes to rest"),
    ], default="INSIDE")
    region: PointerProperty(name="Region", type=bpy.types.Object,
                            description="its world-space bounding box is the region (it is not a body)")
    body: PointerProperty(name="Body", type=bpy.types.Object, description="the body that must reach the point")
    target: PointerProperty(name="Point", type=bpy.types.Object, description="its origin is the point")
    radius: FloatProperty(name="Radius", default=0.1, min=1e-4, unit="LENGTH", description="m around the point")
    goal_3d: BoolProperty(name="In 3D", default=False, description="the point in 3D (else in the xy plane)")
    min_time: FloatProperty(name="Not before", default=0.5, min=0, unit="TIME_ABSOLUTE",
                            description="s: the goal holds no earlier (objects at rest at the start do not count)")
    rest_speed: FloatProperty(name="Rest speed", default=0.05, min=1e-4, description="m/s: at rest below it")
    direction: EnumProperty(name="Direction", items=[
        ("THROW", "Throw", "each active object is thrown once toward the region or point, then left to physics: "
         "no visible control (passive direction)"),
        ("DRIVE", "Drive", "active objects push themselves sideways all along (robots, vehicles)"),
    ], default="THROW")
    force: FloatProperty(name="Push", default=0.8, min=0.0, max=100.0,
                         description="active objects push themselves sideways with at most this fraction of their "
                         "weight (above the friction coefficient to slide on something; above 1 a cube tips)")
    ground: BoolProperty(name="Ground plane", default=True, description="a static plane at z = 0")
    time_budget: FloatProperty(name="Time budget", default=30.0, min=0.1, description="s of planning at most")
    iterations: IntProperty(name="Iterations", default=20000, min=1, description="planner iterations at most")
    seed: IntProperty(name="Seed", default=1, min=0, description="the planner's seed: the same seed, the same plan")
    solutions: IntProperty(name="Solutions", default=1, min=1, max=1000,
                           description="many worlds: keep planning until this many solutions (one action each)")
    backend: EnumProperty(name="Planner", items=[
        ("LOCAL", "Local tplan", "run the tplan program on this machine"),
        ("SERVICE", "tplan serve", "submit a job to a tplan serve URL"),
    ], default="LOCAL")
    tplan_path: StringProperty(name="tplan", default="tplan", subtype="FILE_PATH",
                               description="the tplan program (a name on the PATH or a path)")
    url: StringProperty(name="URL", default="http://127.0.0.1:8087")
    token: StringProperty(name="Token", default="", subtype="PASSWORD",
                          description="the service's bearer token, if it has one")
    work_dir: StringProperty(name="Folder", default="", subtype="DIR_PATH",
                             description="where scene.glb, blender.lua and plan.json go (empty: a temporary folder)")
    # results
    status: StringProperty(name="Status", default="")
    plan_path: StringProperty(name="Plan", default="", subtype="FILE_PATH",
                              description="the plan file Apply reads (Plan sets it; any tplan plan file will do)")
    start_frame: IntProperty(name="From frame", default=1,
                             description="the frame the plan starts at: the scene was planned as it stood there")
    solution: IntProperty(name="Solution", default=0, min=0, update=lambda self, ctx: _select_solution(ctx.scene))
    nsolutions: IntProperty(default=0)
    # many-worlds browsing (docs/blender.md): a space-time query and a ranking, evaluated by tplan
    where: StringProperty(name="Where", default="",
                          description="keep the solutions for which this holds, e.g. 'Die.C inside [0,0.2]x[0,0.2]x[0,1] "
                          "between 1 2 and never Die.C touches Bucket and ends at rest' (tplan worlds, docs/cli.md)")
    rank: StringProperty(name="Rank", default="", description="order them by: duration, cost, impulse, work, "
                         "control_time, end_speed ('-' first: largest first), comma-separated")
    matches: StringProperty(name="Matches", default="", description="the solutions that match, best first")
    # baking (docs/blender.md, 4. Bake)
    bake_tolerance: FloatProperty(name="Key tolerance", default=0.0, min=0.0, unit="LENGTH", precision=4,
                                  description="m: keys are dropped where the interpolated curve stays within this of "
                                  "the plan (rotations: a point on the body's surface within it); 0: a key per "
                                  "frame. tplan's own reducer (tplan export --tolerance)")
    preview: BoolProperty(name="Preview while planning", default=True,
                          description="key the best world found so far on the objects while tplan plans (local "
                          "tplan only); the bake replaces it, a cancel puts the objects back")
    bake_when_done: BoolProperty(name="Bake when done", default=True,
                                 description="key the plan on every planned object as soon as Plan ends")


_MATERIAL_NAMES = list(core.MATERIALS)
_CLASS_ITEMS = [("static", "Static", "never moves (floor, walls, a bucket)"),
                ("passive", "Passive", "moves by gravity and contacts only"),
                ("active", "Active", "moves by itself: the planner throws (or pushes) it"),
                ("NONE", "Clear", "not a body")]
DEFAULT_MASS = 0.1  # kg: an object marked passive or active without a mass of its own


def _material_get(o):
    m = o.get("material", "default")
    return _MATERIAL_NAMES.index(m) if m in _MATERIAL_NAMES else 0


def _material_set(o, v):
    o["material"] = _MATERIAL_NAMES[v]


def _set_class(o, cls, mass=None, material=None):
    """Writes the object's tplan custom properties (what tp.scene reads as glTF node extras)."""
    if cls == "NONE":
        for k in ("tplan_class", "mass", "material"):
            if k in o:
                del o[k]
        return
    o["tplan_class"] = cls
    if material is not None or "material" not in o:
        o["material"] = material or "default"
    if cls != "static":
        if mass is not None or "mass" not in o:
            o["mass"] = mass if mass is not None else DEFAULT_MASS
    elif "mass" in o:
        del o["mass"]


def _class_get(o):
    c = o.get("tplan_class")
    return [i for i, it in enumerate(_CLASS_ITEMS) if it[0] == c][0] if c in core.CLASSES else 3


# Drop-downs over the custom properties (the properties stay the truth: they are the glTF extras)
OBJECT_PROPS = {
    "tplan_material": EnumProperty(name="Material", items=[(m, m, "friction %g, restitution %g" % v)
                                                           for m, v in core.MATERIALS.items()],
                                   get=_material_get, set=_material_set,
                                   description="the object's surface (tplan's materials, docs/blender.md)"),
    "tplan_body": EnumProperty(name="Body", items=_CLASS_ITEMS, get=_class_get,
                               set=lambda o, v: _set_class(o, _CLASS_ITEMS[v][0]),
                               description="how tplan treats the object"),
}


def _marked(context):
    """The marked objects of the view layer (objects of excluded collections take no part)."""
    return [o for o in context.view_layer.objects if o.get("tplan_class") in core.CLASSES]


# ------------------------------------------------------------------------------------------------
# Export and script

def _export_glb(context, path, objects):
    """Blender's glTF exporter on the marked objects and their ancestors, with custom properties as
    extras (tplan_class, mass, material). Only options this Blender version has are passed."""
    keep = set()
    for o in objects:
        while o is not None:
            keep.add(o)
            o = o.parent
    view_layer = context.view_layer
    was_sel = {o.name: o.select_get() for o in view_layer.objects}
    was_active = view_layer.objects.active
    try:
        for o in view_layer.objects:
            o.select_set(o in keep)
        have = bpy.ops.export_scene.gltf.get_rna_type().properties.keys()
        want = {"filepath": path, "export_format": "GLB", "use_selection": True, "export_extras": True,
                "export_yup": True, "export_apply": True, "export_normals": False, "export_texcoords": False,
                "export_materials": "NONE", "export_colors": False, "export_animations": False,
                "export_cameras": False, "export_lights": False, "export_skins": False, "export_morph": False}
        bpy.ops.export_scene.gltf(**{k: v for k, v in want.items() if k in have})
        # the panel's settings (token, URL, paths) are scene custom properties, which the exporter
        # writes as scene extras; the hook below drops them when the add-on is enabled, this also
        # when it is only imported (tests, scripts)
        core.strip_settings_file(path)
    finally:
        for o in view_layer.objects:
            o.select_set(was_sel.get(o.name, False))
        view_layer.objects.active = was_active


class glTF2ExportUserExtension:
    """Blender's glTF exporter calls the hooks of every enabled add-on that defines this class, in
    every export (File > Export included, not only Plan's): the scene's tplan settings (the service
    token, URL, tplan path, working folder) never leave the .blend as scene extras."""

    def gather_scene_hook(self, gltf2_scene, blender_scene, export_settings):
        ex = getattr(gltf2_scene, "extras", None)
        if isinstance(ex, dict) and core.SETTINGS_KEY in ex:
            del ex[core.SETTINGS_KEY]
            if not ex:
                gltf2_scene.extras = None


def _world_box(o):
    pts = [o.matrix_world @ Vector(c) for c in o.bound_box]
    return [min(p[k] for p in pts) for k in range(3)], [max(p[k] for p in pts) for k in range(3)]


def build_settings(context):
    """The settings dict of core.domain_script from the scene (raises core.PlanError)."""
    scene = context.scene
    t = scene.tplan
    objs = []
    for o in _marked(context):
        if o.type != "MESH":
            raise core.PlanError("%s: only mesh objects can be bodies" % o.name)
        try:
            mass = float(o.get("mass", 0.0))
        except (TypeError, ValueError):
            raise core.PlanError("%s: mass must be a number of kg (got %r)" % (o.name, o.get("mass")))
        objs.append({"name": o.name, "cls": o["tplan_class"], "mass": mass,
                     "material": str(o.get("material", "default"))})
    moving = [o["name"] for o in objs if o["cls"] != "static"]
    s = {"objects": objs, "goal": t.goal, "min_time": t.min_time, "rest_speed": t.rest_speed, "force": t.force,
         "direction": t.direction,
         "fps": scene.render.fps / scene.render.fps_base, "seed": t.seed, "iterations": t.iterations,
         "solutions": t.solutions, "ground": t.ground, "scene_file": "scene.glb", "subjects": moving}
    if t.goal == "INSIDE":
        if t.region is None:
            raise core.PlanError("choose the region object")
        if t.region.get("tplan_class") in ("passive", "active"):
            raise core.PlanError("%s: the region must not move (mark it static or clear its tplan class)"
                                 % t.region.name)
        s["region"] = _world_box(t.region)
    elif t.goal == "REACH":
        if t.body is None or t.target is None:
            raise core.PlanError("choose the body and the point object")
        s["subjects"] = [t.body.name]
        s["point"] = list(t.target.matrix_world.translation)
        s["radius"], s["goal_3d"] = t.radius, t.goal_3d
    return s


def _tplan_program(t):
    """The tplan program of the settings: a path (relative to the .blend) or a name on the PATH."""
    return bpy.path.abspath(t.tplan_path) if os.sep in t.tplan_path else t.tplan_path


def start_plan(context):
    """Exports the scene, writes the script and starts the run (returns it)."""
    scene = context.scene
    t = scene.tplan
    s = build_settings(context)
    core.domain_script(s)  # its checks, before anything is written
    folder = bpy.path.abspath(t.work_dir) if t.work_dir else tempfile.mkdtemp(prefix="tplan-")
    os.makedirs(folder, exist_ok=True)
    glb = os.path.join(folder, "scene.glb")
    _export_glb(context, glb, _marked(context))
    script = os.path.join(folder, "blender.lua")
    plan = os.path.join(folder, "plan.json")
    if os.path.exists(plan):
        os.remove(plan)
    if t.backend == "SERVICE":
        with open(glb, "rb") as f:
            s["scene_data"] = f.read()
        text = core.domain_script(s)
        with open(script, "w") as f:
            f.write(text)
        run = core.ServiceRun(t.url, text, plan, t.time_budget, t.token)
    else:
        text = core.domain_script(s)
        with open(script, "w") as f:
            f.write(text)
        run = core.LocalRun(_tplan_program(t), script, plan, t.time_budget,
                            os.path.join(folder, "preview.json") if t.preview else None)
    t.plan_path = plan
    t.start_frame = scene.frame_current
    t.status = "planning..."
    _runs[scene.name] = run
    return run


_previews = {}  # scene name -> {object name: what the preview replaced}, while a preview is shown


def _object_poses(o, rows, origin):
    """(locations, quaternions) of object o's own (basis) transform for plan rows: the artist's
    origin put back, a parent's transform (which must not move) undone, quaternion signs continuous."""
    scale = o.matrix_world.to_scale()
    to_basis = None
    if o.parent is not None:
        to_basis = (o.parent.matrix_world @ o.matrix_parent_inverse).inverted()
    locs, quats = [], []
    for loc, q in core.artist_poses(rows, origin):
        if to_basis is not None:
            m = to_basis @ Matrix.LocRotScale(Vector(loc), Quaternion(q), scale)
            l2, q2, _ = m.decompose()
            loc, q = tuple(l2), tuple(q2)
        locs.append(loc)
        quats.append(q)
    return locs, _continuous(quats)  # a parent's decomposition may flip a sign: interpolation must not


def _key_action(act, frames, locs, quats, loc_steps=None, rot_steps=None):
    """Replaces act's curves by linear keys of location and rotation_quaternion at the given steps
    (None: every step). Returns the number of keys (per channel, not per component)."""
    for c in list(act.fcurves):
        act.fcurves.remove(c)
    every = list(range(len(frames)))
    n = 0
    for path_, vals, ncomp, steps in (("location", locs, 3, loc_steps), ("rotation_quaternion", quats, 4, rot_steps)):
        steps = [i for i in (steps if steps is not None else every) if 0 <= i < len(frames)] or every
        n += len(steps)
        for idx in range(ncomp):
            fc = act.fcurves.new(path_, index=idx, action_group="Object Transforms")
            fc.keyframe_points.add(len(steps))
            co = []
            for i in steps:
                co += [frames[i], vals[i][idx]]
            fc.keyframe_points.foreach_set("co", co)
            for kp in fc.keyframe_points:
                kp.interpolation = "LINEAR"
            fc.update()
    return n


def show_preview(scene, run):
    """Keys the run's preview (the best world so far) on the objects it moves, as the actions
    `<object>.tplan.preview`, and assigns them; what they replaced is kept for end_preview."""
    doc = run.preview
    saved = _previews.setdefault(scene.name, {"frame_end": scene.frame_end, "objects": {}})
    dt = 1.0 / (scene.render.fps / scene.render.fps_base)
    last = scene.frame_end
    for b in doc.get("bodies", []):
        o = scene.objects.get(b["name"])
        if o is None or not b.get("trajectory"):
            continue
        if o.name not in saved["objects"]:
            ad = o.animation_data
            saved["objects"][o.name] = {
                "action": ad.action.name if ad is not None and ad.action is not None else None,
                "rotation_mode": o.rotation_mode, "location": tuple(o.location),
                "rotation_quaternion": tuple(o.rotation_quaternion), "rotation_euler": tuple(o.rotation_euler)}
        locs, quats = _object_poses(o, b["trajectory"], b.get("origin", [0, 0, 0]))
        frames = [_frame_of(scene, dt, i) for i in range(len(locs))]
        name = "%s.tplan.preview" % o.name
        act = bpy.data.actions.get(name) or bpy.data.actions.new(name)
        _key_action(act, frames, locs, quats)
        o.rotation_mode = "QUATERNION"
        o.animation_data_create()
        o.animation_data.action = act
        last = max(last, int(frames[-1] + 0.999))
    scene.frame_end = last
    run.shown_seq = run.preview_seq


def end_preview(scene, keyed=()):
    """Removes the preview actions; objects not in keyed (the bake's) get back what they had."""
    saved = _previews.pop(scene.name, None)
    if not saved:
        return
    for name, was in saved["objects"].items():
        o = scene.objects.get(name)
        act = bpy.data.actions.get("%s.tplan.preview" % name)
        if o is not None and name not in keyed:
            if o.animation_data is not None:
                o.animation_data.action = bpy.data.actions.get(was["action"]) if was["action"] else None
            o.rotation_mode = was["rotation_mode"]
            o.location, o.rotation_quaternion = was["location"], was["rotation_quaternion"]
            o.rotation_euler = was["rotation_euler"]
        if act is not None:
            bpy.data.actions.remove(act)
    if not keyed:
        scene.frame_end = saved["frame_end"]


def poll_run(scene, run):
    """One look at the run (never blocks for long): its state; a new preview is shown."""
    state = run.poll()
    if state == "running" and run.preview is not None and getattr(run, "shown_seq", 0) != run.preview_seq:
        show_preview(scene, run)
    return state


def finish_plan(scene, run):
    """Ends a run: the status line, and with Bake when done the keys on every planned object."""
    t = scene.tplan
    keyed = ()
    _runs.pop(scene.name, None)
    t["tplan_job"] = run.job if isinstance(run, core.ServiceRun) else -1  # where the worlds are asked
    t["tplan_job_plan"] = run.plan_path
    t.matches = ""
    if run.state == "done":
        plan = core.read_plan(run.plan_path)
        t.nsolutions = len(core.solutions(plan))
        st = plan.get("stats", {})
        t.status = "%s: %d steps, %d solution(s), %d iterations, %.2f s" % (
            run.status, plan["steps"], t.nsolutions, st.get("iterations", 0), st.get("timing", {}).get("total", 0))
        if t.bake_when_done:
            try:
                n, kept, full = bake(scene, None)
                t.status += "; " + _bake_text(t, n, kept, full)
                keyed = json.loads(t.get("tplan_keyed", "[]"))
            except (core.PlanError, OSError, ValueError, KeyError) as e:
                t.status += "; not keyed: %s" % e
    elif run.error == "cancelled":
        t.status = "cancelled"
    else:
        t.status = "failed: " + run.error
    end_preview(scene, keyed)


# ------------------------------------------------------------------------------------------------
# Apply

def _frame_of(scene, dt, i):
    """The scene frame of plan step i: from the frame the scene was planned at, at the scene's frame
    rate (a plan made at that rate keys whole frames; another rate keys between frames)."""
    rate = scene.render.fps / scene.render.fps_base
    f = i * dt * rate
    return scene.tplan.start_frame + (round(f) if abs(f - round(f)) < 1e-6 else f)


def _action_name(obj_name, k):
    return "%s.tplan.%d" % (obj_name, k)


def apply_plan(context, objects=None):
    """Keys the plan on the objects (default: the selected ones, or every planned object when none
    is selected). Returns (objects keyed, keys kept, keys of a key per step)."""
    sel = objects if objects is not None else list(context.selected_objects)
    return bake(context.scene, sel, fallback=objects is None)


def _bake_text(t, n, kept, full):
    red = " of %d (tolerance %.3g mm)" % (full, t.bake_tolerance * 1000) if t.bake_tolerance > 0 else ""
    return "keyed %d object(s), %d solution(s), %d keys%s" % (n, t.nsolutions, kept, red)


def _continuous(qs):
    """Quaternion signs made continuous (each key's dot product with the previous >= 0), in place."""
    for i in range(1, len(qs)):
        if sum(a * b for a, b in zip(qs[i], qs[i - 1])) < 0:
            qs[i] = tuple(-c for c in qs[i])
    return qs


def bake(scene, objects=None, fallback=True):
    """Keys the plan file of the panel on objects (None: every object the plan moves; with fallback,
    an empty list means every one too): one action per object and solution, location +
    rotation_quaternion, linear. With a Key tolerance > 0 only the keys tplan's reducer keeps
    (core.reduce_keys); else a key per step. Returns (objects keyed, keys kept, keys of a key per
    step)."""
    t = scene.tplan
    path = bpy.path.abspath(t.plan_path)
    plan = core.read_plan(path)
    sols = core.solutions(plan)
    moved = sols[0]["trajectories"]
    # a mesh body's or a compound's (plan version 4) own origin in its centre-of-mass frame
    origins = {b["name"]: (b.get("mesh") or b.get("compound") or {}).get("origin", [0.0, 0.0, 0.0])
               for b in plan["bodies"]}
    if objects is not None:
        objects = [o for o in objects if o.name in moved]
    if objects is None or (fallback and not objects):
        objects = [o for o in scene.objects if o.name in moved]
    if not objects:
        raise core.PlanError("no object of the plan's moving bodies to key")
    kept_steps = None
    if t.bake_tolerance > 0:
        with tempfile.TemporaryDirectory(prefix="tplan-keys-") as d:
            kept_steps = core.reduce_keys(_tplan_program(t), path, plan["dt"], t.bake_tolerance, d)
        if len(kept_steps) != len(sols):
            raise core.PlanError("tplan export wrote %d animations for %d solutions" % (len(kept_steps), len(sols)))
    last = scene.frame_end
    nkept = nfull = 0
    for o in objects:
        o.rotation_mode = "QUATERNION"
        o.animation_data_create()
        for k, sol in enumerate(sols):
            name = _action_name(o.name, k)
            act = bpy.data.actions.get(name) or bpy.data.actions.new(name)
            act.use_fake_user = True  # the alternatives survive saving while another is assigned
            act["tplan_solution"] = k
            locs, quats = _object_poses(o, sol["trajectories"][o.name], origins.get(o.name, [0, 0, 0]))
            frames = [_frame_of(scene, plan["dt"], i) for i in range(len(locs))]
            keep = kept_steps[k].get(o.name, {}) if kept_steps is not None else {}
            nkept += _key_action(act, frames, locs, quats, keep.get("translation"), keep.get("rotation"))
            nfull += 2 * len(locs)
            last = max(last, int(frames[-1] + 0.999))
        o.animation_data.action = bpy.data.actions[_action_name(o.name, min(t.solution, len(sols) - 1))]
    scene.frame_end = last
    draw_joints(scene, plan, sols[0], origins)
    t.nsolutions = len(sols)
    t["tplan_keyed"] = json.dumps(sorted(o.name for o in objects))
    return len(objects), nkept, nfull


JOINT_COLLECTION = "tplan joints"
_JOINT_SHAPES = {"hinge": "SINGLE_ARROW", "slider": "SINGLE_ARROW", "universal": "ARROWS", "hinge2": "ARROWS",
                 "ball": "SPHERE", "fixed": "CUBE", "distance": "PLAIN_AXES"}


def _joint_empty(scene, coll, name, shape, world, parent, parent_world0):
    """An empty named `name` of display `shape` at the world matrix `world` (the plan's first step),
    riding on `parent` (None: fixed in the world) as the parent moves from its pose `parent_world0`."""
    e = bpy.data.objects.new(name, None)
    e.empty_display_type = shape
    e.empty_display_size = 0.08
    e.show_in_front = True
    coll.objects.link(e)
    if parent is not None:
        e.parent = parent
        e.matrix_parent_inverse = parent_world0.inverted()
    e.matrix_basis = world
    e["tplan_joint"] = True
    return e


def draw_joints(scene, plan, sol, origins):
    """The plan's joints (member "joints", docs/plan-format.md) drawn as empties in the collection
    "tplan joints" (emptied first): one at each joint's anchor, its arrow along the joint's axis,
    riding on the joint's first body as that body's object is keyed; a distance joint also at its
    other end (on its second body, or fixed in the world). Bodies of the plan with no object of their
    name are skipped. Returns (joints drawn, joints skipped)."""
    joints = plan.get("joints") or []
    coll = bpy.data.collections.get(JOINT_COLLECTION)
    if coll is not None:
        for o in list(coll.objects):
            bpy.data.objects.remove(o, do_unlink=True)
    if not joints:
        return 0, 0
    if coll is None:
        coll = bpy.data.collections.new(JOINT_COLLECTION)
    if coll.name not in scene.collection.children:
        scene.collection.children.link(coll)
    rows = sol["trajectories"]

    def frame0(body):
        """(object, its world matrix at step 0, the body's position and rotation at step 0)."""
        o = scene.objects.get(body) if body is not None else None
        if o is None or body not in rows:
            return None
        r = rows[body][0]
        loc, q = core.artist_poses([r], origins.get(body, [0.0, 0.0, 0.0]))[0]
        world0 = Matrix.LocRotScale(Vector(loc), Quaternion(q), o.matrix_world.to_scale())
        return o, world0, Vector(r[0:3]), Quaternion(r[3:7])

    drawn = skipped = 0
    for k, j in enumerate(joints):
        a = frame0(j["bodies"][0])
        if a is None:
            skipped += 1
            continue
        obj, world0, pos, rot = a
        name = "joint " + (j.get("name") or str(k))
        axis = Vector(j["axis"])
        turn = Vector((0.0, 0.0, 1.0)).rotation_difference(rot @ axis) if axis.length > 0 else rot
        at = Matrix.LocRotScale(pos + rot @ Vector(j["anchor"]), turn, None)
        _joint_empty(scene, coll, name, _JOINT_SHAPES.get(j["kind"], "PLAIN_AXES"), at, obj, world0)
        if j["kind"] == "distance":
            b = frame0(j["bodies"][1])
            if b is None:  # the world (or a body without an object): the other end stays put
                end = Matrix.Translation(Vector(j["anchor2"]))
                _joint_empty(scene, coll, name + " (end)", "PLAIN_AXES", end, None, None)
            else:
                end = Matrix.Translation(b[2] + b[3] @ Vector(j["anchor2"]))
                _joint_empty(scene, coll, name + " (end)", "PLAIN_AXES", end, b[0], b[1])
        drawn += 1
    return drawn, skipped


def _select_solution(scene):
    """Assigns solution k's action to every keyed object."""
    t = scene.tplan
    names = json.loads(t.get("tplan_keyed", "[]"))
    for n in names:
        o = scene.objects.get(n)
        act = bpy.data.actions.get(_action_name(n, t.solution))
        if o is not None and act is not None:
            o.animation_data_create()
            o.animation_data.action = act


# ------------------------------------------------------------------------------------------------
# Operators

class TPLAN_OT_mark(bpy.types.Operator):
    """Mark the selected objects as tplan bodies (custom properties, exported as glTF extras)"""
    bl_idname = "tplan.mark"
    bl_label = "Mark"
    bl_options = {"REGISTER", "UNDO"}

    cls: EnumProperty(name="Class", items=[
        ("static", "Static", "never moves (floor, walls, a bucket)"),
        ("passive", "Passive", "moves by gravity and contacts only"),
        ("active", "Active", "moves by itself: the planner pushes it"),
        ("NONE", "Clear", "not a body")], default="passive")
    mass: FloatProperty(name="Mass", default=0.1, min=1e-6, description="kg (passive and active objects)")
    material: EnumProperty(name="Material", items=[(m, m, "friction %g, restitution %g" % v)
                                                    for m, v in core.MATERIALS.items()], default="default")

    def execute(self, context):
        n = 0
        for o in context.selected_objects:
            _set_class(o, self.cls, self.mass, self.material)
            n += 1
        self.report({"INFO"}, "%d object(s) marked %s" % (n, self.cls))
        return {"FINISHED"}


class TPLAN_OT_region_from_object(bpy.types.Operator):
    """Goal: every moving object ends at rest inside the active object's bounds (a bowl, a box, a
    scaled cube); the object may be a static body or no body at all"""
    bl_idname = "tplan.region_from_object"
    bl_label = "Region = inside of this object"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return context.active_object is not None and context.active_object.type == "MESH"

    def execute(self, context):
        o = context.active_object
        t = context.scene.tplan
        if o.get("tplan_class") in ("passive", "active"):
            self.report({"ERROR"}, "%s moves (it is %s): a region must stand still" % (o.name, o["tplan_class"]))
            return {"CANCELLED"}
        lo, hi = _world_box(o)
        if not all(a < b for a, b in zip(lo, hi)):
            self.report({"ERROR"}, "%s has no volume: it cannot be a region" % o.name)
            return {"CANCELLED"}
        t.goal, t.region = "INSIDE", o
        t.status = "region: inside of %s (%.3g x %.3g x %.3g m)" % ((o.name,) + tuple(b - a for a, b in zip(lo, hi)))
        self.report({"INFO"}, t.status)
        return {"FINISHED"}


class TPLAN_OT_plan(bpy.types.Operator):
    """Export the marked objects, write the domain script and plan it (Esc cancels)"""
    bl_idname = "tplan.plan"
    bl_label = "Plan"

    _timer = None
    _drawn_seq = 0

    def execute(self, context):
        if context.scene.name in _runs:
            self.report({"ERROR"}, "a plan is already running")
            return {"CANCELLED"}
        try:
            run = start_plan(context)
        except (core.PlanError, OSError, RuntimeError) as e:  # RuntimeError: the glTF exporter's
            context.scene.tplan.status = "failed: %s" % e
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        if bpy.app.background:  # no event loop: poll here, printing the progress
            import time
            while poll_run(context.scene, run) == "running":
                time.sleep(0.1)
            finish_plan(context.scene, run)
            print("tplan:", context.scene.tplan.status)
            return {"FINISHED"} if run.state == "done" else {"CANCELLED"}
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.2, window=context.window)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        scene = context.scene
        run = _runs.get(scene.name)
        if run is None:
            return self._end(context, {"CANCELLED"})
        if event.type == "ESC":
            run.cancel()
        if event.type in ("TIMER", "ESC"):
            if poll_run(scene, run) == "running":
                scene.tplan.status = "planning: " + run.text()
                if run.preview is not None:
                    scene.tplan.status += "; preview: %d steps%s" % (run.preview.get("steps", 0),
                                                                     ", solved" if run.preview.get("goal") else "")
            else:
                finish_plan(scene, run)
                self.report({"INFO"} if run.state == "done" else {"ERROR"}, scene.tplan.status)
                return self._end(context, {"FINISHED"} if run.state == "done" else {"CANCELLED"})
            # redraw the sidebars (the panel); the viewports only when a new preview was keyed
            fresh = run.preview_seq != self._drawn_seq
            self._drawn_seq = run.preview_seq
            for area in context.screen.areas if context.screen else []:
                if area.type == "VIEW_3D":
                    for region in area.regions:
                        if region.type == "UI" or (fresh and region.type == "WINDOW"):
                            region.tag_redraw()
        return {"PASS_THROUGH"}

    def _end(self, context, result):
        if self._timer is not None:
            context.window_manager.event_timer_remove(self._timer)
        return result


class TPLAN_OT_apply(bpy.types.Operator):
    """Key the plan on the selected objects (every planned object when none is selected)"""
    bl_idname = "tplan.apply"
    bl_label = "Apply"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        t = context.scene.tplan
        try:
            n, kept, full = apply_plan(context)
        except (core.PlanError, OSError, ValueError, KeyError) as e:
            t.status = "bake: %s" % e
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        t.status = _bake_text(t, n, kept, full)
        self.report({"INFO"}, t.status)
        return {"FINISHED"}


def filter_worlds(context):
    """Asks tplan which solutions satisfy the panel's query, ranked (the service's job when the plan
    came from it, else the local tplan): sets `matches` and selects the best one. The status line
    says how many matched. Returns the ranked world numbers (raises core.PlanError)."""
    t = context.scene.tplan
    path = bpy.path.abspath(t.plan_path)
    if t.backend == "SERVICE" and t.get("tplan_job", -1) >= 0 and t.get("tplan_job_plan") == t.plan_path:
        r = core.browse_service(t.url, t.token, t["tplan_job"], t.where.strip(), t.rank.strip())
    else:
        r = core.browse_local(_tplan_program(t), path, t.where.strip(), t.rank.strip())
    order = [int(k) for k in r["order"]]
    t.matches = " ".join(str(k) for k in order)
    t.status = "%d of %d solutions match%s" % (len(order), len(r["worlds"]), (": best %d" % order[0]) if order else "")
    if order and t.get("tplan_keyed"):
        t.solution = order[0]  # keyed already: the best match's actions are assigned
    elif order:
        t["solution"] = order[0]
    return order


class TPLAN_OT_worlds(bpy.types.Operator):
    """Filter and rank the plan's solutions by the query (many-worlds browsing); select the best"""
    bl_idname = "tplan.worlds"
    bl_label = "Filter solutions"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        try:
            order = filter_worlds(context)
        except (core.PlanError, OSError, ValueError, KeyError) as e:
            context.scene.tplan.status = "filter: " + str(e)
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        self.report({"INFO"}, context.scene.tplan.status)
        return {"FINISHED"} if order else {"CANCELLED"}


class TPLAN_PT_panel(bpy.types.Panel):
    bl_label = "tplan"
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "tplan"

    MAX_ROWS = 10  # bodies listed with their drop-downs (more: select one to edit it)

    def draw(self, context):
        lay = self.layout
        t = context.scene.tplan
        running = context.scene.name in _runs
        # Plan first: the button an animator presses again and again
        row = lay.row()
        row.scale_y = 1.5
        row.enabled = not running
        row.operator("tplan.plan", icon="PLAY")
        if t.status:
            lay.label(text=t.status)
        box = lay.box()
        box.label(text="Bodies (selected objects)")
        row = box.row(align=True)
        for cls, label in (("static", "Static"), ("passive", "Passive"), ("active", "Active"), ("NONE", "Clear")):
            op = row.operator("tplan.mark", text=label)
            op.cls = cls
        marked = _marked(context)
        o = context.active_object
        shown = marked[:self.MAX_ROWS]
        if o is not None and o in marked and o not in shown:
            shown.append(o)
        col = box.column(align=True)
        for b in shown:
            row = col.row(align=True)
            row.label(text=b.name, icon="OBJECT_DATA" if b is o else "BLANK1")
            row.prop(b, "tplan_body", text="")
            row.prop(b, "tplan_material", text="")
            if "mass" in b:
                row.prop(b, '["mass"]', text="kg")
            if b.get("material", "default") not in core.MATERIALS:
                col.label(text="%s: unknown material %r" % (b.name, b.get("material")), icon="ERROR")
        if len(marked) > len(shown):
            col.label(text="and %d more (select one to edit it)" % (len(marked) - len(shown)))
        box = lay.box()
        box.prop(t, "goal")
        if t.goal == "INSIDE":
            box.prop(t, "region")
            box.operator("tplan.region_from_object", icon="MESH_CUBE")
        elif t.goal == "REACH":
            box.prop(t, "body")
            box.prop(t, "target")
            row = box.row()
            row.prop(t, "radius")
            row.prop(t, "goal_3d")
        box.prop(t, "min_time")
        box.prop(t, "rest_speed")
        if t.goal != "REST":
            box.prop(t, "direction")
            if t.direction == "DRIVE":
                box.prop(t, "force")
        box.prop(t, "ground")
        box = lay.box()
        box.prop(t, "backend", expand=True)
        box.prop(t, "tplan_path" if t.backend == "LOCAL" else "url")
        if t.backend == "SERVICE":
            box.prop(t, "token")
        box.prop(t, "time_budget")
        row = box.row()
        row.prop(t, "iterations")
        row.prop(t, "seed")
        box.prop(t, "solutions")
        box.prop(t, "work_dir")
        if t.backend == "LOCAL":
            box.prop(t, "preview")
        box = lay.box()
        box.label(text="Bake")
        row = box.row()
        row.prop(t, "bake_tolerance")
        row.prop(t, "bake_when_done")
        if not running:
            box.prop(t, "plan_path")
        if t.plan_path and not running:
            row = box.row()
            row.operator("tplan.apply", text="Bake keys", icon="KEYINGSET")
            row.prop(t, "start_frame")
            if t.nsolutions > 1:
                lay.prop(t, "solution", text="Solution (0 = selected)")
                box = lay.box()
                box.label(text="Browse the solutions")
                box.prop(t, "where")
                box.prop(t, "rank")
                box.operator("tplan.worlds", icon="FILTER")
                if t.matches:
                    box.label(text="matching, best first: " + t.matches)


classes = (TplanSettings, TPLAN_OT_mark, TPLAN_OT_region_from_object, TPLAN_OT_plan, TPLAN_OT_apply, TPLAN_OT_worlds,
           TPLAN_PT_panel)


def register():
    for c in classes:
        bpy.utils.register_class(c)
    bpy.types.Scene.tplan = PointerProperty(type=TplanSettings)
    for k, p in OBJECT_PROPS.items():
        setattr(bpy.types.Object, k, p)


def unregister():
    del bpy.types.Scene.tplan
    for k in OBJECT_PROPS:
        delattr(bpy.types.Object, k)
    for c in reversed(classes):
        bpy.utils.unregister_class(c)
