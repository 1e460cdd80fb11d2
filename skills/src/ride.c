/* ride: carry a physics character across moving surfaces (Lopez, Lamarche & Li 2011, through the
 * tpNavSpace of tp/nav.h): walk to the boarding point, wait there until the relation holds (plus a
 * sampled margin), step on, stay while carried, step off.
 *
 * Observation, not foreknowledge. The fresh call (a decision point) builds a tpNavSpace of the
 * scene's boxes other than the body and feeds it what the character could have seen: their poses
 * and velocities every RIDE_OBS_DT from the start of its observation window (ride_watch_start: at
 * least the RIDE_WATCH seconds before now, from time 0 while the run is younger) until now.
 * Scripted bodies are evaluated at those past times (tpWorld_BodyState); bodies whose state is
 * stored are seen at their current pose. The graph's route from the surface under the body to the
 * surface under the sampled goal gives the next relation; its access and landing points, in the
 * two surfaces' own frames, go into V. Until the graph has seen a usable relation there is no
 * route: the body holds still and the segment ends after RIDE_IDLE seconds (the tactic re-selects
 * the skill and it observes again, longer). The segment also ends when the body has crossed onto
 * the next surface (so every surface change is a decision point), at the goal, or at the timeout.
 *
 * The controller tracks a point fixed in a surface's frame: the commanded planar velocity is the
 * surface's velocity at that point plus a go-to velocity (tpCtl_GoToVelocity) toward it, tracked
 * with the PI law of the other skills; the yaw is held. Boarding starts once the relation
 * (tpNavSpace_Transfer, from where the body stands to the landing point) has been seen to become
 * valid and has stayed valid for the sampled margin (`duration`, s; default 0.2), or at once for a
 * stable relation. Without `jump` the character cannot jump: jump = false, steps of at most
 * RIDE_STEP m (flush faces), gaps of at most RIDE_GAP m.
 *
 * The jump (`jump` true: Lopez 2011's ballistic hop). The nav space is planned with JUMP relations
 * bounded by jump_vz, jump_vh and the 3 m/s landing speed, and a standable inset of a quarter of
 * the body's width plus RIDE_JUMP_EDGE (the take-off and the landing are near a border; the centre
 * stays over the face, so an upright box does not tip). When the boarding starts and the relation
 * is a jump, the take-off is one step: the force m ((v - v_now) / dt + g z) through the body's
 * control slot, where v is the ballistic take-off velocity (tpNavSpace_Transfer's flight time T
 * to the landing point extrapolated T ahead: horizontal (landing - centre) / T, vertical the
 * largest allowed by jump_vz and the landing speed). The body holds the access point while the
 * take-off is not possible (tilted more than RIDE_TAKEOFF_TILT, tipping faster than
 * RIDE_TAKEOFF_SPIN, or the force beyond its max_force) and the relation holds. In flight no
 * force at all; the flight ends when the body stands on the next face again and moves vertically
 * with it (within RIDE_LANDED_VZ); then RIDE_LAND tracks the landing point until the body stands
 * there, which ends the segment. A hop that has not landed RIDE_MISS s after the expected landing
 * ends the segment wherever the body is. Walking forces are capped by walk_force (the body's
 * max_force must allow the take-off).
 *
 * The variables are the RIDE_V_ enum below, plus the controller's integrals (TP_V_YAW_INTEGRAL,
 * TP_V_INTEGRAL_X, TP_V_INTEGRAL_Y). Every quantity is a function of (x, t, V). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skill_internal.h"
#include "skill_kind.h"
#include "tp/base.h"
#include "tp/nav.h"

#define RIDE_TIMEOUT 40.0    /* s: the longest segment */
#define RIDE_WATCH 24.0      /* s: the shortest observation before a decision (once the run is older) */
#define RIDE_WATCH_ALIGN 8.0 /* s: observations start at multiples of this (ride_watch_start) */
#define RIDE_OBS_DT 0.05     /* s between observations */
#define RIDE_IDLE 1.0        /* s: a segment with no route ends after this */
#define RIDE_STEP 0.05       /* m: largest height difference walked across (flush faces only) */
#define RIDE_GAP 0.25        /* m: largest gap between two faces walked across */
#define RIDE_MAX_BODIES 256
#define RIDE_ARRIVE 0.05   /* m: at the access point when this close */
#define RIDE_LEG 0.5       /* s: a detour or a wait of the local plan is followed this long, then replanned */
#define RIDE_STEP_OVER 1.0 /* s: validity a boarding on arrival needs beyond the walk (the step over) */
/* m added to the character's radius in the space-time planner's obstruction tests: the plan
 * assumes the walking speed at once and the PI-tracked box lags it, so a plan that grazes a moving
 * obstacle touches it (bridge: the robot touched the sweeper in 15 of 19 solved seeds without it,
 * 6 of 18 with 0.1 m). */
#define RIDE_CLEARANCE 0.1
/* Probability of boarding on arrival when it is possible (bridge, measured before the sweeper
 * check and RIDE_CLEARANCE: 0.5 solved 17/20 seeds, 0.9 19/20, 1 20/20 but the tactics planner
 * then never has the waiting branch). */
