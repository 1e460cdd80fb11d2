/* tpDomain: the planning problem built from a domain definition.
 *
 * State blob layout (all 8-byte aligned, copied with memcpy by the planner):
 *   double t                              time (s)
 *   tpBodyState bodies[nstate]            stored body states (tpWorld_StateSlot order)
 *   tpTacticState tactics[ntactics]       σ, b and the V its skills use (tpSkill_VarCount), each
 *                                         8 + 8 * nv bytes: a tactic of small skills stays small
 *   uint8_t rest[nstate]                  the bodies' rest counts, padded to 8
 *   int32_t memory[nmem]                  the temporal conditions' memory (cond_temporal.c), padded
 *                                         to 8; absent (nmem 0) without temporal conditions
 * The control callback is the tactics loop of Algorithm 2; simulate is Sim (tpWorld_Step). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain_internal.h"
#include "tp/mathx.h"

tpDomainDef tpDefaultDomainDef(void)
{
    tpDomainDef d;
    memset(&d, 0, sizeof d);
    d.scene = tpDefaultSceneDef();
    d.sampling.distance = TP_DISTANCE_MIN_TIME;
    d.sampling.body = -1;
    d.planner = tpDefaultPlannerDef();
    return d;
}

double tpState_Time(const void *x)
{
    return *(const double *)x;
}

const tpBodyState *tpState_Bodies(const void *x)
{
    return (const tpBodyState *)((const char *)x + sizeof(double));
}

const uint8_t *tpState_Rest(const tpDomain *d, const void *x)
{
    return (const uint8_t *)x + d->off_rest;
}

const tpTacticState *tpState_Tactic(const tpDomain *d, const void *x, int tactic)
{
    TP_ASSERT(x && tactic >= 0 && tactic < d->ntactics);
    return (const tpTacticState *)((const char *)x + d->tac_off[tactic]);
}

static tpTacticState *tactic_mut(const tpDomain *d, void *x, int tactic)
{
    return (tpTacticState *)((char *)x + d->tac_off[tactic]);
}

int tpDomain_TacticVars(const tpDomain *d, int tactic)
{
    TP_ASSERT(tactic >= 0 && tactic < d->ntactics);
    return d->tac_nv[tactic];
}

const int32_t *tpDomain_Memory(const tpDomain *d, const void *x)
{
    return d->nmem > 0 ? (const int32_t *)((const char *)x + d->off_mem) : NULL;
}

tpStateView tpDomain_View(const tpDomain *d, const void *x)
{
    tpStateView v = {d->world, tpState_Bodies(x), tpState_Time(x), tpDomain_Memory(d, x)};
    return v;
}

int tpDomain_Observe(tpDomain *d, const tpBodyState *bodies, double t, int32_t *mem)
{
    if (d->nmem == 0) {
        return 0;
    }
    tpStateView v = {d->world, bodies, t, mem};
    if (tpCond_Observe(d->def.goal, &v, d->initial_all, mem) < 0 ||
        (d->def.valid && tpCond_Observe(d->def.valid, &v, d->initial_all, mem) < 0)) {
        return -1;
    }
    return 0;
}

const tpWorld *tpDomain_World(const tpDomain *d)
{
    return d->world;
}
const tpDomainDef *tpDomain_Def(const tpDomain *d)
{
    return &d->def;
}
int tpDomain_WarningCount(const tpDomain *d)
{
    return d->nwarnings;
}

const char *tpDomain_Warning(const tpDomain *d, int i)
{
    TP_ASSERT(i >= 0 && i < d->nwarnings);
    return d->warnings[i];
}

/* Adds a warning about body `body` (-1: the domain, -2: as given): prefixed by where the script defines the
 * body when the definition says, else by the domain's name. The last slot counts the overflow. */
