/* Harmonic potential fields for pedestrians (Dapper 2007): global harmonic maps relaxed by
 * red-black SOR, per-agent biased local maps (Eq. 5.1), gradient descent with inertia and the
 * speed governor of Table 5.2. See tp/nav.h for the conventions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nav_internal.h"
#include "tp/base.h"

tpNavFieldDef tpDefaultNavFieldDef(void)
{
    tpNavFieldDef d;
    d.omega = 1.0;
    d.tol = 1e-9;
    d.max_iters = 200000;
    return d;
}

static double fieldU(const tpNavField *f, int i, int j)
{
    if (i < 0 || j < 0 || i >= f->nx || j >= f->ny) {
        return 0.0;
    }
    return f->u[(size_t)j * f->nx + i];
}

/* Relative residual of one free cell: |mean - u| / mean (0 when the mean is 0 and u is 0). */
static double cellResidual(const tpNavField *f, int i, int j, double *mean)
{
    double m = ((fieldU(f, i - 1, j) + fieldU(f, i + 1, j)) + (fieldU(f, i, j - 1) + fieldU(f, i, j + 1))) * 0.25;
    *mean = m;
    double u = f->u[(size_t)j * f->nx + i];
    if (m > 0) {
        return fabs(m - u) / m;
    }
    return u == 0 ? 0.0 : 1.0;
}

static double fullResidual(const tpNavField *f)
{
    double r = 0, m;
    for (int j = 0; j < f->ny; ++j) {
        for (int i = 0; i < f->nx; ++i) {
            if (f->kind[(size_t)j * f->nx + i] == F_FREE) {
                r = fmax(r, cellResidual(f, i, j, &m));
            }
        }
    }
    return r;
}

/* Not under ThreadSanitizer (GCC defines __SANITIZE_THREAD__; TP_TSAN builds define TP_NO_CLONES):
 * the clones' IFUNC resolver runs while the dynamic loader relocates libtplan, before the TSan
 * runtime is initialised, and its instrumented code crashed every program at start. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) &&                           \
    !defined(__SANITIZE_THREAD__) && !defined(TP_NO_CLONES)
/* AVX2 doubles the lanes where the CPU has it (chosen once at load time). The same IEEE
 * additions and multiplications either way (the build does not contract them into FMAs: C17
 * without GNU extensions), so every clone gives the same bits. */
#define TP_RELAX_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TP_RELAX_CLONES
#endif

/* The bits of a where mask is set, else those of b (a select the compiler vectorises). */
static inline double selectBits(uint64_t mask, double a, double b)
{
    uint64_t ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    ub = (ua & mask) | (ub & ~mask);
    memcpy(&b, &ub, sizeof b);
    return b;
}

/* tpCreateNavField's red-black SOR in a packed layout: the grid padded with a zero row below and
 * above and zero columns on the right (to an odd width W; a cell outside the grid counts 0 in the
 * mean, as a padding cell does), cell p = (j + 1) W + i at [p / 2] of the array of p's parity. As
 * in tpNav_RelaxSweeps, the four neighbours are then at constant offsets in the other array and a
 * half-sweep is one flat loop; every free cell gets cellResidual's mean and the update
 * u + omega (m - u) with the same operations in the same order, the others (and the padding) are
 * kept. */
typedef struct SorPack {
    int w, half;       /* padded width (odd); cells per array */
    double *q[2];      /* values by parity of p, owned */
    uint64_t *keep[2]; /* all ones: not free (kept) */
} SorPack;

/* One half-sweep over the cells of one parity: D and keep theirs, O the other parity, cells
 * i0..i1, neighbour offsets west (east = west + 1), south and north. With `check`, returns whether
 * some free cell's residual before its update is above tol (cellResidual > tol), else false. */
TP_RELAX_CLONES static bool sorHalf(double *restrict D, const uint64_t *restrict keep, const double *restrict O, int i0,
                                    int i1, int west, int south, int north, double omega, double tol, bool check)
{
    const double *Ow = O + west, *Oe = O + west + 1, *Os = O + south, *On = O + north;
    if (!check) {
        for (int i = i0; i <= i1; ++i) {
            double m = ((Ow[i] + Oe[i]) + (Os[i] + On[i])) * 0.25, uc = D[i];
            D[i] = selectBits(keep[i], uc, uc + omega * (m - uc));
        }
        return false;
    }
    uint64_t over = 0;
    const uint64_t flat = 1.0 > tol ? ~(uint64_t)0 : 0; /* a zero mean beside a nonzero u: residual 1 */
    for (int i = i0; i <= i1; ++i) {
        double m = ((Ow[i] + Oe[i]) + (Os[i] + On[i])) * 0.25, uc = D[i];
        double r = fabs(m - uc) / m; /* used only where m > 0 */
        uint64_t pos = m > 0 ? ~(uint64_t)0 : 0, big = r > tol ? ~(uint64_t)0 : 0, nz = uc != 0 ? ~(uint64_t)0 : 0;
        over |= ~keep[i] & ((pos & big) | (~pos & nz & flat));
        D[i] = selectBits(keep[i], uc, uc + omega * (m - uc));
    }
    return over != 0;
}

