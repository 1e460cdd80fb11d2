/* The motion primitives (skills/src/skills.c, steer.c) against a tiny world, one test per kind:
 * each checks the documented behaviour of f, not just that it runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "skill_world.h"
#include "tp/base.h"
#include "tp/mathx.h"

/* wait: busy for exactly the sampled duration, braking the body to rest meanwhile. */
static void test_wait(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.5);
    tpBodyDef r = sw_robot("robot", 0, 0);
    r.vel[0] = 0.4;
    int robot = sw_add(&w, r);
    sw_start(&w);
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_WAIT);
    sk.body = robot;
    sk.wait.duration = tpDist_Const(0.5);
    assert_int_equal(sw_run(&w, &sk, SW_MAX_STEPS), 30); /* 0.5 s at 60 Hz */
    assert_true(sw_speed(&w, robot) < 0.02);
    sw_free(&w);
}

/* wait with a target: also busy until the target (a rolling ball) rests. The target may be the
 * skill's own body ("'target' must differ from 'body'"): the ball waiting until it
 * itself rests; the kinds that act on a target still refuse their own body. */
static void test_wait_target(void **state)
{
    (void)state;
    for (int self = 0; self <= 1; ++self) {
        SkWorld w;
        sw_init(&w, 0.5);
        w.mats[0].rolling_friction = 0.002;
        int robot = sw_add(&w, sw_robot("robot", -1, 0));
        tpBodyDef b = sw_ball("ball", 0, 0);
        b.cls = self ? TP_BODY_ACTIVE : b.cls;
        b.max_force = self ? 5 : b.max_force;
        b.vel[0] = 0.8;
        int ball = sw_add(&w, b);
        sw_start(&w);
        tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_WAIT);
        sk.body = self ? ball : robot;
        sk.target = ball;
        int n = sw_run(&w, &sk, SW_MAX_STEPS); /* fails the test when the skill is refused */
        assert_true(n > 1 && n <= SW_MAX_STEPS);
        assert_true(sw_speed(&w, ball) < sk.wait.trigger_speed);
        assert_true(sw_body(&w, ball)->pos[0] > 0.1); /* it rolled before it rested */
        if (self) {
            tpSkillDef push = tpDefaultSkillDef(TP_SKILL_PUSH);
            push.body = ball;
            push.target = ball;
            push.kick.point = sw_point2(1, 0);
            char err[256] = "";
            assert_false(tpSkill_Validate(&push, w.world, err, sizeof err));
            assert_non_null(strstr(err, "'target' must differ from 'body'"));
        }
        sw_free(&w);
    }
}

/* drive_to: ends at the point (within tolerance) facing the heading (within angle_tolerance). */
static void test_drive_to(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.5);
    int robot = sw_add(&w, sw_robot("robot", 0, 0));
    sw_start(&w);
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_DRIVE_TO);
    sk.body = robot;
    sk.drive.point = sw_point2(0.8, -0.4);
    sk.drive.heading = tpDist_Const(0.6);
    int n = sw_run(&w, &sk, SW_MAX_STEPS);
    assert_true(n < 6 * 60); /* arrived before the 6 s timeout */
    const tpBodyState *s = sw_body(&w, robot);
    assert_true(hypot(s->pos[0] - 0.8, s->pos[1] + 0.4) < sk.gains.tolerance);
    /* the square box is symmetric under quarter turns */
    double e = fmod(fabs(tpAngle_Wrap(sw_yaw(&w, robot) - 0.6)), 0.5 * TP_PI);
    assert_true(fmin(e, 0.5 * TP_PI - e) < sk.gains.angle_tolerance);
    sw_free(&w);
}

