#define _GNU_SOURCE /* pipe2 */
/* tplan service: the scheduler thread and the worker processes. The scheduler hands queued jobs to
 * idle workers (synchronous /v1/plan jobs first, then oldest first), reads their events, enforces
 * the hard time limit, and restarts workers that die. Every job that leaves `running` does so here,
 * through finish_job, so a job is never lost nor stuck. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "service_internal.h"
#include "tp/base.h"
#include "tp/json_text.h"
#include "tp/run_def.h"

extern char **environ;

#define SVC_HARD_GRACE 10.0 /* s past a job's time_limit before its worker is killed */
/* A synchronous job's search ends its reserve before the deadline: the time from that end to the
 * plan's being ready (the worker writing the plan, its done event, the store's update), measured on
 * the last SVC_SYNC_SAMPLES synchronous jobs, as the library's anytime search keeps one for its
 * extraction (api/src/search.c): 1.5 times the longest of them plus SVC_SYNC_RESERVE_ADD, at most
 * half the wait. The longest, not the last: on a loaded machine the cost of one job says little of
 * the next one's (tests/service/bench_sync_deadline.py, load average 9-12: the last one's missed
 * 6 of 200 deadlines of 0.5 s, the longest 3). Before the first measure it is SVC_SYNC_RESERVE0. */
#define SVC_SYNC_RESERVE0 0.08
#define SVC_SYNC_RESERVE_ADD 0.01   /* s: the answer's own sending and the handler's wake */
#define SVC_SYNC_OVERDUE 5.0        /* s past its deadline a synchronous job still running is cancelled */
#define SVC_RETENTION_EVERY 10.0    /* s between two retention passes (one query over an index, ~1 ms) */
#define SVC_RETENTION_AFTER_JOB 1.0 /* s: a job's end brings the next pass forward, at most this often */
#define SVC_RETENTION_BATCH 16      /* jobs deleted per hold of svc->mu (16 records of 4 MiB: ~8 ms) */

/* ---- workers ---------------------------------------------------------------------------- */

bool svcSched_SpawnWorker(tpService *svc, svcWorker *w, const char *const *argv)
{
    argv = argv ? argv : svc->def.worker_argv;
    int in[2] = {-1, -1}, ev[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(ev, O_CLOEXEC) != 0) {
        svcLog(svc, "worker: cannot create pipes: %s", strerror(errno));
        goto fail;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, ev[1], 3);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    /* its own process group: a Ctrl-C in the server's terminal stops the server (which then stops
     * the workers), it does not kill the workers under running jobs */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t none, defaults;
    sigemptyset(&none);        /* the server's threads block SIGINT/SIGTERM (sigwait): the worker must not */
    sigaddset(&none, SIGUSR1); /* a stop request before the worker installed its handler must wait for it
                                  (tplan worker unblocks it then), not kill it */
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE); /* ignored in the server, default in the worker */
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &defaults);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, argv[0], &fa, &at, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        svcLog(svc, "worker: cannot start %s: %s", argv[0], strerror(rc));
        goto fail;
    }
    close(in[0]);
    close(ev[1]);
    fcntl(ev[0], F_SETFL, O_NONBLOCK);
    /* batch workers yield the CPU to interactive ones (priority classes): a synchronous job beside
     * two busy batch workers gets ~90 % of a core at nice 10 vs 0, and the batch jobs only run slower
     * for that while (their plans do not depend on speed) */
    if (!w->interactive && svc->def.batch_nice > 0) {
        /* relative to the server's own nice value, as `nice -n`: a server started niced keeps its
         * interactive workers above its batch ones (an absolute 10 could even raise them) */
        errno = 0;
        int base = getpriority(PRIO_PROCESS, 0);
        int want = (errno != 0 ? 0 : base) + svc->def.batch_nice;
        want = want > 19 ? 19 : want;
        if (setpriority(PRIO_PROCESS, (id_t)pid, want) != 0) {
            svcLog(svc, "worker: cannot set nice %d: %s", want, strerror(errno));
        }
    }
    w->pid = pid;
    w->in_fd = in[1];
    w->ev_fd = ev[0];
    w->job = 0;
    w->len = 0;
    w->killed = false;
    return true;
fail:
    for (int i = 0; i < 2; ++i) {
        if (in[i] >= 0) {
            close(in[i]);
        }
        if (ev[i] >= 0) {
            close(ev[i]);
        }
    }
    w->pid = 0;
    return false;
}

