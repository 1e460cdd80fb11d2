/* tplan service internals: the job record, the store, the scheduler and the HTTP layer share these.
 * One mutex (svc->mu) guards the active jobs, the store connection and the metrics; a condition
 * variable (svc->changed) is broadcast on every job change so that waiters (SSE streams, DELETE,
 * the synchronous /v1/plan) wake up. */
#ifndef TP_SERVICE_INTERNAL_H
#define TP_SERVICE_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "reqcheck_testing.h"
#include "sched_testing.h"
#include "tp/run_def.h"
#include "tp/service.h"
#include "tp/util.h"

typedef struct sqlite3 sqlite3;
struct MHD_Daemon;
struct svcStoreOps;
struct svcPg;
struct svcReq;
/// Answers one complete request (returns an enum MHD_Result): routes.c's svcRoute (svcHttp_Start).
typedef int (*svcHttpHandler)(struct svcReq *rq);
struct svcConns;

typedef enum {
    SVC_QUEUED = 0,
    SVC_RUNNING,
    SVC_SOLVED,
    SVC_APPROXIMATE,
    SVC_FAILED,
    SVC_CANCELLED,
    SVC_NSTATUS
} svcStatus;

#define SVC_SERIES_POINTS 64 /* rows of a job's progress series (svcJob.series) */

/// One job: the stored fields, plus the scheduler's runtime fields while it is active.
typedef struct svcJob {
    int64_t id;
    svcStatus status;
    char *domain;  /* the built-in name, or "job.lua" for a submitted script */
    char *request; /* JSON object text of the accepted request (script replaced by script_bytes) */
    char *script;  /* the submitted Lua text: only while a request or the scheduler handles it; a queued
                      job keeps it in the store, not in memory (NULL for a built-in domain) */
    size_t script_len;
    char *name;                        /* the client's name of the job (NULL = none) */
    char *tags;                        /* JSON array text of the client's tags (NULL = none) */
    double created, started, finished; /* unix s; 0 = not yet */
    int64_t iterations, nodes;
    int solutions;
    double best_quality; /* NAN = none yet */
    double elapsed;      /* s of planning reported by the worker */
    double (*series)[3]; /* the run's progress so far, [elapsed s, best quality (NAN = none), nodes]: at
                            most SVC_SERIES_POINTS rows, every other one dropped when full (sched.c);
                            written into the summary as "progress" when the job ends; NULL = none */
    int nseries;
    char *summary;     /* JSON object text, NULL until final */
    char err_code[32]; /* "" = no error */
    char *err_message;
    bool has_plan, has_tree;
    int64_t files_bytes; /* size of its files once final (retention) */
    int priority;        /* the request's "priority" (SVC_PRIORITY_MIN..MAX, 0 by default): higher is taken first */
    double run_at;       /* unix s before which it is not started (the request's "run_at"); 0 = at once */
    int retries;  /* the request's "retries": infrastructure failures it is queued again after (0..SVC_RETRIES_MAX) */
    int failures; /* infrastructure failures so far (a worker crash), each followed by a backoff */
    int read_failures; /* reads of its script from an SQLite store that failed (each tried again after a
                          backoff, its run_at; not stored and no retry counted: the store failed, not the job) */
    int64_t retry_of;  /* the failed or cancelled job this one runs again (POST /v1/jobs/{id}/retry); 0 = none */
    /* JSON object text of the interim plan a drain's hand-back kept (svcStore_Handback): {"n": N, "handed_back":
       unix s, "quality", "cost", "steps", "duration", "iterations", "nodes", "elapsed", "summary": the interrupted
       run's (not shown in job objects)}; its file is svcInterimFile(N) (DATA/jobs/ID/, or job_files on
       PostgreSQL). Kept while the job is queued or running again, cleared when it ends (its final plan replaces
       it, a failed or cancelled end drops it, a stop of the queued job makes it its final plan). NULL = none */
    char *interim;
    uint32_t limit_mask; /* bit i: it carries the tag of the server's concurrency limit i (svcSched_Enqueue) */
    /* runtime (active jobs only) */
    bool sync;            /* POST /v1/plan: ahead of the queue, planned within sync_deadline */
    double sync_deadline; /* unix s (svcNow): the answer is sent by then, whatever the job's state */
    double answer_by;     /* unix s: its search ends here (sched.c: the deadline less the reserve) */
    /* the job's run definition: the request's run fields as the server read them when it took the job
       (api.c check_request: the one check of the request against the field table), time_limit (s, > 0)
       the planner's limit as accepted (the server's default when the request gave none). A job read
       back from a store has them from its stored request (svcJob_ReadRun); run_read false: that
       request did not read (a store's corruption: start_job fails the job) */
    tplan_run_def run;
    bool run_read;
    int memory_mb;
    int jobs;         /* worker processes its OR-parallel search takes (request "jobs", >= 1) */
    int worker;       /* index of the worker running it, -1 */
    bool cancel;      /* DELETE asked for it while running */
    bool stop;        /* POST .../stop asked it to end now with its best plan (SIGUSR1 sent) */
    bool handback;    /* the drain stopped it (no solution yet) to hand it back with its best plan as an interim
                         plan (service.c drain): its approximate end re-queues it (sched.c handback_job) */
    uint64_t version; /* bumped on every change */

    char *request_shown; /* the request as job objects show it (util.c; made on first use, then kept) */
    char client[64];     /* the submitter's address, for --max-queued-per-client ("" after a restart) */
    /* a PostgreSQL store (store_pg.c): the lease this node holds on the job while it runs it */
    int attempt;      /* the claim's attempt number (1 = first run; a reclaimed job runs again with +1) */
    double published; /* tpClock time its progress was last written to the store */
    double renewed;   /* tpClock time its lease was last taken or renewed (a run past it by the lease is stopped) */
    bool unstored;    /* final, but the store refused its record while this node held the lease (disk
                         full, read-only, away): kept active and written again (sched.c retry_unstored) */
    double retry_at;  /* tpClock time of that next write */
    /* what the cluster asked of the running job, read by the store's tick (svcCluster_Tick) for the
       scheduler to act on: 0 = nothing, 'l' its lease was lost (another node runs it), 'x' its lease ran
       out while the store did not answer (the run is stopped and the job forgotten here: the store
       queues it again), 's' stop and keep the best plan, 'c' cancel with ctl_code / ctl_message */
    char ctl;
    char ctl_code[32];
    char ctl_message[256];
} svcJob;

