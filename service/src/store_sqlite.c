/* tplan service: the embedded job store (the default), one SQLite database in WAL mode
 * (DATA/tplan.db, or the file of --store sqlite:PATH). Callers hold svc->mu: the connection is used
 * by one thread at a time. The operations are those of svcStoreOps (store.h). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service_internal.h"
#include "store.h"

/* 2: name, tags, bytes; 3: record_bytes and the jobs_meta index; 4: retry_of, priority, run_at, retries, failures;
   5: interim (a drain's hand-back keeps the job's best plan) */
#define SVC_SCHEMA_VERSION 5

static const char *const schema =
    "CREATE TABLE IF NOT EXISTS jobs("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " status TEXT NOT NULL,"
    " domain TEXT NOT NULL,"
    " request TEXT NOT NULL," /* JSON of the accepted request, script replaced by script_bytes */
    " script BLOB,"           /* the submitted Lua text */
    " idem_key TEXT UNIQUE,"  /* Idempotency-Key header */
    " idem_hash TEXT,"        /* hash of the body that key was first used with */
    " created REAL NOT NULL, started REAL, finished REAL,"
    " iterations INTEGER NOT NULL DEFAULT 0, nodes INTEGER NOT NULL DEFAULT 0,"
    " solutions INTEGER NOT NULL DEFAULT 0, best_quality REAL, elapsed REAL NOT NULL DEFAULT 0,"
    " summary TEXT, error_code TEXT, error_message TEXT,"
    " has_plan INTEGER NOT NULL DEFAULT 0, has_tree INTEGER NOT NULL DEFAULT 0,"
    " time_limit REAL NOT NULL, memory_mb INTEGER NOT NULL,"
    " name TEXT, tags TEXT,"                    /* the client's name of the job; JSON array of its tags */
    " bytes INTEGER NOT NULL DEFAULT 0,"        /* size of the job's files once it finished */
    " record_bytes INTEGER NOT NULL DEFAULT 0," /* bytes of its request, script and summary */
    " request_shown TEXT," /* the request as job objects show it (a few KB at most; NULL: made from request) */
    " retry_of INTEGER,"   /* the job this one runs again (POST /v1/jobs/{id}/retry); NULL = none */
    " priority INTEGER NOT NULL DEFAULT 0," /* the request's "priority": higher is taken first */
    " run_at REAL NOT NULL DEFAULT 0,"      /* unix s before which it is not started; 0 = at once */
    " retries INTEGER NOT NULL DEFAULT 0,"  /* the request's "retries" (after a worker crash) */
    " failures INTEGER NOT NULL DEFAULT 0," /* infrastructure failures so far, each queued again */
    " interim TEXT);" /* JSON of the interim plan a drain's hand-back kept (svcJob.interim); NULL = none */
    "CREATE INDEX IF NOT EXISTS jobs_by_status ON jobs(status, id);";

/* What the periodic passes (retention) and the list read, in one covering index: they never touch
 * the table's rows, whose request text (up to 4 MiB) SQLite would walk through page by page to reach
 * the columns stored after it. Created after the migrations (an older table gains record_bytes there). */
static const char *const meta_index =
    "CREATE INDEX IF NOT EXISTS jobs_meta ON jobs(id, status, created, finished, record_bytes, bytes, domain, name,"
    " tags)";

static void db_error(tpService *svc, const char *what)
{
    svcLog(svc, "store: %s: %s", what, sqlite3_errmsg(svc->db));
    ++svc->store_errors;
    int code = sqlite3_errcode(svc->db) & 0xff;
    if (!svc->store_failed && (code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_READONLY ||
                               code == SQLITE_CORRUPT || code == SQLITE_NOTADB || code == SQLITE_CANTOPEN)) {
        /* what the store says and what the scheduler holds now differ: take no more jobs, and say so */
        svc->store_failed = true;
        svcLog(svc, "store: it cannot be written: no new jobs are taken and /v1/health answers 503 "
                    "store_failed until the server is restarted");
    }
}

/* Refuses a database that is someone else's (tables of its own and no tplan version: it was
 * adopted, tables and all) or damaged (PRAGMA quick_check: a corrupted store used to start "ok"
 * and answer 500 later). quick_check reads the whole file once, at start. */