int svcSched_ReapWorker(svcWorker *w)
{
    int status = 0;
    if (w->pid > 0) {
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (w->in_fd >= 0) {
        close(w->in_fd);
    }
    if (w->ev_fd >= 0) {
        close(w->ev_fd);
    }
    w->pid = 0;
    w->in_fd = w->ev_fd = -1;
    return status;
}

/* ---- active jobs ------------------------------------------------------------------------ */

svcJob *svcSched_Find(tpService *svc, int64_t id)
{
    for (int i = 0; i < svc->nactive; ++i) {
        if (svc->active[i]->id == id) {
            return svc->active[i];
        }
    }
    return NULL;
}

bool svcSched_Enqueue(tpService *svc, svcJob *job)
{
    svcJob **grown = tpArray_Grow(svc->active, &svc->cap_active, (size_t)svc->nactive + 1, sizeof *grown);
    if (!grown) {
        return false;
    }
    svc->active = grown;
    job->worker = -1;
    job->version++;
    cJSON *req = cJSON_Parse(job->request);
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(req, "jobs");
    job->jobs = cJSON_IsNumber(jobs) && jobs->valuedouble >= 1 ? (int)jobs->valuedouble : 1;
    cJSON_Delete(req);
    job->limit_mask = svcLimitMask(svc, job->tags);
    svc->active[svc->nactive++] = job;
    svcWakeScheduler(svc);
    return true;
}

static bool worker_idle(const svcWorker *w)
{
    return w->pid > 0 && w->job == 0 && w->reserved_for == 0;
}

/* The job leaves the active list and is freed. */
static void leave_active(tpService *svc, svcJob *job)
{
    for (int i = 0; i < svc->nactive; ++i) {
        if (svc->active[i] == job) {
            svc->active[i] = svc->active[--svc->nactive];
            break;
        }
    }
    svcJobFree(job);
}

/* The job leaves the active list: final status, stored, counted, logged, waiters woken. */
/* The job leaves its worker and the workers its --jobs search counted. */
static void release_workers(tpService *svc, svcJob *job)
{
    if (job->worker >= 0) {
        svc->workers[job->worker].job = 0;
    }
    for (int wi = 0; wi < svc->nprocs; ++wi) {
        if (svc->workers[wi].reserved_for == job->id) {
            svc->workers[wi].reserved_for = 0;
        }
    }
    job->worker = -1;
}

/* Removes interim plan n's file (interim.N.json) from the job's folder; n 0: none. */
static void drop_interim_file(tpService *svc, const svcJob *job, int n)
{
    char name[64], path[4096];
    if (n > 0) {
        svcInterimFile(n, name, sizeof name);
        svcJobPath(svc, job->id, name, path, sizeof path);
        unlink(path);
    }
}

static void finish_job(tpService *svc, svcJob *job, svcStatus status, const char *code, const char *message)
{
    bool again = job->unstored; /* retry_unstored: the same end, written again */
    TP_VALIDATE(svcValid_StatusChange, (&(svcStatusChange){job->status, status, again, job->interim != NULL}));
    job->status = status;
    job->finished = again ? job->finished : svcNow();
    if (code && !again) {
        snprintf(job->err_code, sizeof job->err_code, "%s", code);
        free(job->err_message);
        job->err_message = strdup(message ? message : "");
    }
    release_workers(svc, job);
    if (status == SVC_FAILED || status == SVC_CANCELLED) {
        /* what its worker had written (tree.bin, temporary files) and an interim plan; its log stays */
        svcJobRemoveFiles(svc, job->id, SVC_KEEP_LOG);
        job->has_plan = job->has_tree = false;
        job->files_bytes = 0;
    } else {
        drop_interim_file(svc, job, svcInterimNumber(job)); /* its final plan replaces it */
        job->files_bytes = svcJobFilesBytes(svc, job->id);
    }
    free(job->interim); /* the store's record drops it with the end (svcStore_Update, svcCluster_Finish) */
    job->interim = NULL;
    bool refused = job->sync && job->started == 0 && status == SVC_CANCELLED && code && strcmp(code, "no_worker") == 0;
    bool stored = true;
    if (svc->cluster) { /* the record with its files, if this node still holds the lease (exactly once) */
        stored = svcCluster_Finish(svc, job);
        if (!stored && job->unstored) { /* the store refused it: kept (and its lease renewed) to be written
                                           again (retry_unstored), not planned again by another node */
            pthread_cond_broadcast(&svc->changed);
            return;
        }
    } else if (refused) { /* a synchronous call refused (503) is not left behind as a job */
        svcStore_Delete(svc, job->id);
    } else {
        svcStore_Update(svc, job);
    }
    if (stored) {
        svcMetrics_JobDone(svc, status, job->started > 0 ? job->elapsed : 0);
    }
    /* a pass soon after a job ends: a second after the last pass at the earliest (at most one a
       second), not the period's end (a job that ended within a second of the last pass waited 10 s) */
    const double soon = svc->next_retention - SVC_RETENTION_EVERY + SVC_RETENTION_AFTER_JOB;
    if (soon < svc->next_retention) {
        svc->next_retention = soon;
    }
    if (!stored) {
        /* svcCluster_Finish said why */
    } else if (code) {
        svcLog(svc, "job %lld %s: %s: %s", (long long)job->id, svcStatusName(status), code,
               job->err_message ? job->err_message : "");
    } else {
        svcLog(svc, "job %lld %s (%lld iterations, %lld nodes, %.3f s)", (long long)job->id, svcStatusName(status),
               (long long)job->iterations, (long long)job->nodes, job->elapsed);
    }
    leave_active(svc, job);
    pthread_cond_broadcast(&svc->changed);
}

/* A cluster node's jobs whose end the store refused (svcJob.unstored): written again, one attempt per
 * job a second (or every lease / 3 s if shorter), until stored or until another node holds the lease (then dropped). */
static void retry_unstored(tpService *svc)
{
    double now = tpClock_Now();
    for (int i = svc->nactive - 1; i >= 0; --i) {
        svcJob *job = svc->active[i];
        if (job->unstored && now >= job->retry_at) {
            job->retry_at = now + fmin(1.0, svc->def.lease / 3.0);
            finish_job(svc, job, job->status, job->err_code[0] ? job->err_code : NULL, job->err_message);
        }
    }
}

void svcSched_Cancel(tpService *svc, svcJob *job, const char *code, const char *message)
{
    if (job->status == SVC_QUEUED) {
        finish_job(svc, job, SVC_CANCELLED, code, message);
        return;
    }
    if (job->worker >= 0 && !job->cancel) {
        svcWorker *w = &svc->workers[job->worker];
        job->cancel = true;
        w->killed = true;
        snprintf(w->kill_code, sizeof w->kill_code, "%s", code ? code : "");
        snprintf(w->kill_message, sizeof w->kill_message, "%s", message ? message : "");
        kill(w->pid, SIGKILL); /* the scheduler sees the end of its pipe and finishes the job */
    }
}

static double json_number(const cJSON *o, const char *name, double dflt);

/* A stop of a queued job that a drain handed back (docs/service.md#drain): its interim plan is its
 * best plan, so it ends approximate with it (the file renamed plan.json, the summary of the run that
 * made it). False if it could not be kept (logged): the caller cancels it. */
static bool stop_with_interim(tpService *svc, svcJob *job)
{
    cJSON *o = cJSON_Parse(job->interim);
    const int n = svcInterimNumber(job);
    cJSON *sum = cJSON_DetachItemFromObjectCaseSensitive(o, "summary");
    char name[64], from[4096], to[4096];
    svcInterimFile(n, name, sizeof name);
    svcJobPath(svc, job->id, name, from, sizeof from);
    svcJobPath(svc, job->id, "plan.json", to, sizeof to);
    char *summary = cJSON_IsObject(sum) ? tpJson_PrintChecked(sum) : NULL;
    bool ok = n > 0 && summary && rename(from, to) == 0;
    if (ok) {
        free(job->summary);
        job->summary = summary;
        summary = NULL;
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(o, "quality");
        job->best_quality = cJSON_IsNumber(q) ? q->valuedouble : NAN;
        job->iterations = (int64_t)json_number(o, "iterations", 0);
        job->nodes = (int64_t)json_number(o, "nodes", 0);
        job->elapsed = json_number(o, "elapsed", 0);
        job->has_plan = true;
        svcLog(svc, "job %lld stopped while queued: its interim plan %d is its plan", (long long)job->id, n);
        finish_job(svc, job, SVC_APPROXIMATE, NULL, NULL);
    } else {
        svcLog(svc, "job %lld: its interim plan could not be kept (%s): cancelled", (long long)job->id,
               summary ? strerror(errno) : "no summary (or out of memory)");
    }
    free(summary);
    cJSON_Delete(sum);
    cJSON_Delete(o);
    return ok;
}

void svcSched_StopJob(tpService *svc, svcJob *job)
{
    if (job->status == SVC_QUEUED && job->interim && stop_with_interim(svc, job)) {
        return;
    }
    if (job->status == SVC_QUEUED) { /* nothing planned yet: there is no best plan to keep */
        finish_job(svc, job, SVC_CANCELLED, "cancelled", "stopped before it started: nothing planned");
        return;
    }
    if (job->worker >= 0 && !job->cancel && !job->stop) {
        job->stop = true;
        job->version++;
        /* the worker (and the searches of a "jobs" > 1 job, its children, to which it forwards it) end
         * their search at the next iteration and write the best plan, as at max_iters; the job's id
         * goes with the signal, so that it can never stop another job */
        union sigval v = {.sival_int = (int)job->id};
        sigqueue(svc->workers[job->worker].pid, SIGUSR1, v);
        pthread_cond_broadcast(&svc->changed);
    }
}

bool svcSched_Delete(tpService *svc, int64_t id)
{
    if (!svcStore_Delete(svc, id)) {
        return false;
    }
    svcJobRemoveFiles(svc, id, 0);
    svcLog(svc, "job %lld deleted", (long long)id);
    return true;
}

/* ---- retention ---------------------------------------------------------------------------- */

static void sweep_orphans(tpService *svc);

/* Deletes the finished jobs the retention policy (keep_days, keep_jobs, keep_mb) drops. Called with
 * svc->mu held, which it lets go of between batches of SVC_RETENTION_BATCH jobs and while it removes
 * their folders: the choice is one query over an index of sizes and times (store_sqlite.c's
 * jobs_meta), deleting a batch of rows takes a few ms, and a pass may drop hundreds of jobs (a lower
 * --keep-mb, a day passing --keep-days). The store gives the freed pages back in its own time
 * (svcStore_Compact: SQLite's maintenance thread). A request therefore waits for one batch at most. */
static void retention(tpService *svc)
{
    int n = 0;
    int64_t *ids = svcStore_Expired(svc, svcNow(), &n);
    int deleted = 0;
    char(*gone)[4096] = n > 0 ? malloc(SVC_RETENTION_BATCH * sizeof *gone) : NULL;
    for (int at = 0; gone && at < n && !svc->stopping; at += SVC_RETENTION_BATCH) {
        int k = n - at < SVC_RETENTION_BATCH ? n - at : SVC_RETENTION_BATCH;
        if (!svcStore_DeleteMany(svc, ids + at, k)) {
            break;
        }
        deleted += k;
        bool moved[SVC_RETENTION_BATCH];
        for (int i = 0; i < k; ++i) { /* out of DATA/jobs under the lock (a rename), removed without it */
            moved[i] = svcJobDetachFiles(svc, ids[at + i], gone[i], sizeof gone[i]);
        }
        pthread_mutex_unlock(&svc->mu);
        for (int i = 0; i < k; ++i) {
            if (moved[i]) {
                svcRemoveDetached(gone[i]);
            }
        }
        pthread_mutex_lock(&svc->mu);
    }
    free(gone);
    if (deleted > 0) {
        svcLog(svc, "retention: %d finished job%s deleted", deleted, deleted == 1 ? "" : "s");
    }
    free(ids);
    if (svc->cluster) { /* another node's pass (or a DELETE through another front end) deleted jobs whose
                           files this one holds in its cache */
        sweep_orphans(svc);
    }
    svcStore_Compact(svc); /* the pages of these jobs, and of those DELETE removed since the last pass */
    svc->next_retention = svcNow() + SVC_RETENTION_EVERY;
}

/* At start: folders under DATA/jobs that belong to no stored job (a crash between a delete's row and
 * its files, or files of a job an older version never cleaned) are removed. */
static void sweep_orphans(tpService *svc)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/deleted", svc->data_dir); /* what a pass stopped by a crash left there */
    DIR *dd = opendir(dir);
    struct dirent *de;
    while (dd && (de = readdir(dd))) {
        if (de->d_name[0] != '.') {
            char sub[4400];
            snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
            svcRemoveDetached(sub);
        }
    }
    if (dd) {
        closedir(dd);
    }
    int n = 0;
    int64_t *ids = svcStore_AllIds(svc, &n);
    if (!ids && svc->cluster) { /* the database is away: every folder would look like an orphan */
        return;
    }
    snprintf(dir, sizeof dir, "%s/jobs", svc->data_dir);
    DIR *d = opendir(dir);
    int removed = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *end = NULL;
        long long id = strtoll(e->d_name, &end, 10);
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || *end) {
            continue;
        }
        int lo = 0, hi = n - 1;
        bool found = false;
        while (lo <= hi && !found) {
            int mid = (lo + hi) / 2;
            found = ids[mid] == id;
            if (ids[mid] < id) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (!found) {
            svcJobRemoveFiles(svc, id, 0);
            ++removed;
        }
    }
    if (d) {
        closedir(d);
    }
    free(ids);
    if (removed > 0) {
        svcLog(svc, "store: %d folder%s of no stored job removed", removed, removed == 1 ? "" : "s");
    }
}

