/* The service's job store without HTTP (service/src/store.h): the same cases against each backend.
 * SQLite always (a file in a temporary folder); PostgreSQL when TPLAN_TEST_STORE names a database
 * (service_pg_suite.py starts a throwaway cluster and sets it: ctest test_store_pg). Each case opens
 * a fresh store: with SQLite a new file, with PostgreSQL the same database emptied. */
#define _GNU_SOURCE /* usleep */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "service_internal.h"
#include "store.h"
#include "tp/base.h"

static char g_dir[256];
static const char *g_spec; /* the store of this run: "sqlite:DIR/tplan.db" or postgresql://... */
static char g_sqlite[300];

/* A service with the store of spec open (no workers, no HTTP): what the store's calls need. */
static tpService *open_store_spec(const char *spec)
{
    tpService *svc = calloc(1, sizeof *svc);
    assert_non_null(svc);
    svc->def = tpDefaultServiceDef();
    svc->def.store = spec;
    svc->def.keep_jobs = 0;
    svc->def.keep_days = 0;
    svc->def.keep_mb = 0;
    svc->data_dir = strdup(g_dir);
    svc->log = fopen("/dev/null", "w");
    pthread_mutex_init(&svc->mu, NULL);
    pthread_cond_init(&svc->changed, NULL);
    char err[1024] = "";
    if (!svcStore_Open(svc, err, sizeof err)) {
        fail_msg("open %s: %s", spec, err);
    }
    return svc;
}

static tpService *open_store(void)
{
    return open_store_spec(g_spec);
}

static void close_store(tpService *svc)
{
    svcStore_Close(svc);
    fclose(svc->log);
    free(svc->data_dir);
    pthread_mutex_destroy(&svc->mu);
    pthread_cond_destroy(&svc->changed);
    free(svc);
}

/* Empties the store (every case starts from none). */
static int setup(void **state)
{
    tpService *svc = open_store();
    int n = 0;
    int64_t *ids = svcStore_AllIds(svc, &n);
    if (n > 0) {
        assert_true(svcStore_DeleteMany(svc, ids, n));
    }
    free(ids);
    *state = svc;
    return 0;
}

static int teardown(void **state)
{
    close_store(*state);
    return 0;
}

static svcJob *new_job(const char *domain, const char *name, const char *tags, const char *script)
{
    svcJob *job = calloc(1, sizeof *job);
    job->status = SVC_QUEUED;
    job->domain = strdup(domain);
    job->request = strdup("{\"seed\":3}");
    job->name = name ? strdup(name) : NULL;
    job->tags = tags ? strdup(tags) : NULL;
    if (script) {
        job->script_len = strlen(script);
        job->script = strdup(script);
    }
    job->created = svcNow();
    job->run.time_limit = 60;
    job->memory_mb = 256;
    job->best_quality = NAN;
    snprintf(job->client, sizeof job->client, "127.0.0.1");
    return job;
}

static int64_t insert(tpService *svc, const char *domain, const char *name, const char *tags, const char *key)
{
    svcJob *job = new_job(domain, name, tags, NULL);
    assert_true(svcStore_Insert(svc, job, key, key ? "hash-of-body" : NULL));
    int64_t id = job->id;
    svcJobFree(job);
    return id;
}

/* The job as the scheduler has it once a worker runs it: a PostgreSQL node claims it (a lease),
 * the local scheduler takes it from its queue. */
static svcJob *take(tpService *svc, int64_t id)
{
    svcJob *job = NULL;
    if (svc->cluster) {
        job = svcCluster_Claim(svc, true, 1);
        assert_non_null(job);
        assert_int_equal(job->id, id);
    } else {
        job = svcStore_Get(svc, id, false);
        assert_non_null(job);
    }
    job->status = SVC_RUNNING;
    job->started = svcNow();
    assert_true(svcStore_Update(svc, job));
    return job;
}

static void finish(tpService *svc, svcJob *job, svcStatus status)
{
    job->status = status;
    job->finished = svcNow();
    job->iterations = 42;
    job->best_quality = 1.5;
    job->summary = strdup("{\"nodes\":7}");
    if (svc->cluster) {
        assert_true(svcCluster_Finish(svc, job));
    } else {
        assert_true(svcStore_Update(svc, job));
    }
}

