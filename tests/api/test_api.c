/* The embedding API (tplan/tplan.h) through the shared libtplan.so, as a game would link it:
 * the run definition's defaults, ranges and JSON; bad input to every entry point (an error code
 * and a message, never a crash); plans identical to the tplan program's and to each other across
 * threads; replay of good, tampered and foreign plans; stopping from the progress callback; and
 * that the library prints nothing. */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tplan/tplan.h"

#define MINIGOLF TP_SOURCE_DOMAINS "/minigolf.lua"

#include "push_domain.h" /* k_push */

static void test_run_def_defaults_and_ranges(void **state)
{
    (void)state;
    tplan_run_def d;
    tplan_run_def_init(&d);
    assert_int_equal(d.size, sizeof d);
    assert_int_equal(d.planner, TPLAN_PLANNER_DOMAIN);
    assert_true(d.seed == -1 && d.time_limit == -1 && d.nn_index == 1 && d.jobs == 1);
    tplan_error e;
    assert_int_equal(tplan_run_def_check(&d, &e), TPLAN_OK);
    assert_int_equal(e.code, TPLAN_OK);
    tplan_run_def b = d;
    b.seed = 4294967296LL;
    assert_int_equal(tplan_run_def_check(&b, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "seed");
    b = d;
    b.mu = -1;
    assert_int_equal(tplan_run_def_check(&b, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "mu");
    b = d;
    b.time_limit = -2;
    assert_int_equal(tplan_run_def_check(&b, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "time_limit");
    b = d;
    b.solutions = 1000001;
    assert_int_equal(tplan_run_def_check(&b, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "solutions");
    b = d;
    b.jobs = 0;
    assert_int_equal(tplan_run_def_check(&b, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "jobs");
    b = d;
    b.memory_limit_mb = 15;
    assert_int_equal(tplan_run_def_check(&b, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "memory_mb");
    b = d;
    b.size = 3;
    assert_int_equal(tplan_run_def_check(&b, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "size");
    assert_int_equal(tplan_run_def_check(NULL, &e), TPLAN_ERR_ARGUMENT);
    assert_int_equal(tplan_run_def_check(NULL, NULL), TPLAN_ERR_ARGUMENT); /* no error struct: fine */
}

/* A caller compiled against an older, shorter tplan_run_def: the fields it lacks are defaults. */
static void test_run_def_older_caller(void **state)
{
    (void)state;
    tplan_run_def full;
    tplan_run_def_init_(&full, offsetof(tplan_run_def, max_iters)); /* up to seed only */
    assert_int_equal(full.size, offsetof(tplan_run_def, max_iters));
    full.seed = 7;
    tplan_error e;
    assert_int_equal(tplan_run_def_check(&full, &e), TPLAN_OK);
}

static void test_run_def_json(void **state)
{
    (void)state;
    tplan_run_def d;
    tplan_run_def_init(&d);
    char *j = tplan_run_def_to_json(&d);
    assert_string_equal(j, "{}");
    tplan_free(j);
    const char *in = "{\"planner\":\"rrt\",\"seed\":7,\"max_iters\":500,\"time_limit\":2.5,\"nn_index\":false,"
                     "\"memory_mb\":64,\"solutions\":3}";
    tplan_error e;
    assert_int_equal(tplan_run_def_from_json(&d, in, strlen(in), &e), TPLAN_OK);
    assert_int_equal(d.planner, TPLAN_PLANNER_RRT);
    assert_int_equal(d.seed, 7);
    assert_int_equal(d.max_iters, 500);
    assert_true(d.time_limit == 2.5);
    assert_int_equal(d.nn_index, 0);
    assert_int_equal(d.memory_limit_mb, 64);
    assert_int_equal(d.solutions, 3);
    j = tplan_run_def_to_json(&d);
    tplan_run_def back;
    tplan_run_def_init(&back);
    assert_int_equal(tplan_run_def_from_json(&back, j, strlen(j), &e), TPLAN_OK);
    assert_memory_equal(&back, &d, sizeof d);
    tplan_free(j);
    static const struct {
        const char *json, *field;
    } bad[] = {
        {"{\"seed\": 1, \"seed\": 2}", "seed"},
        {"{\"sed\": 1}", "sed"},
        {"{\"planner\": \"rrt\\u0000x\"}", ""},
        {"{\"seed\": 1.5}", "seed"},
        {"{\"seed\": \"1\"}", "seed"},
        {"{\"time_limit\": -1}", "time_limit"},
        {"{\"nn_index\": 1}", "nn_index"},
        {"{\"planner\": \"astar\"}", "planner"},
        {"[1]", ""},
        {"{\"seed\": 1", ""},
        {"{\"max_iters\": 1e300}", "max_iters"},
        {"{\"jobs\": 257}", "jobs"},
        {"{\"load_time_limit\": 0}", "load_time_limit"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        tplan_run_def x;
        tplan_run_def_init(&x);
        memset(&e, 0, sizeof e);
        assert_int_equal(tplan_run_def_from_json(&x, bad[i].json, strlen(bad[i].json), &e), TPLAN_ERR_ARGUMENT);
        assert_string_equal(e.field, bad[i].field);
        assert_true(e.message[0] != '\0');
        tplan_run_def fresh;
        tplan_run_def_init(&fresh);
        assert_memory_equal(&x, &fresh, sizeof x); /* a refused text changes nothing */
    }
}

static void test_bad_arguments(void **state)
{
    (void)state;
    tplan_error e;
    assert_null(tplan_domain_load_file(NULL, NULL, 0, NULL, &e));
    assert_int_equal(e.code, TPLAN_ERR_ARGUMENT);
    assert_null(tplan_domain_load_string("x.lua", NULL, 0, NULL, 0, NULL, &e));
    assert_int_equal(e.code, TPLAN_ERR_ARGUMENT);
    tplan_param p = {"mode", NULL};
    assert_null(tplan_domain_load_file(MINIGOLF, &p, 1, NULL, &e));
    assert_int_equal(e.code, TPLAN_ERR_ARGUMENT);
    assert_null(tplan_plan(NULL, NULL, &e));
    assert_int_equal(e.code, TPLAN_ERR_ARGUMENT);
    assert_int_equal(tplan_replay(NULL, "{}", 2, &e), TPLAN_ERR_ARGUMENT);
    /* accessors of no handle give empty answers */
    assert_int_equal(tplan_result_steps(NULL), 0);
    assert_null(tplan_result_states(NULL, 0, NULL));
    assert_null(tplan_result_plan(NULL, NULL));
    assert_null(tplan_domain_body_name(NULL, 0));
    tplan_domain_free(NULL);
    tplan_result_free(NULL);
    assert_string_equal(tplan_code_name(TPLAN_ERR_SCRIPT), "TPLAN_ERR_SCRIPT");
    assert_string_equal(tplan_code_name((tplan_code)99), "TPLAN_ERR_UNKNOWN");
    assert_string_equal(tplan_version(), TPLAN_VERSION);
    assert_int_equal(tplan_version_number(), TPLAN_VERSION_NUMBER);
}

/* Runs f with the process's stderr sent to a file; returns how many bytes were written there. */
static long stderr_bytes_during(void (*f)(void))
{
    char path[] = "/tmp/tplan_test_api_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    f();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    long n = lseek(fd, 0, SEEK_END);
    close(fd);
    unlink(path);
    return n;
}

static void failing_loads(void)
{
    tplan_error e;
    static const char syntax[] = "local tp = require 'tp'\nreturn tp.domain {\n  name = 'x',,\n}\n";
    assert_null(tplan_domain_load_string("broken.lua", syntax, sizeof syntax - 1, NULL, 0, NULL, &e));
    assert_int_equal(e.code, TPLAN_ERR_SCRIPT);
    assert_non_null(strstr(e.message, "broken.lua:3:"));
    static const char runtime[] = "local tp = require 'tp'\nerror('no table here')\n";
    assert_null(tplan_domain_load_string("runtime.lua", runtime, sizeof runtime - 1, NULL, 0, NULL, &e));
    assert_int_equal(e.code, TPLAN_ERR_SCRIPT);
    assert_non_null(strstr(e.message, "runtime.lua:2: no table here"));
    assert_null(tplan_domain_load_file("/nonexistent/dir/x.lua", NULL, 0, NULL, &e));
    assert_int_equal(e.code, TPLAN_ERR_IO);
    static const char hog[] = "local t = {}\nfor i = 1, 1e9 do t[i] = ('x'):rep(1000) .. i end\n";
    tplan_run_def small;
    tplan_run_def_init(&small);
    small.memory_limit_mb = 16;
    assert_null(tplan_domain_load_string("hog.lua", hog, sizeof hog - 1, NULL, 0, &small, &e));
    assert_int_equal(e.code, TPLAN_ERR_LIMIT);
    tplan_param unknown = {"no_such_param", "1"};
    assert_null(tplan_domain_load_file(MINIGOLF, &unknown, 1, NULL, &e));
    assert_int_equal(e.code, TPLAN_ERR_SCRIPT);
    assert_non_null(strstr(e.message, "no_such_param"));
}

static void test_script_errors_are_codes_not_output(void **state)
{
    (void)state;
    assert_int_equal(stderr_bytes_during(failing_loads), 0);
}

static tplan_domain *load_push(void)
{
    tplan_error e;
    tplan_domain *d = tplan_domain_load_string("push.lua", k_push, sizeof k_push - 1, NULL, 0, NULL, &e);
    if (!d) {
        fail_msg("%s", e.message);
    }
    return d;
}

static void test_plan_read_replay(void **state)
{
    (void)state;
    tplan_domain *d = load_push();
    assert_string_equal(tplan_domain_name(d), "push");
    assert_int_equal(tplan_domain_body_count(d), 2);
    assert_string_equal(tplan_domain_body_name(d, 1), "ball");
    tplan_run_def run;
    tplan_run_def_init(&run);
    run.seed = 3;
    tplan_error e;
    tplan_result *r = tplan_plan(d, &run, &e);
    assert_non_null(r);
    assert_int_equal(e.code, TPLAN_OK);
    assert_int_equal(tplan_result_status(r), TPLAN_SOLVED);
    int ball = tplan_result_body_index(r, "ball");
    assert_int_equal(ball, 1);
    assert_int_equal(tplan_result_body_index(r, "nobody"), -1);
    int rows = 0;
    const double *x = tplan_result_states(r, ball, &rows);
    assert_int_equal(rows, tplan_result_steps(r) + 1);
    assert_true(x[13 * (rows - 1)] > 0.3); /* the goal: x beyond 0.3 m */
    assert_non_null(tplan_result_controls(r, ball));
    assert_null(tplan_result_controls(r, 0)); /* the floor is not controlled */
    /* the control report: the ball's equals the total (the only controlled body), the floor's is 0 */
    double cb[4], ct[4], cf[4];
    assert_int_equal(tplan_result_control(r, ball, cb), 1);
    assert_int_equal(tplan_result_control(r, -1, ct), 1);
    assert_int_equal(tplan_result_control(r, 0, cf), 1);
    assert_true(cb[0] > 0 && cb[3] > 0 && cb[3] <= tplan_result_steps(r) * tplan_result_dt(r) + 1e-12);
    assert_memory_equal(cb, ct, sizeof cb);
    assert_true(cf[0] == 0 && cf[1] == 0 && cf[2] == 0 && cf[3] == 0);
    assert_int_equal(tplan_result_control(r, 2, cf), 0);
    assert_int_equal(tplan_result_control(NULL, -1, cf), 0);
    const double *floor_pose = tplan_result_states(r, 0, &rows);
    assert_int_equal(rows, 1);
    assert_non_null(floor_pose);
    size_t len = 0;
    const char *plan = tplan_result_plan(r, &len);
    assert_true(len > 100 && strlen(plan) == len);
    assert_non_null(strstr(plan, "\"format\": \"tplan-plan\""));
    assert_int_equal(tplan_replay(d, plan, len, &e), TPLAN_OK);

    /* written to a file: the same bytes; an unwritable path is an I/O error naming it */
    char path[] = "/tmp/tplan_test_api_plan_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(tplan_result_write_plan(r, path, &e), TPLAN_OK);
    FILE *pf = fopen(path, "rb");
    char *back = calloc(1, len + 1);
    assert_int_equal(fread(back, 1, len + 1, pf), len);
    fclose(pf);
    assert_memory_equal(back, plan, len);
    free(back);
    unlink(path);
    assert_int_equal(tplan_result_write_plan(r, "/nonexistent/dir/plan.json", &e), TPLAN_ERR_IO);
    assert_non_null(strstr(e.message, "/nonexistent/dir/plan.json"));
    assert_int_equal(tplan_result_write_plan(NULL, path, &e), TPLAN_ERR_ARGUMENT);

    /* the same domain and run plan the same bytes again (the script runs afresh) */
    tplan_result *r2 = tplan_plan(d, &run, &e);
    size_t len2 = 0;
    const char *plan2 = tplan_result_plan(r2, &len2);
    const char *t1 = strstr(plan, "\"timing\""), *t2 = strstr(plan2, "\"timing\"");
    assert_true(t1 && t2 && t1 - plan == t2 - plan2);
    assert_memory_equal(plan, plan2, (size_t)(t1 - plan));
    tplan_result_free(r2);

    /* a tampered state is a mismatch; bytes that are no plan are refused */
    char *bad = strdup(plan);
    char *at = strstr(bad, "\"trajectory\"");
    assert_non_null(at);
    char *digit = strpbrk(at + 200, "123456789");
    *digit = *digit == '9' ? '8' : (char)(*digit + 1);
    tplan_code c = tplan_replay(d, bad, len, &e);
    assert_true(c == TPLAN_ERR_MISMATCH || c == TPLAN_ERR_PLAN_FILE);
    assert_true(e.message[0] != '\0');
    free(bad);
    assert_int_equal(tplan_replay(d, "{\"format\": 1}", 13, &e), TPLAN_ERR_PLAN_FILE);
    assert_int_equal(tplan_replay(d, "not json", 8, &e), TPLAN_ERR_PLAN_FILE);

    /* a plan of another scene */
    tplan_domain *golf = tplan_domain_load_file(MINIGOLF, NULL, 0, NULL, &e);
    assert_non_null(golf);
    assert_int_equal(tplan_replay(golf, plan, len, &e), TPLAN_ERR_PLAN_FILE);
    tplan_domain_free(golf);

    /* jobs > 1 is the program's */
    run.jobs = 2;
    assert_null(tplan_plan(d, &run, &e));
    assert_int_equal(e.code, TPLAN_ERR_UNSUPPORTED);
    assert_string_equal(e.field, "jobs");
    tplan_result_free(r);
    tplan_domain_free(d);
}

/* Stop from the progress callback: the best plan so far comes back, approximate here (the goal
 * cannot be reached: the region is out of the ball's reach in a few iterations). */
static int stop_at_once(void *user, const tplan_progress *p)
{
    int *calls = user;
    ++*calls;
    return p->iterations >= 1;
}

static void test_progress_stops(void **state)
{
    (void)state;
    static const char far[] = "local tp = require 'tp'\n"
                              "return tp.domain {\n"
                              "  name = 'far', dt = 1/60,\n"
                              "  bodies = {\n"
                              "    tp.plane { name = 'floor' },\n"
                              "    tp.sphere { name = 'ball', class = 'active', radius = 0.05, mass = 0.2,\n"
                              "                pos = {0, 0, 0.05}, max_force = 2 } },\n"
                              "  tactics = { tp.tactic { name = 'idle', body = 'ball', skills = {\n"
                              "    tp.skill.wait { name = 'w', duration = tp.uniform(0.1, 0.2) } } } },\n"
                              "  goal = tp.inside { body = 'ball', min = {50, -1}, max = {60, 1} },\n"
                              "  planner = { max_iters = 1000000 },\n"
                              "}\n";
    tplan_error e;
    tplan_domain *d = tplan_domain_load_string("far.lua", far, sizeof far - 1, NULL, 0, NULL, &e);
    assert_non_null(d);
    int calls = 0;
    tplan_result *r = tplan_plan_progress(d, NULL, stop_at_once, &calls, 0.001, &e);
    assert_non_null(r);
    assert_true(calls >= 1);
    assert_int_equal(tplan_result_status(r), TPLAN_APPROXIMATE);
    assert_true(tplan_result_iterations(r) < 1000000);
    assert_null(tplan_plan_progress(d, NULL, stop_at_once, &calls, 0, &e)); /* interval must be > 0 */
    assert_int_equal(e.code, TPLAN_ERR_ARGUMENT);
    tplan_result_free(r);
    tplan_domain_free(d);
}

/* Two threads planning at once get the plan one thread gets alone: minigolf (solver "step") and
 * a few dice (solver "quickstep", which shuffles rows with ODE's process-wide generator). */
typedef struct {
    int dice;   /* in: plan dice (count=12, 40 iterations) instead of minigolf */
    char *plan; /* out: the plan up to "timing" */
    size_t len;
} Planned;

static void *plan_minigolf(void *arg)
{
    Planned *out = arg;
    tplan_error e;
    tplan_param count = {"count", "12"};
    tplan_domain *d = out->dice ? tplan_domain_load_file(TP_SOURCE_DOMAINS "/dice.lua", &count, 1, NULL, &e)
                                : tplan_domain_load_file(MINIGOLF, NULL, 0, NULL, &e);
    tplan_run_def run;
    tplan_run_def_init(&run);
    run.seed = 2;
    run.max_iters = out->dice ? 40 : 0;
    tplan_result *r = d ? tplan_plan(d, &run, &e) : NULL;
    if (r) {
        size_t len;
        const char *p = tplan_result_plan(r, &len);
        const char *t = strstr(p, "\"timing\"");
        out->len = t ? (size_t)(t - p) : len;
        out->plan = malloc(out->len);
        memcpy(out->plan, p, out->len);
    }
    tplan_result_free(r);
    tplan_domain_free(d);
    return NULL;
}

static void test_threads(void **state)
{
    const int dice = *(int *)*state;
    Planned alone = {dice, NULL, 0}, a = {dice, NULL, 0}, b = {dice, NULL, 0};
    plan_minigolf(&alone);
    assert_non_null(alone.plan);
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, plan_minigolf, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, plan_minigolf, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    assert_non_null(a.plan);
    assert_non_null(b.plan);
    assert_int_equal(a.len, alone.len);
    assert_int_equal(b.len, alone.len);
    assert_memory_equal(a.plan, alone.plan, alone.len);
    assert_memory_equal(b.plan, alone.plan, alone.len);
    free(alone.plan);
    free(a.plan);
    free(b.plan);
}

int main(void)
{
    static int minigolf = 0, dice = 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_def_defaults_and_ranges),
        cmocka_unit_test(test_run_def_older_caller),
        cmocka_unit_test(test_run_def_json),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_script_errors_are_codes_not_output),
        cmocka_unit_test(test_plan_read_replay),
        cmocka_unit_test(test_progress_stops),
        cmocka_unit_test_prestate(test_threads, &minigolf),
        cmocka_unit_test_prestate(test_threads, &dice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
