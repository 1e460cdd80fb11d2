/* Plan reader: parses a plan file with cJSON and validates every field before the record is
 * handed out (format in docs/plan-format.md). Plan files are user input: any problem is an
 * expected failure reported as "<file>: <json path>: <what is wrong>", never a crash. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "plan_internal.h"
#include "tp/base.h"
#include "tp/plan.h"

/* Integers travel through cJSON as doubles, which are exact only up to 2^53. */
#define TP_JSON_INT_MAX 9007199254740992.0

typedef struct tpReader {
    const char *file;
    char *err;
    size_t errlen;
    tpPlanPackTable *packs; /* matrices read before cJSON (plan_pack.c) */
} tpReader;

static bool tpFail(const tpReader *r, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool tpFail(const tpReader *r, const char *where, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (where && *where) {
        tpErrorf(r->err, r->errlen, "%s: %s: %s", r->file, where, msg);
    } else {
        tpErrorf(r->err, r->errlen, "%s: %s", r->file, msg);
    }
    return false;
}

static const char *tpTypeName(const cJSON *item)
{
    if (!item) {
        return "nothing";
    }
    if (cJSON_IsNumber(item)) {
        return "a number";
    }
    if (cJSON_IsString(item)) {
        return "a string";
    }
    if (cJSON_IsArray(item)) {
        return "an array";
    }
    if (cJSON_IsObject(item)) {
        return "an object";
    }
    if (cJSON_IsBool(item)) {
        return "a boolean";
    }
    if (cJSON_IsNull(item)) {
        return "null";
    }
    return "an invalid value";
}

/* "base.key", or "key" at the top level. */
static void tpJoin(char *out, size_t cap, const char *base, const char *key)
{
    if (snprintf(out, cap, "%s%s%s", base, *base ? "." : "", key) < 0) {
        out[0] = '\0';
    }
}

static void tpJoinIndex(char *out, size_t cap, const char *base, int i)
{
    if (snprintf(out, cap, "%s[%d]", base, i) < 0) {
        out[0] = '\0';
    }
}

/* Paths in messages are kept short; a truncated path is still a useful pointer. */
enum { TP_PATH_CAP = 256 };

/* ------------------------------------------------------------------------------------------ */
/* Typed getters                                                                              */

enum { TP_T_NUMBER, TP_T_STRING, TP_T_ARRAY, TP_T_OBJECT };

static bool tpIsType(const cJSON *item, int type)
{
    switch (type) {
    case TP_T_NUMBER:
        return cJSON_IsNumber(item);
    case TP_T_STRING:
        return cJSON_IsString(item) && item->valuestring;
    case TP_T_ARRAY:
        return cJSON_IsArray(item);
    default:
        return cJSON_IsObject(item);
    }
}

static const char *const tpTypeWanted[] = {"a number", "a string", "an array", "an object"};

/* Required member `key` of obj (at path base) with the given type. */
static const cJSON *tpMember(const tpReader *r, const cJSON *obj, const char *base, const char *key, int type)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!item) {
        tpFail(r, base, "missing field \"%s\"", key);
        return NULL;
    }
    if (!tpIsType(item, type)) {
        char path[TP_PATH_CAP];
        tpJoin(path, sizeof path, base, key);
        tpFail(r, path, "expected %s, got %s", tpTypeWanted[type], tpTypeName(item));
        return NULL;
    }
    return item;
}

static bool tpNumber(const tpReader *r, const cJSON *item, const char *path, double *out)
{
    if (!cJSON_IsNumber(item)) {
        return tpFail(r, path, "expected a number, got %s", tpTypeName(item));
    }
    /* cJSON turns out-of-range literals such as 1e999 into infinities. */
    if (!isfinite(item->valuedouble)) {
        return tpFail(r, path, "number out of range");
    }
    *out = item->valuedouble;
    return true;
}

static bool tpMemberDouble(const tpReader *r, const cJSON *obj, const char *base, const char *key, double *out)
{
    const cJSON *item = tpMember(r, obj, base, key, TP_T_NUMBER);
    char path[TP_PATH_CAP];
    tpJoin(path, sizeof path, base, key);
    return item && tpNumber(r, item, path, out);
}

static bool tpMemberInteger(const tpReader *r, const cJSON *obj, const char *base, const char *key, double lo,
                            double hi, double *out)
{
    double v = 0.0;
    if (!tpMemberDouble(r, obj, base, key, &v)) {
        return false;
    }
    if (v != floor(v) || v < lo || v > hi) {
        char path[TP_PATH_CAP];
        tpJoin(path, sizeof path, base, key);
        return tpFail(r, path, "expected an integer in [%.0f, %.0f], got %.17g", lo, hi, v);
    }
    *out = v;
    return true;
}

static bool tpMemberInt(const tpReader *r, const cJSON *obj, const char *base, const char *key, int lo, int hi,
                        int *out)
{
    double v;
    if (!tpMemberInteger(r, obj, base, key, lo, hi, &v)) {
        return false;
    }
    *out = (int)v;
    return true;
}

static bool tpMemberInt64(const tpReader *r, const cJSON *obj, const char *base, const char *key, int64_t *out)
{
    double v;
    if (!tpMemberInteger(r, obj, base, key, -TP_JSON_INT_MAX, TP_JSON_INT_MAX, &v)) {
        return false;
    }
    *out = (int64_t)v;
    return true;
}

static char *tpDup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

static bool tpMemberString(const tpReader *r, const cJSON *obj, const char *base, const char *key, char **out)
{
    const cJSON *item = tpMember(r, obj, base, key, TP_T_STRING);
    if (!item) {
        return false;
    }
    *out = tpDup(item->valuestring);
    return *out ? true : tpFail(r, base, "out of memory");
}

/* Like tpMemberString, but the value must be one of `list`. */
static bool tpMemberEnum(const tpReader *r, const cJSON *obj, const char *base, const char *key,
                         const char *const *list, char **out)
{
    if (!tpMemberString(r, obj, base, key, out)) {
        return false;
    }
    if (!tpPlan_IsOneOf(*out, list)) {
        char path[TP_PATH_CAP], allowed[160] = "";
        tpJoin(path, sizeof path, base, key);
        for (const char *const *p = list; *p; ++p) {
            size_t n = strlen(allowed);
            snprintf(allowed + n, sizeof allowed - n, "%s\"%s\"", p == list ? "" : ", ", *p);
        }
        return tpFail(r, path, "unknown value \"%s\" (expected one of %s)", *out, allowed);
    }
    return true;
}

/* A fixed-length numeric row. `row` >= 0 appends "[row]" to the path (only built on error,
 * since trajectories have millions of rows). */
