/* Plan records: lifetime (alloc/free) and the JSON writer (format in docs/plan-format.md).
 *
 * The writer streams with stdio instead of building a cJSON tree because a trajectory can
 * hold millions of numbers. It validates the whole record before opening the file, so a
 * refused record never leaves a half-written file behind, and it applies the same rules as
 * the reader, so it never writes a file that tplan itself would refuse to read. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/util.h"
#include "tp/base.h"
#include "tp/plan.h"
#include "tplan/version.h"

#define TP_JSON_INT_LIMIT (INT64_C(1) << 53)

const char *const tpPlan_Classes[] = {"static", "passive", "active", "foreign", NULL};
const char *const tpPlan_Shapes[] = {"box", "sphere", "cylinder", "capsule", "plane", "mesh", "compound", NULL};
const char *const tpPlan_Statuses[] = {"solved", "approximate", NULL};
const char *const tpPlan_Algorithms[] = {"bgt", "rrt", NULL};

bool tpPlanView_Valid(const tpPlanView *v)
{
    bool ok =
        isfinite(v->yaw) && isfinite(v->pitch) && isfinite(v->distance) && v->distance >= 0 && fabs(v->pitch) <= 89.9;
    for (int k = 0; k < 3 && v->has_target; ++k) {
        ok = ok && isfinite(v->target[k]);
    }
    return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* Lifetime                                                                                   */

void tpPlanWorld_FreeArrays(tpPlanWorld *w, int nbodies, int ntactics)
{
    if (!w) {
        return;
    }
    if (w->traj) {
        for (int i = 0; i < nbodies; ++i) {
            free(w->traj[i]);
        }
    }
    if (w->controls) {
        for (int i = 0; i < nbodies; ++i) {
            free(w->controls[i]);
        }
    }
    if (w->active) {
        for (int i = 0; i < ntactics; ++i) {
            free(w->active[i]);
        }
    }
    free(w->traj);
    free(w->controls);
    free(w->active);
    free(w->rest);
    free(w->tactics);
    free(w->targets);
    free(w->tchanges);
    memset(w, 0, sizeof *w);
}

bool tpPlanWorld_Alloc(tpPlanWorld *w, const tpPlanRecord *rec, int nsteps)
{
    memset(w, 0, sizeof *w);
    if (nsteps < 0 || rec->nbodies < 0 || rec->ntactics < 0) {
        return false;
    }
    w->nsteps = nsteps;
    /* calloc(0) may return NULL; one spare slot keeps "NULL = failure" unambiguous. */
    w->traj = calloc((size_t)rec->nbodies + 1, sizeof *w->traj);
    w->controls = calloc((size_t)rec->nbodies + 1, sizeof *w->controls);
    w->active = calloc((size_t)rec->ntactics + 1, sizeof *w->active);
    if (!w->traj || !w->controls || !w->active) {
        goto fail;
    }
    if (rec->nmotors > 0) {
        w->targets = calloc((size_t)nsteps * (size_t)rec->nmotors + 1, sizeof(double));
        if (!w->targets) {
            goto fail;
        }
    }
    for (int i = 0; i < rec->nbodies; ++i) {
        if (rec->bodies[i].moving) {
            w->traj[i] = calloc(((size_t)nsteps + 1) * TP_STATE_DOUBLES, sizeof(double));
            if (!w->traj[i]) {
                goto fail;
            }
        }
        if (rec->bodies[i].controlled) {
            w->controls[i] = calloc((size_t)nsteps * TP_CONTROL_DOUBLES + 1, sizeof(double));
            if (!w->controls[i]) {
                goto fail;
            }
        }
    }
    for (int t = 0; t < rec->ntactics; ++t) {
        w->active[t] = calloc((size_t)nsteps + 1, sizeof(int32_t));
        if (!w->active[t]) {
            goto fail;
        }
    }
    return true;
fail:
    tpPlanWorld_FreeArrays(w, rec->nbodies, rec->ntactics);
    return false;
}

void tpPlanRecord_Free(tpPlanRecord *rec)
{
    if (!rec) {
        return;
    }
    free(rec->domain_name);
    free(rec->domain_file);
    free(rec->domain_hash);
    free(rec->tplan_version);
    free(rec->planner);
    free(rec->status);
    free(rec->overrides);
    free(rec->start_rest);
    for (int i = 0; i < rec->nwarnings && rec->warnings; ++i) {
        free(rec->warnings[i]);
    }
    free(rec->warnings);
    if (rec->worlds) {
        for (int k = 0; k < rec->nworlds; ++k) {
            tpPlanWorld_FreeArrays(&rec->worlds[k], rec->nbodies, rec->ntactics);
        }
    }
    free(rec->worlds);
    if (rec->bodies) {
        for (int i = 0; i < rec->nbodies; ++i) {
            free(rec->bodies[i].name);
            free(rec->bodies[i].cls);
            free(rec->bodies[i].shape);
            free(rec->bodies[i].mesh_vertices);
            free(rec->bodies[i].mesh_triangles);
            tpPlan_FreeParts(&rec->bodies[i]);
        }
    }
    free(rec->bodies);
    if (rec->tactics) {
        for (int t = 0; t < rec->ntactics; ++t) {
            tpPlanTactic *tac = &rec->tactics[t];
            free(tac->name);
            free(tac->body);
            if (tac->skills) {
                for (int s = 0; s < tac->nskills; ++s) {
                    free(tac->skills[s]);
                }
            }
            free(tac->skills);
        }
    }
    free(rec->tactics);
    if (rec->motors) {
        for (int m = 0; m < rec->nmotors; ++m) {
            free(rec->motors[m].joint);
        }
    }
    free(rec->motors);
    tpPlan_FreeOverlays(rec);
    tpPlan_FreeSources(rec);
    tpPlan_FreeGoal(rec);
    tpPlan_FreeJoints(rec);
    tpPlan_FreeTemporal(rec);
    memset(rec, 0, sizeof *rec);
}

