#define _GNU_SOURCE /* gethostname */
/* tplan service: the job store of a cluster, one PostgreSQL database shared by every node
 * (docs/service.md#cluster). Front ends insert jobs and read them; worker nodes claim queued jobs
 * (SELECT ... FOR UPDATE SKIP LOCKED) under a lease they renew, and write progress and the final
 * record only while they hold it (node id + attempt number), so a job finishes exactly once even when
 * a node that was thought dead comes back. A job's plan, tree and log are stored compressed beside
 * its record (job_files: store_pg_files.c), so any front end can serve them. Changes are announced on the NOTIFY
 * channel "tplan": 'q' (the queue changed), 'c<id>' (a cancel or stop request), '<id>' (a job
 * changed); a listener thread per process wakes the waiters and the scheduler.
 *
 * One connection (svc->pg->conn) serves the process under svc->mu; the listener has its own. A
 * statement that fails because the connection dropped is retried once after a reconnection, which
 * never waits (svcPg_Reconnect: one attempt, then at most one every PG_RETRY_EVERY s); while the
 * database is away every operation fails at once (logged once): a front end answers 503
 * store_unavailable, a node keeps its jobs running, retries its leases and keeps the results it
 * could not store, and a job whose lease expired meanwhile is planned again elsewhere (same plan
 * bytes). */
#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store_pg_internal.h"
#include "tp/base.h"

#define PG_PROGRESS_EVERY 0.5 /* s between two progress writes of one job */
/* A claim takes, among this many of the oldest queued jobs (synchronous ones first), the job of the
 * client address with the fewest jobs running in the cluster: the one-machine queue's fairness, at
 * a cost that does not grow with the queue (measured: 1,700 claims/s with 40,000 jobs queued;
 * ordering all of them, 190/s; without the fairness, 2,900/s) */
#define PG_CLAIM_WINDOW "64"

/* The columns of a running job whose run ended without a stored result (its node died, was cut
 * off, or could not write it): queued again; cancelled if a cancel or stop was asked meanwhile;
 * failed after 5 runs, so that a job that kills its nodes, or whose end cannot be stored, is not
 * planned for ever. */
#define PG_REQUEUE_SET                                                                                                 \
    "status = CASE WHEN ctl IS NOT NULL THEN 'cancelled' WHEN attempt >= 5 THEN 'failed' ELSE 'queued' END,"           \
    " finished = CASE WHEN ctl IS NULL AND attempt < 5 THEN NULL ELSE extract(epoch FROM clock_timestamp()) END,"      \
    " error_code = CASE WHEN ctl IS NOT NULL THEN 'cancelled' WHEN attempt >= 5 THEN 'internal' END,"                  \
    " error_message = CASE WHEN ctl IS NOT NULL THEN 'cancelled while its run was interrupted'"                        \
    "  WHEN attempt >= 5 THEN 'planned 5 times without a stored result (its nodes died or could not store it:"         \
    " see their logs)' END,"                                                                                           \
    " node = NULL, lease_until = NULL, started = NULL, iterations = 0, nodes = 0, solutions = 0, best_quality = NULL," \
    " elapsed = 0, interim = CASE WHEN ctl IS NULL AND attempt < 5 THEN interim END" /* an end drops it */

/* The columns of a running job whose lease ran out (its node died, was cut off past its lease, or
 * lost the database for longer and stopped the run): queued again the first time, failed
 * `lease_lost` the second (a job that takes its nodes down, or a node that keeps losing the database,
 * is not planned for ever); cancelled if a cancel or stop was asked meanwhile. */
#define PG_LEASE_LOST_SET                                                                                              \
    "status = CASE WHEN ctl IS NOT NULL THEN 'cancelled' WHEN lease_losses >= 1 OR attempt >= 5 THEN 'failed'"         \
    " ELSE 'queued' END,"                                                                                              \
    " finished = CASE WHEN ctl IS NULL AND lease_losses < 1 AND attempt < 5 THEN NULL"                                 \
    "  ELSE extract(epoch FROM clock_timestamp()) END,"                                                                \
    " error_code = CASE WHEN ctl IS NOT NULL THEN 'cancelled' WHEN lease_losses >= 1 THEN 'lease_lost'"                \
    "  WHEN attempt >= 5 THEN 'internal' END,"                                                                         \
    " error_message = CASE WHEN ctl IS NOT NULL THEN 'cancelled while its run was interrupted'"                        \
    "  WHEN lease_losses >= 1 THEN 'its lease ran out a second time (attempt ' || attempt || '): the node planning it" \
    " died, was cut off or lost the job store; it is not planned a third time (POST /v1/jobs/{id}/retry runs it"       \
    " again)' WHEN attempt >= 5 THEN 'planned 5 times without a stored result (its nodes died or could not store it:"  \
    " see their logs)' END,"                                                                                           \
    " lease_losses = lease_losses + 1,"                                                                                \
    " node = NULL, lease_until = NULL, started = NULL, iterations = 0, nodes = 0, solutions = 0, best_quality = NULL," \
    " elapsed = 0, interim = CASE WHEN ctl IS NULL AND lease_losses < 1 AND attempt < 5 THEN interim END"

/* ---- schema (store_pg_schema.c) ------------------------------------------------------------------ */

static bool migrate(tpService *svc, char *err, size_t errlen)
{
    char m[768] = "";
    if (!svcPgSchema_Migrate(svc, svc->pg->conn, m, sizeof m)) {
        svcPg_StoreError(svc, err, errlen, "%s", m);
        return false;
    }
    return true;
}

static bool pg_open(tpService *svc, char *err, size_t errlen)
{
    /* credentials never on the command line (ps, shell history, logs): refuse a URI with one */
    char *perr = NULL;
    PQconninfoOption *opts = PQconninfoParse(svc->def.store, &perr);
    if (!opts) {
        char m[512];
        svcPg_FirstLine(perr ? perr : "out of memory", m, sizeof m);
        svcPg_StoreError(svc, err, errlen, "not a valid connection string: %s", m);
        PQfreemem(perr);
        return false;
    }
    bool has_password = false;
    for (PQconninfoOption *o = opts; o->keyword; ++o) {
        has_password = has_password || (strcmp(o->keyword, "password") == 0 && o->val && o->val[0]);
    }
    PQconninfoFree(opts);
    if (has_password) {
        snprintf(err, errlen,
                 "--store: the connection string carries a password; give it with --store-password-file, "
                 "PGPASSFILE (~/.pgpass) or PGPASSWORD instead (a command line is visible to every user)");
        return false;
    }
    svcPg *pg = calloc(1, sizeof *pg);
    if (!pg) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    pg->stop_pipe[0] = pg->stop_pipe[1] = -1;
    svc->pg = pg;
    pg->conn = svcPg_Connect(svc, err, errlen);
    if (!pg->conn || !migrate(svc, err, errlen)) {
        PQfinish(pg->conn);
        free(pg);
        svc->pg = NULL;
        return false;
    }
    char host[96] = "";
    gethostname(host, sizeof host - 1);
    snprintf(pg->node, sizeof pg->node, "%s:%d:%lld", host, (int)getpid(), (long long)(svcNow() * 1000.0));
    char shown[1024];
    svcLog(svc, "store: PostgreSQL %s, schema version %d, node %s", svcPg_ShownStore(svc, shown, sizeof shown),
           SVC_PG_SCHEMA_VERSION, pg->node);
    return true;
}

