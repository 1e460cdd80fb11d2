/* Harmonic potential fields (Dapper 2007): convergence to the stated tolerance, no local minima
 * on a maze, the local biased map's maximum principle, corridor centreline and mirror symmetry,
 * the speed governor and a small crowd. Mazes come from a seeded tpRng. */
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

static tpNavGrid *makeGrid(int nx, int ny, double cell)
{
    tpNavGridDef d = tpDefaultNavGridDef();
    d.nx = nx;
    d.ny = ny;
    d.cell = cell;
    tpNavGrid *g = tpCreateNavGrid(&d, NULL, 0);
    assert_non_null(g);
    return g;
}

/* Perfect maze of r x r rooms of 3 x 3 cells separated by 1-cell walls: (4r + 1)^2 cells. */
static tpNavGrid *makeMaze(tpRng *rng, int r)
{
    int n = 4 * r + 1;
    tpNavGrid *g = makeGrid(n, n, 0.25);
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
            if (i % 4 == 0 || j % 4 == 0) {
                tpNavGrid_SetObstacle(g, i, j, true);
            }
        }
    }
    int *seen = calloc((size_t)r * r, sizeof(int)), *stack = malloc(sizeof(int) * 2 * r * r), sp = 0;
    seen[0] = 1;
    stack[sp++] = 0;
    while (sp > 0) {
        int c = stack[sp - 1], x = c % r, y = c / r;
        int cand[4], nc = 0;
        const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
        for (int k = 0; k < 4; ++k) {
            int nx = x + dx[k], ny = y + dy[k];
            if (nx >= 0 && ny >= 0 && nx < r && ny < r && !seen[ny * r + nx]) {
                cand[nc++] = ny * r + nx;
            }
        }
        if (!nc) {
            --sp;
            continue;
        }
        int nb = cand[tpRng_Below(rng, (uint32_t)nc)], nx = nb % r, ny = nb / r;
        /* open the wall between the rooms (3 cells of it) */
        for (int k = 1; k <= 3; ++k) {
            if (nx != x) {
                tpNavGrid_SetObstacle(g, 4 * (x > nx ? x : nx), 4 * y + k, false);
            } else {
                tpNavGrid_SetObstacle(g, 4 * x + k, 4 * (y > ny ? y : ny), false);
            }
        }
        seen[nb] = 1;
        stack[sp++] = nb;
    }
    free(seen);
    free(stack);
    return g;
}

static void test_maze_no_local_minima(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 5);
    for (int m = 0; m < 3; ++m) {
        const int r = 6 + m;
        tpNavGrid *g = makeMaze(&rng, r);
        const int n = 4 * r + 1;
        int goal[2] = {4 * r - 2, 4 * r - 2}; /* centre of the far corner room */
        tpNavFieldDef fd = tpDefaultNavFieldDef();
        fd.tol = 1e-10;
        char err[128];
        tpNavField *f = tpCreateNavField(g, goal, 1, &fd, err, sizeof err);
        assert_non_null(f);
        assert_true(tpNavField_Iterations(f) < fd.max_iters);
        assert_true(tpNavField_Residual(f) <= fd.tol);
        /* steepest ascent of u (descent of phi) over the 4 neighbours from every free cell */
        int starts = 0;
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < n; ++i) {
                if (tpNavGrid_Blocked(g, i, j)) {
                    assert_true(tpNavField_Closeness(f, i, j) == 0.0);
                    continue;
                }
                assert_true(tpNavField_Closeness(f, i, j) > 0.0); /* a perfect maze is connected */
                int ci = i, cj = j, steps = 0;
                while (!tpNavField_IsGoal(f, ci, cj) && steps < n * n) {
                    const int di[4] = {1, -1, 0, 0}, dj[4] = {0, 0, 1, -1};
                    double best = tpNavField_Closeness(f, ci, cj);
                    int bi = -1, bj = -1;
                    for (int k = 0; k < 4; ++k) {
                        double u = tpNavField_Closeness(f, ci + di[k], cj + dj[k]);
                        if (u > best) {
                            best = u;
                            bi = ci + di[k];
                            bj = cj + dj[k];
                        }
                    }
                    assert_true(bi >= 0); /* no local minimum of phi */
                    ci = bi;
                    cj = bj;
                    ++steps;
                }
                assert_true(tpNavField_IsGoal(f, ci, cj));
                /* the continuous descent direction exists everywhere off the goal */
                double xy[2], dir[2];
                tpNavGrid_CellCenter(g, i, j, xy);
                assert_true(tpNavField_Descent(f, xy[0], xy[1], dir) || tpNavField_IsGoal(f, i, j));
                ++starts;
            }
        }
        assert_true(starts > 9 * r * r);
        tpDestroyNavField(f);
        tpDestroyNavGrid(g);
    }
}

