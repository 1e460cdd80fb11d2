/* States of a domain's world (tplan_state): every moving body's pose, velocity and rest
 * count and the time, by body name; the state file (JSON, docs/embedding.md "States") read
 * strictly and written exactly; planning from a state (tplan_run_def.start, tpRun_Plan) and
 * stepping one with the planner's own Sim (tplan_simulate). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "call.h"
#include "tp/base.h"
#include "tp/json_text.h"
#include "tp/plan.h"
#include "tp/run.h"

_Static_assert(TP_STATE_MAX_VARS == TP_SKILL_VARS, "a state holds every skill variable");
_Static_assert(TP_STATE_MAX_MEMORY == TP_COND_MAX_MEMORY && TP_STATE_MAX_MEMORY_VALUE == TP_PLAN_MAX_TEMPORAL_SIZE,
               "a state holds every temporal memory slot");

/* ------------------------------------------------------------------------------------------ */
/* The value                                                                                   */

tplan_state *tpState_FromDomain(const tpDomain *d, const tpBodyState *x, const uint8_t *rest, double t)
{
    const tpWorld *w = tpDomain_World(d);
    const int n = tpWorld_StateCount(w);
    tplan_state *s = tpState_New(tpDomain_Def(d)->name, n);
    if (!s) {
        return NULL;
    }
    if (x) {
        memcpy(s->x, x, sizeof *x * (size_t)n);
    } else {
        tpWorld_InitialState(w, s->x);
    }
    if (rest) {
        memcpy(s->rest, rest, (size_t)n);
    }
    for (int k = 0; k < n; ++k) {
        tpStrCopy(s->names[k], sizeof s->names[k], tpWorld_Body(w, tpWorld_StateBody(w, k))->name);
    }
    s->t = t;
    TP_VALIDATE(tpState_Valid, s);
    return s;
}

/* ------------------------------------------------------------------------------------------ */
/* Checking against a domain                                                                   */

bool tpState_Bind(const tplan_state *s, tpDomain *d, tpBodyState *x, uint8_t *rest, tplan_error *err)
{
    const tpWorld *w = tpDomain_World(d);
    const char *dname = tpDomain_Def(d)->name;
    if (strcmp(s->domain, dname) != 0) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "domain", "state: domain: a state of '%s', not of '%s'", s->domain, dname);
        return false;
    }
    const int ns = tpWorld_StateCount(w);
    for (int k = 0; k < s->n; ++k) { /* every body the state names is a moving body of the domain */
        const int b = tpWorld_FindBody(w, s->names[k]);
        char field[TP_NAME_MAX + 16];
        snprintf(field, sizeof field, "bodies.%s", s->names[k]);
        if (b < 0 || tpWorld_StateSlot(w, b) < 0) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: %s", field,
                       b < 0                                       ? "no such body in the domain"
                       : tpWorld_Body(w, b)->cls == TP_BODY_STATIC ? "a static body has no state"
                                                                   : "a scripted body's pose is a function of the "
                                                                     "time, not part of a state");
            return false;
        }
        const int slot = tpWorld_StateSlot(w, b);
        x[slot] = s->x[k];
        rest[slot] = s->rest[k];
    }
    if (s->n != ns) { /* names are unique, so some body is missing: the first one */
        for (int k = 0; k < ns; ++k) {
            const char *name = tpWorld_Body(w, tpWorld_StateBody(w, k))->name;
            if (tpState_FindBody(s, name) < 0) {
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "bodies",
                           "state: bodies: %d bodies given, the domain '%s' has %d (missing '%s')", s->n, dname, ns,
                           name);
                return false;
            }
        }
    }
    char field[96], msg[1024];
    if (!tpDomain_CheckState(d, x, rest, s->t, field, sizeof field, msg, sizeof msg)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s", msg);
        return false;
    }
    return true;
}

