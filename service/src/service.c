/* tplan service: tpRunService — the data directory, the store, the workers, the HTTP server, and
 * a clean stop on SIGINT / SIGTERM. */
#define _GNU_SOURCE /* realpath */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "service_internal.h"
#include "store.h"
#include "tp/base.h"
#include "tp/json_text.h"

tpServiceDef tpDefaultServiceDef(void)
{
    tpServiceDef d;
    memset(&d, 0, sizeof d);
    d.bind = "127.0.0.1";
    d.port = 8087;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    d.workers = cores > 0 ? (int)cores : 1;
    d.data_dir = "./tplan-data";
    d.max_queue = 1000;
    d.default_time = 60;
    d.max_time = 600;
    d.default_memory_mb = 2048;
    d.max_memory_mb = 4096;
    d.interactive_workers = 1;
    d.batch_nice = 10;
    d.keep_days = 7;
    d.keep_jobs = 5000;
    d.keep_mb = 2048;
    d.max_connections = 1024;
    d.max_per_address = 128;
    d.max_streams_per_address = 16;
    d.max_streams_per_job = 32;
    d.request_timeout = 30;
    d.lease = 10;
    d.drain_timeout = 30;
    return d;
}

static bool make_dir(const char *path, char *err, size_t errlen)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return false;
    }
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "%s is not a directory", path);
        return false;
    }
    return true;
}

/* The domain names of def->domains_json, for checking {"domain": name}. */
static bool read_domains(tpService *svc, char *err, size_t errlen)
{
    cJSON *o = cJSON_Parse(svc->def.domains_json);
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "domains");
    if (!cJSON_IsArray(arr)) {
        cJSON_Delete(o);
        snprintf(err, errlen, "the domain list is not {\"domains\":[...]}");
        return false;
    }
    int n = cJSON_GetArraySize(arr);
    svc->domain_names = calloc((size_t)n + 1, sizeof *svc->domain_names);
    const cJSON *d;
    cJSON_ArrayForEach(d, arr)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
        if (svc->domain_names && cJSON_IsString(name)) {
            svc->domain_names[svc->ndomains++] = strdup(name->valuestring);
        }
    }
    cJSON_Delete(o);
    return svc->domain_names != NULL;
}

/* Every connection is a socket (and a thread): raise the soft limit of open files towards the hard
 * one so that max_connections fit beside the store, the workers' pipes and the page's files (a
 * common soft limit is 1024). False when even the hard limit is too low. */
static bool raise_fd_limit(const tpService *svc, char *err, size_t errlen)
{
    rlim_t need = (rlim_t)svc->def.max_connections + 64 + 8 * (rlim_t)svc->def.workers;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need) {
        return true;
    }
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        snprintf(err, errlen,
                 "--max-connections %d needs %llu open files, and the hard limit is %llu (ulimit -Hn): lower "
                 "--max-connections or raise the limit",
                 svc->def.max_connections, (unsigned long long)need, (unsigned long long)rl.rlim_max);
        return false;
    }
    rl.rlim_cur = need;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        snprintf(err, errlen, "cannot raise the open-file limit to %llu: %s", (unsigned long long)need,
                 strerror(errno));
        return false;
    }
    return true;
}

static void free_service(tpService *svc)
{
    for (int i = 0; i < svc->ndomains; ++i) {
        free(svc->domain_names[i]);
    }
    free(svc->domain_names);
    free(svc->data_dir);
    free(svc->token);
    free(svc->web_root);
    pthread_mutex_destroy(&svc->mu);
    pthread_mutex_destroy(&svc->check_mu);
    pthread_cond_destroy(&svc->changed);
}

#define SVC_DRAIN_STOP_GRACE 10.0 /* s a job stopped at the drain's deadline has to write its best solution */

/* The jobs this node still has to end: running, or ended but not yet stored (a cluster's store
 * refused the record: sched.c retry_unstored). mu held. */
static int jobs_to_end(tpService *svc)
{
    int n = 0;
    for (int i = 0; i < svc->nactive; ++i) {
        n += svc->active[i]->status == SVC_RUNNING || svc->active[i]->unstored;
    }
    return n;
}

/* Waits on svc->changed (broadcast on every job change) for at most seconds (mu held). */
static void wait_change(tpService *svc, double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double t = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + fmax(0.0, seconds);
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    pthread_cond_timedwait(&svc->changed, &svc->mu, &ts);
}

