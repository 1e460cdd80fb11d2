/* Passive direction: throw (a release: the body gets exactly a sampled linear and
 * angular velocity in one step, then no force) and nudge (one small correction right after the
 * body is hit, bounded by the hit's own impulse), each a row of skills.c's table.
 *
 * Both act through the body's control slot as a force and torque held for exactly one step (the
 * action), never by setting the physics state: Sim stays a pure function of (state, action), the
 * planner's tree and a replayed plan take the same chain of calls, and the plan file carries the
 * release as that step's control. The force that makes a velocity v_s out of v in one step of dt
 * is m (v_s - v) / dt less the weight (the step adds g dt; substeps share the force, so their sum
 * is the same), and the torque I(q) (w_s - w) / dt with I(q) the world-frame inertia tensor: a body
 * in free flight keeps angular momentum in tplan's physics (step.c's conserve_momentum), so the
 * step ends with the momentum I(q) w_s exactly, which for equal moments (spheres, cubes) is the
 * angular velocity w_s itself. */
#include <math.h>
#include <string.h>

#include "skill_internal.h"
#include "skill_kind.h"
#include "tp/base.h"

#define THROW_TIMEOUT 20.0 /* s: the longest follow-through */
#define NUDGE_TIMEOUT 20.0 /* s: the longest wait for a hit */

/* The one-step force and torque (added to the body's slot of the action, unclamped: validate
 * requires unlimited max_force / max_torque) that give the body at state s the velocity v1 and the
 * angular momentum I(q) w1 (w1 for equal moments) after one step of call->dt in free flight.
 * weight false: the force is only the change m (v1 - v) / dt, added to what gravity and contacts
 * do in that step anyway (an impulse, the nudge). */
static void release_action(const tpSkillCall *call, int body, int slot, const tpBodyState *s, const double v1[3],
                           const double w1[3], bool weight)
{
    const tpBodyDef *b = tpWorld_Body(call->world, body);
    const double *gw = tpWorld_Def(call->world)->gravity, g0[3] = {0, 0, 0}, *g = weight ? gw : g0;
    double ib[9], r[9], dw[3], lb[3];
    tpWorld_BodyInertia(call->world, body, ib);
    tpQuat_ToMatrix(s->quat, r);
    for (int k = 0; k < 3; k++) {
        dw[k] = w1[k] - s->angvel[k];
    }
    /* I(q) dw = R I_b R^T dw */
    for (int i = 0; i < 3; i++) {
        double acc = 0.0;
        for (int k = 0; k < 3; k++) {
            acc += r[3 * k + i] * dw[k];
        }
        lb[i] = acc;
    }
    double *a = call->action + 6 * slot;
    for (int i = 0; i < 3; i++) {
        double ilb = 0.0;
        for (int k = 0; k < 3; k++) {
            ilb += ib[3 * i + k] * lb[k];
        }
        dw[i] = ilb; /* body frame I_b R^T dw */
    }
    for (int i = 0; i < 3; i++) {
        double tau = 0.0;
        for (int k = 0; k < 3; k++) {
            tau += r[3 * i + k] * dw[k];
        }
        a[i] += b->mass * (v1[i] - s->vel[i]) / call->dt - b->mass * g[i];
        a[3 + i] += tau / call->dt;
    }
}

/* Shared checks: the body's limits would clamp the release (tpWorld_ClampAction), and a planar
 * body loses the force's z. */
static bool check_unlimited(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                            size_t errlen)
{
    const tpBodyDef *b = tpWorld_Body(world, sk->body);
    if (b->max_force > 0.0 || b->max_torque > 0.0 || b->planar_force) {
        tpErrorf(err, errlen,
                 "skill '%s' (%s): body '%s' has %s: a %s sets the velocity exactly and must not be clamped by a "
                 "robot's limits (leave max_force, max_torque and planar unset on a thrown prop)",
                 sk->name, kind->name, b->name,
                 b->planar_force ? "planar = true" : (b->max_force > 0.0 ? "max_force set" : "max_torque set"),
                 kind->name);
        return false;
    }
    return true;
}

/* ---- throw --------------------------------------------------------------------------------- */
enum {
    THROW_V_VX = 1, /* m/s, world: the sampled release velocity */
    THROW_V_VY = 2,
    THROW_V_VZ = 3,
    THROW_V_WX = 4, /* rad/s, world: the sampled release angular velocity */
    THROW_V_WY = 5,
    THROW_V_WZ = 6,
    THROW_V_AT = 7,   /* s: the release time (start of the release step) */
    THROW_V_DONE = 8, /* 1 once released */
    THROW_V_PX = 9,   /* m, world: the aimed point (with `point`) */
    THROW_V_PY = 10,
    THROW_V_PZ = 11,
    THROW_V_STEPS = 12, /* steps of the aimed flight, >= 1; 0 = no aim (the velocity above) */
};

