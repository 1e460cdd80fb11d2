/* Meshes of the plan's shapes with their exact sizes (box full extents; sphere radius; cylinder and
 * capsule radius and length along local z, the capsule's length excluding its caps, as in ODE),
 * generated in the body frame (z-up) and converted to glTF's y-up. Faces wind counter-clockwise
 * seen from outside; no degenerate triangles (the poles of round shapes are fans). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "tp/base.h"
#include "tp/util.h"

enum { TP_SEGMENTS = 32, TP_RINGS = 8 }; /* around the axis; per quarter circle of a round end */

typedef struct Builder {
    tpXMesh *m;  /* the mesh being built (not owned) */
    size_t vcap; /* vertices m->pos and m->nrm have room for */
    size_t icap; /* indices m->idx has room for */
    bool failed; /* out of memory: the mesh is incomplete */
    bool xf;     /* a compound's part: vertices and normals are turned by R and moved by t first */
    double R[9]; /* row-major, the part frame in the node's */
    double t[3]; /* m */
} Builder;

static int add_vertex(Builder *b, const double p[3], const double n[3])
{
    tpXMesh *m = b->m;
    if (b->failed) {
        return 0;
    }
    if ((size_t)m->nverts == b->vcap) {
        size_t cap = tpArray_NextCap(b->vcap, b->vcap + 1, sizeof(float) * 3);
        float *pos = cap ? tpArray_Resize(m->pos, cap, sizeof(float) * 3) : NULL;
        if (pos) {
            m->pos = pos;
        }
        float *nrm = pos ? tpArray_Resize(m->nrm, cap, sizeof(float) * 3) : NULL;
        if (!nrm) {
            b->failed = true;
            return 0;
        }
        m->nrm = nrm;
        b->vcap = cap;
    }
    double py[3], ny[3], len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double nn[3] = {n[0] / len, n[1] / len, n[2] / len};
    if (b->xf) {
        double q[3], r[3];
        for (int k = 0; k < 3; ++k) {
            q[k] = b->t[k] + b->R[3 * k] * p[0] + b->R[3 * k + 1] * p[1] + b->R[3 * k + 2] * p[2];
            r[k] = b->R[3 * k] * nn[0] + b->R[3 * k + 1] * nn[1] + b->R[3 * k + 2] * nn[2];
        }
        tpExport_VecToYup(q, py);
        tpExport_VecToYup(r, ny);
        for (int k = 0; k < 3; ++k) {
            m->pos[3 * m->nverts + k] = (float)py[k];
            m->nrm[3 * m->nverts + k] = (float)ny[k];
        }
        return m->nverts++;
    }
    tpExport_VecToYup(p, py);
    tpExport_VecToYup(nn, ny);
    for (int k = 0; k < 3; ++k) {
        m->pos[3 * m->nverts + k] = (float)py[k];
        m->nrm[3 * m->nverts + k] = (float)ny[k];
    }
    return m->nverts++;
}

/* Adds triangle (a, b, c), flipped if needed so that it faces along its vertices' normals. */
static void add_triangle(Builder *b, int i0, int i1, int i2)
{
    tpXMesh *m = b->m;
    if (b->failed) {
        return;
    }
    uint32_t *idx = tpArray_Grow(m->idx, &b->icap, (size_t)m->nidx + 3, sizeof *idx);
    if (!idx) {
        b->failed = true;
        return;
    }
    m->idx = idx;
    const float *p0 = m->pos + 3 * i0, *p1 = m->pos + 3 * i1, *p2 = m->pos + 3 * i2;
    double e1[3], e2[3], nsum[3];
    for (int k = 0; k < 3; ++k) {
        e1[k] = (double)p1[k] - p0[k];
        e2[k] = (double)p2[k] - p0[k];
        nsum[k] = (double)m->nrm[3 * i0 + k] + m->nrm[3 * i1 + k] + m->nrm[3 * i2 + k];
    }
    double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    if (c[0] * nsum[0] + c[1] * nsum[1] + c[2] * nsum[2] < 0) {
        int t = i1;
        i1 = i2;
        i2 = t;
    }
    m->idx[m->nidx++] = (uint32_t)i0;
    m->idx[m->nidx++] = (uint32_t)i1;
    m->idx[m->nidx++] = (uint32_t)i2;
}

/* A profile point of a solid of revolution about local z: radius r, height z, the normal's radial
 * and axial parts, and whether it is joined by faces to the previous point. */
typedef struct Profile {
    double r, z, nr, nz;
    bool join;
} Profile;

