/* Contacts of moving mesh bodies (convex hulls) against hulls, boxes and static triangle meshes.
 *
 * ODE 0.16's own colliders for these pairs fail the conformance standards: convex-box lets a die
 * sink 150-250 mm into a wall box, convex-convex and convex-box return one point per pair (a die
 * on a die rocks), convex-trimesh (libccd) one point per triangle. This is the separating-axis
 * test over face normals and edge pairs (edge pairs only where they form a face of the Minkowski
 * difference, Gregorius, GDC 2013), and a contact manifold by clipping the incident face against
 * the reference face (Sutherland-Hodgman), as Box2D and Bullet do for polytopes. A triangle of a
 * static mesh is one-sided: it pushes only toward its front (the side its counter-clockwise
 * order faces), and a body whose centre is behind it is left alone, so a thin wall pushes a die
 * back out of the side it came from. Results depend on the poses only (no caches of previous
 * steps), as Sim purity requires. */
#include "mesh_geom_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TP_CLIP_MAX 256 /* points of a clipped polygon; bigger faces fall back to ODE's collider */

typedef struct tpPoly {
    int nv, nf, ne, nsearch; /* nsearch: faces usable as axes and incident faces (a triangle: 1) */
    const double *v;         /* 3 per vertex, world */
    const double *plane;     /* 4 per face, world: unit normal, offset */
    const int *fstart, *fcount, *fidx;
    const tpPolyEdge *e;
    double c[3]; /* a point inside (the centroid of the vertices) */
} tpPoly;

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* ------------------------------------------------------------------------------------------ */
/* Topology: faces and edges of a polytope from its face loops                                  */

bool tpPolyTopo_Build(tpPolyTopo *t, const double *v, int nf, const unsigned *loops)
{
    memset(t, 0, sizeof *t);
    int total = 0;
    const unsigned *p = loops;
    for (int f = 0; f < nf; f++) {
        total += (int)p[0];
        p += 1 + p[0];
    }
    t->nf = nf;
    t->fstart = malloc((size_t)nf * sizeof(int));
    t->fcount = malloc((size_t)nf * sizeof(int));
    t->fidx = malloc((size_t)total * sizeof(int));
    t->e = malloc((size_t)total * sizeof(tpPolyEdge)); /* each edge is seen twice: at most total / 2 */
    t->plane = malloc((size_t)nf * 4 * sizeof(double));
    if (!t->fstart || !t->fcount || !t->fidx || !t->e || !t->plane) {
        tpPolyTopo_Free(t);
        return false;
    }
    p = loops;
    int k = 0;
    for (int f = 0; f < nf; f++) {
        t->fstart[f] = k;
        t->fcount[f] = (int)p[0];
        t->maxface = t->fcount[f] > t->maxface ? t->fcount[f] : t->maxface;
        double n[3] = {0, 0, 0}; /* Newell's normal of the loop */
        for (unsigned i = 0; i < p[0]; i++) {
            const double *a = v + 3 * p[1 + i], *b = v + 3 * p[1 + (i + 1) % p[0]];
            n[0] += (a[1] - b[1]) * (a[2] + b[2]);
            n[1] += (a[2] - b[2]) * (a[0] + b[0]);
            n[2] += (a[0] - b[0]) * (a[1] + b[1]);
            t->fidx[k++] = (int)p[1 + i];
        }
        double len = sqrt(dot3(n, n));
        for (int c = 0; c < 3; c++)
            t->plane[4 * f + c] = len > 0 ? n[c] / len : 0.0;
        t->plane[4 * f + 3] = dot3(t->plane + 4 * f, v + 3 * p[1]);
        p += 1 + p[0];
    }
    /* edges: each directed loop edge a->b meets its twin b->a in the neighbouring face */
    for (int f = 0; f < nf; f++) {
        for (int i = 0; i < t->fcount[f]; i++) {
            int a = t->fidx[t->fstart[f] + i], b = t->fidx[t->fstart[f] + (i + 1) % t->fcount[f]];
            if (a > b)
                continue; /* recorded from the face where it runs low -> high */
            int twin = -1;
            for (int g = 0; g < nf && twin < 0; g++) {
                if (g == f)
                    continue;
                for (int j = 0; j < t->fcount[g]; j++) {
                    if (t->fidx[t->fstart[g] + j] == b && t->fidx[t->fstart[g] + (j + 1) % t->fcount[g]] == a) {
                        twin = g;
                        break;
                    }
                }
            }
            if (twin >= 0)
                t->e[t->ne++] = (tpPolyEdge){a, b, f, twin};
        }
    }
    return true;
}

