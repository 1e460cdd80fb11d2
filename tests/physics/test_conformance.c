/* Physics conformance suite: named scenes, each run with both solvers
 * (TP_SOLVER_STEP = dWorldStep, TP_SOLVER_QUICKSTEP = dWorldQuickStep) through the public API
 * (tpCreateWorld / tpWorld_Step: the pure Sim the planner runs), each measuring one figure against
 * a closed-form or stated expectation. In the spirit of Box2D v3's solver benchmark scenes and
 * MuJoCo's conformance tests; the figures are published in docs/physics.md.
 *
 *   test_conformance                  every scene with both solvers
 *   test_conformance <name>           one case, e.g. stack10_step (ctest runs one case per entry)
 *   test_conformance --sleep [<name>] the same with sleeping on (tpWorld_StepRest), as the planner
 *                                     steps (ctest: conformance_sleep_<case>)
 *   test_conformance --bench [reps]   solver cost: CPU time per step of the domino chain, the stack
 *                                     and the pyramid with both solvers, and quickstep's iterations
 *                                     against the resting figures (not run by ctest; prints only)
 *
 * Every case prints its measured figures ("conformance <case>: ...") whether it passes or not, and
 * evaluates all of its checks before failing, so one run gives every figure. No check asserts a
 * timing. Penetration is read from the contact record (tpContactInfo.max_depth): the deepest
 * overlap of the poses each step starts from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/base.h"
#include "tp/physics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conformance.h"

/* ------------------------------------------------------------------------------------------ */
/* 1, 2. Resting stacks: a vertical stack of 10 boxes, a pyramid of 20                        */

#define STACK_N 10
#define STACK_SIZE 0.1 /* m, cube edge */
#define STACK_MASS 0.5 /* kg */
#define PYR_SIZE 0.1   /* m, cube edge; rows of 6, 5, 4, 3 and 2 boxes */
#define PYR_GAP 0.01   /* m between neighbours of a row */
#define PYR_MASS 0.5   /* kg */
#define REST_TIME 10.0 /* s */

/* Boxes `gap` m apart at t = 0 (negative: sunk into the floor and each other); the conformance
 * scene has them exactly touching (gap 0: centres at (i + 1/2) edge, as a script writes them). */
static void buildStack(Scene *s, tpSolverKind solver, double gap)
{
    sceneInit(s, solver);
    addFloor(s, NULL);
    for (int i = 0; i < STACK_N; i++) {
        char name[16];
        snprintf(name, sizeof name, "box%d", i);
        addBox(s, name, STACK_SIZE, STACK_SIZE, STACK_SIZE, STACK_MASS, 0, 0, (i + 0.5) * STACK_SIZE + (i + 1) * gap);
    }
}

/* A 2-D pyramid in the xz plane, 1 cm apart within a row, `gap` m apart vertically (negative:
 * sunk; 0 in the conformance scene: exactly touching); each box above row 0 stands on two below.
 * The last body is the top one. */
static void buildPyramid(Scene *s, tpSolverKind solver, double gap)
{
    sceneInit(s, solver);
    addFloor(s, NULL);
    for (int row = 0; row < 5; row++) {
        int count = 6 - row;
        double x0 = -0.5 * (count - 1) * (PYR_SIZE + PYR_GAP);
        for (int k = 0; k < count; k++) {
            char name[16];
            snprintf(name, sizeof name, "p%d_%d", row, k);
            addBox(s, name, PYR_SIZE, PYR_SIZE, PYR_SIZE, PYR_MASS, x0 + k * (PYR_SIZE + PYR_GAP), 0,
                   (row + 0.5) * PYR_SIZE + (row + 1) * gap);
        }
    }
}

typedef struct Rest {
    double drift_xy;  /* m: largest horizontal displacement of any box from its initial position */
    double top_move;  /* m: the top box's largest 3-D displacement from its initial pose */
    double top_drift; /* m: the top box's largest 3-D displacement from its pose at t = 1 s */
    double top_sink;  /* m: the top box's largest drop below its initial height */
    double max_speed; /* m/s: fastest body speed in the last second */
    Depth depth;
    bool in_range;
} Rest;

