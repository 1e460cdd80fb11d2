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
#ifndef TP_NAV_GRID_H
#define TP_NAV_GRID_H

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
    double max_omega;   /* rad/s: |omega^| limit, 0 = none (default 0: Kuffner's law) */
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
    double omega_cmd; /* rad/s: last commanded yaw rate omega^ (0 when done or without a path) */
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

#ifdef __cplusplus
}
#endif
#endif
