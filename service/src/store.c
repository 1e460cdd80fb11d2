/* tplan service: the job store's front door. --store chooses the backend (store.h): the embedded
 * SQLite file (the default, DATA/tplan.db, or sqlite:PATH) or a PostgreSQL database shared by the
 * nodes of a cluster (postgresql://...); every svcStore_* call goes to that backend's table. */
#include <stdio.h>
#include <string.h>

#include "store.h"
#include "tp/base.h"

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
#if TP_HAVE_POSTGRESQL
        svc->store = &svcStorePg;
        svc->cluster = true;
#else
        snprintf(err, errlen,
                 "--store postgresql://...: this tplan was built without the PostgreSQL store "
                 "(configured with -DTP_POSTGRESQL=OFF); use --store sqlite:PATH");
        return false;
#endif
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
    const bool ok = svc->store->insert(svc, job, idem_key, idem_hash);
    if (ok) {
        TP_VALIDATE(svcValid_Job, job); /* its id is set now */
    }
    return ok;
}

bool svcStore_Update(tpService *svc, const svcJob *job)
{
    TP_VALIDATE(svcValid_Job, job);
    return svc->store->update(svc, job);
}

bool svcStore_Handback(tpService *svc, const svcJob *job, const char *interim, const char *interim_file)
{
    TP_ASSERT(job->status == SVC_RUNNING && interim && interim_file);
    return svc->store->handback(svc, job, interim, interim_file);
}

svcJob *svcStore_Get(tpService *svc, int64_t id, bool with_script)
{
    return svc->store->get(svc, id, with_script);
}

svcJob *svcStore_GetRun(tpService *svc, int64_t id)
{
    return svc->store->get_run(svc, id);
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

/* ---- the cluster's operations ---- */

static const svcClusterOps *cluster_ops(const tpService *svc)
{
    TP_ASSERT(svc->cluster && svc->store && svc->store->cluster); /* only a shared store's node asks */
    return svc->store->cluster;
}

svcJob *svcCluster_Claim(tpService *svc, bool batch, int max_parallel)
{
    return cluster_ops(svc)->claim(svc, batch, max_parallel);
}

void svcCluster_Progress(tpService *svc, svcJob *job)
{
    cluster_ops(svc)->progress(svc, job);
}

bool svcCluster_Finish(tpService *svc, svcJob *job)
{
    return cluster_ops(svc)->finish(svc, job);
}

double svcCluster_Tick(tpService *svc)
{
    return cluster_ops(svc)->tick(svc);
}

bool svcCluster_RequestEnd(tpService *svc, int64_t id, char what, const char *code, const char *message)
{
    return cluster_ops(svc)->request_end(svc, id, what, code, message);
}

bool svcCluster_DropQueued(tpService *svc, int64_t id)
{
    return cluster_ops(svc)->drop_queued(svc, id);
}

bool svcCluster_CountQueued(tpService *svc, const char *client, int *total, int *mine)
{
    return cluster_ops(svc)->count_queued(svc, client, total, mine);
}

bool svcCluster_FetchFile(tpService *svc, int64_t id, const char *name)
{
    return cluster_ops(svc)->fetch_file(svc, id, name);
}

bool svcCluster_StartListener(tpService *svc, char *err, size_t errlen)
{
    return cluster_ops(svc)->start_listener(svc, err, errlen);
}

void svcCluster_StopListener(tpService *svc)
{
    cluster_ops(svc)->stop_listener(svc);
}

bool svcCluster_Ping(tpService *svc)
{
    return cluster_ops(svc)->ping(svc);
}

char *svcCluster_MetricsText(tpService *svc)
{
    return cluster_ops(svc)->metrics_text(svc);
}

char *svcCluster_Json(tpService *svc)
{
    return cluster_ops(svc)->cluster_json(svc);
}
