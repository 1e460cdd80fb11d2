/* Sampling distributions D of a skill. All draws come from the run's tpRng. */
#include <math.h>
#include <string.h>

#include "tp/base.h"
#include "tp/skills.h"

tpDist tpDist_Const(double v)
{
    tpDist d;
    memset(&d, 0, sizeof d);
    d.kind = TP_DIST_CONST;
    d.dim = 1;
    d.a[0] = v;
    return d;
}

tpDist tpDist_Uniform(double lo, double hi)
{
    tpDist d = tpDist_Const(lo);
    d.kind = TP_DIST_UNIFORM;
    d.b[0] = hi;
    return d;
}

static bool finite3(const double *v, int n)
{
    for (int i = 0; i < n; ++i) {
        if (!isfinite(v[i])) {
            return false;
        }
    }
    return true;
}

bool tpDist_Validate(const tpDist *d, const char *field, char *err, size_t errlen)
{
    if (d->kind == TP_DIST_UNSET) {
        return true;
    }
    if (d->dim < 1 || d->dim > 3) {
        tpErrorf(err, errlen, "%s: dimension must be 1, 2 or 3 (got %d)", field, d->dim);
        return false;
    }
    switch (d->kind) {
    case TP_DIST_CONST:
        if (!finite3(d->a, d->dim)) {
            tpErrorf(err, errlen, "%s: value must be finite", field);
            return false;
        }
        return true;
    case TP_DIST_UNIFORM:
        for (int i = 0; i < d->dim; ++i) {
            if (!isfinite(d->a[i]) || !isfinite(d->b[i]) || d->a[i] > d->b[i]) {
                tpErrorf(err, errlen, "%s: uniform bounds must be finite with lo <= hi (component %d: %g, %g)", field,
                         i + 1, d->a[i], d->b[i]);
                return false;
            }
        }
        return true;
    case TP_DIST_NORMAL:
        for (int i = 0; i < d->dim; ++i) {
            if (!isfinite(d->a[i]) || !isfinite(d->b[i]) || d->b[i] < 0) {
                tpErrorf(err, errlen, "%s: normal needs a finite mean and sd >= 0 (component %d: sd %g)", field, i + 1,
                         d->b[i]);
                return false;
            }
        }
        return true;
    case TP_DIST_CHOICE: {
        if (d->nchoices < 1 || d->nchoices > TP_DIST_MAX_CHOICES) {
            tpErrorf(err, errlen, "%s: choice needs 1..%d values (got %d)", field, TP_DIST_MAX_CHOICES, d->nchoices);
            return false;
        }
        double sum = 0;
        for (int i = 0; i < d->nchoices; ++i) {
            if (!(d->weights[i] >= 0) || !isfinite(d->weights[i])) {
                tpErrorf(err, errlen, "%s: choice weight %d must be >= 0 (got %g)", field, i + 1, d->weights[i]);
                return false;
            }
            if (!(d->spread[i] >= 0) || !isfinite(d->spread[i])) {
                tpErrorf(err, errlen, "%s: choice spread %d must be >= 0 (got %g)", field, i + 1, d->spread[i]);
                return false;
            }
            if (!finite3(d->choices + 3 * i, d->dim)) {
                tpErrorf(err, errlen, "%s: choice value %d must be finite", field, i + 1);
                return false;
            }
            sum += d->weights[i];
        }
        if (!(sum > 0)) {
            tpErrorf(err, errlen, "%s: choice weights must have a positive sum", field);
            return false;
        }
        return true;
    }
    case TP_DIST_DISC:
        if (d->dim != 2 || !finite3(d->a, 2) || !(d->b[0] >= 0) || !(d->b[1] >= d->b[0]) || !isfinite(d->b[1])) {
            tpErrorf(err, errlen, "%s: disc needs a 2D centre and 0 <= r_min <= r_max (got %g, %g)", field, d->b[0],
                     d->b[1]);
            return false;
        }
        return true;
    case TP_DIST_SAMPLE:
        if (d->offset < 0) {
            tpErrorf(err, errlen, "%s: sample offset must be >= 0 (got %d)", field, d->offset);
            return false;
        }
        return true;
    default:
        tpErrorf(err, errlen, "%s: unknown distribution kind %d", field, (int)d->kind);
        return false;
    }
}

/* Adds to c a point uniform by area in the annulus r_min <= r <= r_max around it: r^2 is uniform
 * between the squared radii. */
static void add_disc_point(tpRng *rng, double r_min, double r_max, double c[2])
{
    double a = r_min * r_min, b = r_max * r_max;
    double r = sqrt(tpRng_Uniform(rng, a, b > a ? b : a));
    double th = tpRng_Uniform(rng, 0.0, 2.0 * TP_PI);
    c[0] += r * cos(th);
    c[1] += r * sin(th);
}

void tpDist_Sample(const tpDist *d, tpRng *rng, const double *y, int ydim, double *out)
{
    switch (d->kind) {
    case TP_DIST_UNSET:
    case TP_DIST_CONST:
        for (int i = 0; i < d->dim; ++i) {
            out[i] = d->a[i];
        }
        break;
    case TP_DIST_UNIFORM:
        for (int i = 0; i < d->dim; ++i) {
            out[i] = tpRng_Uniform(rng, d->a[i], d->b[i]);
        }
        break;
    case TP_DIST_NORMAL:
        for (int i = 0; i < d->dim; ++i) {
            out[i] = tpRng_Normal(rng, d->a[i], d->b[i]);
        }
        break;
    case TP_DIST_CHOICE: {
        double sum = 0;
        for (int i = 0; i < d->nchoices; ++i) {
            sum += d->weights[i];
        }
        double r = tpRng_Res53(rng) * sum;
        int pick = d->nchoices - 1;
        double acc = 0;
        for (int i = 0; i < d->nchoices; ++i) {
            acc += d->weights[i];
            if (acc > r) {
                pick = i;
                break;
            }
        }
        for (int i = 0; i < d->dim; ++i) {
            out[i] = d->choices[3 * pick + i];
        }
        const double s = d->spread[pick];
        if (s > 0) { /* no draw at all for spread 0: plans of older scripts are unchanged */
            if (d->dim == 1) {
                out[0] += tpRng_Uniform(rng, -s, s);
            } else if (d->dim == 2) {
                add_disc_point(rng, 0.0, s, out);
            } else {
                double v[3], n2;
                do { /* rejection from the cube: accepts 52 % of the draws */
                    for (int i = 0; i < 3; ++i) {
                        v[i] = tpRng_Uniform(rng, -1.0, 1.0);
                    }
                    n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
                } while (n2 > 1.0);
                for (int i = 0; i < 3; ++i) {
                    out[i] += s * v[i];
                }
            }
        }
        break;
    }
    case TP_DIST_DISC:
        out[0] = d->a[0];
        out[1] = d->a[1];
        add_disc_point(rng, d->b[0], d->b[1], out);
        break;
    case TP_DIST_SAMPLE:
        for (int i = 0; i < d->dim; ++i) {
            int k = d->offset + i;
            out[i] = (y && k < ydim) ? y[k] : 0.0;
        }
        break;
    default:
        for (int i = 0; i < d->dim; ++i) {
            out[i] = 0.0;
        }
        break;
    }
}
