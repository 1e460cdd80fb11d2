/* core: building a search tree node by node and its nearest-neighbour selection (tree.c), for
 * the planner (tree_internal.h) and for tests (tests/core includes only this header of them). */
#ifndef TP_TREE_TESTING_H
#define TP_TREE_TESTING_H

#include <stddef.h>
#include <stdint.h>

#include "tp/planner.h"

struct tpNnIndex;

/// How the tree keeps its selectable nodes: BK-BGT's leaf / non-leaf lists, or BK-RRT's keys.
typedef enum { TP_SEL_BGT = 0, TP_SEL_RRT = 1 } tpSelMode;

/// Creates an empty tree. Returns NULL on allocation failure.
tpTree *tpCreateTree(size_t state_bytes, int action_dim, int key_dim, tpSelMode mode);
/// Frees the tree. NULL is allowed.
void tpDestroyTree(tpTree *tree);
/// Makes room for node index tree->count (arena slot, header, selection lists) and returns
/// that index, or -1 on allocation failure. Nothing is committed.
int32_t tpTree_Prepare(tpTree *tree);
/// Commits the prepared node (index tree->count) as a child of parent (-1 for the root).
/// The state/action (and for RRT selectable nodes, the key slot) must already be written.
/// Cannot fail after a successful tpTree_Prepare.
int32_t tpTree_Commit(tpTree *tree, int32_t parent, uint32_t flags);
/// RRT: the key slot the next selectable node will use (valid after tpTree_Prepare).
double *tpTree_NextKey(tpTree *tree);
/// RRT selection: the selectable node whose key is nearest to y (the newest one on ties), or -1.
/// distance == NULL: Euclidean over key_dim dims, answered by the spatial index `nn` when one is
/// given (the planner owns it; the result is the same node either way).
int32_t tpTree_SelectNearest(const tpTree *tree, struct tpNnIndex *nn, const double *y,
                             double (*distance)(void *ctx, const double *key, const double *y), void *ctx);
/// The same selection by the exact linear scan only (the reference the index must match).
int32_t tpTree_SelectNearestLinear(const tpTree *tree, const double *y,
                                   double (*distance)(void *ctx, const double *key, const double *y), void *ctx);
/// Checks the tree's bookkeeping against its nodes: parents and depths, the leaf / non-leaf / edge
/// counts and the leaf-depth sum of Algorithm 3, and every selection list (each entry a selectable
/// node of the right kind whose slot is its position, every selectable node listed). False with
/// the first inconsistency in why. O(nodes): for tests and the sanitizer build.
bool tpTree_Check(const tpTree *tree, char *why, size_t cap);

#endif
