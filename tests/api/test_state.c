/* States and stepping through libtplan.so: a state file round trip is exact; a plan's
 * controls simulated from its start reproduce its trajectory and rest counts bit for bit; a plan
 * from a state taken mid-plan starts there, records it (plan version 2), replays and gives the
 * same state back from its file; bad states, steps and controls get a code and the field. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tplan/tplan.h"

#define POOL TP_SOURCE_DOMAINS "/pool.lua"

#include "push_domain.h" /* k_push: another domain */

typedef struct Fixture {
    tplan_domain *pool;
    tplan_result *plan; /* pool, seed 1 */
} Fixture;

static int setup(void **state)
{
    static Fixture f;
    tplan_error e;
    f.pool = tplan_domain_load_file(POOL, NULL, 0, NULL, &e);
    if (!f.pool) {
        fprintf(stderr, "load: %s\n", e.message);
        return -1;
    }
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.seed = 1;
    f.plan = tplan_plan(f.pool, &def, &e);
    if (!f.plan) {
        fprintf(stderr, "plan: %s\n", e.message);
        return -1;
    }
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    tplan_result_free(f->plan);
    tplan_domain_free(f->pool);
    return 0;
}

/* The plan's controls as tplan_simulate takes them: steps rows of 6 per controlled body. */
static double *plan_controls(const tplan_domain *d, const tplan_result *r)
{
    const int nc = tplan_domain_control_count(d), steps = tplan_result_steps(r);
    double *a = calloc((size_t)steps * 6 * (size_t)nc + 1, sizeof *a);
    assert_non_null(a);
    for (int k = 0; k < nc; ++k) {
        const int b = tplan_result_body_index(r, tplan_domain_body_name(d, tplan_domain_control_body(d, k)));
        const double *c = tplan_result_controls(r, b);
        assert_non_null(c);
        for (int i = 0; i < steps; ++i) {
            memcpy(a + ((size_t)i * (size_t)nc + (size_t)k) * 6, c + (size_t)i * 6, 6 * sizeof *a);
        }
    }
    return a;
}

/* Simulating the plan's controls and motor targets (NULL: none) from s, its start, gives the plan's
 * trajectory bit for bit; s ends at the plan's last state. */
static void simulate_is_plan(tplan_domain *d, const tplan_result *r, tplan_state *s, const double *controls,
                             const double *targets)
{
    tplan_error e;
    const int steps = tplan_result_steps(r), n = tplan_state_body_count(s);
    double *traj = calloc((size_t)(steps + 1) * 13 * (size_t)n, sizeof *traj);
    assert_non_null(traj);
    tplan_simulate_def sim;
    tplan_simulate_def_init(&sim);
    sim.steps = steps;
    sim.controls = controls;
    sim.motor_targets = targets;
    sim.trajectory = traj;
    assert_int_equal(tplan_simulate(d, s, &sim, &e), TPLAN_OK);
    for (int k = 0; k < n; ++k) {
        int rows;
        const double *want = tplan_result_states(r, tplan_result_body_index(r, tplan_state_body_name(s, k)), &rows);
        assert_int_equal(rows, steps + 1);
        for (int i = 0; i <= steps; ++i) {
            assert_memory_equal(traj + ((size_t)i * (size_t)n + (size_t)k) * 13, want + (size_t)i * 13,
                                13 * sizeof(double));
        }
    }
    free(traj);
}

static char *json_of(const tplan_state *s)
{
    char *j = tplan_state_to_json(s);
    assert_non_null(j);
    return j;
}

