/* tplan core: shared basics (status codes, clock, logging, hashing).
 * Knows nothing of ODE or Lua. */
#ifndef TP_BASE_H
#define TP_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_PI 3.14159265358979323846

/* Physically meaningful ranges, checked wherever a value enters (scene definitions, --set,
 * skill outputs, plan files) and on every simulated state: a value beyond them is refused with
 * a clear error, and a state that leaves them is an invalid node. ODE aborts the process on
 * non-finite or overflowing quaternions, so nothing near overflow may reach it. */
#define TP_MAX_COORD 1e6     /* m: |position component| */
#define TP_MAX_SPEED 1e5     /* m/s: |linear velocity component| */
#define TP_MAX_ANGVEL 1e5    /* rad/s: |angular velocity component| */
#define TP_MAX_FORCE 1e12    /* N (force) and N m (torque): |action component| */
#define TP_MIN_SIZE 1e-6     /* m: smallest box extent, radius or length */
#define TP_MAX_SIZE 1e5      /* m: largest box extent, radius or length */
#define TP_MIN_MASS 1e-6     /* kg: lightest dynamic body */
#define TP_MAX_MASS 1e12     /* kg: heaviest dynamic body */
#define TP_MAX_BODIES 200000 /* bodies in one scene */

#define TP_MAX_MATERIALS 1024 /* materials in one scene: every pair has a surface (a table of 1024^2) */

/* File size caps (bytes), documented in docs/cli.md. Readers refuse larger files and
 * non-regular files (FIFOs, devices, directories). */
#define TP_MAX_SCRIPT_BYTES ((size_t)16 << 20) /* a Lua domain script or module */
#define TP_MAX_PLAN_BYTES ((size_t)1 << 30)    /* a plan file (400 dice with a long plan: ~100 MB) */
#define TP_MAX_DATA_BYTES ((size_t)64 << 20)   /* an image or track file named by a script */

/// Monotonic wall clock in seconds (CLOCK_MONOTONIC).
double tpClock_Now(void);
/// A monotonic tick count for timing short intervals cheaply: the CPU's time-stamp counter on
/// x86-64 (invariant on the machines tplan targets), nanoseconds of CLOCK_MONOTONIC elsewhere.
/// Its rate is not given: convert a sum of tick intervals with the ratio of tpClock_Now to
/// tpClock_Ticks over a longer span that contains them.
uint64_t tpClock_Ticks(void);

/// Log verbosity; messages below the level are dropped. Default TP_LOG_INFO.
typedef enum { TP_LOG_DEBUG = 0, TP_LOG_INFO = 1, TP_LOG_WARN = 2, TP_LOG_ERROR = 3, TP_LOG_QUIET = 4 } tpLogLevel;