static void addWarning(tpDomain *d, const tpDomainDef *def, int body, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void addWarning(tpDomain *d, const tpDomainDef *def, int body, const char *fmt, ...)
{
    d->warnings_seen++;
    if (d->warnings_seen > TP_MAX_WARNINGS) {
        snprintf(d->warnings[TP_MAX_WARNINGS - 1], TP_WARNING_MAX, "domain '%s': %d more warnings not shown", def->name,
                 d->warnings_seen - (TP_MAX_WARNINGS - 1));
        return;
    }
    char *w = d->warnings[d->nwarnings++];
    int n;
    if (def->body_where && body >= 0 && def->body_where[body] && def->body_where[body][0]) {
        const char *at = def->body_where[body]; /* "file:line:", perhaps with a space */
        size_t len = strlen(at);
        while (len > 0 && at[len - 1] == ' ') {
            --len;
        }
        n = snprintf(w, TP_WARNING_MAX, "%.*s ", (int)(len < 400 ? len : 400), at);
    } else if (body == -2) {
        n = 0; /* a note of the script's: it says where itself */
    } else {
        n = snprintf(w, TP_WARNING_MAX, "domain '%s': ", def->name);
    }
    if (n < 0 || n >= TP_WARNING_MAX) {
        n = 0;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w + n, TP_WARNING_MAX - (size_t)n, fmt, ap);
    va_end(ap);
}

const char *tpDomain_WhyNoRRT(const tpDomain *d)
{
    if (d->key_body >= 0 && d->key_dim > 0) {
        return NULL;
    }
    if (d->sample_dim == 0) {
        return "BK-RRT needs a sampling space: add sampling = { ... } to tp.domain, e.g. sampling = { "
               "tp.uniform({x0, y0}, {x1, y1}) } over the area the body moves in "
               "(docs/lua-api.md#sampling-space-brk-rrt), or plan with BK-BGT";
    }
    return "BK-RRT's sampling space needs a body to compare with the samples: the domain controls none, so name "
           "one with sampling.body (docs/lua-api.md#sampling-space-brk-rrt), or plan with BK-BGT";
}

const char *tpDomain_Error(const tpDomain *d)
{
    return d->error;
}
void tpDomain_SetError(tpDomain *d, const char *msg)
{
    tpStrCopy(d->error, sizeof d->error, msg ? msg : "");
}

/* ---- problem callbacks ---------------------------------------------------------------------- */

/* A scripted motion function failed (in a skill, a condition or the step): the run's error. */
static bool motion_failed(tpDomain *d)
{
    const char *e = tpWorld_FatalError(d->world);
    if (!e[0]) {
        return false;
    }
    tpDomain_SetError(d, e);
    return true;
}

static void cb_initial(void *ctx, void *x)
{
    tpDomain *d = ctx;
    memset(x, 0, d->state_bytes);
    if (d->has_start) {
        *(double *)x = d->start_t;
        memcpy((char *)x + d->off_bodies, d->start_x, sizeof(tpBodyState) * (size_t)d->nstate);
        memcpy((char *)x + d->off_rest, d->start_rest, (size_t)d->nstate);
    } else {
        tpWorld_InitialState(d->world, (tpBodyState *)((char *)x + d->off_bodies));
    }
    if (d->has_start && d->start_tac) { /* a state the tactics resume from */
        memcpy((char *)x + d->off_tactics, d->start_tac, d->off_rest - d->off_tactics);
    } else {
        for (int i = 0; i < d->ntactics; ++i) {
            tactic_mut(d, x, i)->sigma = d->tactics[i].initial;
        }
    }
    if (d->has_start && d->start_mem && d->nmem > 0) {
        memcpy((char *)x + d->off_mem, d->start_mem, sizeof(int32_t) * (size_t)d->nmem);
    }
}

/* One draw of the sampling distributions into y (sample_dim doubles). */
static void draw_sample(const tpDomain *d, tpRng *rng, double *y)
{
    int k = 0;
    for (int i = 0; i < d->def.sampling.ndists; ++i) {
        const tpDist *dist = &d->def.sampling.dists[i];
        tpDist_Sample(dist, rng, NULL, 0, y + k);
        k += dist->dim;
    }
}

static void cb_sample(void *ctx, tpRng *rng, double *y)
{
    draw_sample(ctx, rng, y);
}

/* sampling.bodies (BK-RRT only): one more draw per listed body after the first, for the key. */
static void cb_sample_key(void *ctx, tpRng *rng, double *y)
{
    const tpDomain *d = ctx;
    for (int b = 1; b < d->def.sampling.nbodies; ++b) {
        draw_sample(d, rng, y + b * d->sample_dim);
    }
}

static void cb_key(void *ctx, const void *x, double *key)
{
    tpDomain *d = ctx;
    tpBodyState s;
    if (d->def.sampling.nbodies > 0) { /* the listed bodies' positions, sample_dim dims each */
        for (int b = 0; b < d->def.sampling.nbodies; ++b) {
            tpWorld_BodyState(d->world, tpState_Bodies(x), tpState_Time(x), d->def.sampling.bodies[b], &s);
            for (int i = 0; i < d->sample_dim; ++i) {
                key[b * d->sample_dim + i] = s.pos[i];
            }
        }
        return;
    }
    tpWorld_BodyState(d->world, tpState_Bodies(x), tpState_Time(x), d->key_body, &s);
    if (d->def.sampling.distance == TP_DISTANCE_EUCLIDEAN) {
        for (int i = 0; i < d->key_dim; ++i) {
            key[i] = s.pos[i];
        }
        return;
    }
    key[0] = s.pos[0];
    key[1] = s.pos[1];
    key[2] = s.vel[0];
    key[3] = s.vel[1];
    key[4] = tpQuat_Yaw(s.quat);
    key[5] = s.angvel[2];
}

/* Minimal time to cover `dist` from speed `v_along` toward the target under acceleration a,
 * plus the time to cancel the sideways speed: the paper's acceleration-based motion model. */
static double min_time_1d(double dist, double v_along, double v_side, double a)
{
    return (-v_along + sqrt(v_along * v_along + 2.0 * a * dist)) / a + fabs(v_side) / a;
}

static double cb_distance(void *ctx, const double *key, const double *y)
{
    tpDomain *d = ctx;
    double dx = y[0] - key[0], dy = y[1] - key[1];
    double dist = sqrt(dx * dx + dy * dy);
    double t_lin;
    if (dist > 1e-12) {
        double ux = dx / dist, uy = dy / dist;
        double va = key[2] * ux + key[3] * uy;
        double vs = -key[2] * uy + key[3] * ux;
        t_lin = min_time_1d(dist, va, vs, d->max_accel);
    } else {
        t_lin = sqrt(key[2] * key[2] + key[3] * key[3]) / d->max_accel;
    }
    if (d->sample_dim < 3) {
        return t_lin;
    }
    double e = tpAngle_Wrap(y[2] - key[4]);
    double wa = e >= 0 ? key[5] : -key[5];
    double t_ang = min_time_1d(fabs(e), wa, 0.0, d->max_angaccel);
    return t_lin > t_ang ? t_lin : t_ang;
}

void tpDomain_ExpandAction(const tpDomain *d, const double *compact, double *full)
{
    for (int k = 0; k < d->ncontrol; ++k) {
        const double *c = compact + d->act_off[k];
        double *f = full + 6 * k;
        if (d->act_planar[k]) {
            f[0] = c[0];
            f[1] = c[1];
            f[2] = f[3] = f[4] = 0.0;
            f[5] = c[2];
        } else {
            memcpy(f, c, sizeof(double) * 6);
        }
    }
    if (d->nmotor > 0) {
        memcpy(full + 6 * d->ncontrol, compact + d->motor_off, sizeof(double) * (size_t)d->nmotor);
    }
}

/* The clamped full action into its stored form (exact: the clamp zeroed what is dropped). */
static void pack_action(const tpDomain *d, const double *full, double *compact)
{
    for (int k = 0; k < d->ncontrol; ++k) {
        double *c = compact + d->act_off[k];
        const double *f = full + 6 * k;
        if (d->act_planar[k]) {
            c[0] = f[0];
            c[1] = f[1];
            c[2] = f[5];
        } else {
            memcpy(c, f, sizeof(double) * 6);
        }
    }
    if (d->nmotor > 0) {
        memcpy(compact + d->motor_off, full + 6 * d->ncontrol, sizeof(double) * (size_t)d->nmotor);
    }
}

static double cb_search_seconds(void *ctx)
{
    return tpSkillCache_SearchSeconds(((const tpDomain *)ctx)->skill_cache);
}

static int cb_control(void *ctx, const void *x, const double *y, tpRng *rng, void *xnew, double *stored)
{
    tpDomain *d = ctx;
    tpStateView view = tpDomain_View(d, x);
    /* Skills add to a full action (6 per control slot); the node keeps the compact form. */
    double *action = d->act_full;
    memset(action, 0, sizeof(double) * 6 * (size_t)d->ncontrol);
    if (d->nmotor > 0) { /* a motor no skill drives this step runs at its declared speed */
        memcpy(action + 6 * d->ncontrol, d->motor_default, sizeof(double) * (size_t)d->nmotor);
    }
    bool band = false, any = false;
    const uint64_t step = ++d->skill_step; /* every skill below sees this x and t */
    for (int i = 0; i < d->ntactics; ++i) {
        const tpTacticDef *tac = &d->tactics[i];
        const tpTacticState *ts = tpState_Tactic(d, x, i);
        tpTacticState *tn = tactic_mut(d, xnew, i);
        int sigma = ts->sigma;
        bool fresh = false;
        if (!ts->started) {
            fresh = true; /* the initially active skill starts without a transition */
        } else if (!ts->busy) {
            int k = tac->nskills;
            if (tac->pi_dynamic && tac->pi_dynamic[sigma]) {
                if (tac->pi_fn(tac->pi_user, i, sigma, &view, d->probs) != 0) {
                    return TP_CB_ERROR;
                }
                for (int j = 0; j < k; ++j) {
                    if (!(d->probs[j] >= 0) || !isfinite(d->probs[j])) {
                        tpErrorf(d->error, sizeof d->error,
                                 "tactic '%s': transition %s -> %s: probability must be >= 0 (got %g)", tac->name,
                                 tac->skills[sigma].name, tac->skills[j].name, d->probs[j]);
                        return TP_CB_ERROR;
                    }
                }
                sigma = tpTactic_G(d->probs, k, sigma, rng);
            } else {
                sigma = tpTactic_G(tac->pi + (size_t)sigma * (size_t)k, k, sigma, rng);
            }
            fresh = true; /* V <- {y} */
        }
        tn->sigma = sigma;
        tn->started = 1;
        /* Skills see all TP_SKILL_VARS variables; only the tactic's nv are stored in the blob. */
        const int nv = d->tac_nv[i];
        double V[TP_SKILL_VARS] = {0};
        if (!fresh) {
            memcpy(V, ts->V, sizeof(double) * (size_t)nv);
        }
        tpSkillCall call = {d->world, view.bodies, view.t, d->def.scene.dt, y,   d->sample_dim, rng, fresh,
                            V,        action,      NULL,   d->skill_cache,  step};
        int b = tpSkill_Run(&tac->skills[sigma], &call);
        memcpy(tn->V, V, sizeof(double) * (size_t)nv);
        if (b < 0) {
            if (!d->error[0]) {
                tpDomain_SetError(d, "skill failed");
            }
            return TP_CB_ERROR;
        }
        tn->busy = (uint8_t)(b != 0);
        if (!tac->foreign) {
            band = any ? (band && b) : (b != 0);
            any = true;
        }
    }
    /* Skill outputs enter the physics here: a non-finite or absurd force is the domain's error
     * (a custom skill, a sampled parameter), reported, never handed to ODE. */
    for (int k = 0; k < 6 * d->ncontrol; ++k) {
        if (!(fabs(action[k]) <= TP_MAX_FORCE)) {
            const tpBodyDef *b = tpWorld_Body(d->world, tpWorld_ControlBody(d->world, k / 6));
            tpErrorf(d->error, sizeof d->error, "the skills gave body '%s' a %s %c component of %g, outside +-%g",
                     b->name, k % 6 < 3 ? "force" : "torque", "xyz"[k % 3], action[k], TP_MAX_FORCE);
            return TP_CB_ERROR;
        }
    }
    for (int m = 0; m < d->nmotor; ++m) {
        const double v = action[6 * d->ncontrol + m], lim = tpWorld_MotorMaxSpeed(d->world, m);
        if (!(fabs(v) <= lim)) {
            int axis = 0;
            const tpJointDef *jd = tpWorld_Joint(d->world, tpWorld_MotorJoint(d->world, m, &axis));
            tpErrorf(d->error, sizeof d->error,
                     "the skills gave joint '%s'%s a motor target of %g %s, outside +-%g (its motor%s.max_speed)",
                     jd->name, axis ? " (axis 2)" : "", v, jd->kind == TP_JOINT_SLIDER ? "m/s" : "rad/s", lim,
                     axis ? "2" : "");
            return TP_CB_ERROR;
        }
    }
    if (motion_failed(d)) {
        return TP_CB_ERROR;
    }
    /* Store the action as applied, so recorded controls are exactly what Sim used. */
    tpWorld_ClampAction(d->world, action);
    pack_action(d, action, stored);
    return band ? TP_CB_TRUE : TP_CB_FALSE;
}

static int cb_simulate(void *ctx, const void *x, const double *action, void *xnew)
{
    tpDomain *d = ctx;
    double t = tpState_Time(x);
    tpDomain_ExpandAction(d, action, d->act_full);
    /* the rest counts (sleeping bodies) are part of the state, so that Sim stays pure */
    bool ok = tpWorld_StepRest(d->world, tpState_Bodies(x), (const uint8_t *)x + d->off_rest, t, d->act_full,
                               (tpBodyState *)((char *)xnew + d->off_bodies), (uint8_t *)xnew + d->off_rest);
    *(double *)xnew = t + d->def.scene.dt;
    if (!ok && motion_failed(d)) {
        return TP_CB_ERROR;
    }
    if (ok && d->nmem > 0) {
        /* the temporal conditions observe every step (busy ones too), with this step's contacts: x's
           memory, updated by xnew's state, into xnew */
        int32_t *mem = (int32_t *)((char *)xnew + d->off_mem);
        memcpy(mem, (const char *)x + d->off_mem, sizeof(int32_t) * (size_t)d->nmem);
        if (tpDomain_Observe(d, tpState_Bodies(xnew), tpState_Time(xnew), mem) < 0 || motion_failed(d)) {
            return TP_CB_ERROR;
        }
    }
    return ok ? TP_CB_TRUE : TP_CB_FALSE; /* a state that left the physical ranges: invalid */
}

/* Slack of the shot's bounds for the roundoff of summed steps (as the temporal conditions'). */
#define SHOT_SLACK 1e-9

static int cb_valid(void *ctx, const void *x)
{
    tpDomain *d = ctx;
    if (d->def.shot_max > 0 && tpState_Time(x) > d->def.shot_max + SHOT_SLACK) {
        d->valid_blame = NULL;
        return TP_CB_FALSE; /* past the shot's end */
    }
    if (!d->def.valid) {
        return TP_CB_TRUE;
    }
    tpStateView v = tpDomain_View(d, x);
    int r = tpCond_EvalBlame(d->def.valid, &v, d->initial_all, &d->valid_blame);
    return motion_failed(d) ? TP_CB_ERROR : r;
}

static const char *body_name(const tpDomain *d, int body)
{
    return body >= 0 && body < d->nbodies ? tpWorld_Body(d->world, body)->name : "?";
}

/* A scene whose initial state overlaps deeper than the penetration limits fails every step from
 * the root: the planner spent its whole budget rejecting them ("30000 iterations, 1 nodes, 30000
 * rejected"). Refused here, in one line that names the pair and the depth, prefixed by where the
 * script defines the (moving) body when the definition says. */
static bool check_start_overlap(const tpDomain *d, const tpDomainDef *def, const tpBodyState *x0, char *err,
                                size_t errlen)
{
    tpStepFailure f;
    if (tpWorld_CheckOverlap(d->world, x0, 0.0, &f)) {
        return true;
    }
    const char *at = def->body_where && f.a >= 0 && def->body_where[f.a] ? def->body_where[f.a] : "";
    size_t len = strlen(at);
    while (len > 0 && at[len - 1] == ' ') {
        --len;
    }
    char where[TP_NAME_MAX + 480];
    if (len > 0) {
        snprintf(where, sizeof where, "%.*s", (int)(len < 400 ? len : 400), at);
    } else {
        snprintf(where, sizeof where, "domain '%s':", def->name);
    }
    if (f.kind == TP_STEP_STATIC_PENETRATION) {
        tpErrorf(err, errlen,
                 "%s body '%s' starts %.4g m into static '%s' (max_static_penetration %g m): move it out, or raise "
                 "the limit",
                 where, body_name(d, f.a), f.value, body_name(d, f.b), f.limit);
    } else {
        tpErrorf(err, errlen,
                 "%s bodies '%s' and '%s' start overlapping %.4g m (max_body_penetration %g m): move them apart, or "
                 "raise the limit",
                 where, body_name(d, f.a), body_name(d, f.b), f.value, f.limit);
    }
    return false;
}

/* One line on a failed step (tpWorld_LastFailure) with the bodies' names. */
void tpDomain_DescribeFailure(const tpDomain *d, const tpStepFailure *f, char *out, size_t outlen)
{
    static const char *const what[] = {"",           "position", "speed",  "angular speed",
                                       "quaternion", "force",    "torque", "speed"};
    static const char *const unit[] = {"", "m", "m/s", "rad/s", "", "N", "N m", "m/s"};
    char when[96];
    if (f->substep < 0) {
        snprintf(when, sizeof when, "before the step from t = %.6g s", f->t);
    } else if (f->substeps <= 1) {
        snprintf(when, sizeof when, "in the step from t = %.6g s", f->t);
    } else if (f->substep >= f->substeps) {
        snprintf(when, sizeof when, "after the step from t = %.6g s", f->t);
    } else {
        snprintf(when, sizeof when, "in substep %d of %d of the step from t = %.6g s", f->substep + 1, f->substeps,
                 f->t);
    }
    const char axis = f->axis >= 0 && f->axis < 3 ? "xyz"[f->axis] : '?';
    const int k = (int)f->what >= 0 && (int)f->what < 8 ? (int)f->what : 0;
    switch (f->kind) {
    case TP_STEP_STATIC_PENETRATION:
        snprintf(out, outlen, "'%s' %.4g m into static '%s' (limit %g m) %s", body_name(d, f->a), f->value,
                 body_name(d, f->b), f->limit, when);
        break;
    case TP_STEP_BODY_PENETRATION:
        snprintf(out, outlen, "'%s' and '%s' overlap %.4g m (limit %g m) %s", body_name(d, f->a), body_name(d, f->b),
                 f->value, f->limit, when);
        break;
    case TP_STEP_OUT_OF_RANGE:
        if (f->what == TP_STEP_VALUE_QUAT) {
            snprintf(out, outlen, "'%s' quaternion squared norm %.6g outside (0.25, 4) %s", body_name(d, f->a),
                     f->value, when);
        } else if (f->what == TP_STEP_VALUE_SWEEP) {
            snprintf(out, outlen,
                     "'%s' moves at %.6g m/s, faster than the substeps can follow for its size (%g m/s: it could "
                     "pass a thin wall unseen) %s",
                     body_name(d, f->a), f->value, f->limit, when);
        } else {
            snprintf(out, outlen, "'%s' %s %c = %.6g %s beyond +-%g %s", body_name(d, f->a), what[k], axis, f->value,
                     unit[k], f->limit, when);
        }
        break;
    case TP_STEP_BAD_ACTION:
        if (f->what == TP_STEP_VALUE_MOTOR && f->joint >= 0 && f->joint < tpWorld_JointCount(d->world)) {
            snprintf(out, outlen, "the action's motor target on joint '%s'%s = %.6g beyond +-%g %s",
                     tpWorld_Joint(d->world, f->joint)->name, f->axis == 1 ? " (axis 2)" : "", f->value, f->limit,
                     when);
            break;
        }
        snprintf(out, outlen, "the action's %s %c on '%s' = %.6g %s beyond +-%g %s", what[k], axis, body_name(d, f->a),
                 f->value, unit[k], f->limit, when);
        break;
    default:
        snprintf(out, outlen, "the physics refused the step from t = %.6g s", f->t);
        break;
    }
}

/* tpProblem.reject: the kind from the world's failure record or the valid condition's blame (a
 * load or two); the words only for the first of each kind. */
static int cb_reject(void *ctx, int by, const void *xnew, char *text, size_t textlen)
{
    tpDomain *d = ctx;
    if (by == TP_REFUSED_BY_VALID) {
        if (text) {
            tpStateView v = tpDomain_View(d, xnew);
            if (d->def.shot_max > 0 && v.t > d->def.shot_max + SHOT_SLACK) {
                snprintf(text, textlen, "past the shot's end (shot.max %g s) at t = %.6g s", d->def.shot_max, v.t);
            } else if (d->valid_blame) {
                tpCond_Describe(d->valid_blame, &v, d->initial_all, text, textlen);
            } else {
                snprintf(text, textlen, "the valid condition was false at t = %.6g s", v.t);
            }
        }
        return TP_REJECT_VALID;
    }
    const tpStepFailure *f = tpWorld_LastFailure(d->world);
    if (text) {
        tpDomain_DescribeFailure(d, f, text, textlen);
    }
    switch (f->kind) {
    case TP_STEP_STATIC_PENETRATION:
        return TP_REJECT_STATIC_PENETRATION;
    case TP_STEP_BODY_PENETRATION:
        return TP_REJECT_BODY_PENETRATION;
    case TP_STEP_OUT_OF_RANGE:
    case TP_STEP_BAD_ACTION:
        return TP_REJECT_OUT_OF_RANGE;
    default:
        return TP_REJECT_UNSPECIFIED;
    }
}

static int cb_goal(void *ctx, const void *x)
{
    tpDomain *d = ctx;
    tpStateView v = tpDomain_View(d, x);
    int r = tpCond_Eval(d->def.goal, &v, d->initial_all);
    if (r == TP_CB_TRUE && tpState_Time(x) < d->def.shot_min - SHOT_SLACK) {
        r = TP_CB_FALSE; /* shorter than the shot */
    }
    return motion_failed(d) ? TP_CB_ERROR : r;
}

static double metric_distance(const tpDomain *d, const tpMetricDef *m, const void *x)
{
    tpBodyState s;
    tpWorld_BodyState(d->world, tpState_Bodies(x), tpState_Time(x), m->body, &s);
    double d2 = 0;
    for (int i = 0; i < (m->planar ? 2 : 3); ++i) {
        d2 += (s.pos[i] - m->point[i]) * (s.pos[i] - m->point[i]);
    }
    return sqrt(d2);
}

static double cb_quality(void *ctx, const void *x)
{
    tpDomain *d = ctx;
    const tpMetricDef *m = &d->def.quality;
    if (m->kind == TP_METRIC_DISTANCE) {
        return metric_distance(d, m, x);
    }
    if (m->kind == TP_METRIC_ARRANGED) {
        tpStateView v = tpDomain_View(d, x);
        return 1.0 - tpCond_ArrangedFraction(m->cond, &v);
    }
    if (m->kind == TP_METRIC_CALLBACK) {
        tpStateView v = tpDomain_View(d, x);
        const double *acts[1] = {d->act_zero};
        return m->fn(m->user, m->id, &v, acts, 1);
    }
    return -(double)tpState_Time(x); /* TP_METRIC_STEPS/DEFAULT: deepest (latest) is best */
}

/* Fallbacks (docs/lua-api.md#fallbacks): an approximate answer judged at rest first is judged on
 * the goal's tp.settled bodies and limits, or, for a goal without one (fallback = "rest"), on
 * every passive and active body at the limits below. */
#define REST_SPEED 0.05  /* m/s */
#define REST_ANGULAR 0.5 /* rad/s */
/* Exact unrest of a body that rests on nothing (in the air, falling out of the scene): more than
 * any speed ratio a scene on things reaches, so a node with fewer bodies in the air is closer to
 * rest than one with more, whatever their speeds. */
#define AIRBORNE 1e6

/* A body's part of the unrest: 0 below both limits, else the larger ratio (1 at a limit or NaN). */
static double body_unrest(const tpBodyState *s, double speed, double angular)
{
    const double sp = sqrt(s->vel[0] * s->vel[0] + s->vel[1] * s->vel[1] + s->vel[2] * s->vel[2]);
    const double av = sqrt(s->angvel[0] * s->angvel[0] + s->angvel[1] * s->angvel[1] + s->angvel[2] * s->angvel[2]);
    if (sp < speed && av < angular) {
        return 0.0;
    }
    const double r = fmax(sp / speed, av / angular);
    return r >= 1.0 ? r : 1.0;
}

/* Appends the bodies of the SETTLED conditions under c (through AND, as tpCond_RequiresRest) to
 * d's rest set (room for every body: a body listed twice keeps its strictest limits). */
static void rest_from_cond(tpDomain *d, const tpCond *c)
{
    for (int i = 0; c->kind == TP_COND_SETTLED && i < c->ntargets; ++i) {
        const int b = c->target_bodies[i];
        int k = 0;
        while (k < d->nrest && d->rest_body[k] != b) {
            ++k;
        }
        if (k == d->nrest) {
            d->rest_body[k] = b;
            d->rest_speed[k] = c->value;
            d->rest_angular[k] = c->angular;
            d->nrest++;
        } else {
            d->rest_speed[k] = fmin(d->rest_speed[k], c->value);
            d->rest_angular[k] = fmin(d->rest_angular[k], c->angular);
        }
    }
    for (int i = 0; c->kind == TP_COND_AND && i < c->nchildren; ++i) {
        rest_from_cond(d, c->children[i]);
    }
}

/* d's rest set. False when out of memory. */
static bool setup_rest(tpDomain *d)
{
    const size_t n = (size_t)(d->nbodies > 0 ? d->nbodies : 1);
    d->rest_body = malloc(n * sizeof *d->rest_body);
    d->rest_speed = malloc(n * sizeof *d->rest_speed);
    d->rest_angular = malloc(n * sizeof *d->rest_angular);
    d->rest_held = calloc(n, sizeof *d->rest_held);
    if (!d->rest_body || !d->rest_speed || !d->rest_angular || !d->rest_held) {
        return false;
    }
    d->nrest = 0;
    if (tpCond_RequiresRest(d->def.goal)) {
        rest_from_cond(d, d->def.goal);
    } else {
        for (int i = 0; i < d->nbodies; ++i) {
            const tpBodyClass c = tpWorld_Body(d->world, i)->cls;
            if (c == TP_BODY_PASSIVE || c == TP_BODY_ACTIVE) {
                d->rest_body[d->nrest] = i;
                d->rest_speed[d->nrest] = REST_SPEED;
                d->rest_angular[d->nrest] = REST_ANGULAR;
                d->nrest++;
            }
        }
    }
    /* a catapult's arm on its hinge, a pendulum's bob: a joint holds them, no contact */
    for (int j = 0; j < tpWorld_JointCount(d->world); ++j) {
        const tpJointDef *jd = tpWorld_Joint(d->world, j);
        for (int k = 0; k < d->nrest; ++k) {
            d->rest_held[k] = d->rest_held[k] || d->rest_body[k] == jd->body_a || d->rest_body[k] == jd->body_b;
        }
    }
    return true;
}

/* The lower bound: the rest set's speeds alone, as the fastest body's ratio r to its limits in
 * classes: 0 at rest (every body below them), 1 settling (r < SETTLING), then 2 + floor(log2(r /
 * SETTLING)) (octaves above). Quality decides within a class: 0.400 against 0.401 m/s among 400
 * dice is no reason to drop a better arrangement, and a shot still settling ends on its best. */
#define SETTLING 16.0
static double cb_unrest(void *ctx, const void *x)
{
    tpDomain *d = ctx;
    double r = 0.0;
    for (int k = 0; k < d->nrest; ++k) {
        tpBodyState s;
        tpWorld_BodyState(d->world, tpState_Bodies(x), tpState_Time(x), d->rest_body[k], &s);
        r = fmax(r, body_unrest(&s, d->rest_speed[k], d->rest_angular[k]));
    }
    return r <= 0.0 ? 0.0 : r < SETTLING ? 1.0 : 2.0 + floor(log2(fmin(r, 1e300) / SETTLING));
}

/* The exact unrest: the lower bound, and AIRBORNE for each body of the rest set that rests on
 * nothing in x (tpWorld_Supported: moved TP_SUPPORT_GAP along gravity it touches nothing). */
static double cb_unrest_exact(void *ctx, const void *x)
{
    tpDomain *d = ctx;
    double u = cb_unrest(ctx, x);
    for (int k = 0; k < d->nrest; ++k) {
        if (!d->rest_held[k] && !tpWorld_Supported(d->world, tpState_Bodies(x), tpState_Time(x), d->rest_body[k])) {
            u += AIRBORNE;
        }
    }
    return u;
}

/* Within the shot: not shorter than its minimum. */
static int cb_eligible(void *ctx, const void *x)
{
    const tpDomain *d = ctx;
    return tpState_Time(x) >= d->def.shot_min - SHOT_SLACK ? TP_CB_TRUE : TP_CB_FALSE;
}

static double peak_force(const tpDomain *d, const tpMetricDef *m, const tpTree *tree, const int32_t *path, int len)
{
    const double *g = d->def.scene.gravity;
    double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    double peak = 0;
    for (int k = 0; k < d->ncontrol; ++k) {
        int body = tpWorld_ControlBody(d->world, k);
        bool listed = m->nbodies == 0;
        for (int j = 0; j < m->nbodies && !listed; ++j) {
            listed = m->bodies[j] == body;
        }
        double mass = tpWorld_Body(d->world, body)->mass;
        if (!listed || !(mass > 0) || !(gn > 0)) {
            continue;
        }
        double peak2 = 0;
        for (int i = 1; i < len; ++i) {
            /* the force is the first 2 (planar slot) or 3 entries of the compact action slot */
            const double *f = tpTree_Action(tree, path[i]) + d->act_off[k];
            double f2 = f[0] * f[0] + f[1] * f[1] + (d->act_planar[k] ? 0.0 : f[2] * f[2]);
            peak2 = f2 > peak2 ? f2 : peak2;
        }
        double r = sqrt(peak2) / (mass * gn);
        peak = r > peak ? r : peak;
    }
    return peak;
}

/* A metric over the path root..end (len node indices). NaN on a callback error. */
static double path_metric(tpDomain *d, const tpMetricDef *m, const tpTree *tree, const int32_t *path, int len)
{
    switch (m->kind) {
    case TP_METRIC_ARRANGED: {
        tpStateView v = tpDomain_View(d, tpTree_State(tree, path[len - 1]));
        return 1.0 - tpCond_ArrangedFraction(m->cond, &v);
    }
    case TP_METRIC_PEAK_FORCE:
        return peak_force(d, m, tree, path, len);
    case TP_METRIC_DISTANCE:
        return metric_distance(d, m, tpTree_State(tree, path[len - 1]));
    case TP_METRIC_EFFORT: {
        double sum = 0;
        for (int i = 1; i < len; ++i) {
            const double *a = d->act_full;
            tpDomain_ExpandAction(d, tpTree_Action(tree, path[i]), d->act_full);
            for (int k = 0; k < d->ncontrol; ++k) {
                int body = tpWorld_ControlBody(d->world, k);
                bool listed = m->nbodies == 0;
                for (int j = 0; j < m->nbodies && !listed; ++j) {
                    listed = m->bodies[j] == body;
                }
                if (listed) {
                    const double *f = a + 6 * k;
                    sum += sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) * d->def.scene.dt;
                }
            }
        }
        return sum;
    }
    case TP_METRIC_CALLBACK: {
        tpStateView *views = malloc(sizeof *views * (size_t)len);
        const double **acts = malloc(sizeof *acts * (size_t)len);
        const size_t full = (size_t)tpWorld_ActionCount(d->world);
        double *expanded = malloc(sizeof *expanded * (full > 0 ? full : 1) * (size_t)len);
        if (!views || !acts || !expanded) {
            free(views);
            free(acts);
            free(expanded);
            tpDomain_SetError(d, "out of memory evaluating the solution metric");
            return NAN;
        }
        for (int i = 0; i < len; ++i) {
            views[i] = tpDomain_View(d, tpTree_State(tree, path[i]));
            tpDomain_ExpandAction(d, tpTree_Action(tree, path[i]), expanded + full * (size_t)i);
            acts[i] = expanded + full * (size_t)i;
        }
        double c = m->fn(m->user, m->id, views, acts, len);
        free(views);
        free(acts);
        free(expanded);
        return c;
    }
    default:
        return (double)(len - 1);
    }
}

