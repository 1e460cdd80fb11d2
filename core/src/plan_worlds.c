/* Per-world summaries (tp/query.h): what the many-worlds browser needs of each
 * solution without its trajectories. The plan member "worlds" (docs/plan-format.md, written only
 * when the plan has alternatives, so every single-world plan keeps its bytes) holds them with its own
 * version; the reader checks it strictly and does not compare it with the trajectories (like
 * "control": a rewrite recomputes it). tpQuery_Browse is the one answer the CLI, libtplan and the
 * service give: every summary, whether it matches a query, and the matching worlds ranked. */
#define _GNU_SOURCE /* open_memstream */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/base.h"
#include "tp/query.h"

#define WORLDS_VERSION 1

static bool goal_inside(const tpPlanGoalRegion *g, const double *x)
{
    double d2 = 0;
    switch (g->kind) {
    case TP_GOAL_CIRCLE:
        d2 = (x[0] - g->center[0]) * (x[0] - g->center[0]) + (x[1] - g->center[1]) * (x[1] - g->center[1]);
        return d2 <= g->radius * g->radius;
    case TP_GOAL_SPHERE:
        for (int k = 0; k < 3; k++) {
            d2 += (x[k] - g->center[k]) * (x[k] - g->center[k]);
        }
        return d2 <= g->radius * g->radius;
    default:
        for (int k = 0; k < 3; k++) {
            if (x[k] < g->lo[k] || x[k] > g->hi[k]) {
                return false;
            }
        }
        return true;
    }
}

static const double *state_at(const tpPlanRecord *rec, const tpPlanWorld *w, int b, int i)
{
    return rec->bodies[b].moving && w->traj && w->traj[b] ? w->traj[b] + (size_t)i * TP_STATE_DOUBLES
                                                          : rec->bodies[b].pose;
}

void tpQuery_PutSummary(FILE *f, const tpPlanRecord *rec, int k)
{
    TP_ASSERT(rec && k >= 0 && k < rec->nworlds);
    int *order = malloc((size_t)rec->nworlds * sizeof *order);
    if (!order) {
        fputs("null", f);
        return;
    }
    tpQuery_FileOrder(rec, order);
    const int wi = order[k];
    free(order);
    const tpPlanWorld *w = &rec->worlds[wi];
    const double t0 = rec->has_start ? rec->start_time : 0.0;
    tpPlanControl total;
    tpPlanWorld_Control(rec, w, NULL, &total);
    fprintf(f, "{\"world\": %d, \"selected\": %s, \"steps\": %d, \"duration\": ", k, k == 0 ? "true" : "false",
            w->nsteps);
    tpPlan_PutDouble(f, w->nsteps * rec->dt);
    fputs(", \"cost\": ", f);
    tpPlan_PutDouble(f, w->cost);
    fputs(", \"control\": {\"impulse\": ", f);
    tpPlan_PutDouble(f, total.impulse);
    fputs(", \"angular_impulse\": ", f);
    tpPlan_PutDouble(f, total.angular_impulse);
    fputs(", \"work\": ", f);
    tpPlan_PutDouble(f, total.work);
    fputs(", \"time\": ", f);
    tpPlan_PutDouble(f, total.time);
    tpQuery q = {.nclauses = 1, .clauses = {{.kind = TP_QUERY_REST, .body = -1, .other = -1}}};
    fprintf(f, "}, \"at_rest\": %s, \"end\": {", tpQuery_Holds(&q, rec, wi) ? "true" : "false");
    bool first = true;
    for (int b = 0; b < rec->nbodies; b++) {
        if (!rec->bodies[b].moving) {
            continue;
        }
        const double *x = state_at(rec, w, b, w->nsteps);
        fputs(first ? "" : ", ", f);
        tpPlan_PutString(f, rec->bodies[b].name);
        for (int j = 0; j < 3; j++) {
            fputs(j ? ", " : ": [", f);
            tpPlan_PutDouble(f, x[j]);
        }
        fputs(", ", f);
        tpPlan_PutDouble(f, sqrt(x[7] * x[7] + x[8] * x[8] + x[9] * x[9]));
        fputc(']', f);
        first = false;
    }
    fputs("}, \"goal\": [", f);
    for (int g = 0; g < rec->ngoal_regions; g++) {
        const tpPlanGoalRegion *r = &rec->goal_regions[g];
        int in = -1;
        for (int i = 0; i <= w->nsteps && in < 0; i++) {
            in = goal_inside(r, state_at(rec, w, r->body, i)) ? i : -1;
        }
        fputs(g ? ", [" : "[", f);
        if (in < 0) {
            fputs("null", f);
        } else {
            tpPlan_PutDouble(f, t0 + in * rec->dt);
        }
        fprintf(f, ", %s]", goal_inside(r, state_at(rec, w, r->body, w->nsteps)) ? "true" : "false");
    }
    fputs("], \"temporal\": [", f);
    for (int c = 0; c < w->ntchanges; c++) {
        const int32_t *e = w->tchanges + 3 * c;
        fputs(c ? ", [" : "[", f);
        tpPlan_PutDouble(f, t0 + e[0] * rec->dt);
        fprintf(f, ", %d, %d]", (int)e[1], (int)e[2]);
    }
    fputs("]}", f);
}

