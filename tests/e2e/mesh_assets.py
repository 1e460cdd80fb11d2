#!/usr/bin/env python3
"""Writes the mesh test assets into a folder: OBJ, STL (binary and ASCII) and glTF/GLB
files, good and hostile. The tests generate them instead of committing binaries.

usage: mesh_assets.py DIR [--corpus FUZZDIR]

With --corpus, also writes the fuzz seeds of tests/fuzz/fuzz_mesh.c (a selector byte, then the file:
0 = .obj, 1 = .stl, 2 = .gltf, 3 = .glb)."""
import base64
import json
import math
import os
import struct
import sys

E = 0.1  # m, die edge


def cube(e=E, c=(0.0, 0.0, 0.0)):
    h = e / 2
    v = [(c[0] + (h if i in (1, 2, 5, 6) else -h), c[1] + (h if i in (2, 3, 6, 7) else -h), c[2] + (h if i >= 4 else -h))
         for i in range(8)]
    t = [(0, 2, 1), (0, 3, 2), (4, 5, 6), (4, 6, 7), (0, 1, 5), (0, 5, 4), (1, 2, 6), (1, 6, 5), (2, 3, 7), (2, 7, 6),
         (3, 0, 4), (3, 4, 7)]
    return v, t


def bucket(r=0.35, h=0.3, wall=0.02, seg=24):
    """A static bucket: the inside and outside of a cylinder wall, a rim and a bottom (z up,
    bottom at z = 0): a closed solid with a hollow, as an artist models it."""
    v, t = [], []
    ri, ro = r - wall, r
    for z in (0.0, h):
        for rr in (ro, ri):
            for j in range(seg):
                a = 2 * math.pi * j / seg
                v.append((rr * math.cos(a), rr * math.sin(a), z))
    # ring index: (z, radius) -> base
    def idx(zi, ri_, j):
        return (zi * 2 + ri_) * seg + j % seg
    cb, ct = len(v), len(v) + 1  # centres of the outer bottom and of the inner floor
    v.append((0, 0, 0.0))
    v.append((0, 0, wall))
    fl = len(v)  # inner floor ring at z = wall
    for j in range(seg):
        a = 2 * math.pi * j / seg
        v.append((ri * math.cos(a), ri * math.sin(a), wall))
    for j in range(seg):
        k = j + 1
        t += [(idx(0, 0, j), idx(0, 0, k), idx(1, 0, k)), (idx(0, 0, j), idx(1, 0, k), idx(1, 0, j))]  # outside
        t += [(fl + j, idx(1, 1, j), idx(1, 1, k)), (fl + j, idx(1, 1, k), fl + k % seg)]  # inside wall
        t += [(idx(1, 0, j), idx(1, 0, k), idx(1, 1, k)), (idx(1, 0, j), idx(1, 1, k), idx(1, 1, j))]  # rim
        t += [(cb, idx(0, 0, k), idx(0, 0, j))]  # bottom
        t += [(ct, fl + j, fl + k % seg)]  # inner floor
    return v, t


def bowl(r=0.5, rings=12, seg=24):
    """The inside of an open hemisphere (not closed), bottom at z = 0."""
    v = [(0.0, 0.0, 0.0)]
    for i in range(1, rings + 1):
        th = 0.5 * math.pi * i / rings
        for j in range(seg):
            a = 2 * math.pi * j / seg
            v.append((r * math.sin(th) * math.cos(a), r * math.sin(th) * math.sin(a), r * (1 - math.cos(th))))
    vid = lambda i, j: 0 if i == 0 else 1 + (i - 1) * seg + j % seg
    t = []
    for i in range(rings):
        for j in range(seg):
            if i == 0:
                t.append((0, vid(1, j), vid(1, j + 1)))
            else:
                t += [(vid(i, j), vid(i + 1, j), vid(i + 1, j + 1)), (vid(i, j), vid(i + 1, j + 1), vid(i, j + 1))]
    return v, t


def obj(v, t, y_up=False):
    out = ["# tplan test mesh"]
    for p in v:
        x, y, z = p
        if y_up:  # z up -> y up: (x, y, z) -> (x, z, -y)
            x, y, z = x, z, -y
        out.append("v %.9g %.9g %.9g" % (x, y, z))
    out += ["f %d %d %d" % (a + 1, b + 1, c + 1) for a, b, c in t]
    return ("\n".join(out) + "\n").encode()


def stl_binary(v, t):
    b = bytearray(b"tplan test".ljust(80, b" "))
    b += struct.pack("<I", len(t))
    for a, bb, c in t:
        b += struct.pack("<3f", 0, 0, 0)
        for i in (a, bb, c):
            b += struct.pack("<3f", *v[i])
        b += b"\0\0"
    return bytes(b)


def stl_ascii(v, t):
    out = ["solid die"]
    for a, b, c in t:
        out += ["facet normal 0 0 0", " outer loop"]
        out += ["  vertex %.9g %.9g %.9g" % v[i] for i in (a, b, c)]
        out += [" endloop", "endfacet"]
    out.append("endsolid die")
    return ("\n".join(out) + "\n").encode()


