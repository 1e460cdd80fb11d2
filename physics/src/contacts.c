/* tplan physics: contacts -- the canonical collision pass, speculative contacts for fast bodies
 * (the swept pass, sweep samples, bounce cuts), the discovery of overlaps a solve caused, the
 * contact joints and the touching record. step.c drives them once per substep (docs/physics.md).
 * Every function here is a function of the restored state, so Sim stays pure. */
#include "mesh_geom_internal.h"

#include "tp/base.h"
#include "tp/util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* dCollide for a pair, with tplan's own colliders for the pairs ODE's colliders get wrong: a box,
 * sphere, cylinder or capsule against a plane (plane_collide.c: every feature within a slop of the
 * plane, its gap as a negative depth), and the moving mesh hulls (hull-hull, hull-box,
 * hull-triangle mesh: mesh_collide.c). Contacts into w->cgeoms. */
static int collide_geoms(const tpWorld *w, dGeomID ga, tpMeshRt *ma, dGeomID gb, tpMeshRt *mb, dContactGeom *out)
{
    const bool pa = dGeomGetClass(ga) == dPlaneClass, pb = dGeomGetClass(gb) == dPlaneClass;
    if (pa != pb) {
        int n = pa ? tpPlane_Collide(gb, ga, true, w->def.max_contacts, out)
                   : tpPlane_Collide(ga, gb, false, w->def.max_contacts, out);
        if (n >= 0)
            return n;
    }
    if (ma != NULL || mb != NULL) {
        int n = tpMeshGeom_Collide(ma, ga, mb, gb, w->def.max_contacts, out);
        if (n >= 0)
            return n;
    }
    return dCollide(ga, gb, w->def.max_contacts, out, (int)sizeof(dContactGeom));
}

/* m: part pairs whose bounding boxes are further apart than this are not collided (no collider
 * reports a gap that wide: the plane colliders' slop is 0.1 mm, and the swept pass grows the geoms
 * themselves, so their boxes grow with them). */
#define TP_PART_AABB_MARGIN 0.001

/* A pair of bodies: each pair of their geoms (a compound's parts, in part order) whose bounding
 * boxes come within TP_PART_AABB_MARGIN, up to max_contacts contacts each (w->cgeoms has room for
 * max_geoms^2 of those, twice: sweep_samples keeps two poses' contacts), into out. */
static int collide_pair_into(tpWorld *w, const tpBodyRt *ra, const tpBodyRt *rb, dContactGeom *out)
{
    if (ra->ngeoms == 1 && rb->ngeoms == 1)
        return collide_geoms(w, ra->geom, ra->mesh, rb->geom, rb->mesh, out);
    dReal bb[TP_MAX_PARTS][6];
    for (int j = 0; j < rb->ngeoms; j++)
        dGeomGetAABB(rb->geoms[j], bb[j]);
    int n = 0;
    for (int i = 0; i < ra->ngeoms; i++) {
        dReal aa[6];
        dGeomGetAABB(ra->geoms[i], aa);
        for (int j = 0; j < rb->ngeoms; j++) {
            bool apart = false;
            for (int k = 0; k < 3 && !apart; k++)
                apart = aa[2 * k] > bb[j][2 * k + 1] + TP_PART_AABB_MARGIN ||
                        bb[j][2 * k] > aa[2 * k + 1] + TP_PART_AABB_MARGIN;
            if (!apart)
                n += collide_geoms(w, ra->geoms[i], ra->meshes[i], rb->geoms[j], rb->meshes[j], out + n);
        }
    }
    return n;
}

/* collide_pair_into w->cgeoms. */
static int collide_pair(tpWorld *w, const tpBodyRt *ra, const tpBodyRt *rb)
{
    return collide_pair_into(w, ra, rb, w->cgeoms);
}

/* ------------------------------------------------------------------------------------------ */
/* Canonical collisions                                                                        */

/* Room for n contact infos (and the merge scratch); keeps the contents. */
static bool reserve_infos(tpWorld *w, int n)
{
    if ((size_t)n <= w->cap_infos)
        return true;
    size_t cap = tpArray_NextCap(w->cap_infos, (size_t)n, sizeof(tpContactInfo));
    tpContactInfo *c = cap ? tpArray_Resize(w->infos, cap, sizeof *c) : NULL;
    if (c == NULL)
        return false;
    w->infos = c;
    tpContactInfo *m = tpArray_Resize(w->merge, cap, sizeof *m);
    if (m == NULL)
        return false;
    w->merge = m;
    w->cap_infos = cap;
    return true;
}

/* Broad phase only: records the candidate pair under its canonical key. The space hands pairs
 * over in an order that depends on its history, so nothing is decided here. */
static void near_callback(void *data, dGeomID g1, dGeomID g2)
{
    tpWorld *w = data;
    int a = (int)(intptr_t)dGeomGetData(g1);
    int b = (int)(intptr_t)dGeomGetData(g2);
    /* The category bits already keep static/kinematic geoms apart; this guards the rule. */
    if (w->rt[a].state_slot < 0 && w->rt[b].state_slot < 0)
        return;
    if (a == b)
        return;
    if (a > b) {
        int tmp = a;
        a = b;
        b = tmp;
    }
    const uint64_t key = ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
    if (w->nnocollide > 0 && tpJoints_NoCollide(w, key))
        return; /* jointed bodies that do not collide */
    if (w->npairs == w->cap_pairs && !tpWorld_GrowPairs(w, 2 * w->cap_pairs)) {
        tpWorld_OutOfMemory(w, "collision pairs");
        return;
    }
    w->pairs[w->npairs++] = key;
}

/* The candidate pairs of body i's geoms against the space (a compound: each part's). */
static void collide_space(tpWorld *w, int i)
{
    const tpBodyRt *r = &w->rt[i];
    for (int g = 0; g < r->ngeoms; g++)
        dSpaceCollide2(r->geoms[g], (dGeomID)w->space, w, near_callback);
}

/* Heap sort: in place, no allocation, O(n log n) whatever the space's order was. The keys are
 * unique, so stability does not matter. */
static void sift_down(uint64_t *v, int start, int n)
{
    int root = start;
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && v[child + 1] > v[child])
            child++;
        if (v[root] >= v[child])
            return;
        uint64_t tmp = v[root];
        v[root] = v[child];
        v[child] = tmp;
        root = child;
    }
}

static void sort_keys(uint64_t *v, int n)
{
    if (n < 16) {
        for (int i = 1; i < n; i++) {
            uint64_t key = v[i];
            int j = i - 1;
            while (j >= 0 && v[j] > key) {
                v[j + 1] = v[j];
                j--;
            }
            v[j + 1] = key;
        }
        return;
    }
    for (int i = n / 2 - 1; i >= 0; i--)
        sift_down(v, i, n);
    for (int end = n - 1; end > 0; end--) {
        uint64_t tmp = v[0];
        v[0] = v[end];
        v[end] = tmp;
        sift_down(v, 0, end);
    }
}

/* Sorts the keys and drops repeats (a compound's parts each report the pair); the new count. */
static int sort_unique(uint64_t *v, int n)
{
    sort_keys(v, n);
    int m = 0;
    for (int k = 0; k < n; k++)
        if (m == 0 || v[k] != v[m - 1])
            v[m++] = v[k];
    return m;
}

/* Total order on contacts of one pair: position, then depth, then normal. */
static int contact_cmp(const dContactGeom *x, const dContactGeom *y)
{
    for (int k = 0; k < 3; k++)
        if (x->pos[k] != y->pos[k])
            return x->pos[k] < y->pos[k] ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    for (int k = 0; k < 3; k++)
        if (x->normal[k] != y->normal[k])
            return x->normal[k] < y->normal[k] ? -1 : 1;
    return 0;
}

static void sort_contacts(dContactGeom *c, int n)
{
    for (int i = 1; i < n; i++) {
        dContactGeom key = c[i];
        int j = i - 1;
        while (j >= 0 && contact_cmp(&c[j], &key) > 0) {
            c[j + 1] = c[j];
            j--;
        }
        c[j + 1] = key;
    }
}

/* ODE's friction is a pyramid: the two tangent directions are limited independently (and
 * rolling resistance acts about each of them independently), so a body sliding or rolling
 * diagonally to them is braked unevenly and its path bends toward an axis (a kicked ball
 * curved by 0.1 rad over 3 m). Aligning the first friction direction with the slip makes friction
 * and rolling resistance oppose the motion exactly, as an isotropic (cone) law does -- but only if
 * it is the slip the solve will see: the second row still holds the sideways velocity up to mu N,
 * so a direction taken from the velocity at the substep's start kept a box pushed from rest 5
 * degrees off an axis on the axis (0.01 degrees), a sliding box pushed sideways on its rails (no
 * sideways velocity at all) and a pool stroke 0.5 degrees off x on x. So the direction is the slip
 * at the end of the substep without friction: the contact point's relative velocity now plus what
 * gravity and the action add over the substep (tpBodyRt.dv_pred, dw_pred); then the second row has
 * nothing to hold and the friction force is mu N against the slip, as on a cone. While rolling (no
 * slip either way), the bodies' relative velocity. Deterministic: a function of the restored state
 * and the action only. */
static bool contact_tangent(const dReal *nrm, double v[3])
{
    double vn = v[0] * nrm[0] + v[1] * nrm[1] + v[2] * nrm[2];
    for (int i = 0; i < 3; i++)
        v[i] -= vn * nrm[i];
    double s = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (s < 1e-6)
        return false;
    for (int i = 0; i < 3; i++)
        v[i] /= s;
    return true;
}

