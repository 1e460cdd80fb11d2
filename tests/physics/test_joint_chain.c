/* Joint conformance, part 2 (docs/physics.md "Joints"): servo angles and a hanging chain,
 * through the public API with both solvers:
 *
 *   jointReading   tpWorld_JointPositionAt (a joint's angle or position computed from the stored
 *                  states: what a servo skill sees) equals ODE's own reading after every step, for
 *                  a hinge between two moving bodies, a slider on a turning body and a hinge2's
 *                  steering on a tumbling chassis
 *   jointServo     a driven hinge under gravity and a driven slider, commanded by tpWorld_ServoSpeed
 *                  each step, settle at their target angle / position within SERVO_TOL
 *   jointCatenary  a chain of CAT_N links on ball joints, hung from two points, comes to rest on
 *                  the catenary y = a cosh(x / a) fitted to its ends and length within 1 % of its
 *                  sag at every link joint
 *   jointSteer     parking.lua's tricycle, its hinge2 steering driven from stop to stop by speed,
 *                  then by the servo: the steering angle stays within one substep's travel of
 *                  its stops, and the servo reaches each target
 *   jointSwing     fast swings at the default 1 substep (the joints audit): a 1 m bar on a hinge
 *                  and on a ball joint, released level, and a bob on a 0.8 m distance joint: each
 *                  joint's anchors stay within SWING_TOL of each other (ODE's first-order error
 *                  reduction alone let them part 8.9-12.6 mm) and the swing makes no energy
 *
 *   test_joint_chain [--sleep] [<case>]   ctest: conformance_joint..._<solver> (and _sleep_)
 *
 * Every figure is printed ("conformance <case>: ok|FAIL ..."); no check asserts a timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/base.h"
#include "tp/mathx.h"
#include "tp/physics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "joint_scene.h"

/* A quaternion (w, x, y, z) turning by `angle` rad about the unit axis u. */
static void axisQuat(const double u[3], double angle, double q[4])
{
    const double s = sin(0.5 * angle);
    q[0] = cos(0.5 * angle), q[1] = s * u[0], q[2] = s * u[1], q[3] = s * u[2];
}

/* ------------------------------------------------------------------------------------------ */
/* Joint readings from the stored states                                                       */

