/* Navigation grid: shapes, exact footprints in a height band, rasterisation and growth by the
 * agent radius. See tp/nav.h for the conventions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nav_internal.h"
#include "tp/util.h"
#include "tp/base.h"
#include "tp/mathx.h"

#define TP_NAV_MAX_CELLS (1 << 26)

/* Grid coordinate u = (x - x0) / h, snapped to the nearest integer when within 1e-9 of it so that
 * edges given in decimal metres (0.3 m on a 0.1 m grid) land exactly on cell boundaries. */
static double toCell(double x, double origin, double h)
{
    double u = (x - origin) / h;
    double r = nearbyint(u);
    return fabs(u - r) < 1e-9 ? r : u;
}

/* Cells whose open interval (k, k+1) meets the interval with closure [a, b] (a <= b, cell units):
 * k from floor(a) to ceil(b) - 1. Clamped to [0, n-1]; returns false if empty. */
static bool cellRange(double a, double b, int n, int *lo, int *hi)
{
    double fa = floor(a), cb = ceil(b) - 1.0;
    if (a == b && a == fa) { /* a point on a boundary meets no open cell */
        return false;
    }
    if (a == b) {
        cb = fa;
    }
    if (cb < 0.0 || fa > (double)(n - 1) || cb < fa) {
        return false;
    }
    *lo = fa < 0.0 ? 0 : (int)fa;
    *hi = cb > (double)(n - 1) ? n - 1 : (int)cb;
    return true;
}

tpNavShape tpNav_ShapeBox(double cx, double cy, double cz, double hx, double hy, double hz, double yaw)
{
    tpNavShape s;
    memset(&s, 0, sizeof s);
    s.kind = TP_NAV_BOX;
    s.center[0] = cx;
    s.center[1] = cy;
    s.center[2] = cz;
    s.half[0] = hx;
    s.half[1] = hy;
    s.half[2] = hz;
    double c = cos(yaw), sn = sin(yaw);
    double r[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1};
    memcpy(s.rot, r, sizeof r);
    return s;
}

void tpNav_ShapeSetQuat(tpNavShape *s, const double q[4])
{
    double u[4] = {q[0], q[1], q[2], q[3]};
    if (!(tpQuat_Norm(u) > 0)) {
        u[0] = 1, u[1] = u[2] = u[3] = 0;
    }
    tpQuat_Normalize(u);
    tpQuat_ToMatrix(u, s->rot);
}

static bool allFinite(const double *v, int n)
{
    for (int i = 0; i < n; ++i) {
        if (!isfinite(v[i])) {
            return false;
        }
    }
    return true;
}

bool tpNav_ShapeValidate(const tpNavShape *s, char *err, size_t errlen)
{
    switch (s->kind) {
    case TP_NAV_BOX:
        if (!allFinite(s->center, 3) || !allFinite(s->half, 3) || !allFinite(s->rot, 9)) {
            tpErrorf(err, errlen, "box: center, half and rot must be finite");
            return false;
        }
        if (s->half[0] < 0 || s->half[1] < 0 || s->half[2] < 0) {
            tpErrorf(err, errlen, "box: half extents must be >= 0");
            return false;
        }
        return true;
    case TP_NAV_SPHERE:
        if (!allFinite(s->center, 3) || !isfinite(s->radius) || s->radius < 0) {
            tpErrorf(err, errlen, "sphere: center must be finite and radius >= 0");
            return false;
        }
        return true;
    case TP_NAV_DISC:
    case TP_NAV_POLYGON:
        if (!isfinite(s->z_lo) || !isfinite(s->z_hi) || s->z_lo > s->z_hi) {
            tpErrorf(err, errlen, "%s: z_lo and z_hi must be finite with z_lo <= z_hi",
                     s->kind == TP_NAV_DISC ? "disc" : "polygon");
            return false;
        }
        if (s->kind == TP_NAV_DISC && (!allFinite(s->center, 2) || !isfinite(s->radius) || s->radius < 0)) {
            tpErrorf(err, errlen, "disc: center must be finite and radius >= 0");
            return false;
        }
        if (s->kind == TP_NAV_POLYGON) {
            if (s->npoints < 1 || s->npoints > TP_NAV_POLY_MAX) {
                tpErrorf(err, errlen, "polygon: npoints must be in 1..%d (got %d)", TP_NAV_POLY_MAX, s->npoints);
                return false;
            }
            for (int i = 0; i < s->npoints; ++i) {
                if (!allFinite(s->points[i], 2)) {
                    tpErrorf(err, errlen, "polygon: points[%d] is not finite", i);
                    return false;
                }
            }
        }
        return true;
    case TP_NAV_HALFSPACE:
        if (!allFinite(s->plane, 4) || (s->plane[0] == 0 && s->plane[1] == 0 && s->plane[2] == 0)) {
            tpErrorf(err, errlen, "halfspace: plane must be finite with a non-zero normal");
            return false;
        }
        return true;
    }
    tpErrorf(err, errlen, "shape: unknown kind %d", (int)s->kind);
    return false;
}

