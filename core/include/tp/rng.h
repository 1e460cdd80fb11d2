/* Mersenne Twister MT19937 (Matsumoto & Nishimura 1998), written from the published
 * mt19937ar reference algorithm. Every random decision in a planning run draws from
 * one explicit tpRng owned by that run: there is no global generator anywhere. */
#ifndef TP_RNG_H
#define TP_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_MT_N 624

/// A tape on a generator (the planner's near-miss refinement, docs/architecture.md "Near misses"):
/// while one is set, every tpRng_Res53 value (so every tpRng_Uniform and tpRng_Normal, which draw
/// through it) is recorded, and the first nplay of them are the values of `play` moved by a normal
/// deviate of standard deviation sigma, wrapped into [0, 1): the draws of an earlier expansion given
/// back nearby, so its skills sample near the same parameters without the planner knowing them.
/// The generator's own stream advances as without the tape (a played draw still draws, and its
/// deviate draws two or more more). tpRng_U32 and tpRng_Below pass through unrecorded.
typedef struct tpRngTape {
    double *rec;        /* the values returned since the last reset (caller-owned, cap of them) */
    int nrec, cap;      /* recorded, room (draws past cap are not recorded) */
    const double *play; /* the values to give back moved (caller-owned, nplay of them); NULL: none */
    int nplay, pos;     /* given back so far */
    double sigma;       /* the move's standard deviation, in units of the [0, 1) draw */
} tpRngTape;

/// Generator state. Plain value type: copy it to fork a stream, no heap memory (a copy shares the
/// tape; tpRng_Seed clears it).
typedef struct tpRng {
    uint32_t mt[TP_MT_N]; /* state vector */
    int mti;              /* next index; TP_MT_N+1 means "not seeded" */
    int has_spare;        /* Box-Muller: a cached second normal deviate is valid (never used while a
                             tape is set, so that a played draw makes the same normal) */
    double spare;         /* the cached deviate */
    tpRngTape *tape;      /* NULL (default): none. Not owned */
} tpRng;

/// init_genrand: seeds from one 32-bit value.
void tpRng_Seed(tpRng *rng, uint32_t seed);
/// init_by_array: seeds from an array of 32-bit keys (len >= 1).
void tpRng_SeedArray(tpRng *rng, const uint32_t *key, int len);
/// genrand_int32: next 32-bit output.
uint32_t tpRng_U32(tpRng *rng);
/// genrand_res53: uniform double in [0, 1) with 53-bit resolution.
double tpRng_Res53(tpRng *rng);
/// Uniform double in [lo, hi) (returns lo when hi <= lo).
double tpRng_Uniform(tpRng *rng, double lo, double hi);
/// Normal deviate (Box-Muller, polar form; the spare is kept in the state, so it is deterministic).
double tpRng_Normal(tpRng *rng, double mean, double sd);
/// Uniform integer in [0, n) without modulo bias; n must be > 0.
uint32_t tpRng_Below(tpRng *rng, uint32_t n);

#ifdef __cplusplus
}
#endif
#endif
