/* The embedding API's calls on a run definition (tplan/tplan.h: check, from and to JSON, each in
 * the C locale as every call of the API is: call.h) over tp_rundef's encoding (run_fields.c), and
 * what a run definition gives a script and a planner (tp/run.h). */
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "tp/run.h"

/* The exported three as host-safe calls (call.h): their numbers in the C locale. */
tplan_code tplan_run_def_check(const tplan_run_def *def, tplan_error *err)
{
    tpCall call;
    tpCall_Begin(&call, NULL, NULL);
    tplan_code code = tpRun_CheckDef(def, err);
    tpCall_End(&call);
    return code;
}

tplan_code tplan_run_def_from_json(tplan_run_def *def, const char *json, size_t len, tplan_error *err)
{
    tpCall call;
    tpCall_Begin(&call, NULL, NULL);
    tplan_code code = tpRun_DefFromJson(def, json, len, err);
    tpCall_End(&call);
    return code;
}

char *tplan_run_def_to_json(const tplan_run_def *def)
{
    tpCall call;
    tpCall_Begin(&call, NULL, NULL);
    char *text = tpRun_DefToJson(def);
    tpCall_End(&call);
    return text;
}

void tplan_free(void *p)
{
    free(p);
}

tpScriptDef tpRun_ScriptDef(const tplan_run_def *def, const char *path, const char *source, size_t source_len,
                            const tpScriptParam *params, int nparams)
{
    tpScriptDef sd = tpDefaultScriptDef();
    sd.path = path;
    sd.source = source;
    sd.source_len = source_len;
    sd.params = params;
    sd.nparams = nparams;
    if (def && def->memory_limit_mb > 0) {
        sd.memory_limit = (size_t)def->memory_limit_mb << 20;
    }
    if (def && def->load_time_limit > 0) {
        sd.load_time_limit = def->load_time_limit;
    }
    if (def && def->call_time_limit > 0) {
        sd.call_time_limit = def->call_time_limit;
    }
    return sd;
}

void tpRun_ApplyPlanner(const tplan_run_def *def, tpPlannerDef *pd)
{
    if (def->planner != TPLAN_PLANNER_DOMAIN) {
        pd->kind = def->planner == TPLAN_PLANNER_RRT ? TP_PLANNER_RRT : TP_PLANNER_BGT;
    }
    if (def->mu > 0) {
        pd->mu = def->mu;
    }
    if (def->seed >= 0) {
        pd->seed = (uint32_t)def->seed;
    }
    if (def->max_iters > 0) {
        pd->max_iters = def->max_iters;
    }
    if (def->time_limit >= 0) {
        pd->time_limit = def->time_limit;
    }
    if (def->solutions > 0) {
        pd->solutions = def->solutions;
    }
    if (!def->nn_index) {
        pd->nn_index = false;
    }
    if (def->search_memory_mb > 0) {
        pd->memory_limit = (size_t)def->search_memory_mb << 20;
    }
    if (def->near_miss >= 0) {
        pd->near_miss = def->near_miss;
    }
}

/* The code of a script's failure: the sandbox's limit messages name the limit; a script file
 * that cannot be read is an I/O error; anything else is the script's own error. */
tplan_code tpRun_ScriptCode(const char *msg)
{
    if (strstr(msg, "time limit exceeded") || strstr(msg, "memory limit of")) {
        return TPLAN_ERR_LIMIT;
    }
    return strstr(msg, ": cannot open") ? TPLAN_ERR_IO : TPLAN_ERR_SCRIPT;
}
