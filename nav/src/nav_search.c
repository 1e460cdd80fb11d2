/* Grid search: 8-connected Dijkstra and A* (octile heuristic), path extraction and
 * line-of-sight smoothing. Binary heap with lazy deletion; per-search state is reset lazily with
 * a generation counter so repeated plans on one grid cost no O(cells) clearing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nav_internal.h"
#include "tp/util.h"
#include "tp/base.h"

tpNavPlanDef tpDefaultNavPlanDef(void)
{
    tpNavPlanDef d;
    memset(&d, 0, sizeof d);
    d.algo = TP_NAV_ASTAR;
    d.diag = 1.4;
    d.smooth = false;
    return d;
}

const char *tpNavResult_Name(tpNavResult r)
{
    switch (r) {
    case TP_NAV_OK:
        return "ok";
    case TP_NAV_NO_PATH:
        return "no path";
    case TP_NAV_START_BLOCKED:
        return "start blocked";
    case TP_NAV_GOAL_BLOCKED:
        return "goal blocked";
    }
    return "unknown";
}

void tpNavPath_Free(tpNavPath *p)
{
    free(p->cells);
    free(p->points);
    memset(p, 0, sizeof *p);
}

static bool ensureScratch(tpNavGrid *g)
{
    if (g->scratch) {
        return true;
    }
    const size_t n = (size_t)g->def.nx * (size_t)g->def.ny; /* <= 2^26 (tpNavGridDef) */
    const size_t bytes = n * (sizeof *g->g + sizeof *g->parent + sizeof *g->pos + sizeof *g->stamp);
    unsigned char *b = tpPages_Alloc(bytes);
    if (!b) {
        return false;
    }
    g->scratch = b;
    g->scratch_bytes = bytes;
    g->g = (double *)b; /* the widest first: every array stays aligned */
    g->parent = (int32_t *)(b + n * sizeof *g->g);
    g->pos = g->parent + n;
    g->stamp = (uint8_t *)(g->pos + n);
    memset(g->stamp, 0, n); /* 0: no generation yet */
    g->gen = 0;
    return true;
}

/* Starts a search: gen advances by 2 (open = gen, closed = gen + 1); every 127 searches the
 * stamps are cleared (n bytes) and the count starts again. */
static void newGeneration(tpNavGrid *g)
{
    if (g->gen >= 254) {
        memset(g->stamp, 0, (size_t)g->def.nx * (size_t)g->def.ny);
        g->gen = 0;
    }
    g->gen = (uint8_t)(g->gen + 2);
    g->open.len = 0;
}

static double octile(int i, int j, int gi, int gj, double diag)
{
    int dx = abs(i - gi), dy = abs(j - gj);
    int lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
    return diag * (double)lo + (double)(hi - lo);
}

static const int k_dx[8] = {1, -1, 0, 0, 1, -1, 1, -1};
static const int k_dy[8] = {0, 0, 1, -1, 1, 1, -1, -1};

/* Core search from source s. target < 0: explore everything (Dijkstra cost field). Returns the
 * number of expanded cells, or -1 on allocation failure. */
static int search(tpNavGrid *g, int si, int sj, int ti, int tj, bool astar, double diag, bool *found)
{
    const int nx = g->def.nx, ny = g->def.ny;
    const int32_t s = sj * nx + si;
    const int32_t target = ti >= 0 ? tj * nx + ti : -1;
    newGeneration(g);
    const uint8_t open = g->gen, closed = (uint8_t)(g->gen + 1);
    uint8_t *const stamp = g->stamp;
    double *const gv = g->g;
    int32_t *const parent = g->parent;
    const uint8_t *const cells = g->cells;
    int32_t off[8]; /* cell index offsets of the 8 neighbours */
    for (int k = 0; k < 8; ++k) {
        off[k] = k_dy[k] * nx + k_dx[k];
    }
    gv[s] = 0.0;
    parent[s] = -1;
    stamp[s] = open;
    *found = false;
    int32_t *const pos = g->pos;
    if (!tpNavOpen_Push(&g->open, pos, astar ? octile(si, sj, ti, tj, diag) : 0.0, s)) {
        return -1;
    }
    int expanded = 0;
    while (g->open.len > 0) {
        int32_t c = tpNavOpen_Pop(&g->open, pos); /* each cell is held once: never stale */
        stamp[c] = closed;
        ++expanded;
        if (c == target) {
            *found = true;
            break;
        }
        const int ci = c % nx, cj = c / nx;
        const double gc = gv[c];
        /* away from the border every neighbour is in the grid: no bounds tests */
        const bool inner = ci > 0 && cj > 0 && ci < nx - 1 && cj < ny - 1;
        for (int k = 0; k < 8; ++k) {
            int ni = ci + k_dx[k], nj = cj + k_dy[k];
            if (!inner && (ni < 0 || nj < 0 || ni >= nx || nj >= ny)) {
                continue;
            }
            const int32_t nc = c + off[k];
            const uint8_t st = stamp[nc];
            if (cells[nc] != TP_NAV_FREE || st == closed) {
                continue;
            }
            double ng = gc + (k < 4 ? 1.0 : diag);
            const bool held = st == open; /* reached before, not closed: in open */
            if (held && gv[nc] <= ng) {
                continue;
            }
            stamp[nc] = open;
            gv[nc] = ng;
            parent[nc] = c;
            const double key = astar ? ng + octile(ni, nj, ti, tj, diag) : ng;
            if (held) {
                tpNavOpen_Decrease(&g->open, pos, key, nc);
            } else if (!tpNavOpen_Push(&g->open, pos, key, nc)) {
                return -1;
            }
        }
    }
    TP_VALIDATE(tpNavGrid_Valid, g);
    return expanded;
}