/* ---- 2D convex hull (Andrew's monotone chain), counter-clockwise, no repeated points ---- */

static int cmpPoint(const void *a, const void *b)
{
    const double *p = a, *q = b;
    if (p[0] != q[0]) {
        return p[0] < q[0] ? -1 : 1;
    }
    return p[1] < q[1] ? -1 : p[1] > q[1] ? 1 : 0;
}

static double cross(const double o[2], const double a[2], const double b[2])
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* pts (n <= 32) is sorted in place; hull written to out (capacity 32). Returns the count. */
static int convexHull(double (*pts)[2], int n, double (*out)[2])
{
    if (n <= 0) {
        return 0;
    }
    qsort(pts, (size_t)n, sizeof pts[0], cmpPoint);
    int m = 0;
    for (int i = 1; i < n; ++i) { /* drop duplicates */
        if (pts[i][0] != pts[m][0] || pts[i][1] != pts[m][1]) {
            ++m;
            pts[m][0] = pts[i][0];
            pts[m][1] = pts[i][1];
        }
    }
    n = m + 1;
    if (n <= 2) {
        memcpy(out, pts, sizeof pts[0] * (size_t)n);
        return n;
    }
    double h[66][2];
    int k = 0;
    for (int i = 0; i < n; ++i) {
        while (k >= 2 && cross(h[k - 2], h[k - 1], pts[i]) <= 0) {
            --k;
        }
        h[k][0] = pts[i][0];
        h[k][1] = pts[i][1];
        ++k;
    }
    for (int i = n - 2, t = k + 1; i >= 0; --i) {
        while (k >= t && cross(h[k - 2], h[k - 1], pts[i]) <= 0) {
            --k;
        }
        h[k][0] = pts[i][0];
        h[k][1] = pts[i][1];
        ++k;
    }
    k -= 1; /* the last point repeats the first */
    if (k > 32) {
        k = 32;
    }
    memcpy(out, h, sizeof h[0] * (size_t)k);
    return k;
}

