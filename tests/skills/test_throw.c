/* Passive direction: throw's exact release and free flight, the aimed throw, the
 * delayed release, nudge's budget, and the bad-input messages. Each figure is checked against a
 * closed form that does not depend on the code under test: the physics' semi-implicit Euler in
 * free flight (one substep: v_n = v_s + (n - 1) g dt, p_n = p_r + n dt v_s + g dt² n (n - 1) / 2
 * after the release step from p_r; the same per substep with S of them) and, for the spin, the angular momentum I(q_r)
 * w_s that free flight keeps. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "skill_world.h"
#include "tp/mathx.h"

static tpBodyDef free_body(const char *name, tpShapeKind shape, double x, double z)
{
    tpBodyDef b = sw_robot(name, x, 0);
    b.shape = shape;
    b.size[0] = 0.1;
    b.size[1] = 0.2;
    b.size[2] = 0.3;
    b.mass = 0.5;
    b.pos[2] = z;
    b.max_force = 0.0; /* a prop: unlimited */
    b.max_torque = 0.0;
    b.planar_force = false;
    return b;
}

static double dist3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* L = R I_b R^T w for the body at quaternion q. */
static void momentum(const tpWorld *world, int body, const double q[4], const double wv[3], double L[3])
{
    double ib[9], r[9], a[3] = {0, 0, 0}, c[3] = {0, 0, 0};
    assert_true(tpWorld_BodyInertia(world, body, ib));
    tpQuat_ToMatrix(q, r);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            a[i] += r[3 * k + i] * wv[k];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            c[i] += ib[3 * i + k] * a[k];
    for (int i = 0; i < 3; i++) {
        L[i] = 0.0;
        for (int k = 0; k < 3; k++)
            L[i] += r[3 * i + k] * c[k];
    }
}

static tpDist vec3(double x, double y, double z)
{
    tpDist d = tpDist_Const(x);
    d.dim = 3;
    d.a[1] = y;
    d.a[2] = z;
    return d;
}

/* The release step gives exactly the sampled velocity (sphere: and angular velocity; box: the
 * angular momentum I(q_r) w_s), then no force acts and the flight follows the closed form, with
 * 1 and 4 substeps. */
static void test_throw_exact_release(void **state)
{
    (void)state;
    double worst_v0 = 0.0, worst_w0 = 0.0, worst_p = 0.0, worst_v = 0.0;
    for (int sub = 1; sub <= 4; sub += 3) {
        for (int shape = 0; shape < 2; shape++) {
            SkWorld w;
            sw_init(&w, 0.5);
            w.scene.substeps = sub;
            int b = sw_add(&w, free_body("prop", shape == 0 ? TP_SHAPE_SPHERE : TP_SHAPE_BOX, 0, 3.0));
            w.bodies[b].angvel[0] = 0.7; /* spinning and falling before the throw: all of it is replaced */
            w.bodies[b].vel[1] = -0.4;
            if (shape == 0)
                w.bodies[b].size[0] = 0.05;
            sw_start(&w);
            tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_THROW);
            sk.body = b;
            sk.throw_.velocity = vec3(1.25, -0.5, 3.0);
            sk.throw_.angular_velocity = vec3(0.5, 2.0, 5.0);
            char err[512] = "";
            assert_true(tpSkill_Validate(&sk, w.world, err, sizeof err));
            const double vs[3] = {1.25, -0.5, 3.0}, ws[3] = {0.5, 2.0, 5.0};
            const tpBodyState s0 = *sw_body(&w, b);
            assert_int_equal(sw_step(&w, &sk, true), 0); /* the release step ends the segment */
            const tpBodyState s1 = *sw_body(&w, b);
            const double dt = w.scene.dt, *g = w.scene.gravity;
            if (dist3(s1.vel, vs) > 1e-9)
                fail_msg("substeps %d shape %d: released at |v - v_s| = %.3g m/s", sub, shape, dist3(s1.vel, vs));
            double L1[3], Ls[3];
            momentum(w.world, b, s1.quat, s1.angvel, L1);
            momentum(w.world, b, s0.quat, ws, Ls);
            worst_v0 = fmax(worst_v0, dist3(s1.vel, vs));
            worst_w0 = fmax(worst_w0, shape == 0 ? dist3(s1.angvel, ws) : dist3(L1, Ls));
            if (shape == 0 ? dist3(s1.angvel, ws) > 1e-9 : dist3(L1, Ls) > 1e-9)
                fail_msg("substeps %d shape %d: |w - w_s| %.3g rad/s, |L - I(q_r) w_s| %.3g", sub, shape,
                         dist3(s1.angvel, ws), dist3(L1, Ls));
            /* free flight: no force; the closed form of the integrator from (p_r, v_s) */
            tpSkillDef wait = tpDefaultSkillDef(TP_SKILL_WAIT);
            wait.body = b;
            wait.wait.duration = tpDist_Const(10.0);
            for (int n = 2; n <= 40; n++) {
                sw_step(&w, &wait, n == 2);
                for (int c = 0; c < 6; c++)
                    assert_true(w.action[c] == 0.0);
                const tpBodyState *s = sw_body(&w, b);
                /* the release step ramps v0 -> v_s over its S substeps of h, then K free substeps */
                double p[3], v[3], h = dt / sub, K = (n - 1.0) * sub;
                for (int k = 0; k < 3; k++) {
                    double p1 = s0.pos[k] + dt * s0.vel[k] + dt * (vs[k] - s0.vel[k]) * (sub + 1.0) / (2.0 * sub);
                    v[k] = vs[k] + K * h * g[k];
                    p[k] = p1 + K * h * vs[k] + g[k] * h * h * K * (K + 1.0) / 2.0;
                }
                double L[3];
                momentum(w.world, b, s->quat, s->angvel, L);
                worst_p = fmax(worst_p, dist3(s->pos, p));
                worst_v = fmax(worst_v, dist3(s->vel, v));
                if (dist3(s->vel, v) > 1e-9 || dist3(s->pos, p) > 1e-9 || dist3(L, Ls) > 1e-9)
                    fail_msg("substeps %d shape %d step %d: |v - closed form| %.3g, |p - closed form| %.3g, "
                             "|L - L_s| %.3g",
                             sub, shape, n, dist3(s->vel, v), dist3(s->pos, p), dist3(L, Ls));
            }
            sw_free(&w);
        }
    }
    print_message("release: |v - v_s| %.3g m/s, |w - w_s| (sphere) or |L - I w_s| (box) %.3g; then 40 steps: "
                  "|p - closed form| %.3g m, |v - closed form| %.3g m/s\n",
                  worst_v0, worst_w0, worst_p, worst_v);
}

