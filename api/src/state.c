/* States of a domain's world (tplan_state, issue 37): every moving body's pose, velocity and rest
 * count and the time, by body name; the state file (JSON, docs/embedding.md "States") read
 * strictly and written exactly; planning from a state (tplan_run_def.start, tpRun_Plan) and
 * stepping one with the planner's own Sim (tplan_simulate). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "call.h"
#include "tp/json_text.h"
#include "tp/plan.h"
#include "tp/run.h"

/* ------------------------------------------------------------------------------------------ */
/* The value                                                                                   */

tplan_state *tpState_FromDomain(const tpDomain *d, const tpBodyState *x, const uint8_t *rest, double t)
{
    const tpWorld *w = tpDomain_World(d);
    const int n = tpWorld_StateCount(w);
    tplan_state *s = tpState_New(tpDomain_Def(d)->name, n);
    if (!s) {
        return NULL;
    }
    if (x) {
        memcpy(s->x, x, sizeof *x * (size_t)n);
    } else {
        tpWorld_InitialState(w, s->x);
    }
    if (rest) {
        memcpy(s->rest, rest, (size_t)n);
    }
    for (int k = 0; k < n; ++k) {
        tpStrCopy(s->names[k], sizeof s->names[k], tpWorld_Body(w, tpWorld_StateBody(w, k))->name);
    }
    s->t = t;
    return s;
}

/* ------------------------------------------------------------------------------------------ */
/* Checking against a domain                                                                   */

bool tpState_Bind(const tplan_state *s, tpDomain *d, tpBodyState *x, uint8_t *rest, tplan_error *err)
{
    const tpWorld *w = tpDomain_World(d);
    const char *dname = tpDomain_Def(d)->name;
    if (strcmp(s->domain, dname) != 0) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "domain", "state: domain: a state of '%s', not of '%s'", s->domain, dname);
        return false;
    }
    const int ns = tpWorld_StateCount(w);
    for (int k = 0; k < s->n; ++k) { /* every body the state names is a moving body of the domain */
        const int b = tpWorld_FindBody(w, s->names[k]);
        char field[TP_NAME_MAX + 16];
        snprintf(field, sizeof field, "bodies.%s", s->names[k]);
        if (b < 0 || tpWorld_StateSlot(w, b) < 0) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: %s", field,
                       b < 0                                       ? "no such body in the domain"
                       : tpWorld_Body(w, b)->cls == TP_BODY_STATIC ? "a static body has no state"
                                                                   : "a scripted body's pose is a function of the "
                                                                     "time, not part of a state");
            return false;
        }
        const int slot = tpWorld_StateSlot(w, b);
        x[slot] = s->x[k];
        rest[slot] = s->rest[k];
    }
    if (s->n != ns) { /* names are unique, so some body is missing: the first one */
        for (int k = 0; k < ns; ++k) {
            const char *name = tpWorld_Body(w, tpWorld_StateBody(w, k))->name;
            if (tpState_FindBody(s, name) < 0) {
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "bodies",
                           "state: bodies: %d bodies given, the domain '%s' has %d (missing '%s')", s->n, dname, ns,
                           name);
                return false;
            }
        }
    }
    char field[96], msg[1024];
    if (!tpDomain_CheckState(d, x, rest, s->t, field, sizeof field, msg, sizeof msg)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s", msg);
        return false;
    }
    return true;
}

bool tpState_Apply(const tplan_state *s, tpDomain *d, tplan_error *err)
{
    const int ns = tpWorld_StateCount(tpDomain_World(d));
    tpBodyState *x = calloc((size_t)(ns > 0 ? ns : 1), sizeof *x);
    uint8_t *rest = calloc((size_t)(ns > 0 ? ns : 1), 1);
    bool ok = x && rest;
    if (!ok) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
    }
    ok = ok && tpState_Bind(s, d, x, rest, err);
    if (ok && !tpDomain_SetStart(d, x, rest, s->t)) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        ok = false;
    }
    free(x);
    free(rest);
    return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* The exported calls                                                                          */

tplan_state *tplan_state_new(const tplan_domain *d, tplan_error *err)
{
    if (!d) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no domain (NULL)");
        return NULL;
    }
    tplan_state *s = tpState_FromDomain(tpScript_Domain(d->script), NULL, NULL, 0.0);
    if (!s) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    tpApi_SetOk(err);
    return s;
}

