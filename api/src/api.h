/* Private to api/src: the handles of the embedding API (tplan/tplan.h), shared by tplan.c
 * (domains, plans, replays) and state.c (states, simulation). */
#ifndef TP_API_H
#define TP_API_H

#include <pthread.h>

#include "tp/run.h"
#include "tplan/tplan.h"

struct tplan_domain {
    char *path;   /* the script's file, or its name in messages (with source) */
    char *source; /* NULL: a file domain; else the script's text (source_len bytes) */
    size_t source_len;
    tpScriptParam *params; /* copies, nparams */
    int nparams;
    tplan_run_def limits; /* the script limits it was loaded with */
    tpScript *script;     /* the loaded script, for inspection and replays (never planned with) */
};

struct tplan_result {
    tpPlanRecord rec;
    /* The plan file's bytes, formatted on the first tplan_result_plan or _write_plan (a game that
       reads only the arrays never pays for them: formatting was a third of a short plan call);
       under lock, so that concurrent readers of one result stay safe. */
    pthread_mutex_t lock;
    char *plan; /* NULL until formatted */
    size_t plan_len;
    char plan_error[256]; /* why formatting failed ("" : not tried or fine) */
};

/// Loads d's script fresh into *out (every plan and replay starts from the script's own state).
tplan_code tpApi_DomainLoad(const tplan_domain *d, tpScript **out, tplan_error *err);
/// The code of a plan file that does not fit its domain (TPLAN_ERR_PLAN_FILE), or of a reader or
/// replay that ran out of memory (TPLAN_ERR_NOMEM: its message says "out of memory").
tplan_code tpApi_MisfitCode(const char *msg);
/// def's output callback (NULL for no def, or a def too old to have the field).
tplan_output_fn tpApi_DefOutput(const tplan_run_def *def, void **user);
/// The script definition of d with the script limits of limits (print routed to the current call).
tpScriptDef tpApi_ScriptDef(const tplan_domain *d, const tplan_run_def *limits);
/// def0 (NULL: the defaults) completed into *def, the script limits it leaves unset the domain's.
/// False with err for a bad def.
bool tpApi_PlanDef(const tplan_domain *d, const tplan_run_def *def0, tplan_run_def *def, tplan_error *err);
/// An empty result (its lock ready), NULL when out of memory.
tplan_result *tpApi_ResultNew(void);
/// err (may be NULL) to TPLAN_OK.
void tpApi_SetOk(tplan_error *err);

#endif
