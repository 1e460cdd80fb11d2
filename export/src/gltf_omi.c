/* The physics of a glTF export as OMI_physics_body + OMI_physics_shape + OMI_physics_joint (the
 * form tp.scene reads back, mesh/src/gltf_scene.c and gltf_joints.c): each body node gets its
 * motion (type, mass, initial velocities) and its collider; a compound's parts are child nodes with
 * a collider each; a joint is two nodes, its frame under the second body (or the world) and the
 * connected frame under the first, and a `physicsJoints` entry of limits and drives (a hinge2, which
 * OMI has no form for, as a universal's, marked for tp.scene: tpExport_JointWritable). docs/export.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

static bool is_plane(const tpPlanBody *b)
{
    return strcmp(b->shape, "plane") == 0;
}

static bool is_hinge2(const tpExportJoint *jt)
{
    return strcmp(jt->kind, "hinge2") == 0;
}

bool tpExport_JointWritable(const tpExportJoint *jt, char *why, size_t whylen)
{
    if (!is_hinge2(jt))
        return true;
    /* a hinge2 is a universal's frame (steering X, spin Y): its axes must be perpendicular */
    const double *e = jt->axis, *f = jt->axis2;
    const double ne = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]), nf = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    const double c = ne > 0 && nf > 0 ? (e[0] * f[0] + e[1] * f[1] + e[2] * f[2]) / (ne * nf) : 1.0;
    if (fabs(c) <= 1e-6)
        return true;
    if (why && whylen)
        snprintf(why, whylen,
                 "its steering and spin axes are not perpendicular (cos %.3g): OMI_physics_joint's frame "
                 "cannot hold it",
                 c);
    return false;
}

/* A joint the file can carry (tpExport_JointWritable) between bodies of the record. */
static bool joint_ok(const tpXOmi *o, int j)
{
    const tpExportJoint *jt = &o->ph->joints[j];
    return tpExport_JointWritable(jt, NULL, 0) && jt->a >= 0 && jt->a < o->rec->nbodies && jt->b < o->rec->nbodies;
}

static int njoints(const tpXOmi *o)
{
    return o->ph ? o->ph->njoints : 0;
}

int tpXOmi_ExtraNodes(const tpXOmi *o)
{
    int n = 0;
    for (int b = 0; b < o->rec->nbodies; ++b)
        n += o->rec->bodies[b].nparts;
    for (int j = 0; j < njoints(o); ++j)
        n += joint_ok(o, j) ? 2 : 0;
    return n;
}

/* The index of body b's first part node; of joint j's frame node (its connected node is the next). */
static int part_node(const tpXOmi *o, int b)
{
    int n = o->first;
    for (int k = 0; k < b; ++k)
        n += o->rec->bodies[k].nparts;
    return n;
}

static int joint_node(const tpXOmi *o, int j)
{
    int n = part_node(o, o->rec->nbodies);
    for (int k = 0; k < j; ++k)
        n += joint_ok(o, k) ? 2 : 0;
    return n;
}

/* The document shape index of body b's collider (or its part k's). */
static int shape_index(const tpXOmi *o, int b, int k)
{
    int n = 0;
    for (int i = 0; i < b; ++i) {
        const tpPlanBody *pb = &o->rec->bodies[i];
        n += pb->nparts > 0 ? pb->nparts : is_plane(pb) ? 0 : 1;
    }
    return n + k;
}

static void vec(tpXStr *s, const double *v, int n)
{
    tpXStr_Put(s, "[");
    for (int k = 0; k < n; ++k) {
        tpXStr_Put(s, k ? "," : "");
        tpXStr_Num(s, v[k]);
    }
    tpXStr_Put(s, "]");
}

static void yup(const double z[3], double y[3])
{
    tpExport_VecToYup(z, y);
}

