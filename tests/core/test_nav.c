/* Navigation grid (Kuffner 1998): exact rasterisation cell by cell, growth by R, optimality of
 * Dijkstra / A* against brute force, resolution completeness, smoothing and the path-following
 * controller. Random maps come from a seeded tpRng, so every check is deterministic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/nav.h"
#include "tp/rng.h"

static tpNavGrid *makeGrid(int nx, int ny, double cell, double x0, double y0)
{
    tpNavGridDef d = tpDefaultNavGridDef();
    d.nx = nx;
    d.ny = ny;
    d.cell = cell;
    d.x0 = x0;
    d.y0 = y0;
    char err[128];
    tpNavGrid *g = tpCreateNavGrid(&d, err, sizeof err);
    assert_non_null(g);
    return g;
}

/* ---- rasterisation ---- */

/* Area of a convex polygon clipped to the axis-aligned square [x0,x1]x[y0,y1]
 * (Sutherland-Hodgman, written independently of the library's row scan). */
static double clippedArea(const double (*poly)[2], int n, double x0, double x1, double y0, double y1)
{
    double a[64][2], b[64][2];
    int na = n;
    memcpy(a, poly, sizeof a[0] * (size_t)n);
    for (int e = 0; e < 4; ++e) {
        int nb = 0;
        for (int k = 0; k < na; ++k) {
            const double *p = a[k], *q = a[(k + 1) % na];
            double fp, fq;
            switch (e) {
            case 0:
                fp = p[0] - x0;
                fq = q[0] - x0;
                break;
            case 1:
                fp = x1 - p[0];
                fq = x1 - q[0];
                break;
            case 2:
                fp = p[1] - y0;
                fq = q[1] - y0;
                break;
            default:
                fp = y1 - p[1];
                fq = y1 - q[1];
                break;
            }
            if (fp >= 0) {
                b[nb][0] = p[0];
                b[nb][1] = p[1];
                ++nb;
            }
            if ((fp > 0 && fq < 0) || (fp < 0 && fq > 0)) {
                double t = fp / (fp - fq);
                b[nb][0] = p[0] + t * (q[0] - p[0]);
                b[nb][1] = p[1] + t * (q[1] - p[1]);
                ++nb;
            }
        }
        na = nb;
        memcpy(a, b, sizeof a[0] * (size_t)nb);
        if (na == 0) {
            return 0.0;
        }
    }
    double area = 0;
    for (int k = 0; k < na; ++k) {
        area += a[k][0] * a[(k + 1) % na][1] - a[(k + 1) % na][0] * a[k][1];
    }
    return fabs(area) / 2;
}

static void test_raster_axis_box(void **state)
{
    (void)state;
    /* Box x in [0.33, 1.2], y in [0.5, 0.77] on a 0.25 m grid from the origin: columns whose open
     * interval meets (0.33, 1.2) are 1..4 (edge 1.2 is inside column 4); rows meet (0.5, 0.77):
     * row 2 (0.5..0.75) and row 3 (0.75..1.0); row 1 only touches y = 0.5 and is not hit. */
    tpNavGrid *g = makeGrid(8, 8, 0.25, 0, 0);
    tpNavShape b = tpNav_ShapeBox(0.765, 0.635, 1.0, 0.435, 0.135, 0.5, 0.0);
    int n = tpNavGrid_AddShape(g, &b, NULL, 0);
    assert_int_equal(n, 8);
    for (int j = 0; j < 8; ++j) {
        for (int i = 0; i < 8; ++i) {
            bool want = i >= 1 && i <= 4 && j >= 2 && j <= 3;
            assert_int_equal(tpNavGrid_Cell(g, i, j), want ? TP_NAV_OBSTACLE : TP_NAV_FREE);
        }
    }
    /* A box whose edges lie on cell boundaries (decimal 0.1 m grid) covers exactly its cells. */
    tpNavGrid *g2 = makeGrid(10, 10, 0.1, 0, 0);
    tpNavShape b2 = tpNav_ShapeBox(0.45, 0.5, 1.0, 0.15, 0.2, 0.5, 0.0); /* x 0.3..0.6, y 0.3..0.7 */
    assert_int_equal(tpNavGrid_AddShape(g2, &b2, NULL, 0), 3 * 4);
    for (int j = 0; j < 10; ++j) {
        for (int i = 0; i < 10; ++i) {
            bool want = i >= 3 && i <= 5 && j >= 3 && j <= 6;
            assert_int_equal(tpNavGrid_Blocked(g2, i, j), want);
        }
    }
    tpDestroyNavGrid(g);
    tpDestroyNavGrid(g2);
}

static void test_raster_rotated_box(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 7);
    for (int trial = 0; trial < 20; ++trial) {
        tpNavGrid *g = makeGrid(24, 20, 0.1, -1.2, -1.0);
        double cx = tpRng_Uniform(&rng, -0.5, 0.5), cy = tpRng_Uniform(&rng, -0.5, 0.5);
        double hx = tpRng_Uniform(&rng, 0.05, 0.6), hy = tpRng_Uniform(&rng, 0.05, 0.6);
        double yaw = tpRng_Uniform(&rng, -TP_PI, TP_PI);
        tpNavShape b = tpNav_ShapeBox(cx, cy, 1.0, hx, hy, 0.3, yaw);
        tpNavGrid_AddShape(g, &b, NULL, 0);
        double c = cos(yaw), s = sin(yaw);
        double poly[4][2];
        const double sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
        for (int k = 0; k < 4; ++k) {
            poly[k][0] = cx + c * sx[k] * hx - s * sy[k] * hy;
            poly[k][1] = cy + s * sx[k] * hx + c * sy[k] * hy;
        }
        for (int j = 0; j < 20; ++j) {
            for (int i = 0; i < 24; ++i) {
                double x0 = -1.2 + 0.1 * i, y0 = -1.0 + 0.1 * j;
                double area = clippedArea((const double(*)[2])poly, 4, x0, x0 + 0.1, y0, y0 + 0.1);
                if (area > 1e-12) {
                    assert_true(tpNavGrid_Blocked(g, i, j));
                } else if (area == 0.0) {
                    assert_false(tpNavGrid_Blocked(g, i, j));
                }
            }
        }
        tpDestroyNavGrid(g);
    }
}

