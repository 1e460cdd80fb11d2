/* tplan command-line program: shared helpers of the subcommands. */
#ifndef TP_CLI_H
#define TP_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tp/lua.h"
#include "tp/planner.h"
#include "tp/run.h"
#include "tp/tactics.h"
#include "tp/viewer.h"

struct cJSON;

/// The summary's lines on rejected states, one per reason in use (docs/cli.md):
/// "rejected   N <reason>, first at iteration I: <what the domain said>".
void tpCli_PrintRejections(FILE *f, const tpRejectStat *reject);
/// The reasons in use as a JSON object {"<reason>": {"count", "iteration", "first"}} (the shape of
/// plan files' stats.rejections; docs/service.md, the bench's JSON). NULL when out of memory.
struct cJSON *tpCli_RejectionsJson(const tpRejectStat *reject);

/// Process exit codes used by every tplan command (documented in docs/cli.md).
enum {
    TP_EXIT_OK = 0,            /* solved / success */
    TP_EXIT_FAILURE = 1,       /* internal failure, or replay mismatch */
    TP_EXIT_BAD_INPUT = 2,     /* bad command line, script error, bad or corrupt file */
    TP_EXIT_APPROXIMATE = 3,   /* planner found no solution, returned the best node */
    TP_EXIT_HARD_DEADLINE = 4, /* stopped at the hard deadline (watchdog.c): a script ran far past its
                                  time limit in a call the limit could not stop, or --hard-deadline */
};

#define TP_MAX_PARAMS 64

/// Parsed `--set name=value` options (pointers into argv).
typedef struct tpCliParams {
    int n;
    tpScriptParam items[TP_MAX_PARAMS];
} tpCliParams;

/// Long options of every subcommand that are not a single letter: codes above any character. The
/// run definition's fields that the command line sets (tp/run_fields.h, TP_RUNF_CLI) are options
/// TP_OPT_FIELD + their row's index (tpCli_FieldOptions).
enum {
    TP_OPT_FIELD = 256,
    TP_OPT_HARD_DEADLINE = TP_OPT_FIELD + 64, /* --hard-deadline S: plan, replay, bench (not a planner option) */
    TP_OPT_FIRST_FREE,                        /* first code a subcommand may use for its own options */
};

/// The planner options of `plan` and `bench` (the table's TP_RUNF_CLI rows) followed by own
/// (terminated by a zero entry) into out (cap entries, room for the zero entry included).
void tpCli_FieldOptions(const struct option *own, struct option *out, int cap);
/// The row of an option code of tpCli_FieldOptions (NULL: not a field's).
const tpRunField *tpCli_FieldOf(int code);
/// The --help lines of the planner options (the table's TP_RUNF_CLI rows), on f.
void tpCli_FieldHelp(FILE *f);
/// A field's value from the command line (its row's range; the flag named in the one message
/// logged): false when refused.
bool tpCli_ParseField(const tpRunField *row, const char *value, double *out);

/// State of tpCli_NextOption over one subcommand's arguments (zero it, then fill the inputs).
typedef struct tpCliArgs {
    int argc;
    char **argv;                   /* argv[0] is the subcommand */
    const char *cmd;               /* "plan": named in messages ("see 'tplan plan --help'") */
    const char *shortopts;         /* getopt letters, e.g. "hqo:" */
    const struct option *longopts; /* terminated by a zero entry */
    const char *value;             /* out: the option's value, or the positional argument */
    const char *name;              /* out: the option as written ("--seed", "-o"), for messages */
    bool started, rest;            /* internal: getopt restarted; after "--" */
    char namebuf[64];              /* internal */
} tpCliArgs;

/// Next option of a subcommand with getopt_long: both `--opt value` and `--opt=value`, positional
/// arguments anywhere (in order, whatever POSIXLY_CORRECT says), `--` ends the options; long options
/// must be spelt in full. Returns the option's code (its letter or its long option's val), 1 for a
/// positional argument (in value), -1 at the end, or '?' after printing a one-line error.
int tpCli_NextOption(tpCliArgs *a);

/// Writes s into buf (cap bytes) with control characters escaped (\n, \t, \xHH), so that a value
/// echoed in a message stays on one line; returns buf. s may be NULL (written as "").
const char *tpCli_Escape(const char *s, char *buf, size_t cap);
/// A command's one positional argument: stores value in *slot, or (one already given) logs
/// "unexpected argument 'VALUE'" and returns false.
bool tpCli_OneArgument(const char *value, const char **slot);
/// A library message (which names the run's fields: `call_time_limit`, `set w=...`) in the words of
/// the command line (`--call-time-limit`, `--set w=...`), into buf; returns buf.
const char *tpCli_FlagWords(const char *msg, char *buf, size_t cap);
/// Prints a message from a script or a file reader (err of tpLoadScript and the like) on stderr as
/// one line (control characters escaped; the run's fields named as flags: tpCli_FlagWords); a Lua
/// stack traceback (TPLAN_TRACEBACK) follows as is.
void tpCli_PrintError(const char *err);

