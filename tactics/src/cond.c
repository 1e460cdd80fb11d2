/* Goal and validity conditions as data, evaluated in C on every new node. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain_internal.h"

#define M_PI_VALUE 3.14159265358979323846

tpCond *tpCreateCond(tpCondKind kind)
{
    tpCond *c = calloc(1, sizeof *c);
    if (c) {
        c->kind = kind;
        c->body = -1;
        c->other = -1;
        c->mem = -1;
    }
    return c;
}

bool tpCond_Add(tpCond *parent, tpCond *child)
{
    TP_ASSERT(parent && child);
    tpCond **n = realloc(parent->children, sizeof *n * (size_t)(parent->nchildren + 1));
    if (!n) {
        return false;
    }
    parent->children = n;
    parent->children[parent->nchildren++] = child;
    return true;
}

void tpDestroyCond(tpCond *cond)
{
    if (!cond) {
        return;
    }
    for (int i = 0; i < cond->nchildren; ++i) {
        tpDestroyCond(cond->children[i]);
    }
    free(cond->children);
    free(cond->target_bodies);
    free(cond->target_points);
    free(cond);
}

tpCond *tpCond_Copy(const tpCond *cond)
{
    if (!cond) {
        return NULL;
    }
    tpCond *c = malloc(sizeof *c);
    if (!c) {
        return NULL;
    }
    *c = *cond; /* fn and user are the host's: shared, never owned */
    c->nchildren = 0;
    c->children = NULL;
    c->ntargets = 0;
    c->target_bodies = NULL;
    c->target_points = NULL;
    if (cond->ntargets > 0 &&
        !tpCond_SetTargets(c, cond->ntargets, cond->target_bodies, cond->target_points, cond->target_dim)) {
        tpDestroyCond(c);
        return NULL;
    }
    for (int i = 0; i < cond->nchildren; ++i) {
        tpCond *child = tpCond_Copy(cond->children[i]);
        if (!child || !tpCond_Add(c, child)) {
            tpDestroyCond(child);
            tpDestroyCond(c);
            return NULL;
        }
    }
    return c;
}

bool tpCond_SetTargets(tpCond *c, int n, const int *bodies, const double *points, int dim)
{
    free(c->target_bodies);
    free(c->target_points);
    c->ntargets = 0;
    c->target_bodies = malloc(sizeof *c->target_bodies * (size_t)(n > 0 ? n : 1));
    c->target_points = malloc(sizeof *c->target_points * 3 * (size_t)(n > 0 ? n : 1));
    if (!c->target_bodies || !c->target_points) {
        return false;
    }
    if (n > 0) {
        memcpy(c->target_bodies, bodies, sizeof *bodies * (size_t)n);
        memcpy(c->target_points, points, sizeof *points * 3 * (size_t)n);
    }
    c->ntargets = n;
    c->target_dim = dim;
    return true;
}

static const char *k_cond_names_fwd(tpCondKind kind);