/* s in the domain's order, checked against it (bind), as a new state. */
static tplan_state *bound_copy(const tplan_state *s, tpDomain *dom, tplan_error *err)
{
    const int ns = tpWorld_StateCount(tpDomain_World(dom));
    tpBodyState *x = calloc((size_t)(ns > 0 ? ns : 1), sizeof *x);
    uint8_t *rest = calloc((size_t)(ns > 0 ? ns : 1), 1);
    tplan_state *out = NULL;
    if (!x || !rest) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
    } else if (tpState_Bind(s, dom, x, rest, err)) {
        out = tpState_FromDomain(dom, x, rest, s->t);
        if (!out) {
            tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        }
    }
    free(x);
    free(rest);
    return out;
}

tplan_state *tplan_state_from_json(tplan_domain *d, const char *json, size_t len, tplan_error *err)
{
    if (!d || !json) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s", !d ? "no domain (NULL)" : "no JSON text (NULL)");
        return NULL;
    }
    tpCall call;
    tpCall_Begin(&call, d->limits.output, d->limits.output_user);
    tplan_state *parsed = tpState_Parse(json, len, err);
    tplan_state *s = parsed ? bound_copy(parsed, tpScript_Domain(d->script), err) : NULL;
    tplan_state_free(parsed);
    tpCall_End(&call);
    if (s) {
        tpApi_SetOk(err);
    }
    return s;
}

char *tplan_state_to_json(const tplan_state *s)
{
    if (!s) {
        return NULL;
    }
    tpCall call;
    tpCall_Begin(&call, NULL, NULL);
    char *text = tpState_ToJson(s);
    tpCall_End(&call);
    return text;
}

const char *tplan_state_domain(const tplan_state *s)
{
    return s ? s->domain : NULL;
}

double tplan_state_time(const tplan_state *s)
{
    return s ? s->t : 0.0;
}

tplan_code tplan_state_set_time(tplan_state *s, double t, tplan_error *err)
{
    if (!s) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no state (NULL)");
        return TPLAN_ERR_ARGUMENT;
    }
    if (!(t >= 0 && t <= TP_MAX_START_TIME)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "time", "time: %.17g is not a time in [0, %g] s", t, TP_MAX_START_TIME);
        return TPLAN_ERR_ARGUMENT;
    }
    s->t = t;
    tpApi_SetOk(err);
    return TPLAN_OK;
}

int tplan_state_body_count(const tplan_state *s)
{
    return s ? s->n : 0;
}

const char *tplan_state_body_name(const tplan_state *s, int body)
{
    return s && body >= 0 && body < s->n ? s->names[body] : NULL;
}

int tplan_state_body_index(const tplan_state *s, const char *name)
{
    return tpState_FindBody(s, name);
}

static int named_body(const tplan_state *s, const char *name, tplan_error *err)
{
    const int k = tpState_FindBody(s, name);
    if (k < 0 && (!s || !name)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "bodies", "%s", !s ? "no state (NULL)" : "no body name (NULL)");
    } else if (k < 0) {
        /* the field names the body, as the state file's reader does ("bodies.ghost") */
        char field[sizeof err->field];
        snprintf(field, sizeof field, "bodies.%.50s", name);
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field,
                   "%s: no such body in the state of '%s' (static and scripted bodies have none)", field, s->domain);
    }
    return k;
}

tplan_code tplan_state_get_body(const tplan_state *s, const char *name, double row[13], int *rest, tplan_error *err)
{
    const int k = named_body(s, name, err);
    if (k < 0 || !row) {
        if (k >= 0) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no row (NULL)");
        }
        return TPLAN_ERR_ARGUMENT;
    }
    for (int v = 0, i = 0; v < 4; ++v) {
        memcpy(row + i, tpState_Vector(&s->x[k], v), sizeof(double) * (size_t)tpState_VectorLengths[v]);
        i += tpState_VectorLengths[v];
    }
    if (rest) {
        *rest = s->rest[k];
    }
    tpApi_SetOk(err);
    return TPLAN_OK;
}