/* turn_to: turns in place to the sampled heading; a long box (yaw period 2π) must face it. */
static void test_turn_to(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.5);
    tpBodyDef r = sw_robot("robot", 0.3, 0.2);
    r.size[0] = 0.3;
    r.size[1] = 0.12;
    int robot = sw_add(&w, r);
    sw_start(&w);
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_TURN_TO);
    sk.body = robot;
    sk.drive.heading = tpDist_Uniform(2.0, 2.6);
    int n = sw_run(&w, &sk, SW_MAX_STEPS);
    assert_true(n < 6 * 60);
    double yaw = sw_yaw(&w, robot);
    assert_true(yaw > 2.0 - sk.gains.angle_tolerance && yaw < 2.6 + sk.gains.angle_tolerance);
    const tpBodyState *s = sw_body(&w, robot);
    assert_true(hypot(s->pos[0] - 0.3, s->pos[1] - 0.2) < sk.gains.tolerance); /* in place */
    assert_true(fabs(s->angvel[2]) < 0.5);
    sw_free(&w);
}

/* brake: stops a body that slides and spins. */
static void test_brake(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.5);
    tpBodyDef r = sw_robot("robot", 0, 0);
    r.vel[0] = 1.2;
    r.vel[1] = -0.5;
    r.angvel[2] = 3.0;
    int robot = sw_add(&w, r);
    sw_start(&w);
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_BRAKE);
    sk.body = robot;
    int n = sw_run(&w, &sk, SW_MAX_STEPS);
    assert_true(n < 6 * 60); /* rest, not the timeout */
    assert_true(sw_speed(&w, robot) < 0.02);
    assert_true(fabs(sw_body(&w, robot)->angvel[2]) < 0.05);
    /* 1.3 m/s against 20 N on 2.5 kg (plus friction) stops within about 0.1 m */
    assert_true(hypot(sw_body(&w, robot)->pos[0], sw_body(&w, robot)->pos[1]) < 0.2);
    sw_free(&w);
}

/* A free (not planar) die: a 0.1 m cube of 0.2 kg, 10 N, 0.5 N·m, tumbling as it falls from h. */
static int add_free_die(SkWorld *w, double h)
{
    tpBodyDef d = sw_robot("die", 0, 0);
    d.size[0] = d.size[1] = d.size[2] = 0.1;
    d.mass = 0.2;
    d.pos[2] = h;
    d.max_force = 10;
    d.max_torque = 0.5;
    d.planar_force = false;
    d.angvel[0] = 3.0;
    d.angvel[1] = 2.0;
    d.angvel[2] = 1.0;
    return sw_add(w, d);
}

static double norm3(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* wait and brake on a free body. They once held it with the planar drive controller's yaw law,
 * which left a die rolling on an edge while the braking force pushed its centre: it spun up
 * (594 rad/s in an add-on user's scene). Now wait leaves a free body to the physics (no force
 * at all, in the air or on the floor) and brake damps its whole angular velocity: the die comes
 * to rest either way and never turns faster than its landing made it. */
static void test_free_body_wait_and_brake(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; ++kind) {
        SkWorld w;
        sw_init(&w, 0.5);
        int die = add_free_die(&w, 0.5);
        sw_start(&w);
        tpSkillDef sk = tpDefaultSkillDef(kind == 0 ? TP_SKILL_WAIT : TP_SKILL_BRAKE);
        sk.body = die;
        sk.wait.duration = tpDist_Const(6.0);
        sk.brake.duration = tpDist_Const(6.0);
        double fastest = 0.0;
        for (int i = 0; i < 360; ++i) {
            sw_step(&w, &sk, i == 0);
            if (kind == 0) {
                for (int c = 0; c < 6; ++c) {
                    assert_true(w.action[c] == 0.0); /* wait: nothing applied to a free body */
                }
            }
            double spin = norm3(sw_body(&w, die)->angvel);
            fastest = spin > fastest ? spin : fastest;
        }
        const tpBodyState *s = sw_body(&w, die);
        if (!(norm3(s->angvel) < 0.1 && norm3(s->vel) < 0.02 && fastest < 25.0 && s->pos[2] < 0.08)) {
            fail_msg("%s: after 6 s |w| %.3g rad/s, |v| %.3g m/s, z %.3f m; fastest turn %.3g rad/s",
                     kind == 0 ? "wait" : "brake", norm3(s->angvel), norm3(s->vel), s->pos[2], fastest);
        }
        sw_free(&w);
    }
}

