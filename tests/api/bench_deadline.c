/* The hard deadline of an anytime search, measured (docs/embedding.md, "Anytime
 * search"): `calls` runs of tplan_search_run(budget) on one domain, each followed by what a game
 * reads of the best plan (status, steps, the first controlled body's states and controls), the
 * whole timed with CLOCK_MONOTONIC; prints the call's time and its overshoot over the budget
 * (median, p90, p99, max, and how many calls overshot) as one JSON object. A search that is done
 * (solved) is replaced by a new one (seed + 1) outside the timing, so every timed call searches. With --plan it times
 * tplan_plan with time_limit = budget instead (the old way: each call loads the script and builds the tree afresh).
 *
 *   bench_deadline --domain domains/pool.lua [--budget 0.001] [--calls 1000] [--seed 1] [--plan]
 *                  [--solutions K]   (K: the run definition's solutions; 1000000 keeps a search going)
 *   bench_deadline --domain domains/pool.lua --overheads [--calls 200]
 *
 * --overheads times each call a host makes around planning instead, `calls` times each (the
 * median and the max, ms): load the domain, make a state, set a body, step 1 and 60 steps, plan
 * (tplan_plan, the domain's defaults), read the plan's arrays, format its file, a state to JSON and
 * back, tplan_search_new, and a search run of 100 iterations.
 *
 * A measurement, not a test: the figures depend on the machine (the ctest bench_deadline_smoke runs
 * it for 20 calls and checks only that it answers). */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "tplan/tplan.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Involuntary context switches of this thread so far: the calls the scheduler preempted (on a
 * loaded machine a preemption costs a scheduler tick, 4 ms at 250 Hz, whatever the library does). */
