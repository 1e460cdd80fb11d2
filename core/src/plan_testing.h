/* core: how plan files write and read numbers (plan_write.c, plan_pack.c), for the plan file
 * code (plan_internal.h) and for tests (tests/core includes only this header of them). */
#ifndef TP_PLAN_TESTING_H
#define TP_PLAN_TESTING_H

#include <stddef.h>
#include <stdio.h>

/// Exact shortest round-trip double (plan_write.c).
void tpPlan_PutDouble(FILE *f, double v);
/// Writes v to buf (at least 32 bytes) exactly as snprintf(buf, 32, "%.*g", precision, v) in the C
/// locale and returns the length, for a precision of 1 to 17 (clamped): v's value rounded to that
/// many significant digits, ties to even, computed in 128-bit integer arithmetic for 1e-38 <= |v| <
/// 1e38 (192-bit below 1e-16; 4 times faster than glibc's printf, which the other values go to).
int tpPlan_FormatG(double v, int precision, char *buf);
/// A nonzero v as the plan files write it: %.17g, or %.15g when that reads back to v (strtod) —
/// shorter for values such as 0.1 —, into buf (at least 40 bytes), '.' for the point whatever the
/// locale; returns the length. One 17-digit rounding serves both (tpPlan_FormatG's arithmetic),
/// so it costs about one tpPlan_FormatG. Not for 0 (the writer prints "0" and "-0").
int tpPlan_FormatNumber(double v, char *buf);
/// The double nearest to the JSON number s[0..n) (what strtod returns, bit for bit), faster than
/// strtod for up to 19 significant digits and exponents within +-27 (plan files' %.17g numbers).
double tpPlan_ParseNumber(const char *s, size_t n);

#endif