/* The simple definition of tpCreateNavField's solve (as first written): closeness 1 on the goal,
 * 2^-(BFS distance) on the free cells connected to it, 0 elsewhere; red-black SOR sweeps over the
 * connected free cells, each cell's relative residual taken before its update, until the largest
 * one of a sweep is <= tol. Writes u (nx * ny) and returns the number of sweeps. */
static int referenceField(const tpNavGrid *g, int gi, int gj, double omega, double tol, int max_iters, double *u)
{
    const tpNavGridDef *d = tpNavGrid_Def(g);
    const int nx = d->nx, ny = d->ny;
    int *dist = malloc(sizeof(int) * nx * ny), *queue = malloc(sizeof(int) * nx * ny), head = 0, tail = 0;
    for (int c = 0; c < nx * ny; ++c) {
        dist[c] = -1;
        u[c] = 0.0;
    }
    dist[gj * nx + gi] = 0;
    u[gj * nx + gi] = 1.0;
    queue[tail++] = gj * nx + gi;
    while (head < tail) {
        int c = queue[head++];
        const int di[4] = {1, -1, 0, 0}, dj[4] = {0, 0, 1, -1};
        for (int k = 0; k < 4; ++k) {
            int i = c % nx + di[k], j = c / nx + dj[k];
            if (i >= 0 && j >= 0 && i < nx && j < ny && dist[j * nx + i] < 0 && !tpNavGrid_Blocked(g, i, j)) {
                dist[j * nx + i] = dist[c] + 1;
                u[j * nx + i] = fmax(ldexp(1.0, -dist[j * nx + i]), 1e-300);
                queue[tail++] = j * nx + i;
            }
        }
    }
#define U(i, j) ((i) < 0 || (j) < 0 || (i) >= nx || (j) >= ny ? 0.0 : u[(j)*nx + (i)])
    int it = 0;
    for (; it < max_iters; ++it) {
        double maxr = 0;
        for (int colour = 0; colour < 2; ++colour) {
            for (int j = 0; j < ny; ++j) {
                for (int i = (j + colour) & 1; i < nx; i += 2) {
                    int c = j * nx + i;
                    if (dist[c] <= 0) { /* the goal, walls and cut-off cells stay */
                        continue;
                    }
                    double m = ((U(i - 1, j) + U(i + 1, j)) + (U(i, j - 1) + U(i, j + 1))) * 0.25;
                    maxr = fmax(maxr, m > 0 ? fabs(m - u[c]) / m : (u[c] == 0 ? 0.0 : 1.0));
                    u[c] = u[c] + omega * (m - u[c]);
                }
            }
        }
        if (maxr <= tol) {
            ++it;
            break;
        }
    }
#undef U
    free(dist);
    free(queue);
    return it;
}

/* tpCreateNavField gives the reference's closeness bit for bit and the same sweep count: a maze,
 * an open room with a cut-off pocket, Gauss-Seidel and over-relaxed, tight and loose tolerances. */