bool tpCond_Check(const tpCond *c, const tpWorld *world, char *err, size_t errlen)
{
    int nb = tpWorld_BodyCount(world);
    const bool temporal = c->kind >= TP_COND_SEQUENCE && c->kind <= TP_COND_AT_TIME;
    bool needs_body = c->kind != TP_COND_TRUE && c->kind != TP_COND_AND && c->kind != TP_COND_OR &&
                      c->kind != TP_COND_NOT && c->kind != TP_COND_CALLBACK && c->kind != TP_COND_ARRANGED &&
                      c->kind != TP_COND_SETTLED && !temporal;
    if ((unsigned)c->kind >= TP_COND_KIND_COUNT) {
        tpErrorf(err, errlen, "condition: unknown kind %d", (int)c->kind);
        return false;
    }
    bool needs_other = c->kind == TP_COND_NEAR || c->kind == TP_COND_TOUCHING;
    if ((needs_body && (c->body < 0 || c->body >= nb)) || (needs_other && (c->other < 0 || c->other >= nb))) {
        tpErrorf(err, errlen, "condition: missing or unknown body");
        return false;
    }
    if (c->kind == TP_COND_NOT && c->nchildren != 1) {
        tpErrorf(err, errlen, "condition 'not' needs exactly one operand");
        return false;
    }
    if (c->kind == TP_COND_SEQUENCE && c->nchildren < 1) {
        tpErrorf(err, errlen, "condition 'sequence': needs at least one condition");
        return false;
    }
    if (c->kind == TP_COND_SEQUENCE && c->nchildren > TP_PLAN_MAX_TEMPORAL_SIZE) {
        tpErrorf(err, errlen, "condition 'sequence': at most %d conditions (got %d)", TP_PLAN_MAX_TEMPORAL_SIZE,
                 c->nchildren); /* what a plan records of its progress */
        return false;
    }
    if (temporal && c->kind != TP_COND_SEQUENCE && c->nchildren != 1) {
        tpErrorf(err, errlen, "condition '%s' needs exactly one operand", k_cond_names_fwd(c->kind));
        return false;
    }
    if (c->kind == TP_COND_WITHIN_TIME && !(isfinite(c->t0) && isfinite(c->t1) && c->t0 <= c->t1)) {
        tpErrorf(err, errlen, "condition 'within_time': from and to must be finite with from <= to (got %g, %g)", c->t0,
                 c->t1);
        return false;
    }
    if (c->kind == TP_COND_AT_TIME && !isfinite(c->t0)) {
        tpErrorf(err, errlen, "condition 'at_time': t must be finite (got %g)", c->t0);
        return false;
    }
    if (c->kind == TP_COND_ARRANGED) {
        if (c->ntargets < 1 || !c->target_bodies || !c->target_points) {
            tpErrorf(err, errlen, "condition 'arranged': needs at least one body");
            return false;
        }
        for (int i = 0; i < c->ntargets; ++i) {
            int b = c->target_bodies[i];
            if (b < 0 || b >= nb || tpWorld_StateSlot(world, b) < 0) {
                tpErrorf(err, errlen, "condition 'arranged': bodies[%d] must be a moving body", i + 1);
                return false;
            }
        }
        if (!(c->radius > 0) || !(c->fraction > 0 && c->fraction <= 1) || !(c->value >= 0) ||
            (c->target_dim != 2 && c->target_dim != 3)) {
            tpErrorf(err, errlen, "condition 'arranged': radius must be > 0, fraction in (0, 1], speed >= 0");
            return false;
        }
    }
    if (c->kind == TP_COND_UPRIGHT || c->kind == TP_COND_TILTED) {
        double n2 = c->center[0] * c->center[0] + c->center[1] * c->center[1] + c->center[2] * c->center[2];
        if (!(n2 > 0) || !isfinite(n2) || !(c->radius >= 0 && c->radius <= M_PI_VALUE)) {
            tpErrorf(err, errlen, "condition '%s': axis must be a non-zero vector, the angle in [0, pi] rad",
                     c->kind == TP_COND_UPRIGHT ? "upright" : "tilted");
            return false;
        }
    }
    if (c->kind == TP_COND_SETTLED) {
        if (c->ntargets < 1 || !c->target_bodies) {
            tpErrorf(err, errlen, "condition 'settled': needs at least one body");
            return false;
        }
        for (int i = 0; i < c->ntargets; ++i) {
            if (c->target_bodies[i] < 0 || c->target_bodies[i] >= nb) {
                tpErrorf(err, errlen, "condition 'settled': bodies[%d]: unknown body", i + 1);
                return false;
            }
        }
        if (!(c->value > 0) || !(c->angular > 0)) {
            tpErrorf(err, errlen, "condition 'settled': speed and angular must be > 0");
            return false;
        }
    }
    if (c->kind == TP_COND_CALLBACK && !c->fn) {
        tpErrorf(err, errlen, "condition: callback without a function");
        return false;
    }
    for (int i = 0; i < c->nchildren; ++i) {
        if (!tpCond_Check(c->children[i], world, err, errlen)) {
            return false;
        }
    }
    return true;
}

static void body_state(const tpStateView *v, int body, tpBodyState *s)
{
    tpWorld_BodyState(v->world, v->bodies, v->t, body, s);
}

static bool touching(const tpWorld *world, int a, int b)
{
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    int n = tpWorld_ContactCount(world);
    const tpContactInfo *c = tpWorld_Contacts(world);
    for (int i = 0; i < n; ++i) {
        if (c[i].a == a && c[i].b == b) {
            return true;
        }
    }
    return false;
}

