/* tplan api: one planning run, as every front end runs it (the tplan program's plan, bench and
 * worker, the service through its worker, and the embedding API of tplan/tplan.h).
 *
 * The run definition is tplan_run_def (tplan/tplan.h): its defaults, ranges and JSON reader and
 * writer are tp/run_def.h's (run_fields.c, the tp_rundef library), and this header applies it to a
 * domain script and a planner. This is the in-project interface of the api module; it is not
 * installed (libtplan exports only tplan/tplan.h). */
#ifndef TP_RUN_H
#define TP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp/lua.h"
#include "tp/planner.h"
#include "tp/run_def.h"
#include "tp/tactics.h"
#include "tplan/tplan.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The code of a script's failure message (tpCreateScript, tpDomain_Error): TPLAN_ERR_LIMIT for
/// the sandbox's time and memory limits, _IO for a script file that cannot be read, else _SCRIPT.
tplan_code tpRun_ScriptCode(const char *msg);
/// The script definition of a run: path (or, with source, its text of source_len bytes; the
/// path then only names it in messages), the parameters and the run's script limits. Its name
/// (how messages name the script) is the caller's to set.
tpScriptDef tpRun_ScriptDef(const tplan_run_def *def, const char *path, const char *source, size_t source_len,
                            const tpScriptParam *params, int nparams);
/// The domain's planner defaults (pd, from its `planner` table) overridden by the run's fields.
void tpRun_ApplyPlanner(const tplan_run_def *def, tpPlannerDef *pd);

/// What a front end adds to a run (zero it for none).
typedef struct tpRunHooks {
    tpProgressFn progress; /* tpPlannerDef.progress, its user and interval (s) */
    void *progress_user;
    double progress_interval;
    int64_t (*iteration_bound)(void *user); /* tpPlannerDef.iteration_bound (OR-parallel, stop) */
    void *iteration_bound_user;
    /* called once the script is loaded, before planning (the program refuses an output that is
       one of the script's inputs and prints the domain's warnings there); false stops the run
       with err as the hook set it. May be NULL */
    bool (*loaded)(void *user, tpScript *script, tplan_error *err);
    void *loaded_user;
} tpRunHooks;

/// One planning run: everything is owned by the run (free with tpRun_Free in every case).
typedef struct tpRun {
    tpScript *script;
    tpDomain *domain;   /* owned by script */
    tpPlannerDef pd;    /* the definition used: the script's defaults + the run's fields */
    tpPlanner *planner; /* its tree and result arrays stay valid until freed */
    tpPlanResult res;
    tpPlanStatus status;
} tpRun;

/// Loads the script of sdef fresh, applies def (checked first) to its planner defaults and
/// plans. TPLAN_OK when the planner ran (solved or approximate: run->status); else a code with a
/// message in err: TPLAN_ERR_ARGUMENT (bad def), _UNSUPPORTED (def->jobs > 1: the caller runs
/// OR-parallel searches itself), _SCRIPT (script error, invalid planner definition, a callback
/// failing while planning), _LIMIT (the script's time or memory limit), _IO (no such script).
tplan_code tpRun_Plan(const tplan_run_def *def, const tpScriptDef *sdef, const tpRunHooks *hooks, tpRun *run,
                      tplan_error *err);
/// tpRun_Plan up to the planner's creation, without planning (an anytime search, search.c): the
/// same codes; run->planner is ready for tpPlanner_Search.
tplan_code tpRun_Prepare(const tplan_run_def *def, const tpScriptDef *sdef, const tpRunHooks *hooks, tpRun *run,
                         tplan_error *err);
/// The error of a planner that stopped with TP_PLAN_ERROR (the domain's message, else out of
/// memory) into err; returns its code.
tplan_code tpRun_PlanFailure(const tpRun *run, tplan_error *err);
void tpRun_Free(tpRun *run);
/// The plan record of result res of a finished run (run->res, or a selection of its solutions),
/// as `tplan plan` writes it: the domain's recording plus the script's file name, its hash, the
/// parameters used and every file the script read (`sources`: the plan replays anywhere, and no
/// absolute path gets into it; path, the script as the caller named it, is not recorded). rec is zeroed first; free it
/// with tpPlanRecord_Free in every case. False with a message in err.
bool tpRun_Record(const tpRun *run, const char *path, const tpPlanResult *res, tpPlanRecord *rec, char *err,
                  size_t errlen);