/* Solves f's map in place (u and kind set up) and returns the sweep count, as the plain loop:
 * sweeps of both colours until no free cell's residual is above tol, at most max_iters. -1 when
 * out of memory. */
static int sorSolve(tpNavField *f, double omega, double tol, int max_iters)
{
    const int nx = f->nx, ny = f->ny, w = nx % 2 ? nx + 2 : nx + 1, cells = w * (ny + 2);
    SorPack k = {w, (cells + 1) / 2, {NULL, NULL}, {NULL, NULL}};
    for (int par = 0; par < 2; ++par) {
        k.q[par] = calloc((size_t)k.half, sizeof(double));
        k.keep[par] = malloc((size_t)k.half * sizeof(uint64_t));
    }
    int it = -1;
    if (k.q[0] && k.q[1] && k.keep[0] && k.keep[1]) {
        for (int par = 0; par < 2; ++par) {
            for (int i = 0; i < k.half; ++i) {
                k.keep[par][i] = ~(uint64_t)0;
            }
        }
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                int p = (j + 1) * w + i;
                size_t c = (size_t)j * nx + i;
                k.q[p & 1][p / 2] = f->u[c];
                k.keep[p & 1][p / 2] = f->kind[c] == F_FREE ? 0 : ~(uint64_t)0;
            }
        }
        /* rows 1..ny of the padded grid: p in [w, w (ny + 1) - 1]; cell (i, j) of colour
         * (i + j) & 1 has parity 1 - colour (w is odd), so colour 0 is the odd p */
        const int p0 = w, p1 = w * (ny + 1) - 1, up = (w + 1) / 2, dn = (w - 1) / 2;
        const int plast_odd = p1 & 1 ? p1 : p1 - 1, plast_even = p1 & 1 ? p1 - 1 : p1;
        const int o0 = (p0 - 1) / 2, o1 = (plast_odd - 1) / 2; /* odd p: index (p - 1) / 2; p0 is odd */
        const int e0 = (p0 + 1) / 2, e1 = plast_even / 2;      /* even p: index p / 2 */
        for (it = 0; it < max_iters; ++it) {
            bool over = sorHalf(k.q[1], k.keep[1], k.q[0], o0, o1, 0, -dn, up, omega, tol, true);
            over = sorHalf(k.q[0], k.keep[0], k.q[1], e0, e1, -1, -up, dn, omega, tol, !over) || over;
            if (!over) {
                ++it;
                break;
            }
        }
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                int p = (j + 1) * w + i;
                f->u[(size_t)j * nx + i] = k.q[p & 1][p / 2];
            }
        }
    }
    for (int par = 0; par < 2; ++par) {
        free(k.q[par]);
        free(k.keep[par]);
    }
    return it;
}

