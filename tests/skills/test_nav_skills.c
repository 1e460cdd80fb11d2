/* The navigation skills (skills/src/nav_skill.c, nav_path_skill.c, ride.c) and their overlays
 * (nav_overlay.c) against tiny worlds: each must reach its point around the obstacles it is
 * documented to avoid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skill_world.h"
#include "tp/base.h"

/* The character of the navigation domain (domains/navigation.lua): a vertical cylinder, r 0.15 m,
 * 0.4 m tall, 8 kg, planar force <= 40 N, on low friction (0.01 against the floor's 0.3). */
static tpBodyDef character(const char *name, double x, double y)
{
    tpBodyDef b = sw_robot(name, x, y);
    b.shape = TP_SHAPE_CYLINDER;
    b.size[0] = 0.15;
    b.size[1] = 0.4;
    b.size[2] = 0;
    b.pos[2] = 0.2;
    b.mass = 8;
    b.max_force = 40;
    b.max_torque = 4;
    return b;
}

/* A wall across the straight line from the robot at (-1, 0) to the goal at (1, 0):
 * 0.1 m thick, from y = -0.6 to 0.6. */
enum { WALL = 2, WALL_HALF_Y = 60 }; /* body index of the wall; its half length in cm */
static int wall_bodies(SkWorld *w)   /* the bodies only: more may be added before sw_start */
{
    sw_init(w, 0.3);
    w->mats[1].friction = 0.01;
    int robot = sw_add(w, character("robot", -1, 0));
    assert_int_equal(sw_add(w, sw_wall("wall", 0, 0, 0.1, 0.01 * 2 * WALL_HALF_Y)), WALL);
    /* two posts far away: the navigation grids span the static bodies (and the start and goal)
     * plus a margin, and a goal on that margin would sit in the grown border */
    sw_add(w, sw_wall("post_a", -2.5, -2.0, 0.1, 0.1));
    sw_add(w, sw_wall("post_b", 2.5, 2.0, 0.1, 0.1));
    return robot;
}

static int wall_scene(SkWorld *w)
{
    int robot = wall_bodies(w);
    sw_start(w);
    return robot;
}

/* Runs segments of `sk` (a fresh call each, like a tactic re-selecting it) until the robot is
 * within `tol` of (gx, gy) and slow, or `budget` steps pass; checks after every step that the
 * robot never touched the body `wall` (-1: none): it went around, it did not slide along it.
 * Returns the steps used. */
static int reach(SkWorld *w, const tpSkillDef *sk, int robot, double gx, double gy, double tol, int budget, int wall)
{
    char err[256];
    assert_true(tpSkill_Validate(sk, w->world, err, sizeof err));
    bool fresh = true;
    while (w->steps < budget) {
        int r = sw_step(w, sk, fresh);
        fresh = r == 0;
        const tpBodyState *s = sw_body(w, robot);
        for (int c = 0; c < tpWorld_ContactCount(w->world); ++c) { /* never bumps into the wall */
            const tpContactInfo *ci = &tpWorld_Contacts(w->world)[c];
            assert_false(ci->a == robot && ci->b == wall);
        }
        if (r == 0 && hypot(s->pos[0] - gx, s->pos[1] - gy) < tol && sw_speed(w, robot) < 0.1) {
            return w->steps;
        }
    }
    fail_msg("did not reach (%g, %g) in %d steps: at (%g, %g)", gx, gy, budget, sw_body(w, robot)->pos[0],
             sw_body(w, robot)->pos[1]);
    return budget;
}

/* A grid-navigation skill of `kind` (nav_to, follow_path, follow_field: the nav member) for `robot`,
 * to (1, 0) with a 5 cm tolerance. */
static tpSkillDef goal_skill(tpSkillKind kind, int robot)
{
    tpSkillDef sk = tpDefaultSkillDef(kind);
    sk.body = robot;
    sk.nav.point = sw_point2(1.0, 0.0);
    sk.gains.tolerance = 0.05;
    return sk;
}

/* Counts the sink's items of one kind. */
static int count_overlays(const tpOverlaySink *sink, tpOverlayKind kind)
{
    int n = 0;
    for (int i = 0; i < sink->n; ++i) {
        n += sink->items[i].kind == kind;
    }
    return n;
}

