/* The plan reader's number conversion (core/src/plan_pack.c, tpPlan_ParseNumber) returns exactly
 * what strtod returns, bit for bit: random doubles of every magnitude printed as the plan writer
 * prints them (%.17g, %.15g) and shorter, random digit strings of up to 19 digits with exponents,
 * and the hard cases (halfway points between doubles, subnormals, -0, huge exponents). And the
 * writer's tpPlan_FormatG prints exactly what snprintf's %.*g prints, byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_testing.h"

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

static void checkFormat(double v)
{
    static const int precisions[] = {17, 15, 16, 6, 1};
    for (size_t k = 0; k < sizeof precisions / sizeof precisions[0]; ++k) {
        const int p = precisions[k];
        char want[64], got[64];
        int nw = snprintf(want, sizeof want, "%.*g", p, v), ng = tpPlan_FormatG(v, p, got);
        if (nw != ng || strcmp(want, got) != 0) {
            fail_msg("%%.%dg of %a: snprintf \"%s\", tpPlan_FormatG \"%s\" (%d)", p, v, want, got, ng);
        }
    }
}

/* Random doubles of every magnitude (random bits), plan-like values, integers (exact ties at 18+
 * digits), decimals with few digits, and the boundaries: powers of ten and their neighbours (where
 * log10 may be off and the rounding may carry into an 18th digit), the ends of the integer path
 * (1e-16 and 1e-38 for the wide one, 1e38) and of %f style (1e-4, 1e17), -0, subnormals, infinities and NaN. */
static void test_format_g(void **st)
{
    (void)st;
    for (int i = 0; i < 180000; ++i) {
        uint64_t u = next();
        double d;
        switch (i % 6) {
        case 5: /* the small numbers' wide path (1e-38 .. 1e-16: 192-bit products) and past it */
            d = ldexp(1.0 + (double)(u >> 12) * 0x1p-52, -(int)(next() % 90) - 48);
            break;
        case 0: /* any double */
            memcpy(&d, &u, sizeof d);
            break;
        case 1: /* plan-like magnitudes */
            d = ((double)(u >> 11) / 9007199254740992.0 - 0.5) * pow(10, (int)(next() % 20) - 8);
            break;
        case 2: /* the integer path and around it: 2^-60 .. 2^126 */
            d = ldexp(1.0 + (double)(u >> 12) * 0x1p-52, (int)(next() % 187) - 60);
            break;
        case 3: /* large integers (18 to 20 digits: ties at the 17th) */
            d = (double)(u >> (next() % 10));
            break;
        default: /* short decimals */
            d = (double)(int64_t)(u % 2000001 - 1000000) / pow(10, (int)(next() % 12));
            break;
        }
        checkFormat(d);
        checkFormat(-d);
    }
    for (int k = -42; k <= 40; ++k) {
        double p = pow(10, k);
        double around[] = {p, nextafter(p, 0), nextafter(p, INFINITY), p * (1 - 1e-17), p * (1 + 1e-16)};
        for (size_t j = 0; j < sizeof around / sizeof around[0]; ++j) {
            checkFormat(around[j]);
            checkFormat(-around[j]);
            checkFormat(around[j] * 9.999999999999999);
            checkFormat(around[j] * 0.99999999999999999);
        }
    }
    const double cases[] = {0.0,
                            -0.0,
                            1e-6,
                            nextafter(1e-6, 0),
                            1e-16,
                            nextafter(1e-16, 0),
                            nextafter(1e-16, 1),
                            1e-38,
                            nextafter(1e-38, 0),
                            nextafter(1e-38, 1),
                            5e-324,
                            2.2250738585072014e-308,
                            -7.9774469260244367e-19,
                            2.0082373123293289e-24,
                            1e38,
                            nextafter(1e38, 0),
                            1e-4,
                            nextafter(1e-4, 0),
                            1e17,
                            nextafter(1e17, 0),
                            99999999999999999.0,
                            0.1,
                            0.30000000000000004,
                            1.0 / 3,
                            2.0 / 3,
                            123456789012345678.0,
                            9007199254740993.0,
                            5e-324,
                            2.2250738585072014e-308,
                            1.7976931348623157e308,
                            INFINITY,
                            -INFINITY,
                            NAN};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        checkFormat(cases[i]);
    }
}

