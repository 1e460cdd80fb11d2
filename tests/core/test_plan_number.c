/* The plan reader's number conversion (core/src/plan_pack.c, tpPlan_ParseNumber) returns exactly
 * what strtod returns, bit for bit: random doubles of every magnitude printed as the plan writer
 * prints them (%.17g, %.15g) and shorter, random digit strings of up to 19 digits with exponents,
 * and the hard cases (halfway points between doubles, subnormals, -0, huge exponents). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

static uint64_t state = 88172645463325252ull;
static uint64_t next(void) /* xorshift64: deterministic */
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void check(const char *s) /* s may be longer than 63 characters: strtod then decides */
{
    double want = strtod(s, NULL), got = tpPlan_ParseNumber(s, strlen(s));
    if (memcmp(&want, &got, sizeof want) != 0) {
        fail_msg("%s: strtod %.17g, tpPlan_ParseNumber %.17g", s, want, got);
    }
}

static void test_printed_doubles(void **st)
{
    (void)st;
    char buf[64];
    const char *fmts[] = {"%.17g", "%.15g", "%.16g", "%.6g", "%.1g"};
    for (int i = 0; i < 100000; ++i) {
        uint64_t u = next();
        double d;
        if (i % 2) { /* any finite double */
            memcpy(&d, &u, sizeof d);
            if (!isfinite(d)) {
                continue;
            }
        } else { /* plan-like magnitudes: positions, velocities, forces, quaternions */
            d = ((double)(u >> 11) / 9007199254740992.0 - 0.5) * pow(10, (int)(next() % 16) - 8);
        }
        for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; ++f) {
            snprintf(buf, sizeof buf, fmts[f], d);
            check(buf);
        }
    }
}

static void test_digit_strings(void **st)
{
    (void)st;
    char buf[64];
    for (int i = 0; i < 100000; ++i) {
        int nd = 1 + (int)(next() % 19), pos = 0, e = (int)(next() % 70) - 35;
        if (next() % 2) {
            buf[pos++] = '-';
        }
        int dot = (int)(next() % (unsigned)(nd + 1));
        for (int k = 0; k < nd; ++k) {
            if (k == dot && k > 0) {
                buf[pos++] = '.';
            }
            buf[pos++] = (char)('0' + (k == 0 && nd > 1 ? 1 + next() % 9 : next() % 10));
        }
        if (next() % 3) {
            pos += snprintf(buf + pos, sizeof buf - (size_t)pos, "e%d", e);
        }
        buf[pos] = '\0';
        check(buf);
    }
}

static void test_hard_cases(void **st)
{
    (void)st;
    const char *cases[] = {"0",
                           "-0",
                           "-0.0",
                           "0e5",
                           "1",
                           "9007199254740993",
                           "9007199254740995",
                           "9007199254740992.5",
                           "18014398509481985",
                           "1e23",
                           "8.98846567431158e307",
                           "2.2250738585072014e-308",
                           "2.2250738585072011e-308",
                           "4.9406564584124654e-324",
                           "1e-400",
                           "1.7976931348623157e308",
                           "1e27",
                           "1e-27",
                           "123456789012345678e-27",
                           "9999999999999999999e27",
                           "0.1",
                           "0.30000000000000004",
                           "-1.0000000000000002",
                           "1e0000000000000000000000001",
                           "0.000000000000000000000000000001234"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        check(cases[i]);
    }
    /* every halfway point between consecutive doubles near 1 and 2^60 (exactly representable
       decimals, where double rounding would go wrong) */
    char buf[128];
    for (int i = 0; i < 20000; ++i) {
        double a = 1 + (double)(next() >> 12) * 0x1p-52;
        double b = nextafter(a, 2);
        snprintf(buf, sizeof buf, "%.60g", (a + b) / 2 == a ? a : (a + b) / 2);
        check(buf);
        long double mid = ((long double)a + (long double)b) / 2;
        snprintf(buf, sizeof buf, "%.25Lg", mid);
        check(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_printed_doubles),
        cmocka_unit_test(test_digit_strings),
        cmocka_unit_test(test_hard_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
