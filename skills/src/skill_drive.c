/* The kinds that drive, turn or hold their body with the shared controller (motion.c): wait,
 * drive_to, turn_to and brake (hold), each a row of skills.c's table. */
#include <math.h>
#include <string.h>

#include "skill_internal.h"
#include "skill_kind.h"
#include "tp/base.h"

#define WAIT_TIMEOUT 20.0 /* s: the longest wait for a watched target to rest */
#define DRIVE_TIMEOUT 6.0
#define BRAKE_TIMEOUT 6.0

/* ---- wait ---------------------------------------------------------------------------------- */
enum {
    WAIT_V_END = 1, /* s: end of the sampled duration */
};

static int run_wait(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    if (call->fresh) {
        double d = tpSkill_Sample1(&sk->wait.duration, call, sk->target >= 0 ? 0.0 : 1.0);
        V[WAIT_V_END] = call->t + (d > 0 ? d : 0);
    }
    tpCtlBody cb;
    if (tpCtl_Load(call, sk->body, &cb) && cb.slot >= 0 && cb.planar) {
        tpCtl_Brake(&sk->gains, call, &cb); /* a planar body holds still while waiting; a free one is
                                               left to the physics (a falling die is not braked in the air) */
    }
    if (sk->target >= 0 && call->t - V[TP_V_START] < tpSkill_Timeout(sk, WAIT_TIMEOUT)) {
        /* watch a target: also busy until it comes to rest (e.g. a kicked ball settling, or the
         * body itself: target = body) */
        tpBodyState ts;
        tpWorld_BodyState(call->world, call->x, call->t, sk->target, &ts);
        double sp = sqrt(ts.vel[0] * ts.vel[0] + ts.vel[1] * ts.vel[1] + ts.vel[2] * ts.vel[2]);
        if (sp >= sk->wait.trigger_speed) {
            return 1;
        }
    }
    return tpSkill_BusyUntil(call, V[WAIT_V_END]);
}

/* ---- drive_to / turn_to ------------------------------------------------------------------- */
enum {
    DRIVE_V_X = 1,           /* m, world: the point to reach (turn_to: the start position) */
    DRIVE_V_Y = 2,           /* m */
    DRIVE_V_Z = 3,           /* m (unused by the planar controller) */
    DRIVE_V_HEADING = 4,     /* rad: yaw to reach */
    DRIVE_V_HAS_HEADING = 5, /* 1 when a heading was given, else 0 */
    DRIVE_V_CRUISE = 6,      /* m/s: cruise speed */
};

static int run_drive(const tpSkillDef *sk, tpSkillCall *call)
{
    const bool turn_only = sk->kind == TP_SKILL_TURN_TO;
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        if (turn_only) {
            V[DRIVE_V_X] = cb.s.pos[0];
            V[DRIVE_V_Y] = cb.s.pos[1];
            V[DRIVE_V_Z] = cb.s.pos[2];
        } else {
            tpSkill_SamplePoint(sk, &sk->drive.point, call, &cb, V + DRIVE_V_X);
        }
        V[DRIVE_V_HAS_HEADING] = sk->drive.heading.kind != TP_DIST_UNSET;
        V[DRIVE_V_HEADING] = V[DRIVE_V_HAS_HEADING] ? tpSkill_Sample1(&sk->drive.heading, call, 0.0) : 0.0;
        double cruise = tpSkill_Sample1(&sk->drive.speed, call, sk->gains.max_speed);
        V[DRIVE_V_CRUISE] =
            cruise > sk->gains.max_speed ? sk->gains.max_speed : (cruise > 0 ? cruise : sk->gains.max_speed);
    }
    double err = tpSkill_Norm2(V[DRIVE_V_X] - cb.s.pos[0], V[DRIVE_V_Y] - cb.s.pos[1]);
    double speed = tpSkill_Norm2(cb.s.vel[0], cb.s.vel[1]);
    bool has_heading = V[DRIVE_V_HAS_HEADING] != 0.0;
    bool at_heading = !has_heading || fabs(tpCtl_YawError(&cb, V[DRIVE_V_HEADING])) < sk->gains.angle_tolerance;
    bool arrived = err < sk->gains.tolerance && speed < 0.05 && at_heading && fabs(cb.s.angvel[2]) < 0.5;
    bool timed_out = call->t - V[TP_V_START] >= tpSkill_Timeout(sk, DRIVE_TIMEOUT);
    double vcmd[2], f[3];
    tpCtl_GoToVelocity(&sk->gains, &cb, V + DRIVE_V_X, V[DRIVE_V_CRUISE], vcmd);
    tpCtl_TrackVelocity(&sk->gains, &cb, vcmd, V, call->dt, f);
    tpCtl_Apply(call, &cb, f, tpCtl_YawTorque(&sk->gains, &cb, has_heading, V[DRIVE_V_HEADING], V, call->dt));
    return (arrived || timed_out) ? 0 : 1;
}

/* ---- brake --------------------------------------------------------------------------------- */
enum {
    BRAKE_V_END = 1, /* s: end of the sampled duration; 0 = until the body rests */
};

