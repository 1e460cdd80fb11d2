/* tplan physics: position projection of the overlap a quickstep solve leaves (step.c calls it
 * after every substep's solve, solver "quickstep").
 *
 * Projected Gauss-Seidel without warm starting (ODE's quickstep) does not converge in a pile:
 * after its sweeps the bottom contacts carry less than the weight above them, the pile sinks into
 * itself every substep, and ODE's error reduction (erp depth / h, a velocity) pushes back only
 * part of it; a layer landing on the one below closes more than its speculative contacts allow.
 * 100 cubes dropped into a 0.8 m bin rested 10.9 mm deep and reached 10-19 mm on landing (six
 * drops; 50 sweeps: 3.2 mm at rest, at twice the cost). This pass removes what the solve left
 * beyond TP_PROJECT_SLOP at the position level, as Box2D (v2's position constraints) and Bullet
 * (split impulses) do, with ODE's own colliders: every candidate pair is collided at the poses the
 * solve ended with, its moving geoms grown by TP_PROJECT_MARGIN so that pairs a push may close
 * are seen too, and a few Gauss-Seidel sweeps over those contacts move the bodies apart along each
 * normal, mass-weighted, by translation only. A turn was tried and dropped: ODE reports a tilted
 * box's contact as one corner, and turning the box about it drove the next corner in (2 mm by the
 * contact's own measure, 6.7 mm by the collider's after the pass). No velocity changes, so no
 * kinetic energy is made. Static geometry, sleepers and scripted bodies do not move, and neither
 * does a jointed body, a body touching a sleeper or a scripted body, or one solved exactly in a
 * stiff island (step.c).
 *
 * The pass runs when the substep's start had a contact deeper than the slop or a fast body
 * (speculative contacts): a resting pile that does not sink, a rolling ball, a sliding box cost
 * nothing. Deterministic: the pairs are sorted, the contacts in canonical order, and everything
 * is a function of the poses. */
#include "world_internal.h"

#include "tp/base.h"
#include "tp/util.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* m: overlap left to the solve (ODE's 1 mm surface layer, plus what its erp removes in a few steps) */
#define TP_PROJECT_SLOP 0.002
#define TP_PROJECT_MARGIN 0.003 /* m: how much a moving geom grows for the pass's collision */
#define TP_PROJECT_MAX 0.01     /* m: largest push of one contact in one sweep */
#define TP_PROJECT_SWEEPS 8     /* sweeps over the contacts at most (a sweep that moves nothing ends it) */

/* One contact at the poses after the solve. */
typedef struct tpProjContact {
    int a, b;     /* body indices, a < b */
    double n[3];  /* unit normal: a separates along +n */
    double depth; /* m: the true overlap (the grown geoms' less the margins) when the pass began */
} tpProjContact;

/* A body the projection moves: dynamic, awake, not scripted. */
static bool movable(const tpBodyRt *r)
{
    return r->body != NULL && !r->asleep && r->state_slot >= 0;
}

/* Body i was solved by the Dantzig LCP in this substep (a stiff island: step.c find_stiff). */
static bool solved_exactly(const tpWorld *w, int i)
{
    return w->stiff_solved && w->island[i] == -1;
}

/* How much body i's geom grows for the pass (mesh hulls are not grown: their inflation rebuilds
 * the hull). */
static double margin_of(const tpWorld *w, int i)
{
    return movable(&w->rt[i]) && w->bodies[i].shape != TP_SHAPE_MESH ? TP_PROJECT_MARGIN : 0.0;
}

static bool reserve_proj(tpWorld *w, int n)
{
    if (n <= w->cap_proj)
        return true;
    size_t cap = tpArray_NextCap((size_t)w->cap_proj, (size_t)n, sizeof(tpProjContact));
    tpProjContact *p = cap > 0 && cap <= INT_MAX ? tpArray_Resize(w->proj, cap, sizeof *p) : NULL;
    if (p == NULL)
        return false;
    w->proj = p;
    w->cap_proj = (int)cap;
    return true;
}

static void grow_moving(tpWorld *w, bool grow)
{
    for (int k = 0; k < w->nstate; k++) {
        const int i = w->state_body[k];
        const double m = margin_of(w, i);
        if (m > 0.0)
            tpContacts_Inflate(w, i, grow ? m : 0.0);
    }
}