static bool tpVector(const tpReader *r, const cJSON *item, const char *path, int row, int n, double *out)
{
    char where[TP_PATH_CAP];
    if (!cJSON_IsArray(item)) {
        if (row >= 0) {
            tpJoinIndex(where, sizeof where, path, row);
            path = where;
        }
        return tpFail(r, path, "expected an array of %d numbers, got %s", n, tpTypeName(item));
    }
    int j = 0;
    for (const cJSON *e = item->child; e; e = e->next, ++j) {
        if (j < n && cJSON_IsNumber(e) && isfinite(e->valuedouble)) {
            out[j] = e->valuedouble;
        } else if (j < n) {
            char elem[TP_PATH_CAP];
            if (row >= 0) {
                snprintf(elem, sizeof elem, "%s[%d][%d]", path, row, j);
            } else {
                tpJoinIndex(elem, sizeof elem, path, j);
            }
            return cJSON_IsNumber(e) ? tpFail(r, elem, "number out of range")
                                     : tpFail(r, elem, "expected a number, got %s", tpTypeName(e));
        }
    }
    if (j != n) {
        if (row >= 0) {
            tpJoinIndex(where, sizeof where, path, row);
            path = where;
        }
        return tpFail(r, path, "expected %d numbers, got %d", n, j);
    }
    return true;
}

/* rows × cols numbers as an array of rows. The row count has been checked by the caller. */
static bool tpRows(const tpReader *r, const cJSON *item, const char *path, int cols, double *out)
{
    const tpPlanPacked *pk = tpPlan_Packed(r->packs, item);
    if (pk) { /* rows of exactly pk->cols finite numbers: a check added to tpVector belongs here too */
        if (pk->cols != cols) {
            char where[TP_PATH_CAP];
            tpJoinIndex(where, sizeof where, path, 0);
            return tpFail(r, where, "expected %d numbers, got %d", cols, pk->cols);
        }
        memcpy(out, pk->data, sizeof(double) * (size_t)pk->rows * (size_t)cols);
        return true;
    }
    int i = 0;
    for (const cJSON *row = item->child; row; row = row->next, ++i) {
        if (!tpVector(r, row, path, i, cols, out + (size_t)i * (size_t)cols)) {
            return false;
        }
    }
    return true;
}

