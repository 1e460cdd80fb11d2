/* Vehicle (Adam 2007): the Appendix A car, the automatically built move tree and the
 * finite-horizon A* over clips on a cornered track with traffic. Everything is deterministic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "tp/base.h"
#include "tp/nav.h"
#include "tp/rng.h"

static void test_lateral_saturation(void **state)
{
    (void)state;
    tpNavCarDef car = tpDefaultNavCarDef();
    const double w = 1500 * 9.8 * 0.5; /* 7350 N per axle */
    assert_true(fabs(w - 7350.0) < 1e-9);
    /* 45 degrees of side slip: |CA * slip| > 3, so both axles saturate at MAXGRIP * load */
    tpNavCarState s = {0, 0, 0, 10, 10, 0};
    tpNavCarForces f;
    tpNavCar_Forces(&car, &s, 0.0, 0.0, 0.0, &f);
    assert_true(fabs(fabs(f.lat_front) - 3.0 * w) < 1e-9);
    assert_true(fabs(fabs(f.lat_rear) - 3.0 * w) < 1e-9);
    assert_true(f.lat_front < 0 && f.lat_rear < 0); /* sliding left: forces push right */
    assert_true(fabs(f.sideslip - TP_PI / 4) < 1e-12);
    /* small slip: linear in the slip angle, CAF = -4 per rad */
    tpNavCarState t = {0, 0, 0, 10, 0.1, 0};
    tpNavCar_Forces(&car, &t, 0.0, 0.0, 0.0, &f);
    assert_true(fabs(f.lat_front - (-4.0 * atan2(0.1, 10.0) * w)) < 1e-9);
    /* steering left on a straight run gives a left force and a counter-clockwise torque */
    tpNavCarState u = {0, 0, 0, 10, 0, 0};
    tpNavCar_Forces(&car, &u, 0.1, 0.0, 0.0, &f);
    assert_true(f.lat_front > 0 && f.torque > 0);
}

static void test_straight_acceleration(void **state)
{
    (void)state;
    tpNavCarDef car = tpDefaultNavCarDef();
    tpNavCarState s = {0, 0, 0.3, 0, 0, 0};
    double prev = 0;
    for (int k = 0; k < 60 * 120; ++k) {
        tpNavCar_Step(&car, &s, 0.0, 100.0, 0.0, 1.0 / 120);
        double v = hypot(s.vx, s.vy);
        assert_true(v >= prev - 1e-12);
        prev = v;
    }
    /* terminal speed: 100 * 100 = 20 v + 4 v^2 */
    double vt = (-20 + sqrt(400 + 16 * 10000)) / 8;
    assert_true(fabs(prev - vt) < 0.05);
    assert_true(fabs(atan2(s.vy, s.vx) - 0.3) < 1e-9); /* straight along the heading */
    assert_true(fabs(s.omega) < 1e-12);
}

static void test_move_tree(void **state)
{
    (void)state;
    tpNavCarDef car = tpDefaultNavCarDef();
    tpNavMoveTreeDef md = tpDefaultNavMoveTreeDef();
    char err[256];
    tpNavMoveTree *t = tpCreateNavMoveTree(&car, &md, err, sizeof err);
    assert_non_null(t);
    int n = tpNavMoveTree_ClipCount(t), skids = 0;
    assert_true(n > 40);
    for (int l = 0; l < md.nlevels; ++l) {
        const int *from;
        assert_true(tpNavMoveTree_ClipsFrom(t, l, &from) > 0);
    }
    for (int k = 0; k < n; ++k) {
        const tpNavClip *c = tpNavMoveTree_Clip(t, k);
        /* transitions only between matching velocities */
        double e = fabs(c->end_vel[0] - md.levels[c->to]) + fabs(c->end_vel[1]) + fabs(c->end_vel[2]);
        assert_true(e < md.match_eps && fabs(e - c->end_error) < 1e-12);
        assert_true(abs(c->to - c->from) <= 2);
        if (c->from == 0) {
            assert_true(c->steer == 0.0);
        }
        if (c->skid) {
            ++skids;
            assert_true(c->from >= 3 && c->to == c->from - 2 && c->rear_slip > md.skid_slip);
        }
        /* every turn has its mirror image */
        if (c->steer != 0.0) {
            bool found = false;
            for (int q = 0; q < n && !found; ++q) {
                const tpNavClip *m = tpNavMoveTree_Clip(t, q);
                if (m->steer == -c->steer && m->from == c->from && m->to == c->to) {
                    found = true;
                    for (int f = 0; f < c->nframes; ++f) {
                        assert_true(fabs(m->frame[f][0] - c->frame[f][0]) < 1e-9);
                        assert_true(fabs(m->frame[f][1] + c->frame[f][1]) < 1e-9);
                        assert_true(fabs(m->frame[f][2] + c->frame[f][2]) < 1e-9);
                    }
                }
            }
            assert_true(found);
        }
    }
    assert_true(skids >= 4);
    md.nlevels = 1;
    assert_null(tpCreateNavMoveTree(&car, &md, err, sizeof err));
    assert_non_null(strstr(err, "levels"));
    tpDestroyNavMoveTree(t);
}

