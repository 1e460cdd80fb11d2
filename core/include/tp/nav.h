/* tplan navigation: occupancy grids, grid path planning and the path-following controller of
 * Kuffner, "Goal-Directed Navigation for Animated Characters Using Real-Time Path Planning and
 * Control" (CAPTECH 1998).
 *
 * Pure computation: no ODE, no Lua. The caller describes the obstacles as a list of shapes
 * (tpNavShape: oriented boxes, spheres, vertical discs, convex prisms, half-spaces); the physics
 * or Lua layer converts its scene to that list.
 *
 * Grid conventions. Cell (i, j), i = column along +x, j = row along +y, covers the square
 * [x0 + i h, x0 + (i+1) h) x [y0 + j h, y0 + (j+1) h) with h = `cell` (m); its index is j*nx + i
 * and its centre (x0 + (i + 1/2) h, y0 + (j + 1/2) h).
 *
 * Rasterisation is exact: a shape's footprint is the orthographic projection onto the xy plane
 * of the part of the shape inside the height band z_min <= z <= z_max; a cell is an OBSTACLE
 * cell iff the footprint meets the cell's open square (for a footprint with area this is
 * "their interiors overlap"; touching an edge or a corner does not count).
 * Growth by the agent radius R: a free cell becomes GROWN (blocked) iff its centre lies strictly
 * closer than R to the closed square of some obstacle cell. A gap of free cells narrower than 2R
 * is therefore closed, and a grid gap wider than 2R + h stays open.
 *
 * Search: 8-connected, orthogonal step cost 1 and diagonal cost `diag` (1.4 as in the paper, or
 * TP_NAV_SQRT2), in cell units. Any two free 8-neighbours are connected (diagonal moves between
 * two blocked orthogonal neighbours are allowed, as in the paper's plain 8-connected graph).
 * Dijkstra and A* (octile heuristic, consistent for 1 <= diag <= 2) return the same minimal
 * cost; ties are broken by cell index so results are deterministic. The planner is
 * resolution-complete: TP_NAV_NO_PATH is returned exactly when start and goal lie in different
 * 8-connected free components. */
#ifndef TP_NAV_H
#define TP_NAV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_NAV_SQRT2 1.41421356237309504880
#define TP_NAV_POLY_MAX 16 /* vertices of a TP_NAV_POLYGON */

/* ------------------------------------------------------------------------------------------ */
/* Shapes                                                                                      */

typedef enum {
    TP_NAV_BOX = 0,   /* oriented box: centre, half extents, rotation `rot` (any 3D rotation) */
    TP_NAV_SPHERE,    /* ball: centre, radius */
    TP_NAV_DISC,      /* vertical cylinder: centre[0..1], radius, vertical extent [z_lo, z_hi] */
    TP_NAV_POLYGON,   /* vertical prism: convex hull of points[0..npoints), extent [z_lo, z_hi] */
    TP_NAV_HALFSPACE, /* solid half-space plane[0]*x + plane[1]*y + plane[2]*z <= plane[3] */
} tpNavShapeKind;

/// One obstacle. Plain value type (no pointers); unused fields are ignored.
typedef struct tpNavShape {
    tpNavShapeKind kind;
    double center[3];  /* m: BOX, SPHERE centre; DISC uses [0..1] */
    double half[3];    /* m: BOX half extents along its local axes (>= 0) */
    double rot[9];     /* BOX: row-major rotation matrix, world = rot * local (tpNav_ShapeBox: identity) */
    double radius;     /* m: SPHERE, DISC (>= 0) */
    double z_lo, z_hi; /* m: DISC, POLYGON vertical extent (z_lo <= z_hi) */
    int npoints;       /* POLYGON: 1..TP_NAV_POLY_MAX */
    double points[TP_NAV_POLY_MAX][2]; /* POLYGON vertices (m); their convex hull is used */
    double plane[4];                   /* HALFSPACE (a, b, c, d); (a, b, c) != 0 */
} tpNavShape;

/// Axis-aligned box from centre and half extents (rotation = identity), rotated by `yaw` about +z.
tpNavShape tpNav_ShapeBox(double cx, double cy, double cz, double hx, double hy, double hz, double yaw);
/// Sets a box's rotation from a unit quaternion (w, x, y, z).
void tpNav_ShapeSetQuat(tpNavShape *shape, const double q[4]);
/// Checks a shape (finite numbers, non-negative sizes, 1..TP_NAV_POLY_MAX points, non-zero plane
/// normal). False with a message naming the field.
bool tpNav_ShapeValidate(const tpNavShape *shape, char *err, size_t errlen);
/// Footprint of a shape in the band [z_min, z_max] (the band is closed), for shapes with a
/// polygonal footprint (BOX, POLYGON): writes the convex footprint (counter-clockwise, at most
/// 32 vertices) to xy and returns the vertex count (0 = the shape misses the band). Exposed for
/// tests and viewers.
int tpNav_Footprint(const tpNavShape *shape, double z_min, double z_max, double xy[32][2]);

/* ------------------------------------------------------------------------------------------ */
/* Occupancy grid                                                                              */

/// Cell flags.
enum {
    TP_NAV_FREE = 0,
    TP_NAV_OBSTACLE = 1, /* a shape's footprint meets the cell */
    TP_NAV_GROWN = 2,    /* free of shapes but within R of an obstacle cell */
};

/// Grid geometry. Get defaults from tpDefaultNavGridDef().
typedef struct tpNavGridDef {
    double x0, y0;       /* m: world position of the grid's lower-left corner (default 0, 0) */
    double cell;         /* m: cell size h (> 0, default 0.1) */
    int nx, ny;          /* cells along x and y (>= 1, nx*ny <= 2^26; default 100 x 100) */
    double z_min, z_max; /* m: height band of the agent (default 0 .. 2) */
    double radius;       /* m: agent radius R used by tpNavGrid_Grow (>= 0, default 0) */
} tpNavGridDef;

