/* The files a plan's domain script read, embedded in the plan ("sources", docs/plan-format.md):
 * the script first, then every module, track and image it loaded, each with its path relative to
 * the script's folder, its FNV-1a-64 hash and its bytes ("text" when they are UTF-8 without NUL,
 * else "base64"). `tplan replay` loads the script from these, so a plan replays on any machine
 * with the same tplan whatever folder the plan or the domain is in. Lifetime, writer check,
 * writer and reader; the reader checks every hash, so a file edited inside the plan is refused. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/base.h"
#include "tp/json_text.h"
#include "tp/plan.h"

void tpPlan_FreeSources(tpPlanRecord *rec)
{
    for (int k = 0; k < rec->nsources && rec->sources; ++k) {
        free(rec->sources[k].path);
        free(rec->sources[k].hash);
        free(rec->sources[k].data);
    }
    free(rec->sources);
    rec->sources = NULL;
    rec->nsources = 0;
}

void tpPlan_HashString(const void *data, size_t len, char out[32])
{
    snprintf(out, 32, "fnv1a64:%016" PRIx64, tpHash_Fnv1a64(data, len));
}

bool tpPlan_IsSourcePath(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n == 0 || n > TP_PLAN_MAX_SOURCE_PATH || path[0] == '/') {
        return false;
    }
    for (const char *p = path; *p;) {
        size_t k = strcspn(p, "/");
        if (k == 0 || (k == 1 && p[0] == '.') || (k == 2 && p[0] == '.' && p[1] == '.')) {
            return false; /* empty, "." or ".." component: the path must name a file inside the folder */
        }
        for (size_t i = 0; i < k; ++i) {
            unsigned char c = (unsigned char)p[i];
            if (c < 0x20 || c == 0x7f || c == '\\') {
                return false;
            }
        }
        p += k;
        p += *p == '/';
        if (p[-1] == '/' && !*p) {
            return false; /* a trailing slash names a folder */
        }
    }
    return true;
}

/* True when data[0..len) is well-formed UTF-8 (no overlong forms, surrogates or code points
 * above U+10FFFF) without a NUL byte: what a JSON string can carry unchanged. */
static bool is_text(const unsigned char *s, size_t len)
{
    return !memchr(s, 0, len) && tpUtf8_Invalid(s, len) == len;
}

static const char k_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_base64(FILE *f, const unsigned char *s, size_t len)
{
    fputc('"', f);
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < len ? (uint32_t)s[i + 1] << 8 : 0) | (i + 2 < len ? s[i + 2] : 0);
        fputc(k_b64[v >> 18 & 63], f);
        fputc(k_b64[v >> 12 & 63], f);
        fputc(i + 1 < len ? k_b64[v >> 6 & 63] : '=', f);
        fputc(i + 2 < len ? k_b64[v & 63] : '=', f);
    }
    fputc('"', f);
}

/* Decodes canonical base64 (RFC 4648, padded, no whitespace, zero pad bits) into a new buffer
 * (with a NUL after the *len bytes). NULL when malformed or out of memory (*oom tells which). */
static unsigned char *decode_base64(const char *s, size_t *len, bool *oom)
{
    size_t n = strlen(s);
    *oom = false;
    if (n % 4 != 0) {
        return NULL;
    }
    unsigned char *out = malloc(n / 4 * 3 + 1);
    if (!out) {
        *oom = true;
        return NULL;
    }
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4], pad = 0;
        for (int k = 0; k < 4; ++k) {
            const char *p = s[i + k] ? strchr(k_b64, s[i + k]) : NULL;
            if (s[i + k] == '=' && i + 4 == n && k >= 2 && (k == 3 || s[i + 3] == '=')) {
                v[k] = 0, ++pad;
            } else if (p && !pad) {
                v[k] = (int)(p - k_b64);
            } else {
                free(out);
                return NULL;
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        if ((pad == 1 && (w & 0xff)) || (pad == 2 && (w & 0xffff))) {
            free(out); /* non-zero pad bits: not the canonical encoding of any bytes */
            return NULL;
        }
        out[o++] = (unsigned char)(w >> 16);
        if (pad < 2) {
            out[o++] = (unsigned char)(w >> 8);
        }
        if (pad < 1) {
            out[o++] = (unsigned char)w;
        }
    }
    out[o] = '\0';
    *len = o;
    return out;
}

