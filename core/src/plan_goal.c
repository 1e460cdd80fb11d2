/* The goal regions of a plan ("goal", docs/plan-format.md): the spatial leaves of the domain's goal
 * condition (tp.within as a disc or a ball, tp.inside as a box, tp.arranged as one disc or ball per
 * body), recorded so that the web page and the viewer can draw where the goal is without loading
 * the script. Writer check, writer and the strict reader: every member known, typed and in range,
 * or the file is refused with the field and the reason. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/base.h"
#include "tp/plan.h"

static const char *const k_goal_kinds[TP_GOAL_KIND_COUNT] = {"circle", "sphere", "box"};

const char *tpGoalRegionKind_Name(tpGoalRegionKind kind)
{
    return kind >= 0 && kind < TP_GOAL_KIND_COUNT ? k_goal_kinds[kind] : NULL;
}

void tpPlan_FreeGoal(tpPlanRecord *rec)
{
    free(rec->goal_regions);
    rec->goal_regions = NULL;
    rec->ngoal_regions = 0;
}

static bool is_coord(double v)
{
    return fabs(v) <= TP_MAX_COORD; /* false for NaN */
}

bool tpPlanGoalRegion_Valid(const tpPlanGoalRegion *g, int nbodies, char *why, size_t cap)
{
    static const char axis[3] = {'x', 'y', 'z'};
    if (why && cap) {
        why[0] = '\0';
    }
    if (!tpGoalRegionKind_Name(g->kind)) {
        return tpBroken(why, cap, "kind: %d is not a goal region kind", (int)g->kind);
    }
    if (g->body < 0 || g->body >= nbodies) {
        return tpBroken(why, cap, "body: index %d out of range [0, %d)", g->body, nbodies);
    }
    if (g->kind == TP_GOAL_BOX) {
        bool bounded = false;
        for (int k = 0; k < 3; ++k) {
            double lo = g->lo[k], hi = g->hi[k];
            if (!(lo == -INFINITY || is_coord(lo)) || !(hi == INFINITY || is_coord(hi))) {
                return tpBroken(why, cap, "%s: a bound on %c is neither unbounded (null) nor within +-%g m",
                                (lo == -INFINITY || is_coord(lo)) ? "max" : "min", axis[k], TP_MAX_COORD);
            }
            if (!(lo <= hi)) {
                return tpBroken(why, cap, "min: %.17g is above max %.17g on %c", lo, hi, axis[k]);
            }
            bounded = bounded || isfinite(lo) || isfinite(hi);
        }
        if (!bounded) {
            return tpBroken(why, cap, "min, max: no finite bound (the region would be all of space)");
        }
        return true;
    }
    int n = g->kind == TP_GOAL_CIRCLE ? 2 : 3;
    for (int k = 0; k < n; ++k) {
        if (!is_coord(g->center[k])) {
            return tpBroken(why, cap, "center: %.17g on %c is not within +-%g m", g->center[k], axis[k], TP_MAX_COORD);
        }
    }
    if (!(g->radius > 0 && g->radius <= TP_PLAN_MAX_GOAL_RADIUS)) {
        return tpBroken(why, cap, "radius: %.17g is not in (0, %g] m", g->radius, TP_PLAN_MAX_GOAL_RADIUS);
    }
    return true;
}

bool tpPlan_CheckGoal(const tpPlanRecord *rec, char *err, size_t errlen)
{
    if (rec->ngoal_regions < 0 || rec->ngoal_regions > TP_PLAN_MAX_GOAL_REGIONS ||
        (rec->ngoal_regions > 0 && !rec->goal_regions)) {
        tpErrorf(err, errlen, "goal.regions: %d regions (at most %d)", rec->ngoal_regions, TP_PLAN_MAX_GOAL_REGIONS);
        return false;
    }
    for (int i = 0; i < rec->ngoal_regions; ++i) {
        char why[200];
        if (!tpPlanGoalRegion_Valid(&rec->goal_regions[i], rec->nbodies, why, sizeof why)) {
            tpErrorf(err, errlen, "goal.regions[%d].%s", i, why);
            return false;
        }
    }
    return true;
}

static void put_bound(FILE *f, double v)
{
    if (isfinite(v)) {
        tpPlan_PutDouble(f, v);
    } else {
        fputs("null", f);
    }
}

