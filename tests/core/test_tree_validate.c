/* The search tree's invariants (core/src/tree_validate.c): trees built node by node in both
 * selection modes pass tpTree_Check, and each rule, broken once on purpose (then restored), fails
 * with its own message -- so a rule that can never fail would show here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "tree_internal.h"

/* Asserts that the tree is broken with a message containing want. */
static void expect_broken(const tpTree *t, const char *want)
{
    char why[320] = "";
    if (tpTree_Check(t, why, sizeof why) || !strstr(why, want)) {
        print_error("expected a broken rule with '%s', got '%s'\n", want, why);
        fail();
    }
}

#define BREAK(t, field, bad, want)                                                                                     \
    do {                                                                                                               \
        __typeof__(field) keep_ = (field);                                                                             \
        (field) = (bad);                                                                                               \
        expect_broken((t), (want));                                                                                    \
        (field) = keep_;                                                                                               \
        char why_[320] = "";                                                                                           \
        if (!tpTree_Check((t), why_, sizeof why_)) {                                                                   \
            fail_msg("restored, still broken: %s", why_);                                                              \
        }                                                                                                              \
    } while (0)

/* A tree of 40 nodes: node k's parent is (k - 1) / 3 (a ternary tree), every 7th node busy, node 30
 * a goal; RRT trees get key k. */
static tpTree *build(tpSelMode mode)
{
    tpTree *t = tpCreateTree(24, 2, 1, mode);
    assert_non_null(t);
    for (int32_t k = 0; k < 40; ++k) {
        assert_int_equal(tpTree_Prepare(t), k);
        const uint32_t flags = k == 30 ? TP_NODE_GOAL : (k > 0 && k % 7 == 0) ? TP_NODE_BUSY : 0u;
        if (mode == TP_SEL_RRT && !flags) {
            tpTree_NextKey(t)[0] = (double)k;
        }
        tpTree_Commit(t, k == 0 ? -1 : (k - 1) / 3, flags);
    }
    char why[320] = "";
    if (!tpTree_Check(t, why, sizeof why)) {
        fail_msg("a tree as built: %s", why);
    }
    return t;
}

static void test_arena_rules(void **state)
{
    (void)state;
    tpTree *t = build(TP_SEL_BGT);
    BREAK(t, t->mode, (tpSelMode)7, "selection mode 7");
    BREAK(t, t->state_stride, t->state_bytes - 1, "tree: stride");
    BREAK(t, t->chunk_mask, 0, "chunk shift");
    BREAK(t, t->count, t->cap + 1, "nodes, room for");
    BREAK(t, t->nchunks, t->states_ptr_cap + 1, "chunks, room for");
    BREAK(t, t->leaves.count, t->leaves.cap + 1, "list 0 holds");
    const int32_t rrt_cap = t->rrt.cap; /* room as tpTree_Clear makes it in every list */
    t->rrt.cap = 1;
    BREAK(t, t->rrt.count, 1, "the other mode's lists");
    t->rrt.cap = rrt_cap;
    BREAK(t, t->heap_bytes, 0, "0 heap bytes");
    tpDestroyTree(t);
    t = build(TP_SEL_RRT);
    BREAK(t, t->nkey_chunks, 0, "keys in 0 key chunks");
    tpDestroyTree(t);
}

static void test_node_rules(void **state)
{
    (void)state;
    tpTree *t = build(TP_SEL_BGT);
    BREAK(t, t->nodes[5].parent, 5, "node 5: parent 5");
    BREAK(t, t->nodes[5].depth, 9, "node 5: parent 1, depth 9");
    BREAK(t, t->nodes[0].depth, 1, "node 0: parent -1, depth 1");
    BREAK(t, t->nodes[6].flags, 8u, "node 6: flags 8");
    BREAK(t, t->nodes[7].slot, 3, "node 7: busy or goal in slot 3");
    BREAK(t, t->nodes[2].nchildren, 2, "node 2: 3 children counted, 2 kept");
    BREAK(t, t->nleaves, t->nleaves + 1, "leaves (kept");
    BREAK(t, t->nedges, 0, "edges (kept 0)");
    BREAK(t, t->sum_leaf_depth, 0, "leaf depths sum to");
    tpDestroyTree(t);
}

static void test_list_rules(void **state)
{
    (void)state;
    tpTree *t = build(TP_SEL_BGT);
    assert_true(t->leaves.count >= 2 && t->nonleaves.count >= 2);
    BREAK(t, t->leaves.idx[0], 99, "leaves[0] = 99: not a node");
    const int32_t leaf = t->leaves.idx[0];
    BREAK(t, t->nodes[leaf].slot, 1, "its slot is 1");
    BREAK(t, t->leaves.idx[0], 7, "leaves[0] = node 7: its slot is -1"); /* a busy node */
    BREAK(t, t->leaves.idx[0], t->nonleaves.idx[0], "children");         /* a non-leaf (its slot 0) among the leaves */
    BREAK(t, t->leaves.count, t->leaves.count - 1, "listed,");
    tpDestroyTree(t);
    t = build(TP_SEL_RRT);
    /* two entries swapped, their slots with them: both consistent, out of insertion order */
    const int32_t a = t->rrt.idx[1], b = t->rrt.idx[2];
    t->rrt.idx[1] = b, t->rrt.idx[2] = a;
    t->nodes[a].slot = 2, t->nodes[b].slot = 1;
    expect_broken(t, "the list is in insertion order");
    t->rrt.idx[1] = a, t->rrt.idx[2] = b;
    t->nodes[a].slot = 1, t->nodes[b].slot = 2;
    BREAK(t, t->rrt.count, t->rrt.count - 1, "listed less 0 retired");
    BREAK(t, t->rrt_retired, t->rrt.count + 1, "of them retired");
    tpDestroyTree(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_rules),
        cmocka_unit_test(test_node_rules),
        cmocka_unit_test(test_list_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