tpNavGridDef tpDefaultNavGridDef(void);

typedef struct tpNavGrid tpNavGrid;

/// Creates an all-free grid. NULL with a message naming the field on a bad definition.
tpNavGrid *tpCreateNavGrid(const tpNavGridDef *def, char *err, size_t errlen);
/// Frees a grid (NULL allowed).
void tpDestroyNavGrid(tpNavGrid *grid);
/// The grid's definition (copied at creation; radius follows the last tpNavGrid_Grow).
const tpNavGridDef *tpNavGrid_Def(const tpNavGrid *grid);
/// Marks every cell free (obstacles and growth removed).
void tpNavGrid_Clear(tpNavGrid *grid);
/// Makes the grid the all-free grid of `def` (which must have the same nx and ny; origin, cell,
/// band and radius may differ), keeping its memory and search scratch: a caller that builds a
/// grid of the same size again and again (a replanning skill) saves the allocation and the first
/// touch of every page. The grid then answers exactly like tpCreateNavGrid(def) would. false
/// with a message (the grid unchanged) on a bad def or another size.
bool tpNavGrid_Reset(tpNavGrid *grid, const tpNavGridDef *def, char *err, size_t errlen);
/// Copies the cell flags of src into dst (the definitions are not touched): a raster kept aside
/// (the static scene) is laid into a working grid of the same size. false (dst unchanged) when
/// nx or ny differ.
bool tpNavGrid_CopyCells(tpNavGrid *dst, const tpNavGrid *src);
/// Rasterises one shape exactly into the OBSTACLE layer (see the file comment). Returns the
/// number of cells the footprint meets (0 if it misses the band or the grid), -1 on a bad shape.
/// Growth is not updated: call tpNavGrid_Grow after adding shapes.
int tpNavGrid_AddShape(tpNavGrid *grid, const tpNavShape *shape, char *err, size_t errlen);
/// Marks one cell as an obstacle (no-op outside the grid).
void tpNavGrid_SetObstacle(tpNavGrid *grid, int i, int j, bool obstacle);
/// Recomputes the GROWN layer from the OBSTACLE layer for agent radius `radius` (m, >= 0).
void tpNavGrid_Grow(tpNavGrid *grid, double radius);
/// Adds the OBSTACLE cells of src (same nx and ny; its other flags and its definition are not
/// read) to dst, already grown (tpNavGrid_Grow), and grows them by dst's radius: dst ends exactly
/// as if src's obstacles had been added before dst's tpNavGrid_Grow (growth of a union is the
/// union of the growths), at the cost of growing src's obstacles only. A cached grown raster of
/// the static scene plus a few moving bodies rasterised into src is the use. false (dst
/// unchanged) when the sizes differ.
bool tpNavGrid_AddGrown(tpNavGrid *dst, const tpNavGrid *src);
/// Flags of cell (i, j): TP_NAV_FREE, TP_NAV_OBSTACLE or TP_NAV_GROWN; cells outside the grid
/// report TP_NAV_OBSTACLE.
int tpNavGrid_Cell(const tpNavGrid *grid, int i, int j);
/// True if the cell is outside, an obstacle or grown.
bool tpNavGrid_Blocked(const tpNavGrid *grid, int i, int j);
/// Cell containing world point (x, y); false if it is outside the grid.
bool tpNavGrid_CellOf(const tpNavGrid *grid, double x, double y, int *i, int *j);
/// Moves (i, j) (clamped into the grid first) to the nearest free cell, searching square rings of
/// growing radius (row-major within a ring). False if every cell is blocked.
bool tpNavGrid_NearestFree(const tpNavGrid *grid, int *i, int *j);
/// World centre of cell (i, j).
void tpNavGrid_CellCenter(const tpNavGrid *grid, int i, int j, double xy[2]);
/// Number of blocked cells (obstacle or grown).
int tpNavGrid_BlockedCount(const tpNavGrid *grid);

/* ------------------------------------------------------------------------------------------ */
/* Search                                                                                      */

typedef enum { TP_NAV_DIJKSTRA = 0, TP_NAV_ASTAR = 1 } tpNavAlgo;

typedef enum {
    TP_NAV_OK = 0,
    TP_NAV_NO_PATH = 1,       /* start and goal are in different free components */
    TP_NAV_START_BLOCKED = 2, /* start outside the grid or in a blocked cell */
    TP_NAV_GOAL_BLOCKED = 3,  /* goal outside the grid or in a blocked cell */
} tpNavResult;

/// Search options. Get defaults from tpDefaultNavPlanDef().
typedef struct tpNavPlanDef {
    tpNavAlgo algo; /* default TP_NAV_ASTAR */
    double diag;    /* diagonal step cost in cells, in [1, 2] (default 1.4 as in the paper) */
    bool smooth;    /* line-of-sight smoothing of the polyline (default false) */
    int max_points; /* > 0: keep only the first max_points polyline vertices (after smoothing,
                       which then stops there: a caller that follows the first leg of a path it
                       replans does not pay for smoothing the rest); 0 (default): all */
} tpNavPlanDef;

tpNavPlanDef tpDefaultNavPlanDef(void);

/// A planned path. Owned by the caller; free with tpNavPath_Free. Zero-initialise before first use.
typedef struct tpNavPath {
    int ncells;     /* cells of the grid path, start to goal (1 if start cell == goal cell) */
    int *cells;     /* cell indices j*nx + i */
    int npoints;    /* polyline vertices: the cell centres, or after smoothing a subset of them */
    double *points; /* npoints x (x, y) in m */
    double cost;    /* grid cost of the cell path in cells (sum of 1 and diag steps) */
    double length;  /* m: Euclidean length of the polyline */
    int expanded;   /* cells expanded by the search */
} tpNavPath;

