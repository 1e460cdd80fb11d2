/* tplan service: the /v1 handlers (docs/service.md). Handlers hold svc->mu only briefly and never
 * keep a job pointer across a wait: a finished job leaves memory and is read back from the store. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "http_internal.h"
#include "tp/base.h"

/* ---- helpers ------------------------------------------------------------------------------ */

/* Waits on svc->changed until woken or `seconds` passed (mu held). */
static void wait_change(tpService *svc, double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double t = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + (seconds > 0 ? seconds : 0);
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    pthread_cond_timedwait(&svc->changed, &svc->mu, &ts);
}

/* The job object of id as JSON (malloc'd), from memory while active, else from the store; NULL if
 * unknown. mu held. */
static char *job_json(tpService *svc, int64_t id)
{
    svcJob *job = svcSched_Find(svc, id);
    if (job) {
        return svcJobJson(job);
    }
    job = svcStore_Get(svc, id, false);
    if (!job) {
        return NULL;
    }
    char *s = svcJobJson(job);
    svcJobFree(job);
    return s;
}

/* The status of job id (active or stored); false if unknown. mu held. */
static bool job_status(tpService *svc, int64_t id, svcStatus *status)
{
    svcJob *job = svcSched_Find(svc, id);
    if (job) {
        *status = job->status;
        return true;
    }
    job = svcStore_Get(svc, id, false);
    if (job) {
        *status = job->status;
    }
    svcJobFree(job);
    return job != NULL;
}

enum MHD_Result svcApi_Health(svcReq *rq)
{
    tpService *svc = rq->svc;
    char body[256];
    pthread_mutex_lock(&svc->mu);
    bool failed = svc->store_failed;
    snprintf(body, sizeof body, "{\"status\":\"%s\",\"workers\":%d,\"queued\":%d,\"running\":%d}",
             failed ? "store_failed" : "ok", svc->nworkers, svcSched_Count(svc, SVC_QUEUED),
             svcSched_Count(svc, SVC_RUNNING));
    pthread_mutex_unlock(&svc->mu);
    svcHttp_Header(rq, "Cache-Control", "no-store");
    return svcHttp_Text(rq, failed ? 503 : 200, body, "application/json");
}