/* The plan writer's numbers (tpPlan_FormatNumber): %.15g when strtod reads it back to v, else
 * %.17g, exactly as printf and strtod decide, over the magnitudes of every path (the 17-digit test
 * from the integer, the 15 digits derived from the 17, their carry, the 50-ending ties, the wide
 * small-number path, printf's beyond). */
static void checkNumber(double v)
{
    if (v == 0) {
        return;
    }
    char want[64], got[64];
    snprintf(want, sizeof want, "%.15g", v);
    if (strtod(want, NULL) != v) {
        snprintf(want, sizeof want, "%.17g", v);
    }
    const int n = tpPlan_FormatNumber(v, got);
    if (n != (int)strlen(want) || strcmp(want, got) != 0) {
        fail_msg("plan number %a: printf/strtod \"%s\", tpPlan_FormatNumber \"%s\" (%d)", v, want, got, n);
    }
}

static void test_format_number(void **st)
{
    (void)st;
    for (int i = 0; i < 200000; ++i) {
        uint64_t u = next();
        double d;
        switch (i % 5) {
        case 0: /* any double */
            memcpy(&d, &u, sizeof d);
            break;
        case 1: /* plan-like magnitudes, 1e-40 .. 1e20 */
            d = ldexp(1.0 + (double)(u >> 12) * 0x1p-52, (int)(next() % 200) - 133);
            break;
        case 2: /* short decimals (%.15g reads back) and their neighbours (it does not) */
            d = (double)(int64_t)(u % 2000001 - 1000000) / pow(10, (int)(next() % 30));
            d = (next() & 1) ? nextafter(d, INFINITY) : d;
            break;
        case 3: /* 15-digit decimals at every exponent: the carry to 1e(x+1), 50-endings */
            d = (double)(int64_t)(u % 1000000000000000ull) * pow(10, (int)(next() % 60) - 50);
            break;
        default: /* near powers of ten */
            d = pow(10, (int)(next() % 80) - 42) * (1 - (double)(u % 64) * 0x1p-53);
            break;
        }
        checkNumber(d);
        checkNumber(-d);
    }
    for (int j = -140; j <= 130; ++j) { /* powers of two: the lower neighbour is half as far */
        const double p2 = ldexp(1.0, j);
        checkNumber(p2);
        checkNumber(nextafter(p2, 0));
        checkNumber(nextafter(p2, INFINITY));
    }
    for (int i = 0; i < 20000; ++i) { /* 15-digit decimals at and just below a power of two */
        const double p2 = ldexp(1.0, (int)(next() % 150) - 100), dec = pow(10, floor(log10(p2)) - 14);
        checkNumber(floor(p2 / dec - (double)(next() % 3)) * dec);
        checkNumber(nextafter(p2, 0) - (double)(next() % 4) * ldexp(p2, -54));
    }
    const double cases[] = {0.1,
                            0.2,
                            0.3,
                            1.0 / 3,
                            2.0 / 3,
                            1e-38,
                            nextafter(1e-38, 0),
                            1e38,
                            9.999999999999999e22,
                            0.30000000000000004,
                            5e-324,
                            2.2250738585072014e-308,
                            1e-4,
                            1e17,
                            123456789012345.5,
                            99999999999999.95,
                            999999999999999.5,
                            -7.9774469260244367e-19,
                            2.0082373123293289e-24};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        checkNumber(cases[i]);
        checkNumber(-cases[i]);
        checkNumber(nextafter(cases[i], 0));
        checkNumber(nextafter(cases[i], INFINITY));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_printed_doubles), cmocka_unit_test(test_format_g),   cmocka_unit_test(test_format_number),
        cmocka_unit_test(test_digit_strings),   cmocka_unit_test(test_hard_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