/// Plans from world point start to world point goal. Fills `path` (reusing its buffers) on
/// TP_NAV_OK; on failure path->ncells = path->npoints = 0 and the result says why. Uses scratch
/// memory inside the grid, so one grid must not be searched from two threads at once.
/// `def` may be NULL (defaults).
tpNavResult tpNav_Plan(tpNavGrid *grid, const tpNavPlanDef *def, const double start[2], const double goal[2],
                       tpNavPath *path);
/// Same with cell coordinates.
tpNavResult tpNav_PlanCells(tpNavGrid *grid, const tpNavPlanDef *def, int si, int sj, int gi, int gj, tpNavPath *path);
/// Dijkstra from cell (gi, gj) over the whole grid: cost[k] = minimal cost from cell k to the goal
/// (cells; -1 for blocked or unreachable cells). cost has nx*ny entries. Returns the number of
/// reachable cells, or -1 if the goal cell is blocked or outside.
int tpNav_CostField(tpNavGrid *grid, double diag, int gi, int gj, double *cost);
/// True if the straight segment between world points a and b only crosses free cells (cells
/// touched only at a corner do not count); false if it leaves the grid.
bool tpNav_LineOfSight(const tpNavGrid *grid, const double a[2], const double b[2]);
/// Frees the path's buffers and zeroes it.
void tpNavPath_Free(tpNavPath *path);
/// Human-readable name of a result ("ok", "no path", ...).
const char *tpNavResult_Name(tpNavResult result);

/* ------------------------------------------------------------------------------------------ */
/* Path-following controller (Kuffner Sec. 7)                                                  */

/// Oriented disc: position, heading, forward speed, yaw rate. Plain value type.
typedef struct tpNavAgent {
    double x, y;  /* m */
    double theta; /* rad, heading (forward direction) */
    double v;     /* m/s along the heading (never negative under the controller) */
    double omega; /* rad/s */
} tpNavAgent;

/// Controller constants. Get defaults from tpDefaultNavFollowDef().
typedef struct tpNavFollowDef {
    double kp;          /* 1/s: position gain near the goal, v^ = kp * distance (default 1) */
    double ktheta;      /* 1/s: orientation gain, omega^ = ktheta * heading error (default 5) */
    double kv;          /* 1/s: speed gain, a = kv (v^ - v) (default 5) */
    double komega;      /* 1/s: yaw-rate gain, alpha = komega (omega^ - omega) (default 10) */
    double dt;          /* s: integration step of tpNavFollower_Step (default 1/30) */
    double speed;       /* m/s: canonical speed V (default 1) */
    double theta_turn;  /* rad: above this heading error slow to turn_speed (default pi/3) */
    double turn_speed;  /* m/s: the small speed while turning (default 0.1) */
    double lookahead;   /* m: the desired point is this far ahead along the path (default 0.5) */
    double stop_radius; /* m: within it of the goal the agent stops (default 0.05) */
} tpNavFollowDef;

tpNavFollowDef tpDefaultNavFollowDef(void);

/// Path follower: a copy of the path plus the progress along it. Zero-initialise, then
/// tpNavFollower_SetPath; free with tpNavFollower_Free.
typedef struct tpNavFollower {
    tpNavFollowDef def;
    int npoints;
    double *points;   /* owned copy, npoints x (x, y) */
    int seg;          /* progress: segment index (points[seg] -> points[seg+1]) */
    double s;         /* progress: fraction along that segment in [0, 1] */
    bool done;        /* the agent reached the goal (within stop_radius) */
    double target[2]; /* last desired point p^ (m), for viewers */
} tpNavFollower;

/// Sets the constants (def NULL = defaults) and clears the path.
void tpNavFollower_Init(tpNavFollower *f, const tpNavFollowDef *def);
/// Replaces the path (npoints >= 1, copied). Progress restarts at the point of the new path
/// nearest to the agent's position (x, y); the agent's state is not touched, so replacing the
/// path mid-run causes no jump in position, heading or speeds. Returns false on allocation failure.
bool tpNavFollower_SetPath(tpNavFollower *f, const double *points, int npoints, double x, double y);
/// Computes the controls (a in m/s², alpha in rad/s²) for the agent's state and advances the
/// progress. With no path the agent brakes to rest.
void tpNavFollower_Control(tpNavFollower *f, const tpNavAgent *agent, double *a, double *alpha);
/// Control plus one explicit Euler step of length def.dt (Kuffner Sec. 7.1).
void tpNavFollower_Step(tpNavFollower *f, tpNavAgent *agent);
/// Frees the path copy.
void tpNavFollower_Free(tpNavFollower *f);

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

/* ------------------------------------------------------------------------------------------ */
/* Vehicles (Adam 2007): the planar car of Appendix A, automatic move trees, finite-horizon A*  */
/*
 * Frame: x forward, y left, heading and yaw rate counter-clockwise, steering positive to the left
 * (the mirror image of the thesis's y-right frame; every formula of Appendix A is odd in the
 * mirrored quantities, so it carries over unchanged).
 */

/// Car constants (Appendix A). Get them from tpDefaultNavCarDef().
typedef struct tpNavCarDef {
    double drag;          /* DRAG 4.0: air drag factor, N per (m/s)^2 */
    double resistance;    /* RESISTANCE 20.0: rolling resistance, N per m/s */
    double ca_r;          /* CAR -4.20: rear cornering stiffness (per rad, of the normalised force) */
    double ca_f;          /* CAF -4.0: front cornering stiffness */
    double max_grip;      /* MAXGRIP 3.0: cap of the normalised lateral force */
    double cg_front;      /* m, CG to front axle (1) */
    double cg_rear;       /* m, CG to rear axle (1) */
    double mass;          /* kg (1500) */
    double inertia;       /* kg m^2 (1500) */
    double gravity;       /* m/s^2 (9.8, as in the thesis) */
    double traction;      /* N per throttle unit (100) */
    double length, width; /* m, collision rectangle (4.0 x 1.8) */
} tpNavCarDef;

