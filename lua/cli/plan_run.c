/* Shared by `tplan plan` and `tplan bench`: the planner options of the command line, and one
 * planning run (load the script fresh, planner defaults from its `planner` table overridden by
 * the options, create the planner, run it). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tp/base.h"

int tpCli_PlannerOption(tpCliPlanOpts *o, int code, const char *v)
{
    char q[256];
    switch (code) {
    case TP_OPT_NO_NN_INDEX:
        o->no_nn_index = true;
        return 1;
    case TP_OPT_PLANNER:
        if (strcmp(v, "rrt") == 0) {
            o->kind = TP_PLANNER_RRT;
        } else if (strcmp(v, "bgt") == 0) {
            o->kind = TP_PLANNER_BGT;
        } else {
            tpLog(TP_LOG_ERROR, "--planner expects rrt or bgt (got '%s')", tpCli_Escape(v, q, sizeof q));
            return -1;
        }
        o->planner = true;
        return 1;
    case TP_OPT_MU:
        o->mu = tpCli_ParseDouble("--mu", v, 0, true, INFINITY, &o->mu_v);
        return o->mu ? 1 : -1;
    case TP_OPT_SEED:
        o->seed = tpCli_ParseInt("--seed", v, 0, 4294967295LL, &o->seed_v);
        return o->seed ? 1 : -1;
    case TP_OPT_MAX_ITERS:
        o->iters = tpCli_ParseInt("--max-iters", v, 1, LLONG_MAX, &o->iters_v);
        return o->iters ? 1 : -1;
    case TP_OPT_TIME_LIMIT:
        o->limit = tpCli_ParseDouble("--time-limit", v, 0, false, INFINITY, &o->limit_v);
        return o->limit ? 1 : -1;
    case TP_OPT_SOLUTIONS:
        o->sols = tpCli_ParseInt("--solutions", v, 1, TP_CLI_MAX_SOLUTIONS, &o->sols_v);
        return o->sols ? 1 : -1;
    case TP_OPT_MEMORY_LIMIT:
        return tpCli_ParseInt("--memory-limit", v, 16, 1LL << 30, &o->memory_mb) ? 1 : -1;
    case TP_OPT_LOAD_TIME_LIMIT:
        return tpCli_ParseDouble("--load-time-limit", v, 0, true, 1e6, &o->load_time) ? 1 : -1;
    case TP_OPT_CALL_TIME_LIMIT:
        return tpCli_ParseDouble("--call-time-limit", v, 0, true, 1e6, &o->call_time) ? 1 : -1;
    case TP_OPT_SEARCH_MEMORY:
        return tpCli_ParseInt("--search-memory", v, 1, 1LL << 30, &o->search_mb) ? 1 : -1;
    default:
        return 0;
    }
}

tpScriptDef tpCli_ScriptDef(const tpCliPlanOpts *o, const char *path, const tpScriptParam *params, int nparams)
{
    tpScriptDef def = tpDefaultScriptDef();
    def.path = path;
    def.source = o->source;
    def.source_len = o->source_len;
    def.print_to = o->print_to;
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
    if (o->search_mb > 0) {
        pd->memory_limit = (size_t)o->search_mb << 20;
    }
    pd->iteration_bound = o->iteration_bound;
    pd->iteration_bound_user = o->iteration_bound_user;
}

void tpCli_PrintWarnings(const tpDomain *domain)
{
    const int n = tpDomain_WarningCount(domain);
    if (n > 0) {
        fflush(stdout);
    }
    for (int i = 0; i < n; ++i) {
        tpLog(TP_LOG_WARN, "%s", tpDomain_Warning(domain, i));
    }
}

void tpCli_ScriptWarnings(const tpCliPlanOpts *o, const char *path, const tpScriptParam *params, int nparams)
{
    char err[256];
    tpScriptDef def = tpCli_ScriptDef(o, path, params, nparams);
    tpScript *s = tpCreateScript(&def, err, sizeof err);
    if (s) {
        tpCli_PrintWarnings(tpScript_Domain(s));
    }
    tpDestroyScript(s);
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
    for (int k = 0; k < 2; ++k) {
        for (int i = 0; o->outputs[k] && i < tpScript_InputCount(run->script); ++i) {
            if (tpCli_SameFile(o->outputs[k], tpScript_Input(run->script, i))) {
                char q1[512], q2[512];
                const char *read = tpScript_Input(run->script, i);
                bool same_text = strcmp(read, o->outputs[k]) == 0;
                snprintf(err, errlen, "%s '%s' is a file the script read%s%s%s: refusing to overwrite an input",
                         k == 0 ? "--out" : "--tree", tpCli_Escape(o->outputs[k], q1, sizeof q1),
                         same_text ? "" : " ('", same_text ? "" : tpCli_Escape(read, q2, sizeof q2),
                         same_text ? "" : "')");
                return TP_EXIT_BAD_INPUT;
            }
        }
    }
    if (o->warn) {
        tpCli_PrintWarnings(run->domain);
    }
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
        snprintf(err, errlen, "%s",
                 tpDomain_Error(run->domain)[0] ? tpDomain_Error(run->domain)
                                                : "planning failed: out of memory (an allocation of "
                                                  "the planner failed)");
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

bool tpCli_RecordResult(const tpCliRun *run, const char *path, const tpPlanResult *res, tpPlanRecord *rec, char *err,
                        size_t errlen)
{
    memset(rec, 0, sizeof *rec);
    if (!tpDomain_Record(run->domain, tpPlanner_Tree(run->planner), res, &run->pd, rec, err, errlen)) {
        return false;
    }
    const char *pj = tpScript_ParamsJson(run->script);
    rec->domain_file = strdup(path);
    rec->domain_hash = strdup(tpScript_Hash(run->script));
    rec->overrides = (pj && strcmp(pj, "{}") != 0) ? strdup(pj) : NULL;
    if (!rec->domain_file || !rec->domain_hash || (pj && strcmp(pj, "{}") != 0 && !rec->overrides)) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    return true;
}

bool tpCli_RecordRun(const tpCliRun *run, const char *path, tpPlanRecord *rec, char *err, size_t errlen)
{
    return tpCli_RecordResult(run, path, &run->res, rec, err, errlen);
}

bool tpCli_WriteTree(const tpDomain *domain, const tpTree *tree, const tpPlanResult *res, const char *path)
{
    const tpWorld *w = tpDomain_World(domain);
    int nb = tpWorld_BodyCount(w);
    tpTreeRecord tr;
    memset(&tr, 0, sizeof tr);
    int *bodies = calloc((size_t)nb, sizeof *bodies);
    tr.body_names = calloc((size_t)nb, sizeof *tr.body_names);
    tr.nnodes = tpTree_Count(tree);
    tr.parent = calloc((size_t)tr.nnodes, sizeof *tr.parent);
    tr.flags = calloc((size_t)tr.nnodes, sizeof *tr.flags);
    bool ok = bodies && tr.body_names && tr.parent && tr.flags;
    for (int b = 0; ok && b < nb; ++b) {
        if (tpWorld_Body(w, b)->cls != TP_BODY_STATIC) {
            bodies[tr.nbodies] = b;
            tr.body_names[tr.nbodies++] = (char *)tpWorld_Body(w, b)->name;
        }
    }
    tr.pos = ok ? calloc((size_t)tr.nnodes * (size_t)(tr.nbodies > 0 ? tr.nbodies : 1) * 3, sizeof *tr.pos) : NULL;
    ok = ok && tr.pos;
    for (int64_t i = 0; ok && i < tr.nnodes; ++i) {
        const tpNode *n = tpTree_Node(tree, (int32_t)i);
        tr.parent[i] = n->parent;
        tr.flags[i] = (uint8_t)(((n->flags & TP_NODE_BUSY) ? 1 : 0) | ((n->flags & TP_NODE_GOAL) ? 2 : 0));
        const void *x = tpTree_State(tree, (int32_t)i);
        for (int k = 0; k < tr.nbodies; ++k) {
            tpBodyState s;
            tpWorld_BodyState(w, tpState_Bodies(x), tpState_Time(x), bodies[k], &s);
            for (int c = 0; c < 3; ++c) {
                tr.pos[((size_t)i * (size_t)tr.nbodies + (size_t)k) * 3 + (size_t)c] = (float)s.pos[c];
            }
        }
    }
    if (ok && res->best >= 0) { /* mark the chosen branch */
        for (int32_t i = res->best; i >= 0; i = tpTree_Node(tree, i)->parent) {
            tr.flags[i] |= 4;
        }
    }
    char err[512] = "out of memory";
    ok = ok && tpTreeRecord_Write(&tr, path, err, sizeof err);
    if (!ok) {
        tpLog(TP_LOG_ERROR, "cannot write tree %s: %s", path, err);
    }
    free(bodies);
    free(tr.body_names);
    free(tr.parent);
    free(tr.flags);
    free(tr.pos);
    return ok;
}
