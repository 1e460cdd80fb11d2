/* Tests for sleeping (tpWorld_StepRest, docs/physics.md "Sleeping"): a body at rest falls asleep
 * after sleep_time and then stays bit for bit where it is; its rest count is part of the state, so
 * Sim stays pure; a moving body, a scripted body or an action wakes it, and what happens then is
 * what happens without sleeping; a body that is only momentarily slow (the top of a throw, a ball
 * rolling down a slope) never sleeps; two bodies at rest side by side both sleep. Every check
 * compares against a value the physics must produce; no timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/base.h"
#include "tp/physics.h"

#include "scene_fixture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAXB 8

typedef struct Scene {
    tpSceneDef def;
    tpMaterialDef mat;
    tpBodyDef bodies[MAXB];
} Scene;

static void sceneInit(Scene *s)
{
    memset(s, 0, sizeof *s);
    s->def = tpDefaultSceneDef();
    s->mat = tpDefaultMaterialDef();
    tpStrCopy(s->mat.name, TP_NAME_MAX, "default");
    s->def.materials = &s->mat;
    s->def.nmaterials = 1;
    s->def.bodies = s->bodies;
    tpBodyDef *g = sceneAdd(s, "ground", TP_BODY_STATIC, TP_SHAPE_PLANE);
    g->plane[2] = 1.0;
}

static tpBodyDef *add(Scene *s, const char *name, tpBodyClass cls, tpShapeKind shape, double x, double y, double z)
{
    tpBodyDef *b = sceneAdd(s, name, cls, shape);
    b->pos[0] = x, b->pos[1] = y, b->pos[2] = z;
    if (shape == TP_SHAPE_SPHERE)
        b->size[0] = 0.05;
    else
        b->size[0] = b->size[1] = b->size[2] = 0.1;
    b->mass = 0.2;
    return b;
}

/* A run: the state, its rest counts and the step index. */
typedef struct Run {
    tpWorld *w;
    tpBodyState x[MAXB];
    uint8_t rest[MAXB];
    int i;
    bool sleep; /* tpWorld_StepRest (else tpWorld_Step) */
} Run;

static void runInit(Run *r, tpWorld *w, bool sleep)
{
    memset(r, 0, sizeof *r);
    r->w = w;
    r->sleep = sleep;
    tpWorld_InitialState(w, r->x);
}

static void runSteps(Run *r, int n, const double *action)
{
    const double dt = tpWorld_Def(r->w)->dt;
    for (int k = 0; k < n; k++, r->i++) {
        bool ok = r->sleep ? tpWorld_StepRest(r->w, r->x, r->rest, r->i * dt, action, r->x, r->rest)
                           : tpWorld_Step(r->w, r->x, r->i * dt, action, r->x);
        if (!ok) {
            const tpStepFailure *f = tpWorld_LastFailure(r->w);
            fprintf(stderr, "step %d failed: kind %d, bodies %d %d, value %g\n", r->i, (int)f->kind, f->a, f->b,
                    f->value);
        }
        assert_true(ok);
    }
}

static bool atRest(const tpBodyState *s)
{
    for (int k = 0; k < 3; k++)
        if (s->vel[k] != 0.0 || s->angvel[k] != 0.0)
            return false;
    return true;
}

/* A box let go 1 mm above the floor settles, counts sleep_time (15 steps at 1/60 s) at rest, falls
 * asleep with its velocities exactly 0, and from then on its state does not change by a bit while
 * the world reports it slept. Without rest counts (tpWorld_Step) it never sleeps. */
static void test_sleep_settles_and_stays(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    add(&s, "box", TP_BODY_PASSIVE, TP_SHAPE_BOX, 0, 0, 0.051);
    tpWorld *w = mustCreate(&s);
    const int K = tpWorld_RestSteps(w);
    assert_int_equal(K, 15); /* ceil(0.25 s / (1/60 s)) */
    Run r;
    runInit(&r, w, true);
    int asleep_at = -1;
    for (int k = 0; k < 120 && asleep_at < 0; k++) {
        runSteps(&r, 1, NULL);
        if (r.rest[0] >= K)
            asleep_at = r.i;
    }
    assert_true(asleep_at >= K);  /* at least sleep_time of rest first */
    assert_true(asleep_at <= 60); /* and it settles within a second */
    assert_true(atRest(&r.x[0])); /* zeroed when it fell asleep */
    assert_true(fabs(r.x[0].pos[2] - 0.05) < 0.001);
    tpBodyState before = r.x[0];
    int64_t slept = tpWorld_Stats(w).slept;
    runSteps(&r, 100, NULL);
    assert_memory_equal(&before, &r.x[0], sizeof before);
    assert_int_equal(r.rest[0], K);
    assert_int_equal(tpWorld_Stats(w).slept - slept, 100);
    /* tpWorld_Step: no counts, so it keeps being simulated (a resting box keeps residual motion) */
    Run plain;
    runInit(&plain, w, false);
    slept = tpWorld_Stats(w).slept;
    runSteps(&plain, 100, NULL);
    assert_int_equal(tpWorld_Stats(w).slept, slept);
    tpDestroyWorld(w);
}