tpNavField *tpCreateNavField(const tpNavGrid *grid, const int *goals, int ngoals, const tpNavFieldDef *def, char *err,
                             size_t errlen)
{
    tpNavFieldDef d = def ? *def : tpDefaultNavFieldDef();
    const tpNavGridDef *gd = tpNavGrid_Def(grid);
    if (ngoals < 1) {
        tpErrorf(err, errlen, "field: at least one goal cell is required");
        return NULL;
    }
    for (int k = 0; k < ngoals; ++k) {
        if (tpNavGrid_Blocked(grid, goals[2 * k], goals[2 * k + 1])) {
            tpErrorf(err, errlen, "field: goal %d (cell %d, %d) is blocked or outside the grid", k, goals[2 * k],
                     goals[2 * k + 1]);
            return NULL;
        }
    }
    if (d.omega == 0.0) {
        int nmax = gd->nx > gd->ny ? gd->nx : gd->ny;
        d.omega = 2.0 / (1.0 + sin(TP_PI / (nmax + 1)));
    }
    if (!(d.omega >= 1.0 && d.omega < 2.0) || !(d.tol > 0) || d.max_iters < 1) {
        tpErrorf(err, errlen, "field: omega must be in [1, 2), tol > 0 and max_iters >= 1");
        return NULL;
    }
    tpNavField *f = calloc(1, sizeof *f);
    size_t n = (size_t)gd->nx * (size_t)gd->ny;
    int32_t *queue = malloc(n * sizeof *queue);
    int32_t *dist = malloc(n * sizeof *dist);
    if (!f || !queue || !dist || !(f->kind = malloc(n)) || !(f->u = calloc(n, sizeof *f->u))) {
        free(queue);
        free(dist);
        tpDestroyNavField(f);
        tpErrorf(err, errlen, "field: out of memory");
        return NULL;
    }
    f->nx = gd->nx;
    f->ny = gd->ny;
    f->x0 = gd->x0;
    f->y0 = gd->y0;
    f->cell = gd->cell;
    /* Breadth-first 4-connectivity from the goals; the initial guess 2^-dist is positive on every
     * connected cell, so "not reached yet" never looks converged. */
    size_t head = 0, tail = 0;
    for (size_t k = 0; k < n; ++k) {
        f->kind[k] = tpNavGrid_Blocked(grid, (int)(k % gd->nx), (int)(k / gd->nx)) ? F_WALL : F_CUT;
        dist[k] = -1;
    }
    for (int k = 0; k < ngoals; ++k) {
        size_t c = (size_t)goals[2 * k + 1] * gd->nx + goals[2 * k];
        if (f->kind[c] != F_GOAL) {
            f->kind[c] = F_GOAL;
            f->u[c] = 1.0;
            dist[c] = 0;
            queue[tail++] = (int32_t)c;
        }
    }
    while (head < tail) {
        int32_t c = queue[head++];
        int ci = c % gd->nx, cj = c / gd->nx;
        const int di[4] = {1, -1, 0, 0}, dj[4] = {0, 0, 1, -1};
        for (int k = 0; k < 4; ++k) {
            int ni = ci + di[k], nj = cj + dj[k];
            if (ni < 0 || nj < 0 || ni >= gd->nx || nj >= gd->ny) {
                continue;
            }
            size_t nc = (size_t)nj * gd->nx + ni;
            if (f->kind[nc] == F_CUT) {
                f->kind[nc] = F_FREE;
                dist[nc] = dist[c] + 1;
                f->u[nc] = fmax(ldexp(1.0, -dist[nc]), 1e-300);
                queue[tail++] = (int32_t)nc;
            }
        }
    }
    free(queue);
    free(dist);
    /* Red-black SOR (Gauss-Seidel for omega = 1). Measured on mazes: with omega > 1 the relative
     * residual in deep dead ends (u ~ 1e-24 and below) stalls between 1e-13 and 1e-1, while
     * Gauss-Seidel reaches the floating-point fixed point (residual 0); hence the default 1. */
    int it = sorSolve(f, d.omega, d.tol, d.max_iters);
    if (it < 0) {
        tpDestroyNavField(f);
        tpErrorf(err, errlen, "field: out of memory");
        return NULL;
    }
    f->iters = it;
    f->residual = fullResidual(f);
    TP_VALIDATE(tpNavField_Valid, f);
    return f;
}

void tpDestroyNavField(tpNavField *f)
{
    if (!f) {
        return;
    }
    free(f->kind);
    free(f->u);
    free(f);
}

int tpNavField_Iterations(const tpNavField *f)
{
    return f->iters;
}
double tpNavField_Residual(const tpNavField *f)
{
    return f->residual;
}
double tpNavField_Closeness(const tpNavField *f, int i, int j)
{
    return fieldU(f, i, j);
}

bool tpNavField_IsGoal(const tpNavField *f, int i, int j)
{
    return i >= 0 && j >= 0 && i < f->nx && j < f->ny && f->kind[(size_t)j * f->nx + i] == F_GOAL;
}

static bool fieldCellOf(const tpNavField *f, double x, double y, int *i, int *j)
{
    double u = floor((x - f->x0) / f->cell), v = floor((y - f->y0) / f->cell);
    if (!(u >= 0 && v >= 0 && u < f->nx && v < f->ny)) {
        return false;
    }
    *i = (int)u;
    *j = (int)v;
    return true;
}

bool tpNavField_Descent(const tpNavField *f, double x, double y, double dir[2])
{
    dir[0] = dir[1] = 0.0;
    int i, j;
    if (!fieldCellOf(f, x, y, &i, &j) || f->kind[(size_t)j * f->nx + i] == F_WALL) {
        return false;
    }
    double gx = (fieldU(f, i + 1, j) - fieldU(f, i - 1, j)) * 0.5;
    double gy = (fieldU(f, i, j + 1) - fieldU(f, i, j - 1)) * 0.5;
    /* rescale before the norm: deep in a maze both components can be ~1e-300 */
    double s = fmax(fabs(gx), fabs(gy));
    if (!(s > 0)) {
        return false;
    }
    gx /= s;
    gy /= s;
    double len = hypot(gx, gy);
    dir[0] = gx / len;
    dir[1] = gy / len;
    return true;
}

/* ---- pedestrians ---- */