/* What the recorder does: a planning call samples V, then the segment is replayed for n steps
 * from its fresh call with the overlay sink set (the replay reuses V). The caller frees sink. */
static void replay(SkWorld *w, const tpSkillDef *sk, int n, tpOverlaySink *sink)
{
    memset(sink, 0, sizeof *sink);
    sink->window_every = 1;
    w->overlay = NULL;
    sw_step(w, sk, true);
    w->overlay = sink;
    for (int i = 0; i < n; ++i) {
        sw_step(w, sk, i == 0);
    }
    w->overlay = NULL;
    assert_false(sink->failed);
}

/* nav_to: reaches its point around a wall that blocks the straight line. */
static void test_nav_to(void **state)
{
    (void)state;
    SkWorld w;
    int robot = wall_scene(&w);
    tpSkillDef sk = goal_skill(TP_SKILL_NAV_TO, robot);
    reach(&w, &sk, robot, 1.0, 0.0, 0.1, 60 * 60, WALL);
    sw_free(&w);
}

/* The robot of the stuck_turn: a heavy square box (0.3 x 0.3 x 0.2 m, 8 kg, izz 0.12 kg·m²)
 * on rubber (0.8 against the floor's 0.4), 80 N, max_torque 20 N·m, at the origin facing +x.
 * Its corners' friction torque (about 9 N·m) is above what the path follower's own P law gave
 * (izz * komega * ktheta * error, 6.6 N·m whatever the skill's gains): it never turned. Two posts
 * far away, as in wall_bodies. */
static int heavy_square_scene(SkWorld *w)
{
    sw_init(w, 0.4);
    w->mats[1].friction = 0.8;
    tpBodyDef b = sw_robot("robot", 0, 0);
    b.size[0] = b.size[1] = 0.3;
    b.size[2] = 0.2;
    b.pos[2] = 0.1;
    b.mass = 8;
    b.max_force = 80;
    b.max_torque = 20;
    int robot = sw_add(w, b);
    sw_add(w, sw_wall("post_a", -2.5, -2.0, 0.1, 0.1));
    sw_add(w, sw_wall("post_b", 2.5, 2.5, 0.1, 0.1));
    sw_start(w);
    return robot;
}

/* The first call's yaw torque (N·m) of a path follower (nav_to or follow_path) for the heavy
 * square robot at rest, sent to (0, 2): a quarter turn to the left, so ktheta * error is above
 * max_yaw_rate and the commanded yaw rate is max_yaw_rate. */
static double first_yaw_torque(tpSkillKind kind, double kyaw_rate, double max_yaw_rate)
{
    SkWorld w;
    int robot = heavy_square_scene(&w);
    tpSkillDef sk = goal_skill(kind, robot);
    sk.nav.point = sw_point2(0.0, 2.0);
    sk.gains.kyaw_rate = kyaw_rate;
    sk.gains.max_yaw_rate = max_yaw_rate;
    char err[256];
    assert_true(tpSkill_Validate(&sk, w.world, err, sizeof err));
    sw_step(&w, &sk, true);
    double tz = w.action[6 * tpWorld_ControlSlot(w.world, robot) + 5];
    sw_free(&w);
    return tz;
}

/* nav_to and follow_path turn with the skill's yaw gains up to the body's max_torque:
 * the first step's torque is the PI law izz * (kyaw_rate * e + kyaw_rate² * e * dt) on the yaw-rate
 * error e = max_yaw_rate, and the limit caps it; the robot then reaches its point. */
