/* Mesh bodies: static triangle meshes (dCreateTriMesh) and moving convex hulls (dCreateConvex,
 * the hull computed by qhull), their mass from the closed mesh, and the sizes the contact
 * pipeline needs (bounding radius, thickness, inflation for the swept pass). */
#include "mesh_geom_internal.h"

#include "tp/base.h"

#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tpMeshGeom_Check(const tpBodyDef *b, const char *who, char *err, size_t errlen)
{
    const tpMeshView *m = &b->mesh;
    if (m->vertices == NULL || m->triangles == NULL || m->nvertices < 3 || m->ntriangles < 1) {
        tpErrorf(err, errlen, "%s: a mesh needs vertices and triangles (got %d and %d)", who, m->nvertices,
                 m->ntriangles);
        return false;
    }
    tpMeshLimits lim = tpDefaultMeshLimits();
    if (m->nvertices > lim.max_vertices || m->ntriangles > lim.max_triangles) {
        tpErrorf(err, errlen, "%s: mesh of %d vertices and %d triangles (at most %d and %d)", who, m->nvertices,
                 m->ntriangles, lim.max_vertices, lim.max_triangles);
        return false;
    }
    for (int i = 0; i < 3 * m->nvertices; i++) {
        if (!isfinite(m->vertices[i]) || fabs(m->vertices[i]) > 1e5) {
            tpErrorf(err, errlen, "%s: mesh vertex %d: coordinate %g is not finite or beyond 1e5 m", who, i / 3,
                     m->vertices[i]);
            return false;
        }
    }
    for (int i = 0; i < 3 * m->ntriangles; i++) {
        if (m->triangles[i] < 0 || m->triangles[i] >= m->nvertices) {
            tpErrorf(err, errlen, "%s: mesh triangle %d: vertex index %d out of range (%d vertices)", who, i / 3,
                     (int)m->triangles[i], m->nvertices);
            return false;
        }
    }
    if (b->cls == TP_BODY_STATIC)
        return true;
    char why[200];
    if (!tpMesh_CheckClosed(m, why, sizeof why)) {
        tpErrorf(err, errlen, "%s: a moving mesh body needs a closed mesh: %s", who, why);
        return false;
    }
    double vol, com[3], I[9], lo[3], hi[3];
    tpMesh_MassProperties(m, &vol, com, I);
    tpMesh_Bounds(m, lo, hi);
    double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (sqrt(com[0] * com[0] + com[1] * com[1] + com[2] * com[2]) > 1e-6 * ext) {
        tpErrorf(err, errlen,
                 "%s: the mesh's centre of mass (%g, %g, %g) is not the body's origin (move the vertices by minus it)",
                 who, com[0], com[1], com[2]);
        return false;
    }
    return true;
}

static void mesh_dims(const tpBodyDef *b, double lo[3], double hi[3])
{
    tpMesh_Bounds(&b->mesh, lo, hi);
}

double tpMeshGeom_Radius(const tpBodyDef *b)
{
    double r2 = 0;
    for (int i = 0; i < b->mesh.nvertices; i++) {
        const double *v = b->mesh.vertices + 3 * i;
        double d = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        r2 = d > r2 ? d : r2;
    }
    return sqrt(r2);
}

double tpMeshGeom_Thickness(const tpBodyDef *b)
{
    double lo[3], hi[3];
    mesh_dims(b, lo, hi);
    return 0.5 * fmin(hi[0] - lo[0], fmin(hi[1] - lo[1], hi[2] - lo[2]));
}

