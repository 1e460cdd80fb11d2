/* follow_path: Kuffner's grid planner with replanning around moving bodies.
 *
 * The fresh call samples the goal (for frame "target" the target's CURRENT position is the origin,
 * so a goal on a moving body moves with it from one replanning to the next) and plans an A* path
 * (8-connected, line-of-sight smoothed) on a grid of the static bodies plus every other non-static
 * body at its pose in the current state (`tpSkill_NavShapes` at that pose), all grown by the
 * clearance; a moving body is swept along its current velocity over the next `nav_replan` seconds
 * (5 poses). The grid and the path are pure functions of the current state and the skill's
 * constants; they are cached by exactly those inputs (see LegGrid), so a miss recomputes the
 * identical leg and nothing about replay depends on process history.
 *
 * Only the first leg of the path is kept — the start and the next two vertices — in V; the
 * segment ends when the follower reaches the end of that leg, or after `nav_replan` seconds, or
 * on arrival at the goal. Then the tactic re-selects the skill (a transition to itself) and the
 * fresh call replans from the current state: the goal's and the obstacles' motion is taken into
 * account at every replanning, and the state carries no path (the velocity carries over, so
 * there is no jump). When the moving bodies close every way (e.g. two characters meeting in a
 * door), the leg is planned again with the clearance reduced to the body's own radius, and if
 * that fails too, around the static bodies only (the moving ones may have gone by the
 * time they are reached, else the contact resolves it); with no path even then, the body brakes
 * and waits until `nav_replan` has passed, then replans. At the goal the body holds (brakes)
 * until `nav_replan` has passed, so a tactic that keeps re-selecting the skill replans once per
 * `nav_replan`, not every step.
 *
 * The variables: NAV_V_GOAL_X/Y and NAV_V_CRUISE (skill_internal.h), the PATH_V_ enum below, and
 * V[TP_V_INTEGRAL_X] as the integral of the forward speed error (m). The leg's points take slots 10..13
 * and 15: this kind runs no yaw controller, so TP_V_YAW_INTEGRAL and TP_V_INTEGRAL_Y are free. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nav_overlay.h"
#include "nav_skill.h"
#include "skill_internal.h"
#include "tp/base.h"
#include "tp/nav.h"
#include "tp/util.h"

enum {
    PATH_V_STATUS = 4,        /* 1 the leg ends at the goal, 2 at an intermediate vertex, 3 and 4 the same with
                                 3 points (else 2), -1 no path: pathFinal and pathPoints read it */
    PATH_V_LEG_X = 5,         /* m, world: the leg's first point (the body's position when planned) */
    PATH_V_LEG_Y = 6,         /* m */
    PATH_V_SEG = 7,           /* the follower's progress: leg segment index */
    PATH_V_SEG_FRAC = 8,      /* the follower's progress: fraction along that segment */
    PATH_V_DONE = 9,          /* 1 once the follower reached the end of the leg */
    PATH_V_NEXT_X = 10,       /* m, world: the leg's second point */
    PATH_V_NEXT_Y = 11,       /* m */
    PATH_V_AFTER_X = 12,      /* m, world: the leg's third point (when pathPoints is 3) */
    PATH_V_AFTER_Y = 13,      /* m (shares the slot of TP_V_YAW_INTEGRAL, which this kind does not use) */
    PATH_V_YAW_INTEGRAL = 15, /* rad: the yaw-rate integral (tpSkill_FollowerApply; shares TP_V_INTEGRAL_Y's
                                 slot, as TP_V_YAW_INTEGRAL's holds PATH_V_AFTER_Y) */
};

/* The leg's kind and size, both in V[PATH_V_STATUS] (every slot of V is taken). */
static bool pathFinal(const double *V)
{
    const int st = (int)V[PATH_V_STATUS];
    return st == 1 || st == 3;
}

static int pathPoints(const double *V)
{
    return (int)V[PATH_V_STATUS] >= 3 ? 3 : 2;
}

#define PATH_MAX_SIDE 1000
#define PATH_SWEEP 4 /* a moving body is rasterised at 5 poses along its velocity over nav_replan */