void tpPolyTopo_Free(tpPolyTopo *t)
{
    free(t->fstart);
    free(t->fcount);
    free(t->fidx);
    free(t->e);
    free(t->plane);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------------------------------ */
/* The separating-axis test                                                                    */

/* Deepest extent of b below face f of a: max over faces of min over b's vertices of n.v - d. */
static double face_query(const tpPoly *a, const tpPoly *b, int *best)
{
    double sep = -INFINITY;
    *best = -1;
    for (int f = 0; f < a->nsearch; f++) {
        const double *pl = a->plane + 4 * f;
        double m = INFINITY;
        for (int i = 0; i < b->nv; i++) {
            double s = dot3(pl, b->v + 3 * i) - pl[3];
            m = s < m ? s : m;
        }
        if (m > sep) {
            sep = m;
            *best = f;
        }
    }
    return sep;
}

/* Do the arcs (a, b) and (c, d) of the Gauss map cross (c, d already negated)? */
static bool minkowski_face(const double *a, const double *b, const double *c, const double *d)
{
    double bxa[3], dxc[3];
    cross3(b, a, bxa);
    cross3(d, c, dxc);
    double cba = dot3(c, bxa), dba = dot3(d, bxa), adc = dot3(a, dxc), bdc = dot3(b, dxc);
    return cba * dba < 0 && adc * bdc < 0 && cba * bdc > 0;
}

static double edge_query(const tpPoly *a, const tpPoly *b, int *ea, int *eb, double axis[3])
{
    double sep = -INFINITY;
    *ea = *eb = -1;
    for (int i = 0; i < a->ne; i++) {
        const tpPolyEdge *x = &a->e[i];
        const double *pa = a->v + 3 * x->v0, *qa = a->v + 3 * x->v1;
        const double *n1 = a->plane + 4 * x->f0, *n2 = a->plane + 4 * x->f1;
        double da[3] = {qa[0] - pa[0], qa[1] - pa[1], qa[2] - pa[2]};
        for (int j = 0; j < b->ne; j++) {
            const tpPolyEdge *y = &b->e[j];
            const double *m1 = b->plane + 4 * y->f0, *m2 = b->plane + 4 * y->f1;
            const double c[3] = {-m1[0], -m1[1], -m1[2]}, d[3] = {-m2[0], -m2[1], -m2[2]};
            if (!minkowski_face(n1, n2, c, d))
                continue;
            const double *pb = b->v + 3 * y->v0, *qb = b->v + 3 * y->v1;
            double db[3] = {qb[0] - pb[0], qb[1] - pb[1], qb[2] - pb[2]}, l[3];
            cross3(da, db, l);
            double len = sqrt(dot3(l, l));
            if (len < 1e-9 * sqrt(dot3(da, da) * dot3(db, db)))
                continue; /* parallel edges: a face query covers them */
            for (int k = 0; k < 3; k++)
                l[k] /= len;
            double r[3] = {pa[0] - a->c[0], pa[1] - a->c[1], pa[2] - a->c[2]};
            if (dot3(l, r) < 0)
                for (int k = 0; k < 3; k++)
                    l[k] = -l[k];
            double r2[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
            double s = dot3(l, r2);
            if (s > sep) {
                sep = s;
                *ea = i;
                *eb = j;
                memcpy(axis, l, sizeof l);
            }
        }
    }
    return sep;
}

/* Keeps at most cap contacts: the deepest first, then each next the one farthest from those kept. */
static int reduce(dContactGeom *c, int n, int cap)
{
    if (n <= cap)
        return n;
    int deep = 0;
    for (int i = 1; i < n; i++)
        if (c[i].depth > c[deep].depth)
            deep = i;
    dContactGeom t = c[0];
    c[0] = c[deep];
    c[deep] = t;
    for (int k = 1; k < cap; k++) {
        int far = k;
        double farest = -1;
        for (int i = k; i < n; i++) {
            double m = INFINITY;
            for (int j = 0; j < k; j++) {
                double d[3] = {c[i].pos[0] - c[j].pos[0], c[i].pos[1] - c[j].pos[1], c[i].pos[2] - c[j].pos[2]};
                double dd = dot3(d, d);
                m = dd < m ? dd : m;
            }
            if (m > farest) {
                farest = m;
                far = i;
            }
        }
        t = c[k];
        c[k] = c[far];
        c[far] = t;
    }
    return cap;
}

/* Clips the polygon (n points) against the side planes of reference face f of poly ref; writes
 * the result to out (TP_CLIP_MAX), returns its size. */
static int clip_polygon(const tpPoly *ref, int f, const double (*in)[3], int n, double (*out)[3], double (*tmp)[3])
{
    const double *nr = ref->plane + 4 * f;
    int cnt = ref->fcount[f];
    const double(*src)[3] = in;
    int m = n;
    for (int e = 0; e < cnt && m > 0; e++) {
        const double *p = ref->v + 3 * ref->fidx[ref->fstart[f] + e];
        const double *q = ref->v + 3 * ref->fidx[ref->fstart[f] + (e + 1) % cnt];
        double ed[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, s[3];
        cross3(ed, nr, s); /* outward side normal of a counter-clockwise loop */
        double sd = dot3(s, p);
        double(*dst)[3] = (e % 2 == 0) ? tmp : out;
        int k = 0;
        for (int i = 0; i < m && k < TP_CLIP_MAX - 1; i++) {
            const double *x = src[i], *y = src[(i + 1) % m];
            double dx = dot3(s, x) - sd, dy = dot3(s, y) - sd;
            if (dx <= 0)
                memcpy(dst[k++], x, sizeof dst[0]);
            if ((dx < 0 && dy > 0) || (dx > 0 && dy < 0)) {
                double t = dx / (dx - dy);
                for (int c = 0; c < 3; c++)
                    dst[k][c] = x[c] + t * (y[c] - x[c]);
                k++;
            }
        }
        src = (const double(*)[3])dst;
        m = k;
    }
    if (src != (const double(*)[3])out)
        memcpy(out, src, (size_t)m * sizeof out[0]);
    return m;
}

/* Face contact: reference face f of ref (its outward normal is -N if ref is A, +N if ref is B),
 * incident face of inc. N points from B into A. Writes to c (room: cap), returns the count, or
 * -1 when a face is too large for the clipping buffers. */
static int face_contacts(const tpPoly *ref, int f, const tpPoly *inc, const double N[3], dContactGeom *c, int cap)
{
    const double *nr = ref->plane + 4 * f;
    int fi = -1;
    double best = INFINITY;
    for (int g = 0; g < inc->nsearch; g++) {
        double d = dot3(inc->plane + 4 * g, nr);
        if (d < best) {
            best = d;
            fi = g;
        }
    }
    if (fi < 0 || inc->fcount[fi] > TP_CLIP_MAX / 2 || ref->fcount[f] > TP_CLIP_MAX / 2)
        return -1;
    /* in zeroed: GCC 12 with _FORTIFY_SOURCE (TP_HARDEN) cannot see that clip_polygon reads only
     * its first n rows and would warn (maybe-uninitialized) */
    double in[TP_CLIP_MAX][3] = {{0}}, out[TP_CLIP_MAX][3], tmp[TP_CLIP_MAX][3];
    int n = inc->fcount[fi];
    for (int i = 0; i < n; i++)
        memcpy(in[i], inc->v + 3 * inc->fidx[inc->fstart[fi] + i], sizeof in[0]);
    int m = clip_polygon(ref, f, (const double(*)[3])in, n, out, tmp);
    int k = 0;
    dContactGeom buf[TP_CLIP_MAX];
    for (int i = 0; i < m; i++) {
        double depth = nr[3] - dot3(nr, out[i]);
        if (depth < 0)
            continue;
        dContactGeom *g = &buf[k++];
        memset(g, 0, sizeof *g);
        for (int j = 0; j < 3; j++) {
            g->pos[j] = out[i][j];
            g->normal[j] = N[j];
        }
        g->depth = depth;
    }
    k = reduce(buf, k, cap);
    memcpy(c, buf, (size_t)k * sizeof *c);
    return k;
}

static void closest_segments(const double *p1, const double *q1, const double *p2, const double *q2, double *c1,
                             double *c2)
{
    double d1[3] = {q1[0] - p1[0], q1[1] - p1[1], q1[2] - p1[2]}, d2[3] = {q2[0] - p2[0], q2[1] - p2[1], q2[2] - p2[2]};
    double r[3] = {p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]};
    double a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r), cc = dot3(d1, r), b = dot3(d1, d2);
    double den = a * e - b * b, s = den > 1e-18 ? (b * f - cc * e) / den : 0.0;
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    double t = e > 0 ? (b * s + f) / e : 0.0;
    if (t < 0) {
        t = 0;
        s = a > 0 ? -cc / a : 0;
    } else if (t > 1) {
        t = 1;
        s = a > 0 ? (b - cc) / a : 0;
    }
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    for (int k = 0; k < 3; k++) {
        c1[k] = p1[k] + s * d1[k];
        c2[k] = p2[k] + t * d2[k];
    }
}

/* The contacts of polytopes A (a moving hull) and B. front: B is a one-sided triangle whose face
 * 0 normal may only push A toward its front. N of each contact points from B into A. Returns the
 * count (0: apart), or -1 when a face is too large for the clipping buffers. */
static int poly_contacts(const tpPoly *A, const tpPoly *B, bool front, dContactGeom *c, int cap)
{
    const double tol = 1e-5; /* m: prefer faces, and B's faces, within this */
    int fa, fb, ea, eb;
    double sa = face_query(A, B, &fa);
    if (sa > 0)
        return 0;
    double sb = face_query(B, A, &fb);
    if (sb > 0)
        return 0;
    double axis[3];
    double se = edge_query(A, B, &ea, &eb, axis);
    if (se > 0)
        return 0;
    const double *nt = B->plane; /* a triangle's front normal */
    bool edge_ok = ea >= 0 && (!front || -dot3(axis, nt) > 0);
    bool a_ok = fa >= 0 && (!front || -dot3(A->plane + 4 * fa, nt) > 0);
    if (edge_ok && se > sa + tol && se > sb + tol) {
        const tpPolyEdge *x = &A->e[ea], *y = &B->e[eb];
        double c1[3], c2[3];
        closest_segments(A->v + 3 * x->v0, A->v + 3 * x->v1, B->v + 3 * y->v0, B->v + 3 * y->v1, c1, c2);
        memset(c, 0, sizeof *c);
        for (int k = 0; k < 3; k++) {
            c->pos[k] = 0.5 * (c1[k] + c2[k]);
            c->normal[k] = -axis[k];
        }
        c->depth = -se;
        return 1;
    }
    if (sb + tol >= sa || !a_ok) {
        if (fb < 0)
            return 0;
        return face_contacts(B, fb, A, B->plane + 4 * fb, c, cap);
    }
    const double *na = A->plane + 4 * fa;
    const double N[3] = {-na[0], -na[1], -na[2]};
    return face_contacts(A, fa, B, N, c, cap);
}

/* ------------------------------------------------------------------------------------------ */
/* Posing polytopes                                                                            */

static void pose(dGeomID g, double R[9], double p[3])
{
    const dReal *r = dGeomGetRotation(g), *q = dGeomGetPosition(g);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            R[3 * i + j] = r[4 * i + j];
        p[i] = q[i];
    }
}