bool tpState_BindTactics(const tplan_state *s, tpDomain *d, void *part, int32_t *mem, tplan_error *err)
{
    const int nt = tpDomain_TacticCount(d), nm = tpDomain_MemoryCount(d);
    const char *dname = tpDomain_Def(d)->name;
    if (part) {
        memset(part, 0, tpDomain_TacticBytes(d));
    }
    for (int k = 0; s->has_tactics && k < s->ntactics; ++k) { /* every tactic named is the domain's */
        int i = 0;
        while (i < nt && strcmp(tpDomain_Tactic(d, i)->name, s->tactics[k].name) != 0) {
            ++i;
        }
        const tpStateTactic *st = &s->tactics[k];
        char field[TP_NAME_MAX + 32];
        snprintf(field, sizeof field, "tactics.%s", st->name);
        if (i == nt) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: no such tactic in the domain '%s'", field, dname);
            return false;
        }
        const tpTacticDef *td = tpDomain_Tactic(d, i);
        const int nv = tpDomain_TacticVars(d, i);
        if (st->skill < 0 || st->skill >= td->nskills) {
            snprintf(field, sizeof field, "tactics.%s.skill", st->name);
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: %d is not a skill of the tactic (0..%d: %s%s)",
                       field, st->skill, td->nskills - 1, td->skills[0].name, td->nskills > 1 ? ", ..." : "");
            return false;
        }
        if (st->nvars != nv) {
            snprintf(field, sizeof field, "tactics.%s.vars", st->name);
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: %d numbers given, the tactic has %d skill variables",
                       field, st->nvars, nv);
            return false;
        }
        if (part) {
            tpTacticState *ts = tpDomain_TacticPart(d, part, i);
            ts->sigma = st->skill;
            ts->busy = st->busy;
            ts->started = st->started;
            memcpy(ts->V, st->vars, sizeof(double) * (size_t)nv);
        }
    }
    if (s->has_tactics && s->ntactics != nt) { /* names are unique, so some tactic is missing: the first one */
        for (int i = 0; i < nt; ++i) {
            if (tpState_FindTactic(s, tpDomain_Tactic(d, i)->name) < 0) {
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "tactics",
                           "state: tactics: %d tactics given, the domain '%s' has %d (missing '%s')", s->ntactics,
                           dname, nt, tpDomain_Tactic(d, i)->name);
                return false;
            }
        }
    }
    if (s->has_memory && s->nmemory != nm) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "memory",
                   "state: memory: %d values given, the domain '%s' has %d temporal condition slots", s->nmemory, dname,
                   nm);
        return false;
    }
    for (int k = 0; s->has_memory && k < nm; ++k) {
        const int size = tpDomain_MemorySize(d, k);
        if (s->memory[k] < 0 || s->memory[k] > size) {
            char field[32];
            snprintf(field, sizeof field, "memory[%d]", k);
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: %d is beyond the condition's %d", field,
                       (int)s->memory[k], size);
            return false;
        }
        if (mem) {
            mem[k] = s->memory[k];
        }
    }
    return true;
}

bool tpState_ApplyTactics(const tplan_state *s, tpDomain *d, tplan_error *err)
{
    const size_t tb = tpDomain_TacticBytes(d);
    const int nm = tpDomain_MemoryCount(d);
    void *part = calloc(tb + 1, 1);
    int32_t *mem = calloc((size_t)nm + 1, sizeof *mem);
    bool ok = part && mem;
    if (!ok) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
    }
    ok = ok && tpState_BindTactics(s, d, part, mem, err);
    if (ok && !tpDomain_SetStartTactics(d, s->has_tactics ? part : NULL, s->has_memory ? mem : NULL)) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        ok = false;
    }
    free(part);
    free(mem);
    return ok;
}

bool tpState_Apply(const tplan_state *s, tpDomain *d, tplan_error *err)
{
    const int ns = tpWorld_StateCount(tpDomain_World(d));
    tpBodyState *x = calloc((size_t)(ns > 0 ? ns : 1), sizeof *x);
    uint8_t *rest = calloc((size_t)(ns > 0 ? ns : 1), 1);
    bool ok = x && rest;
    if (!ok) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
    }
    ok = ok && tpState_Bind(s, d, x, rest, err);
    ok = ok && tpState_BindTactics(s, d, NULL, NULL, err); /* checked before anything changes */
    if (ok && !tpDomain_SetStart(d, x, rest, s->t)) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        ok = false;
    }
    ok = ok && tpState_ApplyTactics(s, d, err);
    free(x);
    free(rest);
    return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* The exported calls                                                                          */

tplan_state *tplan_state_new(const tplan_domain *d, tplan_error *err)
{
    if (!d) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no domain (NULL)");
        return NULL;
    }
    tplan_state *s = tpState_FromDomain(tpScript_Domain(d->script), NULL, NULL, 0.0);
    if (!s) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    tpApi_SetOk(err);
    return s;
}