int tpNav_Footprint(const tpNavShape *s, double z_min, double z_max, double xy[32][2])
{
    double pts[32][2];
    int n = 0;
    if (s->kind == TP_NAV_POLYGON) {
        if (s->z_hi < z_min || s->z_lo > z_max) {
            return 0;
        }
        for (int i = 0; i < s->npoints && i < TP_NAV_POLY_MAX; ++i) {
            pts[n][0] = s->points[i][0];
            pts[n][1] = s->points[i][1];
            ++n;
        }
        return convexHull(pts, n, xy);
    }
    if (s->kind != TP_NAV_BOX) {
        return 0;
    }
    /* Box ∩ slab is a convex polytope whose vertices are the box vertices inside the slab and the
     * crossings of box edges with the planes z = z_min and z = z_max; its projection is the
     * convex hull of their projections. */
    double v[8][3];
    for (int k = 0; k < 8; ++k) {
        double l[3] = {(k & 1) ? s->half[0] : -s->half[0], (k & 2) ? s->half[1] : -s->half[1],
                       (k & 4) ? s->half[2] : -s->half[2]};
        for (int r = 0; r < 3; ++r) {
            v[k][r] = s->center[r] + s->rot[3 * r] * l[0] + s->rot[3 * r + 1] * l[1] + s->rot[3 * r + 2] * l[2];
        }
        if (v[k][2] >= z_min && v[k][2] <= z_max) {
            pts[n][0] = v[k][0];
            pts[n][1] = v[k][1];
            ++n;
        }
    }
    for (int k = 0; k < 8; ++k) {
        for (int bit = 1; bit < 8; bit <<= 1) {
            if (k & bit) {
                continue;
            }
            const double *p = v[k], *q = v[k | bit];
            double planes[2] = {z_min, z_max};
            for (int c = 0; c < 2; ++c) {
                double z = planes[c];
                if ((p[2] < z && q[2] > z) || (p[2] > z && q[2] < z)) {
                    double t = (z - p[2]) / (q[2] - p[2]);
                    if (n < 32) {
                        pts[n][0] = p[0] + t * (q[0] - p[0]);
                        pts[n][1] = p[1] + t * (q[1] - p[1]);
                        ++n;
                    }
                }
            }
        }
    }
    return convexHull(pts, n, xy);
}

/* ---- grid ---- */

tpNavGridDef tpDefaultNavGridDef(void)
{
    tpNavGridDef d;
    memset(&d, 0, sizeof d);
    d.cell = 0.1;
    d.nx = 100;
    d.ny = 100;
    d.z_min = 0.0;
    d.z_max = 2.0;
    return d;
}

static bool gridDefValid(const tpNavGridDef *def, char *err, size_t errlen)
{
    if (!isfinite(def->x0) || !isfinite(def->y0)) {
        tpErrorf(err, errlen, "grid: x0 and y0 must be finite");
        return false;
    }
    if (!isfinite(def->cell) || def->cell <= 0) {
        tpErrorf(err, errlen, "grid: cell must be > 0 (got %g)", def->cell);
        return false;
    }
    if (def->nx < 1 || def->ny < 1 || (int64_t)def->nx * def->ny > TP_NAV_MAX_CELLS) {
        tpErrorf(err, errlen, "grid: nx and ny must be >= 1 with nx*ny <= %d (got %d x %d)", TP_NAV_MAX_CELLS, def->nx,
                 def->ny);
        return false;
    }
    if (!isfinite(def->z_min) || !isfinite(def->z_max) || def->z_min > def->z_max) {
        tpErrorf(err, errlen, "grid: z_min and z_max must be finite with z_min <= z_max");
        return false;
    }
    if (!isfinite(def->radius) || def->radius < 0) {
        tpErrorf(err, errlen, "grid: radius must be >= 0");
        return false;
    }
    return true;
}

tpNavGrid *tpCreateNavGrid(const tpNavGridDef *def, char *err, size_t errlen)
{
    if (!gridDefValid(def, err, errlen)) {
        return NULL;
    }
    tpNavGrid *g = calloc(1, sizeof *g);
    if (!g) {
        tpErrorf(err, errlen, "grid: out of memory");
        return NULL;
    }
    g->def = *def;
    g->cells = calloc((size_t)def->nx * (size_t)def->ny, 1);
    if (!g->cells) {
        free(g);
        tpErrorf(err, errlen, "grid: out of memory");
        return NULL;
    }
    return g;
}

void tpDestroyNavGrid(tpNavGrid *g)
{
    if (!g) {
        return;
    }
    free(g->cells);
    tpPages_Free(g->scratch, g->scratch_bytes);
    free(g->open.e);
    free(g);
}

const tpNavGridDef *tpNavGrid_Def(const tpNavGrid *g)
{
    return &g->def;
}

