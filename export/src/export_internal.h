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
/// (z-up world, m) onto it, in world coordinates converted to y-up. False on a zero normal.
bool tpXMesh_Plane(const tpPlanBody *b, const double center[3], double half, tpXMesh *m);
/// The pips of a die of side `side` (m; tpPlanBody_IsDie, tpDie_Face: six on local +z) as discs just
/// above its faces, in the die's frame converted to y-up. False on allocation failure.
bool tpXMesh_Pips(double side, tpXMesh *m);
/// Frees the arrays and zeroes m. NULL is allowed.
void tpXMesh_Free(tpXMesh *m);

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

#endif