static void test_nav_turns_with_gains(void **state)
{
    (void)state;
    const double izz = 8 * (0.3 * 0.3 + 0.3 * 0.3) / 12, dt = 1.0 / 60;
    const tpSkillKind kinds[2] = {TP_SKILL_NAV_TO, TP_SKILL_FOLLOW_PATH};
    for (int k = 0; k < 2; ++k) {
        assert_float_equal(first_yaw_torque(kinds[k], 10, 1), izz * (10 + 100 * dt), 1e-9);
        assert_float_equal(first_yaw_torque(kinds[k], 30, 1.5), izz * 1.5 * (30 + 900 * dt), 1e-9);
        assert_float_equal(first_yaw_torque(kinds[k], 50, 3), 20.0, 1e-12); /* max_torque */
    }
    /* with the default gains it turns toward (1.5, 1.7) and gets there (it stopped after 0.16 m) */
    SkWorld w;
    int robot = heavy_square_scene(&w);
    tpSkillDef sk = goal_skill(TP_SKILL_NAV_TO, robot);
    sk.nav.point = sw_point2(1.5, 1.7);
    reach(&w, &sk, robot, 1.5, 1.7, 0.1, 30 * 60, -1);
    double yaw = sw_yaw(&w, robot);
    assert_true(fabs(yaw - atan2(1.7, 1.5)) < 0.1);
    sw_free(&w);
}

/* One call of sk in w's current state with the given variables, action block, cache, random
 * stream and control-step id (0: none; w itself is not advanced). Returns tpSkill_Run's result. */
static int run_at(SkWorld *w, const tpSkillDef *sk, bool fresh, double *V, double *action, tpSkillCache *cache,
                  tpRng *rng, uint64_t step)
{
    tpSkillCall call = {.world = w->world,
                        .x = w->x,
                        .t = w->t,
                        .dt = w->scene.dt,
                        .rng = rng,
                        .fresh = fresh,
                        .V = V,
                        .action = action,
                        .cache = cache,
                        .step = step};
    return tpSkill_Run(sk, &call);
}

/* nav_to keeps its last grid and path lookup between control steps (NavToMemo). follow_field
 * skills with other cell sizes (five grids for a cache of four) run on the same cache between the
 * steps and refill the grid slots the memo points at (they share the grid cache, not the memo):
 * every step must still give the action and the variables that a fresh cache gives, and the robot
 * still reaches its point. The other grids are coarser than nav_to's 0.1 m: each refill evicts
 * one, so every follow_field call builds its grid and harmonic map anew (280 maps in the run), and
 * at 0.05..0.09 m cells those maps took about 195 s of this binary's 200 s under ASan; any other
 * cell size refills the slots alike (without the memo's checks the first step after a refill fails). */
static void test_nav_to_memo_refills(void **state)
{
    (void)state;
    SkWorld w;
    int robot = wall_scene(&w);
    tpSkillDef sk = goal_skill(TP_SKILL_NAV_TO, robot), other[5];
    for (int k = 0; k < 5; ++k) {
        other[k] = goal_skill(TP_SKILL_FOLLOW_FIELD, robot);
        other[k].nav.cell = 0.2 + 0.02 * k;
        other[k].nav.point = sw_point2(-0.5 + 0.3 * k, 0.8);
    }
    const int na = 6 * tpWorld_ControlCount(w.world);
    double *acts = calloc((size_t)na * 2, sizeof(double));
    assert_non_null(acts);
    bool fresh = true, arrived = false;
    for (int step = 0; step < 60 * 40 && !arrived; ++step) {
        double V[2][TP_SKILL_VARS];
        int r[2];
        for (int c = 0; c < 2; ++c) { /* the shared cache, then a new one */
            tpSkillCache *cache = c == 0 ? w.cache : tpCreateSkillCache();
            assert_non_null(cache);
            memcpy(V[c], w.V, sizeof w.V);
            memset(acts + c * na, 0, sizeof(double) * (size_t)na);
            tpRng rng = w.rng;
            r[c] = run_at(&w, &sk, fresh, V[c], acts + c * na, cache, &rng, 0);
            if (c == 1) {
                tpDestroySkillCache(cache);
            } else {
                w.rng = rng;
            }
        }
        assert_int_equal(r[0], r[1]);
        assert_memory_equal(acts, acts + na, sizeof(double) * (size_t)na);
        assert_memory_equal(V[0], V[1], sizeof V[0]);
        if (step % 3 == 1) { /* the follow_field skills, fresh, on the shared cache */
            for (int k = 0; k < 5; ++k) {
                double Vo[TP_SKILL_VARS] = {0}, *ao = calloc((size_t)na, sizeof(double));
                assert_non_null(ao);
                tpRng rng = w.rng;
                assert_true(run_at(&w, &other[k], true, Vo, ao, w.cache, &rng, 0) >= 0);
                free(ao);
            }
        }
        memcpy(w.V, V[0], sizeof w.V);
        assert_true(tpWorld_Step(w.world, w.x, w.t, acts, w.x));
        w.t += w.scene.dt;
        fresh = r[0] == 0;
        const tpBodyState *b = sw_body(&w, robot);
        arrived = r[0] == 0 && hypot(b->pos[0] - 1.0, b->pos[1]) < 0.1 && sw_speed(&w, robot) < 0.1;
    }
    assert_true(arrived);
    free(acts);
    sw_free(&w);
}