/* The release velocity that brings the centre from p0 (velocity v0 before the release) to p in n
 * steps of dt of free flight under gravity g, for the physics' semi-implicit Euler over S substeps
 * of h = dt / S (x += h v after v += h a). The release step's force ramps the velocity from v0 to v
 * over its substeps, so it ends at p1 = p0 + dt v0 + dt (v - v0) (S + 1) / (2 S); then K = (n - 1) S
 * free substeps reach p1 + K h v + g h² K (K + 1) / 2. Exact while the physics takes S substeps per
 * step (a fast thin body may take more: then within a few mm). S = 1: v = (p - p0) / (n dt) - g dt
 * (n - 1) / 2. */
static void aim_velocity(const double p0[3], const double v0[3], const double p[3], double n, double dt, int S,
                         const double g[3], double v[3])
{
    const double h = dt / S, K = (n - 1.0) * S, c = dt * ((S + 1.0) / (2.0 * S) + (n - 1.0));
    for (int k = 0; k < 3; k++) {
        v[k] = (p[k] - p0[k] - dt * v0[k] * (S - 1.0) / (2.0 * S) - 0.5 * g[k] * h * h * K * (K + 1.0)) / c;
    }
}

static void throw_sample(const tpSkillDef *sk, tpSkillCall *call, const tpCtlBody *cb, double *V)
{
    const tpThrowDef *th = &sk->throw_;
    double v[3] = {0, 0, 0}, w[3] = {0, 0, 0};
    V[THROW_V_STEPS] = 0.0;
    if (th->velocity.kind != TP_DIST_UNSET) {
        tpDist_Sample(&th->velocity, call->rng, call->y, call->ydim, v);
    } else if (th->point.kind != TP_DIST_UNSET) {
        tpDist_Sample(&th->point, call->rng, call->y, call->ydim, V + THROW_V_PX);
        double n = round(tpSkill_Sample1(&th->flight_time, call, 1.0) / call->dt);
        V[THROW_V_STEPS] = n >= 1.0 ? n : 1.0;
    } else {
        double speed = tpSkill_Sample1(&th->speed, call, 0.0), d[3];
        tpSkill_SampleDirection(&th->direction, call, cb->yaw, d);
        if (th->direction.kind == TP_DIST_UNSET || th->direction.dim < 3) {
            double loft = tpSkill_Sample1(&th->loft, call, 0.0);
            d[0] *= cos(loft);
            d[1] *= cos(loft);
            d[2] = sin(loft);
        }
        for (int k = 0; k < 3; k++) {
            v[k] = speed * d[k];
        }
    }
    if (th->angular_velocity.kind != TP_DIST_UNSET) {
        double s[3] = {0, 0, 0};
        tpDist_Sample(&th->angular_velocity, call->rng, call->y, call->ydim, s);
        if (th->angular_velocity.dim == 1) {
            w[2] = s[0];
        } else {
            memcpy(w, s, sizeof w);
        }
    }
    memcpy(V + THROW_V_VX, v, sizeof v);
    memcpy(V + THROW_V_WX, w, sizeof w);
    V[THROW_V_AT] = call->t + tpSkill_Sample1(&th->at, call, 0.0);
    V[THROW_V_DONE] = 0.0;
}

static int run_throw(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        throw_sample(sk, call, &cb, V);
    }
    const double half = 0.5 * call->dt;
    if (V[THROW_V_DONE] == 0.0) {
        if (call->t < V[THROW_V_AT] - half) {
            return 1; /* holding off: no force */
        }
        if (V[THROW_V_STEPS] >= 1.0) { /* aimed: from where the body is at the release */
            const tpSceneDef *sc = tpWorld_Def(call->world);
            aim_velocity(cb.s.pos, cb.s.vel, V + THROW_V_PX, V[THROW_V_STEPS], call->dt,
                         sc->substeps > 0 ? sc->substeps : 1, sc->gravity, V + THROW_V_VX);
        }
        release_action(call, sk->body, cb.slot, &cb.s, V + THROW_V_VX, V + THROW_V_WX, true);
        V[THROW_V_DONE] = 1.0;
        return sk->throw_.follow ? 1 : 0;
    }
    /* follow-through: no force, busy while anything moves */
    return (call->t - V[TP_V_START] < tpSkill_Timeout(sk, THROW_TIMEOUT) &&
            tpCtl_WorldMoving(call, sk->throw_.trigger_speed))
               ? 1
               : 0;
}

