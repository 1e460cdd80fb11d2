/* Space-time navigation over moving surfaces: Lopez, Lamarche & Li, "Space-time planning in
 * dynamic environments with unknown evolution" (MIG 2011). See tp/nav.h and docs/navigation.md.
 *
 * Simplifications against the paper, all documented: bodies are boxes turned about +z (their top
 * faces are the navigable surfaces), the interaction volumes are exact tests between standable
 * rectangles instead of mesh collision detection, and each surface carries a regular grid (its
 * local frame) instead of a PRM. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/mathx.h"
#include "tp/nav.h"
#include "tp/util.h"

/* A standable rectangle (or a footprint) in the world at one instant. */
typedef struct tpRect {
    double c[2];  /* m, centre */
    double ax[2]; /* unit x axis of the local frame */
    double h[2];  /* m, half extents */
    double top;   /* m, z of the face */
} tpRect;

/* A relation detected by an update (phase 1), applied to the graph in phase 2. */
typedef struct tpSpaceHit {
    int i, j; /* from, to */
    tpNavRelation kind;
    double ps[2], pt[2]; /* m, world access and landing points */
} tpSpaceHit;

struct tpNavSpace {
    tpNavSpaceDef def;
    int n;                  /* bodies */
    tpNavSpaceBody *bodies; /* last observation, n */
    bool observed;
    double t;       /* s, time of the last observation */
    double t_first; /* s, time of the first observation */
    long long nupdates;
    int *edge_of;          /* n*n: edge index of (from, to), -1 none */
    tpNavSpaceEdge *edges; /* nedges edges (room for cap_edges) */
    int nedges;
    size_t cap_edges;
    tpSpaceHit *hits; /* relations of the current update (scratch, room for cap_hits) */
    size_t cap_hits;
    uint8_t *edge_now; /* per edge: seen valid in the current update (scratch, cap_now bytes) */
    size_t cap_now;
    int *obst;  /* per surface, the obstructing bodies: obst[s*n .. s*n + nobst[s]) */
    int *nobst; /* n */
    tpNavSpaceStats stats;
    /* local search scratch (reused) */
    int *target_of; /* per cell: -2 none, -1 goal, else edge index */
    size_t cap_cells;
    uint8_t *closed;                 /* bitset over (cell, min(tick, H)) */
    size_t cap_closed;               /* bytes */
    int *n_cell, *n_tick, *n_parent; /* node pool */
    double *n_g;
    size_t cap_nodes;
    tpBucketQueue open;     /* open list: f = g + h in ticks (integers), ties to the older node */
    struct tpTickObs *tobs; /* per search tick (H + 1) x obstructing bodies, see tick_blocked */
    tpRect *tsurf;          /* per search tick: the surface's face */
    uint8_t *tready;        /* per search tick: computed */
    size_t cap_tobs, cap_ticks;
    /* Dijkstra scratch */
    double *dist;
    int *prev, *done;
};

tpNavSpaceDef tpDefaultNavSpaceDef(void)
{
    tpNavSpaceDef d;
    memset(&d, 0, sizeof d);
    d.height = 0.5;
    d.radius = 0.2;
    d.edge = 0.1;
    d.step_up = 0.25;
    d.step_down = 0.45;
    d.step_gap = 0.35;
    d.jump = true;
    d.jump_vz = 2.0;
    d.jump_vh = 2.0;
    d.land_speed = 3.0;
    d.gravity = 9.81;
    d.speed = 1.0;
    d.cell = 0.1;
    d.horizon = 2.0;
    d.max_nodes = 200000;
    d.min_valid = 0.3;
    d.max_rel_speed = 3.0;
    d.epsilon = 0.01;
    d.check_time = 1.0;
    return d;
}

tpNavSpaceBody tpNavSpace_Box(double cx, double cy, double cz, double hx, double hy, double hz, double yaw)
{
    tpNavSpaceBody b;
    memset(&b, 0, sizeof b);
    b.center[0] = cx;
    b.center[1] = cy;
    b.center[2] = cz;
    b.half[0] = hx;
    b.half[1] = hy;
    b.half[2] = hz;
    b.yaw = yaw;
    b.surface = true;
    return b;
}

static bool space_fail(char *err, size_t errlen, const char *fmt, const char *field, double v)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, field, v);
    return false;
}

