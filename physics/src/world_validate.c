/* The world's invariants (tpWorld_Valid, world_internal.h): what tpCreateWorld builds and every step
 * keeps -- the body tables and their slots, each body's geoms, mass and inertia, the sleepers, the
 * mixed surfaces, the step's pair, contact and touching lists, the joints' groups and motors, and
 * the deepest overlaps of the last step. Run through TP_VALIDATE after a world is created and
 * after every step in Debug and sanitizer builds; tests/physics/test_world_validate.c breaks each
 * rule once. Reads only: the ODE calls below are getters. */
#include <math.h>
#include <stdint.h>

#include "tp/base.h"
#include "world_internal.h"

static bool finite3(const double *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static bool pair_ok(int a, int b, int n)
{
    return a >= 0 && a < b && b < n;
}

/* The tables of state, control and kinematic bodies against the bodies' own slots (both ways). */
static bool valid_slots(const tpWorld *w, char *why, size_t cap)
{
    const int n = w->def.nbodies;
    if (w->nstate < 0 || w->ncontrol < 0 || w->nkinematic < 0 || w->ncontrol > w->nstate ||
        w->nstate + w->nkinematic > n) {
        return tpBroken(why, cap, "slots: %d state, %d control, %d kinematic bodies of %d", w->nstate, w->ncontrol,
                        w->nkinematic, n);
    }
    for (int k = 0; k < w->nstate; ++k) {
        const int i = w->state_body[k];
        if (i < 0 || i >= n || w->rt[i].state_slot != k) {
            return tpBroken(why, cap, "state slot %d: body %d does not hold it", k, i);
        }
    }
    for (int k = 0; k < w->ncontrol; ++k) {
        const int i = w->control_body[k];
        if (i < 0 || i >= n || w->rt[i].control_slot != k) {
            return tpBroken(why, cap, "control slot %d: body %d does not hold it", k, i);
        }
    }
    for (int k = 0; k < w->nkinematic; ++k) {
        const int i = w->kin_body[k];
        if (i < 0 || i >= n || !w->rt[i].kinematic) {
            return tpBroken(why, cap, "kinematic slot %d: body %d is not kinematic", k, i);
        }
    }
    for (int i = 0; i < n; ++i) {
        const tpBodyRt *r = &w->rt[i];
        if (r->state_slot < -1 || r->state_slot >= w->nstate ||
            (r->state_slot >= 0 && w->state_body[r->state_slot] != i)) {
            return tpBroken(why, cap, "body %d: state slot %d is not its own", i, r->state_slot);
        }
        if (r->control_slot < -1 || r->control_slot >= w->ncontrol ||
            (r->control_slot >= 0 && w->control_body[r->control_slot] != i)) {
            return tpBroken(why, cap, "body %d: control slot %d is not its own", i, r->control_slot);
        }
        if (r->control_slot >= 0 && r->state_slot < 0) {
            return tpBroken(why, cap, "body %d: a control slot without a state slot", i);
        }
        if (!r->body && (r->state_slot >= 0 || r->kinematic)) {
            return tpBroken(why, cap, "body %d: static (no ODE body) but %s", i,
                            r->kinematic ? "kinematic" : "has a state slot");
        }
        if (r->kinematic && r->state_slot >= 0) {
            return tpBroken(why, cap, "body %d: kinematic with state slot %d", i, r->state_slot);
        }
        if (r->body && !r->kinematic && r->state_slot < 0) {
            return tpBroken(why, cap, "body %d: dynamic without a state slot", i);
        }
    }
    return true;
}

/* Body i's geoms: one, or a compound's parts in tpWorld.parts, each carrying the body index. */
static bool valid_geoms(const tpWorld *w, int i, char *why, size_t cap)
{
    const tpBodyRt *r = &w->rt[i];
    if (r->ngeoms < 1 || r->ngeoms > w->max_geoms || !r->geoms || r->geoms[0] != r->geom) {
        return tpBroken(why, cap, "body %d: %d geoms (at most %d), the first not its geom", i, r->ngeoms, w->max_geoms);
    }
    const bool compound = w->bodies[i].shape == TP_SHAPE_COMPOUND;
    if (compound ? (r->part0 < 0 || r->part0 + r->ngeoms > w->nparts) : (r->part0 != -1 || r->ngeoms != 1)) {
        return tpBroken(why, cap, "body %d: parts %d .. %d of %d (compound: %s)", i, r->part0, r->part0 + r->ngeoms - 1,
                        w->nparts, compound ? "yes" : "no");
    }
    for (int g = 0; g < r->ngeoms; ++g) {
        if (!r->geoms[g] || (intptr_t)dGeomGetData(r->geoms[g]) != i) {
            return tpBroken(why, cap, "body %d: geom %d does not carry its body index", i, g);
        }
    }
    return true;
}

/* A dynamic body's mass, inertia and its inverse, and its ODE pose. */
static bool valid_mass(const tpWorld *w, int i, char *why, size_t cap)
{
    const tpBodyRt *r = &w->rt[i];
    if (!(r->mass > 0.0 && isfinite(r->mass))) {
        return tpBroken(why, cap, "body %d: mass %g kg", i, r->mass);
    }
    const double *I = r->inertia, *J = r->inertia_inv;
    const double scale = fabs(I[0]) + fabs(I[4]) + fabs(I[8]);
    if (!(I[0] > 0.0 && I[4] > 0.0 && I[8] > 0.0) || fabs(I[1] - I[3]) > 1e-9 * scale ||
        fabs(I[2] - I[6]) > 1e-9 * scale || fabs(I[5] - I[7]) > 1e-9 * scale) {
        return tpBroken(why, cap, "body %d: inertia not symmetric with a positive diagonal (%g %g %g)", i, I[0], I[4],
                        I[8]);
    }
    for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) {
            const double p = I[3 * a] * J[b] + I[3 * a + 1] * J[3 + b] + I[3 * a + 2] * J[6 + b];
            if (!(fabs(p - (a == b ? 1.0 : 0.0)) <= 1e-6)) {
                return tpBroken(why, cap, "body %d: inertia times its inverse is %g at (%d, %d)", i, p, a, b);
            }
        }
    }
    const dReal *p = dBodyGetPosition(r->body), *q = dBodyGetQuaternion(r->body);
    const double qq = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!finite3(p) || !(fabs(qq - 1.0) <= 1e-6)) {
        return tpBroken(why, cap, "body %d: pose (%g, %g, %g), |q|^2 = %.9g", i, p[0], p[1], p[2], qq);
    }
    return true;
}

