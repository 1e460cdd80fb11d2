/* tplan service: the consistency of the scheduler's state and of the metrics (the house audit:
 * invariants in every folder). Each check returns false with the first broken rule in why, so a
 * test can show it failing on a corrupted state; the scheduler's loop and the metrics call them
 * through TP_INVARIANT in the Debug and sanitizer builds (off in Release). mu held. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "service_internal.h"
#include "tp/base.h"

/* Ids are compared pairwise below this many active jobs (the check is O(n^2)). */
#define SVC_VALID_PAIRS 512

/* The active job running on worker wi, NULL if none claims it. */
static const svcJob *job_on(const tpService *svc, int wi)
{
    for (int i = 0; i < svc->nactive; ++i) {
        if (svc->active[i] && svc->active[i]->worker == wi) {
            return svc->active[i];
        }
    }
    return NULL;
}

bool svcValid_Scheduler(const tpService *svc, char *why, size_t cap)
{
    if (svc->nactive < 0 || (size_t)svc->nactive > svc->cap_active || (svc->nactive > 0 && !svc->active)) {
        return tpBroken(why, cap, "active list: %d jobs in room for %zu", svc->nactive, svc->cap_active);
    }
    if (svc->nprocs != svc->nworkers + svc->ninteractive || svc->nworkers < 0 || svc->ninteractive < 0 ||
        (svc->nprocs > 0 && !svc->workers)) {
        return tpBroken(why, cap, "workers: %d processes for %d batch + %d interactive", svc->nprocs, svc->nworkers,
                        svc->ninteractive);
    }
    for (int i = 0; i < svc->nactive; ++i) {
        const svcJob *job = svc->active[i];
        if (!job || job->id <= 0) {
            return tpBroken(why, cap, "active[%d]: %s", i, job ? "an id <= 0" : "NULL");
        }
        if (job->status != SVC_QUEUED && job->status != SVC_RUNNING && !job->unstored) {
            return tpBroken(why, cap, "job %lld: %s but active (and not waiting to be stored again)",
                            (long long)job->id, svcStatusName(job->status));
        }
        if (job->worker < -1 || job->worker >= svc->nprocs) {
            return tpBroken(why, cap, "job %lld: worker %d of %d", (long long)job->id, job->worker, svc->nprocs);
        }
        if (job->status == SVC_RUNNING && job->worker < 0) {
            return tpBroken(why, cap, "job %lld: running on no worker", (long long)job->id);
        }
        if (job->status != SVC_RUNNING && job->worker >= 0) {
            return tpBroken(why, cap, "job %lld: %s but on worker %d", (long long)job->id, svcStatusName(job->status),
                            job->worker);
        }
        if (job->worker >= 0 && svc->workers[job->worker].job != job->id) {
            return tpBroken(why, cap, "job %lld: on worker %d, which runs job %lld", (long long)job->id, job->worker,
                            (long long)svc->workers[job->worker].job);
        }
        if (job->sync && !(job->sync_deadline > 0)) {
            return tpBroken(why, cap, "job %lld: synchronous without a deadline (%g)", (long long)job->id,
                            job->sync_deadline);
        }
        if (job->jobs < 1 || job->memory_mb < 0 || !(job->run.time_limit >= 0)) {
            return tpBroken(why, cap, "job %lld: jobs %d, memory_mb %d, time_limit %g", (long long)job->id, job->jobs,
                            job->memory_mb, job->run.time_limit);
        }
        for (int k = 0; svc->nactive <= SVC_VALID_PAIRS && k < i; ++k) {
            if (svc->active[k] == job || svc->active[k]->id == job->id) {
                return tpBroken(why, cap, "job %lld: twice in the active list (%d and %d)", (long long)job->id, k, i);
            }
        }
    }
    for (int wi = 0; wi < svc->nprocs; ++wi) {
        const svcWorker *w = &svc->workers[wi];
        if (w->interactive != (wi >= svc->nworkers)) {
            return tpBroken(why, cap, "worker %d: %s, but in the %s range", wi,
                            w->interactive ? "interactive" : "batch", wi >= svc->nworkers ? "interactive" : "batch");
        }
        if (w->job != 0 && w->reserved_for != 0) {
            return tpBroken(why, cap, "worker %d: runs job %lld and is reserved for job %lld", wi, (long long)w->job,
                            (long long)w->reserved_for);
        }
        if (w->job != 0) {
            const svcJob *job = job_on(svc, wi);
            if (!job || job->id != w->job) {
                return tpBroken(why, cap, "worker %d: runs job %lld, which is not active on it", wi, (long long)w->job);
            }
        }
        if (w->pid > 0 && (w->in_fd < 0 || w->ev_fd < 0)) {
            return tpBroken(why, cap, "worker %d: pid %d without its pipes", wi, (int)w->pid);
        }
        if (w->job != 0 && (!(w->hard_deadline >= w->job_started) || !(w->job_limit >= 0))) {
            return tpBroken(why, cap, "worker %d: job sent at %g with a limit of %g s, killed at %g", wi,
                            w->job_started, w->job_limit, w->hard_deadline);
        }
        if (w->len > w->cap || (w->cap > 0 && !w->buf)) {
            return tpBroken(why, cap, "worker %d: event buffer %zu of %zu bytes", wi, w->len, w->cap);
        }
    }
    /* the synchronous jobs' costs after their search (sched.c's reserve): a ring of positive seconds */
    if (svc->nsync_spent < 0 || svc->nsync_spent > SVC_SYNC_SAMPLES || svc->sync_next < 0 ||
        svc->sync_next >= SVC_SYNC_SAMPLES) {
        return tpBroken(why, cap, "sync reserve: %d samples, next at %d, of %d", svc->nsync_spent, svc->sync_next,
                        SVC_SYNC_SAMPLES);
    }
    for (int i = 0; i < svc->nsync_spent; ++i) {
        if (!(svc->sync_spent[i] > 0) || !isfinite(svc->sync_spent[i])) {
            return tpBroken(why, cap, "sync reserve: sample %d is %g s", i, svc->sync_spent[i]);
        }
    }
    /* the limits' table: tags named once each, bounds >= 1, and no job tagged with a limit not in it */
    if (svc->nlimits < 0 || svc->nlimits > TP_SERVICE_MAX_LIMITS) {
        return tpBroken(why, cap, "limits: %d of at most %d", svc->nlimits, TP_SERVICE_MAX_LIMITS);
    }
    for (int l = 0; l < svc->nlimits; ++l) {
        if (svc->limit_max[l] < 1 || !svc->limit_tag[l][0]) {
            return tpBroken(why, cap, "limit %d: tag '%s', at most %d running", l, svc->limit_tag[l],
                            svc->limit_max[l]);
        }
        for (int k = 0; k < l; ++k) {
            if (strcmp(svc->limit_tag[k], svc->limit_tag[l]) == 0) {
                return tpBroken(why, cap, "limit %d: tag '%s' is limit %d's too", l, svc->limit_tag[l], k);
            }
        }
    }
    for (int i = 0; i < svc->nactive; ++i) {
        const uint32_t known = svc->nlimits >= 32 ? 0xffffffffu : (1u << svc->nlimits) - 1u;
        if (svc->active[i]->limit_mask & ~known) {
            return tpBroken(why, cap, "job %lld: limit mask 0x%x for %d limits", (long long)svc->active[i]->id,
                            (unsigned)svc->active[i]->limit_mask, svc->nlimits);
        }
    }
    /* the concurrency limits (--limit TAG=N) hold among a single server's running jobs (a cluster's
       node may still run a job another node reclaimed, until its next renewal tells it) */
    for (int l = 0; !svc->cluster && l < svc->nlimits && l < TP_SERVICE_MAX_LIMITS; ++l) {
        int n = 0;
        for (int i = 0; i < svc->nactive; ++i) {
            n += svc->active[i]->status == SVC_RUNNING && ((svc->active[i]->limit_mask >> l) & 1u);
        }
        if (n > svc->limit_max[l]) {
            return tpBroken(why, cap, "limit '%s': %d jobs running, at most %d", svc->limit_tag[l], n,
                            svc->limit_max[l]);
        }
    }
    return true;
}