static void insert_get_roundtrip(void **state)
{
    tpService *svc = *state;
    const char script[] = "local tp = require \"tp\" -- \xc3\xa9t\xc3\xa9\n";
    svcJob *job = new_job("job.lua", "shot 1", "[\"a\",\"b\"]", script);
    assert_true(svcStore_Insert(svc, job, "key-1", "h1"));
    assert_true(job->id > 0);
    svcJob *got = svcStore_Get(svc, job->id, true);
    assert_non_null(got);
    assert_string_equal(got->domain, "job.lua");
    assert_null(got->request); /* the API's copy: the request as job objects show it */
    assert_string_equal(got->request_shown, "{\"seed\":3}");
    assert_string_equal(got->name, "shot 1");
    assert_string_equal(got->tags, "[\"a\",\"b\"]");
    assert_int_equal(got->status, SVC_QUEUED);
    assert_true(isnan(got->best_quality));
    assert_true(got->run.time_limit == 60 && got->memory_mb == 256);
    assert_true(fabs(got->created - job->created) < 1e-6);
    assert_int_equal(got->script_len, strlen(script));
    assert_memory_equal(got->script, script, strlen(script));
    char hash[40] = "";
    assert_int_equal(svcStore_FindIdem(svc, "key-1", hash, sizeof hash), job->id);
    assert_string_equal(hash, "h1");
    assert_int_equal(svcStore_FindIdem(svc, "key-2", hash, sizeof hash), 0);
    assert_null(svcStore_Get(svc, job->id + 1000, false));
    svcJobFree(got);
    svcJobFree(job);
}

static void list_filters(void **state)
{
    tpService *svc = *state;
    int64_t a = insert(svc, "minigolf", "x", "[\"red\"]", NULL);
    int64_t b = insert(svc, "pool", "y", "[\"blue\",\"red\"]", NULL);
    int64_t c = insert(svc, "minigolf", NULL, NULL, NULL);
    svcListFilter f = {.status = -1, .limit = 10};
    int n = 0;
    int64_t *ids = svcStore_List(svc, &f, &n);
    assert_int_equal(n, 3);
    assert_true(ids[0] == c && ids[1] == b && ids[2] == a); /* newest first */
    free(ids);
    f.domain = "minigolf";
    ids = svcStore_List(svc, &f, &n);
    assert_true(n == 2 && ids[0] == c && ids[1] == a);
    free(ids);
    f.domain = NULL;
    f.tag = "red";
    ids = svcStore_List(svc, &f, &n);
    assert_true(n == 2 && ids[0] == b && ids[1] == a);
    free(ids);
    f.tag = NULL;
    f.name = "y";
    ids = svcStore_List(svc, &f, &n);
    assert_true(n == 1 && ids[0] == b);
    free(ids);
    f.name = NULL;
    f.before = c;
    f.limit = 1;
    ids = svcStore_List(svc, &f, &n);
    assert_true(n == 1 && ids[0] == b);
    free(ids);
    svcListFilter running = {.status = SVC_RUNNING, .limit = 10};
    ids = svcStore_List(svc, &running, &n);
    assert_int_equal(n, 0);
    free(ids);
}

static void run_finish_counts(void **state)
{
    tpService *svc = *state;
    int64_t a = insert(svc, "minigolf", NULL, NULL, NULL);
    int64_t b = insert(svc, "minigolf", NULL, NULL, NULL);
    svcJob *job = take(svc, a);
    int64_t counts[SVC_NSTATUS];
    svcStore_Counts(svc, counts);
    assert_true(counts[SVC_RUNNING] == 1 && counts[SVC_QUEUED] == 1);
    finish(svc, job, SVC_SOLVED);
    svcJobFree(job);
    svcJob *got = svcStore_Get(svc, a, false);
    assert_int_equal(got->status, SVC_SOLVED);
    assert_int_equal(got->iterations, 42);
    assert_true(got->best_quality == 1.5);
    assert_string_equal(got->summary, "{\"nodes\":7}");
    svcJobFree(got);
    svcStore_Counts(svc, counts);
    assert_true(counts[SVC_SOLVED] == 1 && counts[SVC_QUEUED] == 1 && counts[SVC_RUNNING] == 0);
    (void)b;
}

