/* The open-loop force kinds: impulse (a sampled force held for a sampled time), spin (a small
 * push once the body is hit: a perturbation) and random (the kinodynamic-RRT extend), each a row
 * of skills.c's table. */
#include <math.h>
#include <string.h>

#include "skill_internal.h"
#include "skill_kind.h"
#include "tp/base.h"

#define IMPULSE_TIMEOUT 6.0 /* s: follow-through */
#define SPIN_TIMEOUT 10.0   /* s */
#define RANDOM_TIMEOUT 6.0  /* s (unused: random ends with its duration) */

/* ---- impulse ------------------------------------------------------------------------------- */
enum {
    IMPULSE_V_FORCE_X = 1, /* N, world: the force held during the segment (x, y, z) */
    IMPULSE_V_FORCE_Y = 2,
    IMPULSE_V_FORCE_Z = 3,
    IMPULSE_V_END = 4, /* s: end of the force phase */
};

static int run_impulse(const tpSkillDef *sk, tpSkillCall *call)
{
    const tpImpulseDef *im = &sk->impulse;
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        double fv[3] = {0, 0, 0};
        if (im->speed.kind != TP_DIST_UNSET) {
            /* speed + direction: the force that changes a free body's velocity by `speed` over
             * `duration` (F = m dv / T); contacts and the body's max_force are not compensated */
            double dv = tpSkill_Sample1(&im->speed, call, 0.0), d[3];
            tpSkill_SampleDirection(&im->direction, call, cb.yaw, d);
            double T = tpSkill_Sample1(&im->duration, call, call->dt);
            double m = T > 0 ? cb.mass * dv / T : 0.0;
            for (int k = 0; k < 3; ++k) {
                V[IMPULSE_V_FORCE_X + k] = m * d[k];
            }
            V[IMPULSE_V_END] = call->t + T;
        } else {
            tpDist_Sample(&im->force, call->rng, call->y, call->ydim, fv);
            if (im->force.dim == 1) { /* magnitude only: along `direction`, else the body's heading */
                double m = fv[0], d[3];
                tpSkill_SampleDirection(&im->direction, call, cb.yaw, d);
                for (int k = 0; k < 3; ++k) {
                    fv[k] = m * d[k];
                }
            }
            memcpy(V + IMPULSE_V_FORCE_X, fv, sizeof fv);
            V[IMPULSE_V_END] = call->t + tpSkill_Sample1(&im->duration, call, call->dt);
        }
    }
    if (im->follow && call->t >= V[IMPULSE_V_END] - 1e-9) { /* follow-through: the force phase is over */
        return (call->t - V[TP_V_START] < tpSkill_Timeout(sk, IMPULSE_TIMEOUT) &&
                tpCtl_WorldMoving(call, im->trigger_speed))
                   ? 1
                   : 0;
    }
    tpCtl_Apply(call, &cb, V + IMPULSE_V_FORCE_X, 0.0);
    return im->follow ? 1 : tpSkill_BusyUntil(call, V[IMPULSE_V_END]);
}

/* ---- spin ---------------------------------------------------------------------------------- */
enum {
    SPIN_V_AIM_X = 1,      /* m, world: the point the body is pushed (or steered) toward */
    SPIN_V_AIM_Y = 2,      /* m */
    SPIN_V_FORCE = 3,      /* N: force magnitude (aim: the lateral force limit) */
    SPIN_V_DURATION = 4,   /* s: length of the push once it starts */
    SPIN_V_PUSHING = 5,    /* 0 while waiting for the hit, 1 once pushing */
    SPIN_V_PUSH_START = 6, /* s: when the body was hit */
};

