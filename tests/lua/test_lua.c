/* Tests for lua/: a valid domain builds the expected world, tactics and conditions; every
 * kind of script error comes back as "<path>:<line>:" of the offending call; Lua callbacks
 * (dynamic Π rows, conditions, metrics, custom skills) work, and when they fail the planner
 * stops with TP_PLAN_ERROR and the message names the script line. Fixtures: scripts/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/base.h"
#include "tp/lua.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TP_TEST_SCRIPTS
#error "TP_TEST_SCRIPTS must name the fixtures directory"
#endif

static const char *fixture(const char *name)
{
    static char buf[4][1024]; /* a few at once */
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", TP_TEST_SCRIPTS, name);
    return p;
}

static tpScript *load(const char *name, const tpScriptParam *params, int n)
{
    char err[2048] = "";
    tpScript *s = tpLoadScript(fixture(name), params, n, err, sizeof err);
    if (!s)
        fprintf(stderr, "unexpected load error: %s\n", err);
    assert_non_null(s);
    return s;
}

/* Loading `name` must fail with a message starting "<path>:<line>:" and containing `what`. */
static void expect_error(const char *name, const tpScriptParam *params, int n, int line, const char *what)
{
    char err[2048] = "";
    const char *path = fixture(name);
    tpScript *s = tpLoadScript(path, params, n, err, sizeof err);
    if (s)
        tpDestroyScript(s);
    assert_null(s);
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%s:%d:", path, line);
    if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what))
        fprintf(stderr, "expected \"%s ...%s...\"\n     got \"%s\"\n", prefix, what, err);
    assert_memory_equal(err, prefix, strlen(prefix));
    assert_non_null(strstr(err, what));
}

/* The error fixtures that are scripts/base.lua with one edit: loading the edited text (as
 * "<name>" with no folder) must fail at `line` with a message containing `what`. */
typedef struct BaseEdit {
    const char *name;    /* the script's name in messages */
    const char *find;    /* text of base.lua to replace (must occur once) */
    const char *replace; /* its replacement */
    int line;            /* the line the message must name */
    const char *what;    /* a part of the message */
} BaseEdit;

/* base.lua's lines 13-19 (the wait skill to the goal), for edits that change a skill and add joints */
#define MOTOR_FIND                                                                                                     \
    "tp.skill.wait { name = \"wait\", duration = 0.5 },\n"                                                             \
    "        tp.skill.drive_to { name = \"go\", point = tp.uniform({-1, -1}, {1, 1}) },\n"                             \
    "      },\n"                                                                                                       \
    "      transitions = { wait = { go = 1 }, go = { wait = 1 } },\n"                                                  \
    "    },\n"                                                                                                         \
    "  },\n"                                                                                                           \
    "  goal = tp.within"
/* ... with the wait skill replaced by `skill` and a hinge "j" on the ball with `motor` added */
#define MOTOR_EDIT(skill, motor)                                                                                       \
    skill ",\n"                                                                                                        \
          "        tp.skill.drive_to { name = \"go\", point = tp.uniform({-1, -1}, {1, 1}) },\n"                       \
          "      },\n"                                                                                                 \
          "      transitions = { wait = { go = 1 }, go = { wait = 1 } },\n"                                            \
          "    },\n"                                                                                                   \
          "  },\n"                                                                                                     \
          "  joints = { tp.joint { name = \"j\", kind = \"hinge\", bodies = {\"ball\"}, anchor = {0, 0, 1}, " motor    \
          " } },\n"                                                                                                    \
          "  goal = tp.within"

/* base.lua's ball (line 8), for edits that make it a compound with the given parts */
#define COMPOUND_FIND                                                                                                  \
    "tp.sphere { name = \"ball\", class = \"passive\", radius = 0.02, mass = 0.05, pos = {0.5, 0, 0.02} }"
#define COMPOUND_EDIT(parts)                                                                                           \
    "tp.compound { name = \"ball\", class = \"passive\", mass = 0.05, pos = {0.5, 0, 0.02}, " parts " }"