void tpPlan_PutGoal(FILE *f, const tpPlanRecord *rec)
{
    if (rec->ngoal_regions <= 0) {
        return;
    }
    /* One line, after "view": a line that tools/plan_digests.sh users can drop to compare the rest. */
    fputs(",\n  \"goal\": {\"regions\": [", f);
    for (int i = 0; i < rec->ngoal_regions; ++i) {
        const tpPlanGoalRegion *g = &rec->goal_regions[i];
        fprintf(f, "%s{\"kind\": \"%s\", \"body\": ", i ? ", " : "", k_goal_kinds[g->kind]);
        tpPlan_PutString(f, rec->bodies[g->body].name);
        if (g->kind == TP_GOAL_BOX) {
            for (int side = 0; side < 2; ++side) {
                const double *v = side ? g->hi : g->lo;
                fputs(side ? "], \"max\": [" : ", \"min\": [", f);
                for (int k = 0; k < 3; ++k) {
                    fputs(k ? ", " : "", f);
                    put_bound(f, v[k]);
                }
            }
            fputs("]}", f);
            continue;
        }
        fputs(", \"center\": [", f);
        for (int k = 0; k < (g->kind == TP_GOAL_CIRCLE ? 2 : 3); ++k) {
            fputs(k ? ", " : "", f);
            tpPlan_PutDouble(f, g->center[k]);
        }
        fputs("], \"radius\": ", f);
        tpPlan_PutDouble(f, g->radius);
        fputc('}', f);
    }
    fputs("]}", f);
}

/* ------------------------------------------------------------------------------------------ */
/* Reader                                                                                     */

typedef struct GoalName {
    const char *name;
    int index;
} GoalName;

typedef struct GoalReader {
    const char *file;
    char *err;
    size_t errlen;
    const tpPlanRecord *rec;
    GoalName *order; /* the bodies sorted by name (for the lookup of "body") */
} GoalReader;

static bool gFail(const GoalReader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool gFail(const GoalReader *r, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tpErrorf(r->err, r->errlen, "%s: %s", r->file, msg);
    return false;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const GoalName *)a)->name, ((const GoalName *)b)->name);
}

static int find_body(const GoalReader *r, const char *name)
{
    int lo = 0, hi = r->rec->nbodies - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(r->order[mid].name, name);
        if (c == 0) {
            return r->order[mid].index;
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

static const char *json_type(const cJSON *item)
{
    return cJSON_IsNumber(item)   ? "a number"
           : cJSON_IsString(item) ? "a string"
           : cJSON_IsArray(item)  ? "an array"
           : cJSON_IsObject(item) ? "an object"
           : cJSON_IsBool(item)   ? "a boolean"
           : cJSON_IsNull(item)   ? "null"
                                  : "an invalid value";
}

/* n numbers (nulls allowed when `unbounded` is given: they read as it) into out. */
static bool read_vector(const GoalReader *r, const cJSON *a, int i, const char *key, int n, double unbounded,
                        double *out)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) {
        return gFail(r, "goal.regions[%d].%s: expected an array of %d numbers%s, got %s", i, key, n,
                     unbounded != 0 ? " or nulls" : "", json_type(a));
    }
    int k = 0;
    for (const cJSON *e = a->child; e; e = e->next, ++k) {
        if (cJSON_IsNull(e) && unbounded != 0) {
            out[k] = unbounded;
        } else if (cJSON_IsNumber(e) && isfinite(e->valuedouble)) {
            out[k] = e->valuedouble;
        } else {
            return gFail(r, "goal.regions[%d].%s[%d]: expected a finite number%s, got %s", i, key, k,
                         unbounded != 0 ? " or null" : "", json_type(e));
        }
    }
    return true;
}

