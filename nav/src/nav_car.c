/* Vehicle motion with move trees (Adam 2007), the model: the planar car of Appendix A and move
 * trees built automatically from simulated clips. The search over them is nav_car_search.c.
 * See tp/nav_car.h. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/mathx.h"
#include "nav_internal.h"
#include "tp/nav.h"

tpNavCarDef tpDefaultNavCarDef(void)
{
    tpNavCarDef c;
    c.drag = 4.0;
    c.resistance = 20.0;
    c.ca_r = -4.20;
    c.ca_f = -4.0;
    c.max_grip = 3.0;
    c.cg_front = 1.0;
    c.cg_rear = 1.0;
    c.mass = 1500.0;
    c.inertia = 1500.0;
    c.gravity = 9.8;
    c.traction = 100.0;
    c.length = 4.0;
    c.width = 1.8;
    return c;
}

/* What the forces take from the state before the tyre model: the heading's sine and cosine, the
 * velocity in the car frame, the rotation angle and the sideslip (rad). simulateClip reads the
 * same values for its controller, so one evaluation serves both. */
typedef struct CarFrame {
    double sn, cs; /* sin, cos of the heading */
    double vx, vy; /* m/s, velocity in the car frame (forward, left) */
    double ra, ss; /* rad: rotation angle, sideslip (0 at vx = 0) */
} CarFrame;

static void carFrame(const tpNavCarDef *c, const tpNavCarState *s, CarFrame *fr)
{
    const double sn = sin(s->heading), cs = cos(s->heading);
    /* velocity in the car frame */
    const double vx = cs * s->vx + sn * s->vy, vy = -sn * s->vx + cs * s->vy;
    const double wheelbase = c->cg_front + c->cg_rear;
    const double yawspeed = wheelbase * 0.5 * s->omega;
    fr->sn = sn;
    fr->cs = cs;
    fr->vx = vx;
    fr->vy = vy;
    fr->ra = vx == 0.0 ? 0.0 : atan2(yawspeed, vx); /* rotation angle */
    fr->ss = vx == 0.0 ? 0.0 : atan2(vy, vx);       /* sideslip */
}

static void forcesFrame(const tpNavCarDef *c, const CarFrame *fr, double steer, double throttle, double brake,
                        tpNavCarForces *out)
{
    const double sn = fr->sn, cs = fr->cs, vx = fr->vx, vy = fr->vy, ra = fr->ra, ss = fr->ss;
    const double saf = ss + ra - steer, sar = ss - ra; /* slip angles front / rear */
    const double w = c->mass * c->gravity * 0.5;       /* weight per axle */
    const double flatf = tpClamp(c->ca_f * saf, -c->max_grip, c->max_grip) * w;
    const double flatr = tpClamp(c->ca_r * sar, -c->max_grip, c->max_grip) * w;
    const double sgn = vx > 0 ? 1.0 : vx < 0 ? -1.0 : 0.0;
    const double ftx = c->traction * (throttle - brake * sgn);
    const double rsx = -(c->resistance * vx + c->drag * vx * fabs(vx));
    const double rsy = -(c->resistance * vy + c->drag * vy * fabs(vy));
    const double fx = ftx + rsx; /* the front lateral force has no x part (flatf.x = 0) */
    const double fy = cos(steer) * flatf + flatr + rsy;
    out->force[0] = cs * fx - sn * fy;
    out->force[1] = sn * fx + cs * fy;
    out->torque = c->cg_front * flatf - c->cg_rear * flatr;
    out->lat_front = flatf;
    out->lat_rear = flatr;
    out->sideslip = ss;
}

void tpNavCar_Forces(const tpNavCarDef *c, const tpNavCarState *s, double steer, double throttle, double brake,
                     tpNavCarForces *out)
{
    CarFrame fr;
    carFrame(c, s, &fr);
    forcesFrame(c, &fr, steer, throttle, brake, out);
}

