/* Exact Euclidean nearest-neighbour index for BK-RRT (see nn_index.h for the contract). */
#include "nn_index.h"

#include "tree_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"

struct tpNnIndex {
    int dim;
    int32_t indexed;     /* list positions [0, indexed) are in the forest */
    int32_t checked;     /* list positions [0, checked) were checked for non-finite keys */
    bool nonfinite;      /* a key with a NaN or an infinity exists: the index cannot be exact */
    uint32_t levels;     /* bit j set: level j (TP_NN_BUCKET << j points) is filled */
    int32_t cap;         /* capacity of the arrays below, in points */
    int32_t *pos;        /* list position of each point (level j at offset B * (2^j - 1)) */
    double *keys;        /* copy of each point's key (dim doubles), for locality */
    unsigned char *axis; /* split axis of the k-d node stored at each median position */
};

tpNnIndex *tpCreateNnIndex(int dim)
{
    if (dim < 1 || dim > 255) {
        return NULL;
    }
    tpNnIndex *ix = calloc(1, sizeof *ix);
    if (ix) {
        ix->dim = dim;
    }
    return ix;
}

void tpDestroyNnIndex(tpNnIndex *ix)
{
    if (!ix) {
        return;
    }
    free(ix->pos);
    free(ix->keys);
    free(ix->axis);
    free(ix);
}

size_t tpNnIndex_Bytes(const tpNnIndex *ix)
{
    if (!ix) {
        return 0;
    }
    return sizeof *ix + (size_t)ix->cap * (sizeof(int32_t) + (size_t)ix->dim * sizeof(double) + 1);
}

static const double *tree_key(const tpTree *tree, int32_t i)
{
    return tree->key_chunks[i >> TP_KEY_CHUNK_SHIFT] + (size_t)(i & (TP_KEY_CHUNK - 1)) * (size_t)tree->key_dim;
}

/* The squared distance exactly as the linear scan computes it: 0.0 + d0^2 + d1^2 + ... in
 * dimension order (0.0 + a == a, so this equals the scan's unrolled 2D and 3D forms). */
static inline double dist2(const double *k, const double *y, int dim)
{
    double d = 0.0;
    for (int c = 0; c < dim; ++c) {
        double dc = k[c] - y[c];
        d += dc * dc;
    }
    return d;
}

static bool reserve(tpNnIndex *ix, int64_t need)
{
    if (need <= ix->cap) {
        return true;
    }
    if (need > INT32_MAX) {
        return false;
    }
    /* Each array is replaced only once all three allocations succeeded. */
    int32_t *p = malloc((size_t)need * sizeof *p);
    double *k = malloc((size_t)need * (size_t)ix->dim * sizeof *k);
    unsigned char *a = malloc((size_t)need);
    if (!p || !k || !a) {
        free(p);
        free(k);
        free(a);
        return false;
    }
    if (ix->cap > 0) {
        memcpy(p, ix->pos, (size_t)ix->cap * sizeof *p);
        memcpy(k, ix->keys, (size_t)ix->cap * (size_t)ix->dim * sizeof *k);
        memcpy(a, ix->axis, (size_t)ix->cap);
    }
    free(ix->pos);
    free(ix->keys);
    free(ix->axis);
    ix->pos = p;
    ix->keys = k;
    ix->axis = a;
    ix->cap = (int32_t)need;
    return true;
}

static inline double *key_at(const tpNnIndex *ix, int32_t i)
{
    return ix->keys + (size_t)i * (size_t)ix->dim;
}

static void swap_points(tpNnIndex *ix, int32_t a, int32_t b)
{
    if (a == b) {
        return;
    }
    int32_t tp = ix->pos[a];
    ix->pos[a] = ix->pos[b];
    ix->pos[b] = tp;
    double *ka = key_at(ix, a), *kb = key_at(ix, b);
    for (int c = 0; c < ix->dim; ++c) {
        double t = ka[c];
        ka[c] = kb[c];
        kb[c] = t;
    }
}

/* Partial sort of [lo, hi) on axis ax so that [lo, nth) <= point nth <= (nth, hi) (quickselect
 * with a median-of-three pivot and a three-way partition, so duplicates cost nothing extra). */
static void select_nth(tpNnIndex *ix, int32_t lo, int32_t hi, int32_t nth, int ax)
{
    while (hi - lo > 1) {
        double va = key_at(ix, lo)[ax], vb = key_at(ix, lo + (hi - lo) / 2)[ax], vc = key_at(ix, hi - 1)[ax];
        double pv = va < vb ? (vb < vc ? vb : (va < vc ? vc : va)) : (va < vc ? va : (vb < vc ? vc : vb));
        int32_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            double v = key_at(ix, i)[ax];
            if (v < pv) {
                swap_points(ix, lt++, i++);
            } else if (v > pv) {
                swap_points(ix, i, --gt);
            } else {
                ++i;
            }
        }
        if (nth < lt) {
            hi = lt;
        } else if (nth >= gt) {
            lo = gt;
        } else {
            return;
        }
    }
}

