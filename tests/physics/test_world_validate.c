/* The world's invariants (physics/src/world_validate.c): a world built and stepped through the
 * public API passes its check after every step, and each rule, broken once on purpose (then
 * restored), fails with its own message -- so a rule that can never fail would show here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/base.h"
#include "tp/physics.h"
#include "world_internal.h"

#include <stdio.h>
#include <string.h>

#define STEPS 90
#define MAX_BODIES 6

/* Asserts that ok is false and why contains want. */
static void expect_broken(bool ok, const char *why, const char *want)
{
    if (ok || !strstr(why, want)) {
        print_error("expected a broken rule with '%s', got %s: '%s'\n", want, ok ? "valid" : "broken", why);
        fail();
    }
}

/* A floor, two boxes stacked, an active ball rolling into them and a pendulum of two spheres on
 * hinges (bob to the world, tip to bob, driven): every table the check reads is filled. */
static tpMaterialDef g_mat;
static tpBodyDef g_bodies[MAX_BODIES];
static tpJointDef g_joints[2];

static tpBodyDef *add(tpSceneDef *d, const char *name, tpShapeKind shape, double x, double z, double size)
{
    tpBodyDef *b = &g_bodies[d->nbodies++];
    *b = tpDefaultBodyDef();
    tpStrCopy(b->name, TP_NAME_MAX, name);
    b->cls = shape == TP_SHAPE_PLANE ? TP_BODY_STATIC : TP_BODY_PASSIVE;
    b->shape = shape;
    b->pos[0] = x, b->pos[2] = z;
    if (shape == TP_SHAPE_BOX) {
        b->size[0] = b->size[1] = b->size[2] = size;
    } else if (shape == TP_SHAPE_SPHERE) {
        b->size[0] = size;
    } else {
        b->plane[2] = 1.0;
    }
    b->mass = 0.5;
    return b;
}

static tpJointDef *hinge(tpSceneDef *d, int a, int b, double x, double z)
{
    tpJointDef *j = &g_joints[d->njoints++];
    *j = tpDefaultJointDef();
    j->kind = TP_JOINT_HINGE;
    j->body_a = a, j->body_b = b;
    j->anchor[0] = x, j->anchor[2] = z;
    j->axis[0] = 0, j->axis[1] = 1, j->axis[2] = 0;
    return j;
}

static tpWorld *make_world(void)
{
    tpSceneDef d = tpDefaultSceneDef();
    g_mat = tpDefaultMaterialDef();
    tpStrCopy(g_mat.name, TP_NAME_MAX, "default");
    d.materials = &g_mat;
    d.nmaterials = 1;
    d.bodies = g_bodies;
    d.joints = g_joints;
    add(&d, "floor", TP_SHAPE_PLANE, 0, 0, 0);
    add(&d, "low", TP_SHAPE_BOX, 0, 0.1, 0.2);
    add(&d, "high", TP_SHAPE_BOX, 0, 0.3, 0.2);
    tpBodyDef *ball = add(&d, "ball", TP_SHAPE_SPHERE, -0.5, 0.05, 0.05);
    ball->cls = TP_BODY_ACTIVE;
    ball->vel[0] = 1.0;
    add(&d, "bob", TP_SHAPE_SPHERE, 2.0, 1.0, 0.05);
    add(&d, "tip", TP_SHAPE_SPHERE, 2.3, 1.0, 0.05);
    hinge(&d, 4, -1, 2.0, 1.5);
    tpJointDef *arm = hinge(&d, 5, 4, 2.0, 1.0);
    tpStrCopy(arm->name, TP_NAME_MAX, "arm");
    arm->axes[0].motor = true;
    arm->axes[0].driven = true;
    arm->axes[0].max_force = 5.0;
    char err[512] = "";
    tpWorld *w = tpCreateWorld(&d, err, sizeof err);
    if (!w) {
        print_error("%s\n", err);
    }
    assert_non_null(w);
    return w;
}

