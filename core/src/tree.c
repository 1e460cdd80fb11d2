/* The search tree: node pool, chunked state/action/key arenas, and the O(1) bookkeeping the
 * BK-BGT and BK-RRT node selections need (Zickler & Veloso 2009, Sec. 5). */
#include "tree_internal.h"

#include "nn_index.h"
#include "tp/base.h"
#include "tp/util.h"

#include <math.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* State chunks come from tpPages_Alloc (tp/util.h): a chunk fills at least one huge page
 * (2 MiB, see chunkShift), so it is mapped on a huge-page boundary and given to transparent huge
 * pages, unpopulated: the first touch of each 2 MiB maps one huge page in one fault. BK-BGT reads
 * the states of random old nodes, and with 4 KiB pages nearly every such read also missed the TLB
 * (a two-level page walk on a virtual machine): on pool that was 2 us of every 15 us iteration, in
 * the state copy; and the 4 KiB faults of fresh chunks were 6 % of an elevator run. */

static size_t stateChunkBytes(const tpTree *tree)
{
    return ((size_t)1 << tree->chunk_shift) * tree->state_stride;
}

static size_t actionChunkBytes(const tpTree *tree)
{
    return ((size_t)1 << tree->chunk_shift) * (size_t)tree->action_dim * sizeof(double);
}

/* Nodes per chunk: the fewest (a power of two, 16 to 65,536) whose states fill a huge page, so
 * that every state chunk is mapped on huge pages (tpPages_Alloc). With 4,096 nodes a chunk, the
 * states of the small-state domains (minigolf, maze, elevator: 200-400 bytes) sat on 4 KiB pages:
 * BK-BGT's reads of random old nodes then missed the TLB, and the copy into a new node took 0.38
 * us an iteration instead of 0.07-0.11 (5 % of minigolf, measured). Large states (hundreds of
 * bodies) get 16 to 64 nodes a chunk, so a tiny tree never costs more than a few megabytes. */
#define TP_CHUNK_SHIFT_MAX 16
#define TP_CHUNK_SHIFT_MIN 4

/* A chunk's memory: huge pages (tpPages_Alloc), or for a tree with small_pages plain malloc, whose
 * 4 KiB pages the kernel zeroes as they are first written, node after node: an anytime search's
 * iterations each pay a few microseconds instead of one of them a huge page's fault (zeroing 2 MiB,
 * and compacting memory to find it: measured up to 9 ms on a loaded machine). */
static void *chunk_alloc(const tpTree *tree, size_t bytes)
{
    return tree->small_pages ? malloc(bytes ? bytes : 1) : tpPages_Alloc(bytes);
}

static void chunk_free(const tpTree *tree, void *p, size_t bytes)
{
    if (tree->small_pages) {
        free(p);
    } else {
        tpPages_Free(p, bytes);
    }
}

void tpTree_SetSmallPages(tpTree *tree, bool small)
{
    TP_INVARIANT(tree->nchunks == 0); /* before the first node */
    tree->small_pages = small;
}

tpTree *tpCreateTree(size_t state_bytes, int action_dim, int key_dim, tpSelMode mode)
{
    tpTree *tree = calloc(1, sizeof *tree);
    if (!tree) {
        return NULL;
    }
    /* Callers cast state blobs to their own structs, so every blob gets max_align_t alignment. */
    size_t align = alignof(max_align_t);
    tree->state_bytes = state_bytes;
    tree->state_stride = (state_bytes + align - 1) / align * align;
    tree->action_dim = action_dim > 0 ? action_dim : 0;
    tree->key_dim = key_dim > 0 ? key_dim : 0;
    tree->mode = mode;
    int shift = TP_CHUNK_SHIFT_MIN;
    while (shift < TP_CHUNK_SHIFT_MAX && (tree->state_stride << shift) < TP_PAGES_HUGE_BYTES) {
        ++shift;
    }
    tree->chunk_shift = shift;
    tree->chunk_mask = (1 << shift) - 1;
    tree->heap_bytes = sizeof *tree;
    return tree;
}

void tpDestroyTree(tpTree *tree)
{
    if (!tree) {
        return;
    }
    for (int32_t c = 0; c < tree->nchunks; ++c) {
        chunk_free(tree, tree->states[c], stateChunkBytes(tree));
        chunk_free(tree, tree->actions[c], actionChunkBytes(tree));
    }
    for (int32_t c = 0; c < tree->nkey_chunks; ++c) {
        free(tree->key_chunks[c]);
    }
    free(tree->states);
    free(tree->actions);
    free(tree->key_chunks);
    free(tree->nodes);
    free(tree->leaves.idx);
    free(tree->nonleaves.idx);
    free(tree->rrt.idx);
    free(tree);
}

/* Returns arr grown geometrically to hold at least `need` elements (possibly moved), or NULL
 * on allocation failure, in which case arr and *cap are unchanged. */
