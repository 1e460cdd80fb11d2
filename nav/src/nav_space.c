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
#include "nav_internal.h"
#include "nav_space_internal.h"

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
tpRect tpNavSpace_StandableRect(const tpNavSpaceBody *b, double s, double inset)
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

void tpNavRect_ToLocal(const tpRect *r, const double p[2], double l[2])
{
    double dx = p[0] - r->c[0], dy = p[1] - r->c[1];
    l[0] = dx * r->ax[0] + dy * r->ax[1];
    l[1] = -dx * r->ax[1] + dy * r->ax[0];
}

void tpNavRect_ToWorld(const tpRect *r, const double l[2], double p[2])
{
    p[0] = r->c[0] + l[0] * r->ax[0] - l[1] * r->ax[1];
    p[1] = r->c[1] + l[0] * r->ax[1] + l[1] * r->ax[0];
}

/* Closest point of r to p (world), returns the distance. */
double tpNavRect_Closest(const tpRect *r, const double p[2], double q[2])
{
    double l[2];
    tpNavRect_ToLocal(r, p, l);
    l[0] = tpClamp(l[0], -r->h[0], r->h[0]);
    l[1] = tpClamp(l[1], -r->h[1], r->h[1]);
    tpNavRect_ToWorld(r, l, q);
    return hypot(p[0] - q[0], p[1] - q[1]);
}

static void rect_corners(const tpRect *r, double v[4][2])
{
    static const double sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
    for (int k = 0; k < 4; k++) {
        double l[2] = {sx[k] * r->h[0], sy[k] * r->h[1]};
        tpNavRect_ToWorld(r, l, v[k]);
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
        tpNavRect_Closest(a, b->c, pa);
        tpNavRect_Closest(b, pa, pb);
        return 0;
    }
    double best = INFINITY, v[4][2], q[2];
    rect_corners(a, v);
    for (int k = 0; k < 4; k++) {
        double dd = tpNavRect_Closest(b, v[k], q);
        if (dd < best) {
            best = dd;
            pa[0] = v[k][0], pa[1] = v[k][1], pb[0] = q[0], pb[1] = q[1];
        }
    }
    rect_corners(b, v);
    for (int k = 0; k < 4; k++) {
        double dd = tpNavRect_Closest(a, v[k], q);
        if (dd < best) {
            best = dd;
            pb[0] = v[k][0], pb[1] = v[k][1], pa[0] = q[0], pa[1] = q[1];
        }
    }
    /* facing edges: prefer the pair on the line toward b's centre when it is as close (the middle
       of the facing part rather than a corner) */
    double qa[2], qb[2];
    tpNavRect_Closest(a, b->c, qa);
    if (tpNavRect_Closest(b, qa, qb) <= best + 1e-9) {
        pa[0] = qa[0], pa[1] = qa[1], pb[0] = qb[0], pb[1] = qb[1];
    }
    return best;
}

/* Ballistic jump to a landing dz higher (negative: lower): the flight time of the highest allowed
 * vertical impulse, or -1 if dz cannot be reached within the impulse and landing bounds. */
