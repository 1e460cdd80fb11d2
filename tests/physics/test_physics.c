/* Tests for physics/: Sim purity, snapshots, materials, kinematic bodies, actions, contacts,
 * validation. Every check compares against a value the physics must produce; no timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/base.h"
#include "tp/mathx.h"
#include "tp/physics.h"

#include "physics_testing.h"
#include "scene_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Scene helpers                                                                               */

enum { MAT_GROUND = 0, MAT_BOUNCY, MAT_ROLLING, MAT_DEAD, NMAT };

typedef struct Scene {
    tpSceneDef def;
    tpMaterialDef mats[NMAT];
    tpBodyDef bodies[48];
} Scene;

static void sceneInit(Scene *s)
{
    memset(s, 0, sizeof *s);
    s->def = tpDefaultSceneDef();
    for (int i = 0; i < NMAT; i++)
        s->mats[i] = tpDefaultMaterialDef();
    tpStrCopy(s->mats[MAT_GROUND].name, TP_NAME_MAX, "ground");
    tpStrCopy(s->mats[MAT_BOUNCY].name, TP_NAME_MAX, "bouncy");
    s->mats[MAT_BOUNCY].restitution = 0.8;
    tpStrCopy(s->mats[MAT_ROLLING].name, TP_NAME_MAX, "rolling");
    s->mats[MAT_ROLLING].rolling_friction = 0.01;
    tpStrCopy(s->mats[MAT_DEAD].name, TP_NAME_MAX, "dead");
    s->mats[MAT_DEAD].restitution = 0.0;
    s->def.materials = s->mats;
    s->def.nmaterials = NMAT;
    s->def.bodies = s->bodies;
}

static tpBodyDef *addGround(Scene *s, int material)
{
    tpBodyDef *g = sceneAdd(s, "ground", TP_BODY_STATIC, TP_SHAPE_PLANE);
    g->plane[0] = 0, g->plane[1] = 0, g->plane[2] = 1, g->plane[3] = 0;
    g->material = material;
    return g;
}

static tpBodyDef *addSphere(Scene *s, const char *name, double r, double x, double y, double z)
{
    tpBodyDef *b = sceneAdd(s, name, TP_BODY_PASSIVE, TP_SHAPE_SPHERE);
    b->size[0] = r;
    b->mass = 0.1;
    b->pos[0] = x, b->pos[1] = y, b->pos[2] = z;
    return b;
}

/* The purity scene: ground, walls, spheres/boxes/cylinders/capsules that collide, a rotating
 * kinematic bar, an active robot and a tactic-driven foreign body. */
static void buildBusyScene(Scene *s, tpSolverKind solver)
{
    sceneInit(s);
    s->def.solver = solver;
    addGround(s, MAT_GROUND);
    const double wall[4][3] = {{2.1, 0, 0.25}, {-2.1, 0, 0.25}, {0, 2.1, 0.25}, {0, -2.1, 0.25}};
    for (int k = 0; k < 4; k++) {
        char name[16];
        snprintf(name, sizeof name, "wall%d", k);
        tpBodyDef *b = sceneAdd(s, name, TP_BODY_STATIC, TP_SHAPE_BOX);
        b->size[0] = k < 2 ? 0.2 : 4.4;
        b->size[1] = k < 2 ? 4.4 : 0.2;
        b->size[2] = 0.5;
        memcpy(b->pos, wall[k], sizeof b->pos);
        b->material = MAT_BOUNCY;
    }
    tpBodyDef *b;
    b = addSphere(s, "ball1", 0.1, 0.6, 0.3, 0.1);
    b->vel[0] = -1.5;
    b->material = MAT_BOUNCY;
    b = addSphere(s, "ball2", 0.12, -0.5, 0.35, 0.4); /* falls onto the floor */
    b->vel[1] = 0.4;
    b = addSphere(s, "ball3", 0.08, 1.2, -1.0, 0.08);
    b->vel[0] = 1.0, b->vel[1] = 1.2;
    b->material = MAT_ROLLING;
    b = sceneAdd(s, "crate", TP_BODY_PASSIVE, TP_SHAPE_BOX);
    b->size[0] = 0.3, b->size[1] = 0.2, b->size[2] = 0.25;
    b->pos[0] = -0.2, b->pos[1] = 0.3, b->pos[2] = 0.3;
    b->quat[0] = 0.9, b->quat[1] = 0.1, b->quat[2] = 0.3, b->quat[3] = 0.05; /* tumbling landing */
    b->mass = 0.5;
    b = sceneAdd(s, "can", TP_BODY_PASSIVE, TP_SHAPE_CYLINDER);
    b->size[0] = 0.1, b->size[1] = 0.3;
    b->pos[0] = 0.8, b->pos[1] = -0.6, b->pos[2] = 0.16;
    b->mass = 0.3;
    b->vel[0] = -0.8;
    b = sceneAdd(s, "pill", TP_BODY_PASSIVE, TP_SHAPE_CAPSULE);
    b->size[0] = 0.07, b->size[1] = 0.3;
    b->quat[0] = cos(0.7), b->quat[2] = sin(0.7); /* lying almost flat */
    b->pos[0] = -1.0, b->pos[1] = -0.9, b->pos[2] = 0.3;
    b->mass = 0.2;
    b->angvel[2] = 2.0;
    b = sceneAdd(s, "bar", TP_BODY_FOREIGN, TP_SHAPE_BOX);
    b->size[0] = 1.6, b->size[1] = 0.1, b->size[2] = 0.2;
    b->pos[0] = 0.0, b->pos[1] = -0.3, b->pos[2] = 0.1;
    b->motion.kind = TP_MOTION_ROTATE;
    b->motion.rate = 2.0;
    b = sceneAdd(s, "robot", TP_BODY_ACTIVE, TP_SHAPE_BOX);
    b->size[0] = b->size[1] = 0.2, b->size[2] = 0.15;
    b->pos[0] = -1.2, b->pos[1] = 0.8, b->pos[2] = 0.076;
    b->mass = 2.0;
    b->max_force = 20.0;
    b->max_torque = 2.0;
    b->planar_force = true;
    b = sceneAdd(s, "opponent", TP_BODY_FOREIGN, TP_SHAPE_CYLINDER);
    b->motion.kind = TP_MOTION_TACTIC;
    b->size[0] = 0.1, b->size[1] = 0.15;
    b->pos[0] = 1.3, b->pos[1] = 1.3, b->pos[2] = 0.076;
    b->mass = 2.0;
    b->max_force = 20.0;
}

