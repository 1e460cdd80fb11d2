/* The search tree's invariants (tpTree_Check, tree_testing.h): its arena (stride, chunks, pointer
 * arrays), every node's parent, depth, children and flags, the whole-tree counts of Algorithm 3 and
 * every selection list (BK-BGT's leaves and non-leaves, BK-RRT's append-only list and its key
 * chunks). Run through TP_INVARIANT at the end of every planning run in Debug and sanitizer
 * builds; tests/core/test_tree_validate.c breaks each rule once. Reads only (one scratch array). */
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>

#include "tp/base.h"
#include "tree_internal.h"

#define TP_NODE_FLAGS (TP_NODE_BUSY | TP_NODE_GOAL) /* every flag a node may carry */

/* The arena: stride, chunk geometry, pointer arrays and lists within their capacities. */
static bool valid_arena(const tpTree *t, char *why, size_t cap)
{
    if (t->mode != TP_SEL_BGT && t->mode != TP_SEL_RRT) {
        return tpBroken(why, cap, "tree: selection mode %d", (int)t->mode);
    }
    if (t->state_stride < t->state_bytes || t->state_stride % alignof(max_align_t) != 0 || t->action_dim < 0 ||
        t->key_dim < 0) {
        return tpBroken(why, cap, "tree: stride %zu for %zu state bytes, %d action and %d key doubles", t->state_stride,
                        t->state_bytes, t->action_dim, t->key_dim);
    }
    if (t->chunk_shift < 4 || t->chunk_shift > 16 || t->chunk_mask != (1 << t->chunk_shift) - 1) {
        return tpBroken(why, cap, "tree: chunk shift %d, mask 0x%x", t->chunk_shift, (unsigned)t->chunk_mask);
    }
    if (t->count < 0 || t->count > t->cap || ((int64_t)t->nchunks << t->chunk_shift) < t->count) {
        return tpBroken(why, cap, "tree: %d nodes, room for %d, %d chunks of %d", (int)t->count, (int)t->cap,
                        (int)t->nchunks, 1 << t->chunk_shift);
    }
    if (t->nchunks > t->states_ptr_cap || t->nchunks > t->actions_ptr_cap || t->nkey_chunks > t->key_chunk_ptr_cap) {
        return tpBroken(why, cap, "tree: %d chunks, room for %d state and %d action pointers; %d key chunks of %d",
                        (int)t->nchunks, (int)t->states_ptr_cap, (int)t->actions_ptr_cap, (int)t->nkey_chunks,
                        (int)t->key_chunk_ptr_cap);
    }
    const tpIndexList *lists[3] = {&t->leaves, &t->nonleaves, &t->rrt};
    for (int k = 0; k < 3; ++k) {
        if (lists[k]->count < 0 || lists[k]->count > lists[k]->cap) {
            return tpBroken(why, cap, "tree: list %d holds %d in room for %d", k, (int)lists[k]->count,
                            (int)lists[k]->cap);
        }
    }
    if (t->mode == TP_SEL_RRT ? t->leaves.count || t->nonleaves.count : t->rrt.count != 0) {
        return tpBroken(why, cap, "tree: the other mode's lists hold %d, %d, %d", (int)t->leaves.count,
                        (int)t->nonleaves.count, (int)t->rrt.count);
    }
    if (t->mode == TP_SEL_RRT && ((int64_t)t->nkey_chunks << TP_KEY_CHUNK_SHIFT) < t->rrt.count) {
        return tpBroken(why, cap, "tree: %d keys in %d key chunks", (int)t->rrt.count, (int)t->nkey_chunks);
    }
    if (t->heap_bytes < sizeof *t) {
        return tpBroken(why, cap, "tree: %zu heap bytes", t->heap_bytes);
    }
    return true;
}

/* One selection list: every entry a node of the tree whose slot is its position (so selectable: a
   busy or goal node has slot -1, valid_nodes) and a leaf or not as the list says (want_leaf < 0:
   either); BK-RRT's in insertion order. */
static bool valid_list(const tpTree *t, const tpIndexList *list, int want_leaf, const char *name, char *why, size_t cap)
{
    for (int32_t k = 0; k < list->count; ++k) {
        const int32_t i = list->idx[k];
        if (i < 0 || i >= t->count) {
            return tpBroken(why, cap, "%s[%d] = %d: not a node", name, (int)k, (int)i);
        }
        const tpNode *n = &t->nodes[i];
        /* a retired BK-RRT entry stays in the append-only list with slot -1 (tpTree_Retire) */
        const bool retired = list == &t->rrt && n->slot == -1;
        if (n->slot != k && !retired) {
            return tpBroken(why, cap, "%s[%d] = node %d: its slot is %d", name, (int)k, (int)i, (int)n->slot);
        }
        if (want_leaf >= 0 && (n->nchildren == 0) != (want_leaf == 1)) {
            return tpBroken(why, cap, "%s[%d] = node %d: %d children", name, (int)k, (int)i, (int)n->nchildren);
        }
        if (t->mode == TP_SEL_RRT && k > 0 && i <= list->idx[k - 1]) {
            return tpBroken(why, cap, "%s[%d] = node %d: after node %d (the list is in insertion order)", name, (int)k,
                            (int)i, (int)list->idx[k - 1]);
        }
    }
    return true;
}

