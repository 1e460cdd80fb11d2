/* tplan service: the PostgreSQL store's writes of a claimed job under its lease (svcPg_Update) and
 * the job files beside the records (docs/service.md#cluster). A job's plan, tree and log are stored
 * compressed (zlib) in job_files, written with its final record in one transaction (svcPg_Finish), so that any front
 * end serves them (svcPg_FetchFile caches a copy in its data folder). A drain's hand-back stores the interim plan there
 * too (interim.N.json, replacing an older one), with the record queued again (svcPg_Handback); the job's end drops it,
 * and a stop of the queued job makes it its plan (svcPg_StopWithInterim). Callers hold svc->mu. */
#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "store_pg_internal.h"
#include "tp/base.h"
#include "tp/json_text.h"

/* The job's record, only while this node holds its lease (node + attempt): every write of a
 * claimed job goes through here or svcPg_Finish. A job leaving `running` drops its lease. */
bool svcPg_Update(tpService *svc, const svcJob *job)
{
    /* a script's message may hold any bytes; a PostgreSQL text column only UTF-8 (as the API shows it) */
    char *summary = job->summary ? strdup(job->summary) : NULL;
    char *message = job->err_message ? strdup(job->err_message) : NULL;
    if (summary) {
        svcUtf8Repair(summary);
    }
    if (message) {
        svcUtf8Repair(message);
    }
    svcPgParams p = {0};
    p_text(&p, svcStatusName(job->status));
    p_time(&p, job->started);
    p_time(&p, job->finished);
    p_int(&p, job->iterations);
    p_int(&p, job->nodes);
    p_int(&p, job->solutions);
    p_double(&p, job->best_quality);
    p_double(&p, job->elapsed);
    p_text(&p, summary);
    p_text(&p, job->err_code[0] ? job->err_code : NULL);
    p_text(&p, message);
    p_bool(&p, job->has_plan);
    p_bool(&p, job->has_tree);
    p_int(&p, job->files_bytes);
    p_int(&p, job->id);
    p_text(&p, svc->pg->node);
    p_int(&p, job->attempt);
    p_double(&p, job->run_at);
    p_int(&p, job->failures);
    PGresult *r =
        svcPg_Exec(svc, "update",
                   "WITH u AS (UPDATE jobs SET status = $1, started = $2, finished = $3, iterations = $4,"
                   " nodes = $5, solutions = $6, best_quality = $7, elapsed = $8, summary = $9,"
                   " error_code = $10, error_message = $11, has_plan = $12, has_tree = $13, bytes = $14,"
                   " record_bytes = octet_length(request) + COALESCE(octet_length(script), 0) +" /* no detoasting */
                   " COALESCE(octet_length($9::text), 0) + COALESCE(octet_length($11::text), 0),"
                   " node = CASE WHEN $1 = 'queued' THEN NULL ELSE node END," /* a final job keeps who planned it */
                   " lease_until = CASE WHEN $1 = 'running' THEN lease_until END, run_at = $18, failures = $19,"
                   " interim = CASE WHEN $1 IN ('queued', 'running') THEN interim END" /* a final job's is dropped */
                   " WHERE id = $15 AND node = $16 AND attempt = $17 AND status = 'running' RETURNING id)"
                   " SELECT pg_notify('tplan', CASE WHEN $1 = 'queued' THEN 'q' ELSE id::text END) FROM u",
                   &p, 0);
    bool held = r && PQntuples(r) == 1;
    PQclear(r);
    free(summary);
    free(message);
    if (r && !held) {
        svcLog(svc, "job %lld: this node no longer holds its lease (attempt %d): its %s is not written",
               (long long)job->id, job->attempt, svcStatusName(job->status));
    }
    return held;
}

/* A job's file compressed (zlib) in memory; NULL if it is missing. */
unsigned char *svcPg_CompressFile(tpService *svc, int64_t id, const char *name, size_t *size, size_t *zlen)
{
    char path[4096], err[256];
    svcJobPath(svc, id, name, path, sizeof path);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        return NULL;
    }
    size_t n = 0;
    char *data = tpFile_Read(path, PG_MAX_FILE, &n, err, sizeof err);
    if (!data) {
        svcLog(svc, "job %lld: %s", (long long)id, err);
        return NULL;
    }
    uLongf cap = compressBound((uLong)n);
    unsigned char *z = malloc(cap);
    if (!z || compress2(z, &cap, (const Bytef *)data, (uLong)n, 1) != Z_OK) {
        free(z);
        free(data);
        return NULL;
    }
    free(data);
    *size = n;
    *zlen = cap;
    return z;
}