static void test_raster_disc_and_sphere(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 11);
    for (int trial = 0; trial < 20; ++trial) {
        tpNavGrid *g = makeGrid(20, 20, 0.1, 0, 0);
        double cx = tpRng_Uniform(&rng, 0.2, 1.8), cy = tpRng_Uniform(&rng, 0.2, 1.8);
        double r = tpRng_Uniform(&rng, 0.01, 0.7);
        tpNavShape s;
        memset(&s, 0, sizeof s);
        double rr = r;
        if (trial % 2) {
            s.kind = TP_NAV_DISC;
            s.center[0] = cx;
            s.center[1] = cy;
            s.radius = r;
            s.z_lo = -1;
            s.z_hi = 0.5;
        } else {
            /* A sphere centred 0.6 r above the band's top: footprint radius 0.8 r. */
            s.kind = TP_NAV_SPHERE;
            s.center[0] = cx;
            s.center[1] = cy;
            s.center[2] = 2.0 + 0.6 * r;
            s.radius = r;
            rr = 0.8 * r;
        }
        tpNavGrid_AddShape(g, &s, NULL, 0);
        for (int j = 0; j < 20; ++j) {
            for (int i = 0; i < 20; ++i) {
                /* nearest point of the cell square to the centre */
                double px = fmin(fmax(cx, 0.1 * i), 0.1 * (i + 1));
                double py = fmin(fmax(cy, 0.1 * j), 0.1 * (j + 1));
                double d = hypot(px - cx, py - cy);
                if (d < rr - 1e-9) {
                    assert_true(tpNavGrid_Blocked(g, i, j));
                } else if (d > rr + 1e-9) {
                    assert_false(tpNavGrid_Blocked(g, i, j));
                }
            }
        }
        tpDestroyNavGrid(g);
    }
}

static void test_height_band(void **state)
{
    (void)state;
    tpNavGrid *g = makeGrid(20, 20, 0.1, 0, 0);                       /* band 0 .. 2 */
    tpNavShape above = tpNav_ShapeBox(1, 1, 2.6, 0.5, 0.5, 0.5, 0.3); /* z 2.1 .. 3.1 */
    assert_int_equal(tpNavGrid_AddShape(g, &above, NULL, 0), 0);
    tpNavShape ball = {.kind = TP_NAV_SPHERE, .center = {1, 1, 2.5}, .radius = 0.5};
    assert_int_equal(tpNavGrid_AddShape(g, &ball, NULL, 0), 0); /* touches z = 2 at one point */
    tpNavShape disc = {.kind = TP_NAV_DISC, .center = {1, 1}, .radius = 0.3, .z_lo = -2, .z_hi = -0.01};
    assert_int_equal(tpNavGrid_AddShape(g, &disc, NULL, 0), 0);
    assert_int_equal(tpNavGrid_BlockedCount(g), 0);
    /* The same box lowered into the band blocks. */
    above.center[2] = 2.4;
    assert_true(tpNavGrid_AddShape(g, &above, NULL, 0) > 0);

    /* A unit cube tilted 45 degrees about x, cut by the band |z| <= 0.1: the footprint is
     * x in [-0.5, 0.5], |y| <= 0.5 sqrt(2) - 0.1 ... + 0.1 at the band planes: the slab through a
     * diamond |y| + |z| <= 0.5 sqrt(2) spans |y| <= 0.5 sqrt(2). */
    tpNavShape cube = tpNav_ShapeBox(0, 0, 0, 0.5, 0.5, 0.5, 0);
    double q[4] = {cos(TP_PI / 8), sin(TP_PI / 8), 0, 0};
    tpNav_ShapeSetQuat(&cube, q);
    double fp[32][2];
    int n = tpNav_Footprint(&cube, -0.1, 0.1, fp);
    assert_true(n >= 4);
    double xmin = 1e9, xmax = -1e9, ymin = 1e9, ymax = -1e9;
    for (int k = 0; k < n; ++k) {
        xmin = fmin(xmin, fp[k][0]);
        xmax = fmax(xmax, fp[k][0]);
        ymin = fmin(ymin, fp[k][1]);
        ymax = fmax(ymax, fp[k][1]);
    }
    assert_true(fabs(xmin + 0.5) < 1e-12 && fabs(xmax - 0.5) < 1e-12);
    assert_true(fabs(ymin + sqrt(0.5)) < 1e-12 && fabs(ymax - sqrt(0.5)) < 1e-12);
    /* Band above the tilted cube's top (0.5 sqrt 2): nothing. */
    assert_int_equal(tpNav_Footprint(&cube, 0.71, 1.0, fp), 0);
    tpDestroyNavGrid(g);
}

/* A grid reset to another scene of the same size answers like a fresh grid of that scene: the
 * previous obstacles, growth and search scratch leave nothing behind (what follow_path relies
 * on, reusing one grid for every leg); another size is refused and leaves the grid unchanged. */
static void test_reset_reuses_grid(void **state)
{
    (void)state;
    tpNavGridDef d = tpDefaultNavGridDef();
    d.nx = 40;
    d.ny = 20;
    d.cell = 0.1;
    d.z_min = 0;
    d.z_max = 1;
    tpNavGrid *reused = tpCreateNavGrid(&d, NULL, 0);
    assert_non_null(reused);
    tpNavShape wall = tpNav_ShapeBox(2.0, 0.8, 0.5, 0.1, 0.8, 0.5, 0);
    tpNavGrid_AddShape(reused, &wall, NULL, 0);
    tpNavGrid_Grow(reused, 0.25);
    tpNavPath p = {0};
    assert_int_equal(tpNav_PlanCells(reused, NULL, 1, 1, 38, 1, &p), TP_NAV_OK);
    tpNavPath_Free(&p);
    /* the second scene: shifted origin, another wall, smaller growth */
    tpNavGridDef d2 = d;
    d2.x0 = -0.35;
    d2.y0 = 0.2;
    char err[128] = "";
    assert_true(tpNavGrid_Reset(reused, &d2, err, sizeof err));
    tpNavGrid *fresh = tpCreateNavGrid(&d2, NULL, 0);
    tpNavShape wall2 = tpNav_ShapeBox(1.0, 1.2, 0.5, 0.1, 0.8, 0.5, 0);
    tpNavGrid *both[2] = {reused, fresh};
    tpNavPath paths[2] = {{0}, {0}};
    for (int k = 0; k < 2; ++k) {
        tpNavGrid_AddShape(both[k], &wall2, NULL, 0);
        tpNavGrid_Grow(both[k], 0.15);
        assert_int_equal(tpNav_PlanCells(both[k], NULL, 2, 2, 37, 15, &paths[k]), TP_NAV_OK);
    }
    for (int j = 0; j < d.ny; ++j) {
        for (int i = 0; i < d.nx; ++i) {
            assert_int_equal(tpNavGrid_Cell(reused, i, j), tpNavGrid_Cell(fresh, i, j));
        }
    }
    assert_int_equal(paths[0].npoints, paths[1].npoints);
    assert_memory_equal(paths[0].points, paths[1].points, sizeof(double) * 2 * (size_t)paths[0].npoints);
    assert_true(tpNavGrid_Def(reused)->x0 == -0.35 && tpNavGrid_Def(reused)->radius == 0.15);
    /* another size: refused, unchanged */
    tpNavGridDef d3 = d2;
    d3.nx = 41;
    assert_false(tpNavGrid_Reset(reused, &d3, err, sizeof err));
    assert_non_null(strstr(err, "41 x 20"));
    assert_int_equal(tpNavGrid_Def(reused)->nx, 40);
    assert_int_equal(tpNavGrid_Cell(reused, 10, 12), tpNavGrid_Cell(fresh, 10, 12));
    d3.nx = 40;
    d3.cell = -1;
    assert_false(tpNavGrid_Reset(reused, &d3, err, sizeof err));
    for (int k = 0; k < 2; ++k) {
        tpNavPath_Free(&paths[k]);
        tpDestroyNavGrid(both[k]);
    }
}

