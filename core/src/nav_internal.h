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

#endif
