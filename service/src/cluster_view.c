/* tplan service: GET /v1/cluster, what the web page's Cluster view shows (docs/service.md#cluster-page):
 * the nodes with their state and heartbeat, the running jobs with their leases, the queue and the
 * concurrency limits. A PostgreSQL store answers for the whole cluster (svcCluster_Json); a store of
 * one node (SQLite) describes this server the same way, without leases. Read-only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http_internal.h"
#include "tp/json_text.h"

/* This server alone (an SQLite store): one node, its running jobs, its queue and limits. mu held. */
static cJSON *local_view(tpService *svc)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
    cJSON *n = cJSON_CreateObject();
    char host[96] = "", id[160];
    gethostname(host, sizeof host - 1);
    snprintf(id, sizeof id, "%s:%d", host, (int)getpid());
    cJSON_AddStringToObject(n, "id", id);
    cJSON_AddStringToObject(n, "host", host);
    cJSON_AddNumberToObject(n, "pid", (double)getpid());
    cJSON_AddBoolToObject(n, "http", true);
    cJSON_AddNumberToObject(n, "workers", svc->nworkers);
    cJSON_AddNumberToObject(n, "interactive_workers", svc->ninteractive);
    cJSON_AddNumberToObject(n, "started", svc->started_at);
    cJSON_AddBoolToObject(n, "self", true);
    cJSON_AddNumberToObject(n, "heartbeat_age", 0);
    cJSON_AddStringToObject(n, "state", svc->draining ? "draining" : "up");
    cJSON_AddNumberToObject(n, "running", svcCountActive(svc, SVC_RUNNING));
    uint64_t finished = 0;
    for (int s = 0; s < SVC_NSTATUS; ++s) {
        finished += svc->metrics.jobs_finished[s];
    }
    cJSON_AddNumberToObject(n, "finished", (double)finished);
    tpJson_Append(nodes, n);
    cJSON *running = cJSON_AddArrayToObject(o, "running");
    int per_limit[TP_SERVICE_MAX_LIMITS] = {0};
    for (int i = 0; i < svc->nactive; ++i) {
        const svcJob *job = svc->active[i];
        if (job->status != SVC_RUNNING) {
            continue;
        }
        for (int l = 0; l < svc->nlimits; ++l) {
            per_limit[l] += (int)((job->limit_mask >> l) & 1u);
        }
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "id", (double)job->id);
        cJSON_AddStringToObject(j, "domain", job->domain);
        if (job->name) {
            cJSON_AddStringToObject(j, "name", job->name);
        } else {
            cJSON_AddNullToObject(j, "name");
        }
        cJSON_AddStringToObject(j, "node", id);
        cJSON_AddNumberToObject(j, "started", job->started);
        cJSON_AddNumberToObject(j, "failures", job->failures);
        tpJson_Append(running, j);
    }
    cJSON_AddNumberToObject(o, "queued", svcCountActive(svc, SVC_QUEUED));
    cJSON *limits = cJSON_AddArrayToObject(o, "limits");
    for (int l = 0; l < svc->nlimits; ++l) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "tag", svc->limit_tag[l]);
        cJSON_AddNumberToObject(e, "max", svc->limit_max[l]);
        cJSON_AddNumberToObject(e, "running", per_limit[l]);
        tpJson_Append(limits, e);
    }
    return o;
}

enum MHD_Result svcApi_Cluster(svcReq *rq)
{
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
    tpService *svc = rq->svc;
    svcHttp_Header(rq, "Cache-Control", "no-store");
    pthread_mutex_lock(&svc->mu);
    cJSON *o = NULL;
    if (svc->cluster) {
        char *text = svcCluster_Json(svc);
        o = text ? cJSON_Parse(text) : NULL;
        free(text);
        if (!text) {
            pthread_mutex_unlock(&svc->mu);
            svcHttp_Header(rq, "Retry-After", "5");
            return svcHttp_Error(rq, 503, "store_unavailable", NULL,
                                 "the job store does not answer (PostgreSQL unreachable or refusing statements): "
                                 "retry later; GET /v1/health says when it is back");
        }
    } else {
        o = local_view(svc);
    }
    if (o) {
        cJSON_AddStringToObject(o, "store", svc->cluster ? "postgresql" : "sqlite");
        cJSON_AddBoolToObject(o, "draining", svc->draining);
        if (svc->cluster) {
            cJSON_AddNumberToObject(o, "lease", svc->def.lease);
        }
    }
    pthread_mutex_unlock(&svc->mu);
    char *body = o ? tpJson_PrintChecked(o) : NULL;
    cJSON_Delete(o);
    if (!body) {
        return svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
    enum MHD_Result ret = svcHttp_Text(rq, 200, body, "application/json");
    free(body);
    return ret;
}
