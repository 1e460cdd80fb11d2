/* Space-time navigation over moving surfaces (Lopez, Lamarche & Li 2011), the planning half: routes
 * over the graph of surfaces the space learnt (nav_space.c), the local space-time search on one
 * surface, and the agent that routes, plans, follows, waits and transfers. See tp/nav_space.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nav_space_internal.h"
#include "tp/base.h"
#include "tp/mathx.h"
#include "tp/nav.h"
#include "tp/util.h"

/* ------------------------------------------------------------------------------------------ */
/* Global planner                                                                              */

bool tpNavSpace_Route(tpNavSpace *sp, int from, int to, tpNavSpaceRoute *route)
{
    double t0 = tpClock_Now();
    route->nsurfaces = 0;
    route->cost = 0;
    bool ok = false;
    int n = sp->n;
    if (from < 0 || to < 0 || from >= n || to >= n)
        return false;
    for (int k = 0; k < n; k++) {
        sp->dist[k] = INFINITY;
        sp->prev[k] = -1;
        sp->done[k] = 0;
    }
    sp->dist[from] = 0;
    for (;;) { /* O(n^2 + E) Dijkstra: n <= 1024 surfaces, the edges scanned per settled node */
        int u = -1;
        for (int k = 0; k < n; k++)
            if (!sp->done[k] && sp->dist[k] < INFINITY && (u < 0 || sp->dist[k] < sp->dist[u]))
                u = k;
        if (u < 0 || u == to)
            break;
        sp->done[u] = 1;
        const int *row = &sp->edge_of[(size_t)u * (size_t)n];
        for (int v = 0; v < n; v++) {
            if (row[v] < 0 || sp->done[v])
                continue;
            double c = tpNavSpace_EdgeCost(sp, &sp->edges[row[v]]);
            if (c >= 0 && sp->dist[u] + c < sp->dist[v]) {
                sp->dist[v] = sp->dist[u] + c;
                sp->prev[v] = u;
            }
        }
    }
    if (sp->dist[to] < INFINITY) {
        int len = 0;
        for (int v = to; v >= 0; v = sp->prev[v])
            len++;
        if (len <= TP_NAV_ROUTE_MAX) {
            route->nsurfaces = len;
            route->cost = sp->dist[to];
            for (int v = to, k = len - 1; v >= 0; v = sp->prev[v], k--)
                route->surfaces[k] = v;
            ok = true;
        }
    }
    sp->stats.routes++;
    sp->stats.plan_ms += 1e3 * (tpClock_Now() - t0);
    return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* Local planner: space-time A* on a surface's grid                                             */

typedef struct tpSurfGrid {
    int nx, ny;
    double cx, cy; /* m, cell sizes */
    double sx, sy; /* m, standable half extents */
} tpSurfGrid;

static tpSurfGrid space_grid(const tpNavSpace *sp, int s)
{
    tpSurfGrid g;
    g.sx = sp->bodies[s].half[0] - sp->def.edge;
    g.sy = sp->bodies[s].half[1] - sp->def.edge;
    double nx = ceil(2 * g.sx / sp->def.cell), ny = ceil(2 * g.sy / sp->def.cell);
    g.nx = nx < 1 ? 1 : nx > 4096 ? 4096 : (int)nx;
    g.ny = ny < 1 ? 1 : ny > 4096 ? 4096 : (int)ny;
    g.cx = 2 * g.sx / g.nx;
    g.cy = 2 * g.sy / g.ny;
    return g;
}

static void cell_centre(const tpSurfGrid *g, int i, int j, double l[2])
{
    l[0] = -g->sx + (i + 0.5) * g->cx;
    l[1] = -g->sy + (j + 0.5) * g->cy;
}

static void cell_of(const tpSurfGrid *g, const double l[2], int *i, int *j)
{
    int a = (int)floor((l[0] + g->sx) / g->cx), b = (int)floor((l[1] + g->sy) / g->cy);
    *i = a < 0 ? 0 : a >= g->nx ? g->nx - 1 : a;
    *j = b < 0 ? 0 : b >= g->ny ? g->ny - 1 : b;
}

/* Is the character at local point l of surface s, `s_off` seconds after the last observation,
 * inside an obstacle related to s (linear extrapolation, clamped to the horizon)? */
static bool space_blocked(tpNavSpace *sp, int s, const double l[2], double s_off)
{
    double off = tpClamp(s_off, 0, sp->def.horizon);
    tpRect r = tpNavSpace_StandableRect(&sp->bodies[s], off, 0);
    double p[2];
    tpNavRect_ToWorld(&r, l, p);
    const int *ob = &sp->obst[(size_t)s * (size_t)sp->n];
    for (int k = 0; k < sp->nobst[s]; k++) {
        const tpNavSpaceBody *o = &sp->bodies[ob[k]];
        sp->stats.obstruction_tests++;
        double oz = o->center[2] + o->vel[2] * off;
        if (oz + o->half[2] <= r.top + sp->def.step_up || oz - o->half[2] >= r.top + sp->def.height)
            continue;
        tpRect f = tpNavSpace_StandableRect(o, off, 0);
        double q[2];
        if (tpNavRect_Closest(&f, p, q) < sp->def.radius)
            return true;
    }
    return false;
}

/* One obstructing body at one search tick: its footprint, z range and bounding box grown by the
 * character's radius (a cheap reject before the exact distance). */
typedef struct tpTickObs {
    tpRect f;
    double zlo, zhi; /* m */
    double box[4];   /* m: x min, x max, y min, y max */
} tpTickObs;

/* Makes room for the tick cache of a search on surface s with ticks 0..H (all marked not ready). */
static bool tick_prepare(tpNavSpace *sp, int s, int H)
{
    size_t nt = (size_t)H + 1, no = nt * (size_t)(sp->nobst[s] > 0 ? sp->nobst[s] : 1);
    if (no > sp->cap_tobs) {
        tpTickObs *o = realloc(sp->tobs, no * sizeof *o);
        if (!o)
            return false;
        sp->tobs = o;
        sp->cap_tobs = no;
    }
    if (nt > sp->cap_ticks) {
        tpRect *r = realloc(sp->tsurf, nt * sizeof *r);
        if (r)
            sp->tsurf = r;
        uint8_t *q = realloc(sp->tready, nt);
        if (q)
            sp->tready = q;
        if (!r || !q)
            return false;
        sp->cap_ticks = nt;
    }
    memset(sp->tready, 0, nt);
    return true;
}

/* space_blocked for search tick `tick` (clamped to H) at offset off0 + tick tau, with the
 * obstacles' extrapolated footprints computed once per tick. */
static bool tick_blocked(tpNavSpace *sp, int s, const double l[2], int tick, double off0, double tau, int H)
{
    int k = tick < H ? tick : H, nob = sp->nobst[s];
    const int *ob = &sp->obst[(size_t)s * (size_t)sp->n];
    tpTickObs *to = &sp->tobs[(size_t)k * (size_t)(nob > 0 ? nob : 1)];
    double r = sp->def.radius;
    if (!sp->tready[k]) {
        double off = tpClamp(off0 + k * tau, 0, sp->def.horizon);
        sp->tsurf[k] = tpNavSpace_StandableRect(&sp->bodies[s], off, 0);
        for (int m = 0; m < nob; m++) {
            const tpNavSpaceBody *o = &sp->bodies[ob[m]];
            tpTickObs *t = &to[m];
            t->f = tpNavSpace_StandableRect(o, off, 0);
            double oz = o->center[2] + o->vel[2] * off;
            t->zlo = oz - o->half[2];
            t->zhi = oz + o->half[2];
            double c = fabs(t->f.ax[0]), sn = fabs(t->f.ax[1]);
            double ex = c * t->f.h[0] + sn * t->f.h[1] + r, ey = sn * t->f.h[0] + c * t->f.h[1] + r;
            t->box[0] = t->f.c[0] - ex, t->box[1] = t->f.c[0] + ex;
            t->box[2] = t->f.c[1] - ey, t->box[3] = t->f.c[1] + ey;
        }
        sp->tready[k] = 1;
    }
    const tpRect *sr = &sp->tsurf[k];
    double p[2], q[2];
    tpNavRect_ToWorld(sr, l, p);
    double lo = sr->top + sp->def.step_up, hi = sr->top + sp->def.height;
    sp->stats.obstruction_tests += nob;
    for (int m = 0; m < nob; m++) {
        const tpTickObs *t = &to[m];
        if (t->zhi <= lo || t->zlo >= hi || p[0] <= t->box[0] || p[0] >= t->box[1] || p[1] <= t->box[2] ||
            p[1] >= t->box[3])
            continue;
        if (tpNavRect_Closest(&t->f, p, q) < r)
            return true;
    }
    return false;
}

bool tpNavSpace_Blocked(tpNavSpace *sp, int k, const double p[2], double ahead)
{
    if (!sp->observed || k < 0 || k >= sp->n || !tpNavSpace_Standable(sp, k))
        return true;
    return space_blocked(sp, k, p, ahead);
}

/* Grows the node pool. */
static bool space_nodes(tpNavSpace *sp, int need)
{
    if ((size_t)need <= sp->cap_nodes)
        return true;
    size_t c = tpArray_NextCap(sp->cap_nodes, (size_t)need, sizeof(double));
    int *cell = c ? tpArray_Resize(sp->n_cell, c, sizeof(int)) : NULL;
    if (cell)
        sp->n_cell = cell;
    int *tick = cell ? tpArray_Resize(sp->n_tick, c, sizeof(int)) : NULL;
    if (tick)
        sp->n_tick = tick;
    int *parent = tick ? tpArray_Resize(sp->n_parent, c, sizeof(int)) : NULL;
    if (parent)
        sp->n_parent = parent;
    double *g = parent ? tpArray_Resize(sp->n_g, c, sizeof(double)) : NULL;
    if (!g)
        return false;
    sp->n_g = g;
    sp->cap_nodes = c;
    return true;
}

void tpNavSpacePath_Free(tpNavSpacePath *path)
{
    free(path->points);
    memset(path, 0, sizeof *path);
}

static bool path_reserve(tpNavSpacePath *path, int n)
{
    size_t cap = (size_t)path->capacity;
    double *p = tpArray_Grow(path->points, &cap, (size_t)n, 3 * sizeof(double));
    if (!p)
        return false;
    path->points = p;
    path->capacity = cap > INT32_MAX ? INT32_MAX : (int)cap; /* n is an int: it always fits */
    return true;
}

bool tpNavSpace_PlanLocal(tpNavSpace *sp, int s, const double start[2], double t, const double goal[2],
                          const int *edges, int nedges, tpNavSpacePath *path)
{
    double clock0 = tpClock_Now(), blocked_s = 0;
    long long ntests = 0;
    bool ok = false;
    path->npoints = 0;
    path->expanded = 0;
    path->surface = s;
    if (!sp->observed || s < 0 || s >= sp->n || !tpNavSpace_Standable(sp, s))
        return false;
    const tpNavSpaceDef *d = &sp->def;
    tpSurfGrid g = space_grid(sp, s);
    int ncells = g.nx * g.ny;
    double tau = d->cell / d->speed;
    int H = (int)ceil(d->horizon / tau);
    int *target_of = tpArray_Grow(sp->target_of, &sp->cap_cells, (size_t)ncells, sizeof(int));
    if (!target_of)
        return false;
    sp->target_of = target_of;
    size_t bits = (size_t)ncells * (size_t)(H + 1), bytes = (bits + 7) / 8;
    if (bytes > sp->cap_closed) {
        uint8_t *c = realloc(sp->closed, bytes);
        if (!c)
            return false;
        sp->closed = c;
        sp->cap_closed = bytes;
    }
    memset(sp->closed, 0, bytes);
    /* targets, and their cells for the heuristic (at most 64 kept: the heuristic is the minimum
       Manhattan distance over them, and stays admissible over a subset only if all are listed) */
    for (int k = 0; k < ncells; k++)
        sp->target_of[k] = -2;
    int tcell[256], nt = 0;
    bool overflow = false;
    if (goal) {
        int i, j;
        cell_of(&g, goal, &i, &j);
        sp->target_of[j * g.nx + i] = -1;
        tcell[nt++] = j * g.nx + i;
    }
    for (int e = 0; e < nedges; e++) {
        const tpNavSpaceEdge *ed = &sp->edges[edges[e]];
        double rad = 1.5 * fmax(g.cx, g.cy);
        int i0, j0, i1, j1;
        double lo[2] = {ed->access[0] - rad, ed->access[1] - rad}, hi[2] = {ed->access[0] + rad, ed->access[1] + rad};
        cell_of(&g, lo, &i0, &j0);
        cell_of(&g, hi, &i1, &j1);
        for (int j = j0; j <= j1; j++)
            for (int i = i0; i <= i1; i++) {
                double c[2];
                cell_centre(&g, i, j, c);
                int ai, aj;
                cell_of(&g, ed->access, &ai, &aj);
                if ((i != ai || j != aj) && hypot(c[0] - ed->access[0], c[1] - ed->access[1]) > rad)
                    continue;
                if (sp->target_of[j * g.nx + i] == -2) {
                    sp->target_of[j * g.nx + i] = edges[e];
                    if (nt < 256)
                        tcell[nt++] = j * g.nx + i;
                    else
                        overflow = true;
                }
            }
    }
    if (nt == 0 || !tick_prepare(sp, s, H))
        return false;
    int si, sj;
    cell_of(&g, start, &si, &sj);
    int nnodes = 0, found = -1;
    tpBucketQueue_Clear(&sp->open);
    if (!space_nodes(sp, 1024))
        goto done;
    {
        double off0 = t - sp->t;
        sp->n_cell[0] = sj * g.nx + si;
        sp->n_tick[0] = 0;
        sp->n_parent[0] = -1;
        sp->n_g[0] = 0;
        nnodes = 1;
        if (!tpBucketQueue_Push(&sp->open, 0, 0))
            goto done;
        while (sp->open.len > 0) {
            int u = tpBucketQueue_Pop(&sp->open); /* what a (key, id) heap pops: ids rise */
            int cu = sp->n_cell[u], tu = sp->n_tick[u];
            size_t key = (size_t)cu * (size_t)(H + 1) + (size_t)(tu < H ? tu : H);
            if (sp->closed[key >> 3] & (1u << (key & 7)))
                continue;
            sp->closed[key >> 3] |= (uint8_t)(1u << (key & 7));
            path->expanded++;
            if (sp->target_of[cu] != -2) {
                found = u;
                break;
            }
            if (path->expanded >= d->max_nodes)
                break;
            int ui = cu % g.nx, uj = cu / g.nx;
            static const int di[5] = {0, 1, -1, 0, 0}, dj[5] = {0, 0, 0, 1, -1};
            for (int m = 0; m < 5; m++) {
                int vi = ui + di[m], vj = uj + dj[m];
                if (vi < 0 || vj < 0 || vi >= g.nx || vj >= g.ny)
                    continue;
                int cv = vj * g.nx + vi, tv = tu + 1;
                size_t kv = (size_t)cv * (size_t)(H + 1) + (size_t)(tv < H ? tv : H);
                if (sp->closed[kv >> 3] & (1u << (kv & 7)))
                    continue;
                double l[2];
                cell_centre(&g, vi, vj, l);
                /* the share of time in obstruction tests is sampled (one test in 16 timed, times 16):
                   a clock read around every test would cost as much as the test */
                bool blocked;
                if ((++ntests & 15) == 0) {
                    double b0 = tpClock_Now();
                    blocked = tick_blocked(sp, s, l, tv, off0, tau, H);
                    blocked_s += 16 * (tpClock_Now() - b0);
                } else {
                    blocked = tick_blocked(sp, s, l, tv, off0, tau, H);
                }
                if (blocked)
                    continue;
                if (!space_nodes(sp, nnodes + 1))
                    goto done;
                int h = INT32_MAX;
                for (int k = 0; k < nt && !overflow; k++) {
                    int ti = tcell[k] % g.nx, tj = tcell[k] / g.nx;
                    int md = abs(ti - vi) + abs(tj - vj);
                    if (md < h)
                        h = md;
                }
                if (overflow)
                    h = 0;
                sp->n_cell[nnodes] = cv;
                sp->n_tick[nnodes] = tv;
                sp->n_parent[nnodes] = u;
                sp->n_g[nnodes] = tv;
                if (!tpBucketQueue_Push(&sp->open, tv + h, nnodes))
                    goto done;
                nnodes++;
            }
        }
    }
    if (found >= 0) {
        int np = 0;
        for (int v = found; v >= 0; v = sp->n_parent[v])
            np++;
        if (!path_reserve(path, np + 1))
            goto done;
        int k = np - 1;
        for (int v = found; v >= 0; v = sp->n_parent[v], k--) {
            double l[2];
            cell_centre(&g, sp->n_cell[v] % g.nx, sp->n_cell[v] / g.nx, l);
            path->points[3 * k] = l[0];
            path->points[3 * k + 1] = l[1];
            path->points[3 * k + 2] = t + sp->n_tick[v] * tau;
        }
        path->points[0] = start[0];
        path->points[1] = start[1];
        path->npoints = np;
        path->target = sp->target_of[sp->n_cell[found]];
        /* end exactly on the goal or the access point (the cell centre is up to 1.5 cells off) */
        const double *end = path->target == -1 ? goal : sp->edges[path->target].access;
        double *last = &path->points[3 * (np - 1)];
        if (last[0] != end[0] || last[1] != end[1]) {
            double *q = &path->points[3 * np];
            q[0] = end[0], q[1] = end[1];
            q[2] = last[2] + hypot(end[0] - last[0], end[1] - last[1]) / d->speed;
            path->npoints = np + 1;
        }
        ok = true;
    }
done:
    sp->stats.plans++;
    sp->stats.expanded += path->expanded;
    sp->stats.obstruction_ms += 1e3 * blocked_s;
    sp->stats.plan_ms += 1e3 * (tpClock_Now() - clock0);
    return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* The agent: global route, local path, waiting, transfers, replanning                          */

const char *tpNavAgentMode_Name(tpNavAgentMode mode)
{
    static const char *const names[] = {"no route", "walk", "wait", "transfer", "done", "fell"};
    return (unsigned)mode < sizeof names / sizeof names[0] ? names[mode] : "?";
}

void tpNavSpaceAgent_Init(tpNavSpaceAgent *a, int surface, const double p[2], int goal_surface, const double goal[2],
                          double t)
{
    tpNavSpacePath keep = a->path;
    memset(a, 0, sizeof *a);
    a->path = keep;
    a->path.npoints = 0;
    a->surface = surface;
    a->local[0] = p[0], a->local[1] = p[1];
    a->goal_surface = goal_surface;
    a->goal[0] = goal[0], a->goal[1] = goal[1];
    a->t = t;
    a->edge = -1;
    a->mode = TP_NAV_AGENT_NO_ROUTE;
}

void tpNavSpaceAgent_Free(tpNavSpaceAgent *a)
{
    tpNavSpacePath_Free(&a->path);
}

/* Routes from the agent's surface and plans the local path to the goal or to the next edge's
 * access point. Leaves the agent in WALK, or NO_ROUTE when either level fails. */
static void agent_plan(tpNavSpace *sp, tpNavSpaceAgent *a)
{
    a->mode = TP_NAV_AGENT_NO_ROUTE;
    a->edge = -1;
    if (!tpNavSpace_Route(sp, a->surface, a->goal_surface, &a->route))
        return;
    bool ok;
    if (a->route.nsurfaces == 1) {
        ok = tpNavSpace_PlanLocal(sp, a->surface, a->local, a->t, a->goal, NULL, 0, &a->path);
    } else {
        int e = sp->edge_of[(size_t)a->surface * (size_t)sp->n + (size_t)a->route.surfaces[1]];
        ok = tpNavSpace_PlanLocal(sp, a->surface, a->local, a->t, NULL, &e, 1, &a->path);
    }
    if (ok) {
        a->mode = TP_NAV_AGENT_WALK;
        a->edge = a->path.target;
    }
}

tpNavRelation tpNavSpace_Transfer(const tpNavSpaceDef *d, const tpNavSpaceBody *from, const double p[2],
                                  const tpNavSpaceBody *to, const double land[2], double *duration, double landing[3])
{
    tpRect ri = tpNavSpace_StandableRect(from, 0, d->edge), rj = tpNavSpace_StandableRect(to, 0, d->edge);
    double P[2], W[2];
    tpNavRect_ToWorld(&ri, p, P);
    tpNavRect_ToWorld(&rj, land, W);
    double dz = rj.top - ri.top;
    tpNavRelation kind = tpNavSpace_Reach(d, hypot(W[0] - P[0], W[1] - P[1]), dz);
    if (!kind)
        return 0;
    double T = kind == TP_NAV_REL_JUMP ? tpNavSpace_JumpTime(d, dz)
                                       : fmax(hypot(W[0] - P[0], W[1] - P[1]), d->cell) / d->speed;
    if (T > d->horizon)
        return 0;
    /* the take-off is from where the character is now; the landing point is extrapolated */
    tpRect rjT = tpNavSpace_StandableRect(to, T, d->edge);
    double pt2[2];
    tpNavRect_ToWorld(&rjT, land, pt2);
    double dz2 = rjT.top - ri.top;
    kind = tpNavSpace_Reach(d, hypot(pt2[0] - P[0], pt2[1] - P[1]), dz2);
    if (kind == TP_NAV_REL_JUMP)
        T = tpNavSpace_JumpTime(d, dz2);
    if (duration)
        *duration = T;
    if (landing)
        landing[0] = pt2[0], landing[1] = pt2[1], landing[2] = rjT.top;
    return kind;
}

/* Starts the transfer along the agent's edge if it can be taken from where the agent stands now
 * (tpNavSpace_Transfer) and the landing point is not obstructed. */
static bool agent_try_transfer(tpNavSpace *sp, tpNavSpaceAgent *a)
{
    const tpNavSpaceDef *d = &sp->def;
    const tpNavSpaceEdge *e = &sp->edges[a->edge];
    int j = e->to;
    double T, land[3];
    tpNavRelation kind = tpNavSpace_Transfer(d, &sp->bodies[a->surface], a->local, &sp->bodies[j], e->land, &T, land);
    if (!kind || space_blocked(sp, j, e->land, T + (a->t - sp->t)))
        return false;
    double P[3], dz2 = land[2];
    tpNavSpace_ToWorld(sp, a->surface, a->local, P);
    dz2 -= P[2];
    a->mode = TP_NAV_AGENT_TRANSFER;
    a->tr_start[0] = P[0], a->tr_start[1] = P[1], a->tr_start[2] = P[2];
    a->tr_land[0] = land[0], a->tr_land[1] = land[1], a->tr_land[2] = land[2];
    a->tr_t0 = a->t;
    a->tr_time = T;
    a->tr_to = j;
    double vz = kind == TP_NAV_REL_JUMP
                    ? sqrt(fmin(d->jump_vz * d->jump_vz, d->land_speed * d->land_speed + 2 * d->gravity * dz2))
                    : 0;
    double peak = vz * vz / (2 * d->gravity); /* apex above the take-off */
    a->tr_apex = kind == TP_NAV_REL_JUMP ? fmax(0, peak - fmax(0, dz2) / 2) : 0;
    return true;
}

/* Local point of the agent's path at time t (clamped to its ends). */
static void path_at(const tpNavSpacePath *p, double t, double l[2])
{
    const double *q = p->points;
    int n = p->npoints;
    if (t <= q[2] || n == 1) {
        l[0] = q[0], l[1] = q[1];
        return;
    }
    for (int k = 0; k + 1 < n; k++) {
        const double *u = &q[3 * k], *v = &q[3 * k + 3];
        if (t < v[2]) {
            double s = v[2] > u[2] ? (t - u[2]) / (v[2] - u[2]) : 1;
            l[0] = u[0] + s * (v[0] - u[0]);
            l[1] = u[1] + s * (v[1] - u[1]);
            return;
        }
    }
    l[0] = q[3 * (n - 1)], l[1] = q[3 * (n - 1) + 1];
}

/* True if the rest of the path within check_time of now is obstructed at the latest observation. */
static bool agent_path_blocked(tpNavSpace *sp, const tpNavSpaceAgent *a)
{
    const tpNavSpacePath *p = &a->path;
    for (int k = 0; k < p->npoints; k++) {
        const double *q = &p->points[3 * k];
        if (q[2] <= a->t)
            continue;
        if (q[2] > a->t + sp->def.check_time)
            break;
        if (space_blocked(sp, a->surface, q, q[2] - sp->t))
            return true;
    }
    return false;
}

tpNavAgentMode tpNavSpaceAgent_Step(tpNavSpace *sp, tpNavSpaceAgent *a, double t)
{
    if (!sp->observed || !(t > a->t))
        return a->mode;
    double dt = t - a->t;
    a->t = t;
    switch (a->mode) {
    case TP_NAV_AGENT_NO_ROUTE:
        agent_plan(sp, a);
        break;
    case TP_NAV_AGENT_WALK: {
        path_at(&a->path, t, a->local);
        const double *last = &a->path.points[3 * (a->path.npoints - 1)];
        if (t >= last[2]) {
            if (a->path.target == -1) {
                a->mode = TP_NAV_AGENT_DONE;
            } else {
                a->mode = TP_NAV_AGENT_WAIT;
                a->edge = a->path.target;
                agent_try_transfer(sp, a);
            }
        } else if (agent_path_blocked(sp, a)) {
            a->replans++;
            agent_plan(sp, a);
        }
        break;
    }
    case TP_NAV_AGENT_WAIT:
        a->wait_time += dt;
        if (!agent_try_transfer(sp, a) && tpNavSpace_EdgeCost(sp, &sp->edges[a->edge]) < 0)
            agent_plan(sp, a); /* the relation was discarded meanwhile: route again */
        break;
    case TP_NAV_AGENT_TRANSFER: {
        double s = (t - a->tr_t0) / a->tr_time;
        if (s < 1) {
            for (int k = 0; k < 3; k++)
                a->pos[k] = a->tr_start[k] + s * (a->tr_land[k] - a->tr_start[k]);
            a->pos[2] += 4 * a->tr_apex * s * (1 - s);
            return a->mode;
        }
        /* landing: on the face as it is now (not as it was extrapolated)? */
        tpRect r = tpNavSpace_StandableRect(&sp->bodies[a->tr_to], 0, 0);
        double l[2];
        tpNavRect_ToLocal(&r, a->tr_land, l);
        if (fabs(l[0]) <= r.h[0] && fabs(l[1]) <= r.h[1] && fabs(r.top - a->tr_land[2]) <= sp->def.step_up) {
            a->surface = a->tr_to;
            a->local[0] = l[0], a->local[1] = l[1];
            a->transfers++;
            agent_plan(sp, a);
        } else {
            a->mode = TP_NAV_AGENT_FELL;
            for (int k = 0; k < 3; k++)
                a->pos[k] = a->tr_land[k];
            return a->mode;
        }
        break;
    }
    case TP_NAV_AGENT_DONE:
    case TP_NAV_AGENT_FELL:
        break;
    }
    if (a->mode != TP_NAV_AGENT_FELL)
        tpNavSpace_ToWorld(sp, a->surface, a->local, a->pos);
    return a->mode;
}