/* s in the domain's order, checked against it (bind), as a new state. */
static tplan_state *bound_copy(const tplan_state *s, tpDomain *dom, tplan_error *err)
{
    const int ns = tpWorld_StateCount(tpDomain_World(dom));
    tpBodyState *x = calloc((size_t)(ns > 0 ? ns : 1), sizeof *x);
    uint8_t *rest = calloc((size_t)(ns > 0 ? ns : 1), 1);
    tplan_state *out = NULL;
    if (!x || !rest) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
    } else if (tpState_Bind(s, dom, x, rest, err) && tpState_BindTactics(s, dom, NULL, NULL, err)) {
        out = tpState_FromDomain(dom, x, rest, s->t);
        if (out && !tpState_TakeTactics(out, dom, s, NULL, NULL)) {
            tplan_state_free(out);
            out = NULL;
        }
        if (!out) {
            tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        }
    }
    free(x);
    free(rest);
    return out;
}

tplan_state *tplan_state_from_json(tplan_domain *d, const char *json, size_t len, tplan_error *err)
{
    if (!d || !json) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s", !d ? "no domain (NULL)" : "no JSON text (NULL)");
        return NULL;
    }
    tpCall call;
    tpCall_Begin(&call, d->limits.output, d->limits.output_user);
    tplan_state *parsed = tpState_Parse(json, len, err);
    tplan_state *s = parsed ? bound_copy(parsed, tpScript_Domain(d->script), err) : NULL;
    tplan_state_free(parsed);
    tpCall_End(&call);
    if (s) {
        tpApi_SetOk(err);
    }
    return s;
}

char *tplan_state_to_json(const tplan_state *s)
{
    if (!s) {
        return NULL;
    }
    tpCall call;
    tpCall_Begin(&call, NULL, NULL);
    char *text = tpState_ToJson(s);
    tpCall_End(&call);
    return text;
}

const char *tplan_state_domain(const tplan_state *s)
{
    return s ? s->domain : NULL;
}

double tplan_state_time(const tplan_state *s)
{
    return s ? s->t : 0.0;
}

tplan_code tplan_state_set_time(tplan_state *s, double t, tplan_error *err)
{
    if (!s) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no state (NULL)");
        return TPLAN_ERR_ARGUMENT;
    }
    if (!(t >= 0 && t <= TP_MAX_START_TIME)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "time", "time: %.17g is not a time in [0, %g] s", t, TP_MAX_START_TIME);
        return TPLAN_ERR_ARGUMENT;
    }
    s->t = t;
    tpApi_SetOk(err);
    return TPLAN_OK;
}

int tplan_state_body_count(const tplan_state *s)
{
    return s ? s->n : 0;
}

const char *tplan_state_body_name(const tplan_state *s, int body)
{
    return s && body >= 0 && body < s->n ? s->names[body] : NULL;
}

int tplan_state_body_index(const tplan_state *s, const char *name)
{
    return tpState_FindBody(s, name);
}

static int named_body(const tplan_state *s, const char *name, tplan_error *err)
{
    const int k = tpState_FindBody(s, name);
    if (k < 0 && (!s || !name)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "bodies", "%s", !s ? "no state (NULL)" : "no body name (NULL)");
    } else if (k < 0) {
        /* the field names the body, as the state file's reader does ("bodies.ghost") */
        char field[sizeof err->field];
        snprintf(field, sizeof field, "bodies.%.50s", name);
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field,
                   "%s: no such body in the state of '%s' (static and scripted bodies have none)", field, s->domain);
    }
    return k;
}

tplan_code tplan_state_get_body(const tplan_state *s, const char *name, double row[13], int *rest, tplan_error *err)
{
    const int k = named_body(s, name, err);
    if (k < 0 || !row) {
        if (k >= 0) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no row (NULL)");
        }
        return TPLAN_ERR_ARGUMENT;
    }
    for (int v = 0, i = 0; v < 4; ++v) {
        memcpy(row + i, tpState_Vector(&s->x[k], v), sizeof(double) * (size_t)tpState_VectorLengths[v]);
        i += tpState_VectorLengths[v];
    }
    if (rest) {
        *rest = s->rest[k];
    }
    tpApi_SetOk(err);
    return TPLAN_OK;
}