enum MHD_Result svcApi_Metrics(svcReq *rq)
{
    pthread_mutex_lock(&rq->svc->mu);
    char *text = svcMetrics_Text(rq->svc);
    pthread_mutex_unlock(&rq->svc->mu);
    if (!text) {
        return svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    return svcHttp_Send(rq, 200, r, "text/plain; version=0.0.4");
}

/* ---- POST /v1/jobs and /v1/plan -------------------------------------------------------------- */

typedef struct Submission {
    char domain[128]; /* "" for a script */
    const char *script;
    size_t script_len;
    double time_limit;
    int memory_mb;
} Submission;

static bool is_integer(const cJSON *v, double lo, double hi)
{
    return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && v->valuedouble >= lo && v->valuedouble <= hi;
}

static bool known_domain(const tpService *svc, const char *name)
{
    for (int i = 0; i < svc->ndomains; ++i) {
        if (strcmp(svc->domain_names[i], name) == 0) {
            return true;
        }
    }
    return false;
}

/* Checks every field of the request object; on a bad one answers and returns false. */
static bool check_request(svcReq *rq, const cJSON *req, Submission *sub, enum MHD_Result *answered)
{
    tpService *svc = rq->svc;
    static const char *const known = "domain, script, set, planner, mu, seed, max_iters, time_limit, solutions, "
                                     "tree, memory_mb, jobs";
#define BAD(code, field, ...)                                                                                          \
    do {                                                                                                               \
        *answered = svcHttp_Error(rq, code, code == 404 ? "unknown_domain" : "bad_field", field, __VA_ARGS__);         \
        return false;                                                                                                  \
    } while (0)
    memset(sub, 0, sizeof *sub);
    sub->time_limit = svc->def.default_time;
    sub->memory_mb = svc->def.default_memory_mb;
    const cJSON *f;
    cJSON_ArrayForEach(f, req)
    {
        const char *k = f->string;
        if (strcmp(k, "domain") == 0) {
            if (!cJSON_IsString(f) || !f->valuestring[0]) {
                BAD(400, "domain", "domain must be the name of a built-in domain (GET /v1/domains)");
            }
            if (strlen(f->valuestring) >= sizeof sub->domain || !known_domain(svc, f->valuestring)) {
                char shown[80];
                snprintf(shown, sizeof shown, "%.60s", f->valuestring);
                BAD(404, "domain", "unknown domain '%s' (GET /v1/domains lists them)", shown);
            }
            snprintf(sub->domain, sizeof sub->domain, "%s", f->valuestring);
        } else if (strcmp(k, "script") == 0) {
            if (!cJSON_IsString(f)) {
                BAD(400, "script", "script must be a string: the Lua text of a domain");
            }
            sub->script = f->valuestring;
            sub->script_len = strlen(f->valuestring);
            if (sub->script_len > TP_SERVICE_MAX_SCRIPT_BYTES) {
                *answered = svcHttp_Error(rq, 413, "script_too_large", "script", "the script is %zu bytes; at most %zu",
                                          sub->script_len, TP_SERVICE_MAX_SCRIPT_BYTES);
                return false;
            }
        } else if (strcmp(k, "set") == 0) {
            if (!cJSON_IsObject(f)) {
                BAD(400, "set", "set must be an object of parameter overrides {\"name\": value}");
            }
            int n = 0;
            const cJSON *v;
            cJSON_ArrayForEach(v, f)
            {
                if (++n > 64) {
                    BAD(400, "set", "set: at most 64 parameters");
                }
                if (!v->string[0] || strlen(v->string) > 64 || strchr(v->string, '=')) {
                    BAD(400, "set", "set: a parameter name must be 1-64 characters, without '='");
                }
                if (!cJSON_IsString(v) && !cJSON_IsNumber(v) && !cJSON_IsBool(v)) {
                    BAD(400, "set", "set.%s: a value must be a string, a number or a boolean", v->string);
                }
                if (cJSON_IsString(v) && strlen(v->valuestring) > 65536) {
                    BAD(400, "set", "set.%s: the value is longer than 65536 bytes", v->string);
                }
            }
        } else if (strcmp(k, "planner") == 0) {
            if (!cJSON_IsString(f) || (strcmp(f->valuestring, "rrt") != 0 && strcmp(f->valuestring, "bgt") != 0)) {
                BAD(400, "planner", "planner must be \"rrt\" or \"bgt\"");
            }
        } else if (strcmp(k, "mu") == 0) {
            if (!cJSON_IsNumber(f) || !(f->valuedouble > 0) || !isfinite(f->valuedouble)) {
                BAD(400, "mu", "mu must be a number > 0");
            }
        } else if (strcmp(k, "seed") == 0) {
            if (!is_integer(f, 0, 4294967295.0)) {
                BAD(400, "seed", "seed must be an integer in 0..4294967295");
            }
        } else if (strcmp(k, "max_iters") == 0) {
            if (!is_integer(f, 1, 1e12)) {
                BAD(400, "max_iters", "max_iters must be an integer in 1..1e12");
            }
        } else if (strcmp(k, "time_limit") == 0) {
            if (!cJSON_IsNumber(f) || !(f->valuedouble > 0) || f->valuedouble > svc->def.max_time) {
                BAD(400, "time_limit", "time_limit must be a number of seconds in (0, %g]", svc->def.max_time);
            }
            sub->time_limit = f->valuedouble;
        } else if (strcmp(k, "solutions") == 0) {
            if (!is_integer(f, 1, 10000)) {
                BAD(400, "solutions", "solutions must be an integer in 1..10000");
            }
        } else if (strcmp(k, "tree") == 0) {
            if (!cJSON_IsBool(f)) {
                BAD(400, "tree", "tree must be true or false");
            }
        } else if (strcmp(k, "jobs") == 0) {
            if (!is_integer(f, 1, svc->nworkers)) {
                BAD(400, "jobs", "jobs must be an integer in 1..%d (the server's workers)", svc->nworkers);
            }
        } else if (strcmp(k, "memory_mb") == 0) {
            if (!is_integer(f, 16, svc->def.max_memory_mb)) {
                BAD(400, "memory_mb", "memory_mb must be an integer in 16..%d", svc->def.max_memory_mb);
            }
            sub->memory_mb = (int)f->valuedouble;
        } else {
            char shown[80];
            snprintf(shown, sizeof shown, "%.60s", k);
            *answered = svcHttp_Error(rq, 400, "bad_field", shown, "unknown field '%s' (known: %s)", shown, known);
            return false;
        }
    }
    if (!sub->domain[0] && !sub->script) {
        BAD(400, "domain", "give a built-in \"domain\" name or a \"script\" (Lua text)");
    }
    if (sub->domain[0] && sub->script) {
        BAD(400, "script", "give either \"domain\" or \"script\", not both");
    }
#undef BAD
    return true;
}

/* The request as stored and shown: the fields given, the script replaced by its size. */
static char *normalized_request(const cJSON *req, const Submission *sub)
{
    cJSON *copy = cJSON_Duplicate(req, true);
    if (!copy) {
        return NULL;
    }
    if (sub->script) {
        cJSON_DeleteItemFromObjectCaseSensitive(copy, "script");
        cJSON_AddNumberToObject(copy, "script_bytes", (double)sub->script_len);
    }
    char *s = cJSON_PrintUnformatted(copy);
    cJSON_Delete(copy);
    return s;
}

static enum MHD_Result answer_sync(svcReq *rq, int64_t id, double deadline);

/* The client's IP address as text ("" if unknown). */
static void client_address(svcReq *rq, char *out, size_t cap)
{
    const union MHD_ConnectionInfo *ai = MHD_get_connection_info(rq->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ai ? ai->client_addr : NULL;
    out[0] = '\0';
    if (sa && sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out, (socklen_t)cap);
    } else if (sa && sa->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out, (socklen_t)cap);
    }
}