void tpPlan_PutWorlds(FILE *f, const tpPlanRecord *rec)
{
    if (rec->nworlds < 2) {
        return; /* one world: nothing to browse, and the plan keeps its bytes */
    }
    fprintf(f, "  \"worlds\": {\"version\": %d, \"summaries\": [", WORLDS_VERSION);
    for (int k = 0; k < rec->nworlds; k++) {
        fputs(k ? ",\n    " : "\n    ", f);
        tpQuery_PutSummary(f, rec, k);
    }
    fputs("\n  ]},\n", f);
}

/* ---- reader --------------------------------------------------------------------------------- */

static bool finite_num(const cJSON *v)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble);
}

static bool numbers(const cJSON *a, int n)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) {
        return false;
    }
    for (const cJSON *v = a->child; v; v = v->next) {
        if (!finite_num(v)) {
            return false;
        }
    }
    return true;
}

static bool read_summary(const char *file, const cJSON *s, int k, int world_steps, const tpPlanRecord *rec, char *err,
                         size_t errlen)
{
    static const char *const keys[] = {"world",   "selected", "steps", "duration", "cost",
                                       "control", "at_rest",  "end",   "goal",     "temporal"};
    const int nkeys = (int)(sizeof keys / sizeof *keys);
    if (!cJSON_IsObject(s)) {
        return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d]: expected an object", k);
    }
    int n = 0;
    for (const cJSON *m = s->child; m; m = m->next, n++) {
        bool known = false;
        for (int j = 0; j < nkeys; j++) {
            known = known || strcmp(m->string, keys[j]) == 0;
        }
        if (!known) {
            return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d]: unknown field \"%.64s\"", k, m->string);
        }
    }
    for (int j = 0; j < nkeys; j++) {
        if (!cJSON_GetObjectItemCaseSensitive(s, keys[j])) {
            return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d]: missing field \"%s\"", k, keys[j]);
        }
    }
    if (n != nkeys) {
        return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d]: duplicate fields", k);
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, "world");
    if (!cJSON_IsNumber(v) || v->valuedouble != k) {
        return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d].world: expected %d (the file's order)", k, k);
    }
    v = cJSON_GetObjectItemCaseSensitive(s, "selected");
    if (!cJSON_IsBool(v) || cJSON_IsTrue(v) != (k == 0)) {
        return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d].selected: expected %s", k,
                               k == 0 ? "true" : "false");
    }
    v = cJSON_GetObjectItemCaseSensitive(s, "steps");
    if (!cJSON_IsNumber(v) || v->valuedouble != world_steps) {
        return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d].steps: expected %d (the world's steps)", k,
                               world_steps);
    }
    static const char *const nums[] = {"duration", "cost"};
    for (int j = 0; j < 2; j++) {
        v = cJSON_GetObjectItemCaseSensitive(s, nums[j]);
        if (!finite_num(v) || (j == 0 && v->valuedouble < 0)) {
            return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d].%s: expected a finite number%s", k, nums[j],
                                   j == 0 ? " >= 0" : "");
        }
    }
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(s, "control");
    static const char *const ckeys[] = {"impulse", "angular_impulse", "work", "time"};
    if (!cJSON_IsObject(c) || cJSON_GetArraySize(c) != 4) {
        return tpPlan_FileFail(file, err, errlen,
                               "worlds.summaries[%d].control: expected {impulse, angular_impulse, work, time}", k);
    }
    for (int j = 0; j < 4; j++) {
        if (!finite_num(cJSON_GetObjectItemCaseSensitive(c, ckeys[j]))) {
            return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d].control.%s: expected a finite number", k,
                                   ckeys[j]);
        }
    }
    if (!cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(s, "at_rest"))) {
        return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d].at_rest: expected true or false", k);
    }
    const cJSON *end = cJSON_GetObjectItemCaseSensitive(s, "end");
    int nmoving = 0;
    for (int b = 0; b < rec->nbodies; b++) {
        if (!rec->bodies[b].moving) {
            continue;
        }
        nmoving++;
        if (!numbers(cJSON_GetObjectItemCaseSensitive(end, rec->bodies[b].name), 4)) {
            return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d].end.%.128s: expected [x, y, z, speed]", k,
                                   rec->bodies[b].name);
        }
    }
    if (!cJSON_IsObject(end) || cJSON_GetArraySize(end) != nmoving) {
        return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d].end: expected one entry per moving body (%d)",
                               k, nmoving);
    }
    const cJSON *goal = cJSON_GetObjectItemCaseSensitive(s, "goal");
    if (!cJSON_IsArray(goal) || cJSON_GetArraySize(goal) != rec->ngoal_regions) {
        return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d].goal: expected one entry per goal region (%d)",
                               k, rec->ngoal_regions);
    }
    int j = 0;
    for (const cJSON *g = goal->child; g; g = g->next, j++) {
        if (!cJSON_IsArray(g) || cJSON_GetArraySize(g) != 2 || !(cJSON_IsNull(g->child) || finite_num(g->child)) ||
            !cJSON_IsBool(g->child->next)) {
            return tpPlan_FileFail(file, err, errlen,
                                   "worlds.summaries[%d].goal[%d]: expected [first time inside or null, inside at "
                                   "the end]",
                                   k, j);
        }
    }
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(s, "temporal");
    if (!cJSON_IsArray(tm)) {
        return tpPlan_FileFail(file, err, errlen, "worlds.summaries[%d].temporal: expected an array", k);
    }
    j = 0;
    for (const cJSON *e = tm->child; e; e = e->next, j++) {
        if (!numbers(e, 3) || e->child->next->valuedouble < 0 || e->child->next->valuedouble >= rec->ntemporal ||
            e->child->next->valuedouble != floor(e->child->next->valuedouble)) {
            return tpPlan_FileFail(file, err, errlen,
                                   "worlds.summaries[%d].temporal[%d]: expected [t, condition 0..%d, value]", k, j,
                                   rec->ntemporal - 1);
        }
    }
    return true;
}

