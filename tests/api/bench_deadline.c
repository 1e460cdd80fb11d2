/* The hard deadline of an anytime search, measured (issue 37 item 3; docs/embedding.md, "Anytime
 * search"): `calls` runs of tplan_search_run(budget) on one domain, each followed by what a game
 * reads of the best plan (status, steps, the first controlled body's states and controls), the
 * whole timed with CLOCK_MONOTONIC; prints the call's time and its overshoot over the budget
 * (median, p90, p99, max, and how many calls overshot) as one JSON object. A search that is done
 * (solved) is replaced by a new one (seed + 1) outside the timing, so every timed call searches. With --plan it times
 * tplan_plan with time_limit = budget instead (the old way: each call loads the script and builds the tree afresh).
 *
 *   bench_deadline --domain domains/pool.lua [--budget 0.001] [--calls 1000] [--seed 1] [--plan]
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

int main(int argc, char **argv)
{
    const char *domain = NULL;
    double budget = 0.001;
    int calls = 1000;
    long long seed = 1;
    int plan_mode = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--domain") == 0 && i + 1 < argc) {
            domain = argv[++i];
        } else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) {
            budget = atof(argv[++i]);
        } else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc) {
            calls = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = atoll(argv[++i]);
        } else if (strcmp(argv[i], "--plan") == 0) {
            plan_mode = 1;
        } else {
            fprintf(stderr, "usage: %s --domain FILE [--budget S] [--calls N] [--seed N] [--plan]\n", argv[0]);
            return 2;
        }
    }
    if (!domain || !(budget > 0) || calls < 1) {
        fprintf(stderr, "%s: --domain FILE is required; --budget > 0, --calls >= 1\n", argv[0]);
        return 2;
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
    printf("{\"domain\": \"%s\", \"mode\": \"%s\", \"budget_ms\": %g, \"calls\": %d, ", tplan_domain_name(d),
           plan_mode ? "tplan_plan" : "tplan_search_run", 1e3 * budget, calls);
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