static bool valid_bodies(const tpWorld *w, char *why, size_t cap)
{
    if (w->max_geoms < 1 || w->nparts < 0) {
        return tpBroken(why, cap, "geoms: at most %d per body, %d parts", w->max_geoms, w->nparts);
    }
    int asleep = 0;
    for (int i = 0; i < w->def.nbodies; ++i) {
        const tpBodyRt *r = &w->rt[i];
        if (!valid_geoms(w, i, why, cap) || (r->state_slot >= 0 && !valid_mass(w, i, why, cap))) {
            return false;
        }
        if (r->asleep && (r->state_slot < 0 || dBodyIsEnabled(r->body))) {
            return tpBroken(why, cap, "body %d: asleep but %s", i,
                            r->state_slot < 0 ? "not dynamic" : "enabled in ODE");
        }
        asleep += r->asleep;
    }
    if (asleep != w->nasleep) {
        return tpBroken(why, cap, "sleepers: %d bodies asleep, counted %d", asleep, w->nasleep);
    }
    const int m = w->def.nmaterials;
    for (int k = 0; k < m * m; ++k) {
        const tpSurface *s = &w->surfaces[k];
        if (!(s->mu >= 0.0) || !(s->bounce >= 0.0 && s->bounce <= 1.0) || !(s->bounce_vel >= 0.0) || !(s->rho >= 0.0)) {
            return tpBroken(why, cap, "surface (%d, %d): mu %g, bounce %g, bounce_vel %g, rho %g", k / m, k % m, s->mu,
                            s->bounce, s->bounce_vel, s->rho);
        }
    }
    return true;
}

