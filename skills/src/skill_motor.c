/* The motor kind: a driven joint motor's target speed for a segment. The
 * target is part of the action (tpWorld_MotorCount): this skill sets the joint's slot every step
 * of its segment; when the tactic moves on, the motor returns to its declared speed. With `angle`
 * it is a position servo: the step's target speed is gain * (angle - the joint's reading at the
 * node's state), tpWorld_ServoSpeed, so the action (and the plan) still carries a speed and Sim
 * stays a pure function of (state, action). */
#include <math.h>

#include "skill_internal.h"
#include "skill_kind.h"
#include "tp/base.h"

#define MOTOR_DURATION 1.0 /* s: the segment when no duration is given */

enum {
    MOTOR_V_SPEED = 1, /* rad/s or m/s: the sampled target */
    MOTOR_V_END = 2,   /* s: end of the segment */
    MOTOR_V_ANGLE = 3, /* rad or m: the sampled servo target (angle given) */
};

/* The motor slot the skill drives (-1 when the joint or axis has no driven motor). */
static int motor_slot(const tpSkillDef *sk, const tpWorld *world)
{
    return sk->motor.joint >= 0 && sk->motor.joint < tpWorld_JointCount(world)
               ? tpWorld_MotorSlot(world, sk->motor.joint, (int)sk->motor.axis - 1)
               : -1;
}

static int run_motor(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    const bool servo = sk->motor.angle.kind != TP_DIST_UNSET;
    if (call->fresh && !call->overlay) {
        if (servo)
            V[MOTOR_V_ANGLE] = tpSkill_Sample1(&sk->motor.angle, call, 0.0);
        else
            V[MOTOR_V_SPEED] = tpSkill_Sample1(&sk->motor.speed, call, 0.0);
        const double d = tpSkill_Sample1(&sk->motor.duration, call, MOTOR_DURATION);
        V[MOTOR_V_END] = call->t + (d > call->dt ? d : call->dt);
    }
    const int m = motor_slot(sk, call->world);
    TP_ASSERT(m >= 0); /* tpSkill_Validate checked it */
    if (m >= 0) {
        const double v = servo ? tpWorld_ServoSpeed(call->world, call->x, call->t, m, V[MOTOR_V_ANGLE], sk->motor.gain)
                               : V[MOTOR_V_SPEED];
        call->action[6 * tpWorld_ControlCount(call->world) + m] = v;
    }
    return tpSkill_BusyUntil(call, V[MOTOR_V_END]);
}

static bool check_motor(const tpSkillDef *sk, char *err, size_t errlen)
{
    if (sk->motor.axis != 1.0 && sk->motor.axis != 2.0) {
        tpErrorf(err, errlen, "axis must be 1 or 2 (got %g)", sk->motor.axis);
        return false;
    }
    if (!(sk->motor.gain > 0.0 && isfinite(sk->motor.gain))) {
        tpErrorf(err, errlen, "gain must be > 0 (1/s; got %g)", sk->motor.gain);
        return false;
    }
    if (sk->motor.angle.kind != TP_DIST_UNSET && sk->motor.speed.kind != TP_DIST_UNSET) {
        tpErrorf(err, errlen, "give 'speed' (or 'range') or 'angle' (or 'angle_range'), not both");
        return false;
    }
    return true;
}

/* The bounds the speed distribution can reach: [a, a] for a constant, [a, b] for an interval, the
 * choices' span (with their spread); false for an unbounded one (a normal, the RRT sample). */
static bool speed_bounds(const tpDist *d, double *lo, double *hi)
{
    switch (d->kind) {
    case TP_DIST_CONST:
        *lo = *hi = d->a[0];
        return true;
    case TP_DIST_UNIFORM:
        *lo = d->a[0];
        *hi = d->b[0];
        return true;
    case TP_DIST_CHOICE:
        *lo = INFINITY;
        *hi = -INFINITY;
        for (int i = 0; i < d->nchoices; ++i) {
            *lo = fmin(*lo, d->choices[3 * i] - d->spread[i]);
            *hi = fmax(*hi, d->choices[3 * i] + d->spread[i]);
        }
        return d->nchoices > 0;
    default:
        return false;
    }
}

/* A servo (angle given): the axis has a reading, the targets lie within its limit (a rotation's
 * within [-pi, pi]). */
