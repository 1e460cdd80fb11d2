/* glTF joints: OMI_physics_joint (its first drafts' document `constraints` with `nodeA`/`nodeB`,
 * and its later `physicsJoints` with `connectedNode`) and KHR_physics_rigid_bodies' `joint` (the
 * same `physicsJoints`: `limits` and `drives`), mapped onto tplan's joint kinds. A joint is six
 * degrees of freedom of its frame (the joint node's axes): each linear and angular axis locked,
 * free, limited or held by a spring; the locked set picks the kind (all: fixed; the three linear:
 * ball, hinge with one angular axis free, universal with two; two linear and every angular:
 * slider; a 3D linear limit of one length: distance). What cannot be mapped is named in a warning;
 * malformed values are errors naming the node and the field. docs/lua-api.md (tp.scene, joints). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_internal.h"
#include "tp/util.h"

#define FAIL TP_GLTF_FAIL

enum { DOF_FREE, DOF_LOCK, DOF_LIMIT, DOF_SOFT };

typedef struct tpDof {
    int state;
    double lo, hi;   /* DOF_LIMIT (rad or m); DOF_LOCK: lo = hi, the value */
    double k, c;     /* DOF_SOFT: a spring to lo (N/m or N m/rad; N s/m or N m s/rad) */
    bool soft_limit; /* a limit of finite stiffness (held hard: warned) */
    bool spring;     /* a drive's spring */
    double sk, sc, rest;
    bool motor; /* a drive's velocity target */
    double speed, max_force;
} tpDof;

typedef struct tpJointRead {
    tpDof dof[6];     /* linear x, y, z; angular x, y, z of the joint frame */
    double dist;      /* a 3D linear limit min = max = dist > 0 (a rod); 0 = none */
    bool cone;        /* a 2D or 3D angular limit that is not a lock (a cone) */
    bool unmapped;    /* a limit tplan has no joint for (2D or 3D linear range) */
    char unused[160]; /* properties read but not used, for the warning */
} tpJointRead;

enum { J_UNMAPPED, J_BODY, J_STILL, J_UNUSED, J_ALIGN, J_RENAMED, J_COUNT };

static const char *const k_joint_heads[J_COUNT] = {
    [J_UNMAPPED] = ("joints tplan cannot map onto a hinge, slider, ball, universal, fixed or distance joint, not "
                    "loaded"), /* parenthesised: one string, not a missing comma (clang -Wstring-concatenation) */
    [J_BODY] = "joints to a node that made no body (not a body, a trigger, nothing to collide), not loaded",
    [J_STILL] = "joints with no dynamic body, not loaded",
    [J_UNUSED] = "joint properties not used",
    [J_ALIGN] = "joints whose two frames do not coincide (joined where the bodies start)",
    [J_RENAMED] = "joints with a name already taken, renamed",
};

static void joint_name(const cJSON *nodes, long i, char out[TP_GLTF_NAME_MAX])
{
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, (int)i), "name");
    if (cJSON_IsString(nm) && nm->valuestring[0] && strlen(nm->valuestring) < TP_GLTF_NAME_MAX)
        snprintf(out, TP_GLTF_NAME_MAX, "%s", nm->valuestring);
    else
        snprintf(out, TP_GLTF_NAME_MAX, "node%ld", i);
}

static void note(tpJointRead *jr, const char *what)
{
    size_t at = strlen(jr->unused);
    if (strstr(jr->unused, what) == NULL && at + strlen(what) + 3 < sizeof jr->unused)
        snprintf(jr->unused + at, sizeof jr->unused - at, "%s%s", at ? "; " : "", what);
}

/* A number member: def when absent; an error unless finite (or +-inf when inf_ok: absent only). */
static bool num(tpGltf *g, const cJSON *o, const char *key, double def, const char *where, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        *out = def;
        return true;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || fabs(v->valuedouble) > 1e9)
        FAIL(g, "%s.%s: expected a finite number", where, key);
    *out = v->valuedouble;
    return true;
}

