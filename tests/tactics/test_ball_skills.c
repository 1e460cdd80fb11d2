/* The ball-game skills on a real ODE scene: chip (a kicker lifts the ball and it lands on the
 * sampled point; loft 0 is a flat kick at the asked speed), guard (a foreign body settles on the
 * line from its protected point to the ball), and the follow-through of impulse (busy until the
 * whole world rests). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skill_world.h"
#include "tp/base.h"
#include "tp/tactics.h"

enum { B_GROUND, B_ROBOT, B_BALL, B_FOE, B_OTHER, NB };
#define BALL_R SW_BALL_R

typedef struct Scene {
    tpMaterialDef mats[2];
    tpBodyDef bodies[NB];
    tpSkillDef skills[2];
    tpTacticDef tactics[2];
    tpDomainDef def;
} Scene;

/* The bodies of the skill unit tests (tests/skills/skill_world.h), of the class this scene needs. */
static tpBodyDef box(const char *name, tpBodyClass cls, double x, double y)
{
    tpBodyDef b = sw_robot(name, x, y);
    b.cls = cls;
    return b;
}

static tpBodyDef ball(const char *name, tpBodyClass cls, double x, double y)
{
    tpBodyDef b = sw_ball(name, x, y);
    b.cls = cls;
    if (cls == TP_BODY_ACTIVE) {
        b.max_force = 20; /* the kicker's strength */
    }
    return b;
}

/* ground, a robot at (-0.6, 0), an active ball at (0, 0), a foreign box at (1, 1) and a passive
 * ball far away; no tactics yet. */
static void make_scene(Scene *s)
{
    memset(s, 0, sizeof *s);
    s->mats[0] = tpDefaultMaterialDef();
    s->mats[0].friction = 0.4;
    s->mats[0].rolling_friction = 0.0015;
    s->mats[1] = tpDefaultMaterialDef();
    tpStrCopy(s->mats[1].name, TP_NAME_MAX, "robot");
    s->mats[1].friction = 0.01;
    s->bodies[B_GROUND] = tpDefaultBodyDef();
    tpStrCopy(s->bodies[B_GROUND].name, TP_NAME_MAX, "ground");
    s->bodies[B_GROUND].cls = TP_BODY_STATIC;
    s->bodies[B_GROUND].shape = TP_SHAPE_PLANE;
    s->bodies[B_GROUND].plane[2] = 1.0;
    s->bodies[B_ROBOT] = box("robot", TP_BODY_ACTIVE, -0.6, 0.0);
    s->bodies[B_BALL] = ball("ball", TP_BODY_ACTIVE, 0.0, 0.0);
    s->bodies[B_FOE] = box("foe", TP_BODY_FOREIGN, 1.0, 1.0);
    s->bodies[B_OTHER] = ball("other", TP_BODY_PASSIVE, -2.0, 2.0);
    s->def = tpDefaultDomainDef();
    tpStrCopy(s->def.name, TP_NAME_MAX, "balls");
    s->def.scene.nmaterials = 2;
    s->def.scene.materials = s->mats;
    s->def.scene.nbodies = NB;
    s->def.scene.bodies = s->bodies;
    s->def.goal = tpCreateCond(TP_COND_IN_SPHERE); /* never reached: far away */
    s->def.goal->body = B_BALL;
    s->def.goal->center[0] = 100;
    s->def.goal->radius = 0.1;
}

static void add_tactic(Scene *s, int k, const char *name, int body, tpSkillDef skill, bool foreign)
{
    s->skills[k] = skill;
    tpStrCopy(s->tactics[k].name, TP_NAME_MAX, name);
    s->tactics[k].body = body;
    s->tactics[k].foreign = foreign;
    s->tactics[k].nskills = 1;
    s->tactics[k].skills = &s->skills[k];
    s->def.ntactics = k + 1;
    s->def.tactics = s->tactics;
}