/* The contacts at the poses the solve ended with into w->proj, and which bodies are pinned. */
static void collide_now(tpWorld *w)
{
    grow_moving(w, true);
    tpContacts_PairsNow(w);
    w->nproj = 0;
    for (int p = 0; p < w->npairs; p++) {
        const int a = (int)(w->pairs[p] >> 32), b = (int)(w->pairs[p] & 0xffffffffu);
        w->rt[a].pinned = w->rt[b].pinned = false;
    }
    /* a jointed body moves with its joints' solve alone: a push would pull its joints apart */
    for (int j = 0; j < w->def.njoints; j++) {
        w->rt[w->joints[j].body_a].pinned = true;
        if (w->joints[j].body_b >= 0)
            w->rt[w->joints[j].body_b].pinned = true;
    }
    for (int p = 0; p < w->npairs; p++) {
        const int a = (int)(w->pairs[p] >> 32), b = (int)(w->pairs[p] & 0xffffffffu);
        tpBodyRt *ra = &w->rt[a], *rb = &w->rt[b];
        if (!movable(ra) && !movable(rb))
            continue;
        const int n = tpContacts_CollidePair(w, a, b);
        if (n <= 0)
            continue;
        /* a sleeper or a scripted body cannot be moved, and a body touching one is left alone too
           (it would be pushed to and fro between it and the floor); a stiff island's bodies were
           solved exactly */
        const bool a_stuck = ra->body != NULL && !movable(ra), b_stuck = rb->body != NULL && !movable(rb);
        ra->pinned = ra->pinned || b_stuck || solved_exactly(w, a);
        rb->pinned = rb->pinned || a_stuck || solved_exactly(w, b);
        if (a_stuck || b_stuck || !reserve_proj(w, w->nproj + n))
            continue;
        const double grown = margin_of(w, a) + margin_of(w, b);
        for (int k = 0; k < n; k++) {
            const dContactGeom *g = &w->cgeoms[k];
            tpProjContact *c = &w->proj[w->nproj++];
            c->a = a, c->b = b;
            memcpy(c->n, g->normal, sizeof c->n);
            c->depth = g->depth - grown;
        }
    }
    grow_moving(w, false);
}

/* How far body i moved along n since the pass began (0 if it cannot move). */
static double moved_along(const tpWorld *w, int i, const double n[3])
{
    const tpBodyRt *r = &w->rt[i];
    if (!movable(r))
        return 0.0;
    const dReal *x = dBodyGetPosition(r->body);
    const double *x0 = w->proj_start[r->state_slot];
    return (x[0] - x0[0]) * n[0] + (x[1] - x0[1]) * n[1] + (x[2] - x0[2]) * n[2];
}

static void shift(tpBodyRt *r, const double n[3], double d)
{
    const dReal *x = dBodyGetPosition(r->body);
    dBodySetPosition(r->body, x[0] + d * n[0], x[1] + d * n[1], x[2] + d * n[2]);
}

/* One Gauss-Seidel sweep; whether it moved anything. */
static bool sweep_once(tpWorld *w)
{
    bool pushed = false;
    for (int k = 0; k < w->nproj; k++) {
        const tpProjContact *c = &w->proj[k];
        tpBodyRt *ra = &w->rt[c->a], *rb = &w->rt[c->b];
        if (ra->pinned || rb->pinned)
            continue;
        /* translations keep every point of a body on its normal line: the overlap now is exact */
        const double depth = c->depth - (moved_along(w, c->a, c->n) - moved_along(w, c->b, c->n));
        if (!(depth > TP_PROJECT_SLOP))
            continue;
        const double ima = movable(ra) ? 1.0 / ra->mass : 0.0, imb = movable(rb) ? 1.0 / rb->mass : 0.0;
        if (!(ima + imb > 0.0))
            continue;
        const double d = fmin(depth - TP_PROJECT_SLOP, TP_PROJECT_MAX) / (ima + imb);
        if (ima > 0.0)
            shift(ra, c->n, d * ima);
        if (imb > 0.0)
            shift(rb, c->n, -d * imb);
        pushed = true;
    }
    return pushed;
}

/* Whether the substep may have left an overlap beyond the slop: a real contact that deep at its
 * start (a pile sinking, a body pressed in) or a fast body (speculative contacts: an impact). */
static bool needed(const tpWorld *w)
{
    if (w->npend > w->run[0])
        return true;
    for (int k = 0; k < w->run[0]; k++)
        if (w->pend[k].c.geom.depth > TP_PROJECT_SLOP)
            return true;
    return false;
}

void tpContacts_Project(tpWorld *w)
{
    if (!needed(w))
        return;
    collide_now(w);
    if (w->nproj == 0)
        return;
    for (int k = 0; k < w->nstate; k++) {
        const tpBodyRt *r = &w->rt[w->state_body[k]];
        memcpy(w->proj_start[k], dBodyGetPosition(r->body), sizeof w->proj_start[k]);
    }
    for (int sweep = 0; sweep < TP_PROJECT_SWEEPS; sweep++)
        if (!sweep_once(w))
            break;
}
