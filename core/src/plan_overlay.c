/* Navigation overlays of a plan recording: lifetime, the recording sink, and the "overlays"
 * member of the plan file (writer check, writer, reader). Format in docs/plan-format.md.
 *
 * Encodings (compact but exact, so a file read and written again is byte-identical):
 *   grid    "cells": run-length string of "<count><c>" runs, c '.' free, '#' obstacle, '+' grown
 *   field   "log10u": nx*ny numbers (rounded by the producer), null where u = 0
 *   window  "levels": 2 lowercase hex digits per cell, "ff" = no value; "vmin" = log10 u of level 0
 *   path    "points": [[x, y], ...]
 *   tree    "nodes": [[x, y, parent], ...] (parent -1 for the root, else an earlier node),
 *           "chosen": indices of the nodes on the chosen clip sequence, root first */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/base.h"
#include "tp/plan.h"
#include "tp/util.h"

#define TP_OVERLAY_MAX_CELLS (1 << 26)
#define TP_OVERLAY_MAX_POINTS (1 << 24)
/* Grid cells of all grid overlays of a plan together (as many as one grid may have). A grid's
 * run-length string is tiny ("67108864." is a whole 2^26-cell grid), so without this budget a few
 * kilobytes of plan made the reader allocate gigabytes; fields and windows spell out every cell and
 * are bounded by the file's size. */
#define TP_OVERLAY_MAX_GRID_TOTAL ((size_t)1 << 26)

static const char *const k_kind_names[TP_OVERLAY_KIND_COUNT] = {"grid", "field", "path", "window", "tree"};
static const char k_cell_chars[3] = {'.', '#', '+'};

const char *tpOverlayKind_Name(tpOverlayKind kind)
{
    return kind >= 0 && kind < TP_OVERLAY_KIND_COUNT ? k_kind_names[kind] : NULL;
}

void tpPlanOverlay_Free(tpPlanOverlay *ov)
{
    if (!ov) {
        return;
    }
    free(ov->cells);
    free(ov->values);
    free(ov->levels);
    free(ov->points);
    free(ov->parent);
    free(ov->chosen);
    memset(ov, 0, sizeof *ov);
}

