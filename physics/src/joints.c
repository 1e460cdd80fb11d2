/* tplan physics: joints (tpJointDef) -- validation, the ODE joints, the springs' ERP and CFM for
 * each solve's time step, and the jointed groups that sleep and wake together.
 *
 * Sim purity: an ODE joint keeps what it measured when it was attached (the bodies' relative
 * pose, the anchor and axes in each body's frame) and nothing else across steps: limits and
 * motors are tested afresh in every solve from the restored poses. Joints are made once, at the
 * bodies' initial poses, and never changed afterwards (but for the springs' ERP and CFM, a
 * function of the solve's step h), so restoring a state x restores the whole jointed world. */
#include "world_internal.h"

#include "tp/base.h"
#include "tp/mathx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Defaults and names                                                                          */

tpJointDef tpDefaultJointDef(void)
{
    tpJointDef j;
    memset(&j, 0, sizeof j);
    j.kind = TP_JOINT_HINGE;
    j.body_a = 0;
    j.body_b = -1;
    j.axis[2] = 1.0;
    j.axis2[0] = 1.0;
    j.length = -1.0;
    return j;
}

/* One row per kind: its name, how many axes take a limit/spring/motor, and what it needs. */
static const struct {
    const char *name;
    int axes;     /* tpJointAxisCount */
    bool anchor;  /* uses anchor */
    bool axis;    /* uses axis */
    bool axis2;   /* uses axis2 */
    bool angular; /* axis 1 is a rotation (limits in [-pi, pi]) */
    bool two;     /* needs two moving bodies */
} g_kinds[TP_JOINT_KINDS] = {
    [TP_JOINT_HINGE] = {"hinge", 1, true, true, false, true, false},
    [TP_JOINT_SLIDER] = {"slider", 1, false, true, false, false, false},
    [TP_JOINT_BALL] = {"ball", 0, true, false, false, true, false},
    [TP_JOINT_FIXED] = {"fixed", 0, false, false, false, true, false},
    [TP_JOINT_UNIVERSAL] = {"universal", 2, true, true, true, true, false},
    [TP_JOINT_HINGE2] = {"hinge2", 2, true, true, true, true, true},
    [TP_JOINT_DISTANCE] = {"distance", 0, true, false, false, false, false},
};

const char *tpJointKindName(tpJointKind kind)
{
    return (int)kind >= 0 && (int)kind < TP_JOINT_KINDS ? g_kinds[kind].name : "?";
}