/* Rests the scene (the last body is the top one) for `seconds`. */
static Rest restScene(const Scene *s, double seconds)
{
    Rest r;
    memset(&r, 0, sizeof r);
    r.in_range = true;
    tpWorld *w = mustCreate(s);
    const int n = tpWorld_StateCount(w), top = n - 1;
    tpBodyState x[MAX_BODIES], init[MAX_BODIES], settled;
    tpWorld_InitialState(w, x);
    memcpy(init, x, (size_t)n * sizeof *x);
    settled = x[top];
    const double dt = s->def.dt;
    const int steps = (int)lround(seconds / dt), settle = (int)lround(1.0 / dt);
    for (int i = 0; i < steps; i++) {
        r.in_range = simStep(w, x, i, &r.depth) && r.in_range;
        if (i + 1 == settle)
            settled = x[top];
        for (int k = 0; k < n; k++) {
            r.drift_xy = fmax(r.drift_xy, hypot(x[k].pos[0] - init[k].pos[0], x[k].pos[1] - init[k].pos[1]));
            const double *v = x[k].vel;
            if (i + 1 > steps - settle)
                r.max_speed = fmax(r.max_speed, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        }
        const double *p = x[top].pos;
        r.top_sink = fmax(r.top_sink, init[top].pos[2] - p[2]);
        r.top_move = fmax(r.top_move, sqrt(pow(p[0] - init[top].pos[0], 2) + pow(p[1] - init[top].pos[1], 2) +
                                           pow(p[2] - init[top].pos[2], 2)));
        if (i + 1 >= settle)
            r.top_drift = fmax(r.top_drift, sqrt(pow(p[0] - settled.pos[0], 2) + pow(p[1] - settled.pos[1], 2) +
                                                 pow(p[2] - settled.pos[2], 2)));
    }
    tpDestroyWorld(w);
    return r;
}

/* The resting standard: no box drifts sideways more than 1 mm from where it started (the stack
 * neither leans nor slides); after the first second, in which the boxes settle into the 1 mm
 * contact surface layers, the top box moves less than 1 mm (no creep, no sinking); no overlap
 * deeper than 5 mm at any step. */
static void restChecks(const Scene *s, Checks *c)
{
    Rest r = restScene(s, REST_TIME);
    check(c, r.in_range, "states stay in range");
    check(c, r.drift_xy <= 0.001, "largest horizontal drift of a box %.3f mm (<= 1 mm)", 1e3 * r.drift_xy);
    check(c, r.top_drift <= 0.001, "top box drift from t = 1 s to %.0f s %.3f mm (<= 1 mm)", REST_TIME,
          1e3 * r.top_drift);
    check(c, r.depth.worst <= MAX_DEPTH, "deepest overlap %.3f mm at step %d, bodies %d-%d (<= 5 mm)",
          1e3 * r.depth.worst, r.depth.step, r.depth.a, r.depth.b);
    printf("conformance %s: top box moved %.3f mm from its initial pose (sank %.3f mm); speed in the last second "
           "<= %.2g m/s\n",
           c->name, 1e3 * r.top_move, 1e3 * r.top_sink, r.max_speed);
}

static void stack10(tpSolverKind solver, Checks *c)
{
    Scene s;
    buildStack(&s, solver, 0.0);
    restChecks(&s, c);
}

static void pyramid20(tpSolverKind solver, Checks *c)
{
    Scene s;
    buildPyramid(&s, solver, 0.0);
    restChecks(&s, c);
}

/* ------------------------------------------------------------------------------------------ */
/* 3. A box sliding to rest                                                                    */

#define SLIDE_V0 5.0 /* m/s */
#define SLIDE_MU 0.5 /* the default materials' pair friction */

/* Slides a 1 kg, 0.1 m cube at v0 along +x with `substeps` ODE steps per dt; returns where it
 * stops (m, -1 if it never does) and the time it takes (s). */
static double slideStop(tpSolverKind solver, int substeps, double *stop_t, bool *ok, Depth *d)
{
    Scene s;
    sceneInit(&s, solver);
    s.def.substeps = substeps;
    addFloor(&s, NULL);
    tpBodyDef *b = addBox(&s, "box", 0.1, 0.1, 0.1, 1.0, 0, 0, 0.05);
    b->vel[0] = SLIDE_V0;
    tpWorld *w = mustCreate(&s);
    assert_true(fabs(tpWorld_PairSurface(w, 0, 1).friction - SLIDE_MU) < 1e-12);
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    double stop = -1.0;
    *stop_t = -1.0;
    *ok = true;
    for (int i = 0; i < 120 && stop < 0.0; i++) {
        *ok = simStep(w, &x, i, d) && *ok;
        if (fabs(x.vel[0]) < 1e-3) {
            stop = x.pos[0];
            *stop_t = (i + 1) * s.def.dt;
        }
    }
    tpDestroyWorld(w);
    return stop;
}

/* Continuous time: d = v0² / (2 μ g). The semi-implicit Euler step of ODE brakes by μ g h per step
 * of h s and moves with the new velocity, which stops it exactly v0 h / 2 short (a relative error
 * of μ g h / v0): 1.63 % for v0 = 5 m/s at h = 1/60 s. The check therefore runs the scene with 4
 * substeps (h = 1/240 s: 0.41 %), and the friction itself is checked against the discrete answer
 * v0² / (2 μ g) - v0 h / 2 to 0.1 %; the default scene's figure is printed. */
static void slide(tpSolverKind solver, Checks *c)
{
    const double expect = SLIDE_V0 * SLIDE_V0 / (2.0 * SLIDE_MU * G);
    double t4, t1;
    bool ok4, ok1;
    Depth d = {0};
    double stop4 = slideStop(solver, 4, &t4, &ok4, &d);
    double stop1 = slideStop(solver, 1, &t1, &ok1, &d);
    const double h4 = 1.0 / 240.0, h1 = 1.0 / 60.0; /* s */
    const double discrete4 = expect - 0.5 * SLIDE_V0 * h4;
    check(c, ok4 && ok1, "states stay in range");
    check(c, stop4 > 0.0 && fabs(stop4 - expect) <= 0.01 * expect,
          "stopping distance %.4f m after %.3f s (4 substeps), v0^2/(2 mu g) = %.4f m: %+.2f %% (within +-1 %%)", stop4,
          t4, expect, 100.0 * (stop4 - expect) / expect);
    check(c, stop4 > 0.0 && fabs(stop4 - discrete4) <= 0.001 * discrete4,
          "against the integrator's v0^2/(2 mu g) - v0 h/2 = %.4f m: %+.3f %% (within +-0.1 %%)", discrete4,
          100.0 * (stop4 - discrete4) / discrete4);
    printf("conformance %s: default scene (h = 1/60 s): %.4f m after %.3f s, %+.2f %% (v0 h/2 predicts %+.2f %%); "
           "deepest overlap %.3f mm\n",
           c->name, stop1, t1, 100.0 * (stop1 - expect) / expect, -100.0 * 0.5 * SLIDE_V0 * h1 / expect, 1e3 * d.worst);
}

/* ------------------------------------------------------------------------------------------ */
/* 4. A ball dropped on a plane rebounds to e² h                                               */

#define DROP_H 1.0  /* m: height of the ball's bottom above the floor at release */
#define DROP_R 0.05 /* m */

/* Drops the ball from bottom height h (m) with `substeps` ODE steps per dt; returns the apex of
 * its bottom after the first bounce (m, -1 if none), and the speeds before and after the bounce
 * (m/s, at the steps that saw the contact start and end). */
static double dropOnce(tpSolverKind solver, int substeps, double h, double *vin, double *vout, bool *ok, Depth *d)
{
    Scene s;
    sceneInit(&s, solver);
    s.def.substeps = substeps;
    addFloor(&s, NULL);
    tpBodyDef *b = sceneAdd(&s, "ball", TP_BODY_PASSIVE, TP_SHAPE_SPHERE);
    b->size[0] = DROP_R;
    b->mass = 0.1;
    b->pos[2] = h + DROP_R;
    b->material = MAT_BOUNCY;
    tpWorld *w = mustCreate(&s);
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    int phase = 0; /* 0 falling, 1 in contact, 2 flying up after the first bounce, 3 past the apex */
    double apex = -1.0;
    *ok = true;
    for (int i = 0; i < 180 && phase < 3; i++) {
        double vz = x.vel[2];
        *ok = simStep(w, &x, i, d) && *ok;
        bool touching = tpWorld_ContactCount(w) > 0;
        if (phase == 0 && touching) {
            phase = 1;
            *vin = -vz;
        }
        if (phase == 1 && !touching) {
            phase = 2;
            *vout = x.vel[2];
        }
        if (phase == 2 && x.pos[2] - DROP_R > apex)
            apex = x.pos[2] - DROP_R;
        if (phase == 2 && x.vel[2] < 0.0)
            phase = 3;
    }
    tpDestroyWorld(w);
    return phase == 3 ? apex : -1.0;
}

#define DROP_PHASES 8

/* Worst relative rebound error over DROP_PHASES release heights spread over one dt's travel at
 * impact (h + k/8 sqrt(2 g h) dt): where the impact falls between two steps decides how deep the
 * ball is when its contact is first seen, and the speed it is seen with. */
static double bounceWorst(tpSolverKind solver, int substeps, Checks *c, bool *ok, Depth *d)
{
    const double v = sqrt(2.0 * G * DROP_H), dt = 1.0 / 60.0;
    double worst = 0.0;
    *ok = true;
    for (int k = 0; k < DROP_PHASES; k++) {
        double h = DROP_H + (double)k / DROP_PHASES * v * dt, vi = 0.0, vo = 0.0;
        bool okk;
        double apex = dropOnce(solver, substeps, h, &vi, &vo, &okk, d);
        *ok = *ok && okk;
        double err = apex < 0.0 ? 1.0 : (apex - BOUNCE_E * BOUNCE_E * h) / (BOUNCE_E * BOUNCE_E * h);
        printf("conformance %s: %d substep(s), h = %.4f m: rebound %.4f m (e^2 h = %.4f): %+.2f %%; %.3f m/s in, "
               "%.3f out\n",
               c->name, substeps, h, apex, BOUNCE_E * BOUNCE_E * h, 100.0 * err, vi, vo);
        if (fabs(err) > fabs(worst))
            worst = err;
    }
    return worst;
}

/* Restitution e = 0.8 (the pair's max(e1, e2)), rebound apex against e² h. Checked with 8
 * substeps (h = 1/480 s). The contact itself is exact in time: a speculative contact cuts the
 * substep at the impact and the ball leaves the surface with e times its impact speed. What is
 * left is semi-implicit Euler's error over the flight, which depends on where the release height
 * puts the impact between two steps: measured -0.47 .. -0.33 % at 1/480 s, -2.6 .. -0.3 % at
 * 1/240 s and -6.8 .. -3.5 % at the default 1/60 s (printed). docs/physics.md has the table. */
static void bounce(tpSolverKind solver, Checks *c)
{
    bool ok4, ok1;
    Depth d4 = {0}, d1 = {0};
    double worst4 = bounceWorst(solver, 8, c, &ok4, &d4);
    double worst1 = bounceWorst(solver, 1, c, &ok1, &d1);
    check(c, ok4 && ok1, "states stay in range");
    check(c, fabs(worst4) <= 0.02, "8 substeps: worst rebound error %+.2f %% of e^2 h over %d release heights (+-2 %%)",
          100.0 * worst4, DROP_PHASES);
    printf("conformance %s: default scene (h = 1/60 s): worst rebound error %+.2f %%; deepest overlap %.2f mm (8 "
           "substeps: %.2f mm)\n",
           c->name, 100.0 * worst1, 1e3 * d1.worst, 1e3 * d4.worst);
}

/* ------------------------------------------------------------------------------------------ */
/* 5. A fast sphere against a thin static wall                                                 */

#define WALL_T 0.02   /* m: wall thickness (x) */
#define TUNNEL_V 50.0 /* m/s */
#define TUNNEL_R 0.02 /* m */

static void tunnel(tpSolverKind solver, Checks *c)
{
    Scene s;
    sceneInit(&s, solver);
    s.def.gravity[2] = 0.0; /* a straight flight: the wall is the only thing it meets */
    tpBodyDef *wall = sceneAdd(&s, "wall", TP_BODY_STATIC, TP_SHAPE_BOX);
    wall->size[0] = WALL_T, wall->size[1] = 1.0, wall->size[2] = 1.0; /* near face at x = -0.01 */
    tpBodyDef *b = sceneAdd(&s, "ball", TP_BODY_PASSIVE, TP_SHAPE_SPHERE);
    b->size[0] = TUNNEL_R;
    b->mass = 0.05;
    b->pos[0] = -1.0;
    b->vel[0] = TUNNEL_V;
    tpWorld *w = mustCreate(&s);
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    Depth d = {0};
    bool ok = true, touched = false;
    double furthest = x.pos[0];
    for (int i = 0; i < 30; i++) {
        ok = simStep(w, &x, i, &d) && ok;
        touched = touched || tpWorld_ContactCount(w) > 0;
        furthest = fmax(furthest, x.pos[0]);
    }
    tpDestroyWorld(w);
    const double face = -0.5 * WALL_T; /* m: the wall's near face */
    check(c, ok, "states stay in range");
    check(c, touched, "the wall's contact was generated");
    check(c, x.pos[0] + TUNNEL_R <= face + MAX_DEPTH && furthest < 0.0,
          "ball ends at x = %.4f m (its front %.4f m, near face at %.3f m), furthest centre x %.4f m: near side",
          x.pos[0], x.pos[0] + TUNNEL_R, face, furthest);
    printf("conformance %s: final vx %.3f m/s, deepest overlap %.2f mm\n", c->name, x.vel[0], 1e3 * d.worst);
}

/* ------------------------------------------------------------------------------------------ */
/* 6. A row of dominoes                                                                        */

#define DOM_N 20
#define DOM_T 0.01     /* m: thickness (x) */
#define DOM_W 0.05     /* m: width (y) */
#define DOM_H 0.1      /* m: height (z) */
#define DOM_SPACE 0.05 /* m between centres */
#define DOM_MASS 0.02  /* kg */
#define DOM_TIP 0.2    /* rad: initial tilt of the first one about its front bottom edge */
#define DOM_FALLEN 0.3 /* rad: tilt by which a domino counts as hit and falling */

/* The row along +x; the first is tilted forward about its front bottom edge (still touching the
 * floor there), past its balance angle atan(T / H) = 0.0997 rad. */
/* Quickstep's iterations for the chain: at the default 20 (and 40) projected Gauss-Seidel cannot
 * hold a standing domino still -- its friction rows' residuals rock it past its balance angle and it
 * topples by itself (test_contact_truth's `standing` scene, in the build before the contact audit too), so
 * whether the wave reaches the end was luck; from 80 the standing ones stand (max tilt 0.04 rad)
 * and the figures below stop changing. */
#define DOM_QUICKSTEP_ITERS 80

static void buildDominoes(Scene *s, tpSolverKind solver, int n)
{
    sceneInit(s, solver);
    if (solver == TP_SOLVER_QUICKSTEP)
        s->def.quickstep_iters = DOM_QUICKSTEP_ITERS;
    addFloor(s, NULL);
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "d%d", i);
        tpBodyDef *b = addBox(s, name, DOM_T, DOM_W, DOM_H, DOM_MASS, i * DOM_SPACE, 0, 0.5 * DOM_H);
        if (i == 0) {
            const double a = DOM_TIP; /* rotation about +y tips the top toward +x */
            b->quat[0] = cos(0.5 * a), b->quat[2] = sin(0.5 * a);
            /* centre = pivot + R_y(a) (-T/2, 0, H/2), pivot = (T/2, 0, 0) */
            b->pos[0] = 0.5 * DOM_T + cos(a) * (-0.5 * DOM_T) + sin(a) * 0.5 * DOM_H;
            b->pos[2] = sin(a) * 0.5 * DOM_T + cos(a) * 0.5 * DOM_H;
        }
    }
}