/* ---- dispatch --------------------------------------------------------------------------- */

/* Running jobs (of the nrun in run) submitted from job's client address (0 when it is not
 * known: after a restart). */
static int running_of_client(svcJob *const *run, int nrun, const svcJob *job)
{
    int n = 0;
    for (int i = 0; i < nrun && job->client[0]; ++i) {
        n += strcmp(run[i]->client, job->client) == 0;
    }
    return n;
}

svcJob *svcSched_Pick(svcJob *const *active, int nactive, double now)
{
    return svcSched_PickLimited(active, nactive, now, NULL, 0);
}

svcJob *svcSched_PickLimited(svcJob *const *active, int nactive, double now, const int *limit_max, int nlimits)
{
    svcJob *best = NULL;
    int best_running = 0;
    svcJob *run[256]; /* the running jobs: as many as workers at most (--workers is at most 256) */
    int nrun = 0;
    uint32_t full = 0; /* the limits at their bound */
    for (int i = 0; i < nactive && nrun < 256; ++i) {
        if (active[i]->status == SVC_RUNNING) {
            run[nrun++] = active[i];
        }
    }
    for (int l = 0; l < nlimits && l < 32; ++l) {
        int n = 0;
        for (int i = 0; i < nrun; ++i) {
            n += (run[i]->limit_mask >> l) & 1u;
        }
        full |= n >= limit_max[l] ? 1u << l : 0u;
    }
    for (int i = 0; i < nactive; ++i) {
        svcJob *j = active[i];
        if (j->status != SVC_QUEUED || j->run_at > now || (j->limit_mask & full)) {
            continue;
        }
        int running = running_of_client(run, nrun, j);
        if (!best || (j->sync && !best->sync) || (j->sync == best->sync && j->priority > best->priority) ||
            (j->sync == best->sync && j->priority == best->priority &&
             (running < best_running || (running == best_running && j->id < best->id)))) {
            best = j;
            best_running = running;
        }
    }
    return best;
}

static svcJob *next_queued(tpService *svc)
{
    return svcSched_PickLimited(svc->active, svc->nactive, svcNow(), svc->limit_max, svc->nlimits);
}

double svcSched_AnswerBy(double deadline, double created, const double *spent, int nspent)
{
    const double wait = deadline - created;
    double longest = 0;
    for (int i = 0; i < nspent; ++i) {
        longest = spent[i] > longest ? spent[i] : longest;
    }
    const double reserve = nspent > 0 ? 1.5 * longest + SVC_SYNC_RESERVE_ADD : SVC_SYNC_RESERVE0;
    return deadline - fmin(reserve, 0.5 * wait);
}