static void lathe(Builder *b, const Profile *pr, int np)
{
    int prev_first = -1; /* first vertex of the previous ring (or the pole vertex) */
    bool prev_pole = false;
    for (int p = 0; p < np; ++p) {
        bool pole = pr[p].r == 0;
        int first = b->m->nverts;
        int count = pole ? 1 : TP_SEGMENTS;
        for (int s = 0; s < count; ++s) {
            double a = 2 * TP_PI * s / TP_SEGMENTS, ca = cos(a), sa = sin(a);
            double pos[3] = {pr[p].r * ca, pr[p].r * sa, pr[p].z};
            double nrm[3] = {pr[p].nr * ca, pr[p].nr * sa, pr[p].nz};
            add_vertex(b, pos, nrm);
        }
        if (p > 0 && pr[p].join && !(pole && prev_pole)) {
            for (int s = 0; s < TP_SEGMENTS; ++s) {
                int s1 = (s + 1) % TP_SEGMENTS;
                if (prev_pole) {
                    add_triangle(b, prev_first, first + s, first + s1);
                } else if (pole) {
                    add_triangle(b, prev_first + s, prev_first + s1, first);
                } else {
                    add_triangle(b, prev_first + s, prev_first + s1, first + s1);
                    add_triangle(b, prev_first + s, first + s1, first + s);
                }
            }
        }
        prev_first = first;
        prev_pole = pole;
    }
}

/* Profile of a capsule of radius r whose caps are centred at heights -h and +h (h = 0: a sphere),
 * from the bottom pole to the top pole. Returns the number of points. */
static int round_profile(Profile *out, double r, double h)
{
    int n = 0;
    for (int k = 0; k <= TP_RINGS; ++k) {
        double a = -TP_PI / 2 + k * (TP_PI / 2) / TP_RINGS, nr = cos(a), nz = sin(a);
        if (k == 0) {
            nr = 0, nz = -1; /* exact pole */
        }
        out[n++] = (Profile){r * nr, -h + r * nz, nr, nz, k > 0};
    }
    for (int k = h > 0 ? 0 : 1; k <= TP_RINGS; ++k) { /* k = 0: the side band of a capsule */
        double a = k * (TP_PI / 2) / TP_RINGS, nr = cos(a), nz = sin(a);
        if (k == TP_RINGS) {
            nr = 0, nz = 1;
        }
        out[n++] = (Profile){r * nr, h + r * nz, nr, nz, true};
    }
    return n;
}

/* A mesh body's own triangles, flat shaded (3 vertices per triangle with its normal), placed so
 * that the node's origin is the artist's object's (mesh_origin), in y-up. */
static bool x_mesh_recorded(const tpPlanBody *pb, tpXMesh *m)
{
    int nt = pb->mesh_ntriangles;
    m->nverts = m->nidx = 3 * nt;
    m->pos = malloc((size_t)m->nverts * 3 * sizeof(float));
    m->nrm = malloc((size_t)m->nverts * 3 * sizeof(float));
    m->idx = malloc((size_t)m->nidx * sizeof(uint32_t));
    if (!m->pos || !m->nrm || !m->idx) {
        tpXMesh_Free(m);
        return false;
    }
    for (int t = 0; t < nt; ++t) {
        double p[3][3], y[3][3];
        for (int c = 0; c < 3; ++c) {
            const double *v = pb->mesh_vertices + 3 * pb->mesh_triangles[3 * t + c];
            for (int k = 0; k < 3; ++k) {
                p[c][k] = v[k] - pb->mesh_origin[k];
            }
            tpExport_VecToYup(p[c], y[c]);
        }
        double u[3], w[3], n[3];
        for (int k = 0; k < 3; ++k) {
            u[k] = y[1][k] - y[0][k];
            w[k] = y[2][k] - y[0][k];
        }
        n[0] = u[1] * w[2] - u[2] * w[1];
        n[1] = u[2] * w[0] - u[0] * w[2];
        n[2] = u[0] * w[1] - u[1] * w[0];
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int c = 0; c < 3; ++c) {
            int vi = 3 * t + c;
            for (int k = 0; k < 3; ++k) {
                m->pos[3 * vi + k] = (float)y[c][k];
                m->nrm[3 * vi + k] = (float)(len > 0 ? n[k] / len : (k == 1));
            }
            m->idx[vi] = (uint32_t)vi;
        }
    }
    return true;
}

static bool build_shape(Builder *bp, const char *shape, const double *s);

