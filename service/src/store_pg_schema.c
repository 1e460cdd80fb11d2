/* tplan service: the PostgreSQL store's schema and its migrations (store_pg.c opens the store and
 * calls svcPgSchema_Migrate on its connection). */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

#define PG_LOCK_KEY "727110029" /* pg_advisory_xact_lock key of the migrations */

static void first_line(const char *msg, char *out, size_t cap)
{
    snprintf(out, cap, "%s", msg ? msg : "");
    out[strcspn(out, "\n")] = '\0';
}

/* Migration n (1-based) takes the schema from version n - 1 to n. Add a row, never edit one. */
static const struct {
    const char *description;
    const char *sql;
} migrations[SVC_PG_SCHEMA_VERSION] = {
    {"jobs, their files, the nodes",
     "CREATE TABLE jobs("
     " id bigserial PRIMARY KEY,"
     " status text NOT NULL, domain text NOT NULL, request text NOT NULL, script bytea,"
     " idem_key text UNIQUE, idem_hash text,"
     " created double precision NOT NULL, started double precision, finished double precision,"
     " iterations bigint NOT NULL DEFAULT 0, nodes bigint NOT NULL DEFAULT 0,"
     " solutions integer NOT NULL DEFAULT 0, best_quality double precision,"
     " elapsed double precision NOT NULL DEFAULT 0,"
     " summary text, error_code text, error_message text,"
     " has_plan boolean NOT NULL DEFAULT false, has_tree boolean NOT NULL DEFAULT false,"
     " time_limit double precision NOT NULL, memory_mb integer NOT NULL,"
     " name text, tags text, bytes bigint NOT NULL DEFAULT 0,"
     " client text NOT NULL DEFAULT '',"                   /* the submitter's address (quota) */
     " sync boolean NOT NULL DEFAULT false,"               /* POST /v1/plan: claimed first */
     " sync_deadline double precision NOT NULL DEFAULT 0," /* unix s */
     " parallel integer NOT NULL DEFAULT 1,"               /* worker processes it takes ("jobs") */
     " node text, attempt integer NOT NULL DEFAULT 0,"     /* the lease: who runs it, which run */
     " lease_until double precision,"                      /* unix s of the database's clock */
     " ctl text, ctl_code text, ctl_message text);"        /* a pending cancel ('c') or stop ('s') */
     "CREATE INDEX jobs_queue ON jobs(sync DESC, id) WHERE status = 'queued';"
     "CREATE INDEX jobs_running ON jobs(node) WHERE status = 'running';"
     "CREATE INDEX jobs_by_status ON jobs(status, id);"
     "CREATE TABLE job_files(job_id bigint NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
     " name text NOT NULL, size bigint NOT NULL, data bytea NOT NULL, PRIMARY KEY(job_id, name));"
     "ALTER TABLE job_files ALTER COLUMN data SET STORAGE EXTERNAL;" /* zlib already compressed it */
     "CREATE TABLE nodes(id text PRIMARY KEY, host text NOT NULL, pid integer NOT NULL,"
     " http boolean NOT NULL, workers integer NOT NULL, interactive_workers integer NOT NULL,"
     " started double precision NOT NULL, heartbeat double precision NOT NULL,"
     " running integer NOT NULL DEFAULT 0, claimed bigint NOT NULL DEFAULT 0,"
     " finished bigint NOT NULL DEFAULT 0, reclaimed bigint NOT NULL DEFAULT 0,"
     " lost bigint NOT NULL DEFAULT 0);"},
    /* retention reads sizes kept beside the record, from an index only: octet_length()
       of a TOASTed value reads only its pointer, but the pass scanned every job's row in the heap;
       SQLite's length() read every request whole. The one full read is this migration's */
    {"record sizes for retention",
     "ALTER TABLE jobs ADD COLUMN record_bytes bigint NOT NULL DEFAULT 0;"
     "UPDATE jobs SET record_bytes = octet_length(request) + COALESCE(octet_length(script), 0) +"
     " COALESCE(octet_length(summary), 0) + COALESCE(octet_length(error_message), 0);"
     /* status in it too: without, PostgreSQL 15 plans no index-only scan (a scan of the heap in id
        order: 1,029 buffers for 5,000 jobs, 43 with it) */
     "CREATE INDEX jobs_finished ON jobs(id DESC) INCLUDE (status, created, finished, record_bytes, bytes)"
     " WHERE status NOT IN ('queued', 'running');"
     /* the request as job objects show it (NULL for older rows: made from request) */
     "ALTER TABLE jobs ADD COLUMN request_shown text;"},
    /* POST /v1/jobs/{id}/retry: a new job that runs a failed or cancelled one again, linked to it */
    /* numeric priorities: the queue's index in the claim's order (sync, then priority, then id); run_at */
    {"retry_of, priority, run_at, retries",
     "ALTER TABLE jobs ADD COLUMN retry_of bigint;"
     "ALTER TABLE jobs ADD COLUMN priority integer NOT NULL DEFAULT 0;"
     "ALTER TABLE jobs ADD COLUMN run_at double precision NOT NULL DEFAULT 0;"
     "ALTER TABLE jobs ADD COLUMN retries integer NOT NULL DEFAULT 0;"
     "ALTER TABLE jobs ADD COLUMN failures integer NOT NULL DEFAULT 0;"
     "DROP INDEX IF EXISTS jobs_queue;"
     "CREATE INDEX jobs_queue ON jobs(sync DESC, priority DESC, id) WHERE status = 'queued';"},
    /* a job whose lease ran out is queued again once, failed the second time; a
       draining node says so in its heartbeat (GET /v1/cluster) */
    {"lease_losses, nodes.draining", "ALTER TABLE jobs ADD COLUMN lease_losses integer NOT NULL DEFAULT 0;"
                                     "ALTER TABLE nodes ADD COLUMN draining boolean NOT NULL DEFAULT false;"},
    /* a drain's hand-back keeps the job's best plan as an interim plan (its file in job_files, named
       interim.N.json) until the job ends */
    {"interim", "ALTER TABLE jobs ADD COLUMN interim text;"},
};

