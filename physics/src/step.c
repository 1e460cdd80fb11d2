/* tplan physics: the pure Sim step (substeps, the solve and its Dantzig fallback, the
 * penetration limits) and snapshots; the contacts are contacts.c's, the scripted bodies' motion
 * and the physical ranges motion.c's.
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

static void set_body(dBodyID body, const tpBodyState *s)
{
    dBodySetPosition(body, s->pos[0], s->pos[1], s->pos[2]);
    dBodySetQuaternion(body, s->quat);
    dBodySetLinearVel(body, s->vel[0], s->vel[1], s->vel[2]);
    dBodySetAngularVel(body, s->angvel[0], s->angvel[1], s->angvel[2]);
}

static void get_body(dBodyID body, tpBodyState *s)
{
    memcpy(s->pos, dBodyGetPosition(body), sizeof s->pos);
    memcpy(s->quat, dBodyGetQuaternion(body), sizeof s->quat);
    memcpy(s->vel, dBodyGetLinearVel(body), sizeof s->vel);
    memcpy(s->angvel, dBodyGetAngularVel(body), sizeof s->angvel);
}

/* Scripted bodies at their poses at t, moving over [t, t + h] at the velocity that takes them
 * to their poses at t + h: ODE moves a kinematic body by its velocity, and contacts push by it,
 * so a lift that starts abruptly carries its crate without sinking into it (with the instant
 * velocity at t, a lift starting at t moved, but pushed as if it stood: 5.7 mm into the crate).
 * The angular velocity is the instant one. */
static void set_kinematic_over(tpWorld *w, double t, double h)
{
    for (int k = 0; k < w->nkinematic; k++) {
        tpBodyState s, e;
        int i = w->kin_body[k];
        tpWorld_MotionAt(w, i, t, &s);
        tpWorld_MotionAt(w, i, t + h, &e);
        for (int c = 0; c < 3; c++)
            s.vel[c] = (e.pos[c] - s.pos[c]) / h;
        set_body(w->rt[i].body, &s);
    }
}