/// A file named on the command line, for tpCli_CheckFiles.
typedef struct tpCliFile {
    const char *what; /* "--out", "the domain script" */
    const char *path; /* NULL: not given (skipped) */
    bool output;
} tpCliFile;
/// Refuses (one line, false) an output that is the same file as an input or as another output:
/// the same device and inode for existing regular files, the same resolved path (real directory +
/// name) for files not yet there. Devices and FIFOs (/dev/null) are never refused.
bool tpCli_CheckFiles(const tpCliFile *files, int n);
/// True when a and b name the same file by the rules of tpCli_CheckFiles.
bool tpCli_SameFile(const char *a, const char *b);

/// Parses "name=value" into params; false with a message on a malformed or excess option.
bool tpCli_AddParam(tpCliParams *params, char *arg);
/// Resolves a domain argument: an existing path is used as is; a bare name ("minigolf") is looked
/// up as <domains dir>/<name>.lua. Writes into out; false if nothing exists.
bool tpCli_ResolveDomain(const char *arg, char *out, size_t cap);
/// How messages name a resolved domain script (tpCliPlanOpts.name): NULL (its path, as given) when
/// arg was a path, else the built-in script's file name ("minigolf.lua": no install path shown).
const char *tpCli_DomainName(const char *arg, const char *resolved);
/// The built-in domains directory ($TPLAN_DOMAINS, else the installed share/tplan/domains, else
/// the source tree's domains/).
const char *tpCli_DomainsDir(void);
/// A folder of tplan's data: PREFIX/share/tplan/WHAT when this tplan is installed as
/// PREFIX/bin/tplan and that folder exists, else source_dir (a build tree's tplan).
const char *tpCli_DataDir(const char *what, const char *source_dir);
/// The names of the domain scripts in dir ("minigolf" for minigolf.lua), sorted, at most cap, each
/// malloc'd (the caller frees them). -1 after logging when dir cannot be read.
int tpCli_DomainFiles(const char *dir, char **names, int cap);
/// Parses a decimal integer in min..max (no leading or trailing space); false with one message naming opt.
bool tpCli_ParseInt(const char *opt, const char *s, long long min, long long max, long long *out);
/// Parses a finite number in lo..hi (lo excluded when lo_open; no spaces, no nan or inf); false with
/// one message naming opt.
bool tpCli_ParseDouble(const char *opt, const char *s, double lo, bool lo_open, double hi, double *out);

/// Planner options shared by `plan` and `bench`: the run definition (tplan/tplan.h, tp/run.h), in
/// which a field left at its default leaves the domain's own value, plus what the program adds.
typedef struct tpCliPlanOpts {
    tplan_run_def run;  /* --planner, --mu, --seed, --max-iters, --time-limit, --solutions,
                           --no-nn-index, --memory-limit, --load-time-limit, --call-time-limit,
                           --search-memory */
    const char *source; /* NULL: read the script file; else its text (source_len bytes) and
                           the path only names it in messages (`tplan worker`: "job.lua") */
    size_t source_len;
    const char *name;         /* how messages name the script (tpScriptDef.name: "maze.lua" for a built-in
                                 domain); NULL: its path */
    const tpCliFile *outputs; /* files the command will write (noutputs): tpCli_PlanRun refuses,
                                 before planning, one that is a module, track or image the script
                                 read (the script itself is the caller's to check) */
    int noutputs;
    /* OR-parallel workers (par.h): tpPlannerDef.iteration_bound and its user; NULL = none */
    int64_t (*iteration_bound)(void *user);
    void *iteration_bound_user;
    bool warn;      /* tpCli_PlanRun prints the domain's warnings once the script is loaded (before planning) */
    FILE *print_to; /* the script's print() (tpScriptDef.print_to); NULL = stderr */
} tpCliPlanOpts;

