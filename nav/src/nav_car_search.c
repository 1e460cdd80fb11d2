/* Vehicle motion with move trees (Adam 2007), the search: finite-horizon A* over clip sequences of
 * a move tree (nav_car.c) with collision checks against track walls and constant-velocity
 * traffic, and the distance-to-go maps it is guided by. See tp/nav_car.h. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/mathx.h"
#include "nav_internal.h"
#include "tp/nav.h"

/* ---- collisions ---- */

/* Rectangle corners (counter-clockwise) of a car of length L, width W at (x, y) with heading
 * cosine c and sine s. */
static void rectCorners(double x, double y, double c, double s, double L, double W, double out[4][2])
{
    const double hl = L / 2, hw = W / 2;
    const double lx[4] = {hl, -hl, -hl, hl}, ly[4] = {hw, hw, -hw, -hw};
    for (int k = 0; k < 4; ++k) {
        out[k][0] = x + c * lx[k] - s * ly[k];
        out[k][1] = y + s * lx[k] + c * ly[k];
    }
}

/* Separating-axis test of two convex polygons (n, m <= 4 vertices; a segment is a 2-gon). */
static bool convexOverlap(const double (*a)[2], int n, const double (*b)[2], int m)
{
    for (int pass = 0; pass < 2; ++pass) {
        const double(*p)[2] = pass ? b : a;
        int np = pass ? m : n;
        for (int k = 0; k < np; ++k) {
            const double *u = p[k], *v = p[(k + 1) % np];
            double ax = -(v[1] - u[1]), ay = v[0] - u[0];
            if (ax == 0 && ay == 0) {
                continue;
            }
            double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
            for (int q = 0; q < n; ++q) { /* (ternaries: fmin/fmax are library calls here) */
                double d = a[q][0] * ax + a[q][1] * ay;
                amin = d < amin ? d : amin;
                amax = d > amax ? d : amax;
            }
            for (int q = 0; q < m; ++q) {
                double d = b[q][0] * ax + b[q][1] * ay;
                bmin = d < bmin ? d : bmin;
                bmax = d > bmax ? d : bmax;
            }
            if (amax < bmin || bmax < amin) {
                return false;
            }
        }
    }
    return true;
}

/* ---- search scratch ---- */

typedef struct CarNode {
    double pose[3];
    double g, f; /* s */
    int level, depth, first, parent;
    bool finish;
} CarNode;

typedef struct CarHeapItem {
    double f; /* s, a copy of nodes[id].f: the heap compares without touching the nodes */
    int id;
} CarHeapItem;

/* Buffers of tpNavCar_Plan, kept across calls so a decision neither allocates nor first-touches
 * pages (the node array alone is node_limit * 64 bytes). Every array grows on demand and is owned
 * by the scratch; none carries anything from one call to the next. */
struct tpNavCarScratch {
    CarNode *nodes;      /* node_cap */
    CarHeapItem *heap;   /* node_cap */
    int node_cap;        /* nodes */
    int64_t *closed_key; /* closed_slots */
    int *closed_node;    /* closed_slots */
    size_t closed_slots; /* slots allocated (0 = none) */
    double (*wbox)[4];   /* wall_cap: per wall min x, max x, min y, max y */
    double (*wdir)[3];   /* wall_cap: per wall x1 - x0, y1 - y0, squared length (m, m^2) */
    int *wnear, *wclip;  /* wall_cap: the walls near an expanded node / near one of its clips */
    int wall_cap;        /* walls */
    double (*cars)[3];   /* car_cap: per traffic car cos, sin (heading), bounding-circle radius (m) */
    int *cnear, *cclip;  /* car_cap: the traffic cars near an expanded node / one of its clips */
    int car_cap;         /* cars */
};

tpNavCarScratch *tpCreateNavCarScratch(void)
{
    return calloc(1, sizeof(tpNavCarScratch));
}

static void scratchRelease(tpNavCarScratch *s)
{
    free(s->nodes);
    free(s->heap);
    free(s->closed_key);
    free(s->closed_node);
    free(s->wbox);
    free(s->wdir);
    free(s->wnear);
    free(s->wclip);
    free(s->cars);
    free(s->cnear);
    free(s->cclip);
    memset(s, 0, sizeof *s);
}

void tpDestroyNavCarScratch(tpNavCarScratch *s)
{
    if (!s) {
        return;
    }
    scratchRelease(s);
    free(s);
}

/* Grows *p to hold n elements of size sz (the contents need not survive). */
static bool growArray(void **p, size_t n, size_t sz)
{
    void *q = realloc(*p, n * sz);
    if (!q) {
        return false;
    }
    *p = q;
    return true;
}