static void test_json_round_trip(void **state)
{
    Fixture *f = *state;
    tplan_error e;
    /* a state with moving balls and sleeping ones: every number and count read back to its bits */
    tplan_state *s = tplan_result_state(f->plan, f->pool, tplan_result_steps(f->plan) / 2, &e);
    assert_non_null(s);
    assert_string_equal(tplan_state_domain(s), "pool");
    char *j1 = json_of(s);
    tplan_state *back = tplan_state_from_json(f->pool, j1, strlen(j1), &e);
    assert_non_null(back);
    char *j2 = json_of(back);
    assert_string_equal(j1, j2);
    assert_true(tplan_state_time(back) == tplan_state_time(s));
    for (int k = 0; k < tplan_state_body_count(s); ++k) {
        double r1[13], r2[13];
        int n1, n2;
        const char *name = tplan_state_body_name(s, k);
        assert_int_equal(tplan_state_get_body(s, name, r1, &n1, &e), TPLAN_OK);
        assert_int_equal(tplan_state_get_body(back, name, r2, &n2, &e), TPLAN_OK);
        assert_memory_equal(r1, r2, sizeof r1);
        assert_int_equal(n1, n2);
    }
    /* every step's state is a valid input (within the overlap limits), and reads back the same */
    for (int i = 0; i <= tplan_result_steps(f->plan); ++i) {
        tplan_state *si = tplan_result_state(f->plan, f->pool, i, &e);
        char *ji = json_of(si);
        tplan_state *bi = tplan_state_from_json(f->pool, ji, strlen(ji), &e);
        if (!bi) {
            fprintf(stderr, "step %d: %s\n", i, e.message);
        }
        assert_non_null(bi);
        char *jb = json_of(bi);
        assert_string_equal(ji, jb);
        tplan_free(ji);
        tplan_free(jb);
        tplan_state_free(si);
        tplan_state_free(bi);
    }
    /* the initial state: no static body (the table), every ball */
    tplan_state *s0 = tplan_state_new(f->pool, &e);
    assert_non_null(s0);
    assert_int_equal(tplan_state_body_index(s0, "cue"), 0);
    assert_true(tplan_state_body_index(s0, "bed_mid") < 0);
    assert_true(tplan_state_time(s0) == 0);
    tplan_free(j1);
    tplan_free(j2);
    tplan_state_free(s);
    tplan_state_free(back);
    tplan_state_free(s0);
}

static void test_simulate_reproduces_plan(void **state)
{
    Fixture *f = *state;
    tplan_error e;
    const int steps = tplan_result_steps(f->plan);
    assert_true(steps > 10);
    tplan_state *s = tplan_result_state(f->plan, f->pool, 0, &e);
    assert_non_null(s);
    double *a = plan_controls(f->pool, f->plan);
    simulate_is_plan(f->pool, f->plan, s, a, NULL);
    tplan_simulate_def sim;
    tplan_simulate_def_init(&sim);
    sim.controls = a;
    /* the end state, rest counts and time included, is the plan's own */
    tplan_state *end = tplan_result_state(f->plan, f->pool, steps, &e);
    assert_non_null(end);
    /* (simulating steps the bodies and the memory and drops the tactics: the caller gave the controls) */
    assert_true(tplan_state_tactic_count(end) > 0);
    assert_int_equal(tplan_state_tactic_count(s), 0);
    tplan_state_clear_tactics(end);
    char *j1 = json_of(s), *j2 = json_of(end);
    assert_string_equal(j1, j2);
    /* in two pieces, the same */
    tplan_state *s2 = tplan_result_state(f->plan, f->pool, 0, &e);
    sim.trajectory = NULL;
    sim.steps = steps / 3;
    assert_int_equal(tplan_simulate(f->pool, s2, &sim, &e), TPLAN_OK);
    sim.controls = a + (size_t)(steps / 3) * 6 * (size_t)tplan_domain_control_count(f->pool);
    sim.steps = steps - steps / 3;
    assert_int_equal(tplan_simulate(f->pool, s2, &sim, &e), TPLAN_OK);
    assert_int_equal(tplan_state_tactic_count(s2), 0);
    char *j3 = json_of(s2);
    assert_string_equal(j3, j2);
    tplan_free(j1);
    tplan_free(j2);
    tplan_free(j3);
    tplan_state_free(s);
    tplan_state_free(s2);
    tplan_state_free(end);
    free(a);
}