static void pg_close(tpService *svc)
{
    svcPg *pg = svc->pg;
    if (!pg) {
        return;
    }
    if (pg->conn && PQstatus(pg->conn) == CONNECTION_OK) {
        svcPgParams p = {0};
        p_text(&p, pg->node);
        PQclear(PQexecParams(pg->conn, "DELETE FROM nodes WHERE id = $1", p.n, NULL, p.v, p.len, p.fmt, 0));
    }
    PQfinish(pg->conn);
    free(pg);
    svc->pg = NULL;
}

/* ---- jobs ------------------------------------------------------------------------------------ */

#define PG_JOB_COLUMNS_AFTER_REQUEST                                                                                   \
    " created, started, finished, iterations, nodes, solutions, best_quality,"                                         \
    " elapsed, summary, error_code, error_message, has_plan, has_tree, time_limit, memory_mb, name, tags, retry_of, "  \
    "priority, run_at, retries, failures, interim"
#define PG_JOB_COLUMNS "id, status, domain, request," PG_JOB_COLUMNS_AFTER_REQUEST /* to run it */
/* for the API: the shown request, never the stored one out of TOAST (up to 4 MiB) */
#define PG_JOB_COLUMNS_SHOWN                                                                                           \
    "id, status, domain, COALESCE(request_shown, request)," PG_JOB_COLUMNS_AFTER_REQUEST ", request_shown IS NOT NULL"
#define PG_NJOB_COLUMNS 27

static char *get_dup(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? NULL : strdup(PQgetvalue(r, row, col));
}

static double get_double(const PGresult *r, int row, int col, double dflt)
{
    return PQgetisnull(r, row, col) ? dflt : strtod(PQgetvalue(r, row, col), NULL);
}

/* shown: column 3 is the shown request (PG_JOB_COLUMNS_SHOWN), else the request. */
static svcJob *job_from_row(const PGresult *r, int row, bool shown)
{
    svcJob *job = calloc(1, sizeof *job);
    if (!job) {
        return NULL;
    }
    job->id = strtoll(PQgetvalue(r, row, 0), NULL, 10);
    int s = svcStatusFromName(PQgetvalue(r, row, 1));
    job->status = s < 0 ? SVC_FAILED : (svcStatus)s;
    job->domain = get_dup(r, row, 2);
    /* a row older than request_shown: its request, from which the shown one is made */
    *(shown && PQgetvalue(r, row, 27)[0] == 't' ? &job->request_shown : &job->request) = get_dup(r, row, 3);
    job->created = get_double(r, row, 4, 0);
    job->started = get_double(r, row, 5, 0);
    job->finished = get_double(r, row, 6, 0);
    job->iterations = strtoll(PQgetvalue(r, row, 7), NULL, 10);
    job->nodes = strtoll(PQgetvalue(r, row, 8), NULL, 10);
    job->solutions = atoi(PQgetvalue(r, row, 9));
    job->best_quality = get_double(r, row, 10, NAN);
    job->elapsed = get_double(r, row, 11, 0);
    job->summary = get_dup(r, row, 12);
    snprintf(job->err_code, sizeof job->err_code, "%s", PQgetisnull(r, row, 13) ? "" : PQgetvalue(r, row, 13));
    job->err_message = get_dup(r, row, 14);
    job->has_plan = PQgetvalue(r, row, 15)[0] == 't';
    job->has_tree = PQgetvalue(r, row, 16)[0] == 't';
    svcJob_ReadRun(job, get_double(r, row, 17, 0)); /* start_job fails a job whose request does not read */
    job->memory_mb = atoi(PQgetvalue(r, row, 18));
    job->name = get_dup(r, row, 19);
    job->tags = get_dup(r, row, 20);
    job->retry_of = PQgetisnull(r, row, 21) ? 0 : strtoll(PQgetvalue(r, row, 21), NULL, 10);
    job->priority = atoi(PQgetvalue(r, row, 22));
    job->run_at = get_double(r, row, 23, 0);
    job->retries = atoi(PQgetvalue(r, row, 24));
    job->failures = atoi(PQgetvalue(r, row, 25));
    job->interim = get_dup(r, row, 26);
    job->worker = -1;
    return job;
}

/* "jobs" of a request (worker processes its search takes), 1 if none. */
static int request_parallel(const char *request)
{
    cJSON *req = cJSON_Parse(request);
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(req, "jobs");
    int n = cJSON_IsNumber(jobs) && jobs->valuedouble >= 1 ? (int)jobs->valuedouble : 1;
    cJSON_Delete(req);
    return n;
}

static bool pg_insert(tpService *svc, svcJob *job, const char *idem_key, const char *idem_hash)
{
    svcPgParams p = {0};
    p_text(&p, svcStatusName(job->status));
    p_text(&p, job->domain);
    p_text(&p, job->request);
    if (job->script) {
        p_bin(&p, job->script, job->script_len);
    } else {
        p_text(&p, NULL);
    }
    p_text(&p, idem_key);
    p_text(&p, idem_hash);
    p_double(&p, job->created);
    p_double(&p, job->run.time_limit);
    p_int(&p, job->memory_mb);
    p_text(&p, job->name);
    p_text(&p, job->tags);
    p_text(&p, job->client);
    p_bool(&p, job->sync);
    p_double(&p, job->sync_deadline);
    p_int(&p, request_parallel(job->request));
    p_text(&p, svcJobShownRequest(job));
    if (job->retry_of > 0) {
        p_int(&p, job->retry_of);
    } else {
        p_text(&p, NULL);
    }
    p_int(&p, job->priority);
    p_double(&p, job->run_at);
    p_int(&p, job->retries);
    PGresult *r =
        svcPg_Exec(svc, "insert",
                   "WITH i AS (INSERT INTO jobs(status, domain, request, script, idem_key, idem_hash, created,"
                   " time_limit, memory_mb, name, tags, client, sync, sync_deadline, parallel, record_bytes,"
                   " request_shown, retry_of, priority, run_at, retries)"
                   " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,"
                   " octet_length($3::text) + COALESCE(octet_length($4::bytea), 0), $16, $17::bigint, $18, $19, $20)"
                   " ON CONFLICT (idem_key) DO NOTHING RETURNING id)"
                   " SELECT id, pg_notify('tplan', 'q') FROM i",
                   &p, 0);
    if (!r || PQntuples(r) != 1) { /* no row: another front end stored this Idempotency-Key first (the
                                       caller finds that job; job->id stays 0) */
        PQclear(r);
        return false;
    }
    job->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return true;
}