tplan_code tplan_state_set_body(tplan_state *s, const char *name, const double row[13], int rest, tplan_error *err)
{
    const int k = named_body(s, name, err);
    if (k < 0 || !row) {
        if (k >= 0) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no row (NULL)");
        }
        return TPLAN_ERR_ARGUMENT;
    }
    char field[TP_NAME_MAX + 32];
    for (int v = 0, i = 0; v < 4; ++v) {
        for (int c = 0; c < tpState_VectorLengths[v]; ++c, ++i) {
            if (!isfinite(row[i])) {
                snprintf(field, sizeof field, "bodies.%s.%s", name, tpState_VectorNames[v]);
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "%s[%d]: not a finite number", field, c);
                return TPLAN_ERR_ARGUMENT;
            }
        }
    }
    const double norm = sqrt(row[3] * row[3] + row[4] * row[4] + row[5] * row[5] + row[6] * row[6]);
    if (!(fabs(norm - 1.0) <= TP_START_QUAT_TOL)) {
        snprintf(field, sizeof field, "bodies.%s.quaternion", name);
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "%s: norm %.17g is not 1 (within %g)", field, norm,
                   TP_START_QUAT_TOL);
        return TPLAN_ERR_ARGUMENT;
    }
    if (rest < 0 || rest > 255) {
        snprintf(field, sizeof field, "bodies.%s.rest", name);
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "%s: %d is not a count of steps at rest in 0..255", field, rest);
        return TPLAN_ERR_ARGUMENT;
    }
    for (int v = 0, i = 0; v < 4; ++v) {
        memcpy(tpState_Vector(&s->x[k], v), row + i, sizeof(double) * (size_t)tpState_VectorLengths[v]);
        i += tpState_VectorLengths[v];
    }
    s->rest[k] = (uint8_t)rest;
    tpApi_SetOk(err);
    return TPLAN_OK;
}

tplan_state *tplan_result_state(const tplan_result *r, const tplan_domain *d, int step, tplan_error *err)
{
    if (!r || !d) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s", !r ? "no result (NULL)" : "no domain (NULL)");
        return NULL;
    }
    const tpPlanWorld *w = &r->rec.worlds[r->rec.selected];
    const tpDomain *dom = tpScript_Domain(d->script);
    const tpWorld *world = tpDomain_World(dom);
    const int ns = tpWorld_StateCount(world);
    if (strcmp(r->rec.domain_name, tpDomain_Def(dom)->name) != 0 || r->rec.nbodies != tpWorld_BodyCount(world) ||
        !w->rest) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "the result is not a plan of this domain");
        return NULL;
    }
    if (step < 0 || step > w->nsteps) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "step", "step: %d is not a step of the plan (0..%d)", step, w->nsteps);
        return NULL;
    }
    tplan_state *s = tpState_FromDomain(dom, NULL, NULL, 0.0);
    if (!s) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    double t = r->rec.has_start ? r->rec.start_time : 0.0;
    for (int i = 0; i < step; ++i) {
        t = t + r->rec.dt; /* as the planner accumulates it */
    }
    s->t = t;
    for (int k = 0; k < ns; ++k) {
        const int b = tpWorld_StateBody(world, k);
        const double *row = w->traj[b] + (size_t)step * TP_STATE_DOUBLES;
        for (int v = 0, i = 0; v < 4; ++v) {
            memcpy(tpState_Vector(&s->x[k], v), row + i, sizeof(double) * (size_t)tpState_VectorLengths[v]);
            i += tpState_VectorLengths[v];
        }
        s->rest[k] = w->rest[(size_t)step * (size_t)r->rec.nbodies + (size_t)b];
    }
    /* the tactics and the conditions over time as the planner had them at that step */
    const int nm = tpDomain_MemoryCount(dom);
    int32_t *mem = calloc((size_t)nm + 1, sizeof *mem);
    const bool tac = w->tactics && r->rec.tactic_bytes == tpDomain_TacticBytes(dom) && tpDomain_TacticCount(dom) > 0;
    if (mem && nm > 0 && r->rec.ntemporal == nm) {
        tpPlanRecord_TemporalAt(&r->rec, r->rec.selected, step, mem);
    }
    if (!mem || !tpState_TakeTactics(s, dom, NULL, tac ? w->tactics + (size_t)step * r->rec.tactic_bytes : NULL,
                                     nm > 0 && r->rec.ntemporal == nm ? mem : NULL)) {
        free(mem);
        tplan_state_free(s);
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    free(mem);
    tpApi_SetOk(err);
    return s;
}