static void jointReading(tpSolverKind solver, Checks *c)
{
    JScene j;
    jInit(&j, solver);
    /* 0: an arm hinged to the world about y at the origin; 1: a bar hinged to the arm's end about a
       tilted axis; gravity swings both */
    addBox(&j.s, "arm", 1.0, 0.05, 0.05, 1.0, 0.5, 0, 0);
    tpJointDef *h0 = jAdd(&j, TP_JOINT_HINGE, 0, -1);
    h0->axis[0] = 0, h0->axis[1] = 1, h0->axis[2] = 0;
    tpBodyDef *bar = addBox(&j.s, "bar", 0.6, 0.05, 0.05, 0.5, 1.0, 0.3, 0);
    const double tilt[3] = {0.6, 0, 0.8};
    axisQuat(tilt, 0.4, bar->quat);
    tpJointDef *h1 = jAdd(&j, TP_JOINT_HINGE, 1, 0);
    h1->anchor[0] = 1.0;
    h1->axis[0] = 0.3, h1->axis[1] = 0.9, h1->axis[2] = 0.3;
    /* 2: a plate hinged to the world about x (far away); 3: a cart on a slider along the plate,
       pulled along it by gravity as the plate turns */
    tpBodyDef *plate = addBox(&j.s, "plate", 1.0, 1.0, 0.05, 2.0, 0, 5, 0.3);
    plate->angvel[0] = 2.0;
    tpJointDef *h2 = jAdd(&j, TP_JOINT_HINGE, 2, -1);
    h2->anchor[1] = 5.0, h2->anchor[2] = 0.3;
    h2->axis[0] = 1, h2->axis[1] = 0, h2->axis[2] = 0;
    addBox(&j.s, "cart", 0.1, 0.1, 0.1, 0.3, 0, 5, 0.4);
    tpJointDef *sl = jAdd(&j, TP_JOINT_SLIDER, 3, 2);
    sl->axis[0] = 0, sl->axis[1] = 1, sl->axis[2] = 0.2;
    /* 4: a tumbling chassis with a wheel on a hinge2 (steer about the chassis' z, spin about y),
       its steering motor driven (a new target every step) */
    tpBodyDef *ch = addBox(&j.s, "chassis", 0.6, 0.3, 0.1, 3.0, 0, -5, 2);
    ch->angvel[0] = 0.7, ch->angvel[1] = -0.4, ch->angvel[2] = 1.1;
    addSphere(&j.s, "wheel", 0.08, 0.2, 0.3, -5.2, 2);
    tpJointDef *h3 = jAdd(&j, TP_JOINT_HINGE2, 4, 5);
    tpStrCopy(h3->name, TP_NAME_MAX, "steer");
    h3->anchor[0] = 0.3, h3->anchor[1] = -5.2, h3->anchor[2] = 2;
    h3->axis[0] = 0, h3->axis[1] = 0, h3->axis[2] = 1;
    h3->axis2[0] = 0, h3->axis2[1] = 1, h3->axis2[2] = 0;
    h3->axes[0].motor = h3->axes[0].driven = true;
    h3->axes[0].max_force = 50;
    h3->axes[0].limit = true, h3->axes[0].lo = -0.6, h3->axes[0].hi = 0.6;
    tpWorld *w = mustCreate(&j.s);
    const int ns = tpWorld_StateCount(w);
    tpBodyState x[8];
    assert_true(ns <= 8);
    tpWorld_InitialState(w, x);
    const int joints[4] = {0, 1, 3, 4};
    const char *what[4] = {"hinge to the world", "hinge between two moving bodies", "slider on a turning body",
                           "hinge2 steering"};
    double worst[4] = {0, 0, 0, 0}, span[4] = {0, 0, 0, 0};
    for (int i = 0; i < 240; i++) {
        const double a[1] = {2.0 * sin(0.11 * i)};
        assert_true(simStepAct(w, x, i, a, NULL));
        for (int k = 0; k < 4; k++) {
            double ode = 0.0, mine = 0.0;
            assert_true(tpWorld_JointPosition(w, joints[k], 0, &ode, NULL));
            assert_true(tpWorld_JointPositionAt(w, x, (i + 1) * j.s.def.dt, joints[k], 0, &mine));
            worst[k] = fmax(worst[k], fabs(ode - mine));
            span[k] = fmax(span[k], fabs(ode));
        }
    }
    for (int k = 0; k < 4; k++)
        check(c, worst[k] <= 1e-9 && span[k] > 0.05,
              "%s: the reading from the states equals ODE's within %.1e (it moved up to %.3f)", what[k], worst[k],
              span[k]);
    double p = 1.0;
    check(c, !tpWorld_JointPositionAt(w, x, 0.0, 4, 1, &p) && p == 0.0,
          "a hinge2's spin axis has no position reading (false, 0)");
    tpDestroyWorld(w);
}
CASE(jointReading)

/* ------------------------------------------------------------------------------------------ */
/* Servo angles                                                                                */

#define SERVO_ANGLE 0.8         /* rad: the hinge's target (the bar rises against gravity) */
#define SERVO_POS -0.3          /* m: the slider's target */
#define SERVO_GAIN 10.0         /* 1/s */
#define SERVO_TIME 2.0          /* s */
#define SERVO_TOL 1e-3          /* rad or m: where each stands at the end */
#define TP_TEST_SERVO_GAIN 10.0 /* 1/s: the skill's default (TP_MOTOR_SERVO_GAIN, skills/) */

