/* The tactics' part of a state: taken from the planner's state blobs (tpState_TakeTactics),
 * and a plan file's tactics. A plan file records the states of the bodies and the memory of
 * the conditions over time, not the tactics' own state (the skills' sampled parameters, phases,
 * counters), so the state at a step of a plan file gets them by making the plan's search again
 * (same seed, planner, μ, iterations and solutions, from the same start: a plan is a deterministic
 * function of those) and, once the search made again is the plan bit for bit, taking them from
 * its own states: tplan_state_from_plan_tactics (state.c) and `tplan state --tactics`. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/plan.h"
#include "tp/run.h"

bool tpState_TakeTactics(tplan_state *s, const tpDomain *d, const tplan_state *from, const void *part,
                         const int32_t *mem)
{
    const int nt = tpDomain_TacticCount(d), nm = tpDomain_MemoryCount(d);
    tpStateTactic *tac = NULL;
    const bool has_t = from ? from->has_tactics : part != NULL;
    const bool has_m = from ? from->has_memory : mem != NULL && nm > 0;
    if (has_t && !(tac = calloc((size_t)nt + 1, sizeof *tac))) {
        return false;
    }
    for (int i = 0; has_t && i < nt; ++i) { /* the domain's order */
        const tpTacticDef *td = tpDomain_Tactic(d, i);
        tpStrCopy(tac[i].name, sizeof tac[i].name, td->name);
        if (from) {
            tac[i] = from->tactics[tpState_FindTactic(from, td->name)];
            continue;
        }
        const tpTacticState *ts = tpDomain_TacticPart(d, part, i);
        tac[i].skill = ts->sigma;
        tac[i].busy = ts->busy != 0;
        tac[i].started = ts->started != 0;
        tac[i].nvars = tpDomain_TacticVars(d, i);
        memcpy(tac[i].vars, ts->V, sizeof(double) * (size_t)tac[i].nvars);
    }
    const bool ok =
        tpState_SetMind(s, tac, has_t ? nt : -1, has_m ? (from ? from->memory : mem) : NULL, has_m ? nm : -1);
    free(tac);
    if (ok) {
        TP_VALIDATE(tpState_Valid, s);
    }
    return ok;
}

/* The in-memory world of a record that is file world `world` (the file lists the selected world
   first, then the others in their order). */
static int memory_world(const tpPlanRecord *rec, int world)
{
    return world == 0 ? rec->selected : (world - 1 < rec->selected ? world - 1 : world);
}

/* Whether world mw of the re-made record is file world `world` of rec bit for bit (the moving
   bodies' trajectories and the controls). */
static bool same_world(const tpPlanRecord *rec, int world, const tpPlanRecord *made, int mw)
{
    const tpPlanWorld *a = &rec->worlds[world], *b = &made->worlds[mw];
    if (rec->nbodies != made->nbodies || a->nsteps != b->nsteps) {
        return false;
    }
    for (int i = 0; i < rec->nbodies; ++i) {
        if ((a->traj[i] == NULL) != (b->traj[i] == NULL) || (a->controls[i] == NULL) != (b->controls[i] == NULL)) {
            return false;
        }
        if (a->traj[i] &&
            memcmp(a->traj[i], b->traj[i], sizeof(double) * TP_STATE_DOUBLES * (size_t)(a->nsteps + 1)) != 0) {
            return false;
        }
        if (a->controls[i] &&
            memcmp(a->controls[i], b->controls[i], sizeof(double) * TP_CONTROL_DOUBLES * (size_t)a->nsteps) != 0) {
            return false;
        }
    }
    return true;
}

/* The plan's start (rec->has_start) as the domain's: bodies, rest counts, time and the memory it
   recorded at step 0 (its tactics are not recorded: they start afresh). */