/* The axes of a limit (`linearAxes` or `angularAxes`): a bit set of 0 (X), 1 (Y), 2 (Z). */
static bool axes_of(tpGltf *g, const cJSON *o, const char *key, const char *where, int *mask, int *count)
{
    *mask = *count = 0;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key), *e;
    if (!a)
        return true;
    if (!cJSON_IsArray(a))
        FAIL(g, "%s.%s: expected an array of axes (0, 1, 2)", where, key);
    cJSON_ArrayForEach(e, a)
    {
        if (!cJSON_IsNumber(e) || !(e->valuedouble == 0 || e->valuedouble == 1 || e->valuedouble == 2))
            FAIL(g, "%s.%s: %g is not an axis (0 = X, 1 = Y, 2 = Z)", where, key,
                 cJSON_IsNumber(e) ? e->valuedouble : -1);
        const int bit = 1 << (int)e->valuedouble;
        if (!(*mask & bit))
            (*count)++;
        *mask |= bit;
    }
    return true;
}

/* One limit (OMI constraint: lowerLimit/upperLimit, default 0; KHR/OMI physicsJoints limit:
 * min/max, absent = unbounded) onto the degrees of freedom it names. */
static bool apply_limit(tpGltf *g, const cJSON *lim, bool omi_old, const char *where, tpJointRead *jr)
{
    if (!cJSON_IsObject(lim))
        FAIL(g, "%s: expected an object", where);
    int lm, lc, am, ac;
    if (!axes_of(g, lim, "linearAxes", where, &lm, &lc) || !axes_of(g, lim, "angularAxes", where, &am, &ac))
        return false;
    const char *klo = omi_old ? "lowerLimit" : "min", *khi = omi_old ? "upperLimit" : "max";
    double lo, hi, k, c;
    if (!num(g, lim, klo, omi_old ? 0.0 : -INFINITY, where, &lo) ||
        !num(g, lim, khi, omi_old ? 0.0 : INFINITY, where, &hi) || !num(g, lim, "stiffness", INFINITY, where, &k) ||
        !num(g, lim, "damping", omi_old ? 1.0 : 0.0, where, &c))
        return false;
    if (lo > hi)
        FAIL(g, "%s: %s = %g is above %s = %g", where, klo, lo, khi, hi);
    if (!(k > 0))
        FAIL(g, "%s.stiffness must be > 0 (got %g)", where, k);
    if (!(c >= 0))
        FAIL(g, "%s.damping must be >= 0 (got %g)", where, c);
    if (lc == 0 && ac == 0) {
        note(jr, "a limit with no axes");
        return true;
    }
    for (int pass = 0; pass < 2; pass++) {
        const int mask = pass ? am : lm, count = pass ? ac : lc;
        if (count == 0)
            continue;
        if (count > 1 && !omi_old && !(lo <= 0 && hi == 0)) { /* a distance or a cone, not per axis */
            if (pass == 0 && count == 3 && lo == hi && hi > 0 && isinf(k))
                jr->dist = hi;
            else if (pass == 1)
                jr->cone = true;
            else
                jr->unmapped = true;
            continue;
        }
        for (int a = 0; a < 3; a++) {
            if (!(mask & (1 << a)))
                continue;
            tpDof *d = &jr->dof[3 * pass + a];
            d->soft_limit = false;
            if (lo == hi && !isinf(k)) {
                d->state = DOF_SOFT;
                d->lo = d->hi = lo;
                d->k = k;
                d->c = c;
            } else if (lo == hi || (count > 1 && !omi_old)) {
                d->state = DOF_LOCK;
                d->lo = d->hi = count > 1 ? 0 : lo;
                if (d->lo != 0)
                    note(jr, "a lock at a non-zero offset (held where it starts)");
            } else {
                d->state = DOF_LIMIT;
                d->lo = lo;
                d->hi = hi;
                d->soft_limit = !isinf(k);
            }
        }
    }
    return true;
}

/* One drive of a physicsJoints entry: a spring (stiffness > 0: to positionTarget) or a velocity
 * motor (velocityTarget, at most maxForce). */