static void xform(const double R[9], const double p[3], const double *v, double *o)
{
    for (int i = 0; i < 3; i++)
        o[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2] + p[i];
}

/* A's hull in world coordinates, into its scratch arrays. */
static void hull_poly(tpMeshRt *rt, dGeomID g, tpPoly *out)
{
    double R[9], p[3];
    pose(g, R, p);
    out->nv = (int)rt->npoints;
    out->nf = out->nsearch = rt->topo.nf;
    out->ne = rt->topo.ne;
    out->fstart = rt->topo.fstart;
    out->fcount = rt->topo.fcount;
    out->fidx = rt->topo.fidx;
    out->e = rt->topo.e;
    out->c[0] = out->c[1] = out->c[2] = 0;
    for (unsigned i = 0; i < rt->npoints; i++) {
        xform(R, p, rt->points + 3 * i, rt->wv + 3 * i);
        for (int k = 0; k < 3; k++)
            out->c[k] += rt->wv[3 * i + k] / rt->npoints;
    }
    for (unsigned f = 0; f < rt->nplanes; f++) {
        const double *pl = rt->planes + 4 * f; /* live planes: inflated in the swept pass */
        double *w = rt->wplane + 4 * f;
        for (int i = 0; i < 3; i++)
            w[i] = R[3 * i] * pl[0] + R[3 * i + 1] * pl[1] + R[3 * i + 2] * pl[2];
        w[3] = pl[3] + dot3(w, p);
    }
    out->v = rt->wv;
    out->plane = rt->wplane;
}

