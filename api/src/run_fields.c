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

#include "tp/json_text.h"
#include "tp/run_def.h"

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

void tplan_run_def_init_(tplan_run_def *def, size_t size)
{
    if (!def || size < sizeof(size_t)) {
        return;
    }
    tplan_run_def d;
    memset(&d, 0, sizeof d);
    d.size = size < sizeof d ? size : sizeof d;
    d.planner = TPLAN_PLANNER_DOMAIN;
    d.seed = -1;
    d.time_limit = -1;
    d.nn_index = 1;
    d.jobs = 1;
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

static bool is_int_in(double v, double lo, double hi)
{
    return isfinite(v) && v == floor(v) && v >= lo && v <= hi;
}

tplan_code tpRun_CheckDef(const tplan_run_def *def0, tplan_error *err)
{
    tplan_run_def d;
    if (!run_def_full(def0, &d, err)) {
        return TPLAN_ERR_ARGUMENT;
    }
#define TP_BAD(field, ...)                                                                                             \
    do {                                                                                                               \
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, __VA_ARGS__);                                                       \
        return TPLAN_ERR_ARGUMENT;                                                                                     \
    } while (0)
    if (d.planner != TPLAN_PLANNER_DOMAIN && d.planner != TPLAN_PLANNER_RRT && d.planner != TPLAN_PLANNER_BGT) {
        TP_BAD("planner", "planner must be rrt or bgt (or the domain's)");
    }
    if (!(d.mu == 0 || (isfinite(d.mu) && d.mu > 0))) {
        TP_BAD("mu", "mu must be a finite number > 0 (or 0: the domain's)");
    }
    if (!(d.seed == -1 || (d.seed >= 0 && d.seed <= TP_RUN_SEED_MAX))) {
        TP_BAD("seed", "seed must be an integer in 0..%lld (or -1: the domain's)", TP_RUN_SEED_MAX);
    }
    if (d.max_iters < 0) {
        TP_BAD("max_iters", "max_iters must be an integer >= 1 (or 0: the domain's)");
    }
    if (!(d.time_limit == -1 || (isfinite(d.time_limit) && d.time_limit >= 0))) {
        TP_BAD("time_limit", "time_limit must be a finite number of seconds >= 0, 0 = none (or -1: the domain's)");
    }
    if (d.solutions < 0 || d.solutions > TP_RUN_MAX_SOLUTIONS) {
        TP_BAD("solutions", "solutions must be an integer in 1..%d (or 0: the domain's)", TP_RUN_MAX_SOLUTIONS);
    }
    if (d.nn_index != 0 && d.nn_index != 1) {
        TP_BAD("nn_index", "nn_index must be 0 or 1");
    }
    if (d.jobs < 1 || d.jobs > TP_RUN_MAX_JOBS) {
        TP_BAD("jobs", "jobs must be an integer in 1..%d", TP_RUN_MAX_JOBS);
    }
    if (!(d.memory_limit_mb == 0 ||
          (d.memory_limit_mb >= TP_RUN_MIN_MEMORY_MB && d.memory_limit_mb <= TP_RUN_MAX_MEMORY_MB))) {
        TP_BAD("memory_mb", "memory_mb must be an integer in %d..%lld (or 0: 2048)", TP_RUN_MIN_MEMORY_MB,
               TP_RUN_MAX_MEMORY_MB);
    }
    if (!(isfinite(d.load_time_limit) && d.load_time_limit >= 0 && d.load_time_limit <= TP_RUN_MAX_SCRIPT_TIME)) {
        TP_BAD("load_time_limit", "load_time_limit must be a number of seconds in (0, %g] (or 0: 10)",
               TP_RUN_MAX_SCRIPT_TIME);
    }
    if (!(isfinite(d.call_time_limit) && d.call_time_limit >= 0 && d.call_time_limit <= TP_RUN_MAX_SCRIPT_TIME)) {
        TP_BAD("call_time_limit", "call_time_limit must be a number of seconds in (0, %g] (or 0: 10)",
               TP_RUN_MAX_SCRIPT_TIME);
    }
    if (d.search_memory_mb < 0 || d.search_memory_mb > TP_RUN_MAX_MEMORY_MB) {
        TP_BAD("search_memory_mb", "search_memory_mb must be an integer in 1..%lld (or 0: no bound)",
               TP_RUN_MAX_MEMORY_MB);
    }
#undef TP_BAD
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

/* The JSON fields, in the order tplan_run_def_to_json writes them. */
static const char *const k_fields[] = {
    "planner",  "mu",   "seed",      "max_iters",       "time_limit",      "solutions",
    "nn_index", "jobs", "memory_mb", "load_time_limit", "call_time_limit", "search_memory_mb"};
enum { TP_RUN_NFIELDS = sizeof k_fields / sizeof k_fields[0] };

static int field_index(const char *name)
{
    for (int i = 0; i < TP_RUN_NFIELDS; ++i) {
        if (strcmp(name, k_fields[i]) == 0) {
            return i;
        }
    }
    return -1;
}

int tpRun_ReadJsonField(tplan_run_def *def, const cJSON *item, tplan_error *err)
{
    const char *k = item->string ? item->string : "";
    int f = field_index(k);
    if (f < 0) {
        return 0;
    }
    const double v = cJSON_IsNumber(item) ? item->valuedouble : NAN;
#define TP_BAD(...)                                                                                                    \
    do {                                                                                                               \
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, k, __VA_ARGS__);                                                           \
        return -1;                                                                                                     \
    } while (0)
    switch (f) {
    case 0: /* planner */
        if (!cJSON_IsString(item) || (strcmp(item->valuestring, "rrt") != 0 && strcmp(item->valuestring, "bgt") != 0)) {
            TP_BAD("planner must be \"rrt\" or \"bgt\"");
        }
        def->planner = strcmp(item->valuestring, "rrt") == 0 ? TPLAN_PLANNER_RRT : TPLAN_PLANNER_BGT;
        return 1;
    case 1: /* mu */
        if (!(isfinite(v) && v > 0)) {
            TP_BAD("mu must be a number > 0");
        }
        def->mu = v;
        return 1;
    case 2: /* seed */
        if (!is_int_in(v, 0, (double)TP_RUN_SEED_MAX)) {
            TP_BAD("seed must be an integer in 0..%lld", TP_RUN_SEED_MAX);
        }
        def->seed = (int64_t)v;
        return 1;
    case 3: /* max_iters: integers a double holds exactly */
        if (!is_int_in(v, 1, 9007199254740992.0)) {
            TP_BAD("max_iters must be an integer in 1..9007199254740992");
        }
        def->max_iters = (int64_t)v;
        return 1;
    case 4: /* time_limit */
        if (!(isfinite(v) && v >= 0)) {
            TP_BAD("time_limit must be a number of seconds >= 0 (0 = none)");
        }
        def->time_limit = v;
        return 1;
    case 5: /* solutions */
        if (!is_int_in(v, 1, TP_RUN_MAX_SOLUTIONS)) {
            TP_BAD("solutions must be an integer in 1..%d", TP_RUN_MAX_SOLUTIONS);
        }
        def->solutions = (int)v;
        return 1;
    case 6: /* nn_index */
        if (!cJSON_IsBool(item)) {
            TP_BAD("nn_index must be true or false");
        }
        def->nn_index = cJSON_IsTrue(item) ? 1 : 0;
        return 1;
    case 7: /* jobs */
        if (!is_int_in(v, 1, TP_RUN_MAX_JOBS)) {
            TP_BAD("jobs must be an integer in 1..%d", TP_RUN_MAX_JOBS);
        }
        def->jobs = (int)v;
        return 1;
    case 8: /* memory_mb */
        if (!is_int_in(v, TP_RUN_MIN_MEMORY_MB, (double)TP_RUN_MAX_MEMORY_MB)) {
            TP_BAD("memory_mb must be an integer in %d..%lld", TP_RUN_MIN_MEMORY_MB, TP_RUN_MAX_MEMORY_MB);
        }
        def->memory_limit_mb = (int64_t)v;
        return 1;
    case 11: /* search_memory_mb */
        if (!is_int_in(v, 1, (double)TP_RUN_MAX_MEMORY_MB)) {
            TP_BAD("search_memory_mb must be an integer in 1..%lld", TP_RUN_MAX_MEMORY_MB);
        }
        def->search_memory_mb = (int64_t)v;
        return 1;
    default: /* load_time_limit, call_time_limit */
        if (!(isfinite(v) && v > 0 && v <= TP_RUN_MAX_SCRIPT_TIME)) {
            TP_BAD("%s must be a number of seconds in (0, %g]", k, TP_RUN_MAX_SCRIPT_TIME);
        }
        *(f == 9 ? &def->load_time_limit : &def->call_time_limit) = v;
        return 1;
    }
#undef TP_BAD
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
        int f = field_index(it->string);
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
    if (d.planner != TPLAN_PLANNER_DOMAIN) {
        ok = ok && cJSON_AddStringToObject(o, "planner", d.planner == TPLAN_PLANNER_RRT ? "rrt" : "bgt");
    }
#define TP_NUM(cond, name, value) ok = ok && (!(cond) || cJSON_AddNumberToObject(o, name, (double)(value)))
    TP_NUM(d.mu > 0, "mu", d.mu);
    TP_NUM(d.seed >= 0, "seed", d.seed);
    TP_NUM(d.max_iters > 0, "max_iters", d.max_iters);
    TP_NUM(d.time_limit >= 0, "time_limit", d.time_limit);
    TP_NUM(d.solutions > 0, "solutions", d.solutions);
    ok = ok && (d.nn_index != 0 || cJSON_AddBoolToObject(o, "nn_index", 0));
    TP_NUM(d.jobs != 1, "jobs", d.jobs);
    TP_NUM(d.memory_limit_mb > 0, "memory_mb", d.memory_limit_mb);
    TP_NUM(d.load_time_limit > 0, "load_time_limit", d.load_time_limit);
    TP_NUM(d.call_time_limit > 0, "call_time_limit", d.call_time_limit);
    TP_NUM(d.search_memory_mb > 0, "search_memory_mb", d.search_memory_mb);
#undef TP_NUM
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
