/* Checks on JSON text that cJSON does not make (see json_text.h). */
#include "tp/json_text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "tp/base.h"

/* ---- cJSON's allocations, checked ------------------------------------------------------------ */

static _Thread_local bool t_json_failed; /* a cJSON allocation of this thread failed */

static void *checked_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        t_json_failed = true;
    }
    return p;
}

void tpJson_UseCheckedAllocator(void)
{
    cJSON_Hooks hooks = {checked_malloc, free};
    cJSON_InitHooks(&hooks);
}

void tpJson_ResetFailed(void)
{
    t_json_failed = false;
}

char *tpJson_PrintChecked(const cJSON *o)
{
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    if (s && t_json_failed) {
        free(s);
        return NULL;
    }
    return s;
}

bool tpJson_Append(cJSON *arr, cJSON *item)
{
    if (arr && item && cJSON_AddItemToArray(arr, item)) {
        return true;
    }
    cJSON_Delete(item);
    return false;
}

bool tpJson_Put(cJSON *obj, const char *name, cJSON *item)
{
    if (obj && item && cJSON_AddItemToObject(obj, name, item)) {
        return true;
    }
    cJSON_Delete(item);
    return false;
}

void tpJson_LineColumn(const char *text, size_t len, size_t off, size_t *line, size_t *col)
{
    size_t l = 1, c = 1;
    for (size_t i = 0; i < off && i < len; ++i) {
        if (text[i] == '\n') {
            ++l;
            c = 1;
        } else {
            ++c;
        }
    }
    *line = l;
    *col = c;
}

size_t tpUtf8_Invalid(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        int n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : -1; /* continuation bytes */
        if (n < 0 || c > 0xf4 || i + (size_t)n >= len) {
            return i;
        }
        uint32_t cp = c & (0x3fu >> n);
        for (int k = 1; k <= n; ++k) {
            if ((s[i + (size_t)k] & 0xc0) != 0x80) {
                return i;
            }
            cp = (cp << 6) | (s[i + (size_t)k] & 0x3fu);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)) {
            return i;
        }
        i += (size_t)n + 1;
    }
    TP_ASSERT(i == len);
    return len;
}

bool tpJson_CheckText(const char *text, size_t len, char *err, size_t errlen)
{
    size_t line, col;
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        tpJson_LineColumn(text, len, (size_t)(nul - text), &line, &col);
        tpErrorf(err, errlen, "line %zu, column %zu: NUL byte in the file (offset %zu)", line, col,
                 (size_t)(nul - text));
        return false;
    }
    size_t bad = tpUtf8_Invalid((const unsigned char *)text, len);
    if (bad < len) {
        tpJson_LineColumn(text, len, bad, &line, &col);
        tpErrorf(err, errlen, "line %zu, column %zu: byte 0x%02X is not UTF-8 (offset %zu; JSON text must be UTF-8)",
                 line, col, (unsigned)(unsigned char)text[bad], bad);
        return false;
    }
    bool in_string = false;
    for (size_t i = 0; i < len; ++i) {
        char ch = text[i];
        if (!in_string) {
            in_string = ch == '"';
        } else if (ch == '"') {
            in_string = false;
        } else if (ch == '\\' && i + 1 < len) {
            /* Only "\u0000" decodes to a NUL: a surrogate pair never does. */
            if (text[i + 1] == 'u' && len - i >= 6 && memcmp(text + i + 2, "0000", 4) == 0) {
                tpJson_LineColumn(text, len, i, &line, &col);
                tpErrorf(err, errlen, "line %zu, column %zu: \\u0000 (NUL) inside a string is not allowed", line, col);
                return false;
            }
            ++i; /* skip the escaped character, so \\" and \\\\ are handled */
        }
    }
    return true;
}

bool tpJson_EndsOpen(const char *text, size_t len)
{
    long depth = 0;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < len; ++i) {
        char ch = text[i];
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (ch == '\\') {
                escaped = true;
            } else if (ch == '"') {
                in_string = false;
            }
        } else if (ch == '"') {
            in_string = true;
        } else if (ch == '[' || ch == '{') {
            ++depth;
        } else if (ch == ']' || ch == '}') {
            --depth;
        }
    }
    return in_string || depth > 0;
}

/* ---- a syntax check that allocates nothing ----------------------------------------------------- */

/* How deep arrays and objects may nest here: below cJSON's CJSON_NESTING_LIMIT (1000), so that
 * what passes this check is a document cJSON reads when it has the memory. */
#define TP_JSON_DEPTH_MAX 512

typedef struct JsonScan {
    const char *s;
    size_t len, at;
} JsonScan;

static void scan_space(JsonScan *j)
{
    while (j->at < j->len &&
           (j->s[j->at] == ' ' || j->s[j->at] == '\t' || j->s[j->at] == '\n' || j->s[j->at] == '\r')) {
        ++j->at;
    }
}

