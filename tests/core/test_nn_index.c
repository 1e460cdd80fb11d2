/* The BK-RRT nearest-neighbour index (core/src/nn_index.c) against the exact linear scan: on
 * random trees with busy and goal nodes (never selectable), keys with many exact ties (integer
 * grids, duplicates), several dimensions and sizes that fill many index levels, every query must
 * return the very same node. Non-finite keys and samples must fall back to the scan. Finally a
 * whole planner run must build the identical tree with and without the index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn_index.h"
#include "tp/planner.h"
#include "tree_testing.h"

typedef enum { KEYS_UNIFORM, KEYS_GRID, KEYS_CLUSTER, KEYS_LINE } KeyKind;

static void random_key(tpRng *rng, KeyKind kind, int dim, int32_t i, double *k)
{
    for (int c = 0; c < dim; ++c) {
        switch (kind) {
        case KEYS_UNIFORM:
            k[c] = tpRng_Uniform(rng, -3.0, 3.0);
            break;
        case KEYS_GRID: /* few distinct values: exact duplicates and distance ties everywhere */
            k[c] = (double)tpRng_Below(rng, 5) * 0.5;
            break;
        case KEYS_CLUSTER: /* most keys in a tiny blob, a few far away */
            k[c] = tpRng_Below(rng, 10) == 0 ? tpRng_Uniform(rng, -100.0, 100.0) : tpRng_Normal(rng, 1.0, 1e-3);
            break;
        case KEYS_LINE: /* monotone insertion order along every axis (a growing tree front) */
            k[c] = (double)i * 0.01 + (c == 0 ? 0.0 : tpRng_Uniform(rng, 0.0, 1e-6));
            break;
        }
    }
}

static void random_sample(tpRng *rng, KeyKind kind, int dim, double *y)
{
    for (int c = 0; c < dim; ++c) {
        if (kind == KEYS_GRID) {
            y[c] = (double)tpRng_Below(rng, 11) * 0.25 - 0.25; /* on and between grid values */
        } else if (kind == KEYS_LINE) {
            y[c] = tpRng_Uniform(rng, -1.0, 60.0);
        } else {
            y[c] = tpRng_Uniform(rng, -4.0, 4.0);
        }
    }
}

/* Adds a node with a random parent; about a third are busy or goal (no key, not selectable). */
static void add_node(tpTree *tree, tpRng *rng, KeyKind kind, int dim)
{
    int32_t i = tpTree_Prepare(tree);
    assert_true(i >= 0);
    uint32_t r = tpRng_Below(rng, 6);
    uint32_t flags = r == 0 ? TP_NODE_BUSY : r == 1 ? TP_NODE_GOAL : 0u;
    if (i == 0) {
        flags = 0;
    }
    if (!(flags & (TP_NODE_BUSY | TP_NODE_GOAL))) {
        random_key(rng, kind, dim, i, tpTree_NextKey(tree));
    }
    int32_t parent = i == 0 ? -1 : (int32_t)tpRng_Below(rng, (uint32_t)i);
    tpTree_Commit(tree, parent, flags);
}

static void check_equivalence(KeyKind kind, int dim, int32_t nodes, int queries_per_step, uint32_t seed)
{
    tpRng rng;
    tpRng_Seed(&rng, seed);
    tpTree *tree = tpCreateTree(8, 1, dim, TP_SEL_RRT);
    tpNnIndex *nn = tpCreateNnIndex(dim);
    assert_non_null(tree);
    assert_non_null(nn);
    double y[8];
    long mismatches = 0, queries = 0;
    for (int32_t n = 0; n < nodes; ++n) {
        add_node(tree, &rng, kind, dim);
        /* Query densely while small (every merge), then at a sparser rhythm. */
        if (n < 600 || n % 97 == 0 || n == nodes - 1) {
            for (int q = 0; q < queries_per_step; ++q) {
                random_sample(&rng, kind, dim, y);
                int32_t a = tpTree_SelectNearest(tree, nn, y, NULL, NULL);
                int32_t b = tpTree_SelectNearestLinear(tree, y, NULL, NULL);
                assert_true(a >= 0 && !(tpTree_Node(tree, a)->flags & (TP_NODE_BUSY | TP_NODE_GOAL)));
                if (a != b) {
                    if (mismatches < 5) {
                        fprintf(stderr, "kind %d dim %d n %d: index %d, scan %d\n", (int)kind, dim, n, a, b);
                    }
                    ++mismatches;
                }
                ++queries;
            }
        }
    }
    assert_true(tpNnIndex_Bytes(nn) > sizeof(double) * (size_t)dim * (size_t)(nodes / 2));
    char why[256] = "";
    if (!tpTree_Check(tree, why, sizeof why)) { /* the tree's own bookkeeping, busy and goal nodes included */
        fail_msg("%s", why);
    }
    if (!tpNnIndex_Check(nn, tree, why, sizeof why)) { /* the forest's own: counts, positions, keys, k-d order */
        fail_msg("%s", why);
    }
    tpDestroyNnIndex(nn);
    tpDestroyTree(tree);
    assert_int_equal(mismatches, 0);
    assert_true(queries > 1000);
}

