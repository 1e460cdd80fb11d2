/* tplan service: tpRunService — the data directory, the store, the workers, the HTTP server, and
 * a clean stop on SIGINT / SIGTERM. */
#define _GNU_SOURCE /* realpath */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "service_internal.h"
#include "store.h"

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
    pthread_cond_destroy(&svc->changed);
}

tpServiceStatus tpRunService(const tpServiceDef *def)
{
    tpService svc;
    memset(&svc, 0, sizeof svc);
    svc.def = *def;
    svc.log = def->log ? def->log : stderr;
    svc.started_at = svcNow();
    pthread_mutex_init(&svc.mu, NULL);
    pthread_cond_init(&svc.changed, NULL);
    char err[4200] = "";
    tpServiceStatus code = TP_SERVICE_BAD_INPUT;
    if (!def->domains_dir || !def->domains_json || !def->worker_argv || !def->worker_argv[0] || def->workers < 0 ||
        def->workers > 256 || def->port < 0 || def->port > 65535 || def->max_queue < 1 || !(def->default_time > 0) ||
        !(def->max_time >= def->default_time) || def->default_memory_mb < 16 ||
        def->max_memory_mb < def->default_memory_mb || def->max_connections < 1 || def->max_per_address < 1 ||
        def->max_streams < 0 || def->max_streams_per_address < 1 || def->max_streams_per_job < 1 ||
        !(def->request_timeout > 0) || def->interactive_workers < 0 || def->batch_nice < 0 || def->batch_nice > 19 ||
        !(def->keep_days >= 0) || def->keep_jobs < 0 || def->keep_mb < 0 || !(def->lease >= 0.5)) {
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
    if (!raise_fd_limit(&svc, err, sizeof err) || !read_domains(&svc, err, sizeof err)) {
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
    if (!make_dir(jobs, err, sizeof err) || !svcStore_Open(&svc, err, sizeof err)) {
        goto out;
    }
    /* SIGINT and SIGTERM are taken by sigwait below: blocked in every thread started from here */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
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
    svcLog(&svc, "stopping (%s)", sig == SIGINT ? "SIGINT" : "SIGTERM");
    svc.stopping = 1; /* before the lock too: a thread that holds it retrying an unreachable store gives up */
    pthread_mutex_lock(&svc.mu);
    svc.stopping = 1;
    pthread_cond_broadcast(&svc.changed);
    pthread_mutex_unlock(&svc.mu);
    svcHttp_Stop(&svc);
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