static bool space_check_def(const tpNavSpaceDef *d, char *err, size_t errlen)
{
    struct {
        const char *name;
        double v, lo, hi;
    } f[] = {
        {"height", d->height, 1e-6, TP_MAX_SIZE},
        {"radius", d->radius, 0, TP_MAX_SIZE},
        {"edge", d->edge, 0, TP_MAX_SIZE},
        {"step_up", d->step_up, 0, TP_MAX_SIZE},
        {"step_down", d->step_down, 0, TP_MAX_SIZE},
        {"step_gap", d->step_gap, 0, TP_MAX_SIZE},
        {"jump_vz", d->jump_vz, 0, TP_MAX_SPEED},
        {"jump_vh", d->jump_vh, 0, TP_MAX_SPEED},
        {"land_speed", d->land_speed, 0, TP_MAX_SPEED},
        {"gravity", d->gravity, 1e-6, 1e6},
        {"speed", d->speed, 1e-6, TP_MAX_SPEED},
        {"cell", d->cell, 1e-4, TP_MAX_SIZE},
        {"horizon", d->horizon, 0, 1e6},
        {"min_valid", d->min_valid, 0, 1e9},
        {"max_rel_speed", d->max_rel_speed, 0, TP_MAX_SPEED},
        {"epsilon", d->epsilon, 0, 1e9},
        {"check_time", d->check_time, 0, 1e6},
        {"max_nodes", d->max_nodes, 1, 1e8},
    };
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        if (!(f[k].v >= f[k].lo && f[k].v <= f[k].hi)) {
            if (err && errlen)
                snprintf(err, errlen, "%s: expected a number in [%g, %g], got %g", f[k].name, f[k].lo, f[k].hi, f[k].v);
            return false;
        }
    if (d->step_up >= d->height)
        return space_fail(err, errlen, "%s: must be below height (got %g)", "step_up", d->step_up);
    return true;
}

tpNavSpace *tpCreateNavSpace(const tpNavSpaceDef *def, int nbodies, char *err, size_t errlen)
{
    tpNavSpaceDef d = def ? *def : tpDefaultNavSpaceDef();
    if (!space_check_def(&d, err, errlen))
        return NULL;
    if (nbodies < 1 || nbodies > TP_NAV_SPACE_MAX_BODIES) {
        if (err && errlen)
            snprintf(err, errlen, "nbodies: expected 1 to %d, got %d", TP_NAV_SPACE_MAX_BODIES, nbodies);
        return NULL;
    }
    tpNavSpace *sp = calloc(1, sizeof *sp);
    if (!sp)
        goto oom;
    sp->def = d;
    sp->n = nbodies;
    size_t n = (size_t)nbodies;
    sp->bodies = calloc(n, sizeof *sp->bodies);
    sp->edge_of = malloc(n * n * sizeof *sp->edge_of);
    sp->obst = malloc(n * n * sizeof *sp->obst);
    sp->nobst = calloc(n, sizeof *sp->nobst);
    sp->dist = malloc(n * sizeof *sp->dist);
    sp->prev = malloc(n * sizeof *sp->prev);
    sp->done = malloc(n * sizeof *sp->done);
    if (!sp->bodies || !sp->edge_of || !sp->obst || !sp->nobst || !sp->dist || !sp->prev || !sp->done)
        goto oom;
    for (size_t k = 0; k < n * n; k++)
        sp->edge_of[k] = -1;
    return sp;
oom:
    tpDestroyNavSpace(sp);
    if (err && errlen)
        snprintf(err, errlen, "out of memory");
    return NULL;
}

tpNavSpace *tpCloneNavSpace(const tpNavSpace *src)
{
    tpNavSpace *sp = tpCreateNavSpace(&src->def, src->n, NULL, 0);
    if (!sp)
        return NULL;
    size_t n = (size_t)src->n;
    if (src->nedges > 0) {
        sp->edges = malloc((size_t)src->nedges * sizeof *sp->edges);
        if (!sp->edges) {
            tpDestroyNavSpace(sp);
            return NULL;
        }
        memcpy(sp->edges, src->edges, (size_t)src->nedges * sizeof *sp->edges);
        sp->cap_edges = (size_t)src->nedges;
    }
    sp->nedges = src->nedges;
    memcpy(sp->bodies, src->bodies, n * sizeof *sp->bodies);
    memcpy(sp->edge_of, src->edge_of, n * n * sizeof *sp->edge_of);
    memcpy(sp->obst, src->obst, n * n * sizeof *sp->obst);
    memcpy(sp->nobst, src->nobst, n * sizeof *sp->nobst);
    sp->observed = src->observed;
    sp->t = src->t;
    sp->t_first = src->t_first;
    sp->nupdates = src->nupdates;
    sp->stats = src->stats;
    return sp;
}

