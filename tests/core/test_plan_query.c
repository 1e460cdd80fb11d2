/* Many-worlds browsing (tp/query.h): space-time queries over hand-made worlds
 * (inside a box in a window, always inside, ends inside, touches between spheres, boxes and a
 * floor, ends at rest, figures, not/never), the parser's one-line refusals naming the clause and
 * field (an unknown body, an empty region, a bad window, a dangling 'and'), ranking, the browser's
 * JSON answer, and the plan member "worlds": written only with alternatives, read strictly (its
 * own version, one summary per world, the world's steps), a byte-identical rewrite. */
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
#include "tp/query.h"

#include "plan_edit.h"
#include "tmp_dir.h"

static void moving_body(tpPlanRecord *rec, int i, const char *name, const char *shape, double size)
{
    tpPlanBody *b = &rec->bodies[i];
    b->name = strdup(name);
    b->cls = strdup("passive");
    b->shape = strdup(shape);
    b->size[0] = b->size[1] = b->size[2] = size;
    b->color[3] = 1.0f;
    b->moving = true;
}

static void put(tpPlanWorld *w, int body, int step, double x, double y, double z, double vx)
{
    double *s = w->traj[body] + (size_t)step * TP_STATE_DOUBLES;
    s[0] = x, s[1] = y, s[2] = z, s[3] = 1.0, s[7] = vx;
}

/* dt 1 s. Bodies: "floor" (a plane z = 0), "ball" (sphere r 0.1), "crate" (box 0.2), "vase"
 * (sphere r 0.1, at rest at (5, 0, 0.1)). World 0 (selected, 4 steps): the ball rolls along x from
 * 0 to 3 m at 1 m/s, then stops at x = 3 (rest) touching nothing but the floor; the crate sits
 * at (3, 1, 0.1). World 1 (2 steps): the ball flies at z = 2 from x 0 to 4.85 and ends touching the
 * vase ... (4.85 + 0.1 + 0.1 - 5 = 0.05: not yet) -- it ends at x 4.8 + 0.1 + 0.1 = 5.0: touching. */
static void build(tpPlanRecord *rec)
{
    plan_header(rec, "q", 4);
    rec->dt = 1.0;
    tpPlanBody *f = &rec->bodies[0];
    f->name = strdup("floor");
    f->cls = strdup("static");
    f->shape = strdup("plane");
    f->size[2] = 1.0;
    f->color[3] = 1.0f;
    f->pose[3] = 1.0;
    moving_body(rec, 1, "ball", "sphere", 0.1);
    moving_body(rec, 2, "crate", "box", 0.2);
    moving_body(rec, 3, "vase", "sphere", 0.1);
    rec->nworlds = 2;
    rec->worlds = calloc(2, sizeof *rec->worlds);
    tpPlanWorld *a = &rec->worlds[0], *b = &rec->worlds[1];
    assert_true(tpPlanWorld_Alloc(a, rec, 4));
    assert_true(tpPlanWorld_Alloc(b, rec, 2));
    a->cost = 4, b->cost = 2;
    for (int k = 0; k <= 4; k++) {
        put(a, 1, k, fmin(k, 3), 0, 0.1, k < 3 ? 1.0 : 0.0);
        put(a, 2, k, 3, 1, 0.1, 0);
        put(a, 3, k, 5, 0, 0.1, 0);
    }
    for (int k = 0; k <= 2; k++) {
        put(b, 1, k, 2.4 * k, 0, k == 2 ? 0.1 : 2.0, 2.4);
        put(b, 2, k, 3, 1, 0.1, 0);
        put(b, 3, k, 5, 0, 0.1, 0);
    }
    rec->selected = 0;
}

static bool holds(const tpPlanRecord *rec, int w, const char *text)
{
    tpQuery q;
    char err[512] = "";
    if (!tpQuery_Parse(&q, rec, text, err, sizeof err)) {
        fail_msg("'%s' does not parse: %s", text, err);
    }
    return tpQuery_Holds(&q, rec, w);
}

