/* The temporal conditions of a plan (member "temporal"): an exact round trip of
 * the conditions, each world's memory changes (the plan's and the alternatives', in file order)
 * and the unmet goal, byte-identical rewrites, a plan without the member, and the refusals of the
 * writer and of the strict reader (its own version, unknown members, kinds and sizes that do not
 * fit, steps, conditions and values out of range, changes out of order or that change nothing),
 * each naming the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/plan.h"

#include "plan_edit.h"
#include "tmp_dir.h"

static void set_changes(tpPlanWorld *w, const int32_t *c, int n)
{
    free(w->tchanges);
    w->tchanges = malloc(sizeof *c * 3 * (size_t)(n > 0 ? n : 1));
    if (n > 0) {
        memcpy(w->tchanges, c, sizeof *c * 3 * (size_t)n);
    }
    w->ntchanges = n;
}

/* One static body, two worlds of 5 and 4 steps (the second selected), a sequence of 3 and an
 * at_time; the selected world reaches the sequence's end, the other does not. */
static void build(tpPlanRecord *rec)
{
    plan_header(rec, "t", 1);
    plan_static_body(rec, 0, "wall");
    rec->nworlds = 2;
    rec->worlds = calloc(2, sizeof *rec->worlds);
    assert_true(tpPlanWorld_Alloc(&rec->worlds[0], rec, 5));
    assert_true(tpPlanWorld_Alloc(&rec->worlds[1], rec, 4));
    rec->selected = 1;
    rec->ntemporal = 2;
    rec->temporal = calloc(2, sizeof *rec->temporal);
    rec->temporal[0] = (tpPlanTemporal){strdup("tp.sequence (t.lua:3)"), strdup("sequence"), 3};
    rec->temporal[1] = (tpPlanTemporal){strdup("tp.at_time (t.lua:4)"), strdup("at_time"), 2};
    const int32_t alt[] = {1, 0, 1, 5, 1, 2};
    const int32_t sel[] = {1, 0, 1, 2, 0, 2, 2, 1, 1, 4, 0, 3};
    set_changes(&rec->worlds[0], alt, 2);
    set_changes(&rec->worlds[1], sel, 4);
}

static void test_round_trip(void **state)
{
    (void)state;
    tpPlanRecord rec, back;
    build(&rec);
    char *ta = plan_round_trip(&rec, &back);
    assert_int_equal(back.ntemporal, 2);
    assert_string_equal(back.temporal[1].name, "tp.at_time (t.lua:4)");
    assert_string_equal(back.temporal[0].kind, "sequence");
    assert_int_equal(back.temporal[0].size, 3);
    /* read back, the selected world is worlds[0]: its changes come first in the file */
    assert_int_equal(back.worlds[0].ntchanges, 4);
    assert_int_equal(back.worlds[0].tchanges[9], 4);
    assert_int_equal(back.worlds[1].ntchanges, 2);
    assert_null(back.goal_unmet);
    assert_non_null(strstr(ta,
                           "\n  \"temporal\": {\"version\": 1, \"conditions\": [{\"name\": \"tp.sequence (t.lua:3)\", "
                           "\"kind\": \"sequence\", \"size\": 3}, {\"name\": \"tp.at_time (t.lua:4)\", \"kind\": "
                           "\"at_time\", \"size\": 2}], \"changes\": [[[1, 0, 1], [2, 0, 2], [2, 1, 1], [4, 0, "
                           "3]], [[1, 0, 1], [5, 1, 2]]]},\n  \"steps\": 4"));
    free(ta);
    /* the memory at a step, and in words (the viewer's HUD, the page's player) */
    int32_t mem[2];
    tpPlanRecord_TemporalAt(&back, 0, 0, mem);
    assert_true(mem[0] == 0 && mem[1] == 0);
    tpPlanRecord_TemporalAt(&back, 0, 2, mem);
    assert_true(mem[0] == 2 && mem[1] == 1);
    tpPlanRecord_TemporalAt(&back, 0, 99, mem);
    assert_true(mem[0] == 3 && mem[1] == 1);
    char text[200];
    tpPlanRecord_TemporalText(&back, 0, 1, 0, text, sizeof text);
    assert_string_equal(text, "tp.sequence (t.lua:3): 1 of 3");
    tpPlanRecord_TemporalText(&back, 0, 1, 1, text, sizeof text);
    assert_string_equal(text, "tp.at_time (t.lua:4): pending");
    tpPlanRecord_TemporalText(&back, 0, 2, 1, text, sizeof text);
    assert_string_equal(text, "tp.at_time (t.lua:4): held");
    tpPlanRecord_TemporalText(&back, 1, 5, 1, text, sizeof text);
    assert_string_equal(text, "tp.at_time (t.lua:4): failed");
    tpPlanRecord_Free(&back);
    /* the unmet goal travels in the member */
    rec.goal_unmet = strdup("tp.sequence (t.lua:3) was false: step 2 of 3 (x) not reached at t = 1 s");
    free(plan_round_trip(&rec, &back));
    assert_string_equal(back.goal_unmet, rec.goal_unmet);
    tpPlanRecord_Free(&back);
    /* no temporal conditions: no member, and a plan without it reads with none */
    for (int i = 0; i < rec.ntemporal; ++i) {
        free(rec.temporal[i].name);
        free(rec.temporal[i].kind);
    }
    free(rec.temporal);
    rec.temporal = NULL;
    rec.ntemporal = 0;
    free(rec.goal_unmet);
    rec.goal_unmet = NULL;
    set_changes(&rec.worlds[0], NULL, 0);
    set_changes(&rec.worlds[1], NULL, 0);
    plan_expect_absent(&rec, "\"temporal\": {", &back);
    assert_int_equal(back.ntemporal, 0);
    tpPlanRecord_Free(&back);
    tpPlanRecord_Free(&rec);
}

