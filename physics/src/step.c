/* tplan physics: the pure Sim step, canonical collision handling and snapshots.
 *
 * Purity recipe (GUIDE.md, "Sim must be a pure function"): restore every dynamic body from x
 * (which also rebuilds ODE's rotation matrix from q), set kinematic bodies from t, generate
 * contacts in an order that depends only on body indices and contact positions, reset ODE's
 * random seed, step, read back. Nothing here allocates unless a scene produces more candidate
 * pairs than ever before. */
#include "physics_testing.h"
#include "world_internal.h"

#include "tp/base.h"
#include "tp/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(tpBodyState) == 13 * sizeof(double), "tpBodyState must be 13 packed doubles");

/* ------------------------------------------------------------------------------------------ */
/* Kinematic motion                                                                            */

/* Leg j of a waypoint schedule: from stop *from to stop *to, taking *dur s. Legs per period:
 * ONCE n-1, CYCLE n, PINGPONG 2(n-1). */
static void tpWaypointLeg(const tpMotionDef *m, int j, int *from, int *to, double *dur)
{
    const int n = m->npoints;
    if (m->loop == TP_LOOP_PINGPONG && j >= n - 1) {
        int r = j - (n - 1); /* backwards: n-1 -> n-2 -> ... -> 0 */
        *from = n - 1 - r;
        *to = n - 2 - r;
        *dur = m->leg_time[*to];
        return;
    }
    *from = j;
    *to = (j + 1) % n;
    *dur = m->leg_time[j];
}

/* Pose and velocity of a waypoint motion at t (out holds p0 and q0 on entry). */
static void tpWaypointsAt(const tpBodyDef *b, double t, tpBodyState *out)
{
    const tpMotionDef *m = &b->motion;
    const int n = m->npoints;
    const int legs = m->loop == TP_LOOP_ONCE ? n - 1 : m->loop == TP_LOOP_CYCLE ? n : 2 * (n - 1);
    double period = 0;
    for (int j = 0; j < legs; j++) {
        int a, c;
        double d;
        tpWaypointLeg(m, j, &a, &c, &d);
        period += m->pause + d;
    }
    double tau = t > 0 ? t : 0;
    double p[4], v[4] = {0, 0, 0, 0};
    memcpy(p, m->points[m->loop == TP_LOOP_ONCE ? n - 1 : 0], sizeof p);
    if (m->loop != TP_LOOP_ONCE)
        tau = fmod(tau, period);
    if (m->loop != TP_LOOP_ONCE || tau < period) {
        for (int j = 0; j < legs; j++) {
            int a, c;
            double d;
            tpWaypointLeg(m, j, &a, &c, &d);
            if (tau < m->pause) {
                memcpy(p, m->points[a], sizeof p);
                break;
            }
            tau -= m->pause;
            if (tau < d) {
                double u = tau / d;
                for (int k = 0; k < 4; k++) {
                    p[k] = m->points[a][k] + u * (m->points[c][k] - m->points[a][k]);
                    v[k] = (m->points[c][k] - m->points[a][k]) / d;
                }
                break;
            }
            tau -= d;
            memcpy(p, m->points[c], sizeof p); /* reached the stop (rounding at the very end) */
        }
    }
    for (int k = 0; k < 3; k++) {
        out->pos[k] = b->pos[k] + p[k];
        out->vel[k] = v[k];
    }
    /* yaw about world z applied to the initial orientation: q = rz(yaw) * q0 */
    const double c = cos(0.5 * p[3]), s = sin(0.5 * p[3]);
    const double *q = b->quat;
    out->quat[0] = c * q[0] - s * q[3];
    out->quat[1] = c * q[1] - s * q[2];
    out->quat[2] = c * q[2] + s * q[1];
    out->quat[3] = c * q[3] + s * q[0];
    out->angvel[2] = v[3];
}

/* One call of a FUNCTION body's host function. False after an error (this one or an earlier
 * one of any body: the first is kept in w->motion_error, which later calls do not overwrite). */
