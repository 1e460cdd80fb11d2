#!/usr/bin/env python3
"""Writes glTF physics test scenes into a folder, written from the text of the
specifications (OMI_physics_body, OMI_physics_shape, OMI_physics_joint; KHR_physics_rigid_bodies,
KHR_implicit_shapes), in the layouts their examples and Godot 4 / Blender use: one file per case
of the OMI example set (every shape type, body types, triggers, compounds, velocities, joints),
Godot's body / collider / visual mesh nodes and its UV sphere, a dense hull, KHR files, and files
whose buffers are a .bin beside them. Nothing binary is committed: the tests generate them.

usage: omi_assets.py DIR [--bench]     (prints one line per file: NAME|EXPECTED; --bench also
       writes dense_pile.glb and pile.lua, the hull benchmark of docs/physics.md)
EXPECTED is read by omi.sh: "bodies=N" and the body names with their shape and class."""
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mesh_assets as m  # noqa: E402

OMI = ["OMI_physics_body", "OMI_physics_shape"]


class Doc(m.Gltf):
    """mesh_assets.Gltf with the physics extensions' document-level shape lists."""

    def __init__(self, khr=False):
        super().__init__()
        self.khr = khr
        self.doc["extensionsUsed"] = ["KHR_physics_rigid_bodies", "KHR_implicit_shapes"] if khr else list(OMI)
        self.shapes = []
        key = "KHR_implicit_shapes" if khr else "OMI_physics_shape"
        self.doc.setdefault("extensions", {})[key] = {"shapes": self.shapes}

    def shape(self, type_, **params):
        self.shapes.append({"type": type_, type_: params})
        return len(self.shapes) - 1

    def body(self, name, motion=None, collider=None, trigger=None, children=None, root=True, **kw):
        ext = {}
        if motion is not None:
            ext["motion"] = motion
        if collider is not None:
            ext["collider"] = ({"geometry": {"shape": collider}} if self.khr else {"shape": collider}) \
                if isinstance(collider, int) else collider
        if trigger is not None:
            ext["trigger"] = ({"geometry": {"shape": trigger}} if self.khr else {"shape": trigger}) \
                if isinstance(trigger, int) else trigger
        key = "KHR_physics_rigid_bodies" if self.khr else "OMI_physics_body"
        i = self.node(name, extensions={key: ext}, root=root, **kw)
        if children:
            self.doc["nodes"][i]["children"] = children
        return i

    def external(self, binname):
        """The .gltf text with its buffer in binname (written by the caller) and the bytes."""
        self.doc["buffers"] = [{"byteLength": len(self.bin), "uri": binname}]
        return json.dumps(self.doc, indent=1).encode(), bytes(self.bin)


def uv_sphere(r=0.5, rings=32, seg=64):
    """Godot's SphereMesh as it exports it: (rings + 1) rows of (seg + 1) vertices, the poles rows of
    coincident vertices, the seam column repeated (cos 2 pi is not exactly 1): degenerate triangles
    at the poles, near-coincident vertices at the seam. y up (glTF), triangles as Godot writes them."""
    v = []
    for i in range(rings + 1):
        th = math.pi * i / rings
        for j in range(seg + 1):
            a = 2 * math.pi * j / seg
            v.append((r * math.sin(th) * math.sin(a), r * math.cos(th), r * math.sin(th) * math.cos(a)))
    t = []
    for i in range(rings):
        for j in range(seg):
            p, q = i * (seg + 1) + j, (i + 1) * (seg + 1) + j
            t += [(q, p + 1, p), (q, q + 1, p + 1)]  # counter-clockwise from outside
    return v, t


def raw_mesh(g, v, t, name):
    """A mesh whose vertices are given in glTF's own axes (y up), not turned."""
    return g.mesh([(x, -z, y) for x, y, z in v], t, name)


def cube(e):
    return m.cube(e)


