/* Space-time navigation over moving surfaces (Lopez et al. 2011): the topological graph learns a
 * periodic elevator from observations only, the two-level planner rides it to a ledge that is never
 * directly accessible, and an obstacle that starts moving across the path forces a replan. The
 * motions live only in this file: the space is given poses and velocities, never a motion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tp/nav.h"
#include "nav_space_scenes.h"

enum { FLOOR = 0, LIFT = 1, LEDGE = 2, FLOOR_B = 3, NBODIES = 4 };

/* The elevator's top: 2 s at 0, up at 1 m/s, 2 s at 2 m, down; period 8 s (phase: starts rising). */
static double lift_top(double t, double *vz)
{
    double u = fmod(t + 2.0, 8.0);
    if (u < 2) {
        *vz = 0;
        return 0;
    }
    if (u < 4) {
        *vz = 1;
        return u - 2;
    }
    if (u < 6) {
        *vz = 0;
        return 2;
    }
    *vz = -1;
    return 2 - (u - 6);
}

static void elevator_scene(double t, tpNavSpaceBody b[NBODIES])
{
    b[FLOOR] = tpNavSpace_Box(2, 0, -0.5, 2, 2, 0.5, 0);    /* x in [0, 4], top 0 */
    b[FLOOR_B] = tpNavSpace_Box(-2, 0, -0.5, 2, 2, 0.5, 0); /* x in [-4, 0]: always next to FLOOR */
    b[LEDGE] = tpNavSpace_Box(6.6, 0, 1, 1.4, 2, 1, 0);     /* x in [5.2, 8], top 2 */
    double vz, top = lift_top(t, &vz);
    b[LIFT] = tpNavSpace_Box(4.6, 0, top - 0.05, 0.5, 0.5, 0.05, 0); /* x in [4.1, 5.1] */
    b[LIFT].vel[2] = vz;
}

static tpNavSpace *elevator_space(void)
{
    tpNavSpaceDef d = tpDefaultNavSpaceDef();
    d.jump = false; /* the ledge is 2 m up: only the elevator reaches it */
    char err[256];
    tpNavSpace *sp = tpCreateNavSpace(&d, NBODIES, err, sizeof err);
    assert_non_null(sp);
    return sp;
}

static void test_periodic_elevator_recognised(void **state)
{
    (void)state;
    tpNavSpace *sp = elevator_space();
    tpNavSpaceBody b[NBODIES];
    char err[256];
    const double dt = 0.05;
    for (int k = 0; k <= 26 * 20; k++) {
        double t = k * dt;
        elevator_scene(t, b);
        assert_true(tpNavSpace_Update(sp, t, b, err, sizeof err));
    }
    /* floor -> elevator: valid while the lift's top is within the step (2 s pause + 0.25 s each way) */
    const tpNavSpaceEdge *e = tpNavSpace_FindEdge(sp, FLOOR, LIFT);
    assert_non_null(e);
    assert_true(tpNavSpace_EdgePeriodic(e));
    assert_false(e->stable);
    assert_true(e->periods >= 3);
    assert_true(fabs(e->mean_valid + e->mean_invalid - 8.0) < 0.15);
    assert_true(fabs(e->mean_valid - 2.5) < 0.15);
    assert_int_equal(e->kind, TP_NAV_REL_STEP);
    assert_true(e->mean_speed < 0.5);
    assert_true(fabs(tpNavSpace_EdgeCost(sp, e) - 8.0) < 0.15);
    /* the same for the elevator -> ledge relation, at the top */
    const tpNavSpaceEdge *up = tpNavSpace_FindEdge(sp, LIFT, LEDGE);
    assert_non_null(up);
    assert_true(tpNavSpace_EdgePeriodic(up));
    assert_true(fabs(up->mean_valid + up->mean_invalid - 8.0) < 0.15);
    /* the two floors touch: a stable relation, cost epsilon */
    const tpNavSpaceEdge *s = tpNavSpace_FindEdge(sp, FLOOR_B, FLOOR);
    assert_non_null(s);
    assert_true(s->stable && s->valid);
    assert_true(tpNavSpace_EdgeCost(sp, s) == tpNavSpace_Def(sp)->epsilon);
    /* never directly: floor -> ledge (2 m up, no jump) */
    assert_null(tpNavSpace_FindEdge(sp, FLOOR, LEDGE));
    tpNavSpaceRoute r;
    assert_true(tpNavSpace_Route(sp, FLOOR_B, LEDGE, &r));
    assert_int_equal(r.nsurfaces, 4);
    assert_int_equal(r.surfaces[1], FLOOR);
    assert_int_equal(r.surfaces[2], LIFT);
    tpDestroyNavSpace(sp);
}

