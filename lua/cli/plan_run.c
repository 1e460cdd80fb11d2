/* Shared by `tplan plan` and `tplan bench`: the planner options of the command line, and one
 * planning run (load the script fresh, planner defaults from its `planner` table overridden by
 * the options, create the planner, run it). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tp/base.h"

int tpCli_ParsePlannerOption(tpCliPlanOpts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (strcmp(a, "--no-nn-index") == 0) {
        o->no_nn_index = true;
        return 1;
    }
    static const char *const with_value[] = {"--planner",         "--mu",        "--seed",         "--max-iters",
                                             "--time-limit",      "--solutions", "--memory-limit", "--load-time-limit",
                                             "--call-time-limit", NULL};
    bool known = false;
    for (int k = 0; with_value[k]; ++k) {
        known = known || strcmp(a, with_value[k]) == 0;
    }
    if (!known) {
        return 0;
    }
    if (*i + 1 >= argc) {
        tpLog(TP_LOG_ERROR, "%s: missing value", a);
        return -1;
    }
    const char *v = argv[++*i];
    if (strcmp(a, "--planner") == 0) {
        if (strcmp(v, "rrt") == 0) {
            o->kind = TP_PLANNER_RRT;
        } else if (strcmp(v, "bgt") == 0) {
            o->kind = TP_PLANNER_BGT;
        } else {
            tpLog(TP_LOG_ERROR, "--planner expects rrt or bgt (got '%s')", v);
            return -1;
        }
        o->planner = true;
    } else if (strcmp(a, "--mu") == 0) {
        if (!tpCli_ParseDouble(a, v, &o->mu_v) || !(o->mu_v > 0)) {
            tpLog(TP_LOG_ERROR, "--mu must be > 0");
            return -1;
        }
        o->mu = true;
    } else if (strcmp(a, "--seed") == 0) {
        if (!tpCli_ParseInt(a, v, 0, &o->seed_v) || o->seed_v > 4294967295LL) {
            tpLog(TP_LOG_ERROR, "--seed must be in 0..4294967295");
            return -1;
        }
        o->seed = true;
    } else if (strcmp(a, "--max-iters") == 0) {
        if (!tpCli_ParseInt(a, v, 1, &o->iters_v)) {
            return -1;
        }
        o->iters = true;
    } else if (strcmp(a, "--time-limit") == 0) {
        if (!tpCli_ParseDouble(a, v, &o->limit_v) || o->limit_v < 0) {
            tpLog(TP_LOG_ERROR, "--time-limit must be >= 0");
            return -1;
        }
        o->limit = true;
    } else if (strcmp(a, "--memory-limit") == 0) {
        if (!tpCli_ParseInt(a, v, 16, &o->memory_mb) || o->memory_mb > (1LL << 30)) {
            tpLog(TP_LOG_ERROR, "--memory-limit must be in 16..1073741824 (MB)");
            return -1;
        }
    } else if (strcmp(a, "--load-time-limit") == 0 || strcmp(a, "--call-time-limit") == 0) {
        double t = 0;
        if (!tpCli_ParseDouble(a, v, &t) || !(t > 0) || t > 1e6) {
            tpLog(TP_LOG_ERROR, "%s must be in (0, 1e6] seconds", a);
            return -1;
        }
        *(a[2] == 'l' ? &o->load_time : &o->call_time) = t;
    } else { /* --solutions */
        if (!tpCli_ParseInt(a, v, 1, &o->sols_v) || o->sols_v > 1000000) {
            return -1;
        }
        o->sols = true;
    }
    return 1;
}

tpScriptDef tpCli_ScriptDef(const tpCliPlanOpts *o, const char *path, const tpScriptParam *params, int nparams)
{
    tpScriptDef def = tpDefaultScriptDef();
    def.path = path;
    def.params = params;
    def.nparams = nparams;
    if (o->memory_mb > 0) {
        def.memory_limit = (size_t)o->memory_mb << 20;
    }
    if (o->load_time > 0) {
        def.load_time_limit = o->load_time;
    }
    if (o->call_time > 0) {
        def.call_time_limit = o->call_time;
    }
    return def;
}

void tpCli_ApplyPlannerOptions(const tpCliPlanOpts *o, tpPlannerDef *pd)
{
    if (o->planner) {
        pd->kind = o->kind;
    }
    if (o->mu) {
        pd->mu = o->mu_v;
    }
    if (o->seed) {
        pd->seed = (uint32_t)o->seed_v;
    }
    if (o->iters) {
        pd->max_iters = o->iters_v;
    }
    if (o->limit) {
        pd->time_limit = o->limit_v;
    }
    if (o->sols) {
        pd->solutions = (int)o->sols_v;
    }
    if (o->no_nn_index) {
        pd->nn_index = false;
    }
}

int tpCli_PlanRun(const char *path, const tpScriptParam *params, int nparams, const tpCliPlanOpts *o,
                  const tpCliProgress *progress, tpCliRun *run, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    tpScriptDef sdef = tpCli_ScriptDef(o, path, params, nparams);
    run->script = tpCreateScript(&sdef, err, errlen);
    if (!run->script) {
        return TP_EXIT_BAD_INPUT;
    }
    run->domain = tpScript_Domain(run->script);
    run->pd = tpDomain_Def(run->domain)->planner;
    tpCli_ApplyPlannerOptions(o, &run->pd);
    if (progress) {
        run->pd.progress = progress->fn;
        run->pd.progress_user = progress->user;
        run->pd.progress_interval = progress->interval;
    }
    tpProblem problem = tpDomain_Problem(run->domain);
    char perr[1024] = "";
    run->planner = tpCreatePlanner(&run->pd, &problem, perr, sizeof perr);
    if (!run->planner) {
        snprintf(err, errlen, "%s: %s", path, perr);
        return TP_EXIT_BAD_INPUT;
    }
    if (run->pd.time_limit > 0) {
        /* The planner stops between iterations at the limit; a Lua callback still running a
         * second later is stuck (one iteration takes milliseconds) and is stopped by the hook.
         * The grace keeps a normal run at its limit an approximate answer, not an error. */
        char what[64];
        snprintf(what, sizeof what, "--time-limit %g s, plus 1 s of grace", run->pd.time_limit);
        tpScript_SetDeadline(run->script, tpClock_Now() + run->pd.time_limit + 1.0, what);
    }
    run->status = tpPlanner_Run(run->planner, &run->res);
    if (run->status == TP_PLAN_ERROR) {
        snprintf(err, errlen, "%s", tpDomain_Error(run->domain)[0] ? tpDomain_Error(run->domain) : "planning failed");
        return TP_EXIT_BAD_INPUT;
    }
    return TP_EXIT_OK;
}

void tpCli_PlanRunFree(tpCliRun *run)
{
    tpDestroyPlanner(run->planner);
    tpDestroyScript(run->script);
    memset(run, 0, sizeof *run);
}