/// A worker process.
typedef struct svcWorker {
    pid_t pid;            /* 0 = not running */
    bool interactive;     /* kept for synchronous jobs (runs at nice 0; batch workers at def.batch_nice) */
    int in_fd;            /* its stdin (we write jobs) */
    int ev_fd;            /* its fd 3 (we read events) */
    int64_t job;          /* the job it runs, 0 = idle */
    int64_t reserved_for; /* a job with "jobs" > 1 runs on another worker and counts this one too */
    double hard_deadline; /* tpClock time at which the job is killed (time_limit + grace) */
    double job_started;   /* tpClock time the job was sent, and the limit it was given (the */
    double job_limit;     /* effective one: a /v1/plan job's may be shorter), for the message */
    char *buf;            /* partial event line */
    size_t len, cap;
    bool killed; /* we sent SIGKILL (cancel or time limit): its death is not a crash */
    char kill_code[32];
    char kill_message[256];
} svcWorker;

#define SVC_MAX_TAG 64          /* bytes of one tag */
#define SVC_MAX_TAGS 16         /* tags of one job */
#define SVC_LIMIT_MAX 10000     /* a concurrency limit's N at most (--limit TAG=N) */
#define SVC_PRIORITY_MIN (-100) /* a job's "priority" bounds (request field) */
#define SVC_PRIORITY_MAX 100
#define SVC_RETRIES_MAX 10    /* a job's "retries" at most */
#define SVC_BACKOFF_FIRST 1.0 /* s before the first retry after an infrastructure failure; doubled each time */
#define SVC_BACKOFF_MAX 300.0 /* s: the longest backoff */
#define SVC_RUN_AT_MAX_AHEAD (366 * 86400) /* s: a job's "run_at" at most this far ahead */

