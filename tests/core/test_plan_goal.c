/* The goal regions of a plan (member "goal"): exact round trips of discs, balls and boxes
 * (unbounded box sides written null), byte-identical rewrites, a plan without the member, and the
 * refusals of the writer and of the strict reader (unknown members and kinds, wrong types, a body
 * that does not exist, out-of-range or inverted bounds), each naming the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/plan.h"

#include "plan_edit.h"
#include "tmp_dir.h"

/* A record with the bodies "ball" and "car" and three goal regions: a disc, a ball and a box open
 * below. */
static void build(tpPlanRecord *rec)
{
    plan_header(rec, "g", 2);
    plan_static_body(rec, 0, "ball");
    plan_static_body(rec, 1, "car");
    rec->nworlds = 1;
    rec->worlds = calloc(1, sizeof *rec->worlds);
    assert_true(tpPlanWorld_Alloc(&rec->worlds[0], rec, 0));
    rec->ngoal_regions = 3;
    rec->goal_regions = calloc(3, sizeof *rec->goal_regions);
    rec->goal_regions[0] =
        (tpPlanGoalRegion){.kind = TP_GOAL_CIRCLE, .body = 0, .center = {1.6, -0.45}, .radius = 0.054};
    rec->goal_regions[1] =
        (tpPlanGoalRegion){.kind = TP_GOAL_SPHERE, .body = 0, .center = {0.1, 1e-300, -2}, .radius = 1.0 / 3.0};
    rec->goal_regions[2] =
        (tpPlanGoalRegion){.kind = TP_GOAL_BOX, .body = 1, .lo = {54, 50, -INFINITY}, .hi = {66, INFINITY, 5}};
}

static void test_round_trip(void **state)
{
    (void)state;
    tpPlanRecord rec, back;
    build(&rec);
    char *ta = plan_round_trip(&rec, &back);
    assert_int_equal(back.ngoal_regions, 3);
    for (int i = 0; i < 3; ++i) {
        const tpPlanGoalRegion *x = &rec.goal_regions[i], *y = &back.goal_regions[i];
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->body, y->body);
        assert_memory_equal(x->center, y->center, sizeof x->center); /* bit for bit */
        assert_memory_equal(&x->radius, &y->radius, sizeof x->radius);
        assert_memory_equal(x->lo, y->lo, sizeof x->lo);
        assert_memory_equal(x->hi, y->hi, sizeof x->hi);
    }
    /* one line after the header, unbounded sides as null */
    assert_non_null(strstr(ta, "\n  \"goal\": {\"regions\": [{\"kind\": \"circle\", \"body\": \"ball\", \"center\": "
                               "[1.6, -0.45], \"radius\": 0.054}, {\"kind\": \"sphere\""));
    assert_non_null(strstr(ta, "{\"kind\": \"box\", \"body\": \"car\", \"min\": [54, 50, null], \"max\": [66, null, "
                               "5]}]},\n  \"steps\""));
    free(ta);
    tpPlanRecord_Free(&back);

    /* no regions: no member, and a plan without it reads with none */
    free(rec.goal_regions);
    rec.goal_regions = NULL;
    rec.ngoal_regions = 0;
    plan_expect_absent(&rec, "\"goal\"", &back);
    assert_int_equal(back.ngoal_regions, 0);
    assert_null(back.goal_regions);
    tpPlanRecord_Free(&back);
    tpPlanRecord_Free(&rec);
}

static void test_writer_refusals(void **state)
{
    (void)state;
    tpPlanRecord rec;
    build(&rec);
    tpPlanGoalRegion keep = rec.goal_regions[0];
    rec.goal_regions[0].radius = 0;
    plan_expect_write_refused(&rec, "goal.regions[0].radius: 0 is not in (0, 1e+07] m");
    rec.goal_regions[0].radius = NAN;
    plan_expect_write_refused(&rec, "goal.regions[0].radius");
    rec.goal_regions[0] = keep;
    rec.goal_regions[0].body = 2;
    plan_expect_write_refused(&rec, "goal.regions[0].body: index 2 out of range [0, 2)");
    rec.goal_regions[0] = keep;
    rec.goal_regions[0].center[1] = 2e6;
    plan_expect_write_refused(&rec, "goal.regions[0].center: 2000000 on y is not within +-1e+06 m");
    rec.goal_regions[0] = keep;
    rec.goal_regions[0].kind = TP_GOAL_KIND_COUNT;
    plan_expect_write_refused(&rec, "goal.regions[0].kind");
    rec.goal_regions[0] = keep;
    keep = rec.goal_regions[2];
    rec.goal_regions[2].lo[0] = 70;
    plan_expect_write_refused(&rec, "goal.regions[2].min: 70 is above max 66 on x");
    rec.goal_regions[2] = keep;
    rec.goal_regions[2].hi[2] = -INFINITY;
    plan_expect_write_refused(&rec, "goal.regions[2].max: a bound on z is neither unbounded (null) nor within");
    rec.goal_regions[2] = (tpPlanGoalRegion){
        .kind = TP_GOAL_BOX, .lo = {-INFINITY, -INFINITY, -INFINITY}, .hi = {INFINITY, INFINITY, INFINITY}};
    plan_expect_write_refused(&rec, "goal.regions[2].min, max: no finite bound");
    rec.goal_regions[2] = keep;
    rec.ngoal_regions = TP_PLAN_MAX_GOAL_REGIONS + 1;
    plan_expect_write_refused(&rec, "goal.regions: 4097 regions (at most 4096)");
    rec.ngoal_regions = 3;
    tpPlanRecord_Free(&rec);
}