/* ------------------------------------------------------------------------------------------ */
/* Validation (before anything is written)                                                    */

typedef struct tpCheck {
    const char *path; /* output file, for messages */
    char *err;
    size_t errlen;
} tpCheck;

static bool check_fail(const tpCheck *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool check_fail(const tpCheck *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tpErrorf(c->err, c->errlen, "%s: %s; refusing to write the plan", c->path, msg);
    return false;
}

/* Path of a world's data in the file: the selected world lives at the top level, the
 * others under alternatives[k] in world order. Used only to name fields in messages. */
static int alternative_index(const tpPlanRecord *rec, int w)
{
    return w < rec->selected ? w : w - 1;
}

static bool check_finite(const tpCheck *c, const double *v, int n, const char *field)
{
    for (int i = 0; i < n; ++i) {
        if (!isfinite(v[i])) {
            return check_fail(c, "%s[%d]: not a finite number (%g)", field, i, v[i]);
        }
    }
    return true;
}

static bool check_rows(const tpCheck *c, const double *v, int rows, int cols, const char *field)
{
    for (int r = 0; r < rows; ++r) {
        for (int j = 0; j < cols; ++j) {
            double x = v[(size_t)r * (size_t)cols + (size_t)j];
            if (!isfinite(x)) {
                return check_fail(c, "%s[%d][%d]: not a finite number (%g)", field, r, j, x);
            }
        }
    }
    return true;
}

/* The physical ranges of plan_range.c, row by row (single: one row named "field[col]"). */
static bool check_ranges(const tpCheck *c, const double *v, int rows, int cols, const char *field, bool single,
                         int (*problem)(const double *, char *, size_t))
{
    char why[160];
    for (int r = 0; r < rows; ++r) {
        int j = problem(v + (size_t)r * (size_t)cols, why, sizeof why);
        if (j >= 0) {
            return single ? check_fail(c, "%s[%d]: %s", field, j, why)
                          : check_fail(c, "%s[%d][%d]: %s", field, r, j, why);
        }
    }
    return true;
}

static bool check_string(const tpCheck *c, const char *s, const char *field)
{
    return s ? true : check_fail(c, "%s: missing (NULL)", field);
}

static bool check_world(const tpCheck *c, const tpPlanRecord *rec, int wi)
{
    const tpPlanWorld *w = &rec->worlds[wi];
    char base[64], field[192];
    if (wi == rec->selected) {
        base[0] = '\0';
    } else {
        snprintf(base, sizeof base, "alternatives[%d].", alternative_index(rec, wi));
    }
    if (w->nsteps < 0 || w->nsteps > INT32_MAX - 1) {
        return check_fail(c, "%ssteps: invalid step count %d", base, w->nsteps);
    }
    snprintf(field, sizeof field, "%scost", base);
    if (!check_finite(c, &w->cost, 1, field)) {
        return false;
    }
    if ((rec->nbodies > 0 && (!w->traj || !w->controls)) || (rec->ntactics > 0 && !w->active)) {
        return check_fail(c, "worlds[%d]: arrays not allocated", wi);
    }
    for (int i = 0; i < rec->nbodies; ++i) {
        const tpPlanBody *b = &rec->bodies[i];
        if (b->moving) {
            if (wi == rec->selected) {
                snprintf(field, sizeof field, "bodies[%d].trajectory", i);
            } else {
                snprintf(field, sizeof field, "%strajectories.%s", base, b->name);
            }
            if (!w->traj[i]) {
                return check_fail(c, "%s: missing (NULL) for a moving body", field);
            }
            if (!check_rows(c, w->traj[i], w->nsteps + 1, TP_STATE_DOUBLES, field) ||
                !check_ranges(c, w->traj[i], w->nsteps + 1, TP_STATE_DOUBLES, field, false, tpPlan_StateProblem)) {
                return false;
            }
        }
        if (b->controlled) {
            if (wi == rec->selected) {
                snprintf(field, sizeof field, "bodies[%d].controls", i);
            } else {
                snprintf(field, sizeof field, "%scontrols.%s", base, b->name);
            }
            if (!w->controls[i] && w->nsteps > 0) {
                return check_fail(c, "%s: missing (NULL) for a controlled body", field);
            }
            if (!check_rows(c, w->controls[i], w->nsteps, TP_CONTROL_DOUBLES, field) ||
                !check_ranges(c, w->controls[i], w->nsteps, TP_CONTROL_DOUBLES, field, false, tpPlan_ControlProblem)) {
                return false;
            }
        }
    }
    if (rec->nmotors > 0) {
        if (wi == rec->selected) {
            snprintf(field, sizeof field, "motors");
        } else {
            snprintf(field, sizeof field, "%smotor_targets", base);
        }
        if (!w->targets && w->nsteps > 0) {
            return check_fail(c, "%s: missing (NULL) for a plan with driven motors", field);
        }
        for (size_t k = 0; k < (size_t)w->nsteps * (size_t)rec->nmotors; ++k) {
            if (!(fabs(w->targets[k]) <= TP_PLAN_MAX_MOTOR_SPEED)) {
                return check_fail(c, "%s: step %zu, joint \"%s\": target %.17g is not a speed within +-%g", field,
                                  k / (size_t)rec->nmotors, rec->motors[k % (size_t)rec->nmotors].joint, w->targets[k],
                                  TP_PLAN_MAX_MOTOR_SPEED);
            }
        }
    }
    for (int t = 0; t < rec->ntactics; ++t) {
        const tpPlanTactic *tac = &rec->tactics[t];
        if (wi == rec->selected) {
            snprintf(field, sizeof field, "tactics[%d].active", t);
        } else {
            snprintf(field, sizeof field, "%sactive.%s", base, tac->name);
        }
        if (!w->active[t] && w->nsteps > 0) {
            return check_fail(c, "%s: missing (NULL)", field);
        }
        for (int s = 0; s < w->nsteps; ++s) {
            int32_t a = w->active[t][s];
            if (a < 0 || a >= tac->nskills) {
                return check_fail(c, "%s[%d]: skill index %" PRId32 " out of range [0, %d)", field, s, a, tac->nskills);
            }
        }
    }
    return true;
}

/* Checks the record; on success *overrides_out holds the normalized overrides text (or NULL). */
static bool check_record(const tpCheck *c, const tpPlanRecord *rec, char **overrides_out)
{
    char field[128];
    *overrides_out = NULL;
    if (!check_string(c, rec->domain_name, "domain.name") || !check_string(c, rec->domain_file, "domain.file")) {
        return false;
    }
    if (!tpPlan_IsHashString(rec->domain_hash)) {
        return check_fail(c, "domain.hash: expected \"fnv1a64:\" and 16 lowercase hex digits, got \"%s\"",
                          rec->domain_hash ? rec->domain_hash : "(null)");
    }
    if (!tpPlan_IsOneOf(rec->planner, tpPlan_Algorithms)) {
        return check_fail(c, "planner.algorithm: expected \"bgt\" or \"rrt\", got \"%s\"",
                          rec->planner ? rec->planner : "(null)");
    }
    if (!tpPlan_IsOneOf(rec->status, tpPlan_Statuses)) {
        return check_fail(c, "status: expected \"solved\" or \"approximate\", got \"%s\"",
                          rec->status ? rec->status : "(null)");
    }
    if (!check_finite(c, &rec->mu, 1, "planner.mu") || !check_finite(c, &rec->time_limit, 1, "planner.time_limit") ||
        !check_finite(c, &rec->dt, 1, "dt")) {
        return false;
    }
    if (!(rec->dt > 0.0 && rec->dt <= TP_PLAN_MAX_DT)) {
        return check_fail(c, "dt: %.17g is not a step length in (0, %g] s", rec->dt, TP_PLAN_MAX_DT);
    }
    if (rec->has_start && (!rec->start_rest || !(rec->start_time >= 0 && rec->start_time <= TP_PLAN_MAX_START_TIME))) {
        return check_fail(c, "start.time: %.17g is not a time in [0, %g] s (or no rest counts)", rec->start_time,
                          TP_PLAN_MAX_START_TIME);
    }
    if (rec->nmotors < 0 || rec->nmotors > TP_PLAN_MAX_MOTORS || (rec->nmotors > 0 && !rec->motors)) {
        return check_fail(c, "motors: %d entries (at most %d)", rec->nmotors, TP_PLAN_MAX_MOTORS);
    }
    for (int m = 0; m < rec->nmotors; ++m) {
        snprintf(field, sizeof field, "motors[%d].joint", m);
        if (!check_string(c, rec->motors[m].joint, field)) {
            return false;
        }
        if (rec->motors[m].axis != 0 && rec->motors[m].axis != 1) {
            return check_fail(c, "motors[%d].axis: %d is not axis 0 or 1", m, rec->motors[m].axis);
        }
    }
    if (rec->view.set && !tpPlanView_Valid(&rec->view)) {
        return check_fail(c, "view: expected finite numbers, distance >= 0 and pitch within -89.9..89.9 degrees");
    }
    if (rec->nreports < 0 || rec->nreports > TP_PLAN_MAX_REPORTS) {
        return check_fail(c, "stats.report: %d entries (at most %d)", rec->nreports, TP_PLAN_MAX_REPORTS);
    }
    for (int i = 0; i < rec->nreports; ++i) {
        snprintf(field, sizeof field, "stats.report.%.63s", rec->report_names[i]);
        if (!rec->report_names[i][0] || !check_finite(c, &rec->report_values[i], 1, field)) {
            return rec->report_names[i][0] ? false : check_fail(c, "stats.report: entry %d has no name", i + 1);
        }
    }
    if (rec->nwarnings < 0 || rec->nwarnings > TP_PLAN_MAX_WARNINGS || (rec->nwarnings > 0 && !rec->warnings)) {
        return check_fail(c, "stats.warnings: %d entries (at most %d)", rec->nwarnings, TP_PLAN_MAX_WARNINGS);
    }
    for (int i = 0; i < rec->nwarnings; ++i) {
        if (!rec->warnings[i] || strlen(rec->warnings[i]) >= TP_PLAN_MAX_WARNING_BYTES) {
            return check_fail(c, "stats.warnings[%d]: missing or longer than %d bytes", i,
                              TP_PLAN_MAX_WARNING_BYTES - 1);
        }
    }
    /* Counts travel through JSON numbers (doubles): beyond 2^53 they would not read back. */
    const int64_t counts[6] = {rec->max_iters, rec->iterations,   rec->nodes,
                               rec->rejected,  rec->memory_bytes, rec->nodes_first};
    static const char *const count_names[6] = {"planner.max_iters", "stats.iterations",   "stats.nodes",
                                               "stats.rejected",    "stats.memory_bytes", "stats.first_solution_nodes"};
    for (int i = 0; i < 6; ++i) {
        if (counts[i] > TP_JSON_INT_LIMIT || counts[i] < -TP_JSON_INT_LIMIT) {
            return check_fail(c, "%s: %" PRId64 " is beyond the exact range of JSON numbers (2^53)", count_names[i],
                              counts[i]);
        }
    }
    char reason[256];
    if (!tpPlan_RejectionsProblem(rec, field, sizeof field, reason, sizeof reason)) {
        return check_fail(c, "%s: %s", field, reason);
    }
    const double timing[6] = {rec->t_select, rec->t_tactics, rec->t_physics,
                              rec->t_check,  rec->t_total,   rec->nodes_first > 0 ? rec->t_first : 0.0};
    if (!check_finite(c, timing, 6, "stats.timing")) {
        return false;
    }
    if (rec->nbodies < 0 || rec->ntactics < 0 || (rec->nbodies > 0 && !rec->bodies) ||
        (rec->ntactics > 0 && !rec->tactics)) {
        return check_fail(c, "invalid body/tactic counts (%d, %d)", rec->nbodies, rec->ntactics);
    }
    if (rec->nworlds < 1 || !rec->worlds || rec->selected < 0 || rec->selected >= rec->nworlds) {
        return check_fail(c, "needs at least one world and a valid selection (nworlds %d, selected %d)", rec->nworlds,
                          rec->selected);
    }
    for (int i = 0; i < rec->nbodies; ++i) {
        const tpPlanBody *b = &rec->bodies[i];
        snprintf(field, sizeof field, "bodies[%d].name", i);
        if (!check_string(c, b->name, field)) {
            return false;
        }
        if (!tpPlan_IsOneOf(b->cls, tpPlan_Classes)) {
            return check_fail(c, "bodies[%d].class: unknown class \"%s\"", i, b->cls ? b->cls : "(null)");
        }
        if (!tpPlan_IsOneOf(b->shape, tpPlan_Shapes)) {
            return check_fail(c, "bodies[%d].shape: unknown shape \"%s\"", i, b->shape ? b->shape : "(null)");
        }
        snprintf(field, sizeof field, "bodies[%d].size", i);
        if (!check_finite(c, b->size, 4, field)) {
            return false;
        }
        char why[160];
        int bad = tpPlan_SizeProblem(b->shape, b->size, why, sizeof why);
        if (bad >= 0) {
            return check_fail(c, "%s[%d]: %s", field, bad, why);
        }
        for (int j = 0; j < 4; ++j) {
            if (!(b->color[j] >= 0.0f && b->color[j] <= 1.0f)) {
                return check_fail(c, "bodies[%d].color[%d]: %g is outside [0, 1]", i, j, (double)b->color[j]);
            }
        }
        if (b->mesh_nvertices != 0 || b->mesh_ntriangles != 0) {
            if (strcmp(b->shape, "mesh") != 0 || b->mesh_nvertices < 3 || b->mesh_ntriangles < 1 ||
                b->mesh_nvertices > TP_PLAN_MAX_MESH_VERTICES || b->mesh_ntriangles > TP_PLAN_MAX_MESH_TRIANGLES ||
                !b->mesh_vertices || !b->mesh_triangles) {
                return check_fail(c, "bodies[%d].mesh: %d vertices and %d triangles on a \"%s\" body", i,
                                  b->mesh_nvertices, b->mesh_ntriangles, b->shape);
            }
            snprintf(field, sizeof field, "bodies[%d].mesh.vertices", i);
            if (!check_finite(c, b->mesh_vertices, 3 * b->mesh_nvertices, field)) {
                return false;
            }
            for (int k = 0; k < 3 * b->mesh_nvertices; ++k) {
                if (fabs(b->mesh_vertices[k]) > TP_MAX_COORD) {
                    return check_fail(c, "%s[%d][%d]: %g is outside +-%g", field, k / 3, k % 3, b->mesh_vertices[k],
                                      TP_MAX_COORD);
                }
            }
            for (int k = 0; k < 3 * b->mesh_ntriangles; ++k) {
                if (b->mesh_triangles[k] < 0 || b->mesh_triangles[k] >= b->mesh_nvertices) {
                    return check_fail(c, "bodies[%d].mesh.triangles[%d][%d]: %d is not a vertex index (%d vertices)", i,
                                      k / 3, k % 3, (int)b->mesh_triangles[k], b->mesh_nvertices);
                }
            }
            snprintf(field, sizeof field, "bodies[%d].mesh.origin", i);
            if (!check_finite(c, b->mesh_origin, 3, field)) {
                return false;
            }
            for (int k = 0; k < 3; ++k) {
                if (fabs(b->mesh_origin[k]) > TP_MAX_COORD) {
                    return check_fail(c, "%s[%d]: %g is outside +-%g", field, k, b->mesh_origin[k], TP_MAX_COORD);
                }
            }
        }
        if (!b->moving) {
            snprintf(field, sizeof field, "bodies[%d].pose", i);
            if (!check_finite(c, b->pose, TP_STATE_DOUBLES, field) ||
                !check_ranges(c, b->pose, 1, TP_STATE_DOUBLES, field, true, tpPlan_StateProblem)) {
                return false;
            }
        }
    }
    for (int t = 0; t < rec->ntactics; ++t) {
        const tpPlanTactic *tac = &rec->tactics[t];
        snprintf(field, sizeof field, "tactics[%d].name", t);
        if (!check_string(c, tac->name, field)) {
            return false;
        }
        snprintf(field, sizeof field, "tactics[%d].body", t);
        if (!check_string(c, tac->body, field)) {
            return false;
        }
        bool found = false;
        for (int i = 0; i < rec->nbodies && !found; ++i) {
            found = strcmp(rec->bodies[i].name, tac->body) == 0;
        }
        if (!found) {
            return check_fail(c, "tactics[%d].body: no body named \"%s\"", t, tac->body);
        }
        if (tac->nskills < 0 || (tac->nskills > 0 && !tac->skills)) {
            return check_fail(c, "tactics[%d].skills: invalid skill count %d", t, tac->nskills);
        }
        for (int s = 0; s < tac->nskills; ++s) {
            snprintf(field, sizeof field, "tactics[%d].skills[%d]", t, s);
            if (!check_string(c, tac->skills[s], field)) {
                return false;
            }
        }
    }
    /* Names are keys in the alternatives' objects, so they must be unique. */
    int n = rec->nbodies > rec->ntactics ? rec->nbodies : rec->ntactics;
    const char **names = malloc(((size_t)n + 1) * sizeof *names);
    if (!names) {
        return check_fail(c, "out of memory");
    }
    int a = 0, b = 0;
    for (int i = 0; i < rec->nbodies; ++i) {
        names[i] = rec->bodies[i].name;
    }
    bool dup_body = tpPlan_FindDuplicate(names, rec->nbodies, &a, &b);
    if (dup_body) {
        free(names);
        return check_fail(c, "bodies[%d].name: \"%s\" is also the name of bodies[%d]", b, rec->bodies[b].name, a);
    }
    for (int t = 0; t < rec->ntactics; ++t) {
        names[t] = rec->tactics[t].name;
    }
    bool dup_tactic = tpPlan_FindDuplicate(names, rec->ntactics, &a, &b);
    free(names);
    if (dup_tactic) {
        return check_fail(c, "tactics[%d].name: \"%s\" is also the name of tactics[%d]", b, rec->tactics[b].name, a);
    }
    for (int wi = 0; wi < rec->nworlds; ++wi) {
        if (!check_world(c, rec, wi)) {
            return false;
        }
    }
    char ov_err[400];
    if (!tpPlan_CheckOverlays(rec, ov_err, sizeof ov_err) || !tpPlan_CheckSources(rec, ov_err, sizeof ov_err) ||
        !tpPlan_CheckGoal(rec, ov_err, sizeof ov_err) || !tpPlan_CheckParts(rec, ov_err, sizeof ov_err) ||
        !tpPlan_CheckJoints(rec, ov_err, sizeof ov_err) || !tpPlan_CheckTemporal(rec, ov_err, sizeof ov_err)) {
        return check_fail(c, "%s", ov_err);
    }
    if (rec->overrides) {
        /* Embedded as a parsed object (normalized by cJSON) so the file stays valid JSON. */
        cJSON *ov = cJSON_Parse(rec->overrides);
        if (!ov || !cJSON_IsObject(ov)) {
            cJSON_Delete(ov);
            return check_fail(c, "overrides: not a JSON object");
        }
        *overrides_out = cJSON_PrintUnformatted(ov);
        cJSON_Delete(ov);
        if (!*overrides_out) {
            return check_fail(c, "overrides: out of memory");
        }
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Output                                                                                     */

static void put_double_array(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; ++i) {
        if (i) {
            fputs(", ", f);
        }
        tpPlan_PutDouble(f, v[i]);
    }
    fputc(']', f);
}

/* One row per line: a trajectory is read by people as a table of states. Most of a plan file's
 * bytes are these rows, so each is built in memory and written with one fwrite, and a number
 * equal, bit for bit, to the one above it in its column reuses that one's text (about half of a
 * minigolf trajectory's numbers: bodies at rest, zero velocities and controls). Same bytes as
 * put_double_array row by row. */
#define TP_ROW_MAX_COLS 16
static void put_rows(FILE *f, const double *v, int rows, int cols, const char *indent)
{
    if (rows == 0) {
        fputs("[]", f);
        return;
    }
    const size_t ind = strlen(indent);
    if (cols > TP_ROW_MAX_COLS || ind > 64) { /* never in a plan file: the same bytes, plainly */
        fputs("[\n", f);
        for (int r = 0; r < rows; ++r) {
            fprintf(f, "%s  ", indent);
            put_double_array(f, v + (size_t)r * (size_t)cols, cols);
            fputs(r + 1 < rows ? ",\n" : "\n", f);
        }
        fprintf(f, "%s]", indent);
        return;
    }
    char text[TP_ROW_MAX_COLS][40] = {{0}}; /* the column's number in the row above, its bits and length */
    uint64_t above[TP_ROW_MAX_COLS];
    int len[TP_ROW_MAX_COLS];
    char line[64 + 8 + TP_ROW_MAX_COLS * 42 + 24], *lp = line; /* indent, "  [", numbers and ", ", "],\n" */
    fputs("[\n", f);
    for (int r = 0; r < rows; ++r) {
        const double *row = v + (size_t)r * (size_t)cols;
        lp = line;
        memcpy(lp, indent, ind);
        lp += ind;
        *lp++ = ' ';
        *lp++ = ' ';
        *lp++ = '[';
        for (int c = 0; c < cols; ++c) {
            uint64_t bits;
            memcpy(&bits, &row[c], sizeof bits);
            if (r == 0 || bits != above[c]) {
                len[c] = tpPlan_FormatDouble(row[c], text[c]);
                above[c] = bits;
            }
            if (c) {
                *lp++ = ',';
                *lp++ = ' ';
            }
            memcpy(lp, text[c], 24); /* a fixed copy (no call per number), then the number's length */
            lp += len[c];
        }
        *lp++ = ']';
        if (r + 1 < rows) {
            *lp++ = ',';
        }
        *lp++ = '\n';
        fwrite(line, 1, (size_t)(lp - line), f);
    }
    fprintf(f, "%s]", indent);
}

/* Column m of a rows x cols table as one array of numbers (a motor's targets). */
static void put_column(FILE *f, const double *v, int rows, int cols, int m)
{
    fputc('[', f);
    for (int i = 0; i < rows; ++i) {
        if (i) {
            fputs(", ", f);
        }
        tpPlan_PutDouble(f, v[(size_t)i * (size_t)cols + (size_t)m]);
    }
    fputc(']', f);
}

static void put_active(FILE *f, const int32_t *a, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; ++i) {
        fprintf(f, i ? ", %" PRId32 : "%" PRId32, a[i]);
    }
    fputc(']', f);
}

static void put_body(FILE *f, const tpPlanRecord *rec, int i)
{
    const tpPlanBody *b = &rec->bodies[i];
    const tpPlanWorld *w = &rec->worlds[rec->selected];
    fputs("    {\n      \"name\": ", f);
    tpPlan_PutString(f, b->name);
    fputs(", \"class\": ", f);
    tpPlan_PutString(f, b->cls);
    fputs(", \"shape\": ", f);
    tpPlan_PutString(f, b->shape);
    fputs(",\n      \"size\": ", f);
    put_double_array(f, b->size, 4);
    fputs(", \"color\": [", f);
    for (int j = 0; j < 4; ++j) {
        fputs(j ? ", " : "", f);
        tpPlan_PutFloat(f, b->color[j]);
    }
    fputc(']', f);
    if (b->moving) {
        fputs(",\n      \"trajectory\": ", f);
        put_rows(f, w->traj[i], w->nsteps + 1, TP_STATE_DOUBLES, "      ");
    } else {
        fputs(",\n      \"pose\": ", f);
        put_double_array(f, b->pose, TP_STATE_DOUBLES);
    }
    if (b->controlled) {
        fputs(",\n      \"controls\": ", f);
        put_rows(f, w->controls[i], w->nsteps, TP_CONTROL_DOUBLES, "      ");
    }
    if (b->mesh_nvertices > 0) {
        fputs(",\n      \"mesh\": {\"origin\": ", f);
        put_double_array(f, b->mesh_origin, 3);
        fputs(",\n        \"vertices\": ", f);
        put_rows(f, b->mesh_vertices, b->mesh_nvertices, 3, "        ");
        fputs(",\n        \"triangles\": [", f);
        for (int t = 0; t < b->mesh_ntriangles; ++t) {
            const int32_t *x = b->mesh_triangles + 3 * t;
            fprintf(f, "%s[%" PRId32 ", %" PRId32 ", %" PRId32 "]", t ? ", " : "", x[0], x[1], x[2]);
        }
        fputs("]}", f);
    }
    tpPlan_PutParts(f, b);
    fputs("\n    }", f);
}

static void put_alternative(FILE *f, const tpPlanRecord *rec, const tpPlanWorld *w)
{
    fputs("    {\n      \"cost\": ", f);
    tpPlan_PutDouble(f, w->cost);
    fprintf(f, ", \"steps\": %d,\n      \"trajectories\": {", w->nsteps);
    bool first = true;
    for (int i = 0; i < rec->nbodies; ++i) {
        if (rec->bodies[i].moving) {
            fputs(first ? "\n        " : ",\n        ", f);
            tpPlan_PutString(f, rec->bodies[i].name);
            fputs(": ", f);
            put_rows(f, w->traj[i], w->nsteps + 1, TP_STATE_DOUBLES, "        ");
            first = false;
        }
    }
    fputs(first ? "},\n      \"controls\": {" : "\n      },\n      \"controls\": {", f);
    first = true;
    for (int i = 0; i < rec->nbodies; ++i) {
        if (rec->bodies[i].controlled) {
            fputs(first ? "\n        " : ",\n        ", f);
            tpPlan_PutString(f, rec->bodies[i].name);
            fputs(": ", f);
            put_rows(f, w->controls[i], w->nsteps, TP_CONTROL_DOUBLES, "        ");
            first = false;
        }
    }
    fputs(first ? "},\n      \"active\": {" : "\n      },\n      \"active\": {", f);
    for (int t = 0; t < rec->ntactics; ++t) {
        fputs(t ? ",\n        " : "\n        ", f);
        tpPlan_PutString(f, rec->tactics[t].name);
        fputs(": ", f);
        put_active(f, w->active[t], w->nsteps);
    }
    fputs(rec->ntactics ? "\n      }" : "}", f);
    if (rec->nmotors > 0) { /* one array of targets per motor, in "motors" order */
        fputs(",\n      \"motor_targets\": [", f);
        for (int m = 0; m < rec->nmotors; ++m) {
            fputs(m ? ",\n        " : "\n        ", f);
            put_column(f, w->targets, w->nsteps, rec->nmotors, m);
        }
        fputs("\n      ]", f);
    }
    fputs("\n    }", f);
}

/* stats.rejections: the reasons in use, one a line (nothing when none is: files of runs without
 * rejections, and records read from files older than the member, keep their old bytes). */
static void put_rejections(FILE *f, const tpPlanRecord *rec)
{
    bool first = true;
    for (int k = 0; k < TP_REJECT_KINDS; ++k) {
        const tpRejectStat *r = &rec->rejections[k];
        if (r->count == 0) {
            continue;
        }
        fputs(first ? "    \"rejections\": {\n" : ",\n", f);
        first = false;
        fprintf(f, "      \"%s\": {\"count\": %" PRId64 ", \"iteration\": %" PRId64 ", \"first\": ",
                tpRejectKind_Name((tpRejectKind)k), r->count, r->iteration);
        tpPlan_PutString(f, r->first);
        fputc('}', f);
    }
    if (!first) {
        fputs("},\n", f);
    }
}

static bool has_parts(const tpPlanRecord *rec)
{
    for (int i = 0; i < rec->nbodies; ++i) {
        if (rec->bodies[i].nparts > 0) {
            return true;
        }
    }
    return false;
}

static void put_record(FILE *f, const tpPlanRecord *rec, const char *overrides)
{
    const tpPlanWorld *sel = &rec->worlds[rec->selected];
    fprintf(f, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n  \"tplan\": \"%s\",\n  \"domain\": {\"name\": ",
            TP_PLAN_FORMAT,
            has_parts(rec)     ? TP_PLAN_VERSION_PARTS
            : rec->nmotors > 0 ? TP_PLAN_VERSION_MOTORS
            : rec->has_start   ? TP_PLAN_VERSION_START
                               : TP_PLAN_VERSION,
            TPLAN_VERSION);
    tpPlan_PutString(f, rec->domain_name);
    fputs(", \"file\": ", f);
    tpPlan_PutString(f, rec->domain_file);
    fputs(", \"hash\": ", f);
    tpPlan_PutString(f, rec->domain_hash);
    fprintf(f, "},\n  \"seed\": %" PRIu32 ",\n  \"planner\": {\"algorithm\": ", rec->seed);
    tpPlan_PutString(f, rec->planner);
    fputs(", \"mu\": ", f);
    tpPlan_PutDouble(f, rec->mu);
    fprintf(f, ", \"max_iters\": %" PRId64 ", \"time_limit\": ", rec->max_iters);
    tpPlan_PutDouble(f, rec->time_limit);
    fprintf(f, ", \"solutions\": %d},\n", rec->solutions_requested);
    if (overrides) {
        fprintf(f, "  \"overrides\": %s,\n", overrides);
    }
    fputs("  \"status\": ", f);
    tpPlan_PutString(f, rec->status);
    fputs(",\n  \"dt\": ", f);
    tpPlan_PutDouble(f, rec->dt);
    if (rec->has_start) { /* the rest counts that are not 0, by body name */
        fputs(",\n  \"start\": {\"time\": ", f);
        tpPlan_PutDouble(f, rec->start_time);
        fputs(", \"rest\": {", f);
        bool first = true;
        for (int b = 0; b < rec->nbodies; ++b) {
            if (rec->start_rest[b] != 0) {
                fputs(first ? "" : ", ", f);
                tpPlan_PutString(f, rec->bodies[b].name);
                fprintf(f, ": %d", rec->start_rest[b]);
                first = false;
            }
        }
        fputs("}}", f);
    }
    if (rec->max_static_penetration >= 0 && rec->max_body_penetration >= 0) {
        fputs(",\n  \"limits\": {\"max_static_penetration\": ", f);
        tpPlan_PutDouble(f, rec->max_static_penetration);
        fputs(", \"max_body_penetration\": ", f);
        tpPlan_PutDouble(f, rec->max_body_penetration);
        fputc('}', f);
    }
    if (rec->view.set) {
        fputs(",\n  \"view\": {\"yaw\": ", f);
        tpPlan_PutDouble(f, rec->view.yaw);
        fputs(", \"pitch\": ", f);
        tpPlan_PutDouble(f, rec->view.pitch);
        if (rec->view.distance > 0) {
            fputs(", \"distance\": ", f);
            tpPlan_PutDouble(f, rec->view.distance);
        }
        if (rec->view.has_target) {
            fputs(", \"target\": [", f);
            for (int k = 0; k < 3; ++k) {
                fputs(k ? ", " : "", f);
                tpPlan_PutDouble(f, rec->view.target[k]);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    tpPlan_PutGoal(f, rec);
    tpPlan_PutJoints(f, rec);
    tpPlan_PutTemporal(f, rec);
    fprintf(f, ",\n  \"steps\": %d,\n  \"cost\": ", sel->nsteps);
    tpPlan_PutDouble(f, sel->cost);
    tpPlan_PutControl(f, rec);

    fputs(",\n  \"bodies\": [", f);
    for (int i = 0; i < rec->nbodies; ++i) {
        fputs(i ? ",\n" : "\n", f);
        put_body(f, rec, i);
    }
    fputs(rec->nbodies ? "\n  ],\n  \"tactics\": [" : "],\n  \"tactics\": [", f);
    for (int t = 0; t < rec->ntactics; ++t) {
        const tpPlanTactic *tac = &rec->tactics[t];
        fputs(t ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        tpPlan_PutString(f, tac->name);
        fputs(", \"body\": ", f);
        tpPlan_PutString(f, tac->body);
        fputs(", \"skills\": [", f);
        for (int s = 0; s < tac->nskills; ++s) {
            if (s) {
                fputs(", ", f);
            }
            tpPlan_PutString(f, tac->skills[s]);
        }
        fputs("],\n     \"active\": ", f);
        put_active(f, sel->active[t], sel->nsteps);
        fputc('}', f);
    }
    fputs(rec->ntactics ? "\n  ]" : "]", f);
    if (rec->nmotors > 0) { /* the driven motors and the selected world's targets */
        fputs(",\n  \"motors\": [", f);
        for (int m = 0; m < rec->nmotors; ++m) {
            fputs(m ? ",\n    {\"joint\": " : "\n    {\"joint\": ", f);
            tpPlan_PutString(f, rec->motors[m].joint);
            fprintf(f, ", \"axis\": %d,\n     \"targets\": ", rec->motors[m].axis + 1);
            put_column(f, sel->targets, sel->nsteps, rec->nmotors, m);
            fputc('}', f);
        }
        fputs("\n  ]", f);
    }
    fputs(",\n  \"alternatives\": [", f);
    bool first = true;
    for (int wi = 0; wi < rec->nworlds; ++wi) {
        if (wi != rec->selected) {
            fputs(first ? "\n" : ",\n", f);
            put_alternative(f, rec, &rec->worlds[wi]);
            first = false;
        }
    }
    fputs(first ? "],\n" : "\n  ],\n", f);
    tpPlan_PutWorlds(f, rec);
    tpPlan_PutOverlays(f, rec);
    tpPlan_PutSources(f, rec);
    /* timing is last so that everything before it is byte-identical across identical runs. */
    fprintf(f,
            "  \"stats\": {\"iterations\": %" PRId64 ", \"nodes\": %" PRId64 ", \"rejected\": %" PRId64
            ", \"solutions\": %d, \"memory_bytes\": %" PRId64 ",\n",
            rec->iterations, rec->nodes, rec->rejected, rec->nsolutions, rec->memory_bytes);
    if (rec->nodes_first > 0) {
        fprintf(f, "    \"first_solution_nodes\": %" PRId64 ",\n", rec->nodes_first);
    }
    if (rec->nreports > 0) {
        /* domain reports: deterministic, so before timing */
        fputs("    \"report\": {", f);
        for (int i = 0; i < rec->nreports; ++i) {
            fputs(i ? ", " : "", f);
            tpPlan_PutString(f, rec->report_names[i]);
            fputs(": ", f);
            tpPlan_PutDouble(f, rec->report_values[i]);
        }
        fputs("},\n", f);
    }
    if (rec->nwarnings > 0) {
        /* the domain's warnings: deterministic, so before timing */
        fputs("    \"warnings\": [", f);
        for (int i = 0; i < rec->nwarnings; ++i) {
            fputs(i ? ", " : "", f);
            tpPlan_PutString(f, rec->warnings[i]);
        }
        fputs("],\n", f);
    }
    put_rejections(f, rec);
    fputs("    \"timing\": {\"select\": ", f);
    tpPlan_PutDouble(f, rec->t_select);
    fputs(", \"tactics\": ", f);
    tpPlan_PutDouble(f, rec->t_tactics);
    fputs(", \"physics\": ", f);
    tpPlan_PutDouble(f, rec->t_physics);
    fputs(", \"check\": ", f);
    tpPlan_PutDouble(f, rec->t_check);
    fputs(", \"total\": ", f);
    tpPlan_PutDouble(f, rec->t_total);
    if (rec->nodes_first > 0) {
        fputs(", \"first_solution\": ", f);
        tpPlan_PutDouble(f, rec->t_first);
    }
    fputs("}}\n}\n", f);
}

bool tpPlanRecord_Write(const tpPlanRecord *rec, const char *path, char *err, size_t errlen)
{
    const tpCheck c = {path, err, errlen};
    char *overrides = NULL;
    if (!rec) {
        return check_fail(&c, "no record");
    }
    if (!check_record(&c, rec, &overrides)) {
        return false;
    }
    /* Written to a temporary file renamed into place: a failed write leaves no partial plan. */
    tpFileOut out;
    char ferr[256];
    FILE *f = tpFile_OpenOut(&out, path, "wb", ferr, sizeof ferr);
    if (!f) {
        tpErrorf(err, errlen, "%s: %s", path, ferr);
        cJSON_free(overrides);
        return false;
    }
    /* Large buffer: the writer emits many small pieces. */
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    put_record(f, rec, overrides);
    cJSON_free(overrides);
    if (!tpFile_CommitOut(&out, ferr, sizeof ferr)) {
        tpErrorf(err, errlen, "%s: %s", path, ferr);
        return false;
    }
    return true;
}

bool tpPlanRecord_WriteMem(const tpPlanRecord *rec, char **out, size_t *len, char *err, size_t errlen)
{
    const tpCheck c = {"plan", err, errlen};
    char *overrides = NULL;
    *out = NULL;
    *len = 0;
    if (!rec) {
        return check_fail(&c, "no record");
    }
    if (!check_record(&c, rec, &overrides)) {
        return false;
    }
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) {
        cJSON_free(overrides);
        return check_fail(&c, "out of memory");
    }
    put_record(f, rec, overrides);
    cJSON_free(overrides);
    bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok || !buf) {
        free(buf);
        return check_fail(&c, "out of memory");
    }
    *out = buf;
    *len = n;
    return true;
}