/* A synchronous job's plan is ready (its done event): the time since its search was to end is a
 * measure of the reserve (none when the search ended by itself before). */
static void sync_measure(tpService *svc, const svcJob *job)
{
    const double spent = svcNow() - job->answer_by;
    if (!job->sync || !(job->answer_by > 0) || !(spent > 0)) {
        return;
    }
    svc->sync_spent[svc->sync_next] = spent;
    svc->sync_next = (svc->sync_next + 1) % SVC_SYNC_SAMPLES;
    svc->nsync_spent += svc->nsync_spent < SVC_SYNC_SAMPLES;
}

double svcSched_TimeLimit(bool sync, double time_limit, double answer_by, double now)
{
    if (!sync) {
        return time_limit;
    }
    double remaining = answer_by - now; /* both wall-clock (unix) times */
    return fmax(0.01, fmin(time_limit, remaining));
}

double svcSched_HardDeadline(double started, double limit)
{
    return started + limit + SVC_HARD_GRACE + 0.1 * limit;
}

/* The run definition a job's worker plans with: the job's (svcJob.run: the request's run fields as
 * check_request read them when the server took the job) with the fields the server sets (the table's
 * TP_RUNF_SERVER rows, tp/run_fields.h): the planner's time limit (limit s, as cut for a synchronous
 * job), the script's load and callback limits within it, and memory_mb as the bound of the Lua heap
 * and of the search. Nothing is read or checked again here. */
static void job_run_def(const svcJob *job, double limit, tplan_run_def *run)
{
    TP_ASSERT(job->run_read && limit > 0 && job->memory_mb >= TP_RUN_MIN_MEMORY_MB);
    *run = job->run;
    run->time_limit = limit;
    run->load_time_limit = fmin(TP_RUN_SCRIPT_TIME_DEFAULT, limit);
    run->call_time_limit = fmin(TP_RUN_SCRIPT_TIME_DEFAULT, limit);
    run->memory_limit_mb = job->memory_mb;
    run->search_memory_mb = job->memory_mb;
}

/* Starts job on worker w (index wi). True when it runs, or has failed at once (it is gone from the
 * active list); false when it did not start and is still queued: the worker is gone (its pipe's end
 * restarts it), or, on a cluster node, the store did not answer the read of the job's script (a
 * connection lost: the database restarting or away). That is not the job's failure: cluster_dispatch
 * hands it back to the queue (a restart of PostgreSQL between the claim and this read failed the job
 * "internal": e2e_service_cluster_restart, now and then). */
static bool start_job(tpService *svc, svcWorker *w, int wi, svcJob *job)
{
    char dir[4096];
    svcJobPath(svc, job->id, NULL, dir, sizeof dir);
    /* a job planned again (after a stop or crash) starts clean, but for the interim plan a drain's
       hand-back kept, served until this run ends */
    svcJobRemoveFiles(svc, job->id, SVC_KEEP_INTERIM);
    uint64_t store_errors = svc->store_errors;
    if (!svcStore_LoadScript(svc, job)) { /* a queued script waits in the store, not in memory */
        job->worker = -1;
        if (svc->cluster && svc->store_errors != store_errors) { /* the statement failed: the store, not the job */
            svcLog(svc,
                   "job %lld: its script could not be read (the job store does not answer): handed back to the queue",
                   (long long)job->id);
            return false;
        }
        if (svc->store_errors != store_errors) { /* SQLite (busy, an I/O error, no memory): the same, here */
            const double backoff = fmin(SVC_BACKOFF_MAX, SVC_BACKOFF_FIRST * pow(2.0, job->read_failures));
            job->read_failures++;
            job->run_at = svcNow() + backoff; /* not stored: the store is what failed (a restart runs it at once) */
            job->version++;
            svcLog(svc, "job %lld: its script could not be read (the job store failed): tried again in %.0f s",
                   (long long)job->id, backoff);
            return false;
        }
        finish_job(svc, job, SVC_FAILED, "internal", "the job's script could not be read from the store");
        return true;
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        char msg[4200];
        snprintf(msg, sizeof msg, "cannot create %s: %s", dir, strerror(errno));
        job->worker = -1;
        finish_job(svc, job, SVC_FAILED, "internal", msg);
        return true;
    }
    double now = tpClock_Now();
    if (job->sync) {
        job->answer_by = svcSched_AnswerBy(job->sync_deadline, job->created, svc->sync_spent, svc->nsync_spent);
    }
    double limit = svcSched_TimeLimit(job->sync, job->run.time_limit, job->answer_by, svcNow());
    tpJson_ResetFailed(); /* the worker's message must be whole: its print checks what follows */
    cJSON *req = job->run_read ? cJSON_Parse(job->request) : NULL; /* the request, for the worker's state and set */
    if (!cJSON_IsObject(req)) {
        cJSON_Delete(req);
        job->worker = -1;
        finish_job(svc, job, SVC_FAILED, "internal", "the job's request could not be read again");
        return true;
    }
    tplan_run_def run;
    job_run_def(job, limit, &run);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "id", (double)job->id);
    cJSON_AddStringToObject(m, "dir", dir);
    tpJson_Put(m, "request", req);
    if (!tpRun_WriteJsonFields(&run, cJSON_AddObjectToObject(m, "run"))) {
        cJSON_Delete(m);
        return false;
    }
    if (job->script) {
        cJSON_AddStringToObject(m, "script", job->script);
    } else {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.lua", svc->def.domains_dir, job->domain);
        cJSON_AddStringToObject(m, "domain_path", path);
    }
    if (job->sync) { /* the search ends here even if the script's load took part of the time */
        cJSON_AddNumberToObject(m, "answer_by", job->answer_by);
    }
    cJSON_AddNumberToObject(m, "progress", 0.25);
    char *line = tpJson_ExactNumbers(m) ? tpJson_PrintChecked(m) : NULL; /* a state's to the bit */
    cJSON_Delete(m);
    free(job->script); /* the worker has it now */
    job->script = NULL;
    if (!line) {
        return false;
    }
    size_t n = strlen(line);
    line[n] = '\n'; /* replaces the terminator: write n + 1 bytes */
    bool ok = tpFd_WriteAll(w->in_fd, line, n + 1);
    free(line);
    if (!ok) {
        return false; /* the worker is gone: its pipe's end restarts it, the job stays queued */
    }
    TP_VALIDATE(svcValid_StatusChange, (&(svcStatusChange){job->status, SVC_RUNNING, false, false}));
    job->status = SVC_RUNNING;
    job->started = svcNow();
    job->nseries = 0; /* a run planned again (after a crash) starts its series again */
    job->worker = wi;
    job->version++;
    w->job = job->id;
    w->hard_deadline = svcSched_HardDeadline(now, limit);
    w->job_started = now;
    w->job_limit = limit;
    w->killed = false;
    svcStore_Update(svc, job);
    svcLog(svc, "job %lld running on worker %d (pid %d, time limit %.3g s)", (long long)job->id, wi, (int)w->pid,
           limit);
    pthread_cond_broadcast(&svc->changed);
    return true;
}