#define LEG_GRIDS 16     /* grown leg grids kept (one per distinct input, see LegGrid) */
#define LEG_SEARCHES 256 /* search results kept per leg grid */
#define LEG_WORK 2       /* search grids kept (one per grid size) */
#define LEG_KEY_BODY 10  /* key doubles per moving body: index, pos (3), quat (4), planar vel (2) */

/* One search on a leg grid, for the start and goal cells as computed from the points (before
 * tpNavGrid_NearestFree, which is a function of the grid and the cells). */
typedef struct LegSearch {
    int si, sj, gi, gj;
    int npoints;      /* smoothed path vertices, capped at 4 (whether there are more than 3 is all
                         that matters); 0 = no path */
    double pts[2][2]; /* m, world: the path's vertices 1 and 2 (those npoints says exist) */
} LegSearch;

/* A leg's grown grid and the searches made on it. The grid is a pure function of (world, self,
 * def with the radius, key), so a hit gives exactly the grid a rebuild would: the planner expands
 * one state again and again (each time sampling another goal), and the foreign characters replan
 * from the same states in every branch. */
typedef struct LegGrid {
    const tpWorld *world; /* not owned; NULL = empty slot */
    int self;             /* the follower's body */
    tpNavGridDef def;     /* the grid, radius (m) included */
    double *key;          /* owned: the moving bodies' part (legKey), nkey doubles */
    size_t nkey;
    tpNavGrid *grid; /* owned: the static raster plus the moving bodies, grown by def.radius */
    LegSearch searches[LEG_SEARCHES];
    int nsearch, next_search; /* filled entries; round-robin replacement once full */
    unsigned long used;       /* the cache's tick at the last use (the least recently used goes first) */
} LegGrid;

typedef struct tpLegCache tpLegCache;
struct tpLegCache {
    LegGrid grids[LEG_GRIDS];
    unsigned long tick; /* uses so far (LegGrid.used) */
    tpNavGrid *moving;  /* owned scratch: the moving bodies' raster, grown onto a leg grid */
    /* owned: the grids the searches run on, a leg grid's cells copied in: only these hold search
       scratch (a few hundred kB each), not every cached grid; one per grid size in use */
    tpNavGrid *work[LEG_WORK];
    int next_work;    /* round-robin replacement */
    double *key;      /* owned scratch: this leg's key (nkey doubles, capacity cap) */
    size_t nkey, cap; /* doubles */
    tpNavPath path;   /* owned scratch: the search's path buffers, reused */
};

static void destroyLegCache(void *p)
{
    tpLegCache *lc = p;
    if (!lc) {
        return;
    }
    for (int k = 0; k < LEG_GRIDS; ++k) {
        free(lc->grids[k].key);
        tpDestroyNavGrid(lc->grids[k].grid);
    }
    tpDestroyNavGrid(lc->moving);
    for (int k = 0; k < LEG_WORK; ++k) {
        tpDestroyNavGrid(lc->work[k]);
    }
    free(lc->key);
    tpNavPath_Free(&lc->path);
    free(lc);
}

static bool sameDef(const tpNavGridDef *a, const tpNavGridDef *b)
{
    return a->x0 == b->x0 && a->y0 == b->y0 && a->cell == b->cell && a->nx == b->nx && a->ny == b->ny &&
           a->z_min == b->z_min && a->z_max == b->z_max && a->radius == b->radius;
}

/* The grid `grid` made the grid of def (all free), kept when the size matches. */
static tpNavGrid *resetGrid(tpNavGrid *grid, const tpNavGridDef *def)
{
    if (grid && tpNavGrid_Reset(grid, def, NULL, 0)) {
        return grid;
    }
    tpDestroyNavGrid(grid);
    return tpCreateNavGrid(def, NULL, 0);
}

/* Fills lc->key with the part of a leg grid's inputs that changes from call to call: the sweep's
 * horizon and, for every other moving body, its index and its pose and planar velocity in the
 * call's state (its definition, fixed for the world, supplies the rest of its shapes). Empty when
 * the leg ignores the moving bodies. false when out of memory. */
