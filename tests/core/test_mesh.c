/* Meshes (tp/mesh.h): mass properties against closed forms, the closedness check's refusals, and
 * the OBJ / STL readers (indices, fans, welding, y up). The glTF reader and hostile files are
 * covered end to end by tests/e2e/mesh.sh and the fuzz target. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/mesh.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* |a - b| <= eps, with both values in the message (cmocka 1.1 has no double assert) */
#define near(a, b, eps)                                                                                                \
    do {                                                                                                               \
        double a_ = (a), b_ = (b);                                                                                     \
        if (!(fabs(a_ - b_) <= (eps)))                                                                                 \
            fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                                                        \
    } while (0)

static const char *const cube_obj = "v -0.5 -0.5 -0.5\nv 0.5 -0.5 -0.5\nv 0.5 0.5 -0.5\nv -0.5 0.5 -0.5\n"
                                    "v -0.5 -0.5 0.5\nv 0.5 -0.5 0.5\nv 0.5 0.5 0.5\nv -0.5 0.5 0.5\n"
                                    "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";

static tpMesh readObj(const char *text, double scale)
{
    tpMesh m;
    char err[256] = "";
    bool ok = tpMesh_Read("t.obj", text, strlen(text), NULL, false, scale, &m, err, sizeof err);
    if (!ok)
        fprintf(stderr, "%s\n", err);
    assert_true(ok);
    return m;
}

/* A box a x b x c of density 1: V = abc, I = V/12 (b^2 + c^2, ...), centred where it is put. */
static void test_box_mass(void **state)
{
    (void)state;
    tpMesh m = readObj(cube_obj, 1.0);
    assert_int_equal(m.ntriangles, 12); /* quads as fans */
    /* stretch to 2 x 1 x 0.5 and move by (3, -1, 2) */
    for (int i = 0; i < m.nvertices; i++) {
        m.vertices[3 * i] = 2 * m.vertices[3 * i] + 3;
        m.vertices[3 * i + 1] -= 1;
        m.vertices[3 * i + 2] = 0.5 * m.vertices[3 * i + 2] + 2;
    }
    tpMeshView v = tpMesh_View(&m);
    char why[256] = "";
    assert_true(tpMesh_CheckClosed(&v, why, sizeof why));
    double vol, com[3], I[9];
    tpMesh_MassProperties(&v, &vol, com, I);
    near(vol, 1.0, 1e-12);
    near(com[0], 3, 1e-12);
    near(com[1], -1, 1e-12);
    near(com[2], 2, 1e-12);
    near(I[0], (1 + 0.25) / 12, 1e-12);
    near(I[4], (4 + 0.25) / 12, 1e-12);
    near(I[8], (4 + 1) / 12.0, 1e-12);
    near(I[1], 0, 1e-12);
    near(I[5], 0, 1e-12);
    tpMesh_Free(&m);
}

/* The tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1): V = 1/6, centre (1/4, 1/4, 1/4), products of
 * inertia about the centre -1/120 + V/16 (Tonon 2004). */
static void test_tetra_mass(void **state)
{
    (void)state;
    tpMesh m = readObj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n", 1.0);
    tpMeshView v = tpMesh_View(&m);
    char why[256] = "";
    assert_true(tpMesh_CheckClosed(&v, why, sizeof why));
    double vol, com[3], I[9];
    tpMesh_MassProperties(&v, &vol, com, I);
    near(vol, 1.0 / 6, 1e-12);
    for (int k = 0; k < 3; k++)
        near(com[k], 0.25, 1e-12);
    /* about the origin: Ixx = 2 * V/10 = 1/30; Ixy = -V/20 = -1/120; shifted to the centre */
    double V = 1.0 / 6;
    near(I[0], 1.0 / 30 - V * (0.0625 + 0.0625), 1e-12);
    near(I[1], -1.0 / 120 + V * 0.0625, 1e-12);
    tpMesh_Free(&m);
}

static void expectOpen(const char *text, const char *words)
{
    tpMesh m = readObj(text, 1.0);
    tpMeshView v = tpMesh_View(&m);
    char why[256] = "";
    bool closed = tpMesh_CheckClosed(&v, why, sizeof why);
    if (closed || strstr(why, words) == NULL)
        fail_msg("expected a refusal with \"%s\", got %s \"%s\"", words, closed ? "closed" : "refused:", why);
    tpMesh_Free(&m);
}