void tpPlan_FreeOverlays(tpPlanRecord *rec)
{
    if (rec->overlays) {
        for (int k = 0; k < rec->noverlays; ++k) {
            tpPlanOverlay_Free(&rec->overlays[k]);
        }
    }
    free(rec->overlays);
    rec->overlays = NULL;
    rec->noverlays = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Sink                                                                                       */

static bool sameBytes(const void *a, const void *b, size_t n)
{
    return (a == NULL) == (b == NULL) && (!a || memcmp(a, b, n) == 0);
}

/* Same content (geometry and arrays; not the owner or the steps). NaN values compare by bits. */
static bool sameContent(const tpPlanOverlay *a, const tpPlanOverlay *b)
{
    if (a->kind != b->kind || a->nx != b->nx || a->ny != b->ny || a->npoints != b->npoints ||
        memcmp(a->origin, b->origin, sizeof a->origin) != 0 || memcmp(&a->cell, &b->cell, sizeof a->cell) != 0 ||
        memcmp(&a->vmin, &b->vmin, sizeof a->vmin) != 0) {
        return false;
    }
    size_t nc = (size_t)a->nx * (size_t)a->ny, np = (size_t)a->npoints;
    return sameBytes(a->cells, b->cells, nc) && sameBytes(a->values, b->values, nc * sizeof(double)) &&
           sameBytes(a->levels, b->levels, nc) && sameBytes(a->points, b->points, 2 * np * sizeof(double)) &&
           sameBytes(a->parent, b->parent, np * sizeof(int32_t)) && sameBytes(a->chosen, b->chosen, np);
}

void tpOverlaySink_Add(tpOverlaySink *s, tpPlanOverlay *item)
{
    if (s->failed) {
        tpPlanOverlay_Free(item);
        return;
    }
    for (int k = s->n - 1; k >= 0; --k) { /* the latest item of this owner and kind */
        tpPlanOverlay *o = &s->items[k];
        if (o->tactic == s->tactic && o->kind == item->kind) {
            if ((o->last < 0 || o->last == s->step - 1) && sameContent(o, item)) {
                o->last = -1; /* the same content again, right after: one item over both ranges */
                tpPlanOverlay_Free(item);
                return;
            }
            if (o->last < 0) {
                o->last = s->step > o->first ? s->step - 1 : o->first;
            }
            break;
        }
    }
    tpPlanOverlay *bigger = tpArray_Grow(s->items, &s->cap, (size_t)s->n + 1, sizeof *bigger);
    if (!bigger) {
        s->failed = true;
        tpPlanOverlay_Free(item);
        return;
    }
    s->items = bigger;
    item->tactic = s->tactic;
    item->first = s->step;
    item->last = -1;
    s->items[s->n++] = *item;
    memset(item, 0, sizeof *item);
}

void tpOverlaySink_Close(tpOverlaySink *s, int tactic, int last)
{
    for (int k = 0; k < s->n; ++k) {
        tpPlanOverlay *o = &s->items[k];
        if (o->last < 0 && (tactic < 0 || o->tactic == tactic)) {
            o->last = last > o->first ? last : o->first;
        }
    }
}

bool tpOverlaySink_Take(tpOverlaySink *s, tpPlanRecord *rec)
{
    if (s->failed) {
        tpOverlaySink_Free(s);
        return false;
    }
    tpPlan_FreeOverlays(rec);
    rec->overlays = s->items;
    rec->noverlays = s->n;
    memset(s, 0, sizeof *s);
    return true;
}

void tpOverlaySink_Free(tpOverlaySink *s)
{
    for (int k = 0; k < s->n; ++k) {
        tpPlanOverlay_Free(&s->items[k]);
    }
    free(s->items);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------------------------------------ */
/* Checks shared by the writer and the reader                                                 */

/* Describes the first problem of one overlay in msg (empty when fine). The reader has already
 * checked types and counts; this checks the values and the references. */
static void checkOverlay(const tpPlanRecord *rec, const tpPlanOverlay *o, char *msg, size_t cap)
{
    msg[0] = '\0';
    int nsteps = rec->nworlds > 0 ? rec->worlds[rec->selected].nsteps : 0;
    int maxstep = nsteps > 0 ? nsteps - 1 : 0;
    if (o->kind < 0 || o->kind >= TP_OVERLAY_KIND_COUNT) {
        snprintf(msg, cap, "kind: unknown kind %d", (int)o->kind);
    } else if (o->tactic < 0 || o->tactic >= rec->ntactics) {
        snprintf(msg, cap, "tactic: index %d out of range [0, %d)", o->tactic, rec->ntactics);
    } else if (o->first < 0 || o->last < o->first || o->last > maxstep) {
        snprintf(msg, cap, "steps: [%d, %d] is not a step range within [0, %d]", o->first, o->last, maxstep);
    } else if (o->kind == TP_OVERLAY_GRID || o->kind == TP_OVERLAY_FIELD || o->kind == TP_OVERLAY_WINDOW) {
        size_t nc = (size_t)o->nx * (size_t)o->ny;
        if (!isfinite(o->origin[0]) || !isfinite(o->origin[1])) {
            snprintf(msg, cap, "origin: not finite");
        } else if (!(o->cell > 0) || !isfinite(o->cell)) {
            snprintf(msg, cap, "cell: %g is not a positive cell size", o->cell);
        } else if (o->nx < 1 || o->ny < 1 || nc > TP_OVERLAY_MAX_CELLS) {
            snprintf(msg, cap, "size: %d x %d cells (each >= 1, at most %d in all)", o->nx, o->ny,
                     TP_OVERLAY_MAX_CELLS);
        } else if (o->kind == TP_OVERLAY_GRID) {
            for (size_t k = 0; k < nc && o->cells; ++k) {
                if (o->cells[k] > 2) {
                    snprintf(msg, cap, "cells: cell %zu has flag %d (0 free, 1 obstacle, 2 grown)", k, o->cells[k]);
                    return;
                }
            }
            if (!o->cells) {
                snprintf(msg, cap, "cells: missing");
            }
        } else if (o->kind == TP_OVERLAY_FIELD) {
            for (size_t k = 0; k < nc && o->values; ++k) {
                if (isinf(o->values[k])) {
                    snprintf(msg, cap, "log10u[%zu]: not a finite number", k);
                    return;
                }
            }
            if (!o->values) {
                snprintf(msg, cap, "log10u: missing");
            }
        } else if (!o->levels) {
            snprintf(msg, cap, "levels: missing");
        } else if (!(o->vmin < 0) || !isfinite(o->vmin)) {
            snprintf(msg, cap, "vmin: %g must be a finite negative number", o->vmin);
        }
    } else {
        const char *what = o->kind == TP_OVERLAY_PATH ? "points" : "nodes";
        if (o->npoints < 1 || o->npoints > TP_OVERLAY_MAX_POINTS || !o->points) {
            snprintf(msg, cap, "%s: %d entries (1 .. %d expected)", what, o->npoints, TP_OVERLAY_MAX_POINTS);
            return;
        }
        for (int k = 0; k < 2 * o->npoints; ++k) {
            if (!isfinite(o->points[k])) {
                snprintf(msg, cap, "%s[%d]: not a finite position", what, k / 2);
                return;
            }
        }
        if (o->kind == TP_OVERLAY_TREE) {
            if (!o->parent || !o->chosen) {
                snprintf(msg, cap, "nodes: parents missing");
                return;
            }
            for (int k = 0; k < o->npoints; ++k) {
                int32_t p = o->parent[k];
                if (k == 0 ? p != -1 : (p < 0 || p >= k)) {
                    snprintf(msg, cap, "nodes[%d]: parent %d (the root has -1, every other node an earlier node)", k,
                             (int)p);
                    return;
                }
                if (o->chosen[k] > 1) {
                    snprintf(msg, cap, "chosen: bad flag of node %d", k);
                    return;
                }
            }
        }
    }
}

bool tpPlan_CheckOverlays(const tpPlanRecord *rec, char *err, size_t errlen)
{
    if (rec->noverlays < 0 || (rec->noverlays > 0 && !rec->overlays)) {
        tpErrorf(err, errlen, "overlays: invalid count %d", rec->noverlays);
        return false;
    }
    char msg[256];
    size_t grid_total = 0;
    for (int k = 0; k < rec->noverlays; ++k) {
        const tpPlanOverlay *o = &rec->overlays[k];
        checkOverlay(rec, o, msg, sizeof msg);
        if (msg[0]) {
            tpErrorf(err, errlen, "overlays[%d].%s", k, msg);
            return false;
        }
        if (o->kind == TP_OVERLAY_GRID) {
            grid_total += (size_t)o->nx * (size_t)o->ny;
            if (grid_total > TP_OVERLAY_MAX_GRID_TOTAL) {
                tpErrorf(err, errlen, "overlays[%d].size: the grids hold more than %zu cells in all", k,
                         TP_OVERLAY_MAX_GRID_TOTAL);
                return false;
            }
        }
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Writer                                                                                     */

static void putPair(FILE *f, double a, double b)
{
    fputc('[', f);
    tpPlan_PutDouble(f, a);
    fputs(", ", f);
    tpPlan_PutDouble(f, b);
    fputc(']', f);
}

static void putOverlay(FILE *f, const tpPlanRecord *rec, const tpPlanOverlay *o)
{
    fprintf(f, "    {\"kind\": \"%s\", \"tactic\": ", k_kind_names[o->kind]);
    tpPlan_PutString(f, rec->tactics[o->tactic].name);
    fprintf(f, ", \"steps\": [%d, %d]", o->first, o->last);
    size_t nc = (size_t)o->nx * (size_t)o->ny;
    if (o->kind == TP_OVERLAY_GRID || o->kind == TP_OVERLAY_FIELD || o->kind == TP_OVERLAY_WINDOW) {
        fputs(",\n      \"origin\": ", f);
        putPair(f, o->origin[0], o->origin[1]);
        fputs(", \"cell\": ", f);
        tpPlan_PutDouble(f, o->cell);
        fprintf(f, ", \"size\": [%d, %d]", o->nx, o->ny);
    }
    switch (o->kind) {
    case TP_OVERLAY_GRID:
        fputs(",\n      \"cells\": \"", f);
        for (size_t k = 0; k < nc;) {
            size_t run = 1;
            while (k + run < nc && o->cells[k + run] == o->cells[k]) {
                ++run;
            }
            fprintf(f, "%zu%c", run, k_cell_chars[o->cells[k]]);
            k += run;
        }
        fputc('"', f);
        break;
    case TP_OVERLAY_FIELD:
        fputs(",\n      \"log10u\": [", f);
        for (size_t k = 0; k < nc; ++k) {
            fputs(k == 0 ? "" : (k % (size_t)o->nx == 0 ? ",\n        " : ", "), f);
            if (isnan(o->values[k])) {
                fputs("null", f);
            } else {
                tpPlan_PutDouble(f, o->values[k]);
            }
        }
        fputc(']', f);
        break;
    case TP_OVERLAY_WINDOW:
        fputs(", \"vmin\": ", f);
        tpPlan_PutDouble(f, o->vmin);
        fputs(",\n      \"levels\": \"", f);
        for (size_t k = 0; k < nc; ++k) {
            fprintf(f, "%02x", o->levels[k]);
        }
        fputc('"', f);
        break;
    case TP_OVERLAY_PATH:
        fputs(",\n      \"points\": [", f);
        for (int k = 0; k < o->npoints; ++k) {
            fputs(k ? ", " : "", f);
            putPair(f, o->points[2 * k], o->points[2 * k + 1]);
        }
        fputc(']', f);
        break;
    case TP_OVERLAY_TREE:
        fputs(",\n      \"nodes\": [", f);
        for (int k = 0; k < o->npoints; ++k) {
            fputs(k == 0 ? "[" : (k % 8 == 0 ? ",\n        [" : ", ["), f);
            tpPlan_PutDouble(f, o->points[2 * k]);
            fputs(", ", f);
            tpPlan_PutDouble(f, o->points[2 * k + 1]);
            fprintf(f, ", %d]", (int)o->parent[k]);
        }
        fputs("],\n      \"chosen\": [", f);
        bool first = true;
        for (int k = 0; k < o->npoints; ++k) {
            if (o->chosen[k]) {
                fprintf(f, first ? "%d" : ", %d", k);
                first = false;
            }
        }
        fputc(']', f);
        break;
    default:
        break;
    }
    fputc('}', f);
}

void tpPlan_PutOverlays(FILE *f, const tpPlanRecord *rec)
{
    if (rec->noverlays <= 0) {
        return;
    }
    fputs("  \"overlays\": [\n", f);
    for (int k = 0; k < rec->noverlays; ++k) {
        putOverlay(f, rec, &rec->overlays[k]);
        fputs(k + 1 < rec->noverlays ? ",\n" : "\n", f);
    }
    fputs("  ],\n", f);
}

/* ------------------------------------------------------------------------------------------ */
/* Reader                                                                                     */

typedef struct OvReader {
    const char *file;
    char *err;
    size_t errlen;
    int index;          /* overlays[index] */
    size_t *grid_total; /* cells of the grids read so far */
} OvReader;

static bool ovFail(const OvReader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool ovFail(const OvReader *r, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->index < 0) {
        tpErrorf(r->err, r->errlen, "%s: overlays: %s", r->file, msg);
    } else {
        tpErrorf(r->err, r->errlen, "%s: overlays[%d].%s", r->file, r->index, msg);
    }
    return false;
}

static const cJSON *ovMember(const OvReader *r, const cJSON *o, const char *key)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!m) {
        ovFail(r, "%s: missing", key);
    }
    return m;
}

static bool ovNumber(const cJSON *e, double *out)
{
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
        return false;
    }
    *out = e->valuedouble;
    return true;
}

static bool ovInt(const cJSON *e, double lo, double hi, int *out)
{
    double v;
    if (!ovNumber(e, &v) || v != floor(v) || v < lo || v > hi) {
        return false;
    }
    *out = (int)v;
    return true;
}

/* A fixed-length array of numbers. */
static bool ovNumbers(const cJSON *a, int n, double *out)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) {
        return false;
    }
    int k = 0;
    for (const cJSON *e = a->child; e; e = e->next) {
        if (!ovNumber(e, &out[k++])) {
            return false;
        }
    }
    return true;
}