tpNavPedDef tpDefaultNavPedDef(void)
{
    tpNavPedDef d;
    memset(&d, 0, sizeof d);
    d.dir[0] = 1.0;
    d.radius = 0.25;
    d.step = 0.05;
    d.ma = 1.0;
    d.behaviour = TP_NAV_BEHAVE_CONSTANT;
    d.sine_w = TP_PI / 18.0;
    d.n = 15;
    d.relax = 30;
    d.free_width = 1;
    return d;
}

tpNavCrowd *tpCreateNavCrowd(const tpNavGrid *grid, char *err, size_t errlen)
{
    if (!grid) {
        tpErrorf(err, errlen, "crowd: no grid");
        return NULL;
    }
    tpNavCrowd *c = calloc(1, sizeof *c);
    if (!c) {
        tpErrorf(err, errlen, "crowd: out of memory");
        return NULL;
    }
    c->grid = grid;
    return c;
}

void tpDestroyNavCrowd(tpNavCrowd *c)
{
    if (!c) {
        return;
    }
    for (int k = 0; k < c->n; ++k) {
        free(c->peds[k].local);
        free(c->peds[k].fixed);
    }
    free(c->peds);
    free(c->scratch);
    free(c->others);
    free(c);
}

int tpNavCrowd_Add(tpNavCrowd *c, const tpNavPedDef *def, char *err, size_t errlen)
{
    const tpNavPedDef *d = def;
    if (!isfinite(d->pos[0]) || !isfinite(d->pos[1])) {
        tpErrorf(err, errlen, "pedestrian: pos must be finite");
        return -1;
    }
    if (!(d->radius >= 0) || !(d->step >= 0) || !(d->ma >= 0) || !isfinite(d->radius + d->step + d->ma)) {
        tpErrorf(err, errlen, "pedestrian: radius, step and ma must be finite and >= 0");
        return -1;
    }
    if (!(d->eps >= -2.0 && d->eps <= 2.0)) {
        tpErrorf(err, errlen, "pedestrian: eps must be in [-2, 2] (got %g)", d->eps);
        return -1;
    }
    if (d->n < 5 || d->n > 63 || d->n % 2 == 0) {
        tpErrorf(err, errlen, "pedestrian: n must be odd in 5..63 (got %d)", d->n);
        return -1;
    }
    if (d->relax < 1 || d->free_width < 0 || d->free_width > d->n / 2 - 1) {
        tpErrorf(err, errlen, "pedestrian: relax must be >= 1 and free_width in 0..%d", d->n / 2 - 1);
        return -1;
    }
    if (d->ngoals < 1 || d->ngoals > TP_NAV_MAX_GOALS) {
        tpErrorf(err, errlen, "pedestrian: ngoals must be in 1..%d (got %d)", TP_NAV_MAX_GOALS, d->ngoals);
        return -1;
    }
    for (int k = 0; k < d->ngoals; ++k) {
        if (!d->goals[k] || d->goals[k]->nx != tpNavGrid_Def(c->grid)->nx ||
            d->goals[k]->ny != tpNavGrid_Def(c->grid)->ny) {
            tpErrorf(err, errlen, "pedestrian: goals[%d] is missing or made on another grid size", k);
            return -1;
        }
    }
    if ((size_t)c->n == c->cap) {
        size_t cap = tpArray_NextCap(c->cap, c->cap + 1, sizeof(tpNavPed) + 7 * sizeof(double));
        tpNavPed *p = cap ? tpArray_Resize(c->peds, cap, sizeof *p) : NULL;
        double *s = p ? tpArray_Resize(c->scratch, cap, 4 * sizeof(double)) : NULL;
        if (p) {
            c->peds = p;
        }
        if (s) {
            c->scratch = s;
        }
        double *o = s ? tpArray_Resize(c->others, cap, 3 * sizeof(double)) : NULL;
        if (!p || !s || !o) {
            tpErrorf(err, errlen, "crowd: out of memory");
            return -1;
        }
        c->others = o;
        c->cap = cap;
    }
    tpNavPed *p = &c->peds[c->n];
    memset(p, 0, sizeof *p);
    p->def = *d;
    p->pos[0] = d->pos[0];
    p->pos[1] = d->pos[1];
    double len = hypot(d->dir[0], d->dir[1]);
    p->dir[0] = len > 0 ? d->dir[0] / len : 1.0;
    p->dir[1] = len > 0 ? d->dir[1] / len : 0.0;
    p->speed_factor = 1.0;
    p->local = malloc(sizeof(double) * (size_t)d->n * d->n);
    p->fixed = malloc((size_t)d->n * d->n);
    if (!p->local || !p->fixed) {
        free(p->local);
        free(p->fixed);
        tpErrorf(err, errlen, "crowd: out of memory");
        return -1;
    }
    return c->n++;
}

