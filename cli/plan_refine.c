/* tplan plan --from-plan PLAN --world K --until T [--where QUERY] ("refine"): keep
 * world K of a plan up to time T, plan the rest again from the state there (the machinery of
 * --state: tpState_FromPlan replays the plan bit for bit up to that step), and splice: the new plan
 * is the kept part followed by the new one, from the old plan's start, so that `tplan replay
 * --check` replays it whole. --where QUERY (tp/query.h) is the extra goal: among the solutions
 * found (--solutions N) the selected one is the cheapest whose whole spliced world satisfies it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tp/base.h"
#include "tp/query.h"

bool tpCli_RefineStart(tpCliRefine *r, const char *domain_path, tplan_state **state)
{
    char err[2048] = "", q[512];
    tpCli_Escape(r->plan_path, q, sizeof q);
    if (!tpPlanRecord_Read(&r->old, r->plan_path, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "--from-plan: %s", err);
        return false;
    }
    if (r->world >= r->old.nworlds) {
        tpLog(TP_LOG_ERROR, "--world: %lld is not a world of %s (0..%d)", r->world, q, r->old.nworlds - 1);
        return false;
    }
    if (r->old.ntemporal > 0) { /* a state holds no memory of them: the refined search would start it again */
        tpLog(TP_LOG_ERROR,
              "--from-plan: %s: the domain has conditions over time (%s), whose memory a state does not carry: "
              "refining it is not supported",
              q, r->old.temporal[0].name);
        return false;
    }
    const tpPlanWorld *w = &r->old.worlds[r->world]; /* read plans: world k is rec->worlds[k] */
    const double t0 = r->old.has_start ? r->old.start_time : 0.0, end = t0 + w->nsteps * r->old.dt;
    if (!(r->until >= t0 && r->until <= end)) {
        tpLog(TP_LOG_ERROR, "--until: %g s is not within world %lld of %s (%g..%g s)", r->until, r->world, q, t0, end);
        return false;
    }
    r->step = (int)floor((r->until - t0) / r->old.dt + 1e-9);
    if (r->where && *r->where) { /* its syntax and bodies now, before planning */
        tpQuery *query = calloc(1, sizeof *query);
        bool ok = query && tpQuery_Parse(query, &r->old, r->where, err, sizeof err);
        free(query);
        if (!ok) {
            tpLog(TP_LOG_ERROR, "--where: %s", query ? err : "out of memory");
            return false;
        }
    }
    tpScriptFile *files = NULL;
    tpScript *script = tpCli_LoadPlanScript(r->plan_path, domain_path, &r->old, true, true, &files);
    bool ok = script != NULL;
    if (ok) {
        tplan_error e;
        *state = tpState_FromPlan(tpScript_Domain(script), &r->old, (int)r->world, r->step, &e);
        ok = *state != NULL;
        if (!ok) {
            tpLog(TP_LOG_ERROR, "--from-plan: %s: %s", q, e.message);
        }
    }
    tpDestroyScript(script);
    free(files);
    return ok;
}

/* World nw of rec becomes the old world's first `step` steps followed by it. */
static bool splice_world(const tpPlanWorld *ow, int step, tpPlanRecord *rec, int nwi)
{
    tpPlanWorld *nw = &rec->worlds[nwi], s;
    memset(&s, 0, sizeof s);
    if (!tpPlanWorld_Alloc(&s, rec, step + nw->nsteps)) {
        return false;
    }
    s.cost = nw->cost;
    for (int b = 0; b < rec->nbodies; b++) {
        if (s.traj[b]) {
            memcpy(s.traj[b], ow->traj[b], (size_t)step * TP_STATE_DOUBLES * sizeof(double));
            memcpy(s.traj[b] + (size_t)step * TP_STATE_DOUBLES, nw->traj[b],
                   (size_t)(nw->nsteps + 1) * TP_STATE_DOUBLES * sizeof(double));
        }
        if (s.controls[b]) {
            memcpy(s.controls[b], ow->controls[b], (size_t)step * TP_CONTROL_DOUBLES * sizeof(double));
            memcpy(s.controls[b] + (size_t)step * TP_CONTROL_DOUBLES, nw->controls[b],
                   (size_t)nw->nsteps * TP_CONTROL_DOUBLES * sizeof(double));
        }
    }
    for (int t = 0; t < rec->ntactics; t++) {
        memcpy(s.active[t], ow->active[t], (size_t)step * sizeof(int32_t));
        memcpy(s.active[t] + step, nw->active[t], (size_t)nw->nsteps * sizeof(int32_t));
    }
    if (rec->nmotors > 0 && s.targets) {
        memcpy(s.targets, ow->targets, (size_t)step * (size_t)rec->nmotors * sizeof(double));
        memcpy(s.targets + (size_t)step * (size_t)rec->nmotors, nw->targets,
               (size_t)nw->nsteps * (size_t)rec->nmotors * sizeof(double));
    }
    tpPlanWorld_FreeArrays(nw, rec->nbodies,
                           rec->ntactics); /* the new part's arrays go, the spliced take their place */
    *nw = s;
    return true;
}

