/* What every physics test's scene shares, whatever its materials (conformance.h, test_physics.c,
 * test_sleep.c, the tactics tests' box_scene.h and test_orient_conds.c): a body added to the scene's table with the
 * defaults, and a world made from it that must be made. A suite's `Scene` is its own struct with members `def`
 * (tpSceneDef) and `bodies` (a tpBodyDef array that def.bodies points to). Static functions: each suite is one
 * translation unit. Needs cmocka.h included before it. */
#ifndef TP_TESTS_SCENE_FIXTURE_H
#define TP_TESTS_SCENE_FIXTURE_H

#include <stdio.h>

#include "tp/base.h"
#include "tp/physics.h"

/* Body *n of bodies (cap entries; fails the test when full): the defaults, a name, class and
 * shape; *n counts it. */
static inline tpBodyDef *tpTest_AddBody(tpBodyDef *bodies, int *n, int cap, const char *name, tpBodyClass cls,
                                        tpShapeKind shape)
{
    assert_true(*n < cap);
    tpBodyDef *b = &bodies[(*n)++];
    *b = tpDefaultBodyDef();
    tpStrCopy(b->name, TP_NAME_MAX, name);
    b->cls = cls;
    b->shape = shape;
    return b;
}

/* The world of def; fails the test (with tpCreateWorld's message) when it cannot be made. */
static inline tpWorld *tpTest_CreateWorld(const tpSceneDef *def)
{
    char err[256] = "";
    tpWorld *w = tpCreateWorld(def, err, sizeof err);
    if (w == NULL) {
        fprintf(stderr, "tpCreateWorld: %s\n", err);
    }
    assert_non_null(w);
    return w;
}

/* The world of n bodies (bodies) and one material (mat), default scene otherwise, and its initial
 * state into x; fails the test when it cannot be made (the tactics tests' small scenes). */
static inline tpWorld *tpTest_WorldOf(const tpMaterialDef *mat, tpBodyDef *bodies, int n, tpBodyState *x)
{
    tpSceneDef def = tpDefaultSceneDef();
    def.nmaterials = 1;
    def.materials = mat;
    def.nbodies = n;
    def.bodies = bodies;
    tpWorld *w = tpTest_CreateWorld(&def);
    tpWorld_InitialState(w, x);
    return w;
}

#define sceneAdd(s, name, cls, shape)                                                                                  \
    tpTest_AddBody((s)->bodies, &(s)->def.nbodies, (int)(sizeof(s)->bodies / sizeof(s)->bodies[0]), name, cls, shape)
#define mustCreate(s) tpTest_CreateWorld(&(s)->def)

#endif