/* Makes room for `walls` walls and `cars` traffic cars (each at least 1). */
static bool scratchScene(tpNavCarScratch *s, int walls, int cars)
{
    walls = walls > 1 ? walls : 1;
    cars = cars > 1 ? cars : 1;
    if (walls > s->wall_cap) {
        size_t n = (size_t)walls;
        if (!growArray((void **)&s->wbox, n, sizeof *s->wbox) || !growArray((void **)&s->wdir, n, sizeof *s->wdir) ||
            !growArray((void **)&s->wnear, n, sizeof(int)) || !growArray((void **)&s->wclip, n, sizeof(int))) {
            return false;
        }
        s->wall_cap = walls;
    }
    if (cars > s->car_cap) {
        size_t n = (size_t)cars;
        if (!growArray((void **)&s->cars, n, sizeof *s->cars) || !growArray((void **)&s->cnear, n, sizeof(int)) ||
            !growArray((void **)&s->cclip, n, sizeof(int))) {
            return false;
        }
        s->car_cap = cars;
    }
    return true;
}

/* Makes room for `nodes` nodes and, if slots > 0, a closed set of `slots` slots. */
static bool scratchSearch(tpNavCarScratch *s, int nodes, size_t slots)
{
    if (nodes > s->node_cap) {
        if (!growArray((void **)&s->nodes, (size_t)nodes, sizeof *s->nodes) ||
            !growArray((void **)&s->heap, (size_t)nodes, sizeof *s->heap)) {
            return false;
        }
        s->node_cap = nodes;
    }
    if (slots > s->closed_slots) {
        if (!growArray((void **)&s->closed_key, slots, sizeof(int64_t)) ||
            !growArray((void **)&s->closed_node, slots, sizeof(int))) {
            return false;
        }
        s->closed_slots = slots;
    }
    return true;
}

/* ---- collisions against a scene ---- */

/* Whether the rectangle r (4 corners) overlaps the segment s: the separating-axis test of
 * convexOverlap(r, 4, s, 2), the same axes and projections, so the same answer. The answer does not
 * depend on the order of the axes, and the segment's second axis (v -> u) is exactly the negation of
 * its first (a negated difference and negated products round the same), which separates exactly
 * when the first does; so the segment's normal comes first (for a car beside a wall the one that
 * usually separates) and the second is skipped. */
static bool rectSegOverlap(const double r[4][2], const double s[2][2])
{
    for (int k = -1; k < 4; ++k) {
        const double *u = k < 0 ? s[0] : r[k], *v = k < 0 ? s[1] : r[(k + 1) % 4];
        double ax = -(v[1] - u[1]), ay = v[0] - u[0];
        if (ax == 0 && ay == 0) {
            continue;
        }
        double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
        for (int q = 0; q < 4; ++q) {
            double d = r[q][0] * ax + r[q][1] * ay;
            amin = d < amin ? d : amin;
            amax = d > amax ? d : amax;
        }
        for (int q = 0; q < 2; ++q) {
            double d = s[q][0] * ax + s[q][1] * ay;
            bmin = d < bmin ? d : bmin;
            bmax = d > bmax ? d : bmax;
        }
        if (amax < bmin || bmax < amin) {
            return false;
        }
    }
    return true;
}

/* What the collision checks of one decision need, computed once per decision (arrays in the
 * scratch): the car's bounding-circle radius, every wall's bounding box and direction, every
 * traffic car's heading cosine / sine and bounding-circle radius. The values are the ones the
 * checks computed inline before, so the results are identical. */
typedef struct CarScene {
    const tpNavTrack *track;
    double reach;      /* m, the car's bounding-circle radius */
    double (*wbox)[4]; /* per wall: min x, max x, min y, max y */
    double (*wdir)[3]; /* per wall: x1 - x0, y1 - y0, squared length */
    double (*cars)[3]; /* per traffic car: cos, sin (heading), bounding-circle radius */
} CarScene;

static bool sceneInit(CarScene *sc, const tpNavMoveTree *tree, const tpNavTrack *track, tpNavCarScratch *scr)
{
    memset(sc, 0, sizeof *sc);
    if (!scratchScene(scr, track->nwalls, track->ncars)) {
        return false;
    }
    sc->track = track;
    sc->reach = 0.5 * hypot(tree->car.length, tree->car.width);
    sc->wbox = scr->wbox;
    sc->wdir = scr->wdir;
    sc->cars = scr->cars;
    for (int w = 0; w < track->nwalls; ++w) {
        const double *s = track->walls[w];
        sc->wbox[w][0] = fmin(s[0], s[2]);
        sc->wbox[w][1] = fmax(s[0], s[2]);
        sc->wbox[w][2] = fmin(s[1], s[3]);
        sc->wbox[w][3] = fmax(s[1], s[3]);
        double ex = s[2] - s[0], ey = s[3] - s[1];
        sc->wdir[w][0] = ex;
        sc->wdir[w][1] = ey;
        sc->wdir[w][2] = ex * ex + ey * ey;
    }
    for (int k = 0; k < track->ncars; ++k) {
        const tpNavTrafficCar *o = &track->cars[k];
        sc->cars[k][0] = cos(o->heading);
        sc->cars[k][1] = sin(o->heading);
        sc->cars[k][2] = 0.5 * hypot(o->length, o->width);
    }
    return true;
}

