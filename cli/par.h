/* tplan plan --jobs N / --mpi: the deterministic OR-parallel search (docs/parallel.md), and the
 * transport it runs over (fork + pipes + a shared bound in plan_par.c, MPI in par_mpi.c). */
#ifndef TP_CLI_PAR_H
#define TP_CLI_PAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "tp/plan.h"

#define TP_PAR_MAX_WORKERS 256

/// Seed of worker k for the run's seed s: (s + k * 0x9E3779B9) mod 2^32, so worker 0 runs the
/// run's own seed (and --jobs 1 is today's run) and the workers of nearby run seeds do not overlap.
uint32_t tpPar_Seed(uint32_t seed, int k);

/// How the coordinator and the workers talk. Peers: on the coordinator side the worker index,
/// on a worker's side TP_PAR_COORD. Messages arrive whole and in order per peer.
#define TP_PAR_COORD (-1)
typedef struct tpParLink {
    void *ctx;
    bool (*send)(void *ctx, int peer, const void *buf, size_t n);
    bool (*recv)(void *ctx, int peer, void *buf, size_t n);
    int64_t (*bound)(void *ctx);               /* the best solution's iterations known so far */
    void (*publish)(void *ctx, int64_t iters); /* lowers the bound of every worker */
} tpParLink;

/// What one worker reports after its search (fixed part; the solutions' iterations and costs follow).
typedef struct tpParSummary {
    int32_t rc;           /* TP_EXIT_OK, or the exit code of a failed run (message in err) */
    int32_t status;       /* tpPlanStatus */
    uint32_t seed;        /* tpPar_Seed of the worker */
    int32_t nsolutions;   /* solutions found */
    int32_t requested;    /* K: solutions asked for (the planner definition's) */
    tpPlanStats stats;    /* the worker's statistics */
    int64_t memory_bytes; /* tree memory (as recorded in plan files) */
    double quality;       /* approximate answer: quality of the best node (lower is better) */
    double unrest;        /* ... and its exact unrest (0 for a fallback by quality: docs/lua-api.md#fallbacks),
                             compared first */
    int32_t by_rest;      /* 1: the fallback judges at rest (the domain's problem has unrest) */
    uint64_t state_bytes;
    int32_t action_dim;
    char err[512];
} tpParSummary;

/// One OR-parallel planning run: the inputs.
typedef struct tpParTask {
    const char *path;            /* domain script */
    const tpScriptParam *params; /* --set */
    int nparams;
    const tpCliPlanOpts *opts; /* the command line's planner options */
    int nworkers;
} tpParTask;

/// One OR-parallel planning run: what the coordinator decided and gathered.
typedef struct tpParOutcome {
    tpPlanRecord rec;      /* the merged plan (owned; tpPar_OutcomeFree) */
    tpParSummary *workers; /* nworkers summaries (owned) */
    int64_t **iters;       /* per worker: iterations of its solutions (owned) */
    double **costs;        /* per worker: costs of its solutions (owned) */
    int nworkers;
    int owner;        /* worker whose solution (or approximate node) was selected */
    int stats_worker; /* worker whose statistics the plan records */
    int64_t bound;    /* B: the fewest iterations to K solutions (INT64_MAX: none reached K) */
    int pooled;       /* solutions in the plan */
} tpParOutcome;

/// Worker k's whole part: plans with tpPar_Seed, reports its summary, waits for the decision
/// and sends its plan record when asked. Returns TP_EXIT_OK or TP_EXIT_FAILURE (link broken).
int tpPar_Worker(const tpParTask *task, int k, const tpParLink *link);
/// Worker k's first half (search and summary); the run stays open for tpPar_WorkerRecord.
int tpPar_WorkerSearch(const tpParTask *task, int k, const tpParLink *link, tpCliRun *run);
/// Worker's second half: receives the decision, records and sends the plan if asked; frees the run.
int tpPar_WorkerRecord(const tpParTask *task, const tpParLink *link, tpCliRun *run);

/// Coordinator, first half: receives every summary, decides (docs/parallel.md) and sends each
/// worker its decision. TP_EXIT_OK, TP_EXIT_BAD_INPUT (a worker's run failed: its message in err)
/// or TP_EXIT_FAILURE.
int tpPar_Decide(const tpParTask *task, const tpParLink *link, tpParOutcome *out, char *err, size_t errlen);
/// Coordinator, second half: receives the records asked for and merges them into out->rec.
int tpPar_Collect(const tpParTask *task, const tpParLink *link, tpParOutcome *out, char *err, size_t errlen);
void tpPar_OutcomeFree(tpParOutcome *out);

/// The whole OR-parallel run over task->nworkers forked processes (the caller is the
/// coordinator). Returns as tpPar_Decide / tpPar_Collect.
int tpPar_PlanFork(const tpParTask *task, tpParOutcome *out, char *err, size_t errlen);
/// Plans the selected worker's search again in this process (its seed, stopped at B): the same tree
/// as the worker's, for --tree and --view (a worker's tree stays in its process). progress may be
/// NULL. Free run with tpCli_PlanRunFree in every case; returns as tpCli_PlanRun.
int tpPar_RerunSelected(const tpParTask *task, const tpParOutcome *out, const tpCliProgress *progress, tpCliRun *run,
                        char *err, size_t errlen);

/// MPI (par_mpi.c, built with TP_MPI): starts MPI and returns this process's rank and the number
/// of ranks; false with a message when MPI cannot start or tplan was built without it.
bool tpMpi_Init(int *rank, int *size);
void tpMpi_Finalize(void);
/// The OR-parallel run with one worker per rank; rank 0 coordinates (out filled there only).
int tpMpi_Plan(const tpParTask *task, tpParOutcome *out, char *err, size_t errlen);
/// Bench over ranks: rank 0 receives `n` records of `size` bytes sent by rank `from` (in order).
bool tpMpi_SendBytes(int to, const void *buf, size_t n);
bool tpMpi_RecvBytes(int from, void *buf, size_t n);
/// The same integer on every rank: rank 0's value.
int tpMpi_Broadcast(int v);

#endif