/* The rules both sides apply to the record's sources; messages start with the field. */
static bool sources_problem(const tpPlanRecord *rec, char *err, size_t errlen)
{
    if (rec->nsources < 0 || rec->nsources > TP_PLAN_MAX_SOURCES || (rec->nsources > 0 && !rec->sources)) {
        return tpPlan_Failf(err, errlen, "sources: %d files, expected 1..%d", rec->nsources, TP_PLAN_MAX_SOURCES);
    }
    const char **paths = malloc(sizeof *paths * (size_t)(rec->nsources > 0 ? rec->nsources : 1));
    if (!paths) {
        return tpPlan_Failf(err, errlen, "sources: out of memory");
    }
    bool ok = true;
    for (int k = 0; k < rec->nsources && ok; ++k) {
        const tpPlanSource *s = &rec->sources[k];
        char hash[32];
        paths[k] = s->path;
        if (!tpPlan_IsSourcePath(s->path)) {
            ok = tpPlan_Failf(err, errlen,
                              "sources[%d].path: \"%.200s\" is not a path inside the script's folder (relative, '/' "
                              "between names, no '.' or '..', at most %d bytes)",
                              k, s->path ? s->path : "(null)", TP_PLAN_MAX_SOURCE_PATH);
        } else if (k == 0 && strchr(s->path, '/')) {
            ok =
                tpPlan_Failf(err, errlen, "sources[0].path: \"%.200s\": the script is named without a folder", s->path);
        } else if (s->len > TP_MAX_DATA_BYTES || (!s->data && s->len > 0)) {
            ok = tpPlan_Failf(err, errlen, "sources[%d]: %zu bytes, at most %zu", k, s->len, (size_t)TP_MAX_DATA_BYTES);
        } else if (!tpPlan_IsHashString(s->hash)) {
            ok = tpPlan_Failf(err, errlen, "sources[%d].hash: expected \"fnv1a64:\" and 16 lowercase hex digits", k);
        } else if (tpPlan_HashString(s->data ? s->data : (const unsigned char *)"", s->len, hash),
                   strcmp(hash, s->hash) != 0) {
            ok = tpPlan_Failf(err, errlen,
                              "sources[%d]: the bytes of '%s' hash to %s, not to the recorded %s: the embedded file "
                              "was changed after planning",
                              k, s->path, hash, s->hash);
        }
    }
    int a, b;
    if (ok && tpPlan_FindDuplicate(paths, rec->nsources, &a, &b)) {
        ok = tpPlan_Failf(err, errlen, "sources[%d].path: \"%s\" is also the path of sources[%d]", b, paths[b], a);
    }
    free(paths);
    if (ok && rec->nsources > 0) {
        if (!rec->domain_file || strcmp(rec->sources[0].path, rec->domain_file) != 0) {
            ok = tpPlan_Failf(err, errlen, "sources[0].path: \"%s\" is not the script of domain.file (\"%s\")",
                              rec->sources[0].path, rec->domain_file ? rec->domain_file : "(null)");
        } else if (!rec->domain_hash || strcmp(rec->sources[0].hash, rec->domain_hash) != 0) {
            ok = tpPlan_Failf(err, errlen, "sources[0].hash: %s is not the script's hash of domain.hash (%s)",
                              rec->sources[0].hash, rec->domain_hash ? rec->domain_hash : "(null)");
        }
    }
    return ok;
}

bool tpPlan_CheckSources(const tpPlanRecord *rec, char *err, size_t errlen)
{
    return sources_problem(rec, err, errlen);
}