/* Starts queued jobs while workers are free. A job with "jobs" = J > 1 needs J free workers: it
 * runs on one (which forks its J searches) and the others are reserved until it ends, so the
 * machine's cores are never oversubscribed. The queue is strictly in order: a large job at its head
 * waits for enough workers rather than being overtaken for ever by small ones. */
static void cluster_dispatch(tpService *svc);

static void dispatch(tpService *svc)
{
    if (svc->draining) { /* SIGTERM: the running jobs end, nothing new starts here */
        return;
    }
    if (svc->cluster) {
        cluster_dispatch(svc);
        return;
    }
    for (;;) {
        svcJob *job = next_queued(svc);
        if (!job) {
            return;
        }
        /* a synchronous job takes an interactive worker, else any idle one; a batch job only batch
         * workers (the interactive ones stay free for the next game request) */
        int idle = 0, first = -1;
        if (job->sync) {
            for (int wi = svc->nprocs - 1; wi >= 0 && first < 0; --wi) {
                first = worker_idle(&svc->workers[wi]) ? wi : -1;
            }
            idle = first >= 0;
        } else {
            for (int wi = 0; wi < svc->nworkers; ++wi) {
                if (worker_idle(&svc->workers[wi])) {
                    first = first < 0 ? wi : first;
                    ++idle;
                }
            }
        }
        if (idle < (job->sync ? 1 : job->jobs)) {
            return;
        }
        int64_t id = job->id;
        int more = job->sync ? 0 : job->jobs - 1;
        if (!start_job(svc, &svc->workers[first], first, job)) {
            job = svcSched_Find(svc, id);
            if (job && job->status == SVC_QUEUED && job->run_at > svcNow() && svc->workers[first].pid > 0) {
                continue; /* its script's read failed: it waits its backoff, the next job may start */
            }
            return; /* the worker is gone: its pipe's end restarts it */
        }
        job = svcSched_Find(svc, id); /* NULL if it could not start (failed at once) */
        for (int wi = 0; job && wi < svc->nworkers && more > 0; ++wi) {
            if (wi != first && worker_idle(&svc->workers[wi])) {
                svc->workers[wi].reserved_for = id;
                --more;
            }
        }
    }
}

/* A PostgreSQL store: the queue is the cluster's. While this node has idle workers it claims the
 * next job (synchronous ones first, then the job of the client address with the fewest jobs
 * running in the cluster, the oldest among equals: the local queue's order; an idle interactive
 * worker takes only synchronous ones), holds its lease
 * (store_pg.c) and starts it at once. A job with "jobs" = J is claimed only when J batch workers are
 * free (it may be overtaken by smaller ones, unlike the local queue's strict order). */
static void cluster_dispatch(tpService *svc)
{
    while (!svc->stopping) {
        int idle = 0, first = -1, inter = -1;
        for (int wi = 0; wi < svc->nworkers; ++wi) {
            if (worker_idle(&svc->workers[wi])) {
                first = first < 0 ? wi : first;
                ++idle;
            }
        }
        for (int wi = svc->nworkers; wi < svc->nprocs && inter < 0; ++wi) {
            inter = worker_idle(&svc->workers[wi]) ? wi : -1;
        }
        if (idle == 0 && inter < 0) {
            return;
        }
        if (svcStore_Failed(svc)) { /* the store refuses writes: a job claimed now could not be finished,
                                       and its lease not renewed (it would be planned again and again) */
            return;
        }
        svcJob *job = svcCluster_Claim(svc, idle > 0, idle > 0 ? idle : 1);
        if (!job) {
            return;
        }
        int wi = job->sync && inter >= 0 ? inter : first;
        int64_t id = job->id;
        if (!svcSched_Enqueue(svc, job)) {
            svcJobFree(job); /* out of memory: its lease expires and another node takes it */
            return;
        }
        int more = job->sync ? 0 : job->jobs - 1;
        if (!start_job(svc, &svc->workers[wi], wi, job)) {
            /* the worker is gone (its pipe's end restarts it) or the store did not answer: the job goes
               back to the queue. The claimed record (running under this node's lease) is queued again
               now, or, if the store does not take the write either, by this node's next lease renewal
               (store_pg.c renew: a job of this node it no longer runs is queued again; after its lease
               ran out, once: PG_LEASE_LOST_SET) or by another node's reclaim once the lease runs out */
            job->worker = -1;
            job->started = 0;
            job->status = SVC_QUEUED;
            svcStore_Update(svc, job);
            leave_active(svc, job);
            return;
        }
        job = svcSched_Find(svc, id);
        for (int k = 0; job && k < svc->nworkers && more > 0; ++k) {
            if (k != wi && worker_idle(&svc->workers[k])) {
                svc->workers[k].reserved_for = id;
                --more;
            }
        }
    }
}

/* ---- events ----------------------------------------------------------------------------- */

static double json_number(const cJSON *o, const char *name, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* One row of the job's progress series (the page's chart of a finished job, the animator audit: it showed one
 * dot, the last progress). Full: every other row is dropped (the first and the newest kept), so the
 * series spans the whole run at half the density; a row equal to the last one is not added. */
static void series_add(svcJob *job)
{
    if (!job->series) {
        job->series = malloc(sizeof *job->series * SVC_SERIES_POINTS);
        if (!job->series) {
            return; /* no series: the chart shows what the page sees live */
        }
        job->nseries = 0;
    }
    double row[3] = {job->elapsed, job->best_quality, (double)job->nodes};
    if (job->nseries > 0) {
        const double *last = job->series[job->nseries - 1];
        if (last[0] == row[0] && last[2] == row[2] && (last[1] == row[1] || (isnan(last[1]) && isnan(row[1])))) {
            return;
        }
    }
    if (job->nseries == SVC_SERIES_POINTS) {
        int n = 0;
        for (int i = 0; i < SVC_SERIES_POINTS; i += 2) {
            memcpy(job->series[n++], job->series[i], sizeof row);
        }
        job->nseries = n;
    }
    memcpy(job->series[job->nseries++], row, sizeof row);
}

/* The series as the summary's "progress": [[elapsed, best_quality or null, nodes], ...]. */
static void series_to_summary(const svcJob *job, cJSON *sum)
{
    if (!job->series || job->nseries == 0) {
        return;
    }
    cJSON *arr = cJSON_AddArrayToObject(sum, "progress");
    for (int i = 0; arr && i < job->nseries; ++i) {
        cJSON *r = cJSON_CreateArray();
        tpJson_Append(r, cJSON_CreateNumber(job->series[i][0]));
        tpJson_Append(r, isfinite(job->series[i][1]) ? cJSON_CreateNumber(job->series[i][1]) : cJSON_CreateNull());
        tpJson_Append(r, cJSON_CreateNumber(job->series[i][2]));
        tpJson_Append(arr, r);
    }
}

/* A job back in the queue, its run's progress forgotten (a hand-back, a retry after a failure, a stop
 * of the server): a later run starts it afresh. */