/* Runs control + simulate for n steps from the initial state; out holds the n new states. */
static tpDomain *run(Scene *s, int n, unsigned char **out, tpProblem *p)
{
    char err[512] = "";
    tpDomain *d = tpCreateDomain(&s->def, err, sizeof err);
    tpDestroyCond(s->def.goal); /* tpCreateDomain copies the trees: ours stay ours */
    if (!d) {
        fail_msg("tpCreateDomain: %s", err);
    }
    *p = tpDomain_Problem(d);
    tpRng rng;
    tpRng_Seed(&rng, 11);
    double *a = calloc((size_t)p->action_dim + 1, sizeof *a);
    unsigned char *x = malloc(p->state_bytes);
    p->initial_state(p->ctx, x);
    *out = malloc(p->state_bytes * (size_t)n);
    for (int i = 0; i < n; ++i) {
        unsigned char *xn = *out + (size_t)i * p->state_bytes;
        memset(a, 0, sizeof *a * (size_t)p->action_dim);
        memcpy(xn, x, p->state_bytes);
        assert_true(p->control(p->ctx, x, NULL, &rng, xn, a) >= 0);
        p->simulate(p->ctx, x, a, xn);
        memcpy(x, xn, p->state_bytes);
    }
    free(a);
    free(x);
    return d;
}

static const tpBodyState *body_at(tpDomain *d, const tpProblem *p, const unsigned char *traj, int i, int body)
{
    return &tpState_Bodies(traj + (size_t)i * p->state_bytes)[tpWorld_StateSlot(tpDomain_World(d), body)];
}

static tpSkillDef chip_skill(double px, double py, double loft)
{
    tpSkillDef c = tpDefaultSkillDef(TP_SKILL_CHIP);
    c.body = B_ROBOT;
    c.target = B_BALL;
    c.chip.point = tpDist_Const(px);
    c.chip.point.dim = 2;
    c.chip.point.a[1] = py;
    c.chip.loft = tpDist_Const(loft);
    c.chip.approach = 0.1;
    return c;
}

/* A chip lifts the ball and, without `speed`, its first bounce is on the sampled point. */
static void test_chip_lands_on_point(void **state)
{
    (void)state;
    Scene s;
    make_scene(&s);
    add_tactic(&s, 0, "chipper", B_ROBOT, chip_skill(1.2, 0.4, 0.7), false);
    tpProblem p;
    unsigned char *traj;
    const int n = 600;
    tpDomain *d = run(&s, n, &traj, &p);
    double top = 0;
    int landed = -1;
    for (int i = 0; i < n && landed < 0; ++i) {
        const tpBodyState *b = body_at(d, &p, traj, i, B_BALL);
        if (b->pos[2] > top) {
            top = b->pos[2];
        }
        if (top > 0.1 && b->pos[2] < BALL_R + 0.003) {
            landed = i;
        }
    }
    assert_true(top > 0.15); /* in the air: d = 1.26 m at 0.7 rad reaches ~0.3 m */
    assert_true(landed > 0);
    const tpBodyState *b = body_at(d, &p, traj, landed, B_BALL);
    assert_true(hypot(b->pos[0] - 1.2, b->pos[1] - 0.4) < 0.06);
    free(traj);
    tpDestroyDomain(d);
}

/* `toward`: the point is an offset in the target's frame turned so +x points at `toward`; the
 * ball at the origin with toward (-1, 1) and offset (1.0, 0.3) lands at 1.0 m along (-1, 1)/sqrt 2
 * plus 0.3 m to its left, i.e. at (-0.919, 0.495). Unset, the same offset is read in world axes. */
static void test_chip_toward_frame(void **state)
{
    (void)state;
    for (int turned = 0; turned <= 1; ++turned) {
        Scene s;
        make_scene(&s);
        tpSkillDef c = chip_skill(1.0, 0.3, 0.7);
        c.frame = TP_FRAME_TARGET;
        if (turned) {
            c.has_toward = true;
            c.toward[0] = -1.0;
            c.toward[1] = 1.0;
        }
        add_tactic(&s, 0, "chipper", B_ROBOT, c, false);
        tpProblem p;
        unsigned char *traj;
        const int n = 700;
        tpDomain *d = run(&s, n, &traj, &p);
        double top = 0;
        int landed = -1;
        for (int i = 0; i < n && landed < 0; ++i) {
            const tpBodyState *b = body_at(d, &p, traj, i, B_BALL);
            top = b->pos[2] > top ? b->pos[2] : top;
            if (top > 0.1 && b->pos[2] < BALL_R + 0.003) {
                landed = i;
            }
        }
        assert_true(landed > 0);
        const tpBodyState *b = body_at(d, &p, traj, landed, B_BALL);
        double r = sqrt(0.5);
        double wx = turned ? -r * 1.0 - r * 0.3 : 1.0, wy = turned ? r * 1.0 - r * 0.3 : 0.3;
        /* within 0.1 m (the ball creeps a little before the kicker fires); the two answers are
         * 1.9 m apart */
        assert_true(hypot(b->pos[0] - wx, b->pos[1] - wy) < 0.1);
        free(traj);
        tpDestroyDomain(d);
    }
}

