/* tplan meshes: triangle meshes read from OBJ, STL and glTF/GLB files, the scene graph of a glTF
 * file, and the geometry the physics needs of a mesh (closedness, volume, centre of mass,
 * inertia). Pure computation on core: no ODE, no Lua.
 *
 * Every reader takes the file's bytes (the caller reads the file: the Lua layer through its
 * sandbox) and treats them as untrusted: sizes are capped (tpMeshLimits), every index and accessor
 * is checked against what it points into, a glTF node tree with a cycle or a node with two parents
 * is refused, and an error names the file and what is wrong ("bowl.obj: line 12: vertex index 9
 * out of range (8 vertices)"). Nothing here prints or exits. */
#ifndef TP_MESH_H
#define TP_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A triangle mesh as plain arrays: a view, the arrays are owned by whoever made it.
typedef struct tpMeshView {
    int nvertices;
    const double *vertices; /* 3 per vertex: x, y, z (m, the mesh's own frame, z up) */
    int ntriangles;
    const int32_t *triangles; /* 3 vertex indices per triangle, counter-clockwise seen from outside */
} tpMeshView;

/// An owned triangle mesh (tpMesh_Free).
typedef struct tpMesh {
    int nvertices;
    double *vertices; /* 3 per vertex (m, z up) */
    int ntriangles;
    int32_t *triangles; /* 3 per triangle */
} tpMesh;

/// Caps for untrusted files; tpDefaultMeshLimits() gives the defaults in the comments.
typedef struct tpMeshLimits {
    size_t max_bytes;  /* file size, default 64 MiB */
    int max_vertices;  /* per file (all meshes together), default 1,000,000 */
    int max_triangles; /* per file, default 2,000,000 */
    int max_nodes;     /* glTF nodes, default 10,000 */
} tpMeshLimits;

tpMeshLimits tpDefaultMeshLimits(void);

/// The view of an owned mesh.
tpMeshView tpMesh_View(const tpMesh *mesh);
/// Frees the arrays and zeroes the struct. NULL is allowed.
void tpMesh_Free(tpMesh *mesh);

/// Reads a whole file as one mesh in z-up metres, the format from the name's extension (".obj",
/// ".stl", ".gltf", ".glb"; case-insensitive) or, for STL and GLB, from the bytes. `name` is used
/// in messages and to resolve nothing else: a .gltf whose buffers are not embedded (data: URI) is
/// refused. glTF: the triangles of every mesh node of the default scene, placed by the nodes'
/// world transforms and turned from glTF's y up to z up; OBJ and STL: as written, `y_up` turns a
/// y-up file (Blender's OBJ default) to z up. Every coordinate is multiplied by `scale` (> 0).
/// Returns false with "name: ..." in err; on success *out is owned by the caller.
bool tpMesh_Read(const char *name, const void *data, size_t len, const tpMeshLimits *limits, bool y_up, double scale,
                 tpMesh *out, char *err, size_t errlen);

/// Checks that a mesh bounds a solid: at least 4 vertices and 4 triangles, finite coordinates,
/// every index in range, no triangle of zero area (relative to the mesh's size), every edge
/// shared by exactly two triangles that traverse it in opposite directions (closed and
/// consistently oriented), and a positive enclosed volume (the triangles face outwards). False
/// with the first problem found in why ("edge 3-7 is used by 1 triangle (the mesh has a hole)").
bool tpMesh_CheckClosed(const tpMeshView *mesh, char *why, size_t whylen);

/// Mass properties of the solid a closed mesh bounds, by exact volume integration over its
/// triangles (divergence theorem): volume (m^3), centre of mass (m) and the inertia tensor per
/// unit density about the centre of mass (row-major 3x3, m^5; multiply by a density in kg/m^3
/// for kg m^2). Meaningful only for a mesh tpMesh_CheckClosed accepts.
void tpMesh_MassProperties(const tpMeshView *mesh, double *volume, double com[3], double inertia[9]);

