/* The glTF export's node tree when the plan's scene came from a glTF file (tpExportSource): the
 * body nodes keep their places under the file's still nodes (animated relative to their parents),
 * and every other node of the file is written back with its name, its parent and its transform,
 * without the file's meshes and physics (docs/export.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

/* The 3x3 part of a row-major 3x4 is a rotation (orthonormal, det +1) within 1e-6. */
static bool rigid(const double m[12])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double d = 0;
            for (int k = 0; k < 3; k++)
                d += m[4 * k + i] * m[4 * k + j];
            if (fabs(d - (i == j)) > 1e-6)
                return false;
        }
    const double det =
        m[0] * (m[5] * m[10] - m[6] * m[9]) - m[1] * (m[4] * m[10] - m[6] * m[8]) + m[2] * (m[4] * m[9] - m[5] * m[8]);
    return det > 0;
}

static double det3(const double m[12])
{
    return m[0] * (m[5] * m[10] - m[6] * m[9]) - m[1] * (m[4] * m[10] - m[6] * m[8]) +
           m[2] * (m[4] * m[9] - m[5] * m[8]);
}

/* inv(a) b for affine 3x4 a (invertible) and b. */
static void inv_mul(const double a[12], const double b[12], double out[12])
{
    const double d = det3(a);
    double iv[9];
    iv[0] = (a[5] * a[10] - a[6] * a[9]) / d, iv[1] = (a[2] * a[9] - a[1] * a[10]) / d;
    iv[2] = (a[1] * a[6] - a[2] * a[5]) / d, iv[3] = (a[6] * a[8] - a[4] * a[10]) / d;
    iv[4] = (a[0] * a[10] - a[2] * a[8]) / d, iv[5] = (a[2] * a[4] - a[0] * a[6]) / d;
    iv[6] = (a[4] * a[9] - a[5] * a[8]) / d, iv[7] = (a[1] * a[8] - a[0] * a[9]) / d;
    iv[8] = (a[0] * a[5] - a[1] * a[4]) / d;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) {
            double v = 0;
            for (int k = 0; k < 3; k++)
                v += iv[3 * r + k] * (b[4 * k + c] - (c == 3 ? a[4 * k + 3] : 0.0));
            out[4 * r + c] = v;
        }
}

bool tpExport_SourceUsable(const tpExportSource *src, const tpPlanRecord *rec, char *why, size_t whylen)
{
    for (int i = 0; i < src->nnodes; i++) {
        const tpExportSourceNode *n = &src->nodes[i];
        if (n->parent < -1 || n->parent >= src->nnodes || n->parent == i || n->body >= rec->nbodies) {
            snprintf(why, whylen, "node %d '%s': its parent %d is not a node of the file", i, n->name, n->parent);
            return false;
        }
        for (int k = 0; k < 12; k++) {
            if (!(fabs(n->world[k]) <= 1e9)) { /* NaN too */
                snprintf(why, whylen, "node '%s': its transform is not finite (or beyond 1e9)", n->name);
                return false;
            }
        }
        if (!(fabs(det3(n->world)) > 1e-12)) {
            snprintf(why, whylen, "node '%s' has a zero scale", n->name);
            return false;
        }
        if (n->body < 0)
            continue;
        for (int k = 0; k < src->nnodes; k++)
            if (k != i && src->nodes[k].body == n->body) {
                snprintf(why, whylen, "body '%s' is named by two nodes", n->name);
                return false;
            }
        int depth = 0;
        for (int p = n->parent; p >= 0 && depth <= src->nnodes; p = src->nodes[p].parent, depth++) {
            if (src->nodes[p].body >= 0 && rec->bodies[src->nodes[p].body].moving) {
                snprintf(why, whylen, "body '%s' is under the moving body '%s' (its animation would be relative to it)",
                         n->name, src->nodes[p].name);
                return false;
            }
        }
        if (depth > src->nnodes) {
            snprintf(why, whylen, "node '%s': its parents make a cycle", n->name);
            return false;
        }
        if (n->parent >= 0 && !rigid(src->nodes[n->parent].world)) {
            snprintf(why, whylen, "body '%s' is under '%s', which is scaled or sheared", n->name,
                     src->nodes[n->parent].name);
            return false;
        }
    }
    return true;
}