/* A 2 cm die as a mesh (a closed cube, outward-facing), 5 g: its inertia comes from the mesh. The
 * hold laws once took the mass (kg) as its moment of inertia (kg·m², 15,000 times too large here):
 * their torque then drove it unstably (a die in an add-on user's scene reached 594 rad/s). Braked
 * free, or held by wait as a planar body, it must come to rest without spinning up. */
static void test_mesh_body_hold(void **state)
{
    (void)state;
    const double h = 0.01;
    const double v[24] = {-h, -h, -h, h, -h, -h, h, h, -h, -h, h, -h, -h, -h, h, h, -h, h, h, h, h, -h, h, h};
    const int32_t t[36] = {0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                           3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
    for (int planar = 0; planar < 2; ++planar) {
        SkWorld w;
        sw_init(&w, 0.5);
        tpBodyDef d = sw_robot("die", 0, 0);
        d.shape = TP_SHAPE_MESH;
        d.mesh = (tpMeshView){8, v, 12, t};
        d.mass = 0.005;
        d.pos[2] = h;
        d.max_force = 0.5;
        d.max_torque = 0;
        d.planar_force = planar;
        d.vel[0] = 0.3;
        d.angvel[2] = 4.0;
        int die = sw_add(&w, d);
        sw_start(&w);
        double I[9];
        assert_true(tpWorld_BodyInertia(w.world, die, I));
        assert_true(fabs(I[8] - d.mass * (2 * h) * (2 * h) / 6.0) < 1e-3 * I[8]); /* m (a² + b²) / 12 */
        tpSkillDef sk = tpDefaultSkillDef(planar ? TP_SKILL_WAIT : TP_SKILL_BRAKE);
        sk.body = die;
        sk.wait.duration = tpDist_Const(3.0);
        sk.brake.duration = tpDist_Const(3.0);
        double fastest = 0.0;
        for (int i = 0; i < 180; ++i) {
            sw_step(&w, &sk, i == 0);
            double spin = norm3(sw_body(&w, die)->angvel);
            fastest = spin > fastest ? spin : fastest;
        }
        const tpBodyState *s = sw_body(&w, die);
        if (!(fastest <= 4.0 + 1e-9 && norm3(s->angvel) < 0.1 && norm3(s->vel) < 0.02)) {
            fail_msg("%s: after 3 s |w| %.3g rad/s, |v| %.3g m/s; fastest turn %.3g rad/s (started at 4)",
                     planar ? "wait, planar" : "brake, free", norm3(s->angvel), norm3(s->vel), fastest);
        }
        sw_free(&w);
    }
}

/* impulse: without gravity or contacts a force F held for T gives exactly dv = F T / m. */
static void test_impulse(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.5);
    w.scene.gravity[2] = 0.0;
    tpBodyDef r = sw_robot("robot", 0, 0);
    r.pos[2] = 1.0; /* floating */
    r.planar_force = false;
    int robot = sw_add(&w, r);
    sw_start(&w);
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_IMPULSE);
    sk.body = robot;
    sk.impulse.force = sw_point2(2.0, -1.0); /* N: a vector in the plane */
    sk.impulse.duration = tpDist_Const(0.5);
    assert_int_equal(sw_run(&w, &sk, SW_MAX_STEPS), 30);
    const tpBodyState *s = sw_body(&w, robot);
    assert_true(fabs(s->vel[0] - 2.0 * 0.5 / 2.5) < 1e-6);
    assert_true(fabs(s->vel[1] + 1.0 * 0.5 / 2.5) < 1e-6);
    assert_true(fabs(s->vel[2]) < 1e-9);
    sw_free(&w);
}