/* tpNavGrid_Blocked without the call: outside the grid or not FREE. */
static inline bool blockedAt(const tpNavGrid *g, int i, int j)
{
    return i < 0 || j < 0 || i >= g->def.nx || j >= g->def.ny ||
           g->cells[(size_t)j * (size_t)g->def.nx + (size_t)i] != TP_NAV_FREE;
}

bool tpNav_LineOfSight(const tpNavGrid *g, const double a[2], const double b[2])
{
    const double h = g->def.cell;
    const double ax = (a[0] - g->def.x0) / h, ay = (a[1] - g->def.y0) / h;
    const double dx = (b[0] - g->def.x0) / h - ax, dy = (b[1] - g->def.y0) / h - ay;
    if (!(isfinite(ax) && isfinite(ay) && isfinite(dx) && isfinite(dy))) {
        return false;
    }
    /* Walk the crossings of the lines u = k and v = l in parameter order; the midpoint of each
     * piece lies in the open cell the segment crosses there (a piece on a grid line touches two
     * cells, both are checked). Crossing parameters are computed from k directly, no drift. */
    const int sx = dx > 0 ? 1 : dx < 0 ? -1 : 0, sy = dy > 0 ? 1 : dy < 0 ? -1 : 0;
    double kx = sx > 0 ? floor(ax) + 1 : sx < 0 ? ceil(ax) - 1 : 0;
    double ky = sy > 0 ? floor(ay) + 1 : sy < 0 ? ceil(ay) - 1 : 0;
    /* Pieces shorter than 1e-9 cells are the rounding residue of passing exactly through a
     * corner (e.g. a diagonal step between two cell centres): they touch no open cell. */
    const double tiny = 1e-9 / fmax(hypot(dx, dy), 1e-300);
    double t = 0.0;
    for (int guard = 0; guard < 4 * (g->def.nx + g->def.ny) + 8; ++guard) {
        double tx = sx ? (kx - ax) / dx : INFINITY, ty = sy ? (ky - ay) / dy : INFINITY;
        double tn = fmin(fmin(tx, ty), 1.0);
        if (tn - t > tiny || (t == 0.0 && tn >= 1.0)) {
            double tm = 0.5 * (t + tn);
            double u = ax + tm * dx, v = ay + tm * dy;
            double fu = floor(u), fv = floor(v);
            if (blockedAt(g, (int)fu, (int)fv)) {
                return false;
            }
            if (u == fu && blockedAt(g, (int)fu - 1, (int)fv)) {
                return false;
            }
            if (v == fv && blockedAt(g, (int)fu, (int)fv - 1)) {
                return false;
            }
        }
        if (tn >= 1.0) {
            return true;
        }
        t = tn;
        if (tx == tn) {
            kx += sx;
        }
        if (ty == tn) {
            ky += sy;
        }
    }
    return true;
}

static bool reservePath(tpNavPath *p, int n)
{
    int *c = realloc(p->cells, sizeof(int) * (size_t)n);
    if (!c) {
        return false;
    }
    p->cells = c;
    double *pt = realloc(p->points, sizeof(double) * 2 * (size_t)n);
    if (!pt) {
        return false;
    }
    p->points = pt;
    return true;
}

