/* tplan bench: shared between cmd_bench.c (the runs and the table) and bench_plot.c (the
 * Fig. 13 breakdown against tree size). */
#ifndef TP_CLI_BENCH_H
#define TP_CLI_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

/// One sample of the cumulative time breakdown of a run (tpPlanStats at some tree size).
typedef struct tpBenchSample {
    int64_t nodes, iterations;
    double t_select, t_tactics, t_physics, t_check; /* s, cumulative */
    double t_total;                                 /* s, elapsed since the start of the run */
} tpBenchSample;

/// One run of the benchmark (cmd_bench.c's bench_one): a row of the table and of --out.
typedef struct tpBenchRun {
    char domain[256]; /* label: the domain argument without directory and .lua */
    tpPlannerKind kind;
    uint32_t seed;
    bool solved;
    double time;    /* s, t_total */
    double t_first; /* s to the first solution; INFINITY when unsolved */
    int64_t nodes, iterations;
    int64_t nodes_first; /* tree size at the first solution; -1 when unsolved */
    int steps;           /* steps of the returned plan (solution or approximate answer); -1 none */
    int64_t tree_bytes;  /* tree + NN index at the end of the run */
    long maxrss_kb;      /* process peak RSS so far (getrusage; monotone over the bench; -1 unknown) */
    double t_select, t_tactics, t_physics, t_check; /* s */
    double t_search;                                /* s, the part of t_tactics in the skills' navigation searches */
    double t_copy;                                  /* s, the state copies into new nodes (tpPlanStats.t_copy) */
    int64_t rejected;                               /* new states rejected: the sum of rejections[].count */
    tpRejectStat rejections[TP_REJECT_KINDS];       /* by reason (tpPlanStats.reject) */
} tpBenchRun;

/// The runs of a bench so far (owned array v of cap, n used), row after row.
typedef struct tpBenchRuns {
    tpBenchRun *v;
    size_t n, cap;
} tpBenchRuns;

/// The Fig. 13 run: BK-RRT on the domain at `path` with the given options (kind forced to RRT,
/// solutions raised so the tree keeps growing after goals are found, max_iters = iters),
/// sampling the cumulative breakdown about every `interval` seconds. Writes `<png>.dat` (always)
/// and, when gnuplot is installed, the PNG. Prints the selection time per iteration near
/// 10k, 50k and 100k nodes. Returns TP_EXIT_OK, TP_EXIT_BAD_INPUT (script / planner error,
/// printed) or TP_EXIT_FAILURE (cannot write a file, gnuplot failed).
int tpBench_Fig13(const char *path, const char *label, const tpScriptParam *params, int nparams,
                  const tpCliPlanOpts *opts, int64_t iters, const char *png, bool tty);

#endif
