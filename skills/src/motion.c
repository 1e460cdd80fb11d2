/* Controller helpers for the skill primitives: a planar PD drive controller within the body's
 * force, torque and speed limits. Units: m, s, kg, N, rad. */
#include <math.h>
#include <string.h>

#include "skill_internal.h"
#include "tp/base.h"

/* Stand-in acceleration bound for bodies declared without a force limit (m/s²). */
#define TP_UNLIMITED_ACCEL 10.0

double tpCtl_Radius(const tpWorld *world, int body)
{
    const tpBodyDef *d = tpWorld_Body(world, body);
    switch (d->shape) {
    case TP_SHAPE_BOX:
    case TP_SHAPE_COMPOUND: /* its size: the box about its origin that holds the parts */
        return 0.5 * sqrt(d->size[0] * d->size[0] + d->size[1] * d->size[1]);
    case TP_SHAPE_SPHERE:
    case TP_SHAPE_CYLINDER:
    case TP_SHAPE_CAPSULE:
        return d->size[0];
    default:
        return 0.0;
    }
}

/* Body i's moment of inertia about its local z axis and its smallest principal moment (kg·m²):
 * from its shape's formula, for a mesh the physics' own (volume integration: a mesh has no
 * formula of its size; its mass, kg, once used as kg·m² made the yaw law drive a 2 cm mesh die to
 * 594 rad/s), the mass for a body without either. */
static void body_inertia(const tpWorld *world, int body, double *izz, double *imin)
{
    const tpBodyDef *d = tpWorld_Body(world, body);
    double m = d->mass, a = d->size[0], b = d->size[1], c = d->size[2], I[9];
    switch (d->shape) {
    case TP_SHAPE_BOX: {
        double ab = a * a + b * b, bc = b * b + c * c, ac = a * a + c * c;
        double lo = ab < bc ? ab : bc;
        *izz = m * ab / 12.0;
        *imin = m * (lo < ac ? lo : ac) / 12.0;
        return;
    }
    case TP_SHAPE_SPHERE:
        *izz = *imin = 0.4 * m * a * a;
        return;
    case TP_SHAPE_CYLINDER:
    case TP_SHAPE_CAPSULE: {
        double across = m * (3.0 * a * a + b * b) / 12.0;
        *izz = 0.5 * m * a * a;
        *imin = *izz < across ? *izz : across;
        return;
    }
    case TP_SHAPE_MESH:
    case TP_SHAPE_COMPOUND:
        if (tpWorld_BodyInertia(world, body, I)) {
            *izz = I[8];
            *imin = I[0] < I[4] ? (I[0] < I[8] ? I[0] : I[8]) : (I[4] < I[8] ? I[4] : I[8]);
            return;
        }
        break;
    default:
        break;
    }
    *izz = *imin = m;
}

double tpBody_InertiaZ(const tpWorld *world, int body)
{
    double izz, imin;
    body_inertia(world, body, &izz, &imin);
    return izz;
}

bool tpCtl_Load(const tpSkillCall *call, int body, tpCtlBody *cb)
{
    memset(cb, 0, sizeof *cb);
    if (body < 0) {
        return false;
    }
    const tpBodyDef *d = tpWorld_Body(call->world, body);
    cb->body = body;
    cb->slot = tpWorld_ControlSlot(call->world, body);
    tpWorld_BodyState(call->world, call->x, call->t, body, &cb->s);
    cb->mass = d->mass > 0 ? d->mass : 1.0;
    body_inertia(call->world, body, &cb->izz, &cb->imin);
    if (!(cb->izz > 0)) {
        cb->izz = cb->mass;
    }
    cb->max_force = d->max_force > 0 ? d->max_force : cb->mass * TP_UNLIMITED_ACCEL;
    cb->max_torque = d->max_torque > 0 ? d->max_torque : cb->izz * 50.0;
    cb->max_accel = cb->max_force / cb->mass;
    cb->yaw = tpQuat_Yaw(cb->s.quat);
    cb->yaw_period = (d->shape == TP_SHAPE_BOX && fabs(d->size[0] - d->size[1]) < 1e-9) ? 0.5 * TP_PI : 2.0 * TP_PI;
    cb->radius = tpCtl_Radius(call->world, body);
    if (!(cb->imin > 0)) {
        cb->imin = cb->mass;
    }
    cb->planar = d->planar_force;
    return true;
}

double tpCtl_YawError(const tpCtlBody *cb, double want)
{
    double p = cb->yaw_period;
    double e = fmod(want - cb->yaw, p);
    if (e > 0.5 * p) {
        e -= p;
    } else if (e <= -0.5 * p) {
        e += p;
    }
    return e;
}

void tpCtl_Apply(const tpSkillCall *call, const tpCtlBody *cb, const double f[3], double tz)
{
    if (cb->slot < 0) {
        return;
    }
    double fx = f[0], fy = f[1], fz = f[2];
    double n = sqrt(fx * fx + fy * fy + fz * fz);
    if (n > cb->max_force) {
        double k = cb->max_force / n;
        fx *= k;
        fy *= k;
        fz *= k;
    }
    if (tz > cb->max_torque) {
        tz = cb->max_torque;
    } else if (tz < -cb->max_torque) {
        tz = -cb->max_torque;
    }
    double *a = call->action + 6 * cb->slot;
    a[0] += fx;
    a[1] += fy;
    a[2] += fz;
    a[5] += tz;
}