typedef struct Dominoes {
    double fell_at[DOM_N]; /* s: when each first tilted past DOM_FALLEN, -1 never */
    double last_tilt;      /* rad: the last domino's tilt at the end */
    double seconds;        /* simulated */
    Depth depth;
    bool ok;
} Dominoes;

static Dominoes runDominoes(tpSolverKind solver)
{
    Dominoes r;
    memset(&r, 0, sizeof r);
    Scene s;
    buildDominoes(&s, solver, DOM_N);
    tpWorld *w = mustCreate(&s);
    tpBodyState x[DOM_N];
    tpWorld_InitialState(w, x);
    r.ok = true;
    for (int k = 0; k < DOM_N; k++)
        r.fell_at[k] = -1.0;
    const int steps = 150; /* 2.5 s: the wave takes about 1.2 s, the last one lies flat by 1.5 s */
    for (int i = 0; i < steps; i++) {
        r.ok = simStep(w, x, i, &r.depth) && r.ok;
        for (int k = 0; k < DOM_N; k++)
            if (r.fell_at[k] < 0.0 && tiltOf(&x[k]) > DOM_FALLEN)
                r.fell_at[k] = (i + 1) * s.def.dt;
    }
    tpDestroyWorld(w);
    r.last_tilt = tiltOf(&x[DOM_N - 1]);
    r.seconds = steps * s.def.dt;
    return r;
}