static void test_field_matches_reference(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 41);
    for (int k = 0; k < 4; ++k) {
        tpNavGrid *g;
        int goal[2];
        if (k < 2) {
            g = makeMaze(&rng, 5);
            goal[0] = goal[1] = 18;
        } else {
            g = makeGrid(23, 17, 0.5);
            for (int j = 0; j < 17; ++j) {
                for (int i = 0; i < 23; ++i) {
                    bool pocket = (i == 3 || i == 7) ? j <= 4 : (j == 4 && i >= 3 && i <= 7); /* walls a pocket */
                    if (pocket || tpRng_Res53(&rng) < 0.1) {
                        tpNavGrid_SetObstacle(g, i, j, true);
                    }
                }
            }
            goal[0] = 20;
            goal[1] = 14;
            tpNavGrid_SetObstacle(g, goal[0], goal[1], false);
        }
        const tpNavGridDef *d = tpNavGrid_Def(g);
        tpNavFieldDef fd = tpDefaultNavFieldDef();
        fd.omega = k % 2 ? 1.5 : 1.0;
        fd.tol = k < 2 ? 1e-9 : 1e-5;
        tpNavField *f = tpCreateNavField(g, goal, 1, &fd, NULL, 0);
        assert_non_null(f);
        double *u = malloc(sizeof(double) * d->nx * d->ny);
        int iters = referenceField(g, goal[0], goal[1], fd.omega, fd.tol, fd.max_iters, u);
        assert_int_equal(tpNavField_Iterations(f), iters);
        for (int j = 0; j < d->ny; ++j) {
            for (int i = 0; i < d->nx; ++i) {
                double a = tpNavField_Closeness(f, i, j);
                assert_memory_equal(&a, &u[j * d->nx + i], sizeof a);
            }
        }
        free(u);
        tpDestroyNavField(f);
        tpDestroyNavGrid(g);
    }
}

static void test_field_bad_input(void **state)
{
    (void)state;
    tpNavGrid *g = makeGrid(10, 10, 1.0);
    tpNavGrid_SetObstacle(g, 3, 3, true);
    char err[128];
    int bad[2] = {3, 3};
    assert_null(tpCreateNavField(g, bad, 1, NULL, err, sizeof err));
    assert_non_null(strstr(err, "blocked"));
    assert_null(tpCreateNavField(g, bad, 0, NULL, err, sizeof err));
    int ok[2] = {5, 5};
    tpNavFieldDef fd = tpDefaultNavFieldDef();
    fd.omega = 2.5;
    assert_null(tpCreateNavField(g, ok, 1, &fd, err, sizeof err));
    assert_non_null(strstr(err, "omega"));
    /* Gauss-Seidel (omega 1) and SOR (omega 1.5) reach the same field within the tolerance */
    fd.omega = 1.0;
    fd.tol = 1e-12;
    tpNavField *a = tpCreateNavField(g, ok, 1, &fd, err, sizeof err);
    fd.omega = 1.5;
    tpNavField *b = tpCreateNavField(g, ok, 1, &fd, err, sizeof err);
    assert_true(tpNavField_Residual(a) <= 1e-12 && tpNavField_Residual(b) <= 1e-12);
    for (int j = 0; j < 10; ++j) {
        for (int i = 0; i < 10; ++i) {
            double ua = tpNavField_Closeness(a, i, j), ub = tpNavField_Closeness(b, i, j);
            assert_true(fabs(ua - ub) <= 1e-7 * fmax(ua, 1e-300));
        }
    }
    tpDestroyNavField(a);
    tpDestroyNavField(b);
    tpDestroyNavGrid(g);
}

/* Local map: a converged biased map with |eps| max(|vx|, |vy|) <= 2 is a convex combination of
 * its neighbours in every free cell (no interior minimum), and descent reaches the goal. */
