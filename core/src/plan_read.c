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

#include "tp/json_text.h"
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

static bool fail_(const tpReader *r, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail_(const tpReader *r, const char *where, const char *fmt, ...)
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

static const char *type_name(const cJSON *item)
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
static void join(char *out, size_t cap, const char *base, const char *key)
{
    if (snprintf(out, cap, "%s%s%s", base, *base ? "." : "", key) < 0) {
        out[0] = '\0';
    }
}

static void join_index(char *out, size_t cap, const char *base, int i)
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

static bool is_type(const cJSON *item, int type)
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
static const cJSON *member_(const tpReader *r, const cJSON *obj, const char *base, const char *key, int type)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!item) {
        fail_(r, base, "missing field \"%s\"", key);
        return NULL;
    }
    if (!is_type(item, type)) {
        char path[TP_PATH_CAP];
        join(path, sizeof path, base, key);
        fail_(r, path, "expected %s, got %s", tpTypeWanted[type], type_name(item));
        return NULL;
    }
    return item;
}

static bool number_(const tpReader *r, const cJSON *item, const char *path, double *out)
{
    if (!cJSON_IsNumber(item)) {
        return fail_(r, path, "expected a number, got %s", type_name(item));
    }
    /* cJSON turns out-of-range literals such as 1e999 into infinities. */
    if (!isfinite(item->valuedouble)) {
        return fail_(r, path, "number out of range");
    }
    *out = item->valuedouble;
    return true;
}

static bool member_double(const tpReader *r, const cJSON *obj, const char *base, const char *key, double *out)
{
    const cJSON *item = member_(r, obj, base, key, TP_T_NUMBER);
    char path[TP_PATH_CAP];
    join(path, sizeof path, base, key);
    return item && number_(r, item, path, out);
}

static bool member_integer(const tpReader *r, const cJSON *obj, const char *base, const char *key, double lo, double hi,
                           double *out)
{
    double v = 0.0;
    if (!member_double(r, obj, base, key, &v)) {
        return false;
    }
    if (v != floor(v) || v < lo || v > hi) {
        char path[TP_PATH_CAP];
        join(path, sizeof path, base, key);
        return fail_(r, path, "expected an integer in [%.0f, %.0f], got %.17g", lo, hi, v);
    }
    *out = v;
    return true;
}

static bool member_int(const tpReader *r, const cJSON *obj, const char *base, const char *key, int lo, int hi, int *out)
{
    double v;
    if (!member_integer(r, obj, base, key, lo, hi, &v)) {
        return false;
    }
    *out = (int)v;
    return true;
}

static bool member_int64(const tpReader *r, const cJSON *obj, const char *base, const char *key, int64_t *out)
{
    double v;
    if (!member_integer(r, obj, base, key, -TP_JSON_INT_MAX, TP_JSON_INT_MAX, &v)) {
        return false;
    }
    *out = (int64_t)v;
    return true;
}

static char *dup_(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

static bool member_string(const tpReader *r, const cJSON *obj, const char *base, const char *key, char **out)
{
    const cJSON *item = member_(r, obj, base, key, TP_T_STRING);
    if (!item) {
        return false;
    }
    *out = dup_(item->valuestring);
    return *out ? true : fail_(r, base, "out of memory");
}

/* Like member_string, but the value must be one of `list`. */
static bool member_enum(const tpReader *r, const cJSON *obj, const char *base, const char *key, const char *const *list,
                        char **out)
{
    if (!member_string(r, obj, base, key, out)) {
        return false;
    }
    if (!tpPlan_IsOneOf(*out, list)) {
        char path[TP_PATH_CAP], allowed[160] = "";
        join(path, sizeof path, base, key);
        for (const char *const *p = list; *p; ++p) {
            size_t n = strlen(allowed);
            snprintf(allowed + n, sizeof allowed - n, "%s\"%s\"", p == list ? "" : ", ", *p);
        }
        return fail_(r, path, "unknown value \"%s\" (expected one of %s)", *out, allowed);
    }
    return true;
}

/* A fixed-length numeric row. `row` >= 0 appends "[row]" to the path (only built on error,
 * since trajectories have millions of rows). */
static bool vector(const tpReader *r, const cJSON *item, const char *path, int row, int n, double *out)
{
    char where[TP_PATH_CAP];
    if (!cJSON_IsArray(item)) {
        if (row >= 0) {
            join_index(where, sizeof where, path, row);
            path = where;
        }
        return fail_(r, path, "expected an array of %d numbers, got %s", n, type_name(item));
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
                join_index(elem, sizeof elem, path, j);
            }
            return cJSON_IsNumber(e) ? fail_(r, elem, "number out of range")
                                     : fail_(r, elem, "expected a number, got %s", type_name(e));
        }
    }
    if (j != n) {
        if (row >= 0) {
            join_index(where, sizeof where, path, row);
            path = where;
        }
        return fail_(r, path, "expected %d numbers, got %d", n, j);
    }
    return true;
}

/* rows × cols numbers as an array of rows. The row count has been checked by the caller. */
static bool rows_(const tpReader *r, const cJSON *item, const char *path, int cols, double *out)
{
    const tpPlanPacked *pk = tpPlan_Packed(r->packs, item);
    if (pk) { /* rows of exactly pk->cols finite numbers: a check added to vector belongs here too */
        if (pk->cols != cols) {
            char where[TP_PATH_CAP];
            join_index(where, sizeof where, path, 0);
            return fail_(r, where, "expected %d numbers, got %d", cols, pk->cols);
        }
        memcpy(out, pk->data, sizeof(double) * (size_t)pk->rows * (size_t)cols);
        return true;
    }
    int i = 0;
    for (const cJSON *row = item->child; row; row = row->next, ++i) {
        if (!vector(r, row, path, i, cols, out + (size_t)i * (size_t)cols)) {
            return false;
        }
    }
    return true;
}

