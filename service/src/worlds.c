/* tplan service: GET /v1/jobs/{id}/worlds?where=QUERY&rank=KEYS (docs/service.md):
 * the many-worlds browser's answer for a finished job's plan -- every world's summary, whether it
 * satisfies the space-time query and the matching worlds ranked -- from core's one evaluator
 * (tpQuery_Browse, tp/query.h: the CLI's `tplan worlds --json` gives the same bytes). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http_internal.h"
#include "tp/query.h"

enum MHD_Result svcApi_Worlds(svcReq *rq, int64_t id)
{
    const char *bad = svcHttp_UnknownQuery(rq, "where, rank");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "where, rank");
    }
    const char *where = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, "where");
    const char *rank = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, "rank");
    if (where && strlen(where) > TP_QUERY_MAX_TEXT) {
        return svcHttp_Error(rq, 400, "bad_field", "where", "where: longer than %d bytes", TP_QUERY_MAX_TEXT);
    }
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    svcJob *active = svcApi_LocalJob(svc, id);
    svcJob *job = active ? NULL : svcApi_StoredJob(svc, id, false, &rq->store_down);
    svcStatus st = active ? active->status : job ? job->status : SVC_QUEUED;
    bool has = job && job->has_plan;
    pthread_mutex_unlock(&svc->mu);
    svcJobFree(job);
    if (!active && !job) {
        return svcApi_UnknownJob(rq, id);
    }
    if (!has) {
        return svcHttp_Error(rq, 404, "not_found", NULL, "job %lld has no plan (%s)", (long long)id, svcStatusName(st));
    }
    if (svc->cluster) { /* planned by whichever node: bring the store's copy */
        pthread_mutex_lock(&svc->mu);
        svcCluster_FetchFile(svc, id, "plan.json");
        pthread_mutex_unlock(&svc->mu);
    }
    char path[4096], err[1024] = "";
    svcJobPath(svc, id, "plan.json", path, sizeof path);
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    if (!tpPlanRecord_Read(&rec, path, err, sizeof err)) {
        return svcHttp_Error(rq, 500, "internal", NULL, "job %lld: its plan does not read: %s", (long long)id, err);
    }
    char *text = NULL;
    size_t len = 0;
    enum MHD_Result r;
    if (!tpQuery_Browse(&rec, where, rank, &text, &len, err, sizeof err)) {
        const bool q = strncmp(err, "query", 5) == 0;
        r = strcmp(err, "out of memory") == 0 ? svcHttp_Error(rq, 500, "internal", NULL, "out of memory")
                                              : svcHttp_Error(rq, 400, "bad_field", q ? "where" : "rank", "%s", err);
    } else {
        svcHttp_Header(rq, "Cache-Control", "private, no-cache");
        r = svcHttp_JsonOwned(rq, 200, text);
    }
    tpPlanRecord_Free(&rec);
    return r;
}