/// Axis-aligned bounds of the vertices (lo, hi in m). A mesh without vertices gives zeros.
void tpMesh_Bounds(const tpMeshView *mesh, double lo[3], double hi[3]);

/* ------------------------------------------------------------------------------------------ */
/* glTF scenes                                                                                 */

/// Body class a glTF node asks for (OMI_physics_body / KHR_physics_rigid_bodies motion, or
/// extras.tplan_class).
typedef enum {
    TP_GLTF_NONE = 0, /* no physics: the node is not a body (a camera, a light, a group) */
    TP_GLTF_STATIC,
    TP_GLTF_PASSIVE,
    TP_GLTF_ACTIVE,
    TP_GLTF_KINEMATIC, /* OMI motion type "kinematic", KHR motion.isKinematic: moved by its initial
                          velocities only (tp.linear / tp.rotate), else static */
} tpGltfClass;

/// The collision shape of a body read from a glTF scene.
typedef enum {
    TP_GLTF_SHAPE_MESH = 0, /* tpGltfNode.mesh (a trimesh, or a convex mesh: its hull) */
    TP_GLTF_SHAPE_BOX,
    TP_GLTF_SHAPE_SPHERE,
    TP_GLTF_SHAPE_CAPSULE,
    TP_GLTF_SHAPE_CYLINDER,
    TP_GLTF_SHAPE_PLANE,    /* KHR_implicit_shapes plane: infinite, static only */
    TP_GLTF_SHAPE_COMPOUND, /* a moving body of several colliders: tpGltfNode.parts */
} tpGltfShape;

#define TP_GLTF_NAME_MAX 64
#define TP_GLTF_MAX_PARTS 64    /* colliders of one moving body (physics' TP_MAX_PARTS) */
#define TP_GLTF_MAX_WARNINGS 12 /* warnings a scene keeps (the last one counts the rest) */
#define TP_GLTF_WARNING_MAX 400 /* bytes of one warning, with its NUL */
/* A moving mesh collides as the hull of at most this many of its vertices (tpMesh_HullPoints;
   docs/physics.md, mesh bodies). */
#define TP_MESH_HULL_MAX_VERTICES 128

/// One collider of a moving body of several (tpGltfNode.parts), placed in the body node's frame.
typedef struct tpGltfPart {
    char name[TP_GLTF_NAME_MAX]; /* the collider node's name */
    tpGltfShape shape;           /* box, sphere, capsule, cylinder or mesh (a tapered shape as a mesh) */
    double size[3];              /* as tpGltfNode.size */
    tpMesh mesh;                 /* TP_GLTF_SHAPE_MESH: in the part's frame, scale applied */
    double pos[3];               /* m: the part frame's origin in the body node's frame (z up) */
    double quat[4];              /* w,x,y,z: the part frame in the body node's frame */
} tpGltfPart;

/// One body of a glTF scene (a node with a mesh or a physics collider), with its world pose in
/// tplan's frame.
typedef struct tpGltfNode {
    char name[TP_GLTF_NAME_MAX];     /* the body's name: the body node's ("node<index>" when it has
                                        none); unique within the scene */
    int index;                       /* glTF node index of the collider (or mesh) node */
    double pos[3];                   /* world position of the shape's frame (m, z up) */
    double quat[4];                  /* world orientation (w, x, y, z), z up */
    tpGltfShape shape;               /* the collision shape */
    double size[3];                  /* box: full extents along the frame's x, y, z (m); sphere: radius
                                        in [0]; capsule, cylinder: radius in [0], length in [1] along
                                        the frame's z (capsule: between the caps' centres); plane:
                                        unused (the plane is the frame's xy plane, normal +z) */
    tpMesh mesh;                     /* TP_GLTF_SHAPE_MESH: the mesh in the frame, scale applied */
    tpGltfClass cls;                 /* from the physics extension, else extras.tplan_class */
    bool marker;                     /* a trigger: drawn and recorded, never colliding (static) */
    double mass;                     /* kg, 0 = not given */
    double density;                  /* kg/m^3, 0 = not given (extras.density) */
    double vel[3];                   /* initial linear velocity (m/s, tplan world frame) */
    double angvel[3];                /* initial angular velocity (rad/s, tplan world frame) */
    char material[TP_GLTF_NAME_MAX]; /* extras.material, "" = not given */
    bool convex;                     /* the shape asks for the mesh's convex hull */
    int nparts;                      /* TP_GLTF_SHAPE_COMPOUND: its colliders (2..TP_GLTF_MAX_PARTS) */
    tpGltfPart *parts;               /* nparts, owned by the scene (pos, quat: the body node's world pose) */
    int body;                        /* glTF node index of its body node (the node with the motion, or
                                        the collider node of a body of its own): what joints name */
} tpGltfNode;

