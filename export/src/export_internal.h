/* tplan export: shared pieces of the writers (not installed). */
#ifndef TP_EXPORT_INTERNAL_H
#define TP_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tp/export.h"

/// A triangle (or line) mesh in glTF's y-up frame: heap-owned arrays (free with tpXMesh_Free).
typedef struct tpXMesh {
    int nverts;    /* vertices */
    int nidx;      /* indices (3 per triangle) */
    float *pos;    /* nverts x 3, m */
    float *nrm;    /* nverts x 3, unit */
    uint32_t *idx; /* nidx */
} tpXMesh;

/// Builds the mesh of a non-plane body shape (box, sphere, cylinder, capsule) in the body's frame,
/// converted to y-up. False on an unknown shape or allocation failure.
bool tpXMesh_Shape(const tpPlanBody *b, tpXMesh *m);
/// A plane body as a square quad of half side `half` (m) centred on the projection of `center`
/// (z-up world, m) onto it, in the frame of its node (tpX_PlaneNode), y up. False on a zero normal.
bool tpXMesh_Plane(const tpPlanBody *b, const double center[3], double half, tpXMesh *m);
/// The node of a plane's quad: translation t (y up) at the projection of center onto the plane and
/// rotation q (x, y, z, w) whose local y is the plane's normal (KHR_implicit_shapes' plane, the
/// local frame of tpXMesh_Plane's quad); false when the plane has no normal.
bool tpX_PlaneNode(const tpPlanBody *b, const double center[3], double t[3], double q[4]);
/// A rotation matrix (row-major) into a unit quaternion (x, y, z, w), w >= 0.
void tpX_MatrixQuat(const double R[9], double q[4]);
/// The pips of a die of side `side` (m; tpPlanBody_IsDie, tpDie_Face: six on local +z) as discs just
/// above its faces, in the die's frame converted to y-up. False on allocation failure.
bool tpXMesh_Pips(double side, tpXMesh *m);
/// Frees the arrays and zeroes m. NULL is allowed.
void tpXMesh_Free(tpXMesh *m);
/// A mesh's invariants (gltf_validate.c): counts and arrays, whole triangles, finite positions, unit
/// normals, indices in range; false with the first broken rule in why.
bool tpXMesh_Valid(const tpXMesh *m, char *why, size_t cap);

/// Scene bounds of the non-plane bodies over every recorded position of every world (z-up, m).
void tpX_SceneBounds(const tpPlanRecord *rec, double lo[3], double hi[3]);
/// Radius (m) of the bounding sphere of a body's shape about its origin (planes: 0).
double tpX_BoundingRadius(const tpPlanBody *b);

/// Temporary output file in the same directory as path (so that rename is atomic; temp_file.c).
typedef struct tpXTemp {
    char final_path[4096];
    char tmp_path[4096];
    FILE *f;
} tpXTemp;

/// Creates the temporary file for path and opens it for writing. False with a message in err.
bool tpXTemp_Open(tpXTemp *t, const char *path, char *err, size_t errlen);
/// Closes the file (checking for write errors) and renames it over the final path.
bool tpXTemp_Commit(tpXTemp *t, char *err, size_t errlen);
/// Closes and removes the temporary file (after a failure). Safe to call twice.
void tpXTemp_Abort(tpXTemp *t);

bool tpX_WriteGltf(const tpPlanRecord *rec, const char *path, const tpExportDef *def, tpExportStats *st, char *err,
                   size_t errlen);
bool tpX_WriteCsv(const tpPlanRecord *rec, const char *dir, const tpExportDef *def, tpExportStats *st, char *err,
                  size_t errlen);

