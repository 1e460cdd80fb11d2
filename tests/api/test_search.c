/* The anytime search through libtplan.so: iteration budgets split any way give
 * tplan_plan's plan for the same total; the same calls give the same plans; a re-root on a state of
 * the best plan keeps its subtree (the plan then starts there and replays), a disturbed state
 * restarts; cancel from another thread stops a run that would not end; bad budgets, tolerances and
 * states get a code and the field. Wall-clock budgets are exercised, never timed (no assertion on a
 * duration: tests/api/bench_deadline measures them). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tplan/tplan.h"

#define POOL TP_SOURCE_DOMAINS "/pool.lua"

#include "push_domain.h" /* k_push: another domain */

/* k_push with a goal out of reach: a search that never ends on its own. */
/* A domain whose goal is never met (the push domain's region x in [300, 500] was reached in 165
 * iterations, the ball sped up by every impulse: a run that a loaded machine let go that far ended
 * solved, not cancelled, and the next runs did fewer iterations than asked). */
static const char k_endless[] = "local tp = require 'tp'\n"
                                "return tp.domain {\n"
                                "  name = 'endless', dt = 1/60,\n"
                                "  bodies = {\n"
                                "    tp.plane { name = 'floor' },\n"
                                "    tp.sphere { name = 'ball', class = 'active', radius = 0.05, mass = 0.2,\n"
                                "                pos = {0, 0, 0.05}, max_force = 50 } },\n"
                                "  tactics = { tp.tactic { name = 'push', body = 'ball', skills = {\n"
                                "    tp.skill.impulse { name = 'roll', speed = tp.uniform(0.5, 3),\n"
                                "                       direction = tp.angle(-0.4, 0.4) } } } },\n"
                                "  goal = function(s) return false end,\n"
                                "  planner = { max_iters = 1000000000 },\n"
                                "}\n";

static tplan_domain *g_pool;