/* SIGTERM (docs/service.md#drain): no job is started or claimed here any more (sched.c dispatch;
 * health says "draining"), the running ones get def.drain_timeout s to end. Then a job that has found
 * a solution is stopped with its best one (as POST /v1/jobs/{id}/stop: it ends solved, its plan kept),
 * one without a solution too: with def.drain_stop_unsolved it ends approximate, its best plan kept;
 * else it is handed back to the queue with that plan kept as its interim plan (sched.c handback_job).
 * Each is given SVC_DRAIN_STOP_GRACE s to write its plan; what still runs after that (a worker that
 * did not answer, a synchronous job) is handed back as it is by svcSched_Stop: another node plans it
 * (a cluster), or this server after its restart. A second SIGTERM or a SIGINT ends the drain at once.
 * Returns that signal, 0 when the drain ended by itself. */
static int drain(tpService *svc, const sigset_t *signals)
{
    int ended_by = 0;
    pthread_mutex_lock(&svc->mu);
    svc->draining = true;
    pthread_cond_broadcast(&svc->changed);
    int left = jobs_to_end(svc);
    svcLog(svc, "draining: no new job is taken; %d running job%s given %g s to end (--drain-timeout)", left,
           left == 1 ? "" : "s", svc->def.drain_timeout);
    double now = tpClock_Now(), deadline = now + svc->def.drain_timeout, end = deadline;
    bool stopped = false;
    while (!svc->stopping && (left = jobs_to_end(svc)) > 0) {
        now = tpClock_Now();
        bool writing = false; /* a job stopped at the deadline is still writing its best solution */
        for (int i = 0; i < svc->nactive && stopped; ++i) {
            writing = writing || (svc->active[i]->status == SVC_RUNNING && svc->active[i]->stop);
        }
        if (stopped && (now >= end || !writing)) {
            svcLog(svc, "drain: %d job%s still running after %g s: handed back to the queue", left,
                   left == 1 ? "" : "s", svc->def.drain_timeout);
            break;
        }
        if (now >= deadline && !stopped) {
            stopped = true;
            end = now + SVC_DRAIN_STOP_GRACE;
            int n = 0;
            for (int i = 0; i < svc->nactive; ++i) {
                svcJob *job = svc->active[i];
                if (job->status != SVC_RUNNING || job->cancel || job->stop) {
                    continue;
                }
                if (job->solutions > 0) {
                    svcLog(svc, "drain: job %lld stopped with its best solution (%d found)", (long long)job->id,
                           job->solutions);
                } else if (svc->def.drain_stop_unsolved) {
                    svcLog(svc,
                           "drain: job %lld stopped with its best approximate plan (no solution yet; "
                           "--drain-unsolved stop)",
                           (long long)job->id);
                } else if (!job->sync) {
                    /* its approximate end queues it again with that plan as its interim plan (sched.c
                       handback_job) */
                    job->handback = true;
                    svcLog(svc,
                           "drain: job %lld stopped to be handed back with its best approximate plan kept "
                           "(no solution yet)",
                           (long long)job->id);
                } else {
                    continue; /* a synchronous call's answer is due at its deadline: handed back as it is */
                }
                svcSched_StopJob(svc, job);
                ++n;
            }
            end = n > 0 ? end : now;
            continue;
        }
        /* a job's end wakes this; a second signal is looked for at least every 0.25 s */
        wait_change(svc, fmin(0.25, (stopped ? end : deadline) - now));
        pthread_mutex_unlock(&svc->mu);
        struct timespec zero = {0, 0};
        int sig = sigtimedwait(signals, NULL, &zero);
        pthread_mutex_lock(&svc->mu);
        if (sig > 0) {
            ended_by = sig;
            left = jobs_to_end(svc);
            svcLog(svc, "drain ended by %s: %d running job%s handed back to the queue",
                   sig == SIGINT ? "SIGINT" : "SIGTERM", left, left == 1 ? "" : "s");
            break;
        }
    }
    if (left == 0) {
        svcLog(svc, "drained: no job running");
    }
    pthread_mutex_unlock(&svc->mu);
    return ended_by;
}