/* loft 0 with a speed: a flat kick along the ground at that speed, toward the point. */
static void test_chip_flat_kick(void **state)
{
    (void)state;
    Scene s;
    make_scene(&s);
    tpSkillDef c = chip_skill(2.0, -1.0, 0.0);
    c.chip.speed = tpDist_Const(4.0);
    add_tactic(&s, 0, "kicker", B_ROBOT, c, false);
    tpProblem p;
    unsigned char *traj;
    const int n = 400;
    tpDomain *d = run(&s, n, &traj, &p);
    double fastest = 0, highest = 0;
    const tpBodyState *at_fastest = NULL;
    for (int i = 0; i < n; ++i) {
        const tpBodyState *b = body_at(d, &p, traj, i, B_BALL);
        double v = hypot(b->vel[0], b->vel[1]);
        if (v > fastest) {
            fastest = v;
            at_fastest = b;
        }
        if (b->pos[2] > highest) {
            highest = b->pos[2];
        }
    }
    assert_true(fabs(fastest - 4.0) < 0.2);
    assert_true(highest < BALL_R + 0.005);
    assert_non_null(at_fastest);
    /* heading toward (2, -1) from the ball's start */
    double want = atan2(-1.0, 2.0), got = atan2(at_fastest->vel[1], at_fastest->vel[0]);
    assert_true(fabs(want - got) < 0.03);
    free(traj);
    tpDestroyDomain(d);
}

/* A chip needs a ball with a control slot: the kicker acts on it as a force. */
static void test_chip_rejects_passive_ball(void **state)
{
    (void)state;
    Scene s;
    make_scene(&s);
    s.bodies[B_BALL].cls = TP_BODY_PASSIVE;
    s.bodies[B_BALL].max_force = 0;
    add_tactic(&s, 0, "chipper", B_ROBOT, chip_skill(1.0, 0.0, 0.5), false);
    char err[512] = "";
    assert_null(tpCreateDomain(&s.def, err, sizeof err));
    tpDestroyCond(s.def.goal); /* tpCreateDomain copies the trees: ours stay ours */
    assert_non_null(strstr(err, "must be a controlled body"));
}

/* The guard settles `approach` m from its point on the line to the (resting) ball. */
static void test_guard_blocks_line(void **state)
{
    (void)state;
    Scene s;
    make_scene(&s);
    s.bodies[B_ROBOT].pos[1] = -1.5; /* out of the way */
    tpSkillDef g = tpDefaultSkillDef(TP_SKILL_GUARD);
    g.body = B_FOE;
    g.target = B_BALL;
    g.guard.point = tpDist_Const(2.0);
    g.guard.point.dim = 2;
    g.guard.point.a[1] = 0.5;
    g.guard.approach = 0.8;
    add_tactic(&s, 0, "defend", B_FOE, g, true);
    tpProblem p;
    unsigned char *traj;
    const int n = 360;
    tpDomain *d = run(&s, n, &traj, &p);
    const tpBodyState *f = body_at(d, &p, traj, n - 1, B_FOE);
    double ux = 0.0 - 2.0, uy = 0.0 - 0.5, un = hypot(ux, uy);
    double wx = 2.0 + 0.8 * ux / un, wy = 0.5 + 0.8 * uy / un;
    assert_true(hypot(f->pos[0] - wx, f->pos[1] - wy) < 0.03);
    assert_true(hypot(f->vel[0], f->vel[1]) < 0.05);
    /* it is a foreign tactic and never ends */
    assert_int_equal(tpState_Tactic(d, traj + (size_t)(n - 1) * p.state_bytes, 0)->busy, 1);
    free(traj);
    tpDestroyDomain(d);
}

