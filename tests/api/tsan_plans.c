/* Several threads using libtplan at once, for a ThreadSanitizer build of the library (tsan.sh):
 * each thread loads its own domain, plans it, replays the plan, writes it to a file a few times
 * (the temporary-file registry) and reads and writes a run definition as JSON; threads planning
 * the same domain and seed must get the same plan bytes (up to "timing"). Exits 0 when all of
 * that holds; the race check itself is TSan's (tsan.sh fails on any report). Then an anytime search
 * (tplan_search) that only a cancel ends, cancelled from the main thread while it runs.
 * Only tplan/tplan.h: the program links libtplan.so as a host would.
 * Usage: tsan_plans DOMAINS_DIR OUT_DIR */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tplan/tplan.h>

#define NTHREADS 4

typedef struct Job {
    const char *dir, *out;
    const char *domain; /* file name in dir */
    tplan_param param;  /* one --set parameter, or name NULL */
    int index, seed;
    char *plan; /* the plan's bytes (owned), NULL on failure */
    size_t len;
    int prints;         /* output callback calls */
    char failure[2300]; /* "" when everything held */
} Job;

static void on_output(void *user, tplan_output_kind kind, const char *text, size_t len)
{
    (void)kind;
    (void)text;
    (void)len;
    ((Job *)user)->prints++;
}

static void *run(void *arg)
{
    Job *j = arg;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", j->dir, j->domain);
    tplan_error e;
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.seed = j->seed;
    def.max_iters = 150;
    def.time_limit = 0;
    def.output = on_output;
    def.output_user = j;
    tplan_domain *d = tplan_domain_load_file(path, &j->param, j->param.name ? 1 : 0, &def, &e);
    tplan_result *r = d ? tplan_plan(d, &def, &e) : NULL;
    if (!r) {
        snprintf(j->failure, sizeof j->failure, "%s: %s", j->domain, e.message);
        tplan_domain_free(d);
        return NULL;
    }
    size_t len;
    const char *bytes = tplan_result_plan(r, &len);
    if (tplan_replay(d, bytes, len, &e) != TPLAN_OK) {
        snprintf(j->failure, sizeof j->failure, "%s: replay: %s", j->domain, e.message);
    }
    snprintf(path, sizeof path, "%s/plan_%d.json", j->out, j->index);
    for (int k = 0; k < 20 && !j->failure[0]; ++k) {
        if (tplan_result_write_plan(r, path, &e) != TPLAN_OK) {
            snprintf(j->failure, sizeof j->failure, "write %s: %s", path, e.message);
        }
    }
    char *json = tplan_run_def_to_json(&def);
    tplan_run_def back;
    tplan_run_def_init(&back);
    if (!json || tplan_run_def_from_json(&back, json, strlen(json), &e) != TPLAN_OK || back.seed != def.seed) {
        snprintf(j->failure, sizeof j->failure, "run definition JSON round trip: %s", json ? e.message : "NULL");
    }
    tplan_free(json);
    j->plan = malloc(len + 1);
    if (j->plan) {
        memcpy(j->plan, bytes, len + 1);
        j->len = len;
    }
    tplan_result_free(r);
    tplan_domain_free(d);
    return NULL;
}

/* Two threads asking one result for its bytes at once: formatted once, under the result's lock. */
static void *read_bytes(void *arg)
{
    size_t len;
    return (void *)tplan_result_plan(arg, &len);
}

static size_t upto_timing(const char *p)
{
    const char *t = strstr(p, "\"timing\"");
    return t ? (size_t)(t - p) : strlen(p);
}

/* A search whose goal is never met: only the cancel ends its run (a region x in [300, 500] was
 * reached in 165 iterations, every impulse speeding the ball up). */
static const char k_endless[] = "local tp = require 'tp'\n"
                                "return tp.domain { name = 'endless', dt = 1/60,\n"
                                "  bodies = { tp.plane { name = 'floor' },\n"
                                "    tp.sphere { name = 'ball', class = 'active', radius = 0.05, mass = 0.2,\n"
                                "                pos = {0, 0, 0.05}, max_force = 50 } },\n"
                                "  tactics = { tp.tactic { name = 'push', body = 'ball', skills = {\n"
                                "    tp.skill.impulse { name = 'roll', speed = tp.uniform(0.5, 3) } } } },\n"
                                "  goal = function(s) return false end,\n"
                                "  planner = { max_iters = 1000000000 } }\n";

typedef struct SearchRun {
    tplan_search *s;
    tplan_code code;
    int finished; /* read and written with __atomic builtins */
} SearchRun;

