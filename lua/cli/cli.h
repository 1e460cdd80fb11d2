/* tplan command-line program: shared helpers of the subcommands. */
#ifndef TP_CLI_H
#define TP_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "tp/lua.h"
#include "tp/planner.h"
#include "tp/tactics.h"
#include "tp/viewer.h"

#define TP_MAX_PARAMS 64

/// Parsed `--set name=value` options (pointers into argv).
typedef struct tpCliParams {
    int n;
    tpScriptParam items[TP_MAX_PARAMS];
} tpCliParams;

/// Parses "name=value" into params; false with a message on a malformed or excess option.
bool tpCli_AddParam(tpCliParams *params, char *arg);
/// Resolves a domain argument: an existing path is used as is; a bare name ("minigolf") is looked
/// up as <domains dir>/<name>.lua. Writes into out; false if nothing exists.
bool tpCli_ResolveDomain(const char *arg, char *out, size_t cap);
/// The built-in domains directory ($TPLAN_DOMAINS, else the source tree's domains/).
const char *tpCli_DomainsDir(void);
/// Parses a non-negative integer / a finite double option value; false with a message naming opt.
bool tpCli_ParseInt(const char *opt, const char *s, long long min, long long *out);
bool tpCli_ParseDouble(const char *opt, const char *s, double *out);

/// Planner options shared by `plan` and `bench` (set flag = given on the command line).
typedef struct tpCliPlanOpts {
    bool planner, mu, seed, iters, limit, sols, no_nn_index;
    tpPlannerKind kind;
    double mu_v, limit_v;
    long long seed_v, iters_v, sols_v;
    /* script limits (0 = the tpScriptDef default) */
    long long memory_mb;     /* --memory-limit MB */
    double load_time, call_time; /* --load-time-limit S, --call-time-limit S */
} tpCliPlanOpts;

/// Parses the planner option at argv[*i] (--planner, --mu, --seed, --max-iters, --time-limit,
/// --solutions, --memory-limit, --load-time-limit, --call-time-limit with a value,
/// --no-nn-index): 1 = consumed (*i advanced past its value), 0 = not a planner option,
/// -1 = bad value (message logged).
int tpCli_ParsePlannerOption(tpCliPlanOpts *o, int argc, char **argv, int *i);
/// The script definition for path with the options' limits (params may be NULL if n is 0).
tpScriptDef tpCli_ScriptDef(const tpCliPlanOpts *o, const char *path, const tpScriptParam *params, int nparams);
/// Overrides the script's planner defaults with the options that were given.
void tpCli_ApplyPlannerOptions(const tpCliPlanOpts *o, tpPlannerDef *pd);

/// Progress reporting of a run (see tpPlannerDef.progress).
typedef struct tpCliProgress {
    tpProgressFn fn;
    void *user;
    double interval; /* s */
} tpCliProgress;

/// One planning run; everything is owned by the run (free with tpCli_PlanRunFree).
typedef struct tpCliRun {
    tpScript *script;
    tpDomain *domain;   /* owned by script */
    tpPlannerDef pd;    /* the definition used: script defaults + options */
    tpPlanner *planner; /* its tree and result arrays stay valid until freed */
    tpPlanResult res;
    tpPlanStatus status;
} tpCliRun;

/// Loads the domain script at path fresh (with the --set params), applies the options to its
/// planner defaults and plans. Returns TP_EXIT_OK when the planner ran (solved or approximate:
/// see run->status), TP_EXIT_BAD_INPUT with a message in err (script error, invalid planner
/// definition, a callback failure while planning). Free the run in every case.
int tpCli_PlanRun(const char *path, const tpScriptParam *params, int nparams, const tpCliPlanOpts *o,
                  const tpCliProgress *progress, tpCliRun *run, char *err, size_t errlen);
void tpCli_PlanRunFree(tpCliRun *run);

/// `replay --check` of world w (replay_check.c): prints the deepest overlap of each touching
/// pair (the `show` deepest) unless quiet. Returns the number of pairs that sank into static
/// geometry deeper than tolerance (m), or -1 when the replay itself failed (message in err).
int tpCli_ReplayCheck(tpDomain *domain, const tpPlanRecord *rec, int w, double tolerance, int show, bool quiet,
                      char *err, size_t errlen);

/// State of `tplan plan --view` (plan_view.c): the live window fed by the progress callback.
typedef struct tpCliLive {
    const tpCliRun *run;     /* not owned: the run being planned (tpCli_PlanRun sets its domain, planner
                                and definition before planning starts, so every callback sees them) */
    const char *domain_file; /* not owned */
    tpViewerDef def;
    tpLiveView *lv;
    bool failed;        /* no window (or closed): stop feeding it */
    tpPlanRecord rec;   /* bodies at the initial state, for the window while planning */
    tpTreeRecord tr;    /* nodes copied so far (body names borrowed from the domain) */
    int *bodies;        /* world index of each recorded body */
    int64_t cap;        /* node capacity of tr */
    double next_update; /* tpClock_Now() before which no redraw happens */
    char status[256];
} tpCliLive;

/// Progress callback part: copies new nodes, redraws. Never changes the planner's result.
void tpCliLive_Progress(tpCliLive *live, const tpPlanStats *stats);
/// After the run: shows the final tree (selected branch marked) and plays the plan until closed.
void tpCliLive_Finish(tpCliLive *live, const tpPlanRecord *rec, const tpTree *tree, const tpPlanResult *res);
void tpCliLive_Free(tpCliLive *live);

int tpCmd_Plan(int argc, char **argv);
int tpCmd_Bench(int argc, char **argv);
int tpCmd_Replay(int argc, char **argv);
int tpCmd_Domains(int argc, char **argv);
int tpCmd_View(int argc, char **argv);
int tpCmd_Render(int argc, char **argv);

#endif