/* random: a force of the sampled magnitude toward the RRT sample y, held for the duration. */
static void test_random(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.5);
    w.scene.gravity[2] = 0.0;
    tpBodyDef r = sw_robot("robot", 0, 0);
    r.pos[2] = 1.0;
    r.max_torque = 1e-9; /* keep the random torque from mattering */
    int robot = sw_add(&w, r);
    sw_start(&w);
    const double y[2] = {-1.0, 1.0};
    w.y = y;
    w.ydim = 2;
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_RANDOM);
    sk.body = robot;
    sk.random.force = tpDist_Const(5.0);
    sk.random.duration = tpDist_Const(0.25);
    assert_int_equal(sw_run(&w, &sk, SW_MAX_STEPS), 15);
    const tpBodyState *s = sw_body(&w, robot);
    assert_true(fabs(atan2(s->vel[1], s->vel[0]) - 0.75 * TP_PI) < 1e-6); /* toward y */
    assert_true(fabs(hypot(s->vel[0], s->vel[1]) - 5.0 * 0.25 / 2.5) < 1e-6);
    sw_free(&w);
}

/* push: dribbles the ball to the point; the ball ends near it, the robot behind it. */
static void test_push(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.4);
    w.mats[0].rolling_friction = 0.0015;
    int robot = sw_add(&w, sw_robot("robot", -0.6, 0.1));
    int ball = sw_add(&w, sw_ball("ball", 0, 0));
    sw_start(&w);
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_PUSH);
    sk.body = robot;
    sk.target = ball;
    sk.kick.point = sw_point2(0.8, 0.3);
    sk.kick.speed = tpDist_Const(0.3);
    sw_run(&w, &sk, SW_MAX_STEPS);
    const tpBodyState *b = sw_body(&w, ball);
    double before = hypot(0.8, 0.3), after = hypot(b->pos[0] - 0.8, b->pos[1] - 0.3);
    assert_true(after < 0.25 * before);
    sw_free(&w);
}

/* kick: the ball leaves toward the point at about the asked speed. */
static void test_kick(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.4);
    w.mats[0].rolling_friction = 0.0015;
    int robot = sw_add(&w, sw_robot("robot", -0.6, 0.0));
    int ball = sw_add(&w, sw_ball("ball", 0, 0));
    sw_start(&w);
    w.watch = ball;
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_KICK);
    sk.body = robot;
    sk.target = ball;
    sk.kick.point = sw_point2(2.0, 1.0);
    sk.kick.speed = tpDist_Const(1.0);
    sk.kick.follow = true; /* busy until the ball rests */
    sw_run(&w, &sk, SW_MAX_STEPS);
    const tpBodyState *b = sw_body(&w, ball);
    assert_true(hypot(b->pos[0], b->pos[1]) > 0.3);
    double dir = atan2(b->pos[1], b->pos[0]);
    assert_true(fabs(tpAngle_Wrap(dir - atan2(1.0, 2.0))) < 0.1);
    assert_true(w.max_speed_seen > 0.7 && w.max_speed_seen < 1.3);
    assert_true(sw_speed(&w, ball) < sk.kick.trigger_speed);
    sw_free(&w);
}

/* steer: a small horizontal force toward the point only inside the height band. */
static void test_steer(void **state)
{
    (void)state;
    double xs[2];
    for (int band = 0; band < 2; ++band) {
        SkWorld w;
        sw_init(&w, 0.5);
        tpBodyDef d = sw_robot("die", 0, 0);
        d.pos[2] = 2.0;
        d.planar_force = false;
        int die = sw_add(&w, d);
        sw_start(&w);
        tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_STEER);
        sk.body = die;
        sk.steer.point = sw_point2(1.0, 0.0);
        sk.steer.force = tpDist_Const(5.0);
        sk.steer.duration = tpDist_Const(2.0);
        sk.steer.min_z = band ? 0.5 : 10.0; /* band 0: the body is never inside it */
        sk.steer.max_z = band ? 3.0 : 11.0;
        sk.gains.max_speed = 1.0;
        sk.gains.kp = 2.0;
        int n = sw_run(&w, &sk, SW_MAX_STEPS);
        assert_true(n <= 120);
        xs[band] = sw_body(&w, die)->pos[0];
        if (band) {
            assert_true(sw_body(&w, die)->pos[2] < 0.5 + 1e-9 || n == 120); /* left the band, or the duration */
        }
        sw_free(&w);
    }
    assert_true(fabs(xs[0]) < 1e-9); /* outside its band it does nothing */
    assert_true(xs[1] > 0.05);       /* inside, it moves the body toward the point */
}