/* A box resting on the floor (settled there first) thrown up and away: the contact lets go, so the
 * release is exact as in the air. */
static void test_throw_from_rest(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.5);
    w.scene.substeps = 4;
    int b = sw_add(&w, free_body("prop", TP_SHAPE_BOX, 0, 0.15 + 1e-4));
    sw_start(&w);
    tpSkillDef wait = tpDefaultSkillDef(TP_SKILL_WAIT);
    wait.body = b;
    wait.wait.duration = tpDist_Const(10.0);
    for (int i = 0; i < 60; i++)
        sw_step(&w, &wait, i == 0);
    assert_true(fabs(sw_body(&w, b)->pos[2] - 0.15) < 0.005); /* resting on the floor */
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_THROW);
    sk.body = b;
    sk.throw_.velocity = vec3(0.8, 0.3, 2.5);
    assert_int_equal(sw_step(&w, &sk, true), 0);
    const double vs[3] = {0.8, 0.3, 2.5};
    if (dist3(sw_body(&w, b)->vel, vs) > 1e-9)
        fail_msg("thrown off the floor: |v - v_s| = %.3g m/s", dist3(sw_body(&w, b)->vel, vs));
    sw_free(&w);
}

/* An aimed throw lands the centre on the point after the flight time (whole steps), from where the
 * body is at a delayed release; before the release no force acts. */
static void test_throw_aimed_delayed(void **state)
{
    (void)state;
    for (int sub = 1; sub <= 4; sub += 3) {
        SkWorld w;
        sw_init(&w, 0.5);
        w.scene.substeps = sub;
        int b = sw_add(&w, free_body("prop", TP_SHAPE_BOX, 0, 2.0));
        sw_start(&w);
        tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_THROW);
        sk.body = b;
        sk.throw_.point = vec3(1.5, 0.25, 1.0);
        sk.throw_.flight_time = tpDist_Const(0.5);
        sk.throw_.at = tpDist_Const(0.25);
        int steps = 0;
        for (bool fresh = true;; fresh = false) {
            int r = sw_step(&w, &sk, fresh);
            steps++;
            bool acted = false;
            for (int c = 0; c < 6; c++)
                acted = acted || w.action[c] != 0.0;
            assert_true(acted == (r == 0)); /* force only in the release step */
            if (r == 0)
                break;
            assert_true(steps < 100);
        }
        assert_int_equal(steps, 16); /* at 0.25 s = 15 steps of 1/60 s: the 16th step releases */
        tpSkillDef wait = tpDefaultSkillDef(TP_SKILL_WAIT);
        wait.body = b;
        for (int n = 2; n <= 30; n++)
            sw_step(&w, &wait, n == 2);
        const double want[3] = {1.5, 0.25, 1.0};
        if (dist3(sw_body(&w, b)->pos, want) > 1e-9)
            fail_msg("substeps %d: aimed throw %.3g m off", sub, dist3(sw_body(&w, b)->pos, want));
        sw_free(&w);
    }
}