static void retention_and_delete(void **state)
{
    tpService *svc = *state;
    int64_t ids[4];
    for (int i = 0; i < 4; ++i) {
        ids[i] = insert(svc, "minigolf", NULL, NULL, NULL);
    }
    for (int i = 0; i < 3; ++i) { /* three finished, the fourth still queued */
        svcJob *job = take(svc, ids[i]);
        finish(svc, job, SVC_APPROXIMATE);
        svcJobFree(job);
    }
    svc->def.keep_jobs = 1; /* the newest finished job stays */
    int n = 0;
    int64_t *old = svcStore_Expired(svc, svcNow(), &n);
    assert_int_equal(n, 2);
    assert_true(old[0] == ids[1] && old[1] == ids[0]);
    assert_true(svcStore_DeleteMany(svc, old, n));
    free(old);
    assert_true(svcStore_Delete(svc, ids[3]));
    int64_t *all = svcStore_AllIds(svc, &n);
    assert_true(n == 1 && all[0] == ids[2]);
    free(all);
}

/* A request text of n bytes (JSON: a "set" string), malloc'd. */
static char *big_request(size_t n)
{
    char *r = malloc(n + 1);
    assert_non_null(r);
    memset(r, 'v', n);
    memcpy(r, "{\"set\":{\"a\":\"", 13);
    memcpy(r + n - 3, "\"}}", 3);
    r[n] = '\0';
    return r;
}

/* A finished job whose request is request_bytes long and whose script is script_bytes (0 = none). */
static int64_t insert_finished(tpService *svc, size_t request_bytes, size_t script_bytes)
{
    svcJob *job = new_job(script_bytes ? "job.lua" : "minigolf", NULL, NULL, NULL);
    free(job->request);
    job->request = big_request(request_bytes);
    if (script_bytes) {
        job->script = malloc(script_bytes + 1);
        memset(job->script, '-', script_bytes);
        job->script[script_bytes] = '\0';
        job->script_len = script_bytes;
    }
    assert_true(svcStore_Insert(svc, job, NULL, NULL));
    int64_t id = job->id;
    svcJobFree(job);
    job = take(svc, id);
    finish(svc, job, SVC_SOLVED);
    svcJobFree(job);
    return id;
}

/* keep_mb counts each record's request and script from the sizes the store keeps beside it (set at
 * insert and at the job's end): the oldest job goes once the newer ones reach 1 MiB. */
static void retention_by_record_size(void **state)
{
    tpService *svc = *state;
    int64_t a = insert_finished(svc, 300 << 10, 0);
    int64_t b = insert_finished(svc, 300 << 10, 500 << 10); /* its script makes the difference */
    int64_t c = insert_finished(svc, 300 << 10, 0);
    svc->def.keep_mb = 1;
    int n = 0;
    int64_t *old = svcStore_Expired(svc, svcNow(), &n);
    /* newest first: c (300 KiB, kept), c + b = 1100 KiB > 1 MiB: b and every older job go */
    assert_int_equal(n, 2);
    assert_true(old[0] == b && old[1] == a);
    free(old);
    svc->def.keep_mb = 2; /* 1400 KiB in all: nothing goes */
    old = svcStore_Expired(svc, svcNow(), &n);
    assert_int_equal(n, 0);
    free(old);
    (void)c;
}

/* ---- an SQLite VFS that counts the bytes read from the store's files ---- */

static sqlite3_vfs *g_real_vfs;
static sqlite3_int64 g_read_bytes;

typedef struct ShimFile {
    sqlite3_file base;
    sqlite3_file *real; /* the real VFS's file, right after this struct */
} ShimFile;

#define REAL(f) (((ShimFile *)(void *)(f))->real)

static int shim_close(sqlite3_file *f)
{
    return REAL(f)->pMethods->xClose(REAL(f));
}
static int shim_read(sqlite3_file *f, void *b, int n, sqlite3_int64 off)
{
    g_read_bytes += n;
    return REAL(f)->pMethods->xRead(REAL(f), b, n, off);
}
static int shim_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 off)
{
    return REAL(f)->pMethods->xWrite(REAL(f), b, n, off);
}
static int shim_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    return REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int shim_sync(sqlite3_file *f, int flags)
{
    return REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int shim_size(sqlite3_file *f, sqlite3_int64 *size)
{
    return REAL(f)->pMethods->xFileSize(REAL(f), size);
}
static int shim_lock(sqlite3_file *f, int l)
{
    return REAL(f)->pMethods->xLock(REAL(f), l);
}
static int shim_unlock(sqlite3_file *f, int l)
{
    return REAL(f)->pMethods->xUnlock(REAL(f), l);
}
static int shim_reserved(sqlite3_file *f, int *out)
{
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}
static int shim_control(sqlite3_file *f, int op, void *arg)
{
    return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}
static int shim_sector(sqlite3_file *f)
{
    return REAL(f)->pMethods->xSectorSize(REAL(f));
}
static int shim_devchar(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int shim_shm_map(sqlite3_file *f, int pg, int sz, int extend, void volatile **pp)
{
    return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, extend, pp);
}
static int shim_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
    return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}