/* A mesh body's "mesh": {"origin": [3], "vertices": [[x, y, z], ...], "triangles": [[a, b, c], ...]}. */
static bool read_body_mesh(const tpReader *r, const cJSON *mesh, const char *base, tpPlanBody *b)
{
    char path[TP_PATH_CAP], sub[TP_PATH_CAP];
    join(path, sizeof path, base, "mesh");
    if (strcmp(b->shape, "mesh") != 0) {
        return fail_(r, path, "only a body of shape \"mesh\" carries one (this one is \"%s\")", b->shape);
    }
    if (!cJSON_IsObject(mesh)) {
        return fail_(r, path, "expected an object, got %s", type_name(mesh));
    }
    const cJSON *origin = cJSON_GetObjectItemCaseSensitive(mesh, "origin");
    const cJSON *verts = cJSON_GetObjectItemCaseSensitive(mesh, "vertices");
    const cJSON *tris = cJSON_GetObjectItemCaseSensitive(mesh, "triangles");
    if (!origin || !verts || !tris) {
        return fail_(r, path, "needs \"origin\", \"vertices\" and \"triangles\"");
    }
    join(sub, sizeof sub, path, "origin");
    if (!vector(r, origin, sub, -1, 3, b->mesh_origin)) {
        return false;
    }
    for (int k = 0; k < 3; ++k) {
        if (fabs(b->mesh_origin[k]) > TP_MAX_COORD) {
            char elem[TP_PATH_CAP];
            join_index(elem, sizeof elem, sub, k);
            return fail_(r, elem, "%.17g is outside +-%g", b->mesh_origin[k], TP_MAX_COORD);
        }
    }
    int nv = cJSON_IsArray(verts) ? cJSON_GetArraySize(verts) : -1;
    int nt = cJSON_IsArray(tris) ? cJSON_GetArraySize(tris) : -1;
    if (nv < 3 || nv > TP_PLAN_MAX_MESH_VERTICES || nt < 1 || nt > TP_PLAN_MAX_MESH_TRIANGLES) {
        return fail_(r, path, "needs 3..%d vertices and 1..%d triangles as arrays (got %d and %d)",
                     TP_PLAN_MAX_MESH_VERTICES, TP_PLAN_MAX_MESH_TRIANGLES, nv, nt);
    }
    b->mesh_vertices = malloc((size_t)nv * 3 * sizeof(double));
    b->mesh_triangles = malloc((size_t)nt * 3 * sizeof(int32_t));
    double *td = malloc((size_t)nt * 3 * sizeof(double));
    if (!b->mesh_vertices || !b->mesh_triangles || !td) {
        free(td);
        return fail_(r, path, "out of memory");
    }
    b->mesh_nvertices = nv;
    b->mesh_ntriangles = nt;
    join(sub, sizeof sub, path, "vertices");
    if (!rows_(r, verts, sub, 3, b->mesh_vertices)) {
        free(td);
        return false;
    }
    for (int k = 0; k < 3 * nv; ++k) {
        if (fabs(b->mesh_vertices[k]) > TP_MAX_COORD) {
            free(td);
            char elem[TP_PATH_CAP + 32];
            snprintf(elem, sizeof elem, "%s[%d][%d]", sub, k / 3, k % 3);
            return fail_(r, elem, "%.17g is outside +-%g", b->mesh_vertices[k], TP_MAX_COORD);
        }
    }
    join(sub, sizeof sub, path, "triangles");
    if (!rows_(r, tris, sub, 3, td)) {
        free(td);
        return false;
    }
    for (int k = 0; k < 3 * nt; ++k) {
        if (!(td[k] >= 0 && td[k] < nv && td[k] == floor(td[k]))) {
            char elem[TP_PATH_CAP + 32];
            snprintf(elem, sizeof elem, "%s[%d][%d]", sub, k / 3, k % 3);
            double v = td[k];
            free(td);
            return fail_(r, elem, "%.17g is not a vertex index (%d vertices)", v, nv);
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
static bool check_ranges(const tpReader *r, const char *path, int row0, const double *rows, int nrows, int cols,
                         int (*problem)(const double *, char *, size_t))
{
    char why[160], elem[TP_PATH_CAP + 32];
    for (int i = 0; i < nrows; ++i) {
        int j = problem(rows + (size_t)i * (size_t)cols, why, sizeof why);
        if (j >= 0) {
            if (row0 < 0) {
                join_index(elem, sizeof elem, path, j);
            } else {
                snprintf(elem, sizeof elem, "%s[%d][%d]", path, i, j);
            }
            return fail_(r, elem, "%s", why);
        }
    }
    return true;
}

static bool check_size(const tpReader *r, const char *path, const char *shape, const double *size)
{
    char why[160], elem[TP_PATH_CAP];
    int j = tpPlan_SizeProblem(shape, size, why, sizeof why);
    if (j < 0) {
        return true;
    }
    join_index(elem, sizeof elem, path, j);
    return fail_(r, elem, "%s", why);
}

/* ------------------------------------------------------------------------------------------ */
/* Whole-file checks                                                                          */

/* Duplicate object members are ambiguous (cJSON would silently use the first), so they are
 * refused anywhere in the file. `path` is a scratch buffer extended in place. */
static bool check_duplicate_keys(const tpReader *r, const cJSON *item, char *path, size_t cap)
{
    size_t len = strlen(path);
    if (cJSON_IsObject(item)) {
        int n = cJSON_GetArraySize(item);
        if (n > 1) {
            const char **keys = malloc((size_t)n * sizeof *keys);
            if (!keys) {
                return fail_(r, path, "out of memory");
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
                return fail_(r, path, "duplicate member \"%s\"", key);
            }
        }
        for (const cJSON *e = item->child; e; e = e->next) {
            if (cJSON_IsObject(e) || cJSON_IsArray(e)) {
                snprintf(path + len, cap - len, "%s%s", len ? "." : "", e->string ? e->string : "");
                if (!check_duplicate_keys(r, e, path, cap)) {
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
                if (!check_duplicate_keys(r, e, path, cap)) {
                    return false;
                }
                path[len] = '\0';
            }
        }
    }
    return true;
}

/* True if the text holds the escape "\u0001" (anywhere: a conservative test). */
static bool has_escape1(const char *text, size_t len)
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
static cJSON *parse(const tpReader *r, char *text, size_t len)
{
    if (len == 0) {
        fail_(r, NULL, "empty file (not a plan)");
        return NULL;
    }
    /* cJSON stops at a NUL byte and cuts strings at "\u0000": a file with either is damaged. */
    char why[256];
    if (!tpJson_CheckText(text, len, why, sizeof why)) {
        fail_(r, NULL, "invalid JSON: %s", why);
        return NULL;
    }
    /* A packed matrix's placeholder is a string starting with byte 0x01; a string the file spells
     * "\u0001..." would pass for one, so such files are read without packing. */
    if (!has_escape1(text, len)) {
        tpPlan_PackMatrices(text, len, r->packs);
    }
    size_t off = 0;
    cJSON *root = tpJson_ParseDocument(text, len, &off);
    if (root) {
        return root;
    }
    if (off == TP_JSON_NO_MEMORY) {
        fail_(r, NULL, "out of memory reading the JSON");
        return NULL;
    }
    size_t line, col;
    tpJson_LineColumn(text, len, off, &line, &col);
    fail_(r, NULL, "invalid JSON at line %zu, column %zu%s", line, col,
          tpJson_EndsOpen(text, len) ? " (the file ends inside an unclosed array, object or string: truncated?)" : "");
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Name lookup                                                                                */

typedef struct tpNameIndex {
    const char *name;
    int index;
} tpNameIndex;

static int compare_name_index(const void *a, const void *b)
{
    return strcmp(((const tpNameIndex *)a)->name, ((const tpNameIndex *)b)->name);
}

/* Sorted (name, index) table for lookups by name; names were checked to be unique. */
static tpNameIndex *make_index(const char *const *names, int n)
{
    tpNameIndex *ix = malloc(((size_t)n + 1) * sizeof *ix);
    if (ix) {
        for (int i = 0; i < n; ++i) {
            ix[i].name = names[i];
            ix[i].index = i;
        }
        qsort(ix, (size_t)n, sizeof *ix, compare_name_index);
    }
    return ix;
}

static int lookup_(const tpNameIndex *ix, int n, const char *name)
{
    tpNameIndex key = {name, 0};
    const tpNameIndex *hit = n ? bsearch(&key, ix, (size_t)n, sizeof *ix, compare_name_index) : NULL;
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
static bool read_limits(const tpReader *r, const cJSON *root, tpPlanRecord *rec)
{
    rec->max_static_penetration = rec->max_body_penetration = -1.0;
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "limits");
    if (!obj) {
        return true;
    }
    if (!cJSON_IsObject(obj)) {
        return fail_(r, "limits", "expected an object, got %s", type_name(obj));
    }
    if (!member_double(r, obj, "limits", "max_static_penetration", &rec->max_static_penetration) ||
        !member_double(r, obj, "limits", "max_body_penetration", &rec->max_body_penetration)) {
        return false;
    }
    if (!(rec->max_static_penetration >= 0 && rec->max_static_penetration <= 1000)) {
        return fail_(r, "limits.max_static_penetration", "%.17g is not a depth in [0, 1000] m",
                     rec->max_static_penetration);
    }
    if (!(rec->max_body_penetration >= 0 && rec->max_body_penetration <= 1000)) {
        return fail_(r, "limits.max_body_penetration", "%.17g is not a depth in [0, 1000] m",
                     rec->max_body_penetration);
    }
    return true;
}

/* Optional member "view": the domain's default camera. */
static bool read_view(const tpReader *r, const cJSON *root, tpPlanView *v)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "view");
    if (!obj) {
        return true;
    }
    if (!cJSON_IsObject(obj)) {
        return fail_(r, "view", "expected an object, got %s", type_name(obj));
    }
    if (!member_double(r, obj, "view", "yaw", &v->yaw) || !member_double(r, obj, "view", "pitch", &v->pitch) ||
        (cJSON_GetObjectItemCaseSensitive(obj, "distance") &&
         !member_double(r, obj, "view", "distance", &v->distance))) {
        return false;
    }
    const cJSON *tg = cJSON_GetObjectItemCaseSensitive(obj, "target");
    if (tg) {
        if (!cJSON_IsArray(tg) || cJSON_GetArraySize(tg) != 3) {
            return fail_(r, "view.target", "expected an array of 3 numbers");
        }
        for (int k = 0; k < 3; ++k) {
            if (!number_(r, cJSON_GetArrayItem(tg, k), "view.target", &v->target[k])) {
                return false;
            }
        }
        v->has_target = true;
    }
    if (!(v->distance >= 0) || !(fabs(v->pitch) <= 89.9)) {
        return fail_(r, "view", "distance must be >= 0 and pitch within -89.9..89.9 degrees");
    }
    v->set = true;
    return true;
}

static bool read_header(const tpReader *r, const cJSON *root, tpPlanRecord *rec, int *version_out)
{
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsString(fmt) || !fmt->valuestring) {
        return fail_(r, NULL, "not a tplan plan file (no \"format\": \"%s\" member)", TP_PLAN_FORMAT);
    }
    if (strcmp(fmt->valuestring, TP_PLAN_FORMAT) != 0) {
        return fail_(r, "format", "not a tplan plan file (format is \"%s\", expected \"%s\")", fmt->valuestring,
                     TP_PLAN_FORMAT);
    }
    /* The version is checked before anything else so that a newer file is reported as such
     * rather than as a list of missing or unexpected fields. */
    double version;
    if (!member_double(r, root, "", "version", &version)) {
        return false;
    }
    if (version != TP_PLAN_VERSION && version != TP_PLAN_VERSION_START && version != TP_PLAN_VERSION_MOTORS &&
        version != TP_PLAN_VERSION_PARTS) {
        return fail_(r, "version", "unsupported plan version %.17g (this tplan reads versions %d, %d, %d and %d)",
                     version, TP_PLAN_VERSION, TP_PLAN_VERSION_START, TP_PLAN_VERSION_MOTORS, TP_PLAN_VERSION_PARTS);
    }
    *version_out = (int)version;
    /* read_start reads it; version 3 (driven motors) may or may not start from a given state */
    rec->has_start = version == TP_PLAN_VERSION_START ||
                     (version >= TP_PLAN_VERSION_MOTORS && cJSON_GetObjectItemCaseSensitive(root, "start") != NULL);
    /* optional "tplan": the writer's version, three numbers */
    if (cJSON_GetObjectItemCaseSensitive(root, "tplan")) {
        if (!member_string(r, root, "", "tplan", &rec->tplan_version)) {
            return false;
        }
        unsigned a, b, c;
        char end;
        if (strlen(rec->tplan_version) > 32 || sscanf(rec->tplan_version, "%u.%u.%u%c", &a, &b, &c, &end) != 3) {
            return fail_(r, "tplan", "expected a version \"MAJOR.MINOR.PATCH\", got \"%.40s\"", rec->tplan_version);
        }
    }
    const cJSON *domain = member_(r, root, "", "domain", TP_T_OBJECT);
    if (!domain || !member_string(r, domain, "domain", "name", &rec->domain_name) ||
        !member_string(r, domain, "domain", "file", &rec->domain_file) ||
        !member_string(r, domain, "domain", "hash", &rec->domain_hash)) {
        return false;
    }
    if (!tpPlan_IsHashString(rec->domain_hash)) {
        return fail_(r, "domain.hash", "expected \"fnv1a64:\" and 16 lowercase hex digits, got \"%s\"",
                     rec->domain_hash);
    }
    double seed;
    if (!member_integer(r, root, "", "seed", 0, 4294967295.0, &seed)) {
        return false;
    }
    rec->seed = (uint32_t)seed;
    const cJSON *pl = member_(r, root, "", "planner", TP_T_OBJECT);
    if (!pl || !member_enum(r, pl, "planner", "algorithm", tpPlan_Algorithms, &rec->planner) ||
        !member_double(r, pl, "planner", "mu", &rec->mu) ||
        !member_int64(r, pl, "planner", "max_iters", &rec->max_iters) ||
        !member_double(r, pl, "planner", "time_limit", &rec->time_limit) ||
        !member_int(r, pl, "planner", "solutions", INT_MIN, INT_MAX, &rec->solutions_requested)) {
        return false;
    }
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(root, "overrides");
    if (ov) {
        if (!cJSON_IsObject(ov)) {
            return fail_(r, "overrides", "expected an object, got %s", type_name(ov));
        }
        char *text = cJSON_PrintUnformatted(ov);
        rec->overrides = text ? dup_(text) : NULL;
        cJSON_free(text);
        if (!rec->overrides) {
            return fail_(r, "overrides", "out of memory");
        }
    }
    if (!member_enum(r, root, "", "status", tpPlan_Statuses, &rec->status) ||
        !member_double(r, root, "", "dt", &rec->dt)) {
        return false;
    }
    if (!(rec->dt > 0.0 && rec->dt <= TP_PLAN_MAX_DT)) {
        return fail_(r, "dt", "%.17g is not a step length in (0, %g] s", rec->dt, TP_PLAN_MAX_DT);
    }
    return read_limits(r, root, rec) && read_view(r, root, &rec->view);
}

static bool read_bodies(tpReadState *st, const cJSON *root, int version)
{
    const tpReader *r = st->r;
    tpPlanRecord *rec = st->rec;
    const cJSON *arr = member_(r, root, "", "bodies", TP_T_ARRAY);
    if (!arr) {
        return false;
    }
    int n = cJSON_GetArraySize(arr);
    rec->bodies = calloc((size_t)n + 1, sizeof *rec->bodies);
    if (!rec->bodies) {
        return fail_(r, "bodies", "out of memory");
    }
    rec->nbodies = n;
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++i) {
        tpPlanBody *b = &rec->bodies[i];
        char base[TP_PATH_CAP], path[TP_PATH_CAP];
        join_index(base, sizeof base, "bodies", i);
        if (!cJSON_IsObject(o)) {
            return fail_(r, base, "expected an object, got %s", type_name(o));
        }
        if (!member_string(r, o, base, "name", &b->name) ||
            !member_enum(r, o, base, "class", tpPlan_Classes, &b->cls) ||
            !member_enum(r, o, base, "shape", tpPlan_Shapes, &b->shape)) {
            return false;
        }
        const cJSON *size = member_(r, o, base, "size", TP_T_ARRAY);
        join(path, sizeof path, base, "size");
        if (!size || !vector(r, size, path, -1, 4, b->size) || !check_size(r, path, b->shape, b->size)) {
            return false;
        }
        const cJSON *color = member_(r, o, base, "color", TP_T_ARRAY);
        double c[4];
        join(path, sizeof path, base, "color");
        if (!color || !vector(r, color, path, -1, 4, c)) {
            return false;
        }
        for (int j = 0; j < 4; ++j) {
            if (!(c[j] >= 0.0 && c[j] <= 1.0)) {
                char elem[TP_PATH_CAP];
                join_index(elem, sizeof elem, path, j);
                return fail_(r, elem, "%.17g is outside [0, 1]", c[j]);
            }
            b->color[j] = (float)c[j];
        }
        /* Whether a body moves or is controlled is stated by which arrays it carries. */
        const cJSON *traj = cJSON_GetObjectItemCaseSensitive(o, "trajectory");
        const cJSON *pose = cJSON_GetObjectItemCaseSensitive(o, "pose");
        b->moving = traj != NULL;
        b->controlled = cJSON_GetObjectItemCaseSensitive(o, "controls") != NULL;
        if (traj && pose) {
            return fail_(r, base, "has both \"trajectory\" (moving body) and \"pose\" (non-moving body)");
        }
        const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(o, "mesh");
        if (mesh && !read_body_mesh(r, mesh, base, b)) {
            return false;
        }
        if (!tpPlan_ReadParts(r->file, o, base, b, version, r->err, r->errlen)) {
            return false;
        }
        if (!traj) {
            if (!pose) {
                return fail_(r, base, "missing field \"pose\" (or \"trajectory\" for a moving body)");
            }
            join(path, sizeof path, base, "pose");
            if (!vector(r, pose, path, -1, TP_STATE_DOUBLES, b->pose) ||
                !check_ranges(r, path, -1, b->pose, 1, TP_STATE_DOUBLES, tpPlan_StateProblem)) {
                return false;
            }
        }
    }
    const char **names = malloc(((size_t)n + 1) * sizeof *names);
    if (!names) {
        return fail_(r, "bodies", "out of memory");
    }
    for (int k = 0; k < n; ++k) {
        names[k] = rec->bodies[k].name;
    }
    int a, b;
    bool dup = tpPlan_FindDuplicate(names, n, &a, &b);
    st->body_ix = dup ? NULL : make_index(names, n);
    free(names);
    if (dup) {
        char path[TP_PATH_CAP];
        snprintf(path, sizeof path, "bodies[%d].name", b);
        return fail_(r, path, "\"%s\" is also the name of bodies[%d]", rec->bodies[b].name, a);
    }
    return st->body_ix ? true : fail_(r, "bodies", "out of memory");
}

static bool read_tactics(tpReadState *st, const cJSON *root)
{
    const tpReader *r = st->r;
    tpPlanRecord *rec = st->rec;
    const cJSON *arr = member_(r, root, "", "tactics", TP_T_ARRAY);
    if (!arr) {
        return false;
    }
    int n = cJSON_GetArraySize(arr);
    rec->tactics = calloc((size_t)n + 1, sizeof *rec->tactics);
    if (!rec->tactics) {
        return fail_(r, "tactics", "out of memory");
    }
    rec->ntactics = n;
    int t = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++t) {
        tpPlanTactic *tac = &rec->tactics[t];
        char base[TP_PATH_CAP], path[TP_PATH_CAP];
        join_index(base, sizeof base, "tactics", t);
        if (!cJSON_IsObject(o)) {
            return fail_(r, base, "expected an object, got %s", type_name(o));
        }
        if (!member_string(r, o, base, "name", &tac->name) || !member_string(r, o, base, "body", &tac->body)) {
            return false;
        }
        if (lookup_(st->body_ix, rec->nbodies, tac->body) < 0) {
            join(path, sizeof path, base, "body");
            return fail_(r, path, "no body named \"%s\"", tac->body);
        }
        const cJSON *skills = member_(r, o, base, "skills", TP_T_ARRAY);
        if (!skills) {
            return false;
        }
        int ns = cJSON_GetArraySize(skills);
        tac->skills = calloc((size_t)ns + 1, sizeof *tac->skills);
        if (!tac->skills) {
            return fail_(r, base, "out of memory");
        }
        tac->nskills = ns;
        int s = 0;
        for (const cJSON *e = skills->child; e; e = e->next, ++s) {
            if (!cJSON_IsString(e) || !e->valuestring) {
                join(path, sizeof path, base, "skills");
                char elem[TP_PATH_CAP];
                join_index(elem, sizeof elem, path, s);
                return fail_(r, elem, "expected a string, got %s", type_name(e));
            }
            tac->skills[s] = dup_(e->valuestring);
            if (!tac->skills[s]) {
                return fail_(r, base, "out of memory");
            }
        }
    }
    const char **names = malloc(((size_t)n + 1) * sizeof *names);
    if (!names) {
        return fail_(r, "tactics", "out of memory");
    }
    for (int k = 0; k < n; ++k) {
        names[k] = rec->tactics[k].name;
    }
    int a, b;
    bool dup = tpPlan_FindDuplicate(names, n, &a, &b);
    st->tactic_ix = dup ? NULL : make_index(names, n);
    free(names);
    if (dup) {
        char path[TP_PATH_CAP];
        snprintf(path, sizeof path, "tactics[%d].name", b);
        return fail_(r, path, "\"%s\" is also the name of tactics[%d]", rec->tactics[b].name, a);
    }
    return st->tactic_ix ? true : fail_(r, "tactics", "out of memory");
}