static double cb_solution_cost(void *ctx, const tpTree *tree, const int32_t *path, int len)
{
    tpDomain *d = ctx;
    return path_metric(d, &d->def.solution, tree, path, len);
}

bool tpDomain_Reports(tpDomain *d, const tpTree *tree, int32_t leaf, double *values)
{
    if (d->def.nreports == 0) {
        return true;
    }
    int len = tpTree_Path(tree, leaf, NULL, 0);
    int32_t *path = malloc(sizeof *path * (size_t)(len > 0 ? len : 1));
    if (!path) {
        tpDomain_SetError(d, "out of memory evaluating the reports");
        return false;
    }
    tpTree_Path(tree, leaf, path, len);
    bool ok = true;
    for (int r = 0; r < d->def.nreports && ok; ++r) {
        const tpMetricDef *m = &d->def.reports[r].metric;
        double v = path_metric(d, m, tree, path, len);
        values[r] = m->kind == TP_METRIC_ARRANGED ? 1.0 - v : v;
        ok = !isnan(values[r]);
    }
    free(path);
    return ok;
}

tpProblem tpDomain_Problem(tpDomain *d)
{
    tpProblem p;
    memset(&p, 0, sizeof p);
    p.ctx = d;
    p.state_bytes = d->state_bytes;
    p.action_dim = d->action_dim;
    p.sample_dim = d->sample_dim;
    p.key_dim = d->key_body >= 0 ? d->key_dim : 0;
    p.key_is_euclidean = d->def.sampling.distance == TP_DISTANCE_EUCLIDEAN;
    p.initial_state = cb_initial;
    p.sample = d->sample_dim > 0 ? cb_sample : NULL;
    p.sample_key = d->def.sampling.nbodies > 1 ? cb_sample_key : NULL;
    p.key = cb_key;
    p.distance = p.key_is_euclidean ? NULL : cb_distance;
    p.control = cb_control;
    p.search_seconds = cb_search_seconds;
    p.simulate = cb_simulate;
    p.valid = d->def.valid || d->def.shot_max > 0 ? cb_valid : NULL;
    p.reject = cb_reject;
    p.goal = cb_goal;
    p.quality = cb_quality;
    const bool rest = d->def.fallback == TP_FALLBACK_REST ||
                      (d->def.fallback == TP_FALLBACK_AUTO && tpCond_RequiresRest(d->def.goal));
    p.unrest = rest ? cb_unrest : NULL;
    p.unrest_exact = rest ? cb_unrest_exact : NULL;
    p.eligible = d->def.shot_min > 0 ? cb_eligible : NULL;
    p.solution_cost = cb_solution_cost;
    return p;
}