static void shim_shm_barrier(sqlite3_file *f)
{
    REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int shim_shm_unmap(sqlite3_file *f, int del)
{
    return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}
static int shim_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **pp)
{
    (void)f, (void)off, (void)n;
    *pp = NULL; /* no memory-mapped pages: every read goes through shim_read */
    return SQLITE_OK;
}
static int shim_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
    (void)f, (void)off, (void)p;
    return SQLITE_OK;
}

static const sqlite3_io_methods shim_io = {
    3,
    shim_close,
    shim_read,
    shim_write,
    shim_truncate,
    shim_sync,
    shim_size,
    shim_lock,
    shim_unlock,
    shim_reserved,
    shim_control,
    shim_sector,
    shim_devchar,
    shim_shm_map,
    shim_shm_lock,
    shim_shm_barrier,
    shim_shm_unmap,
    shim_fetch,
    shim_unfetch,
};

static int shim_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
    (void)vfs;
    ShimFile *s = (ShimFile *)(void *)f;
    s->real = (sqlite3_file *)(void *)(s + 1);
    int rc = g_real_vfs->xOpen(g_real_vfs, name, s->real, flags, out);
    f->pMethods = rc == SQLITE_OK && s->real->pMethods ? &shim_io : NULL;
    return rc;
}

static sqlite3_vfs g_shim_vfs;

/* Makes the counting VFS SQLite's default (the store opens its file through it). */
static void shim_install(void)
{
    g_real_vfs = sqlite3_vfs_find(NULL);
    assert_non_null(g_real_vfs);
    g_shim_vfs = *g_real_vfs;
    g_shim_vfs.zName = "tplan-count-reads";
    g_shim_vfs.szOsFile = (int)sizeof(ShimFile) + g_real_vfs->szOsFile;
    g_shim_vfs.xOpen = shim_open;
    assert_int_equal(sqlite3_vfs_register(&g_shim_vfs, 1), SQLITE_OK);
}

static void shim_remove(void)
{
    sqlite3_vfs_unregister(&g_shim_vfs);
    sqlite3_vfs_register(g_real_vfs, 1);
}

/* SQLite: the retention pass and a filtered list read the index of sizes and times, never a stored
 * request (length() of every request text, every 10 s under the server's lock). 16 finished
 * jobs of 1 MiB each, the store opened again (nothing cached), then less than one request read. */
static void retention_reads_no_request(void **state)
{
    tpService *svc = *state;
    if (svc->cluster) {
        skip();
    }
    int64_t last = 0;
    for (int i = 0; i < 16; ++i) {
        last = insert_finished(svc, 1 << 20, 0);
    }
    close_store(svc);
    shim_install();
    svc = open_store();
    *state = svc;
    g_read_bytes = 0;
    svc->def.keep_jobs = 8;
    int n = 0;
    int64_t *old = svcStore_Expired(svc, svcNow(), &n);
    sqlite3_int64 retention_read = g_read_bytes;
    assert_int_equal(n, 8);
    free(old);
    g_read_bytes = 0;
    svcListFilter f = {.status = -1, .name = "no such name", .tag = "no such tag", .limit = 10};
    int64_t *ids = svcStore_List(svc, &f, &n);
    sqlite3_int64 list_read = g_read_bytes;
    assert_int_equal(n, 0);
    free(ids);
    g_read_bytes = 0; /* the API's get of one of them: its shown request, not the stored 1 MiB */
    svcJob *got = svcStore_Get(svc, last, false);
    sqlite3_int64 get_read = g_read_bytes;
    assert_non_null(got);
    assert_string_equal(got->request_shown, "{\"set\":{\"a\":{\"bytes\":1048560}}}");
    svcJobFree(got);
    shim_remove();
    if (retention_read >= (1 << 20) || list_read >= (1 << 20) || get_read >= (256 << 10)) {
        fail_msg("read %lld bytes for retention, %lld for the list of 16 jobs of 1 MiB, %lld for one of them",
                 (long long)retention_read, (long long)list_read, (long long)get_read);
    }
}

