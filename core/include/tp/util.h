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

/* ---- names ---- */

/// Looks for two equal strings among names[0..n) in O(n log n) (a sort of references; the strings
/// are not moved): 1 when found, with the pair whose second member comes first in the list
/// (*first < *second); 0 when all differ; -1 when the references cannot be allocated (nothing
/// is written then). Used wherever a file, script or request may give a name twice.
int tpNames_FindDuplicate(const char *const *names, int n, int *first, int *second);

/// s with every occurrence of each words[i][0] replaced by words[i][1] (the first entry that matches
/// at a position wins; the text a replacement puts in is not searched again), into out (cap bytes,
/// cut there and always NUL-terminated); returns out. How a library message that names a field in
/// the library's words (`call_time_limit`) is shown in a front end's (`--call-time-limit`).
const char *tpWords_Replace(const char *s, const char *const (*words)[2], int n, char *out, size_t cap);

/* ---- bucket queue: a min-queue on small integer keys ---- */

/// A min-queue on small non-negative integer keys whose entries leave by key, ties in the order
/// they were pushed: one FIFO list per key and a pointer to the smallest key held. For A* with
/// integer costs and a consistent heuristic (the keys pushed never fall below the last one popped)
/// a push and a pop are O(1); a smaller key is allowed and moves the pointer back. When the ids are
/// pushed in increasing order (a search numbering its nodes as it makes them) the pops come in the
/// same order as tpHeap's, (key, id). Zero-initialise it ({0}); release it with tpBucketQueue_Free.
typedef struct tpBucketQueue {
    int32_t *head, *tail; /* per key: first and last id held, -1 none (nkeys allocated) */
    int32_t *next;        /* per id: the id after it under the same key (nids allocated) */
    size_t nkeys, nids;
    int32_t lo, hi; /* no key below lo is held; keys above hi were never pushed since the clear */
    size_t len;     /* entries held */
} tpBucketQueue;

/// Adds id (>= 0) under key (>= 0); an id is held at most once. False, leaving the queue as it
/// was, when it cannot grow (out of memory, or a key or an id past 2^30).
bool tpBucketQueue_Push(tpBucketQueue *q, int32_t key, int32_t id);
/// Removes and returns the first id of the smallest key (q->len > 0).
int32_t tpBucketQueue_Pop(tpBucketQueue *q);
/// Empties the queue (keeps its memory).
void tpBucketQueue_Clear(tpBucketQueue *q);
/// Releases the queue's memory; it is then empty (and may be used again).
void tpBucketQueue_Free(tpBucketQueue *q);

/* ---- large buffers: memory that is cheap to fault in ---- */

/// Buffers of at least this many bytes come from tpPages_Alloc's huge-page mappings.
#define TP_PAGES_MIN_BYTES ((size_t)256 << 10)
/// The huge-page size the mappings are aligned to and rounded up to (x86-64 and arm64 Linux).
#define TP_PAGES_HUGE_BYTES ((size_t)2 << 20)

/// `bytes` of memory for a large, long-lived buffer (a search tree's state chunk, a grid search's
/// scratch), contents unspecified, like malloc. From TP_PAGES_MIN_BYTES on it is an anonymous
/// mapping on a TP_PAGES_HUGE_BYTES boundary, in whole huge pages, advised for transparent huge
/// pages (MADV_HUGEPAGE) and unpopulated: the first touch of each 2 MiB maps one huge page in one
/// fault. On the virtual machines this project runs on a 4 KiB page fault costs about 10 us, so a
/// fresh 400 KiB buffer cost 1 ms in faults; one huge page costs 70-250 us and, for buffers read
/// at random, also spares the TLB. Where THP is off the advice is ignored and the pages fault in
/// one at a time, as malloc's would. A freed mapping is kept (up to 16 of them, 128 MiB in all)
/// and handed out again by the next call for the same length, with its old contents: a process
/// planning again and again reuses the pages instead of faulting fresh zeroed ones in. Smaller
/// buffers, and every buffer in the sanitizer builds
/// (whose redzones guard heap blocks), come from malloc. NULL when out of memory or address space.
/// Free with tpPages_Free and the same `bytes`.
void *tpPages_Alloc(size_t bytes);
/// Frees what tpPages_Alloc(bytes) returned (NULL allowed); `bytes` must be the same.
void tpPages_Free(void *p, size_t bytes);

/* ---- min-heap on (key, id) ---- */

/// One heap entry: ordered by key, ties broken by the smaller id, so that the order in which
/// entries leave the heap is fixed by the entries alone (not by the order of the pushes).
typedef struct tpHeapItem {
    double key; /* the priority (any unit; smallest first); never NaN */
    int32_t id; /* the caller's index of the item (a cell, a node) */
} tpHeapItem;

/// An entry as the heap stores it: the key mapped to an unsigned integer of the same order (the
/// map is array_heap.c's; -0 and +0 map to the same value, as they compare equal), so that ordering two
/// entries takes integer compares only.
typedef struct tpHeapSlot {
    uint64_t key; /* the mapped key (tpHeap_KeyBits) */
    int32_t id;
} tpHeapSlot;

/// The order-preserving map of a non-NaN double to tpHeapSlot.key: the sign bit flipped for a
/// positive value, every bit flipped for a negative one; -0 is first made +0 (x + 0.0 in
/// round-to-nearest) so that the two zeros, equal as doubles, stay equal.
static inline uint64_t tpHeap_KeyBits(double x)
{
    x += 0.0;
    union {
        double d;
        uint64_t u;
    } v = {x};
    return (v.u >> 63) ? ~v.u : v.u | (UINT64_C(1) << 63);
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 tpHeapU128; /* GCC / Clang on 64-bit targets */
#endif

/// Whether slot a leaves a heap before slot b: the smaller key, ties to the smaller id (a total
/// order, so the order of the pops is fixed by the entries alone). No branch.
static inline bool tpHeapSlot_Less(const tpHeapSlot *a, const tpHeapSlot *b)
{
#ifdef __SIZEOF_INT128__
    /* one 128-bit compare of (key, id + 2^31): a compare and a subtract with borrow */
    tpHeapU128 x = ((tpHeapU128)a->key << 32) | (uint32_t)(a->id ^ INT32_MIN);
    tpHeapU128 y = ((tpHeapU128)b->key << 32) | (uint32_t)(b->id ^ INT32_MIN);
    return x < y;
#else
    /* | and & instead of || and &&: no branch on the tie test */
    return (a->key < b->key) | ((a->key == b->key) & (a->id < b->id));
#endif
}

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