static void set_kinematic(tpWorld *w, double t)
{
    for (int k = 0; k < w->nkinematic; k++) {
        tpBodyState s;
        int i = w->kin_body[k];
        tpWorld_MotionAt(w, i, t, &s);
        set_body(w->rt[i].body, &s);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Stepping                                                                                    */

/* The first entry of v[0..n) outside +-max (NaN included) into w->failure; false if none. */
static bool note_outside(tpWorld *w, tpStepValue what, const double *v, int n, double max)
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
static void note_range(tpWorld *w, int body, const tpBodyState *s)
{
    tpStepFailure *f = &w->failure;
    f->kind = TP_STEP_OUT_OF_RANGE;
    f->a = body;
    f->substep = w->substep;
    if (note_outside(w, TP_STEP_VALUE_POSITION, s->pos, 3, TP_MAX_COORD) ||
        note_outside(w, TP_STEP_VALUE_SPEED, s->vel, 3, TP_MAX_SPEED) ||
        note_outside(w, TP_STEP_VALUE_ANGVEL, s->angvel, 3, TP_MAX_ANGVEL))
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
static bool states_in_range(tpWorld *w)
{
    for (int k = 0; k < w->nstate; k++) {
        tpBodyState s;
        get_body(w->rt[w->state_body[k]].body, &s);
        if (!tpWorld_StateInRange(&s)) {
            note_range(w, w->state_body[k], &s);
            return false;
        }
    }
    return true;
}

/* The action on the controlled bodies for one substep (ODE clears the accumulated forces after
 * each step). */
static void apply_action(tpWorld *w)
{
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
    /* the restitution phase of a Poisson solve: each bouncing contact pushes its pair apart */
    for (int k = 0; k < w->npend && w->nrestitution > 0; k++) {
        const tpPendingContact *p = &w->pend[k];
        if (p->rest_f == 0.0)
            continue;
        const dReal *pos = p->c.geom.pos, *n = p->c.geom.normal;
        const tpBodyRt *ra = &w->rt[p->a], *rb = &w->rt[p->b];
        const double f = p->rest_f;
        if (ra->body != NULL && !ra->asleep && !ra->kinematic)
            dBodyAddForceAtPos(ra->body, f * n[0], f * n[1], f * n[2], pos[0], pos[1], pos[2]);
        if (rb->body != NULL && !rb->asleep && !rb->kinematic)
            dBodyAddForceAtPos(rb->body, -f * n[0], -f * n[1], -f * n[2], pos[0], pos[1], pos[2]);
    }
}

/* The degeneracy breaker of the Dantzig fallback: every contact may close in by at most this much
 * (m per substep) more, a different amount each so that no two rows tie. */
#define TP_LCP_NUDGE 1e-6

/* Puts the bodies back at the substep's start (from[k] for state slot k: w->sub0, or the start
 * poses with other velocities) and the scripted bodies at theirs (a solve moved them too), to solve
 * the substep of h s again. */
static void restart_substep(tpWorld *w, const tpBodyState *from, double h)
{
    for (int k = 0; k < w->nstate; k++)
        set_body(w->rt[w->state_body[k]].body, &from[k]);
    if (w->nkinematic > 0)
        set_kinematic_over(w, w->sub_t, h);
}

/* Stiff islands (solver "quickstep"). Projected Gauss-Seidel converges slowly where a contact
 * joins bodies of very different masses: a 100 kg box resting on a 1 kg box sank 28 mm into it and
 * 59 mm into the floor at 20 iterations, still 2.4 mm and a 5 cm drift at 400. Such an island --
 * bodies joined by the substep's contacts, any of them between two moving bodies whose masses
 * differ by TP_STIFF_MASS_RATIO or more -- is solved by ODE's Dantzig LCP (dWorldStep), exactly as
 * solver "step" would, and the rest of the world by quickstep: two ODE passes over one substep,
 * each with the other pass's bodies disabled. ODE builds its islands by walking joints from
 * enabled bodies, and these islands share no joint (a contact with static geometry or a sleeping
 * body attaches nothing), so each pass steps exactly its own bodies, once. Should that LCP give up on a
 * degenerate pivot, the substep is solved again as solver "step" does (solve_once). Islands of more than
 * TP_STIFF_MAX_CONTACTS contacts stay with quickstep (the Dantzig solve is cubic in the rows).
 * Scenes with scripted bodies keep quickstep alone (ODE moves a kinematic body in every pass it is
 * enabled in). Deterministic: which islands are stiff is a function of the substep's contacts. */
#define TP_STIFF_MASS_RATIO 10.0
#define TP_STIFF_MAX_CONTACTS 64
/* Stacks are stiff too: projected Gauss-Seidel without warm starting lets boxes of equal masses
 * resting on each other creep sideways (at 20 sweeps a 3-box stack slid 45 mm in 10 s, a 10-box
 * stack toppled at any count tried) where the Dantzig LCP holds them. An island in which moving
 * bodies stand TP_STIFF_STACK high on each other (each on the next by a contact whose normal is
 * within 45 degrees of gravity) is solved exactly, within TP_STIFF_MAX_CONTACTS. */
#define TP_STIFF_STACK 3
#define TP_STACK_COS 0.70710678118654752 /* cos 45 degrees */
/* A stack too large for the Dantzig LCP (more than TP_STIFF_MAX_CONTACTS) stays with quickstep,
 * whose sweeps carry the weight of one more layer each, roughly: without warm starting (ODE 0.16
 * keeps no impulses between steps) 20 sweeps leave a 20-row pyramid sinking and sliding until it
 * collapses (docs/physics.md "Large stacks"). So a quickstep solve in which moving bodies stand
 * TP_TALL_STACK or more high on each other, outside the islands solved exactly, runs
 * quickstep_iters sweeps per layer of its tallest such stack, at most TP_TALL_SWEEPS_MAX. The
 * height is counted up to TP_TALL_LEVELS_MAX layers (each layer one pass over the contacts). */
#define TP_TALL_STACK 4
#define TP_TALL_LEVELS_MAX 32
#define TP_TALL_SWEEPS_MAX 640

/* A body the solve moves: not static geometry, not asleep (sleepers take part as static geometry). */
static bool solved_body(const tpBodyRt *r)
{
    return r->body != NULL && !r->asleep;
}

/* Contact p joins two moving bodies whose masses differ TP_STIFF_MASS_RATIO times or more. */
static bool joins_unequal(const tpWorld *w, const tpPendingContact *p)
{
    const tpBodyRt *ra = &w->rt[p->a], *rb = &w->rt[p->b];
    return solved_body(ra) && solved_body(rb) &&
           fmax(ra->mass, rb->mass) >= TP_STIFF_MASS_RATIO * fmin(ra->mass, rb->mass);
}

/* Stack levels into level[] (per body: how many moving bodies it stands on, one on the next, up to
 * TP_TALL_LEVELS_MAX); whether a body reached TP_STIFF_STACK - 1. A function of the contacts. */
static bool find_stacks(const tpWorld *w, int32_t *level)
{
    const double *g = w->def.gravity;
    const double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    if (!(gn > 0.0))
        return false;
    for (int32_t i = 0; i < w->def.nbodies; i++)
        level[i] = 0;
    bool top = false;
    for (int pass = 0; pass < TP_TALL_LEVELS_MAX; pass++) {
        bool raised = false;
        for (int k = 0; k < w->npend; k++) {
            const tpPendingContact *p = &w->pend[k];
            const tpBodyRt *ra = &w->rt[p->a], *rb = &w->rt[p->b];
            if (!solved_body(ra) || !solved_body(rb))
                continue;
            /* a resting stack: a fast body (swept in this substep: landing, thrown) stacks nothing */
            if (ra->sweep_stamp == w->stamp || rb->sweep_stamp == w->stamp)
                continue;
            /* ODE's normal separates a along +n: a is above b when n points against gravity */
            const dReal *n = p->c.geom.normal;
            const double up = -(n[0] * g[0] + n[1] * g[1] + n[2] * g[2]) / gn;
            const int hi = up >= TP_STACK_COS ? p->a : up <= -TP_STACK_COS ? p->b : -1;
            if (hi < 0)
                continue;
            const int lo = hi == p->a ? p->b : p->a;
            if (level[lo] + 1 > level[hi] && level[lo] < TP_TALL_LEVELS_MAX) {
                level[hi] = level[lo] + 1;
                raised = true;
                top = top || level[hi] >= TP_STIFF_STACK - 1;
            }
        }
        if (!raised)
            break;
    }
    return top;
}

/* Marks w->island[i] = -1 for every body of a stiff island (the others get their island's root),
 * and returns whether there is any. An island with a joint is stiff too (its joints count against
 * TP_STIFF_MAX_CONTACTS with its contacts). w->island holds the parents, then the roots' counts. A scene of
 * equal masses (the dice) costs one scan of the contacts. */
static bool find_stiff(tpWorld *w)
{
    w->quick_height = 0;
    if (w->nkinematic > 0)
        return false;
    bool any = false;
    for (int j = 0; j < w->def.njoints && !any; j++)
        any = solved_body(&w->rt[w->joints[j].body_a]);
    for (int k = 0; k < w->npend && !any; k++)
        any = joins_unequal(w, &w->pend[k]);
    const int32_t n = w->def.nbodies;
    int32_t *parent = w->island, *count = w->island + n, *level = w->island + 2 * n;
    const bool stacks = find_stacks(w, level);
    if (!any && !stacks)
        return false;
    for (int32_t i = 0; i < n; i++)
        parent[i] = i;
    for (int k = 0; k < w->npend; k++) {
        const tpPendingContact *p = &w->pend[k];
        if (solved_body(&w->rt[p->a]) && solved_body(&w->rt[p->b]))
            tpUnion_Join(parent, p->a, p->b);
    }
    /* a joint ties its bodies into one island too: ODE would enable a disabled partner */
    for (int j = 0; j < w->def.njoints; j++) {
        const tpJointDef *jd = &w->joints[j];
        if (jd->body_b >= 0 && solved_body(&w->rt[jd->body_a]) && solved_body(&w->rt[jd->body_b]))
            tpUnion_Join(parent, jd->body_a, jd->body_b);
    }
    /* every body's root, then per root: its contact count, and bit 30 when one of them joins
       unequal masses */
    for (int32_t i = 0; i < n; i++) {
        parent[i] = tpUnion_Root(parent, i);
        count[i] = 0;
    }
    static const int32_t STIFF = 1 << 30;
    for (int k = 0; k < w->npend; k++) {
        const tpPendingContact *p = &w->pend[k];
        if (!solved_body(&w->rt[p->a]) && !solved_body(&w->rt[p->b]))
            continue;
        const int32_t r = parent[solved_body(&w->rt[p->a]) ? p->a : p->b];
        count[r]++;
        if (joins_unequal(w, p))
            count[r] |= STIFF;
    }
    if (stacks)
        for (int32_t i = 0; i < n; i++)
            if (level[i] >= TP_STIFF_STACK - 1)
                count[parent[i]] |= STIFF;
    /* and every island with a joint: PGS converges slowly on a joint's rows when a long lever meets
       a small inertia (a pendulum's bob, 20 iterations: 28 % off its period, where Dantzig is exact) */
    for (int j = 0; j < w->def.njoints; j++) {
        const tpJointDef *jd = &w->joints[j];
        const int32_t side = solved_body(&w->rt[jd->body_a])                      ? jd->body_a
                             : jd->body_b >= 0 && solved_body(&w->rt[jd->body_b]) ? jd->body_b
                                                                                  : -1;
        if (side < 0)
            continue;
        count[parent[side]]++;
        count[parent[side]] |= STIFF;
    }
    any = false;
    for (int32_t i = 0; i < n; i++) {
        const int32_t r = parent[i];
        const bool stiff = (count[r] & STIFF) && (count[r] & ~STIFF) <= TP_STIFF_MAX_CONTACTS;
        any = any || stiff;
        parent[i] = stiff ? -1 : r;                   /* read only for body i itself from here on */
        if (!stiff && level[i] + 1 > w->quick_height) /* the tallest stack left to quickstep */
            w->quick_height = level[i] + 1;
    }
    return any;
}

/* Steps the moving bodies whose island is (stiff) or is not (!stiff) stiff, with the others
 * disabled; every body enabled again after. */
static int solve_part(tpWorld *w, double h, bool stiff)
{
    for (int k = 0; k < w->nstate; k++) {
        const int i = w->state_body[k];
        const tpBodyRt *r = &w->rt[i];
        if (solved_body(r) && (w->island[i] == -1) != stiff)
            dBodyDisable(r->body);
    }
    int ok = tpOde_Solve(w->world, h, stiff);
    for (int k = 0; k < w->nstate; k++) {
        const tpBodyRt *r = &w->rt[w->state_body[k]];
        if (solved_body(r) && !dBodyIsEnabled(r->body))
            dBodyEnable(r->body);
    }
    return ok;
}

/* A joint acts in this solve (one of its bodies is solved). */
static bool jointed_solve(const tpWorld *w)
{
    for (int j = 0; j < w->def.njoints; j++)
        if (solved_body(&w->rt[w->joints[j].body_a]))
            return true;
    return false;
}

/* How a substep is solved: ODE's Dantzig LCP (solver "step"), quickstep, or quickstep with its
 * stiff islands by the Dantzig LCP (find_stiff). */
typedef enum { TP_SOLVE_QUICK, TP_SOLVE_EXACT, TP_SOLVE_MIXED } tpSolveMode;

static int solve_world(tpWorld *w, double h, tpSolveMode mode)
{
    if (w->joint_springs > 0)
        tpJoints_SetStep(w, h);
    if (mode != TP_SOLVE_MIXED)
        return tpOde_Solve(w->world, h, mode == TP_SOLVE_EXACT);
    return solve_part(w, h, false) && solve_part(w, h, true);
}

/* Puts the bodies back at the substep's start and solves it once more. */
static int resolve(tpWorld *w, double h, tpSolveMode mode)
{
    restart_substep(w, w->sub0, h);
    apply_action(w);
    tpContacts_CreateJoints(w, h);
    int ok = solve_world(w, h, mode);
    dJointGroupEmpty(w->group);
    return ok;
}

/* One solve of the substep's contacts and forces. With solver "step", ODE's Dantzig LCP gives up
 * on a degenerate problem -- rows whose slack is exactly zero where the pivoting needs it to be
 * positive, as with two boxes stacked exactly touching (both fall with g, so their relative
 * acceleration is exactly 0) -- and then leaves every force it had not solved at zero: the
 * bottom box free-fell through the floor. Such a substep is solved again from the same start
 * state, with each contact allowed to close in by a different sub-micrometre amount
 * (TP_LCP_NUDGE, through ODE's normal surface velocity), which makes every slack strictly
 * positive; should that fail too, by the iterative solver (projected Gauss-Seidel, which cannot
 * fail that way). Deterministic: whether a solve fails is a function of the state. */
static void solve_once(tpWorld *w, double h)
{
    const bool exact = w->def.solver != TP_SOLVER_QUICKSTEP;
    /* with scripted bodies the split is off (find_stiff), so joints there make the whole solve exact */
    const bool jointed = w->nkinematic > 0 && w->def.njoints > 0 && jointed_solve(w);
    const tpSolveMode mode = exact || jointed ? TP_SOLVE_EXACT : find_stiff(w) ? TP_SOLVE_MIXED : TP_SOLVE_QUICK;
    w->stiff += mode == TP_SOLVE_MIXED;
    w->stiff_solved = mode == TP_SOLVE_MIXED;
    if (mode != TP_SOLVE_EXACT) { /* a tall stack's sweeps (TP_TALL_STACK) */
        const int base = tpWorld_QuickIters(&w->def);
        int sweeps = base;
        if (w->quick_height >= TP_TALL_STACK) { /* never below base, not above the cap unless base is */
            const int64_t tall = (int64_t)base * w->quick_height;
            const int cap = base > TP_TALL_SWEEPS_MAX ? base : TP_TALL_SWEEPS_MAX;
            sweeps = tall < cap ? (int)tall : cap;
            w->tall++;
        }
        dWorldSetQuickStepNumIterations(w->world, sweeps);
    }
    unsigned long fails = mode != TP_SOLVE_QUICK ? tpOde_LcpFailures() : 0;
    apply_action(w);
    tpContacts_CreateJoints(w, h);
    int ok = solve_world(w, h, mode);
    dJointGroupEmpty(w->group);
    if (mode != TP_SOLVE_QUICK && tpOde_LcpFailures() != fails) {
        w->lcp_nudges++;
        for (int k = 0; k < w->npend; k++) {
            dContact *c = &w->pend[k].c;
            if (!(c->surface.mode & dContactMotionN)) {
                c->surface.mode |= dContactMotionN;
                c->surface.motionN = 0.0;
            }
            c->surface.motionN -= TP_LCP_NUDGE * (1.0 + (k % 16) / 16.0) / h;
        }
        fails = tpOde_LcpFailures();
        ok = resolve(w, h, mode);
        if (tpOde_LcpFailures() != fails) {
            w->lcp_fallbacks++;
            ok = resolve(w, h, TP_SOLVE_QUICK);
        }
    }
    if (!ok)
        tpLog(TP_LOG_ERROR, "physics: ODE step failed (out of memory)");
}

/* out = R M R^T v for the rotation of quaternion q and a body-frame matrix M (row-major). */
static void world_times(const double *q, const double *M, const double v[3], double out[3])
{
    dMatrix3 R;
    dQtoR(q, R);
    tpMat_BodyTimes(R, M, v, out);
}

/* q1 = exp(h w / 2) q0: q0 turned by the world-frame angular velocity w (rad/s) for h s. */
static void turn_quat(const double q0[4], const double wv[3], double h, double q1[4])
{
    const double spin = sqrt(wv[0] * wv[0] + wv[1] * wv[1] + wv[2] * wv[2]);
    double d[4] = {1.0, 0.0, 0.0, 0.0};
    if (spin > 0.0) {
        const double s = sin(0.5 * spin * h) / spin;
        d[0] = cos(0.5 * spin * h);
        d[1] = wv[0] * s, d[2] = wv[1] * s, d[3] = wv[2] * s;
    }
    q1[0] = d[0] * q0[0] - d[1] * q0[1] - d[2] * q0[2] - d[3] * q0[3];
    q1[1] = d[0] * q0[1] + d[1] * q0[0] + d[2] * q0[3] - d[3] * q0[2];
    q1[2] = d[0] * q0[2] - d[1] * q0[3] + d[2] * q0[0] + d[3] * q0[1];
    q1[3] = d[0] * q0[3] + d[1] * q0[2] - d[2] * q0[1] + d[3] * q0[0];
}

/* Fixed-point rounds of the implicit midpoint rule below. */
#define TP_GYRO_ROUNDS 3

/* A body in free flight (gyro_modes) has ODE's gyroscopic term off, so ODE's solve changes its
 * angular velocity only by the torques, through the inertia of the substep's start pose: that is
 * the angular momentum update L = I(q0) w = L0 + h torque, exact. But the body turns while it
 * holds that momentum, and at orientation q the same L is the angular velocity I(q)^-1 L. So the
 * orientation is integrated by the implicit midpoint rule, q1 = exp(h (w0 + w1) / 2) q0 with
 * w0 = I(q0)^-1 L and w1 = I(q1)^-1 L (a few fixed-point rounds from ODE's own q1), and the body
 * ends with w1: a free body keeps L to the last bits and its energy within the rule's bounded
 * error (conformance: rotation). Bodies with equal moments (spheres, cubes) are left alone. */
static void conserve_momentum(tpWorld *w, double h)
{
    for (int k = 0; k < w->nstate; k++) {
        const tpBodyRt *r = &w->rt[w->state_body[k]];
        if (!r->gyro || r->asleep || !r->in_flight)
            continue;
        const dReal *om = dBodyGetAngularVel(r->body), *qode = dBodyGetQuaternion(r->body);
        const double w0[3] = {om[0], om[1], om[2]};
        double L[3], w1[3], q1[4] = {qode[0], qode[1], qode[2], qode[3]};
        world_times(w->sub0[k].quat, r->inertia, w0, L);
        for (int round = 0; round < TP_GYRO_ROUNDS; round++) {
            world_times(q1, r->inertia_inv, L, w1);
            const double mid[3] = {0.5 * (w0[0] + w1[0]), 0.5 * (w0[1] + w1[1]), 0.5 * (w0[2] + w1[2])};
            turn_quat(w->sub0[k].quat, mid, h, q1);
        }
        world_times(q1, r->inertia_inv, L, w1);
        dBodySetQuaternion(r->body, q1);
        dBodySetAngularVel(r->body, w1[0], w1[1], w1[2]);
    }
}

/* Kinetic energy (J) of body r at velocities v, w and orientation q. */
static double body_energy(const tpBodyRt *r, const double *q, const double *v, const double *wv)
{
    double e = 0.5 * r->mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (r->gyro) {
        double L[3];
        world_times(q, r->inertia, wv, L);
        return e + 0.5 * (L[0] * wv[0] + L[1] * wv[1] + L[2] * wv[2]);
    }
    return e + 0.5 * r->inertia[0] * (wv[0] * wv[0] + wv[1] * wv[1] + wv[2] * wv[2]);
}

/* The kinetic energy the chain's bodies (tpBodyRt.in_chain) made in the solve just done: energy
 * after less energy before (w->sub0) less the work of gravity and the action's force over the substep
 * (trapezoid). The action's torque does not count: ODE has cleared its accumulator by now. */
static double chain_energy_gain(const tpWorld *w)
{
    double gain = 0.0, scale = 0.0;
    for (int k = 0; k < w->nstate; k++) {
        const tpBodyRt *r = &w->rt[w->state_body[k]];
        if (!r->in_chain)
            continue;
        const tpBodyState *s0 = &w->sub0[k];
        const dReal *v = dBodyGetLinearVel(r->body), *om = dBodyGetAngularVel(r->body),
                    *q = dBodyGetQuaternion(r->body);
        const double v1[3] = {v[0], v[1], v[2]}, w1[3] = {om[0], om[1], om[2]}, q1[4] = {q[0], q[1], q[2], q[3]};
        const double e0 = body_energy(r, s0->quat, s0->vel, s0->angvel), e1 = body_energy(r, q1, v1, w1);
        double work = 0.0; /* mass dv_free = h F: the force's work over h */
        for (int c = 0; c < 3; c++)
            work += 0.5 * (s0->vel[c] + v1[c]) * r->mass * r->dv_free[c];
        gain += e1 - e0 - work;
        scale += e0;
    }
    /* a hair over rounding: the energy a solve of exactly kept momentum shows */
    return gain - 1e-9 * scale;
}

/* Which bodies of unequal moments fly free in this substep (no contact of any kind in w->pend):
 * those keep their angular momentum (conserve_momentum, ODE's gyroscopic term off); a body in
 * contact keeps ODE's implicit gyroscopic term, whose angular velocity the contacts' constraints
 * were solved with (re-expressing it there rocked a car yawing on the road until it dug into
 * the traffic). A function of the substep's contacts: deterministic. */
static void gyro_modes(tpWorld *w)
{
    for (int k = 0; k < w->nstate; k++)
        w->rt[w->state_body[k]].in_flight = true;
    for (int k = 0; k < w->npend; k++) {
        w->rt[w->pend[k].a].in_flight = false;
        w->rt[w->pend[k].b].in_flight = false;
    }
    if (w->def.njoints > 0)
        tpJoints_InFlight(w);
    for (int k = 0; k < w->nstate; k++) {
        tpBodyRt *r = &w->rt[w->state_body[k]];
        if (r->gyro)
            dBodySetGyroscopicMode(r->body, r->in_flight ? 0 : 1);
    }
}

/* The substep's solve. In an impact chain (contacts.c) ODE's Newton restitution is kept when the
 * chain made no kinetic energy, else the substep is solved again with Poisson's: inelastic first
 * (every joint reporting its force), then the restitution phase: from the start poses, with the
 * velocities the inelastic solve ended with less what gravity and the action added (they add it
 * again), each bouncing contact pushed apart by e times its compression force, solved again
 * inelastically (so a pushed ball that meets the next one hands its push on). The poses are
 * integrated with the final velocities, as in every ODE step. */
static void solve_substep(tpWorld *w, double h)
{
    w->nrestitution = 0;
    gyro_modes(w);
    const bool chain = tpContacts_NeedPoisson(w);
    solve_once(w, h);
    if (!chain || !(chain_energy_gain(w) > 0.0))
        return;
    w->poisson++;
    restart_substep(w, w->sub0, h);
    w->inelastic = true;
    w->feedback_all = true;
    solve_once(w, h);
    w->feedback_all = false;
    w->nrestitution = tpContacts_RestitutionForces(w);
    if (w->nrestitution > 0) {
        for (int k = 0; k < w->nstate; k++) {
            const tpBodyRt *r = &w->rt[w->state_body[k]];
            tpBodyState *s = &w->subc[k];
            *s = w->sub0[k];
            const dReal *v = dBodyGetLinearVel(r->body), *om = dBodyGetAngularVel(r->body);
            for (int c = 0; c < 3; c++) {
                s->vel[c] = v[c] - r->dv_free[c];
                s->angvel[c] = om[c] - r->dw_pred[c];
            }
        }
        restart_substep(w, w->subc, h);
        solve_once(w, h);
    }
    w->inelastic = false;
    w->nrestitution = 0;
}

/* Substeps of the step from t: the scene's own, or more when a moving body would otherwise travel
 * further than its own thickness in one substep (the swept pass can only see what a substep's
 * travel overlaps: a pool ball at 6 m/s moves 10 cm in 1/60 s, past a ball 5.7 cm wide). A
 * function of the state at t, so deterministic; at most TP_MAX_SUBSTEPS. */
static int count_substeps(tpWorld *w, double t)
{
    double need = w->def.substeps;
    if (w->nkinematic > 0)
        set_kinematic(w, t);
    for (int i = 0; i < w->def.nbodies; i++) {
        const tpBodyRt *r = &w->rt[i];
        if (r->body == NULL || !(r->thickness > 0.0))
            continue;
        const dReal *v = dBodyGetLinearVel(r->body), *om = dBodyGetAngularVel(r->body);
        /* a sphere occupies the same space however it spins, a wheel however it rolls: only the
           spin that moves the shape counts */
        double so[3];
        tpWorld_ShapeSpin(w, i, om, so);
        const double spin = sqrt(so[0] * so[0] + so[1] * so[1] + so[2] * so[2]);
        const double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + r->radius * spin;
        double travel = speed * w->def.dt;
        if (travel > TP_MAX_SWEEP_THICKNESSES * r->thickness && w->failure.kind == TP_STEP_OK) {
            w->failure.kind = TP_STEP_OUT_OF_RANGE;
            w->failure.what = TP_STEP_VALUE_SWEEP;
            w->failure.a = i;
            w->failure.axis = -1;
            w->failure.value = speed;
            w->failure.limit = TP_MAX_SWEEP_THICKNESSES * r->thickness / w->def.dt;
            w->failure.substep = -1;
        }
        double n = ceil(travel / (2.0 * r->thickness));
        if (n > need)
            need = n;
    }
    return need < TP_MAX_SUBSTEPS ? (int)need : TP_MAX_SUBSTEPS;
}

/* Who sleeps through this step (rest: the counts of tpWorld_StepRest, NULL = all 0; sleep false:
 * nobody): a body whose count reached rest_steps, whose restored velocities are exactly 0 and on
 * which no action acts. Its ODE body is disabled, so the solver leaves it where it is. */
static void sleep_setup(tpWorld *w, const uint8_t *rest, bool sleep)
{
    w->nasleep = 0;
    for (int k = 0; k < w->nstate; k++) {
        tpBodyRt *r = &w->rt[w->state_body[k]];
        r->woke = false;
        r->acted = false;
        if (r->control_slot >= 0)
            for (int c = 0; c < 6; c++)
                r->acted = r->acted || w->action[6 * r->control_slot + c] != 0.0;
        r->asleep = false;
        if (sleep && rest != NULL && w->rest_steps > 0 && rest[k] >= w->rest_steps && !r->acted) {
            const dReal *v = dBodyGetLinearVel(r->body), *om = dBodyGetAngularVel(r->body);
            r->asleep = v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0 && om[0] == 0.0 && om[1] == 0.0 && om[2] == 0.0;
        }
    }
    /* ODE enables every body a joint ties to an enabled one: a jointed group sleeps whole or not at all */
    if (w->def.njoints > 0)
        tpJoints_SleepGroups(w);
    for (int k = 0; k < w->nstate; k++) {
        tpBodyRt *r = &w->rt[w->state_body[k]];
        if (r->asleep) {
            dBodyDisable(r->body);
            w->nasleep++;
        } else if (!dBodyIsEnabled(r->body)) {
            dBodyEnable(r->body);
        }
    }
    for (int k = 0; k < w->nkinematic; k++)
        w->rt[w->kin_body[k]].stirs = true;
}

/* At a substep's start, with sleepers about: which awake bodies wake the sleepers they touch. */
static void mark_stirring(tpWorld *w)
{
    const double s = w->def.sleep_speed;
    for (int k = 0; k < w->nstate; k++) {
        tpBodyRt *r = &w->rt[w->state_body[k]];
        if (r->asleep) {
            r->stirs = false;
            continue;
        }
        const dReal *v = dBodyGetLinearVel(r->body), *om = dBodyGetAngularVel(r->body);
        r->stirs = r->woke || r->acted || sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) > s ||
                   r->radius * sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]) > s;
    }
}

