/* Physical ranges of the numbers in a plan file (tp/base.h), shared by the writer and the reader
 * so that the writer never produces a file the reader refuses. A plan's states and controls go
 * straight into the simulator on replay, and ODE aborts the whole process on overflowing or
 * non-finite states, so nothing beyond these ranges may be handed out by the reader. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/base.h"

bool tpPlan_Failf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return false;
}

static int out_of_range(double v, double max, int index, char *why, size_t cap)
{
    snprintf(why, cap, "%.17g is outside +-%g", v, max);
    return index;
}

int tpPlan_StateProblem(const double *s, char *why, size_t cap)
{
    for (int j = 0; j < 3; ++j) {
        if (!(fabs(s[j]) <= TP_MAX_COORD)) {
            return out_of_range(s[j], TP_MAX_COORD, j, why, cap);
        }
    }
    /* The quaternion before the velocities: entries are reported in file order. */
    double n2 = s[3] * s[3] + s[4] * s[4] + s[5] * s[5] + s[6] * s[6];
    if (!(fabs(n2 - 1.0) <= TP_PLAN_QUAT_TOL)) {
        snprintf(why, cap, "the quaternion (entries 3..6) has squared norm %.17g, not 1", n2);
        return 3;
    }
    for (int j = 7; j < 13; ++j) {
        double max = j < 10 ? TP_MAX_SPEED : TP_MAX_ANGVEL;
        if (!(fabs(s[j]) <= max)) {
            return out_of_range(s[j], max, j, why, cap);
        }
    }
    return -1;
}

int tpPlan_ControlProblem(const double *c, char *why, size_t cap)
{
    for (int j = 0; j < TP_CONTROL_DOUBLES; ++j) {
        if (!(fabs(c[j]) <= TP_MAX_FORCE)) {
            return out_of_range(c[j], TP_MAX_FORCE, j, why, cap);
        }
    }
    return -1;
}

int tpPlan_SizeProblem(const char *shape, const double *size, char *why, size_t cap)
{
    if (strcmp(shape, "plane") == 0) {
        for (int j = 0; j < 4; ++j) {
            if (!(fabs(size[j]) <= TP_MAX_COORD)) {
                return out_of_range(size[j], TP_MAX_COORD, j, why, cap);
            }
        }
        if (size[0] == 0.0 && size[1] == 0.0 && size[2] == 0.0) {
            snprintf(why, cap, "the plane's normal (entries 0..2) is zero");
            return 0;
        }
        return -1;
    }
    /* Entries the shape does not use are not checked (the format says 0). */
    int n = strcmp(shape, "box") == 0 || strcmp(shape, "mesh") == 0 || strcmp(shape, "compound") == 0 ? 3
            : strcmp(shape, "sphere") == 0                                                            ? 1
                                                                                                      : 2;
    for (int j = 0; j < n; ++j) {
        if (!(size[j] > 0.0 && size[j] <= TP_MAX_COORD)) {
            snprintf(why, cap, "%.17g is not a length in (0, %g] m", size[j], TP_MAX_COORD);
            return j;
        }
    }
    return -1;
}

bool tpPlan_RejectionsProblem(const tpPlanRecord *rec, char *field, size_t fcap, char *why, size_t cap)
{
    int64_t sum = 0;
    bool any = false;
    for (int k = 0; k < TP_REJECT_KINDS; ++k) {
        const tpRejectStat *r = &rec->rejections[k];
        const char *name = tpRejectKind_Name((tpRejectKind)k);
        if (r->count == 0 && r->iteration == 0 && r->first[0] == '\0') {
            continue;
        }
        any = true;
        snprintf(field, fcap, "stats.rejections.%s.count", name);
        if (r->count < 1 || r->count > rec->rejected) {
            snprintf(why, cap, "must be in 1..stats.rejected (%lld), got %lld", (long long)rec->rejected,
                     (long long)r->count);
            return false;
        }
        sum += r->count;
        snprintf(field, fcap, "stats.rejections.%s.iteration", name);
        if (r->iteration < 1 || r->iteration > rec->iterations) {
            snprintf(why, cap, "must be in 1..stats.iterations (%lld), got %lld", (long long)rec->iterations,
                     (long long)r->iteration);
            return false;
        }
        snprintf(field, fcap, "stats.rejections.%s.first", name);
        size_t n = strnlen(r->first, sizeof r->first);
        if (n >= sizeof r->first) {
            snprintf(why, cap, "longer than %d bytes", TP_REJECT_TEXT_MAX - 1);
            return false;
        }
        for (size_t i = 0; i < n; ++i) {
            unsigned char ch = (unsigned char)r->first[i];
            if (ch < 0x20 || ch == 0x7f) {
                snprintf(why, cap, "control character 0x%02x at byte %zu (one line of text expected)", ch, i);
                return false;
            }
        }
    }
    if (any && sum != rec->rejected) {
        snprintf(field, fcap, "stats.rejections");
        snprintf(why, cap, "the counts add up to %lld, not stats.rejected (%lld)", (long long)sum,
                 (long long)rec->rejected);
        return false;
    }
    return true;
}

bool tpPlan_FileFail(const char *file, char *err, size_t errlen, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tpErrorf(err, errlen, "%s: %s", file, msg);
    return false;
}
