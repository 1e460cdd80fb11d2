/* The joints of a plan (member "joints", the joints audit: drawn by the viewers): exact round trips of a
 * hinge to the world and a hinge2 between two bodies, byte-identical rewrites, a plan without the
 * member, and the refusals of the writer and of the strict reader (unknown members and kinds, wrong
 * types, a body that does not exist, an axis that is not unit length), each naming the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/plan.h"

#include "plan_edit.h"
#include "tmp_dir.h"

static char *dupstr(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    assert_non_null(d);
    return strcpy(d, s);
}

/* A record with the bodies "lever" and "car" and two joints: a hinge of the lever to the world and
 * a hinge2 of the car to the lever (a stand-in for a wheel). */
static void build(tpPlanRecord *rec)
{
    plan_header(rec, "j", 2);
    plan_static_body(rec, 0, "lever");
    plan_static_body(rec, 1, "car");
    rec->nworlds = 1;
    rec->worlds = calloc(1, sizeof *rec->worlds);
    assert_true(tpPlanWorld_Alloc(&rec->worlds[0], rec, 0));
    rec->njoints = 2;
    rec->joints = calloc(2, sizeof *rec->joints);
    rec->joints[0] = (tpPlanJoint){
        .kind = 0, .body_a = 0, .body_b = -1, .anchor = {0.1, 0, 0}, .axis = {0, 1, 0}, .anchor2 = {1.05, 0, 0.265}};
    rec->joints[0].name = dupstr("pivot");
    rec->joints[1] = (tpPlanJoint){.kind = 5,
                                   .body_a = 1,
                                   .body_b = 0,
                                   .anchor = {0.25, 1.0 / 3.0, -0.06},
                                   .axis = {0, 0, 1},
                                   .anchor2 = {0, 0, 0},
                                   .axis2 = {0, -1, 0}};
    rec->joints[1].name = dupstr("");
}

static void test_round_trip(void **state)
{
    (void)state;
    tpPlanRecord rec, back;
    build(&rec);
    char *ta = plan_round_trip(&rec, &back);
    assert_int_equal(back.njoints, 2);
    for (int i = 0; i < 2; ++i) {
        const tpPlanJoint *x = &rec.joints[i], *y = &back.joints[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->body_a, y->body_a);
        assert_int_equal(x->body_b, y->body_b);
        assert_memory_equal(x->anchor, y->anchor, sizeof x->anchor); /* bit for bit */
        assert_memory_equal(x->axis, y->axis, sizeof x->axis);
        assert_memory_equal(x->anchor2, y->anchor2, sizeof x->anchor2);
        assert_memory_equal(x->axis2, y->axis2, sizeof x->axis2);
    }
    assert_non_null(strstr(ta,
                           "\n  \"joints\": [\n    {\"name\": \"pivot\", \"kind\": \"hinge\", \"bodies\": [\"lever\", "
                           "null], \"anchor\": [0.1, 0, 0], \"axis\": [0, 1, 0], \"anchor2\": [1.05, 0, 0.265], "
                           "\"axis2\": [0, 0, 0]},\n    {\"name\": \"\", \"kind\": \"hinge2\", \"bodies\": "
                           "[\"car\", \"lever\"]"));
    free(ta);
    tpPlanRecord_Free(&back);
    /* no joints: no member, and a plan without it reads with none */
    tpPlanRecord_Free(&rec);
    build(&rec);
    free(rec.joints[0].name);
    free(rec.joints[1].name);
    free(rec.joints);
    rec.joints = NULL;
    rec.njoints = 0;
    plan_expect_absent(&rec, "\"joints\"", &back);
    assert_int_equal(back.njoints, 0);
    assert_null(back.joints);
    tpPlanRecord_Free(&back);
    tpPlanRecord_Free(&rec);
}

static void test_writer_refusals(void **state)
{
    (void)state;
    tpPlanRecord rec;
    build(&rec);
    tpPlanJoint keep = rec.joints[0];
    rec.joints[0].axis[1] = 0.5;
    plan_expect_write_refused(&rec, "joints[0].axis: not a unit vector (length 0.5)");
    rec.joints[0] = keep;
    rec.joints[0].axis2[2] = 1;
    plan_expect_write_refused(&rec, "joints[0].axis2: [0, 0, 0] for this kind (got length 1)");
    rec.joints[0] = keep;
    rec.joints[0].body_b = 0;
    plan_expect_write_refused(&rec, "joints[0].bodies[1]: index 0 is not another body or the world (-1)");
    rec.joints[0] = keep;
    rec.joints[0].body_a = 2;
    plan_expect_write_refused(&rec, "joints[0].bodies[0]: index 2 out of range [0, 2)");
    rec.joints[0] = keep;
    rec.joints[0].anchor[0] = NAN;
    plan_expect_write_refused(&rec, "joints[0].anchor: a coordinate beyond");
    rec.joints[0] = keep;
    rec.joints[0].kind = TP_PLAN_JOINT_KINDS;
    plan_expect_write_refused(&rec, "joints[0].kind: 7 is not a joint kind");
    rec.joints[0] = keep;
    tpPlanRecord_Free(&rec);
}

/* Writes build()'s plan, applies an edit to its text and expects the reader to refuse it. */
#define expect_edit_refused(from, to, want) plan_expect_built_edit_refused(build, from, to, want)

static void test_reader_refusals(void **state)
{
    (void)state;
    expect_edit_refused("\"joints\": [\n", "\"joints\": {}, \"x\": [\n",
                        "joints: expected an array of 1..4096 joints, got an object");
    expect_edit_refused(
        "\"kind\": \"hinge\"", "\"kind\": \"hinge\", \"limit\": 1",
        "joints[0]: unknown field \"limit\" (expected name, kind, bodies, anchor, axis, anchor2, axis2)");
    expect_edit_refused("\"kind\": \"hinge\"", "\"kind\": \"pin\"", "joints[0].kind: expected one of hinge, slider");
    expect_edit_refused("\"bodies\": [\"lever\", null]", "\"bodies\": [\"lev\", null]",
                        "joints[0].bodies[0]: expected the name of a body, got an unknown name");
    expect_edit_refused("\"bodies\": [\"lever\", null]", "\"bodies\": [\"lever\"]",
                        "joints[0].bodies: expected [body, body or null], got another length");
    expect_edit_refused("\"bodies\": [\"car\", \"lever\"]", "\"bodies\": [\"car\", 3]",
                        "joints[1].bodies[1]: expected the name of a body or null (the world), got a number");
    expect_edit_refused("\"axis\": [0, 1, 0]", "\"axis\": [0, 2, 0]", "joints[0].axis: not a unit vector (length 2)");
    expect_edit_refused("\"axis\": [0, 1, 0]", "\"axis\": [0, 1]", "joints[0].axis: expected an array of 3 numbers");
    expect_edit_refused("\"anchor\": [0.1, 0, 0]", "\"anchor\": [0.1, null, 0]",
                        "joints[0].anchor[1]: expected a finite number, got null");
    expect_edit_refused("{\"name\": \"pivot\"", "{\"name\": 5", "joints[0].name: expected a string, got a number");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_writer_refusals),
        cmocka_unit_test(test_reader_refusals),
    };
    return cmocka_run_group_tests(tests, tmp_dir_setup, tmp_dir_teardown);
}