/* tpNavGrid_Grow against the plain definition it implements: every free cell that the stamp of
 * an obstacle cell on the obstacles' boundary reaches (offsets (dx, dy) with |dx|, |dy| <= kmax
 * whose nearest point is closer than r cells) becomes GROWN. Random scenes of boxes and discs,
 * radii from under a cell to several cells. */
static void test_grow_matches_definition(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 7);
    for (int trial = 0; trial < 60; ++trial) {
        const int nx = 5 + (int)(tpRng_Res53(&rng) * 40), ny = 5 + (int)(tpRng_Res53(&rng) * 40);
        tpNavGrid *g = makeGrid(nx, ny, 0.1, 0, 0);
        int nshapes = 1 + (int)(tpRng_Res53(&rng) * 6);
        for (int k = 0; k < nshapes; ++k) {
            double cx = tpRng_Uniform(&rng, -0.5, nx * 0.1 + 0.5), cy = tpRng_Uniform(&rng, -0.5, ny * 0.1 + 0.5);
            tpNavShape sh = tpRng_Res53(&rng) < 0.5
                                ? tpNav_ShapeBox(cx, cy, 0.5, tpRng_Uniform(&rng, 0.02, 1),
                                                 tpRng_Uniform(&rng, 0.02, 1), 0.5, tpRng_Uniform(&rng, -3, 3))
                                : (tpNavShape){.kind = TP_NAV_DISC,
                                               .center = {cx, cy, 0},
                                               .radius = tpRng_Uniform(&rng, 0.02, 0.8),
                                               .z_lo = 0,
                                               .z_hi = 1};
            tpNavGrid_AddShape(g, &sh, NULL, 0);
        }
        const double radius = tpRng_Uniform(&rng, 0.01, 0.6), r = radius / 0.1;
        uint8_t *obst = malloc((size_t)nx * ny), *want = malloc((size_t)nx * ny);
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                obst[j * nx + i] = tpNavGrid_Cell(g, i, j) == TP_NAV_OBSTACLE;
                want[j * nx + i] = obst[j * nx + i] ? TP_NAV_OBSTACLE : TP_NAV_FREE;
            }
        }
        int kmax = (int)ceil(r + 0.5);
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                const uint8_t *c = obst + j * nx + i;
                if (!*c ||
                    !((i > 0 && !c[-1]) || (i + 1 < nx && !c[1]) || (j > 0 && !c[-nx]) || (j + 1 < ny && !c[nx]))) {
                    continue;
                }
                for (int dy = -kmax; dy <= kmax; ++dy) {
                    for (int dx = -kmax; dx <= kmax; ++dx) {
                        double ex = fmax(fabs((double)dx) - 0.5, 0.0), ey = fmax(fabs((double)dy) - 0.5, 0.0);
                        int ii = i + dx, jj = j + dy;
                        if ((dx || dy) && ex * ex + ey * ey < r * r && ii >= 0 && jj >= 0 && ii < nx && jj < ny &&
                            want[jj * nx + ii] == TP_NAV_FREE) {
                            want[jj * nx + ii] = TP_NAV_GROWN;
                        }
                    }
                }
            }
        }
        tpNavGrid_Grow(g, 0.35); /* a previous growth is replaced, not added to */
        tpNavGrid_Grow(g, radius);
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                assert_int_equal(tpNavGrid_Cell(g, i, j), want[j * nx + i]);
            }
        }
        free(obst);
        free(want);
        tpDestroyNavGrid(g);
    }
}

static tpNavShape randomShape(tpRng *rng, int nx, int ny)
{
    double cx = tpRng_Uniform(rng, -0.5, nx * 0.1 + 0.5), cy = tpRng_Uniform(rng, -0.5, ny * 0.1 + 0.5);
    if (tpRng_Res53(rng) < 0.5) {
        return tpNav_ShapeBox(cx, cy, 0.5, tpRng_Uniform(rng, 0.02, 1), tpRng_Uniform(rng, 0.02, 1), 0.5,
                              tpRng_Uniform(rng, -3, 3));
    }
    return (tpNavShape){
        .kind = TP_NAV_DISC, .center = {cx, cy, 0}, .radius = tpRng_Uniform(rng, 0.02, 0.8), .z_lo = 0, .z_hi = 1};
}

/* tpNavGrid_AddGrown against its definition: a grown raster of one set of shapes plus the
 * obstacles of another, grown onto it, is cell for cell the grid of both sets grown at once. */
