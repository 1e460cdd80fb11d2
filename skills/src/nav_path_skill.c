/* follow_path: Kuffner's grid planner with replanning around moving bodies (issue 5).
 *
 * The fresh call samples the goal (for frame "target" the target's CURRENT position is the origin,
 * so a goal on a moving body moves with it from one replanning to the next) and plans an A* path
 * (8-connected, line-of-sight smoothed) on a grid of the static bodies plus every other non-static
 * body at its pose in the current state (`tpSkill_NavShapes` at that pose), all grown by the
 * clearance; a moving body is swept along its current velocity over the next `nav_replan` seconds
 * (5 poses). The grid is a pure function of the current state and the skill's constants, built
 * afresh at each replanning (no cache, so nothing about replay depends on process history).
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
#include "skill_internal.h"
#include "tp/base.h"
#include "tp/nav.h"

enum {
    PATH_V_STATUS = 4,   /* 1 the leg ends at the goal, 2 at an intermediate vertex, -1 no path */
    PATH_V_LEG_X = 5,    /* m, world: the leg's first point (the body's position when planned) */
    PATH_V_LEG_Y = 6,    /* m */
    PATH_V_SEG = 7,      /* the follower's progress: leg segment index */
    PATH_V_SEG_FRAC = 8, /* the follower's progress: fraction along that segment */
    PATH_V_DONE = 9,     /* 1 once the follower reached the end of the leg */
    PATH_V_NEXT_X = 10,  /* m, world: the leg's second point */
    PATH_V_NEXT_Y = 11,  /* m */
    PATH_V_AFTER_X = 12, /* m, world: the leg's third point (when PATH_V_NPOINTS is 3) */
    PATH_V_AFTER_Y = 13, /* m (shares the slot of TP_V_YAW_INTEGRAL, which this kind does not use) */
    PATH_V_NPOINTS = 15, /* number of leg points, 2 or 3 (shares TP_V_INTEGRAL_Y's slot) */
};

#define PATH_MAX_SIDE 1000
#define PATH_SWEEP 4 /* a moving body is rasterised at 5 poses along its velocity over nav_replan */

/* Plans from `start` to `goal` on the grid of the static bodies plus the other moving bodies at
 * their poses in the call's state. Writes up to 3 leg points; returns their count (0 = no path)
 * and sets *final when the leg ends at the goal. */
static int planLeg(const tpSkillDef *sk, const tpSkillCall *call, bool others, double radius, double z_min,
                   double z_max, const double start[2], const double goal[2], double leg[3][2], bool *final)
{
    const tpWorld *world = call->world;
    const int nb = tpWorld_BodyCount(world);
    double bounds[4];
    tpSkill_NavBounds(call->cache, world, sk->body, z_min, z_max, start, goal, 2 * radius + 4 * sk->nav.cell, bounds);
    tpNavGridDef gd = tpDefaultNavGridDef();
    gd.cell = sk->nav.cell;
    double w = bounds[2] - bounds[0], h = bounds[3] - bounds[1];
    if (fmax(w, h) / gd.cell > PATH_MAX_SIDE) { /* coarser cells for huge scenes */
        gd.cell = fmax(w, h) / PATH_MAX_SIDE;
    }
    gd.x0 = bounds[0];
    gd.y0 = bounds[1];
    gd.nx = (int)ceil(w / gd.cell);
    gd.ny = (int)ceil(h / gd.cell);
    gd.nx = gd.nx < 1 ? 1 : gd.nx;
    gd.ny = gd.ny < 1 ? 1 : gd.ny;
    gd.z_min = z_min;
    gd.z_max = z_max;
    tpNavGrid *grid = tpSkill_StaticGrid(call->cache, world, sk->body, &gd); /* owned by the cache */
    if (!grid) {
        return 0;
    }
    for (int i = 0; i < nb; ++i) {
        const tpBodyDef *d = tpWorld_Body(world, i);
        if (i == sk->body) {
            continue;
        }
        if (d->cls != TP_BODY_STATIC) { /* a moving body: its shape at its current pose and where
                                           its current velocity takes it within nav_replan */
            if (!others || d->shape == TP_SHAPE_PLANE) {
                continue;
            }
            tpBodyState os;
            tpWorld_BodyState(world, call->x, call->t, i, &os);
            tpBodyDef moved = *d;
            memcpy(moved.quat, os.quat, sizeof moved.quat);
            for (int q = 0; q <= PATH_SWEEP; ++q) {
                double tau = sk->nav.replan * q / PATH_SWEEP;
                moved.pos[0] = os.pos[0] + os.vel[0] * tau;
                moved.pos[1] = os.pos[1] + os.vel[1] * tau;
                moved.pos[2] = os.pos[2];
                tpNavShape shapes[3];
                int n = tpSkill_NavShapes(&moved, shapes);
                for (int k = 0; k < n; ++k) {
                    tpNavGrid_AddShape(grid, &shapes[k], NULL, 0);
                }
            }
        }
        /* a static body: already in the grid (the cached raster) */
    }
    tpNavGrid_Grow(grid, radius);
    int si, sj, gi, gj;
    si = (int)floor((start[0] - gd.x0) / gd.cell);
    sj = (int)floor((start[1] - gd.y0) / gd.cell);
    gi = (int)floor((goal[0] - gd.x0) / gd.cell);
    gj = (int)floor((goal[1] - gd.y0) / gd.cell);
    tpNavPath path = {0};
    tpNavPlanDef pd = tpDefaultNavPlanDef();
    pd.smooth = true;
    int n = 0;
    if (tpNavGrid_NearestFree(grid, &si, &sj) && tpNavGrid_NearestFree(grid, &gi, &gj) &&
        tpNav_PlanCells(grid, &pd, si, sj, gi, gj, &path) == TP_NAV_OK && path.npoints >= 1) {
        if (call->overlay != NULL) { /* recording: what this segment planned */
            tpNavOverlay_Grid(call->overlay, grid);
            tpNavOverlay_Path(call->overlay, path.points, path.npoints);
        }
        /* the leg starts at the body's position (not its cell centre): no sideways jump */
        leg[0][0] = start[0];
        leg[0][1] = start[1];
        n = 1;
        for (int k = 1; k < path.npoints && n < 3; ++k) {
            leg[n][0] = path.points[2 * k];
            leg[n][1] = path.points[2 * k + 1];
            ++n;
        }
        if (n == 1) { /* start and goal in the same cell */
            leg[1][0] = goal[0];
            leg[1][1] = goal[1];
            n = 2;
        }
        *final = path.npoints <= 3;
        if (*final) { /* the last vertex is the goal cell's centre: end at the goal itself */
            leg[n - 1][0] = goal[0];
            leg[n - 1][1] = goal[1];
        }
    }
    tpNavPath_Free(&path);
    return n;
}