/* The box template: the unit cube's faces (counter-clockwise from outside) and edges. */
const unsigned tpBoxLoops[30] = {4, 0, 4, 6, 2, 4, 1, 3, 7, 5, 4, 0, 1, 5, 4,
                                 4, 2, 6, 7, 3, 4, 0, 2, 3, 1, 4, 4, 5, 7, 6};

typedef struct tpBoxPoly {
    double v[24], plane[24];
    const tpPolyTopo *topo;
} tpBoxPoly;

static void box_poly_make(dGeomID g, const tpPolyTopo *topo, tpBoxPoly *bp, tpPoly *out)
{
    dVector3 len;
    dGeomBoxGetLengths(g, len);
    double unit[24];
    for (int i = 0; i < 8; i++) {
        unit[3 * i] = (i & 1) ? 0.5 : -0.5;
        unit[3 * i + 1] = (i & 2) ? 0.5 : -0.5;
        unit[3 * i + 2] = (i & 4) ? 0.5 : -0.5;
    }
    bp->topo = topo;
    double R[9], p[3];
    pose(g, R, p);
    out->c[0] = p[0], out->c[1] = p[1], out->c[2] = p[2];
    for (int i = 0; i < 8; i++) {
        double l[3] = {unit[3 * i] * len[0], unit[3 * i + 1] * len[1], unit[3 * i + 2] * len[2]};
        xform(R, p, l, bp->v + 3 * i);
    }
    for (int f = 0; f < 6; f++) {
        const double *n = bp->topo->plane + 4 * f;
        double *w = bp->plane + 4 * f;
        for (int i = 0; i < 3; i++)
            w[i] = R[3 * i] * n[0] + R[3 * i + 1] * n[1] + R[3 * i + 2] * n[2];
        w[3] = dot3(w, bp->v + 3 * bp->topo->fidx[bp->topo->fstart[f]]);
    }
    out->nv = 8;
    out->nf = out->nsearch = 6;
    out->ne = bp->topo->ne;
    out->v = bp->v;
    out->plane = bp->plane;
    out->fstart = bp->topo->fstart;
    out->fcount = bp->topo->fcount;
    out->fidx = bp->topo->fidx;
    out->e = bp->topo->e;
}

/* A triangle as a one-sided polytope: face 0 its front; faces 1-3 its edges' outward in-plane
 * normals (only for the Gauss-map test of its edges: never an axis or an incident face). */