static int hexDigit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool ovGeometry(const OvReader *r, const cJSON *o, tpPlanOverlay *ov)
{
    const cJSON *m;
    double size[2];
    if (!(m = ovMember(r, o, "origin")) || !ovNumbers(m, 2, ov->origin)) {
        return m ? ovFail(r, "origin: expected 2 numbers") : false;
    }
    if (!(m = ovMember(r, o, "cell")) || !ovNumber(m, &ov->cell) || !(ov->cell > 0)) {
        return m ? ovFail(r, "cell: expected a positive number") : false;
    }
    if (!(m = ovMember(r, o, "size")) || !ovNumbers(m, 2, size)) {
        return m ? ovFail(r, "size: expected 2 numbers") : false;
    }
    if (size[0] != floor(size[0]) || size[1] != floor(size[1]) || size[0] < 1 || size[1] < 1 ||
        size[0] * size[1] > TP_OVERLAY_MAX_CELLS) {
        return ovFail(r, "size: [%g, %g] is not a cell count (integers >= 1, at most %d cells)", size[0], size[1],
                      TP_OVERLAY_MAX_CELLS);
    }
    ov->nx = (int)size[0];
    ov->ny = (int)size[1];
    return true;
}

static bool ovReadGrid(const OvReader *r, const cJSON *o, tpPlanOverlay *ov)
{
    const cJSON *m = ovMember(r, o, "cells");
    if (!m) {
        return false;
    }
    if (!cJSON_IsString(m) || !m->valuestring) {
        return ovFail(r, "cells: expected a run-length string");
    }
    size_t nc = (size_t)ov->nx * (size_t)ov->ny, at = 0;
    if (nc > TP_OVERLAY_MAX_GRID_TOTAL - *r->grid_total) {
        return ovFail(r, "size: the grids hold more than %zu cells in all", TP_OVERLAY_MAX_GRID_TOTAL);
    }
    *r->grid_total += nc;
    if (!(ov->cells = malloc(nc))) {
        return ovFail(r, "cells: out of memory");
    }
    for (const char *p = m->valuestring; *p;) {
        size_t run = 0;
        const char *start = p;
        while (*p >= '0' && *p <= '9' && run <= nc) {
            run = run * 10 + (size_t)(*p++ - '0');
        }
        const char *c = *p ? memchr(k_cell_chars, *p, sizeof k_cell_chars) : NULL;
        if (p == start || run == 0 || !c) {
            return ovFail(r, "cells: bad run at character %d (expected a count and one of '.', '#', '+')",
                          (int)(start - m->valuestring));
        }
        if (run > nc - at) {
            return ovFail(r, "cells: the runs cover more than the %zu cells of the grid", nc);
        }
        memset(ov->cells + at, (int)(c - k_cell_chars), run);
        at += run;
        ++p;
    }
    return at == nc ? true : ovFail(r, "cells: the runs cover %zu of the %zu cells", at, nc);
}

