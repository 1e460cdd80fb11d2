/* nav_to: go to a sampled point around the static bodies (Kuffner 1998 through tp/nav.h).
 *
 * On the fresh call the goal is sampled and the start position recorded in V; the grid (the
 * static bodies rasterised in the body's height band, grown by its radius plus half the look-ahead)
 * and the A* path from
 * the start cell to the goal cell are pure functions of (scene, skill constants, start, goal).
 * Every call looks them up in a small cache keyed by exactly those inputs (recomputing on a miss
 * gives the identical result), so determinism and replay do not depend on the cache.
 * The follower's progress lives in V; the controller's forward and yaw accelerations become a
 * planar force (plus a lateral damping force: the disc model has no sideways speed) and a yaw
 * torque, clamped to the body's limits.
 *
 * The variables: NAV_V_GOAL_X/Y and NAV_V_CRUISE (skill_internal.h), the NAVTO_V_ enum below, and
 * V[TP_V_INTEGRAL_X] as the integral of the forward speed error (m).
 *
 * The caches belong to the loaded domain (tpSkillCache in tpSkillCall.cache): nothing is
 * process-wide, and destroying the domain frees them. Not thread-safe (a domain plans on one
 * thread). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nav_cache.h"
#include "nav_overlay.h"
#include "nav_skill.h"
#include "skill_validate.h"
#include "skill_internal.h"
#include "tp/base.h"
#include "tp/nav.h"

enum {
    NAVTO_V_STATUS = 4,   /* 1 following the path, -1 no path (brake and end the segment) */
    NAVTO_V_START_X = 5,  /* m, world: the start of the path (the body's position at the fresh call) */
    NAVTO_V_START_Y = 6,  /* m */
    NAVTO_V_SEG = 7,      /* the follower's progress: path segment index */
    NAVTO_V_SEG_FRAC = 8, /* the follower's progress: fraction along that segment */
    NAVTO_V_DONE = 9,     /* 1 once the follower reached the end of the path */
};

#define NAV_TIMEOUT 30.0 /* s: the longest segment of nav_to and follow_field (follow_path: the same) */
static void freeMovers(MoverMemo *m);

/* Grid over the static bodies' footprints (planes excluded) and the two points, with a margin. */
static void releaseGrid(NavGridEntry *e)
{
    tpDestroyNavGrid(e->grid);
    for (int k = 0; k < NAV_PATH_CACHE; ++k) {
        free(e->paths[k].points);
    }
    for (int k = 0; k < NAV_FIELD_CACHE; ++k) {
        tpDestroyNavField(e->fields[k].field);
    }
    memset(e, 0, sizeof *e);
}

static void releaseTrack(TrackCache *tc)
{
    tpDestroyNavMoveTree(tc->tree);
    for (int q = 0; q < TRACK_TOGO_CACHE; ++q) {
        tpDestroyNavToGo(tc->togo[q]);
    }
    tpDestroyNavCarScratch(tc->scratch);
    free(tc->paths);
    memset(tc, 0, sizeof *tc);
}

static void destroyNavCache(void *p)
{
    NavCache *c = p;
    TP_VALIDATE(tpNavCache_Valid, c);
    for (int i = 0; i < NAV_GRID_CACHE; ++i) {
        releaseGrid(&c->grids[i]);
    }
    releaseTrack(&c->track);
    freeMovers(&c->movers);
    free(c);
}

/* The family's caches in the call's skill cache, made on first use; NULL when out of memory. */
static NavCache *navCache(tpSkillCache *cache);

/* The family's prologue: the body (cb, *bd) and the family's caches, NULL without a skill cache or
 * out of memory (f then returns -1). With a `status` slot (>= 0), a fresh planning call samples the
 * goal (tpSkill_NavGoal) and sets V[status] = 1 (recording: V already holds them). */
static NavCache *navBegin(const tpSkillDef *sk, tpSkillCall *call, int status, tpCtlBody *cb, const tpBodyDef **bd)
{
    *bd = tpSkill_NavBegin(sk, call, cb);
    NavCache *nc = *bd ? navCache(call->cache) : NULL;
    if (nc && status >= 0 && call->fresh && !call->overlay) {
        tpSkill_NavGoal(sk, call, cb, call->V);
        call->V[status] = 1;
    }
    return nc;
}

/* The family's caches in the call's skill cache, made on first use; NULL when out of memory. */
static NavCache *navCache(tpSkillCache *cache)
{
    void **slot = tpSkillCache_Slot(cache, TP_SKILL_NAV_TO, destroyNavCache);
    if (!*slot) {
        *slot = calloc(1, sizeof(NavCache));
    }
    return *slot;
}

static NavGridEntry *gridFor(tpSkillCache *cache, NavCache *c, const tpWorld *world, int self, const double params[4],
                             const double a[2], const double b[2])
{
    /* Bounds: the footprints of every non-plane static body, plus start and goal. */
    const double cell = params[0], radius = params[1];
    double bounds[4];
    uint64_t statics = tpSkill_NavBounds(cache, world, self, params[2], params[3], a, b, 2 * radius + 4 * cell, bounds);
    uint64_t h1[3] = {tpHash_Fnv1a64(params, 4 * sizeof(double)), statics, tpHash_Fnv1a64(bounds, sizeof bounds)};
    uint64_t key = tpHash_Fnv1a64(h1, sizeof h1);
    for (int i = 0; i < NAV_GRID_CACHE; ++i) {
        if (c->grids[i].grid && c->grids[i].key == key && memcmp(c->grids[i].params, params, 4 * sizeof(double)) == 0) {
            return &c->grids[i];
        }
    }
    NavGridEntry *e = &c->grids[c->next_grid];
    c->next_grid = (c->next_grid + 1) % NAV_GRID_CACHE;
    releaseGrid(e);
    tpNavGridDef gd = tpSkill_GridOver(bounds, cell, NAV_MAX_SIDE, params[2], params[3]);
    e->grid = tpCreateNavGrid(&gd, NULL, 0);
    if (!e->grid) {
        return NULL;
    }
    e->key = key;
    memcpy(e->params, params, 4 * sizeof(double));
    tpSkill_AddStatics(e->grid, world, self);
    tpNavGrid_Grow(e->grid, radius);
    TP_VALIDATE(tpNavCache_Valid, c); /* a new grid (a hit changes nothing) */
    return e;
}

