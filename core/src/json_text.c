/* Checks on JSON text that cJSON does not make (see json_text.h). */
#include "tp/json_text.h"

#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "tp/base.h"

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
    }
    *stop = off;
    return NULL;
}
