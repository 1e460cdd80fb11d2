/* tplan service: Prometheus metrics (GET /metrics, text exposition format 0.0.4). Counters live in
 * svc->metrics under svc->mu; job counts by status come from the store. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service_internal.h"

/* route templates, the label values of tplan_http_requests_total */
static const char *const routes[] = {"/v1/health",
                                     "/v1/domains",
                                     "/v1/jobs",
                                     "/v1/jobs/{id}",
                                     "/v1/jobs/{id}/plan",
                                     "/v1/jobs/{id}/tree",
                                     "/v1/jobs/{id}/events",
                                     "/v1/plan",
                                     "/v1/openapi.json",
                                     "/v1/jobs/{id}/stop",
                                     "/v1/jobs/{id}/cancel",
                                     "/v1/jobs/{id}/retry",
                                     "/v1/jobs/{id}/script",
                                     "/v1/jobs/{id}/log",
                                     "/metrics",
                                     "/v1/cluster",
                                     "static",
                                     "other"};
#define NROUTES ((int)(sizeof routes / sizeof routes[0]))

/* the status codes counted one by one; others are counted under 0 ("other") */
static const unsigned codes[] = {0,   200, 201, 204, 304, 400, 401, 404, 405, 409,
                                 413, 429, 500, 503, 504, 422, 206, 403, 416};

/* upper bounds of the planning-time buckets, s */
static const double buckets[SVC_HIST_BUCKETS] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60};

int svcRouteIndex(const char *route)
{
    for (int i = 0; i < NROUTES; ++i) {
        if (strcmp(route, routes[i]) == 0) {
            return i;
        }
    }
    return NROUTES - 1;
}

void svcMetrics_Request(tpService *svc, const char *route, unsigned code)
{
    int r = svcRouteIndex(route);
    int c = 0;
    for (int i = 1; i < (int)(sizeof codes / sizeof codes[0]); ++i) {
        if (codes[i] == code) {
            c = i;
        }
    }
    svc->metrics.codes[r][c]++;
}

void svcMetrics_JobDone(tpService *svc, svcStatus status, double planning_s)
{
    svc->metrics.jobs_finished[status]++;
    if (status == SVC_SOLVED || status == SVC_APPROXIMATE) {
        int b = 0;
        while (b < SVC_HIST_BUCKETS && planning_s > buckets[b]) {
            ++b;
        }
        svc->metrics.plan_hist[b]++;
        svc->metrics.plan_sum += planning_s;
        svc->metrics.plan_count++;
    }
}

typedef struct Text {
    char *s;
    size_t len, cap;
    bool failed;
} Text;

static void put(Text *t, const char *fmt, ...)
{
    va_list ap;
    for (int attempt = 0; attempt < 2 && !t->failed; ++attempt) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        char *grown = tpArray_Grow(t->s, &t->cap, t->len + (size_t)n + 1, 1);
        if (!grown) {
            t->failed = true;
            return;
        }
        t->s = grown;
    }
}