static const BaseEdit base_edits[] = {
    {"err_field.lua", "mass = 0.05", "mas = 0.05", 8, "unknown field 'mas' in tp.sphere (known: name, class"},
    {"err_mass.lua", "mass = 0.05", "mass = -1", 8, "tp.sphere 'ball': mass must be > 0 (got -1)"},
    {"err_dt.lua", "dt = 1/60", "dt = 0", 3, "dt must be > 0 (got 0)"},
    {"err_prob.lua", "go = { wait = 1 }", "go = { wait = -0.5 }", 11,
     "transitions.go.wait: probability must be >= 0 (got -0.5)"},
    {"err_goal.lua", "goal = tp.within", "nogoal = tp.within", 3, "unknown field 'nogoal'"},
    {"err_goal2.lua", "  goal = tp.within { body = \"ball\", center = {1, 0}, radius = 0.1 },\n", "", 3,
     "'goal' is required"},
    {"err_body.lua", "name = \"go\",", "name = \"go\", body = \"bal\",", 14,
     "unknown body 'bal' (bodies: ground, robot, ball)"},
    {"err_create.lua", "name = \"go\",", "name = \"go\", body = \"ball\",", 14,
     "skill 'go': body 'ball' is not actively controlled"},
    /* per-kind field lists: a field of another kind names the skill, its kind and the field */
    {"err_kind_field.lua", "name = \"go\",", "name = \"go\", nav_cell = 0.05,", 14,
     "skill 'go' (drive_to): unknown field 'nav_cell' (drive_to takes: name, body, target, frame, toward, point,"},
    {"err_kind_field2.lua", "duration = 0.5", "duration = 0.5, approach = 0.1, speed = 1", 13,
     "skill 'wait' (wait): unknown field 'approach' (wait takes:"},
    {"err_kind_field3.lua", "tp.skill.drive_to { name = \"go\",", "tp.skill.dribble { name = \"go\", direction = 0,",
     14, "skill 'go' (push): unknown field 'direction'"},
    {"err_kind_noname.lua", "tp.skill.wait { name = \"wait\",", "tp.skill.wait { name = 3, loft = 1,", 13,
     "tp.skill.wait: unknown field 'loft' (wait takes:"},
    {"err_jump.lua", "name = \"go\",", "name = \"go\", jump = true,", 14,
     "skill 'go' (drive_to): unknown field 'jump'"}, /* tp.joint: one-line errors naming the field, at the
                                                        tp.joint's line */
    {"err_joint_body.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"hinge\", bodies = {\"bal\"}, anchor = {0, 0, 1} } },\n  goal = tp.within", 19,
     "unknown body 'bal' (bodies: ground, robot, ball)"},
    {"err_joint_self.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"hinge\", bodies = {\"ball\", \"ball\"}, anchor = {0, 0, 1} } },\n  goal = "
     "tp.within",
     19, "tp.joint: bodies: joins body 'ball' to itself"},
    {"err_joint_axis.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"hinge\", bodies = {\"ball\"}, anchor = {0, 0, 1}, axis = {0, 0, 0} } },\n  goal "
     "= tp.within",
     19, "tp.joint: axis must not be zero"},
    {"err_joint_limit.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"hinge\", bodies = {\"ball\"}, anchor = {0, 0, 1}, limit = {1, -1} } },\n  goal "
     "= tp.within",
     19, "tp.joint: limit: lo = 1 is above hi = -1"},
    {"err_joint_spring.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"slider\", bodies = {\"ball\"}, spring = {stiffness = -5} } },\n  goal = "
     "tp.within",
     19, "tp.joint: spring.stiffness must be >= 0 (got -5)"},
    {"err_joint_motor.lua", "  goal = tp.within",
     "  joints = { tp.joint { name = \"j\", kind = \"ball\", bodies = {\"ball\"}, anchor = {0, 0, 1}, motor = {speed = "
     "1, max_torque = 1} } },\n  goal = tp.within",
     19, "tp.joint 'j': motor: a ball joint has no motor"},
    {"err_joint_kind.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"rope\", bodies = {\"ball\"} } },\n  goal = tp.within", 19,
     "tp.joint: kind must be hinge, slider, ball, fixed, universal, hinge2 or distance (got \"rope\")"},
    {"err_joint_static.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"hinge\", bodies = {\"ground\", \"ball\"}, anchor = {0, 0, 1} } },\n  goal = "
     "tp.within",
     19, "tp.joint: bodies[1] 'ground' is static"},
    {"err_joint_anchor.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"ball\", bodies = {\"ball\"} } },\n  goal = tp.within", 19,
     "tp.joint: anchor is required for a ball joint"},
    {"err_joint_field.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"hinge\", bodies = {\"ball\"}, anchor = {0, 0, 1}, stiffness = 3 } },\n  goal = "
     "tp.within",
     19, "unknown field 'stiffness' in tp.joint"},
    {"err_joint_dup.lua", "  goal = tp.within",
     "  joints = { tp.joint { name = \"j\", kind = \"slider\", bodies = {\"ball\"} },\n"
     "    tp.joint { name = \"j\", kind = \"slider\", bodies = {\"robot\"} } },\n  goal = tp.within",
     20, "duplicate joint name 'j'"},
    {"err_joint_welded.lua", "  goal = tp.within",
     "  joints = { tp.joint { name = \"glue\", kind = \"fixed\", bodies = {\"ball\", \"robot\"} },\n"
     "    tp.joint { name = \"h\", kind = \"hinge\", bodies = {\"ball\", \"robot\"}, anchor = {0, 0, 1} } },\n"
     "  goal = tp.within",
     3, "joint \"h\" (hinge): bodies: \"ball\" and \"robot\" are already welded by joint \"glue\" (fixed)"},
    {"err_joint_perp.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"universal\", bodies = {\"ball\"}, anchor = {0, 0, 1}, axis = {1, 0, 0}, "
     "axis2 = {1, 1, 0} } },\n  goal = tp.within",
     19, "tp.joint: axis2 must be perpendicular to axis (cos = 0.707107)"},
    {"err_joint_both.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"hinge\", bodies = {\"ball\"}, anchor = {0, 0, 1}, limit = {-1, 1}, spring = "
     "{stiffness = 1} } },\n  goal = tp.within",
     19, "tp.joint: spring and limit on the same axis are not supported"},
    /* driven motors and tp.skill.motor: the skill at its line (13), the joint at 19 */
    {"err_joint_driven_name.lua", "  goal = tp.within",
     "  joints = { tp.joint { kind = \"hinge\", bodies = {\"ball\"}, anchor = {0, 0, 1}, motor = {max_torque = 1, "
     "driven = true} } },\n  goal = tp.within",
     19, "tp.joint: a joint with a driven motor needs a name"},
    {"err_joint_max_speed.lua", "  goal = tp.within",
     "  joints = { tp.joint { name = \"j\", kind = \"hinge\", bodies = {\"ball\"}, anchor = {0, 0, 1}, motor = {speed "
     "= 1, max_torque = 1, max_speed = 3} } },\n  goal = tp.within",
     19, "tp.joint 'j': motor.max_speed: only for a driven motor (driven = true)"},
    {"err_joint_driven_speed.lua", "  goal = tp.within",
     "  joints = { tp.joint { name = \"j\", kind = \"hinge\", bodies = {\"ball\"}, anchor = {0, 0, 1}, motor = {speed "
     "= 4, max_torque = 1, driven = true, max_speed = 3} } },\n  goal = tp.within",
     19, "tp.joint 'j': motor.speed = 4 is beyond its max_speed 3"},
    {"err_motor_joint.lua", "tp.skill.wait { name = \"wait\", duration = 0.5 }",
     "tp.skill.motor { name = \"wait\", joint = \"arm\", speed = 1 }", 13,
     "skill 'wait' (motor): joint: no joint named 'arm' in the domain"},
    {"err_motor_nospeed.lua", MOTOR_FIND,
     MOTOR_EDIT("tp.skill.motor { name = \"wait\", joint = \"j\" }", "motor = {max_torque = 1, driven = true}"), 13,
     "skill 'wait' (motor): 'speed' (a target speed, rad/s or m/s) or 'range' ({lo, hi}, sampled), or 'angle' (a "
     "servo's target, rad or m) or 'angle_range' is required"},
    {"err_motor_both.lua", "tp.skill.wait { name = \"wait\", duration = 0.5 }",
     "tp.skill.motor { name = \"wait\", joint = \"arm\", speed = 1, range = {0, 2} }", 13,
     "tp.skill.motor 'wait': give range = {lo, hi} or a distribution of the same value, not both"},
    {"err_motor_axis.lua", "tp.skill.wait { name = \"wait\", duration = 0.5 }",
     "tp.skill.motor { name = \"wait\", joint = \"arm\", axis = 3, speed = 1 }", 13, "axis must be 1 or 2 (got 3)"},
    {"err_motor_lohi.lua", "tp.skill.wait { name = \"wait\", duration = 0.5 }",
     "tp.skill.motor { name = \"wait\", joint = \"arm\", range = {2, 1} }", 13, "range: lo = 2 is above hi = 1"},
    {"err_motor_driven.lua", MOTOR_FIND,
     MOTOR_EDIT("tp.skill.motor { name = \"wait\", joint = \"j\", speed = 1 }", "motor = {speed = 0, max_torque = 1}"),
     13,
     "skill 'wait' (motor): joint 'j' (hinge) has no driven motor on axis 1 (declare motor = { ..., driven = true })"},
    {"err_motor_axis2.lua", MOTOR_FIND,
     MOTOR_EDIT("tp.skill.motor { name = \"wait\", joint = \"j\", axis = 2, speed = 1 }",
                "motor = {max_torque = 1, driven = true}"),
     13, "joint 'j' (hinge) has no driven motor on axis 2 (declare motor2"},
    {"err_motor_range.lua", MOTOR_FIND,
     MOTOR_EDIT("tp.skill.motor { name = \"wait\", joint = \"j\", range = {-1, 9} }",
                "motor = {max_torque = 1, driven = true, max_speed = 5}"),
     13, "skill 'wait' (motor): speed [-1, 9] rad/s is outside joint 'j''s +-5 (its motor.max_speed)"},
    /* servo angles (tp.skill.motor { angle }): the target within the joint's limit, one of speed or angle */
    {"err_servo_limit.lua", MOTOR_FIND,
     MOTOR_EDIT("tp.skill.motor { name = \"wait\", joint = \"j\", angle_range = {0, 1.2} }",
                "limit = {-1, 1}, motor = {max_torque = 1, driven = true}"),
     13, "skill 'wait' (motor): angle [0, 1.2] rad is outside joint 'j''s limit [-1, 1]"},
    {"err_servo_range.lua", MOTOR_FIND,
     MOTOR_EDIT("tp.skill.motor { name = \"wait\", joint = \"j\", angle = 4 }",
                "motor = {max_torque = 1, driven = true}"),
     13, "skill 'wait' (motor): angle [4, 4] rad is outside joint 'j''s range [-3.14159, 3.14159]"},
    {"err_servo_driven.lua", MOTOR_FIND,
     MOTOR_EDIT("tp.skill.motor { name = \"wait\", joint = \"j\", angle = 0.5 }",
                "motor = {speed = 0, max_torque = 1}"),
     13,
     "skill 'wait' (motor): joint 'j' (hinge) has no driven motor on axis 1 (declare motor = { ..., driven = true })"},
    {"err_servo_both.lua", "tp.skill.wait { name = \"wait\", duration = 0.5 }",
     "tp.skill.motor { name = \"wait\", joint = \"arm\", speed = 1, angle = 0.5 }", 13,
     "tp.skill.motor 'wait': give 'speed' (or 'range') or 'angle' (or 'angle_range'), not both"},
    {"err_servo_gain.lua", "tp.skill.wait { name = \"wait\", duration = 0.5 }",
     "tp.skill.motor { name = \"wait\", joint = \"arm\", angle = 0.5, gain = 0 }", 13,
     "tp.skill.motor 'wait': gain must be > 0 (1/s; got 0)"},
    {"err_servo_normal.lua", MOTOR_FIND,
     MOTOR_EDIT("tp.skill.motor { name = \"wait\", joint = \"j\", angle = tp.normal(0, 1) }",
                "motor = {max_torque = 1, driven = true}"),
     13, "skill 'wait' (motor): angle: a bounded distribution is required"},

    /* tp.compound: one-line errors naming parts[k] and the field, at the tp.compound's line */
    {"err_compound_noparts.lua", COMPOUND_FIND, COMPOUND_EDIT("parts = {}"), 8,
     "tp.compound 'ball': parts must have at least one part"},
    {"err_compound_parts.lua", COMPOUND_FIND, COMPOUND_EDIT("parts = 3"), 8,
     "tp.compound 'ball': parts: expected a list of parts"},
    {"err_compound_size.lua", COMPOUND_FIND,
     COMPOUND_EDIT("parts = { {shape = \"box\", size = {0.1, 0.1, 0.1}}, {shape = \"box\", size = {0.1, -1, 0.1}} }"),
     8, "tp.compound 'ball': parts[2].size[2] must be > 0 (got -1)"},
    {"err_compound_shape.lua", COMPOUND_FIND, COMPOUND_EDIT("parts = { {shape = \"cone\", radius = 0.1} }"), 8,
     "tp.compound 'ball': parts[1].shape: unknown shape \"cone\" (expected box, sphere, cylinder, capsule or mesh)"},
    {"err_compound_plane.lua", COMPOUND_FIND,
     COMPOUND_EDIT("parts = { {shape = \"sphere\", radius = 0.02}, {shape = \"plane\"} }"), 8,
     "tp.compound 'ball': parts[2].shape: a plane cannot be a part"},
    {"err_compound_pmass.lua", COMPOUND_FIND,
     COMPOUND_EDIT("parts = { {shape = \"sphere\", radius = 0.02, mass = 0} }"), 8,
     "tp.compound 'ball': parts[1].mass must be > 0 (got 0)"},
    {"err_compound_field.lua", COMPOUND_FIND,
     COMPOUND_EDIT("parts = { {shape = \"sphere\", radius = 0.02, size = {1, 1, 1}} }"), 8,
     "unknown field 'size' in tp.compound 'ball': parts[1]"},
    {"err_compound_radius.lua", COMPOUND_FIND, COMPOUND_EDIT("parts = { {shape = \"capsule\", radius = 0.02} }"), 8,
     "tp.compound 'ball': parts[1].'length' is required"},
    {"err_compound_range.lua", COMPOUND_FIND, COMPOUND_EDIT("parts = { {shape = \"box\", size = {1e9, 0.1, 0.1}} }"), 8,
     "body \"ball\": parts[1].size[0] = 1e+09 must be in [1e-06, 100000] m"},
    {"err_compound_mass.lua", COMPOUND_FIND,
     "tp.compound { name = \"ball\", class = \"passive\", mass = -1, parts = { {shape = \"sphere\", radius = 0.02} } }",
     8, "tp.compound 'ball': mass must be > 0 (got -1)"},
    {"err_compound_nomass.lua", COMPOUND_FIND,
     "tp.compound { name = \"ball\", class = \"passive\", parts = { {shape = \"sphere\", radius = 0.02} } }", 8,
     "'mass' or 'density' is required for a moving compound"},
};