/* nav_to in a recording replay: the grid and the path it planned go to the overlay sink, and the
 * path ends at the goal. */
static void test_nav_to_overlay(void **state)
{
    (void)state;
    SkWorld w;
    int robot = wall_scene(&w);
    tpSkillDef sk = goal_skill(TP_SKILL_NAV_TO, robot);
    tpOverlaySink sink;
    replay(&w, &sk, 10, &sink);
    assert_true(count_overlays(&sink, TP_OVERLAY_GRID) >= 1);
    assert_true(count_overlays(&sink, TP_OVERLAY_PATH) >= 1);
    for (int i = 0; i < sink.n; ++i) {
        const tpPlanOverlay *o = &sink.items[i];
        if (o->kind == TP_OVERLAY_PATH) {
            assert_true(o->npoints >= 3); /* around the wall: not a straight segment */
            assert_true(hypot(o->points[2 * (o->npoints - 1)] - 1.0, o->points[2 * (o->npoints - 1) + 1]) < 0.1);
        }
    }
    tpOverlaySink_Free(&sink);
    sw_free(&w);
}

/* follow_path: reaches its point around the wall, replanning every nav_replan seconds. */
static void test_follow_path(void **state)
{
    (void)state;
    SkWorld w;
    int robot = wall_scene(&w);
    tpSkillDef sk = goal_skill(TP_SKILL_FOLLOW_PATH, robot);
    sk.nav.replan = 0.5;
    reach(&w, &sk, robot, 1.0, 0.0, 0.1, 30 * 60, WALL);
    sw_free(&w);
}

/* follow_path avoids a moving body standing on the straight line (no static obstacle at all). */
static void test_follow_path_moving(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.3);
    w.mats[1].friction = 0.01;
    int robot = sw_add(&w, character("robot", -1, 0));
    tpBodyDef other = sw_robot("other", 0, 0);
    other.cls = TP_BODY_PASSIVE;
    other.size[0] = other.size[1] = 0.4;
    other.mass = 50;
    int obstacle = sw_add(&w, other);
    sw_start(&w);
    tpSkillDef sk = goal_skill(TP_SKILL_FOLLOW_PATH, robot);
    reach(&w, &sk, robot, 1.0, 0.0, 0.1, 30 * 60, obstacle);
    /* it went around: the obstacle was never pushed out of the way */
    assert_true(hypot(sw_body(&w, obstacle)->pos[0], sw_body(&w, obstacle)->pos[1]) < 0.02);
    sw_free(&w);
}

/* follow_field: the harmonic potential leads around the wall to the point. */
static void test_follow_field(void **state)
{
    (void)state;
    SkWorld w;
    int robot = wall_scene(&w);
    tpSkillDef sk = goal_skill(TP_SKILL_FOLLOW_FIELD, robot);
    reach(&w, &sk, robot, 1.0, 0.0, 0.15, 40 * 60, WALL);
    sw_free(&w);
}

/* follow_field in a recording replay: its harmonic field and its local maps go to the sink. */
static void test_follow_field_overlay(void **state)
{
    (void)state;
    SkWorld w;
    int robot = wall_scene(&w);
    tpSkillDef sk = goal_skill(TP_SKILL_FOLLOW_FIELD, robot);
    tpOverlaySink sink;
    replay(&w, &sk, 5, &sink);
    assert_true(count_overlays(&sink, TP_OVERLAY_FIELD) >= 1);
    assert_true(count_overlays(&sink, TP_OVERLAY_WINDOW) >= 1);
    tpOverlaySink_Free(&sink);
    sw_free(&w);
}

