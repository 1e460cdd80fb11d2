/* Shared helpers of the fuzz targets (tests/fuzz, docs/fuzzing.md). Each target defines
 * LLVMFuzzerTestOneInput; libFuzzer (TP_FUZZ=ON) or replay_main.c (every other build) calls it. */
#ifndef TP_FUZZ_UTIL_H
#define TP_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/// A path in this process's scratch directory (created on first use under $TMPDIR or /tmp and
/// removed at exit); `name` must be a plain file name. The returned string is static.
const char *tpFuzz_Path(const char *name);
/// Writes size bytes to path (truncating it); aborts on I/O failure (the harness is broken then).
void tpFuzz_WriteFile(const char *path, const void *data, size_t size);
/// Reads a whole file written by the target itself; the caller frees. Aborts on failure.
char *tpFuzz_ReadFile(const char *path, size_t *len);
/// Aborts with a message: a property of the code under test does not hold (a finding).
void tpFuzz_Fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