/* A deterministic, step-dependent action so the chain exercises the controls. */
static void chainAction(int ncontrol, int step, double *a)
{
    for (int k = 0; k < ncontrol; k++) {
        a[6 * k + 0] = 30.0 * sin(0.05 * step + k);
        a[6 * k + 1] = 25.0 * cos(0.07 * step - k);
        a[6 * k + 2] = 3.0;
        a[6 * k + 3] = 0.5;
        a[6 * k + 4] = -0.2;
        a[6 * k + 5] = 3.0 * sin(0.1 * step);
    }
}

#define CHAIN 120

/* Runs CHAIN Sim steps from the initial state; returns the number of steps with >= 3 touching pairs. */
static int runChain(tpWorld *w, tpBodyState *out /* CHAIN * nstate */)
{
    int n = tpWorld_StateCount(w), busy = 0;
    tpBodyState *x = calloc((size_t)n, sizeof *x);
    double *a = calloc((size_t)(6 * tpWorld_ControlCount(w) + 1), sizeof(double));
    tpWorld_InitialState(w, x);
    double dt = tpWorld_Def(w)->dt;
    for (int i = 0; i < CHAIN; i++) {
        chainAction(tpWorld_ControlCount(w), i, a);
        tpWorld_Step(w, x, i * dt, a, x); /* xnew aliases x on purpose */
        memcpy(out + (size_t)i * n, x, (size_t)n * sizeof *x);
        if (tpWorld_ContactCount(w) >= 3)
            busy++;
    }
    free(x);
    free(a);
    return busy;
}

static uint64_t g_lcg = 12345;
static double rnd(void)
{
    g_lcg = g_lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(g_lcg >> 11) / 9007199254740992.0;
}

static void purityCheck(const Scene *sp)
{
    const Scene *s = sp;
    tpSolverKind solver = s->def.solver;
    tpWorld *w = mustCreate(s);
    int n = tpWorld_StateCount(w), nc = tpWorld_ControlCount(w);
    assert_true(nc <= 2);

    tpBodyState *first = calloc((size_t)CHAIN * n, sizeof *first);
    tpBodyState *second = calloc((size_t)CHAIN * n, sizeof *second);
    int busy = runChain(w, first);
    assert_true(busy > CHAIN / 2); /* the scene really collides */

    /* Unrelated expansions: perturbed states from anywhere in the chain, random actions and
     * times, in random order. They move every body and reorder the collision space. */
    tpBodyState *x = calloc((size_t)n, sizeof *x);
    double a[12];
    double dt = s->def.dt;
    for (int it = 0; it < 400; it++) {
        int from = (int)(rnd() * CHAIN);
        memcpy(x, first + (size_t)from * n, (size_t)n * sizeof *x);
        for (int k = 0; k < n; k++) {
            for (int j = 0; j < 3; j++) {
                x[k].pos[j] += 0.3 * (rnd() - 0.5);
                x[k].vel[j] += 2.0 * (rnd() - 0.5);
            }
            x[k].pos[2] = fabs(x[k].pos[2]);
        }
        for (int j = 0; j < 6 * nc; j++)
            a[j] = 60.0 * (rnd() - 0.5);
        int len = 1 + (int)(rnd() * 5);
        double t = rnd() * 10.0;
        for (int k = 0; k < len; k++)
            tpWorld_Step(w, x, t + k * dt, a, x);
    }
    free(x);

    runChain(w, second);
    for (int i = 0; i < CHAIN; i++) {
        if (memcmp(first + (size_t)i * n, second + (size_t)i * n, (size_t)n * sizeof *first) != 0)
            fail_msg("solver %d: chain diverged at step %d after unrelated steps", (int)solver, i);
    }

    /* A second, independent world built from the same definition gives the same chain. */
    tpWorld *w2 = mustCreate(s);
    runChain(w2, second);
    for (int i = 0; i < CHAIN; i++) {
        if (memcmp(first + (size_t)i * n, second + (size_t)i * n, (size_t)n * sizeof *first) != 0)
            fail_msg("solver %d: second world diverged at step %d", (int)solver, i);
    }
    /* Sanity: the chain is not trivially static (bodies moved). */
    assert_true(memcmp(first, first + (size_t)(CHAIN - 1) * n, (size_t)n * sizeof *first) != 0);

    tpDestroyWorld(w2);
    tpDestroyWorld(w);
    free(first);
    free(second);
}

static void purityForSolver(tpSolverKind solver)
{
    Scene s;
    buildBusyScene(&s, solver);
    assert_int_equal(s.def.nbodies, 14);
    purityCheck(&s);
}

static void test_purity_step(void **state)
{
    (void)state;
    purityForSolver(TP_SOLVER_STEP);
}

static void test_purity_quickstep(void **state)
{
    (void)state;
    purityForSolver(TP_SOLVER_QUICKSTEP);
}

/* Substeps continue the world between restores: still a pure function of (x, a). */
static void test_purity_substeps(void **state)
{
    (void)state;
    Scene s;
    buildBusyScene(&s, TP_SOLVER_STEP);
    s.def.substeps = 4;
    purityCheck(&s);
}

/* A small fast ball (6 m/s: 0.1 m per 1/60 s step, more than twice its radius) flies at a static
 * box 2 cm inside its corner. Collided only at the start of each step, its centre would land
 * inside the box and the solver push it out through the nearest face, sideways: past the box (as
 * it did before speculative contacts and adaptive substeps). Now, with one substep asked for as
 * with four, it touches the front face first and bounces back; the touch is reported. */