/* Shared tail of Step and StepLive: the dynamic bodies already hold their start state.
 * False (and the world left as it is) when the action or a resulting state is out of range. */
static bool advance(tpWorld *w, double t, const double *action, const uint8_t *rest, bool sleep)
{
    const size_t nforce = (size_t)w->ncontrol * 6, nact = nforce + (size_t)w->nmotor;
    if (action != NULL)
        memcpy(w->action, action, nact * sizeof(double));
    else
        memset(w->action, 0, nact * sizeof(double));
    w->live_restored = false;
    w->static_depth = 0.0;
    w->body_depth = 0.0;
    w->static_pair[0] = w->static_pair[1] = w->body_pair[0] = w->body_pair[1] = -1;
    w->failure = (tpStepFailure){TP_STEP_OK, -1, -1, TP_STEP_VALUE_NONE, -1, 0.0, 0.0, -1, w->def.substeps, t, -1};
    if (!tpWithin(w->action, (int)nforce, TP_MAX_FORCE)) {
        for (int k = 0; k < w->ncontrol; k++)
            if (note_outside(w, TP_STEP_VALUE_FORCE, w->action + 6 * k, 3, TP_MAX_FORCE) ||
                note_outside(w, TP_STEP_VALUE_TORQUE, w->action + 6 * k + 3, 3, TP_MAX_FORCE)) {
                w->failure.kind = TP_STEP_BAD_ACTION;
                w->failure.a = w->control_body[k];
                break;
            }
        return false;
    }
    if (w->nmotor > 0 && tpJoints_BadTarget(w, w->action + nforce) >= 0)
        return false;
    tpWorld_ClampAction(w, w->action);
    if (w->nmotor > 0)
        tpJoints_Drive(w, w->action + nforce); /* set every step: the target is the action's, not a memory */
    sleep_setup(w, rest, sleep);

    /* Substeps continue the world without a restore in between: that is deterministic because
       every Sim call (and replay) runs the same chain from the same restored state. */
    const int ns = count_substeps(w, t);
    if (w->failure.kind != TP_STEP_OK)
        return false; /* a body too fast to follow: nothing simulated */
    const double hn = w->def.dt / ns;
    w->failure.substeps = ns;
    /* Substep j ends at (j + 1) hn (the last at dt exactly). A substep in which a bounce would
     * start short of the surface is cut at the impact (TP_BOUNCE_GAP), and the next piece runs
     * from there to the same end. */
    double done = 0.0;
    int cuts = 0, s = 0;
    for (int j = 0; j < ns; j++) {
        const double end = j == ns - 1 ? w->def.dt : (j + 1) * hn;
        w->substep = j;
        while (end - done > 1e-9 * w->def.dt) {
            double h = end - done;
            const double ts = t + done;
            w->sub_t = ts;
            if (w->nkinematic > 0)
                set_kinematic_over(w, ts, h);
            w->npend = 0;
            if (w->nasleep > 0)
                mark_stirring(w);
            tpContacts_Collide(w, s > 0);
            if (w->fatal_error[0])
                return false; /* out of memory for the contacts: nothing of this step is physical */
            double tau = tpContacts_Speculate(w, h, cuts < TP_MAX_CUTS);
            if (tau < h) {
                cuts++;
                h = tau;
                if (w->nkinematic > 0)
                    set_kinematic_over(w, ts, h);
                w->npend = w->run[0]; /* the swept pass again, for the shorter substep */
                tpContacts_Speculate(w, h, false);
            }
            if (w->fatal_error[0])
                return false; /* out of memory in the swept pass */
            tpContacts_Wake(w);
            for (int k = 0; k < w->nstate; k++)
                get_body(w->rt[w->state_body[k]].body, &w->sub0[k]);
            solve_substep(w, h);
            for (int round = 0; round < TP_DISCOVER_ROUNDS && tpContacts_Discover(w, h) && !w->fatal_error[0];
                 round++) {
                tpContacts_Wake(w);
                restart_substep(w, w->sub0, h);
                solve_substep(w, h);
            }
            if (w->fatal_error[0])
                return false; /* out of memory in the discovery pass */
            conserve_momentum(w, h);
            if (w->def.solver == TP_SOLVER_QUICKSTEP)
                tpContacts_Project(w);
            if (w->def.njoints > 0)
                tpJoints_Project(w);
            tpContacts_Record(w);
            done += h;
            s++;
            /* Checked after every substep: a state that left the ranges never reaches ODE again. */
            if (!states_in_range(w))
                return false;
        }
    }
    /* The substeps' contacts were generated at their start poses, so the overlap the last
     * substep leaves is seen by the next step's first collision. A scripted body (infinite mass)
     * can crush a body during that substep and carry on, so scenes with scripted bodies look
     * once more at the end poses (only when a limit asks for it). */
    if (w->nkinematic > 0 && (w->def.max_static_penetration > 0 || w->def.max_body_penetration > 0)) {
        w->substep = ns;
        set_kinematic(w, t + w->def.dt);
        tpContacts_DepthPass(w);
    }
    if (w->def.max_static_penetration > 0 && w->static_depth > w->def.max_static_penetration) {
        /* the moving body first: a static body has no state slot */
        const bool a_static = w->rt[w->static_pair[0]].state_slot < 0;
        w->failure.kind = TP_STEP_STATIC_PENETRATION;
        w->failure.a = a_static ? w->static_pair[1] : w->static_pair[0];
        w->failure.b = a_static ? w->static_pair[0] : w->static_pair[1];
        w->failure.value = w->static_depth;
        w->failure.limit = w->def.max_static_penetration;
        w->failure.substep = w->static_sub;
        return false;
    }
    if (w->def.max_body_penetration > 0 && w->body_depth > w->def.max_body_penetration) {
        w->failure.kind = TP_STEP_BODY_PENETRATION;
        w->failure.a = w->body_pair[0];
        w->failure.b = w->body_pair[1];
        w->failure.value = w->body_depth;
        w->failure.limit = w->def.max_body_penetration;
        w->failure.substep = w->body_sub;
        return false;
    }
    return true;
}

