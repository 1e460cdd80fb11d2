/* tactics: the condition evaluator of cond.c, for the domain (domain_internal.h) and for tests
 * (tests/tactics adds tactics/src to its include path and includes only this header). */
#ifndef TP_COND_TESTING_H
#define TP_COND_TESTING_H

#include <stddef.h>

#include "tp/tactics.h"

/// Structural checks of a condition tree against the world.
bool tpCond_Check(const tpCond *c, const tpWorld *world, char *err, size_t errlen);
/// Evaluates a condition: 1 true, 0 false, -1 host error.
int tpCond_Eval(const tpCond *c, const tpStateView *v, const tpBodyState *initial_all);
/// tpCond_Eval that also says, when the answer is 0, which node made it false (*blame, not NULL):
/// the false leaf, the `or` none of whose operands held, or the `not` whose operand held.
int tpCond_EvalBlame(const tpCond *c, const tpStateView *v, const tpBodyState *initial_all, const tpCond **blame);
/// One line on a node tpCond_EvalBlame blamed, at the state v: its label (or a generic name) and
/// the values that made it false, e.g. "tp.inside 'box' (stack.lua:12) was false: 'box' at
/// (0.1, 0, -0.3)". Host callbacks are not called again.
void tpCond_Describe(const tpCond *c, const tpStateView *v, const tpBodyState *initial_all, char *out, size_t outlen);

/// The node's label (how the script wrote it) or a generic name from its kind and bodies.
void tpCond_Name(const tpCond *c, const tpStateView *v, char *name, size_t cap);

#endif