void tpXOmi_Body(const tpXOmi *o, int b, tpXStr *s)
{
    const tpPlanBody *pb = &o->rec->bodies[b];
    const int ntree = o->tree ? tpXTree_BodyChildCount(o->tree, b) : 0;
    if (is_plane(pb)) { /* OMI_physics_shape has no plane: KHR_implicit_shapes' (its node's y is the normal) */
        int n = 0;
        if (ntree > 0) {
            tpXStr_Put(s, ",\"children\":[");
            tpXTree_Children(o->tree, b, s, &n);
            tpXStr_Put(s, "]");
        }
        if (pb->size[0] != 0 || pb->size[1] != 0 || pb->size[2] != 0)
            tpXStr_Put(s, ",\"extensions\":{\"KHR_physics_rigid_bodies\":{\"collider\":{\"geometry\":{\"shape\":0}}}}");
        return;
    }
    int nchild = pb->nparts + ntree;
    for (int j = 0; j < njoints(o); ++j) {
        if (!joint_ok(o, j))
            continue;
        nchild += o->ph->joints[j].b == b;
        nchild += o->ph->joints[j].a == b;
    }
    if (nchild > 0) {
        tpXStr_Put(s, ",\"children\":[");
        int n = 0;
        for (int k = 0; k < pb->nparts; ++k)
            tpXStr_Put(s, "%s%d", n++ ? "," : "", part_node(o, b) + k);
        for (int j = 0; j < njoints(o); ++j) {
            if (!joint_ok(o, j))
                continue;
            if (o->ph->joints[j].b == b)
                tpXStr_Put(s, "%s%d", n++ ? "," : "", joint_node(o, j));
            if (o->ph->joints[j].a == b)
                tpXStr_Put(s, "%s%d", n++ ? "," : "", joint_node(o, j) + 1);
        }
        if (ntree > 0)
            tpXTree_Children(o->tree, b, s, &n);
        tpXStr_Put(s, "]");
    }
    const bool moving = pb->moving && strcmp(pb->cls, "static") != 0;
    const bool scripted = strcmp(pb->cls, "foreign") == 0;
    tpXStr_Put(s, ",\"extensions\":{\"OMI_physics_body\":{\"motion\":{\"type\":\"%s\"",
               !moving    ? "static"
               : scripted ? "kinematic"
                          : "dynamic");
    if (moving) {
        const double m = o->ph && o->ph->mass ? o->ph->mass[b] : 0;
        if (m > 0 && !scripted) {
            tpXStr_Put(s, ",\"mass\":");
            tpXStr_Num(s, m);
        }
        double v[3], w[3];
        yup(o->st0[b] + 7, v);
        yup(o->st0[b] + 10, w);
        tpXStr_Put(s, ",\"linearVelocity\":");
        vec(s, v, 3);
        tpXStr_Put(s, ",\"angularVelocity\":");
        vec(s, w, 3);
    }
    tpXStr_Put(s, "}");
    if (pb->nparts == 0 && !(o->tree && tpXTree_Collider(o->tree, b, o->w0) >= 0)) /* else the file's collider node */
        tpXStr_Put(s, ",\"collider\":{\"shape\":%d}", shape_index(o, b, 0));
    tpXStr_Put(s, "}}");
}

int tpXOmi_ShapeIndex(const tpXOmi *o, int b, int k)
{
    return is_plane(&o->rec->bodies[b]) ? -1 : shape_index(o, b, k);
}

static void quat_mat(const double q[4], double R[9]) /* (x, y, z, w) */
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                         2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                         2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    memcpy(R, M, sizeof M);
}

/* A node at world pose (t, columns of R: glTF axes) under body `parent` (-1: a root): its local
 * translation and rotation. */