typedef struct tpTriPoly {
    double v[9], plane[16];
    int fstart[4], fcount[4], fidx[9];
    tpPolyEdge e[3];
} tpTriPoly;

static bool tri_poly_make(const double *a, const double *b, const double *cc, tpTriPoly *tp, tpPoly *out)
{
    memcpy(tp->v, a, 3 * sizeof(double));
    memcpy(tp->v + 3, b, 3 * sizeof(double));
    memcpy(tp->v + 6, cc, 3 * sizeof(double));
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]}, n[3];
    cross3(u, w, n);
    double len = sqrt(dot3(n, n));
    if (!(len > 0))
        return false;
    for (int k = 0; k < 3; k++)
        tp->plane[k] = n[k] / len;
    tp->plane[3] = dot3(tp->plane, a);
    tp->fstart[0] = 0, tp->fcount[0] = 3;
    for (int k = 0; k < 3; k++) {
        tp->fidx[k] = k;
        const double *p = tp->v + 3 * k, *q = tp->v + 3 * ((k + 1) % 3);
        double ed[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, s[3];
        cross3(ed, tp->plane, s);
        double sl = sqrt(dot3(s, s));
        for (int c = 0; c < 3; c++)
            tp->plane[4 * (k + 1) + c] = sl > 0 ? s[c] / sl : 0;
        tp->plane[4 * (k + 1) + 3] = dot3(tp->plane + 4 * (k + 1), p);
        tp->fstart[k + 1] = 0, tp->fcount[k + 1] = 0;
        tp->e[k] = (tpPolyEdge){k, (k + 1) % 3, 0, k + 1};
    }
    out->nv = 3;
    out->nf = 4;
    out->nsearch = 1;
    out->ne = 3;
    out->v = tp->v;
    out->plane = tp->plane;
    out->fstart = tp->fstart;
    out->fcount = tp->fcount;
    out->fidx = tp->fidx;
    out->e = tp->e;
    for (int k = 0; k < 3; k++)
        out->c[k] = (a[k] + b[k] + cc[k]) / 3.0;
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Static meshes: world triangles and a uniform grid of their bounding boxes                    */

static bool tri_grid_build(tpMeshRt *rt, dGeomID g)
{
    double R[9], p[3];
    pose(g, R, p);
    int nt = rt->ntri;
    rt->tw = malloc((size_t)rt->nvert * 3 * sizeof(double));
    rt->tbox = malloc((size_t)nt * 6 * sizeof(double));
    rt->tstamp = calloc((size_t)nt, sizeof(uint32_t));
    if (!rt->tw || !rt->tbox || !rt->tstamp)
        return false;
    for (int i = 0; i < rt->nvert; i++)
        xform(R, p, rt->vertices + 3 * i, rt->tw + 3 * i);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int t = 0; t < nt; t++) {
        double *bx = rt->tbox + 6 * t;
        for (int k = 0; k < 3; k++)
            bx[k] = INFINITY, bx[3 + k] = -INFINITY;
        for (int c = 0; c < 3; c++) {
            const double *v = rt->tw + 3 * rt->triangles[3 * t + c];
            for (int k = 0; k < 3; k++) {
                bx[k] = fmin(bx[k], v[k]);
                bx[3 + k] = fmax(bx[3 + k], v[k]);
            }
        }
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], bx[k]);
            hi[k] = fmax(hi[k], bx[3 + k]);
        }
    }
    double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    rt->cell = fmax(ext / 48.0, 1e-6);
    long ncells = 1;
    for (int k = 0; k < 3; k++) {
        rt->glo[k] = lo[k];
        rt->gn[k] = (int)floor((hi[k] - lo[k]) / rt->cell) + 1;
        ncells *= rt->gn[k];
    }
    rt->gstart = calloc((size_t)ncells + 1, sizeof(int));
    if (!rt->gstart)
        return false;
    /* two passes: count, then fill (CSR) */
    for (int pass = 0; pass < 2; pass++) {
        for (int t = 0; t < nt; t++) {
            const double *bx = rt->tbox + 6 * t;
            int a[3], b[3];
            for (int k = 0; k < 3; k++) {
                a[k] = (int)floor((bx[k] - rt->glo[k]) / rt->cell);
                b[k] = (int)floor((bx[3 + k] - rt->glo[k]) / rt->cell);
                a[k] = a[k] < 0 ? 0 : a[k] >= rt->gn[k] ? rt->gn[k] - 1 : a[k];
                b[k] = b[k] < 0 ? 0 : b[k] >= rt->gn[k] ? rt->gn[k] - 1 : b[k];
            }
            for (int x = a[0]; x <= b[0]; x++)
                for (int y = a[1]; y <= b[1]; y++)
                    for (int z = a[2]; z <= b[2]; z++) {
                        long cidx = ((long)x * rt->gn[1] + y) * rt->gn[2] + z;
                        if (pass == 0)
                            rt->gstart[cidx + 1]++;
                        else
                            rt->gtri[rt->gfill[cidx]++] = t;
                    }
        }
        if (pass == 0) {
            for (long c = 0; c < ncells; c++)
                rt->gstart[c + 1] += rt->gstart[c];
            rt->gtri = malloc((size_t)(rt->gstart[ncells] > 0 ? rt->gstart[ncells] : 1) * sizeof(int));
            rt->gfill = malloc((size_t)ncells * sizeof(int));
            if (!rt->gtri || !rt->gfill)
                return false;
            memcpy(rt->gfill, rt->gstart, (size_t)ncells * sizeof(int));
        }
    }
    free(rt->gfill);
    rt->gfill = NULL;
    rt->grid_ready = true;
    return true;
}

