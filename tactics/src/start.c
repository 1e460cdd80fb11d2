/* Start states: plan from a state the caller gives instead of the scene's initial
 * state, check such a state, and step the world exactly as the planner's Sim does. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "domain_internal.h"

static bool fail(char *field, size_t fieldlen, const char *where, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static bool fail(char *field, size_t fieldlen, const char *where, char *err, size_t errlen, const char *fmt, ...)
{
    if (field && fieldlen > 0) {
        snprintf(field, fieldlen, "%s", where);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return false;
}

bool tpDomain_CheckState(tpDomain *d, const tpBodyState *x, const uint8_t *rest, double t, char *field, size_t fieldlen,
                         char *err, size_t errlen)
{
    if (!(t >= 0 && t <= TP_MAX_START_TIME)) {
        return fail(field, fieldlen, "time", err, errlen, "time: %.17g is not a time in [0, %g] s", t,
                    TP_MAX_START_TIME);
    }
    const int max_rest = tpWorld_RestSteps(d->world);
    for (int k = 0; k < d->nstate; ++k) {
        const char *name = tpWorld_Body(d->world, tpWorld_StateBody(d->world, k))->name;
        char where[TP_NAME_MAX + 32];
        const tpBodyState *s = &x[k];
        const double q2 =
            s->quat[0] * s->quat[0] + s->quat[1] * s->quat[1] + s->quat[2] * s->quat[2] + s->quat[3] * s->quat[3];
        if (!tpWorld_StateInRange(s)) {
            snprintf(where, sizeof where, "bodies.%s", name);
            return fail(field, fieldlen, where, err, errlen,
                        "%s: not finite or beyond the physical ranges (|position| <= %g m, |velocity| <= %g m/s, "
                        "|angular velocity| <= %g rad/s)",
                        where, TP_MAX_COORD, TP_MAX_SPEED, TP_MAX_ANGVEL);
        }
        if (!(fabs(sqrt(q2) - 1.0) <= TP_START_QUAT_TOL)) {
            snprintf(where, sizeof where, "bodies.%s.quaternion", name);
            return fail(field, fieldlen, where, err, errlen, "%s: norm %.17g is not 1 (within %g)", where, sqrt(q2),
                        TP_START_QUAT_TOL);
        }
        if (rest && rest[k] > max_rest) {
            snprintf(where, sizeof where, "bodies.%s.rest", name);
            return fail(field, fieldlen, where, err, errlen, "%s: %d steps at rest, beyond the domain's %d%s", where,
                        rest[k], max_rest, max_rest == 0 ? " (it has no sleeping)" : "");
        }
    }
    tpStepFailure f;
    if (!tpWorld_CheckOverlap(d->world, x, t, &f)) {
        char where[TP_NAME_MAX + 16];
        snprintf(where, sizeof where, "bodies.%s", tpWorld_Body(d->world, f.a)->name);
        const bool st = f.kind == TP_STEP_STATIC_PENETRATION;
        return fail(field, fieldlen, where, err, errlen,
                    "%s: bodies '%s' and '%s' overlap %.4g m, beyond the domain's %s %g m", where,
                    tpWorld_Body(d->world, f.a)->name, tpWorld_Body(d->world, f.b)->name, f.value,
                    st ? "max_static_penetration" : "max_body_penetration", f.limit);
    }
    return true;
}

bool tpDomain_SetStart(tpDomain *d, const tpBodyState *x, const uint8_t *rest, double t)
{
    const size_t n = (size_t)(d->nstate > 0 ? d->nstate : 1);
    if (!d->start_x) {
        d->start_x = calloc(n, sizeof *d->start_x);
    }
    if (!d->start_rest) {
        d->start_rest = calloc(n, 1);
    }
    if (!d->start_x || !d->start_rest) {
        return false;
    }
    memcpy(d->start_x, x, sizeof *x * (size_t)d->nstate);
    if (rest) {
        memcpy(d->start_rest, rest, (size_t)d->nstate);
    } else {
        memset(d->start_rest, 0, n);
    }
    d->start_t = t;
    d->has_start = true;
    free(d->start_tac); /* the tactics and the memory start afresh unless tpDomain_SetStartTactics says */
    free(d->start_mem);
    d->start_tac = NULL;
    d->start_mem = NULL;
    /* tp.moved and the other comparisons with the initial state compare with this one */
    for (int i = 0; i < d->nbodies; ++i) {
        tpWorld_BodyState(d->world, d->start_x, t, i, &d->initial_all[i]);
    }
    TP_VALIDATE(tpDomain_Valid, d);
    return true;
}