int tpSkill_RunFollowPath(const tpSkillDef *sk, tpSkillCall *call)
{
    if (!call->cache) {
        return -1; /* the caches live in the domain: a host that runs skills must give one */
    }
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    const tpBodyDef *bd = tpWorld_Body(call->world, sk->body);
    double half_h = bd->shape == TP_SHAPE_BOX       ? bd->size[2] / 2
                    : bd->shape == TP_SHAPE_SPHERE  ? bd->size[0]
                    : bd->shape == TP_SHAPE_CAPSULE ? bd->size[1] / 2 + bd->size[0]
                                                    : bd->size[1] / 2;
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
            V[PATH_V_STATUS] = final ? 1 : 2;
            V[PATH_V_LEG_X] = leg[0][0];
            V[PATH_V_LEG_Y] = leg[0][1];
            V[PATH_V_NEXT_X] = leg[1][0];
            V[PATH_V_NEXT_Y] = leg[1][1];
            V[PATH_V_AFTER_X] = n > 2 ? leg[2][0] : 0.0;
            V[PATH_V_AFTER_Y] = n > 2 ? leg[2][1] : 0.0;
            V[PATH_V_NPOINTS] = n;
        }
    }
    if ((int)V[PATH_V_STATUS] == -1) { /* no path: wait, then replan */
        tpCtl_Brake(&sk->gains, call, &cb);
        return period_over ? 0 : 1;
    }
    double pts[6] = {V[PATH_V_LEG_X],  V[PATH_V_LEG_Y],   V[PATH_V_NEXT_X],
                     V[PATH_V_NEXT_Y], V[PATH_V_AFTER_X], V[PATH_V_AFTER_Y]};
    tpNavFollowDef fd = tpDefaultNavFollowDef();
    fd.speed = V[NAV_V_CRUISE];
    fd.lookahead = sk->nav.lookahead;
    bool final = (int)V[PATH_V_STATUS] == 1;
    /* an intermediate leg ends (and the next is planned) a look-ahead before its end, at speed */
    fd.stop_radius = final ? sk->gains.tolerance : sk->nav.lookahead;
    if (!final) {
        fd.kp = 1e3;
    }
    fd.dt = call->dt;
    fd.turn_speed = 0.1 * V[NAV_V_CRUISE];
    tpNavFollower f;
    tpNavFollower_Init(&f, &fd);
    f.points = pts; /* borrowed: the follower is not freed */
    f.npoints = (int)V[PATH_V_NPOINTS];
    f.seg = (int)V[PATH_V_SEG];
    f.s = V[PATH_V_SEG_FRAC];
    f.done = V[PATH_V_DONE] != 0;
    double c = cos(cb.yaw), s = sin(cb.yaw);
    double vfwd = cb.s.vel[0] * c + cb.s.vel[1] * s, vlat = -cb.s.vel[0] * s + cb.s.vel[1] * c;
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
    if (f.done) {
        V[TP_V_INTEGRAL_X] = 0.0;
    } else {
        V[TP_V_INTEGRAL_X] = fmin(fmax(V[TP_V_INTEGRAL_X] + acc / fd.kv * call->dt, -0.5), 0.5);
    }
    double afwd = acc + 4.0 * V[TP_V_INTEGRAL_X] + (vfwd < 0 ? -sk->gains.kv * vfwd : 0.0), alat = -sk->gains.kv * vlat;
    double force[3] = {cb.mass * (afwd * c - alat * s), cb.mass * (afwd * s + alat * c), 0.0};
    tpCtl_Apply(call, &cb, force, cb.izz * alpha);
    bool timed_out = elapsed >= tpSkill_DefaultTimeout(sk);
    return (period_over || timed_out) ? 0 : 1;
}