bool tpPlan_ReadWorlds(const char *file, const cJSON *root, const tpPlanRecord *rec, char *err, size_t errlen)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "worlds");
    if (!m) {
        return true; /* optional: single-world plans and older files have none */
    }
    if (!cJSON_IsObject(m)) {
        return tpPlan_FileFail(file, err, errlen, "worlds: expected an object");
    }
    for (const cJSON *c = m->child; c; c = c->next) {
        if (strcmp(c->string, "version") != 0 && strcmp(c->string, "summaries") != 0) {
            return tpPlan_FileFail(file, err, errlen, "worlds: unknown field \"%.64s\" (expected version, summaries)",
                                   c->string);
        }
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "version");
    if (!cJSON_IsNumber(v)) {
        return tpPlan_FileFail(file, err, errlen, "worlds.version: expected an integer");
    }
    if (v->valuedouble != WORLDS_VERSION) {
        return tpPlan_FileFail(file, err, errlen, "worlds.version: %g is not supported (this reader knows %d)",
                               v->valuedouble, WORLDS_VERSION);
    }
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(m, "summaries");
    if (!cJSON_IsArray(s) || cJSON_GetArraySize(s) != rec->nworlds) {
        return tpPlan_FileFail(file, err, errlen, "worlds.summaries: expected one summary per world (%d)",
                               rec->nworlds);
    }
    int *order = malloc((size_t)rec->nworlds * sizeof *order);
    if (!order) {
        return tpPlan_FileFail(file, err, errlen, "worlds: out of memory");
    }
    tpQuery_FileOrder(rec, order);
    int k = 0;
    bool ok = true;
    for (const cJSON *e = s->child; ok && e; e = e->next, k++) {
        ok = read_summary(file, e, k, rec->worlds[order[k]].nsteps, rec, err, errlen);
    }
    free(order);
    return ok;
}

