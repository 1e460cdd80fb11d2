/* tplan navigation: harmonic potential fields over an occupancy grid and the crowds that follow
 * them (Dapper 2007). Part of tp_nav: tp/nav.h includes every part. */
#ifndef TP_NAV_FIELD_H
#define TP_NAV_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp/nav_grid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Harmonic potential fields (Dapper 2007)                                                     */
/*
 * A global harmonic map per goal: Laplace's equation on the grid's free cells (4-neighbour
 * stencil, h = 1), Dirichlet conditions: blocked cells and everything outside the grid (the outer
 * wall) at potential 1, goal cells at 0. The map is stored as the closeness u = 1 - phi, because
 * deep in a maze phi differs from 1 by less than double precision can hold next to 1 while u keeps
 * its full relative precision down to 1e-300. Moving downhill in phi (toward the goal; Dapper's
 * Eq. 5.3 is printed as the ascent difference) is moving uphill in u.
 * Relaxation: red-black SOR (each colour is updated as a block, so the result does not depend on
 * a sweep direction and mirror-symmetric problems give mirror-symmetric fields), to a stated
 * relative tolerance: max over free cells of |mean of the 4 neighbours - u| / mean <= tol.
 */

/// Options of tpCreateNavField. Get defaults from tpDefaultNavFieldDef().
typedef struct tpNavFieldDef {
    double omega;  /* SOR factor in [1, 2); 1 = Gauss-Seidel (default 1: on mazes SOR's relative accuracy
                      in deep dead ends stalls, see nav_field.c); 0 = 2 / (1 + sin(pi / max(nx, ny))) */
    double tol;    /* relative residual to stop at (default 1e-9) */
    int max_iters; /* sweep limit (default 200000) */
} tpNavFieldDef;

tpNavFieldDef tpDefaultNavFieldDef(void);

typedef struct tpNavField tpNavField;

/// Relaxes the harmonic map of `grid` for the goal cells (ngoals (i, j) pairs, free cells inside
/// the grid; blocked or outside ones are refused with a message). The field copies what it needs
/// from the grid. Cells not 4-connected to a goal keep u = 0 (phi = 1, flat). NULL on bad input.
tpNavField *tpCreateNavField(const tpNavGrid *grid, const int *goals, int ngoals, const tpNavFieldDef *def, char *err,
                             size_t errlen);
void tpDestroyNavField(tpNavField *field);
/// Sweeps used, and the relative residual reached (recomputed over the final field).
int tpNavField_Iterations(const tpNavField *field);
double tpNavField_Residual(const tpNavField *field);
/// u = 1 - phi of cell (i, j): 1 at goals, 0 at obstacles and outside.
double tpNavField_Closeness(const tpNavField *field, int i, int j);
/// True if (i, j) is a goal cell of the field.
bool tpNavField_IsGoal(const tpNavField *field, int i, int j);
/// Unit descent direction of phi at the cell containing world point (x, y) (central differences
/// of u). False (dir = 0) outside the grid, in a blocked cell, or where the gradient is exactly 0.
bool tpNavField_Descent(const tpNavField *field, double x, double y, double dir[2]);

/* Pedestrians: per-agent local maps (Dapper Sec. 5.1.2-5.2.2).
 *
 * Each step, for every agent: an n x n local map (cell size = the global grid's) centred on its
 * cell; the border ring (zone F) is fixed at 1 except the local goal, the border cell hit by the
 * ray from the centre along the global descent direction, fixed at 0; the next `free_width`
 * rings (zone L) are always free; the rest (zone A) maps the global obstacles, the goal cells of
 * the agent's field (fixed at 0) and every other agent (cells whose centre lies within the sum of
 * the radii of its position) as fixed 1. The map is warm-started from the previous step (shifted
 * with the agent) and relaxed `relax` times with the update of Eq. 5.1 (red-black order):
 *   phi = (W + E + S + N) / 4 + eps / 8 ((E - W) v_x + (N - S) v_y).
 * The descent direction at the centre (Eq. 5.3, negated) is normalised; below 1e-8 the region is
 * flat and the global descent direction is used instead (a sub-goal on the border). The heading is
 * d' = (ma d + g) / |ma d + g| (Eq. 5.6, inertia ma) and the step p' = p + s F_a(cos theta) d'
 * (Eq. 5.7) with the speed governor F_a of Table 5.2, theta the angle between g and the previous d.
 * All agents move simultaneously (they see each other's positions from the start of the step). */

typedef enum {
    TP_NAV_BEHAVE_CONSTANT = 0, /* v and eps as given */
    TP_NAV_BEHAVE_HARMONIC,     /* eps = 0: Laplace only (keeps away from walls) */
    TP_NAV_BEHAVE_SINE,         /* v = (1, sin(w t)) in the frame of the global flow */
    TP_NAV_BEHAVE_TOWARD,       /* v = unit vector toward `point` */
    TP_NAV_BEHAVE_ORTHOGONAL,   /* v = that vector turned by +90 degrees */
} tpNavBehaviour;