static void test_clauses(void **state)
{
    (void)state;
    tpPlanRecord rec;
    build(&rec);
    assert_true(holds(&rec, 0, ""));
    assert_true(holds(&rec, 0, "ball inside [1.5,2.5]x[-1,1]x[0,1] between 1.5 2.5"));
    assert_false(holds(&rec, 0, "ball inside [1.5,2.5]x[-1,1]x[0,1] between 0 1"));
    assert_true(holds(&rec, 0, "ball inside [1.5,2.5]x[-1,1]x[0,1] between 0 and 2"));
    assert_false(holds(&rec, 1, "ball inside [1.5,2.5]x[-1,1]x[0,1]")); /* it flew over */
    assert_true(holds(&rec, 1, "ball inside [1.5,2.5]x[-1,1]x[1,inf]"));
    assert_true(holds(&rec, 0, "ball always inside [-1,4]x[-1,1]x[0,1]"));
    assert_false(holds(&rec, 0, "ball always inside [-1,2]x[-1,1]x[0,1]"));
    assert_true(holds(&rec, 0, "ball always inside [-1,2]x[-1,1]x[0,1] before 2"));
    assert_true(holds(&rec, 0, "ball ends inside [2.9,3.1]x[-0.1,0.1]x[0,0.2]"));
    assert_true(holds(&rec, 0, "ball inside [2.5,3.5]x[-1,1]x[-1,1] at 3"));
    assert_false(holds(&rec, 0, "ball inside [2.5,3.5]x[-1,1]x[-1,1] at 2"));
    /* touches: the floor (a plane) all along world 0, the crate (1 m aside) never, the vase at the
       end of world 1 only */
    assert_true(holds(&rec, 0, "ball touches floor"));
    assert_false(holds(&rec, 1, "ball touches floor between 0 1"));
    assert_true(holds(&rec, 0, "never ball touches crate"));
    assert_true(holds(&rec, 0, "ball never touches vase"));
    assert_false(holds(&rec, 1, "ball never touches vase"));
    assert_true(holds(&rec, 1, "ball touches vase after 1.5"));
    assert_true(holds(&rec, 0, "crate touches floor and not crate touches vase"));
    /* rest: world 0's ball stopped; world 1's ends at 2.4 m/s */
    assert_true(holds(&rec, 0, "ends at rest"));
    assert_false(holds(&rec, 1, "ends at rest"));
    assert_true(holds(&rec, 1, "crate ends at rest and vase at rest"));
    assert_true(holds(&rec, 1, "not ball ends at rest"));
    /* figures */
    assert_true(holds(&rec, 0, "duration = 4 and steps >= 4 and cost < 5"));
    assert_false(holds(&rec, 1, "duration > 2"));
    assert_true(holds(&rec, 1, "end_speed > 2 and impulse <= 0"));
    tpPlanRecord_Free(&rec);
}