#define RIDE_BOARD_ON_ARRIVAL 0.9
#define RIDE_JUMP_EDGE 0.02    /* m added to a quarter of a jumper's width in its standable inset */
#define RIDE_TAKEOFF_TILT 0.05 /* rad: largest tilt of the body at a take-off */
#define RIDE_TAKEOFF_SPIN 0.2  /* rad/s: largest tipping rate (about a horizontal axis) at a take-off */
#define RIDE_MISS 0.5          /* s after the expected landing: a hop that has not landed ends the segment */
/* m/s: a flight has landed once the body's vertical speed relative to the face under it is below this */
#define RIDE_LANDED_VZ 0.2

enum { RIDE_NONE = 0, RIDE_WALK, RIDE_WAIT, RIDE_BOARD, RIDE_GOAL, RIDE_FLY, RIDE_LAND };

enum {
    RIDE_V_PHASE = 1,    /* RIDE_NONE, RIDE_WALK, RIDE_WAIT, RIDE_BOARD, RIDE_GOAL, RIDE_FLY or RIDE_LAND */
    RIDE_V_CUR = 2,      /* body index of the current surface */
    RIDE_V_NEXT = 3,     /* body index of the next surface */
    RIDE_V_ACCESS_X = 4, /* m, current surface's frame: the access point (or the goal on the goal's surface) */
    RIDE_V_ACCESS_Y = 5, /* m */
    RIDE_V_LAND_X = 6,   /* m, next surface's frame: the landing point */
    RIDE_V_LAND_Y = 7,   /* m */
    RIDE_V_MARGIN = 8,   /* s: the sampled margin the relation must hold before boarding */
    /* -3 a stable relation, -1 nothing seen yet, -2 seen but not valid, >= 0 the time (s) it became
     * valid (set at the decision already when boarding on arrival) */
    RIDE_V_WAIT_STATE = 9,
    RIDE_V_LEG_Y = 10,   /* m, current surface's frame: the detour leg's point, y (x is RIDE_V_LEG_X) */
    RIDE_V_LEG_END = 11, /* s: end of a detour leg; -1 straight to the target. RIDE_FLY (no detour in
                            flight): the expected landing time, see RIDE_V_LANDING */
    RIDE_V_LANDING = 11, /* s, RIDE_FLY only: the expected landing time (take-off + T) */
    RIDE_V_LEG_X = 12,   /* m: the detour leg's point, x */
};

/* The nav constants of the character: its horizontal radius, its height, flush steps only. */
static tpNavSpaceDef ride_def(const tpSkillDef *sk, const tpSkillCall *call)
{
    tpNavSpaceDef d = tpDefaultNavSpaceDef();
    const tpBodyDef *b = tpWorld_Body(call->world, sk->body);
    d.radius = tpCtl_Radius(call->world, sk->body);
    d.height = b->shape == TP_SHAPE_BOX || b->shape == TP_SHAPE_COMPOUND ? b->size[2]
               : b->shape == TP_SHAPE_SPHERE                             ? 2 * b->size[0]
               : b->shape == TP_SHAPE_CAPSULE                            ? b->size[1] + 2 * b->size[0]
                                                                         : b->size[1];
    d.edge = d.radius + 0.05;
    d.step_up = d.step_down = RIDE_STEP;
    d.step_gap = 2 * d.edge + RIDE_GAP;
    d.radius += RIDE_CLEARANCE; /* obstruction tests only: faces and transfers use edge and step_gap */
    d.jump = sk->ride.jump;
    if (sk->ride.jump) {
        double half = b->shape == TP_SHAPE_BOX ? fmin(b->size[0], b->size[1]) / 2 : b->size[0];
        d.edge = half / 2 + RIDE_JUMP_EDGE;
        d.step_gap = 2 * d.edge + RIDE_GAP;
        d.jump_vz = sk->ride.jump_vz;
        d.jump_vh = sk->ride.jump_vh;
        const double *g = tpWorld_Def(call->world)->gravity;
        if (g[2] < 0)
            d.gravity = -g[2];
    }
    d.cell = sk->ride.cell;
    d.speed = sk->gains.max_speed;
    d.min_valid = 0.5;
    return d;
}

/* Body `b` seen as a nav box at time t (its own pose for stored bodies). False for non-boxes. */
static bool ride_body(const tpSkillCall *call, int b, double t, tpNavSpaceBody *out)
{
    const tpBodyDef *def = tpWorld_Body(call->world, b);
    if (def->shape != TP_SHAPE_BOX || def->marker)
        return false;
    tpBodyState s;
    tpWorld_BodyState(call->world, call->x, t, b, &s);
    *out = tpNavSpace_Box(s.pos[0], s.pos[1], s.pos[2], def->size[0] / 2, def->size[1] / 2, def->size[2] / 2,
                          tpQuat_Yaw(s.quat));
    memcpy(out->vel, s.vel, sizeof s.vel);
    out->yaw_rate = s.angvel[2];
    return true;
}

