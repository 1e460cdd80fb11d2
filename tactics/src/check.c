/* Physical-truth check of a recorded plan: the deepest penetration of every touching body pair
 * over a replay. ODE resolves contacts softly (ERP, CFM), so bodies overlap a little
 * while they touch; a fast body or a strong push can sink deep into another, and a scripted
 * (kinematic) body can squeeze a body into static geometry. The replay is the planner's own
 * chain of Sim calls, so the figures are exactly those of the plan. */
#include "tp/tactics.h"

#include "tp/base.h"
#include "tp/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct tpCheckAcc {
    const tpWorld *world;
    tpPenetration *pairs; /* n pairs sorted by (a, b) (owned; room for cap) */
    int n;
    size_t cap;
    bool oom;
} tpCheckAcc;

static int find_pair(const tpCheckAcc *acc, int a, int b)
{
    int lo = 0, hi = acc->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        const tpPenetration *p = &acc->pairs[mid];
        if (p->a < a || (p->a == a && p->b < b)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static void observe(void *user, int step, const tpWorld *world)
{
    tpCheckAcc *acc = user;
    const tpContactInfo *c = tpWorld_Contacts(world);
    const int nc = tpWorld_ContactCount(world);
    for (int k = 0; k < nc && !acc->oom; ++k) {
        int i = find_pair(acc, c[k].a, c[k].b);
        if (i < acc->n && acc->pairs[i].a == c[k].a && acc->pairs[i].b == c[k].b) {
            if (c[k].max_depth > acc->pairs[i].depth) {
                acc->pairs[i].depth = c[k].max_depth;
                acc->pairs[i].step = step;
            }
            continue;
        }
        tpPenetration *grown = tpArray_Grow(acc->pairs, &acc->cap, (size_t)acc->n + 1, sizeof *grown);
        if (!grown) {
            acc->oom = true;
            return;
        }
        acc->pairs = grown;
        memmove(acc->pairs + i + 1, acc->pairs + i, sizeof *acc->pairs * (size_t)(acc->n - i));
        tpPenetration *p = &acc->pairs[i];
        p->a = c[k].a;
        p->b = c[k].b;
        p->depth = c[k].max_depth;
        p->step = step;
        p->static_pair =
            tpWorld_Body(world, c[k].a)->cls == TP_BODY_STATIC || tpWorld_Body(world, c[k].b)->cls == TP_BODY_STATIC;
        acc->n++;
    }
}

tpReplayStatus tpDomain_CheckPenetration(tpDomain *d, const tpPlanRecord *rec, int w, tpPenetration **pairs,
                                         int *npairs, char *err, size_t errlen)
{
    tpCheckAcc acc = {tpDomain_World(d), NULL, 0, 0, false};
    *pairs = NULL;
    *npairs = 0;
    tpReplayStatus r = tpDomain_ReplayObserved(d, rec, w, observe, &acc, NULL, err, errlen);
    if (acc.oom) {
        free(acc.pairs);
        tpErrorf(err, errlen, "out of memory");
        return TP_REPLAY_MISFIT;
    }
    if (r != TP_REPLAY_MATCH) {
        free(acc.pairs);
        return r;
    }
    *pairs = acc.pairs;
    *npairs = acc.n;
    return TP_REPLAY_MATCH;
}