/* SQLite: a version 2 store (no record_bytes) is upgraded once, its sizes filled from the records. */
static void upgrade_fills_record_bytes(void **state)
{
    tpService *svc = *state;
    if (svc->cluster) {
        skip();
    }
    char path[400], spec[420];
    snprintf(path, sizeof path, "%s/v2.db", g_dir);
    snprintf(spec, sizeof spec, "sqlite:%s", path);
    unlink(path);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *req = big_request(300 << 10);
    char *sql = malloc(strlen(req) + 4096);
    assert_int_equal(sqlite3_exec(db,
                                  "CREATE TABLE jobs(id INTEGER PRIMARY KEY AUTOINCREMENT, status TEXT NOT NULL,"
                                  " domain TEXT NOT NULL, request TEXT NOT NULL, script BLOB, idem_key TEXT UNIQUE,"
                                  " idem_hash TEXT, created REAL NOT NULL, started REAL, finished REAL,"
                                  " iterations INTEGER NOT NULL DEFAULT 0, nodes INTEGER NOT NULL DEFAULT 0,"
                                  " solutions INTEGER NOT NULL DEFAULT 0, best_quality REAL,"
                                  " elapsed REAL NOT NULL DEFAULT 0, summary TEXT, error_code TEXT,"
                                  " error_message TEXT, has_plan INTEGER NOT NULL DEFAULT 0,"
                                  " has_tree INTEGER NOT NULL DEFAULT 0, time_limit REAL NOT NULL,"
                                  " memory_mb INTEGER NOT NULL, name TEXT, tags TEXT,"
                                  " bytes INTEGER NOT NULL DEFAULT 0);"
                                  "CREATE INDEX jobs_by_status ON jobs(status, id); PRAGMA user_version=2;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    for (int i = 0; i < 4; ++i) { /* 4 finished jobs of 300 KiB */
        snprintf(sql, strlen(req) + 4096,
                 "INSERT INTO jobs(status, domain, request, created, finished, time_limit, memory_mb)"
                 " VALUES('solved', 'minigolf', '%s', %f, %f, 60, 256)",
                 req, svcNow(), svcNow());
        assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    }
    sqlite3_close(db);
    free(sql);
    free(req);
    tpService *old = open_store_spec(spec);
    old->def.keep_mb = 1; /* 3 x 300 KiB fit, the 4th (the oldest) goes */
    int n = 0;
    int64_t *ids = svcStore_Expired(old, svcNow(), &n);
    assert_int_equal(n, 1);
    assert_int_equal(ids[0], 1);
    free(ids);
    svcJob *got = svcStore_Get(old, 2, false); /* no request_shown stored: made from its request */
    assert_non_null(got);
    assert_string_equal(svcJobShownRequest(got), "{\"set\":{\"a\":{\"bytes\":307184}}}");
    assert_int_equal(got->retry_of, 0); /* version 4's column, NULL in older rows */
    assert_null(got->interim);          /* version 5's */
    svcJobFree(got);
    got = svcStore_GetRun(old, 2);
    assert_non_null(got);
    got->retry_of = 2; /* version 4 stores the link of a retry */
    assert_true(svcStore_Insert(old, got, NULL, NULL));
    int64_t retry = got->id;
    svcJobFree(got);
    got = svcStore_Get(old, retry, false);
    assert_non_null(got);
    assert_int_equal(got->retry_of, 2);
    svcJobFree(got);
    close_store(old);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 5);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* A drain's hand-back (svcStore_Handback): the running job queued again with its interim plan, its run's
 * progress cleared and no failure counted; on PostgreSQL the plan's file is in the store, so that another
 * node or front end serves it; a job that is not running is refused, unchanged; the job's end drops it. */
static void handback_keeps_interim(void **state)
{
    tpService *svc = *state;
    int64_t id = insert(svc, "minigolf", NULL, NULL, NULL);
    svcJob *job = take(svc, id);
    job->iterations = 99;
    char dir[4096], path[4200];
    svcJobPath(svc, id, NULL, dir, sizeof dir);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/interim.1.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"status\": \"approximate\"}", f);
    fclose(f);
    const char interim[] = "{\"n\":1,\"iterations\":99}";
    assert_true(svcStore_Handback(svc, job, interim, "interim.1.json"));
    assert_false(svcStore_Handback(svc, job, "{\"n\":2}", "interim.1.json")); /* queued now: refused */
    svcJob *got = svcStore_Get(svc, id, false);
    assert_non_null(got);
    assert_int_equal(got->status, SVC_QUEUED);
    assert_non_null(got->interim);
    assert_string_equal(got->interim, interim);
    assert_int_equal(svcInterimNumber(got), 1);
    assert_int_equal(got->iterations, 0);
    assert_int_equal(got->failures, 0);
    assert_false(got->has_plan);
    svcJobFree(got);
    if (svc->cluster) { /* served from the store: a front end's cache made again */
        unlink(path);
        assert_true(svcCluster_FetchFile(svc, id, "interim.1.json"));
        size_t n = 0;
        char err[256];
        char *text = tpFile_Read(path, 1 << 20, &n, err, sizeof err);
        assert_non_null(text);
        assert_string_equal(text, "{\"status\": \"approximate\"}");
        free(text);
    }
    svcJobFree(job);
    job = take(svc, id); /* planned again: the record keeps it while it runs */
    assert_non_null(job->interim);
    assert_string_equal(job->interim, interim);
    free(job->interim); /* as the scheduler's end of a job (sched.c finish_job): a final job has none */
    job->interim = NULL;
    finish(svc, job, SVC_APPROXIMATE);
    svcJobFree(job);
    got = svcStore_Get(svc, id, false);
    assert_non_null(got);
    assert_null(got->interim); /* its end dropped it */
    svcJobFree(got);
    if (svc->cluster) {
        unlink(path);
        assert_false(svcCluster_FetchFile(svc, id, "interim.1.json"));
    }
}

