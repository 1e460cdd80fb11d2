/* tpWorld_LastFailure: why a step returned false (bad action, a state out of range, a body sunk
 * into static geometry), and nothing after a step that succeeded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/base.h"
#include "tp/physics.h"

#include <math.h>
#include <string.h>

typedef struct Scene {
    tpSceneDef def;
    tpMaterialDef mat;
    tpBodyDef bodies[4];
} Scene;

/* ground (0, static plane z = 0), box (1, active 0.2 m cube resting at z = 0.1) */
static void scene(Scene *s)
{
    memset(s, 0, sizeof *s);
    s->def = tpDefaultSceneDef();
    s->mat = tpDefaultMaterialDef();
    tpStrCopy(s->mat.name, TP_NAME_MAX, "m");
    s->def.materials = &s->mat;
    s->def.nmaterials = 1;
    s->def.bodies = s->bodies;
    s->def.nbodies = 2;
    s->bodies[0] = tpDefaultBodyDef();
    tpStrCopy(s->bodies[0].name, TP_NAME_MAX, "ground");
    s->bodies[0].cls = TP_BODY_STATIC;
    s->bodies[0].shape = TP_SHAPE_PLANE;
    s->bodies[0].plane[2] = 1.0;
    s->bodies[1] = tpDefaultBodyDef();
    tpStrCopy(s->bodies[1].name, TP_NAME_MAX, "box");
    s->bodies[1].cls = TP_BODY_ACTIVE;
    s->bodies[1].size[0] = s->bodies[1].size[1] = s->bodies[1].size[2] = 0.2;
    s->bodies[1].mass = 1.0;
    s->bodies[1].pos[2] = 0.1;
}

static tpWorld *create(const Scene *s)
{
    char err[256] = "";
    tpWorld *w = tpCreateWorld(&s->def, err, sizeof err);
    if (!w)
        fail_msg("tpCreateWorld: %s", err);
    return w;
}

static void test_ok_and_bad_action(void **state)
{
    (void)state;
    Scene s;
    scene(&s);
    tpWorld *w = create(&s);
    tpBodyState x, xn;
    tpWorld_InitialState(w, &x);
    double a[6] = {0, 0, 0, 0, 0, 0};
    assert_true(tpWorld_Step(w, &x, 0.5, a, &xn));
    assert_int_equal(tpWorld_LastFailure(w)->kind, TP_STEP_OK);
    a[4] = -2e12; /* torque y beyond TP_MAX_FORCE */
    assert_false(tpWorld_Step(w, &x, 0.5, a, &xn));
    const tpStepFailure *f = tpWorld_LastFailure(w);
    assert_int_equal(f->kind, TP_STEP_BAD_ACTION);
    assert_int_equal(f->a, 1);
    assert_int_equal(f->what, TP_STEP_VALUE_TORQUE);
    assert_int_equal(f->axis, 1);
    assert_true(f->value == -2e12 && f->limit == TP_MAX_FORCE);
    assert_int_equal(f->substep, -1);
    assert_true(f->t == 0.5);
    a[4] = 0.0;
    a[0] = NAN;
    assert_false(tpWorld_Step(w, &x, 0.5, a, &xn));
    assert_int_equal(f->what, TP_STEP_VALUE_FORCE);
    assert_int_equal(f->axis, 0);
    assert_true(isnan(f->value));
    /* a good step clears the record */
    a[0] = 1.0;
    assert_true(tpWorld_Step(w, &x, 0.5, a, &xn));
    assert_int_equal(f->kind, TP_STEP_OK);
    tpDestroyWorld(w);
}

static void test_out_of_range(void **state)
{
    (void)state;
    Scene s;
    scene(&s);
    s.def.substeps = 2;
    tpWorld *w = create(&s);
    tpBodyState x, xn;
    tpWorld_InitialState(w, &x);
    x.pos[2] = 50.0;                    /* in the air, away from the ground */
    double a[6] = {0, 1e7, 0, 0, 0, 0}; /* +1e7 N on 1 kg: +8.3e4 m/s in each of the 2 substeps */
    assert_false(tpWorld_Step(w, &x, 0.0, a, &xn));
    const tpStepFailure *f = tpWorld_LastFailure(w);
    assert_int_equal(f->kind, TP_STEP_OUT_OF_RANGE);
    assert_int_equal(f->a, 1);
    assert_int_equal(f->b, -1);
    assert_int_equal(f->what, TP_STEP_VALUE_SPEED);
    assert_int_equal(f->axis, 1);
    assert_true(f->value > TP_MAX_SPEED && f->limit == TP_MAX_SPEED);
    assert_int_equal(f->substep, 1); /* 8.3e4 m/s after the first substep, 1.7e5 after the second */
    assert_int_equal(f->substeps, 2);
    /* a body already that fast is refused before anything is simulated: no substeps could follow
       it past a thin wall (1,024 of its thicknesses per step, docs/physics.md) */
    x.vel[1] = 0.5 * TP_MAX_SPEED;
    assert_false(tpWorld_Step(w, &x, 0.0, NULL, &xn));
    assert_int_equal(f->kind, TP_STEP_OUT_OF_RANGE);
    assert_int_equal(f->what, TP_STEP_VALUE_SWEEP);
    assert_int_equal(f->a, 1);
    assert_int_equal(f->axis, -1);
    assert_int_equal(f->substep, -1);
    assert_true(f->value == 0.5 * TP_MAX_SPEED && f->limit < f->value);
    tpDestroyWorld(w);
}