/* The boxes of the scene but the body: world body indices into map, count returned. */
static int ride_bodies(const tpSkillDef *sk, const tpSkillCall *call, int map[RIDE_MAX_BODIES])
{
    int n = 0;
    tpNavSpaceBody tmp;
    for (int b = 0; b < tpWorld_BodyCount(call->world) && n < RIDE_MAX_BODIES; b++)
        if (b != sk->body && ride_body(call, b, call->t, &tmp))
            map[n++] = b;
    return n;
}

/* World point of local point l of body b at the call's time, and that point's planar velocity. */
static void ride_point(const tpSkillCall *call, int b, const double l[2], double w[3], double v[2])
{
    tpNavSpaceBody nb;
    ride_body(call, b, call->t, &nb);
    double c = cos(nb.yaw), s = sin(nb.yaw);
    w[0] = nb.center[0] + c * l[0] - s * l[1];
    w[1] = nb.center[1] + s * l[0] + c * l[1];
    w[2] = nb.center[2] + nb.half[2];
    v[0] = nb.vel[0] - nb.yaw_rate * (w[1] - nb.center[1]);
    v[1] = nb.vel[1] + nb.yaw_rate * (w[0] - nb.center[0]);
}

/* Local point of world point w on body b at the call's time. */
static void ride_local(const tpSkillCall *call, int b, const double w[2], double l[2])
{
    tpNavSpaceBody nb;
    ride_body(call, b, call->t, &nb);
    double c = cos(nb.yaw), s = sin(nb.yaw), dx = w[0] - nb.center[0], dy = w[1] - nb.center[1];
    l[0] = c * dx + s * dy;
    l[1] = -s * dx + c * dy;
}

/* The surface under world point w: tpNavSpace_Locate, else the highest face that w is over (a
 * body pushed a little past the standable border by contacts), the local point clamped onto the
 * standable rectangle. -1 if none. */
static int ride_locate(const tpNavSpace *sp, const double w[3], double l[2])
{
    int k = tpNavSpace_Locate(sp, w, l);
    if (k >= 0)
        return k;
    const tpNavSpaceDef *d = tpNavSpace_Def(sp);
    double best_top = -HUGE_VAL;
    for (int b = 0; b < tpNavSpace_BodyCount(sp); b++) {
        const tpNavSpaceBody *nb = tpNavSpace_Body(sp, b);
        if (!tpNavSpace_IsSurface(sp, b))
            continue;
        double c = cos(nb->yaw), s = sin(nb->yaw), dx = w[0] - nb->center[0], dy = w[1] - nb->center[1];
        double lx = c * dx + s * dy, ly = -s * dx + c * dy, top = nb->center[2] + nb->half[2];
        if (fabs(lx) > nb->half[0] || fabs(ly) > nb->half[1] || top > w[2] + d->step_up || top <= best_top)
            continue;
        best_top = top;
        k = b;
        double hx = nb->half[0] - d->edge, hy = nb->half[1] - d->edge;
        l[0] = lx < -hx ? -hx : lx > hx ? hx : lx;
        l[1] = ly < -hy ? -hy : ly > hy ? hy : ly;
    }
    return k;
}

/* The local space-time plan on the current surface (obstacles extrapolated linearly): when it is a
 * straight walk to the target (every point within 1.5 cells of the straight segment, no wait) the
 * body goes straight (V[RIDE_V_LEG_END] = -1); otherwise it follows the plan's point RIDE_LEG s ahead
 * (V[RIDE_V_LEG_X], V[RIDE_V_LEG_Y]) and the segment ends at that time (V[RIDE_V_LEG_END]) so that the next decision
 * replans. No plan (every target obstructed): straight, the contacts will tell. */
static void ride_leg(tpNavSpace *sp, int from, const double start[2], double t, const double *goal, int edge, double *V)
{
    V[RIDE_V_LEG_END] = -1;
    V[RIDE_V_LEG_X] = V[RIDE_V_ACCESS_X], V[RIDE_V_LEG_Y] = V[RIDE_V_ACCESS_Y];
    tpNavSpacePath path;
    memset(&path, 0, sizeof path);
    bool ok = goal ? tpNavSpace_PlanLocal(sp, from, start, t, goal, NULL, 0, &path)
                   : tpNavSpace_PlanLocal(sp, from, start, t, NULL, &edge, 1, &path);
    if (ok && path.npoints > 1) {
        const double *a = path.points, *b = &path.points[3 * (path.npoints - 1)];
        double ux = b[0] - a[0], uy = b[1] - a[1], len2 = ux * ux + uy * uy, tol = 1.5 * tpNavSpace_Def(sp)->cell;
        bool straight = true;
        for (int k = 1; k < path.npoints && straight; k++) {
            const double *q = &path.points[3 * k], *p = q - 3;
            double s = len2 > 0 ? ((q[0] - a[0]) * ux + (q[1] - a[1]) * uy) / len2 : 0;
            s = s < 0 ? 0 : s > 1 ? 1 : s;
            straight = hypot(q[0] - a[0] - s * ux, q[1] - a[1] - s * uy) <= tol && (q[0] != p[0] || q[1] != p[1]);
        }
        if (!straight) {
            double te = t + RIDE_LEG;
            int k = 1;
            while (k < path.npoints - 1 && path.points[3 * k + 2] < te)
                k++;
            const double *q = &path.points[3 * k], *p = q - 3;
            double f = q[2] > p[2] ? (te - p[2]) / (q[2] - p[2]) : 1;
            f = f < 0 ? 0 : f > 1 ? 1 : f;
            V[RIDE_V_LEG_X] = p[0] + f * (q[0] - p[0]);
            V[RIDE_V_LEG_Y] = p[1] + f * (q[1] - p[1]);
            V[RIDE_V_LEG_END] = b[2] > te ? te : -1;
        }
    }
    tpNavSpacePath_Free(&path);
}

