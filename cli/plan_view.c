/* tplan plan --view: shows the search tree growing while the planner runs, then plays the plan.
 *
 * Single-threaded: the planner's progress callback (on the planner's own thread, between two
 * iterations) copies the nodes added since the last call into a tree record, uploads it and draws
 * one frame. Nothing runs concurrently with the planner, and the planner's result does not depend
 * on the callback (it only reads the tree), so plans stay byte-identical with and without --view. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_validate.h"
#include "tp/base.h"
#include "tp/util.h"

#if TP_HAVE_VIEWER
/* Appends the tree nodes not yet in live->tr (positions of every non-static body). */
static bool sync_tree(tpCliLive *live, const tpTree *tree)
{
    const tpWorld *w = tpDomain_World(live->run->domain);
    tpTreeRecord *tr = &live->tr;
    if (!live->bodies) {
        int nb = tpWorld_BodyCount(w);
        live->bodies = calloc((size_t)(nb > 0 ? nb : 1), sizeof *live->bodies);
        tr->body_names = calloc((size_t)(nb > 0 ? nb : 1), sizeof *tr->body_names);
        if (!live->bodies || !tr->body_names) {
            return false;
        }
        for (int b = 0; b < nb; ++b) {
            if (tpWorld_Body(w, b)->cls != TP_BODY_STATIC) {
                live->bodies[tr->nbodies] = b;
                tr->body_names[tr->nbodies++] = (char *)tpWorld_Body(w, b)->name; /* borrowed */
            }
        }
    }
    int64_t n = tpTree_Count(tree);
    if (n > live->cap) {
        int nbs = tr->nbodies > 0 ? tr->nbodies : 1;
        size_t cap = tpArray_NextCap((size_t)live->cap, (size_t)n, (size_t)nbs * 3 * sizeof(float));
        int32_t *parent = cap ? tpArray_Resize(tr->parent, cap, sizeof *parent) : NULL;
        if (parent) {
            tr->parent = parent;
        }
        uint8_t *flags = cap ? tpArray_Resize(tr->flags, cap, 1) : NULL;
        if (flags) {
            tr->flags = flags;
        }
        float *pos = cap ? tpArray_Resize(tr->pos, cap, (size_t)nbs * 3 * sizeof *pos) : NULL;
        if (pos) {
            tr->pos = pos;
        }
        if (!parent || !flags || !pos) {
            return false;
        }
        live->cap = (int64_t)cap;
    }
    for (int64_t i = tr->nnodes; i < n; ++i) {
        const tpNode *nd = tpTree_Node(tree, (int32_t)i);
        tr->parent[i] = nd->parent;
        tr->flags[i] = (uint8_t)(((nd->flags & TP_NODE_BUSY) ? 1 : 0) | ((nd->flags & TP_NODE_GOAL) ? 2 : 0));
        const void *x = tpTree_State(tree, (int32_t)i);
        for (int k = 0; k < tr->nbodies; ++k) {
            tpBodyState s;
            tpWorld_BodyState(w, tpState_Bodies(x), tpState_Time(x), live->bodies[k], &s);
            for (int c = 0; c < 3; ++c) {
                tr->pos[((size_t)i * (size_t)tr->nbodies + (size_t)k) * 3 + (size_t)c] = (float)s.pos[c];
            }
        }
    }
    tr->nnodes = n;
    return true;
}

/* Opens the window on a record of the bodies at their initial state (the root node's path). */
static bool open_live(tpCliLive *live, const tpTree *tree, const tpPlanStats *s)
{
    tpPlanResult fake;
    memset(&fake, 0, sizeof fake);
    fake.status = TP_PLAN_APPROXIMATE;
    fake.best = 0;
    fake.best_solution = -1;
    fake.stats = *s;
    char err[1024];
    if (!tpDomain_Record(live->run->domain, tree, &fake, &live->run->pd, &live->rec, err, sizeof err)) {
        tpLog(TP_LOG_WARN, "--view: %s", err);
        return false;
    }
    live->rec.domain_file = strdup(live->domain_file);
    live->lv = tpCreateLiveView(&live->rec, &live->def, err, sizeof err);
    if (!live->lv) {
        tpLog(TP_LOG_WARN, "--view: %s (planning continues without the window)", err);
        return false;
    }
    return true;
}