def write(d):
    rows = []

    def save(name, data, expect, binname=None, bindata=None):
        open(os.path.join(d, name), "wb").write(data)
        if binname:
            open(os.path.join(d, binname), "wb").write(bindata)
        head, *warns = expect.split(" warn=")  # a warning's text keeps its spaces as "~"
        rows.append("%s|%s" % (name, " ".join([head] + ["warn=" + w.replace(" ", "~") for w in warns])))

    # ---- OMI_physics_shape: one collider of each type on a dynamic body over a floor --------------
    for typ, params, shape in (("box", {"size": [1, 2, 3]}, "box"), ("sphere", {"radius": 0.25}, "sphere"),
                               ("capsule", {"height": 0.5, "radiusBottom": 0.25, "radiusTop": 0.25}, "capsule"),
                               ("cylinder", {"height": 0.5, "radiusBottom": 0.25, "radiusTop": 0.25}, "cylinder")):
        g = Doc()
        s = g.shape(typ, **params)
        floor = g.shape("box", size=[10, 0.2, 10])
        coll = g.node("Collider" + typ.title(), extensions={"OMI_physics_body": {"collider": {"shape": s}}}, root=False)
        g.body("Dynamic" + typ.title(), motion={"type": "dynamic", "mass": 2}, children=[coll], translation=(0, 0, 2))
        g.body("Floor", collider=floor, translation=(0, 0, -0.1))
        save("%s_collider.gltf" % typ, g.gltf(), "bodies=2 Dynamic%s:%s:passive Floor:box:static" % (typ.title(), shape))
    # convex and trimesh: the mesh of a node as its shape (a die and a bowl)
    g = Doc()
    md = g.mesh(*cube(0.2), "hull")
    s = g.shape("convex", mesh=md)
    g.body("ConvexBody", motion={"type": "dynamic", "mass": 0.5}, collider=s, translation=(0, 0, 1))
    vis = g.node("ConvexVisual", mesh=md, root=False)
    g.doc["nodes"][0]["children"] = [vis]
    save("convex_hull.gltf", g.gltf(), "bodies=1 ConvexBody:mesh:passive")
    g = Doc()
    s = g.shape("convex", mesh=g.mesh(*cube(0.2), "hull"))
    g.node("ConvexOnly", extensions={"OMI_physics_body": {"collider": {"shape": s}}})
    save("convex_hull_only.gltf", g.gltf(), "bodies=1 ConvexOnly:mesh:static")
    g = Doc()
    bowl = g.mesh(*m.bowl(), "bowl")
    s = g.shape("trimesh", mesh=bowl)
    g.body("Bowl", motion={"type": "static"}, collider=s, mesh=bowl)
    ball = g.shape("sphere", radius=0.05)
    g.body("Ball", motion={"type": "dynamic", "mass": 0.1}, collider=ball, translation=(0.1, 0, 0.6))
    save("concave_trimesh.gltf", g.gltf(), "bodies=2 Bowl:mesh:static Ball:sphere:passive")
    g = Doc()
    s = g.shape("trimesh", mesh=g.mesh(*m.bowl(), "bowl"))
    g.node("TrimeshOnly", extensions={"OMI_physics_body": {"collider": {"shape": s}}})
    save("concave_trimesh_only.gltf", g.gltf(), "bodies=1 TrimeshOnly:mesh:static")

    # ---- OMI_physics_body: body types, triggers, compounds ---------------------------------------
    g = Doc()
    s = g.shape("box", size=[1, 1, 1])
    c = g.node("StaticShape", extensions={"OMI_physics_body": {"collider": {"shape": s}}}, root=False)
    g.body("StaticBox", motion={"type": "static"}, children=[c])
    save("static_box.gltf", g.gltf(), "bodies=1 StaticBox:box:static")
    g = Doc()
    s = g.shape("box", size=[1, 2, 3])
    c = g.node("BoxShape", extensions={"OMI_physics_body": {"collider": {"shape": s}}}, root=False)
    g.body("DynamicBox", motion={"type": "dynamic"}, children=[c], translation=(0, 0, 3))  # mass: the 1 kg default
    save("dynamic_box.gltf", g.gltf(), "bodies=1 DynamicBox:box:passive")
    g = Doc()
    s = g.shape("box", size=[1, 1, 1])
    t = g.node("TriggerShape", extensions={"OMI_physics_body": {"trigger": {"shape": s}}}, root=False)
    g.body("TriggerBox", trigger={"nodes": [t]}, children=[t])
    save("trigger_box.gltf", g.gltf(), "bodies=1 TriggerShape:box:marker")
    g = Doc()
    s = g.shape("sphere", radius=0.5)
    g.body("TriggerOnlyBody", trigger=s)
    save("trigger_only_body.gltf", g.gltf(), "bodies=1 TriggerOnlyBody:sphere:marker")
    g = Doc()
    s = g.shape("box", size=[2, 1, 2])
    g.node("TriggerOnlyShape", extensions={"OMI_physics_body": {"trigger": {"shape": s}}})
    save("trigger_only_shape.gltf", g.gltf(), "bodies=1 TriggerOnlyShape:box:marker")
    g = Doc()
    s1, s2 = g.shape("box", size=[1, 1, 1]), g.shape("sphere", radius=0.3)
    ta = g.node("GoalA", extensions={"OMI_physics_body": {"trigger": {"shape": s1}}}, translation=(1, 0, 0), root=False)
    tb = g.node("GoalB", extensions={"OMI_physics_body": {"trigger": {"shape": s2}}}, translation=(-1, 0, 0), root=False)
    g.body("CompoundTrigger", trigger={"nodes": [ta, tb]}, children=[ta, tb])
    save("compound_trigger.gltf", g.gltf(), "bodies=2 GoalA:box:marker GoalB:sphere:marker")
    # a static body with two colliders: a shelf (one node named Shelf: never a duplicate name)
    g = Doc()
    s = g.shape("convex", mesh=g.mesh(*cube(0.4), "plank"))
    l_ = g.node("ShelfLeft", extensions={"OMI_physics_body": {"collider": {"shape": s}}}, translation=(-0.5, 0, 0),
                root=False)
    r_ = g.node("ShelfRight", extensions={"OMI_physics_body": {"collider": {"shape": s}}}, translation=(0.5, 0, 0),
                root=False)
    g.body("Shelf", motion={"type": "static"}, children=[l_, r_])
    save("static_compound_collider.gltf", g.gltf(), "bodies=1 Shelf:compound:static")
    # a collider without a shape groups its children's into one static compound (the body node)
    g = Doc()
    s = g.shape("box", size=[1, 2, 3])
    c = g.node("BoxShape", extensions={"OMI_physics_body": {"collider": {"shape": s}}}, root=False)
    g.node("StaticCompoundCollider", extensions={"OMI_physics_body": {"collider": {}}}, children=[c])
    save("compound_collider_group.gltf", g.gltf(), "bodies=1 StaticCompoundCollider:box:static")
    # the drafts before motion/collider: a body "type" and the shape on a child node
    g = Doc()
    s = g.shape("sphere", radius=0.5)
    c = g.node("SphereShape", extensions={"OMI_physics_shape": {"shape": s}}, root=False)
    g.node("RigidWithVelocity", extensions={"OMI_physics_body": {"type": "rigid", "linearVelocity": [1, 2, 3],
                                                                 "angularVelocity": [4, 5, 6]}},
           children=[c], translation=(0, 0, 1))
    save("draft_rigid_with_velocity.gltf", g.gltf(),
         "bodies=1 RigidWithVelocity:sphere:passive vel=1,-3,2 angvel=4,-6,5")
    # a moving body of a box and a sphere: one compound body of two parts, with a note
    g = Doc()
    sb, ss = g.shape("box", size=[0.4, 0.1, 0.4]), g.shape("sphere", radius=0.1)
    a = g.node("Seat", extensions={"OMI_physics_body": {"collider": {"shape": sb}}}, root=False)
    b = g.node("Knob", extensions={"OMI_physics_body": {"collider": {"shape": ss}}}, translation=(0, 0, 0.15),
               root=False)
    g.body("Stool", motion={"type": "dynamic", "mass": 3}, children=[a, b], translation=(0, 0, 1))
    save("dynamic_compound.gltf", g.gltf(), "bodies=1 Stool:compound:passive warn=compound~bodies,~one~part~per~collider")
    # a moving bowl of five box colliders (a concave object as convex parts): one compound of five
    g = Doc()
    base = g.node("Base", extensions={"OMI_physics_body": {"collider": {"shape": g.shape("box", size=[0.3, 0.02, 0.3])}}},
                  root=False)
    walls = [g.node("Wall%d" % k, extensions={"OMI_physics_body": {"collider": {"shape": g.shape("box", size=sz)}}},
                    translation=t, root=False)
             for k, (sz, t) in enumerate([([0.01, 0.15, 0.3], (0.145, 0, 0.085)), ([0.01, 0.15, 0.3], (-0.145, 0, 0.085)),
                                          ([0.28, 0.15, 0.01], (0, 0.145, 0.085)), ([0.28, 0.15, 0.01], (0, -0.145, 0.085))])]
    g.body("Bowl", motion={"type": "dynamic", "mass": 1}, children=[base] + walls, translation=(0, 0, 0.01))
    save("dynamic_bowl.gltf", g.gltf(), "bodies=1 Bowl:compound:passive warn=Bowl~(5~colliders)")
    # colliders two levels below the body
    g = Doc()
    s = g.shape("box", size=[0.5, 0.5, 0.5])
    c = g.node("DeepCollider", extensions={"OMI_physics_body": {"collider": {"shape": s}}}, root=False)
    mid = g.node("Middle", root=False, children=[c], translation=(0, 0, 0.25))
    g.body("IndirectBody", motion={"type": "dynamic", "mass": 1}, children=[mid], translation=(0, 0, 2))
    save("indirect_children.gltf", g.gltf(), "bodies=1 IndirectBody:box:passive")
    g = Doc()
    s, t = g.shape("box", size=[1, 0.2, 1]), g.shape("box", size=[1, 1, 1])
    c = g.node("Pad", extensions={"OMI_physics_body": {"collider": {"shape": s}}}, root=False)
    tr = g.node("PadSensor", extensions={"OMI_physics_body": {"trigger": {"shape": t}}}, translation=(0, 0, 0.6),
                root=False)
    g.body("StaticWithTrigger", motion={"type": "static"}, children=[c, tr])
    save("static_with_trigger.gltf", g.gltf(), "bodies=2 StaticWithTrigger:box:static PadSensor:box:marker")
    g = Doc()
    s = g.shape("box", size=[0.5, 0.5, 0.5])
    g.body("MovingSensor", motion={"type": "dynamic", "mass": 1}, collider=s, trigger=s, translation=(0, 0, 1))
    save("one_collider_trigger.gltf", g.gltf(), "bodies=1 MovingSensor:box:passive warn=triggers on moving bodies")
    g = Doc()
    s = g.shape("box", size=[2, 0.2, 2])
    g.body("Platform", motion={"type": "kinematic", "linearVelocity": [0.5, 0, 0]}, collider=s)
    g.body("Still", motion={"type": "kinematic"}, collider=s, translation=(0, 0, 3))
    save("kinematic_motion.gltf", g.gltf(), "bodies=2 Platform:box:foreign Still:box:static")
    g = Doc()
    s = g.shape("box", size=[0.5, 0.5, 0.5])
    g.body("BoxA", motion={"type": "dynamic", "mass": 1}, collider=s, translation=(0, 0, 1))
    g.body("BoxB", motion={"type": "dynamic", "mass": 1}, collider=s, translation=(0, 0, 2))
    save("two_boxes.gltf", g.gltf(), "bodies=2 BoxA:box:passive BoxB:box:passive")
    # initial velocities: in the scene's axes (y up): (1, 2, 3) is (1, -3, 2) z up
    g = Doc()
    s = g.shape("sphere", radius=0.2)
    g.body("Thrown", motion={"type": "dynamic", "mass": 1, "linearVelocity": [1, 2, 3], "angularVelocity": [4, 5, 6]},
           collider=s, translation=(0, 0, 1))
    save("dynamic_with_velocity.gltf", g.gltf(), "bodies=1 Thrown:sphere:passive vel=1,-3,2 angvel=4,-6,5")
    # the properties tplan cannot represent, each named in a warning
    g = Doc()
    s = g.shape("box", size=[0.5, 0.5, 0.5])
    g.body("Weighted", motion={"type": "dynamic", "mass": 2, "centerOfMass": [0, -0.1, 0],
                               "inertiaDiagonal": [1, 1, 1], "inertiaOrientation": [0, 0, 0, 1]},
           collider=s, translation=(0, 0, 1))
    save("mass_properties.gltf", g.gltf(), "bodies=1 Weighted:box:passive warn=centerOfMass warn=inertiaDiagonal")
    # a ball pit: a floor, four walls and 24 balls, buffers in a .bin beside the file
    g = Doc()
    fl, wall, ball = g.shape("box", size=[2, 0.2, 2]), g.shape("box", size=[2, 1, 0.2]), g.shape("sphere", radius=0.1)
    g.body("PitFloor", motion={"type": "static"}, collider=fl, translation=(0, 0, -0.1))
    for k, (x, y, yaw) in enumerate(((0, 1, 0), (0, -1, 0), (1, 0, 1), (-1, 0, 1))):
        rot = [0, math.sin(0.25 * math.pi), 0, math.cos(0.25 * math.pi)] if yaw else None
        g.body("PitWall%d" % k, motion={"type": "static"}, collider=wall, translation=(x, y, 0.5), rotation=rot)
    vis = g.mesh(*cube(0.15), "ballvis")
    for k in range(24):
        vnode = g.node("BallMesh%d" % k, mesh=vis, root=False)
        g.body("Ball%02d" % k, motion={"type": "dynamic", "mass": 0.05}, collider=ball, children=[vnode],
               translation=(-0.6 + 0.4 * (k % 4), -0.5 + 0.4 * (k // 4 % 3), 0.3 + 0.3 * (k // 12)))
    js, binary = g.external("ball_pit0.bin")
    save("ball_pit.gltf", js, "bodies=29 PitFloor:box:static Ball00:sphere:passive", "ball_pit0.bin", binary)

    # ---- Godot 4's layouts ----------------------------------------------------------------------
    # the collider on the body node and the visual mesh as a child: one body, not two
    g = Doc()
    md = g.mesh(*cube(0.3), "ConvexMesh")
    s = g.shape("convex", mesh=md)
    vis = g.node("ConvexMesh", mesh=md, root=False)
    g.body("ConvexHullShape", motion={"type": "dynamic", "mass": 1, "linearVelocity": [1, 2, 3]}, collider=s,
           children=[vis], translation=(0, 0, 1))
    save("godot_convex_visual.gltf", g.gltf(), "bodies=1 ConvexHullShape:mesh:passive vel=1,-3,2")
    # Godot's UV sphere as a convex collider (poles: rings of coincident vertices)
    g = Doc()
    md = raw_mesh(g, *uv_sphere(0.25, 32, 64), "Sphere")
    s = g.shape("convex", mesh=md)
    g.body("Ball", mesh=md, motion={"type": "dynamic", "mass": 1}, collider=s, translation=(0, 0, 1))
    g.body("Ground", collider=g.shape("box", size=[4, 0.2, 4]), translation=(0, 0, -0.1))
    save("godot_uv_sphere.gltf", g.gltf(),
         "bodies=2 Ball:mesh:passive Ground:box:static warn=degenerate triangles dropped warn=vertices 65, 1, 0")
    # a dense ball (2,210 vertices: Godot's default 64 x 32 sphere + rings) as in the ball pit report
    g = Doc()
    md = raw_mesh(g, *uv_sphere(0.1, 33, 64), "Dense")
    s = g.shape("convex", mesh=md)
    for k in range(4):
        g.body("Dense%d" % k, motion={"type": "dynamic", "mass": 0.1}, collider=s, translation=(0.25 * k, 0, 0.3))
    g.body("DenseFloor", collider=g.shape("box", size=[4, 0.2, 4]), translation=(0, 0, -0.1))
    js, binary = g.external("dense_balls.bin")
    save("dense_balls.gltf", js, "bodies=5 Dense0:mesh:passive warn=hull of at most 128", "dense_balls.bin", binary)

    # ---- joints: warned by node name, the bodies load ---------------------------------------------
    g = Doc()
    g.doc["extensionsUsed"].append("OMI_physics_joint")
    g.doc["extensions"]["OMI_physics_joint"] = {"constraints": [{"linearAxes": [0, 1, 2]}]}
    s = g.shape("box", size=[0.2, 0.2, 0.2])
    a = g.body("BodyA", motion={"type": "dynamic", "mass": 1}, collider=s, translation=(-0.45, 0, 0.68))
    b = g.body("BodyB", motion={"type": "dynamic", "mass": 1}, collider=s, translation=(0, 0, 0.6))
    g.node("PinJoint", extensions={"OMI_physics_joint": {"constraints": [0], "nodeA": a, "nodeB": b}},
           translation=(-0.23, 0, 0.6))
    save("simple_joint.gltf", g.gltf(), "bodies=2 BodyA:box:passive BodyB:box:passive joints=1")
    g = Doc()
    g.doc["extensionsUsed"].append("OMI_physics_joint")
    g.doc["extensions"]["OMI_physics_joint"] = {"constraints": [{"linearAxes": [0, 1, 2]}]}
    link = g.shape("capsule", height=0.2, radiusBottom=0.03, radiusTop=0.03)
    prev = g.body("Anchor", motion={"type": "static"}, collider=g.shape("sphere", radius=0.05), translation=(0, 0, 2))
    for k in range(6):
        cur = g.body("Link%d" % k, motion={"type": "dynamic", "mass": 0.1}, collider=link,
                     translation=(0, 0, 1.80 - 0.3 * k))
        g.node("RopeJoint%d" % k, extensions={"OMI_physics_joint": {"constraints": [0], "nodeA": prev, "nodeB": cur}},
               translation=(0, 0, 1.96 - 0.3 * k))
        prev = cur
    js, binary = g.external("hanging_rope.bin")
    save("hanging_rope.gltf", js, "bodies=7 Anchor:sphere:static Link0:capsule:passive joints=6",
         "hanging_rope.bin", binary)

    # a pendulum on a hinge, in the three forms of the texts: OMI's first drafts (document
    # `constraints`, nodeA/nodeB), OMI's and KHR's `physicsJoints` (limits, connectedNode). The bob
    # (r 0.05 m, 1 kg) hangs L = 1 m below the pivot, pulled aside 0.1 rad; the hinge turns about
    # the joint node's Z (tplan's -y): omi.sh measures the period against 2 pi sqrt(I / (m g L))
    th = 0.1
    for form in ("omi_old", "omi", "khr"):
        g = Doc(khr=form == "khr")
        key = "KHR_physics_rigid_bodies" if form == "khr" else "OMI_physics_joint"
        if form != "khr":
            g.doc["extensionsUsed"].append("OMI_physics_joint")
        root = g.doc["extensions"].setdefault(key, {})
        pivot = g.body("Pivot", motion=None if form == "khr" else {"type": "static"},
                       collider=g.shape("box", size=[0.05, 0.05, 0.05]), translation=(0, 0, 2))
        bob = g.body("Bob", motion={"type": "dynamic", "mass": 1} if form != "khr" else {"mass": 1},
                     collider=g.shape("sphere", radius=0.05), translation=(math.sin(th), 0, 2 - math.cos(th)))
        hinge = [{"linearAxes": [0, 1, 2], "min": 0, "max": 0}, {"angularAxes": [0, 1], "min": 0, "max": 0}]
        if form == "omi_old":
            root["constraints"] = [{"linearAxes": [0, 1, 2]}, {"angularAxes": [0, 1]}]
            g.node("Hinge", extensions={key: {"constraints": [0, 1], "nodeA": pivot, "nodeB": bob}}, translation=(0, 0, 2))
        else:
            root["physicsJoints"] = [{"limits": hinge}]
            # the joint node on the bob (its first parent body), the connected node the pivot's own
            j = g.node("Hinge", extensions={key: {"joint": {"connectedNode": pivot, "joint": 0}} if form == "khr"
                                            else {"connectedNode": pivot, "joint": 0}},
                       translation=(-math.sin(th), 0, math.cos(th)), root=False)
            g.doc["nodes"][bob]["children"] = [j]
        save("pendulum_%s.gltf" % form, g.gltf(), "bodies=2 Pivot:box:static Bob:sphere:passive joints=1")
    # a door on a hinge with limits (KHR): hinged to the world (a node without a body) about its
    # vertical edge (glTF Y), free within [-0.2, 0.6] rad of the joint's angle, swung hard toward
    # -0.6: omi.sh checks it stops at the limit
    g = Doc(khr=True)
    g.doc["extensions"]["KHR_physics_rigid_bodies"] = {"physicsJoints": [{"limits": [
        {"linearAxes": [0, 1, 2], "min": 0, "max": 0}, {"angularAxes": [0, 2], "min": 0, "max": 0},
        {"angularAxes": [1], "min": -0.2, "max": 0.6}]}]}
    frame = g.node("Frame", translation=(0, 1, 0))
    door = g.body("Door", motion={"mass": 1, "angularVelocity": [0, -3, 0]},
                  collider=g.shape("box", size=[1.0, 0.5, 0.04]), translation=(0.5, 1, 0))
    j = g.node("DoorHinge", extensions={"KHR_physics_rigid_bodies": {"joint": {"connectedNode": frame, "joint": 0}}},
               translation=(-0.5, 0, 0), root=False)
    g.doc["nodes"][door]["children"] = [j]
    save("door_limits.gltf", g.gltf(), "bodies=1 Door:box:passive joints=1")
    # bad joints: one-line errors naming the node and the field
    for bad, what in (("unknown", "OMI_physics_joint.nodeB: node 99 does not exist"), ("order", "lowerLimit = 1 is above upperLimit = -1"),
                      ("axes", "linearAxes: 3 is not an axis"), ("scale", "node 'BadJoint': scale 0 along its axis 0")):
        g = Doc()
        g.doc["extensionsUsed"].append("OMI_physics_joint")
        c = {"angularAxes": [2], "lowerLimit": 1, "upperLimit": -1} if bad == "order" else \
            {"linearAxes": [0, 1, 3]} if bad == "axes" else {"linearAxes": [0, 1, 2]}
        g.doc["extensions"]["OMI_physics_joint"] = {"constraints": [c]}
        s = g.shape("box", size=[0.2, 0.2, 0.2])
        a = g.body("BodyA", motion={"type": "dynamic", "mass": 1}, collider=s, translation=(0, 0, 1))
        b = g.body("BodyB", motion={"type": "dynamic", "mass": 1}, collider=s, translation=(0, 0, 2))
        g.node("BadJoint", extensions={"OMI_physics_joint": {"constraints": [0], "nodeA": a,
                                                             "nodeB": 99 if bad == "unknown" else b}},
               **({"scale": [0, 1, 1]} if bad == "scale" else {}))  # a zero axis
        save("bad_joint_%s.gltf" % bad, g.gltf(), "error=nodes[2] 'BadJoint': " + what if bad == "unknown"
             else "error=" + what)

    # ---- KHR_physics_rigid_bodies + KHR_implicit_shapes ---------------------------------------------
    g = Doc(khr=True)
    box, plane = g.shape("box", size=[0.5, 0.5, 0.5]), g.shape("plane")
    g.body("KhrBox", motion={"mass": 2, "linearVelocity": [1, 0, 0]}, collider=box, translation=(0, 0, 1))
    g.body("KhrGround", collider=plane)
    save("khr_box_plane.gltf", g.gltf(), "bodies=2 KhrBox:box:passive KhrGround:plane:static vel=1,0,0")
    # KHR: a moving body of a box and a tapered cylinder (a mesh of revolution): one compound of two
    g = Doc(khr=True)
    seat, leg = g.shape("box", size=[0.4, 0.05, 0.4]), g.shape("cylinder", height=0.4, radiusTop=0.03, radiusBottom=0.05)
    a_ = g.node("KhrSeat", extensions={"KHR_physics_rigid_bodies": {"collider": {"geometry": {"shape": seat}}}},
                translation=(0, 0, 0.425), root=False)
    b_ = g.node("KhrLeg", extensions={"KHR_physics_rigid_bodies": {"collider": {"geometry": {"shape": leg}}}},
                translation=(0, 0, 0.2), root=False)
    g.body("KhrStool", motion={"mass": 2}, children=[a_, b_], translation=(0, 0, 1))
    save("khr_compound.gltf", g.gltf(), "bodies=1 KhrStool:compound:passive warn=KhrStool~(2~colliders)")
    g = Doc(khr=True)
    g.doc["extensions"]["KHR_physics_rigid_bodies"] = {"physicsMaterials": [{"staticFriction": 0.8}],
                                                       "physicsJoints": [{"limits": []}]}
    cap, cyl = g.shape("capsule", height=0.3, radiusTop=0.1, radiusBottom=0.1), g.shape("cylinder", height=0.3,
                                                                                          radiusTop=0.05,
                                                                                          radiusBottom=0.15)
    md = g.mesh(*cube(0.2), "die")
    g.body("KhrCapsule", motion={"mass": 1}, collider={"geometry": {"shape": cap}, "physicsMaterial": 0},
           translation=(0, 0, 1))
    g.body("KhrCone", motion={"mass": 1, "isKinematic": True, "angularVelocity": [0, 1, 0]}, collider=cyl,
           translation=(1, 0, 1))
    g.body("KhrDie", mesh=md, motion={"mass": 0.2},
           collider={"geometry": {"node": len(g.doc["nodes"]), "convexHull": True}}, translation=(-1, 0, 1))
    g.body("KhrGoal", trigger={"geometry": {"shape": g.shape("box", size=[1, 1, 1])}}, translation=(0, 2, 0.5))
    g.node("KhrHinge", extensions={"KHR_physics_rigid_bodies": {"joint": {"connectedNode": 0, "joint": 0}}})
    g.node("Lamp", extensions={"KHR_lights_punctual": {"light": 0}})
    g.doc["extensionsUsed"].append("KHR_lights_punctual")
    save("khr_mixed.gltf", g.gltf(),
         "bodies=4 KhrCapsule:capsule:passive KhrCone:mesh:foreign KhrDie:mesh:passive KhrGoal:box:marker "
         "joints=0 warn=cannot~map warn=KhrHinge warn=physics materials warn=Lamp warn=KHR_lights_punctual")
    # a scene without any physics, read with default = "skip": an error, never an empty scene
    g = Doc()
    g.node("JustAMesh", mesh=g.mesh(*cube(0.2), "m"))
    save("no_physics.gltf", g.gltf(), "error=no bodies")
    return rows


def closed_sphere(r, rings, seg):
    """A UV sphere with one vertex at each pole (closed, no degenerate triangle), z up."""
    v = [(0, 0, -r)]
    for i in range(1, rings):
        th = math.pi * i / rings
        for j in range(seg):
            a = 2 * math.pi * j / seg
            v.append((r * math.sin(th) * math.cos(a), r * math.sin(th) * math.sin(a), -r * math.cos(th)))
    v.append((0, 0, r))
    top = len(v) - 1
    idx = lambda i, j: 1 + (i - 1) * seg + j % seg  # noqa: E731
    t = []
    for j in range(seg):
        t += [(0, idx(1, j + 1), idx(1, j)), (top, idx(rings - 1, j), idx(rings - 1, j + 1))]
    for i in range(1, rings - 1):
        for j in range(seg):
            t += [(idx(i, j), idx(i, j + 1), idx(i + 1, j + 1)), (idx(i, j), idx(i + 1, j + 1), idx(i + 1, j))]
    return v, t


def bench(d):
    """The hull benchmark of docs/physics.md: 12 balls of 2,162 vertices piled on a floor (extras, so
    that a tplan without OMI support reads it too) and its domain, 16 iterations."""
    g = m.Gltf()
    md = g.mesh(*closed_sphere(0.1, 46, 48), "ball")
    for k in range(12):
        g.node("Ball%d" % k, md, translation=(0.06 * (k % 3) - 0.06, 0.05 * (k % 2), 0.12 + 0.21 * k),
               extras={"tplan_class": "passive", "mass": 0.1})
    g.node("Floor", g.mesh(*m.cube(1.0), "floor"), translation=(0, 0, -0.5), extras={"tplan_class": "static"})
    open(os.path.join(d, "dense_pile.glb"), "wb").write(g.glb())
    open(os.path.join(d, "pile.lua"), "w").write("""local tp = require "tp"
local bodies = tp.scene("dense_pile.glb")
bodies[#bodies + 1] = tp.box { name = "probe", class = "active", size = {0.1, 0.1, 0.1}, mass = 1, pos = {3, 3, 0.05} }
return tp.domain { name = "pile", dt = 1 / 30, substeps = 8, bodies = bodies,
  tactics = { tp.tactic { name = "w", body = "probe", skills = { tp.skill.wait { name = "wait", duration = 1.0 } } } },
  goal = function(st) return false end, planner = { max_iters = 16, seed = 1 } }
""")


if __name__ == "__main__":
    os.makedirs(sys.argv[1], exist_ok=True)
    if "--bench" in sys.argv:  # omi_assets.py DIR --bench: the hull benchmark's pile.lua too
        bench(sys.argv[1])
    print("\n".join(write(sys.argv[1])))