tpNavCarDef tpDefaultNavCarDef(void);

/// Planar car state in the world frame.
typedef struct tpNavCarState {
    double x, y, heading; /* m, m, rad */
    double vx, vy, omega; /* m/s (world), rad/s */
} tpNavCarState;

/// Forces of one evaluation.
typedef struct tpNavCarForces {
    double force[2];  /* N, world frame (apply at the CG) */
    double torque;    /* N m about +z */
    double lat_front; /* N, lateral force of the front axle (car frame, + = left) */
    double lat_rear;  /* N, rear axle */
    double sideslip;  /* rad, beta = atan2(v_lat, v_long) */
} tpNavCarForces;

/// Appendix A: forces and torque for a state and controls (steer in rad, throttle and brake in
/// [0, 100]). Pure; usable to drive a physics body.
void tpNavCar_Forces(const tpNavCarDef *car, const tpNavCarState *s, double steer, double throttle, double brake,
                     tpNavCarForces *out);
/// One explicit Euler step (velocity, then position with the new velocity, as in Appendix A).
void tpNavCar_Step(const tpNavCarDef *car, tpNavCarState *s, double steer, double throttle, double brake, double dt);

/// Move-tree construction options. Get defaults from tpDefaultNavMoveTreeDef().
typedef struct tpNavMoveTreeDef {
    int nlevels;       /* speed levels (7: Stop, sm1, sm2, Med, mf1, mf2, Fast) */
    double levels[8];  /* m/s (0, 4, 8, 12, 16, 20, 24) */
    int nsteer;        /* turn sharpnesses per side (3) */
    double steer[4];   /* rad (0.05, 0.15, 0.45); sharp ones survive only at low speed */
    double skid_steer; /* rad, the skid clips' steering, on full brakes (0.5) */
    double clip_time;  /* s per clip (25 frames at 30 Hz = 0.8333) */
    double frame_dt;   /* s between recorded frames (1/30) */
    int substeps;      /* physics steps per frame (4) */
    double match_eps;  /* |dvx| + |dvy| + |domega| below which an end state matches a level (1.0) */
    double skid_slip;  /* rad: a clip whose rear tyre slip angle exceeds this is a skid (0.3; ordinary turns stay below
                          0.25) */
} tpNavMoveTreeDef;

tpNavMoveTreeDef tpDefaultNavMoveTreeDef(void);

#define TP_NAV_CLIP_FRAMES 64

/// One motion clip: the car's pose relative to the clip's start (start at the origin, heading 0)
/// at every frame, simulated from the steady straight state of level `from`.
typedef struct tpNavClip {
    int from, to;                           /* speed levels at the start and (matched) end */
    double steer;                           /* rad, the turn phase's steering (0 = straight) */
    bool skid;                              /* the rear tyres slid: max rear slip angle > skid_slip */
    double rear_slip;                       /* rad, largest |rear slip angle| while faster than 1 m/s */
    double max_slip;                        /* rad, largest |sideslip| while faster than 1 m/s */
    int nframes;                            /* frames after the start (clip_time / frame_dt) */
    double frame[TP_NAV_CLIP_FRAMES][3];    /* x, y (m), heading (rad) relative to the start */
    double frame_cs[TP_NAV_CLIP_FRAMES][2]; /* cos and sin of each frame's relative heading */
    double control[TP_NAV_CLIP_FRAMES][3];  /* steer (rad), throttle, brake at the start of each frame */
    double end_vel[3];                      /* end velocity in the car frame: forward, left (m/s), yaw rate (rad/s) */
    double end_error;                       /* |dvx| + |dvy| + |domega| to level `to`'s steady state */
    double bound[3]; /* x, y, r (m): a circle around every frame's car rectangle (quick rejects) */
} tpNavClip;

typedef struct tpNavMoveTree tpNavMoveTree;

/// Builds the move tree by simulating clips (the thesis's future work 5.1): from every level's
/// steady state, straight / left / right turns of every sharpness toward the same, the next and
/// the previous level (a turn phase, then a yaw-damping straightening phase), and skid clips
/// (sharp steering with the brakes) from Med and faster; a clip is kept only if its end state
/// matches a level's steady state within match_eps. NULL on bad options.
tpNavMoveTree *tpCreateNavMoveTree(const tpNavCarDef *car, const tpNavMoveTreeDef *def, char *err, size_t errlen);
void tpDestroyNavMoveTree(tpNavMoveTree *tree);
int tpNavMoveTree_ClipCount(const tpNavMoveTree *tree);
const tpNavClip *tpNavMoveTree_Clip(const tpNavMoveTree *tree, int k);
/// Clips starting at a level (indices into the tree), and its count.
int tpNavMoveTree_ClipsFrom(const tpNavMoveTree *tree, int level, const int **clips);
const tpNavMoveTreeDef *tpNavMoveTree_Def(const tpNavMoveTree *tree);

/// A car moving at constant velocity (an obstacle), or along a known path (a scripted body whose
/// future poses are known: traffic that follows the road round a corner).
typedef struct tpNavTrafficCar {
    double pos[2], vel[2]; /* m, m/s at time 0 */
    double heading;        /* rad */
    double length, width;  /* m */
    /* Optional known motion (npath 0 = none: constant velocity from pos at vel, heading fixed).
       npath >= 2: the pose at time k * path_dt is path[k] = {x, y, heading} (m, m, rad; heading
       continuous, not wrapped), linearly interpolated between samples; before 0 the first pose,
       after the last it moves on at the last interval's velocity and heading. pos, vel and
       heading are then not used. */
    int npath;
    const double (*path)[3]; /* npath samples; not owned, must outlive the calls using the track */
    double path_dt;          /* s between samples, > 0 */
} tpNavTrafficCar;