static int arranged_count(const tpCond *c, const tpStateView *v)
{
    const double r2 = c->radius * c->radius, s2 = c->value * c->value;
    int n = 0;
    for (int i = 0; i < c->ntargets; ++i) {
        /* moving bodies only (checked): read the stored state directly */
        const tpBodyState *s = &v->bodies[tpWorld_StateSlot(v->world, c->target_bodies[i])];
        const double *p = c->target_points + 3 * i;
        double dx = s->pos[0] - p[0], dy = s->pos[1] - p[1], dz = c->target_dim == 3 ? s->pos[2] - p[2] : 0.0;
        if (dx * dx + dy * dy + dz * dz > r2) {
            continue;
        }
        if (c->value > 0 && s->vel[0] * s->vel[0] + s->vel[1] * s->vel[1] + s->vel[2] * s->vel[2] >= s2) {
            continue;
        }
        n++;
    }
    return n;
}

double tpCond_ArrangedFraction(const tpCond *c, const tpStateView *v)
{
    return c->ntargets > 0 ? (double)arranged_count(c, v) / (double)c->ntargets : 0.0;
}

/* z component (world up) of the body-frame vector a rotated by the body's orientation q = (w, x, y, z),
 * divided by |a| (q need not be exactly unit: divided by |q|^2 too). */
static double axis_up(const tpBodyState *s, const double a[3])
{
    const double w = s->quat[0], x = s->quat[1], y = s->quat[2], z = s->quat[3];
    double q2 = w * w + x * x + y * y + z * z;
    double r0 = 2.0 * (x * z - w * y), r1 = 2.0 * (y * z + w * x), r2 = q2 - 2.0 * (x * x + y * y);
    double an = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    return (r0 * a[0] + r1 * a[1] + r2 * a[2]) / (q2 * an);
}

static bool settled(const tpCond *c, const tpStateView *v)
{
    const double s2 = c->value * c->value, w2 = c->angular * c->angular;
    for (int i = 0; i < c->ntargets; ++i) {
        tpBodyState s;
        body_state(v, c->target_bodies[i], &s);
        double sp2 = s.vel[0] * s.vel[0] + s.vel[1] * s.vel[1] + s.vel[2] * s.vel[2];
        double av2 = s.angvel[0] * s.angvel[0] + s.angvel[1] * s.angvel[1] + s.angvel[2] * s.angvel[2];
        if (!(sp2 < s2) || !(av2 < w2)) {
            return false;
        }
    }
    return true;
}

bool tpCond_RequiresRest(const tpCond *c)
{
    if (!c) {
        return false;
    }
    if (c->kind == TP_COND_SETTLED) {
        return true;
    }
    for (int i = 0; c->kind == TP_COND_AND && i < c->nchildren; ++i) {
        if (tpCond_RequiresRest(c->children[i])) {
            return true;
        }
    }
    return false;
}

double tpCond_Unrest(const tpCond *c, const tpStateView *v)
{
    if (!c) {
        return 0.0;
    }
    double u = 0.0;
    if (c->kind == TP_COND_SETTLED) {
        for (int i = 0; i < c->ntargets; ++i) {
            tpBodyState s;
            body_state(v, c->target_bodies[i], &s);
            const double sp = sqrt(s.vel[0] * s.vel[0] + s.vel[1] * s.vel[1] + s.vel[2] * s.vel[2]);
            const double av = sqrt(s.angvel[0] * s.angvel[0] + s.angvel[1] * s.angvel[1] + s.angvel[2] * s.angvel[2]);
            if (!(sp < c->value) || !(av < c->angular)) { /* settled()'s test, body by body */
                const double r = fmax(sp / c->value, av / c->angular);
                u += r >= 1.0 ? r : 1.0; /* at a limit exactly (or NaN): 1 */
            }
        }
    }
    for (int i = 0; c->kind == TP_COND_AND && i < c->nchildren; ++i) {
        u += tpCond_Unrest(c->children[i], v);
    }
    return u;
}

static int eval_blame(const tpCond *c, const tpStateView *v, const tpBodyState *initial_all, const tpCond **blame);

