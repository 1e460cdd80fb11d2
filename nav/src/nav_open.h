/* The grid search's open list (nav_search.c): a 4-ary min-heap on (key, id) with decrease-key.
 * Each id (a cell) is held at most once; pos[id] is its entry's index while it is held. Compared
 * with tpHeap's lazy deletion (a better key pushed again, the stale entry skipped when popped) it
 * pops each cell once and stays smaller. The order of the pops is that of tpHeap for the same
 * entries: smallest key first, ties to the smaller id (a total order). Keys must not be NaN. */
#ifndef TP_NAV_OPEN_H
#define TP_NAV_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp/util.h"

typedef struct tpNavOpen {
    tpHeapSlot *e; /* len entries in heap order (owned; capacity cap); zero-initialise */
    size_t len, cap;
} tpNavOpen;

/* Moves x up from index i to where it belongs, keeping pos. */
static inline void tpNavOpen_SiftUp(tpNavOpen *o, int32_t *pos, size_t i, tpHeapSlot x)
{
    tpHeapSlot *e = o->e;
    while (i > 0) {
        size_t p = (i - 1) / 4;
        if (!tpHeapSlot_Less(&x, &e[p])) {
            break;
        }
        e[i] = e[p];
        pos[e[i].id] = (int32_t)i;
        i = p;
    }
    e[i] = x;
    pos[x.id] = (int32_t)i;
}

/* Adds id (not held) with key. false (nothing changed) when out of memory. */
static inline bool tpNavOpen_Push(tpNavOpen *o, int32_t *pos, double key, int32_t id)
{
    if (o->len == o->cap) {
        tpHeapSlot *e = tpArray_Grow(o->e, &o->cap, o->len + 1, sizeof *e);
        if (!e) {
            return false;
        }
        o->e = e;
    }
    tpHeapSlot x = {tpHeap_KeyBits(key), id};
    tpNavOpen_SiftUp(o, pos, o->len++, x);
    return true;
}

/* Lowers the key of id (held) to key (<= its key). */
static inline void tpNavOpen_Decrease(tpNavOpen *o, int32_t *pos, double key, int32_t id)
{
    tpHeapSlot x = {tpHeap_KeyBits(key), id};
    tpNavOpen_SiftUp(o, pos, (size_t)pos[id], x);
}

/* Removes and returns the id of the smallest entry (o->len > 0). */
static inline int32_t tpNavOpen_Pop(tpNavOpen *o, int32_t *pos)
{
    tpHeapSlot *e = o->e;
    const int32_t top = e[0].id;
    const size_t n = --o->len;
    if (n == 0) {
        return top;
    }
    const tpHeapSlot last = e[n];
    size_t k = 0;
    for (;;) {
        size_t c = 4 * k + 1;
        if (c >= n) {
            break;
        }
        size_t m = c;
        if (c + 3 < n) {
            size_t a = tpHeapSlot_Less(&e[c + 1], &e[c]) ? c + 1 : c;
            size_t b = tpHeapSlot_Less(&e[c + 3], &e[c + 2]) ? c + 3 : c + 2;
            m = tpHeapSlot_Less(&e[b], &e[a]) ? b : a;
        } else {
            for (size_t q = c + 1; q < n; ++q) {
                m = tpHeapSlot_Less(&e[q], &e[m]) ? q : m;
            }
        }
        if (!tpHeapSlot_Less(&e[m], &last)) {
            break;
        }
        e[k] = e[m];
        pos[e[k].id] = (int32_t)k;
        k = m;
    }
    e[k] = last;
    pos[last.id] = (int32_t)k;
    return top;
}

#endif