#define SVC_CHECK_TIME 2.0      /* s: a state check's script load (and callback) limit, statecheck.c */
#define SVC_CHECK_WAIT 3.0      /* s: the longest a submission waits for its state check, then it is not checked */
#define SVC_CHECK_MEMORY_MB 512 /* a state check's Lua heap bound (MB) */
#define SVC_CHECK_SKIP 64       /* loads remembered as failed */

#define SVC_HIST_BUCKETS 12
#define SVC_MAX_ROUTES 20

typedef struct svcMetrics {
    uint64_t codes[SVC_MAX_ROUTES][20];       /* requests: route x status code (the tables of metrics.c) */
    uint64_t plan_hist[SVC_HIST_BUCKETS + 1]; /* planning-time histogram (cumulative on output) */
    double plan_sum;
    uint64_t plan_count;
    uint64_t jobs_finished[SVC_NSTATUS];
    uint64_t worker_restarts;
} svcMetrics;

#define SVC_SYNC_SAMPLES 32 /* synchronous jobs whose cost after their search sched.c's reserve follows */

typedef struct tpService {
    tpServiceDef def;
    char *data_dir;
    char *token;
    size_t token_len;
    char *web_root; /* realpath of def.web_dir, NULL = no page */
    char **domain_names;
    int ndomains;
    FILE *log;
    pthread_mutex_t mu;
    pthread_cond_t changed;
    sqlite3 *db;                     /* the SQLite backend's connection (store_sqlite.c) */
    const struct svcStoreOps *store; /* the backend (store.h) */
    bool cluster;                    /* a PostgreSQL store shared with other nodes: the queue, the job
                                        records and the finished jobs' files live there (store_pg.c) */
    struct svcPg *pg;                /* the PostgreSQL backend's state, NULL otherwise */
    svcJob **active;                 /* nactive queued and running jobs (owned array; room for cap_active) */
    int nactive;
    size_t cap_active;
    svcWorker *workers;          /* nworkers batch workers, then ninteractive interactive ones */
    int nworkers;                /* batch workers (--workers): the cores batch jobs may take */
    int ninteractive;            /* interactive workers (--interactive-workers) */
    int nprocs;                  /* nworkers + ninteractive */
    double next_retention;       /* svcNow() time of the next retention pass */
    struct svcSqMaint *sq_maint; /* the SQLite backend's maintenance thread (store_sqlite.c) */
    int wake[2];                 /* self-pipe: wakes the scheduler */
    pthread_t sched;
    bool sched_started;
    struct MHD_Daemon *httpd;
    struct svcConns *conns;      /* http.c: open connections and their request deadlines */
    svcHttpHandler http_handler; /* http.c: answers a complete request (svcHttp_Start's handler) */
    volatile sig_atomic_t stopping;
    int nlimits; /* concurrency limits (--limit TAG=N): at most limit_max[i] jobs tagged
                    limit_tag[i] run at once (in the cluster, with a PostgreSQL store) */
    char limit_tag[TP_SERVICE_MAX_LIMITS][SVC_MAX_TAG + 1];
    int limit_max[TP_SERVICE_MAX_LIMITS];
    bool draining; /* SIGTERM: no job is started or claimed; running ones end (service.c drain) */
    svcMetrics metrics;
    double started_at;
    bool store_failed;                   /* a write to the store failed (disk full, I/O error): no new jobs, health
                                            says so, until a restart (store.c; mu held) */
    double store_failed_until;           /* a PostgreSQL store's store_failed holds until this tpClock time (its
                                            disk may be given room): new jobs are tried again then; 0 = until a
                                            restart (SQLite) */
    double sync_spent[SVC_SYNC_SAMPLES]; /* s from the last synchronous jobs' answer_by to their plans'
                                            being ready (sched.c's reserve; a ring); mu held */
    int nsync_spent, sync_next;
    /* statecheck.c: the state checker, a `tplan worker` of the front end's own that binds a new job's
       "state" to its domain before the job is queued (POST /v1/jobs); check_mu held while in use */
    pthread_mutex_t check_mu;
    svcWorker checker;
    uint64_t check_skip[SVC_CHECK_SKIP]; /* keys of loads that failed, timed out or crashed: not tried again (a ring) */
    int check_nskip, check_next;
    uint64_t checks_done, checks_cached, checks_skipped; /* metrics: checks answered, and of those ... */
    uint64_t store_errors; /* store operations that failed (a statement's error, the database away),
                              counted by the backends (mu held): a handler that finds no job compares
                              it before and after its read, so that an outage answers 503, never 404 */
} tpService;