/// A track: walls as 2D segments, traffic, a goal point and a finish line.
typedef struct tpNavTrack {
    int nwalls;
    const double (*walls)[4]; /* x0, y0, x1, y1 (m) */
    int ncars;
    const tpNavTrafficCar *cars;
    double goal[2];   /* A* heads here (straight-line distance / top speed) */
    double finish[4]; /* finish line segment; crossing it ends the run */
} tpNavTrack;

typedef struct tpNavToGo tpNavToGo;

/// Distance-to-goal field of a track for the A* heuristic (the thesis's straight-line distance
/// ignores the walls, its weakness 5.4): the walls rasterised on a grid of `cell` m over their
/// bounding box and the goal (plus a margin), 8-connected Dijkstra (diagonal sqrt 2) from the
/// goal cell; h = max(0, cells * cell / 1.0824 - 2 cell) (octile length is at most 1.0824 times
/// the Euclidean one; the 2-cell slack covers walls that block a whole cell). Each wall is drawn
/// as a quad 0.02 cell wide around its segment (and 0.01 cell beyond each end), so it blocks
/// whatever its alignment: a wall on a cell boundary blocks the cells on both sides, one through
/// cell corners blocks the diagonal steps across it. NULL on bad input.
tpNavToGo *tpCreateNavToGo(const tpNavTrack *track, double cell, char *err, size_t errlen);
void tpDestroyNavToGo(tpNavToGo *togo);
/// Distance to go (m) from a point; the straight-line distance off the grid or in a blocked cell.
double tpNavToGo_Distance(const tpNavToGo *togo, const tpNavTrack *track, double x, double y);

/// Working memory of tpNavCar_Plan (nodes, heap, closed set, per-decision scene data), kept across
/// decisions so that a search neither allocates nor first-touches fresh pages. It holds nothing from
/// one call to the next: a decision is the same with a fresh scratch, a reused one or none. One
/// search at a time per scratch. tpCreateNavCarScratch returns NULL when out of memory.
typedef struct tpNavCarScratch tpNavCarScratch;
tpNavCarScratch *tpCreateNavCarScratch(void);
/// Frees a scratch and its buffers. NULL is allowed.
void tpDestroyNavCarScratch(tpNavCarScratch *scratch);

/// Search options. Get defaults from tpDefaultNavCarPlanDef().
typedef struct tpNavCarPlanDef {
    int depth;             /* horizon in clips (6) */
    int node_limit;        /* nodes generated per decision (45000) */
    int checks;            /* collision checks per clip_time of clip, evenly spread, the last at its end (12: at
                              24 m/s the car moves 1.7 m between checks, less than its width) */
    const tpNavToGo *togo; /* NULL: straight-line heuristic as in the thesis (default NULL) */
    /* Optional observer of the search (recordings and viewers; default NULL): called for the root
       (id 0, parent -1, clip -1) and for every generated node, with its end pose (x, y, heading). */
    void (*on_node)(void *user, int id, int parent, int clip, const double pose[3]);
    void *on_node_user;
    double closed_cell;       /* m: > 0 enables a closed set keyed on the discretised state (x, y in cells of
                                 this size, heading in closed_angle bins, speed level): a child whose cell already
                                 holds a node reached no later (g) with no more clips (depth) is dropped.
                                 0 = off, the plain tree search of the thesis (default 0) */
    double closed_angle;      /* rad: heading bin of the closed set (default 0.1745 = 10 degrees) */
    tpNavCarScratch *scratch; /* not owned: buffers reused across calls (grown as needed); NULL = the call
                                 allocates and frees its own (default NULL) */
    int max_level;            /* highest speed level a clip may end at (a clip slowing down from above it is
                                 allowed); -1 = any (default) */
} tpNavCarPlanDef;

tpNavCarPlanDef tpDefaultNavCarPlanDef(void);

/// The planned decision.
typedef struct tpNavCarDecision {
    int clip;      /* clip to play next (-1: every clip collides) */
    int nodes;     /* nodes generated */
    int depth;     /* depth of the chosen path's end */
    double f;      /* its g + h (s) */
    bool finishes; /* the chosen path crosses the finish line */
    int best;      /* node id (as given to on_node) of the chosen path's end, -1 if none */
} tpNavCarDecision;

/// One finite-horizon A* decision from pose (x, y, heading) at speed level `level` and time t:
/// node cost g = elapsed time, h = straight-line distance to the goal / top clip speed
/// (admissible), children collide-checked against the walls and the traffic at time t + their
/// frame times. The first node popped at the horizon (or across the finish line) is the best
/// path, since f never decreases along pops; at the node limit the best open node is taken.
tpNavCarDecision tpNavCar_Plan(const tpNavMoveTree *tree, const tpNavTrack *track, const tpNavCarPlanDef *def,
                               const double pose[3], int level, double t);
/// True if the car rectangle at pose (x, y, heading) at time t touches a wall or a traffic car.
bool tpNavCar_Collides(const tpNavMoveTree *tree, const tpNavTrack *track, const double pose[3], double t);

#define TP_NAV_TRACK_MAX_WALLS 65536 /* walls in a track file */
#define TP_NAV_TRACK_MAX_CARS 4096   /* cars in a track file */
#define TP_NAV_TRACK_MAX_ANGLE 1e3   /* rad: |heading| in a track file */