/* The velocity of body r's point p at the end of a free substep (its velocity now plus the
 * prediction), into out; 0 for static and sleeping bodies (body NULL). */
static void predicted_point_vel(const tpBodyRt *r, dBodyID body, const dReal *p, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    if (body == NULL)
        return;
    dVector3 v;
    dBodyGetPointVel(body, p[0], p[1], p[2], v);
    const dReal *c = dBodyGetPosition(body);
    const double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    const double *dw = r->dw_pred;
    out[0] = v[0] + r->dv_pred[0] + dw[1] * d[2] - dw[2] * d[1];
    out[1] = v[1] + r->dv_pred[1] + dw[2] * d[0] - dw[0] * d[2];
    out[2] = v[2] + r->dv_pred[2] + dw[0] * d[1] - dw[1] * d[0];
}

static void friction_direction(const tpBodyRt *ra, const tpBodyRt *rb, dBodyID a, dBodyID b, bool cone, dContact *c)
{
    const dReal *p = c->geom.pos, *nrm = c->geom.normal;
    double va[3], vb[3];
    if (cone) {
        predicted_point_vel(ra, a, p, va);
        predicted_point_vel(rb, b, p, vb);
    } else { /* the slip now (tpSceneDef.friction_cone false) */
        dVector3 xa = {0, 0, 0}, xb = {0, 0, 0};
        if (a != NULL)
            dBodyGetPointVel(a, p[0], p[1], p[2], xa);
        if (b != NULL)
            dBodyGetPointVel(b, p[0], p[1], p[2], xb);
        for (int i = 0; i < 3; i++)
            va[i] = xa[i], vb[i] = xb[i];
    }
    double v[3] = {va[0] - vb[0], va[1] - vb[1], va[2] - vb[2]};
    if (!contact_tangent(nrm, v)) {
        const dReal *la = a != NULL ? dBodyGetLinearVel(a) : NULL, *lb = b != NULL ? dBodyGetLinearVel(b) : NULL;
        for (int i = 0; i < 3; i++)
            v[i] = (la != NULL ? la[i] : 0.0) - (lb != NULL ? lb[i] : 0.0);
        if (!contact_tangent(nrm, v))
            return; /* at rest relative to each other, and nothing pushes: ODE's default basis */
    }
    c->surface.mode |= dContactFDir1;
    for (int i = 0; i < 3; i++)
        c->fdir1[i] = v[i];
}

/* What gravity and the action (ODE's force and torque accumulators, set by step.c for the
 * substep) add to each simulated body's velocities over h s: the friction direction's prediction. */
static void predict_free_motion(tpWorld *w, double h)
{
    for (int k = 0; k < w->nstate; k++) {
        tpBodyRt *r = &w->rt[w->state_body[k]];
        const dReal *f = dBodyGetForce(r->body), *t = dBodyGetTorque(r->body);
        const double g = dBodyGetGravityMode(r->body) ? 1.0 : 0.0;
        for (int c = 0; c < 3; c++) {
            r->dv_free[c] = h * (g * w->def.gravity[c] + f[c] / r->mass);
            r->dv_pred[c] = r->dv_free[c];
            r->dw_pred[c] = 0.0;
        }
        if (t[0] == 0.0 && t[1] == 0.0 && t[2] == 0.0)
            continue;
        /* dw = h R I^-1 R^T t, I the body-frame inertia */
        tpMat_BodyTimes(dBodyGetRotation(r->body), r->inertia_inv, t, r->dw_pred);
        for (int i = 0; i < 3; i++)
            r->dw_pred[i] *= h;
    }
    /* What pushes a body into its supports does not move it: the road holds a car up, so gravity
     * is no slip along the wall it scrapes (with it, the wall's first friction row pointed down
     * and its second held the car to the wall). Each contact removes the part of its bodies'
     * predicted velocity change that presses into it (in contact order: deterministic). */
    for (int k = 0; k < w->npend; k++) {
        const tpPendingContact *p = &w->pend[k];
        const dReal *n = p->c.geom.normal; /* points into a, away from b */
        tpBodyRt *ra = &w->rt[p->a], *rb = &w->rt[p->b];
        if (ra->state_slot >= 0 && !ra->asleep) {
            const double d = ra->dv_pred[0] * n[0] + ra->dv_pred[1] * n[1] + ra->dv_pred[2] * n[2];
            if (d < 0.0)
                for (int c = 0; c < 3; c++)
                    ra->dv_pred[c] -= d * n[c];
        }
        if (rb->state_slot >= 0 && !rb->asleep) {
            const double d = rb->dv_pred[0] * n[0] + rb->dv_pred[1] * n[1] + rb->dv_pred[2] * n[2];
            if (d > 0.0)
                for (int c = 0; c < 3; c++)
                    rb->dv_pred[c] -= d * n[c];
        }
    }
}

/* Merges the infos appended by a later pass (infos[first..ninfos), sorted by pair like the
 * earlier ones infos[0..first)) into one sorted list with each pair once; an earlier entry wins
 * (its deepest overlap is the deeper of the two). */
static void merge_infos(tpWorld *w, int first)
{
    int i = 0, j = first, n = 0;
    while (i < first || j < w->ninfos) {
        const tpContactInfo *a = i < first ? &w->infos[i] : NULL, *b = j < w->ninfos ? &w->infos[j] : NULL;
        if (a != NULL && b != NULL && a->a == b->a && a->b == b->b) {
            w->merge[n] = *a;
            if (b->max_depth > a->max_depth)
                w->merge[n].max_depth = b->max_depth;
            n++;
            i++;
            j++;
        } else if (b == NULL || (a != NULL && (a->a < b->a || (a->a == b->a && a->b < b->b)))) {
            w->merge[n++] = *a;
            i++;
        } else {
            w->merge[n++] = *b;
            j++;
        }
    }
    memcpy(w->infos, w->merge, (size_t)n * sizeof *w->infos);
    w->ninfos = n;
}

/* Keeps the deepest overlaps of the step: static geometry against a moving body, and two moving
 * bodies (dynamic or scripted) against each other. */
static void note_depth(tpWorld *w, int a, int b, double depth)
{
    if (w->bodies[a].cls == TP_BODY_STATIC || w->bodies[b].cls == TP_BODY_STATIC) {
        if (depth > w->static_depth) {
            w->static_depth = depth;
            w->static_pair[0] = a;
            w->static_pair[1] = b;
            w->static_sub = w->substep;
        }
    } else if (depth > w->body_depth) {
        w->body_depth = depth;
        w->body_pair[0] = a;
        w->body_pair[1] = b;
        w->body_sub = w->substep;
    }
}

/* The candidate pairs at the current poses into w->pairs, in the space's order. */
static void pairs_now(tpWorld *w)
{
    w->npairs = 0;
    dSpaceCollide(w->space, w, near_callback);
}

/* Deepest overlaps at the current poses (after a step in scenes with scripted bodies: an infinite
 * mass can push a body into static geometry, or into another body, during the last substep); no
 * contact joints and no touching record (it only looks). */
void tpContacts_DepthPass(tpWorld *w)
{
    pairs_now(w);
    for (int p = 0; p < w->npairs; p++) {
        int a = (int)(w->pairs[p] >> 32), b = (int)(w->pairs[p] & 0xffffffffu);
        int n = collide_pair(w, &w->rt[a], &w->rt[b]);
        for (int k = 0; k < n; k++)
            note_depth(w, a, b, w->cgeoms[k].depth);
    }
}

/* The candidate pairs at the current poses into w->pairs, sorted (the position projection's
 * collision pass, project.c). */
void tpContacts_PairsNow(tpWorld *w)
{
    pairs_now(w);
    w->npairs = sort_unique(w->pairs, w->npairs);
}

static void inflate_geom(tpWorld *w, int i, double m);

void tpContacts_Inflate(tpWorld *w, int i, double m)
{
    inflate_geom(w, i, m);
}

int tpContacts_CollidePair(tpWorld *w, int a, int b)
{
    const int n = collide_pair(w, &w->rt[a], &w->rt[b]);
    if (n > 0)
        sort_contacts(w->cgeoms, n);
    return n;
}

bool tpContacts_Touching(tpWorld *w, int body, double gap)
{
    pairs_now(w);
    for (int p = 0; p < w->npairs; p++) {
        int a = (int)(w->pairs[p] >> 32), b = (int)(w->pairs[p] & 0xffffffffu);
        if (a != body && b != body)
            continue;
        int n = collide_pair(w, &w->rt[a], &w->rt[b]);
        for (int k = 0; k < n; k++)
            if (w->cgeoms[k].depth >= -gap)
                return true;
    }
    return false;
}

/* Room for n pending contacts (and their feedback records); keeps the contents. */
static bool reserve_pending(tpWorld *w, int n)
{
    if (n <= w->cap_pend)
        return true;
    size_t cap = tpArray_NextCap((size_t)w->cap_pend, (size_t)n, sizeof(tpPendingContact));
    if (cap == 0 || cap > INT_MAX)
        return false;
    tpPendingContact *p = tpArray_Resize(w->pend, cap, sizeof *p);
    if (p == NULL)
        return false;
    w->pend = p;
    dJointFeedback *f = tpArray_Resize(w->feedback, cap, sizeof *f);
    if (f == NULL)
        return false;
    w->feedback = f;
    w->cap_pend = (int)cap;
    return true;
}