static NavPathEntry *pathFor(NavGridEntry *e, const double a[2], const double b[2])
{
    const tpNavGridDef *d = tpNavGrid_Def(e->grid);
    int si = (int)floor((a[0] - d->x0) / d->cell), sj = (int)floor((a[1] - d->y0) / d->cell);
    int gi = (int)floor((b[0] - d->x0) / d->cell), gj = (int)floor((b[1] - d->y0) / d->cell);
    for (int k = 0; k < NAV_PATH_CACHE; ++k) {
        NavPathEntry *p = &e->paths[k];
        if (p->points && p->si == si && p->sj == sj && p->gi == gi && p->gj == gj) {
            return p;
        }
    }
    NavPathEntry *p = &e->paths[e->next_path];
    e->next_path = (e->next_path + 1) % NAV_PATH_CACHE;
    free(p->points);
    memset(p, 0, sizeof *p);
    p->si = si;
    p->sj = sj;
    p->gi = gi;
    p->gj = gj;
    int ssi = si, ssj = sj, ggi = gi, ggj = gj;
    tpNavPath path = {0};
    tpNavPlanDef pd = tpDefaultNavPlanDef();
    pd.smooth = true;
    if (tpNavGrid_NearestFree(e->grid, &ssi, &ssj) && tpNavGrid_NearestFree(e->grid, &ggi, &ggj) &&
        tpNav_PlanCells(e->grid, &pd, ssi, ssj, ggi, ggj, &path) == TP_NAV_OK) {
        p->npoints = path.npoints;
        p->points = path.points; /* take ownership */
        path.points = NULL;
    } else {
        p->points = malloc(sizeof(double) * 2); /* a non-NULL marker for "no path" */
        p->npoints = 0;
    }
    tpNavPath_Free(&path);
    return p->points ? p : NULL;
}

static int run_nav_to(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb;
    const tpBodyDef *bd;
    NavCache *nc = navBegin(sk, call, NAVTO_V_STATUS, &cb, &bd);
    if (!nc) {
        return -1;
    }
    if (call->fresh && !call->overlay) {
        V[NAVTO_V_START_X] = cb.s.pos[0];
        V[NAVTO_V_START_Y] = cb.s.pos[1];
    }
    /* Height band: the body's vertical extent above a 2 cm step (so the ground it stands on and
     * low kerbs do not block); radius: the body's horizontal radius unless given. */
    double half_h = tpSkill_HalfHeight(bd);
    /* default clearance: the body's radius plus half the look-ahead, which bounds how far the
     * controller cuts inside a corner of the path */
    double radius = sk->nav.radius > 0 ? sk->nav.radius : cb.radius + 0.5 * sk->nav.lookahead;
    /* The band uses the start height (V does not change while busy, so neither does the grid). */
    double params[4] = {sk->nav.cell, radius, 0, 0};
    double z0 = bd->pos[2];
    params[2] = z0 - half_h + 0.02;
    params[3] = z0 + half_h;
    double start[2] = {V[NAVTO_V_START_X], V[NAVTO_V_START_Y]}, goal[2] = {V[NAV_V_GOAL_X], V[NAV_V_GOAL_Y]};
    NavGridEntry *ge = NULL;
    NavPathEntry *pe = NULL;
    if ((int)V[NAVTO_V_STATUS] == 1) {
        NavToMemo *m = &nc->navto;
        const double in[8] = {params[0], params[1], params[2], params[3], start[0], start[1], goal[0], goal[1]};
        if (m->world == call->world && m->self == sk->body && memcmp(m->in, in, sizeof in) == 0 && m->ge->grid &&
            m->ge->key == m->grid_key && m->pe->points && m->pe->si == m->cells[0] && m->pe->sj == m->cells[1] &&
            m->pe->gi == m->cells[2] && m->pe->gj == m->cells[3]) {
            ge = m->ge;
            pe = m->pe;
        } else {
            const double t_search = tpClock_Now();
            ge = gridFor(call->cache, nc, call->world, sk->body, params, start, goal);
            pe = ge ? pathFor(ge, start, goal) : NULL;
            tpSkill_SearchDone(call->cache, t_search);
            m->world = NULL;
            if (pe) {
                *m = (NavToMemo){call->world, sk->body, {0}, ge, ge->key, pe, {pe->si, pe->sj, pe->gi, pe->gj}};
                memcpy(m->in, in, sizeof in);
            }
            TP_VALIDATE(tpNavCache_Valid, nc); /* after a lookup that may have planned a path */
        }
    }
    if (call->overlay && call->fresh && ge) { /* recording: what this segment planned */
        tpNavOverlay_Grid(call->overlay, ge->grid);
        if (pe && pe->npoints > 0) {
            tpNavOverlay_Path(call->overlay, pe->points, pe->npoints);
        }
    }
    if (!pe || pe->npoints == 0) {
        V[NAVTO_V_STATUS] = -1; /* no path: brake and end the segment */
        tpCtl_Brake(&sk->gains, call, &cb);
        return 0;
    }
    tpNavFollowDef fd = tpSkill_FollowerDef(sk, call, V[NAV_V_CRUISE]);
    tpNavFollower f;
    tpNavFollower_Init(&f, &fd);
    f.points = pe->points; /* borrowed: the follower is not freed */
    f.npoints = pe->npoints;
    f.seg = (int)V[NAVTO_V_SEG];
    f.s = V[NAVTO_V_SEG_FRAC];
    f.done = V[NAVTO_V_DONE] != 0;
    double c = cos(cb.yaw), s = sin(cb.yaw);
    tpNavAgent ag = {cb.s.pos[0], cb.s.pos[1], cb.yaw, cb.s.vel[0] * c + cb.s.vel[1] * s, cb.s.angvel[2]};
    if (ag.v < 0) {
        ag.v = 0;
    }
    double acc, alpha;
    tpNavFollower_Control(&f, &ag, &acc, &alpha);
    V[NAVTO_V_SEG] = f.seg;
    V[NAVTO_V_SEG_FRAC] = f.s;
    V[NAVTO_V_DONE] = f.done;
    (void)alpha; /* the torque is the skill's PI law on the commanded yaw rate */
    tpSkill_FollowerApply(sk, call, &cb, f.done, acc, f.omega_cmd, fd.kv, TP_V_YAW_INTEGRAL);
    double speed = hypot(cb.s.vel[0], cb.s.vel[1]);
    bool arrived = f.done && speed < 0.05;
    bool timed_out = call->t - V[TP_V_START] >= tpSkill_Timeout(sk, NAV_TIMEOUT);
    return (arrived || timed_out) ? 0 : 1;
}