static void test_uniform(void **state)
{
    (void)state;
    for (int dim = 1; dim <= 4; ++dim) {
        check_equivalence(KEYS_UNIFORM, dim, 9000, 3, 100u + (uint32_t)dim);
    }
    check_equivalence(KEYS_UNIFORM, 7, 3000, 3, 7u);
}

static void test_ties_and_duplicates(void **state)
{
    (void)state;
    for (int dim = 1; dim <= 3; ++dim) {
        check_equivalence(KEYS_GRID, dim, 9000, 4, 200u + (uint32_t)dim);
    }
}

static void test_clustered_and_monotone(void **state)
{
    (void)state;
    check_equivalence(KEYS_CLUSTER, 2, 9000, 3, 301u);
    check_equivalence(KEYS_CLUSTER, 3, 9000, 3, 302u);
    check_equivalence(KEYS_LINE, 2, 6000, 3, 303u);
}

/* A NaN or infinite key (or sample) must not change the answer: the scan decides. */
static void test_non_finite(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 5);
    tpTree *tree = tpCreateTree(8, 1, 2, TP_SEL_RRT);
    tpNnIndex *nn = tpCreateNnIndex(2);
    assert_non_null(tree);
    assert_non_null(nn);
    for (int i = 0; i < 500; ++i) {
        add_node(tree, &rng, KEYS_UNIFORM, 2);
    }
    double y[2] = {NAN, 0.5};
    assert_int_equal(tpTree_SelectNearest(tree, nn, y, NULL, NULL), tpTree_SelectNearestLinear(tree, y, NULL, NULL));
    y[0] = INFINITY;
    assert_int_equal(tpTree_SelectNearest(tree, nn, y, NULL, NULL), tpTree_SelectNearestLinear(tree, y, NULL, NULL));
    int32_t i = tpTree_Prepare(tree);
    assert_true(i >= 0);
    double *k = tpTree_NextKey(tree);
    k[0] = NAN;
    k[1] = 0.0;
    tpTree_Commit(tree, 0, 0);
    for (int q = 0; q < 200; ++q) {
        add_node(tree, &rng, KEYS_UNIFORM, 2);
        random_sample(&rng, KEYS_UNIFORM, 2, y);
        assert_int_equal(tpTree_SelectNearest(tree, nn, y, NULL, NULL),
                         tpTree_SelectNearestLinear(tree, y, NULL, NULL));
    }
    tpDestroyNnIndex(nn);
    tpDestroyTree(tree);
}

/* The forest's check can fail: against a tree with other keys (a key copy that no longer matches),
 * against a tree with fewer nodes (positions out of range), and it holds for the right tree. */
static void test_check_detects(void **state)
{
    (void)state;
    tpRng ra, rb;
    tpRng_Seed(&ra, 41);
    tpRng_Seed(&rb, 42);
    tpTree *a = tpCreateTree(8, 1, 3, TP_SEL_RRT), *b = tpCreateTree(8, 1, 3, TP_SEL_RRT),
           *small = tpCreateTree(8, 1, 3, TP_SEL_RRT);
    tpNnIndex *nn = tpCreateNnIndex(3);
    assert_true(a && b && small && nn);
    /* a and b: the same shape (every node selectable), other keys */
    for (int32_t n = 0; n < 700; ++n) {
        tpTree *t[2] = {a, b};
        tpRng *r[2] = {&ra, &rb};
        for (int k = 0; k < 2; ++k) {
            int32_t i = tpTree_Prepare(t[k]);
            assert_true(i == n);
            random_key(r[k], KEYS_UNIFORM, 3, i, tpTree_NextKey(t[k]));
            tpTree_Commit(t[k], i == 0 ? -1 : i - 1, 0);
        }
    }
    for (int32_t n = 0; n < 40; ++n) {
        int32_t i = tpTree_Prepare(small);
        random_key(&ra, KEYS_UNIFORM, 3, i, tpTree_NextKey(small));
        tpTree_Commit(small, i == 0 ? -1 : i - 1, 0);
    }
    double y[3] = {0.1, 0.2, 0.3};
    assert_true(tpTree_SelectNearest(a, nn, y, NULL, NULL) >= 0); /* indexes a's 700 keys: 21 buckets */
    char why[256] = "";
    assert_true(tpNnIndex_Check(nn, a, why, sizeof why));
    assert_false(tpNnIndex_Check(nn, b, why, sizeof why));
    assert_non_null(strstr(why, "differs from the tree's"));
    assert_false(tpNnIndex_Check(nn, small, why, sizeof why));
    assert_non_null(strstr(why, "selectable nodes"));
    tpDestroyNnIndex(nn);
    tpDestroyTree(a);
    tpDestroyTree(b);
    tpDestroyTree(small);
}