/* ---- construction --------------------------------------------------------------------------- */

static void free_tactics(tpTacticDef *t, int n)
{
    for (int i = 0; i < n && t; ++i) {
        free((void *)t[i].skills);
        free((void *)t[i].pi);
        free((void *)t[i].pi_dynamic);
    }
    free(t);
}

void tpDestroyDomain(tpDomain *d)
{
    if (!d) {
        return;
    }
    tpDestroyWorld(d->world);
    tpDestroySkillCache(d->skill_cache);
    free_tactics(d->tactics, d->ntactics);
    free(d->probs);
    free(d->initial_all);
    free(d->rest_body);
    free(d->rest_speed);
    free(d->rest_angular);
    free(d->rest_held);
    free(d->start_x);
    free(d->start_rest);
    free(d->start_tac);
    free(d->start_mem);
    free(d->tac_off);
    free(d->tac_nv);
    free(d->act_off);
    free(d->act_planar);
    free(d->act_full);
    free(d->act_zero);
    free(d->motor_default);
    tpDestroyCond(d->def.quality.cond);
    tpDestroyCond(d->def.solution.cond);
    for (int r = 0; r < d->def.nreports; ++r) {
        tpDestroyCond(d->def.reports[r].metric.cond);
    }
    tpDestroyCond(d->def.goal);
    tpDestroyCond(d->def.valid);
    free(d);
}