static void test_add_grown_matches_grow(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 11);
    for (int trial = 0; trial < 80; ++trial) {
        const int nx = 5 + (int)(tpRng_Res53(&rng) * 40), ny = 5 + (int)(tpRng_Res53(&rng) * 40);
        tpNavGrid *both = makeGrid(nx, ny, 0.1, 0, 0), *base = makeGrid(nx, ny, 0.1, 0, 0);
        tpNavGrid *extra = makeGrid(nx, ny, 0.1, 0, 0);
        int nbase = (int)(tpRng_Res53(&rng) * 5), nextra = (int)(tpRng_Res53(&rng) * 4);
        for (int k = 0; k < nbase + nextra; ++k) {
            tpNavShape sh = randomShape(&rng, nx, ny);
            tpNavGrid_AddShape(both, &sh, NULL, 0);
            tpNavGrid_AddShape(k < nbase ? base : extra, &sh, NULL, 0);
        }
        if (tpRng_Res53(&rng) < 0.2) { /* a growth stamp left in src is not read as an obstacle */
            tpNavGrid_Grow(extra, 0.3);
        }
        const double radius = tpRng_Uniform(&rng, 0.0, 0.6);
        tpNavGrid_Grow(both, radius);
        tpNavGrid_Grow(base, radius);
        assert_true(tpNavGrid_AddGrown(base, extra));
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                assert_int_equal(tpNavGrid_Cell(base, i, j), tpNavGrid_Cell(both, i, j));
            }
        }
        tpDestroyNavGrid(both);
        tpDestroyNavGrid(base);
        tpDestroyNavGrid(extra);
    }
    tpNavGrid *a = makeGrid(4, 4, 0.1, 0, 0), *b = makeGrid(5, 4, 0.1, 0, 0);
    assert_false(tpNavGrid_AddGrown(a, b));
    tpDestroyNavGrid(a);
    tpDestroyNavGrid(b);
}

static void test_halfspace_polygon(void **state)
{
    (void)state;
    tpNavGrid *g = makeGrid(8, 4, 0.25, 0, 0);
    tpNavShape hs = {.kind = TP_NAV_HALFSPACE, .plane = {1, 0, 0, 1.0}}; /* x <= 1 */
    assert_int_equal(tpNavGrid_AddShape(g, &hs, NULL, 0), 4 * 4);
    for (int i = 0; i < 8; ++i) {
        assert_int_equal(tpNavGrid_Blocked(g, i, 2), i < 4);
    }
    /* The ground z <= 0 touches the band [0, 2] only at z = 0 ... as a closed band it meets it. */
    tpNavGrid_Clear(g);
    tpNavShape ground = {.kind = TP_NAV_HALFSPACE, .plane = {0, 0, 1, 0}};
    assert_int_equal(tpNavGrid_AddShape(g, &ground, NULL, 0), 32);
    tpNavGrid_Clear(g);
    ground.plane[3] = -0.01; /* z <= -0.01: below the band */
    assert_int_equal(tpNavGrid_AddShape(g, &ground, NULL, 0), 0);
    /* A triangle prism: cells met by the triangle (0,0) (2,0) (0,1). */
    tpNavShape tri = {.kind = TP_NAV_POLYGON, .npoints = 3, .points = {{0, 0}, {2, 0}, {0, 1}}, .z_lo = 0, .z_hi = 1};
    int n = tpNavGrid_AddShape(g, &tri, NULL, 0);
    int count = 0;
    for (int j = 0; j < 4; ++j) {
        for (int i = 0; i < 8; ++i) {
            double poly[3][2] = {{0, 0}, {2, 0}, {0, 1}};
            double a = clippedArea((const double(*)[2])poly, 3, 0.25 * i, 0.25 * i + 0.25, 0.25 * j, 0.25 * j + 0.25);
            assert_int_equal(tpNavGrid_Blocked(g, i, j), a > 0);
            count += a > 0;
        }
    }
    assert_int_equal(n, count);
    char err[128];
    tri.npoints = 0;
    assert_int_equal(tpNavGrid_AddShape(g, &tri, err, sizeof err), -1);
    assert_non_null(strstr(err, "npoints"));
    tpDestroyNavGrid(g);
}

/* ---- growth ---- */

static void test_growth_disc(void **state)
{
    (void)state;
    tpNavGrid *g = makeGrid(21, 21, 0.1, 0, 0);
    tpNavGrid_SetObstacle(g, 10, 10, true);
    tpNavGrid_Grow(g, 0.25);
    /* centre of (10+dx, 10+dy) to the obstacle square: (max(|dx|-0.5,0), max(|dy|-0.5,0)) * 0.1 */
    for (int j = 0; j < 21; ++j) {
        for (int i = 0; i < 21; ++i) {
            double ex = fmax(abs(i - 10) - 0.5, 0) * 0.1, ey = fmax(abs(j - 10) - 0.5, 0) * 0.1;
            int want = (i == 10 && j == 10) ? TP_NAV_OBSTACLE : hypot(ex, ey) < 0.25 ? TP_NAV_GROWN : TP_NAV_FREE;
            assert_int_equal(tpNavGrid_Cell(g, i, j), want);
        }
    }
    /* the 5 x 5 block: a corner offset (2, 2) is 0.15 sqrt 2 = 0.21 m < 0.25 m away */
    assert_int_equal(tpNavGrid_BlockedCount(g), 25);
    tpNavGrid_Grow(g, 0.0);
    assert_int_equal(tpNavGrid_BlockedCount(g), 1);
    tpDestroyNavGrid(g);
}

/* Two walls across the grid with a gap of `gap` metres between y = 1 and 1 + gap (0.25 m cells). */
static tpNavResult gapPlan(double gap, double radius)
{
    tpNavGrid *g = makeGrid(40, 40, 0.25, 0, 0);
    tpNavShape lower = tpNav_ShapeBox(5.0, 0.5, 1.0, 0.25, 0.5, 1.0, 0);       /* y 0 .. 1 */
    tpNavShape upper = tpNav_ShapeBox(5.0, 5.5 + gap, 1.0, 0.25, 4.5, 1.0, 0); /* y 1+gap .. 10+gap */
    tpNavGrid_AddShape(g, &lower, NULL, 0);
    tpNavGrid_AddShape(g, &upper, NULL, 0);
    tpNavGrid_Grow(g, radius);
    tpNavPath p = {0};
    double s[2] = {1.0, 1.0 + gap / 2}, e[2] = {9.0, 1.0 + gap / 2};
    tpNavResult r = tpNav_Plan(g, NULL, s, e, &p);
    tpNavPath_Free(&p);
    tpDestroyNavGrid(g);
    return r;
}

static void test_growth_gaps(void **state)
{
    (void)state;
    const double R = 0.5; /* 2 cells */
    assert_int_equal(gapPlan(0.75, 0.0), TP_NAV_OK);
    assert_int_equal(gapPlan(0.75, R), TP_NAV_NO_PATH); /* narrower than 2R: closed */
    assert_int_equal(gapPlan(1.0 - 0.25, R), TP_NAV_NO_PATH);
    assert_int_equal(gapPlan(1.5, R), TP_NAV_OK);        /* wider than 2R + one cell: open */
    assert_int_equal(gapPlan(1.5, 0.8), TP_NAV_NO_PATH); /* and closed for 2R = 1.6 > 1.5 */
}