static bool store_is_ours(tpService *svc, int version, const char *path, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (version == 0) {
        int tables = -1;
        if (sqlite3_prepare_v2(svc->db, "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'", -1, &st,
                               NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW) {
            tables = sqlite3_column_int(st, 0);
        }
        sqlite3_finalize(st);
        if (tables != 0) {
            snprintf(err, errlen,
                     "%s: not a tplan store: an SQLite database with %d tables or indexes of its own (give --data "
                     "a folder of its own)",
                     path, tables);
            return false;
        }
        return true;
    }
    char result[256] = "";
    if (sqlite3_prepare_v2(svc->db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *r = sqlite3_column_text(st, 0);
        snprintf(result, sizeof result, "%s", r ? (const char *)r : "");
    } else {
        snprintf(result, sizeof result, "%s", sqlite3_errmsg(svc->db));
    }
    sqlite3_finalize(st);
    if (strcmp(result, "ok") != 0) {
        snprintf(err, errlen, "%s: the store is damaged (%s); restore it from a backup or move it away", path, result);
        return false;
    }
    return true;
}

/* ---- maintenance: the store's slow chores, on a connection of their own, off svc->mu ---- */

/* Giving freed pages back (PRAGMA incremental_vacuum moves pages from the file's end into the free
 * ones: ~50 us a page on a loaded 2-core machine, 400,000 pages after 400 deleted 4 MiB jobs) and
 * checkpoints (copying the WAL into the database, then fsync: 100 ms and more) used to run on the
 * server's connection under svc->mu: every request waited for them (health p50 128 ms
 * while the pages of 400 deleted jobs went back). This thread does both on its own connection; the
 * server's connection never checkpoints (wal_autocheckpoint 0), and its writes wait at most for one
 * vacuum step (SQLite's write lock). */
#define SQ_VACUUM_PAGES 64    /* pages per step */
#define SQ_VACUUM_PAUSE 0.005 /* s between two steps: the server's writes take the write lock meanwhile */
#define SQ_MAINT_EVERY 1.0    /* s between two rounds (a checkpoint; a vacuum if there are free pages) */

typedef struct svcSqMaint {
    sqlite3 *db; /* its own connection, used by the thread alone */
    pthread_t thread;
    pthread_mutex_t mu; /* guards stop and poked */
    pthread_cond_t cv;
    bool stop, poked;
} svcSqMaint;

static int free_pages(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int n = 0;
    if (sqlite3_prepare_v2(db, "PRAGMA freelist_count", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        n = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

static void maint_wait(svcSqMaint *m, double seconds) /* m->mu held */
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double t = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + seconds;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    pthread_cond_timedwait(&m->cv, &m->mu, &ts);
}

static void *maint_main(void *arg)
{
    svcSqMaint *m = arg;
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA incremental_vacuum(%d)", SQ_VACUUM_PAGES);
    pthread_mutex_lock(&m->mu);
    while (!m->stop) {
        m->poked = false;
        pthread_mutex_unlock(&m->mu);
        bool more = free_pages(m->db) > 0;
        while (more) {
            more = sqlite3_exec(m->db, sql, NULL, NULL, NULL) == SQLITE_OK && free_pages(m->db) > 0;
            pthread_mutex_lock(&m->mu);
            if (more && !m->stop) {
                maint_wait(m, SQ_VACUUM_PAUSE); /* a stop ends the pause */
            }
            more = more && !m->stop;
            pthread_mutex_unlock(&m->mu);
        }
        sqlite3_wal_checkpoint_v2(m->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&m->mu);
        if (!m->stop && !m->poked) {
            maint_wait(m, SQ_MAINT_EVERY);
        }
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

/* Starts the maintenance thread; without it (no connection, no thread) the server's connection
 * keeps SQLite's own checkpoints and nothing is given back until a restart. */
static void maint_start(tpService *svc, const char *path)
{
    svcSqMaint *m = calloc(1, sizeof *m);
    if (!m) {
        return;
    }
    if (sqlite3_open_v2(path, &m->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        sqlite3_close(m->db);
        free(m);
        return;
    }
    sqlite3_busy_timeout(m->db, 5000);
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    if (pthread_create(&m->thread, NULL, maint_main, m) != 0) {
        pthread_mutex_destroy(&m->mu);
        pthread_cond_destroy(&m->cv);
        sqlite3_close(m->db);
        free(m);
        return;
    }
    sqlite3_exec(svc->db, "PRAGMA wal_autocheckpoint=0", NULL, NULL, NULL);
    svc->sq_maint = m;
}

static void maint_stop(tpService *svc)
{
    svcSqMaint *m = svc->sq_maint;
    if (!m) {
        return;
    }
    pthread_mutex_lock(&m->mu);
    m->stop = true;
    pthread_cond_signal(&m->cv);
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->thread, NULL);
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->cv);
    sqlite3_close(m->db);
    free(m);
    svc->sq_maint = NULL;
}

static bool sq_open(tpService *svc, char *err, size_t errlen)
{
    char path[4096];
    if (svc->def.store && strncmp(svc->def.store, "sqlite:", 7) == 0) { /* --store sqlite:PATH */
        snprintf(path, sizeof path, "%s", svc->def.store + 7);
    } else {
        snprintf(path, sizeof path, "%s/tplan.db", svc->data_dir);
    }
    int rc = sqlite3_open_v2(path, &svc->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open the store: %s", path,
                 svc->db ? sqlite3_errmsg(svc->db) : "out of memory");
        sqlite3_close(svc->db);
        svc->db = NULL;
        return false;
    }
    sqlite3_busy_timeout(svc->db, 5000);
    /* a file that is not an SQLite database fails here, with SQLite's reason */
    char *msg = NULL;
    int version = -1;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(svc->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        version = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    if (version < 0) {
        snprintf(err, errlen, "%s: not a tplan store: %s", path, sqlite3_errmsg(svc->db));
        goto fail;
    }
    if (version > SVC_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s: store version %d is newer than this tplan's (%d)", path, version,
                 SVC_SCHEMA_VERSION);
        goto fail;
    }
    if (!store_is_ours(svc, version, path, err, errlen)) {
        goto fail;
    }
    /* a new store gives the pages of deleted jobs back to the file system (retention, DELETE); it
     * must be set before the first table exists, and is a no-op on an older store (whose free pages
     * are reused by new jobs). secure_delete FAST: Debian's SQLite zeroes every freed page by
     * default, which made deleting a 4 MiB record write 4 MiB (60 ms under svc->mu); freed pages go
     * back to the file system (maint_main) or to the next records anyway */
    if (sqlite3_exec(svc->db,
                     "PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                     " PRAGMA foreign_keys=ON; PRAGMA secure_delete=FAST;",
                     NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(svc->db, schema, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot set up the store: %s", path, msg ? msg : sqlite3_errmsg(svc->db));
        sqlite3_free(msg);
        goto fail;
    }
    /* version 1 stores had no name and tags; versions 1 and 2 no record_bytes, filled here once (the
     * only time the stored requests are read whole) */
    if ((version == 1 && sqlite3_exec(svc->db,
                                      "ALTER TABLE jobs ADD COLUMN name TEXT; ALTER TABLE jobs ADD COLUMN tags TEXT;"
                                      " ALTER TABLE jobs ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;",
                                      NULL, NULL, &msg) != SQLITE_OK) ||
        ((version == 1 || version == 2) &&
         sqlite3_exec(
             svc->db,
             "BEGIN; ALTER TABLE jobs ADD COLUMN record_bytes INTEGER NOT NULL DEFAULT 0;"
             " ALTER TABLE jobs ADD COLUMN request_shown TEXT;"
             " UPDATE jobs SET record_bytes = length(CAST(request AS BLOB)) + COALESCE(length(script), 0) +"
             " COALESCE(length(CAST(summary AS BLOB)), 0) + COALESCE(length(CAST(error_message AS BLOB)), 0); COMMIT;",
             NULL, NULL, &msg) != SQLITE_OK) ||
        (version >= 1 && version <= 3 &&
         sqlite3_exec(svc->db,
                      "ALTER TABLE jobs ADD COLUMN retry_of INTEGER;"
                      " ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;"
                      " ALTER TABLE jobs ADD COLUMN run_at REAL NOT NULL DEFAULT 0;"
                      " ALTER TABLE jobs ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;"
                      " ALTER TABLE jobs ADD COLUMN failures INTEGER NOT NULL DEFAULT 0",
                      NULL, NULL, &msg) != SQLITE_OK) ||
        (version >= 1 && version <= 4 &&
         sqlite3_exec(svc->db, "ALTER TABLE jobs ADD COLUMN interim TEXT", NULL, NULL, &msg) != SQLITE_OK) ||
        sqlite3_exec(svc->db, meta_index, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot upgrade the store: %s", path, msg ? msg : sqlite3_errmsg(svc->db));
        sqlite3_free(msg);
        sqlite3_exec(svc->db, "ROLLBACK", NULL, NULL, NULL);
        goto fail;
    }
    if (version >= 1 && version <= 4) {
        svcLog(svc, "store: upgraded from version %d to %d", version, SVC_SCHEMA_VERSION);
    }
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version=%d", SVC_SCHEMA_VERSION);
    sqlite3_exec(svc->db, sql, NULL, NULL, NULL);
    /* the jobs table must have the columns this version reads */
    if (sqlite3_prepare_v2(svc->db,
                           "SELECT id, status, domain, request, script, idem_key, idem_hash, created, started,"
                           " finished, iterations, nodes, solutions, best_quality, elapsed, summary, error_code,"
                           " error_message, has_plan, has_tree, time_limit, memory_mb, name, tags, bytes, record_bytes,"
                           " request_shown, retry_of, priority, run_at, retries, failures, interim FROM jobs"
                           " LIMIT 0",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: not a tplan store (%s)", path, sqlite3_errmsg(svc->db));
        goto fail;
    }
    sqlite3_finalize(st);
    maint_start(svc, path);
    return true;
fail:
    sqlite3_close(svc->db);
    svc->db = NULL;
    return false;
}

static void sq_close(tpService *svc)
{
    maint_stop(svc);
    if (svc->db) {
        sqlite3_close(svc->db);
        svc->db = NULL;
    }
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s) {
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_null(st, i);
    }
}

static void bind_time(sqlite3_stmt *st, int i, double t)
{
    if (t > 0) {
        sqlite3_bind_double(st, i, t);
    } else {
        sqlite3_bind_null(st, i);
    }
}

static bool sq_insert(tpService *svc, svcJob *job, const char *idem_key, const char *idem_hash)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(svc->db,
                           "INSERT INTO jobs(status, domain, request, script, idem_key, idem_hash, created,"
                           " time_limit, memory_mb, name, tags, record_bytes, request_shown, retry_of, priority,"
                           " run_at, retries) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK) {
        db_error(svc, "insert");
        return false;
    }
    sqlite3_bind_text(st, 1, svcStatusName(job->status), -1, SQLITE_STATIC);
    bind_text(st, 2, job->domain);
    bind_text(st, 3, job->request);
    if (job->script) {
        sqlite3_bind_blob(st, 4, job->script, (int)job->script_len, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_null(st, 4);
    }
    bind_text(st, 5, idem_key);
    bind_text(st, 6, idem_hash);
    sqlite3_bind_double(st, 7, job->created);
    sqlite3_bind_double(st, 8, job->run.time_limit);
    sqlite3_bind_int(st, 9, job->memory_mb);
    bind_text(st, 10, job->name);
    bind_text(st, 11, job->tags);
    sqlite3_bind_int64(st, 12, svcJobRecordBytes(job, true));
    bind_text(st, 13, svcJobShownRequest(job));
    if (job->retry_of > 0) {
        sqlite3_bind_int64(st, 14, job->retry_of);
    } else {
        sqlite3_bind_null(st, 14);
    }
    sqlite3_bind_int(st, 15, job->priority);
    sqlite3_bind_double(st, 16, job->run_at);
    sqlite3_bind_int(st, 17, job->retries);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        db_error(svc, "insert");
        return false;
    }
    job->id = (int64_t)sqlite3_last_insert_rowid(svc->db);
    return true;
}

static bool sq_update(tpService *svc, const svcJob *job)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(svc->db,
                           "UPDATE jobs SET status=?, started=?, finished=?, iterations=?, nodes=?, solutions=?,"
                           " best_quality=?, elapsed=?, summary=?, error_code=?, error_message=?, has_plan=?,"
                           " has_tree=?, bytes=?, record_bytes=?16 + length(CAST(request AS BLOB)) +"
                           " COALESCE(length(script), 0), run_at=?17, failures=?18,"
                           " interim=CASE WHEN ?1 IN ('queued', 'running') THEN interim END WHERE id=?15",
                           -1, &st, NULL) != SQLITE_OK) {
        db_error(svc, "update");
        return false;
    }
    sqlite3_bind_text(st, 1, svcStatusName(job->status), -1, SQLITE_STATIC);
    bind_time(st, 2, job->started);
    bind_time(st, 3, job->finished);
    sqlite3_bind_int64(st, 4, job->iterations);
    sqlite3_bind_int64(st, 5, job->nodes);
    sqlite3_bind_int(st, 6, job->solutions);
    if (isfinite(job->best_quality)) {
        sqlite3_bind_double(st, 7, job->best_quality);
    } else {
        sqlite3_bind_null(st, 7);
    }
    sqlite3_bind_double(st, 8, job->elapsed);
    bind_text(st, 9, job->summary);
    bind_text(st, 10, job->err_code[0] ? job->err_code : NULL);
    bind_text(st, 11, job->err_message);
    sqlite3_bind_int(st, 12, job->has_plan);
    sqlite3_bind_int(st, 13, job->has_tree);
    sqlite3_bind_int64(st, 14, job->files_bytes);
    sqlite3_bind_int64(st, 15, job->id);
    /* the summary's and message's bytes; the request's and script's from the row, which an UPDATE reads
       and writes whole anyway (the job object in hand may hold only the shown request) */
    sqlite3_bind_int64(
        st, 16,
        (int64_t)((job->summary ? strlen(job->summary) : 0) + (job->err_message ? strlen(job->err_message) : 0)));
    sqlite3_bind_double(st, 17, job->run_at);
    sqlite3_bind_int(st, 18, job->failures);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        db_error(svc, "update");
        return false;
    }
    return true;
}

/* A drain's hand-back (svcStore_Handback): the running job queued again, its run's progress, summary
 * and files cleared, with its interim plan, whose file stays in the job's folder. */
static bool sq_handback(tpService *svc, const svcJob *job, const char *interim, const char *file)
{
    (void)file;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(svc->db,
                           "UPDATE jobs SET status='queued', started=NULL, finished=NULL, iterations=0, nodes=0,"
                           " solutions=0, best_quality=NULL, elapsed=0, summary=NULL, error_code=NULL,"
                           " error_message=NULL, has_plan=0, has_tree=0, bytes=0, record_bytes=length(CAST(request"
                           " AS BLOB)) + COALESCE(length(script), 0), interim=?2 WHERE id=?1 AND status='running'",
                           -1, &st, NULL) != SQLITE_OK) {
        db_error(svc, "hand back");
        return false;
    }
    sqlite3_bind_int64(st, 1, job->id);
    sqlite3_bind_text(st, 2, interim, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        db_error(svc, "hand back");
        return false;
    }
    if (sqlite3_changes(svc->db) != 1) {
        svcLog(svc, "store: hand back: job %lld is not running in the store", (long long)job->id);
        return false;
    }
    return true;
}

static char *column_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdup((const char *)t) : NULL;
}

#define JOB_COLUMNS_AFTER_REQUEST                                                                                      \
    " created, started, finished, iterations, nodes, solutions, best_quality,"                                         \
    " elapsed, summary, error_code, error_message, has_plan, has_tree, time_limit, memory_mb, name, tags, retry_of, "  \
    "priority, run_at, retries, failures, interim"
#define JOB_COLUMNS "id, status, domain, request," JOB_COLUMNS_AFTER_REQUEST /* to run it */
/* for the API: the shown request (SQLite reaches it past the request's pages through the pointer
   map of an auto_vacuum store, without reading them) */
#define JOB_COLUMNS_SHOWN                                                                                              \
    "id, status, domain, COALESCE(request_shown, request)," JOB_COLUMNS_AFTER_REQUEST ", request_shown IS NOT NULL"

/* shown: column 3 is the shown request (JOB_COLUMNS_SHOWN), else the request (JOB_COLUMNS). */
static svcJob *job_from_row(sqlite3_stmt *st, bool shown)
{
    svcJob *job = calloc(1, sizeof *job);
    if (!job) {
        return NULL;
    }
    job->id = sqlite3_column_int64(st, 0);
    int s = svcStatusFromName((const char *)sqlite3_column_text(st, 1));
    job->status = s < 0 ? SVC_FAILED : (svcStatus)s;
    job->domain = column_dup(st, 2);
    /* a row older than request_shown: its request, from which the shown one is made */
    *(shown && sqlite3_column_int(st, 27) ? &job->request_shown : &job->request) = column_dup(st, 3);
    job->created = sqlite3_column_double(st, 4);
    job->started = sqlite3_column_double(st, 5);
    job->finished = sqlite3_column_double(st, 6);
    job->iterations = sqlite3_column_int64(st, 7);
    job->nodes = sqlite3_column_int64(st, 8);
    job->solutions = sqlite3_column_int(st, 9);
    job->best_quality = sqlite3_column_type(st, 10) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 10);
    job->elapsed = sqlite3_column_double(st, 11);
    job->summary = column_dup(st, 12);
    const unsigned char *code = sqlite3_column_text(st, 13);
    snprintf(job->err_code, sizeof job->err_code, "%s", code ? (const char *)code : "");
    job->err_message = column_dup(st, 14);
    job->has_plan = sqlite3_column_int(st, 15) != 0;
    job->has_tree = sqlite3_column_int(st, 16) != 0;
    svcJob_ReadRun(job, sqlite3_column_double(st, 17)); /* start_job fails a job whose request does not read */
    job->memory_mb = sqlite3_column_int(st, 18);
    job->name = column_dup(st, 19);
    job->tags = column_dup(st, 20);
    job->retry_of = sqlite3_column_int64(st, 21); /* NULL reads 0 */
    job->priority = sqlite3_column_int(st, 22);
    job->run_at = sqlite3_column_double(st, 23);
    job->retries = sqlite3_column_int(st, 24);
    job->failures = sqlite3_column_int(st, 25);
    job->interim = column_dup(st, 26);
    job->worker = -1;
    return job;
}

