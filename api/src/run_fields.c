/* The run definition (tplan_run_def): defaults, ranges, the JSON reader and writer (tp/run_def.h).
 * The one place where a field of "a planning run" is defined: the command line, the service's
 * worker and the embedding API all read into this struct and check it here. Its own small library
 * (tp_rundef: core and cJSON, no Lua, no ODE), so that the service reads requests with it without
 * linking the planner. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/json_text.h"
#include "tp/run_def.h"
#include "tp/run_fields.h"

void tpRun_Fail(tplan_error *err, tplan_code code, const char *field, const char *fmt, ...)
{
    if (!err) {
        return;
    }
    err->code = code;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    for (char *p = err->message; *p; ++p) { /* one line */
        if (*p == '\n' || *p == '\r') {
            *p = ' ';
        }
    }
}

static void run_ok(tplan_error *err)
{
    if (err) {
        err->code = TPLAN_OK;
        err->field[0] = '\0';
        err->message[0] = '\0';
    }
}

/* ---- the table ---------------------------------------------------------------------------- */

#define TP_OFF(member) offsetof(tplan_run_def, member)
#define TP_JSON_INT_MAX 9007199254740992.0 /* 2^53: a double holds every integer up to it */

/* One row per field; the JSON writer's order. A column left out is 0 / NULL / false; svc_lo and
   svc_hi are NAN where the service takes the library's range (TP_SVC_LIB). */