static void *grow(void *arr, int32_t *cap, int32_t need, size_t elem, size_t *heap_bytes)
{
    if (need <= *cap) {
        return arr;
    }
    int64_t ncap = *cap > 0 ? (int64_t)*cap * 2 : 64;
    while (ncap < need) {
        ncap *= 2;
    }
    if (ncap > INT32_MAX) {
        ncap = INT32_MAX;
    }
    void *p = realloc(arr, (size_t)ncap * elem);
    if (!p) {
        return NULL;
    }
    *heap_bytes += (size_t)(ncap - *cap) * elem;
    *cap = (int32_t)ncap;
    return p;
}

static bool ensure_list(tpIndexList *list, int32_t need, size_t *heap_bytes)
{
    int32_t *p = grow(list->idx, &list->cap, need, sizeof(int32_t), heap_bytes);
    if (!p) {
        return false;
    }
    list->idx = p;
    return true;
}

int32_t tpTree_Prepare(tpTree *tree)
{
    int32_t i = tree->count;
    if (i == INT32_MAX) {
        return -1;
    }
    tpNode *nodes = grow(tree->nodes, &tree->cap, i + 1, sizeof(tpNode), &tree->heap_bytes);
    if (!nodes) {
        return -1;
    }
    tree->nodes = nodes;
    int32_t chunk = i >> tree->chunk_shift;
    if (chunk >= tree->nchunks) {
        unsigned char **sp = grow(tree->states, &tree->states_ptr_cap, chunk + 1, sizeof *sp, &tree->heap_bytes);
        if (!sp) {
            return -1;
        }
        tree->states = sp;
        double **ap = grow(tree->actions, &tree->actions_ptr_cap, chunk + 1, sizeof *ap, &tree->heap_bytes);
        if (!ap) {
            return -1;
        }
        tree->actions = ap;
        size_t sbytes = stateChunkBytes(tree), abytes = actionChunkBytes(tree);
        unsigned char *s = chunk_alloc(tree, sbytes);
        /* actions: written in node order, a few bytes to a few hundred a node. Small chunks are
           malloc's (populating them up front cost more than it saved); from TP_PAGES_MIN_BYTES
           on (pool: 2,048 nodes x 144 bytes) one huge page replaces ~70 faults of 4 KiB pages */
        double *a = chunk_alloc(tree, abytes);
        if (!s || !a) {
            chunk_free(tree, s, sbytes);
            chunk_free(tree, a, abytes);
            return -1;
        }
        tree->states[chunk] = s;
        tree->actions[chunk] = a;
        tree->nchunks = chunk + 1;
        tree->heap_bytes += (sbytes ? sbytes : 1) + (abytes ? abytes : sizeof(double));
    }
    if (tree->mode == TP_SEL_BGT) {
        /* A commit appends one leaf and may move its parent to the non-leaf list. */
        if (!ensure_list(&tree->leaves, tree->leaves.count + 1, &tree->heap_bytes) ||
            !ensure_list(&tree->nonleaves, tree->nonleaves.count + 1, &tree->heap_bytes)) {
            return -1;
        }
    } else {
        int32_t k = tree->rrt.count;
        if (!ensure_list(&tree->rrt, k + 1, &tree->heap_bytes)) {
            return -1;
        }
        int32_t kc = k >> TP_KEY_CHUNK_SHIFT;
        if (kc >= tree->nkey_chunks) {
            double **kcp = grow(tree->key_chunks, &tree->key_chunk_ptr_cap, kc + 1, sizeof *kcp, &tree->heap_bytes);
            if (!kcp) {
                return -1;
            }
            tree->key_chunks = kcp;
            size_t kbytes = (size_t)TP_KEY_CHUNK * (size_t)(tree->key_dim > 0 ? tree->key_dim : 1) * sizeof(double);
            double *kp = malloc(kbytes);
            if (!kp) {
                return -1;
            }
            tree->key_chunks[kc] = kp;
            tree->nkey_chunks = kc + 1;
            tree->heap_bytes += kbytes;
        }
    }
    return i;
}

double *tpTree_NextKey(tpTree *tree)
{
    int32_t k = tree->rrt.count;
    return tree->key_chunks[k >> TP_KEY_CHUNK_SHIFT] + (size_t)(k & (TP_KEY_CHUNK - 1)) * (size_t)tree->key_dim;
}