bool svcPgSchema_Migrate(tpService *svc, PGconn *c, char *err, size_t errlen)
{
    PGresult *r = PQexec(c, "BEGIN; SELECT pg_advisory_xact_lock(" PG_LOCK_KEY ")");
    bool ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
    int version = -1;
    char m[512] = "";
    if (ok) {
        r = PQexec(c, "SELECT to_regclass('tplan_schema') IS NOT NULL,"
                      " (SELECT count(*) FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace"
                      "  WHERE n.nspname = current_schema() AND k.relkind IN ('r', 'v', 'm', 'p', 'f'))");
        ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
        bool ours = ok && PQgetvalue(r, 0, 0)[0] == 't';
        long tables = ok ? atol(PQgetvalue(r, 0, 1)) : 0;
        PQclear(r);
        if (ok && !ours && tables > 0) {
            snprintf(err, errlen,
                     "not a tplan database: it holds %ld tables of another application and no "
                     "tplan_schema (give tplan a database of its own: createdb tplan)",
                     tables);
            PQclear(PQexec(c, "ROLLBACK"));
            return false;
        }
        if (ok && ours) {
            r = PQexec(c, "SELECT COALESCE(max(version), 0) FROM tplan_schema");
            ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
            version = ok ? atoi(PQgetvalue(r, 0, 0)) : -1;
            PQclear(r);
        } else if (ok) {
            r = PQexec(c, "CREATE TABLE tplan_schema(version integer PRIMARY KEY, description text NOT NULL,"
                          " applied double precision NOT NULL)");
            ok = PQresultStatus(r) == PGRES_COMMAND_OK;
            PQclear(r);
            version = 0;
        }
    }
    if (ok && version > SVC_PG_SCHEMA_VERSION) {
        snprintf(err, errlen,
                 "the schema is version %d, newer than this tplan's (%d): run a tplan at least as "
                 "new as the one that upgraded it",
                 version, SVC_PG_SCHEMA_VERSION);
        PQclear(PQexec(c, "ROLLBACK"));
        return false;
    }
    for (int v = version + 1; ok && v <= SVC_PG_SCHEMA_VERSION; ++v) {
        r = PQexec(c, migrations[v - 1].sql);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok) {
            first_line(PQresultErrorMessage(r), m, sizeof m);
        }
        PQclear(r);
        if (ok) {
            char vs[16];
            snprintf(vs, sizeof vs, "%d", v);
            const char *vals[2] = {vs, migrations[v - 1].description};
            r = PQexecParams(c,
                             "INSERT INTO tplan_schema(version, description, applied)"
                             " VALUES($1, $2, extract(epoch FROM clock_timestamp()))",
                             2, NULL, vals, NULL, NULL, 0);
            ok = PQresultStatus(r) == PGRES_COMMAND_OK;
            PQclear(r);
            svcLog(svc, "store: schema migrated to version %d (%s)", v, migrations[v - 1].description);
        }
    }
    if (ok) {
        r = PQexec(c, "COMMIT");
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
    }
    if (!ok) {
        if (!m[0]) {
            first_line(PQerrorMessage(c), m, sizeof m);
        }
        snprintf(err, errlen, "cannot set up the schema: %s", m);
        PQclear(PQexec(c, "ROLLBACK"));
    }
    return ok;
}