static void test_static_penetration(void **state)
{
    (void)state;
    Scene s;
    scene(&s);
    s.def.max_static_penetration = 0.05;
    s.bodies[1].pos[2] = 0.02; /* 8 cm into the ground */
    tpWorld *w = create(&s);
    tpBodyState x, xn;
    tpWorld_InitialState(w, &x);
    assert_false(tpWorld_Step(w, &x, 1.0, NULL, &xn));
    const tpStepFailure *f = tpWorld_LastFailure(w);
    assert_int_equal(f->kind, TP_STEP_STATIC_PENETRATION);
    assert_int_equal(f->a, 1); /* the moving body first */
    assert_int_equal(f->b, 0);
    assert_true(fabs(f->value - 0.08) < 1e-9);
    assert_true(f->value == tpWorld_StaticDepth(w));
    assert_true(f->limit == 0.05);
    assert_int_equal(f->substep, 0);
    assert_true(f->t == 1.0);
    tpDestroyWorld(w);
}

/* tpWorld_CheckOverlap (a scene that starts overlapped wasted its whole budget): the
 * start state's overlaps against the limits without stepping, the pair and the depth of the
 * first limit broken; within the limits (or with none) it passes; the last step's record stays. */
static void test_check_overlap(void **state)
{
    (void)state;
    Scene s;
    scene(&s);
    s.def.nbodies = 3;
    s.bodies[2] = s.bodies[1];
    tpStrCopy(s.bodies[2].name, TP_NAME_MAX, "lid");
    s.bodies[2].pos[0] = 0.17; /* 3 cm into the box */
    s.def.max_static_penetration = 0.005;
    s.def.max_body_penetration = 0.02;
    s.bodies[1].pos[2] = 0.1 - 0.009; /* 9 mm into the ground */
    tpWorld *w = create(&s);
    tpBodyState x[2], xn[2];
    tpWorld_InitialState(w, x);
    tpStepFailure f;
    assert_false(tpWorld_CheckOverlap(w, x, 0.0, &f));
    assert_int_equal(f.kind, TP_STEP_STATIC_PENETRATION);
    assert_int_equal(f.a, 1);
    assert_int_equal(f.b, 0);
    assert_true(fabs(f.value - 0.009) < 1e-9 && f.limit == 0.005);
    assert_int_equal(f.substep, -1);
    assert_true(tpWorld_StaticDepth(w) == 0.0); /* no step yet: untouched */
    /* a step from it fails the same way: the check refuses nothing a step would take */
    assert_false(tpWorld_Step(w, x, 0.0, NULL, xn));
    assert_int_equal(tpWorld_LastFailure(w)->kind, TP_STEP_STATIC_PENETRATION);
    x[0].pos[2] = 0.1; /* resting: then the two boxes' 3 cm */
    x[1].pos[2] = 0.1;
    assert_false(tpWorld_CheckOverlap(w, x, 0.0, &f));
    assert_int_equal(f.kind, TP_STEP_BODY_PENETRATION);
    assert_int_equal(f.a, 1);
    assert_int_equal(f.b, 2);
    assert_true(fabs(f.value - 0.03) < 1e-9 && f.limit == 0.02);
    assert_int_equal(tpWorld_LastFailure(w)->kind, TP_STEP_STATIC_PENETRATION); /* kept */
    x[1].pos[0] = 0.19;                                                         /* 1 cm: within the limit */
    assert_true(tpWorld_CheckOverlap(w, x, 0.0, &f));
    assert_int_equal(f.kind, TP_STEP_OK);
    assert_true(tpWorld_Step(w, x, 0.0, NULL, xn));
    tpDestroyWorld(w);
    s.def.max_static_penetration = s.def.max_body_penetration = 0; /* no limits: nothing to check */
    w = create(&s);
    tpWorld_InitialState(w, x);
    assert_true(tpWorld_CheckOverlap(w, x, 0.0, &f));
    tpDestroyWorld(w);
}

/* tpWorld_Supported (the fallbacks that land): a box resting on the ground, or hovering a
 * hair above it (as a sleeping body may), rests on it; one 5 cm up or without gravity does not. */
static void test_supported(void **state)
{
    (void)state;
    Scene s;
    scene(&s);
    tpWorld *w = create(&s);
    tpBodyState x, xn;
    tpWorld_InitialState(w, &x);
    assert_true(tpWorld_Supported(w, &x, 0.0, 1));
    x.pos[2] = 0.1 + 0.003;
    assert_true(tpWorld_Supported(w, &x, 0.0, 1));
    x.pos[2] = 0.15;
    assert_false(tpWorld_Supported(w, &x, 0.0, 1));
    assert_true(tpWorld_Step(w, &x, 0.0, NULL, &xn)); /* the world steps as before */
    assert_true(xn.pos[2] < 0.15 && xn.vel[2] < 0);
    tpDestroyWorld(w);
    s.def.gravity[2] = 0;
    w = create(&s);
    x.pos[2] = 0.1 + 0.003;
    assert_false(tpWorld_Supported(w, &x, 0.0, 1)); /* no "below": only a touching contact */
    x.pos[2] = 0.1;
    assert_true(tpWorld_Supported(w, &x, 0.0, 1));
    tpDestroyWorld(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ok_and_bad_action),  cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_static_penetration), cmocka_unit_test(test_check_overlap),
        cmocka_unit_test(test_supported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