/* Calls visit(ctx, t) once for every triangle t of static mesh rb whose bounding box meets the
 * box aabb (minx, maxx, miny, maxy, minz, maxz), in the grid's order (deterministic); stops when
 * visit returns false. False when the grid could not be built (out of memory), or a visit failed. */
typedef bool (*tpTriVisit)(void *ctx, int t);
static bool each_triangle(tpMeshRt *rb, dGeomID gb, const dReal aabb[6], tpTriVisit visit, void *ctx)
{
    if (!rb->grid_ready && !tri_grid_build(rb, gb))
        return false;
    int a[3], b[3];
    for (int k = 0; k < 3; k++) {
        if (aabb[2 * k + 1] < rb->glo[k] || aabb[2 * k] > rb->glo[k] + rb->gn[k] * rb->cell)
            return true;
        a[k] = (int)floor((aabb[2 * k] - rb->glo[k]) / rb->cell);
        b[k] = (int)floor((aabb[2 * k + 1] - rb->glo[k]) / rb->cell);
        a[k] = a[k] < 0 ? 0 : a[k] >= rb->gn[k] ? rb->gn[k] - 1 : a[k];
        b[k] = b[k] < 0 ? 0 : b[k] >= rb->gn[k] ? rb->gn[k] - 1 : b[k];
    }
    if (++rb->stamp == 0) { /* wrapped: clear the marks */
        memset(rb->tstamp, 0, (size_t)rb->ntri * sizeof(uint32_t));
        rb->stamp = 1;
    }
    for (int x = a[0]; x <= b[0]; x++)
        for (int y = a[1]; y <= b[1]; y++)
            for (int z = a[2]; z <= b[2]; z++) {
                long cidx = ((long)x * rb->gn[1] + y) * rb->gn[2] + z;
                for (int s = rb->gstart[cidx]; s < rb->gstart[cidx + 1]; s++) {
                    int t = rb->gtri[s];
                    if (rb->tstamp[t] == rb->stamp)
                        continue;
                    rb->tstamp[t] = rb->stamp;
                    const double *bx = rb->tbox + 6 * t;
                    if (bx[0] > aabb[1] || bx[3] < aabb[0] || bx[1] > aabb[3] || bx[4] < aabb[2] || bx[2] > aabb[5] ||
                        bx[5] < aabb[4])
                        continue;
                    if (!visit(ctx, t))
                        return false;
                }
            }
    return true;
}

/* Adds contact c to out[0 .. *n) of room cap; when full, it replaces the shallowest if deeper. */
static void keep_deepest(dContactGeom *out, int *n, int cap, const dContactGeom *c)
{
    if (*n < cap) {
        out[(*n)++] = *c;
        return;
    }
    int sh = 0;
    for (int j = 1; j < *n; j++)
        if (out[j].depth < out[sh].depth)
            sh = j;
    if (c->depth > out[sh].depth)
        out[sh] = *c;
}

typedef struct HullTris {
    tpMeshRt *rb;
    const tpPoly *A;
    dContactGeom *out;
    int n, cap;
} HullTris;

static bool hull_tri_visit(void *ctx, int t)
{
    HullTris *h = ctx;
    tpMeshRt *rb = h->rb;
    tpTriPoly tp;
    tpPoly B;
    const int32_t *tr = rb->triangles + 3 * t;
    if (!tri_poly_make(rb->tw + 3 * tr[0], rb->tw + 3 * tr[1], rb->tw + 3 * tr[2], &tp, &B))
        return true;
    if (dot3(B.plane, h->A->c) < B.plane[3])
        return true; /* A's centre is behind this one-sided triangle */
    dContactGeom tmp[16];
    int m = poly_contacts(h->A, &B, true, tmp, 16);
    if (m < 0)
        return false; /* a hull face too large to clip: ODE's collider for the pair */
    for (int i = 0; i < m; i++)
        keep_deepest(h->out, &h->n, h->cap, &tmp[i]);
    return true;
}

static int hull_tri_mesh(tpMeshRt *ra, dGeomID ga, tpMeshRt *rb, dGeomID gb, int cap, dContactGeom *out)
{
    tpPoly A;
    hull_poly(ra, ga, &A);
    dReal aabb[6];
    dGeomGetAABB(ga, aabb); /* minx, maxx, miny, maxy, minz, maxz */
    HullTris h = {rb, &A, out, 0, cap};
    return each_triangle(rb, gb, aabb, hull_tri_visit, &h) ? h.n : -1;
}