/* ------------------------------------------------------------------------------------------ */
/* A whole BK-RRT run builds the same tree with and without the index.                         */

typedef struct Pt {
    double pos[2], vel[2];
    int32_t busy, pad;
} Pt;

static void pt_initial(void *ctx, void *x)
{
    (void)ctx;
    memset(x, 0, sizeof(Pt));
}
static void pt_sample(void *ctx, tpRng *rng, double *y)
{
    (void)ctx;
    y[0] = tpRng_Uniform(rng, -5, 5);
    y[1] = tpRng_Uniform(rng, -5, 5);
}
static void pt_key(void *ctx, const void *x, double *key)
{
    (void)ctx;
    memcpy(key, ((const Pt *)x)->pos, 2 * sizeof(double));
}
static int pt_control(void *ctx, const void *x, const double *y, tpRng *rng, void *xnew, double *a)
{
    (void)ctx;
    const Pt *p = x;
    Pt *n = xnew;
    if (p->busy == 0) {
        n->busy = (int32_t)tpRng_Below(rng, 4);
    } else {
        n->busy = p->busy - 1;
    }
    a[0] = 0.5 * (y[0] - p->pos[0]) + tpRng_Uniform(rng, -1, 1);
    a[1] = 0.5 * (y[1] - p->pos[1]) + tpRng_Uniform(rng, -1, 1);
    return n->busy > 0 ? TP_CB_TRUE : TP_CB_FALSE;
}
static int pt_simulate(void *ctx, const void *x, const double *a, void *xnew)
{
    (void)ctx;
    const Pt *p = x;
    Pt *n = xnew;
    for (int c = 0; c < 2; ++c) {
        n->vel[c] = 0.8 * p->vel[c] + 0.1 * a[c];
        n->pos[c] = p->pos[c] + 0.1 * n->vel[c];
    }
    return TP_CB_TRUE;
}
static int pt_goal(void *ctx, const void *x)
{
    (void)ctx;
    const Pt *p = x;
    return p->pos[0] > 4.9 && p->pos[1] > 4.9;
}

static tpTree *snapshot_run(bool index, int64_t iters, tpPlanner **out)
{
    tpProblem p;
    memset(&p, 0, sizeof p);
    p.state_bytes = sizeof(Pt);
    p.action_dim = 2;
    p.sample_dim = 2;
    p.key_dim = 2;
    p.key_is_euclidean = true;
    p.initial_state = pt_initial;
    p.sample = pt_sample;
    p.key = pt_key;
    p.control = pt_control;
    p.simulate = pt_simulate;
    p.goal = pt_goal;
    tpPlannerDef def = tpDefaultPlannerDef();
    def.kind = TP_PLANNER_RRT;
    def.max_iters = iters;
    def.seed = 11;
    def.nn_index = index;
    char err[256];
    tpPlanner *pl = tpCreatePlanner(&def, &p, err, sizeof err);
    assert_non_null(pl);
    tpPlanResult res;
    assert_int_not_equal(tpPlanner_Run(pl, &res), TP_PLAN_ERROR);
    assert_true(index ? tpPlanner_IndexBytes(pl) > 0 : tpPlanner_IndexBytes(pl) == 0);
    *out = pl;
    return (tpTree *)tpPlanner_Tree(pl);
}

static void test_planner_identical(void **state)
{
    (void)state;
    tpPlanner *pa, *pb;
    const tpTree *a = snapshot_run(true, 20000, &pa);
    const tpTree *b = snapshot_run(false, 20000, &pb);
    assert_int_equal(tpTree_Count(a), tpTree_Count(b));
    assert_true(tpTree_Count(a) > 5000);
    assert_int_equal(tpTree_MemoryBytes(a), tpTree_MemoryBytes(b));
    for (int32_t i = 0; i < tpTree_Count(a); ++i) {
        assert_int_equal(tpTree_Node(a, i)->parent, tpTree_Node(b, i)->parent);
        assert_memory_equal(tpTree_State(a, i), tpTree_State(b, i), sizeof(Pt));
    }
    tpDestroyPlanner(pa);
    tpDestroyPlanner(pb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_ties_and_duplicates),
        cmocka_unit_test(test_clustered_and_monotone),
        cmocka_unit_test(test_non_finite),
        cmocka_unit_test(test_check_detects),
        cmocka_unit_test(test_planner_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