bool tpWorld_CallMotion(const tpWorld *w, int body, double t, tpBodyState *out)
{
    const tpBodyDef *b = &w->bodies[body];
    if (w->motion_error[0])
        return false;
    tpBodyState s;
    memset(&s, 0, sizeof s);
    char err[TP_MOTION_ERROR_MAX - 128] = "";
    bool ok = b->motion.fn(b->motion.user, b->motion.fn_id, t, &s, err, sizeof err);
    if (ok && !tpWorld_StateInRange(&s)) {
        /* the host checks what its function returns; this guards other hosts */
        tpErrorf(err, sizeof err, "motion function returned a pose or velocity out of range");
        ok = false;
    }
    if (!ok) {
        tpErrorf(w->motion_error, TP_MOTION_ERROR_MAX, "%s (body '%s', t = %g s)", err[0] ? err : "motion error",
                 b->name, t);
        return false;
    }
    *out = s;
    return true;
}

void tpWorld_MotionAt(const tpWorld *w, int body, double t, tpBodyState *out)
{
    const tpBodyDef *b = &w->bodies[body];
    const tpMotionDef *m = &b->motion;
    memset(out, 0, sizeof *out);
    memcpy(out->pos, b->pos, sizeof out->pos);
    memcpy(out->quat, b->quat, sizeof out->quat);
    switch (m->kind) {
    case TP_MOTION_ROTATE: {
        /* World-frame spin about an axis through p0: q(t) = rot(axis, phase + rate t) * q0,
         * the position stays p0. */
        const double *a = w->rt[body].axis;
        double ang = m->phase + m->rate * t;
        double c = cos(0.5 * ang), s = sin(0.5 * ang);
        double r[4] = {c, s * a[0], s * a[1], s * a[2]};
        const double *q = b->quat;
        out->quat[0] = r[0] * q[0] - r[1] * q[1] - r[2] * q[2] - r[3] * q[3];
        out->quat[1] = r[0] * q[1] + r[1] * q[0] + r[2] * q[3] - r[3] * q[2];
        out->quat[2] = r[0] * q[2] - r[1] * q[3] + r[2] * q[0] + r[3] * q[1];
        out->quat[3] = r[0] * q[3] + r[1] * q[2] - r[2] * q[1] + r[3] * q[0];
        for (int k = 0; k < 3; k++)
            out->angvel[k] = m->rate * a[k];
        break;
    }
    case TP_MOTION_LINEAR:
        for (int k = 0; k < 3; k++) {
            out->pos[k] = b->pos[k] + m->vel[k] * t;
            out->vel[k] = m->vel[k];
        }
        break;
    case TP_MOTION_OSCILLATE: {
        double omega = 2.0 * TP_PI / m->period;
        double s = sin(omega * t + m->phase), c = cos(omega * t + m->phase);
        for (int k = 0; k < 3; k++) {
            out->pos[k] = b->pos[k] + m->amplitude[k] * s;
            out->vel[k] = m->amplitude[k] * omega * c;
        }
        break;
    }
    case TP_MOTION_WAYPOINTS:
        tpWaypointsAt(b, t, out);
        break;
    case TP_MOTION_FUNCTION:
        tpWorld_CallMotion(w, body, t, out); /* after an error: the definition's pose, at rest */
        break;
    case TP_MOTION_TACTIC:
        break;
    }
}

static void tpSetBody(dBodyID body, const tpBodyState *s)
{
    dBodySetPosition(body, s->pos[0], s->pos[1], s->pos[2]);
    dBodySetQuaternion(body, s->quat);
    dBodySetLinearVel(body, s->vel[0], s->vel[1], s->vel[2]);
    dBodySetAngularVel(body, s->angvel[0], s->angvel[1], s->angvel[2]);
}

static void tpGetBody(dBodyID body, tpBodyState *s)
{
    memcpy(s->pos, dBodyGetPosition(body), sizeof s->pos);
    memcpy(s->quat, dBodyGetQuaternion(body), sizeof s->quat);
    memcpy(s->vel, dBodyGetLinearVel(body), sizeof s->vel);
    memcpy(s->angvel, dBodyGetAngularVel(body), sizeof s->angvel);
}

