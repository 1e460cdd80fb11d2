/* `tplan replay --check`: the deepest overlap of every touching body pair over the replay
 * (tpDomain_CheckPenetration), printed deepest first, with the pairs that sank into static
 * geometry beyond the tolerance flagged ("physics that lies without a word"). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "tp/base.h"

static int by_depth(const void *pa, const void *pb)
{
    const tpPenetration *a = pa, *b = pb;
    if (a->depth != b->depth) {
        return a->depth > b->depth ? -1 : 1;
    }
    return a->a != b->a ? a->a - b->a : a->b - b->b; /* stable order for equal depths */
}

/* Over its limit: static pairs against the static limit, the others against the moving-body one
 * (a limit of 0 checks nothing). */
static bool over_limit(const tpPenetration *p, double static_tol, double body_tol)
{
    double tol = p->static_pair ? static_tol : body_tol;
    return tol > 0 && p->depth > tol;
}

int tpCli_ReplayCheck(tpDomain *domain, const tpPlanRecord *rec, int w, double static_tol, double body_tol, int show,
                      bool quiet, char *err, size_t errlen)
{
    tpPenetration *pairs = NULL;
    int n = 0;
    if (tpDomain_CheckPenetration(domain, rec, w, &pairs, &n, err, errlen) != TP_REPLAY_MATCH) {
        return -1;
    }
    if (n > 0) { /* qsort(NULL, 0) is undefined: a replay with no touching pair (UBSan) */
        qsort(pairs, (size_t)n, sizeof *pairs, by_depth);
    }
    const tpWorld *world = tpDomain_World(domain);
    int over = 0;
    for (int i = 0; i < n; ++i) {
        over += over_limit(&pairs[i], static_tol, body_tol);
    }
    if (!quiet) {
        printf("check world %d: %d touching pairs; deepest overlaps (limits: static geometry %g m, moving bodies %g "
               "m%s):\n",
               w, n, static_tol, body_tol, static_tol > 0 && body_tol > 0 ? "" : "; 0 = not checked");
        for (int i = 0; i < n && i < show; ++i) {
            const tpPenetration *p = &pairs[i];
            char pair[2 * TP_NAME_MAX + 4];
            snprintf(pair, sizeof pair, "%s - %s", tpWorld_Body(world, p->a)->name, tpWorld_Body(world, p->b)->name);
            printf("  %-40s %9.4f m  step %-6d%s%s\n", pair, p->depth, p->step,
                   p->static_pair ? "  static" : "  moving", over_limit(p, static_tol, body_tol) ? "  OVER LIMIT" : "");
        }
        if (n > show) {
            printf("  ... %d more pairs\n", n - show);
        }
        printf("check world %d: %d pair%s overlapped deeper than their limit\n", w, over, over == 1 ? "" : "s");
    }
    free(pairs);
    return over;
}
