/* What every skill kind's f and validate share (skill_internal.h): sampling a kind's point,
 * scalars and directions in the skill's frame, the time-based busy flag and timeouts, the checks of
 * named numbers and distributions, and the navigation kinds' goal and prologue. Calls only
 * downward (sampling.c, motion.c, the world): no kind and no table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "skill_internal.h"
#include "tp/base.h"

bool tpSkill_CheckNums(const tpSkillDef *sk, const tpSkillNum *nums, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(nums[i].v) || nums[i].v < 0 || (nums[i].positive && nums[i].v == 0)) {
            tpErrorf(err, errlen, "skill '%s': %s must be %s (got %g)", sk->name, nums[i].n,
                     nums[i].positive ? "> 0" : ">= 0", nums[i].v);
            return false;
        }
    }
    return true;
}

bool tpSkill_CheckDists(const tpSkillDef *sk, const tpSkillDistCheck *dists, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; ++i) {
        char field[96];
        snprintf(field, sizeof field, "skill '%s': %s", sk->name, dists[i].n);
        if (!tpDist_Validate(dists[i].d, field, err, errlen)) {
            return false;
        }
        if (dists[i].d->kind != TP_DIST_UNSET && (dists[i].d->dim < dists[i].dmin || dists[i].d->dim > dists[i].dmax)) {
            tpErrorf(err, errlen, "%s: expected dimension %d..%d (got %d)", field, dists[i].dmin, dists[i].dmax,
                     dists[i].d->dim);
            return false;
        }
    }
    return true;
}

bool tpSkill_RequirePoint(const tpSkillDef *sk, const char *kind, const tpDist *point, char *err, size_t errlen)
{
    if (point->kind == TP_DIST_UNSET) {
        tpErrorf(err, errlen, "skill '%s' (%s): 'point' is required", sk->name, kind);
        return false;
    }
    return true;
}

void tpSkill_SamplePoint(const tpSkillDef *sk, const tpDist *point, tpSkillCall *call, const tpCtlBody *self,
                         double out[3])
{
    double p[3] = {0, 0, 0};
    tpDist_Sample(point, call->rng, call->y, call->ydim, p);
    const double *origin = NULL;
    tpBodyState ts;
    if (sk->frame == TP_FRAME_TARGET && sk->target >= 0) {
        tpWorld_BodyState(call->world, call->x, call->t, sk->target, &ts);
        origin = ts.pos;
    } else if (sk->frame == TP_FRAME_BODY && self) {
        origin = self->s.pos;
    }
    if (origin && sk->has_toward) {
        /* the offset's +x axis points from the origin toward `toward` (world x if they coincide) */
        double ux = sk->toward[0] - origin[0], uy = sk->toward[1] - origin[1];
        double n = sqrt(ux * ux + uy * uy);
        if (n > 1e-9) {
            ux /= n;
            uy /= n;
        } else {
            ux = 1.0;
            uy = 0.0;
        }
        double px = p[0], py = p[1];
        p[0] = ux * px - uy * py;
        p[1] = uy * px + ux * py;
    }
    if (origin) {
        for (int i = 0; i < 3; ++i) {
            p[i] += origin[i];
        }
    }
    memcpy(out, p, sizeof p);
}

double tpSkill_Sample1(const tpDist *d, tpSkillCall *call, double fallback)
{
    if (d->kind == TP_DIST_UNSET) {
        return fallback;
    }
    double v[3] = {0, 0, 0};
    tpDist_Sample(d, call->rng, call->y, call->ydim, v);
    return v[0];
}

void tpSkill_SampleDirection(const tpDist *d, tpSkillCall *call, double yaw, double out[3])
{
    double v[3] = {0, 0, 0};
    if (d->kind != TP_DIST_UNSET) {
        tpDist_Sample(d, call->rng, call->y, call->ydim, v);
    }
    if (d->kind == TP_DIST_UNSET || d->dim == 1) {
        double a = d->kind == TP_DIST_UNSET ? yaw : v[0];
        out[0] = cos(a);
        out[1] = sin(a);
        out[2] = 0.0;
        return;
    }
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(n > 0)) {
        out[0] = cos(yaw);
        out[1] = sin(yaw);
        out[2] = 0.0;
        return;
    }
    for (int k = 0; k < 3; ++k) {
        out[k] = v[k] / n;
    }
}

int tpSkill_BusyUntil(const tpSkillCall *call, double t_end)
{
    return (call->t + call->dt < t_end - 1e-9) ? 1 : 0;
}

