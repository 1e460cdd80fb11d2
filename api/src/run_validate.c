/* The run definition's invariants (tp/run_def.h): the table of its fields (tpRun_FieldsValid: unique
 * names and flags, members inside tplan_run_def, ranges that hold the default and not the unset
 * value, a flag for every field the command line takes, the service's ranges inside the library's)
 * and a state (tpState_Valid: its bodies' names and finite states with unit quaternions, rest
 * counts, time, the tactics' skills and variables, the temporal memory). Run through TP_VALIDATE
 * where a run definition is checked and where a state is made, parsed, copied or given its
 * tactics, in Debug and sanitizer builds; tests/api/test_run_validate.c breaks each rule once.
 * Reads only. */
#include <math.h>
#include <string.h>

#include "tp/base.h"
#include "tp/plan.h" /* TP_PLAN_START_QUAT_TOL */
#include "tp/run_def.h"
#include "tp/run_fields.h"

static size_t type_size(tpRunFieldType t)
{
    return t == TP_RUNF_PLANNER  ? sizeof(tplan_planner)
           : t == TP_RUNF_INT64  ? sizeof(int64_t)
           : t == TP_RUNF_DOUBLE ? sizeof(double)
                                 : sizeof(int);
}

static bool integral(tpRunFieldType t)
{
    return t != TP_RUNF_DOUBLE;
}

/* v is in the row's range (the library's). */
static bool in_range(const tpRunField *f, double v)
{
    return (f->lo_open ? v > f->lo : v >= f->lo) && v <= f->hi && (!integral(f->type) || v == floor(v));
}

static bool valid_row(const tpRunField *rows, int i, char *why, size_t cap)
{
    const tpRunField *f = &rows[i];
    if (!f->name || !f->name[0] || !f->help || !f->help[0] || !f->unit) {
        return tpBroken(why, cap, "run field %d: its name, help or unit missing", i);
    }
    for (int j = 0; j < i; j++) {
        if (strcmp(rows[j].name, f->name) == 0 || (f->flag && rows[j].flag && strcmp(rows[j].flag, f->flag) == 0)) {
            return tpBroken(why, cap, "run field '%s': its name or flag is field %d's too", f->name, j);
        }
    }
    if (f->type < TP_RUNF_PLANNER || f->type > TP_RUNF_DOUBLE) {
        return tpBroken(why, cap, "run field '%s': type %d", f->name, (int)f->type);
    }
    if (f->offset + type_size(f->type) > sizeof(tplan_run_def) || f->offset % type_size(f->type) != 0) {
        return tpBroken(why, cap, "run field '%s': member at byte %zu of a %zu-byte run definition", f->name, f->offset,
                        sizeof(tplan_run_def));
    }
    if (!(f->lo <= f->hi) || isnan(f->lo) ||
        (integral(f->type) && (f->lo != floor(f->lo) || (isfinite(f->hi) && f->hi != floor(f->hi))))) {
        return tpBroken(why, cap, "run field '%s': range %g..%g", f->name, f->lo, f->hi);
    }
    if (!in_range(f, f->init) && !(f->has_unset && f->init == f->unset)) {
        return tpBroken(why, cap, "run field '%s': default %g outside %g..%g", f->name, f->init, f->lo, f->hi);
    }
    if (f->has_unset && (in_range(f, f->unset) || !f->unset_means)) {
        return tpBroken(why, cap, "run field '%s': unset value %g is a value of its range (or means nothing)", f->name,
                        f->unset);
    }
    if (((f->who & TP_RUNF_CLI) && !f->flag) || (f->flag && strncmp(f->flag, "--", 2) != 0)) {
        return tpBroken(why, cap, "run field '%s': flag %s for who 0x%x (the command line's fields have one)", f->name,
                        f->flag ? f->flag : "(none)", f->who);
    }
    if (f->flag && !f->arg && !in_range(f, f->flag_sets)) {
        return tpBroken(why, cap, "run field '%s': %s sets %g, outside its range", f->name, f->flag, f->flag_sets);
    }
    if ((f->who & ~(unsigned)(TP_RUNF_CLI | TP_RUNF_SERVICE | TP_RUNF_SERVER)) ||
        ((f->who & TP_RUNF_SERVICE) && (f->who & TP_RUNF_SERVER))) {
        return tpBroken(why, cap, "run field '%s': who 0x%x", f->name, f->who);
    }
    if ((!isnan(f->svc_lo) && f->svc_lo < f->lo) || (!isnan(f->svc_hi) && f->svc_hi > f->hi) ||
        f->svc_bound < TP_RUNF_BOUND_NONE || f->svc_bound >= TP_RUNF_BOUND_COUNT) {
        return tpBroken(why, cap, "run field '%s': the service's range %g..%g (bound %d) outside %g..%g", f->name,
                        f->svc_lo, f->svc_hi, (int)f->svc_bound, f->lo, f->hi);
    }
    return true;
}

