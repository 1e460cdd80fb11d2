/* Private to the glTF reader: mesh_gltf.c (document, buffers, accessors, meshes, transforms) and
 * gltf_scene.c (the node tree, the physics extensions, the bodies), gltf_joints.c (the joints). */
#ifndef TP_GLTF_INTERNAL_H
#define TP_GLTF_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "mesh_internal.h"
#include "tp/base.h"

typedef struct tpGltfBuf {
    const unsigned char *data;
    size_t len;
    unsigned char *owned; /* decoded data: URI, freed at the end */
} tpGltfBuf;

/// What a mesh read repaired (warned about by the caller).
typedef struct tpGltfRepair {
    long degenerate; /* zero-area triangles dropped */
    long welded;     /* vertices merged into a nearby one that is not bit-identical */
    long first_tri;  /* the first dropped triangle: its index in its primitive, -1 = none */
    int first_prim;
    long first_v[3]; /* its vertices as the file numbers them (primitive's POSITION accessor) */
} tpGltfRepair;

typedef struct tpGltf {
    const char *name;
    char *err;
    size_t errlen;
    tpMeshLimits limits;
    cJSON *root;
    tpGltfBuf *bufs;
    int nbufs;
    long total_vertices, total_triangles; /* over all nodes, against the caps */
    tpGltfScene *scene;                   /* warnings go here */
    int warnings_seen;
    long repaired[32]; /* meshes whose repair was warned about (once each) */
    int nrepaired;
} tpGltf;

#define TP_GLTF_FAIL(g, ...)                                                                                           \
    do {                                                                                                               \
        char m_[320];                                                                                                  \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                                          \
        tpErrorf((g)->err, (g)->errlen, "%s: %s", (g)->name, m_);                                                      \
        return false;                                                                                                  \
    } while (0)

/// A non-negative integer member (or def when absent); false with a message when present but not one.
bool tpGltfI_Int(tpGltf *g, const cJSON *o, const char *key, long def, long max, long *out, const char *where);
/// Item i of the array root[key], NULL when there is none.
const cJSON *tpGltfI_Item(const cJSON *root, const char *key, long i);
/// n finite numbers (|x| <= 1e6) of a JSON array of exactly n.
bool tpGltfI_Numbers(const cJSON *a, int n, double *out);
/// The triangles of mesh `mi`, vertices scaled per axis by s (glTF local axes) then turned to z up,
/// degenerate triangles dropped and near vertices welded (counted in *rep; NULL: not counted).
bool tpGltfI_ReadMesh(tpGltf *g, long mi, const double s[3], tpMesh *out, tpGltfRepair *rep);
/// The local transform of node ni as a row-major 3x4 [R S | t] (glTF axes).
bool tpGltfI_Local(tpGltf *g, const cJSON *node, long ni, double m[12]);
/// a b of two affine 3x4 transforms.
void tpGltfI_Mul34(const double a[12], const double b[12], double out[12]);
/// Unit quaternion (w, x, y, z) of a rotation matrix (row-major), in the w >= 0 hemisphere.
void tpGltfI_MatrixToQuat(const double R[9], double q[4]);
/// Adds a warning "name: ..." to the scene (the last slot counts the overflow).
void tpGltfI_Warn(tpGltf *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/// Reads the document's header (GLB or JSON text), checks and parses its JSON and loads its buffers
/// (embedded, the GLB chunk, or files beside it); g's name, err, errlen, limits and scene set by the
/// caller. False with the message in g->err. tpGltfI_Close frees what it read, also after a failure.
bool tpGltfI_Open(tpGltf *g, const void *data, size_t len, const tpGltfFile *files, int nfiles);
void tpGltfI_Close(tpGltf *g);
/// The bodies of the document's default scene into g->scene (gltf_scene.c).
bool tpGltfI_Scene(tpGltf *g);

/// Names for one warning line, "head: A, B, C and 4 more" (mesh_gltf.c, as the two below).
typedef struct tpGltfNames {
    const char *head;
    char names[240];
    int n, shown;
} tpGltfNames;
void tpGltfI_ListAdd(tpGltfNames *l, const char *name);
void tpGltfI_ListFlush(tpGltf *g, const tpGltfNames *l);
/// world = [R S | t] in glTF axes into the scale along the node's axes and the pose in tplan's
/// frame (z up): false (a message naming the node) when it shears, mirrors or has a zero scale.
bool tpGltfI_Decompose(tpGltf *g, const double world[12], const char *name, double s[3], double pos[3], double quat[4]);
/// The joints of the scene (OMI_physics_joint, KHR_physics_rigid_bodies' joint) into g->scene->joints,
/// after its bodies (gltf_joints.c): world[12 i] the nodes' world transforms (glTF axes), body_of[i]
/// the body node at or above node i (-1: none), order[0..norder) the nodes of the scene.
bool tpGltfI_Joints(tpGltf *g, const cJSON *nodes, const int *order, int norder, const int *body_of,
                    const double *world);

#endif