enum MHD_Result svcApi_Submit(svcReq *rq, bool sync)
{
    tpService *svc = rq->svc;
    double wait = 0;
    if (sync) {
        const char *w = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, "wait");
        char *end = NULL;
        wait = w ? strtod(w, &end) : 10.0;
        if (w && (end == w || *end || !(wait > 0) || wait > svc->def.max_time)) {
            return svcHttp_Error(rq, 400, "bad_field", "wait", "wait must be a number of seconds in (0, %g]",
                                 svc->def.max_time);
        }
    }
    if (!rq->body || rq->len == 0) {
        return svcHttp_Error(rq, 400, "bad_json", NULL,
                             "the body must be a JSON object, e.g. {\"domain\":\"minigolf\"}");
    }
    const char *end = NULL;
    cJSON *req = cJSON_ParseWithLengthOpts(rq->body, rq->len, &end, false);
    if (!req) {
        size_t off = end && end >= rq->body ? (size_t)(end - rq->body) : 0;
        return svcHttp_Error(rq, 400, "bad_json", NULL, "malformed JSON near byte %zu (0-based)", off);
    }
    for (const char *p = end; p && p < rq->body + rq->len; ++p) {
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            cJSON_Delete(req);
            return svcHttp_Error(rq, 400, "bad_json", NULL,
                                 "malformed JSON at byte %zu (0-based): text after the object", (size_t)(p - rq->body));
        }
    }
    if (!cJSON_IsObject(req)) {
        cJSON_Delete(req);
        return svcHttp_Error(rq, 400, "bad_json", NULL, "the body must be a JSON object");
    }
    char bad[256], bad_field[80];
    if (!svcBodyCheck(rq->body, rq->len, req, bad, sizeof bad, bad_field, sizeof bad_field)) {
        cJSON_Delete(req);
        return svcHttp_Error(rq, 400, "bad_json", bad_field[0] ? bad_field : NULL, "%s", bad);
    }
    Submission sub;
    enum MHD_Result answered = MHD_NO;
    if (!check_request(rq, req, &sub, &answered)) {
        cJSON_Delete(req);
        return answered;
    }
    const char *key = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Idempotency-Key");
    if (key && (!key[0] || strlen(key) > 200)) {
        cJSON_Delete(req);
        return svcHttp_Error(rq, 400, "bad_field", "Idempotency-Key", "Idempotency-Key must be 1-200 characters");
    }
    char hash[40];
    snprintf(hash, sizeof hash, "%016llx%s", (unsigned long long)tpHash_Fnv1a64(rq->body, rq->len), sync ? "s" : "");
    svcJob *job = calloc(1, sizeof *job);
    if (!job) {
        cJSON_Delete(req);
        return svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
    job->status = SVC_QUEUED;
    job->domain = strdup(sub.script ? "job.lua" : sub.domain);
    job->request = normalized_request(req, &sub);
    if (sub.script) {
        job->script = malloc(sub.script_len + 1);
        if (job->script) {
            memcpy(job->script, sub.script, sub.script_len + 1);
        }
        job->script_len = sub.script_len;
    }
    cJSON_Delete(req);
    job->time_limit = sub.time_limit;
    job->memory_mb = sub.memory_mb;
    job->best_quality = NAN;
    job->created = svcNow();
    job->sync = sync;
    job->sync_deadline = rq->t0 + wait;
    if (!job->domain || !job->request || (sub.script && !job->script)) {
        svcJobFree(job);
        return svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
    pthread_mutex_lock(&svc->mu);
    if (key) {
        char first[40] = "";
        int64_t id = svcStore_FindIdem(svc, key, first, sizeof first);
        if (id > 0) {
            svcStatus st = SVC_QUEUED;
            job_status(svc, id, &st);
            pthread_mutex_unlock(&svc->mu);
            svcJobFree(job);
            if (strcmp(first, hash) != 0) {
                return svcHttp_Error(rq, 422, "idempotency_mismatch", "Idempotency-Key",
                                     "this Idempotency-Key was used for job %lld with another body", (long long)id);
            }
            char body[128], loc[64];
            snprintf(body, sizeof body, "{\"id\":%lld,\"status\":\"%s\"}", (long long)id, svcStatusName(st));
            snprintf(loc, sizeof loc, "/v1/jobs/%lld", (long long)id);
            svcHttp_Header(rq, "Location", loc);
            svcHttp_Header(rq, "Idempotent-Replayed", "true");
            if (sync) {
                return answer_sync(rq, id, rq->t0 + wait);
            }
            return svcHttp_Text(rq, 201, body, "application/json");
        }
    }
    if (svc->store_failed) {
        pthread_mutex_unlock(&svc->mu);
        svcJobFree(job);
        return svcHttp_Error(rq, 503, "store_unavailable", NULL,
                             "the job store cannot be written (disk full? see the server's log): no new jobs "
                             "until the server is restarted");
    }
    client_address(rq, job->client, sizeof job->client);
    int quota = svc->def.max_queued_per_client > 0 ? svc->def.max_queued_per_client
                : svc->def.max_queue < 250         ? svc->def.max_queue
                                                   : 250;
    int mine = 0;
    for (int i = 0; i < svc->nactive && job->client[0]; ++i) {
        mine += svc->active[i]->status == SVC_QUEUED && strcmp(svc->active[i]->client, job->client) == 0;
    }
    if (mine >= quota && svcSched_Count(svc, SVC_QUEUED) < svc->def.max_queue) {
        pthread_mutex_unlock(&svc->mu);
        svcJobFree(job);
        svcHttp_Header(rq, "Retry-After", "1");
        return svcHttp_Error(rq, 429, "client_quota", NULL,
                             "%d of your jobs are waiting, the most one client may queue (--max-queued-per-client); "
                             "retry when one has started",
                             mine);
    }
    if (svcSched_Count(svc, SVC_QUEUED) >= svc->def.max_queue) {
        pthread_mutex_unlock(&svc->mu);
        svcJobFree(job);
        svcHttp_Header(rq, "Retry-After", "1");
        return svcHttp_Error(rq, 429, "queue_full", NULL, "the queue is full (%d jobs waiting); retry later",
                             svc->def.max_queue);
    }
    if (!svcStore_Insert(svc, job, key, hash) || !svcSched_Enqueue(svc, job)) {
        pthread_mutex_unlock(&svc->mu);
        svcJobFree(job);
        return svcHttp_Error(rq, 500, "internal", NULL, "the job could not be stored");
    }
    int64_t id = job->id;
    double deadline = job->sync_deadline;
    svcLog(svc, "job %lld queued (%s%s)", (long long)id, job->domain, sync ? ", synchronous" : "");
    pthread_mutex_unlock(&svc->mu);
    char loc[64];
    snprintf(loc, sizeof loc, "/v1/jobs/%lld", (long long)id);
    svcHttp_Header(rq, "Location", loc);
    if (sync) {
        return answer_sync(rq, id, deadline);
    }
    char body[96];
    snprintf(body, sizeof body, "{\"id\":%lld,\"status\":\"queued\"}", (long long)id);
    return svcHttp_Text(rq, 201, body, "application/json");
}

/* Sends the plan file of a finished job with the X-Tplan-* headers. */
static enum MHD_Result send_file(svcReq *rq, int64_t id, const char *name, const char *type, unsigned code);

static unsigned sync_error_status(const char *code)
{
    if (strcmp(code, "script_error") == 0) {
        return 400;
    }
    if (strcmp(code, "memory_limit") == 0 || strcmp(code, "time_limit") == 0) {
        return 422;
    }
    if (strcmp(code, "no_worker") == 0) {
        return 503;
    }
    return 500;
}

/* POST /v1/plan: waits for job id until its final state (it was planned to end before deadline). */
static enum MHD_Result answer_sync(svcReq *rq, int64_t id, double deadline)
{
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    for (;;) {
        svcJob *job = svcSched_Find(svc, id);
        if (!job || svc->stopping) {
            break;
        }
        double now = svcNow();
        if (now > deadline + 5.0) { /* the worker missed the planner's own limit by far: give up */
            svcSched_Cancel(svc, job, "time_limit", "the synchronous job missed its deadline");
        }
        wait_change(svc, 0.25);
    }
    svcJob *job = svcStore_Get(svc, id, false);
    pthread_mutex_unlock(&svc->mu);
    if (!job || !svcStatusFinal(job->status)) {
        svcJobFree(job);
        svcHttp_Header(rq, "Retry-After", "1");
        return svcHttp_Error(rq, 503, "stopping", NULL, "the server is stopping");
    }
    char idbuf[32];
    snprintf(idbuf, sizeof idbuf, "%lld", (long long)id);
    svcHttp_Header(rq, "X-Tplan-Job", idbuf);
    svcHttp_Header(rq, "X-Tplan-Status", svcStatusName(job->status));
    enum MHD_Result r;
    if ((job->status == SVC_SOLVED || job->status == SVC_APPROXIMATE) && job->has_plan) {
        r = send_file(rq, id, "plan.json", "application/json", 200);
    } else {
        const char *code = job->err_code[0] ? job->err_code : "internal";
        unsigned http = sync_error_status(code);
        if (http == 503) {
            svcHttp_Header(rq, "Retry-After", "1");
        }
        r = svcHttp_Error(rq, http, code, NULL, "%s", job->err_message ? job->err_message : "the job failed");
    }
    svcJobFree(job);
    return r;
}

/* ---- GET /v1/jobs, /v1/jobs/{id}, DELETE ----------------------------------------------------- */

static bool query_int(svcReq *rq, const char *name, long long lo, long long hi, long long *out)
{
    const char *v = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, name);
    if (!v) {
        return true;
    }
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno || x < lo || x > hi) {
        return false;
    }
    *out = x;
    return true;
}