static bool ovReadField(const OvReader *r, const cJSON *o, tpPlanOverlay *ov)
{
    const cJSON *m = ovMember(r, o, "log10u");
    size_t nc = (size_t)ov->nx * (size_t)ov->ny;
    if (!m) {
        return false;
    }
    if (!cJSON_IsArray(m) || (size_t)cJSON_GetArraySize(m) != nc) {
        return ovFail(r, "log10u: expected an array of %zu numbers (size)", nc);
    }
    if (!(ov->values = malloc(nc * sizeof *ov->values))) {
        return ovFail(r, "log10u: out of memory");
    }
    size_t k = 0;
    for (const cJSON *e = m->child; e; e = e->next, ++k) {
        if (cJSON_IsNull(e)) {
            ov->values[k] = NAN;
        } else if (!ovNumber(e, &ov->values[k])) {
            return ovFail(r, "log10u[%zu]: expected a number or null", k);
        }
    }
    return true;
}

static bool ovReadWindow(const OvReader *r, const cJSON *o, tpPlanOverlay *ov)
{
    const cJSON *m = ovMember(r, o, "vmin");
    if (!m) {
        return false;
    }
    if (!ovNumber(m, &ov->vmin) || !(ov->vmin < 0)) {
        return ovFail(r, "vmin: expected a negative number");
    }
    if (!(m = ovMember(r, o, "levels"))) {
        return false;
    }
    size_t nc = (size_t)ov->nx * (size_t)ov->ny;
    if (!cJSON_IsString(m) || !m->valuestring || strlen(m->valuestring) != 2 * nc) {
        return ovFail(r, "levels: expected a string of %zu hex digits (2 per cell)", 2 * nc);
    }
    if (!(ov->levels = malloc(nc))) {
        return ovFail(r, "levels: out of memory");
    }
    for (size_t k = 0; k < nc; ++k) {
        int hi = hexDigit(m->valuestring[2 * k]), lo = hexDigit(m->valuestring[2 * k + 1]);
        if (hi < 0 || lo < 0) {
            return ovFail(r, "levels: not a lowercase hex digit at character %zu", 2 * k + (hi < 0 ? 0 : 1));
        }
        ov->levels[k] = (uint8_t)(16 * hi + lo);
    }
    return true;
}