static void test_not_closed(void **state)
{
    (void)state;
    char text[1024];
    /* a hole: the last face missing */
    snprintf(text, sizeof text, "%.*s", (int)(strstr(cube_obj, "f 4 1 5 8") - cube_obj), cube_obj);
    expectOpen(text, "hole");
    /* one face turned inside out */
    snprintf(text, sizeof text, "%.*sf 8 5 1 4\n", (int)(strstr(cube_obj, "f 4 1 5 8") - cube_obj), cube_obj);
    expectOpen(text, "inconsistent orientation");
    /* every face inside out: closed and consistent, but a negative volume */
    expectOpen("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 4 2\nf 1 3 4\nf 2 4 3\n", "inwards");
    /* flat */
    expectOpen("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\nf 1 3 2\nf 2 3 4\n", "flat");
    /* a degenerate triangle (repeated vertex) */
    expectOpen("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\nf 1 1 2\n", "degenerate");
    /* too few triangles */
    expectOpen("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "at least 4");
}

/* Binary and ASCII STL of the same cube weld to the cube's 8 vertices; y up turns; scale scales. */
static void test_stl_and_options(void **state)
{
    (void)state;
    tpMesh obj = readObj(cube_obj, 1.0);
    unsigned char bin[84 + 50 * 12];
    memset(bin, 0, sizeof bin);
    bin[80] = 12;
    char ascii[8192] = "solid cube\n";
    for (int t = 0; t < 12; t++) {
        strcat(ascii, "facet normal 0 0 0\nouter loop\n");
        for (int c = 0; c < 3; c++) {
            const double *p = obj.vertices + 3 * obj.triangles[3 * t + c];
            for (int k = 0; k < 3; k++) {
                float f = (float)p[k];
                memcpy(bin + 84 + 50 * t + 12 + 12 * c + 4 * k, &f, 4);
            }
            char line[96];
            snprintf(line, sizeof line, "vertex %g %g %g\n", p[0], p[1], p[2]);
            strcat(ascii, line);
        }
        strcat(ascii, "endloop\nendfacet\n");
    }
    strcat(ascii, "endsolid cube\n");
    char err[256];
    tpMesh a, b;
    assert_true(tpMesh_Read("c.stl", bin, sizeof bin, NULL, false, 2.0, &a, err, sizeof err));
    assert_true(tpMesh_Read("c.stl", ascii, strlen(ascii), NULL, false, 2.0, &b, err, sizeof err));
    assert_int_equal(a.nvertices, 8);
    assert_int_equal(b.nvertices, 8);
    assert_int_equal(a.ntriangles, 12);
    tpMeshView va = tpMesh_View(&a), vb = tpMesh_View(&b);
    char why[256];
    assert_true(tpMesh_CheckClosed(&va, why, sizeof why));
    assert_true(tpMesh_CheckClosed(&vb, why, sizeof why));
    double vol, com[3], I[9];
    tpMesh_MassProperties(&va, &vol, com, I);
    near(vol, 8.0, 1e-9); /* scale 2: an edge of 2 */
    /* y up: the vertex (0.5, 0.5, -0.5) of a y-up file is (0.5, 0.5, 0.5) in z up */
    tpMesh y = {0};
    assert_true(
        tpMesh_Read("y.obj", "v 0.5 0.5 -0.5\nv 0 0 0\nv 1 0 0\nf 1 2 3\n", 38, NULL, true, 1.0, &y, err, sizeof err));
    near(y.vertices[3], 0.5, 0); /* vertex 1 of the canonical order (sorted by x, y, z) */
    near(y.vertices[4], 0.5, 0);
    near(y.vertices[5], 0.5, 0);
    tpMesh_Free(&y);
    tpMesh_Free(&a);
    tpMesh_Free(&b);
    tpMesh_Free(&obj);
}

static void expectRefused(const char *name, const char *text, size_t len, const char *words)
{
    tpMesh m;
    char err[256] = "";
    tpMeshLimits lim = tpDefaultMeshLimits();
    lim.max_vertices = 100;
    if (tpMesh_Read(name, text, len, &lim, false, 1.0, &m, err, sizeof err)) {
        tpMesh_Free(&m);
        fail_msg("%s: accepted, expected \"%s\"", name, words);
    }
    if (strncmp(err, name, strlen(name)) != 0 || strstr(err, words) == NULL)
        fail_msg("%s: expected \"%s\", got \"%s\"", name, words, err);
}

static void test_refusals(void **state)
{
    (void)state;
    expectRefused("a.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\n", 24, "line 3: face index out of range");
    expectRefused("a.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 -4\n", 33, "out of range");
    expectRefused("a.obj", "v 0 0\n", 6, "line 1: a vertex needs 3 numbers");
    expectRefused("a.obj", "v 0 0 1e400\nv 0 0 0\nv 1 1 1\nf 1 2 3\n", 38, "not finite");
    expectRefused("a.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2\n", 29, "at least 3 vertices");
    expectRefused("a.obj", "# nothing\n", 10, "no triangles");
    char big[4096] = "";
    for (int i = 0; i < 101; i++)
        strcat(big, "v 1 2 3\n");
    expectRefused("a.obj", big, strlen(big), "more than 100 vertices");
    expectRefused("a.stl", "solid x\nfacet\nouter loop\nvertex 1 2 3\nvertex 1 2\n", 51, "a vertex needs 3 numbers");
    expectRefused("a.stl", "hello", 5, "not an STL file");
    expectRefused("a.ply", "ply", 3, "unknown mesh format");
    expectRefused("a.glb", "glTF\2\0\0\0", 8, "GLB");
    expectRefused("a.gltf", "{\"asset\": {\"version\": \"1.0\"}}", 29, "asset.version");
}

/* tpMesh_Lathe: closed and outward; a cylinder's volume is its polygonal prism's, a cone's its
 * pyramid's (seg segments: area seg/2 r^2 sin(2 pi / seg)). */
static void test_lathe(void **state)
{
    (void)state;
    const double z[2] = {-0.5, 0.5}, r[2] = {0.3, 0.3}, rc[2] = {0.3, 0};
    tpMesh m;
    assert_true(tpMesh_Lathe(z, r, 2, 16, &m));
    tpMeshView v = tpMesh_View(&m);
    char why[256] = "";
    if (!tpMesh_CheckClosed(&v, why, sizeof why))
        fail_msg("cylinder: %s", why);
    double vol, com[3], I[9];
    tpMesh_MassProperties(&v, &vol, com, I);
    const double area = 8 * 0.09 * sin(2 * 3.14159265358979323846 / 16);
    near(vol, area * 1.0, 1e-12);
    near(com[2], 0, 1e-12);
    tpMesh_Free(&m);
    assert_true(tpMesh_Lathe(z, rc, 2, 16, &m)); /* a cone: a pole at the top */
    v = tpMesh_View(&m);
    if (!tpMesh_CheckClosed(&v, why, sizeof why))
        fail_msg("cone: %s", why);
    tpMesh_MassProperties(&v, &vol, com, I);
    near(vol, area / 3, 1e-12);
    near(com[2], -0.25, 1e-12);
    tpMesh_Free(&m);
    const double zb[3] = {0, 0.5, 1}, rb[3] = {0.2, 0, 0.2};
    assert_false(tpMesh_Lathe(zb, rb, 3, 16, &m)); /* a pole in the middle: degenerate */
}

/* tpMesh_HullPoints: a dense box (a cube with its faces subdivided) keeps exactly its 8 corners;
 * a dense sphere keeps at most max points, all vertices of the mesh, spread over it. */
static void test_hull_points(void **state)
{
    (void)state;
    enum { N = 9 };
    double v[3 * N * N * 6];
    int n = 0;
    for (int f = 0; f < 6; f++) /* N x N points on each face of the unit cube */
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                double a = -0.5 + (double)i / (N - 1), b = -0.5 + (double)j / (N - 1), c = f % 2 ? 0.5 : -0.5;
                double p[3];
                p[f / 2] = c;
                p[(f / 2 + 1) % 3] = a;
                p[(f / 2 + 2) % 3] = b;
                memcpy(v + 3 * n++, p, sizeof p);
            }
    tpMeshView mv = {n, v, 0, NULL};
    int32_t idx[64];
    int k = tpMesh_HullPoints(&mv, 64, idx);
    int corners = 0;
    for (int i = 0; i < k; i++) {
        const double *p = v + 3 * idx[i];
        corners += fabs(fabs(p[0]) - 0.5) < 1e-12 && fabs(fabs(p[1]) - 0.5) < 1e-12 && fabs(fabs(p[2]) - 0.5) < 1e-12;
        if (i > 0)
            assert_true(idx[i] > idx[i - 1]); /* in index order, distinct */
    }
    /* every corner is the unique farthest point along the directions of its octant */
    int distinct = 0;
    for (int i = 0; i < k; i++) {
        bool dup = false;
        for (int j = 0; j < i; j++)
            dup = dup || memcmp(v + 3 * idx[i], v + 3 * idx[j], 3 * sizeof(double)) == 0;
        distinct += !dup && fabs(fabs(v[3 * idx[i]]) - 0.5) < 1e-12 && fabs(fabs(v[3 * idx[i] + 1]) - 0.5) < 1e-12 &&
                    fabs(fabs(v[3 * idx[i] + 2]) - 0.5) < 1e-12;
    }
    assert_int_equal(distinct, 8);
    assert_true(corners >= 8);
    assert_true(k <= 64);
    /* a mesh of at most max vertices: all of them */
    tpMeshView small = {8, v, 0, NULL};
    assert_int_equal(tpMesh_HullPoints(&small, 64, idx), 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(idx[i], i);
}

/* The canonical order: the same solid listed in another order of vertices, of triangles and of each
 * triangle's corners (its winding kept) reads to the same arrays bit for bit, and so to the same
 * mass properties; an exporter's order (Blender's glTF exporter varies it between exports) never
 * reaches the physics. Fails without tpMesh_Canonicalize: the two reads keep their files' orders. */
static void test_canonical_order(void **state)
{
    (void)state;
    tpMesh a = readObj(cube_obj, 1.0);
    /* a written again: vertices reversed, triangles in the order 5, 10, 3, 8, 1, ... (7 is prime
     * to 12), each turned by t % 3 places */
    char text[2048] = "";
    for (int i = a.nvertices - 1; i >= 0; i--) {
        char line[96];
        snprintf(line, sizeof line, "v %.17g %.17g %.17g\n", a.vertices[3 * i], a.vertices[3 * i + 1],
                 a.vertices[3 * i + 2]);
        strcat(text, line);
    }
    for (int k = 0; k < a.ntriangles; k++) {
        const int t = (5 + 7 * k) % a.ntriangles, turn = t % 3;
        int f[3];
        for (int c = 0; c < 3; c++) /* OBJ counts from 1; vertex i is line nvertices - i */
            f[c] = a.nvertices - a.triangles[3 * t + (c + turn) % 3];
        char line[64];
        snprintf(line, sizeof line, "f %d %d %d\n", f[0], f[1], f[2]);
        strcat(text, line);
    }
    tpMesh b = readObj(text, 1.0);
    assert_int_equal(a.nvertices, b.nvertices);
    assert_int_equal(a.ntriangles, b.ntriangles);
    assert_memory_equal(a.vertices, b.vertices, (size_t)a.nvertices * 3 * sizeof(double));
    assert_memory_equal(a.triangles, b.triangles, (size_t)a.ntriangles * 3 * sizeof(int32_t));
    for (int i = 1; i < a.nvertices; i++) { /* sorted by x, then y, then z */
        const double *p = a.vertices + 3 * i - 3, *q = a.vertices + 3 * i;
        assert_true(p[0] < q[0] || (p[0] == q[0] && (p[1] < q[1] || (p[1] == q[1] && p[2] < q[2]))));
    }
    for (int t = 0; t < a.ntriangles; t++) /* each triangle starts at its smallest index */
        assert_true(a.triangles[3 * t] < a.triangles[3 * t + 1] && a.triangles[3 * t] < a.triangles[3 * t + 2]);
    tpMeshView va = tpMesh_View(&a), vb = tpMesh_View(&b);
    char why[256];
    assert_true(tpMesh_CheckClosed(&vb, why, sizeof why)); /* the winding survived the turns */
    double vol[2], com[2][3], I[2][9];
    tpMesh_MassProperties(&va, &vol[0], com[0], I[0]);
    tpMesh_MassProperties(&vb, &vol[1], com[1], I[1]);
    assert_memory_equal(&vol[0], &vol[1], sizeof vol[0]);
    assert_memory_equal(I[0], I[1], sizeof I[0]);
    near(vol[0], 1.0, 1e-12);
    tpMesh_Free(&a);
    tpMesh_Free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_mass),    cmocka_unit_test(test_tetra_mass),
        cmocka_unit_test(test_not_closed),  cmocka_unit_test(test_stl_and_options),
        cmocka_unit_test(test_refusals),    cmocka_unit_test(test_lathe),
        cmocka_unit_test(test_hull_points), cmocka_unit_test(test_canonical_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
