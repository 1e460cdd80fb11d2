/* Navigation invariants (after Box2D's b2ValidateSolverSets): each function walks
 * one of the module's data structures and returns false with the first broken rule in why. They
 * run through TP_INVARIANT (Debug and sanitizer builds only) after the operations that change the
 * structure: a grid search, a field's relaxation, a crowd step, a move tree's construction, a
 * space-time update. tests/core/test_nav_validate.c breaks every rule once. */
#include <math.h>
#include <stdlib.h>

#include "nav_internal.h"
#include "nav_space_internal.h"

/* Grids above this many cells have only their definition, open list and sampled cells checked
 * (the full walk is O(cells) after every search). */
#define NAV_VALID_FULL_CELLS (1 << 16)

bool tpNavOpen_Valid(const tpNavOpen *o, const int32_t *pos, size_t ncells, char *why, size_t cap)
{
    if (o->len > o->cap || (o->len > 0 && (!o->e || !pos))) {
        return tpBroken(why, cap, "open list: %zu entries in room for %zu", o->len, o->cap);
    }
    for (size_t i = 0; i < o->len; ++i) {
        const int32_t id = o->e[i].id;
        if (id < 0 || (size_t)id >= ncells) {
            return tpBroken(why, cap, "open list: entry %zu holds cell %d of %zu", i, id, ncells);
        }
        if (pos[id] != (int32_t)i) {
            return tpBroken(why, cap, "open list: cell %d is at entry %zu but its position says %d", id, i, pos[id]);
        }
        if (i > 0 && tpHeapSlot_Less(&o->e[i], &o->e[(i - 1) / 4])) {
            return tpBroken(why, cap, "open list: entry %zu is smaller than its parent %zu (heap order)", i,
                            (i - 1) / 4);
        }
    }
    return true;
}

/* Cell c of a grid whose scratch exists: the rules of a reached (open or closed) cell. */
static bool valid_reached(const tpNavGrid *g, int32_t c, size_t n, char *why, size_t cap)
{
    const uint8_t open = g->gen, closed = (uint8_t)(g->gen + 1);
    const uint8_t st = g->stamp[c];
    if (st > closed) {
        return tpBroken(why, cap, "grid: cell %d has stamp %u, newer than this search's %u", c, st, closed);
    }
    if (g->gen == 0 || (st != open && st != closed)) {
        return true; /* not reached by the last search: its g and parent are stale by design */
    }
    if (!(g->g[c] >= 0 && isfinite(g->g[c]))) {
        return tpBroken(why, cap, "grid: reached cell %d has cost %g", c, g->g[c]);
    }
    const int32_t p = g->parent[c];
    if (p != -1) {
        if (p < 0 || (size_t)p >= n || (g->stamp[p] != open && g->stamp[p] != closed)) {
            return tpBroken(why, cap, "grid: reached cell %d has parent %d, not a reached cell", c, p);
        }
        if (!(g->g[c] > g->g[p])) {
            return tpBroken(why, cap, "grid: cell %d costs %g, not more than its parent %d (%g)", c, g->g[c], p,
                            g->g[p]);
        }
        if (g->cells[c] != TP_NAV_FREE) {
            return tpBroken(why, cap, "grid: cell %d was reached through %d but is not free (flags %u)", c, p,
                            g->cells[c]);
        }
    }
    if (st == open && ((size_t)g->pos[c] >= g->open.len || g->open.e[g->pos[c]].id != c)) {
        return tpBroken(why, cap, "grid: cell %d is open but not held in the open list", c);
    }
    return true;
}

bool tpNavGrid_Valid(const tpNavGrid *g, char *why, size_t cap)
{
    const tpNavGridDef *d = &g->def;
    if (d->nx < 1 || d->ny < 1 || (long long)d->nx * d->ny > (1LL << 26) || !(d->cell > 0) || !isfinite(d->cell) ||
        !(d->radius >= 0) || !g->cells) {
        return tpBroken(why, cap, "grid: definition nx %d, ny %d, cell %g, radius %g (cells %s)", d->nx, d->ny, d->cell,
                        d->radius, g->cells ? "set" : "NULL");
    }
    const size_t n = (size_t)d->nx * (size_t)d->ny;
    const size_t stride = n > NAV_VALID_FULL_CELLS ? n / NAV_VALID_FULL_CELLS + 1 : 1;
    for (size_t c = 0; c < n; c += stride) {
        if (g->cells[c] > TP_NAV_GROWN) {
            return tpBroken(why, cap, "grid: cell %zu has flags %u (free, obstacle or grown expected)", c, g->cells[c]);
        }
    }
    if (!g->scratch) {
        if (g->open.len != 0 || g->gen != 0) {
            return tpBroken(why, cap, "grid: no search scratch but generation %u and %zu open cells", g->gen,
                            g->open.len);
        }
        return true;
    }
    const size_t bytes = n * (sizeof *g->g + sizeof *g->parent + sizeof *g->pos + sizeof *g->stamp);
    if (g->scratch_bytes != bytes || (void *)g->g != g->scratch || g->parent != (int32_t *)(g->g + n) ||
        g->pos != g->parent + n || g->stamp != (uint8_t *)(g->pos + n)) {
        return tpBroken(why, cap, "grid: search scratch of %zu bytes laid out for %zu", g->scratch_bytes, bytes);
    }
    if ((g->gen & 1) || g->gen > 254) {
        return tpBroken(why, cap, "grid: generation %u (even, at most 254)", g->gen);
    }
    if (!tpNavOpen_Valid(&g->open, g->pos, n, why, cap)) {
        return false;
    }
    size_t nopen = 0;
    for (size_t c = 0; c < n; c += stride) {
        if (!valid_reached(g, (int32_t)c, n, why, cap)) {
            return false;
        }
        nopen += g->gen > 0 && g->stamp[c] == g->gen;
    }
    if (stride == 1 && nopen != g->open.len) {
        return tpBroken(why, cap, "grid: %zu cells stamped open, %zu in the open list", nopen, g->open.len);
    }
    return true;
}

