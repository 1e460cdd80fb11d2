/* tplan core: small helpers the project's own modules share instead of growing copies of them: a
 * growable array and a min-heap. Internal to tplan (no stable API promise); every module
 * links core, so any of them may use these. Knows nothing of ODE or Lua. */
#ifndef TP_UTIL_H
#define TP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- growable array: a plain pointer, a count and a capacity, kept by the caller ---- */

/// The capacity (in elements of elem bytes) that an array of capacity cap grows to so that it holds
/// need elements: cap itself when need <= cap, else cap (16 when cap is below 16) doubled until it
/// reaches need. 0 when that many elements would not fit in a size_t byte count (or elem is 0).
size_t tpArray_NextCap(size_t cap, size_t need, size_t elem);

/// realloc(arr, n * elem) with the product checked: NULL on an overflow or allocation failure, in
/// which case arr is left as it was and still the caller's. n == 0 gives NULL as well (nothing to hold).
void *tpArray_Resize(void *arr, size_t n, size_t elem);

/// Grows arr (elements of elem bytes, capacity *cap) so that it holds at least need elements, by
/// doubling (tpArray_NextCap), and returns it (possibly moved; arr itself when it already fits; never
/// NULL on success, need 0 counts as 1).
/// On an overflow or allocation failure returns NULL and leaves arr and *cap as they were. Typical
/// use: `T *p = tpArray_Grow(a->v, &a->cap, a->n + 1, sizeof *p); if (!p) fail; a->v = p;`.
void *tpArray_Grow(void *arr, size_t *cap, size_t need, size_t elem);

/* ---- min-heap on (key, id) ---- */

/// One heap entry: ordered by key, ties broken by the smaller id, so that the order in which
/// entries leave the heap is fixed by the entries alone (not by the order of the pushes).
typedef struct tpHeapItem {
    double key; /* the priority (any unit; smallest first); never NaN */
    int32_t id; /* the caller's index of the item (a cell, a node) */
} tpHeapItem;

/// An entry as the heap stores it: the key mapped to an unsigned integer of the same order (the
/// map is util.c's; -0 and +0 map to the same value, as they compare equal), so that ordering two
/// entries takes integer compares only.
typedef struct tpHeapSlot {
    uint64_t key; /* the mapped key */
    int32_t id;
} tpHeapSlot;

/// A min-heap (4-ary); zero-initialise it ({0}) before the first push, release it with tpHeap_Free.
typedef struct tpHeap {
    tpHeapSlot *items; /* len entries in heap order (owned; capacity cap) */
    size_t len;        /* entries held */
    size_t cap;        /* entries allocated */
} tpHeap;

/// Adds (key, id). Returns false, leaving the heap as it was, when it cannot grow (out of memory).
bool tpHeap_Push(tpHeap *h, double key, int32_t id);
/// Removes and returns the smallest entry (a key pushed as -0 comes back as +0). The heap must not
/// be empty (h->len > 0).
tpHeapItem tpHeap_Pop(tpHeap *h);
/// Empties the heap and keeps its memory for the next use.
void tpHeap_Clear(tpHeap *h);
/// Frees what the heap holds (not the struct itself) and leaves it empty. NULL allowed.
void tpHeap_Free(tpHeap *h);

#ifdef __cplusplus
}
#endif
#endif