/* Greedy line-of-sight smoothing in place; stops once `limit` (> 0) vertices are out: the first
 * vertices do not depend on the later ones. */
static void smoothPath(const tpNavGrid *g, tpNavPath *p, int limit)
{
    int out = 1, i = 0;
    double *pt = p->points;
    while (i < p->npoints - 1 && out < limit) {
        int j = i + 1;
        while (j + 1 < p->npoints && tpNav_LineOfSight(g, pt + 2 * i, pt + 2 * (j + 1))) {
            ++j;
        }
        pt[2 * out] = pt[2 * j];
        pt[2 * out + 1] = pt[2 * j + 1];
        ++out;
        i = j;
    }
    p->npoints = out;
}

tpNavResult tpNav_PlanCells(tpNavGrid *g, const tpNavPlanDef *def, int si, int sj, int gi, int gj, tpNavPath *path)
{
    tpNavPlanDef d = def ? *def : tpDefaultNavPlanDef();
    if (!(d.diag >= 1.0 && d.diag <= 2.0)) {
        d.diag = 1.4;
    }
    path->ncells = path->npoints = 0;
    path->cost = path->length = 0.0;
    path->expanded = 0;
    if (tpNavGrid_Blocked(g, si, sj)) {
        return TP_NAV_START_BLOCKED;
    }
    if (tpNavGrid_Blocked(g, gi, gj)) {
        return TP_NAV_GOAL_BLOCKED;
    }
    if (!ensureScratch(g)) {
        return TP_NAV_NO_PATH;
    }
    bool found = false;
    int expanded = search(g, si, sj, gi, gj, d.algo == TP_NAV_ASTAR, d.diag, &found);
    path->expanded = expanded > 0 ? expanded : 0;
    if (expanded < 0 || !found) {
        return TP_NAV_NO_PATH;
    }
    const int nx = g->def.nx;
    int32_t goal = gj * nx + gi;
    int n = 0;
    for (int32_t c = goal; c >= 0; c = g->parent[c]) {
        ++n;
    }
    if (!reservePath(path, n)) {
        return TP_NAV_NO_PATH;
    }
    int k = n;
    for (int32_t c = goal; c >= 0; c = g->parent[c]) {
        path->cells[--k] = c;
    }
    path->ncells = n;
    path->cost = g->g[goal];
    for (k = 0; k < n; ++k) {
        tpNavGrid_CellCenter(g, path->cells[k] % nx, path->cells[k] / nx, path->points + 2 * k);
    }
    path->npoints = n;
    const int limit = d.max_points > 0 ? d.max_points : n;
    if (d.smooth) {
        smoothPath(g, path, limit);
    }
    if (path->npoints > limit) {
        path->npoints = limit;
    }
    for (k = 1; k < path->npoints; ++k) {
        path->length +=
            hypot(path->points[2 * k] - path->points[2 * k - 2], path->points[2 * k + 1] - path->points[2 * k - 1]);
    }
    return TP_NAV_OK;
}

tpNavResult tpNav_Plan(tpNavGrid *g, const tpNavPlanDef *def, const double start[2], const double goal[2],
                       tpNavPath *path)
{
    int si, sj, gi, gj;
    if (!tpNavGrid_CellOf(g, start[0], start[1], &si, &sj)) {
        path->ncells = path->npoints = 0;
        return TP_NAV_START_BLOCKED;
    }
    if (!tpNavGrid_CellOf(g, goal[0], goal[1], &gi, &gj)) {
        path->ncells = path->npoints = 0;
        return TP_NAV_GOAL_BLOCKED;
    }
    return tpNav_PlanCells(g, def, si, sj, gi, gj, path);
}

int tpNav_CostField(tpNavGrid *g, double diag, int gi, int gj, double *cost)
{
    if (tpNavGrid_Blocked(g, gi, gj) || !ensureScratch(g)) {
        return -1;
    }
    if (!(diag >= 1.0 && diag <= 2.0)) {
        diag = 1.4;
    }
    bool found;
    int expanded = search(g, gi, gj, -1, -1, false, diag, &found);
    if (expanded < 0) {
        return -1;
    }
    size_t n = (size_t)g->def.nx * (size_t)g->def.ny;
    for (size_t k = 0; k < n; ++k) {
        cost[k] = g->stamp[k] == (uint8_t)(g->gen + 1) ? g->g[k] : -1.0;
    }
    return expanded;
}