tplan_code tplan_state_set_body(tplan_state *s, const char *name, const double row[13], int rest, tplan_error *err)
{
    const int k = named_body(s, name, err);
    if (k < 0 || !row) {
        if (k >= 0) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no row (NULL)");
        }
        return TPLAN_ERR_ARGUMENT;
    }
    char field[TP_NAME_MAX + 32];
    for (int v = 0, i = 0; v < 4; ++v) {
        for (int c = 0; c < tpState_VectorLengths[v]; ++c, ++i) {
            if (!isfinite(row[i])) {
                snprintf(field, sizeof field, "bodies.%s.%s", name, tpState_VectorNames[v]);
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "%s[%d]: not a finite number", field, c);
                return TPLAN_ERR_ARGUMENT;
            }
        }
    }
    const double norm = sqrt(row[3] * row[3] + row[4] * row[4] + row[5] * row[5] + row[6] * row[6]);
    if (!(fabs(norm - 1.0) <= TP_START_QUAT_TOL)) {
        snprintf(field, sizeof field, "bodies.%s.quaternion", name);
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "%s: norm %.17g is not 1 (within %g)", field, norm,
                   TP_START_QUAT_TOL);
        return TPLAN_ERR_ARGUMENT;
    }
    if (rest < 0 || rest > 255) {
        snprintf(field, sizeof field, "bodies.%s.rest", name);
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "%s: %d is not a count of steps at rest in 0..255", field, rest);
        return TPLAN_ERR_ARGUMENT;
    }
    for (int v = 0, i = 0; v < 4; ++v) {
        memcpy(tpState_Vector(&s->x[k], v), row + i, sizeof(double) * (size_t)tpState_VectorLengths[v]);
        i += tpState_VectorLengths[v];
    }
    s->rest[k] = (uint8_t)rest;
    tpApi_SetOk(err);
    return TPLAN_OK;
}

tplan_state *tplan_result_state(const tplan_result *r, const tplan_domain *d, int step, tplan_error *err)
{
    if (!r || !d) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s", !r ? "no result (NULL)" : "no domain (NULL)");
        return NULL;
    }
    const tpPlanWorld *w = &r->rec.worlds[r->rec.selected];
    const tpDomain *dom = tpScript_Domain(d->script);
    const tpWorld *world = tpDomain_World(dom);
    const int ns = tpWorld_StateCount(world);
    if (strcmp(r->rec.domain_name, tpDomain_Def(dom)->name) != 0 || r->rec.nbodies != tpWorld_BodyCount(world) ||
        !w->rest) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "the result is not a plan of this domain");
        return NULL;
    }
    if (step < 0 || step > w->nsteps) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "step", "step: %d is not a step of the plan (0..%d)", step, w->nsteps);
        return NULL;
    }
    tplan_state *s = tpState_FromDomain(dom, NULL, NULL, 0.0);
    if (!s) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    double t = r->rec.has_start ? r->rec.start_time : 0.0;
    for (int i = 0; i < step; ++i) {
        t = t + r->rec.dt; /* as the planner accumulates it */
    }
    s->t = t;
    for (int k = 0; k < ns; ++k) {
        const int b = tpWorld_StateBody(world, k);
        const double *row = w->traj[b] + (size_t)step * TP_STATE_DOUBLES;
        for (int v = 0, i = 0; v < 4; ++v) {
            memcpy(tpState_Vector(&s->x[k], v), row + i, sizeof(double) * (size_t)tpState_VectorLengths[v]);
            i += tpState_VectorLengths[v];
        }
        s->rest[k] = w->rest[(size_t)step * (size_t)r->rec.nbodies + (size_t)b];
    }
    tpApi_SetOk(err);
    return s;
}

tplan_state *tpState_FromPlan(tpDomain *dom, const tpPlanRecord *rec, int world, int step, tplan_error *err)
{
    if (world < 0 || world >= rec->nworlds || step < 0 || step > rec->worlds[world].nsteps) {
        const bool w = world < 0 || world >= rec->nworlds;
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, w ? "world" : "step", "%s: %d is not a %s of the plan (0..%d)",
                   w ? "world" : "step", w ? world : step, w ? "world" : "step",
                   w ? rec->nworlds - 1 : rec->worlds[world].nsteps);
        return NULL;
    }
    const int ns = tpWorld_StateCount(tpDomain_World(dom));
    tpBodyState *x = calloc((size_t)(ns > 0 ? ns : 1), sizeof *x);
    uint8_t *rest = calloc((size_t)(ns > 0 ? ns : 1), 1);
    tplan_state *s = NULL;
    double t = 0.0;
    char msg[2048];
    tpReplayStatus rs = TP_REPLAY_MISFIT;
    if (!x || !rest) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
    } else if ((rs = tpDomain_ReplayTo(dom, rec, world, step, x, rest, &t, msg, sizeof msg)) != TP_REPLAY_MATCH) {
        tpRun_Fail(err, rs == TP_REPLAY_MISMATCH ? TPLAN_ERR_MISMATCH : TPLAN_ERR_PLAN_FILE, NULL, "%s", msg);
    } else if (!(s = tpState_FromDomain(dom, x, rest, t))) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
    }
    free(x);
    free(rest);
    return s;
}