/* follow_field shares the moving bodies' positions between the calls of one control step
 * (tpSkillCall.step): calls with ids (on their own cache, which sees ids only) give the forces and
 * variables of calls without (step 0), bit for bit, a repeated id reuses them, and a new id after
 * the state changed sees the change. */
static void test_follow_field_step_ids(void **state)
{
    (void)state;
    SkWorld w;
    int robot = wall_bodies(&w);
    tpBodyDef other = sw_robot("other", -0.7, 0.2);
    other.cls = TP_BODY_PASSIVE;
    int obstacle = sw_add(&w, other);
    /* ten more moving bodies, five near the path and five far off (the calls with ids find them
     * through buckets, here about 2 m wide) */
    static const char *names[10] = {"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"};
    static const double at[10][2] = {{-1.5, 0.6}, {-0.5, -0.6}, {-1.6, 0.1}, {-0.4, 0.75}, {0.5, -0.8},
                                     {-15, 10},   {12, -9},     {18, 14},    {-17, -12},   {9, 16}};
    for (int k = 0; k < 10; ++k) {
        tpBodyDef b = sw_robot(names[k], at[k][0], at[k][1]);
        b.cls = TP_BODY_PASSIVE;
        sw_add(&w, b);
    }
    sw_start(&w);
    tpSkillCache *ids = tpCreateSkillCache();
    assert_non_null(ids);
    tpSkillDef sk = goal_skill(TP_SKILL_FOLLOW_FIELD, robot);
    const int slot = tpWorld_StateSlot(w.world, obstacle), na = 6 * tpWorld_ControlCount(w.world);
    double *acts = calloc((size_t)na * 3, sizeof(double));
    assert_non_null(acts);
    int differ = 0; /* steps whose force changed with the obstacle's move */
    for (int k = 0; k < 40; ++k) {
        w.x[slot].pos[1] = 0.1 + 0.05 * (k % 5); /* the obstacle moves between the steps */
        double V[3][TP_SKILL_VARS];
        for (int r = 0; r < 3; ++r) { /* step 0, a new id, the same id again */
            memcpy(V[r], w.V, sizeof w.V);
            memset(acts + r * na, 0, sizeof(double) * na);
            tpRng rng = w.rng;
            const uint64_t step = r == 0 ? 0 : 100 + (uint64_t)k;
            assert_true(run_at(&w, &sk, k == 0, V[r], acts + r * na, r == 0 ? w.cache : ids, &rng, step) >= 0);
        }
        for (int r = 1; r < 3; ++r) {
            assert_memory_equal(acts, acts + r * na, sizeof(double) * na);
            assert_memory_equal(V[0], V[r], sizeof V[0]);
        }
        /* the move matters: the same state with the obstacle elsewhere gives another force */
        double saved = w.x[slot].pos[1], Vo[TP_SKILL_VARS];
        w.x[slot].pos[1] = 1.0;
        memcpy(Vo, w.V, sizeof w.V);
        memset(acts + na, 0, sizeof(double) * na);
        tpRng rng = w.rng;
        assert_true(run_at(&w, &sk, k == 0, Vo, acts + na, w.cache, &rng, 0) >= 0);
        differ += memcmp(acts, acts + na, sizeof(double) * na) != 0;
        w.x[slot].pos[1] = saved;
        memcpy(w.V, V[0], sizeof w.V);
        w.rng = rng; /* as every call above left its copy */
        assert_true(tpWorld_Step(w.world, w.x, w.t, acts, w.x));
        w.t += w.scene.dt;
    }
    assert_true(differ > 0);
    free(acts);
    tpDestroySkillCache(ids);
    sw_free(&w);
}

/* drive_track: the Appendix A car (a 4 x 1.8 m box, 1500 kg, sliding on a frictionless road: the
 * tyre forces come from the car model) reaches a point beside and ahead of it, clip after clip,
 * and in a recording replay each decision's search tree goes to the sink. */