/* def->limits ("TAG=N" each) into svc->limit_tag / limit_max; false with a message naming the bad one. */
static bool read_limits(tpService *svc, char *err, size_t errlen)
{
    for (const char *const *l = svc->def.limits; l && *l; ++l) {
        const char *eq = strrchr(*l, '=');
        char *end = NULL;
        long n = eq ? strtol(eq + 1, &end, 10) : 0;
        size_t len = eq ? (size_t)(eq - *l) : 0;
        bool printable = true;
        for (size_t i = 0; i < len; ++i) {
            printable = printable && (unsigned char)(*l)[i] >= 0x20 && (*l)[i] != 0x7f;
        }
        if (svc->nlimits == TP_SERVICE_MAX_LIMITS) {
            snprintf(err, errlen, "--limit: at most %d limits", TP_SERVICE_MAX_LIMITS);
            return false;
        }
        if (!eq || len == 0 || len > SVC_MAX_TAG || !printable || !eq[1] || !end || *end || n < 1 ||
            n > SVC_LIMIT_MAX) {
            snprintf(err, errlen,
                     "--limit '%.80s': give TAG=N, a tag of 1-%d bytes without control characters and N in 1..%d", *l,
                     SVC_MAX_TAG, SVC_LIMIT_MAX);
            return false;
        }
        for (int k = 0; k < svc->nlimits; ++k) {
            if (strlen(svc->limit_tag[k]) == len && strncmp(svc->limit_tag[k], *l, len) == 0) {
                snprintf(err, errlen, "--limit '%.80s': tag '%.64s' has a limit already", *l, svc->limit_tag[k]);
                return false;
            }
        }
        memcpy(svc->limit_tag[svc->nlimits], *l, len);
        svc->limit_tag[svc->nlimits][len] = '\0';
        svc->limit_max[svc->nlimits++] = (int)n;
    }
    return true;
}

