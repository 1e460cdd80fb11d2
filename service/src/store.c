/* tplan service: the job store's front door. --store chooses the backend (store.h): the embedded
 * SQLite file (the default, DATA/tplan.db, or sqlite:PATH) or a PostgreSQL database shared by the
 * nodes of a cluster (postgresql://...); every svcStore_* call goes to that backend's table. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <string.h>

#include "store.h"
#include "tp/base.h"

/* ---- passwords in a connection string: never in a message (issue 40) ---- */

/* The next password in spec at or after *from: its offset and length (0 = none left). Generous: what
 * libpq might read as a password, and more (an odd string is cut at the widest place). */
static size_t next_secret(const char *spec, size_t *from, size_t *len)
{
    const char *s = spec + *from;
    const char *uri = *from == 0 ? strstr(spec, "://") : NULL;
    if (uri) { /* scheme://user:PASSWORD@host...: up to the last '@' before the path */
        const char *a = uri + 3, *end = a + strcspn(a, "/"), *at = NULL;
        for (const char *q = a; q < end; ++q) {
            at = *q == '@' ? q : at;
        }
        const char *colon = at ? memchr(a, ':', (size_t)(at - a)) : NULL;
        if (colon && at > colon + 1) {
            *len = (size_t)(at - colon - 1);
            *from = (size_t)(at - spec);
            return (size_t)(colon + 1 - spec);
        }
    }
    for (const char *k = strstr(s, "password"); k; k = strstr(k + 1, "password")) {
        const char *v = k + 8;
        v += strspn(v, " \t");
        if (*v != '=') {
            continue;
        }
        ++v;
        v += strspn(v, " \t");
        const char *e = v;
        if (*e == '\'') { /* key='quoted value' with \' and \\ */
            for (++e; *e && *e != '\''; ++e) {
                e += e[0] == '\\' && e[1];
            }
            e += *e == '\'';
        } else {
            e += strcspn(e, " \t\n&");
        }
        if (e > v) {
            *len = (size_t)(e - v);
            *from = (size_t)(e - spec);
            return (size_t)(v - spec);
        }
    }
    *len = 0;
    return 0;
}

void tpService_RedactStore(const char *spec, char *out, size_t cap)
{
    if (cap == 0) {
        return;
    }
    size_t o = 0, copied = 0, from = 0, len = 0;
    spec = spec ? spec : "";
    for (;;) {
        size_t at = next_secret(spec, &from, &len);
        size_t upto = len ? at : strlen(spec);
        for (size_t i = copied; i < upto && o + 1 < cap; ++i) {
            out[o++] = spec[i];
        }
        if (!len) {
            break;
        }
        for (const char *m = "***"; *m && o + 1 < cap; ++m) {
            out[o++] = *m;
        }
        copied = at + len;
    }
    out[o] = '\0';
}

void svcStore_RedactIn(const char *spec, char *msg)
{
    size_t from = 0, len = 0;
    for (;;) {
        size_t at = next_secret(spec ? spec : "", &from, &len);
        if (!len) {
            return;
        }
        char *p = msg;
        for (char *hit; (hit = memmem(p, strlen(p), spec + at, len)); p = hit + len) {
            memset(hit, '*', len); /* the same length: the message stays in its buffer */
        }
    }
}

bool svcStore_IsPostgres(const char *spec)
{
    return spec && (strncmp(spec, "postgresql://", 13) == 0 || strncmp(spec, "postgres://", 11) == 0);
}

bool svcStore_Failed(tpService *svc)
{
    if (svc->store_failed && svc->store_failed_until > 0 && tpClock_Now() >= svc->store_failed_until) {
        svc->store_failed = false;
        svc->store_failed_until = 0;
        svcLog(svc, "store: no write refused for a while: writes (new jobs, claims) are tried again");
    }
    return svc->store_failed;
}

bool svcStore_Open(tpService *svc, char *err, size_t errlen)
{
    const char *spec = svc->def.store;
    if (!spec || strncmp(spec, "sqlite:", 7) == 0) {
        if (spec && !spec[7]) {
            snprintf(err, errlen, "--store sqlite:PATH: the path is empty");
            return false;
        }
        svc->store = &svcStoreSqlite;
    } else if (svcStore_IsPostgres(spec)) {
        svc->store = &svcStorePg;
        svc->cluster = true;
    } else {
        char shown[256];
        tpService_RedactStore(spec, shown, sizeof shown);
        snprintf(err, errlen, "--store %s: expected sqlite:PATH or postgresql://[user@]host[:port]/database", shown);
        return false;
    }
    return svc->store->open(svc, err, errlen);
}

void svcStore_Close(tpService *svc)
{
    if (svc->store) {
        svc->store->close(svc);
    }
}

bool svcStore_Insert(tpService *svc, svcJob *job, const char *idem_key, const char *idem_hash)
{
    return svc->store->insert(svc, job, idem_key, idem_hash);
}

bool svcStore_Update(tpService *svc, const svcJob *job)
{
    return svc->store->update(svc, job);
}

svcJob *svcStore_Get(tpService *svc, int64_t id, bool with_script)
{
    return svc->store->get(svc, id, with_script);
}

int64_t svcStore_FindIdem(tpService *svc, const char *key, char *hash, size_t hashcap)
{
    return svc->store->find_idem(svc, key, hash, hashcap);
}

int64_t *svcStore_List(tpService *svc, const svcListFilter *f, int *n)
{
    return svc->store->list(svc, f, n);
}

bool svcStore_LoadScript(tpService *svc, svcJob *job)
{
    return svc->store->load_script(svc, job);
}

bool svcStore_Delete(tpService *svc, int64_t id)
{
    return svc->store->del(svc, id);
}

bool svcStore_DeleteMany(tpService *svc, const int64_t *ids, int n)
{
    return svc->store->delete_many(svc, ids, n);
}

void svcStore_Compact(tpService *svc)
{
    if (svc->store->compact) {
        svc->store->compact(svc);
    }
}

int64_t *svcStore_Expired(tpService *svc, double now, int *n)
{
    return svc->store->expired(svc, now, n);
}

int64_t *svcStore_AllIds(tpService *svc, int *n)
{
    return svc->store->all_ids(svc, n);
}

void svcStore_Counts(tpService *svc, int64_t counts[SVC_NSTATUS])
{
    svc->store->counts(svc, counts);
}

svcJob **svcStore_Recover(tpService *svc, int *n)
{
    return svc->store->recover(svc, n);
}