static void test_substeps_no_tunnel(void **state)
{
    (void)state;
    for (int ns = 1; ns <= 4; ns += 3) {
        Scene s;
        sceneInit(&s);
        s.def.gravity[2] = 0.0;
        s.def.substeps = ns;
        tpBodyDef *box = sceneAdd(&s, "box", TP_BODY_STATIC, TP_SHAPE_BOX);
        box->size[0] = box->size[1] = box->size[2] = 0.18;
        box->pos[0] = 0.59; /* front face at x = 0.5, side faces at y = +-0.09 */
        box->material = MAT_BOUNCY;
        tpBodyDef *ball = addSphere(&s, "ball", 0.0215, 0.45, 0.07, 0.0);
        ball->vel[0] = 6.0;
        ball->material = MAT_BOUNCY;
        tpWorld *w = mustCreate(&s);
        tpBodyState x[1];
        tpWorld_InitialState(w, x);
        bool touched = false;
        for (int i = 0; i < 30; i++) {
            tpWorld_Step(w, x, i * s.def.dt, NULL, x);
            for (int c = 0; c < tpWorld_ContactCount(w); c++) {
                touched = touched || (tpWorld_Contacts(w)[c].a == 0 && tpWorld_Contacts(w)[c].b == 1);
            }
        }
        assert_true(x[0].pos[0] < 0.5); /* bounced off its front face */
        assert_true(x[0].vel[0] < -1.0);
        assert_true(touched);
        tpDestroyWorld(w);
    }
}

/* More than 32 bodies: the world uses a hash space for the broad phase. A heap of spheres
 * and boxes dropped into a walled pen, with one active pusher. */
static void test_purity_hash_space(void **state)
{
    (void)state;
    static Scene s; /* large: keep it off the stack */
    buildBusyScene(&s, TP_SOLVER_STEP);
    for (int k = 0; k < 22; k++) {
        char name[16];
        snprintf(name, sizeof name, "heap%d", k);
        double x = -0.6 + 0.3 * (k % 5), y = -0.6 + 0.3 * ((k / 5) % 5), z = 0.3 + 0.25 * (k / 5);
        if (k % 3 == 0) {
            tpBodyDef *b = sceneAdd(&s, name, TP_BODY_PASSIVE, TP_SHAPE_BOX);
            b->size[0] = b->size[1] = b->size[2] = 0.15;
            b->pos[0] = x + 0.01 * k, b->pos[1] = y, b->pos[2] = z;
            b->mass = 0.2;
        } else {
            addSphere(&s, name, 0.09, x, y + 0.02 * k, z);
        }
    }
    assert_true(s.def.nbodies > 32);
    purityCheck(&s);
}

/* ------------------------------------------------------------------------------------------ */

static void test_snapshot_round_trip(void **state)
{
    (void)state;
    Scene s;
    buildBusyScene(&s, TP_SOLVER_STEP);
    tpWorld *w = mustCreate(&s);
    double a[12];
    for (int i = 0; i < 30; i++) {
        chainAction(2, i, a);
        tpWorld_StepLive(w, a);
    }
    size_t size = tpWorld_SnapshotSize(w);
    assert_int_equal(size, sizeof(double) + 8 * sizeof(tpBodyState));
    unsigned char *s1 = malloc(size), *s2 = malloc(size), *s3 = malloc(size);
    tpWorld_Snapshot(w, s1);
    double t1 = tpWorld_Time(w);
    assert_true(fabs(t1 - 30 * s.def.dt) < 1e-12);

    for (int i = 0; i < 20; i++)
        tpWorld_StepLive(w, a);
    tpWorld_Snapshot(w, s2);
    assert_true(memcmp(s1, s2, size) != 0);

    tpWorld_Restore(w, s1);
    assert_true(tpWorld_Time(w) == t1);
    tpWorld_Snapshot(w, s2);
    assert_memory_equal(s1, s2, size);

    /* Restore + StepLive is exactly Sim from the snapshot's state. */
    tpWorld_StepLive(w, a);
    tpWorld_Snapshot(w, s3);
    int n = tpWorld_StateCount(w);
    tpBodyState *x = malloc((size_t)n * sizeof *x);
    memcpy(x, s1 + sizeof(double), (size_t)n * sizeof *x);
    tpWorld_Step(w, x, t1, a, x);
    assert_memory_equal(s3 + sizeof(double), x, (size_t)n * sizeof *x);

    free(x);
    free(s1);
    free(s2);
    free(s3);
    tpDestroyWorld(w);
}

/* ------------------------------------------------------------------------------------------ */

/* Rolls a ball at 2 m/s; returns the travelled distance when it stops, or -1 if it is still
 * faster than 1e-3 m/s after `seconds`. *final_speed receives the last speed. */
static double rollBall(int material, double seconds, double *final_speed)
{
    Scene s;
    sceneInit(&s);
    addGround(&s, material);
    const double r = 0.05;
    tpBodyDef *b = addSphere(&s, "ball", r, 0, 0, r);
    b->material = material;
    b->vel[0] = 2.0;
    b->angvel[1] = 2.0 / r; /* rolling without slipping along +x */
    tpWorld *w = mustCreate(&s);
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    double result = -1.0, speed = 0.0;
    int steps = (int)(seconds / s.def.dt);
    for (int i = 0; i < steps; i++) {
        tpWorld_Step(w, &x, i * s.def.dt, NULL, &x);
        speed = sqrt(x.vel[0] * x.vel[0] + x.vel[1] * x.vel[1] + x.vel[2] * x.vel[2]);
        if (speed < 1e-3) {
            result = x.pos[0];
            break;
        }
    }
    *final_speed = speed;
    tpDestroyWorld(w);
    return result;
}