bool tpWorld_CheckOverlap(tpWorld *w, const tpBodyState *x, double t, tpStepFailure *out_or_null)
{
    TP_ASSERT(w && x);
    tpStepFailure none;
    tpStepFailure *out = out_or_null != NULL ? out_or_null : &none;
    *out = (tpStepFailure){TP_STEP_OK, -1, -1, TP_STEP_VALUE_NONE, -1, 0.0, 0.0, -1, w->def.substeps, t, -1};
    if (!(w->def.max_static_penetration > 0) && !(w->def.max_body_penetration > 0))
        return true;
    /* every body awake and enabled: ODE does not collide two disabled bodies' geoms */
    for (int k = 0; k < w->nstate; k++) {
        tpBodyRt *r = &w->rt[w->state_body[k]];
        set_body(r->body, &x[k]);
        r->asleep = false;
        if (!dBodyIsEnabled(r->body))
            dBodyEnable(r->body);
    }
    w->live_restored = false;
    set_kinematic(w, t);
    /* the pass notes its depths where a step does: keep the last step's */
    const double sd = w->static_depth, bd = w->body_depth;
    const int sp[2] = {w->static_pair[0], w->static_pair[1]}, bp[2] = {w->body_pair[0], w->body_pair[1]};
    const int ss = w->static_sub, bs = w->body_sub, sub = w->substep;
    w->static_depth = w->body_depth = 0.0;
    w->substep = -1;
    tpContacts_DepthPass(w);
    if (w->def.max_static_penetration > 0 && w->static_depth > w->def.max_static_penetration) {
        const bool a_static = w->rt[w->static_pair[0]].state_slot < 0; /* the moving body first */
        out->kind = TP_STEP_STATIC_PENETRATION;
        out->a = a_static ? w->static_pair[1] : w->static_pair[0];
        out->b = a_static ? w->static_pair[0] : w->static_pair[1];
        out->value = w->static_depth;
        out->limit = w->def.max_static_penetration;
    } else if (w->def.max_body_penetration > 0 && w->body_depth > w->def.max_body_penetration) {
        out->kind = TP_STEP_BODY_PENETRATION;
        out->a = w->body_pair[0];
        out->b = w->body_pair[1];
        out->value = w->body_depth;
        out->limit = w->def.max_body_penetration;
    }
    w->static_depth = sd;
    w->body_depth = bd;
    memcpy(w->static_pair, sp, sizeof sp);
    memcpy(w->body_pair, bp, sizeof bp);
    w->static_sub = ss;
    w->body_sub = bs;
    w->substep = sub;
    return out->kind == TP_STEP_OK;
}