static void requeue(svcJob *job)
{
    TP_VALIDATE(svcValid_StatusChange, (&(svcStatusChange){job->status, SVC_QUEUED, false, false}));
    job->status = SVC_QUEUED;
    job->started = 0;
    job->iterations = job->nodes = 0;
    job->solutions = 0;
    job->best_quality = NAN;
    job->elapsed = 0;
}

/* A drain's hand-back (service.c drain, docs/service.md#drain): the job, stopped with no solution yet,
 * wrote its best approximate plan; it is queued again with that plan as its interim plan (the file
 * renamed interim.N.json, N one more than its last hand-back's; the record through svcStore_Handback),
 * which GET /v1/jobs/{id}/plan serves until the job ends. No failure or retry is counted. False when
 * that could not be done (the file is missing, the store refused it): the caller then ends the job
 * as the stop made it, approximate with that plan (the best plan is kept either way). */
static bool handback_job(tpService *svc, svcJob *job)
{
    const int n = svcInterimNumber(job) + 1;
    char name[64], from[4096], to[4096];
    svcInterimFile(n, name, sizeof name);
    svcJobPath(svc, job->id, "plan.json", from, sizeof from);
    svcJobPath(svc, job->id, name, to, sizeof to);
    if (rename(from, to) != 0) {
        svcLog(svc, "job %lld: its best plan could not be kept as an interim plan (%s): it ends approximate",
               (long long)job->id, strerror(errno));
        return false;
    }
    cJSON *sum = job->summary ? cJSON_Parse(job->summary) : NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", n);
    cJSON_AddNumberToObject(o, "handed_back", svcNow());
    tpJson_Put(o, "quality", isfinite(job->best_quality) ? cJSON_CreateNumber(job->best_quality) : cJSON_CreateNull());
    static const char *const from_summary[] = {"cost", "steps", "duration"};
    for (int i = 0; i < 3; ++i) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(sum, from_summary[i]);
        tpJson_Put(o, from_summary[i], cJSON_IsNumber(v) ? cJSON_CreateNumber(v->valuedouble) : cJSON_CreateNull());
    }
    cJSON_AddNumberToObject(o, "iterations", (double)job->iterations);
    cJSON_AddNumberToObject(o, "nodes", (double)job->nodes);
    cJSON_AddNumberToObject(o, "elapsed", job->elapsed);
    if (sum) { /* the run's summary: the job's if a stop ends it queued (svcSched_StopJob) */
        tpJson_Put(o, "summary", sum);
    }
    char *text = tpJson_PrintChecked(o); /* NULL if built short of memory: a record with members missing */
    cJSON_Delete(o);
    if (!text || !svcStore_Handback(svc, job, text, name)) {
        free(text);
        rename(to, from); /* back where the approximate end keeps it */
        svcLog(svc, "job %lld: the store did not take its hand-back: it ends approximate with its best plan",
               (long long)job->id);
        return false;
    }
    drop_interim_file(svc, job, n - 1); /* the older interim plan, if it was handed back before */
    svcJobPath(svc, job->id, "tree.bin", from, sizeof from);
    unlink(from);
    svcLog(svc,
           "job %lld handed back to the queue with its best approximate plan kept as interim plan %d (%lld "
           "iterations, %lld nodes)",
           (long long)job->id, n, (long long)job->iterations, (long long)job->nodes);
    requeue(job);
    job->nseries = 0;
    free(job->summary);
    job->summary = NULL;
    job->has_plan = job->has_tree = false;
    job->files_bytes = 0;
    job->stop = job->handback = false;
    free(job->interim);
    job->interim = text;
    release_workers(svc, job);
    job->version++;
    if (svc->cluster) { /* the store holds it (and its interim plan) now: a node claims it */
        svcJobRemoveFiles(svc, job->id, 0);
        leave_active(svc, job);
    }
    pthread_cond_broadcast(&svc->changed);
    svcWakeScheduler(svc);
    return true;
}

static void handle_event(tpService *svc, svcWorker *w, const char *line)
{
    svcJob *job = w->job ? svcSched_Find(svc, w->job) : NULL;
    cJSON *ev = cJSON_Parse(line);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
    if (!job || !cJSON_IsString(type)) {
        if (!cJSON_IsString(type)) {
            svcLog(svc, "worker pid %d: unreadable event ignored", (int)w->pid);
        }
        cJSON_Delete(ev);
        return;
    }
    job->iterations = (int64_t)json_number(ev, "iterations", (double)job->iterations);
    job->nodes = (int64_t)json_number(ev, "nodes", (double)job->nodes);
    job->solutions = (int)json_number(ev, "solutions", job->solutions);
    job->elapsed = json_number(ev, "elapsed", job->elapsed);
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(ev, "best_quality");
    if (cJSON_IsNumber(q)) {
        job->best_quality = q->valuedouble;
    }
    job->version++;
    series_add(job);
    if (strcmp(type->valuestring, "done") == 0 && !job->cancel) {
        sync_measure(svc, job);
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(ev, "status");
        int s = cJSON_IsString(st) ? svcStatusFromName(st->valuestring) : -1;
        cJSON *sum = cJSON_GetObjectItemCaseSensitive(ev, "summary");
        if (cJSON_IsObject(sum)) {
            if (!cJSON_GetObjectItemCaseSensitive(sum, "progress")) {
                series_to_summary(job, sum);
            }
            free(job->summary);
            job->summary = tpJson_PrintChecked(sum);
            const cJSON *stats = cJSON_GetObjectItemCaseSensitive(sum, "iterations");
            if (cJSON_IsNumber(stats)) {
                job->iterations = (int64_t)stats->valuedouble;
            }
        }
        job->has_plan = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "plan"));
        job->has_tree = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "tree"));
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(ev, "error");
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e, "message");
        if (s != SVC_SOLVED && s != SVC_APPROXIMATE) {
            /* the library names the run's fields, which are the request's members (tp/run_fields.h);
               those the server sets (the script limits) are said to be the server's */
            char text[32][2][48];
            const char *words[32][2];
            int nw = 0;
            for (int i = 0; i < tpRun_FieldCount && nw < 32; ++i) {
                if (tpRun_Fields[i].who & TP_RUNF_SERVER) {
                    snprintf(text[nw][0], sizeof text[nw][0], ": %s)", tpRun_Fields[i].name);
                    snprintf(text[nw][1], sizeof text[nw][1], ": %s, the server's)", tpRun_Fields[i].name);
                    words[nw][0] = text[nw][0];
                    words[nw][1] = text[nw][1];
                    ++nw;
                }
            }
            const char *m = cJSON_IsString(msg) ? msg->valuestring : "the worker reported a failure";
            size_t cap = 2 * strlen(m) + 64;
            char *shown = malloc(cap);
            finish_job(svc, job, SVC_FAILED, cJSON_IsString(code) ? code->valuestring : "internal",
                       shown ? tpWords_Replace(m, (const char *const(*)[2])words, nw, shown, cap) : m);
            free(shown);
        } else if (!(job->handback && s == SVC_APPROXIMATE && job->has_plan && handback_job(svc, job))) {
            finish_job(svc, job, (svcStatus)s, NULL, NULL);
        }
    } else {
        if (svc->cluster) {
            svcCluster_Progress(svc, job); /* the front ends see it (at most every 0.5 s) */
        }
        pthread_cond_broadcast(&svc->changed);
    }
    cJSON_Delete(ev);
}