/* False if the job has no row (deleted), or the read failed: then svc->store_errors moved (the
 * store's failure, not the job's: start_job tries it again later). */
static bool sq_load_script(tpService *svc, svcJob *job)
{
    sqlite3_stmt *st = NULL;
    bool ok = false;
    if (sqlite3_prepare_v2(svc->db, "SELECT script FROM jobs WHERE id=?", -1, &st, NULL) != SQLITE_OK) {
        db_error(svc, "read a job's script");
        sqlite3_finalize(st);
        return false;
    }
    sqlite3_bind_int64(st, 1, job->id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        ok = true;
        if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
            int n = sqlite3_column_bytes(st, 0);
            job->script = malloc((size_t)n + 1);
            if (job->script) {
                if (n > 0) {
                    memcpy(job->script, sqlite3_column_blob(st, 0), (size_t)n);
                }
                job->script[n] = '\0';
                job->script_len = (size_t)n;
            } else {
                svcLog(svc, "store: read a job's script: out of memory");
                ++svc->store_errors;
                ok = false;
            }
        }
    } else if (rc != SQLITE_DONE) {
        db_error(svc, "read a job's script");
    }
    sqlite3_finalize(st);
    return ok;
}

/* Job id's row: for the API (shown: the shown request) or to run it (the whole request). */
static svcJob *get_row(tpService *svc, int64_t id, bool shown)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(svc->db,
                           shown ? "SELECT " JOB_COLUMNS_SHOWN " FROM jobs WHERE id=?"
                                 : "SELECT " JOB_COLUMNS " FROM jobs WHERE id=?",
                           -1, &st, NULL) != SQLITE_OK) {
        db_error(svc, "get");
        return NULL;
    }
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    svcJob *job = rc == SQLITE_ROW ? job_from_row(st, shown) : NULL;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) { /* a failed read, not a job that does not exist */
        db_error(svc, "get");
    } else if (rc == SQLITE_ROW && !job) { /* the row is there: out of memory, not "no job" */
        svcLog(svc, "store: get: out of memory");
        ++svc->store_errors;
    }
    sqlite3_finalize(st);
    return job;
}