/// JSON text being built (json_out.c): heap-owned s (free()), n bytes of cap; oom after a failed
/// growth (then every further write is dropped).
typedef struct tpXStr {
    char *s;
    size_t n, cap;
    bool oom;
} tpXStr;
/// Appends printf-style text.
void tpXStr_Put(tpXStr *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/// Appends a JSON string literal of str (quotes, backslashes and control characters escaped).
void tpXStr_String(tpXStr *s, const char *str);
/// Appends a number that reads back to the same double ("%.17g"; never "-0").
void tpXStr_Num(tpXStr *s, double v);

/// Where body pb's node goes in state st (13 doubles): its position, or for a recorded mesh or a
/// compound the artist's origin (mesh_origin turned by the body's rotation) (z up).
void tpX_NodeOrigin(const tpPlanBody *pb, const double *st, double out[3]);

/// The node tree of a scene file written back (gltf_tree.c, tpExportSource): body b's node keeps
/// its index b; the file's other nodes follow every node the writer makes, from index `base`.
typedef struct tpXTree {
    const tpExportSource *src; /* NULL: the flat layout (every call below is then a no-op) */
    const tpPlanRecord *rec;
    int *body_node; /* per body: its source node, -1: none (a body the script added) */
    int *index;     /* per source node: its node index in the file */
    int *part_node; /* per body: the source node of each of its parts (nparts each, from part_at[b]), -1: none */
    int *part_at;   /* per body: its first entry in part_node */
    int base;       /* the first of the file's still nodes */
    int extra;      /* how many there are */
} tpXTree;
/// Sets t up for src (NULL: the flat layout): a compound's part whose frame is that of a child of its
/// body's node in the file is written as that node (its name, its children: node first + its place
/// among the parts, the index gltf_omi.c gives it); false when out of memory.
bool tpXTree_Init(tpXTree *t, const tpPlanRecord *rec, const tpExportSource *src, int first, int base);
/// The file's name of body b's part k ("" when it is no node of the file: "NAME part K" then), and
/// the ",i" indices of the file's nodes under it (after *n of them).
const char *tpXTree_PartName(const tpXTree *t, int b, int k);
void tpXTree_PartChildren(const tpXTree *t, int b, int k, tpXStr *s, int *n);
void tpXTree_Free(tpXTree *t);
/// The file's collider node that carries single-shape body b's collider: a collider node under b's
/// node that is where b's node is written (w0, as below), within 1e-6; -1: the body's node does.
int tpXTree_Collider(const tpXTree *t, int b, const double *w0);
/// Body b's world translation tr (and rotation q: x, y, z, w; NULL: none), y up, made relative to
/// its parent in the file, in place (a root's are left as they are).
void tpXTree_Local(const tpXTree *t, int b, double tr[3], double q[4]);
/// Body b's node is a root of the scene.
bool tpXTree_IsRoot(const tpXTree *t, int b);
/// How many of the file's nodes hang from body b's node; their indices, ",i" after *n of them.
int tpXTree_BodyChildCount(const tpXTree *t, int b);
void tpXTree_Children(const tpXTree *t, int b, tpXStr *s, int *n);
/// The file's still nodes, each as ",\n{...}": w0 (7 doubles per body: the body node's world
/// translation and rotation at t = 0, y up) places the nodes that hang from a body; shape[b] is the
/// document shape of body b (for its collider node, tpXTree_Collider).
void tpXTree_Nodes(const tpXTree *t, const double *w0, const int *shape, tpXStr *s);
/// ",i" for each of the file's still nodes that is a root of the scene.
void tpXTree_Roots(const tpXTree *t, tpXStr *s);

/// The physics of a glTF export as OMI extensions (gltf_omi.c). Extra nodes (a compound's collider
/// parts, each joint's two frames) come after the writer's own nodes, from index `first`.
typedef struct tpXOmi {
    const tpPlanRecord *rec;
    const tpExportPhysics *ph; /* NULL: no masses, no joints */
    const double *const *st0;  /* per body: its state at t = 0 (13 doubles) */
    const int *body_mesh;      /* per body: its mesh index, or -1 */
    const int *part_mesh;      /* per body: the mesh of its first mesh part (the others follow), or -1 */
    int first;                 /* index of the first extra node */
    const tpXTree *tree;       /* the scene file's nodes under the bodies (NULL: none) */
    const double *w0;          /* per body: its node's world translation, rotation at t = 0 (7, y up) */
} tpXOmi;
/// How many extra nodes the physics needs.
int tpXOmi_ExtraNodes(const tpXOmi *o);
/// Body b's node members: ,"children":[...] (its parts, its joints' frames) and its OMI_physics_body.
void tpXOmi_Body(const tpXOmi *o, int b, tpXStr *s);
/// The extra nodes, each as ",\n{...}".
void tpXOmi_Nodes(const tpXOmi *o, tpXStr *s);
/// ",i" for each extra node that is a root of the scene (a joint's frame on the world).
void tpXOmi_Roots(const tpXOmi *o, tpXStr *s);
/// The document's ,"extensionsUsed":[...] and ,"extensions":{...} (shapes, joints).
void tpXOmi_Document(const tpXOmi *o, tpXStr *s);
/// The document shape index of body b's collider (its part k's); -1 for a plane.
int tpXOmi_ShapeIndex(const tpXOmi *o, int b, int k);
/// How many of a compound's parts are meshes (each gets a mesh of its own for its collider).
int tpXOmi_MeshParts(const tpPlanBody *pb);

#endif