/* The point of triangle (a, b, c) closest to p (Ericson, Real-Time Collision Detection 5.1.5). */
static void closest_on_triangle(const double *p, const double *a, const double *b, const double *c, double q[3])
{
    double ab[3], ac[3], ap[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ap[k] = p[k] - a[k];
    }
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        memcpy(q, a, 3 * sizeof(double));
        return;
    }
    double bp[3] = {p[0] - b[0], p[1] - b[1], p[2] - b[2]};
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0 && d4 <= d3) {
        memcpy(q, b, 3 * sizeof(double));
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + v * ab[k];
        return;
    }
    double cp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0 && d5 <= d6) {
        memcpy(q, c, 3 * sizeof(double));
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + w * ac[k];
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = b[k] + w * (c[k] - b[k]);
        return;
    }
    double den = 1.0 / (va + vb + vc), v = vb * den, w = vc * den;
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + ab[k] * v + ac[k] * w;
}

typedef struct SphereTris {
    tpMeshRt *rb;
    double c[3], r;
    dContactGeom *out;
    int n, cap;
} SphereTris;

/* m: two contacts of neighbouring triangles at the same closest point (a shared edge or vertex) */
#define TP_SPHERE_TRI_SAME 1e-9

static bool sphere_tri_visit(void *ctx, int t)
{
    SphereTris *s = ctx;
    const int32_t *tr = s->rb->triangles + 3 * t;
    const double *a = s->rb->tw + 3 * tr[0], *b = s->rb->tw + 3 * tr[1], *cc = s->rb->tw + 3 * tr[2];
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ac[3] = {cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]}, n[3];
    cross3(ab, ac, n);
    double nn = sqrt(dot3(n, n));
    if (!(nn > 0))
        return true; /* degenerate */
    double rel[3] = {s->c[0] - a[0], s->c[1] - a[1], s->c[2] - a[2]};
    if (dot3(n, rel) < 0)
        return true; /* the centre is behind this one-sided triangle (its far side of a thin tube) */
    double q[3];
    closest_on_triangle(s->c, a, b, cc, q);
    double d[3] = {s->c[0] - q[0], s->c[1] - q[1], s->c[2] - q[2]}, dist = sqrt(dot3(d, d));
    if (!(dist < s->r))
        return true;
    dContactGeom g;
    memset(&g, 0, sizeof g);
    for (int k = 0; k < 3; k++) {
        g.pos[k] = q[k];
        g.normal[k] = dist > 1e-12 ? d[k] / dist : n[k] / nn; /* from the surface to the centre */
    }
    g.depth = s->r - dist;
    for (int i = 0; i < s->n; i++) { /* an edge or vertex two triangles share: once */
        const double *o = s->out[i].pos;
        if (fabs(o[0] - q[0]) < TP_SPHERE_TRI_SAME && fabs(o[1] - q[1]) < TP_SPHERE_TRI_SAME &&
            fabs(o[2] - q[2]) < TP_SPHERE_TRI_SAME)
            return true;
    }
    keep_deepest(s->out, &s->n, s->cap, &g);
    return true;
}

/* A sphere (geom gs) against a static triangle mesh: a contact at each triangle's point closest to
 * the centre within the radius, pushing the sphere along the line from that point to its centre
 * (so a thin tube pushes a ball back out of the side it came from, never through), triangles the
 * centre is behind skipped (one-sided, as for the hulls). ODE's sphere-trimesh collider let a ball
 * sink 1.1-3.4 cm into a ring of 1 cm tube. The normal pushes the sphere. */
static int sphere_tri_mesh(dGeomID gs, tpMeshRt *rb, dGeomID gb, int cap, dContactGeom *out)
{
    const dReal *c = dGeomGetPosition(gs);
    SphereTris s = {rb, {c[0], c[1], c[2]}, dGeomSphereGetRadius(gs), out, 0, cap};
    dReal aabb[6];
    dGeomGetAABB(gs, aabb);
    return each_triangle(rb, gb, aabb, sphere_tri_visit, &s) ? s.n : -1;
}

/* A hull against a sphere (centre cs, radius r): one contact at the hull's point closest to the
 * centre (the deepest face's when the centre is inside). ODE's sphere-convex collider let a ball
 * pressed against a die in a bowl sink 6 mm. N points from the sphere into the hull. */