bool svcPg_Finish(tpService *svc, svcJob *job)
{
    static const char *const names[3] = {"plan.json", "tree.bin", "log.txt"};
    unsigned char *z[3] = {NULL, NULL, NULL};
    size_t size[3] = {0}, zlen[3] = {0};
    int64_t bytes = 0;
    for (int i = 0; i < 3; ++i) {
        bool wanted = i == 2 || (i == 0 ? job->has_plan : job->has_tree);
        z[i] = wanted ? svcPg_CompressFile(svc, job->id, names[i], &size[i], &zlen[i]) : NULL;
        bytes += (int64_t)zlen[i];
    }
    job->files_bytes = bytes;
    bool ok = false, held = true;
    for (int attempt = 0; attempt < 2 && !ok; ++attempt) {
        PGresult *r = PQexec(svc->pg->conn, "BEGIN");
        bool began = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (!began) {
            if (attempt == 0 && PQstatus(svc->pg->conn) == CONNECTION_BAD && svcPg_Reconnect(svc)) {
                continue;
            }
            break;
        }
        svc->pg->in_tx = true;
        uint64_t mark = svc->store_errors;
        bool updated = svcPg_Update(svc, job);
        /* no row updated is a lease lost; a statement that failed (the disk full) is not */
        held = updated || svc->store_errors != mark;
        bool files = updated;
        for (int i = 0; files && i < 3; ++i) {
            if (!z[i]) {
                continue;
            }
            svcPgParams p = {0};
            p_int(&p, job->id);
            p_text(&p, names[i]);
            p_int(&p, (long long)size[i]);
            p_bin(&p, z[i], zlen[i]);
            r = PQexecParams(svc->pg->conn,
                             "INSERT INTO job_files(job_id, name, size, data) VALUES($1, $2, $3, $4)"
                             " ON CONFLICT (job_id, name) DO UPDATE SET size = $3, data = $4",
                             p.n, NULL, p.v, p.len, p.fmt, 0);
            files = PQresultStatus(r) == PGRES_COMMAND_OK;
            if (!files) {
                svcPg_Failed(svc, r, "files");
                char m[512];
                svcPg_FirstLine(PQresultErrorMessage(r), m, sizeof m);
                svcLog(svc, "job %lld: its %s could not be stored: %s", (long long)job->id, names[i], m);
            }
            PQclear(r);
        }
        if (files) { /* an interim plan a drain's hand-back kept: the final record replaces it */
            svcPgParams p = {0};
            p_int(&p, job->id);
            r = PQexecParams(svc->pg->conn, "DELETE FROM job_files WHERE job_id = $1 AND name LIKE 'interim.%'", p.n,
                             NULL, p.v, p.len, p.fmt, 0);
            files = PQresultStatus(r) == PGRES_COMMAND_OK;
            if (!files) {
                svcPg_Failed(svc, r, "files");
            }
            PQclear(r);
        }
        r = PQexec(svc->pg->conn, files ? "COMMIT" : "ROLLBACK");
        ok = files && PQresultStatus(r) == PGRES_COMMAND_OK;
        if (files && !ok) {
            svcPg_Failed(svc, r, "commit");
        }
        PQclear(r);
        svc->pg->in_tx = false;
        if (!held && PQstatus(svc->pg->conn) == CONNECTION_OK) {
            break; /* the lease is lost: another node owns the job now */
        }
        if (!ok && attempt == 0 && PQstatus(svc->pg->conn) == CONNECTION_BAD && !svcPg_Reconnect(svc)) {
            break;
        }
    }
    for (int i = 0; i < 3; ++i) {
        free(z[i]);
    }
    if (ok) {
        svc->pg->finished++;
        svcJobRemoveFiles(svc, job->id, 0); /* the store has them; a front end fetches them on demand */
    } else if (!held) {
        svc->pg->lost++;
        svcLog(svc, "job %lld: its %s is dropped: the node that holds the lease now writes the result",
               (long long)job->id, svcStatusName(job->status));
    } else if (!job->unstored) {
        svcLog(svc,
               "job %lld: its %s could not be stored; it is kept here and written again while this node holds "
               "its lease",
               (long long)job->id, svcStatusName(job->status));
    }
    if (ok && job->unstored) {
        svcLog(svc, "job %lld: its %s is stored now", (long long)job->id, svcStatusName(job->status));
    }
    job->unstored = !ok && held;
    return ok;
}