/* The last one falls: every domino tilts past DOM_FALLEN in row order (the wave runs through the
 * whole row), and the last, with nothing in front of it, ends lying on the floor (tilt > 1.4 rad,
 * flat is pi/2). */
static void dominoes(tpSolverKind solver, Checks *c)
{
    Dominoes r = runDominoes(solver);
    bool in_order = true;
    for (int k = 1; k < DOM_N; k++)
        in_order = in_order && r.fell_at[k] > 0.0 && r.fell_at[k] >= r.fell_at[k - 1];
    check(c, r.ok, "states stay in range");
    check(c, in_order, "every domino tilts past %.1f rad, in row order (first at %.3f s, last at %.3f s)", DOM_FALLEN,
          r.fell_at[0], r.fell_at[DOM_N - 1]);
    check(c, r.last_tilt > 1.4, "the last one lies on the floor: tilt %.3f rad (> 1.4) at %.1f s", r.last_tilt,
          r.seconds);
    const double span = r.fell_at[DOM_N - 1] - r.fell_at[0];
    printf("conformance %s: wave speed %.3f m/s\n", c->name, span > 0.0 ? (DOM_N - 1) * DOM_SPACE / span : 0.0);
}

/* The same chain against the impact-penetration standard: dominoes strike each other and the last
 * one slaps the floor at about 1 m/s. */
static void dominoesDepth(tpSolverKind solver, Checks *c)
{
    Dominoes r = runDominoes(solver);
    check(c, r.depth.worst <= MAX_DEPTH, "deepest overlap %.3f mm at step %d, bodies %d-%d (<= 5 mm)",
          1e3 * r.depth.worst, r.depth.step, r.depth.a, r.depth.b);
}

/* ------------------------------------------------------------------------------------------ */
/* 7. A ball rolling down a slope                                                              */

#define SLOPE 0.2618 /* rad (15°) */
#define ROLL_R 0.05  /* m */

/* Acceleration along the slope (m/s²), from the velocity between t = 0.5 s and 1.5 s. */
static double rollDown(tpSolverKind solver, int material, double *slip, double *depth)
{
    Scene s;
    sceneInit(&s, solver);
    const double n[3] = {-sin(SLOPE), 0.0, cos(SLOPE)}; /* downhill is -x */
    addFloor(&s, n);
    s.bodies[0].material = material;
    tpBodyDef *b = sceneAdd(&s, "ball", TP_BODY_PASSIVE, TP_SHAPE_SPHERE);
    b->size[0] = ROLL_R;
    b->mass = 0.1;
    for (int k = 0; k < 3; k++)
        b->pos[k] = ROLL_R * n[k];
    b->material = material;
    tpWorld *w = mustCreate(&s);
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    Depth d = {0};
    const double u[3] = {-cos(SLOPE), 0.0, -sin(SLOPE)}; /* unit vector downhill */
    double v1 = 0.0, v2 = 0.0;
    *slip = 0.0;
    for (int i = 0; i < 90; i++) {
        simStep(w, &x, i, &d);
        double v = x.vel[0] * u[0] + x.vel[1] * u[1] + x.vel[2] * u[2];
        if (i + 1 == 30)
            v1 = v;
        if (i + 1 == 90)
            v2 = v;
        /* contact point velocity v + ω × (-r n): zero when rolling without slipping */
        const double *om = x.angvel;
        double rn[3] = {-ROLL_R * n[0], -ROLL_R * n[1], -ROLL_R * n[2]};
        double cp[3] = {x.vel[0] + om[1] * rn[2] - om[2] * rn[1], x.vel[1] + om[2] * rn[0] - om[0] * rn[2],
                        x.vel[2] + om[0] * rn[1] - om[1] * rn[0]};
        if (i + 1 >= 30)
            *slip = fmax(*slip, sqrt(cp[0] * cp[0] + cp[1] * cp[1] + cp[2] * cp[2]));
    }
    tpDestroyWorld(w);
    *depth = d.worst;
    return (v2 - v1) / (60 * s.def.dt);
}

static void roll(tpSolverKind solver, Checks *c)
{
    double slip, depth;
    double a = rollDown(solver, MAT_DEFAULT, &slip, &depth);
    const double expect = 5.0 / 7.0 * G * sin(SLOPE);
    check(c, fabs(a - expect) <= 0.01 * expect, "acceleration %.4f m/s^2, (5/7) g sin(theta) = %.4f: %+.2f %% (+-1 %%)",
          a, expect, 100.0 * (a - expect) / expect);
    check(c, slip <= 1e-3, "contact point slip speed %.2g m/s (rolls without slipping, <= 1 mm/s)", slip);
    printf("conformance %s: deepest overlap %.3f mm\n", c->name, 1e3 * depth);
}

/* With rolling friction rho (m): the resistance torque rho N about the contact gives
 * a = (5/7) g (sin(theta) - (rho / r) cos(theta)). */
static void rollRho(tpSolverKind solver, Checks *c)
{
    double slip, depth;
    double a = rollDown(solver, MAT_ROLLING, &slip, &depth);
    const double expect = 5.0 / 7.0 * G * (sin(SLOPE) - ROLL_RHO / ROLL_R * cos(SLOPE));
    check(c, fabs(a - expect) <= 0.01 * expect,
          "acceleration %.4f m/s^2, (5/7) g (sin - rho/r cos) = %.4f: %+.2f %% (+-1 %%)", a, expect,
          100.0 * (a - expect) / expect);
    check(c, slip <= 1e-3, "contact point slip speed %.2g m/s (<= 1 mm/s)", slip);
    printf("conformance %s: deepest overlap %.3f mm\n", c->name, 1e3 * depth);
}

/* ------------------------------------------------------------------------------------------ */
/* 8. Two boxes stacked exactly touching stay at rest                                          */