/* One node's value; `and`, `or` and `not` evaluate their operands with eval_blame. */
static int eval_node(const tpCond *c, const tpStateView *v, const tpBodyState *initial_all, const tpCond **blame)
{
    tpBodyState s;
    switch (c->kind) {
    case TP_COND_TRUE:
        return 1;
    case TP_COND_IN_CIRCLE: {
        body_state(v, c->body, &s);
        double dx = s.pos[0] - c->center[0], dy = s.pos[1] - c->center[1];
        return dx * dx + dy * dy <= c->radius * c->radius;
    }
    case TP_COND_IN_SPHERE: {
        body_state(v, c->body, &s);
        double d2 = 0;
        for (int i = 0; i < 3; ++i) {
            d2 += (s.pos[i] - c->center[i]) * (s.pos[i] - c->center[i]);
        }
        return d2 <= c->radius * c->radius;
    }
    case TP_COND_IN_BOX:
        body_state(v, c->body, &s);
        for (int i = 0; i < 3; ++i) {
            if (s.pos[i] < c->lo[i] || s.pos[i] > c->hi[i]) {
                return 0;
            }
        }
        return 1;
    case TP_COND_SPEED_BELOW:
    case TP_COND_SPEED_ABOVE: {
        body_state(v, c->body, &s);
        double sp2 = s.vel[0] * s.vel[0] + s.vel[1] * s.vel[1] + s.vel[2] * s.vel[2];
        bool below = sp2 < c->value * c->value;
        return c->kind == TP_COND_SPEED_BELOW ? below : (sp2 > c->value * c->value);
    }
    case TP_COND_HEADING: {
        body_state(v, c->body, &s);
        double vx = s.vel[0], vy = s.vel[1], dx = c->center[0] - s.pos[0], dy = c->center[1] - s.pos[1];
        double sp = sqrt(vx * vx + vy * vy), d = sqrt(dx * dx + dy * dy);
        if (!(sp > c->value) || !(d > 0)) {
            return 0;
        }
        double cosang = (vx * dx + vy * dy) / (sp * d);
        return cosang >= cos(c->radius);
    }
    case TP_COND_NEAR: {
        tpBodyState o;
        body_state(v, c->body, &s);
        body_state(v, c->other, &o);
        double d2 = 0;
        for (int i = 0; i < 3; ++i) {
            d2 += (s.pos[i] - o.pos[i]) * (s.pos[i] - o.pos[i]);
        }
        return d2 < c->value * c->value;
    }
    case TP_COND_TOUCHING:
        return touching(v->world, c->body, c->other);
    case TP_COND_MOVED: {
        body_state(v, c->body, &s);
        const tpBodyState *s0 = &initial_all[c->body];
        double d2 = 0, sp2 = 0;
        for (int i = 0; i < 3; ++i) {
            d2 += (s.pos[i] - s0->pos[i]) * (s.pos[i] - s0->pos[i]);
            sp2 += s.vel[i] * s.vel[i];
        }
        return d2 > c->value * c->value || sp2 > c->value * c->value;
    }
    case TP_COND_AND:
        for (int i = 0; i < c->nchildren; ++i) {
            int r = eval_blame(c->children[i], v, initial_all, blame);
            if (r != 1) {
                return r;
            }
        }
        return 1;
    case TP_COND_OR:
        for (int i = 0; i < c->nchildren; ++i) {
            int r = eval_blame(c->children[i], v, initial_all, blame);
            if (r != 0) {
                return r;
            }
        }
        return 0;
    case TP_COND_NOT: {
        int r = eval_blame(c->children[0], v, initial_all, blame);
        return r < 0 ? r : !r;
    }
    case TP_COND_UPRIGHT:
    case TP_COND_TILTED: {
        body_state(v, c->body, &s);
        /* compare cosines: acos is not needed, and cos is monotonic on [0, pi] */
        bool up = axis_up(&s, c->center) >= cos(c->radius);
        return c->kind == TP_COND_UPRIGHT ? up : !up;
    }
    case TP_COND_SETTLED:
        return settled(c, v);
    case TP_COND_CALLBACK:
        return c->fn(c->user, c->id, v);
    case TP_COND_ARRANGED:
        /* integer comparison of counts: no rounding at the threshold */
        return arranged_count(c, v) >= (int)ceil(c->fraction * (double)c->ntargets - 1e-9);
    case TP_COND_SEQUENCE:
    case TP_COND_EVER:
    case TP_COND_NEVER:
    case TP_COND_WITHIN_TIME:
    case TP_COND_AT_TIME: {
        /* the state's memory, as tpCond_Observe left it: the children are not evaluated here */
        TP_ASSERT(v->memory && c->mem >= 0);
        if (!v->memory || c->mem < 0) {
            return -1;
        }
        const int32_t m = v->memory[c->mem];
        return c->kind == TP_COND_SEQUENCE ? m >= c->nchildren : c->kind == TP_COND_NEVER ? m == 0 : m == 1;
    }
    default:
        return -1;
    }
}