/// Sets the global log threshold (the only process-wide setting; it never affects results).
void tpLog_SetLevel(tpLogLevel level);
/// Where a thread's messages go instead of stderr (every level, whatever the threshold), one
/// line each without the "tplan: " prefix and trailing newline. NULL (the default): stderr.
typedef void (*tpLogSink)(void *user, tpLogLevel level, const char *msg);
/// Sets the calling thread's sink (the embedding API collects messages so that it never prints).
void tpLog_SetThreadSink(tpLogSink sink, void *user);
/// The calling thread's sink and its user pointer (NULL, NULL: none), to put back later.
void tpLog_GetThreadSink(tpLogSink *sink, void **user);
/// printf-style message to stderr, prefixed "tplan: " (and "warning: "/"error: " by level).
void tpLog(tpLogLevel level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/// 64-bit FNV-1a hash of a byte buffer (used for domain-file hashes in plan files).
uint64_t tpHash_Fnv1a64(const void *data, size_t len);

/// Copies at most cap-1 bytes of src into dst and terminates it. dst may not be NULL.
void tpStrCopy(char *dst, size_t cap, const char *src);
/// Offset of the first control character (a byte below 0x20, or 0x7f) of the NUL-terminated name,
/// -1 if none: names reach terminals, files and web pages, so the loaders refuse such names.
int tpName_ControlByte(const char *name);

/// Reads the whole regular file at path into a new NUL-terminated buffer (the caller frees it);
/// *len gets its length without the NUL. Refuses a file that is not a regular file (a FIFO,
/// a device, a directory) or is longer than max_bytes, with "PATH: cannot open: ...", "PATH: not a
/// regular file" or "PATH: larger than N bytes" in err. Returns NULL on failure.
char *tpFile_Read(const char *path, size_t max_bytes, size_t *len, char *err, size_t errlen);
/// Writes all n bytes to fd (retrying short writes and EINTR); false on an error or a closed pipe.
bool tpFd_WriteAll(int fd, const void *buf, size_t n);
/// Reads exactly n bytes from fd (retrying short reads and EINTR); false on an error or end of file.
bool tpFd_ReadAll(int fd, void *buf, size_t n);

/// An output file written under a temporary name in its destination's directory and renamed over the
/// destination only when complete, so that a failed or killed run never leaves a partial file at path.
typedef struct tpFileOut {
    FILE *f;    /* the stream to write; the caller may fclose it and set NULL (see tpFile_CommitOut) */
    char *path; /* the destination (owned copy) */
    char *tmp;  /* the temporary file beside it (owned), NULL when writing to path directly */
} tpFileOut;

/// Opens an output file for path: a new temporary file in the same directory (mode as fopen would
/// give, or the existing file's), or path itself when it exists and is not a regular file (a device
/// such as /dev/null, a FIFO). Returns the stream (also in o->f), or NULL with "cannot open for
/// writing: ..." in err (the path is not repeated). Finish with tpFile_CommitOut or tpFile_AbortOut.
FILE *tpFile_OpenOut(tpFileOut *o, const char *path, const char *mode, char *err, size_t errlen);
/// Closes o->f (unless already closed) and renames the temporary file over the destination. On a
/// write, close or rename error removes the temporary file, leaves the destination as it was and
/// returns false with "write error: ..." in err. Frees o's strings in every case.
bool tpFile_CommitOut(tpFileOut *o, char *err, size_t errlen);
/// Abandons an output: closes o->f and removes the temporary file (the destination is untouched).
void tpFile_AbortOut(tpFileOut *o);
/// Removes the temporary files of the outputs still open. Async-signal-safe: for a handler of
/// SIGINT / SIGTERM that then ends the process (the destinations stay as they were).
void tpFile_RemoveTemps(void);

/// snprintf into an error buffer if it is not NULL. Returns nothing; used for "err, errlen" out-params.
void tpErrorf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/// tpErrorf, then false: the broken rule of a validate function ("return tpBroken(why, cap, ...)").
bool tpBroken(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/// TP_ASSERT(expr): a programmer error of a C caller (a bad body index, a def of the wrong kind,
/// NULL where none is allowed), never something a script, plan file or request can cause (those
/// return a clear error). On in Debug builds and in the sanitizer build (-DTP_SANITIZE=ON defines
/// TP_ENABLE_ASSERT), where a false expr prints "file:line: assertion failed: expr" to stderr and
/// aborts; off in Release (NDEBUG), where expr is not evaluated.
#if !defined(NDEBUG) || defined(TP_ENABLE_ASSERT)
#define TP_ASSERT_ON 1 /* for a check that needs a value kept from before (#if TP_ASSERT_ON) */
#define TP_ASSERT(expr) ((expr) ? (void)0 : tpAssert_Fail(#expr, __FILE__, __LINE__))
#else
#define TP_ASSERT_ON 0
#define TP_ASSERT(expr) ((void)sizeof((expr) ? 1 : 0))
#endif
/// TP_INVARIANT(expr): the same check for a data structure's own consistency (the tree's index-swap
/// lists, the heaps, the k-d forest, the plan packer): a false one is a bug of tplan itself. On and
/// off with TP_ASSERT; the sanitizer build (`make test-asan`) runs every test with both on.
#define TP_INVARIANT(expr) TP_ASSERT(expr)
/// TP_VALIDATE(valid, obj): a module's validate function `bool valid(obj, why, cap)` (the first broken
/// rule in why, e.g. nav/src/nav_validate.c, physics/src/world_validate.c) run as an invariant: a
/// false one aborts with "file:line: assertion failed: <the broken rule>". On and off with
/// TP_ASSERT; in Release neither valid nor obj is evaluated.
#if TP_ASSERT_ON
#define TP_VALIDATE(valid, obj)                                                                                        \
    do {                                                                                                               \
        char why_[320];                                                                                                \
        if (!valid((obj), why_, sizeof why_)) {                                                                        \
            tpAssert_Fail(why_, __FILE__, __LINE__);                                                                   \
        }                                                                                                              \
    } while (0)
#else
#define TP_VALIDATE(valid, obj) ((void)0)
#endif
/// Prints "file:line: assertion failed: expr" to stderr and aborts (TP_ASSERT's failure path).
void tpAssert_Fail(const char *expr, const char *file, int line) __attribute__((noreturn));

/// Disjoint sets over indices 0..n-1 in an array the caller owns (parent[i] = i to start): the
/// root of i's set (path halving: it shortens the paths it walks).
static inline int32_t tpUnion_Root(int32_t *parent, int32_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}
/// Joins the sets of a and b; the lower root becomes the root of both, so the sets' roots are a
/// function of the joins made, not of their order (the lowest index of each set).
static inline void tpUnion_Join(int32_t *parent, int32_t a, int32_t b)
{
    const int32_t x = tpUnion_Root(parent, a), y = tpUnion_Root(parent, b);
    if (x < y)
        parent[y] = x;
    else if (y < x)
        parent[x] = y;
}

#ifdef __cplusplus
}
#endif
#endif