/* Where one world's arrays are found in the file. The selected world keeps them inside the
 * bodies/tactics entries; an alternative keeps them in name-keyed objects. */
typedef struct tpWorldSource {
    int alt;              /* -1: the selected world; else the alternatives index */
    const cJSON **traj;   /* per body, NULL if not moving */
    const cJSON **ctrl;   /* per body, NULL if not controlled */
    const cJSON **active; /* per tactic */
} tpWorldSource;

static void source_path(char *out, size_t cap, const tpPlanRecord *rec, const tpWorldSource *src, int kind, int i)
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
static bool collect_map(tpReadState *st, const cJSON *alt, int k, int kind, const cJSON **slots)
{
    static const char *const keys[] = {"trajectories", "controls", "active"};
    const tpReader *r = st->r;
    const tpPlanRecord *rec = st->rec;
    char base[TP_PATH_CAP], path[TP_PATH_CAP];
    join_index(base, sizeof base, "alternatives", k);
    const cJSON *obj = member_(r, alt, base, keys[kind], TP_T_OBJECT);
    if (!obj) {
        return false;
    }
    join(path, sizeof path, base, keys[kind]);
    for (const cJSON *e = obj->child; e; e = e->next) {
        const char *name = e->string ? e->string : "";
        int i = kind == 2 ? lookup_(st->tactic_ix, rec->ntactics, name) : lookup_(st->body_ix, rec->nbodies, name);
        bool fits = i >= 0 && (kind == 2 || (kind == 0 ? rec->bodies[i].moving : rec->bodies[i].controlled));
        if (!fits) {
            static const char *const what[] = {"moving body", "controlled body", "tactic"};
            return fail_(r, path, "no %s named \"%s\"", what[kind], name);
        }
        slots[i] = e;
    }
    int n = kind == 2 ? rec->ntactics : rec->nbodies;
    for (int i = 0; i < n; ++i) {
        bool needed = kind == 2 || (kind == 0 ? rec->bodies[i].moving : rec->bodies[i].controlled);
        if (needed && !slots[i]) {
            return fail_(r, path, "missing entry for \"%s\"", kind == 2 ? rec->tactics[i].name : rec->bodies[i].name);
        }
    }
    return true;
}