bool tpWorld_Supported(tpWorld *w, const tpBodyState *x, double t, int body)
{
    TP_ASSERT(w && x && body >= 0 && body < w->def.nbodies);
    for (int k = 0; k < w->nstate; k++)
        set_body(w->rt[w->state_body[k]].body, &x[k]);
    set_kinematic(w, t);
    /* moved TP_SUPPORT_GAP along gravity: a body resting on something then overlaps it (a resting
     * body may hover a hair above the floor, beyond the contact slop), one stopped in the air does
     * not */
    const double *g = w->def.gravity;
    const double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    const int slot = w->rt[body].state_slot;
    if (slot >= 0 && gn > 0) {
        tpBodyState s = x[slot];
        for (int c = 0; c < 3; c++)
            s.pos[c] += TP_SUPPORT_GAP * g[c] / gn;
        set_body(w->rt[body].body, &s);
    }
    return tpContacts_Touching(w, body, 0.0);
}

double tpWorld_StaticDepth(const tpWorld *w)
{
    return w->static_depth;
}

double tpWorld_BodyDepth(const tpWorld *w)
{
    return w->body_depth;
}

const tpStepFailure *tpWorld_LastFailure(const tpWorld *w)
{
    return &w->failure;
}

tpPhysicsStats tpWorld_Stats(const tpWorld *w)
{
    tpPhysicsStats s = {w->lcp_nudges, w->lcp_fallbacks, w->speculative, w->discovered, w->slept,
                        w->woken,      w->poisson,       w->stiff,       w->tall};
    return s;
}