/* A mesh body's "mesh": {"origin": [3], "vertices": [[x, y, z], ...], "triangles": [[a, b, c], ...]}. */
static bool tpReadBodyMesh(const tpReader *r, const cJSON *mesh, const char *base, tpPlanBody *b)
{
    char path[TP_PATH_CAP], sub[TP_PATH_CAP];
    tpJoin(path, sizeof path, base, "mesh");
    if (strcmp(b->shape, "mesh") != 0) {
        return tpFail(r, path, "only a body of shape \"mesh\" carries one (this one is \"%s\")", b->shape);
    }
    if (!cJSON_IsObject(mesh)) {
        return tpFail(r, path, "expected an object, got %s", tpTypeName(mesh));
    }
    const cJSON *origin = cJSON_GetObjectItemCaseSensitive(mesh, "origin");
    const cJSON *verts = cJSON_GetObjectItemCaseSensitive(mesh, "vertices");
    const cJSON *tris = cJSON_GetObjectItemCaseSensitive(mesh, "triangles");
    if (!origin || !verts || !tris) {
        return tpFail(r, path, "needs \"origin\", \"vertices\" and \"triangles\"");
    }
    tpJoin(sub, sizeof sub, path, "origin");
    if (!tpVector(r, origin, sub, -1, 3, b->mesh_origin)) {
        return false;
    }
    for (int k = 0; k < 3; ++k) {
        if (fabs(b->mesh_origin[k]) > TP_MAX_COORD) {
            char elem[TP_PATH_CAP];
            tpJoinIndex(elem, sizeof elem, sub, k);
            return tpFail(r, elem, "%.17g is outside +-%g", b->mesh_origin[k], TP_MAX_COORD);
        }
    }
    int nv = cJSON_IsArray(verts) ? cJSON_GetArraySize(verts) : -1;
    int nt = cJSON_IsArray(tris) ? cJSON_GetArraySize(tris) : -1;
    if (nv < 3 || nv > TP_PLAN_MAX_MESH_VERTICES || nt < 1 || nt > TP_PLAN_MAX_MESH_TRIANGLES) {
        return tpFail(r, path, "needs 3..%d vertices and 1..%d triangles as arrays (got %d and %d)",
                      TP_PLAN_MAX_MESH_VERTICES, TP_PLAN_MAX_MESH_TRIANGLES, nv, nt);
    }
    b->mesh_vertices = malloc((size_t)nv * 3 * sizeof(double));
    b->mesh_triangles = malloc((size_t)nt * 3 * sizeof(int32_t));
    double *td = malloc((size_t)nt * 3 * sizeof(double));
    if (!b->mesh_vertices || !b->mesh_triangles || !td) {
        free(td);
        return tpFail(r, path, "out of memory");
    }
    b->mesh_nvertices = nv;
    b->mesh_ntriangles = nt;
    tpJoin(sub, sizeof sub, path, "vertices");
    if (!tpRows(r, verts, sub, 3, b->mesh_vertices)) {
        free(td);
        return false;
    }
    for (int k = 0; k < 3 * nv; ++k) {
        if (fabs(b->mesh_vertices[k]) > TP_MAX_COORD) {
            free(td);
            char elem[TP_PATH_CAP + 32];
            snprintf(elem, sizeof elem, "%s[%d][%d]", sub, k / 3, k % 3);
            return tpFail(r, elem, "%.17g is outside +-%g", b->mesh_vertices[k], TP_MAX_COORD);
        }
    }
    tpJoin(sub, sizeof sub, path, "triangles");
    if (!tpRows(r, tris, sub, 3, td)) {
        free(td);
        return false;
    }
    for (int k = 0; k < 3 * nt; ++k) {
        if (!(td[k] >= 0 && td[k] < nv && td[k] == floor(td[k]))) {
            char elem[TP_PATH_CAP + 32];
            snprintf(elem, sizeof elem, "%s[%d][%d]", sub, k / 3, k % 3);
            double v = td[k];
            free(td);
            return tpFail(r, elem, "%.17g is not a vertex index (%d vertices)", v, nv);
        }
        b->mesh_triangles[k] = (int32_t)td[k];
    }
    free(td);
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Physical ranges (plan_range.c)                                                             */

/* "path[row][col]: why" for the first row of nrows (row -1: a single row, "path[col]") with a
 * problem according to `problem`. */
static bool tpCheckRanges(const tpReader *r, const char *path, int row0, const double *rows, int nrows, int cols,
                          int (*problem)(const double *, char *, size_t))
{
    char why[160], elem[TP_PATH_CAP + 32];
    for (int i = 0; i < nrows; ++i) {
        int j = problem(rows + (size_t)i * (size_t)cols, why, sizeof why);
        if (j >= 0) {
            if (row0 < 0) {
                tpJoinIndex(elem, sizeof elem, path, j);
            } else {
                snprintf(elem, sizeof elem, "%s[%d][%d]", path, i, j);
            }
            return tpFail(r, elem, "%s", why);
        }
    }
    return true;
}

static bool tpCheckSize(const tpReader *r, const char *path, const char *shape, const double *size)
{
    char why[160], elem[TP_PATH_CAP];
    int j = tpPlan_SizeProblem(shape, size, why, sizeof why);
    if (j < 0) {
        return true;
    }
    tpJoinIndex(elem, sizeof elem, path, j);
    return tpFail(r, elem, "%s", why);
}

/* ------------------------------------------------------------------------------------------ */
/* Whole-file checks                                                                          */

/* Duplicate object members are ambiguous (cJSON would silently use the first), so they are
 * refused anywhere in the file. `path` is a scratch buffer extended in place. */
static bool tpCheckDuplicateKeys(const tpReader *r, const cJSON *item, char *path, size_t cap)
{
    size_t len = strlen(path);
    if (cJSON_IsObject(item)) {
        int n = cJSON_GetArraySize(item);
        if (n > 1) {
            const char **keys = malloc((size_t)n * sizeof *keys);
            if (!keys) {
                return tpFail(r, path, "out of memory");
            }
            int i = 0;
            for (const cJSON *e = item->child; e; e = e->next) {
                keys[i++] = e->string ? e->string : "";
            }
            int a, b;
            bool dup = tpPlan_FindDuplicate(keys, n, &a, &b);
            const char *key = dup ? keys[b] : NULL;
            free(keys);
            if (dup) {
                return tpFail(r, path, "duplicate member \"%s\"", key);
            }
        }
        for (const cJSON *e = item->child; e; e = e->next) {
            if (cJSON_IsObject(e) || cJSON_IsArray(e)) {
                snprintf(path + len, cap - len, "%s%s", len ? "." : "", e->string ? e->string : "");
                if (!tpCheckDuplicateKeys(r, e, path, cap)) {
                    return false;
                }
                path[len] = '\0';
            }
        }
    } else if (cJSON_IsArray(item)) {
        int i = 0;
        for (const cJSON *e = item->child; e; e = e->next, ++i) {
            /* Rows of numbers hold no objects; skipping them keeps the walk cheap. */
            if (cJSON_IsObject(e) || (cJSON_IsArray(e) && e->child && !cJSON_IsNumber(e->child))) {
                snprintf(path + len, cap - len, "[%d]", i);
                if (!tpCheckDuplicateKeys(r, e, path, cap)) {
                    return false;
                }
                path[len] = '\0';
            }
        }
    }
    return true;
}

/* True if the text holds the escape "\u0001" (anywhere: a conservative test). */
static bool tpHasEscape1(const char *text, size_t len)
{
    for (const char *p = text; (p = memchr(p, '\\', len - (size_t)(p - text))) != NULL; ++p) {
        if (len - (size_t)(p - text) >= 6 && memcmp(p, "\\u0001", 6) == 0) {
            return true;
        }
        if (p + 1 >= text + len) {
            break;
        }
    }
    return false;
}

/* Parses len bytes of text (need not be NUL-terminated; the matrices are packed in place). */
static cJSON *tpParse(const tpReader *r, char *text, size_t len)
{
    if (len == 0) {
        tpFail(r, NULL, "empty file (not a plan)");
        return NULL;
    }
    /* cJSON stops at a NUL byte and cuts strings at "\u0000": a file with either is damaged. */
    char why[256];
    if (!tpJson_CheckText(text, len, why, sizeof why)) {
        tpFail(r, NULL, "invalid JSON: %s", why);
        return NULL;
    }
    /* A packed matrix's placeholder is a string starting with byte 0x01; a string the file spells
     * "\u0001..." would pass for one, so such files are read without packing. */
    if (!tpHasEscape1(text, len)) {
        tpPlan_PackMatrices(text, len, r->packs);
    }
    size_t off = 0;
    cJSON *root = tpJson_ParseDocument(text, len, &off);
    if (root) {
        return root;
    }
    size_t line, col;
    tpJson_LineColumn(text, len, off, &line, &col);
    tpFail(r, NULL, "invalid JSON at line %zu, column %zu%s", line, col,
           tpJson_EndsOpen(text, len) ? " (the file ends inside an unclosed array, object or string: truncated?)" : "");
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Name lookup                                                                                */

typedef struct tpNameIndex {
    const char *name;
    int index;
} tpNameIndex;

static int tpCompareNameIndex(const void *a, const void *b)
{
    return strcmp(((const tpNameIndex *)a)->name, ((const tpNameIndex *)b)->name);
}

/* Sorted (name, index) table for lookups by name; names were checked to be unique. */
static tpNameIndex *tpMakeIndex(const char *const *names, int n)
{
    tpNameIndex *ix = malloc(((size_t)n + 1) * sizeof *ix);
    if (ix) {
        for (int i = 0; i < n; ++i) {
            ix[i].name = names[i];
            ix[i].index = i;
        }
        qsort(ix, (size_t)n, sizeof *ix, tpCompareNameIndex);
    }
    return ix;
}

static int tpLookup(const tpNameIndex *ix, int n, const char *name)
{
    tpNameIndex key = {name, 0};
    const tpNameIndex *hit = n ? bsearch(&key, ix, (size_t)n, sizeof *ix, tpCompareNameIndex) : NULL;
    return hit ? hit->index : -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Record parts                                                                               */

typedef struct tpReadState {
    const tpReader *r;
    tpPlanRecord *rec;
    tpNameIndex *body_ix;   /* bodies by name */
    tpNameIndex *tactic_ix; /* tactics by name */
} tpReadState;

/* Optional member "limits": the penetration limits of the run (m, in [0, 1000]); -1 when absent. */
static bool tpReadLimits(const tpReader *r, const cJSON *root, tpPlanRecord *rec)
{
    rec->max_static_penetration = rec->max_body_penetration = -1.0;
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "limits");
    if (!obj) {
        return true;
    }
    if (!cJSON_IsObject(obj)) {
        return tpFail(r, "limits", "expected an object, got %s", tpTypeName(obj));
    }
    if (!tpMemberDouble(r, obj, "limits", "max_static_penetration", &rec->max_static_penetration) ||
        !tpMemberDouble(r, obj, "limits", "max_body_penetration", &rec->max_body_penetration)) {
        return false;
    }
    if (!(rec->max_static_penetration >= 0 && rec->max_static_penetration <= 1000)) {
        return tpFail(r, "limits.max_static_penetration", "%.17g is not a depth in [0, 1000] m",
                      rec->max_static_penetration);
    }
    if (!(rec->max_body_penetration >= 0 && rec->max_body_penetration <= 1000)) {
        return tpFail(r, "limits.max_body_penetration", "%.17g is not a depth in [0, 1000] m",
                      rec->max_body_penetration);
    }
    return true;
}

/* Optional member "view": the domain's default camera. */
static bool tpReadView(const tpReader *r, const cJSON *root, tpPlanView *v)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "view");
    if (!obj) {
        return true;
    }
    if (!cJSON_IsObject(obj)) {
        return tpFail(r, "view", "expected an object, got %s", tpTypeName(obj));
    }
    if (!tpMemberDouble(r, obj, "view", "yaw", &v->yaw) || !tpMemberDouble(r, obj, "view", "pitch", &v->pitch) ||
        (cJSON_GetObjectItemCaseSensitive(obj, "distance") &&
         !tpMemberDouble(r, obj, "view", "distance", &v->distance))) {
        return false;
    }
    const cJSON *tg = cJSON_GetObjectItemCaseSensitive(obj, "target");
    if (tg) {
        if (!cJSON_IsArray(tg) || cJSON_GetArraySize(tg) != 3) {
            return tpFail(r, "view.target", "expected an array of 3 numbers");
        }
        for (int k = 0; k < 3; ++k) {
            if (!tpNumber(r, cJSON_GetArrayItem(tg, k), "view.target", &v->target[k])) {
                return false;
            }
        }
        v->has_target = true;
    }
    if (!(v->distance >= 0) || !(fabs(v->pitch) <= 89.9)) {
        return tpFail(r, "view", "distance must be >= 0 and pitch within -89.9..89.9 degrees");
    }
    v->set = true;
    return true;
}