/// tpRun_Record with the embedded sources copied from like (an earlier record of the same run;
/// NULL: read and hashed from the script).
bool tpRun_RecordLike(const tpRun *run, const char *path, const tpPlanResult *res, const tpPlanRecord *like,
                      tpPlanRecord *rec, char *err, size_t errlen);

/// What replaying one world of a plan found.
typedef enum {
    TP_RUN_REPLAY_OK = 0,         /* bit for bit; the goal holds at the end of a solved plan */
    TP_RUN_REPLAY_MISMATCH = 1,   /* a state differs (message names the step) */
    TP_RUN_REPLAY_GOAL_FAILS = 2, /* bit for bit, but the goal does not hold at the end */
    TP_RUN_REPLAY_MISFIT = 3,     /* the plan does not fit the domain (bodies, sizes) */
    TP_RUN_REPLAY_ERROR = 4,      /* a callback of the script failed (message in err) */
} tpRunReplay;

/// Replays world w of rec in domain (loaded with the plan's parameters) and checks the goal.
tpRunReplay tpRun_ReplayWorld(tpDomain *domain, const tpPlanRecord *rec, int w, char *err, size_t errlen);

/* ------------------------------------------------------------------------------------------ */
/* States (state.c): binding a tplan_state (tp/run_def.h) to a domain, planning from it, stepping it */

/// The domain's state (x, rest: tpWorld_StateCount entries each, NULL: the scene's initial state,
/// counts 0) at time t, in the domain's order. NULL when out of memory.
tplan_state *tpState_FromDomain(const tpDomain *domain, const tpBodyState *x, const uint8_t *rest, double t);
/// s checked against the domain (its name, every moving body once and no other, the ranges, the
/// rest counts, the overlaps: tpDomain_CheckState) into x and rest (the domain's order,
/// tpWorld_StateCount entries). False with TPLAN_ERR_ARGUMENT naming the field.
bool tpState_Bind(const tplan_state *s, tpDomain *domain, tpBodyState *x, uint8_t *rest, tplan_error *err);
/// tpState_Bind, then the domain's plans start from s (tpDomain_SetStart).
bool tpState_Apply(const tplan_state *s, tpDomain *domain, tplan_error *err);
/// Checks s's tactics and memory against the domain (names, skill indices, variable counts, memory
/// slots and values) and writes them in the domain's layout: part (tpDomain_TacticBytes, may be
/// NULL; afresh where s gives none) and mem (tpDomain_MemoryCount, may be NULL). False with err.
bool tpState_BindTactics(const tplan_state *s, tpDomain *domain, void *part, int32_t *mem, tplan_error *err);
/// Makes the search of rec again in fresh (a script loaded fresh for it, as a plan's run loads
/// one) and, when its world `world` is rec's bit for bit, sets s's tactics to the search's at step
/// `step` (state_remake.c). False with err (TPLAN_ERR_MISMATCH: the search made again differs).
bool tpState_RemakeTactics(tpScript *fresh, const tpPlanRecord *rec, int world, int step, tplan_state *s,
                           tplan_error *err);
/// s's tactics and memory made the domain's start (tpDomain_SetStartTactics, after tpDomain_SetStart),
/// checked as tpState_BindTactics does. False with err.
bool tpState_ApplyTactics(const tplan_state *s, tpDomain *domain, tplan_error *err);
/// Sets s's tactics and memory (in the domain's order) from `from` (a checked state: its own, by
/// name) or, with from NULL, from a tactics part (NULL: none given) and memory (NULL: none given).
/// False when out of memory.
bool tpState_TakeTactics(tplan_state *s, const tpDomain *domain, const tplan_state *from, const void *part,
                         const int32_t *mem);
/// The state at step of world w of rec (0: its selected solution), by replaying it in the domain
/// up to there (tpDomain_ReplayTo): NULL with TPLAN_ERR_ARGUMENT ("world", "step" out of range),
/// _MISMATCH (the replay differs), _PLAN_FILE (the plan does not fit the domain) or _NOMEM.
tplan_state *tpState_FromPlan(tpDomain *domain, const tpPlanRecord *rec, int world, int step, tplan_error *err);
/// Steps s (bound to domain first) `steps` times with the planner's Sim (tpDomain_Step): controls
/// steps rows of 6 doubles per control slot (NULL: none); targets steps rows of one target speed
/// per driven motor (tpWorld_MotorCount; NULL: each motor's declared speed); trajectory NULL or room
/// for steps + 1 rows of 13 doubles per state slot. s is changed only on success.
tplan_code tpState_Simulate(tpDomain *domain, tplan_state *s, int steps, const double *controls, const double *targets,
                            double *trajectory, tplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