/* Position of traffic car o at time t, and (for a car with a known path; untouched otherwise) its
 * heading (rad): the caller takes the cosine and sine only when the car comes near. */
static void trafficAt(const tpNavTrafficCar *o, double t, double *x, double *y, double *h)
{
    if (o->npath < 2) {
        *x = o->pos[0] + o->vel[0] * t;
        *y = o->pos[1] + o->vel[1] * t;
        return;
    }
    const double u = t / o->path_dt;
    int k = u <= 0 ? 0 : u >= o->npath - 1 ? o->npath - 2 : (int)u;
    const double f = u <= 0 ? 0 : u - k; /* > 1 past the end: extrapolated along the last interval */
    const double *a = o->path[k], *b = o->path[k + 1];
    *x = a[0] + f * (b[0] - a[0]);
    *y = a[1] + f * (b[1] - a[1]);
    *h = a[2] + f * (b[2] - a[2]);
}

/* Collision of the car at (x, y) with heading cosine / sine (hc, hs) at time t with the walls
 * walls[0 .. nw) and the traffic cars cars[0 .. nc) (indices into the track; the callers leave out
 * only walls and cars too far away to touch the car, so the answer is the one over all of them). */
static bool collidesCS(const tpNavMoveTree *tree, const CarScene *sc, const int *walls, int nw, const int *cars, int nc,
                       double x, double y, double hc, double hs, double t)
{
    const tpNavTrack *track = sc->track;
    const double reach = sc->reach;
    double me[4][2];
    bool have_me = false;
    for (int i = 0; i < nw; ++i) {
        const int w = walls[i];
        const double *b = sc->wbox[w];
        /* cheap reject: the car's bounding circle against the segment's bounding box */
        if (x + reach < b[0] || x - reach > b[1] || y + reach < b[2] || y - reach > b[3]) {
            continue;
        }
        const double *s = track->walls[w];
        if (!have_me) {
            rectCorners(x, y, hc, hs, tree->car.length, tree->car.width, me);
            have_me = true;
        }
        const double seg[2][2] = {{s[0], s[1]}, {s[2], s[3]}};
        if (rectSegOverlap((const double(*)[2])me, seg)) {
            return true;
        }
    }
    for (int i = 0; i < nc; ++i) {
        const int k = cars[i];
        const tpNavTrafficCar *o = &track->cars[k];
        double ox, oy, oh = 0, oc = sc->cars[k][0], os = sc->cars[k][1];
        trafficAt(o, t, &ox, &oy, &oh);
        double r2 = reach + sc->cars[k][2];
        if (fabs(ox - x) > r2 || fabs(oy - y) > r2) {
            continue;
        }
        if (o->npath >= 2) {
            oc = cos(oh);
            os = sin(oh);
        }
        if (!have_me) {
            rectCorners(x, y, hc, hs, tree->car.length, tree->car.width, me);
            have_me = true;
        }
        double other[4][2];
        rectCorners(ox, oy, oc, os, o->length, o->width, other);
        if (convexOverlap((const double(*)[2])me, 4, (const double(*)[2])other, 4)) {
            return true;
        }
    }
    return false;
}

/* tpNavCar_Collides with the scene arrays in scr (grown as needed). */
static bool collidesAll(const tpNavMoveTree *tree, const tpNavTrack *track, tpNavCarScratch *scr, const double pose[3],
                        double t)
{
    CarScene sc;
    if (!sceneInit(&sc, tree, track, scr)) {
        return true; /* out of memory: report a collision (the safe answer) */
    }
    for (int w = 0; w < track->nwalls; ++w) {
        scr->wnear[w] = w;
    }
    for (int k = 0; k < track->ncars; ++k) {
        scr->cnear[k] = k;
    }
    return collidesCS(tree, &sc, scr->wnear, track->nwalls, scr->cnear, track->ncars, pose[0], pose[1], cos(pose[2]),
                      sin(pose[2]), t);
}

bool tpNavCar_Collides(const tpNavMoveTree *tree, const tpNavTrack *track, const double pose[3], double t)
{
    tpNavCarScratch scr;
    memset(&scr, 0, sizeof scr);
    bool hit = collidesAll(tree, track, &scr, pose, t);
    scratchRelease(&scr);
    return hit;
}

/* ---- finite-horizon A* ---- */

struct tpNavToGo {
    tpNavGrid *grid;
    double *cost; /* cells to the goal, -1 unreachable */
};

