/* The glTF writer's JSON text: a growing string (gltf.c, gltf_omi.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "export_internal.h"
#include "tp/util.h"

void tpXStr_Put(tpXStr *s, const char *fmt, ...)
{
    if (s->oom) {
        return;
    }
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(s->s ? s->s + s->n : NULL, s->s ? s->cap - s->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            s->oom = true;
            return;
        }
        if (s->s && s->n + (size_t)k < s->cap) {
            s->n += (size_t)k;
            return;
        }
        char *p = tpArray_Grow(s->s, &s->cap, s->n + (size_t)k + 1, 1);
        if (!p) {
            s->oom = true;
            return;
        }
        s->s = p;
    }
}

void tpXStr_String(tpXStr *s, const char *str)
{
    tpXStr_Put(s, "\"");
    for (const unsigned char *p = (const unsigned char *)str; *p; ++p) {
        if (*p == '"' || *p == '\\') {
            tpXStr_Put(s, "\\%c", *p);
        } else if (*p < 0x20) {
            tpXStr_Put(s, "\\u%04x", *p);
        } else {
            tpXStr_Put(s, "%c", *p);
        }
    }
    tpXStr_Put(s, "\"");
}

/* Exact: %.17g reads back to the same double (floats widened to double exactly). */
void tpXStr_Num(tpXStr *s, double v)
{
    if (v == 0) {
        v = 0; /* no "-0" */
    }
    tpXStr_Put(s, "%.17g", v);
}
