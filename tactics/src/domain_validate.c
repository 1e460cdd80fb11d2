/* The domain's invariants (tpDomain_Valid, domain_internal.h): the counts it shares with its world,
 * the layout of a state blob (bodies, tactic states, rest counts, temporal memory, each where the
 * next begins), the compact action's slots, the tactics' skills and transitions, the sampling and
 * key dimensions, the temporal conditions' memory slots, the warnings and the start. Run through
 * TP_VALIDATE when tpCreateDomain returns a domain and after every change of its start, in
 * Debug and sanitizer builds; tests/tactics/test_tactics.c breaks each rule once. Reads only. */
#include <math.h>

#include "domain_internal.h"
#include "tp/skills.h"

static size_t pad8(size_t n)
{
    return (n + 7) / 8 * 8;
}

static bool valid_counts(const tpDomain *d, char *why, size_t cap)
{
    if (d->nbodies != tpWorld_BodyCount(d->world) || d->nstate != tpWorld_StateCount(d->world) ||
        d->ncontrol != tpWorld_ControlCount(d->world) || d->nmotor != tpWorld_MotorCount(d->world)) {
        return tpBroken(why, cap,
                        "counts: %d bodies, %d state, %d control slots, %d motors; the world has %d, %d, %d, %d",
                        d->nbodies, d->nstate, d->ncontrol, d->nmotor, tpWorld_BodyCount(d->world),
                        tpWorld_StateCount(d->world), tpWorld_ControlCount(d->world), tpWorld_MotorCount(d->world));
    }
    if (d->ntactics != d->def.ntactics || d->ntactics < 0 || (d->ntactics > 0 && d->def.tactics != d->tactics)) {
        return tpBroken(why, cap, "tactics: %d copied of %d", d->ntactics, d->def.ntactics);
    }
    return true;
}

/* A state blob: t, the bodies, each tactic's state with its variables, the rest counts, the memory. */
static bool valid_layout(const tpDomain *d, char *why, size_t cap)
{
    if (d->off_bodies != sizeof(double) || d->off_tactics != d->off_bodies + sizeof(tpBodyState) * (size_t)d->nstate) {
        return tpBroken(why, cap, "layout: bodies at %zu, tactics at %zu for %d state slots", d->off_bodies,
                        d->off_tactics, d->nstate);
    }
    size_t off = d->off_tactics;
    for (int i = 0; i < d->ntactics; ++i) {
        const tpTacticDef *t = &d->tactics[i];
        int nv = 1;
        for (int s = 0; s < t->nskills; ++s) {
            const int k = tpSkill_VarCount(&t->skills[s]);
            nv = k > nv ? k : nv;
        }
        if (d->tac_nv[i] != nv) {
            return tpBroken(why, cap, "tactic %d: %d variables stored, its skills need %d", i, d->tac_nv[i], nv);
        }
        if (d->tac_off[i] != off) {
            return tpBroken(why, cap, "tactic %d: its state at byte %zu, the previous one ends at %zu", i,
                            d->tac_off[i], off);
        }
        off += sizeof(tpTacticState) + sizeof(double) * (size_t)nv;
    }
    if (d->off_rest != off || d->off_mem != d->off_rest + pad8((size_t)d->nstate)) {
        return tpBroken(why, cap, "layout: rest counts at %zu (tactics end at %zu), memory at %zu", d->off_rest, off,
                        d->off_mem);
    }
    if (d->state_bytes != d->off_mem + pad8(sizeof(int32_t) * (size_t)d->nmem) || d->state_bytes % 8 != 0) {
        return tpBroken(why, cap, "layout: %zu state bytes, memory of %d slots at %zu", d->state_bytes, d->nmem,
                        d->off_mem);
    }
    return true;
}

/* The compact action: 3 doubles per planar control slot, 6 per other, then the motor targets. */
static bool valid_action(const tpDomain *d, char *why, size_t cap)
{
    int off = 0;
    for (int k = 0; k < d->ncontrol; ++k) {
        const bool planar = tpWorld_Body(d->world, tpWorld_ControlBody(d->world, k))->planar_force;
        if (d->act_off[k] != off || d->act_planar[k] != planar) {
            return tpBroken(why, cap, "action: control slot %d at %d (expected %d), planar %d (its body: %d)", k,
                            d->act_off[k], off, d->act_planar[k], planar);
        }
        off += planar ? 3 : 6;
    }
    if (d->motor_off != off || d->action_dim != off + d->nmotor) {
        return tpBroken(why, cap, "action: motors at %d, %d doubles (expected %d and %d)", d->motor_off, d->action_dim,
                        off, off + d->nmotor);
    }
    return true;
}