/* Checks every array's length against `steps` before the world is allocated, so that an
 * absurd step count in a small file is refused instead of allocated. */
static bool check_lengths(const tpReader *r, const tpPlanRecord *rec, const tpWorldSource *src, int steps)
{
    char path[TP_PATH_CAP];
    for (int kind = 0; kind < 3; ++kind) {
        int n = kind == 2 ? rec->ntactics : rec->nbodies;
        const cJSON *const *items = kind == 0 ? src->traj : kind == 1 ? src->ctrl : src->active;
        for (int i = 0; i < n; ++i) {
            if (!items[i]) {
                continue;
            }
            source_path(path, sizeof path, rec, src, kind, i);
            const tpPlanPacked *pk = kind < 2 ? tpPlan_Packed(r->packs, items[i]) : NULL;
            if (!pk && !cJSON_IsArray(items[i])) {
                return fail_(r, path, "expected an array, got %s", type_name(items[i]));
            }
            int want = kind == 0 ? steps + 1 : steps;
            int got = pk ? pk->rows : cJSON_GetArraySize(items[i]);
            if (got != want) {
                return fail_(r, path, "expected %d %s (%s), got %d", want, kind == 2 ? "entries" : "rows",
                             kind == 0 ? "steps + 1" : "steps", got);
            }
        }
    }
    return true;
}