static void test_refusals(void **state)
{
    (void)state;
    tpPlanRecord rec;
    build(&rec);
    /* the writer */
    rec.temporal[0].size = 0;
    plan_expect_write_refused(&rec, "temporal.conditions[0].size: 0 does not fit a sequence");
    rec.temporal[0].size = 3;
    rec.temporal[1].size = 1;
    plan_expect_write_refused(&rec, "temporal.conditions[1].size: 1 does not fit a at_time");
    rec.temporal[1].size = 2;
    rec.worlds[1].tchanges[3] = 1; /* the second change at step 1, before the first's condition order */
    rec.worlds[1].tchanges[4] = 0;
    plan_expect_write_refused(&rec, "temporal.changes[0][1]: not after the change before it");
    rec.worlds[1].tchanges[3] = 2;
    rec.worlds[1].tchanges[5] = 1;
    plan_expect_write_refused(&rec, "temporal.changes[0][1][2]: value 1 is no change");
    rec.worlds[1].tchanges[5] = 2;
    rec.worlds[0].tchanges[3] = 6;
    plan_expect_write_refused(&rec, "temporal.changes[1][1][0]: step 6 is not in 0..5 (the world's steps)");
    rec.worlds[0].tchanges[3] = 5;
    /* the reader */
    plan_expect_edit_refused(&rec, "\"temporal\": {\"version\": 1,", "\"temporal\": {\"version\": 3,",
                             "temporal.version: 3 is not supported (this reader knows 1..2)");
    /* a change at step 0 (a start state's memory) needs version 2 */
    plan_expect_edit_refused(&rec, "[[1, 0, 1], [5, 1, 2]]", "[[0, 0, 1], [5, 1, 2]]",
                             "temporal.changes[1][0][0]: step 0 is not in 1..5 (the world's steps; 0, a start's "
                             "memory, needs temporal version 2)");
    plan_expect_edit_refused(&rec, "\"temporal\": {\"version\": 1,", "\"temporal\": {\"version\": 1, \"x\": 1,",
                             "temporal: unknown field \"x\"");
    plan_expect_edit_refused(&rec, "\"kind\": \"at_time\"", "\"kind\": \"later\"", "temporal.conditions[1].kind");
    plan_expect_edit_refused(&rec, "[5, 1, 2]", "[5, 2, 1]", "temporal.changes[1][1][1]: condition 2 is not in 0..1");
    plan_expect_edit_refused(&rec, "[5, 1, 2]", "[5, 1]", "temporal.changes[1][1]: expected 3 integers");
    plan_expect_edit_refused(&rec, "[[1, 0, 1], [5, 1, 2]]]", "[[1, 0, 1], [5, 1, 2]], []]",
                             "temporal.changes: expected an array of 2 arrays");
    plan_expect_edit_refused(&rec, "\"size\": 3", "\"size\": 2.5", "temporal.conditions[0].size: expected an integer");
    tpPlanRecord_Free(&rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_round_trip), cmocka_unit_test(test_refusals)};
    return cmocka_run_group_tests(tests, tmp_dir_setup, tmp_dir_teardown);
}