/* One observation sample: the bodies of map at time t (scratch `bodies`, n entries). */
static bool ride_observe(const tpSkillCall *call, tpNavSpace *sp, const int *map, int n, tpNavSpaceBody *bodies,
                         double t)
{
    for (int m = 0; m < n; m++)
        ride_body(call, map[m], t, &bodies[m]);
    return tpNavSpace_Update(sp, t, bodies, NULL, 0);
}

/* Checkpoints of the observations. An observation starts at t0 (ride_watch_start) and samples the
 * scene at t0 + k * RIDE_OBS_DT for k < steps, then at the decision's time: its first samples are
 * the same for every decision with the same start, as long as the observer's constants, the
 * observed bodies and the stored bodies' current states (a stored body is seen where it is now at
 * every sample time; the static and scripted ones are functions of time) are. For each such input
 * the cache keeps the space after every RIDE_CKPT_STEPS samples, so a decision clones the latest
 * checkpoint at or before its own samples and observes only the rest (at most 1 s): elevator's and
 * bridge's decisions had spent most of their time re-observing the same seconds. A checkpoint is a
 * pure function of the input it is kept for, so no plan depends on what was planned before. */
#define RIDE_CKPT_STEPS 20 /* samples between two checkpoints (1 s) */
/* the last checkpoint: the longest observation, RIDE_WATCH + RIDE_WATCH_ALIGN, in checkpoints */
#define RIDE_CKPTS 32
#define RIDE_CACHE_STARTS 2 /* observation starts kept (a tree's decisions straddle one change) */

typedef struct RideStart {
    double t0;                        /* s: the observation's start (ride_watch_start) */
    long long use;                    /* the cache's use count at the last use (least recently used is replaced) */
    tpNavSpace *ckpt[RIDE_CKPTS + 1]; /* owned; ckpt[j]: after the samples k < j * RIDE_CKPT_STEPS; NULL = not yet */
} RideStart;

typedef struct tpRideCache tpRideCache;
struct tpRideCache {
    const tpWorld *world; /* not owned: the world the checkpoints observed */
    tpNavSpaceDef def;    /* the observer's constants */
    int n;                /* observed bodies */
    int map[RIDE_MAX_BODIES];
    tpBodyState *stored; /* owned, n: the bodies' states at call->x (zero for the unstored ones) */
    long long uses;
    RideStart starts[RIDE_CACHE_STARTS]; /* ckpt[0] NULL: unused */
};

/* The start of a decision's observation: the latest multiple of RIDE_WATCH_ALIGN that leaves at
 * least RIDE_WATCH seconds before t, 0 while the run is younger. The window is 24 to 32 s long and
 * moves in 8 s jumps, so that the decisions of a tree share their first samples (the cache above);
 * a window ending exactly 24 s before each decision shared nothing, and re-observing it was most of
 * bridge's search time. */
static double ride_watch_start(double t)
{
    return fmax(0, RIDE_WATCH_ALIGN * floor((t - RIDE_WATCH) / RIDE_WATCH_ALIGN));
}

static void ride_free_start(RideStart *st)
{
    for (int j = 0; j <= RIDE_CKPTS; j++)
        tpDestroyNavSpace(st->ckpt[j]);
    memset(st, 0, sizeof *st);
}

static void destroy_ride_cache(void *p)
{
    tpRideCache *rc = p;
    if (!rc)
        return;
    for (int q = 0; q < RIDE_CACHE_STARTS; q++)
        ride_free_start(&rc->starts[q]);
    free(rc->stored);
    free(rc);
}

/* The cache for this call's observer, bodies and stored states (a new one when they changed);
 * NULL without a skill cache or out of memory. */