static bool tpReadHeader(const tpReader *r, const cJSON *root, tpPlanRecord *rec)
{
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsString(fmt) || !fmt->valuestring) {
        return tpFail(r, NULL, "not a tplan plan file (no \"format\": \"%s\" member)", TP_PLAN_FORMAT);
    }
    if (strcmp(fmt->valuestring, TP_PLAN_FORMAT) != 0) {
        return tpFail(r, "format", "not a tplan plan file (format is \"%s\", expected \"%s\")", fmt->valuestring,
                      TP_PLAN_FORMAT);
    }
    /* The version is checked before anything else so that a newer file is reported as such
     * rather than as a list of missing or unexpected fields. */
    double version;
    if (!tpMemberDouble(r, root, "", "version", &version)) {
        return false;
    }
    if (version != TP_PLAN_VERSION) {
        return tpFail(r, "version", "unsupported plan version %.17g (this tplan reads version %d)", version,
                      TP_PLAN_VERSION);
    }
    /* optional "tplan": the writer's version, three numbers */
    if (cJSON_GetObjectItemCaseSensitive(root, "tplan")) {
        if (!tpMemberString(r, root, "", "tplan", &rec->tplan_version)) {
            return false;
        }
        unsigned a, b, c;
        char end;
        if (strlen(rec->tplan_version) > 32 || sscanf(rec->tplan_version, "%u.%u.%u%c", &a, &b, &c, &end) != 3) {
            return tpFail(r, "tplan", "expected a version \"MAJOR.MINOR.PATCH\", got \"%.40s\"", rec->tplan_version);
        }
    }
    const cJSON *domain = tpMember(r, root, "", "domain", TP_T_OBJECT);
    if (!domain || !tpMemberString(r, domain, "domain", "name", &rec->domain_name) ||
        !tpMemberString(r, domain, "domain", "file", &rec->domain_file) ||
        !tpMemberString(r, domain, "domain", "hash", &rec->domain_hash)) {
        return false;
    }
    if (!tpPlan_IsHashString(rec->domain_hash)) {
        return tpFail(r, "domain.hash", "expected \"fnv1a64:\" and 16 lowercase hex digits, got \"%s\"",
                      rec->domain_hash);
    }
    double seed;
    if (!tpMemberInteger(r, root, "", "seed", 0, 4294967295.0, &seed)) {
        return false;
    }
    rec->seed = (uint32_t)seed;
    const cJSON *pl = tpMember(r, root, "", "planner", TP_T_OBJECT);
    if (!pl || !tpMemberEnum(r, pl, "planner", "algorithm", tpPlan_Algorithms, &rec->planner) ||
        !tpMemberDouble(r, pl, "planner", "mu", &rec->mu) ||
        !tpMemberInt64(r, pl, "planner", "max_iters", &rec->max_iters) ||
        !tpMemberDouble(r, pl, "planner", "time_limit", &rec->time_limit) ||
        !tpMemberInt(r, pl, "planner", "solutions", INT_MIN, INT_MAX, &rec->solutions_requested)) {
        return false;
    }
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(root, "overrides");
    if (ov) {
        if (!cJSON_IsObject(ov)) {
            return tpFail(r, "overrides", "expected an object, got %s", tpTypeName(ov));
        }
        char *text = cJSON_PrintUnformatted(ov);
        rec->overrides = text ? tpDup(text) : NULL;
        cJSON_free(text);
        if (!rec->overrides) {
            return tpFail(r, "overrides", "out of memory");
        }
    }
    if (!tpMemberEnum(r, root, "", "status", tpPlan_Statuses, &rec->status) ||
        !tpMemberDouble(r, root, "", "dt", &rec->dt)) {
        return false;
    }
    if (!(rec->dt > 0.0 && rec->dt <= TP_PLAN_MAX_DT)) {
        return tpFail(r, "dt", "%.17g is not a step length in (0, %g] s", rec->dt, TP_PLAN_MAX_DT);
    }
    return tpReadLimits(r, root, rec) && tpReadView(r, root, &rec->view);
}

