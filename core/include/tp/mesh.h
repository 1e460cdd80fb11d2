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

/// Body class a glTF node asks for (OMI_physics_body motion type, or extras.tplan_class).
typedef enum {
    TP_GLTF_NONE = 0, /* no physics: the node is not a body (a camera, a light, a group) */
    TP_GLTF_STATIC,
    TP_GLTF_PASSIVE,
    TP_GLTF_ACTIVE,
} tpGltfClass;

#define TP_GLTF_NAME_MAX 64

/// One node of a glTF scene that carries a mesh, with its world pose in tplan's frame.
typedef struct tpGltfNode {
    char name[TP_GLTF_NAME_MAX];     /* the node's name ("node<index>" when it has none) */
    int index;                       /* glTF node index */
    double pos[3];                   /* world position of the node's origin (m, z up) */
    double quat[4];                  /* world orientation (w, x, y, z), z up */
    tpMesh mesh;                     /* the node's mesh in its own frame, scale applied, z up */
    tpGltfClass cls;                 /* from OMI_physics_body, else extras.tplan_class */
    double mass;                     /* kg, 0 = not given */
    double density;                  /* kg/m^3, 0 = not given (extras.density) */
    char material[TP_GLTF_NAME_MAX]; /* extras.material, "" = not given */
    bool convex;                     /* OMI_physics_shape says "convex" (or nothing said) */
} tpGltfNode;

/// The mesh nodes of a glTF file's default scene (or its first), in node order.
typedef struct tpGltfScene {
    int nnodes;
    tpGltfNode *nodes;
} tpGltfScene;

/// Reads the mesh nodes of a .gltf (buffers embedded as data: URIs) or .glb file. Each node's
/// world transform is the product of its ancestors' (TRS or matrix; a transform that is not a
/// rotation times a positive scale is refused), its scale goes into its mesh's vertices, and
/// everything is turned from glTF's y up to tplan's z up. Physics from the OMI_physics_body
/// extension (motion type static / kinematic -> static, dynamic -> passive; mass) or else from
/// extras (tplan_class "static" | "passive" | "active", mass, density, material); a node without
/// either under an ancestor with an OMI motion takes the ancestor's physics (Godot 4: a body node,
/// a collider child and a visual mesh child make one body; the visual mesh is skipped when the
/// body has a collider). False with
/// "name: ..." in err; on success the caller frees *out with tpGltfScene_Free.
bool tpGltf_ReadScene(const char *name, const void *data, size_t len, const tpMeshLimits *limits, tpGltfScene *out,
                      char *err, size_t errlen);
/// Frees a scene. NULL is allowed.
void tpGltfScene_Free(tpGltfScene *scene);

#ifdef __cplusplus
}
#endif
#endif
