# The add-on's figures (docs/blender.md, Figures), headless Blender driving the
# panel's operators: not a ctest (minutes of planning), run by tools/blender_figures.sh:
#   blender -b --factory-startup --python figures.py -- TPLAN WORKDIR ADDON_DIR [toss|drop|all] [SEEDS]
#  toss  six props resting on a table tossed into a bowl, throws only (Direction Throw, every prop
#        active, Region = inside of the bowl), seeds 1..SEEDS (default 10), 60 s each: solved or not,
#        the time, the iterations, and the control each plan used (forces only at the release step
#        of each prop: zero visible control); the Plan-to-keys time
#  drop  drop-and-settle of 50 props (passive, Objects at rest) onto the table and into the bowl:
#        the time, the steps, where they end (the bowl, the floor) and the fastest at the end; Plan to keys with reduced
#        keys (1 mm)
# Prints one line per run and a summary; writes WORKDIR/figures.json.
import json
import math
import os
import sys
import time

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
tplan, work, addon_dir = os.path.abspath(args[0]), os.path.abspath(args[1]), os.path.abspath(args[2])
which = args[3] if len(args) > 3 else "all"
nseeds = int(args[4]) if len(args) > 4 else 10
sys.path.insert(0, addon_dir)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
import scene_kit as kit  # noqa: E402
import tplan_blender  # noqa: E402
from tplan_blender import core  # noqa: E402

tplan_blender.register()
TABLE_TOP = 0.75  # m
out = {}


def new_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 24, 1.0
    scene.frame_start = scene.frame_current = 1
    table = kit.link(scene, "Table", kit.box_mesh("table", 1.4, 0.9, TABLE_TOP), (0, 0, TABLE_TOP / 2))
    bowl = kit.link(scene, "Bowl", kit.bowl_mesh(r0=0.11, r1=0.18, h=0.10), (0.1, 0.05, TABLE_TOP))
    for o in (table, bowl):
        o["tplan_class"], o["material"] = "static", "wood"
    t = scene.tplan
    t.tplan_path = tplan
    return scene, table, bowl


def props(scene):
    """Six props resting on the table around the bowl: (object, mass kg, material)."""
    P = [("Ball", kit.ball_mesh("ball", 0.03), 0.03, 0.06, "rubber"),
         ("Crate", kit.box_mesh("crate", 0.06, 0.06, 0.06), 0.03, 0.08, "wood"),
         ("Can", kit.cylinder_mesh("can", 0.03, 0.08), 0.04, 0.1, "metal"),
         ("Egg", kit.ball_mesh("egg", 0.025, 1.6), 0.04, 0.05, "plastic"),
         ("Block", kit.box_mesh("block", 0.08, 0.04, 0.03), 0.015, 0.07, "wood"),
         ("Puck", kit.cylinder_mesh("puck", 0.035, 0.02), 0.01, 0.04, "stone")]
    out = []
    for k, (name, me, half, mass, mat) in enumerate(P):
        a = -2.4 + k * 0.5  # rad: around the bowl, 0.4 m from its centre, on the table's near side
        o = kit.link(scene, name, me, (0.1 + 0.4 * math.cos(a), 0.05 + 0.3 * math.sin(a), TABLE_TOP + half))
        o["tplan_class"], o["mass"], o["material"] = "active", mass, mat
        out.append(o)
    return out


def plan(scene):
    t0 = time.monotonic()
    try:
        r = bpy.ops.tplan.plan()
    except RuntimeError as e:
        r = str(e)
    return r, time.monotonic() - t0