/// The kind of a joint read from a glTF scene (the order of physics' tpJointKind).
typedef enum {
    TP_GLTF_JOINT_HINGE = 0,
    TP_GLTF_JOINT_SLIDER,
    TP_GLTF_JOINT_BALL,
    TP_GLTF_JOINT_FIXED,
    TP_GLTF_JOINT_UNIVERSAL,
    TP_GLTF_JOINT_HINGE2, /* only from a universal's frame marked extras.tplan_kind = "hinge2" (tplan's export) */
    TP_GLTF_JOINT_DISTANCE,
} tpGltfJointKind;

/// One free axis of a glTF joint (as physics' tpJointAxisDef): a limit, a spring or a motor.
typedef struct tpGltfJointAxis {
    bool limit;
    double lo, hi; /* rad (within [-pi, pi]) or m, lo <= hi */
    bool spring;
    double stiffness, damping, rest; /* N m/rad or N/m; N m s/rad or N s/m; rad or m */
    bool motor;
    double speed, max_force; /* rad/s or m/s; N m or N, > 0 */
} tpGltfJointAxis;

/// A joint of a glTF scene (OMI_physics_joint, or KHR_physics_rigid_bodies' joint), mapped onto one
/// of tplan's kinds; anchor and axes in tplan's world frame (z up) at the bodies' initial poses.
typedef struct tpGltfJoint {
    char name[TP_GLTF_NAME_MAX]; /* the joint node's name */
    int node;                    /* glTF node index of the joint node */
    tpGltfJointKind kind;
    char a[TP_GLTF_NAME_MAX]; /* the body that moves (a tpGltfNode's name) */
    char b[TP_GLTF_NAME_MAX]; /* the other body's name, "" = the world */
    double anchor[3];         /* m: the pivot (hinge, ball, universal; distance: the point on a) */
    double anchor2[3];        /* m: distance only, the point on b */
    double axis[3], axis2[3]; /* unit: hinge, slider, universal axis 1; universal axis 2 */
    double length;            /* distance: m */
    bool collide;             /* KHR enableCollision: the two bodies collide (OMI: never) */
    tpGltfJointAxis axes[2];  /* hinge, slider: axes[0]; universal, hinge2 (steering, spin): both */
} tpGltfJoint;

/// The bodies of a glTF file's default scene (or its first), in node order, and what was not used.
typedef struct tpGltfScene {
    int nnodes;
    tpGltfNode *nodes;
    int nwarnings; /* lines in warnings[], each "name: ..." (the file's name first) */
    char warnings[TP_GLTF_MAX_WARNINGS][TP_GLTF_WARNING_MAX];
    int nmeshnodes; /* nodes of the scene with a mesh or a physics extension (for messages) */
    int njoints;
    tpGltfJoint *joints; /* njoints, owned by the scene; their bodies are among nodes[] */
} tpGltfScene;

/// A file a .gltf refers to (an external buffer, its uri as written), read by the caller.
typedef struct tpGltfFile {
    const char *uri;  /* as in buffers[].uri (percent-encoded) */
    const void *data; /* its bytes (NULL: could not be read: `why` says why) */
    size_t len;
    const char *why; /* NULL, or why the file could not be read ("outside the script's folder") */
} tpGltfFile;