#define TP_SVC_LIB .svc_lo = NAN, .svc_hi = NAN
// clang-format off
const tpRunField tpRun_Fields[] = {
    {.name = "planner", .type = TP_RUNF_PLANNER, .offset = TP_OFF(planner), .init = TPLAN_PLANNER_DOMAIN,
     .lo = TPLAN_PLANNER_RRT, .hi = TPLAN_PLANNER_BGT, .has_unset = true, .unset = TPLAN_PLANNER_DOMAIN,
     .unset_means = "the domain's", .unit = "", .flag = "--planner", .arg = "rrt|bgt",
     .help = "BK-RRT (nearest neighbour toward samples) or BK-BGT (balanced growth)",
     .who = TP_RUNF_CLI | TP_RUNF_SERVICE, TP_SVC_LIB},
    {.name = "mu", .type = TP_RUNF_DOUBLE, .offset = TP_OFF(mu), .init = 0, .lo = 0, .lo_open = true, .hi = INFINITY,
     .has_unset = true, .unset = 0, .unset_means = "the domain's", .unit = "", .flag = "--mu", .arg = "M",
     .help = "BK-BGT: target AvgLeafDepth / AvgBranchingFactor (> 0)", .who = TP_RUNF_CLI | TP_RUNF_SERVICE,
     TP_SVC_LIB},
    {.name = "seed", .type = TP_RUNF_INT64, .offset = TP_OFF(seed), .init = -1, .lo = 0, .hi = TP_RUN_SEED_MAX,
     .has_unset = true, .unset = -1, .unset_means = "the domain's", .unit = "", .flag = "--seed", .arg = "N",
     .help = "seed of the run's Mersenne Twister (0..4294967295)", .who = TP_RUNF_CLI | TP_RUNF_SERVICE,
     TP_SVC_LIB},
    {.name = "max_iters", .type = TP_RUNF_INT64, .offset = TP_OFF(max_iters), .init = 0, .lo = 1,
     .hi = TP_JSON_INT_MAX, .has_unset = true, .unset = 0, .unset_means = "the domain's", .unit = "",
     .flag = "--max-iters", .arg = "N", .help = "maximum planner iterations z",
     .who = TP_RUNF_CLI | TP_RUNF_SERVICE, .svc_lo = NAN, .svc_hi = 1e12},
    {.name = "time_limit", .type = TP_RUNF_DOUBLE, .offset = TP_OFF(time_limit), .init = -1, .lo = 0,
     .hi = INFINITY, .has_unset = true, .unset = -1, .unset_means = "the domain's", .zero_means = "none",
     .unit = "s", .flag = "--time-limit", .arg = "S", .help = "stop after S seconds of wall time (0 = none)",
     .who = TP_RUNF_CLI | TP_RUNF_SERVICE, .svc_lo = 0, .svc_lo_open = true, .svc_hi = NAN,
     .svc_bound = TP_RUNF_BOUND_MAX_TIME},
    {.name = "solutions", .type = TP_RUNF_INT, .offset = TP_OFF(solutions), .init = 0, .lo = 1,
     .hi = TP_RUN_MAX_SOLUTIONS, .has_unset = true, .unset = 0, .unset_means = "the domain's", .unit = "",
     .flag = "--solutions", .arg = "K", .help = "many-worlds: keep planning until K solutions, keep the best",
     .who = TP_RUNF_CLI | TP_RUNF_SERVICE, .svc_lo = NAN, .svc_hi = 10000},
    {.name = "nn_index", .type = TP_RUNF_BOOL, .offset = TP_OFF(nn_index), .init = 1, .lo = 0, .hi = 1, .unit = "",
     .flag = "--no-nn-index", .arg = NULL, .flag_sets = 0,
     .help = "BK-RRT: exact linear-scan nearest neighbour instead of the spatial\n"
             "index (same plan; for timing comparisons)",
     .who = TP_RUNF_CLI | TP_RUNF_SERVICE, TP_SVC_LIB},
    /* the library's: the tplan program's --jobs forks its own searches (par.h), the service's takes
       workers */
    {.name = "jobs", .type = TP_RUNF_INT, .offset = TP_OFF(jobs), .init = 1, .lo = 1, .hi = TP_RUN_MAX_JOBS,
     .unit = "", .flag = "--jobs", .arg = "N", .help = "OR-parallel searches", .who = TP_RUNF_SERVICE,
     .svc_lo = NAN, .svc_hi = NAN, .svc_bound = TP_RUNF_BOUND_WORKERS},
    {.name = "memory_mb", .type = TP_RUNF_INT64, .offset = TP_OFF(memory_limit_mb), .init = 0,
     .lo = TP_RUN_MIN_MEMORY_MB, .hi = TP_RUN_MAX_MEMORY_MB, .has_unset = true, .unset = 0, .unset_means = "2048",
     .unit = "MB", .flag = "--memory-limit", .arg = "MB",
     .help = "memory the script's Lua state may hold (default 2048)", .who = TP_RUNF_CLI | TP_RUNF_SERVICE,
     .svc_lo = NAN, .svc_hi = NAN, .svc_bound = TP_RUNF_BOUND_MAX_MEMORY},
    {.name = "load_time_limit", .type = TP_RUNF_DOUBLE, .offset = TP_OFF(load_time_limit), .init = 0, .lo = 0,
     .lo_open = true, .hi = TP_RUN_MAX_SCRIPT_TIME, .has_unset = true, .unset = 0, .unset_means = "10", .unit = "s",
     .flag = "--load-time-limit", .arg = "S", .help = "wall time for running the script's top level (default 10)",
     .who = TP_RUNF_CLI | TP_RUNF_SERVER, TP_SVC_LIB},
    {.name = "call_time_limit", .type = TP_RUNF_DOUBLE, .offset = TP_OFF(call_time_limit), .init = 0, .lo = 0,
     .lo_open = true, .hi = TP_RUN_MAX_SCRIPT_TIME, .has_unset = true, .unset = 0, .unset_means = "10", .unit = "s",
     .flag = "--call-time-limit", .arg = "S", .help = "wall time for one Lua callback while planning (default 10)",
     .who = TP_RUNF_CLI | TP_RUNF_SERVER, TP_SVC_LIB},
    {.name = "search_memory_mb", .type = TP_RUNF_INT64, .offset = TP_OFF(search_memory_mb), .init = 0, .lo = 1,
     .hi = TP_RUN_MAX_MEMORY_MB, .has_unset = true, .unset = 0, .unset_means = "no bound", .unit = "MB",
     .flag = "--search-memory", .arg = "MB",
     .help = "memory the search (tree and index) may hold; reached, planning stops\n"
             "with what it found, as at --max-iters (default: no bound)",
     .who = TP_RUNF_CLI | TP_RUNF_SERVER, TP_SVC_LIB},
    {.name = "near_miss", .type = TP_RUNF_DOUBLE, .offset = TP_OFF(near_miss), .init = -1, .lo = 0, .hi = 1,
     .has_unset = true, .unset = -1, .unset_means = "the domain's", .unit = "", .flag = "--near-miss", .arg = "P",
     .help = "probability of re-expanding a near miss with its draws moved (0..1, 0 = off)",
     .who = TP_RUNF_CLI | TP_RUNF_SERVICE, TP_SVC_LIB},
};
// clang-format on
#undef TP_SVC_LIB
#undef TP_OFF
const int tpRun_FieldCount = (int)(sizeof tpRun_Fields / sizeof tpRun_Fields[0]);
const char *const tpRun_PlannerNames[3] = {"", "rrt", "bgt"};