/* The cornered track (domains/tracks/cornered_cars.json): a 12 m wide road along +x for 60 m,
 * then a 90 degree left corner and up along +y; finish line across y = 50; four traffic cars.
 * The back wall at x = -5 matters: the goal (60, 120) lies beyond the walls' ends at y = 100, so
 * without it the to-go field's shortest way leaves by the open back, which a car that cannot
 * reverse never takes (it waits at the start). */
static const double k_walls[5][4] = {
    {-5, -6, 66, -6}, {66, -6, 66, 100}, {-5, 6, 54, 6}, {54, 6, 54, 100}, {-5, -6, -5, 6}};
static const tpNavTrafficCar k_cars[4] = {
    {{30, 2}, {4, 0}, 0, 4, 1.8, 0, NULL, 0},
    {{60, 30}, {0, 3}, 1.5708, 4, 1.8, 0, NULL, 0},
    {{58, 50}, {0, 2}, 1.5708, 4, 1.8, 0, NULL, 0},
    {{20, -3}, {6, 0}, 0, 4, 1.8, 0, NULL, 0},
};

static tpNavDriveResult drive(const tpNavMoveTree *t, int depth, int nodes, int ncars)
{
    tpNavTrack tr = {5, k_walls, ncars, k_cars, {60, 120}, {54, 50, 66, 50}};
    tpNavToGo *togo = tpCreateNavToGo(&tr, 0.5, NULL, 0);
    assert_non_null(togo);
    tpNavCarPlanDef pd = tpDefaultNavCarPlanDef();
    pd.depth = depth;
    pd.node_limit = nodes;
    pd.togo = togo;
    double start[3] = {0, 0, 0};
    tpNavDriveResult r = tpNavCar_Drive(t, &tr, &pd, start, 0, 60.0, NULL, NULL);
    tpDestroyNavToGo(togo);
    return r;
}

static void test_cornered_track(void **state)
{
    (void)state;
    tpNavCarDef car = tpDefaultNavCarDef();
    tpNavMoveTree *t = tpCreateNavMoveTree(&car, NULL, NULL, 0);
    /* a horizon of 2 clips crashes; 6 clips finish without a crash, with and without traffic */
    tpNavDriveResult shallow = drive(t, 2, 5000, 4);
    assert_true(shallow.crashed && !shallow.finished);
    tpNavDriveResult deep = drive(t, 6, 5000, 4);
    assert_true(deep.finished && !deep.crashed);
    tpNavDriveResult empty = drive(t, 6, 5000, 0);
    assert_true(empty.finished && !empty.crashed);
    /* with 3 clips the planner skids into the corner */
    tpNavDriveResult skid = drive(t, 3, 45000, 4);
    assert_true(skid.finished && !skid.crashed && skid.skids >= 1);
    /* a pose on a wall collides; the start does not */
    tpNavTrack tr = {5, k_walls, 4, k_cars, {60, 120}, {54, 50, 66, 50}};
    double on_wall[3] = {20, 6, 0}, start[3] = {0, 0, 0}, on_car[3] = {30, 2, 0.2};
    assert_true(tpNavCar_Collides(t, &tr, on_wall, 0));
    assert_false(tpNavCar_Collides(t, &tr, start, 0));
    assert_true(tpNavCar_Collides(t, &tr, on_car, 0));
    on_car[0] = 36; /* the traffic car (4 m/s) is there a second later */
    assert_false(tpNavCar_Collides(t, &tr, on_car, 0));
    assert_true(tpNavCar_Collides(t, &tr, on_car, 1.0));
    tpDestroyNavMoveTree(t);
}

/* Start x of every skid clip played (on_clip callback of tpNavCar_Drive). */
typedef struct SkidLog {
    const tpNavMoveTree *tree;
    int n;
    double x[16], y[16];
} SkidLog;

static bool logSkid(void *user, const double pose[3], int clip)
{
    SkidLog *log = user;
    if (tpNavMoveTree_Clip(log->tree, clip)->skid && log->n < 16) {
        log->x[log->n] = pose[0];
        log->y[log->n] = pose[1];
        log->n++;
    }
    return true;
}

