/* core: entry points for tests only (tests/core adds core/src to its include path). */
#ifndef TP_PLANNER_TESTING_H
#define TP_PLANNER_TESTING_H

#include <stdbool.h>

/// BGT node-selection rule on its own (Algorithm 3): true when a random non-leaf should be chosen,
/// i.e. AvgLeafDepth / AvgBranchingFactor > mu.
bool tpBgt_ChooseNonLeaf(double avg_leaf_depth, double avg_branching, double mu);

#endif