/* A field is marked seen in a 32-bit set (tpRun_DefFromJson). */
_Static_assert(sizeof tpRun_Fields / sizeof tpRun_Fields[0] <= 32, "tpRun_DefFromJson's seen set has 32 bits");

/* ---- the table's accessors ---------------------------------------------------------------- */

const tpRunField *tpRun_FindField(const char *name)
{
    for (int i = 0; name && i < tpRun_FieldCount; ++i) {
        if (strcmp(name, tpRun_Fields[i].name) == 0) {
            return &tpRun_Fields[i];
        }
    }
    return NULL;
}

const tpRunField *tpRun_FindFlag(const char *flag)
{
    for (int i = 0; flag && i < tpRun_FieldCount; ++i) {
        if (tpRun_Fields[i].flag && strcmp(flag, tpRun_Fields[i].flag) == 0) {
            return &tpRun_Fields[i];
        }
    }
    return NULL;
}

double tpRun_FieldGet(const void *def, const tpRunField *f)
{
    const char *p = (const char *)def + f->offset;
    switch (f->type) {
    case TP_RUNF_PLANNER:
        return (double)*(const tplan_planner *)(const void *)p;
    case TP_RUNF_BOOL:
    case TP_RUNF_INT:
        return (double)*(const int *)(const void *)p;
    case TP_RUNF_INT64:
        return (double)*(const int64_t *)(const void *)p;
    case TP_RUNF_DOUBLE:
        return *(const double *)(const void *)p;
    }
    TP_ASSERT(!"a field type");
    return NAN;
}

void tpRun_FieldSet(void *def, const tpRunField *f, double v)
{
    char *p = (char *)def + f->offset;
    switch (f->type) {
    case TP_RUNF_PLANNER:
        *(tplan_planner *)(void *)p = (tplan_planner)(int)v;
        return;
    case TP_RUNF_BOOL:
    case TP_RUNF_INT:
        *(int *)(void *)p = (int)v;
        return;
    case TP_RUNF_INT64:
        *(int64_t *)(void *)p = (int64_t)v;
        return;
    case TP_RUNF_DOUBLE:
        *(double *)(void *)p = v;
        return;
    }
    TP_ASSERT(!"a field type");
}

bool tpRun_FieldInRange(const tpRunField *f, double v, double lo, bool lo_open, double hi)
{
    if (!isfinite(v) || v < lo || (lo_open && v == lo) || v > hi) {
        return false;
    }
    return f->type == TP_RUNF_DOUBLE || v == floor(v);
}