/* The sharp-cornered track (domains/tracks/sharp.json: 150 m straight, 8 m road, 90 degree left
 * corner at x = 146..154). With the closed set on the discretised state the 45,000-node search
 * reaches deep horizons: 6 clips no longer crash (the plain tree search, cut by the node limit,
 * does), and with 7 clips the planner skids into the corner and finishes faster than without. */
static void test_sharp_track_skid(void **state)
{
    (void)state;
    char err[256];
    tpNavTrackFile *tf = tpNavTrack_Load(TP_TRACKS_DIR "/sharp.json", err, sizeof err);
    assert_non_null(tf);
    tpNavCarDef car = tpDefaultNavCarDef();
    tpNavMoveTree *t = tpCreateNavMoveTree(&car, NULL, NULL, 0);
    tpNavToGo *togo = tpCreateNavToGo(&tf->track, 0.5, err, sizeof err);
    assert_non_null(togo);
    tpNavCarPlanDef pd = tpDefaultNavCarPlanDef();
    pd.togo = togo;
    pd.depth = 6;
    tpNavDriveResult plain6 = tpNavCar_Drive(t, &tf->track, &pd, tf->start, 0, 90.0, NULL, NULL);
    assert_true(plain6.crashed); /* the node limit cuts the plain search short */
    pd.closed_cell = 1.0;
    tpNavDriveResult closed6 = tpNavCar_Drive(t, &tf->track, &pd, tf->start, 0, 90.0, NULL, NULL);
    assert_true(closed6.finished && !closed6.crashed && closed6.skids == 0);
    pd.depth = 7;
    SkidLog log = {t, 0, {0}, {0}};
    tpNavDriveResult closed7 = tpNavCar_Drive(t, &tf->track, &pd, tf->start, 0, 90.0, logSkid, &log);
    assert_true(closed7.finished && !closed7.crashed && closed7.skids >= 1);
    assert_true(closed7.time < closed6.time);
    /* the skid starts on the approach to the corner, within 30 m of it */
    assert_true(log.n >= 1 && log.x[0] > 116.0 && log.x[0] < 146.0 && fabs(log.y[0]) < 4.0);
    tpDestroyNavToGo(togo);
    tpDestroyNavMoveTree(t);
    tpNavTrack_Free(tf);
}

/* The to-go field must see every wall, whatever its alignment with the grid. A 10 x 4 m box
 * split by a wall along y = 2 from x = 0 to x = 8 (exactly on a cell boundary of the 0.5 m grid,
 * like every wall of domains/tracks) leaves a 2 m gap at x = 8..10: from (1, 3) to the goal (1, 1)
 * the way goes round the wall's end, 2 * sqrt(7^2 + 1^2) = 14.14 m, not the straight 2 m. A wall
 * through cell corners (the diagonal (0, 0) -> (6, 6) of an 8 x 8 box) must block the diagonal
 * steps across it: from (1, 3) to the goal (3, 1) the way round its end at (6, 6) is
 * 2 * sqrt(5^2 + 3^2) = 11.66 m, not 2.83 m. The field is a lower bound (h <= true length). */
static void test_togo_walls_on_cell_boundaries(void **state)
{
    (void)state;
    static const double box[5][4] = {{0, 0, 10, 0}, {10, 0, 10, 4}, {10, 4, 0, 4}, {0, 4, 0, 0}, {0, 2, 8, 2}};
    tpNavTrack tr = {5, box, 0, NULL, {1, 1}, {0, 0, 1, 0}};
    char err[256];
    tpNavToGo *togo = tpCreateNavToGo(&tr, 0.5, err, sizeof err);
    assert_non_null(togo);
    double beyond = tpNavToGo_Distance(togo, &tr, 1, 3), detour = 2 * sqrt(50.0);
    if (!(beyond > 10.0 && beyond <= detour)) {
        fprintf(stderr, "to-go across the wall on a cell edge: %g m (detour %g m)\n", beyond, detour);
    }
    assert_true(beyond > 10.0 && beyond <= detour);
    /* on the goal's side of the wall it stays the straight way */
    assert_true(fabs(tpNavToGo_Distance(togo, &tr, 5, 1) - 4.0) < 0.5);
    tpDestroyNavToGo(togo);

    static const double tri[5][4] = {{0, 0, 8, 0}, {8, 0, 8, 8}, {8, 8, 0, 8}, {0, 8, 0, 0}, {0, 0, 6, 6}};
    tpNavTrack td = {5, tri, 0, NULL, {3, 1}, {0, 0, 1, 0}};
    togo = tpCreateNavToGo(&td, 0.5, err, sizeof err);
    assert_non_null(togo);
    beyond = tpNavToGo_Distance(togo, &td, 1, 3);
    detour = 2 * sqrt(34.0);
    if (!(beyond > 8.0 && beyond <= detour)) {
        fprintf(stderr, "to-go across the diagonal wall: %g m (detour %g m)\n", beyond, detour);
    }
    assert_true(beyond > 8.0 && beyond <= detour);
    tpDestroyNavToGo(togo);
    assert_null(tpCreateNavToGo(&td, 0.0, err, sizeof err));
    assert_non_null(strstr(err, "cell"));
}

