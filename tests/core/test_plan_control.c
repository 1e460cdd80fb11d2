/* The control report of a plan (member "control"): tpPlanWorld_Control against figures
 * worked by hand, the writer's one line, a byte-identical rewrite, a plan without the member (older
 * files), a plan whose controls were edited (still readable: replay reports the edit) and the
 * strict reader's refusals (a negative figure, a time longer than the plan, unknown or missing
 * members, a body left out or added), each naming the field. */
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

static void add_body(tpPlanRecord *rec, int i, const char *name, bool controlled)
{
    tpPlanBody *b = &rec->bodies[i];
    b->name = strdup(name);
    b->cls = strdup(controlled ? "active" : "passive");
    b->shape = strdup("sphere");
    b->size[0] = 0.1;
    b->color[3] = 1.0f;
    b->moving = true;
    b->controlled = controlled;
}

/* Bodies "ball" (controlled) and "rock" (passive) over 4 steps of 0.5 s: the ball is pushed by
 * (3, 0, 4) N in step 0 (|F| 5) while its x velocity goes 0 -> 2 m/s, and turned by (0, 0, 2) N m
 * in step 2 while its z angular velocity goes 1 -> 3 rad/s; nothing else acts. */
static void build(tpPlanRecord *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->domain_name = strdup("c");
    rec->domain_file = strdup("c.lua");
    rec->domain_hash = strdup("fnv1a64:0123456789abcdef");
    rec->planner = strdup("bgt");
    rec->status = strdup("solved");
    rec->dt = 0.5;
    rec->nbodies = 2;
    rec->bodies = calloc(2, sizeof *rec->bodies);
    add_body(rec, 0, "ball", true);
    add_body(rec, 1, "rock", false);
    rec->nworlds = 1;
    rec->worlds = calloc(1, sizeof *rec->worlds);
    tpPlanWorld *w = &rec->worlds[0];
    assert_true(tpPlanWorld_Alloc(w, rec, 4));
    for (int b = 0; b < 2; b++)
        for (int k = 0; k <= 4; k++)
            w->traj[b][TP_STATE_DOUBLES * k + 3] = 1.0; /* identity quaternions */
    double *x = w->traj[0];
    x[TP_STATE_DOUBLES * 1 + 7] = 2.0; /* vx after step 0 */
    x[TP_STATE_DOUBLES * 2 + 7] = 2.0;
    x[TP_STATE_DOUBLES * 3 + 7] = 2.0;
    x[TP_STATE_DOUBLES * 4 + 7] = 2.0;
    x[TP_STATE_DOUBLES * 2 + 12] = 1.0; /* wz before step 2 */
    x[TP_STATE_DOUBLES * 3 + 12] = 3.0;
    x[TP_STATE_DOUBLES * 4 + 12] = 3.0;
    w->controls[0][0] = 3.0;
    w->controls[0][2] = 4.0;
    w->controls[0][TP_CONTROL_DOUBLES * 2 + 5] = 2.0;
}

static void test_figures(void **state)
{
    (void)state;
    tpPlanRecord rec;
    build(&rec);
    tpPlanControl per[2], total;
    tpPlanWorld_Control(&rec, &rec.worlds[0], per, &total);
    /* impulse 5 N x 0.5 s; angular 2 N m x 0.5 s; work F.v_mean dt = 3 x 1 x 0.5 + tau.w_mean dt = 2 x 2 x 0.5 */
    assert_true(per[0].impulse == 2.5 && per[0].angular_impulse == 1.0 && per[0].work == 3.5);
    assert_true(per[0].time == 1.0 && per[0].steps == 2);
    assert_true(per[1].impulse == 0.0 && per[1].work == 0.0 && per[1].steps == 0);
    assert_true(total.impulse == 2.5 && total.work == 3.5 && total.time == 1.0 && total.steps == 2);
    tpPlanWorld_Control(&rec, &rec.worlds[0], NULL, NULL); /* nothing wanted: fine */
    tpPlanRecord_Free(&rec);
}