void tpDestroyNavSpace(tpNavSpace *sp)
{
    if (!sp)
        return;
    free(sp->bodies);
    free(sp->edge_of);
    free(sp->edges);
    free(sp->obst);
    free(sp->nobst);
    free(sp->hits);
    free(sp->edge_now);
    free(sp->target_of);
    free(sp->closed);
    free(sp->n_cell);
    free(sp->n_tick);
    free(sp->n_parent);
    free(sp->n_g);
    tpBucketQueue_Free(&sp->open);
    free(sp->tobs);
    free(sp->tsurf);
    free(sp->tready);
    free(sp->dist);
    free(sp->prev);
    free(sp->done);
    free(sp);
}

const tpNavSpaceDef *tpNavSpace_Def(const tpNavSpace *sp)
{
    return &sp->def;
}
int tpNavSpace_BodyCount(const tpNavSpace *sp)
{
    return sp->n;
}
const tpNavSpaceStats *tpNavSpace_Stats(const tpNavSpace *sp)
{
    return &sp->stats;
}
void tpNavSpace_ResetStats(tpNavSpace *sp)
{
    memset(&sp->stats, 0, sizeof sp->stats);
}
int tpNavSpace_EdgeCount(const tpNavSpace *sp)
{
    return sp->nedges;
}

size_t tpNavSpace_Bytes(const tpNavSpace *sp)
{
    size_t n = (size_t)sp->n;
    return sizeof *sp + n * sizeof(tpNavSpaceBody) + 2 * n * n * sizeof(int) + n * (sizeof(int) * 3 + sizeof(double)) +
           sp->cap_edges * sizeof(tpNavSpaceEdge) + sp->cap_cells * sizeof(int) + sp->cap_closed +
           sp->cap_nodes * (3 * sizeof(int) + sizeof(double)) + (2 * sp->open.nkeys + sp->open.nids) * sizeof(int32_t) +
           sp->cap_tobs * 9 * sizeof(double) + sp->cap_ticks * (sizeof(tpRect) + 1) +
           sp->cap_hits * sizeof(tpSpaceHit) + sp->cap_now;
}

const tpNavSpaceBody *tpNavSpace_Body(const tpNavSpace *sp, int k)
{
    return sp->observed && k >= 0 && k < sp->n ? &sp->bodies[k] : NULL;
}

const tpNavSpaceEdge *tpNavSpace_Edge(const tpNavSpace *sp, int k)
{
    return k >= 0 && k < sp->nedges ? &sp->edges[k] : NULL;
}

const tpNavSpaceEdge *tpNavSpace_FindEdge(const tpNavSpace *sp, int from, int to)
{
    if (from < 0 || to < 0 || from >= sp->n || to >= sp->n)
        return NULL;
    int k = sp->edge_of[(size_t)from * (size_t)sp->n + (size_t)to];
    return k < 0 ? NULL : &sp->edges[k];
}

/* ------------------------------------------------------------------------------------------ */
/* Geometry                                                                                    */

/* Body k extrapolated by s seconds (s >= 0, clamped to the horizon by the callers). */
static void body_at(const tpNavSpaceBody *b, double s, double c[3], double *yaw)
{
    for (int a = 0; a < 3; a++)
        c[a] = b->center[a] + b->vel[a] * s;
    *yaw = b->yaw + b->yaw_rate * s;
}

/* The standable rectangle of surface b at offset s (inset by `inset`; h may come out <= 0). */
static tpRect standable_(const tpNavSpaceBody *b, double s, double inset)
{
    tpRect r;
    double c[3], yaw;
    body_at(b, s, c, &yaw);
    r.c[0] = c[0];
    r.c[1] = c[1];
    r.ax[0] = cos(yaw);
    r.ax[1] = sin(yaw);
    r.h[0] = b->half[0] - inset;
    r.h[1] = b->half[1] - inset;
    r.top = c[2] + b->half[2];
    return r;
}

static void rect_to_local(const tpRect *r, const double p[2], double l[2])
{
    double dx = p[0] - r->c[0], dy = p[1] - r->c[1];
    l[0] = dx * r->ax[0] + dy * r->ax[1];
    l[1] = -dx * r->ax[1] + dy * r->ax[0];
}