const char *tpRun_FieldRange(const tpRunField *f, double lo, bool lo_open, double hi, bool json, char *buf, size_t cap)
{
    switch (f->type) {
    case TP_RUNF_PLANNER:
        snprintf(buf, cap, json ? "\"rrt\" or \"bgt\"" : "TPLAN_PLANNER_RRT or TPLAN_PLANNER_BGT");
        return buf;
    case TP_RUNF_BOOL:
        snprintf(buf, cap, json ? "true or false" : "0 or 1");
        return buf;
    case TP_RUNF_INT:
    case TP_RUNF_INT64:
        if (isfinite(hi)) {
            snprintf(buf, cap, "an integer in %.0f..%.0f", lo_open ? lo + 1 : lo, hi);
        } else {
            snprintf(buf, cap, "an integer >= %.0f", lo_open ? lo + 1 : lo);
        }
        return buf;
    case TP_RUNF_DOUBLE:
        break;
    }
    const char *noun = strcmp(f->unit, "s") == 0 ? "a number of seconds" : "a number";
    int n;
    if (isfinite(hi)) {
        n = snprintf(buf, cap, "%s in %c%g, %g]", noun, lo_open ? '(' : '[', lo, hi);
    } else {
        n = snprintf(buf, cap, "%s %s %g", noun, lo_open ? ">" : ">=", lo);
    }
    if (f->zero_means && !lo_open && lo <= 0 && n >= 0 && (size_t)n < cap) {
        snprintf(buf + n, cap - (size_t)n, " (0: %s)", f->zero_means);
    }
    return buf;
}

/* ---- the run definition over the table ---------------------------------------------------- */

void tplan_run_def_init_(tplan_run_def *def, size_t size)
{
    if (!def || size < sizeof(size_t)) {
        return;
    }
    tplan_run_def d;
    memset(&d, 0, sizeof d);
    d.size = size < sizeof d ? size : sizeof d;
    for (int i = 0; i < tpRun_FieldCount; ++i) {
        tpRun_FieldSet(&d, &tpRun_Fields[i], tpRun_Fields[i].init);
    }
    memcpy(def, &d, d.size); /* an older caller's smaller struct gets its own fields only */
}

/* The caller's struct with the fields it does not have (an older caller) at their defaults. */
static bool run_def_full(const tplan_run_def *def, tplan_run_def *full, tplan_error *err)
{
    if (!def) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no run definition (NULL)");
        return false;
    }
    if (def->size < offsetof(tplan_run_def, planner) + sizeof def->planner || def->size > sizeof *def) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "size",
                   "size must be the struct's size as compiled (%zu bytes here); initialise with tplan_run_def_init",
                   sizeof *def);
        return false;
    }
    tplan_run_def_init(full);
    memcpy(full, def, def->size);
    full->size = sizeof *full;
    return true;
}

/* The field's value in def is its unset value or in its range (an int64 exactly a double's). */
static bool field_ok(const tplan_run_def *def, const tpRunField *f)
{
    const double v = tpRun_FieldGet(def, f);
    if (f->type == TP_RUNF_INT64) {
        const int64_t raw = *(const int64_t *)(const void *)((const char *)def + f->offset);
        if ((double)raw > TP_JSON_INT_MAX || (double)raw < -TP_JSON_INT_MAX) {
            return false;
        }
    }
    return (f->has_unset && v == f->unset) || tpRun_FieldInRange(f, v, f->lo, f->lo_open, f->hi);
}

#if TP_ASSERT_ON
/* The whole table (tpRun_FieldsValid) as TP_VALIDATE calls a validate function. */
static bool fields_valid(const tpRunField *rows, char *why, size_t cap)
{
    return tpRun_FieldsValid(rows, tpRun_FieldCount, why, cap);
}
#endif

tplan_code tpRun_CheckDef(const tplan_run_def *def0, tplan_error *err)
{
    TP_VALIDATE(fields_valid, tpRun_Fields);
    tplan_run_def d;
    if (!run_def_full(def0, &d, err)) {
        return TPLAN_ERR_ARGUMENT;
    }
    for (int i = 0; i < tpRun_FieldCount; ++i) {
        const tpRunField *f = &tpRun_Fields[i];
        if (!field_ok(&d, f)) {
            char range[96], unset[96] = "";
            if (f->has_unset && f->type == TP_RUNF_PLANNER) {
                snprintf(unset, sizeof unset, " (or TPLAN_PLANNER_DOMAIN: %s)", f->unset_means);
            } else if (f->has_unset) {
                snprintf(unset, sizeof unset, " (or %g: %s)", f->unset, f->unset_means);
            }
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, f->name, "%s must be %s%s", f->name,
                       tpRun_FieldRange(f, f->lo, f->lo_open, f->hi, false, range, sizeof range), unset);
            return TPLAN_ERR_ARGUMENT;
        }
    }
    run_ok(err);
    return TPLAN_OK;
}