/* Source node i is the frame of body b's part k: a child of b's node whose transform relative to
   it is the part node's (gltf_omi.c: translation mesh_origin -> part, the part's rotation), 1e-6. */
static bool part_frame(const tpExportSource *src, int i, const tpPlanBody *pb, int k)
{
    const tpExportSourceNode *n = &src->nodes[i];
    const double *bw = src->nodes[n->parent].world;
    if (!rigid(bw))
        return false;
    double l[12];
    inv_mul(bw, n->world, l);
    const tpPlanPart *p = &pb->parts[k];
    double z[3], t[3], q[4];
    for (int c = 0; c < 3; c++)
        z[c] = p->pos[c] - pb->mesh_origin[c];
    tpExport_VecToYup(z, t);
    tpExport_QuatToYup(p->quat, q);
    const double x = q[0], y = q[1], zz = q[2], w = q[3];
    const double R[9] = {1 - 2 * (y * y + zz * zz), 2 * (x * y - zz * w),      2 * (x * zz + y * w),
                         2 * (x * y + zz * w),      1 - 2 * (x * x + zz * zz), 2 * (y * zz - x * w),
                         2 * (x * zz - y * w),      2 * (y * zz + x * w),      1 - 2 * (x * x + y * y)};
    for (int r = 0; r < 3; r++) {
        if (fabs(l[4 * r + 3] - t[r]) > 1e-6)
            return false;
        for (int c = 0; c < 3; c++)
            if (fabs(l[4 * r + c] - R[3 * r + c]) > 1e-6) /* no scale either */
                return false;
    }
    return true;
}

bool tpXTree_Init(tpXTree *t, const tpPlanRecord *rec, const tpExportSource *src, int first, int base)
{
    memset(t, 0, sizeof *t);
    t->src = src;
    t->rec = rec;
    t->base = base;
    if (!src)
        return true;
    const int nb = rec->nbodies > 0 ? rec->nbodies : 1, nn = src->nnodes > 0 ? src->nnodes : 1;
    int nparts = 0;
    for (int b = 0; b < rec->nbodies; b++)
        nparts += rec->bodies[b].nparts;
    t->body_node = malloc(sizeof(int) * (size_t)nb);
    t->part_at = malloc(sizeof(int) * (size_t)nb);
    t->part_node = malloc(sizeof(int) * (size_t)(nparts > 0 ? nparts : 1));
    t->index = malloc(sizeof(int) * (size_t)nn);
    if (!t->body_node || !t->index || !t->part_at || !t->part_node)
        return false;
    for (int b = 0, at = 0; b < rec->nbodies; b++) {
        t->body_node[b] = -1;
        t->part_at[b] = at;
        at += rec->bodies[b].nparts;
    }
    for (int k = 0; k < nparts; k++)
        t->part_node[k] = -1;
    for (int i = 0; i < src->nnodes; i++)
        if (src->nodes[i].body >= 0)
            t->body_node[src->nodes[i].body] = i;
    for (int i = 0, k = 0; i < src->nnodes; i++) {
        const tpExportSourceNode *n = &src->nodes[i];
        const int pb = n->parent >= 0 ? src->nodes[n->parent].body : -1;
        int part = -1;
        for (int j = 0; n->body < 0 && pb >= 0 && part < 0 && j < rec->bodies[pb].nparts; j++)
            if (t->part_node[t->part_at[pb] + j] < 0 && part_frame(src, i, &rec->bodies[pb], j))
                part = j;
        if (part >= 0) {
            t->part_node[t->part_at[pb] + part] = i;
            t->index[i] = first + t->part_at[pb] + part; /* gltf_omi.c's part nodes follow `first` */
        } else {
            t->index[i] = n->body >= 0 ? n->body : base + k++;
            t->extra += n->body < 0;
        }
    }
    return true;
}

void tpXTree_Free(tpXTree *t)
{
    free(t->body_node);
    free(t->index);
    free(t->part_node);
    free(t->part_at);
    memset(t, 0, sizeof *t);
}

/* Source node i is written as a part's node. */
static bool is_part(const tpXTree *t, int i)
{
    const int p = t->src->nodes[i].parent, b = p >= 0 ? t->src->nodes[p].body : -1;
    for (int k = 0; b >= 0 && k < t->rec->bodies[b].nparts; k++)
        if (t->part_node[t->part_at[b] + k] == i)
            return true;
    return false;
}