tpNavToGo *tpCreateNavToGo(const tpNavTrack *tr, double cell, char *err, size_t errlen)
{
    if (!(cell > 0) || !isfinite(cell)) {
        tpErrorf(err, errlen, "to-go field: cell must be > 0");
        return NULL;
    }
    double lo[2] = {tr->goal[0], tr->goal[1]}, hi[2] = {tr->goal[0], tr->goal[1]};
    for (int w = 0; w < tr->nwalls; ++w) {
        for (int e = 0; e < 2; ++e) {
            lo[0] = fmin(lo[0], tr->walls[w][2 * e]);
            lo[1] = fmin(lo[1], tr->walls[w][2 * e + 1]);
            hi[0] = fmax(hi[0], tr->walls[w][2 * e]);
            hi[1] = fmax(hi[1], tr->walls[w][2 * e + 1]);
        }
    }
    tpNavGridDef gd = tpDefaultNavGridDef();
    gd.cell = cell;
    gd.x0 = lo[0] - 4 * cell;
    gd.y0 = lo[1] - 4 * cell;
    double nx = ceil((hi[0] - lo[0]) / cell) + 8, ny = ceil((hi[1] - lo[1]) / cell) + 8;
    if (nx * ny > (double)(1 << 24)) {
        tpErrorf(err, errlen, "to-go field: %g x %g cells is too many; use a larger cell", nx, ny);
        return NULL;
    }
    gd.nx = (int)nx;
    gd.ny = (int)ny;
    tpNavToGo *g = calloc(1, sizeof *g);
    if (!g || !(g->grid = tpCreateNavGrid(&gd, err, errlen)) ||
        !(g->cost = malloc(sizeof(double) * (size_t)gd.nx * (size_t)gd.ny))) {
        tpDestroyNavToGo(g);
        tpErrorf(err, errlen, "to-go field: out of memory");
        return NULL;
    }
    /* Each wall is drawn as a quad around its segment, 1 % of a cell on each side and beyond each
     * end. The grid marks only cells whose open square a footprint meets, so a bare segment
     * lying on a cell boundary (walls at whole or half metres on 0.5 m cells: every track file)
     * would block nothing, and one passing diagonally through cell corners would let the
     * 8-connected search cut through it. The quad meets the cells on both sides of such a
     * boundary and around such a corner, so every wall blocks whatever its alignment. */
    const double eps = 0.01 * cell;
    for (int w = 0; w < tr->nwalls; ++w) {
        const double *a = tr->walls[w];
        double ex = a[2] - a[0], ey = a[3] - a[1], el = hypot(ex, ey);
        double ux = el > 0 ? ex / el : 1.0, uy = el > 0 ? ey / el : 0.0; /* along */
        double nx_ = -uy * eps, ny_ = ux * eps;                          /* across */
        tpNavShape s;
        memset(&s, 0, sizeof s);
        s.kind = TP_NAV_POLYGON;
        s.npoints = 4;
        s.points[0][0] = a[0] - ux * eps - nx_;
        s.points[0][1] = a[1] - uy * eps - ny_;
        s.points[1][0] = a[2] + ux * eps - nx_;
        s.points[1][1] = a[3] + uy * eps - ny_;
        s.points[2][0] = a[2] + ux * eps + nx_;
        s.points[2][1] = a[3] + uy * eps + ny_;
        s.points[3][0] = a[0] - ux * eps + nx_;
        s.points[3][1] = a[1] - uy * eps + ny_;
        s.z_lo = -1;
        s.z_hi = 1;
        tpNavGrid_AddShape(g->grid, &s, NULL, 0);
    }
    int gi, gj;
    if (!tpNavGrid_CellOf(g->grid, tr->goal[0], tr->goal[1], &gi, &gj) ||
        tpNav_CostField(g->grid, TP_NAV_SQRT2, gi, gj, g->cost) < 0) {
        tpDestroyNavToGo(g);
        tpErrorf(err, errlen, "to-go field: the goal lies on a wall");
        return NULL;
    }
    return g;
}

void tpDestroyNavToGo(tpNavToGo *g)
{
    if (!g) {
        return;
    }
    tpDestroyNavGrid(g->grid);
    free(g->cost);
    free(g);
}

double tpNavToGo_Distance(const tpNavToGo *g, const tpNavTrack *tr, double x, double y)
{
    double euclid = hypot(tr->goal[0] - x, tr->goal[1] - y);
    int i, j;
    if (!g || !tpNavGrid_CellOf(g->grid, x, y, &i, &j)) {
        return euclid;
    }
    double c = g->cost[(size_t)j * tpNavGrid_Def(g->grid)->nx + i];
    if (c < 0) {
        return euclid;
    }
    double h = tpNavGrid_Def(g->grid)->cell;
    return fmax(euclid, fmax(0.0, c * h / 1.0824 - 2.0 * h));
}

tpNavCarPlanDef tpDefaultNavCarPlanDef(void)
{
    tpNavCarPlanDef d;
    d.togo = NULL;
    d.depth = 6;
    d.node_limit = 45000;
    d.checks = 12;
    d.on_node = NULL;
    d.on_node_user = NULL;
    d.closed_cell = 0.0;
    d.closed_angle = 0.1745;
    d.scratch = NULL;
    d.max_level = -1;
    return d;
}