static bool apply_drive(tpGltf *g, const cJSON *dr, const char *where, tpJointRead *jr)
{
    if (!cJSON_IsObject(dr))
        FAIL(g, "%s: expected an object", where);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(dr, "type"),
                *mode = cJSON_GetObjectItemCaseSensitive(dr, "mode");
    if (!cJSON_IsString(type) ||
        (strcmp(type->valuestring, "linear") != 0 && strcmp(type->valuestring, "angular") != 0))
        FAIL(g, "%s.type: expected \"linear\" or \"angular\"", where);
    long axis;
    if (!tpGltfI_Int(g, dr, "axis", -1, 2, &axis, where))
        return false;
    if (axis < 0)
        FAIL(g, "%s.axis: expected 0, 1 or 2", where);
    double maxf, pt, vt, k, c;
    if (!num(g, dr, "maxForce", INFINITY, where, &maxf) || !num(g, dr, "positionTarget", 0, where, &pt) ||
        !num(g, dr, "velocityTarget", 0, where, &vt) || !num(g, dr, "stiffness", 0, where, &k) ||
        !num(g, dr, "damping", 0, where, &c))
        return false;
    if (!(k >= 0) || !(c >= 0) || !(maxf > 0))
        FAIL(g, "%s: stiffness and damping must be >= 0, maxForce > 0", where);
    if (cJSON_IsString(mode) && strcmp(mode->valuestring, "acceleration") == 0)
        note(jr, "a drive's acceleration mode (read as force)");
    tpDof *d = &jr->dof[(type->valuestring[0] == 'a' ? 3 : 0) + axis];
    if (k > 0) {
        d->spring = true;
        d->sk = k;
        d->sc = c;
        d->rest = pt;
        if (vt != 0)
            note(jr, "a spring drive's velocityTarget");
    } else if (vt != 0 || cJSON_GetObjectItemCaseSensitive(dr, "velocityTarget")) {
        d->motor = true;
        d->speed = vt;
        d->max_force = isinf(maxf) ? 1e6 : maxf;
        if (isinf(maxf))
            note(jr, "a drive without maxForce (1e6 used)");
    } else {
        note(jr, "a drive of damping only");
    }
    return true;
}

/* A world-frame (tplan, z up) unit axis a of node frame `world` (glTF axes). */
static void frame_axis(const double world[12], int a, double out[3])
{
    double v[3] = {world[a], world[4 + a], world[8 + a]};
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    out[0] = v[0] / n;
    out[1] = -v[2] / n;
    out[2] = v[1] / n;
}

/* The axis data of dof d into ax; false (with a note) for what does not fit tplan's axis. */
static void to_axis(const tpDof *d, bool rotation, tpJointRead *jr, tpGltfJointAxis *ax)
{
    memset(ax, 0, sizeof *ax);
    if (d->state == DOF_LIMIT) {
        double lo = d->lo, hi = d->hi;
        if (rotation && (lo < -TP_PI || hi > TP_PI)) {
            lo = fmax(lo, -TP_PI);
            hi = fmin(hi, TP_PI);
            if (lo > -TP_PI || hi < TP_PI)
                note(jr, "angular limits beyond +-pi (clamped)");
        }
        if (!rotation && (isinf(lo) || isinf(hi))) {
            lo = fmax(lo, -1e6);
            hi = fmin(hi, 1e6);
        }
        ax->limit = !(rotation && lo <= -TP_PI && hi >= TP_PI);
        ax->lo = lo;
        ax->hi = hi;
        if (d->soft_limit)
            note(jr, "soft limits (held hard)");
    } else if (d->state == DOF_SOFT) {
        ax->spring = true;
        ax->stiffness = d->k;
        ax->damping = d->c;
        ax->rest = d->lo;
    }
    if (d->spring) {
        if (ax->limit || ax->spring) {
            note(jr, "a spring drive on a limited axis");
        } else {
            ax->spring = true;
            ax->stiffness = d->sk;
            ax->damping = d->sc;
            ax->rest = d->rest;
        }
    }
    if (rotation && ax->spring && fabs(ax->rest) > TP_PI) {
        ax->rest = fmax(-TP_PI, fmin(TP_PI, ax->rest));
        note(jr, "a spring's rest beyond +-pi (clamped)");
    }
    if (d->motor) {
        ax->motor = true;
        ax->speed = d->speed;
        ax->max_force = d->max_force;
    }
}

