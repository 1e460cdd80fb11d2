/* The Lua layer's invariants (the house audit's): the limits of a script's state (tplLimits_Valid:
 * bytes held within the cap, a trip with its message, the deadline and what names it, the files the
 * script read), the loaded script (tplScript_Valid), the domain under construction (tplDomain_Valid)
 * and the constructors' userdata: tp.tactic (its Π), the conditions, the metrics, tp.skill (its
 * def through tpSkillDef_Valid and the kind's body and joint fields), tp.box and the other bodies,
 * tp.joint and tp.contact. Each is `bool valid(obj, why, cap)`, run through TP_VALIDATE (Debug and
 * sanitizer builds) where the constructor, tp.domain or tpCreateScript has made the object, or the
 * limits changed (arming, charging); tests/lua/test_lua_validate.c breaks each rule once. Reads only;
 * calls nothing else of lua/src. */
#include "lua_internal.h"

#include <math.h>
#include <string.h>

#include "tp/base.h"
#include "tp/skills.h"

#define TPL_TERMINATED(arr) (memchr((arr), '\0', sizeof(arr)) != NULL)

static bool finite_n(const double *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* The sandbox's limits and the script                                                         */

static bool valid_files(const tplLimits *lim, char *why, size_t cap)
{
    if (lim->nfiles < 0 || (size_t)lim->nfiles > lim->files_cap || (lim->nfiles > 0 && !lim->files)) {
        return tpBroken(why, cap, "limits: %d files read, room for %zu", lim->nfiles, lim->files_cap);
    }
    for (int i = 0; i < lim->nfiles; i++) {
        const tpScriptFile *f = &lim->files[i];
        if (!f->path || !f->data || f->data[f->len] != '\0') {
            return tpBroken(why, cap, "limits: file %d has no path, no bytes or no NUL after its %zu bytes", i, f->len);
        }
        for (int j = 0; j < i; j++) {
            if (strcmp(lim->files[j].path, f->path) == 0) {
                return tpBroken(why, cap, "limits: file %d is '%s', as file %d (each is recorded once)", i, f->path, j);
            }
        }
    }
    if (lim->nembedded < 0 || (lim->nembedded > 0) != (lim->embedded != NULL)) {
        return tpBroken(why, cap, "limits: %d files of a plan", lim->nembedded);
    }
    return true;
}

bool tplLimits_Valid(const tplLimits *lim, char *why, size_t cap)
{
    if (lim->max_bytes == 0 || lim->used > lim->max_bytes || lim->external > lim->max_bytes - lim->used) {
        return tpBroken(why, cap, "limits: %zu bytes of Lua and %zu of C held, cap %zu", lim->used, lim->external,
                        lim->max_bytes);
    }
    if (lim->tripped < TPL_TRIP_NONE || lim->tripped > TPL_TRIP_MEMORY) {
        return tpBroken(why, cap, "limits: tripped %d", lim->tripped);
    }
    if (!TPL_TERMINATED(lim->msg) || !TPL_TERMINATED(lim->where) || !TPL_TERMINATED(lim->path) ||
        !TPL_TERMINATED(lim->load_what) || !TPL_TERMINATED(lim->call_what) || !TPL_TERMINATED(lim->run_what)) {
        return tpBroken(why, cap, "limits: a message, position, path or limit name is not terminated");
    }
    if (lim->tripped && !lim->msg[0]) {
        return tpBroken(why, cap, "limits: tripped %d with no message", lim->tripped);
    }
    if (!(lim->deadline >= 0) || !isfinite(lim->deadline) || !(lim->run_deadline >= 0) ||
        !isfinite(lim->run_deadline) || !(lim->call_seconds > 0) || !isfinite(lim->call_seconds)) {
        return tpBroken(why, cap, "limits: deadline %g, run deadline %g, call limit %g s", lim->deadline,
                        lim->run_deadline, lim->call_seconds);
    }
    const char *w = lim->deadline_what;
    if (w && w != lim->load_what && w != lim->call_what && w != lim->run_what) {
        return tpBroken(why, cap, "limits: the deadline is named by no buffer of the limits");
    }
    if (lim->deadline > 0 && !w) {
        return tpBroken(why, cap, "limits: a deadline armed with no name");
    }
    return valid_files(lim, why, cap);
}

bool tplScript_Valid(const tpScript *s, char *why, size_t cap)
{
    if (!s->L || !s->domain || !s->name) {
        return tpBroken(why, cap, "script: no Lua state, domain or name");
    }
    if (strncmp(s->limits.path, s->name, sizeof s->limits.path - 1) != 0) {
        return tpBroken(why, cap, "script '%s': the limits name it '%.64s'", s->name, s->limits.path);
    }
    const size_t hn = strnlen(s->hash, sizeof s->hash);
    if (hn != 24 || strncmp(s->hash, "fnv1a64:", 8) != 0 || strspn(s->hash + 8, "0123456789abcdef") != 16) {
        return tpBroken(why, cap, "script '%s': hash '%.32s' (fnv1a64: and 16 hex digits)", s->name, s->hash);
    }
    const char *pj = s->params_json, *ij = s->params_info_json;
    if (!pj || !ij || pj[0] != '{' || pj[strlen(pj) - 1] != '}' || ij[0] != '[' || ij[strlen(ij) - 1] != ']') {
        return tpBroken(why, cap, "script '%s': parameters JSON missing or not an object and an array", s->name);
    }
    if (s->limits.nfiles < 1) {
        return tpBroken(why, cap, "script '%s': the files read do not start with the script", s->name);
    }
    if (s->limits.deadline != 0) {
        return tpBroken(why, cap, "script '%s': armed (deadline %g) between callbacks", s->name, s->limits.deadline);
    }
    return tplLimits_Valid(&s->limits, why, cap);
}

bool tplDomain_Valid(const tplDomain *d, char *why, size_t cap)
{
    if (!d->L || !d->domain) {
        return tpBroken(why, cap, "tp.domain: no Lua state or no domain");
    }
    const int refs[] = {d->fnref, d->piref, d->namesref, d->skillsref, d->liveref};
    for (int i = 0; i < 5; i++) {
        if (refs[i] <= 0) {
            return tpBroken(why, cap, "tp.domain: registry reference %d is %d (a table's)", i, refs[i]);
        }
    }
    if (d->quality_id < -1 || d->solution_id < -1 || d->quality_id == 0 || d->solution_id == 0) {
        return tpBroken(why, cap, "tp.domain: quality function %d, solution metric %d (ids from 1, -1 = none)",
                        d->quality_id, d->solution_id);
    }
    if (!TPL_TERMINATED(d->where) || !TPL_TERMINATED(d->path) || !TPL_TERMINATED(d->short_src) ||
        !TPL_TERMINATED(d->pending)) {
        return tpBroken(why, cap, "tp.domain: a call site, path or pending message is not terminated");
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Tactics, conditions, metrics                                                                */

bool tplTactic_Valid(const tplTactic *t, char *why, size_t cap)
{
    if (!TPL_TERMINATED(t->name) || !t->name[0] || !TPL_TERMINATED(t->body)) {
        return tpBroken(why, cap, "tp.tactic: name empty or a name not terminated");
    }
    if (t->nskills < 1 || t->initial < 0 || t->initial >= t->nskills) {
        return tpBroken(why, cap, "tp.tactic '%s': start %d of %d skills", t->name, t->initial, t->nskills);
    }
    const size_t k = (size_t)t->nskills;
    if (!t->pi || t->dynamic != (const bool *)(t->pi + k * k)) {
        return tpBroken(why, cap, "tp.tactic '%s': Π and its dynamic rows are not one block", t->name);
    }
    for (size_t i = 0; i < k; i++) {
        for (size_t j = 0; j < k; j++) {
            const double p = t->pi[i * k + j];
            if (!(p >= 0) || !isfinite(p)) {
                return tpBroken(why, cap, "tp.tactic '%s': Π[%zu][%zu] = %g (finite, >= 0)", t->name, i, j, p);
            }
            if (t->dynamic[i] && p != 0) {
                return tpBroken(why, cap, "tp.tactic '%s': row %zu is a function and holds Π[%zu][%zu] = %g", t->name,
                                i, i, j, p);
            }
        }
    }
    return true;
}

/* Conditions with one child or more (the rest are leaves, depth 1). */
static bool is_group(tpCondKind k)
{
    return k == TP_COND_AND || k == TP_COND_OR || k == TP_COND_NOT || k == TP_COND_SEQUENCE || k == TP_COND_EVER ||
           k == TP_COND_NEVER || k == TP_COND_WITHIN_TIME || k == TP_COND_AT_TIME;
}

/* Leaves about one named body (settled and arranged name theirs in user value 2). */
static bool has_body(tpCondKind k)
{
    return (k >= TP_COND_IN_CIRCLE && k <= TP_COND_MOVED) || k == TP_COND_HEADING || k == TP_COND_UPRIGHT ||
           k == TP_COND_TILTED;
}

bool tplCond_Valid(const tplCond *c, char *why, size_t cap)
{
    if (c->kind <= TP_COND_TRUE || c->kind >= TP_COND_KIND_COUNT || c->kind == TP_COND_CALLBACK) {
        return tpBroken(why, cap, "condition: kind %d", (int)c->kind);
    }
    if (c->depth < 1 || c->depth > TPL_COND_MAX_DEPTH || (is_group(c->kind) ? c->depth < 2 : c->depth != 1)) {
        return tpBroken(why, cap, "condition of kind %d: depth %d (leaves 1, groups 2..%d)", (int)c->kind, c->depth,
                        TPL_COND_MAX_DEPTH);
    }
    if (!TPL_TERMINATED(c->body) || !TPL_TERMINATED(c->other) || (has_body(c->kind) && !c->body[0]) ||
        ((c->kind == TP_COND_NEAR || c->kind == TP_COND_TOUCHING) && !c->other[0])) {
        return tpBroken(why, cap, "condition of kind %d: its body or other body is missing or not terminated",
                        (int)c->kind);
    }
    if (!finite_n(c->center, 3) || !(c->radius >= 0) || !(c->value >= 0)) {
        return tpBroken(why, cap, "condition on '%s': centre, radius %g or value %g", c->body, c->radius, c->value);
    }
    for (int k = 0; k < 3; k++) {
        if (!(c->lo[k] <= c->hi[k])) {
            return tpBroken(why, cap, "condition on '%s': box axis %d from %g to %g", c->body, k, c->lo[k], c->hi[k]);
        }
    }
    if (!(c->t0 >= 0) || !isfinite(c->t0) || !(c->t0 <= c->t1) || !isfinite(c->t1)) {
        return tpBroken(why, cap, "condition of kind %d: time window %g..%g s", (int)c->kind, c->t0, c->t1);
    }
    if (c->kind == TP_COND_ARRANGED ? !(c->fraction > 0 && c->fraction <= 1) || c->dim < 2 || c->dim > 3
                                    : c->fraction != 0 || c->dim != 0) {
        return tpBroken(why, cap, "condition of kind %d: fraction %g, dimension %d", (int)c->kind, c->fraction, c->dim);
    }
    return true;
}

bool tplMetric_Valid(const tplMetric *m, char *why, size_t cap)
{
    if (m->kind <= TP_METRIC_DEFAULT || m->kind > TP_METRIC_PEAK_FORCE || m->kind == TP_METRIC_CALLBACK) {
        return tpBroken(why, cap, "metric: kind %d", (int)m->kind);
    }
    if (!TPL_TERMINATED(m->body) || (m->kind == TP_METRIC_DISTANCE && !m->body[0]) || !finite_n(m->point, 3)) {
        return tpBroken(why, cap, "metric of kind %d: body missing or not terminated, or a point not finite",
                        (int)m->kind);
    }
    if (m->nbodies < 0 || m->nbodies > 16) {
        return tpBroken(why, cap, "metric of kind %d: %d bodies (at most 16)", (int)m->kind, m->nbodies);
    }
    for (int i = 0; i < m->nbodies; i++) {
        if (!TPL_TERMINATED(m->bodies[i]) || !m->bodies[i][0]) {
            return tpBroken(why, cap, "metric of kind %d: body %d empty or not terminated", (int)m->kind, i);
        }
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Skills, bodies, joints, contacts                                                            */

/* offset is 0 (none given) or the offset of a field of type `type` of the kind. */
static bool kind_field_at(tpSkillKind kind, size_t offset, tpSkillFieldType type)
{
    if (offset == 0) {
        return true;
    }
    for (const tpSkillField *f = tpSkillKind_Fields(kind, NULL); f->name; f++) {
        if (f->offset == offset && f->type == type) {
            return true;
        }
    }
    return false;
}

bool tplSkill_Valid(const tplSkill *s, char *why, size_t cap)
{
    if (!TPL_TERMINATED(s->body) || !TPL_TERMINATED(s->target) || !TPL_TERMINATED(s->ground) ||
        !TPL_TERMINATED(s->joint)) {
        return tpBroken(why, cap, "tp.skill: a body, target, ground or joint name is not terminated");
    }
    char sub[256];
    if (!tpSkillDef_Valid(&s->def, sub, sizeof sub)) {
        return tpBroken(why, cap, "tp.skill: %s", sub);
    }
    if ((s->ground[0] != '\0') != (s->ground_offset != 0) ||
        !kind_field_at(s->def.kind, s->ground_offset, TP_FIELD_BODY)) {
        return tpBroken(why, cap, "tp.skill '%s': body field '%s' at byte %zu, not one of its kind's", s->def.name,
                        s->ground, s->ground_offset);
    }
    if ((s->joint[0] != '\0') != (s->joint_offset != 0) ||
        !kind_field_at(s->def.kind, s->joint_offset, TP_FIELD_JOINT)) {
        return tpBroken(why, cap, "tp.skill '%s': joint field '%s' at byte %zu, not one of its kind's", s->def.name,
                        s->joint, s->joint_offset);
    }
    return true;
}

bool tplBody_Valid(const tplBody *b, char *why, size_t cap)
{
    const tpBodyDef *d = &b->def;
    if (!TPL_TERMINATED(d->name) || !d->name[0] || !TPL_TERMINATED(b->material) || !b->ctor ||
        strncmp(b->ctor, "tp.", 3) != 0) {
        return tpBroken(why, cap, "body: name empty, a name not terminated or no constructor");
    }
    if (d->shape < TP_SHAPE_BOX || d->shape > TP_SHAPE_COMPOUND || d->cls < TP_BODY_STATIC ||
        d->cls > TP_BODY_FOREIGN || ((d->shape == TP_SHAPE_PLANE || d->marker) && d->cls != TP_BODY_STATIC)) {
        return tpBroken(why, cap, "%s '%s': shape %d, class %d, marker %d", b->ctor, d->name, (int)d->shape,
                        (int)d->cls, (int)d->marker);
    }
    const double nonneg[] = {d->mass, d->max_force, d->max_torque, d->linear_damping, d->angular_damping};
    for (int i = 0; i < 5; i++) {
        if (!(nonneg[i] >= 0) || !isfinite(nonneg[i])) {
            return tpBroken(why, cap, "%s '%s': mass, force, torque or damping %d is %g", b->ctor, d->name, i,
                            nonneg[i]);
        }
    }
    const double q2 =
        d->quat[0] * d->quat[0] + d->quat[1] * d->quat[1] + d->quat[2] * d->quat[2] + d->quat[3] * d->quat[3];
    if (!finite_n(d->pos, 3) || !finite_n(d->vel, 3) || !finite_n(d->angvel, 3) || !(q2 > 0) || !isfinite(q2)) {
        return tpBroken(why, cap, "%s '%s': position, velocity or orientation not finite (or a zero quaternion)",
                        b->ctor, d->name);
    }
    return true;
}

bool tplJoint_Valid(const tplJoint *j, char *why, size_t cap)
{
    if (!TPL_TERMINATED(j->def.name) || !TPL_TERMINATED(j->a) || !TPL_TERMINATED(j->b) || !j->a[0] ||
        strcmp(j->a, "world") == 0 || strcmp(j->a, j->b) == 0) {
        return tpBroken(why, cap, "tp.joint: bodies '%.32s' and '%.32s' (a body, then another or the world)", j->a,
                        j->b);
    }
    if (j->def.kind < TP_JOINT_HINGE || j->def.kind > TP_JOINT_DISTANCE ||
        (j->has_anchor2 && j->def.kind != TP_JOINT_DISTANCE)) {
        return tpBroken(why, cap, "tp.joint '%s': kind %d with a second anchor %d", j->def.name, (int)j->def.kind,
                        (int)j->has_anchor2);
    }
    if ((j->def.axes[0].driven || j->def.axes[1].driven) && !j->def.name[0]) {
        return tpBroken(why, cap, "tp.joint on '%s': a driven motor and no name", j->a);
    }
    return true;
}

bool tplContact_Valid(const tplContact *c, char *why, size_t cap)
{
    if (!TPL_TERMINATED(c->a) || !TPL_TERMINATED(c->b)) {
        return tpBroken(why, cap, "tp.contact: a material name is not terminated");
    }
    const double v[] = {c->friction, c->restitution, c->rolling_friction, c->bounce_velocity};
    for (int i = 0; i < 4; i++) {
        if (!isnan(v[i]) && (!(v[i] >= 0) || !isfinite(v[i]))) {
            return tpBroken(why, cap, "tp.contact '%s'/'%s': coefficient %d is %g (finite, >= 0, or NAN)", c->a, c->b,
                            i, v[i]);
        }
    }
    if (c->restitution > 1) {
        return tpBroken(why, cap, "tp.contact '%s'/'%s': restitution %g above 1", c->a, c->b, c->restitution);
    }
    return true;
}