static bool scan_word(JsonScan *j, const char *w)
{
    size_t n = strlen(w);
    if (j->len - j->at < n || memcmp(j->s + j->at, w, n) != 0) {
        return false;
    }
    j->at += n;
    return true;
}

static bool scan_digits(JsonScan *j)
{
    size_t from = j->at;
    while (j->at < j->len && j->s[j->at] >= '0' && j->s[j->at] <= '9') {
        ++j->at;
    }
    return j->at > from;
}

/* RFC 8259's number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool scan_number(JsonScan *j)
{
    if (j->at < j->len && j->s[j->at] == '-') {
        ++j->at;
    }
    if (j->at < j->len && j->s[j->at] == '0') {
        ++j->at;
    } else if (!scan_digits(j)) {
        return false;
    }
    if (j->at < j->len && j->s[j->at] == '.') {
        ++j->at;
        if (!scan_digits(j)) {
            return false;
        }
    }
    if (j->at < j->len && (j->s[j->at] == 'e' || j->s[j->at] == 'E')) {
        ++j->at;
        if (j->at < j->len && (j->s[j->at] == '+' || j->s[j->at] == '-')) {
            ++j->at;
        }
        if (!scan_digits(j)) {
            return false;
        }
    }
    return true;
}

/* Four hex digits of a \u escape at j->at into *u. */
static bool scan_hex4(JsonScan *j, unsigned *u)
{
    if (j->len - j->at < 4) {
        return false;
    }
    *u = 0;
    for (int k = 0; k < 4; ++k) {
        char c = j->s[j->at++];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16u;
        if (d > 15) {
            return false;
        }
        *u = *u * 16 + d;
    }
    return true;
}

/* A string at its opening quote, as cJSON reads it: any byte but the quote and the backslash stands
 * for itself (control characters too: the plan reader's packed matrices hold them), and a \u
 * escape's surrogate only as a high-low pair. */
static bool scan_string(JsonScan *j)
{
    ++j->at; /* the quote */
    while (j->at < j->len) {
        unsigned char c = (unsigned char)j->s[j->at++];
        if (c == '"') {
            return true;
        }
        if (c != '\\') {
            continue;
        }
        if (j->at >= j->len) {
            return false;
        }
        char e = j->s[j->at++];
        if (e == 'u') {
            unsigned u = 0, low = 0;
            if (!scan_hex4(j, &u) || (u >= 0xDC00 && u <= 0xDFFF)) {
                return false;
            }
            if (u >= 0xD800 && u <= 0xDBFF &&
                !(scan_word(j, "\\u") && scan_hex4(j, &low) && low >= 0xDC00 && low <= 0xDFFF)) {
                return false;
            }
        } else if (!strchr("\"\\/bfnrt", e) || e == 0) {
            return false;
        }
    }
    return false;
}

static bool scan_value(JsonScan *j, int depth)
{
    scan_space(j);
    if (j->at >= j->len) {
        return false;
    }
    const char c = j->s[j->at];
    if (c == '"') {
        return scan_string(j);
    }
    if (c == '{' || c == '[') {
        if (depth >= TP_JSON_DEPTH_MAX) {
            return false;
        }
        const char close = c == '{' ? '}' : ']';
        ++j->at;
        scan_space(j);
        if (j->at < j->len && j->s[j->at] == close) {
            ++j->at;
            return true;
        }
        for (;;) {
            if (c == '{') {
                scan_space(j);
                if (j->at >= j->len || j->s[j->at] != '"' || !scan_string(j)) {
                    return false;
                }
                scan_space(j);
                if (j->at >= j->len || j->s[j->at] != ':') {
                    return false;
                }
                ++j->at;
            }
            if (!scan_value(j, depth + 1)) {
                return false;
            }
            scan_space(j);
            if (j->at < j->len && j->s[j->at] == ',') {
                ++j->at;
                continue;
            }
            if (j->at < j->len && j->s[j->at] == close) {
                ++j->at;
                return true;
            }
            return false;
        }
    }
    if (c == 't') {
        return scan_word(j, "true");
    }
    if (c == 'f') {
        return scan_word(j, "false");
    }
    if (c == 'n') {
        return scan_word(j, "null");
    }
    return scan_number(j);
}

bool tpJson_IsDocument(const char *text, size_t len)
{
    JsonScan j = {text, len, 0};
    if (!text || !scan_value(&j, 0)) {
        return false;
    }
    scan_space(&j);
    return j.at == len;
}

cJSON *tpJson_ParseDocument(const char *text, size_t len, size_t *stop)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    if (root) {
        while (off < len && (text[off] == ' ' || text[off] == '\t' || text[off] == '\n' || text[off] == '\r')) {
            ++off;
        }
        if (off == len) {
            return root;
        }
        cJSON_Delete(root);
    } else if (tpJson_IsDocument(text, len)) {
        *stop = TP_JSON_NO_MEMORY; /* the text is fine: cJSON ran out of memory building it */
        return NULL;
    }
    *stop = off;
    return NULL;
}
