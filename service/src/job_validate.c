/* tplan service: the invariants of a job's record as it goes to the store, of its status changes
 * (the job's state machine) and of an HTTP request's parse result (the house audit: invariants in
 * every folder; validate.c holds the scheduler's and the metrics'). Each check returns false with
 * the first broken rule in why (may be NULL); the store's front door (store.c), the scheduler
 * (sched.c) and the HTTP layer (http.c) run them through TP_VALIDATE in the Debug and sanitizer
 * builds. tests/service/test_job_validate.c breaks each rule once. Reads only. */
#include <math.h>
#include <string.h>

#include "http_internal.h"
#include "tp/base.h"

/* s is a C string within its array of n bytes. */
static bool terminated(const char *s, size_t n)
{
    return memchr(s, '\0', n) != NULL;
}

bool svcValid_Job(const svcJob *job, char *why, size_t cap)
{
    if (job->id <= 0) {
        return tpBroken(why, cap, "job: id %lld", (long long)job->id);
    }
    const long long id = (long long)job->id;
    if ((int)job->status < 0 || job->status >= SVC_NSTATUS) {
        return tpBroken(why, cap, "job %lld: status %d", id, (int)job->status);
    }
    if (!job->domain || !job->domain[0]) {
        return tpBroken(why, cap, "job %lld: no domain", id);
    }
    if (!(job->created > 0) || !isfinite(job->created)) {
        return tpBroken(why, cap, "job %lld: created at %g", id, job->created);
    }
    if (job->status == SVC_QUEUED &&
        (job->started != 0 || job->finished != 0 || job->iterations != 0 || job->solutions != 0)) {
        return tpBroken(why, cap, "job %lld: queued, yet started at %g, finished at %g, %lld iterations", id,
                        job->started, job->finished, (long long)job->iterations);
    }
    if (job->status == SVC_RUNNING && (!(job->started > 0) || job->finished != 0)) {
        return tpBroken(why, cap, "job %lld: running, started at %g, finished at %g", id, job->started, job->finished);
    }
    if (svcStatusFinal(job->status) && !(job->finished > 0)) {
        return tpBroken(why, cap, "job %lld: %s, finished at %g", id, svcStatusName(job->status), job->finished);
    }
    if ((job->status == SVC_FAILED || job->status == SVC_CANCELLED) &&
        (job->has_plan || job->has_tree || job->files_bytes != 0)) {
        return tpBroken(why, cap, "job %lld: %s with a plan, a tree or %lld bytes of files", id,
                        svcStatusName(job->status), (long long)job->files_bytes);
    }
    if (job->interim && svcStatusFinal(job->status)) { /* its end replaced or dropped it (sched.c finish_job) */
        return tpBroken(why, cap, "job %lld: %s with an interim plan", id, svcStatusName(job->status));
    }
    if (job->iterations < 0 || job->nodes < 0 || job->solutions < 0 || job->files_bytes < 0 || !(job->elapsed >= 0) ||
        !isfinite(job->elapsed)) {
        return tpBroken(why, cap, "job %lld: %lld iterations, %lld nodes, %d solutions, %g s", id,
                        (long long)job->iterations, (long long)job->nodes, job->solutions, job->elapsed);
    }
    if (job->nseries < 0 || job->nseries > SVC_SERIES_POINTS || (job->nseries > 0 && !job->series)) {
        return tpBroken(why, cap, "job %lld: %d progress rows, at most %d", id, job->nseries, SVC_SERIES_POINTS);
    }
    if (job->priority < SVC_PRIORITY_MIN || job->priority > SVC_PRIORITY_MAX) {
        return tpBroken(why, cap, "job %lld: priority %d", id, job->priority);
    }
    if (job->retries < 0 || job->retries > SVC_RETRIES_MAX || job->failures < 0 || job->failures > job->retries ||
        job->read_failures < 0) {
        return tpBroken(why, cap, "job %lld: %d failures of %d retries, %d failed reads", id, job->failures,
                        job->retries, job->read_failures);
    }
    if (job->retry_of < 0 || job->retry_of >= job->id) {
        return tpBroken(why, cap, "job %lld: runs job %lld again", id, (long long)job->retry_of);
    }
    if (!(job->run_at >= 0) || !isfinite(job->run_at)) {
        return tpBroken(why, cap, "job %lld: run at %g", id, job->run_at);
    }
    if (!terminated(job->err_code, sizeof job->err_code) || !terminated(job->client, sizeof job->client) ||
        !terminated(job->ctl_code, sizeof job->ctl_code) || !terminated(job->ctl_message, sizeof job->ctl_message)) {
        return tpBroken(why, cap, "job %lld: an error code, client or control message not terminated", id);
    }
    if (job->err_code[0] && !svcStatusFinal(job->status)) {
        return tpBroken(why, cap, "job %lld: %s with error '%s'", id, svcStatusName(job->status), job->err_code);
    }
    if (job->ctl != 0 && job->ctl != 'l' && job->ctl != 'x' && job->ctl != 's' && job->ctl != 'c') {
        return tpBroken(why, cap, "job %lld: control request '%c'", id, job->ctl);
    }
    if (job->attempt < 0) {
        return tpBroken(why, cap, "job %lld: attempt %d", id, job->attempt);
    }
    return true;
}