/* A retry (POST /v1/jobs/{id}/retry) reads the job as stored to run it, the whole request and the
 * script, and inserts a copy that names the job it retries (retry_of). */
static void get_run_and_retry_of(void **state)
{
    tpService *svc = *state;
    svcJob *job = new_job("job.lua", "n", "[\"t\"]", "return 1 -- the script");
    free(job->request);
    job->request = big_request(200 << 10); /* longer than a shown request (its set strings over 1 KiB) */
    assert_true(svcStore_Insert(svc, job, NULL, NULL));
    int64_t id = job->id;
    char *request = strdup(job->request);
    svcJobFree(job);
    job = take(svc, id);
    finish(svc, job, SVC_FAILED);
    svcJobFree(job);
    svcJob *run = svcStore_GetRun(svc, id);
    assert_non_null(run);
    assert_string_equal(run->request, request);
    assert_non_null(run->script);
    assert_string_equal(run->script, "return 1 -- the script");
    assert_string_equal(run->name, "n");
    assert_int_equal(run->retry_of, 0);
    run->status = SVC_QUEUED; /* a fresh record, as svcApi_Retry makes it (svcValid_Job) */
    run->started = run->finished = 0;
    run->iterations = run->nodes = 0;
    run->solutions = 0;
    run->err_code[0] = '\0';
    run->retry_of = id;
    assert_true(svcStore_Insert(svc, run, NULL, NULL));
    int64_t copy = run->id;
    assert_true(copy > id);
    svcJobFree(run);
    svcJob *got = svcStore_Get(svc, copy, true);
    assert_non_null(got);
    assert_int_equal(got->retry_of, id);
    assert_int_equal(got->status, SVC_QUEUED);
    assert_string_equal(got->script, "return 1 -- the script");
    svcJobFree(got);
    assert_null(svcStore_GetRun(svc, 999999));
    free(request);
}

/* A job read back to run (a restart, a cluster's claim) has its run definition again: the stored
 * request's run fields and the stored limit (svcJob_ReadRun); a stored request that no longer reads
 * (a store's corruption) leaves run_read false, which start_job fails as "internal". */