/// s past an armed script time limit (plus 10 % of the limit) at which the process is stopped: the
/// service's SVC_HARD_GRACE
#define TP_CLI_HARD_GRACE 10.0
/// Starts the hard-deadline thread of a command that runs scripts (watchdog.c): from now on the
/// process ends with one line naming `label` (NULL: the script that overran, by the name or path of
/// its definition) and TP_EXIT_HARD_DEADLINE when a script watched with
/// tpCli_WatchScript runs TP_CLI_HARD_GRACE s + 10 % past its armed time limit, or (hard_deadline
/// > 0) hard_deadline s after this call. False (logged) if the thread cannot be started.
bool tpCli_WatchdogStart(const char *label, double hard_deadline);
/// In a forked child that runs scripts: its own watchdog thread (fork keeps only the caller's), for
/// its scripts' limits; --hard-deadline stays the parent's, so the child must die with its parent
/// (PR_SET_PDEATHSIG).
void tpCli_WatchdogAfterFork(void);
/// Stops the watchdog's thread before a command forks workers (no second thread at fork), and
/// starts it again after in the parent. No-ops when it is not running.
void tpCli_WatchdogPause(void);
void tpCli_WatchdogResume(void);
/// True while the watchdog's thread runs: tpCli_WatchdogStart, Resume and AfterFork return only
/// once it does (a handshake; see watchdog.c for why).
bool tpCli_WatchdogRunning(void);
/// Has def report its time limits to the watchdog (tpScriptDef.on_deadline; set def's name or path
/// first: the message may name it, so it must outlive the script); without a started watchdog this
/// only stores three values.
void tpCli_WatchScript(tpScriptDef *def);
/// The tpScriptDef.on_deadline of tpCli_WatchScript.
void tpCli_WatchdogOnDeadline(void *user, double armed, double deadline);

/// Zeroes o and sets its run definition's defaults (tplan_run_def_init).
void tpCli_PlanOptsInit(tpCliPlanOpts *o);
/// Takes a planner or script-limit option (a code of tpCli_FieldOptions, value from tpCli_NextOption):
/// 1 = taken, 0 = not a planner option, -1 = bad value (one message logged).
int tpCli_PlannerOption(tpCliPlanOpts *o, int code, const char *value);
/// The script definition for path with the options' limits (params may be NULL if n is 0).
tpScriptDef tpCli_ScriptDef(const tpCliPlanOpts *o, const char *path, const tpScriptParam *params, int nparams);

/// Prints the domain's warnings (tpDomain_Warning) on stderr, "tplan: warning: file:line: ...", after
/// flushing stdout so that they come before anything the command prints next. Shown under -q too.
void tpCli_PrintWarnings(const tpDomain *domain);
/// Loads the script only to print its domain's warnings (bench: once per domain, not per run).
/// A script that fails to load prints nothing (the run reports the error).
void tpCli_ScriptWarnings(const tpCliPlanOpts *o, const char *path, const tpScriptParam *params, int nparams);

/// Set (from a signal handler) to end the current search now with its best plan: `tplan worker`'s
/// stop request (POST /v1/jobs/{id}/stop); the OR-parallel searches check it too.
extern volatile sig_atomic_t tpCli_StopRequested;

/// Progress reporting of a run (see tpPlannerDef.progress).
typedef struct tpCliProgress {
    tpProgressFn fn;
    void *user;
    double interval; /* s */
} tpCliProgress;

/// One planning run (tp/run.h); free it with tpCli_PlanRunFree.
typedef tpRun tpCliRun;

/// Loads the domain script at path fresh (with the --set params), applies the options to its
/// planner defaults and plans. Returns TP_EXIT_OK when the planner ran (solved or approximate:
/// see run->status), TP_EXIT_BAD_INPUT with a message in err (script error, invalid planner
/// definition, a callback failure while planning). Free the run in every case.
int tpCli_PlanRun(const char *path, const tpScriptParam *params, int nparams, const tpCliPlanOpts *o,
                  const tpCliProgress *progress, tpCliRun *run, char *err, size_t errlen);
void tpCli_PlanRunFree(tpCliRun *run);
/// The exact unrest (docs/lua-api.md#fallbacks) of a finished run's best node (res.best): the
/// domain's unrest_exact, else its unrest, else 0 (a fallback by quality); NAN on a callback error.
double tpCli_BestUnrest(const tpCliRun *run);
/// The plan record of a finished run, as `tplan plan` writes it: the domain's recording plus the
/// script's file name, its hash, the --set overrides and every file the script read (sources);
/// warnings name files relative to the script's folder. `path` is not recorded. rec is zeroed first; free it with
/// tpPlanRecord_Free in every case. False with a message in err.
bool tpCli_RecordRun(const tpCliRun *run, const char *path, tpPlanRecord *rec, char *err, size_t errlen);
/// Writes the search tree file (docs/tree-format.md) of a run: every non-static body's position
/// per node, the busy/goal flags and the chosen branch (res->best) marked. False after logging.
bool tpCli_WriteTree(const tpDomain *domain, const tpTree *tree, const tpPlanResult *res, const char *path);
/// The same for the result `res` of the run (run->res, or a selection of its solutions: the
/// OR-parallel workers, par.h).
bool tpCli_RecordResult(const tpCliRun *run, const char *path, const tpPlanResult *res, tpPlanRecord *rec, char *err,
                        size_t errlen);