static svcJob *pg_get(tpService *svc, int64_t id, bool with_script)
{
    svcPgParams p = {0};
    p_int(&p, id);
    PGresult *r = svcPg_Exec(svc, "get", "SELECT " PG_JOB_COLUMNS_SHOWN " FROM jobs WHERE id = $1", &p, 0);
    svcJob *job = r && PQntuples(r) == 1 ? job_from_row(r, 0, true) : NULL;
    if (r && PQntuples(r) == 1 && !job) { /* the row is there: out of memory, not "no job" */
        svcLog(svc, "store: get: out of memory");
        ++svc->store_errors;
    }
    PQclear(r);
    if (job && with_script && !svc->store->load_script(svc, job)) {
        svcJobFree(job);
        return NULL;
    }
    return job;
}

static bool pg_load_script(tpService *svc, svcJob *job);

static svcJob *pg_get_run(tpService *svc, int64_t id)
{
    svcPgParams p = {0};
    p_int(&p, id);
    PGresult *r = svcPg_Exec(svc, "get", "SELECT " PG_JOB_COLUMNS " FROM jobs WHERE id = $1", &p, 0);
    svcJob *job = r && PQntuples(r) == 1 ? job_from_row(r, 0, false) : NULL;
    if (r && PQntuples(r) == 1 && !job) {
        svcLog(svc, "store: get: out of memory");
        ++svc->store_errors;
    }
    PQclear(r);
    if (job && (!job->request || !pg_load_script(svc, job))) {
        svcJobFree(job);
        return NULL;
    }
    return job;
}

static bool pg_load_script(tpService *svc, svcJob *job)
{
    svcPgParams p = {0};
    p_int(&p, job->id);
    PGresult *r = svcPg_Exec(svc, "script", "SELECT script FROM jobs WHERE id = $1", &p, 1);
    bool ok = r && PQntuples(r) == 1;
    if (ok && !PQgetisnull(r, 0, 0)) {
        size_t n = (size_t)PQgetlength(r, 0, 0);
        job->script = malloc(n + 1);
        if (job->script) {
            memcpy(job->script, PQgetvalue(r, 0, 0), n);
            job->script[n] = '\0';
            job->script_len = n;
        } else {
            ok = false;
        }
    }
    PQclear(r);
    return ok;
}

static int64_t pg_find_idem(tpService *svc, const char *key, char *hash, size_t hashcap)
{
    svcPgParams p = {0};
    p_text(&p, key);
    PGresult *r = svcPg_Exec(svc, "idempotency", "SELECT id, idem_hash FROM jobs WHERE idem_key = $1", &p, 0);
    int64_t id = 0;
    if (r && PQntuples(r) == 1) {
        id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        snprintf(hash, hashcap, "%s", PQgetvalue(r, 0, 1));
    }
    PQclear(r);
    return id;
}

static int64_t *ids_of(const PGresult *r, int *n)
{
    *n = 0;
    int rows = PQntuples(r);
    int64_t *ids = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *ids);
    for (int i = 0; ids && i < rows; ++i) {
        ids[(*n)++] = strtoll(PQgetvalue(r, i, 0), NULL, 10);
    }
    return ids;
}

static int64_t *pg_list(tpService *svc, const svcListFilter *f, int *n)
{
    *n = 0;
    svcPgParams p = {0};
    p_text(&p, f->status >= 0 ? svcStatusName((svcStatus)f->status) : NULL);
    p_int(&p, f->before);
    p_int(&p, f->limit);
    p_text(&p, f->domain);
    p_text(&p, f->name);
    p_text(&p, f->tag);
    p_time(&p, f->created_after);
    p_time(&p, f->created_before);
    PGresult *r = svcPg_Exec(svc, "list",
                             "SELECT id FROM jobs WHERE ($1::text IS NULL OR status = $1) AND ($2 = 0 OR id < $2)"
                             " AND ($4::text IS NULL OR domain = $4) AND ($5::text IS NULL OR name = $5)"
                             " AND ($6::text IS NULL OR (tags IS NOT NULL AND tags::jsonb ? $6))"
                             " AND ($7::float8 IS NULL OR created > $7) AND ($8::float8 IS NULL OR created < $8)"
                             " ORDER BY id DESC LIMIT $3",
                             &p, 0);
    if (!r) {
        return NULL;
    }
    int64_t *ids = ids_of(r, n);
    PQclear(r);
    return ids;
}

static bool pg_delete(tpService *svc, int64_t id)
{
    svcPgParams p = {0};
    p_int(&p, id);
    return svcPg_Command(svc, "delete", "DELETE FROM jobs WHERE id = $1", &p);
}

static bool pg_delete_many(tpService *svc, const int64_t *ids, int n)
{
    /* one statement: an array of ids */
    size_t cap = (size_t)n * 21 + 3;
    char *arr = malloc(cap);
    if (!arr) {
        return false;
    }
    size_t at = 0;
    arr[at++] = '{';
    for (int i = 0; i < n; ++i) {
        at += (size_t)snprintf(arr + at, cap - at, "%s%lld", i ? "," : "", (long long)ids[i]);
    }
    snprintf(arr + at, cap - at, "}");
    svcPgParams p = {0};
    p_text(&p, arr);
    bool ok = svcPg_Command(svc, "retention", "DELETE FROM jobs WHERE id = ANY($1::bigint[])", &p);
    free(arr);
    return ok;
}

static int64_t *pg_all_ids(tpService *svc, int *n)
{
    *n = 0;
    PGresult *r = svcPg_Exec(svc, "ids", "SELECT id FROM jobs ORDER BY id", NULL, 0);
    if (!r) {
        return NULL;
    }
    int64_t *ids = ids_of(r, n);
    PQclear(r);
    return ids;
}

