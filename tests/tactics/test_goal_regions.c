/* The goal regions a plan records (tpCond_GoalRegions): the spatial leaves of a goal
 * tree, in order, through `and` and `or`; nothing under `not` nor for non-spatial leaves; one
 * region per body of an arrangement; bounds beyond the physical range unbounded; leaves a plan
 * cannot record left out; the cap respected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "tp/base.h"
#include "tp/tactics.h"

static tpCond *within(int body, double x, double y, double r)
{
    tpCond *c = tpCreateCond(TP_COND_IN_CIRCLE);
    c->body = body;
    c->center[0] = x;
    c->center[1] = y;
    c->center[2] = 99; /* unused by a circle: not recorded */
    c->radius = r;
    return c;
}

static void test_regions(void **state)
{
    (void)state;
    tpCond *root = tpCreateCond(TP_COND_AND);
    assert_true(tpCond_Add(root, within(0, 1.6, -0.45, 0.054)));
    tpCond *any = tpCreateCond(TP_COND_OR);
    tpCond *box = tpCreateCond(TP_COND_IN_BOX);
    box->body = 1;
    double lo[3] = {54, -1e300, -INFINITY}, hi[3] = {66, 100, 5};
    memcpy(box->lo, lo, sizeof lo);
    memcpy(box->hi, hi, sizeof hi);
    assert_true(tpCond_Add(any, box));
    tpCond *ball = tpCreateCond(TP_COND_IN_SPHERE);
    ball->body = 2;
    ball->center[2] = 1.5;
    ball->radius = 0.25;
    assert_true(tpCond_Add(any, ball));
    assert_true(tpCond_Add(root, any));
    tpCond *not = tpCreateCond(TP_COND_NOT);
    assert_true(tpCond_Add(not, within(0, 5, 5, 1))); /* where the body must not be: not drawn */
    assert_true(tpCond_Add(root, not ));
    tpCond *slow = tpCreateCond(TP_COND_SPEED_BELOW);
    slow->body = 0;
    slow->value = 1;
    assert_true(tpCond_Add(root, slow));
    assert_true(tpCond_Add(root, within(0, 0, 0, 1e9))); /* beyond what a plan records: left out */
    assert_true(tpCond_Add(root, within(7, 0, 0, 1)));   /* no such body: left out */
    tpCond *arr = tpCreateCond(TP_COND_ARRANGED);
    int bodies[2] = {1, 2};
    double points[6] = {1, 2, 3, 4, 5, 6};
    assert_true(tpCond_SetTargets(arr, 2, bodies, points, 2));
    arr->radius = 0.07;
    arr->fraction = 0.9;
    assert_true(tpCond_Add(root, arr));

    tpPlanGoalRegion out[8];
    int n = tpCond_GoalRegions(root, 3, out, 8);
    assert_int_equal(n, 5);
    assert_int_equal(out[0].kind, TP_GOAL_CIRCLE);
    assert_int_equal(out[0].body, 0);
    assert_true(out[0].center[0] == 1.6 && out[0].center[1] == -0.45 && out[0].center[2] == 0 &&
                out[0].radius == 0.054);
    assert_int_equal(out[1].kind, TP_GOAL_BOX);
    assert_int_equal(out[1].body, 1);
    assert_true(out[1].lo[0] == 54 && out[1].lo[1] == -INFINITY && out[1].lo[2] == -INFINITY);
    assert_true(out[1].hi[0] == 66 && out[1].hi[1] == 100 && out[1].hi[2] == 5);
    assert_int_equal(out[2].kind, TP_GOAL_SPHERE);
    assert_true(out[2].body == 2 && out[2].center[2] == 1.5 && out[2].radius == 0.25);
    for (int k = 3; k < 5; ++k) { /* the arrangement: one disc per body at its target */
        assert_int_equal(out[k].kind, TP_GOAL_CIRCLE);
        assert_int_equal(out[k].body, bodies[k - 3]);
        assert_true(out[k].center[0] == points[3 * (k - 3)] && out[k].center[1] == points[3 * (k - 3) + 1]);
        assert_true(out[k].center[2] == 0 && out[k].radius == 0.07);
    }
    for (int k = 0; k < n; ++k) {
        assert_true(tpPlanGoalRegion_Valid(&out[k], 3, NULL, 0));
    }
    /* the cap: the first regions only */
    assert_int_equal(tpCond_GoalRegions(root, 3, out, 2), 2);
    assert_int_equal(out[1].kind, TP_GOAL_BOX);
    /* goals with no spatial leaf, and none */
    assert_int_equal(tpCond_GoalRegions(slow, 3, out, 8), 0);
    assert_int_equal(tpCond_GoalRegions(not, 3, out, 8), 0);
    assert_int_equal(tpCond_GoalRegions(NULL, 3, out, 8), 0);
    tpDestroyCond(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