/// A track read from a data file (see docs/navigation.md, "Track files"). Owns its arrays.
typedef struct tpNavTrackFile {
    char name[64];
    tpNavTrack track; /* points into walls / cars below */
    double start[3];  /* x, y, heading */
    double (*walls)[4];
    tpNavTrafficCar *cars;
} tpNavTrackFile;

/// Reads a JSON track file: {"name", "walls": [[x0, y0, x1, y1], ...], "cars": [{"pos": [x, y],
/// "vel": [vx, vy], "heading", "length", "width"}, ...], "start": [x, y, heading], "goal": [x, y],
/// "finish": [x0, y0, x1, y1]}. NULL with a message naming the file and the field on bad input:
/// a non-regular file or one larger than TP_MAX_DATA_BYTES, more than TP_NAV_TRACK_MAX_WALLS walls
/// or TP_NAV_TRACK_MAX_CARS cars, a name of 64 bytes or more, coordinates, lengths and widths
/// beyond +-TP_MAX_COORD, speeds beyond TP_MAX_SPEED, headings beyond +-TP_NAV_TRACK_MAX_ANGLE.
/// The caller frees the result with tpNavTrack_Free.
tpNavTrackFile *tpNavTrack_Load(const char *path, char *err, size_t errlen);
/// Same as tpNavTrack_Load, from the len bytes at text (need not be NUL-terminated, not kept);
/// path (not NULL) stands for the file in messages.
tpNavTrackFile *tpNavTrack_Parse(const char *text, size_t len, const char *path, char *err, size_t errlen);
/// Frees a track file and its arrays. NULL is allowed.
void tpNavTrack_Free(tpNavTrackFile *track);

/// Result of a drive.
typedef struct tpNavDriveResult {
    bool finished, crashed;
    double time;            /* s at the finish or the crash (or the limit) */
    int clips, skids;       /* clips played, of which skid clips */
    double max_decision_ms; /* slowest decision (wall clock; reporting only) */
    bool stopped;           /* on_clip asked to stop */
} tpNavDriveResult;

/// Drives a track by replanning at every clip boundary and playing the chosen clip (aligned to
/// the current pose) until the finish line, a collision, or `max_time`. `on_clip` (may be NULL)
/// sees every decision; returning false stops the drive there (r.stopped: a caller's deadline).
tpNavDriveResult tpNavCar_Drive(const tpNavMoveTree *tree, const tpNavTrack *track, const tpNavCarPlanDef *def,
                                const double start[3], int level, double max_time,
                                bool (*on_clip)(void *user, const double pose[3], int clip), void *user);

/* ------------------------------------------------------------------------------------------ */
/* Space-time navigation over moving surfaces (Lopez, Lamarche & Li 2011)                       */
/*
 * Bodies are boxes turned about +z only (centre, half extents, yaw) with a linear velocity and a
 * yaw rate. The top face of every body flagged `surface` is a navigable surface: the character
 * (a vertical cylinder of `height` and `radius` whose root is the bottom centre) stands with its
 * root anywhere on the face inset by `edge` (the standable rectangle; a face narrower than
 * 2 edge is not navigable). Body index = surface index.
 *
 * Interaction volumes, reduced to exact tests between standable rectangles:
 *  - accessibility i -> j (a step or a jump): with dz = top_j - top_i and d the horizontal
 *    distance between the two standable rectangles, a STEP holds when -step_down <= dz <= step_up
 *    and d <= step_gap; a JUMP (when `jump`) when d <= reach(dz), the farthest ballistic landing
 *    with vertical impulse <= jump_vz, horizontal impulse <= jump_vh and vertical landing speed
 *    <= land_speed (reach = 0 when dz cannot be reached at all);
 *  - obstruction of surface s by body b: b's box meets the slab (top_s + step_up, top_s + height)
 *    above s's face grown by radius, both swept over the extrapolation horizon.
 * The topological graph learns by observation only: tpNavSpace_Update gets the bodies' current
 * poses and velocities, tests every ordered pair, and keeps per accessibility edge the number of
 * validity periods, the mean valid and not-valid durations of completed periods, the mean relative
 * speed while valid, and the access point (source face) and landing point (target face), in the
 * surfaces' own frames, of the valid observation with the smallest relative speed (the latest on
 * ties: an elevator's pause, not the moment it leaves). No motion is ever given to the graph.
 * Global planner: Dijkstra over the usable edges (stable: cost epsilon; periodic, i.e. a full
 * valid / not-valid / valid cycle seen: cost = mean valid + mean not-valid time; valid now but not
 * yet periodic: epsilon; discarded: mean relative speed > max_rel_speed, mean validity < min_valid,
 * or neither periodic nor valid now). Local planner: space-time A* on the surface's grid (cells of
 * at most `cell`, 4-connected moves of one tick = cell / speed, or waiting one tick), the obstacles
 * related to the surface extrapolated linearly up to `horizon` (static beyond), to the nearest of
 * several targets: the goal, or the cells around the next edge's access point.
 */

/// Character and planner constants. Get defaults from tpDefaultNavSpaceDef().
typedef struct tpNavSpaceDef {
    double height;        /* m, character cylinder height (default 0.5, the paper's) */
    double radius;        /* m, character cylinder radius (default 0.2) */
    double edge;          /* m, inset of the standable rectangle from a face's border (default 0.1) */
    double step_up;       /* m, highest step walked up (default 0.25) */
    double step_down;     /* m, deepest step walked down (default 0.45) */
    double step_gap;      /* m, widest gap between standable rectangles stepped across (default 0.3) */
    bool jump;            /* jumping allowed (default true) */
    double jump_vz;       /* m/s, largest vertical impulse speed (default 2, the paper's) */
    double jump_vh;       /* m/s, largest horizontal impulse speed (default 2) */
    double land_speed;    /* m/s, largest vertical landing speed (default 3) */
    double gravity;       /* m/s^2 (default 9.81) */
    double speed;         /* m/s, walking speed (default 1) */
    double cell;          /* m, largest local grid cell (default 0.1) */
    double horizon;       /* s, linear extrapolation limit (default 2) */
    int max_nodes;        /* node limit of one local search (default 200000) */
    double min_valid;     /* s, relations valid shorter on average are discarded (default 0.3) */
    double max_rel_speed; /* m/s, relations moving faster on average are discarded (default 3) */
    double epsilon;       /* cost of a stable or currently valid relation (default 0.01) */
    double check_time;    /* s, the followed path is rechecked this far ahead at every step (default 1) */
} tpNavSpaceDef;

