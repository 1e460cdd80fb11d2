/* One planning run (tp/run.h): load the script fresh, the domain's planner defaults overridden by
 * the run definition, create the planner, run it; record the result; replay a recorded world. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/run.h"

tplan_code tpRun_Prepare(const tplan_run_def *def, const tpScriptDef *sdef, const tpRunHooks *hooks, tpRun *run,
                         tplan_error *err)
{
    memset(run, 0, sizeof *run);
    tplan_code code = tplan_run_def_check(def, err);
    if (code != TPLAN_OK) {
        return code;
    }
    if (def->jobs > 1) {
        tpRun_Fail(err, TPLAN_ERR_UNSUPPORTED, "jobs",
                   "jobs > 1 (OR-parallel searches) is run by the tplan program, not by one planning run");
        return TPLAN_ERR_UNSUPPORTED;
    }
    char msg[sizeof err->message];
    run->script = tpCreateScript(sdef, msg, sizeof msg);
    if (!run->script) {
        code = tpRun_ScriptCode(msg);
        tpRun_Fail(err, code, NULL, "%s", msg);
        return code;
    }
    run->domain = tpScript_Domain(run->script);
    if (def->start && !tpState_Apply(def->start, run->domain, err)) {
        return err ? err->code : TPLAN_ERR_ARGUMENT;
    }
    if (hooks && hooks->loaded && !hooks->loaded(hooks->loaded_user, run->script, err)) {
        return err->code;
    }
    run->pd = tpDomain_Def(run->domain)->planner;
    tpRun_ApplyPlanner(def, &run->pd);
    if (hooks) {
        run->pd.progress = hooks->progress;
        run->pd.progress_user = hooks->progress_user;
        run->pd.progress_interval = hooks->progress_interval;
        run->pd.iteration_bound = hooks->iteration_bound;
        run->pd.iteration_bound_user = hooks->iteration_bound_user;
    }
    const char *who = sdef->name ? sdef->name : sdef->path ? sdef->path : "domain";
    const char *no_rrt = run->pd.kind == TP_PLANNER_RRT ? tpDomain_WhyNoRRT(run->domain) : NULL;
    if (no_rrt) { /* the planner's own check would say "problem.key_dim > 0" */
        tpRun_Fail(err, TPLAN_ERR_SCRIPT, NULL, "%s: %s", who, no_rrt);
        return TPLAN_ERR_SCRIPT;
    }
    tpProblem problem = tpDomain_Problem(run->domain);
    char perr[1024] = "";
    run->planner = tpCreatePlanner(&run->pd, &problem, perr, sizeof perr);
    if (!run->planner) {
        tpRun_Fail(err, TPLAN_ERR_SCRIPT, NULL, "%s: %s", who, perr);
        return TPLAN_ERR_SCRIPT;
    }
    return TPLAN_OK;
}

tplan_code tpRun_Plan(const tplan_run_def *def, const tpScriptDef *sdef, const tpRunHooks *hooks, tpRun *run,
                      tplan_error *err)
{
    tplan_code code = tpRun_Prepare(def, sdef, hooks, run, err);
    if (code != TPLAN_OK) {
        return code;
    }
    if (run->pd.time_limit > 0) {
        /* The planner stops between iterations at the limit; a Lua callback still running a
         * second later is stuck (one iteration takes milliseconds) and is stopped by the hook.
         * The grace keeps a normal run at its limit an approximate answer, not an error. */
        char what[64];
        snprintf(what, sizeof what, "time_limit %g s, plus 1 s of grace", run->pd.time_limit);
        tpScript_SetDeadline(run->script, tpClock_Now() + run->pd.time_limit + 1.0, what);
    }
    run->status = tpPlanner_Run(run->planner, &run->res);
    if (run->status == TP_PLAN_ERROR) {
        return tpRun_PlanFailure(run, err);
    }
    if (err) {
        err->code = TPLAN_OK;
        err->field[0] = err->message[0] = '\0';
    }
    return TPLAN_OK;
}

tplan_code tpRun_PlanFailure(const tpRun *run, tplan_error *err)
{
    const char *e = tpDomain_Error(run->domain);
    const tplan_code code = e[0] ? tpRun_ScriptCode(e) : TPLAN_ERR_SCRIPT;
    tpRun_Fail(err, code, NULL, "%s",
               e[0] ? e : "planning failed: out of memory (an allocation of the planner failed)");
    return code;
}

