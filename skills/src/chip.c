/* The chip skill (TP_SKILL_CHIP): a robot with a kicker device lifts a ball toward a point.
 *
 * A planar robot that drives into a ball can only push it along the ground. Real soccer robots
 * (the paper's Sec. 6.2 'minichip') carry a chip kicker: a wedge that, fired while the ball
 * touches the robot's front, launches the ball upward at a fixed angle. We model the device by
 * its effect: for exactly one step, once the ball is within reach of the robot's front, a force
 * on the ball changes its velocity to the launch velocity. The ball therefore needs a control
 * slot (class "active", with a max_force that bounds the kicker) — no tactic drives it; only a
 * chip skill ever writes its force, and only in that one step.
 *
 * Phases (CHIP_V_PHASE; the variables are named by the CHIP_V_ enum below):
 *   APPROACH  drive to the stand-off point `approach` m behind the ball, facing the landing point
 *   CREEP     roll straight at the ball (at most 0.5 m/s) until it is within reach of the front
 *   FIRE      (one step) the kicker: ball velocity := launch velocity; the robot starts braking
 *   BRAKE     the robot stops; with `follow`, busy until the ball rests (like kick)
 * Launch: direction toward the landing point, `loft` above the horizontal, speed `speed` if given,
 * otherwise the speed that lands the ball on the point: the ballistic sqrt(g d / sin(2 loft)) less
 * what the kicker's own step carries the ball (launch_speed). */
#include <math.h>
#include <string.h>

#include "skill_internal.h"
#include "skill_kind.h"
#include "tp/base.h"

enum {
    CHIP_V_LAND_X = 1,      /* m, world: the landing point */
    CHIP_V_LAND_Y = 2,      /* m */
    CHIP_V_SPEED = 3,       /* m/s: launch speed, 0 = the ballistic speed for the landing point */
    CHIP_V_PHASE = 4,       /* CH_APPROACH, CH_CREEP, CH_FIRE or CH_BRAKE */
    CHIP_V_PHASE_START = 5, /* s: when the phase began */
    CHIP_V_DIR_X = 6,       /* unit vector: the direction locked at the end of the approach */
    CHIP_V_DIR_Y = 7,
    CHIP_V_LOFT = 8, /* rad: launch angle above the horizontal */
};
enum { CH_APPROACH = 0, CH_CREEP = 1, CH_FIRE = 2, CH_BRAKE = 3 };

#define CH_CREEP_SPEED 0.5 /* m/s */
#define CH_REACH 0.015     /* m: gap between the robot's front and the ball at which the kicker fires */
#define CH_DEFAULT_LOFT 0.5

#define CH_TIMEOUT 6.0 /* s */

static bool validate_chip(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                          size_t errlen)
{
    TP_SKILL_NUMS({"approach", sk->chip.approach, true}, {"trigger_speed", sk->chip.trigger_speed, false});
    TP_SKILL_DISTS({"point", &sk->chip.point, 2, 3}, {"speed", &sk->chip.speed, 1, 1}, {"loft", &sk->chip.loft, 1, 1});
    if (!tpSkill_RequirePoint(sk, kind->name, &sk->chip.point, err, errlen)) {
        return false;
    }
    if (tpWorld_ControlSlot(world, sk->target) < 0) {
        tpErrorf(err, errlen,
                 "skill '%s' (chip): target '%s' must be a controlled body (class \"active\" with a max_force): "
                 "the kicker's impulse is applied to it as a force",
                 sk->name, tpWorld_Body(world, sk->target)->name);
        return false;
    }
    if (sk->chip.loft.kind == TP_DIST_CONST && !(sk->chip.loft.a[0] >= 0 && sk->chip.loft.a[0] < 1.5)) {
        tpErrorf(err, errlen, "skill '%s' (chip): loft must be in [0, 1.5) rad (got %g)", sk->name, sk->chip.loft.a[0]);
        return false;
    }
    return true;
}

/* Horizontal distance (m) a ball launched at speed v (m/s), loft rad above the horizontal, covers
 * before it is back at its launch height: the kicker's step first (dt s at the launch velocity:
 * the force acts through the whole step, so the ball ends it dt v further on and dt v sin(loft)
 * higher), then the ballistic flight down from there. */
static double chip_range(double v, double loft, double g, double dt)
{
    const double c = cos(loft), s = sin(loft), z1 = dt * v * s;
    const double t = (v * s + sqrt(v * s * v * s + 2.0 * g * z1)) / g;
    return v * c * (dt + t);
}

/* The launch speed (m/s) that lands the ball d m away (chip_range(v) = d, by bisection: the range
 * grows with v). Without gravity or loft: the ballistic guess sqrt(g d / sin 2 loft) or ~sqrt(g d). */