static int custom_fn(void *user, int id, tpSkillCall *call)
{
    int *calls = user;
    calls[id]++;
    call->V[1] += 1.0;
    return call->V[1] < 3.0 ? 1 : 0;
}

/* custom: the host's f is called with its user pointer and id, and its result is the skill's. */
static void test_custom(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.5);
    sw_add(&w, sw_robot("robot", 0, 0));
    sw_start(&w);
    int calls[3] = {0, 0, 0};
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_CUSTOM);
    sk.custom.fn = custom_fn;
    sk.custom.user = calls;
    sk.custom.id = 2;
    assert_int_equal(sw_run(&w, &sk, SW_MAX_STEPS), 3);
    assert_int_equal(calls[2], 3);
    assert_int_equal(calls[0] + calls[1], 0);
    sw_free(&w);
}

/* The state stored per tactic: steer keeps 6 variables (hundreds of dice), motor 3, every other
 * kind all TP_SKILL_VARS; plan bytes depend on it. */
static void test_var_count(void **state)
{
    (void)state;
    for (int k = 0; k < TP_SKILL_KIND_COUNT; ++k) {
        tpSkillDef sk = tpDefaultSkillDef((tpSkillKind)k);
        assert_int_equal(tpSkill_VarCount(&sk), k == TP_SKILL_STEER   ? 6
                                                : k == TP_SKILL_MOTOR ? 4
                                                : k == TP_SKILL_THROW ? 13
                                                : k == TP_SKILL_NUDGE ? 7
                                                                      : TP_SKILL_VARS);
    }
}

/* Every kind's row is whole and self-consistent: its name and alias map back to it, its typed
 * script fields are all among the keys it accepts and lie inside tpSkillDef, and a default
 * definition passes the world-free checks. Fails on a row with a typo in a field or a key. */
static void test_kind_rows(void **state)
{
    (void)state;
    for (int k = 0; k < TP_SKILL_KIND_COUNT; ++k) {
        const char *name = tpSkillKind_Name((tpSkillKind)k);
        assert_string_not_equal(name, "?");
        assert_int_equal(tpSkillKind_FromName(name), k);
        const char *alias = tpSkillKind_Alias((tpSkillKind)k);
        if (alias) {
            assert_int_equal(tpSkillKind_FromName(alias), k);
        }
        const char *const *keys = NULL;
        const tpSkillField *f = tpSkillKind_Fields((tpSkillKind)k, &keys);
        assert_non_null(f);
        assert_non_null(keys);
        assert_string_equal(keys[0], "name");
        for (; f->name; ++f) {
            bool accepted = false;
            for (int i = 0; keys[i] && !accepted; ++i) {
                accepted = strcmp(keys[i], f->name) == 0;
            }
            if (!accepted) {
                fail_msg("kind %s: field '%s' is not among its accepted keys", name, f->name);
            }
            assert_true(f->offset > offsetof(tpSkillDef, gains) && f->offset < sizeof(tpSkillDef));
            if (f->type == TP_FIELD_DIST) {
                assert_true(1 <= f->dmin && f->dmin <= f->dmax && f->dmax <= 3);
            }
        }
        tpSkillDef sk = tpDefaultSkillDef((tpSkillKind)k);
        assert_string_equal(sk.name, name);
        char err[256];
        assert_true(tpSkill_CheckFields(&sk, err, sizeof err));
    }
    assert_int_equal(tpSkillKind_FromName("dribble"), TP_SKILL_PUSH);
    assert_int_equal(tpSkillKind_FromName("hold"), TP_SKILL_BRAKE);
    assert_int_equal(tpSkillKind_FromName("no_such_kind"), -1);
    /* the world-free check of steer, as the Lua constructor reports it */
    tpSkillDef st = tpDefaultSkillDef(TP_SKILL_STEER);
    st.steer.min_z = 2.0;
    st.steer.max_z = 1.0;
    char err[256];
    assert_false(tpSkill_CheckFields(&st, err, sizeof err));
    assert_string_equal(err, "min_z must be <= max_z (got 2, 1)");
}