/* A compound's parts, each turned and moved to its place in the node's frame (the artist's: the
 * body frame less mesh_origin); a mesh part's triangles flat shaded. */
static bool x_mesh_parts(const tpPlanBody *pb, tpXMesh *m)
{
    Builder b = {m, 0, 0, false, true, {0}, {0}};
    for (int k = 0; k < pb->nparts && !b.failed; ++k) {
        const tpPlanPart *p = &pb->parts[k];
        const double w = p->quat[0], x = p->quat[1], y = p->quat[2], z = p->quat[3];
        const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                             2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                             2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
        memcpy(b.R, R, sizeof R);
        for (int c = 0; c < 3; ++c) {
            b.t[c] = p->pos[c] - pb->mesh_origin[c];
        }
        if (strcmp(p->shape, "mesh") != 0) {
            if (!build_shape(&b, p->shape, p->size)) {
                tpXMesh_Free(m);
                return false;
            }
            continue;
        }
        for (int t = 0; t < p->ntriangles; ++t) {
            const double *v[3];
            for (int c = 0; c < 3; ++c) {
                v[c] = p->vertices + 3 * p->triangles[3 * t + c];
            }
            double u[3], e[3];
            for (int c = 0; c < 3; ++c) {
                u[c] = v[1][c] - v[0][c], e[c] = v[2][c] - v[0][c];
            }
            const double n[3] = {u[1] * e[2] - u[2] * e[1], u[2] * e[0] - u[0] * e[2], u[0] * e[1] - u[1] * e[0]};
            if (!(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 0)) {
                continue; /* a degenerate triangle has no face to draw */
            }
            int i0 = add_vertex(&b, v[0], n), i1 = add_vertex(&b, v[1], n), i2 = add_vertex(&b, v[2], n);
            add_triangle(&b, i0, i1, i2);
        }
    }
    if (b.failed) {
        tpXMesh_Free(m);
        return false;
    }
    return true;
}

bool tpXMesh_Shape(const tpPlanBody *pb, tpXMesh *m)
{
    memset(m, 0, sizeof *m);
    if (strcmp(pb->shape, "mesh") == 0 && pb->mesh_nvertices > 0 && pb->mesh_ntriangles > 0) {
        return x_mesh_recorded(pb, m);
    }
    if (pb->nparts > 0) {
        return x_mesh_parts(pb, m);
    }
    Builder b = {m, 0, 0, false, false, {0}, {0}};
    if (!build_shape(&b, pb->shape, pb->size)) {
        tpXMesh_Free(m);
        return false;
    }
    return true;
}

bool tpXMesh_Pips(double side, tpXMesh *m)
{
    memset(m, 0, sizeof *m);
    Builder b = {m, 0, 0, false, false, {0}, {0}};
    const double h = 0.5 * side, lift = h * 1.006; /* just above the face: no depth fight */
    enum { SEG = 12 };
    for (int f = 0; f < 6; ++f) {
        int ax = f / 2, ua = (ax + 1) % 3, va = (ax + 2) % 3;
        double sign = (f % 2) ? -1 : 1, uv[6][2], r, n[3] = {0, 0, 0};
        n[ax] = sign;
        int np = tpDie_Face(f, uv, &r);
        for (int k = 0; k < np; ++k) {
            double c[3] = {0, 0, 0};
            c[ax] = sign * lift, c[ua] = h * uv[k][0], c[va] = h * uv[k][1];
            int centre = add_vertex(&b, c, n), first = m->nverts;
            for (int s = 0; s < SEG; ++s) {
                double a = 6.283185307179586 * s / SEG, p[3];
                memcpy(p, c, sizeof p);
                p[ua] += h * r * cos(a), p[va] += h * r * sin(a);
                add_vertex(&b, p, n);
            }
            for (int s = 0; s < SEG; ++s) {
                add_triangle(&b, centre, first + s, first + (s + 1) % SEG); /* faces along n */
            }
        }
    }
    if (b.failed) {
        tpXMesh_Free(m);
        return false;
    }
    return true;
}

/* The triangles of a box, sphere, cylinder or capsule (a mesh without triangles: its bounding box)
 * of sizes s into the builder; false for an unknown shape or out of memory. */