static void rect_to_world(const tpRect *r, const double l[2], double p[2])
{
    p[0] = r->c[0] + l[0] * r->ax[0] - l[1] * r->ax[1];
    p[1] = r->c[1] + l[0] * r->ax[1] + l[1] * r->ax[0];
}

/* Closest point of r to p (world), returns the distance. */
static double rect_closest(const tpRect *r, const double p[2], double q[2])
{
    double l[2];
    rect_to_local(r, p, l);
    l[0] = tpClamp(l[0], -r->h[0], r->h[0]);
    l[1] = tpClamp(l[1], -r->h[1], r->h[1]);
    rect_to_world(r, l, q);
    return hypot(p[0] - q[0], p[1] - q[1]);
}

static void rect_corners(const tpRect *r, double v[4][2])
{
    static const double sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
    for (int k = 0; k < 4; k++) {
        double l[2] = {sx[k] * r->h[0], sy[k] * r->h[1]};
        rect_to_world(r, l, v[k]);
    }
}

/* Separating-axis overlap test of two rectangles (closed). */
static bool rect_overlap(const tpRect *a, const tpRect *b)
{
    const tpRect *rs[2] = {a, b};
    double d[2] = {b->c[0] - a->c[0], b->c[1] - a->c[1]};
    for (int k = 0; k < 2; k++)
        for (int ax = 0; ax < 2; ax++) {
            const tpRect *r = rs[k];
            double u[2] = {ax == 0 ? r->ax[0] : -r->ax[1], ax == 0 ? r->ax[1] : r->ax[0]};
            double ra = 0, rb = 0;
            for (int m = 0; m < 2; m++) {
                const tpRect *o = rs[m];
                double ox[2] = {o->ax[0], o->ax[1]}, oy[2] = {-o->ax[1], o->ax[0]};
                double e = o->h[0] * fabs(ox[0] * u[0] + ox[1] * u[1]) + o->h[1] * fabs(oy[0] * u[0] + oy[1] * u[1]);
                if (m == 0)
                    ra = e;
                else
                    rb = e;
            }
            if (fabs(d[0] * u[0] + d[1] * u[1]) > ra + rb)
                return false;
        }
    return true;
}

/* Distance between two rectangles with the closest points pa (on a) and pb (on b). When they
 * overlap: pa = b's centre clamped into a, pb = pa clamped into b (distance 0). */
static double rect_distance(const tpRect *a, const tpRect *b, double pa[2], double pb[2])
{
    if (rect_overlap(a, b)) {
        rect_closest(a, b->c, pa);
        rect_closest(b, pa, pb);
        return 0;
    }
    double best = INFINITY, v[4][2], q[2];
    rect_corners(a, v);
    for (int k = 0; k < 4; k++) {
        double dd = rect_closest(b, v[k], q);
        if (dd < best) {
            best = dd;
            pa[0] = v[k][0], pa[1] = v[k][1], pb[0] = q[0], pb[1] = q[1];
        }
    }
    rect_corners(b, v);
    for (int k = 0; k < 4; k++) {
        double dd = rect_closest(a, v[k], q);
        if (dd < best) {
            best = dd;
            pb[0] = v[k][0], pb[1] = v[k][1], pa[0] = q[0], pa[1] = q[1];
        }
    }
    /* facing edges: prefer the pair on the line toward b's centre when it is as close (the middle
       of the facing part rather than a corner) */
    double qa[2], qb[2];
    rect_closest(a, b->c, qa);
    if (rect_closest(b, qa, qb) <= best + 1e-9) {
        pa[0] = qa[0], pa[1] = qa[1], pb[0] = qb[0], pb[1] = qb[1];
    }
    return best;
}

/* Ballistic jump to a landing dz higher (negative: lower): the flight time of the highest allowed
 * vertical impulse, or -1 if dz cannot be reached within the impulse and landing bounds. */
static double jump_time(const tpNavSpaceDef *d, double dz)
{
    double g = d->gravity;
    double vz2 = fmin(d->jump_vz * d->jump_vz, d->land_speed * d->land_speed + 2 * g * dz);
    if (vz2 < 0 || vz2 < 2 * g * dz)
        return -1;
    double vz = sqrt(vz2);
    return (vz + sqrt(fmax(0, vz2 - 2 * g * dz))) / g;
}

/* The relation a character can take across a horizontal distance dist to a face dz higher
 * (negative: lower): a step, else a jump, else none. */