static bool tpReadBodies(tpReadState *st, const cJSON *root)
{
    const tpReader *r = st->r;
    tpPlanRecord *rec = st->rec;
    const cJSON *arr = tpMember(r, root, "", "bodies", TP_T_ARRAY);
    if (!arr) {
        return false;
    }
    int n = cJSON_GetArraySize(arr);
    rec->bodies = calloc((size_t)n + 1, sizeof *rec->bodies);
    if (!rec->bodies) {
        return tpFail(r, "bodies", "out of memory");
    }
    rec->nbodies = n;
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++i) {
        tpPlanBody *b = &rec->bodies[i];
        char base[TP_PATH_CAP], path[TP_PATH_CAP];
        tpJoinIndex(base, sizeof base, "bodies", i);
        if (!cJSON_IsObject(o)) {
            return tpFail(r, base, "expected an object, got %s", tpTypeName(o));
        }
        if (!tpMemberString(r, o, base, "name", &b->name) ||
            !tpMemberEnum(r, o, base, "class", tpPlan_Classes, &b->cls) ||
            !tpMemberEnum(r, o, base, "shape", tpPlan_Shapes, &b->shape)) {
            return false;
        }
        const cJSON *size = tpMember(r, o, base, "size", TP_T_ARRAY);
        tpJoin(path, sizeof path, base, "size");
        if (!size || !tpVector(r, size, path, -1, 4, b->size) || !tpCheckSize(r, path, b->shape, b->size)) {
            return false;
        }
        const cJSON *color = tpMember(r, o, base, "color", TP_T_ARRAY);
        double c[4];
        tpJoin(path, sizeof path, base, "color");
        if (!color || !tpVector(r, color, path, -1, 4, c)) {
            return false;
        }
        for (int j = 0; j < 4; ++j) {
            if (!(c[j] >= 0.0 && c[j] <= 1.0)) {
                char elem[TP_PATH_CAP];
                tpJoinIndex(elem, sizeof elem, path, j);
                return tpFail(r, elem, "%.17g is outside [0, 1]", c[j]);
            }
            b->color[j] = (float)c[j];
        }
        /* Whether a body moves or is controlled is stated by which arrays it carries. */
        const cJSON *traj = cJSON_GetObjectItemCaseSensitive(o, "trajectory");
        const cJSON *pose = cJSON_GetObjectItemCaseSensitive(o, "pose");
        b->moving = traj != NULL;
        b->controlled = cJSON_GetObjectItemCaseSensitive(o, "controls") != NULL;
        if (traj && pose) {
            return tpFail(r, base, "has both \"trajectory\" (moving body) and \"pose\" (non-moving body)");
        }
        const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(o, "mesh");
        if (mesh && !tpReadBodyMesh(r, mesh, base, b)) {
            return false;
        }
        if (!traj) {
            if (!pose) {
                return tpFail(r, base, "missing field \"pose\" (or \"trajectory\" for a moving body)");
            }
            tpJoin(path, sizeof path, base, "pose");
            if (!tpVector(r, pose, path, -1, TP_STATE_DOUBLES, b->pose) ||
                !tpCheckRanges(r, path, -1, b->pose, 1, TP_STATE_DOUBLES, tpPlan_StateProblem)) {
                return false;
            }
        }
    }
    const char **names = malloc(((size_t)n + 1) * sizeof *names);
    if (!names) {
        return tpFail(r, "bodies", "out of memory");
    }
    for (int k = 0; k < n; ++k) {
        names[k] = rec->bodies[k].name;
    }
    int a, b;
    bool dup = tpPlan_FindDuplicate(names, n, &a, &b);
    st->body_ix = dup ? NULL : tpMakeIndex(names, n);
    free(names);
    if (dup) {
        char path[TP_PATH_CAP];
        snprintf(path, sizeof path, "bodies[%d].name", b);
        return tpFail(r, path, "\"%s\" is also the name of bodies[%d]", rec->bodies[b].name, a);
    }
    return st->body_ix ? true : tpFail(r, "bodies", "out of memory");
}

static bool tpReadTactics(tpReadState *st, const cJSON *root)
{
    const tpReader *r = st->r;
    tpPlanRecord *rec = st->rec;
    const cJSON *arr = tpMember(r, root, "", "tactics", TP_T_ARRAY);
    if (!arr) {
        return false;
    }
    int n = cJSON_GetArraySize(arr);
    rec->tactics = calloc((size_t)n + 1, sizeof *rec->tactics);
    if (!rec->tactics) {
        return tpFail(r, "tactics", "out of memory");
    }
    rec->ntactics = n;
    int t = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++t) {
        tpPlanTactic *tac = &rec->tactics[t];
        char base[TP_PATH_CAP], path[TP_PATH_CAP];
        tpJoinIndex(base, sizeof base, "tactics", t);
        if (!cJSON_IsObject(o)) {
            return tpFail(r, base, "expected an object, got %s", tpTypeName(o));
        }
        if (!tpMemberString(r, o, base, "name", &tac->name) || !tpMemberString(r, o, base, "body", &tac->body)) {
            return false;
        }
        if (tpLookup(st->body_ix, rec->nbodies, tac->body) < 0) {
            tpJoin(path, sizeof path, base, "body");
            return tpFail(r, path, "no body named \"%s\"", tac->body);
        }
        const cJSON *skills = tpMember(r, o, base, "skills", TP_T_ARRAY);
        if (!skills) {
            return false;
        }
        int ns = cJSON_GetArraySize(skills);
        tac->skills = calloc((size_t)ns + 1, sizeof *tac->skills);
        if (!tac->skills) {
            return tpFail(r, base, "out of memory");
        }
        tac->nskills = ns;
        int s = 0;
        for (const cJSON *e = skills->child; e; e = e->next, ++s) {
            if (!cJSON_IsString(e) || !e->valuestring) {
                tpJoin(path, sizeof path, base, "skills");
                char elem[TP_PATH_CAP];
                tpJoinIndex(elem, sizeof elem, path, s);
                return tpFail(r, elem, "expected a string, got %s", tpTypeName(e));
            }
            tac->skills[s] = tpDup(e->valuestring);
            if (!tac->skills[s]) {
                return tpFail(r, base, "out of memory");
            }
        }
    }
    const char **names = malloc(((size_t)n + 1) * sizeof *names);
    if (!names) {
        return tpFail(r, "tactics", "out of memory");
    }
    for (int k = 0; k < n; ++k) {
        names[k] = rec->tactics[k].name;
    }
    int a, b;
    bool dup = tpPlan_FindDuplicate(names, n, &a, &b);
    st->tactic_ix = dup ? NULL : tpMakeIndex(names, n);
    free(names);
    if (dup) {
        char path[TP_PATH_CAP];
        snprintf(path, sizeof path, "tactics[%d].name", b);
        return tpFail(r, path, "\"%s\" is also the name of tactics[%d]", rec->tactics[b].name, a);
    }
    return st->tactic_ix ? true : tpFail(r, "tactics", "out of memory");
}