/* ---- follow_field ----------------------------------------------------------------------------
 * NAV_V_GOAL_X/Y, NAV_V_CRUISE, FIELD_V_STATUS and the velocity-tracking integrals. The harmonic map of the goal cell
 * is cached like the grids (a pure function of the scene, the constants and the goal cell). */

enum {
    FIELD_V_STATUS = 4, /* 1 following, -1 no field or the body left the grid (brake, end) */
};

#define FIELD_N 15     /* local map order */
#define FIELD_RELAX 30 /* relaxations per step (cold start: the skill keeps no map between steps) */

static void freeMovers(MoverMemo *m)
{
    free(m->body);
    free(m->slot);
    free(m->radius);
    free(m->pos);
    free(m->start);
    free(m->items);
    free(m->loose);
    free(m->cand);
    memset(m, 0, sizeof *m);
}

/* Lists the moving bodies of `world` into m (positions not filled); false when out of memory. */
static bool listMovers(MoverMemo *m, const tpWorld *world)
{
    freeMovers(m);
    const int nb = tpWorld_BodyCount(world);
    size_t cap = nb > 0 ? (size_t)nb : 1;
    m->body = malloc(cap * sizeof *m->body);
    m->slot = malloc(cap * sizeof *m->slot);
    m->radius = malloc(cap * sizeof *m->radius);
    m->pos = malloc(2 * cap * sizeof *m->pos);
    m->start = malloc((MOVER_BUCKETS + 1) * sizeof *m->start);
    m->items = malloc(cap * sizeof *m->items);
    m->loose = malloc(cap * sizeof *m->loose);
    m->cand = malloc(cap * sizeof *m->cand);
    if (!m->body || !m->slot || !m->radius || !m->pos || !m->start || !m->items || !m->loose || !m->cand) {
        freeMovers(m);
        return false;
    }
    for (int i = 0; i < nb; ++i) {
        if (tpWorld_Body(world, i)->cls == TP_BODY_STATIC) {
            continue;
        }
        m->body[m->count] = i;
        m->slot[m->count] = tpWorld_StateSlot(world, i);
        m->radius[m->count] = tpCtl_Radius(world, i);
        m->max_radius = fmax(m->max_radius, m->radius[m->count]);
        ++m->count;
    }
    m->world = world;
    return true;
}

static void bucketMovers(MoverMemo *m);

/* The moving bodies of the call's world with their positions at the call's x and t, from the memo
 * (the same nonzero step) or filled into it; NULL when out of memory. */
static MoverMemo *moversFor(NavCache *c, const tpSkillCall *call)
{
    MoverMemo *m = &c->movers;
    if (m->world != call->world && !listMovers(m, call->world)) {
        return NULL;
    }
    if (call->step == 0 || m->step != call->step) {
        for (int k = 0; k < m->count; ++k) {
            if (m->slot[k] >= 0) {
                memcpy(m->pos + 2 * k, call->x[m->slot[k]].pos, 2 * sizeof(double)); /* as tpWorld_BodyState */
            } else {
                tpBodyState os;
                tpWorld_BodyState(call->world, call->x, call->t, m->body[k], &os);
                memcpy(m->pos + 2 * k, os.pos, 2 * sizeof(double));
            }
        }
        m->step = call->step;
        if (m->step != 0) {
            bucketMovers(m);
            TP_VALIDATE(tpNavMovers_Valid, m); /* once per control step, as the bucketing */
        }
    }
    return m;
}

/* The bucket of a finite coordinate along an axis of n buckets from o. */
static int moverBucket(double v, double o, double side, int n)
{
    double b = floor((v - o) / side);
    return b < 0 ? 0 : b >= n ? n - 1 : (int)b;
}

/* Sorts m's positions into its buckets (counting sort: each bucket keeps index order). */
static void bucketMovers(MoverMemo *m)
{
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int k = 0; k < m->count; ++k) {
        const double *p = m->pos + 2 * k;
        if (isfinite(p[0]) && isfinite(p[1])) {
            lo[0] = fmin(lo[0], p[0]);
            lo[1] = fmin(lo[1], p[1]);
            hi[0] = fmax(hi[0], p[0]);
            hi[1] = fmax(hi[1], p[1]);
        }
    }
    m->x0 = lo[0] <= hi[0] ? lo[0] : 0.0;
    m->y0 = lo[1] <= hi[1] ? lo[1] : 0.0;
    double ext = lo[0] <= hi[0] ? fmax(hi[0] - lo[0], hi[1] - lo[1]) : 0.0;
    m->side = fmax(MOVER_SIDE, ext / 63.0); /* so at most 64 buckets a side */
    m->nu = lo[0] <= hi[0] ? (int)fmin(64.0, floor((hi[0] - lo[0]) / m->side) + 1) : 1;
    m->nv = lo[0] <= hi[0] ? (int)fmin(64.0, floor((hi[1] - lo[1]) / m->side) + 1) : 1;
    const int nb = m->nu * m->nv;
    memset(m->start, 0, (size_t)(nb + 1) * sizeof *m->start);
    m->nloose = 0;
    for (int k = 0; k < m->count; ++k) { /* counts, shifted by one */
        const double *p = m->pos + 2 * k;
        if (isfinite(p[0]) && isfinite(p[1])) {
            m->start[moverBucket(p[1], m->y0, m->side, m->nv) * m->nu + moverBucket(p[0], m->x0, m->side, m->nu) + 1]++;
        } else {
            m->loose[m->nloose++] = k;
        }
    }
    for (int b = 0; b < nb; ++b) {
        m->start[b + 1] += m->start[b];
    }
    for (int k = 0; k < m->count; ++k) { /* fill: start[b] runs to the end of bucket b, then is shifted back */
        const double *p = m->pos + 2 * k;
        if (isfinite(p[0]) && isfinite(p[1])) {
            int b = moverBucket(p[1], m->y0, m->side, m->nv) * m->nu + moverBucket(p[0], m->x0, m->side, m->nu);
            m->items[m->start[b]++] = k;
        }
    }
    for (int b = nb; b > 0; --b) {
        m->start[b] = m->start[b - 1];
    }
    m->start[0] = 0;
}