tplan_state *tplan_state_from_plan(tplan_domain *d, const char *plan, size_t len, int world, int step, tplan_error *err)
{
    if (!d || !plan) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s", !d ? "no domain (NULL)" : "no plan bytes (NULL)");
        return NULL;
    }
    tpCall call;
    tpCall_Begin(&call, d->limits.output, d->limits.output_user);
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    char msg[sizeof err->message];
    tpScript *script = NULL;
    tplan_state *s = NULL;
    if (!tpPlanRecord_Parse(&rec, plan, len, "plan", msg, sizeof msg)) {
        tpRun_Fail(err, strstr(msg, "out of memory") ? TPLAN_ERR_NOMEM : TPLAN_ERR_PLAN_FILE, NULL, "%s", msg);
    } else if (tpApi_DomainLoad(d, &script, err) == TPLAN_OK) {
        s = tpState_FromPlan(tpScript_Domain(script), &rec, world, step, err);
    }
    tpDestroyScript(script);
    tpPlanRecord_Free(&rec);
    tpCall_End(&call);
    if (s) {
        tpApi_SetOk(err);
    }
    return s;
}

/* ------------------------------------------------------------------------------------------ */
/* Stepping                                                                                    */

void tplan_simulate_def_init_(tplan_simulate_def *def, size_t size)
{
    if (!def || size < sizeof(size_t)) {
        return;
    }
    tplan_simulate_def d;
    memset(&d, 0, sizeof d);
    d.size = size < sizeof d ? size : sizeof d;
    memcpy(def, &d, d.size);
}

int tplan_domain_control_count(const tplan_domain *d)
{
    return d ? tpWorld_ControlCount(tpDomain_World(tpScript_Domain(d->script))) : 0;
}

int tplan_domain_control_body(const tplan_domain *d, int k)
{
    const tpWorld *w = d ? tpDomain_World(tpScript_Domain(d->script)) : NULL;
    return w && k >= 0 && k < tpWorld_ControlCount(w) ? tpWorld_ControlBody(w, k) : -1;
}

int tplan_domain_motor_count(const tplan_domain *d)
{
    return d ? tpWorld_MotorCount(tpDomain_World(tpScript_Domain(d->script))) : 0;
}

const char *tplan_domain_motor_joint(const tplan_domain *d, int m, int *axis)
{
    const tpWorld *w = d ? tpDomain_World(tpScript_Domain(d->script)) : NULL;
    if (!w || m < 0 || m >= tpWorld_MotorCount(w)) {
        if (axis) {
            *axis = 0;
        }
        return NULL;
    }
    int k = 0;
    const char *name = tpWorld_Joint(w, tpWorld_MotorJoint(w, m, &k))->name;
    if (axis) {
        *axis = k + 1;
    }
    return name;
}

static void row_of(const tpBodyState *x, double *row)
{
    memcpy(row, x->pos, sizeof x->pos);
    memcpy(row + 3, x->quat, sizeof x->quat);
    memcpy(row + 7, x->vel, sizeof x->vel);
    memcpy(row + 10, x->angvel, sizeof x->angvel);
}