static tpRideCache *ride_cache(tpSkillCall *call, const tpNavSpaceDef *d, const int *map, int n)
{
    if (!call->cache)
        return NULL;
    tpBodyState *stored = calloc((size_t)n, sizeof *stored);
    if (!stored)
        return NULL;
    for (int m = 0; m < n; m++)
        if (tpWorld_StateSlot(call->world, map[m]) >= 0)
            tpWorld_BodyState(call->world, call->x, call->t, map[m], &stored[m]);
    void **slot = tpSkillCache_Slot(call->cache, TP_SKILL_RIDE, destroy_ride_cache);
    tpRideCache *rc = *slot;
    /* the definition is compared bytewise: ride_def starts from the zeroed default, so its
     * padding is zero */
    if (rc && rc->world == call->world && rc->n == n && memcmp(&rc->def, d, sizeof *d) == 0 &&
        memcmp(rc->map, map, (size_t)n * sizeof *map) == 0 &&
        memcmp(rc->stored, stored, (size_t)n * sizeof *stored) == 0) {
        free(stored);
        return rc;
    }
    destroy_ride_cache(rc);
    *slot = rc = calloc(1, sizeof *rc);
    if (!rc) {
        free(stored);
        return NULL;
    }
    rc->world = call->world;
    rc->def = *d;
    rc->n = n;
    memcpy(rc->map, map, (size_t)n * sizeof *map);
    rc->stored = stored;
    return rc;
}

/* A space that has observed the samples k < *k_done of the observation from t0 (*k_done the
 * largest multiple of RIDE_CKPT_STEPS <= steps, at most the last checkpoint's), building the
 * missing checkpoints; NULL (and *k_done 0) without a cache or out of memory: the caller observes
 * from the start. `bodies` is scratch for n bodies. */
static tpNavSpace *ride_resume(tpSkillCall *call, const tpNavSpaceDef *d, const int *map, int n, double t0, int steps,
                               tpNavSpaceBody *bodies, int *k_done)
{
    *k_done = 0;
    tpRideCache *rc = ride_cache(call, d, map, n);
    if (!rc)
        return NULL;
    RideStart *st = NULL;
    for (int q = 0; q < RIDE_CACHE_STARTS && !st; q++)
        if (rc->starts[q].ckpt[0] && rc->starts[q].t0 == t0)
            st = &rc->starts[q];
    if (!st) { /* replace the least recently used start */
        st = &rc->starts[0];
        for (int q = 1; q < RIDE_CACHE_STARTS; q++)
            if (rc->starts[q].use < st->use)
                st = &rc->starts[q];
        ride_free_start(st);
        st->t0 = t0;
        st->ckpt[0] = tpCreateNavSpace(d, n, NULL, 0);
        if (!st->ckpt[0])
            return NULL;
    }
    st->use = ++rc->uses;
    int last = steps / RIDE_CKPT_STEPS;
    last = last > RIDE_CKPTS ? RIDE_CKPTS : last;
    for (int j = 1; j <= last && st->ckpt[j - 1]; j++) {
        if (st->ckpt[j])
            continue;
        tpNavSpace *sp = tpCloneNavSpace(st->ckpt[j - 1]);
        for (int k = (j - 1) * RIDE_CKPT_STEPS; sp && k < j * RIDE_CKPT_STEPS; k++)
            if (!ride_observe(call, sp, map, n, bodies, t0 + k * RIDE_OBS_DT)) {
                tpDestroyNavSpace(sp);
                sp = NULL;
            }
        st->ckpt[j] = sp;
    }
    if (!st->ckpt[last])
        return NULL;
    tpNavSpace *sp = tpCloneNavSpace(st->ckpt[last]);
    if (sp)
        *k_done = last * RIDE_CKPT_STEPS;
    return sp;
}