/* ---- util.c ---- */
double svcNow(void); /* unix time, s */
const char *svcStatusName(svcStatus s);
bool svcStatusFinal(svcStatus s);
int svcStatusFromName(const char *name); /* -1 if unknown */
void svcLog(tpService *svc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void svcJobFree(svcJob *job);
/// A job read from a store: its run definition (svcJob.run) from its stored request's run fields,
/// with time_limit (s) the stored limit. The request was checked when the job was taken, so it reads
/// with the table's reader; false (and job->run_read false) if it does not. A job without its request
/// (read for the API: the shown request only) gets the limit alone.
bool svcJob_ReadRun(svcJob *job, double time_limit);
/// The job object of the API (docs/service.md) as unformatted JSON; caller frees. NULL on OOM.
char *svcJobJson(const svcJob *job);
/// The request as job objects show it (each `set` string over 1,024 bytes as {"bytes": N}), made
/// from job->request on first use and kept in job->request_shown (owned by the job); NULL on OOM.
const char *svcJobShownRequest(svcJob *job);
/// Bytes the job's record holds in the store (request, summary, error message, and the script if
/// with_script): what retention counts against keep_mb, kept in the store beside the record.
int64_t svcJobRecordBytes(const svcJob *job, bool with_script);
/// A job object as cJSON (owned by the caller).
cJSON *svcJobToCJson(const svcJob *job);
/// Path of a job's file ("plan.json", "tree.bin") or folder (name NULL) into out.
void svcJobPath(const tpService *svc, int64_t id, const char *name, char *out, size_t cap);
int svcCountActive(tpService *svc, svcStatus status); /* active jobs in this status; mu held */
int svcCountBusy(tpService *svc, bool interactive);   /* batch (or interactive) workers running a job; mu held */
/// The file name of interim plan n ("interim.N.json"; a new name for each hand-back, so that a front
/// end's cached copy of an older one is never served for a newer one).
void svcInterimFile(int n, char *out, size_t cap);
/// The number n of job's interim plan (its "n"), 0 when it has none.
int svcInterimNumber(const svcJob *job);
/// Wakes the scheduler's loop (a byte into its pipe; any thread, mu held or not).
void svcWakeScheduler(tpService *svc);

/// The bits of svc's concurrency limits whose tags are in tags (a job's JSON array text, NULL = none).
uint32_t svcLimitMask(const tpService *svc, const char *tags);

/* ---- redact.c ---- */
/// Overwrites with '*' every password of the connection string spec found in msg (libpq's messages
/// may quote a part of the string they could not parse).
void svcStore_RedactIn(const char *spec, char *msg);

/* ---- store.c (call with svc->mu held, except open/close) ---- */
/// spec names a PostgreSQL store (postgresql:// or postgres://).
bool svcStore_IsPostgres(const char *spec);
/// The store refuses writes (svc->store_failed): no new jobs, health 503 store_failed. A PostgreSQL
/// store's state ends by itself store_failed_until (and starts again with the next refused write).
bool svcStore_Failed(tpService *svc);
bool svcStore_Open(tpService *svc, char *err, size_t errlen);
void svcStore_Close(tpService *svc);
/// Inserts a new queued job: sets job->id. False on error (logged).
bool svcStore_Insert(tpService *svc, svcJob *job, const char *idem_key, const char *idem_hash);
/// Writes every mutable field of job (a final job's interim plan is dropped: its record's interim
/// cleared, and on PostgreSQL its interim file).
bool svcStore_Update(tpService *svc, const svcJob *job);
/// A drain's hand-back: the running job's record is queued again (its progress, summary and files
/// cleared, no failure counted) with interim (JSON object text, svcJob.interim) as its interim plan,
/// whose file interim_file (in the job's folder) the store keeps: SQLite leaves it in the folder,
/// PostgreSQL stores it in job_files (compressed, replacing an older interim) in the same transaction
/// as the record, while this node holds the lease. False on error or a lost lease (logged): the
/// store is unchanged then. The job in memory is the caller's to reset.
bool svcStore_Handback(tpService *svc, const svcJob *job, const char *interim, const char *interim_file);
/// Loads job id as stored to run it again (POST /v1/jobs/{id}/retry): the whole request (up to 4 MiB,
/// read once) and the script. NULL if unknown or on error; caller frees.
svcJob *svcStore_GetRun(tpService *svc, int64_t id);
/// Loads job id for the API (NULL if unknown or on error): its request as job objects show it, in
/// request_shown (request NULL: the stored request may be 4 MiB, read whole only to run the job).
/// with_script: also the script text.
svcJob *svcStore_Get(tpService *svc, int64_t id, bool with_script);
/// The job with this idempotency key: its id (0 = none) and request hash.
int64_t svcStore_FindIdem(tpService *svc, const char *key, char *hash, size_t hashcap);
/// Filters of the job list (GET /v1/jobs).
typedef struct svcListFilter {
    int status;                           /* -1 = any */
    const char *domain, *name, *tag;      /* NULL = any; tag: one of the job's tags */
    double created_after, created_before; /* unix s; 0 = no bound */
    int64_t before;                       /* id < before; 0 = no bound */
    int limit;
} svcListFilter;
/// Job ids newest first that pass the filter (malloc'd, *n of them; NULL on error).
int64_t *svcStore_List(tpService *svc, const svcListFilter *f, int *n);
/// Reads job->script from the store (NULL for a built-in domain). False on error.
bool svcStore_LoadScript(tpService *svc, svcJob *job);
/// Deletes job id's row (its files are the caller's). False on error.
bool svcStore_Delete(tpService *svc, int64_t id);
/// Deletes these rows in one transaction (their pages are given back by svcStore_Compact).
bool svcStore_DeleteMany(tpService *svc, const int64_t *ids, int n);
/// Asks the store to give its free pages back to the file system, in its own time and without
/// svc->mu (SQLite: its maintenance thread; PostgreSQL: its autovacuum). Returns at once.
void svcStore_Compact(tpService *svc);
/// Finished jobs the retention policy drops now (oldest first): older than keep_days, beyond the
/// newest keep_jobs, or beyond keep_mb of files, scripts and records. Returns the ids (malloc'd, *n).
int64_t *svcStore_Expired(tpService *svc, double now, int *n);
/// Every job id in the store (malloc'd, sorted ascending, *n).
int64_t *svcStore_AllIds(tpService *svc, int *n);
/// Count of stored jobs per status.
void svcStore_Counts(tpService *svc, int64_t counts[SVC_NSTATUS]);
/// At start: running jobs (interrupted) go back to queued; returns the queued jobs, oldest first.
svcJob **svcStore_Recover(tpService *svc, int *n);

/* ---- store.c: the cluster's operations (a store shared by nodes, svc->cluster: PostgreSQL; svc->mu
 * held unless said). Each dispatches to the store's svcClusterOps (store.h). ---- */
/// Claims the next queued job (synchronous first, then oldest) for this node with a fresh lease:
/// any job if batch is true (and it needs at most max_parallel workers), else synchronous ones only.
/// NULL if none (or on error, logged).
svcJob *svcCluster_Claim(tpService *svc, bool batch, int max_parallel);
/// Writes a running job's progress (at most every 0.5 s) and tells the front ends.
void svcCluster_Progress(tpService *svc, svcJob *job);
/// The final record of a job with its files (plan, tree, log, compressed) in one transaction, only
/// if this node still holds its lease; false if it lost it (another node runs or ran it) or on error.
bool svcCluster_Finish(tpService *svc, svcJob *job);
/// Renews this node's leases, queues again the jobs of dead nodes, writes its heartbeat, when due;
/// the cancel/stop requests and lost leases it reads are marked on the running jobs (svcJob.ctl),
/// for the scheduler to act on. Returns s until the next is due.
double svcCluster_Tick(tpService *svc);
/// A cancel ('c') or stop ('s') request for a job planned by whichever node: a queued job ends at
/// once (cancelled); a running one is flagged and its node told. False if it is not active.
bool svcCluster_RequestEnd(tpService *svc, int64_t id, char what, const char *code, const char *message);
/// Removes a synchronous job still queued at its deadline (no worker free); false if it started.
bool svcCluster_DropQueued(tpService *svc, int64_t id);
/// Queued jobs in the cluster, all (*total) and of one client address (*mine). False on error.
bool svcCluster_CountQueued(tpService *svc, const char *client, int *total, int *mine);
/// Makes a finished job's file (plan.json, tree.bin, log.txt) present under the local data folder
/// (a cache of the store's copy). False if the job has no such file.
bool svcCluster_FetchFile(tpService *svc, int64_t id, const char *name);
/// Starts / stops the thread that LISTENs for the cluster's job changes (wakes waiters and the
/// scheduler). Called without mu.
bool svcCluster_StartListener(tpService *svc, char *err, size_t errlen);
void svcCluster_StopListener(tpService *svc);
/// The database answers (SELECT 1; one reconnection attempt, no backoff: a health check must be quick).
bool svcCluster_Ping(tpService *svc);
/// Prometheus lines of the cluster (nodes, heartbeats, queue); caller frees. mu held.
char *svcCluster_MetricsText(tpService *svc);
/// GET /v1/cluster as the store sees it: {"nodes":[...],"running":[...],"queued":N,"limits":[...]}
/// (docs/service.md#cluster-page); caller frees; NULL on error. mu held.
char *svcCluster_Json(tpService *svc);

/* ---- statecheck.c ---- */
/// The answer of svcCheck_State.
typedef enum svcCheck { SVC_CHECK_OK, SVC_CHECK_BAD, SVC_CHECK_UNCHECKED } svcCheck;
/// Binds the request's "state" to its domain (a built-in one, or script: its text) in the state
/// checker, as the job's worker will: SVC_CHECK_BAD with the field ("bodies.ghost", relative to the
/// state) and the message ("state: bodies.ghost: ...") when it does not fit; SVC_CHECK_UNCHECKED when
/// the check could not be made (the script does not load within the check's limits, the checker is
/// busy past SVC_CHECK_WAIT, crashed or cannot start): the job's worker then checks it, as before.
/// Called without svc->mu.
svcCheck svcCheck_State(tpService *svc, const cJSON *req, const char *domain, const char *script, double time_limit,
                        int memory_mb, char *field, size_t fieldcap, char *msg, size_t msgcap);
/// Stops the checker (at shutdown).
void svcCheck_Stop(tpService *svc);

/* ---- sched.c ---- */
/// Starts a `tplan worker` process into w (its pipes non-blocking on the event side) with argv
/// (NULL: def.worker_argv); false if it could not be started (logged).
bool svcSched_SpawnWorker(tpService *svc, svcWorker *w, const char *const *argv);
/// Kills (SIGKILL) and reaps a worker; returns its wait status.
int svcSched_ReapWorker(svcWorker *w);
bool svcSched_Start(tpService *svc, char *err, size_t errlen);
void svcSched_Stop(tpService *svc);
/// The active job id (NULL if not active). svc->mu held.
svcJob *svcSched_Find(tpService *svc, int64_t id);
/// Adds a new job (already inserted in the store) to the queue; svc->mu held.
bool svcSched_Enqueue(tpService *svc, svcJob *job);
/// Cancels an active job: a queued one at once, a running one by killing its worker (the scheduler
/// finishes it). svc->mu held.
void svcSched_Cancel(tpService *svc, svcJob *job, const char *code, const char *message);
/// Asks a running job to stop now and keep its best plan (solved or approximate). mu held.
void svcSched_StopJob(tpService *svc, svcJob *job);
/// Deletes a finished job: its row and its folder. mu held. False on a store error.
bool svcSched_Delete(tpService *svc, int64_t id);
/// Bytes of a job's folder (its files).
int64_t svcJobFilesBytes(tpService *svc, int64_t id);
/// Removes a job's folder and everything in it but what keep says (SVC_KEEP_LOG: its log, after the
/// partial files of a cancelled or failed job; SVC_KEEP_INTERIM: its interim plan, before a re-run).
#define SVC_KEEP_LOG 1u     /* svcJobRemoveFiles: a non-empty log.txt stays */
#define SVC_KEEP_INTERIM 2u /* svcJobRemoveFiles: the interim plan's files (interim.N.json) stay */
void svcJobRemoveFiles(tpService *svc, int64_t id, unsigned keep);
/// Moves a deleted job's folder out of DATA/jobs to DATA/deleted/ID (one rename: cheap under mu) and
/// puts that path in out; false if there was none to move (or it could not be: then removed at once).
bool svcJobDetachFiles(tpService *svc, int64_t id, char *out, size_t cap);
/// Removes a folder svcJobDetachFiles moved (its files may be large: call it without mu).
void svcRemoveDetached(const char *dir);

/* ---- validate.c (mu held) ---- */
/// The scheduler's state is consistent (the active list, the jobs' workers and the workers' jobs):
/// false with the first broken rule in why (may be NULL). A test shows each rule failing.
bool svcValid_Scheduler(const tpService *svc, char *why, size_t cap);
/// The metrics agree with themselves (the planning-time histogram, its count and the finished jobs).
bool svcValid_Metrics(const svcMetrics *m, char *why, size_t cap);
/// Both, as a TP_INVARIANT (logs the broken rule, then aborts; nothing in Release builds).
void svcValid_Check(tpService *svc);

/* ---- job_validate.c ---- */
/// A job's record as it goes to the store (svcStore_Insert once its id is set, svcStore_Update): its
/// status against its times and progress, the request's bounds, its strings terminated.
bool svcValid_Job(const svcJob *job, char *why, size_t cap);
/// One change of a job's status (the scheduler's): from, to, and whether it is a final job's end
/// written again (sched.c retry_unstored).
typedef struct svcStatusChange {
    svcStatus from, to;
    bool again;
    bool interim; /* the job has an interim plan (a drain's hand-back kept it: svcJob.interim) */
} svcStatusChange;
/// The job's state machine: a final job never changes (but is written again as it is), a plan
/// (solved, approximate) comes from a running job, or (approximate) from a queued job's interim plan
/// (a stop keeps it as its final plan), only a queued job starts running.
bool svcValid_StatusChange(const svcStatusChange *c, char *why, size_t cap);

/* ---- metrics.c ---- */
int svcRouteIndex(const char *route);
void svcMetrics_Request(tpService *svc, const char *route, unsigned code);    /* mu held */
void svcMetrics_JobDone(tpService *svc, svcStatus status, double planning_s); /* mu held */
/// Prometheus text exposition; caller frees. mu held.
char *svcMetrics_Text(tpService *svc);

/* ---- http.c ---- */
/// Starts the HTTP server: every complete request goes to handler.
bool svcHttp_Start(tpService *svc, svcHttpHandler handler, char *err, size_t errlen);
/// routes.c: the server's handler, the request to its route's handler.
int svcRoute(struct svcReq *rq);
void svcHttp_Stop(tpService *svc);
int svcHttp_Port(tpService *svc);

#endif