static bool reserve_touch(tpWorld *w, int n)
{
    if (n <= w->cap_touch)
        return true;
    size_t cap = tpArray_NextCap((size_t)w->cap_touch, (size_t)n, sizeof(tpTouch));
    tpTouch *t = cap && cap <= INT_MAX ? tpArray_Resize(w->touch, cap, sizeof *t) : NULL;
    if (t == NULL)
        return false;
    w->touch = t;
    w->cap_touch = (int)cap;
    return true;
}

/* The surface of a contact between bodies a and b, as ODE takes it (no bounce yet). */
static dContact base_contact(const tpWorld *w, int a, int b)
{
    const tpSurface *s = &w->surfaces[w->bodies[a].material * w->def.nmaterials + w->bodies[b].material];
    dContact c;
    memset(&c, 0, sizeof c);
    c.surface.mode = dContactApprox1;
    c.surface.mu = s->mu;
    if (s->rho > 0.0) {
        /* Rolling resistance about both tangent axes; no spinning friction (rhoN = 0). */
        c.surface.mode |= dContactRolling;
        c.surface.rho = s->rho;
        c.surface.rho2 = s->rho;
        c.surface.rhoN = 0.0;
    }
    return c;
}

/* False when out of memory (the world's fatal error is set: the step fails). */
static bool push_pending(tpWorld *w, const dContact *c, int a, int b, bool speculative)
{
    if (w->npend == w->cap_pend && !reserve_pending(w, w->npend + 1)) {
        tpWorld_OutOfMemory(w, "contact joints");
        return false;
    }
    tpPendingContact *p = &w->pend[w->npend++];
    p->c = *c;
    p->a = a;
    p->b = b;
    p->speculative = speculative;
    p->spec_bounce = false;
    p->discovered = false;
    p->bounces = false;
    p->gap = 0.0;
    p->rest_f = 0.0;
    return true;
}

/* Collision detection at the substep's start poses: the real contacts, appended to w->pend, and
 * the touching record (keep = true adds to the earlier substeps' pairs instead of starting over). */
void tpContacts_Collide(tpWorld *w, bool keep)
{
    w->npairs = 0;
    w->ntouch = 0;
    w->stamp++;
    if (!keep)
        w->ninfos = 0;
    const int first = w->ninfos;
    dSpaceCollide(w->space, w, near_callback);
    w->npairs = sort_unique(w->pairs, w->npairs);
    /* contacts still become joints when this fails; only the touching record is incomplete */
    const bool record = reserve_infos(w, first + w->npairs) && reserve_touch(w, w->npairs);
    if (!record)
        tpLog(TP_LOG_ERROR, "physics: out of memory for the contact record");

    const int nmat = w->def.nmaterials;
    for (int p = 0; p < w->npairs; p++) {
        int a = (int)(w->pairs[p] >> 32), b = (int)(w->pairs[p] & 0xffffffffu);
        const tpBodyRt *ra = &w->rt[a], *rb = &w->rt[b];
        int n = collide_pair(w, ra, rb);
        if (n <= 0)
            continue;
        sort_contacts(w->cgeoms, n);

        const tpSurface *s = &w->surfaces[w->bodies[a].material * nmat + w->bodies[b].material];
        dContact c = base_contact(w, a, b);
        if (s->bounce > 0.0) {
            c.surface.mode |= dContactBounce;
            c.surface.bounce = s->bounce;
            c.surface.bounce_vel = s->bounce_vel;
        }
        double deepest = 0.0;
        const int pfirst = w->npend;
        for (int k = 0; k < n; k++) {
            c.geom = w->cgeoms[k];
            push_pending(w, &c, a, b, false);
            deepest = w->cgeoms[k].depth > deepest ? w->cgeoms[k].depth : deepest;
        }
        note_depth(w, a, b, deepest);
        w->rt[a].contact_stamp = w->rt[b].contact_stamp = w->stamp;
        if (!record)
            continue;
        w->touch[w->ntouch].key = w->pairs[p];
        w->touch[w->ntouch].first = pfirst;
        w->touch[w->ntouch].count = n;
        w->touch[w->ntouch].deepest = deepest;
        w->ntouch++;
        tpContactInfo *info = &w->infos[w->ninfos++];
        info->a = a;
        info->b = b;
        memcpy(info->pos, w->cgeoms[0].pos, sizeof info->pos);
        info->depth = w->cgeoms[0].depth;
        info->max_depth = deepest;
    }
    if (first > 0)
        merge_infos(w, first);
}