static int run_brake(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        V[BRAKE_V_END] =
            sk->brake.duration.kind == TP_DIST_UNSET ? 0.0 : call->t + tpSkill_Sample1(&sk->brake.duration, call, 0.0);
    }
    tpCtl_Brake(&sk->gains, call, &cb);
    if (V[BRAKE_V_END] > 0) {
        return tpSkill_BusyUntil(call, V[BRAKE_V_END]);
    }
    bool rest = tpSkill_Norm2(cb.s.vel[0], cb.s.vel[1]) < 0.02 && fabs(cb.s.angvel[2]) < 0.05;
    return (rest || call->t - V[TP_V_START] >= tpSkill_Timeout(sk, BRAKE_TIMEOUT)) ? 0 : 1;
}

static void wait_defaults(tpSkillDef *def)
{
    def->wait.trigger_speed = 0.05;
}

static bool validate_wait(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                          size_t errlen)
{
    (void)kind;
    (void)world;
    TP_SKILL_NUMS({"trigger_speed", sk->wait.trigger_speed, false});
    TP_SKILL_DISTS({"duration", &sk->wait.duration, 1, 1});
    return true;
}

static bool validate_drive(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                           size_t errlen)
{
    (void)world;
    TP_SKILL_DISTS({"point", &sk->drive.point, 2, 3}, {"heading", &sk->drive.heading, 1, 1},
                   {"speed", &sk->drive.speed, 1, 1});
    if (sk->kind == TP_SKILL_TURN_TO && sk->drive.heading.kind == TP_DIST_UNSET) {
        tpErrorf(err, errlen, "skill '%s' (turn_to): 'heading' is required", sk->name);
        return false;
    }
    return sk->kind == TP_SKILL_TURN_TO || tpSkill_RequirePoint(sk, kind->name, &sk->drive.point, err, errlen);
}

static bool validate_brake(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                           size_t errlen)
{
    (void)kind;
    (void)world;
    TP_SKILL_DISTS({"duration", &sk->brake.duration, 1, 1});
    return true;
}

static const char *const k_wait_keys[] = {"name",          "body",    "target",           "duration",
                                          "trigger_speed", "timeout", TP_SKILL_GAIN_KEYS, NULL};
static const tpSkillField k_wait_fields[] = {
    TP_SKILL_FIELD("duration", TP_FIELD_DURATION, wait, duration),
    TP_SKILL_FIELD("trigger_speed", TP_FIELD_NONNEG, wait, trigger_speed),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindWait = {
    .name = "wait",
    .defaults = wait_defaults,
    .validate = validate_wait,
    .run = run_wait,
    .vars = TP_SKILL_VARS,
    .timeout = WAIT_TIMEOUT,
    .self_target = true, /* a thrown die waiting until it itself rests is the natural use */
    .accepted = k_wait_keys,
    .fields = k_wait_fields,
};

static const tpSkillField k_drive_fields[] = {
    TP_SKILL_DIST(drive, point, 2, 3),
    TP_SKILL_DIST(drive, heading, 1, 1),
    TP_SKILL_DIST(drive, speed, 1, 1),
    TP_SKILL_FIELDS_END,
};
static const char *const k_drive_to_keys[] = {"name",  "body",    TP_SKILL_FRAMED_KEYS, "heading",
                                              "speed", "timeout", TP_SKILL_GAIN_KEYS,   NULL};
const tpSkillKindInfo tpSkillKindDriveTo = {
    .name = "drive_to",
    .validate = validate_drive,
    .run = run_drive,
    .vars = TP_SKILL_VARS,
    .timeout = DRIVE_TIMEOUT,
    .needs_body = true,
    .accepted = k_drive_to_keys,
    .fields = k_drive_fields,
};

static const tpSkillField k_turn_to_fields[] = {
    TP_SKILL_DIST(drive, heading, 1, 1),
    TP_SKILL_DIST(drive, speed, 1, 1),
    TP_SKILL_FIELDS_END,
};
static const char *const k_turn_to_keys[] = {"name", "body", "heading", "speed", "timeout", TP_SKILL_GAIN_KEYS, NULL};
const tpSkillKindInfo tpSkillKindTurnTo = {
    .name = "turn_to",
    .validate = validate_drive,
    .run = run_drive,
    .vars = TP_SKILL_VARS,
    .timeout = DRIVE_TIMEOUT,
    .needs_body = true,
    .accepted = k_turn_to_keys,
    .fields = k_turn_to_fields,
};

static const char *const k_brake_keys[] = {"name", "body", "duration", "timeout", TP_SKILL_GAIN_KEYS, NULL};
static const tpSkillField k_brake_fields[] = {
    TP_SKILL_FIELD("duration", TP_FIELD_DURATION, brake, duration),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindBrake = {
    .name = "brake",
    .alias = "hold",
    .validate = validate_brake,
    .run = run_brake,
    .vars = TP_SKILL_VARS,
    .timeout = BRAKE_TIMEOUT,
    .needs_body = true,
    .accepted = k_brake_keys,
    .fields = k_brake_fields,
};
