/* Shared by the physics conformance suites (test_conformance.c: the scenes;
 * test_contact_truth.c: the contact audit's): the default scene, bodies, the Sim step with optional sleeping,
 * the penetration record and the named checks that print every figure. Static functions: each
 * suite is one translation unit. Needs cmocka.h (assert_*, fail_msg) included before it. */
#ifndef TP_TESTS_CONFORMANCE_H
#define TP_TESTS_CONFORMANCE_H

#include "tp/base.h"
#include "tp/physics.h"

#include "scene_fixture.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define G 9.81 /* m/s², |gravity| of the default scene */
#define PI 3.14159265358979323846
#define MAX_DEPTH 0.005 /* m: the penetration standard, at rest and on impact */
#ifndef MAX_BODIES      /* a suite may define more before including this */
#define MAX_BODIES 64
#endif
#define SURFACE_LAYER 0.001 /* m: ODE's contact surface layer in physics/src/world.c */

/* ------------------------------------------------------------------------------------------ */
/* Scene helpers                                                                               */

enum { MAT_DEFAULT = 0, MAT_BOUNCY, MAT_ROLLING, NMAT };

#define BOUNCE_E 0.8   /* restitution of MAT_BOUNCY */
#define ROLL_RHO 0.002 /* m: rolling friction of MAT_ROLLING */

typedef struct Scene {
    tpSceneDef def;
    tpMaterialDef mats[NMAT];
    tpBodyDef bodies[MAX_BODIES];
} Scene;

/* The default scene (dt 1/60 s, erp 0.2, cfm 1e-5, 8 contacts per pair, no substeps) and default
 * materials, with the given solver. The planner's static-penetration rejection is off
 * (max_static_penetration = 0): these scenes measure the overlap themselves, and a rejected step
 * would still be stepped the same way. */
static void sceneInit(Scene *s, tpSolverKind solver)
{
    memset(s, 0, sizeof *s);
    s->def = tpDefaultSceneDef();
    s->def.solver = solver;
    s->def.max_static_penetration = 0.0;
    for (int i = 0; i < NMAT; i++)
        s->mats[i] = tpDefaultMaterialDef();
    tpStrCopy(s->mats[MAT_BOUNCY].name, TP_NAME_MAX, "bouncy");
    s->mats[MAT_BOUNCY].restitution = BOUNCE_E;
    tpStrCopy(s->mats[MAT_ROLLING].name, TP_NAME_MAX, "rolling");
    s->mats[MAT_ROLLING].rolling_friction = ROLL_RHO;
    s->def.materials = s->mats;
    s->def.nmaterials = NMAT;
    s->def.bodies = s->bodies;
}

/* The floor: the plane z = 0 (or the plane n·p = 0 for a given unit normal n). */
static void addFloor(Scene *s, const double n[3])
{
    tpBodyDef *g = sceneAdd(s, "floor", TP_BODY_STATIC, TP_SHAPE_PLANE);
    g->plane[0] = n ? n[0] : 0.0, g->plane[1] = n ? n[1] : 0.0, g->plane[2] = n ? n[2] : 1.0, g->plane[3] = 0.0;
}

/* A passive box of full extents (sx, sy, sz) m and mass kg centred at (x, y, z) m. */
static tpBodyDef *addBox(Scene *s, const char *name, double sx, double sy, double sz, double mass, double x, double y,
                         double z)
{
    tpBodyDef *b = sceneAdd(s, name, TP_BODY_PASSIVE, TP_SHAPE_BOX);
    b->size[0] = sx, b->size[1] = sy, b->size[2] = sz;
    b->mass = mass;
    b->pos[0] = x, b->pos[1] = y, b->pos[2] = z;
    return b;
}

/* Deepest overlap (m) of any touching pair over a run, and where it happened. */
typedef struct Depth {
    double worst; /* m */
    int step;     /* step whose contacts reported it (the overlap of the state that step started from) */
    int a, b;     /* body indices of the pair */
} Depth;

static void depthTrack(const tpWorld *w, int step, Depth *d)
{
    const tpContactInfo *c = tpWorld_Contacts(w);
    for (int k = 0; k < tpWorld_ContactCount(w); k++) {
        if (c[k].max_depth > d->worst) {
            d->worst = c[k].max_depth;
            d->step = step;
            d->a = c[k].a;
            d->b = c[k].b;
        }
    }
}