enum MHD_Result svcApi_List(svcReq *rq)
{
    tpService *svc = rq->svc;
    long long limit = 50, after = 0;
    if (!query_int(rq, "limit", 1, 500, &limit)) {
        return svcHttp_Error(rq, 400, "bad_field", "limit", "limit must be an integer in 1..500");
    }
    if (!query_int(rq, "after", 1, LLONG_MAX, &after)) {
        return svcHttp_Error(rq, 400, "bad_field", "after", "after must be a job id");
    }
    const char *sname = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, "status");
    int status = -1;
    if (sname && sname[0]) {
        status = svcStatusFromName(sname);
        if (status < 0) {
            return svcHttp_Error(rq, 400, "bad_field", "status",
                                 "status must be queued, running, solved, approximate, failed or cancelled");
        }
    }
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(o, "jobs");
    pthread_mutex_lock(&svc->mu);
    int n = 0;
    int64_t *ids = svcStore_List(svc, status, after, (int)limit, &n);
    pthread_mutex_unlock(&svc->mu);
    for (int i = 0; i < n; ++i) { /* the lock job by job: a long list never stalls other requests */
        pthread_mutex_lock(&svc->mu);
        svcJob *job = svcSched_Find(svc, ids[i]);
        cJSON *j = job ? svcJobToCJson(job) : NULL;
        pthread_mutex_unlock(&svc->mu);
        if (!job) {
            pthread_mutex_lock(&svc->mu);
            svcJob *stored = svcStore_Get(svc, ids[i], false);
            pthread_mutex_unlock(&svc->mu);
            j = stored ? svcJobToCJson(stored) : NULL;
            svcJobFree(stored);
        }
        if (j) {
            cJSON_AddItemToArray(arr, j);
        }
    }
    if (n == limit && n > 0) {
        cJSON_AddNumberToObject(o, "next", (double)ids[n - 1]);
    } else {
        cJSON_AddNullToObject(o, "next");
    }
    free(ids);
    char *body = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return svcHttp_JsonOwned(rq, 200, body);
}