void tpPlan_PutSources(FILE *f, const tpPlanRecord *rec)
{
    if (rec->nsources <= 0) {
        return;
    }
    fputs("  \"sources\": [", f);
    for (int k = 0; k < rec->nsources; ++k) {
        const tpPlanSource *s = &rec->sources[k];
        fputs(k ? ",\n    {\"path\": " : "\n    {\"path\": ", f);
        tpPlan_PutString(f, s->path);
        fputs(", \"hash\": ", f);
        tpPlan_PutString(f, s->hash);
        if (is_text(s->data, s->len)) {
            fputs(",\n     \"text\": ", f);
            tpPlan_PutString(f, s->len ? (const char *)s->data : "");
        } else {
            fputs(",\n     \"base64\": ", f);
            put_base64(f, s->data, s->len);
        }
        fputc('}', f);
    }
    fputs("\n  ],\n", f);
}

bool tpPlan_ReadSources(const char *file, const cJSON *root, tpPlanRecord *rec, char *err, size_t errlen)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "sources");
    if (!arr) {
        return true; /* optional: plans written before it existed replay from the script's path */
    }
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : -1;
    if (n < 1 || n > TP_PLAN_MAX_SOURCES) {
        return tpPlan_Failf(err, errlen, "%s: sources: expected an array of 1..%d files", file, TP_PLAN_MAX_SOURCES);
    }
    rec->sources = calloc((size_t)n, sizeof *rec->sources);
    if (!rec->sources) {
        return tpPlan_Failf(err, errlen, "%s: sources: out of memory", file);
    }
    rec->nsources = n;
    int k = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++k) {
        tpPlanSource *s = &rec->sources[k];
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(o, "path");
        const cJSON *hash = cJSON_GetObjectItemCaseSensitive(o, "hash");
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(o, "text");
        const cJSON *b64 = cJSON_GetObjectItemCaseSensitive(o, "base64");
        if (!cJSON_IsObject(o)) {
            return tpPlan_Failf(err, errlen, "%s: sources[%d]: expected an object", file, k);
        }
        if (!cJSON_IsString(path) || !cJSON_IsString(hash)) {
            return tpPlan_Failf(err, errlen, "%s: sources[%d]: expected the strings \"path\" and \"hash\"", file, k);
        }
        if (!text == !b64 || (text && !cJSON_IsString(text)) || (b64 && !cJSON_IsString(b64))) {
            return tpPlan_Failf(
                err, errlen, "%s: sources[%d]: expected exactly one of the strings \"text\" and \"base64\"", file, k);
        }
        s->path = strdup(path->valuestring);
        s->hash = strdup(hash->valuestring);
        if (!s->path || !s->hash) {
            return tpPlan_Failf(err, errlen, "%s: sources: out of memory", file);
        }
        if (text) {
            s->len = strlen(text->valuestring);
            if (!is_text((const unsigned char *)text->valuestring, s->len)) {
                return tpPlan_Failf(err, errlen,
                                    "%s: sources[%d].text: not valid UTF-8 (binary files are in \"base64\")", file, k);
            }
            s->data = (unsigned char *)strdup(text->valuestring);
            if (!s->data) {
                return tpPlan_Failf(err, errlen, "%s: sources: out of memory", file);
            }
        } else {
            bool oom;
            s->data = decode_base64(b64->valuestring, &s->len, &oom);
            if (!s->data && oom) {
                return tpPlan_Failf(err, errlen, "%s: sources: out of memory", file);
            } else if (!s->data) {
                return tpPlan_Failf(err, errlen, "%s: sources[%d].base64: not canonical base64 (RFC 4648, padded)",
                                    file, k);
            }
        }
    }
    char why[600];
    if (!sources_problem(rec, why, sizeof why)) {
        return tpPlan_Failf(err, errlen, "%s: %s", file, why);
    }
    return true;
}