void tpCliLive_Progress(tpCliLive *live, const tpPlanStats *s)
{
    if (live->failed) {
        return;
    }
    /* Keep redrawing under ~2.5 % of the run (the X server and the renderer's threads cost more
       than the callback measures) by waiting
       39 times as long as the last redraw took before the next one (events are still handled). */
    double now = tpClock_Now();
    if (live->lv && now < live->next_update) {
        if (!tpLiveView_Poll(live->lv)) {
            live->failed = true;
        }
        return;
    }
    const tpTree *tree = tpPlanner_Tree(live->run->planner);
    if (!live->lv && !open_live(live, tree, s)) {
        live->failed = true;
        return;
    }
    if (!sync_tree(live, tree)) {
        tpLog(TP_LOG_WARN, "--view: out of memory for the live tree");
        live->failed = true;
        return;
    }
    snprintf(live->status, sizeof live->status, "planning: %.1f s  %lld iterations  %lld nodes  %d solution%s",
             s->elapsed, (long long)s->iterations, (long long)s->nodes, s->solutions, s->solutions == 1 ? "" : "s");
    TP_VALIDATE(tpCliLive_Valid, live);
    if (!tpLiveView_Update(live->lv, &live->tr, live->status)) {
        live->failed = true; /* the window was closed: keep planning, show nothing more */
    }
    double cost = tpClock_Now() - now;
    live->next_update = now + (cost * 40 > 0.25 ? cost * 40 : 0.25);
}

void tpCliLive_Finish(tpCliLive *live, const tpPlanRecord *rec, const tpTree *tree, const tpPlanResult *res)
{
    if (live->failed) {
        return;
    }
    char err[1024];
    if (!live->lv) { /* the run ended before the first progress report */
        live->lv = tpCreateLiveView(rec, &live->def, err, sizeof err);
        if (!live->lv) {
            tpLog(TP_LOG_WARN, "--view: %s", err);
            return;
        }
    }
    if (!sync_tree(live, tree)) {
        tpLog(TP_LOG_WARN, "--view: out of memory for the tree");
        tpLiveView_Play(live->lv, rec, NULL);
        return;
    }
    if (res->best >= 0) { /* mark the chosen branch, as in the tree file */
        for (int32_t i = res->best; i >= 0; i = tpTree_Node(tree, i)->parent) {
            live->tr.flags[i] |= 4;
        }
    }
    tpLiveView_Play(live->lv, rec, &live->tr);
}

#else
/* A build without the viewer (TP_VIEWER=OFF) refuses `plan --view` while parsing the options
 * (cmd_plan.c), so a live view is never asked for; were it, it would say why there is no window. */
void tpCliLive_Progress(tpCliLive *live, const tpPlanStats *s)
{
    (void)s;
    if (!live->failed) {
        tpLog(TP_LOG_WARN, "--view: this tplan was built without the viewer (TP_VIEWER=OFF)");
    }
    live->failed = true;
}

void tpCliLive_Finish(tpCliLive *live, const tpPlanRecord *rec, const tpTree *tree, const tpPlanResult *res)
{
    (void)rec;
    (void)tree;
    (void)res;
    tpCliLive_Progress(live, NULL);
}

#endif

void tpCliLive_Free(tpCliLive *live)
{
#if TP_HAVE_VIEWER
    tpDestroyLiveView(live->lv);
#else
    TP_ASSERT(live->lv == NULL); /* none is ever made without the viewer */
#endif
    tpPlanRecord_Free(&live->rec);
    free(live->bodies);
    free(live->tr.body_names);
    free(live->tr.parent);
    free(live->tr.flags);
    free(live->tr.pos);
    memset(live, 0, sizeof *live);
}