/* The pair's entry among the substep's touching pairs, or NULL. */
static const tpTouch *find_touching(const tpWorld *w, uint64_t key)
{
    int lo = 0, hi = w->ntouch;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (w->touch[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->ntouch && w->touch[lo].key == key ? &w->touch[lo] : NULL;
}

/* cos 1 degree: with a static triangle mesh, and for a sphere and a moving hull, a contact near
 * another holds its part of the pair only when their normals agree this closely (near_normal). */
#define TP_SPECULATIVE_NEAR_COS 0.99984769515639124

/* Contact q can stand for a new contact at a point near it with normal n: n NULL (any normal does:
 * a plane's or a box face's nearby points share its normal), or q's normal within 1 degree of n. */
static bool near_normal(const dContactGeom *q, const double *n)
{
    return n == NULL || q->normal[0] * n[0] + q->normal[1] * n[1] + q->normal[2] * n[2] >= TP_SPECULATIVE_NEAR_COS;
}

/* Either of a and b is a static triangle mesh. */
static bool static_mesh_pair(const tpWorld *w, int a, int b)
{
    return (w->bodies[a].shape == TP_SHAPE_MESH && w->rt[a].body == NULL) ||
           (w->bodies[b].shape == TP_SHAPE_MESH && w->rt[b].body == NULL);
}

/* A sphere and a moving convex mesh hull (mesh_collide.c's hull_sphere: one contact, at the hull's
 * point closest to the centre). */
static bool sphere_hull_pair(const tpWorld *w, int a, int b)
{
    const tpShapeKind sa = w->bodies[a].shape, sb = w->bodies[b].shape;
    return (sa == TP_SHAPE_SPHERE && sb == TP_SHAPE_MESH && w->rt[b].body != NULL) ||
           (sb == TP_SHAPE_SPHERE && sa == TP_SHAPE_MESH && w->rt[a].body != NULL);
}

/* The normal the near tests must match for pair (a, b) with contact normal n: n when either is a
 * static triangle mesh (neighbouring triangles of a curved mesh face other ways: a real contact on
 * one does not hold a spinning die's corner coming down on the next -- it dug 5.3 mm into a bowl at
 * 1 substep) or for a sphere and a moving hull (a sphere's nearby points face other ways too, and
 * the one real contact, at the closest point, holds only that point: a die spinning at 12 rad/s
 * against a ball turned its next corner into it, 0.9-1.4 mm deeper a step to 6.2 mm at 1
 * substep, while the swept contact that saw it coming was dropped as held), else NULL. */
static const double *near_must_match(const tpWorld *w, int a, int b, const double *n)
{
    return static_mesh_pair(w, a, b) || sphere_hull_pair(w, a, b) ? n : NULL;
}

/* One of the pair's speculative contacts lies within d of point p (with normal n: near_normal).
 * Those of the swept pass and of each discovery round follow the real ones in runs, each in pair
 * order (w->run[0 .. nrun] bound them). */
static bool near_speculative(const tpWorld *w, uint64_t key, const double p[3], const double *n, double d)
{
    const int a = (int)(key >> 32), b = (int)(key & 0xffffffffu);
    for (int r = 0; r < w->nrun; r++) {
        int lo = w->run[r], hi = w->run[r + 1];
        const int end = hi;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            const tpPendingContact *m = &w->pend[mid];
            if (m->a < a || (m->a == a && m->b < b))
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int k = lo; k < end && w->pend[k].a == a && w->pend[k].b == b; k++) {
            const dReal *q = w->pend[k].c.geom.pos;
            double dx = q[0] - p[0], dy = q[1] - p[1], dz = q[2] - p[2];
            if (dx * dx + dy * dy + dz * dz < d * d && near_normal(&w->pend[k].c.geom, n))
                return true;
        }
    }
    return false;
}

/* A real contact of the pair lies within d of point p (with normal n: near_normal). */
static bool near_contact(const tpWorld *w, const tpTouch *t, const double p[3], const double *n, double d)
{
    for (int k = t->first; k < t->first + t->count; k++) {
        const dReal *q = w->pend[k].c.geom.pos;
        double dx = q[0] - p[0], dy = q[1] - p[1], dz = q[2] - p[2];
        if (dx * dx + dy * dy + dz * dz < d * d && near_normal(&w->pend[k].c.geom, n))
            return true;
    }
    return false;
}

/* The start-pose point of a contact between two moving bodies, from each one's point at its start
 * pose (pa for a, pb for b: sweep_back, point_at_start) and the contact's normal n: midway between
 * them; but where one of them is a sphere (centre cs at its start pose) and the other is not, the
 * point of the line through cs along n nearest the other's point. ODE's contact row takes each
 * body's lever arm from its centre to the point, and a sphere's arm along the normal is the only
 * one with which its spin adds nothing to the normal velocity (a normal force never turns a
 * sphere): midway lay 1.4 cm off that line for a ball rolling at 41 rad/s into a spinning die
 * (a bowl, 1 substep), the ball's spin read as 0.39 m/s of parting there, and the swept and the
 * discovered contact both held while the pair closed 0.47 m/s: 6.5 mm deep after the step, 8.1 mm
 * two steps later. Other pairs (two spheres included) keep the midway point. */
static void pair_point(const tpWorld *w, int a, int b, const double *csa, const double *csb, const double pa[3],
                       const double pb[3], const dReal *n, dReal out[3])
{
    const bool sa = w->bodies[a].shape == TP_SHAPE_SPHERE;
    if (!sphere_hull_pair(w, a, b)) {
        for (int q = 0; q < 3; q++)
            out[q] = 0.5 * (pa[q] + pb[q]);
        return;
    }
    const double *cs = sa ? csa : csb, *po = sa ? pb : pa;
    const double t = (po[0] - cs[0]) * n[0] + (po[1] - cs[1]) * n[1] + (po[2] - cs[2]) * n[2];
    for (int q = 0; q < 3; q++)
        out[q] = cs[q] + t * n[q];
}

/* Speculative contacts (Catto's "speculative contacts", as in Box2D v3): a body that moves
 * further in one substep than TP_SWEEP_MIN sinks that far into whatever it meets before the
 * collision is seen at the next substep (a die landing at 10 m/s with 4 substeps: 4 cm, half a
 * die). So the fast bodies are also collided at their swept poses (p + v h, turned by omega h,
 * grown by a margin): a pair that is not touching now but will overlap there gets contacts whose
 * constraint lets the bodies close the present gap g and no more (normal velocity >= -g / h,
 * through ODE's dContactMotionN with no depth), or, when the impact falls within the substep and
 * is fast enough to bounce, leaves with the restitution velocity (or cuts the substep at the
 * impact). A contact the solver does not need applies no force, so a near miss costs nothing but
 * the test. Deterministic: a function of the restored state only; only the geoms move, through
 * offsets that are cleared afterwards, so the bodies (and ODE's rotation matrices) are untouched. */

/* m per substep: slower bodies sink at most the contact surface layer, and get no sweep. */
#define TP_SWEEP_MIN 0.001
/* m: fast bodies' geoms grow by this in the swept pass, so that what is nearly touching is seen
 * too (the far rim of a tilted cylinder, which its own contact forces bring down). */
#define TP_SPECULATIVE_MARGIN 0.002
/* m: a parting pair this near still gets its swept contacts (boxes stacked with hair-wide gaps,
 * all falling together). */
#define TP_SPECULATIVE_HAIR 1e-4
/* Of the larger bounding radius: a swept contact this close to a real contact of the pair adds
 * nothing. */
#define TP_SPECULATIVE_NEAR 0.2
/* m: the largest spacing of sweep_samples' poses against a static triangle mesh. */
#define TP_SWEEP_MESH_SPACING 0.01
/* Poses along a pair's sweep within the substep rule's travel (sweep_samples). */
#define TP_SWEEP_SAMPLES 4
/* m: a bounce predicted further from the surface than this cuts the substep at the impact... */
#define TP_BOUNCE_GAP 0.0002
/* ... for pairs this bouncy (and at most TP_MAX_CUTS times a step): a livelier bounce's rebound
 * shows where it started (a chipped ball landing, a pool ball off a cushion); a die (e 0.05-0.2)
 * reversing a gap short of the floor does not, and the cuts would double the physics of 400 dice
 * landing. */
#define TP_BOUNCE_CUT_E 0.5
/* m: an unforeseen overlap this deep after a solve is solved again (TP_DISCOVER_ROUNDS). */
#define TP_DISCOVER_DEPTH 0.002

/* Grows body i's geom by m (m) on every side, or back to its definition's size (m = 0). */
static void inflate_one(tpShapeKind shape, const double *size, tpMeshRt *mesh, dGeomID g, double m)
{
    switch (shape) {
    case TP_SHAPE_BOX:
        dGeomBoxSetLengths(g, size[0] + 2 * m, size[1] + 2 * m, size[2] + 2 * m);
        break;
    case TP_SHAPE_SPHERE:
        dGeomSphereSetRadius(g, size[0] + m);
        break;
    case TP_SHAPE_CYLINDER:
        dGeomCylinderSetParams(g, size[0] + m, size[1] + 2 * m);
        break;
    case TP_SHAPE_CAPSULE:
        dGeomCapsuleSetParams(g, size[0] + m, size[1]);
        break;
    case TP_SHAPE_MESH:
        tpMeshGeom_Inflate(mesh, g, m);
        break;
    case TP_SHAPE_PLANE:
    case TP_SHAPE_COMPOUND:
        break;
    }
}

static void inflate_geom(tpWorld *w, int i, double m)
{
    const tpBodyDef *b = &w->bodies[i];
    const tpBodyRt *r = &w->rt[i];
    if (b->shape != TP_SHAPE_COMPOUND) {
        inflate_one(b->shape, b->size, r->mesh, r->geom, m);
        return;
    }
    for (int k = 0; k < r->ngeoms; k++) /* each part grows about its own centre */
        inflate_one(b->parts[k].shape, b->parts[k].size, r->meshes[k], r->geoms[k], m);
}

/* The point of the start pose that body i's sweep (by v h and turned by omega h about its
 * centre) takes to p1: a corner of a spinning die is where the corner was, not where its swept
 * position less the translation is (1.5 cm apart at 40 rad/s). A sphere's surface point under a
 * contact moves with the centre alone, so for spheres only the translation is undone (turning it
 * back would put the point off the line through the centre: a torque that is not there); the
 * same for a cylinder's or capsule's spin about its axis (tpWorld_ShapeSpin). */
static void sweep_back(const tpWorld *w, int i, double h, const dReal *p1, double out[3])
{
    const tpBodyRt *r = &w->rt[i];
    const dReal *c = dBodyGetPosition(r->body);
    double d[3], om[3];
    for (int k = 0; k < 3; k++)
        d[k] = p1[k] - (c[k] + h * r->vsweep[k]);
    tpWorld_ShapeSpin(w, i, dBodyGetAngularVel(r->body), om);
    double spin = sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]);
    if (spin > 0.0) {
        /* Rodrigues: rotate d by -spin h about the unit axis om / spin */
        const double ang = -spin * h, cs = cos(ang), sn = sin(ang);
        const double u[3] = {om[0] / spin, om[1] / spin, om[2] / spin};
        const double ud = u[0] * d[0] + u[1] * d[1] + u[2] * d[2];
        const double x[3] = {u[1] * d[2] - u[2] * d[1], u[2] * d[0] - u[0] * d[2], u[0] * d[1] - u[1] * d[0]};
        double e[3];
        for (int k = 0; k < 3; k++)
            e[k] = d[k] * cs + x[k] * sn + u[k] * ud * (1.0 - cs);
        memcpy(d, e, sizeof d);
    }
    for (int k = 0; k < 3; k++)
        out[k] = c[k] + d[k];
}

/* How far the point p of fast body i's swept pose after t s moved since the substep's start (m,
 * into out): p less the start-pose point sweep_back takes it back to, so the translation and the
 * turn of the sweep exactly (a sphere's surface point: the translation alone, see sweep_back). 0 for
 * the other bodies (static, kinematic and slow bodies stay at their start poses in the swept pass).
 * (Before, a point velocity with the lever arm from the start centre: a ball spinning at 400 rad/s
 * that moved 2 cm along its sweep got a spurious 6 m/s along the floor's normal, and landing at
 * 1.5 m/s it sank 5 mm.) */
static void sweep_travel(const tpWorld *w, int i, double t, const dReal *p, double out[3])
{
    const tpBodyRt *r = &w->rt[i];
    out[0] = out[1] = out[2] = 0.0;
    if (r->body == NULL || r->sweep_stamp != w->stamp)
        return;
    double p0[3];
    sweep_back(w, i, t, p, p0);
    for (int k = 0; k < 3; k++)
        out[k] = p[k] - p0[k];
}

/* Puts fast body i's geom (not the body: its rotation matrix is hidden state) at the fraction f of
 * its sweep over h, through an offset: position p + f v h, orientation turned by f omega h. */
static void sweep_pose(tpWorld *w, int i, double h, double f)
{
    const tpBodyRt *r = &w->rt[i];
    const dReal *p = dBodyGetPosition(r->body), *q = dBodyGetQuaternion(r->body);
    double om[3];
    tpWorld_ShapeSpin(w, i, dBodyGetAngularVel(r->body), om);
    const double spin = sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]);
    double dq[4] = {1.0, 0.0, 0.0, 0.0};
    if (spin > 0.0) {
        const double ang = f * spin * h, sn = sin(0.5 * ang) / spin;
        dq[0] = cos(0.5 * ang);
        dq[1] = om[0] * sn;
        dq[2] = om[1] * sn;
        dq[3] = om[2] * sn;
    }
    dQuaternion q1;
    q1[0] = dq[0] * q[0] - dq[1] * q[1] - dq[2] * q[2] - dq[3] * q[3];
    q1[1] = dq[0] * q[1] + dq[1] * q[0] + dq[2] * q[3] - dq[3] * q[2];
    q1[2] = dq[0] * q[2] - dq[1] * q[3] + dq[2] * q[0] + dq[3] * q[1];
    q1[3] = dq[0] * q[3] + dq[1] * q[2] - dq[2] * q[1] + dq[3] * q[0];
    const double p1[3] = {p[0] + f * h * r->vsweep[0], p[1] + f * h * r->vsweep[1], p[2] + f * h * r->vsweep[2]};
    if (r->part0 >= 0) {
        tpCompound_PoseGeoms(w, i, p1, q1);
        return;
    }
    dGeomSetOffsetWorldQuaternion(r->geom, q1);
    dGeomSetOffsetWorldPosition(r->geom, p1[0], p1[1], p1[2]);
}