static void tpSetKinematic(tpWorld *w, double t)
{
    for (int k = 0; k < w->nkinematic; k++) {
        tpBodyState s;
        int i = w->kin_body[k];
        tpWorld_MotionAt(w, i, t, &s);
        tpSetBody(w->rt[i].body, &s);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Canonical collisions                                                                        */

/* Room for n contact infos (and the merge scratch); keeps the contents. */
static bool tpReserveInfos(tpWorld *w, int n)
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

bool tpWorld_GrowPairs(tpWorld *w, int cap)
{
    if (cap <= w->cap_pairs)
        return true;
    uint64_t *p = realloc(w->pairs, (size_t)cap * sizeof *p);
    if (p == NULL)
        return false;
    w->pairs = p;
    w->cap_pairs = cap;
    return true;
}

/* Broad phase only: records the candidate pair under its canonical key. The space hands pairs
 * over in an order that depends on its history, so nothing is decided here. */
static void tpNearCallback(void *data, dGeomID g1, dGeomID g2)
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
    if (w->npairs == w->cap_pairs && !tpWorld_GrowPairs(w, 2 * w->cap_pairs)) {
        tpLog(TP_LOG_ERROR, "physics: out of memory for collision pairs");
        abort();
    }
    w->pairs[w->npairs++] = ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

/* Heap sort: in place, no allocation, O(n log n) whatever the space's order was. The keys are
 * unique, so stability does not matter. */
static void tpSiftDown(uint64_t *v, int start, int n)
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

static void tpSortKeys(uint64_t *v, int n)
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
        tpSiftDown(v, i, n);
    for (int end = n - 1; end > 0; end--) {
        uint64_t tmp = v[0];
        v[0] = v[end];
        v[end] = tmp;
        tpSiftDown(v, 0, end);
    }
}

/* Total order on contacts of one pair: position, then depth, then normal. */
static int tpContactCmp(const dContactGeom *x, const dContactGeom *y)
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

static void tpSortContacts(dContactGeom *c, int n)
{
    for (int i = 1; i < n; i++) {
        dContactGeom key = c[i];
        int j = i - 1;
        while (j >= 0 && tpContactCmp(&c[j], &key) > 0) {
            c[j + 1] = c[j];
            j--;
        }
        c[j + 1] = key;
    }
}

/* ODE's friction is a pyramid: the two tangent directions are limited independently (and
 * rolling resistance acts about each of them independently), so a body sliding or rolling
 * diagonally to them is braked unevenly and its path bends toward an axis (a kicked ball
 * curved by 0.1 rad over 3 m). Aligning the first friction direction with the sliding velocity
 * at the contact -- or, while rolling, with the bodies' relative velocity -- makes friction and
 * rolling resistance oppose the motion exactly, as an isotropic (cone) law does.
 * Deterministic: a function of the restored state only. */
static bool tpTangent(const dReal *nrm, double v[3])
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

static void tpFrictionDirection(dBodyID a, dBodyID b, dContact *c)
{
    const dReal *p = c->geom.pos, *nrm = c->geom.normal;
    dVector3 va = {0, 0, 0}, vb = {0, 0, 0};
    if (a != NULL)
        dBodyGetPointVel(a, p[0], p[1], p[2], va);
    if (b != NULL)
        dBodyGetPointVel(b, p[0], p[1], p[2], vb);
    double v[3] = {va[0] - vb[0], va[1] - vb[1], va[2] - vb[2]};
    if (!tpTangent(nrm, v)) {
        const dReal *la = a != NULL ? dBodyGetLinearVel(a) : NULL, *lb = b != NULL ? dBodyGetLinearVel(b) : NULL;
        for (int i = 0; i < 3; i++)
            v[i] = (la != NULL ? la[i] : 0.0) - (lb != NULL ? lb[i] : 0.0);
        if (!tpTangent(nrm, v))
            return; /* at rest relative to each other: ODE's default basis */
    }
    c->surface.mode |= dContactFDir1;
    for (int i = 0; i < 3; i++)
        c->fdir1[i] = v[i];
}

/* Merges the infos appended by a later substep (infos[first..ninfos), sorted by pair like the
 * earlier ones infos[0..first)) into one sorted list with each pair once; an earlier substep's
 * entry wins. */
static void tpMergeInfos(tpWorld *w, int first)
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

/* A deeper overlap with static geometry than any before in this step: its depth and its pair
 * (for tpWorld_LastFailure). */
static void tpNoteStaticDepth(tpWorld *w, int a, int b, double depth)
{
    w->static_depth = depth;
    w->static_a = a;
    w->static_b = b;
    w->static_sub = w->substep;
}

/* Deepest overlap between a stored body and static geometry at the current poses, into
 * w->static_depth; no contact joints and no touching record (it only looks). */
static void tpStaticPass(tpWorld *w)
{
    w->npairs = 0;
    dSpaceCollide(w->space, w, tpNearCallback);
    for (int p = 0; p < w->npairs; p++) {
        int a = (int)(w->pairs[p] >> 32), b = (int)(w->pairs[p] & 0xffffffffu);
        if (w->bodies[a].cls != TP_BODY_STATIC && w->bodies[b].cls != TP_BODY_STATIC)
            continue;
        int n = dCollide(w->rt[a].geom, w->rt[b].geom, w->def.max_contacts, w->cgeoms, (int)sizeof(dContactGeom));
        for (int k = 0; k < n; k++)
            if (w->cgeoms[k].depth > w->static_depth)
                tpNoteStaticDepth(w, a, b, w->cgeoms[k].depth);
    }
}

/* Collision detection for one (sub)step; keep = true adds to the touching pairs of the earlier
 * substeps of the same step instead of starting over. */
static void tpCollide(tpWorld *w, bool keep)
{
    w->npairs = 0;
    if (!keep)
        w->ninfos = 0;
    const int first = w->ninfos;
    dSpaceCollide(w->space, w, tpNearCallback);
    tpSortKeys(w->pairs, w->npairs);
    /* contacts still become joints when this fails; only the touching record is incomplete */
    const bool record = tpReserveInfos(w, first + w->npairs);
    if (!record)
        tpLog(TP_LOG_ERROR, "physics: out of memory for the contact record");

    const int nmat = w->def.nmaterials;
    for (int p = 0; p < w->npairs; p++) {
        int a = (int)(w->pairs[p] >> 32), b = (int)(w->pairs[p] & 0xffffffffu);
        const tpBodyRt *ra = &w->rt[a], *rb = &w->rt[b];
        int n = dCollide(ra->geom, rb->geom, w->def.max_contacts, w->cgeoms, (int)sizeof(dContactGeom));
        if (n <= 0)
            continue;
        tpSortContacts(w->cgeoms, n);

        const tpSurface *s = &w->surfaces[w->bodies[a].material * nmat + w->bodies[b].material];
        dContact c;
        memset(&c, 0, sizeof c);
        c.surface.mode = dContactApprox1;
        c.surface.mu = s->mu;
        if (s->bounce > 0.0) {
            c.surface.mode |= dContactBounce;
            c.surface.bounce = s->bounce;
            c.surface.bounce_vel = s->bounce_vel;
        }
        if (s->rho > 0.0) {
            /* Rolling resistance about both tangent axes; no spinning friction (rhoN = 0). */
            c.surface.mode |= dContactRolling;
            c.surface.rho = s->rho;
            c.surface.rho2 = s->rho;
            c.surface.rhoN = 0.0;
        }
        const int mode = c.surface.mode;
        for (int k = 0; k < n; k++) {
            c.geom = w->cgeoms[k];
            c.surface.mode = mode;
            tpFrictionDirection(ra->body, rb->body, &c);
            dJointID j = dJointCreateContact(w->world, w->group, &c);
            dJointAttach(j, ra->body, rb->body);
        }
        if (!record)
            continue;
        tpContactInfo *info = &w->infos[w->ninfos++];
        info->a = a;
        info->b = b;
        memcpy(info->pos, w->cgeoms[0].pos, sizeof info->pos);
        info->depth = w->cgeoms[0].depth;
        info->max_depth = 0.0;
        for (int k = 0; k < n; k++)
            info->max_depth = w->cgeoms[k].depth > info->max_depth ? w->cgeoms[k].depth : info->max_depth;
        if ((w->bodies[a].cls == TP_BODY_STATIC || w->bodies[b].cls == TP_BODY_STATIC) &&
            info->max_depth > w->static_depth)
            tpNoteStaticDepth(w, a, b, info->max_depth);
    }
    if (first > 0)
        tpMergeInfos(w, first);
}

/* ------------------------------------------------------------------------------------------ */
/* Stepping                                                                                    */

/* |v[k]| <= max for k < n, NaN failing. */
static bool tpWithin(const double *v, int n, double max)
{
    for (int k = 0; k < n; k++)
        if (!(fabs(v[k]) <= max))
            return false;
    return true;
}

/* The first entry of v[0..n) outside +-max (NaN included) into w->failure; false if none. */
static bool tpNoteOutside(tpWorld *w, tpStepValue what, const double *v, int n, double max)
{
    for (int k = 0; k < n; k++)
        if (!(fabs(v[k]) <= max)) {
            w->failure.what = what;
            w->failure.axis = k;
            w->failure.value = v[k];
            w->failure.limit = max;
            return true;
        }
    return false;
}

/* Body `body`'s state s failed tpWorld_StateInRange: which value, into w->failure (cold path). */
static void tpNoteRange(tpWorld *w, int body, const tpBodyState *s)
{
    tpStepFailure *f = &w->failure;
    f->kind = TP_STEP_OUT_OF_RANGE;
    f->a = body;
    f->substep = w->substep;
    if (tpNoteOutside(w, TP_STEP_VALUE_POSITION, s->pos, 3, TP_MAX_COORD) ||
        tpNoteOutside(w, TP_STEP_VALUE_SPEED, s->vel, 3, TP_MAX_SPEED) ||
        tpNoteOutside(w, TP_STEP_VALUE_ANGVEL, s->angvel, 3, TP_MAX_ANGVEL))
        return;
    double q2 = s->quat[0] * s->quat[0] + s->quat[1] * s->quat[1] + s->quat[2] * s->quat[2] + s->quat[3] * s->quat[3];
    f->what = TP_STEP_VALUE_QUAT;
    f->axis = -1;
    f->value = q2;
    f->limit = q2 <= 0.25 ? 0.25 : 4.0;
}

/* The state of every stored body is finite and inside the TP_MAX_* ranges (quaternions near
 * unit length): only such a state may be handed to ODE, whose quaternion normalisation aborts
 * the process on a non-finite value. On failure, the first body out of range is recorded. */
static bool tpStatesInRange(tpWorld *w)
{
    for (int k = 0; k < w->nstate; k++) {
        tpBodyState s;
        tpGetBody(w->rt[w->state_body[k]].body, &s);
        if (!tpWorld_StateInRange(&s)) {
            tpNoteRange(w, w->state_body[k], &s);
            return false;
        }
    }
    return true;
}

bool tpWorld_StateInRange(const tpBodyState *s)
{
    if (!tpWithin(s->pos, 3, TP_MAX_COORD) || !tpWithin(s->vel, 3, TP_MAX_SPEED) ||
        !tpWithin(s->angvel, 3, TP_MAX_ANGVEL))
        return false;
    double q2 = s->quat[0] * s->quat[0] + s->quat[1] * s->quat[1] + s->quat[2] * s->quat[2] + s->quat[3] * s->quat[3];
    return q2 > 0.25 && q2 < 4.0; /* NaN fails too */
}

/* Shared tail of Step and StepLive: the dynamic bodies already hold their start state.
 * False (and the world left as it is) when the action or a resulting state is out of range. */
static bool tpAdvance(tpWorld *w, double t, const double *action)
{
    size_t nact = (size_t)w->ncontrol * 6;
    if (action != NULL)
        memcpy(w->action, action, nact * sizeof(double));
    else
        memset(w->action, 0, nact * sizeof(double));
    w->live_restored = false;
    w->static_depth = 0.0;
    w->static_a = w->static_b = -1;
    w->failure = (tpStepFailure){TP_STEP_OK, -1, -1, TP_STEP_VALUE_NONE, -1, 0.0, 0.0, -1, w->def.substeps, t};
    if (!tpWithin(w->action, (int)nact, TP_MAX_FORCE)) {
        for (int k = 0; k < w->ncontrol; k++)
            if (tpNoteOutside(w, TP_STEP_VALUE_FORCE, w->action + 6 * k, 3, TP_MAX_FORCE) ||
                tpNoteOutside(w, TP_STEP_VALUE_TORQUE, w->action + 6 * k + 3, 3, TP_MAX_FORCE)) {
                w->failure.kind = TP_STEP_BAD_ACTION;
                w->failure.a = w->control_body[k];
                break;
            }
        return false;
    }
    tpWorld_ClampAction(w, w->action);

    /* Substeps continue the world without a restore in between: that is deterministic because
       every Sim call (and replay) runs the same chain from the same restored state. */
    const int ns = w->def.substeps;
    const double h = w->def.dt / ns;
    for (int s = 0; s < ns; s++) {
        w->substep = s;
        tpSetKinematic(w, t + s * h);
        /* ODE clears the accumulated forces after each step: apply the action every substep */
        for (int k = 0; k < w->nstate; k++) {
            dBodyID body = w->rt[w->state_body[k]].body;
            dBodySetForce(body, 0, 0, 0);
            dBodySetTorque(body, 0, 0, 0);
        }
        for (int k = 0; k < w->ncontrol; k++) {
            dBodyID body = w->rt[w->control_body[k]].body;
            const double *f = w->action + 6 * k;
            dBodyAddForce(body, f[0], f[1], f[2]);
            dBodyAddTorque(body, f[3], f[4], f[5]);
        }
        tpCollide(w, s > 0);

        /* dWorldQuickStep shuffles constraint rows with ODE's global generator. */
        dRandSetSeed(0);
        int ok = w->def.solver == TP_SOLVER_QUICKSTEP ? dWorldQuickStep(w->world, h) : dWorldStep(w->world, h);
        if (!ok)
            tpLog(TP_LOG_ERROR, "physics: ODE step failed (out of memory)");
        dJointGroupEmpty(w->group);
        /* Checked after every substep: a state that left the ranges never reaches ODE again. */
        if (!tpStatesInRange(w))
            return false;
    }
    /* The substeps' contacts were generated at their start poses; a scripted body (infinite
     * mass) can push a body into static geometry during the last one, so scenes with scripted
     * bodies look once more after the step. */
    if (w->nkinematic > 0 && w->def.max_static_penetration > 0) {
        w->substep = ns;
        tpSetKinematic(w, t + w->def.dt);
        tpStaticPass(w);
    }
    if (w->def.max_static_penetration <= 0 || w->static_depth <= w->def.max_static_penetration)
        return true;
    /* the moving body first: a static body has no state slot */
    bool a_static = w->rt[w->static_a].state_slot < 0;
    w->failure.kind = TP_STEP_STATIC_PENETRATION;
    w->failure.a = a_static ? w->static_b : w->static_a;
    w->failure.b = a_static ? w->static_a : w->static_b;
    w->failure.value = w->static_depth;
    w->failure.limit = w->def.max_static_penetration;
    w->failure.substep = w->static_sub;
    return false;
}

const tpStepFailure *tpWorld_LastFailure(const tpWorld *w)
{
    return &w->failure;
}

double tpWorld_StaticDepth(const tpWorld *w)
{
    return w->static_depth;
}

bool tpWorld_Step(tpWorld *w, const tpBodyState *x, double t, const double *action, tpBodyState *xnew)
{
    for (int k = 0; k < w->nstate; k++)
        tpSetBody(w->rt[w->state_body[k]].body, &x[k]);
    bool ok = tpAdvance(w, t, action);
    for (int k = 0; k < w->nstate; k++)
        tpGetBody(w->rt[w->state_body[k]].body, &xnew[k]);
    w->time = t + w->def.dt;
    if (ok && w->motion_error[0]) /* a motion function failed: nothing here is physical */
        w->failure.kind = TP_STEP_MOTION_ERROR;
    return ok && !w->motion_error[0];
}

const char *tpWorld_MotionError(const tpWorld *w)
{
    return w->motion_error;
}

bool tpWorld_StepLive(tpWorld *w, const double *action)
{
    bool ok = tpAdvance(w, w->time, action);
    w->time += w->def.dt;
    return ok;
}

double tpWorld_Time(const tpWorld *w)
{
    return w->time;
}

int tpWorld_ContactCount(const tpWorld *w)
{
    return w->ninfos;
}

const tpContactInfo *tpWorld_Contacts(const tpWorld *w)
{
    return w->infos;
}

/* ------------------------------------------------------------------------------------------ */
/* Snapshots: [time][13 doubles per state slot], native doubles, copied bytewise because the
 * caller's buffer need not be aligned.                                                        */

size_t tpWorld_SnapshotSize(const tpWorld *w)
{
    return sizeof(double) + (size_t)w->nstate * sizeof(tpBodyState);
}

void tpWorld_Snapshot(const tpWorld *w, void *buf)
{
    if (w->live_restored) {
        memcpy(buf, w->restored, tpWorld_SnapshotSize(w));
        return;
    }
    unsigned char *p = buf;
    memcpy(p, &w->time, sizeof(double));
    p += sizeof(double);
    for (int k = 0; k < w->nstate; k++) {
        tpBodyState s;
        tpGetBody(w->rt[w->state_body[k]].body, &s);
        memcpy(p, &s, sizeof s);
        p += sizeof s;
    }
}

void tpWorld_Restore(tpWorld *w, const void *buf)
{
    const unsigned char *p = buf;
    memcpy(w->restored, buf, tpWorld_SnapshotSize(w));
    w->live_restored = true;
    memcpy(&w->time, p, sizeof(double));
    p += sizeof(double);
    for (int k = 0; k < w->nstate; k++) {
        tpBodyState s;
        memcpy(&s, p, sizeof s);
        p += sizeof s;
        tpSetBody(w->rt[w->state_body[k]].body, &s);
    }
    tpSetKinematic(w, w->time);
}