/* One explicit Euler step of s, whose car-frame quantities are fr (carFrame of s). */
static void stepFrame(const tpNavCarDef *c, const CarFrame *fr, tpNavCarState *s, double steer, double throttle,
                      double brake, double dt)
{
    tpNavCarForces f;
    forcesFrame(c, fr, steer, throttle, brake, &f);
    s->vx += dt * f.force[0] / c->mass;
    s->vy += dt * f.force[1] / c->mass;
    s->x += dt * s->vx;
    s->y += dt * s->vy;
    s->omega += dt * f.torque / c->inertia;
    s->heading += dt * s->omega;
}

void tpNavCar_Step(const tpNavCarDef *c, tpNavCarState *s, double steer, double throttle, double brake, double dt)
{
    CarFrame fr;
    carFrame(c, s, &fr);
    stepFrame(c, &fr, s, steer, throttle, brake, dt);
}

/* ---- move tree ---- */

tpNavMoveTreeDef tpDefaultNavMoveTreeDef(void)
{
    tpNavMoveTreeDef d;
    memset(&d, 0, sizeof d);
    d.nlevels = 7;
    const double lv[7] = {0, 4, 8, 12, 16, 20, 24};
    memcpy(d.levels, lv, sizeof lv);
    d.nsteer = 3;
    d.steer[0] = 0.05;
    d.steer[1] = 0.15;
    d.steer[2] = 0.45;
    d.skid_steer = 0.5;
    d.clip_time = 25.0 / 30.0;
    d.frame_dt = 1.0 / 30.0;
    d.substeps = 4;
    d.match_eps = 1.0;
    d.skid_slip = 0.3;
    return d;
}

/* Throttle that holds speed v on a straight: traction balances rolling resistance and drag. */
static double holdThrottle(const tpNavCarDef *c, double v)
{
    return (c->resistance * v + c->drag * v * v) / c->traction;
}

/* Simulates one clip from the steady straight state at speed v0: phase 1 (first half) steers
 * `steer` (braking hard when `skid`), phase 2 damps the yaw rate and side slip back to a straight
 * run; the throttle tracks v1 throughout. Fills the frames and end velocity. */
static void simulateClip(const tpNavCarDef *c, const tpNavMoveTreeDef *d, double v0, double v1, double steer, bool skid,
                         tpNavClip *clip)
{
    tpNavCarState s = {0, 0, 0, v0, 0, 0};
    const double h = d->frame_dt / d->substeps;
    const double duration = skid ? 2.0 * d->clip_time : d->clip_time; /* a skid needs time to recover */
    const double turn_end = 0.5 * d->clip_time;
    int nframes = (int)lround(duration / d->frame_dt);
    nframes = nframes > TP_NAV_CLIP_FRAMES ? TP_NAV_CLIP_FRAMES : nframes;
    clip->nframes = nframes;
    clip->max_slip = 0;
    clip->rear_slip = 0;
    for (int k = 0; k < nframes; ++k) {
        for (int q = 0; q < d->substeps; ++q) {
            double t = (k * d->substeps + q) * h;
            CarFrame fr; /* the car-frame velocity, sideslip and rotation angle (also the forces') */
            carFrame(c, &s, &fr);
            const double vf = fr.vx;
            const double beta = vf > 1 ? fr.ss : 0.0; /* = atan2(vl, vf), as fr.vx != 0 */
            bool turning = t < turn_end;
            /* phase 1 steers; phase 2 damps the yaw rate and the side slip to a straight run */
            double st = turning ? steer : tpClamp(-0.5 * s.omega - 0.5 * beta, -0.4, 0.4);
            double want = v1, thr, brk = 0.0;
            double e = want - vf;
            thr = tpClamp(holdThrottle(c, want) + 3.0 * c->mass * e / c->traction, 0.0, 100.0);
            if (e < -0.5) {
                thr = 0.0;
                brk = tpClamp(-3.0 * c->mass * e / c->traction, 0.0, 100.0);
            }
            if (skid && turning) { /* skid: sharp steering on the brakes */
                thr = 0.0;
                brk = 100.0;
            }
            if (vf > 1.0) { /* rear tyre slip angle sar = beta - ra (Appendix A) */
                clip->rear_slip = fmax(clip->rear_slip, fabs(beta - fr.ra));
            }
            if (q == 0) {
                clip->control[k][0] = st;
                clip->control[k][1] = thr;
                clip->control[k][2] = brk;
            }
            stepFrame(c, &fr, &s, st, thr, brk, h);
            if (vf > 1.0) {
                clip->max_slip = fmax(clip->max_slip, fabs(beta));
            }
        }
        clip->frame[k][0] = s.x;
        clip->frame[k][1] = s.y;
        clip->frame[k][2] = s.heading;
        clip->frame_cs[k][0] = cos(s.heading);
        clip->frame_cs[k][1] = sin(s.heading);
    }
    const double sn = sin(s.heading), cs = cos(s.heading);
    clip->end_vel[0] = cs * s.vx + sn * s.vy;
    clip->end_vel[1] = -sn * s.vx + cs * s.vy;
    clip->end_vel[2] = s.omega;
    clip->steer = steer;
    clip->skid = clip->rear_slip > d->skid_slip;
}

