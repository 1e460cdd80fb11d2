/* Navigation internals shared by nav_grid.c and nav_search.c. */
#ifndef TP_NAV_INTERNAL_H
#define TP_NAV_INTERNAL_H

#include "tp/nav.h"
#include "nav_open.h"
#include "tp/base.h"
#include "tp/util.h"

struct tpNavGrid {
    tpNavGridDef def;
    uint8_t *cells; /* nx*ny flags (TP_NAV_FREE / OBSTACLE / GROWN), owned */
    /* Search scratch: one block of nx*ny cells' worth (tpPages_Alloc, scratch_bytes), allocated
     * on the first search, owned. Per cell c: stamp[c] is gen while c is open and gen + 1 once it
     * is closed (gen advances by 2 a search; older values mean "not reached"), and g[c] (cost from
     * the source, cells) and parent[c] (the predecessor cell, -1 = none) are valid iff stamp[c] is
     * one of those two (a lazy reset per search). pos[c] is c's index in open while it is held
     * there. Separate arrays keep the test of a neighbour (cells, then stamp) on 2 bytes a cell. */
    void *scratch;
    size_t scratch_bytes;
    double *g;
    int32_t *parent;
    int32_t *pos;
    uint8_t *stamp;
    uint8_t gen;    /* even, 2 .. 254 once a search ran; the stamps are cleared when it wraps */
    tpNavOpen open; /* open list: (f in cells, cell index), owned */
};

/* A move tree (nav_car.c builds it, nav_car_search.c searches it). */
struct tpNavMoveTree {
    tpNavMoveTreeDef def;
    tpNavCarDef car;
    int nclips;
    tpNavClip *clips; /* owned */
    int *by_level;    /* clip indices grouped by `from`, owned */
    int start[9];     /* by_level[start[l] .. start[l+1]) start at level l */
    double top_speed; /* m/s, the largest displacement per second over all clips */
    /* per level, over the clips from it: m, the largest distance from the start to a point of
       the clip's circle (|bound centre| + bound radius); s, the longest duration */
    double level_reach[8], level_span[8];
};

/* A harmonic field (nav_field.c). Cell kinds: */
enum { F_FREE = 0, F_WALL = 1, F_GOAL = 2, F_CUT = 3 }; /* CUT: free but not connected to a goal */

struct tpNavField {
    int nx, ny;
    double x0, y0, cell;
    uint8_t *kind; /* F_* per cell, owned */
    double *u;     /* closeness 1 - phi per cell, owned: 1 on goals, 0 on walls and cut cells */
    int iters;
    double residual;
};

/* A crowd of pedestrians on one grid (nav_field.c). */
struct tpNavCrowd {
    const tpNavGrid *grid;
    tpNavPed *peds; /* n pedestrians (owned; room for cap) */
    int n;
    size_t cap;
    double *scratch; /* 4 doubles per pedestrian: new position and heading */
    double *others;  /* 3 doubles per pedestrian: position and radius at the start of the step */
};

/* Invariants (nav_validate.c): each returns true when the structure is consistent, else false with
 * the first broken rule in why (NULL allowed). Run through TP_VALIDATE (tp/base.h) after the operations
 * that change them (Debug and sanitizer builds); a test breaks each rule once. */
bool tpNavOpen_Valid(const tpNavOpen *o, const int32_t *pos, size_t ncells, char *why, size_t cap);
bool tpNavGrid_Valid(const tpNavGrid *g, char *why, size_t cap);
bool tpNavField_Valid(const tpNavField *f, char *why, size_t cap);
bool tpNavCrowd_Valid(const tpNavCrowd *c, char *why, size_t cap);
bool tpNavMoveTree_Valid(const tpNavMoveTree *t, char *why, size_t cap);

#endif
