/* BK-RRT where the nearest-neighbour key does not see the progress: the pile's and the
 * tower's key body sleeps while the other bodies are thrown, so every decision node has the same
 * key, bit for bit. Two toy problems with no physics, whose key is a constant:
 *
 *  - a counter that must reach GOAL_N: with ties going to the earliest node the RRT expanded the
 *    root at every iteration (depth 1 forever); the newest node on ties grows the chain;
 *  - the same counter in busy chains of CHAIN steps, where a random half of the decision nodes
 *    are doomed: every chain from them fails on its last step, after a valid first step. BK-RRT
 *    must count the chain's failure against the node it selected and retire it after dead_end of
 *    them, or it chooses the doomed node forever.
 *
 * Both also check the nearest-neighbour index against the linear scan on ties and retirements. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nn_index.h"
#include "tp/planner.h"
#include "tree_internal.h"
#include "tree_testing.h"

#define GOAL_N 40 /* steps to the goal */
#define CHAIN 4   /* steps of a busy chain (the chain problem) */

typedef struct Counter {
    int32_t n;       /* steps from the root */
    int32_t doom;    /* the chain problem: this decision node is doomed (its chains fail) */
    int32_t failing; /* ... this step is in a chain from a doomed node */
} Counter;

typedef struct Ctx {
    bool chains; /* the chain problem */
} Ctx;

static void c_initial(void *ctx, void *x)
{
    (void)ctx;
    memset(x, 0, sizeof(Counter));
}

static void c_sample(void *ctx, tpRng *rng, double *y)
{
    (void)ctx;
    y[0] = tpRng_Uniform(rng, -1.0, 1.0);
    y[1] = tpRng_Uniform(rng, -1.0, 1.0);
}

static void c_key(void *ctx, const void *x, double *key)
{
    (void)ctx;
    (void)x;
    key[0] = 0.25; /* a body at rest: the same key at every node */
    key[1] = -0.5;
}

static int c_control(void *ctx, const void *x, const double *y, tpRng *rng, void *xnew, double *action)
{
    const Ctx *c = ctx;
    (void)y;
    (void)action;
    const Counter *s = x;
    Counter *o = xnew;
    o->n = s->n + 1;
    if (!c->chains) {
        return TP_CB_FALSE;
    }
    o->failing = s->n % CHAIN == 0 ? s->doom : s->failing;          /* a chain from a doomed node fails */
    o->doom = o->n % CHAIN == 0 ? (int32_t)tpRng_Below(rng, 2) : 0; /* a new decision node: doomed? */
    return o->n % CHAIN != 0 ? TP_CB_TRUE : TP_CB_FALSE;            /* busy until the chain's end */
}

static int c_simulate(void *ctx, const void *x, const double *action, void *xnew)
{
    (void)ctx;
    (void)x;
    (void)action;
    (void)xnew;
    return TP_CB_TRUE;
}

/* The chain problem: a chain from a doomed node fails on its last step (its first is valid). */
static int c_valid(void *ctx, const void *x)
{
    const Ctx *c = ctx;
    const Counter *s = x;
    return !(c->chains && s->failing && s->n % CHAIN == 0);
}

static int c_goal(void *ctx, const void *x)
{
    (void)ctx;
    return ((const Counter *)x)->n >= GOAL_N;
}

static tpProblem counter_problem(Ctx *c)
{
    tpProblem p;
    memset(&p, 0, sizeof p);
    p.ctx = c;
    p.state_bytes = sizeof(Counter);
    p.action_dim = 1;
    p.sample_dim = 2;
    p.key_dim = 2;
    p.key_is_euclidean = true;
    p.initial_state = c_initial;
    p.sample = c_sample;
    p.key = c_key;
    p.control = c_control;
    p.simulate = c_simulate;
    p.valid = c_valid;
    p.goal = c_goal;
    return p;
}