/* The kind of joint the degrees of freedom make, and its axes (in the frame: 0..2), -1: none. */
static int kind_of(const tpJointRead *jr, int *ax1, int *ax2)
{
    int nl = 0, na = 0, freel = -1, frees[3], nfa = 0;
    for (int i = 0; i < 6; i++) {
        const tpDof *d = &jr->dof[i];
        const bool locked = d->state == DOF_LOCK && !d->spring && !d->motor;
        if (i < 3) {
            nl += locked;
            if (!locked)
                freel = i;
        } else {
            na += locked;
            if (!locked)
                frees[nfa++] = i - 3;
        }
    }
    *ax1 = *ax2 = 0;
    if (jr->unmapped)
        return -1;
    if (jr->dist > 0)
        return nl == 0 && na == 0 && !jr->cone ? TP_GLTF_JOINT_DISTANCE : -1;
    if (nl == 3 && na == 3)
        return TP_GLTF_JOINT_FIXED;
    if (nl == 3 && na == 0)
        return TP_GLTF_JOINT_BALL;
    if (nl == 3 && na == 2 && !jr->cone) {
        *ax1 = frees[0];
        return TP_GLTF_JOINT_HINGE;
    }
    if (nl == 3 && na == 1 && !jr->cone) {
        *ax1 = frees[0];
        *ax2 = frees[1];
        return TP_GLTF_JOINT_UNIVERSAL;
    }
    if (nl == 2 && na == 3 && !jr->cone) {
        *ax1 = freel;
        return TP_GLTF_JOINT_SLIDER;
    }
    return -1;
}

/* The scene body of body node bn: its index in sc->nodes, -1 none (-2: bn is -1, the world). */
static int body_index(const tpGltfScene *sc, long bn)
{
    if (bn < 0)
        return -2;
    for (int i = 0; i < sc->nnodes; i++)
        if (sc->nodes[i].body == bn && sc->nodes[i].shape != TP_GLTF_SHAPE_PLANE)
            return sc->nodes[i].marker ? -1 : i;
    return -1;
}

static bool node_ref(tpGltf *g, const cJSON *o, const char *key, int nn, const char *where, long *out)
{
    if (!cJSON_GetObjectItemCaseSensitive(o, key))
        FAIL(g, "%s.%s is required (the index of a node)", where, key);
    if (!tpGltfI_Int(g, o, key, -1, 1L << 30, out, where))
        return false;
    if (*out >= nn)
        FAIL(g, "%s.%s: node %ld does not exist (the file has %d nodes)", where, key, *out, nn);
    return true;
}

