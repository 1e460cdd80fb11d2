/* tplan service: the routes. svcRoute answers a complete request: the CORS preflight and the
 * bearer token (http.c), then the /v1 handlers of api.c by path and method (405 with Allow for a
 * method a route does not take, 404 for an unknown /v1 path), and the static web page (web.c) for
 * the rest. The HTTP server calls it through the handler it was started with (svcHttp_Start), so
 * the server depends on no handler file and the handlers on the server's responses only. */
#include <stdint.h>
#include <string.h>

#include "http_internal.h"

/* "/v1/jobs/123/plan" -> id 123, rest "/plan"; false if the segment is not a job id */
static bool parse_job_path(const char *path, int64_t *id, const char **rest)
{
    const char *p = path + strlen("/v1/jobs/");
    if (*p < '1' || *p > '9') {
        return false;
    }
    int64_t v = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        if (++digits > 15) {
            return false;
        }
        v = v * 10 + (*p++ - '0');
    }
    if (*p && *p != '/') {
        return false;
    }
    *id = v;
    *rest = p;
    return true;
}

static enum MHD_Result method_not_allowed(svcReq *rq, const char *allow)
{
    svcHttp_Header(rq, "Allow", allow);
    return svcHttp_Error(rq, 405, "method_not_allowed", NULL, "%s is not allowed on %s (allowed: %s)", rq->method,
                         rq->path, allow);
}

static bool is(const svcReq *rq, const char *m)
{
    return strcmp(rq->method, m) == 0;
}

/* GET, or HEAD (libmicrohttpd sends the headers only) */
static bool is_get(const svcReq *rq)
{
    return is(rq, "GET") || is(rq, "HEAD");
}

int svcRoute(svcReq *rq)
{
    const char *p = rq->path;
    bool api = strncmp(p, "/v1/", 4) == 0 || strcmp(p, "/v1") == 0 || strcmp(p, "/metrics") == 0;
    if (api && is(rq, "OPTIONS")) {
        return svcHttp_Preflight(rq);
    }
    bool health = strcmp(p, "/v1/health") == 0;
    if (api && !svcHttp_Authorized(rq)) {
        if (health && is_get(rq)) { /* liveness needs no token; it then tells nothing but "ok" */
            rq->route = "/v1/health";
            return svcApi_Health(rq, false);
        }
        rq->route = strcmp(p, "/metrics") == 0 ? "/metrics" : "other";
        svcHttp_Header(rq, "WWW-Authenticate", "Bearer realm=\"tplan\"");
        return svcHttp_Error(rq, 401, "unauthorized", NULL,
                             "this server needs a token: send 'Authorization: Bearer <token>'");
    }
    if (rq->too_big) {
        rq->route = "other";
        return svcHttp_Error(rq, 413, "body_too_large", NULL, "the request body is larger than %zu bytes",
                             TP_SERVICE_MAX_BODY_BYTES);
    }
    if (health) {
        rq->route = "/v1/health";
        return is_get(rq) ? svcApi_Health(rq, true) : method_not_allowed(rq, "GET, HEAD");
    }
    if (strcmp(p, "/v1/domains") == 0) {
        rq->route = "/v1/domains";
        return is_get(rq) ? svcApi_Domains(rq) : method_not_allowed(rq, "GET, HEAD");
    }
    if (strcmp(p, "/v1/openapi.json") == 0) {
        rq->route = "/v1/openapi.json";
        return is_get(rq) ? svcApi_OpenApi(rq) : method_not_allowed(rq, "GET, HEAD");
    }
    if (strcmp(p, "/v1/jobs") == 0) {
        rq->route = "/v1/jobs";
        if (is(rq, "POST")) {
            return svcApi_Submit(rq, false);
        }
        return is_get(rq) ? svcApi_List(rq) : method_not_allowed(rq, "GET, HEAD, POST");
    }
    if (strcmp(p, "/v1/plan") == 0) {
        rq->route = "/v1/plan";
        return is(rq, "POST") ? svcApi_Submit(rq, true) : method_not_allowed(rq, "POST");
    }
    if (strcmp(p, "/v1/cluster") == 0) {
        rq->route = "/v1/cluster";
        return is_get(rq) ? svcApi_Cluster(rq) : method_not_allowed(rq, "GET, HEAD");
    }
    if (strcmp(p, "/metrics") == 0) {
        rq->route = "/metrics";
        return is_get(rq) ? svcApi_Metrics(rq) : method_not_allowed(rq, "GET, HEAD");
    }
    int64_t id;
    const char *rest;
    if (strncmp(p, "/v1/jobs/", 9) == 0 && parse_job_path(p, &id, &rest)) {
        if (!*rest) {
            rq->route = "/v1/jobs/{id}";
            if (is(rq, "DELETE")) {
                return svcApi_Delete(rq, id);
            }
            return is_get(rq) ? svcApi_Get(rq, id) : method_not_allowed(rq, "GET, HEAD, DELETE");
        }
        if (strcmp(rest, "/plan") == 0 || strcmp(rest, "/tree") == 0) {
            rq->route = rest[1] == 'p' ? "/v1/jobs/{id}/plan" : "/v1/jobs/{id}/tree";
            return is_get(rq) ? svcApi_File(rq, id, rest[1] == 'p') : method_not_allowed(rq, "GET, HEAD");
        }
        if (strcmp(rest, "/worlds") == 0) {
            rq->route = "/v1/jobs/{id}/worlds";
            return is_get(rq) ? svcApi_Worlds(rq, id) : method_not_allowed(rq, "GET, HEAD");
        }
        if (strcmp(rest, "/log") == 0) {
            rq->route = "/v1/jobs/{id}/log";
            return is(rq, "GET") ? svcApi_Log(rq, id) : method_not_allowed(rq, "GET");
        }
        if (strcmp(rest, "/events") == 0) {
            rq->route = "/v1/jobs/{id}/events";
            return is(rq, "GET") ? svcApi_Events(rq, id) : method_not_allowed(rq, "GET");
        }
        if (strcmp(rest, "/script") == 0) {
            rq->route = "/v1/jobs/{id}/script";
            return is_get(rq) ? svcApi_Script(rq, id) : method_not_allowed(rq, "GET, HEAD");
        }
        if (strcmp(rest, "/retry") == 0) {
            rq->route = "/v1/jobs/{id}/retry";
            return is(rq, "POST") ? svcApi_Retry(rq, id) : method_not_allowed(rq, "POST");
        }
        if (strcmp(rest, "/stop") == 0 || strcmp(rest, "/cancel") == 0) {
            rq->route = rest[1] == 's' ? "/v1/jobs/{id}/stop" : "/v1/jobs/{id}/cancel";
            return is(rq, "POST") ? svcApi_Action(rq, id, rest + 1) : method_not_allowed(rq, "POST");
        }
    }
    if (api) {
        rq->route = "other";
        return svcHttp_Error(rq, 404, "not_found", NULL, "no route %s (see docs/service.md)", p);
    }
    rq->route = "static";
    return svcWeb_Serve(rq);
}
