/* tplan navigation: space-time navigation over moving surfaces (Lopez, Lamarche & Li 2011).
 * Part of tp_nav: tp/nav.h includes every part. */
#ifndef TP_NAV_SPACE_H
#define TP_NAV_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp/nav_grid.h"

#ifdef __cplusplus
extern "C" {
#endif

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
