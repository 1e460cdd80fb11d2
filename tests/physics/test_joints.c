/* Joint conformance (docs/physics.md "Joints"): named scenes through the
 * public API (tpCreateWorld / tpWorld_Step, the pure Sim the planner runs), each with both solvers,
 * each measuring one figure against a closed form:
 *
 *   jointPendulum  small-angle period of a hinge, a ball and a distance pendulum vs 2 pi sqrt(L/g)
 *   jointLimit     a bar swinging into a hinge limit: how far past the limit it ever gets
 *   jointMotor     a hinge and a slider motor: accelerate at max_force / inertia, then hold the speed
 *   jointSpring    a slider and a hinge spring-damper: oscillation frequency vs sqrt(k/m) (damped:
 *                  sqrt(k/m - (c/2m)^2))
 *   jointKinds     fixed, universal, hinge2 and a static-body hinge: each constraint holds while
 *                  the bodies move
 *   jointGroup     a two-link chain hanging at rest sleeps as one group, and a falling ball wakes
 *                  both links together (meaningful with --sleep; without, it checks the chain holds)
 *   jointPurity    a chain of Sim calls on a jointed scene is bit-identical with unrelated steps and
 *                  restores in between
 *   jointErrors    bad definitions get an error naming the joint and the field
 *   jointDriven    driven motors: a hinge, a slider and a universal joint's second
 *                  axis whose target speeds are part
 *                  of the action reach the speed commanded in every step (a new one each step),
 *                  clamp to max_speed, refuse a target beyond range naming the joint, and replay
 *                  bit for bit from a restore
 *
 *   test_joints [--sleep] [<case>]    e.g. jointPendulum_step; ctest: conformance_joint..._<solver>
 *                                      and conformance_sleep_joint..._<solver>
 *
 * Every figure is printed ("conformance <case>: ok|FAIL ..."); no check asserts a timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/base.h"
#include "tp/physics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "joint_scene.h"

/* Zero crossings (upward) of a sampled signal: their times by linear interpolation. */
typedef struct Crossings {
    double t[64];
    int n;
    double prev;
    bool started;
} Crossings;

static void crossAdd(Crossings *c, double t, double v, double dt)
{
    if (c->started && c->prev < 0.0 && v >= 0.0 && c->n < 64)
        c->t[c->n++] = t - dt + dt * (-c->prev) / (v - c->prev);
    c->prev = v;
    c->started = true;
}

/* Mean period (s) between the first and last upward crossing; 0 with fewer than 2. */
static double crossPeriod(const Crossings *c)
{
    return c->n >= 2 ? (c->t[c->n - 1] - c->t[0]) / (c->n - 1) : 0.0;
}

/* ------------------------------------------------------------------------------------------ */
/* Pendulum: period 2 pi sqrt(L / g)                                                            */

#define PEND_L 1.0      /* m, pivot to the bob's centre */
#define PEND_R 0.01     /* m, bob radius (its own inertia shifts the period by 2e-5) */
#define PEND_THETA 0.05 /* rad, release angle (the finite amplitude adds theta^2 / 16 = 1.6e-4) */
#define PEND_TIME 12.0  /* s: about 6 periods */
#define PEND_TOL 0.005  /* the brief: within 0.5 % */

static double pendulumPeriod(tpSolverKind solver, tpJointKind kind, double *drift)
{
    JScene j;
    jInit(&j, solver);
    const double pivot[3] = {0, 0, 2};
    addSphere(&j.s, "bob", PEND_R, 1.0, PEND_L * sin(PEND_THETA), 0, pivot[2] - PEND_L * cos(PEND_THETA));
    tpJointDef *jd = jAdd(&j, kind, 0, -1);
    memcpy(jd->anchor, pivot, sizeof pivot);
    jd->axis[0] = 0, jd->axis[1] = 1, jd->axis[2] = 0;
    if (kind == TP_JOINT_DISTANCE) { /* anchor on the bob, anchor2 the pivot */
        memcpy(jd->anchor, j.s.bodies[0].pos, sizeof jd->anchor);
        memcpy(jd->anchor2, pivot, sizeof pivot);
    }
    tpWorld *w = mustCreate(&j.s);
    tpBodyState x[1];
    tpWorld_InitialState(w, x);
    const double dt = j.s.def.dt;
    Crossings c = {0};
    *drift = 0.0;
    const int steps = (int)(PEND_TIME / dt);
    for (int i = 0; i < steps; i++) {
        assert_true(simStep(w, x, i, NULL));
        crossAdd(&c, (i + 1) * dt, x[0].pos[0], dt);
        const double d[3] = {x[0].pos[0] - pivot[0], x[0].pos[1] - pivot[1], x[0].pos[2] - pivot[2]};
        *drift = fmax(*drift, fabs(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - PEND_L));
    }
    tpDestroyWorld(w);
    return crossPeriod(&c);
}

static void jointPendulum(tpSolverKind solver, Checks *c)
{
    const double closed = 2.0 * PI * sqrt(PEND_L / G);
    const tpJointKind kinds[] = {TP_JOINT_HINGE, TP_JOINT_BALL, TP_JOINT_DISTANCE};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        double drift;
        const double T = pendulumPeriod(solver, kinds[k], &drift);
        const double rel = fabs(T - closed) / closed;
        check(c, rel <= PEND_TOL, "%s pendulum: period %.5f s vs 2 pi sqrt(L/g) = %.5f s (%.3f %%, limit %.1f %%)",
              tpJointKindName(kinds[k]), T, closed, 100.0 * rel, 100.0 * PEND_TOL);
        check(c, drift <= 1e-3, "%s pendulum: the rod's length stays within %.2e m of %g m (limit 1e-3)",
              tpJointKindName(kinds[k]), drift, PEND_L);
    }
}
CASE(jointPendulum)

