/* Path-following controller of Kuffner (1998) Sec. 7: an oriented disc tracks a look-ahead point
 * on the path with PD-style speed and yaw-rate control, explicit Euler integration. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/mathx.h"
#include "tp/nav.h"

tpNavFollowDef tpDefaultNavFollowDef(void)
{
    tpNavFollowDef d;
    d.kp = 1.0;
    d.ktheta = 5.0;
    d.kv = 5.0;
    d.komega = 10.0;
    d.max_omega = 0.0;
    d.dt = 1.0 / 30.0;
    d.speed = 1.0;
    d.theta_turn = TP_PI / 3.0;
    d.turn_speed = 0.1;
    d.lookahead = 0.5;
    d.stop_radius = 0.05;
    return d;
}

void tpNavFollower_Init(tpNavFollower *f, const tpNavFollowDef *def)
{
    memset(f, 0, sizeof *f);
    f->def = def ? *def : tpDefaultNavFollowDef();
}

void tpNavFollower_Free(tpNavFollower *f)
{
    free(f->points);
    f->points = NULL;
    f->npoints = 0;
}

/* Closest point to (x, y) on segment k: returns the squared distance and the fraction. */
static double segClosest(const double *p, int k, double x, double y, double *s)
{
    const double *a = p + 2 * k, *b = p + 2 * k + 2;
    double ex = b[0] - a[0], ey = b[1] - a[1];
    double l2 = ex * ex + ey * ey;
    double t = l2 > 0 ? ((x - a[0]) * ex + (y - a[1]) * ey) / l2 : 0.0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double dx = a[0] + t * ex - x, dy = a[1] + t * ey - y;
    *s = t;
    return dx * dx + dy * dy;
}

static double segLen(const double *p, int k)
{
    return hypot(p[2 * k + 2] - p[2 * k], p[2 * k + 3] - p[2 * k + 1]);
}

bool tpNavFollower_SetPath(tpNavFollower *f, const double *points, int npoints, double x, double y)
{
    if (npoints < 1) {
        tpNavFollower_Free(f);
        f->done = false;
        return true;
    }
    double *copy = malloc(sizeof(double) * 2 * (size_t)npoints);
    if (!copy) {
        return false;
    }
    memcpy(copy, points, sizeof(double) * 2 * (size_t)npoints);
    free(f->points);
    f->points = copy;
    f->npoints = npoints;
    f->done = false;
    /* Progress restarts at the nearest point of the whole new path (earliest on ties). */
    f->seg = 0;
    f->s = 0.0;
    double best = INFINITY;
    for (int k = 0; k + 1 < npoints; ++k) {
        double s;
        double d2 = segClosest(copy, k, x, y, &s);
        if (d2 < best) {
            best = d2;
            f->seg = k;
            f->s = s;
        }
    }
    return true;
}

/* Advances the progress to the nearest path point within a window of 2 * lookahead of arc
 * length ahead of the current progress (never backwards), then returns the point `lookahead`
 * further along (clamped to the end) in tgt and whether that is the end point. */
static bool lookAhead(tpNavFollower *f, double x, double y, double tgt[2])
{
    const double *p = f->points;
    const int nseg = f->npoints - 1;
    double window = 2.0 * f->def.lookahead + 1e-9;
    double best = INFINITY;
    int bseg = f->seg;
    double bs = f->s;
    double arc = -f->s * (nseg > 0 ? segLen(p, f->seg) : 0.0);
    for (int k = f->seg; k < nseg && arc <= window; ++k) {
        double s;
        double d2 = segClosest(p, k, x, y, &s);
        if (k == f->seg && s < f->s) {
            s = f->s;
            double ax = p[2 * k] + s * (p[2 * k + 2] - p[2 * k]) - x;
            double ay = p[2 * k + 1] + s * (p[2 * k + 3] - p[2 * k + 1]) - y;
            d2 = ax * ax + ay * ay;
        }
        if (d2 < best) {
            best = d2;
            bseg = k;
            bs = s;
        }
        arc += segLen(p, k);
    }
    f->seg = bseg;
    f->s = bs;
    /* Walk lookahead metres from the progress point. */
    double remaining = f->def.lookahead;
    int k = f->seg;
    double s = f->s;
    while (k < nseg) {
        double len = segLen(p, k);
        double left = (1.0 - s) * len;
        if (left > remaining) {
            double t = s + remaining / len;
            tgt[0] = p[2 * k] + t * (p[2 * k + 2] - p[2 * k]);
            tgt[1] = p[2 * k + 1] + t * (p[2 * k + 3] - p[2 * k + 1]);
            return false;
        }
        remaining -= left;
        ++k;
        s = 0.0;
    }
    tgt[0] = p[2 * (f->npoints - 1)];
    tgt[1] = p[2 * (f->npoints - 1) + 1];
    return true;
}

void tpNavFollower_Control(tpNavFollower *f, const tpNavAgent *ag, double *a, double *alpha)
{
    const tpNavFollowDef *d = &f->def;
    double vhat = 0.0, whhat = 0.0;
    if (f->npoints >= 1 && !f->done) {
        double tgt[2];
        bool at_end = lookAhead(f, ag->x, ag->y, tgt);
        f->target[0] = tgt[0];
        f->target[1] = tgt[1];
        const double *goal = f->points + 2 * (f->npoints - 1);
        double dgoal = hypot(goal[0] - ag->x, goal[1] - ag->y);
        if (at_end && dgoal <= d->stop_radius) {
            f->done = true;
        } else {
            double th = atan2(tgt[1] - ag->y, tgt[0] - ag->x);
            double err = tpAngle_WrapPrecise(th - ag->theta);
            whhat = d->ktheta * err;
            if (d->max_omega > 0 && fabs(whhat) > d->max_omega) {
                whhat = copysign(d->max_omega, whhat);
            }
            vhat = d->speed;
            if (at_end) {
                vhat = fmin(vhat, d->kp * dgoal);
            }
            if (fabs(err) > d->theta_turn) {
                vhat = fmin(vhat, d->turn_speed);
            }
        }
    }
    f->omega_cmd = whhat;
    *a = d->kv * (vhat - ag->v);
    *alpha = d->komega * (whhat - ag->omega);
}

void tpNavFollower_Step(tpNavFollower *f, tpNavAgent *ag)
{
    double a, alpha;
    tpNavFollower_Control(f, ag, &a, &alpha);
    const double dt = f->def.dt;
    double x = ag->x + ag->v * cos(ag->theta) * dt;
    double y = ag->y + ag->v * sin(ag->theta) * dt;
    double th = ag->theta + ag->omega * dt;
    ag->v += a * dt;
    ag->omega += alpha * dt;
    ag->x = x;
    ag->y = y;
    ag->theta = tpAngle_WrapPrecise(th);
}