static void *search_long(void *arg)
{
    SearchRun *r = arg;
    tplan_error e;
    r->code = tplan_search_run(r->s, 1e6, &e);
    __atomic_store_n(&r->finished, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* tplan_search_cancel from this thread while another runs the search: the run returns. */
static int search_cancelled(void)
{
    tplan_error e;
    tplan_domain *d = tplan_domain_load_string("endless.lua", k_endless, sizeof k_endless - 1, NULL, 0, NULL, &e);
    tplan_search *s = d ? tplan_search_new(d, NULL, NULL, &e) : NULL;
    SearchRun r = {s, TPLAN_ERR_INTERNAL, 0};
    pthread_t t;
    int bad = !s || pthread_create(&t, NULL, search_long, &r) != 0;
    if (!bad) {
        while (!__atomic_load_n(&r.finished, __ATOMIC_SEQ_CST)) {
            tplan_search_cancel(s);
        }
        pthread_join(t, NULL);
        bad = r.code != TPLAN_OK || !tplan_search_best(s);
    }
    if (bad) {
        fprintf(stderr, "FAIL: a cancelled search: %s\n", s ? tplan_code_name(r.code) : e.message);
    }
    tplan_search_free(s);
    tplan_domain_free(d);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tsan_plans DOMAINS_DIR OUT_DIR\n");
        return 2;
    }
    /* two minigolf (dWorldStep, no lock), two dice (quickstep: the lock and ODE's seed) */
    Job jobs[NTHREADS];
    memset(jobs, 0, sizeof jobs);
    const char *files[NTHREADS] = {"minigolf.lua", "minigolf.lua", "dice.lua", "dice.lua"};
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; ++i) {
        jobs[i].dir = argv[1];
        jobs[i].out = argv[2];
        jobs[i].domain = files[i];
        jobs[i].index = i;
        jobs[i].seed = 1;
        if (strcmp(files[i], "dice.lua") == 0) {
            jobs[i].param = (tplan_param){"count", "4"};
        }
        if (pthread_create(&t[i], NULL, run, &jobs[i]) != 0) {
            fprintf(stderr, "FAIL: pthread_create\n");
            return 1;
        }
    }
    for (int i = 0; i < NTHREADS; ++i) {
        pthread_join(t[i], NULL);
    }
    int bad = 0;
    for (int i = 0; i < NTHREADS; ++i) {
        if (jobs[i].failure[0] || !jobs[i].plan) {
            fprintf(stderr, "FAIL: thread %d: %s\n", i, jobs[i].failure[0] ? jobs[i].failure : "out of memory");
            bad = 1;
        }
    }
    for (int i = 1; i < NTHREADS && !bad; i += 2) { /* threads 2k and 2k+1 planned the same */
        size_t a = upto_timing(jobs[i - 1].plan), b = upto_timing(jobs[i].plan);
        if (a != b || memcmp(jobs[i - 1].plan, jobs[i].plan, a) != 0) {
            fprintf(stderr, "FAIL: %s seed %d: threads %d and %d made different plans\n", jobs[i].domain, jobs[i].seed,
                    i - 1, i);
            bad = 1;
        }
    }
    for (int i = 0; i < NTHREADS; ++i) {
        printf("thread %d: %s seed %d: %zu plan bytes, %d outputs\n", i, jobs[i].domain, jobs[i].seed, jobs[i].len,
               jobs[i].prints);
        free(jobs[i].plan);
    }
    /* a result's bytes are formatted on first use: two readers at once get the same bytes */
    char path[4096];
    snprintf(path, sizeof path, "%s/minigolf.lua", argv[1]);
    tplan_error e;
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.seed = 1;
    def.max_iters = 150;
    def.time_limit = 0;
    tplan_domain *d = tplan_domain_load_file(path, NULL, 0, NULL, &e);
    tplan_result *r = d ? tplan_plan(d, &def, &e) : NULL;
    void *got[2] = {NULL, NULL};
    if (r && pthread_create(&t[0], NULL, read_bytes, r) == 0 && pthread_create(&t[1], NULL, read_bytes, r) == 0) {
        pthread_join(t[0], &got[0]);
        pthread_join(t[1], &got[1]);
    }
    if (!got[0] || got[0] != got[1]) {
        fprintf(stderr, "FAIL: two readers of one result: %p and %p (%s)\n", got[0], got[1], r ? "" : e.message);
        bad = 1;
    }
    tplan_result_free(r);
    tplan_domain_free(d);
    bad |= search_cancelled();
    if (!bad) {
        printf("ok: %d threads, 2 readers of one result, a search cancelled from another thread\n", NTHREADS);
    }
    return bad;
}
