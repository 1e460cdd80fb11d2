/* The orientation and settling conditions (UPRIGHT, TILTED, SETTLED) on hand-made states: a pin
 * standing, leaning and lying; bodies moving, spinning and at rest; the checks of tpCond_Check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "cond_testing.h"
#include "tp/tactics.h"

#include "../physics/scene_fixture.h"

enum { B_GROUND, B_PIN, B_BALL, NB };

typedef struct Scene {
    tpMaterialDef mat;
    tpBodyDef bodies[NB];
    tpWorld *world;
    tpBodyState x[NB]; /* stored states, slot order */
} Scene;

static tpWorld *make_world(Scene *s)
{
    memset(s, 0, sizeof *s);
    s->mat = tpDefaultMaterialDef();
    tpBodyDef *b = s->bodies;
    b[B_GROUND] = tpDefaultBodyDef();
    tpStrCopy(b[B_GROUND].name, TP_NAME_MAX, "ground");
    b[B_GROUND].cls = TP_BODY_STATIC;
    b[B_GROUND].shape = TP_SHAPE_PLANE;
    b[B_GROUND].plane[2] = 1.0;
    b[B_PIN] = tpDefaultBodyDef();
    tpStrCopy(b[B_PIN].name, TP_NAME_MAX, "pin");
    b[B_PIN].shape = TP_SHAPE_CAPSULE;
    b[B_PIN].size[0] = 0.03;
    b[B_PIN].size[1] = 0.2;
    b[B_PIN].mass = 0.2;
    b[B_PIN].pos[2] = 0.13;
    b[B_BALL] = tpDefaultBodyDef();
    tpStrCopy(b[B_BALL].name, TP_NAME_MAX, "ball");
    b[B_BALL].shape = TP_SHAPE_SPHERE;
    b[B_BALL].size[0] = 0.05;
    b[B_BALL].mass = 0.1;
    b[B_BALL].pos[0] = 1.0;
    b[B_BALL].pos[2] = 0.05;
    s->world = tpTest_WorldOf(&s->mat, s->bodies, NB, s->x);
    return s->world;
}

static tpBodyState *slot(Scene *s, int body)
{
    return &s->x[tpWorld_StateSlot(s->world, body)];
}

/* Orientation: a rotation by `angle` (rad) about the unit axis (ax, ay, az). */
static void set_rot(tpBodyState *st, double angle, double ax, double ay, double az)
{
    st->quat[0] = cos(0.5 * angle);
    st->quat[1] = ax * sin(0.5 * angle);
    st->quat[2] = ay * sin(0.5 * angle);
    st->quat[3] = az * sin(0.5 * angle);
}

static int eval(Scene *s, const tpCond *c)
{
    tpStateView v = {s->world, s->x, 0.0, NULL};
    return tpCond_Eval(c, &v, NULL);
}

static tpCond *orient(tpCondKind kind, int body, double angle)
{
    tpCond *c = tpCreateCond(kind);
    c->body = body;
    c->center[2] = 1.0; /* local z */
    c->radius = angle;
    return c;
}