/* The movers whose positions may lie in [x - r, x + r] x [y - r, y + r] (a superset: whole
 * buckets, and every non-finite position), bucket by bucket, into m->cand; returns how many. */
static int moverQuery(MoverMemo *m, double x, double y, double r)
{
    int n = 0;
    if (x - r <= x + r && y - r <= y + r) { /* a NaN centre or radius: every mover */
        const int u0 = moverBucket(fmax(x - r, -1e300), m->x0, m->side, m->nu);
        const int u1 = moverBucket(fmin(x + r, 1e300), m->x0, m->side, m->nu);
        const int v0 = moverBucket(fmax(y - r, -1e300), m->y0, m->side, m->nv);
        const int v1 = moverBucket(fmin(y + r, 1e300), m->y0, m->side, m->nv);
        for (int v = v0; v <= v1; ++v) {
            for (int b = v * m->nu + u0; b <= v * m->nu + u1; ++b) {
                for (int q = m->start[b]; q < m->start[b + 1]; ++q) {
                    m->cand[n++] = m->items[q];
                }
            }
        }
        for (int q = 0; q < m->nloose; ++q) {
            m->cand[n++] = m->loose[q];
        }
    } else {
        for (int k = 0; k < m->count; ++k) {
            m->cand[n++] = k;
        }
    }
    return n;
}

static const tpNavField *fieldFor(const NavCache *c, NavGridEntry *e, int gi, int gj)
{
    for (int k = 0; k < NAV_FIELD_CACHE; ++k) {
        if (e->fields[k].field && e->fields[k].gi == gi && e->fields[k].gj == gj) {
            return e->fields[k].field;
        }
    }
    NavFieldEntry *f = &e->fields[e->next_field];
    e->next_field = (e->next_field + 1) % NAV_FIELD_CACHE;
    tpDestroyNavField(f->field);
    tpNavFieldDef fd = tpDefaultNavFieldDef();
    fd.tol = 1e-7;
    int goal[2] = {gi, gj};
    f->gi = gi;
    f->gj = gj;
    f->field = tpCreateNavField(e->grid, goal, 1, &fd, NULL, 0);
    TP_VALIDATE(tpNavCache_Valid, c); /* a new field */
    (void)c;
    return f->field;
}

static int run_follow_field(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb;
    const tpBodyDef *bd;
    NavCache *nc = navBegin(sk, call, FIELD_V_STATUS, &cb, &bd);
    if (!nc) {
        return -1;
    }
    double half_h = tpSkill_HalfHeight(bd);
    double radius = sk->nav.radius > 0 ? sk->nav.radius : cb.radius;
    double params[4] = {sk->nav.cell, radius, bd->pos[2] - half_h + 0.02, bd->pos[2] + half_h};
    double goal[2] = {V[NAV_V_GOAL_X], V[NAV_V_GOAL_Y]};
    const double t_search = tpClock_Now();
    NavGridEntry *ge =
        (int)V[FIELD_V_STATUS] == 1 ? gridFor(call->cache, nc, call->world, sk->body, params, goal, goal) : NULL;
    const tpNavField *field = NULL;
    int gi, gj;
    if (ge && tpNavGrid_CellOf(ge->grid, goal[0], goal[1], &gi, &gj) && tpNavGrid_NearestFree(ge->grid, &gi, &gj)) {
        field = fieldFor(nc, ge, gi, gj);
    }
    tpSkill_SearchDone(call->cache, t_search);
    if (call->overlay && call->fresh && field) { /* recording: the grid and the global map */
        tpNavOverlay_Grid(call->overlay, ge->grid);
        tpNavOverlay_Field(call->overlay, ge->grid, field);
    }
    int ci, cj;
    if (!field || !tpNavGrid_CellOf(ge->grid, cb.s.pos[0], cb.s.pos[1], &ci, &cj)) {
        V[FIELD_V_STATUS] = -1; /* no field, or the body left the grid: brake and end the segment */
        tpCtl_Brake(&sk->gains, call, &cb);
        return 0;
    }
    double speed = hypot(cb.s.vel[0], cb.s.vel[1]);
    double dist = hypot(goal[0] - cb.s.pos[0], goal[1] - cb.s.pos[1]);
    double vcmd[2], f[3];
    if (tpNavField_IsGoal(field, ci, cj) || dist < 2.0 * tpNavGrid_Def(ge->grid)->cell) {
        /* the goal cell: the final approach is a plain go-to */
        tpCtl_GoToVelocity(&sk->gains, &cb, goal, V[NAV_V_CRUISE], vcmd);
    } else {
        /* the others: every non-static body but this one that can reach into the local map (the
         * local step ignores the rest), as (x, y, radius) */
        MoverMemo *mm = moversFor(nc, call);
        if (!mm) {
            V[FIELD_V_STATUS] = -1; /* out of memory: brake and end the segment */
            tpCtl_Brake(&sk->gains, call, &cb);
            return 0;
        }
        double others[3 * 64];
        int no = 0;
        const double reach = (FIELD_N / 2 + 2) * tpNavGrid_Def(ge->grid)->cell + radius;
        /* With a step id only the movers in the buckets around are tested (the query box is a hair
         * wider than any body's test, so rounding cannot leave one out), bucket by bucket: the local
         * step does not depend on the order of the others (each fixes cells at 1), so only when
         * more than 64 pass does the order matter, and then the first 64 by index are kept, as the
         * full scan keeps them. */
        int npass = 0, *pass = mm->cand;
        if (mm->step != 0) {
            const double box = (reach + mm->max_radius) * (1 + 1e-9) + 1e-9;
            const int ncand = moverQuery(mm, cb.s.pos[0], cb.s.pos[1], box);
            for (int c = 0; c < ncand; ++c) {
                const int k = mm->cand[c];
                const double *pos = mm->pos + 2 * k, ro = mm->radius[k];
                if (mm->body[k] != sk->body && !(fabs(pos[0] - cb.s.pos[0]) > reach + ro) &&
                    !(fabs(pos[1] - cb.s.pos[1]) > reach + ro)) {
                    pass[npass++] = k; /* npass <= c: written behind the reading */
                }
            }
            if (npass > 64) {
                for (int a = 1; a < npass; ++a) { /* insertion sort by index */
                    int k = pass[a], b = a;
                    for (; b > 0 && pass[b - 1] > k; --b) {
                        pass[b] = pass[b - 1];
                    }
                    pass[b] = k;
                }
            }
        } else {
            for (int k = 0; k < mm->count && npass < 64; ++k) {
                const double *pos = mm->pos + 2 * k, ro = mm->radius[k];
                if (mm->body[k] != sk->body && !(fabs(pos[0] - cb.s.pos[0]) > reach + ro) &&
                    !(fabs(pos[1] - cb.s.pos[1]) > reach + ro)) {
                    pass[npass++] = k;
                }
            }
        }
        for (int c = 0; c < npass && no < 64; ++c) {
            const int k = pass[c];
            others[3 * no] = mm->pos[2 * k];
            others[3 * no + 1] = mm->pos[2 * k + 1];
            others[3 * no + 2] = mm->radius[k];
            ++no;
        }
        double dir[2];
        if (speed > 0.05) {
            dir[0] = cb.s.vel[0] / speed;
            dir[1] = cb.s.vel[1] / speed;
        } else if (!tpNavField_Descent(field, cb.s.pos[0], cb.s.pos[1], dir)) {
            dir[0] = cos(cb.yaw);
            dir[1] = sin(cb.yaw);
        }
        double phi[FIELD_N * FIELD_N];
        uint8_t fixed[FIELD_N * FIELD_N];
        for (int q = 0; q < FIELD_N * FIELD_N; ++q) {
            phi[q] = 1.0;
        }
        const double v0[2] = {0, 0};
        double nd[2];
        const double t_local = tpClock_Now();
        double fa = tpNav_LocalStep(ge->grid, field, cb.s.pos, dir, radius, 1.0, FIELD_N, FIELD_RELAX, 1, 0.0, v0,
                                    others, no, -1, phi, fixed, nd);
        tpSkill_SearchDone(call->cache, t_local);
        if (call->overlay) { /* recording: this step's local map */
            tpNavOverlay_Window(call->overlay, ge->grid, cb.s.pos, FIELD_N, phi);
        }
        double v = V[NAV_V_CRUISE] * fmax(fa, 0.05) * fmin(1.0, sk->gains.kp * dist / V[NAV_V_CRUISE]);
        vcmd[0] = nd[0] * v;
        vcmd[1] = nd[1] * v;
    }
    tpCtl_TrackVelocity(&sk->gains, &cb, vcmd, V, call->dt, f);
    double vc = hypot(vcmd[0], vcmd[1]);
    tpCtl_Apply(call, &cb, f, tpCtl_YawTorque(&sk->gains, &cb, vc > 0.1, atan2(vcmd[1], vcmd[0]), NULL, call->dt));
    bool arrived = dist < sk->gains.tolerance && speed < 0.05;
    bool timed_out = call->t - V[TP_V_START] >= tpSkill_Timeout(sk, NAV_TIMEOUT);
    return (arrived || timed_out) ? 0 : 1;
}