tplan_state *tpState_FromPlan(tpDomain *dom, const tpPlanRecord *rec, int world, int step, tplan_error *err)
{
    if (world < 0 || world >= rec->nworlds || step < 0 || step > rec->worlds[world].nsteps) {
        const bool w = world < 0 || world >= rec->nworlds;
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, w ? "world" : "step", "%s: %d is not a %s of the plan (0..%d)",
                   w ? "world" : "step", w ? world : step, w ? "world" : "step",
                   w ? rec->nworlds - 1 : rec->worlds[world].nsteps);
        return NULL;
    }
    const int ns = tpWorld_StateCount(tpDomain_World(dom));
    tpBodyState *x = calloc((size_t)(ns > 0 ? ns : 1), sizeof *x);
    uint8_t *rest = calloc((size_t)(ns > 0 ? ns : 1), 1);
    tplan_state *s = NULL;
    double t = 0.0;
    char msg[2048];
    tpReplayStatus rs = TP_REPLAY_MISFIT;
    if (!x || !rest) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
    } else if ((rs = tpDomain_ReplayTo(dom, rec, world, step, x, rest, &t, msg, sizeof msg)) != TP_REPLAY_MATCH) {
        tpRun_Fail(err, rs == TP_REPLAY_MISMATCH ? TPLAN_ERR_MISMATCH : tpApi_MisfitCode(msg), NULL, "%s", msg);
    } else if (!(s = tpState_FromDomain(dom, x, rest, t))) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
    } else {
        /* the conditions over time: the plan records their memory (the replay checked it); the
           tactics' own state is not in a plan file (they start afresh from this state) */
        const int nm = tpDomain_MemoryCount(dom);
        int32_t *mem = nm > 0 && rec->ntemporal == nm ? calloc((size_t)nm, sizeof *mem) : NULL;
        if (mem) {
            tpPlanRecord_TemporalAt(rec, world, step, mem);
        }
        if ((nm > 0 && rec->ntemporal == nm && !mem) || !tpState_TakeTactics(s, dom, NULL, NULL, mem)) {
            tplan_state_free(s);
            s = NULL;
            tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        }
        free(mem);
    }
    free(x);
    free(rest);
    return s;
}

/* The state at a step of a plan file; with tactics, the tactics' state from its search made again
   in a second fresh load of the script (state_remake.c). */
static tplan_state *from_plan(tplan_domain *d, const char *plan, size_t len, int world, int step, bool tactics,
                              tplan_error *err)
{
    if (!d || !plan) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s", !d ? "no domain (NULL)" : "no plan bytes (NULL)");
        return NULL;
    }
    tpCall call;
    tpCall_Begin(&call, d->limits.output, d->limits.output_user);
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    char msg[sizeof err->message];
    tpScript *script = NULL, *fresh = NULL;
    tplan_state *s = NULL;
    if (!tpPlanRecord_Parse(&rec, plan, len, "plan", msg, sizeof msg)) {
        tpRun_Fail(err, tpApi_MisfitCode(msg), NULL, "%s", msg);
    } else if (tpApi_DomainLoad(d, &script, err) == TPLAN_OK) {
        s = tpState_FromPlan(tpScript_Domain(script), &rec, world, step, err);
    }
    if (s && tactics &&
        (tpApi_DomainLoad(d, &fresh, err) != TPLAN_OK || !tpState_RemakeTactics(fresh, &rec, world, step, s, err))) {
        tplan_state_free(s);
        s = NULL;
    }
    tpDestroyScript(fresh);
    tpDestroyScript(script);
    tpPlanRecord_Free(&rec);
    tpCall_End(&call);
    if (s) {
        tpApi_SetOk(err);
    }
    return s;
}

tplan_state *tplan_state_from_plan(tplan_domain *d, const char *plan, size_t len, int world, int step, tplan_error *err)
{
    return from_plan(d, plan, len, world, step, false, err);
}

tplan_state *tplan_state_from_plan_tactics(tplan_domain *d, const char *plan, size_t len, int world, int step,
                                           tplan_error *err)
{
    return from_plan(d, plan, len, world, step, true, err);
}

/* ------------------------------------------------------------------------------------------ */
/* Stepping                                                                                    */

void tplan_simulate_def_init_(tplan_simulate_def *def, size_t size)
{
    if (!def || size < sizeof(size_t)) {
        return;
    }
    tplan_simulate_def d;
    memset(&d, 0, sizeof d);
    d.size = size < sizeof d ? size : sizeof d;
    memcpy(def, &d, d.size);
}