/* Where one world's arrays are found in the file. The selected world keeps them inside the
 * bodies/tactics entries; an alternative keeps them in name-keyed objects. */
typedef struct tpWorldSource {
    int alt;              /* -1: the selected world; else the alternatives index */
    const cJSON **traj;   /* per body, NULL if not moving */
    const cJSON **ctrl;   /* per body, NULL if not controlled */
    const cJSON **active; /* per tactic */
} tpWorldSource;

static void tpSourcePath(char *out, size_t cap, const tpPlanRecord *rec, const tpWorldSource *src, int kind, int i)
{
    static const char *const member[] = {"trajectory", "controls", "active"};
    static const char *const map[] = {"trajectories", "controls", "active"};
    if (src->alt < 0) {
        snprintf(out, cap, "%s[%d].%s", kind == 2 ? "tactics" : "bodies", i, member[kind]);
    } else {
        snprintf(out, cap, "alternatives[%d].%s.%s", src->alt, map[kind],
                 kind == 2 ? rec->tactics[i].name : rec->bodies[i].name);
    }
}

/* Fills src for alternative k from its name-keyed object `key` (kind 0/1/2). */
static bool tpCollectMap(tpReadState *st, const cJSON *alt, int k, int kind, const cJSON **slots)
{
    static const char *const keys[] = {"trajectories", "controls", "active"};
    const tpReader *r = st->r;
    const tpPlanRecord *rec = st->rec;
    char base[TP_PATH_CAP], path[TP_PATH_CAP];
    tpJoinIndex(base, sizeof base, "alternatives", k);
    const cJSON *obj = tpMember(r, alt, base, keys[kind], TP_T_OBJECT);
    if (!obj) {
        return false;
    }
    tpJoin(path, sizeof path, base, keys[kind]);
    for (const cJSON *e = obj->child; e; e = e->next) {
        const char *name = e->string ? e->string : "";
        int i = kind == 2 ? tpLookup(st->tactic_ix, rec->ntactics, name) : tpLookup(st->body_ix, rec->nbodies, name);
        bool fits = i >= 0 && (kind == 2 || (kind == 0 ? rec->bodies[i].moving : rec->bodies[i].controlled));
        if (!fits) {
            static const char *const what[] = {"moving body", "controlled body", "tactic"};
            return tpFail(r, path, "no %s named \"%s\"", what[kind], name);
        }
        slots[i] = e;
    }
    int n = kind == 2 ? rec->ntactics : rec->nbodies;
    for (int i = 0; i < n; ++i) {
        bool needed = kind == 2 || (kind == 0 ? rec->bodies[i].moving : rec->bodies[i].controlled);
        if (needed && !slots[i]) {
            return tpFail(r, path, "missing entry for \"%s\"", kind == 2 ? rec->tactics[i].name : rec->bodies[i].name);
        }
    }
    return true;
}

/* Checks every array's length against `steps` before the world is allocated, so that an
 * absurd step count in a small file is refused instead of allocated. */
static bool tpCheckLengths(const tpReader *r, const tpPlanRecord *rec, const tpWorldSource *src, int steps)
{
    char path[TP_PATH_CAP];
    for (int kind = 0; kind < 3; ++kind) {
        int n = kind == 2 ? rec->ntactics : rec->nbodies;
        const cJSON *const *items = kind == 0 ? src->traj : kind == 1 ? src->ctrl : src->active;
        for (int i = 0; i < n; ++i) {
            if (!items[i]) {
                continue;
            }
            tpSourcePath(path, sizeof path, rec, src, kind, i);
            const tpPlanPacked *pk = kind < 2 ? tpPlan_Packed(r->packs, items[i]) : NULL;
            if (!pk && !cJSON_IsArray(items[i])) {
                return tpFail(r, path, "expected an array, got %s", tpTypeName(items[i]));
            }
            int want = kind == 0 ? steps + 1 : steps;
            int got = pk ? pk->rows : cJSON_GetArraySize(items[i]);
            if (got != want) {
                return tpFail(r, path, "expected %d %s (%s), got %d", want, kind == 2 ? "entries" : "rows",
                              kind == 0 ? "steps + 1" : "steps", got);
            }
        }
    }
    return true;
}

static bool tpFillWorld(const tpReader *r, const tpPlanRecord *rec, const tpWorldSource *src, tpPlanWorld *w)
{
    char path[TP_PATH_CAP];
    for (int i = 0; i < rec->nbodies; ++i) {
        if (src->traj[i]) {
            tpSourcePath(path, sizeof path, rec, src, 0, i);
            if (!tpRows(r, src->traj[i], path, TP_STATE_DOUBLES, w->traj[i]) ||
                !tpCheckRanges(r, path, 0, w->traj[i], w->nsteps + 1, TP_STATE_DOUBLES, tpPlan_StateProblem)) {
                return false;
            }
        }
        if (src->ctrl[i]) {
            tpSourcePath(path, sizeof path, rec, src, 1, i);
            if (!tpRows(r, src->ctrl[i], path, TP_CONTROL_DOUBLES, w->controls[i]) ||
                !tpCheckRanges(r, path, 0, w->controls[i], w->nsteps, TP_CONTROL_DOUBLES, tpPlan_ControlProblem)) {
                return false;
            }
        }
    }
    for (int t = 0; t < rec->ntactics; ++t) {
        int s = 0;
        for (const cJSON *e = src->active[t]->child; e; e = e->next, ++s) {
            double v = cJSON_IsNumber(e) ? e->valuedouble : -1.0;
            if (!cJSON_IsNumber(e) || v != floor(v) || v < 0 || v >= rec->tactics[t].nskills) {
                char elem[TP_PATH_CAP];
                tpSourcePath(path, sizeof path, rec, src, 2, t);
                tpJoinIndex(elem, sizeof elem, path, s);
                if (!cJSON_IsNumber(e)) {
                    return tpFail(r, elem, "expected a skill index, got %s", tpTypeName(e));
                }
                return tpFail(r, elem, "skill index %.17g out of range [0, %d) (tactic \"%s\")", v,
                              rec->tactics[t].nskills, rec->tactics[t].name);
            }
            w->active[t][s] = (int32_t)v;
        }
    }
    return true;
}

