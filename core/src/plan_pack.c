/* The plan file's number fast paths. Writing: tpPlan_FormatG, printf's %.*g in integer
 * arithmetic. Reading: trajectories and controls are most of a plan file (400 dice: 5
 * million numbers, 113 MB). Parsed by cJSON they cost a 64-byte node and an allocation per number
 * (646 MB peak and 1.9 s for that file); here they are read straight into doubles with strtod and
 * replaced by a short placeholder before cJSON sees the (then small) rest. Only well-formed
 * matrices are taken, so every error is still found and reported by the reader as before. */
#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/base.h"
#include "tp/util.h"

enum { KEY_OTHER = 0, KEY_TRAJECTORY, KEY_CONTROLS, KEY_TRAJECTORIES, KEY_BODIES, KEY_ALTERNATIVES };
enum { TP_PACK_MAX_DEPTH = 256, TP_PACK_MARK = 1 };

typedef struct Frame {
    bool object;
    int key;     /* the member name this container is the value of */
    int cur_key; /* objects: the member name read last */
    bool want_key;
} Frame;

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int key_id(const char *s, size_t n)
{
    if (n == 10 && memcmp(s, "trajectory", 10) == 0) {
        return KEY_TRAJECTORY;
    }
    if (n == 8 && memcmp(s, "controls", 8) == 0) {
        return KEY_CONTROLS;
    }
    if (n == 12 && memcmp(s, "trajectories", 12) == 0) {
        return KEY_TRAJECTORIES;
    }
    if (n == 6 && memcmp(s, "bodies", 6) == 0) {
        return KEY_BODIES;
    }
    if (n == 12 && memcmp(s, "alternatives", 12) == 0) {
        return KEY_ALTERNATIVES;
    }
    return KEY_OTHER;
}

