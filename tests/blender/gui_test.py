# The add-on's interactive path in Blender with a window (under Xvfb): the Plan operator runs as a
# modal operator driven by a timer, the UI keeps running (this script's own timer keeps being
# called while tplan plans), the panel's status shows the local tplan's progress line (iterations
# counted while it runs) and the preview (the best world so far keyed on the die) before Esc
# cancels, which takes the preview away; the sidebar panel draws.
#   xvfb-run blender --factory-startup --python gui_test.py -- TPLAN WORKDIR ADDON_DIR
# Writes WORKDIR/gui_result.json ({"ok": bool, ...}) and quits Blender.
import json
import os
import sys
import time

import bmesh
import bpy

args = sys.argv[sys.argv.index("--") + 1:]
tplan, work, addon_dir = os.path.abspath(args[0]), os.path.abspath(args[1]), os.path.abspath(args[2])
sys.path.insert(0, addon_dir)
sys.dont_write_bytecode = True
import tplan_blender  # noqa: E402

result = {"ok": False, "statuses": [], "ticks": 0, "problems": [], "draws": 0, "draw_errors": []}
_draw = tplan_blender.TPLAN_PT_panel.draw


def counted_draw(self, context):  # the panel's draw, counted, its errors kept
    result["draws"] += 1
    try:
        _draw(self, context)
    except Exception as e:  # noqa: BLE001 - reported by the test
        result["draw_errors"].append(repr(e))
        raise


tplan_blender.TPLAN_PT_panel.draw = counted_draw
# Blender 3.4 cannot switch the sidebar's tab from Python (Region.active_panel_category came later):
# the panel goes on the tab the sidebar opens on
tplan_blender.TPLAN_PT_panel.bl_category = "Item"
tplan_blender.register()


def finish():
    with open(os.path.join(work, "gui_result.json"), "w") as f:
        json.dump(result, f, indent=1)
    bpy.ops.wm.quit_blender()
    return None


def cube(name, size, loc):
    me = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=size)
    bm.to_mesh(me)
    bm.free()
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    ob.location = loc
    return ob


def setup():
    scene = bpy.context.scene
    for o in list(scene.objects):
        bpy.data.objects.remove(o)
    global die
    die = cube("Die", 0.1, (0, 0, 0.3))
    die["tplan_class"], die["mass"], die["material"] = "passive", 0.15, "dice"
    region = cube("Far", 0.2, (5, 5, 0.1))  # out of reach: tplan plans until its time budget
    t = scene.tplan
    t.goal, t.region, t.ground = "INSIDE", region, True
    t.iterations, t.time_budget = 100000000, 200
    t.backend, t.tplan_path, t.work_dir = "LOCAL", tplan, os.path.join(work, "gui")
    win = bpy.context.window_manager.windows[0]
    area = next(a for a in win.screen.areas if a.type == "VIEW_3D")
    region_ui = next(r for r in area.regions if r.type == "WINDOW")
    with bpy.context.temp_override(window=win, area=area, region=region_ui):
        r = bpy.ops.tplan.plan()
    if r != {"RUNNING_MODAL"}:
        result["problems"].append("plan returned %s: %s" % (r, t.status))
        finish()
        return None
    result["started"] = time.monotonic()
    bpy.app.timers.register(watch, first_interval=0.1)
    return None


def watch():
    """Waits (on the UI's own timer, so the UI is running) until the status counts iterations from
    tplan's progress line, then presses Esc: the run is cancelled and its process ended."""
    t = bpy.context.scene.tplan
    result["ticks"] += 1
    if not result["statuses"] or result["statuses"][-1] != t.status:
        result["statuses"].append(t.status)
    run = result.setdefault("run", tplan_blender._runs.get(bpy.context.scene.name))
    if time.monotonic() - result["started"] > 150:
        result["problems"].append("no progress or no end after 150 s: %s" % result["statuses"][-3:])
        if run is not None:
            run.cancel()
        return finish()
    if bpy.context.scene.name in tplan_blender._runs:
        act = die.animation_data.action if die.animation_data else None
        if act is not None and act.name == "Die.tplan.preview":  # the modal operator keyed a preview
            result["preview_keys"] = len(act.fcurves[0].keyframe_points)
        if (t.status.startswith("planning: ") and " 0 iterations" not in t.status and "; preview: " in t.status
                and "preview_keys" in result and "esc" not in result):
            result["esc"] = t.status
            bpy.context.window_manager.windows[0].event_simulate(type="ESC", value="PRESS")
        return 0.1
    if "esc" not in result:
        result["problems"].append("the run ended before the status counted iterations: %s" % result["statuses"])
    if t.status != "cancelled":
        result["problems"].append("after Esc: status %r" % t.status)
    if "preview_keys" not in result:
        result["problems"].append("no preview keyed on the die while planning")
    if (die.animation_data is not None and die.animation_data.action is not None) or "Die.tplan.preview" in bpy.data.actions:
        result["problems"].append("after Esc: the preview is still there")
    if run is None or run.proc.poll() is None:
        result["problems"].append("after Esc: tplan still runs")
    result.pop("run", None)
    if result["draws"] == 0 or result["draw_errors"]:
        result["problems"].append("the panel drew %d times, errors %s" % (result["draws"], result["draw_errors"]))
    result["ok"] = not result["problems"]
    return finish()


warm = []
die = None


def warm_up():
    """Lets the window draw its first frames (software GL compiles its shaders then) before planning,
    so that the ticks counted while planning measure the add-on, not the first draw."""
    if not warm:  # the sidebar, where the panel lives
        for a in bpy.context.window_manager.windows[0].screen.areas:
            if a.type == "VIEW_3D":
                a.spaces[0].show_region_ui = True
                for r in a.regions:
                    r.tag_redraw()
    warm.append(time.monotonic())
    if len(warm) < 5 or warm[-1] - warm[-2] > 0.3:
        return 0.1
    setup()
    return None


bpy.app.timers.register(warm_up, first_interval=0.5)