static void expect_base_edit(const char *base, const BaseEdit *e)
{
    const char *at = strstr(base, e->find);
    assert_non_null(at);
    assert_null(strstr(at + 1, e->find)); /* exactly one place */
    size_t head = (size_t)(at - base), flen = strlen(e->find), rlen = strlen(e->replace);
    size_t n = strlen(base) - flen + rlen;
    char *text = malloc(n + 1);
    assert_non_null(text);
    memcpy(text, base, head);
    memcpy(text + head, e->replace, rlen);
    strcpy(text + head + rlen, at + flen);
    tpScriptDef def = tpDefaultScriptDef();
    def.path = e->name;
    def.source = text;
    def.source_len = n;
    char err[2048] = "", prefix[128];
    tpScript *sc = tpCreateScript(&def, err, sizeof err);
    tpDestroyScript(sc);
    free(text);
    assert_null(sc);
    snprintf(prefix, sizeof prefix, "%s:%d:", e->name, e->line);
    if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, e->what))
        fprintf(stderr, "expected \"%s ...%s...\"\n     got \"%s\"\n", prefix, e->what, err);
    assert_memory_equal(err, prefix, strlen(prefix));
    assert_non_null(strstr(err, e->what));
}

/* tp.joint: every kind, its fields, body names resolved, a distance joint's anchors at the bodies'
 * centres and its length their distance. */