static int64_t *pg_expired(tpService *svc, double now, int *n)
{
    *n = 0;
    const tpServiceDef *d = &svc->def;
    PGresult *r =
        svcPg_Exec(svc, "retention",
                   "SELECT id, COALESCE(finished, created), record_bytes + bytes FROM jobs" /* jobs_finished */
                   " WHERE status NOT IN ('queued', 'running') ORDER BY id DESC",
                   NULL, 0);
    if (!r) {
        return NULL;
    }
    int rows = PQntuples(r);
    int64_t *ids = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *ids);
    int64_t kept = 0, bytes = 0, max_bytes = d->keep_mb > 0 ? (int64_t)d->keep_mb << 20 : INT64_MAX;
    for (int i = 0; ids && i < rows; ++i) { /* the same policy as the SQLite store's */
        double when = strtod(PQgetvalue(r, i, 1), NULL);
        bool drop =
            (d->keep_jobs > 0 && kept >= d->keep_jobs) || (d->keep_days > 0 && now - when > d->keep_days * 86400.0);
        bytes += strtoll(PQgetvalue(r, i, 2), NULL, 10);
        drop = drop || (bytes > max_bytes && kept > 0);
        if (!drop) {
            ++kept;
            continue;
        }
        ids[(*n)++] = strtoll(PQgetvalue(r, i, 0), NULL, 10);
    }
    PQclear(r);
    return ids;
}

static void pg_counts(tpService *svc, int64_t counts[SVC_NSTATUS])
{
    memset(counts, 0, sizeof(int64_t) * SVC_NSTATUS);
    PGresult *r = svcPg_Exec(svc, "counts", "SELECT status, count(*) FROM jobs GROUP BY status", NULL, 0);
    for (int i = 0; r && i < PQntuples(r); ++i) {
        int s = svcStatusFromName(PQgetvalue(r, i, 0));
        if (s >= 0) {
            counts[s] = strtoll(PQgetvalue(r, i, 1), NULL, 10);
        }
    }
    PQclear(r);
}

/* Nothing to recover at start: another node may be running the jobs marked running; those of a
 * dead node come back through their expired leases (svcPg_Tick). */
static svcJob **pg_recover(tpService *svc, int *n)
{
    (void)svc;
    *n = 0;
    return NULL;
}

/* ---- the cluster ------------------------------------------------------------------------------- */

/* The server's concurrency limits as two PostgreSQL array literals: {"tag",...} and {n,...}. */
static void limit_arrays(const tpService *svc, char *tags, size_t tcap, char *maxes, size_t mcap)
{
    size_t t = 0, m = 0;
    tags[t++] = '{';
    maxes[m++] = '{';
    for (int l = 0; l < svc->nlimits; ++l) {
        tags[t++] = l ? ',' : '"';
        if (l) {
            tags[t++] = '"';
        }
        for (const char *c = svc->limit_tag[l]; *c && t + 4 < tcap; ++c) {
            if (*c == '"' || *c == '\\') {
                tags[t++] = '\\';
            }
            tags[t++] = *c;
        }
        tags[t++] = '"';
        m += (size_t)snprintf(maxes + m, mcap - m, "%s%d", l ? "," : "", svc->limit_max[l]);
    }
    tags[t++] = '}';
    tags[t] = '\0';
    snprintf(maxes + m, mcap - m, "}");
}

/* The claim: the next queued job (the order of svcSched_Pick, within a window of PG_CLAIM_WINDOW)
 * running under this node's new lease. With concurrency limits (--limit TAG=N), a job carrying a
 * tag that has N jobs running in the cluster is passed over; the count and the claim are made under
 * one transaction-level advisory lock (PG_CLAIM_LOCK_KEY), so that two nodes claiming at once
 * cannot both take the last place (each statement's snapshot is taken after the lock). */
#define PG_CLAIM_LOCK_KEY "727110030"
#define PG_CLAIM_SQL(LIM_CTE, LIM_FILTER)                                                                              \
    LIM_CTE "UPDATE jobs SET status = 'running', node = $1, attempt = attempt + 1,"                                    \
            " lease_until = extract(epoch FROM clock_timestamp()) + $2, ctl = NULL, ctl_code = NULL,"                  \
            " ctl_message = NULL, iterations = 0, nodes = 0, solutions = 0, best_quality = NULL,"                      \
            " elapsed = 0 WHERE id = (SELECT q.id FROM (SELECT id FROM jobs WHERE status = 'queued'"                   \
            " AND (sync OR $3) AND parallel <= $4 AND run_at <= extract(epoch FROM clock_timestamp())" LIM_FILTER      \
            " ORDER BY sync DESC, priority DESC, id LIMIT " PG_CLAIM_WINDOW ") c"                                      \
            " JOIN jobs q ON q.id = c.id LEFT JOIN (SELECT client, count(*) AS n FROM jobs"                            \
            " WHERE status = 'running' AND client <> '' GROUP BY client) r ON r.client = q.client"                     \
            " WHERE q.status = 'queued'" /* rechecked on the locked row: claimed once */                               \
            " ORDER BY q.sync DESC, q.priority DESC, COALESCE(r.n, 0), q.id LIMIT 1 FOR UPDATE OF q SKIP LOCKED)"      \
            " AND status = 'queued'"                                                                                   \
            " RETURNING " PG_JOB_COLUMNS ", attempt, sync, sync_deadline, client"