/* A clone has observed what its source has: given the same further updates, both learn the same
 * graph (every edge's statistics, bit for bit) and route the same way; updating one leaves the
 * other as it was. */
static void test_clone_continues_like_the_source(void **state)
{
    (void)state;
    tpNavSpace *sp = elevator_space();
    tpNavSpaceBody b[NBODIES];
    char err[256];
    const double dt = 0.05;
    int k = 0;
    for (; k < 7 * 20; k++) { /* 7 s: the first period is not complete yet */
        elevator_scene(k * dt, b);
        assert_true(tpNavSpace_Update(sp, k * dt, b, err, sizeof err));
    }
    tpNavSpace *cl = tpCloneNavSpace(sp);
    assert_non_null(cl);
    assert_int_equal(tpNavSpace_EdgeCount(cl), tpNavSpace_EdgeCount(sp));
    for (; k <= 26 * 20; k++) {
        elevator_scene(k * dt, b);
        assert_true(tpNavSpace_Update(sp, k * dt, b, err, sizeof err));
        assert_true(tpNavSpace_Update(cl, k * dt, b, err, sizeof err));
    }
    assert_true(tpNavSpace_EdgeCount(sp) > 0);
    assert_int_equal(tpNavSpace_EdgeCount(cl), tpNavSpace_EdgeCount(sp));
    for (int e = 0; e < tpNavSpace_EdgeCount(sp); e++)
        assert_memory_equal(tpNavSpace_Edge(cl, e), tpNavSpace_Edge(sp, e), sizeof(tpNavSpaceEdge));
    tpNavSpaceRoute r1, r2;
    assert_true(tpNavSpace_Route(sp, FLOOR_B, LEDGE, &r1));
    assert_true(tpNavSpace_Route(cl, FLOOR_B, LEDGE, &r2));
    assert_int_equal(r1.nsurfaces, r2.nsurfaces);
    assert_memory_equal(r1.surfaces, r2.surfaces, sizeof r1.surfaces[0] * (size_t)r1.nsurfaces);
    /* independent: a clone taken now, then the source goes on alone */
    tpNavSpace *frozen = tpCloneNavSpace(sp);
    assert_non_null(frozen);
    tpNavSpaceEdge before;
    memcpy(&before, tpNavSpace_FindEdge(frozen, FLOOR, LIFT), sizeof before);
    for (int q = 0; q < 6 * 20; q++, k++) { /* past the next rising edge of floor -> lift */
        elevator_scene(k * dt, b);
        assert_true(tpNavSpace_Update(sp, k * dt, b, err, sizeof err));
    }
    assert_memory_equal(tpNavSpace_FindEdge(frozen, FLOOR, LIFT), &before, sizeof before);
    assert_memory_not_equal(tpNavSpace_FindEdge(sp, FLOOR, LIFT), &before, sizeof before);
    tpDestroyNavSpace(frozen);
    tpDestroyNavSpace(cl);
    tpDestroyNavSpace(sp);
}

