/* Space-time navigation (nav_space.c: the space, its geometry and what it learns from
 * observations; nav_space_plan.c: routes over the learnt graph, local space-time search on a
 * surface, the agent): the space's layout and the geometry both halves use. */
#ifndef TP_NAV_SPACE_INTERNAL_H
#define TP_NAV_SPACE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tp/nav.h"
#include "tp/util.h"

/* A standable rectangle (or a footprint) in the world at one instant. */
typedef struct tpRect {
    double c[2];  /* m, centre */
    double ax[2]; /* unit x axis of the local frame */
    double h[2];  /* m, half extents */
    double top;   /* m, z of the face */
} tpRect;

/* A relation detected by an update (phase 1), applied to the graph in phase 2. */
typedef struct tpSpaceHit {
    int i, j; /* from, to */
    tpNavRelation kind;
    double ps[2], pt[2]; /* m, world access and landing points */
} tpSpaceHit;

struct tpNavSpace {
    tpNavSpaceDef def;
    int n;                  /* bodies */
    tpNavSpaceBody *bodies; /* last observation, n */
    bool observed;
    double t;       /* s, time of the last observation */
    double t_first; /* s, time of the first observation */
    long long nupdates;
    int *edge_of;          /* n*n: edge index of (from, to), -1 none */
    tpNavSpaceEdge *edges; /* nedges edges (room for cap_edges) */
    int nedges;
    size_t cap_edges;
    tpSpaceHit *hits; /* relations of the current update (scratch, room for cap_hits) */
    size_t cap_hits;
    uint8_t *edge_now; /* per edge: seen valid in the current update (scratch, cap_now bytes) */
    size_t cap_now;
    int *obst;  /* per surface, the obstructing bodies: obst[s*n .. s*n + nobst[s]) */
    int *nobst; /* n */
    tpNavSpaceStats stats;
    /* local search scratch (reused) */
    int *target_of; /* per cell: -2 none, -1 goal, else edge index */
    size_t cap_cells;
    uint8_t *closed;                 /* bitset over (cell, min(tick, H)) */
    size_t cap_closed;               /* bytes */
    int *n_cell, *n_tick, *n_parent; /* node pool */
    double *n_g;
    size_t cap_nodes;
    tpBucketQueue open;     /* open list: f = g + h in ticks (integers), ties to the older node */
    struct tpTickObs *tobs; /* per search tick (H + 1) x obstructing bodies, see tick_blocked */
    tpRect *tsurf;          /* per search tick: the surface's face */
    uint8_t *tready;        /* per search tick: computed */
    size_t cap_tobs, cap_ticks;
    /* Dijkstra scratch */
    double *dist;
    int *prev, *done;
};

/// Flight time (s) of the highest allowed jump to a landing dz m higher (negative: lower), or -1
/// when dz cannot be reached within the impulse and landing bounds.
double tpNavSpace_JumpTime(const tpNavSpaceDef *d, double dz);
/// The relation a character can take across a horizontal distance dist (m) to a face dz m higher
/// (negative: lower): a step, else a jump, else none (0).
tpNavRelation tpNavSpace_Reach(const tpNavSpaceDef *d, double dist, double dz);
/// The point q of r closest to p (world xy); returns its distance (m).
double tpNavRect_Closest(const tpRect *r, const double p[2], double q[2]);
/// A world point p in r's local frame (m).
void tpNavRect_ToLocal(const tpRect *r, const double p[2], double l[2]);
/// A point l of r's local frame in the world (m).
void tpNavRect_ToWorld(const tpRect *r, const double l[2], double p[2]);
/// True when body k is a surface whose face is wider than the definition's edge margin.
bool tpNavSpace_Standable(const tpNavSpace *sp, int k);
/// Surface b's standable rectangle at time offset s (s), inset by `inset` (m; h may come out <= 0).
tpRect tpNavSpace_StandableRect(const tpNavSpaceBody *b, double s, double inset);
/// The space's invariants (nav_validate.c; see tpNavGrid_Valid in nav_internal.h).
bool tpNavSpace_Valid(const tpNavSpace *sp, char *why, size_t cap);

#endif
