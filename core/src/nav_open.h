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
#include <string.h>

#include "tp/util.h"

typedef struct tpNavOpenEntry {
    uint64_t key; /* the key mapped to an integer of the same order (tpNavOpen_Bits) */
    int32_t id;
} tpNavOpenEntry;

typedef struct tpNavOpen {
    tpNavOpenEntry *e; /* len entries in heap order (owned; capacity cap); zero-initialise */
    size_t len, cap;
} tpNavOpen;

/* Order-preserving map of a non-NaN double to uint64 (-0 made +0 first: the zeros stay equal). */
static inline uint64_t tpNavOpen_Bits(double x)
{
    x += 0.0;
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return (b >> 63) ? ~b : b | (UINT64_C(1) << 63);
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 tpNavOpenU128;
#endif

static inline bool tpNavOpen_Less(const tpNavOpenEntry *a, const tpNavOpenEntry *b)
{
#ifdef __SIZEOF_INT128__
    tpNavOpenU128 x = ((tpNavOpenU128)a->key << 32) | (uint32_t)(a->id ^ INT32_MIN);
    tpNavOpenU128 y = ((tpNavOpenU128)b->key << 32) | (uint32_t)(b->id ^ INT32_MIN);
    return x < y;
#else
    return (a->key < b->key) | ((a->key == b->key) & (a->id < b->id));
#endif
}

/* Moves x up from index i to where it belongs, keeping pos. */
static inline void tpNavOpen_SiftUp(tpNavOpen *o, int32_t *pos, size_t i, tpNavOpenEntry x)
{
    tpNavOpenEntry *e = o->e;
    while (i > 0) {
        size_t p = (i - 1) / 4;
        if (!tpNavOpen_Less(&x, &e[p])) {
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
        tpNavOpenEntry *e = tpArray_Grow(o->e, &o->cap, o->len + 1, sizeof *e);
        if (!e) {
            return false;
        }
        o->e = e;
    }
    tpNavOpenEntry x = {tpNavOpen_Bits(key), id};
    tpNavOpen_SiftUp(o, pos, o->len++, x);
    return true;
}

/* Lowers the key of id (held) to key (<= its key). */
static inline void tpNavOpen_Decrease(tpNavOpen *o, int32_t *pos, double key, int32_t id)
{
    tpNavOpenEntry x = {tpNavOpen_Bits(key), id};
    tpNavOpen_SiftUp(o, pos, (size_t)pos[id], x);
}

/* Removes and returns the id of the smallest entry (o->len > 0). */
static inline int32_t tpNavOpen_Pop(tpNavOpen *o, int32_t *pos)
{
    tpNavOpenEntry *e = o->e;
    const int32_t top = e[0].id;
    const size_t n = --o->len;
    if (n == 0) {
        return top;
    }
    const tpNavOpenEntry last = e[n];
    size_t k = 0;
    for (;;) {
        size_t c = 4 * k + 1;
        if (c >= n) {
            break;
        }
        size_t m = c;
        if (c + 3 < n) {
            size_t a = tpNavOpen_Less(&e[c + 1], &e[c]) ? c + 1 : c;
            size_t b = tpNavOpen_Less(&e[c + 3], &e[c + 2]) ? c + 3 : c + 2;
            m = tpNavOpen_Less(&e[b], &e[a]) ? b : a;
        } else {
            for (size_t q = c + 1; q < n; ++q) {
                m = tpNavOpen_Less(&e[q], &e[m]) ? q : m;
            }
        }
        if (!tpNavOpen_Less(&e[m], &last)) {
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