/* ---- search ---- */

static void test_empty_grid_cost(void **state)
{
    (void)state;
    tpNavGrid *g = makeGrid(20, 20, 1.0, 0, 0);
    tpNavPath p = {0};
    tpNavPlanDef d = tpDefaultNavPlanDef();
    for (int a = 0; a < 2; ++a) {
        d.algo = a ? TP_NAV_ASTAR : TP_NAV_DIJKSTRA;
        d.diag = 1.4;
        assert_int_equal(tpNav_PlanCells(g, &d, 0, 0, 10, 5, &p), TP_NAV_OK);
        assert_true(fabs(p.cost - 12.0) < 1e-12);
        assert_int_equal(p.ncells, 11);
        d.diag = TP_NAV_SQRT2;
        assert_int_equal(tpNav_PlanCells(g, &d, 0, 0, 10, 5, &p), TP_NAV_OK);
        assert_true(fabs(p.cost - (5.0 + 5.0 * sqrt(2.0))) < 1e-12);
    }
    /* Same cell: a one-cell path of cost 0. */
    assert_int_equal(tpNav_PlanCells(g, NULL, 3, 3, 3, 3, &p), TP_NAV_OK);
    assert_int_equal(p.ncells, 1);
    assert_true(p.cost == 0.0);
    /* A full wall: no path; blocked or outside start / goal reported as such. */
    for (int j = 0; j < 20; ++j) {
        tpNavGrid_SetObstacle(g, 7, j, true);
    }
    assert_int_equal(tpNav_PlanCells(g, NULL, 0, 0, 10, 5, &p), TP_NAV_NO_PATH);
    assert_int_equal(p.ncells, 0);
    assert_int_equal(tpNav_PlanCells(g, NULL, 7, 3, 10, 5, &p), TP_NAV_START_BLOCKED);
    assert_int_equal(tpNav_PlanCells(g, NULL, 0, 0, 7, 5, &p), TP_NAV_GOAL_BLOCKED);
    double out[2] = {-1, 3}, in[2] = {1.5, 1.5};
    assert_int_equal(tpNav_Plan(g, NULL, out, in, &p), TP_NAV_START_BLOCKED);
    assert_int_equal(tpNav_Plan(g, NULL, in, out, &p), TP_NAV_GOAL_BLOCKED);
    assert_string_equal(tpNavResult_Name(TP_NAV_NO_PATH), "no path");
    tpNavPath_Free(&p);
    tpDestroyNavGrid(g);
}

/* Brute force: all-pairs shortest costs by Floyd-Warshall over the 8-connected free cells, and the
 * connected components by repeated flooding. */
static void bruteForce(const tpNavGrid *g, int nx, int ny, double diag, double *dist, int *comp)
{
    int n = nx * ny;
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            dist[a * n + b] = a == b ? 0.0 : INFINITY;
        }
        comp[a] = -1;
    }
    for (int a = 0; a < n; ++a) {
        int ai = a % nx, aj = a / nx;
        if (tpNavGrid_Blocked(g, ai, aj)) {
            continue;
        }
        for (int dj = -1; dj <= 1; ++dj) {
            for (int di = -1; di <= 1; ++di) {
                if ((di || dj) && !tpNavGrid_Blocked(g, ai + di, aj + dj)) {
                    dist[a * n + (aj + dj) * nx + ai + di] = (di && dj) ? diag : 1.0;
                }
            }
        }
    }
    for (int k = 0; k < n; ++k) {
        for (int a = 0; a < n; ++a) {
            for (int b = 0; b < n; ++b) {
                double via = dist[a * n + k] + dist[k * n + b];
                if (via < dist[a * n + b]) {
                    dist[a * n + b] = via;
                }
            }
        }
    }
    /* components: flood by repeated label propagation (independent of the distances) */
    int label = 0;
    for (int a = 0; a < n; ++a) {
        if (comp[a] >= 0 || tpNavGrid_Blocked(g, a % nx, a / nx)) {
            continue;
        }
        comp[a] = label;
        for (bool changed = true; changed;) {
            changed = false;
            for (int c = 0; c < n; ++c) {
                if (comp[c] != label) {
                    continue;
                }
                for (int dj = -1; dj <= 1; ++dj) {
                    for (int di = -1; di <= 1; ++di) {
                        int ci = c % nx + di, cj = c / nx + dj;
                        if (!tpNavGrid_Blocked(g, ci, cj) && comp[cj * nx + ci] < 0) {
                            comp[cj * nx + ci] = label;
                            changed = true;
                        }
                    }
                }
            }
        }
        ++label;
    }
}

static void checkPathValid(const tpNavGrid *g, int nx, const tpNavPath *p, double diag)
{
    double cost = 0;
    for (int k = 0; k < p->ncells; ++k) {
        assert_false(tpNavGrid_Blocked(g, p->cells[k] % nx, p->cells[k] / nx));
        if (k) {
            int di = abs(p->cells[k] % nx - p->cells[k - 1] % nx), dj = abs(p->cells[k] / nx - p->cells[k - 1] / nx);
            assert_true(di <= 1 && dj <= 1 && (di || dj));
            cost += (di && dj) ? diag : 1.0;
        }
    }
    assert_true(fabs(cost - p->cost) < 1e-9);
}

static void test_random_optimal_complete(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 2024);
    const int nx = 9, ny = 7, n = nx * ny;
    double *dist = malloc(sizeof(double) * (size_t)n * (size_t)n);
    int comp[9 * 7];
    tpNavPath p = {0};
    int nopath = 0, found = 0;
    for (int map = 0; map < 60; ++map) {
        tpNavGrid *g = makeGrid(nx, ny, 1.0, 0, 0);
        double density = 0.15 + 0.4 * (map % 4) / 3.0;
        for (int k = 0; k < n; ++k) {
            if (tpRng_Res53(&rng) < density) {
                tpNavGrid_SetObstacle(g, k % nx, k / nx, true);
            }
        }
        double diag = map % 2 ? TP_NAV_SQRT2 : 1.4;
        bruteForce(g, nx, ny, diag, dist, comp);
        tpNavPlanDef d = tpDefaultNavPlanDef();
        d.diag = diag;
        for (int a = 0; a < n; ++a) {
            for (int b = 0; b < n; ++b) {
                if (comp[a] < 0 || comp[b] < 0) {
                    continue;
                }
                for (int algo = 0; algo < 2; ++algo) {
                    d.algo = algo ? TP_NAV_ASTAR : TP_NAV_DIJKSTRA;
                    tpNavResult r = tpNav_PlanCells(g, &d, a % nx, a / nx, b % nx, b / nx, &p);
                    if (comp[a] != comp[b]) {
                        assert_int_equal(r, TP_NAV_NO_PATH);
                        nopath += algo;
                    } else {
                        assert_int_equal(r, TP_NAV_OK);
                        assert_true(fabs(p.cost - dist[a * n + b]) < 1e-9);
                        checkPathValid(g, nx, &p, diag);
                        found += algo;
                    }
                }
            }
        }
        tpDestroyNavGrid(g);
    }
    assert_true(nopath > 1000 && found > 1000); /* both outcomes well exercised */
    tpNavPath_Free(&p);
    free(dist);
}

