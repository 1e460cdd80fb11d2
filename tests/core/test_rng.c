/* MT19937 against the mt19937ar reference output, plus statistical sanity of the derived
 * distributions. All streams are seeded, so every check here is deterministic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "tp/rng.h"

static const uint32_t k_ref_key[4] = {0x123, 0x234, 0x345, 0x456};

/* The first three lines of "1000 outputs of genrand_int32()" in mt19937ar.out. */
static const uint32_t k_ref_int32[15] = {
    1067595299u, 955945823u,  477289528u,  4107218783u, 4228976476u, 3344332714u, 3355579695u, 227628506u,
    810200273u,  2591290167u, 2560260675u, 3242736208u, 646746669u,  1479517882u, 4245472273u,
};

/* The first ten "genrand_real2()" outputs of mt19937ar.out, which follow the 1000 int32s. */
static const double k_ref_real2[10] = {
    0.76275443, 0.99000644, 0.98670464, 0.10143112, 0.27933125,
    0.69867227, 0.94218740, 0.03427201, 0.78842173, 0.28180608,
};

static void test_reference_int32(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_SeedArray(&rng, k_ref_key, 4);
    for (int i = 0; i < 15; ++i) {
        assert_int_equal(tpRng_U32(&rng), k_ref_int32[i]);
    }
}

static void test_reference_real2_after_1000(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_SeedArray(&rng, k_ref_key, 4);
    for (int i = 0; i < 1000; ++i) {
        (void)tpRng_U32(&rng);
    }
    for (int i = 0; i < 10; ++i) {
        double r = (double)tpRng_U32(&rng) * (1.0 / 4294967296.0);
        assert_true(fabs(r - k_ref_real2[i]) < 5e-9);
    }
}

static void test_init_genrand_default(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 5489u);
    assert_int_equal(tpRng_U32(&rng), 3499211612u);
    /* An unseeded generator (mti = N + 1) falls back to seed 5489 like the reference. */
    tpRng raw;
    memset(&raw, 0, sizeof raw);
    raw.mti = TP_MT_N + 1;
    assert_int_equal(tpRng_U32(&raw), 3499211612u);
}

static void test_res53(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_SeedArray(&rng, k_ref_key, 4);
    /* ((1067595299 >> 5) * 2^26 + (955945823 >> 6)) / 2^53, bit-exact. */
    double r = tpRng_Res53(&rng);
    assert_true(r == 0x1.fd11b138fa934p-3);
    for (int i = 0; i < 100000; ++i) {
        r = tpRng_Res53(&rng);
        assert_true(r >= 0.0 && r < 1.0);
    }
}

static void test_same_seed_same_stream(void **state)
{
    (void)state;
    tpRng a, b, c;
    tpRng_Seed(&a, 42u);
    tpRng_Seed(&b, 42u);
    tpRng_Seed(&c, 43u);
    int differ = 0;
    for (int i = 0; i < 2000; ++i) {
        uint32_t va = tpRng_U32(&a);
        assert_int_equal(va, tpRng_U32(&b));
        differ += va != tpRng_U32(&c);
    }
    assert_true(differ > 1990);
    /* Copying the struct forks the stream, including the cached normal deviate. */
    (void)tpRng_Normal(&a, 0.0, 1.0);
    tpRng fork = a;
    for (int i = 0; i < 101; ++i) {
        double x = tpRng_Normal(&a, 0.0, 1.0);
        double y = tpRng_Normal(&fork, 0.0, 1.0);
        assert_memory_equal(&x, &y, sizeof x);
    }
    /* Re-seeding drops the spare, so a reseeded stream starts over exactly. */
    tpRng_Seed(&a, 7u);
    tpRng_Seed(&b, 7u);
    (void)tpRng_Normal(&b, 0.0, 1.0);
    tpRng_Seed(&b, 7u);
    for (int i = 0; i < 10; ++i) {
        double x = tpRng_Normal(&a, 0.0, 1.0);
        double y = tpRng_Normal(&b, 0.0, 1.0);
        assert_memory_equal(&x, &y, sizeof x);
    }
}

static void test_uniform(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 3u);
    assert_true(tpRng_Uniform(&rng, 2.0, 2.0) == 2.0);
    assert_true(tpRng_Uniform(&rng, 5.0, 1.0) == 5.0);
    double sum = 0.0;
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
        double u = tpRng_Uniform(&rng, -3.0, 5.0);
        assert_true(u >= -3.0 && u < 5.0);
        sum += u;
    }
    /* mean 1, sd 8/sqrt(12) = 2.31; standard error 0.0073 */
    assert_true(fabs(sum / n - 1.0) < 0.04);
    /* A tiny interval where lo + (hi-lo)*u rounds up to hi must stay half-open. */
    double lo = 1.0, hi = nextafter(1.0, 2.0);
    for (int i = 0; i < 1000; ++i) {
        assert_true(tpRng_Uniform(&rng, lo, hi) == lo);
    }
}

static void test_normal_moments(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 12345u);
    const int n = 200000;
    double sum = 0.0, sum2 = 0.0;
    int beyond3 = 0;
    for (int i = 0; i < n; ++i) {
        double x = tpRng_Normal(&rng, 3.0, 2.0);
        sum += x;
        sum2 += x * x;
        beyond3 += fabs(x - 3.0) > 6.0;
    }
    double mean = sum / n;
    double var = sum2 / n - mean * mean;
    /* se(mean) = 0.0045, se(var) ~ 4 * sqrt(2/n) = 0.0127 */
    assert_true(fabs(mean - 3.0) < 0.025);
    assert_true(fabs(var - 4.0) < 0.08);
    /* P(|z| > 3) = 0.0027: expect ~540 */
    assert_true(beyond3 > 400 && beyond3 < 700);
}

static void test_below_chi_square(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 99u);
    enum { K = 10, N = 100000 };
    int count[K] = {0};
    for (int i = 0; i < N; ++i) {
        uint32_t v = tpRng_Below(&rng, K);
        assert_true(v < K);
        count[v]++;
    }
    double chi2 = 0.0;
    const double e = (double)N / K;
    for (int k = 0; k < K; ++k) {
        chi2 += (count[k] - e) * (count[k] - e) / e;
    }
    /* 9 degrees of freedom: P(chi2 > 27.88) = 0.001 */
    assert_true(chi2 < 27.88);
    assert_int_equal(tpRng_Below(&rng, 1), 0);
}

static void test_below_no_modulo_bias(void **state)
{
    (void)state;
    /* With n = 3 * 2^30, plain "u32 % n" maps two 32-bit values onto each result below 2^30
     * and one onto the others, so half of the draws would land below 2^30 instead of a third. */
    tpRng rng;
    tpRng_Seed(&rng, 2024u);
    const uint32_t n = 3u << 30;
    const int draws = 60000;
    int low = 0;
    for (int i = 0; i < draws; ++i) {
        uint32_t v = tpRng_Below(&rng, n);
        assert_true(v < n);
        low += v < (1u << 30);
    }
    double frac = (double)low / draws;
    /* se = sqrt(2/9 / 60000) = 0.0019 */
    assert_true(fabs(frac - 1.0 / 3.0) < 0.01);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_int32),       cmocka_unit_test(test_reference_real2_after_1000),
        cmocka_unit_test(test_init_genrand_default),  cmocka_unit_test(test_res53),
        cmocka_unit_test(test_same_seed_same_stream), cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_normal_moments),        cmocka_unit_test(test_below_chi_square),
        cmocka_unit_test(test_below_no_modulo_bias),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