static bool fill_world(const tpReader *r, const tpPlanRecord *rec, const tpWorldSource *src, tpPlanWorld *w)
{
    char path[TP_PATH_CAP];
    for (int i = 0; i < rec->nbodies; ++i) {
        if (src->traj[i]) {
            source_path(path, sizeof path, rec, src, 0, i);
            if (!rows_(r, src->traj[i], path, TP_STATE_DOUBLES, w->traj[i]) ||
                !check_ranges(r, path, 0, w->traj[i], w->nsteps + 1, TP_STATE_DOUBLES, tpPlan_StateProblem)) {
                return false;
            }
        }
        if (src->ctrl[i]) {
            source_path(path, sizeof path, rec, src, 1, i);
            if (!rows_(r, src->ctrl[i], path, TP_CONTROL_DOUBLES, w->controls[i]) ||
                !check_ranges(r, path, 0, w->controls[i], w->nsteps, TP_CONTROL_DOUBLES, tpPlan_ControlProblem)) {
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
                source_path(path, sizeof path, rec, src, 2, t);
                join_index(elem, sizeof elem, path, s);
                if (!cJSON_IsNumber(e)) {
                    return fail_(r, elem, "expected a skill index, got %s", type_name(e));
                }
                return fail_(r, elem, "skill index %.17g out of range [0, %d) (tactic \"%s\")", v,
                             rec->tactics[t].nskills, rec->tactics[t].name);
            }
            w->active[t][s] = (int32_t)v;
        }
    }
    return true;
}

static bool read_world_targets(const tpReader *r, const tpPlanRecord *rec, const cJSON *root_or_alt, int k,
                               const char *base, tpPlanWorld *w);

