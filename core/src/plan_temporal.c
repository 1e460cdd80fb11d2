/* The temporal conditions of a plan ("temporal", docs/plan-format.md): the domain's tp.sequence,
 * tp.ever, tp.never, tp.within_time and tp.at_time, and how each world's state memory of them
 * changed step by step, so that a reader sees when a sequence advanced and `tplan replay` checks
 * that the replay remembers the same. A member with its own version, self-contained (the file's
 * version is unchanged: a plan of a domain without temporal conditions has no such member and is
 * byte for byte as before). Writer check, writer and the strict reader. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/base.h"
#include "tp/plan.h"

static const char *const k_kinds[] = {"sequence", "ever", "never", "within_time", "at_time", NULL};

/* Whether s (may be NULL) is one of the kinds. Local, as the string writer below: this file uses
 * nothing of plan_write.c, which calls it (no file-level cycle, tools/file_graph.py). */
static bool is_kind(const char *s)
{
    for (int i = 0; s && k_kinds[i]; ++i) {
        if (strcmp(s, k_kinds[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* A JSON string of s, which tpPlan_CheckTemporal found free of control characters: only the quote
 * and the backslash need escaping (UTF-8 passes as it is, as plan_write.c's strings). */
static void put_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\') {
            fputc('\\', f);
        }
        fputc(*s, f);
    }
    fputc('"', f);
}

void tpPlan_FreeTemporal(tpPlanRecord *rec)
{
    for (int i = 0; i < rec->ntemporal && rec->temporal; ++i) {
        free(rec->temporal[i].name);
        free(rec->temporal[i].kind);
    }
    free(rec->temporal);
    rec->temporal = NULL;
    rec->ntemporal = 0;
    free(rec->goal_unmet);
    rec->goal_unmet = NULL; /* the worlds' tchanges go with the worlds (tpPlanWorld_FreeArrays) */
}

/* The size a kind's memory must have (0: any size >= 1, a sequence's). */
static int kind_size(const char *kind)
{
    return strcmp(kind, "at_time") == 0 ? 2 : strcmp(kind, "sequence") == 0 ? 0 : 1;
}

static bool has_control(const char *s)
{
    for (; *s; ++s) {
        if ((unsigned char)*s < 0x20) {
            return true;
        }
    }
    return false;
}

/* One world's changes: steps in first..nsteps (first 0 in version 2: the start's memory), conditions
 * in range, values in 0..size, in (step, condition) order, each a change. why gets "[k]: reason" (k
 * the change). */
static bool changes_ok(const tpPlanRecord *rec, const tpPlanWorld *w, int first, char *why, size_t cap)
{
    int32_t *last = calloc((size_t)rec->ntemporal + 1, sizeof *last);
    if (!last) {
        snprintf(why, cap, ": out of memory");
        return false;
    }
    bool ok = true;
    for (int k = 0; k < w->ntchanges && ok; ++k) {
        const int32_t *c = w->tchanges + 3 * k;
        if (c[0] < first || c[0] > w->nsteps) {
            snprintf(why, cap, "[%d][0]: step %d is not in %d..%d (the world's steps%s)", k, c[0], first, w->nsteps,
                     first ? "; 0, a start's memory, needs temporal version 2" : "");
            ok = false;
        } else if (c[1] < 0 || c[1] >= rec->ntemporal) {
            snprintf(why, cap, "[%d][1]: condition %d is not in 0..%d", k, c[1], rec->ntemporal - 1);
            ok = false;
        } else if (c[2] < 0 || c[2] > rec->temporal[c[1]].size) {
            snprintf(why, cap, "[%d][2]: value %d is not in 0..%d (the condition's size)", k, c[2],
                     rec->temporal[c[1]].size);
            ok = false;
        } else if (k > 0 && (c[0] < c[-3] || (c[0] == c[-3] && c[1] <= c[-2]))) {
            snprintf(why, cap, "[%d]: not after the change before it (by step, then condition)", k);
            ok = false;
        } else if (c[2] == last[c[1]]) {
            snprintf(why, cap, "[%d][2]: value %d is no change", k, c[2]);
            ok = false;
        } else {
            last[c[1]] = c[2];
        }
    }
    free(last);
    return ok;
}

/* The file's world order: the selected world first, then the others (alternatives). */
static int file_world(const tpPlanRecord *rec, int j)
{
    return j == 0 ? rec->selected : (j - 1 < rec->selected ? j - 1 : j);
}

/* The member's version a record needs: 2 when some world starts from a memory not all 0. */
static int temporal_version(const tpPlanRecord *rec)
{
    for (int j = 0; j < rec->nworlds; ++j) {
        if (rec->worlds[j].ntchanges > 0 && rec->worlds[j].tchanges && rec->worlds[j].tchanges[0] == 0) {
            return 2;
        }
    }
    return 1;
}

static bool check_temporal(const tpPlanRecord *rec, int version, char *err, size_t errlen);

bool tpPlan_CheckTemporal(const tpPlanRecord *rec, char *err, size_t errlen)
{
    return check_temporal(rec, TP_PLAN_TEMPORAL_VERSION, err, errlen);
}

static bool check_temporal(const tpPlanRecord *rec, int version, char *err, size_t errlen)
{
    if (rec->ntemporal == 0) {
        return true;
    }
    if (rec->ntemporal < 0 || rec->ntemporal > TP_PLAN_MAX_TEMPORAL || !rec->temporal) {
        tpErrorf(err, errlen, "temporal.conditions: %d conditions (1..%d)", rec->ntemporal, TP_PLAN_MAX_TEMPORAL);
        return false;
    }
    for (int i = 0; i < rec->ntemporal; ++i) {
        const tpPlanTemporal *t = &rec->temporal[i];
        if (!t->name || !t->name[0] || has_control(t->name) || strlen(t->name) > 1000) {
            tpErrorf(err, errlen, "temporal.conditions[%d].name: expected 1..1000 bytes without control characters", i);
            return false;
        }
        if (!is_kind(t->kind)) {
            tpErrorf(err, errlen, "temporal.conditions[%d].kind: unknown kind \"%s\"", i, t->kind ? t->kind : "(null)");
            return false;
        }
        const int want = kind_size(t->kind);
        if (want ? t->size != want : !(t->size >= 1 && t->size <= TP_PLAN_MAX_TEMPORAL_SIZE)) {
            tpErrorf(err, errlen, "temporal.conditions[%d].size: %d does not fit a %s", i, t->size, t->kind);
            return false;
        }
    }
    if (rec->goal_unmet && (has_control(rec->goal_unmet) || strlen(rec->goal_unmet) > 4096)) {
        tpErrorf(err, errlen, "temporal.unmet: at most 4096 bytes without control characters");
        return false;
    }
    for (int j = 0; j < rec->nworlds; ++j) {
        const tpPlanWorld *w = &rec->worlds[file_world(rec, j)];
        char why[200];
        if ((w->ntchanges > 0 && !w->tchanges) || w->ntchanges < 0 ||
            !changes_ok(rec, w, version >= 2 ? 0 : 1, why, sizeof why)) {
            tpErrorf(err, errlen, "temporal.changes[%d]%s", j, w->ntchanges < 0 || !w->tchanges ? ": bad count" : why);
            return false;
        }
    }
    return true;
}

void tpPlan_PutTemporal(FILE *f, const tpPlanRecord *rec)
{
    if (rec->ntemporal <= 0) {
        return;
    }
    /* one line, after "goal" (a comparison of two plans' motion can drop it, as the goal's) */
    fprintf(f, ",\n  \"temporal\": {\"version\": %d, \"conditions\": [", temporal_version(rec));
    for (int i = 0; i < rec->ntemporal; ++i) {
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        put_text(f, rec->temporal[i].name);
        fprintf(f, ", \"kind\": \"%s\", \"size\": %d}", rec->temporal[i].kind, rec->temporal[i].size);
    }
    fputs("], \"changes\": [", f);
    for (int j = 0; j < rec->nworlds; ++j) {
        const tpPlanWorld *w = &rec->worlds[file_world(rec, j)];
        fputs(j ? ", [" : "[", f);
        for (int k = 0; k < w->ntchanges; ++k) {
            const int32_t *c = w->tchanges + 3 * k;
            fprintf(f, "%s[%d, %d, %d]", k ? ", " : "", c[0], c[1], c[2]);
        }
        fputc(']', f);
    }
    fputc(']', f);
    if (rec->goal_unmet) {
        fputs(", \"unmet\": ", f);
        put_text(f, rec->goal_unmet);
    }
    fputc('}', f);
}

void tpPlanRecord_TemporalAt(const tpPlanRecord *rec, int w, int step, int32_t *mem)
{
    TP_ASSERT(rec && w >= 0 && w < rec->nworlds);
    memset(mem, 0, sizeof *mem * (size_t)(rec->ntemporal > 0 ? rec->ntemporal : 0));
    const tpPlanWorld *pw = &rec->worlds[w];
    for (int k = 0; k < pw->ntchanges && pw->tchanges[3 * k] <= step; ++k) { /* in step order */
        const int32_t *c = pw->tchanges + 3 * k;
        if (c[1] >= 0 && c[1] < rec->ntemporal) {
            mem[c[1]] = c[2];
        }
    }
}

void tpPlanRecord_TemporalText(const tpPlanRecord *rec, int w, int step, int k, char *out, size_t cap)
{
    TP_ASSERT(rec && k >= 0 && k < rec->ntemporal);
    int32_t m = 0;
    const tpPlanWorld *pw = &rec->worlds[w];
    for (int i = 0; i < pw->ntchanges && pw->tchanges[3 * i] <= step; ++i) {
        m = pw->tchanges[3 * i + 1] == k ? pw->tchanges[3 * i + 2] : m;
    }
    const tpPlanTemporal *t = &rec->temporal[k];
    static const char *const at_time[3] = {"pending", "held", "failed"};
    if (strcmp(t->kind, "sequence") == 0) {
        snprintf(out, cap, "%s: %d of %d", t->name, (int)m, t->size);
    } else if (strcmp(t->kind, "never") == 0) {
        snprintf(out, cap, "%s: %s", t->name, m ? "broken" : "holds");
    } else if (strcmp(t->kind, "at_time") == 0) {
        snprintf(out, cap, "%s: %s", t->name, m >= 0 && m <= 2 ? at_time[m] : "?");
    } else {
        snprintf(out, cap, "%s: %s", t->name, m ? "held" : "not yet");
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Reader                                                                                     */

/* An integer-valued JSON number in [lo, hi] into *out. */
static bool read_int(const cJSON *e, double lo, double hi, int *out)
{
    if (!cJSON_IsNumber(e) || !(e->valuedouble >= lo && e->valuedouble <= hi) ||
        e->valuedouble != (double)(int)e->valuedouble) {
        return false;
    }
    *out = (int)e->valuedouble;
    return true;
}

static bool read_condition(const char *file, const cJSON *o, int i, tpPlanTemporal *t, char *err, size_t errlen)
{
    if (!cJSON_IsObject(o)) {
        return tpPlan_FileFail(file, err, errlen, "temporal.conditions[%d]: expected an object", i);
    }
    for (const cJSON *m = o->child; m; m = m->next) {
        if (strcmp(m->string, "name") != 0 && strcmp(m->string, "kind") != 0 && strcmp(m->string, "size") != 0) {
            return tpPlan_FileFail(file, err, errlen,
                                   "temporal.conditions[%d]: unknown field \"%.64s\" (expected name, kind, size)", i,
                                   m->string);
        }
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    if (!cJSON_IsString(name) || !name->valuestring) {
        return tpPlan_FileFail(file, err, errlen, "temporal.conditions[%d].name: expected a string", i);
    }
    if (!cJSON_IsString(kind) || !is_kind(kind->valuestring)) {
        return tpPlan_FileFail(file, err, errlen,
                               "temporal.conditions[%d].kind: expected sequence, ever, never, within_time or at_time",
                               i);
    }
    if (!read_int(cJSON_GetObjectItemCaseSensitive(o, "size"), 1, TP_PLAN_MAX_TEMPORAL_SIZE, &t->size)) {
        return tpPlan_FileFail(file, err, errlen, "temporal.conditions[%d].size: expected an integer in 1..%d", i,
                               TP_PLAN_MAX_TEMPORAL_SIZE);
    }
    t->name = strdup(name->valuestring);
    t->kind = strdup(kind->valuestring);
    if (!t->name || !t->kind) {
        return tpPlan_FileFail(file, err, errlen, "temporal: out of memory");
    }
    return true;
}

static bool read_changes(const char *file, const cJSON *a, int j, tpPlanWorld *w, char *err, size_t errlen)
{
    int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    if (n < 0) {
        return tpPlan_FileFail(file, err, errlen, "temporal.changes[%d]: expected an array of [step, condition, value]",
                               j);
    }
    w->tchanges = malloc(sizeof *w->tchanges * 3 * (size_t)(n > 0 ? n : 1));
    if (!w->tchanges) {
        return tpPlan_FileFail(file, err, errlen, "temporal: out of memory");
    }
    int k = 0;
    for (const cJSON *c = a->child; c; c = c->next, ++k) {
        int v[3];
        const cJSON *e = cJSON_IsArray(c) && cJSON_GetArraySize(c) == 3 ? c->child : NULL;
        for (int q = 0; q < 3; ++q, e = e ? e->next : NULL) {
            if (!e || !read_int(e, -2147483648.0, 2147483647.0, &v[q])) {
                return tpPlan_FileFail(file, err, errlen,
                                       "temporal.changes[%d][%d]: expected 3 integers [step, condition, value]", j, k);
            }
        }
        memcpy(w->tchanges + 3 * k, v, sizeof v);
        w->ntchanges = k + 1;
    }
    return true;
}

bool tpPlan_ReadTemporal(const char *file, const cJSON *root, tpPlanRecord *rec, char *err, size_t errlen)
{
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(root, "temporal");
    if (!tm) {
        return true; /* optional: domains without temporal conditions, and older plans, have none */
    }
    if (!cJSON_IsObject(tm)) {
        return tpPlan_FileFail(file, err, errlen, "temporal: expected an object");
    }
    int version = 0;
    if (!read_int(cJSON_GetObjectItemCaseSensitive(tm, "version"), 1, 1e9, &version)) {
        return tpPlan_FileFail(file, err, errlen, "temporal.version: expected an integer >= 1");
    }
    if (version > TP_PLAN_TEMPORAL_VERSION) {
        return tpPlan_FileFail(file, err, errlen, "temporal.version: %d is not supported (this reader knows 1..%d)",
                               version, TP_PLAN_TEMPORAL_VERSION);
    }
    for (const cJSON *m = tm->child; m; m = m->next) {
        if (strcmp(m->string, "version") != 0 && strcmp(m->string, "conditions") != 0 &&
            strcmp(m->string, "changes") != 0 && strcmp(m->string, "unmet") != 0) {
            return tpPlan_FileFail(file, err, errlen,
                                   "temporal: unknown field \"%.64s\" (expected version, conditions, changes, unmet)",
                                   m->string);
        }
    }
    const cJSON *conds = cJSON_GetObjectItemCaseSensitive(tm, "conditions");
    int n = cJSON_IsArray(conds) ? cJSON_GetArraySize(conds) : -1;
    if (n < 1 || n > TP_PLAN_MAX_TEMPORAL) {
        return tpPlan_FileFail(file, err, errlen, "temporal.conditions: expected an array of 1..%d conditions",
                               TP_PLAN_MAX_TEMPORAL);
    }
    rec->temporal = calloc((size_t)n, sizeof *rec->temporal);
    if (!rec->temporal) {
        return tpPlan_FileFail(file, err, errlen, "temporal: out of memory");
    }
    rec->ntemporal = n;
    int i = 0;
    for (const cJSON *o = conds->child; o; o = o->next, ++i) {
        if (!read_condition(file, o, i, &rec->temporal[i], err, errlen)) {
            return false;
        }
    }
    const cJSON *changes = cJSON_GetObjectItemCaseSensitive(tm, "changes");
    if (!cJSON_IsArray(changes) || cJSON_GetArraySize(changes) != rec->nworlds) {
        return tpPlan_FileFail(file, err, errlen,
                               "temporal.changes: expected an array of %d arrays (one per world: the plan, then "
                               "the alternatives)",
                               rec->nworlds);
    }
    int j = 0;
    for (const cJSON *a = changes->child; a; a = a->next, ++j) {
        if (!read_changes(file, a, j, &rec->worlds[j], err, errlen)) { /* read: worlds[0] is the plan's */
            return false;
        }
    }
    const cJSON *unmet = cJSON_GetObjectItemCaseSensitive(tm, "unmet");
    if (unmet) {
        if (!cJSON_IsString(unmet) || !unmet->valuestring) {
            return tpPlan_FileFail(file, err, errlen, "temporal.unmet: expected a string");
        }
        if (!(rec->goal_unmet = strdup(unmet->valuestring))) {
            return tpPlan_FileFail(file, err, errlen, "temporal: out of memory");
        }
    }
    char msg[512];
    if (!check_temporal(rec, version, msg, sizeof msg)) {
        return tpPlan_FileFail(file, err, errlen, "%s", msg);
    }
    return true;
}