static void test_rolling_friction(void **state)
{
    (void)state;
    double speed;
    double dist = rollBall(MAT_ROLLING, 5.0, &speed);
    assert_true(dist > 0.1);
    assert_true(dist < 5.0);

    double free_dist = rollBall(MAT_GROUND, 3.0, &speed);
    assert_true(free_dist < 0.0); /* never stopped */
    assert_true(speed > 1.5);
}

/* Friction is isotropic: a ball launched diagonally to the world axes, sliding and then rolling
 * (braked by rolling friction), keeps its direction. ODE's friction pyramid alone bends such a
 * path toward an axis (0.05 rad within 20 steps for a golf ball), which made kicks miss. */
static void test_isotropic_friction(void **state)
{
    (void)state;
    const double angles[] = {0.3, 0.7854, 2.0, -2.6};
    for (int k = 0; k < 4; k++) {
        Scene s;
        sceneInit(&s);
        s.mats[MAT_ROLLING].friction = 0.3;
        s.mats[MAT_ROLLING].rolling_friction = 0.0015;
        s.mats[MAT_GROUND].friction = 0.3;
        addGround(&s, MAT_GROUND);
        const double r = 0.0215;
        tpBodyDef *b = addSphere(&s, "ball", r, 0, 0, r);
        b->material = MAT_ROLLING;
        b->vel[0] = 2.5 * cos(angles[k]);
        b->vel[1] = 2.5 * sin(angles[k]);
        tpWorld *w = mustCreate(&s);
        tpBodyState x;
        tpWorld_InitialState(w, &x);
        double worst = 0.0, travelled = 0.0;
        for (int i = 0; i < 600; i++) {
            tpWorld_Step(w, &x, i * s.def.dt, NULL, &x);
            travelled = hypot(x.pos[0], x.pos[1]);
            if (travelled > 0.05) {
                double err = fabs(remainder(atan2(x.pos[1], x.pos[0]) - angles[k], 2.0 * TP_PI));
                worst = err > worst ? err : worst;
            }
        }
        tpDestroyWorld(w);
        if (worst > 1e-6)
            fprintf(stderr, "launch angle %g: path bent by %g rad\n", angles[k], worst);
        assert_true(travelled > 1.0); /* it did slide and roll a while */
        assert_true(worst < 1e-6);
    }
}

/* A marker (a hole drawn on the green) is recorded but never collides; only static bodies may
 * be markers. */
static void test_marker_never_collides(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    addGround(&s, MAT_GROUND);
    tpBodyDef *m = sceneAdd(&s, "hole", TP_BODY_STATIC, TP_SHAPE_BOX);
    m->size[0] = m->size[1] = 1.0, m->size[2] = 0.4;
    m->pos[2] = 0.2;
    m->marker = true;
    const double r = 0.05;
    addSphere(&s, "ball", r, 0, 0, 0.6);
    tpWorld *w = mustCreate(&s);
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    for (int i = 0; i < 120; i++)
        tpWorld_Step(w, &x, i * s.def.dt, NULL, &x);
    tpDestroyWorld(w);
    assert_true(fabs(x.pos[2] - r) < 0.01); /* it fell through the marker onto the ground */

    s.bodies[1].cls = TP_BODY_PASSIVE; /* a moving marker is refused */
    s.bodies[1].mass = 1.0;
    char err[256] = "";
    assert_null(tpCreateWorld(&s.def, err, sizeof err));
    assert_non_null(strstr(err, "marker"));
}

/* ------------------------------------------------------------------------------------------ */

static void test_kinematic_rotate(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    addGround(&s, MAT_GROUND);
    tpBodyDef *bar = sceneAdd(&s, "bar", TP_BODY_FOREIGN, TP_SHAPE_BOX);
    bar->size[0] = 2.0, bar->size[1] = 0.1, bar->size[2] = 0.2;
    bar->pos[2] = 0.1;
    /* Non-trivial initial orientation (tilted about x), so composition order matters. */
    bar->quat[0] = cos(0.1), bar->quat[1] = sin(0.1);
    bar->motion.kind = TP_MOTION_ROTATE;
    bar->motion.rate = 2.0;
    bar->motion.phase = 0.3;
    addSphere(&s, "ball", 0.05, 0.0, 0.7, 0.05);
    tpWorld *w = mustCreate(&s);
    assert_int_equal(tpWorld_StateSlot(w, 1), -1);
    assert_int_equal(tpWorld_StateCount(w), 1);

    /* Expected: R(t) = Rz(phase + rate t) * Rx(0.2). */
    double t = 1.7, th = 0.3 + 2.0 * t;
    tpBodyState bs;
    tpWorld_BodyState(w, NULL, t, 1, &bs);
    double m[9], rz[3][3] = {{cos(th), -sin(th), 0}, {sin(th), cos(th), 0}, {0, 0, 1}};
    double rx[3][3] = {{1, 0, 0}, {0, cos(0.2), -sin(0.2)}, {0, sin(0.2), cos(0.2)}};
    tpQuat_ToMatrix(bs.quat, m);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double e = 0;
            for (int k = 0; k < 3; k++)
                e += rz[i][k] * rx[k][j];
            assert_true(fabs(m[3 * i + j] - e) < 1e-12);
        }
    }
    assert_true(fabs(bs.angvel[2] - 2.0) < 1e-15 && bs.angvel[0] == 0.0 && bs.angvel[1] == 0.0);
    assert_true(bs.pos[0] == 0.0 && bs.pos[1] == 0.0 && bs.pos[2] == 0.1);

    /* The ball sits at 90 deg in the bar's sweep (bar starts at 0.3 rad, rate 2 rad/s): it
     * must be hit within about 0.7 s and leave its spot. */
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    bool touched = false;
    for (int i = 0; i < 120; i++) {
        tpWorld_Step(w, &x, i * s.def.dt, NULL, &x);
        for (int c = 0; c < tpWorld_ContactCount(w); c++)
            if (tpWorld_Contacts(w)[c].a == 1 && tpWorld_Contacts(w)[c].b == 2)
                touched = true;
    }
    assert_true(touched);
    double moved = hypot(x.pos[0] - 0.0, x.pos[1] - 0.7);
    assert_true(moved > 0.2);
    tpDestroyWorld(w);
}