/* ------------------------------------------------------------------------------------------ */
/* Hinge limit                                                                                 */

#define LIM_LEN 1.0  /* m, bar length (hinged at one end) */
#define LIM_HI 0.6   /* rad: the bar falls from horizontal and stops here */
#define LIM_TIME 4.0 /* s */

/* The bar's rotation about world y from its initial pose (rad): the hinge angle computed from the
 * body's quaternion (it only turns about y). */
static double yAngle(const tpBodyState *s)
{
    return 2.0 * atan2(s->quat[2], s->quat[0]);
}

static void jointLimit(tpSolverKind solver, Checks *c)
{
    JScene j;
    jInit(&j, solver);
    /* a bar along +x from the pivot at the origin; gravity turns it about +y by a positive angle */
    addBox(&j.s, "bar", LIM_LEN, 0.05, 0.05, 1.0, 0.5 * LIM_LEN, 0, 0);
    tpJointDef *jd = jAdd(&j, TP_JOINT_HINGE, 0, -1);
    jd->axis[0] = 0, jd->axis[1] = 1, jd->axis[2] = 0;
    jd->axes[0].limit = true;
    jd->axes[0].lo = -LIM_HI;
    jd->axes[0].hi = LIM_HI;
    tpWorld *w = mustCreate(&j.s);
    tpBodyState x[1];
    tpWorld_InitialState(w, x);
    const double dt = j.s.def.dt;
    double worst = 0.0, wmax = 0.0, sign_err = 0.0, late = 0.0;
    const int steps = (int)(LIM_TIME / dt);
    for (int i = 0; i < steps; i++) {
        wmax = fmax(wmax, fabs(x[0].angvel[1])); /* the speed this step starts with */
        assert_true(simStep(w, x, i, NULL));
        double a, rate;
        assert_true(tpWorld_JointPosition(w, 0, 0, &a, &rate));
        sign_err = fmax(sign_err, fabs(a - yAngle(&x[0])));
        worst = fmax(worst, a - LIM_HI);
        if ((i + 1) * dt > LIM_TIME - 1.0)
            late = fmax(late, fabs(a - LIM_HI));
    }
    tpDestroyWorld(w);
    /* ODE's stop acts once the angle is past it, then pulls back by erp per step: the overshoot is
       at most one step's travel at the fastest speed the bar had */
    const double bound = wmax * dt;
    check(c, worst <= bound, "hinge limit %.2f rad: at most %.4f rad past it (bound: one step at %.2f rad/s = %.4f)",
          LIM_HI, worst, wmax, bound);
    check(c, late <= 2e-3, "hinge limit: in the last second the bar rests %.2e rad from the limit (limit 2e-3)", late);
    check(c, sign_err <= 1e-9, "hinge angle = the body's rotation about the axis (largest difference %.1e rad)",
          sign_err);
}
CASE(jointLimit)

/* ------------------------------------------------------------------------------------------ */
/* Motors                                                                                      */

#define MOT_SPEED 5.0 /* rad/s (hinge), m/s / 10 (slider) */
#define MOT_TORQUE 0.2

static void jointMotor(tpSolverKind solver, Checks *c)
{
    JScene j;
    jInit(&j, solver);
    j.s.def.gravity[2] = 0.0; /* nothing but the motors */
    /* a wheel spinning about its own axis (z) on a hinge to the world */
    tpBodyDef *wheel = sceneAdd(&j.s, "wheel", TP_BODY_PASSIVE, TP_SHAPE_CYLINDER);
    wheel->size[0] = 0.2, wheel->size[1] = 0.05, wheel->mass = 2.0;
    tpJointDef *h = jAdd(&j, TP_JOINT_HINGE, 0, -1);
    h->axes[0].motor = true;
    h->axes[0].speed = MOT_SPEED;
    h->axes[0].max_force = MOT_TORQUE;
    /* a box on a slider along x, far from the wheel */
    addBox(&j.s, "cart", 0.2, 0.2, 0.2, 4.0, 0, 5, 0);
    tpJointDef *sl = jAdd(&j, TP_JOINT_SLIDER, 1, -1);
    sl->axis[0] = 1, sl->axis[1] = 0, sl->axis[2] = 0;
    sl->axes[0].motor = true;
    sl->axes[0].speed = 0.1 * MOT_SPEED;
    sl->axes[0].max_force = 2.0;
    tpWorld *w = mustCreate(&j.s);
    tpBodyState x[2];
    tpWorld_InitialState(w, x);
    const double dt = j.s.def.dt;
    const double I = 0.5 * 2.0 * 0.2 * 0.2; /* kg m^2 about the cylinder's axis */
    const double t_hinge = MOT_SPEED * I / MOT_TORQUE, t_slider = 0.1 * MOT_SPEED * 4.0 / 2.0;
    double accel_err = 0.0, hold_err = 0.0, s_accel_err = 0.0, s_hold_err = 0.0;
    for (int i = 0; i < (int)(2.0 / dt); i++) {
        assert_true(simStep(w, x, i, NULL));
        const double t = (i + 1) * dt, om = x[0].angvel[2], v = x[1].vel[0];
        if (t < t_hinge - dt)
            accel_err = fmax(accel_err, fabs(om - MOT_TORQUE / I * t) / MOT_SPEED);
        else if (t > t_hinge + dt)
            hold_err = fmax(hold_err, fabs(om - MOT_SPEED) / MOT_SPEED);
        if (t < t_slider - dt)
            s_accel_err = fmax(s_accel_err, fabs(v - 2.0 / 4.0 * t) / (0.1 * MOT_SPEED));
        else if (t > t_slider + dt)
            s_hold_err = fmax(s_hold_err, fabs(v - 0.1 * MOT_SPEED) / (0.1 * MOT_SPEED));
    }
    tpDestroyWorld(w);
    check(c, accel_err <= 1e-3,
          "hinge motor: spins up at max torque / I = %.1f rad/s^2 (largest error %.1e of the target)", MOT_TORQUE / I,
          accel_err);
    check(c, hold_err <= 1e-6, "hinge motor: holds %.1f rad/s after %.3f s (largest error %.1e, limit 1e-6)", MOT_SPEED,
          t_hinge, hold_err);
    check(c, s_accel_err <= 1e-3, "slider motor: accelerates at max force / m = 0.5 m/s^2 (largest error %.1e)",
          s_accel_err);
    check(c, s_hold_err <= 1e-6, "slider motor: holds %.2f m/s after %.3f s (largest error %.1e, limit 1e-6)",
          0.1 * MOT_SPEED, t_slider, s_hold_err);
}
CASE(jointMotor)