static int setup(void **state)
{
    (void)state;
    tplan_error e;
    g_pool = tplan_domain_load_file(POOL, NULL, 0, NULL, &e);
    if (!g_pool) {
        fprintf(stderr, "load: %s\n", e.message);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tplan_domain_free(g_pool);
    return 0;
}

/* The plan file's bytes up to its timing block (the only wall-clock numbers), as a new string. */
static char *plan_text(const tplan_result *r)
{
    size_t len = 0;
    const char *p = tplan_result_plan(r, &len);
    assert_non_null(p);
    const char *t = strstr(p, "\"timing\"");
    const size_t n = t ? (size_t)(t - p) : len;
    char *s = malloc(n + 1);
    assert_non_null(s);
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

static void pool_def(tplan_run_def *def, int64_t max_iters)
{
    tplan_run_def_init(def);
    def->seed = 1;
    def->max_iters = max_iters;
    def->time_limit = 0;
}

/* A pool search (seed 1, the domain's max_iters; solutions: 0 for the domain's) run for `iterations`. */
static tplan_search *pool_search(int solutions, int64_t iterations)
{
    tplan_run_def def;
    pool_def(&def, 0);
    def.solutions = solutions;
    tplan_error e;
    tplan_search *s = tplan_search_new(g_pool, &def, NULL, &e);
    assert_non_null(s);
    assert_int_equal(tplan_search_run_iterations(s, iterations, &e), TPLAN_OK);
    return s;
}

/* N iterations in runs of 1, 49, 100 and the rest give tplan_plan's plan with max_iters N, byte for
 * byte (apart from the timing): the loop's whole state is kept between calls. */
static void test_split_equals_plan(void **state)
{
    (void)state;
    static const int64_t totals[] = {60, 150, 400};
    for (size_t t = 0; t < sizeof totals / sizeof totals[0]; ++t) {
        tplan_run_def def;
        pool_def(&def, totals[t]);
        tplan_error e;
        tplan_result *plan = tplan_plan(g_pool, &def, &e);
        assert_non_null(plan);
        tplan_search *s = tplan_search_new(g_pool, &def, NULL, &e);
        assert_non_null(s);
        const int64_t runs[] = {1, 49, 100, 1000000};
        for (size_t i = 0; i < 4 && !tplan_search_done(s); ++i) {
            assert_int_equal(tplan_search_run_iterations(s, runs[i], &e), TPLAN_OK);
        }
        /* runs of one iteration, most of which keep the best plan's worlds (its statistics only are
           written again): the same bytes */
        tplan_search *one = tplan_search_new(g_pool, &def, NULL, &e);
        assert_non_null(one);
        while (!tplan_search_done(one)) {
            assert_int_equal(tplan_search_run_iterations(one, 1, &e), TPLAN_OK);
        }
        char *c = plan_text(tplan_search_best(one));
        tplan_search_free(one);
        char *a = plan_text(plan), *b = plan_text(tplan_search_best(s));
        assert_string_equal(a, b);
        assert_string_equal(a, c);
        assert_int_equal(tplan_result_iterations(tplan_search_best(s)), tplan_result_iterations(plan));
        free(c);
        free(a);
        free(b);
        tplan_search_free(s);
        tplan_result_free(plan);
    }
}

/* A search of 30 iterations, a re-root on the best plan's state at step `at` (or that state
 * disturbed by 1 mm), 200 more: the best plan's text; *kept the nodes the re-root kept. */
static char *reroot_story(int at, int disturb, int64_t *kept)
{
    tplan_error e;
    tplan_search *s = pool_search(0, 30);
    const tplan_result *best = tplan_search_best(s);
    assert_true(tplan_result_steps(best) >= at);
    tplan_state *x = tplan_result_state(best, g_pool, at, &e);
    assert_non_null(x);
    if (disturb) {
        double row[13];
        int rest;
        assert_int_equal(tplan_state_get_body(x, "cue", row, &rest, &e), TPLAN_OK);
        row[0] += 1e-3;
        assert_int_equal(tplan_state_set_body(x, "cue", row, 0, &e), TPLAN_OK);
    }
    assert_int_equal(tplan_search_reroot(s, x, 0, kept, &e), TPLAN_OK);
    /* the best plan now starts at the observed state */
    best = tplan_search_best(s);
    int rows = 0;
    const double *cue = tplan_result_states(best, tplan_result_body_index(best, "cue"), &rows);
    double row[13];
    assert_int_equal(tplan_state_get_body(x, "cue", row, NULL, &e), TPLAN_OK);
    assert_memory_equal(cue, row, sizeof row);
    assert_int_equal(tplan_search_run_iterations(s, 200, &e), TPLAN_OK);
    best = tplan_search_best(s);
    size_t len = 0;
    const char *bytes = tplan_result_plan(best, &len);
    /* a plan of a re-rooted search replays from its start, bit for bit */
    assert_int_equal(tplan_replay(g_pool, bytes, len, &e), TPLAN_OK);
    char *text = plan_text(best);
    tplan_state_free(x);
    tplan_search_free(s);
    return text;
}

static void test_reroot(void **state)
{
    (void)state;
    int64_t kept = -1, kept2 = -1;
    char *a = reroot_story(5, 0, &kept), *b = reroot_story(5, 0, &kept2);
    assert_true(kept > 1); /* the node at step 5 and what grew below it */
    assert_int_equal(kept, kept2);
    assert_string_equal(a, b); /* the same calls, the same plan */
    int64_t restarted = -1;
    char *c = reroot_story(5, 1, &restarted);
    assert_int_equal(restarted, 0); /* 1 mm away from every node: a new tree */
    char *d = reroot_story(5, 1, &restarted);
    assert_string_equal(c, d);
    free(a);
    free(b);
    free(c);
    free(d);
}

/* A re-root with a tolerance finds the node a slightly disturbed state is near. */
static void test_reroot_tolerance(void **state)
{
    (void)state;
    tplan_error e;
    tplan_search *s = pool_search(0, 30);
    tplan_state *x = tplan_result_state(tplan_search_best(s), g_pool, 3, &e);
    assert_non_null(x);
    double row[13];
    int rest;
    assert_int_equal(tplan_state_get_body(x, "cue", row, &rest, &e), TPLAN_OK);
    row[1] += 1e-7;
    assert_int_equal(tplan_state_set_body(x, "cue", row, rest, &e), TPLAN_OK);
    int64_t kept = -1;
    assert_int_equal(tplan_search_reroot(s, x, 1e-6, &kept, &e), TPLAN_OK);
    assert_true(kept > 1);
    tplan_state_free(x);
    tplan_search_free(s);
}

/* A re-root on the root's own state keeps the whole tree, its solutions with it: a solved search
 * stays solved and done (a run then adds nothing), and the plan is taken by the caller. */
static void test_reroot_on_root(void **state)
{
    (void)state;
    tplan_error e;
    tplan_search *s = pool_search(1, 1);
    while (!tplan_search_done(s)) {
        assert_int_equal(tplan_search_run_iterations(s, 100, &e), TPLAN_OK);
    }
    assert_int_equal(tplan_result_status(tplan_search_best(s)), TPLAN_SOLVED);
    const int64_t nodes = tplan_result_nodes(tplan_search_best(s));
    const int steps = tplan_result_steps(tplan_search_best(s));
    tplan_state *x = tplan_state_new(g_pool, &e);
    int64_t kept = 0;
    assert_int_equal(tplan_search_reroot(s, x, 0, &kept, &e), TPLAN_OK);
    assert_int_equal(kept, nodes);
    assert_int_equal(tplan_search_run_iterations(s, 50, &e), TPLAN_OK);
    assert_true(tplan_search_done(s));
    tplan_result *taken = tplan_search_take_best(s);
    assert_non_null(taken);
    assert_null(tplan_search_best(s));
    assert_int_equal(tplan_result_status(taken), TPLAN_SOLVED);
    assert_int_equal(tplan_result_nodes(taken), nodes);
    assert_int_equal(tplan_result_steps(taken), steps); /* the same solution */
    tplan_result_free(taken);
    tplan_state_free(x);
    tplan_search_free(s);
}

typedef struct Runner {
    tplan_search *s;
    tplan_code code;
    atomic_int finished;
} Runner;

static void *run_long(void *user)
{
    Runner *r = user;
    tplan_error e;
    r->code = tplan_search_run(r->s, 1e6, &e); /* a budget of 11 days: only the cancel ends it */
    atomic_store(&r->finished, 1);
    return NULL;
}

static void test_cancel_from_thread(void **state)
{
    (void)state;
    tplan_error e;
    tplan_domain *d = tplan_domain_load_string("endless.lua", k_endless, sizeof k_endless - 1, NULL, 0, NULL, &e);
    assert_non_null(d);
    tplan_search *s = tplan_search_new(d, NULL, NULL, &e);
    assert_non_null(s);
    Runner r = {s, TPLAN_ERR_INTERNAL, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, run_long, &r), 0);
    while (!atomic_load(&r.finished)) { /* until the run returns: no sleep, no timing */
        tplan_search_cancel(s);
    }
    pthread_join(th, NULL);
    assert_int_equal(r.code, TPLAN_OK);
    assert_false(tplan_search_done(s));
    /* a cancel made after the run's end (the loop above may make one) stops the next run: spend it */
    assert_int_equal(tplan_search_run_iterations(s, 1, &e), TPLAN_OK);
    /* the cancel is spent: the next run goes its whole budget */
    const int64_t before = tplan_result_iterations(tplan_search_best(s));
    assert_true(before < 1000000000); /* the cancel, not the search's end, stopped it */
    assert_int_equal(tplan_search_run_iterations(s, 10, &e), TPLAN_OK);
    assert_int_equal(tplan_result_iterations(tplan_search_best(s)), before + 10);
    /* and a short wall-clock run returns with a plan */
    assert_int_equal(tplan_search_run(s, 0.002, &e), TPLAN_OK);
    assert_int_equal(tplan_result_status(tplan_search_best(s)), TPLAN_APPROXIMATE);
    tplan_search_free(s);
    tplan_domain_free(d);
}

#define expect_field(got, e, field) expect_field_((got), (e), (field), __LINE__)
static void expect_field_(tplan_code got, const tplan_error *e, const char *field, int line)
{
    if (got != TPLAN_ERR_ARGUMENT) {
        fprintf(stderr, "line %d: %s (%s)\n", line, tplan_code_name(got), e->message);
    }
    assert_int_equal(got, TPLAN_ERR_ARGUMENT);
    assert_int_equal(e->code, TPLAN_ERR_ARGUMENT);
    assert_string_equal(e->field, field);
    assert_null(strchr(e->message, '\n'));
    assert_non_null(strstr(e->message, field));
}

static void test_bad_input(void **state)
{
    (void)state;
    tplan_error e;
    tplan_search *s = tplan_search_new(g_pool, NULL, NULL, &e);
    assert_non_null(s);
    expect_field(tplan_search_run(s, 0, &e), &e, "budget");
    expect_field(tplan_search_run(s, -1, &e), &e, "budget");
    expect_field(tplan_search_run(s, NAN, &e), &e, "budget");
    expect_field(tplan_search_run(s, INFINITY, &e), &e, "budget");
    expect_field(tplan_search_run_iterations(s, 0, &e), &e, "iterations");
    tplan_state *x = tplan_state_new(g_pool, &e);
    expect_field(tplan_search_reroot(s, x, -1, NULL, &e), &e, "tolerance");
    expect_field(tplan_search_reroot(s, x, NAN, NULL, &e), &e, "tolerance");
    /* a state of another domain, as a start and as an observation */
    tplan_domain *push = tplan_domain_load_string("push.lua", k_push, sizeof k_push - 1, NULL, 0, NULL, &e);
    assert_non_null(push);
    tplan_state *other = tplan_state_new(push, &e);
    assert_non_null(other);
    expect_field(tplan_search_reroot(s, other, 0, NULL, &e), &e, "domain");
    assert_null(tplan_search_new(g_pool, NULL, other, &e));
    assert_string_equal(e.field, "domain");
    /* a state of a domain also named pool with one of its bodies only: a wrong body count */
    static const char one[] = "local tp = require 'tp'\n"
                              "return tp.domain { name = 'pool', dt = 1/60,\n"
                              "  bodies = { tp.plane { name = 'floor' },\n"
                              "    tp.sphere { name = 'cue', class = 'active', radius = 0.05, mass = 0.2,\n"
                              "                pos = {0, 0, 0.05}, max_force = 50 } },\n"
                              "  tactics = { tp.tactic { name = 'push', body = 'cue', skills = {\n"
                              "    tp.skill.impulse { name = 'roll', speed = tp.uniform(0.5, 3) } } } },\n"
                              "  goal = tp.inside { body = 'cue', min = {0.3, -0.5}, max = {5, 0.5} } }\n";
    tplan_domain *small = tplan_domain_load_string("one.lua", one, sizeof one - 1, NULL, 0, NULL, &e);
    if (!small) {
        fprintf(stderr, "%s\n", e.message);
    }
    assert_non_null(small);
    tplan_state *few = tplan_state_new(small, &e);
    assert_non_null(few);
    expect_field(tplan_search_reroot(s, few, 0, NULL, &e), &e, "bodies");
    assert_non_null(strstr(e.message, "1 bodies given"));
    tplan_state_free(few);
    tplan_domain_free(small);
    char *json = tplan_state_to_json(x);
    assert_non_null(json);
    tplan_state *y = tplan_state_from_json(g_pool, json, strlen(json), &e);
    assert_non_null(y);
    assert_int_equal(tplan_state_set_time(y, -1, &e), TPLAN_ERR_ARGUMENT); /* a time before 0 */
    assert_string_equal(e.field, "time");
    /* NULLs */
    assert_int_equal(tplan_search_run(NULL, 1, &e), TPLAN_ERR_ARGUMENT);
    assert_int_equal(tplan_search_reroot(s, NULL, 0, NULL, &e), TPLAN_ERR_ARGUMENT);
    assert_null(tplan_search_new(NULL, NULL, NULL, &e));
    assert_null(tplan_search_best(NULL));
    tplan_search_cancel(NULL);
    tplan_search_free(NULL);
    /* the search still works after all that */
    assert_int_equal(tplan_search_run_iterations(s, 5, &e), TPLAN_OK);
    tplan_free(json);
    tplan_state_free(y);
    tplan_state_free(other);
    tplan_state_free(x);
    tplan_domain_free(push);
    tplan_search_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_equals_plan), cmocka_unit_test(test_reroot),
        cmocka_unit_test(test_reroot_tolerance),  cmocka_unit_test(test_cancel_from_thread),
        cmocka_unit_test(test_bad_input),         cmocka_unit_test(test_reroot_on_root),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