static void test_track_files(void **state)
{
    (void)state;
    char err[512];
    tpNavTrackFile *t = tpNavTrack_Load(TP_TRACKS_DIR "/cornered_cars.json", err, sizeof err);
    assert_non_null(t);
    assert_int_equal(t->track.nwalls, 5);
    assert_int_equal(t->track.ncars, 4);
    assert_memory_equal(t->track.walls, k_walls, sizeof k_walls);
    assert_true(t->cars[1].heading == 1.5708 && t->cars[1].vel[1] == 3 && t->cars[0].length == 4.0);
    assert_true(t->track.goal[1] == 120 && t->track.finish[2] == 66 && t->start[0] == 0);
    tpNavTrack_Free(t);
    /* every track of domains/tracks loads */
    const char *names[] = {"straight", "cornered", "sharp", "final"};
    for (int k = 0; k < 4; ++k) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.json", TP_TRACKS_DIR, names[k]);
        t = tpNavTrack_Load(path, err, sizeof err);
        assert_non_null(t);
        assert_true(t->track.nwalls >= 3);
        tpNavTrack_Free(t);
    }
    /* bad files: the message names the file and the field (or the line of a syntax error) */
    const char *bad[][2] = {
        {"{\"walls\": [[0, 0, 1]], \"start\": [0, 0, 0], \"goal\": [1, 1], \"finish\": [0, 0, 1, 1]}", "walls[0]"},
        {"{\"walls\": [], \"goal\": [1, 1], \"finish\": [0, 0, 1, 1]}", "'start' is required"},
        {"{\"walls\": [], \"cars\": [{\"vel\": [1, 0]}], \"start\": [0, 0, 0], \"goal\": [1, 1], \"finish\": [0, 0, 1, "
         "1]}",
         "cars[0].'pos' is required"},
        {"{\"walls\": [],\n \"start\": [0, 0, 0],\n \"goal\": [1, 1] oops}", ":3: not a JSON object"},
    };
    for (int k = 0; k < 4; ++k) {
        char path[] = "/tmp/tp_track_XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        FILE *fp = fdopen(fd, "w");
        fputs(bad[k][0], fp);
        fclose(fp);
        assert_null(tpNavTrack_Load(path, err, sizeof err));
        if (!strstr(err, bad[k][1]) || strncmp(err, path, strlen(path)) != 0) {
            fprintf(stderr, "got \"%s\", expected \"%s\"\n", err, bad[k][1]);
        }
        assert_non_null(strstr(err, bad[k][1]));
        assert_memory_equal(err, path, strlen(path));
        remove(path);
    }
    assert_null(tpNavTrack_Load("/nonexistent/track.json", err, sizeof err));
    assert_non_null(strstr(err, "cannot open"));
}

/* Reference: the generic separating-axis test of two convex polygons (every edge normal of both). */
static bool refOverlap(const double (*a)[2], int n, const double (*b)[2], int m)
{
    for (int pass = 0; pass < 2; ++pass) {
        const double(*p)[2] = pass ? b : a;
        int np = pass ? m : n;
        for (int k = 0; k < np; ++k) {
            double ax = -(p[(k + 1) % np][1] - p[k][1]), ay = p[(k + 1) % np][0] - p[k][0];
            if (ax == 0 && ay == 0) {
                continue;
            }
            double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
            for (int q = 0; q < n; ++q) {
                double d = a[q][0] * ax + a[q][1] * ay;
                amin = fmin(amin, d);
                amax = fmax(amax, d);
            }
            for (int q = 0; q < m; ++q) {
                double d = b[q][0] * ax + b[q][1] * ay;
                bmin = fmin(bmin, d);
                bmax = fmax(bmax, d);
            }
            if (amax < bmin || bmax < amin) {
                return false;
            }
        }
    }
    return true;
}