static tpNavRelation reach_(const tpNavSpaceDef *d, double dist, double dz)
{
    if (dz >= -d->step_down && dz <= d->step_up && dist <= d->step_gap)
        return TP_NAV_REL_STEP;
    if (d->jump) {
        double tj = jump_time(d, dz);
        if (tj >= 0 && dist <= d->jump_vh * tj)
            return TP_NAV_REL_JUMP;
    }
    return 0;
}

/* a and b overlap seen from above and the higher face stands more than step_up above the lower
 * one: the higher body is an obstacle on the lower face, so the access is beside it. Candidates:
 * the middle of each side of the higher face pushed out by radius + cell / 4 onto the lower face,
 * paired with its nearest standable point of the higher face; the closest pair whose lower point
 * is standable wins (ties: the first side, -x, +x, -y, +y). Returns the distance, or -1 if the
 * faces are not in that case or no candidate is standable. ps on a, pt on b. */
static double beside_access(const tpNavSpaceDef *d, const tpRect *a, const tpRect *b, double ps[2], double pt[2])
{
    bool b_up = b->top > a->top;
    const tpRect *up = b_up ? b : a, *lo = b_up ? a : b;
    if (up->top - lo->top <= d->step_up)
        return -1;
    double best = -1;
    static const double side[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (int k = 0; k < 4; k++) {
        double reach = (side[k][0] != 0 ? up->h[0] : up->h[1]) + d->edge + d->radius + d->cell / 4;
        double l[2] = {side[k][0] * reach, side[k][1] * reach}, ql[2], qu[2], ll[2];
        rect_to_world(up, l, ql);
        rect_to_local(lo, ql, ll);
        if (fabs(ll[0]) > lo->h[0] || fabs(ll[1]) > lo->h[1])
            continue;
        double dist = rect_closest(up, ql, qu);
        if (best < 0 || dist < best) {
            best = dist;
            const double *src = b_up ? ql : qu, *dst = b_up ? qu : ql;
            ps[0] = src[0], ps[1] = src[1], pt[0] = dst[0], pt[1] = dst[1];
        }
    }
    return best;
}

/* Relation a -> b between two standable rectangles: the kind (0: none), the access point ps on a
 * and the landing point pt on b (world). */
static tpNavRelation relation_(const tpNavSpaceDef *d, const tpRect *a, const tpRect *b, double ps[2], double pt[2])
{
    double dist = -1;
    if (rect_overlap(a, b))
        dist = beside_access(d, a, b, ps, pt);
    if (dist < 0)
        dist = rect_distance(a, b, ps, pt);
    return reach_(d, dist, b->top - a->top);
}

/* Velocity of the world point p carried by body b (m/s). */
static void carried_(const tpNavSpaceBody *b, const double p[2], double v[3])
{
    v[0] = b->vel[0] - b->yaw_rate * (p[1] - b->center[1]);
    v[1] = b->vel[1] + b->yaw_rate * (p[0] - b->center[0]);
    v[2] = b->vel[2];
}

static bool space_standable(const tpNavSpace *sp, int k)
{
    const tpNavSpaceBody *b = &sp->bodies[k];
    return b->surface && b->half[0] > sp->def.edge && b->half[1] > sp->def.edge;
}

bool tpNavSpace_IsSurface(const tpNavSpace *sp, int k)
{
    return sp->observed && k >= 0 && k < sp->n && space_standable(sp, k);
}

/* Horizontal bounding radius of a body's footprint about its centre. */
static double foot_radius(const tpNavSpaceBody *b)
{
    return hypot(b->half[0], b->half[1]);
}

/* Does body o obstruct surface s over the horizon (swept bounds)? foot_* are the bodies'
 * foot_radius, speed_* their horizontal speeds (hypot), computed once per update. */
static bool obstructs(const tpNavSpace *sp, const tpNavSpaceBody *s, const tpNavSpaceBody *o, double foot_s,
                      double foot_o, double speed_s, double speed_o)
{
    double H = sp->def.horizon;
    double top = s->center[2] + s->half[2];
    double slo = top + sp->def.step_up + fmin(0, s->vel[2] * H), shi = top + sp->def.height + fmax(0, s->vel[2] * H);
    double olo = o->center[2] - o->half[2] + fmin(0, o->vel[2] * H);
    double ohi = o->center[2] + o->half[2] + fmax(0, o->vel[2] * H);
    if (ohi <= slo || olo >= shi)
        return false;
    double reach = foot_s + foot_o + sp->def.radius + H * (speed_s + speed_o);
    double dx = o->center[0] - s->center[0], dy = o->center[1] - s->center[1];
    return dx * dx + dy * dy < reach * reach; /* hypot was a fifth of an update */
}

/* ------------------------------------------------------------------------------------------ */
/* Observation: the topological graph                                                          */

static bool check_body(const tpNavSpaceBody *b, int k, char *err, size_t errlen)
{
    const double *v[4] = {b->center, b->half, b->vel, NULL};
    const char *names[3] = {"center", "half", "vel"};
    for (int f = 0; f < 3; f++)
        for (int a = 0; a < 3; a++) {
            double lim = f == 2 ? TP_MAX_SPEED : f == 1 ? TP_MAX_SIZE : TP_MAX_COORD;
            if (!(fabs(v[f][a]) <= lim) || (f == 1 && v[f][a] < 0)) {
                if (err && errlen)
                    snprintf(err, errlen, "bodies[%d].%s[%d]: expected a %s number, got %g", k + 1, names[f], a + 1,
                             f == 1 ? "non-negative" : "finite", v[f][a]);
                return false;
            }
        }
    if (!(fabs(b->yaw) <= 1e6) || !(fabs(b->yaw_rate) <= TP_MAX_SPEED)) {
        if (err && errlen)
            snprintf(err, errlen, "bodies[%d].%s: expected a finite number", k + 1,
                     fabs(b->yaw) <= 1e6 ? "yaw_rate" : "yaw");
        return false;
    }
    return true;
}

static tpNavSpaceEdge *space_new_edge(tpNavSpace *sp, int from, int to)
{
    tpNavSpaceEdge *grown = tpArray_Grow(sp->edges, &sp->cap_edges, (size_t)sp->nedges + 1, sizeof *grown);
    if (!grown)
        return NULL;
    sp->edges = grown;
    tpNavSpaceEdge *e = &sp->edges[sp->nedges];
    memset(e, 0, sizeof *e);
    e->from = from;
    e->to = to;
    e->stable = sp->nupdates == 1;
    sp->edge_of[(size_t)from * (size_t)sp->n + (size_t)to] = sp->nedges++;
    return e;
}

static void running_mean(double *mean, int *count, double v)
{
    (*count)++;
    *mean += (v - *mean) / *count;
}

bool tpNavSpace_Update(tpNavSpace *sp, double t, const tpNavSpaceBody *bodies, char *err, size_t errlen)
{
    if (!(fabs(t) <= 1e12) || (sp->observed && !(t > sp->t))) {
        if (err && errlen)
            snprintf(err, errlen, "t: expected a finite time after the last update (%g), got %g", sp->t, t);
        return false;
    }
    for (int k = 0; k < sp->n; k++)
        if (!check_body(&bodies[k], k, err, errlen))
            return false;
    /* The phases are timed in one update of 16 (times 16): with a few bodies three clock reads
     * were a third of an update. */
    const bool timed = (sp->nupdates & 15) == 0;
    double t0 = timed ? tpClock_Now() : 0;
    memcpy(sp->bodies, bodies, (size_t)sp->n * sizeof *bodies);
    if (!sp->observed)
        sp->t_first = t;
    sp->observed = true;
    sp->t = t;
    sp->nupdates++;
    sp->stats.updates++;
    const tpNavSpaceDef *d = &sp->def;
    int n = sp->n;
    /* the farthest horizontal reach of any relation, for a cheap bounding-circle reject */
    double reach = d->step_gap;
    if (d->jump) {
        double tj = jump_time(d, -d->land_speed * d->land_speed / (2 * d->gravity));
        double tz = jump_time(d, 0);
        reach = fmax(reach, d->jump_vh * fmax(tj, tz));
    }
    tpRect rect[TP_NAV_SPACE_MAX_BODIES];
    double bound[TP_NAV_SPACE_MAX_BODIES];
    double foot[TP_NAV_SPACE_MAX_BODIES], hspeed[TP_NAV_SPACE_MAX_BODIES];
    for (int i = 0; i < n; i++) {
        rect[i] = standable_(&bodies[i], 0, d->edge);
        bound[i] = hypot(fmax(0, rect[i].h[0]), fmax(0, rect[i].h[1]));
        foot[i] = foot_radius(&bodies[i]);
        hspeed[i] = hypot(bodies[i].vel[0], bodies[i].vel[1]);
    }
    /* phase 1, collision detection between interaction volumes: the relations holding now */
    long long checks = 0;
    int nhits = 0;
    for (int i = 0; i < n; i++) {
        bool si = space_standable(sp, i);
        int *ob = &sp->obst[(size_t)i * (size_t)n];
        sp->nobst[i] = 0;
        if (!si)
            continue;
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            checks++;
            if (obstructs(sp, &bodies[i], &bodies[j], foot[i], foot[j], hspeed[i], hspeed[j]))
                ob[sp->nobst[i]++] = j;
            double dx = rect[i].c[0] - rect[j].c[0], dy = rect[i].c[1] - rect[j].c[1],
                   far = bound[i] + bound[j] + reach;
            if (!space_standable(sp, j) || dx * dx + dy * dy > far * far)
                continue;
            checks++;
            tpSpaceHit h = {i, j, 0, {0, 0}, {0, 0}};
            h.kind = relation_(d, &rect[i], &rect[j], h.ps, h.pt);
            if (!h.kind)
                continue;
            tpSpaceHit *hits = tpArray_Grow(sp->hits, &sp->cap_hits, (size_t)nhits + 1, sizeof h);
            if (!hits)
                break; /* out of memory: the remaining relations stay unseen this update */
            sp->hits = hits;
            sp->hits[nhits++] = h;
        }
    }
    double t1 = timed ? tpClock_Now() : 0;
    /* phase 2, the graph: rising edges (new periods), observations, falling edges */
    uint8_t *now = tpArray_Grow(sp->edge_now, &sp->cap_now, (size_t)sp->nedges + (size_t)nhits, 1);
    if (now)
        sp->edge_now = now;
    else
        nhits = 0;
    if (sp->cap_now > 0) /* nothing allocated before the first edge */
        memset(sp->edge_now, 0, sp->cap_now);
    for (int k = 0; k < nhits; k++) {
        const tpSpaceHit *h = &sp->hits[k];
        int idx = sp->edge_of[(size_t)h->i * (size_t)n + (size_t)h->j];
        tpNavSpaceEdge *e = idx >= 0 ? &sp->edges[idx] : space_new_edge(sp, h->i, h->j);
        if (!e)
            continue; /* out of memory: the relation stays unknown */
        sp->edge_now[e - sp->edges] = 1;
        if (!e->valid) {
            if (e->periods > 0)
                running_mean(&e->mean_invalid, &e->ninvalid, t - e->since);
            e->periods++;
            e->valid = true;
            e->since = t;
        }
        e->kind = h->kind;
        double va[3], vb[3];
        carried_(&bodies[h->i], h->ps, va);
        carried_(&bodies[h->j], h->pt, vb);
        double speed = sqrt((va[0] - vb[0]) * (va[0] - vb[0]) + (va[1] - vb[1]) * (va[1] - vb[1]) +
                            (va[2] - vb[2]) * (va[2] - vb[2]));
        running_mean(&e->mean_speed, &e->nspeed, speed);
        if (e->nspeed == 1 || speed <= e->access_speed + 1e-9) { /* the slowest observation: a pause */
            e->access_speed = speed;
            rect_to_local(&rect[h->i], h->ps, e->access);
            rect_to_local(&rect[h->j], h->pt, e->land);
        }
    }
    for (int k = 0; k < sp->nedges; k++) {
        tpNavSpaceEdge *e = &sp->edges[k];
        if (sp->edge_now[k] || !e->valid)
            continue;
        if (e->since > sp->t_first) /* a period seen from its start (not cut by the first observation) */
            running_mean(&e->mean_valid, &e->nvalid, t - e->since);
        e->valid = false;
        e->stable = false;
        e->since = t;
    }
    sp->stats.checks += checks;
    if (timed) {
        sp->stats.cd_ms += 16e3 * (t1 - t0);
        sp->stats.graph_ms += 16e3 * (tpClock_Now() - t1);
    }
    return true;
}