static svcJob *svcPg_Claim(tpService *svc, bool batch, int max_parallel)
{
    svcPg *pg = svc->pg;
    svcPgParams p = {0};
    p_text(&p, pg->node);
    p_double(&p, svc->def.lease);
    p_bool(&p, batch);
    p_int(&p, max_parallel);
    bool limited = svc->nlimits > 0;
    char tags[TP_SERVICE_MAX_LIMITS * (2 * SVC_MAX_TAG + 3) + 3], maxes[TP_SERVICE_MAX_LIMITS * 8 + 3];
    if (limited) {
        limit_arrays(svc, tags, sizeof tags, maxes, sizeof maxes);
        p_text(&p, tags);
        p_text(&p, maxes);
        if (!svcPg_Command(svc, "claim", "BEGIN", NULL)) {
            return NULL;
        }
        pg->in_tx = true;
        if (!svcPg_Command(svc, "claim", "SELECT pg_advisory_xact_lock(" PG_CLAIM_LOCK_KEY ")", NULL)) {
            PQclear(PQexec(pg->conn, "ROLLBACK"));
            pg->in_tx = false;
            return NULL;
        }
    }
    PGresult *r =
        limited ? svcPg_Exec(svc, "claim",
                             PG_CLAIM_SQL("WITH lim AS (SELECT COALESCE(array_agg(l.tag), '{}') AS full_tags"
                                          " FROM unnest($5::text[], $6::int[]) AS l(tag, n) WHERE (SELECT count(*)"
                                          " FROM jobs x WHERE x.status = 'running' AND x.tags IS NOT NULL"
                                          " AND x.tags::jsonb ? l.tag) >= l.n) ",
                                          " AND NOT (COALESCE(tags, '[]')::jsonb ?| (SELECT full_tags FROM lim))"),
                             &p, 0)
                : svcPg_Exec(svc, "claim", PG_CLAIM_SQL("", ""), &p, 0);
    if (limited) {
        PGresult *c = PQexec(pg->conn, r ? "COMMIT" : "ROLLBACK");
        if (r && PQresultStatus(c) != PGRES_COMMAND_OK) {
            svcPg_Failed(svc, c, "claim");
            PQclear(r);
            r = NULL;
        }
        PQclear(c);
        pg->in_tx = false;
    }
    svcJob *job = r && PQntuples(r) == 1 ? job_from_row(r, 0, false) : NULL;
    if (job) {
        job->attempt = atoi(PQgetvalue(r, 0, PG_NJOB_COLUMNS));
        job->renewed = tpClock_Now(); /* the lease starts now */
        job->sync = PQgetvalue(r, 0, PG_NJOB_COLUMNS + 1)[0] == 't';
        job->sync_deadline = get_double(r, 0, PG_NJOB_COLUMNS + 2, 0);
        snprintf(job->client, sizeof job->client, "%s", PQgetvalue(r, 0, PG_NJOB_COLUMNS + 3));
        job->status = SVC_QUEUED; /* to this node: claimed, not yet handed to a worker */
        pg->claimed++;
        if (job->attempt > 1) {
            svcLog(svc, "job %lld claimed again (attempt %d)", (long long)job->id, job->attempt);
        }
    }
    PQclear(r);
    if (!job && batch) { /* none due: when does the first scheduled one fall due (any front end's)? */
        r = svcPg_Exec(svc, "claim",
                       "SELECT min(run_at) - extract(epoch FROM clock_timestamp()) FROM jobs WHERE status = 'queued'"
                       " AND run_at > 0",
                       NULL, 0);
        pg->next_due = r && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0)
                           ? tpClock_Now() + fmax(0.0, strtod(PQgetvalue(r, 0, 0), NULL))
                           : 0;
        PQclear(r);
    }
    return job;
}

static void svcPg_Progress(tpService *svc, svcJob *job)
{
    double now = tpClock_Now();
    if (now - job->published < PG_PROGRESS_EVERY) {
        return;
    }
    job->published = now;
    svcPgParams p = {0};
    p_int(&p, job->id);
    p_int(&p, job->iterations);
    p_int(&p, job->nodes);
    p_int(&p, job->solutions);
    p_double(&p, job->best_quality);
    p_double(&p, job->elapsed);
    p_text(&p, svc->pg->node);
    p_int(&p, job->attempt);
    PQclear(svcPg_Exec(svc, "progress",
                       "WITH u AS (UPDATE jobs SET iterations = $2, nodes = $3, solutions = $4, best_quality = $5,"
                       " elapsed = $6 WHERE id = $1 AND node = $7 AND attempt = $8 AND status = 'running' RETURNING id)"
                       " SELECT pg_notify('tplan', id::text) FROM u",
                       &p, 0));
}

/* Marks what the cluster asked of a running job, for the scheduler to act on after the tick (the
 * store never stops a worker itself). A later request in the same tick replaces an earlier one. */
static void mark_ctl(svcJob *job, char what, const char *code, const char *message)
{
    job->ctl = what;
    snprintf(job->ctl_code, sizeof job->ctl_code, "%s", code ? code : "");
    snprintf(job->ctl_message, sizeof job->ctl_message, "%s", message ? message : "");
}