static bool tpReadWorld(tpReadState *st, const cJSON *obj, int k, tpPlanWorld *w)
{
    const tpReader *r = st->r;
    tpPlanRecord *rec = st->rec;
    char base[TP_PATH_CAP] = "";
    if (k >= 0) {
        tpJoinIndex(base, sizeof base, "alternatives", k);
        if (!cJSON_IsObject(obj)) {
            return tpFail(r, base, "expected an object, got %s", tpTypeName(obj));
        }
    }
    double cost;
    int steps;
    if (!tpMemberInt(r, obj, base, "steps", 0, INT_MAX - 1, &steps) || !tpMemberDouble(r, obj, base, "cost", &cost)) {
        return false;
    }
    size_t nb = (size_t)rec->nbodies + 1, nt = (size_t)rec->ntactics + 1;
    tpWorldSource src = {k, calloc(nb, sizeof(cJSON *)), calloc(nb, sizeof(cJSON *)), calloc(nt, sizeof(cJSON *))};
    bool ok = src.traj && src.ctrl && src.active;
    if (!ok) {
        tpFail(r, base, "out of memory");
    } else if (k < 0) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(obj, "bodies")->child;
        for (int i = 0; i < rec->nbodies; ++i, b = b->next) {
            src.traj[i] = cJSON_GetObjectItemCaseSensitive(b, "trajectory");
            src.ctrl[i] = cJSON_GetObjectItemCaseSensitive(b, "controls");
        }
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(obj, "tactics")->child;
        for (int i = 0; ok && i < rec->ntactics; ++i, t = t->next) {
            char tb[TP_PATH_CAP];
            tpJoinIndex(tb, sizeof tb, "tactics", i);
            src.active[i] = tpMember(r, t, tb, "active", TP_T_ARRAY);
            ok = src.active[i] != NULL;
        }
    } else {
        ok = tpCollectMap(st, obj, k, 0, src.traj) && tpCollectMap(st, obj, k, 1, src.ctrl) &&
             tpCollectMap(st, obj, k, 2, src.active);
    }
    ok = ok && tpCheckLengths(r, rec, &src, steps);
    if (ok && !tpPlanWorld_Alloc(w, rec, steps)) {
        ok = tpFail(r, base, "out of memory for %d steps", steps);
    }
    if (ok) {
        w->cost = cost;
        ok = tpFillWorld(r, rec, &src, w);
    }
    free(src.traj);
    free(src.ctrl);
    free(src.active);
    return ok;
}

/* Optional stats.rejections (absent in files older than it, and when nothing was rejected). */
static bool tpReadRejections(const tpReader *r, const cJSON *s, tpPlanRecord *rec)
{
    const cJSON *rj = cJSON_GetObjectItemCaseSensitive(s, "rejections");
    if (!rj) {
        return true;
    }
    if (!cJSON_IsObject(rj)) {
        return tpFail(r, "stats.rejections", "expected an object, got %s", tpTypeName(rj));
    }
    for (const cJSON *e = rj->child; e; e = e->next) {
        int k = e->string ? tpRejectKind_Find(e->string) : -1;
        if (k < 0) {
            char list[160] = "";
            for (int j = 0; j < TP_REJECT_KINDS; ++j) {
                size_t n = strlen(list);
                snprintf(list + n, sizeof list - n, "%s%s", j ? ", " : "", tpRejectKind_Name((tpRejectKind)j));
            }
            return tpFail(r, "stats.rejections", "unknown reason \"%.64s\" (expected one of %s)",
                          e->string ? e->string : "", list);
        }
        char base[TP_PATH_CAP];
        tpJoin(base, sizeof base, "stats.rejections", e->string);
        if (!cJSON_IsObject(e)) {
            return tpFail(r, base, "expected an object, got %s", tpTypeName(e));
        }
        for (const cJSON *m = e->child; m; m = m->next) {
            if (!m->string || (strcmp(m->string, "count") != 0 && strcmp(m->string, "iteration") != 0 &&
                               strcmp(m->string, "first") != 0)) {
                return tpFail(r, base, "unknown field \"%.64s\" (expected count, iteration, first)",
                              m->string ? m->string : "");
            }
        }
        tpRejectStat *st = &rec->rejections[k];
        const cJSON *first = tpMember(r, e, base, "first", TP_T_STRING);
        if (!tpMemberInt64(r, e, base, "count", &st->count) ||
            !tpMemberInt64(r, e, base, "iteration", &st->iteration) || !first) {
            return false;
        }
        if (st->count < 1) {
            char path[TP_PATH_CAP];
            tpJoin(path, sizeof path, base, "count");
            return tpFail(r, path, "must be >= 1 (a reason without rejections is left out), got %lld",
                          (long long)st->count);
        }
        size_t n = strlen(first->valuestring);
        if (n >= sizeof st->first) {
            char path[TP_PATH_CAP];
            tpJoin(path, sizeof path, base, "first");
            return tpFail(r, path, "longer than %d bytes", TP_REJECT_TEXT_MAX - 1);
        }
        memcpy(st->first, first->valuestring, n + 1);
    }
    char field[128], why[256];
    if (!tpPlan_RejectionsProblem(rec, field, sizeof field, why, sizeof why)) {
        return tpFail(r, field, "%s", why);
    }
    return true;
}