/* Whether swept body i (fast: it sweeps) turns its shape further than TP_SWEEP_MIN at its rim in t
 * s (tpWorld_ShapeSpin: never a sphere, nor a wheel about its axle). Only a turning body brings a
 * feature round that its first contact did not have: a translating one's first-touch contacts
 * hold for the whole sweep. */
static bool turns(const tpWorld *w, int i, bool fast, double t)
{
    if (!fast)
        return false;
    double om[3];
    tpWorld_ShapeSpin(w, i, dBodyGetAngularVel(w->rt[i].body), om);
    return sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]) * w->rt[i].radius * t > TP_SWEEP_MIN;
}

/* The swept pose shows where a pair overlaps at the end of the substep, and its normal is the
 * overlap's: a die falling past the edge of another overlaps it less sideways than vertically at
 * the end, so the normal said "side by side" while the die was about to land on the edge (2-3 cm
 * deep a step later). A pair whose sweep carries one past the other by more than half the thinner
 * body's thickness is therefore also collided at fractions of the sweep, and the first fraction
 * where it overlaps gives the contacts (at most TP_SWEEP_SAMPLES_MAX). Returns the fraction used and
 * leaves the contacts in w->cgeoms (*n of them), each pose's sorted: the first *nfirst at that
 * fraction, then, when it is short of 1 and a body turns (turns), the end pose's (what the turning
 * body brings round later in the substep: tpContacts_Speculate keeps those the first do not hold). */
static double sweep_samples(tpWorld *w, int a, int b, bool fa, bool fb, double h, int *n, int *nfirst)
{
    const tpBodyRt *ra = &w->rt[a], *rb = &w->rt[b];
    double rel = 0.0, thin;
    for (int c = 0; c < 3; c++) {
        const double d = (fa ? ra->vsweep[c] : 0.0) - (fb ? rb->vsweep[c] : 0.0);
        rel += d * d;
    }
    rel = sqrt(rel) * h;
    /* Poses half the thinner moving body's thickness apart: the first that overlaps gives a normal
     * close to the one of first touch, and none steps over a thin wall (a 2 cm ball through a
     * 5 mm wall at 1,000 m/s: its overlap spans at least twice its thickness along the path). */
    thin = INFINITY;
    if (ra->body != NULL && ra->thickness > 0.0)
        thin = ra->thickness;
    if (rb->body != NULL && rb->thickness > 0.0 && rb->thickness < thin)
        thin = rb->thickness;
    /* against a static triangle mesh at most TP_SWEEP_MESH_SPACING apart: its features may be thinner
       than any body (a ring's 1 cm tube), and one contact plane over a longer stretch let a glancing
       ball slip round the tube's curvature within the substep (7.1 mm into it at 12 m/s) */
    const bool mesh = static_mesh_pair(w, a, b);
    if (mesh && thin > 2.0 * TP_SWEEP_MESH_SPACING)
        thin = 2.0 * TP_SWEEP_MESH_SPACING;
    int k = thin < INFINITY ? (int)ceil(rel / (0.5 * thin)) : 1;
    if (!(k > 1)) { /* the end pose's contacts (the caller's) alone */
        sort_contacts(w->cgeoms, *n);
        *nfirst = *n;
        return 1.0;
    }
    /* 4 poses serve a body the substeps keep within 2 thicknesses a substep; one faster than the
     * substeps can keep (their count is capped) gets up to 16, so no thin wall lies between two */
    const bool beyond = (fa && ra->thickness > 0.0 && ra->travel > 2.0 * ra->thickness) ||
                        (fb && rb->thickness > 0.0 && rb->travel > 2.0 * rb->thickness);
    const int kmax = beyond || mesh ? TP_SWEEP_SAMPLES_MAX : TP_SWEEP_SAMPLES;
    if (k > kmax)
        k = kmax;
    double used = 1.0;
    for (int j = 1; j < k; j++) {
        const double f = (double)j / k;
        if (fa)
            sweep_pose(w, a, h, f);
        if (fb)
            sweep_pose(w, b, h, f);
        int m = collide_pair(w, ra, rb);
        if (m > 0) {
            *n = m;
            used = f;
            break;
        }
    }
    if (fa)
        sweep_pose(w, a, h, 1.0);
    if (fb)
        sweep_pose(w, b, h, 1.0);
    if (used == 1.0) { /* no earlier overlap: the full sweep's contacts again */
        *n = collide_pair(w, ra, rb);
        sort_contacts(w->cgeoms, *n);
        *nfirst = *n;
        return used;
    }
    sort_contacts(w->cgeoms, *n);
    *nfirst = *n;
    if (turns(w, a, fa, (1.0 - used) * h) || turns(w, b, fb, (1.0 - used) * h)) {
        const int m = collide_pair_into(w, ra, rb, w->cgeoms + *n);
        sort_contacts(w->cgeoms + *n, m);
        *n += m;
    }
    return used;
}

/* A pending contact from index from on lies within d of point p (with normal n: near_normal). */
static bool near_pending(const tpWorld *w, int from, const double p[3], const double *n, double d)
{
    for (int k = from; k < w->npend; k++) {
        const dReal *q = w->pend[k].c.geom.pos;
        double dx = q[0] - p[0], dy = q[1] - p[1], dz = q[2] - p[2];
        if (dx * dx + dy * dy + dz * dz < d * d && near_normal(&w->pend[k].c.geom, n))
            return true;
    }
    return false;
}

/* The speculative contact of pair (a, b) for contact g of its swept poses at fraction f of the
 * substep h (fa, fb: which of them sweeps; touch: its real contacts; near: tpContacts_Speculate's
 * distance), unless a real contact or a pending one from held_from on (-1: none) holds its point.
 * 1 when pushed, 0 when not needed, -1 out of memory. *first_bounce: the earliest bounce cut. */
static int speculate_contact(tpWorld *w, int a, int b, bool fa, bool fb, const dContactGeom *g, double f, double h,
                             bool split, const tpTouch *touch, double near, int held_from, double *first_bounce)
{
    const tpBodyRt *ra = &w->rt[a], *rb = &w->rt[b];
    const tpSurface *s = &w->surfaces[w->bodies[a].material * w->def.nmaterials + w->bodies[b].material];
    /* The pair's relative motion at the point along ODE's normal (which separates a, the
     * first geom, from b when a moves along it) over the sweep to f: the depth now is the
     * swept depth less that approach; vn the pair's mean normal velocity over it. */
    double da[3], db[3], vn = 0.0;
    sweep_travel(w, a, f * h, g->pos, da);
    sweep_travel(w, b, f * h, g->pos, db);
    for (int c = 0; c < 3; c++)
        vn += (da[c] - db[c]) * g->normal[c];
    vn /= f * h;
    double gap = (fa ? ra->inflate : 0.0) + (fb ? rb->inflate : 0.0) - g->depth - vn * f * h;
    if (gap < 0.0)
        gap = 0.0;
    if (vn >= 0.0 && gap > TP_SPECULATIVE_HAIR)
        return 0; /* not closing in, and not so near that a push within the substep could close it */
    dContact c = base_contact(w, a, b);
    c.geom = *g;
    c.geom.depth = 0.0;
    /* the point at the start poses: where the fast body's swept motion took it from */
    double pa[3], pb[3];
    if (fa)
        sweep_back(w, a, f * h, g->pos, pa);
    if (fb)
        sweep_back(w, b, f * h, g->pos, pb);
    if (fa && fb) {
        const dReal *ca = dBodyGetPosition(ra->body), *cb = dBodyGetPosition(rb->body);
        const double csa[3] = {ca[0], ca[1], ca[2]}, csb[3] = {cb[0], cb[1], cb[2]};
        pair_point(w, a, b, csa, csb, pa, pb, g->normal, c.geom.pos);
    } else {
        for (int q = 0; q < 3; q++)
            c.geom.pos[q] = fa ? pa[q] : pb[q];
    }
    const double *nm = near_must_match(w, a, b, g->normal);
    if (touch != NULL && near_contact(w, touch, c.geom.pos, nm, near))
        return 0; /* a real contact holds this part of the pair already */
    if (held_from >= 0 && near_pending(w, held_from, c.geom.pos, nm, near))
        return 0; /* the first overlapping pose's contacts hold it already */
    c.surface.mode |= dContactMotionN;
    bool bounce = false;
    if (s->bounce >= TP_BOUNCE_CUT_E && -vn > s->bounce_vel && -vn * h > gap && split && gap > TP_BOUNCE_GAP) {
        /* A bounce within the substep, short of the surface: the substep is cut at the
         * impact (step.c), so that the bounce starts from the surface itself. */
        const double tau = gap / -vn;
        if (tau < *first_bounce)
            *first_bounce = tau;
        c.surface.motionN = -gap / h;
    } else if (s->bounce > 0.0 && -vn > s->bounce_vel && -vn * h > gap) {
        /* The impact is within the substep: the pair bounces now, gap short of the
         * surface. It leaves with the speed the true bounce has when it passes back
         * through this gap: in at v, accelerated by gravity along the normal (a) over
         * the gap to sqrt(v^2 + 2 a gap), out at e times that, slowed over the gap. The
         * path after is the true one, only earlier by the round trip over the gap. */
        double an = 0.0;
        for (int q = 0; q < 3; q++)
            an -= ((ra->body != NULL && !ra->kinematic ? w->def.gravity[q] : 0.0) -
                   (rb->body != NULL && !rb->kinematic ? w->def.gravity[q] : 0.0)) *
                  g->normal[q];
        const double e = s->bounce, out2 = e * e * (vn * vn + 2.0 * an * gap) - 2.0 * an * gap;
        /* ... and the constraint holds at the end of the substep, after gravity has acted
         * on the way out for h (else the rebound is a g h too fast: +2 % at 1/240 s) */
        const double out = (out2 > 0.0 ? sqrt(out2) : 0.0) - an * h;
        c.surface.motionN = out > 0.0 ? out : 0.0;
        bounce = true;
    } else {
        c.surface.motionN = -gap / h;
    }
    if (!push_pending(w, &c, a, b, true))
        return -1; /* out of memory: the step fails */
    w->pend[w->npend - 1].spec_bounce = bounce;
    w->pend[w->npend - 1].gap = gap;
    return 1;
}