bool tpRun_FullDef(const tplan_run_def *def, tplan_run_def *full, tplan_error *err)
{
    if (!def) {
        tplan_run_def_init(full);
        return true;
    }
    return tpRun_CheckDef(def, err) == TPLAN_OK && run_def_full(def, full, err);
}

/* Reads item (a member of the field f) into def if it is in lo..hi; else -1 with err naming f
   (suffix after the range: the service's words for its bound). */
static int read_field(tplan_run_def *def, const tpRunField *f, const cJSON *item, double lo, bool lo_open, double hi,
                      const char *suffix, tplan_error *err)
{
    double v = NAN;
    if (f->type == TP_RUNF_PLANNER) {
        for (int k = TPLAN_PLANNER_RRT; k <= TPLAN_PLANNER_BGT; ++k) {
            if (cJSON_IsString(item) && strcmp(item->valuestring, tpRun_PlannerNames[k]) == 0) {
                v = k;
            }
        }
    } else if (f->type == TP_RUNF_BOOL) {
        v = cJSON_IsBool(item) ? (cJSON_IsTrue(item) ? 1 : 0) : NAN;
    } else if (cJSON_IsNumber(item)) {
        v = item->valuedouble;
    }
    if (f->type == TP_RUNF_INT64 && hi > TP_JSON_INT_MAX) {
        hi = TP_JSON_INT_MAX;
    }
    if (!tpRun_FieldInRange(f, v, lo, lo_open, hi)) {
        char range[96];
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, f->name, "%s must be %s%s", f->name,
                   tpRun_FieldRange(f, lo, lo_open, hi, true, range, sizeof range), suffix);
        return -1;
    }
    tpRun_FieldSet(def, f, v);
    return 1;
}

int tpRun_ReadJsonField(tplan_run_def *def, const cJSON *item, tplan_error *err)
{
    const tpRunField *f = tpRun_FindField(item->string);
    return f ? read_field(def, f, item, f->lo, f->lo_open, f->hi, "", err) : 0;
}

int tpRun_ReadRequestField(tplan_run_def *def, const cJSON *item, const double bounds[TP_RUNF_BOUND_COUNT],
                           tplan_error *err)
{
    static const char *const suffix[TP_RUNF_BOUND_COUNT] = {"", "", " (the server's workers)", ""};
    const tpRunField *f = tpRun_FindField(item->string);
    if (!f) {
        return 0;
    }
    TP_ASSERT(f->svc_bound >= 0 && f->svc_bound < TP_RUNF_BOUND_COUNT);
    if (f->who & TP_RUNF_SERVER) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, f->name, "%s is set by the server", f->name);
        return -1;
    }
    const double lo = isnan(f->svc_lo) ? f->lo : f->svc_lo;
    const bool lo_open = isnan(f->svc_lo) ? f->lo_open : f->svc_lo_open;
    double hi = isnan(f->svc_hi) ? f->hi : f->svc_hi;
    if (f->svc_bound != TP_RUNF_BOUND_NONE && bounds[f->svc_bound] < hi) {
        hi = bounds[f->svc_bound];
    }
    return read_field(def, f, item, lo, lo_open, hi, suffix[f->svc_bound], err);
}