static void stack2(tpSolverKind solver, Checks *c)
{
    Scene s;
    sceneInit(&s, solver);
    addFloor(&s, NULL);
    /* the centres as a script computes them (the bits matter: the literal 0.1125 differs from
     * 1.5 * 0.075 in the last bit, and only the latter sets off the degenerate pivot) */
    const double h = 0.075; /* m */
    addBox(&s, "b1", 0.15, 0.15, h, 0.4, 0, 0, h / 2);
    addBox(&s, "b2", 0.15, 0.15, h, 0.4, 0, 0, 1.5 * h);
    tpWorld *w = mustCreate(&s);
    tpBodyState x[2], x0[2];
    tpWorld_InitialState(w, x);
    memcpy(x0, x, sizeof x);
    Depth d = {0};
    bool ok = true;
    double moved = 0.0, speed = 0.0, late = 0.0; /* m, m/s, m/s: largest over the run, over its second second */
    int moved_step = -1;
    for (int i = 0; i < 120; i++) {
        ok = simStep(w, x, i, &d) && ok;
        for (int k = 0; k < 2; k++) {
            double dx = x[k].pos[0] - x0[k].pos[0], dy = x[k].pos[1] - x0[k].pos[1], dz = x[k].pos[2] - x0[k].pos[2];
            double m = sqrt(dx * dx + dy * dy + dz * dz);
            if (m > moved) {
                moved = m;
                moved_step = i;
            }
            double v = sqrt(x[k].vel[0] * x[k].vel[0] + x[k].vel[1] * x[k].vel[1] + x[k].vel[2] * x[k].vel[2]);
            speed = fmax(speed, v);
            if (i >= 60)
                late = fmax(late, v);
        }
    }
    tpDestroyWorld(w);
    check(c, ok, "states stay in range");
    check(c, d.worst <= MAX_DEPTH, "deepest overlap %.3f mm at step %d, bodies %d-%d (<= 5 mm)", 1e3 * d.worst, d.step,
          d.a, d.b);
    check(c, moved <= 0.003, "largest displacement %.3f mm at step %d (<= 3 mm: two 1 mm surface layers + 1 mm)",
          1e3 * moved, moved_step);
    check(c, late <= 0.01, "fastest speed from 1 s to 2 s %.4f m/s (<= 0.01: at rest)", late);
    printf("conformance %s: fastest speed of the run %.4f m/s\n", c->name, speed);
}

/* ------------------------------------------------------------------------------------------ */
/* 9. Penetration on impact                                                                    */

/* Drops a box of extents (sx, sy, sz) m and mass kg, flat, at vz0 m/s from bottom height h m;
 * returns the deepest overlap over 1 s, worst of 4 release heights spread over one step's
 * travel at impact (the phase of the impact against the step grid decides the first overlap). */
static double impactDepth(tpSolverKind solver, double sx, double sy, double sz, double mass, double h, double vz0,
                          double *vimpact)
{
    double worst = 0.0;
    const double v = sqrt(vz0 * vz0 + 2.0 * G * h); /* m/s at the floor */
    *vimpact = v;
    for (int p = 0; p < 4; p++) {
        Scene s;
        sceneInit(&s, solver);
        addFloor(&s, NULL);
        double hp = h + 0.25 * p * v * s.def.dt;
        tpBodyDef *b = addBox(&s, "box", sx, sy, sz, mass, 0, 0, 0.5 * sz + hp);
        b->vel[2] = -sqrt(fmax(0.0, v * v - 2.0 * G * hp)); /* same impact speed */
        tpWorld *w = mustCreate(&s);
        tpBodyState x;
        tpWorld_InitialState(w, &x);
        Depth d = {0};
        for (int i = 0; i < 60; i++)
            simStep(w, &x, i, &d);
        tpDestroyWorld(w);
        worst = fmax(worst, d.worst);
    }
    return worst;
}

static void impactBox(tpSolverKind solver, Checks *c)
{
    double v;
    double depth = impactDepth(solver, 0.15, 0.15, 0.075, 0.4, 0.5, -2.0, &v);
    check(c, depth <= MAX_DEPTH, "0.4 kg box landing at %.2f m/s: deepest overlap %.2f mm (<= 5 mm)", v, 1e3 * depth);
}

static void impactDie(tpSolverKind solver, Checks *c)
{
    double v;
    double depth = impactDepth(solver, 0.1, 0.1, 0.1, 0.15, 0.1, -sqrt(100.0 - 2.0 * G * 0.1), &v);
    check(c, depth <= MAX_DEPTH, "0.15 kg die landing at %.2f m/s: deepest overlap %.2f mm (<= 5 mm)", v, 1e3 * depth);
}

/* ------------------------------------------------------------------------------------------ */
/* 10, 11. Mesh bodies: a mesh die against a box die; a ball rolling in a mesh bowl            */

