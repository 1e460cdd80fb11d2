/* tplan physics: where the bodies that are not simulated are -- scripted (kinematic) motion, a
 * FUNCTION body's host function, a body's state at time t for every kind of body -- the physical
 * ranges a state must stay in, the world's fatal error (a failed motion function, the physics out
 * of memory) and the duplicate-name check of the scene's tables. The layer under the step
 * (step.c), the contacts (contacts.c) and the joints (joints.c): it calls none of them. */
#include "world_internal.h"

#include "tp/base.h"
#include "tp/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Kinematic motion                                                                            */

/* Leg j of a waypoint schedule: from stop *from to stop *to, taking *dur s. Legs per period:
 * ONCE n-1, CYCLE n, PINGPONG 2(n-1). */
static void waypoint_leg(const tpMotionDef *m, int j, int *from, int *to, double *dur)
{
    const int n = m->npoints;
    if (m->loop == TP_LOOP_PINGPONG && j >= n - 1) {
        int r = j - (n - 1); /* backwards: n-1 -> n-2 -> ... -> 0 */
        *from = n - 1 - r;
        *to = n - 2 - r;
        *dur = m->leg_time[*to];
        return;
    }
    *from = j;
    *to = (j + 1) % n;
    *dur = m->leg_time[j];
}

/* Pose and velocity of a waypoint motion at t (out holds p0 and q0 on entry). */
static void waypoints_at(const tpBodyDef *b, double t, tpBodyState *out)
{
    const tpMotionDef *m = &b->motion;
    const int n = m->npoints;
    const int legs = m->loop == TP_LOOP_ONCE ? n - 1 : m->loop == TP_LOOP_CYCLE ? n : 2 * (n - 1);
    double period = 0;
    for (int j = 0; j < legs; j++) {
        int a, c;
        double d;
        waypoint_leg(m, j, &a, &c, &d);
        period += m->pause + d;
    }
    double tau = t > 0 ? t : 0;
    double p[4], v[4] = {0, 0, 0, 0};
    memcpy(p, m->points[m->loop == TP_LOOP_ONCE ? n - 1 : 0], sizeof p);
    if (m->loop != TP_LOOP_ONCE)
        tau = fmod(tau, period);
    if (m->loop != TP_LOOP_ONCE || tau < period) {
        for (int j = 0; j < legs; j++) {
            int a, c;
            double d;
            waypoint_leg(m, j, &a, &c, &d);
            if (tau < m->pause) {
                memcpy(p, m->points[a], sizeof p);
                break;
            }
            tau -= m->pause;
            if (tau < d) {
                double u = tau / d;
                for (int k = 0; k < 4; k++) {
                    p[k] = m->points[a][k] + u * (m->points[c][k] - m->points[a][k]);
                    v[k] = (m->points[c][k] - m->points[a][k]) / d;
                }
                break;
            }
            tau -= d;
            memcpy(p, m->points[c], sizeof p); /* reached the stop (rounding at the very end) */
        }
    }
    for (int k = 0; k < 3; k++) {
        out->pos[k] = b->pos[k] + p[k];
        out->vel[k] = v[k];
    }
    /* yaw about world z applied to the initial orientation: q = rz(yaw) * q0 */
    const double c = cos(0.5 * p[3]), s = sin(0.5 * p[3]);
    const double *q = b->quat;
    out->quat[0] = c * q[0] - s * q[3];
    out->quat[1] = c * q[1] - s * q[2];
    out->quat[2] = c * q[2] + s * q[1];
    out->quat[3] = c * q[3] + s * q[0];
    out->angvel[2] = v[3];
}

/* One call of a FUNCTION body's host function. False after an error (this one or an earlier
 * one of any body: the first is kept in w->fatal_error, which later calls do not overwrite). */
bool tpWorld_CallMotion(const tpWorld *w, int body, double t, tpBodyState *out)
{
    const tpBodyDef *b = &w->bodies[body];
    if (w->fatal_error[0])
        return false;
    tpBodyState s;
    memset(&s, 0, sizeof s);
    char err[TP_FATAL_ERROR_MAX - 128] = "";
    bool ok = b->motion.fn(b->motion.user, b->motion.fn_id, t, &s, err, sizeof err);
    if (ok && !tpWorld_StateInRange(&s)) {
        /* the host checks what its function returns; this guards other hosts */
        tpErrorf(err, sizeof err, "motion function returned a pose or velocity out of range");
        ok = false;
    }
    if (!ok) {
        tpErrorf(w->fatal_error, TP_FATAL_ERROR_MAX, "%s (body '%s', t = %g s)", err[0] ? err : "motion error", b->name,
                 t);
        return false;
    }
    *out = s;
    return true;
}