static bool legKey(tpLegCache *lc, const tpSkillDef *sk, const tpSkillCall *call, bool others)
{
    const tpWorld *world = call->world;
    const int nb = tpWorld_BodyCount(world);
    lc->nkey = 0;
    if (!others) {
        return true;
    }
    double *k = tpArray_Grow(lc->key, &lc->cap, 1 + (size_t)nb * LEG_KEY_BODY, sizeof *k);
    if (!k) {
        return false;
    }
    lc->key = k;
    k[lc->nkey++] = sk->nav.replan; /* s: the sweep's horizon */
    for (int i = 0; i < nb; ++i) {
        const tpBodyDef *d = tpWorld_Body(world, i);
        if (i == sk->body || d->cls == TP_BODY_STATIC || d->shape == TP_SHAPE_PLANE) {
            continue;
        }
        tpBodyState os;
        tpWorld_BodyState(world, call->x, call->t, i, &os);
        double *e = k + lc->nkey;
        e[0] = i;
        memcpy(e + 1, os.pos, 3 * sizeof(double));
        memcpy(e + 4, os.quat, 4 * sizeof(double));
        e[8] = os.vel[0];
        e[9] = os.vel[1];
        lc->nkey += LEG_KEY_BODY;
    }
    return true;
}

/* Rasterises every moving body of the key into `moving` (cleared first): its shape at its pose
 * and where its current velocity takes it within nav_replan. */
static void addMoving(tpNavGrid *moving, const tpSkillDef *sk, const tpWorld *world, const double *key, size_t nkey)
{
    for (size_t e = 1; e + LEG_KEY_BODY <= nkey; e += LEG_KEY_BODY) {
        const double *b = key + e;
        tpBodyDef moved = *tpWorld_Body(world, (int)b[0]);
        memcpy(moved.quat, b + 4, sizeof moved.quat);
        for (int q = 0; q <= PATH_SWEEP; ++q) {
            double tau = sk->nav.replan * q / PATH_SWEEP;
            moved.pos[0] = b[1] + b[8] * tau;
            moved.pos[1] = b[2] + b[9] * tau;
            moved.pos[2] = b[3];
            tpNavShape shapes[3];
            int n = tpSkill_NavShapes(&moved, shapes);
            for (int k = 0; k < n; ++k) {
                tpNavGrid_AddShape(moving, &shapes[k], NULL, 0);
            }
        }
    }
}

/* The leg grid for (world, self, def, the key in lc), from the cache or built into it: statics
 * (the grown static raster for world, self and def) with the moving bodies grown onto it
 * (tpNavGrid_AddGrown: the same cells as rasterising everything and growing it at once). NULL
 * when out of memory. */
static LegGrid *legGrid(tpLegCache *lc, const tpNavGrid *statics, const tpSkillDef *sk, const tpWorld *world,
                        const tpNavGridDef *def)
{
    const size_t kbytes = lc->nkey * sizeof(double);
    for (int k = 0; k < LEG_GRIDS; ++k) {
        LegGrid *e = &lc->grids[k];
        if (e->world == world && e->self == sk->body && e->nkey == lc->nkey && sameDef(&e->def, def) &&
            (kbytes == 0 || memcmp(e->key, lc->key, kbytes) == 0)) {
            e->used = ++lc->tick;
            return e;
        }
    }
    /* replace an empty slot, else the least recently used grid of the same size (its memory is
       kept: no allocation, no first touch of fresh pages), else the least recently used one */
    LegGrid *e = NULL;
    for (int pass = 0; pass < 3 && !e; ++pass) {
        for (int k = 0; k < LEG_GRIDS; ++k) {
            LegGrid *q = &lc->grids[k];
            const tpNavGridDef *qd = q->grid ? tpNavGrid_Def(q->grid) : NULL;
            bool fits = pass == 0 ? q->grid == NULL : pass == 1 ? qd && qd->nx == def->nx && qd->ny == def->ny : true;
            if (fits && (!e || q->used < e->used)) {
                e = q;
            }
        }
    }
    e->used = ++lc->tick;
    e->world = NULL; /* empty until built */
    double *key = lc->nkey > 0 ? tpArray_Resize(e->key, lc->nkey, sizeof *key) : e->key;
    if (lc->nkey > 0 && !key) {
        return NULL;
    }
    e->key = key;
    e->grid = resetGrid(e->grid, def);
    if (!e->grid) {
        return NULL;
    }
    tpNavGrid_CopyCells(e->grid, statics);
    if (lc->nkey > 0) {
        lc->moving = resetGrid(lc->moving, def);
        if (!lc->moving) {
            return NULL;
        }
        addMoving(lc->moving, sk, world, lc->key, lc->nkey);
        tpNavGrid_AddGrown(e->grid, lc->moving);
        memcpy(e->key, lc->key, kbytes);
    }
    e->world = world;
    e->self = sk->body;
    e->def = *def;
    e->nkey = lc->nkey;
    e->nsearch = e->next_search = 0;
    return e;
}