double tpMeshGeom_Extent(const tpBodyDef *b)
{
    double lo[3], hi[3];
    mesh_dims(b, lo, hi);
    return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

void tpMeshGeom_Mass(const tpBodyDef *b, double total, dMass *m)
{
    double vol, com[3], I[9];
    tpMesh_MassProperties(&b->mesh, &vol, com, I);
    double k = vol > 0 ? total / vol : 0.0; /* density (kg/m^3) */
    dMassSetParameters(m, total, 0, 0, 0, k * I[0], k * I[4], k * I[8], k * I[1], k * I[2], k * I[5]);
}

/* The convex hull of the mesh's vertices with qhull (merged coplanar facets, so a box has 6
 * faces): faces as ODE's planes and polygons, vertices counter-clockwise seen from outside. */
static bool make_hull(tpMeshRt *rt, int nv, const double *v, const char *who, char *err, size_t errlen)
{
    qhT qh_qh;
    qhT *qh = &qh_qh;
    char *msg = NULL;
    size_t msglen = 0;
    FILE *errfile = open_memstream(&msg, &msglen);
    if (!errfile) {
        tpErrorf(err, errlen, "%s: out of memory", who);
        return false;
    }
    coordT *pts = malloc((size_t)nv * 3 * sizeof *pts);
    if (!pts) {
        fclose(errfile);
        free(msg);
        tpErrorf(err, errlen, "%s: out of memory", who);
        return false;
    }
    memcpy(pts, v, (size_t)nv * 3 * sizeof *pts);
    if (nv > TP_MESH_HULL_MAX_VERTICES) {
        /* a dense mesh (a UV sphere of 2,210 vertices): the hull of at most
           TP_MESH_HULL_MAX_VERTICES of its vertices (extreme along as many directions), which keeps
           every contact test against it a few hundred faces (16 iterations of a pile of such balls took 140
           s) */
        int32_t idx[TP_MESH_HULL_MAX_VERTICES];
        const tpMeshView mv = {nv, v, 0, NULL};
        nv = tpMesh_HullPoints(&mv, TP_MESH_HULL_MAX_VERTICES, idx);
        for (int i = 0; i < nv; i++)
            memcpy(pts + 3 * i, v + 3 * idx[i], 3 * sizeof *pts);
    }
    qh_zero(qh, errfile);
    char opts[] = "qhull";
    int code = qh_new_qhull(qh, 3, nv, pts, False, opts, NULL, errfile);
    bool ok = code == 0;
    if (!ok) {
        fflush(errfile);
        char first[160] = "";
        if (msg) {
            size_t n = strcspn(msg, "\n");
            snprintf(first, sizeof first, "%.*s", (int)(n < 150 ? n : 150), msg);
        }
        tpErrorf(err, errlen, "%s: the convex hull of the mesh failed (qhull %d: %s)", who, code, first);
    }
    if (ok) {
        facetT *facet;
        vertexT *vertex, **vertexp;
        unsigned nf = 0, npoly = 0;
        int *map = malloc((size_t)nv * sizeof *map);
        ok = map != NULL;
        for (int i = 0; ok && i < nv; i++)
            map[i] = -1;
        FORALLfacets
        {
            nf++;
            npoly += 1 + (unsigned)qh_setsize(qh, facet->vertices);
        }
        rt->planes = malloc((size_t)nf * 4 * sizeof(double));
        rt->planes0 = malloc((size_t)nf * 4 * sizeof(double));
        rt->polygons = malloc((size_t)npoly * sizeof(unsigned));
        rt->points0 = malloc((size_t)nv * 3 * sizeof(double));
        rt->points = malloc((size_t)nv * 3 * sizeof(double));
        ok = ok && rt->planes && rt->planes0 && rt->polygons && rt->points0 && rt->points;
        unsigned f = 0, p = 0, np = 0;
        FORALLfacets
        {
            if (!ok)
                break;
            setT *ordered = qh_facet3vertex(qh, facet);
            int count = qh_setsize(qh, ordered);
            unsigned *poly = rt->polygons + p;
            poly[0] = (unsigned)count;
            int k = 0;
            FOREACHvertex_(ordered)
            {
                int id = qh_pointid(qh, vertex->point);
                if (id < 0 || id >= nv) {
                    ok = false;
                    break;
                }
                if (map[id] < 0) {
                    map[id] = (int)np;
                    memcpy(rt->points0 + 3 * np, pts + 3 * id, 3 * sizeof(double));
                    np++;
                }
                poly[1 + k++] = (unsigned)map[id];
            }
            qh_settempfree(qh, &ordered);
            if (!ok)
                break;
            /* orient the polygon counter-clockwise about the outward normal */
            const double *a = rt->points0 + 3 * poly[1], *b = rt->points0 + 3 * poly[2], *c = rt->points0 + 3 * poly[3];
            double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
            if (n[0] * facet->normal[0] + n[1] * facet->normal[1] + n[2] * facet->normal[2] < 0) {
                for (int i = 0; i < count / 2; i++) {
                    unsigned t = poly[1 + i];
                    poly[1 + i] = poly[count - i];
                    poly[count - i] = t;
                }
            }
            double *pl = rt->planes0 + 4 * f;
            for (int i = 0; i < 3; i++)
                pl[i] = facet->normal[i];
            pl[3] = -facet->offset;
            f++;
            p += 1 + (unsigned)count;
        }
        rt->nplanes = f;
        rt->npoints = np;
        free(map);
        if (!ok)
            tpErrorf(err, errlen, "%s: out of memory for the convex hull", who);
    }
    qh_freeqhull(qh, !qh_ALL);
    int curlong, totlong;
    qh_memfreeshort(qh, &curlong, &totlong);
    fclose(errfile);
    free(msg);
    free(pts);
    if (!ok)
        return false;
    rt->min_offset = INFINITY;
    for (unsigned f = 0; f < rt->nplanes; f++)
        rt->min_offset = fmin(rt->min_offset, rt->planes0[4 * f + 3]);
    if (!(rt->min_offset > 0)) {
        tpErrorf(err, errlen, "%s: the body's origin is not inside its convex hull", who);
        return false;
    }
    memcpy(rt->planes, rt->planes0, (size_t)rt->nplanes * 4 * sizeof(double));
    memcpy(rt->points, rt->points0, (size_t)rt->npoints * 3 * sizeof(double));
    return true;
}

static bool mesh_geom_box_topo(tpPolyTopo *t)
{
    double unit[24];
    for (int i = 0; i < 8; i++) {
        unit[3 * i] = (i & 1) ? 0.5 : -0.5;
        unit[3 * i + 1] = (i & 2) ? 0.5 : -0.5;
        unit[3 * i + 2] = (i & 4) ? 0.5 : -0.5;
    }
    return tpPolyTopo_Build(t, unit, 6, tpBoxLoops);
}

dGeomID tpMeshGeom_Create(dSpaceID space, tpBodyDef *b, tpMeshRt **out, char *err, size_t errlen)
{
    char who[TP_NAME_MAX + 16];
    snprintf(who, sizeof who, "body '%s'", b->name);
    *out = NULL;
    tpMeshRt *rt = calloc(1, sizeof *rt);
    const tpMeshView *m = &b->mesh;
    if (rt) {
        rt->vertices = malloc((size_t)m->nvertices * 3 * sizeof(double));
        rt->triangles = malloc((size_t)m->ntriangles * 3 * sizeof(int32_t));
    }
    if (!rt || !rt->vertices || !rt->triangles) {
        tpMeshGeom_Free(rt);
        tpErrorf(err, errlen, "%s: out of memory for its mesh", who);
        return NULL;
    }
    rt->nvert = m->nvertices;
    rt->ntri = m->ntriangles;
    memcpy(rt->vertices, m->vertices, (size_t)m->nvertices * 3 * sizeof(double));
    memcpy(rt->triangles, m->triangles, (size_t)m->ntriangles * 3 * sizeof(int32_t));
    b->mesh.vertices = rt->vertices;
    b->mesh.triangles = rt->triangles;
    dGeomID g = NULL;
    if (b->cls == TP_BODY_STATIC) {
        rt->indices = malloc((size_t)m->ntriangles * 3 * sizeof(dTriIndex));
        if (!rt->indices) {
            tpMeshGeom_Free(rt);
            tpErrorf(err, errlen, "%s: out of memory for its mesh", who);
            return NULL;
        }
        for (int i = 0; i < 3 * m->ntriangles; i++)
            rt->indices[i] = (dTriIndex)rt->triangles[i];
        rt->tri = dGeomTriMeshDataCreate();
        dGeomTriMeshDataBuildDouble(rt->tri, rt->vertices, 3 * sizeof(double), m->nvertices, rt->indices,
                                    3 * m->ntriangles, 3 * sizeof(dTriIndex));
        /* face angles: the convex-trimesh collider needs them; concave edges: fewer false edge contacts */
        dGeomTriMeshDataPreprocess2(
            rt->tri, (1U << dTRIDATAPREPROCESS_BUILD_CONCAVE_EDGES) | (1U << dTRIDATAPREPROCESS_BUILD_FACE_ANGLES),
            NULL);
        g = dCreateTriMesh(space, rt->tri, NULL, NULL, NULL);
    } else {
        if (!make_hull(rt, m->nvertices, rt->vertices, who, err, errlen)) {
            tpMeshGeom_Free(rt);
            return NULL;
        }
        rt->wv = malloc((size_t)rt->npoints * 3 * sizeof(double));
        rt->wplane = malloc((size_t)rt->nplanes * 4 * sizeof(double));
        if (!rt->wv || !rt->wplane || !tpPolyTopo_Build(&rt->topo, rt->points0, (int)rt->nplanes, rt->polygons) ||
            !mesh_geom_box_topo(&rt->boxtopo)) {
            tpMeshGeom_Free(rt);
            tpErrorf(err, errlen, "%s: out of memory for its mesh", who);
            return NULL;
        }
        g = dCreateConvex(space, rt->planes, rt->nplanes, rt->points, rt->npoints, rt->polygons);
    }
    *out = rt;
    return g;
}

void tpMeshGeom_Inflate(tpMeshRt *rt, dGeomID g, double m)
{
    if (rt == NULL || rt->planes == NULL)
        return;
    /* scaling about the origin by s moves every face out by (s - 1) times its offset: at least m
     * for s = 1 + m / (smallest offset); a die's faces (all at the same offset) move by exactly m */
    const double s = 1.0 + (m > 0 ? m / rt->min_offset : 0.0);
    for (unsigned f = 0; f < rt->nplanes; f++) {
        memcpy(rt->planes + 4 * f, rt->planes0 + 4 * f, 3 * sizeof(double));
        rt->planes[4 * f + 3] = rt->planes0[4 * f + 3] * s;
    }
    for (unsigned i = 0; i < 3 * rt->npoints; i++)
        rt->points[i] = rt->points0[i] * s;
    dGeomSetConvex(g, rt->planes, rt->nplanes, rt->points, rt->npoints, rt->polygons);
}

void tpMeshGeom_Free(tpMeshRt *rt)
{
    if (rt == NULL)
        return;
    if (rt->tri)
        dGeomTriMeshDataDestroy(rt->tri);
    free(rt->indices);
    free(rt->vertices);
    free(rt->triangles);
    free(rt->planes);
    free(rt->planes0);
    free(rt->points);
    free(rt->points0);
    free(rt->polygons);
    free(rt->wv);
    free(rt->wplane);
    free(rt->tw);
    free(rt->tbox);
    free(rt->tstamp);
    free(rt->gstart);
    free(rt->gtri);
    free(rt->gfill);
    tpPolyTopo_Free(&rt->topo);
    tpPolyTopo_Free(&rt->boxtopo);
    free(rt);
}
