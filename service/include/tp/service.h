/* tplan service: `tplan serve`, the planner as an HTTP/JSON job service (docs/service.md).
 *
 * The server (libmicrohttpd, one thread per connection) keeps the jobs in an SQLite store (WAL)
 * under a data directory and hands them to worker *processes* it starts and restarts: planning
 * never runs in the server's threads (Debian's ODE is not thread-safe, and a crash in someone
 * else's script must not take the server down). This module knows nothing of ODE or Lua: it links
 * only core; the worker side of the protocol is `tplan worker` (cli/cmd_worker.c).
 *
 * Worker protocol. A worker reads one job per line on its standard input and writes events, one
 * JSON object per line, on file descriptor 3 (stdout and stderr stay free for logs):
 *   server -> worker: {"id":N,"dir":"DATA/jobs/N","request":{...as accepted...},"script":"..."?,
 *                      "domain_path":"/.../minigolf.lua"?,"run":{...},"answer_by":T?,"progress":S}
 *   where "run" is the run definition the job plans with (tplan_run_def_to_json's members): the
 *   request's run fields and those the server sets (time_limit, memory_mb, load_time_limit,
 *   call_time_limit, search_memory_mb: the table's TP_RUNF_SERVER rows and limits, sched.c)
 *   worker -> server: {"type":"progress","iterations":I,"nodes":N,"solutions":K,
 *                      "best_quality":Q|null,"elapsed":S}
 *                     {"type":"done","status":"solved"|"approximate"|"failed","summary":{...}|null,
 *                      "error":{"code":"...","message":"..."}|null,"plan":bool,"tree":bool}
 * A state check (the front end's checker, `tplan worker --check`: service/src/statecheck.c):
 *   server -> worker: {"type":"check","request":{"state":{...},"set":{...}?},"script":"..."?,
 *                      "domain_path":"..."?,"run":{...the check's limits...}}
 *   worker -> server: {"type":"checked","result":"ok"|"bad_state"|"unchecked","cached":bool,
 *                      "field":"bodies.ghost"?,"message":"state: ..."?}
 * ("unchecked": the script did not load within the check's limits; "cached": its domain was loaded).
 * A worker then waits for the next job. It exits when its standard input closes, and dies with the
 * server (PR_SET_PDEATHSIG). Cancelling a running job kills its worker (SIGKILL) and starts a new one:
 * a script stuck in a C call is stopped as surely as one in Lua. */
#ifndef TP_SERVICE_H
#define TP_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_SERVICE_MAX_SCRIPT_BYTES ((size_t)1 << 20) /* a submitted script: 1 MiB */
#define TP_SERVICE_MAX_BODY_BYTES ((size_t)4 << 20)   /* a request body: 4 MiB (413 beyond) */
#define TP_SERVICE_MAX_LOG_BYTES ((size_t)1 << 20)    /* a job's log (its script's print): 1 MiB kept */
#define TP_SERVICE_MAX_LIMITS 32                      /* concurrency limits (tpServiceDef.limits) at most */