static void test_local_map_maximum_principle(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 17);
    const int n = 15;
    double phi[15 * 15];
    uint8_t fixed[15 * 15];
    const double cases[][3] = {{0, 0, 0}, {1, 0, 1}, {2, 1, 0}, {-2, 0.7, -0.7}, {1.5, -1, 0.3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        for (int trial = 0; trial < 4; ++trial) {
            for (int q = 0; q < n * n; ++q) {
                int a = q % n, b = q / n;
                bool border = a == 0 || b == 0 || a == n - 1 || b == n - 1;
                bool obstacle = !border && a > 1 && b > 1 && a < n - 2 && b < n - 2 && tpRng_Res53(&rng) < 0.2;
                fixed[q] = border || obstacle;
                phi[q] = 1.0;
            }
            int gq = (int)tpRng_Below(&rng, n - 2) + 1; /* goal on the east border */
            phi[gq * n + n - 1] = 0.0;
            fixed[n / 2 * n + n / 2] = 0;
            const double v[2] = {cases[c][1], cases[c][2]};
            for (int r = 0; r < 4000; ++r) {
                tpNav_RelaxBiased(phi, fixed, n, cases[c][0], v);
            }
            for (int b = 1; b < n - 1; ++b) {
                for (int a = 1; a < n - 1; ++a) {
                    int q = b * n + a;
                    if (fixed[q]) {
                        continue;
                    }
                    double lo = fmin(fmin(phi[q - 1], phi[q + 1]), fmin(phi[q - n], phi[q + n]));
                    double hi = fmax(fmax(phi[q - 1], phi[q + 1]), fmax(phi[q - n], phi[q + n]));
                    assert_true(lo <= phi[q] + 1e-12 && phi[q] <= hi + 1e-12);
                }
            }
            /* from the centre, steepest descent reaches the goal unless the centre is walled in */
            int q = n / 2 * n + n / 2, steps = 0;
            if (phi[q] < 1.0 - 1e-9) {
                while (phi[q] > 0.0 && steps < n * n) {
                    const int d[4] = {1, -1, n, -n};
                    int best = -1;
                    for (int k = 0; k < 4; ++k) {
                        if (phi[q + d[k]] < phi[q] && (best < 0 || phi[q + d[k]] < phi[best])) {
                            best = q + d[k];
                        }
                    }
                    assert_true(best >= 0);
                    q = best;
                    ++steps;
                }
                assert_true(phi[q] == 0.0);
            }
        }
    }
}

/* tpNav_RelaxSweeps is tpNav_RelaxBiased repeated, bit for bit: random maps of odd and even
 * orders (and one above the packed kernel's limit), random values and fixed cells, with and
 * without bias. */
static void test_relax_sweeps_bit_identical(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 29);
    const int orders[] = {3, 4, 5, 6, 15, 16, 31, 63, 64};
    const double cases[][3] = {{0, 0, 0}, {1, 0, 1}, {2, 1, 0}, {-2, 0.7, -0.7}, {1.5, -1, 0.3}, {0, 1, 1}};
    double *a = malloc(sizeof(double) * 64 * 64), *b = malloc(sizeof(double) * 64 * 64);
    uint8_t *fixed = malloc(64 * 64);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(fixed);
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; ++o) {
        const int n = orders[o];
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            for (int trial = 0; trial < 3; ++trial) {
                for (int q = 0; q < n * n; ++q) {
                    /* a third of the maps start cold (all 1, as the skill's), the rest at random */
                    a[q] = trial == 0 ? 1.0 : tpRng_Res53(&rng);
                    fixed[q] = tpRng_Res53(&rng) < 0.25;
                }
                a[(int)tpRng_Below(&rng, (uint32_t)(n * n))] = 0.0;
                memcpy(b, a, sizeof(double) * n * n);
                const double v[2] = {cases[c][1], cases[c][2]};
                const int sweeps = 1 + (int)tpRng_Below(&rng, 40);
                for (int r = 0; r < sweeps; ++r) {
                    tpNav_RelaxBiased(a, fixed, n, cases[c][0], v);
                }
                tpNav_RelaxSweeps(b, fixed, n, cases[c][0], v, sweeps);
                assert_memory_equal(a, b, sizeof(double) * n * n);
            }
        }
    }
    free(a);
    free(b);
    free(fixed);
}

static void refUnit(double v[2])
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