static void node_pose(const tpXOmi *o, tpXStr *s, int parent, const double t[3], const double R[9])
{
    double lt[3], lq[4], Rl[9];
    if (parent < 0) {
        memcpy(lt, t, sizeof lt);
        memcpy(Rl, R, sizeof Rl);
    } else {
        const double *st = o->st0[parent];
        double pz[3], pt[3], pq[4], Rp[9];
        tpX_NodeOrigin(&o->rec->bodies[parent], st, pz);
        yup(pz, pt);
        tpExport_QuatToYup(st + 3, pq);
        quat_mat(pq, Rp);
        const double d[3] = {t[0] - pt[0], t[1] - pt[1], t[2] - pt[2]};
        for (int i = 0; i < 3; ++i) {
            lt[i] = Rp[i] * d[0] + Rp[3 + i] * d[1] + Rp[6 + i] * d[2]; /* Rp^T d */
            for (int j = 0; j < 3; ++j)
                Rl[3 * i + j] = Rp[i] * R[j] + Rp[3 + i] * R[3 + j] + Rp[6 + i] * R[6 + j];
        }
    }
    tpX_MatrixQuat(Rl, lq);
    tpXStr_Put(s, ",\"translation\":");
    vec(s, lt, 3);
    tpXStr_Put(s, ",\"rotation\":");
    vec(s, lq, 4);
}

/* The joint's frame (columns: glTF world axes) for its kind: the free axes as the importer finds
 * them (hinge: Z; slider: X; universal: X and Y). */
static void joint_frame(const tpExportJoint *jt, double R[9])
{
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(R, I, sizeof I);
    const bool hinge = strcmp(jt->kind, "hinge") == 0, slider = strcmp(jt->kind, "slider") == 0;
    const bool uni = strcmp(jt->kind, "universal") == 0 || is_hinge2(jt); /* hinge2: steering X, spin Y */
    if (!hinge && !slider && !uni)
        return;
    double e[3], f[3], g[3], h[3];
    yup(jt->axis, e);
    double n = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    for (int k = 0; k < 3; ++k)
        e[k] /= n;
    if (uni) {
        yup(jt->axis2, f);
    } else { /* any unit vector perpendicular to e */
        const double a[3] = {fabs(e[0]) < 0.9 ? 1 : 0, fabs(e[0]) < 0.9 ? 0 : 1, 0};
        const double d = a[0] * e[0] + a[1] * e[1] + a[2] * e[2];
        for (int k = 0; k < 3; ++k)
            f[k] = a[k] - d * e[k];
    }
    n = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int k = 0; k < 3; ++k)
        f[k] /= n;
    /* hinge: (f, e x f, e) ; slider, universal: (e, f, e x f) */
    const double c[3] = {e[1] * f[2] - e[2] * f[1], e[2] * f[0] - e[0] * f[2], e[0] * f[1] - e[1] * f[0]};
    const double *cols[3] = {e, f, c};
    if (hinge) {
        memcpy(g, f, sizeof g);
        memcpy(h, c, sizeof h);
        cols[0] = g, cols[1] = h, cols[2] = e;
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            R[3 * i + j] = cols[j][i];
}