static enum MHD_Result unknown_job(svcReq *rq, int64_t id)
{
    return svcHttp_Error(rq, 404, "not_found", NULL, "no job %lld", (long long)id);
}

enum MHD_Result svcApi_Get(svcReq *rq, int64_t id)
{
    pthread_mutex_lock(&rq->svc->mu);
    char *body = job_json(rq->svc, id);
    pthread_mutex_unlock(&rq->svc->mu);
    return body ? svcHttp_JsonOwned(rq, 200, body) : unknown_job(rq, id);
}

enum MHD_Result svcApi_Cancel(svcReq *rq, int64_t id)
{
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    svcJob *job = svcSched_Find(svc, id);
    if (!job) {
        svcStatus st;
        bool known = job_status(svc, id, &st);
        pthread_mutex_unlock(&svc->mu);
        if (!known) {
            return unknown_job(rq, id);
        }
        return svcHttp_Error(rq, 409, "conflict", NULL, "job %lld is already %s", (long long)id, svcStatusName(st));
    }
    svcLog(svc, "job %lld: cancel requested", (long long)id);
    svcSched_Cancel(svc, job, "cancelled", "cancelled by a DELETE request");
    /* a running job ends when the scheduler has reaped its worker (milliseconds) */
    while (svcSched_Find(svc, id) && !svc->stopping) {
        wait_change(svc, 0.25);
    }
    char *body = job_json(svc, id);
    pthread_mutex_unlock(&svc->mu);
    return body ? svcHttp_JsonOwned(rq, 200, body) : unknown_job(rq, id);
}