/* Steps w STEPS times from its initial state, checking it after each step. */
static void run(tpWorld *w)
{
    const int n = tpWorld_StateCount(w);
    tpBodyState x[MAX_BODIES], y[MAX_BODIES];
    double action[6 * MAX_BODIES + 8] = {0};
    action[tpWorld_ActionCount(w) - 1] = 2.0; /* the driven hinge's target speed, rad/s */
    tpWorld_InitialState(w, x);
    char why[320] = "";
    for (int k = 0; k < STEPS; ++k) {
        assert_true(tpWorld_Step(w, x, k * w->def.dt, action, y));
        if (!tpWorld_Valid(w, why, sizeof why)) {
            print_error("step %d: %s\n", k, why);
            fail();
        }
        memcpy(x, y, (size_t)n * sizeof *x);
    }
}

static void test_valid_when_stepped(void **state)
{
    (void)state;
    tpWorld *w = make_world();
    char why[320] = "";
    assert_true(tpWorld_Valid(w, why, sizeof why));
    run(w);
    assert_true(w->ninfos > 0 && w->npend > 0 && w->ntouch > 0 && w->nmotor == 1 && w->def.njoints == 2);
    tpContacts_PairsNow(w); /* the broad phase's pairs (a step's scratch, empty after it) */
    assert_true(w->npairs > 0);
    assert_true(tpWorld_Valid(w, why, sizeof why));
    tpDestroyWorld(w);
}

/* Breaks `field` to `bad`, expects the rule's message, puts it back (the world is valid again). */
#define BREAK(w, field, bad, want)                                                                                     \
    do {                                                                                                               \
        char why_[320] = "";                                                                                           \
        __typeof__(field) keep_ = (field);                                                                             \
        (field) = (bad);                                                                                               \
        expect_broken(tpWorld_Valid((w), why_, sizeof why_), why_, (want));                                            \
        (field) = keep_;                                                                                               \
        assert_true(tpWorld_Valid((w), why_, sizeof why_));                                                            \
    } while (0)

static void test_slot_rules(void **state)
{
    (void)state;
    tpWorld *w = make_world();
    run(w);
    /* bodies: 0 floor (static), 1 low, 2 high, 3 ball (active: control slot 0), 4 bob, 5 tip */
    BREAK(w, w->ncontrol, w->nstate + 1, "slots:");
    BREAK(w, w->state_body[1], 0, "state slot 1: body 0");
    BREAK(w, w->control_body[0], 1, "control slot 0: body 1");
    int one[1] = {1};
    int *kin = w->kin_body;
    w->kin_body = one;
    BREAK(w, w->nkinematic, 1, "kinematic slot 0: body 1 is not kinematic");
    w->kin_body = kin;
    BREAK(w, w->rt[0].state_slot, 0, "body 0: state slot 0 is not its own");
    BREAK(w, w->rt[1].control_slot, 0, "body 1: control slot 0 is not its own");
    BREAK(w, w->rt[0].kinematic, true, "body 0: static (no ODE body) but kinematic");
    BREAK(w, w->rt[2].kinematic, true, "body 2: kinematic with state slot");
    /* rules the tables' own checks cover but for a world whose tables are short as well */
    const int nstate = w->nstate, ncontrol = w->ncontrol;
    w->rt[3].state_slot = -1;
    w->nstate = 2;
    char why[320] = "";
    expect_broken(tpWorld_Valid(w, why, sizeof why), why, "body 3: a control slot without a state slot");
    w->nstate = 0;
    w->ncontrol = 0;
    w->rt[1].state_slot = -1;
    expect_broken(tpWorld_Valid(w, why, sizeof why), why, "body 1: dynamic without a state slot");
    w->nstate = nstate, w->ncontrol = ncontrol;
    w->rt[1].state_slot = 0, w->rt[3].state_slot = 2;
    assert_true(tpWorld_Valid(w, why, sizeof why));
    tpDestroyWorld(w);
}