/* Builds the balanced k-d tree over [lo, hi): the node of a range is its median position
 * lo + (hi - lo) / 2, split on the axis of largest spread; ranges of <= TP_NN_LEAF are leaves. */
static void build(tpNnIndex *ix, int32_t lo, int32_t hi)
{
    while (hi - lo > TP_NN_LEAF) {
        int ax = 0;
        double best_spread = -1.0;
        for (int c = 0; c < ix->dim; ++c) {
            double mn = key_at(ix, lo)[c], mx = mn;
            for (int32_t i = lo + 1; i < hi; ++i) {
                double v = key_at(ix, i)[c];
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
            }
            if (mx - mn > best_spread) {
                best_spread = mx - mn;
                ax = c;
            }
        }
        int32_t mid = lo + (hi - lo) / 2;
        select_nth(ix, lo, hi, mid, ax);
        ix->axis[mid] = (unsigned char)ax;
        build(ix, lo, mid);
        lo = mid + 1;
    }
}

/* Brings the forest up to date with tree->rrt. False on a non-finite key or out of memory. */
static bool sync(tpNnIndex *ix, const tpTree *tree)
{
    const int32_t n = tree->rrt.count;
    const int dim = ix->dim;
    for (; ix->checked < n; ++ix->checked) {
        const double *k = tree_key(tree, ix->checked);
        for (int c = 0; c < dim; ++c) {
            if (!isfinite(k[c])) {
                ix->nonfinite = true;
            }
        }
    }
    if (ix->nonfinite) {
        return false;
    }
    while (n - ix->indexed >= TP_NN_BUCKET) {
        int j = 0;
        while (ix->levels & (1u << j)) {
            ++j;
        }
        /* Levels 0..j-1 are full and fill [0, off); level j is [off, off + B * 2^j). */
        const int64_t off = (int64_t)TP_NN_BUCKET * (((int64_t)1 << j) - 1);
        if (!reserve(ix, 2 * off + TP_NN_BUCKET)) {
            return false;
        }
        memcpy(ix->pos + off, ix->pos, (size_t)off * sizeof *ix->pos);
        memcpy(ix->keys + off * dim, ix->keys, (size_t)off * (size_t)dim * sizeof *ix->keys);
        for (int32_t b = 0; b < TP_NN_BUCKET; ++b) {
            int32_t p = ix->indexed + b;
            ix->pos[2 * off + b] = p;
            memcpy(key_at(ix, (int32_t)(2 * off + b)), tree_key(tree, p), (size_t)dim * sizeof(double));
        }
        ix->levels = (ix->levels & ~((1u << j) - 1u)) | (1u << j);
        build(ix, (int32_t)off, (int32_t)(2 * off + TP_NN_BUCKET));
        ix->indexed += TP_NN_BUCKET;
    }
    return true;
}

typedef struct Best {
    const tpTree *tree; /* for the retired entries, which lose ties (tpTree_RrtLive) */
    const double *y;
    double d;    /* squared distance of the best point so far */
    bool live;   /* it is not retired */
    int32_t pos; /* its list position (the latest on ties: the newest node, tpTree_SelectNearest) */
} Best;

static inline void consider(Best *b, double d, int32_t pos)
{
    if (d > b->d) {
        return;
    }
    /* (distance, retired, newest): the order of the linear scan */
    const bool live = tpTree_RrtLive(b->tree, pos);
    if (d < b->d || live > b->live || (live == b->live && pos > b->pos)) {
        b->d = d;
        b->pos = pos;
        b->live = live;
    }
}

static void search(const tpNnIndex *ix, int32_t lo, int32_t hi, Best *b)
{
    const int dim = ix->dim;
    while (hi - lo > TP_NN_LEAF) {
        int32_t mid = lo + (hi - lo) / 2;
        int ax = ix->axis[mid];
        const double *k = key_at(ix, mid);
        consider(b, dist2(k, b->y, dim), ix->pos[mid]);
        /* Every point q on the far side has |q[ax] - y[ax]| >= |diff| after rounding too, so
         * diff^2 bounds its distance from below; "<=" keeps equal distances (ties) in play. */
        double diff = b->y[ax] - k[ax];
        if (diff < 0.0) {
            search(ix, lo, mid, b);
            if (!(diff * diff <= b->d)) {
                return;
            }
            lo = mid + 1;
        } else {
            search(ix, mid + 1, hi, b);
            if (!(diff * diff <= b->d)) {
                return;
            }
            hi = mid;
        }
    }
    for (int32_t i = lo; i < hi; ++i) {
        consider(b, dist2(key_at(ix, i), b->y, dim), ix->pos[i]);
    }
}