static void test_drive_track(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.8);
    tpContactDef road = {.material_a = 0, .material_b = 1, .friction = 0.0};
    w.scene.ncontacts = 1;
    w.scene.contacts = &road;
    w.mats[1].friction = 0.8;
    tpBodyDef car = sw_car("car", 0, 0);
    int body = sw_add(&w, car);
    sw_add(&w, sw_wall("far", 40, 30, 1, 1)); /* a static body: the track's walls come from them */
    sw_start(&w);
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_DRIVE_TRACK);
    sk.body = body;
    sk.track.point = sw_point2(30.0, 8.0);
    sk.gains.tolerance = 3.0;
    const double goal[2] = {30.0, 8.0};
    int decisions = 0;
    double best = 1e9;
    bool fresh = true;
    while (w.steps < 40 * 60 && best > sk.gains.tolerance) {
        decisions += fresh;
        fresh = sw_step(&w, &sk, fresh) == 0;
        const tpBodyState *s = sw_body(&w, body);
        best = fmin(best, hypot(s->pos[0] - goal[0], s->pos[1] - goal[1]));
    }
    assert_true(best <= sk.gains.tolerance);
    assert_true(decisions > 1); /* one clip per activation: it replanned on the way */

    tpOverlaySink sink;
    replay(&w, &sk, 1, &sink);
    assert_int_equal(count_overlays(&sink, TP_OVERLAY_TREE), 1);
    tpOverlaySink_Free(&sink);
    sw_free(&w);
}

/* A static pad of top 0 (1 m thick) over x0..x1, y0..y1. */
static tpBodyDef pad(const char *name, double x0, double y0, double x1, double y1)
{
    tpBodyDef b = sw_wall(name, 0.5 * (x0 + x1), 0.5 * (y0 + y1), x1 - x0, y1 - y0);
    b.size[2] = 1.0;
    b.pos[2] = -0.5;
    return b;
}

/* The ride tests' scene: a start pad (x -3..0) and a goal pad (x goal_x0..3) over a pit 1 m deep,
 * and the rider of domains/lib/rider.lua (a 0.4 m box of 2 kg at (-1.5, 0), not yet added: the
 * caller may change it, then sw_add and sw_start). */
static tpBodyDef ride_pads(SkWorld *w, double goal_x0)
{
    sw_init(w, 0.8);
    w->bodies[0].plane[3] = -1.0; /* the ground is a pit 1 m below the pads */
    w->mats[1].friction = 0.8;
    sw_add(w, pad("start", -3, -1.5, 0, 1.5));
    sw_add(w, pad("goal", goal_x0, -1.5, 3, 1.5));
    tpBodyDef r = sw_robot("robot", -1.5, 0);
    r.size[0] = r.size[1] = r.size[2] = 0.4;
    r.pos[2] = 0.2;
    r.mass = 2;
    return r;
}

/* A ride skill for `robot` to the point (1.5, 0.5, 0) on the goal pad, 1 m/s, 5 cm tolerance. */
static tpSkillDef ride_skill(int robot)
{
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_RIDE);
    sk.body = robot;
    sk.ride.point = tpDist_Const(1.5);
    sk.ride.point.dim = 3;
    sk.ride.point.a[1] = 0.5;
    sk.ride.point.a[2] = 0.0;
    sk.gains.max_speed = 1.0;
    sk.gains.tolerance = 0.05;
    return sk;
}

/* ride: the rider of domains/lib/rider.lua (a 0.4 m box, 2 kg, 20 N) crosses from one pad to
 * another over a 0.2 m gap (a stable relation: it boards at once) and stops on the goal, which
 * lies on the second surface: the route has two surfaces and the body ends up on the second. */
