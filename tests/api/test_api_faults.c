/* The embedding API under allocation failures, one at a time (SQLite's way, as tests/core/test_faults.c
 * does for the file readers and the planner): each call below -- a run definition from JSON and back,
 * a domain loaded from its text, a plan with its plan file's bytes, a state to JSON and back, a
 * replay, an anytime search -- is run once to count the allocations of tplan's own code (the Lua
 * state's included: the sandbox's allocator calls realloc), then again with the n-th of them failing.
 * Every run must end cleanly: success, or NULL / an error code with a one-line message that says
 * memory ran out; never a crash, never a message about something else (a NULL taken for a value),
 * and nothing leaks (the sanitizer build runs with detect_leaks=1). The first 400 allocations of a
 * call are each failed once; beyond them, 400 more spread evenly over the rest, so each call stays
 * within a few seconds under ASan. The static libraries are linked (not libtplan.so) so that
 * -Wl,--wrap sees their calls, and cJSON is given the hook's allocator (cJSON_InitHooks), so its
 * parses and prints fail too; ODE's own allocations are inside its shared library and are not
 * counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_hook.h"
#include "push_domain.h" /* k_push */
#include "tplan/tplan.h"

#define TP_FAULT_ALL 400    /* every allocation up to this one is failed once */
#define TP_FAULT_SPREAD 400 /* then this many more, evenly spread over the rest */

/* One call under test: true when it succeeded; on failure it has checked the error it got. */
typedef bool (*Call)(void *ctx);

/* A failure must say that memory ran out (the library's NOMEM, or the script's "not enough memory"
 * when one of the Lua state's allocations failed), in one line. */
static long g_used; /* allocations the call under test made (done() keeps the count) */

/* The part of a call under test ends here: what it allocated is counted, and nothing fails from now
 * (the test's own checks allocate too). */
static void done(void)
{
    g_used = g_fault_calls;
    g_fault_at = -1;
}

static void failed_cleanly(const char *what, long n, const tplan_error *e)
{
    done();
    bool memory = strstr(e->message, "memory") != NULL;
    bool code = e->code == TPLAN_ERR_NOMEM || e->code == TPLAN_ERR_SCRIPT || e->code == TPLAN_ERR_LIMIT;
    if (!code || !memory || strchr(e->message, '\n')) {
        fail_msg("%s, allocation %ld failing: %s \"%s\" (expected an out-of-memory error)", what, n,
                 tplan_code_name(e->code), e->message);
    }
}

static long g_n; /* the allocation failing in this run (for the messages) */

static void every_failure(const char *what, Call run, void *ctx)
{
    fault_reset(-1);
    g_n = 0;
    g_used = 0;
    assert_true(run(ctx));
    long total = g_used;
    assert_true(total > 0);
    long runs = 0, failed = 0;
    for (long n = 1; n <= total; ++n) {
        if (n > TP_FAULT_ALL) {
            long step = (total - TP_FAULT_ALL + TP_FAULT_SPREAD - 1) / TP_FAULT_SPREAD;
            if (step > 1 && (n - TP_FAULT_ALL) % step != 0) {
                continue;
            }
        }
        g_n = n;
        fault_reset(n);
        bool ok = run(ctx);
        fault_reset(-1);
        ++runs;
        failed += !ok;
    }
    /* the call still works once nothing fails */
    g_n = 0;
    assert_true(run(ctx));
    printf("%s: %ld allocations, %ld runs with one failing, %ld ended with an out-of-memory error\n", what, total, runs,
           failed);
    assert_true(failed > 0); /* the hook reached the call at all */
}

/* ---- the calls ------------------------------------------------------------------------------- */

static const char k_def_json[] = "{\"planner\":\"bgt\",\"seed\":7,\"max_iters\":30,\"time_limit\":20,\"mu\":50,"
                                 "\"solutions\":2,\"nn_index\":false,\"memory_mb\":512,\"near_miss\":0.25}";

static bool call_run_def(void *ctx)
{
    (void)ctx;
    tplan_run_def d;
    tplan_run_def_init(&d);
    tplan_error e = {0};
    if (tplan_run_def_from_json(&d, k_def_json, strlen(k_def_json), &e) != TPLAN_OK) {
        failed_cleanly("tplan_run_def_from_json", g_n, &e);
        return false;
    }
    char *json = tplan_run_def_to_json(&d);
    if (!json) {
        done();
        return false; /* documented: NULL when out of memory */
    }
    done();
    assert_non_null(strstr(json, "\"seed\":7"));
    tplan_free(json);
    return true;
}

static bool call_load(void *ctx)
{
    (void)ctx;
    tplan_error e = {0};
    tplan_domain *d = tplan_domain_load_string("push.lua", k_push, strlen(k_push), NULL, 0, NULL, &e);
    if (!d) {
        failed_cleanly("tplan_domain_load_string", g_n, &e);
        return false;
    }
    done();
    assert_string_equal(tplan_domain_name(d), "push");
    tplan_domain_free(d);
    return true;
}

typedef struct Planned {
    tplan_domain *domain;
    tplan_run_def def;
    char *plan; /* the plan file of a run without failures (the replay's input) */
    size_t plan_len;
} Planned;

