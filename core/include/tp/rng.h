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

/// Generator state. Plain value type: copy it to fork a stream, no heap memory.
typedef struct tpRng {
    uint32_t mt[TP_MT_N]; /* state vector */
    int mti;              /* next index; TP_MT_N+1 means "not seeded" */
    int has_spare;        /* Box-Muller: a cached second normal deviate is valid */
    double spare;         /* the cached deviate */
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