int tplan_domain_control_count(const tplan_domain *d)
{
    return d ? tpWorld_ControlCount(tpDomain_World(tpScript_Domain(d->script))) : 0;
}

int tplan_domain_control_body(const tplan_domain *d, int k)
{
    const tpWorld *w = d ? tpDomain_World(tpScript_Domain(d->script)) : NULL;
    return w && k >= 0 && k < tpWorld_ControlCount(w) ? tpWorld_ControlBody(w, k) : -1;
}

int tplan_domain_motor_count(const tplan_domain *d)
{
    return d ? tpWorld_MotorCount(tpDomain_World(tpScript_Domain(d->script))) : 0;
}

const char *tplan_domain_motor_joint(const tplan_domain *d, int m, int *axis)
{
    const tpWorld *w = d ? tpDomain_World(tpScript_Domain(d->script)) : NULL;
    if (!w || m < 0 || m >= tpWorld_MotorCount(w)) {
        if (axis) {
            *axis = 0;
        }
        return NULL;
    }
    int k = 0;
    const char *name = tpWorld_Joint(w, tpWorld_MotorJoint(w, m, &k))->name;
    if (axis) {
        *axis = k + 1;
    }
    return name;
}

static void row_of(const tpBodyState *x, double *row)
{
    memcpy(row, x->pos, sizeof x->pos);
    memcpy(row + 3, x->quat, sizeof x->quat);
    memcpy(row + 7, x->vel, sizeof x->vel);
    memcpy(row + 10, x->angvel, sizeof x->angvel);
}

tplan_code tpState_Simulate(tpDomain *dom, tplan_state *s, int steps, const double *controls, const double *targets,
                            double *trajectory, tplan_error *err)
{
    const tpWorld *w = tpDomain_World(dom);
    const int ns = tpWorld_StateCount(w), nc = tpWorld_ControlCount(w), nm = tpWorld_MotorCount(w);
    if (steps < 1) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "steps", "steps: %d; expected a number of steps >= 1", steps);
        return TPLAN_ERR_ARGUMENT;
    }
    tpBodyState *x = calloc((size_t)(ns > 0 ? ns : 1), sizeof *x);
    uint8_t *rest = calloc((size_t)(ns > 0 ? ns : 1), 1);
    double *zero = calloc((size_t)(6 * nc + 1), sizeof *zero);
    double *act = calloc((size_t)(6 * nc + nm + 1), sizeof *act); /* one full action: forces, then targets */
    const int nmem = tpDomain_MemoryCount(dom);
    int32_t *mem = calloc((size_t)nmem + 1, sizeof *mem); /* stepped as the planner's (absent: all 0) */
    tplan_code code = TPLAN_OK;
    if (!x || !rest || !zero || !act || !mem) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        code = TPLAN_ERR_NOMEM;
    } else if (!tpState_Bind(s, dom, x, rest, err) || !tpState_BindTactics(s, dom, NULL, mem, err)) {
        code = TPLAN_ERR_ARGUMENT;
    }
    double t = s->t;
    for (int k = 0; code == TPLAN_OK && trajectory && k < ns; ++k) {
        row_of(&x[k], trajectory + (size_t)k * TP_STATE_DOUBLES);
    }
    for (int i = 0; code == TPLAN_OK && i < steps; ++i) {
        const double *a = controls ? controls + (size_t)i * 6 * (size_t)nc : zero;
        for (int c = 0; c < 6 * nc; ++c) {
            if (!isfinite(a[c]) || fabs(a[c]) > TP_MAX_FORCE) {
                const char *body = tpWorld_Body(w, tpWorld_ControlBody(w, c / 6))->name;
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "controls",
                           "controls: step %d, body '%s': %s %c = %.6g is not a finite number within +-%g", i, body,
                           c % 6 < 3 ? "force" : "torque", "xyz"[c % 3], a[c], TP_MAX_FORCE);
                code = TPLAN_ERR_ARGUMENT;
                break;
            }
        }
        memcpy(act, a, sizeof(double) * 6 * (size_t)nc);
        for (int m = 0; m < nm; ++m) {
            int axis = 0;
            const tpJointDef *jd = tpWorld_Joint(w, tpWorld_MotorJoint(w, m, &axis));
            const double v = targets ? targets[(size_t)i * (size_t)nm + (size_t)m] : jd->axes[axis].speed;
            const double lim = tpWorld_MotorMaxSpeed(w, m);
            if (!(fabs(v) <= lim)) {
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "motor_targets",
                           "motor_targets: step %d, joint '%s'%s: %.6g is not a finite target within +-%g (its "
                           "max_speed)",
                           i, jd->name, axis ? " axis 2" : "", v, lim);
                code = TPLAN_ERR_ARGUMENT;
                break;
            }
            act[6 * nc + m] = v;
        }
        if (code != TPLAN_OK) {
            break;
        }
        if (!tpDomain_Step(dom, x, rest, &t, act)) {
            char why[512];
            const char *motion = tpWorld_FatalError(w);
            if (motion[0]) {
                tpRun_Fail(err, TPLAN_ERR_SCRIPT, NULL, "%s", motion);
                code = TPLAN_ERR_SCRIPT;
            } else {
                tpDomain_DescribeFailure(dom, tpWorld_LastFailure(w), why, sizeof why);
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "controls", "step %d: not a physical state: %s", i + 1, why);
                code = TPLAN_ERR_ARGUMENT;
            }
            break;
        }
        if (nmem > 0 && tpDomain_ObserveStep(dom, x, t, mem) < 0) {
            tpRun_Fail(err, TPLAN_ERR_SCRIPT, NULL, "step %d: a temporal condition failed: %s", i + 1,
                       tpDomain_Error(dom));
            code = TPLAN_ERR_SCRIPT;
            break;
        }
        for (int k = 0; trajectory && k < ns; ++k) {
            row_of(&x[k], trajectory + ((size_t)(i + 1) * (size_t)ns + (size_t)k) * TP_STATE_DOUBLES);
        }
    }
    if (code == TPLAN_OK) { /* the state in its own order (a parsed state keeps the file's) */
        for (int k = 0; k < s->n; ++k) {
            const int slot = tpWorld_StateSlot(w, tpWorld_FindBody(w, s->names[k]));
            s->x[k] = x[slot];
            s->rest[k] = rest[slot];
        }
        s->t = t;
        if (nmem > 0 && s->has_memory) { /* the memory goes on with the bodies (a state without keeps none) */
            memcpy(s->memory, mem, sizeof *mem * (size_t)nmem);
        }
        /* the caller's controls moved the world, not the tactics: what they were doing no longer
           fits it (a plan from the state starts them afresh; tplan_result_state has a plan's own) */
        tplan_state_clear_tactics(s);
    }
    free(x);
    free(rest);
    free(zero);
    free(act);
    free(mem);
    return code;
}