/* Rest counts after a step (tpWorld_StepRest): a body still at the end of the step -- speed and
 * angular speed times its radius at most sleep_speed, touching something in the last substep, no
 * action -- counts one more step (from 0 if it was woken), up to rest_steps, where its velocities
 * are zeroed and it sleeps from the next step on; any other body counts 0. */
static void count_rest(tpWorld *w, const uint8_t *rest, tpBodyState *xnew, uint8_t *rest_new)
{
    const double s = w->def.sleep_speed;
    for (int k = 0; k < w->nstate; k++) {
        const tpBodyRt *r = &w->rt[w->state_body[k]];
        const int before = rest != NULL && !r->woke ? rest[k] : 0;
        if (r->asleep) {
            rest_new[k] = (uint8_t)before;
            w->slept++;
            continue;
        }
        tpBodyState *x = &xnew[k];
        const double v2 = x->vel[0] * x->vel[0] + x->vel[1] * x->vel[1] + x->vel[2] * x->vel[2];
        const double w2 = x->angvel[0] * x->angvel[0] + x->angvel[1] * x->angvel[1] + x->angvel[2] * x->angvel[2];
        /* touching something, or held by a joint to the world (a pendulum at rest) */
        const bool held = r->contact_stamp == w->stamp || tpJoints_Held(w, w->state_body[k]);
        const bool still = !r->acted && held && v2 <= s * s && r->radius * r->radius * w2 <= s * s;
        const int n = still ? before + 1 : 0;
        rest_new[k] = (uint8_t)(n < w->rest_steps ? n : w->rest_steps);
    }
    if (w->def.njoints > 0)
        tpJoints_CountRest(w, rest_new);
    for (int k = 0; k < w->nstate; k++) {
        if (!w->rt[w->state_body[k]].asleep && rest_new[k] >= w->rest_steps) {
            memset(xnew[k].vel, 0, sizeof xnew[k].vel);
            memset(xnew[k].angvel, 0, sizeof xnew[k].angvel);
        }
    }
}