/* ------------------------------------------------------------------------------------------ */
/* Springs                                                                                     */

#define SPR_K 10.0   /* N/m and N m/rad */
#define SPR_M 1.0    /* kg; the hinge's bar has I = 1 kg m^2 too */
#define SPR_TOL 0.01 /* the brief: within 1 % */

/* Period of a spring on a slider (angular false: x displacement) or a hinge about z (angular: a
 * bar whose inertia about z is SPR_M kg m^2), damping c; decay: the amplitude's decay rate (1/s)
 * from the first to the last peak. */
static double springPeriod(tpSolverKind solver, bool angular, double damping, double *decay)
{
    JScene j;
    jInit(&j, solver);
    j.s.def.gravity[2] = 0.0;
    tpBodyDef *b;
    if (angular) {
        /* a box with I_zz = m (x^2 + y^2) / 12 = 1 kg m^2 */
        b = addBox(&j.s, "bar", sqrt(12.0 - 0.01), 0.1, 0.1, SPR_M, 0, 0, 0);
    } else {
        b = addBox(&j.s, "mass", 0.1, 0.1, 0.1, SPR_M, 0, 0, 0);
    }
    (void)b;
    tpJointDef *jd = jAdd(&j, angular ? TP_JOINT_HINGE : TP_JOINT_SLIDER, 0, -1);
    if (!angular)
        jd->axis[0] = 1, jd->axis[1] = 0, jd->axis[2] = 0;
    jd->axes[0].stiffness = SPR_K;
    jd->axes[0].damping = damping;
    jd->axes[0].rest = angular ? -0.3 : -0.1; /* released 0.3 rad / 0.1 m from rest */
    tpWorld *w = mustCreate(&j.s);
    tpBodyState x[1];
    tpWorld_InitialState(w, x);
    const double dt = j.s.def.dt;
    Crossings cr = {0};
    double peak_t[64], peak_a[64], prev = 0.0, prev2 = 0.0;
    int npeak = 0;
    for (int i = 0; i < (int)(12.0 / dt); i++) {
        assert_true(simStep(w, x, i, NULL));
        double p;
        assert_true(tpWorld_JointPosition(w, 0, 0, &p, NULL));
        const double u = p - jd->axes[0].rest;
        crossAdd(&cr, (i + 1) * dt, u, dt);
        if (i >= 2 && prev > prev2 && prev >= u && npeak < 64) {
            peak_t[npeak] = i * dt;
            peak_a[npeak++] = prev;
        }
        prev2 = prev;
        prev = u;
    }
    tpDestroyWorld(w);
    *decay = npeak >= 2 ? log(peak_a[0] / peak_a[npeak - 1]) / (peak_t[npeak - 1] - peak_t[0]) : 0.0;
    return crossPeriod(&cr);
}

static void jointSpring(tpSolverKind solver, Checks *c)
{
    for (int angular = 0; angular < 2; angular++) {
        for (int damped = 0; damped < 2; damped++) {
            const double cdamp = damped ? 0.2 : 0.0;
            double decay;
            const double T = springPeriod(solver, angular, cdamp, &decay);
            const double om = sqrt(SPR_K / SPR_M - (cdamp / (2 * SPR_M)) * (cdamp / (2 * SPR_M)));
            const double f = T > 0 ? 2.0 * PI / T : 0.0, rel = fabs(f - om) / om;
            check(c, rel <= SPR_TOL,
                  "%s spring k %g c %g: %.4f rad/s vs sqrt(k/m - (c/2m)^2) = %.4f (%.2f %%, limit %.0f %%); amplitude "
                  "decays at %.3f /s (c/2m = %.3f /s; the implicit spring adds about w^2 dt / 2 = %.3f)",
                  angular ? "hinge" : "slider", SPR_K, cdamp, f, om, 100.0 * rel, 100.0 * SPR_TOL, decay,
                  cdamp / (2 * SPR_M), SPR_K / SPR_M * (1.0 / 60.0) / 2.0);
        }
    }
}
CASE(jointSpring)

/* ------------------------------------------------------------------------------------------ */
/* The other kinds hold                                                                        */

/* Largest distance (m) between point p0 (body frame of a) carried by state sa and p1 carried by sb. */
static void bodyPoint(const tpBodyState *s, const double local[3], double out[3])
{
    const double *q = s->quat;
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                         2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                         2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    for (int i = 0; i < 3; i++)
        out[i] = s->pos[i] + R[3 * i] * local[0] + R[3 * i + 1] * local[1] + R[3 * i + 2] * local[2];
}