/* One Sim step from x at step index i (time i dt), into x; tracks the overlap. Returns false when
 * a state left the physics' ranges (the scene blew up): with max_static_penetration off and no
 * action, that is the only way tpWorld_Step fails. */
static bool g_sleep; /* --sleep: the scenes run with sleeping, as the planner runs them */

/* ... with an action (6 doubles per controlled body, NULL: none). */
static inline bool simStepAct(tpWorld *w, tpBodyState *x, int i, const double *action, Depth *d)
{
    /* With --sleep the rest counts (part of the state) are kept here for the world being stepped,
     * zeroed at its step 0; the scenes' default sleep_speed and sleep_time apply. */
    static uint8_t rest[256];
    static const tpWorld *rest_world;
    TP_ASSERT(tpWorld_StateCount(w) <= (int)sizeof rest);
    if (w != rest_world || i == 0) {
        memset(rest, 0, sizeof rest);
        rest_world = w;
    }
    bool ok = g_sleep ? tpWorld_StepRest(w, x, rest, i * tpWorld_Def(w)->dt, action, x, rest)
                      : tpWorld_Step(w, x, i * tpWorld_Def(w)->dt, action, x);
    if (d != NULL)
        depthTrack(w, i, d);
    return ok;
}

static inline bool simStep(tpWorld *w, tpBodyState *x, int i, Depth *d)
{
    return simStepAct(w, x, i, NULL, d);
}

/* Angle (rad) between a body's local z axis and world z. */
static inline double tiltOf(const tpBodyState *s)
{
    const double *q = s->quat;
    double zz = 1.0 - 2.0 * (q[1] * q[1] + q[2] * q[2]); /* R[2][2] */
    return acos(zz > 1.0 ? 1.0 : zz < -1.0 ? -1.0 : zz);
}

/* Checks are counted, not asserted one by one, so that every figure of a case is measured and
 * printed before the case fails. */
typedef struct Checks {
    const char *name; /* case name, e.g. "stack10_step" */
    int failed;
} Checks;

static void check(Checks *c, bool ok, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("conformance %s: %s %s\n", c->name, ok ? "ok  " : "FAIL", msg);
    if (!ok)
        c->failed++;
}

static void checksDone(const Checks *c)
{
    fflush(stdout);
    if (c->failed > 0)
        fail_msg("%s: %d check(s) failed (the FAIL lines above give the figures)", c->name, c->failed);
}

/* Every scene with both solvers: test_<scene>_step and test_<scene>_quickstep. */
#define CASE(scene)                                                                                                    \
    static void test_##scene##_step(void **state)                                                                      \
    {                                                                                                                  \
        (void)state;                                                                                                   \
        Checks c = {#scene "_step", 0};                                                                                \
        scene(TP_SOLVER_STEP, &c);                                                                                     \
        checksDone(&c);                                                                                                \
    }                                                                                                                  \
    static void test_##scene##_quickstep(void **state)                                                                 \
    {                                                                                                                  \
        (void)state;                                                                                                   \
        Checks c = {#scene "_quickstep", 0};                                                                           \
        scene(TP_SOLVER_QUICKSTEP, &c);                                                                                \
        checksDone(&c);                                                                                                \
    }

/* Both solvers' tests of a scene, for the suites' test tables. */
#define CASE_TESTS(scene) cmocka_unit_test(test_##scene##_step), cmocka_unit_test(test_##scene##_quickstep)

/* Runs the cases, or only argv[1]'s (the case name without "test_"; a name that matches no case is
 * an error, exit 2, not a pass); a first argument --sleep runs them with sleeping on (g_sleep). */
static int runCases(int argc, char **argv, const struct CMUnitTest *tests, size_t n)
{
    if (argc >= 2 && strcmp(argv[1], "--sleep") == 0) {
        g_sleep = true;
        argc--;
        argv++;
    }
    char filter[128];
    if (argc >= 2) {
        snprintf(filter, sizeof filter, "test_%s", argv[1]);
        bool known = strchr(filter, '*') != NULL || strchr(filter, '?') != NULL;
        for (size_t k = 0; k < n; k++)
            known = known || strcmp(tests[k].name, filter) == 0;
        if (!known) {
            fprintf(stderr, "%s: no case named '%s'\n", argv[0], argv[1]);
            return 2;
        }
        cmocka_set_test_filter(filter);
    }
    return _cmocka_run_group_tests("tests", tests, n, NULL, NULL);
}

#endif
