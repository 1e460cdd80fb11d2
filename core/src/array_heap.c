/* Growable array, duplicate names, bucket queue and 4-ary min-heap shared by the project's modules
 * (tp/util.h). */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "tp/base.h"
#include "tp/util.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The sanitizer builds keep malloc for tpPages_Alloc: its redzones guard the buffers (GCC defines
 * __SANITIZE_ADDRESS__, clang answers __has_feature). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TP_PAGES_MAP 0
#endif
#endif
#if !defined(TP_PAGES_MAP) && defined(__SANITIZE_ADDRESS__)
#define TP_PAGES_MAP 0
#endif
#ifndef TP_PAGES_MAP
#define TP_PAGES_MAP 1
#endif

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

/* The heap is 4-ary (children of k: 4k+1 .. 4k+4): half the levels of a binary heap, and the
 * four children share a cache line or two, so a pop (the bulk of a grid search) costs fewer
 * dependent loads. Keys are stored mapped to integers of the same order, and two entries are
 * compared without branches. The order of the pops is fixed by the entries alone (a total order
 * on (key, id)), so it is the same as with any other heap shape or key encoding. */

/* The inverse of tpHeap_KeyBits (tp/util.h), -0 excepted (it comes back as +0). */
static double bitsToKey(uint64_t u)
{
    uint64_t b = (u >> 63) ? u & ~(UINT64_C(1) << 63) : ~u;
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

bool tpHeap_Push(tpHeap *h, double key, int32_t id)
{
    if (h->len == h->cap) {
        tpHeapSlot *items = tpArray_Grow(h->items, &h->cap, h->len + 1, sizeof *items);
        if (!items) {
            return false;
        }
        h->items = items;
    }
    tpHeapSlot *it = h->items;
    size_t k = h->len++;
    const tpHeapSlot x = {tpHeap_KeyBits(key), id};
    while (k > 0) { /* sift the hole up to where the new entry belongs */
        size_t p = (k - 1) / 4;
        if (!tpHeapSlot_Less(&x, &it[p])) {
            break;
        }
        it[k] = it[p];
        k = p;
    }
    it[k] = x;
    TP_INVARIANT(k == 0 || !tpHeapSlot_Less(&it[k], &it[(k - 1) / 4])); /* not above its parent */
    return true;
}

tpHeapItem tpHeap_Pop(tpHeap *h)
{
    TP_INVARIANT(h->len > 0);
    tpHeapSlot *it = h->items;
    const tpHeapItem top = {bitsToKey(it[0].key), it[0].id};
    const size_t n = --h->len;
    if (n == 0) {
        return top;
    }
    const tpHeapSlot last = it[n];
    size_t k = 0;
    for (;;) { /* sift the hole at the root down to where the last entry belongs */
        size_t c = 4 * k + 1;
        if (c >= n) {
            break;
        }
        size_t m = c; /* the smallest child */
        if (c + 3 < n) {
            size_t a = tpHeapSlot_Less(&it[c + 1], &it[c]) ? c + 1 : c;
            size_t b = tpHeapSlot_Less(&it[c + 3], &it[c + 2]) ? c + 3 : c + 2;
            m = tpHeapSlot_Less(&it[b], &it[a]) ? b : a;
        } else {
            for (size_t q = c + 1; q < n; ++q) {
                m = tpHeapSlot_Less(&it[q], &it[m]) ? q : m;
            }
        }
        if (!tpHeapSlot_Less(&it[m], &last)) {
            break;
        }
        it[k] = it[m];
        k = m;
    }
    it[k] = last;
    for (size_t c = 4 * k + 1; c < n && c <= 4 * k + 4; ++c) {
        TP_INVARIANT(!tpHeapSlot_Less(&it[c], &it[k])); /* no child above the entry placed */
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

/* ---- names ---- */

typedef struct NameRef {
    const char *name;
    int index;
} NameRef;

static int compare_name_ref(const void *a, const void *b)
{
    const NameRef *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    /* Ties broken by index so the reported pair is deterministic. */
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

const char *tpWords_Replace(const char *s, const char *const (*words)[2], int n, char *out, size_t cap)
{
    TP_ASSERT(cap > 0);
    size_t o = 0;
    while (*s && o + 1 < cap) {
        int hit = -1;
        for (int i = 0; i < n && hit < 0; ++i) {
            hit = strncmp(s, words[i][0], strlen(words[i][0])) == 0 ? i : -1;
        }
        if (hit < 0) {
            out[o++] = *s++;
            continue;
        }
        for (const char *r = words[hit][1]; *r && o + 1 < cap; ++r) {
            out[o++] = *r;
        }
        s += strlen(words[hit][0]);
    }
    out[o] = '\0';
    return out;
}

int tpNames_FindDuplicate(const char *const *names, int n, int *first, int *second)
{
    if (n < 2) {
        return 0;
    }
    NameRef *refs = malloc((size_t)n * sizeof *refs);
    if (!refs) {
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        refs[i].name = names[i];
        refs[i].index = i;
    }
    qsort(refs, (size_t)n, sizeof *refs, compare_name_ref);
    int found = 0;
    for (int i = 1; i < n; ++i) {
        if (strcmp(refs[i - 1].name, refs[i].name) == 0) {
            /* the pair whose second member comes first in the list */
            if (!found || refs[i].index < *second) {
                *first = refs[i - 1].index;
                *second = refs[i].index;
            }
            found = 1;
        }
    }
    free(refs);
    return found;
}

/* ---- bucket queue ---- */

#define TP_BUCKET_MAX ((int32_t)1 << 30) /* keys and ids past this are refused */

/* Grows an int32 array of *cap entries to hold index i, the new entries -1. */
static bool growIds(int32_t **arr, size_t *cap, int32_t i)
{
    if ((size_t)i < *cap) {
        return true;
    }
    size_t old = *cap;
    int32_t *p = tpArray_Grow(*arr, cap, (size_t)i + 1, sizeof *p);
    if (!p) {
        return false;
    }
    for (size_t k = old; k < *cap; ++k) {
        p[k] = -1;
    }
    *arr = p;
    return true;
}

bool tpBucketQueue_Push(tpBucketQueue *q, int32_t key, int32_t id)
{
    if (key < 0 || id < 0 || key >= TP_BUCKET_MAX || id >= TP_BUCKET_MAX) {
        return false;
    }
    if ((size_t)key >= q->nkeys) { /* head and tail grow together */
        size_t nk = q->nkeys, nt = q->nkeys;
        if (!growIds(&q->head, &nk, key) || !growIds(&q->tail, &nt, (int32_t)(nk - 1))) {
            return false;
        }
        q->nkeys = nk;
    }
    if (!growIds(&q->next, &q->nids, id)) {
        return false;
    }
    if (q->len == 0) {
        q->lo = q->hi = key;
    }
    q->next[id] = -1;
    if (q->tail[key] >= 0) {
        q->next[q->tail[key]] = id;
    } else {
        q->head[key] = id;
    }
    q->tail[key] = id;
    q->lo = key < q->lo ? key : q->lo;
    q->hi = key > q->hi ? key : q->hi;
    ++q->len;
    return true;
}

int32_t tpBucketQueue_Pop(tpBucketQueue *q)
{
    TP_INVARIANT(q->len > 0);
    while (q->head[q->lo] < 0) {
        ++q->lo;
        TP_INVARIANT(q->lo <= q->hi); /* len > 0: an entry is at a key in [lo, hi] */
    }
    const int32_t key = q->lo, id = q->head[key];
    q->head[key] = q->next[id];
    if (q->head[key] < 0) {
        q->tail[key] = -1;
    }
    --q->len;
    return id;
}

void tpBucketQueue_Clear(tpBucketQueue *q)
{
    if (q->len > 0) { /* only keys in [lo, hi] can hold entries */
        for (int32_t k = q->lo; k <= q->hi; ++k) {
            q->head[k] = q->tail[k] = -1;
        }
    }
    q->len = 0;
}

void tpBucketQueue_Free(tpBucketQueue *q)
{
    free(q->head);
    free(q->tail);
    free(q->next);
    memset(q, 0, sizeof *q);
}

/* Bytes mapped for a buffer of `bytes`: whole huge pages, so that its last part is not left on
 * 4 KiB pages (the rest past `bytes` is never touched, so it costs address space only). */
static size_t pagesLength(size_t bytes)
{
    return (bytes + TP_PAGES_HUGE_BYTES - 1) & ~(TP_PAGES_HUGE_BYTES - 1);
}

/* Mappings freed by tpPages_Free, kept for the next tpPages_Alloc of the same length: a process
 * that plans again and again (tplan bench's seeds, a service worker's jobs) reuses the pages its
 * last tree faulted in instead of having the kernel zero fresh ones (12 % of a pool bench). At
 * most TP_PAGES_KEEP mappings and TP_PAGES_KEEP_BYTES in all; a spin lock guards the list (its
 * critical sections are a few loads and stores). */
#define TP_PAGES_KEEP 16
#define TP_PAGES_KEEP_BYTES ((size_t)128 << 20)
static struct {
    void *p[TP_PAGES_KEEP];
    size_t len[TP_PAGES_KEEP];
    int n;
    size_t bytes;
} pages_kept;
static atomic_flag pages_lock = ATOMIC_FLAG_INIT;

static void pagesLock(void)
{
    while (atomic_flag_test_and_set_explicit(&pages_lock, memory_order_acquire)) {
    }
}

static void pagesUnlock(void)
{
    atomic_flag_clear_explicit(&pages_lock, memory_order_release);
}

/* A kept mapping of exactly len bytes (the last one kept first: its pages are the warmest), or NULL. */
static void *pagesReuse(size_t len)
{
    void *p = NULL;
    pagesLock();
    for (int i = pages_kept.n - 1; i >= 0; --i) {
        if (pages_kept.len[i] == len) {
            p = pages_kept.p[i];
            pages_kept.bytes -= len;
            pages_kept.n--;
            pages_kept.p[i] = pages_kept.p[pages_kept.n];
            pages_kept.len[i] = pages_kept.len[pages_kept.n];
            break;
        }
    }
    pagesUnlock();
    return p;
}

/* Keeps a mapping of len bytes for reuse; false when the cache is full (the caller unmaps it). */
static bool pagesKeep(void *p, size_t len)
{
    bool kept = false;
    pagesLock();
    if (pages_kept.n < TP_PAGES_KEEP && len <= TP_PAGES_KEEP_BYTES - pages_kept.bytes) {
        pages_kept.p[pages_kept.n] = p;
        pages_kept.len[pages_kept.n] = len;
        pages_kept.n++;
        pages_kept.bytes += len;
        kept = true;
    }
    pagesUnlock();
    return kept;
}

void *tpPages_Alloc(size_t bytes)
{
    if (!TP_PAGES_MAP || bytes < TP_PAGES_MIN_BYTES) {
        return malloc(bytes ? bytes : 1); /* malloc(0) may return NULL: one byte keeps it legal */
    }
    const size_t huge = TP_PAGES_HUGE_BYTES, len = pagesLength(bytes);
    if (len < bytes || len + huge < len) {
        return NULL; /* the rounding overflowed */
    }
    void *kept = pagesReuse(len);
    if (kept != NULL) {
        return kept;
    }
    unsigned char *raw = mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        return NULL;
    }
    unsigned char *p = (unsigned char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
    if (p > raw) { /* trim the unaligned head and the tail past len */
        munmap(raw, (size_t)(p - raw));
    }
    munmap(p + len, (size_t)(raw + len + huge - (p + len)));
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE); /* advice only: failure leaves 4 KiB pages */
#endif
    return p;
}

void tpPages_Free(void *p, size_t bytes)
{
    if (!p) {
        return;
    }
    if (TP_PAGES_MAP && bytes >= TP_PAGES_MIN_BYTES) {
        if (!pagesKeep(p, pagesLength(bytes))) {
            munmap(p, pagesLength(bytes));
        }
    } else {
        free(p);
    }
}