static void run_def_read_back(void **state)
{
    tpService *svc = *state;
    svcJob *job = new_job("job.lua", NULL, NULL, NULL);
    free(job->request);
    job->request = strdup("{\"seed\":7,\"planner\":\"rrt\",\"max_iters\":500,\"set\":{\"x\":1}}");
    job->run.time_limit = 12.5;
    assert_true(svcStore_Insert(svc, job, NULL, NULL));
    int64_t id = job->id;
    svcJobFree(job);
    job = svc->cluster ? take(svc, id) : svcStore_GetRun(svc, id); /* as a node claims it, as a restart reads it */
    assert_non_null(job);
    assert_true(job->run_read);
    assert_int_equal(job->run.seed, 7);
    assert_int_equal(job->run.planner, TPLAN_PLANNER_RRT);
    assert_int_equal(job->run.max_iters, 500);
    assert_true(job->run.time_limit == 12.5);
    assert_int_equal(job->run.solutions, 0);     /* not in the request: the library's default */
    svcJob *shown = svcStore_Get(svc, id, true); /* the API's copy: the limit alone */
    assert_true(shown->run_read && shown->run.time_limit == 12.5 && shown->run.seed == -1);
    svcJobFree(shown);
    if (svc->cluster) {
        finish(svc, job, SVC_SOLVED);
    }
    svcJobFree(job);
    const char *bad[] = {"{\"seed\":-5}", "{\"planner\":\"dfs\"}", "[1]", "{\"seed\":"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        svcJob j = {.request = (char *)bad[i]};
        assert_false(svcJob_ReadRun(&j, 3));
        assert_false(j.run_read);
        assert_true(j.run.time_limit == 3);
    }
}

/* A job queued again after an infrastructure failure (sched.c queue_again): the running job's record
 * goes back to queued with its failures and the end of its backoff (a PostgreSQL node's lease dropped). */
static void queued_again_keeps_backoff(void **state)
{
    tpService *svc = *state;
    svcJob *job = new_job("minigolf", NULL, NULL, NULL);
    job->retries = 2;
    job->priority = -7;
    assert_true(svcStore_Insert(svc, job, NULL, NULL));
    int64_t id = job->id;
    svcJobFree(job);
    job = take(svc, id);
    assert_int_equal(job->retries, 2);
    assert_int_equal(job->priority, -7);
    job->status = SVC_QUEUED;
    job->started = 0;
    job->failures = 1;
    job->run_at = svcNow() + 3600;
    assert_true(svcStore_Update(svc, job));
    double run_at = job->run_at;
    svcJobFree(job);
    svcJob *got = svcStore_Get(svc, id, false);
    assert_non_null(got);
    assert_int_equal(got->status, SVC_QUEUED);
    assert_int_equal(got->failures, 1);
    assert_int_equal(got->retries, 2);
    assert_true(got->run_at == run_at);
    svcJobFree(got);
    if (svc->cluster) { /* not due: no node claims it */
        assert_null(svcCluster_Claim(svc, true, 1));
    }
}

/* PostgreSQL only: the lease makes a job's end exactly once. */
static void lease_exactly_once(void **state)
{
    tpService *svc = *state;
    if (!svc->cluster) {
        skip();
    }
    int64_t id = insert(svc, "minigolf", NULL, NULL, NULL);
    svcJob *job = take(svc, id);
    svcJob stale = *job; /* an older run of the same job: another attempt */
    stale.attempt = job->attempt - 1;
    stale.status = SVC_SOLVED;
    stale.finished = svcNow();                   /* its end, as finish_job writes it (svcValid_Job) */
    assert_false(svcStore_Update(svc, &stale));  /* refused: it does not hold the lease */
    assert_null(svcCluster_Claim(svc, true, 1)); /* nothing else queued: a claimed job is not claimed twice */
    finish(svc, job, SVC_SOLVED);
    assert_false(svcStore_Update(svc, job)); /* once final, no other write */
    svcJobFree(job);
    int total = -1, mine = -1;
    assert_true(svcCluster_CountQueued(svc, "127.0.0.1", &total, &mine));
    assert_true(total == 0 && mine == 0);
    /* a cancel of a queued job ends it at once */
    int64_t q = insert(svc, "minigolf", NULL, NULL, NULL);
    assert_true(svcCluster_RequestEnd(svc, q, 'c', "cancelled", "by the test"));
    svcJob *got = svcStore_Get(svc, q, false);
    assert_int_equal(got->status, SVC_CANCELLED);
    svcJobFree(got);
    assert_false(svcCluster_RequestEnd(svc, q, 'c', "cancelled", "again")); /* final: nothing to end */
}

static const char *status_of(tpService *svc, int64_t id)
{
    svcJob *job = svcStore_Get(svc, id, false);
    assert_non_null(job);
    const char *name = svcStatusName(job->status);
    svcJobFree(job);
    return name;
}

/* PostgreSQL only: a record this node holds but no longer runs (its final write failed while the
 * database was away) goes back to the queue at the next lease renewal, not renewed for ever; after
 * 5 runs without a result the job fails. */