static void throw_defaults(tpSkillDef *def)
{
    def->throw_.trigger_speed = 0.05;
}

static bool throw_check(const tpSkillDef *sk, char *err, size_t errlen)
{
    const tpThrowDef *th = &sk->throw_;
    const bool polar =
        th->speed.kind != TP_DIST_UNSET || th->direction.kind != TP_DIST_UNSET || th->loft.kind != TP_DIST_UNSET;
    if (th->velocity.kind != TP_DIST_UNSET && (polar || th->point.kind != TP_DIST_UNSET)) {
        tpErrorf(err, errlen, "'velocity' replaces 'point', 'speed', 'direction' and 'loft' (give one way)");
        return false;
    }
    if (th->point.kind != TP_DIST_UNSET && polar) {
        tpErrorf(err, errlen, "'point' (aim) replaces 'speed', 'direction' and 'loft' (give one way)");
        return false;
    }
    if (th->flight_time.kind != TP_DIST_UNSET && th->point.kind == TP_DIST_UNSET) {
        tpErrorf(err, errlen, "'flight_time' needs 'point' (the aimed landing point)");
        return false;
    }
    if ((th->flight_time.kind == TP_DIST_CONST || th->flight_time.kind == TP_DIST_UNIFORM) &&
        !(th->flight_time.a[0] > 0.0)) {
        tpErrorf(err, errlen, "'flight_time' must be > 0 (got %g)", th->flight_time.a[0]);
        return false;
    }
    if (th->loft.kind != TP_DIST_UNSET && th->direction.kind != TP_DIST_UNSET && th->direction.dim == 3) {
        tpErrorf(err, errlen, "'loft' is for a yaw or 2D 'direction' (a 3D direction has its own elevation)");
        return false;
    }
    return true;
}

static bool validate_throw(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                           size_t errlen)
{
    const tpThrowDef *th = &sk->throw_;
    TP_SKILL_NUMS({"trigger_speed", th->trigger_speed, false});
    TP_SKILL_DISTS({"velocity", &th->velocity, 3, 3}, {"point", &th->point, 3, 3},
                   {"flight_time", &th->flight_time, 1, 1}, {"speed", &th->speed, 1, 1},
                   {"direction", &th->direction, 1, 3}, {"loft", &th->loft, 1, 1},
                   {"angular_velocity", &th->angular_velocity, 1, 3}, {"at", &th->at, 1, 1});
    if (th->angular_velocity.kind != TP_DIST_UNSET && th->angular_velocity.dim == 2) {
        tpErrorf(err, errlen, "skill '%s' (throw): 'angular_velocity' is a rate about z (dimension 1) or a vector (3)",
                 sk->name);
        return false;
    }
    return check_unlimited(kind, sk, world, err, errlen);
}

static const char *const k_throw_keys[] = {
    "name", "body",   "velocity",      "point",   "flight_time", "speed", "direction", "loft", "angular_velocity",
    "at",   "follow", "trigger_speed", "timeout", NULL};
static const tpSkillField k_throw_fields[] = {
    TP_SKILL_DIST(throw_, velocity, 3, 3),
    TP_SKILL_DIST(throw_, point, 3, 3),
    TP_SKILL_FIELD("flight_time", TP_FIELD_DURATION, throw_, flight_time),
    TP_SKILL_DIST(throw_, speed, 1, 1),
    TP_SKILL_DIST(throw_, direction, 1, 3),
    TP_SKILL_DIST(throw_, loft, 1, 1),
    TP_SKILL_DIST(throw_, angular_velocity, 1, 3),
    TP_SKILL_FIELD("at", TP_FIELD_DURATION, throw_, at),
    TP_SKILL_FIELD("follow", TP_FIELD_BOOL, throw_, follow),
    TP_SKILL_FIELD("trigger_speed", TP_FIELD_NONNEG, throw_, trigger_speed),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindThrow = {
    .name = "throw",
    .alias = "release",
    .defaults = throw_defaults,
    .validate = validate_throw,
    .check = throw_check,
    .run = run_throw,
    .vars = 13,
    .timeout = THROW_TIMEOUT,
    .needs_body = true,
    .accepted = k_throw_keys,
    .fields = k_throw_fields,
};

/* ---- nudge --------------------------------------------------------------------------------- */
enum {
    NUDGE_V_TURN = 1,  /* rad: the sampled turn, within +-deflection */
    NUDGE_V_SCALE = 2, /* the sampled relative speed change */
    NUDGE_V_PX = 3,    /* m/s, world: the body's velocity at the previous call */
    NUDGE_V_PY = 4,
    NUDGE_V_PZ = 5,
    NUDGE_V_SEEN = 6, /* 1 once a previous velocity is stored */
};

/* The nudged velocity for a body whose velocity is v after a hit of velocity change |dv_hit|
 * (m/s, gravity's removed): v turned about z by `turn` and scaled by 1 + scale, the change clamped
 * to budget * |dv_hit|. */
static void nudged_velocity(const tpNudgeDef *nd, const double v[3], double dv_hit, double turn, double scale,
                            double out[3])
{
    double c = cos(turn), s = sin(turn), k = 1.0 + scale;
    double want[3] = {k * (c * v[0] - s * v[1]), k * (s * v[0] + c * v[1]), k * v[2]};
    double d[3] = {want[0] - v[0], want[1] - v[1], want[2] - v[2]};
    double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), lim = nd->budget * dv_hit;
    double f = n > lim ? (n > 0 ? lim / n : 0.0) : 1.0;
    for (int i = 0; i < 3; i++) {
        out[i] = v[i] + f * d[i];
    }
}