tpServiceStatus tpRunService(const tpServiceDef *def)
{
    tpJson_UseCheckedAllocator(); /* a JSON answer built short of memory is refused, not sent short */
    tpService svc;
    memset(&svc, 0, sizeof svc);
    svc.def = *def;
    svc.log = def->log ? def->log : stderr;
    svc.started_at = svcNow();
    pthread_mutex_init(&svc.mu, NULL);
    pthread_mutex_init(&svc.check_mu, NULL);
    svc.checker.in_fd = svc.checker.ev_fd = -1;
    pthread_cond_init(&svc.changed, NULL);
    char err[4200] = "";
    tpServiceStatus code = TP_SERVICE_BAD_INPUT;
    if (!def->domains_dir || !def->domains_json || !def->worker_argv || !def->worker_argv[0] || def->workers < 0 ||
        def->workers > 256 || def->port < 0 || def->port > 65535 || def->max_queue < 1 || !(def->default_time > 0) ||
        !(def->max_time >= def->default_time) || def->default_memory_mb < 16 ||
        def->max_memory_mb < def->default_memory_mb || def->max_connections < 1 || def->max_per_address < 1 ||
        def->max_streams < 0 || def->max_streams_per_address < 1 || def->max_streams_per_job < 1 ||
        !(def->request_timeout > 0) || def->interactive_workers < 0 || def->batch_nice < 0 || def->batch_nice > 19 ||
        !(def->keep_days >= 0) || def->keep_jobs < 0 || def->keep_mb < 0 || !(def->lease >= 0.5) ||
        !(def->drain_timeout >= 0) || def->drain_timeout > 86400) {
        snprintf(err, sizeof err, "tpRunService: incomplete or inconsistent definition");
        goto out;
    }
    bool shared = svcStore_IsPostgres(def->store);
    if (!shared && def->workers < 1) {
        snprintf(err, sizeof err,
                 "--workers 0 (a front end: HTTP only) needs a shared store: --store postgresql://...");
        goto out;
    }
    if (def->no_http && (!shared || def->workers < 1)) {
        snprintf(err, sizeof err, "--no-http (a worker node) needs --store postgresql://... and --workers 1 or more");
        goto out;
    }
    if (!raise_fd_limit(&svc, err, sizeof err) || !read_domains(&svc, err, sizeof err) ||
        !read_limits(&svc, err, sizeof err)) {
        goto out;
    }
    if (def->token) {
        svc.token = strdup(def->token);
        svc.token_len = strlen(def->token);
    }
    if (def->web_dir) {
        char real[PATH_MAX];
        if (!realpath(def->web_dir, real)) {
            snprintf(err, sizeof err, "--web %s: %s", def->web_dir, strerror(errno));
            goto out;
        }
        svc.web_root = strdup(real);
    }
    char jobs[PATH_MAX + 16], real[PATH_MAX];
    if (!make_dir(def->data_dir, err, sizeof err) || !realpath(def->data_dir, real)) {
        if (!err[0]) {
            snprintf(err, sizeof err, "--data %s: %s", def->data_dir, strerror(errno));
        }
        goto out;
    }
    svc.data_dir = strdup(real);
    snprintf(jobs, sizeof jobs, "%s/jobs", real);
    /* SIGINT and SIGTERM are taken by sigwait (and by the drain's sigtimedwait) below: blocked in
       every thread started from here, the store's own (SQLite's maintenance thread) too; else a
       signal while the main thread drains goes to a thread that has it unblocked */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    if (!make_dir(jobs, err, sizeof err) || !svcStore_Open(&svc, err, sizeof err)) {
        goto out;
    }
    signal(SIGPIPE, SIG_IGN);
    pthread_mutex_lock(&svc.mu);
    bool started = svcSched_Start(&svc, err, sizeof err);
    pthread_mutex_unlock(&svc.mu);
    if (!started) {
        code = TP_SERVICE_FAILURE;
        svcSched_Stop(&svc);
        svcStore_Close(&svc);
        goto out;
    }
    if (svc.cluster && !svcCluster_StartListener(&svc, err, sizeof err)) {
        code = TP_SERVICE_FAILURE;
        svcCluster_StopListener(&svc);
        svcSched_Stop(&svc);
        svcStore_Close(&svc);
        goto out;
    }
    if (!def->no_http && !svcHttp_Start(&svc, svcRoute, err, sizeof err)) {
        if (svc.cluster) {
            svcCluster_StopListener(&svc);
        }
        svcSched_Stop(&svc);
        svcStore_Close(&svc);
        goto out;
    }
    if (def->worker_memory_mb > 0) {
        svcLog(&svc, "workers: address space at most %d MB each (--worker-memory)", def->worker_memory_mb);
    } else {
        svcLog(&svc, "workers: no address-space limit (--worker-memory 0)");
    }
    FILE *ready = def->ready ? def->ready : stdout;
    const char *host = svc.def.bind;
    bool v6 = strchr(host, ':') != NULL;
    if (def->no_http) {
        fprintf(ready, "node ready (no HTTP), %d worker%s, store %s, data %s\n", svc.nworkers,
                svc.nworkers == 1 ? "" : "s", svc.store->name, def->data_dir);
    } else {
        fprintf(ready, "listening on http://%s%s%s:%d, %d worker%s, data %s\n", v6 ? "[" : "", host, v6 ? "]" : "",
                svcHttp_Port(&svc), svc.nworkers, svc.nworkers == 1 ? "" : "s", def->data_dir);
    }
    fflush(ready);
    int sig = 0;
    sigwait(&stop, &sig);
    int then = sig == SIGTERM && def->drain_timeout > 0 ? drain(&svc, &stop) : 0;
    /* the signals as they came: a SIGINT that ended a SIGTERM's drain is named, not taken for another SIGTERM */
    svcLog(&svc, "stopping (%s%s%s)", sig == SIGINT ? "SIGINT" : "SIGTERM", then ? ", then " : "",
           then == SIGINT ? "SIGINT"
           : then         ? "SIGTERM"
                          : "");
    svc.stopping = 1; /* before the lock too: a thread that holds it retrying an unreachable store gives up */
    pthread_mutex_lock(&svc.mu);
    svc.stopping = 1;
    pthread_cond_broadcast(&svc.changed);
    pthread_mutex_unlock(&svc.mu);
    svcHttp_Stop(&svc);
    svcCheck_Stop(&svc); /* no handler uses it any more */
    if (svc.cluster) {
        svcCluster_StopListener(&svc);
    }
    svcSched_Stop(&svc);
    svcStore_Close(&svc);
    svcLog(&svc, "stopped");
    code = TP_SERVICE_STOPPED;
out:
    if (code != TP_SERVICE_STOPPED) {
        svcLog(&svc, "serve: %s", err);
    }
    free_service(&svc);
    return code;
}