static bool build_shape(Builder *bp, const char *shape, const double *s)
{
    Builder b = *bp; /* written back below */
    tpXMesh *m = b.m;
    Profile pr[4 * (TP_RINGS + 1) + 8];
    int np = 0;
    bool known = true;
    if (strcmp(shape, "box") == 0 || strcmp(shape, "mesh") == 0 || strcmp(shape, "compound") == 0) {
        double h[3] = {s[0] / 2, s[1] / 2, s[2] / 2};
        for (int axis = 0; axis < 3; ++axis) {
            for (int sign = -1; sign <= 1; sign += 2) {
                int u = (axis + 1) % 3, v = (axis + 2) % 3, first = m->nverts;
                for (int c = 0; c < 4; ++c) {
                    double p[3], n[3] = {0, 0, 0};
                    p[axis] = sign * h[axis];
                    p[u] = (c == 0 || c == 3 ? -1 : 1) * h[u];
                    p[v] = (c < 2 ? -1 : 1) * h[v];
                    n[axis] = sign;
                    add_vertex(&b, p, n);
                }
                add_triangle(&b, first, first + 1, first + 2);
                add_triangle(&b, first, first + 2, first + 3);
            }
        }
    } else if (strcmp(shape, "sphere") == 0) {
        np = round_profile(pr, s[0], 0);
        lathe(&b, pr, np);
    } else if (strcmp(shape, "cylinder") == 0) {
        double r = s[0], h = s[1] / 2;
        pr[np++] = (Profile){0, -h, 0, -1, false};
        pr[np++] = (Profile){r, -h, 0, -1, true};
        pr[np++] = (Profile){r, -h, 1, 0, false};
        pr[np++] = (Profile){r, h, 1, 0, true};
        pr[np++] = (Profile){r, h, 0, 1, false};
        pr[np++] = (Profile){0, h, 0, 1, true};
        lathe(&b, pr, np);
    } else if (strcmp(shape, "capsule") == 0) {
        np = round_profile(pr, s[0], s[1] / 2);
        lathe(&b, pr, np);
    } else {
        known = false;
    }
    *bp = b;
    return known && !b.failed;
}

/* The frame of a plane's quad: origin o (the projection of center onto the plane) and the unit
 * axes u, v in the plane, n its normal (z up); false when the plane has no normal. */
static bool plane_frame(const tpPlanBody *pb, const double center[3], double o[3], double u[3], double v[3],
                        double n[3])
{
    memcpy(n, pb->size, 3 * sizeof *n);
    double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(nl > 0)) {
        return false;
    }
    for (int i = 0; i < 3; ++i) {
        n[i] /= nl;
    }
    double d = pb->size[3] / nl, off = n[0] * center[0] + n[1] * center[1] + n[2] * center[2] - d;
    for (int i = 0; i < 3; ++i) {
        o[i] = center[i] - off * n[i];
    }
    double a[3] = {1, 0, 0};
    if (fabs(n[0]) > 0.9) {
        a[0] = 0, a[1] = 1;
    }
    u[0] = a[1] * n[2] - a[2] * n[1], u[1] = a[2] * n[0] - a[0] * n[2], u[2] = a[0] * n[1] - a[1] * n[0];
    double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int i = 0; i < 3; ++i) {
        u[i] /= ul;
    }
    v[0] = n[1] * u[2] - n[2] * u[1], v[1] = n[2] * u[0] - n[0] * u[2], v[2] = n[0] * u[1] - n[1] * u[0];
    return true;
}

bool tpX_PlaneNode(const tpPlanBody *pb, const double center[3], double t[3], double q[4])
{
    double o[3], u[3], v[3], n[3], gu[3], gv[3], gn[3];
    if (!plane_frame(pb, center, o, u, v, n)) {
        return false;
    }
    tpExport_VecToYup(o, t);
    tpExport_VecToYup(u, gu);
    tpExport_VecToYup(v, gv);
    tpExport_VecToYup(n, gn);
    /* the node's x, y, z (glTF) are the plane's u, n and -v: its local quad (x, -y) spans the plane */
    const double R[9] = {gu[0], gn[0], -gv[0], gu[1], gn[1], -gv[1], gu[2], gn[2], -gv[2]};
    tpX_MatrixQuat(R, q);
    return true;
}

bool tpXMesh_Plane(const tpPlanBody *pb, const double center[3], double half, tpXMesh *m)
{
    memset(m, 0, sizeof *m);
    double o[3], u[3], v[3], n[3];
    if (!plane_frame(pb, center, o, u, v, n)) {
        return false;
    }
    /* in the node's frame (tpX_PlaneNode): the square in its local xy plane (z up), normal +z */
    static const double nz[3] = {0, 0, 1};
    Builder b = {m, 0, 0, false, false, {0}, {0}};
    for (int c = 0; c < 4; ++c) {
        double su = (c == 0 || c == 3) ? -half : half, sv = c < 2 ? -half : half;
        const double p[3] = {su, sv, 0};
        add_vertex(&b, p, nz);
    }
    add_triangle(&b, 0, 1, 2);
    add_triangle(&b, 0, 2, 3);
    if (b.failed) {
        tpXMesh_Free(m);
        return false;
    }
    return true;
}