/* ---- files ------------------------------------------------------------------------------------ */

static enum MHD_Result send_file(svcReq *rq, int64_t id, const char *name, const char *type, unsigned code)
{
    char path[4096];
    svcJobPath(rq->svc, id, name, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (fd >= 0) {
            close(fd);
        }
        return svcHttp_Error(rq, 500, "internal", NULL, "job %lld: its %s is missing from the data directory",
                             (long long)id, name);
    }
    struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd); /* closes fd */
    char disp[128];
    snprintf(disp, sizeof disp, "attachment; filename=\"tplan-job-%lld.%s\"", (long long)id,
             strcmp(name, "plan.json") == 0 ? "plan.json" : "tree");
    svcHttp_Header(rq, "Content-Disposition", disp);
    svcHttp_Header(rq, "Cache-Control", "private, max-age=3600"); /* a finished job's files never change */
    return svcHttp_Send(rq, code, r, type);
}

enum MHD_Result svcApi_File(svcReq *rq, int64_t id, bool plan)
{
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    svcJob *active = svcSched_Find(svc, id);
    svcStatus st = active ? active->status : SVC_QUEUED;
    svcJob *job = active ? NULL : svcStore_Get(svc, id, false);
    pthread_mutex_unlock(&svc->mu);
    if (!active && !job) {
        return unknown_job(rq, id);
    }
    bool has = job && (plan ? job->has_plan : job->has_tree);
    if (job) {
        st = job->status;
    }
    svcJobFree(job);
    if (!has) {
        return svcHttp_Error(rq, 404, "not_found", NULL, "job %lld has no %s (%s%s)", (long long)id,
                             plan ? "plan" : "tree file", svcStatusName(st),
                             !plan && svcStatusFinal(st) ? "; submit with \"tree\": true" : "");
    }
    return plan ? send_file(rq, id, "plan.json", "application/json", 200)
                : send_file(rq, id, "tree.bin", "application/octet-stream", 200);
}

/* GET /v1/jobs/{id}/log: what the job's script printed (written by its worker, capped, escaped:
 * cli/cmd_worker.c); there while the job runs and after. */
