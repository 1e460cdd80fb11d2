/* Triangle meshes: OBJ and STL readers, welding, the closedness check and mass properties.
 * The glTF reader is in mesh_gltf.c. Every reader treats its bytes as hostile (see tp/mesh.h). */
#include "mesh_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/util.h"

tpMeshLimits tpDefaultMeshLimits(void)
{
    tpMeshLimits l = {64u << 20, 1000000, 2000000, 10000};
    return l;
}

tpMeshView tpMesh_View(const tpMesh *m)
{
    tpMeshView v = {m->nvertices, m->vertices, m->ntriangles, m->triangles};
    return v;
}

void tpMesh_Free(tpMesh *m)
{
    if (m == NULL)
        return;
    free(m->vertices);
    free(m->triangles);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------------------------------ */
/* Growing arrays with caps                                                                    */

bool tpMeshB_AddVertex(tpMeshBuild *b, const double v[3])
{
    if (b->mesh.nvertices >= b->limits.max_vertices) {
        tpErrorf(b->err, b->errlen, "%s: more than %d vertices", b->name, b->limits.max_vertices);
        return false;
    }
    double *vp = tpArray_Grow(b->mesh.vertices, &b->vcap, (size_t)b->mesh.nvertices + 1, 3 * sizeof(double));
    if (!vp) {
        tpErrorf(b->err, b->errlen, "%s: out of memory", b->name);
        return false;
    }
    b->mesh.vertices = vp;
    for (int k = 0; k < 3; k++) {
        if (!isfinite(v[k]) || fabs(v[k]) > 1e6) {
            tpErrorf(b->err, b->errlen, "%s: vertex %d: coordinate %g is not finite or beyond 1e6", b->name,
                     b->mesh.nvertices, v[k]);
            return false;
        }
        b->mesh.vertices[3 * b->mesh.nvertices + k] = v[k];
    }
    b->mesh.nvertices++;
    return true;
}

bool tpMeshB_AddTriangle(tpMeshBuild *b, int i0, int i1, int i2)
{
    if (b->mesh.ntriangles >= b->limits.max_triangles) {
        tpErrorf(b->err, b->errlen, "%s: more than %d triangles", b->name, b->limits.max_triangles);
        return false;
    }
    int32_t *tp = tpArray_Grow(b->mesh.triangles, &b->tcap, (size_t)b->mesh.ntriangles + 1, 3 * sizeof(int32_t));
    if (!tp) {
        tpErrorf(b->err, b->errlen, "%s: out of memory", b->name);
        return false;
    }
    b->mesh.triangles = tp;
    int32_t *t = b->mesh.triangles + 3 * b->mesh.ntriangles;
    t[0] = i0;
    t[1] = i1;
    t[2] = i2;
    b->mesh.ntriangles++;
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Welding: vertices with bit-identical coordinates become one (STL repeats every corner, glTF  */
/* splits vertices at UV and normal seams; the closedness check needs shared edges).           */

typedef struct tpWeldKey {
    double v[3];
    int32_t i;
} tpWeldKey;

static int weld_cmp(const void *pa, const void *pb)
{
    const tpWeldKey *a = pa, *b = pb;
    for (int k = 0; k < 3; k++) {
        if (a->v[k] < b->v[k])
            return -1;
        if (a->v[k] > b->v[k])
            return 1;
    }
    return (a->i > b->i) - (a->i < b->i);
}

/* Merges every vertex into the root of its group (root[i] <= i, root[root[i]] == root[i]): the
 * roots stay, in their original order (copied into nv, which becomes the mesh's vertex array; remap
 * is scratch of nvertices), and the triangles are renumbered. Returns the number of merged vertices
 * whose coordinates differ from their root's. */
static long merge_into_roots(tpMesh *m, const int32_t *root, int32_t *remap, double *nv)
{
    const int n = m->nvertices;
    int count = 0;
    long moved = 0;
    for (int i = 0; i < n; i++) {
        if (root[i] == i) {
            remap[i] = count;
            memcpy(nv + 3 * count, m->vertices + 3 * i, 3 * sizeof(double));
            count++;
        } else if (memcmp(m->vertices + 3 * i, m->vertices + 3 * root[i], 3 * sizeof(double)) != 0) {
            moved++;
        }
    }
    for (int i = 0; i < n; i++)
        remap[i] = remap[root[i]];
    for (int t = 0; t < 3 * m->ntriangles; t++)
        m->triangles[t] = remap[m->triangles[t]];
    free(m->vertices);
    m->vertices = nv;
    m->nvertices = count;
    return moved;
}

bool tpMesh_Weld(tpMesh *m)
{
    int n = m->nvertices;
    if (n == 0)
        return true;
    tpWeldKey *key = malloc((size_t)n * sizeof *key);
    int32_t *remap = malloc((size_t)n * sizeof *remap), *first = malloc((size_t)n * sizeof *first);
    double *nv = malloc((size_t)n * 3 * sizeof *nv);
    if (!key || !remap || !first || !nv) {
        free(key);
        free(remap);
        free(first);
        free(nv);
        return false;
    }
    for (int i = 0; i < n; i++) {
        memcpy(key[i].v, m->vertices + 3 * i, sizeof key[i].v);
        key[i].i = i;
    }
    qsort(key, (size_t)n, sizeof *key, weld_cmp);
    /* each group of equal coordinates maps to its lowest original index (ties sort by index), and
     * the kept vertices stay in their original order: the result is a function of the input */
    for (int s = 0; s < n;) {
        int e = s + 1;
        while (e < n && memcmp(key[s].v, key[e].v, sizeof key[s].v) == 0)
            e++;
        for (int k = s; k < e; k++)
            first[key[k].i] = key[s].i;
        s = e;
    }
    merge_into_roots(m, first, remap, nv);
    free(key);
    free(remap);
    free(first);
    return true;
}

/* A total order on vertex coordinates: by x, y, z, and -0 before +0 (two vertices equal here
 * have the same bits). */
static int vertex_cmp(const double *a, const double *b)
{
    for (int k = 0; k < 3; k++) {
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
        if (signbit(a[k]) != signbit(b[k]))
            return signbit(a[k]) ? -1 : 1;
    }
    return 0;
}

static int weld_x_cmp(const void *pa, const void *pb)
{
    const tpWeldKey *a = pa, *b = pb;
    if (a->v[0] != b->v[0])
        return a->v[0] < b->v[0] ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

bool tpMesh_WeldNear(tpMesh *m, double eps, long *welded)
{
    int n = m->nvertices;
    *welded = 0;
    if (n == 0)
        return true;
    tpWeldKey *key = malloc((size_t)n * sizeof *key);
    int32_t *up = malloc((size_t)n * sizeof *up), *remap = malloc((size_t)n * sizeof *remap);
    double *nv = malloc((size_t)n * 3 * sizeof *nv);
    if (!key || !up || !remap || !nv) {
        free(key);
        free(up);
        free(remap);
        free(nv);
        return false;
    }
    for (int i = 0; i < n; i++) {
        memcpy(key[i].v, m->vertices + 3 * i, sizeof key[i].v);
        key[i].i = i;
        up[i] = i;
    }
    /* a sweep along x: each vertex against those at most eps further along; the union keeps the
     * lowest index as the root, so the result does not depend on the sort's ties */
    qsort(key, (size_t)n, sizeof *key, weld_x_cmp);
    for (int s = 0; s < n; s++) {
        for (int e = s + 1; e < n && key[e].v[0] - key[s].v[0] <= eps; e++) {
            if (fabs(key[e].v[1] - key[s].v[1]) > eps || fabs(key[e].v[2] - key[s].v[2]) > eps)
                continue;
            tpUnion_Join(up, key[s].i, key[e].i);
        }
    }
    /* each group keeps the coordinates of its member that sorts first by (x, y, z) (key is in
     * that order: weld_x_cmp breaks x ties by index, so y and z are compared here), not of its
     * lowest index: the kept position is a function of the group's coordinates, not of the
     * order the file lists them in (remap serves as the group's representative, -1 for none) */
    for (int i = 0; i < n; i++) {
        up[i] = tpUnion_Root(up, i);
        remap[i] = -1;
    }
    for (int s = 0; s < n; s++) {
        const int32_t i = key[s].i, r = up[i];
        if (remap[r] < 0 || vertex_cmp(m->vertices + 3 * i, m->vertices + 3 * remap[r]) < 0)
            remap[r] = i;
    }
    for (int i = 0; i < n; i++)
        up[i] = remap[up[i]];
    *welded = merge_into_roots(m, up, remap, nv);
    free(key);
    free(up);
    free(remap);
    return true;
}

/* The canonical order (tpMesh_Canonicalize): vertices by vertex_cmp (the keys carry their
 * coordinates, so the comparators share no state), triangles by their three indices once each
 * starts at its smallest. */
static int canon_vertex_cmp(const void *pa, const void *pb)
{
    const tpWeldKey *a = pa, *b = pb;
    const int c = vertex_cmp(a->v, b->v);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int canon_triangle_cmp(const void *pa, const void *pb)
{
    const int32_t *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

bool tpMesh_Canonicalize(tpMesh *m)
{
    const int n = m->nvertices;
    if (n == 0)
        return true;
    tpWeldKey *key = malloc((size_t)n * sizeof *key);
    int32_t *place = malloc((size_t)n * sizeof *place);
    double *nv = malloc((size_t)n * 3 * sizeof *nv);
    if (!key || !place || !nv) {
        free(key);
        free(place);
        free(nv);
        return false;
    }
    for (int i = 0; i < n; i++) {
        memcpy(key[i].v, m->vertices + 3 * i, sizeof key[i].v);
        key[i].i = i;
    }
    qsort(key, (size_t)n, sizeof *key, canon_vertex_cmp);
    for (int k = 0; k < n; k++) {
        place[key[k].i] = k;
        memcpy(nv + 3 * k, key[k].v, sizeof key[k].v);
    }
    free(m->vertices);
    m->vertices = nv;
    for (int t = 0; t < m->ntriangles; t++) {
        int32_t *tr = m->triangles + 3 * t;
        int32_t a = place[tr[0]], b = place[tr[1]], c = place[tr[2]];
        /* a cyclic turn keeps the winding (the side the triangle faces) */
        if (b < a && b <= c) {
            tr[0] = b, tr[1] = c, tr[2] = a;
        } else if (c < a && c < b) {
            tr[0] = c, tr[1] = a, tr[2] = b;
        } else {
            tr[0] = a, tr[1] = b, tr[2] = c;
        }
    }
    qsort(m->triangles, (size_t)m->ntriangles, 3 * sizeof *m->triangles, canon_triangle_cmp);
    free(key);
    free(place);
    return true;
}

int tpMesh_HullPoints(const tpMeshView *m, int max, int32_t *out)
{
    if (m->nvertices <= max) {
        for (int i = 0; i < m->nvertices; i++)
            out[i] = i;
        return m->nvertices;
    }
    /* max directions on a Fibonacci spiral; for each, the vertex farthest along it (the lowest
     * index on a tie); then the distinct ones in index order */
    int n = 0;
    const double golden = TP_PI * (3.0 - sqrt(5.0));
    for (int k = 0; k < max; k++) {
        double z = 1.0 - (2.0 * k + 1.0) / max, r = sqrt(fmax(0.0, 1.0 - z * z)), a = golden * k;
        double d[3] = {r * cos(a), r * sin(a), z};
        int best = 0;
        double bd = -INFINITY;
        for (int i = 0; i < m->nvertices; i++) {
            const double *v = m->vertices + 3 * i;
            double x = v[0] * d[0] + v[1] * d[1] + v[2] * d[2];
            if (x > bd) {
                bd = x;
                best = i;
            }
        }
        bool have = false;
        for (int j = 0; j < n && !have; j++)
            have = out[j] == best;
        if (!have)
            out[n++] = best;
    }
    for (int i = 1; i < n; i++) /* insertion sort: n <= max, small */
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int32_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    for (int i = 0; i < n; i++)
        TP_INVARIANT(out[i] >= 0 && out[i] < m->nvertices && (i == 0 || out[i - 1] < out[i]));
    return n;
}

bool tpMesh_Lathe(const double *z, const double *r, int np, int seg, tpMesh *out)
{
    memset(out, 0, sizeof *out);
    if (np < 2 || seg < 3)
        return false;
    /* rings (r > 0) get seg vertices, poles (r = 0, only at an end) one; flat ends a centre */
    const bool pole0 = !(r[0] > 0), pole1 = !(r[np - 1] > 0);
    for (int i = 1; i < np - 1; i++)
        if (!(r[i] > 0))
            return false;
    int nring = np - (pole0 ? 1 : 0) - (pole1 ? 1 : 0);
    if (nring < 1)
        return false;
    int nv = nring * seg + 2, nt = 2 * seg * (nring - 1) + 2 * seg;
    out->vertices = malloc((size_t)nv * 3 * sizeof(double));
    out->triangles = malloc((size_t)nt * 3 * sizeof(int32_t));
    if (!out->vertices || !out->triangles) {
        tpMesh_Free(out);
        return false;
    }
    int v = 0, t = 0;
    const int bottom = v++, first_ring = 1; /* the bottom centre or pole */
    out->vertices[0] = out->vertices[1] = 0;
    out->vertices[2] = z[0];
    for (int i = pole0 ? 1 : 0; i < (pole1 ? np - 1 : np); i++)
        for (int j = 0; j < seg; j++, v++) {
            double a = 2.0 * TP_PI * j / seg;
            out->vertices[3 * v] = r[i] * cos(a);
            out->vertices[3 * v + 1] = r[i] * sin(a);
            out->vertices[3 * v + 2] = z[i];
        }
    const int top = v++;
    out->vertices[3 * top] = out->vertices[3 * top + 1] = 0;
    out->vertices[3 * top + 2] = z[np - 1];
    int32_t *T = out->triangles;
#define TRI(a, b, c) (T[3 * t] = (a), T[3 * t + 1] = (b), T[3 * t + 2] = (c), t++)
    for (int j = 0; j < seg; j++) {
        int k = (j + 1) % seg;
        TRI(bottom, first_ring + k, first_ring + j); /* facing -z */
        for (int i = 0; i + 1 < nring; i++) {
            int a = first_ring + i * seg, b = a + seg;
            TRI(a + j, a + k, b + k);
            TRI(a + j, b + k, b + j);
        }
        int last = first_ring + (nring - 1) * seg;
        TRI(top, last + j, last + k); /* facing +z */
    }
#undef TRI
    out->nvertices = nv;
    out->ntriangles = t;
    TP_INVARIANT(t == nt && v == nv);
    TP_VALIDATE(tpMesh_Valid, out);
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* OBJ                                                                                         */

/* Reads one "f" index ("7", "7/2", "7//3", "-1/..."): a 0-based vertex index or -1 on an error. */
static int obj_index(const char **pp, const char *end, int nvert)
{
    const char *p = *pp;
    char buf[32];
    int n = 0;
    while (p < end && !isspace((unsigned char)*p) && *p != '/' && n < 31)
        buf[n++] = *p++;
    buf[n] = '\0';
    while (p < end && !isspace((unsigned char)*p))
        p++;
    *pp = p;
    if (n == 0 || n >= 31)
        return -1;
    char *stop = NULL;
    errno = 0;
    long v = strtol(buf, &stop, 10);
    if (*stop != '\0' || errno != 0 || v == 0)
        return -1;
    long i = v > 0 ? v - 1 : nvert + v;
    return (i >= 0 && i < nvert) ? (int)i : -2;
}

bool tpMeshI_ReadObj(tpMeshBuild *b, const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    int line = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        line++;
        const char *q = p;
        while (q < eol && (*q == ' ' || *q == '\t'))
            q++;
        if (eol - q >= 2 && q[0] == 'v' && (q[1] == ' ' || q[1] == '\t')) {
            char buf[256];
            size_t n = (size_t)(eol - q - 1) < sizeof buf - 1 ? (size_t)(eol - q - 1) : sizeof buf - 1;
            memcpy(buf, q + 1, n);
            buf[n] = '\0';
            double v[3];
            char *s = buf, *stop;
            for (int k = 0; k < 3; k++) {
                v[k] = strtod(s, &stop);
                if (stop == s) {
                    tpErrorf(b->err, b->errlen, "%s: line %d: a vertex needs 3 numbers", b->name, line);
                    return false;
                }
                s = stop;
            }
            if (!tpMeshB_AddVertex(b, v)) {
                char inner[256];
                snprintf(inner, sizeof inner, "%s", b->err);
                tpErrorf(b->err, b->errlen, "%s (line %d)", inner, line);
                return false;
            }
        } else if (eol - q >= 2 && q[0] == 'f' && (q[1] == ' ' || q[1] == '\t')) {
            const char *s = q + 1;
            int idx[3], k = 0;
            for (;;) {
                while (s < eol && isspace((unsigned char)*s))
                    s++;
                if (s >= eol)
                    break;
                int i = obj_index(&s, eol, b->mesh.nvertices);
                if (i < 0) {
                    tpErrorf(b->err, b->errlen, "%s: line %d: %s", b->name, line,
                             i == -2 ? "face index out of range (vertices must come before the faces using them)"
                                     : "bad face index");
                    return false;
                }
                if (k < 2) {
                    idx[k] = i;
                } else {
                    idx[2] = i;
                    if (!tpMeshB_AddTriangle(b, idx[0], idx[1], idx[2]))
                        return false;
                    idx[1] = i; /* fan: polygons become triangles (0, k-1, k) */
                }
                k++;
            }
            if (k < 3) {
                tpErrorf(b->err, b->errlen, "%s: line %d: a face needs at least 3 vertices", b->name, line);
                return false;
            }
        }
        p = eol < end ? eol + 1 : end;
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* STL (binary and ASCII)                                                                      */

static float le_float(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

bool tpMeshI_IsBinaryStl(const unsigned char *d, size_t len)
{
    if (len < 84)
        return false;
    uint32_t n = (uint32_t)d[80] | (uint32_t)d[81] << 8 | (uint32_t)d[82] << 16 | (uint32_t)d[83] << 24;
    return (uint64_t)n * 50u + 84u == len;
}

bool tpMeshI_ReadStl(tpMeshBuild *b, const unsigned char *d, size_t len)
{
    if (tpMeshI_IsBinaryStl(d, len)) {
        size_t n = (len - 84) / 50;
        for (size_t t = 0; t < n; t++) {
            const unsigned char *f = d + 84 + 50 * t + 12; /* skip the normal */
            int base = b->mesh.nvertices;
            for (int c = 0; c < 3; c++) {
                double v[3] = {le_float(f + 12 * c), le_float(f + 12 * c + 4), le_float(f + 12 * c + 8)};
                if (!tpMeshB_AddVertex(b, v))
                    return false;
            }
            if (!tpMeshB_AddTriangle(b, base, base + 1, base + 2))
                return false;
        }
        return true;
    }
    if (len < 5 || memcmp(d, "solid", 5) != 0) {
        tpErrorf(b->err, b->errlen, "%s: not an STL file (binary: 84 + 50 n bytes; ASCII: starts with \"solid\")",
                 b->name);
        return false;
    }
    const char *p = (const char *)d, *end = p + len;
    int corner = 0, line = 1;
    while (p < end) {
        while (p < end && isspace((unsigned char)*p)) {
            line += *p == '\n';
            p++;
        }
        const char *w = p;
        while (p < end && !isspace((unsigned char)*p))
            p++;
        if (p - w == 6 && memcmp(w, "vertex", 6) == 0) {
            double v[3];
            for (int k = 0; k < 3; k++) {
                while (p < end && (*p == ' ' || *p == '\t'))
                    p++;
                char buf[64];
                size_t n = 0;
                while (p < end && !isspace((unsigned char)*p) && n < sizeof buf - 1)
                    buf[n++] = *p++;
                buf[n] = '\0';
                char *stop;
                v[k] = strtod(buf, &stop);
                if (n == 0 || *stop != '\0') {
                    tpErrorf(b->err, b->errlen, "%s: line %d: a vertex needs 3 numbers", b->name, line);
                    return false;
                }
            }
            if (!tpMeshB_AddVertex(b, v))
                return false;
            if (++corner == 3) {
                int base = b->mesh.nvertices - 3;
                if (!tpMeshB_AddTriangle(b, base, base + 1, base + 2))
                    return false;
                corner = 0;
            }
        } else if (p - w == 8 && memcmp(w, "endloop", 7) == 0 && corner != 0) {
            tpErrorf(b->err, b->errlen, "%s: line %d: a facet needs exactly 3 vertices", b->name, line);
            return false;
        }
    }
    if (corner != 0) {
        tpErrorf(b->err, b->errlen, "%s: a facet needs exactly 3 vertices", b->name);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */

/* The end of a build that read `ok`: refuses a mesh without triangles ("name: empty") and welds
 * its vertices; false (the mesh freed, a message in the build's err) on any failure. */
bool tpMeshB_Finish(tpMeshBuild *b, bool ok, const char *empty)
{
    if (ok && b->mesh.ntriangles == 0) {
        tpErrorf(b->err, b->errlen, "%s: %s", b->name, empty);
        ok = false;
    }
    if (ok && (!tpMesh_Weld(&b->mesh) || !tpMesh_Canonicalize(&b->mesh))) {
        tpErrorf(b->err, b->errlen, "%s: out of memory", b->name);
        ok = false;
    }
    if (!ok) {
        tpMesh_Free(&b->mesh);
    } else {
        TP_VALIDATE(tpMesh_Valid, &b->mesh);
    }
    return ok;
}

void tpMesh_Transform(tpMesh *m, bool y_up, double scale)
{
    for (int i = 0; i < m->nvertices; i++) {
        double *v = m->vertices + 3 * i;
        if (y_up) { /* (x, y, z) y up -> (x, -z, y) z up, as glTF -> tplan */
            double y = v[1];
            v[1] = -v[2];
            v[2] = y;
        }
        for (int k = 0; k < 3; k++)
            v[k] *= scale;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Geometry                                                                                    */

void tpMesh_Bounds(const tpMeshView *m, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++)
        lo[k] = hi[k] = m->nvertices > 0 ? m->vertices[k] : 0.0;
    for (int i = 1; i < m->nvertices; i++) {
        for (int k = 0; k < 3; k++) {
            double v = m->vertices[3 * i + k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
    }
}

typedef struct tpEdge {
    int32_t a, b; /* a < b */
    int32_t dir;  /* +1: the triangle goes a -> b, -1: b -> a */
    int32_t tri;
} tpEdge;

static int edge_cmp(const void *pa, const void *pb)
{
    const tpEdge *a = pa, *b = pb;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    return (a->tri > b->tri) - (a->tri < b->tri);
}

bool tpMesh_CheckClosed(const tpMeshView *m, char *why, size_t whylen)
{
    if (m->nvertices < 4 || m->ntriangles < 4) {
        tpErrorf(why, whylen, "%d vertices and %d triangles cannot bound a solid (at least 4 of each)", m->nvertices,
                 m->ntriangles);
        return false;
    }
    for (int i = 0; i < 3 * m->nvertices; i++) {
        if (!isfinite(m->vertices[i])) {
            tpErrorf(why, whylen, "vertex %d is not finite", i / 3);
            return false;
        }
    }
    double lo[3], hi[3];
    tpMesh_Bounds(m, lo, hi);
    double ext = 0;
    for (int k = 0; k < 3; k++)
        ext = fmax(ext, hi[k] - lo[k]);
    for (int k = 0; k < 3; k++) {
        if (!(hi[k] - lo[k] > 1e-9 * ext) || !(ext > 0)) {
            tpErrorf(why, whylen, "the mesh is flat (extent %g m along %c)", hi[k] - lo[k], "xyz"[k]);
            return false;
        }
    }
    size_t ne = 3 * (size_t)m->ntriangles;
    tpEdge *e = malloc(ne * sizeof *e);
    if (!e) {
        tpErrorf(why, whylen, "out of memory");
        return false;
    }
    for (int t = 0; t < m->ntriangles; t++) {
        const int32_t *tr = m->triangles + 3 * t;
        for (int c = 0; c < 3; c++) {
            if (tr[c] < 0 || tr[c] >= m->nvertices) {
                free(e);
                tpErrorf(why, whylen, "triangle %d: vertex index %d out of range (%d vertices)", t, (int)tr[c],
                         m->nvertices);
                return false;
            }
        }
        const double *a = m->vertices + 3 * tr[0], *b = m->vertices + 3 * tr[1], *c = m->vertices + 3 * tr[2];
        double u[3], v[3], n[3];
        for (int k = 0; k < 3; k++) {
            u[k] = b[k] - a[k];
            v[k] = c[k] - a[k];
        }
        n[0] = u[1] * v[2] - u[2] * v[1];
        n[1] = u[2] * v[0] - u[0] * v[2];
        n[2] = u[0] * v[1] - u[1] * v[0];
        double area2 = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (tr[0] == tr[1] || tr[1] == tr[2] || tr[0] == tr[2] || !(area2 > 1e-12 * ext * ext)) {
            free(e);
            tpErrorf(why, whylen,
                     "triangle %d is degenerate (zero area): its corners are vertices %d, %d, %d of the mesh "
                     "once coincident vertices are merged",
                     t, (int)tr[0], (int)tr[1], (int)tr[2]);
            return false;
        }
        for (int c2 = 0; c2 < 3; c2++) {
            int32_t p = tr[c2], q = tr[(c2 + 1) % 3];
            tpEdge *x = &e[3 * (size_t)t + (size_t)c2];
            x->a = p < q ? p : q;
            x->b = p < q ? q : p;
            x->dir = p < q ? 1 : -1;
            x->tri = t;
        }
    }
    qsort(e, ne, sizeof *e, edge_cmp);
    for (size_t s = 0; s < ne;) {
        size_t f = s + 1;
        while (f < ne && e[f].a == e[s].a && e[f].b == e[s].b)
            f++;
        int a = e[s].a, b = e[s].b;
        if (f - s != 2) {
            tpErrorf(why, whylen, "edge %d-%d is used by %d triangle%s (%s)", a, b, (int)(f - s), f - s == 1 ? "" : "s",
                     f - s == 1 ? "the mesh has a hole: not closed" : "not a simple closed surface");
            free(e);
            return false;
        }
        if (e[s].dir == e[s + 1].dir) {
            tpErrorf(why, whylen, "triangles %d and %d traverse edge %d-%d the same way (inconsistent orientation)",
                     e[s].tri, e[s + 1].tri, a, b);
            free(e);
            return false;
        }
        s = f;
    }
    free(e);
    double vol, com[3], I[9];
    tpMesh_MassProperties(m, &vol, com, I);
    if (!(vol > 1e-9 * ext * ext * ext)) {
        tpErrorf(why, whylen, "the enclosed volume is %g m^3 (%s)", vol,
                 vol < 0 ? "the triangles face inwards" : "degenerate");
        return false;
    }
    return true;
}

void tpMesh_MassProperties(const tpMeshView *m, double *volume, double com[3], double inertia[9])
{
    double lo[3], hi[3], r[3];
    tpMesh_Bounds(m, lo, hi);
    for (int k = 0; k < 3; k++)
        r[k] = 0.5 * (lo[k] + hi[k]); /* integrate about the box centre: smaller rounding */
    double V = 0, S[3] = {0, 0, 0}, C[9] = {0};
    for (int t = 0; t < m->ntriangles; t++) {
        const int32_t *tr = m->triangles + 3 * t;
        double p[3][3];
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                p[c][k] = m->vertices[3 * tr[c] + k] - r[k];
        /* the tetrahedron (r, a, b, c): signed volume det / 6 */
        double det = p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) -
                     p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
                     p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0]);
        double v = det / 6.0, s[3];
        for (int k = 0; k < 3; k++) {
            s[k] = p[0][k] + p[1][k] + p[2][k];
            S[k] += v * s[k] / 4.0;
        }
        V += v;
        /* covariance of a tetrahedron with a corner at the origin: v/20 (sum x x^T + s s^T) */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                C[3 * i + j] += v / 20.0 * (p[0][i] * p[0][j] + p[1][i] * p[1][j] + p[2][i] * p[2][j] + s[i] * s[j]);
    }
    *volume = V;
    double c[3] = {0, 0, 0};
    if (V != 0)
        for (int k = 0; k < 3; k++)
            c[k] = S[k] / V;
    /* covariance about the centre of mass, then I = tr(C) E - C */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[3 * i + j] -= V * c[i] * c[j];
    double tr = C[0] + C[4] + C[8];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            inertia[3 * i + j] = (i == j ? tr : 0.0) - C[3 * i + j];
    for (int k = 0; k < 3; k++)
        com[k] = c[k] + r[k];
}

void tpMesh_QuatToMatrix(const double q[4], double R[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z);
    R[1] = 2 * (x * y - w * z);
    R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);
    R[4] = 1 - 2 * (x * x + z * z);
    R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);
    R[7] = 2 * (y * z + w * x);
    R[8] = 1 - 2 * (x * x + y * y);
}