static bool same_shape(const tpPlanRecord *a, const tpPlanRecord *b, char *err, size_t errlen)
{
    if (a->nbodies != b->nbodies || a->ntactics != b->ntactics || a->nmotors != b->nmotors || a->dt != b->dt) {
        return tpErrorf(err, errlen, "the domain's bodies, tactics, motors or dt are not the plan's"), false;
    }
    for (int i = 0; i < a->nbodies; i++) {
        if (strcmp(a->bodies[i].name, b->bodies[i].name) != 0 || a->bodies[i].moving != b->bodies[i].moving ||
            a->bodies[i].controlled != b->bodies[i].controlled) {
            return tpErrorf(err, errlen, "body %d is '%s' in the plan, '%s' in the domain", i, a->bodies[i].name,
                            b->bodies[i].name),
                   false;
        }
    }
    return true;
}

int tpCli_RefineFinish(tpCliRefine *r, tpPlanRecord *rec, char *err, size_t errlen)
{
    if (!same_shape(&r->old, rec, err, errlen)) {
        return TP_EXIT_BAD_INPUT;
    }
    const tpPlanWorld *ow = &r->old.worlds[r->world];
    for (int w = 0; w < rec->nworlds; w++) {
        if (rec->worlds[w].rest) { /* in memory only: the planner's rest counts of the new part */
            free(rec->worlds[w].rest);
            rec->worlds[w].rest = NULL;
        }
        if (!splice_world(ow, r->step, rec, w)) {
            return tpErrorf(err, errlen, "out of memory"), TP_EXIT_FAILURE;
        }
    }
    for (int i = 0; i < rec->noverlays; i++) { /* they belong to the new part's steps */
        rec->overlays[i].first += r->step;
        rec->overlays[i].last += r->step;
    }
    /* the plan starts where the old one did */
    free(rec->start_rest);
    rec->start_rest = NULL;
    rec->has_start = r->old.has_start;
    rec->start_time = r->old.start_time;
    if (r->old.has_start) {
        rec->start_rest = malloc((size_t)rec->nbodies + 1);
        if (!rec->start_rest) {
            return tpErrorf(err, errlen, "out of memory"), TP_EXIT_FAILURE;
        }
        memcpy(rec->start_rest, r->old.start_rest, (size_t)rec->nbodies);
    }
    if (!r->where || !*r->where) {
        return TP_EXIT_OK;
    }
    tpQuery *q = calloc(1, sizeof *q);
    if (!q || !tpQuery_Parse(q, rec, r->where, err, errlen)) {
        free(q);
        return TP_EXIT_BAD_INPUT;
    }
    int best = -1;
    for (int w = 0; w < rec->nworlds; w++) {
        if (tpQuery_Holds(q, rec, w) && (best < 0 || rec->worlds[w].cost < rec->worlds[best].cost)) {
            best = w;
        }
    }
    free(q);
    if (best < 0) {
        tpLog(TP_LOG_WARN, "--where: none of the %d solutions satisfies '%s' (the plan keeps the planner's choice)",
              rec->nworlds, r->where);
        return TP_EXIT_APPROXIMATE;
    }
    tpQuery_Select(rec, best);
    return TP_EXIT_OK;
}

void tpCli_RefineFree(tpCliRefine *r)
{
    tpPlanRecord_Free(&r->old);
}