/* ---- the browser's answer ------------------------------------------------------------------- */

typedef struct {
    const tpPlanRecord *rec;
    const int *order;
    int nkeys;
    tpQueryFigure figs[TP_QUERY_MAX_RANK];
    bool desc[TP_QUERY_MAX_RANK];
    double *values; /* nworlds x nkeys, by file order */
} Ranking;

static int compare_rank(const Ranking *r, int a, int b)
{
    for (int k = 0; k < r->nkeys; k++) {
        double x = r->values[a * r->nkeys + k], y = r->values[b * r->nkeys + k];
        if (x != y) {
            return (x < y) != r->desc[k] ? -1 : 1;
        }
    }
    return a < b ? -1 : a > b; /* ties: file order */
}

bool tpQuery_Browse(const tpPlanRecord *rec, const char *query, const char *rank, char **out, size_t *len, char *err,
                    size_t errlen)
{
    TP_ASSERT(rec && out && len && rec->nworlds >= 1);
    *out = NULL, *len = 0;
    tpQuery *q = calloc(1, sizeof *q);
    Ranking r = {.rec = rec};
    int *order = malloc((size_t)rec->nworlds * sizeof *order), *match = malloc((size_t)rec->nworlds * sizeof *match);
    bool ok = q && order && match;
    if (!ok) {
        tpErrorf(err, errlen, "out of memory");
    }
    ok = ok && tpQuery_Parse(q, rec, query ? query : "", err, errlen);
    if (ok && rank && *rank) {
        r.nkeys = tpQuery_ParseRank(rank, r.figs, r.desc, err, errlen);
        ok = r.nkeys >= 0;
    }
    if (ok) {
        tpQuery_FileOrder(rec, order);
        r.order = order;
        r.values = calloc((size_t)rec->nworlds * (size_t)(r.nkeys > 0 ? r.nkeys : 1), sizeof *r.values);
        ok = r.values != NULL;
        if (!ok) {
            tpErrorf(err, errlen, "out of memory");
        }
    }
    int nmatch = 0;
    FILE *f = NULL;
    if (ok) {
        f = open_memstream(out, len);
        ok = f != NULL;
        if (!ok) {
            tpErrorf(err, errlen, "out of memory");
        }
    }
    if (ok) {
        fputs("{\"worlds\": [", f);
        for (int k = 0; k < rec->nworlds; k++) {
            bool holds = tpQuery_Holds(q, rec, order[k]);
            for (int j = 0; j < r.nkeys; j++) {
                r.values[k * r.nkeys + j] = tpQuery_Figure(rec, order[k], r.figs[j]);
            }
            if (holds) {
                /* insertion by rank: few worlds (K solutions) */
                int at = nmatch++;
                while (at > 0 && compare_rank(&r, k, match[at - 1]) < 0) {
                    match[at] = match[at - 1];
                    at--;
                }
                match[at] = k;
            }
            fputs(k ? ",\n  " : "\n  ", f);
            tpQuery_PutSummary(f, rec, k);
            /* the summary's closing brace is replaced by the match flag */
            fseek(f, -1, SEEK_CUR);
            fprintf(f, ", \"match\": %s}", holds ? "true" : "false");
        }
        fputs("\n], \"order\": [", f);
        for (int k = 0; k < nmatch; k++) {
            fprintf(f, k ? ", %d" : "%d", match[k]);
        }
        fputs("]}\n", f);
        ok = fclose(f) == 0;
        if (!ok) {
            tpErrorf(err, errlen, "out of memory");
        }
    }
    if (!ok) {
        free(*out);
        *out = NULL, *len = 0;
    }
    free(r.values);
    free(order);
    free(match);
    free(q);
    return ok;
}
