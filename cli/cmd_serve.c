/* tplan serve: the planner as an HTTP/JSON job service (service/, docs/service.md). This file reads
 * the command line and the token file, describes the built-in domains for GET /v1/domains (loading
 * each shipped script once, here, before any thread starts) and hands over to tpRunService. */
#define _GNU_SOURCE /* realpath */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tp/base.h"
#include "tp/service.h"
#include "tp/json_text.h"

/* AddressSanitizer reserves terabytes of address space at start: an RLIMIT_AS would make every
 * later allocation of the sanitizer build fail, so that build sets no default limit. */
#if defined(__SANITIZE_ADDRESS__)
#define TP_SERVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TP_SERVE_ASAN 1
#endif
#endif
#ifndef TP_SERVE_ASAN
#define TP_SERVE_ASAN 0
#endif

static void serve_usage(FILE *f)
{
    tpServiceDef d = tpDefaultServiceDef();
    fprintf(f,
            "usage: tplan serve [options]\n"
            "\n"
            "Runs the planner as an HTTP/JSON job service (docs/service.md): jobs are queued in an SQLite\n"
            "store, planned by worker processes, watched with Server-Sent Events; the web page is at /.\n"
            "Stops cleanly on SIGINT (running jobs go back to the queue) or SIGTERM (after a drain).\n"
            "\n"
            "  --bind ADDR         address to listen on (default %s; 0.0.0.0 or :: for every interface)\n"
            "  --port N            TCP port (default %d; 0 = any free port, printed in the ready line)\n"
            "  --workers N         worker processes, each planning one job at a time (default: cores, %d)\n"
            "  --interactive-workers N  more workers kept for POST /v1/plan, so a game's request never\n"
            "                      waits for batch jobs (default %d; 0 = none)\n"
            "  --batch-nice N      0..19 added to the server's nice value for the batch workers, so\n"
            "                      interactive jobs get the CPU first (default %d)\n"
            "  --data DIR          job store DIR/tplan.db and job files DIR/jobs/<id>/ (default %s)\n"
            "  --token-file F      require 'Authorization: Bearer <token>' with the token in F (its first line)\n"
            "  --max-queue N       queued jobs at most; beyond, POST answers 429 (default %d)\n"
            "  --max-queued-per-client N  queued jobs of one client address at most; beyond, 429\n"
            "                      client_quota (default: 250, or --max-queue if smaller)\n"
            "  --default-time S    a job's time limit when it gives none (default %g)\n"
            "  --max-time S        the largest time_limit a job may ask (default %g)\n"
            "  --max-memory MB     the largest memory_mb a job may ask: its Lua heap, and its search,\n"
            "                      each (default %d; a job's default is %d)\n"
            "  --worker-memory MB  address-space limit of each worker process (default: 2 x --max-memory\n"
            "                      + 1024, the bound of everything a job holds; 0 = none)\n"
            "  --max-connections N open HTTP connections at most, one thread each (default %d)\n"
            "  --max-per-address N open connections from one client address at most; more are closed at\n"
            "                      once (default %d; raise it behind a reverse proxy)\n"
            "  --max-streams N     event streams open at once, in all; beyond, 503 (default:\n"
            "                      --max-connections / 8, so that held streams leave room for health)\n"
            "  --max-streams-per-address N  event streams of one client address at most; 429 beyond\n"
            "                      (default %d)\n"
            "  --max-streams-per-job N  event streams of one job at most; 429 beyond (default %d)\n"
            "  --request-timeout S a connection must send a complete request within S seconds of opening\n"
            "                      (or of its previous answer), else it is closed (default %g)\n"
            "  --keep-days D       delete finished jobs older than D days with their files (default %g; 0 = keep)\n"
            "  --keep-jobs N       keep at most N finished jobs, the newest (default %d; 0 = no bound)\n"
            "  --keep-mb MB        keep at most MB of finished jobs' files and scripts (default %lld; 0 = no bound)\n"
            "  --cors-origin URL   let the page at this origin call the API from a browser (default: none)\n"
            "  --web DIR           the web page's files (default: $TPLAN_WEB, else the installed\n"
            "                      share/tplan/web, else the source tree's web/)\n"
            "  --no-web            serve no web page\n"
            "\n",
            d.bind, d.port, d.workers, d.interactive_workers, d.batch_nice, d.data_dir, d.max_queue, d.default_time,
            d.max_time, d.max_memory_mb, d.default_memory_mb, d.max_connections, d.max_per_address,
            d.max_streams_per_address, d.max_streams_per_job, d.request_timeout, d.keep_days, d.keep_jobs, d.keep_mb);
    fprintf(f,
            "A cluster (docs/service.md#cluster): front ends and worker nodes on any hosts share one PostgreSQL:\n"
            "  --store SPEC        the job store: sqlite:PATH, or postgresql://[user@]host[:port]/database\n"
            "                      (default: DATA/tplan.db, SQLite on this machine). No password in SPEC:\n"
            "  --store-password-file F  the PostgreSQL password (F's first line); else libpq's PGPASSWORD,\n"
            "                      PGPASSFILE or ~/.pgpass\n"
            "  --workers 0         a front end: HTTP only, the nodes plan (a PostgreSQL store only)\n"
            "  --no-http           a worker node: claims and plans jobs, serves no HTTP\n"
            "  --lease S           a job's lease: a node renews it every S/3 s; a job whose node died is\n"
            "                      planned again after S (default %g)\n"
            "  --drain-timeout S   on SIGTERM take no new job and give the running ones S s to end; then\n"
            "                      stop those with a solution (their best kept), hand the others back to\n"
            "                      the queue (default %g; 0 = hand them back at once, as SIGINT)\n"
            "  --drain-unsolved handback|stop\n"
            "                      at the drain's end hand a job without a solution back (default: it is\n"
            "                      planned again from the start) or stop it with its best approximate plan\n"
            "  --limit TAG=N       at most N jobs tagged TAG run at once (in the whole cluster: give every\n"
            "                      node the same); repeat for more tags (at most %d)\n"
            "  -h, --help          this help\n"
            "\n"
            "exit status: 0 after a clean stop, 2 bad option / data directory / store / port, 1 internal failure.\n",
            d.lease, d.drain_timeout, TP_SERVICE_MAX_LIMITS);
}

