/* tplan: the parsed command lines of plan, replay, bench and export (each parsed in its cmd_*.c and
 * checked there, one message per refusal), shared with cli_validate.c, whose validate functions
 * state what a parse leaves (the house audit: invariants in every folder). */
#ifndef TP_CLI_CMD_OPTS_H
#define TP_CLI_CMD_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "tp/export.h"

/// The command line of `tplan plan` (cmd_plan.c).
typedef struct tpCliPlanCmd {
    const char *domain_arg, *out, *tree_out; /* not owned (argv) */
    const char *preview;                     /* --preview FILE, or NULL */
    bool no_out, quiet, view, mpi;
    long long view_quit, jobs; /* --view-quit-after N (0 = never), --jobs 1..TP_PAR_MAX_WORKERS */
    double hard_deadline;      /* --hard-deadline S; 0 = none */
    const char *state_path;    /* --state FILE, or NULL */
    tplan_state *state;        /* its state (owned), read before planning; or the state of --from-plan */
    tpCliRefine refine;        /* --from-plan PLAN --world K --until T --where QUERY (plan_path NULL: none) */
    bool until_set;
    tpCliParams params;
    tpCliPlanOpts o; /* the run definition and what the program adds to a run */
} tpCliPlanCmd;

#define TP_BENCH_MAX_LIST 16  /* entries of --domains and of --planners */
#define TP_BENCH_MAX_JOBS 256 /* --jobs at most */

/// The command line of `tplan bench`, parsed and checked (cmd_bench.c).
typedef struct tpCliBenchCmd {
    char domains_buf[1024], planners_buf[64]; /* the lists, split in place (domains, planners point here) */
    const char *out, *plot, *plot_domain;     /* not owned (argv) */
    long long seeds, plot_iters, jobs;        /* --seeds 1..100000, --plot-iters (0: the default), --jobs */
    bool quiet, mpi;
    char *sets[TP_MAX_PARAMS]; /* --set [domain:]name=value (pointers into argv) */
    int nsets;
    tpCliPlanOpts o; /* the run definition of every run (planner and seed set per row and run) */
    char *domains[TP_BENCH_MAX_LIST], *planners[TP_BENCH_MAX_LIST];
    int ndomains, nplanners;
    tpPlannerKind kinds[TP_BENCH_MAX_LIST]; /* of planners[i] */
    uint32_t first_seed;                    /* --seed, else 1; first_seed + seeds - 1 fits in 32 bits */
} tpCliBenchCmd;

/// The command line of `tplan export` (cmd_export.c).
typedef struct tpCliExportCmd {
    tpExportDef def;
    const char *plan, *out, *tree_path, *format; /* not owned (argv) */
    bool quiet;
    bool motors; /* the plan has driven motors (CSV: motors.csv is written too) */
} tpCliExportCmd;

/// The command line of `tplan replay` (cmd_replay.c).
typedef struct tpCliReplayCmd {
    const char *plan_path, *domain_override; /* not owned (argv) */
    bool all, quiet, check;
    bool mute;            /* the script's print() writes nothing (tplan export) */
    double tolerance;     /* m, --tolerance: both limits; < 0 (default): the plan's recorded limits */
    double hard_deadline; /* --hard-deadline S; 0 = none */
    double load_time_limit, call_time_limit; /* s; 0: the defaults */
} tpCliReplayCmd;

#endif
