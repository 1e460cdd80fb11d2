/* tplan service: what every request body and every JSON answer must be beyond "parses as JSON"
 * (docs/service.md#errors): UTF-8 (RFC 8259), no NUL inside a string (cJSON's strings end at one,
 * so "minigolf\u0000junk" was read as "minigolf"), no member given twice (which copy counted
 * depended on the field). Answers are made valid UTF-8 whatever a script's message held. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service_internal.h"
#include "tp/util.h"

/* Length of the valid UTF-8 sequence at p (n bytes available), 0 if invalid (RFC 3629: no
 * overlong forms, no surrogates, nothing beyond U+10FFFF). */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
    size_t len = p[0] < 0x80             ? 1
                 : (p[0] & 0xE0) == 0xC0 ? 2
                 : (p[0] & 0xF0) == 0xE0 ? 3
                 : (p[0] & 0xF8) == 0xF0 ? 4
                                         : 0;
    if (len == 0 || len > n || (len == 2 && p[0] < 0xC2) || (len == 4 && p[0] > 0xF4)) {
        return 0;
    }
    for (size_t i = 1; i < len; ++i) {
        if ((p[i] & 0xC0) != 0x80) {
            return 0;
        }
    }
    if ((len == 3 && p[0] == 0xE0 && p[1] < 0xA0) || (len == 3 && p[0] == 0xED && p[1] >= 0xA0) ||
        (len == 4 && p[0] == 0xF0 && p[1] < 0x90) || (len == 4 && p[0] == 0xF4 && p[1] >= 0x90)) {
        return 0;
    }
    return len;
}

size_t svcUtf8Invalid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_seq(p + i, n - i);
        if (len == 0) {
            return i;
        }
        i += len;
    }
    return (size_t)-1;
}

void svcUtf8Repair(char *s)
{
    unsigned char *p = (unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t len = utf8_seq(p + i, n - i);
        if (len == 0) {
            p[i++] = '?';
        } else {
            i += len;
        }
    }
}

/* Offset of the first \u0000 escape inside a JSON string of text, or (size_t)-1. */
static size_t nul_escape(const char *text, size_t n)
{
    bool in_string = false;
    for (size_t i = 0; i < n; ++i) {
        if (!in_string) {
            in_string = text[i] == '"';
        } else if (text[i] == '"') {
            in_string = false;
        } else if (text[i] == '\\' && i + 1 < n) {
            if (text[i + 1] == 'u' && i + 5 < n && memcmp(text + i + 2, "0000", 4) == 0) {
                return i;
            }
            ++i; /* the escaped character */
        }
    }
    return (size_t)-1;
}

static const char out_of_memory[] = "";

/* The first member name given twice in an object of v (depth first), or NULL; out_of_memory when
 * the check could not allocate. O(m log m) per object of m members: a 4 MiB body holds ~700,000
 * members, which pairwise comparison took minutes of a server thread over (80,000: 17 s). */
static const char *duplicate_member(const cJSON *v)
{
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v)) {
        return NULL;
    }
    if (cJSON_IsObject(v) && v->child && v->child->next) {
        int n = cJSON_GetArraySize(v), i = 0;
        const char **names = malloc((size_t)n * sizeof *names);
        if (!names) {
            return out_of_memory;
        }
        for (const cJSON *a = v->child; a; a = a->next) {
            names[i++] = a->string ? a->string : "";
        }
        int first, second;
        int found = tpNames_FindDuplicate(names, n, &first, &second);
        const char *dup = found == 1 ? names[second] : found < 0 ? out_of_memory : NULL;
        free(names);
        if (dup) {
            return dup;
        }
    }
    for (const cJSON *a = v->child; a; a = a->next) {
        const char *d = duplicate_member(a);
        if (d) {
            return d;
        }
    }
    return NULL;
}

bool svcBodyCheck(const char *body, size_t len, const cJSON *req, char *msg, size_t msgcap, char *field,
                  size_t fieldcap)
{
    field[0] = '\0';
    size_t at = svcUtf8Invalid(body, len);
    if (at != (size_t)-1) {
        snprintf(msg, msgcap, "the body is not UTF-8: byte %zu (0-based) starts no character", at);
        return false;
    }
    at = nul_escape(body, len);
    if (at != (size_t)-1) {
        snprintf(msg, msgcap, "a string holds \\u0000 (NUL) at byte %zu (0-based): not allowed in a request", at);
        return false;
    }
    const char *dup = duplicate_member(req);
    if (dup == out_of_memory) {
        snprintf(msg, msgcap, "out of memory while checking the body's members");
        return false;
    }
    if (dup) {
        snprintf(field, fieldcap, "%.60s", dup);
        svcUtf8Repair(field);
        snprintf(msg, msgcap, "member '%s' is given twice", field);
        return false;
    }
    return true;
}