static bool ovReadPoints(const OvReader *r, const cJSON *o, tpPlanOverlay *ov, const char *key, int width)
{
    const cJSON *m = ovMember(r, o, key);
    if (!m) {
        return false;
    }
    int n = cJSON_IsArray(m) ? cJSON_GetArraySize(m) : 0;
    if (n < 1 || n > TP_OVERLAY_MAX_POINTS) {
        return ovFail(r, "%s: expected an array of 1 .. %d entries", key, TP_OVERLAY_MAX_POINTS);
    }
    ov->npoints = n;
    ov->points = malloc(2 * (size_t)n * sizeof *ov->points);
    if (width == 3) {
        ov->parent = malloc((size_t)n * sizeof *ov->parent);
        ov->chosen = calloc((size_t)n, 1);
    }
    if (!ov->points || (width == 3 && (!ov->parent || !ov->chosen))) {
        return ovFail(r, "%s: out of memory", key);
    }
    int k = 0;
    for (const cJSON *e = m->child; e; e = e->next, ++k) {
        double v[3];
        if (!ovNumbers(e, width, v)) {
            return ovFail(r, "%s[%d]: expected %d numbers", key, k, width);
        }
        ov->points[2 * k] = v[0];
        ov->points[2 * k + 1] = v[1];
        if (width == 3) {
            if (v[2] != floor(v[2]) || (k == 0 ? v[2] != -1 : (v[2] < 0 || v[2] >= k))) {
                return ovFail(r, "%s[%d]: parent %g (the root has -1, every other node an earlier node)", key, k, v[2]);
            }
            ov->parent[k] = (int32_t)v[2];
        }
    }
    if (width == 3) {
        const cJSON *c = ovMember(r, o, "chosen");
        if (!c) {
            return false;
        }
        if (!cJSON_IsArray(c)) {
            return ovFail(r, "chosen: expected an array of node indices");
        }
        int q = 0;
        for (const cJSON *e = c->child; e; e = e->next, ++q) {
            int id;
            if (!ovInt(e, 0, n - 1, &id)) {
                return ovFail(r, "chosen[%d]: expected a node index in [0, %d)", q, n);
            }
            ov->chosen[id] = 1;
        }
    }
    return true;
}