bool tpWorld_Step(tpWorld *w, const tpBodyState *x, double t, const double *action, tpBodyState *xnew)
{
    return tpWorld_StepRest(w, x, NULL, t, action, xnew, NULL);
}

bool tpWorld_StepRest(tpWorld *w, const tpBodyState *x, const uint8_t *rest, double t, const double *action,
                      tpBodyState *xnew, uint8_t *rest_new)
{
    for (int k = 0; k < w->nstate; k++)
        set_body(w->rt[w->state_body[k]].body, &x[k]);
    const bool sleep = rest_new != NULL && w->rest_steps > 0;
    bool ok = advance(w, t, action, rest, sleep);
    for (int k = 0; k < w->nstate; k++) {
        if (w->rt[w->state_body[k]].asleep) {
            if (xnew != x) /* exactly as it was: reading q back from ODE may change its last bit */
                xnew[k] = x[k];
            continue;
        }
        get_body(w->rt[w->state_body[k]].body, &xnew[k]);
    }
    if (sleep)
        count_rest(w, rest, xnew, rest_new);
    w->time = t + w->def.dt;
    if (ok && w->fatal_error[0]) /* a motion function failed: nothing here is physical (out of memory
                                    fails the step itself, TP_STEP_NO_MEMORY) */
        w->failure.kind = TP_STEP_MOTION_ERROR;
    if (ok && !w->fatal_error[0])
        TP_VALIDATE(tpWorld_Valid, w); /* a failed step may leave ODE's bodies anywhere: nothing to check */
    return ok && !w->fatal_error[0];
}

bool tpWorld_StepLive(tpWorld *w, const double *action)
{
    bool ok = advance(w, w->time, action, NULL, false);
    w->time += w->def.dt;
    if (ok)
        TP_VALIDATE(tpWorld_Valid, w);
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
        get_body(w->rt[w->state_body[k]].body, &s);
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
        set_body(w->rt[w->state_body[k]].body, &s);
    }
    set_kinematic(w, w->time);
}