static void test_kinematic_linear_oscillate(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    tpBodyDef *b = sceneAdd(&s, "lift", TP_BODY_FOREIGN, TP_SHAPE_BOX);
    b->pos[0] = 1, b->pos[1] = 2, b->pos[2] = 3;
    b->motion.kind = TP_MOTION_LINEAR;
    b->motion.vel[0] = 0.5;
    b = sceneAdd(&s, "swing", TP_BODY_FOREIGN, TP_SHAPE_SPHERE);
    b->size[0] = 0.2;
    b->motion.kind = TP_MOTION_OSCILLATE;
    b->motion.amplitude[1] = 2.0;
    b->motion.period = 4.0;
    tpWorld *w = mustCreate(&s);
    assert_int_equal(tpWorld_StateCount(w), 0);
    assert_int_equal(tpWorld_ControlCount(w), 0);
    tpBodyState bs;
    tpWorld_BodyState(w, NULL, 2.0, 0, &bs);
    assert_true(fabs(bs.pos[0] - 2.0) < 1e-15 && bs.vel[0] == 0.5 && bs.pos[2] == 3.0);
    tpWorld_BodyState(w, NULL, 1.0, 1, &bs); /* quarter period: full amplitude, zero speed */
    assert_true(fabs(bs.pos[1] - 2.0) < 1e-12 && fabs(bs.vel[1]) < 1e-12);
    tpDestroyWorld(w);
}

/* A host motion function: TP_MOTION_OSCILLATE's formula at p0 = (0, 0, 0.05), amplitude z 0.5,
 * period 2 (the same operations in the same order); fails from t = fail_at on. */
typedef struct FnMotion {
    double fail_at; /* s */
    int calls;
} FnMotion;

static bool fnOscillate(void *user, int id, double t, tpBodyState *out, char *err, size_t errlen)
{
    FnMotion *f = user;
    f->calls++;
    assert_int_equal(id, 7);
    if (t >= f->fail_at) {
        snprintf(err, errlen, "lift.lua:3: no pose after %g s", f->fail_at);
        return false;
    }
    const double omega = 2.0 * TP_PI / 2.0, s = sin(omega * t), c = cos(omega * t);
    out->pos[0] = 0.0 + 0.0 * s;
    out->pos[1] = 0.0 + 0.0 * s;
    out->pos[2] = 0.05 + 0.5 * s;
    out->quat[0] = 1.0;
    out->vel[0] = 0.0 * omega * c;
    out->vel[1] = 0.0 * omega * c;
    out->vel[2] = 0.5 * omega * c;
    return true;
}

/* A lift oscillating up and down with a crate resting on it; the lift's motion either built in
 * or a host function (user: FnMotion). */
static tpWorld *liftWorld(FnMotion *fn, char *err, size_t errlen)
{
    Scene s;
    sceneInit(&s);
    tpBodyDef *b = sceneAdd(&s, "lift", TP_BODY_FOREIGN, TP_SHAPE_BOX);
    b->size[0] = b->size[1] = 1, b->size[2] = 0.1;
    b->pos[2] = 0.05;
    if (fn) {
        b->motion.kind = TP_MOTION_FUNCTION;
        b->motion.fn = fnOscillate;
        b->motion.user = fn;
        b->motion.fn_id = 7;
        b->pos[2] = 99; /* replaced by the function's pose at t = 0 */
    } else {
        b->motion.kind = TP_MOTION_OSCILLATE;
        b->motion.amplitude[2] = 0.5;
        b->motion.period = 2.0;
    }
    b = sceneAdd(&s, "crate", TP_BODY_PASSIVE, TP_SHAPE_BOX);
    b->size[0] = b->size[1] = b->size[2] = 0.3;
    b->mass = 1;
    b->pos[2] = 0.25;
    return tpCreateWorld(&s.def, err, errlen);
}

/* A TP_MOTION_FUNCTION body computing what TP_MOTION_OSCILLATE computes gives the same chain of
 * Sim states bit for bit (the crate riding on it too); a failing function stops the steps with
 * its message, the body and the time; a failure at t = 0 refuses the world. */
static void test_kinematic_function(void **state)
{
    (void)state;
    char err[512] = "";
    FnMotion fm = {1e9, 0};
    tpWorld *a = liftWorld(NULL, err, sizeof err), *b = liftWorld(&fm, err, sizeof err);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(tpWorld_Body(b, 0)->pos[2] == 0.05);
    tpBodyState xa, xb, ka, kb;
    tpWorld_InitialState(a, &xa);
    tpWorld_InitialState(b, &xb);
    double t = 0, top = 0;
    for (int i = 0; i < 150; i++) {
        assert_true(tpWorld_Step(a, &xa, t, NULL, &xa));
        assert_true(tpWorld_Step(b, &xb, t, NULL, &xb));
        t += tpWorld_Def(a)->dt;
        assert_memory_equal(&xa, &xb, sizeof xa);
        tpWorld_BodyState(a, &xa, t, 0, &ka);
        tpWorld_BodyState(b, &xb, t, 0, &kb);
        assert_memory_equal(&ka, &kb, sizeof ka);
        top = fmax(top, xb.pos[2]);
    }
    assert_true(top > 0.7);              /* the crate rode up */
    assert_true(fabs(xb.pos[0]) < 1e-3); /* and stayed on */
    assert_string_equal(tpWorld_FatalError(b), "");
    assert_true(fm.calls > 150);

    fm.fail_at = t + 0.5 * tpWorld_Def(b)->dt; /* the next step's end */
    assert_false(tpWorld_Step(b, &xb, t, NULL, &xb));
    assert_non_null(strstr(tpWorld_FatalError(b), "lift.lua:3: no pose after"));
    assert_non_null(strstr(tpWorld_FatalError(b), "(body 'lift', t = "));
    tpWorld_BodyState(b, &xb, 0.0, 0, &kb); /* after an error: the initial pose, at rest */
    assert_true(kb.pos[2] == 0.05 && kb.vel[2] == 0.0);
    fm.fail_at = 1e9;
    assert_false(tpWorld_Step(b, &xb, 0.0, NULL, &xb)); /* the error stays */
    tpDestroyWorld(a);
    tpDestroyWorld(b);

    fm.fail_at = 0;
    assert_null(liftWorld(&fm, err, sizeof err));
    assert_string_equal(err, "lift.lua:3: no pose after 0 s (body 'lift', t = 0 s)");
}