static void jointServo(tpSolverKind solver, Checks *c)
{
    JScene j;
    jInit(&j, solver);
    /* a 1 m, 1 kg bar hinged at one end (gravity: 4.9 N m at horizontal), motor up to 20 N m */
    addBox(&j.s, "bar", 1.0, 0.05, 0.05, 1.0, 0.5, 0, 0);
    tpJointDef *h = jAdd(&j, TP_JOINT_HINGE, 0, -1);
    tpStrCopy(h->name, TP_NAME_MAX, "shoulder");
    h->axis[0] = 0, h->axis[1] = -1, h->axis[2] = 0; /* positive: the bar's end rises */
    h->axes[0].motor = h->axes[0].driven = true;
    h->axes[0].max_force = 20.0;
    h->axes[0].max_speed = 3.0;
    /* a 2 kg cart on a vertical slider (gravity pulls it down), motor up to 60 N */
    addBox(&j.s, "cart", 0.2, 0.2, 0.2, 2.0, 0, 3, 1);
    tpJointDef *s = jAdd(&j, TP_JOINT_SLIDER, 1, -1);
    tpStrCopy(s->name, TP_NAME_MAX, "lift");
    s->axis[0] = 0, s->axis[1] = 0, s->axis[2] = 1;
    s->axes[0].motor = s->axes[0].driven = true;
    s->axes[0].max_force = 60.0;
    tpWorld *w = mustCreate(&j.s);
    tpBodyState x[2];
    tpWorld_InitialState(w, x);
    const double dt = j.s.def.dt;
    const int n = (int)(SERVO_TIME / dt);
    double a[2] = {0, 0}, peak = 0.0;
    for (int i = 0; i < n; i++) {
        a[0] = tpWorld_ServoSpeed(w, x, i * dt, 0, SERVO_ANGLE, SERVO_GAIN);
        a[1] = tpWorld_ServoSpeed(w, x, i * dt, 1, SERVO_POS, SERVO_GAIN);
        peak = fmax(peak, fabs(a[0]));
        assert_true(simStepAct(w, x, i, a, NULL));
    }
    double ang = 0.0, pos = 0.0;
    tpWorld_JointPosition(w, 0, 0, &ang, NULL);
    tpWorld_JointPosition(w, 1, 0, &pos, NULL);
    check(c, fabs(ang - SERVO_ANGLE) <= SERVO_TOL, "hinge servo: %.6f rad after %g s, target %g (tolerance %g)", ang,
          SERVO_TIME, SERVO_ANGLE, SERVO_TOL);
    check(c, fabs(pos - SERVO_POS) <= SERVO_TOL, "slider servo: %.6f m after %g s, target %g (tolerance %g)", pos,
          SERVO_TIME, SERVO_POS, SERVO_TOL);
    check(c, peak <= 3.0 + 1e-12 && peak > 2.9, "the commanded speed is clamped to max_speed 3 rad/s (peak %.3f)",
          peak);
    /* the bar is held up against gravity at the target: the motor's torque, not a rest */
    const double sag = 0.5 * 9.81 * cos(SERVO_ANGLE);
    check(c, sag < 20.0, "the hold needs %.2f N m of the motor's 20", sag);
    tpDestroyWorld(w);
}
CASE(jointServo)

/* ------------------------------------------------------------------------------------------ */
/* A hanging chain                                                                              */

#define CAT_N 32      /* links */
#define CAT_SPAN 2.0  /* m between the two hanging points */
#define CAT_LEN 3.0   /* m of chain */
#define CAT_H 3.0     /* m: height of the hanging points */
#define CAT_TIME 20.0 /* s to settle */
#define CAT_TOL 0.01  /* of the sag */