static bool valid_tactics(const tpDomain *d, char *why, size_t cap)
{
    for (int i = 0; i < d->ntactics; ++i) {
        const tpTacticDef *t = &d->tactics[i];
        const int k = t->nskills;
        if (k < 1 || k > d->max_skills || !t->skills || !t->pi || !t->pi_dynamic) {
            return tpBroken(why, cap, "tactic %d: %d skills (at most %d) or its arrays missing", i, k, d->max_skills);
        }
        if (t->initial < 0 || t->initial >= k) {
            return tpBroken(why, cap, "tactic %d: initial skill %d of %d", i, t->initial, k);
        }
        for (int s = 0; s < k; ++s) {
            if (t->pi_dynamic[s] && !t->pi_fn) {
                return tpBroken(why, cap, "tactic %d: row %d is dynamic without a function", i, s);
            }
            for (int j = 0; j < k; ++j) {
                const double p = t->pi[(size_t)s * (size_t)k + (size_t)j];
                if (!(p >= 0.0) || !isfinite(p)) {
                    return tpBroken(why, cap, "tactic %d: transition (%d, %d) has probability %g", i, s, j, p);
                }
            }
        }
    }
    return true;
}

/* The temporal nodes of a tree: slots in [0, nmem), each once (seen: nmem flags). */
static bool valid_memory(const tpCond *c, int nmem, bool *seen, char *why, size_t cap)
{
    if (!c) {
        return true;
    }
    if (c->nchildren < 0 || (c->nchildren > 0 && !c->children)) {
        return tpBroken(why, cap, "condition '%s': %d children", c->label, c->nchildren);
    }
    if (c->kind >= TP_COND_SEQUENCE && c->kind <= TP_COND_AT_TIME) { /* this node (tpCond_IsTemporal: the tree) */
        if (c->mem < 0 || c->mem >= nmem || seen[c->mem]) {
            return tpBroken(why, cap, "condition '%s': memory slot %d of %d (or taken twice)", c->label, c->mem, nmem);
        }
        seen[c->mem] = true;
    }
    for (int i = 0; i < c->nchildren; ++i) {
        if (!valid_memory(c->children[i], nmem, seen, why, cap)) {
            return false;
        }
    }
    return true;
}

static bool valid_rest(const tpDomain *d, char *why, size_t cap)
{
    const tpSamplingDef *smp = &d->def.sampling;
    /* sampling.bodies: sample_dim (1..3) dims per listed body, the first the key body */
    const bool keyed = smp->nbodies > 0;
    if (d->key_body < -1 || d->key_body >= d->nbodies || d->sample_dim < 0 || d->sample_dim > TP_MAX_SAMPLE_DIMS ||
        d->key_dim < 0 || (!keyed && d->key_dim > 6) || smp->nbodies < 0 || smp->nbodies > TP_MAX_KEY_BODIES ||
        (keyed && (d->key_dim != d->sample_dim * smp->nbodies || d->sample_dim < 1 || d->sample_dim > 3 ||
                   d->key_body != smp->bodies[0] || smp->distance != TP_DISTANCE_EUCLIDEAN))) {
        return tpBroken(why, cap, "sampling: key body %d, %d sampled and %d key dimensions, %d key bodies", d->key_body,
                        d->sample_dim, d->key_dim, smp->nbodies);
    }
    for (int b = 0; b < smp->nbodies; ++b) {
        if (smp->bodies[b] < 0 || smp->bodies[b] >= d->nbodies) {
            return tpBroken(why, cap, "sampling.bodies[%d]: body %d of %d", b, smp->bodies[b], d->nbodies);
        }
    }
    bool seen[256] = {false};
    if (d->nmem < 0 || d->nmem > (int)(sizeof seen / sizeof seen[0])) {
        return tpBroken(why, cap, "memory: %d slots", d->nmem);
    }
    if (!valid_memory(d->def.goal, d->nmem, seen, why, cap) || !valid_memory(d->def.valid, d->nmem, seen, why, cap)) {
        return false;
    }
    for (int m = 0; m < d->nmem; ++m) {
        if (!seen[m]) {
            return tpBroken(why, cap, "memory: slot %d belongs to no temporal condition", m);
        }
    }
    if (d->nwarnings < 0 || d->nwarnings > TP_MAX_WARNINGS || d->warnings_seen < d->nwarnings) {
        return tpBroken(why, cap, "warnings: %d kept of %d seen (at most %d)", d->nwarnings, d->warnings_seen,
                        TP_MAX_WARNINGS);
    }
    if (d->has_start && (!d->start_x || !d->start_rest || !(d->start_t >= 0.0) || !isfinite(d->start_t))) {
        return tpBroken(why, cap, "start: set without its states, or at t = %g s", d->start_t);
    }
    for (int i = 0; i < d->nbodies; ++i) {
        const double *q = d->initial_all[i].quat;
        const double qq = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        if (!(fabs(qq - 1.0) <= 1e-9)) {
            return tpBroken(why, cap, "body %d: initial |q|^2 = %.12g", i, qq);
        }
    }
    return true;
}

bool tpDomain_Valid(const tpDomain *d, char *why, size_t cap)
{
    if (!d || !d->world) {
        return tpBroken(why, cap, "domain: no world");
    }
    /* the tactics before the layout, which reads their skills */
    return valid_counts(d, why, cap) && valid_tactics(d, why, cap) && valid_layout(d, why, cap) &&
           valid_action(d, why, cap) && valid_rest(d, why, cap);
}