/* Matches a simulated clip's end state to the nearest level and appends it to the tree, or drops
 * it if it matches none (only kept clips are written: the array's tail is never touched). */
static void keepMatched(tpNavMoveTree *t, tpNavClip *c)
{
    const tpNavMoveTreeDef *d = &t->def;
    int best = -1;
    double be = INFINITY;
    for (int l = 0; l < d->nlevels; ++l) {
        double e = fabs(c->end_vel[0] - d->levels[l]) + fabs(c->end_vel[1]) + fabs(c->end_vel[2]);
        if (e < be) {
            be = e;
            best = l;
        }
    }
    if (be < d->match_eps) {
        c->to = best;
        c->end_error = be;
        t->clips[t->nclips++] = *c;
    }
}

tpNavMoveTree *tpCreateNavMoveTree(const tpNavCarDef *car, const tpNavMoveTreeDef *def, char *err, size_t errlen)
{
    tpNavMoveTreeDef d = def ? *def : tpDefaultNavMoveTreeDef();
    if (d.nlevels < 2 || d.nlevels > 8 || d.nsteer < 0 || d.nsteer > 4 || !(d.frame_dt > 0) || d.substeps < 1 ||
        !(d.clip_time >= d.frame_dt) || d.clip_time / d.frame_dt > TP_NAV_CLIP_FRAMES || !(d.match_eps > 0)) {
        tpErrorf(err, errlen,
                 "move tree: need 2..8 levels, 0..4 steering values, frame_dt > 0, substeps >= 1, "
                 "frame_dt <= clip_time <= %d frames, match_eps > 0",
                 TP_NAV_CLIP_FRAMES);
        return NULL;
    }
    for (int l = 1; l < d.nlevels; ++l) {
        if (!(d.levels[l] > d.levels[l - 1]) || d.levels[0] < 0) {
            tpErrorf(err, errlen, "move tree: levels must start >= 0 and increase");
            return NULL;
        }
    }
    tpNavMoveTree *t = calloc(1, sizeof *t);
    int cap = d.nlevels * (3 * (2 * d.nsteer + 1) + 2);
    if (!t || !(t->clips = malloc(sizeof *t->clips * (size_t)cap)) ||
        !(t->by_level = malloc(sizeof(int) * (size_t)cap))) {
        tpDestroyNavMoveTree(t);
        tpErrorf(err, errlen, "move tree: out of memory");
        return NULL;
    }
    t->def = d;
    t->car = *car;
    for (int l = 0; l < d.nlevels; ++l) {
        for (int dl = -1; dl <= 1; ++dl) {
            int to = l + dl;
            if (to < 0 || to >= d.nlevels) {
                continue;
            }
            for (int k = -d.nsteer; k <= d.nsteer; ++k) {
                double steer = k == 0 ? 0.0 : (k < 0 ? -d.steer[-k - 1] : d.steer[k - 1]);
                if (d.levels[l] == 0.0 && steer != 0.0) {
                    continue; /* no turning from a standstill */
                }
                tpNavClip clip;
                memset(&clip, 0, sizeof clip);
                clip.from = l;
                simulateClip(car, &d, d.levels[l], d.levels[to], steer, false, &clip);
                keepMatched(t, &clip);
            }
        }
        if (l >= 3 && d.skid_steer > 0) { /* skids from Med and faster, ending two levels down */
            for (int side = -1; side <= 1; side += 2) {
                tpNavClip clip;
                memset(&clip, 0, sizeof clip);
                clip.from = l;
                simulateClip(car, &d, d.levels[l], d.levels[l - 2], side * d.skid_steer, true, &clip);
                keepMatched(t, &clip);
            }
        }
    }
    int n = 0;
    for (int l = 0; l <= d.nlevels; ++l) {
        t->start[l] = n;
        for (int k = 0; k < t->nclips && l < d.nlevels; ++k) {
            if (t->clips[k].from == l) {
                t->by_level[n++] = k;
            }
        }
    }
    const double reach = 0.5 * hypot(car->length, car->width);
    for (int k = 0; k < t->nclips; ++k) {
        tpNavClip *c = &t->clips[k];
        double lo[2] = {0, 0}, hi[2] = {0, 0};
        for (int f = 0; f < c->nframes; ++f) {
            lo[0] = fmin(lo[0], c->frame[f][0]);
            lo[1] = fmin(lo[1], c->frame[f][1]);
            hi[0] = fmax(hi[0], c->frame[f][0]);
            hi[1] = fmax(hi[1], c->frame[f][1]);
        }
        c->bound[0] = 0.5 * (lo[0] + hi[0]);
        c->bound[1] = 0.5 * (lo[1] + hi[1]);
        c->bound[2] = 0.5 * hypot(hi[0] - lo[0], hi[1] - lo[1]) + reach;
    }
    for (int k = 0; k < t->nclips; ++k) {
        const tpNavClip *c = &t->clips[k];
        double disp = hypot(c->frame[c->nframes - 1][0], c->frame[c->nframes - 1][1]);
        for (int f = 0; f < c->nframes; ++f) { /* any frame: h must bound every partial move too */
            disp = fmax(disp, hypot(c->frame[f][0], c->frame[f][1]) * (c->nframes) / (f + 1));
        }
        t->top_speed = fmax(t->top_speed, disp / (c->nframes * d.frame_dt));
        t->level_reach[c->from] = fmax(t->level_reach[c->from], hypot(c->bound[0], c->bound[1]) + c->bound[2]);
        t->level_span[c->from] = fmax(t->level_span[c->from], c->nframes * d.frame_dt);
    }
    TP_VALIDATE(tpNavMoveTree_Valid, t);
    return t;
}

void tpDestroyNavMoveTree(tpNavMoveTree *t)
{
    if (!t) {
        return;
    }
    free(t->clips);
    free(t->by_level);
    free(t);
}

int tpNavMoveTree_ClipCount(const tpNavMoveTree *t)
{
    return t->nclips;
}
const tpNavClip *tpNavMoveTree_Clip(const tpNavMoveTree *t, int k)
{
    return &t->clips[k];
}
const tpNavMoveTreeDef *tpNavMoveTree_Def(const tpNavMoveTree *t)
{
    return &t->def;
}

int tpNavMoveTree_ClipsFrom(const tpNavMoveTree *t, int level, const int **clips)
{
    if (level < 0 || level >= t->def.nlevels) {
        *clips = NULL;
        return 0;
    }
    *clips = t->by_level + t->start[level];
    return t->start[level + 1] - t->start[level];
}
