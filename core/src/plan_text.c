/* The plan file's leaf writers and name checks, shared by the writer (plan_write.c) and the
 * optional members' files (plan_goal.c, plan_overlay.c, plan_sources.c, plan_control.c, ...): the
 * shortest exact number text, JSON strings, and the small predicates the readers share. A leaf:
 * it calls nothing of the other plan files, so none of them depends on plan_write.c for these. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/util.h"

bool tpPlan_IsOneOf(const char *s, const char *const *list)
{
    if (!s) {
        return false;
    }
    for (; *list; ++list) {
        if (strcmp(s, *list) == 0) {
            return true;
        }
    }
    return false;
}

bool tpPlan_IsHashString(const char *s)
{
    static const char prefix[] = "fnv1a64:";
    if (!s || strncmp(s, prefix, sizeof prefix - 1) != 0) {
        return false;
    }
    s += sizeof prefix - 1;
    for (int i = 0; i < 16; ++i) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) {
            return false;
        }
    }
    return s[16] == '\0';
}

bool tpPlan_FindDuplicate(const char *const *names, int n, int *first, int *second)
{
    int found = tpNames_FindDuplicate(names, n, first, second);
    if (found >= 0) {
        return found == 1;
    }
    /* Fall back to the quadratic scan rather than report a false "unique" (n is a plan's body or
     * tactic count here, bounded by what the reader already holds in memory). */
    for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
            if (strcmp(names[i], names[j]) == 0) {
                *first = i;
                *second = j;
                return true;
            }
        }
    }
    return false;
}

/* A domain script may have switched LC_NUMERIC; JSON always wants '.'. */
static void normalize_number(char *buf)
{
    for (char *p = buf; *p; ++p) {
        if (!((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == 'e' || *p == 'E')) {
            *p = '.';
        }
    }
}

/* Shortest of %.15g / %.17g that reads back to the same bits: %.15g keeps common values
 * such as 0.1 readable, %.17g is always exact. -0.0 prints as "-0" (strtod keeps the sign).
 * Most simulated values need 17 digits, which tpPlan_FormatNumber sees from their 17 digits
 * without a strtod (a plan of 400 dice holds millions of numbers); the result is the same as
 * trying %.15g first. Writes the text and its NUL into buf (40 bytes), returns its length. */
int tpPlan_FormatDouble(double v, char *buf)
{
    if (v == 0) {
        const bool neg = signbit(v); /* what %.15g prints */
        memcpy(buf, neg ? "-0" : "0", neg ? 3 : 2);
        return neg ? 2 : 1;
    }
    const int n = tpPlan_FormatNumber(v, buf);
    if (!isfinite(v)) { /* '.' for the point already; this keeps older builds' bytes for inf, nan */
        normalize_number(buf);
    }
    return n;
}

void tpPlan_PutDouble(FILE *f, double v)
{
    char buf[40];
    const int n = tpPlan_FormatDouble(v, buf);
    fwrite(buf, 1, (size_t)n, f);
}

/* Colors are floats: the shortest digits that come back as the same float through the
 * reader's path (strtod, then a cast), so 0.2f prints as 0.2 rather than 0.20000000298023224. */
void tpPlan_PutFloat(FILE *f, float v)
{
    char buf[40];
    for (int digits = 6; digits <= 9; ++digits) {
        snprintf(buf, sizeof buf, "%.*g", digits, (double)v);
        float back = (float)strtod(buf, NULL);
        if (memcmp(&back, &v, sizeof v) == 0) {
            normalize_number(buf);
            fputs(buf, f);
            return;
        }
    }
    tpPlan_PutDouble(f, (double)v); /* exact as a double, hence exact after the cast */
}

void tpPlan_PutString(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        case '\b':
            fputs("\\b", f);
            break;
        case '\f':
            fputs("\\f", f);
            break;
        default:
            if (*p < 0x20) {
                fprintf(f, "\\u%04x", (unsigned)*p);
            } else {
                fputc(*p, f);
            }
        }
    }
    fputc('"', f);
}
