/* Private layout of tpTree, shared by tree.c and planner.c only.
 *
 * Memory layout (why): node headers are small and live in one growable array; state blobs,
 * actions and NN keys are big and live in fixed-size chunks that are never moved, so a
 * tpTree_State pointer stays valid for the life of the tree and growth never copies states.
 * The next node is written in place into its arena slot before it is known to be valid
 * (tpTree_Prepare), then either committed or simply overwritten by the next attempt. */
#ifndef TP_TREE_INTERNAL_H
#define TP_TREE_INTERNAL_H

#include "tp/planner.h"
#include "tree_testing.h" /* building and searching a tree, also for tests */

struct tpNnIndex;

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Keys of selectable nodes (BK-RRT) are kept in chunks of this many entries. */
#define TP_KEY_CHUNK_SHIFT 12
#define TP_KEY_CHUNK (1 << TP_KEY_CHUNK_SHIFT)

/// A growable array of node indices (selectable nodes).
typedef struct tpIndexList {
    int32_t *idx;
    int32_t count;
    int32_t cap;
} tpIndexList;

struct tpTree {
    size_t state_bytes;  /* bytes of one state blob */
    size_t state_stride; /* state_bytes rounded up so every blob is suitably aligned */
    int action_dim;      /* doubles per action */
    int key_dim;         /* doubles per key (RRT only) */
    tpSelMode mode;

    tpNode *nodes; /* node headers, count used */
    int32_t count;
    int32_t cap;

    int chunk_shift;         /* nodes per state/action chunk = 1 << chunk_shift */
    int32_t chunk_mask;      /* (1 << chunk_shift) - 1 */
    unsigned char **states;  /* state chunks */
    double **actions;        /* action chunks */
    int32_t nchunks;         /* chunks allocated (states and actions alike) */
    int32_t states_ptr_cap;  /* capacity of the states pointer array */
    int32_t actions_ptr_cap; /* capacity of the actions pointer array */

    /* Whole-tree shape statistics for Algorithm 3 (busy and goal nodes included). */
    int64_t sum_leaf_depth;
    int64_t nleaves;
    int64_t nnonleaves;
    int64_t nedges;

    /* BGT: selectable (non-busy, non-goal) leaves and non-leaves; tpNode.slot = position. */
    tpIndexList leaves;
    tpIndexList nonleaves;

    /* RRT: selectable nodes in insertion order and their keys, contiguous per chunk. Busy and
     * goal are decided when a node is added, so this list is append-only and the scan order
     * equals index order. A retired dead end (tpTree_Retire) stays in it with tpNode.slot -1 and
     * loses the nearest-neighbour search's ties (tpTree_RrtLive). */
    tpIndexList rrt;
    int32_t rrt_retired; /* entries of rrt retired (0: the search need not look at slots) */
    double **key_chunks;
    int32_t nkey_chunks;
    int32_t key_chunk_ptr_cap;

    size_t heap_bytes; /* bytes currently held (for tpTree_MemoryBytes) */
    bool small_pages;  /* chunks from malloc, not huge pages (tpTree_SetSmallPages) */
};

/// Chunks from malloc (4 KiB pages faulted as written) instead of huge pages, for an anytime search
/// whose iterations must each be short; before the first node.
void tpTree_SetSmallPages(tpTree *tree, bool small);
/// Forgets every node but keeps the memory (an anytime search's re-root rebuilds the tree in
/// place: node i's state and action stay where they are until overwritten), the selection lists
/// made room for `need` entries first. False when out of memory (nothing changed).
bool tpTree_Clear(tpTree *tree, int32_t need);
/// Node i (selectable) is retired (slot -1). BGT: it leaves its selection list, never selected
/// again. RRT: it stays in the append-only list (its key with it) and loses every tie of the
/// nearest-neighbour search to a live node, but is still chosen where it is strictly nearest (the
/// Voronoi bias stays, and a search never runs out of nodes). Its place in the shape statistics
/// stays (it is still a leaf or a non-leaf of the tree).
void tpTree_Retire(tpTree *tree, int32_t i);
/// RRT: whether list position pos of tree->rrt is live (not retired).
static inline bool tpTree_RrtLive(const tpTree *tree, int32_t pos)
{
    return tree->rrt_retired == 0 || tree->nodes[tree->rrt.idx[pos]].slot >= 0;
}
/// BGT selection (Algorithm 3). Returns -1 if no node is selectable.
int32_t tpTree_SelectBgt(tpTree *tree, double mu, tpRng *rng);
static inline void *tpTree_StateMut(tpTree *tree, int32_t i)
{
    return tree->states[i >> tree->chunk_shift] + (size_t)(i & tree->chunk_mask) * tree->state_stride;
}

static inline double *tpTree_ActionMut(tpTree *tree, int32_t i)
{
    return tree->actions[i >> tree->chunk_shift] + (size_t)(i & tree->chunk_mask) * (size_t)tree->action_dim;
}

#endif
