/* Space-time navigation benchmark (not a test; no timing thresholds): the figures of Lopez et al.
 * 2011, Table 1, on two scenes. Usage: nav_space_bench [seed].
 *  - platforms: the paper's disconnected environment (Fig. 6f): a start pad, three moving platforms
 *    and a goal pad one metre up, never connected by a static path (jumps and steps only);
 *  - room: a dense scene of 53 bodies: a 16 x 16 m floor, 36 pieces of furniture of five heights
 *    (steps, seats, tables) 2 m apart, 4 elevators to 4 shelves 1.6 m up in the corners, 8 boxes
 *    crossing the floor in the lanes between the furniture.
 * Per update (20 Hz, 60 s observed): interaction-volume tests and graph update. Per request (after
 * the observation): route + local space-time plan from a random floor point to a random surface.
 * Then a full run of the agent on each scene. The motions live only here: the space sees poses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/nav.h"
#include "tp/rng.h"

#include "nav_space_scenes.h"

typedef int (*SceneFn)(double t, tpNavSpaceBody *b);

static void run_scene(const char *name, SceneFn scene, int nbodies, int start_surface, const double start[2],
                      int goal_surface, const double goal[2], tpRng *rng, int nrequests)
{
    tpNavSpaceDef d = tpDefaultNavSpaceDef();
    char err[256];
    tpNavSpace *sp = tpCreateNavSpace(&d, nbodies, err, sizeof err);
    if (!sp) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    tpNavSpaceBody *b = calloc((size_t)nbodies, sizeof *b);
    const double dt = 0.05;
    int nupd = 0;
    for (int k = 0; k <= 60 * 20; k++, nupd++) {
        scene(k * dt, b);
        if (!tpNavSpace_Update(sp, k * dt, b, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            exit(1);
        }
    }
    const tpNavSpaceStats *s = tpNavSpace_Stats(sp);
    int nsurf = 0, periodic = 0, stable = 0;
    for (int k = 0; k < nbodies; k++)
        nsurf += tpNavSpace_IsSurface(sp, k);
    for (int k = 0; k < tpNavSpace_EdgeCount(sp); k++) {
        periodic += tpNavSpace_EdgePeriodic(tpNavSpace_Edge(sp, k));
        stable += tpNavSpace_Edge(sp, k)->stable;
    }
    printf("%s: %d bodies, %d surfaces, %d edges (%d stable, %d periodic) after 60 s at 20 Hz\n", name, nbodies, nsurf,
           tpNavSpace_EdgeCount(sp), stable, periodic);
    printf("  per update: %.1f interaction-volume tests, CD %.4f ms, graph update %.4f ms\n",
           (double)s->checks / s->updates, s->cd_ms / s->updates, s->graph_ms / s->updates);
    /* requests: from a random point of the start surface to a random point of a random surface */
    tpNavSpace_ResetStats(sp);
    double tplan = 0;
    int ok = 0, routed = 0;
    tpNavSpacePath path;
    memset(&path, 0, sizeof path);
    double now = 60.0;
    for (int r = 0; r < nrequests; r++) {
        const tpNavSpaceBody *sb = tpNavSpace_Body(sp, start_surface);
        double p[2];
        do { /* a free start point */
            p[0] = tpRng_Uniform(rng, -1, 1) * (sb->half[0] - d.edge);
            p[1] = tpRng_Uniform(rng, -1, 1) * (sb->half[1] - d.edge);
        } while (tpNavSpace_Blocked(sp, start_surface, p, 0));
        int g = (int)tpRng_Below(rng, (uint32_t)nbodies);
        while (!tpNavSpace_IsSurface(sp, g))
            g = (g + 1) % nbodies;
        const tpNavSpaceBody *gb = tpNavSpace_Body(sp, g);
        double q[2];
        int tries = 0;
        do { /* a goal point free now, if there is one (a face may be covered) */
            q[0] = tpRng_Uniform(rng, -1, 1) * (gb->half[0] - d.edge);
            q[1] = tpRng_Uniform(rng, -1, 1) * (gb->half[1] - d.edge);
        } while (tpNavSpace_Blocked(sp, g, q, 0) && ++tries < 50);
        double c0 = tpClock_Now();
        tpNavSpaceRoute route;
        if (tpNavSpace_Route(sp, start_surface, g, &route)) {
            routed++;
            bool done;
            if (route.nsurfaces == 1) {
                done = tpNavSpace_PlanLocal(sp, start_surface, p, now, q, NULL, 0, &path);
            } else {
                int e = (int)(tpNavSpace_FindEdge(sp, start_surface, route.surfaces[1]) - tpNavSpace_Edge(sp, 0));
                done = tpNavSpace_PlanLocal(sp, start_surface, p, now, NULL, &e, 1, &path);
            }
            ok += done;
        }
        tplan += tpClock_Now() - c0;
    }
    printf("  per request (%d, %d routed, %d planned): path planning %.4f ms (%.0f nodes expanded), obstruction "
           "tests %.1f %% of it\n",
           nrequests, routed, ok, 1e3 * tplan / nrequests, (double)s->expanded / (s->plans ? s->plans : 1),
           100 * s->obstruction_ms / (s->plan_ms > 0 ? s->plan_ms : 1));
    tpNavSpacePath_Free(&path);
    tpDestroyNavSpace(sp);
    /* a full run, observation from scratch */
    sp = tpCreateNavSpace(&d, nbodies, err, sizeof err);
    tpNavSpaceAgent a;
    memset(&a, 0, sizeof a);
    scene(0, b);
    tpNavSpace_Update(sp, 0, b, err, sizeof err);
    tpNavSpaceAgent_Init(&a, start_surface, start, goal_surface, goal, 0);
    double t = 0;
    for (int k = 1; k <= 300 * 20 && a.mode != TP_NAV_AGENT_DONE && a.mode != TP_NAV_AGENT_FELL; k++) {
        t = k * dt;
        scene(t, b);
        tpNavSpace_Update(sp, t, b, err, sizeof err);
        tpNavSpaceAgent_Step(sp, &a, t);
    }
    s = tpNavSpace_Stats(sp);
    printf("  agent run: %s at t = %.2f s, %d transfers, %d replans, %.2f s waiting, %lld plans, %.3f ms planning "
           "per plan\n",
           tpNavAgentMode_Name(a.mode), t, a.transfers, a.replans, a.wait_time, s->plans,
           s->plan_ms / (s->plans ? s->plans : 1));
    tpNavSpaceAgent_Free(&a);
    tpDestroyNavSpace(sp);
    free(b);
}

int main(int argc, char **argv)
{
    uint32_t seed = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1;
    tpRng rng;
    tpRng_Seed(&rng, seed);
    const double ps[2] = {-1.5, 0}, pg[2] = {0.5, 0.5};
    run_scene("platforms", platforms, PL_N, PL_START, ps, PL_GOAL, pg, &rng, 200);
    const double rs[2] = {-7.2, 0}, rg[2] = {0.3, 0.3};
    run_scene("room", room, ROOM_N, 0, rs, 37, rg, &rng, 200);
    return 0;
}