static bool validate_servo(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpJointDef *jd, int axis, char *err,
                           size_t errlen)
{
    const bool reads =
        jd->kind == TP_JOINT_HINGE || jd->kind == TP_JOINT_SLIDER || (jd->kind == TP_JOINT_HINGE2 && axis == 0);
    if (!reads) {
        tpErrorf(err, errlen,
                 "skill '%s' (%s): angle: joint '%s' (%s) axis %d has no servo (an angle target is for a hinge, a "
                 "slider or a hinge2's steering, axis 1; drive it with 'speed')",
                 sk->name, kind->name, jd->name, tpJointKindName(jd->kind), axis + 1);
        return false;
    }
    TP_SKILL_DISTS({"angle", &sk->motor.angle, 1, 1}, {"duration", &sk->motor.duration, 1, 1});
    const bool linear = jd->kind == TP_JOINT_SLIDER;
    const char *unit = linear ? "m" : "rad";
    double lo = 0, hi = 0;
    if (!speed_bounds(&sk->motor.angle, &lo, &hi)) {
        tpErrorf(err, errlen,
                 "skill '%s' (%s): angle: a bounded distribution is required (a constant, tp.uniform, "
                 "tp.choice or angle_range = {lo, hi})",
                 sk->name, kind->name);
        return false;
    }
    const tpJointAxisDef *ax = &jd->axes[axis];
    const double alo = ax->limit ? ax->lo : linear ? -INFINITY : -TP_PI;
    const double ahi = ax->limit ? ax->hi : linear ? INFINITY : TP_PI;
    if (!(lo >= alo && hi <= ahi)) {
        tpErrorf(err, errlen, "skill '%s' (%s): angle [%g, %g] %s is outside joint '%s''s %s [%g, %g]", sk->name,
                 kind->name, lo, hi, unit, jd->name, ax->limit ? (axis ? "limit2" : "limit") : "range", alo, ahi);
        return false;
    }
    return true;
}

static bool validate_motor(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                           size_t errlen)
{
    if (sk->motor.joint < 0 || sk->motor.joint >= tpWorld_JointCount(world)) {
        tpErrorf(err, errlen, "skill '%s' (%s): 'joint' must name a joint of the domain", sk->name, kind->name);
        return false;
    }
    char msg[256];
    if (!check_motor(sk, msg, sizeof msg)) {
        tpErrorf(err, errlen, "skill '%s' (%s): %s", sk->name, kind->name, msg);
        return false;
    }
    const bool servo = sk->motor.angle.kind != TP_DIST_UNSET;
    if (sk->motor.speed.kind == TP_DIST_UNSET && !servo) {
        tpErrorf(err, errlen,
                 "skill '%s' (%s): 'speed' (a target speed, rad/s or m/s) or 'range' ({lo, hi}, sampled), or 'angle' "
                 "(a servo's target, rad or m) or 'angle_range' is required",
                 sk->name, kind->name);
        return false;
    }
    const tpJointDef *jd = tpWorld_Joint(world, sk->motor.joint);
    const int axis = (int)sk->motor.axis - 1, m = motor_slot(sk, world);
    if (m < 0) {
        tpErrorf(err, errlen,
                 "skill '%s' (%s): joint '%s' (%s) has no driven motor on axis %d (declare motor%s = { ..., driven = "
                 "true })",
                 sk->name, kind->name, jd->name, tpJointKindName(jd->kind), axis + 1, axis ? "2" : "");
        return false;
    }
    if (servo)
        return validate_servo(kind, sk, jd, axis, err, errlen);
    TP_SKILL_DISTS({"speed", &sk->motor.speed, 1, 1}, {"duration", &sk->motor.duration, 1, 1});
    const double lim = tpWorld_MotorMaxSpeed(world, m);
    double lo = 0, hi = 0;
    if (speed_bounds(&sk->motor.speed, &lo, &hi) && !(lo >= -lim && hi <= lim)) {
        tpErrorf(err, errlen, "skill '%s' (%s): speed [%g, %g] %s is outside joint '%s''s +-%g (its motor%s.max_speed)",
                 sk->name, kind->name, lo, hi, jd->kind == TP_JOINT_SLIDER ? "m/s" : "rad/s", jd->name, lim,
                 axis ? "2" : "");
        return false;
    }
    return true;
}

static void motor_defaults(tpSkillDef *def)
{
    def->motor.joint = -1;
    def->motor.axis = 1.0;
    def->motor.gain = TP_MOTOR_SERVO_GAIN;
}

static const char *const k_motor_keys[] = {"name",  "body",        "joint", "axis",     "speed", "range",
                                           "angle", "angle_range", "gain",  "duration", NULL};
static const tpSkillField k_motor_fields[] = {
    TP_SKILL_FIELD("joint", TP_FIELD_JOINT, motor, joint),
    TP_SKILL_FIELD("axis", TP_FIELD_NONNEG, motor, axis),
    TP_SKILL_DIST(motor, speed, 1, 1),
    TP_SKILL_FIELD("range", TP_FIELD_RANGE, motor, speed),
    TP_SKILL_FIELD("duration", TP_FIELD_DURATION, motor, duration),
    TP_SKILL_DIST(motor, angle, 1, 1),
    TP_SKILL_FIELD("angle_range", TP_FIELD_RANGE, motor, angle),
    TP_SKILL_FIELD("gain", TP_FIELD_NONNEG, motor, gain),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindMotor = {
    .name = "motor",
    .defaults = motor_defaults,
    .validate = validate_motor,
    .check = check_motor,
    .run = run_motor,
    .vars = 4,
    .timeout = MOTOR_DURATION,
    .accepted = k_motor_keys,
    .fields = k_motor_fields,
};