void tpWorld_MotionAt(const tpWorld *w, int body, double t, tpBodyState *out)
{
    const tpBodyDef *b = &w->bodies[body];
    const tpMotionDef *m = &b->motion;
    memset(out, 0, sizeof *out);
    memcpy(out->pos, b->pos, sizeof out->pos);
    memcpy(out->quat, b->quat, sizeof out->quat);
    switch (m->kind) {
    case TP_MOTION_ROTATE: {
        /* World-frame spin about an axis through p0: q(t) = rot(axis, phase + rate t) * q0,
         * the position stays p0. */
        const double *a = w->rt[body].axis;
        double ang = m->phase + m->rate * t;
        double c = cos(0.5 * ang), s = sin(0.5 * ang);
        double r[4] = {c, s * a[0], s * a[1], s * a[2]};
        const double *q = b->quat;
        out->quat[0] = r[0] * q[0] - r[1] * q[1] - r[2] * q[2] - r[3] * q[3];
        out->quat[1] = r[0] * q[1] + r[1] * q[0] + r[2] * q[3] - r[3] * q[2];
        out->quat[2] = r[0] * q[2] - r[1] * q[3] + r[2] * q[0] + r[3] * q[1];
        out->quat[3] = r[0] * q[3] + r[1] * q[2] - r[2] * q[1] + r[3] * q[0];
        for (int k = 0; k < 3; k++)
            out->angvel[k] = m->rate * a[k];
        break;
    }
    case TP_MOTION_LINEAR:
        for (int k = 0; k < 3; k++) {
            out->pos[k] = b->pos[k] + m->vel[k] * t;
            out->vel[k] = m->vel[k];
        }
        break;
    case TP_MOTION_OSCILLATE: {
        double omega = 2.0 * TP_PI / m->period;
        double s = sin(omega * t + m->phase), c = cos(omega * t + m->phase);
        for (int k = 0; k < 3; k++) {
            out->pos[k] = b->pos[k] + m->amplitude[k] * s;
            out->vel[k] = m->amplitude[k] * omega * c;
        }
        break;
    }
    case TP_MOTION_WAYPOINTS:
        waypoints_at(b, t, out);
        break;
    case TP_MOTION_FUNCTION:
        tpWorld_CallMotion(w, body, t, out); /* after an error: the definition's pose, at rest */
        break;
    case TP_MOTION_TACTIC:
        break;
    }
}

bool tpWorld_StateInRange(const tpBodyState *s)
{
    if (!tpWithin(s->pos, 3, TP_MAX_COORD) || !tpWithin(s->vel, 3, TP_MAX_SPEED) ||
        !tpWithin(s->angvel, 3, TP_MAX_ANGVEL))
        return false;
    double q2 = s->quat[0] * s->quat[0] + s->quat[1] * s->quat[1] + s->quat[2] * s->quat[2] + s->quat[3] * s->quat[3];
    return q2 > 0.25 && q2 < 4.0; /* NaN fails too */
}

const char *tpWorld_FatalError(const tpWorld *w)
{
    return w->fatal_error;
}

void tpWorld_OutOfMemory(tpWorld *w, const char *what)
{
    if (!w->fatal_error[0])
        tpErrorf(w->fatal_error, TP_FATAL_ERROR_MAX, "physics: out of memory for %s", what);
    w->failure.kind = TP_STEP_NO_MEMORY;
}

void tpWorld_BodyState(const tpWorld *w, const tpBodyState *x, double t, int body, tpBodyState *out)
{
    TP_ASSERT(body >= 0 && body < w->def.nbodies && out && (x || w->rt[body].state_slot < 0));
    const tpBodyRt *r = &w->rt[body];
    if (r->state_slot >= 0) {
        *out = x[r->state_slot];
    } else if (r->kinematic) {
        tpWorld_MotionAt(w, body, t, out);
    } else {
        const tpBodyDef *b = &w->bodies[body];
        memset(out, 0, sizeof *out);
        memcpy(out->pos, b->pos, sizeof out->pos);
        memcpy(out->quat, b->quat, sizeof out->quat);
    }
}

/* Duplicate names, in time linear in their number (a scene may have TP_MAX_BODIES, and comparing
 * each name with every earlier one took 26 s at 50,000 inside one C call that no time limit sees):
 * an open-addressing hash set of indices. Names are checked terminated and non-empty first. */
int tpNames_FirstDuplicate(const char *first, size_t stride, int n, int *earlier)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)n) {
        cap *= 2;
    }
    int *slots = malloc(cap * sizeof *slots);
    if (!slots) {
        return -2;
    }
    for (size_t k = 0; k < cap; k++) {
        slots[k] = -1;
    }
    int dup = -1;
    for (int i = 0; i < n && dup < 0; i++) {
        const char *name = first + (size_t)i * stride;
        if (name[0] == '\0')
            continue; /* unnamed (joints) */
        size_t k = (size_t)tpHash_Fnv1a64(name, strlen(name)) & (cap - 1);
        while (slots[k] >= 0 && strcmp(first + (size_t)slots[k] * stride, name) != 0) {
            k = (k + 1) & (cap - 1);
        }
        if (slots[k] >= 0) {
            dup = i;
            *earlier = slots[k];
        }
        slots[k] = i;
    }
    free(slots);
    return dup;
}
