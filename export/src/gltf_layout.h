/* The binary layout of a glTF export (gltf.c) as its invariants see it (gltf_validate.c): buffer
 * views, accessors, materials, meshes and animation keys, each array owned by the writer. */
#ifndef TP_EXPORT_GLTF_LAYOUT_H
#define TP_EXPORT_GLTF_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    TP_GL_ARRAY_BUFFER = 34962,
    TP_GL_ELEMENT_ARRAY_BUFFER = 34963,
    TP_GL_FLOAT = 5126,
    TP_GL_UNSIGNED_SHORT = 5123,
    TP_GL_UNSIGNED_INT = 5125,
};
enum { TP_GL_LINES = 1, TP_GL_LINE_STRIP = 3, TP_GL_TRIANGLES = 4 };

/// A buffer view: bytes [offset, offset + length) of the binary data.
typedef struct tpXView {
    int64_t offset, length;
    int target; /* 0 = none (animation data), TP_GL_ARRAY_BUFFER, TP_GL_ELEMENT_ARRAY_BUFFER */
} tpXView;

/// An accessor: count elements of ncomp components of ctype, the whole of its view.
typedef struct tpXAcc {
    int view;
    int ctype;
    int64_t count;
    int ncomp; /* 1 SCALAR, 3 VEC3, 4 VEC4 */
    bool minmax;
    double min[4], max[4];
} tpXAcc;

typedef struct tpXMaterial {
    float rgba[4]; /* sRGB as in the plan, each in [0, 1] */
    bool double_sided;
    const char *name;
} tpXMaterial;

typedef struct tpXPrim {
    int mode, material;
    int pos, nrm, idx; /* accessors, -1 = none */
} tpXPrim;

typedef struct tpXMeshEntry {
    char name[160];
    int body;      /* body (shape / plane), or -1 */
    int tree_body; /* tree line mesh: first primitive's tree body, or -1 */
    int overlay;   /* path overlay index, or -1 */
    int part_body; /* a compound's mesh part (its collider, gltf_omi.c): the body, or -1 */
    int part;      /* ... and the part */
    int nprims;
    tpXPrim *prims; /* nprims, owned */
} tpXMeshEntry;

/// The keys of one body's channel (translation: 3 components, rotation: 4) in one world.
typedef struct tpXKeys {
    int n;        /* keys written (0: a body that does not move) */
    int32_t *idx; /* their sample indices; NULL = every sample */
    int in, out;  /* accessors */
} tpXKeys;

/// What the validate function reads of a writer (views to its arrays).
typedef struct tpXLayout {
    const tpXView *views;
    int nviews;
    const tpXAcc *accs;
    int naccs;
    const tpXMaterial *mats;
    int nmats;
    const tpXMeshEntry *meshes;
    int nmeshes;
    const tpXKeys *keys; /* nkeys: worlds x bodies x 2 channels */
    int nkeys;
    int nbodies;
    const int *body_mesh; /* per body: its mesh, or -1 */
    int64_t bytes;        /* the binary data's length */
} tpXLayout;

/// The layout's invariants: views 4-byte aligned, in order and within the data; each accessor of a
/// known type filling its view exactly, its min <= max; materials' colours in [0, 1]; every mesh's
/// primitives of a known mode with a VEC3 float position (and normal of the same count) and whole
/// triangles of unsigned indices; each body's mesh one of the meshes, drawn for that body; animation
/// keys from sample 0 strictly increasing, their accessors of n times and n values. False with the
/// first broken rule in why.
bool tpXLayout_Valid(const tpXLayout *lay, char *why, size_t cap);

#endif
