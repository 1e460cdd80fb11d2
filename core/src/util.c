/* Growable array and binary min-heap shared by the project's modules (tp/util.h). */
#include "tp/util.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TP_ARRAY_MIN_CAP 16 /* elements: the first capacity of an empty array */

size_t tpArray_NextCap(size_t cap, size_t need, size_t elem)
{
    if (elem == 0) {
        return 0;
    }
    if (need <= cap) {
        return cap;
    }
    size_t max = SIZE_MAX / elem; /* the most elements a byte count can describe */
    if (need > max) {
        return 0;
    }
    size_t c = cap < TP_ARRAY_MIN_CAP ? TP_ARRAY_MIN_CAP : cap;
    while (c < need) {
        c = c > max / 2 ? max : 2 * c;
    }
    return c;
}

void *tpArray_Resize(void *arr, size_t n, size_t elem)
{
    if (n == 0 || elem == 0 || n > SIZE_MAX / elem) {
        return NULL;
    }
    return realloc(arr, n * elem);
}

void *tpArray_Grow(void *arr, size_t *cap, size_t need, size_t elem)
{
    if (need == 0) {
        need = 1; /* so that success always gives a non-NULL array */
    }
    if (need <= *cap && arr) {
        return arr;
    }
    size_t c = tpArray_NextCap(*cap, need, elem);
    void *p = c ? tpArray_Resize(arr, c, elem) : NULL;
    if (p) {
        *cap = c;
    }
    return p;
}

static bool tpHeapLess(const tpHeapItem *a, const tpHeapItem *b)
{
    return a->key < b->key || (a->key == b->key && a->id < b->id);
}

bool tpHeap_Push(tpHeap *h, double key, int32_t id)
{
    tpHeapItem *items = tpArray_Grow(h->items, &h->cap, h->len + 1, sizeof *items);
    if (!items) {
        return false;
    }
    h->items = items;
    size_t k = h->len++;
    tpHeapItem it = {key, id};
    while (k > 0) { /* sift the hole up to where the new entry belongs */
        size_t p = (k - 1) / 2;
        if (!tpHeapLess(&it, &h->items[p])) {
            break;
        }
        h->items[k] = h->items[p];
        k = p;
    }
    h->items[k] = it;
    return true;
}

tpHeapItem tpHeap_Pop(tpHeap *h)
{
    assert(h->len > 0);
    tpHeapItem top = h->items[0];
    tpHeapItem last = h->items[--h->len];
    size_t n = h->len, k = 0;
    for (;;) { /* sift the hole at the root down to where the last entry belongs */
        size_t c = 2 * k + 1;
        if (c >= n) {
            break;
        }
        if (c + 1 < n && tpHeapLess(&h->items[c + 1], &h->items[c])) {
            ++c;
        }
        if (!tpHeapLess(&h->items[c], &last)) {
            break;
        }
        h->items[k] = h->items[c];
        k = c;
    }
    if (n > 0) {
        h->items[k] = last;
    }
    return top;
}

void tpHeap_Clear(tpHeap *h)
{
    h->len = 0;
}

void tpHeap_Free(tpHeap *h)
{
    if (!h) {
        return;
    }
    free(h->items);
    memset(h, 0, sizeof *h);
}
