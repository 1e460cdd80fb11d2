/* The allocation-failure hook of the fault tests (fault_hook.h): with -Wl,--wrap=malloc (calloc,
 * realloc, strdup) every call from the objects linked into the test comes here first. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "fault_hook.h"

long g_fault_calls;   /* allocations since fault_reset */
long g_fault_at = -1; /* the call (1-based) that fails; -1: none */

static bool fault_now(void)
{
    ++g_fault_calls;
    return g_fault_calls == g_fault_at;
}

void *__wrap_malloc(size_t n)
{
    return fault_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return fault_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fault_now() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = __wrap_malloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

void fault_reset(long fail_at)
{
    g_fault_calls = 0;
    g_fault_at = fail_at;
}