double tpContacts_Speculate(tpWorld *w, double h, bool split)
{
    int nfast = 0;
    double first_bounce = h;
    for (int k = 0; k < w->nstate + w->nkinematic; k++) {
        /* scripted bodies sweep too: one moving into a resting body crushes it otherwise */
        int i = k < w->nstate ? w->state_body[k] : w->kin_body[k - w->nstate];
        tpBodyRt *r = &w->rt[i];
        if (r->asleep) { /* at rest: no sweep, and nothing surprises it (tpContacts_Discover skips it) */
            memset(r->vsweep, 0, sizeof r->vsweep);
            memset(r->vfree, 0, sizeof r->vfree);
            r->inflate = 0.0;
            continue;
        }
        const dReal *v0 = dBodyGetLinearVel(r->body), *om = dBodyGetAngularVel(r->body);
        /* the velocity at the end of a free substep (ODE moves by h times that): gravity and the
         * action count, or a body let go at rest would sink g h^2 before its contact is seen. A
         * body with contacts already is held by them: its own velocity is its sweep (else a box
         * resting on the floor would sweep down with the box above it and never meet it). */
        const int slot = r->control_slot;
        const bool supported = r->contact_stamp == w->stamp || r->kinematic;
        double acc2 = 0.0;
        for (int c = 0; c < 3; c++) {
            const double acc =
                supported ? 0.0 : w->def.gravity[c] + (slot >= 0 ? w->action[6 * slot + c] / r->mass : 0.0);
            r->vsweep[c] = v0[c] + h * acc;
            /* what the body would do if nothing but its support touched it: the action acts */
            r->vfree[c] = supported && slot >= 0 ? v0[c] + h * w->action[6 * slot + c] / r->mass : r->vsweep[c];
            acc2 += acc * acc;
        }
        /* A free body grows by its own fall in the substep too: boxes stacked with hair-wide
         * gaps (no contact yet) all fall together, so their sweeps alone never meet. */
        r->inflate = TP_SPECULATIVE_MARGIN + sqrt(acc2) * h * h;
        double speed = sqrt(r->vsweep[0] * r->vsweep[0] + r->vsweep[1] * r->vsweep[1] + r->vsweep[2] * r->vsweep[2]);
        r->travel = speed * h;
        /* (a sphere sweeps the same space however it spins) */
        double so[3];
        tpWorld_ShapeSpin(w, i, om, so);
        double spin = sqrt(so[0] * so[0] + so[1] * so[1] + so[2] * so[2]);
        if ((speed + spin * r->radius) * h <= TP_SWEEP_MIN)
            continue;
        inflate_geom(w, i, r->inflate);
        sweep_pose(w, i, h, 1.0);
        r->sweep_stamp = w->stamp;
        w->fast[nfast++] = i;
    }
    w->run[0] = w->run[1] = w->npend;
    w->nrun = 1;
    if (nfast == 0)
        return h;
    w->npairs = 0;
    /* Only pairs with a fast body matter: with few fast bodies, test just theirs against the space
     * (the same pairs, a pair of two fast bodies twice; sorted, so the order is the same) */
    if (4 * nfast <= dSpaceGetNumGeoms(w->space)) {
        for (int f = 0; f < nfast; f++)
            collide_space(w, w->fast[f]);
    } else {
        dSpaceCollide(w->space, w, near_callback);
    }
    /* A body that travels further than its own thickness in the substep may pass something its
     * end pose no longer overlaps (a thin wall): its geom meets the space at poses one thickness
     * apart along the sweep too, for the candidate pairs. */
    for (int f = 0; f < nfast; f++) {
        const int i = w->fast[f];
        const tpBodyRt *r = &w->rt[i];
        if (!(r->thickness > 0.0))
            continue;
        int k = (int)ceil(r->travel / r->thickness);
        if (k > TP_SWEEP_SAMPLES_MAX)
            k = TP_SWEEP_SAMPLES_MAX;
        for (int j = 1; j < k; j++) {
            sweep_pose(w, i, h, (double)j / k);
            collide_space(w, i);
        }
        if (k > 1)
            sweep_pose(w, i, h, 1.0);
    }
    sort_keys(w->pairs, w->npairs);
    const int first = w->npend;
    for (int p = 0; p < w->npairs; p++) {
        if (p > 0 && w->pairs[p] == w->pairs[p - 1])
            continue;
        int a = (int)(w->pairs[p] >> 32), b = (int)(w->pairs[p] & 0xffffffffu);
        const tpBodyRt *ra = &w->rt[a], *rb = &w->rt[b];
        const bool fa = ra->sweep_stamp == w->stamp && ra->body != NULL;
        const bool fb = rb->sweep_stamp == w->stamp && rb->body != NULL;
        if (!fa && !fb)
            continue; /* neither is fast: its contacts, if any, are the real ones */
        /* A touching pair still gets speculative contacts where it has none yet: the far rim of
         * a rocking cylinder comes down while its near rim touches. */
        const tpTouch *touch = find_touching(w, w->pairs[p]);
        const double near = TP_SPECULATIVE_NEAR * (ra->radius > rb->radius ? ra->radius : rb->radius);
        /* A pair apart at the end of the sweep may still have met on the way: a body that crossed
         * static geometry thinner than its travel (a ball through a 5 mm wall at 500 m/s). Two moving
         * bodies apart at the end are left to the next substep (the swept pose is where they are
         * going; sampling their near misses changed pool's cut shots and solved no tunnelling). */
        int n = collide_pair(w, ra, rb);
        if (n <= 0 && ra->body != NULL && rb->body != NULL)
            continue;
        int nfirst = 0;
        const double f = sweep_samples(w, a, b, fa, fb, h, &n, &nfirst);
        if (n <= 0)
            continue;
        /* the first overlapping pose's contacts, then (f < 1) the end pose's that they do not hold:
           a box pivoting on the edge that met a bowl first swings its far corners into it by the end
           of the substep (14 mm at 1 substep, unseen: nothing surprised the box, its motion was free) */
        const int from = w->npend;
        int r = 0;
        for (int k = 0; k < n && r >= 0; k++)
            r = speculate_contact(w, a, b, fa, fb, &w->cgeoms[k], k < nfirst ? f : 1.0, h, split, touch, near,
                                  k < nfirst ? -1 : from, &first_bounce);
        if (r < 0)
            break; /* out of memory: the step fails */
    }
    for (int f = 0; f < nfast; f++) {
        inflate_geom(w, w->fast[f], 0.0);
        if (w->rt[w->fast[f]].part0 >= 0)
            tpCompound_ResetOffsets(w, w->fast[f]); /* the parts on their body-frame offsets again */
        else
            dGeomClearOffset(w->rt[w->fast[f]].geom); /* the geom follows its body's pose exactly again */
    }
    w->run[1] = w->npend;
    w->speculative += w->npend - first;
    return first_bounce;
}

/* Creates the substep's contact joints for a substep of h s (friction direction from the current
 * velocities); the speculative ones get a feedback record, so that those the solver used count as
 * touching. */
void tpContacts_CreateJoints(tpWorld *w, double h)
{
    int nspec = 0;
    predict_free_motion(w, h);
    for (int k = 0; k < w->npend; k++) {
        tpPendingContact *p = &w->pend[k];
        if (w->nasleep > 0 && tpContacts_Dormant(w, p))
            continue; /* between sleepers and static geometry: nothing to solve */
        /* a sleeping body takes part as static geometry (ODE would wake a disabled body that a
         * joint attaches to an enabled one) */
        dBodyID ba = w->rt[p->a].asleep ? NULL : w->rt[p->a].body, bb = w->rt[p->b].asleep ? NULL : w->rt[p->b].body;
        dContact c = p->c;
        if (w->inelastic) {
            /* the phases of a Poisson solve: the bounce comes as a force (rest_f), and no overlap is
               pushed out (ODE's ERP term, erp depth / h, is a velocity the compression force would
               carry into the restitution: 95 % more energy in a row of balls at a 2.5 ms cut) */
            c.surface.mode &= ~dContactBounce;
            if (p->spec_bounce)
                c.surface.motionN = -p->gap / h;
            if (c.geom.depth > 0.0)
                c.geom.depth = 0.0;
        }
        if (c.geom.depth < 0.0) {
            /* a feature a hair apart (plane_collide.c's slop): it may close its gap within the
               substep and no more, as a speculative contact does; ODE reads a negative depth as 0 */
            if (!(c.surface.mode & dContactMotionN)) {
                c.surface.mode |= dContactMotionN;
                c.surface.motionN = 0.0;
            }
            c.surface.motionN += c.geom.depth / h;
            c.geom.depth = 0.0;
        }
        friction_direction(&w->rt[p->a], &w->rt[p->b], ba, bb, w->def.friction_cone, &c);
        dJointID j = dJointCreateContact(w->world, w->group, &c);
        dJointAttach(j, ba, bb);
        if (w->feedback_all) {
            memset(&w->feedback[k], 0, sizeof w->feedback[k]);
            dJointSetFeedback(j, &w->feedback[k]);
        } else if (p->speculative) {
            memset(&w->feedback[nspec], 0, sizeof w->feedback[nspec]);
            dJointSetFeedback(j, &w->feedback[nspec++]);
        }
    }
}