/* Reads what the worker wrote; false at the end of its pipe (it died or closed it). */
static bool read_events(tpService *svc, svcWorker *w)
{
    for (;;) {
        if (w->cap - w->len < 4096) {
            size_t cap = w->cap ? 2 * w->cap : 16384;
            if (cap > ((size_t)64 << 20)) {
                svcLog(svc, "worker pid %d: an event line over 64 MB; stopping it", (int)w->pid);
                return false;
            }
            char *grown = realloc(w->buf, cap);
            if (!grown) {
                return false;
            }
            w->buf = grown;
            w->cap = cap;
        }
        ssize_t k = read(w->ev_fd, w->buf + w->len, w->cap - w->len - 1);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return true;
        }
        if (k <= 0) {
            return false;
        }
        w->len += (size_t)k;
        w->buf[w->len] = '\0';
        char *start = w->buf, *nl;
        while ((nl = memchr(start, '\n', w->len - (size_t)(start - w->buf)))) {
            *nl = '\0';
            handle_event(svc, w, start);
            start = nl + 1;
        }
        size_t rest = w->len - (size_t)(start - w->buf);
        memmove(w->buf, start, rest);
        w->len = rest;
    }
}

/* An infrastructure failure (its worker died: not the script's error, nor a limit) of a job with
 * retries left: queued again after a backoff (SVC_BACKOFF_FIRST s, doubled after each failure, at most
 * SVC_BACKOFF_MAX), its failures counted in its record. False (nothing changed) when none are left. */
static bool queue_again(tpService *svc, svcJob *job, const char *message)
{
    if (job->failures >= job->retries || job->sync) {
        return false;
    }
    double backoff = fmin(SVC_BACKOFF_MAX, SVC_BACKOFF_FIRST * pow(2.0, job->failures));
    job->failures++;
    requeue(job);
    job->run_at = svcNow() + backoff;
    release_workers(svc, job);
    free(job->script); /* read again from the store when a worker takes it */
    job->script = NULL;
    job->version++;
    svcJobRemoveFiles(svc, job->id, SVC_KEEP_LOG | SVC_KEEP_INTERIM);
    bool stored = svcStore_Update(svc, job); /* a cluster node hands it back (its lease dropped) */
    svcLog(svc, "job %lld: %s; queued again in %.0f s (failure %d of %d retries)%s", (long long)job->id, message,
           backoff, job->failures, job->retries, stored ? "" : " (the store did not take it)");
    if (svc->cluster) { /* the store holds it now: a node claims it when it is due */
        leave_active(svc, job);
    }
    pthread_cond_broadcast(&svc->changed);
    svcWakeScheduler(svc);
    return true;
}

/* A cluster node's job whose lease ran out while the store did not answer: its run stopped, it leaves
 * this node without a write (another node may hold it now; the store queues it again). */
static void forget_job(tpService *svc, svcJob *job)
{
    release_workers(svc, job);
    svcJobRemoveFiles(svc, job->id, 0);
    svcLog(svc, "job %lld: run stopped (its lease ran out); left to the store to queue again", (long long)job->id);
    leave_active(svc, job);
    pthread_cond_broadcast(&svc->changed);
    svcWakeScheduler(svc);
}

static void worker_died(tpService *svc, int wi)
{
    svcWorker *w = &svc->workers[wi];
    pid_t pid = w->pid;
    bool killed = w->killed;
    int status = svcSched_ReapWorker(w);
    svcJob *job = w->job ? svcSched_Find(svc, w->job) : NULL;
    if (job) {
        if (killed && strcmp(w->kill_code, "lease_expired") == 0) {
            forget_job(svc, job); /* its lease ran out: the store queues it again, nothing is written */
        } else if (killed) {      /* by svcSched_Cancel: a DELETE ("cancelled") or the hard time limit */
            finish_job(svc, job, strcmp(w->kill_code, "cancelled") == 0 ? SVC_CANCELLED : SVC_FAILED, w->kill_code,
                       w->kill_message);
        } else {
            char msg[256];
            if (WIFSIGNALED(status)) {
                snprintf(msg, sizeof msg, "worker died with signal %d (%s) while planning", WTERMSIG(status),
                         strsignal(WTERMSIG(status)));
            } else {
                snprintf(msg, sizeof msg, "worker exited with status %d while planning", WEXITSTATUS(status));
            }
            if (!queue_again(svc, job, msg)) {
                finish_job(svc, job, SVC_FAILED, "worker_crashed", msg);
            }
        }
    }
    w->job = 0;
    if (!killed) {
        svc->metrics.worker_restarts++;
        svcLog(svc, "worker %d (pid %d) died; starting a new one", wi, (int)pid);
    }
    if (!svc->stopping && !svcSched_SpawnWorker(svc, w, NULL)) {
        svcLog(svc, "worker %d: could not be restarted", wi);
    }
}

static void check_deadlines(tpService *svc, double now)
{
    for (int wi = 0; wi < svc->nprocs; ++wi) {
        svcWorker *w = &svc->workers[wi];
        svcJob *job = w->job ? svcSched_Find(svc, w->job) : NULL;
        if (job && !job->cancel && now > w->hard_deadline) {
            char msg[256];
            /* from when it was sent, against the limit it was given (the hard deadline adds
               SVC_HARD_GRACE and 10 % of the limit: the overrun is both, and more when the
               scheduler looked late) */
            double ran = now - w->job_started;
            snprintf(msg, sizeof msg, "the job ran %.0f s, %.0f s past its time limit of %g s, and was stopped", ran,
                     ran - w->job_limit, w->job_limit);
            svcSched_Cancel(svc, job, "time_limit", msg);
        }
    }
    /* a synchronous job that found no free worker before its deadline is dropped (its request gets
       503); one still running long after it (its request was answered 503 deadline_missed at the
       deadline) missed the planner's own limit by far, a stuck callback: it is stopped */
    for (int i = svc->nactive - 1; i >= 0; --i) {
        svcJob *job = svc->active[i];
        if (job->sync && job->status == SVC_QUEUED && svcNow() > job->sync_deadline) {
            svcSched_Cancel(svc, job, "no_worker", "no worker became free before the deadline");
        } else if (job->sync && job->status == SVC_RUNNING && !job->cancel &&
                   svcNow() > job->sync_deadline + SVC_SYNC_OVERDUE) {
            svcSched_Cancel(svc, job, "time_limit", "the synchronous job missed its deadline");
        }
    }
}