tpNavSpaceDef tpDefaultNavSpaceDef(void);

/// One observed body: a box turned about +z. Plain value type.
typedef struct tpNavSpaceBody {
    double center[3]; /* m, world */
    double half[3];   /* m, half extents (>= 0) */
    double yaw;       /* rad */
    double vel[3];    /* m/s, linear velocity of the centre */
    double yaw_rate;  /* rad/s */
    bool surface;     /* its top face may be stood on (default in tpNavSpace_Box: true) */
} tpNavSpaceBody;

/// A body with zero velocity, `surface` true.
tpNavSpaceBody tpNavSpace_Box(double cx, double cy, double cz, double hx, double hy, double hz, double yaw);

#define TP_NAV_SPACE_MAX_BODIES 1024

typedef enum { TP_NAV_REL_STEP = 1, TP_NAV_REL_JUMP = 2 } tpNavRelation;

/// An accessibility edge of the topological graph (read-only for callers).
typedef struct tpNavSpaceEdge {
    int from, to;         /* surfaces (body indices) */
    tpNavRelation kind;   /* of the last valid observation */
    bool valid;           /* holds at the last update */
    bool stable;          /* held at every update since the graph's first */
    int periods;          /* validity periods begun (rising edges, the first observation included) */
    int nvalid, ninvalid; /* completed valid periods and completed not-valid gaps */
    double mean_valid;    /* s, mean length of the completed valid periods (0 if none) */
    double mean_invalid;  /* s, mean length of the completed gaps (0 if none) */
    double mean_speed;    /* m/s, mean relative speed of the two faces while valid */
    int nspeed;           /* observations in mean_speed */
    double since;         /* s, update time at which the current state (valid or not) began */
    double access[2];     /* m, source point in from's frame (slowest valid observation, latest on ties) */
    double land[2];       /* m, landing point in to's frame (same observation) */
    double access_speed;  /* m/s, relative speed of the faces at that observation */
} tpNavSpaceEdge;

/// Counters and cumulative wall-clock times (reporting only; never used by the planner).
typedef struct tpNavSpaceStats {
    long long updates;           /* tpNavSpace_Update calls */
    long long checks;            /* interaction-volume pair tests (accessibility + obstruction) */
    double cd_ms;                /* ms in those tests (one update in 16 timed, times 16) */
    double graph_ms;             /* ms in updating the edges' statistics (sampled the same way) */
    long long plans;             /* local plans (first plans and replans) */
    long long routes;            /* global plans */
    double plan_ms;              /* ms in global + local planning */
    long long obstruction_tests; /* character-vs-obstacle tests of the local searches */
    double obstruction_ms;       /* ms in those tests (measured per search node) */
    long long expanded;          /* nodes expanded by the local searches */
} tpNavSpaceStats;

typedef struct tpNavSpace tpNavSpace;

/// A space of `nbodies` bodies (1..TP_NAV_SPACE_MAX_BODIES), no observation yet. NULL with a
/// message naming the field on bad input. Free with tpDestroyNavSpace.
tpNavSpace *tpCreateNavSpace(const tpNavSpaceDef *def, int nbodies, char *err, size_t errlen);
void tpDestroyNavSpace(tpNavSpace *space);
/// A new space that has observed exactly what `space` has (bodies, relations and their
/// statistics, counters), as if it had been given the same updates; its search scratch starts
/// empty. NULL when out of memory. Free with tpDestroyNavSpace.
tpNavSpace *tpCloneNavSpace(const tpNavSpace *space);
const tpNavSpaceDef *tpNavSpace_Def(const tpNavSpace *space);
int tpNavSpace_BodyCount(const tpNavSpace *space);
/// Bytes the space holds (for memory accounting), edges and scratch included.
size_t tpNavSpace_Bytes(const tpNavSpace *space);
/// Observes the bodies (nbodies of them, copied) at time t (s; strictly increasing across calls):
/// detects the relations that hold now and updates the graph. False with a message naming the
/// body and field on bad input (the graph is then unchanged).
bool tpNavSpace_Update(tpNavSpace *space, double t, const tpNavSpaceBody *bodies, char *err, size_t errlen);
/// The last observed body k (NULL before the first update or out of range).
const tpNavSpaceBody *tpNavSpace_Body(const tpNavSpace *space, int k);
/// True if body k's top face is navigable (a surface with a non-empty standable rectangle).
bool tpNavSpace_IsSurface(const tpNavSpace *space, int k);
int tpNavSpace_EdgeCount(const tpNavSpace *space);
const tpNavSpaceEdge *tpNavSpace_Edge(const tpNavSpace *space, int k);
/// The edge from -> to, NULL if that relation was never observed.
const tpNavSpaceEdge *tpNavSpace_FindEdge(const tpNavSpace *space, int from, int to);
/// True if the edge is periodic (a complete valid, not-valid, valid cycle was observed).
bool tpNavSpace_EdgePeriodic(const tpNavSpaceEdge *edge);
/// Cost of the edge for the global planner, or -1 if the filter discards it (see above).
double tpNavSpace_EdgeCost(const tpNavSpace *space, const tpNavSpaceEdge *edge);
/// World point of local point p of surface k at its last observation (z = top of the face).
void tpNavSpace_ToWorld(const tpNavSpace *space, int k, const double p[2], double out[3]);
/// The surface under world point w: the highest face whose standable rectangle contains (x, y)
/// with top <= z + step_up; writes the local point. -1 if none.
int tpNavSpace_Locate(const tpNavSpace *space, const double w[3], double local[2]);
/// True if the character standing at local point p of surface k, `ahead` s after the last
/// observation (linear extrapolation, clamped to the horizon), meets an obstacle related to k (also
/// true for a body that is not a surface).
bool tpNavSpace_Blocked(tpNavSpace *space, int k, const double p[2], double ahead);
const tpNavSpaceStats *tpNavSpace_Stats(const tpNavSpace *space);
void tpNavSpace_ResetStats(tpNavSpace *space);