void tpXOmi_Nodes(const tpXOmi *o, tpXStr *s)
{
    const tpPlanRecord *rec = o->rec;
    for (int b = 0; b < rec->nbodies; ++b) {
        const tpPlanBody *pb = &rec->bodies[b];
        for (int k = 0; k < pb->nparts; ++k) {
            const tpPlanPart *p = &pb->parts[k];
            double z[3], t[3], q[4];
            for (int c = 0; c < 3; ++c)
                z[c] = p->pos[c] - pb->mesh_origin[c];
            yup(z, t);
            tpExport_QuatToYup(p->quat, q);
            tpXStr_Put(s, ",\n{\"name\":");
            char name[200];
            const char *own = o->tree ? tpXTree_PartName(o->tree, b, k) : ""; /* the scene file's collider node */
            if (own[0])
                snprintf(name, sizeof name, "%s", own);
            else
                snprintf(name, sizeof name, "%s part %d", pb->name, k + 1);
            tpXStr_String(s, name);
            tpXStr_Put(s, ",\"translation\":");
            vec(s, t, 3);
            tpXStr_Put(s, ",\"rotation\":");
            vec(s, q, 4);
            if (o->tree) {
                tpXStr tmp = {0};
                int n = 0;
                tpXTree_PartChildren(o->tree, b, k, &tmp, &n);
                if (n > 0 && !tmp.oom)
                    tpXStr_Put(s, ",\"children\":[%s]", tmp.s);
                s->oom |= tmp.oom;
                free(tmp.s);
            }
            tpXStr_Put(s, ",\"extensions\":{\"OMI_physics_body\":{\"collider\":{\"shape\":%d}}}}",
                       shape_index(o, b, k));
        }
    }
    for (int j = 0, n = 0; j < njoints(o); ++j) {
        if (!joint_ok(o, j))
            continue;
        const tpExportJoint *jt = &o->ph->joints[j];
        const bool dist = strcmp(jt->kind, "distance") == 0;
        double R[9], pj[3], pc[3];
        joint_frame(jt, R);
        yup(dist ? jt->anchor2 : jt->anchor, pj);
        yup(jt->anchor, pc);
        char name[160];
        if (jt->name[0])
            snprintf(name, sizeof name, "%s", jt->name);
        else
            snprintf(name, sizeof name, "joint%d", j + 1);
        tpXStr_Put(s, ",\n{\"name\":");
        tpXStr_String(s, name);
        node_pose(o, s, jt->b, pj, R);
        tpXStr_Put(s, ",\"extensions\":{\"OMI_physics_joint\":{\"joint\":%d,\"connectedNode\":%d%s}}}", n++,
                   joint_node(o, j) + 1, jt->collide ? ",\"enableCollision\":true" : "");
        char cname[200];
        snprintf(cname, sizeof cname, "%s connected", name);
        tpXStr_Put(s, ",\n{\"name\":");
        tpXStr_String(s, cname);
        node_pose(o, s, jt->a, pc, R);
        tpXStr_Put(s, "}");
    }
}

void tpXOmi_Roots(const tpXOmi *o, tpXStr *s)
{
    for (int j = 0; j < njoints(o); ++j)
        if (joint_ok(o, j) && o->ph->joints[j].b < 0)
            tpXStr_Put(s, ",%d", joint_node(o, j));
}

/* The OMI_physics_shape of a part or body shape (tplan z is the OMI y axis: capsules, cylinders). */
static void shape(tpXStr *s, const char *kind, const double *size, int mesh, bool convex)
{
    if (strcmp(kind, "box") == 0) {
        const double g[3] = {size[0], size[2], size[1]};
        tpXStr_Put(s, "{\"type\":\"box\",\"box\":{\"size\":");
        vec(s, g, 3);
        tpXStr_Put(s, "}}");
    } else if (strcmp(kind, "sphere") == 0) {
        tpXStr_Put(s, "{\"type\":\"sphere\",\"sphere\":{\"radius\":");
        tpXStr_Num(s, size[0]);
        tpXStr_Put(s, "}}");
    } else if (strcmp(kind, "capsule") == 0 || strcmp(kind, "cylinder") == 0) {
        tpXStr_Put(s, "{\"type\":\"%s\",\"%s\":{\"height\":", kind, kind);
        tpXStr_Num(s, size[1]);
        tpXStr_Put(s, ",\"radiusTop\":");
        tpXStr_Num(s, size[0]);
        tpXStr_Put(s, ",\"radiusBottom\":");
        tpXStr_Num(s, size[0]);
        tpXStr_Put(s, "}}");
    } else { /* a mesh (a moving one collides as its hull) */
        tpXStr_Put(s, "{\"type\":\"%s\",\"%s\":{\"mesh\":%d}}", convex ? "convex" : "trimesh",
                   convex ? "convex" : "trimesh", mesh);
    }
}