int tpNavCrowd_Count(const tpNavCrowd *c)
{
    return c->n;
}
const tpNavPed *tpNavCrowd_Ped(const tpNavCrowd *c, int k)
{
    return &c->peds[k];
}

double tpNav_SpeedGovernor(double c)
{
    if (c < 0.01) {
        return 0.0;
    }
    if (c < 0.30) {
        return 0.05;
    }
    if (c < 0.60) {
        return 0.2;
    }
    if (c < 0.71) {
        return 0.5;
    }
    if (c < 0.92) {
        return 0.8;
    }
    return 1.0;
}

void tpNav_RelaxBiased(double *phi, const uint8_t *fixed, int n, double eps, const double v[2])
{
    const double ex = eps * v[0] / 8.0, ey = eps * v[1] / 8.0;
    if (ex == 0.0 && ey == 0.0) {
        /* No bias (follow_field's local maps): the bias term below is then (e - w) * 0 + (no - s) * 0
         * = +-0 for the finite values of a map, and x + (+-0) == x for every x >= +0 the mean gives,
         * so dropping it changes no bit and saves a third of the work of the crowd's hottest loop. */
        for (int colour = 0; colour < 2; ++colour) {
            for (int b = 1; b < n - 1; ++b) {
                for (int a = 1 + ((b + 1 + colour) & 1); a < n - 1; a += 2) {
                    size_t c = (size_t)b * n + a;
                    if (!fixed[c]) {
                        phi[c] = ((phi[c - 1] + phi[c + 1]) + (phi[c - n] + phi[c + n])) * 0.25;
                    }
                }
            }
        }
        return;
    }
    for (int colour = 0; colour < 2; ++colour) {
        for (int b = 1; b < n - 1; ++b) {
            for (int a = 1 + ((b + 1 + colour) & 1); a < n - 1; a += 2) {
                size_t c = (size_t)b * n + a;
                if (fixed[c]) {
                    continue;
                }
                double w = phi[c - 1], e = phi[c + 1], s = phi[c - n], no = phi[c + n];
                phi[c] = ((w + e) + (s + no)) * 0.25 + ((e - w) * ex + (no - s) * ey);
            }
        }
    }
}

/* tpNav_RelaxSweeps' packed layout of an n x n map, n odd: the cell c = b n + a has the colour
 * of c's parity ((a + b) & 1, colour 0 first as in tpNav_RelaxBiased) and sits at [c / 2] of its
 * colour's array. A cell's four neighbours c -+ 1, c -+ n are all of the other colour, at constant
 * offsets: for an even c (index i) at i - 1, i, i - (n + 1) / 2, i + (n - 1) / 2; for an odd c at
 * i, i + 1, i - (n - 1) / 2, i + (n + 1) / 2. So a half-sweep is one flat loop the compiler
 * vectorises; every cell gets the same operations in the same order as in tpNav_RelaxBiased, the
 * cells of one colour read only the other colour (the order within a half-sweep changes no bit),
 * and the border cells of the rows swept are computed but kept, like the fixed ones. */
enum { RELAX_MAX_N = 63, RELAX_MAX_HALF = (RELAX_MAX_N * RELAX_MAX_N + 1) / 2 };

/* One half-sweep: D[i0..i1] the cells of the colour being updated, keep their masks (all ones:
 * fixed or border), O the other colour; west, south and north are the offsets of the neighbours
 * in O from i (east is west + 1). */
TP_RELAX_CLONES static void relaxHalf(double *restrict D, const uint64_t *restrict keep, const double *restrict O,
                                      int i0, int i1, int west, int south, int north, double ex, double ey)
{
    const double *Ow = O + west, *Oe = O + west + 1, *Os = O + south, *On = O + north;
    if (ex == 0.0 && ey == 0.0) { /* as tpNav_RelaxBiased's unbiased loop: no bias term */
        for (int i = i0; i <= i1; ++i) {
            double nv = ((Ow[i] + Oe[i]) + (Os[i] + On[i])) * 0.25;
            D[i] = selectBits(keep[i], D[i], nv);
        }
        return;
    }
    for (int i = i0; i <= i1; ++i) {
        double w = Ow[i], e = Oe[i], s = Os[i], no = On[i];
        double nv = ((w + e) + (s + no)) * 0.25 + ((e - w) * ex + (no - s) * ey);
        D[i] = selectBits(keep[i], D[i], nv);
    }
}