/* The step's candidate pairs, touching pairs and pending contacts. */
static bool valid_contacts(const tpWorld *w, char *why, size_t cap)
{
    const int n = w->def.nbodies;
    if (w->npairs < 0 || w->npairs > w->cap_pairs) {
        return tpBroken(why, cap, "pairs: %d of room for %d", w->npairs, w->cap_pairs);
    }
    for (int k = 0; k < w->npairs; ++k) {
        const int a = (int)(w->pairs[k] >> 32), b = (int)(uint32_t)w->pairs[k];
        /* a scratch list: sorted only where a pass sorts it (the swept pass, a discovery, with
           repeats), so after a step only each key's form holds */
        if (!pair_ok(a, b, n)) {
            return tpBroken(why, cap, "pairs[%d]: (%d, %d) out of range or not a < b", k, a, b);
        }
    }
    if (w->ninfos < 0 || (size_t)w->ninfos > w->cap_infos) {
        return tpBroken(why, cap, "contact infos: %d of room for %zu", w->ninfos, w->cap_infos);
    }
    for (int k = 0; k < w->ninfos; ++k) {
        const tpContactInfo *c = &w->infos[k], *p = k > 0 ? c - 1 : NULL;
        if (!pair_ok(c->a, c->b, n) || (p && (p->a > c->a || (p->a == c->a && p->b >= c->b)))) {
            return tpBroken(why, cap, "infos[%d]: pair (%d, %d) out of range or out of order", k, c->a, c->b);
        }
        if (!finite3(c->pos) || !isfinite(c->depth) || !(c->max_depth >= c->depth)) {
            return tpBroken(why, cap, "infos[%d]: depth %g, deepest %g", k, c->depth, c->max_depth);
        }
    }
    if (w->npend < 0 || w->npend > w->cap_pend || w->nproj < 0 || w->nproj > w->cap_proj) {
        return tpBroken(why, cap, "pending contacts: %d of room for %d, projection %d of %d", w->npend, w->cap_pend,
                        w->nproj, w->cap_proj);
    }
    for (int k = 0; k < w->npend; ++k) {
        const tpPendingContact *p = &w->pend[k];
        const dReal *nv = p->c.geom.normal;
        const double nn = nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2];
        if (!pair_ok(p->a, p->b, n) || !isfinite(p->c.geom.depth) || !(fabs(nn - 1.0) <= 1e-6)) {
            return tpBroken(why, cap, "pend[%d]: pair (%d, %d), depth %g, |normal|^2 %g", k, p->a, p->b,
                            p->c.geom.depth, nn);
        }
    }
    if (w->nrun < 0 || w->nrun > TP_DISCOVER_ROUNDS_MAX + 1) {
        return tpBroken(why, cap, "speculative runs: %d", w->nrun);
    }
    for (int r = 0; r <= w->nrun; ++r) {
        if (w->run[r] < (r ? w->run[r - 1] : 0) || w->run[r] > w->npend) {
            return tpBroken(why, cap, "run[%d] = %d: out of order or past the %d pending contacts", r, w->run[r],
                            w->npend);
        }
    }
    if (w->ntouch < 0 || w->ntouch > w->cap_touch) {
        return tpBroken(why, cap, "touching pairs: %d of room for %d", w->ntouch, w->cap_touch);
    }
    for (int k = 0; k < w->ntouch; ++k) {
        const tpTouch *t = &w->touch[k];
        if (!pair_ok((int)(t->key >> 32), (int)(uint32_t)t->key, n) || (k > 0 && t->key <= w->touch[k - 1].key) ||
            t->first < 0 || t->count < 0 || !isfinite(t->deepest)) {
            return tpBroken(why, cap, "touch[%d]: key %llx, contacts %d + %d, deepest %g", k,
                            (unsigned long long)t->key, t->first, t->count, t->deepest);
        }
    }
    for (int s = 0; s < 2; ++s) {
        const int *pr = s ? w->body_pair : w->static_pair;
        const double d = s ? w->body_depth : w->static_depth;
        if (!(pr[0] == -1 ? pr[1] == -1 : pr[0] >= 0 && pr[0] < n && pr[1] >= 0 && pr[1] < n) || !(d >= 0.0) ||
            !isfinite(d)) {
            return tpBroken(why, cap, "the deepest %s overlap: bodies (%d, %d), %g m", s ? "body-body" : "static",
                            pr[0], pr[1], d);
        }
    }
    return true;
}

/* The joints' groups (each body's root, roots their own), the no-collide pairs, the motors. */
static bool valid_joints(const tpWorld *w, char *why, size_t cap)
{
    const int n = w->def.nbodies;
    if (w->def.njoints == 0) {
        return w->nnocollide == 0 && w->nmotor == 0
                   ? true
                   : tpBroken(why, cap, "no joints but %d no-collide pairs, %d motors", w->nnocollide, w->nmotor);
    }
    for (int i = 0; i < n; ++i) {
        const int r = w->joint_root[i];
        if (r < 0 || r >= n || w->joint_root[r] != r) {
            return tpBroken(why, cap, "body %d: joint group root %d is not a root", i, r);
        }
    }
    for (int k = 0; k < w->nnocollide; ++k) {
        /* sorted (two joints on one pair repeat it); two moving bodies are one group, a moving body
           and a static one are not (a joint to a static body joins no group: joints.c) */
        const int a = (int)(w->nocollide[k] >> 32), b = (int)(uint32_t)w->nocollide[k];
        if (!pair_ok(a, b, n) || (k > 0 && w->nocollide[k] < w->nocollide[k - 1]) ||
            (w->rt[a].body && w->rt[b].body && w->joint_root[a] != w->joint_root[b])) {
            return tpBroken(why, cap, "nocollide[%d]: (%d, %d) out of range, out of order or not one group", k, a, b);
        }
    }
    for (int m = 0; m < w->nmotor; ++m) {
        if (w->motor_joint[m] < 0 || w->motor_joint[m] >= w->def.njoints || w->motor_axis[m] < 0 ||
            w->motor_axis[m] > 1 || !(w->motor_max[m] >= 0.0)) {
            return tpBroken(why, cap, "motor %d: joint %d, axis %d, largest target %g", m, w->motor_joint[m],
                            w->motor_axis[m], w->motor_max[m]);
        }
    }
    return true;
}

bool tpWorld_Valid(const tpWorld *w, char *why, size_t cap)
{
    if (!w || w->def.nbodies < 0 || (w->def.nbodies > 0 && (!w->rt || !w->bodies))) {
        return tpBroken(why, cap, "world: no body tables");
    }
    return valid_slots(w, why, cap) && valid_bodies(w, why, cap) && valid_contacts(w, why, cap) &&
           valid_joints(w, why, cap);
}
