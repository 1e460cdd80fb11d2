/* Allocation failures one at a time, SQLite's way: a test linked with
 *   -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=strdup
 * and fault_hook.c sends every call of those from tplan's static libraries (and the test's own
 * code) through the hook, which fails the n-th one after fault_reset(n). Allocations inside
 * shared libraries (cJSON, SQLite, libc's own) are not seen. Used by tests/core/test_faults.c and
 * tests/service/test_store_faults.c. */
#ifndef TP_TEST_FAULT_HOOK_H
#define TP_TEST_FAULT_HOOK_H

#include <stddef.h>

/// The allocators themselves (never fail, never counted): for a test's own buffers.
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);

/// The hooked allocator (counted, fails at its turn): for a library's allocation hooks (cJSON_InitHooks).
void *__wrap_malloc(size_t n);

extern long g_fault_calls; /* allocations since fault_reset */
extern long g_fault_at;    /* the call (1-based) that fails; -1: none */

/// Counts from 0 again; the fail_at-th allocation from now fails (-1: none fails).
void fault_reset(long fail_at);

#endif