void tpNav_RelaxSweeps(double *phi, const uint8_t *fixed, int n, double eps, const double v[2], int sweeps)
{
    if (n < 3 || n > RELAX_MAX_N || n % 2 == 0) {
        for (int r = 0; r < sweeps; ++r) {
            tpNav_RelaxBiased(phi, fixed, n, eps, v);
        }
        return;
    }
    const double ex = eps * v[0] / 8.0, ey = eps * v[1] / 8.0; /* as tpNav_RelaxBiased */
    double P[2][RELAX_MAX_HALF];                               /* values per colour */
    uint64_t K[2][RELAX_MAX_HALF];                             /* keep masks per colour */
    const int nn = n * n, half = nn / 2; /* cells 2 i and 2 i + 1 for i < half, then cell nn - 1 */
    for (int i = 0; i < half; ++i) {
        P[0][i] = phi[2 * i];
        P[1][i] = phi[2 * i + 1];
        K[0][i] = fixed[2 * i] ? ~(uint64_t)0 : 0;
        K[1][i] = fixed[2 * i + 1] ? ~(uint64_t)0 : 0;
    }
    P[0][half] = phi[nn - 1];
    K[0][half] = ~(uint64_t)0;
    for (int b = 1; b < n - 1; ++b) { /* the border cells of the rows swept are kept */
        int w = b * n, e = b * n + n - 1;
        K[w & 1][w / 2] = K[e & 1][e / 2] = ~(uint64_t)0;
    }
    /* the rows 1..n-2: cells c0..c1, both odd (n is) */
    const int c0 = n, c1 = n * (n - 1) - 1, up = (n + 1) / 2, dn = (n - 1) / 2;
    for (int r = 0; r < sweeps; ++r) {
        relaxHalf(P[0], K[0], P[1], (c0 + 1) / 2, (c1 - 1) / 2, -1, -up, dn, ex, ey);
        relaxHalf(P[1], K[1], P[0], (c0 - 1) / 2, (c1 - 1) / 2, 0, -dn, up, ex, ey);
    }
    for (int i = (c0 - 1) / 2; i <= (c1 - 1) / 2; ++i) { /* cells c0 - 1..c1: even and odd in turn */
        phi[2 * i] = P[0][i];
        phi[2 * i + 1] = P[1][i];
    }
}

enum { TP_NAV_LOCAL_MAX = 64 }; /* local map orders up to this keep their cell centres in a table */

/* floor(v) as an int, for |v| < 2^31 (truncation, one down for a negative non-integer). */
static inline int floorInt(double v)
{
    int i = (int)v;
    return i - (v < (double)i);
}

static void unit(double v[2])
{
    double s = fmax(fabs(v[0]), fabs(v[1]));
    if (!(s > 0)) {
        return;
    }
    v[0] /= s;
    v[1] /= s;
    double l = hypot(v[0], v[1]);
    v[0] /= l;
    v[1] /= l;
}

/* Computes pedestrian k's next position and heading into out[0..3] (positions of all others are
 * read from the crowd, unchanged during the step). */
static void pedNext(tpNavCrowd *c, int k, int t, double out[4])
{
    tpNavPed *p = &c->peds[k];
    const tpNavPedDef *d = &p->def;
    out[0] = p->pos[0];
    out[1] = p->pos[1];
    out[2] = p->dir[0];
    out[3] = p->dir[1];
    int ci, cj;
    if (p->goal >= d->ngoals || !tpNavGrid_CellOf(c->grid, p->pos[0], p->pos[1], &ci, &cj)) {
        p->speed_factor = 0.0;
        return;
    }
    const tpNavField *field = d->goals[p->goal];
    const int n = d->n;
    /* warm start: shift last step's map with the agent; unknown cells start at 1 */
    double *phi = p->local;
    if (p->has_local && (ci != p->ci || cj != p->cj)) {
        int si = ci - p->ci, sj = cj - p->cj;
        int a0 = si >= 0 ? 0 : n - 1, a1 = si >= 0 ? n : -1, da = si >= 0 ? 1 : -1;
        int b0 = sj >= 0 ? 0 : n - 1, b1 = sj >= 0 ? n : -1, db = sj >= 0 ? 1 : -1;
        for (int b = b0; b != b1; b += db) {
            for (int a = a0; a != a1; a += da) {
                int sa = a + si, sb = b + sj;
                phi[(size_t)b * n + a] = (sa >= 0 && sb >= 0 && sa < n && sb < n) ? phi[(size_t)sb * n + sa] : 1.0;
            }
        }
    } else if (!p->has_local) {
        for (int q = 0; q < n * n; ++q) {
            phi[q] = 1.0;
        }
    }
    p->has_local = true;
    p->ci = ci;
    p->cj = cj;
    double g[2];
    if (!tpNavField_Descent(field, p->pos[0], p->pos[1], g)) {
        g[0] = p->dir[0];
        g[1] = p->dir[1];
    }
    /* behaviour */
    double eps = d->eps, v[2] = {d->v[0], d->v[1]};
    switch (d->behaviour) {
    case TP_NAV_BEHAVE_CONSTANT:
        break;
    case TP_NAV_BEHAVE_HARMONIC:
        eps = 0.0;
        break;
    case TP_NAV_BEHAVE_SINE: {
        double s = sin(d->sine_w * t);
        v[0] = g[0] - s * g[1];
        v[1] = g[1] + s * g[0];
        break;
    }
    case TP_NAV_BEHAVE_TOWARD:
    case TP_NAV_BEHAVE_ORTHOGONAL:
        v[0] = d->point[0] - p->pos[0];
        v[1] = d->point[1] - p->pos[1];
        unit(v);
        if (d->behaviour == TP_NAV_BEHAVE_ORTHOGONAL) {
            double x = v[0];
            v[0] = -v[1];
            v[1] = x;
        }
        break;
    }
    double nd[2];
    double fa = tpNav_LocalStep(c->grid, field, p->pos, p->dir, d->radius, d->ma, n, d->relax, d->free_width, eps, v,
                                c->others, c->n, k, phi, p->fixed, nd);
    p->speed_factor = fa;
    out[0] = p->pos[0] + nd[0] * d->step * fa;
    out[1] = p->pos[1] + nd[1] * d->step * fa;
    out[2] = nd[0];
    out[3] = nd[1];
}