int32_t tpTree_Commit(tpTree *tree, int32_t parent, uint32_t flags)
{
    int32_t i = tree->count;
    TP_INVARIANT(i < tree->cap && (i >> tree->chunk_shift) < tree->nchunks);
    TP_INVARIANT(parent >= -1 && parent < i);
    tpNode *node = &tree->nodes[i];
    node->parent = parent;
    node->depth = 0;
    node->nchildren = 0;
    node->slot = -1;
    node->flags = flags;
    if (parent >= 0) {
        tpNode *p = &tree->nodes[parent];
        node->depth = p->depth + 1;
        tree->nedges++;
        if (p->nchildren == 0) {
            /* The parent stops being a leaf. */
            tree->nleaves--;
            tree->sum_leaf_depth -= p->depth;
            tree->nnonleaves++;
            if (tree->mode == TP_SEL_BGT && p->slot >= 0) {
                int32_t pos = p->slot;
                TP_INVARIANT(pos < tree->leaves.count && tree->leaves.idx[pos] == parent);
                int32_t last = tree->leaves.idx[--tree->leaves.count];
                tree->leaves.idx[pos] = last;
                tree->nodes[last].slot = pos;
                p->slot = tree->nonleaves.count;
                tree->nonleaves.idx[tree->nonleaves.count++] = parent;
                TP_INVARIANT(pos == tree->leaves.count || tree->nodes[tree->leaves.idx[pos]].slot == pos);
            }
        }
        p->nchildren++;
    }
    tree->nleaves++;
    tree->sum_leaf_depth += node->depth;
    if (!(flags & (TP_NODE_BUSY | TP_NODE_GOAL))) {
        tpIndexList *list = tree->mode == TP_SEL_BGT ? &tree->leaves : &tree->rrt;
        node->slot = list->count;
        list->idx[list->count++] = i;
    }
    tree->count = i + 1;
    return i;
}

bool tpTree_Clear(tpTree *tree, int32_t need)
{
    if (!ensure_list(&tree->leaves, need, &tree->heap_bytes) ||
        !ensure_list(&tree->nonleaves, need, &tree->heap_bytes) || !ensure_list(&tree->rrt, need, &tree->heap_bytes)) {
        return false;
    }
    tree->count = 0;
    tree->sum_leaf_depth = 0;
    tree->nleaves = tree->nnonleaves = tree->nedges = 0;
    tree->leaves.count = tree->nonleaves.count = tree->rrt.count = 0;
    tree->rrt_retired = 0;
    return true;
}

void tpTree_Retire(tpTree *tree, int32_t i)
{
    TP_INVARIANT(i >= 0 && i < tree->count);
    tpNode *n = &tree->nodes[i];
    if (n->slot < 0) {
        return;
    }
    if (tree->mode == TP_SEL_RRT) {
        TP_INVARIANT(n->slot < tree->rrt.count && tree->rrt.idx[n->slot] == i);
        n->slot = -1;
        tree->rrt_retired++;
        return;
    }
    tpIndexList *list = n->nchildren == 0 ? &tree->leaves : &tree->nonleaves;
    const int32_t pos = n->slot;
    TP_INVARIANT(pos < list->count && list->idx[pos] == i);
    const int32_t last = list->idx[--list->count];
    list->idx[pos] = last;
    tree->nodes[last].slot = pos;
    n->slot = -1;
}

bool tpBgt_ChooseNonLeaf(double avg_leaf_depth, double avg_branching, double mu)
{
    /* A tree with no non-leaves has no branching yet; the paper's ratio is then taken with 1. */
    if (!(avg_branching > 0.0)) {
        avg_branching = 1.0;
    }
    return avg_leaf_depth / avg_branching > mu;
}

int32_t tpTree_SelectBgt(tpTree *tree, double mu, tpRng *rng)
{
    if (tree->nleaves <= 0) {
        return -1;
    }
    double avg_leaf_depth = (double)tree->sum_leaf_depth / (double)tree->nleaves;
    double avg_branching = tree->nnonleaves > 0 ? (double)tree->nedges / (double)tree->nnonleaves : 1.0;
    const tpIndexList *pick = tpBgt_ChooseNonLeaf(avg_leaf_depth, avg_branching, mu) ? &tree->nonleaves : &tree->leaves;
    if (pick->count == 0) {
        pick = pick == &tree->leaves ? &tree->nonleaves : &tree->leaves;
        if (pick->count == 0) {
            return -1;
        }
    }
    return pick->idx[tpRng_Below(rng, (uint32_t)pick->count)];
}

/* Ties go to the newest node (the latest list position), not the earliest, a node
 * retired as a dead end (tpTree_Retire) losing to any live one of the same distance. Nodes share a
 * key, bit for bit, whenever the key's body sleeps while the rest of the world moves on: the pile's
 * last box waits on the table for 49 throws, so every decision node after the first had the first
 * one's key, and the earliest won every query: that node was expanded at every iteration and the
 * tree never got past the second box, at any budget (0/10). A node sharing its ancestor's key is
 * that ancestor carried further in what the key does not see, so among equals the newest is the
 * frontier; the Voronoi bias over distinct keys is unchanged. */