/// The relation (step, jump, or 0 = none) a character standing at local point p of body `from`
/// can take now to local point `land` of body `to` (bodies as given: no space needed): it must hold
/// both now and with `to` extrapolated to the landing time. Writes the duration (s; walking time
/// of a step, flight time of a jump) and the extrapolated world landing point (x, y, top); both
/// may be NULL. Used by the agent and by the `ride` skill.
tpNavRelation tpNavSpace_Transfer(const tpNavSpaceDef *def, const tpNavSpaceBody *from, const double p[2],
                                  const tpNavSpaceBody *to, const double land[2], double *duration, double landing[3]);

#define TP_NAV_ROUTE_MAX 64

/// A global plan: the surfaces to cross, start to goal.
typedef struct tpNavSpaceRoute {
    int nsurfaces;                  /* 1..TP_NAV_ROUTE_MAX (1: already on the goal's surface) */
    int surfaces[TP_NAV_ROUTE_MAX]; /* body indices */
    double cost;                    /* sum of the edge costs */
} tpNavSpaceRoute;

/// Dijkstra over the filtered graph (ties by surface index). False if the goal surface is not
/// reachable with the relations observed so far (or the route is longer than TP_NAV_ROUTE_MAX).
bool tpNavSpace_Route(tpNavSpace *space, int from, int to, tpNavSpaceRoute *route);

/// A local space-time path on one surface: points in the surface's frame with absolute times.
typedef struct tpNavSpacePath {
    int surface;    /* body index */
    int npoints;    /* >= 1 */
    int capacity;   /* allocated points */
    double *points; /* npoints x (x, y, t): m, m, s (owned; free with tpNavSpacePath_Free) */
    int target;     /* -1: the goal; else the index of the edge whose access point is reached */
    int expanded;   /* nodes expanded by the search */
} tpNavSpacePath;

void tpNavSpacePath_Free(tpNavSpacePath *path);

/// Multi-target space-time A* on surface `surface` from local point start at time t (the last
/// update's time or later): to the goal cell if goal is not NULL, and to the cells within 1.5
/// cells of the access point of each edge in edges[0..nedges). False if no target can be reached
/// within max_nodes; path is filled on success.
bool tpNavSpace_PlanLocal(tpNavSpace *space, int surface, const double start[2], double t, const double goal[2],
                          const int *edges, int nedges, tpNavSpacePath *path);

typedef enum {
    TP_NAV_AGENT_NO_ROUTE = 0, /* no usable route yet: keeps observing */
    TP_NAV_AGENT_WALK,         /* following a local path */
    TP_NAV_AGENT_WAIT,         /* at an access point, waiting for the relation to hold */
    TP_NAV_AGENT_TRANSFER,     /* stepping or jumping to the next surface */
    TP_NAV_AGENT_DONE,         /* at the goal */
    TP_NAV_AGENT_FELL,         /* the landing point was no longer on the target surface */
} tpNavAgentMode;

/// A character driven by the two-level planner. Zero-initialise, then tpNavSpaceAgent_Init;
/// free with tpNavSpaceAgent_Free.
typedef struct tpNavSpaceAgent {
    int surface;     /* body index it stands on */
    double local[2]; /* m, position in the surface's frame */
    double pos[3];   /* m, world position of the root (after the last step) */
    double t;        /* s, the agent's clock */
    tpNavAgentMode mode;
    int goal_surface;      /* body index of the goal */
    double goal[2];        /* m, goal in its surface's frame */
    tpNavSpaceRoute route; /* the current global plan */
    int edge;              /* edge index being waited for / taken, -1 if none */
    tpNavSpacePath path;   /* the current local plan */
    int replans;           /* local plans made after an unexpected obstruction */
    int transfers;         /* surfaces changed */
    double wait_time;      /* s, total time spent waiting at access points */
    double tr_start[3];    /* transfer: world start point (m) */
    double tr_land[3];     /* transfer: world landing point extrapolated at the take-off (m) */
    double tr_t0, tr_time; /* transfer: start time and duration (s) */
    double tr_apex;        /* transfer: m, height of the jump's apex above the straight line */
    int tr_to;             /* transfer: target surface */
} tpNavSpaceAgent;

/// Places the agent at local point p of `surface` at time t with goal (goal_surface, goal).
void tpNavSpaceAgent_Init(tpNavSpaceAgent *agent, int surface, const double p[2], int goal_surface,
                          const double goal[2], double t);
/// Advances the agent to time t (> its clock; call after the tpNavSpace_Update of time t): routes,
/// plans, follows the local path, waits, transfers when the relation holds, replans when the path
/// ahead (check_time) is now obstructed. Returns the mode.
tpNavAgentMode tpNavSpaceAgent_Step(tpNavSpace *space, tpNavSpaceAgent *agent, double t);
void tpNavSpaceAgent_Free(tpNavSpaceAgent *agent);
const char *tpNavAgentMode_Name(tpNavAgentMode mode);

#ifdef __cplusplus
}
#endif
#endif