/* Closed set of the car search: open addressing on the discretised state, each slot holding
 * the node that first claimed the cell and was not dominated since. */
typedef struct CarClosed {
    int64_t *key; /* packed cell, INT64_MIN = empty */
    int *node;
    size_t mask;
} CarClosed;

static int64_t closedKey(const double pose[3], int level, double cell, double angle)
{
    double a = fmod(pose[2], 2 * TP_PI);
    a = a < 0 ? a + 2 * TP_PI : a;
    int64_t ix = (int64_t)floor(pose[0] / cell) & 0xFFFFF, iy = (int64_t)floor(pose[1] / cell) & 0xFFFFF;
    int64_t ia = (int64_t)floor(a / angle) & 0x3FF;
    return (((ix << 20) | iy) << 14) | (ia << 4) | (level & 0xF);
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

typedef struct CarHeap {
    CarHeapItem *item;
    int n;
} CarHeap;

static bool itemLess(CarHeapItem a, CarHeapItem b)
{
    return a.f < b.f || (a.f == b.f && a.id < b.id);
}

static void heapPush(CarHeap *h, CarHeapItem it)
{
    int k = h->n++;
    while (k > 0) {
        int p = (k - 1) / 2;
        if (!itemLess(it, h->item[p])) {
            break;
        }
        h->item[k] = h->item[p];
        k = p;
    }
    h->item[k] = it;
}

static int heapPop(CarHeap *h)
{
    int top = h->item[0].id, k = 0;
    CarHeapItem last = h->item[--h->n];
    for (;;) {
        int c = 2 * k + 1;
        if (c >= h->n) {
            break;
        }
        if (c + 1 < h->n && itemLess(h->item[c + 1], h->item[c])) {
            ++c;
        }
        if (!itemLess(h->item[c], last)) {
            break;
        }
        h->item[k] = h->item[c];
        k = c;
    }
    if (h->n > 0) {
        h->item[k] = last;
    }
    return top;
}

/* Pose of clip frame f aligned to the start pose p, whose heading has cosine c and sine s. */
static void alignFrameCS(const double p[3], double c, double s, const double fr[3], double out[3])
{
    out[0] = p[0] + c * fr[0] - s * fr[1];
    out[1] = p[1] + s * fr[0] + c * fr[1];
    out[2] = p[2] + fr[2];
}

/* Pose of clip frame f aligned to the start pose p. */
static void alignFrame(const double p[3], const double fr[3], double out[3])
{
    alignFrameCS(p, cos(p[2]), sin(p[2]), fr, out);
}

/* Side of point a relative to the finish line f (the sign: which side). */
static double finishSide(const double f[4], const double a[2])
{
    return (f[2] - f[0]) * (a[1] - f[1]) - (f[3] - f[1]) * (a[0] - f[0]);
}

/* Whether the finish line's ends lie on different sides of the line through a and b. */
static bool finishEndsSplit(const double f[4], const double a[2], const double b[2])
{
    double d3 = (b[0] - a[0]) * (f[1] - a[1]) - (b[1] - a[1]) * (f[0] - a[0]);
    double d4 = (b[0] - a[0]) * (f[3] - a[1]) - (b[1] - a[1]) * (f[2] - a[0]);
    return (d3 < 0) != (d4 < 0);
}

/* Does the segment a->b cross the finish line? */
static bool crossesFinish(const tpNavTrack *tr, const double a[2], const double b[2])
{
    const double *f = tr->finish;
    return ((finishSide(f, a) < 0) != (finishSide(f, b) < 0)) && finishEndsSplit(f, a, b);
}

/* Squared distance (m^2) from point q to segment s (x0, y0, x1, y1) whose direction and squared
 * length are e = (x1 - x0, y1 - y0, |.|^2): no square root (this quick test runs for the walls
 * near every clip of every A* expansion). */
static double segDist2(const double s[4], const double e[3], const double q[2])
{
    double u = e[2] > 0 ? ((q[0] - s[0]) * e[0] + (q[1] - s[1]) * e[1]) / e[2] : 0.0;
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    double dx = s[0] + u * e[0] - q[0], dy = s[1] + u * e[1] - q[1];
    return dx * dx + dy * dy;
}

static double segDist2Plain(const double s[4], const double q[2])
{
    const double e[3] = {s[2] - s[0], s[3] - s[1], (s[2] - s[0]) * (s[2] - s[0]) + (s[3] - s[1]) * (s[3] - s[1])};
    return segDist2(s, e, q);
}

/* Squared distance from q to the way traffic car o's centre goes over [t0, t1]: the segment at
 * constant velocity, or the polyline through its path's samples in between. */
static double trafficSweepDist2(const tpNavTrafficCar *o, double t0, double t1, const double q[2])
{
    if (o->npath < 2) {
        double path[4] = {o->pos[0] + o->vel[0] * t0, o->pos[1] + o->vel[1] * t0, o->pos[0] + o->vel[0] * t1,
                          o->pos[1] + o->vel[1] * t1};
        return segDist2Plain(path, q);
    }
    double seg[4], h;
    trafficAt(o, t0, &seg[0], &seg[1], &h);
    double best = HUGE_VAL;
    /* the samples strictly inside (t0, t1), then the end */
    int k = t0 <= 0 ? 1 : (int)floor(t0 / o->path_dt) + 1;
    for (;; ++k) {
        const double tk = k * o->path_dt;
        if (k >= o->npath || tk >= t1) {
            trafficAt(o, t1, &seg[2], &seg[3], &h);
            double d = segDist2Plain(seg, q);
            return d < best ? d : best;
        }
        seg[2] = o->path[k][0];
        seg[3] = o->path[k][1];
        double d = segDist2Plain(seg, q);
        best = d < best ? d : best;
        seg[0] = seg[2];
        seg[1] = seg[3];
    }
}

/* Margin (m) of the near lists: far above the rounding of the distances (coordinates up to
 * TP_MAX_COORD), so a wall or car left out of a list could not have touched the car. */
#define CAR_NEAR_EPS 1e-3

/* The walls and traffic cars that any clip from an expanded node at position p, speed level
 * `level` and time t (s) could touch: within the level's reach (m: clip circle centre distance +
 * radius, tpNavMoveTree.level_reach) of p, for a car its path over the level's longest clip. A
 * clip's circle lies within that reach of p, so a wall or car left out is farther than the margin
 * from every clip's circle. Fills scr->wnear / scr->cnear; returns their counts through nw / nc. */
static void nearNode(const tpNavMoveTree *tree, const CarScene *sc, tpNavCarScratch *scr, const double p[3], int level,
                     double t, int *nw, int *nc)
{
    const tpNavTrack *tr = sc->track;
    const double R = tree->level_reach[level] + CAR_NEAR_EPS, span = tree->level_span[level];
    int n = 0;
    for (int w = 0; w < tr->nwalls; ++w) {
        if (segDist2(tr->walls[w], sc->wdir[w], p) <= R * R) {
            scr->wnear[n++] = w;
        }
    }
    *nw = n;
    n = 0;
    for (int k = 0; k < tr->ncars; ++k) {
        const tpNavTrafficCar *o = &tr->cars[k];
        double r = R + sc->cars[k][2];
        if (trafficSweepDist2(o, t, t + span, p) <= r * r) {
            scr->cnear[n++] = k;
        }
    }
    *nc = n;
}

/* Plays clip k from pose p (heading cosine / sine c0, s0) at time t against the walls and cars
 * nearNode listed for p: false if a check collides; sets the end pose and whether it crosses the
 * finish line. */
static bool clipFree(const tpNavMoveTree *tree, const CarScene *sc, tpNavCarScratch *scr, int nw, int nc, int checks,
                     const double p[3], double c0, double s0, double t, int k, double end[3], bool *finish)
{
    const tpNavTrack *tr = sc->track;
    const tpNavClip *c = &tree->clips[k];
    const double fdt = tree->def.frame_dt;
    double prev[3] = {p[0], p[1], p[2]};
    *finish = false;
    /* Quick accept: nothing (wall, traffic car over the clip's time span, finish line) comes
     * near the circle around the whole clip. The walls and cars within the circle (plus the
     * margin) are the only ones the checks below need. */
    double ctr[3];
    alignFrameCS(p, c0, s0, (const double[3]){c->bound[0], c->bound[1], 0.0}, ctr);
    const double R = c->bound[2], dur = c->nframes * fdt, RR = R * R, Rm = R + CAR_NEAR_EPS;
    bool near = segDist2Plain(tr->finish, ctr) <= RR;
    int mw = 0, mc = 0;
    for (int i = 0; i < nw; ++i) {
        const int w = scr->wnear[i];
        double d2 = segDist2(tr->walls[w], sc->wdir[w], ctr);
        near = near || d2 <= RR;
        if (d2 <= Rm * Rm) {
            scr->wclip[mw++] = w;
        }
    }
    for (int i = 0; i < nc; ++i) {
        const int k2 = scr->cnear[i];
        const tpNavTrafficCar *o = &tr->cars[k2];
        double d2 = trafficSweepDist2(o, t, t + dur, ctr), r = R + sc->cars[k2][2], rm = Rm + sc->cars[k2][2];
        near = near || d2 <= r * r;
        if (d2 <= rm * rm) {
            scr->cclip[mc++] = k2;
        }
    }
    if (!near) {
        alignFrameCS(p, c0, s0, c->frame[c->nframes - 1], end);
        return true;
    }
    /* `checks` per clip_time: long (skid) clips get proportionally more */
    int nchk = (int)lround((checks < 1 ? 1 : checks) * c->nframes * fdt / tree->def.clip_time);
    nchk = nchk < 1 ? 1 : nchk > c->nframes ? c->nframes : nchk;
    /* crossesFinish(prev, pose) per check, each point's side of the finish line computed once (a
       check's pose is the next check's prev) */
    bool prev_neg = finishSide(tr->finish, prev) < 0;
    for (int q = 1; q <= nchk; ++q) {
        int f = (int)((long)c->nframes * q / nchk) - 1;
        double pose[3] = {p[0] + c0 * c->frame[f][0] - s0 * c->frame[f][1],
                          p[1] + s0 * c->frame[f][0] + c0 * c->frame[f][1], p[2] + c->frame[f][2]};
        double hc = c0 * c->frame_cs[f][0] - s0 * c->frame_cs[f][1],
               hs = s0 * c->frame_cs[f][0] + c0 * c->frame_cs[f][1];
        if ((mw > 0 || mc > 0) &&
            collidesCS(tree, sc, scr->wclip, mw, scr->cclip, mc, pose[0], pose[1], hc, hs, t + (f + 1) * fdt)) {
            return false;
        }
        const bool neg = finishSide(tr->finish, pose) < 0;
        if (neg != prev_neg && finishEndsSplit(tr->finish, prev, pose)) {
            *finish = true;
        }
        prev_neg = neg;
        memcpy(prev, pose, sizeof prev);
    }
    alignFrameCS(p, c0, s0, c->frame[c->nframes - 1], end);
    return true;
}

tpNavCarDecision tpNavCar_Plan(const tpNavMoveTree *tree, const tpNavTrack *tr, const tpNavCarPlanDef *def,
                               const double pose[3], int level, double t)
{
    tpNavCarPlanDef d = def ? *def : tpDefaultNavCarPlanDef();
    tpNavCarDecision out = {-1, 0, 0, INFINITY, false, -1};
    int cap = d.node_limit > 1 ? d.node_limit : 1;
    tpNavCarScratch local;
    memset(&local, 0, sizeof local);
    tpNavCarScratch *scr = d.scratch ? d.scratch : &local;
    const bool use_closed = d.closed_cell > 0 && d.closed_angle > 0;
    size_t slots = 0;
    if (use_closed) {
        slots = 64;
        while (slots < 2 * (size_t)cap) {
            slots *= 2;
        }
    }
    CarScene sc;
    if (!scratchSearch(scr, cap, slots) || !sceneInit(&sc, tree, tr, scr)) {
        scratchRelease(&local);
        return out;
    }
    CarNode *nodes = scr->nodes;
    CarHeap heap = {scr->heap, 0};
    CarClosed closed = {NULL, NULL, 0};
    if (use_closed) {
        closed.key = scr->closed_key;
        closed.node = scr->closed_node;
        closed.mask = slots - 1;
        for (size_t k = 0; k < slots; ++k) {
            closed.key[k] = INT64_MIN;
        }
    }
    const double vmax = tree->top_speed > 0 ? tree->top_speed : 1.0;
    int n = 0;
    CarNode root = {{pose[0], pose[1], pose[2]}, 0.0, 0.0, level, 0, -1, -1, false};
    root.f = tpNavToGo_Distance(d.togo, tr, pose[0], pose[1]) / vmax;
    nodes[n++] = root;
    heapPush(&heap, (CarHeapItem){root.f, 0});
    if (d.on_node) {
        d.on_node(d.on_node_user, 0, -1, -1, root.pose);
    }
    int best = -1;
    while (heap.n > 0) {
        int id = heapPop(&heap);
        CarNode cur = nodes[id];
        if (cur.depth >= d.depth || cur.finish) {
            best = id;
            break;
        }
        const int *kids;
        int nk = tpNavMoveTree_ClipsFrom(tree, cur.level, &kids);
        if (nk == 0) {
            continue;
        }
        const double c0 = cos(cur.pose[2]), s0 = sin(cur.pose[2]);
        int nw, nc;
        nearNode(tree, &sc, scr, cur.pose, cur.level, t + cur.g, &nw, &nc);
        bool full = false;
        for (int q = 0; q < nk; ++q) {
            if (n >= cap) {
                full = true;
                break;
            }
            double end[3];
            bool fin;
            if (d.max_level >= 0 && tree->clips[kids[q]].to > d.max_level && tree->clips[kids[q]].to >= cur.level) {
                continue; /* faster than this decision's top speed (and not slowing down toward it) */
            }
            if (!clipFree(tree, &sc, scr, nw, nc, d.checks, cur.pose, c0, s0, t + cur.g, kids[q], end, &fin)) {
                continue;
            }
            CarNode c = {{end[0], end[1], end[2]},
                         cur.g + tree->clips[kids[q]].nframes * tree->def.frame_dt,
                         0.0,
                         tree->clips[kids[q]].to,
                         cur.depth + 1,
                         cur.depth == 0 ? kids[q] : cur.first,
                         id,
                         fin};
            c.f = c.g + (fin ? 0.0 : tpNavToGo_Distance(d.togo, tr, end[0], end[1]) / vmax);
            if (closed.key) { /* drop a child dominated by the node holding its cell */
                int64_t key = closedKey(end, c.level, d.closed_cell, d.closed_angle);
                size_t slot = mix64((uint64_t)key) & closed.mask;
                while (closed.key[slot] != INT64_MIN && closed.key[slot] != key) {
                    slot = (slot + 1) & closed.mask;
                }
                if (closed.key[slot] == key) {
                    const CarNode *o = &nodes[closed.node[slot]];
                    if (o->g <= c.g && o->depth <= c.depth && !(c.finish && !o->finish)) {
                        continue;
                    }
                }
                closed.key[slot] = key;
                closed.node[slot] = n;
            }
            nodes[n] = c;
            heapPush(&heap, (CarHeapItem){c.f, n});
            if (d.on_node) {
                d.on_node(d.on_node_user, n, id, kids[q], c.pose);
            }
            ++n;
        }
        if (full) {
            break;
        }
    }
    if (best < 0) { /* node limit: the best end point of the deepest paths generated */
        for (int k = 1; k < n; ++k) {
            if (best < 0 || nodes[k].depth > nodes[best].depth ||
                (nodes[k].depth == nodes[best].depth && nodes[k].f < nodes[best].f)) {
                best = k;
            }
        }
    }
    if (best > 0) {
        out.clip = nodes[best].first;
        out.depth = nodes[best].depth;
        out.f = nodes[best].f;
        out.finishes = nodes[best].finish;
        out.best = best;
    }
    out.nodes = n;
    scratchRelease(&local);
    return out;
}

static tpNavDriveResult drive(const tpNavMoveTree *tree, const tpNavTrack *tr, const tpNavCarPlanDef *d,
                              const double start[3], int level, double max_time,
                              bool (*on_clip)(void *user, const double pose[3], int clip), void *user)
{
    tpNavDriveResult r;
    memset(&r, 0, sizeof r);
    double pose[3] = {start[0], start[1], start[2]};
    double t = 0.0;
    while (t < max_time) {
        double t0 = tpClock_Now();
        tpNavCarDecision dec = tpNavCar_Plan(tree, tr, d, pose, level, t);
        r.max_decision_ms = fmax(r.max_decision_ms, 1e3 * (tpClock_Now() - t0));
        int k = dec.clip;
        if (k < 0) { /* every clip collides: play the straightest one and crash */
            const int *kids;
            int nk = tpNavMoveTree_ClipsFrom(tree, level, &kids);
            if (nk == 0) {
                r.crashed = true;
                break;
            }
            k = kids[0];
            for (int q = 1; q < nk; ++q) {
                if (fabs(tree->clips[kids[q]].steer) < fabs(tree->clips[k].steer)) {
                    k = kids[q];
                }
            }
        }
        if (on_clip && !on_clip(user, pose, k)) {
            r.stopped = true;
            break;
        }
        const tpNavClip *c = &tree->clips[k];
        double prev[3] = {pose[0], pose[1], pose[2]};
        for (int f = 0; f < c->nframes; ++f) { /* play every frame: the check is exact per frame */
            double p[3];
            alignFrame(pose, c->frame[f], p);
            double tf = t + (f + 1) * tree->def.frame_dt;
            if (d->scratch ? collidesAll(tree, tr, d->scratch, p, tf) : tpNavCar_Collides(tree, tr, p, tf)) {
                r.crashed = true;
                r.time = tf;
                return r;
            }
            if (crossesFinish(tr, prev, p)) {
                r.finished = true;
                r.time = tf;
                r.clips++;
                r.skids += c->skid;
                return r;
            }
            memcpy(prev, p, sizeof prev);
        }
        alignFrame(pose, c->frame[c->nframes - 1], pose);
        level = c->to;
        t += c->nframes * tree->def.frame_dt;
        r.clips++;
        r.skids += c->skid;
    }
    r.time = t;
    return r;
}

tpNavDriveResult tpNavCar_Drive(const tpNavMoveTree *tree, const tpNavTrack *tr, const tpNavCarPlanDef *def,
                                const double start[3], int level, double max_time,
                                bool (*on_clip)(void *user, const double pose[3], int clip), void *user)
{
    tpNavCarPlanDef d = def ? *def : tpDefaultNavCarPlanDef();
    tpNavCarScratch *own = d.scratch ? NULL : tpCreateNavCarScratch(); /* one for every decision of the drive */
    d.scratch = d.scratch ? d.scratch : own; /* (NULL if out of memory: then each decision has its own) */
    tpNavDriveResult r = drive(tree, tr, &d, start, level, max_time, on_clip, user);
    tpDestroyNavCarScratch(own);
    return r;
}