enum MHD_Result svcApi_Log(svcReq *rq, int64_t id)
{
    svcStatus st;
    pthread_mutex_lock(&rq->svc->mu);
    bool known = job_status(rq->svc, id, &st);
    pthread_mutex_unlock(&rq->svc->mu);
    if (!known) {
        return unknown_job(rq, id);
    }
    char path[4096];
    svcJobPath(rq->svc, id, "log.txt", path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (fd >= 0) {
            close(fd);
        }
        return svcHttp_Error(rq, 404, "not_found", NULL, "job %lld has no log: its script printed nothing (%s)",
                             (long long)id, svcStatusName(st));
    }
    struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd); /* closes fd */
    svcHttp_Header(rq, "Cache-Control", "no-store");
    svcHttp_Header(rq, "X-Content-Type-Options", "nosniff");
    return svcHttp_Send(rq, 200, r, "text/plain; charset=utf-8");
}

/* ---- GET /v1/jobs/{id}/events: Server-Sent Events -------------------------------------------- */

typedef struct Sse {
    tpService *svc;
    int64_t id;
    uint64_t version;
    bool sent_any, ended;
    char *pending; /* bytes not yet handed to libmicrohttpd */
    size_t plen, poff;
} Sse;

static bool sse_push(Sse *s, const char *event, const char *data)
{
    size_t n = strlen(event) + strlen(data) + 32;
    char *grown = realloc(s->pending, s->plen + n);
    if (!grown) {
        return false;
    }
    s->pending = grown;
    size_t at = s->plen;
    s->plen += (size_t)snprintf(s->pending + s->plen, n, "event: %s\ndata: %s\n\n", event, data);
    svcUtf8Repair(s->pending + at); /* valid UTF-8 whatever a script's message held */
    return true;
}

/* Fills s->pending with the next events (mu held); false when the stream must end in error. */
static bool sse_next(Sse *s)
{
    tpService *svc = s->svc;
    for (;;) {
        if (svc->stopping) {
            return false;
        }
        svcJob *job = svcSched_Find(svc, s->id);
        if (job) {
            if (!s->sent_any || job->version != s->version) {
                char *data = svcJobJson(job);
                bool ok = data && sse_push(s, "job", data);
                free(data);
                s->version = job->version;
                s->sent_any = true;
                return ok;
            }
            struct timespec t0;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            wait_change(svc, 15.0);
            struct timespec t1;
            clock_gettime(CLOCK_MONOTONIC, &t1);
            if ((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9 >= 14.9) {
                char *grown = realloc(s->pending, s->plen + 16);
                if (!grown) {
                    return false;
                }
                s->pending = grown;
                memcpy(s->pending + s->plen, ": ping\n\n", 8);
                s->plen += 8;
                return true;
            }
            continue;
        }
        char *data = job_json(svc, s->id);
        bool ok = data && (s->sent_any || sse_push(s, "job", data)) && sse_push(s, "end", data);
        free(data);
        s->ended = true;
        return ok;
    }
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    Sse *s = cls;
    if (s->poff == s->plen) {
        s->poff = s->plen = 0;
        if (s->ended) {
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        pthread_mutex_lock(&s->svc->mu);
        bool ok = sse_next(s);
        pthread_mutex_unlock(&s->svc->mu);
        if (!ok) {
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
    }
    size_t n = s->plen - s->poff < max ? s->plen - s->poff : max;
    memcpy(buf, s->pending + s->poff, n);
    s->poff += n;
    return (ssize_t)n;
}

static void sse_free(void *cls)
{
    Sse *s = cls;
    free(s->pending);
    free(s);
}

enum MHD_Result svcApi_Events(svcReq *rq, int64_t id)
{
    tpService *svc = rq->svc;
    svcStatus st;
    pthread_mutex_lock(&svc->mu);
    bool exists = job_status(svc, id, &st);
    pthread_mutex_unlock(&svc->mu);
    if (!exists) {
        return unknown_job(rq, id);
    }
    Sse *s = calloc(1, sizeof *s);
    if (!s) {
        return svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
    s->svc = svc;
    s->id = id;
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read, s, sse_free);
    if (!r) {
        sse_free(s);
        return svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
    svcHttp_Header(rq, "Cache-Control", "no-store");
    svcHttp_Header(rq, "X-Accel-Buffering", "no");
    return svcHttp_Send(rq, 200, r, "text/event-stream");
}