/* A search grid of def (radius included) holding the cells of `cells` (a leg grid of the same
 * def): the one kept for that size, or a new one. NULL when out of memory. */
static tpNavGrid *workGrid(tpLegCache *lc, const tpNavGridDef *def, const tpNavGrid *cells)
{
    int at = -1;
    for (int k = 0; k < LEG_WORK && at < 0; ++k) {
        const tpNavGridDef *d = lc->work[k] ? tpNavGrid_Def(lc->work[k]) : NULL;
        at = d && d->nx == def->nx && d->ny == def->ny ? k : at;
    }
    if (at < 0) {
        at = lc->next_work;
        lc->next_work = (lc->next_work + 1) % LEG_WORK;
    }
    lc->work[at] = resetGrid(lc->work[at], def);
    if (lc->work[at]) {
        tpNavGrid_CopyCells(lc->work[at], cells);
    }
    return lc->work[at];
}

/* Plans from `start` to `goal` on the grid of the static bodies plus the other moving bodies at
 * their poses in the call's state. Writes up to 3 leg points; returns their count (0 = no path)
 * and sets *final when the leg ends at the goal. Grid and search come from the leg cache when
 * they were made before (pure functions of their inputs: the same leg either way). */
static int planLeg(const tpSkillDef *sk, const tpSkillCall *call, bool others, double radius, double z_min,
                   double z_max, const double start[2], const double goal[2], double leg[3][2], bool *final)
{
    const tpWorld *world = call->world;
    void **slot = tpSkillCache_Slot(call->cache, TP_SKILL_FOLLOW_PATH, destroyLegCache);
    if (!*slot && !(*slot = calloc(1, sizeof(tpLegCache)))) {
        return 0;
    }
    tpLegCache *lc = *slot;
    double bounds[4];
    tpSkill_NavBounds(call->cache, world, sk->body, z_min, z_max, start, goal, 2 * radius + 4 * sk->nav.cell, bounds);
    tpNavGridDef gd = tpSkill_GridOver(bounds, sk->nav.cell, PATH_MAX_SIDE, z_min, z_max);
    gd.radius = radius > 0 && isfinite(radius) ? radius : 0.0; /* as tpNavGrid_Grow keeps it */
    if (!legKey(lc, sk, call, others)) {
        return 0;
    }
    /* the static raster (every leg grid's base), from the skill cache */
    const tpNavGrid *statics = tpSkill_StaticGrid(call->cache, world, sk->body, &gd);
    if (!statics) {
        return 0;
    }
    LegGrid *lg = legGrid(lc, statics, sk, world, &gd);
    if (!lg) {
        return 0;
    }
    const tpNavGrid *cells = lg->grid;
    int si, sj, gi, gj;
    si = (int)floor((start[0] - gd.x0) / gd.cell);
    sj = (int)floor((start[1] - gd.y0) / gd.cell);
    gi = (int)floor((goal[0] - gd.x0) / gd.cell);
    gj = (int)floor((goal[1] - gd.y0) / gd.cell);
    const LegSearch *found = NULL;
    for (int k = 0; k < lg->nsearch && call->overlay == NULL; ++k) {
        const LegSearch *q = &lg->searches[k];
        if (q->si == si && q->sj == sj && q->gi == gi && q->gj == gj) {
            found = q;
            break;
        }
    }
    LegSearch made = {si, sj, gi, gj, 0, {{0, 0}, {0, 0}}};
    if (!found) {
        tpNavGrid *grid = workGrid(lc, &gd, cells);
        if (!grid) {
            return 0;
        }
        tpNavPath *path = &lc->path;
        tpNavPlanDef pd = tpDefaultNavPlanDef();
        pd.smooth = true;
        pd.max_points = call->overlay == NULL ? 4 : 0; /* recording: the whole path for the overlay */
        if (tpNavGrid_NearestFree(grid, &si, &sj) && tpNavGrid_NearestFree(grid, &gi, &gj) &&
            tpNav_PlanCells(grid, &pd, si, sj, gi, gj, path) == TP_NAV_OK && path->npoints >= 1) {
            if (call->overlay != NULL) { /* recording: what this segment planned */
                tpNavOverlay_Grid(call->overlay, grid);
                tpNavOverlay_Path(call->overlay, path->points, path->npoints);
            }
            made.npoints = path->npoints < 4 ? path->npoints : 4;
            for (int k = 1; k < made.npoints && k < 3; ++k) {
                made.pts[k - 1][0] = path->points[2 * k];
                made.pts[k - 1][1] = path->points[2 * k + 1];
            }
        }
        if (call->overlay == NULL) {
            int at = lg->nsearch;
            if (at < LEG_SEARCHES) {
                ++lg->nsearch;
            } else { /* full: replace round-robin */
                at = lg->next_search;
                lg->next_search = (at + 1) % LEG_SEARCHES;
            }
            lg->searches[at] = made;
        }
        found = &made;
    }
    int n = 0;
    if (found->npoints >= 1) {
        /* the leg starts at the body's position (not its cell centre): no sideways jump */
        leg[0][0] = start[0];
        leg[0][1] = start[1];
        n = 1;
        for (int k = 1; k < found->npoints && n < 3; ++k) {
            leg[n][0] = found->pts[k - 1][0];
            leg[n][1] = found->pts[k - 1][1];
            ++n;
        }
        if (n == 1) { /* start and goal in the same cell */
            leg[1][0] = goal[0];
            leg[1][1] = goal[1];
            n = 2;
        }
        *final = found->npoints <= 3;
        if (*final) { /* the last vertex is the goal cell's centre: end at the goal itself */
            leg[n - 1][0] = goal[0];
            leg[n - 1][1] = goal[1];
        }
    }
    return n;
}