/* Waypoints (an elevator): pauses, constant-velocity legs, pingpong and cycle, yaw; the
 * reported velocity is the derivative of the position (bodies resting on it ride along). */
static void test_kinematic_waypoints(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    tpBodyDef *b = sceneAdd(&s, "lift", TP_BODY_FOREIGN, TP_SHAPE_BOX);
    b->pos[0] = 1.0;
    tpMotionDef *m = &b->motion;
    m->kind = TP_MOTION_WAYPOINTS;
    m->npoints = 3;
    m->points[1][2] = 2.0; /* up 2 m in 4 s */
    m->points[2][2] = 2.0;
    m->points[2][0] = 1.0; /* then 1 m along x in 1 s, turning 1 rad */
    m->points[2][3] = 1.0;
    m->leg_time[0] = 4.0;
    m->leg_time[1] = 1.0;
    m->leg_time[2] = 2.0; /* cycle only: back to the start */
    m->pause = 0.5;
    m->loop = TP_LOOP_PINGPONG;
    b = sceneAdd(&s, "loop", TP_BODY_FOREIGN, TP_SHAPE_BOX);
    b->motion = s.bodies[0].motion;
    b->motion.loop = TP_LOOP_CYCLE;
    b = sceneAdd(&s, "once", TP_BODY_FOREIGN, TP_SHAPE_BOX);
    b->motion = s.bodies[0].motion;
    b->motion.loop = TP_LOOP_ONCE;
    tpWorld *w = mustCreate(&s);
    tpBodyState bs;
    tpWorld_BodyState(w, NULL, 0.25, 0, &bs); /* pausing at the start */
    assert_true(bs.pos[0] == 1.0 && bs.pos[2] == 0.0 && bs.vel[2] == 0.0);
    tpWorld_BodyState(w, NULL, 2.5, 0, &bs); /* half way up */
    assert_true(fabs(bs.pos[2] - 1.0) < 1e-12 && fabs(bs.vel[2] - 0.5) < 1e-15);
    tpWorld_BodyState(w, NULL, 4.75, 0, &bs); /* pausing at the top */
    assert_true(fabs(bs.pos[2] - 2.0) < 1e-12 && bs.vel[2] == 0.0);
    tpWorld_BodyState(w, NULL, 5.5, 0, &bs); /* half the second leg: x + 0.5, yaw 0.5, turning */
    assert_true(fabs(bs.pos[0] - 1.5) < 1e-12 && fabs(bs.vel[0] - 1.0) < 1e-12 && fabs(bs.angvel[2] - 1.0) < 1e-12);
    assert_true(fabs(bs.quat[0] - cos(0.25)) < 1e-12 && fabs(bs.quat[3] - sin(0.25)) < 1e-12);
    /* pingpong: 0.5+4 + 0.5+1 up, then 0.5+1 + 0.5+4 back = 12 s; at 7 s half way back along
     * the x leg */
    tpWorld_BodyState(w, NULL, 7.0, 0, &bs);
    assert_true(fabs(bs.pos[0] - 1.5) < 1e-12 && fabs(bs.vel[0] + 1.0) < 1e-12 && fabs(bs.angvel[2] + 1.0) < 1e-12);
    tpWorld_BodyState(w, NULL, 12.25, 0, &bs); /* the next period: pausing at the start */
    assert_true(fabs(bs.pos[2]) < 1e-12 && bs.vel[2] == 0.0);
    /* cycle: 8.5 s per period (the 2 s leg back); at 7.5 s half way back from (1, 0, 2), and
     * the same one period later */
    tpWorld_BodyState(w, NULL, 7.5, 1, &bs); /* this body starts at the origin */
    assert_true(fabs(bs.pos[0] - 0.5) < 1e-12 && fabs(bs.pos[2] - 1.0) < 1e-12 && fabs(bs.vel[2] + 1.0) < 1e-12);
    tpWorld_BodyState(w, NULL, 16.0, 1, &bs);
    assert_true(fabs(bs.pos[0] - 0.5) < 1e-12 && fabs(bs.pos[2] - 1.0) < 1e-12 && fabs(bs.vel[2] + 1.0) < 1e-12);
    /* once: stays at the last point */
    tpWorld_BodyState(w, NULL, 100.0, 2, &bs);
    assert_true(fabs(bs.pos[0] - 1.0) < 1e-12 && fabs(bs.pos[2] - 2.0) < 1e-12 && bs.vel[0] == 0.0);
    /* velocity is the derivative of the position everywhere inside a leg */
    for (double t = 0.6; t < 12.0; t += 0.37) {
        tpBodyState a, c;
        tpWorld_BodyState(w, NULL, t, 0, &bs);
        tpWorld_BodyState(w, NULL, t - 1e-6, 0, &a);
        tpWorld_BodyState(w, NULL, t + 1e-6, 0, &c);
        if (a.vel[0] != c.vel[0] || a.vel[2] != c.vel[2])
            continue; /* a stop or a corner inside the window */
        for (int k = 0; k < 3; k++)
            assert_true(fabs((c.pos[k] - a.pos[k]) / 2e-6 - bs.vel[k]) < 1e-6);
    }
    tpDestroyWorld(w);

    /* validation: a leg too short in time, one point */
    s.bodies[0].motion.leg_time[0] = 0.0;
    char err[256];
    assert_null(tpCreateWorld(&s.def, err, sizeof err));
    assert_non_null(strstr(err, "motion leg 0 takes 0 s"));
    s.bodies[0].motion.leg_time[0] = 4.0;
    s.bodies[0].motion.npoints = 1;
    assert_null(tpCreateWorld(&s.def, err, sizeof err));
    assert_non_null(strstr(err, "2..16 waypoints"));
}