/// The relative uris of a .gltf's external buffers (data: URIs and a GLB's own chunk excluded), in
/// buffer order, into uris[] (at most max, each under 256 bytes; pointers into *store, which the
/// caller frees with free(); NULL when there are none). A file that is not JSON gives none (the
/// reader reports it). An uri that is absolute, has a scheme, "..", a backslash or a bad
/// percent escape is refused (false with "name: buffers[i]: ..." in err). Returns the count in *n.
bool tpGltf_BufferUris(const char *name, const void *data, size_t len, const char **uris, int max, int *n, char **store,
                       char *err, size_t errlen);
/// The path an uri names (percent escapes decoded) relative to the folder of `name` (the .gltf's own
/// path): into out (false when it does not fit).
bool tpGltf_UriPath(const char *name, const char *uri, char *out, size_t outlen);

/// Reads the bodies of a .gltf or .glb file. Buffers: data: URIs, a GLB's binary chunk, or the
/// caller's files[] (external .bin files by uri, tpGltf_BufferUris; NULL, 0 when there are none).
/// Each node's world transform is the product of its ancestors' (TRS or matrix; a transform that
/// is not a rotation times a positive scale is refused), its scale goes into its shape, and
/// everything is turned from glTF's y up to tplan's z up. Physics (docs/lua-api.md, tp.scene):
/// OMI_physics_body + OMI_physics_shape, KHR_physics_rigid_bodies + KHR_implicit_shapes, else
/// extras (tplan_class "static" | "passive" | "active", mass, density, material). A body node's
/// colliders are its own and its descendants' up to the next body (Godot 4's body / collider /
/// visual mesh nodes are one body; the visual mesh is skipped when the body has a collider): one
/// collider makes one body named after the body node; several colliders make one compound body of
/// one part each, named after the body node (TP_GLTF_SHAPE_COMPOUND, at most 64; a moving one is
/// named in a note; a static body's planes are bodies of their own). Triggers are markers.
/// Meshes: degenerate triangles are dropped and vertices within 1e-6 of the mesh's size welded,
/// with a warning when either happened. Joints (OMI_physics_joint, KHR joint) go into out->joints,
/// mapped onto tplan's kinds (gltf_joints.c). Every node and extension not used, every property tplan
/// cannot represent (centerOfMass, inertia, physics materials, filters, joints it cannot map) is named in
/// out->warnings. False with "name: ..." in err; on success the caller frees *out with
/// tpGltfScene_Free.
bool tpGltf_ReadScene(const char *name, const void *data, size_t len, const tpMeshLimits *limits,
                      const tpGltfFile *files, int nfiles, tpGltfScene *out, char *err, size_t errlen);
/// Frees a scene. NULL is allowed.
void tpGltfScene_Free(tpGltfScene *scene);

/// The indices of at most max vertices whose convex hull approximates the mesh's (the extreme
/// vertex along each of max fixed directions spread over the sphere, duplicates removed, in index
/// order): every chosen vertex is a vertex of the hull, so the result lies inside it. All vertices
/// (0..n-1) when n <= max. out has room for max indices; returns the count. Deterministic.
int tpMesh_HullPoints(const tpMeshView *mesh, int max, int32_t *out);

/// A closed, outward-facing triangle mesh of a solid of revolution about z: the profile (z, r)
/// from bottom to top, r >= 0 (r = 0 at an end: a pole; else a flat cap), `seg` segments around.
/// Used for tapered capsules and cylinders and for primitives merged into a moving compound. False
/// when out of memory or the profile is degenerate.
bool tpMesh_Lathe(const double *z, const double *r, int nprofile, int seg, tpMesh *out);

/// The invariants of a mesh (counts and arrays, finite coordinates, every triangle's indices in
/// range) and of a scene (mesh_validate.c): false with the first broken rule in why. Run through
/// TP_VALIDATE on what the readers return, in Debug and sanitizer builds.
bool tpMesh_Valid(const tpMesh *mesh, char *why, size_t cap);
bool tpGltfScene_Valid(const tpGltfScene *scene, char *why, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
