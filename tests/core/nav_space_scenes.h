/* Scenes of moving surfaces shared by test_nav_space and nav_space_bench (static functions: each
 * includes its own copy). The motions live only here: the space is given poses and velocities. */
#ifndef TP_NAV_SPACE_SCENES_H
#define TP_NAV_SPACE_SCENES_H

#include <math.h>

#include "tp/nav.h"

/* Ping-pong between a and b at speed v with a pause at each end: position and velocity at t. */
static inline void pingpong(const double a[3], const double b[3], double v, double pause, double phase, double t,
                            double p[3], double vel[3])
{
    double len = sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
    double tm = len / v, T = 2 * (tm + pause), u = fmod(t + phase, T), s, dir = 0;
    if (u < pause)
        s = 0;
    else if (u < pause + tm)
        s = (u - pause) / tm, dir = 1;
    else if (u < 2 * pause + tm)
        s = 1;
    else
        s = 1 - (u - 2 * pause - tm) / tm, dir = -1;
    for (int k = 0; k < 3; k++) {
        p[k] = a[k] + s * (b[k] - a[k]);
        vel[k] = dir * (b[k] - a[k]) / tm;
    }
}

static inline void mover(tpNavSpaceBody *b, const double a[3], const double e[3], double v, double pause, double phase,
                         double t)
{
    pingpong(a, e, v, pause, phase, t, b->center, b->vel);
}

enum { PL_START = 0, PL_P1, PL_P2, PL_P3, PL_GOAL, PL_N };

static inline int platforms(double t, tpNavSpaceBody *b)
{
    b[PL_START] = tpNavSpace_Box(-1, 0, -0.5, 1, 1, 0.5, 0); /* face x in [-2, 0], top 0 */
    b[PL_P1] = tpNavSpace_Box(0, 0, 0, 0.5, 0.5, 0.05, 0);   /* slides along x */
    mover(&b[PL_P1], (double[3]){0.9, 0, -0.05}, (double[3]){2.4, 0, -0.05}, 0.5, 1, 0, t);
    b[PL_P2] = tpNavSpace_Box(0, 0, 0, 0.5, 0.5, 0.05, 0); /* slides along y */
    mover(&b[PL_P2], (double[3]){3.5, 0, -0.05}, (double[3]){3.5, 3, -0.05}, 0.5, 1, 1.3, t);
    b[PL_P3] = tpNavSpace_Box(0, 0, 0, 0.5, 0.5, 0.05, 0); /* lifts from 0 to 1 m */
    mover(&b[PL_P3], (double[3]){3.5, 4.2, -0.05}, (double[3]){3.5, 4.2, 0.95}, 0.5, 1, 0.7, t);
    b[PL_GOAL] = tpNavSpace_Box(3.5, 6, 0.5, 1, 1, 0.5, 0); /* face y in [5, 7], top 1 */
    return PL_N;
}

#define ROOM_N 53

static inline int room(double t, tpNavSpaceBody *b)
{
    int n = 0;
    b[n++] = tpNavSpace_Box(0, 0, -0.5, 8, 8, 0.5, 0); /* floor, top 0 */
    static const double heights[5] = {0.2, 0.45, 0.4, 0.75, 0.9};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double h = heights[(i + 2 * j) % 5];
            double x = -5 + 2.0 * i, y = -5 + 2.0 * j;
            b[n++] = tpNavSpace_Box(x, y, h / 2, 0.6 + 0.1 * (j % 2), 0.5 + 0.1 * (i % 3), h / 2, 0.3 * ((i + j) % 3));
        }
    for (int k = 0; k < 4; k++) { /* an elevator beside a shelf at each corner */
        double sx = k & 1 ? 7 : -7, sy = k & 2 ? 7 : -7;
        b[n++] = tpNavSpace_Box(sx, sy, 1.55, 1, 1, 0.05, 0); /* shelf, top 1.6, on posts (not modelled) */
        b[n] = tpNavSpace_Box(0, 0, 0, 0.5, 0.5, 0.05, 0);
        double x = sx, y = sy + (k & 2 ? -1.55 : 1.55);
        mover(&b[n], (double[3]){x, y, -0.05}, (double[3]){x, y, 1.55}, 0.6, 1.5, 0.9 * k, t);
        n++;
    }
    for (int k = 0; k < 8; k++) { /* boxes crossing the floor (obstacles only) */
        b[n] = tpNavSpace_Box(0, 0, 0, 0.3, 0.3, 0.5, 0);
        static const double lane[8] = {-4, -2, 0, 2, 4, 6, -6, 6};
        double c = lane[k];
        if (k % 2)
            mover(&b[n], (double[3]){c, -7, 0.5}, (double[3]){c, 7, 0.5}, 0.7, 0.5, 1.1 * k, t);
        else
            mover(&b[n], (double[3]){-7, c, 0.5}, (double[3]){7, c, 0.5}, 0.7, 0.5, 1.1 * k, t);
        b[n].surface = false;
        n++;
    }
    return n;
}

#endif