static void test_joints(void **state)
{
    (void)state;
    tpScript *s = load("joints.lua", NULL, 0);
    const tpWorld *w = tpDomain_World(tpScript_Domain(s));
    assert_int_equal(tpWorld_JointCount(w), 7);
    const tpJointKind kinds[7] = {TP_JOINT_HINGE,     TP_JOINT_SLIDER, TP_JOINT_BALL,    TP_JOINT_FIXED,
                                  TP_JOINT_UNIVERSAL, TP_JOINT_HINGE2, TP_JOINT_DISTANCE};
    const int a[7] = {2, 3, 4, 2, 4, 2, 4}, b[7] = {1, -1, 3, 3, -1, 4, 2};
    for (int j = 0; j < 7; j++) {
        const tpJointDef *jd = tpWorld_Joint(w, j);
        assert_int_equal(jd->kind, kinds[j]);
        assert_int_equal(jd->body_a, a[j]);
        assert_int_equal(jd->body_b, b[j]);
    }
    const tpJointDef *door = tpWorld_Joint(w, tpWorld_FindJoint(w, "door"));
    assert_true(door->axis[2] == 1.0 && door->axes[0].limit && door->axes[0].lo == -0.5 && door->axes[0].hi == 1.0);
    assert_true(door->axes[0].bounce == 0.2 && door->axes[0].motor && door->axes[0].max_force == 3.0);
    assert_true(tpWorld_Joint(w, 1)->axes[0].stiffness == 10.0 && tpWorld_Joint(w, 1)->axes[0].rest == 0.1);
    assert_true(tpWorld_Joint(w, 3)->collide && !door->collide);
    assert_true(tpWorld_Joint(w, 4)->axes[1].limit && !tpWorld_Joint(w, 4)->axes[0].limit);
    assert_true(tpWorld_Joint(w, 5)->axes[1].motor && tpWorld_Joint(w, 5)->axes[1].speed == 5.0);
    const tpJointDef *d = tpWorld_Joint(w, 6);
    assert_true(d->anchor[0] == 3.0 && d->anchor2[0] == 1.0 && fabs(d->length - 2.0) < 1e-12);
    tpDestroyScript(s);
}