static bool read_world(tpReadState *st, const cJSON *obj, int k, tpPlanWorld *w)
{
    const tpReader *r = st->r;
    tpPlanRecord *rec = st->rec;
    char base[TP_PATH_CAP] = "";
    if (k >= 0) {
        join_index(base, sizeof base, "alternatives", k);
        if (!cJSON_IsObject(obj)) {
            return fail_(r, base, "expected an object, got %s", type_name(obj));
        }
    }
    double cost;
    int steps;
    if (!member_int(r, obj, base, "steps", 0, INT_MAX - 1, &steps) || !member_double(r, obj, base, "cost", &cost)) {
        return false;
    }
    size_t nb = (size_t)rec->nbodies + 1, nt = (size_t)rec->ntactics + 1;
    tpWorldSource src = {k, calloc(nb, sizeof(cJSON *)), calloc(nb, sizeof(cJSON *)), calloc(nt, sizeof(cJSON *))};
    bool ok = src.traj && src.ctrl && src.active;
    if (!ok) {
        fail_(r, base, "out of memory");
    } else if (k < 0) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(obj, "bodies")->child;
        for (int i = 0; i < rec->nbodies; ++i, b = b->next) {
            src.traj[i] = cJSON_GetObjectItemCaseSensitive(b, "trajectory");
            src.ctrl[i] = cJSON_GetObjectItemCaseSensitive(b, "controls");
        }
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(obj, "tactics")->child;
        for (int i = 0; ok && i < rec->ntactics; ++i, t = t->next) {
            char tb[TP_PATH_CAP];
            join_index(tb, sizeof tb, "tactics", i);
            src.active[i] = member_(r, t, tb, "active", TP_T_ARRAY);
            ok = src.active[i] != NULL;
        }
    } else {
        ok = collect_map(st, obj, k, 0, src.traj) && collect_map(st, obj, k, 1, src.ctrl) &&
             collect_map(st, obj, k, 2, src.active);
    }
    ok = ok && check_lengths(r, rec, &src, steps);
    if (ok && !tpPlanWorld_Alloc(w, rec, steps)) {
        ok = fail_(r, base, "out of memory for %d steps", steps);
    }
    if (ok) {
        w->cost = cost;
        ok = fill_world(r, rec, &src, w) && read_world_targets(r, rec, obj, k, base, w);
    }
    free(src.traj);
    free(src.ctrl);
    free(src.active);
    return ok;
}

/* Optional stats.rejections (absent in files older than it, and when nothing was rejected). */
static bool read_rejections(const tpReader *r, const cJSON *s, tpPlanRecord *rec)
{
    const cJSON *rj = cJSON_GetObjectItemCaseSensitive(s, "rejections");
    if (!rj) {
        return true;
    }
    if (!cJSON_IsObject(rj)) {
        return fail_(r, "stats.rejections", "expected an object, got %s", type_name(rj));
    }
    for (const cJSON *e = rj->child; e; e = e->next) {
        int k = e->string ? tpRejectKind_Find(e->string) : -1;
        if (k < 0) {
            char list[160] = "";
            for (int j = 0; j < TP_REJECT_KINDS; ++j) {
                size_t n = strlen(list);
                snprintf(list + n, sizeof list - n, "%s%s", j ? ", " : "", tpRejectKind_Name((tpRejectKind)j));
            }
            return fail_(r, "stats.rejections", "unknown reason \"%.64s\" (expected one of %s)",
                         e->string ? e->string : "", list);
        }
        char base[TP_PATH_CAP];
        join(base, sizeof base, "stats.rejections", e->string);
        if (!cJSON_IsObject(e)) {
            return fail_(r, base, "expected an object, got %s", type_name(e));
        }
        for (const cJSON *m = e->child; m; m = m->next) {
            if (!m->string || (strcmp(m->string, "count") != 0 && strcmp(m->string, "iteration") != 0 &&
                               strcmp(m->string, "first") != 0)) {
                return fail_(r, base, "unknown field \"%.64s\" (expected count, iteration, first)",
                             m->string ? m->string : "");
            }
        }
        tpRejectStat *st = &rec->rejections[k];
        const cJSON *first = member_(r, e, base, "first", TP_T_STRING);
        if (!member_int64(r, e, base, "count", &st->count) || !member_int64(r, e, base, "iteration", &st->iteration) ||
            !first) {
            return false;
        }
        if (st->count < 1) {
            char path[TP_PATH_CAP];
            join(path, sizeof path, base, "count");
            return fail_(r, path, "must be >= 1 (a reason without rejections is left out), got %lld",
                         (long long)st->count);
        }
        size_t n = strlen(first->valuestring);
        if (n >= sizeof st->first) {
            char path[TP_PATH_CAP];
            join(path, sizeof path, base, "first");
            return fail_(r, path, "longer than %d bytes", TP_REJECT_TEXT_MAX - 1);
        }
        memcpy(st->first, first->valuestring, n + 1);
    }
    char field[128], why[256];
    if (!tpPlan_RejectionsProblem(rec, field, sizeof field, why, sizeof why)) {
        return fail_(r, field, "%s", why);
    }
    return true;
}