tplan_code tplan_simulate(tplan_domain *d, tplan_state *s, const tplan_simulate_def *def, tplan_error *err)
{
    if (!d || !s || !def) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s",
                   !d   ? "no domain (NULL)"
                   : !s ? "no state (NULL)"
                        : "no definition (NULL)");
        return TPLAN_ERR_ARGUMENT;
    }
    if (def->size < offsetof(tplan_simulate_def, trajectory) + sizeof def->trajectory || def->size > sizeof *def) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "size",
                   "size must be the struct's size as compiled (%zu bytes here); initialise with "
                   "tplan_simulate_def_init",
                   sizeof *def);
        return TPLAN_ERR_ARGUMENT;
    }
    tplan_simulate_def full;
    tplan_simulate_def_init(&full);
    memcpy(&full, def, def->size);
    tpCall call;
    tpCall_Begin(&call, d->limits.output, d->limits.output_user);
    const tplan_code code = tpState_Simulate(tpScript_Domain(d->script), s, full.steps, full.controls,
                                             full.motor_targets, full.trajectory, err);
    tpCall_End(&call);
    if (code == TPLAN_OK) {
        tpApi_SetOk(err);
    }
    return code;
}

/* ------------------------------------------------------------------------------------------ */
/* The tactics and the memory                                                      */

int tplan_state_tactic_count(const tplan_state *s)
{
    return s && s->has_tactics ? s->ntactics : 0;
}

const char *tplan_state_tactic_name(const tplan_state *s, int tactic)
{
    return s && s->has_tactics && tactic >= 0 && tactic < s->ntactics ? s->tactics[tactic].name : NULL;
}

static int named_tactic(const tplan_state *s, const char *name, tplan_error *err)
{
    const int k = tpState_FindTactic(s, name);
    if (k < 0) {
        char field[sizeof err->field];
        snprintf(field, sizeof field, "tactics.%.50s", name ? name : "");
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, !s || !name ? "tactics" : field, "%s",
                   !s      ? "no state (NULL)"
                   : !name ? "no tactic name (NULL)"
                           : "no such tactic in the state (a state without tactics gives none)");
    }
    return k;
}