/* After the solve: the speculative contacts pend[from .. to) that pushed (the bodies met within
 * the substep) join the touching record, at depth 0; they come in pair order. nspec counts the
 * speculative contacts before `from` (their feedback records come first). */
static int record_run(tpWorld *w, int from, int to, int nspec)
{
    const int first = w->ninfos;
    for (int k = from; k < to; k++) {
        const tpPendingContact *p = &w->pend[k];
        if (!p->speculative || (w->nasleep > 0 && tpContacts_Dormant(w, p)))
            continue; /* (a dormant contact made no joint, so it has no feedback record) */
        const dJointFeedback *f = &w->feedback[nspec++];
        if (f->f1[0] == 0 && f->f1[1] == 0 && f->f1[2] == 0 && f->f2[0] == 0 && f->f2[1] == 0 && f->f2[2] == 0)
            continue;
        if (w->ninfos > first && w->infos[w->ninfos - 1].a == p->a && w->infos[w->ninfos - 1].b == p->b)
            continue; /* this pair's earlier contact is recorded */
        if (!reserve_infos(w, w->ninfos + 1)) {
            tpLog(TP_LOG_ERROR, "physics: out of memory for the contact record");
            return nspec;
        }
        tpContactInfo *info = &w->infos[w->ninfos++];
        info->a = p->a;
        info->b = p->b;
        memcpy(info->pos, p->c.geom.pos, sizeof info->pos);
        info->depth = 0.0;
        info->max_depth = 0.0;
    }
    if (first > 0 && w->ninfos > first)
        merge_infos(w, first);
    return nspec;
}

/* The swept pass's and each discovery round's contacts are runs, each in pair order. */
void tpContacts_Record(tpWorld *w)
{
    int nspec = 0;
    for (int r = 0; r < w->nrun; r++)
        nspec = record_run(w, w->run[r], w->run[r + 1], nspec);
}

/* A body the solve changed more than its free motion would (|dv| h + |d omega| r h beyond
 * TP_SWEEP_MIN): something hit it within the substep. */
static bool is_surprise(const tpWorld *w, int k, double h)
{
    const int i = w->state_body[k];
    const tpBodyRt *r = &w->rt[i];
    const dReal *v = dBodyGetLinearVel(r->body), *om = dBodyGetAngularVel(r->body);
    const double *om0 = w->sub0[k].angvel;
    double dv = 0.0, dw = 0.0;
    for (int c = 0; c < 3; c++) {
        dv += (v[c] - r->vfree[c]) * (v[c] - r->vfree[c]);
        dw += (om[c] - om0[c]) * (om[c] - om0[c]);
    }
    return (sqrt(dv) + sqrt(dw) * r->radius) * h > TP_SWEEP_MIN;
}

/* The start-pose point of body i whose end pose holds p1 (state bodies: from the substep's start
 * state; scripted bodies: back by their velocities), into out; *disp gets the point's travel. */
static void point_at_start(const tpWorld *w, int i, double h, const dReal *p1, double out[3], double disp[3])
{
    const tpBodyRt *r = &w->rt[i];
    if (r->body == NULL) { /* static */
        memcpy(out, p1, 3 * sizeof(double));
        disp[0] = disp[1] = disp[2] = 0.0;
        return;
    }
    const dReal *c1 = dBodyGetPosition(r->body), *q1 = dBodyGetQuaternion(r->body);
    double c0[3], q0[4];
    if (r->state_slot >= 0) {
        memcpy(c0, w->sub0[r->state_slot].pos, sizeof c0);
        memcpy(q0, w->sub0[r->state_slot].quat, sizeof q0);
    } else {
        const dReal *v = dBodyGetLinearVel(r->body);
        for (int k = 0; k < 3; k++)
            c0[k] = c1[k] - h * v[k];
        memcpy(q0, q1, sizeof q0);
    }
    /* d0 = R0 R1^T (p1 - c1): rotate by q0 * conj(q1) */
    double d[3] = {p1[0] - c1[0], p1[1] - c1[1], p1[2] - c1[2]};
    const double qc[4] = {q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3],
                          -q0[0] * q1[1] + q0[1] * q1[0] - q0[2] * q1[3] + q0[3] * q1[2],
                          -q0[0] * q1[2] + q0[1] * q1[3] + q0[2] * q1[0] - q0[3] * q1[1],
                          -q0[0] * q1[3] - q0[1] * q1[2] + q0[2] * q1[1] + q0[3] * q1[0]};
    dVector3 dr;
    dQuaternion qq = {qc[0], qc[1], qc[2], qc[3]};
    dMatrix3 R;
    dQtoR(qq, R);
    dMultiply0_331(dr, R, d);
    for (int k = 0; k < 3; k++) {
        disp[k] = p1[k] - (c0[k] + dr[k]);
        /* a sphere's surface point under a contact moves with its centre (see sweep_back) */
        out[k] = w->bodies[i].shape == TP_SHAPE_SPHERE ? p1[k] - (c1[k] - c0[k]) : c0[k] + dr[k];
    }
}

/* Moving body i's centre at the substep's start (state bodies: the start state; scripted bodies:
 * back by their velocity), into out. */
static void start_centre(const tpWorld *w, int i, double h, double out[3])
{
    const tpBodyRt *r = &w->rt[i];
    const dReal *c1 = dBodyGetPosition(r->body), *v = dBodyGetLinearVel(r->body);
    for (int k = 0; k < 3; k++)
        out[k] = r->state_slot >= 0 ? w->sub0[r->state_slot].pos[k] : c1[k] - h * v[k];
}

/* Speculative contacts only see what a body's free motion approaches. A die slammed onto the floor
 * by another die landing on it moves where its own sweep never went, within the same substep (9 mm
 * into the floor in one 1/360 s substep). So after the solve, the bodies it surprised are
 * collided at their end poses against pairs that had no contact in it; a pair found deeper than
 * TP_DISCOVER_DEPTH gets contacts that let it close its start gap and no more, and the substep is
 * solved again from its start (step.c, at most TP_DISCOVER_ROUNDS times). Returns whether any
 * contact was added. Deterministic: a function of the substep's start state. */