/* impulse with follow: busy after the push until every moving body rests; without: one step. */
static void test_impulse_follow_until_rest(void **state)
{
    (void)state;
    for (int follow = 0; follow <= 1; ++follow) {
        Scene s;
        make_scene(&s);
        s.bodies[B_ROBOT].pos[1] = -1.5;
        tpSkillDef im = tpDefaultSkillDef(TP_SKILL_IMPULSE);
        im.body = B_BALL;
        im.impulse.force.kind = TP_DIST_CONST;
        im.impulse.force.dim = 3;
        im.impulse.force.a[0] = 2.0; /* 2 N for one step: 0.72 m/s */
        im.impulse.follow = follow != 0;
        im.impulse.trigger_speed = 0.02;
        im.gains.timeout = 30;
        add_tactic(&s, 0, "cue", B_BALL, im, false);
        tpProblem p;
        unsigned char *traj;
        const int n = 900;
        tpDomain *d = run(&s, n, &traj, &p);
        int ended = -1;
        for (int i = 0; i < n && ended < 0; ++i) {
            if (!tpState_Tactic(d, traj + (size_t)i * p.state_bytes, 0)->busy) {
                ended = i;
            }
        }
        assert_true(ended >= 0);
        const tpBodyState *b = body_at(d, &p, traj, ended, B_BALL);
        if (follow) {
            assert_true(ended > 60);                         /* it rolled for a while */
            assert_true(hypot(b->vel[0], b->vel[1]) < 0.03); /* and the segment ended at rest */
        } else {
            assert_int_equal(ended, 0); /* the push is one step */
        }
        free(traj);
        tpDestroyDomain(d);
    }
}

/* impulse given as speed + direction: the force m dv / T along the direction (a vector, or a
 * heading angle), or a force magnitude along the direction; without gravity nothing brakes the
 * ball, so after the one-step push it moves at the asked speed. And the checks of the forms. */
static void test_impulse_speed_direction(void **state)
{
    (void)state;
    for (int form = 0; form < 4; ++form) {
        Scene s;
        make_scene(&s);
        s.def.scene.gravity[2] = 0.0;
        s.bodies[B_ROBOT].pos[1] = -1.5;
        tpSkillDef im = tpDefaultSkillDef(TP_SKILL_IMPULSE);
        im.body = B_BALL;
        im.impulse.direction.kind = TP_DIST_CONST;
        if (form == 0) { /* speed along a 2-vector (normalised) */
            im.impulse.speed = tpDist_Uniform(0.5, 0.5);
            im.impulse.direction.dim = 2;
            im.impulse.direction.a[0] = 0.0;
            im.impulse.direction.a[1] = 3.0;
        } else if (form == 1) { /* speed along a heading angle */
            im.impulse.speed = tpDist_Uniform(0.5, 0.5);
            im.impulse.direction.dim = 1;
            im.impulse.direction.a[0] = 0.5 * 3.14159265358979323846;
        } else if (form == 2) { /* a force magnitude along the direction: 0.046 kg * 0.5 m/s * 60 /s */
            im.impulse.force = tpDist_Uniform(1.38, 1.38);
            im.impulse.direction.dim = 1;
            im.impulse.direction.a[0] = 0.5 * 3.14159265358979323846;
        } else { /* speed without a direction: along the body's heading (+x) */
            im.impulse.speed = tpDist_Uniform(0.5, 0.5);
            im.impulse.direction.kind = TP_DIST_UNSET;
        }
        add_tactic(&s, 0, "cue", B_BALL, im, false);
        tpProblem p;
        unsigned char *traj;
        tpDomain *d = run(&s, 1, &traj, &p); /* one step: the tactic re-selects the skill after it */
        const tpBodyState *b = body_at(d, &p, traj, 0, B_BALL);
        double along = form == 3 ? b->vel[0] : b->vel[1], across = form == 3 ? b->vel[1] : b->vel[0];
        if (fabs(along - 0.5) > 0.01 || fabs(across) > 1e-3) {
            fail_msg("form %d: velocity (%g, %g), expected 0.5 m/s along the direction", form, b->vel[0], b->vel[1]);
        }
        free(traj);
        tpDestroyDomain(d);
    }

    /* the checks: force and speed together, a vector force with a direction, a direction on a
     * kind that has none, a kick with both point and direction */
    Scene s;
    make_scene(&s);
    char err[512] = "";
    tpDomain *d = tpCreateDomain(&s.def, err, sizeof err);
    tpDestroyCond(s.def.goal); /* tpCreateDomain copies the trees: ours stay ours */
    assert_non_null(d);
    const tpWorld *w = tpDomain_World(d);
    tpSkillDef im = tpDefaultSkillDef(TP_SKILL_IMPULSE);
    tpStrCopy(im.name, TP_NAME_MAX, "im");
    im.body = B_BALL;
    im.impulse.speed = tpDist_Uniform(1, 1);
    im.impulse.force = tpDist_Uniform(1, 1);
    assert_false(tpSkill_Validate(&im, w, err, sizeof err));
    assert_non_null(strstr(err, "give 'force' or 'speed'"));
    im.impulse.speed.kind = TP_DIST_UNSET;
    im.impulse.force.dim = 3;
    im.impulse.direction.kind = TP_DIST_CONST;
    im.impulse.direction.dim = 1;
    assert_false(tpSkill_Validate(&im, w, err, sizeof err));
    assert_non_null(strstr(err, "'force' is a magnitude"));
    /* push shares kick's def struct (tpKickDef) but not its `direction` */
    tpSkillDef dr = tpDefaultSkillDef(TP_SKILL_PUSH);
    tpStrCopy(dr.name, TP_NAME_MAX, "dr");
    dr.body = B_ROBOT;
    dr.target = B_OTHER;
    dr.kick.point = tpDist_Uniform(0, 0);
    dr.kick.point.dim = 2;
    dr.kick.direction = im.impulse.direction;
    assert_false(tpSkill_Validate(&dr, w, err, sizeof err));
    assert_non_null(strstr(err, "'direction' is for impulse and kick"));
    tpSkillDef k = tpDefaultSkillDef(TP_SKILL_KICK);
    tpStrCopy(k.name, TP_NAME_MAX, "k");
    k.body = B_ROBOT;
    k.target = B_OTHER;
    k.kick.speed = tpDist_Uniform(1, 1);
    k.kick.direction = im.impulse.direction;
    assert_true(tpSkill_Validate(&k, w, err, sizeof err));
    k.kick.point = dr.kick.point;
    assert_false(tpSkill_Validate(&k, w, err, sizeof err));
    assert_non_null(strstr(err, "replaces 'point'"));
    tpDestroyDomain(d);
}