/* A grid's search marks are reset lazily (a generation count that wraps, see tpNavGrid): a cell
 * last reached any number of searches ago must not look reached (or closed) now. The left half of
 * the grid is searched once, then the right half, which the wall cuts off, n times, then the left
 * half again; that search must equal the one on a fresh grid, for every n up to 600 (several wraps
 * of the count at every phase). */
static void test_search_marks_reset(void **state)
{
    (void)state;
    const int nx = 21, ny = 9;
    tpNavGrid *g = makeGrid(nx, ny, 1.0, 0, 0), *fresh = makeGrid(nx, ny, 1.0, 0, 0);
    for (int j = 0; j < ny; ++j) {
        tpNavGrid_SetObstacle(g, 10, j, true);
        tpNavGrid_SetObstacle(fresh, 10, j, true);
    }
    tpNavGrid_SetObstacle(g, 5, 4, true); /* so that the left half's path is not a straight line */
    tpNavGrid_SetObstacle(fresh, 5, 4, true);
    tpNavPlanDef d = tpDefaultNavPlanDef();
    tpNavPath p = {0}, q = {0};
    assert_int_equal(tpNav_PlanCells(fresh, &d, 0, 8, 9, 0, &q), TP_NAV_OK);
    for (int n = 0; n <= 600; ++n) {
        assert_int_equal(tpNav_PlanCells(g, &d, 0, 0, 9, 8, &p), TP_NAV_OK);
        for (int k = 0; k < n; ++k) {
            assert_int_equal(tpNav_PlanCells(g, &d, 11 + k % 3, 0, 20, 8, &p), TP_NAV_OK);
        }
        assert_int_equal(tpNav_PlanCells(g, &d, 0, 8, 9, 0, &p), TP_NAV_OK);
        assert_int_equal(p.ncells, q.ncells);
        assert_int_equal(p.expanded, q.expanded);
        assert_true(p.cost == q.cost);
        assert_memory_equal(p.cells, q.cells, sizeof(int) * (size_t)q.ncells);
        /* and a search from the right half into the left one finds no way */
        assert_int_equal(tpNav_PlanCells(g, &d, 12, 4, 3, 4, &p), TP_NAV_NO_PATH);
    }
    tpNavPath_Free(&p);
    tpNavPath_Free(&q);
    tpDestroyNavGrid(g);
    tpDestroyNavGrid(fresh);
}

static void test_astar_equals_dijkstra_field(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 99);
    const int nx = 40, ny = 30;
    tpNavGrid *g = makeGrid(nx, ny, 0.5, 0, 0);
    for (int k = 0; k < 60; ++k) { /* random boxes and discs */
        tpNavShape s =
            tpNav_ShapeBox(tpRng_Uniform(&rng, 0, 20), tpRng_Uniform(&rng, 0, 15), 1, tpRng_Uniform(&rng, 0.1, 1.5),
                           tpRng_Uniform(&rng, 0.1, 0.4), 1, tpRng_Uniform(&rng, 0, TP_PI));
        tpNavGrid_AddShape(g, &s, NULL, 0);
    }
    tpNavGrid_Grow(g, 0.3);
    double *field = malloc(sizeof(double) * nx * ny);
    int gi = 20, gj = 15;
    while (tpNavGrid_Blocked(g, gi, gj)) {
        ++gi;
    }
    int reach = tpNav_CostField(g, 1.4, gi, gj, field);
    assert_true(reach > 100);
    tpNavPath p = {0};
    tpNavPlanDef d = tpDefaultNavPlanDef();
    int checked = 0;
    for (int k = 0; k < nx * ny; ++k) {
        if (tpNavGrid_Blocked(g, k % nx, k / nx)) {
            assert_true(field[k] == -1.0);
            continue;
        }
        tpNavResult r = tpNav_PlanCells(g, &d, k % nx, k / nx, gi, gj, &p);
        if (field[k] < 0) {
            assert_int_equal(r, TP_NAV_NO_PATH);
        } else {
            assert_int_equal(r, TP_NAV_OK);
            assert_true(fabs(p.cost - field[k]) < 1e-9);
            ++checked;
        }
    }
    assert_int_equal(checked, reach);
    tpNavPath_Free(&p);
    free(field);
    tpDestroyNavGrid(g);
}

static void test_smoothing(void **state)
{
    (void)state;
    tpNavGrid *g = makeGrid(30, 30, 0.2, 0, 0);
    tpNavPath p = {0}, q = {0};
    tpNavPlanDef d = tpDefaultNavPlanDef();
    d.smooth = true;
    /* Empty grid: the smoothed path is the straight segment between the two cell centres. */
    assert_int_equal(tpNav_PlanCells(g, &d, 0, 0, 20, 10, &p), TP_NAV_OK);
    assert_int_equal(p.npoints, 2);
    assert_true(fabs(p.length - hypot(4.0, 2.0)) < 1e-9);
    /* A wall with a gap: smoothed length <= raw length, every segment has line of sight, and the
     * ends are unchanged. */
    tpNavShape wall = tpNav_ShapeBox(3.0, 2.0, 1, 0.2, 2.0, 1, 0); /* x 2.8..3.2, y 0..4 */
    tpNavGrid_AddShape(g, &wall, NULL, 0);
    tpNavGrid_Grow(g, 0.2);
    d.smooth = false;
    assert_int_equal(tpNav_PlanCells(g, &d, 2, 5, 27, 8, &q), TP_NAV_OK);
    d.smooth = true;
    assert_int_equal(tpNav_PlanCells(g, &d, 2, 5, 27, 8, &p), TP_NAV_OK);
    assert_true(p.npoints >= 3 && p.npoints < q.npoints);
    assert_true(p.length <= q.length + 1e-12);
    assert_true(p.cost == q.cost);
    for (int k = 0; k + 1 < p.npoints; ++k) {
        assert_true(tpNav_LineOfSight(g, p.points + 2 * k, p.points + 2 * k + 2));
    }
    assert_memory_equal(p.points, q.points, 2 * sizeof(double));
    assert_memory_equal(p.points + 2 * (p.npoints - 1), q.points + 2 * (q.npoints - 1), 2 * sizeof(double));
    /* Line of sight through the wall fails; along a free row it holds. */
    double a[2] = {1.0, 1.0}, b[2] = {5.0, 1.0}, c[2] = {1.0, 5.5}, e[2] = {5.0, 5.5};
    assert_false(tpNav_LineOfSight(g, a, b));
    assert_true(tpNav_LineOfSight(g, c, e));
    tpNavPath_Free(&p);
    tpNavPath_Free(&q);
    tpDestroyNavGrid(g);
}