/* ------------------------------------------------------------------------------------------ */

/* Drops a dead sphere (radius 0.1 m) from 1 m on a ground of the given material; returns the
 * highest centre height reached after the first impact. */
static double dropBounce(int ground_material)
{
    Scene s;
    sceneInit(&s);
    addGround(&s, ground_material);
    tpBodyDef *b = addSphere(&s, "ball", 0.1, 0, 0, 1.0);
    b->material = MAT_DEAD;
    tpWorld *w = mustCreate(&s);
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    bool hit = false;
    double top = 0.0;
    for (int i = 0; i < 120; i++) {
        tpWorld_Step(w, &x, i * s.def.dt, NULL, &x);
        if (tpWorld_ContactCount(w) > 0)
            hit = true;
        if (hit && x.pos[2] > top)
            top = x.pos[2];
    }
    assert_true(hit);
    tpDestroyWorld(w);
    return top;
}

static void test_restitution(void **state)
{
    (void)state;
    /* Impact at about 4.2 m/s; restitution max(0.8, 0) = 0.8 sends the centre back up by about
     * 0.6 m. A dead pair only recovers its penetration (the ERP push) and never leaves the floor. */
    assert_true(dropBounce(MAT_BOUNCY) > 0.4);
    assert_true(dropBounce(MAT_DEAD) < 0.1 + 0.002);
}

/* ------------------------------------------------------------------------------------------ */

static void test_action_clamp(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    s.def.gravity[2] = 0.0;
    tpBodyDef *b = sceneAdd(&s, "puck", TP_BODY_ACTIVE, TP_SHAPE_SPHERE);
    b->size[0] = 0.1;
    b->mass = 1.0;
    b->max_force = 10.0;
    b->max_torque = 2.0;
    b->planar_force = true;
    b = sceneAdd(&s, "free", TP_BODY_ACTIVE, TP_SHAPE_SPHERE);
    b->size[0] = 0.1;
    b->mass = 1.0;
    b->pos[0] = 5.0;
    tpWorld *w = mustCreate(&s);
    assert_int_equal(tpWorld_ControlCount(w), 2);
    assert_int_equal(tpWorld_ControlBody(w, 1), 1);

    double a[12] = {30, 40, 50, 1, 2, 3, 30, 40, 50, 1, 2, 3};
    double c[12];
    memcpy(c, a, sizeof c);
    tpWorld_ClampAction(w, c);
    const double want[12] = {6, 8, 0, 0, 0, 2, 30, 40, 50, 1, 2, 3};
    for (int i = 0; i < 12; i++)
        assert_true(fabs(c[i] - want[i]) < 1e-12);

    /* Step clamps too, and leaves the caller's action alone. */
    tpBodyState x[2];
    tpWorld_InitialState(w, x);
    double keep[12];
    memcpy(keep, a, sizeof keep);
    tpWorld_Step(w, x, 0.0, a, x);
    assert_memory_equal(a, keep, sizeof keep);
    double dt = s.def.dt;
    assert_true(fabs(x[0].vel[0] - 6.0 * dt) < 1e-12);
    assert_true(fabs(x[0].vel[1] - 8.0 * dt) < 1e-12);
    assert_true(x[0].vel[2] == 0.0);
    assert_true(fabs(x[1].vel[2] - 50.0 * dt) < 1e-12);
    tpDestroyWorld(w);
}

static void test_contact_reporting(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    addGround(&s, MAT_GROUND);
    tpBodyDef *b = sceneAdd(&s, "lower", TP_BODY_PASSIVE, TP_SHAPE_BOX);
    b->size[0] = b->size[1] = b->size[2] = 0.2;
    b->pos[2] = 0.0995;
    b = sceneAdd(&s, "upper", TP_BODY_PASSIVE, TP_SHAPE_BOX);
    b->size[0] = b->size[1] = b->size[2] = 0.2;
    b->pos[2] = 0.299;
    addSphere(&s, "faraway", 0.1, 3, 3, 2);
    tpWorld *w = mustCreate(&s);
    assert_int_equal(tpWorld_FindBody(w, "upper"), 2);
    assert_int_equal(tpWorld_FindBody(w, "nobody"), -1);
    tpBodyState x[3];
    tpWorld_InitialState(w, x);
    tpWorld_Step(w, x, 0.0, NULL, x);
    int n = tpWorld_ContactCount(w);
    const tpContactInfo *c = tpWorld_Contacts(w);
    assert_int_equal(n, 2);
    assert_int_equal(c[0].a, 0);
    assert_int_equal(c[0].b, 1);
    assert_int_equal(c[1].a, 1);
    assert_int_equal(c[1].b, 2);
    assert_true(c[1].depth >= 0.0 && fabs(c[1].pos[2] - 0.2) < 0.01);
    tpDestroyWorld(w);
}