/* A node that answers 0 blames itself, except `and`, whose false operand has already blamed
 * itself (so the last node to write *blame explains the root's 0). */
static int eval_blame(const tpCond *c, const tpStateView *v, const tpBodyState *initial_all, const tpCond **blame)
{
    int r = eval_node(c, v, initial_all, blame);
    if (r == 0 && c->kind != TP_COND_AND) {
        *blame = c;
    }
    return r;
}

int tpCond_EvalBlame(const tpCond *c, const tpStateView *v, const tpBodyState *initial_all, const tpCond **blame)
{
    TP_ASSERT(blame);
    return eval_blame(c, v, initial_all, blame);
}

int tpCond_Eval(const tpCond *c, const tpStateView *v, const tpBodyState *initial_all)
{
    const tpCond *blame = NULL;
    return eval_blame(c, v, initial_all, &blame);
}

/* Generic names of the kinds, for conditions without a label (one row per tpCondKind). */
static const char *const k_cond_names[] = {
    "true",   "in_circle", "in_sphere", "in_box", "speed_below", "speed_above", "near",    "touching",
    "moved",  "and",       "or",        "not",    "callback",    "arranged",    "heading", "upright",
    "tilted", "settled",   "sequence",  "ever",   "never",       "within_time", "at_time",
};
_Static_assert(sizeof k_cond_names / sizeof k_cond_names[0] == TP_COND_KIND_COUNT, "one name per tpCondKind");

static const char *k_cond_names_fwd(tpCondKind kind)
{
    return (unsigned)kind < TP_COND_KIND_COUNT ? k_cond_names[kind] : "?";
}

static void cond_name(const tpCond *c, const tpStateView *v, char *name, size_t cap);

static const char *body_name(const tpStateView *v, int body)
{
    return body >= 0 && body < tpWorld_BodyCount(v->world) ? tpWorld_Body(v->world, body)->name : "?";
}