/// How to run the service. Get defaults from tpDefaultServiceDef(); tpRunService copies what it
/// needs and keeps no pointer into the definition once it returns.
typedef struct tpServiceDef {
    const char *bind;               /* address to listen on (IPv4 or IPv6 literal). Default "127.0.0.1" */
    int port;                       /* TCP port; 0 = a free port chosen by the system. Default 8087 */
    int workers;                    /* worker processes (>= 1; 0 = a front end of a PostgreSQL store, HTTP
                                       only). Default: the number of online cores */
    int interactive_workers;        /* more worker processes kept for the synchronous POST /v1/plan (>= 0):
                                       a game's request never waits for batch jobs. Default 1 */
    int batch_nice;                 /* nice value (0..19) of the batch workers, so that an interactive job
                                       running beside them gets most of a core. Default 10 */
    const char *data_dir;           /* the store (DIR/tplan.db) and job files (DIR/jobs/<id>/); created
                                       if missing. Default "./tplan-data" */
    const char *token;              /* bearer token every /v1 and /metrics request must carry; NULL = none */
    int max_queue;                  /* queued jobs at most (429 beyond). Default 1000 */
    int max_queued_per_client;      /* queued jobs of one client address at most (429 beyond): one
                                       client cannot fill the queue. 0 = min(250, max_queue) */
    double default_time;            /* s: a job's time_limit when it gives none. Default 60 */
    double max_time;                /* s: the largest time_limit a job may ask. Default 600 */
    int default_memory_mb;          /* MB a job that asks none gets: its Lua heap and its search each. Default 2048 */
    int max_memory_mb;              /* MB: the largest memory_mb a job may ask. Default 4096 */
    int worker_memory_mb;           /* MB: address-space limit (RLIMIT_AS) of a worker process; 0 = none.
                                       Default 0 here; `tplan serve` sets 2 x max_memory_mb + 1024
                                       (docs/service.md#memory) */
    int max_connections;            /* open HTTP connections at most (one thread each). Default 1024 */
    int max_per_address;            /* open HTTP connections from one client address at most (more are
                                       closed at once): one client cannot take every connection.
                                       Default 128 */
    int max_streams;                /* event streams (GET /v1/jobs/{id}/events) open at once, in all; 0 =
                                       max_connections / 8: with the connections still waiting for a
                                       request (at most 3/4) they leave room no client can take */
    int max_streams_per_address;    /* event streams of one client address at most (429 beyond). Default 16 */
    int max_streams_per_job;        /* event streams of one job at most (429 beyond). Default 32 */
    double request_timeout;         /* s: a connection must deliver a complete request (head and body)
                                       within this time of opening (or of its previous answer), however
                                       slowly it trickles bytes; then it is closed. Default 30 */
    double keep_days;               /* retention: finished jobs older than this (days) are deleted with their
                                       files; 0 = no age bound. Default 7 */
    int keep_jobs;                  /* retention: at most this many finished jobs are kept (the oldest go
                                       first); 0 = no count bound. Default 5000 */
    long long keep_mb;              /* retention: finished jobs' files and scripts take at most this many
                                       MB (the oldest go first); 0 = no size bound. Default 2048 */
    const char *cors_origin;        /* the Origin allowed to call /v1 from a browser (CORS); NULL = none */
    const char *web_dir;            /* static files served at / (the web page); NULL = none */
    const char *domains_dir;        /* the built-in domain scripts (<dir>/<name>.lua) */
    const char *domains_json;       /* body of GET /v1/domains: {"domains":[{"name":...},...]} */
    const char *const *worker_argv; /* argv of a worker process, NULL-terminated (argv[0] = the
                                       executable); must speak the protocol above */
    const char *store;              /* the job store: NULL = DATA/tplan.db (SQLite, one machine); "sqlite:PATH";
                                       or "postgresql://[user@]host[:port]/database[?options]", a store shared
                                       by the nodes of a cluster (docs/service.md#cluster). A password in it is
                                       refused: give store_password or libpq's PGPASSWORD / PGPASSFILE */
    const char *store_password;     /* PostgreSQL password (--store-password-file); NULL = libpq's own */
    bool no_http;                   /* a worker node: no HTTP server (a PostgreSQL store only) */
    double lease;                   /* s: a PostgreSQL job's lease, renewed every lease / 3 s; a job whose
                                       node stops renewing is queued again after it. Default 10 */
    double drain_timeout;           /* s: on SIGTERM the server drains: it takes no new job (health 503
                                       "draining"), lets its running jobs finish within this time, then
                                       stops those that have a solution with their best one (as POST
                                       .../stop) and hands the others back to the queue (another node, or
                                       this server after its restart, plans them). 0 = no drain: running
                                       jobs go back to the queue at once (as SIGINT). Default 30 */
    bool drain_stop_unsolved;       /* at the drain's end stop the running jobs without a solution too:
                                       each ends "approximate" with its best plan kept (the domain's
                                       fallback), instead of being handed back and planned again from the
                                       start. Default false (--drain-unsolved handback) */
    const char *const *limits;      /* concurrency limits, "TAG=N" each (N 1..10000), NULL-terminated; NULL =
                                       none: at most N jobs carrying the tag TAG run at once, in the whole
                                       cluster with a PostgreSQL store (give every node the same limits) */
    FILE *log;                      /* one line per request and per job state change. Default stderr */
    FILE *ready;                    /* the "listening on ..." line. Default stdout */
} tpServiceDef;

/// Defaults (see the field comments); domains_dir, domains_json and worker_argv must be set.
tpServiceDef tpDefaultServiceDef(void);

/// How tpRunService ended (the program maps it to its exit status).
typedef enum {
    TP_SERVICE_STOPPED = 0,   /* a clean stop on SIGINT or SIGTERM */
    TP_SERVICE_FAILURE = 1,   /* an internal failure (workers could not start, out of memory) */
    TP_SERVICE_BAD_INPUT = 2, /* a bad definition, an unusable data directory or store, a port in use */
} tpServiceStatus;

/// Opens the store, starts the workers and the HTTP server, prints the ready line and serves until
/// SIGINT or SIGTERM; then stops cleanly (running jobs go back to `queued` in the store): SIGTERM
/// first drains (drain_timeout; a second SIGTERM or a SIGINT ends the drain at once). Failures are
/// logged in one message.
tpServiceStatus tpRunService(const tpServiceDef *def);

/// A --store string as a message may show it: spec with every password in it (a URI's
/// user:PASSWORD@, a password=VALUE in a URI's query or in key=value form) replaced by ***, into out
/// (cap bytes, NUL-terminated, cut if longer). Whether or not spec parses.
void tpService_RedactStore(const char *spec, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