/* nudge: a ball thrown down and sideways onto the floor; the step after the bounce gets one force
 * whose impulse is within budget x the bounce's, then none. */
static void test_nudge_budget(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.3);
    tpBodyDef ball = free_body("ball", TP_SHAPE_SPHERE, 0, 0.3);
    ball.size[0] = 0.05;
    ball.vel[0] = 1.0;
    ball.vel[2] = -3.0;
    int b = sw_add(&w, ball);
    sw_start(&w);
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_NUDGE);
    sk.body = b;
    sk.nudge.turn = tpDist_Const(1.0); /* asks for 57 degrees: clamped to the 5 degree deflection */
    sk.nudge.budget = 0.1;
    char err[512] = "";
    assert_true(tpSkill_Validate(&sk, w.world, err, sizeof err));
    double prev[3];
    memcpy(prev, sw_body(&w, b)->vel, sizeof prev);
    double hit = 0.0;
    int nudged = 0;
    for (int i = 0; i < 120 && !nudged; i++) {
        double before[3];
        memcpy(before, sw_body(&w, b)->vel, sizeof before);
        int r = sw_step(&w, &sk, i == 0);
        double f = sqrt(w.action[0] * w.action[0] + w.action[1] * w.action[1] + w.action[2] * w.action[2]);
        if (r == 0) {
            nudged = i;
            /* the impulse is at most budget x the hit's (m |dv - g dt| of the step before) */
            assert_true(hit > 0.0);
            if (!(f * w.scene.dt <= 0.1 * ball.mass * hit * (1 + 1e-9) && f > 0.0))
                fail_msg("nudge impulse %.4g N s, the hit's %.4g N s", f * w.scene.dt, ball.mass * hit);
        } else {
            assert_true(f == 0.0);
        }
        const double *v = sw_body(&w, b)->vel;
        hit = sqrt((v[0] - before[0]) * (v[0] - before[0]) + (v[1] - before[1]) * (v[1] - before[1]) +
                   (v[2] - before[2] - w.scene.gravity[2] * w.scene.dt) *
                       (v[2] - before[2] - w.scene.gravity[2] * w.scene.dt));
    }
    assert_true(nudged > 0);
    sw_free(&w);
}

/* Bad input: one message naming the field. */
static void test_throw_bad_input(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.5);
    int prop = sw_add(&w, free_body("prop", TP_SHAPE_SPHERE, 0, 1.0));
    int robot = sw_add(&w, sw_robot("robot", 2, 0));
    sw_start(&w);
    struct {
        int kind, body;
        const char *want;
    } cases[] = {
        {0, robot, "max_force"},    {1, prop, "uniform bounds"}, {2, prop, "'velocity' replaces"},
        {3, prop, "'flight_time'"}, {4, prop, "budget"},         {5, prop, "'flight_time' must be > 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tpSkillDef sk = tpDefaultSkillDef(cases[i].kind == 4 ? TP_SKILL_NUDGE : TP_SKILL_THROW);
        sk.body = cases[i].body;
        sk.throw_.speed = tpDist_Const(1.0);
        if (cases[i].kind == 1)
            sk.throw_.speed = tpDist_Uniform(3.0, 2.0); /* min > max */
        if (cases[i].kind == 2)
            sk.throw_.velocity = vec3(1, 0, 0);
        if (cases[i].kind == 3)
            sk.throw_.flight_time = tpDist_Const(1.0); /* without a point */
        if (cases[i].kind == 4)
            sk.nudge.budget = -0.5;
        if (cases[i].kind == 5) {
            sk.throw_.speed.kind = TP_DIST_UNSET;
            sk.throw_.point = vec3(1, 0, 0);
            sk.throw_.flight_time = tpDist_Const(0.0);
        }
        char err[512] = "";
        assert_false(tpSkill_Validate(&sk, w.world, err, sizeof err));
        if (!strstr(err, cases[i].want) || strchr(err, '\n'))
            fail_msg("case %zu: '%s' does not name '%s'", i, err, cases[i].want);
    }
    sw_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_throw_exact_release), cmocka_unit_test(test_throw_from_rest),
        cmocka_unit_test(test_throw_aimed_delayed), cmocka_unit_test(test_nudge_budget),
        cmocka_unit_test(test_throw_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