static int32_t max_depth(const tpTree *t)
{
    int32_t d = 0;
    for (int32_t i = 0; i < tpTree_Count(t); ++i) {
        d = tpTree_Node(t, i)->depth > d ? tpTree_Node(t, i)->depth : d;
    }
    return d;
}

/* The counter: solved in exactly GOAL_N iterations, one a step (the newest node each time), with
 * and without the index. Before the hard-problems audit the root won every tie: depth 1 after 500 iterations. */
static void test_ties_go_to_the_newest(void **state)
{
    (void)state;
    for (int index = 0; index < 2; ++index) {
        Ctx c = {false};
        tpProblem p = counter_problem(&c);
        tpPlannerDef def = tpDefaultPlannerDef();
        def.kind = TP_PLANNER_RRT;
        def.max_iters = 500;
        def.nn_index = index != 0;
        char err[256] = "";
        tpPlanner *pl = tpCreatePlanner(&def, &p, err, sizeof err);
        assert_non_null(pl);
        tpPlanResult r;
        tpPlanner_Run(pl, &r);
        const tpTree *t = tpPlanner_Tree(pl);
        fprintf(stderr, "counter (index %d): %s, %lld iterations, depth %d\n", index,
                r.status == TP_PLAN_SOLVED ? "solved" : "unsolved", (long long)r.stats.iterations, (int)max_depth(t));
        assert_int_equal(r.status, TP_PLAN_SOLVED);
        assert_int_equal(r.stats.iterations, GOAL_N);
        assert_int_equal(max_depth(t), GOAL_N);
        tpDestroyPlanner(pl);
    }
}

/* The chain problem: solved, with doomed nodes retired (each after dead_end failed chains), and
 * the same tree with and without the index; with dead_end 0 it is stuck on the first doomed node. */
static void test_rrt_retires_failing_chains(void **state)
{
    (void)state;
    int64_t nodes[2] = {0, 0}, dead[2] = {0, 0};
    for (int index = 0; index < 2; ++index) {
        Ctx c = {true};
        tpProblem p = counter_problem(&c);
        tpPlannerDef def = tpDefaultPlannerDef();
        def.kind = TP_PLANNER_RRT;
        def.max_iters = 5000;
        def.seed = 3;
        def.nn_index = index != 0;
        char err[256] = "";
        tpPlanner *pl = tpCreatePlanner(&def, &p, err, sizeof err);
        assert_non_null(pl);
        tpPlanResult r;
        tpPlanner_Run(pl, &r);
        fprintf(stderr, "chains (index %d): %s, %lld iterations, %lld dead ends, %lld rejected\n", index,
                r.status == TP_PLAN_SOLVED ? "solved" : "unsolved", (long long)r.stats.iterations,
                (long long)r.stats.dead_ends, (long long)r.stats.rejected);
        assert_int_equal(r.status, TP_PLAN_SOLVED);
        assert_true(r.stats.dead_ends > 0);
        /* a doomed node fails dead_end chains, then it is retired */
        assert_true(r.stats.rejected >= 8 * r.stats.dead_ends);
        const tpTree *t = tpPlanner_Tree(pl);
        char why[256] = "";
        if (!tpTree_Check(t, why, sizeof why)) {
            fail_msg("%s", why);
        }
        int64_t retired = 0;
        for (int32_t i = 0; i < tpTree_Count(t); ++i) {
            const tpNode *n = tpTree_Node(t, i);
            retired += n->slot < 0 && !(n->flags & (TP_NODE_BUSY | TP_NODE_GOAL));
        }
        assert_int_equal(retired, r.stats.dead_ends);
        nodes[index] = r.stats.nodes;
        dead[index] = r.stats.dead_ends;
        tpDestroyPlanner(pl);
    }
    assert_int_equal(nodes[0], nodes[1]);
    assert_int_equal(dead[0], dead[1]);

    Ctx c = {true};
    tpProblem p = counter_problem(&c);
    tpPlannerDef def = tpDefaultPlannerDef();
    def.kind = TP_PLANNER_RRT;
    def.max_iters = 2000;
    def.seed = 3;
    def.dead_end = 0;
    char err[256] = "";
    tpPlanner *pl = tpCreatePlanner(&def, &p, err, sizeof err);
    assert_non_null(pl);
    tpPlanResult r;
    tpPlanner_Run(pl, &r);
    assert_int_equal(r.status, TP_PLAN_APPROXIMATE);
    assert_true(max_depth(tpPlanner_Tree(pl)) < GOAL_N);
    tpDestroyPlanner(pl);
}