/* A drain's hand-back (svcStore_Handback): in one transaction, while this node holds the lease and no
 * cancel or stop was asked meanwhile, the job is queued again (its run's progress, summary and files
 * cleared, its lease dropped) with its interim plan, whose file (compressed from this node's folder)
 * replaces an older interim's in job_files; the queue is told ('q'). One attempt: on failure the
 * caller ends the job approximate with the same plan. */
bool svcPg_Handback(tpService *svc, const svcJob *job, const char *interim, const char *file)
{
    size_t size = 0, zlen = 0;
    unsigned char *z = svcPg_CompressFile(svc, job->id, file, &size, &zlen);
    if (!z) {
        return false;
    }
    PGresult *r = PQexec(svc->pg->conn, "BEGIN");
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    svc->pg->in_tx = ok;
    if (ok) {
        svcPgParams p = {0};
        p_int(&p, job->id);
        p_text(&p, svc->pg->node);
        p_int(&p, job->attempt);
        p_text(&p, interim);
        r = svcPg_Exec(svc, "hand back",
                       "WITH u AS (UPDATE jobs SET status = 'queued', node = NULL, lease_until = NULL, started = NULL,"
                       " finished = NULL, iterations = 0, nodes = 0, solutions = 0, best_quality = NULL, elapsed = 0,"
                       " summary = NULL, error_code = NULL, error_message = NULL, has_plan = false, has_tree = false,"
                       " bytes = 0, record_bytes = octet_length(request) + COALESCE(octet_length(script), 0),"
                       " interim = $4 WHERE id = $1 AND node = $2 AND attempt = $3 AND status = 'running'"
                       " AND ctl IS NULL RETURNING id) SELECT id, pg_notify('tplan', 'q') FROM u",
                       &p, 0);
        ok = r && PQntuples(r) == 1;
        if (r && !ok) {
            svcLog(svc, "job %lld: this node no longer holds its lease, or a cancel or stop was asked: not handed back",
                   (long long)job->id);
        }
        PQclear(r);
    }
    if (ok) {
        svcPgParams p = {0};
        p_int(&p, job->id);
        p_text(&p, file);
        p_int(&p, (long long)size);
        p_bin(&p, z, zlen);
        ok = svcPg_Command(svc, "hand back",
                           "INSERT INTO job_files(job_id, name, size, data) VALUES($1, $2, $3, $4)"
                           " ON CONFLICT (job_id, name) DO UPDATE SET size = $3, data = $4",
                           &p);
        svcPgParams d = {0};
        p_int(&d, job->id);
        p_text(&d, file);
        ok =
            ok && svcPg_Command(svc, "hand back",
                                "DELETE FROM job_files WHERE job_id = $1 AND name LIKE 'interim.%' AND name <> $2", &d);
    }
    if (svc->pg->in_tx) {
        r = PQexec(svc->pg->conn, ok ? "COMMIT" : "ROLLBACK");
        if (ok && PQresultStatus(r) != PGRES_COMMAND_OK) {
            svcPg_Failed(svc, r, "hand back");
            ok = false;
        }
        PQclear(r);
        svc->pg->in_tx = false;
    }
    free(z);
    return ok;
}

/* A stop of a queued job that a drain handed back (docs/service.md#drain): it ends approximate with its
 * interim plan, in one transaction (its file renamed plan.json in job_files, the summary of the run that
 * made it). False if it has none, or on error: the caller cancels it as any queued job. */
