/* Conditions over time: tp.sequence, tp.ever, tp.never, tp.within_time and
 * tp.at_time. What they remember (a sequence's progress, the sticky flag of the others) is one
 * int32 per temporal node in the planning state (tpStateView.memory), so it is copied with the
 * node, deterministic and replayed: tpCond_Observe updates it after every physics step, and the
 * evaluator (cond.c) only reads it. */

#include "domain_internal.h"

static bool is_temporal_kind(tpCondKind k)
{
    return k >= TP_COND_SEQUENCE && k <= TP_COND_AT_TIME;
}

bool tpCond_IsTemporal(const tpCond *c)
{
    if (!c) {
        return false;
    }
    if (is_temporal_kind(c->kind)) {
        return true;
    }
    for (int i = 0; i < c->nchildren; ++i) {
        if (tpCond_IsTemporal(c->children[i])) {
            return true;
        }
    }
    return false;
}

void tpCond_AssignMemory(tpCond *c, int *next)
{
    if (!c) {
        return;
    }
    if (is_temporal_kind(c->kind)) {
        c->mem = (*next)++;
    }
    for (int i = 0; i < c->nchildren; ++i) {
        tpCond_AssignMemory(c->children[i], next);
    }
}

void tpCond_EachTemporal(const tpCond *c, void (*fn)(void *user, const tpCond *node), void *user)
{
    if (!c) {
        return;
    }
    if (is_temporal_kind(c->kind)) {
        fn(user, c);
    }
    for (int i = 0; i < c->nchildren; ++i) {
        tpCond_EachTemporal(c->children[i], fn, user);
    }
}

int tpCond_Observe(const tpCond *c, const tpStateView *v, const tpBodyState *initial_all, int32_t *mem)
{
    TP_ASSERT(c && v && v->memory == mem);
    for (int i = 0; i < c->nchildren; ++i) { /* inner temporal conditions first: the outer reads them */
        if (tpCond_Observe(c->children[i], v, initial_all, mem) < 0) {
            return -1;
        }
    }
    if (!is_temporal_kind(c->kind)) {
        return 0;
    }
    TP_ASSERT(c->mem >= 0 && c->nchildren >= 1);
    int32_t *m = &mem[c->mem];
    const double t = v->t;
    int r;
    switch (c->kind) {
    case TP_COND_SEQUENCE:
        /* one element a step at most: element k+1 must hold at a step after element k's */
        if (*m < c->nchildren) {
            TP_ASSERT(*m >= 0);
            if ((r = tpCond_Eval(c->children[*m], v, initial_all)) < 0) {
                return -1;
            }
            *m += r;
        }
        return 0;
    case TP_COND_EVER:
    case TP_COND_NEVER:
        if (*m == 0) {
            if ((r = tpCond_Eval(c->children[0], v, initial_all)) < 0) {
                return -1;
            }
            *m = r;
        }
        return 0;
    case TP_COND_WITHIN_TIME:
        if (*m == 0 && t >= c->t0 - TP_COND_TIME_EPS && t <= c->t1 + TP_COND_TIME_EPS) {
            if ((r = tpCond_Eval(c->children[0], v, initial_all)) < 0) {
                return -1;
            }
            *m = r;
        }
        return 0;
    case TP_COND_AT_TIME:
        if (*m == 0 && t >= c->t0 - TP_COND_TIME_EPS) { /* decided once, at the first step at or after t0 */
            if ((r = tpCond_Eval(c->children[0], v, initial_all)) < 0) {
                return -1;
            }
            *m = r ? 1 : 2;
        }
        return 0;
    default:
        return 0;
    }
}