/* The index against the scan when most keys are equal and some nodes are retired: at the least
 * distance a live node before a retired one, the newest first, every query. */
static void test_index_ties_and_retired(void **state)
{
    (void)state;
    tpRng rng;
    tpRng_Seed(&rng, 11);
    tpTree *tree = tpCreateTree(8, 1, 2, TP_SEL_RRT);
    tpNnIndex *nn = tpCreateNnIndex(2);
    assert_non_null(tree);
    assert_non_null(nn);
    for (int32_t i = 0; i < 3000; ++i) {
        assert_true(tpTree_Prepare(tree) == i);
        double *k = tpTree_NextKey(tree);
        k[0] = (double)tpRng_Below(&rng, 3); /* three distinct keys */
        k[1] = 0.0;
        tpTree_Commit(tree, i == 0 ? -1 : (int32_t)tpRng_Below(&rng, (uint32_t)i), 0u);
        if (i > 0 && tpRng_Below(&rng, 4) == 0) {
            tpTree_Retire(tree, (int32_t)tpRng_Below(&rng, (uint32_t)i + 1));
        }
        double y[2] = {tpRng_Uniform(&rng, -1.0, 3.0), tpRng_Uniform(&rng, -1.0, 1.0)};
        const int32_t a = tpTree_SelectNearest(tree, nn, y, NULL, NULL);
        const int32_t b = tpTree_SelectNearestLinear(tree, y, NULL, NULL);
        assert_int_equal(a, b);
        /* the brute force: the least distance, then a live node before a retired one, then the
           newest */
        int32_t want = -1;
        double wd = 0.0;
        bool wlive = false;
        for (int32_t j = 0; j <= i; ++j) {
            const bool live = tpTree_Node(tree, j)->slot >= 0;
            const double *kj = tree->key_chunks[j >> TP_KEY_CHUNK_SHIFT] + (size_t)(j & (TP_KEY_CHUNK - 1)) * 2;
            const double d0 = kj[0] - y[0], d1 = kj[1] - y[1], d = d0 * d0 + d1 * d1;
            if (want < 0 || d < wd || (d == wd && live >= wlive)) {
                want = j;
                wd = d;
                wlive = live;
            }
        }
        assert_int_equal(a, want);
    }
    char why[256] = "";
    if (!tpTree_Check(tree, why, sizeof why) || !tpNnIndex_Check(nn, tree, why, sizeof why)) {
        fail_msg("%s", why);
    }
    tpDestroyNnIndex(nn);
    tpDestroyTree(tree);
}

/* An anytime search of the chain problem split into budgets of 1, 37 and the rest builds the tree
 * of one run (retirements and all); a re-root on a node of it keeps the subtree's retired nodes
 * retired and its bookkeeping whole, and the search goes on to the goal. */