bool tpNavField_Valid(const tpNavField *f, char *why, size_t cap)
{
    if (f->nx < 1 || f->ny < 1 || !(f->cell > 0) || !f->kind || !f->u) {
        return tpBroken(why, cap, "field: %d x %d cells of %g m (kind %s, u %s)", f->nx, f->ny, f->cell,
                        f->kind ? "set" : "NULL", f->u ? "set" : "NULL");
    }
    if (f->iters < 0 || !(f->residual >= 0)) {
        return tpBroken(why, cap, "field: %d iterations, residual %g", f->iters, f->residual);
    }
    size_t ngoals = 0;
    for (size_t c = 0, n = (size_t)f->nx * (size_t)f->ny; c < n; ++c) {
        const double u = f->u[c];
        switch (f->kind[c]) {
        case F_GOAL:
            ngoals++;
            if (u != 1.0) {
                return tpBroken(why, cap, "field: goal cell %zu has closeness %g (1 expected)", c, u);
            }
            break;
        case F_WALL:
        case F_CUT:
            if (u != 0.0) {
                return tpBroken(why, cap, "field: %s cell %zu has closeness %g (0 expected)",
                                f->kind[c] == F_WALL ? "wall" : "unconnected", c, u);
            }
            break;
        case F_FREE:
            if (!(u >= 0 && u <= 1.0)) { /* harmonic: between its boundary values (deep dead ends may underflow) */
                return tpBroken(why, cap, "field: free cell %zu has closeness %g (in [0, 1] expected)", c, u);
            }
            break;
        default:
            return tpBroken(why, cap, "field: cell %zu has kind %u", c, f->kind[c]);
        }
    }
    if (ngoals == 0) {
        return tpBroken(why, cap, "field: no goal cell");
    }
    return true;
}

bool tpNavCrowd_Valid(const tpNavCrowd *c, char *why, size_t cap)
{
    if (!c->grid || c->n < 0 || (size_t)c->n > c->cap || (c->n > 0 && (!c->peds || !c->scratch || !c->others))) {
        return tpBroken(why, cap, "crowd: %d pedestrians in room for %zu", c->n, c->cap);
    }
    for (int k = 0; k < c->n; ++k) {
        const tpNavPed *p = &c->peds[k];
        if (p->goal < 0 || p->goal > p->def.ngoals) {
            return tpBroken(why, cap, "crowd: pedestrian %d is at goal %d of %d", k, p->goal, p->def.ngoals);
        }
        if (!isfinite(p->pos[0]) || !isfinite(p->pos[1]) || !(fabs(hypot(p->dir[0], p->dir[1]) - 1.0) < 1e-9)) {
            return tpBroken(why, cap, "crowd: pedestrian %d at (%g, %g) heading (%g, %g), not a unit direction", k,
                            p->pos[0], p->pos[1], p->dir[0], p->dir[1]);
        }
        if (p->has_local && (!p->local || !p->fixed)) {
            return tpBroken(why, cap, "crowd: pedestrian %d has a local map without its arrays", k);
        }
        if (!(p->speed_factor >= 0 && p->speed_factor <= 1)) {
            return tpBroken(why, cap, "crowd: pedestrian %d has speed factor %g (in [0, 1] expected)", k,
                            p->speed_factor);
        }
    }
    return true;
}