/* One joint node ni into *out: 1 made, 0 not (warned), -1 an error. */
static int read_joint(tpGltf *g, const cJSON *nodes, long ni, const int *body_of, const double *world,
                      tpGltfNames *lists, tpGltfJoint *out)
{
    const cJSON *node = cJSON_GetArrayItem(nodes, (int)ni);
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(node, "extensions");
    const cJSON *omi = ext ? cJSON_GetObjectItemCaseSensitive(ext, "OMI_physics_joint") : NULL;
    const cJSON *khr = ext ? cJSON_GetObjectItemCaseSensitive(ext, "KHR_physics_rigid_bodies") : NULL;
    const cJSON *kj = khr ? cJSON_GetObjectItemCaseSensitive(khr, "joint") : NULL;
    const cJSON *j = omi ? omi : kj;
    const int nn = cJSON_GetArraySize(nodes);
    char name[TP_GLTF_NAME_MAX], where[TP_GLTF_NAME_MAX + 96];
    joint_name(nodes, ni, name);
    snprintf(where, sizeof where, "nodes[%ld] '%s': %s", ni, name,
             omi ? "OMI_physics_joint" : "KHR_physics_rigid_bodies.joint");
    if (!cJSON_IsObject(j))
        FAIL(g, "%s: expected an object", where);
    tpJointRead jr;
    memset(&jr, 0, sizeof jr);
    const cJSON *rext = cJSON_GetObjectItemCaseSensitive(g->root, "extensions");
    const cJSON *droot =
        rext ? cJSON_GetObjectItemCaseSensitive(rext, omi ? "OMI_physics_joint" : "KHR_physics_rigid_bodies") : NULL;
    const bool omi_old = omi && cJSON_GetObjectItemCaseSensitive(omi, "constraints");
    long na, nb;
    const double *fa = world + 12 * ni, *fb = fa;
    if (omi_old) { /* constraints (document indices, or inline objects), nodeA, nodeB */
        if (!node_ref(g, omi, "nodeA", nn, where, &na) || !node_ref(g, omi, "nodeB", nn, where, &nb))
            return -1;
        const cJSON *cs = cJSON_GetObjectItemCaseSensitive(omi, "constraints"), *c;
        if (!cJSON_IsArray(cs) || cJSON_GetArraySize(cs) == 0)
            FAIL(g, "%s.constraints: expected an array of constraint indices", where);
        int k = 0;
        cJSON_ArrayForEach(c, cs)
        {
            char w2[sizeof where + 96];
            const cJSON *lim = c;
            if (cJSON_IsNumber(c)) {
                lim = droot ? tpGltfI_Item(droot, "constraints", (long)c->valuedouble) : NULL;
                if (!lim || c->valuedouble != floor(c->valuedouble))
                    FAIL(g, "%s.constraints[%d]: %g is not an index of extensions.OMI_physics_joint.constraints", where,
                         k, c->valuedouble);
                snprintf(w2, sizeof w2, "%s.constraints[%d] (extensions.OMI_physics_joint.constraints[%ld])", where, k,
                         (long)c->valuedouble);
            } else {
                snprintf(w2, sizeof w2, "%s.constraints[%d]", where, k);
            }
            if (!apply_limit(g, lim, true, w2, &jr))
                return -1;
            k++;
        }
        na = na >= 0 ? body_of[na] : -1;
        nb = nb >= 0 ? body_of[nb] : -1;
    } else { /* joint (a physicsJoints index), connectedNode, enableCollision */
        long ji, cn;
        if (!tpGltfI_Int(g, j, "joint", -1, 1L << 20, &ji, where) || !node_ref(g, j, "connectedNode", nn, where, &cn))
            return -1;
        const cJSON *pj = droot && ji >= 0 ? tpGltfI_Item(droot, "physicsJoints", ji) : NULL;
        if (!cJSON_IsObject(pj))
            FAIL(g, "%s.joint: %ld is not an index of extensions.%s.physicsJoints", where, ji,
                 omi ? "OMI_physics_joint" : "KHR_physics_rigid_bodies");
        const cJSON *lims = cJSON_GetObjectItemCaseSensitive(pj, "limits"),
                    *drs = cJSON_GetObjectItemCaseSensitive(pj, "drives"), *e;
        int k = 0;
        cJSON_ArrayForEach(e, lims)
        {
            char w2[sizeof where + 96];
            snprintf(w2, sizeof w2, "%s (physicsJoints[%ld].limits[%d])", where, ji, k++);
            if (!apply_limit(g, e, false, w2, &jr))
                return -1;
        }
        k = 0;
        cJSON_ArrayForEach(e, drs)
        {
            char w2[sizeof where + 96];
            snprintf(w2, sizeof w2, "%s (physicsJoints[%ld].drives[%d])", where, ji, k++);
            if (!apply_drive(g, e, w2, &jr))
                return -1;
        }
        out->collide = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "enableCollision"));
        na = body_of[ni];
        nb = body_of[cn];
        fb = world + 12 * cn;
    }
    int ax1, ax2;
    const int kind = kind_of(&jr, &ax1, &ax2);
    char label[TP_GLTF_NAME_MAX + 200];
    if (kind < 0) {
        int fl = 0, fa_ = 0;
        for (int i = 0; i < 6; i++) {
            const int open = jr.dof[i].state != DOF_LOCK || jr.dof[i].spring || jr.dof[i].motor;
            if (i < 3)
                fl += open;
            else
                fa_ += open;
        }
        snprintf(label, sizeof label, "%s (%d linear and %d angular axes free%s%s)", name, fl, fa_,
                 jr.cone ? ", a cone limit" : "", jr.unmapped || jr.dist > 0 ? ", a distance range" : "");
        tpGltfI_ListAdd(&lists[J_UNMAPPED], label);
        return 0;
    }
    const tpGltfScene *sc = g->scene;
    int ia = body_index(sc, na), ib = body_index(sc, nb);
    if (ia == -1 || ib == -1 || (ia == -2 && ib == -2)) {
        char bn[TP_GLTF_NAME_MAX];
        joint_name(nodes, ia == -1 ? na : nb, bn);
        snprintf(label, sizeof label, "%s (%s)", name, ia == -2 && ib == -2 ? "no body" : bn);
        tpGltfI_ListAdd(&lists[J_BODY], label);
        return 0;
    }
    if (ia == ib) {
        snprintf(label, sizeof label, "%s (joins '%s' to itself)", name, sc->nodes[ia].name);
        tpGltfI_ListAdd(&lists[J_BODY], label);
        return 0;
    }
    const tpGltfClass ca = ia >= 0 ? sc->nodes[ia].cls : TP_GLTF_STATIC,
                      cb = ib >= 0 ? sc->nodes[ib].cls : TP_GLTF_STATIC;
    const bool dyn_a = ca == TP_GLTF_PASSIVE || ca == TP_GLTF_ACTIVE,
               dyn_b = cb == TP_GLTF_PASSIVE || cb == TP_GLTF_ACTIVE;
    if (!dyn_a && !dyn_b) {
        tpGltfI_ListAdd(&lists[J_STILL], name);
        return 0;
    }
    /* tplan measures the first body relative to the second; the files, the connected node (B)
       relative to the joint's (A): with B first the axes stand, with A first they turn round */
    const bool b_first = dyn_b || cb == TP_GLTF_KINEMATIC;
    const int first = b_first ? ib : ia, second = b_first ? ia : ib;
    const double sign = b_first ? 1.0 : -1.0;
    memset(out->axes, 0, sizeof out->axes);
    snprintf(out->name, sizeof out->name, "%s", name);
    out->node = (int)ni;
    out->kind = (tpGltfJointKind)kind;
    snprintf(out->a, sizeof out->a, "%s", sc->nodes[first].name);
    snprintf(out->b, sizeof out->b, "%s", second >= 0 ? sc->nodes[second].name : "");
    double s[3], pa[3], pb[3], q[4];
    if (!tpGltfI_Decompose(g, fa, name, s, pa, q) || !tpGltfI_Decompose(g, fb, name, s, pb, q))
        return -1;
    memcpy(out->anchor, b_first ? pb : pa, sizeof out->anchor);
    memcpy(out->anchor2, b_first ? pa : pb, sizeof out->anchor2);
    out->length = jr.dist;
    if (kind != TP_GLTF_JOINT_DISTANCE) {
        double d2 = 0;
        for (int k = 0; k < 3; k++)
            d2 += (pa[k] - pb[k]) * (pa[k] - pb[k]);
        if (d2 > 1e-12)
            tpGltfI_ListAdd(&lists[J_ALIGN], name);
        memcpy(out->anchor, pa, sizeof out->anchor);
    }
    const bool linear = kind == TP_GLTF_JOINT_SLIDER;
    frame_axis(fa, ax1, out->axis);
    frame_axis(fa, ax2, out->axis2);
    for (int k = 0; k < 3; k++) {
        out->axis[k] *= sign;
        out->axis2[k] *= sign;
    }
    if (kind == TP_GLTF_JOINT_HINGE || kind == TP_GLTF_JOINT_SLIDER || kind == TP_GLTF_JOINT_UNIVERSAL)
        to_axis(&jr.dof[(linear ? 0 : 3) + ax1], !linear, &jr, &out->axes[0]);
    if (kind == TP_GLTF_JOINT_UNIVERSAL)
        to_axis(&jr.dof[3 + ax2], true, &jr, &out->axes[1]);
    if (kind == TP_GLTF_JOINT_BALL || kind == TP_GLTF_JOINT_DISTANCE || kind == TP_GLTF_JOINT_FIXED) {
        for (int i = 0; i < 6; i++)
            if (jr.dof[i].state == DOF_LIMIT || jr.dof[i].state == DOF_SOFT || jr.dof[i].spring || jr.dof[i].motor)
                note(&jr, "limits, springs and drives of a joint that has no axis");
        if (jr.cone)
            note(&jr, "a cone limit");
    }
    for (int a = 0; a < 2; a++) { /* a spring and a limit on one axis: ODE's stop holds one */
        tpGltfJointAxis *x = &out->axes[a];
        if (x->limit && x->spring) {
            x->spring = false;
            note(&jr, "a spring on a limited axis");
        }
    }
    if (jr.unused[0]) {
        snprintf(label, sizeof label, "%s (%s)", name, jr.unused);
        tpGltfI_ListAdd(&lists[J_UNUSED], label);
    }
    return 1;
}