def toss():
    rows = []
    for seed in range(1, nseeds + 1):
        scene, table, bowl = new_scene()
        moving = props(scene)
        t = scene.tplan
        t.goal, t.region, t.direction = "INSIDE", bowl, "THROW"
        t.min_time, t.time_budget, t.iterations, t.seed = 1.0, 60, 1000000, seed
        t.bake_tolerance = 0.001
        t.work_dir = os.path.join(work, "toss_%d" % seed)
        r, secs = plan(scene)
        p = core.read_plan(t.plan_path)
        st = p["stats"]
        # zero visible control: a prop's force acts at most during its release step (the throw)
        forced = {}
        for b in p["bodies"]:
            if "controls" in b:
                forced[b["name"]] = sum(1 for c in b["controls"] if any(abs(x) > 0 for x in c))
        invisible = all(n <= 1 for n in forced.values()) and len(forced) == len(moving)
        ctl = p.get("control", {}).get("total", {})
        row = {"seed": seed, "status": p["status"], "plan_s": st.get("timing", {}).get("total", 0.0),
               "plan_to_keys_s": secs, "iterations": st.get("iterations", 0), "steps": p["steps"],
               "forced_steps": forced, "control_time": ctl.get("time"), "impulse": ctl.get("impulse"),
               "zero_visible_control": invisible, "panel": t.status}
        rows.append(row)
        print("toss seed %d: %s in %.1f s (%d iterations, %d steps = %.2f s of shot), forces during %s s "
              "(steps per prop %s), Plan to keys %.1f s" % (seed, p["status"], row["plan_s"], row["iterations"],
                                                            p["steps"], p["steps"] * p["dt"], ctl.get("time"),
                                                            sorted(forced.values()), secs))
        sys.stdout.flush()
    solved = [r for r in rows if r["status"] == "solved" and r["plan_s"] <= 60]
    print("toss: %d of %d seeds solved within 60 s, %d with zero visible control; times %s s"
          % (len(solved), len(rows), sum(1 for r in solved if r["zero_visible_control"]),
             ", ".join("%.1f" % r["plan_s"] if r["status"] == "solved" else "-" for r in rows)))
    out["toss"] = rows


def drop():
    scene, table, bowl = new_scene()
    t = scene.tplan
    n = 0
    shapes = [lambda k: kit.box_mesh("p%d" % k, 0.05, 0.05, 0.05), lambda k: kit.ball_mesh("p%d" % k, 0.025),
              lambda k: kit.cylinder_mesh("p%d" % k, 0.025, 0.05), lambda k: kit.box_mesh("p%d" % k, 0.07, 0.04, 0.03)]
    for layer in range(2):
        for i in range(5):
            for j in range(5):
                k = n
                o = kit.link(scene, "Prop.%02d" % k, shapes[k % 4](k),
                             (0.1 + (i - 2) * 0.09 + 0.02 * layer, 0.05 + (j - 2) * 0.09, TABLE_TOP + 0.25 + 0.1 * layer))
                o.rotation_euler = (0.3 * k, 0.2 * k, 0.1 * k)
                o["tplan_class"], o["mass"], o["material"] = "passive", 0.05, ("wood", "plastic", "dice")[k % 3]
                n += 1
    t.goal, t.min_time, t.time_budget, t.seed = "REST", 0.5, 120, 1
    t.bake_tolerance = 0.001
    t.work_dir = os.path.join(work, "drop")
    r, secs = plan(scene)
    p = core.read_plan(t.plan_path)
    st = p["stats"]
    ends = [b["trajectory"][-1] for b in p["bodies"] if "trajectory" in b]
    floor = sum(1 for e in ends if e[2] < TABLE_TOP)  # rolled off the table's edge
    fast = max(math.sqrt(sum(x * x for x in e[7:10])) for e in ends)
    in_bowl = sum(1 for e in ends if math.hypot(e[0] - 0.1, e[1] - 0.05) < 0.18 and e[2] < TABLE_TOP + 0.1)
    row = {"props": n, "status": p["status"], "plan_s": st.get("timing", {}).get("total", 0.0),
           "plan_to_keys_s": secs, "iterations": st.get("iterations", 0), "steps": p["steps"],
           "on_the_floor": floor, "fastest_end": fast, "in_bowl": in_bowl, "panel": t.status}
    print("drop %d props: %s, planning %.2f s (%d iterations, %d steps = %.2f s of shot), Plan to keys %.2f s; "
          "at the end %d in the bowl, %d rolled off the table, the fastest %.3g m/s; %s"
          % (n, p["status"], row["plan_s"], row["iterations"], p["steps"], p["steps"] * p["dt"], secs, in_bowl,
             floor, fast, t.status))
    out["drop"] = row


if which in ("drop", "all"):
    drop()
if which in ("toss", "all"):
    toss()
with open(os.path.join(work, "figures.json"), "w") as f:
    json.dump(out, f, indent=1)