/* tp.compound: the parts with their shapes and poses, the mass from the density and a given part
 * mass (2 + 1000 x (0.002 + 0.001) = 5 kg), the frame at the centre of mass with the script's origin
 * recorded, a static compound kept where the script put it. */
static void test_compound(void **state)
{
    (void)state;
    tpScript *s = load("compound.lua", NULL, 0);
    const tpWorld *w = tpDomain_World(tpScript_Domain(s));
    const tpBodyDef *b = tpWorld_Body(w, tpWorld_FindBody(w, "thing"));
    assert_int_equal(b->shape, TP_SHAPE_COMPOUND);
    assert_int_equal(b->nparts, 3);
    assert_int_equal(b->parts[1].shape, TP_SHAPE_MESH);
    assert_int_equal(b->parts[1].mesh.ntriangles, 12);
    assert_true(fabs(b->mass - 5.0) < 1e-12);
    double pm[3], com[3], I[9];
    assert_true(tpCompound_MassProperties(b, pm, com, I, NULL, 0));
    assert_true(fabs(pm[0] - 2.0) < 1e-12 && fabs(pm[1] - 1.0) < 1e-12 && pm[2] == 2.0);
    assert_true(fabs(com[0]) + fabs(com[1]) + fabs(com[2]) < 1e-15);
    /* the centre of mass along the compound's x: (2 * 0 + 1 * 0.15 + 2 * -0.15) / 5 = -0.03 m */
    const double c = -0.03, cy = cos(0.25), sy = sin(0.25);
    assert_true(fabs(b->mesh_origin[0] + c) < 1e-12 && fabs(b->parts[0].pos[0] + c) < 1e-12);
    const double wx = 2 * cy * cy - 1, wy = 2 * sy * cy; /* the compound's x axis, turned by yaw 0.5 */
    assert_true(fabs(b->pos[0] - (1 + c * wx)) < 1e-12 && fabs(b->pos[1] - c * wy) < 1e-12 && b->pos[2] == 0.5);
    assert_true(fabs(b->parts[1].quat[3] - sin(0.15)) < 1e-12);
    const tpBodyDef *shelf = tpWorld_Body(w, tpWorld_FindBody(w, "shelf"));
    assert_true(shelf->nparts == 2 && shelf->pos[0] == -1.0 && shelf->parts[1].pos[2] == 0.6);
    assert_true(shelf->size[0] == 0.8 && fabs(shelf->size[2] - 1.22) < 1e-12);
    tpDestroyScript(s);
}

static int find_skill(const tpTacticDef *t, const char *name)
{
    for (int i = 0; i < t->nskills; i++)
        if (strcmp(t->skills[i].name, name) == 0)
            return i;
    return -1;
}

/* ------------------------------------------------------------------------------------------ */