static void expect_refused(const tpPlanRecord *rec, const char *text, const char *want)
{
    tpQuery q;
    char err[512] = "";
    if (tpQuery_Parse(&q, rec, text, err, sizeof err)) {
        fail_msg("'%s' parsed", text);
    }
    if (!strstr(err, want) || strchr(err, '\n')) {
        fail_msg("'%s': got \"%s\", want \"%s\"", text, err, want);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    tpPlanRecord rec;
    build(&rec);
    expect_refused(&rec, "bal inside [0,1]x[0,1]x[0,1]",
                   "query: clause 1 (body): no body named 'bal' (bodies: floor, ball");
    expect_refused(&rec, "ends at rest and ball touches vaze", "clause 2 (touches): other body: no body named 'vaze'");
    expect_refused(&rec, "ball inside [2,1]x[0,1]x[0,1]", "clause 1 (inside): empty region: x from 2 to 1");
    expect_refused(&rec, "ball inside [0,1]x[0,1]x[3,3]", "empty region: z from 3 to 3");
    expect_refused(&rec, "ball inside [0,1]x[0,1]", "region: expected 'x', got the end");
    expect_refused(&rec, "ball inside [0,a]x[0,1]x[0,1]", "region x: expected a number, got 'a'");
    expect_refused(&rec, "ball inside [0,1]x[0,1]x[0,1] between 3 1", "between: empty window");
    expect_refused(&rec, "ball touches ball", "other body: 'ball' cannot touch itself");
    expect_refused(&rec, "ball flies", "expected inside, always inside, ends inside, ends at rest or touches");
    expect_refused(&rec, "ends at rest and", "query: ends with 'and'");
    expect_refused(&rec, "ends at rest or duration < 3", "expected 'and' or the end, got 'or'");
    expect_refused(&rec, "duration < x", "clause 1 (duration): value: expected a number, got 'x'");
    expect_refused(&rec, "ball touches 'vase", "a quote (') is not closed");
    tpQueryFigure f[TP_QUERY_MAX_RANK];
    bool d[TP_QUERY_MAX_RANK];
    char err[512];
    assert_int_equal(tpQuery_ParseRank("duration,-impulse", f, d, err, sizeof err), 2);
    assert_true(f[0] == TP_QUERY_DURATION && !d[0] && f[1] == TP_QUERY_IMPULSE && d[1]);
    assert_int_equal(tpQuery_ParseRank("speed", f, d, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank: unknown key 'speed'"));
    tpPlanRecord_Free(&rec);
}

static void test_browse(void **state)
{
    (void)state;
    tpPlanRecord rec;
    build(&rec);
    char *out = NULL, err[512] = "";
    size_t len = 0;
    assert_true(tpQuery_Browse(&rec, NULL, "duration", &out, &len, err, sizeof err));
    assert_int_equal(strlen(out), len);
    assert_non_null(strstr(out, "\"order\": [1, 0]}"));
    assert_non_null(strstr(out, "{\"world\": 1, \"selected\": false, \"steps\": 2, \"duration\": 2, \"cost\": 2"));
    free(out);
    assert_true(tpQuery_Browse(&rec, "ends at rest", NULL, &out, &len, err, sizeof err));
    assert_non_null(strstr(out, "\"order\": [0]}"));
    assert_non_null(strstr(out, "\"at_rest\": true"));
    assert_non_null(strstr(out, "\"match\": false}"));
    free(out);
    assert_false(tpQuery_Browse(&rec, "vaze ends at rest", NULL, &out, &len, err, sizeof err));
    assert_null(out);
    assert_non_null(strstr(err, "no body named 'vaze'"));
    /* picking world 1: it comes first in the file, the old selection second */
    rec.nreports = 1;
    tpQuery_Select(&rec, 1);
    assert_int_equal(rec.selected, 1);
    assert_int_equal(rec.nreports, 0);
    assert_true(tpQuery_Browse(&rec, NULL, NULL, &out, &len, err, sizeof err));
    assert_non_null(strstr(out, "{\"world\": 0, \"selected\": true, \"steps\": 2,"));
    assert_non_null(strstr(out, "{\"world\": 1, \"selected\": false, \"steps\": 4,"));
    free(out);
    tpPlanRecord_Free(&rec);
}

static void test_member(void **state)
{
    (void)state;
    tpPlanRecord rec, back;
    build(&rec);
    char *ta = plan_round_trip(&rec, &back);
    tpPlanRecord_Free(&back);
    assert_non_null(strstr(ta,
                           "\n  \"worlds\": {\"version\": 1, \"summaries\": [\n    {\"world\": 0, \"selected\": true, "
                           "\"steps\": 4, \"duration\": 4, \"cost\": 4, \"control\": {\"impulse\": 0, "));
    assert_non_null(
        strstr(ta, "\"end\": {\"ball\": [3, 0, 0.1, 0], \"crate\": [3, 1, 0.1, 0], \"vase\": [5, 0, 0.1, 0]}"));
    free(ta);
    plan_expect_edit_refused(&rec, "\"worlds\": {\"version\": 1,", "\"worlds\": {\"version\": 2,",
                             "worlds.version: 2 is not supported (this reader knows 1)");
    plan_expect_edit_refused(&rec, "\"worlds\": {\"version\": 1,", "\"worlds\": {\"version\": 1, \"x\": 0,",
                             "worlds: unknown field \"x\"");
    plan_expect_edit_refused(&rec, "\"world\": 1, \"selected\": false, \"steps\": 2",
                             "\"world\": 1, \"selected\": false, \"steps\": 3",
                             "worlds.summaries[1].steps: expected 2 (the world's steps)");
    plan_expect_edit_refused(&rec, "\"world\": 1, \"selected\": false,", "\"world\": 1, \"selected\": true,",
                             "worlds.summaries[1].selected: expected false");
    plan_expect_edit_refused(&rec, "\"vase\": [5, 0, 0.1, 0]}", "\"vase\": [5, 0, 0.1]}",
                             "worlds.summaries[0].end.vase: expected [x, y, z, speed]");
    plan_expect_edit_refused(&rec, "\"at_rest\": true", "\"at_rest\": 1", "worlds.summaries[0].at_rest");
    /* one world: no member, so single-world plans keep their bytes */
    tpPlanWorld_FreeArrays(&rec.worlds[1], rec.nbodies, rec.ntactics);
    rec.nworlds = 1;
    plan_expect_absent(&rec, "\"worlds\"", NULL);
    rec.nworlds = 2; /* freed arrays: Free handles the zeroed world */
    tpPlanRecord_Free(&rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clauses),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_browse),
        cmocka_unit_test(test_member),
    };
    return cmocka_run_group_tests(tests, tmp_dir_setup, tmp_dir_teardown);
}
