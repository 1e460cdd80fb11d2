/* MT19937 (Matsumoto & Nishimura 1998), written from the published mt19937ar algorithm
 * description: a 624-word twisted GFSR with tempering. Reproducing the reference output
 * exactly matters because plans are replayed and compared bit for bit across runs. */
#include "tp/base.h"
#include "tp/rng.h"

#include <math.h>
#include <stddef.h>

enum {
    TP_MT_M = 397, /* middle word offset of the recurrence */
};
#define TP_MT_MATRIX_A 0x9908b0dfu /* twist matrix constant a */
#define TP_MT_UPPER 0x80000000u    /* most significant w-r bits */
#define TP_MT_LOWER 0x7fffffffu    /* least significant r bits */

void tpRng_Seed(tpRng *rng, uint32_t seed)
{
    uint32_t *mt = rng->mt;
    mt[0] = seed;
    for (int i = 1; i < TP_MT_N; ++i) {
        uint32_t prev = mt[i - 1];
        /* Knuth's multiplier (TAOCP vol. 2, 3rd ed., p. 106); uint32_t arithmetic wraps mod 2^32. */
        mt[i] = 1812433253u * (prev ^ (prev >> 30)) + (uint32_t)i;
    }
    rng->mti = TP_MT_N;
    rng->has_spare = 0;
    rng->spare = 0.0;
    rng->tape = NULL;
}

void tpRng_SeedArray(tpRng *rng, const uint32_t *key, int len)
{
    TP_INVARIANT(key != NULL && len >= 1);
    uint32_t *mt = rng->mt;
    tpRng_Seed(rng, 19650218u);
    int i = 1;
    int j = 0;
    for (int k = TP_MT_N > len ? TP_MT_N : len; k > 0; --k) {
        uint32_t prev = mt[i - 1];
        mt[i] = (mt[i] ^ ((prev ^ (prev >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        ++i;
        ++j;
        if (i >= TP_MT_N) {
            mt[0] = mt[TP_MT_N - 1];
            i = 1;
        }
        if (j >= len) {
            j = 0;
        }
    }
    for (int k = TP_MT_N - 1; k > 0; --k) {
        uint32_t prev = mt[i - 1];
        mt[i] = (mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941u)) - (uint32_t)i;
        ++i;
        if (i >= TP_MT_N) {
            mt[0] = mt[TP_MT_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000u; /* guarantees a non-zero initial state */
    rng->mti = TP_MT_N;
    rng->has_spare = 0;
    rng->spare = 0.0;
    rng->tape = NULL;
}

/* One twist of the whole state vector (generates the next 624 words). */
static void twist(uint32_t *mt)
{
    int kk = 0;
    for (; kk < TP_MT_N - TP_MT_M; ++kk) {
        uint32_t y = (mt[kk] & TP_MT_UPPER) | (mt[kk + 1] & TP_MT_LOWER);
        mt[kk] = mt[kk + TP_MT_M] ^ (y >> 1) ^ ((y & 1u) ? TP_MT_MATRIX_A : 0u);
    }
    for (; kk < TP_MT_N - 1; ++kk) {
        uint32_t y = (mt[kk] & TP_MT_UPPER) | (mt[kk + 1] & TP_MT_LOWER);
        mt[kk] = mt[kk + (TP_MT_M - TP_MT_N)] ^ (y >> 1) ^ ((y & 1u) ? TP_MT_MATRIX_A : 0u);
    }
    uint32_t y = (mt[TP_MT_N - 1] & TP_MT_UPPER) | (mt[0] & TP_MT_LOWER);
    mt[TP_MT_N - 1] = mt[TP_MT_M - 1] ^ (y >> 1) ^ ((y & 1u) ? TP_MT_MATRIX_A : 0u);
}

uint32_t tpRng_U32(tpRng *rng)
{
    if (rng->mti >= TP_MT_N) {
        if (rng->mti != TP_MT_N) {
            /* Never seeded: the reference falls back to the default seed 5489. */
            tpRng_Seed(rng, 5489u);
        }
        twist(rng->mt);
        rng->mti = 0;
    }
    uint32_t y = rng->mt[rng->mti++];
    /* Tempering: improves equidistribution of the output bits. */
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* genrand_res53 without the tape. */
static double res53(tpRng *rng)
{
    uint32_t a = tpRng_U32(rng) >> 5; /* 27 bits */
    uint32_t b = tpRng_U32(rng) >> 6; /* 26 bits */
    return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

/* Marsaglia's polar method: a uniform point (u, v) in the unit disc, drawn by draw, gives two
 * independent standard normals without trigonometric functions: u m (returned) and v m (into
 * *spare unless NULL). */
static double polar(tpRng *rng, double (*draw)(tpRng *), double *spare)
{
    double u, v, s;
    do {
        u = 2.0 * draw(rng) - 1.0;
        v = 2.0 * draw(rng) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double m = sqrt(-2.0 * log(s) / s);
    if (spare) {
        *spare = v * m;
    }
    return u * m;
}

double tpRng_Res53(tpRng *rng)
{
    double x = res53(rng);
    tpRngTape *t = rng->tape;
    if (t) {
        if (t->play && t->pos < t->nplay) {
            x = t->play[t->pos++] + t->sigma * polar(rng, res53, NULL);
            x -= floor(x); /* wrapped: the draws live on a torus */
            x = x < 1.0 ? x : 0.0;
        }
        if (t->nrec < t->cap) {
            t->rec[t->nrec++] = x;
        }
    }
    return x;
}

double tpRng_Uniform(tpRng *rng, double lo, double hi)
{
    if (!(hi > lo)) {
        return lo;
    }
    double x = lo + (hi - lo) * tpRng_Res53(rng);
    /* lo + (hi-lo)*u can round up to hi for u close to 1; keep the interval half-open. */
    return x < hi ? x : nextafter(hi, lo);
}

double tpRng_Normal(tpRng *rng, double mean, double sd)
{
    if (rng->tape) { /* one deviate from two draws, so that a played pair makes a nearby deviate */
        return mean + sd * polar(rng, tpRng_Res53, NULL);
    }
    if (rng->has_spare) {
        rng->has_spare = 0;
        return mean + sd * rng->spare;
    }
    const double z = polar(rng, tpRng_Res53, &rng->spare);
    rng->has_spare = 1;
    return mean + sd * z;
}

uint32_t tpRng_Below(tpRng *rng, uint32_t n)
{
    TP_INVARIANT(n > 0);
    /* Reject the lowest (2^32 mod n) outputs so the accepted range is a multiple of n. */
    uint32_t threshold = (uint32_t)(-n) % n;
    for (;;) {
        uint32_t r = tpRng_U32(rng);
        if (r >= threshold) {
            return r % n;
        }
    }
}
