/* Box2D's large pyramid and tall stacks at a bounded cost (docs/physics.md,
 * "Large stacks: the 210-cube pyramid"). 20 rows of 0.1 m, 0.5 kg cubes, 5 mm apart within a row
 * (row k from the floor holds 20 - k cubes, 210 in all, each standing on two below), exactly
 * touching vertically, must stand 10 s with its top cube within 1 cm of where it started and no
 * overlap beyond 5 mm after the first 0.5 s. Run through the public API (tpCreateWorld /
 * tpWorld_StepRest, as the planner's Sim steps: bodies sleep once still) with quickstep, whose
 * sweeps scale with a tall stack's height (physics/src/step.c TP_TALL_STACK); solver "step" is not
 * run on it (its Dantzig LCP is cubic in an island's rows: seconds a step). The figures are printed whether
 * they pass or not; no check is a timing (the cost goes to the doc, from --bench).
 *
 *   test_pyramid                   every case
 *   test_pyramid <name>            one case (ctest: pyramid_<name>)
 *   test_pyramid --bench [steps]   CPU time per step (median and max) and the resting figures of the
 *                                  pyramid and the 10-box stack for each knob tried (default 600
 *                                  steps, 10 s; prints only, not run by ctest) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define MAX_BODIES 256
#include "conformance.h"

#include <stdlib.h>
#include <time.h>

#define PY_ROWS 20
#define PY_N (PY_ROWS * (PY_ROWS + 1) / 2) /* 210 */
#define PY_SIZE 0.1                        /* m, cube edge */
#define PY_GAP 0.005                       /* m between neighbours of a row */
#define PY_MASS 0.5                        /* kg */
#define PY_STEPS 600                       /* 10 s at 1/60 s */
#define PY_TOP_LIMIT 0.01                  /* m: the top cube's largest displacement */

/* The pyramid in the xz plane, `gap` m apart vertically (0: exactly touching, as Box2D's; negative:
 * settled, sunk into the floor and each other); the top cube is the last body. */
static void buildPyramid210(Scene *s, tpSolverKind solver, double gap)
{
    sceneInit(s, solver);
    addFloor(s, NULL);
    for (int row = 0; row < PY_ROWS; row++) {
        const int count = PY_ROWS - row;
        const double x0 = -0.5 * (count - 1) * (PY_SIZE + PY_GAP);
        for (int k = 0; k < count; k++) {
            char name[24];
            snprintf(name, sizeof name, "p%d_%d", row, k);
            addBox(s, name, PY_SIZE, PY_SIZE, PY_SIZE, PY_MASS, x0 + k * (PY_SIZE + PY_GAP), 0,
                   (row + 0.5) * PY_SIZE + (row + 1) * gap);
        }
    }
}

/* Scene 1 of test_conformance: 10 cubes (0.1 m, 0.5 kg) exactly touching on the floor. */
static void buildStack10(Scene *s, tpSolverKind solver)
{
    sceneInit(s, solver);
    addFloor(s, NULL);
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "box%d", i);
        addBox(s, name, 0.1, 0.1, 0.1, 0.5, 0, 0, (i + 0.5) * 0.1);
    }
}

typedef struct Run {
    double top_move;  /* m: the top (last) body's largest 3-D displacement from its initial position */
    double top_sink;  /* m: its largest drop */
    double drift_xy;  /* m: the largest horizontal displacement of any body */
    double max_speed; /* m/s: fastest body in the last second */
    double cpu_med;   /* s: median CPU time of a step */
    double cpu_max;   /* s: the slowest step */
    double cpu_mean;  /* s */
    double slept;     /* body steps slept per body step */
    Depth depth;      /* after the first 0.5 s (the exactly touching start settles) */
    bool ok;
} Run;