static bool read_stats(const tpReader *r, const cJSON *root, tpPlanRecord *rec)
{
    const cJSON *s = member_(r, root, "", "stats", TP_T_OBJECT);
    if (!s || !member_int64(r, s, "stats", "iterations", &rec->iterations) ||
        !member_int64(r, s, "stats", "nodes", &rec->nodes) ||
        !member_int64(r, s, "stats", "rejected", &rec->rejected) ||
        !member_int(r, s, "stats", "solutions", INT_MIN, INT_MAX, &rec->nsolutions) ||
        !member_int64(r, s, "stats", "memory_bytes", &rec->memory_bytes)) {
        return false;
    }
    /* optional (written by solved runs since the first-solution statistics were added) */
    rec->nodes_first = 0;
    rec->t_first = NAN;
    bool has_first = cJSON_GetObjectItemCaseSensitive(s, "first_solution_nodes") != NULL;
    if (has_first) {
        if (!member_int64(r, s, "stats", "first_solution_nodes", &rec->nodes_first)) {
            return false;
        }
        if (rec->nodes_first < 1 || rec->nodes_first > rec->nodes) {
            return fail_(r, "stats.first_solution_nodes", "must be in 1..nodes (%" PRId64 "), got %" PRId64, rec->nodes,
                         rec->nodes_first);
        }
    }
    const cJSON *rep = cJSON_GetObjectItemCaseSensitive(s, "report");
    if (rep) {
        if (!cJSON_IsObject(rep)) {
            return fail_(r, "stats.report", "expected an object, got %s", type_name(rep));
        }
        rec->nreports = 0;
        for (const cJSON *e = rep->child; e; e = e->next) {
            if (rec->nreports >= TP_PLAN_MAX_REPORTS) {
                return fail_(r, "stats.report", "at most %d entries", TP_PLAN_MAX_REPORTS);
            }
            if (!e->string || strlen(e->string) >= sizeof rec->report_names[0]) {
                return fail_(r, "stats.report", "entry %d: name missing or longer than 63 bytes", rec->nreports + 1);
            }
            if (!cJSON_IsNumber(e)) {
                return fail_(r, "stats.report", "%s: expected a number, got %s", e->string, type_name(e));
            }
            if (!isfinite(e->valuedouble)) {
                return fail_(r, "stats.report", "%s: number out of range", e->string);
            }
            tpStrCopy(rec->report_names[rec->nreports], sizeof rec->report_names[0], e->string);
            rec->report_values[rec->nreports++] = e->valuedouble;
        }
    }
    const cJSON *warn = cJSON_GetObjectItemCaseSensitive(s, "warnings");
    if (warn) {
        if (!cJSON_IsArray(warn)) {
            return fail_(r, "stats.warnings", "expected an array, got %s", type_name(warn));
        }
        int n = cJSON_GetArraySize(warn);
        if (n > TP_PLAN_MAX_WARNINGS) {
            return fail_(r, "stats.warnings", "at most %d entries (got %d)", TP_PLAN_MAX_WARNINGS, n);
        }
        rec->warnings = calloc((size_t)(n > 0 ? n : 1), sizeof *rec->warnings);
        if (!rec->warnings) {
            return fail_(r, "stats.warnings", "out of memory");
        }
        for (const cJSON *e = warn->child; e; e = e->next) {
            if (!cJSON_IsString(e) || !e->valuestring) {
                return fail_(r, "stats.warnings", "entry %d: expected a string, got %s", rec->nwarnings, type_name(e));
            }
            if (strlen(e->valuestring) >= TP_PLAN_MAX_WARNING_BYTES) {
                return fail_(r, "stats.warnings", "entry %d: longer than %d bytes", rec->nwarnings,
                             TP_PLAN_MAX_WARNING_BYTES - 1);
            }
            if (!(rec->warnings[rec->nwarnings] = dup_(e->valuestring))) {
                return fail_(r, "stats.warnings", "out of memory");
            }
            rec->nwarnings++;
        }
    }
    if (!read_rejections(r, s, rec)) {
        return false;
    }
    const cJSON *t = member_(r, s, "stats", "timing", TP_T_OBJECT);
    return t && member_double(r, t, "stats.timing", "select", &rec->t_select) &&
           member_double(r, t, "stats.timing", "tactics", &rec->t_tactics) &&
           member_double(r, t, "stats.timing", "physics", &rec->t_physics) &&
           member_double(r, t, "stats.timing", "check", &rec->t_check) &&
           member_double(r, t, "stats.timing", "total", &rec->t_total) &&
           (!has_first || member_double(r, t, "stats.timing", "first_solution", &rec->t_first));
}

/* Member "start" (version 2 only, and required there): the start time and the rest counts that are
 * not 0, by body name. */
static bool read_start(tpReadState *st, const cJSON *root)
{
    const tpReader *r = st->r;
    tpPlanRecord *rec = st->rec;
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "start");
    if (!rec->has_start) {
        return !obj || fail_(r, "start", "a version %d plan has no start state (version %d has)", TP_PLAN_VERSION,
                             TP_PLAN_VERSION_START);
    }
    if (!obj || !cJSON_IsObject(obj)) {
        return fail_(r, "start", "a version %d plan needs a start state: expected an object, got %s",
                     TP_PLAN_VERSION_START, obj ? type_name(obj) : "nothing");
    }
    for (const cJSON *m = obj->child; m; m = m->next) {
        if (strcmp(m->string, "time") != 0 && strcmp(m->string, "rest") != 0) {
            return fail_(r, "start", "unknown field \"%.64s\" (expected time, rest)", m->string);
        }
    }
    if (!member_double(r, obj, "start", "time", &rec->start_time)) {
        return false;
    }
    if (!(rec->start_time >= 0 && rec->start_time <= TP_PLAN_MAX_START_TIME)) {
        return fail_(r, "start.time", "%.17g is not a time in [0, %g] s", rec->start_time, TP_PLAN_MAX_START_TIME);
    }
    const cJSON *rest = member_(r, obj, "start", "rest", TP_T_OBJECT);
    rec->start_rest = rest ? calloc((size_t)rec->nbodies + 1, 1) : NULL;
    if (!rest) {
        return false;
    }
    if (!rec->start_rest) {
        return fail_(r, "start.rest", "out of memory");
    }
    for (const cJSON *m = rest->child; m; m = m->next) {
        char path[TP_PATH_CAP];
        snprintf(path, sizeof path, "start.rest.%.64s", m->string);
        const int b = lookup_(st->body_ix, rec->nbodies, m->string);
        if (b < 0 || !rec->bodies[b].moving) {
            return fail_(r, path, "%s", b < 0 ? "no such body" : "a static body has no rest count");
        }
        double v = cJSON_IsNumber(m) ? m->valuedouble : -1;
        if (!(v >= 0 && v <= 255 && v == floor(v))) {
            return fail_(r, path, "expected an integer in 0..255 (steps at rest)");
        }
        rec->start_rest[b] = (uint8_t)v;
    }
    return true;
}

/* Member "motors" (version 3 only, and required there): the driven motors, each {"joint", "axis",
 * "targets"}; the targets are read with the selected world (read_world). */
static bool read_motors(tpReadState *st, const cJSON *root, int version)
{
    const tpReader *r = st->r;
    tpPlanRecord *rec = st->rec;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "motors");
    if (version == TP_PLAN_VERSION_PARTS && !arr) {
        return true; /* version 4: driven motors optional */
    }
    if (version < TP_PLAN_VERSION_MOTORS) {
        return !arr || fail_(r, "motors", "a version %d plan has no driven motors (version %d has)", version,
                             TP_PLAN_VERSION_MOTORS);
    }
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1 || cJSON_GetArraySize(arr) > TP_PLAN_MAX_MOTORS) {
        return fail_(r, "motors", "a version %d plan needs 1 to %d driven motors: expected an array, got %s",
                     TP_PLAN_VERSION_MOTORS, TP_PLAN_MAX_MOTORS, arr ? type_name(arr) : "nothing");
    }
    const int n = cJSON_GetArraySize(arr);
    rec->motors = calloc((size_t)n, sizeof *rec->motors);
    if (!rec->motors) {
        return fail_(r, "motors", "out of memory");
    }
    rec->nmotors = n;
    int m = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++m) {
        char base[TP_PATH_CAP];
        join_index(base, sizeof base, "motors", m);
        if (!cJSON_IsObject(o)) {
            return fail_(r, base, "expected an object, got %s", type_name(o));
        }
        for (const cJSON *f = o->child; f; f = f->next) {
            if (strcmp(f->string, "joint") != 0 && strcmp(f->string, "axis") != 0 &&
                strcmp(f->string, "targets") != 0) {
                return fail_(r, base, "unknown field \"%.64s\" (expected joint, axis, targets)", f->string);
            }
        }
        int axis = 0;
        if (!member_string(r, o, base, "joint", &rec->motors[m].joint) ||
            !member_int(r, o, base, "axis", 1, 2, &axis)) {
            return false;
        }
        rec->motors[m].axis = axis - 1;
        if (!rec->motors[m].joint[0]) {
            return fail_(r, base, "joint: a driven motor's joint has a name");
        }
        for (int e = 0; e < m; ++e) {
            if (rec->motors[e].axis == rec->motors[m].axis && strcmp(rec->motors[e].joint, rec->motors[m].joint) == 0) {
                return fail_(r, base, "joint \"%s\" axis %d is also motors[%d]", rec->motors[m].joint, axis, e);
            }
        }
    }
    return true;
}