/* Writes build()'s plan, applies an edit to its text and expects the reader to refuse it. */
#define expect_edit_refused(from, to, want) plan_expect_built_edit_refused(build, from, to, want)

static void test_reader_refusals(void **state)
{
    (void)state;
    expect_edit_refused("\"goal\": {\"regions\"", "\"goal\": [], \"x\": {\"regions\"",
                        "goal: expected an object, got an array");
    expect_edit_refused("\"goal\": {\"regions\": [", "\"goal\": {\"extra\": 1, \"regions\": [",
                        "goal: unknown field \"extra\" (expected regions)");
    expect_edit_refused("\"goal\": {\"regions\": [{", "\"goal\": {\"regions\": 5}, \"r\": {\"x\": [{",
                        "goal.regions: expected an array of 1..4096 regions, got a number");
    expect_edit_refused("\"kind\": \"circle\"", "\"kind\": \"disc\"", "goal.regions[0].kind: unknown kind \"disc\"");
    expect_edit_refused("\"kind\": \"circle\"", "\"kind\": 1", "goal.regions[0].kind: expected a string");
    expect_edit_refused("\"kind\": \"circle\", \"body\": \"ball\"", "\"kind\": \"circle\", \"body\": \"bal\"",
                        "goal.regions[0].body: no body named \"bal\"");
    expect_edit_refused("\"kind\": \"circle\", \"body\": \"ball\"", "\"kind\": \"circle\", \"body\": null",
                        "goal.regions[0].body: expected a string, got null");
    expect_edit_refused("\"radius\": 0.054", "\"radius\": 0.054, \"height\": 2",
                        "goal.regions[0]: unknown field \"height\" for a circle");
    expect_edit_refused("\"radius\": 0.054", "\"radius\": 0.054, \"min\": [0, 0, 0]",
                        "goal.regions[0]: unknown field \"min\" for a circle");
    expect_edit_refused("\"radius\": 0.054", "\"radius\": -1", "goal.regions[0].radius: -1 is not in (0, 1e+07] m");
    expect_edit_refused("\"radius\": 0.054", "\"radius\": \"1\"",
                        "goal.regions[0].radius: expected a finite number, got a string");
    expect_edit_refused("\"radius\": 0.054", "\"radius\": 1e999",
                        "goal.regions[0].radius: expected a finite number, got an infinite one");
    expect_edit_refused("[1.6, -0.45]", "[1.6, -0.45, 0]", "goal.regions[0].center: expected an array of 2 numbers");
    expect_edit_refused("[1.6, -0.45]", "[1.6, null]", "goal.regions[0].center[1]: expected a finite number, got null");
    expect_edit_refused("[1.6, -0.45]", "[1.6, 1e7]", "goal.regions[0].center: 10000000 on y is not within");
    expect_edit_refused("\"min\": [54, 50, null]", "\"min\": [54, 50]", "goal.regions[2].min: expected an array of 3");
    expect_edit_refused("\"min\": [54, 50, null]", "\"min\": [67, 50, null]",
                        "goal.regions[2].min: 67 is above max 66 on x");
    expect_edit_refused("\"min\": [54, 50, null]", "\"min\": [54, 50, \"-inf\"]",
                        "goal.regions[2].min[2]: expected a finite number or null, got a string");
    expect_edit_refused("\"min\": [54, 50, null], \"max\": [66, null, 5]",
                        "\"min\": [null, null, null], \"max\": [null, null, null]",
                        "goal.regions[2].min, max: no finite bound");
    expect_edit_refused("\"max\": [66, null, 5]", "\"max\": [66, null, 5], \"radius\": 1",
                        "goal.regions[2]: unknown field \"radius\" for a box");
    expect_edit_refused("\"max\": [66, null, 5]", "\"max\": [66, null, 5], \"max\": [66, null, 5]", "duplicate member");
}

/* More regions than a plan records: refused before anything is allocated per region. */
static void test_too_many(void **state)
{
    (void)state;
    tpPlanRecord rec;
    build(&rec);
    char err[600] = "";
    const char *p = tmp_path("many.json");
    assert_true(tpPlanRecord_Write(&rec, p, err, sizeof err));
    tpPlanRecord_Free(&rec);
    size_t n;
    char *text = plan_slurp(p, &n);
    const char *one = "{\"kind\": \"circle\", \"body\": \"ball\", \"center\": [0, 0], \"radius\": 1}, ";
    size_t cap = n + (TP_PLAN_MAX_GOAL_REGIONS + 1) * strlen(one) + 1;
    char *many = malloc(cap);
    char *at = strstr(text, "\"regions\": [") + strlen("\"regions\": [");
    size_t head = (size_t)(at - text);
    memcpy(many, text, head);
    char *w = many + head;
    for (int i = 0; i < TP_PLAN_MAX_GOAL_REGIONS - 2; ++i) { /* with the 3 there: one too many */
        memcpy(w, one, strlen(one));
        w += strlen(one);
    }
    memcpy(w, at, n - head + 1);
    plan_spit(p, many);
    tpPlanRecord back;
    assert_false(tpPlanRecord_Read(&back, p, err, sizeof err));
    assert_non_null(strstr(err, "goal.regions: expected an array of 1..4096 regions"));
    free(text);
    free(many);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_writer_refusals),
        cmocka_unit_test(test_reader_refusals),
        cmocka_unit_test(test_too_many),
    };
    return cmocka_run_group_tests(tests, tmp_dir_setup, tmp_dir_teardown);
}
