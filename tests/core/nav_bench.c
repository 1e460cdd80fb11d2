/* Navigation benchmark (not a test; no timing thresholds anywhere): plans across a random maze
 * of box walls at several grid sizes and prints the time of obstacle projection + growth + search.
 * Usage: nav_bench [seed]. The maze is a perfect maze (recursive backtracker, seeded tpRng) on
 * 15 x 15 rooms whose walls are boxes; the grid covers it at the requested resolution. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tp/base.h"
#include "tp/nav.h"
#include "tp/util.h"
#include "tp/rng.h"

#define ROOMS 15

typedef struct {
    tpNavShape *s; /* n walls (owned; room for cap) */
    int n;
    size_t cap;
} Shapes;

static void addWall(Shapes *w, double x0, double y0, double x1, double y1)
{
    tpNavShape *s = tpArray_Grow(w->s, &w->cap, (size_t)w->n + 1, sizeof *s);
    if (!s) {
        exit(1);
    }
    w->s = s;
    w->s[w->n++] = tpNav_ShapeBox((x0 + x1) / 2, (y0 + y1) / 2, 1.0, (x1 - x0) / 2, (y1 - y0) / 2, 1.0, 0.0);
}

/* Maze of ROOMS x ROOMS rooms of 1 m, walls 0.1 m thick, in [0, ROOMS]^2. */
static void buildMaze(tpRng *rng, Shapes *w)
{
    bool open_e[ROOMS][ROOMS] = {{0}}, open_n[ROOMS][ROOMS] = {{0}}, seen[ROOMS][ROOMS] = {{0}};
    int stack[ROOMS * ROOMS][2], sp = 0;
    stack[sp][0] = 0;
    stack[sp][1] = 0;
    ++sp;
    seen[0][0] = true;
    while (sp > 0) {
        int x = stack[sp - 1][0], y = stack[sp - 1][1];
        int cand[4][2], nc = 0;
        const int d[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
        for (int k = 0; k < 4; ++k) {
            int nx = x + d[k][0], ny = y + d[k][1];
            if (nx >= 0 && ny >= 0 && nx < ROOMS && ny < ROOMS && !seen[nx][ny]) {
                cand[nc][0] = nx;
                cand[nc][1] = ny;
                ++nc;
            }
        }
        if (nc == 0) {
            --sp;
            continue;
        }
        int k = (int)tpRng_Below(rng, (uint32_t)nc);
        int nx = cand[k][0], ny = cand[k][1];
        if (nx != x) {
            open_e[nx < x ? nx : x][y] = true;
        } else {
            open_n[x][ny < y ? ny : y] = true;
        }
        seen[nx][ny] = true;
        stack[sp][0] = nx;
        stack[sp][1] = ny;
        ++sp;
    }
    const double t = 0.05;
    addWall(w, 0, 0, ROOMS, t);
    addWall(w, 0, ROOMS - t, ROOMS, ROOMS);
    addWall(w, 0, 0, t, ROOMS);
    addWall(w, ROOMS - t, 0, ROOMS, ROOMS);
    for (int x = 0; x < ROOMS; ++x) {
        for (int y = 0; y < ROOMS; ++y) {
            if (x + 1 < ROOMS && !open_e[x][y]) {
                addWall(w, x + 1 - t, y - t, x + 1 + t, y + 1 + t);
            }
            if (y + 1 < ROOMS && !open_n[x][y]) {
                addWall(w, x - t, y + 1 - t, x + 1 + t, y + 1 + t);
            }
        }
    }
}

int main(int argc, char **argv)
{
    uint32_t seed = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1;
    tpRng rng;
    tpRng_Seed(&rng, seed);
    Shapes w = {0};
    buildMaze(&rng, &w);
    const int sizes[] = {150, 200, 500, 1000};
    printf("maze %dx%d rooms, %d wall boxes, seed %u; start room (0,0), goal room (%d,%d)\n", ROOMS, ROOMS, w.n, seed,
           ROOMS - 1, ROOMS - 1);
    printf("%6s %10s %10s %10s %10s %10s %9s %9s\n", "grid", "raster_ms", "grow_ms", "astar_ms", "dijk_ms", "a*+los_ms",
           "cost", "expanded");
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        int n = sizes[k];
        tpNavGridDef d = tpDefaultNavGridDef();
        d.nx = d.ny = n;
        d.cell = (double)ROOMS / n;
        char err[128];
        tpNavGrid *g = tpCreateNavGrid(&d, err, sizeof err);
        if (!g) {
            fprintf(stderr, "%s\n", err);
            return 2;
        }
        const int reps = n <= 200 ? 50 : 5;
        double traster = 0, tgrow = 0, tastar = 0, tdijk = 0, tsmooth = 0;
        tpNavPath p = {0};
        double start[2] = {0.5, 0.5}, goal[2] = {ROOMS - 0.5, ROOMS - 0.5};
        tpNavPlanDef pd = tpDefaultNavPlanDef();
        int expanded = 0;
        for (int r = 0; r < reps; ++r) {
            double t0 = tpClock_Now();
            tpNavGrid_Clear(g);
            for (int i = 0; i < w.n; ++i) {
                tpNavGrid_AddShape(g, &w.s[i], NULL, 0);
            }
            double t1 = tpClock_Now();
            tpNavGrid_Grow(g, 0.2);
            double t2 = tpClock_Now();
            pd.algo = TP_NAV_ASTAR;
            pd.smooth = false;
            if (tpNav_Plan(g, &pd, start, goal, &p) != TP_NAV_OK) {
                fprintf(stderr, "no path at %d\n", n);
                return 1;
            }
            double t3 = tpClock_Now();
            double cost = p.cost;
            expanded = p.expanded;
            pd.algo = TP_NAV_DIJKSTRA;
            tpNav_Plan(g, &pd, start, goal, &p);
            double t4 = tpClock_Now();
            if (p.cost - cost > 1e-9 || cost - p.cost > 1e-9) {
                fprintf(stderr, "A* and Dijkstra disagree\n");
                return 1;
            }
            pd.algo = TP_NAV_ASTAR;
            pd.smooth = true;
            tpNav_Plan(g, &pd, start, goal, &p);
            double t5 = tpClock_Now();
            traster += t1 - t0;
            tgrow += t2 - t1;
            tastar += t3 - t2;
            tdijk += t4 - t3;
            tsmooth += t5 - t4;
        }
        printf("%6d %10.3f %10.3f %10.3f %10.3f %10.3f %9.1f %9d\n", n, 1e3 * traster / reps, 1e3 * tgrow / reps,
               1e3 * tastar / reps, 1e3 * tdijk / reps, 1e3 * tsmooth / reps, p.cost, expanded);
        tpNavPath_Free(&p);
        tpDestroyNavGrid(g);
    }
    /* Harmonic map of the same maze (Gauss-Seidel, default relative tolerance 1e-9). */
    printf("\nharmonic map of the maze, goal = room (14,14), tol %.0e (relative residual)\n",
           tpDefaultNavFieldDef().tol);
    printf("%6s %8s %10s %12s %12s\n", "grid", "omega", "sweeps", "residual", "ms");
    const int fsizes[] = {75, 150, 200};
    for (size_t k = 0; k < sizeof fsizes / sizeof fsizes[0]; ++k) {
        int n = fsizes[k];
        tpNavGridDef d = tpDefaultNavGridDef();
        d.nx = d.ny = n;
        d.cell = (double)ROOMS / n;
        tpNavGrid *g = tpCreateNavGrid(&d, NULL, 0);
        for (int i = 0; i < w.n; ++i) {
            tpNavGrid_AddShape(g, &w.s[i], NULL, 0);
        }
        int goal[2];
        tpNavGrid_CellOf(g, ROOMS - 0.5, ROOMS - 0.5, &goal[0], &goal[1]);
        tpNavFieldDef fd = tpDefaultNavFieldDef();
        double t0 = tpClock_Now();
        tpNavField *f = tpCreateNavField(g, goal, 1, &fd, NULL, 0);
        double t1 = tpClock_Now();
        printf("%6d %8.2f %10d %12.3g %12.1f\n", n, fd.omega, tpNavField_Iterations(f), tpNavField_Residual(f),
               1e3 * (t1 - t0));
        tpDestroyNavField(f);
        tpDestroyNavGrid(g);
    }
    /* Crowd: a 40 x 40 m park (0.25 m cells) with 20 random kiosks, 4 exits (one field each),
     * 300 pedestrians with random behaviours, 15 x 15 local maps, 30 and 60 relaxations. */
    for (int relax = 30; relax <= 60; relax += 30) {
        tpNavGridDef d = tpDefaultNavGridDef();
        d.nx = d.ny = 160;
        d.cell = 0.25;
        tpNavGrid *g = tpCreateNavGrid(&d, NULL, 0);
        tpRng r2;
        tpRng_Seed(&r2, seed);
        for (int k = 0; k < 160; ++k) {
            tpNavGrid_SetObstacle(g, k, 0, true);
            tpNavGrid_SetObstacle(g, k, 159, true);
            tpNavGrid_SetObstacle(g, 0, k, true);
            tpNavGrid_SetObstacle(g, 159, k, true);
        }
        for (int k = 0; k < 20; ++k) {
            tpNavShape s =
                tpNav_ShapeBox(tpRng_Uniform(&r2, 5, 35), tpRng_Uniform(&r2, 5, 35), 1, tpRng_Uniform(&r2, 0.5, 2),
                               tpRng_Uniform(&r2, 0.5, 2), 1, tpRng_Uniform(&r2, 0, TP_PI));
            tpNavGrid_AddShape(g, &s, NULL, 0);
        }
        const int exits[4][2] = {{80, 1}, {80, 158}, {1, 80}, {158, 80}};
        tpNavField *fields[4];
        for (int e = 0; e < 4; ++e) {
            int goals[10];
            for (int q = 0; q < 5; ++q) {
                goals[2 * q] = exits[e][0] + ((e < 2) ? q - 2 : 0);
                goals[2 * q + 1] = exits[e][1] + ((e < 2) ? 0 : q - 2);
            }
            fields[e] = tpCreateNavField(g, goals, 5, NULL, NULL, 0);
        }
        tpNavCrowd *c = tpCreateNavCrowd(g, NULL, 0);
        int added = 0;
        while (added < 300) {
            tpNavPedDef p = tpDefaultNavPedDef();
            p.pos[0] = tpRng_Uniform(&r2, 2, 38);
            p.pos[1] = tpRng_Uniform(&r2, 2, 38);
            int ci, cj;
            if (!tpNavGrid_CellOf(g, p.pos[0], p.pos[1], &ci, &cj) || tpNavGrid_Blocked(g, ci, cj)) {
                continue;
            }
            p.relax = relax;
            p.radius = 0.25;
            p.step = 0.05;
            p.behaviour = (tpNavBehaviour)tpRng_Below(&r2, 5);
            p.eps = tpRng_Uniform(&r2, -1, 1);
            p.v[0] = tpRng_Uniform(&r2, -1, 1);
            p.v[1] = tpRng_Uniform(&r2, -1, 1);
            p.point[0] = 20;
            p.point[1] = 20;
            p.ngoals = 2;
            p.goals[0] = fields[tpRng_Below(&r2, 4)];
            p.goals[1] = fields[tpRng_Below(&r2, 4)];
            tpNavCrowd_Add(c, &p, NULL, 0);
            ++added;
        }
        const int steps = 100;
        double t0 = tpClock_Now();
        for (int t = 0; t < steps; ++t) {
            tpNavCrowd_Step(c, t);
        }
        double t1 = tpClock_Now();
        int done = 0;
        for (int k = 0; k < tpNavCrowd_Count(c); ++k) {
            done += tpNavCrowd_Ped(c, k)->goal > 0;
        }
        printf("\ncrowd: 300 pedestrians, 15x15 local maps, %d relaxations: %.1f steps/s (%.2f ms/step); "
               "%d reached their first exit in %d steps\n",
               relax, steps / (t1 - t0), 1e3 * (t1 - t0) / steps, done, steps);
        tpDestroyNavCrowd(c);
        for (int e = 0; e < 4; ++e) {
            tpDestroyNavField(fields[e]);
        }
        tpDestroyNavGrid(g);
    }
    /* Vehicle: one replanning decision with 45,000 nodes, and full drives of a cornered track
     * with traffic at several horizons (the test track of tests/core/test_nav_car.c). */
    {
        tpNavCarDef car = tpDefaultNavCarDef();
        double t0 = tpClock_Now();
        tpNavMoveTree *tree = tpCreateNavMoveTree(&car, NULL, NULL, 0);
        double t1 = tpClock_Now();
        int skid_clips = 0;
        for (int k = 0; k < tpNavMoveTree_ClipCount(tree); ++k) {
            skid_clips += tpNavMoveTree_Clip(tree, k)->skid;
        }
        printf("\nmove tree: %d clips (%d skids) simulated and matched in %.1f ms\n", tpNavMoveTree_ClipCount(tree),
               skid_clips, 1e3 * (t1 - t0));
        /* with its back wall, as domains/tracks/cornered_cars.json: the goal (60, 120) lies beyond
         * the walls' ends, so without it the to-go field's shortest way leaves by the open back */
        static const double walls[5][4] = {
            {-5, -6, 66, -6}, {66, -6, 66, 100}, {-5, 6, 54, 6}, {54, 6, 54, 100}, {-5, -6, -5, 6}};
        static const tpNavTrafficCar cars[4] = {{{30, 2}, {4, 0}, 0, 4, 1.8, 0, NULL, 0},
                                                {{60, 30}, {0, 3}, 1.5708, 4, 1.8, 0, NULL, 0},
                                                {{58, 50}, {0, 2}, 1.5708, 4, 1.8, 0, NULL, 0},
                                                {{20, -3}, {6, 0}, 0, 4, 1.8, 0, NULL, 0}};
        tpNavTrack tr = {5, walls, 4, cars, {60, 120}, {54, 50, 66, 50}};
        tpNavToGo *togo = tpCreateNavToGo(&tr, 0.5, NULL, 0);
        tpNavCarPlanDef pd = tpDefaultNavCarPlanDef();
        pd.togo = togo;
        double start[3] = {0, 0, 0}, mid[3] = {30, 0, 0};
        for (int rep = 0; rep < 4; ++rep) { /* best of 5 runs each */
            pd.closed_cell = rep >= 2 ? 1.0 : 0.0;
            double best = INFINITY;
            tpNavCarDecision dd;
            for (int run = 0; run < 5; ++run) {
                double a = tpClock_Now();
                dd = tpNavCar_Plan(tree, &tr, &pd, rep % 2 ? mid : start, rep % 2 ? 4 : 0, rep % 2 ? 2.5 : 0.0);
                best = fmin(best, tpClock_Now() - a);
            }
            printf("one decision (depth %d, node limit %d%s) from %s: %.1f ms (best of 5), %d nodes, chose clip %d\n",
                   pd.depth, pd.node_limit, rep >= 2 ? ", closed set 1 m" : "",
                   rep % 2 ? "(30, 0) at 16 m/s" : "rest at the start", 1e3 * best, dd.nodes, dd.clip);
        }
        pd.closed_cell = 0.0;
        printf("%6s %6s %9s %9s %8s %6s %6s %13s\n", "depth", "nodes", "finished", "crashed", "time_s", "clips",
               "skids", "max_decide_ms");
        const int depths[] = {2, 3, 4, 6, 6};
        const int limits[] = {45000, 45000, 45000, 15000, 45000};
        for (int k = 0; k < 5; ++k) {
            pd.depth = depths[k];
            pd.node_limit = limits[k];
            tpNavDriveResult r = tpNavCar_Drive(tree, &tr, &pd, start, 0, 60.0, NULL, NULL);
            printf("%6d %6d %9d %9d %8.2f %6d %6d %13.1f\n", pd.depth, pd.node_limit, r.finished, r.crashed, r.time,
                   r.clips, r.skids, r.max_decision_ms);
        }
        tpDestroyNavToGo(togo);
        /* The thesis's scenarios as track files (domains/tracks) at several horizons. */
        static const char *const tracks[] = {"straight", "cornered", "cornered_cars", "sharp", "final"};
        printf("\n(depth Nc: with the closed set on the discretised state, closed_cell 1 m)");
        printf("\n%-14s %7s %9s %9s %8s %6s %6s %13s\n", "track", "depth", "finished", "crashed", "time_s", "clips",
               "skids", "max_decide_ms");
        for (size_t k = 0; k < sizeof tracks / sizeof tracks[0]; ++k) {
            char path[1024], err[256];
            snprintf(path, sizeof path, "%s/%s.json", TP_TRACKS_DIR, tracks[k]);
            tpNavTrackFile *tf = tpNavTrack_Load(path, err, sizeof err);
            if (!tf) {
                fprintf(stderr, "%s\n", err);
                return 2;
            }
            tpNavToGo *tg = tpCreateNavToGo(&tf->track, 0.5, err, sizeof err);
            /* the plain tree search at 2, 4, 6 clips, then the closed set (1 m cells) at 6 and 7 */
            const int hz[] = {2, 4, 6, 6, 7};
            for (int q = 0; q < 5; ++q) {
                tpNavCarPlanDef d2 = tpDefaultNavCarPlanDef();
                d2.depth = hz[q];
                d2.togo = tg;
                d2.closed_cell = q >= 3 ? 1.0 : 0.0;
                tpNavDriveResult r = tpNavCar_Drive(tree, &tf->track, &d2, tf->start, 0, 90.0, NULL, NULL);
                printf("%-14s %6d%s %9d %9d %8.2f %6d %6d %13.1f\n", tracks[k], d2.depth, q >= 3 ? "c" : " ",
                       r.finished, r.crashed, r.time, r.clips, r.skids, r.max_decision_ms);
            }
            tpDestroyNavToGo(tg);
            tpNavTrack_Free(tf);
        }
        tpDestroyNavMoveTree(tree);
    }
    free(w.s);
    return 0;
}
