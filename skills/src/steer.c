/* steer: the skill of a falling body that should still look passive (the many-dice domain,
 * Zickler & Veloso 2009, Sec. 6.4, Fig. 11). While the body's height is inside the skill's band
 * [min_z, max_z] it adds a small horizontal force toward a sampled point: a velocity command
 * v = min(max_speed, sqrt(2 kp |e|)) toward it (kp is a deceleration, m/s²; zero within
 * `tolerance`) tracked with F = mass * kv * (v - v_body), clamped to the
 * sampled magnitude `force`. No vertical force and no torque: gravity and collisions stay in
 * charge. The segment lasts a sampled `duration` and ends early when the body leaves the band.
 *
 * Only STEER_VARS variables are stored per tactic (hundreds of dice): the STEER_V_ enum below. */
#include <math.h>
#include <string.h>

#include "skill_internal.h"
#include "skill_kind.h"
#include "tp/base.h"

enum {
    STEER_V_AIM_X = 1,   /* m, world: the aim point */
    STEER_V_AIM_Y = 2,   /* m */
    STEER_V_FORCE = 3,   /* N: the sampled force limit */
    STEER_V_END = 4,     /* s: end of the sampled duration */
    STEER_V_ARRIVED = 5, /* 1 once the point was reached (the rest of the segment only damps) */
    STEER_VARS,          /* number of variables stored per tactic (the row's vars) */
};
_Static_assert(STEER_VARS == 6, "the steer state is 6 doubles per tactic (plan bytes and memory)");

static int run_steer(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    /* A lighter load than tpCtl_Load (no yaw, inertia or radius): this skill runs for hundreds of
     * bodies every step. */
    tpCtlBody cb;
    memset(&cb, 0, sizeof cb);
    const tpBodyDef *def = tpWorld_Body(call->world, sk->body);
    cb.body = sk->body;
    cb.slot = tpWorld_ControlSlot(call->world, sk->body);
    tpWorld_BodyState(call->world, call->x, call->t, sk->body, &cb.s);
    cb.mass = def->mass > 0 ? def->mass : 1.0;
    cb.max_force = def->max_force > 0 ? def->max_force : HUGE_VAL;
    cb.max_torque = 0.0;
    if (call->fresh) {
        double p[3] = {cb.s.pos[0], cb.s.pos[1], 0.0};
        if (sk->steer.point.kind != TP_DIST_UNSET) {
            tpDist_Sample(&sk->steer.point, call->rng, call->y, call->ydim, p);
            if (sk->frame == TP_FRAME_BODY) {
                p[0] += cb.s.pos[0];
                p[1] += cb.s.pos[1];
            } else if (sk->frame == TP_FRAME_TARGET && sk->target >= 0) {
                tpBodyState ts;
                tpWorld_BodyState(call->world, call->x, call->t, sk->target, &ts);
                p[0] += ts.pos[0];
                p[1] += ts.pos[1];
            }
        }
        V[STEER_V_AIM_X] = p[0];
        V[STEER_V_AIM_Y] = p[1];
        double f = 0.0;
        if (sk->steer.force.kind != TP_DIST_UNSET) {
            tpDist_Sample(&sk->steer.force, call->rng, call->y, call->ydim, &f);
        }
        V[STEER_V_FORCE] = f > 0 ? f : 0.0;
        double d = 0.25;
        if (sk->steer.duration.kind != TP_DIST_UNSET) {
            tpDist_Sample(&sk->steer.duration, call->rng, call->y, call->ydim, &d);
        }
        V[STEER_V_END] = call->t + (d > call->dt ? d : call->dt);
    }
    double z = cb.s.pos[2];
    if (z < sk->steer.min_z || z > sk->steer.max_z) {
        return 0; /* left the phase: the tactic decides again */
    }
    /* Velocity command: toward the point at min(max_speed, sqrt(2 kp d)), i.e. a stopping
     * profile with deceleration kp (m/s²) that, unlike a linear law, does not stall against
     * ground friction short of the point; inside `tolerance` only the velocity is damped. */
    double ex = V[STEER_V_AIM_X] - cb.s.pos[0], ey = V[STEER_V_AIM_Y] - cb.s.pos[1];
    double d = sqrt(ex * ex + ey * ey);
    double vx = 0.0, vy = 0.0;
    if (d <= sk->gains.tolerance) {
        V[STEER_V_ARRIVED] = 1.0; /* arrived: hold (damp only) for the rest of the segment, no chatter */
    }
    if (V[STEER_V_ARRIVED] == 0.0) {
        double v = sqrt(2.0 * sk->gains.kp * d);
        v = v < sk->gains.max_speed ? v : sk->gains.max_speed;
        vx = v * ex / d;
        vy = v * ey / d;
    }
    double f[3] = {cb.mass * sk->gains.kv * (vx - cb.s.vel[0]), cb.mass * sk->gains.kv * (vy - cb.s.vel[1]), 0.0};
    double fn = sqrt(f[0] * f[0] + f[1] * f[1]);
    if (fn > V[STEER_V_FORCE]) {
        double k = fn > 0 ? V[STEER_V_FORCE] / fn : 0.0;
        f[0] *= k;
        f[1] *= k;
    }
    if (V[STEER_V_FORCE] > 0) {
        tpCtl_Apply(call, &cb, f, 0.0);
    }
    return (call->t + call->dt < V[STEER_V_END] - 1e-9) ? 1 : 0;
}

static void steer_defaults(tpSkillDef *def)
{
    def->steer.min_z = -HUGE_VAL;
    def->steer.max_z = HUGE_VAL;
}

static bool check_steer(const tpSkillDef *sk, char *err, size_t errlen)
{
    if (isnan(sk->steer.min_z) || isnan(sk->steer.max_z) || sk->steer.min_z > sk->steer.max_z) {
        tpErrorf(err, errlen, "min_z must be <= max_z (got %g, %g)", sk->steer.min_z, sk->steer.max_z);
        return false;
    }
    return true;
}

static bool validate_steer(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                           size_t errlen)
{
    (void)kind;
    (void)world;
    TP_SKILL_DISTS({"point", &sk->steer.point, 2, 3}, {"force", &sk->steer.force, 1, 1},
                   {"duration", &sk->steer.duration, 1, 1});
    return true;
}

static const char *const k_steer_keys[] = {"name",  "body",  "target",    "frame", "point", "force",     "duration",
                                           "min_z", "max_z", "max_speed", "kp",    "kv",    "tolerance", NULL};
static const tpSkillField k_steer_fields[] = {
    TP_SKILL_FIELD("duration", TP_FIELD_DURATION, steer, duration),
    TP_SKILL_DIST(steer, point, 2, 3),
    TP_SKILL_DIST(steer, force, 1, 1),
    TP_SKILL_FIELD("min_z", TP_FIELD_NUMBER, steer, min_z),
    TP_SKILL_FIELD("max_z", TP_FIELD_NUMBER, steer, max_z),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindSteer = {
    .name = "steer",
    .defaults = steer_defaults,
    .validate = validate_steer,
    .check = check_steer,
    .run = run_steer,
    .vars = STEER_VARS,
    .timeout = 6.0,
    .needs_body = true,
    .accepted = k_steer_keys,
    .fields = k_steer_fields,
};