/* tpNavCar_Collides against one wall (its rectangle-segment test tries the wall's normal first
 * and skips the normal's negation) agrees with the generic test over random poses and walls,
 * many of them just touching or just clear of the car (endpoints on and near its corners and
 * edges), and walls of zero length. */
static void test_collides_wall_sat(void **state)
{
    (void)state;
    tpNavCarDef car = tpDefaultNavCarDef();
    tpNavMoveTree *t = tpCreateNavMoveTree(&car, NULL, NULL, 0);
    assert_non_null(t);
    tpRng rng;
    tpRng_Seed(&rng, 29);
    int hits = 0, misses = 0;
    for (int it = 0; it < 20000; ++it) {
        double pose[3] = {tpRng_Uniform(&rng, -5, 5), tpRng_Uniform(&rng, -5, 5), tpRng_Uniform(&rng, -4, 4)};
        const double c = cos(pose[2]), s = sin(pose[2]), hl = car.length / 2, hw = car.width / 2;
        double me[4][2];
        const double lx[4] = {hl, -hl, -hl, hl}, ly[4] = {hw, hw, -hw, -hw};
        for (int k = 0; k < 4; ++k) {
            me[k][0] = pose[0] + c * lx[k] - s * ly[k];
            me[k][1] = pose[1] + s * lx[k] + c * ly[k];
        }
        double wall[1][4];
        for (int e = 0; e < 2; ++e) {
            int mode = (int)tpRng_Below(&rng, 6);
            mode = mode > 3 ? 0 : mode;
            double *w = &wall[0][2 * e];
            if (mode == 0) { /* anywhere around */
                w[0] = pose[0] + tpRng_Uniform(&rng, -8, 8);
                w[1] = pose[1] + tpRng_Uniform(&rng, -8, 8);
            } else { /* on or near a corner or an edge of the car */
                int k = (int)tpRng_Below(&rng, 4);
                double u = mode == 1 ? 0.0 : tpRng_Res53(&rng), d = mode == 3 ? tpRng_Uniform(&rng, -1e-9, 1e-9) : 0.0;
                w[0] = me[k][0] + u * (me[(k + 1) % 4][0] - me[k][0]) + d;
                w[1] = me[k][1] + u * (me[(k + 1) % 4][1] - me[k][1]) - d;
            }
        }
        if (tpRng_Below(&rng, 50) == 0) { /* a point */
            wall[0][2] = wall[0][0];
            wall[0][3] = wall[0][1];
        }
        tpNavTrack tr = {1, (const double(*)[4])wall, 0, NULL, {100, 0}, {100, -1, 100, 1}};
        const double seg[2][2] = {{wall[0][0], wall[0][1]}, {wall[0][2], wall[0][3]}};
        bool want = refOverlap((const double(*)[2])me, 4, seg, 2);
        assert_true(tpNavCar_Collides(t, &tr, pose, 0.0) == want);
        hits += want;
        misses += !want;
    }
    assert_true(hits > 2000 && misses > 1000);
    tpDestroyNavMoveTree(t);
}

/* The search tree of one decision as the on_node observer sees it. */
typedef struct SearchLog {
    int n, cap;
    int *parent, *clip;
    double (*pose)[3];
} SearchLog;

static void logNode(void *user, int id, int parent, int clip, const double pose[3])
{
    SearchLog *log = user;
    assert_true(id == log->n && id < log->cap);
    log->parent[id] = parent;
    log->clip[id] = clip;
    memcpy(log->pose[id], pose, sizeof log->pose[id]);
    log->n++;
}

/* Whether clip k played from pose p at time t collides at one of its checks (the frames
 * tpNavCar_Plan checks), by the brute-force test over every wall and car (tpNavCar_Collides). */
static bool clipCollides(const tpNavMoveTree *t, const tpNavTrack *tr, int checks, const double p[3], double time,
                         int k)
{
    const tpNavClip *c = tpNavMoveTree_Clip(t, k);
    const tpNavMoveTreeDef *md = tpNavMoveTree_Def(t);
    int nchk = (int)lround(checks * c->nframes * md->frame_dt / md->clip_time);
    nchk = nchk < 1 ? 1 : nchk > c->nframes ? c->nframes : nchk;
    for (int q = 1; q <= nchk; ++q) {
        int f = (int)((long)c->nframes * q / nchk) - 1;
        const double cs = cos(p[2]), sn = sin(p[2]);
        double pose[3] = {p[0] + cs * c->frame[f][0] - sn * c->frame[f][1],
                          p[1] + sn * c->frame[f][0] + cs * c->frame[f][1], p[2] + c->frame[f][2]};
        if (tpNavCar_Collides(t, tr, pose, time + (f + 1) * md->frame_dt)) {
            return true;
        }
    }
    return false;
}