/* One motor's targets: an array of `steps` speeds, each within +-TP_PLAN_MAX_MOTOR_SPEED, into
 * column m of w->targets. */
static bool read_targets(const tpReader *r, const tpPlanRecord *rec, const cJSON *arr, const char *path, int m,
                         tpPlanWorld *w)
{
    if (!cJSON_IsArray(arr)) {
        return fail_(r, path, "expected an array of target speeds, got %s", arr ? type_name(arr) : "nothing");
    }
    if (cJSON_GetArraySize(arr) != w->nsteps) {
        return fail_(r, path, "expected %d targets (steps), got %d", w->nsteps, cJSON_GetArraySize(arr));
    }
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, ++i) {
        const double v = cJSON_IsNumber(e) ? e->valuedouble : NAN;
        if (!(fabs(v) <= TP_PLAN_MAX_MOTOR_SPEED)) {
            char elem[TP_PATH_CAP];
            join_index(elem, sizeof elem, path, i);
            return fail_(r, elem, "expected a target speed within +-%g (rad/s or m/s), got %s", TP_PLAN_MAX_MOTOR_SPEED,
                         cJSON_IsNumber(e) ? "a number beyond it" : type_name(e));
        }
        w->targets[(size_t)i * (size_t)rec->nmotors + (size_t)m] = v;
    }
    return true;
}

/* The driven motors' targets of world k (-1: the selected one, in "motors"; else the
 * alternative's "motor_targets", one array per motor). */
static bool read_world_targets(const tpReader *r, const tpPlanRecord *rec, const cJSON *root_or_alt, int k,
                               const char *base, tpPlanWorld *w)
{
    char path[TP_PATH_CAP];
    const cJSON *alt = k >= 0 ? cJSON_GetObjectItemCaseSensitive(root_or_alt, "motor_targets") : NULL;
    if (rec->nmotors == 0) {
        join(path, sizeof path, base, "motor_targets");
        return !alt || fail_(r, path, "the plan has no driven motors (no \"motors\")");
    }
    if (k < 0) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(root_or_alt, "motors")->child;
        for (int m = 0; m < rec->nmotors; ++m, o = o->next) {
            char entry[TP_PATH_CAP];
            join_index(entry, sizeof entry, "motors", m);
            join(path, sizeof path, entry, "targets");
            if (!read_targets(r, rec, cJSON_GetObjectItemCaseSensitive(o, "targets"), path, m, w)) {
                return false;
            }
        }
        return true;
    }
    join(path, sizeof path, base, "motor_targets");
    if (!cJSON_IsArray(alt) || cJSON_GetArraySize(alt) != rec->nmotors) {
        return fail_(r, path, "expected an array of %d target arrays (one per motor), got %s", rec->nmotors,
                     alt ? type_name(alt) : "nothing");
    }
    int m = 0;
    for (const cJSON *e = alt->child; e; e = e->next, ++m) {
        char elem[TP_PATH_CAP];
        join_index(elem, sizeof elem, path, m);
        if (!read_targets(r, rec, e, elem, m, w)) {
            return false;
        }
    }
    return true;
}

static bool read_record(tpReadState *st, const cJSON *root)
{
    const tpReader *r = st->r;
    tpPlanRecord *rec = st->rec;
    if (!cJSON_IsObject(root)) {
        return fail_(r, NULL, "not a tplan plan file (top level is %s, expected an object)", type_name(root));
    }
    int version = 0;
    if (!read_header(r, root, rec, &version)) {
        return false;
    }
    char path[TP_PATH_CAP] = "";
    if (!check_duplicate_keys(r, root, path, sizeof path)) {
        return false;
    }
    if (!read_bodies(st, root, version) || !read_tactics(st, root) || !read_start(st, root) ||
        !read_motors(st, root, version)) {
        return false;
    }
    const cJSON *alts = member_(r, root, "", "alternatives", TP_T_ARRAY);
    if (!alts) {
        return false;
    }
    int nalts = cJSON_GetArraySize(alts);
    if (nalts > INT_MAX - 1) {
        return fail_(r, "alternatives", "too many alternatives");
    }
    rec->worlds = calloc((size_t)nalts + 1, sizeof *rec->worlds);
    if (!rec->worlds) {
        return fail_(r, "alternatives", "out of memory");
    }
    rec->nworlds = nalts + 1;
    rec->selected = 0;
    if (!read_world(st, root, -1, &rec->worlds[0])) {
        return false;
    }
    int k = 0;
    for (const cJSON *a = alts->child; a; a = a->next, ++k) {
        if (!read_world(st, a, k, &rec->worlds[k + 1])) {
            return false;
        }
    }
    return read_stats(r, root, rec) && tpPlan_ReadOverlays(r->file, root, rec, r->err, r->errlen) &&
           tpPlan_ReadSources(r->file, root, rec, r->err, r->errlen) &&
           tpPlan_ReadGoal(r->file, root, rec, r->err, r->errlen) &&
           tpPlan_ReadJoints(r->file, root, rec, r->err, r->errlen) &&
           tpPlan_ReadTemporal(r->file, root, rec, r->err, r->errlen) &&
           tpPlan_ReadControl(r->file, root, rec, r->err, r->errlen) &&
           tpPlan_ReadWorlds(r->file, root, rec, r->err, r->errlen);
}

/* Reads the plan in text[0..len) (modified: matrices are packed in place); file names it. */
static bool read_text(tpPlanRecord *rec, const char *file, char *text, size_t len, char *err, size_t errlen)
{
    tpPlanPackTable packs = {0};
    const tpReader r = {file, err, errlen, &packs};
    cJSON *root = parse(&r, text, len);
    if (!root) {
        tpPlan_FreePacked(&packs);
        return false;
    }
    tpReadState st = {&r, rec, NULL, NULL};
    bool ok = read_record(&st, root);
    TP_INVARIANT(!ok || tpPlan_AllPackedTaken(&packs));
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
    bool ok = read_text(rec, path, text, len, err, errlen);
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
    bool ok = read_text(rec, name, copy, len, err, errlen);
    free(copy);
    return ok;
}