static void test_round_trip(void **state)
{
    (void)state;
    tpPlanRecord rec, back;
    build(&rec);
    char *ta = plan_round_trip(&rec, &back);
    tpPlanRecord_Free(&back);
    char err[600] = "";
    const char *b = tmp_path("b.json");
    assert_non_null(strstr(ta, "\n  \"control\": {\"total\": {\"impulse\": 2.5, \"angular_impulse\": 1, \"work\": 3.5, "
                               "\"time\": 1}, \"bodies\": {\"ball\": {\"impulse\": 2.5, \"angular_impulse\": 1, "
                               "\"work\": 3.5, \"time\": 1}}},\n"));
    /* edited figures that stay in range read (the reader does not recompute them; a rewrite does) */
    char *edited = strdup(ta);
    char *at = strstr(edited, "\"ball\": {\"impulse\": 2.5");
    memcpy(at, "\"ball\": {\"impulse\": 9.5", strlen("\"ball\": {\"impulse\": 9.5"));
    plan_spit(b, edited);
    free(edited);
    if (!tpPlanRecord_Read(&back, b, err, sizeof err))
        fail_msg("%s", err);
    tpPlanRecord_Free(&back);
    /* an older plan, without the member, reads as before */
    char *line = strstr(ta, ",\n  \"control\": ");
    char *end = strstr(line + 2, ",\n"); /* the member ends at the next member's comma */
    memmove(line, end, strlen(end) + 1);
    plan_spit(b, ta);
    if (!tpPlanRecord_Read(&back, b, err, sizeof err))
        fail_msg("%s", err);
    tpPlanRecord_Free(&back);
    free(ta);
    tpPlanRecord_Free(&rec);
}

/* Writes build()'s plan, applies an edit to its text and expects the reader to refuse it. */
#define expect_edit_refused(from, to, want) plan_expect_built_edit_refused(build, from, to, want)

static void test_reader_refusals(void **state)
{
    (void)state;
    expect_edit_refused("\"ball\": {\"impulse\": 2.5", "\"ball\": {\"impulse\": -2.5",
                        "control.bodies.ball.impulse: -2.5 is negative");
    expect_edit_refused("\"work\": 3.5, \"time\": 1},", "\"work\": 3.5, \"time\": 2.5},",
                        "control.total.time: 2.5 s is longer than the plan (2 s)");
    expect_edit_refused("\"control\": {\"total\"", "\"control\": {\"extra\": 1, \"total\"",
                        "control: unknown field \"extra\" (expected total, bodies)");
    expect_edit_refused("\"control\": {\"total\"", "\"control\": [], \"x\": {\"total\"", "control: expected an object");
    expect_edit_refused("\"ball\": {\"impulse\"", "\"rock\": {\"impulse\"", "control.bodies.ball: missing");
    expect_edit_refused("\"ball\": {\"impulse\"", "\"rock\": {}, \"ball\": {\"impulse\"",
                        "control.bodies: 2 entries for 1 controlled bodies");
    expect_edit_refused("\"ball\": {\"impulse\": 2.5,", "\"ball\": {\"impulse\": 2.5, \"peak\": 1,",
                        "control.bodies.ball: unknown field \"peak\"");
    expect_edit_refused("\"ball\": {\"impulse\": 2.5,", "\"ball\": {\"impulse\": \"2.5\",",
                        "control.bodies.ball.impulse: expected a finite number");
    expect_edit_refused("\"angular_impulse\": 1, \"work\": 3.5, \"time\": 1}}}",
                        "\"angular_impulse\": 1, \"work\": 3.5}}}", "control.bodies.ball: missing field \"time\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_reader_refusals),
    };
    return cmocka_run_group_tests(tests, tmp_dir_setup, tmp_dir_teardown);
}
