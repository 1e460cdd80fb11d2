/* Axis conversion, quaternion continuity and keyframe reduction (docs/export.md, "Keyframe
 * reduction"). The reducer checks every sample a kept segment spans against the plan's doubles,
 * using the float32 values that are written, so its guarantee holds for the file itself. */
#include <math.h>
#include <stdlib.h>

#include "tp/export.h"
#include "tp/mathx.h"

void tpExport_VecToYup(const double v[3], double out[3])
{
    double x = v[0], y = v[1], z = v[2];
    out[0] = x;
    out[1] = z;
    out[2] = -y;
}

void tpExport_QuatToYup(const double q[4], double out[4])
{
    /* The change of basis C (x, y, z) -> (x, z, -y) is a proper rotation, so C R C^T is the rotation
     * about the converted axis by the same angle: the vector part converts like a vector. */
    double w = q[0], v[3] = {q[1], q[2], q[3]}, c[3];
    tpExport_VecToYup(v, c);
    double n = sqrt(w * w + c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    if (!(n > 0)) {
        out[0] = out[1] = out[2] = 0;
        out[3] = 1;
        return;
    }
    out[0] = c[0] / n;
    out[1] = c[1] / n;
    out[2] = c[2] / n;
    out[3] = w / n;
}

void tpExport_QuatContinuity(double *q, int n)
{
    for (int i = 1; i < n; ++i) {
        double *a = q + 4 * (i - 1), *b = q + 4 * i;
        if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0) {
            for (int k = 0; k < 4; ++k) {
                b[k] = -b[k];
            }
        }
    }
}

/* Angle (rad) between the rotations of unit quaternions a and b, either sign; accurate for small
 * angles too (acos of the dot product is not). */
static double quat_angle(const double a[4], const double b[4])
{
    double dm = 0, dp = 0;
    for (int k = 0; k < 4; ++k) {
        dm += (a[k] - b[k]) * (a[k] - b[k]);
        dp += (a[k] + b[k]) * (a[k] + b[k]);
    }
    dm = sqrt(dm), dp = sqrt(dp);
    return 4 * atan2(fmin(dm, dp), fmax(dm, dp));
}

double tpExport_KeyError(tpKeyChannel channel, const float *times, const float *stored, const double *exact, int a,
                         int b, int i)
{
    /* the time of sample i as a consumer sees it: key times are float32 in the file */
    double u = b > a ? ((double)times[i] - (double)times[a]) / ((double)times[b] - (double)times[a]) : 0;
    if (channel == TP_KEYS_TRANSLATION) {
        const float *pa = stored + 3 * a, *pb = stored + 3 * b;
        const double *e = exact + 3 * i;
        double d2 = 0;
        for (int k = 0; k < 3; ++k) {
            double v = (double)pa[k] + u * ((double)pb[k] - (double)pa[k]);
            d2 += (v - e[k]) * (v - e[k]);
        }
        return sqrt(d2);
    }
    const float *qa = stored + 4 * a, *qb = stored + 4 * b;
    double A[4], B[4], e[4];
    for (int k = 0; k < 4; ++k) {
        A[k] = qa[k], B[k] = qb[k], e[k] = exact[4 * i + k];
    }
    tpQuat_Normalize(A);
    tpQuat_Normalize(B);
    tpQuat_Normalize(e);
    double dot = A[0] * B[0] + A[1] * B[1] + A[2] * B[2] + A[3] * B[3];
    if (b > a && dot < 0) {
        return INFINITY; /* consecutive keys must stay sign-continuous (no flip in any consumer) */
    }
    /* slerp (the glTF specification's LINEAR rotation) */
    double s[4];
    double theta = quat_angle(A, B) / 2; /* half the rotation angle = the angle between A and B */
    if (theta < 1e-9) {
        for (int k = 0; k < 4; ++k) {
            s[k] = A[k] + u * (B[k] - A[k]);
        }
    } else {
        double sa = sin((1 - u) * theta) / sin(theta), sb = sin(u * theta) / sin(theta);
        for (int k = 0; k < 4; ++k) {
            s[k] = sa * A[k] + sb * B[k];
        }
    }
    tpQuat_Normalize(s);
    /* per-component lerp, normalised: how Blender's imported f-curves (and sampled engines) play it */
    double l[4];
    for (int k = 0; k < 4; ++k) {
        l[k] = A[k] + u * (B[k] - A[k]);
    }
    tpQuat_Normalize(l);
    return fmax(quat_angle(s, e), quat_angle(l, e));
}

static bool segment_ok(tpKeyChannel ch, const float *times, const float *stored, const double *exact, int a, int b,
                       double tol, double *seg_err)
{
    double worst = 0;
    for (int i = a; i <= b; ++i) {
        double e = tpExport_KeyError(ch, times, stored, exact, a, b, i);
        if (!(e <= tol)) {
            return false;
        }
        worst = fmax(worst, e);
    }
    *seg_err = worst;
    return true;
}

int tpExport_ReduceKeys(tpKeyChannel channel, const float *times, const float *stored, const double *exact, int n,
                        double tol, uint8_t *keep, double *max_err)
{
    double worst = 0;
    for (int i = 0; i < n; ++i) {
        keep[i] = 0;
    }
    if (n <= 0) {
        if (max_err) {
            *max_err = 0;
        }
        return 0;
    }
    keep[0] = 1;
    int kept = 1, a = 0;
    while (a < n - 1) {
        /* The longest segment from key a found by doubling, then bisection between the last length
         * that passed and the first that failed. Error is not monotone in the length, but every
         * accepted segment is checked at every sample it spans, which is all the guarantee needs. */
        double err = 0, e;
        int good = a + 1;
        if (!segment_ok(channel, times, stored, exact, a, good, INFINITY, &err)) {
            err = INFINITY; /* a sign flip between neighbours cannot happen after QuatContinuity */
        }
        if (tol > 0) {
            int len = 2, bad = -1;
            while (a + len <= n - 1) {
                if (segment_ok(channel, times, stored, exact, a, a + len, tol, &e)) {
                    good = a + len, err = e;
                    len *= 2;
                } else {
                    bad = a + len;
                    break;
                }
            }
            if (bad < 0 && good < n - 1) {
                bad = n; /* the remaining samples: try the end */
                if (segment_ok(channel, times, stored, exact, a, n - 1, tol, &e)) {
                    good = n - 1, err = e, bad = -1;
                }
            }
            while (bad > good + 1) {
                int mid = good + (bad - good) / 2;
                if (mid > n - 1) {
                    break;
                }
                if (segment_ok(channel, times, stored, exact, a, mid, tol, &e)) {
                    good = mid, err = e;
                } else {
                    bad = mid;
                }
            }
        }
        worst = fmax(worst, err);
        keep[good] = 1;
        ++kept;
        a = good;
    }
    if (n == 1) {
        worst = tpExport_KeyError(channel, times, stored, exact, 0, 0, 0);
    }
    if (max_err) {
        *max_err = worst;
    }
    return kept;
}