static void test_static_never_collide(void **state)
{
    (void)state;
    Scene s;
    sceneInit(&s);
    addGround(&s, MAT_GROUND);
    tpBodyDef *b = sceneAdd(&s, "block", TP_BODY_STATIC, TP_SHAPE_BOX);
    b->pos[2] = 0.2;                                            /* overlaps the plane */
    b = sceneAdd(&s, "sweeper", TP_BODY_FOREIGN, TP_SHAPE_BOX); /* kinematic, overlaps both */
    b->pos[2] = 0.1;
    b->motion.kind = TP_MOTION_ROTATE;
    b->motion.rate = 1.0;
    addSphere(&s, "ball", 0.1, 5, 5, 3); /* falls freely, far away */
    tpWorld *w = mustCreate(&s);
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    for (int i = 0; i < 30; i++) {
        tpWorld_Step(w, &x, i * s.def.dt, NULL, &x);
        assert_int_equal(tpWorld_ContactCount(w), 0);
    }
    tpBodyState bs;
    tpWorld_BodyState(w, &x, 1.0, 1, &bs);
    assert_true(bs.pos[2] == 0.2 && bs.quat[0] == 1.0 && bs.vel[0] == 0.0);
    tpDestroyWorld(w);
}

/* ------------------------------------------------------------------------------------------ */

static void expectError(const Scene *s, const char *needle1, const char *needle2)
{
    char err[256] = "";
    tpWorld *w = tpCreateWorld(&s->def, err, sizeof err);
    if (w != NULL) {
        tpDestroyWorld(w);
        fail_msg("expected an error mentioning '%s'", needle1);
    }
    if (strstr(err, needle1) == NULL || (needle2 && strstr(err, needle2) == NULL))
        fail_msg("error '%s' does not mention '%s' / '%s'", err, needle1, needle2 ? needle2 : "");
}

static void validScene(Scene *s)
{
    sceneInit(s);
    addGround(s, MAT_GROUND);
    addSphere(s, "ball", 0.1, 0, 0, 1);
    tpBodyDef *r = sceneAdd(s, "robot", TP_BODY_ACTIVE, TP_SHAPE_BOX);
    r->pos[0] = 2;
}

static void test_validation(void **state)
{
    (void)state;
    Scene s;
    validScene(&s);
    tpWorld *w = mustCreate(&s); /* the base scene is valid */
    tpDestroyWorld(w);

    validScene(&s);
    s.bodies[1].mass = -1;
    expectError(&s, "\"ball\"", "mass must be > 0 (got -1)");

    validScene(&s);
    s.bodies[2].size[0] = 0;
    expectError(&s, "\"robot\"", "size[0] must be > 0");

    validScene(&s);
    s.bodies[1].size[0] = -0.5; /* sphere radius */
    expectError(&s, "\"ball\"", "size[0]");

    validScene(&s);
    tpStrCopy(s.bodies[2].name, TP_NAME_MAX, "ball");
    expectError(&s, "\"ball\"", "duplicate");

    validScene(&s);
    s.bodies[1].material = NMAT;
    expectError(&s, "\"ball\"", "material");

    validScene(&s);
    s.def.dt = 0;
    expectError(&s, "dt", NULL);

    validScene(&s);
    s.def.dt = -0.01;
    expectError(&s, "dt", NULL);

    validScene(&s);
    s.def.substeps = 0;
    expectError(&s, "substeps", "[1, 64] (got 0)");

    validScene(&s);
    s.bodies[0].cls = TP_BODY_PASSIVE;
    expectError(&s, "\"ground\"", "plane must be static");

    validScene(&s);
    s.bodies[0].plane[2] = 0;
    expectError(&s, "\"ground\"", "normal");

    validScene(&s);
    tpBodyDef *o = sceneAdd(&s, "pendulum", TP_BODY_FOREIGN, TP_SHAPE_SPHERE);
    o->motion.kind = TP_MOTION_OSCILLATE;
    o->motion.period = 0;
    expectError(&s, "\"pendulum\"", "period");

    validScene(&s);
    s.bodies[2].name[0] = '\0';
    expectError(&s, "body #2", "name");

    validScene(&s);
    s.mats[MAT_BOUNCY].restitution = 1.5;
    expectError(&s, "\"bouncy\"", "restitution");

    /* Kinematic and static bodies need no mass. */
    validScene(&s);
    s.bodies[0].mass = 0;
    o = sceneAdd(&s, "spinner", TP_BODY_FOREIGN, TP_SHAPE_BOX);
    o->motion.kind = TP_MOTION_ROTATE;
    o->mass = 0;
    w = mustCreate(&s);
    tpDestroyWorld(w);
}

static void test_defaults(void **state)
{
    (void)state;
    tpSceneDef d = tpDefaultSceneDef();
    assert_true(d.gravity[2] == -9.81 && d.dt == 1.0 / 60.0 && d.solver == TP_SOLVER_STEP);
    assert_true(d.quickstep_iters == 20 && d.erp == 0.2 && d.cfm == 1e-5 && d.max_contacts == 8);
    tpBodyDef b = tpDefaultBodyDef();
    assert_true(b.cls == TP_BODY_PASSIVE && b.shape == TP_SHAPE_BOX && b.size[0] == 1.0 && b.quat[0] == 1.0);
    assert_true(b.material == 0 && b.motion.kind == TP_MOTION_TACTIC && b.motion.axis[2] == 1.0);
    tpMaterialDef m = tpDefaultMaterialDef();
    assert_true(m.friction == 0.5 && m.restitution == 0.0 && m.rolling_friction == 0.0 && m.bounce_velocity == 0.01);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_purity_step),
        cmocka_unit_test(test_purity_quickstep),
        cmocka_unit_test(test_purity_substeps),
        cmocka_unit_test(test_substeps_no_tunnel),
        cmocka_unit_test(test_purity_hash_space),
        cmocka_unit_test(test_snapshot_round_trip),
        cmocka_unit_test(test_rolling_friction),
        cmocka_unit_test(test_isotropic_friction),
        cmocka_unit_test(test_marker_never_collides),
        cmocka_unit_test(test_kinematic_rotate),
        cmocka_unit_test(test_kinematic_linear_oscillate),
        cmocka_unit_test(test_restitution),
        cmocka_unit_test(test_action_clamp),
        cmocka_unit_test(test_contact_reporting),
        cmocka_unit_test(test_static_never_collide),
        cmocka_unit_test(test_kinematic_waypoints),
        cmocka_unit_test(test_kinematic_function),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