static svcJob *sq_get(tpService *svc, int64_t id, bool with_script)
{
    svcJob *job = get_row(svc, id, true);
    if (job && with_script && !sq_load_script(svc, job)) {
        svcJobFree(job);
        return NULL;
    }
    return job;
}

static svcJob *sq_get_run(tpService *svc, int64_t id)
{
    svcJob *job = get_row(svc, id, false);
    if (job && (!job->request || !sq_load_script(svc, job))) {
        svcJobFree(job);
        return NULL;
    }
    return job;
}

static int64_t sq_find_idem(tpService *svc, const char *key, char *hash, size_t hashcap)
{
    sqlite3_stmt *st = NULL;
    int64_t id = 0;
    if (sqlite3_prepare_v2(svc->db, "SELECT id, idem_hash FROM jobs WHERE idem_key=?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) == SQLITE_ROW) {
            id = sqlite3_column_int64(st, 0);
            const unsigned char *h = sqlite3_column_text(st, 1);
            snprintf(hash, hashcap, "%s", h ? (const char *)h : "");
        }
    }
    sqlite3_finalize(st);
    return id;
}

static int64_t *sq_list(tpService *svc, const svcListFilter *f, int *n)
{
    *n = 0;
    int64_t *ids = malloc((size_t)(f->limit > 0 ? f->limit : 1) * sizeof *ids);
    sqlite3_stmt *st = NULL;
    if (!ids || sqlite3_prepare_v2(svc->db,
                                   "SELECT id FROM jobs WHERE (?1 IS NULL OR status=?1) AND (?2 = 0 OR id < ?2)"
                                   " AND (?4 IS NULL OR domain=?4) AND (?5 IS NULL OR name=?5)"
                                   " AND (?6 IS NULL OR EXISTS (SELECT 1 FROM json_each(jobs.tags) WHERE value=?6))"
                                   " AND (?7 IS NULL OR created > ?7) AND (?8 IS NULL OR created < ?8)"
                                   " ORDER BY id DESC LIMIT ?3",
                                   -1, &st, NULL) != SQLITE_OK) {
        db_error(svc, "list");
        free(ids);
        return NULL;
    }
    if (f->status >= 0) {
        sqlite3_bind_text(st, 1, svcStatusName((svcStatus)f->status), -1, SQLITE_STATIC);
    }
    sqlite3_bind_int64(st, 2, f->before);
    sqlite3_bind_int(st, 3, f->limit);
    bind_text(st, 4, f->domain);
    bind_text(st, 5, f->name);
    bind_text(st, 6, f->tag);
    if (f->created_after > 0) {
        sqlite3_bind_double(st, 7, f->created_after);
    }
    if (f->created_before > 0) {
        sqlite3_bind_double(st, 8, f->created_before);
    }
    while (sqlite3_step(st) == SQLITE_ROW && *n < f->limit) {
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return ids;
}

static bool sq_delete(tpService *svc, int64_t id)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(svc->db, "DELETE FROM jobs WHERE id=?", -1, &st, NULL) != SQLITE_OK) {
        db_error(svc, "delete");
        return false;
    }
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        db_error(svc, "delete");
        return false;
    }
    return true;
}