/* Traffic with a known path (tpNavTrafficCar.path, scripted bodies): sampled from a constant
 * velocity it collides exactly where the constant-velocity car does, within the samples and
 * extrapolated past them; a car turning round a corner is met where it turns to, not where its
 * velocity at time 0 points. */
static void test_traffic_path(void **state)
{
    (void)state;
    tpNavCarDef car = tpDefaultNavCarDef();
    tpNavMoveTree *t = tpCreateNavMoveTree(&car, NULL, NULL, 0);
    assert_non_null(t);
    const tpNavTrafficCar line = {{10, 0}, {3, 1}, 0.3, 4, 1.8, 0, NULL, 0};
    double samples[21][3];
    for (int q = 0; q < 21; ++q) {
        samples[q][0] = 10 + 3 * 0.1 * q;
        samples[q][1] = 0 + 1 * 0.1 * q;
        samples[q][2] = 0.3;
    }
    tpNavTrafficCar pathed = line;
    pathed.npath = 21;
    pathed.path = (const double(*)[3])samples;
    pathed.path_dt = 0.1;
    const tpNavTrack a = {0, NULL, 1, &line, {100, 0}, {99, -5, 99, 5}};
    const tpNavTrack b = {0, NULL, 1, &pathed, {100, 0}, {99, -5, 99, 5}};
    tpRng rng;
    tpRng_Seed(&rng, 5);
    int hits = 0;
    for (int i = 0; i < 4000; ++i) {
        const double tt = tpRng_Uniform(&rng, 0, 4); /* the samples end at 2 s */
        const double pose[3] = {10 + 3 * tt + tpRng_Uniform(&rng, -5, 5), tt + tpRng_Uniform(&rng, -5, 5),
                                tpRng_Uniform(&rng, -TP_PI, TP_PI)};
        const bool ha = tpNavCar_Collides(t, &a, pose, tt);
        assert_true(ha == tpNavCar_Collides(t, &b, pose, tt));
        hits += ha;
    }
    assert_true(hits > 500 && hits < 3500);
    /* a left turn: from (0, 0) heading +x at 5 m/s round a quarter circle of radius 6 to (6, 6)
       heading +y, then up; the search must meet it up the leg, not straight ahead */
    double turn[41][3];
    for (int q = 0; q < 41; ++q) {
        const double s = 5 * 0.1 * q, arc = 6 * TP_PI / 2;
        if (s <= arc) {
            turn[q][0] = 6 * sin(s / 6);
            turn[q][1] = 6 - 6 * cos(s / 6);
            turn[q][2] = s / 6;
        } else {
            turn[q][0] = 6;
            turn[q][1] = 6 + (s - arc);
            turn[q][2] = TP_PI / 2;
        }
    }
    tpNavTrafficCar turning = {{0, 0}, {5, 0}, 0, 4, 1.8, 41, (const double(*)[3])turn, 0.1};
    const tpNavTrack c = {0, NULL, 1, &turning, {100, 0}, {99, -5, 99, 5}};
    const double up[3] = {6, 6 + (5 * 3.0 - 6 * TP_PI / 2), TP_PI / 2}, ahead[3] = {15, 0, 0};
    assert_true(tpNavCar_Collides(t, &c, up, 3.0));
    assert_false(tpNavCar_Collides(t, &c, ahead, 3.0));
    turning.npath = 0; /* its velocity at time 0 says the opposite */
    assert_false(tpNavCar_Collides(t, &c, up, 3.0));
    assert_true(tpNavCar_Collides(t, &c, ahead, 3.0));
    tpDestroyNavMoveTree(t);
}

/* tpNavCarPlanDef.max_level: no generated clip ends above the top level (drive_track's sampled
 * top speed) unless it slows down from above it, and without it the search does go faster. */