double tpPlan_ParseNumber(const char *s, size_t n)
{
#if LDBL_MANT_DIG >= 64
    /* Up to 19 significant digits m and a decimal exponent |k| <= 27: m and 10^|k| are exact in
     * long double (64-bit significand), so m * 10^k or m / 10^|k| is one correctly rounded long
     * double operation, exact to half a long double ulp. Rounding that to double gives the
     * correctly rounded double unless the long double sits exactly on a double halfway point
     * (its low 11 significand bits 0x400), where the true value may lie on either side: strtod
     * decides those, and subnormal or huge results. */
    static const long double pow10[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
                                          1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
                                          1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    const char *p = s, *end = s + n;
    bool neg = p < end && *p == '-';
    p += neg;
    uint64_t m = 0;
    int digits = 0, k = 0;
    for (; p < end && *p >= '0' && *p <= '9'; ++p) {
        if (digits || *p != '0') {
            m = m * 10 + (uint64_t)(*p - '0');
            ++digits;
        }
    }
    if (p < end && *p == '.') {
        for (++p; p < end && *p >= '0' && *p <= '9'; ++p) {
            if (digits || *p != '0') {
                m = m * 10 + (uint64_t)(*p - '0');
                ++digits;
            }
            --k;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        ++p;
        bool eneg = p < end && *p == '-';
        p += p < end && (*p == '-' || *p == '+');
        int e = 0;
        for (; p < end && *p >= '0' && *p <= '9'; ++p) {
            e = e < 10000 ? e * 10 + (*p - '0') : e;
        }
        k += eneg ? -e : e;
    }
    if (p == end && digits <= 19 && k >= -27 && k <= 27) {
        long double x = (long double)m;
        x = k >= 0 ? x * pow10[k] : x / pow10[-k];
        double d = (double)x;
        if (m == 0) {
            return neg ? -0.0 : 0.0;
        }
        int ex;
        long double frac = frexpl(x, &ex); /* x = frac * 2^ex, frac in [0.5, 1) */
        uint64_t bits = (uint64_t)ldexpl(frac, 64);
        if ((bits & 0x7FF) != 0x400 && d >= DBL_MIN && d <= DBL_MAX) {
            return neg ? -d : d;
        }
    }
#endif
    char buf[64];
    if (n >= sizeof buf) {
        return strtod(s, NULL);
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    return strtod(buf, NULL);
}

/* A strict JSON number at p (at most 63 characters, as cJSON reads them); its end, or NULL. */
static const char *json_number(const char *p, const char *end, double *out)
{
    const char *s = p;
    if (p < end && *p == '-') {
        ++p;
    }
    if (p >= end || !(*p >= '0' && *p <= '9')) {
        return NULL;
    }
    if (*p == '0') {
        ++p;
    } else {
        while (p < end && *p >= '0' && *p <= '9') {
            ++p;
        }
    }
    if (p < end && *p == '.') {
        ++p;
        if (p >= end || !(*p >= '0' && *p <= '9')) {
            return NULL;
        }
        while (p < end && *p >= '0' && *p <= '9') {
            ++p;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        ++p;
        if (p < end && (*p == '+' || *p == '-')) {
            ++p;
        }
        if (p >= end || !(*p >= '0' && *p <= '9')) {
            return NULL;
        }
        while (p < end && *p >= '0' && *p <= '9') {
            ++p;
        }
    }
    if (p - s > 63 || p >= end) {
        return NULL;
    }
    *out = tpPlan_ParseNumber(s, (size_t)(p - s));
#if TP_ASSERT_ON
    /* the fast path's promise: bit for bit the double strtod (and so cJSON) reads */
    char buf[64];
    memcpy(buf, s, (size_t)(p - s));
    buf[p - s] = '\0';
    double ref = strtod(buf, NULL);
    TP_INVARIANT(memcmp(&ref, out, sizeof ref) == 0);
#endif
    return isfinite(*out) ? p : NULL;
}

/* A matrix of rows of exactly `cols` finite numbers starting at '[' p. Returns its end (after the
 * closing ']') and the numbers in *data (malloc'ed), or NULL (nothing allocated). */
static const char *matrix(const char *p, const char *end, int cols, double **data, int *rows)
{
    size_t n = 0, cap = 0;
    double *d = NULL;
    int r = 0;
    ++p; /* '[' */
    for (;;) {
        while (p < end && is_ws(*p)) {
            ++p;
        }
        if (p >= end || *p != '[') {
            break;
        }
        ++p;
        for (int c = 0; c < cols; ++c) {
            while (p < end && is_ws(*p)) {
                ++p;
            }
            double *nd = tpArray_Grow(d, &cap, n + 1, sizeof *d);
            if (!nd) {
                free(d);
                return NULL;
            }
            d = nd;
            p = json_number(p, end, &d[n++]);
            if (!p) {
                free(d);
                return NULL;
            }
            while (p < end && is_ws(*p)) {
                ++p;
            }
            if (p >= end || *p != (c + 1 < cols ? ',' : ']')) {
                free(d);
                return NULL;
            }
            ++p;
        }
        ++r;
        while (p < end && is_ws(*p)) {
            ++p;
        }
        if (p < end && *p == ',') {
            ++p;
            continue;
        }
        if (p < end && *p == ']' && r > 0) {
            *data = d;
            *rows = r;
            return p + 1;
        }
        break;
    }
    free(d);
    return NULL;
}

#if TP_ASSERT_ON
static size_t count_lines(const char *text, size_t len)
{
    size_t n = 0;
    for (const char *q = memchr(text, '\n', len); q; q = memchr(q + 1, '\n', len - (size_t)(q + 1 - text))) {
        ++n;
    }
    return n;
}
#endif

static void pack_matrices(char *text, size_t len, tpPlanPackTable *table);

void tpPlan_PackMatrices(char *text, size_t len, tpPlanPackTable *table)
{
#if TP_ASSERT_ON
    /* placeholders keep the text's length and every line break where it was (error line numbers);
     * every matrix packed is a well-formed one of 13 or 6 columns */
    size_t lines_before = count_lines(text, len);
    int packed_before = table->n;
#endif
    pack_matrices(text, len, table);
#if TP_ASSERT_ON
    TP_INVARIANT(count_lines(text, len) == lines_before);
    for (int i = packed_before; i < table->n; ++i) {
        const tpPlanPacked *m = &table->items[i];
        TP_INVARIANT(m->rows > 0 && (m->cols == TP_STATE_DOUBLES || m->cols == TP_CONTROL_DOUBLES) && m->data);
    }
#endif
}

static void pack_matrices(char *text, size_t len, tpPlanPackTable *table)
{
    if (memchr(text, TP_PACK_MARK, len)) {
        return;
    }
    Frame st[TP_PACK_MAX_DEPTH];
    int depth = 0;
    const char *end = text + len;
    for (char *p = text; p < end;) {
        char c = *p;
        if (is_ws(c) || c == ':') {
            ++p;
            continue;
        }
        Frame *top = depth ? &st[depth - 1] : NULL;
        if (c == ',') {
            if (top && top->object) {
                top->want_key = true;
            }
            ++p;
            continue;
        }
        if (c == '"') {
            char *s = ++p;
            while (p < end && *p != '"') {
                p += *p == '\\' ? 2 : 1;
            }
            if (p >= end) {
                return;
            }
            if (top && top->object && top->want_key) {
                top->cur_key = key_id(s, (size_t)(p - s));
                top->want_key = false;
            }
            ++p;
            continue;
        }
        if (c == '}' || c == ']') {
            depth -= depth > 0;
            ++p;
            continue;
        }
        int key = top && top->object ? top->cur_key : KEY_OTHER;
        if (c == '[' && top && top->object) {
            /* only at the documented places: root.bodies[i].{trajectory,controls} and
             * root.alternatives[k].{trajectories,controls}.NAME */
            int cols = 0;
            bool in_body = depth == 3 && st[1].key == KEY_BODIES && !st[1].object;
            bool in_map = depth == 4 && st[1].key == KEY_ALTERNATIVES && !st[1].object;
            if ((in_body && key == KEY_TRAJECTORY) || (in_map && top->key == KEY_TRAJECTORIES)) {
                cols = TP_STATE_DOUBLES;
            } else if ((in_body && key == KEY_CONTROLS) || (in_map && top->key == KEY_CONTROLS)) {
                cols = TP_CONTROL_DOUBLES;
            }
            double *data = NULL;
            int rows = 0;
            const char *mend = cols ? matrix(p, end, cols, &data, &rows) : NULL;
            if (mend) {
                char ph[32];
                int phl = snprintf(ph, sizeof ph, "\"%c%d\"", TP_PACK_MARK, table->n);
                tpPlanPacked *ni = tpArray_Grow(table->items, &table->cap, (size_t)table->n + 1, sizeof *ni);
                if (!ni) {
                    free(data);
                    return;
                }
                table->items = ni;
                /* The placeholder goes where phl bytes hold no line break; every other byte of the
                 * matrix becomes a space, its line breaks stay where they are (JSON allows white
                 * space before a value), so line numbers of later errors stay right. */
                char *at = p;
                for (char *q = p; q < mend && at + phl <= mend; ++q) {
                    at = *q == '\n' ? q + 1 : at;
                    if (q + 1 - at >= phl) {
                        break;
                    }
                }
                if (at + phl > mend) {
                    free(data); /* no room for the placeholder: left to cJSON */
                } else {
                    table->items[table->n++] = (tpPlanPacked){rows, cols, data, false};
                    for (char *q = p; q < mend; ++q) {
                        *q = q >= at && q < at + phl ? ph[q - at] : *q == '\n' ? '\n' : ' ';
                    }
                    p += mend - p;
                    continue;
                }
            }
        }
        if (c == '{' || c == '[') {
            if (depth == TP_PACK_MAX_DEPTH) {
                return;
            }
            st[depth++] = (Frame){c == '{', key, KEY_OTHER, c == '{'};
            ++p;
            continue;
        }
        /* a number or a literal */
        while (p < end && !is_ws(*p) && *p != ',' && *p != ']' && *p != '}') {
            ++p;
        }
    }
}

const tpPlanPacked *tpPlan_Packed(tpPlanPackTable *table, const cJSON *item)
{
    if (!table || !cJSON_IsString(item) || !item->valuestring || item->valuestring[0] != TP_PACK_MARK) {
        return NULL;
    }
    char *e;
    long k = strtol(item->valuestring + 1, &e, 10);
    if (*e != '\0' || k < 0 || k >= table->n) {
        return NULL;
    }
    table->items[k].taken = true;
    return &table->items[k];
}

bool tpPlan_AllPackedTaken(const tpPlanPackTable *table)
{
    for (int i = 0; i < table->n; ++i) {
        if (!table->items[i].taken) {
            return false;
        }
    }
    return true;
}

void tpPlan_FreePacked(tpPlanPackTable *table)
{
    for (int i = 0; i < table->n; ++i) {
        free(table->items[i].data);
    }
    free(table->items);
    memset(table, 0, sizeof *table);
}

/* ---- writing: %.*g ---- */

/* The plan writer's reference: %.17g, or %.15g when that reads back to v; needs17 tells from the
 * 17 digits alone that %.15g cannot (see tpPlan_FormatNumber). */
static bool needs17(const char *g17, double v)
{
    if (!isnormal(v)) {
        return false;
    }
    int digits = 0, last2 = 0;
    bool lead = true;
    for (const char *p = g17; *p && *p != 'e' && *p != 'E'; ++p) {
        if (*p < '0' || *p > '9' || (lead && *p == '0')) {
            continue; /* sign, decimal point, leading zeros */
        }
        lead = false;
        ++digits;
        last2 = (last2 * 10 + (*p - '0')) % 100;
    }
    return digits == 17 && last2 > 12 && last2 < 88;
}

static int formatNumberSlow(double v, char *buf)
{
    int n = tpPlan_FormatG(v, 17, buf);
    if (!needs17(buf, v)) {
        char b15[40];
        const int n15 = tpPlan_FormatG(v, 15, b15);
        double back = tpPlan_ParseNumber(b15, (size_t)n15);
        if (memcmp(&back, &v, sizeof v) == 0) {
            memcpy(buf, b15, (size_t)n15 + 1);
            n = n15;
        }
    }
    return n;
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 U128; /* GCC / Clang on 64-bit targets */

/* 10^k for 0 <= k <= 38 (10^38 < 2^127). */
static U128 pow10u128(int k)
{
    static const uint64_t small[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};
    return k < 20 ? (U128)small[k] : (U128)small[19] * small[k - 19];
}

/* 5^k for 0 <= k <= 27 (5^27 < 2^64). */
static uint64_t pow5u64(int k)
{
    static const uint64_t t[28] = {1ull,
                                   5ull,
                                   25ull,
                                   125ull,
                                   625ull,
                                   3125ull,
                                   15625ull,
                                   78125ull,
                                   390625ull,
                                   1953125ull,
                                   9765625ull,
                                   48828125ull,
                                   244140625ull,
                                   1220703125ull,
                                   6103515625ull,
                                   30517578125ull,
                                   152587890625ull,
                                   762939453125ull,
                                   3814697265625ull,
                                   19073486328125ull,
                                   95367431640625ull,
                                   476837158203125ull,
                                   2384185791015625ull,
                                   11920928955078125ull,
                                   59604644775390625ull,
                                   298023223876953125ull,
                                   1490116119384765625ull,
                                   7450580596923828125ull};
    return t[k];
}

/* round(m * 5^k / 2^t), ties to even, for 32 < k <= 54 and 1 <= t <= 191: m * 5^k < 2^53 * 2^126
 * takes three 64-bit limbs. False when the quotient does not fit in 64 bits (the caller falls
 * back). The small numbers of a trajectory (1e-38 <= |v| < 1e-16: residual velocities) take it. */
static bool scaledRoundWide(uint64_t m, int k, int t, U128 *out)
{
    const U128 f5 = (U128)pow5u64(27) * pow5u64(k - 27); /* 5^k < 2^126 */
    const U128 lo = (U128)m * (uint64_t)f5, hi = (U128)m * (uint64_t)(f5 >> 64);
    const U128 mid = (lo >> 64) + (uint64_t)hi;
    const uint64_t L[4] = {(uint64_t)lo, (uint64_t)mid, (uint64_t)(hi >> 64) + (uint64_t)(mid >> 64), 0};
    const int w = t / 64, b = t % 64; /* the quotient's lowest bit: bit b of limb w */
    const uint64_t q = b ? (L[w] >> b) | (L[w + 1] << (64 - b)) : L[w];
    const uint64_t over = b ? L[w + 1] >> b : L[w + 1]; /* bits above the quotient's 64 */
    if (over != 0 || (w + 2 < 4 && L[w + 2] != 0)) {
        return false;
    }
    const int hb = t - 1; /* the half bit and the ones below it (sticky) */
    const bool half = (L[hb / 64] >> (hb % 64)) & 1;
    bool sticky = (L[hb / 64] & ((1ull << (hb % 64)) - 1)) != 0;
    for (int i = 0; i < hb / 64 && !sticky; ++i) {
        sticky = L[i] != 0;
    }
    *out = (U128)q + (half && (sticky || (q & 1)));
    return true;
}

/* m * 2^e * 10^k rounded to an integer, ties to even (printf's rounding in the default mode), for
 * m < 2^53; false when an intermediate would not fit in 128 bits (the caller falls back). */
static bool scaledRound(uint64_t m, int e, int k, U128 *out)
{
    if (k > 22) { /* small v: m * 10^k / 2^s = m * 5^k / 2^(s - k), and m * 5^k < 2^128 up to 5^32 */
        const int s = -e - k;
        if (k > 32 && k <= 54 && s >= 1 && s <= 191) {
            return scaledRoundWide(m, k, s, out);
        }
        if (k > 32 || s < 1 || s > 127) {
            return false;
        }
        const U128 f5 = k <= 27 ? (U128)pow5u64(k) : (U128)pow5u64(27) * pow5u64(k - 27);
        U128 n = (U128)m * f5, q = n >> s, r = n - (q << s), half = (U128)1 << (s - 1);
        *out = q + (r > half || (r == half && (q & 1)));
        return true;
    }
    if (k >= 0) { /* m * 10^k < 2^53 * 2^74 = 2^127 */
        U128 n = (U128)m * pow10u128(k);
        if (e >= 0) {
            if (e > 126 || (n >> (126 - e)) != 0) {
                return false;
            }
            *out = n << e;
            return true;
        }
        const int s = -e;
        if (s > 126) {
            return false;
        }
        U128 q = n >> s, r = n - (q << s), half = (U128)1 << (s - 1);
        *out = q + (r > half || (r == half && (q & 1)));
        return true;
    }
    if (e < 0 || e > 73 || k < -38) { /* m * 2^e < 2^126 */
        return false;
    }
    U128 n = (U128)m << e, p = pow10u128(-k), q = n / p, r = n - q * p;
    *out = q + (2 * r > p || (2 * r == p && (q & 1)));
    return true;
}

/* printf itself, with '.' whatever the thread's locale (a JSON number). */
static int formatSlow(double v, int P, char *buf)
{
    const int n = snprintf(buf, 32, "%.*g", P, v);
    for (char *p = buf; *p; ++p) {
        if (!((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z'))) {
            *p = '.'; /* the locale's decimal point (inf and nan keep their letters) */
        }
    }
    return n;
}

/* v (normal, 1e-38 <= |v| < 1e38) rounded to P significant digits as printf rounds: the digits as
 * an integer *d in [10^(P-1), 10^P) and printf's decimal exponent *x (v ~ d * 10^(x - P + 1)).
 * False where the integer path does not reach (the caller falls back to printf). */
static bool decimalDigits(uint64_t bits, int P, U128 *d, int *x)
{
    const int be = (int)((bits >> 52) & 0x7FF);
    const uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    const int e = be - 1075; /* v = +-m * 2^e */
    const U128 lo = pow10u128(P - 1), hi = pow10u128(P);
    /* x: printf's decimal exponent, that of v rounded to P digits, estimated from v's binary
     * exponent and log2(1 + f) ~ f + 0.3466 f (1 - f) (within 0.006): it may be one off either
     * way (the loop corrects it); a rounding that carries makes 10^(P-1) at the next exponent. */
    const double f = (double)(m - (1ull << 52)) * 0x1p-52;
    int ex = (int)floor(((double)(be - 1023) + f + 0.3466 * f * (1.0 - f)) * 0.30102999566398120);
    U128 dd = 0;
    for (int tries = 0;; ++tries) {
        if (tries == 3 || !scaledRound(m, e, P - 1 - ex, &dd)) {
            return false;
        }
        if (dd >= hi) { /* P + 1 digits: x was too small (or the rounding carried) */
            ++ex;
        } else if (dd < lo) { /* P - 1 digits: x was too large */
            --ex;
        } else {
            break;
        }
    }
    if (dd == lo) { /* 10^(P-1): v itself, or v below 10^x rounded up at x; then x - 1 is right
                      unless its P digits carry too */
        U128 d1;
        if (!scaledRound(m, e, P - ex, &d1)) {
            return false;
        }
        if (d1 < hi) {
            dd = d1;
            --ex;
        }
    }
    *d = dd;
    *x = ex;
    return true;
}

/* "00" .. "99" */
static const char k_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

/* printf's %.*g layout of the P digits d (an integer in [10^(P-1), 10^P)) at decimal exponent x,
 * negative when neg: trailing zeros dropped, %e style below 1e-4 and from 10^P. Returns the length. */
static int layoutG(bool neg, uint64_t d, int P, int x, char *buf)
{
    /* the digits, then '0' padding: the copies below move a fixed 17 bytes (inlined vector moves,
       not a call per number) and advance by the digits they mean; buf has 40 bytes */
    char dig[40];
    memset(dig, '0', sizeof dig);
    for (int i = P; i > 1; i -= 2) { /* two digits at a time */
        const unsigned r = (unsigned)(d % 100);
        d /= 100;
        dig[i - 2] = k_pairs[2 * r];
        dig[i - 1] = k_pairs[2 * r + 1];
    }
    if (P & 1) {
        dig[0] = (char)('0' + d);
    }
    int nd = P; /* significant digits left once the trailing zeros go (%g drops them) */
    while (nd > 1 && dig[nd - 1] == '0') {
        --nd;
    }
    char *o = buf;
    if (neg) {
        *o++ = '-';
    }
    if (x < -4 || x >= P) { /* %e style: d.ddde+XX */
        *o++ = dig[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, dig + 1, 17);
            o += nd - 1;
        }
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100) {
            *o++ = (char)('0' + ax / 100);
            ax %= 100;
            *o++ = (char)('0' + ax / 10);
        } else if (ax >= 10) {
            *o++ = (char)('0' + ax / 10);
        } else {
            *o++ = '0';
        }
        *o++ = (char)('0' + ax % 10);
    } else if (x >= 0) { /* %f style, x + 1 integer digits (x < P <= 17) */
        memcpy(o, dig, 17);
        o += x + 1;
        if (nd > x + 1) {
            *o++ = '.';
            memcpy(o, dig + x + 1, 17);
            o += nd - x - 1;
        }
    } else { /* %f style below 1: 0.000ddd */
        memcpy(o, "0.0000", 6);
        o += 1 - x;
        memcpy(o, dig, 17);
        o += nd;
    }
    *o = '\0';
    return (int)(o - buf);
}

int tpPlan_FormatG(double v, int precision, char *buf)
{
    const int P = precision < 1 ? 1 : precision > 17 ? 17 : precision;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    const int be = (int)((bits >> 52) & 0x7FF);
    const double a = fabs(v);
    /* the exact integer path covers 1e-38 <= |v| < 1e38 (intermediates below 2^128, or 2^192
     * for the smallest: scaledRoundWide) */
    U128 d;
    int x;
    if (be == 0 || be == 0x7FF || !(a >= 1e-38 && a < 1e38) || !decimalDigits(bits, P, &d, &x)) {
        return formatSlow(v, P, buf);
    }
    return layoutG(bits >> 63, (uint64_t)d, P, x, buf); /* d < 10^17 < 2^57 */
}

/* Whether the decimal D = d * 10^q (d < 2^50, |q| <= 27) reads back as v (normal, bits), 1 or 0
 * (-1: an intermediate beyond 128 bits, not decided here): D lies
 * strictly between v's two rounding boundaries, or on one with v's significand even (strtod rounds
 * ties to even), compared exactly in 128-bit integers. A boundary is c * 2^f: (2m +- 1) * 2^(e-1),
 * and (4m - 1) * 2^(e-2) below a power of two (whose lower neighbour is half as far). */
static int readsBack(uint64_t bits, uint64_t d, int q)
{
    const int be = (int)((bits >> 52) & 0x7FF);
    const uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    const int e = be - 1075;
    const bool pow2 = m == (1ull << 52) && be > 1;
    /* cmp(c, f): the sign of D - c * 2^f, from D * 2^-f = d * 5^q * 2^(q - f) against c */
    const uint64_t chi = 2 * m + 1, clo = pow2 ? 4 * m - 1 : 2 * m - 1;
    const int fhi = e - 1, flo = pow2 ? e - 2 : e - 1;
    int sgn[2];
    for (int i = 0; i < 2; ++i) {
        const uint64_t c = i ? clo : chi;
        const int p = q - (i ? flo : fhi); /* the power of two on D's side */
        U128 L = q >= 0 ? (U128)d * pow5u64(q) : (U128)d, R = q >= 0 ? (U128)c : (U128)c * pow5u64(-q);
        if (p >= 0) {
            if (p > 127 || (L >> (127 - p)) != 0) {
                return -1; /* beyond 128 bits: the caller reads the text back instead */
            }
            L <<= p;
        } else {
            if (-p > 127 || (R >> (127 + p)) != 0) {
                return -1;
            }
            R <<= -p;
        }
        sgn[i] = L > R ? 1 : L < R ? -1 : 0;
    }
    const bool even = (m & 1) == 0;
    return (sgn[0] < 0 || (sgn[0] == 0 && even)) && (sgn[1] > 0 || (sgn[1] == 0 && even));
}

int tpPlan_FormatNumber(double v, char *buf)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    const int be = (int)((bits >> 52) & 0x7FF);
    const double a = fabs(v);
    U128 d17;
    int x;
    if (be == 0 || be == 0x7FF || !(a >= 1e-38 && a < 1e38) || !decimalDigits(bits, 17, &d17, &x)) {
        return formatNumberSlow(v, buf);
    }
    const uint64_t d = (uint64_t)d17;
    const unsigned last2 = (unsigned)(d % 100);
    /* If %.15g reads back, v is the double nearest a 15-digit decimal D: |v - D| <= ulp(v) / 2,
     * under 11.1 units of the 17th digit, so v's 17 digits end within 12 of a multiple of 100.
     * Other endings rule %.15g out (needs17's test, from the integer) */
    if (last2 > 12 && last2 < 88) {
        return layoutG(bits >> 63, d, 17, x, buf);
    }
    /* %.15g's digits: d / 100 rounded (no tie: d ends in 00..12 or 88..99, and v's exact value is
       within half a unit of d) */
    U128 d15w = d / 100 + (last2 > 50);
    int x15 = x;
    if (d15w == pow10u128(15)) { /* the rounding carried: 1.00000000000000 at x + 1 */
        d15w = pow10u128(14);
        ++x15;
    }
    const int q = x15 - 14; /* %.15g's digits are d15 * 10^q */
    const int exact = q >= -27 && q <= 27 ? readsBack(bits, (uint64_t)d15w, q) : -1;
    if (exact >= 0) { /* decided exactly, without reading the text back */
        return exact ? layoutG(bits >> 63, (uint64_t)d15w, 15, x15, buf) : layoutG(bits >> 63, d, 17, x, buf);
    }
    const int n15 = layoutG(bits >> 63, (uint64_t)d15w, 15, x15, buf);
    const double back = tpPlan_ParseNumber(buf, (size_t)n15);
    if (memcmp(&back, &v, sizeof v) == 0) {
        return n15;
    }
    return layoutG(bits >> 63, d, 17, x, buf);
}
#else /* no 128-bit integers: printf itself */
int tpPlan_FormatG(double v, int precision, char *buf)
{
    const int n = snprintf(buf, 32, "%.*g", precision < 1 ? 1 : precision > 17 ? 17 : precision, v);
    for (char *p = buf; *p; ++p) {
        if (*p == ',') { /* a comma-decimal locale's point: JSON wants '.' */
            *p = '.';
        }
    }
    return n;
}

int tpPlan_FormatNumber(double v, char *buf)
{
    return formatNumberSlow(v, buf);
}
#endif
