/* tplan service: what the PostgreSQL store's files share (docs/service.md#cluster): store_pg_conn.c
 * (the connection and its statements), store_pg_files.c (a claimed job's writes under its lease and
 * the files beside the records: a finished job's, a drain's interim plan, a front end's cached copy)
 * and store_pg.c (the store's and the cluster's operations over them: the records, the queue, the
 * leases, the listener). Each depends only on those before it. Called with svc->mu held. */
#ifndef TP_SERVICE_STORE_PG_INTERNAL_H
#define TP_SERVICE_STORE_PG_INTERNAL_H

#include <libpq-fe.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>

#include "store.h"

#define PG_MAX_FILE ((size_t)1 << 30) /* a job's file of at most 1 GiB (bytea's limit) */

/// The PostgreSQL backend's state (svc->pg).
typedef struct svcPg {
    PGconn *conn;        /* svc->mu held */
    char node[160];      /* this process's node id: host:pid:start */
    double next_renew;   /* tpClock time */
    double next_reclaim; /* tpClock time */
    bool ctl_pending;    /* a cancel/stop request was announced: renew (and read it) at once */
    bool in_tx;          /* inside BEGIN..COMMIT: a lost connection fails the statement (no retry
                            outside the transaction) */
    bool unreachable;    /* the reconnection's backoff failed: operations fail at once until it is back */
    double next_try;     /* tpClock time of the next reconnection attempt while unreachable */
    uint64_t claimed, reclaimed, finished, lost;
    pthread_t listener;
    bool listening;
    int stop_pipe[2];
    double next_due; /* tpClock time the first scheduled job (run_at) falls due, as the last claim that found
                        none due saw it; 0 = none: the scheduler's loop wakes then to claim it */
} svcPg;

/* ---- parameters ------------------------------------------------------------------------------ */

#define PG_MAXP 24
typedef struct svcPgParams {
    int n;
    const char *v[PG_MAXP];
    int len[PG_MAXP];
    int fmt[PG_MAXP];
    char buf[PG_MAXP][40];
} svcPgParams;

static inline void p_text(svcPgParams *p, const char *s)
{
    p->v[p->n] = s;
    p->len[p->n] = 0;
    p->fmt[p->n] = 0;
    p->n++;
}

static inline void p_int(svcPgParams *p, long long x)
{
    snprintf(p->buf[p->n], sizeof p->buf[0], "%lld", x);
    p_text(p, p->buf[p->n]);
}

static inline void p_double(svcPgParams *p, double x)
{
    if (!isfinite(x)) {
        p_text(p, NULL);
        return;
    }
    snprintf(p->buf[p->n], sizeof p->buf[0], "%.17g", x);
    p_text(p, p->buf[p->n]);
}

static inline void p_time(svcPgParams *p, double t)
{
    p_double(p, t > 0 ? t : NAN);
}

static inline void p_bool(svcPgParams *p, bool b)
{
    p_text(p, b ? "t" : "f");
}

static inline void p_bin(svcPgParams *p, const void *data, size_t len)
{
    p->v[p->n] = data;
    p->len[p->n] = (int)len;
    p->fmt[p->n] = 1;
    p->n++;
}

/* ---- store_pg_conn.c ---- */
/// A new connection to the --store database (notices quieted); NULL with the reason in err.
PGconn *svcPg_Connect(const tpService *svc, char *err, size_t errlen);
/// The --store string as messages show it (no password) into buf.
const char *svcPg_ShownStore(const tpService *svc, char *buf, size_t cap);
/// A failure about the store into err: "--store SHOWN: ..." with no password, neither the string's
/// nor any libpq quoted from it.
void svcPg_StoreError(const tpService *svc, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/// Runs one statement; retried once after a reconnection if the connection was lost. NULL on error
/// (logged with what; svcPg_Failed counted it).
PGresult *svcPg_Exec(tpService *svc, const char *what, const char *sql, const svcPgParams *p, int result_format);
/// svcPg_Exec of a statement whose rows are not read; false on error.
bool svcPg_Command(tpService *svc, const char *what, const char *sql, const svcPgParams *p);
/// Counts a failed statement (svc->store_errors); a write refused for want of room or by a read-only
/// database sets svc->store_failed for a while.
void svcPg_Failed(tpService *svc, const PGresult *r, const char *what);
/// One reconnection attempt (never waits: at most one every PG_RETRY_EVERY s while the database is away).
bool svcPg_Reconnect(tpService *svc);
/// The first line of libpq's message msg into out.
void svcPg_FirstLine(const char *msg, char *out, size_t cap);

/* ---- store_pg_files.c ---- */
/// The job's record, only while this node holds its lease (node + attempt); false if it lost it.
bool svcPg_Update(tpService *svc, const svcJob *job);
/// A job's file from its folder compressed (zlib) in memory (*size its bytes, *zlen the compressed
/// ones); NULL if it is missing.
unsigned char *svcPg_CompressFile(tpService *svc, int64_t id, const char *name, size_t *size, size_t *zlen);
/// svcCluster_Finish (service_internal.h).
bool svcPg_Finish(tpService *svc, svcJob *job);
/// svcStore_Handback (service_internal.h).
bool svcPg_Handback(tpService *svc, const svcJob *job, const char *interim, const char *file);
/// A stop of queued job id that a drain handed back: ends it approximate with its interim plan in one
/// transaction; false if it has none (or on error).
bool svcPg_StopWithInterim(tpService *svc, int64_t id);
/// svcCluster_FetchFile (service_internal.h).
bool svcPg_FetchFile(tpService *svc, int64_t id, const char *name);

#endif