bool tpDomain_Start(const tpDomain *d, const tpBodyState **x, const uint8_t **rest, double *t)
{
    if (d->has_start) {
        *x = d->start_x;
        *rest = d->start_rest;
        *t = d->start_t;
    }
    return d->has_start;
}

bool tpDomain_Step(tpDomain *d, tpBodyState *x, uint8_t *rest, double *t, const double *action)
{
    /* cb_simulate's call: the rest counts are part of the state, time advances by t + dt */
    const bool ok = tpWorld_StepRest(d->world, x, rest, *t, action, x, rest);
    *t = *t + d->def.scene.dt;
    return ok;
}

size_t tpDomain_TacticBytes(const tpDomain *d)
{
    return d->off_rest - d->off_tactics;
}

const void *tpState_TacticsPart(const tpDomain *d, const void *x)
{
    return (const char *)x + d->off_tactics;
}

tpTacticState *tpDomain_TacticPart(const tpDomain *d, const void *part, int tactic)
{
    TP_ASSERT(part && tactic >= 0 && tactic < d->ntactics);
    return (tpTacticState *)((char *)(uintptr_t)part + (d->tac_off[tactic] - d->off_tactics));
}

bool tpDomain_SetStartTactics(tpDomain *d, const void *part, const int32_t *mem)
{
    TP_ASSERT(d->has_start);
    const size_t nt = tpDomain_TacticBytes(d);
    uint8_t *tac = part ? malloc(nt > 0 ? nt : 1) : NULL;
    int32_t *m = mem && d->nmem > 0 ? malloc(sizeof *m * (size_t)d->nmem) : NULL;
    if ((part && !tac) || (mem && d->nmem > 0 && !m)) {
        free(tac);
        free(m);
        return false;
    }
    if (tac) {
        memcpy(tac, part, nt);
        for (int i = 0; i < d->ntactics; ++i) { /* the checks the state's reader made, as invariants */
            const tpTacticState *ts = tpDomain_TacticPart(d, tac, i);
            TP_ASSERT(ts->sigma >= 0 && ts->sigma < d->tactics[i].nskills && ts->busy <= 1 && ts->started <= 1);
            (void)ts;
        }
    }
    if (m) {
        memcpy(m, mem, sizeof *m * (size_t)d->nmem);
    }
    free(d->start_tac);
    free(d->start_mem);
    d->start_tac = tac;
    d->start_mem = m;
    TP_VALIDATE(tpDomain_Valid, d);
    return true;
}

bool tpDomain_StartTactics(const tpDomain *d, const void **part, const int32_t **mem)
{
    *part = d->has_start ? d->start_tac : NULL;
    *mem = d->has_start ? d->start_mem : NULL;
    return *part || *mem;
}

typedef struct MemSize {
    int slot, size;
} MemSize;

static void mem_size(void *user, const tpCond *c)
{
    MemSize *m = user;
    if (c->mem == m->slot) {
        m->size = c->kind == TP_COND_SEQUENCE ? c->nchildren : c->kind == TP_COND_AT_TIME ? 2 : 1;
    }
}

int tpDomain_MemorySize(const tpDomain *d, int slot)
{
    MemSize m = {slot, 0};
    tpCond_EachTemporal(d->def.goal, mem_size, &m);
    tpCond_EachTemporal(d->def.valid, mem_size, &m);
    return m.size;
}

int tpDomain_TacticCount(const tpDomain *d)
{
    return d->ntactics;
}

const tpTacticDef *tpDomain_Tactic(const tpDomain *d, int tactic)
{
    TP_ASSERT(tactic >= 0 && tactic < d->ntactics);
    return &d->tactics[tactic];
}

int tpDomain_ObserveStep(tpDomain *d, const tpBodyState *x, double t, int32_t *mem)
{
    return tpDomain_Observe(d, x, t, mem);
}