static double cpuSeconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpDouble(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Steps the scene `steps` times from its initial state (with sleeping when g_sleep). */
static Run runScene(const Scene *s, int steps)
{
    Run r;
    memset(&r, 0, sizeof r);
    r.ok = true;
    const tpSceneDef *def = &s->def;
    tpWorld *w = mustCreate(s);
    const int n = tpWorld_StateCount(w), top = n - 1;
    tpBodyState *x = malloc((size_t)n * sizeof *x), *init = malloc((size_t)n * sizeof *init);
    double *cost = malloc((size_t)steps * sizeof *cost);
    assert_non_null(x);
    assert_non_null(init);
    assert_non_null(cost);
    tpWorld_InitialState(w, x);
    memcpy(init, x, (size_t)n * sizeof *x);
    const int last = steps - (int)lround(1.0 / def->dt), settle = (int)lround(0.5 / def->dt);
    double total = 0.0;
    for (int i = 0; i < steps; i++) {
        const double t0 = cpuSeconds();
        r.ok = simStep(w, x, i, i >= settle ? &r.depth : NULL) && r.ok;
        cost[i] = cpuSeconds() - t0;
        total += cost[i];
        const double *p = x[top].pos, *p0 = init[top].pos;
        r.top_move = fmax(r.top_move, sqrt(pow(p[0] - p0[0], 2) + pow(p[1] - p0[1], 2) + pow(p[2] - p0[2], 2)));
        r.top_sink = fmax(r.top_sink, p0[2] - p[2]);
        for (int k = 0; k < n; k++) {
            r.drift_xy = fmax(r.drift_xy, hypot(x[k].pos[0] - init[k].pos[0], x[k].pos[1] - init[k].pos[1]));
            if (i >= last)
                r.max_speed = fmax(r.max_speed, sqrt(x[k].vel[0] * x[k].vel[0] + x[k].vel[1] * x[k].vel[1] +
                                                     x[k].vel[2] * x[k].vel[2]));
        }
    }
    r.slept = (double)tpWorld_Stats(w).slept / ((double)n * steps);
    qsort(cost, (size_t)steps, sizeof *cost, cmpDouble);
    r.cpu_med = cost[steps / 2];
    r.cpu_max = cost[steps - 1];
    r.cpu_mean = total / steps;
    free(cost);
    free(init);
    free(x);
    tpDestroyWorld(w);
    return r;
}

/* The pyramid stands 10 s: its top cube within 1 cm of where it started, no overlap beyond 5 mm. */
static void pyramidChecks(const Scene *s, Checks *c)
{
    const Run r = runScene(s, PY_STEPS);
    check(c, r.ok, "states stay in range");
    check(c, r.top_move <= PY_TOP_LIMIT, "top cube moved at most %.3f mm in 10 s (<= 10 mm)", 1e3 * r.top_move);
    check(c, r.depth.worst <= MAX_DEPTH, "deepest overlap after 0.5 s %.3f mm (<= 5 mm)", 1e3 * r.depth.worst);
    printf("conformance %s: top cube sank %.3f mm, largest sideways drift %.3f mm, fastest body in the last second "
           "%.3g m/s, %.2f ms/step median, %.2f max (CPU), %.0f %% of body steps slept\n",
           c->name, 1e3 * r.top_sink, 1e3 * r.drift_xy, r.max_speed, 1e3 * r.cpu_med, 1e3 * r.cpu_max, 100.0 * r.slept);
}

static Scene g_big; /* 210 body definitions: too large for a test's stack under the sanitizer */

/* The contact audit's standard at the scene's defaults (quickstep, 20 sweeps a layer of a tall
 * stack, 1 substep), stepped as the planner steps (tpWorld_StepRest: the cubes sleep once still),
 * from the pyramid as built: exactly touching. */
static void test_pyramid210(void **state)
{
    (void)state;
    Checks c = {"pyramid210", 0};
    buildPyramid210(&g_big, TP_SOLVER_QUICKSTEP, 0.0);
    g_sleep = true;
    pyramidChecks(&g_big, &c);
    g_sleep = false;
    checksDone(&c);
}

/* The same from a settled pyramid (each cube sunk the 1 mm contact surface layer into the one
 * below, as a pyramid that has stood a while): nothing to settle, so it must barely move. */
static void test_pyramid210_settled(void **state)
{
    (void)state;
    Checks c = {"pyramid210_settled", 0};
    buildPyramid210(&g_big, TP_SOLVER_QUICKSTEP, -SURFACE_LAYER);
    g_sleep = true;
    pyramidChecks(&g_big, &c);
    g_sleep = false;
    checksDone(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* --bench                                                                                     */

typedef struct Knob {
    const char *label;
    int iters, substeps, max_contacts;
    double cfm, sleep_speed; /* 0: the scene's default */
    bool sleep;              /* tpWorld_StepRest, as the planner steps */
    tpSpaceKind space;
} Knob;

static void benchOne(const char *scene, const Knob *k, double gap, int steps)
{
    if (strcmp(scene, "stack10") == 0)
        buildStack10(&g_big, TP_SOLVER_QUICKSTEP);
    else
        buildPyramid210(&g_big, TP_SOLVER_QUICKSTEP, gap);
    tpSceneDef *d = &g_big.def;
    if (k->iters > 0)
        d->quickstep_iters = k->iters;
    if (k->substeps > 0)
        d->substeps = k->substeps;
    if (k->max_contacts > 0)
        d->max_contacts = k->max_contacts;
    if (k->cfm > 0)
        d->cfm = k->cfm;
    if (k->sleep_speed > 0)
        d->sleep_speed = k->sleep_speed;
    d->space = k->space;
    g_sleep = k->sleep;
    const Run r = runScene(&g_big, steps);
    g_sleep = false;
    printf("%-18s %-30s %6.2f ms/step median %6.2f max %6.2f mean (%5.1f us/body) | top moved %8.3f mm, "
           "drift %8.3f mm, deepest %6.3f mm, slept %3.0f %%\n",
           scene, k->label, 1e3 * r.cpu_med, 1e3 * r.cpu_max, 1e3 * r.cpu_mean, 1e6 * r.cpu_mean / (d->nbodies - 1),
           1e3 * r.top_move, 1e3 * r.drift_xy, 1e3 * r.depth.worst, 100.0 * r.slept);
    fflush(stdout);
}

/* Every knob on the pyramid (exactly touching, and settled: each cube sunk 1 mm, the contact surface
 * layer, into the one below) and on the 10-box stack; `only`: one knob by its label. */
static int bench(int steps, const char *only)
{
    static const Knob knobs[] = {
        {"quickstep/20", 0, 0, 0, 0, 0, false, TP_SPACE_AUTO},
        {"quickstep/20 sleep", 0, 0, 0, 0, 0, true, TP_SPACE_AUTO},
        {"quickstep/10 sleep", 10, 0, 0, 0, 0, true, TP_SPACE_AUTO},
        {"quickstep/20 sleep 0.02", 0, 0, 0, 0, 0.02, true, TP_SPACE_AUTO},
        {"quickstep/20 4 contacts sleep", 0, 0, 4, 0, 0, true, TP_SPACE_AUTO},
        {"quickstep/20 sap sleep", 0, 0, 0, 0, 0, true, TP_SPACE_SAP},
        {"quickstep/20 2 substeps sleep", 0, 2, 0, 0, 0, true, TP_SPACE_AUTO},
    };
    printf("CPU time per step over %d steps (%.1f s) and the resting figures (top: the top cube's largest "
           "displacement from its start; drift: any cube's largest sideways displacement; deepest: after 0.5 s)\n",
           steps, steps / 60.0);
    for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; k++) {
        if (only != NULL && strcmp(only, knobs[k].label) != 0)
            continue;
        benchOne("pyramid210", &knobs[k], 0.0, steps);
        benchOne("pyramid210 settled", &knobs[k], -SURFACE_LAYER, steps);
        benchOne("stack10", &knobs[k], 0.0, steps);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--bench") == 0)
        return bench(argc >= 3 ? atoi(argv[2]) : PY_STEPS, argc >= 4 ? argv[3] : NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pyramid210),
        cmocka_unit_test(test_pyramid210_settled),
    };
    return runCases(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