static void test_bad_defs(void **state)
{
    (void)state;
    char err[128];
    tpNavGridDef d = tpDefaultNavGridDef();
    d.cell = 0;
    assert_null(tpCreateNavGrid(&d, err, sizeof err));
    assert_non_null(strstr(err, "cell"));
    d = tpDefaultNavGridDef();
    d.z_min = 3;
    assert_null(tpCreateNavGrid(&d, err, sizeof err));
    assert_non_null(strstr(err, "z_min"));
    d = tpDefaultNavGridDef();
    d.nx = 0;
    assert_null(tpCreateNavGrid(&d, err, sizeof err));
    tpNavShape s = tpNav_ShapeBox(0, 0, 0, -1, 1, 1, 0);
    assert_false(tpNav_ShapeValidate(&s, err, sizeof err));
    assert_non_null(strstr(err, "half"));
    tpNavShape h = {.kind = TP_NAV_HALFSPACE};
    assert_false(tpNav_ShapeValidate(&h, err, sizeof err));
}

/* ---- controller ---- */

static void test_controller_straight(void **state)
{
    (void)state;
    tpNavFollower f;
    tpNavFollower_Init(&f, NULL);
    double path[4] = {0, 0, 5, 0};
    tpNavAgent ag = {0};
    assert_true(tpNavFollower_SetPath(&f, path, 2, ag.x, ag.y));
    const double V = f.def.speed;
    tpNavFollower_Step(&f, &ag);
    assert_true(fabs(ag.v - V / 6.0) < 1e-12); /* kv dt = 5/30 */
    double vmax = ag.v;
    int steps = 1;
    while (!f.done && steps < 2000) {
        tpNavFollower_Step(&f, &ag);
        assert_true(ag.v >= 0.0);
        assert_true(ag.v <= V);
        vmax = fmax(vmax, ag.v);
        ++steps;
    }
    assert_true(f.done);
    assert_true(vmax > 0.99 * V);
    assert_true(fabs(ag.x - 5.0) <= f.def.stop_radius && fabs(ag.y) < 1e-9);
    /* After done the agent brakes to rest without going backwards. */
    for (int k = 0; k < 300; ++k) {
        tpNavFollower_Step(&f, &ag);
        assert_true(ag.v >= 0.0);
    }
    assert_true(ag.v < 1e-6);
    assert_true(hypot(ag.x - 5.0, ag.y) < 0.2);
    tpNavFollower_Free(&f);
}

static void test_controller_turn_and_replace(void **state)
{
    (void)state;
    tpNavFollower f;
    tpNavFollower_Init(&f, NULL);
    /* Facing away from the path: while the heading error exceeds theta_turn the desired speed is
     * the small turning speed, so from rest v never exceeds it. */
    double path[6] = {0, 0, 3, 0, 3, 3};
    tpNavAgent ag = {.theta = TP_PI};
    tpNavFollower_SetPath(&f, path, 3, 0, 0);
    int turning = 0;
    bool still_turning = true;
    for (int k = 0; k < 60; ++k) {
        tpNavAgent before = ag;
        tpNavFollower_Step(&f, &ag);
        double err = atan2(f.target[1] - before.y, f.target[0] - before.x) - before.theta;
        err = fabs(atan2(sin(err), cos(err)));
        still_turning = still_turning && err > f.def.theta_turn;
        if (still_turning) {
            assert_true(ag.v <= f.def.turn_speed + 1e-12);
            ++turning;
        }
    }
    assert_true(turning > 5 && !still_turning);
    /* Replace the path mid-run: position, heading and speeds are continuous (one Euler step). */
    for (int k = 0; k < 60; ++k) {
        tpNavFollower_Step(&f, &ag);
    }
    double path2[6] = {ag.x, ag.y, ag.x, ag.y - 2, ag.x - 2, ag.y - 2};
    tpNavAgent before = ag;
    tpNavFollower_SetPath(&f, path2, 3, ag.x, ag.y);
    tpNavFollower_Step(&f, &ag);
    const double dt = f.def.dt;
    assert_true(hypot(ag.x - before.x, ag.y - before.y) <= before.v * dt + 1e-12);
    assert_true(fabs(ag.theta - before.theta) <= fabs(before.omega) * dt + 1e-12);
    assert_true(fabs(ag.v - before.v) <= f.def.kv * dt * f.def.speed + 1e-12);
    int steps = 0;
    while (!f.done && steps < 3000) {
        tpNavFollower_Step(&f, &ag);
        assert_true(ag.v >= 0 && ag.v <= f.def.speed);
        ++steps;
    }
    assert_true(f.done);
    assert_true(hypot(ag.x - path2[4], ag.y - path2[5]) <= f.def.stop_radius);
    tpNavFollower_Free(&f);
}

/* A planned maze path followed by the controller stays in free cells of a grid grown by a
 * smaller margin than R (the controller cuts corners a little inside the growth). */