static bool call_plan(void *ctx)
{
    Planned *p = ctx;
    tplan_error e = {0};
    tplan_result *r = tplan_plan(p->domain, &p->def, &e);
    if (!r) {
        failed_cleanly("tplan_plan", g_n, &e);
        return false;
    }
    size_t len = 0;
    const char *bytes = tplan_result_plan(r, &len);
    done();
    /* A tree allocation that fails stops the search with what it found (not an error), so the
     * result may be another one than without failures; its plan bytes are NULL only for lack of
     * memory. */
    bool ok = bytes != NULL && len > 0;
    tplan_result_free(r);
    return ok;
}

static bool call_state(void *ctx)
{
    Planned *p = ctx;
    tplan_error e = {0};
    tplan_state *s = tplan_state_new(p->domain, &e);
    if (!s) {
        failed_cleanly("tplan_state_new", g_n, &e);
        return false;
    }
    char *json = tplan_state_to_json(s);
    tplan_state_free(s);
    if (!json) {
        done();
        return false;
    }
    tplan_state *back = tplan_state_from_json(p->domain, json, strlen(json), &e);
    tplan_free(json);
    if (!back) {
        failed_cleanly("tplan_state_from_json", g_n, &e);
        return false;
    }
    done();
    assert_int_equal(tplan_state_body_count(back), 1); /* the ball (the floor is static) */
    tplan_state_free(back);
    return true;
}

static bool call_replay(void *ctx)
{
    Planned *p = ctx;
    tplan_error e = {0};
    tplan_code c = tplan_replay(p->domain, p->plan, p->plan_len, &e);
    if (c != TPLAN_OK) {
        failed_cleanly("tplan_replay", g_n, &e);
        return false;
    }
    done();
    return true;
}

static bool call_search(void *ctx)
{
    Planned *p = ctx;
    tplan_error e = {0};
    tplan_search *s = tplan_search_new(p->domain, &p->def, NULL, &e);
    if (!s) {
        failed_cleanly("tplan_search_new", g_n, &e);
        return false;
    }
    tplan_code c = tplan_search_run_iterations(s, 20, &e);
    if (c != TPLAN_OK) {
        tplan_search_free(s);
        failed_cleanly("tplan_search_run_iterations", g_n, &e);
        return false;
    }
    tplan_result *best = tplan_search_take_best(s);
    done();
    tplan_search_free(s);
    if (!best) {
        return false; /* NULL only for lack of memory */
    }
    tplan_result_free(best);
    return true;
}

/* ---- the tests -------------------------------------------------------------------------------- */

static int planned_setup(void **state)
{
    fault_reset(-1);
    Planned *p = calloc(1, sizeof *p);
    tplan_error e = {0};
    p->domain = tplan_domain_load_string("push.lua", k_push, strlen(k_push), NULL, 0, NULL, &e);
    if (!p->domain) {
        fprintf(stderr, "cannot load the push domain: %s\n", e.message);
        return -1;
    }
    tplan_run_def_init(&p->def);
    p->def.seed = 3;
    p->def.max_iters = 30;
    tplan_result *r = tplan_plan(p->domain, &p->def, &e);
    if (!r) {
        fprintf(stderr, "cannot plan the push domain: %s\n", e.message);
        return -1;
    }
    size_t len = 0;
    const char *bytes = tplan_result_plan(r, &len);
    p->plan = malloc(len);
    memcpy(p->plan, bytes, len);
    p->plan_len = len;
    tplan_result_free(r);
    *state = p;
    return 0;
}

static int planned_teardown(void **state)
{
    Planned *p = *state;
    fault_reset(-1);
    tplan_domain_free(p->domain);
    free(p->plan);
    free(p);
    return 0;
}

static void test_run_def(void **state)
{
    (void)state;
    every_failure("run definition from JSON and back", call_run_def, NULL);
}

static void test_load(void **state)
{
    (void)state;
    every_failure("domain from its text", call_load, NULL);
}

static void test_plan(void **state)
{
    every_failure("plan and its plan file", call_plan, *state);
}

static void test_state(void **state)
{
    every_failure("state to JSON and back", call_state, *state);
}

static void test_replay(void **state)
{
    every_failure("replay", call_replay, *state);
}

static void test_search(void **state)
{
    every_failure("anytime search", call_search, *state);
}

int main(void)
{
    cJSON_Hooks hooks = {__wrap_malloc, free}; /* cJSON's allocations through the hook as well */
    cJSON_InitHooks(&hooks);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_def), cmocka_unit_test(test_load),   cmocka_unit_test(test_plan),
        cmocka_unit_test(test_state),   cmocka_unit_test(test_replay), cmocka_unit_test(test_search),
    };
    /* the planned domain for the calls after the first two */
    const struct CMUnitTest first[] = {tests[0], tests[1]};
    const struct CMUnitTest later[] = {tests[2], tests[3], tests[4], tests[5]};
    int failed = cmocka_run_group_tests_name("api without a planned domain", first, NULL, NULL);
    failed += cmocka_run_group_tests_name("api on a loaded domain", later, planned_setup, planned_teardown);
    return failed;
}
