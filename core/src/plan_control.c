/* The control report of a plan ("control", docs/plan-format.md): total impulse, work and
 * the time during which any force acted, per controlled body and in total, computed from the
 * selected world's controls and trajectories. The writer puts it on one line after "cost"; the
 * reader accepts plans without it (older files) and checks one that has it strictly: exactly its
 * members, every controlled body once, each figure a finite number in its range. It does not
 * compare the figures with the controls: a plan whose controls were edited stays readable, so
 * `tplan replay` can report the edit as the mismatch it is (tests/e2e/cli.sh), and a rewrite
 * recomputes the member. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/base.h"
#include "tp/plan.h"

static void add_body(const tpPlanWorld *w, int i, double dt, tpPlanControl *c, uint8_t *acted)
{
    memset(c, 0, sizeof *c);
    const double *u = w->controls[i], *x = w->traj[i];
    for (int k = 0; k < w->nsteps; k++) {
        const double *f = u + TP_CONTROL_DOUBLES * k, *s0 = x + TP_STATE_DOUBLES * k, *s1 = s0 + TP_STATE_DOUBLES;
        double fn = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]), tn = sqrt(f[3] * f[3] + f[4] * f[4] + f[5] * f[5]);
        if (fn == 0.0 && tn == 0.0) {
            continue;
        }
        double pw = 0.0;
        for (int j = 0; j < 3; j++) {
            pw += f[j] * 0.5 * (s0[7 + j] + s1[7 + j]) + f[3 + j] * 0.5 * (s0[10 + j] + s1[10 + j]);
        }
        c->impulse += fn * dt;
        c->angular_impulse += tn * dt;
        c->work += pw * dt;
        c->steps++;
        if (acted) {
            acted[k] = 1;
        }
    }
    c->time = c->steps * dt;
}

void tpPlanWorld_Control(const tpPlanRecord *rec, const tpPlanWorld *w, tpPlanControl *per_body, tpPlanControl *total)
{
    TP_ASSERT(rec && w);
    uint8_t *acted = total && w->nsteps > 0 ? calloc((size_t)w->nsteps, 1) : NULL;
    if (total) {
        memset(total, 0, sizeof *total);
    }
    for (int i = 0; i < rec->nbodies; i++) {
        tpPlanControl c = {0};
        if (rec->bodies[i].controlled && w->controls && w->controls[i] && w->traj && w->traj[i]) {
            add_body(w, i, rec->dt, &c, acted);
        }
        if (per_body) {
            per_body[i] = c;
        }
        if (total) {
            total->impulse += c.impulse;
            total->angular_impulse += c.angular_impulse;
            total->work += c.work;
        }
    }
    if (total) {
        for (int k = 0; acted && k < w->nsteps; k++) {
            total->steps += acted[k];
        }
        total->time = total->steps * rec->dt;
    }
    free(acted);
}

static void put_one(FILE *f, const tpPlanControl *c)
{
    char b[4][48];
    tpPlan_FormatDouble(c->impulse, b[0]);
    tpPlan_FormatDouble(c->angular_impulse, b[1]);
    tpPlan_FormatDouble(c->work, b[2]);
    tpPlan_FormatDouble(c->time, b[3]);
    fprintf(f, "{\"impulse\": %s, \"angular_impulse\": %s, \"work\": %s, \"time\": %s}", b[0], b[1], b[2], b[3]);
}

void tpPlan_PutControl(FILE *f, const tpPlanRecord *rec)
{
    if (rec->nworlds < 1) {
        return;
    }
    const tpPlanWorld *w = &rec->worlds[rec->selected];
    tpPlanControl total, *per = calloc((size_t)rec->nbodies + 1, sizeof *per);
    if (!per) {
        return; /* out of memory: the optional member is left out */
    }
    tpPlanWorld_Control(rec, w, per, &total);
    /* One line, like "goal": plan_digests.sh users can drop it to compare the rest. */
    fputs(",\n  \"control\": {\"total\": ", f);
    put_one(f, &total);
    fputs(", \"bodies\": {", f);
    bool first = true;
    for (int i = 0; i < rec->nbodies; i++) {
        if (!rec->bodies[i].controlled) {
            continue;
        }
        fputs(first ? "" : ", ", f);
        tpPlan_PutString(f, rec->bodies[i].name);
        fputs(": ", f);
        put_one(f, &per[i]);
        first = false;
    }
    fputs("}}", f);
    free(per);
}