bool svcValid_StatusChange(const svcStatusChange *c, char *why, size_t cap)
{
    if ((int)c->from < 0 || c->from >= SVC_NSTATUS || (int)c->to < 0 || c->to >= SVC_NSTATUS) {
        return tpBroken(why, cap, "status change: %d to %d", (int)c->from, (int)c->to);
    }
    if (svcStatusFinal(c->from) && !(c->again && c->to == c->from)) {
        return tpBroken(why, cap, "status change: %s to %s of a final job", svcStatusName(c->from),
                        svcStatusName(c->to));
    }
    if (c->again && !(svcStatusFinal(c->from) && c->to == c->from)) {
        return tpBroken(why, cap, "status change: %s to %s written again, but not a final job's own end",
                        svcStatusName(c->from), svcStatusName(c->to));
    }
    if (c->again) {
        return true;
    }
    if (c->to == SVC_APPROXIMATE && c->from == SVC_QUEUED && c->interim) {
        return true; /* a stop of a job handed back by a drain: its interim plan is its final one */
    }
    if ((c->to == SVC_SOLVED || c->to == SVC_APPROXIMATE) && c->from != SVC_RUNNING) {
        return tpBroken(why, cap, "status change: %s to %s (a plan comes from a run)", svcStatusName(c->from),
                        svcStatusName(c->to));
    }
    if (c->to == SVC_RUNNING && c->from != SVC_QUEUED) {
        return tpBroken(why, cap, "status change: %s to running (only a queued job starts)", svcStatusName(c->from));
    }
    return true;
}

bool svcValid_Request(const svcReq *rq, char *why, size_t cap)
{
    if (!rq->svc || !rq->conn || !rq->route) {
        return tpBroken(why, cap, "request: no %s", !rq->svc ? "server" : !rq->conn ? "connection" : "route");
    }
    if (!terminated(rq->method, sizeof rq->method) || !rq->method[0] || !terminated(rq->path, sizeof rq->path)) {
        return tpBroken(why, cap, "request: method or path not terminated, or no method");
    }
    if (!(rq->t0 > 0) || !isfinite(rq->t0)) {
        return tpBroken(why, cap, "request: arrived at %g", rq->t0);
    }
    if (rq->body ? rq->len >= rq->cap || rq->cap > TP_SERVICE_MAX_BODY_BYTES + 1 : rq->len != 0 || rq->cap != 0) {
        return tpBroken(why, cap, "request: a body of %zu bytes in %zu", rq->len, rq->cap);
    }
    if (rq->body && rq->body[rq->len] != '\0') {
        return tpBroken(why, cap, "request: the body of %zu bytes not terminated", rq->len);
    }
    if (rq->too_big && rq->body) {
        return tpBroken(why, cap, "request: too big, yet a body of %zu bytes kept", rq->len);
    }
    if (rq->nheaders < 0 || rq->nheaders > SVC_MAX_HEADERS) {
        return tpBroken(why, cap, "request: %d response headers, at most %d", rq->nheaders, SVC_MAX_HEADERS);
    }
    for (int i = 0; i < rq->nheaders; ++i) {
        if (!terminated(rq->headers[i][0], sizeof rq->headers[i][0]) || !rq->headers[i][0][0] ||
            !terminated(rq->headers[i][1], sizeof rq->headers[i][1])) {
            return tpBroken(why, cap, "request: response header %d unnamed or not terminated", i);
        }
    }
    return true;
}