static bool sq_delete_many(tpService *svc, const int64_t *ids, int n)
{
    bool ok = sqlite3_exec(svc->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    for (int i = 0; ok && i < n; ++i) {
        ok = sq_delete(svc, ids[i]);
    }
    if (!ok || sqlite3_exec(svc->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        db_error(svc, "retention");
        sqlite3_exec(svc->db, "ROLLBACK", NULL, NULL, NULL);
        return false;
    }
    return true;
}

static void sq_compact(tpService *svc)
{
    svcSqMaint *m = svc->sq_maint;
    if (m) {
        pthread_mutex_lock(&m->mu);
        m->poked = true;
        pthread_cond_signal(&m->cv);
        pthread_mutex_unlock(&m->mu);
    }
}

/* ids of a SELECT of one integer column, *n of them (malloc'd). */
static int64_t *select_ids(tpService *svc, sqlite3_stmt *st, int *n)
{
    int64_t *ids = NULL;
    size_t cap = 0;
    *n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t *grown = tpArray_Grow(ids, &cap, (size_t)*n + 1, sizeof *ids);
        if (!grown) {
            db_error(svc, "out of memory");
            break;
        }
        ids = grown;
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return ids;
}

static int64_t *sq_all_ids(tpService *svc, int *n)
{
    sqlite3_stmt *st = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(svc->db, "SELECT id FROM jobs ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
        db_error(svc, "ids");
        return NULL;
    }
    return select_ids(svc, st, n);
}

static int64_t *sq_expired(tpService *svc, double now, int *n)
{
    *n = 0;
    const tpServiceDef *d = &svc->def;
    /* finished jobs newest first with their sizes: the newest keep_jobs (within keep_days and keep_mb)
     * stay, every older one goes. From the jobs_meta index alone (INDEXED BY: an error rather than a
     * scan of the rows if it were missing): this runs every 10 s under svc->mu, and reading the rows
     * read every stored request whole (400 requests of 4 MiB stalled every request 1.5 s). */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(svc->db,
                           "SELECT id, COALESCE(finished, created), record_bytes + bytes FROM jobs INDEXED BY jobs_meta"
                           " WHERE status NOT IN ('queued', 'running') ORDER BY id DESC",
                           -1, &st, NULL) != SQLITE_OK) {
        db_error(svc, "retention");
        return NULL;
    }
    int64_t *ids = NULL;
    size_t cap = 0;
    int64_t kept = 0, bytes = 0, max_bytes = d->keep_mb > 0 ? (int64_t)d->keep_mb << 20 : INT64_MAX;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        double when = sqlite3_column_double(st, 1);
        bool drop =
            (d->keep_jobs > 0 && kept >= d->keep_jobs) || (d->keep_days > 0 && now - when > d->keep_days * 86400.0);
        bytes += sqlite3_column_int64(st, 2);           /* once over keep_mb, every older job goes too */
        drop = drop || (bytes > max_bytes && kept > 0); /* the newest finished job stays, however large */
        if (!drop) {
            ++kept;
            continue;
        }
        int64_t *grown = tpArray_Grow(ids, &cap, (size_t)*n + 1, sizeof *ids);
        if (!grown) {
            break;
        }
        ids = grown;
        ids[(*n)++] = id;
    }
    sqlite3_finalize(st);
    return ids;
}