/* One {"impulse", "angular_impulse", "work", "time"} object at `path`: exactly those members,
 * finite, impulse, angular_impulse and time >= 0, time at most the plan's length (max_time s). */
static bool read_one(const char *file, const cJSON *o, const char *path, double max_time, char *err, size_t errlen)
{
    static const char *const keys[4] = {"impulse", "angular_impulse", "work", "time"};
    if (!cJSON_IsObject(o)) {
        return tpPlan_FileFail(file, err, errlen, "%s: expected an object", path);
    }
    int n = 0;
    for (const cJSON *m = o->child; m; m = m->next, n++) {
        bool known = false;
        for (int k = 0; k < 4; k++) {
            known = known || strcmp(m->string, keys[k]) == 0;
        }
        if (!known) {
            return tpPlan_FileFail(file, err, errlen,
                                   "%s: unknown field \"%.64s\" (expected impulse, angular_impulse, work, time)", path,
                                   m->string);
        }
    }
    for (int k = 0; k < 4; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, keys[k]);
        if (!v) {
            return tpPlan_FileFail(file, err, errlen, "%s: missing field \"%s\"", path, keys[k]);
        }
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
            return tpPlan_FileFail(file, err, errlen, "%s.%s: expected a finite number", path, keys[k]);
        }
        double x = v->valuedouble;
        if (k != 2 && x < 0.0) {
            return tpPlan_FileFail(file, err, errlen, "%s.%s: %.17g is negative", path, keys[k], x);
        }
        if (k == 3 && x > max_time * (1.0 + 1e-12)) {
            return tpPlan_FileFail(file, err, errlen, "%s.time: %.17g s is longer than the plan (%.17g s)", path, x,
                                   max_time);
        }
    }
    return n == 4 || tpPlan_FileFail(file, err, errlen, "%s: duplicate fields", path);
}

bool tpPlan_ReadControl(const char *file, const cJSON *root, const tpPlanRecord *rec, char *err, size_t errlen)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "control");
    if (!c) {
        return true; /* optional: plans written before it have none */
    }
    if (!cJSON_IsObject(c)) {
        return tpPlan_FileFail(file, err, errlen, "control: expected an object");
    }
    for (const cJSON *m = c->child; m; m = m->next) {
        if (strcmp(m->string, "total") != 0 && strcmp(m->string, "bodies") != 0) {
            return tpPlan_FileFail(file, err, errlen, "control: unknown field \"%.64s\" (expected total, bodies)",
                                   m->string);
        }
    }
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(c, "bodies");
    if (!cJSON_IsObject(bodies)) {
        return tpPlan_FileFail(file, err, errlen, "control.bodies: expected an object of the controlled bodies");
    }
    const double max_time = rec->worlds[rec->selected].nsteps * rec->dt;
    bool ok = read_one(file, cJSON_GetObjectItemCaseSensitive(c, "total"), "control.total", max_time, err, errlen);
    int ncontrolled = 0, nlisted = cJSON_GetArraySize(bodies);
    for (int i = 0; ok && i < rec->nbodies; i++) {
        if (!rec->bodies[i].controlled) {
            continue;
        }
        ncontrolled++;
        char path[192];
        snprintf(path, sizeof path, "control.bodies.%.160s", rec->bodies[i].name);
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(bodies, rec->bodies[i].name);
        ok = o ? read_one(file, o, path, max_time, err, errlen)
               : tpPlan_FileFail(file, err, errlen, "%s: missing (every controlled body has an entry)", path);
    }
    if (ok && nlisted != ncontrolled) {
        ok = tpPlan_FileFail(file, err, errlen, "control.bodies: %d entries for %d controlled bodies", nlisted,
                             ncontrolled);
    }
    return ok;
}