/* A cube of edge e as a closed triangle mesh centred on the origin (outward, counter-clockwise). */
static const int32_t cube_tris[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                      1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
static double cube_verts[24];

static tpMeshView cubeMesh(double e)
{
    for (int i = 0; i < 8; i++) {
        cube_verts[3 * i] = ((i == 1 || i == 2 || i == 5 || i == 6) ? 0.5 : -0.5) * e;
        cube_verts[3 * i + 1] = ((i == 2 || i == 3 || i == 6 || i == 7) ? 0.5 : -0.5) * e;
        cube_verts[3 * i + 2] = (i >= 4 ? 0.5 : -0.5) * e;
    }
    tpMeshView m = {8, cube_verts, 12, cube_tris};
    return m;
}

#define DIE_EDGE 0.1  /* m */
#define DIE_MASS 0.15 /* kg */

/* One die, as a box or as a mesh, dropped from height h (bottom) with a tilt and a spin. */
static void addDie(Scene *s, const char *name, bool mesh, double x, double y, double h, double tilt, double spin)
{
    tpBodyDef *b = addBox(s, name, DIE_EDGE, DIE_EDGE, DIE_EDGE, DIE_MASS, x, y, 0.5 * DIE_EDGE + h);
    if (mesh) {
        b->shape = TP_SHAPE_MESH;
        b->mesh = cubeMesh(DIE_EDGE);
    }
    b->quat[0] = cos(0.5 * tilt), b->quat[1] = sin(0.5 * tilt) * 0.6, b->quat[2] = sin(0.5 * tilt) * 0.8;
    b->angvel[0] = spin, b->angvel[2] = 0.5 * spin;
}

typedef struct DieRun {
    tpBodyState end; /* after 3 s */
    double depth;    /* m: deepest overlap */
    double tilt;     /* rad: tilt of the end pose from the nearest face-down pose */
} DieRun;

/* Angle (rad) between the die's nearest local axis (+-x, +-y, +-z) and world z: 0 = a face down. */
static double faceTilt(const tpBodyState *st)
{
    const double *q = st->quat;
    const double zw[3] = {2 * (q[1] * q[3] - q[0] * q[2]), 2 * (q[2] * q[3] + q[0] * q[1]),
                          1 - 2 * (q[1] * q[1] + q[2] * q[2])}; /* world z in the body frame: R^T e_z */
    double m = fmax(fabs(zw[0]), fmax(fabs(zw[1]), fabs(zw[2])));
    return acos(m > 1 ? 1 : m);
}

static DieRun dieRun(tpSolverKind solver, bool mesh, double h, double tilt, double spin, double vx)
{
    Scene s;
    sceneInit(&s, solver);
    addFloor(&s, NULL);
    addDie(&s, "die", mesh, 0, 0, h, tilt, spin);
    s.bodies[1].vel[0] = vx;
    tpWorld *w = mustCreate(&s);
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    Depth d = {0};
    for (int i = 0; i < 180; i++)
        simStep(w, &x, i, &d);
    tpDestroyWorld(w);
    DieRun r = {x, d.worst, faceTilt(&x)};
    return r;
}

/* A mesh die behaves like a box die: the same mass and inertia (volume integration), resting on
 * a face at the same height, the same stopping distance when slid flat, and no deeper landing. */
static void meshDie(tpSolverKind solver, Checks *c)
{
    /* slid flat at 2 m/s: mu g decelerates both alike */
    DieRun box = dieRun(solver, false, 0.0, 0.0, 0.0, 2.0), msh = dieRun(solver, true, 0.0, 0.0, 0.0, 2.0);
    double dbox = box.end.pos[0], dmsh = msh.end.pos[0];
    check(c, fabs(dmsh - dbox) <= 0.01 * dbox, "slid at 2 m/s: mesh die stops at %.4f m, box die at %.4f m (1 %%)",
          dmsh, dbox);
    check(c, fabs(msh.end.pos[2] - box.end.pos[2]) <= 1e-4, "resting height: mesh %.5f m, box %.5f m (within 0.1 mm)",
          msh.end.pos[2], box.end.pos[2]);
    /* dropped from 0.5 m tilted and spinning: both come to rest on a face, as deep as a box die */
    double worst_tilt = 0, worst_z = 0, worst_depth = 0, worst_box_depth = 0;
    for (int k = 0; k < 4; k++) {
        DieRun b = dieRun(solver, false, 0.5, 0.3 + 0.4 * k, 3.0 * k, 0.0);
        DieRun m = dieRun(solver, true, 0.5, 0.3 + 0.4 * k, 3.0 * k, 0.0);
        worst_tilt = fmax(worst_tilt, m.tilt);
        worst_z = fmax(worst_z, fabs(m.end.pos[2] - 0.5 * DIE_EDGE));
        worst_depth = fmax(worst_depth, m.depth);
        worst_box_depth = fmax(worst_box_depth, b.depth);
    }
    check(c, worst_tilt <= 0.01, "4 tumbling drops from 0.5 m: every mesh die rests on a face (worst tilt %.4f rad)",
          worst_tilt);
    check(c, worst_z <= 0.002, "... at its half edge above the floor (worst %.2f mm off)", 1e3 * worst_z);
    check(c, worst_depth <= MAX_DEPTH, "... deepest overlap %.2f mm (box dice: %.2f mm; <= 5 mm)", 1e3 * worst_depth,
          1e3 * worst_box_depth);
    /* a ball (r 0.04 m, 0.1 kg) rolled at 3 m/s into a resting die, off centre: the die is pushed
     * as a box die is (ODE's own convex colliders gave one point, or sank 6 mm). At 16 substeps the
     * two agree to 0.1 mm: the reference. At the default 1 substep the mesh die ends at most 1 mm
     * further from it than the box die does: its sphere contacts have their swept and discovered
     * points on the ball's line through its centre (contacts.c pair_point), the box die's (ODE's
     * sphere-box collider) keep the midway point, 2.5 mm off the reference with `step` where the
     * mesh die is 0.9 mm off (quickstep: both 13 mm, the iterative solve at 1 substep). */
    double pushed[2][2], ball_depth[2];
    for (int sub = 0; sub < 2; sub++) {
        for (int m = 0; m < 2; m++) {
            Scene s;
            sceneInit(&s, solver);
            s.def.substeps = sub == 0 ? 1 : 16;
            addFloor(&s, NULL);
            addDie(&s, "die", m == 1, 0, 0, 0.0, 0.0, 0.0);
            tpBodyDef *ball = sceneAdd(&s, "ball", TP_BODY_PASSIVE, TP_SHAPE_SPHERE);
            ball->size[0] = 0.04, ball->mass = 0.1;
            ball->pos[0] = -0.5, ball->pos[1] = 0.03, ball->pos[2] = 0.04, ball->vel[0] = 3.0;
            tpWorld *w = mustCreate(&s);
            tpBodyState x[2];
            tpWorld_InitialState(w, x);
            if (sub == 0)
                ball_depth[m] = 0;
            for (int i = 0; i < 120; i++) {
                simStep(w, x, i, NULL);
                const tpContactInfo *ci = tpWorld_Contacts(w);
                for (int k = 0; k < tpWorld_ContactCount(w) && sub == 0; k++)
                    if (ci[k].a == 1 && ci[k].b == 2)
                        ball_depth[m] = fmax(ball_depth[m], ci[k].max_depth);
            }
            tpDestroyWorld(w);
            pushed[sub][m] = x[0].pos[0];
        }
    }
    check(c, fabs(pushed[1][1] - pushed[1][0]) <= 1e-4,
          "a ball rolled into it, 16 substeps: the mesh die pushed to x = %.5f m, a box die to %.5f m (0.1 mm)",
          pushed[1][1], pushed[1][0]);
    check(c,
          fabs(pushed[0][1] - pushed[1][0]) <= fabs(pushed[0][0] - pushed[1][0]) + 0.001 && ball_depth[1] <= MAX_DEPTH,
          "... 1 substep: the mesh die to x = %.4f m, a box die to %.4f m (16 substeps: %.4f m; the mesh die at most "
          "1 mm further off than the box die); die-ball overlap "
          "%.2f mm (box die %.2f mm; <= 5 mm)",
          pushed[0][1], pushed[0][0], pushed[1][0], 1e3 * ball_depth[1], 1e3 * ball_depth[0]);
    /* landing flat at 10 m/s, like scene 9b */
    Scene s;
    sceneInit(&s, solver);
    addFloor(&s, NULL);
    addDie(&s, "die", true, 0, 0, 0.1, 0.0, 0.0);
    s.bodies[1].vel[2] = -sqrt(100.0 - 2.0 * G * 0.1);
    tpWorld *w = mustCreate(&s);
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    Depth d = {0};
    for (int i = 0; i < 60; i++)
        simStep(w, &x, i, &d);
    tpDestroyWorld(w);
    check(c, d.worst <= MAX_DEPTH, "mesh die landing flat at 10 m/s: deepest overlap %.2f mm (<= 5 mm)", 1e3 * d.worst);
}

/* A mesh die thrown spinning at a wall 0.1 m thick (a static box, or the same box as a static
 * triangle mesh) at 3 and 8 m/s: it bounces off on the near side, no deeper than 5 mm. ODE's own
 * convex-box collider let it sink 150-250 mm into the box wall and pass it (fixed by
 * physics/src/mesh_collide.c). */
static double wall_verts[24];

static void meshWall(tpSolverKind solver, Checks *c)
{
    double worst = 0, far = -1;
    for (int k = 0; k < 4; k++) {
        const bool mesh_wall = k & 1;
        const double v = (k & 2) ? 8.0 : 3.0;
        Scene s;
        sceneInit(&s, solver);
        s.def.substeps = 4;
        addFloor(&s, NULL);
        tpBodyDef *wall = addBox(&s, "wall", 0.1, 6.9, 6.5, 1.0, 1.0, 0.0, 3.25);
        wall->cls = TP_BODY_STATIC;
        if (mesh_wall) {
            tpMeshView cube = cubeMesh(1.0);
            for (int i = 0; i < 8; i++) {
                wall_verts[3 * i] = 0.1 * cube.vertices[3 * i];
                wall_verts[3 * i + 1] = 6.9 * cube.vertices[3 * i + 1];
                wall_verts[3 * i + 2] = 6.5 * cube.vertices[3 * i + 2];
            }
            tpMeshView wm = {8, wall_verts, 12, cube_tris};
            wall->shape = TP_SHAPE_MESH;
            wall->mesh = wm;
        }
        addDie(&s, "die", true, 0, 0, 0.25, 0.0, 0.0);
        tpBodyDef *d = &s.bodies[2];
        d->vel[0] = v, d->angvel[1] = 5, d->angvel[2] = 3;
        tpWorld *w = mustCreate(&s);
        tpBodyState x;
        tpWorld_InitialState(w, &x);
        Depth dd = {0};
        for (int i = 0; i < 120; i++) {
            simStep(w, &x, i, &dd);
            far = fmax(far, x.pos[0]);
        }
        tpDestroyWorld(w);
        worst = fmax(worst, dd.worst);
    }
    check(c, worst <= MAX_DEPTH,
          "mesh die at 3 and 8 m/s against a box wall and a mesh wall: deepest overlap %.2f mm "
          "(<= 5 mm)",
          1e3 * worst);
    check(c, far < 0.95, "... its centre never passes the near face's die-width (farthest x %.4f m, face at 0.95 m)",
          far);
}

#define BOWL_R 0.5    /* m: inner radius of the hemispherical bowl; its bottom is at z = 0 */
#define BOWL_RINGS 24 /* rings from the bottom pole to the rim */
#define BOWL_SEGS 48  /* segments around */
static double bowl_verts[3 * (1 + BOWL_RINGS * BOWL_SEGS)];
static int32_t bowl_tris[3 * (BOWL_SEGS + 2 * (BOWL_RINGS - 1) * BOWL_SEGS)];

/* The inside of a hemisphere of radius BOWL_R centred at (0, 0, BOWL_R), open at the top: a
 * triangle soup (not closed), each triangle facing the centre. */
static tpMeshView bowlMesh(void)
{
    bowl_verts[0] = bowl_verts[1] = bowl_verts[2] = 0.0;
    for (int i = 1; i <= BOWL_RINGS; i++) {
        double th = 0.5 * PI * i / BOWL_RINGS;
        for (int j = 0; j < BOWL_SEGS; j++) {
            double ph = 2 * PI * j / BOWL_SEGS;
            double *v = bowl_verts + 3 * (1 + (i - 1) * BOWL_SEGS + j);
            v[0] = BOWL_R * sin(th) * cos(ph), v[1] = BOWL_R * sin(th) * sin(ph), v[2] = BOWL_R * (1 - cos(th));
        }
    }
    int n = 0;
#define VID(i, j) ((i) == 0 ? 0 : 1 + ((i)-1) * BOWL_SEGS + ((j) % BOWL_SEGS))
    for (int i = 0; i < BOWL_RINGS; i++) {
        for (int j = 0; j < BOWL_SEGS; j++) {
            int32_t quad[2][3] = {{VID(i, j), VID(i + 1, j + 1), VID(i + 1, j)},
                                  {VID(i, j), VID(i, j + 1), VID(i + 1, j + 1)}};
            for (int t = (i == 0 ? 1 : 0); t < 2; t++) {
                int32_t *tr = bowl_tris + 3 * n++;
                memcpy(tr, quad[t], sizeof quad[t]);
                if (i == 0) { /* the pole fan */
                    tr[0] = 0, tr[1] = VID(1, j), tr[2] = VID(1, j + 1);
                }
                /* face the centre (0, 0, BOWL_R) */
                const double *a = bowl_verts + 3 * tr[0], *b = bowl_verts + 3 * tr[1], *cc = bowl_verts + 3 * tr[2];
                double u[3], w[3], nn[3], m[3];
                for (int k = 0; k < 3; k++)
                    u[k] = b[k] - a[k], w[k] = cc[k] - a[k], m[k] = (k == 2 ? BOWL_R : 0) - (a[k] + b[k] + cc[k]) / 3;
                nn[0] = u[1] * w[2] - u[2] * w[1], nn[1] = u[2] * w[0] - u[0] * w[2], nn[2] = u[0] * w[1] - u[1] * w[0];
                if (nn[0] * m[0] + nn[1] * m[1] + nn[2] * m[2] < 0) {
                    int32_t t2 = tr[1];
                    tr[1] = tr[2], tr[2] = t2;
                }
            }
        }
    }
#undef VID
    tpMeshView v = {1 + BOWL_RINGS * BOWL_SEGS, bowl_verts, n, bowl_tris};
    return v;
}

/* A ball (r 0.05 m) let go on the wall of a static mesh bowl, 60 degrees up and moving sideways,
 * rolls around in it for 10 s: it stays inside (its centre within R - r of the bowl's centre, plus
 * the penetration standard), never climbs above where it started (no energy from the contacts),
 * and never sinks in deeper than 5 mm. */
static void meshBowl(tpSolverKind solver, Checks *c)
{
    Scene s;
    sceneInit(&s, solver);
    s.def.substeps = 2;
    tpBodyDef *bowl = sceneAdd(&s, "bowl", TP_BODY_STATIC, TP_SHAPE_MESH);
    bowl->mesh = bowlMesh();
    tpBodyDef *ball = sceneAdd(&s, "ball", TP_BODY_PASSIVE, TP_SHAPE_SPHERE);
    const double r = 0.05, th = PI / 3;
    ball->size[0] = r;
    ball->mass = 0.1;
    ball->pos[0] = (BOWL_R - r) * sin(th), ball->pos[2] = BOWL_R - (BOWL_R - r) * cos(th);
    ball->vel[1] = 0.8;
    tpWorld *w = mustCreate(&s);
    tpBodyState x;
    tpWorld_InitialState(w, &x);
    const double z0 = x.pos[2];
    Depth d = {0};
    double worst_out = -1, zmax_late = 0;
    bool ok = true;
    for (int i = 0; i < 600; i++) {
        ok = simStep(w, &x, i, &d) && ok;
        double dx = x.pos[0], dy = x.pos[1], dz = x.pos[2] - BOWL_R;
        worst_out = fmax(worst_out, sqrt(dx * dx + dy * dy + dz * dz) - (BOWL_R - r));
        if (i >= 30)
            zmax_late = fmax(zmax_late, x.pos[2]);
    }
    tpDestroyWorld(w);
    check(c, ok, "every step valid");
    check(c, worst_out <= MAX_DEPTH, "10 s in the bowl: the ball's centre at most %.2f mm beyond R - r (<= 5 mm)",
          1e3 * worst_out);
    check(c, zmax_late <= z0 + 0.001, "highest after 0.5 s %.4f m, released at %.4f m (no energy gained)", zmax_late,
          z0);
    check(c, d.worst <= MAX_DEPTH, "deepest overlap %.2f mm (<= 5 mm)", 1e3 * d.worst);
}

/* ------------------------------------------------------------------------------------------ */
/* Cases: every scene with both solvers                                                        */

CASE(stack10)
CASE(pyramid20)
CASE(slide)
CASE(bounce)
CASE(tunnel)
CASE(dominoes)
CASE(dominoesDepth)
CASE(roll)
CASE(rollRho)
CASE(stack2)
CASE(impactBox)
CASE(impactDie)
CASE(meshDie)
CASE(meshBowl)
CASE(meshWall)

/* ------------------------------------------------------------------------------------------ */
/* --bench: solver cost                                                                        */

/* Process CPU time (s): on a shared machine it counts this program's work, not the others'. */
static double cpuSeconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "step", or "quickstep/N" with N iterations. */
static const char *solverLabel(const tpSceneDef *def)
{
    static char buf[32];
    if (def->solver != TP_SOLVER_QUICKSTEP)
        return "step";
    snprintf(buf, sizeof buf, "quickstep/%d", def->quickstep_iters);
    return buf;
}

/* Runs `steps` Sim steps of the scene `reps` times; prints the cost per step. */
static void benchScene(const char *label, const Scene *s, int steps, int reps)
{
    tpWorld *w = mustCreate(s);
    const int n = tpWorld_StateCount(w);
    tpBodyState x[MAX_BODIES];
    double best = 1e300;
    long pairs = 0; /* touching pairs summed over the steps of one run */
    for (int r = 0; r < reps; r++) {
        tpWorld_InitialState(w, x);
        pairs = 0;
        double t0 = cpuSeconds();
        for (int i = 0; i < steps; i++) {
            tpWorld_Step(w, x, i * s->def.dt, NULL, x);
            pairs += tpWorld_ContactCount(w);
        }
        best = fmin(best, cpuSeconds() - t0);
    }
    tpDestroyWorld(w);
    printf("%-31s %-15s %2d bodies, %4.1f touching pairs/step: %8.1f us/step\n", label, solverLabel(&s->def), n,
           (double)pairs / steps, 1e6 * best / steps);
}

/* Fidelity next to the cost: the resting figures of scenes 1-2 (Rest) over 10 s. */
static void benchRest(const char *label, const Scene *s)
{
    Rest r = restScene(s, REST_TIME);
    printf("%-31s %-15s: horizontal drift %8.3f mm, top box drift after 1 s %8.3f mm, deepest overlap "
           "%7.3f mm (step %d, bodies %d-%d)\n",
           label, solverLabel(&s->def), 1e3 * r.drift_xy, 1e3 * r.top_drift, 1e3 * r.depth.worst, r.depth.step,
           r.depth.a, r.depth.b);
}

/* 30 dice (0.1 m, 0.15 kg) in a 6 x 5 grid, tilted and spinning, dropped from 0.3-0.5 m onto the
 * floor, or into the static mesh bowl: as boxes or as convex meshes (the same cube). */
static void buildDice(Scene *s, tpSolverKind solver, bool mesh, bool bowl)
{
    sceneInit(s, solver);
    if (bowl) {
        tpBodyDef *b = sceneAdd(s, "bowl", TP_BODY_STATIC, TP_SHAPE_MESH);
        b->mesh = bowlMesh();
    } else {
        addFloor(s, NULL);
    }
    for (int i = 0; i < 30; i++) {
        char name[16];
        snprintf(name, sizeof name, "die%d", i);
        addDie(s, name, mesh, 0.12 * (i % 6 - 2.5), 0.12 * (i / 6 - 2), 0.3 + 0.2 * (i % 2), 0.3 + 0.1 * (i % 7), 2.0);
    }
}

/* The stacks are benched settled (each box sunk 1 mm, ODE's contact surface layer, into the floor
 * or the box below: where a resting stack ends up) as well as exactly touching: exactly touching,
 * today's step solver loses them (scenes 1, 2, 8), and a collapsed pile costs differently from a
 * standing one. */
static int bench(int reps)
{
    if (reps < 1)
        reps = 1;
    printf("solver cost through tpWorld_Step (CPU time), 150 steps (2.5 s) per scene, best of %d runs:\n", reps);
    for (int sv = 0; sv < 2; sv++) {
        tpSolverKind solver = sv ? TP_SOLVER_QUICKSTEP : TP_SOLVER_STEP;
        Scene s;
        buildDominoes(&s, solver, DOM_N);
        benchScene("20-domino chain", &s, 150, reps);
        buildStack(&s, solver, 0.0);
        benchScene("10-box stack, touching", &s, 150, reps);
        buildStack(&s, solver, -SURFACE_LAYER);
        benchScene("10-box stack, settled", &s, 150, reps);
        buildPyramid(&s, solver, 0.0);
        benchScene("20-box pyramid, touching", &s, 150, reps);
        buildPyramid(&s, solver, -SURFACE_LAYER);
        benchScene("20-box pyramid, settled", &s, 150, reps);
    }
    for (int sv = 0; sv < 2; sv++) {
        tpSolverKind solver = sv ? TP_SOLVER_QUICKSTEP : TP_SOLVER_STEP;
        Scene s;
        buildDice(&s, solver, false, false);
        benchScene("30 dice on the floor, boxes", &s, 150, reps);
        buildDice(&s, solver, true, false);
        benchScene("30 dice on the floor, meshes", &s, 150, reps);
        buildDice(&s, solver, false, true);
        benchScene("30 dice in a mesh bowl, boxes", &s, 150, reps);
        buildDice(&s, solver, true, true);
        benchScene("30 dice in a mesh bowl, meshes", &s, 150, reps);
    }
    printf("quickstep iterations: cost and resting figures (standard: drift <= 1 mm, overlap <= 5 mm)\n");
    const int iters[] = {20, 50, 100, 200};
    for (int k = -1; k < 4; k++) {
        Scene s;
        tpSolverKind solver = k < 0 ? TP_SOLVER_STEP : TP_SOLVER_QUICKSTEP;
        buildStack(&s, solver, -SURFACE_LAYER);
        if (k >= 0)
            s.def.quickstep_iters = iters[k];
        benchScene("10-box stack, settled", &s, 150, reps);
        benchRest("10-box stack, settled", &s);
        buildPyramid(&s, solver, -SURFACE_LAYER);
        if (k >= 0)
            s.def.quickstep_iters = iters[k];
        benchScene("20-box pyramid, settled", &s, 150, reps);
        benchRest("20-box pyramid, settled", &s);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--bench") == 0)
        return bench(argc >= 3 ? atoi(argv[2]) : 5);
    const struct CMUnitTest tests[] = {
        CASE_TESTS(stack10), CASE_TESTS(pyramid20), CASE_TESTS(slide),         CASE_TESTS(bounce),
        CASE_TESTS(tunnel),  CASE_TESTS(dominoes),  CASE_TESTS(dominoesDepth), CASE_TESTS(roll),
        CASE_TESTS(rollRho), CASE_TESTS(stack2),    CASE_TESTS(impactBox),     CASE_TESTS(impactDie),
        CASE_TESTS(meshDie), CASE_TESTS(meshBowl),  CASE_TESTS(meshWall),
    };
    return runCases(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
