/* tplan service: GET /v1/jobs/{id}/events, a job's changes as Server-Sent Events (docs/service.md):
 * one "job" event per change of the job object (from the scheduler's memory while active here, else
 * from the store, so whichever node of a cluster plans it), a keep-alive comment while nothing
 * changes, and the stream ends after the final state. Streams are capped per address, per job and
 * in all, and the reaper closes those whose client reads nothing (http.c, svcHttp_BeginStream). */
#include <stdlib.h>
#include <string.h>

#include "http_internal.h"

/* ---- GET /v1/jobs/{id}/events: Server-Sent Events -------------------------------------------- */

typedef struct Sse {
    tpService *svc;
    struct MHD_Connection *conn; /* its connection: the reaper may close the stream (svcHttp_StreamOpen) */
    int64_t id;
    uint64_t version;
    bool sent_any, ended;
    char *pending; /* bytes not yet handed to libmicrohttpd */
    size_t plen, poff;
    char *last; /* a PostgreSQL store: the job object last sent (a change is a different object) */
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

/* Appends an SSE comment line (a keep-alive) to s->pending; false on OOM. */
static bool sse_comment(Sse *s, const char *text)
{
    size_t n = strlen(text);
    char *grown = realloc(s->pending, s->plen + n);
    if (!grown) {
        return false;
    }
    s->pending = grown;
    memcpy(s->pending + s->plen, text, n);
    s->plen += n;
    return true;
}

/* Fills s->pending with the next events (mu held); false when the stream must end in error. */
static bool sse_next(Sse *s)
{
    tpService *svc = s->svc;
    for (;;) {
        if (svc->stopping || !svcHttp_StreamOpen(svc, s->conn)) { /* stopping, or closed by the reaper */
            return false;
        }
        svcJob *job = svcApi_LocalJob(svc, s->id);
        char *data = NULL;
        bool active = job != NULL, changed = false;
        if (job) {
            changed = !s->sent_any || job->version != s->version;
            if (changed) {
                data = svcJobJson(job);
                s->version = job->version;
            }
        } else if (svc->cluster) { /* whichever node plans it: its record in the store */
            bool down = false;
            svcJob *stored = svcApi_StoredJob(svc, s->id, false, &down);
            if (down) { /* the store is away: the stream waits for it (a comment keeps it open), not ended */
                svcApi_WaitChange(svc, 2.0);
                return sse_comment(s, ": the job store does not answer; waiting for it\n\n");
            }
            if (stored && !svcStatusFinal(stored->status)) {
                active = true;
                data = svcJobJson(stored);
                changed = !data || !s->last || strcmp(data, s->last) != 0;
            }
            svcJobFree(stored);
        }
        if (active) {
            if (changed) {
                bool ok = data && sse_push(s, "job", data);
                if (svc->cluster) {
                    free(s->last);
                    s->last = data;
                    data = NULL;
                }
                free(data);
                s->sent_any = true;
                return ok;
            }
            free(data);
            struct timespec t0;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            svcApi_WaitChange(svc, 15.0);
            struct timespec t1;
            clock_gettime(CLOCK_MONOTONIC, &t1);
            if ((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9 >= 14.9) {
                return sse_comment(s, ": ping\n\n");
            }
            continue;
        }
        bool down = false;
        data = svcApi_JobJson(svc, s->id, &down);
        if (down) {
            svcApi_WaitChange(svc, 2.0);
            return sse_comment(s, ": the job store does not answer; waiting for it\n\n");
        }
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
    free(s->last);
    free(s);
}

enum MHD_Result svcApi_Events(svcReq *rq, int64_t id)
{
    const char *bad = svcHttp_UnknownQuery(rq, "");
    if (bad) {
        return svcHttp_BadQuery(rq, bad, "none");
    }
    tpService *svc = rq->svc;
    svcStatus st;
    pthread_mutex_lock(&svc->mu);
    bool exists = svcApi_JobStatus(svc, id, &st, &rq->store_down);
    pthread_mutex_unlock(&svc->mu);
    if (!exists) {
        return svcApi_UnknownJob(rq, id);
    }
    /* a stream holds its connection (and thread) as long as the job runs: streams are capped, or
       clients holding them took every connection (1,200 from 10 addresses, health refused) */
    char why[256];
    unsigned refused = svcHttp_BeginStream(rq, id, why, sizeof why);
    if (refused) {
        svcHttp_Header(rq, "Retry-After", "5");
        svcHttp_Header(rq, "Connection", "close"); /* nor held idle afterwards */
        return svcHttp_Error(rq, refused, "too_many_streams", NULL, "%s; close one or retry later", why);
    }
    Sse *s = calloc(1, sizeof *s);
    if (!s) {
        return svcHttp_Error(rq, 500, "internal", NULL, "out of memory");
    }
    s->svc = svc;
    s->conn = rq->conn;
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