static void orphan_requeued_then_failed(void **state)
{
    tpService *svc = *state;
    if (!svc->cluster) {
        skip();
    }
    svc->def.lease = 3; /* renewals every 1 s; a reclaim only once the 3 s lease expired */
    int64_t id = insert(svc, "minigolf", NULL, NULL, NULL);
    for (int run = 1; run <= 5; ++run) {
        svcJob *job = svcCluster_Claim(svc, true, 1); /* claimed, and then lost by this node's scheduler */
        assert_non_null(job);
        assert_int_equal(job->attempt, run);
        svcJobFree(job);
        double t0 = svcNow();
        while (strcmp(status_of(svc, id), "running") == 0) {
            assert_true(svcNow() - t0 < 2.5); /* by a renewal, within the lease: not by the reclaim */
            svcCluster_Tick(svc);
            usleep(20000); /* a poll interval: the loop ends on the renewal */
        }
        assert_string_equal(status_of(svc, id), run < 5 ? "queued" : "failed");
    }
    svcJob *job = svcStore_Get(svc, id, false);
    assert_string_equal(job->err_code, "internal");
    svcJobFree(job);
}

/* Claimers on their own connections (as nodes are) racing for the same queue. */
typedef struct Claimer {
    tpService *svc;
    int claimed;
} Claimer;

static void *claimer(void *arg)
{
    Claimer *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->svc->mu);
        svcJob *job = svcCluster_Claim(c->svc, true, 1);
        if (job) {
            job->status = SVC_SOLVED;
            job->finished = svcNow();
            svcCluster_Finish(c->svc, job);
            svcJobFree(job);
            c->claimed++;
        }
        pthread_mutex_unlock(&c->svc->mu);
        if (!job) {
            return NULL;
        }
    }
}

/* PostgreSQL only: 16 claimers, 800 jobs: each job claimed exactly once, none left (a claim whose
 * status is not rechecked on the locked row claims a job another claimer just took: pgbench found
 * thousands in 40,000). */
static void concurrent_claims_once(void **state)
{
    tpService *svc = *state;
    if (!svc->cluster) {
        skip();
    }
    enum { NJOBS = 800, NCLAIMERS = 16 };
    for (int i = 0; i < NJOBS; ++i) {
        insert(svc, "minigolf", NULL, NULL, NULL);
    }
    Claimer c[NCLAIMERS];
    pthread_t t[NCLAIMERS];
    for (int i = 0; i < NCLAIMERS; ++i) {
        c[i].svc = open_store();
        c[i].claimed = 0;
        assert_int_equal(pthread_create(&t[i], NULL, claimer, &c[i]), 0);
    }
    int total = 0;
    for (int i = 0; i < NCLAIMERS; ++i) {
        pthread_join(t[i], NULL);
        total += c[i].claimed;
        close_store(c[i].svc);
    }
    assert_int_equal(total, NJOBS);
    int64_t counts[SVC_NSTATUS];
    svcStore_Counts(svc, counts);
    assert_int_equal(counts[SVC_SOLVED], NJOBS);
    assert_int_equal(counts[SVC_QUEUED] + counts[SVC_RUNNING], 0);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/tplan-test-store-%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/jobs", g_dir);
    if (system(cmd) != 0) {
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(insert_get_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(list_filters, setup, teardown),
        cmocka_unit_test_setup_teardown(run_finish_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(retention_and_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(retention_by_record_size, setup, teardown),
        cmocka_unit_test_setup_teardown(retention_reads_no_request, setup, teardown),
        cmocka_unit_test_setup_teardown(upgrade_fills_record_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(get_run_and_retry_of, setup, teardown),
        cmocka_unit_test_setup_teardown(run_def_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(handback_keeps_interim, setup, teardown),
        cmocka_unit_test_setup_teardown(queued_again_keeps_backoff, setup, teardown),
        cmocka_unit_test_setup_teardown(lease_exactly_once, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_claims_once, setup, teardown),
        cmocka_unit_test_setup_teardown(orphan_requeued_then_failed, setup, teardown),
    };
    const char *pg = getenv("TPLAN_TEST_STORE");
    int failed = 0;
    if (pg && pg[0]) {
        g_spec = pg;
        failed = cmocka_run_group_tests_name("store (postgresql)", tests, NULL, NULL);
    } else {
        snprintf(g_sqlite, sizeof g_sqlite, "sqlite:%s/tplan.db", g_dir);
        g_spec = g_sqlite;
        failed = cmocka_run_group_tests_name("store (sqlite)", tests, NULL, NULL);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0) {
        return 1;
    }
    return failed;
}
