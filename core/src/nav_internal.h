/* Navigation internals shared by nav_grid.c and nav_search.c. */
#ifndef TP_NAV_INTERNAL_H
#define TP_NAV_INTERNAL_H

#include "tp/nav.h"
#include "nav_open.h"
#include "tp/util.h"

/* One cell's search state (nav_search.c): kept together so that relaxing a neighbour touches
 * one cache line, not four arrays. */
typedef struct tpNavNode {
    double g;        /* cost from the search source (cells); valid iff stamp == gen */
    int32_t parent;  /* predecessor cell, -1 = none; valid iff stamp == gen */
    uint32_t stamp;  /* the search generation that set g and parent */
    uint32_t closed; /* the search generation that expanded the cell */
} tpNavNode;

struct tpNavGrid {
    tpNavGridDef def;
    uint8_t *cells; /* nx*ny flags (TP_NAV_FREE / OBSTACLE / GROWN), owned */
    /* Search scratch, allocated on first use (nx*ny entries), owned. A cell's g and parent are
     * valid iff stamp == gen; it is closed iff closed == gen (lazy reset per search). */
    tpNavNode *node;
    int32_t *pos; /* nx*ny: a cell's index in open while it is held there */
    uint32_t gen;
    tpNavOpen open; /* open list: (f in cells, cell index), owned */
};

#endif