static void test_rides_the_elevator(void **state)
{
    (void)state;
    tpNavSpace *sp = elevator_space();
    tpNavSpaceBody b[NBODIES];
    char err[256];
    const double dt = 0.05;
    elevator_scene(0, b);
    assert_true(tpNavSpace_Update(sp, 0, b, err, sizeof err));
    tpNavSpaceRoute r;
    assert_false(tpNavSpace_Route(sp, FLOOR, LEDGE, &r)); /* nothing observed yet connects them */
    tpNavSpaceAgent a;
    memset(&a, 0, sizeof a);
    const double start[2] = {-1.5, 0}, goal[2] = {1.0, 0.5};
    tpNavSpaceAgent_Init(&a, FLOOR, start, LEDGE, goal, 0);
    bool carried = false, waited_no_route = false;
    int k;
    for (k = 1; k <= 60 * 20; k++) {
        double t = k * dt;
        elevator_scene(t, b);
        assert_true(tpNavSpace_Update(sp, t, b, err, sizeof err));
        tpNavAgentMode m = tpNavSpaceAgent_Step(sp, &a, t);
        if (m == TP_NAV_AGENT_NO_ROUTE)
            waited_no_route = true;
        assert_int_not_equal(m, TP_NAV_AGENT_FELL);
        if (a.surface == LIFT && m != TP_NAV_AGENT_TRANSFER) {
            double vz;
            double top = lift_top(t, &vz);
            assert_true(fabs(a.pos[2] - top) < 1e-9); /* stands on the lift wherever it is */
            if (top > 1.0)
                carried = true;
        }
        if (m == TP_NAV_AGENT_DONE)
            break;
    }
    assert_int_equal(a.mode, TP_NAV_AGENT_DONE);
    assert_true(waited_no_route); /* it had to observe before a route existed */
    assert_true(carried);
    assert_int_equal(a.surface, LEDGE);
    assert_int_equal(a.transfers, 2);
    assert_true(a.wait_time > 0);
    assert_true(fabs(a.pos[0] - 7.6) < 1e-9 && fabs(a.pos[1] - 0.5) < 1e-9 && fabs(a.pos[2] - 2.0) < 1e-9);
    tpNavSpaceAgent_Free(&a);
    tpDestroyNavSpace(sp);
}

/* A corridor; a crate parked beside it starts moving across at t = 1.5 s and stops in the middle. */
static void corridor_scene(double t, tpNavSpaceBody b[2])
{
    b[0] = tpNavSpace_Box(0, 0, -0.5, 5, 1, 0.5, 0); /* standable x in [-4.9, 4.9], y in [-0.9, 0.9] */
    double y = 5, vy = 0;
    if (t > 1.5) {
        y = fmax(0, 5 - 2 * (t - 1.5));
        vy = y > 0 ? -2 : 0;
    }
    b[1] = tpNavSpace_Box(0, y, 0.5, 0.3, 0.3, 0.5, 0);
    b[1].vel[1] = vy;
    b[1].surface = false;
}

static void test_obstruction_forces_replan(void **state)
{
    (void)state;
    tpNavSpaceDef d = tpDefaultNavSpaceDef();
    char err[256];
    tpNavSpace *sp = tpCreateNavSpace(&d, 2, err, sizeof err);
    assert_non_null(sp);
    tpNavSpaceBody b[2];
    corridor_scene(0, b);
    assert_true(tpNavSpace_Update(sp, 0, b, err, sizeof err));
    tpNavSpaceAgent a;
    memset(&a, 0, sizeof a);
    const double start[2] = {-4, 0}, goal[2] = {4, 0};
    tpNavSpaceAgent_Init(&a, 0, start, 0, goal, 0);
    /* the first plan is the straight line: the crate is static and far */
    assert_int_equal(tpNavSpaceAgent_Step(sp, &a, 0.05), TP_NAV_AGENT_WALK);
    for (int k = 0; k < a.path.npoints; k++)
        assert_true(fabs(a.path.points[3 * k + 1]) < 0.051);
    const double dt = 0.05;
    for (int k = 2; k <= 40 * 20 && a.mode != TP_NAV_AGENT_DONE; k++) {
        double t = k * dt;
        corridor_scene(t, b);
        assert_true(tpNavSpace_Update(sp, t, b, err, sizeof err));
        tpNavSpaceAgent_Step(sp, &a, t);
        /* never inside the crate (character radius 0.2 around the footprint) */
        double dx = fmax(0, fabs(a.pos[0] - b[1].center[0]) - 0.3), dy = fmax(0, fabs(a.pos[1] - b[1].center[1]) - 0.3);
        assert_true(hypot(dx, dy) >= 0.2 - 1e-9);
    }
    assert_int_equal(a.mode, TP_NAV_AGENT_DONE);
    assert_true(a.replans >= 1);
    assert_true(tpNavSpace_Stats(sp)->plans >= 2);
    tpNavSpaceAgent_Free(&a);
    tpDestroyNavSpace(sp);
}

