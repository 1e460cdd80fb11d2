/* Shared basics: clock, logging, hashing, string helpers. */
#include "tp/base.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* The log threshold is the one process-wide setting: it only filters messages and never
 * influences planning results. */
static tpLogLevel s_log_level = TP_LOG_INFO;

double tpClock_Now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tpLog_SetLevel(tpLogLevel level) { s_log_level = level; }

void tpLog(tpLogLevel level, const char *fmt, ...)
{
    if (level < s_log_level) {
        return;
    }
    const char *prefix = level == TP_LOG_ERROR ? "error: " : level == TP_LOG_WARN ? "warning: " : "";
    fprintf(stderr, "tplan: %s", prefix);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    size_t n = strlen(fmt);
    if (n == 0 || fmt[n - 1] != '\n') {
        fputc('\n', stderr);
    }
}

uint64_t tpHash_Fnv1a64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < len; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

void tpStrCopy(char *dst, size_t cap, const char *src)
{
    if (cap == 0) {
        return;
    }
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) {
        n = cap - 1;
    }
    if (n) {
        memcpy(dst, src, n);
    }
    dst[n] = '\0';
}

void tpErrorf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}