/* The simple definition of tpNav_LocalStep (as first written, through the public calls). */
static double referenceLocalStep(const tpNavGrid *grid, const tpNavField *field, const double pos[2],
                                 const double dir[2], double radius, double ma, int n, int relax, int free_width,
                                 double eps, const double v[2], const double *others, int nothers, int skip,
                                 double *phi, uint8_t *fx, double out_dir[2])
{
    const tpNavGridDef *gd = tpNavGrid_Def(grid);
    const int h = n / 2;
    int ci, cj;
    out_dir[0] = dir[0];
    out_dir[1] = dir[1];
    if (!tpNavGrid_CellOf(grid, pos[0], pos[1], &ci, &cj)) {
        return 0.0;
    }
    /* zones */
    for (int b = 0; b < n; ++b) {
        for (int a = 0; a < n; ++a) {
            size_t q = (size_t)b * n + a;
            int ring = a < b ? a : b;
            ring = ring < n - 1 - a ? ring : n - 1 - a;
            ring = ring < n - 1 - b ? ring : n - 1 - b;
            fx[q] = 0;
            if (ring == 0) {
                fx[q] = 1;
                phi[q] = 1.0;
            } else if (ring > free_width) {
                int gi = ci - h + a, gj = cj - h + b;
                if (tpNavGrid_Blocked(grid, gi, gj)) {
                    fx[q] = 1;
                    phi[q] = 1.0;
                } else if (tpNavField_IsGoal(field, gi, gj)) {
                    fx[q] = 1;
                    phi[q] = 0.0;
                }
            }
        }
    }
    /* other agents in zone A */
    const double cell = gd->cell;
    const double lx0 = gd->x0 + (ci - h) * cell, ly0 = gd->y0 + (cj - h) * cell; /* local map corner */
    for (int o = 0; o < nothers; ++o) {
        if (o == skip) {
            continue;
        }
        const double *q = others + 3 * (size_t)o;
        double rr = radius + q[2];
        if (q[0] + rr < lx0 || q[0] - rr > lx0 + n * cell || q[1] + rr < ly0 || q[1] - rr > ly0 + n * cell) {
            continue;
        }
        int a0 = (int)floor((q[0] - rr - lx0) / cell), a1 = (int)floor((q[0] + rr - lx0) / cell);
        int b0 = (int)floor((q[1] - rr - ly0) / cell), b1 = (int)floor((q[1] + rr - ly0) / cell);
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
                double x = lx0 + (a + 0.5) * cell - q[0], y = ly0 + (b + 0.5) * cell - q[1];
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
    for (int r = 0; r < relax; ++r) {
        tpNav_RelaxBiased(phi, fx, n, eps, v);
    }
    /* descent at the centre (Eq. 5.3 negated), inertia (Eq. 5.6), governor (Eq. 5.7) */
    double lg[2] = {-(phi[(size_t)h * n + h + 1] - phi[(size_t)h * n + h - 1]) * 0.5,
                    -(phi[(size_t)(h + 1) * n + h] - phi[(size_t)(h - 1) * n + h]) * 0.5};
    if (hypot(lg[0], lg[1]) < 1e-8) {
        lg[0] = g[0]; /* flat: head for the sub-goal on the border */
        lg[1] = g[1];
    }
    refUnit(lg);
    double cosv = lg[0] * dir[0] + lg[1] * dir[1];
    double fa = tpNav_SpeedGovernor(cosv);
    double nd[2] = {ma * dir[0] + lg[0], ma * dir[1] + lg[1]};
    if (!(hypot(nd[0], nd[1]) > 1e-12)) {
        nd[0] = lg[0];
        nd[1] = lg[1];
    }
    refUnit(nd);
    out_dir[0] = nd[0];
    out_dir[1] = nd[1];
    return fa;
}

/* tpNav_LocalStep gives the simple definition's heading, F_a, map and fixed cells bit for bit: a
 * grid with random obstacles and two goal cells, agents anywhere on it (local maps cut by the
 * grid's edge included), others around them, with and without bias, warm and cold maps. */
static void test_local_step_matches_reference(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 53);
    tpNavGrid *g = makeGrid(40, 30, 0.5);
    for (int j = 0; j < 30; ++j) {
        for (int i = 0; i < 40; ++i) {
            if (tpRng_Res53(&rng) < 0.12) {
                tpNavGrid_SetObstacle(g, i, j, true);
            }
        }
    }
    int goals[4] = {35, 25, 5, 26};
    tpNavGrid_SetObstacle(g, goals[0], goals[1], false);
    tpNavGrid_SetObstacle(g, goals[2], goals[3], false);
    tpNavField *f = tpCreateNavField(g, goals, 2, NULL, NULL, 0);
    assert_non_null(f);
    for (int trial = 0; trial < 300; ++trial) {
        const int n = trial % 3 == 0 ? 15 : trial % 3 == 1 ? 9 : 21, fw = (int)tpRng_Below(&rng, 3);
        double pos[2] = {-1.0 + 22.0 * tpRng_Res53(&rng), -1.0 + 17.0 * tpRng_Res53(&rng)};
        double ang = 2 * TP_PI * tpRng_Res53(&rng), dir[2] = {cos(ang), sin(ang)};
        double others[3 * 24];
        int no = (int)tpRng_Below(&rng, 25);
        for (int k = 0; k < no; ++k) {
            others[3 * k] = pos[0] - 5.0 + 10.0 * tpRng_Res53(&rng);
            others[3 * k + 1] = pos[1] - 5.0 + 10.0 * tpRng_Res53(&rng);
            others[3 * k + 2] = 0.1 + 0.4 * tpRng_Res53(&rng);
        }
        const double eps = trial % 2 ? 0.0 : -2.0 + 4.0 * tpRng_Res53(&rng), v[2] = {0.6, -0.8};
        double pa[21 * 21], pb[21 * 21], da[2], db[2];
        uint8_t fa[21 * 21], fb[21 * 21];
        for (int q = 0; q < n * n; ++q) {
            pa[q] = pb[q] = trial % 4 < 2 ? 1.0 : tpRng_Res53(&rng);
        }
        int skip = no > 0 ? (int)tpRng_Below(&rng, (uint32_t)no) : -1;
        double ra = referenceLocalStep(g, f, pos, dir, 0.25, 1.0, n, 20, fw, eps, v, others, no, skip, pa, fa, da);
        double rb = tpNav_LocalStep(g, f, pos, dir, 0.25, 1.0, n, 20, fw, eps, v, others, no, skip, pb, fb, db);
        assert_memory_equal(&ra, &rb, sizeof ra);
        assert_memory_equal(da, db, sizeof da);
        if (tpNavGrid_CellOf(g, pos[0], pos[1], &(int){0}, &(int){0})) {
            assert_memory_equal(pa, pb, sizeof(double) * n * n);
            assert_memory_equal(fa, fb, (size_t)n * n);
        }
    }
    tpDestroyNavField(f);
    tpDestroyNavGrid(g);
}