int tpJointAxisCount(tpJointKind kind)
{
    return (int)kind >= 0 && (int)kind < TP_JOINT_KINDS ? g_kinds[kind].axes : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Validation                                                                                  */

static double norm3(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static bool finite3(const double v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* Label for messages: joint "name" (#j) or joint #j. */
static void joint_label(const tpJointDef *jd, int j, char *out, size_t cap)
{
    if (memchr(jd->name, '\0', TP_NAME_MAX) != NULL && jd->name[0] != '\0')
        snprintf(out, cap, "joint \"%s\" (%s)", jd->name, tpJointKindName(jd->kind));
    else
        snprintf(out, cap, "joint #%d (%s)", j, tpJointKindName(jd->kind));
}

static bool moving(const tpBodyDef *b)
{
    return b->cls != TP_BODY_STATIC;
}

static bool check_axis_def(const tpJointDef *jd, int k, const char *who, char *err, size_t errlen)
{
    const tpJointAxisDef *x = &jd->axes[k];
    const char *sfx = k == 0 ? "" : "2";
    const bool angular = g_kinds[jd->kind].angular;
    const double vals[] = {x->lo, x->hi, x->bounce, x->stiffness, x->damping, x->rest, x->speed, x->max_force};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        if (!isfinite(vals[i])) {
            tpErrorf(err, errlen, "%s: axis %d: limit, spring and motor values must be finite", who, k + 1);
            return false;
        }
    }
    const bool hinge2_spin = jd->kind == TP_JOINT_HINGE2 && k == 1;
    if (x->limit) {
        if (hinge2_spin) {
            tpErrorf(err, errlen, "%s: limit%s: a hinge2's spin axis has no limit", who, sfx);
            return false;
        }
        if (x->lo > x->hi) {
            tpErrorf(err, errlen, "%s: limit%s: lo = %g is above hi = %g", who, sfx, x->lo, x->hi);
            return false;
        }
        if (angular && (x->lo < -TP_PI || x->hi > TP_PI)) {
            tpErrorf(err, errlen, "%s: limit%s: [%g, %g] rad is outside [-pi, pi]", who, sfx, x->lo, x->hi);
            return false;
        }
        if (!(x->bounce >= 0.0 && x->bounce <= 1.0)) {
            tpErrorf(err, errlen, "%s: limit%s.bounce must be in [0, 1] (got %g)", who, sfx, x->bounce);
            return false;
        }
    }
    if (x->stiffness < 0.0 || x->damping < 0.0) {
        tpErrorf(err, errlen, "%s: spring%s: stiffness and damping must be >= 0 (got %g, %g)", who, sfx, x->stiffness,
                 x->damping);
        return false;
    }
    const bool spring = x->stiffness > 0.0 || x->damping > 0.0;
    if (spring && hinge2_spin) {
        tpErrorf(err, errlen, "%s: spring2: a hinge2's spin axis has no spring", who);
        return false;
    }
    if (spring && x->limit && jd->kind != TP_JOINT_HINGE2) {
        tpErrorf(err, errlen, "%s: spring%s and limit%s on the same axis are not supported (ODE's stop holds both)",
                 who, sfx, sfx);
        return false;
    }
    if (spring && jd->kind == TP_JOINT_HINGE2 && x->rest != 0.0) {
        tpErrorf(err, errlen, "%s: spring.rest must be 0 for a hinge2 (its suspension rests where it starts)", who);
        return false;
    }
    if (spring && angular && fabs(x->rest) > TP_PI) {
        tpErrorf(err, errlen, "%s: spring%s.rest = %g rad is outside [-pi, pi]", who, sfx, x->rest);
        return false;
    }
    if (x->motor && !(x->max_force > 0.0 && x->max_force <= TP_MAX_FORCE)) {
        tpErrorf(err, errlen, "%s: motor%s.max_force must be in (0, %g] (got %g)", who, sfx, TP_MAX_FORCE,
                 x->max_force);
        return false;
    }
    if (x->motor && fabs(x->speed) > (angular ? TP_MAX_ANGVEL : TP_MAX_SPEED)) {
        tpErrorf(err, errlen, "%s: motor%s.speed = %g is beyond %g", who, sfx, x->speed,
                 angular ? TP_MAX_ANGVEL : TP_MAX_SPEED);
        return false;
    }
    if (x->driven && jd->name[0] == '\0') {
        tpErrorf(err, errlen, "%s: motor%s.driven: a joint with a driven motor needs a name (plans name it)", who, sfx);
        return false;
    }
    if (x->driven && !x->motor) {
        tpErrorf(err, errlen, "%s: motor%s.driven: the axis has no motor", who, sfx);
        return false;
    }
    const double kind_max = angular ? TP_MAX_ANGVEL : TP_MAX_SPEED;
    if (x->driven && !(x->max_speed >= 0.0 && x->max_speed <= kind_max)) {
        tpErrorf(err, errlen, "%s: motor%s.max_speed must be in [0, %g] (0: %g; got %g)", who, sfx, kind_max, kind_max,
                 x->max_speed);
        return false;
    }
    if (x->driven && x->max_speed > 0.0 && fabs(x->speed) > x->max_speed) {
        tpErrorf(err, errlen, "%s: motor%s.speed = %g is beyond its max_speed %g", who, sfx, x->speed, x->max_speed);
        return false;
    }
    return true;
}

static bool check_joint(const tpSceneDef *def, int j, char *err, size_t errlen)
{
    const tpJointDef *jd = &def->joints[j];
    char who[TP_NAME_MAX + 48];
    if ((int)jd->kind < 0 || (int)jd->kind >= TP_JOINT_KINDS) {
        tpErrorf(err, errlen, "joint #%d: kind must be a tpJointKind (got %d)", j, (int)jd->kind);
        return false;
    }
    joint_label(jd, j, who, sizeof who);
    if (memchr(jd->name, '\0', TP_NAME_MAX) == NULL) {
        tpErrorf(err, errlen, "joint #%d: name is not terminated within %d bytes", j, TP_NAME_MAX);
        return false;
    }
    if (jd->body_a < 0 || jd->body_a >= def->nbodies) {
        tpErrorf(err, errlen, "%s: bodies[1] (body_a) = %d is not a body index in [0, %d)", who, jd->body_a,
                 def->nbodies);
        return false;
    }
    if (jd->body_b < -1 || jd->body_b >= def->nbodies) {
        tpErrorf(err, errlen, "%s: bodies[2] (body_b) = %d is not -1 (the world) or a body index in [0, %d)", who,
                 jd->body_b, def->nbodies);
        return false;
    }
    if (jd->body_a == jd->body_b) {
        tpErrorf(err, errlen, "%s: bodies: joins body \"%s\" to itself", who, def->bodies[jd->body_a].name);
        return false;
    }
    const tpBodyDef *a = &def->bodies[jd->body_a], *b = jd->body_b >= 0 ? &def->bodies[jd->body_b] : NULL;
    if (!moving(a)) {
        tpErrorf(err, errlen,
                 "%s: bodies[1] \"%s\" is static: the first body must move (a static one goes second, "
                 "like the world)",
                 who, a->name);
        return false;
    }
    const bool b_dynamic = b != NULL && moving(b) && !(b->cls == TP_BODY_FOREIGN && b->motion.kind != TP_MOTION_TACTIC);
    const bool a_dynamic = !(a->cls == TP_BODY_FOREIGN && a->motion.kind != TP_MOTION_TACTIC);
    if (!a_dynamic && !b_dynamic) {
        tpErrorf(err, errlen,
                 "%s: bodies: neither \"%s\" nor %s%s%s is dynamic (a joint needs a body the physics moves)", who,
                 a->name, b ? "\"" : "", b ? b->name : "the world", b ? "\"" : "");
        return false;
    }
    if (g_kinds[jd->kind].two && !(b != NULL && moving(b))) {
        tpErrorf(err, errlen, "%s: bodies: a hinge2 joins two moving bodies (the chassis, then the wheel)", who);
        return false;
    }
    if (!finite3(jd->anchor) || !finite3(jd->anchor2) || !finite3(jd->axis) || !finite3(jd->axis2) ||
        !isfinite(jd->length)) {
        tpErrorf(err, errlen, "%s: anchor, anchor2, axis, axis2 and length must be finite", who);
        return false;
    }
    for (int k = 0; k < 3; k++) {
        if (fabs(jd->anchor[k]) > TP_MAX_COORD || fabs(jd->anchor2[k]) > TP_MAX_COORD) {
            tpErrorf(err, errlen, "%s: anchor and anchor2 must be within +-%g m", who, TP_MAX_COORD);
            return false;
        }
    }
    const double n1 = norm3(jd->axis), n2 = norm3(jd->axis2);
    if (g_kinds[jd->kind].axis && !(n1 >= 1e-9)) {
        tpErrorf(err, errlen, "%s: axis must not be zero", who);
        return false;
    }
    if (g_kinds[jd->kind].axis2) {
        if (!(n2 >= 1e-9)) {
            tpErrorf(err, errlen, "%s: axis2 must not be zero", who);
            return false;
        }
        const double c =
            (jd->axis[0] * jd->axis2[0] + jd->axis[1] * jd->axis2[1] + jd->axis[2] * jd->axis2[2]) / (n1 * n2);
        if (jd->kind == TP_JOINT_UNIVERSAL && fabs(c) > 1e-6) {
            tpErrorf(err, errlen, "%s: axis2 must be perpendicular to axis (cos = %g)", who, c);
            return false;
        }
        if (jd->kind == TP_JOINT_HINGE2 && fabs(c) > 1.0 - 1e-6) {
            tpErrorf(err, errlen, "%s: axis2 must not be parallel to axis", who);
            return false;
        }
    }
    if (jd->kind == TP_JOINT_DISTANCE && jd->length > TP_MAX_COORD) {
        tpErrorf(err, errlen, "%s: length = %g m is beyond %g", who, jd->length, TP_MAX_COORD);
        return false;
    }
    const int naxes = g_kinds[jd->kind].axes;
    for (int k = 0; k < 2; k++) {
        const tpJointAxisDef *x = &jd->axes[k];
        const char *sfx = k == 0 ? "" : "2";
        if (k >= naxes) {
            if (x->motor) {
                tpErrorf(err, errlen, "%s: motor%s: a %s joint has no motor%s", who, sfx, tpJointKindName(jd->kind),
                         naxes ? " on a second axis" : "");
                return false;
            }
            if (x->limit) {
                tpErrorf(err, errlen, "%s: limit%s: a %s joint has no limit%s", who, sfx, tpJointKindName(jd->kind),
                         naxes ? " on a second axis" : "");
                return false;
            }
            if (x->stiffness != 0.0 || x->damping != 0.0) {
                tpErrorf(err, errlen, "%s: spring%s: a %s joint has no spring%s", who, sfx, tpJointKindName(jd->kind),
                         naxes ? " on a second axis" : "");
                return false;
            }
            continue;
        }
        if (!check_axis_def(jd, k, who, err, errlen))
            return false;
    }
    return true;
}

/* A joint's pair of bodies (lo < hi; -1 the world) and its index, for the welded-pair check. */
typedef struct PairKey {
    int64_t lo, hi;
    int j;
} PairKey;

static int pair_cmp(const void *pa, const void *pb)
{
    const PairKey *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return (a->j > b->j) - (a->j < b->j);
}

bool tpJoints_Check(const tpSceneDef *def, char *err, size_t errlen)
{
    if (def->njoints < 0 || def->njoints > TP_MAX_JOINTS || (def->njoints > 0 && def->joints == NULL)) {
        tpErrorf(err, errlen, "scene: njoints = %d must be in [0, %d] with joints set", def->njoints, TP_MAX_JOINTS);
        return false;
    }
    for (int j = 0; j < def->njoints; j++)
        if (!check_joint(def, j, err, errlen))
            return false;
    int earlier = -1;
    const int dup = def->njoints > 0
                        ? tpNames_FirstDuplicate(def->joints[0].name, sizeof def->joints[0], def->njoints, &earlier)
                        : -1;
    if (dup == -2) {
        tpErrorf(err, errlen, "scene: out of memory checking %d joint names", def->njoints);
        return false;
    }
    if (dup >= 0) {
        char who[TP_NAME_MAX + 48];
        joint_label(&def->joints[dup], dup, who, sizeof who);
        tpErrorf(err, errlen, "%s: duplicate name (also joint #%d)", who, earlier);
        return false;
    }
    /* a fixed joint welds its two bodies into one: a second joint between them could only fight it
       (the pairs sorted, so that a scene of many joints is checked in n log n) */
    int nfixed = 0;
    for (int j = 0; j < def->njoints; j++)
        nfixed += def->joints[j].kind == TP_JOINT_FIXED;
    if (nfixed == 0 || def->njoints < 2)
        return true;
    PairKey *keys = malloc(sizeof *keys * (size_t)def->njoints);
    if (keys == NULL) {
        tpErrorf(err, errlen, "scene: out of memory checking %d joints' bodies", def->njoints);
        return false;
    }
    for (int j = 0; j < def->njoints; j++) {
        const tpJointDef *jd = &def->joints[j];
        const int64_t x = jd->body_a, y = jd->body_b; /* -1: the world */
        keys[j] = (PairKey){.lo = x < y ? x : y, .hi = x < y ? y : x, .j = j};
    }
    qsort(keys, (size_t)def->njoints, sizeof *keys, pair_cmp);
    bool ok = true;
    for (int s = 0; ok && s < def->njoints;) {
        int e = s + 1, weld = keys[s].j, second = -1;
        while (e < def->njoints && keys[e].lo == keys[s].lo && keys[e].hi == keys[s].hi)
            e++;
        for (int k = s; k < e; k++) /* the first fixed joint of the run (by index), and another */
            if (def->joints[keys[k].j].kind == TP_JOINT_FIXED &&
                (def->joints[weld].kind != TP_JOINT_FIXED || keys[k].j < weld))
                weld = keys[k].j;
        for (int k = s; k < e && def->joints[weld].kind == TP_JOINT_FIXED; k++)
            if (keys[k].j != weld && (second < 0 || keys[k].j < second))
                second = keys[k].j;
        if (second >= 0) {
            const tpJointDef *a = &def->joints[second];
            char who[TP_NAME_MAX + 48], other[TP_NAME_MAX + 48];
            joint_label(a, second, who, sizeof who);
            joint_label(&def->joints[weld], weld, other, sizeof other);
            const char *nb = a->body_b >= 0 ? def->bodies[a->body_b].name : "the world";
            tpErrorf(err, errlen, "%s: bodies: \"%s\" and %s%s%s are already welded by %s", who,
                     def->bodies[a->body_a].name, a->body_b >= 0 ? "\"" : "", nb, a->body_b >= 0 ? "\"" : "", other);
            ok = false;
        }
        s = e;
    }
    free(keys);
    return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* Creation                                                                                    */

static void unit3(double v[3])
{
    const double n = norm3(v);
    if (n > 0.0)
        for (int k = 0; k < 3; k++)
            v[k] /= n;
}

/* ODE's parameter p for axis k (0, 1) of a kind with two axes: dParamX or dParamX2. */
static int param(int p, int k)
{
    return k == 0 ? p : p + dParamGroup;
}

static void set_param(dJointID id, tpJointKind kind, int p, double v)
{
    switch (kind) {
    case TP_JOINT_HINGE:
        dJointSetHingeParam(id, p, v);
        break;
    case TP_JOINT_SLIDER:
        dJointSetSliderParam(id, p, v);
        break;
    case TP_JOINT_UNIVERSAL:
        dJointSetUniversalParam(id, p, v);
        break;
    case TP_JOINT_HINGE2:
        dJointSetHinge2Param(id, p, v);
        break;
    case TP_JOINT_BALL:
        dJointSetBallParam(id, p, v);
        break;
    case TP_JOINT_DISTANCE:
        dJointSetDBallParam(id, p, v);
        break;
    case TP_JOINT_FIXED:
        break;
    }
}

static void set_motor_param(dJointID id, bool linear, int p, double v)
{
    if (linear)
        dJointSetLMotorParam(id, p, v);
    else
        dJointSetAMotorParam(id, p, v);
}

/* A motor on a limited axis is a joint of its own: one angular (AMotor) or linear (LMotor) row
   about the same axis between the same bodies. ODE gives a joint axis one constraint row for its
   limit and its motor together, so while the stop is active and the motor drives away from it ODE
   cannot hold the motor's speed: it applies fudge_factor x max_force as a plain torque instead
   (dxJointLimitMotor::addLimot: "we need *two* lcp constraints ... so we fake it"). For a light
   wheel on a hinge2 (parking.lua: 20 N m on 7.7e-4 kg m^2) that torque flings the steering from
   one stop past the other in a step. With two rows the solver bounds both: the motor's by
   +-max_force at its target speed, the stop's one-sided. `rel` is ODE's frame of the axis: 1 on
   the first body, 2 on the second. */
static dJointID create_motor_joint(tpWorld *w, const tpJointDef *jd, int k, int rel)
{
    dBodyID a = w->rt[jd->body_a].body;
    dBodyID b = jd->body_b >= 0 ? w->rt[jd->body_b].body : NULL;
    const double *x = k == 0 ? jd->axis : jd->axis2;
    const bool linear = jd->kind == TP_JOINT_SLIDER;
    const tpJointAxisDef *ax = &jd->axes[k];
    if (rel == 2 && b == NULL)
        rel = 0; /* the world's axis */
    dJointID id = NULL;
    if (linear) {
        id = dJointCreateLMotor(w->world, 0);
        dJointAttach(id, a, b);
        dJointSetLMotorNumAxes(id, 1);
        dJointSetLMotorAxis(id, 0, rel, x[0], x[1], x[2]);
    } else {
        id = dJointCreateAMotor(w->world, 0);
        dJointAttach(id, a, b);
        dJointSetAMotorMode(id, dAMotorUser);
        dJointSetAMotorNumAxes(id, 1);
        dJointSetAMotorAxis(id, 0, rel, x[0], x[1], x[2]);
    }
    set_motor_param(id, linear, dParamVel, ax->speed);
    set_motor_param(id, linear, dParamFMax, ax->max_force);
    if (ax->driven) /* as a driven motor without a limit (below): not softened by the world's CFM */
        set_motor_param(id, linear, dParamCFM, 0.0);
    return id;
}

/* The axis's motor is a joint of its own (create_motor_joint): a motor on a limit with room
   between its stops (lo == hi locks the axis: ODE leaves the motor out, and so does tplan). */
static bool own_motor_row(const tpJointAxisDef *ax)
{
    return ax->motor && ax->limit && ax->lo < ax->hi;
}

static dJointID create_ode_joint(tpWorld *w, tpJointDef *jd)
{
    dBodyID a = w->rt[jd->body_a].body;
    dBodyID b = jd->body_b >= 0 ? w->rt[jd->body_b].body : NULL; /* a static body: the world */
    dJointID id = NULL;
    const double *p = jd->anchor, *x = jd->axis, *x2 = jd->axis2;
    switch (jd->kind) {
    case TP_JOINT_HINGE:
        id = dJointCreateHinge(w->world, 0);
        dJointAttach(id, a, b);
        dJointSetHingeAnchor(id, p[0], p[1], p[2]);
        dJointSetHingeAxis(id, x[0], x[1], x[2]);
        break;
    case TP_JOINT_SLIDER:
        id = dJointCreateSlider(w->world, 0);
        dJointAttach(id, a, b);
        dJointSetSliderAxis(id, x[0], x[1], x[2]);
        break;
    case TP_JOINT_BALL:
        id = dJointCreateBall(w->world, 0);
        dJointAttach(id, a, b);
        dJointSetBallAnchor(id, p[0], p[1], p[2]);
        break;
    case TP_JOINT_FIXED:
        id = dJointCreateFixed(w->world, 0);
        dJointAttach(id, a, b);
        dJointSetFixed(id);
        break;
    case TP_JOINT_UNIVERSAL:
        id = dJointCreateUniversal(w->world, 0);
        dJointAttach(id, a, b);
        dJointSetUniversalAnchor(id, p[0], p[1], p[2]);
        dJointSetUniversalAxis1(id, x[0], x[1], x[2]);
        dJointSetUniversalAxis2(id, x2[0], x2[1], x2[2]);
        break;
    case TP_JOINT_HINGE2: {
        id = dJointCreateHinge2(w->world, 0);
        dJointAttach(id, a, b);
        dJointSetHinge2Anchor(id, p[0], p[1], p[2]);
        const dReal ax1[4] = {x[0], x[1], x[2], 0}, ax2[4] = {x2[0], x2[1], x2[2], 0};
        dJointSetHinge2Axes(id, ax1, ax2);
        break;
    }
    case TP_JOINT_DISTANCE: {
        id = dJointCreateDBall(w->world, 0);
        dJointAttach(id, a, b);
        dJointSetDBallAnchor1(id, p[0], p[1], p[2]);
        dJointSetDBallAnchor2(id, jd->anchor2[0], jd->anchor2[1], jd->anchor2[2]);
        const double d[3] = {jd->anchor2[0] - p[0], jd->anchor2[1] - p[1], jd->anchor2[2] - p[2]};
        if (jd->length < 0.0)
            jd->length = norm3(d);
        dJointSetDBallDistance(id, jd->length);
        break;
    }
    }
    /* limits and motors; springs get their ERP and CFM per solve (tpJoints_SetStep) */
    for (int k = 0; k < g_kinds[jd->kind].axes; k++) {
        const tpJointAxisDef *ax = &jd->axes[k];
        const bool spring = ax->stiffness > 0.0 || ax->damping > 0.0;
        if (ax->limit) {
            /* hi first: ODE ignores a lo above the current hi */
            set_param(id, jd->kind, param(dParamHiStop, k), ax->hi);
            set_param(id, jd->kind, param(dParamLoStop, k), ax->lo);
            set_param(id, jd->kind, param(dParamBounce, k), ax->bounce);
        } else if (spring && jd->kind != TP_JOINT_HINGE2) {
            /* a spring is a stop at rest on both sides (lo == hi: ODE makes the row two-sided),
               softened by its ERP and CFM */
            set_param(id, jd->kind, param(dParamHiStop, k), ax->rest);
            set_param(id, jd->kind, param(dParamLoStop, k), ax->rest);
        }
        if (ax->motor && !own_motor_row(ax)) {
            set_param(id, jd->kind, param(dParamVel, k), ax->speed);
            set_param(id, jd->kind, param(dParamFMax, k), ax->max_force);
        }
        if (ax->motor && ax->driven && !ax->limit && !spring) {
            /* a driven motor's row is not softened by the world's CFM (which would leave it short of
               each commanded speed by about CFM x its force: 1.5 cm/s for a 4 kg cart changing speed
               by 4 m/s in a step): the step reaches the target whenever max_force allows */
            set_param(id, jd->kind, param(dParamCFM, k), 0.0);
        }
    }
    return id;
}

bool tpJoints_Create(tpWorld *w, char *err, size_t errlen)
{
    const int nj = w->def.njoints, nb = w->def.nbodies > 0 ? w->def.nbodies : 1;
    if (nj == 0)
        return true;
    w->joints = calloc((size_t)nj, sizeof *w->joints);
    w->joint_id = calloc((size_t)nj, sizeof *w->joint_id);
    w->joint_root = calloc((size_t)nb, sizeof *w->joint_root);
    w->joint_flags = calloc((size_t)nb, sizeof *w->joint_flags);
    w->joint_min = calloc((size_t)nb, sizeof *w->joint_min);
    w->nocollide = calloc((size_t)nj, sizeof *w->nocollide);
    w->motor_id = calloc(2 * (size_t)nj, sizeof *w->motor_id);
    if (!w->joints || !w->joint_id || !w->joint_root || !w->joint_flags || !w->joint_min || !w->nocollide ||
        !w->motor_id) {
        tpErrorf(err, errlen, "scene: out of memory for %d joints", nj);
        return false;
    }
    memcpy(w->joints, w->def.joints, (size_t)nj * sizeof *w->joints);
    w->def.joints = w->joints;
    for (int i = 0; i < w->def.nbodies; i++)
        w->joint_root[i] = i;
    w->joint_h = -1.0;
    for (int j = 0; j < nj; j++) {
        tpJointDef *jd = &w->joints[j];
        unit3(jd->axis);
        unit3(jd->axis2);
        w->joint_id[j] = create_ode_joint(w, jd);
        if (w->joint_id[j] == NULL) {
            tpErrorf(err, errlen, "joint #%d: ODE could not create it", j);
            return false;
        }
        for (int k = 0; k < g_kinds[jd->kind].axes; k++) {
            if (!own_motor_row(&jd->axes[k]))
                continue;
            /* axis 1 turns with the first body; a universal's axis 2 with the second */
            const int rel = k == 1 && jd->kind == TP_JOINT_UNIVERSAL ? 2 : 1;
            w->motor_id[2 * j + k] = create_motor_joint(w, jd, k, rel);
            if (w->motor_id[2 * j + k] == NULL) {
                tpErrorf(err, errlen, "joint #%d: ODE could not create its motor on axis %d", j, k + 1);
                return false;
            }
        }
        for (int k = 0; k < g_kinds[jd->kind].axes; k++)
            w->joint_springs += jd->axes[k].stiffness > 0.0 || jd->axes[k].damping > 0.0;
        const int a = jd->body_a, b = jd->body_b;
        const bool b_moves = b >= 0 && w->rt[b].body != NULL;
        if (b_moves)
            tpUnion_Join(w->joint_root, a, b);
        if (!jd->collide && b >= 0) { /* the pair's broad-phase key (contacts.c) */
            const int lo = a < b ? a : b, hi = a < b ? b : a;
            w->nocollide[w->nnocollide++] = ((uint64_t)(uint32_t)lo << 32) | (uint32_t)hi;
        }
    }
    /* the groups: each body's root, and per root whether it is held (jointed to the world or a
       static body: at rest it counts as supported) and whether it may sleep at all (not when a
       scripted body or a running motor drives it) */
    for (int i = 0; i < w->def.nbodies; i++)
        w->joint_root[i] = tpUnion_Root(w->joint_root, i);
    for (int j = 0; j < nj; j++) {
        const tpJointDef *jd = &w->joints[j];
        const int r = w->joint_root[jd->body_a];
        w->joint_flags[r] |= TP_JOINT_GROUP_JOINTED;
        if (jd->body_b < 0 || w->rt[jd->body_b].body == NULL)
            w->joint_flags[r] |= TP_JOINT_GROUP_HELD;
        const bool kin = w->rt[jd->body_a].kinematic || (jd->body_b >= 0 && w->rt[jd->body_b].kinematic);
        bool driven = false; /* a driven motor's target changes with every action: never asleep */
        for (int k = 0; k < g_kinds[jd->kind].axes; k++)
            driven = driven || (jd->axes[k].motor && (jd->axes[k].speed != 0.0 || jd->axes[k].driven));
        if (kin || driven)
            w->joint_flags[r] |= TP_JOINT_GROUP_AWAKE;
    }
    /* the driven motors' action slots, in joint order then axis order */
    for (int j = 0; j < nj; j++)
        for (int k = 0; k < g_kinds[w->joints[j].kind].axes; k++)
            w->nmotor += w->joints[j].axes[k].motor && w->joints[j].axes[k].driven;
    if (w->nmotor > 0) {
        w->motor_joint = calloc((size_t)w->nmotor, sizeof *w->motor_joint);
        w->motor_axis = calloc((size_t)w->nmotor, sizeof *w->motor_axis);
        w->motor_max = calloc((size_t)w->nmotor, sizeof *w->motor_max);
        if (!w->motor_joint || !w->motor_axis || !w->motor_max) {
            tpErrorf(err, errlen, "scene: out of memory for %d driven motors", w->nmotor);
            return false;
        }
        int m = 0;
        for (int j = 0; j < nj; j++) {
            const tpJointDef *jd = &w->joints[j];
            for (int k = 0; k < g_kinds[jd->kind].axes; k++) {
                if (!(jd->axes[k].motor && jd->axes[k].driven))
                    continue;
                const bool angular = g_kinds[jd->kind].angular;
                w->motor_joint[m] = j;
                w->motor_axis[m] = k;
                w->motor_max[m] = jd->axes[k].max_speed > 0.0 ? jd->axes[k].max_speed
                                  : angular                   ? TP_MAX_ANGVEL
                                                              : TP_MAX_SPEED;
                m++;
            }
        }
    }
    /* sorted, for the broad phase's binary search */
    for (int i = 1; i < w->nnocollide; i++) {
        const uint64_t v = w->nocollide[i];
        int k = i;
        for (; k > 0 && w->nocollide[k - 1] > v; k--)
            w->nocollide[k] = w->nocollide[k - 1];
        w->nocollide[k] = v;
    }
    return true;
}

void tpJoints_Free(tpWorld *w)
{
    free(w->joints);
    free(w->joint_id);
    free(w->joint_root);
    free(w->joint_flags);
    free(w->joint_min);
    free(w->nocollide);
    free(w->motor_id);
    free(w->motor_joint);
    free(w->motor_axis);
    free(w->motor_max);
}

bool tpJoints_NoCollide(const tpWorld *w, uint64_t key)
{
    int lo = 0, hi = w->nnocollide;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (w->nocollide[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->nnocollide && w->nocollide[lo] == key;
}

/* ------------------------------------------------------------------------------------------ */
/* Springs                                                                                     */

void tpJoints_SetStep(tpWorld *w, double h)
{
    if (w->joint_springs == 0 || h == w->joint_h)
        return;
    w->joint_h = h;
    for (int j = 0; j < w->def.njoints; j++) {
        const tpJointDef *jd = &w->joints[j];
        for (int k = 0; k < g_kinds[jd->kind].axes; k++) {
            const tpJointAxisDef *ax = &jd->axes[k];
            if (!(ax->stiffness > 0.0 || ax->damping > 0.0))
                continue;
            /* ODE's manual (Joint error and the ERP; Soft constraint and CFM): a spring of stiffness
               k and damping c over a step h is ERP = h k / (h k + c), CFM = 1 / (h k + c) */
            const double d = h * ax->stiffness + ax->damping;
            const double erp = h * ax->stiffness / d, cfm = 1.0 / d;
            if (jd->kind == TP_JOINT_HINGE2) {
                set_param(w->joint_id[j], jd->kind, dParamSuspensionERP, erp);
                set_param(w->joint_id[j], jd->kind, dParamSuspensionCFM, cfm);
            } else {
                set_param(w->joint_id[j], jd->kind, param(dParamStopERP, k), erp);
                set_param(w->joint_id[j], jd->kind, param(dParamStopCFM, k), cfm);
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The anchors' position projection                                                          */

/* ODE holds a joint by its velocity: the anchors' relative velocity along each constrained
 * direction is made 0 (plus erp x error / h). A body turning at w carries its anchor, at d from its
 * centre of mass, on a circle while the step moves it on the tangent, so the anchor leaves the
 * constraint by d (1 - cos wh) a step; ODE's error reduction takes erp of it back in each step
 * after, and a swing settles at that error / erp (a 1 m bar on a hinge at 5.4 rad/s: 8.9 mm at
 * 1/60 s, erp 0.2; plain ODE gives the same). A distance joint's anchors part the same way as
 * they pass each other. So after every solve the anchors are put back together by translating
 * the bodies, mass-weighted, by what exceeds TP_JOINT_SLOP (ODE's error reduction keeps what is
 * below, so a slow scene is untouched): velocities are not touched, so no kinetic energy is made
 * (the projection of Box2D v2's joints; adaptive substeps by the swing's speed were tried and
 * dropped: a substep count that changes from step to step let ODE's error reduction pump energy
 * into a hanging chain, which then never came to rest). Hinge, ball, universal, hinge2 and
 * distance joints; a slider's or fixed joint's drift is left to ODE. Deterministic: joint order,
 * TP_JOINT_SWEEPS Gauss-Seidel sweeps. */
#define TP_JOINT_SLOP 1e-4 /* m: an anchor error ODE's own error reduction keeps */
#define TP_JOINT_SWEEPS 4  /* sweeps over the joints (a chain's errors spread along it) */

/* Joint j's anchors in the world (a's and b's: m), at the bodies' current poses; false for the
 * kinds without an anchor (slider, fixed). */
static bool joint_anchors(const tpWorld *w, int j, dVector3 pa, dVector3 pb)
{
    const dJointID id = w->joint_id[j];
    switch (w->joints[j].kind) {
    case TP_JOINT_HINGE:
        dJointGetHingeAnchor(id, pa), dJointGetHingeAnchor2(id, pb);
        return true;
    case TP_JOINT_BALL:
        dJointGetBallAnchor(id, pa), dJointGetBallAnchor2(id, pb);
        return true;
    case TP_JOINT_UNIVERSAL:
        dJointGetUniversalAnchor(id, pa), dJointGetUniversalAnchor2(id, pb);
        return true;
    case TP_JOINT_HINGE2:
        dJointGetHinge2Anchor(id, pa), dJointGetHinge2Anchor2(id, pb);
        return true;
    case TP_JOINT_DISTANCE:
        dJointGetDBallAnchor1(id, pa), dJointGetDBallAnchor2(id, pb);
        return true;
    case TP_JOINT_SLIDER:
    case TP_JOINT_FIXED:
        break;
    }
    return false;
}

/* 1 / mass of body i when the projection may move it (dynamic, awake), else 0. */
static double movable_inv_mass(const tpWorld *w, int i)
{
    if (i < 0)
        return 0.0;
    const tpBodyRt *r = &w->rt[i];
    if (r->body == NULL || r->kinematic || r->asleep || !dBodyIsEnabled(r->body) || !(r->mass > 0.0))
        return 0.0;
    return 1.0 / r->mass;
}

static void shift_body(dBodyID b, const double d[3], double f)
{
    const dReal *p = dBodyGetPosition(b);
    dBodySetPosition(b, p[0] + f * d[0], p[1] + f * d[1], p[2] + f * d[2]);
}

void tpJoints_Project(tpWorld *w)
{
    for (int sweep = 0; sweep < TP_JOINT_SWEEPS; sweep++) {
        bool moved = false;
        for (int j = 0; j < w->def.njoints; j++) {
            const tpJointDef *jd = &w->joints[j];
            const double ia = movable_inv_mass(w, jd->body_a), ib = movable_inv_mass(w, jd->body_b);
            dVector3 pa, pb;
            if (ia + ib == 0.0 || !joint_anchors(w, j, pa, pb))
                continue;
            double e[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]}; /* m: a's anchor to b's */
            double len = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
            if (jd->kind == TP_JOINT_HINGE2 && (jd->axes[0].stiffness > 0.0 || jd->axes[0].damping > 0.0)) {
                /* a sprung hinge2's anchors part along the steering axis: that is its suspension's
                   travel, not an error (only what is across the axis is projected away) */
                dVector3 ax;
                dJointGetHinge2Axis1(w->joint_id[j], ax);
                const double d = e[0] * ax[0] + e[1] * ax[1] + e[2] * ax[2];
                for (int k = 0; k < 3; k++)
                    e[k] -= d * ax[k];
                len = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
            }
            /* how far a's anchor must move along e (and b's back) to close the error to the slop */
            double gap = len;
            if (jd->kind == TP_JOINT_DISTANCE)
                gap = len - jd->length; /* > 0: the rod stretched */
            if (!(fabs(gap) > TP_JOINT_SLOP) || !(len > 0.0))
                continue;
            const double fix = (gap > 0.0 ? gap - TP_JOINT_SLOP : gap + TP_JOINT_SLOP) / len;
            for (int k = 0; k < 3; k++)
                e[k] *= fix;
            if (ia > 0.0)
                shift_body(w->rt[jd->body_a].body, e, ia / (ia + ib));
            if (ib > 0.0)
                shift_body(w->rt[jd->body_b].body, e, -ib / (ia + ib));
            moved = true;
        }
        if (!moved)
            break;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Jointed groups sleep and wake together                                                      */

void tpJoints_SleepGroups(tpWorld *w)
{
    /* joint_min[root]: 1 while every member of the group may sleep */
    for (int k = 0; k < w->nstate; k++) {
        const int i = w->state_body[k];
        w->joint_min[w->joint_root[i]] = 1;
    }
    for (int k = 0; k < w->nstate; k++) {
        const int i = w->state_body[k];
        const int r = w->joint_root[i];
        if (!w->rt[i].asleep || (w->joint_flags[r] & TP_JOINT_GROUP_AWAKE))
            w->joint_min[r] = 0;
    }
    for (int k = 0; k < w->nstate; k++) {
        const int i = w->state_body[k];
        if (w->rt[i].asleep && !w->joint_min[w->joint_root[i]])
            w->rt[i].asleep = false;
    }
}

bool tpJoints_Wake(tpWorld *w)
{
    bool any = false;
    for (int j = 0; j < w->def.njoints && w->nasleep > 0; j++) {
        const tpJointDef *jd = &w->joints[j];
        if (jd->body_b < 0)
            continue;
        tpBodyRt *a = &w->rt[jd->body_a], *b = &w->rt[jd->body_b];
        if (b->body == NULL || a->asleep == b->asleep)
            continue;
        tpWorld_Wake(w, a->asleep ? a : b);
        any = true;
    }
    return any;
}

bool tpJoints_Held(const tpWorld *w, int body)
{
    return w->def.njoints > 0 && (w->joint_flags[w->joint_root[body]] & TP_JOINT_GROUP_HELD);
}

void tpJoints_CountRest(tpWorld *w, uint8_t *rest_new)
{
    /* a group counts as its slowest member: nobody's velocities are zeroed before all can be */
    for (int k = 0; k < w->nstate; k++)
        w->joint_min[w->joint_root[w->state_body[k]]] = 255;
    for (int k = 0; k < w->nstate; k++) {
        int *m = &w->joint_min[w->joint_root[w->state_body[k]]];
        if (rest_new[k] < *m)
            *m = rest_new[k];
    }
    for (int k = 0; k < w->nstate; k++) {
        const int m = w->joint_min[w->joint_root[w->state_body[k]]];
        if (m < w->rest_steps && rest_new[k] >= w->rest_steps)
            rest_new[k] = (uint8_t)(w->rest_steps - 1);
    }
}

void tpJoints_InFlight(tpWorld *w)
{
    for (int j = 0; j < w->def.njoints; j++) {
        const tpJointDef *jd = &w->joints[j];
        w->rt[jd->body_a].in_flight = false;
        if (jd->body_b >= 0)
            w->rt[jd->body_b].in_flight = false;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Driven motors: a target speed in every action                                               */

int tpJoints_BadTarget(tpWorld *w, const double *targets)
{
    for (int m = 0; m < w->nmotor; m++) {
        const int j = w->motor_joint[m];
        const double lim = g_kinds[w->joints[j].kind].angular ? TP_MAX_ANGVEL : TP_MAX_SPEED;
        if (!(fabs(targets[m]) <= lim)) {
            w->failure.kind = TP_STEP_BAD_ACTION;
            w->failure.what = TP_STEP_VALUE_MOTOR;
            w->failure.a = w->joints[j].body_a;
            w->failure.b = w->joints[j].body_b;
            w->failure.joint = j;
            w->failure.axis = w->motor_axis[m];
            w->failure.value = targets[m];
            w->failure.limit = lim;
            return m;
        }
    }
    return -1;
}

void tpJoints_Drive(tpWorld *w, const double *targets)
{
    for (int m = 0; m < w->nmotor; m++) {
        const int j = w->motor_joint[m], k = w->motor_axis[m];
        const dJointID own = w->motor_id[2 * j + k];
        if (own != NULL)
            set_motor_param(own, w->joints[j].kind == TP_JOINT_SLIDER, dParamVel, targets[m]);
        else
            set_param(w->joint_id[j], w->joints[j].kind, param(dParamVel, k), targets[m]);
    }
}

int tpWorld_MotorCount(const tpWorld *w)
{
    return w->nmotor;
}

int tpWorld_ActionCount(const tpWorld *w)
{
    return 6 * w->ncontrol + w->nmotor;
}

int tpWorld_MotorJoint(const tpWorld *w, int m, int *axis)
{
    TP_ASSERT(m >= 0 && m < w->nmotor); /* Release: -1 */
    const bool ok = m >= 0 && m < w->nmotor;
    if (axis)
        *axis = ok ? w->motor_axis[m] : -1;
    return ok ? w->motor_joint[m] : -1;
}

int tpWorld_MotorSlot(const tpWorld *w, int j, int k)
{
    for (int m = 0; m < w->nmotor; m++)
        if (w->motor_joint[m] == j && w->motor_axis[m] == k)
            return m;
    return -1;
}

double tpWorld_MotorMaxSpeed(const tpWorld *w, int m)
{
    TP_ASSERT(m >= 0 && m < w->nmotor); /* Release: 0 */
    return m >= 0 && m < w->nmotor ? w->motor_max[m] : 0.0;
}

/* ------------------------------------------------------------------------------------------ */
/* Queries                                                                                     */

int tpWorld_JointCount(const tpWorld *w)
{
    return w->def.njoints;
}

const tpJointDef *tpWorld_Joint(const tpWorld *w, int j)
{
    TP_ASSERT(j >= 0 && j < w->def.njoints); /* Release: NULL */
    return j >= 0 && j < w->def.njoints ? &w->joints[j] : NULL;
}

int tpWorld_FindJoint(const tpWorld *w, const char *name)
{
    if (name == NULL || name[0] == '\0')
        return -1;
    for (int j = 0; j < w->def.njoints; j++)
        if (strcmp(w->joints[j].name, name) == 0)
            return j;
    return -1;
}

bool tpWorld_JointPosition(const tpWorld *w, int j, int k, double *pos, double *rate)
{
    double p = 0.0, r = 0.0;
    bool ok = j >= 0 && j < w->def.njoints && k >= 0 && k < 2;
    if (ok) {
        const dJointID id = w->joint_id[j];
        switch (w->joints[j].kind) {
        case TP_JOINT_HINGE:
            ok = k == 0;
            p = ok ? dJointGetHingeAngle(id) : 0.0, r = ok ? dJointGetHingeAngleRate(id) : 0.0;
            break;
        case TP_JOINT_SLIDER:
            ok = k == 0;
            p = ok ? dJointGetSliderPosition(id) : 0.0, r = ok ? dJointGetSliderPositionRate(id) : 0.0;
            break;
        case TP_JOINT_UNIVERSAL:
            p = k == 0 ? dJointGetUniversalAngle1(id) : dJointGetUniversalAngle2(id);
            r = k == 0 ? dJointGetUniversalAngle1Rate(id) : dJointGetUniversalAngle2Rate(id);
            break;
        case TP_JOINT_HINGE2:
            p = k == 0 ? dJointGetHinge2Angle1(id) : dJointGetHinge2Angle2(id);
            r = k == 0 ? dJointGetHinge2Angle1Rate(id) : dJointGetHinge2Angle2Rate(id);
            break;
        case TP_JOINT_DISTANCE: {
            ok = k == 0;
            dVector3 p1, p2;
            dJointGetDBallAnchor1(id, p1);
            dJointGetDBallAnchor2(id, p2);
            const double d[3] = {p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]};
            p = ok ? norm3(d) : 0.0;
            break;
        }
        case TP_JOINT_BALL:
        case TP_JOINT_FIXED:
            ok = false;
            break;
        }
    }
    if (pos)
        *pos = ok ? p : 0.0;
    if (rate)
        *rate = ok ? r : 0.0;
    return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* Joint positions from stored states (servo targets: tp.skill.motor { angle = ... })          */

/* r = p * q (Hamilton, w first). */
static void qmul(const double p[4], const double q[4], double r[4])
{
    const double w = p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3];
    const double x = p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2];
    const double y = p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1];
    const double z = p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0];
    r[0] = w, r[1] = x, r[2] = y, r[3] = z;
}

static void qconj(const double q[4], double r[4])
{
    r[0] = q[0], r[1] = -q[1], r[2] = -q[2], r[3] = -q[3];
}

/* v' = R(q) v (q unit). */
static void qrot(const double q[4], const double v[3], double out[3])
{
    double r[9];
    tpQuat_ToMatrix(q, r);
    for (int i = 0; i < 3; i++)
        out[i] = r[3 * i] * v[0] + r[3 * i + 1] * v[1] + r[3 * i + 2] * v[2];
}

/* v' = R(q)^T v. */
static void qrot_t(const double q[4], const double v[3], double out[3])
{
    double c[4];
    qconj(q, c);
    qrot(c, v, out);
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Pose of a joint's body `i` (-1: the world, identity) in the stored states x at time t. */
static void joint_body(const tpWorld *w, const tpBodyState *x, double t, int i, tpBodyState *out)
{
    if (i >= 0 && w->rt[i].body != NULL) {
        tpWorld_BodyState(w, x, t, i, out);
        return;
    }
    memset(out, 0, sizeof *out);
    out->quat[0] = 1.0;
}

bool tpWorld_JointPositionAt(const tpWorld *w, const tpBodyState *x, double t, int j, int k, double *pos)
{
    *pos = 0.0;
    if (j < 0 || j >= w->def.njoints || k < 0 || k > 1)
        return false;
    const tpJointDef *jd = &w->joints[j];
    const int ib = jd->body_b >= 0 && w->rt[jd->body_b].body != NULL ? jd->body_b : -1;
    tpBodyState a, b, a0, b0;
    joint_body(w, x, t, jd->body_a, &a);
    joint_body(w, x, t, ib, &b);
    /* the initial poses, at which the joint measured 0 */
    const tpBodyDef *da = &w->bodies[jd->body_a];
    memset(&a0, 0, sizeof a0);
    memcpy(a0.pos, da->pos, sizeof a0.pos);
    memcpy(a0.quat, da->quat, sizeof a0.quat);
    memset(&b0, 0, sizeof b0);
    b0.quat[0] = 1.0;
    if (ib >= 0) {
        memcpy(b0.pos, w->bodies[ib].pos, sizeof b0.pos);
        memcpy(b0.quat, w->bodies[ib].quat, sizeof b0.quat);
    }
    switch (jd->kind) {
    case TP_JOINT_HINGE: {
        if (k != 0)
            return false;
        /* a's rotation relative to b since the start, conj(qb) qa conj(qa0) qb0, is a turn about
           the axis in b's frame: ODE's angle is its signed angle (a turning positively about the
           axis, relative to b) */
        double cb[4], ca0[4], t1[4], t2[4], dq[4], axb[3];
        qconj(b.quat, cb);
        qconj(a0.quat, ca0);
        qmul(cb, a.quat, t1);
        qmul(t1, ca0, t2);
        qmul(t2, b0.quat, dq);
        qrot_t(b0.quat, jd->axis, axb);
        /* ODE's reading: the turn's whole angle (|sin| from the vector part, so that a joint's
           small off-axis error changes it as ODE's), signed by the axis */
        const double sn = sqrt(dot3(dq + 1, dq + 1));
        double th = 2.0 * atan2(dot3(dq + 1, axb) >= 0.0 ? sn : -sn, dq[0]);
        if (th > TP_PI)
            th -= 2.0 * TP_PI;
        else if (th <= -TP_PI)
            th += 2.0 * TP_PI;
        *pos = th;
        return true;
    }
    case TP_JOINT_SLIDER: {
        if (k != 0)
            return false;
        /* a's offset from b (in b's frame at the start), now, along the axis (on a) */
        double d0[3], off[3], axa[3], ax[3], d[3];
        for (int i = 0; i < 3; i++)
            d[i] = a0.pos[i] - b0.pos[i];
        qrot_t(b0.quat, d, d0);
        qrot(b.quat, d0, off);
        qrot_t(a0.quat, jd->axis, axa);
        qrot(a.quat, axa, ax);
        for (int i = 0; i < 3; i++)
            d[i] = a.pos[i] - b.pos[i] - off[i];
        *pos = dot3(d, ax);
        return true;
    }
    case TP_JOINT_HINGE2: {
        if (k != 0)
            return false;
        /* the steering angle: the spin axis (fixed on the wheel b) seen from the chassis a, about
           the steering axis (fixed on a), from where it pointed at the start (ODE's measure) */
        double v1[3], s1[3], v2[3], sb[3], sw[3], q[3];
        qrot_t(a0.quat, jd->axis2, v1);
        qrot_t(a0.quat, jd->axis, s1);
        const double along = dot3(v1, s1);
        for (int i = 0; i < 3; i++)
            v1[i] -= along * s1[i];
        v2[0] = s1[1] * v1[2] - s1[2] * v1[1];
        v2[1] = s1[2] * v1[0] - s1[0] * v1[2];
        v2[2] = s1[0] * v1[1] - s1[1] * v1[0];
        qrot_t(b0.quat, jd->axis2, sb);
        qrot(b.quat, sb, sw);
        qrot_t(a.quat, sw, q);
        /* ODE's sign: the chassis turning positively about the axis relative to the wheel */
        *pos = -atan2(dot3(q, v2), dot3(q, v1));
        return true;
    }
    default:
        return false;
    }
}

double tpWorld_ServoSpeed(const tpWorld *w, const tpBodyState *x, double t, int m, double target, double gain)
{
    int axis = 0;
    const int j = tpWorld_MotorJoint(w, m, &axis);
    double pos = 0.0;
    if (j < 0 || !tpWorld_JointPositionAt(w, x, t, j, axis, &pos))
        return 0.0;
    /* the velocity motor reaches the commanded speed whenever max_force allows, so the error
       decays as exp(-gain t) under any load the motor can hold; the clamp keeps it a valid target */
    const double lim = tpWorld_MotorMaxSpeed(w, m);
    const double v = gain * (target - pos);
    return v > lim ? lim : v < -lim ? -lim : v;
}
