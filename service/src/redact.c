/* tplan service: passwords in a connection string are never in a message: the --store
 * string as messages and logs show it, and a message scrubbed of the string's secrets. A leaf file:
 * the stores and the service's start-up call it, it calls nothing of the service. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <string.h>

#include "service_internal.h"

/* The next password in spec at or after *from: its offset and length (0 = none left). Generous: what
 * libpq might read as a password, and more (an odd string is cut at the widest place). */
static size_t next_secret(const char *spec, size_t *from, size_t *len)
{
    const char *s = spec + *from;
    const char *uri = *from == 0 ? strstr(spec, "://") : NULL;
    if (uri) { /* scheme://user:PASSWORD@host...: up to the last '@' before the path */
        const char *a = uri + 3, *end = a + strcspn(a, "/"), *at = NULL;
        for (const char *q = a; q < end; ++q) {
            at = *q == '@' ? q : at;
        }
        const char *colon = at ? memchr(a, ':', (size_t)(at - a)) : NULL;
        if (colon && at > colon + 1) {
            *len = (size_t)(at - colon - 1);
            *from = (size_t)(at - spec);
            return (size_t)(colon + 1 - spec);
        }
    }
    for (const char *k = strstr(s, "password"); k; k = strstr(k + 1, "password")) {
        const char *v = k + 8;
        v += strspn(v, " \t");
        if (*v != '=') {
            continue;
        }
        ++v;
        v += strspn(v, " \t");
        const char *e = v;
        if (*e == '\'') { /* key='quoted value' with \' and \\ */
            for (++e; *e && *e != '\''; ++e) {
                e += e[0] == '\\' && e[1];
            }
            e += *e == '\'';
        } else {
            e += strcspn(e, " \t\n&");
        }
        if (e > v) {
            *len = (size_t)(e - v);
            *from = (size_t)(e - spec);
            return (size_t)(v - spec);
        }
    }
    *len = 0;
    return 0;
}

void tpService_RedactStore(const char *spec, char *out, size_t cap)
{
    if (cap == 0) {
        return;
    }
    size_t o = 0, copied = 0, from = 0, len = 0;
    spec = spec ? spec : "";
    for (;;) {
        size_t at = next_secret(spec, &from, &len);
        size_t upto = len ? at : strlen(spec);
        for (size_t i = copied; i < upto && o + 1 < cap; ++i) {
            out[o++] = spec[i];
        }
        if (!len) {
            break;
        }
        for (const char *m = "***"; *m && o + 1 < cap; ++m) {
            out[o++] = *m;
        }
        copied = at + len;
    }
    out[o] = '\0';
}

void svcStore_RedactIn(const char *spec, char *msg)
{
    size_t from = 0, len = 0;
    for (;;) {
        size_t at = next_secret(spec ? spec : "", &from, &len);
        if (!len) {
            return;
        }
        char *p = msg;
        for (char *hit; (hit = memmem(p, strlen(p), spec + at, len)); p = hit + len) {
            memset(hit, '*', len); /* the same length: the message stays in its buffer */
        }
    }
}