bool tpGltfI_Joints(tpGltf *g, const cJSON *nodes, const int *order, int norder, const int *body_of,
                    const double *world)
{
    tpGltfScene *sc = g->scene;
    int n = 0;
    for (int o = 0; o < norder; o++) {
        const cJSON *ext = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, order[o]), "extensions");
        const cJSON *khr = ext ? cJSON_GetObjectItemCaseSensitive(ext, "KHR_physics_rigid_bodies") : NULL;
        n += ext && (cJSON_GetObjectItemCaseSensitive(ext, "OMI_physics_joint") ||
                     (khr && cJSON_GetObjectItemCaseSensitive(khr, "joint")));
    }
    if (n == 0)
        return true;
    sc->joints = calloc((size_t)n, sizeof *sc->joints);
    tpGltfNames lists[J_COUNT];
    memset(lists, 0, sizeof lists);
    for (int k = 0; k < J_COUNT; k++)
        lists[k].head = k_joint_heads[k];
    if (!sc->joints)
        FAIL(g, "out of memory");
    for (int o = 0; o < norder; o++) {
        const cJSON *ext = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, order[o]), "extensions");
        const cJSON *khr = ext ? cJSON_GetObjectItemCaseSensitive(ext, "KHR_physics_rigid_bodies") : NULL;
        if (!(ext && (cJSON_GetObjectItemCaseSensitive(ext, "OMI_physics_joint") ||
                      (khr && cJSON_GetObjectItemCaseSensitive(khr, "joint")))))
            continue;
        tpGltfJoint *jt = &sc->joints[sc->njoints];
        memset(jt, 0, sizeof *jt);
        const int r = read_joint(g, nodes, order[o], body_of, world, lists, jt);
        if (r < 0)
            return false;
        if (r == 0)
            continue;
        /* unique names: a second "Hinge" is "Hinge.2" */
        char base[TP_GLTF_NAME_MAX];
        snprintf(base, sizeof base, "%s", jt->name);
        for (int suffix = 2, taken = 1; taken; suffix++) {
            taken = 0;
            for (int k = 0; k < sc->njoints && !taken; k++)
                taken = strcmp(sc->joints[k].name, jt->name) == 0;
            if (taken) {
                if (suffix == 2)
                    tpGltfI_ListAdd(&lists[J_RENAMED], base);
                char tail[16];
                snprintf(tail, sizeof tail, ".%d", suffix % 100000);
                snprintf(jt->name, sizeof jt->name, "%.*s%s", (int)(sizeof jt->name - 1 - strlen(tail)), base, tail);
            }
        }
        sc->njoints++;
    }
    for (int k = 0; k < J_COUNT; k++)
        tpGltfI_ListFlush(g, &lists[k]);
    return true;
}