static void test_plan_from_state(void **state)
{
    Fixture *f = *state;
    tplan_error e;
    const int mid = tplan_result_steps(f->plan) / 2;
    tplan_state *s = tplan_result_state(f->plan, f->pool, mid, &e);
    assert_non_null(s);
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.seed = 2;
    def.max_iters = 300;
    def.start = s;
    tplan_result *r = tplan_plan(f->pool, &def, &e);
    assert_non_null(r);
    /* its first state is the given one, at its time */
    tplan_state *first = tplan_result_state(r, f->pool, 0, &e);
    char *j1 = json_of(s), *j2 = json_of(first);
    assert_string_equal(j1, j2);
    /* the plan file records it, replays bit for bit from it, and gives its states back */
    size_t len;
    const char *bytes = tplan_result_plan(r, &len);
    assert_non_null(bytes);
    assert_non_null(strstr(bytes, "\"version\": 2,"));
    assert_non_null(strstr(bytes, "\"start\": {\"time\": "));
    assert_int_equal(tplan_replay(f->pool, bytes, len, &e), TPLAN_OK);
    const int steps = tplan_result_steps(r);
    tplan_state *from_file = tplan_state_from_plan(f->pool, bytes, len, 0, steps, &e);
    assert_non_null(from_file);
    tplan_state *last = tplan_result_state(r, f->pool, steps, &e);
    assert_int_equal(tplan_state_tactic_count(from_file), 0); /* a plan file has no tactics' variables */
    tplan_state_clear_tactics(last);
    char *j3 = json_of(from_file), *j4 = json_of(last);
    assert_string_equal(j3, j4);
    /* the same run again: the same plan */
    tplan_result *r2 = tplan_plan(f->pool, &def, &e);
    assert_non_null(r2);
    size_t len2;
    const char *bytes2 = tplan_result_plan(r2, &len2);
    const char *t1 = strstr(bytes, "\"timing\""), *t2 = strstr(bytes2, "\"timing\"");
    assert_true(t1 && t2 && t1 - bytes == t2 - bytes2);
    assert_memory_equal(bytes, bytes2, (size_t)(t1 - bytes));
    /* a caller compiled before the field existed (a smaller def) plans from the initial state */
    tplan_run_def old;
    tplan_run_def_init_(&old, offsetof(tplan_run_def, start));
    assert_int_equal(old.size, offsetof(tplan_run_def, start));
    old.seed = 2;
    old.max_iters = 50;
    tplan_result *r0 = tplan_plan(f->pool, &old, &e);
    assert_non_null(r0);
    assert_non_null(strstr(tplan_result_plan(r0, NULL), "\"version\": 1,"));
    tplan_result_free(r0);
    /* a plan without a start is still version 1 */
    size_t len0;
    assert_non_null(strstr(tplan_result_plan(f->plan, &len0), "\"version\": 1,"));
    tplan_free(j1);
    tplan_free(j2);
    tplan_free(j3);
    tplan_free(j4);
    tplan_state_free(s);
    tplan_state_free(first);
    tplan_state_free(from_file);
    tplan_state_free(last);
    tplan_result_free(r);
    tplan_result_free(r2);
}

/* json with the first occurrence of `from` replaced by `to` (the caller frees it). */
static char *edit(const char *json, const char *from, const char *to)
{
    const char *at = strstr(json, from);
    assert_non_null(at);
    char *out = malloc(strlen(json) + strlen(to) + 1);
    assert_non_null(out);
    sprintf(out, "%.*s%s%s", (int)(at - json), json, to, at + strlen(from));
    return out;
}

static void expect_refused(tplan_domain *d, const char *json, const char *field, const char *words)
{
    tplan_error e;
    tplan_state *s = tplan_state_from_json(d, json, strlen(json), &e);
    if (s || strcmp(e.field, field) != 0 || !strstr(e.message, words) || strchr(e.message, '\n')) {
        fprintf(stderr, "expected field '%s' ('%s'), got '%s': %s\n", field, words, e.field, e.message);
    }
    assert_null(s);
    assert_int_equal(e.code, TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, field);
    assert_non_null(strstr(e.message, words));
}