const char *tpXTree_PartName(const tpXTree *t, int b, int k)
{
    const int i = t->src ? t->part_node[t->part_at[b] + k] : -1;
    return i >= 0 ? t->src->nodes[i].name : "";
}

void tpXTree_PartChildren(const tpXTree *t, int b, int k, tpXStr *s, int *n)
{
    const int me = t->src ? t->part_node[t->part_at[b] + k] : -1;
    for (int i = 0; me >= 0 && i < t->src->nnodes; i++)
        if (t->src->nodes[i].parent == me)
            tpXStr_Put(s, "%s%d", (*n)++ ? "," : "", t->index[i]);
}

/* The world (row-major 3x4, y up) of source node i's parent as the export writes it: a body's node
   at t = 0 (w0: per body, translation then rotation x, y, z, w), a still node's file transform. */
static void parent_world(const tpXTree *t, int i, const double *w0, double m[12])
{
    static const double I[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    const int p = t->src->nodes[i].parent;
    if (p < 0) {
        memcpy(m, I, sizeof I);
        return;
    }
    const int b = t->src->nodes[p].body;
    if (b < 0) {
        memcpy(m, t->src->nodes[p].world, 12 * sizeof *m);
        return;
    }
    const double *tq = w0 + 7 * b, x = tq[3], y = tq[4], z = tq[5], w = tq[6];
    const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
                         2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                         2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y)};
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            m[4 * r + c] = R[3 * r + c];
        m[4 * r + 3] = tq[r];
    }
}

int tpXTree_Collider(const tpXTree *t, int b, const double *w0)
{
    /* a body of one shape whose collider node in the file (Godot's CollisionShape under its body
       node) is where the body's node is written (tp.scene put the body at its collider's frame):
       the collider goes back on that node */
    const int me = t->src ? t->body_node[b] : -1;
    const tpPlanBody *pb = &t->rec->bodies[b];
    if (me < 0 || pb->nparts > 0 || strcmp(pb->shape, "plane") == 0)
        return -1;
    for (int i = 0; i < t->src->nnodes; i++) {
        if (t->src->nodes[i].parent != me || !t->src->nodes[i].collider)
            continue;
        double pw[12], l[12];
        parent_world(t, i, w0, pw);
        inv_mul(pw, t->src->nodes[i].world, l);
        bool identity = true;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                identity = identity && fabs(l[4 * r + c] - (r == c)) <= 1e-6;
        if (identity)
            return i;
    }
    return -1;
}

void tpXTree_Local(const tpXTree *t, int b, double tr[3], double q[4])
{
    const int i = t->src ? t->body_node[b] : -1;
    if (i < 0 || t->src->nodes[i].parent < 0)
        return;
    const double *m = t->src->nodes[t->src->nodes[i].parent].world; /* rigid (tpExport_SourceUsable) */
    double d[3], l[3];
    for (int k = 0; k < 3; k++)
        d[k] = tr[k] - m[4 * k + 3];
    for (int k = 0; k < 3; k++)
        l[k] = m[k] * d[0] + m[4 + k] * d[1] + m[8 + k] * d[2]; /* R^T d */
    memcpy(tr, l, sizeof l);
    if (q) { /* conj(qp) q, quaternions x, y, z, w */
        const double R[9] = {m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]};
        double p[4];
        tpX_MatrixQuat(R, p);
        const double px = -p[0], py = -p[1], pz = -p[2], pw = p[3];
        const double x = q[0], y = q[1], z = q[2], w = q[3];
        q[0] = pw * x + px * w + py * z - pz * y;
        q[1] = pw * y - px * z + py * w + pz * x;
        q[2] = pw * z + px * y - py * x + pz * w;
        q[3] = pw * w - px * x - py * y - pz * z;
    }
}

bool tpXTree_IsRoot(const tpXTree *t, int b)
{
    return !t->src || t->body_node[b] < 0 || t->src->nodes[t->body_node[b]].parent < 0;
}