/* a with 2 a sinh(S / 2a) = L (the catenary through both ends with the chain's length), by bisection. */
static double catenaryA(double span, double len)
{
    double lo = 1e-3, hi = 1e3;
    for (int i = 0; i < 200; i++) {
        const double mid = 0.5 * (lo + hi);
        if (2.0 * mid * sinh(0.5 * span / mid) > len)
            lo = mid; /* too long: a larger a is flatter */
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static void jointCatenary(tpSolverKind solver, Checks *c)
{
    JScene j;
    jInit(&j, solver);
    const double link = CAT_LEN / CAT_N;
    /* the links start as a V (each half straight from its hanging point to the middle), damped so
       the swing dies out; the ends hang on ball joints to the world, the links on ball joints */
    const double half = 0.5 * CAT_LEN, depth = sqrt(half * half - 0.25 * CAT_SPAN * CAT_SPAN);
    const double slope = atan2(depth, 0.5 * CAT_SPAN);
    const double uy[3] = {0, 1, 0};
    for (int i = 0; i < CAT_N; i++) {
        const bool left = i < CAT_N / 2;
        const double s = (left ? i + 0.5 : i + 0.5 - CAT_N / 2) * link; /* along its half */
        double x, z;
        if (left)
            x = -0.5 * CAT_SPAN + s * cos(slope), z = CAT_H - s * sin(slope);
        else
            x = s * cos(slope), z = CAT_H - depth + s * sin(slope);
        char name[16];
        snprintf(name, sizeof name, "link%d", i);
        tpBodyDef *b = addBox(&j.s, name, link, 0.04, 0.04, 0.1, x, 0, z);
        axisQuat(uy, left ? slope : -slope, b->quat);
        b->linear_damping = 0.1, b->angular_damping = 0.1;
    }
    for (int i = 0; i <= CAT_N; i++) {
        /* joint i: the left end of link i (the world's point for i = 0; the right end at i = CAT_N) */
        const bool left = i <= CAT_N / 2;
        const double s = (left ? i : i - CAT_N / 2) * link;
        tpJointDef *jd = jAdd(&j, TP_JOINT_BALL, i < CAT_N ? i : CAT_N - 1, i == 0 || i == CAT_N ? -1 : i - 1);
        jd->anchor[0] = left ? -0.5 * CAT_SPAN + s * cos(slope) : s * cos(slope);
        jd->anchor[2] = left ? CAT_H - s * sin(slope) : CAT_H - depth + s * sin(slope);
    }
    addFloor(&j.s, NULL); /* below the lowest link */
    tpWorld *w = mustCreate(&j.s);
    tpBodyState x[CAT_N];
    tpWorld_InitialState(w, x);
    const int n = (int)(CAT_TIME / j.s.def.dt);
    for (int i = 0; i < n; i++)
        assert_true(simStepAct(w, x, i, NULL, NULL));
    /* the link joints: each link's ends, averaged between neighbours (they agree to the joints'
       error); compared with the catenary through the hanging points with the chain's length */
    const double a = catenaryA(CAT_SPAN, CAT_LEN);
    const double z0 = CAT_H - a * cosh(0.5 * CAT_SPAN / a); /* y = z0 + a cosh(x / a) */
    const double sag = CAT_H - (z0 + a);
    double worst = 0.0, vmax = 0.0;
    for (int i = 1; i < CAT_N; i++) {
        double e[3], f[3], r[9];
        const double hl[3] = {0.5 * link, 0, 0};
        /* the right end of link i - 1 and the left end of link i */
        const tpBodyState *p = &x[i - 1], *q = &x[i];
        double rp[9];
        tpQuat_ToMatrix(p->quat, rp);
        tpQuat_ToMatrix(q->quat, r);
        for (int k = 0; k < 3; k++) {
            e[k] = p->pos[k] + rp[3 * k] * hl[0];
            f[k] = q->pos[k] - r[3 * k] * hl[0];
        }
        const double px = 0.5 * (e[0] + f[0]), pz = 0.5 * (e[2] + f[2]);
        worst = fmax(worst, fabs(pz - (z0 + a * cosh(px / a))));
    }
    for (int i = 0; i < CAT_N; i++)
        vmax = fmax(vmax, sqrt(x[i].vel[0] * x[i].vel[0] + x[i].vel[1] * x[i].vel[1] + x[i].vel[2] * x[i].vel[2]));
    check(c, vmax < 1e-2,
          "the chain came to rest after %g s (fastest link %.1e m/s, at most 1e-2: ODE's residual jitter of a closed "
          "chain)",
          CAT_TIME, vmax);
    check(c, worst <= CAT_TOL * sag,
          "%d links, span %g m, length %g m: catenary a = %.4f m, sag %.4f m; the link joints lie within %.5f m "
          "(%.3f %% of the sag; tolerance %g %%)",
          CAT_N, CAT_SPAN, CAT_LEN, a, sag, worst, 100.0 * worst / sag, 100.0 * CAT_TOL);
    tpDestroyWorld(w);
}
CASE(jointCatenary)

/* ------------------------------------------------------------------------------------------ */
/* Hinge2 steering driven from stop to stop stays within its limit                             */

#define STEER_LIM 0.5        /* rad: the hinge2's steering stops (parking.lua's) */
#define STEER_MAXV 4.0       /* rad/s: the steering motor's max_speed */
#define STEER_FLIP 0.3       /* s: the speed-driven part reverses this often */
#define STEER_HOLD 0.6       /* s: the servo part holds each target this long */
#define STEER_SPEED_TIME 3.0 /* s: speed-driven, then the servo */
#define STEER_TIME 7.8       /* s */

/* The servo's targets, one per hold: lock to lock, now and then at the stop itself (parking.lua
 * samples 0.4 give or take 0.1, so up to the stop). */
static double steerTarget(int hold)
{
    static const double k_targets[] = {0.4, -0.4, 0.5, -0.5, 0.0, 0.45, -0.5, 0.5};
    return k_targets[hold % (int)(sizeof k_targets / sizeof k_targets[0])];
}

static void jointSteer(tpSolverKind solver, Checks *c)
{
    JScene j;
    jInit(&j, solver);
    j.s.def.substeps = 2;
    /* parking.lua's tricycle: a 3 kg chassis on three 0.3 kg sphere wheels; the front wheel's hinge2
       has its steering driven (max 20 N m, 4 rad/s) within +-0.5 rad and its spin driven; the rear
       wheels' steering is locked */
    addFloor(&j.s, NULL);
    addBox(&j.s, "chassis", 0.5, 0.3, 0.06, 3.0, 0, 0, 0.14);
    addSphere(&j.s, "front", 0.08, 0.3, 0.25, 0, 0.08);
    addSphere(&j.s, "rear_l", 0.08, 0.3, -0.2, 0.2, 0.08);
    addSphere(&j.s, "rear_r", 0.08, 0.3, -0.2, -0.2, 0.08);
    tpJointDef *f = jAdd(&j, TP_JOINT_HINGE2, 1, 2);
    tpStrCopy(f->name, TP_NAME_MAX, "front");
    f->anchor[0] = 0.25, f->anchor[2] = 0.08;
    f->axis[0] = 0, f->axis[1] = 0, f->axis[2] = 1;
    f->axis2[0] = 0, f->axis2[1] = -1, f->axis2[2] = 0;
    f->axes[0].limit = true, f->axes[0].lo = -STEER_LIM, f->axes[0].hi = STEER_LIM;
    f->axes[0].motor = f->axes[0].driven = true;
    f->axes[0].max_force = 20.0, f->axes[0].max_speed = STEER_MAXV;
    f->axes[1].motor = f->axes[1].driven = true;
    f->axes[1].max_force = 3.0, f->axes[1].max_speed = 20.0;
    for (int k = 0; k < 2; k++) {
        tpJointDef *r = jAdd(&j, TP_JOINT_HINGE2, 1, 3 + k);
        r->anchor[0] = -0.2, r->anchor[1] = k == 0 ? 0.2 : -0.2, r->anchor[2] = 0.08;
        r->axis[0] = 0, r->axis[1] = 0, r->axis[2] = 1;
        r->axis2[0] = 0, r->axis2[1] = 1, r->axis2[2] = 0;
        r->axes[0].limit = true; /* steering locked at 0 */
    }
    tpWorld *w = mustCreate(&j.s);
    tpBodyState x[4];
    assert_int_equal(tpWorld_StateCount(w), 4);
    tpWorld_InitialState(w, x);
    const double dt = j.s.def.dt;
    const int n = (int)(STEER_TIME / dt + 0.5), n_speed = (int)(STEER_SPEED_TIME / dt + 0.5);
    double past_speed = 0.0, past_servo = 0.0, at_speed = 0.0, rear = 0.0, reach = 0.0;
    int reached = 0, holds = 0;
    for (int i = 0; i < n; i++) {
        const bool servo = i >= n_speed;
        const int hold = servo ? (int)((i - n_speed) * dt / STEER_HOLD) : 0;
        double a[2];
        /* the first part steers by speed, full lock one way then the other: every reversal starts
           at a stop; then the servo (tp.skill.motor { angle }) swings between targets */
        if (!servo)
            a[0] = (int)(i * dt / STEER_FLIP) % 2 == 0 ? STEER_MAXV : -STEER_MAXV;
        else
            a[0] = tpWorld_ServoSpeed(w, x, i * dt, 0, steerTarget(hold), TP_TEST_SERVO_GAIN);
        a[1] = (i / 90) % 2 == 0 ? 9.0 : -5.0; /* forward and back, 1.5 s each */
        assert_true(simStepAct(w, x, i, a, NULL));
        double ang = 0.0;
        assert_true(tpWorld_JointPosition(w, 0, 0, &ang, NULL));
        if (!servo && fabs(ang) - STEER_LIM > past_speed) {
            past_speed = fabs(ang) - STEER_LIM;
            at_speed = (i + 1) * dt;
        }
        if (servo)
            past_servo = fmax(past_servo, fabs(ang) - STEER_LIM);
        for (int k = 1; k <= 2; k++) {
            double r = 0.0;
            tpWorld_JointPosition(w, k, 0, &r, NULL);
            rear = fmax(rear, fabs(r));
        }
        /* the last step of each hold: the servo stands at its target */
        if (servo && (i + 1 == n || (int)((i + 1 - n_speed) * dt / STEER_HOLD) != hold)) {
            holds++;
            reach = fmax(reach, fabs(ang - steerTarget(hold)));
            reached += fabs(ang - steerTarget(hold)) <= 0.01;
        }
    }
    tpDestroyWorld(w);
    /* a stop acts once the angle is past it: at most one substep's travel at the motor's top speed.
       (With the motor and the stop in one ODE row, a reversal at the stop threw the steering
       0.36 rad past the other stop: create_motor_joint, physics/src/joints.c.) */
    const double bound = STEER_MAXV * dt / j.s.def.substeps;
    check(c, past_speed <= bound,
          "hinge2 steering driven from stop to stop at %.0f rad/s: at most %.4f rad past its %.2f rad stops (at %.3f "
          "s; bound: one substep at %.0f rad/s = %.4f)",
          STEER_MAXV, past_speed, STEER_LIM, at_speed, STEER_MAXV, bound);
    check(c, past_servo <= bound, "hinge2 steering servo between targets: at most %.4f rad past its stops (bound %.4f)",
          past_servo, bound);
    check(c, rear <= bound, "the locked rear wheels' steering stays within %.4f rad of 0 (bound %.4f)", rear, bound);
    check(c, reached == holds && holds >= 7,
          "the servo stands within 0.01 rad of its target at the end of %d of %d holds (worst %.4f rad)", reached,
          holds, reach);
}
CASE(jointSteer)

/* ------------------------------------------------------------------------------------------ */
/* Fast swings                                                                                 */

#define SWING_TIME 3.0 /* s */
#define SWING_TOL 1e-3 /* m: the anchors of a joint stay this close */

/* The point `local` (body frame) of state s, in the world (m). */
static void swingPoint(const tpBodyState *s, const double local[3], double out[3])
{
    double R[9];
    tpQuat_ToMatrix(s->quat, R);
    for (int k = 0; k < 3; k++)
        out[k] = s->pos[k] + R[3 * k] * local[0] + R[3 * k + 1] * local[1] + R[3 * k + 2] * local[2];
}

/* Energy (J) of body 0 of x: kinetic (translation, and rotation with inertia I about each axis of
 * the body frame, diagonal) plus potential above z = 0. */
static double swingEnergy(const tpBodyState *x, double mass, const double I[3])
{
    const tpBodyState *s = &x[0];
    double R[9], wl[3]; /* the angular velocity in the body frame: R^T w */
    tpQuat_ToMatrix(s->quat, R);
    for (int k = 0; k < 3; k++)
        wl[k] = R[k] * s->angvel[0] + R[3 + k] * s->angvel[1] + R[6 + k] * s->angvel[2];
    double e = mass * G * s->pos[2];
    for (int k = 0; k < 3; k++)
        e += 0.5 * mass * s->vel[k] * s->vel[k] + 0.5 * I[k] * wl[k] * wl[k];
    return e;
}

/* kind: hinge or ball (a 1 m bar, 1 kg, 0.1 m square, pivot at its end, level) or distance (a bob
 * of 0.1 m, 1 kg, on a 0.8 m rod, level). Returns the largest distance between the joint's
 * anchors over SWING_TIME (m); *gain: the largest energy gain over the start (J). */
static double swingDrift(tpSolverKind solver, tpJointKind kind, int substeps, double *gain)
{
    JScene j;
    jInit(&j, solver);
    j.s.def.substeps = substeps;
    const double pivot[3] = {0, 0, 1.5};
    double local[3] = {-0.5, 0, 0}, I[3];
    if (kind == TP_JOINT_DISTANCE) {
        addSphere(&j.s, "bob", 0.1, 1.0, 0.8, 0, 1.5);
        local[0] = 0.0;
        I[0] = I[1] = I[2] = 0.4 * 0.1 * 0.1;
    } else {
        addBox(&j.s, "bar", 1.0, 0.1, 0.1, 1.0, 0.5, 0, 1.5);
        I[0] = (0.01 + 0.01) / 12.0, I[1] = I[2] = (1.0 + 0.01) / 12.0;
    }
    tpJointDef *jd = jAdd(&j, kind, 0, -1);
    memcpy(jd->anchor, pivot, sizeof pivot);
    jd->axis[0] = 0, jd->axis[1] = 1, jd->axis[2] = 0;
    if (kind == TP_JOINT_DISTANCE) {
        memcpy(jd->anchor, j.s.bodies[0].pos, sizeof jd->anchor);
        memcpy(jd->anchor2, pivot, sizeof pivot);
    }
    tpWorld *w = mustCreate(&j.s);
    tpBodyState x[1];
    tpWorld_InitialState(w, x);
    const double e0 = swingEnergy(x, 1.0, I);
    double drift = 0.0;
    *gain = 0.0;
    const int steps = (int)(SWING_TIME / j.s.def.dt);
    for (int i = 0; i < steps; i++) {
        assert_true(simStep(w, x, i, NULL));
        double p[3];
        swingPoint(&x[0], local, p);
        const double v[3] = {p[0] - pivot[0], p[1] - pivot[1], p[2] - pivot[2]};
        const double d = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        drift = fmax(drift, kind == TP_JOINT_DISTANCE ? fabs(d - 0.8) : d);
        *gain = fmax(*gain, swingEnergy(x, 1.0, I) - e0);
    }
    tpDestroyWorld(w);
    return drift;
}

static void jointSwing(tpSolverKind solver, Checks *c)
{
    const tpJointKind kinds[] = {TP_JOINT_HINGE, TP_JOINT_BALL, TP_JOINT_DISTANCE};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        double gain;
        const double drift = swingDrift(solver, kinds[k], 1, &gain);
        check(c, drift <= SWING_TOL,
              "%s swing, released level, 1 substep: the anchors part by at most %.2f mm (limit %.1f)",
              tpJointKindName(kinds[k]), 1e3 * drift, 1e3 * SWING_TOL);
        /* ODE's error reduction pushes the anchors back together with a velocity: a little energy,
           never more than a few mJ of the swing's 4.9-7.8 J */
        check(c, gain <= 1e-2, "%s swing: energy at most %.2e J above the start (limit 1e-2)",
              tpJointKindName(kinds[k]), gain);
    }
}
CASE(jointSwing)

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CASE_TESTS(jointReading), CASE_TESTS(jointServo), CASE_TESTS(jointCatenary),
        CASE_TESTS(jointSteer),   CASE_TESTS(jointSwing),
    };
    return runCases(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