static double norm3(const double *a)
{
    return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* The node's label, or a generic name from its kind and bodies. */
void tpCond_Name(const tpCond *c, const tpStateView *v, char *name, size_t cap)
{
    cond_name(c, v, name, cap);
}

static void cond_name(const tpCond *c, const tpStateView *v, char *name, size_t cap)
{
    if (c->label[0]) {
        tpStrCopy(name, cap, c->label);
    } else if (c->body >= 0 && c->other >= 0) {
        snprintf(name, cap, "%s '%s' '%s'", k_cond_names[c->kind], body_name(v, c->body), body_name(v, c->other));
    } else if (c->body >= 0) {
        snprintf(name, cap, "%s '%s'", k_cond_names[c->kind], body_name(v, c->body));
    } else {
        snprintf(name, cap, "%s", k_cond_names_fwd(c->kind));
    }
}

/* True when the tree calls no host function (so evaluating it again changes nothing). */
static bool data_only(const tpCond *c)
{
    if (c->kind == TP_COND_CALLBACK) {
        return false;
    }
    for (int i = 0; i < c->nchildren; ++i) {
        if (!data_only(c->children[i])) {
            return false;
        }
    }
    return true;
}

/* The negated condition that held: its name and, for an `or`, the first operand that held (data
 * conditions only: host functions are not called again). */
static void describe_held(const tpCond *c, const tpStateView *v, const tpBodyState *initial_all, char *out, size_t cap)
{
    char name[200];
    cond_name(c, v, name, sizeof name);
    for (int i = 0; c->kind == TP_COND_OR && i < c->nchildren; ++i) {
        const tpCond *k = c->children[i];
        if (data_only(k) && tpCond_Eval(k, v, initial_all) == 1) {
            char held[200];
            cond_name(k, v, held, sizeof held);
            snprintf(out, cap, "%.199s held, by %.199s", name, held);
            return;
        }
    }
    snprintf(out, cap, "%.199s held", name);
}

/* What a false temporal node's memory says at v ("step 2 of 3 (tp.touching 'cue' 'red' (kick.lua:30))
 * not reached"). */
static void describe_temporal(const tpCond *c, const tpStateView *v, char *out, size_t cap)
{
    const int32_t m = v->memory && c->mem >= 0 ? v->memory[c->mem] : 0;
    char child[200] = "";
    switch (c->kind) {
    case TP_COND_SEQUENCE: {
        const int k = m >= 0 && m < c->nchildren ? (int)m : c->nchildren - 1;
        cond_name(c->children[k], v, child, sizeof child);
        snprintf(out, cap, "step %d of %d (%.199s) not reached", k + 1, c->nchildren, child);
        return;
    }
    case TP_COND_EVER:
        cond_name(c->children[0], v, child, sizeof child);
        snprintf(out, cap, "%.199s has not held yet", child);
        return;
    case TP_COND_NEVER:
        cond_name(c->children[0], v, child, sizeof child);
        snprintf(out, cap, "%.199s held", child);
        return;
    case TP_COND_WITHIN_TIME:
        cond_name(c->children[0], v, child, sizeof child);
        snprintf(out, cap, "%.199s did not hold between t = %.6g and %.6g s", child, c->t0, c->t1);
        return;
    case TP_COND_AT_TIME:
        cond_name(c->children[0], v, child, sizeof child);
        snprintf(out, cap, "%.199s %s at t = %.6g s", child, m == 2 ? "did not hold" : "not yet observed", c->t0);
        return;
    default:
        snprintf(out, cap, "?");
        return;
    }
}

void tpCond_Describe(const tpCond *c, const tpStateView *v, const tpBodyState *initial_all, char *out, size_t outlen)
{
    char name[200];
    cond_name(c, v, name, sizeof name);
    char what[440] = "";
    tpBodyState s, o;
    switch (c->kind) {
    case TP_COND_IN_CIRCLE:
    case TP_COND_IN_SPHERE:
    case TP_COND_IN_BOX:
        body_state(v, c->body, &s);
        snprintf(what, sizeof what, "'%s' at (%.4g, %.4g, %.4g)", body_name(v, c->body), s.pos[0], s.pos[1], s.pos[2]);
        break;
    case TP_COND_SPEED_BELOW:
    case TP_COND_SPEED_ABOVE:
    case TP_COND_HEADING:
        body_state(v, c->body, &s);
        snprintf(what, sizeof what, "'%s' at %.4g m/s (velocity %.4g, %.4g, %.4g)", body_name(v, c->body), norm3(s.vel),
                 s.vel[0], s.vel[1], s.vel[2]);
        break;
    case TP_COND_NEAR: {
        body_state(v, c->body, &s);
        body_state(v, c->other, &o);
        double d[3] = {s.pos[0] - o.pos[0], s.pos[1] - o.pos[1], s.pos[2] - o.pos[2]};
        snprintf(what, sizeof what, "'%s' and '%s' %.4g m apart", body_name(v, c->body), body_name(v, c->other),
                 norm3(d));
        break;
    }
    case TP_COND_TOUCHING:
        snprintf(what, sizeof what, "'%s' and '%s' not touching", body_name(v, c->body), body_name(v, c->other));
        break;
    case TP_COND_MOVED: {
        body_state(v, c->body, &s);
        const tpBodyState *s0 = &initial_all[c->body];
        double d[3] = {s.pos[0] - s0->pos[0], s.pos[1] - s0->pos[1], s.pos[2] - s0->pos[2]};
        snprintf(what, sizeof what, "'%s' %.4g m from its start at %.4g m/s", body_name(v, c->body), norm3(d),
                 norm3(s.vel));
        break;
    }
    case TP_COND_UPRIGHT:
    case TP_COND_TILTED: {
        body_state(v, c->body, &s);
        double up = axis_up(&s, c->center);
        snprintf(what, sizeof what, "'%s' axis %.4g rad from +z", body_name(v, c->body),
                 acos(up < -1  ? -1
                      : up > 1 ? 1
                               : up));
        break;
    }
    case TP_COND_SETTLED:
        for (int i = 0; i < c->ntargets; ++i) {
            body_state(v, c->target_bodies[i], &s);
            if (!(norm3(s.vel) < c->value) || !(norm3(s.angvel) < c->angular)) {
                snprintf(what, sizeof what, "'%s' at %.4g m/s, %.4g rad/s", body_name(v, c->target_bodies[i]),
                         norm3(s.vel), norm3(s.angvel));
                break;
            }
        }
        break;
    case TP_COND_ARRANGED:
        snprintf(what, sizeof what, "%d of %d bodies on target", arranged_count(c, v), c->ntargets);
        break;
    case TP_COND_OR:
        snprintf(what, sizeof what, "none of its %d conditions held", c->nchildren);
        break;
    case TP_COND_NOT:
        describe_held(c->children[0], v, initial_all, what, sizeof what);
        break;
    case TP_COND_CALLBACK:
        snprintf(what, sizeof what, "it returned false");
        break;
    case TP_COND_SEQUENCE:
    case TP_COND_EVER:
    case TP_COND_NEVER:
    case TP_COND_WITHIN_TIME:
    case TP_COND_AT_TIME:
        describe_temporal(c, v, what, sizeof what);
        break;
    default:
        break;
    }
    snprintf(out, outlen, "%s was false%s%s at t = %.6g s", name, what[0] ? ": " : "", what, v->t);
}

/* ------------------------------------------------------------------------------------------ */
/* Goal regions for plan files                                                                 */

static bool add_region(tpPlanGoalRegion *out, int cap, int *n, const tpPlanGoalRegion *g, int nbodies)
{
    if (!tpPlanGoalRegion_Valid(g, nbodies, NULL, 0)) {
        return true; /* outside what a plan records (a disc larger than the physical range): not drawn */
    }
    if (*n >= cap) {
        return false;
    }
    out[(*n)++] = *g;
    return true;
}

/* Appends c's spatial leaves; false when out is full. */
static bool collect_regions(const tpCond *c, int nbodies, tpPlanGoalRegion *out, int cap, int *n)
{
    tpPlanGoalRegion g;
    memset(&g, 0, sizeof g);
    g.body = c->body;
    switch (c->kind) {
    case TP_COND_IN_CIRCLE:
    case TP_COND_IN_SPHERE:
        g.kind = c->kind == TP_COND_IN_CIRCLE ? TP_GOAL_CIRCLE : TP_GOAL_SPHERE;
        memcpy(g.center, c->center, sizeof g.center);
        if (g.kind == TP_GOAL_CIRCLE) {
            g.center[2] = 0.0;
        }
        g.radius = c->radius;
        return add_region(out, cap, n, &g, nbodies);
    case TP_COND_IN_BOX:
        g.kind = TP_GOAL_BOX;
        for (int k = 0; k < 3; ++k) {
            /* a bound beyond the physical range bounds nothing a body can reach: unbounded */
            g.lo[k] = c->lo[k] < -TP_MAX_COORD ? -INFINITY : c->lo[k];
            g.hi[k] = c->hi[k] > TP_MAX_COORD ? INFINITY : c->hi[k];
        }
        return add_region(out, cap, n, &g, nbodies);
    case TP_COND_ARRANGED:
        for (int i = 0; i < c->ntargets; ++i) {
            g.kind = c->target_dim == 2 ? TP_GOAL_CIRCLE : TP_GOAL_SPHERE;
            g.body = c->target_bodies[i];
            memcpy(g.center, &c->target_points[3 * i], sizeof g.center);
            if (g.kind == TP_GOAL_CIRCLE) {
                g.center[2] = 0.0;
            }
            g.radius = c->radius;
            if (!add_region(out, cap, n, &g, nbodies)) {
                return false;
            }
        }
        return true;
    case TP_COND_AND:
    case TP_COND_OR:
    case TP_COND_SEQUENCE: /* every step of a sequence is a place the body must reach */
    case TP_COND_EVER:
    case TP_COND_WITHIN_TIME:
    case TP_COND_AT_TIME:
        for (int i = 0; i < c->nchildren; ++i) {
            if (!collect_regions(c->children[i], nbodies, out, cap, n)) {
                return false;
            }
        }
        return true;
    default:
        /* tp.negate (where the body must not be), relations between bodies (near, touching),
           speeds, orientations and functions: no fixed region to draw */
        return true;
    }
}

int tpCond_GoalRegions(const tpCond *cond, int nbodies, tpPlanGoalRegion *out, int cap)
{
    int n = 0;
    if (cond) {
        collect_regions(cond, nbodies, out, cap, &n);
    }
    return n;
}
