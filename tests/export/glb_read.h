/* Test helper: reads back what tplan export wrote (a .glb, or a .gltf with its .bin) and compares
 * its animation with a plan record, independently of the writer's code. */
#ifndef TP_TEST_GLB_READ_H
#define TP_TEST_GLB_READ_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "tp/plan.h"

typedef struct tpTestGltf {
    cJSON *json;        /* the glTF JSON (owned) */
    unsigned char *bin; /* the binary buffer (owned) */
    size_t binlen;
} tpTestGltf;

/// Loads a .glb or .gltf (+ its .bin). False with a message in err.
bool tpTestGltf_Load(tpTestGltf *g, const char *path, char *err, size_t errlen);
void tpTestGltf_Free(tpTestGltf *g);
/// Accessor `index` as doubles (count x ncomp, malloc'ed); NULL on a bad accessor.
double *tpTestGltf_Accessor(const tpTestGltf *g, int index, int *count, int *ncomp);

/// Largest errors of animation `anim` against world `world` of rec, sampling each moving body's
/// translation (m) and rotation (rad, slerp) at every step's time as stored (float32 of i * dt).
/// scale (per body, may be NULL) multiplies each body's angle error (a radius: metres at the surface).
/// False (with err) if a moving body has no channels or the animation is malformed.
bool tpTestGltf_AnimError(const tpTestGltf *g, int anim, const tpPlanRecord *rec, int world, const double *scale,
                          double *pos_err, double *ang_err, char *err, size_t errlen);

#endif