static void test_plan_and_follow(void **state)
{
    (void)state;
    tpNavGrid *g = makeGrid(60, 60, 0.1, 0, 0);
    for (int w = 0; w < 3; ++w) { /* three staggered walls */
        double y = 1.5 + 1.5 * w, x = (w % 2) ? 3.6 : 2.4;
        tpNavShape s = tpNav_ShapeBox(x, y, 1, 2.4, 0.1, 1, 0);
        tpNavGrid_AddShape(g, &s, NULL, 0);
    }
    tpNavGrid_Grow(g, 0.4);
    tpNavPath p = {0};
    tpNavPlanDef d = tpDefaultNavPlanDef();
    d.smooth = true;
    double s[2] = {0.5, 0.5}, e[2] = {5.5, 5.5};
    assert_int_equal(tpNav_Plan(g, &d, s, e, &p), TP_NAV_OK);
    tpNavFollower f;
    tpNavFollowDef fd = tpDefaultNavFollowDef();
    fd.lookahead = 0.3;
    tpNavFollower_Init(&f, &fd);
    tpNavFollower_SetPath(&f, p.points, p.npoints, s[0], s[1]);
    tpNavAgent ag = {.x = p.points[0], .y = p.points[1], .theta = TP_PI / 2};
    int steps = 0;
    while (!f.done && steps < 5000) {
        tpNavFollower_Step(&f, &ag);
        int i, j;
        assert_true(tpNavGrid_CellOf(g, ag.x, ag.y, &i, &j));
        assert_int_not_equal(tpNavGrid_Cell(g, i, j), TP_NAV_OBSTACLE);
        ++steps;
    }
    assert_true(f.done);
    tpNavFollower_Free(&f);
    tpNavPath_Free(&p);
    tpDestroyNavGrid(g);
}

/* Several characters, each planning around the others (Kuffner Sec. 8): every 10 steps each one
 * rebuilds its grid (the walls plus the other characters as discs, grown by its radius), replans
 * to its goal and replaces its path mid-run; one goal moves halfway. All arrive and no two
 * characters' discs ever overlap. */
static void test_multi_character_replanning(void **state)
{
    (void)state;
    enum { N = 3 };
    const double R = 0.25;
    double goals[N][2] = {{5.5, 1.7}, {0.5, 0.3}, {3.0, 3.6}}; /* near the others' starts */
    const double starts[N][2] = {{0.5, 1.0}, {5.5, 1.0}, {3.0, 0.4}};
    tpNavAgent ag[N];
    tpNavFollower f[N];
    tpNavFollowDef fd = tpDefaultNavFollowDef();
    fd.lookahead = 0.3;
    fd.speed = 0.8;
    for (int k = 0; k < N; ++k) {
        memset(&ag[k], 0, sizeof ag[k]);
        ag[k].x = starts[k][0];
        ag[k].y = starts[k][1];
        ag[k].theta = atan2(goals[k][1] - starts[k][1], goals[k][0] - starts[k][0]);
        tpNavFollower_Init(&f[k], &fd);
    }
    tpNavGrid *g = makeGrid(60, 40, 0.1, 0, 0);
    tpNavPath p = {0};
    tpNavPlanDef pd = tpDefaultNavPlanDef();
    pd.smooth = true;
    double mind = 1e9;
    int replans = 0, step = 0;
    bool all = false;
    for (; step < 3000 && !all; ++step) {
        if (step == 150) {
            goals[2][0] = 1.0; /* the third goal moves */
        }
        if (step % 10 == 0) {
            for (int k = 0; k < N; ++k) {
                tpNavGrid_Clear(g);
                tpNavShape pillar = tpNav_ShapeBox(3.0, 2.0, 1, 0.4, 0.4, 1, 0.3);
                tpNavGrid_AddShape(g, &pillar, NULL, 0);
                for (int o = 0; o < N; ++o) {
                    if (o != k) {
                        tpNavShape disc = {
                            .kind = TP_NAV_DISC, .center = {ag[o].x, ag[o].y}, .radius = R, .z_lo = 0, .z_hi = 1.8};
                        tpNavGrid_AddShape(g, &disc, NULL, 0);
                    }
                }
                tpNavGrid_Grow(g, R);
                double s[2] = {ag[k].x, ag[k].y};
                if (tpNav_Plan(g, &pd, s, goals[k], &p) == TP_NAV_OK) {
                    p.points[0] = ag[k].x; /* start the polyline at the character itself */
                    p.points[1] = ag[k].y;
                    p.points[2 * (p.npoints - 1)] = goals[k][0];
                    p.points[2 * (p.npoints - 1) + 1] = goals[k][1];
                    bool was_done = f[k].done;
                    tpNavFollower_SetPath(&f[k], p.points, p.npoints, ag[k].x, ag[k].y);
                    if (was_done && hypot(ag[k].x - goals[k][0], ag[k].y - goals[k][1]) <= fd.stop_radius) {
                        f[k].done = true;
                    }
                    ++replans;
                }
            }
        }
        for (int k = 0; k < N; ++k) {
            tpNavAgent before = ag[k];
            tpNavFollower_Step(&f[k], &ag[k]);
            assert_true(hypot(ag[k].x - before.x, ag[k].y - before.y) <= before.v * fd.dt + 1e-12); /* no jumps */
        }
        for (int a = 0; a < N; ++a) {
            for (int b = a + 1; b < N; ++b) {
                mind = fmin(mind, hypot(ag[a].x - ag[b].x, ag[a].y - ag[b].y));
            }
        }
        all = true;
        for (int k = 0; k < N; ++k) {
            all = all && f[k].done;
        }
    }
    assert_true(all);
    for (int k = 0; k < N; ++k) {
        assert_true(hypot(ag[k].x - goals[k][0], ag[k].y - goals[k][1]) <= fd.stop_radius + 1e-9);
        tpNavFollower_Free(&f[k]);
    }
    assert_true(replans > 3 * 10);
    assert_true(mind > 2 * R); /* the discs never overlap */
    tpNavPath_Free(&p);
    tpDestroyNavGrid(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raster_axis_box),
        cmocka_unit_test(test_raster_rotated_box),
        cmocka_unit_test(test_raster_disc_and_sphere),
        cmocka_unit_test(test_height_band),
        cmocka_unit_test(test_halfspace_polygon),
        cmocka_unit_test(test_growth_disc),
        cmocka_unit_test(test_growth_gaps),
        cmocka_unit_test(test_empty_grid_cost),
        cmocka_unit_test(test_random_optimal_complete),
        cmocka_unit_test(test_search_marks_reset),
        cmocka_unit_test(test_astar_equals_dijkstra_field),
        cmocka_unit_test(test_smoothing),
        cmocka_unit_test(test_bad_defs),
        cmocka_unit_test(test_controller_straight),
        cmocka_unit_test(test_controller_turn_and_replace),
        cmocka_unit_test(test_plan_and_follow),
        cmocka_unit_test(test_multi_character_replanning),
        cmocka_unit_test(test_reset_reuses_grid),
        cmocka_unit_test(test_grow_matches_definition),
        cmocka_unit_test(test_add_grown_matches_grow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
