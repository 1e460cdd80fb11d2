/* tplan core: shared basics (status codes, clock, logging, hashing).
 * Knows nothing of ODE or Lua. */
#ifndef TP_BASE_H
#define TP_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_PI 3.14159265358979323846

/// Process exit codes used by every tplan command (documented in docs/cli.md).
enum {
    TP_EXIT_OK = 0,          /* solved / success */
    TP_EXIT_FAILURE = 1,     /* internal failure, or replay mismatch */
    TP_EXIT_BAD_INPUT = 2,   /* bad command line, script error, bad or corrupt file */
    TP_EXIT_APPROXIMATE = 3, /* planner found no solution, returned the best node */
};

/// Monotonic wall clock in seconds (CLOCK_MONOTONIC).
double tpClock_Now(void);

/// Log verbosity; messages below the level are dropped. Default TP_LOG_INFO.
typedef enum { TP_LOG_DEBUG = 0, TP_LOG_INFO = 1, TP_LOG_WARN = 2, TP_LOG_ERROR = 3, TP_LOG_QUIET = 4 } tpLogLevel;

/// Sets the global log threshold (the only process-wide setting; it never affects results).
void tpLog_SetLevel(tpLogLevel level);
/// printf-style message to stderr, prefixed "tplan: " (and "warning: "/"error: " by level).
void tpLog(tpLogLevel level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/// 64-bit FNV-1a hash of a byte buffer (used for domain-file hashes in plan files).
uint64_t tpHash_Fnv1a64(const void *data, size_t len);

/// Copies at most cap-1 bytes of src into dst and terminates it. dst may not be NULL.
void tpStrCopy(char *dst, size_t cap, const char *src);

/// snprintf into an error buffer if it is not NULL. Returns nothing; used for "err, errlen" out-params.
void tpErrorf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif
#endif
