/* Navigation internals shared by nav_grid.c and nav_search.c. */
#ifndef TP_NAV_INTERNAL_H
#define TP_NAV_INTERNAL_H

#include "tp/nav.h"
#include "tp/util.h"

struct tpNavGrid {
    tpNavGridDef def;
    uint8_t *cells; /* nx*ny flags (TP_NAV_FREE / OBSTACLE / GROWN), owned */
    /* Search scratch, allocated on first use (nx*ny entries each), owned. A cell's g and parent
     * are valid iff stamp == gen; it is closed iff closed == gen (lazy reset per search). */
    double *g;       /* cost from the search source (cells) */
    int32_t *parent; /* predecessor cell, -1 = none */
    uint32_t *stamp;
    uint32_t *closed;
    uint32_t gen;
    tpHeap open; /* open list: (f in cells, cell index), owned */
};

#endif