bool tpNavSpace_EdgePeriodic(const tpNavSpaceEdge *e)
{
    return e->nvalid >= 1 && e->ninvalid >= 1;
}

double tpNavSpace_EdgeCost(const tpNavSpace *sp, const tpNavSpaceEdge *e)
{
    const tpNavSpaceDef *d = &sp->def;
    if (e->stable && e->valid)
        return d->epsilon;
    if (e->mean_speed > d->max_rel_speed)
        return -1;
    if (e->nvalid >= 1 && e->mean_valid < d->min_valid)
        return -1;
    if (tpNavSpace_EdgePeriodic(e))
        return fmax(d->epsilon, e->mean_valid + e->mean_invalid);
    return e->valid ? d->epsilon : -1;
}

void tpNavSpace_ToWorld(const tpNavSpace *sp, int k, const double p[2], double out[3])
{
    tpRect r = standable_(&sp->bodies[k], 0, 0);
    rect_to_world(&r, p, out);
    out[2] = r.top;
}

int tpNavSpace_Locate(const tpNavSpace *sp, const double w[3], double local[2])
{
    int best = -1;
    double best_top = -INFINITY;
    for (int k = 0; sp->observed && k < sp->n; k++) {
        if (!space_standable(sp, k))
            continue;
        tpRect r = standable_(&sp->bodies[k], 0, sp->def.edge);
        double l[2];
        rect_to_local(&r, w, l);
        if (fabs(l[0]) <= r.h[0] && fabs(l[1]) <= r.h[1] && r.top <= w[2] + sp->def.step_up && r.top > best_top) {
            best = k;
            best_top = r.top;
            local[0] = l[0], local[1] = l[1];
        }
    }
    return best;
}

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
    tpRect r = standable_(&sp->bodies[s], off, 0);
    double p[2];
    rect_to_world(&r, l, p);
    const int *ob = &sp->obst[(size_t)s * (size_t)sp->n];
    for (int k = 0; k < sp->nobst[s]; k++) {
        const tpNavSpaceBody *o = &sp->bodies[ob[k]];
        sp->stats.obstruction_tests++;
        double oz = o->center[2] + o->vel[2] * off;
        if (oz + o->half[2] <= r.top + sp->def.step_up || oz - o->half[2] >= r.top + sp->def.height)
            continue;
        tpRect f = standable_(o, off, 0);
        double q[2];
        if (rect_closest(&f, p, q) < sp->def.radius)
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
        sp->tsurf[k] = standable_(&sp->bodies[s], off, 0);
        for (int m = 0; m < nob; m++) {
            const tpNavSpaceBody *o = &sp->bodies[ob[m]];
            tpTickObs *t = &to[m];
            t->f = standable_(o, off, 0);
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
    rect_to_world(sr, l, p);
    double lo = sr->top + sp->def.step_up, hi = sr->top + sp->def.height;
    sp->stats.obstruction_tests += nob;
    for (int m = 0; m < nob; m++) {
        const tpTickObs *t = &to[m];
        if (t->zhi <= lo || t->zlo >= hi || p[0] <= t->box[0] || p[0] >= t->box[1] || p[1] <= t->box[2] ||
            p[1] >= t->box[3])
            continue;
        if (rect_closest(&t->f, p, q) < r)
            return true;
    }
    return false;
}

bool tpNavSpace_Blocked(tpNavSpace *sp, int k, const double p[2], double ahead)
{
    if (!sp->observed || k < 0 || k >= sp->n || !space_standable(sp, k))
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
    if (!sp->observed || s < 0 || s >= sp->n || !space_standable(sp, s))
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
    tpRect ri = standable_(from, 0, d->edge), rj = standable_(to, 0, d->edge);
    double P[2], W[2];
    rect_to_world(&ri, p, P);
    rect_to_world(&rj, land, W);
    double dz = rj.top - ri.top;
    tpNavRelation kind = reach_(d, hypot(W[0] - P[0], W[1] - P[1]), dz);
    if (!kind)
        return 0;
    double T = kind == TP_NAV_REL_JUMP ? jump_time(d, dz) : fmax(hypot(W[0] - P[0], W[1] - P[1]), d->cell) / d->speed;
    if (T > d->horizon)
        return 0;
    /* the take-off is from where the character is now; the landing point is extrapolated */
    tpRect rjT = standable_(to, T, d->edge);
    double pt2[2];
    rect_to_world(&rjT, land, pt2);
    double dz2 = rjT.top - ri.top;
    kind = reach_(d, hypot(pt2[0] - P[0], pt2[1] - P[1]), dz2);
    if (kind == TP_NAV_REL_JUMP)
        T = jump_time(d, dz2);
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
        tpRect r = standable_(&sp->bodies[a->tr_to], 0, 0);
        double l[2];
        rect_to_local(&r, a->tr_land, l);
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