static int run_nudge(const tpSkillDef *sk, tpSkillCall *call)
{
    const tpNudgeDef *nd = &sk->nudge;
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        double turn = nd->turn.kind == TP_DIST_UNSET ? tpRng_Uniform(call->rng, -nd->deflection, nd->deflection)
                                                     : tpSkill_Sample1(&nd->turn, call, 0.0);
        V[NUDGE_V_TURN] = fmin(fmax(turn, -nd->deflection), nd->deflection);
        V[NUDGE_V_SCALE] = tpSkill_Sample1(&nd->scale, call, 0.0);
    }
    const double *g = tpWorld_Def(call->world)->gravity;
    if (V[NUDGE_V_SEEN] != 0.0) {
        double jump[3], j2 = 0.0;
        for (int k = 0; k < 3; k++) {
            jump[k] = cb.s.vel[k] - V[NUDGE_V_PX + k] - g[k] * call->dt;
            j2 += jump[k] * jump[k];
        }
        double dv_hit = sqrt(j2), gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        /* beyond a support's m g dt: a body at rest on the floor is not hit every step */
        if (dv_hit >
            nd->trigger + gn * call->dt) { /* hit in the step that ended at this state: nudge now, then let go */
            double v1[3], w1[3];
            nudged_velocity(nd, cb.s.vel, dv_hit, V[NUDGE_V_TURN], V[NUDGE_V_SCALE], v1);
            memcpy(w1, cb.s.angvel, sizeof w1);
            release_action(call, sk->body, cb.slot, &cb.s, v1, w1, false);
            return 0;
        }
    }
    memcpy(V + NUDGE_V_PX, cb.s.vel, 3 * sizeof(double));
    V[NUDGE_V_SEEN] = 1.0;
    return call->t - V[TP_V_START] < tpSkill_Timeout(sk, NUDGE_TIMEOUT) ? 1 : 0;
}

static void nudge_defaults(tpSkillDef *def)
{
    def->nudge.budget = 0.25;
    def->nudge.deflection = 5.0 * TP_PI / 180.0;
    def->nudge.trigger = 0.2;
}

static bool validate_nudge(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                           size_t errlen)
{
    const tpNudgeDef *nd = &sk->nudge;
    TP_SKILL_NUMS({"budget", nd->budget, false}, {"deflection", nd->deflection, false},
                  {"trigger", nd->trigger, false});
    TP_SKILL_DISTS({"turn", &nd->turn, 1, 1}, {"scale", &nd->scale, 1, 1});
    return check_unlimited(kind, sk, world, err, errlen);
}

static const char *const k_nudge_keys[] = {"name",       "body",    "turn",    "scale", "budget",
                                           "deflection", "trigger", "timeout", NULL};
static const tpSkillField k_nudge_fields[] = {
    TP_SKILL_DIST(nudge, turn, 1, 1),
    TP_SKILL_DIST(nudge, scale, 1, 1),
    TP_SKILL_FIELD("budget", TP_FIELD_NONNEG, nudge, budget),
    TP_SKILL_FIELD("deflection", TP_FIELD_NONNEG, nudge, deflection),
    TP_SKILL_FIELD("trigger", TP_FIELD_NONNEG, nudge, trigger),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindNudge = {
    .name = "nudge",
    .defaults = nudge_defaults,
    .validate = validate_nudge,
    .run = run_nudge,
    .vars = 7,
    .timeout = NUDGE_TIMEOUT,
    .needs_body = true,
    .accepted = k_nudge_keys,
    .fields = k_nudge_fields,
};