double tpNavSpace_JumpTime(const tpNavSpaceDef *d, double dz)
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
tpNavRelation tpNavSpace_Reach(const tpNavSpaceDef *d, double dist, double dz)
{
    if (dz >= -d->step_down && dz <= d->step_up && dist <= d->step_gap)
        return TP_NAV_REL_STEP;
    if (d->jump) {
        double tj = tpNavSpace_JumpTime(d, dz);
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
        tpNavRect_ToWorld(up, l, ql);
        tpNavRect_ToLocal(lo, ql, ll);
        if (fabs(ll[0]) > lo->h[0] || fabs(ll[1]) > lo->h[1])
            continue;
        double dist = tpNavRect_Closest(up, ql, qu);
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
static tpNavRelation rect_relation(const tpNavSpaceDef *d, const tpRect *a, const tpRect *b, double ps[2], double pt[2])
{
    double dist = -1;
    if (rect_overlap(a, b))
        dist = beside_access(d, a, b, ps, pt);
    if (dist < 0)
        dist = rect_distance(a, b, ps, pt);
    return tpNavSpace_Reach(d, dist, b->top - a->top);
}

/* Velocity of the world point p carried by body b (m/s). */
static void carried_velocity(const tpNavSpaceBody *b, const double p[2], double v[3])
{
    v[0] = b->vel[0] - b->yaw_rate * (p[1] - b->center[1]);
    v[1] = b->vel[1] + b->yaw_rate * (p[0] - b->center[0]);
    v[2] = b->vel[2];
}

bool tpNavSpace_Standable(const tpNavSpace *sp, int k)
{
    const tpNavSpaceBody *b = &sp->bodies[k];
    return b->surface && b->half[0] > sp->def.edge && b->half[1] > sp->def.edge;
}

bool tpNavSpace_IsSurface(const tpNavSpace *sp, int k)
{
    return sp->observed && k >= 0 && k < sp->n && tpNavSpace_Standable(sp, k);
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
        double tj = tpNavSpace_JumpTime(d, -d->land_speed * d->land_speed / (2 * d->gravity));
        double tz = tpNavSpace_JumpTime(d, 0);
        reach = fmax(reach, d->jump_vh * fmax(tj, tz));
    }
    tpRect rect[TP_NAV_SPACE_MAX_BODIES];
    double bound[TP_NAV_SPACE_MAX_BODIES];
    double foot[TP_NAV_SPACE_MAX_BODIES], hspeed[TP_NAV_SPACE_MAX_BODIES];
    for (int i = 0; i < n; i++) {
        rect[i] = tpNavSpace_StandableRect(&bodies[i], 0, d->edge);
        bound[i] = hypot(fmax(0, rect[i].h[0]), fmax(0, rect[i].h[1]));
        foot[i] = foot_radius(&bodies[i]);
        hspeed[i] = hypot(bodies[i].vel[0], bodies[i].vel[1]);
    }
    /* phase 1, collision detection between interaction volumes: the relations holding now */
    long long checks = 0;
    int nhits = 0;
    for (int i = 0; i < n; i++) {
        bool si = tpNavSpace_Standable(sp, i);
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
            if (!tpNavSpace_Standable(sp, j) || dx * dx + dy * dy > far * far)
                continue;
            checks++;
            tpSpaceHit h = {i, j, 0, {0, 0}, {0, 0}};
            h.kind = rect_relation(d, &rect[i], &rect[j], h.ps, h.pt);
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
        carried_velocity(&bodies[h->i], h->ps, va);
        carried_velocity(&bodies[h->j], h->pt, vb);
        double speed = sqrt((va[0] - vb[0]) * (va[0] - vb[0]) + (va[1] - vb[1]) * (va[1] - vb[1]) +
                            (va[2] - vb[2]) * (va[2] - vb[2]));
        running_mean(&e->mean_speed, &e->nspeed, speed);
        if (e->nspeed == 1 || speed <= e->access_speed + 1e-9) { /* the slowest observation: a pause */
            e->access_speed = speed;
            tpNavRect_ToLocal(&rect[h->i], h->ps, e->access);
            tpNavRect_ToLocal(&rect[h->j], h->pt, e->land);
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
    TP_VALIDATE(tpNavSpace_Valid, sp);
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
    tpRect r = tpNavSpace_StandableRect(&sp->bodies[k], 0, 0);
    tpNavRect_ToWorld(&r, p, out);
    out[2] = r.top;
}

int tpNavSpace_Locate(const tpNavSpace *sp, const double w[3], double local[2])
{
    int best = -1;
    double best_top = -INFINITY;
    for (int k = 0; sp->observed && k < sp->n; k++) {
        if (!tpNavSpace_Standable(sp, k))
            continue;
        tpRect r = tpNavSpace_StandableRect(&sp->bodies[k], 0, sp->def.edge);
        double l[2];
        tpNavRect_ToLocal(&r, w, l);
        if (fabs(l[0]) <= r.h[0] && fabs(l[1]) <= r.h[1] && r.top <= w[2] + sp->def.step_up && r.top > best_top) {
            best = k;
            best_top = r.top;
            local[0] = l[0], local[1] = l[1];
        }
    }
    return best;
}