double tpNav_LocalStep(const tpNavGrid *grid, const tpNavField *field, const double pos[2], const double dir[2],
                       double radius, double ma, int n, int relax, int free_width, double eps, const double v[2],
                       const double *others, int nothers, int skip, double *phi, uint8_t *fx, double out_dir[2])
{
    const tpNavGridDef *gd = tpNavGrid_Def(grid);
    const int h = n / 2;
    int ci, cj;
    out_dir[0] = dir[0];
    out_dir[1] = dir[1];
    if (!tpNavGrid_CellOf(grid, pos[0], pos[1], &ci, &cj)) {
        return 0.0;
    }
    /* zones: ring 0 (the border) fixed at 1, zone L (rings 1..free_width) free, and beyond it the
     * grid's blocked cells (cells outside the grid are blocked) fixed at 1 and the field's goal
     * cells at 0; the free cells keep phi */
    memset(fx, 0, (size_t)n * n);
    for (int a = 0; a < n; ++a) {
        size_t top = (size_t)(n - 1) * n + a, left = (size_t)a * n, right = (size_t)a * n + n - 1;
        fx[a] = fx[top] = fx[left] = fx[right] = 1;
        phi[a] = phi[top] = phi[left] = phi[right] = 1.0;
    }
    const int lo = 1 + free_width, hi = n - 2 - free_width;
    const bool same = field->nx == gd->nx && field->ny == gd->ny; /* the field's grid (always, in use) */
    for (int b = lo; b <= hi; ++b) {
        const int gj = cj - h + b, i0 = ci - h + lo, i1 = ci - h + hi;
        if (same && gj >= 0 && gj < gd->ny && i0 >= 0 && i1 < gd->nx) { /* the row inside the grid */
            const uint8_t *cells = grid->cells + (size_t)gj * gd->nx + i0;
            const uint8_t *kind = field->kind + (size_t)gj * gd->nx + i0;
            uint8_t *frow = fx + (size_t)b * n + lo;
            double *prow = phi + (size_t)b * n + lo;
            for (int a = 0; a <= hi - lo; ++a) {
                bool blocked = cells[a] != TP_NAV_FREE, goal = kind[a] == F_GOAL;
                frow[a] = blocked || goal;
                prow[a] = blocked ? 1.0 : goal ? 0.0 : prow[a];
            }
            continue;
        }
        for (int a = lo; a <= hi; ++a) {
            const int gi = ci - h + a;
            size_t q = (size_t)b * n + a;
            if (gi < 0 || gj < 0 || gi >= gd->nx || gj >= gd->ny ||
                grid->cells[(size_t)gj * gd->nx + gi] != TP_NAV_FREE) {
                fx[q] = 1;
                phi[q] = 1.0;
            } else if (gi < field->nx && gj < field->ny && field->kind[(size_t)gj * field->nx + gi] == F_GOAL) {
                fx[q] = 1;
                phi[q] = 0.0;
            }
        }
    }
    /* other agents in zone A */
    const double cell = gd->cell;
    const double lx0 = gd->x0 + (ci - h) * cell, ly0 = gd->y0 + (cj - h) * cell; /* local map corner */
    double cx[TP_NAV_LOCAL_MAX], cy[TP_NAV_LOCAL_MAX];                           /* m: the cell centres' coordinates */
    const int nc = n < TP_NAV_LOCAL_MAX ? n : TP_NAV_LOCAL_MAX;
    for (int a = 0; a < nc; ++a) {
        cx[a] = lx0 + (a + 0.5) * cell;
        cy[a] = ly0 + (a + 0.5) * cell;
    }
    for (int o = 0; o < nothers; ++o) {
        if (o == skip) {
            continue;
        }
        const double *q = others + 3 * (size_t)o;
        double rr = radius + q[2];
        if (q[0] + rr < lx0 || q[0] - rr > lx0 + n * cell || q[1] + rr < ly0 || q[1] - rr > ly0 + n * cell) {
            continue;
        }
        /* the prefilter bounds these quotients to about [-2 rr / cell, n + 2 rr / cell] */
        int a0 = floorInt((q[0] - rr - lx0) / cell), a1 = floorInt((q[0] + rr - lx0) / cell);
        int b0 = floorInt((q[1] - rr - ly0) / cell), b1 = floorInt((q[1] + rr - ly0) / cell);
        int lim = 1 + free_width;
        a0 = a0 < lim ? lim : a0;
        b0 = b0 < lim ? lim : b0;
        a1 = a1 > n - 1 - lim ? n - 1 - lim : a1;
        b1 = b1 > n - 1 - lim ? n - 1 - lim : b1;
        for (int b = b0; b <= b1; ++b) {
            for (int a = a0; a <= a1; ++a) {
                if (a == h && b == h) {
                    continue;
                }
                /* as lx0 + (a + 0.5) * cell - q[0], ly0 + (b + 0.5) * cell - q[1] */
                double x = (a < nc ? cx[a] : lx0 + (a + 0.5) * cell) - q[0];
                double y = (b < nc ? cy[b] : ly0 + (b + 0.5) * cell) - q[1];
                if (x * x + y * y < rr * rr) {
                    fx[(size_t)b * n + a] = 1;
                    phi[(size_t)b * n + a] = 1.0;
                }
            }
        }
    }
    /* local goal on the border along the global descent direction */
    double g[2];
    if (!tpNavField_Descent(field, pos[0], pos[1], g)) {
        g[0] = dir[0];
        g[1] = dir[1];
    }
    double tt = h / fmax(fabs(g[0]), fabs(g[1]));
    int ga = h + (int)lround(tt * g[0]), gb = h + (int)lround(tt * g[1]);
    ga = ga < 0 ? 0 : ga > n - 1 ? n - 1 : ga;
    gb = gb < 0 ? 0 : gb > n - 1 ? n - 1 : gb;
    fx[(size_t)gb * n + ga] = 1;
    phi[(size_t)gb * n + ga] = 0.0;
    tpNav_RelaxSweeps(phi, fx, n, eps, v, relax);
    /* descent at the centre (Eq. 5.3 negated), inertia (Eq. 5.6), governor (Eq. 5.7) */
    double lg[2] = {-(phi[(size_t)h * n + h + 1] - phi[(size_t)h * n + h - 1]) * 0.5,
                    -(phi[(size_t)(h + 1) * n + h] - phi[(size_t)(h - 1) * n + h]) * 0.5};
    if (hypot(lg[0], lg[1]) < 1e-8) {
        lg[0] = g[0]; /* flat: head for the sub-goal on the border */
        lg[1] = g[1];
    }
    unit(lg);
    double cosv = lg[0] * dir[0] + lg[1] * dir[1];
    double fa = tpNav_SpeedGovernor(cosv);
    double nd[2] = {ma * dir[0] + lg[0], ma * dir[1] + lg[1]};
    if (!(hypot(nd[0], nd[1]) > 1e-12)) {
        nd[0] = lg[0];
        nd[1] = lg[1];
    }
    unit(nd);
    out_dir[0] = nd[0];
    out_dir[1] = nd[1];
    return fa;
}

void tpNavCrowd_Step(tpNavCrowd *c, int t)
{
    for (int k = 0; k < c->n; ++k) {
        c->others[3 * (size_t)k] = c->peds[k].pos[0];
        c->others[3 * (size_t)k + 1] = c->peds[k].pos[1];
        c->others[3 * (size_t)k + 2] = c->peds[k].def.radius;
    }
    for (int k = 0; k < c->n; ++k) {
        pedNext(c, k, t, c->scratch + 4 * (size_t)k);
    }
    for (int k = 0; k < c->n; ++k) {
        tpNavPed *p = &c->peds[k];
        const double *o = c->scratch + 4 * (size_t)k;
        p->pos[0] = o[0];
        p->pos[1] = o[1];
        p->dir[0] = o[2];
        p->dir[1] = o[3];
        int i, j;
        /* goal queue: reaching a goal cell of the current field moves on to the next goal */
        if (p->goal < p->def.ngoals && tpNavGrid_CellOf(c->grid, p->pos[0], p->pos[1], &i, &j) &&
            tpNavField_IsGoal(p->def.goals[p->goal], i, j)) {
            p->goal++;
        }
    }
    TP_VALIDATE(tpNavCrowd_Valid, c);
}