void tpXMesh_Free(tpXMesh *m)
{
    if (!m) {
        return;
    }
    free(m->pos);
    free(m->nrm);
    free(m->idx);
    memset(m, 0, sizeof *m);
}

void tpX_SceneBounds(const tpPlanRecord *rec, double lo[3], double hi[3])
{
    bool any = false;
    for (int k = 0; k < 3; ++k) {
        lo[k] = INFINITY, hi[k] = -INFINITY;
    }
    for (int b = 0; b < rec->nbodies; ++b) {
        const tpPlanBody *pb = &rec->bodies[b];
        if (strcmp(pb->shape, "plane") == 0) {
            continue;
        }
        double r = tpX_BoundingRadius(pb);
        for (int w = 0; w < rec->nworlds; ++w) {
            const double *tr = pb->moving ? rec->worlds[w].traj[b] : pb->pose;
            int n = pb->moving ? rec->worlds[w].nsteps + 1 : 1;
            for (int i = 0; i < n; ++i) {
                for (int k = 0; k < 3; ++k) {
                    lo[k] = fmin(lo[k], tr[i * TP_STATE_DOUBLES + k] - r);
                    hi[k] = fmax(hi[k], tr[i * TP_STATE_DOUBLES + k] + r);
                }
            }
            any = true;
            if (!pb->moving) {
                break;
            }
        }
    }
    if (!any) {
        for (int k = 0; k < 3; ++k) {
            lo[k] = -1, hi[k] = 1;
        }
    }
}

double tpX_BoundingRadius(const tpPlanBody *pb)
{
    const double *s = pb->size;
    if (strcmp(pb->shape, "box") == 0 || strcmp(pb->shape, "mesh") == 0) { /* a mesh: its bounding box */
        return 0.5 * sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    }
    if (strcmp(pb->shape, "sphere") == 0) {
        return s[0];
    }
    if (strcmp(pb->shape, "cylinder") == 0) {
        return sqrt(s[0] * s[0] + 0.25 * s[1] * s[1]);
    }
    if (strcmp(pb->shape, "capsule") == 0) {
        return s[0] + 0.5 * s[1];
    }
    return 0;
}

void tpX_NodeOrigin(const tpPlanBody *pb, const double *st, double out[3])
{
    memcpy(out, st, 3 * sizeof(double));
    if (pb->mesh_nvertices > 0 || pb->nparts > 0) {
        const double w = st[3], x = st[4], y = st[5], z = st[6], *o = pb->mesh_origin;
        const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                             2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                             2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
        for (int k = 0; k < 3; ++k) {
            out[k] += R[3 * k] * o[0] + R[3 * k + 1] * o[1] + R[3 * k + 2] * o[2];
        }
    }
}

/* A 3x3 rotation (row-major, glTF axes) into a unit quaternion (x, y, z, w), w >= 0. */
void tpX_MatrixQuat(const double R[9], double q[4])
{
    const double t = R[0] + R[4] + R[8];
    double x, y, z, w;
    if (t > 0) {
        const double r = 2 * sqrt(1 + t);
        w = 0.25 * r, x = (R[7] - R[5]) / r, y = (R[2] - R[6]) / r, z = (R[3] - R[1]) / r;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        const double r = 2 * sqrt(1 + R[0] - R[4] - R[8]);
        w = (R[7] - R[5]) / r, x = 0.25 * r, y = (R[1] + R[3]) / r, z = (R[2] + R[6]) / r;
    } else if (R[4] > R[8]) {
        const double r = 2 * sqrt(1 + R[4] - R[0] - R[8]);
        w = (R[2] - R[6]) / r, x = (R[1] + R[3]) / r, y = 0.25 * r, z = (R[5] + R[7]) / r;
    } else {
        const double r = 2 * sqrt(1 + R[8] - R[0] - R[4]);
        w = (R[3] - R[1]) / r, x = (R[2] + R[6]) / r, y = (R[5] + R[7]) / r, z = 0.25 * r;
    }
    const double sg = w < 0 ? -1 : 1, n = sqrt(x * x + y * y + z * z + w * w);
    q[0] = sg * x / n, q[1] = sg * y / n, q[2] = sg * z / n, q[3] = sg * w / n;
}
