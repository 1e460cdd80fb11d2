/* Dice faces: which bodies are drawn as dice (tpPlanBody_IsDie: a moving cube of the
 * dice domain, nothing else) and the pips of each face (tpDie_Face): every number once, opposite
 * faces adding up to seven, six on local +z (the face up when tp.upright holds with its default
 * axis), one-two-three counter-clockwise about their corner, the pips inside the face and apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "tp/plan.h"

static void test_which_bodies(void **state)
{
    (void)state;
    char dice[] = "dice", golf[] = "minigolf", box[] = "box", sphere[] = "sphere";
    tpPlanRecord rec = {.domain_name = dice};
    tpPlanBody b = {.shape = box, .size = {0.1, 0.1, 0.1, 0}, .moving = true};
    assert_true(tpPlanBody_IsDie(&rec, &b));
    b.size[2] = 0.11; /* not a cube */
    assert_false(tpPlanBody_IsDie(&rec, &b));
    b.size[2] = 0.1;
    b.moving = false; /* a static cube of the scene (a wall block) */
    assert_false(tpPlanBody_IsDie(&rec, &b));
    b.moving = true;
    b.shape = sphere;
    assert_false(tpPlanBody_IsDie(&rec, &b));
    b.shape = box;
    rec.domain_name = golf; /* a cube of another domain is a crate */
    assert_false(tpPlanBody_IsDie(&rec, &b));
    rec.domain_name = NULL;
    assert_false(tpPlanBody_IsDie(&rec, &b));
}

static void test_faces(void **state)
{
    (void)state;
    static const double normal[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    int number[6], seen[7] = {0};
    for (int f = 0; f < 6; ++f) {
        double uv[6][2], r = 0;
        number[f] = tpDie_Face(f, uv, &r);
        assert_in_range(number[f], 1, 6);
        seen[number[f]]++;
        assert_true(r > 0.05 && r < 0.3);
        for (int k = 0; k < number[f]; ++k) {
            assert_true(fabs(uv[k][0]) + r < 1 && fabs(uv[k][1]) + r < 1); /* inside the face */
            for (int j = 0; j < k; ++j) {
                assert_true(hypot(uv[k][0] - uv[j][0], uv[k][1] - uv[j][1]) > 2 * r); /* apart */
            }
        }
    }
    for (int n = 1; n <= 6; ++n) {
        assert_int_equal(seen[n], 1);
    }
    for (int f = 0; f < 6; f += 2) {
        assert_int_equal(number[f] + number[f + 1], 7);
    }
    assert_int_equal(number[4], 6); /* +z */
    /* one, two, three counter-clockwise seen from outside their corner: their normals right-handed */
    const double *n[3];
    for (int f = 0; f < 6; ++f) {
        if (number[f] <= 3) {
            n[number[f] - 1] = normal[f];
        }
    }
    double det = n[0][0] * (n[1][1] * n[2][2] - n[1][2] * n[2][1]) - n[0][1] * (n[1][0] * n[2][2] - n[1][2] * n[2][0]) +
                 n[0][2] * (n[1][0] * n[2][1] - n[1][1] * n[2][0]);
    assert_true(det > 0.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_which_bodies),
        cmocka_unit_test(test_faces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