void tpXTree_Children(const tpXTree *t, int b, tpXStr *s, int *n)
{
    const int me = t->src ? t->body_node[b] : -1;
    if (me < 0)
        return;
    for (int i = 0; i < t->src->nnodes; i++)
        if (t->src->nodes[i].parent == me && !is_part(t, i))
            tpXStr_Put(s, "%s%d", (*n)++ ? "," : "", t->index[i]);
}

int tpXTree_BodyChildCount(const tpXTree *t, int b)
{
    int n = 0;
    const int me = t->src ? t->body_node[b] : -1;
    for (int i = 0; me >= 0 && i < t->src->nnodes; i++)
        n += t->src->nodes[i].parent == me && !is_part(t, i);
    return n;
}

static void put_vec(tpXStr *s, const char *key, const double *v, int n)
{
    tpXStr_Put(s, ",\"%s\":[", key);
    for (int k = 0; k < n; k++) {
        tpXStr_Put(s, k ? "," : "");
        tpXStr_Num(s, v[k]);
    }
    tpXStr_Put(s, "]");
}

/* A still node's local transform: translation, rotation and scale (each left out at its default)
   when its axes are perpendicular, else a matrix (column-major). */
static void local_json(const double l[12], tpXStr *s)
{
    double sc[3], R[9];
    bool ortho = true;
    for (int c = 0; c < 3; c++) {
        sc[c] = sqrt(l[c] * l[c] + l[4 + c] * l[4 + c] + l[8 + c] * l[8 + c]);
        for (int r = 0; r < 3; r++)
            R[3 * r + c] = l[4 * r + c] / sc[c];
    }
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            ortho = ortho && fabs(R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j]) < 1e-9;
    const double det =
        R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]);
    if (!ortho || det < 0) {
        tpXStr_Put(s, ",\"matrix\":[");
        for (int c = 0; c < 4; c++) /* column-major, the last row 0 0 0 1 */
            for (int r = 0; r < 4; r++) {
                tpXStr_Put(s, c || r ? "," : "");
                tpXStr_Num(s, r < 3 ? l[4 * r + c] : c == 3 ? 1.0 : 0.0);
            }
        tpXStr_Put(s, "]");
        return;
    }
    const double t[3] = {l[3], l[7], l[11]};
    double q[4];
    tpX_MatrixQuat(R, q);
    if (t[0] != 0 || t[1] != 0 || t[2] != 0)
        put_vec(s, "translation", t, 3);
    if (fabs(q[3]) < 1.0 - 1e-15)
        put_vec(s, "rotation", q, 4);
    if (fabs(sc[0] - 1) > 1e-12 || fabs(sc[1] - 1) > 1e-12 || fabs(sc[2] - 1) > 1e-12)
        put_vec(s, "scale", sc, 3);
}

void tpXTree_Nodes(const tpXTree *t, const double *w0, const int *shape, tpXStr *s)
{
    if (!t->src)
        return;
    for (int i = 0; i < t->src->nnodes; i++) {
        const tpExportSourceNode *n = &t->src->nodes[i];
        if (n->body >= 0 || is_part(t, i))
            continue;
        double pw[12], l[12];
        parent_world(t, i, w0, pw);
        inv_mul(pw, n->world, l);
        tpXStr_Put(s, ",\n{\"name\":");
        tpXStr_String(s, n->name);
        local_json(l, s);
        const int pb = n->parent >= 0 ? t->src->nodes[n->parent].body : -1;
        if (pb >= 0 && shape[pb] >= 0 && tpXTree_Collider(t, pb, w0) == i)
            tpXStr_Put(s, ",\"extensions\":{\"OMI_physics_body\":{\"collider\":{\"shape\":%d}}}", shape[pb]);
        int k = 0;
        for (int j = 0; j < t->src->nnodes; j++)
            if (t->src->nodes[j].parent == i)
                tpXStr_Put(s, "%s%d", k++ ? "," : ",\"children\":[", t->index[j]);
        tpXStr_Put(s, "%s}", k ? "]" : "");
    }
}

void tpXTree_Roots(const tpXTree *t, tpXStr *s)
{
    for (int i = 0; t->src && i < t->src->nnodes; i++)
        if (t->src->nodes[i].body < 0 && t->src->nodes[i].parent < 0)
            tpXStr_Put(s, ",%d", t->index[i]);
}