bool tpNavMoveTree_Valid(const tpNavMoveTree *t, char *why, size_t cap)
{
    const int nl = t->def.nlevels;
    if (nl < 1 || nl > 8 || t->nclips < 0 || (t->nclips > 0 && (!t->clips || !t->by_level))) {
        return tpBroken(why, cap, "move tree: %d levels, %d clips", nl, t->nclips);
    }
    if (t->start[0] != 0 || t->start[nl] != t->nclips) {
        return tpBroken(why, cap, "move tree: level index spans %d .. %d for %d clips", t->start[0], t->start[nl],
                        t->nclips);
    }
    for (int l = 0; l < nl; ++l) {
        if (t->start[l + 1] < t->start[l]) {
            return tpBroken(why, cap, "move tree: level %d starts at %d after level %d's %d", l + 1, t->start[l + 1], l,
                            t->start[l]);
        }
        for (int i = t->start[l]; i < t->start[l + 1]; ++i) {
            const int k = t->by_level[i];
            if (k < 0 || k >= t->nclips || t->clips[k].from != l) {
                return tpBroken(why, cap, "move tree: level %d lists clip %d, which does not start there", l, k);
            }
        }
    }
    for (int k = 0; k < t->nclips; ++k) {
        const tpNavClip *c = &t->clips[k];
        if (c->from < 0 || c->from >= nl || c->to < 0 || c->to >= nl || abs(c->to - c->from) > 2) {
            return tpBroken(why, cap, "move tree: clip %d goes from level %d to %d of %d", k, c->from, c->to, nl);
        }
        if (c->nframes < 1 || c->nframes > TP_NAV_CLIP_FRAMES) {
            return tpBroken(why, cap, "move tree: clip %d has %d frames", k, c->nframes);
        }
        for (int f = 0; f < c->nframes; ++f) {
            if (hypot(c->frame[f][0] - c->bound[0], c->frame[f][1] - c->bound[1]) > c->bound[2] * (1 + 1e-12)) {
                return tpBroken(why, cap, "move tree: clip %d frame %d lies outside its bounding circle", k, f);
            }
        }
        const double span = c->nframes * t->def.frame_dt;
        const double end = hypot(c->frame[c->nframes - 1][0], c->frame[c->nframes - 1][1]);
        if (end > t->top_speed * span * (1 + 1e-12) || c->nframes * t->def.frame_dt > t->level_span[c->from] ||
            hypot(c->bound[0], c->bound[1]) + c->bound[2] > t->level_reach[c->from] * (1 + 1e-12)) {
            return tpBroken(why, cap, "move tree: clip %d moves beyond the tree's top speed or its level's bounds", k);
        }
    }
    return true;
}

bool tpNavSpace_Valid(const tpNavSpace *sp, char *why, size_t cap)
{
    const int n = sp->n;
    if (n < 0 || (n > 0 && (!sp->bodies || !sp->edge_of || !sp->nobst || !sp->obst)) || sp->nedges < 0 ||
        (size_t)sp->nedges > sp->cap_edges || (sp->nedges > 0 && !sp->edges)) {
        return tpBroken(why, cap, "space: %d bodies, %d edges in room for %zu", n, sp->nedges, sp->cap_edges);
    }
    if (sp->nupdates < 0 || (sp->observed ? !(sp->t >= sp->t_first) : sp->nupdates != 0)) {
        return tpBroken(why, cap, "space: %lld updates, observed %d, t %g after first %g", sp->nupdates, sp->observed,
                        sp->t, sp->t_first);
    }
    int indexed = 0;
    for (size_t k = 0; k < (size_t)n * (size_t)n; ++k) {
        const int e = sp->edge_of[k];
        if (e == -1) {
            continue;
        }
        if (e < 0 || e >= sp->nedges || (size_t)sp->edges[e].from * (size_t)n + (size_t)sp->edges[e].to != k) {
            return tpBroken(why, cap, "space: pair (%zu, %zu) indexes edge %d of %d, which joins others", k / (size_t)n,
                            k % (size_t)n, e, sp->nedges);
        }
        indexed++;
    }
    if (indexed != sp->nedges) {
        return tpBroken(why, cap, "space: %d of %d edges are indexed by their pair", indexed, sp->nedges);
    }
    for (int e = 0; e < sp->nedges; ++e) {
        const tpNavSpaceEdge *g = &sp->edges[e];
        if (g->from < 0 || g->from >= n || g->to < 0 || g->to >= n || g->from == g->to) {
            return tpBroken(why, cap, "space: edge %d joins %d and %d of %d bodies", e, g->from, g->to, n);
        }
        if (g->nvalid < 0 || g->ninvalid < 0 || g->nvalid > g->periods || g->nspeed < 0 || !(g->mean_valid >= 0) ||
            !(g->mean_invalid >= 0) || (g->stable && !g->valid) || (sp->observed && g->since > sp->t)) {
            return tpBroken(why, cap,
                            "space: edge %d's history (%d periods, %d valid, %d gaps, stable %d, valid %d, since %g)",
                            e, g->periods, g->nvalid, g->ninvalid, g->stable, g->valid, g->since);
        }
    }
    for (int s = 0; s < n; ++s) {
        if (sp->nobst[s] < 0 || sp->nobst[s] > n) {
            return tpBroken(why, cap, "space: surface %d has %d obstructions of %d bodies", s, sp->nobst[s], n);
        }
        for (int i = 0; i < sp->nobst[s]; ++i) {
            const int o = sp->obst[(size_t)s * (size_t)n + (size_t)i];
            if (o < 0 || o >= n || o == s) {
                return tpBroken(why, cap, "space: surface %d is obstructed by body %d", s, o);
            }
        }
    }
    return true;
}
