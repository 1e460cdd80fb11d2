/* tplan: the validate functions of the command line's own data (cli_validate.c; the house audit:
 * invariants in every folder). Each has the shape `bool valid(const T *obj, char *why, size_t cap)`:
 * false with the first broken rule in why (why may be NULL). The commands run them through
 * TP_VALIDATE where the structure is complete or changed (Debug and sanitizer builds only);
 * tests/cli/test_cli_validate.c breaks each rule once. They only read. */
#ifndef TP_CLI_VALIDATE_H
#define TP_CLI_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"
#include "cli.h"
#include "cmd_opts.h"
#include "par.h"

/// --set options: at most TP_MAX_PARAMS, each a non-empty name and a value, no name twice.
bool tpCliParams_Valid(const tpCliParams *p, char *why, size_t cap);
/// The planner options: an initialised run definition within its ranges (tplan_run_def_check), the
/// script text's length, the outputs, the OR-parallel bound's callback.
bool tpCliPlanOpts_Valid(const tpCliPlanOpts *o, char *why, size_t cap);
/// `tplan plan`'s command line as plan_parse leaves it (the combinations it refuses are absent).
bool tpCliPlanCmd_Valid(const tpCliPlanCmd *p, char *why, size_t cap);
/// `tplan bench`'s command line as bench_parse leaves it: the lists split inside their buffers, a
/// planner kind per name, the seed range within 32 bits.
bool tpCliBenchCmd_Valid(const tpCliBenchCmd *b, char *why, size_t cap);
/// `tplan export`'s command line as export_parse leaves it.
bool tpCliExportCmd_Valid(const tpCliExportCmd *e, char *why, size_t cap);
/// `tplan replay`'s command line as replay_parse leaves it.
bool tpCliReplayCmd_Valid(const tpCliReplayCmd *r, char *why, size_t cap);
/// One OR-parallel worker's summary as it sends it (plan_par.c): its exit code and status, its
/// solutions against its fallback figures, its counts.
bool tpParSummary_Valid(const tpParSummary *s, char *why, size_t cap);
/// The coordinator's decision (tpPar_Decide): every summary valid, one K, each worker's solutions
/// in the order found, owner and statistics' worker in range, B and the pool as docs/parallel.md
/// defines them.
bool tpParOutcome_Valid(const tpParOutcome *o, char *why, size_t cap);
/// --preview's state after a progress call: the best and written nodes among those scanned, the
/// files counted, the figures of the best node.
bool tpCliPreview_Valid(const tpCliPreview *pv, char *why, size_t cap);
/// --view's live tree after a copy: the nodes within their capacity, the bodies recorded, the status
/// line terminated.
bool tpCliLive_Valid(const tpCliLive *live, char *why, size_t cap);
/// One bench run's record: finite non-negative times, counts against each other, the rejections
/// adding up.
bool tpBenchRun_Valid(const tpBenchRun *r, char *why, size_t cap);
/// The bench's runs so far: within their capacity, each one valid.
bool tpBenchRuns_Valid(const tpBenchRuns *runs, char *why, size_t cap);

#endif