static long preemptions(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of n sorted values, nearest rank. */
static double quantile(const double *v, int n, double q)
{
    int i = (int)ceil(q * n) - 1;
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* What a game reads of a plan: a checksum so the reads are not optimised away. */
static double read_plan(const tplan_result *r)
{
    double sum = (double)tplan_result_status(r) + tplan_result_steps(r);
    for (int b = 0; b < tplan_result_body_count(r); ++b) {
        const double *c = tplan_result_controls(r, b);
        if (c) {
            int rows = 0;
            const double *x = tplan_result_states(r, b, &rows);
            sum += x[13 * (rows - 1)] + (tplan_result_steps(r) > 0 ? c[0] : 0.0);
            break;
        }
    }
    return sum;
}

static void print_stats(const char *name, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    printf("\"%s\": {\"median_ms\": %.4f, \"p90_ms\": %.4f, \"p99_ms\": %.4f, \"max_ms\": %.4f}", name,
           1e3 * quantile(v, n, 0.5), 1e3 * quantile(v, n, 0.9), 1e3 * quantile(v, n, 0.99), 1e3 * v[n - 1]);
}

/* One timed call: fn(user) `calls` times; prints "name": {median, max} (ms). */
typedef void (*Timed)(void *user);
static void time_call(const char *name, Timed fn, void *user, int calls, int *first)
{
    double *v = malloc(sizeof *v * (size_t)calls);
    if (!v) {
        return;
    }
    for (int i = 0; i < calls; ++i) {
        const double t0 = now();
        fn(user);
        v[i] = now() - t0;
    }
    qsort(v, (size_t)calls, sizeof *v, cmp_double);
    printf("%s\"%s\": {\"median_ms\": %.4f, \"max_ms\": %.4f}", *first ? "" : ", ", name, 1e3 * quantile(v, calls, 0.5),
           1e3 * v[calls - 1]);
    *first = 0;
    free(v);
}

typedef struct Calls {
    const char *path;
    tplan_domain *d;
    tplan_state *x;
    tplan_result *plan;
    tplan_search *search;
    tplan_result *fresh[50]; /* plans not formatted yet (the search's best after each of 50 runs) */
    int next;
    double sink;
} Calls;

static void c_load(void *u)
{
    Calls *c = u;
    tplan_domain_free(tplan_domain_load_file(c->path, NULL, 0, NULL, NULL));
}
static void c_state_new(void *u)
{
    Calls *c = u;
    tplan_state_free(tplan_state_new(c->d, NULL));
}
static void c_set_body(void *u)
{
    Calls *c = u;
    double row[13];
    int rest;
    const char *b = tplan_state_body_name(c->x, 0);
    tplan_state_get_body(c->x, b, row, &rest, NULL);
    tplan_state_set_body(c->x, b, row, rest, NULL);
}
static void c_step(void *u, int steps)
{
    Calls *c = u;
    tplan_state *y = tplan_state_copy(c->x);
    tplan_simulate_def sim;
    tplan_simulate_def_init(&sim);
    sim.steps = steps;
    tplan_simulate(c->d, y, &sim, NULL);
    tplan_state_free(y);
}
static void c_step1(void *u)
{
    c_step(u, 1);
}
static void c_step60(void *u)
{
    c_step(u, 60);
}
static void c_plan(void *u)
{
    Calls *c = u;
    tplan_result_free(tplan_plan(c->d, NULL, NULL));
}
static void c_read(void *u)
{
    Calls *c = u;
    c->sink += read_plan(c->plan);
}
static void c_format(void *u)
{
    Calls *c = u;
    size_t len = 0;
    c->sink += tplan_result_plan(c->fresh[c->next++], &len) ? (double)len : 0;
}
static void c_json(void *u)
{
    Calls *c = u;
    char *j = tplan_state_to_json(c->x);
    tplan_state_free(tplan_state_from_json(c->d, j, strlen(j), NULL));
    tplan_free(j);
}
static void c_search_new(void *u)
{
    Calls *c = u;
    tplan_search_free(tplan_search_new(c->d, NULL, NULL, NULL));
}
static void c_search_run(void *u)
{
    Calls *c = u;
    tplan_search *s = tplan_search_new(c->d, NULL, NULL, NULL);
    const double t0 = now();
    tplan_search_run_iterations(s, 100, NULL);
    c->sink += now() - t0; /* only the run counts: see the caller */
    tplan_search_free(s);
}

static int overheads(const char *path, int calls)
{
    Calls c;
    memset(&c, 0, sizeof c);
    c.path = path;
    tplan_error err;
    c.d = tplan_domain_load_file(path, NULL, 0, NULL, &err);
    c.x = c.d ? tplan_state_new(c.d, &err) : NULL;
    c.plan = c.d ? tplan_plan(c.d, NULL, &err) : NULL;
    c.search = c.d ? tplan_search_new(c.d, NULL, NULL, &err) : NULL;
    if (!c.d || !c.x || !c.plan || !c.search || tplan_search_run_iterations(c.search, 100, &err) != TPLAN_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return 1;
    }
    for (int i = 0; i < 50; ++i) {
        tplan_search_run_iterations(c.search, 1, NULL);
        c.fresh[i] = tplan_search_take_best(c.search);
    }
    int first = 1;
    printf("{\"domain\": \"%s\", \"calls\": %d, ", tplan_domain_name(c.d), calls);
    time_call("load", c_load, &c, calls < 50 ? calls : 50, &first);
    time_call("state_new", c_state_new, &c, calls, &first);
    time_call("state_set_body", c_set_body, &c, calls, &first);
    time_call("simulate_1_step", c_step1, &c, calls, &first);
    time_call("simulate_60_steps", c_step60, &c, calls, &first);
    time_call("state_json_round_trip", c_json, &c, calls, &first);
    time_call("plan_defaults", c_plan, &c, calls < 20 ? calls : 20, &first);
    time_call("read_plan_arrays", c_read, &c, calls, &first);
    time_call("format_plan_file", c_format, &c, calls < 50 ? calls : 50, &first);
    time_call("search_new", c_search_new, &c, calls < 50 ? calls : 50, &first);
    double before = c.sink;
    const int n = calls < 20 ? calls : 20;
    for (int i = 0; i < n; ++i) {
        c_search_run(&c);
    }
    printf(", \"search_run_100_iterations\": {\"mean_ms\": %.4f}}\n", 1e3 * (c.sink - before) / n);
    for (int i = 0; i < 50; ++i) {
        tplan_result_free(c.fresh[i]);
    }
    tplan_search_free(c.search);
    tplan_result_free(c.plan);
    tplan_state_free(c.x);
    tplan_domain_free(c.d);
    return 0;
}

int main(int argc, char **argv)
{
    const char *domain = NULL;
    double budget = 0.001;
    int calls = 1000;
    long long seed = 1;
    int plan_mode = 0, solutions = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--domain") == 0 && i + 1 < argc) {
            domain = argv[++i];
        } else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) {
            budget = atof(argv[++i]);
        } else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc) {
            calls = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = atoll(argv[++i]);
        } else if (strcmp(argv[i], "--solutions") == 0 && i + 1 < argc) {
            solutions = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--plan") == 0) {
            plan_mode = 1;
        } else if (strcmp(argv[i], "--overheads") == 0) {
            plan_mode = 2;
        } else {
            fprintf(stderr, "usage: %s --domain FILE [--budget S] [--calls N] [--seed N] [--plan | --overheads]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!domain || !(budget > 0) || calls < 1) {
        fprintf(stderr, "%s: --domain FILE is required; --budget > 0, --calls >= 1\n", argv[0]);
        return 2;
    }
    if (plan_mode == 2) {
        return overheads(domain, calls);
    }
    tplan_error err;
    tplan_domain *d = tplan_domain_load_file(domain, NULL, 0, NULL, &err);
    if (!d) {
        fprintf(stderr, "%s: %s\n", domain, err.message);
        return 1;
    }
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.seed = seed;
    def.solutions = solutions;
    double *call = malloc(sizeof *call * (size_t)calls), *over = malloc(sizeof *over * (size_t)calls);
    double *quiet = malloc(sizeof *quiet * (size_t)calls); /* the overshoots of the calls not preempted */
    int nquiet = 0;
    tplan_state *initial = tplan_state_new(d, &err);
    double t_new = now();
    tplan_search *s = plan_mode ? NULL : tplan_search_new(d, &def, NULL, &err);
    t_new = now() - t_new;
    if (!call || !over || !quiet || !initial || (!plan_mode && !s)) {
        fprintf(stderr, "%s: %s\n", domain, err.message);
        return 1;
    }
    double sink = 0;
    int overshot = 0, solved = 0, restarts = 0;
    long long iterations = 0;
    for (int i = 0; i < calls; ++i) {
        if (s && tplan_search_done(s)) { /* untimed */
            tplan_search_free(s);
            def.seed = seed + ++restarts;
            if (!(s = tplan_search_new(d, &def, initial, &err))) {
                fprintf(stderr, "search: %s\n", err.message);
                return 1;
            }
        }
        const long p0 = preemptions();
        const double t0 = now();
        tplan_result *r = NULL;
        const tplan_result *best = NULL;
        if (plan_mode) {
            def.time_limit = budget;
            r = tplan_plan(d, &def, &err);
            best = r;
        } else if (tplan_search_run(s, budget, &err) == TPLAN_OK) {
            best = tplan_search_best(s);
        }
        if (!best) {
            fprintf(stderr, "call %d: %s\n", i, err.message);
            return 1;
        }
        sink += read_plan(best);
        const double t1 = now();
        const bool preempted = preemptions() != p0;
        solved += tplan_result_status(best) == TPLAN_SOLVED;
        iterations += tplan_result_iterations(best);
        tplan_result_free(r);
        call[i] = t1 - t0;
        over[i] = call[i] - budget > 0 ? call[i] - budget : 0;
        overshot += call[i] > budget;
        if (!preempted) {
            quiet[nquiet++] = over[i];
        }
    }
    double load = -1; /* the machine's load average over the last minute (Linux), -1 when unknown */
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%lf", &load) != 1) {
            load = -1;
        }
        fclose(la);
    }
    printf("{\"domain\": \"%s\", \"mode\": \"%s\", \"budget_ms\": %g, \"calls\": %d, \"loadavg\": %.2f, ",
           tplan_domain_name(d), plan_mode ? "tplan_plan" : "tplan_search_run", 1e3 * budget, calls, load);
    if (!plan_mode) {
        printf("\"search_new_ms\": %.3f, \"restarts\": %d, ", 1e3 * t_new, restarts);
    }
    print_stats("call", call, calls);
    printf(", ");
    print_stats("overshoot", over, calls);
    if (nquiet > 0) {
        printf(", ");
        print_stats("overshoot_not_preempted", quiet, nquiet);
    }
    printf(", \"not_preempted\": %d, \"overshot\": %d, \"solved_calls\": %d, \"mean_iterations\": %.1f, \"checksum\": "
           "%g}\n",
           nquiet, overshot, solved, (double)iterations / calls, sink);
    tplan_search_free(s);
    tplan_state_free(initial);
    tplan_domain_free(d);
    free(call);
    free(over);
    free(quiet);
    return 0;
}