static void test_valid_domain(void **state)
{
    (void)state;
    tpScript *s = load("ok.lua", NULL, 0);
    tpDomain *d = tpScript_Domain(s);
    assert_non_null(d);
    const tpWorld *w = tpDomain_World(d);
    assert_int_equal(tpWorld_BodyCount(w), 5);
    const char *names[] = {"ground", "wall_n", "robot", "ball", "bar"};
    tpBodyClass classes[] = {TP_BODY_STATIC, TP_BODY_STATIC, TP_BODY_ACTIVE, TP_BODY_PASSIVE, TP_BODY_FOREIGN};
    for (int i = 0; i < 5; i++) {
        assert_string_equal(tpWorld_Body(w, i)->name, names[i]);
        assert_int_equal(tpWorld_Body(w, i)->cls, classes[i]);
    }
    assert_int_equal(tpWorld_Body(w, 0)->shape, TP_SHAPE_PLANE);
    assert_true(fabs(tpWorld_Body(w, 1)->size[0] - 4.1) < 1e-12); /* W + 0.1 with the default W */
    assert_int_equal(tpWorld_Body(w, 1)->material, 1);            /* "wall" */
    assert_int_equal(tpWorld_Body(w, 3)->material, 0);            /* default: the first material */
    assert_true(fabs(tpWorld_Body(w, 3)->size[0] - 0.0215) < 1e-12);
    assert_int_equal(tpWorld_Body(w, 4)->motion.kind, TP_MOTION_ROTATE);
    assert_true(fabs(tpWorld_Body(w, 4)->motion.rate - 0.6) < 1e-12);
    assert_true(tpWorld_Body(w, 2)->planar_force);

    const tpDomainDef *def = tpDomain_Def(d);
    assert_string_equal(def->name, "minigolf");
    assert_string_equal(def->description, "test fixture green");
    assert_int_equal(def->scene.nmaterials, 2);
    assert_int_equal(def->scene.ncontacts, 1);
    assert_true(fabs(def->scene.contacts[0].restitution - 0.8) < 1e-12);
    assert_true(fabs(def->scene.contacts[0].friction - sqrt(0.4 * 0.3)) < 1e-12); /* mixing rule */

    assert_int_equal(def->ntactics, 1);
    const tpTacticDef *t = &def->tactics[0];
    assert_string_equal(t->name, "golfer");
    assert_int_equal(t->nskills, 3);
    assert_int_equal(t->body, 2);
    assert_int_equal(t->initial, 0);
    int wait = find_skill(t, "wait"), pos = find_skill(t, "position"), kick = find_skill(t, "kick");
    assert_int_equal(wait, 0);
    assert_int_equal(pos, 1);
    assert_int_equal(kick, 2);
    assert_int_equal(t->skills[kick].kind, TP_SKILL_KICK);
    assert_int_equal(t->skills[kick].body, 2);   /* inherited from the tactic */
    assert_int_equal(t->skills[kick].target, 3); /* "ball" */
    assert_int_equal(t->skills[pos].frame, TP_FRAME_TARGET);
    assert_int_equal(t->skills[pos].drive.point.kind, TP_DIST_DISC);
    assert_int_equal(t->skills[wait].wait.duration.kind, TP_DIST_UNIFORM);
    assert_true(t->skills[wait].wait.duration.b[0] == 4.0);
    assert_true(t->pi[wait * 3 + pos] == 1.0);
    assert_true(t->pi[wait * 3 + kick] == 0.0);
    assert_true(t->pi[pos * 3 + kick] == 0.75);
    assert_true(t->pi[pos * 3 + wait] == 0.25);
    assert_non_null(t->pi_dynamic);
    assert_false(t->pi_dynamic[wait]);
    assert_true(t->pi_dynamic[kick]);

    assert_int_equal(def->sampling.ndists, 1);
    assert_int_equal(def->sampling.body, 2);
    assert_int_equal(def->quality.kind, TP_METRIC_DISTANCE);
    assert_int_equal(def->quality.body, 3);
    assert_int_equal(def->solution.kind, TP_METRIC_STEPS);
    assert_true(def->planner.mu == 1000);
    assert_int_equal(def->planner.max_iters, 500);
    assert_int_equal(def->planner.seed, 7);
    assert_int_equal(def->planner.kind, TP_PLANNER_BGT);

    /* conditions on the initial state: the ball is not in the hole, the robot is in its area */
    tpProblem p = tpDomain_Problem(d);
    void *x = calloc(1, p.state_bytes);
    p.initial_state(p.ctx, x);
    assert_int_equal(p.goal(p.ctx, x), 0);
    assert_non_null(p.valid);
    assert_int_equal(p.valid(p.ctx, x), 1);
    free(x);

    assert_int_equal(strncmp(tpScript_Hash(s), "fnv1a64:", 8), 0);
    assert_int_equal(strlen(tpScript_Hash(s)), 24);
    assert_string_equal(tpScript_ParamsJson(s), "{}");
    tpDestroyScript(s);
}

/* tp.nav: the fixture asserts grid, plan and follower results while loading; its nav_to skill
 * must build and the planner must run it. */
static void test_nav(void **state)
{
    (void)state;
    tpScript *s = load("nav.lua", NULL, 0);
    tpDomain *d = tpScript_Domain(s);
    assert_non_null(d);
    tpDestroyScript(s);
}