static int run_spin(const tpSkillDef *sk, tpSkillCall *call)
{
    const tpSpinDef *sp = &sk->spin;
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        double p[3];
        tpSkill_SamplePoint(sk, &sp->point, call, &cb, p);
        V[SPIN_V_AIM_X] = p[0];
        V[SPIN_V_AIM_Y] = p[1];
        V[SPIN_V_FORCE] = tpSkill_Sample1(&sp->force, call, 0.0);
        V[SPIN_V_DURATION] = tpSkill_Sample1(&sp->duration, call, 0.5);
        V[SPIN_V_PUSHING] = 0;
    }
    double speed = tpSkill_Norm2(cb.s.vel[0], cb.s.vel[1]);
    if (V[SPIN_V_PUSHING] == 0) {
        if (speed > sp->trigger_speed) {
            V[SPIN_V_PUSHING] = 1;
            V[SPIN_V_PUSH_START] = call->t;
        } else {
            if (sp->follow && call->t - V[TP_V_START] > 0.5 * call->dt && !tpCtl_WorldMoving(call, sp->trigger_speed)) {
                return 0; /* follow-through: everything rests and this body was never hit */
            }
            return call->t - V[TP_V_START] < tpSkill_Timeout(sk, SPIN_TIMEOUT) ? 1 : 0;
        }
    }
    if (sp->follow && call->t >= V[SPIN_V_PUSH_START] + V[SPIN_V_DURATION] - 1e-9) { /* follow-through after the push */
        return (call->t - V[TP_V_START] < tpSkill_Timeout(sk, SPIN_TIMEOUT) &&
                tpCtl_WorldMoving(call, sp->trigger_speed))
                   ? 1
                   : 0;
    }
    double dx = V[SPIN_V_AIM_X] - cb.s.pos[0], dy = V[SPIN_V_AIM_Y] - cb.s.pos[1];
    double dn = tpSkill_Norm2(dx, dy);
    if (sp->aim) {
        /* Pure pursuit: the arc through the point tangent to the velocity has curvature
           2 sin(e) / d (heading error e, distance d); the lateral force that keeps the body on it
           is m_eff v^2 2 sin(e) / d with m_eff = 7/5 m, the effective mass of a rolling solid
           sphere pushed at its centre. Fed back every step, so throw, sliding and the cloth's
           bending of the path are corrected as they happen; a body on course gets no force. */
        double vx = cb.s.vel[0], vy = cb.s.vel[1];
        if (speed > sp->trigger_speed && dn > sk->gains.tolerance && vx * dx + vy * dy > 0.0) {
            double sin_e = (vx * dy - vy * dx) / (speed * dn);
            double lat = 1.4 * cb.mass * speed * speed * 2.0 * sin_e / dn;
            lat = fmin(fmax(lat, -V[SPIN_V_FORCE]), V[SPIN_V_FORCE]);
            double f[3] = {-lat * vy / speed, lat * vx / speed, 0.0};
            tpCtl_Apply(call, &cb, f, 0.0);
        }
    } else if (dn > 1e-9) {
        double f[3] = {V[SPIN_V_FORCE] * dx / dn, V[SPIN_V_FORCE] * dy / dn, 0.0};
        tpCtl_Apply(call, &cb, f, 0.0);
    }
    return sp->follow ? 1 : tpSkill_BusyUntil(call, V[SPIN_V_PUSH_START] + V[SPIN_V_DURATION]);
}

/* ---- random (kinodynamic RRT extend) ------------------------------------------------------- */
enum {
    RANDOM_V_FORCE_X = 1, /* N, world: the random force (x, y, z = 0) */
    RANDOM_V_FORCE_Y = 2,
    RANDOM_V_FORCE_Z = 3,
    RANDOM_V_TORQUE_Z = 4, /* N·m: the random yaw torque */
    RANDOM_V_END = 5,      /* s: end of the sampled duration */
};

static int run_random(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        double mag = tpSkill_Sample1(&sk->random.force, call, -1.0);
        if (mag < 0) {
            mag = tpRng_Uniform(call->rng, 0.0, cb.max_force);
        }
        double ang;
        if (call->y && call->ydim >= 2) { /* extend toward the sample y */
            ang = atan2(call->y[1] - cb.s.pos[1], call->y[0] - cb.s.pos[0]);
        } else {
            ang = tpRng_Uniform(call->rng, -TP_PI, TP_PI);
        }
        V[RANDOM_V_FORCE_X] = mag * cos(ang);
        V[RANDOM_V_FORCE_Y] = mag * sin(ang);
        V[RANDOM_V_FORCE_Z] = 0.0;
        V[RANDOM_V_TORQUE_Z] = tpRng_Uniform(call->rng, -cb.max_torque, cb.max_torque);
        V[RANDOM_V_END] = call->t + tpSkill_Sample1(&sk->random.duration, call, call->dt);
    }
    tpCtl_Apply(call, &cb, V + RANDOM_V_FORCE_X, V[RANDOM_V_TORQUE_Z]);
    return tpSkill_BusyUntil(call, V[RANDOM_V_END]);
}

static void impulse_defaults(tpSkillDef *def)
{
    def->impulse.trigger_speed = 0.05;
}