static bool copy_tactic(tpDomain *d, int idx, const tpTacticDef *src, char *err, size_t errlen)
{
    tpTacticDef *t = &d->tactics[idx];
    *t = *src;
    t->skills = NULL;
    t->pi = NULL;
    t->pi_dynamic = NULL;
    int k = src->nskills;
    int cc = tpName_ControlByte(src->name);
    if (cc >= 0) {
        tpErrorf(err, errlen, "tactic #%d: name has a control character (byte 0x%02x at offset %d)", idx + 1,
                 (unsigned char)src->name[cc], cc);
        return false;
    }
    if (k < 1) {
        tpErrorf(err, errlen, "tactic '%s': needs at least one skill", src->name);
        return false;
    }
    if (src->initial < 0 || src->initial >= k) {
        tpErrorf(err, errlen, "tactic '%s': start skill index %d out of range", src->name, src->initial);
        return false;
    }
    tpSkillDef *sk = malloc(sizeof *sk * (size_t)k);
    double *pi = calloc((size_t)k * (size_t)k, sizeof *pi);
    bool *dyn = calloc((size_t)k, sizeof *dyn);
    t->skills = sk;
    t->pi = pi;
    t->pi_dynamic = dyn;
    if (!sk || !pi || !dyn) {
        tpErrorf(err, errlen, "out of memory");
        return false;
    }
    memcpy(sk, src->skills, sizeof *sk * (size_t)k);
    if (src->pi) {
        memcpy(pi, src->pi, sizeof *pi * (size_t)k * (size_t)k);
    }
    if (src->pi_dynamic) {
        memcpy(dyn, src->pi_dynamic, sizeof *dyn * (size_t)k);
    }
    for (int s = 0; s < k; ++s) {
        char msg[512];
        if (!tpSkill_Validate(&sk[s], d->world, msg, sizeof msg)) {
            tpErrorf(err, errlen, "tactic '%s': %s", src->name, msg);
            return false;
        }
        cc = tpName_ControlByte(sk[s].name);
        if (cc >= 0) {
            tpErrorf(err, errlen, "tactic '%s': skill #%d: name has a control character (byte 0x%02x at offset %d)",
                     src->name, s + 1, (unsigned char)sk[s].name[cc], cc);
            return false;
        }
        for (int j = 0; j < s; ++j) {
            if (strcmp(sk[j].name, sk[s].name) == 0) {
                tpErrorf(err, errlen, "tactic '%s': duplicate skill name '%s'", src->name, sk[s].name);
                return false;
            }
        }
        if (dyn[s] && !src->pi_fn) {
            tpErrorf(err, errlen, "tactic '%s': dynamic transitions without a function", src->name);
            return false;
        }
        for (int j = 0; j < k; ++j) {
            double p = pi[(size_t)s * (size_t)k + (size_t)j];
            if (!(p >= 0) || !isfinite(p)) {
                tpErrorf(err, errlen, "tactic '%s': transitions.%s.%s: probability must be >= 0 (got %g)", src->name,
                         sk[s].name, sk[j].name, p);
                return false;
            }
        }
    }
    if (k > d->max_skills) {
        d->max_skills = k;
    }
    return true;
}