/* The disconnected environment (paper Fig. 6f): a jump onto a sliding platform, steps across two
 * more moving platforms, up to a pad 1 m high; no static path exists. */
static void test_hops_disconnected_platforms(void **state)
{
    (void)state;
    char err[256];
    tpNavSpace *sp = tpCreateNavSpace(NULL, PL_N, err, sizeof err);
    assert_non_null(sp);
    tpNavSpaceBody b[PL_N];
    platforms(0, b);
    assert_true(tpNavSpace_Update(sp, 0, b, err, sizeof err));
    tpNavSpaceAgent a;
    memset(&a, 0, sizeof a);
    const double start[2] = {-1.5, 0}, goal[2] = {0.5, 0.5};
    tpNavSpaceAgent_Init(&a, PL_START, start, PL_GOAL, goal, 0);
    int jumps = 0, last = a.mode;
    for (int k = 1; k <= 300 * 20 && a.mode != TP_NAV_AGENT_DONE; k++) {
        double t = k * 0.05;
        platforms(t, b);
        assert_true(tpNavSpace_Update(sp, t, b, err, sizeof err));
        tpNavSpaceAgent_Step(sp, &a, t);
        assert_int_not_equal(a.mode, TP_NAV_AGENT_FELL);
        if (a.mode == TP_NAV_AGENT_TRANSFER && last != TP_NAV_AGENT_TRANSFER && a.tr_apex > 0)
            jumps++;
        last = a.mode;
    }
    assert_int_equal(a.mode, TP_NAV_AGENT_DONE);
    assert_int_equal(a.surface, PL_GOAL);
    assert_int_equal(a.transfers, 4); /* start -> P1 -> P2 -> P3 -> goal */
    assert_true(jumps >= 1);
    assert_true(fabs(a.pos[2] - 1.0) < 1e-9);
    /* no relation between the two pads, and none is stable: everything moves */
    assert_null(tpNavSpace_FindEdge(sp, PL_START, PL_GOAL));
    for (int k = 0; k < tpNavSpace_EdgeCount(sp); k++)
        assert_false(tpNavSpace_Edge(sp, k)->stable);
    tpNavSpaceAgent_Free(&a);
    tpDestroyNavSpace(sp);
}

static void test_bad_input(void **state)
{
    (void)state;
    char err[256];
    tpNavSpaceDef d = tpDefaultNavSpaceDef();
    d.radius = -1;
    assert_null(tpCreateNavSpace(&d, 3, err, sizeof err));
    assert_non_null(strstr(err, "radius"));
    assert_null(tpCreateNavSpace(NULL, 0, err, sizeof err));
    assert_non_null(strstr(err, "nbodies"));
    tpNavSpace *sp = tpCreateNavSpace(NULL, 2, err, sizeof err);
    tpNavSpaceBody b[2] = {tpNavSpace_Box(0, 0, 0, 1, 1, 1, 0), tpNavSpace_Box(0, 0, 0, 1, -1, 1, 0)};
    assert_false(tpNavSpace_Update(sp, 0, b, err, sizeof err));
    assert_non_null(strstr(err, "bodies[2].half[2]"));
    b[1].half[1] = 1;
    assert_true(tpNavSpace_Update(sp, 0, b, err, sizeof err));
    assert_false(tpNavSpace_Update(sp, 0, b, err, sizeof err)); /* time must increase */
    assert_non_null(strstr(err, "t:"));
    tpDestroyNavSpace(sp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_periodic_elevator_recognised), cmocka_unit_test(test_clone_continues_like_the_source),
        cmocka_unit_test(test_rides_the_elevator),           cmocka_unit_test(test_obstruction_forces_replan),
        cmocka_unit_test(test_hops_disconnected_platforms),  cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
