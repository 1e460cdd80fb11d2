/* The transition function G of a Tactic (Algorithm 1). */
#include "tp/tactics.h"

int tpTactic_G(const double *probs, int k, int sigma, tpRng *rng)
{
    double sum = 0.0;
    for (int j = 0; j < k; ++j) {
        sum += probs[j];
    }
    if (sum > 0.0) {
        /* sample(0, max(1, probSum)): with probabilities summing below 1 the tactic may stay. */
        double r = tpRng_Res53(rng) * (sum > 1.0 ? sum : 1.0);
        double acc = 0.0;
        for (int j = 0; j < k; ++j) {
            acc += probs[j];
            if (acc > r) {
                return j;
            }
        }
    }
    return sigma;
}
