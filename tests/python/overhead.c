/* The C side of tools/python_overhead.py: the median wall time (ns) of N calls of one 1-step
 * tplan_simulate (no forces) of the domain's initial state, each on a fresh copy (what
 * tplan.Domain.simulate does: it returns a new state), of tplan_state_new, and of one search run of
 * 1 iteration that hands its best plan over (tplan_search_run_iterations + _take_best: what
 * tplan.Search.run(iterations=1) does), the search seeded 1.
 * usage: tplan_py_overhead DOMAIN.lua N */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tplan/tplan.h"

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    const int n = argc == 3 ? atoi(argv[2]) : 0;
    if (n < 1) {
        fprintf(stderr, "usage: tplan_py_overhead DOMAIN.lua N\n");
        return 2;
    }
    tplan_error err;
    tplan_domain *d = tplan_domain_load_file(argv[1], NULL, 0, NULL, &err);
    tplan_state *s0 = d ? tplan_state_new(d, &err) : NULL;
    if (!s0) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    double *sim = malloc(sizeof(double) * (size_t)n), *make = malloc(sizeof(double) * (size_t)n);
    tplan_simulate_def def;
    tplan_simulate_def_init(&def);
    def.steps = 1;
    for (int i = 0; i < n; ++i) {
        const double t0 = now_ns();
        tplan_state *s = tplan_state_copy(s0);
        if (tplan_simulate(d, s, &def, &err) != TPLAN_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        sim[i] = now_ns() - t0;
        tplan_state_free(s);
        const double t1 = now_ns();
        tplan_state *m = tplan_state_new(d, &err);
        make[i] = now_ns() - t1;
        tplan_state_free(m);
    }
    tplan_run_def rd;
    tplan_run_def_init(&rd);
    rd.seed = 1;
    tplan_search *search = tplan_search_new(d, &rd, NULL, &err);
    double *run = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; search && run && i < n; ++i) {
        const double t0 = now_ns();
        if (tplan_search_run_iterations(search, 1, &err) != TPLAN_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        tplan_result *r = tplan_search_take_best(search);
        run[i] = now_ns() - t0;
        tplan_result_free(r);
    }
    if (!search || !run) {
        fprintf(stderr, "search: %s\n", err.message);
        return 1;
    }
    printf("{\"simulate_ns\": %.0f, \"state_new_ns\": %.0f, \"search_run_ns\": %.0f}\n", median(sim, n),
           median(make, n), median(run, n));
    tplan_search_free(search);
    free(run);
    free(sim);
    free(make);
    tplan_state_free(s0);
    tplan_domain_free(d);
    return 0;
}