static void test_governor(void **state)
{
    (void)state;
    assert_true(tpNav_SpeedGovernor(-1.0) == 0.0);
    assert_true(tpNav_SpeedGovernor(0.0) == 0.0);
    assert_true(tpNav_SpeedGovernor(0.01) == 0.05);
    assert_true(tpNav_SpeedGovernor(0.3) == 0.2);
    assert_true(tpNav_SpeedGovernor(0.65) == 0.5);
    assert_true(tpNav_SpeedGovernor(0.9) == 0.8);
    assert_true(tpNav_SpeedGovernor(0.92) == 1.0);
    assert_true(tpNav_SpeedGovernor(1.0) == 1.0);
}

/* Corridor 61 x 9 cells (walls on rows 0 and 8), goal column at the east end. */
static tpNavGrid *corridor(tpNavField **field)
{
    tpNavGrid *g = makeGrid(61, 9, 0.25);
    for (int i = 0; i < 61; ++i) {
        tpNavGrid_SetObstacle(g, i, 0, true);
        tpNavGrid_SetObstacle(g, i, 8, true);
    }
    int goals[14];
    for (int k = 0; k < 7; ++k) {
        goals[2 * k] = 59;
        goals[2 * k + 1] = 1 + k;
    }
    *field = tpCreateNavField(g, goals, 7, NULL, NULL, 0);
    assert_non_null(*field);
    return g;
}

static void runPed(const tpNavGrid *g, const tpNavPedDef *d, int steps, double *ys, double *xend, int *goal)
{
    tpNavCrowd *c = tpCreateNavCrowd(g, NULL, 0);
    char err[128];
    assert_int_equal(tpNavCrowd_Add(c, d, err, sizeof err), 0);
    for (int t = 0; t < steps; ++t) {
        tpNavCrowd_Step(c, t);
        ys[t] = tpNavCrowd_Ped(c, 0)->pos[1];
    }
    *xend = tpNavCrowd_Ped(c, 0)->pos[0];
    *goal = tpNavCrowd_Ped(c, 0)->goal;
    tpDestroyNavCrowd(c);
}