static void test_upright_and_tilted(void **state)
{
    (void)state;
    Scene s;
    make_world(&s);
    tpCond *up = orient(TP_COND_UPRIGHT, B_PIN, 0.2);
    tpCond *tilt = orient(TP_COND_TILTED, B_PIN, 0.2);
    char err[256];
    assert_true(tpCond_Check(up, s.world, err, sizeof err));
    assert_true(tpCond_Check(tilt, s.world, err, sizeof err));

    /* standing (identity), leaning 0.15 rad and 0.25 rad about x, lying, upside down */
    const struct {
        double angle, ax, ay, az;
        int upright;
    } cases[] = {
        {0.0, 1, 0, 0, 1},       {0.15, 1, 0, 0, 1},    {0.25, 1, 0, 0, 0}, {-0.19, 0, 1, 0, 1},
        {1.5707963, 0, 1, 0, 0}, {3.14159, 1, 0, 0, 0}, {2.0, 0, 0, 1, 1}, /* a yaw turns nothing away from up */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        set_rot(slot(&s, B_PIN), cases[i].angle, cases[i].ax, cases[i].ay, cases[i].az);
        assert_int_equal(eval(&s, up), cases[i].upright);
        assert_int_equal(eval(&s, tilt), !cases[i].upright);
    }

    /* another local axis: the pin lying along world x (rotated +pi/2 about y) has its local z
     * along world +x, so its local x points down (-z): upright about -x */
    set_rot(slot(&s, B_PIN), 1.5707963267948966, 0, 1, 0);
    up->center[0] = -1.0;
    up->center[2] = 0.0;
    assert_int_equal(eval(&s, up), 1);
    up->center[0] = 1.0;
    assert_int_equal(eval(&s, up), 0);

    /* a quaternion that is not exactly unit is read as its rotation */
    up->center[0] = 0.0;
    up->center[2] = 1.0;
    set_rot(slot(&s, B_PIN), 0.1, 1, 0, 0);
    for (int k = 0; k < 4; ++k) {
        slot(&s, B_PIN)->quat[k] *= 1.001;
    }
    assert_int_equal(eval(&s, up), 1);

    /* a static body (the ground plane) stands upright */
    up->body = B_GROUND;
    assert_int_equal(eval(&s, up), 1);

    /* checks: a zero axis, an angle outside [0, pi], a missing body */
    up->center[2] = 0.0;
    assert_false(tpCond_Check(up, s.world, err, sizeof err));
    assert_non_null(strstr(err, "upright"));
    tilt->radius = 4.0;
    assert_false(tpCond_Check(tilt, s.world, err, sizeof err));
    tilt->radius = 0.2;
    tilt->body = -1;
    assert_false(tpCond_Check(tilt, s.world, err, sizeof err));

    tpDestroyCond(up);
    tpDestroyCond(tilt);
    tpDestroyWorld(s.world);
}

static void test_settled(void **state)
{
    (void)state;
    Scene s;
    make_world(&s);
    tpCond *c = tpCreateCond(TP_COND_SETTLED);
    const int bodies[2] = {B_PIN, B_BALL};
    const double pts[6] = {0};
    assert_true(tpCond_SetTargets(c, 2, bodies, pts, 3));
    c->value = 0.05;
    c->angular = 0.1;
    char err[256];
    assert_true(tpCond_Check(c, s.world, err, sizeof err));
    assert_int_equal(eval(&s, c), 1); /* at rest */

    slot(&s, B_BALL)->vel[1] = 0.049;
    assert_int_equal(eval(&s, c), 1);
    slot(&s, B_BALL)->vel[2] = -0.02; /* |v| = 0.0529 */
    assert_int_equal(eval(&s, c), 0);
    slot(&s, B_BALL)->vel[1] = 0.0;
    slot(&s, B_BALL)->vel[2] = 0.0;
    slot(&s, B_PIN)->angvel[0] = 0.12; /* spinning in place */
    assert_int_equal(eval(&s, c), 0);
    c->angular = INFINITY; /* angular speed not checked */
    assert_int_equal(eval(&s, c), 1);
    c->angular = 0.1;
    slot(&s, B_PIN)->angvel[0] = 0.0;
    c->value = INFINITY; /* linear speed not checked */
    slot(&s, B_BALL)->vel[0] = 3.0;
    assert_int_equal(eval(&s, c), 1);

    /* inside AND/NOT like any other condition */
    tpCond *all = tpCreateCond(TP_COND_AND);
    tpCond *not_settled = tpCreateCond(TP_COND_NOT);
    c->value = 0.05;
    assert_true(tpCond_Add(not_settled, c));
    assert_true(tpCond_Add(all, not_settled));
    assert_true(tpCond_Check(all, s.world, err, sizeof err));
    assert_int_equal(eval(&s, all), 1); /* the ball moves at 3 m/s */
    slot(&s, B_BALL)->vel[0] = 0.0;
    assert_int_equal(eval(&s, all), 0);

    /* checks: no bodies, a speed of 0 */
    c->value = 0.0;
    assert_false(tpCond_Check(all, s.world, err, sizeof err));
    assert_non_null(strstr(err, "settled"));
    c->value = 0.05;
    assert_true(tpCond_SetTargets(c, 0, NULL, NULL, 3));
    assert_false(tpCond_Check(all, s.world, err, sizeof err));

    tpDestroyCond(all);
    tpDestroyWorld(s.world);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upright_and_tilted),
        cmocka_unit_test(test_settled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
