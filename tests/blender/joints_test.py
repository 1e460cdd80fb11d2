# The add-on draws a plan's joints, headless:
#   blender -b --factory-startup --python-exit-code 1 --python joints_test.py -- TPLAN WORKDIR ADDON_DIR
# tplan plans a bar on a hinge to the world and a bob on a 0.8 m rod to the world (both released
# level, so they swing through half a period in the plan's second); Blender's objects of those names
# are keyed by the add-on's bake, which also draws the joints as empties in the collection "tplan
# joints". At every frame, in Blender's own evaluation of the keys and the parenting: the hinge's
# empty stays on the bar's end (the hinge's point on the bar, within 1e-5 m) with its arrow along the
# bar's hinge axis, the rod's empty on the bob and its end's at the rod's fixed point (2, 0, 2); the
# bar really swings (its far end falls more than 0.5 m). A bake again replaces the empties, never
# adds more. The physics' own joint error (the pivot's drift from (0, 0, 1.5), the rod's from 0.8 m)
# is printed and held to 1 mm (the joints' position projection, docs/physics.md "Joints": 8.9 and
# 12.6 mm before it, at the default 1 substep).
# Exits non-zero on failure.
import math
import os
import subprocess
import sys

import bpy
from mathutils import Vector

args = sys.argv[sys.argv.index("--") + 1:]
tplan, work, addon_dir = os.path.abspath(args[0]), os.path.abspath(args[1]), os.path.abspath(args[2])
sys.path.insert(0, addon_dir)
sys.dont_write_bytecode = True
import tplan_blender  # noqa: E402

tplan_blender.register()
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


DOMAIN = """local tp = require 'tp'
return tp.domain { name = 'pendulums', dt = 1 / 60,
  bodies = { tp.plane { name = 'floor' },
    tp.box { name = 'bar', class = 'passive', size = { 1, 0.1, 0.1 }, mass = 1, pos = { 0.5, 0, 1.5 } },
    tp.sphere { name = 'bob', class = 'passive', radius = 0.1, mass = 1, pos = { 2.8, 0, 2 } } },
  joints = {
    tp.joint { name = 'pin', kind = 'hinge', bodies = { 'bar', 'world' }, anchor = { 0, 0, 1.5 }, axis = { 0, 1, 0 } },
    tp.joint { name = 'rod', kind = 'distance', bodies = { 'bob', 'world' }, anchor2 = { 2, 0, 2 } } },
  goal = function(s) return s.t > 1 end }
"""
os.makedirs(work, exist_ok=True)
script, plan = os.path.join(work, "pendulums.lua"), os.path.join(work, "pendulums.json")
with open(script, "w") as f:
    f.write(DOMAIN)
subprocess.run([tplan, "plan", script, "-q", "-o", plan], check=True)

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps, scene.render.fps_base = 60, 1.0
bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.5, 0.0, 1.5))
bar = bpy.context.active_object
bar.name = "bar"
bar.scale = (1.0, 0.1, 0.1)  # the artist's scale: the empties must not inherit it
bpy.ops.mesh.primitive_uv_sphere_add(radius=0.1, location=(2.8, 0.0, 2.0))
bpy.context.active_object.name = "bob"
scene.tplan.plan_path = plan
scene.tplan.start_frame = 1
scene.tplan.bake_tolerance = 0.0  # a key per step: the test is about the joints, not the keys
for _ in range(2):  # a second bake replaces the empties
    tplan_blender.bake(scene)
coll = bpy.data.collections.get(tplan_blender.JOINT_COLLECTION)
names = sorted(o.name for o in coll.objects) if coll else []
if names != ["joint pin", "joint rod", "joint rod (end)"]:
    fail("the joints' empties: %s" % names)
else:
    pin, rod, end = (bpy.data.objects[n] for n in names)
    if pin.parent is not bar or rod.parent is not bpy.data.objects["bob"] or end.parent is not None:
        fail("parents: %s, %s, %s" % (pin.parent, rod.parent, end.parent))
    bob = bpy.data.objects["bob"]
    follow = 0.0  # m: how far an empty is from its joint's point on its body, as Blender shows the body
    pivot = stretch = worst_axis = 0.0
    lowest = 10.0
    for frame in range(scene.frame_start, scene.frame_end + 1):
        scene.frame_set(frame)
        bpy.context.view_layer.update()
        m = bar.matrix_world
        on_bar = m.translation + m.to_quaternion() @ Vector((-0.5, 0.0, 0.0))  # the hinge's point on the bar
        follow = max(follow, (pin.matrix_world.translation - on_bar).length,
                     (rod.matrix_world.translation - bob.matrix_world.translation).length,
                     (end.matrix_world.translation - Vector((2.0, 0.0, 2.0))).length)
        z = (pin.matrix_world.to_3x3() @ Vector((0.0, 0.0, 1.0))).normalized()
        worst_axis = max(worst_axis, (z - m.to_quaternion() @ Vector((0.0, 1.0, 0.0))).length)
        # the physics' own joint error (the plan's, not the drawing's)
        pivot = max(pivot, (on_bar - Vector((0.0, 0.0, 1.5))).length)
        stretch = max(stretch, abs((rod.matrix_world.translation - end.matrix_world.translation).length - 0.8))
        lowest = min(lowest, (m @ Vector((0.5, 0.0, 0.0))).z)  # the bar's far end
    print("blender_joints: %d frames; empties off their joints' points %.2e m, hinge arrow off its axis %.2e; "
          "the plan's own joint error: pivot %.4f m, rod %.4f m; the bar's end falls to z = %.3f m"
          % (scene.frame_end - scene.frame_start + 1, follow, worst_axis, pivot, stretch, lowest))
    if follow > 1e-5 or worst_axis > 1e-5:
        fail("the joints' empties do not follow their bodies")
    if pivot > 1e-3 or stretch > 1e-3:
        fail("the plan's joints part in the fast swing: pivot %.4f m, rod %.4f m (limit 0.001)" % (pivot, stretch))
    if lowest > 1.0:
        fail("the bar did not swing (its end's lowest z %.3f m)" % lowest)
sys.exit(1 if failures else 0)