static void test_body_rules(void **state)
{
    (void)state;
    tpWorld *w = make_world();
    run(w);
    BREAK(w, w->rt[1].ngeoms, 2, "body 1: 2 geoms");
    BREAK(w, w->rt[1].part0, 0, "body 1: parts 0");
    BREAK(w, w->max_geoms, 0, "geoms: at most 0");
    dGeomSetData(w->rt[2].geom, (void *)(intptr_t)1);
    char why[320] = "";
    expect_broken(tpWorld_Valid(w, why, sizeof why), why, "body 2: geom 0 does not carry");
    dGeomSetData(w->rt[2].geom, (void *)(intptr_t)2);
    BREAK(w, w->rt[3].mass, 0.0, "body 3: mass 0");
    BREAK(w, w->rt[3].inertia[1], 1.0, "body 3: inertia not symmetric");
    BREAK(w, w->rt[3].inertia_inv[0], 0.0, "body 3: inertia times its inverse");
    const dReal *q = dBodyGetQuaternion(w->rt[1].body);
    const dReal keep[4] = {q[0], q[1], q[2], q[3]};
    dBodyID b = w->rt[1].body;
    dQuaternion bad = {2.0, 0.0, 0.0, 0.0};
    memcpy((dReal *)dBodyGetQuaternion(b), bad, sizeof bad); /* dBodySetQuaternion would normalise it */
    expect_broken(tpWorld_Valid(w, why, sizeof why), why, "body 1: pose");
    memcpy((dReal *)dBodyGetQuaternion(b), keep, sizeof keep);
    BREAK(w, w->rt[2].asleep, true, "body 2: asleep but enabled in ODE");
    BREAK(w, w->nasleep, 3, "sleepers: 0 bodies asleep, counted 3");
    BREAK(w, w->surfaces[0].bounce, 1.5, "surface (0, 0)");
    tpDestroyWorld(w);
}

static void test_contact_rules(void **state)
{
    (void)state;
    tpWorld *w = make_world();
    run(w);
    tpContacts_PairsNow(w);
    assert_true(w->npairs >= 2 && w->ninfos >= 2 && w->npend >= 1);
    char why[320] = "";
    BREAK(w, w->npairs, w->cap_pairs + 1, "pairs:");
    const uint64_t p1 = w->pairs[1]; /* its two bodies the other way round */
    BREAK(w, w->pairs[1], (p1 << 32) | (p1 >> 32), "pairs[1]");
    w->pairs[1] = w->pairs[0]; /* a repeat, out of order or not: a scratch list's (valid) */
    assert_true(tpWorld_Valid(w, why, sizeof why));
    w->pairs[1] = p1;
    BREAK(w, w->ninfos, (int)w->cap_infos + 1, "contact infos:");
    BREAK(w, w->infos[1].a, w->infos[1].b, "infos[1]: pair");
    BREAK(w, w->infos[0].max_depth, w->infos[0].depth - 1.0, "infos[0]: depth");
    BREAK(w, w->npend, w->cap_pend + 1, "pending contacts:");
    BREAK(w, w->pend[0].c.geom.normal[2], 5.0, "pend[0]: pair");
    BREAK(w, w->nrun, TP_DISCOVER_ROUNDS_MAX + 2, "speculative runs:");
    BREAK(w, w->run[0], w->npend + 1, "run[0]");
    BREAK(w, w->ntouch, w->cap_touch + 1, "touching pairs:");
    assert_true(w->ntouch >= 1);
    BREAK(w, w->touch[0].count, -1, "touch[0]");
    BREAK(w, w->static_pair[0], w->def.nbodies, "the deepest static overlap");
    BREAK(w, w->body_depth, -1.0, "the deepest body-body overlap");
    tpDestroyWorld(w);
}

static void test_joint_rules(void **state)
{
    (void)state;
    tpWorld *w = make_world();
    run(w);
    assert_true(w->nnocollide == 1);
    BREAK(w, w->joint_root[5], w->def.nbodies, "body 5: joint group root 6 is not a root");
    BREAK(w, w->nocollide[0], ((uint64_t)1 << 32) | 4u, "nocollide[0]: (1, 4)");
    const uint64_t keep = w->nocollide[0];
    w->nocollide[0] = 4u; /* (0, 4): a joint to the static floor joins no group, and is valid */
    char why[320] = "";
    assert_true(tpWorld_Valid(w, why, sizeof why));
    w->nocollide[0] = keep;
    BREAK(w, w->motor_axis[0], 2, "motor 0: joint 1, axis 2");
    BREAK(w, w->def.njoints, 0, "no joints but 1 no-collide pairs");
    tpDestroyWorld(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_when_stepped), cmocka_unit_test(test_slot_rules),
        cmocka_unit_test(test_body_rules),         cmocka_unit_test(test_contact_rules),
        cmocka_unit_test(test_joint_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