static bool ovReadOne(const OvReader *r, const tpPlanRecord *rec, const cJSON *o, tpPlanOverlay *ov)
{
    if (!cJSON_IsObject(o)) {
        return ovFail(r, "expected an object");
    }
    const cJSON *m = ovMember(r, o, "kind");
    if (!m) {
        return false;
    }
    int kind = -1;
    for (int k = 0; k < TP_OVERLAY_KIND_COUNT && cJSON_IsString(m) && m->valuestring; ++k) {
        if (strcmp(m->valuestring, k_kind_names[k]) == 0) {
            kind = k;
        }
    }
    if (kind < 0) {
        return ovFail(r, "kind: expected one of \"grid\", \"field\", \"path\", \"window\", \"tree\"");
    }
    ov->kind = (tpOverlayKind)kind;
    if (!(m = ovMember(r, o, "tactic"))) {
        return false;
    }
    ov->tactic = -1;
    for (int t = 0; t < rec->ntactics && cJSON_IsString(m) && m->valuestring; ++t) {
        if (strcmp(rec->tactics[t].name, m->valuestring) == 0) {
            ov->tactic = t;
            break;
        }
    }
    if (ov->tactic < 0) {
        return ovFail(r, "tactic: no tactic named %s%s%s", cJSON_IsString(m) ? "\"" : "",
                      cJSON_IsString(m) && m->valuestring ? m->valuestring : "(not a string)",
                      cJSON_IsString(m) ? "\"" : "");
    }
    if (!(m = ovMember(r, o, "steps"))) {
        return false;
    }
    if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) != 2 || !ovInt(m->child, 0, INT32_MAX, &ov->first) ||
        !ovInt(m->child->next, 0, INT32_MAX, &ov->last)) {
        return ovFail(r, "steps: expected [first, last] step indices");
    }
    bool ok;
    switch (ov->kind) {
    case TP_OVERLAY_GRID:
        ok = ovGeometry(r, o, ov) && ovReadGrid(r, o, ov);
        break;
    case TP_OVERLAY_FIELD:
        ok = ovGeometry(r, o, ov) && ovReadField(r, o, ov);
        break;
    case TP_OVERLAY_WINDOW:
        ok = ovGeometry(r, o, ov) && ovReadWindow(r, o, ov);
        break;
    case TP_OVERLAY_PATH:
        ok = ovReadPoints(r, o, ov, "points", 2);
        break;
    default:
        ok = ovReadPoints(r, o, ov, "nodes", 3);
        break;
    }
    if (!ok) {
        return false;
    }
    char msg[256];
    checkOverlay(rec, ov, msg, sizeof msg);
    return msg[0] ? ovFail(r, "%s", msg) : true;
}

bool tpPlan_ReadOverlays(const char *file, const cJSON *root, tpPlanRecord *rec, char *err, size_t errlen)
{
    size_t grid_total = 0;
    OvReader r = {file, err, errlen, -1, &grid_total};
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "overlays");
    if (!arr) {
        return true; /* optional: plans without overlays (and older plans) */
    }
    if (!cJSON_IsArray(arr)) {
        return ovFail(&r, "expected an array");
    }
    int n = cJSON_GetArraySize(arr);
    rec->overlays = calloc((size_t)n + 1, sizeof *rec->overlays);
    if (!rec->overlays) {
        return ovFail(&r, "out of memory");
    }
    rec->noverlays = n;
    int k = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++k) {
        r.index = k;
        if (!ovReadOne(&r, rec, o, &rec->overlays[k])) {
            return false;
        }
    }
    return true;
}
