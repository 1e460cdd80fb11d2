/* Private: a spatial index for BK-RRT's nearest-neighbour selection with a plain Euclidean
 * distance (tpProblem.key_is_euclidean without a distance callback). Owned by the planner
 * (planner.c), queried through tpTree_SelectNearest (tree.c); the tests use it directly.
 *
 * What it indexes: the tree's append-only list of selectable nodes (tpTree.rrt) and their keys
 * (tpTree.key_chunks). Busy and goal nodes never enter that list, so they are never returned.
 *
 * Exactness: the index returns exactly the node the linear scan of tpTree_SelectNearest returns:
 * the smallest squared distance computed with the same floating-point operations in the same
 * order, the latest list position on ties (the newest node: tpTree_SelectNearest says why). Its pruning bounds are
 * exact lower bounds of those computed distances (IEEE rounding is monotone), and ties are always explored. Keys or
 * samples with a NaN or an infinity fall back to the linear scan (whose NaN handling is order-based).
 *
 * Structure (why): a logarithmic-method forest (Bentley & Saxe) of static, balanced k-d trees.
 * The list only grows, so new positions are first scanned linearly as a small tail of fewer
 * than TP_NN_BUCKET entries; a full tail is merged with the filled levels 0..j-1 into level j
 * (B * 2^j points), which is rebuilt balanced. Insertion is amortised O(log^2 n), a query
 * O(log^2 n) for well-spread keys, and no level ever degenerates (duplicates included). */
#ifndef TP_NN_INDEX_H
#define TP_NN_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tpTree;

/* Tail length at which the unindexed tail is merged into the forest. */
#define TP_NN_BUCKET 32
/* Ranges this short are scanned linearly inside a k-d tree. */
#define TP_NN_LEAF 8

typedef struct tpNnIndex tpNnIndex;

/// Creates an empty index for keys of `dim` doubles (dim >= 1). NULL on allocation failure.
tpNnIndex *tpCreateNnIndex(int dim);
/// Frees the index. NULL is allowed.
void tpDestroyNnIndex(tpNnIndex *ix);
/// Nearest selectable node of `tree` to y (key_dim doubles): writes its position in tree->rrt to
/// *pos (-1 when the list is empty) and returns true. Returns false when the index cannot answer
/// exactly (non-finite key or sample, or out of memory while catching up with the tree); the
/// caller then uses the linear scan. Brings the index up to date with tree->rrt first.
bool tpNnIndex_Nearest(tpNnIndex *ix, const struct tpTree *tree, const double *y, int32_t *pos);
/// The forest's invariants against `tree` (the tree it indexes): as many points indexed as the
/// filled levels hold, every list position below that exactly once, each kept key bitwise equal
/// to the tree's, every level in k-d order (TP_INVARIANT at the end of a planning run in debug and
/// sanitizer builds; the tests). False with the first broken one in why. O(n log n).
bool tpNnIndex_Check(const tpNnIndex *ix, const struct tpTree *tree, char *why, size_t cap);
/// Heap bytes held by the index.
size_t tpNnIndex_Bytes(const tpNnIndex *ix);

#endif