void tpNavGrid_Clear(tpNavGrid *g)
{
    memset(g->cells, 0, (size_t)g->def.nx * (size_t)g->def.ny);
}

bool tpNavGrid_CopyCells(tpNavGrid *dst, const tpNavGrid *src)
{
    if (dst->def.nx != src->def.nx || dst->def.ny != src->def.ny) {
        return false;
    }
    memcpy(dst->cells, src->cells, (size_t)src->def.nx * (size_t)src->def.ny);
    return true;
}

bool tpNavGrid_Reset(tpNavGrid *g, const tpNavGridDef *def, char *err, size_t errlen)
{
    if (!gridDefValid(def, err, errlen)) {
        return false;
    }
    if (def->nx != g->def.nx || def->ny != g->def.ny) {
        tpErrorf(err, errlen, "grid: reset to %d x %d cells, the grid has %d x %d", def->nx, def->ny, g->def.nx,
                 g->def.ny);
        return false;
    }
    g->def = *def;
    tpNavGrid_Clear(g);
    return true;
}

static void markRow(tpNavGrid *g, int j, int ilo, int ihi, int *count)
{
    uint8_t *row = g->cells + (size_t)j * (size_t)g->def.nx;
    for (int i = ilo; i <= ihi; ++i) {
        row[i] = TP_NAV_OBSTACLE;
    }
    *count += ihi - ilo + 1;
}

/* Convex polygon (hull order, n >= 1) in cell units. For each row whose open strip the polygon
 * meets, its x-range there is spanned by the vertices inside the closed strip and the crossings
 * of the edges with the strip's two lines. */
static int rasterPolygon(tpNavGrid *g, double (*p)[2], int n)
{
    double ymin = p[0][1], ymax = p[0][1];
    for (int k = 1; k < n; ++k) {
        ymin = fmin(ymin, p[k][1]);
        ymax = fmax(ymax, p[k][1]);
    }
    int jlo, jhi, count = 0;
    if (!cellRange(ymin, ymax, g->def.ny, &jlo, &jhi)) {
        return 0;
    }
    for (int j = jlo; j <= jhi; ++j) {
        double y0 = (double)j, y1 = (double)(j + 1);
        double xa = INFINITY, xb = -INFINITY;
        for (int k = 0; k < n; ++k) {
            const double *a = p[k], *b = p[(k + 1) % n];
            if (a[1] >= y0 && a[1] <= y1) {
                xa = fmin(xa, a[0]);
                xb = fmax(xb, a[0]);
            }
            if (a[1] != b[1]) {
                double lines[2] = {y0, y1};
                for (int c = 0; c < 2; ++c) {
                    double y = lines[c];
                    if ((a[1] < y && b[1] > y) || (a[1] > y && b[1] < y)) {
                        double x = a[0] + (y - a[1]) / (b[1] - a[1]) * (b[0] - a[0]);
                        xa = fmin(xa, x);
                        xb = fmax(xb, x);
                    }
                }
            }
        }
        int ilo, ihi;
        if (xa <= xb && cellRange(xa, xb, g->def.nx, &ilo, &ihi)) {
            markRow(g, j, ilo, ihi, &count);
        }
    }
    return count;
}

/* Disc (centre, radius in cell units): a cell is met iff the distance from the centre to the cell
 * square is < r. */
static int rasterDisc(tpNavGrid *g, double cx, double cy, double r)
{
    int jlo, jhi, count = 0;
    if (r <= 0 || !cellRange(cy - r, cy + r, g->def.ny, &jlo, &jhi)) {
        return 0;
    }
    for (int j = jlo; j <= jhi; ++j) {
        double dy = fmax(0.0, fmax((double)j - cy, cy - (double)(j + 1)));
        if (dy >= r) {
            continue;
        }
        double half = sqrt(r * r - dy * dy);
        int ilo, ihi;
        if (cellRange(cx - half, cx + half, g->def.nx, &ilo, &ihi)) {
            markRow(g, j, ilo, ihi, &count);
        }
    }
    return count;
}

