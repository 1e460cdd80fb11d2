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

/// The Fig. 13 run: BK-RRT on the domain at `path` with the given options (kind forced to RRT,
/// solutions raised so the tree keeps growing after goals are found, max_iters = iters),
/// sampling the cumulative breakdown about every `interval` seconds. Writes `<png>.dat` (always)
/// and, when gnuplot is installed, the PNG. Prints the selection time per iteration near
/// 10k, 50k and 100k nodes. Returns TP_EXIT_OK, TP_EXIT_BAD_INPUT (script / planner error,
/// printed) or TP_EXIT_FAILURE (cannot write a file, gnuplot failed).
int tpBench_Fig13(const char *path, const char *label, const tpScriptParam *params, int nparams,
                  const tpCliPlanOpts *opts, int64_t iters, const char *png, bool tty);

#endif