static bool setup_sampling(tpDomain *d, char *err, size_t errlen)
{
    tpSamplingDef *s = &d->def.sampling;
    if (s->ndists < 0 || s->ndists > 4) {
        tpErrorf(err, errlen, "sampling: at most 4 distributions (got %d)", s->ndists);
        return false;
    }
    d->sample_dim = 0;
    for (int i = 0; i < s->ndists; ++i) {
        char field[64];
        snprintf(field, sizeof field, "sampling[%d]", i + 1);
        if (s->dists[i].kind == TP_DIST_UNSET || s->dists[i].kind == TP_DIST_SAMPLE) {
            tpErrorf(err, errlen, "%s: must be a distribution", field);
            return false;
        }
        if (!tpDist_Validate(&s->dists[i], field, err, errlen)) {
            return false;
        }
        d->sample_dim += s->dists[i].dim;
    }
    if (d->sample_dim > TP_MAX_SAMPLE_DIMS) {
        tpErrorf(err, errlen, "sampling: y has %d dimensions (at most %d)", d->sample_dim, TP_MAX_SAMPLE_DIMS);
        return false;
    }
    if (s->nbodies < 0 || s->nbodies > TP_MAX_KEY_BODIES) {
        tpErrorf(err, errlen, "sampling.bodies: at most %d bodies (got %d)", TP_MAX_KEY_BODIES, s->nbodies);
        return false;
    }
    if (s->nbodies > 0) {
        if (s->distance != TP_DISTANCE_EUCLIDEAN) {
            tpErrorf(err, errlen, "sampling.bodies needs distance = \"euclidean\" (min_time compares one body)");
            return false;
        }
        if (d->sample_dim < 1 || d->sample_dim > 3) {
            tpErrorf(err, errlen, "sampling.bodies: y must have 1 to 3 dimensions, a position (got %d)", d->sample_dim);
            return false;
        }
        for (int b = 0; b < s->nbodies; ++b) {
            if (s->bodies[b] < 0 || s->bodies[b] >= d->nbodies) {
                tpErrorf(err, errlen, "sampling.bodies[%d]: unknown body index %d", b + 1, s->bodies[b]);
                return false;
            }
        }
        d->key_body = s->bodies[0];
        d->key_dim = d->sample_dim * s->nbodies;
        return true;
    }
    d->key_body = s->body;
    if (d->key_body < 0 && d->ncontrol > 0) {
        d->key_body = tpWorld_ControlBody(d->world, 0);
    }
    if (d->key_body >= d->nbodies) {
        tpErrorf(err, errlen, "sampling.body: unknown body index %d", d->key_body);
        return false;
    }
    if (d->key_body < 0 || d->sample_dim == 0) {
        d->key_body = -1; /* no sampling space: BK-RRT unavailable */
        return true;
    }
    if (s->distance == TP_DISTANCE_EUCLIDEAN) {
        d->key_dim = d->sample_dim < 3 ? d->sample_dim : 3;
        return true;
    }
    if (d->sample_dim < 2) {
        tpErrorf(err, errlen, "sampling: the min_time distance needs y = (x, y[, heading]) (got %d dims)",
                 d->sample_dim);
        return false;
    }
    d->key_dim = 6;
    const tpBodyDef *b = tpWorld_Body(d->world, d->key_body);
    double mass = b->mass > 0 ? b->mass : 1.0;
    d->max_accel = s->max_accel > 0 ? s->max_accel : (b->max_force > 0 ? b->max_force / mass : 10.0);
    double izz = tpBody_InertiaZ(d->world, d->key_body);
    d->max_angaccel =
        s->max_angaccel > 0 ? s->max_angaccel : (b->max_torque > 0 && izz > 0 ? b->max_torque / izz : 20.0);
    return true;
}