static void test_bad_states(void **state)
{
    Fixture *f = *state;
    tplan_error e;
    tplan_state *s0 = tplan_state_new(f->pool, &e);
    char *good = json_of(s0);
    char *j;
    j = edit(good, "\"domain\": \"pool\"", "\"domain\": \"push\"");
    expect_refused(f->pool, j, "domain", "a state of 'push', not of 'pool'");
    free(j);
    j = edit(good, "\"time\": 0", "\"time\": -1");
    expect_refused(f->pool, j, "time", "[0, 1e+09]");
    free(j);
    j = edit(good, "\"cue\": {\"position\": [-0.75", "\"cue\": {\"position\": [1e999");
    expect_refused(f->pool, j, "bodies.cue.position", "not a finite number");
    free(j);
    j = edit(good, "\"cue\": {\"position\": [-0.75, 0, 0.028575], \"quaternion\": [1,",
             "\"cue\": {\"position\": [-0.75, 0, 0.028575], \"quaternion\": [1.5,");
    expect_refused(f->pool, j, "bodies.cue.quaternion", "is not 1");
    free(j);
    j = edit(good, "\"cue\":", "\"ghost\":");
    expect_refused(f->pool, j, "bodies.ghost", "no such body");
    free(j);
    j = edit(good, "\"cue\":", "\"bed_mid\":");
    expect_refused(f->pool, j, "bodies.bed_mid", "a static body has no state");
    free(j);
    j = edit(good, "\"rest\": 0}", "\"rest\": 0, \"spin\": 1}");
    expect_refused(f->pool, j, "bodies.cue.spin", "unknown field");
    free(j);
    j = edit(good, "\"rest\": 0}", "\"rest\": 200}");
    expect_refused(f->pool, j, "bodies.cue.rest", "beyond the domain's");
    free(j);
    j = edit(good, "}}\n", "}} x");
    expect_refused(f->pool, j, "", "text after the JSON value");
    free(j);
    /* a missing body: the count and the first one missing */
    {
        const char *cue = strstr(good, "\n  \"cue\"");
        const char *next = strstr(cue + 1, "\n  \"");
        char *miss = malloc(strlen(good) + 1);
        sprintf(miss, "%.*s%s", (int)(cue - good), good, next + 1);
        char *fix = edit(miss, "\"bodies\": {  ", "\"bodies\": {\n  ");
        expect_refused(f->pool, fix, "bodies", "missing 'cue'");
        free(miss);
        free(fix);
    }
    /* two balls in one place: refused naming both */
    double row[13];
    int rest;
    tplan_state *o = tplan_state_copy(s0);
    assert_int_equal(tplan_state_get_body(o, "yellow", row, &rest, &e), TPLAN_OK);
    assert_int_equal(tplan_state_set_body(o, "blue", row, 0, &e), TPLAN_OK);
    char *oj = json_of(o);
    tplan_state *bad = tplan_state_from_json(f->pool, oj, strlen(oj), &e);
    assert_null(bad);
    assert_int_equal(e.code, TPLAN_ERR_ARGUMENT);
    assert_non_null(strstr(e.message, "'yellow' and 'blue' overlap"));
    /* ... and so is a plan or a step from it */
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.start = o;
    assert_null(tplan_plan(f->pool, &def, &e));
    assert_int_equal(e.code, TPLAN_ERR_ARGUMENT);
    assert_non_null(strstr(e.message, "overlap"));
    tplan_simulate_def sim;
    tplan_simulate_def_init(&sim);
    sim.steps = 1;
    assert_int_equal(tplan_simulate(f->pool, o, &sim, &e), TPLAN_ERR_ARGUMENT);
    /* setters check their values */
    row[3] = NAN;
    assert_int_equal(tplan_state_set_body(o, "blue", row, 0, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "bodies.blue.quaternion");
    assert_int_equal(tplan_state_set_time(o, -1, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "time");
    assert_int_equal(tplan_state_set_body(o, "nobody", row, 0, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "bodies.nobody");
    assert_int_equal(tplan_state_get_body(o, "nobody", row, NULL, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "bodies.nobody");
    /* steps <= 0, bad controls, a def of another size */
    sim.steps = 0;
    assert_int_equal(tplan_simulate(f->pool, s0, &sim, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "steps");
    sim.steps = -3;
    assert_int_equal(tplan_simulate(f->pool, s0, &sim, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "steps");
    double nan_controls[6 * 64];
    for (size_t i = 0; i < sizeof nan_controls / sizeof nan_controls[0]; ++i) {
        nan_controls[i] = NAN;
    }
    assert_true(tplan_domain_control_count(f->pool) <= 64);
    sim.steps = 1;
    sim.controls = nan_controls;
    assert_int_equal(tplan_simulate(f->pool, s0, &sim, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "controls");
    sim.size = 7;
    assert_int_equal(tplan_simulate(f->pool, s0, &sim, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "size");
    /* the state of another domain (another body count) to pool's calls */
    tplan_domain *push = tplan_domain_load_string("push.lua", k_push, sizeof k_push - 1, NULL, 0, NULL, &e);
    assert_non_null(push);
    tplan_state *ps = tplan_state_new(push, &e);
    assert_int_equal(tplan_state_body_count(ps), 1);
    tplan_simulate_def_init(&sim);
    sim.steps = 1;
    assert_int_equal(tplan_simulate(f->pool, ps, &sim, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "domain");
    def.start = ps;
    assert_null(tplan_plan(f->pool, &def, &e));
    assert_string_equal(e.field, "domain");
    /* a state whose name is right but whose bodies are not (a wrong body count) */
    char *pj = json_of(ps);
    char *renamed = edit(pj, "\"domain\": \"push\"", "\"domain\": \"pool\"");
    char *asball = edit(renamed, "\"ball\":", "\"cue\":");
    expect_refused(f->pool, asball, "bodies", "1 bodies given, the domain 'pool' has 11");
    /* a state read for one domain is refused by the other's plan file reader too */
    assert_null(tplan_state_from_plan(push, tplan_result_plan(f->plan, NULL), strlen(tplan_result_plan(f->plan, NULL)),
                                      0, 0, &e));
    assert_int_equal(e.code, TPLAN_ERR_PLAN_FILE);
    size_t plen;
    const char *pb = tplan_result_plan(f->plan, &plen);
    assert_null(tplan_state_from_plan(f->pool, pb, plen, 0, tplan_result_steps(f->plan) + 1, &e));
    assert_string_equal(e.field, "step");
    assert_null(tplan_state_from_plan(f->pool, pb, plen, 9, 0, &e));
    assert_string_equal(e.field, "world");
    assert_null(tplan_result_state(f->plan, f->pool, -1, &e));
    assert_string_equal(e.field, "step");
    assert_null(tplan_result_state(f->plan, push, 0, &e));
    /* NULLs */
    assert_null(tplan_state_new(NULL, &e));
    assert_null(tplan_state_from_json(f->pool, NULL, 0, &e));
    assert_null(tplan_state_to_json(NULL));
    assert_int_equal(tplan_simulate(NULL, s0, &sim, &e), TPLAN_ERR_ARGUMENT);
    tplan_state_free(NULL);
    tplan_free(pj);
    free(renamed);
    free(asball);
    tplan_free(oj);
    tplan_free(good);
    tplan_state_free(ps);
    tplan_state_free(o);
    tplan_state_free(s0);
    tplan_domain_free(push);
}

/* A domain with a driven joint motor: the motor is listed, the plan carries its
 * targets (version 3), and the targets simulated from the plan's start give its trajectory bit for
 * bit; a target beyond the motor's max_speed is refused naming the joint. */
static void test_driven_motor(void **state)
{
    (void)state;
    tplan_error e;
    tplan_domain *d = tplan_domain_load_file(TP_MOTOR_DOMAIN, NULL, 0, NULL, &e);
    assert_non_null(d);
    int axis = 0;
    assert_int_equal(tplan_domain_motor_count(d), 1);
    assert_string_equal(tplan_domain_motor_joint(d, 0, &axis), "arm");
    assert_int_equal(axis, 1);
    assert_null(tplan_domain_motor_joint(d, 1, &axis));
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.seed = 1;
    tplan_result *r = tplan_plan(d, &def, &e);
    assert_non_null(r);
    assert_int_equal(tplan_result_status(r), TPLAN_SOLVED);
    assert_int_equal(tplan_result_motor_count(r), 1);
    assert_string_equal(tplan_result_motor_joint(r, 0, &axis), "arm");
    const double *targets = tplan_result_motor_targets(r);
    assert_non_null(targets);
    size_t len = 0;
    const char *text = tplan_result_plan(r, &len);
    assert_non_null(strstr(text, "\"version\": 3,"));
    const int steps = tplan_result_steps(r);
    tplan_state *s = tplan_result_state(r, d, 0, &e);
    assert_non_null(s);
    assert_true(steps > 0);
    simulate_is_plan(d, r, s, NULL, targets);
    const double fast[1] = {13.0}; /* the paddle's max_speed is 12 rad/s */
    tplan_simulate_def sim;
    tplan_simulate_def_init(&sim);
    sim.steps = 1;
    sim.motor_targets = fast;
    assert_int_equal(tplan_simulate(d, s, &sim, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "motor_targets");
    assert_non_null(strstr(e.message, "joint 'arm'"));
    tplan_state_free(s);
    tplan_result_free(r);
    tplan_domain_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_round_trip), cmocka_unit_test(test_simulate_reproduces_plan),
        cmocka_unit_test(test_plan_from_state), cmocka_unit_test(test_bad_states),
        cmocka_unit_test(test_driven_motor),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