bool svcPg_StopWithInterim(tpService *svc, int64_t id)
{
    svcPg *pg = svc->pg;
    if (!svcPg_Command(svc, "stop", "BEGIN", NULL)) {
        return false;
    }
    pg->in_tx = true;
    svcPgParams p = {0};
    p_int(&p, id);
    PGresult *r = svcPg_Exec(svc, "stop",
                             "SELECT interim FROM jobs WHERE id = $1 AND status = 'queued' AND interim IS NOT NULL"
                             " FOR UPDATE",
                             &p, 0);
    cJSON *o = r && PQntuples(r) == 1 ? cJSON_Parse(PQgetvalue(r, 0, 0)) : NULL;
    PQclear(r);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "n");
    cJSON *sum = cJSON_GetObjectItemCaseSensitive(o, "summary");
    char *summary = cJSON_IsObject(sum) ? tpJson_PrintChecked(sum) : NULL;
    bool ok = cJSON_IsNumber(n) && n->valuedouble >= 1 && summary;
    char name[64];
    svcInterimFile(ok ? (int)n->valuedouble : 0, name, sizeof name);
    long long bytes = 0;
    if (ok) {
        svcPgParams f = {0};
        p_int(&f, id);
        p_text(&f, name);
        r = svcPg_Exec(
            svc, "stop",
            "UPDATE job_files SET name = 'plan.json' WHERE job_id = $1 AND name = $2 RETURNING octet_length(data)", &f,
            0);
        ok = r && PQntuples(r) == 1;
        bytes = ok ? atoll(PQgetvalue(r, 0, 0)) : 0;
        PQclear(r);
    }
    if (ok) {
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(o, "quality");
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "iterations");
        const cJSON *nd = cJSON_GetObjectItemCaseSensitive(o, "nodes");
        const cJSON *el = cJSON_GetObjectItemCaseSensitive(o, "elapsed");
        svcPgParams u = {0};
        p_int(&u, id);
        p_double(&u, svcNow());
        p_text(&u, summary);
        p_int(&u, cJSON_IsNumber(it) ? (long long)it->valuedouble : 0);
        p_int(&u, cJSON_IsNumber(nd) ? (long long)nd->valuedouble : 0);
        p_double(&u, cJSON_IsNumber(el) ? el->valuedouble : 0);
        p_double(&u, cJSON_IsNumber(q) ? q->valuedouble : NAN);
        p_int(&u, bytes);
        r = svcPg_Exec(
            svc, "stop",
            "WITH u AS (UPDATE jobs SET status = 'approximate', finished = $2, summary = $3, iterations = $4,"
            " nodes = $5, elapsed = $6, best_quality = $7, bytes = $8, has_plan = true, interim = NULL,"
            " record_bytes = octet_length(request) + COALESCE(octet_length(script), 0) + octet_length($3::text)"
            " WHERE id = $1 AND status = 'queued' RETURNING id) SELECT pg_notify('tplan', id::text) FROM u",
            &u, 0);
        ok = r && PQntuples(r) == 1;
        PQclear(r);
    }
    r = PQexec(pg->conn, ok ? "COMMIT" : "ROLLBACK");
    if (ok && PQresultStatus(r) != PGRES_COMMAND_OK) {
        svcPg_Failed(svc, r, "stop");
        ok = false;
    }
    PQclear(r);
    pg->in_tx = false;
    if (ok) {
        svcLog(svc, "job %lld stopped while queued: its interim plan %d is its plan", (long long)id,
               (int)n->valuedouble);
    }
    free(summary);
    cJSON_Delete(o);
    return ok;
}

bool svcPg_FetchFile(tpService *svc, int64_t id, const char *name)
{
    char path[4096];
    svcJobPath(svc, id, name, path, sizeof path);
    struct stat sb;
    if (stat(path, &sb) == 0) {
        return true; /* cached (or this node planned it and still has it) */
    }
    svcPgParams p = {0};
    p_int(&p, id);
    p_text(&p, name);
    PGresult *r = svcPg_Exec(svc, "file", "SELECT size, data FROM job_files WHERE job_id = $1 AND name = $2", &p, 1);
    bool ok = r && PQntuples(r) == 1 && PQgetlength(r, 0, 0) == 8;
    unsigned char *out = NULL;
    uLongf n = 0;
    if (ok) {
        const unsigned char *b = (const unsigned char *)PQgetvalue(r, 0, 0); /* int8, network order */
        uint64_t size = 0;
        for (int i = 0; i < 8; ++i) {
            size = size << 8 | b[i];
        }
        n = (uLongf)size;
        out = malloc(size > 0 ? size : 1);
        ok = out && size <= PG_MAX_FILE &&
             uncompress(out, &n, (const Bytef *)PQgetvalue(r, 0, 1), (uLong)PQgetlength(r, 0, 1)) == Z_OK && n == size;
    }
    PQclear(r);
    if (ok) {
        char dir[4096], tmp[4200];
        svcJobPath(svc, id, NULL, dir, sizeof dir);
        mkdir(dir, 0755);
        snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
        FILE *f = fopen(tmp, "wb");
        ok = f && fwrite(out, 1, n, f) == n;
        ok = f && fclose(f) == 0 && ok;
        ok = ok && rename(tmp, path) == 0;
        if (!ok) {
            svcLog(svc, "job %lld: cannot cache %s: %s", (long long)id, path, strerror(errno));
            unlink(tmp);
        }
    }
    free(out);
    return ok;
}