class Gltf:
    """A small glTF writer: meshes in glTF's y-up frame (the z-up input is turned)."""

    def __init__(self):
        self.bin = bytearray()
        self.doc = {"asset": {"version": "2.0", "generator": "tplan mesh_assets.py"}, "scene": 0,
                    "scenes": [{"nodes": []}], "nodes": [], "meshes": [], "accessors": [], "bufferViews": []}

    def mesh(self, v, t, name):
        pos = b"".join(struct.pack("<3f", x, z, -y) for x, y, z in v)  # z up -> y up
        ind = b"".join(struct.pack("<3I", *tri) for tri in t)
        acc = []
        for data, target, typ, ctype, count in ((pos, 34962, "VEC3", 5126, len(v)), (ind, 34963, "SCALAR", 5125, 3 * len(t))):
            off = len(self.bin)
            self.bin += data
            while len(self.bin) % 4:
                self.bin += b"\0"
            self.doc["bufferViews"].append({"buffer": 0, "byteOffset": off, "byteLength": len(data), "target": target})
            a = {"bufferView": len(self.doc["bufferViews"]) - 1, "componentType": ctype, "count": count, "type": typ}
            if typ == "VEC3":
                xs = [[p[0], p[2], -p[1]] for p in v]
                a["min"] = [min(c[k] for c in xs) for k in range(3)]
                a["max"] = [max(c[k] for c in xs) for k in range(3)]
            self.doc["accessors"].append(a)
            acc.append(len(self.doc["accessors"]) - 1)
        self.doc["meshes"].append({"name": name, "primitives": [{"attributes": {"POSITION": acc[0]}, "indices": acc[1]}]})
        return len(self.doc["meshes"]) - 1

    def node(self, name, mesh=None, translation=None, rotation=None, scale=None, extras=None, root=True, **kw):
        n = {"name": name}
        if mesh is not None:
            n["mesh"] = mesh
        if translation:  # given z up: stored y up
            x, y, z = translation
            n["translation"] = [x, z, -y]
        if rotation:
            n["rotation"] = rotation
        if scale:
            n["scale"] = scale
        if extras:
            n["extras"] = extras
        n.update(kw)
        self.doc["nodes"].append(n)
        i = len(self.doc["nodes"]) - 1
        if root:
            self.doc["scenes"][0]["nodes"].append(i)
        return i

    def glb(self):
        self.doc["buffers"] = [{"byteLength": len(self.bin)}]
        js = json.dumps(self.doc, separators=(",", ":")).encode()
        while len(js) % 4:
            js += b" "
        body = struct.pack("<II", len(js), 0x4E4F534A) + js + struct.pack("<II", len(self.bin), 0x004E4942) + bytes(self.bin)
        return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body

    def gltf(self):
        self.doc["buffers"] = [{"byteLength": len(self.bin),
                                "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(self.bin)).decode()}]
        return json.dumps(self.doc, indent=1).encode()


def scene(ndice=6):
    """A bucket (static), dice above it (passive, extras), one die under a moved group node, a ball
    with OMI_physics_body, and an unmarked lamp (static by default)."""
    g = Gltf()
    mb = g.mesh(*bucket(), "bucket")
    md = g.mesh(*cube(), "die")
    g.node("Bucket", mb, translation=(0.0, 0.0, 0.0), extras={"tplan_class": "static", "material": "wood"})
    for i in range(ndice):
        a = 2 * math.pi * i / ndice
        g.node("Die.%03d" % i, md, translation=(0.15 * math.cos(a), 0.15 * math.sin(a), 0.5 + 0.12 * i),
               rotation=[math.sin(0.2 * i), 0.0, 0.0, math.cos(0.2 * i)],
               extras={"tplan_class": "passive", "mass": 0.15, "material": "dice"})
    # a group moved up 0.4 m and turned 90 degrees about (glTF) y = tplan z, holding a die 0.1 m along its x
    s = math.sqrt(0.5)
    grp = g.node("Group", None, translation=(0.0, 0.0, 0.4), rotation=[0.0, s, 0.0, s])
    child = g.node("Die.Child", md, translation=(0.1, 0.0, 0.0), root=False,
                   extras={"tplan_class": "passive", "density": 150.0})
    g.doc["nodes"][grp]["children"] = [child]
    g.doc["extensionsUsed"] = ["OMI_physics_body", "OMI_physics_shape"]
    g.doc["extensions"] = {"OMI_physics_shape": {"shapes": [{"type": "convex", "convex": {"mesh": md}}]}}
    g.node("Ball", md, translation=(-0.8, 0.0, 0.05),
           extensions={"OMI_physics_body": {"motion": {"type": "dynamic", "mass": 0.2}, "collider": {"shape": 0}}})
    g.node("Lamp", g.mesh(*cube(0.05), "lamp"), translation=(1.0, 1.0, 0.025))
    # a die modelled off its origin (its centre 0.1 m along the node's x): the body sits at its
    # centre of mass, and export must put the node back on the artist's origin
    g.node("Offset", g.mesh(*cube(c=(0.1, 0.0, 0.0)), "offset die"), translation=(0.5, 0.5, 0.3),
           extras={"tplan_class": "passive", "mass": 0.1})
    # Godot 4's layout: a rigid body node with a motion and no mesh, a collider child (a convex
    # shape of the die mesh) and a visual mesh child: one passive body named after the body node
    body = g.node("GodotDie", None, translation=(-0.5, 0.5, 0.4),
                  extensions={"OMI_physics_body": {"motion": {"type": "dynamic", "mass": 0.12}}})
    coll = g.node("CollisionShape3D", None, root=False,
                  extensions={"OMI_physics_body": {"collider": {"shape": 0}}})
    vis = g.node("MeshInstance3D", md, root=False)
    g.doc["nodes"][body]["children"] = [coll, vis]
    return g


def hostile():
    """(name, bytes, expected words of the refusal)"""
    out = []
    g = scene(1)
    d = g.doc
    d["accessors"][0]["count"] = 10 ** 5  # beyond its buffer view
    out.append(("bad_accessor.glb", g.glb(), "need"))
    g = scene(1)
    g.doc["accessors"][0]["count"] = 10 ** 9  # beyond the caps
    out.append(("huge_count.glb", g.glb(), "cap"))
    g = scene(1)
    g.doc["nodes"][0]["children"] = [1]
    g.doc["nodes"][1]["children"] = [0]
    out.append(("cycle.glb", g.glb(), "also a child of node"))
    g = scene(1)
    n = len(g.doc["nodes"])
    g.doc["nodes"].append({"name": "a", "children": [n + 1]})
    g.doc["nodes"].append({"name": "b", "children": [n]})
    out.append(("cycle2.glb", g.glb(), "cycle"))
    g = scene(1)
    g.doc["accessors"][1]["bufferView"] = 99
    out.append(("bad_view.glb", g.glb(), "does not exist"))
    g = scene(1)
    g.doc["buffers"] = [{"byteLength": 10, "uri": "../../etc/passwd"}]
    js = json.dumps(g.doc).encode()
    out.append(("external.gltf", js, "only files inside the script's folder are read"))
    g = scene(1)
    g.doc["buffers"] = [{"byteLength": 10, "uri": "http://example.com/x.bin"}]
    out.append(("url_buffer.gltf", json.dumps(g.doc).encode(), "a URL"))
    g = scene(1)
    g.doc["buffers"] = [{"byteLength": 10, "uri": "missing.bin"}]
    out.append(("missing_bin.gltf", json.dumps(g.doc).encode(), "missing.bin"))
    g = scene(1)
    g.doc["nodes"][0]["scale"] = [1, -1, 1]
    out.append(("mirror.glb", g.glb(), "mirrors"))
    out.append(("truncated.glb", scene(1).glb()[:200], "GLB"))
    return out


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    files = {
        "die.obj": obj(*cube()),
        "die_yup.obj": obj(*cube(), y_up=True),
        "die.stl": stl_binary(*cube()),
        "die_ascii.stl": stl_ascii(*cube()),
        "bowl.obj": obj(*bowl()),
        "bucket.obj": obj(*bucket()),
        "scene.glb": scene().glb(),
        "scene.gltf": scene().gltf(),
    }
    v, t = cube()
    files["open_die.obj"] = obj(v, t[:-1])  # one triangle missing: a hole
    files["flipped_die.obj"] = obj(v, t[:-1] + [(t[-1][0], t[-1][2], t[-1][1])])
    files["flat.obj"] = obj([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)], [(0, 1, 2), (1, 3, 2), (0, 2, 1), (1, 2, 3)])
    files["bad_index.obj"] = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"
    for name, data, _ in hostile():
        files["hostile_" + name] = data
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    with open(os.path.join(d, "hostile.txt"), "w") as f:
        for name, _, words in hostile():
            f.write("hostile_%s|%s\n" % (name, words))
    if len(sys.argv) >= 4 and sys.argv[2] == "--corpus":
        c = sys.argv[3]
        os.makedirs(c, exist_ok=True)
        sel = {".obj": 0, ".stl": 1, ".gltf": 2, ".glb": 3}
        for name in ("die.obj", "die.stl", "die_ascii.stl", "bowl.obj", "scene.gltf", "open_die.obj"):
            with open(os.path.join(c, name.replace(".", "_")), "wb") as f:
                f.write(bytes([sel[os.path.splitext(name)[1]]]) + files[name])
        g = scene(2)
        with open(os.path.join(c, "scene2_glb"), "wb") as f:
            f.write(bytes([3]) + g.glb())
        for name, data, _ in hostile():
            with open(os.path.join(c, "hostile_" + name.replace(".", "_")), "wb") as f:
                f.write(bytes([sel[os.path.splitext(name)[1]]]) + data)


if __name__ == "__main__":
    main()