/* ---- drive_track ------------------------------------------------------------------------------
 * The variables are the TRACK_V_ enum below. One skill activation plays one clip:
 * it ends at the clip boundary, where the tactic re-selects it and the fresh call replans (A* over
 * the move tree from the body's current pose and nearest speed level). The move tree (for the
 * body's mass and yaw inertia) and the scene's wall segments are cached by their inputs. */

enum {
    TRACK_V_GOAL_X = 1,     /* m, world: the A* goal (the sampled point with the sampled lane offset) */
    TRACK_V_GOAL_Y = 2,     /* m */
    TRACK_V_CLIP = 3,       /* index of the clip being played in the move tree */
    TRACK_V_CLIP_START = 4, /* s: when the clip started */
    TRACK_V_HORIZON = 5,    /* clips: the sampled A* horizon, 0 = unset (TRACK_DEPTH) */
    TRACK_V_TOP = 6,        /* the sampled top speed level + 1, 0 = unset (any level) */
};

static TrackCache *trackFor(tpSkillCache *cache, NavCache *c, const tpWorld *world, int self, const tpNavCarDef *car,
                            double z_lo, double z_hi)
{
    const int nb = tpWorld_BodyCount(world);
    double head[4] = {car->mass, car->inertia, z_lo, z_hi};
    /* the static geometry's hash is memoised per (world, band): this runs at every control step */
    uint64_t h[2] = {tpHash_Fnv1a64(head, sizeof head), tpSkill_StaticsKey(cache, world, self, z_lo, z_hi)};
    uint64_t key = tpHash_Fnv1a64(h, sizeof h);
    TrackCache *tc = &c->track;
    if (tc->tree && tc->key == key) {
        return tc;
    }
    releaseTrack(tc);
    tc->tree = tpCreateNavMoveTree(car, NULL, NULL, 0);
    if (!tc->tree) {
        return NULL;
    }
    tc->key = key;
    for (int i = 0; i < nb; ++i) { /* walls: the edges of every static footprint in the band */
        const tpBodyDef *d = tpWorld_Body(world, i);
        if (d->cls != TP_BODY_STATIC || i == self || d->shape == TP_SHAPE_PLANE) {
            continue;
        }
        tpNavShape sh[3];
        int n = tpSkill_NavShapes(d, sh);
        for (int k = 0; k < n; ++k) {
            double fp[32][2];
            int m = 0;
            if (sh[k].kind == TP_NAV_BOX || sh[k].kind == TP_NAV_POLYGON) {
                m = tpNav_Footprint(&sh[k], z_lo, z_hi, fp);
            } else if (sh[k].kind == TP_NAV_DISC || sh[k].kind == TP_NAV_SPHERE) {
                m = 8; /* an octagon around the disc */
                double r = sh[k].radius / cos(TP_PI / 8);
                for (int q = 0; q < 8; ++q) {
                    fp[q][0] = sh[k].center[0] + r * cos(q * TP_PI / 4);
                    fp[q][1] = sh[k].center[1] + r * sin(q * TP_PI / 4);
                }
            }
            for (int q = 0; q < m && tc->nwalls < TRACK_MAX_WALLS; ++q) {
                double *w = tc->walls[tc->nwalls++];
                w[0] = fp[q][0];
                w[1] = fp[q][1];
                w[2] = fp[(q + 1) % m][0];
                w[3] = fp[(q + 1) % m][1];
            }
        }
    }
    TP_VALIDATE(tpNavCache_Valid, c); /* a new track: its walls */
    return tc;
}