static bool tpReadStats(const tpReader *r, const cJSON *root, tpPlanRecord *rec)
{
    const cJSON *s = tpMember(r, root, "", "stats", TP_T_OBJECT);
    if (!s || !tpMemberInt64(r, s, "stats", "iterations", &rec->iterations) ||
        !tpMemberInt64(r, s, "stats", "nodes", &rec->nodes) ||
        !tpMemberInt64(r, s, "stats", "rejected", &rec->rejected) ||
        !tpMemberInt(r, s, "stats", "solutions", INT_MIN, INT_MAX, &rec->nsolutions) ||
        !tpMemberInt64(r, s, "stats", "memory_bytes", &rec->memory_bytes)) {
        return false;
    }
    /* optional (written by solved runs since the first-solution statistics were added) */
    rec->nodes_first = 0;
    rec->t_first = NAN;
    bool has_first = cJSON_GetObjectItemCaseSensitive(s, "first_solution_nodes") != NULL;
    if (has_first) {
        if (!tpMemberInt64(r, s, "stats", "first_solution_nodes", &rec->nodes_first)) {
            return false;
        }
        if (rec->nodes_first < 1 || rec->nodes_first > rec->nodes) {
            return tpFail(r, "stats.first_solution_nodes", "must be in 1..nodes (%" PRId64 "), got %" PRId64,
                          rec->nodes, rec->nodes_first);
        }
    }
    const cJSON *rep = cJSON_GetObjectItemCaseSensitive(s, "report");
    if (rep) {
        if (!cJSON_IsObject(rep)) {
            return tpFail(r, "stats.report", "expected an object, got %s", tpTypeName(rep));
        }
        rec->nreports = 0;
        for (const cJSON *e = rep->child; e; e = e->next) {
            if (rec->nreports >= TP_PLAN_MAX_REPORTS) {
                return tpFail(r, "stats.report", "at most %d entries", TP_PLAN_MAX_REPORTS);
            }
            if (!e->string || strlen(e->string) >= sizeof rec->report_names[0]) {
                return tpFail(r, "stats.report", "entry %d: name missing or longer than 63 bytes", rec->nreports + 1);
            }
            if (!cJSON_IsNumber(e)) {
                return tpFail(r, "stats.report", "%s: expected a number, got %s", e->string, tpTypeName(e));
            }
            if (!isfinite(e->valuedouble)) {
                return tpFail(r, "stats.report", "%s: number out of range", e->string);
            }
            tpStrCopy(rec->report_names[rec->nreports], sizeof rec->report_names[0], e->string);
            rec->report_values[rec->nreports++] = e->valuedouble;
        }
    }
    const cJSON *warn = cJSON_GetObjectItemCaseSensitive(s, "warnings");
    if (warn) {
        if (!cJSON_IsArray(warn)) {
            return tpFail(r, "stats.warnings", "expected an array, got %s", tpTypeName(warn));
        }
        int n = cJSON_GetArraySize(warn);
        if (n > TP_PLAN_MAX_WARNINGS) {
            return tpFail(r, "stats.warnings", "at most %d entries (got %d)", TP_PLAN_MAX_WARNINGS, n);
        }
        rec->warnings = calloc((size_t)(n > 0 ? n : 1), sizeof *rec->warnings);
        if (!rec->warnings) {
            return tpFail(r, "stats.warnings", "out of memory");
        }
        for (const cJSON *e = warn->child; e; e = e->next) {
            if (!cJSON_IsString(e) || !e->valuestring) {
                return tpFail(r, "stats.warnings", "entry %d: expected a string, got %s", rec->nwarnings,
                              tpTypeName(e));
            }
            if (strlen(e->valuestring) >= TP_PLAN_MAX_WARNING_BYTES) {
                return tpFail(r, "stats.warnings", "entry %d: longer than %d bytes", rec->nwarnings,
                              TP_PLAN_MAX_WARNING_BYTES - 1);
            }
            if (!(rec->warnings[rec->nwarnings] = tpDup(e->valuestring))) {
                return tpFail(r, "stats.warnings", "out of memory");
            }
            rec->nwarnings++;
        }
    }
    if (!tpReadRejections(r, s, rec)) {
        return false;
    }
    const cJSON *t = tpMember(r, s, "stats", "timing", TP_T_OBJECT);
    return t && tpMemberDouble(r, t, "stats.timing", "select", &rec->t_select) &&
           tpMemberDouble(r, t, "stats.timing", "tactics", &rec->t_tactics) &&
           tpMemberDouble(r, t, "stats.timing", "physics", &rec->t_physics) &&
           tpMemberDouble(r, t, "stats.timing", "check", &rec->t_check) &&
           tpMemberDouble(r, t, "stats.timing", "total", &rec->t_total) &&
           (!has_first || tpMemberDouble(r, t, "stats.timing", "first_solution", &rec->t_first));
}

static bool tpReadRecord(tpReadState *st, const cJSON *root)
{
    const tpReader *r = st->r;
    tpPlanRecord *rec = st->rec;
    if (!cJSON_IsObject(root)) {
        return tpFail(r, NULL, "not a tplan plan file (top level is %s, expected an object)", tpTypeName(root));
    }
    if (!tpReadHeader(r, root, rec)) {
        return false;
    }
    char path[TP_PATH_CAP] = "";
    if (!tpCheckDuplicateKeys(r, root, path, sizeof path)) {
        return false;
    }
    if (!tpReadBodies(st, root) || !tpReadTactics(st, root)) {
        return false;
    }
    const cJSON *alts = tpMember(r, root, "", "alternatives", TP_T_ARRAY);
    if (!alts) {
        return false;
    }
    int nalts = cJSON_GetArraySize(alts);
    if (nalts > INT_MAX - 1) {
        return tpFail(r, "alternatives", "too many alternatives");
    }
    rec->worlds = calloc((size_t)nalts + 1, sizeof *rec->worlds);
    if (!rec->worlds) {
        return tpFail(r, "alternatives", "out of memory");
    }
    rec->nworlds = nalts + 1;
    rec->selected = 0;
    if (!tpReadWorld(st, root, -1, &rec->worlds[0])) {
        return false;
    }
    int k = 0;
    for (const cJSON *a = alts->child; a; a = a->next, ++k) {
        if (!tpReadWorld(st, a, k, &rec->worlds[k + 1])) {
            return false;
        }
    }
    return tpReadStats(r, root, rec) && tpPlan_ReadOverlays(r->file, root, rec, r->err, r->errlen) &&
           tpPlan_ReadSources(r->file, root, rec, r->err, r->errlen);
}

/* Reads the plan in text[0..len) (modified: matrices are packed in place); file names it. */
static bool tpReadText(tpPlanRecord *rec, const char *file, char *text, size_t len, char *err, size_t errlen)
{
    tpPlanPackTable packs = {0};
    const tpReader r = {file, err, errlen, &packs};
    cJSON *root = tpParse(&r, text, len);
    if (!root) {
        tpPlan_FreePacked(&packs);
        return false;
    }
    tpReadState st = {&r, rec, NULL, NULL};
    bool ok = tpReadRecord(&st, root);
    free(st.body_ix);
    free(st.tactic_ix);
    cJSON_Delete(root);
    tpPlan_FreePacked(&packs);
    if (!ok) {
        tpPlanRecord_Free(rec);
    }
    return ok;
}

bool tpPlanRecord_Read(tpPlanRecord *rec, const char *path, char *err, size_t errlen)
{
    memset(rec, 0, sizeof *rec);
    size_t len = 0;
    char *text = tpFile_Read(path, TP_MAX_PLAN_BYTES, &len, err, errlen);
    if (!text) {
        return false;
    }
    bool ok = tpReadText(rec, path, text, len, err, errlen);
    free(text);
    return ok;
}

bool tpPlanRecord_Parse(tpPlanRecord *rec, const char *text, size_t len, const char *name, char *err, size_t errlen)
{
    memset(rec, 0, sizeof *rec);
    char *copy = malloc(len + 1);
    if (!copy) {
        tpErrorf(err, errlen, "%s: out of memory", name);
        return false;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    bool ok = tpReadText(rec, name, copy, len, err, errlen);
    free(copy);
    return ok;
}