void tpRun_Free(tpRun *run)
{
    tpDestroyPlanner(run->planner);
    tpDestroyScript(run->script);
    memset(run, 0, sizeof *run);
}

/* The script's files into ps (path, hash, a copy of the bytes): from `like`'s k-th source when
 * given (an anytime search's earlier record: no hashing again), else from the script. */
static bool record_source(tpPlanSource *ps, const tpScriptFile *f, const tpPlanSource *like)
{
    char hash[32];
    if (!like) {
        tpPlan_HashString(f->data, f->len, hash);
    }
    const size_t len = like ? like->len : f->len;
    ps->path = strdup(like ? like->path : f->path);
    ps->hash = strdup(like ? like->hash : hash);
    ps->data = malloc(len + 1);
    if (!ps->path || !ps->hash || !ps->data) {
        return false;
    }
    memcpy(ps->data, like ? (const void *)like->data : (const void *)f->data, len);
    ps->data[len] = '\0';
    ps->len = len;
    return true;
}

bool tpRun_Record(const tpRun *run, const char *path, const tpPlanResult *res, tpPlanRecord *rec, char *err,
                  size_t errlen)
{
    return tpRun_RecordLike(run, path, res, NULL, rec, err, errlen);
}

bool tpRun_RecordLike(const tpRun *run, const char *path, const tpPlanResult *res, const tpPlanRecord *like,
                      tpPlanRecord *rec, char *err, size_t errlen)
{
    memset(rec, 0, sizeof *rec);
    if (!tpDomain_Record(run->domain, tpPlanner_Tree(run->planner), res, &run->pd, rec, err, errlen)) {
        return false;
    }
    const char *pj = tpScript_ParamsJson(run->script);
    const bool has_params = pj && strcmp(pj, "{}") != 0;
    /* The plan names the script by its file name and embeds it with every file it read, by paths
       relative to its folder: it replays anywhere, and no absolute path gets into it. */
    (void)path;
    int nfiles = 0;
    const tpScriptFile *files = tpScript_Files(run->script, &nfiles);
    if (like && like->nsources != nfiles) {
        like = NULL; /* the script read another file since (it does not while planning) */
    }
    rec->domain_file = nfiles > 0 ? strdup(files[0].path) : NULL;
    rec->domain_hash = strdup(tpScript_Hash(run->script));
    rec->overrides = has_params ? strdup(pj) : NULL;
    rec->sources = calloc((size_t)(nfiles > 0 ? nfiles : 1), sizeof *rec->sources);
    bool ok = rec->domain_file && rec->domain_hash && rec->sources && !(has_params && !rec->overrides);
    for (int k = 0; ok && k < nfiles; ++k) {
        rec->nsources = k + 1;
        ok = record_source(&rec->sources[k], &files[k], like ? &like->sources[k] : NULL);
    }
    /* the warnings name the script's files relative to its folder too (as the rejections do) */
    const char *name = tpScript_Name(run->script), *slash = strrchr(name, '/');
    size_t dir = slash ? (size_t)(slash - name) + 1 : 0;
    for (int i = 0; ok && dir > 0 && i < rec->nwarnings; ++i) {
        if (strncmp(rec->warnings[i], name, dir) == 0) {
            memmove(rec->warnings[i], rec->warnings[i] + dir, strlen(rec->warnings[i] + dir) + 1);
        }
    }
    if (!ok) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    return true;
}

tpRunReplay tpRun_ReplayWorld(tpDomain *domain, const tpPlanRecord *rec, int w, char *err, size_t errlen)
{
    /* the replay, then the goal on its final state: the last step's contacts and the temporal
       conditions' memory as the replay observed them */
    int goal = -1;
    tpReplayStatus r = tpDomain_ReplayGoal(domain, rec, w, &goal, NULL, err, errlen);
    if (r == TP_REPLAY_MISFIT) {
        return TP_RUN_REPLAY_MISFIT;
    }
    if (r == TP_REPLAY_MISMATCH) {
        return TP_RUN_REPLAY_MISMATCH;
    }
    if (goal < 0) {
        snprintf(err, errlen, "%s", tpDomain_Error(domain));
        return TP_RUN_REPLAY_ERROR;
    }
    if (strcmp(rec->status, "solved") == 0 && goal != 1) {
        snprintf(err, errlen, "world %d: the replay matches, but the goal does not hold at its end", w);
        return TP_RUN_REPLAY_GOAL_FAILS;
    }
    return TP_RUN_REPLAY_OK;
}