static double dist3(const double a[3], const double b[3])
{
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static void jointKinds(tpSolverKind solver, Checks *c)
{
    JScene j;
    jInit(&j, solver);
    /* 0, 1: two boxes glued by a fixed joint, falling and tumbling (spun at the start) */
    tpBodyDef *f0 = addBox(&j.s, "glued0", 0.2, 0.2, 0.2, 1.0, 0, 0, 5);
    f0->angvel[0] = 2.0, f0->angvel[2] = 1.0;
    addBox(&j.s, "glued1", 0.2, 0.2, 0.2, 1.0, 0.2, 0, 5);
    jAdd(&j, TP_JOINT_FIXED, 0, 1);
    /* 2: a bar hanging from a universal joint at (3, 0, 2), pushed sideways: it swings about x and y
       but never twists about its own length */
    tpBodyDef *u = addBox(&j.s, "ubar", 0.05, 0.05, 1.0, 1.0, 3, 0, 1.5);
    u->angvel[0] = 1.0, u->angvel[1] = 0.6; /* about the anchor: v = w x (centre - anchor) */
    u->vel[0] = -0.3, u->vel[1] = 0.5;
    tpJointDef *uj = jAdd(&j, TP_JOINT_UNIVERSAL, 2, -1);
    uj->anchor[0] = 3, uj->anchor[2] = 2;
    uj->axis[0] = 1, uj->axis[1] = 0, uj->axis[2] = 0;
    uj->axis2[0] = 0, uj->axis2[1] = 1, uj->axis2[2] = 0;
    /* 3, 4: a hinge2 wheel on a chassis hinged to a static post: the motor spins the wheel, the
       steering is locked (limit 0, 0) */
    tpBodyDef *post = sceneAdd(&j.s, "post", TP_BODY_STATIC, TP_SHAPE_BOX);
    post->size[0] = post->size[1] = post->size[2] = 0.1;
    post->pos[0] = -3, post->pos[1] = 0.3, post->pos[2] = 1.2; /* beside the pin: nothing swings into it */
    tpBodyDef *ch = addBox(&j.s, "chassis", 0.4, 0.2, 0.1, 2.0, -3, 0, 1.2);
    (void)ch;
    tpBodyDef *wh = sceneAdd(&j.s, "wheel", TP_BODY_PASSIVE, TP_SHAPE_CYLINDER);
    wh->size[0] = 0.1, wh->size[1] = 0.05, wh->mass = 0.5;
    wh->pos[0] = -2.7, wh->pos[2] = 1.2;
    /* the cylinder's axis (local z) along world y */
    wh->quat[0] = cos(PI / 4), wh->quat[1] = sin(PI / 4), wh->quat[2] = 0, wh->quat[3] = 0;
    tpJointDef *hc = jAdd(&j, TP_JOINT_HINGE, 4, 3); /* chassis on the static post: pitches about y */
    hc->anchor[0] = -3, hc->anchor[2] = 1.2;
    hc->axis[0] = 0, hc->axis[1] = 1, hc->axis[2] = 0;
    tpJointDef *h2 = jAdd(&j, TP_JOINT_HINGE2, 4, 5);
    h2->anchor[0] = -2.7, h2->anchor[2] = 1.2;
    h2->axis[0] = 0, h2->axis[1] = 0, h2->axis[2] = 1;
    h2->axis2[0] = 0, h2->axis2[1] = 1, h2->axis2[2] = 0;
    h2->axes[0].limit = true; /* steering locked */
    h2->axes[1].motor = true;
    h2->axes[1].speed = 10.0;
    h2->axes[1].max_force = 1.0;
    /* 6, 7: a box glued by a fixed joint to a scripted arm turning about z at 1 rad/s: it rides along */
    tpBodyDef *arm = sceneAdd(&j.s, "arm", TP_BODY_FOREIGN, TP_SHAPE_BOX);
    arm->size[0] = arm->size[1] = arm->size[2] = 0.1;
    arm->pos[1] = 6, arm->pos[2] = 1;
    arm->motion.kind = TP_MOTION_ROTATE;
    arm->motion.rate = 1.0;
    addBox(&j.s, "rider", 0.1, 0.1, 0.1, 1.0, 0.5, 6, 1);
    jAdd(&j, TP_JOINT_FIXED, 7, 6);
    tpWorld *w = mustCreate(&j.s);
    assert_int_equal(tpWorld_StateCount(w), 6);
    tpBodyState x[6];
    tpWorld_InitialState(w, x);
    const double dt = j.s.def.dt;
    double ride = 0.0, fixed_err = 0.0, twist = 0.0, uanchor = 0.0, steer = 0.0, hinge_pin = 0.0, spin = 0.0;
    const double local1[3] = {0.2, 0, 0}, zero[3] = {0, 0, 0}, utop[3] = {0, 0, 0.5}, chpin[3] = {0, 0, 0};
    const double ch_wheel[3] = {0.3, 0, 0};
    for (int i = 0; i < (int)(2.0 / dt); i++) {
        assert_true(simStep(w, x, i, NULL));
        /* fixed: glued1's centre stays where glued0's frame puts it */
        double p[3], q[3];
        bodyPoint(&x[0], local1, p);
        bodyPoint(&x[1], zero, q);
        fixed_err = fmax(fixed_err, dist3(p, q));
        /* universal: the bar's top stays at the anchor; its twist rate about its own axis stays 0 */
        bodyPoint(&x[2], utop, p);
        const double anchor[3] = {3, 0, 2};
        uanchor = fmax(uanchor, dist3(p, anchor));
        /* what a universal joint holds: axis1 (x on the bar) stays perpendicular to axis2 (world y) */
        double a1[3], o[3] = {1, 0, 0};
        bodyPoint(&x[2], o, a1);
        twist = fmax(twist, fabs(a1[1] - x[2].pos[1]));
        /* hinge to a static body: the chassis' pin stays at the post's anchor */
        bodyPoint(&x[3], chpin, p);
        const double pin[3] = {-3, 0, 1.2};
        hinge_pin = fmax(hinge_pin, dist3(p, pin) - 0.0);
        /* hinge2: the wheel's centre stays at the chassis' anchor point */
        bodyPoint(&x[3], ch_wheel, p);
        bodyPoint(&x[4], zero, q);
        steer = fmax(steer, dist3(p, q));
        double a2, r2;
        tpWorld_JointPosition(w, 3, 1, &a2, &r2);
        spin = r2;
        /* the rider stays 0.5 m out along the arm's x axis, wherever the arm has turned */
        tpBodyState as;
        tpWorld_BodyState(w, x, (i + 1) * dt, 6, &as);
        const double out[3] = {0.5, 0, 0};
        bodyPoint(&as, out, p);
        ride = fmax(ride, dist3(p, x[5].pos));
    }
    tpDestroyWorld(w);
    check(c, ride <= 1e-3, "fixed to a scripted arm: the rider stays %.2e m from its place on it over 2 s (limit 1e-3)",
          ride);
    check(c, fixed_err <= 1e-3, "fixed: the glued box stays %.2e m from its place on the other (limit 1e-3)",
          fixed_err);
    check(c, uanchor <= 1e-3, "universal: the bar's top stays %.2e m from the anchor (limit 1e-3)", uanchor);
    check(c, twist <= 1e-3, "universal: its axes stay perpendicular within cos = %.2e (limit 1e-3)", twist);
    check(c, hinge_pin <= 1e-3, "hinge to a static body: the pin stays %.2e m from the anchor (limit 1e-3)", hinge_pin);
    /* ODE's hinge2 lets the wheel wander off a chassis that swings this hard (3 rad/s): plain ODE
       (dWorldStep, the same scene and parameters) separates the anchors by about 6 mm too (6.2 mm
       at every 20th step) */
    check(c, steer <= 1e-2,
          "hinge2: the wheel stays %.2e m from its anchor on the swinging chassis (limit 1e-2; plain ODE: about 6e-3)",
          steer);
    check(c, fabs(spin - 10.0) <= 1e-3, "hinge2: the spin motor turns the wheel at %.4f rad/s (target 10)", spin);
}
CASE(jointKinds)

/* ------------------------------------------------------------------------------------------ */
/* A jointed group sleeps and wakes together                                                    */

static void jointGroup(tpSolverKind solver, Checks *c)
{
    JScene j;
    jInit(&j, solver);
    /* two links hanging straight down from (0, 0, 2), at rest; a ball falls on the lower one's end
       at t = 1 s (released from a height) */
    addBox(&j.s, "link0", 0.05, 0.05, 0.5, 1.0, 0, 0, 1.75);
    addBox(&j.s, "link1", 0.05, 0.05, 0.5, 1.0, 0, 0, 1.25);
    tpBodyDef *ball = addSphere(&j.s, "ball", 0.05, 0.5, 0.02, 0, 1.0 + 0.05 + 0.5 * G * 1.0 * 1.0 + 0.02);
    (void)ball;
    tpJointDef *j0 = jAdd(&j, TP_JOINT_HINGE, 0, -1);
    j0->anchor[2] = 2;
    j0->axis[0] = 0, j0->axis[1] = 1, j0->axis[2] = 0;
    tpJointDef *j1 = jAdd(&j, TP_JOINT_HINGE, 1, 0);
    j1->anchor[2] = 1.5;
    j1->axis[0] = 0, j1->axis[1] = 1, j1->axis[2] = 0;
    tpWorld *w = mustCreate(&j.s);
    tpBodyState x[3];
    uint8_t rest[3] = {0, 0, 0};
    tpWorld_InitialState(w, x);
    const double dt = j.s.def.dt;
    const int rs = tpWorld_RestSteps(w);
    int apart = 0, slept = -1, woke = -1;
    double still_drift = 0.0, swing = 0.0;
    tpBodyState at_sleep[2];
    for (int i = 0; i < (int)(3.0 / dt); i++) {
        bool ok = g_sleep ? tpWorld_StepRest(w, x, rest, i * dt, NULL, x, rest) : tpWorld_Step(w, x, i * dt, NULL, x);
        assert_true(ok);
        if (!g_sleep)
            continue;
        if ((rest[0] >= rs) != (rest[1] >= rs))
            apart++;
        if (slept < 0 && rest[0] >= rs && rest[1] >= rs) {
            slept = i;
            at_sleep[0] = x[0], at_sleep[1] = x[1];
        }
        if (slept >= 0 && woke < 0) {
            if (rest[0] < rs || rest[1] < rs)
                woke = i;
            else
                for (int k = 0; k < 2; k++)
                    still_drift = fmax(still_drift, memcmp(&x[k], &at_sleep[k], sizeof x[k]) != 0 ? 1.0 : 0.0);
        }
        if (woke >= 0)
            swing = fmax(swing, fabs(x[0].angvel[1]));
    }
    tpDestroyWorld(w);
    if (!g_sleep) {
        check(c, true, "(no sleeping: run with --sleep for the group checks)");
        return;
    }
    check(c, apart == 0, "the two links' rest counts reach the sleep count together (%d steps apart)", apart);
    check(c, slept >= 0 && slept * dt < 1.0, "the hanging chain falls asleep (at %.3f s)", slept * dt);
    check(c, still_drift == 0.0, "asleep, both links stay bit for bit where they were");
    check(c, woke >= 0 && woke * dt > 0.8, "the ball's hit wakes the chain (at %.3f s)", woke * dt);
    check(c, swing > 0.01, "the upper link, touched by nothing, woke with the lower: it swings at up to %.3f rad/s",
          swing);
}
CASE(jointGroup)

/* ------------------------------------------------------------------------------------------ */
/* Purity: a chain of Sim calls does not depend on what happened in between                     */

static void buildPurity(JScene *j, tpSolverKind solver)
{
    jInit(j, solver);
    addFloor(&j->s, NULL);
    /* the weight's impact throws the ball off the plank 5.5 mm deep at one substep (step, seed of
       this scene); the depth is not what this case is about */
    j->s.def.max_body_penetration = 0.0;
    /* a seesaw: a plank hinged to a static fulcrum at its middle, a weight dropped on one end, a
       ball resting on the other; a motor-driven wheel and a spring slider beside it */
    tpBodyDef *ful = sceneAdd(&j->s, "fulcrum", TP_BODY_STATIC, TP_SHAPE_BOX);
    ful->size[0] = ful->size[1] = 0.1, ful->size[2] = 0.3;
    ful->pos[2] = 0.15;
    addBox(&j->s, "plank", 1.2, 0.2, 0.04, 1.0, 0, 0, 0.32);
    addBox(&j->s, "weight", 0.15, 0.15, 0.15, 3.0, -0.5, 0, 1.2);
    addSphere(&j->s, "ball", 0.05, 0.1, 0.5, 0, 0.39);
    tpBodyDef *wheel = sceneAdd(&j->s, "wheel", TP_BODY_PASSIVE, TP_SHAPE_CYLINDER);
    wheel->size[0] = 0.1, wheel->size[1] = 0.05, wheel->pos[0] = 2, wheel->pos[2] = 1;
    addBox(&j->s, "slider", 0.1, 0.1, 0.1, 1.0, -2, 0, 1);
    tpJointDef *h = jAdd(j, TP_JOINT_HINGE, 2, 1); /* plank on the fulcrum */
    h->anchor[2] = 0.32;
    h->axis[0] = 0, h->axis[1] = 1, h->axis[2] = 0;
    h->axes[0].limit = true, h->axes[0].lo = -0.5, h->axes[0].hi = 0.5;
    tpJointDef *m = jAdd(j, TP_JOINT_HINGE, 5, -1);
    m->anchor[0] = 2, m->anchor[2] = 1;
    m->axes[0].motor = true, m->axes[0].speed = 3, m->axes[0].max_force = 0.01;
    tpJointDef *s = jAdd(j, TP_JOINT_SLIDER, 6, -1);
    s->axes[0].stiffness = 50, s->axes[0].damping = 0.5, s->axes[0].rest = 0.2;
}

static void jointPurity(tpSolverKind solver, Checks *c)
{
    JScene j;
    buildPurity(&j, solver);
    tpWorld *w = mustCreate(&j.s);
    const int n = tpWorld_StateCount(w);
    assert_int_equal(n, 5);
    tpBodyState x0[5], a[5], b[5], other[5];
    uint8_t ra[5] = {0}, rb[5] = {0}, ro[5] = {0};
    tpWorld_InitialState(w, x0);
    memcpy(a, x0, sizeof a);
    memcpy(b, x0, sizeof b);
    memcpy(other, x0, sizeof other);
    const double dt = j.s.def.dt;
    unsigned char *snap = malloc(tpWorld_SnapshotSize(w));
    assert_non_null(snap);
    int differ = -1;
    const int steps = 150;
    /* chain a alone */
    for (int i = 0; i < steps; i++) {
        const bool ok = tpWorld_StepRest(w, a, ra, i * dt, NULL, a, ra);
        if (!ok) {
            const tpStepFailure *f = tpWorld_LastFailure(w);
            fprintf(stderr, "step %d failed: kind %d bodies %d %d value %g limit %g\n", i, (int)f->kind, f->a, f->b,
                    f->value, f->limit);
        }
        assert_true(ok);
    }
    /* chain b, with an unrelated chain (other, a step ahead, with a snapshot and a restore) between
       each of its steps */
    for (int i = 0; i < steps; i++) {
        tpWorld_Snapshot(w, snap);
        tpWorld_StepRest(w, other, ro, (i + 1) * dt, NULL, other, ro);
        tpWorld_StepRest(w, other, ro, (i + 2) * dt, NULL, other, ro);
        tpWorld_Restore(w, snap);
        assert_true(tpWorld_StepRest(w, b, rb, i * dt, NULL, b, rb));
    }
    if (memcmp(a, b, sizeof a) != 0 || memcmp(ra, rb, sizeof ra) != 0)
        differ = 1;
    /* the weight's drop moved the plank and threw the ball (the scene is not trivially still) */
    const double ball_z = a[2].pos[2];
    tpDestroyWorld(w);
    free(snap);
    check(c, differ < 0, "the jointed scene's %d-step chain is bit-identical with other steps and restores between",
          steps);
    check(c, fabs(ball_z - 0.39) > 0.01, "the seesaw moved: the ball is at z = %.3f m (from 0.39)", ball_z);
}
CASE(jointPurity)

/* ------------------------------------------------------------------------------------------ */
/* Bad definitions                                                                             */

static void expectError(Checks *c, const JScene *j, const char *what, const char *needle)
{
    char err[512] = "";
    tpWorld *w = tpCreateWorld(&j->s.def, err, sizeof err);
    check(c, w == NULL && strstr(err, needle) != NULL, "%s: \"%s\" (must name '%s')", what, err, needle);
    tpDestroyWorld(w);
}

static void jointErrors(tpSolverKind solver, Checks *c)
{
    JScene j;
    jInit(&j, solver);
    addFloor(&j.s, NULL);
    addBox(&j.s, "box", 0.1, 0.1, 0.1, 1, 0, 0, 1);
    tpJointDef *jd = jAdd(&j, TP_JOINT_HINGE, 1, -1);
    tpStrCopy(jd->name, TP_NAME_MAX, "pin");
    const tpJointDef good = *jd;
    jd->body_b = 7;
    expectError(c, &j, "unknown body", "body_b");
    *jd = good, jd->body_b = 1;
    expectError(c, &j, "itself", "itself");
    *jd = good, jd->body_a = 0;
    expectError(c, &j, "static first body", "static");
    *jd = good, jd->axis[0] = jd->axis[1] = jd->axis[2] = 0;
    expectError(c, &j, "zero axis", "axis must not be zero");
    *jd = good, jd->axes[0].limit = true, jd->axes[0].lo = 0.5, jd->axes[0].hi = -0.5;
    expectError(c, &j, "limits out of order", "limit: lo = 0.5 is above hi");
    *jd = good, jd->axes[0].stiffness = -1;
    expectError(c, &j, "negative stiffness", "stiffness");
    *jd = good, jd->kind = TP_JOINT_BALL, jd->axes[0].motor = true, jd->axes[0].max_force = 1;
    expectError(c, &j, "motor on a ball", "a ball joint has no motor");
    *jd = good, jd->axes[0].motor = true, jd->axes[0].max_force = 0;
    expectError(c, &j, "motor without force", "motor.max_force");
    *jd = good;
    tpJointDef *dup = jAdd(&j, TP_JOINT_SLIDER, 1, -1);
    tpStrCopy(dup->name, TP_NAME_MAX, "pin");
    expectError(c, &j, "duplicate name", "joint \"pin\" (slider): duplicate name (also joint #0)");
    j.s.def.njoints--;
    /* a joint whose only moving body is scripted (the physics moves neither) */
    tpBodyDef *crank = sceneAdd(&j.s, "crank", TP_BODY_FOREIGN, TP_SHAPE_BOX);
    crank->size[0] = crank->size[1] = crank->size[2] = 0.1;
    crank->pos[0] = 3, crank->pos[2] = 1;
    crank->motion.kind = TP_MOTION_ROTATE;
    crank->motion.rate = 1.0;
    tpJointDef *cj = jAdd(&j, TP_JOINT_HINGE, 2, -1);
    cj->axes[0].motor = true, cj->axes[0].speed = 1, cj->axes[0].max_force = 1;
    expectError(c, &j, "a motor on a joint that moves no dynamic body",
                "bodies: neither \"crank\" nor the world is dynamic (a joint needs a body the physics moves)");
    j.s.def.njoints--;
    j.s.def.nbodies--;
    /* two bodies welded by a fixed joint take no second joint */
    addBox(&j.s, "lid", 0.1, 0.1, 0.02, 0.2, 0, 0, 1.06);
    tpJointDef *weld = jAdd(&j, TP_JOINT_FIXED, 1, 2);
    tpStrCopy(weld->name, TP_NAME_MAX, "glue");
    tpJointDef *hinge = jAdd(&j, TP_JOINT_HINGE, 2, 1);
    tpStrCopy(hinge->name, TP_NAME_MAX, "lidhinge");
    hinge->anchor[2] = 1.05;
    expectError(c, &j, "a joint between welded bodies",
                "joint \"lidhinge\" (hinge): bodies: \"lid\" and \"box\" are already welded by joint \"glue\" (fixed)");
    j.s.def.njoints -= 2;
    j.s.def.nbodies--;
    char err[256] = "";
    tpWorld *w = tpCreateWorld(&j.s.def, err, sizeof err);
    check(c, w != NULL && tpWorld_FindJoint(w, "pin") == 0, "the good joint loads (%s)", err[0] ? err : "no error");
    tpDestroyWorld(w);
}
CASE(jointErrors)

/* ------------------------------------------------------------------------------------------ */
/* Driven motors: the target speed is part of the action                                       */

#define DRV_MAX 10.0 /* rad/s: the hinge motor's max_speed */

/* The target of step i: a new speed every step, sign changes included, one beyond max_speed. */
static double drivenTarget(int i)
{
    return i == 40 ? 3.0 * DRV_MAX : 8.0 * sin(0.37 * i) + 1.0;
}

static void jointDriven(tpSolverKind solver, Checks *c)
{
    JScene j;
    jInit(&j, solver);
    j.s.def.gravity[2] = 0.0;
    /* a wheel on a hinge (z) and a cart on a slider (x), both motors driven; a strong motor
       (max_force far above what one step needs) makes the commanded speed exactly in a step */
    tpBodyDef *wheel = sceneAdd(&j.s, "wheel", TP_BODY_PASSIVE, TP_SHAPE_CYLINDER);
    wheel->size[0] = 0.2, wheel->size[1] = 0.05, wheel->mass = 2.0;
    tpJointDef *h = jAdd(&j, TP_JOINT_HINGE, 0, -1);
    tpStrCopy(h->name, TP_NAME_MAX, "axle");
    h->axes[0].motor = h->axes[0].driven = true;
    h->axes[0].max_force = 1e4;
    h->axes[0].max_speed = DRV_MAX;
    addBox(&j.s, "cart", 0.2, 0.2, 0.2, 4.0, 0, 5, 0);
    tpJointDef *sl = jAdd(&j, TP_JOINT_SLIDER, 1, -1);
    tpStrCopy(sl->name, TP_NAME_MAX, "rail");
    sl->axis[0] = 1, sl->axis[1] = 0, sl->axis[2] = 0;
    sl->axes[0].motor = sl->axes[0].driven = true;
    sl->axes[0].max_force = 1e4;
    /* a bar on a universal joint, far from both, its second axis's motor driven (motor2) */
    addBox(&j.s, "bar", 0.4, 0.05, 0.05, 1.0, 0, -5, 0);
    tpJointDef *u = jAdd(&j, TP_JOINT_UNIVERSAL, 2, -1);
    tpStrCopy(u->name, TP_NAME_MAX, "cross");
    u->anchor[1] = -5.0;
    u->axis[0] = 1, u->axis[1] = 0, u->axis[2] = 0;
    u->axis2[0] = 0, u->axis2[1] = 0, u->axis2[2] = 1;
    u->axes[1].motor = u->axes[1].driven = true;
    u->axes[1].max_force = 1e4;
    tpWorld *w = mustCreate(&j.s);
    check(c,
          tpWorld_MotorCount(w) == 3 && tpWorld_ActionCount(w) == 3 && tpWorld_MotorSlot(w, 0, 0) == 0 &&
              tpWorld_MotorSlot(w, 1, 0) == 1 && tpWorld_MotorSlot(w, 2, 1) == 2 && tpWorld_MotorSlot(w, 2, 0) == -1 &&
              tpWorld_MotorSlot(w, 0, 1) == -1 && tpWorld_MotorMaxSpeed(w, 0) == DRV_MAX &&
              tpWorld_MotorMaxSpeed(w, 1) == TP_MAX_SPEED,
          "three motor slots after no force slots (count %d, action %d doubles)", tpWorld_MotorCount(w),
          tpWorld_ActionCount(w));
    tpBodyState x[3], x0[3], mid[3];
    tpWorld_InitialState(w, x);
    memcpy(x0, x, sizeof x);
    const int n = 120;
    double err_h = 0.0, err_s = 0.0, err_u = 0.0, clamped = 0.0;
    double a[3];
    for (int i = 0; i < n; i++) {
        a[0] = drivenTarget(i);
        a[1] = 0.25 * drivenTarget(i + 7);
        a[2] = 0.5 * drivenTarget(i + 3);
        assert_true(simStepAct(w, x, i, a, NULL));
        double rate = 0.0, srate = 0.0, urate = 0.0;
        tpWorld_JointPosition(w, 0, 0, NULL, &rate);
        tpWorld_JointPosition(w, 1, 0, NULL, &srate);
        tpWorld_JointPosition(w, 2, 1, NULL, &urate);
        err_u = fmax(err_u, fabs(urate - a[2]));
        const double want = fmin(fmax(a[0], -DRV_MAX), DRV_MAX);
        if (i == 40)
            clamped = rate;
        else
            err_h = fmax(err_h, fabs(rate - want));
        err_s = fmax(err_s, fabs(srate - a[1]));
        if (i == n / 2 - 1)
            memcpy(mid, x, sizeof x);
    }
    check(c, err_h <= 1e-9, "hinge: the joint turns at each step's commanded speed (largest error %.1e rad/s)", err_h);
    check(c, err_s <= 1e-9, "slider: the cart moves at each step's commanded speed (largest error %.1e m/s)", err_s);
    check(c, err_u <= 1e-9,
          "universal, axis 2: the bar turns at each step's commanded speed (largest error %.1e rad/s)", err_u);
    check(c, fabs(clamped - DRV_MAX) <= 1e-9, "a target of %g rad/s is clamped to max_speed %g (turned at %.9g)",
          3.0 * DRV_MAX, DRV_MAX, clamped);
    /* the same chain again from step n/2, after unrelated steps: bit for bit */
    tpBodyState y[3], junk[3];
    memcpy(junk, x0, sizeof junk);
    const double other[3] = {-7.0, 3.0, 1.0};
    assert_true(tpWorld_Step(w, junk, 0.0, other, junk));
    memcpy(y, mid, sizeof y);
    for (int i = n / 2; i < n; i++) {
        a[0] = drivenTarget(i);
        a[1] = 0.25 * drivenTarget(i + 7);
        a[2] = 0.5 * drivenTarget(i + 3);
        assert_true(tpWorld_Step(w, y, i * j.s.def.dt, a, y));
    }
    check(c, g_sleep || memcmp(x, y, sizeof x) == 0, "replayed from the middle, the states are bit-identical");
    /* a target beyond the kind's range is refused, naming the joint's index and axis */
    a[0] = 2.0 * TP_MAX_ANGVEL, a[1] = a[2] = 0.0;
    const bool stepped = tpWorld_Step(w, x, 0.0, a, x);
    const tpStepFailure *f = tpWorld_LastFailure(w);
    check(c,
          !stepped && f->kind == TP_STEP_BAD_ACTION && f->what == TP_STEP_VALUE_MOTOR && f->joint == 0 &&
              f->axis == 0 && f->a == 0,
          "a target of %g rad/s is refused (kind %d, what %d, joint %d)", a[0], (int)f->kind, (int)f->what, f->joint);
    a[0] = NAN;
    check(c, !tpWorld_Step(w, x, 0.0, a, x) && tpWorld_LastFailure(w)->what == TP_STEP_VALUE_MOTOR,
          "a NaN target is refused");
    tpDestroyWorld(w);
    /* bad driven definitions name the joint and the field */
    tpJointDef good = *h;
    h->name[0] = '\0';
    expectError(c, &j, "driven without a name", "needs a name");
    *h = good, h->axes[0].motor = false;
    expectError(c, &j, "driven without a motor", "motor.driven: the axis has no motor");
    *h = good, h->axes[0].max_speed = -1.0;
    expectError(c, &j, "negative max_speed", "joint \"axle\" (hinge): motor.max_speed");
    *h = good, h->axes[0].speed = 2.0 * DRV_MAX;
    expectError(c, &j, "speed above max_speed", "motor.speed = 20 is beyond its max_speed 10");
}
CASE(jointDriven)

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CASE_TESTS(jointPendulum), CASE_TESTS(jointLimit),  CASE_TESTS(jointMotor),
        CASE_TESTS(jointSpring),   CASE_TESTS(jointKinds),  CASE_TESTS(jointGroup),
        CASE_TESTS(jointPurity),   CASE_TESTS(jointErrors), CASE_TESTS(jointDriven),
    };
    return runCases(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