double tpSkill_Timeout(const tpSkillDef *sk, double kind_default)
{
    return sk->gains.timeout > 0 ? sk->gains.timeout : kind_default;
}

double tpSkill_HalfHeight(const tpBodyDef *bd)
{
    /* a compound's size is the box about its origin that holds its parts */
    return bd->shape == TP_SHAPE_BOX || bd->shape == TP_SHAPE_COMPOUND ? bd->size[2] / 2
           : bd->shape == TP_SHAPE_SPHERE                              ? bd->size[0]
           : bd->shape == TP_SHAPE_CAPSULE                             ? bd->size[1] / 2 + bd->size[0]
                                                                       : bd->size[1] / 2;
}

/* The goal of a navigation segment: V[NAV_V_GOAL_X..Y] a sampled point (in the skill's frame), V[NAV_V_CRUISE] the
 * cruise speed (a sampled `speed` in (0, max_speed), else max_speed). Draws the point, then the speed. */
void tpSkill_NavGoal(const tpSkillDef *sk, tpSkillCall *call, const tpCtlBody *cb, double *V)
{
    TP_ASSERT(sk->kind == TP_SKILL_NAV_TO || sk->kind == TP_SKILL_FOLLOW_FIELD || sk->kind == TP_SKILL_FOLLOW_PATH);
    double p[3];
    tpSkill_SamplePoint(sk, &sk->nav.point, call, cb, p);
    V[NAV_V_GOAL_X] = p[0];
    V[NAV_V_GOAL_Y] = p[1];
    double cruise = tpSkill_Sample1(&sk->nav.speed, call, sk->gains.max_speed);
    V[NAV_V_CRUISE] = cruise > 0 && cruise < sk->gains.max_speed ? cruise : sk->gains.max_speed;
}

const tpBodyDef *tpSkill_NavBegin(const tpSkillDef *sk, const tpSkillCall *call, tpCtlBody *cb)
{
    if (!call->cache) {
        return NULL; /* the caches live in the domain: a host that runs skills must give one */
    }
    tpCtl_Load(call, sk->body, cb);
    return tpWorld_Body(call->world, sk->body);
}

void tpSkill_FollowerApply(const tpSkillDef *sk, tpSkillCall *call, const tpCtlBody *cb, bool done, double acc,
                           double omega_cmd, double kv, int yaw_slot)
{
    TP_ASSERT(yaw_slot > 0 && yaw_slot < TP_SKILL_VARS && yaw_slot != TP_V_INTEGRAL_X);
    double *V = call->V;
    const double c = cos(cb->yaw), s = sin(cb->yaw);
    /* Forward: the controller's acceleration plus the correction of any backward drift; sideways:
     * damp the lateral speed with the skill's velocity gain. */
    double vfwd = cb->s.vel[0] * c + cb->s.vel[1] * s, vlat = -cb->s.vel[0] * s + cb->s.vel[1] * c;
    /* Integral of the forward speed error (v^ - v = a / k_v), so ground friction cannot stall the
     * slow approach to the goal; reset once the goal is reached. Its bound lets it alone reach the
     * body's force limit (a fixed 0.5 m/s, 2 m/s², stalled a rubber-footed robot 0.3 m short). */
    const double lim = fmax(0.5, 0.25 * cb->max_accel);
    if (done) {
        V[TP_V_INTEGRAL_X] = 0.0;
        V[yaw_slot] = 0.0;
    } else {
        V[TP_V_INTEGRAL_X] = fmin(fmax(V[TP_V_INTEGRAL_X] + acc / kv * call->dt, -lim), lim);
    }
    double afwd = acc + 4.0 * V[TP_V_INTEGRAL_X] + (vfwd < 0 ? -sk->gains.kv * vfwd : 0.0), alat = -sk->gains.kv * vlat;
    double force[3] = {cb->mass * (afwd * c - alat * s), cb->mass * (afwd * s + alat * c), 0.0};
    /* The yaw rate as the other skills drive it (a PI law up to max_torque): the follower's P law
     * alone (izz * komega * (omega^ - omega)) stalled a heavy square robot against its corners'
     * friction torque at 6.6 N·m of its 20. */
    double tz = tpCtl_YawRateTorque(&sk->gains, cb, omega_cmd - cb->s.angvel[2], done ? NULL : &V[yaw_slot], call->dt);
    tpCtl_Apply(call, cb, force, tz);
}