/* A limit on some axes (mask of 0 X, 1 Y, 2 Z) between lo and hi. */
static void limit_axes(tpXStr *s, int *n, bool linear, int mask, double lo, double hi)
{
    tpXStr_Put(s, "%s{\"%s\":[", (*n)++ ? "," : "", linear ? "linearAxes" : "angularAxes");
    for (int a = 0, k = 0; a < 3; ++a)
        if (mask & (1 << a))
            tpXStr_Put(s, "%s%d", k++ ? "," : "", a);
    tpXStr_Put(s, "],\"min\":");
    tpXStr_Num(s, lo);
    tpXStr_Put(s, ",\"max\":");
    tpXStr_Num(s, hi);
    tpXStr_Put(s, "}");
}

/* One drive of a joint axis: keys[0..n) and their values ("stiffness", "damping" and
 * "positionTarget": a spring; "velocityTarget" and "maxForce": a motor). */
static void drive(tpXStr *d, int *nd, bool linear, int axis, const char *const keys[3], const double vals[3], int n)
{
    tpXStr_Put(d, "%s{\"type\":\"%s\",\"mode\":\"force\",\"axis\":%d", (*nd)++ ? "," : "",
               linear ? "linear" : "angular", axis);
    for (int k = 0; k < n; ++k) {
        tpXStr_Put(d, ",\"%s\":", keys[k]);
        tpXStr_Num(d, vals[k]);
    }
    tpXStr_Put(d, "}");
}

/* The limit (if any) of a free axis, and its drives (a spring, a motor). */
static void free_axis(tpXStr *s, int *nl, tpXStr *d, int *nd, bool linear, int axis, const tpExportJointAxis *x)
{
    static const char *const spring[3] = {"stiffness", "damping", "positionTarget"};
    static const char *const motor[3] = {"velocityTarget", "maxForce", ""};
    if (x->limit)
        limit_axes(s, nl, linear, 1 << axis, x->lo, x->hi);
    if (x->stiffness > 0) {
        const double v[3] = {x->stiffness, x->damping, x->rest};
        drive(d, nd, linear, axis, spring, v, 3);
    }
    if (x->motor) {
        const double v[3] = {x->speed, x->max_force, 0};
        drive(d, nd, linear, axis, motor, v, 2);
    }
}

static void physics_joint(tpXStr *s, const tpExportJoint *jt)
{
    tpXStr d = {0};
    int nl = 0, nd = 0;
    const char *k = jt->kind;
    tpXStr_Put(s, "{\"limits\":[");
    if (strcmp(k, "distance") == 0) {
        limit_axes(s, &nl, true, 7, jt->length, jt->length);
    } else if (strcmp(k, "slider") == 0) {
        limit_axes(s, &nl, true, 6, 0, 0);
        limit_axes(s, &nl, false, 7, 0, 0);
        free_axis(s, &nl, &d, &nd, true, 0, &jt->axes[0]);
    } else if (!is_hinge2(jt)) {
        limit_axes(s, &nl, true, 7, 0, 0);
        if (strcmp(k, "fixed") == 0)
            limit_axes(s, &nl, false, 7, 0, 0);
        if (strcmp(k, "hinge") == 0) {
            limit_axes(s, &nl, false, 3, 0, 0);
            free_axis(s, &nl, &d, &nd, false, 2, &jt->axes[0]);
        }
        if (strcmp(k, "universal") == 0) {
            limit_axes(s, &nl, false, 4, 0, 0);
            free_axis(s, &nl, &d, &nd, false, 0, &jt->axes[0]);
            free_axis(s, &nl, &d, &nd, false, 1, &jt->axes[1]);
        }
    }
    if (is_hinge2(jt)) {
        /* a wheel: the ball's three linear locks (or two, and a suspension spring along the
           steering axis X), angular Z locked, steering X (its stops, its motor), spin Y (its
           motor): the frame of a universal */
        const tpExportJointAxis *st = &jt->axes[0];
        const bool suspension = st->stiffness > 0;
        limit_axes(s, &nl, true, suspension ? 6 : 7, 0, 0);
        limit_axes(s, &nl, false, 4, 0, 0);
        tpExportJointAxis steer = *st;
        steer.stiffness = steer.damping = steer.rest = 0;
        free_axis(s, &nl, &d, &nd, false, 0, &steer);
        free_axis(s, &nl, &d, &nd, false, 1, &jt->axes[1]);
        if (suspension) {
            static const char *const spring[3] = {"stiffness", "damping", "positionTarget"};
            const double v[3] = {st->stiffness, st->damping, 0};
            drive(&d, &nd, true, 0, spring, v, 3);
        }
    }
    tpXStr_Put(s, "]");
    if (nd > 0 && !d.oom)
        tpXStr_Put(s, ",\"drives\":[%s]", d.s);
    if (is_hinge2(jt)) /* what tp.scene reads back as a hinge2 (another reader sees the universal) */
        tpXStr_Put(s, ",\"extras\":{\"tplan_kind\":\"hinge2\"}");
    s->oom |= d.oom;
    free(d.s);
    tpXStr_Put(s, "}");
}

