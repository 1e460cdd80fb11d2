/* tplan core: the small geometry helpers every layer repeats (angles, quaternions, clamping), as
 * inline functions. Quaternions are {w, x, y, z} (ODE's order, the plan file's). Each helper keeps
 * one fixed order of floating-point operations: plans depend on their last bits, so changing an
 * expression here changes plans (check with tools/plan_digests.sh). Knows nothing of ODE or Lua. */
#ifndef TP_MATHX_H
#define TP_MATHX_H

#include <math.h>

#include "tp/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// An angle (rad) wrapped into (-pi, pi]; computed as fmod(a + pi, 2 pi) - pi, so it is exact only
/// to the rounding of a + pi (what the skills and the key distance have always used).
static inline double tpAngle_Wrap(double a)
{
    a = fmod(a + TP_PI, 2.0 * TP_PI);
    if (a <= 0) {
        a += 2.0 * TP_PI;
    }
    return a - TP_PI;
}

/// An angle (rad) wrapped into (-pi, pi] as fmod(a, 2 pi), then +- 2 pi: unlike tpAngle_Wrap it
/// keeps every bit of a small angle. The path follower's (tpNavFollower); the two differ in the last
/// bits, and plans depend on each as it is, so neither may replace the other.
static inline double tpAngle_WrapPrecise(double a)
{
    a = fmod(a, 2.0 * TP_PI);
    if (a <= -TP_PI) {
        a += 2.0 * TP_PI;
    } else if (a > TP_PI) {
        a -= 2.0 * TP_PI;
    }
    return a;
}

/// The yaw (rad, about world z, in [-pi, pi]) of a unit quaternion {w, x, y, z}.
static inline double tpQuat_Yaw(const double q[4])
{
    return atan2(2.0 * (q[0] * q[3] + q[1] * q[2]), 1.0 - 2.0 * (q[2] * q[2] + q[3] * q[3]));
}

/// The Euclidean length of a quaternion {w, x, y, z}.
static inline double tpQuat_Norm(const double q[4])
{
    return sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
}

/// Divides q by its length; a zero quaternion is left as it is.
static inline void tpQuat_Normalize(double q[4])
{
    double n = tpQuat_Norm(q);
    if (n > 0) {
        for (int k = 0; k < 4; ++k) {
            q[k] /= n;
        }
    }
}

/// The rotation matrix of a unit quaternion {w, x, y, z}, row-major: world = R * local, r[3 i + j]
/// = R(i, j). The quaternion is not normalised here (see tpQuat_Normalize).
static inline void tpQuat_ToMatrix(const double q[4], double r[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    r[0] = 1 - 2 * (y * y + z * z), r[1] = 2 * (x * y - w * z), r[2] = 2 * (x * z + w * y);
    r[3] = 2 * (x * y + w * z), r[4] = 1 - 2 * (x * x + z * z), r[5] = 2 * (y * z - w * x);
    r[6] = 2 * (x * z - w * y), r[7] = 2 * (y * z + w * x), r[8] = 1 - 2 * (x * x + y * y);
}

/// v limited to [lo, hi] (lo when v < lo, hi when v > hi; v itself otherwise, NaN included).
static inline double tpClamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

#ifdef __cplusplus
}
#endif
#endif
