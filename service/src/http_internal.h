/* tplan service: what the HTTP layer's files share (http.c the server and its responses, routes.c
 * the routes, api.c the /v1 handlers, events.c a job's event stream, web.c the static page). Only these files include
 * microhttpd.h. */
#ifndef TP_SERVICE_HTTP_INTERNAL_H
#define TP_SERVICE_HTTP_INTERNAL_H

#include <microhttpd.h>

#include "service_internal.h"

#define SVC_MAX_HEADERS 12
#define SVC_MAX_NAME 200 /* bytes of a job's name (and of a list filter value) */

/* the OpenAPI document (service/openapi.json, embedded at build time: openapi_data.c) */
extern const unsigned char svcOpenApiText[];
extern const size_t svcOpenApiLength;

/// One request (the connection's context while it is served).
typedef struct svcReq {
    tpService *svc;
    struct MHD_Connection *conn;
    char method[16];
    char path[1024];   /* the URL path, percent-decoded by libmicrohttpd, without the query */
    const char *route; /* the route template, for logs and metrics */
    char *body;        /* the request body (NUL-terminated), NULL if none */
    size_t len, cap;
    bool too_big;                          /* over TP_SERVICE_MAX_BODY_BYTES: answered 413 */
    bool query_repeated;                   /* svcHttp_UnknownQuery's key was a known one given twice */
    double t0;                             /* svcNow() when it arrived */
    char headers[SVC_MAX_HEADERS][2][160]; /* extra response headers (name, value) */
    int nheaders;
    bool store_down; /* a read of the store failed while serving it: "no job" is 503, not 404 */
} svcReq;

/// A request's parse result (job_validate.c): server, connection and route, method and path
/// terminated, its arrival time, its body within its buffer and the 4 MiB bound and terminated (none
/// kept when too big), the response headers within their table. False with the broken rule in why.
bool svcValid_Request(const svcReq *rq, char *why, size_t cap);

/* http.c */
void svcHttp_Header(svcReq *rq, const char *name, const char *value);
/// Queues resp (destroyed here) with the extra headers and the content type; logs and counts.
enum MHD_Result svcHttp_Send(svcReq *rq, unsigned code, struct MHD_Response *resp, const char *type);
enum MHD_Result svcHttp_Text(svcReq *rq, unsigned code, const char *body, const char *type);
/// A JSON body (malloc'd; freed by libmicrohttpd). NULL body: 500.
enum MHD_Result svcHttp_JsonOwned(svcReq *rq, unsigned code, char *body);
/// {"error":{"code","message"[,"field"]}} with the status code.
enum MHD_Result svcHttp_Error(svcReq *rq, unsigned code, const char *err_code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/// Counts the request's connection as an event stream of job id if the caps allow (per address,
/// per job, in all: def.max_streams*): 0 then, else the status to refuse it with (429 a share of the
/// address or the job, 503 the server's) and why in msg. The mark ends with the response.
unsigned svcHttp_BeginStream(svcReq *rq, int64_t id, char *msg, size_t cap);
/// False once the reaper closed conn's event stream (its client left or reads nothing): its thread
/// ends the stream instead of waiting for the next change. svc->mu may be held.
bool svcHttp_StreamOpen(tpService *svc, struct MHD_Connection *conn);
/// Logs the request line and counts it (svcHttp_Send does it for ordinary responses).
void svcHttp_Log(svcReq *rq, unsigned code);
/// The request carries the server's bearer token (or the server has none).
bool svcHttp_Authorized(svcReq *rq);
/// Answers a CORS preflight (OPTIONS) of an allowed --cors-origin page (403 for another origin).
enum MHD_Result svcHttp_Preflight(svcReq *rq);

/* api.c: the helpers the handler files share (mu held where they read the jobs) */
/// Waits on svc->changed until woken or `seconds` passed.
void svcApi_WaitChange(tpService *svc, double seconds);
/// The job while this process's scheduler holds it active; NULL otherwise (always with PostgreSQL).
svcJob *svcApi_LocalJob(tpService *svc, int64_t id);
/// The job read from the store (NULL if none); a failed read sets *down (answer 503, never 404).
svcJob *svcApi_StoredJob(tpService *svc, int64_t id, bool with_script, bool *down);
/// The job object of id as JSON (malloc'd), from memory while active, else from the store; NULL if
/// unknown (or the store failed: *down).
char *svcApi_JobJson(tpService *svc, int64_t id, bool *down);
/// The status of job id, active or stored; false if unknown (or the store failed: *down).
bool svcApi_JobStatus(tpService *svc, int64_t id, svcStatus *status, bool *down);
/// 404 not_found "no job N" (503 store_unavailable when the store failed while serving rq).
enum MHD_Result svcApi_UnknownJob(svcReq *rq, int64_t id);

/* api.c */
/// The first query parameter of the request not in allowed ("a, b, c"; access_token is always
/// allowed), or NULL.
const char *svcHttp_UnknownQuery(svcReq *rq, const char *allowed);
/// 400 bad_field naming the unknown query parameter key.
enum MHD_Result svcHttp_BadQuery(svcReq *rq, const char *key, const char *allowed);
/// full: the counts too (with the token); else {"status":"ok"} only (liveness, no token needed).
enum MHD_Result svcApi_Health(svcReq *rq, bool full);
enum MHD_Result svcApi_Domains(svcReq *rq);
enum MHD_Result svcApi_OpenApi(svcReq *rq);
/// POST /v1/jobs/{id}/stop or /cancel (action "stop" or "cancel").
enum MHD_Result svcApi_Action(svcReq *rq, int64_t id, const char *action);
/// GET /v1/jobs/{id}/script: the submitted Lua text (to edit and submit again); 404 for a built-in domain.
enum MHD_Result svcApi_Script(svcReq *rq, int64_t id);
/// DELETE /v1/jobs/{id}: cancels an active job, deletes a finished one (and its files).
enum MHD_Result svcApi_Delete(svcReq *rq, int64_t id);
/// POST /v1/jobs/{id}/retry: a failed or cancelled job queued again as a new job (retry_of = id).
enum MHD_Result svcApi_Retry(svcReq *rq, int64_t id);
enum MHD_Result svcApi_Submit(svcReq *rq, bool sync);
enum MHD_Result svcApi_List(svcReq *rq);
enum MHD_Result svcApi_Get(svcReq *rq, int64_t id);
enum MHD_Result svcApi_File(svcReq *rq, int64_t id, bool plan);
enum MHD_Result svcApi_Events(svcReq *rq, int64_t id);
enum MHD_Result svcApi_Log(svcReq *rq, int64_t id);
/// GET /v1/jobs/{id}/worlds?where=&rank= (worlds.c): the plan's worlds, filtered and ranked (tp/query.h).
enum MHD_Result svcApi_Worlds(svcReq *rq, int64_t id);
enum MHD_Result svcApi_Metrics(svcReq *rq);

/* cluster_view.c */
/// GET /v1/cluster: the nodes (state, heartbeat), the running jobs with their leases, the queue and
/// the concurrency limits, read-only (docs/service.md#cluster-page; the web page's Cluster view).
enum MHD_Result svcApi_Cluster(svcReq *rq);

/* web.c */
enum MHD_Result svcWeb_Serve(svcReq *rq);

#endif