/* Fresh call: observe, locate, route; fills the RIDE_V_ variables. */
static void ride_plan(const tpSkillDef *sk, tpSkillCall *call, const tpCtlBody *cb, double *V)
{
    V[RIDE_V_PHASE] = RIDE_NONE;
    V[RIDE_V_MARGIN] = tpSkill_Sample1(&sk->ride.margin, call, 0.2);
    double goal[3];
    tpSkill_SamplePoint(sk, &sk->ride.point, call, cb, goal);
    int map[RIDE_MAX_BODIES], n = ride_bodies(sk, call, map);
    if (n < 1)
        return;
    tpNavSpaceDef d = ride_def(sk, call);
    const double t0 = ride_watch_start(call->t);
    const int steps = (int)floor((call->t - t0) / RIDE_OBS_DT + 1e-9);
    int k = 0;
    tpNavSpace *sp = NULL;
    tpNavSpaceBody *bodies = malloc(sizeof *bodies * (size_t)n);
    if (bodies) /* from the latest checkpoint of the shared samples */
        sp = ride_resume(call, &d, map, n, t0, steps, bodies, &k);
    if (!sp)
        sp = tpCreateNavSpace(&d, n, NULL, 0);
    if (!sp || !bodies)
        goto done;
    for (; k <= steps; k++) /* t0, t0 + dt, ..., and now (strictly increasing) */
        if (!ride_observe(call, sp, map, n, bodies, k == steps ? call->t : t0 + k * RIDE_OBS_DT))
            goto done;
    /* the surfaces under the body and under the goal (a little above the face) */
    double foot[3] = {cb->s.pos[0], cb->s.pos[1], cb->s.pos[2] - d.height / 2 + d.step_up / 2};
    double lfoot[2], lgoal[2];
    int from = ride_locate(sp, foot, lfoot);
    goal[2] = goal[2] + d.step_up / 2;
    int to = ride_locate(sp, goal, lgoal);
    tpNavSpaceRoute route;
    if (from < 0 || to < 0 || !tpNavSpace_Route(sp, from, to, &route))
        goto done;
    V[RIDE_V_CUR] = map[from];
    if (route.nsurfaces == 1) {
        V[RIDE_V_PHASE] = RIDE_GOAL;
        V[RIDE_V_ACCESS_X] = lgoal[0], V[RIDE_V_ACCESS_Y] = lgoal[1];
        ride_leg(sp, from, lfoot, call->t, lgoal, -1, V);
        goto done;
    }
    const tpNavSpaceEdge *e = tpNavSpace_FindEdge(sp, from, route.surfaces[1]);
    V[RIDE_V_PHASE] = RIDE_WALK;
    V[RIDE_V_NEXT] = map[route.surfaces[1]];
    V[RIDE_V_ACCESS_X] = e->access[0], V[RIDE_V_ACCESS_Y] = e->access[1];
    V[RIDE_V_LAND_X] = e->land[0], V[RIDE_V_LAND_Y] = e->land[1];
    V[RIDE_V_WAIT_STATE] = e->stable ? -3 : -1;
    /* The relation holds now, its valid period began in view (at e->since) and the learnt mean
     * valid duration leaves time to walk to the access point and step over: a draw chooses
     * between boarding on arrival (the period's rising edge is known) and waiting for the next
     * one, so the tactics planner has both. Waiting only, a robot arriving on the bridge's plank
     * while it was in place rode it out and back (14 s) and half the seeds ran out of nodes. */
    double walk = hypot(e->access[0] - lfoot[0], e->access[1] - lfoot[1]) / sk->gains.max_speed;
    if (!e->stable && e->valid && e->nvalid > 0 && e->since > t0 &&
        e->since + e->mean_valid - call->t >= walk + RIDE_STEP_OVER && tpRng_Res53(call->rng) < RIDE_BOARD_ON_ARRIVAL)
        V[RIDE_V_WAIT_STATE] = e->since;
    ride_leg(sp, from, lfoot, call->t, NULL, (int)(e - tpNavSpace_Edge(sp, 0)), V);
done:
    free(bodies);
    tpDestroyNavSpace(sp);
}

/* Drives toward local point l of body b, matching the body's motion there. Returns the distance. */
static double ride_track(const tpSkillDef *sk, tpSkillCall *call, const tpCtlBody *cb, int b, const double l[2],
                         double *V)
{
    double w[3], vs[2], vgo[2], f[3];
    ride_point(call, b, l, w, vs);
    tpCtl_GoToVelocity(&sk->gains, cb, w, sk->gains.max_speed, vgo);
    double vcmd[2] = {vs[0] + vgo[0], vs[1] + vgo[1]};
    tpCtl_TrackVelocity(&sk->gains, cb, vcmd, V, call->dt, f);
    tpCtl_Apply(call, cb, f, tpCtl_YawTorque(&sk->gains, cb, false, 0, V, call->dt));
    return hypot(w[0] - cb->s.pos[0], w[1] - cb->s.pos[1]);
}

/* True if the body's centre stands on body b's face (inside it seen from above, at least half the
 * body's radius or half the standable inset `edge` in from the border, whichever is less, its bottom
 * within 0.1 m of the top). */
static bool ride_on(const tpSkillCall *call, const tpCtlBody *cb, int b, double height, double edge)
{
    tpNavSpaceBody nb;
    ride_body(call, b, call->t, &nb);
    double l[2];
    ride_local(call, b, cb->s.pos, l);
    double bottom = cb->s.pos[2] - height / 2, top = nb.center[2] + nb.half[2], in = fmin(cb->radius, edge) / 2;
    return fabs(l[0]) <= nb.half[0] - in && fabs(l[1]) <= nb.half[1] - in && fabs(bottom - top) <= 0.1;
}

/* The take-off of a hop from surface `from` to the world landing point `landing` (x, y, top of the
 * face there, T s ahead): the ballistic take-off velocity and the one step of force that gives it
 * (m dv / dt, plus m g upward: the body leaves the face within the step, so the contact carries
 * nothing). False, with nothing applied, when that force exceeds the body's max_force (`full`
 * holds the uncapped limit), the horizontal speed exceeds jump_vh, the body is not standing on
 * `from`, or it is tilted or tipping (RIDE_TAKEOFF_TILT, RIDE_TAKEOFF_SPIN). */