/* The to-go field of the track's walls toward tr->goal: a pure function of (walls, goal), cached
 * by the goal (the walls are the cache's own). NULL if it cannot be built (the caller falls back to
 * the straight-line heuristic, which is what the field would be without walls). */
static const tpNavToGo *togoFor(TrackCache *tc, const tpNavTrack *tr)
{
    for (int q = 0; q < TRACK_TOGO_CACHE; ++q) {
        if (tc->togo[q] && tc->togo_goal[q][0] == tr->goal[0] && tc->togo_goal[q][1] == tr->goal[1]) {
            return tc->togo[q];
        }
    }
    int q = tc->next_togo;
    tc->next_togo = (q + 1) % TRACK_TOGO_CACHE;
    tpDestroyNavToGo(tc->togo[q]);
    tc->togo[q] = tpCreateNavToGo(tr, TRACK_TOGO_CELL, NULL, 0);
    tc->togo_goal[q][0] = tr->goal[0];
    tc->togo_goal[q][1] = tr->goal[1];
    return tc->togo[q];
}

/* A scripted body whose future the car search samples: kinematic (its pose a function of time)
 * with a built-in motion other than linear (linear traffic is exactly its velocity's line). */
static bool trackScripted(const tpWorld *w, int i, const tpBodyDef *o)
{
    const tpMotionKind k = o->motion.kind;
    return o->cls == TP_BODY_FOREIGN && tpWorld_StateSlot(w, i) < 0 &&
           (k == TP_MOTION_WAYPOINTS || k == TP_MOTION_OSCILLATE || k == TP_MOTION_ROTATE);
}