static bool check_metric(const tpDomain *d, const tpMetricDef *m, const char *what, char *err, size_t errlen)
{
    if (m->kind == TP_METRIC_DISTANCE && (m->body < 0 || m->body >= d->nbodies)) {
        tpErrorf(err, errlen, "%s: distance metric needs a body", what);
        return false;
    }
    if (m->kind == TP_METRIC_ARRANGED &&
        (!m->cond || m->cond->kind != TP_COND_ARRANGED || !tpCond_Check(m->cond, d->world, err, errlen))) {
        if (!m->cond || m->cond->kind != TP_COND_ARRANGED) {
            tpErrorf(err, errlen, "%s: the arranged metric needs an arranged condition", what);
        }
        return false;
    }
    if (m->kind == TP_METRIC_CALLBACK && !m->fn) {
        tpErrorf(err, errlen, "%s: callback metric without a function", what);
        return false;
    }
    if (m->nbodies < 0 || m->nbodies > 16) {
        tpErrorf(err, errlen, "%s: at most 16 bodies", what);
        return false;
    }
    for (int i = 0; i < m->nbodies; ++i) {
        if (m->bodies[i] < 0 || m->bodies[i] >= d->nbodies || tpWorld_ControlSlot(d->world, m->bodies[i]) < 0) {
            tpErrorf(err, errlen, "%s: body %d is not a controlled body", what, i + 1);
            return false;
        }
    }
    return true;
}

/* Whether a skill of the domain's tactics turns body b in place (turn_to). The skills that turn it
 * while it drives (nav_to, follow_path, kick, ...) can: the sliding friction then goes along the
 * motion, and a torque below the corners' static friction torque still turns it (measured: the
 * stuck_turn robot with 5 N m of its 9.4 reaches its nav_to goal). */
static bool turns_in_place(const tpDomainDef *def, int b)
{
    for (int t = 0; t < def->ntactics; ++t) {
        for (int k = 0; def->tactics && k < def->tactics[t].nskills; ++k) {
            const tpSkillDef *sk = &def->tactics[t].skills[k];
            if (sk->body == b && sk->kind == TP_SKILL_TURN_TO) {
                return true;
            }
        }
    }
    return false;
}