static bool read_region(const GoalReader *r, const cJSON *o, int i, tpPlanGoalRegion *g)
{
    if (!cJSON_IsObject(o)) {
        return gFail(r, "goal.regions[%d]: expected an object, got %s", i, json_type(o));
    }
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    if (!cJSON_IsString(kind) || !kind->valuestring) {
        return gFail(r, "goal.regions[%d].kind: expected a string (\"circle\", \"sphere\" or \"box\"), got %s", i,
                     json_type(kind));
    }
    g->kind = TP_GOAL_KIND_COUNT;
    for (int k = 0; k < TP_GOAL_KIND_COUNT; ++k) {
        if (strcmp(kind->valuestring, k_goal_kinds[k]) == 0) {
            g->kind = (tpGoalRegionKind)k;
        }
    }
    if (g->kind == TP_GOAL_KIND_COUNT) {
        return gFail(r, "goal.regions[%d].kind: unknown kind \"%.64s\" (expected circle, sphere or box)", i,
                     kind->valuestring);
    }
    const bool box = g->kind == TP_GOAL_BOX;
    for (const cJSON *m = o->child; m; m = m->next) {
        const char *k = m->string;
        bool known = strcmp(k, "kind") == 0 || strcmp(k, "body") == 0 ||
                     (box ? strcmp(k, "min") == 0 || strcmp(k, "max") == 0
                          : strcmp(k, "center") == 0 || strcmp(k, "radius") == 0);
        if (!known) {
            return gFail(r, "goal.regions[%d]: unknown field \"%.64s\" for a %s (expected kind, body, %s)", i, k,
                         kind->valuestring, box ? "min, max" : "center, radius");
        }
    }
    const cJSON *body = cJSON_GetObjectItemCaseSensitive(o, "body");
    if (!cJSON_IsString(body) || !body->valuestring) {
        return gFail(r, "goal.regions[%d].body: expected a string, got %s", i, json_type(body));
    }
    if ((g->body = find_body(r, body->valuestring)) < 0) {
        return gFail(r, "goal.regions[%d].body: no body named \"%.64s\"", i, body->valuestring);
    }
    if (box) {
        if (!read_vector(r, cJSON_GetObjectItemCaseSensitive(o, "min"), i, "min", 3, -INFINITY, g->lo) ||
            !read_vector(r, cJSON_GetObjectItemCaseSensitive(o, "max"), i, "max", 3, INFINITY, g->hi)) {
            return false;
        }
    } else {
        const cJSON *radius = cJSON_GetObjectItemCaseSensitive(o, "radius");
        if (!read_vector(r, cJSON_GetObjectItemCaseSensitive(o, "center"), i, "center",
                         g->kind == TP_GOAL_CIRCLE ? 2 : 3, 0, g->center)) {
            return false;
        }
        if (!cJSON_IsNumber(radius) || !isfinite(radius->valuedouble)) {
            return gFail(r, "goal.regions[%d].radius: expected a finite number, got %s", i,
                         cJSON_IsNumber(radius) ? "an infinite one" : json_type(radius));
        }
        g->radius = radius->valuedouble;
    }
    char why[200];
    if (!tpPlanGoalRegion_Valid(g, r->rec->nbodies, why, sizeof why)) {
        return gFail(r, "goal.regions[%d].%s", i, why);
    }
    return true;
}

bool tpPlan_ReadGoal(const char *file, const cJSON *root, tpPlanRecord *rec, char *err, size_t errlen)
{
    GoalReader r = {file, err, errlen, rec, NULL};
    const cJSON *goal = cJSON_GetObjectItemCaseSensitive(root, "goal");
    if (!goal) {
        return true; /* optional: older plans, and goals with no spatial condition, have none */
    }
    if (!cJSON_IsObject(goal)) {
        return gFail(&r, "goal: expected an object, got %s", json_type(goal));
    }
    for (const cJSON *m = goal->child; m; m = m->next) {
        if (strcmp(m->string, "regions") != 0) {
            return gFail(&r, "goal: unknown field \"%.64s\" (expected regions)", m->string);
        }
    }
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(goal, "regions");
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : -1;
    if (n < 1 || n > TP_PLAN_MAX_GOAL_REGIONS) {
        return gFail(&r, "goal.regions: expected an array of 1..%d regions, got %s", TP_PLAN_MAX_GOAL_REGIONS,
                     arr ? (cJSON_IsArray(arr) ? "an empty or longer array" : json_type(arr)) : "nothing");
    }
    r.order = malloc(sizeof *r.order * (size_t)(rec->nbodies > 0 ? rec->nbodies : 1));
    rec->goal_regions = calloc((size_t)n, sizeof *rec->goal_regions);
    if (!r.order || !rec->goal_regions) {
        free(r.order);
        return gFail(&r, "goal: out of memory");
    }
    for (int b = 0; b < rec->nbodies; ++b) {
        r.order[b] = (GoalName){rec->bodies[b].name, b};
    }
    qsort(r.order, (size_t)rec->nbodies, sizeof *r.order, by_name);
    rec->ngoal_regions = n;
    int i = 0;
    bool ok = true;
    for (const cJSON *o = arr->child; o && ok; o = o->next, ++i) {
        ok = read_region(&r, o, i, &rec->goal_regions[i]);
    }
    free(r.order);
    return ok;
}