void tpCtl_TrackVelocity(const tpSkillGains *g, const tpCtlBody *cb, const double vcmd[2], double *V, double dt,
                         double f[3])
{
    double ex = vcmd[0] - cb->s.vel[0], ey = vcmd[1] - cb->s.vel[1];
    double ki = g->kv * g->kv * 0.25; /* 1/s²: critically damped with kv for a mass on friction */
    double ix = 0.0, iy = 0.0;
    if (V) {
        ix = V[TP_V_INTEGRAL_X] + ex * dt;
        iy = V[TP_V_INTEGRAL_Y] + ey * dt;
        /* anti wind-up: the integral alone never asks for more than the force limit */
        double lim = cb->max_force / (cb->mass * ki);
        double n = sqrt(ix * ix + iy * iy);
        if (n > lim) {
            ix *= lim / n;
            iy *= lim / n;
        }
    }
    f[0] = cb->mass * (g->kv * ex + ki * ix);
    f[1] = cb->mass * (g->kv * ey + ki * iy);
    f[2] = 0.0;
    if (V) {
        /* conditional integration: while the force saturates (accelerating hard) the integral
         * stays put, else it winds up and the body overshoots the commanded speed */
        double fx = f[0], fy = f[1];
        if (sqrt(fx * fx + fy * fy) <= cb->max_force) {
            V[TP_V_INTEGRAL_X] = ix;
            V[TP_V_INTEGRAL_Y] = iy;
        }
    }
}

double tpCtl_YawRateTorque(const tpSkillGains *g, const tpCtlBody *cb, double e, double *integral, double dt)
{
    /* 1/s²: damping ratio 0.5 with kyaw_rate. A small body (izz) on a rough floor needs the
     * integral to grow fast: friction torque does not scale with the inertia. */
    double ki = g->kyaw_rate * g->kyaw_rate;
    double i = 0.0;
    if (integral != NULL && cb->izz > 0.0) {
        i = *integral + e * dt;
        double lim = cb->max_torque / (cb->izz * ki); /* the integral alone stays within the limit */
        if (i > lim) {
            i = lim;
        } else if (i < -lim) {
            i = -lim;
        }
        *integral = i;
    }
    return cb->izz * (g->kyaw_rate * e + ki * i);
}

double tpCtl_YawTorque(const tpSkillGains *g, const tpCtlBody *cb, bool has_heading, double want, double *V, double dt)
{
    double wcmd = 0.0;
    if (has_heading) {
        wcmd = g->kyaw * tpCtl_YawError(cb, want);
        if (wcmd > g->max_yaw_rate) {
            wcmd = g->max_yaw_rate;
        } else if (wcmd < -g->max_yaw_rate) {
            wcmd = -g->max_yaw_rate;
        }
    }
    return tpCtl_YawRateTorque(g, cb, wcmd - cb->s.angvel[2], V ? &V[TP_V_YAW_INTEGRAL] : NULL, dt);
}

void tpCtl_GoToVelocity(const tpSkillGains *g, const tpCtlBody *cb, const double p[2], double cruise, double v[2])
{
    double ex = p[0] - cb->s.pos[0], ey = p[1] - cb->s.pos[1];
    double d = sqrt(ex * ex + ey * ey);
    if (d < 1e-12) {
        v[0] = v[1] = 0.0;
        return;
    }
    /* Arrive at rest: never faster than the speed from which 70 % of the force limit stops us. */
    double speed = cruise;
    double kp = g->kp * d;
    double vstop = sqrt(1.4 * cb->max_accel * d);
    if (kp < speed) {
        speed = kp;
    }
    if (vstop < speed) {
        speed = vstop;
    }
    v[0] = ex / d * speed;
    v[1] = ey / d * speed;
}

void tpCtl_Brake(const tpSkillGains *g, const tpSkillCall *call, const tpCtlBody *cb)
{
    double zero[2] = {0.0, 0.0};
    double f[3];
    tpCtl_TrackVelocity(g, cb, zero, NULL, 0.0, f);
    if (cb->planar || cb->slot < 0) {
        tpCtl_Apply(call, cb, f, tpCtl_YawTorque(g, cb, false, 0.0, NULL, call->dt));
        return;
    }
    /* A free body (a die, a ball) turns about every axis: the planar yaw law alone left it rolling
     * on an edge while the force pushed its centre, and it spun up (a falling die reached 594
     * rad/s). Its whole angular velocity is damped, with the smallest principal moment so that no
     * axis is driven faster than kyaw_rate (kyaw_rate * dt < 1: no overshoot). */
    tpCtl_Apply(call, cb, f, 0.0);
    double t[3], n = 0.0;
    for (int c = 0; c < 3; ++c) {
        t[c] = -cb->imin * g->kyaw_rate * cb->s.angvel[c];
        n += t[c] * t[c];
    }
    n = sqrt(n);
    double k = n > cb->max_torque ? cb->max_torque / n : 1.0;
    double *a = call->action + 6 * cb->slot;
    for (int c = 0; c < 3; ++c) {
        a[3 + c] += k * t[c];
    }
}