/* {"domains":[{"name","description","params":[...],"planner":{...}}]} of the built-in domains. The
 * planner defaults are those a job gets when it gives none: the script's, except time_limit, which
 * is the service's default_time (a job always runs with a limit; the scripts' 0 = "none" is not a
 * value a job may send). */
static char *domains_json(const char *dir, double default_time)
{
    char *names[256];
    int n = tpCli_DomainFiles(dir, names, 256);
    if (n < 0) {
        return NULL;
    }
    cJSON *root = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(root, "domains");
    for (int i = 0; i < n; ++i) {
        char path[4096], err[1024];
        snprintf(path, sizeof path, "%s/%s.lua", dir, names[i]);
        tpScript *s = tpLoadScript(path, NULL, 0, err, sizeof err);
        if (!s) {
            tpLog(TP_LOG_WARN, "serve: domain %s is not offered: %s", names[i], err);
            free(names[i]);
            continue;
        }
        const tpDomainDef *def = tpDomain_Def(tpScript_Domain(s));
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", names[i]);
        cJSON_AddStringToObject(o, "description", def->description);
        cJSON *params = cJSON_Parse(tpScript_ParamsInfoJson(s));
        tpJson_Put(o, "params", params ? params : cJSON_CreateArray());
        cJSON *p = cJSON_AddObjectToObject(o, "planner");
        cJSON_AddStringToObject(p, "planner", def->planner.kind == TP_PLANNER_RRT ? "rrt" : "bgt");
        cJSON_AddNumberToObject(p, "mu", def->planner.mu);
        cJSON_AddNumberToObject(p, "seed", def->planner.seed);
        cJSON_AddNumberToObject(p, "max_iters", (double)def->planner.max_iters);
        cJSON_AddNumberToObject(p, "time_limit", default_time);
        cJSON_AddNumberToObject(p, "solutions", def->planner.solutions);
        tpJson_Append(arr, o);
        tpDestroyScript(s);
        free(names[i]);
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

/* The token: the first line of the file, without surrounding white space; printable ASCII. */
static char *read_token(const char *path)
{
    char err[1024];
    size_t len = 0;
    char *text = tpFile_Read(path, 65536, &len, err, sizeof err);
    if (!text) {
        tpLog(TP_LOG_ERROR, "--token-file: %s", err);
        return NULL;
    }
    char *start = text;
    while (*start == ' ' || *start == '\t') {
        ++start;
    }
    size_t n = strcspn(start, "\r\n");
    while (n > 0 && (start[n - 1] == ' ' || start[n - 1] == '\t')) {
        --n;
    }
    start[n] = '\0';
    bool printable = n >= 8;
    for (size_t i = 0; i < n; ++i) {
        printable = printable && start[i] > 0x20 && start[i] < 0x7f;
    }
    if (!printable) {
        tpLog(TP_LOG_ERROR,
              "--token-file %s: the first line must be a token of at least 8 printable characters, "
              "no spaces",
              path);
        free(text);
        return NULL;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && (sb.st_mode & 077)) {
        tpLog(TP_LOG_WARN, "--token-file %s: readable by other users (chmod 600 it)", path);
    }
    char *token = strdup(start);
    free(text);
    return token;
}

/* The command line of tplan serve. */
typedef struct ServeCmd {
    tpServiceDef def;
    const char *token_file, *web, *password_file;
    bool no_web, wmem_given;
    const char *limits[TP_SERVICE_MAX_LIMITS + 1]; /* --limit TAG=N, NULL-terminated (def.limits) */
    int nlimits;
} ServeCmd;

/* Parses the options into p: -1 to go on, else the exit code (--help, a bad option). */
static int serve_parse(int argc, char **argv, ServeCmd *p)
{
    memset(p, 0, sizeof *p);
    p->def = tpDefaultServiceDef();
    p->web = getenv("TPLAN_WEB");
    tpServiceDef def = p->def;
    const char *token_file = NULL, *web = p->web, *password_file = NULL;
    bool no_web = false, wmem_given = false, workers_given = false, interactive_given = false;
    long long v;
    double dv;
    enum {
        OPT_BIND = TP_OPT_FIRST_FREE,
        OPT_PORT,
        OPT_WORKERS,
        OPT_DATA,
        OPT_TOKEN,
        OPT_QUEUE,
        OPT_DTIME,
        OPT_MTIME,
        OPT_MMEM,
        OPT_WMEM,
        OPT_WEB,
        OPT_NO_WEB,
        OPT_MCONN,
        OPT_PERADDR,
        OPT_STREAMS,
        OPT_STREAMS_ADDR,
        OPT_STREAMS_JOB,
        OPT_REQTIME,
        OPT_QCLIENT,
        OPT_INTERACTIVE,
        OPT_NICE,
        OPT_KEEP_DAYS,
        OPT_KEEP_JOBS,
        OPT_KEEP_MB,
        OPT_CORS,
        OPT_STORE,
        OPT_STORE_PASSWORD,
        OPT_NO_HTTP,
        OPT_LEASE,
        OPT_DRAIN,
        OPT_DRAIN_UNSOLVED,
        OPT_LIMIT
    };
    static const struct option longopts[] = {
        {"bind", required_argument, NULL, OPT_BIND},
        {"port", required_argument, NULL, OPT_PORT},
        {"workers", required_argument, NULL, OPT_WORKERS},
        {"data", required_argument, NULL, OPT_DATA},
        {"token-file", required_argument, NULL, OPT_TOKEN},
        {"max-queue", required_argument, NULL, OPT_QUEUE},
        {"default-time", required_argument, NULL, OPT_DTIME},
        {"max-time", required_argument, NULL, OPT_MTIME},
        {"max-memory", required_argument, NULL, OPT_MMEM},
        {"worker-memory", required_argument, NULL, OPT_WMEM},
        {"web", required_argument, NULL, OPT_WEB},
        {"no-web", no_argument, NULL, OPT_NO_WEB},
        {"max-connections", required_argument, NULL, OPT_MCONN},
        {"max-per-address", required_argument, NULL, OPT_PERADDR},
        {"max-streams", required_argument, NULL, OPT_STREAMS},
        {"max-streams-per-address", required_argument, NULL, OPT_STREAMS_ADDR},
        {"max-streams-per-job", required_argument, NULL, OPT_STREAMS_JOB},
        {"request-timeout", required_argument, NULL, OPT_REQTIME},
        {"max-queued-per-client", required_argument, NULL, OPT_QCLIENT},
        {"interactive-workers", required_argument, NULL, OPT_INTERACTIVE},
        {"batch-nice", required_argument, NULL, OPT_NICE},
        {"keep-days", required_argument, NULL, OPT_KEEP_DAYS},
        {"keep-jobs", required_argument, NULL, OPT_KEEP_JOBS},
        {"keep-mb", required_argument, NULL, OPT_KEEP_MB},
        {"cors-origin", required_argument, NULL, OPT_CORS},
        {"store", required_argument, NULL, OPT_STORE},
        {"store-password-file", required_argument, NULL, OPT_STORE_PASSWORD},
        {"no-http", no_argument, NULL, OPT_NO_HTTP},
        {"lease", required_argument, NULL, OPT_LEASE},
        {"drain-timeout", required_argument, NULL, OPT_DRAIN},
        {"drain-unsolved", required_argument, NULL, OPT_DRAIN_UNSOLVED},
        {"limit", required_argument, NULL, OPT_LIMIT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    tpCliArgs args = {.argc = argc, .argv = argv, .cmd = "serve", .shortopts = "h", .longopts = longopts};
    int c;
    while ((c = tpCli_NextOption(&args)) != -1) {
        const char *a = args.value;
        switch (c) {
        case 'h':
            serve_usage(stdout);
            return TP_EXIT_OK;
        case OPT_BIND:
            def.bind = a;
            break;
        case OPT_PORT:
            if (!tpCli_ParseInt("--port", a, 0, 65535, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.port = (int)v;
            break;
        case OPT_WORKERS:
            if (!tpCli_ParseInt("--workers", a, 0, 256, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.workers = (int)v;
            workers_given = true;
            break;
        case OPT_DATA:
            def.data_dir = a;
            break;
        case OPT_TOKEN:
            token_file = a;
            break;
        case OPT_QUEUE:
            if (!tpCli_ParseInt("--max-queue", a, 1, 10000000, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.max_queue = (int)v;
            break;
        case OPT_DTIME:
            if (!tpCli_ParseDouble("--default-time", a, 0, true, 1e6, &dv)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.default_time = dv;
            break;
        case OPT_MTIME:
            if (!tpCli_ParseDouble("--max-time", a, 0, true, 1e6, &dv)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.max_time = dv;
            break;
        case OPT_MMEM:
            if (!tpCli_ParseInt("--max-memory", a, 16, 1 << 20, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.max_memory_mb = (int)v;
            if (def.default_memory_mb > def.max_memory_mb) {
                def.default_memory_mb = def.max_memory_mb;
            }
            break;
        case OPT_WMEM:
            if (!tpCli_ParseInt("--worker-memory", a, 0, 1 << 30, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            if (v > 0 && v < 64) {
                tpLog(TP_LOG_ERROR, "--worker-memory %lld: 0 (none) or at least 64 MB", v);
                return TP_EXIT_BAD_INPUT;
            }
            def.worker_memory_mb = (int)v;
            wmem_given = true;
            break;
        case OPT_WEB:
            web = a;
            break;
        case OPT_NO_WEB:
            no_web = true;
            break;
        case OPT_MCONN:
            if (!tpCli_ParseInt("--max-connections", a, 1, 100000, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.max_connections = (int)v;
            break;
        case OPT_PERADDR:
            if (!tpCli_ParseInt("--max-per-address", a, 1, 100000, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.max_per_address = (int)v;
            break;
        case OPT_STREAMS:
            if (!tpCli_ParseInt("--max-streams", a, 1, 100000, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.max_streams = (int)v;
            break;
        case OPT_STREAMS_ADDR:
            if (!tpCli_ParseInt("--max-streams-per-address", a, 1, 100000, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.max_streams_per_address = (int)v;
            break;
        case OPT_STREAMS_JOB:
            if (!tpCli_ParseInt("--max-streams-per-job", a, 1, 100000, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.max_streams_per_job = (int)v;
            break;
        case OPT_QCLIENT:
            if (!tpCli_ParseInt("--max-queued-per-client", a, 1, 10000000, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.max_queued_per_client = (int)v;
            break;
        case OPT_REQTIME:
            if (!tpCli_ParseDouble("--request-timeout", a, 0, true, 3600, &dv)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.request_timeout = dv;
            break;
        case OPT_INTERACTIVE:
            if (!tpCli_ParseInt("--interactive-workers", a, 0, 64, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.interactive_workers = (int)v;
            interactive_given = true;
            break;
        case OPT_NICE:
            if (!tpCli_ParseInt("--batch-nice", a, 0, 19, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.batch_nice = (int)v;
            break;
        case OPT_KEEP_DAYS:
            if (!tpCli_ParseDouble("--keep-days", a, 0, false, 1e5, &dv)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.keep_days = dv;
            break;
        case OPT_KEEP_JOBS:
            if (!tpCli_ParseInt("--keep-jobs", a, 0, 100000000, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.keep_jobs = (int)v;
            break;
        case OPT_KEEP_MB:
            if (!tpCli_ParseInt("--keep-mb", a, 0, 1LL << 40, &v)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.keep_mb = v;
            break;
        case OPT_CORS:
            if (!(strncmp(a, "http://", 7) == 0 || strncmp(a, "https://", 8) == 0) || strchr(a + 8, '/') ||
                strlen(a) > 200) {
                tpLog(TP_LOG_ERROR, "--cors-origin: an origin is scheme://host[:port] with nothing after, "
                                    "e.g. https://editor.example.com");
                return TP_EXIT_BAD_INPUT;
            }
            def.cors_origin = a;
            break;
        case OPT_STORE:
            if (strncmp(a, "sqlite:", 7) != 0 && strncmp(a, "postgresql://", 13) != 0 &&
                strncmp(a, "postgres://", 11) != 0) {
                char shown[256], q[256]; /* a key=value string may hold password=...: never shown */
                tpService_RedactStore(a, shown, sizeof shown);
                tpLog(TP_LOG_ERROR, "--store %s: expected sqlite:PATH or postgresql://[user@]host[:port]/database",
                      tpCli_Escape(shown, q, sizeof q));
                return TP_EXIT_BAD_INPUT;
            }
            def.store = a;
            break;
        case OPT_STORE_PASSWORD:
            password_file = a;
            break;
        case OPT_NO_HTTP:
            def.no_http = true;
            break;
        case OPT_LEASE:
            if (!tpCli_ParseDouble("--lease", a, 0.5, false, 3600, &dv)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.lease = dv;
            break;
        case OPT_DRAIN:
            if (!tpCli_ParseDouble("--drain-timeout", a, 0, false, 86400, &dv)) {
                return TP_EXIT_BAD_INPUT;
            }
            def.drain_timeout = dv;
            break;
        case OPT_DRAIN_UNSOLVED:
            if (strcmp(a, "handback") != 0 && strcmp(a, "stop") != 0) {
                tpLog(TP_LOG_ERROR, "--drain-unsolved: expected handback or stop (got '%s')", a);
                return TP_EXIT_BAD_INPUT;
            }
            def.drain_stop_unsolved = strcmp(a, "stop") == 0;
            break;
        case OPT_LIMIT: /* checked whole by the service (one message naming the bad one) */
            if (p->nlimits == TP_SERVICE_MAX_LIMITS) {
                tpLog(TP_LOG_ERROR, "--limit: at most %d limits", TP_SERVICE_MAX_LIMITS);
                return TP_EXIT_BAD_INPUT;
            }
            p->limits[p->nlimits++] = a;
            def.limits = p->limits;
            break;
        case 1: {
            char q[256];
            tpLog(TP_LOG_ERROR, "unexpected argument '%s'", tpCli_Escape(a, q, sizeof q));
            return TP_EXIT_BAD_INPUT;
        }
        default:
            return TP_EXIT_BAD_INPUT;
        }
    }
    if (def.default_time > def.max_time) {
        tpLog(TP_LOG_ERROR, "--default-time %g is above --max-time %g", def.default_time, def.max_time);
        return TP_EXIT_BAD_INPUT;
    }
    if (def.workers == 0 && !def.store) {
        tpLog(TP_LOG_ERROR, "--workers 0 (a front end: HTTP only) needs a shared store: --store postgresql://...");
        return TP_EXIT_BAD_INPUT;
    }
    if (def.workers == 0 && !interactive_given) {
        def.interactive_workers = 0; /* a front end is HTTP only: the nodes plan /v1/plan jobs too */
    }
    if (def.no_http && !workers_given) {
        tpLog(TP_LOG_ERROR, "--no-http (a worker node) needs --workers N");
        return TP_EXIT_BAD_INPUT;
    }
    p->def = def;
    p->token_file = token_file;
    p->web = web;
    p->password_file = password_file;
    p->no_web = no_web;
    p->wmem_given = wmem_given;
    return -1;
}

/* The store's password: the first line of the file, which must not be readable by others. */
static char *read_password(const char *path)
{
    char err[1024];
    size_t len = 0;
    char *text = tpFile_Read(path, 65536, &len, err, sizeof err);
    if (!text) {
        tpLog(TP_LOG_ERROR, "--store-password-file: %s", err);
        return NULL;
    }
    text[strcspn(text, "\r\n")] = '\0';
    if (!text[0]) {
        tpLog(TP_LOG_ERROR, "--store-password-file %s: the first line (the password) is empty", path);
        free(text);
        return NULL;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && (sb.st_mode & 077)) {
        tpLog(TP_LOG_WARN, "--store-password-file %s: readable by other users (chmod 600 it)", path);
    }
    return text;
}

/* Runs the service as parsed; the service's status (tpServiceStatus), or -1 - exit code when
 * something failed before it ran. */
static int serve_run(ServeCmd *p)
{
    tpServiceDef def = p->def;
    const char *token_file = p->token_file, *web = p->web;
    bool no_web = p->no_web, wmem_given = p->wmem_given;
    char exe[PATH_MAX];
    if (!realpath("/proc/self/exe", exe)) {
        tpLog(TP_LOG_ERROR, "serve: cannot find the tplan executable (/proc/self/exe)");
        return -1 - TP_EXIT_FAILURE;
    }
    if (!wmem_given) { /* a job's Lua heap and its search each hold at most --max-memory; 1 GB for the rest */
        def.worker_memory_mb = 2 * def.max_memory_mb + 1024;
    }
    if (TP_SERVE_ASAN && def.worker_memory_mb > 0) {
        tpLog(TP_LOG_WARN, "serve: the sanitizer build sets no --worker-memory (AddressSanitizer reserves "
                           "terabytes of address space)");
        def.worker_memory_mb = 0;
    }
    char rlimit[32];
    snprintf(rlimit, sizeof rlimit, "%d", def.worker_memory_mb);
    const char *wargv[] = {exe, "worker", def.worker_memory_mb > 0 ? "--rlimit-as" : NULL, rlimit, NULL};
    def.worker_argv = wargv;
    def.domains_dir = tpCli_DomainsDir();
    char *token = NULL, *password = NULL;
    if (token_file && !(token = read_token(token_file))) {
        return -1 - TP_EXIT_BAD_INPUT;
    }
    if (p->password_file && !(password = read_password(p->password_file))) {
        free(token);
        return -1 - TP_EXIT_BAD_INPUT;
    }
    /* PGPASSWORD: read once, kept by the server alone, and out of the environment the workers (which
       run submitted scripts) inherit; libpq gets it as the connection's password */
    const char *envpw = getenv("PGPASSWORD");
    if (envpw && !password && def.store && strncmp(def.store, "sqlite:", 7) != 0) {
        password = strdup(envpw);
    }
    unsetenv("PGPASSWORD");
    def.token = token;
    def.store_password = password;
    struct stat sb;
    if (no_web) {
        web = NULL;
    } else if (!web) {
        web = tpCli_DataDir("web", TP_SOURCE_WEB);
        if (stat(web, &sb) != 0) {
            tpLog(TP_LOG_WARN, "serve: no web page (%s is missing); the API works without it", web);
            web = NULL;
        }
    }
    def.web_dir = web;
    char *domains = domains_json(def.domains_dir, def.default_time);
    if (!domains) {
        free(token);
        free(password);
        return -1 - TP_EXIT_FAILURE;
    }
    def.domains_json = domains;
    tpServiceStatus st = tpRunService(&def);
    free(domains);
    free(token);
    free(password);
    return (int)st;
}

/* The exit status of a run (docs/cli.md). */
static int serve_report(int st)
{
    if (st < 0) {
        return -1 - st;
    }
    return st == TP_SERVICE_STOPPED ? TP_EXIT_OK : st == TP_SERVICE_BAD_INPUT ? TP_EXIT_BAD_INPUT : TP_EXIT_FAILURE;
}

int tpCmd_Serve(int argc, char **argv)
{
    ServeCmd p;
    int code = serve_parse(argc, argv, &p);
    if (code >= 0) {
        return code;
    }
    return serve_report(serve_run(&p));
}
