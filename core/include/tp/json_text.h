/* Checks on JSON text before cJSON parses it, for tplan's file readers (plan files in core, track
 * files in nav, glTF in mesh). */
#ifndef TP_JSON_TEXT_H
#define TP_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/// Refuses JSON text that cJSON would silently shorten or pass on unchecked: a NUL byte anywhere in
/// text[0..len), a "\u0000" escape inside a string or member name (cJSON cuts the string there, so
/// "ab\u0000cd" would read as "ab"), or bytes that are not well-formed UTF-8 (RFC 8259: JSON text
/// exchanged between systems is UTF-8; cJSON copies any byte into its strings, so a plan's body name
/// with a 0xFF byte went on into an exported glTF). False with "line L, column C: reason" in err
/// (may be NULL).
bool tpJson_CheckText(const char *text, size_t len, char *err, size_t errlen);

/// Offset of the first byte of s[0..len) that does not start a well-formed UTF-8 sequence (an
/// overlong form, a surrogate, a code point above U+10FFFF, a stray or missing continuation byte);
/// len if all of it is well-formed. NUL bytes are well-formed here.
size_t tpUtf8_Invalid(const unsigned char *s, size_t len);

/// True if the text ends with brackets or a string still open: the usual sign of a file cut
/// short, which cJSON's error position (often the start of the damaged value) does not show.
bool tpJson_EndsOpen(const char *text, size_t len);

/// True if text[0..len) is one JSON document (RFC 8259) and nothing but whitespace after it, as
/// cJSON reads it (a \u surrogate only as a pair, at most 512 levels of nesting). Allocates
/// nothing: tells a document cJSON could not build for lack of memory from a broken one.
bool tpJson_IsDocument(const char *text, size_t len);

/// tpJson_ParseDocument's *stop when the text is a document but cJSON ran out of memory.
#define TP_JSON_NO_MEMORY ((size_t)-1)

/// Parses text[0..len) as one JSON document followed by nothing but whitespace. Returns the root
/// (the caller deletes it), or NULL with *stop at the offset where parsing stopped or where the
/// trailing text starts (for tpJson_LineColumn), or TP_JSON_NO_MEMORY when the text is a
/// document and cJSON ran out of memory.
struct cJSON *tpJson_ParseDocument(const char *text, size_t len, size_t *stop);

/// Makes every number under root (root included) print exactly: each becomes a raw item holding
/// its text as plan files write numbers (tpPlan_FormatDouble: the shortest of %.15g / %.17g that
/// reads back to the same bits), since cJSON's own printer keeps %.15g when it reads back within
/// an ulp, which moves a state's last bit. For a tree about to be printed only: a raw item is no
/// number to cJSON's getters. Non-finite numbers are left as they are. False when out of memory
/// (the tree is then partly converted, still printable).
bool tpJson_ExactNumbers(struct cJSON *root);

/// Routes cJSON's allocations through an allocator that remembers, per thread, that one failed.
/// cJSON's builders (cJSON_AddStringToObject and the rest) return NULL when out of memory, which
/// callers rarely check, so a tree built short of memory prints as valid JSON with members missing:
/// tpJson_PrintChecked refuses to print such a tree. Process-wide (cJSON's hooks), so for programs
/// (the service), not for a library inside a host. Idempotent.
void tpJson_UseCheckedAllocator(void);
/// Forgets this thread's failed cJSON allocations: at the start of a request, a message, a round.
void tpJson_ResetFailed(void);
/// cJSON_PrintUnformatted(o), or NULL when o is NULL, the print fails, or a cJSON allocation of this
/// thread failed since its last tpJson_ResetFailed (the tree may lack members). Free with free().
char *tpJson_PrintChecked(const struct cJSON *o);

/// cJSON_AddItemToArray / cJSON_AddItemToObject that own item whatever happens: when arr (obj) or
/// item is NULL, or the add fails for lack of memory, item is deleted (cJSON's own functions then
/// leave it to a caller that rarely checks). False when it was not added.
bool tpJson_Append(struct cJSON *arr, struct cJSON *item);
bool tpJson_Put(struct cJSON *obj, const char *name, struct cJSON *item);

/// 1-based line and column of byte offset `off` (<= len) in text.
void tpJson_LineColumn(const char *text, size_t len, size_t off, size_t *line, size_t *col);

#endif