static void sq_counts(tpService *svc, int64_t counts[SVC_NSTATUS])
{
    memset(counts, 0, sizeof(int64_t) * SVC_NSTATUS);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(svc->db, "SELECT status, count(*) FROM jobs GROUP BY status", -1, &st, NULL) != SQLITE_OK) {
        return;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        int s = svcStatusFromName((const char *)sqlite3_column_text(st, 0));
        if (s >= 0) {
            counts[s] = sqlite3_column_int64(st, 1);
        }
    }
    sqlite3_finalize(st);
}

static svcJob **sq_recover(tpService *svc, int *n)
{
    *n = 0;
    int changed = 0;
    if (sqlite3_exec(svc->db,
                     "UPDATE jobs SET status='queued', started=NULL, iterations=0, nodes=0, solutions=0,"
                     " best_quality=NULL, elapsed=0 WHERE status='running'",
                     NULL, NULL, NULL) == SQLITE_OK) {
        changed = sqlite3_changes(svc->db);
    } else {
        db_error(svc, "recover");
    }
    if (changed > 0) {
        svcLog(svc, "store: %d interrupted job%s back in the queue", changed, changed == 1 ? "" : "s");
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(svc->db, "SELECT " JOB_COLUMNS " FROM jobs WHERE status='queued' ORDER BY id", -1, &st,
                           NULL) != SQLITE_OK) {
        db_error(svc, "recover");
        return NULL;
    }
    svcJob **jobs = NULL;
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        svcJob **grown = tpArray_Grow(jobs, &cap, (size_t)*n + 1, sizeof *jobs);
        if (!grown) {
            break;
        }
        jobs = grown;
        svcJob *job = job_from_row(st, false); /* its script stays in the store until a worker takes it */
        if (job) {
            jobs[(*n)++] = job;
        }
    }
    sqlite3_finalize(st);
    return jobs;
}

const svcStoreOps svcStoreSqlite = {
    .name = "sqlite",
    .open = sq_open,
    .close = sq_close,
    .insert = sq_insert,
    .update = sq_update,
    .handback = sq_handback,
    .get = sq_get,
    .get_run = sq_get_run,
    .find_idem = sq_find_idem,
    .list = sq_list,
    .load_script = sq_load_script,
    .del = sq_delete,
    .delete_many = sq_delete_many,
    .compact = sq_compact,
    .expired = sq_expired,
    .all_ids = sq_all_ids,
    .counts = sq_counts,
    .recover = sq_recover,
};