/* Every node: its parent before it, its depth one more, its flags known, its child count; and the
   whole-tree counts they add up to. children: count scratch entries (NULL: the per-node child
   counts are not checked, out of memory). */
static bool valid_nodes(const tpTree *t, int32_t *children, int64_t *selectable, char *why, size_t cap)
{
    int64_t leaves = 0, nonleaves = 0, edges = 0, sum_depth = 0;
    *selectable = 0;
    for (int32_t i = 0; i < t->count; ++i) {
        const tpNode *n = &t->nodes[i];
        if (n->parent >= i || n->parent < -1 || (n->parent >= 0 && n->depth != t->nodes[n->parent].depth + 1) ||
            (n->parent < 0 && n->depth != 0)) {
            return tpBroken(why, cap, "node %d: parent %d, depth %d", (int)i, (int)n->parent, (int)n->depth);
        }
        if ((n->flags & ~(uint32_t)TP_NODE_FLAGS) || n->nchildren < 0) {
            return tpBroken(why, cap, "node %d: flags %u, %d children", (int)i, (unsigned)n->flags, (int)n->nchildren);
        }
        if ((n->flags & TP_NODE_FLAGS) && n->slot != -1) {
            return tpBroken(why, cap, "node %d: busy or goal in slot %d", (int)i, (int)n->slot);
        }
        if (children && n->parent >= 0) {
            children[n->parent]++;
        }
        edges += n->parent >= 0;
        if (n->nchildren == 0) {
            leaves++;
            sum_depth += n->depth;
        } else {
            nonleaves++;
        }
        *selectable += !(n->flags & TP_NODE_FLAGS) && n->slot >= 0;
    }
    for (int32_t i = 0; children && i < t->count; ++i) {
        if (children[i] != t->nodes[i].nchildren) {
            return tpBroken(why, cap, "node %d: %d children counted, %d kept", (int)i, (int)children[i],
                            (int)t->nodes[i].nchildren);
        }
    }
    if (leaves != t->nleaves || nonleaves != t->nnonleaves) {
        return tpBroken(why, cap, "counts: %lld leaves (kept %lld), %lld non-leaves (kept %lld)", (long long)leaves,
                        (long long)t->nleaves, (long long)nonleaves, (long long)t->nnonleaves);
    }
    if (edges != t->nedges) {
        return tpBroken(why, cap, "counts: %lld edges (kept %lld)", (long long)edges, (long long)t->nedges);
    }
    if (sum_depth != t->sum_leaf_depth) {
        return tpBroken(why, cap, "counts: leaf depths sum to %lld (kept %lld)", (long long)sum_depth,
                        (long long)t->sum_leaf_depth);
    }
    return true;
}

bool tpTree_Check(const tpTree *tree, char *why, size_t cap)
{
    if (!valid_arena(tree, why, cap)) {
        return false;
    }
    int64_t selectable = 0;
    int32_t *children = calloc((size_t)(tree->count > 0 ? tree->count : 1), sizeof *children);
    const bool nodes_ok = valid_nodes(tree, children, &selectable, why, cap);
    free(children);
    if (!nodes_ok) {
        return false;
    }
    if (tree->mode == TP_SEL_BGT) {
        if (!valid_list(tree, &tree->leaves, 1, "leaves", why, cap) ||
            !valid_list(tree, &tree->nonleaves, 0, "nonleaves", why, cap)) {
            return false;
        }
        if ((int64_t)tree->leaves.count + tree->nonleaves.count != selectable) {
            return tpBroken(why, cap, "%d + %d listed, %lld selectable", (int)tree->leaves.count,
                            (int)tree->nonleaves.count, (long long)selectable);
        }
        return true;
    }
    if (!valid_list(tree, &tree->rrt, -1, "rrt", why, cap)) {
        return false;
    }
    if (tree->rrt_retired < 0 || tree->rrt_retired > tree->rrt.count) {
        return tpBroken(why, cap, "%d listed, %d of them retired", (int)tree->rrt.count, (int)tree->rrt_retired);
    }
    if (tree->rrt.count - tree->rrt_retired != selectable) {
        return tpBroken(why, cap, "%d listed less %d retired, %lld selectable", (int)tree->rrt.count,
                        (int)tree->rrt_retired, (long long)selectable);
    }
    return true;
}