static bool ride_takeoff(const tpNavSpaceDef *d, tpSkillCall *call, const tpCtlBody *full, const tpNavSpaceBody *from,
                         const double landing[3], double T, double *V)
{
    double bottom = full->s.pos[2] - d->height / 2, top = from->center[2] + from->half[2], dz = landing[2] - top;
    if (!(T > 0) || fabs(bottom - top) > 0.1)
        return false;
    /* a stance, not a stumble: the impulse through the centre adds no rotation, so a body that
       takes off tipping (a platform that stopped under it) lands on an edge */
    const double *q = full->s.quat, *w = full->s.angvel;
    if (2 * asin(fmin(1, hypot(q[1], q[2]))) > RIDE_TAKEOFF_TILT || hypot(w[0], w[1]) > RIDE_TAKEOFF_SPIN)
        return false;
    double vz = sqrt(fmax(0, fmin(d->jump_vz * d->jump_vz, d->land_speed * d->land_speed + 2 * d->gravity * dz)));
    double v[3] = {(landing[0] - full->s.pos[0]) / T, (landing[1] - full->s.pos[1]) / T, vz};
    double f[3];
    for (int k = 0; k < 3; k++)
        f[k] = full->mass * (v[k] - full->s.vel[k]) / call->dt;
    f[2] += full->mass * d->gravity;
    if (hypot(hypot(f[0], f[1]), f[2]) > full->max_force || hypot(v[0], v[1]) > d->jump_vh * (1 + 1e-9))
        return false;
    tpCtl_Apply(call, full, f, 0);
    V[RIDE_V_PHASE] = RIDE_FLY;
    V[RIDE_V_LANDING] = call->t + T;
    V[TP_V_INTEGRAL_X] = V[TP_V_INTEGRAL_Y] = 0; /* the walk's integral means nothing after a flight */
    return true;
}

static int run_ride(const tpSkillDef *sk, tpSkillCall *call)
{
    tpCtlBody cb;
    if (!tpCtl_Load(call, sk->body, &cb))
        return 0;
    tpCtlBody full = cb; /* the body's own limit: the take-off of a hop */
    if (sk->ride.walk_force > 0 && sk->ride.walk_force < cb.max_force) {
        cb.max_force = sk->ride.walk_force;
        cb.max_accel = cb.max_force / cb.mass;
    }
    double *V = call->V;
    if (call->fresh && !call->overlay) {
        const double t_search = tpClock_Now();
        ride_plan(sk, call, &cb, V);
        tpSkill_SearchDone(call->cache, t_search);
    }
    double elapsed = call->t - V[TP_V_START];
    if (elapsed >= tpSkill_Timeout(sk, RIDE_TIMEOUT))
        return 0;
    int phase = (int)V[RIDE_V_PHASE], cur = (int)V[RIDE_V_CUR], next = (int)V[RIDE_V_NEXT];
    if (phase == RIDE_NONE) { /* no route yet: hold still, observe again after RIDE_IDLE */
        tpCtl_Brake(&sk->gains, call, &cb);
        return elapsed + call->dt < RIDE_IDLE ? 1 : 0;
    }
    if ((phase == RIDE_GOAL || phase == RIDE_WALK) &&
        V[RIDE_V_LEG_END] >= 0) { /* a detour: follow the plan, then replan */
        const double carrot[2] = {V[RIDE_V_LEG_X], V[RIDE_V_LEG_Y]};
        ride_track(sk, call, &cb, cur, carrot, V);
        return call->t + call->dt < V[RIDE_V_LEG_END] ? 1 : 0;
    }
    if (phase == RIDE_GOAL) {
        double dist = ride_track(sk, call, &cb, cur, V + RIDE_V_ACCESS_X, V);
        return dist > sk->gains.tolerance ? 1 : 0;
    }
    if (phase == RIDE_WALK) {
        double dist = ride_track(sk, call, &cb, cur, V + RIDE_V_ACCESS_X, V);
        if (dist <= fmax(sk->gains.tolerance, RIDE_ARRIVE)) {
            V[RIDE_V_PHASE] = RIDE_WAIT;
            if (V[RIDE_V_WAIT_STATE] == -3) /* a stable relation needs no rising edge */
                V[RIDE_V_WAIT_STATE] = call->t;
        }
        return 1;
    }
    const tpNavSpaceDef d = ride_def(sk, call); /* the phases below test transfers and landings */
    if (phase == RIDE_WAIT) {
        ride_track(sk, call, &cb, cur, V + RIDE_V_ACCESS_X, V);
        tpNavSpaceBody from, to;
        ride_body(call, cur, call->t, &from);
        ride_body(call, next, call->t, &to);
        double l[2];
        ride_local(call, cur, cb.s.pos, l);
        bool valid = tpNavSpace_Transfer(&d, &from, l, &to, V + RIDE_V_LAND_X, NULL, NULL) != 0;
        if (!valid)
            V[RIDE_V_WAIT_STATE] = -2;
        else if (V[RIDE_V_WAIT_STATE] == -2)
            V[RIDE_V_WAIT_STATE] = call->t;
        if (valid && V[RIDE_V_WAIT_STATE] >= 0 && call->t - V[RIDE_V_WAIT_STATE] >= V[RIDE_V_MARGIN])
            V[RIDE_V_PHASE] = RIDE_BOARD;
        return 1;
    }
    if (phase == RIDE_FLY) { /* ballistic: no force until the body stands on the next face again */
        tpNavSpaceBody to;
        ride_body(call, next, call->t, &to);
        if (ride_on(call, &cb, next, d.height, d.edge) && fabs(cb.s.vel[2] - to.vel[2]) <= RIDE_LANDED_VZ) {
            V[RIDE_V_PHASE] = RIDE_LAND;
            ride_track(sk, call, &cb, next, V + RIDE_V_LAND_X, V);
            return 1;
        }
        return call->t + call->dt < V[RIDE_V_LANDING] + RIDE_MISS ? 1 : 0;
    }
    if (phase == RIDE_LAND) { /* landed: onto the landing point, then the segment ends */
        double dist = ride_track(sk, call, &cb, next, V + RIDE_V_LAND_X, V);
        return dist <= RIDE_ARRIVE && ride_on(call, &cb, next, d.height, d.edge) ? 0 : 1;
    }
    /* RIDE_BOARD: onto the landing point; the segment ends once the body stands there. While the
       body's centre is still over the source face and the relation stops holding, back to waiting.
       A jump relation takes off at once (ride_takeoff) */
    tpNavSpaceBody from, to;
    ride_body(call, cur, call->t, &from);
    ride_body(call, next, call->t, &to);
    double l[2];
    ride_local(call, cur, cb.s.pos, l);
    bool over = fabs(l[0]) <= from.half[0] && fabs(l[1]) <= from.half[1];
    double T = 0, landing[3];
    tpNavRelation rel = over ? tpNavSpace_Transfer(&d, &from, l, &to, V + RIDE_V_LAND_X, &T, landing) : 0;
    if (rel == TP_NAV_REL_JUMP) {
        if (!ride_takeoff(&d, call, &full, &from, landing, T, V)) /* not ready: hold the access point */
            ride_track(sk, call, &cb, cur, V + RIDE_V_ACCESS_X, V);
        return 1;
    }
    if (over && rel != TP_NAV_REL_STEP) {
        V[RIDE_V_PHASE] = RIDE_WAIT;
        V[RIDE_V_WAIT_STATE] = -2;
        ride_track(sk, call, &cb, cur, V + RIDE_V_ACCESS_X, V);
        return 1;
    }
    double dist = ride_track(sk, call, &cb, next, V + RIDE_V_LAND_X, V);
    return dist <= RIDE_ARRIVE && ride_on(call, &cb, next, d.height, d.edge) ? 0 : 1;
}

