/* Conditions over time (cond_temporal.c): tp.sequence, tp.ever, tp.never, tp.within_time and
 * tp.at_time on hand-made state sequences (the box's x along a list of steps), observed step by
 * step as the planner and replay observe them; a one-step event (a function true at one step
 * only, as a touch inside a skill's busy segment) that must not be missed; nesting; memory slots;
 * the structural checks; the words for a false one. */
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

static tpCond *node(tpCondKind kind, tpCond *a, tpCond *b, tpCond *c3)
{
    tpCond *c = tpCreateCond(kind);
    tpCond *kids[3] = {a, b, c3};
    for (int i = 0; i < 3; ++i) {
        if (kids[i]) {
            assert_true(tpCond_Add(c, kids[i]));
        }
    }
    return c;
}

/* A one-step event: true at step `user` only (the step's number is the view's t / 0.1). */
static int one_step(void *user, int id, const tpStateView *v)
{
    (void)id;
    const int step = (int)(v->t / 0.1 + 0.5);
    return step == *(const int *)user;
}

/* Observes c along steps 1..n, the box at xs[i - 1] at t = 0.1 i, and records the root's value after
 * each step in vals (n entries); the memory (slots numbered from 0) is left in mem. */
static void run(const tpCond *c, Scene *s, const double *xs, int n, int *vals, int32_t *mem)
{
    for (int i = 1; i <= n; ++i) {
        s->x[0].pos[0] = xs[i - 1];
        tpStateView v = {s->world, s->x, 0.1 * i, mem};
        assert_int_equal(tpCond_Observe(c, &v, NULL, mem), 0);
        vals[i - 1] = tpCond_Eval(c, &v, NULL);
    }
}

static void test_sequence(void **state)
{
    (void)state;
    Scene s;
    make_world(&s);
    /* A = x < 1, B = x in [2, 3], C = x > 4: in order, each at a later step */
    tpCond *seq = node(TP_COND_SEQUENCE, in_x(-9, 1, "A"), in_x(2, 3, "B"), in_x(4, 9, "C"));
    int nmem = 0;
    tpCond_AssignMemory(seq, &nmem);
    assert_int_equal(nmem, 1);
    assert_int_equal(seq->mem, 0);
    assert_true(tpCond_IsTemporal(seq));
    int32_t mem[1] = {0};
    int vals[8];
    /* C before A counts for nothing; A, then B, then C: true from C's step on, and stays true */
    const double xs[8] = {5, 0, 0, 2.5, 1.5, 5, 0, 0};
    run(seq, &s, xs, 8, vals, mem);
    const int want[8] = {0, 0, 0, 0, 0, 1, 1, 1};
    assert_memory_equal(vals, want, sizeof want);
    assert_int_equal(mem[0], 3);

    /* B and C would hold at the same step (x = 2.5 with C = x > 2): one element a step at most */
    tpCond *seq2 = node(TP_COND_SEQUENCE, in_x(2, 3, "B"), in_x(2, 9, "C2"), NULL);
    nmem = 0;
    tpCond_AssignMemory(seq2, &nmem);
    int32_t m2[1] = {0};
    const double xs2[3] = {2.5, 2.5, 0};
    run(seq2, &s, xs2, 3, vals, m2);
    assert_int_equal(vals[0], 0);
    assert_int_equal(vals[1], 1);

    /* the words for a sequence that is not done: the step it waits for, by its label */
    const double xs3[2] = {0, 0};
    int32_t m3[1] = {0};
    run(seq, &s, xs3, 2, vals, m3);
    assert_int_equal(m3[0], 1);
    tpStateView v = {s.world, s.x, 0.2, m3};
    const tpCond *blame = NULL;
    assert_int_equal(tpCond_EvalBlame(seq, &v, NULL, &blame), 0);
    assert_ptr_equal(blame, seq);
    char text[TP_REJECT_TEXT_MAX];
    tpCond_Describe(blame, &v, NULL, text, sizeof text);
    assert_string_equal(text, "sequence was false: step 2 of 3 (B) not reached at t = 0.2 s");
    tpDestroyCond(seq);
    tpDestroyCond(seq2);
    tpDestroyWorld(s.world);
}

static void test_ever_never_one_step(void **state)
{
    (void)state;
    Scene s;
    make_world(&s);
    /* a touch that lasts one step (step 5 of 9, in the middle of a segment): ever and never see it */
    int at = 5;
    tpCond *ev = tpCreateCond(TP_COND_CALLBACK), *nv = tpCreateCond(TP_COND_CALLBACK);
    ev->fn = nv->fn = one_step;
    ev->user = nv->user = &at;
    tpCond *ever = node(TP_COND_EVER, ev, NULL, NULL), *never = node(TP_COND_NEVER, nv, NULL, NULL);
    tpCond *both = node(TP_COND_AND, ever, node(TP_COND_NOT, never, NULL, NULL), NULL);
    int nmem = 0;
    tpCond_AssignMemory(both, &nmem);
    assert_int_equal(nmem, 2);
    assert_int_equal(ever->mem, 0);
    assert_int_equal(never->mem, 1);
    int32_t mem[2] = {0, 0};
    double xs[9] = {0};
    int vals[9];
    run(both, &s, xs, 9, vals, mem);
    const int want[9] = {0, 0, 0, 0, 1, 1, 1, 1, 1};
    assert_memory_equal(vals, want, sizeof want);
    /* never alone: true until the step, false from it on */
    int32_t m1[1] = {0};
    tpCond *never2 = tpCond_Copy(never);
    never2->mem = 0;
    run(never2, &s, xs, 9, vals, m1);
    const int want2[9] = {1, 1, 1, 1, 0, 0, 0, 0, 0};
    assert_memory_equal(vals, want2, sizeof want2);
    tpDestroyCond(both);
    tpDestroyCond(never2);
    tpDestroyWorld(s.world);
}