int tpNavGrid_AddShape(tpNavGrid *g, const tpNavShape *s, char *err, size_t errlen)
{
    if (!tpNav_ShapeValidate(s, err, errlen)) {
        return -1;
    }
    const tpNavGridDef *d = &g->def;
    const double h = d->cell;
    double xy[32][2];
    int n = 0;
    switch (s->kind) {
    case TP_NAV_BOX:
    case TP_NAV_POLYGON:
        n = tpNav_Footprint(s, d->z_min, d->z_max, xy);
        for (int k = 0; k < n; ++k) {
            xy[k][0] = toCell(xy[k][0], d->x0, h);
            xy[k][1] = toCell(xy[k][1], d->y0, h);
        }
        return n > 0 ? rasterPolygon(g, xy, n) : 0;
    case TP_NAV_SPHERE: {
        double dz = fmax(0.0, fmax(d->z_min - s->center[2], s->center[2] - d->z_max));
        if (dz >= s->radius) {
            return 0;
        }
        double r = sqrt(s->radius * s->radius - dz * dz);
        return rasterDisc(g, toCell(s->center[0], d->x0, h), toCell(s->center[1], d->y0, h), r / h);
    }
    case TP_NAV_DISC:
        if (s->z_hi < d->z_min || s->z_lo > d->z_max) {
            return 0;
        }
        return rasterDisc(g, toCell(s->center[0], d->x0, h), toCell(s->center[1], d->y0, h), s->radius / h);
    case TP_NAV_HALFSPACE: {
        /* Projection onto xy: a x + b y <= d - min over the band of c z. */
        double a = s->plane[0], b = s->plane[1], c = s->plane[2];
        double rhs = s->plane[3] - fmin(c * d->z_min, c * d->z_max);
        if (a == 0 && b == 0) {
            if (rhs < 0) {
                return 0;
            }
            for (int j = 0; j < d->ny; ++j) {
                int count = 0;
                markRow(g, j, 0, d->nx - 1, &count);
            }
            return d->nx * d->ny;
        }
        /* In cell units: a u + b v <= (rhs - a x0 - b y0) / h; clip a rectangle one cell larger than
         * the grid (its extra edges lie outside the grid and change no cell). */
        double r = (rhs - a * d->x0 - b * d->y0) / h;
        double rect[4][2] = {{-1, -1}, {d->nx + 1.0, -1}, {d->nx + 1.0, d->ny + 1.0}, {-1, d->ny + 1.0}};
        for (int k = 0; k < 4; ++k) {
            const double *p = rect[k], *q = rect[(k + 1) % 4];
            double fp = a * p[0] + b * p[1] - r, fq = a * q[0] + b * q[1] - r;
            if (fp <= 0) {
                xy[n][0] = p[0];
                xy[n][1] = p[1];
                ++n;
            }
            if ((fp < 0 && fq > 0) || (fp > 0 && fq < 0)) {
                double t = fp / (fp - fq);
                xy[n][0] = p[0] + t * (q[0] - p[0]);
                xy[n][1] = p[1] + t * (q[1] - p[1]);
                ++n;
            }
        }
        for (int k = 0; k < n; ++k) { /* snap the crossings like every other coordinate */
            double rx = nearbyint(xy[k][0]), ry = nearbyint(xy[k][1]);
            xy[k][0] = fabs(xy[k][0] - rx) < 1e-9 ? rx : xy[k][0];
            xy[k][1] = fabs(xy[k][1] - ry) < 1e-9 ? ry : xy[k][1];
        }
        return n > 0 ? rasterPolygon(g, xy, n) : 0;
    }
    }
    return 0;
}

void tpNavGrid_SetObstacle(tpNavGrid *g, int i, int j, bool obstacle)
{
    if (i < 0 || j < 0 || i >= g->def.nx || j >= g->def.ny) {
        return;
    }
    g->cells[(size_t)j * (size_t)g->def.nx + (size_t)i] = obstacle ? TP_NAV_OBSTACLE : TP_NAV_FREE;
}