/* Purity: a chain of StepRest calls gives the same states and rest counts bit for bit, however many
 * unrelated steps (other states, other counts) run in between. */
static void test_sleep_purity(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    add(&s, "box", TP_BODY_PASSIVE, TP_SHAPE_BOX, 0, 0, 0.051);
    tpBodyDef *ball = add(&s, "ball", TP_BODY_PASSIVE, TP_SHAPE_SPHERE, -1.0, 0, 0.05);
    ball->vel[0] = 0.0;
    tpBodyDef *hit = add(&s, "hitter", TP_BODY_PASSIVE, TP_SHAPE_SPHERE, -2.0, 0, 0.05);
    hit->vel[0] = 0.0;
    tpWorld *w = mustCreate(&s);
    Run a, b;
    runInit(&a, w, true);
    runInit(&b, w, true);
    runSteps(&a, 40, NULL);
    for (int k = 0; k < 40; k++) {
        runSteps(&b, 1, NULL);
        Run noise; /* unrelated work on the same world */
        runInit(&noise, w, true);
        noise.x[1].vel[0] = 3.0;
        runSteps(&noise, 3, NULL);
    }
    assert_memory_equal(a.x, b.x, sizeof a.x);
    assert_memory_equal(a.rest, b.rest, sizeof a.rest);
    assert_int_equal(a.rest[0], tpWorld_RestSteps(w)); /* the box is asleep by then */
    tpDestroyWorld(w);
}

/* A ball rolled into a sleeping ball wakes it and hands over its momentum as it does when nothing
 * sleeps (the sleeper's residual motion aside: within 1 %). */
static void test_sleep_woken_by_ball(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    s.mat.restitution = 0.9;
    s.mat.friction = 0.05;
    add(&s, "target", TP_BODY_PASSIVE, TP_SHAPE_SPHERE, 0, 0, 0.05);
    add(&s, "cue", TP_BODY_PASSIVE, TP_SHAPE_SPHERE, -0.6, 0, 0.05);
    tpWorld *w = mustCreate(&s);
    double vx[2];
    for (int sleep = 0; sleep < 2; sleep++) {
        Run r;
        runInit(&r, w, sleep);
        runSteps(&r, 30, NULL); /* both at rest; with sleeping both fall asleep */
        if (sleep) {
            assert_int_equal(r.rest[0], tpWorld_RestSteps(w));
            assert_true(atRest(&r.x[0]));
        }
        r.x[1].vel[0] = 1.5; /* strike the cue ball (this wakes it: its velocity is not 0) */
        r.rest[1] = 0;
        int64_t woken = tpWorld_Stats(w).woken;
        runSteps(&r, 40, NULL);
        if (sleep)
            assert_true(tpWorld_Stats(w).woken > woken);
        vx[sleep] = r.x[0].vel[0];
        assert_true(r.x[0].pos[0] > 0.1); /* the target went off */
    }
    assert_true(vx[0] > 0.5);
    assert_true(fabs(vx[1] - vx[0]) < 0.01 * vx[0]);
    tpDestroyWorld(w);
}

/* An action wakes a sleeping active body at once. */
static void test_sleep_woken_by_action(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    tpBodyDef *b = add(&s, "robot", TP_BODY_ACTIVE, TP_SHAPE_BOX, 0, 0, 0.05);
    b->max_force = 10;
    tpWorld *w = mustCreate(&s);
    Run r;
    runInit(&r, w, true);
    runSteps(&r, 40, NULL);
    assert_int_equal(r.rest[0], tpWorld_RestSteps(w));
    const double x0 = r.x[0].pos[0];
    const double push[6] = {5.0, 0, 0, 0, 0, 0}; /* beyond friction (0.5 x 0.2 kg x g = 0.98 N) */
    runSteps(&r, 1, push);
    assert_int_equal(r.rest[0], 0);
    assert_true(r.x[0].vel[0] > 0.05);
    assert_true(r.x[0].pos[0] > x0);
    tpDestroyWorld(w);
}

/* A scripted pusher driving into a sleeping box wakes it and pushes it along. */
static void test_sleep_woken_by_scripted(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    add(&s, "box", TP_BODY_PASSIVE, TP_SHAPE_BOX, 0, 0, 0.05);
    tpBodyDef *p = add(&s, "pusher", TP_BODY_FOREIGN, TP_SHAPE_BOX, -1.2, 0, 0.06);
    p->motion.kind = TP_MOTION_LINEAR;
    p->motion.vel[0] = 0.5; /* reaches the box after 2 s */
    tpWorld *w = mustCreate(&s);
    Run r;
    runInit(&r, w, true);
    runSteps(&r, 60, NULL);
    assert_int_equal(r.rest[0], tpWorld_RestSteps(w)); /* asleep long before the pusher comes */
    runSteps(&r, 120, NULL);                           /* to t = 3 s: pushed for about 1 s */
    assert_true(r.x[0].pos[0] > 0.3);
    tpDestroyWorld(w);
}