int32_t tpTree_SelectNearest(const tpTree *tree, struct tpNnIndex *nn, const double *y,
                             double (*distance)(void *ctx, const double *key, const double *y), void *ctx)
{
    int32_t pos;
    if (!distance && nn && tpNnIndex_Nearest(nn, tree, y, &pos)) {
        return pos >= 0 ? tree->rrt.idx[pos] : -1;
    }
    return tpTree_SelectNearestLinear(tree, y, distance, ctx);
}

int32_t tpTree_SelectNearestLinear(const tpTree *tree, const double *y,
                                   double (*distance)(void *ctx, const double *key, const double *y), void *ctx)
{
    int32_t n = tree->rrt.count;
    if (n == 0) {
        return -1;
    }
    const int dim = tree->key_dim;
    /* a retired dead end (tpTree_Retire) loses every tie: (distance, retired, newest) */
    const bool skip = tree->rrt_retired > 0;
    int32_t best = -1;
    double best_d = 0.0;
    bool have = false, best_live = false;
    for (int32_t base = 0; base < n; base += TP_KEY_CHUNK) {
        const double *k = tree->key_chunks[base >> TP_KEY_CHUNK_SHIFT];
        int32_t m = n - base < TP_KEY_CHUNK ? n - base : TP_KEY_CHUNK;
        if (distance) {
            for (int32_t j = 0; j < m; ++j, k += dim) {
                double d = distance(ctx, k, y);
                const bool live = !skip || tpTree_RrtLive(tree, base + j);
                /* "!have" also accepts a NaN first distance; later NaNs never win; on ties a live
                   node beats a retired one, then the newest wins (tpTree_SelectNearest) */
                if (!have || d < best_d || (d == best_d && live >= best_live)) {
                    have = !isnan(d);
                    best_d = d;
                    best = base + j;
                    best_live = live;
                }
            }
        } else if (dim == 2 && !skip) {
            /* Squared distance: same order as Euclidean without the sqrt. */
            const double y0 = y[0], y1 = y[1];
            for (int32_t j = 0; j < m; ++j, k += 2) {
                double d0 = k[0] - y0, d1 = k[1] - y1;
                double d = d0 * d0 + d1 * d1;
                if (!have || d <= best_d) {
                    have = true;
                    best_d = d;
                    best = base + j;
                }
            }
        } else if (dim == 3 && !skip) {
            const double y0 = y[0], y1 = y[1], y2 = y[2];
            for (int32_t j = 0; j < m; ++j, k += 3) {
                double d0 = k[0] - y0, d1 = k[1] - y1, d2 = k[2] - y2;
                double d = d0 * d0 + d1 * d1 + d2 * d2;
                if (!have || d <= best_d) {
                    have = true;
                    best_d = d;
                    best = base + j;
                }
            }
        } else {
            /* the generic form (0.0 + d0^2 + d1^2 + ...) rounds as the unrolled 2D and 3D ones */
            for (int32_t j = 0; j < m; ++j, k += dim) {
                double d = 0.0;
                for (int c = 0; c < dim; ++c) {
                    double dc = k[c] - y[c];
                    d += dc * dc;
                }
                const bool live = !skip || tpTree_RrtLive(tree, base + j);
                if (!have || d < best_d || (d == best_d && live >= best_live)) {
                    have = true;
                    best_d = d;
                    best = base + j;
                    best_live = live;
                }
            }
        }
    }
    return tree->rrt.idx[best];
}

/* ------------------------------------------------------------------------------------------ */
/* Public read-only accessors                                                                  */

int32_t tpTree_Count(const tpTree *tree)
{
    return tree ? tree->count : 0;
}

const tpNode *tpTree_Node(const tpTree *tree, int32_t i)
{
    TP_INVARIANT(tree && i >= 0 && i < tree->count);
    return &tree->nodes[i];
}

const void *tpTree_State(const tpTree *tree, int32_t i)
{
    TP_INVARIANT(tree && i >= 0 && i < tree->count);
    return tpTree_StateMut((tpTree *)tree, i);
}

const double *tpTree_Action(const tpTree *tree, int32_t i)
{
    TP_INVARIANT(tree && i >= 0 && i < tree->count);
    return tpTree_ActionMut((tpTree *)tree, i);
}

int tpTree_Path(const tpTree *tree, int32_t leaf, int32_t *out, int cap)
{
    if (!tree || leaf < 0 || leaf >= tree->count) {
        return 0;
    }
    int len = tree->nodes[leaf].depth + 1;
    if (!out || cap < len) {
        return len;
    }
    int32_t i = leaf;
    for (int k = len - 1; k >= 0; --k) {
        out[k] = i;
        i = tree->nodes[i].parent;
    }
    TP_INVARIANT(i == -1);
    return len;
}

size_t tpTree_MemoryBytes(const tpTree *tree)
{
    return tree ? tree->heap_bytes : 0;
}