/* Growth: the nearest obstacle cell to a free cell always has a non-obstacle 4-neighbour (moving
 * an obstacle square one cell toward the free cell strictly reduces the distance), so dilating
 * only the boundary obstacle cells by the disc of offsets gives the full result. Marks GROWN the
 * FREE cells of dst within r cells of an OBSTACLE cell of src (same size; dst == src allowed:
 * only FREE cells change, and a GROWN cell is as much "not an obstacle" as a FREE one, so the
 * boundary found in src does not change under the marking). r <= 0: nothing. */
static void growFrom(tpNavGrid *dst, const tpNavGrid *src, double r)
{
    const int nx = src->def.nx, ny = src->def.ny;
    if (r <= 0) {
        return;
    }
    int kmax = (int)ceil(r + 0.5);
    if (kmax > nx + ny) {
        kmax = nx + ny;
    }
    /* The stamp around an obstacle cell: the cells (dx, dy), |dx|, |dy| <= kmax, whose nearest
     * point is closer than r (ex, ey: the gaps along each axis). For each dy these are one run
     * |dx| <= half[dy] (ex grows with |dx|), or none (half -1). */
    int *half = malloc(sizeof(int) * (size_t)(2 * kmax + 1));
    int *edge = malloc(sizeof(int) * (size_t)nx); /* one row's boundary cells, increasing i */
    if (!half || !edge) {
        free(half);
        free(edge);
        return;
    }
    for (int dy = -kmax; dy <= kmax; ++dy) {
        double ey = fmax(fabs((double)dy) - 0.5, 0.0);
        int w = -1;
        for (int dx = 0; dx <= kmax; ++dx) {
            double ex = fmax((double)dx - 0.5, 0.0);
            if (ex * ex + ey * ey < r * r) {
                w = dx;
            }
        }
        half[dy + kmax] = w;
    }
    /* Every obstacle cell on the boundary of the obstacles (a 4-neighbour is not an obstacle)
     * stamps its neighbourhood: free cells there become GROWN. The stamps of one row's boundary
     * cells onto one target row are runs of equal width in increasing order, so they are merged
     * before marking: each target cell is visited about once per (source row, dy) instead of once
     * per stamp (the same cells end up GROWN: only FREE cells change, and never a source). */
    for (int j = 0; j < ny; ++j) {
        const uint8_t *row = src->cells + (size_t)j * nx;
        if (memchr(row, TP_NAV_OBSTACLE, (size_t)nx) == NULL) {
            continue; /* no obstacle in the row: no boundary cell either */
        }
        int nedge = 0;
        for (int i = 0; i < nx; ++i) {
            const uint8_t *c = row + i;
            if (*c == TP_NAV_OBSTACLE &&
                ((i > 0 && c[-1] != TP_NAV_OBSTACLE) || (i + 1 < nx && c[1] != TP_NAV_OBSTACLE) ||
                 (j > 0 && c[-nx] != TP_NAV_OBSTACLE) || (j + 1 < ny && c[nx] != TP_NAV_OBSTACLE))) {
                edge[nedge++] = i;
            }
        }
        if (nedge == 0) {
            continue;
        }
        for (int dy = -kmax; dy <= kmax; ++dy) {
            const int jj = j + dy, w = half[dy + kmax];
            if (jj < 0 || jj >= ny || w < 0) {
                continue;
            }
            uint8_t *target = dst->cells + (size_t)jj * nx;
            int lo = 0, hi = -1; /* the merged run being built; empty */
            for (int e = 0; e <= nedge; ++e) {
                const int i = e < nedge ? edge[e] : nx;
                int a = i - w, b = i + w; /* this cell's run (e == nedge: flush) */
                if (e == nedge || a > hi + 1) {
                    lo = lo < 0 ? 0 : lo;
                    hi = hi >= nx ? nx - 1 : hi;
                    for (int t = lo; t <= hi; ++t) {
                        if (target[t] == TP_NAV_FREE) {
                            target[t] = TP_NAV_GROWN;
                        }
                    }
                    lo = a;
                    hi = b;
                } else {
                    hi = b;
                }
            }
        }
    }
    free(half);
    free(edge);
}

