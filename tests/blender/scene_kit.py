# Meshes for the Blender tests and figures (bowl_test.py, figures.py): closed props and an open bowl,
# built with bmesh in metres, z up, each object's origin at its centre (the bowl's: its bottom).
import math

import bmesh
import bpy


def link(scene, name, me, loc):
    """A new object of mesh me at loc, linked to the scene's collection."""
    o = bpy.data.objects.new(name, me)
    scene.collection.objects.link(o)
    o.location = loc
    return o


def box_mesh(name, sx, sy, sz):
    """A closed box of full extents sx x sy x sz (m)."""
    me = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=(sx, sy, sz), verts=bm.verts)
    bm.to_mesh(me)
    bm.free()
    return me


def ball_mesh(name, r, sz=1.0):
    """A closed UV sphere of radius r (m), stretched sz times along z (a capsule-like egg)."""
    me = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=16, v_segments=8, radius=r)
    if sz != 1.0:
        bmesh.ops.scale(bm, vec=(1, 1, sz), verts=bm.verts)
    bm.to_mesh(me)
    bm.free()
    return me


def cylinder_mesh(name, r, h, seg=16):
    """A closed cylinder of radius r and height h (m) along z."""
    me = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_cone(bm, cap_ends=True, segments=seg, radius1=r, radius2=r, depth=h)
    bm.to_mesh(me)
    bm.free()
    return me


def bowl_mesh(name="bowl", r0=0.09, r1=0.15, h=0.09, wall=0.01, seg=32):
    """An open bowl: a flat bottom of radius r0 flaring to r1 at the rim h up, walls `wall` thick
    (outer and inner walls, the rim, the bottom and the inner floor: a static triangle mesh)."""
    v, f = [], []
    rings = ((0.0, r0), (0.0, r0 - wall), (h, r1), (h, r1 - wall))  # (z, r): outer/inner, bottom/rim
    for z, r in rings:
        for j in range(seg):
            a = 2 * math.pi * j / seg
            v.append((r * math.cos(a), r * math.sin(a), z))
    ring = lambda k, j: k * seg + j % seg  # noqa: E731
    cb = len(v)
    v.append((0, 0, 0))
    fl = len(v)
    for j in range(seg):  # the inner floor, one wall above the bottom
        a = 2 * math.pi * j / seg
        v.append(((r0 - wall) * math.cos(a), (r0 - wall) * math.sin(a), wall))
    cf = len(v)
    v.append((0, 0, wall))
    for j in range(seg):
        k = j + 1
        f += [(ring(0, j), ring(0, k), ring(2, k), ring(2, j)),  # outer wall
              (fl + j, ring(3, j), ring(3, k), fl + k % seg),  # inner wall
              (ring(2, j), ring(2, k), ring(3, k), ring(3, j)),  # rim
              (cb, ring(0, k), ring(0, j)), (cf, fl + j, fl + k % seg)]  # bottom, inner floor
    me = bpy.data.meshes.new(name)
    me.from_pydata(v, [], f)
    me.update()
    return me