static void test_corridor_centreline_and_mirror(void **state)
{
    (void)state;
    tpNavField *f;
    tpNavGrid *g = corridor(&f);
    const double yc = 4.5 * 0.25;
    enum { STEPS = 400 };
    double y0[STEPS], ya[STEPS], yb[STEPS], x0, xa, xb;
    int g0, ga, gb;
    tpNavPedDef d = tpDefaultNavPedDef();
    d.pos[0] = 1.0;
    d.pos[1] = yc;
    d.ngoals = 1;
    d.goals[0] = f;
    d.behaviour = TP_NAV_BEHAVE_HARMONIC;
    runPed(g, &d, STEPS, y0, &x0, &g0);
    for (int t = 0; t < STEPS; ++t) {
        assert_true(fabs(y0[t] - yc) < 1e-12); /* eps = 0 keeps the centreline */
    }
    assert_int_equal(g0, 1); /* reached the goal column */
    d.behaviour = TP_NAV_BEHAVE_CONSTANT;
    d.eps = 1.0;
    d.v[0] = 0;
    d.v[1] = 1;
    runPed(g, &d, STEPS, ya, &xa, &ga);
    d.v[1] = -1;
    runPed(g, &d, STEPS, yb, &xb, &gb);
    double maxdev = 0;
    for (int t = 0; t < STEPS; ++t) {
        assert_true(fabs((ya[t] - yc) + (yb[t] - yc)) < 1e-9); /* mirror images */
        maxdev = fmax(maxdev, fabs(ya[t] - yc));
    }
    assert_true(maxdev > 0.05); /* the bias moved it off the centreline */
    assert_true(fabs(xa - xb) < 1e-9);
    tpDestroyNavField(f);
    tpDestroyNavGrid(g);
}

static void test_crowd_two_way(void **state)
{
    (void)state;
    /* 6 pedestrians in a corridor, 3 heading east and 3 west: all reach their goals, and the
     * queue sends one of them back. */
    tpNavGrid *g = makeGrid(81, 13, 0.25);
    for (int i = 0; i < 81; ++i) {
        tpNavGrid_SetObstacle(g, i, 0, true);
        tpNavGrid_SetObstacle(g, i, 12, true);
    }
    int east[22], west[22];
    for (int k = 0; k < 11; ++k) {
        east[2 * k] = 79;
        west[2 * k] = 1;
        east[2 * k + 1] = west[2 * k + 1] = 1 + k;
    }
    tpNavField *fe = tpCreateNavField(g, east, 11, NULL, NULL, 0), *fw = tpCreateNavField(g, west, 11, NULL, NULL, 0);
    tpNavCrowd *c = tpCreateNavCrowd(g, NULL, 0);
    for (int k = 0; k < 6; ++k) {
        tpNavPedDef d = tpDefaultNavPedDef();
        bool toEast = k < 3;
        d.pos[0] = toEast ? 1.0 : 19.0;
        d.pos[1] = 1.0 + 0.5 * (k % 3);
        d.dir[0] = toEast ? 1 : -1;
        d.ngoals = 1;
        d.goals[0] = toEast ? fe : fw;
        if (k == 0) {
            d.ngoals = 2;
            d.goals[1] = fw;
        }
        d.radius = 0.2;
        d.step = 0.08;
        assert_int_equal(tpNavCrowd_Add(c, &d, NULL, 0), k);
    }
    int t = 0;
    bool all = false;
    for (; t < 3000 && !all; ++t) {
        tpNavCrowd_Step(c, t);
        all = true;
        for (int k = 0; k < 6; ++k) {
            all = all && tpNavCrowd_Ped(c, k)->goal == tpNavCrowd_Ped(c, k)->def.ngoals;
        }
    }
    assert_true(all);
    assert_true(tpNavCrowd_Ped(c, 0)->pos[0] < 1.0); /* went east, then back west */
    tpDestroyNavCrowd(c);
    tpDestroyNavField(fe);
    tpDestroyNavField(fw);
    tpDestroyNavGrid(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maze_no_local_minima),
        cmocka_unit_test(test_field_bad_input),
        cmocka_unit_test(test_local_map_maximum_principle),
        cmocka_unit_test(test_governor),
        cmocka_unit_test(test_relax_sweeps_bit_identical),
        cmocka_unit_test(test_field_matches_reference),
        cmocka_unit_test(test_local_step_matches_reference),
        cmocka_unit_test(test_corridor_centreline_and_mirror),
        cmocka_unit_test(test_crowd_two_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
