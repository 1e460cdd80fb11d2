/* Checks on JSON text before cJSON parses it, for tplan's file readers (plan files in core, track
 * files in nav, glTF in mesh). */
#ifndef TP_JSON_TEXT_H
#define TP_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/// Refuses JSON text that cJSON would silently shorten: a NUL byte anywhere in text[0..len), or a
/// "\u0000" escape inside a string or member name (cJSON cuts the string there, so "ab\u0000cd"
/// would read as "ab"). False with "line L, column C: reason" in err (may be NULL).
bool tpJson_CheckText(const char *text, size_t len, char *err, size_t errlen);

/// True if the text ends with brackets or a string still open: the usual sign of a file cut
/// short, which cJSON's error position (often the start of the damaged value) does not show.
bool tpJson_EndsOpen(const char *text, size_t len);

/// Parses text[0..len) as one JSON document followed by nothing but whitespace. Returns the root
/// (the caller deletes it), or NULL with *stop at the offset where parsing stopped or where the
/// trailing text starts (for tpJson_LineColumn).
struct cJSON *tpJson_ParseDocument(const char *text, size_t len, size_t *stop);

/// 1-based line and column of byte offset `off` (<= len) in text.
void tpJson_LineColumn(const char *text, size_t len, size_t off, size_t *line, size_t *col);

#endif