char *svcMetrics_Text(tpService *svc)
{
    Text t = {0};
    int64_t counts[SVC_NSTATUS];
    uint64_t mark = svc->store_errors;
    svcStore_Counts(svc, counts);
    /* a store that could not be read gives no counts (not zeros a dashboard would believe) */
    bool up = svc->store_errors == mark && !svcStore_Failed(svc);
    put(&t,
        "# HELP tplan_store_up 1 if the job store answered this scrape and takes writes, else 0.\n"
        "# TYPE tplan_store_up gauge\ntplan_store_up %d\n",
        up ? 1 : 0);
    if (svc->store_errors == mark) {
        put(&t, "# HELP tplan_jobs Jobs in the store by status.\n# TYPE tplan_jobs gauge\n");
        for (int s = 0; s < SVC_NSTATUS; ++s) {
            put(&t, "tplan_jobs{status=\"%s\"} %lld\n", svcStatusName((svcStatus)s), (long long)counts[s]);
        }
    }
    /* a cluster's queue is the store's (every node's), this process's otherwise */
    if (!svc->cluster || svc->store_errors == mark) {
        put(&t, "# HELP tplan_queue_depth Jobs waiting for a worker.\n# TYPE tplan_queue_depth gauge\n");
        put(&t, "tplan_queue_depth %lld\n",
            svc->cluster ? (long long)counts[SVC_QUEUED] : (long long)svcCountActive(svc, SVC_QUEUED));
    }
    put(&t, "# HELP tplan_workers Worker processes.\n# TYPE tplan_workers gauge\ntplan_workers %d\n", svc->nworkers);
    put(&t,
        "# HELP tplan_draining 1 while the server drains after SIGTERM (no new job is taken), else 0.\n"
        "# TYPE tplan_draining gauge\ntplan_draining %d\n",
        svc->draining ? 1 : 0);
    put(&t, "# HELP tplan_workers_busy Workers planning a job.\n# TYPE tplan_workers_busy gauge\n");
    put(&t, "tplan_workers_busy %d\n", svcCountBusy(svc, false));
    put(&t,
        "# HELP tplan_interactive_workers Worker processes kept for POST /v1/plan.\n"
        "# TYPE tplan_interactive_workers gauge\ntplan_interactive_workers %d\n",
        svc->ninteractive);
    put(&t,
        "# HELP tplan_interactive_workers_busy Interactive workers planning a job.\n"
        "# TYPE tplan_interactive_workers_busy gauge\ntplan_interactive_workers_busy %d\n",
        svcCountBusy(svc, true));
    put(&t,
        "# HELP tplan_worker_restarts_total Workers that died and were restarted.\n"
        "# TYPE tplan_worker_restarts_total counter\ntplan_worker_restarts_total %llu\n",
        (unsigned long long)svc->metrics.worker_restarts);
    const uint64_t cached = __atomic_load_n(&svc->checks_cached, __ATOMIC_SEQ_CST); /* cached before done */
    const uint64_t done = __atomic_load_n(&svc->checks_done, __ATOMIC_SEQ_CST);
    put(&t,
        "# HELP tplan_state_checks_total States of POST /v1/jobs bound to their domain before queueing, by how: "
        "loaded (the script loaded for it), cached (its domain still loaded), skipped (a script that could not be "
        "loaded before: queued unchecked).\n"
        "# TYPE tplan_state_checks_total counter\n"
        "tplan_state_checks_total{load=\"loaded\"} %llu\ntplan_state_checks_total{load=\"cached\"} %llu\n"
        "tplan_state_checks_total{load=\"skipped\"} %llu\n",
        (unsigned long long)(done - cached), (unsigned long long)cached,
        (unsigned long long)__atomic_load_n(&svc->checks_skipped, __ATOMIC_RELAXED));
    put(&t, "# HELP tplan_jobs_finished_total Jobs finished since the server started, by final status.\n"
            "# TYPE tplan_jobs_finished_total counter\n");
    for (int s = SVC_SOLVED; s < SVC_NSTATUS; ++s) {
        put(&t, "tplan_jobs_finished_total{status=\"%s\"} %llu\n", svcStatusName((svcStatus)s),
            (unsigned long long)svc->metrics.jobs_finished[s]);
    }
    put(&t, "# HELP tplan_planning_seconds Planning time of solved and approximate jobs.\n"
            "# TYPE tplan_planning_seconds histogram\n");
    uint64_t cum = 0;
    for (int b = 0; b < SVC_HIST_BUCKETS; ++b) {
        cum += svc->metrics.plan_hist[b];
        put(&t, "tplan_planning_seconds_bucket{le=\"%g\"} %llu\n", buckets[b], (unsigned long long)cum);
    }
    cum += svc->metrics.plan_hist[SVC_HIST_BUCKETS];
    put(&t, "tplan_planning_seconds_bucket{le=\"+Inf\"} %llu\n", (unsigned long long)cum);
    put(&t, "tplan_planning_seconds_sum %.6f\ntplan_planning_seconds_count %llu\n", svc->metrics.plan_sum,
        (unsigned long long)svc->metrics.plan_count);
    put(&t, "# HELP tplan_http_requests_total HTTP requests by route and status code.\n"
            "# TYPE tplan_http_requests_total counter\n");
    for (int r = 0; r < NROUTES; ++r) {
        for (int c = 0; c < (int)(sizeof codes / sizeof codes[0]); ++c) {
            if (svc->metrics.codes[r][c]) {
                if (c == 0) {
                    put(&t, "tplan_http_requests_total{route=\"%s\",code=\"other\"} %llu\n", routes[r],
                        (unsigned long long)svc->metrics.codes[r][c]);
                } else {
                    put(&t, "tplan_http_requests_total{route=\"%s\",code=\"%u\"} %llu\n", routes[r], codes[c],
                        (unsigned long long)svc->metrics.codes[r][c]);
                }
            }
        }
    }
    put(&t, "# HELP tplan_uptime_seconds Seconds since the server started.\n# TYPE tplan_uptime_seconds gauge\n");
    put(&t, "tplan_uptime_seconds %.3f\n", svcNow() - svc->started_at);
    if (svc->cluster) { /* the nodes of the cluster, from their heartbeats in the store */
        char *nodes = svcCluster_MetricsText(svc);
        if (nodes) {
            put(&t, "%s", nodes);
            free(nodes);
        }
    }
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    return t.s;
}