tpDomain *tpCreateDomain(const tpDomainDef *def, char *err, size_t errlen)
{
    TP_ASSERT(def);
    tpDomain *d = calloc(1, sizeof *d);
    if (!d) {
        tpErrorf(err, errlen, "out of memory");
        return NULL;
    }
    d->def = *def;
    d->def.body_where = NULL; /* not kept */
    d->def.notes = NULL;
    d->def.nnotes = 0;
    /* The domain's own copies of the condition trees (the caller keeps and frees its own). */
    d->def.goal = d->def.valid = d->def.quality.cond = d->def.solution.cond = NULL;
    d->def.nreports = 0;
    d->def.tactics = NULL;
    if (def->nreports < 0 || def->nreports > TP_MAX_REPORTS) {
        tpErrorf(err, errlen, "domain '%s': at most %d reports (got %d)", def->name, TP_MAX_REPORTS, def->nreports);
        tpDestroyDomain(d);
        return NULL;
    }
    for (int r = 0; r < def->nreports; ++r) {
        d->def.reports[r].metric.cond = NULL;
    }
    d->def.nreports = def->nreports;
    bool copied = (d->def.goal = tpCond_Copy(def->goal)) != NULL || !def->goal;
    copied = copied && ((d->def.valid = tpCond_Copy(def->valid)) != NULL || !def->valid);
    copied = copied && ((d->def.quality.cond = tpCond_Copy(def->quality.cond)) != NULL || !def->quality.cond);
    copied = copied && ((d->def.solution.cond = tpCond_Copy(def->solution.cond)) != NULL || !def->solution.cond);
    for (int r = 0; r < def->nreports && copied; ++r) {
        const tpCond *c = def->reports[r].metric.cond;
        copied = (d->def.reports[r].metric.cond = tpCond_Copy(c)) != NULL || !c;
    }
    if (!copied) {
        tpErrorf(err, errlen, "out of memory");
        tpDestroyDomain(d);
        return NULL;
    }
    d->skill_cache = tpCreateSkillCache();
    if (!d->skill_cache) {
        tpErrorf(err, errlen, "out of memory");
        tpDestroyDomain(d);
        return NULL;
    }
    d->world = tpCreateWorld(&def->scene, err, errlen);
    if (!d->world) {
        tpDestroyDomain(d);
        return NULL;
    }
    for (int i = 0; i < def->nnotes; ++i) {
        if (def->notes && def->notes[i]) {
            addWarning(d, def, -2, "%s", def->notes[i]);
        }
    }
    /* An obvious impossibility the planner would only show as "unsolved" after its whole
     * budget: a controlled box whose force limit is below its own floor friction never slides. */
    const double *g = def->scene.gravity;
    const double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    for (int k = 0; k < tpWorld_ControlCount(d->world); ++k) {
        const int b = tpWorld_ControlBody(d->world, k);
        const tpBodyDef *bd = tpWorld_Body(d->world, b);
        double need = 0;
        const int support = tpWorld_RestingFriction(d->world, b, &need);
        if (support >= 0 && bd->max_force > 0 && bd->max_force <= need) {
            addWarning(d, def, b,
                       "body '%s' cannot slide: max_force %g N is not above its friction on '%s' "
                       "(mu %g x %g kg x %g m/s^2 = %g N): raise max_force above %g N or lower the friction",
                       bd->name, bd->max_force, tpWorld_Body(d->world, support)->name,
                       tpWorld_PairSurface(d->world, b, support).friction, bd->mass, gn, need, need);
        }
        /* ... and a box that a turn_to must turn in place whose torque limit is below the static
         * friction torque of its four corners (each corner's mu N_i at the corner distance r: mu m g r
         * in all): it never turns */
        if (support >= 0 && bd->max_torque > 0 && turns_in_place(def, b)) {
            const double mu = tpWorld_PairSurface(d->world, b, support).friction;
            const double r = 0.5 * sqrt(bd->size[0] * bd->size[0] + bd->size[1] * bd->size[1]);
            const double torque = mu * bd->mass * gn * r; /* N m */
            if (bd->max_torque <= torque) {
                addWarning(d, def, b,
                           "body '%s' cannot turn in place: max_torque %g N m is not above the friction torque "
                           "of its corners on '%s' (mu %g x %g kg x %g m/s^2 x corner distance %g m = %g N m): "
                           "raise max_torque above %g N m or lower the friction",
                           bd->name, bd->max_torque, tpWorld_Body(d->world, support)->name, mu, bd->mass, gn, r, torque,
                           torque);
            }
        }
    }
    /* The world keeps its own copies of the scene arrays: point the definition at them. */
    d->def.scene = *tpWorld_Def(d->world);
    d->nbodies = tpWorld_BodyCount(d->world);
    d->nstate = tpWorld_StateCount(d->world);
    d->ncontrol = tpWorld_ControlCount(d->world);
    int cc = tpName_ControlByte(def->name);
    if (cc >= 0) {
        tpErrorf(err, errlen, "domain: name has a control character (byte 0x%02x at offset %d)",
                 (unsigned char)def->name[cc], cc);
        tpDestroyDomain(d);
        return NULL;
    }
    if (!def->goal) {
        tpErrorf(err, errlen, "domain '%s': 'goal' is required", def->name);
        tpDestroyDomain(d);
        return NULL;
    }
    if (!tpCond_Check(def->goal, d->world, err, errlen) ||
        (def->valid && !tpCond_Check(def->valid, d->world, err, errlen))) {
        tpDestroyDomain(d);
        return NULL;
    }
    /* the domain's own trees carry the memory slots (the caller's are not touched) */
    tpCond_AssignMemory(d->def.goal, &d->nmem);
    tpCond_AssignMemory(d->def.valid, &d->nmem);
    if (d->nmem > TP_COND_MAX_MEMORY) {
        tpErrorf(err, errlen, "domain '%s': %d temporal conditions (tp.sequence, tp.ever, ...), at most %d", def->name,
                 d->nmem, TP_COND_MAX_MEMORY);
        tpDestroyDomain(d);
        return NULL;
    }
    if (def->ntactics < 0 || (def->ntactics > 0 && !def->tactics)) {
        tpErrorf(err, errlen, "domain '%s': bad tactics array", def->name);
        tpDestroyDomain(d);
        return NULL;
    }
    d->tactics = calloc((size_t)(def->ntactics > 0 ? def->ntactics : 1), sizeof *d->tactics);
    if (!d->tactics) {
        tpErrorf(err, errlen, "out of memory");
        tpDestroyDomain(d);
        return NULL;
    }
    for (int i = 0; i < def->ntactics; ++i) {
        d->ntactics = i + 1;
        if (!copy_tactic(d, i, &def->tactics[i], err, errlen)) {
            tpDestroyDomain(d);
            return NULL;
        }
    }
    d->def.tactics = d->tactics;
    d->probs = calloc((size_t)(d->max_skills > 0 ? d->max_skills : 1), sizeof *d->probs);
    d->initial_all = calloc((size_t)d->nbodies, sizeof *d->initial_all);
    tpBodyState *x0 = calloc((size_t)(d->nstate > 0 ? d->nstate : 1), sizeof *x0);
    if (!d->probs || !d->initial_all || !x0) {
        free(x0);
        tpErrorf(err, errlen, "out of memory");
        tpDestroyDomain(d);
        return NULL;
    }
    tpWorld_InitialState(d->world, x0);
    for (int i = 0; i < d->nbodies; ++i) {
        tpWorld_BodyState(d->world, x0, 0.0, i, &d->initial_all[i]);
    }
    const bool apart = check_start_overlap(d, def, x0, err, errlen);
    free(x0);
    if (!apart) {
        tpDestroyDomain(d);
        return NULL;
    }
    if (!setup_rest(d)) {
        tpErrorf(err, errlen, "out of memory");
        tpDestroyDomain(d);
        return NULL;
    }
    if (!setup_sampling(d, err, errlen) || !check_metric(d, &def->quality, "quality", err, errlen) ||
        !check_metric(d, &def->solution, "solution_metric", err, errlen)) {
        tpDestroyDomain(d);
        return NULL;
    }
    for (int r = 0; r < def->nreports; ++r) {
        if (!check_metric(d, &def->reports[r].metric, def->reports[r].name, err, errlen)) {
            tpDestroyDomain(d);
            return NULL;
        }
    }
    if ((unsigned)def->fallback > TP_FALLBACK_QUALITY || !(def->shot_min >= 0) || !isfinite(def->shot_min) ||
        !(def->shot_max >= 0) || !isfinite(def->shot_max) || (def->shot_max > 0 && def->shot_max < def->shot_min)) {
        tpErrorf(err, errlen,
                 "fallback must be auto, rest or quality; shot_min >= 0 s; shot_max 0 (none) or >= shot_min");
        tpDestroyDomain(d);
        return NULL;
    }
    const tpPlannerDef *pd = &def->planner;
    if (!(pd->mu > 0) || pd->max_iters <= 0 || pd->solutions < 1 || !(pd->time_limit >= 0)) {
        tpErrorf(err, errlen, "planner: mu must be > 0, max_iters > 0, solutions >= 1, time_limit >= 0");
        tpDestroyDomain(d);
        return NULL;
    }
    d->off_bodies = sizeof(double);
    d->off_tactics = d->off_bodies + sizeof(tpBodyState) * (size_t)d->nstate;
    d->tac_off = calloc((size_t)(d->ntactics > 0 ? d->ntactics : 1), sizeof *d->tac_off);
    d->tac_nv = calloc((size_t)(d->ntactics > 0 ? d->ntactics : 1), sizeof *d->tac_nv);
    if (!d->tac_off || !d->tac_nv) {
        tpErrorf(err, errlen, "out of memory");
        tpDestroyDomain(d);
        return NULL;
    }
    /* Compact actions: a planar control slot is stored as (fx, fy, tz). */
    size_t nc = (size_t)(d->ncontrol > 0 ? d->ncontrol : 1);
    d->act_off = calloc(nc, sizeof *d->act_off);
    d->act_planar = calloc(nc, sizeof *d->act_planar);
    d->nmotor = tpWorld_MotorCount(d->world);
    d->act_full = calloc(6 * nc + (size_t)d->nmotor, sizeof *d->act_full);
    d->act_zero = calloc(6 * nc + (size_t)d->nmotor, sizeof *d->act_zero);
    d->motor_default = calloc((size_t)d->nmotor + 1, sizeof *d->motor_default);
    if (!d->act_off || !d->act_planar || !d->act_full || !d->act_zero || !d->motor_default) {
        tpErrorf(err, errlen, "out of memory");
        tpDestroyDomain(d);
        return NULL;
    }
    d->action_dim = 0;
    for (int k = 0; k < d->ncontrol; ++k) {
        d->act_off[k] = d->action_dim;
        d->act_planar[k] = tpWorld_Body(d->world, tpWorld_ControlBody(d->world, k))->planar_force;
        d->action_dim += d->act_planar[k] ? 3 : 6;
    }
    d->motor_off = d->action_dim; /* the driven motors' targets end the stored action */
    d->action_dim += d->nmotor;
    for (int m = 0; m < d->nmotor; ++m) {
        int axis = 0;
        const tpJointDef *jd = tpWorld_Joint(d->world, tpWorld_MotorJoint(d->world, m, &axis));
        d->motor_default[m] = jd->axes[axis].speed;
    }
    size_t off = d->off_tactics;
    for (int i = 0; i < d->ntactics; ++i) {
        int nv = 1;
        for (int s = 0; s < d->tactics[i].nskills; ++s) {
            int k = tpSkill_VarCount(&d->tactics[i].skills[s]);
            nv = k > nv ? k : nv;
        }
        d->tac_nv[i] = nv;
        d->tac_off[i] = off;
        off += sizeof(tpTacticState) + sizeof(double) * (size_t)nv;
    }
    d->off_rest = off;
    off += ((size_t)d->nstate + 7) / 8 * 8; /* one byte per state slot, padded to 8 */
    d->off_mem = off;
    off += ((sizeof(int32_t) * (size_t)d->nmem) + 7) / 8 * 8;
    d->state_bytes = off;
    TP_VALIDATE(tpDomain_Valid, d);
    return d;
}

int tpDomain_GoalHolds(tpDomain *d, const tpBodyState *bodies, double t)
{
    return tpDomain_GoalHoldsWith(d, bodies, NULL, t);
}

int tpDomain_GoalHoldsWith(tpDomain *d, const tpBodyState *bodies, const int32_t *memory, double t)
{
    if (d->nmem > 0 && !memory) {
        tpDomain_SetError(d, "the goal has temporal conditions: it needs the replay's memory");
        return -1;
    }
    tpStateView v = {d->world, bodies, t, d->nmem > 0 ? memory : NULL};
    return tpCond_Eval(d->def.goal, &v, d->initial_all);
}

int tpDomain_MemoryCount(const tpDomain *d)
{
    return d->nmem;
}