static double launch_speed(double d, double loft, double g, double dt)
{
    const double s2 = sin(2.0 * loft);
    if (!(s2 > 1e-3 && g > 0 && d > 0))
        return sqrt(g > 0 ? g * d : d);           /* flat: ~sqrt(g d) */
    double lo = 0.0, hi = 2.0 * sqrt(g * d / s2); /* chip_range(hi) > d: the ballistic range alone is 4 d */
    for (int i = 0; i < 60; i++) {
        const double mid = 0.5 * (lo + hi);
        if (chip_range(mid, loft, g, dt) < d)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Distance from the controlled body's centre to its front face (m). */
static double front_reach(const tpWorld *world, int body)
{
    const tpBodyDef *d = tpWorld_Body(world, body);
    if (d->shape == TP_SHAPE_BOX) {
        return 0.5 * d->size[0];
    }
    return tpCtl_Radius(world, body);
}

static void set_phase(double *V, int phase, double t)
{
    V[CHIP_V_PHASE] = phase;
    V[CHIP_V_PHASE_START] = t;
    V[TP_V_INTEGRAL_X] = 0.0;
    V[TP_V_INTEGRAL_Y] = 0.0;
    V[TP_V_YAW_INTEGRAL] = 0.0;
}

/* Unit direction from the ball to the landing point (x axis if they coincide). */
static void aim_dir(const double *V, const tpBodyState *ball, double *dx, double *dy)
{
    double x = V[CHIP_V_LAND_X] - ball->pos[0], y = V[CHIP_V_LAND_Y] - ball->pos[1];
    double n = tpSkill_Norm2(x, y);
    if (n < 1e-9) {
        *dx = 1.0;
        *dy = 0.0;
    } else {
        *dx = x / n;
        *dy = y / n;
    }
}

static int run_chip(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb, bb;
    tpCtl_Load(call, sk->body, &cb);
    tpCtl_Load(call, sk->target, &bb);
    const tpBodyState *ball = &bb.s;
    double t = call->t;
    if (call->fresh) {
        double p[3];
        tpSkill_SamplePoint(sk, &sk->chip.point, call, &cb, p);
        V[CHIP_V_LAND_X] = p[0];
        V[CHIP_V_LAND_Y] = p[1];
        V[CHIP_V_SPEED] = tpSkill_Sample1(&sk->chip.speed, call, 0.0);
        V[CHIP_V_LOFT] = tpSkill_Sample1(&sk->chip.loft, call, CH_DEFAULT_LOFT);
        if (!(V[CHIP_V_LOFT] >= 0.0)) {
            V[CHIP_V_LOFT] = 0.0;
        } else if (V[CHIP_V_LOFT] > 1.4) {
            V[CHIP_V_LOFT] = 1.4;
        }
        set_phase(V, CH_APPROACH, t);
    }
    if (t - V[TP_V_START] >= tpSkill_Timeout(sk, CH_TIMEOUT) && (int)V[CHIP_V_PHASE] < CH_FIRE) {
        set_phase(V, CH_BRAKE, t);
    }
    double ball_r = tpCtl_Radius(call->world, sk->target);
    double reach = front_reach(call->world, sk->body) + ball_r;
    double f[3] = {0, 0, 0};
    double vcmd[2];
    int phase = (int)V[CHIP_V_PHASE];
    if (phase == CH_APPROACH) {
        double dx, dy;
        aim_dir(V, ball, &dx, &dy);
        double heading = atan2(dy, dx);
        double stand = reach + sk->chip.approach;
        double clear = cb.radius + ball_r + 0.05;
        double goal[2]; /* on the ball's far side: go around it through a point beside it */
        tpKick_ApproachGoal(&cb, ball->pos, dx, dy, stand, stand, clear, goal);
        tpCtl_GoToVelocity(&sk->gains, &cb, goal, sk->gains.max_speed, vcmd);
        tpCtl_TrackVelocity(&sk->gains, &cb, vcmd, V, call->dt, f);
        tpCtl_Apply(call, &cb, f, tpCtl_YawTorque(&sk->gains, &cb, true, heading, V, call->dt));
        double err = tpSkill_Norm2(goal[0] - cb.s.pos[0], goal[1] - cb.s.pos[1]);
        /* the launch direction does not depend on the robot's heading (the kicker aims at the
         * point), so "lined up" only needs the ball in front of the kicker, not a precise pose */
        bool lined_up = err < 0.03 && tpSkill_Norm2(cb.s.vel[0], cb.s.vel[1]) < 0.15 &&
                        fabs(tpCtl_YawError(&cb, heading)) < sk->gains.angle_tolerance && fabs(cb.s.angvel[2]) < 0.5;
        if (lined_up) {
            V[CHIP_V_DIR_X] = dx;
            V[CHIP_V_DIR_Y] = dy;
            set_phase(V, CH_CREEP, t);
        }
        return 1;
    }
    if (phase == CH_CREEP) {
        double dx = V[CHIP_V_DIR_X], dy = V[CHIP_V_DIR_Y];
        double rx = ball->pos[0] - cb.s.pos[0], ry = ball->pos[1] - cb.s.pos[1];
        double along = rx * dx + ry * dy, lateral = -rx * dy + ry * dx;
        double creep = sk->gains.max_speed < CH_CREEP_SPEED ? sk->gains.max_speed : CH_CREEP_SPEED;
        /* keep on the line through the ball */
        vcmd[0] = dx * creep - dy * sk->gains.kp * lateral;
        vcmd[1] = dy * creep + dx * sk->gains.kp * lateral;
        bool lost = along < 0.0 || fabs(lateral) > 0.5 * reach || tpSkill_Norm2(ball->vel[0], ball->vel[1]) > 0.3;
        if (lost) {
            set_phase(V, CH_BRAKE, t);
            tpCtl_Brake(&sk->gains, call, &cb);
            return 1;
        }
        if (along <= reach + CH_REACH) {
            set_phase(V, CH_FIRE, t);
            phase = CH_FIRE; /* fire in this very step */
        } else {
            tpCtl_TrackVelocity(&sk->gains, &cb, vcmd, V, call->dt, f);
            tpCtl_Apply(call, &cb, f, tpCtl_YawTorque(&sk->gains, &cb, true, atan2(dy, dx), V, call->dt));
            return 1;
        }
    }
    if (phase == CH_FIRE) {
        double dx, dy;
        aim_dir(V, ball, &dx, &dy);
        double loft = V[CHIP_V_LOFT];
        double g = -tpWorld_Def(call->world)->gravity[2];
        double v = V[CHIP_V_SPEED];
        if (!(v > 0)) {
            double d = tpSkill_Norm2(V[CHIP_V_LAND_X] - ball->pos[0], V[CHIP_V_LAND_Y] - ball->pos[1]);
            v = launch_speed(d, loft, g, call->dt);
        }
        double vl[3] = {v * cos(loft) * dx, v * cos(loft) * dy, v * sin(loft)};
        /* the force that makes the ball's velocity vl after this step (and holds its weight) */
        double k = bb.mass / call->dt;
        double fb[3] = {k * (vl[0] - ball->vel[0]), k * (vl[1] - ball->vel[1]),
                        k * (vl[2] - ball->vel[2]) + bb.mass * g};
        tpCtl_Apply(call, &bb, fb, 0.0);
        tpCtl_Brake(&sk->gains, call, &cb);
        set_phase(V, CH_BRAKE, t);
        return 1;
    }
    tpCtl_Brake(&sk->gains, call, &cb);
    bool stopped = tpSkill_Norm2(cb.s.vel[0], cb.s.vel[1]) < 0.05 && fabs(cb.s.angvel[2]) < 0.3;
    double bs = sqrt(ball->vel[0] * ball->vel[0] + ball->vel[1] * ball->vel[1] + ball->vel[2] * ball->vel[2]);
    if (sk->chip.follow && t - V[TP_V_START] < tpSkill_Timeout(sk, CH_TIMEOUT) + 20.0 && bs >= sk->chip.trigger_speed) {
        return 1;
    }
    return (stopped || t - V[CHIP_V_PHASE_START] > 1.5) ? 0 : 1;
}

static void chip_defaults(tpSkillDef *def)
{
    def->chip.approach = 0.2;
    def->chip.trigger_speed = 0.05;
}

static const char *const k_chip_keys[] = {"name",     "body",   TP_SKILL_FRAMED_KEYS, "speed",   "loft",
                                          "approach", "follow", "trigger_speed",      "timeout", TP_SKILL_GAIN_KEYS,
                                          NULL};
static const tpSkillField k_chip_fields[] = {
    TP_SKILL_DIST(chip, point, 2, 3),
    TP_SKILL_DIST(chip, speed, 1, 1),
    TP_SKILL_DIST(chip, loft, 1, 1),
    TP_SKILL_FIELD("follow", TP_FIELD_BOOL, chip, follow),
    TP_SKILL_FIELD("approach", TP_FIELD_NONNEG, chip, approach),
    TP_SKILL_FIELD("trigger_speed", TP_FIELD_NONNEG, chip, trigger_speed),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindChip = {
    .name = "chip",
    .defaults = chip_defaults,
    .validate = validate_chip,
    .run = run_chip,
    .vars = TP_SKILL_VARS,
    .timeout = CH_TIMEOUT,
    .needs_body = true,
    .needs_target = true,
    .accepted = k_chip_keys,
    .fields = k_chip_fields,
};