static void test_plan_max_level(void **state)
{
    (void)state;
    tpNavCarDef car = tpDefaultNavCarDef();
    tpNavMoveTree *t = tpCreateNavMoveTree(&car, NULL, NULL, 0);
    assert_non_null(t);
    const int cap = 6000;
    SearchLog log = {0, cap, malloc(sizeof(int) * cap), malloc(sizeof(int) * cap), malloc(sizeof(double[3]) * cap)};
    assert_true(log.parent && log.clip && log.pose);
    const tpNavTrack tr = {5, k_walls, 0, k_cars, {60, 120}, {54, 50, 66, 50}};
    const double pose[3] = {0, 0, 0};
    for (int start = 0; start < 7; start += 5) { /* from rest, and from level 5 (above the top) */
        for (int top = -1; top <= 2; top += 3) {
            tpNavCarPlanDef pd = tpDefaultNavCarPlanDef();
            pd.depth = 3;
            pd.node_limit = cap;
            pd.max_level = top;
            pd.on_node = logNode;
            pd.on_node_user = &log;
            log.n = 0;
            tpNavCarDecision dec = tpNavCar_Plan(t, &tr, &pd, pose, start, 0.0);
            assert_true(dec.clip >= 0);
            int fastest = 0;
            for (int id = 1; id < log.n; ++id) {
                const tpNavClip *c = tpNavMoveTree_Clip(t, log.clip[id]);
                const int from = log.parent[id] == 0 ? start : tpNavMoveTree_Clip(t, log.clip[log.parent[id]])->to;
                if (top >= 0) { /* at most the top, or slowing down from above it */
                    assert_true(c->to <= top || c->to < from);
                }
                fastest = c->to > fastest ? c->to : fastest;
            }
            assert_true(top >= 0 || fastest > 2); /* without a top the search goes faster */
        }
    }
    free(log.parent);
    free(log.clip);
    free(log.pose);
    tpDestroyNavMoveTree(t);
}

/* The search leaves out of each clip's checks the walls and cars too far from the clip to touch
 * it, and reuses its buffers (tpNavCarScratch) across decisions. On random scenes of many short
 * walls and moving cars: every generated child is free and every clip of an expanded node that
 * was not generated collides, by the brute-force test over every wall and car; and the decision
 * is the same with a reused scratch, with none, with the closed set on and at several node
 * limits (the buffers grow and shrink between calls). */