static void test_params(void **state)
{
    (void)state;
    tpScriptParam ps[] = {{"width", "5"}, {"label", "a \"b\""}, {"fast", "true"}};
    tpScript *s = load("ok.lua", ps, 3);
    const tpWorld *w = tpDomain_World(tpScript_Domain(s));
    assert_true(fabs(tpWorld_Body(w, 1)->size[0] - 5.1) < 1e-12);
    assert_true(fabs(tpWorld_Body(w, 4)->motion.rate - 1.2) < 1e-12);
    assert_string_equal(tpScript_ParamsJson(s), "{\"fast\":true,\"label\":\"a \\\"b\\\"\",\"width\":5}");
    tpDestroyScript(s);
    tpDestroyScript(NULL);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("err_syntax.lua", NULL, 0, 3, "unexpected symbol");
    expect_error("err_runtime.lua", NULL, 0, 4, "attempt to call a nil value");
    for (int i = 0; i < 8; i++) /* fresh states: string hashing (iteration order) changes each time */
        expect_error("err_fields2.lua", NULL, 0, 3, "unknown field 'aa' in tp.box");
    /* base.lua must load; each one-edit variant must fail where its table row says */
    tpScriptDef def = tpDefaultScriptDef();
    def.path = fixture("base.lua");
    size_t blen = 0;
    char berr[512];
    char *base = tpFile_Read(def.path, 1 << 20, &blen, berr, sizeof berr);
    assert_non_null(base);
    tpDestroyScript(load("base.lua", NULL, 0));
    for (size_t i = 0; i < sizeof base_edits / sizeof base_edits[0]; i++)
        expect_base_edit(base, &base_edits[i]);
    free(base);
    expect_error("err_random.lua", NULL, 0, 3, "math.random is disabled: sampling must use tp distributions");
    expect_error("err_choice.lua", NULL, 0, 3, "tp.choice: spread[2] must be >= 0 (got -0.2)");
    expect_error("err_nav.lua", NULL, 0, 3, "tp.nav.grid: shapes[1].kind: unknown shape kind \"cone\"");
    /* conditions over time: an empty sequence, a child that is no condition, a window the wrong way */
    expect_error("err_sequence.lua", NULL, 0, 3, "tp.sequence: expected at least one condition");
    expect_error("err_sequence_child.lua", NULL, 0, 4,
                 "tp.sequence: entry 2: expected a condition or a function, got number");
    expect_error("err_within_time.lua", NULL, 0, 4, "tp.within_time: from must be <= to (got from = 2 > to = 1)");
    expect_error("err_at_time.lua", NULL, 0, 4, "tp.at_time: 't' is required");
    expect_error("err_never.lua", NULL, 0, 3, "tp.never: expected a condition or a function, got string");

    tpScriptParam bad[] = {{"width", "abc"}};
    expect_error("ok.lua", bad, 1, 4, "set width=abc: expected a number");
    tpScriptParam unknown[] = {{"width", "5"}, {"foo", "1"}};
    expect_error("ok.lua", unknown, 2, 7, "unknown parameter 'foo' (the script reads: fast, label, width)");

    char err[256] = "";
    assert_null(tpLoadScript(fixture("no_such_file.lua"), NULL, 0, err, sizeof err));
    assert_non_null(strstr(err, "cannot open"));
}

/* Runs the domain's planner with its own definition; returns the status. */
static tpPlanStatus run(tpDomain *d, tpPlanResult *res, tpPlanner **out)
{
    char err[512] = "";
    tpProblem p = tpDomain_Problem(d);
    tpPlanner *pl = tpCreatePlanner(&tpDomain_Def(d)->planner, &p, err, sizeof err);
    if (!pl)
        fprintf(stderr, "planner: %s\n", err);
    assert_non_null(pl);
    *out = pl;
    return tpPlanner_Run(pl, res);
}

/* Two domains in one process keep their own navigation caches (tpSkillCache): planning one,
 * destroying it, then planning the other gives the other exactly what it gets alone (the same
 * tree), and nothing of the first is used after it is freed (ASan). */
static void test_nav_two_domains(void **state)
{
    (void)state;
    tpPlanResult ra, rb, rc;
    tpPlanner *pa, *pb, *pc;
    tpScript *sa = load("nav.lua", NULL, 0), *sb = load("nav.lua", NULL, 0);
    assert_int_not_equal(run(tpScript_Domain(sa), &ra, &pa), TP_PLAN_ERROR);
    const int64_t iters_a = ra.stats.iterations, nodes_a = ra.stats.nodes;
    assert_true(iters_a > 0); /* nav_to ran: the grid and paths were built in sa's cache */
    tpDestroyPlanner(pa);
    tpDestroyScript(sa);
    assert_int_not_equal(run(tpScript_Domain(sb), &rb, &pb), TP_PLAN_ERROR);
    assert_int_equal(rb.stats.iterations, iters_a);
    assert_int_equal(rb.stats.nodes, nodes_a);
    /* and again on the same domain: its own warm cache gives the same tree */
    assert_int_not_equal(run(tpScript_Domain(sb), &rc, &pc), TP_PLAN_ERROR);
    assert_int_equal(rc.stats.iterations, iters_a);
    tpDestroyPlanner(pb);
    tpDestroyPlanner(pc);
    tpDestroyScript(sb);
}