static bool validate_impulse(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                             size_t errlen)
{
    (void)kind;
    (void)world;
    const tpImpulseDef *im = &sk->impulse;
    TP_SKILL_NUMS({"trigger_speed", im->trigger_speed, false});
    TP_SKILL_DISTS({"duration", &im->duration, 1, 1}, {"speed", &im->speed, 1, 1}, {"force", &im->force, 1, 3},
                   {"direction", &im->direction, 1, 3});
    bool has_force = im->force.kind != TP_DIST_UNSET, has_speed = im->speed.kind != TP_DIST_UNSET;
    if (has_force == has_speed) {
        tpErrorf(err, errlen, "skill '%s' (impulse): give 'force' or 'speed' (one of them)", sk->name);
        return false;
    }
    if (im->direction.kind != TP_DIST_UNSET && has_force && im->force.dim != 1) {
        tpErrorf(err, errlen, "skill '%s' (impulse): with 'direction', 'force' is a magnitude (dimension 1, got %d)",
                 sk->name, im->force.dim);
        return false;
    }
    return true;
}

static const char *const k_impulse_keys[] = {"name",     "body",   "force",         "speed",   "direction",
                                             "duration", "follow", "trigger_speed", "timeout", NULL};
static const tpSkillField k_impulse_fields[] = {
    TP_SKILL_FIELD("duration", TP_FIELD_DURATION, impulse, duration),
    TP_SKILL_DIST(impulse, speed, 1, 1),
    /* a vector, or a magnitude along `direction` or the body's heading */
    TP_SKILL_DIST(impulse, force, 1, 3),
    TP_SKILL_DIST(impulse, direction, 1, 3),
    TP_SKILL_FIELD("follow", TP_FIELD_BOOL, impulse, follow),
    TP_SKILL_FIELD("trigger_speed", TP_FIELD_NONNEG, impulse, trigger_speed),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindImpulse = {
    .name = "impulse",
    .defaults = impulse_defaults,
    .validate = validate_impulse,
    .run = run_impulse,
    .vars = TP_SKILL_VARS,
    .timeout = IMPULSE_TIMEOUT,
    .needs_body = true,
    .accepted = k_impulse_keys,
    .fields = k_impulse_fields,
};

static void spin_defaults(tpSkillDef *def)
{
    def->spin.trigger_speed = 0.05;
}

static bool validate_spin(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                          size_t errlen)
{
    (void)kind;
    (void)world;
    TP_SKILL_NUMS({"trigger_speed", sk->spin.trigger_speed, false});
    TP_SKILL_DISTS({"point", &sk->spin.point, 2, 3}, {"force", &sk->spin.force, 1, 1},
                   {"duration", &sk->spin.duration, 1, 1});
    return true;
}

static const char *const k_spin_keys[] = {
    "name",   "body", TP_SKILL_FRAMED_KEYS, "force",   "duration", "trigger_speed",
    "follow", "aim",  "tolerance",          "timeout", NULL};
static const tpSkillField k_spin_fields[] = {
    TP_SKILL_FIELD("duration", TP_FIELD_DURATION, spin, duration),
    TP_SKILL_DIST(spin, point, 2, 3),
    TP_SKILL_DIST(spin, force, 1, 1),
    TP_SKILL_FIELD("follow", TP_FIELD_BOOL, spin, follow),
    TP_SKILL_FIELD("aim", TP_FIELD_BOOL, spin, aim),
    TP_SKILL_FIELD("trigger_speed", TP_FIELD_NONNEG, spin, trigger_speed),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindSpin = {
    .name = "spin",
    .defaults = spin_defaults,
    .validate = validate_spin,
    .run = run_spin,
    .vars = TP_SKILL_VARS,
    .timeout = SPIN_TIMEOUT,
    .needs_body = true,
    .accepted = k_spin_keys,
    .fields = k_spin_fields,
};

static bool validate_random(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                            size_t errlen)
{
    (void)kind;
    (void)world;
    TP_SKILL_DISTS({"force", &sk->random.force, 1, 1}, {"duration", &sk->random.duration, 1, 1});
    return true;
}

static const char *const k_random_keys[] = {"name", "body", "force", "duration", NULL};
static const tpSkillField k_random_fields[] = {
    TP_SKILL_FIELD("duration", TP_FIELD_DURATION, random, duration),
    TP_SKILL_DIST(random, force, 1, 1),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindRandom = {
    .name = "random",
    .validate = validate_random,
    .run = run_random,
    .vars = TP_SKILL_VARS,
    .timeout = RANDOM_TIMEOUT,
    .needs_body = true,
    .accepted = k_random_keys,
    .fields = k_random_fields,
};