static int run_drive_track(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb;
    const tpBodyDef *bd;
    NavCache *nc = navBegin(sk, call, -1, &cb, &bd);
    if (!nc) {
        return -1;
    }
    tpNavCarDef car = tpDefaultNavCarDef();
    car.mass = cb.mass;
    car.inertia = cb.izz;
    if (bd->shape == TP_SHAPE_BOX) {
        car.length = bd->size[0];
        car.width = bd->size[1];
    }
    const double half_h = bd->shape == TP_SHAPE_BOX ? bd->size[2] / 2 : cb.radius;
    const double t_tree = tpClock_Now();
    TrackCache *tc =
        trackFor(call->cache, nc, call->world, sk->body, &car, bd->pos[2] - half_h + 0.05, bd->pos[2] + half_h);
    tpSkill_SearchDone(call->cache, t_tree);
    if (!tc) {
        tpCtl_Brake(&sk->gains, call, &cb);
        return 0;
    }
    const tpNavMoveTree *tree = tc->tree;
    const tpNavMoveTreeDef *md = tpNavMoveTree_Def(tree);
    const double c = cos(cb.yaw), s = sin(cb.yaw);
    const double vf = cb.s.vel[0] * c + cb.s.vel[1] * s;
    if (call->fresh) {
        if (!call->overlay) { /* recording: V already holds the sampled goal */
            double p[3] = {0, 0, 0};
            tpDist_Sample(&sk->track.point, call->rng, call->y, call->ydim, p);
            V[TRACK_V_GOAL_X] = p[0];
            V[TRACK_V_GOAL_Y] = p[1];
            if (sk->track.lane.kind != TP_DIST_UNSET) { /* to the left of car -> point */
                double o[3] = {0, 0, 0};
                tpDist_Sample(&sk->track.lane, call->rng, call->y, call->ydim, o);
                double dx = p[0] - cb.s.pos[0], dy = p[1] - cb.s.pos[1], dl = hypot(dx, dy);
                if (dl > 0) {
                    V[TRACK_V_GOAL_X] -= o[0] * dy / dl;
                    V[TRACK_V_GOAL_Y] += o[0] * dx / dl;
                }
            }
            if (sk->track.horizon.kind != TP_DIST_UNSET) {
                double h[3] = {0, 0, 0};
                tpDist_Sample(&sk->track.horizon, call->rng, call->y, call->ydim, h);
                double r = isfinite(h[0]) ? round(h[0]) : TRACK_DEPTH;
                V[TRACK_V_HORIZON] = r < 1 ? 1 : r > 8 ? 8 : r;
            }
            if (sk->track.speed.kind != TP_DIST_UNSET) { /* the fastest level not above it */
                double v[3] = {0, 0, 0};
                tpDist_Sample(&sk->track.speed, call->rng, call->y, call->ydim, v);
                int top = 0;
                for (int l = 1; l < md->nlevels; ++l) {
                    if (md->levels[l] <= v[0] + 1e-9) {
                        top = l;
                    }
                }
                V[TRACK_V_TOP] = top + 1;
            }
        }
        /* the other moving bodies as traffic: at their current velocities, or, for a scripted
         * body whose motion is not linear (tp.waypoints, tp.oscillate, tp.rotate), along its known
         * future poses sampled over the horizon (traffic that follows the road round a corner:
         * extrapolating its velocity would see it drive into the outer wall). A tp.motion function
         * is not called ahead of the plan: it may be defined only for the times the plan reaches. */
        enum { MAX_OTHERS = 32 };
        const int horizon = V[TRACK_V_HORIZON] >= 1 ? (int)V[TRACK_V_HORIZON] : TRACK_DEPTH;
        const int nsamp = (int)ceil(2.0 * horizon * md->clip_time / TRACK_PATH_DT) + 2;
        int nscripted = 0;
        for (int i = 0; i < tpWorld_BodyCount(call->world); ++i) {
            const tpBodyDef *o = tpWorld_Body(call->world, i);
            nscripted += i != sk->body && trackScripted(call->world, i, o);
        }
        nscripted = nscripted > MAX_OTHERS ? MAX_OTHERS : nscripted;
        if (nscripted * nsamp > tc->path_cap) {
            double(*grown)[3] = realloc(tc->paths, (size_t)(nscripted * nsamp) * sizeof *grown);
            if (grown) {
                tc->paths = grown;
                tc->path_cap = nscripted * nsamp;
            }
        }
        tpNavTrafficCar others[MAX_OTHERS];
        int no = 0, used = 0;
        for (int i = 0; i < tpWorld_BodyCount(call->world) && no < MAX_OTHERS; ++i) {
            const tpBodyDef *o = tpWorld_Body(call->world, i);
            if (i == sk->body || o->cls == TP_BODY_STATIC) {
                continue;
            }
            tpBodyState os;
            tpWorld_BodyState(call->world, call->x, call->t, i, &os);
            tpNavTrafficCar *tcar = &others[no++];
            memset(tcar, 0, sizeof *tcar);
            tcar->pos[0] = os.pos[0];
            tcar->pos[1] = os.pos[1];
            tcar->vel[0] = os.vel[0];
            tcar->vel[1] = os.vel[1];
            tcar->heading = tpQuat_Yaw(os.quat);
            double r = tpCtl_Radius(call->world, i);
            tcar->length = o->shape == TP_SHAPE_BOX ? o->size[0] : 2 * r;
            tcar->width = o->shape == TP_SHAPE_BOX ? o->size[1] : 2 * r;
            if (trackScripted(call->world, i, o) && used + nsamp <= tc->path_cap) {
                double(*path)[3] = tc->paths + used;
                used += nsamp;
                for (int q = 0; q < nsamp; ++q) {
                    tpBodyState ps = os;
                    if (q > 0) {
                        tpWorld_BodyState(call->world, call->x, call->t + q * TRACK_PATH_DT, i, &ps);
                    }
                    path[q][0] = ps.pos[0];
                    path[q][1] = ps.pos[1];
                    /* continuous heading: the nearest turn of the wrapped yaw to the previous one */
                    double h = tpQuat_Yaw(ps.quat);
                    if (q > 0) {
                        h += 2 * TP_PI * round((path[q - 1][2] - h) / (2 * TP_PI));
                    }
                    path[q][2] = h;
                }
                tcar->npath = nsamp;
                tcar->path = (const double(*)[3])path;
                tcar->path_dt = TRACK_PATH_DT;
            }
        }
        /* a finish line through the goal, across the direction from the car */
        double gx = V[TRACK_V_GOAL_X] - cb.s.pos[0], gy = V[TRACK_V_GOAL_Y] - cb.s.pos[1], gl = hypot(gx, gy);
        double half = fmax(sk->gains.tolerance, 3.0);
        double ux = gl > 0 ? -gy / gl : 0, uy = gl > 0 ? gx / gl : 1;
        tpNavTrack tr = {tc->nwalls,
                         (const double(*)[4])tc->walls,
                         no,
                         others,
                         {V[TRACK_V_GOAL_X], V[TRACK_V_GOAL_Y]},
                         {V[TRACK_V_GOAL_X] - half * ux, V[TRACK_V_GOAL_Y] - half * uy, V[TRACK_V_GOAL_X] + half * ux,
                          V[TRACK_V_GOAL_Y] + half * uy}};
        int level = 0;
        for (int l = 1; l < md->nlevels; ++l) {
            if (fabs(md->levels[l] - vf) < fabs(md->levels[level] - vf)) {
                level = l;
            }
        }
        const double t_search = tpClock_Now();
        tpNavCarPlanDef pd = tpDefaultNavCarPlanDef();
        pd.depth = V[TRACK_V_HORIZON] >= 1 ? (int)V[TRACK_V_HORIZON] : TRACK_DEPTH; /* 0: no horizon given */
        pd.node_limit = TRACK_NODES;
        pd.max_level = V[TRACK_V_TOP] >= 1 ? (int)V[TRACK_V_TOP] - 1 : -1;
        if (!tc->scratch) {
            tc->scratch = tpCreateNavCarScratch(); /* NULL (out of memory): the search allocates its own */
        }
        pd.scratch = tc->scratch;
        if (sk->track.togo) {
            pd.togo = togoFor(tc, &tr);
        }
        double pose[3] = {cb.s.pos[0], cb.s.pos[1], cb.yaw};
        tpNavOverlayTree otree = {0};
        if (call->overlay) { /* recording: collect the search tree of this decision */
            pd.on_node = tpNavOverlay_TreeNode;
            pd.on_node_user = &otree;
        }
        tpNavCarDecision dec = tpNavCar_Plan(tree, &tr, &pd, pose, level, 0.0);
        tpSkill_SearchDone(call->cache, t_search);
        if (call->overlay) {
            tpNavOverlay_Tree(call->overlay, &otree, dec.best);
        }
        int k = dec.clip;
        if (k < 0) { /* every clip collides: the one that slows down most */
            const int *kids;
            int nk = tpNavMoveTree_ClipsFrom(tree, level, &kids);
            k = nk > 0 ? kids[0] : -1;
            for (int q = 1; q < nk; ++q) {
                const tpNavClip *a = tpNavMoveTree_Clip(tree, kids[q]), *b = tpNavMoveTree_Clip(tree, k);
                if (a->to < b->to || (a->to == b->to && fabs(a->steer) < fabs(b->steer))) {
                    k = kids[q];
                }
            }
        }
        V[TRACK_V_CLIP] = k;
        V[TRACK_V_CLIP_START] = call->t;
    }
    int k = (int)V[TRACK_V_CLIP];
    if (k < 0 || k >= tpNavMoveTree_ClipCount(tree)) {
        tpCtl_Brake(&sk->gains, call, &cb);
        return 0;
    }
    const tpNavClip *clip = tpNavMoveTree_Clip(tree, k);
    int f = (int)floor((call->t - V[TRACK_V_CLIP_START]) / md->frame_dt + 1e-9);
    f = f < 0 ? 0 : f >= clip->nframes ? clip->nframes - 1 : f;
    tpNavCarState st = {cb.s.pos[0], cb.s.pos[1], cb.yaw, cb.s.vel[0], cb.s.vel[1], cb.s.angvel[2]};
    tpNavCarForces fo;
    tpNavCar_Forces(&car, &st, clip->control[f][0], clip->control[f][1], clip->control[f][2], &fo);
    double force[3] = {fo.force[0], fo.force[1], 0.0};
    tpCtl_Apply(call, &cb, force, fo.torque);
    /* the segment ends with the clip (a decision point: the tactic replans) */
    return call->t + call->dt < V[TRACK_V_CLIP_START] + clip->nframes * md->frame_dt - 1e-9 ? 1 : 0;
}