bool tpRun_FieldsValid(const tpRunField *rows, int n, char *why, size_t cap)
{
    if (n < 1 || n > 32) {
        return tpBroken(why, cap, "run fields: %d rows (1..32: a read's seen set)", n);
    }
    for (int i = 0; i < n; i++) {
        if (!valid_row(rows, i, why, cap)) {
            return false;
        }
    }
    return true;
}

static bool finite_state(const tpBodyState *x)
{
    for (int v = 0; v < 4; v++) {
        const double *p = v == 0 ? x->pos : v == 1 ? x->quat : v == 2 ? x->vel : x->angvel;
        for (int c = 0; c < (v == 1 ? 4 : 3); c++) {
            if (!isfinite(p[c])) {
                return false;
            }
        }
    }
    return true;
}

static bool valid_bodies(const tplan_state *s, char *why, size_t cap)
{
    if (!memchr(s->domain, '\0', sizeof s->domain) || s->n < 0 || !s->names || !s->x || !s->rest) {
        return tpBroken(why, cap, "state: domain name, %d bodies or their arrays", s->n);
    }
    if (!(s->t >= 0) || !isfinite(s->t)) {
        return tpBroken(why, cap, "state: time %g s", s->t);
    }
    for (int k = 0; k < s->n; k++) {
        if (!memchr(s->names[k], '\0', sizeof s->names[k]) || !s->names[k][0]) {
            return tpBroken(why, cap, "state: body %d's name is empty or not terminated", k);
        }
        for (int j = 0; j < k; j++) {
            if (strcmp(s->names[j], s->names[k]) == 0) {
                return tpBroken(why, cap, "state: body %d is '%s', as body %d", k, s->names[k], j);
            }
        }
        if (!finite_state(&s->x[k])) {
            return tpBroken(why, cap, "state: body '%s' is not finite", s->names[k]);
        }
        const double *q = s->x[k].quat;
        if (!(fabs(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1.0) <= TP_PLAN_START_QUAT_TOL)) {
            return tpBroken(why, cap, "state: body '%s''s quaternion is not unit", s->names[k]);
        }
    }
    return true;
}

static bool valid_mind(const tplan_state *s, char *why, size_t cap)
{
    if (s->has_tactics ? s->ntactics < 0 || s->ntactics > TP_STATE_MAX_TACTICS || !s->tactics
                       : s->ntactics != 0 || s->tactics != NULL) {
        return tpBroken(why, cap, "state: tactics given %d, %d of them", s->has_tactics, s->ntactics);
    }
    for (int i = 0; i < s->ntactics; i++) {
        const tpStateTactic *c = &s->tactics[i];
        if (!memchr(c->name, '\0', sizeof c->name) || !c->name[0]) {
            return tpBroken(why, cap, "state: tactic %d's name is empty or not terminated", i);
        }
        if (c->skill < 0 || c->nvars < 0 || c->nvars > TP_STATE_MAX_VARS) {
            return tpBroken(why, cap, "state: tactic '%s': skill %d, %d variables (at most %d)", c->name, c->skill,
                            c->nvars, TP_STATE_MAX_VARS);
        }
        if (!c->started && c->busy) {
            return tpBroken(why, cap, "state: tactic '%s' is busy before its first step", c->name);
        }
        for (int v = 0; v < c->nvars; v++) {
            if (!isfinite(c->vars[v])) {
                return tpBroken(why, cap, "state: tactic '%s': variable %d is %g", c->name, v, c->vars[v]);
            }
        }
    }
    if (s->has_memory ? s->nmemory < 0 || s->nmemory > TP_STATE_MAX_MEMORY || !s->memory
                      : s->nmemory != 0 || s->memory != NULL) {
        return tpBroken(why, cap, "state: memory given %d, %d slots", s->has_memory, s->nmemory);
    }
    for (int i = 0; i < s->nmemory; i++) {
        if (s->memory[i] < 0 || s->memory[i] > TP_STATE_MAX_MEMORY_VALUE) {
            return tpBroken(why, cap, "state: memory slot %d holds %d (0..%d)", i, (int)s->memory[i],
                            TP_STATE_MAX_MEMORY_VALUE);
        }
    }
    return true;
}

bool tpState_Valid(const tplan_state *s, char *why, size_t cap)
{
    return valid_bodies(s, why, cap) && valid_mind(s, why, cap);
}