static int hull_sphere(const tpPoly *A, const double cs[3], double r, dContactGeom *c)
{
    int fmax = -1;
    double smax = -INFINITY;
    for (int f = 0; f < A->nf; f++) {
        double sd = dot3(A->plane + 4 * f, cs) - A->plane[4 * f + 3];
        if (sd > r)
            return 0; /* a face plane separates */
        if (sd > smax) {
            smax = sd;
            fmax = f;
        }
    }
    if (fmax < 0)
        return 0;
    memset(c, 0, sizeof *c);
    if (smax <= 0) { /* the centre is inside: out through the nearest face */
        const double *n = A->plane + 4 * fmax;
        for (int k = 0; k < 3; k++) {
            c->pos[k] = cs[k] - smax * n[k];
            c->normal[k] = -n[k];
        }
        c->depth = r - smax;
        return 1;
    }
    /* the closest point lies on a face the centre is in front of */
    double best = INFINITY, q[3] = {0, 0, 0};
    for (int f = 0; f < A->nf; f++) {
        const double *n = A->plane + 4 * f;
        double sd = dot3(n, cs) - n[3];
        if (sd <= 0)
            continue;
        double p[3] = {cs[0] - sd * n[0], cs[1] - sd * n[1], cs[2] - sd * n[2]};
        bool inside = true;
        int cnt = A->fcount[f];
        for (int e = 0; e < cnt; e++) {
            const double *a = A->v + 3 * A->fidx[A->fstart[f] + e];
            const double *b = A->v + 3 * A->fidx[A->fstart[f] + (e + 1) % cnt];
            double ed[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, side[3];
            cross3(ed, n, side);
            double rel[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
            if (dot3(side, rel) > 0) {
                inside = false;
                /* closest point of the edge to the centre */
                double ee = dot3(ed, ed),
                       t = ee > 0 ? dot3(ed, (double[3]){cs[0] - a[0], cs[1] - a[1], cs[2] - a[2]}) / ee : 0;
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                double x[3] = {a[0] + t * ed[0], a[1] + t * ed[1], a[2] + t * ed[2]};
                double d[3] = {cs[0] - x[0], cs[1] - x[1], cs[2] - x[2]}, dd = sqrt(dot3(d, d));
                if (dd < best) {
                    best = dd;
                    memcpy(q, x, sizeof q);
                }
            }
        }
        if (inside && sd < best) {
            best = sd;
            memcpy(q, p, sizeof q);
        }
    }
    if (!(best < r) || !(best > 0))
        return 0;
    for (int k = 0; k < 3; k++) {
        c->pos[k] = q[k];
        c->normal[k] = -(cs[k] - q[k]) / best;
    }
    c->depth = r - best;
    return 1;
}

/* ------------------------------------------------------------------------------------------ */

int tpMeshGeom_Collide(tpMeshRt *ra, dGeomID ga, tpMeshRt *rb, dGeomID gb, int cap, dContactGeom *out)
{
    /* a sphere against a static triangle mesh (either order) */
    const bool sa = dGeomGetClass(ga) == dSphereClass, sb = dGeomGetClass(gb) == dSphereClass;
    if (cap >= 1 && (sa || sb)) {
        dGeomID gs = sa ? ga : gb, gm = sa ? gb : ga;
        tpMeshRt *rm = sa ? rb : ra;
        if (rm && rm->ntri > 0 && dGeomGetClass(gm) == dTriMeshClass) {
            int n = sphere_tri_mesh(gs, rm, gm, cap, out);
            for (int i = 0; i < n; i++) {
                out[i].g1 = ga;
                out[i].g2 = gb;
                out[i].side1 = out[i].side2 = -1;
                if (!sa) /* the normal pushes g1: here the mesh */
                    for (int k = 0; k < 3; k++)
                        out[i].normal[k] = -out[i].normal[k];
            }
            return n;
        }
    }
    /* put the moving hull first */
    bool swap = !(ra && ra->planes0);
    if (swap) {
        tpMeshRt *t = ra;
        ra = rb;
        rb = t;
        dGeomID g = ga;
        ga = gb;
        gb = g;
    }
    if (!ra || !ra->planes0 || cap < 1)
        return -1;
    int cls = dGeomGetClass(gb), n;
    if (cls == dTriMeshClass && rb && rb->ntri > 0) {
        n = hull_tri_mesh(ra, ga, rb, gb, cap, out);
    } else if (cls == dConvexClass && rb && rb->planes0) {
        tpPoly A, B;
        hull_poly(ra, ga, &A);
        hull_poly(rb, gb, &B);
        n = poly_contacts(&A, &B, false, out, cap);
    } else if (cls == dBoxClass) {
        tpPoly A, B;
        tpBoxPoly bp;
        hull_poly(ra, ga, &A);
        box_poly_make(gb, &ra->boxtopo, &bp, &B);
        n = poly_contacts(&A, &B, false, out, cap);
    } else if (cls == dSphereClass) {
        tpPoly A;
        hull_poly(ra, ga, &A);
        const dReal *cs = dGeomGetPosition(gb);
        const double c3[3] = {cs[0], cs[1], cs[2]};
        n = hull_sphere(&A, c3, dGeomSphereGetRadius(gb), out);
    } else {
        return -1; /* planes, capsules, cylinders: ODE's colliders serve */
    }
    for (int i = 0; i < n; i++) {
        out[i].g1 = swap ? gb : ga;
        out[i].g2 = swap ? ga : gb;
        out[i].side1 = out[i].side2 = -1;
        if (swap) /* the normal pushes g1: here B */
            for (int k = 0; k < 3; k++)
                out[i].normal[k] = -out[i].normal[k];
    }
    return n;
}
