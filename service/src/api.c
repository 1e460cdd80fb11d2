/* tplan service: the /v1 handlers (docs/service.md). Handlers hold svc->mu only briefly and never
 * keep a job pointer across a wait: a finished job leaves memory and is read back from the store. */
#define _GNU_SOURCE /* strptime, timegm */
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
#include <zlib.h>

#include "http_internal.h"
#include "tp/base.h"
#include "tp/json_text.h"
#include "tp/run_def.h"

/* forward: the entity tag of a finished job's object or file */
static void job_etag(int64_t id, double finished, const char *what, char *out, size_t cap);
static bool not_modified(svcReq *rq, const char *etag);
static enum MHD_Result send_not_modified(svcReq *rq, const char *etag);

/* ---- helpers ------------------------------------------------------------------------------ */

/* Waits on svc->changed until woken or `seconds` passed (mu held). */
void svcApi_WaitChange(tpService *svc, double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double t = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + (seconds > 0 ? seconds : 0);
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    pthread_cond_timedwait(&svc->changed, &svc->mu, &ts);
}

/* The job id while this process's scheduler holds it active; NULL otherwise, and always with a
 * PostgreSQL store, whose records are the truth whichever node plans the job (store_pg.c). */
svcJob *svcApi_LocalJob(tpService *svc, int64_t id)
{
    return svc->cluster ? NULL : svcSched_Find(svc, id);
}

/* Job id read from the store (NULL if there is none); a read that failed (a statement's error, the
 * database away: svc->store_errors moved) sets *down, so that the caller answers 503
 * store_unavailable and never 404 for a job that may well exist. mu held. */
svcJob *svcApi_StoredJob(tpService *svc, int64_t id, bool with_script, bool *down)
{
    uint64_t mark = svc->store_errors;
    svcJob *job = svcStore_Get(svc, id, with_script);
    *down = *down || (!job && svc->store_errors != mark);
    return job;
}

/* The job object of id as JSON (malloc'd), from memory while active, else from the store; NULL if
 * unknown (or the store failed: *down). mu held. */
char *svcApi_JobJson(tpService *svc, int64_t id, bool *down)
{
    svcJob *job = svcApi_LocalJob(svc, id);
    if (job) {
        return svcJobJson(job);
    }
    job = svcApi_StoredJob(svc, id, false, down);
    if (!job) {
        return NULL;
    }
    char *s = svcJobJson(job);
    svcJobFree(job);
    return s;
}

/* The status of job id (active or stored); false if unknown (or the store failed: *down). mu held. */
bool svcApi_JobStatus(tpService *svc, int64_t id, svcStatus *status, bool *down)
{
    svcJob *job = svcApi_LocalJob(svc, id);
    if (job) {
        *status = job->status;
        return true;
    }
    job = svcApi_StoredJob(svc, id, false, down);
    if (job) {
        *status = job->status;
    }
    svcJobFree(job);
    return job != NULL;
}

/* 503 store_unavailable with Retry-After: the store failed while the request was served (PostgreSQL
 * away or refusing its statements): whether the job exists, or what the list holds, is not known. */
static enum MHD_Result store_unavailable(svcReq *rq)
{
    svcHttp_Header(rq, "Retry-After", "5");
    return svcHttp_Error(rq, 503, "store_unavailable", NULL,
                         "the job store does not answer (%s): retry later; GET /v1/health says when it is back",
                         rq->svc->cluster ? "PostgreSQL unreachable or refusing statements" : "see the server's log");
}

enum MHD_Result svcApi_Health(svcReq *rq, bool full)
{
    tpService *svc = rq->svc;
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
    svcHttp_Header(rq, "Cache-Control", "no-store");
    pthread_mutex_lock(&svc->mu);
    bool failed = svcStore_Failed(svc);
    bool away = svc->cluster && !svcCluster_Ping(svc); /* a front end without its database serves nothing */
    bool draining = svc->draining;                     /* SIGTERM: a load balancer sends the next requests elsewhere */
    pthread_mutex_unlock(&svc->mu);
    if (failed || away || draining) {
        svcHttp_Header(rq, "Retry-After", "5");
    }
    const char *state = failed ? "store_failed" : away ? "store_unreachable" : draining ? "draining" : "ok";
    failed = failed || away || draining;
    if (!full) { /* liveness without the token: nothing about the jobs */
        char live[64];
        snprintf(live, sizeof live, "{\"status\":\"%s\"}", state);
        return svcHttp_Text(rq, failed ? 503 : 200, live, "application/json");
    }
    char body[384];
    pthread_mutex_lock(&svc->mu);
    int64_t counts[SVC_NSTATUS] = {0};
    if (svc->cluster) { /* the cluster's queue */
        uint64_t mark = svc->store_errors;
        svcStore_Counts(svc, counts);
        if (svc->store_errors != mark && !failed) { /* it went away since the ping */
            state = "store_unreachable";
            failed = true;
            svcHttp_Header(rq, "Retry-After", "5");
        }
    } else {
        counts[SVC_QUEUED] = svcCountActive(svc, SVC_QUEUED);
        counts[SVC_RUNNING] = svcCountActive(svc, SVC_RUNNING);
    }
    snprintf(body, sizeof body,
             "{\"status\":\"%s\",\"workers\":%d,\"interactive_workers\":%d,\"queued\":%lld,\"running\":%lld,"
             "\"retention\":{\"keep_days\":%g,\"keep_jobs\":%d,\"keep_mb\":%lld}}",
             state, svc->nworkers, svc->ninteractive, (long long)counts[SVC_QUEUED], (long long)counts[SVC_RUNNING],
             svc->def.keep_days, svc->def.keep_jobs, svc->def.keep_mb);
    pthread_mutex_unlock(&svc->mu);
    return svcHttp_Text(rq, failed ? 503 : 200, body, "application/json");
}

enum MHD_Result svcApi_Metrics(svcReq *rq)
{
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
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
    tplan_run_def run; /* the run's fields, read by the run definition's own reader (tp/run.h) */
    char domain[128];  /* "" for a script */
    const char *script;
    size_t script_len;
    double time_limit;
    int memory_mb;
    const char *name;  /* NULL = none */
    const cJSON *tags; /* array, NULL = none */
    int priority;      /* SVC_PRIORITY_MIN..MAX, 0 = the default */
    double run_at;     /* unix s, 0 = at once */
    int retries;       /* 0..SVC_RETRIES_MAX */
} Submission;

/* A name or tag: 1..max bytes, no control characters. */
static bool good_label(const cJSON *v, size_t max)
{
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) > max) {
        return false;
    }
    for (const unsigned char *p = (const unsigned char *)v->valuestring; *p; ++p) {
        if (*p < 0x20 || *p == 0x7f) {
            return false;
        }
    }
    return true;
}

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