void tpSkill_NavDefaults(tpSkillDef *def)
{
    def->nav.cell = 0.1;
    def->nav.radius = 0.0;
    def->nav.lookahead = 0.4;
    def->nav.replan = 1.0;
}

tpNavFollowDef tpSkill_FollowerDef(const tpSkillDef *sk, const tpSkillCall *call, double cruise)
{
    tpNavFollowDef fd = tpDefaultNavFollowDef();
    /* the skill's yaw gains, not the follower's own: a body whose friction torque is above
     * izz * ktheta * komega * error (a heavy square robot) never turned, whatever the script said */
    fd.ktheta = sk->gains.kyaw;
    fd.komega = sk->gains.kyaw_rate;
    fd.max_omega = sk->gains.max_yaw_rate;
    fd.speed = cruise;
    fd.lookahead = sk->nav.lookahead;
    fd.stop_radius = sk->gains.tolerance;
    fd.dt = call->dt;
    fd.turn_speed = 0.1 * cruise;
    return fd;
}

bool tpSkill_ValidateNav(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                         size_t errlen)
{
    (void)world;
    TP_SKILL_DISTS({"point", &sk->nav.point, 2, 3}, {"speed", &sk->nav.speed, 1, 1});
    if (!tpSkill_RequirePoint(sk, kind->name, &sk->nav.point, err, errlen)) {
        return false;
    }
    if (!(sk->nav.cell > 0) || !isfinite(sk->nav.cell) || !(sk->nav.radius >= 0) || !isfinite(sk->nav.radius) ||
        !(sk->nav.lookahead > 0) || !isfinite(sk->nav.lookahead)) {
        tpErrorf(err, errlen, "skill '%s' (%s): nav_cell and nav_lookahead must be > 0, nav_radius >= 0", sk->name,
                 kind->name);
        return false;
    }
    if (sk->kind == TP_SKILL_FOLLOW_PATH && (!(sk->nav.replan > 0) || !isfinite(sk->nav.replan))) {
        tpErrorf(err, errlen, "skill '%s' (follow_path): nav_replan must be > 0", sk->name);
        return false;
    }
    return true;
}

const tpSkillField tpSkill_NavFields[] = {
    TP_SKILL_DIST(nav, point, 2, 3),
    TP_SKILL_DIST(nav, speed, 1, 1),
    TP_SKILL_FIELD("nav_cell", TP_FIELD_NONNEG, nav, cell),
    TP_SKILL_FIELD("nav_radius", TP_FIELD_NONNEG, nav, radius),
    TP_SKILL_FIELD("nav_lookahead", TP_FIELD_NONNEG, nav, lookahead),
    TP_SKILL_FIELD("nav_replan", TP_FIELD_NONNEG, nav, replan),
    TP_SKILL_FIELDS_END,
};

static const char *const k_nav_to_keys[] = {
    "name",          "body",    TP_SKILL_FRAMED_KEYS, "speed", "nav_cell", "nav_radius",
    "nav_lookahead", "timeout", TP_SKILL_GAIN_KEYS,   NULL};
static const tpSkillField k_nav_to_fields[] = {
    TP_SKILL_DIST(nav, point, 2, 3),
    TP_SKILL_DIST(nav, speed, 1, 1),
    TP_SKILL_FIELD("nav_cell", TP_FIELD_NONNEG, nav, cell),
    TP_SKILL_FIELD("nav_radius", TP_FIELD_NONNEG, nav, radius),
    TP_SKILL_FIELD("nav_lookahead", TP_FIELD_NONNEG, nav, lookahead),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindNavTo = {
    .name = "nav_to",
    .defaults = tpSkill_NavDefaults,
    .validate = tpSkill_ValidateNav,
    .run = run_nav_to,
    .vars = TP_SKILL_VARS,
    .timeout = NAV_TIMEOUT,
    .needs_body = true,
    .accepted = k_nav_to_keys,
    .fields = k_nav_to_fields,
};

static const char *const k_follow_field_keys[] = {"name",       "body",    TP_SKILL_FRAMED_KEYS, "speed", "nav_cell",
                                                  "nav_radius", "timeout", TP_SKILL_GAIN_KEYS,   NULL};
static const tpSkillField k_follow_field_fields[] = {
    TP_SKILL_DIST(nav, point, 2, 3),
    TP_SKILL_DIST(nav, speed, 1, 1),
    TP_SKILL_FIELD("nav_cell", TP_FIELD_NONNEG, nav, cell),
    TP_SKILL_FIELD("nav_radius", TP_FIELD_NONNEG, nav, radius),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindFollowField = {
    .name = "follow_field",
    .defaults = tpSkill_NavDefaults,
    .validate = tpSkill_ValidateNav,
    .run = run_follow_field,
    .vars = TP_SKILL_VARS,
    .timeout = NAV_TIMEOUT,
    .needs_body = true,
    .accepted = k_follow_field_keys,
    .fields = k_follow_field_fields,
};

static bool validate_drive_track(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                                 size_t errlen)
{
    (void)world;
    TP_SKILL_DISTS({"point", &sk->track.point, 2, 3}, {"lane", &sk->track.lane, 1, 1},
                   {"horizon", &sk->track.horizon, 1, 1}, {"speed", &sk->track.speed, 1, 1});
    return tpSkill_RequirePoint(sk, kind->name, &sk->track.point, err, errlen);
}

static const char *const k_drive_track_keys[] = {
    "name", "body", "point", "lane", "horizon", "speed", "togo", TP_SKILL_GAIN_KEYS, NULL};
static const tpSkillField k_drive_track_fields[] = {
    TP_SKILL_DIST(track, point, 2, 3),
    TP_SKILL_DIST(track, lane, 1, 1),
    TP_SKILL_DIST(track, horizon, 1, 1),
    TP_SKILL_DIST(track, speed, 1, 1),
    TP_SKILL_FIELD("togo", TP_FIELD_BOOL, track, togo),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindDriveTrack = {
    .name = "drive_track",
    .validate = validate_drive_track,
    .run = run_drive_track,
    .vars = TP_SKILL_VARS,
    .timeout = 6.0,
    .needs_body = true,
    .accepted = k_drive_track_keys,
    .fields = k_drive_track_fields,
};