/* The cancel/stop requests and lost leases the cluster's tick marked on running jobs (svcJob.ctl). */
static void act_on_cluster_requests(tpService *svc)
{
    for (int i = svc->nactive - 1; i >= 0; --i) { /* backwards: a cancelled queued job leaves the list */
        svcJob *job = svc->active[i];
        char what = job->ctl;
        job->ctl = 0;
        if (what == 's') {
            svcSched_StopJob(svc, job);
        } else if (what == 'x' && job->worker >= 0 && !job->cancel) { /* killed, then forgotten (worker_died) */
            svcWorker *w = &svc->workers[job->worker];
            job->cancel = true;
            w->killed = true;
            snprintf(w->kill_code, sizeof w->kill_code, "%s", job->ctl_code);
            snprintf(w->kill_message, sizeof w->kill_message, "%s", job->ctl_message);
            kill(w->pid, SIGKILL);
        } else if (what == 'l' || what == 'c') {
            svcSched_Cancel(svc, job, job->ctl_code, job->ctl_message);
        }
    }
}

static void *sched_main(void *arg)
{
    tpService *svc = arg;
    struct pollfd *fds = calloc((size_t)svc->nprocs + 1, sizeof *fds);
    int *which = calloc((size_t)svc->nprocs + 1, sizeof *which);
    pthread_mutex_lock(&svc->mu);
    while (!svc->stopping && fds && which) {
        tpJson_ResetFailed(); /* a round's messages and records are checked for its own failures */
        dispatch(svc);
        svcValid_Check(svc);
        int n = 0;
        fds[n].fd = svc->wake[0];
        fds[n].events = POLLIN;
        which[n++] = -1;
        if (svcNow() >= svc->next_retention) {
            retention(svc);
        }
        double now = tpClock_Now(), next = now + 1.0;
        for (int wi = 0; wi < svc->nprocs; ++wi) {
            svcWorker *w = &svc->workers[wi];
            if (w->pid > 0) {
                fds[n].fd = w->ev_fd;
                fds[n].events = POLLIN;
                which[n++] = wi;
            }
            if (w->job && w->hard_deadline < next) {
                next = w->hard_deadline;
            }
        }
        for (int i = 0; i < svc->nactive; ++i) { /* synchronous jobs' deadlines are wall-clock times */
            if (svc->active[i]->sync && svc->active[i]->status == SVC_QUEUED) {
                double d = now + (svc->active[i]->sync_deadline - svcNow());
                next = d < next ? d : next;
            }
            double ahead = svc->active[i]->run_at - svcNow(); /* a scheduled job falls due (one due already
                                                                 waits for a worker: no wake for it) */
            if (svc->active[i]->status == SVC_QUEUED && ahead > 0) {
                next = now + ahead < next ? now + ahead : next;
            }
        }
        if (svc->cluster) { /* leases, cancel requests, dead nodes' jobs, ends the store refused */
            retry_unstored(svc);
            double due = now + svcCluster_Tick(svc);
            next = due < next ? due : next;
            act_on_cluster_requests(svc);
        }
        int timeout = (int)fmax(1.0, ceil((next - now) * 1000.0));
        pthread_mutex_unlock(&svc->mu);
        int rc = poll(fds, (nfds_t)n, timeout);
        pthread_mutex_lock(&svc->mu);
        if (rc < 0 && errno != EINTR) {
            svcLog(svc, "scheduler: poll: %s", strerror(errno));
        }
        for (int i = 0; rc > 0 && i < n; ++i) {
            if (!fds[i].revents) {
                continue;
            }
            if (which[i] < 0) {
                char buf[256];
                while (read(svc->wake[0], buf, sizeof buf) > 0) {
                }
            } else if (!read_events(svc, &svc->workers[which[i]])) {
                worker_died(svc, which[i]);
            }
        }
        check_deadlines(svc, tpClock_Now());
    }
    pthread_mutex_unlock(&svc->mu);
    free(fds);
    free(which);
    return NULL;
}

bool svcSched_Start(tpService *svc, char *err, size_t errlen)
{
    if (pipe2(svc->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
        return false;
    }
    svc->nworkers = svc->def.workers;
    svc->ninteractive = svc->def.interactive_workers;
    svc->nprocs = svc->nworkers + svc->ninteractive;
    svc->workers = calloc((size_t)svc->nprocs + 1, sizeof *svc->workers); /* a front end has none */
    if (!svc->workers) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (int i = 0; i < svc->nprocs; ++i) {
        svc->workers[i].in_fd = svc->workers[i].ev_fd = -1;
        svc->workers[i].interactive = i >= svc->nworkers;
        if (!svcSched_SpawnWorker(svc, &svc->workers[i], NULL)) {
            snprintf(err, errlen, "cannot start worker %d (%s)", i, svc->def.worker_argv[0]);
            return false;
        }
    }
    sweep_orphans(svc);
    retention(svc);
    int n = 0;
    svcJob **queued = svcStore_Recover(svc, &n);
    for (int i = 0; i < n; ++i) {
        if (!svcSched_Enqueue(svc, queued[i])) {
            svcJobFree(queued[i]);
        }
    }
    free(queued);
    if (n > 0) {
        svcLog(svc, "store: %d queued job%s to run", n, n == 1 ? "" : "s");
    }
    if (pthread_create(&svc->sched, NULL, sched_main, svc) != 0) {
        snprintf(err, errlen, "cannot start the scheduler thread");
        return false;
    }
    svc->sched_started = true;
    return true;
}

void svcSched_Stop(tpService *svc)
{
    pthread_mutex_lock(&svc->mu);
    svc->stopping = 1;
    pthread_mutex_unlock(&svc->mu);
    if (svc->sched_started) {
        svcWakeScheduler(svc);
        pthread_join(svc->sched, NULL);
        svc->sched_started = false;
    }
    pthread_mutex_lock(&svc->mu);
    for (int wi = 0; wi < svc->nprocs; ++wi) {
        svcWorker *w = &svc->workers[wi];
        if (w->pid > 0 && w->job == 0) {
            /* an idle worker waits for a line on its stdin: the end of it makes it exit normally
             * (so the sanitizer build checks it for leaks); a busy one is killed */
            close(w->in_fd);
            w->in_fd = -1;
            int status;
            while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
            }
            w->pid = 0;
        }
        svcSched_ReapWorker(w);
        free(w->buf);
    }
    /* interrupted jobs go back to the queue: a restart plans them again (to the same plan) */
    for (int i = 0; i < svc->nactive; ++i) {
        svcJob *job = svc->active[i];
        if (job->status == SVC_RUNNING) {
            requeue(job);
            job->nseries = 0;
            svcStore_Update(svc, job);
            svcLog(svc, "job %lld queued (interrupted by the stop)", (long long)job->id);
        }
        svcJobFree(job);
    }
    svc->nactive = 0;
    free(svc->active);
    svc->active = NULL;
    free(svc->workers);
    svc->workers = NULL;
    pthread_cond_broadcast(&svc->changed);
    pthread_mutex_unlock(&svc->mu);
    if (svc->wake[0] > 0) {
        close(svc->wake[0]);
        close(svc->wake[1]);
    }
}