/* The k-d order of [lo, hi) and its subranges: every point left of a node's median is <= the
 * median on the node's axis, every point right of it >= (select_nth's promise). */
static bool check_kd(const tpNnIndex *ix, int32_t lo, int32_t hi, char *why, size_t cap)
{
    while (hi - lo > TP_NN_LEAF) {
        int32_t mid = lo + (hi - lo) / 2;
        int ax = ix->axis[mid];
        if (ax >= ix->dim) {
            tpErrorf(why, cap, "k-d node at %d: axis %d of %d", (int)mid, ax, ix->dim);
            return false;
        }
        double m = key_at(ix, mid)[ax];
        for (int32_t i = lo; i < hi; ++i) {
            double v = key_at(ix, i)[ax];
            if (i < mid ? !(v <= m) : i > mid && !(v >= m)) {
                tpErrorf(why, cap, "k-d node at %d (axis %d, %g): point %d on the wrong side (%g)", (int)mid, ax, m,
                         (int)i, v);
                return false;
            }
        }
        if (!check_kd(ix, lo, mid, why, cap)) {
            return false;
        }
        lo = mid + 1;
    }
    return true;
}

bool tpNnIndex_Check(const tpNnIndex *ix, const tpTree *tree, char *why, size_t cap)
{
    const int32_t n = tree->rrt.count;
    if (ix->indexed < 0 || ix->indexed > n || ix->checked < ix->indexed || ix->checked > n ||
        (int64_t)ix->indexed != (int64_t)TP_NN_BUCKET * (int64_t)ix->levels) {
        tpErrorf(why, cap, "%d indexed, %d checked, levels 0x%x, %d selectable nodes", (int)ix->indexed,
                 (int)ix->checked, (unsigned)ix->levels, (int)n);
        return false;
    }
    if (ix->indexed == 0) {
        return true;
    }
    if (ix->cap < ix->indexed) {
        tpErrorf(why, cap, "%d indexed in room for %d", (int)ix->indexed, (int)ix->cap);
        return false;
    }
    unsigned char *seen = calloc((size_t)ix->indexed, 1);
    if (!seen) {
        tpErrorf(why, cap, "out of memory");
        return false;
    }
    bool ok = true;
    for (int j = 0; j < 31 && ok; ++j) {
        if (!(ix->levels & (1u << j))) {
            continue;
        }
        int64_t off = (int64_t)TP_NN_BUCKET * (((int64_t)1 << j) - 1);
        int64_t hi = off + ((int64_t)TP_NN_BUCKET << j);
        if (hi > ix->cap) {
            tpErrorf(why, cap, "level %d ends at %lld, past the room for %d", j, (long long)hi, (int)ix->cap);
            ok = false;
            break;
        }
        for (int64_t i = off; i < hi && ok; ++i) {
            int32_t p = ix->pos[i];
            if (p < 0 || p >= ix->indexed || seen[p]) {
                tpErrorf(why, cap, "level %d slot %lld: list position %d %s", j, (long long)i, (int)p,
                         p < 0 || p >= ix->indexed ? "out of range" : "indexed twice");
                ok = false;
            } else if (memcmp(key_at(ix, (int32_t)i), tree_key(tree, p), (size_t)ix->dim * sizeof(double)) != 0) {
                tpErrorf(why, cap, "level %d slot %lld: the key of list position %d differs from the tree's", j,
                         (long long)i, (int)p);
                ok = false;
            }
            seen[p] = 1;
        }
        ok = ok && check_kd(ix, (int32_t)off, (int32_t)hi, why, cap);
    }
    free(seen);
    return ok;
}

bool tpNnIndex_Nearest(tpNnIndex *ix, const tpTree *tree, const double *y, int32_t *pos)
{
    if (!sync(ix, tree)) {
        return false;
    }
    const int dim = ix->dim;
    for (int c = 0; c < dim; ++c) {
        if (!isfinite(y[c])) {
            return false;
        }
    }
    const int32_t n = tree->rrt.count;
    Best b = {tree, y, INFINITY, false, -1};
    for (int32_t i = ix->indexed; i < n; ++i) {
        consider(&b, dist2(tree_key(tree, i), y, dim), i);
    }
    for (int j = 31; j >= 0; --j) {
        if (ix->levels & (1u << j)) {
            int64_t off = (int64_t)TP_NN_BUCKET * (((int64_t)1 << j) - 1);
            search(ix, (int32_t)off, (int32_t)(off + ((int64_t)TP_NN_BUCKET << j)), &b);
        }
    }
    *pos = n > 0 ? b.pos : -1;
    return true;
}