tplan_code tpState_Simulate(tpDomain *dom, tplan_state *s, int steps, const double *controls, const double *targets,
                            double *trajectory, tplan_error *err)
{
    const tpWorld *w = tpDomain_World(dom);
    const int ns = tpWorld_StateCount(w), nc = tpWorld_ControlCount(w), nm = tpWorld_MotorCount(w);
    if (steps < 1) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "steps", "steps: %d; expected a number of steps >= 1", steps);
        return TPLAN_ERR_ARGUMENT;
    }
    tpBodyState *x = calloc((size_t)(ns > 0 ? ns : 1), sizeof *x);
    uint8_t *rest = calloc((size_t)(ns > 0 ? ns : 1), 1);
    double *zero = calloc((size_t)(6 * nc + 1), sizeof *zero);
    double *act = calloc((size_t)(6 * nc + nm + 1), sizeof *act); /* one full action: forces, then targets */
    tplan_code code = TPLAN_OK;
    if (!x || !rest || !zero || !act) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        code = TPLAN_ERR_NOMEM;
    } else if (!tpState_Bind(s, dom, x, rest, err)) {
        code = TPLAN_ERR_ARGUMENT;
    }
    double t = s->t;
    for (int k = 0; code == TPLAN_OK && trajectory && k < ns; ++k) {
        row_of(&x[k], trajectory + (size_t)k * TP_STATE_DOUBLES);
    }
    for (int i = 0; code == TPLAN_OK && i < steps; ++i) {
        const double *a = controls ? controls + (size_t)i * 6 * (size_t)nc : zero;
        for (int c = 0; c < 6 * nc; ++c) {
            if (!isfinite(a[c]) || fabs(a[c]) > TP_MAX_FORCE) {
                const char *body = tpWorld_Body(w, tpWorld_ControlBody(w, c / 6))->name;
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "controls",
                           "controls: step %d, body '%s': %s %c = %.6g is not a finite number within +-%g", i, body,
                           c % 6 < 3 ? "force" : "torque", "xyz"[c % 3], a[c], TP_MAX_FORCE);
                code = TPLAN_ERR_ARGUMENT;
                break;
            }
        }
        memcpy(act, a, sizeof(double) * 6 * (size_t)nc);
        for (int m = 0; m < nm; ++m) {
            int axis = 0;
            const tpJointDef *jd = tpWorld_Joint(w, tpWorld_MotorJoint(w, m, &axis));
            const double v = targets ? targets[(size_t)i * (size_t)nm + (size_t)m] : jd->axes[axis].speed;
            const double lim = tpWorld_MotorMaxSpeed(w, m);
            if (!(fabs(v) <= lim)) {
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "motor_targets",
                           "motor_targets: step %d, joint '%s'%s: %.6g is not a finite target within +-%g (its "
                           "max_speed)",
                           i, jd->name, axis ? " axis 2" : "", v, lim);
                code = TPLAN_ERR_ARGUMENT;
                break;
            }
            act[6 * nc + m] = v;
        }
        if (code != TPLAN_OK) {
            break;
        }
        if (!tpDomain_Step(dom, x, rest, &t, act)) {
            char why[512];
            const char *motion = tpWorld_MotionError(w);
            if (motion[0]) {
                tpRun_Fail(err, TPLAN_ERR_SCRIPT, NULL, "%s", motion);
                code = TPLAN_ERR_SCRIPT;
            } else {
                tpDomain_DescribeFailure(dom, tpWorld_LastFailure(w), why, sizeof why);
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "controls", "step %d: not a physical state: %s", i + 1, why);
                code = TPLAN_ERR_ARGUMENT;
            }
            break;
        }
        for (int k = 0; trajectory && k < ns; ++k) {
            row_of(&x[k], trajectory + ((size_t)(i + 1) * (size_t)ns + (size_t)k) * TP_STATE_DOUBLES);
        }
    }
    if (code == TPLAN_OK) { /* the state in its own order (a parsed state keeps the file's) */
        for (int k = 0; k < s->n; ++k) {
            const int slot = tpWorld_StateSlot(w, tpWorld_FindBody(w, s->names[k]));
            s->x[k] = x[slot];
            s->rest[k] = rest[slot];
        }
        s->t = t;
    }
    free(x);
    free(rest);
    free(zero);
    free(act);
    return code;
}

tplan_code tplan_simulate(tplan_domain *d, tplan_state *s, const tplan_simulate_def *def, tplan_error *err)
{
    if (!d || !s || !def) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s",
                   !d   ? "no domain (NULL)"
                   : !s ? "no state (NULL)"
                        : "no definition (NULL)");
        return TPLAN_ERR_ARGUMENT;
    }
    if (def->size < offsetof(tplan_simulate_def, trajectory) + sizeof def->trajectory || def->size > sizeof *def) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "size",
                   "size must be the struct's size as compiled (%zu bytes here); initialise with "
                   "tplan_simulate_def_init",
                   sizeof *def);
        return TPLAN_ERR_ARGUMENT;
    }
    tplan_simulate_def full;
    tplan_simulate_def_init(&full);
    memcpy(&full, def, def->size);
    tpCall call;
    tpCall_Begin(&call, d->limits.output, d->limits.output_user);
    const tplan_code code = tpState_Simulate(tpScript_Domain(d->script), s, full.steps, full.controls,
                                             full.motor_targets, full.trajectory, err);
    tpCall_End(&call);
    if (code == TPLAN_OK) {
        tpApi_SetOk(err);
    }
    return code;
}