static void test_anytime_and_reroot_keep_retirements(void **state)
{
    (void)state;
    Ctx c = {true};
    tpProblem p = counter_problem(&c);
    tpPlannerDef def = tpDefaultPlannerDef();
    def.kind = TP_PLANNER_RRT;
    def.max_iters = 5000;
    def.seed = 3;
    char err[256] = "";
    tpPlanner *run = tpCreatePlanner(&def, &p, err, sizeof err);
    tpPlanner *any = tpCreatePlanner(&def, &p, err, sizeof err);
    assert_non_null(run);
    assert_non_null(any);
    tpPlanResult r;
    tpPlanner_Run(run, &r);
    bool done = false;
    tpPlanner_Search(any, 1, INFINITY, &done);
    tpPlanner_Search(any, 37, INFINITY, &done);
    assert_int_equal(tpPlanner_Search(any, 5000, INFINITY, &done), TP_PLAN_SOLVED);
    const tpTree *a = tpPlanner_Tree(run), *b = tpPlanner_Tree(any);
    assert_int_equal(tpTree_Count(a), tpTree_Count(b));
    for (int32_t i = 0; i < tpTree_Count(a); ++i) {
        assert_int_equal(tpTree_Node(a, i)->parent, tpTree_Node(b, i)->parent);
        assert_int_equal(tpTree_Node(a, i)->slot, tpTree_Node(b, i)->slot);
    }
    /* re-root on the first retired node's parent decision node: its subtree keeps the retirement */
    int32_t retired = -1;
    for (int32_t i = 1; i < tpTree_Count(b) && retired < 0; ++i) {
        const tpNode *n = tpTree_Node(b, i);
        if (n->slot < 0 && !(n->flags & (TP_NODE_BUSY | TP_NODE_GOAL))) {
            retired = i;
        }
    }
    assert_true(retired > 0);
    int32_t keep = tpTree_Node(b, retired)->parent;
    while (keep > 0 && (tpTree_Node(b, keep)->flags & TP_NODE_BUSY)) {
        keep = tpTree_Node(b, keep)->parent;
    }
    assert_true(tpPlanner_Reroot(any, keep));
    b = tpPlanner_Tree(any);
    char why[256] = "";
    if (!tpTree_Check(b, why, sizeof why)) {
        fail_msg("%s", why);
    }
    int64_t kept_retired = 0;
    for (int32_t i = 1; i < tpTree_Count(b); ++i) {
        const tpNode *n = tpTree_Node(b, i);
        kept_retired += n->slot < 0 && !(n->flags & (TP_NODE_BUSY | TP_NODE_GOAL));
    }
    assert_true(kept_retired >= 1);
    assert_true(tpPlanner_Search(any, 5000, INFINITY, &done) != TP_PLAN_ERROR);
    if (!tpTree_Check(tpPlanner_Tree(any), why, sizeof why)) {
        fail_msg("%s", why);
    }
    tpDestroyPlanner(run);
    tpDestroyPlanner(any);
}

static int g_key_samples; /* calls of c_sample_key */

static void c_sample_key(void *ctx, tpRng *rng, double *y)
{
    (void)ctx;
    (void)rng;
    (void)y;
    g_key_samples++;
}

/* tpProblem.sample_key is BK-RRT's alone: called after every sample of an RRT run, never in BK-BGT,
 * whose random stream therefore does not depend on the key (the tower's key over five blocks). */
static void test_sample_key_is_rrt_only(void **state)
{
    (void)state;
    for (int rrt = 0; rrt < 2; ++rrt) {
        Ctx c = {false};
        tpProblem p = counter_problem(&c);
        p.sample_key = c_sample_key;
        tpPlannerDef def = tpDefaultPlannerDef();
        def.kind = rrt ? TP_PLANNER_RRT : TP_PLANNER_BGT;
        def.max_iters = 30;
        char err[256] = "";
        tpPlanner *pl = tpCreatePlanner(&def, &p, err, sizeof err);
        assert_non_null(pl);
        g_key_samples = 0;
        tpPlanResult r;
        tpPlanner_Run(pl, &r);
        assert_int_equal(g_key_samples, rrt ? (int)r.stats.iterations : 0);
        tpDestroyPlanner(pl);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ties_go_to_the_newest),  cmocka_unit_test(test_rrt_retires_failing_chains),
        cmocka_unit_test(test_index_ties_and_retired), cmocka_unit_test(test_anytime_and_reroot_keep_retirements),
        cmocka_unit_test(test_sample_key_is_rrt_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
