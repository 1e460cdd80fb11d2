/* Navigation overlays of a recording: replays the selected solution's steps through the
 * navigation skills with an overlay sink (tpSkillCall.overlay), so that they emit the grids,
 * paths, fields, local maps and search trees they computed while planning. Planning itself never
 * sets the sink, so its cost and results are unchanged.
 *
 * Step i of the solution goes from node path[i] to path[i+1]: the skill call saw the bodies of
 * path[i] and left its variables V in path[i+1]; it was fresh when the tactic was not busy (or not
 * started) in path[i]. The replayed call gets those V (the skills do not sample again while
 * recording) and a scratch action, so nothing in the plan changes. Only NAV_TO, FOLLOW_PATH,
 * FOLLOW_FIELD and DRIVE_TRACK are replayed: other kinds (and host skills) emit nothing and are
 * never called. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "domain_internal.h"

/* A local map is kept every WINDOW_EVERY_S seconds of a segment (the viewer shows the latest). */
#define WINDOW_EVERY_S 0.25

static bool emits(tpSkillKind kind)
{
    return kind == TP_SKILL_NAV_TO || kind == TP_SKILL_FOLLOW_PATH || kind == TP_SKILL_FOLLOW_FIELD ||
           kind == TP_SKILL_DRIVE_TRACK;
}

bool tpDomain_RecordOverlays(const tpDomain *d, const tpTree *tree, int32_t leaf, tpPlanRecord *rec, char *err,
                             size_t errlen)
{
    bool any = false;
    for (int t = 0; t < d->ntactics && !any; ++t) {
        for (int s = 0; s < d->tactics[t].nskills && !any; ++s) {
            any = emits(d->tactics[t].skills[s].kind);
        }
    }
    if (!any || leaf < 0) {
        return true;
    }
    int len = tpTree_Path(tree, leaf, NULL, 0);
    int32_t *path = malloc(sizeof *path * (size_t)(len > 0 ? len : 1));
    double *action = calloc((size_t)tpWorld_ActionCount(d->world) + 1, sizeof *action);
    if (!path || !action) {
        free(path);
        free(action);
        tpErrorf(err, errlen, "out of memory while recording overlays");
        return false;
    }
    tpTree_Path(tree, leaf, path, len);
    tpOverlaySink sink;
    memset(&sink, 0, sizeof sink);
    double dt = d->def.scene.dt;
    sink.window_every = dt > 0 ? (int)fmax(1.0, lround(WINDOW_EVERY_S / dt)) : 1;
    int *seg_start = calloc((size_t)d->ntactics + 1, sizeof *seg_start);
    tpRng dummy; /* never drawn from: recording calls do not sample */
    tpRng_Seed(&dummy, 0);
    bool ok = seg_start != NULL;
    for (int i = 0; ok && i + 1 < len; ++i) {
        const void *xp = tpTree_State(tree, path[i]), *xc = tpTree_State(tree, path[i + 1]);
        tpStateView view = tpDomain_View(d, xp);
        for (int t = 0; t < d->ntactics; ++t) {
            const tpTacticState *tp = tpState_Tactic(d, xp, t), *tc = tpState_Tactic(d, xc, t);
            bool fresh = !tp->started || !tp->busy;
            if (fresh) {
                tpOverlaySink_Close(&sink, t, i - 1);
                seg_start[t] = i;
            }
            const tpTacticDef *tac = &d->tactics[t];
            if (tc->sigma < 0 || tc->sigma >= tac->nskills || !emits(tac->skills[tc->sigma].kind)) {
                continue;
            }
            double V[TP_SKILL_VARS] = {0};
            memcpy(V, tc->V, sizeof(double) * (size_t)d->tac_nv[t]);
            sink.tactic = t;
            sink.step = i;
            sink.seg_start = seg_start[t];
            tpSkillCall call = {d->world, view.bodies, view.t, dt,     NULL,  0,
                                &dummy,   fresh,       V,      action, &sink, d->skill_cache,
                                0 /* no step id: nothing shared between the recorded calls */};
            tpSkill_Run(&tac->skills[tc->sigma], &call);
        }
    }
    tpOverlaySink_Close(&sink, -1, len - 2);
    free(seg_start);
    free(path);
    free(action);
    if (!ok || !tpOverlaySink_Take(&sink, rec)) {
        tpOverlaySink_Free(&sink);
        tpErrorf(err, errlen, "out of memory while recording overlays");
        return false;
    }
    return true;
}