/* Renews the leases of this node's running jobs and acts on what the store says about them. */
static void renew(tpService *svc)
{
    svcPg *pg = svc->pg;
    /* the leases of the jobs this node runs; a record it holds but runs no more (its final write
     * failed while the database was away) goes back to the queue, or it would be renewed for ever */
    size_t cap = (size_t)svc->nactive * 21 + 3, at = 0;
    char *mine = malloc(cap);
    if (!mine) {
        return;
    }
    mine[at++] = '{';
    for (int i = 0; i < svc->nactive; ++i) {
        at += (size_t)snprintf(mine + at, cap - at, "%s%lld", at > 1 ? "," : "", (long long)svc->active[i]->id);
    }
    snprintf(mine + at, cap - at, "}");
    svcPgParams o = {0};
    p_text(&o, pg->node);
    p_text(&o, mine);
    /* one whose lease ran out (this node stopped its run: lease_expired) is a lease lost */
    PGresult *q =
        svcPg_Exec(svc, "lease",
                   "WITH e AS (UPDATE jobs SET " PG_LEASE_LOST_SET
                   " WHERE node = $1 AND status = 'running' AND NOT (id = ANY($2::bigint[]))"
                   " AND lease_until < extract(epoch FROM clock_timestamp()) RETURNING id, status),"
                   " u AS (UPDATE jobs SET " PG_REQUEUE_SET
                   " WHERE node = $1 AND status = 'running' AND NOT (id = ANY($2::bigint[])) AND id NOT IN"
                   " (SELECT id FROM e) RETURNING id, status)"
                   " SELECT id, status, pg_notify('tplan', 'q') FROM (SELECT * FROM e UNION ALL SELECT * FROM u) a",
                   &o, 0);
    svcPgParams p = {0};
    p_text(&p, pg->node);
    p_double(&p, svc->def.lease);
    p_text(&p, mine);
    for (int i = 0; q && i < PQntuples(q); ++i) {
        svcLog(svc, "job %s: held by this node but no longer running here; %s", PQgetvalue(q, i, 0),
               PQgetvalue(q, i, 1)[0] == 'q' ? "queued again" : PQgetvalue(q, i, 1));
    }
    PQclear(q);
    PGresult *r = svcPg_Exec(svc, "lease",
                             "UPDATE jobs SET lease_until = extract(epoch FROM clock_timestamp()) + $2"
                             " WHERE node = $1 AND status = 'running' AND id = ANY($3::bigint[])"
                             " RETURNING id, attempt, ctl, ctl_code, ctl_message",
                             &p, 0);
    free(mine);
    double now = tpClock_Now();
    if (!r) {
        /* unreachable: the jobs run on while their leases hold; one whose lease has run out by this
           node's clock may be planned by another node already: its run is stopped (the scheduler kills
           its worker and forgets the job), and the store queues it again once (PG_LEASE_LOST_SET) */
        for (int i = 0; i < svc->nactive; ++i) {
            svcJob *job = svc->active[i];
            if (job->status == SVC_RUNNING && job->renewed > 0 && now - job->renewed > svc->def.lease && !job->ctl) {
                svcLog(svc,
                       "job %lld: its lease ran out (no renewal for %.1f s: the store does not answer); its run is "
                       "stopped, to be queued again by the store",
                       (long long)job->id, now - job->renewed);
                mark_ctl(job, 'x', "lease_expired", "the node's lease on the job ran out");
            }
        }
        return;
    }
    int rows = PQntuples(r);
    for (int i = svc->nactive - 1; i >= 0; --i) {
        svcJob *job = svc->active[i];
        if (job->status != SVC_RUNNING) {
            continue;
        }
        int row = -1;
        for (int k = 0; k < rows && row < 0; ++k) {
            if (strtoll(PQgetvalue(r, k, 0), NULL, 10) == job->id && atoi(PQgetvalue(r, k, 1)) == job->attempt) {
                row = k;
            }
        }
        if (row < 0) { /* reclaimed by another node (this one was cut off past its lease) */
            svcLog(svc, "job %lld: lease lost (attempt %d); its worker is stopped", (long long)job->id, job->attempt);
            mark_ctl(job, 'l', "lease_lost", "the node lost the job's lease");
            continue;
        }
        job->renewed = now;
        const char *ctl = PQgetvalue(r, row, 2);
        if (ctl[0] == 's') {
            svcLog(svc, "job %lld: stop requested", (long long)job->id);
            mark_ctl(job, 's', "", "");
        } else if (ctl[0] == 'c') {
            svcLog(svc, "job %lld: cancel requested", (long long)job->id);
            mark_ctl(job, 'c', PQgetvalue(r, row, 3), PQgetvalue(r, row, 4));
        }
    }
    PQclear(r);
    int running = svcCountActive(svc, SVC_RUNNING);
    char host[96] = "";
    gethostname(host, sizeof host - 1);
    svcPgParams h = {0};
    p_text(&h, pg->node);
    p_text(&h, host);
    p_int(&h, getpid());
    p_bool(&h, !svc->def.no_http);
    p_int(&h, svc->nworkers);
    p_int(&h, svc->ninteractive);
    p_double(&h, svc->started_at);
    p_int(&h, running);
    p_int(&h, (long long)pg->claimed);
    p_int(&h, (long long)pg->finished);
    p_int(&h, (long long)pg->reclaimed);
    p_int(&h, (long long)pg->lost);
    p_bool(&h, svc->draining);
    svcPg_Command(svc, "heartbeat",
                  "INSERT INTO nodes(id, host, pid, http, workers, interactive_workers, started, heartbeat, running,"
                  " claimed, finished, reclaimed, lost, draining) VALUES($1, $2, $3, $4, $5, $6, $7,"
                  " extract(epoch FROM clock_timestamp()), $8, $9, $10, $11, $12, $13) ON CONFLICT (id) DO UPDATE SET"
                  " heartbeat = EXCLUDED.heartbeat, running = $8, claimed = $9, finished = $10, reclaimed = $11,"
                  " lost = $12, draining = $13",
                  &h);
}

/* Jobs whose lease expired (their node died or was cut off) go back to the queue; one asked to
 * cancel or stop meanwhile ends cancelled. Nodes silent for 10 leases leave the nodes table. */
static void reclaim(tpService *svc)
{
    svcPgParams p = {0};
    p_double(&p, svc->def.lease);
    PGresult *r = svcPg_Exec(svc, "reclaim",
                             "WITH r AS (UPDATE jobs SET " PG_LEASE_LOST_SET
                             " WHERE status = 'running' AND lease_until < extract(epoch FROM clock_timestamp())"
                             " RETURNING id, attempt, status)"
                             " SELECT id, attempt, status, pg_notify('tplan', 'q') FROM r",
                             NULL, 0);
    int n = r ? PQntuples(r) : 0;
    for (int i = 0; i < n; ++i) {
        svcLog(svc, "job %s: its node stopped renewing the lease of attempt %s; %s", PQgetvalue(r, i, 0),
               PQgetvalue(r, i, 1), PQgetvalue(r, i, 2)[0] == 'q' ? "queued again" : PQgetvalue(r, i, 2));
    }
    svc->pg->reclaimed += (uint64_t)n;
    PQclear(r);
    svcPg_Command(svc, "nodes", "DELETE FROM nodes WHERE heartbeat < extract(epoch FROM clock_timestamp()) - 10 * $1",
                  &p);
}

static double svcPg_Tick(tpService *svc)
{
    svcPg *pg = svc->pg;
    double now = tpClock_Now(), every = svc->def.lease / 3.0;
    if (now >= pg->next_renew || pg->ctl_pending) {
        pg->ctl_pending = false;
        renew(svc);
        pg->next_renew = now + every;
    }
    if (now >= pg->next_reclaim) {
        reclaim(svc);
        pg->next_reclaim = now + svc->def.lease / 2.0;
    }
    double next = fmin(pg->next_renew, pg->next_reclaim);
    if (pg->next_due > 0 && pg->next_due <= tpClock_Now()) {
        pg->next_due = 0; /* due: the dispatch before this tick claimed it, or will when a worker frees */
    }
    if (pg->next_due > 0) {
        next = fmin(next, pg->next_due);
    }
    next -= tpClock_Now();
    return next > 0 ? next : 0;
}