bool svcValid_Metrics(const svcMetrics *m, char *why, size_t cap)
{
    uint64_t n = 0, done = 0;
    for (int b = 0; b <= SVC_HIST_BUCKETS; ++b) {
        n += m->plan_hist[b];
    }
    if (n != m->plan_count) {
        return tpBroken(why, cap, "metrics: %llu planning times in the histogram, %llu counted", (unsigned long long)n,
                        (unsigned long long)m->plan_count);
    }
    if (m->jobs_finished[SVC_QUEUED] != 0 || m->jobs_finished[SVC_RUNNING] != 0) {
        return tpBroken(why, cap, "metrics: %llu queued and %llu running jobs counted as finished",
                        (unsigned long long)m->jobs_finished[SVC_QUEUED],
                        (unsigned long long)m->jobs_finished[SVC_RUNNING]);
    }
    for (int s = 0; s < SVC_NSTATUS; ++s) {
        done += s == SVC_SOLVED || s == SVC_APPROXIMATE ? m->jobs_finished[s] : 0;
    }
    if (m->plan_count != done) {
        return tpBroken(why, cap, "metrics: %llu planning times for %llu solved or approximate jobs",
                        (unsigned long long)m->plan_count, (unsigned long long)done);
    }
    if (!(m->plan_sum >= 0) || (m->plan_count == 0 && m->plan_sum != 0)) {
        return tpBroken(why, cap, "metrics: planning seconds %g over %llu jobs", m->plan_sum,
                        (unsigned long long)m->plan_count);
    }
    return true;
}

void svcValid_Check(tpService *svc)
{
#if TP_ASSERT_ON
    char why[320];
    bool ok = svcValid_Scheduler(svc, why, sizeof why) && svcValid_Metrics(&svc->metrics, why, sizeof why);
    if (!ok) {
        svcLog(svc, "invariant broken: %s", why);
        TP_INVARIANT(!"the scheduler's state is consistent (see the log line above)");
    }
#else
    (void)svc;
#endif
}
