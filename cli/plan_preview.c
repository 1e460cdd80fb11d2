/* tplan plan --preview FILE (docs/cli.md, "The preview file"): while the search runs, the best
 * world so far — the shallowest goal node once there is one, else the node of least unrest (a goal
 * that asks for rest), then least quality (the deepest when the domain has no quality) — is
 * written to FILE as the path from the root to it every time it changes (at most once per progress
 * call, and rate-limited to about 2.5 % of the run's time), and once more when the run ends. The
 * Blender add-on keys it on the artist's objects while planning. Quality and unrest are pure
 * functions of a state, so evaluating them here changes nothing in the search: the plan is the
 * same with or without --preview. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_validate.h"
#include "tp/base.h"
#include "tp/planner.h"
#include "tp/tactics.h"

/* Writes the path root..node to pv->path (a temporary file beside it, renamed: a reader never sees
 * half a file). False when it cannot be written (the run goes on; one warning). */
static bool write_preview(tpCliPreview *pv, const tpTree *tree, int32_t node, const tpPlanStats *s)
{
    const tpWorld *w = tpDomain_World(pv->run->domain);
    int nb = tpWorld_BodyCount(w);
    int32_t depth = tpTree_Node(tree, node)->depth;
    int32_t *path = malloc(sizeof *path * (size_t)(depth + 1));
    char tmp[4096];
    if (!path || snprintf(tmp, sizeof tmp, "%s.tmp", pv->path) >= (int)sizeof tmp) {
        free(path);
        return false;
    }
    for (int32_t i = node, k = depth; i >= 0 && k >= 0; i = tpTree_Node(tree, i)->parent, --k) {
        path[k] = i;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        free(path);
        return false;
    }
    fprintf(f, "{\"format\": \"tplan-preview\", \"version\": 1, \"elapsed\": %.6g, \"iterations\": %lld, ", s->elapsed,
            (long long)s->iterations);
    fprintf(f, "\"nodes\": %lld, \"solutions\": %d, \"goal\": %s, ", (long long)s->nodes, s->solutions,
            pv->best_goal ? "true" : "false");
    if (isfinite(pv->best_quality)) {
        fprintf(f, "\"quality\": %.17g, ", pv->best_quality);
    } else {
        fprintf(f, "\"quality\": null, ");
    }
    if (pv->best_goal) {
        fprintf(f, "\"unrest\": 0, ");
    } else {
        fprintf(f, "\"unrest\": %.17g, ", pv->best_unrest);
    }
    fprintf(f, "\"steps\": %d,\n \"bodies\": [", depth);
    int written = 0;
    for (int b = 0; b < nb; ++b) {
        const tpBodyDef *body = tpWorld_Body(w, b);
        if (body->cls == TP_BODY_STATIC) {
            continue;
        }
        fprintf(f, "%s\n  {\"name\": \"", written++ ? "," : "");
        for (const char *c = body->name; *c; ++c) { /* JSON string: escape quotes, backslashes, controls */
            if (*c == '"' || *c == '\\') {
                fprintf(f, "\\%c", *c);
            } else if ((unsigned char)*c < 0x20) {
                fprintf(f, "\\u%04x", (unsigned char)*c);
            } else {
                fputc(*c, f);
            }
        }
        fprintf(f, "\", \"origin\": [%.17g, %.17g, %.17g], \"trajectory\": [", body->mesh_origin[0],
                body->mesh_origin[1], body->mesh_origin[2]);
        for (int32_t k = 0; k <= depth; ++k) {
            const void *x = tpTree_State(tree, path[k]);
            tpBodyState st;
            tpWorld_BodyState(w, tpState_Bodies(x), tpState_Time(x), b, &st);
            fprintf(f, "%s[%.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g]", k ? ", " : "", st.pos[0], st.pos[1],
                    st.pos[2], st.quat[0], st.quat[1], st.quat[2], st.quat[3]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n]}\n");
    free(path);
    bool ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, pv->path) != 0) {
        remove(tmp);
        return false;
    }
    return true;
}

void tpCliPreview_Progress(tpCliPreview *pv, const tpPlanStats *s, bool last)
{
    if (pv->failed || !pv->run->planner || !pv->run->domain) {
        return;
    }
    const tpTree *tree = tpPlanner_Tree(pv->run->planner);
    tpProblem prob = tpDomain_Problem(pv->run->domain);
    int32_t n = tpTree_Count(tree);
    for (int32_t i = pv->scanned; i < n; ++i) {
        const tpNode *node = tpTree_Node(tree, i);
        if (node->flags & TP_NODE_GOAL) {
            if (!pv->best_goal || node->depth < tpTree_Node(tree, pv->best)->depth) {
                pv->best = i, pv->best_goal = true;
            }
            continue;
        }
        if (pv->best_goal) {
            continue;
        }
        /* as the approximate answer is chosen (docs/lua-api.md#fallbacks): the least unrest (a
           fallback judged at rest), then the least quality, then not the root, the deeper (the
           landed test, the busy flag and the shot's minimum are left out: the preview is a hint) */
        const void *x = tpTree_State(tree, i);
        double u = prob.unrest ? prob.unrest(prob.ctx, x) : 0;
        double q = prob.quality ? prob.quality(prob.ctx, x) : -(double)node->depth;
        if (!isfinite(u) || !isfinite(q)) {
            continue;
        }
        const bool tie = u == pv->best_unrest && q == pv->best_key; /* the root loses, the deeper wins */
        if (pv->best < 0 || u < pv->best_unrest || (u == pv->best_unrest && q < pv->best_key) ||
            (tie && (pv->best == 0 || node->depth > tpTree_Node(tree, pv->best)->depth))) {
            pv->best = i, pv->best_unrest = u, pv->best_key = q;
            pv->best_quality = prob.quality ? q : NAN;
        }
    }
    pv->scanned = n;
    TP_VALIDATE(tpCliPreview_Valid, pv);
    double now = tpClock_Now();
    if (pv->best < 0 || pv->best == pv->written || (!last && now < pv->next_write)) {
        return;
    }
    if (!write_preview(pv, tree, pv->best, s)) {
        tpLog(TP_LOG_WARN, "--preview: cannot write %s (planning goes on without it)", pv->path);
        pv->failed = true;
        return;
    }
    pv->written = pv->best;
    pv->count++;
    /* a long world of many bodies is megabytes of text: wait 39 times as long as this write took
       before the next one, so previews cost at most about 2.5 % of the run */
    double cost = tpClock_Now() - now;
    pv->next_write = now + cost * 40;
    TP_VALIDATE(tpCliPreview_Valid, pv);
}
