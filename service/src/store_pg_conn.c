/* tplan service: the PostgreSQL store's connection (store_pg_internal.h): one per process under
 * svc->mu, a statement retried once after a reconnection that never waits, the store's failures
 * counted and a write refused for want of room or by a read-only database noted (svc->store_failed). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "store_pg_internal.h"
#include "tp/base.h"

#define PG_RETRY_EVERY 0.5 /* s between two reconnection attempts while the database is away */

static void quiet_notices(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* The first line of libpq's message (they end with a newline, some span two lines). */
void svcPg_FirstLine(const char *msg, char *out, size_t cap)
{
    snprintf(out, cap, "%s", msg ? msg : "");
    out[strcspn(out, "\n")] = '\0';
}

/* The --store string as messages show it (no password: tpService_RedactStore), into a buffer of
 * the caller's. */
const char *svcPg_ShownStore(const tpService *svc, char *buf, size_t cap)
{
    tpService_RedactStore(svc->def.store, buf, cap);
    return buf;
}

/* Writes the message of a failure about the store into err: "--store SHOWN: ..." with no password,
 * neither the string's nor any libpq quoted from it. */
void svcPg_StoreError(const tpService *svc, char *err, size_t errlen, const char *fmt, ...)
{
    char shown[1024], what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    svcStore_RedactIn(svc->def.store, what);
    snprintf(err, errlen, "--store %s: %s", svcPg_ShownStore(svc, shown, sizeof shown), what);
}

PGconn *svcPg_Connect(const tpService *svc, char *err, size_t errlen)
{
    const char *kw[6], *val[6];
    int i = 0;
    kw[i] = "connect_timeout"; /* before dbname: the connection string may set its own */
    val[i++] = "5";
    kw[i] = "application_name";
    val[i++] = "tplan";
    kw[i] = "dbname";
    val[i++] = svc->def.store;
    if (svc->def.store_password) {
        kw[i] = "password";
        val[i++] = svc->def.store_password;
    }
    kw[i] = NULL;
    val[i] = NULL;
    PGconn *c = PQconnectdbParams(kw, val, 1);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        char m[512];
        svcPg_FirstLine(c ? PQerrorMessage(c) : "out of memory", m, sizeof m);
        svcPg_StoreError(svc, err, errlen, "cannot connect: %s", m);
        PQfinish(c);
        return NULL;
    }
    PQsetNoticeProcessor(c, quiet_notices, NULL);
    return c;
}

/* Reconnects the store's connection: one attempt now, then, while the database stays away, at most
 * one every PG_RETRY_EVERY s, each failing at once: nothing waits under svc->mu, which every request
 * needs (a backoff of 6 s there stalled every request, health included, at the start of an outage).
 * A restart of the database is ridden over by the callers' own retries: a node writes a result the
 * store did not take again (sched.c retry_unstored), claims and lease renewals come round every
 * second, a client told 503 store_unavailable retries after Retry-After. False if still away. */
bool svcPg_Reconnect(tpService *svc)
{
    svcPg *pg = svc->pg;
    double now = tpClock_Now();
    if (pg->unreachable && now < pg->next_try) {
        return false;
    }
    pg->next_try = now + PG_RETRY_EVERY;
    PQreset(pg->conn);
    if (PQstatus(pg->conn) == CONNECTION_OK) {
        svcLog(svc, pg->unreachable ? "store: PostgreSQL is back; reconnected" : "store: reconnected to PostgreSQL");
        pg->unreachable = false;
        return true;
    }
    if (!pg->unreachable) {
        char m[512];
        svcPg_FirstLine(PQerrorMessage(pg->conn), m, sizeof m);
        svcLog(svc,
               "store: PostgreSQL unreachable: %s; operations fail at once until it is back (a reconnection is "
               "tried at most every %g s)",
               m, PG_RETRY_EVERY);
        pg->unreachable = true;
    }
    return false;
}

/* A statement refused for want of room or write access (SQLSTATE class 53: disk full, out of memory;
 * 58: I/O error; 25006: a read-only transaction, e.g. default_transaction_read_only): the store
 * refuses writes. New jobs are refused with 503 and health says store_failed until PG_FAILED_HOLD s
 * pass without another such refusal (the disk may be given room: no restart needed, unlike SQLite's
 * file). Counted as a store error either way. */
#define PG_FAILED_HOLD 5.0
void svcPg_Failed(tpService *svc, const PGresult *r, const char *what)
{
    ++svc->store_errors;
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (!state || !(strncmp(state, "53", 2) == 0 || strncmp(state, "58", 2) == 0 || strcmp(state, "25006") == 0)) {
        return;
    }
    if (!svc->store_failed) {
        svcLog(svc,
               "store: %s: PostgreSQL refuses the write (SQLSTATE %s): no new jobs and /v1/health answers 503 "
               "store_failed until writes are taken again",
               what, state);
    }
    svc->store_failed = true;
    svc->store_failed_until = tpClock_Now() + PG_FAILED_HOLD;
}

/* Runs one statement; retried once after a reconnection if the connection was lost. NULL on
 * error (logged with what). */
PGresult *svcPg_Exec(tpService *svc, const char *what, const char *sql, const svcPgParams *p, int result_format)
{
    svcPg *pg = svc->pg;
    for (int attempt = 0;; ++attempt) {
        PGresult *r = PQexecParams(pg->conn, sql, p ? p->n : 0, NULL, p ? p->v : NULL, p ? p->len : NULL,
                                   p ? p->fmt : NULL, result_format);
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
            return r;
        }
        char m[512];
        svcPg_FirstLine(PQresultErrorMessage(r), m, sizeof m);
        if (PQstatus(pg->conn) == CONNECTION_BAD && attempt == 0 && !pg->in_tx) {
            if (!pg->unreachable) {
                svcLog(svc, "store: %s: connection lost (%s); reconnecting", what, m);
            }
            if (svcPg_Reconnect(svc)) {
                PQclear(r);
                continue;
            }
        } else {
            svcLog(svc, "store: %s: %s", what, m);
        }
        svcPg_Failed(svc, r, what); /* the operation fails (not when a retry after a reconnection may succeed) */
        PQclear(r);
        return NULL;
    }
}

bool svcPg_Command(tpService *svc, const char *what, const char *sql, const svcPgParams *p)
{
    PGresult *r = svcPg_Exec(svc, what, sql, p, 0);
    PQclear(r);
    return r != NULL;
}