static void test_time_windows(void **state)
{
    (void)state;
    Scene s;
    make_world(&s);
    /* within [0.3, 0.5] s: x > 1 at step 2 (too early) does not count, at step 4 it does */
    tpCond *w = node(TP_COND_WITHIN_TIME, in_x(1, 9, "far"), NULL, NULL);
    w->t0 = 0.3;
    w->t1 = 0.5;
    int nmem = 0;
    tpCond_AssignMemory(w, &nmem);
    int32_t mem[1] = {0};
    int vals[6];
    const double early[6] = {0, 2, 0, 0, 0, 0};
    run(w, &s, early, 6, vals, mem);
    assert_int_equal(vals[5], 0);
    mem[0] = 0;
    const double inside[6] = {0, 0, 0, 2, 0, 0};
    run(w, &s, inside, 6, vals, mem);
    const int want[6] = {0, 0, 0, 1, 1, 1};
    assert_memory_equal(vals, want, sizeof want);
    /* at 0.3 s (3 steps of 0.1 add up to 0.30000000000000004: the window's tolerance) */
    tpCond *a = node(TP_COND_AT_TIME, in_x(1, 9, "far"), NULL, NULL);
    a->t0 = 0.3;
    nmem = 0;
    tpCond_AssignMemory(a, &nmem);
    int32_t m2[1] = {0};
    const double at3[6] = {2, 2, 2, 0, 2, 2};
    run(a, &s, at3, 6, vals, m2);
    const int want2[6] = {0, 0, 1, 1, 1, 1};
    assert_memory_equal(vals, want2, sizeof want2);
    m2[0] = 0;
    const double not3[6] = {2, 2, 0, 2, 2, 2};
    run(a, &s, not3, 6, vals, m2);
    assert_int_equal(m2[0], 2); /* decided at its step: did not hold, for good */
    assert_int_equal(vals[5], 0);
    tpStateView v = {s.world, s.x, 0.6, m2};
    char text[TP_REJECT_TEXT_MAX];
    tpCond_Describe(a, &v, NULL, text, sizeof text);
    assert_string_equal(text, "at_time was false: far did not hold at t = 0.3 s at t = 0.6 s");
    tpDestroyCond(w);
    tpDestroyCond(a);
    tpDestroyWorld(s.world);
}

static void test_nested(void **state)
{
    (void)state;
    Scene s;
    make_world(&s);
    /* sequence { ever(x > 4), x < 1 }: the inner ever observes from the first step on */
    tpCond *inner = node(TP_COND_EVER, in_x(4, 9, "far"), NULL, NULL);
    tpCond *seq = node(TP_COND_SEQUENCE, inner, in_x(-9, 1, "home"), NULL);
    int nmem = 0;
    tpCond_AssignMemory(seq, &nmem);
    assert_int_equal(nmem, 2);
    assert_int_equal(seq->mem, 0);
    assert_int_equal(inner->mem, 1);
    int32_t mem[2] = {0, 0};
    int vals[4];
    const double xs[4] = {5, 2, 0, 2};
    run(seq, &s, xs, 4, vals, mem);
    const int want[4] = {0, 0, 1, 1};
    assert_memory_equal(vals, want, sizeof want);
    assert_int_equal(mem[1], 1);
    tpDestroyCond(seq);
    tpDestroyWorld(s.world);
}

static void test_check(void **state)
{
    (void)state;
    Scene s;
    make_world(&s);
    char err[256];
    tpCond *empty = tpCreateCond(TP_COND_SEQUENCE);
    assert_false(tpCond_Check(empty, s.world, err, sizeof err));
    assert_string_equal(err, "condition 'sequence': needs at least one condition");
    tpCond *two = node(TP_COND_EVER, in_x(0, 1, NULL), in_x(0, 1, NULL), NULL);
    assert_false(tpCond_Check(two, s.world, err, sizeof err));
    assert_string_equal(err, "condition 'ever' needs exactly one operand");
    tpCond *w = node(TP_COND_WITHIN_TIME, in_x(0, 1, NULL), NULL, NULL);
    w->t0 = 2;
    w->t1 = 1;
    assert_false(tpCond_Check(w, s.world, err, sizeof err));
    assert_string_equal(err, "condition 'within_time': from and to must be finite with from <= to (got 2, 1)");
    w->t1 = 3;
    assert_true(tpCond_Check(w, s.world, err, sizeof err));
    assert_false(tpCond_IsTemporal(w->children[0]));
    tpDestroyCond(empty);
    tpDestroyCond(two);
    tpDestroyCond(w);
    tpDestroyWorld(s.world);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequence),     cmocka_unit_test(test_ever_never_one_step),
        cmocka_unit_test(test_time_windows), cmocka_unit_test(test_nested),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