#define TP_NAV_MAX_GOALS 8

/// One pedestrian. Get defaults from tpDefaultNavPedDef().
typedef struct tpNavPedDef {
    double pos[2];                             /* m, start position */
    double dir[2];                             /* initial heading d (unit; default (1, 0)) */
    double radius;                             /* m, agent radius used by the others' local maps (default 0.25) */
    double step;                               /* s of Eq. 5.2: m per step at F_a = 1 (default 0.05) */
    double ma;                                 /* inertia weight of Eq. 5.6 (default 1) */
    double eps;                                /* in [-2, 2] (default 0) */
    double v[2];                               /* behaviour vector for TP_NAV_BEHAVE_CONSTANT (default (0, 0)) */
    tpNavBehaviour behaviour;                  /* default TP_NAV_BEHAVE_CONSTANT */
    double sine_w;                             /* rad per step for SINE (default pi / 18) */
    double point[2];                           /* TOWARD / ORTHOGONAL target point (m) */
    int n;                                     /* local map order, odd, 5..63 (default 15) */
    int relax;                                 /* relaxations per step (default 30) */
    int free_width;                            /* rings of zone L (default 1) */
    int ngoals;                                /* goal queue length 1..TP_NAV_MAX_GOALS */
    const tpNavField *goals[TP_NAV_MAX_GOALS]; /* goal queue: fields, visited in order (not owned) */
} tpNavPedDef;

tpNavPedDef tpDefaultNavPedDef(void);

/// Pedestrian state (read-only for callers).
typedef struct tpNavPed {
    tpNavPedDef def;
    double pos[2], dir[2];
    int goal;            /* index into def.goals of the current goal; == ngoals when all are reached */
    double speed_factor; /* F_a of the last step */
    double *local;       /* n*n local potentials (row-major, row = y), owned */
    uint8_t *fixed;      /* n*n: 1 fixed (border, obstacle, goal), owned */
    int ci, cj;          /* global cell of the local map's centre (warm start) */
    bool has_local;
} tpNavPed;

typedef struct tpNavCrowd tpNavCrowd;

/// A crowd on one grid (not owned; it must outlive the crowd). NULL on bad input.
tpNavCrowd *tpCreateNavCrowd(const tpNavGrid *grid, char *err, size_t errlen);
void tpDestroyNavCrowd(tpNavCrowd *crowd);
/// Adds a pedestrian; returns its index or -1 with a message naming the field.
int tpNavCrowd_Add(tpNavCrowd *crowd, const tpNavPedDef *def, char *err, size_t errlen);
int tpNavCrowd_Count(const tpNavCrowd *crowd);
const tpNavPed *tpNavCrowd_Ped(const tpNavCrowd *crowd, int k);
/// One simultaneous step of every pedestrian. `t` is the step number (SINE behaviour).
void tpNavCrowd_Step(tpNavCrowd *crowd, int t);
/// F_a of Table 5.2 for a cosine.
double tpNav_SpeedGovernor(double cos_theta);
/// One local-map step for an agent at `pos` with unit heading `dir` (the machinery of
/// tpNavCrowd_Step, usable on its own, e.g. by a skill): maps the zones of the n x n map around the
/// agent's cell into phi / fixed (n*n each; phi holds the warm start, or all 1.0 for a cold start),
/// the other agents `others` (nothers (x, y, radius) triples; index `skip` is ignored, -1 = none)
/// with the agent's `radius`, the local goal from `field`; relaxes `relax` times with (eps, v);
/// writes the new heading (Eq. 5.6, inertia ma) to out_dir and returns F_a (Eq. 5.7). Returns 0
/// (and the old heading) outside the grid.
double tpNav_LocalStep(const tpNavGrid *grid, const tpNavField *field, const double pos[2], const double dir[2],
                       double radius, double ma, int n, int relax, int free_width, double eps, const double v[2],
                       const double *others, int nothers, int skip, double *phi, uint8_t *fixed, double out_dir[2]);
/// One relaxation sweep of Eq. 5.1 (red-black) over the non-fixed cells of an n x n map.
void tpNav_RelaxBiased(double *phi, const uint8_t *fixed, int n, double eps, const double v[2]);
/// `sweeps` calls of tpNav_RelaxBiased, bit for bit the same phi, in a faster (packed, vectorised)
/// kernel.
void tpNav_RelaxSweeps(double *phi, const uint8_t *fixed, int n, double eps, const double v[2], int sweeps);

#ifdef __cplusplus
}
#endif
#endif