static bool check_request(svcReq *rq, const cJSON *req, Submission *sub, enum MHD_Result *answered)
{
    tpService *svc = rq->svc;
#define BAD(code, field, ...)                                                                                          \
    do {                                                                                                               \
        *answered = svcHttp_Error(rq, code, code == 404 ? "unknown_domain" : "bad_field", field, __VA_ARGS__);         \
        return false;                                                                                                  \
    } while (0)
    memset(sub, 0, sizeof *sub);
    tplan_run_def_init(&sub->run);
    sub->time_limit = svc->def.default_time;
    sub->memory_mb = svc->def.default_memory_mb;
    double bounds[TP_RUNF_BOUND_COUNT] = {0};
    bounds[TP_RUNF_BOUND_MAX_TIME] = svc->def.max_time;
    bounds[TP_RUNF_BOUND_WORKERS] = svc->nworkers;
    bounds[TP_RUNF_BOUND_MAX_MEMORY] = svc->def.max_memory_mb;
    const cJSON *f;
    cJSON_ArrayForEach(f, req)
    {
        const char *k = f->string;
        /* A field of the run definition: its row of the table (tp/run_fields.h) says whether a
           request may give it and the service's range; the server's options bound it (one check,
           the reader's). The script limits are the server's to set: memory_mb bounds the Lua heap
           and the search, the time limit bounds loading and callbacks. */
        const tpRunField *row = tpRun_FindField(k);
        if (row && (row->who & TP_RUNF_SERVER)) {
            BAD(400, k,
                "%s is set by the server (memory_mb bounds the Lua heap and the search; time_limit the "
                "script's load and callbacks)",
                k);
        }
        tplan_error e;
        int taken = row ? tpRun_ReadRequestField(&sub->run, f, bounds, &e) : 0;
        if (taken < 0) {
            BAD(400, e.field, "%s", e.message);
        }
        if (taken > 0) {
            sub->time_limit = sub->run.time_limit > 0 ? sub->run.time_limit : sub->time_limit;
            sub->memory_mb = sub->run.memory_limit_mb > 0 ? (int)sub->run.memory_limit_mb : sub->memory_mb;
            continue;
        }
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
        } else if (strcmp(k, "state") == 0) {
            /* the state file's reader (tp/run.h), strictly; what fits the domain (its bodies, the
               overlaps) the state checker tells before queueing (svcApi_Submit), or else the worker
               once the script is loaded (error code bad_state) */
            char *text = cJSON_IsObject(f) ? tpJson_PrintChecked(f) : NULL;
            tplan_state *st = text ? tpState_Parse(text, strlen(text), &e) : NULL;
            cJSON_free(text);
            tplan_state_free(st);
            if (!cJSON_IsObject(f)) {
                BAD(400, "state", "state must be an object: a state file (docs/embedding.md, \"States\")");
            }
            if (!st) {
                char field[96];
                snprintf(field, sizeof field, "state%s%s", e.field[0] ? "." : "", e.field);
                BAD(400, field, "%s", e.message);
            }
        } else if (strcmp(k, "tree") == 0) {
            if (!cJSON_IsBool(f)) {
                BAD(400, "tree", "tree must be true or false");
            }
        } else if (strcmp(k, "name") == 0) {
            if (!good_label(f, SVC_MAX_NAME)) {
                BAD(400, "name", "name must be a string of 1-%d bytes without control characters", SVC_MAX_NAME);
            }
            sub->name = f->valuestring;
        } else if (strcmp(k, "priority") == 0) {
            if (!is_integer(f, SVC_PRIORITY_MIN, SVC_PRIORITY_MAX)) {
                BAD(400, "priority", "priority must be an integer in %d..%d (higher is planned first; 0 by default)",
                    SVC_PRIORITY_MIN, SVC_PRIORITY_MAX);
            }
            sub->priority = (int)f->valuedouble;
        } else if (strcmp(k, "retries") == 0) {
            if (!is_integer(f, 0, SVC_RETRIES_MAX)) {
                BAD(400, "retries",
                    "retries must be an integer in 0..%d (times the job is queued again after a worker crash)",
                    SVC_RETRIES_MAX);
            }
            sub->retries = (int)f->valuedouble;
        } else if (strcmp(k, "run_at") == 0) {
            double latest = svcNow() + SVC_RUN_AT_MAX_AHEAD;
            if (!cJSON_IsNumber(f) || !(f->valuedouble >= 0) || !(f->valuedouble <= latest)) {
                BAD(400, "run_at",
                    "run_at must be a unix time in seconds, at most %d days ahead (the job is not started before it)",
                    SVC_RUN_AT_MAX_AHEAD / 86400);
            }
            sub->run_at = f->valuedouble;
        } else if (strcmp(k, "tags") == 0) {
            if (!cJSON_IsArray(f) || cJSON_GetArraySize(f) > SVC_MAX_TAGS) {
                BAD(400, "tags", "tags must be an array of at most %d strings", SVC_MAX_TAGS);
            }
            const cJSON *t;
            cJSON_ArrayForEach(t, f)
            {
                if (!good_label(t, SVC_MAX_TAG)) {
                    BAD(400, "tags", "a tag must be a string of 1-%d bytes without control characters", SVC_MAX_TAG);
                }
            }
            sub->tags = f;
        } else {
            char shown[80];
            snprintf(shown, sizeof shown, "%.60s", k);
            char known[512] = "domain, script, set, state";
            for (int i = 0; i < tpRun_FieldCount; ++i) { /* the run fields a request may give */
                if (tpRun_Fields[i].who & TP_RUNF_SERVICE) {
                    size_t n = strlen(known);
                    snprintf(known + n, sizeof known - n, ", %s", tpRun_Fields[i].name);
                }
            }
            size_t n = strlen(known);
            snprintf(known + n, sizeof known - n, ", tree, name, tags, priority, run_at, retries");
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
    /* a state's numbers to the bit (cJSON's printer may move the last one): its plan is then the
       plan `tplan plan --state` makes of the same file */
    char *s = tpJson_ExactNumbers(copy) ? tpJson_PrintChecked(copy) : NULL;
    cJSON_Delete(copy);
    return s;
}

static enum MHD_Result answer_sync(svcReq *rq, int64_t id, double deadline);
static enum MHD_Result queue_job(svcReq *rq, svcJob *job, const char *key, const char *hash, bool sync, double wait);

/* The job an Idempotency-Key names, if any (svc->mu held): answers its replay, or 422 when the key
 * came with another body, in *out, unlocks svc->mu, frees *job and returns true; false (still
 * locked, *job untouched) when the key names no job yet. */
static bool idem_replay(svcReq *rq, const char *key, const char *hash, bool sync, double wait, svcJob **job,
                        enum MHD_Result *out)
{
    tpService *svc = rq->svc;
    char first[40] = "";
    int64_t id = svcStore_FindIdem(svc, key, first, sizeof first);
    if (id <= 0) {
        return false;
    }
    svcStatus st = SVC_QUEUED;
    svcApi_JobStatus(svc, id, &st, &rq->store_down);
    pthread_mutex_unlock(&svc->mu);
    svcJobFree(*job);
    *job = NULL;
    if (strcmp(first, hash) != 0) {
        *out = svcHttp_Error(rq, 422, "idempotency_mismatch", "Idempotency-Key",
                             "this Idempotency-Key was used for job %lld with another body", (long long)id);
        return true;
    }
    char body[128], loc[64];
    snprintf(body, sizeof body, "{\"id\":%lld,\"status\":\"%s\"}", (long long)id, svcStatusName(st));
    snprintf(loc, sizeof loc, "/v1/jobs/%lld", (long long)id);
    svcHttp_Header(rq, "Location", loc);
    svcHttp_Header(rq, "Idempotent-Replayed", "true");
    *out = sync ? answer_sync(rq, id, rq->t0 + wait) : svcHttp_Text(rq, 201, body, "application/json");
    return true;
}

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
    const char *unknown = svcHttp_UnknownQuery(rq, sync ? "wait" : "");
    if (unknown) {
        return svcHttp_BadQuery(rq, unknown, sync ? "wait" : "none");
    }
    if (sync) {
        const char *w = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, "wait");
        char *end = NULL;
        wait = w ? strtod(w, &end) : 10.0;
        /* a plain decimal (strtod also takes " 1", "0x10", "1e1", "inf") */
        bool plain = w && w[strspn(w, "0123456789.")] == '\0' && strchr("0123456789.", w[0]);
        if (w && (!plain || end == w || *end || !(wait > 0) || wait > svc->def.max_time)) {
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
    if (!req && tpJson_IsDocument(rq->body, rq->len)) { /* the body is fine: no memory to read it */
        return svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
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
        if (strncmp(bad, "out of memory", 13) == 0) { /* the server's lack, not the client's body */
            return svcHttp_Error(rq, 500, "internal", NULL, "%s", bad);
        }
        return svcHttp_Error(rq, 400, "bad_json", bad_field[0] ? bad_field : NULL, "%s", bad);
    }
    Submission sub;
    enum MHD_Result answered = MHD_NO;
    if (!check_request(rq, req, &sub, &answered)) {
        cJSON_Delete(req);
        return answered;
    }
    if (sync && sub.run_at > 0) {
        cJSON_Delete(req);
        return svcHttp_Error(rq, 400, "bad_field", "run_at",
                             "run_at schedules a job of POST /v1/jobs; POST /v1/plan plans now, within its wait");
    }
    const char *key = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Idempotency-Key");
    if (key && (!key[0] || strlen(key) > 200)) {
        cJSON_Delete(req);
        return svcHttp_Error(rq, 400, "bad_field", "Idempotency-Key", "Idempotency-Key must be 1-200 characters");
    }
    /* a state must fit its domain: what only its script can tell, the checker tells before the job is
       queued (statecheck.c); a synchronous job's worker checks it (its answer names the field too),
       where the check's load would cost the game's deadline */
    if (!sync && cJSON_GetObjectItemCaseSensitive(req, "state")) {
        char field[128], msg[2048], named[160];
        if (svcCheck_State(svc, req, sub.domain, sub.script, sub.time_limit, sub.memory_mb, field, sizeof field, msg,
                           sizeof msg) == SVC_CHECK_BAD) {
            cJSON_Delete(req);
            snprintf(named, sizeof named, "state%s%s", field[0] ? "." : "", field);
            return svcHttp_Error(rq, 400, "bad_state", named, "%s", msg);
        }
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
    job->name = sub.name ? strdup(sub.name) : NULL;
    job->tags = sub.tags ? tpJson_PrintChecked(sub.tags) : NULL;
    cJSON_Delete(req);
    job->run = sub.run; /* the request's run fields, as check_request read them */
    job->run.time_limit = sub.time_limit;
    job->run_read = true;
    job->memory_mb = sub.memory_mb;
    job->priority = sub.priority;
    job->retries = sub.retries;
    job->run_at = sub.run_at > svcNow() ? sub.run_at : 0; /* a time past is now */
    job->best_quality = NAN;
    job->created = svcNow();
    job->sync = sync;
    job->sync_deadline = rq->t0 + wait;
    if (!job->domain || !job->request || (sub.script && !job->script) || (sub.name && !job->name) ||
        (sub.tags && !job->tags)) {
        svcJobFree(job);
        return svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
    return queue_job(rq, job, key, hash, sync, wait);
}

/* Queues a new job (a submission's, or a retry's): the Idempotency-Key's replay, the store's state,
 * the client's quota and the queue's bound first; answers 201 (or the synchronous plan). Takes job. */
static enum MHD_Result queue_job(svcReq *rq, svcJob *job, const char *key, const char *hash, bool sync, double wait)
{
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    uint64_t mark = svc->store_errors;
    enum MHD_Result replayed;
    if (key && idem_replay(rq, key, hash, sync, wait, &job, &replayed)) {
        return replayed;
    }
    if (svcStore_Failed(svc)) {
        pthread_mutex_unlock(&svc->mu);
        svcJobFree(job);
        svcHttp_Header(rq, "Retry-After", "5");
        return svcHttp_Error(rq, 503, "store_unavailable", NULL,
                             svc->cluster ? "the job store refuses writes (PostgreSQL's disk full or read-only? see "
                                            "the server's log): no new jobs until it takes them again; retry later"
                                          : "the job store cannot be written (disk full? see the server's log): no "
                                            "new jobs until the server is restarted");
    }
    client_address(rq, job->client, sizeof job->client);
    int quota = svc->def.max_queued_per_client > 0 ? svc->def.max_queued_per_client
                : svc->def.max_queue < 250         ? svc->def.max_queue
                                                   : 250;
    int mine = 0, queued = 0;
    if (svc->cluster) { /* the cluster's queue: every front end's jobs */
        svcCluster_CountQueued(svc, job->client, &queued, &mine);
    } else {
        for (int i = 0; i < svc->nactive && job->client[0]; ++i) {
            mine += svc->active[i]->status == SVC_QUEUED && strcmp(svc->active[i]->client, job->client) == 0;
        }
        queued = svcCountActive(svc, SVC_QUEUED);
    }
    if (mine >= quota && queued < svc->def.max_queue) {
        pthread_mutex_unlock(&svc->mu);
        svcJobFree(job);
        svcHttp_Header(rq, "Retry-After", "1");
        return svcHttp_Error(rq, 429, "client_quota", NULL,
                             "%d of your jobs are waiting, the most one client may queue (--max-queued-per-client); "
                             "retry when one has started",
                             mine);
    }
    if (queued >= svc->def.max_queue) {
        pthread_mutex_unlock(&svc->mu);
        svcJobFree(job);
        svcHttp_Header(rq, "Retry-After", "1");
        return svcHttp_Error(rq, 429, "queue_full", NULL, "the queue is full (%d jobs waiting); retry later",
                             svc->def.max_queue);
    }
    if (!svcStore_Insert(svc, job, key, hash) || (!svc->cluster && !svcSched_Enqueue(svc, job))) {
        /* a cluster's other front end may have stored the same new Idempotency-Key a moment ago
           (the store's insert gives way to it): then this request is that job's replay */
        if (key && svc->cluster && job->id == 0 && idem_replay(rq, key, hash, sync, wait, &job, &replayed)) {
            return replayed;
        }
        bool down = svc->store_errors != mark;
        pthread_mutex_unlock(&svc->mu);
        svcJobFree(job);
        if (down) { /* the store failed (away, full, read-only): the client may retry; nothing was stored */
            return store_unavailable(rq);
        }
        return svcHttp_Error(rq, 500, "internal", NULL, "the job could not be stored");
    }
    free(job->script); /* a queued script waits in the store: the scheduler reads it when a worker takes it */
    job->script = NULL;
    int64_t id = job->id;
    double deadline = job->sync_deadline;
    if (job->retry_of > 0) {
        svcLog(svc, "job %lld queued (%s, a retry of job %lld)", (long long)id, job->domain, (long long)job->retry_of);
    } else {
        svcLog(svc, "job %lld queued (%s%s)", (long long)id, job->domain, sync ? ", synchronous" : "");
    }
    if (svc->cluster) { /* the store holds it; a node claims it */
        svcJobFree(job);
    }
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
static enum MHD_Result send_file(svcReq *rq, int64_t id, const char *name, const char *type, unsigned code,
                                 double finished, int interim);

static unsigned sync_error_status(const char *code)
{
    if (strcmp(code, "script_error") == 0 || strcmp(code, "bad_state") == 0) {
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

/* The answer of a synchronous call is on its way this long before its deadline (s): the handler's
 * wake and the sending of a short answer. */
#define SYNC_SEND_MARGIN 0.002

/* POST /v1/plan: waits for job id until its final state or its deadline, which is hard: the job's
 * search was planned to end before it (sched.c's reserve), and a job still queued then is refused
 * (503 no_worker), one still running (a worker preempted, a plan slow to write) answered 503
 * deadline_missed, its plan kept for GET /v1/jobs/ID/plan when it ends. */
static enum MHD_Result answer_sync(svcReq *rq, int64_t id, double deadline)
{
    tpService *svc = rq->svc;
    const double cut = deadline - SYNC_SEND_MARGIN;
    bool missed = false;
    svcStatus at_cut = SVC_QUEUED;
    pthread_mutex_lock(&svc->mu);
    while (svc->cluster && !svc->stopping) { /* whichever node plans it */
        svcStatus st;
        if (!svcApi_JobStatus(svc, id, &st, &rq->store_down) || svcStatusFinal(st)) {
            break;
        }
        double now = svcNow();
        if (now >= cut) {
            if (st == SVC_QUEUED && svcCluster_DropQueued(svc, id)) {
                break; /* no node took it in time: 503 no_worker, and not left behind as a job */
            }
            missed = true; /* a node runs it (its own scheduler stops it if it runs on far past) */
            at_cut = st;
            break;
        }
        svcApi_WaitChange(svc, fmin(0.25, cut - now));
    }
    for (;;) {
        svcJob *job = svcApi_LocalJob(svc, id);
        if (!job || svc->stopping || missed) {
            break;
        }
        double now = svcNow();
        if (now >= cut) {
            if (job->status == SVC_QUEUED) { /* refused as the scheduler's tick would: deleted */
                svcSched_Cancel(svc, job, "no_worker", "no worker became free before the deadline");
                continue;
            }
            missed = true;
            at_cut = job->status;
            break;
        }
        svcApi_WaitChange(svc, fmin(0.25, cut - now));
    }
    if (missed) {
        pthread_mutex_unlock(&svc->mu);
        char idbuf[32];
        snprintf(idbuf, sizeof idbuf, "%lld", (long long)id);
        svcHttp_Header(rq, "X-Tplan-Job", idbuf);
        svcHttp_Header(rq, "X-Tplan-Status", svcStatusName(at_cut));
        svcHttp_Header(rq, "Retry-After", "1");
        return svcHttp_Error(rq, 503, "deadline_missed", NULL,
                             "job %lld had no plan ready within the wait of %.3g s (still %s; the machine is "
                             "busy?); its plan will be at /v1/jobs/%lld/plan when it ends",
                             (long long)id, deadline - rq->t0, svcStatusName(at_cut), (long long)id);
    }
    svcJob *job = svcApi_StoredJob(svc, id, false, &rq->store_down);
    bool stopping = svc->stopping;
    pthread_mutex_unlock(&svc->mu);
    if (!job && rq->store_down) { /* the job may be planned and stored: the client asks again later */
        return store_unavailable(rq);
    }
    if (!job && !stopping) { /* refused for want of a worker: the scheduler deleted it (not left as a job) */
        svcHttp_Header(rq, "Retry-After", "1");
        return svcHttp_Error(rq, 503, "no_worker", NULL,
                             "no worker became free before the deadline (every interactive and batch worker was busy)");
    }
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
        r = send_file(rq, id, "plan.json", "application/json", 200, job->finished, 0);
    } else {
        const char *code = job->err_code[0] ? job->err_code : "internal";
        unsigned http = sync_error_status(code);
        if (http == 503) {
            svcHttp_Header(rq, "Retry-After", "1");
        }
        /* a state that does not fit the domain: "state: bodies.cue: ..." names the field */
        char field[96] = "";
        const char *m = job->err_message ? job->err_message : "";
        const size_t n = strcmp(code, "bad_state") == 0 && strncmp(m, "state: ", 7) == 0 ? strcspn(m + 7, ": ") : 0;
        if (n > 0 && n < 80 && m[7 + n] == ':') {
            snprintf(field, sizeof field, "state.%.*s", (int)n, m + 7);
        }
        r = svcHttp_Error(rq, http, code, field[0] ? field : NULL, "%s",
                          job->err_message ? job->err_message : "the job failed");
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

/* A time filter: unix seconds (a number) or an ISO 8601 UTC time "2026-11-26T19:00:00Z"; false if bad. */
static bool query_time(svcReq *rq, const char *name, double *out)
{
    const char *v = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, name);
    if (!v) {
        return true;
    }
    char *end = NULL;
    double t = strtod(v, &end);
    if (end != v && !*end && isfinite(t) && t > 0) {
        *out = t;
        return true;
    }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *rest = strptime(v, "%Y-%m-%dT%H:%M:%S", &tm);
    double frac = 0;
    if (rest && *rest == '.') {
        frac = strtod(rest, &end);
        rest = end;
    }
    if (!rest || strcmp(rest, "Z") != 0) {
        return false;
    }
    time_t secs = timegm(&tm);
    if (secs <= 0) {
        return false;
    }
    *out = (double)secs + frac;
    return true;
}

enum MHD_Result svcApi_List(svcReq *rq)
{
    tpService *svc = rq->svc;
    static const char *const params = "status, limit, after, domain, name, tag, created_after, created_before";
    const char *bad = svcHttp_UnknownQuery(rq, params);
    if (bad) {
        return svcHttp_BadQuery(rq, bad, params);
    }
    long long limit = 50, after = 0;
    if (!query_int(rq, "limit", 1, 500, &limit)) {
        return svcHttp_Error(rq, 400, "bad_field", "limit", "limit must be an integer in 1..500");
    }
    if (!query_int(rq, "after", 1, LLONG_MAX, &after)) {
        return svcHttp_Error(rq, 400, "bad_field", "after", "after must be a job id");
    }
    svcListFilter f = {.status = -1, .before = after, .limit = (int)limit};
    const char *sname = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, "status");
    if (sname) { /* empty is refused as for the other filters, not read as "any" */
        f.status = svcStatusFromName(sname);
        if (f.status < 0) {
            return svcHttp_Error(rq, 400, "bad_field", "status",
                                 "status must be queued, running, solved, approximate, failed or cancelled");
        }
    }
    static const char *const labels[] = {"domain", "name", "tag"};
    const char **dest[] = {&f.domain, &f.name, &f.tag};
    for (int i = 0; i < 3; ++i) {
        const char *v = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, labels[i]);
        if (v && (!v[0] || strlen(v) > SVC_MAX_NAME)) {
            return svcHttp_Error(rq, 400, "bad_field", labels[i], "%s must be 1-%d bytes", labels[i], SVC_MAX_NAME);
        }
        *dest[i] = v;
    }
    if (!query_time(rq, "created_after", &f.created_after)) {
        return svcHttp_Error(rq, 400, "bad_field", "created_after",
                             "created_after must be unix seconds or a UTC time like 2026-11-26T19:00:00Z");
    }
    if (!query_time(rq, "created_before", &f.created_before)) {
        return svcHttp_Error(rq, 400, "bad_field", "created_before",
                             "created_before must be unix seconds or a UTC time like 2026-11-26T19:00:00Z");
    }
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(o, "jobs");
    pthread_mutex_lock(&svc->mu);
    int n = 0;
    uint64_t mark = svc->store_errors;
    int64_t *ids = svcStore_List(svc, &f, &n);
    rq->store_down = !ids && svc->store_errors != mark;
    pthread_mutex_unlock(&svc->mu);
    for (int i = 0; i < n; ++i) { /* the lock job by job: a long list never stalls other requests */
        pthread_mutex_lock(&svc->mu);
        svcJob *job = svcApi_LocalJob(svc, ids[i]);
        cJSON *j = job ? svcJobToCJson(job) : NULL;
        pthread_mutex_unlock(&svc->mu);
        if (!job) {
            pthread_mutex_lock(&svc->mu);
            svcJob *stored = svcApi_StoredJob(svc, ids[i], false, &rq->store_down);
            pthread_mutex_unlock(&svc->mu);
            j = stored ? svcJobToCJson(stored) : NULL;
            svcJobFree(stored);
        }
        if (j) {
            tpJson_Append(arr, j);
        }
    }
    if (!ids || rq->store_down) { /* an incomplete list is not shown as the whole one */
        cJSON_Delete(o);
        free(ids);
        return rq->store_down ? store_unavailable(rq)
                              : svcHttp_Error(rq, 500, "internal", NULL, "the job list could not be read");
    }
    if (n == limit && n > 0) {
        cJSON_AddNumberToObject(o, "next", (double)ids[n - 1]);
    } else {
        cJSON_AddNullToObject(o, "next");
    }
    free(ids);
    char *body = tpJson_PrintChecked(o);
    cJSON_Delete(o);
    return svcHttp_JsonOwned(rq, 200, body);
}

/* 404 for a job that is not in the store, 503 when the store could not be read (rq->store_down). */
enum MHD_Result svcApi_UnknownJob(svcReq *rq, int64_t id)
{
    if (rq->store_down) {
        return store_unavailable(rq);
    }
    return svcHttp_Error(rq, 404, "not_found", NULL, "no job %lld", (long long)id);
}

/* The entity tag of a finished job (its object and files never change again); "" while active. */
static void job_etag(int64_t id, double finished, const char *what, char *out, size_t cap)
{
    snprintf(out, cap, "\"%lld-%s-%llx\"", (long long)id, what, (unsigned long long)(finished * 1e6));
}

/* If-None-Match names etag (or is "*"): the client's copy is current. */
static bool not_modified(svcReq *rq, const char *etag)
{
    const char *inm = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
    return inm && (strstr(inm, etag) || strcmp(inm, "*") == 0);
}

static enum MHD_Result send_not_modified(svcReq *rq, const char *etag)
{
    svcHttp_Header(rq, "ETag", etag);
    struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    return svcHttp_Send(rq, 304, r, NULL);
}

enum MHD_Result svcApi_Get(svcReq *rq, int64_t id)
{
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    svcJob *job = svcApi_LocalJob(svc, id);
    char *body = NULL;
    char etag[96] = "";
    bool found = job != NULL;
    if (job) {
        body = svcJobJson(job);
    } else if ((job = svcApi_StoredJob(svc, id, false, &rq->store_down))) {
        found = true;
        body = svcJobJson(job);
        if (svcStatusFinal(job->status)) { /* a cluster's stored job may still be active: no tag then */
            job_etag(id, job->finished, "job", etag, sizeof etag);
        }
        svcJobFree(job);
    }
    pthread_mutex_unlock(&svc->mu);
    if (found && !body) { /* the job is there: its object could not be made */
        return svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
    if (!body && !etag[0]) {
        return svcApi_UnknownJob(rq, id);
    }
    if (etag[0]) {
        if (not_modified(rq, etag)) {
            free(body);
            return send_not_modified(rq, etag);
        }
        svcHttp_Header(rq, "ETag", etag);
    }
    return svcHttp_JsonOwned(rq, 200, body);
}

/* end_job with a PostgreSQL store (mu held; released here): the request goes through the store to
 * the node that runs the job; the answer waits until that node wrote the final record. */
static enum MHD_Result end_cluster_job(svcReq *rq, int64_t id, char what)
{
    tpService *svc = rq->svc;
    svcStatus st;
    bool known = svcApi_JobStatus(svc, id, &st, &rq->store_down);
    if (!known || svcStatusFinal(st)) {
        pthread_mutex_unlock(&svc->mu);
        return !known ? svcApi_UnknownJob(rq, id)
                      : svcHttp_Error(rq, 409, "conflict", NULL, "job %lld is already %s", (long long)id,
                                      svcStatusName(st));
    }
    svcLog(svc, "job %lld: %s requested", (long long)id, what == 's' ? "stop" : "cancel");
    svcCluster_RequestEnd(svc, id, what, "cancelled", "cancelled by the client");
    while (!svc->stopping && svcApi_JobStatus(svc, id, &st, &rq->store_down) && !svcStatusFinal(st)) {
        svcApi_WaitChange(svc, 0.25);
    }
    char *body = svcApi_JobJson(svc, id, &rq->store_down);
    pthread_mutex_unlock(&svc->mu);
    return body ? svcHttp_JsonOwned(rq, 200, body) : svcApi_UnknownJob(rq, id);
}

/* Cancel (what == 'c') or stop (what == 's') an active job and answer its final object; 409 once
 * final. */
static enum MHD_Result end_job(svcReq *rq, int64_t id, char what)
{
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    if (svc->cluster) {
        return end_cluster_job(rq, id, what);
    }
    svcJob *job = svcApi_LocalJob(svc, id);
    if (!job) {
        svcStatus st;
        bool known = svcApi_JobStatus(svc, id, &st, &rq->store_down);
        pthread_mutex_unlock(&svc->mu);
        if (!known) {
            return svcApi_UnknownJob(rq, id);
        }
        return svcHttp_Error(rq, 409, "conflict", NULL, "job %lld is already %s", (long long)id, svcStatusName(st));
    }
    if (what == 's') {
        svcLog(svc, "job %lld: stop requested", (long long)id);
        svcSched_StopJob(svc, job);
    } else {
        svcLog(svc, "job %lld: cancel requested", (long long)id);
        svcSched_Cancel(svc, job, "cancelled", "cancelled by the client");
    }
    /* a cancelled running job ends when the scheduler has reaped its worker (milliseconds); a stopped
     * one when its worker has written the best plan (the next iteration, then the files) */
    while (svcApi_LocalJob(svc, id) && !svc->stopping) {
        svcApi_WaitChange(svc, 0.25);
    }
    char *body = svcApi_JobJson(svc, id, &rq->store_down);
    pthread_mutex_unlock(&svc->mu);
    return body ? svcHttp_JsonOwned(rq, 200, body) : svcApi_UnknownJob(rq, id);
}

enum MHD_Result svcApi_Action(svcReq *rq, int64_t id, const char *action)
{
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
    return end_job(rq, id, strcmp(action, "stop") == 0 ? 's' : 'c');
}

/* POST /v1/jobs/{id}/retry: a failed or cancelled job runs again as a new job, linked to it (retry_of):
 * the stored request and script copied, queued under a submission's quota; the old job is kept as it
 * ended. 409 for an active or a solved job. */
enum MHD_Result svcApi_Retry(svcReq *rq, int64_t id)
{
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    svcStatus st;
    bool known = svcApi_JobStatus(svc, id, &st, &rq->store_down);
    if (known && st != SVC_FAILED && st != SVC_CANCELLED) {
        pthread_mutex_unlock(&svc->mu);
        return svcHttp_Error(rq, 409, "conflict", NULL, "job %lld is %s: only a failed or cancelled job can be retried",
                             (long long)id, svcStatusName(st));
    }
    uint64_t mark = svc->store_errors;
    svcJob *old = known ? svcStore_GetRun(svc, id) : NULL;
    rq->store_down = rq->store_down || (known && !old && svc->store_errors != mark);
    pthread_mutex_unlock(&svc->mu);
    if (!old) {
        return svcApi_UnknownJob(rq, id);
    }
    /* the stored request under today's limits (a --max-time, --max-memory, --workers or a domain that
       changed since): refused as a new submission would be, the field named; the time limit and memory
       it gets are today's defaults when it asked none */
    cJSON *req = cJSON_Parse(old->request);
    cJSON_DeleteItemFromObjectCaseSensitive(req, "script_bytes");
    if (req && old->script && !cJSON_AddStringToObject(req, "script", old->script)) {
        cJSON_Delete(req);
        req = NULL;
    }
    Submission sub;
    enum MHD_Result answered = MHD_NO;
    bool parsed = req != NULL;
    bool allowed = parsed && check_request(rq, req, &sub, &answered);
    cJSON_Delete(req);
    if (!allowed) {
        svcJobFree(old);
        return parsed ? answered : svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
    svcJob *job = calloc(1, sizeof *job);
    if (!job) {
        svcJobFree(old);
        return svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
    job->status = SVC_QUEUED;
    job->domain = old->domain;
    job->request = old->request;
    job->script = old->script;
    job->script_len = old->script_len;
    job->name = old->name;
    job->tags = old->tags;
    job->run = sub.run; /* the old request's run fields, read again by check_request */
    job->run.time_limit = sub.time_limit;
    job->run_read = true;
    job->memory_mb = sub.memory_mb;
    job->priority = old->priority;
    job->run_at = sub.run_at > svcNow() ? sub.run_at : 0; /* a cancelled scheduled job's time, if still ahead */
    job->retries = old->retries;
    old->domain = old->request = old->script = old->name = old->tags = NULL;
    svcJobFree(old);
    job->best_quality = NAN;
    job->created = svcNow();
    job->retry_of = id;
    return queue_job(rq, job, NULL, NULL, false, 0);
}

enum MHD_Result svcApi_Delete(svcReq *rq, int64_t id)
{
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    svcStatus st = SVC_QUEUED; /* set when known (GCC cannot tell once the query scan left this file) */
    bool known = svcApi_JobStatus(svc, id, &st, &rq->store_down);
    if (svcApi_LocalJob(svc, id) || (svc->cluster && known && !svcStatusFinal(st))) {
        /* an active job is cancelled (and kept, to be seen as cancelled) */
        pthread_mutex_unlock(&svc->mu);
        return end_job(rq, id, 'c');
    }
    uint64_t mark = svc->store_errors;
    bool ok = known && svcSched_Delete(svc, id);
    rq->store_down = rq->store_down || (known && !ok && svc->store_errors != mark);
    pthread_mutex_unlock(&svc->mu);
    if (!known) {
        return svcApi_UnknownJob(rq, id);
    }
    if (rq->store_down) {
        return store_unavailable(rq);
    }
    if (!ok) {
        return svcHttp_Error(rq, 500, "internal", NULL, "job %lld could not be deleted from the store", (long long)id);
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    return svcHttp_Send(rq, 204, r, NULL);
}

/* ---- files ------------------------------------------------------------------------------------ */

/* gzip of a file while it is sent (Content-Encoding: gzip), so that a 100 MB plan is neither held
 * in memory nor stored twice. */
typedef struct Gzip {
    int fd;
    z_stream z;
    bool eof, done;
    unsigned char in[65536];
} Gzip;

static ssize_t gzip_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    Gzip *g = cls;
    if (g->done) {
        return MHD_CONTENT_READER_END_OF_STREAM;
    }
    g->z.next_out = (Bytef *)buf;
    g->z.avail_out = (uInt)(max > (1u << 30) ? (1u << 30) : max);
    uInt room = g->z.avail_out;
    while (g->z.avail_out > 0 && !g->done) {
        if (g->z.avail_in == 0 && !g->eof) {
            ssize_t k = read(g->fd, g->in, sizeof g->in);
            if (k < 0 && errno == EINTR) {
                continue;
            }
            if (k < 0) {
                return MHD_CONTENT_READER_END_WITH_ERROR;
            }
            g->eof = k == 0;
            g->z.next_in = g->in;
            g->z.avail_in = (uInt)k;
        }
        int rc = deflate(&g->z, g->eof ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            g->done = true;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
    }
    size_t n = room - g->z.avail_out;
    return n > 0 ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

static void gzip_free(void *cls)
{
    Gzip *g = cls;
    deflateEnd(&g->z);
    close(g->fd);
    free(g);
}

/* Accept-Encoding names gzip (without q=0). */
static bool accepts_gzip(svcReq *rq)
{
    const char *ae = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    const char *g = ae ? strstr(ae, "gzip") : NULL;
    if (!g) {
        return false;
    }
    const char *q = strstr(g, "q=");
    const char *comma = strchr(g, ',');
    return !(q && (!comma || q < comma) && strtod(q + 2, NULL) <= 0);
}

/* One "bytes=" range of a file of size bytes: 1 = *off and *len set, 0 = serve the whole file (no
 * header, several ranges, or not bytes), -1 = unsatisfiable. */
static int parse_range(const char *h, uint64_t size, uint64_t *off, uint64_t *len)
{
    if (!h || strncmp(h, "bytes=", 6) != 0 || strchr(h, ',')) {
        return 0;
    }
    const char *p = h + 6;
    char *end = NULL;
    if (*p == '-') {                    /* the last N bytes */
        if (p[1] < '0' || p[1] > '9') { /* strtoull would take "--1" as 2^64 - 1: not a range */
            return 0;
        }
        unsigned long long n = strtoull(p + 1, &end, 10);
        if (end == p + 1 || *end || n == 0) {
            return end == p + 1 || *end ? 0 : -1;
        }
        *len = n < size ? n : size;
        *off = size - *len;
        return size > 0 ? 1 : -1;
    }
    unsigned long long a = strtoull(p, &end, 10);
    if (end == p || *end != '-' || (*p < '0' || *p > '9')) {
        return 0;
    }
    const char *q = end + 1;
    unsigned long long b = size > 0 ? size - 1 : 0;
    if (*q) {
        if (*q < '0' || *q > '9') {
            return 0;
        }
        b = strtoull(q, &end, 10);
        if (end == q || *end || b < a) {
            return 0;
        }
        if (b >= size) {
            b = size - 1;
        }
    }
    if (a >= size) {
        return -1;
    }
    *off = a;
    *len = b - a + 1;
    return 1;
}

/* Opens a job's file (name: "plan.json", "tree.bin", "log.txt") read-only with its stat in *sb; a
 * cluster's front end first brings its copy from the store when fetch. -1 when it is missing or
 * not a regular file. */
static int open_job_file(svcReq *rq, int64_t id, const char *name, bool fetch, struct stat *sb)
{
    if (rq->svc->cluster && fetch) {
        pthread_mutex_lock(&rq->svc->mu);
        svcCluster_FetchFile(rq->svc, id, name);
        pthread_mutex_unlock(&rq->svc->mu);
    }
    char path[4096];
    svcJobPath(rq->svc, id, name, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, sb) != 0 || !S_ISREG(sb->st_mode))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Sends a finished job's file, or (interim > 0) the job's interim plan number interim (a drain's
 * hand-back kept it: docs/service.md#drain): ETag / If-None-Match, Range (206, 416), gzip when asked
 * (not for a range or HEAD), HEAD (headers only: libmicrohttpd drops the body). */
static enum MHD_Result send_file(svcReq *rq, int64_t id, const char *name, const char *type, unsigned code,
                                 double finished, int interim)
{
    char etag[96];
    if (interim > 0) {
        snprintf(etag, sizeof etag, "\"%lld-interim-%d\"", (long long)id, interim);
    } else {
        job_etag(id, finished, name[0] == 'p' ? "plan" : "tree", etag, sizeof etag);
    }
    struct stat sb;
    int fd = open_job_file(rq, id, name, true, &sb); /* planned by whichever node */
    if (fd < 0 && interim > 0) {                     /* the job ended since it was read: its interim plan is gone */
        return svcHttp_Error(rq, 404, "not_found", NULL,
                             "job %lld: its interim plan was replaced as it ended just now: ask again", (long long)id);
    }
    if (fd < 0) {
        return svcHttp_Error(rq, 500, "internal", NULL, "job %lld: its %s is missing from the data directory",
                             (long long)id, name);
    }
    char disp[128];
    if (interim > 0) {
        snprintf(disp, sizeof disp, "attachment; filename=\"tplan-job-%lld.interim-%d.json\"", (long long)id, interim);
    } else {
        snprintf(disp, sizeof disp, "attachment; filename=\"tplan-job-%lld.%s\"", (long long)id,
                 strcmp(name, "plan.json") == 0 ? "plan.json" : "tree");
    }
    svcHttp_Header(rq, "Content-Disposition", disp);
    if (strcmp(type, "application/json") == 0) { /* a plan: the job's final one, or an interim one */
        svcHttp_Header(rq, "X-Tplan-Plan", interim > 0 ? "interim" : "final");
    }
    /* a finished job's files never change; an interim plan is replaced when the job ends: asked again */
    svcHttp_Header(rq, "Cache-Control", interim > 0 ? "no-cache" : "private, max-age=3600");
    svcHttp_Header(rq, "ETag", etag);
    svcHttp_Header(rq, "Accept-Ranges", "bytes");
    svcHttp_Header(rq, "Vary", "Accept-Encoding");
    if (code == 200 && not_modified(rq, etag)) {
        close(fd);
        return send_not_modified(rq, etag);
    }
    uint64_t size = (uint64_t)sb.st_size, off = 0, len = size;
    const char *range = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_RANGE);
    int rr = code == 200 ? parse_range(range, size, &off, &len) : 0;
    char cr[96];
    if (rr < 0) {
        close(fd);
        snprintf(cr, sizeof cr, "bytes */%llu", (unsigned long long)size);
        svcHttp_Header(rq, "Content-Range", cr);
        return svcHttp_Error(rq, 416, "bad_range", "Range", "the file has %llu bytes; the range %.60s is outside it",
                             (unsigned long long)size, range);
    }
    if (rr > 0) {
        snprintf(cr, sizeof cr, "bytes %llu-%llu/%llu", (unsigned long long)off, (unsigned long long)(off + len - 1),
                 (unsigned long long)size);
        svcHttp_Header(rq, "Content-Range", cr);
        struct MHD_Response *r = MHD_create_response_from_fd_at_offset64(len, fd, off); /* closes fd */
        return svcHttp_Send(rq, 206, r, type);
    }
    if (strcmp(rq->method, "GET") == 0 && accepts_gzip(rq) && size > 0) {
        Gzip *g = calloc(1, sizeof *g);
        if (g && deflateInit2(&g->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK) {
            g->fd = fd;
            struct MHD_Response *r =
                MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 65536, gzip_read, g, gzip_free);
            if (r) {
                svcHttp_Header(rq, "Content-Encoding", "gzip");
                return svcHttp_Send(rq, code, r, type);
            }
            deflateEnd(&g->z);
        }
        free(g);
    }
    struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd); /* closes fd */
    return svcHttp_Send(rq, code, r, type);
}

enum MHD_Result svcApi_File(svcReq *rq, int64_t id, bool plan)
{
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    svcJob *active = svcApi_LocalJob(svc, id);
    svcStatus st = active ? active->status : SVC_QUEUED;
    svcJob *job = active ? NULL : svcApi_StoredJob(svc, id, false, &rq->store_down);
    /* a job queued or running again after a drain's hand-back: its interim plan until it ends */
    const svcJob *seen = active ? active : job;
    int interim = plan && seen && !svcStatusFinal(seen->status) ? svcInterimNumber(seen) : 0;
    pthread_mutex_unlock(&svc->mu);
    if (!active && !job) {
        return svcApi_UnknownJob(rq, id);
    }
    if (interim > 0) {
        svcJobFree(job);
        char name[64];
        svcInterimFile(interim, name, sizeof name);
        return send_file(rq, id, name, "application/json", 200, 0, interim);
    }
    bool has = job && (plan ? job->has_plan : job->has_tree);
    double finished = job ? job->finished : 0;
    if (job) {
        st = job->status;
    }
    svcJobFree(job);
    if (!has) {
        return svcHttp_Error(rq, 404, "not_found", NULL, "job %lld has no %s (%s%s)", (long long)id,
                             plan ? "plan" : "tree file", svcStatusName(st),
                             !plan && svcStatusFinal(st) ? "; submit with \"tree\": true" : "");
    }
    return plan ? send_file(rq, id, "plan.json", "application/json", 200, finished, 0)
                : send_file(rq, id, "tree.bin", "application/octet-stream", 200, finished, 0);
}

/* GET /v1/jobs/{id}/log: what the job's script printed (written by its worker, capped, escaped:
 * cli/cmd_worker.c); there while the job runs and after. */
enum MHD_Result svcApi_Log(svcReq *rq, int64_t id)
{
    const char *unknown = svcHttp_UnknownQuery(rq, "");
    if (unknown) {
        return svcHttp_BadQuery(rq, unknown, "none");
    }
    svcStatus st;
    pthread_mutex_lock(&rq->svc->mu);
    bool known = svcApi_JobStatus(rq->svc, id, &st, &rq->store_down);
    pthread_mutex_unlock(&rq->svc->mu);
    if (!known) {
        return svcApi_UnknownJob(rq, id);
    }
    struct stat sb;
    /* a running job's log is on its node until it ends */
    int fd = open_job_file(rq, id, "log.txt", svcStatusFinal(st), &sb);
    if (fd < 0) {
        return svcHttp_Error(rq, 404, "not_found", NULL, "job %lld has no log: its script printed nothing (%s)",
                             (long long)id, svcStatusName(st));
    }
    struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd); /* closes fd */
    svcHttp_Header(rq, "Cache-Control", "no-store");
    svcHttp_Header(rq, "X-Content-Type-Options", "nosniff");
    return svcHttp_Send(rq, 200, r, "text/plain; charset=utf-8");
}

/* ---- domains, the OpenAPI document ------------------------------------------------------------- */

enum MHD_Result svcApi_Domains(svcReq *rq)
{
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
    return svcHttp_Text(rq, 200, rq->svc->def.domains_json, "application/json");
}

enum MHD_Result svcApi_OpenApi(svcReq *rq)
{
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
    struct MHD_Response *r =
        MHD_create_response_from_buffer(svcOpenApiLength, (void *)(uintptr_t)svcOpenApiText, MHD_RESPMEM_PERSISTENT);
    svcHttp_Header(rq, "Cache-Control", "public, max-age=3600");
    return svcHttp_Send(rq, 200, r, "application/json");
}

enum MHD_Result svcApi_Script(svcReq *rq, int64_t id)
{
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    svcJob *job = svcApi_StoredJob(svc, id, true, &rq->store_down);
    pthread_mutex_unlock(&svc->mu);
    if (!job) {
        return svcApi_UnknownJob(rq, id);
    }
    if (!job->script) {
        char shown[160];
        snprintf(shown, sizeof shown, "%s", job->domain ? job->domain : "");
        svcJobFree(job);
        return svcHttp_Error(rq, 404, "not_found", NULL,
                             "job %lld planned the built-in domain '%s' (GET /v1/domains), not a submitted script",
                             (long long)id, shown);
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(job->script_len, job->script, MHD_RESPMEM_MUST_FREE);
    job->script = NULL; /* libmicrohttpd frees it */
    svcJobFree(job);
    svcHttp_Header(rq, "Cache-Control", "private, no-cache");
    return svcHttp_Send(rq, 200, r, "text/x-lua; charset=utf-8");
}
