/* Navigation internals shared by nav_grid.c and nav_search.c. */
#ifndef TP_NAV_INTERNAL_H
#define TP_NAV_INTERNAL_H

#include "tp/nav.h"
#include "nav_open.h"
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

#endif