/// `replay --check` of world w (replay_check.c): prints the deepest overlap of each touching
/// pair (the `show` deepest) unless quiet. Returns the number of pairs that overlapped deeper
/// than their limit (static_tol for a moving body in static geometry, body_tol between two moving
/// bodies; m, 0 = not checked), or -1 when the replay itself failed (message in err).
int tpCli_ReplayCheck(tpDomain *domain, const tpPlanRecord *rec, int w, double static_tol, double body_tol, int show,
                      bool quiet, char *err, size_t errlen);

/// State of `tplan plan --preview FILE` (plan_preview.c): the best world so far, written to FILE
/// whenever it changes. Initialise best and written to -1 and best_quality to NAN.
typedef struct tpCliPreview {
    const tpCliRun *run; /* not owned: the run being planned (its domain and planner set before planning) */
    const char *path;    /* not owned: FILE */
    int32_t scanned;     /* nodes looked at so far */
    int32_t best;        /* the best node so far, -1 before the first */
    int32_t written;     /* the node last written, -1 none */
    bool best_goal;      /* best is a goal node (then the shallowest one) */
    double best_quality; /* its quality (NAN: none) */
    double best_unrest;  /* its unrest (0 when the goal asks for no rest) */
    double best_key;     /* its quality, or minus its depth when the domain has none */
    bool failed;         /* FILE could not be written: stop */
    int count;           /* files written */
    double next_write;   /* tpClock_Now() before which no file is written (but the last) */
} tpCliPreview;

/// Progress callback part of --preview: values the new nodes, writes FILE when the best changed
/// (last: the run has ended, write whatever the rate limit says). Never changes the planner's result.
void tpCliPreview_Progress(tpCliPreview *pv, const tpPlanStats *stats, bool last);

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

/// The domain script of a plan read from plan_path, as `tplan replay` loads it: the one embedded in
/// the plan (or domain_override, a path, or for older plans the recorded one) with the plan's
/// overrides; *files (freed by the caller) holds the embedded files. mute: the script's print()
/// writes nothing. NULL after printing why.
tpScript *tpCli_LoadPlanScript(const char *plan_path, const char *domain_override, const tpPlanRecord *rec, bool quiet,
                               bool mute, tpScriptFile **files);
/// The node tree of the glTF file (an embedded source of rec, .gltf or .glb) that names the most of
/// rec's bodies, for the export (export_source.c): true with src filled and *nodes heap-owned (freed
/// by the caller); false (nothing allocated) when no embedded glTF file names a body.
struct tpExportSource;
struct tpExportSourceNode;
bool tpCli_ExportSource(const tpPlanRecord *rec, struct tpExportSource *src, struct tpExportSourceNode **nodes);
/// tplan plan --from-plan PLAN --world K --until T [--where QUERY] (plan_refine.c): keep world K up to
/// time T, plan the rest from the state there, splice the two. Zero it, fill the inputs.
typedef struct tpCliRefine {
    const char *plan_path; /* --from-plan */
    long long world;       /* --world K (file order: 0 the selected world) */
    double until;          /* --until T, s of plan time */
    const char *where;     /* --where QUERY (tp/query.h), the extra goal selecting among the solutions; or NULL */
    tpPlanRecord old;      /* the plan read (owned) */
    int step;              /* the state kept: floor((T - start) / dt) */
} tpCliRefine;
/// Reads the plan, checks the world, time and query, and makes the state at T (*state, owned by the
/// caller) in the domain script at domain_path. False after printing why.
bool tpCli_RefineStart(tpCliRefine *r, const char *domain_path, tplan_state **state);
/// Splices the new plan rec (planned from that state) after the kept steps and applies --where. An
/// exit code: TP_EXIT_OK, TP_EXIT_APPROXIMATE (no solution satisfies --where: a warning printed),
/// else an error with a message in err.
int tpCli_RefineFinish(tpCliRefine *r, tpPlanRecord *rec, char *err, size_t errlen);
void tpCli_RefineFree(tpCliRefine *r);

/// Reads the state file at path (syntax and values; the domain checks the rest when it gets it).
/// NULL after printing "PATH: why".
tplan_state *tpCli_ReadState(const char *path);

int tpCmd_Plan(int argc, char **argv);
int tpCmd_State(int argc, char **argv);
int tpCmd_Worlds(int argc, char **argv);
int tpCmd_Simulate(int argc, char **argv);
int tpCmd_Bench(int argc, char **argv);
int tpCmd_Replay(int argc, char **argv);
int tpCmd_Domains(int argc, char **argv);
int tpCmd_View(int argc, char **argv);
int tpCmd_Render(int argc, char **argv);
int tpCmd_Export(int argc, char **argv);
int tpCmd_Serve(int argc, char **argv);
int tpCmd_Worker(int argc, char **argv);

#endif