static int run_follow_path(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb;
    const tpBodyDef *bd = tpSkill_NavBegin(sk, call, &cb);
    if (!bd) {
        return -1;
    }
    double half_h = tpSkill_HalfHeight(bd);
    double radius = sk->nav.radius > 0 ? sk->nav.radius : cb.radius + 0.5 * sk->nav.lookahead;
    double elapsed = call->t - V[TP_V_START];
    bool period_over = elapsed + call->dt >= sk->nav.replan - 1e-9;
    if (call->fresh && call->overlay == NULL) { /* recording: V already holds the sampled goal */
        tpSkill_NavGoal(sk, call, &cb, V);
    }
    if (call->fresh) {
        /* band from the body's definition height (a planar body keeps it) */
        double start[2] = {cb.s.pos[0], cb.s.pos[1]}, goal[2] = {V[NAV_V_GOAL_X], V[NAV_V_GOAL_Y]}, leg[3][2];
        bool final = false;
        const double z_min = bd->pos[2] - half_h + 0.02, z_max = bd->pos[2] + half_h;
        const double t_search = tpClock_Now();
        int n = planLeg(sk, call, true, radius, z_min, z_max, start, goal, leg, &final);
        if (n < 2 && radius > cb.radius) { /* the moving bodies close every way: squeeze, with the
                                              clearance reduced to the body's own radius */
            n = planLeg(sk, call, true, cb.radius, z_min, z_max, start, goal, leg, &final);
        }
        if (n < 2) { /* still closed (or they sit on the goal): around the static bodies only, the
                        moving ones may have gone by the time they are reached */
            n = planLeg(sk, call, false, radius, z_min, z_max, start, goal, leg, &final);
        }
        tpSkill_SearchDone(call->cache, t_search);
        if (n < 2) {
            V[PATH_V_STATUS] = -1;
        } else {
            /* the leg's kind and its number of points share the slot (PATH_V_STATUS) */
            V[PATH_V_STATUS] = (final ? 1 : 2) + (n > 2 ? 2 : 0);
            V[PATH_V_LEG_X] = leg[0][0];
            V[PATH_V_LEG_Y] = leg[0][1];
            V[PATH_V_NEXT_X] = leg[1][0];
            V[PATH_V_NEXT_Y] = leg[1][1];
            V[PATH_V_AFTER_X] = n > 2 ? leg[2][0] : 0.0;
            V[PATH_V_AFTER_Y] = n > 2 ? leg[2][1] : 0.0;
        }
    }
    if ((int)V[PATH_V_STATUS] == -1) { /* no path: wait, then replan */
        tpCtl_Brake(&sk->gains, call, &cb);
        return period_over ? 0 : 1;
    }
    double pts[6] = {V[PATH_V_LEG_X],  V[PATH_V_LEG_Y],   V[PATH_V_NEXT_X],
                     V[PATH_V_NEXT_Y], V[PATH_V_AFTER_X], V[PATH_V_AFTER_Y]};
    tpNavFollowDef fd = tpSkill_FollowerDef(sk, call, V[NAV_V_CRUISE]);
    bool final = pathFinal(V);
    /* an intermediate leg ends (and the next is planned) a look-ahead before its end, at speed */
    if (!final) {
        fd.stop_radius = sk->nav.lookahead;
        fd.kp = 1e3;
    }
    tpNavFollower f;
    tpNavFollower_Init(&f, &fd);
    f.points = pts; /* borrowed: the follower is not freed */
    f.npoints = pathPoints(V);
    f.seg = (int)V[PATH_V_SEG];
    f.s = V[PATH_V_SEG_FRAC];
    f.done = V[PATH_V_DONE] != 0;
    double c = cos(cb.yaw), s = sin(cb.yaw);
    double vfwd = cb.s.vel[0] * c + cb.s.vel[1] * s;
    tpNavAgent ag = {cb.s.pos[0], cb.s.pos[1], cb.yaw, vfwd > 0 ? vfwd : 0.0, cb.s.angvel[2]};
    double acc, alpha;
    tpNavFollower_Control(&f, &ag, &acc, &alpha);
    V[PATH_V_SEG] = f.seg;
    V[PATH_V_SEG_FRAC] = f.s;
    V[PATH_V_DONE] = f.done;
    if (f.done && !final) {
        return 0; /* end of an intermediate leg: replan at once, keeping the speed */
    }
    /* the controller's accelerations as a planar force and a torque, as in nav_to */
    (void)alpha; /* the torque is the skill's PI law on the commanded yaw rate */
    tpSkill_FollowerApply(sk, call, &cb, f.done, acc, f.omega_cmd, fd.kv, PATH_V_YAW_INTEGRAL);
    bool timed_out = elapsed >= tpSkill_Timeout(sk, 30.0);
    return (period_over || timed_out) ? 0 : 1;
}

static const char *const k_follow_path_keys[] = {
    "name",       "body",    TP_SKILL_FRAMED_KEYS, "speed", "nav_cell", "nav_radius", "nav_lookahead",
    "nav_replan", "timeout", TP_SKILL_GAIN_KEYS,   NULL};
const tpSkillKindInfo tpSkillKindFollowPath = {
    .name = "follow_path",
    .defaults = tpSkill_NavDefaults,
    .validate = tpSkill_ValidateNav,
    .run = run_follow_path,
    .vars = TP_SKILL_VARS,
    .timeout = 30.0,
    .needs_body = true,
    .accepted = k_follow_path_keys,
    .fields = tpSkill_NavFields,
};