static bool svcPg_RequestEnd(tpService *svc, int64_t id, char what, const char *code, const char *message)
{
    if (what == 's' && svcPg_StopWithInterim(svc, id)) {
        return true;
    }
    svcPgParams p = {0};
    p_int(&p, id);
    p_text(&p, what == 's' ? "cancelled" : code);
    p_text(&p, what == 's' ? "stopped before it started: nothing planned" : message);
    p_double(&p, svcNow());
    PGresult *r =
        svcPg_Exec(svc, "cancel",
                   "WITH u AS (UPDATE jobs SET status = 'cancelled', finished = $4, error_code = $2,"
                   " error_message = $3, interim = NULL WHERE id = $1 AND status = 'queued' RETURNING id),"
                   " f AS (DELETE FROM job_files WHERE job_id IN (SELECT id FROM u) AND name LIKE 'interim.%')"
                   " SELECT pg_notify('tplan', id::text) FROM u",
                   &p, 0);
    bool done = r && PQntuples(r) == 1;
    PQclear(r);
    if (done) {
        svcLog(svc, "job %lld cancelled while queued", (long long)id);
        return true;
    }
    svcPgParams q = {0};
    char ctl[2] = {what, '\0'};
    p_int(&q, id);
    p_text(&q, ctl);
    p_text(&q, code);
    p_text(&q, message);
    r = svcPg_Exec(svc, "cancel",
                   "WITH u AS (UPDATE jobs SET ctl = $2, ctl_code = $3, ctl_message = $4 WHERE id = $1 AND"
                   " status = 'running' AND (ctl IS NULL OR (ctl = 's' AND $2 = 'c')) RETURNING id)"
                   " SELECT pg_notify('tplan', 'c' || id::text) FROM u",
                   &q, 0);
    done = r && PQntuples(r) == 1;
    PQclear(r);
    return done;
}

static bool svcPg_DropQueued(tpService *svc, int64_t id)
{
    svcPgParams p = {0};
    p_int(&p, id);
    PGresult *r = svcPg_Exec(svc, "drop", "DELETE FROM jobs WHERE id = $1 AND status = 'queued' RETURNING id", &p, 0);
    bool dropped = r && PQntuples(r) == 1;
    PQclear(r);
    return dropped;
}

static bool svcPg_CountQueued(tpService *svc, const char *client, int *total, int *mine)
{
    svcPgParams p = {0};
    p_text(&p, client);
    PGresult *r = svcPg_Exec(svc, "queue",
                             "SELECT count(*), count(*) FILTER (WHERE client = $1 AND client <> '') FROM jobs"
                             " WHERE status = 'queued'",
                             &p, 0);
    bool ok = r && PQntuples(r) == 1;
    *total = ok ? atoi(PQgetvalue(r, 0, 0)) : 0;
    *mine = ok ? atoi(PQgetvalue(r, 0, 1)) : 0;
    PQclear(r);
    return ok;
}

static bool svcPg_Ping(tpService *svc)
{
    svcPg *pg = svc->pg;
    for (int attempt = 0; attempt < 2; ++attempt) {
        PGresult *r = PQexec(pg->conn, "SELECT 1");
        bool ok = PQresultStatus(r) == PGRES_TUPLES_OK;
        PQclear(r);
        if (ok || PQstatus(pg->conn) != CONNECTION_BAD || attempt > 0) {
            return ok;
        }
        if (!svcPg_Reconnect(svc)) { /* never waits: a health check answers at once */
            return false;
        }
    }
    return false;
}

static char *svcPg_MetricsText(tpService *svc)
{
    PGresult *r = svcPg_Exec(svc, "metrics",
                             "SELECT id, http, workers, running, claimed, finished, reclaimed, lost,"
                             " extract(epoch FROM clock_timestamp()) - heartbeat FROM nodes ORDER BY id",
                             NULL, 0);
    if (!r) {
        return strdup("");
    }
    size_t cap = 2048 + (size_t)PQntuples(r) * 1200, at = 0;
    char *out = malloc(cap);
    if (!out) {
        PQclear(r);
        return NULL;
    }
    at += (size_t)snprintf(out + at, cap - at,
                           "# HELP tplan_cluster_nodes Nodes of the cluster with a heartbeat in the store.\n"
                           "# TYPE tplan_cluster_nodes gauge\ntplan_cluster_nodes %d\n"
                           "# HELP tplan_node_info One line per node; this process is self=\"1\".\n"
                           "# TYPE tplan_node_info gauge\n",
                           PQntuples(r));
    for (int i = 0; i < PQntuples(r); ++i) {
        at += (size_t)snprintf(out + at, cap - at, "tplan_node_info{node=\"%s\",http=\"%d\",self=\"%d\"} 1\n",
                               PQgetvalue(r, i, 0), PQgetvalue(r, i, 1)[0] == 't',
                               strcmp(PQgetvalue(r, i, 0), svc->pg->node) == 0);
    }
    /* one family at a time, each with its HELP and TYPE */
    static const struct {
        const char *name, *type, *help;
    } series[] = {
        {"tplan_node_workers", "gauge", "Batch worker processes of the node (--workers)."},
        {"tplan_node_running", "gauge", "Jobs the node is running."},
        {"tplan_node_claimed_total", "counter", "Jobs the node claimed from the queue."},
        {"tplan_node_finished_total", "counter", "Jobs the node finished and stored."},
        {"tplan_node_reclaimed_total", "counter", "Jobs of dead nodes the node put back in the queue."},
        {"tplan_node_lost_total", "counter", "Results the node dropped: another node held the job's lease."},
        {"tplan_node_heartbeat_age_seconds", "gauge", "Seconds since the node's last heartbeat."},
    };
    for (int k = 0; k < 7; ++k) {
        at += (size_t)snprintf(out + at, cap - at, "# HELP %s %s\n# TYPE %s %s\n", series[k].name, series[k].help,
                               series[k].name, series[k].type);
        for (int i = 0; i < PQntuples(r); ++i) {
            at += (size_t)snprintf(out + at, cap - at, "%s{node=\"%s\"} %s\n", series[k].name, PQgetvalue(r, i, 0),
                                   PQgetvalue(r, i, 2 + k));
        }
    }
    PQclear(r);
    return out;
}

/* GET /v1/cluster's nodes, running jobs, queue and limits as the store sees them, one JSON object
 * made by PostgreSQL (json_build_object); caller frees; NULL on error. */