/* Momentarily slow is not at rest: a ball thrown up is still at the top of its flight (but touches
 * nothing), a ball let go on a 15 degree slope starts from rest (but accelerates). Neither sleeps. */
static void test_sleep_not_when_slow_for_a_moment(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    tpBodyDef *up = add(&s, "thrown", TP_BODY_PASSIVE, TP_SHAPE_SPHERE, 0, 0, 1.0);
    up->vel[2] = 0.5;
    tpWorld *w = mustCreate(&s);
    Run r;
    runInit(&r, w, true);
    for (int k = 0; k < 25; k++) { /* the top is at step 3; it lands at about step 30 */
        runSteps(&r, 1, NULL);
        assert_int_equal(r.rest[0], 0);
    }
    tpDestroyWorld(w);
    /* the slope: the ground plane tilted by 15 degrees about y through the origin, the ball
     * touching it there (centre r along the normal) */
    sceneInit(&s);
    const double th = 15.0 * 3.14159265358979323846 / 180.0;
    s.bodies[0].plane[0] = -sin(th), s.bodies[0].plane[2] = cos(th);
    add(&s, "roller", TP_BODY_PASSIVE, TP_SHAPE_SPHERE, -0.05 * sin(th), 0, 0.05 * cos(th));
    w = mustCreate(&s);
    runInit(&r, w, true);
    for (int k = 0; k < 60; k++) {
        runSteps(&r, 1, NULL);
        assert_int_equal(r.rest[0], 0);
    }
    assert_true(r.x[0].pos[0] < -0.5); /* it rolled down (about 0.9 m in 1 s) */
    tpDestroyWorld(w);
}

/* Two boxes at rest side by side, touching: both sleep (a still awake body leans on a sleeper
 * instead of waking it, so they do not keep each other awake). */
static void test_sleep_neighbours(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    add(&s, "left", TP_BODY_PASSIVE, TP_SHAPE_BOX, -0.05, 0, 0.05);
    add(&s, "right", TP_BODY_PASSIVE, TP_SHAPE_BOX, 0.05, 0, 0.05);
    add(&s, "top", TP_BODY_PASSIVE, TP_SHAPE_BOX, 0, 0, 0.15);
    tpWorld *w = mustCreate(&s);
    Run r;
    runInit(&r, w, true);
    runSteps(&r, 120, NULL);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(r.rest[k], tpWorld_RestSteps(w));
        assert_true(atRest(&r.x[k]));
    }
    tpDestroyWorld(w);
}

/* A sleeping stack: a ball knocks the bottom box away; the box on it wakes through it and falls to
 * the floor instead of hanging in the air. */
static void test_sleep_wakes_what_rests_on_it(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    add(&s, "bottom", TP_BODY_PASSIVE, TP_SHAPE_BOX, 0, 0, 0.05);
    add(&s, "top", TP_BODY_PASSIVE, TP_SHAPE_BOX, 0, 0, 0.15);
    tpBodyDef *ball = add(&s, "ball", TP_BODY_PASSIVE, TP_SHAPE_SPHERE, -1.0, 0, 0.05);
    ball->size[0] = 0.04;
    ball->pos[2] = 0.04;
    ball->mass = 2.0;
    tpWorld *w = mustCreate(&s);
    Run r;
    runInit(&r, w, true);
    runSteps(&r, 60, NULL);
    assert_int_equal(r.rest[0], tpWorld_RestSteps(w));
    assert_int_equal(r.rest[1], tpWorld_RestSteps(w));
    r.x[2].vel[0] = 8.0;
    r.rest[2] = 0;
    runSteps(&r, 90, NULL);
    assert_true(r.x[1].pos[2] < 0.11); /* the top box came down */
    tpDestroyWorld(w);
}

/* Bad definitions get one-line errors naming the field. */
static void test_sleep_validation(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    add(&s, "box", TP_BODY_PASSIVE, TP_SHAPE_BOX, 0, 0, 0.05);
    char err[256];
    s.def.sleep_speed = -0.1;
    assert_null(tpCreateWorld(&s.def, err, sizeof err));
    assert_non_null(strstr(err, "sleep_speed"));
    s.def.sleep_speed = 0.01;
    s.def.sleep_time = 0.0;
    assert_null(tpCreateWorld(&s.def, err, sizeof err));
    assert_non_null(strstr(err, "sleep_time"));
    s.def.sleep_speed = 0.0; /* never sleeps: the time does not matter */
    tpWorld *w = mustCreate(&s);
    assert_int_equal(tpWorld_RestSteps(w), 0);
    tpDestroyWorld(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sleep_settles_and_stays), cmocka_unit_test(test_sleep_purity),
        cmocka_unit_test(test_sleep_woken_by_ball),     cmocka_unit_test(test_sleep_woken_by_action),
        cmocka_unit_test(test_sleep_woken_by_scripted), cmocka_unit_test(test_sleep_not_when_slow_for_a_moment),
        cmocka_unit_test(test_sleep_neighbours),        cmocka_unit_test(test_sleep_wakes_what_rests_on_it),
        cmocka_unit_test(test_sleep_validation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