/* tpDefaultSkillDef fills the shared fields and the defaults of the kind's own member of the
 * union (kick and push share `kick`; nav_to, follow_field and follow_path share `nav`). */
static void test_default_defs(void **state)
{
    (void)state;
    tpSkillDef k = tpDefaultSkillDef(TP_SKILL_KICK);
    assert_true(k.kick.approach == 0.2 && k.kick.trigger_speed == 0.05 && k.kick.ground == -1);
    assert_true(k.kick.point.kind == TP_DIST_UNSET && k.kick.transfer == 0.0 && !k.kick.follow);
    tpSkillDef p = tpDefaultSkillDef(TP_SKILL_PUSH);
    assert_true(p.kick.approach == 0.2 && p.kick.ground == -1);
    const tpSkillKind nav_kinds[] = {TP_SKILL_NAV_TO, TP_SKILL_FOLLOW_FIELD, TP_SKILL_FOLLOW_PATH};
    for (int i = 0; i < 3; ++i) {
        tpSkillDef n = tpDefaultSkillDef(nav_kinds[i]);
        assert_true(n.nav.cell == 0.1 && n.nav.radius == 0.0 && n.nav.lookahead == 0.4 && n.nav.replan == 1.0);
    }
    tpSkillDef st = tpDefaultSkillDef(TP_SKILL_STEER);
    assert_true(isinf(st.steer.min_z) && st.steer.min_z < 0 && isinf(st.steer.max_z) && st.steer.max_z > 0);
    tpSkillDef r = tpDefaultSkillDef(TP_SKILL_RIDE);
    assert_true(r.ride.cell == 0.1 && r.ride.margin.kind == TP_DIST_UNSET);
    assert_true(tpDefaultSkillDef(TP_SKILL_WAIT).wait.trigger_speed == 0.05);
    assert_true(tpDefaultSkillDef(TP_SKILL_SPIN).spin.trigger_speed == 0.05);
    assert_true(tpDefaultSkillDef(TP_SKILL_IMPULSE).impulse.trigger_speed == 0.05);
    tpSkillDef c = tpDefaultSkillDef(TP_SKILL_CHIP);
    assert_true(c.chip.approach == 0.2 && c.chip.trigger_speed == 0.05);
    assert_true(tpDefaultSkillDef(TP_SKILL_GUARD).guard.approach == 0.2);
    for (int kind = 0; kind < TP_SKILL_KIND_COUNT; ++kind) { /* the shared fields */
        tpSkillDef d = tpDefaultSkillDef((tpSkillKind)kind);
        assert_int_equal(d.kind, kind);
        assert_int_equal(d.body, -1);
        assert_int_equal(d.target, -1);
        assert_string_equal(d.name, tpSkillKind_Name((tpSkillKind)kind));
        assert_true(d.gains.max_speed == 1.5 && d.gains.tolerance == 0.02 && d.gains.timeout == 0.0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait),
        cmocka_unit_test(test_wait_target),
        cmocka_unit_test(test_drive_to),
        cmocka_unit_test(test_turn_to),
        cmocka_unit_test(test_brake),
        cmocka_unit_test(test_impulse),
        cmocka_unit_test(test_free_body_wait_and_brake),
        cmocka_unit_test(test_mesh_body_hold),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_push),
        cmocka_unit_test(test_kick),
        cmocka_unit_test(test_steer),
        cmocka_unit_test(test_custom),
        cmocka_unit_test(test_var_count),
        cmocka_unit_test(test_default_defs),
        cmocka_unit_test(test_kind_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
