/* Which node of a condition tree made it false (tpCond_EvalBlame), and the words for it
 * (tpCond_Describe): the false leaf of an `and`, an `or` none of whose operands held, a `not`
 * whose operand held (naming the operand of an `or` that held), labels and generic names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "cond_testing.h"
#include "tp/base.h"
#include "tp/tactics.h"

#include "box_scene.h"

static tpCond *group(tpCondKind kind, tpCond *a, tpCond *b, const char *label)
{
    tpCond *c = tpCreateCond(kind);
    assert_true(tpCond_Add(c, a));
    if (b) {
        assert_true(tpCond_Add(c, b));
    }
    if (label) {
        tpStrCopy(c->label, sizeof c->label, label);
    }
    return c;
}

static void test_blame(void **state)
{
    (void)state;
    Scene s;
    make_world(&s);
    tpStateView v = {s.world, s.x, 1.5, NULL};
    char text[TP_REJECT_TEXT_MAX];
    const tpCond *blame = NULL;

    /* and: the first false operand, with the value it saw */
    tpCond *yes = in_x(0, 3, "tp.inside 'box' (s.lua:1)"), *no = in_x(3, 4, "tp.inside 'box' (s.lua:2)");
    tpCond *all = group(TP_COND_AND, yes, no, "tp.all (s.lua:3)");
    assert_int_equal(tpCond_EvalBlame(all, &v, NULL, &blame), 0);
    assert_ptr_equal(blame, no);
    tpCond_Describe(blame, &v, NULL, text, sizeof text);
    assert_string_equal(text, "tp.inside 'box' (s.lua:2) was false: 'box' at (2, 0, 0.5) at t = 1.5 s");
    assert_int_equal(tpCond_Eval(all, &v, NULL), 0);

    /* or: none held, the `or` itself; a true tree leaves no meaningful blame */
    tpCond *any = group(TP_COND_OR, in_x(5, 6, NULL), in_x(-2, -1, NULL), NULL);
    blame = NULL;
    assert_int_equal(tpCond_EvalBlame(any, &v, NULL, &blame), 0);
    assert_ptr_equal(blame, any);
    tpCond_Describe(blame, &v, NULL, text, sizeof text);
    assert_string_equal(text, "or was false: none of its 2 conditions held at t = 1.5 s");

    /* not: the negated condition held; for a negated `or`, the operand that held */
    tpCond *neg = group(TP_COND_NOT, group(TP_COND_OR, in_x(5, 6, NULL), in_x(1, 3, "in range (s.lua:9)"), NULL), NULL,
                        "tp.negate (s.lua:8)");
    tpCond *root = group(TP_COND_AND, in_x(0, 3, NULL), neg, NULL);
    blame = NULL;
    assert_int_equal(tpCond_EvalBlame(root, &v, NULL, &blame), 0);
    assert_ptr_equal(blame, neg);
    tpCond_Describe(blame, &v, NULL, text, sizeof text);
    assert_string_equal(text, "tp.negate (s.lua:8) was false: or held, by in range (s.lua:9) at t = 1.5 s");

    /* a leaf without a label: a generic name with its body */
    tpCond_Describe(any->children[0], &v, NULL, text, sizeof text);
    assert_string_equal(text, "in_box 'box' was false: 'box' at (2, 0, 0.5) at t = 1.5 s");

    /* the blame follows the last false answer: the same tree, another state */
    s.x[0].pos[0] = 3.5; /* now `yes` is false, `no` true */
    blame = NULL;
    assert_int_equal(tpCond_EvalBlame(all, &v, NULL, &blame), 0);
    assert_ptr_equal(blame, yes);
    tpDestroyCond(all);
    tpDestroyCond(any);
    tpDestroyCond(root);
    tpDestroyWorld(s.world);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