static bool set_start(tpDomain *dom, const tpPlanRecord *rec)
{
    const tpWorld *w = tpDomain_World(dom);
    const int ns = tpWorld_StateCount(w), nm = tpDomain_MemoryCount(dom);
    tpBodyState *x = calloc((size_t)ns + 1, sizeof *x);
    uint8_t *rest = calloc((size_t)ns + 1, 1);
    int32_t *mem = calloc((size_t)nm + 1, sizeof *mem);
    bool ok = x && rest && mem;
    for (int k = 0; ok && k < ns; ++k) {
        const int b = tpWorld_StateBody(w, k);
        const double *row = rec->worlds[0].traj[b];
        if (!row) {
            ok = false;
            break;
        }
        memcpy(x[k].pos, row, sizeof x[k].pos);
        memcpy(x[k].quat, row + 3, sizeof x[k].quat);
        memcpy(x[k].vel, row + 7, sizeof x[k].vel);
        memcpy(x[k].angvel, row + 10, sizeof x[k].angvel);
        rest[k] = rec->start_rest[b];
    }
    if (ok && nm > 0 && rec->ntemporal == nm) {
        tpPlanRecord_TemporalAt(rec, 0, 0, mem);
    }
    ok = ok && tpDomain_SetStart(dom, x, rest, rec->start_time) &&
         tpDomain_SetStartTactics(dom, NULL, nm > 0 && rec->ntemporal == nm ? mem : NULL);
    free(x);
    free(rest);
    free(mem);
    return ok;
}

bool tpState_RemakeTactics(tpScript *fresh, const tpPlanRecord *rec, int world, int step, tplan_state *s,
                           tplan_error *err)
{
    tpDomain *dom = tpScript_Domain(fresh);
    if (rec->has_start && !set_start(dom, rec)) {
        tpRun_Fail(err, TPLAN_ERR_PLAN_FILE, NULL, "the plan's start state does not fit the domain");
        return false;
    }
    tpPlannerDef pd = tpDomain_Def(dom)->planner;
    pd.kind = rec->planner && strcmp(rec->planner, "rrt") == 0 ? TP_PLANNER_RRT : TP_PLANNER_BGT;
    pd.seed = rec->seed;
    if (rec->mu > 0) {
        pd.mu = rec->mu;
    }
    pd.max_iters = rec->iterations > 0 ? rec->iterations : 1; /* where the run stopped, a time limit too */
    pd.time_limit = 0;
    pd.solutions = rec->solutions_requested > 0 ? rec->solutions_requested : 1;
    pd.progress = NULL;
    pd.iteration_bound = NULL;
    tpProblem problem = tpDomain_Problem(dom);
    char msg[1024] = "";
    tpPlanner *planner = tpCreatePlanner(&pd, &problem, msg, sizeof msg);
    tpPlanResult res;
    memset(&res, 0, sizeof res);
    tpPlanRecord made;
    memset(&made, 0, sizeof made);
    bool ok = planner != NULL;
    if (!ok) {
        tpRun_Fail(err, TPLAN_ERR_PLAN_FILE, NULL, "the plan's search cannot be made again: %s", msg);
    } else if (tpPlanner_Run(planner, &res) == TP_PLAN_ERROR) {
        tpRun_Fail(err, TPLAN_ERR_SCRIPT, NULL, "the plan's search made again failed: %s", tpDomain_Error(dom));
        ok = false;
    } else if (!tpDomain_Record(dom, tpPlanner_Tree(planner), &res, &pd, &made, msg, sizeof msg)) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "%s", msg);
        ok = false;
    }
    const int mw = ok ? memory_world(&made, world) : -1;
    if (ok && (made.nworlds != rec->nworlds || !same_world(rec, world, &made, mw) || !made.worlds[mw].tactics ||
               made.tactic_bytes != tpDomain_TacticBytes(dom))) {
        tpRun_Fail(err, TPLAN_ERR_MISMATCH, NULL,
                   "the plan's search made again (seed %u, %s, %lld iterations) is not the plan bit for bit, so "
                   "its tactics' state is not known (a plan of --jobs, of planner options the file does not "
                   "record, from a state with tactics, or of another build)",
                   (unsigned)rec->seed, rec->planner ? rec->planner : "?", (long long)rec->iterations);
        ok = false;
    }
    if (ok && !tpState_TakeTactics(s, dom, NULL, made.worlds[mw].tactics + (size_t)step * made.tactic_bytes,
                                   s->has_memory ? s->memory : NULL)) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        ok = false;
    }
    tpPlanRecord_Free(&made);
    tpDestroyPlanner(planner);
    return ok;
}