static void ride_defaults(tpSkillDef *def)
{
    def->ride.cell = 0.1;
    def->ride.jump_vz = 2.0;
    def->ride.jump_vh = 2.0;
}

static bool validate_ride(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                          size_t errlen)
{
    (void)world;
    TP_SKILL_DISTS({"point", &sk->ride.point, 2, 3}, {"duration", &sk->ride.margin, 1, 1});
    if (!tpSkill_RequirePoint(sk, kind->name, &sk->ride.point, err, errlen)) {
        return false;
    }
    if (!(sk->ride.cell > 0) || !isfinite(sk->ride.cell)) {
        tpErrorf(err, errlen, "skill '%s' (ride): nav_cell must be > 0", sk->name);
        return false;
    }
    if (!(sk->ride.jump_vz >= 0) || !(sk->ride.jump_vz <= TP_MAX_SPEED) || !(sk->ride.jump_vh >= 0) ||
        !(sk->ride.jump_vh <= TP_MAX_SPEED) || !(sk->ride.walk_force >= 0) || !(sk->ride.walk_force <= TP_MAX_FORCE)) {
        tpErrorf(err, errlen, "skill '%s' (ride): jump_vz and jump_vh must be in [0, %g] m/s, walk_force in [0, %g] N",
                 sk->name, TP_MAX_SPEED, TP_MAX_FORCE);
        return false;
    }
    return true;
}

static const char *const k_ride_keys[] = {
    "name",    "body",    TP_SKILL_FRAMED_KEYS, "duration", "nav_cell",         "jump",
    "jump_vz", "jump_vh", "walk_force",         "timeout",  TP_SKILL_GAIN_KEYS, NULL};
static const tpSkillField k_ride_fields[] = {
    TP_SKILL_DIST(ride, point, 2, 3),
    TP_SKILL_FIELD("duration", TP_FIELD_DURATION, ride, margin),
    TP_SKILL_FIELD("nav_cell", TP_FIELD_NONNEG, ride, cell),
    TP_SKILL_FIELD("jump", TP_FIELD_BOOL, ride, jump),
    TP_SKILL_FIELD("jump_vz", TP_FIELD_NONNEG, ride, jump_vz),
    TP_SKILL_FIELD("jump_vh", TP_FIELD_NONNEG, ride, jump_vh),
    TP_SKILL_FIELD("walk_force", TP_FIELD_NONNEG, ride, walk_force),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindRide = {
    .name = "ride",
    .defaults = ride_defaults,
    .validate = validate_ride,
    .run = run_ride,
    .vars = TP_SKILL_VARS,
    .timeout = RIDE_TIMEOUT,
    .needs_body = true,
    .accepted = k_ride_keys,
    .fields = k_ride_fields,
};