void tpXOmi_Document(const tpXOmi *o, tpXStr *s)
{
    const tpPlanRecord *rec = o->rec;
    int nj = 0;
    for (int j = 0; j < njoints(o); ++j)
        nj += joint_ok(o, j);
    bool planes = false;
    for (int b = 0; b < rec->nbodies; ++b)
        planes |= is_plane(&rec->bodies[b]);
    tpXStr_Put(s, ",\n\"extensionsUsed\":[\"OMI_physics_body\",\"OMI_physics_shape\"%s%s],\n\"extensions\":{",
               nj ? ",\"OMI_physics_joint\"" : "",
               planes ? ",\"KHR_physics_rigid_bodies\",\"KHR_implicit_shapes\"" : "");
    if (planes)
        tpXStr_Put(s, "\"KHR_implicit_shapes\":{\"shapes\":[{\"type\":\"plane\",\"plane\":{}}]},");
    tpXStr_Put(s, "\"OMI_physics_shape\":{\"shapes\":[");
    int n = 0;
    for (int b = 0; b < rec->nbodies; ++b) {
        const tpPlanBody *pb = &rec->bodies[b];
        const bool convex = pb->moving && strcmp(pb->cls, "static") != 0;
        if (is_plane(pb))
            continue;
        if (pb->nparts == 0) {
            tpXStr_Put(s, n++ ? ",\n" : "\n");
            shape(s, pb->shape, pb->size, o->body_mesh[b], convex);
            continue;
        }
        for (int k = 0, m = o->part_mesh[b]; k < pb->nparts; ++k) {
            const tpPlanPart *p = &pb->parts[k];
            const bool mesh = strcmp(p->shape, "mesh") == 0;
            tpXStr_Put(s, n++ ? ",\n" : "\n");
            shape(s, p->shape, p->size, mesh ? m : -1, convex);
            m += mesh;
        }
    }
    tpXStr_Put(s, "]}");
    if (nj) {
        tpXStr_Put(s, ",\"OMI_physics_joint\":{\"physicsJoints\":[");
        for (int j = 0, k = 0; j < njoints(o); ++j) {
            if (!joint_ok(o, j))
                continue;
            tpXStr_Put(s, k++ ? ",\n" : "\n");
            physics_joint(s, &o->ph->joints[j]);
        }
        tpXStr_Put(s, "]}");
    }
    tpXStr_Put(s, "}");
}

int tpXOmi_MeshParts(const tpPlanBody *pb)
{
    int n = 0;
    for (int k = 0; k < pb->nparts; ++k)
        n += strcmp(pb->parts[k].shape, "mesh") == 0;
    return n;
}