/* spin with aim: after the hit (here: an initial roll at 1 m/s along +x) it steers the ball's
 * path onto the sampled point, 0.06 m off its natural line 0.5 m ahead, with a small lateral
 * force; a ball already on course gets no force at all (the least perturbation). */
static void test_spin_aim_reaches_point(void **state)
{
    (void)state;
    for (int off = 0; off <= 1; ++off) {
        Scene s;
        make_scene(&s);
        s.bodies[B_ROBOT].pos[1] = -1.5;
        s.bodies[B_BALL].vel[0] = 1.0;
        s.bodies[B_BALL].angvel[1] = 1.0 / BALL_R; /* rolling */
        tpSkillDef sp = tpDefaultSkillDef(TP_SKILL_SPIN);
        sp.body = B_BALL;
        sp.spin.aim = true;
        sp.spin.point = tpDist_Const(0.5);
        sp.spin.point.dim = 2;
        sp.spin.point.a[1] = off ? 0.06 : 0.0;
        sp.spin.force = tpDist_Const(0.1); /* N: 0.22 of the ball's weight */
        sp.spin.duration = tpDist_Const(3.0);
        sp.gains.tolerance = 0.005;
        add_tactic(&s, 0, "spin", B_BALL, sp, false);
        tpProblem p;
        unsigned char *traj;
        const int n = 90;
        tpDomain *d = run(&s, n, &traj, &p);
        double best = 1e9, max_lat = 0.0;
        for (int i = 0; i < n; ++i) {
            const tpBodyState *b = body_at(d, &p, traj, i, B_BALL);
            double dist = hypot(b->pos[0] - 0.5, b->pos[1] - sp.spin.point.a[1]);
            best = dist < best ? dist : best;
            max_lat = fabs(b->pos[1]) > max_lat ? fabs(b->pos[1]) : max_lat;
        }
        if (off) {
            assert_true(best < 0.01); /* its path went through the point */
        } else {
            assert_true(max_lat < 1e-9); /* on course: never pushed sideways */
            assert_true(best < 0.01);
        }
        free(traj);
        tpDestroyDomain(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chip_lands_on_point),    cmocka_unit_test(test_chip_flat_kick),
        cmocka_unit_test(test_chip_toward_frame),      cmocka_unit_test(test_chip_rejects_passive_ball),
        cmocka_unit_test(test_guard_blocks_line),      cmocka_unit_test(test_impulse_follow_until_rest),
        cmocka_unit_test(test_spin_aim_reaches_point), cmocka_unit_test(test_impulse_speed_direction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