static char *svcPg_ClusterJson(tpService *svc)
{
    char tags[TP_SERVICE_MAX_LIMITS * (2 * SVC_MAX_TAG + 3) + 3], maxes[TP_SERVICE_MAX_LIMITS * 8 + 3];
    limit_arrays(svc, tags, sizeof tags, maxes, sizeof maxes);
    svcPgParams p = {0};
    p_double(&p, svc->def.lease);
    p_text(&p, tags);
    p_text(&p, maxes);
    p_text(&p, svc->pg->node);
    PGresult *r = svcPg_Exec(
        svc, "cluster",
        "WITH t AS (SELECT extract(epoch FROM clock_timestamp()) AS now) SELECT json_build_object("
        "'nodes', COALESCE((SELECT json_agg(json_build_object('id', id, 'host', host, 'pid', pid, 'http', http,"
        " 'workers', workers, 'interactive_workers', interactive_workers, 'started', started, 'self', id = $4,"
        " 'heartbeat_age', t.now - heartbeat, 'state', CASE WHEN draining THEN 'draining'"
        " WHEN t.now - heartbeat > $1 THEN 'silent' ELSE 'up' END, 'running', running, 'claimed', claimed,"
        " 'finished', finished, 'reclaimed', reclaimed, 'lost', lost) ORDER BY id) FROM nodes), '[]'),"
        "'running', COALESCE((SELECT json_agg(json_build_object('id', id, 'domain', domain, 'name', name,"
        " 'node', node, 'attempt', attempt, 'lease_left', lease_until - t.now, 'started', started,"
        " 'failures', failures, 'lease_losses', lease_losses) ORDER BY id) FROM (SELECT * FROM jobs"
        " WHERE status = 'running' ORDER BY id LIMIT 1000) j), '[]'),"
        "'queued', (SELECT count(*) FROM jobs WHERE status = 'queued'),"
        "'limits', COALESCE((SELECT json_agg(json_build_object('tag', l.tag, 'max', l.n, 'running',"
        " (SELECT count(*) FROM jobs x WHERE x.status = 'running' AND x.tags IS NOT NULL AND x.tags::jsonb ? l.tag)))"
        " FROM unnest($2::text[], $3::int[]) AS l(tag, n)), '[]')) FROM t",
        &p, 0);
    char *out = r && PQntuples(r) == 1 ? strdup(PQgetvalue(r, 0, 0)) : NULL;
    PQclear(r);
    return out;
}

/* ---- the listener ---------------------------------------------------------------------------- */

static void wake_all(tpService *svc, bool queue, bool ctl)
{
    pthread_mutex_lock(&svc->mu);
    if (ctl && svc->pg) {
        svc->pg->ctl_pending = true;
    }
    pthread_cond_broadcast(&svc->changed);
    bool sched = svc->sched_started;
    pthread_mutex_unlock(&svc->mu);
    if (sched && (queue || ctl)) {
        svcWakeScheduler(svc);
    }
}

static void *listener_main(void *arg)
{
    tpService *svc = arg;
    svcPg *pg = svc->pg;
    PGconn *c = NULL;
    double backoff = 0.2;
    for (;;) {
        if (!c) {
            char err[1024];
            c = svcPg_Connect(svc, err, sizeof err);
            PGresult *r = c ? PQexec(c, "LISTEN tplan") : NULL;
            if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
                PQclear(r);
                PQfinish(c);
                c = NULL;
            } else {
                PQclear(r);
                backoff = 0.2;
                wake_all(svc, true, true); /* whatever was announced while it was away */
            }
        }
        struct pollfd fds[2] = {{pg->stop_pipe[0], POLLIN, 0}, {c ? PQsocket(c) : -1, POLLIN, 0}};
        int rc = poll(fds, 2, c ? -1 : (int)(backoff * 1000));
        if (rc > 0 && fds[0].revents) {
            break;
        }
        if (!c) {
            backoff = fmin(backoff * 2, 5.0);
            continue;
        }
        if (rc > 0 && fds[1].revents) {
            if (!PQconsumeInput(c)) {
                char m[512];
                svcPg_FirstLine(PQerrorMessage(c), m, sizeof m);
                pthread_mutex_lock(&svc->mu);
                svcLog(svc, "store: the listening connection was lost (%s); reconnecting", m);
                pthread_mutex_unlock(&svc->mu);
                PQfinish(c);
                c = NULL;
                /* the waiters look again now: an event stream finds the store away and says so (its
                   wait for the next change could outlast the outage: e2e_service_cluster_restart
                   missed the stream's "store does not answer" line under load) */
                wake_all(svc, false, false);
                continue;
            }
            bool any = false, queue = false, ctl = false;
            PGnotify *n;
            while ((n = PQnotifies(c))) {
                any = true;
                queue = queue || n->extra[0] == 'q';
                ctl = ctl || n->extra[0] == 'c';
                PQfreemem(n);
            }
            if (any) {
                wake_all(svc, queue, ctl);
            }
        }
    }
    PQfinish(c);
    return NULL;
}

static bool svcPg_StartListener(tpService *svc, char *err, size_t errlen)
{
    svcPg *pg = svc->pg;
    if (pipe(pg->stop_pipe) != 0) {
        snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
        return false;
    }
    if (pthread_create(&pg->listener, NULL, listener_main, svc) != 0) {
        snprintf(err, errlen, "cannot start the store's listener thread");
        return false;
    }
    pg->listening = true;
    return true;
}

static void svcPg_StopListener(tpService *svc)
{
    svcPg *pg = svc->pg;
    if (!pg) {
        return;
    }
    if (pg->listening) {
        char c = 1;
        ssize_t w = write(pg->stop_pipe[1], &c, 1);
        (void)w;
        pthread_join(pg->listener, NULL);
        pg->listening = false;
    }
    for (int i = 0; i < 2; ++i) {
        if (pg->stop_pipe[i] >= 0) {
            close(pg->stop_pipe[i]);
            pg->stop_pipe[i] = -1;
        }
    }
}

/* ---- the operations tables ---------------------------------------------------------------------- */

static const svcClusterOps pg_cluster = {
    .claim = svcPg_Claim,
    .progress = svcPg_Progress,
    .finish = svcPg_Finish,
    .tick = svcPg_Tick,
    .request_end = svcPg_RequestEnd,
    .drop_queued = svcPg_DropQueued,
    .count_queued = svcPg_CountQueued,
    .fetch_file = svcPg_FetchFile,
    .start_listener = svcPg_StartListener,
    .stop_listener = svcPg_StopListener,
    .ping = svcPg_Ping,
    .metrics_text = svcPg_MetricsText,
    .cluster_json = svcPg_ClusterJson,
};

const svcStoreOps svcStorePg = {
    .name = "postgresql",
    .open = pg_open,
    .close = pg_close,
    .insert = pg_insert,
    .update = svcPg_Update,
    .handback = svcPg_Handback,
    .get = pg_get,
    .get_run = pg_get_run,
    .find_idem = pg_find_idem,
    .list = pg_list,
    .load_script = pg_load_script,
    .del = pg_delete,
    .delete_many = pg_delete_many,
    .expired = pg_expired,
    .all_ids = pg_all_ids,
    .counts = pg_counts,
    .recover = pg_recover,
    .cluster = &pg_cluster,
};