cJSON *tpRun_ParseJsonObject(const char *what, const char *json, size_t len, tplan_error *err)
{
    /* cJSON ends a string at an escaped NUL ("rrt\u0000x" would read as "rrt") and at a NUL byte
       inside len; and it stops after the first value, so "{...} trailing" must be refused here */
    char why[128];
    if (!tpJson_CheckText(json, len, why, sizeof why)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s: %s", what, why);
        return NULL;
    }
    size_t stop = 0;
    cJSON *root = tpJson_ParseDocument(json, len, &stop);
    if (!root && stop == TP_JSON_NO_MEMORY) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "%s: out of memory reading the JSON", what);
        return NULL;
    }
    if (!root || !cJSON_IsObject(root)) {
        size_t line = 1, col = 1;
        tpJson_LineColumn(json, len, stop, &line, &col);
        const cJSON *first = root ? NULL : cJSON_ParseWithLength(json, len);
        if (root) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s: expected a JSON object", what);
        } else if (first) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s: text after the JSON value at line %zu, column %zu", what,
                       line, col);
        } else {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s: not valid JSON (line %zu, column %zu)", what, line, col);
        }
        cJSON_Delete((cJSON *)first);
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

tplan_code tpRun_DefFromJson(tplan_run_def *def0, const char *json, size_t len, tplan_error *err)
{
    tplan_run_def def;
    if (!json || !run_def_full(def0, &def, err)) {
        if (!json) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no JSON text (NULL)");
        }
        return TPLAN_ERR_ARGUMENT;
    }
    cJSON *root = tpRun_ParseJsonObject("run definition", json, len, err);
    if (!root) {
        return TPLAN_ERR_ARGUMENT;
    }
    unsigned seen = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, root)
    {
        const tpRunField *row = tpRun_FindField(it->string);
        int f = row ? (int)(row - tpRun_Fields) : -1;
        char name[72];
        snprintf(name, sizeof name, "%.60s", it->string);
        if (f < 0) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, name, "run definition: unknown field '%s'", name);
        } else if (seen & (1u << f)) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, name, "run definition: field '%s' given twice", name);
            f = -1;
        }
        if (f < 0 || tpRun_ReadJsonField(&def, it, err) < 0) {
            cJSON_Delete(root);
            return TPLAN_ERR_ARGUMENT;
        }
        seen |= 1u << f;
    }
    cJSON_Delete(root);
    const size_t size = def0->size;
    memcpy(def0, &def, size); /* the caller's fields only */
    def0->size = size;
    run_ok(err);
    return TPLAN_OK;
}

bool tpRun_WriteJsonFields(const tplan_run_def *def, cJSON *o)
{
    tplan_run_def d;
    if (!run_def_full(def, &d, NULL)) {
        return false;
    }
    bool ok = true;
    for (int i = 0; ok && i < tpRun_FieldCount; ++i) {
        const tpRunField *f = &tpRun_Fields[i];
        const double v = tpRun_FieldGet(&d, f);
        if (f->has_unset ? (v == f->unset || !field_ok(&d, f)) : v == f->init) {
            continue; /* not given (or out of range: tpRun_DefToJson checks first) */
        }
        if (f->type == TP_RUNF_PLANNER) {
            ok = cJSON_AddStringToObject(o, f->name, tpRun_PlannerNames[(int)v == TPLAN_PLANNER_RRT ? 1 : 2]) != NULL;
        } else if (f->type == TP_RUNF_BOOL) {
            ok = cJSON_AddBoolToObject(o, f->name, v != 0) != NULL;
        } else {
            ok = cJSON_AddNumberToObject(o, f->name, v) != NULL;
        }
    }
    return ok;
}

char *tpRun_DefToJson(const tplan_run_def *def)
{
    if (tpRun_CheckDef(def, NULL) != TPLAN_OK) {
        return NULL; /* NULL or a field out of range: "{}" would read back as the defaults */
    }
    cJSON *o = cJSON_CreateObject();
    char *text = (o && tpRun_WriteJsonFields(def, o)) ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text) {
        return NULL;
    }
    char *out = strdup(text); /* freed with tplan_free (free), whatever cJSON's allocator */
    cJSON_free(text);
    return out;
}