void tpNavGrid_Grow(tpNavGrid *g, double radius)
{
    const size_t n = (size_t)g->def.nx * (size_t)g->def.ny;
    for (size_t k = 0; k < n; ++k) {
        if (g->cells[k] == TP_NAV_GROWN) {
            g->cells[k] = TP_NAV_FREE;
        }
    }
    g->def.radius = radius > 0 && isfinite(radius) ? radius : 0.0;
    growFrom(g, g, g->def.radius / g->def.cell);
}

bool tpNavGrid_AddGrown(tpNavGrid *dst, const tpNavGrid *src)
{
    if (dst->def.nx != src->def.nx || dst->def.ny != src->def.ny) {
        return false;
    }
    const size_t nx = (size_t)src->def.nx;
    for (size_t j = 0; j < (size_t)src->def.ny; ++j) {
        const uint8_t *row = src->cells + j * nx;
        if (memchr(row, TP_NAV_OBSTACLE, nx) == NULL) {
            continue; /* src is mostly empty (a few moving bodies): most rows are skipped */
        }
        uint8_t *out = dst->cells + j * nx;
        for (size_t i = 0; i < nx; ++i) {
            if (row[i] == TP_NAV_OBSTACLE) {
                out[i] = TP_NAV_OBSTACLE;
            }
        }
    }
    growFrom(dst, src, dst->def.radius / dst->def.cell);
    return true;
}

int tpNavGrid_Cell(const tpNavGrid *g, int i, int j)
{
    if (i < 0 || j < 0 || i >= g->def.nx || j >= g->def.ny) {
        return TP_NAV_OBSTACLE;
    }
    return g->cells[(size_t)j * (size_t)g->def.nx + (size_t)i];
}

bool tpNavGrid_Blocked(const tpNavGrid *g, int i, int j)
{
    return tpNavGrid_Cell(g, i, j) != TP_NAV_FREE;
}

bool tpNavGrid_NearestFree(const tpNavGrid *g, int *i, int *j)
{
    const tpNavGridDef *d = tpNavGrid_Def(g);
    int ci = *i < 0 ? 0 : *i >= d->nx ? d->nx - 1 : *i, cj = *j < 0 ? 0 : *j >= d->ny ? d->ny - 1 : *j;
    int rmax = d->nx > d->ny ? d->nx : d->ny;
    for (int r = 0; r <= rmax; ++r) {
        for (int dj = -r; dj <= r; ++dj) {
            for (int di = -r; di <= r; ++di) {
                if ((abs(di) == r || abs(dj) == r) && !tpNavGrid_Blocked(g, ci + di, cj + dj)) {
                    *i = ci + di;
                    *j = cj + dj;
                    return true;
                }
            }
        }
    }
    return false;
}

bool tpNavGrid_CellOf(const tpNavGrid *g, double x, double y, int *i, int *j)
{
    double u = floor((x - g->def.x0) / g->def.cell), v = floor((y - g->def.y0) / g->def.cell);
    if (!(u >= 0 && v >= 0 && u < g->def.nx && v < g->def.ny)) {
        return false;
    }
    *i = (int)u;
    *j = (int)v;
    return true;
}

void tpNavGrid_CellCenter(const tpNavGrid *g, int i, int j, double xy[2])
{
    xy[0] = g->def.x0 + ((double)i + 0.5) * g->def.cell;
    xy[1] = g->def.y0 + ((double)j + 0.5) * g->def.cell;
}

int tpNavGrid_BlockedCount(const tpNavGrid *g)
{
    size_t n = (size_t)g->def.nx * (size_t)g->def.ny;
    int count = 0;
    for (size_t k = 0; k < n; ++k) {
        count += g->cells[k] != TP_NAV_FREE;
    }
    return count;
}