static void test_plan_near_lists(void **state)
{
    (void)state;
    tpNavCarDef car = tpDefaultNavCarDef();
    tpNavMoveTree *t = tpCreateNavMoveTree(&car, NULL, NULL, 0);
    tpNavCarScratch *scr = tpCreateNavCarScratch();
    assert_non_null(t);
    assert_non_null(scr);
    const int cap = 3000;
    SearchLog log = {0, cap, malloc(sizeof(int) * cap), malloc(sizeof(int) * cap), malloc(sizeof(double[3]) * cap)};
    double *g = malloc(sizeof(double) * cap);
    int *level = malloc(sizeof(int) * cap);
    assert_true(log.parent && log.clip && log.pose && g && level);
    tpRng rng;
    tpRng_Seed(&rng, 17);
    tpRng prng;
    tpRng_Seed(&prng, 23);
    int checked_free = 0, checked_hit = 0, npath_cars = 0;
    for (int scene = 0; scene < 24; ++scene) {
        double walls[40][4];
        tpNavTrafficCar cars[6];
        double paths[6][40][3];
        int nw = 5 + (int)tpRng_Below(&rng, 36), nc = (int)tpRng_Below(&rng, 7);
        for (int w = 0; w < nw; ++w) {
            double x = tpRng_Uniform(&rng, -10, 70), y = tpRng_Uniform(&rng, -30, 30);
            double a = tpRng_Uniform(&rng, -TP_PI, TP_PI), l = tpRng_Uniform(&rng, 0.0, 12.0);
            walls[w][0] = x;
            walls[w][1] = y;
            walls[w][2] = x + l * cos(a);
            walls[w][3] = y + l * sin(a);
        }
        for (int k = 0; k < nc; ++k) {
            cars[k] = (tpNavTrafficCar){{tpRng_Uniform(&rng, 0, 60), tpRng_Uniform(&rng, -20, 20)},
                                        {tpRng_Uniform(&rng, -6, 6), tpRng_Uniform(&rng, -6, 6)},
                                        tpRng_Uniform(&rng, -TP_PI, TP_PI),
                                        4.0,
                                        1.8,
                                        0,
                                        NULL,
                                        0};
            /* every other car follows a known path instead (a scripted body round a corner): a
               turning arc sampled every path_dt, short enough on some scenes to be extrapolated
               (drawn from a second generator: the scenes above stay those of the plain cars) */
            if (tpRng_Below(&prng, 2) == 0) {
                const int np = 2 + (int)tpRng_Below(&prng, 39);
                const double dt = tpRng_Uniform(&prng, 0.05, 0.3), v = tpRng_Uniform(&prng, 0, 8);
                const double w = tpRng_Uniform(&prng, -1.5, 1.5);
                double x = cars[k].pos[0], y = cars[k].pos[1], h = cars[k].heading;
                for (int q = 0; q < np; ++q) {
                    paths[k][q][0] = x;
                    paths[k][q][1] = y;
                    paths[k][q][2] = h;
                    x += v * dt * cos(h);
                    y += v * dt * sin(h);
                    h += w * dt;
                }
                cars[k].npath = np;
                cars[k].path = (const double(*)[3])paths[k];
                cars[k].path_dt = dt;
                npath_cars++;
            }
        }
        tpNavTrack tr = {nw, (const double(*)[4])walls, nc, cars, {80, 0}, {78, -6, 78, 6}};
        const double pose[3] = {0, 0, tpRng_Uniform(&rng, -0.5, 0.5)};
        const int lv = (int)tpRng_Below(&rng, 7);
        const double t0 = tpRng_Uniform(&rng, 0, 3);
        tpNavCarPlanDef pd = tpDefaultNavCarPlanDef();
        pd.depth = 3;
        pd.node_limit = cap;
        pd.on_node = logNode;
        pd.on_node_user = &log;
        pd.scratch = scr;
        log.n = 0;
        tpNavCarDecision dec = tpNavCar_Plan(t, &tr, &pd, pose, lv, t0);
        assert_int_equal(log.n, dec.nodes);
        for (int id = 0; id < log.n; ++id) { /* level and time of every node */
            int p = log.parent[id];
            const tpNavClip *c = p < 0 ? NULL : tpNavMoveTree_Clip(t, log.clip[id]);
            level[id] = p < 0 ? lv : c->to;
            g[id] = p < 0 ? 0.0 : g[p] + c->nframes * tpNavMoveTree_Def(t)->frame_dt;
        }
        for (int id = 1; id < log.n; ++id) {
            int p = log.parent[id];
            if (id > 1 && log.parent[id - 1] == p) {
                continue; /* each expanded node once: at its first child */
            }
            const int *kids;
            int nk = tpNavMoveTree_ClipsFrom(t, level[p], &kids);
            int last = id; /* the children of p are ids id .. last */
            while (last + 1 < log.n && log.parent[last + 1] == p) {
                ++last;
            }
            bool cut = last == log.n - 1 && log.n == cap; /* the node limit stopped this expansion */
            for (int q = 0; q < nk; ++q) {
                bool generated = false;
                for (int c = id; c <= last; ++c) {
                    generated = generated || log.clip[c] == kids[q];
                }
                bool hit = clipCollides(t, &tr, pd.checks, log.pose[p], t0 + g[p], kids[q]);
                if (generated) {
                    assert_false(hit);
                    checked_free++;
                } else if (!cut) {
                    assert_true(hit);
                    checked_hit++;
                }
            }
        }
        /* the same decision without a scratch, with the closed set, at other node limits */
        pd.on_node = NULL;
        for (int v = 0; v < 3; ++v) {
            pd.node_limit = v == 0 ? cap : v == 1 ? 200 : 4 * cap;
            pd.closed_cell = v == 2 ? 1.0 : 0.0;
            pd.scratch = scr;
            tpNavCarDecision a = tpNavCar_Plan(t, &tr, &pd, pose, lv, t0);
            pd.scratch = NULL;
            tpNavCarDecision b = tpNavCar_Plan(t, &tr, &pd, pose, lv, t0);
            assert_true(a.clip == b.clip && a.nodes == b.nodes && a.depth == b.depth && a.best == b.best &&
                        a.finishes == b.finishes && (a.f == b.f || (isinf(a.f) && isinf(b.f))));
            if (v == 0) {
                assert_true(a.clip == dec.clip && a.nodes == dec.nodes && a.best == dec.best);
            }
        }
    }
    assert_true(checked_free > 1000 && checked_hit > 1000); /* the scenes exercise both answers */
    assert_true(npath_cars > 10);                           /* and cars with known paths */
    free(log.parent);
    free(log.clip);
    free(log.pose);
    free(g);
    free(level);
    tpDestroyNavCarScratch(scr);
    tpDestroyNavMoveTree(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lateral_saturation),
        cmocka_unit_test(test_straight_acceleration),
        cmocka_unit_test(test_move_tree),
        cmocka_unit_test(test_cornered_track),
        cmocka_unit_test(test_sharp_track_skid),
        cmocka_unit_test(test_track_files),
        cmocka_unit_test(test_togo_walls_on_cell_boundaries),
        cmocka_unit_test(test_collides_wall_sat),
        cmocka_unit_test(test_traffic_path),
        cmocka_unit_test(test_plan_max_level),
        cmocka_unit_test(test_plan_near_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