static void test_ride(void **state)
{
    (void)state;
    SkWorld w;
    tpBodyDef r = ride_pads(&w, 0.2);
    int robot = sw_add(&w, r);
    sw_start(&w);
    tpSkillDef sk = ride_skill(robot);
    char err[256];
    assert_true(tpSkill_Validate(&sk, w.world, err, sizeof err));
    bool fresh = true;
    int segments = 0;
    while (w.steps < 60 * 60) {
        segments += fresh;
        int res = sw_step(&w, &sk, fresh);
        fresh = res == 0;
        const tpBodyState *s = sw_body(&w, robot);
        assert_true(s->pos[2] > 0.1); /* never fell into the gap */
        if (res == 0 && hypot(s->pos[0] - 1.5, s->pos[1] - 0.5) < 0.1 && sw_speed(&w, robot) < 0.1) {
            break;
        }
    }
    const tpBodyState *s = sw_body(&w, robot);
    assert_true(hypot(s->pos[0] - 1.5, s->pos[1] - 0.5) < 0.1);
    assert_true(segments >= 2); /* the crossing ends a segment: a second one walks to the goal */
    sw_free(&w);
}

/* ride with `jump`: the jumper of domains/lib/rider.lua (a 0.4 m box, 2 kg, not planar, walking
 * with 40 N) on a start pad, the goal point on a second pad 0.45 m away (wider than the box: not
 * walkable). Runs segments until the body rests at the goal or `budget` steps pass; reports whether
 * it was ever airborne over the gap (bottom 5 cm above the faces, centre between them) and where it
 * ends. It never falls below the faces. */
static void ride_hop(bool jump, double max_force, int budget, bool *airborne, double end[2])
{
    SkWorld w;
    tpBodyDef r = ride_pads(&w, 0.45);
    w.scene.substeps = 4; /* as platforms.lua: a landing at 2 m/s sinks 3.3 cm per 1/60 s step */
    r.max_force = max_force;
    r.planar_force = false;
    int robot = sw_add(&w, r);
    sw_start(&w);
    tpSkillDef sk = ride_skill(robot);
    sk.ride.jump = jump;
    sk.ride.walk_force = 40;
    char err[256];
    assert_true(tpSkill_Validate(&sk, w.world, err, sizeof err));
    *airborne = false;
    bool fresh = true;
    while (w.steps < budget) {
        int res = sw_step(&w, &sk, fresh);
        fresh = res == 0;
        const tpBodyState *s = sw_body(&w, robot);
        assert_true(s->pos[2] > 0.15); /* never fell into the gap */
        if (s->pos[0] > 0 && s->pos[0] < 0.45 && s->pos[2] - 0.2 > 0.05)
            *airborne = true;
        if (res == 0 && hypot(s->pos[0] - 1.5, s->pos[1] - 0.5) < 0.1 && sw_speed(&w, robot) < 0.1)
            break;
    }
    const tpBodyState *s = sw_body(&w, robot);
    end[0] = s->pos[0], end[1] = s->pos[1];
    sw_free(&w);
}

/* The hop crosses, in flight over the gap; without `jump` the gap stops the body (no route: it
 * holds still on the start pad); with a body too weak for the take-off (100 N < the 2 kg x
 * ~2.8 m/s / (1/60 s) it needs) it waits at the border and never takes off. */
static void test_ride_jump(void **state)
{
    (void)state;
    bool airborne;
    double end[2];
    ride_hop(true, 450, 60 * 20, &airborne, end);
    assert_true(airborne);
    assert_true(hypot(end[0] - 1.5, end[1] - 0.5) < 0.1);
    ride_hop(false, 450, 60 * 10, &airborne, end);
    assert_false(airborne);
    assert_true(end[0] < 0);
    ride_hop(true, 100, 60 * 10, &airborne, end);
    assert_false(airborne);
    assert_true(end[0] < 0);
}

/* An argument runs only the cases whose names match it (cmocka's filter: `*` and `?`). */
int main(int argc, char **argv)
{
    if (argc > 1) {
        cmocka_set_test_filter(argv[1]);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nav_to),
        cmocka_unit_test(test_nav_to_memo_refills),
        cmocka_unit_test(test_nav_turns_with_gains),
        cmocka_unit_test(test_nav_to_overlay),
        cmocka_unit_test(test_follow_path),
        cmocka_unit_test(test_follow_path_moving),
        cmocka_unit_test(test_follow_field),
        cmocka_unit_test(test_follow_field_overlay),
        cmocka_unit_test(test_follow_field_step_ids),
        cmocka_unit_test(test_drive_track),
        cmocka_unit_test(test_ride),
        cmocka_unit_test(test_ride_jump),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