static void test_callbacks(void **state)
{
    (void)state;
    tpScript *s = load("dyn.lua", NULL, 0);
    tpDomain *d = tpScript_Domain(s);
    const tpTacticDef *t = &tpDomain_Def(d)->tactics[0];
    assert_true(t->pi_dynamic[0]);
    assert_int_equal(t->skills[1].kind, TP_SKILL_CUSTOM);
    tpPlanResult res;
    tpPlanner *pl = NULL;
    tpPlanStatus st = run(d, &res, &pl);
    if (st != TP_PLAN_SOLVED)
        fprintf(stderr, "status %d: %s\n", st, tpDomain_Error(d));
    assert_int_equal(st, TP_PLAN_SOLVED);
    assert_string_equal(tpDomain_Error(d), "");
    /* the goal needs the Π row to have run and the custom skill to have pushed the robot */
    const tpTree *tree = tpPlanner_Tree(pl);
    int32_t leaf = res.solutions[res.best_solution];
    const tpBodyState *b = tpState_Bodies(tpTree_State(tree, leaf));
    assert_true(b[0].pos[0] > 0.02);
    /* the Lua solution metric returned the number of steps */
    assert_true(res.costs[res.best_solution] == (double)tpTree_Node(tree, leaf)->depth);
    tpDestroyPlanner(pl);
    tpDestroyScript(s);
}

/* The worked example of docs/lua-api.md (a copy of it) loads and plans a solution. */
static void test_doc_example(void **state)
{
    (void)state;
    tpScript *s = load("example.lua", NULL, 0);
    tpPlanResult res;
    tpPlanner *pl = NULL;
    assert_int_equal(run(tpScript_Domain(s), &res, &pl), TP_PLAN_SOLVED);
    tpDestroyPlanner(pl);
    tpDestroyScript(s);
}

static void expect_run_error(const char *name, int line, const char *what)
{
    tpScript *s = load(name, NULL, 0);
    tpDomain *d = tpScript_Domain(s);
    tpPlanResult res;
    tpPlanner *pl = NULL;
    assert_int_equal(run(d, &res, &pl), TP_PLAN_ERROR);
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%s:%d:", fixture(name), line);
    const char *msg = tpDomain_Error(d);
    if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, what))
        fprintf(stderr, "expected \"%s ...%s...\"\n     got \"%s\"\n", prefix, what, msg);
    assert_memory_equal(msg, prefix, strlen(prefix));
    assert_non_null(strstr(msg, what));
    tpDestroyPlanner(pl);
    tpDestroyScript(s);
}

static void test_callback_errors(void **state)
{
    (void)state;
    expect_run_error("cb_error.lua", 10, "boom");
    expect_run_error("stale.lua", 9, "state view used after its callback returned");
}

/* A script given as text (the service's case) has no folder: it loads, can require only "tp",
 * can name no data file, and a limit still applies. */
static void test_source_script(void **state)
{
    (void)state;
    static const char ok[] =
        "local tp = require 'tp'\n"
        "return tp.domain { name = 'txt', bodies = { tp.plane { name = 'g' },\n"
        "  tp.box { name = 'r', class = 'active', size = {0.2, 0.2, 0.2}, mass = 1, pos = {0, 0, 0.1} } },\n"
        "  tactics = { tp.tactic { name = 't', body = 'r', skills = { tp.skill.wait { name = 'w', duration = 0.1 } } } "
        "},\n"
        "  goal = function(s) return s.t > 0.05 end }\n";
    char err[1024] = "";
    tpScriptDef def = tpDefaultScriptDef();
    def.path = "job.lua";
    def.source = ok;
    def.source_len = sizeof ok - 1;
    tpScript *s = tpCreateScript(&def, err, sizeof err);
    if (!s)
        fprintf(stderr, "unexpected: %s\n", err);
    assert_non_null(s);
    assert_non_null(tpScript_Domain(s));
    tpDestroyScript(s);

    /* the load limit is long (60 s) except for the endless loop: a loaded machine must not make
     * the time limit fire before the memory limit (no timing in tests) */
    static const struct {
        const char *src, *msg;
    } bad[] = {
        {"local m = require 'common'", "job.lua:1: require 'common': the script has no folder"},
        {"local tp = require 'tp'\nlocal p = tp.pattern { image = 'x.pbm', count = 1, pitch = 0.1 }",
         "job.lua:2: tp.pattern: image: 'x.pbm': the script has no folder"},
        {"local t = {} for i = 1, 1e9 do t[i] = i end", "job.lua:1: memory limit of 16 MB exceeded"},
        {"while true do end", "job.lua:1: time limit exceeded"},
        {"x = = 1", "job.lua:1: unexpected symbol"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        def.source = bad[i].src;
        def.source_len = strlen(bad[i].src);
        def.memory_limit = (size_t)16 << 20;
        def.load_time_limit = strstr(bad[i].src, "while true") ? 0.2 : 60.0;
        s = tpCreateScript(&def, err, sizeof err);
        assert_null(s);
        if (strncmp(err, bad[i].msg, strlen(bad[i].msg)) != 0)
            fprintf(stderr, "expected \"%s...\"\n     got \"%s\"\n", bad[i].msg, err);
        assert_memory_equal(err, bad[i].msg, strlen(bad[i].msg));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_domain),
        cmocka_unit_test(test_joints),
        cmocka_unit_test(test_compound),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_callbacks),
        cmocka_unit_test(test_callback_errors),
        cmocka_unit_test(test_doc_example),
        cmocka_unit_test(test_nav),
        cmocka_unit_test(test_source_script),
        cmocka_unit_test(test_nav_two_domains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