tplan_code tplan_state_get_tactic(const tplan_state *s, const char *name, int *skill, int *busy, int *started,
                                  double *vars, int *nvars, tplan_error *err)
{
    const int k = named_tactic(s, name, err);
    if (k < 0) {
        return TPLAN_ERR_ARGUMENT;
    }
    const tpStateTactic *t = &s->tactics[k];
    if (nvars) {
        if (vars && *nvars < t->nvars) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "vars", "vars: room for %d, the tactic has %d skill variables", *nvars,
                       t->nvars);
            *nvars = t->nvars;
            return TPLAN_ERR_ARGUMENT;
        }
        if (vars) {
            memcpy(vars, t->vars, sizeof(double) * (size_t)t->nvars);
        }
        *nvars = t->nvars;
    }
    if (skill) {
        *skill = t->skill;
    }
    if (busy) {
        *busy = t->busy;
    }
    if (started) {
        *started = t->started;
    }
    tpApi_SetOk(err);
    return TPLAN_OK;
}

tplan_code tplan_state_set_tactic(tplan_state *s, const char *name, int skill, int busy, int started,
                                  const double *vars, int nvars, tplan_error *err)
{
    const int k = named_tactic(s, name, err);
    if (k < 0) {
        return TPLAN_ERR_ARGUMENT;
    }
    char field[TP_NAME_MAX + 32];
    const char *what = NULL;
    if (skill < 0) {
        what = "skill";
    } else if ((busy != 0 && busy != 1) || (started != 0 && started != 1) || (busy && !started)) {
        what = busy != 0 && busy != 1 ? "busy" : "started";
    } else if (nvars < 0 || nvars > TP_STATE_MAX_VARS || (nvars > 0 && !vars)) {
        what = "vars";
    }
    for (int i = 0; !what && i < nvars; ++i) {
        what = isfinite(vars[i]) ? NULL : "vars";
    }
    if (what) {
        snprintf(field, sizeof field, "tactics.%s.%s", name, what);
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "%s: %s", field,
                   what[0] == 's' && what[1] == 'k' ? "expected a skill index >= 0"
                   : what[0] == 'v'                 ? "expected at most 16 finite numbers"
                                                    : "expected 0 or 1 (busy only when started)");
        return TPLAN_ERR_ARGUMENT;
    }
    tpStateTactic *t = &s->tactics[k];
    t->skill = skill;
    t->busy = busy != 0;
    t->started = started != 0;
    t->nvars = nvars;
    if (nvars > 0) {
        memcpy(t->vars, vars, sizeof(double) * (size_t)nvars);
    }
    tpApi_SetOk(err);
    return TPLAN_OK;
}

int tplan_state_memory_count(const tplan_state *s)
{
    return s && s->has_memory ? s->nmemory : -1;
}

const int32_t *tplan_state_memory(const tplan_state *s)
{
    return s && s->has_memory ? s->memory : NULL;
}

tplan_code tplan_state_set_memory(tplan_state *s, const int32_t *values, int n, tplan_error *err)
{
    if (!s) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no state (NULL)");
        return TPLAN_ERR_ARGUMENT;
    }
    if (values && (n > TP_STATE_MAX_MEMORY)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "memory", "memory: %d values, at most %d", n, TP_STATE_MAX_MEMORY);
        return TPLAN_ERR_ARGUMENT;
    }
    for (int k = 0; values && k < n; ++k) {
        if (values[k] < 0 || values[k] > TP_STATE_MAX_MEMORY_VALUE) {
            char field[32];
            snprintf(field, sizeof field, "memory[%d]", k);
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "%s: %d is not in 0..%d", field, (int)values[k],
                       TP_STATE_MAX_MEMORY_VALUE);
            return TPLAN_ERR_ARGUMENT;
        }
    }
    if (!tpState_SetMind(s, s->has_tactics ? s->tactics : NULL, s->ntactics, values && n >= 0 ? values : NULL, n)) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        return TPLAN_ERR_NOMEM;
    }
    TP_VALIDATE(tpState_Valid, s);
    tpApi_SetOk(err);
    return TPLAN_OK;
}

void tplan_state_clear_tactics(tplan_state *s)
{
    if (s) {
        free(s->tactics);
        s->tactics = NULL;
        s->has_tactics = false;
        s->ntactics = 0;
    }
}
