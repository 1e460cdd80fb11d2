/* The SQLite job store under allocation failures, one at a time: a session of every
 * store operation (open, insert with name, tags and script, update, get, list with filters, load
 * script, counts, all ids, expired, recover, delete, close) is run once to count the allocations
 * of tplan's own code, then again with the n-th of them failing, for every n. Each run must end
 * cleanly: an operation that fails returns false or NULL and says so in the service's log (SQLite's
 * own allocations are inside its shared library and never fail here); nothing crashes, nothing
 * leaks (the sanitizer build: detect_leaks=1), and the store still opens afterwards with what was
 * committed. The hook is tests/core/fault_hook.c (-Wl,--wrap, as test_faults). */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault_hook.h"
#include "service_internal.h"

static char g_dir[] = "/tmp/tp_store_faults_XXXXXX";
static char g_spec[300];

typedef struct Session {
    tpService svc;
    char *log; /* what the store said (open_memstream) */
    size_t log_len;
} Session;

/* The service the store's calls need (no workers, no HTTP), built without the hook. */
static void session_init(Session *s)
{
    memset(s, 0, sizeof *s);
    s->svc.def = tpDefaultServiceDef();
    s->svc.def.store = g_spec;
    s->svc.data_dir = g_dir;
    s->svc.log = open_memstream(&s->log, &s->log_len);
    assert_non_null(s->svc.log);
    pthread_mutex_init(&s->svc.mu, NULL);
    pthread_cond_init(&s->svc.changed, NULL);
}

static void session_free(Session *s)
{
    fclose(s->svc.log);
    free(s->log);
    pthread_mutex_destroy(&s->svc.mu);
    pthread_cond_destroy(&s->svc.changed);
}

/* A failed operation must have said why in the log (the log only grows). */
static void said(Session *s, size_t before, const char *op, long n)
{
    fflush(s->svc.log);
    if (s->log_len == before) {
        fail_msg("allocation %ld: %s failed without a word in the log", n, op);
    }
}

static svcJob *new_job(void)
{
    svcJob *job = calloc(1, sizeof *job);
    if (!job) {
        return NULL;
    }
    job->status = SVC_QUEUED;
    job->domain = strdup("job.lua");
    job->request = strdup("{\"seed\":3}");
    job->name = strdup("shot-1");
    job->tags = strdup("[\"a\",\"b\"]");
    job->script = strdup("return 1");
    job->script_len = 8;
    job->created = svcNow();
    job->run.time_limit = 60;
    job->memory_mb = 256;
    job->best_quality = NAN;
    snprintf(job->client, sizeof job->client, "127.0.0.1");
    if (!job->domain || !job->request || !job->name || !job->tags || !job->script) {
        svcJobFree(job);
        return NULL;
    }
    return job;
}

/* One session of every operation; returns the operations that failed. n: the failing allocation
 * (for messages). */
static int session(long n)
{
    Session s;
    session_init(&s);
    tpService *svc = &s.svc;
    int failed = 0;
    char err[1024] = "";
    if (!svcStore_Open(svc, err, sizeof err)) {
        assert_true(err[0] != '\0'); /* open reports in err, not the log */
        session_free(&s);
        return 1;
    }
    size_t at;
#define OP(name, expr)                                                                                                 \
    do {                                                                                                               \
        fflush(svc->log);                                                                                              \
        at = s.log_len;                                                                                                \
        if (!(expr)) {                                                                                                 \
            said(&s, at, name, n);                                                                                     \
            ++failed;                                                                                                  \
        }                                                                                                              \
    } while (0)
    svcJob *job = new_job();
    if (job) {
        OP("insert", svcStore_Insert(svc, job, "key-1", "hash-1"));
        if (job->id > 0) {
            job->status = SVC_RUNNING;
            job->started = svcNow();
            OP("update", svcStore_Update(svc, job));
            svcJob *got = NULL;
            OP("get", (got = svcStore_Get(svc, job->id, true)) != NULL);
            svcJobFree(got);
            svcJob *bare = NULL;
            OP("get without the script", (bare = svcStore_Get(svc, job->id, false)) != NULL);
            if (bare) {
                OP("load script", svcStore_LoadScript(svc, bare));
                svcJobFree(bare);
            }
        }
        svcJobFree(job);
    } else {
        ++failed; /* the test's own job could not be made */
    }
    svcListFilter f = {.status = -1, .tag = "a", .limit = 10};
    int count = 0;
    int64_t *ids = NULL;
    OP("list", (ids = svcStore_List(svc, &f, &count)) != NULL || count == 0);
    free(ids);
    ids = NULL;
    OP("all ids", (ids = svcStore_AllIds(svc, &count)) != NULL || count == 0);
    free(ids);
    ids = NULL;
    OP("expired", (ids = svcStore_Expired(svc, svcNow() + 1e6, &count)) != NULL || count == 0);
    free(ids);
    int64_t counts[SVC_NSTATUS];
    svcStore_Counts(svc, counts);
    int nrec = 0;
    svcJob **rec = svcStore_Recover(svc, &nrec);
    for (int i = 0; i < nrec; ++i) {
        svcJobFree(rec[i]);
    }
    free(rec);
    svcStore_Close(svc);
#undef OP
    session_free(&s);
    return failed;
}

static void every_failure(void **state)
{
    (void)state;
    fault_reset(-1);
    assert_int_equal(session(0), 0); /* nothing fails when nothing fails */
    const long total = g_fault_calls;
    assert_true(total > 10);
    long refused = 0;
    for (long n = 1; n <= total; ++n) {
        fault_reset(n);
        int failed = session(n);
        fault_reset(-1);
        refused += failed > 0;
        /* whatever was committed, the store opens again and answers */
        Session s;
        session_init(&s);
        char err[1024] = "";
        if (!svcStore_Open(&s.svc, err, sizeof err)) {
            fail_msg("allocation %ld: the store no longer opens: %s", n, err);
        }
        int count = 0;
        int64_t *ids = svcStore_AllIds(&s.svc, &count);
        assert_true(ids != NULL || count == 0);
        free(ids);
        svcStore_Close(&s.svc);
        session_free(&s);
    }
    assert_true(refused * 2 >= total); /* most failures are reported, a few are survivable */
    printf("store: %ld allocations per session, each failed once: %ld sessions reported a failure, %ld coped\n", total,
           refused, total - refused);
}

int main(void)
{
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(g_spec, sizeof g_spec, "sqlite:%s/tplan.db", g_dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_failure),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char path[400];
    snprintf(path, sizeof path, "%s/tplan.db", g_dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/tplan.db-wal", g_dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/tplan.db-shm", g_dir);
    unlink(path);
    rmdir(g_dir);
    return rc;
}