bool tpContacts_Discover(tpWorld *w, double h)
{
    w->npairs = 0;
    int nsurprised = 0;
    for (int k = 0; k < w->nstate; k++) {
        tpBodyRt *r = &w->rt[w->state_body[k]];
        r->surprised = !r->asleep && is_surprise(w, k, h);
        nsurprised += r->surprised;
    }
    if (nsurprised == 0)
        return false;
    /* The candidate pairs of the surprised bodies against the space. With many of them (a pyramid
     * settling: 210 bodies, each tested against the space one by one, cost more than the rest of
     * the step before its solve) one pass over the space finds the same pairs: those with a
     * surprised body are kept, and sorted they are in the same order (as the swept pass does). */
    if (4 * nsurprised <= dSpaceGetNumGeoms(w->space)) {
        for (int k = 0; k < w->nstate; k++)
            if (w->rt[w->state_body[k]].surprised)
                collide_space(w, w->state_body[k]);
    } else {
        dSpaceCollide(w->space, w, near_callback);
        int kept = 0;
        for (int p = 0; p < w->npairs; p++) {
            const int a = (int)(w->pairs[p] >> 32), b = (int)(w->pairs[p] & 0xffffffffu);
            if ((w->rt[a].state_slot >= 0 && w->rt[a].surprised) || (w->rt[b].state_slot >= 0 && w->rt[b].surprised))
                w->pairs[kept++] = w->pairs[p];
        }
        w->npairs = kept;
    }
    if (w->npairs == 0)
        return false;
    sort_keys(w->pairs, w->npairs);
    const int first = w->npend;
    for (int p = 0; p < w->npairs; p++) {
        if (p > 0 && w->pairs[p] == w->pairs[p - 1])
            continue;
        /* a pair counts where it went deeper than it started and it had no contact, real or
         * speculative (a die's corner driven in beside the four contacts its face had; a die
         * slammed into the floor by another, beside the one corner its sweep foresaw) */
        const tpTouch *touch = find_touching(w, w->pairs[p]);
        const double base = (touch != NULL ? touch->deepest : 0.0) + TP_DISCOVER_DEPTH;
        int a = (int)(w->pairs[p] >> 32), b = (int)(w->pairs[p] & 0xffffffffu);
        const tpBodyRt *ra = &w->rt[a], *rb = &w->rt[b];
        const double near = TP_SPECULATIVE_NEAR * (ra->radius > rb->radius ? ra->radius : rb->radius);
        int n = collide_pair(w, ra, rb);
        double deepest = 0.0;
        for (int k = 0; k < n; k++)
            deepest = w->cgeoms[k].depth > deepest ? w->cgeoms[k].depth : deepest;
        if (!(deepest > base))
            continue;
        sort_contacts(w->cgeoms, n);
        for (int k = 0; k < n; k++) {
            const dContactGeom *g = &w->cgeoms[k];
            if (touch != NULL && !(g->depth > base))
                continue;
            double pa[3], pb[3], da[3], db[3];
            point_at_start(w, a, h, g->pos, pa, da);
            point_at_start(w, b, h, g->pos, pb, db);
            const double *p0 = ra->body != NULL ? pa : pb;
            const double *nm = near_must_match(w, a, b, g->normal);
            if ((touch != NULL && near_contact(w, touch, p0, nm, near)) ||
                near_speculative(w, w->pairs[p], p0, nm, near))
                continue;
            /* the depth grew by the points' approach along the normal (which separates a) */
            double approach = 0.0;
            for (int c = 0; c < 3; c++)
                approach += (db[c] - da[c]) * g->normal[c];
            double gap = approach - g->depth;
            if (gap < 0.0)
                gap = 0.0;
            dContact c = base_contact(w, a, b);
            c.geom = *g;
            c.geom.depth = 0.0;
            if (ra->body != NULL && rb->body != NULL) {
                double csa[3], csb[3];
                start_centre(w, a, h, csa);
                start_centre(w, b, h, csb);
                pair_point(w, a, b, csa, csb, pa, pb, g->normal, c.geom.pos);
            } else {
                for (int q = 0; q < 3; q++)
                    c.geom.pos[q] = ra->body != NULL ? pa[q] : pb[q];
            }
            c.surface.mode |= dContactMotionN;
            c.surface.motionN = -gap / h;
            if (!push_pending(w, &c, a, b, true))
                break; /* out of memory: the step fails */
            w->pend[w->npend - 1].gap = gap;
            w->pend[w->npend - 1].discovered = true;
        }
    }
    w->discovered += w->npend - first;
    if (w->npend == first)
        return false;
    w->run[++w->nrun] = w->npend;
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Restitution in impact chains (step.c runs the two solves)                                   */

/* ODE's restitution is Newton's, per contact: the solve must separate each bouncing contact at e
 * times the speed it approached with. One ball off the floor, that is exact; in a chain -- a ball
 * into a row of balls 1 mm apart, a pool break -- the targets of several contacts solved together
 * are met by momentum the row did not have: five balls at e = 1 ended with 12.7 % more kinetic
 * energy than they started with. Poisson's restitution cannot do that: solve the impact
 * inelastically (the compression impulses P), then push every bouncing contact apart with e P
 * and solve again. For frictionless contacts the energy after is the inelastic energy plus e^2
 * times what the compression took, never more than before (equal at e = 1); the second solve,
 * inelastic too, can only take energy away. Substeps whose bounces involve no chain keep
 * Newton's exact single-contact bounce. */

/* Contact k bounces in this solve: a speculative contact given a bounce-out target, or a real
 * contact with restitution whose approach (at the bodies' current, start-of-substep velocities)
 * is faster than its bounce velocity (what ODE's own test is). */
static bool contact_bounces(const tpWorld *w, const tpPendingContact *p)
{
    if (p->discovered) /* an impact within the substep that no sweep foresaw (a ball pushed into the next) */
        return w->surfaces[w->bodies[p->a].material * w->def.nmaterials + w->bodies[p->b].material].bounce > 0.0;
    if (p->speculative)
        return p->spec_bounce;
    if (!(p->c.surface.mode & dContactBounce))
        return false;
    const dReal *pos = p->c.geom.pos, *n = p->c.geom.normal;
    dBodyID a = w->rt[p->a].asleep ? NULL : w->rt[p->a].body, b = w->rt[p->b].asleep ? NULL : w->rt[p->b].body;
    dVector3 va = {0, 0, 0}, vb = {0, 0, 0};
    if (a != NULL)
        dBodyGetPointVel(a, pos[0], pos[1], pos[2], va);
    if (b != NULL)
        dBodyGetPointVel(b, pos[0], pos[1], pos[2], vb);
    const double vn = (va[0] - vb[0]) * n[0] + (va[1] - vb[1]) * n[1] + (va[2] - vb[2]) * n[2];
    return -vn > p->c.surface.bounce_vel;
}

/* A body that takes part in the solve as a moving body (awake, dynamic). */
static bool simulated(const tpBodyRt *r)
{
    return r->body != NULL && !r->asleep && !r->kinematic;
}

/* Each body's moving partners in w->pend (pend entries against a body with an ODE body: dynamic,
 * scripted or asleep): the first one (partner, -1 none) and whether there is another (partners2),
 * so that "touches a moving body other than x" is a look-up, not a pass over the contacts. */
static void note_partners(tpWorld *w)
{
    for (int k = 0; k < w->npend; k++) {
        const tpPendingContact *p = &w->pend[k];
        w->rt[p->a].partner = w->rt[p->b].partner = -1;
        w->rt[p->a].partners2 = w->rt[p->b].partners2 = false;
    }
    for (int k = 0; k < w->npend; k++) {
        const tpPendingContact *p = &w->pend[k];
        for (int side = 0; side < 2; side++) {
            tpBodyRt *r = &w->rt[side == 0 ? p->a : p->b];
            const int other = side == 0 ? p->b : p->a;
            if (w->rt[other].body == NULL)
                continue;
            if (r->partner < 0)
                r->partner = other;
            else if (r->partner != other)
                r->partners2 = true;
        }
    }
}

/* A simulated body touches a moving body other than `other` (note_partners first). */
static bool touches_another(const tpWorld *w, int body, int other)
{
    const tpBodyRt *r = &w->rt[body];
    if (r->body == NULL || r->asleep || r->kinematic)
        return false;
    return r->partners2 || (r->partner >= 0 && r->partner != other);
}

bool tpContacts_NeedPoisson(tpWorld *w)
{
    bool chain = false;
    for (int k = 0; k < w->nstate; k++)
        w->rt[w->state_body[k]].in_chain = false;
    note_partners(w);
    for (int k = 0; k < w->npend; k++) {
        tpPendingContact *p = &w->pend[k];
        p->bounces = !(w->nasleep > 0 && tpContacts_Dormant(w, p)) && contact_bounces(w, p);
        if (p->bounces && !chain)
            chain = touches_another(w, p->a, p->b) || touches_another(w, p->b, p->a);
        if (p->bounces) {
            w->rt[p->a].in_chain = simulated(&w->rt[p->a]);
            w->rt[p->b].in_chain = simulated(&w->rt[p->b]);
        }
    }
    if (!chain)
        return false;
    /* the chain: every simulated body connected to a bouncing contact through contacts between
       simulated bodies (what an impact's momentum can reach within the solve) */
    for (bool grew = true; grew;) {
        grew = false;
        for (int k = 0; k < w->npend; k++) {
            const tpPendingContact *p = &w->pend[k];
            tpBodyRt *a = &w->rt[p->a], *b = &w->rt[p->b];
            if (a->in_chain != b->in_chain && simulated(a) && simulated(b)) {
                a->in_chain = b->in_chain = true;
                grew = true;
            }
        }
    }
    return true;
}

int tpContacts_RestitutionForces(tpWorld *w)
{
    int count = 0;
    for (int k = 0; k < w->npend; k++) {
        tpPendingContact *p = &w->pend[k];
        p->rest_f = 0.0;
        if (!p->bounces)
            continue;
        /* the joint's force on its first body (a, or b when a takes part as static geometry)
           along the normal, which pushes a away from b */
        const dJointFeedback *f = &w->feedback[k];
        const bool a_sim = w->rt[p->a].body != NULL && !w->rt[p->a].asleep;
        const dReal *n = p->c.geom.normal;
        const double fa = a_sim ? f->f1[0] * n[0] + f->f1[1] * n[1] + f->f1[2] * n[2]
                                : -(f->f1[0] * n[0] + f->f1[1] * n[1] + f->f1[2] * n[2]);
        if (!(fa > 0.0))
            continue;
        const tpSurface *sf = &w->surfaces[w->bodies[p->a].material * w->def.nmaterials + w->bodies[p->b].material];
        p->rest_f = sf->bounce * fa;
        count++;
    }
    return count;
}

/* ------------------------------------------------------------------------------------------ */
/* Sleeping (step.c decides who sleeps; docs/physics.md "Sleeping")                           */

/* A sleeper touched by a body that stirs (scripted, acted on, moving faster than sleep_speed at
 * the substep's start, or itself woken) wakes, and so in turn do the sleepers it touches: the
 * whole group in contact is simulated together. A speculative contact comes from a fast or
 * surprised body, so it always wakes. A still awake body only leans on a sleeper (which then acts
 * as static geometry): two bodies at rest side by side fall asleep in turn instead of waking each
 * other forever. Deterministic: a function of the substep's contacts and the state. */
bool tpContacts_Wake(tpWorld *w)
{
    bool any = false, changed = w->nasleep > 0;
    while (changed) {
        changed = false;
        for (int k = 0; k < w->npend && w->nasleep > 0; k++) {
            const tpPendingContact *p = &w->pend[k];
            tpBodyRt *a = &w->rt[p->a], *b = &w->rt[p->b];
            if (a->asleep == b->asleep)
                continue; /* both asleep, or both awake */
            tpBodyRt *s = a->asleep ? a : b, *o = a->asleep ? b : a;
            if (o->body == NULL || !(o->stirs || p->speculative))
                continue;
            tpWorld_Wake(w, s);
            changed = any = true;
        }
        if (w->def.njoints > 0 && w->nasleep > 0 && tpJoints_Wake(w))
            changed = any = true;
    }
    return any;
}
