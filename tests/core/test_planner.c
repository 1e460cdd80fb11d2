/* BK-RRT / BK-BGT on a toy problem with no physics engine: a damped 2D point mass whose
 * "tactic" picks a force and a busy duration, and stays busy (b_and) while a counter runs.
 * Besides solving, the tests check the structure Algorithm 2 must produce (busy chains,
 * closed goal nodes), Algorithm 3's leaf/non-leaf choice against a brute-force recount of
 * the tree, the RRT nearest neighbour against a brute-force scan, many-worlds selection,
 * determinism, and error handling. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/planner.h"

#include "planner_testing.h"
#include "tree_testing.h"

/* ------------------------------------------------------------------------------------------ */
/* Toy problem                                                                                 */

typedef struct Toy {
    double pos[2];   /* m */
    double vel[2];   /* m/s */
    double force[2]; /* N, force of the active skill (tactic state) */
    double t;        /* s */
    int32_t counter; /* remaining busy steps of the active skill */
    int32_t pad;
} Toy;

#define TOY_DT 0.1      /* s */
#define TOY_DAMPING 0.9 /* velocity kept per step */

typedef struct ToyCtx {
    double goal[2];   /* m */
    double goal_r;    /* m */
    double bound;     /* valid region |pos_i| <= bound (0: no valid callback check) */
    int max_busy;     /* busy counter drawn in [0, max_busy) */
    double fmax;      /* N */
    int use_y;        /* steer toward the sample y (RRT-style extend) */
    double goal_bias; /* probability that the tactic picks its "toward the goal" skill */
    double goal_time; /* > 0: the goal is "t >= goal_time" instead of the region (s) */

    /* error injection: fail on the n-th call (0 = never) */
    long fail_control_at, fail_sim_at, fail_goal_at, fail_valid_at;
    long control_calls, sim_calls, goal_calls, valid_calls;
    int cost_nan;

    double search_s; /* s: what search_seconds reports (control adds 0.25 per call) */

    /* rejection reasons: simulate refuses a speed component above vmax (0: never) */
    double vmax;                                          /* m/s */
    int reject_kind_sim, reject_kind_val;                 /* what toy_reject answers for each refusal */
    long rejects[TP_REJECT_KINDS];                        /* toy_reject calls per kind it answered */
    long first_iter[TP_REJECT_KINDS];                     /* control calls (= 1-based iteration) at the first */
    char first_text[TP_REJECT_KINDS][TP_REJECT_TEXT_MAX]; /* what it would say of the first */
    long text_calls[TP_REJECT_KINDS];                     /* calls that asked for the words */

    /* in-run checks */
    const tpPlanner *planner; /* set to check selections from inside control() */
    int check_rrt, check_bgt;
    double mu;
    long selection_checks, selection_errors;
    long sample_calls;
    double last_y[2];
    long y_errors;
} ToyCtx;

static void toy_initial(void *vctx, void *x)
{
    (void)vctx;
    Toy *s = x;
    memset(s, 0, sizeof *s);
}

static void toy_sample(void *vctx, tpRng *rng, double *y)
{
    ToyCtx *c = vctx;
    y[0] = tpRng_Uniform(rng, -10.0, 10.0);
    y[1] = tpRng_Uniform(rng, -10.0, 10.0);
    c->last_y[0] = y[0];
    c->last_y[1] = y[1];
    c->sample_calls++;
}

static void toy_key(void *vctx, const void *x, double *key)
{
    (void)vctx;
    const Toy *s = x;
    key[0] = s->pos[0];
    key[1] = s->pos[1];
}

static double dist2(const Toy *s, const double *y)
{
    double dx = s->pos[0] - y[0], dy = s->pos[1] - y[1];
    return dx * dx + dy * dy;
}

/* Brute-force: is x the node Algorithm 2/3 may select now? */
static void check_selection(ToyCtx *c, const void *x, const double *y)
{
    const tpTree *tree = tpPlanner_Tree(c->planner);
    int32_t n = tpTree_Count(tree);
    int32_t xi = -1;
    for (int32_t i = 0; i < n; ++i) {
        if (tpTree_State(tree, i) == x) {
            xi = i;
        }
    }
    c->selection_checks++;
    if (xi < 0) {
        c->selection_errors++;
        return;
    }
    const tpNode *xn = tpTree_Node(tree, xi);
    if (xn->flags & (TP_NODE_BUSY | TP_NODE_GOAL)) {
        c->selection_errors++;
        return;
    }
    if (c->check_rrt) {
        int32_t best = -1;
        double bd = 0.0;
        bool blive = false;
        for (int32_t i = 0; i < n; ++i) {
            if (tpTree_Node(tree, i)->flags & (TP_NODE_BUSY | TP_NODE_GOAL)) {
                continue;
            }
            /* on ties a live node before a retired one (slot -1), then the newest */
            const bool live = tpTree_Node(tree, i)->slot >= 0;
            double d = dist2(tpTree_State(tree, i), y);
            if (best < 0 || d < bd || (d == bd && live >= blive)) {
                best = i;
                bd = d;
                blive = live;
            }
        }
        if (best != xi) {
            c->selection_errors++;
        }
    }
    if (c->check_bgt) {
        double sum_depth = 0.0, leaves = 0.0, nonleaves = 0.0, edges = 0.0;
        int sel_leaves = 0, sel_nonleaves = 0;
        for (int32_t i = 0; i < n; ++i) {
            const tpNode *nd = tpTree_Node(tree, i);
            int selectable = !(nd->flags & (TP_NODE_BUSY | TP_NODE_GOAL));
            if (nd->nchildren == 0) {
                leaves += 1.0;
                sum_depth += nd->depth;
                sel_leaves += selectable;
            } else {
                nonleaves += 1.0;
                edges += nd->nchildren;
                sel_nonleaves += selectable;
            }
        }
        double abf = nonleaves > 0 ? edges / nonleaves : 1.0;
        int want_nonleaf = tpBgt_ChooseNonLeaf(sum_depth / leaves, abf, c->mu);
        if (want_nonleaf && sel_nonleaves == 0) {
            want_nonleaf = 0;
        } else if (!want_nonleaf && sel_leaves == 0) {
            want_nonleaf = 1;
        }
        if (want_nonleaf != (xn->nchildren > 0)) {
            c->selection_errors++;
        }
    }
}

static double toy_search_seconds(void *vctx)
{
    return ((const ToyCtx *)vctx)->search_s;
}

static int toy_control(void *vctx, const void *x, const double *y, tpRng *rng, void *xnew, double *action)
{
    ToyCtx *c = vctx;
    const Toy *s = x;
    Toy *n = xnew;
    c->control_calls++;
    c->search_s += 0.25; /* a stand-in for a skill's own search, reported by toy_search_seconds */
    if (c->fail_control_at && c->control_calls >= c->fail_control_at) {
        return TP_CB_ERROR;
    }
    if (c->sample_calls > 0 && (y[0] != c->last_y[0] || y[1] != c->last_y[1])) {
        c->y_errors++;
    }
    if (action[0] != 0.0 || action[1] != 0.0) {
        c->y_errors++; /* the planner must zero the action */
    }
    if (s->counter > 0) {
        /* busy skill: deterministic continuation, no branching */
        n->counter = s->counter - 1;
    } else {
        if (c->planner && (c->check_rrt || c->check_bgt)) {
            check_selection(c, x, y);
        }
        double ang;
        if (c->goal_bias > 0.0 && tpRng_Res53(rng) < c->goal_bias) {
            ang = atan2(c->goal[1] - s->pos[1], c->goal[0] - s->pos[0]) + tpRng_Normal(rng, 0.0, 0.5);
        } else if (c->use_y) {
            ang = atan2(y[1] - s->pos[1], y[0] - s->pos[0]) + tpRng_Normal(rng, 0.0, 0.3);
        } else {
            ang = tpRng_Uniform(rng, 0.0, 2.0 * 3.14159265358979323846);
        }
        n->force[0] = c->fmax * cos(ang);
        n->force[1] = c->fmax * sin(ang);
        n->counter = (int32_t)tpRng_Below(rng, (uint32_t)c->max_busy);
    }
    action[0] = n->force[0];
    action[1] = n->force[1];
    return n->counter > 0 ? TP_CB_TRUE : TP_CB_FALSE;
}

static int toy_simulate(void *vctx, const void *x, const double *action, void *xnew)
{
    ToyCtx *c = vctx;
    c->sim_calls++;
    if (c->fail_sim_at && c->sim_calls >= c->fail_sim_at) {
        return TP_CB_ERROR;
    }
    const Toy *s = x;
    Toy *n = xnew;
    for (int k = 0; k < 2; ++k) {
        n->vel[k] = s->vel[k] * TOY_DAMPING + action[k] * TOY_DT;
        n->pos[k] = s->pos[k] + n->vel[k] * TOY_DT;
    }
    n->t = s->t + TOY_DT;
    if (c->vmax > 0.0 && (fabs(n->vel[0]) > c->vmax || fabs(n->vel[1]) > c->vmax)) {
        return TP_CB_FALSE;
    }
    return TP_CB_TRUE;
}

/* tpProblem.reject of the toy: the kinds it was told to answer, words naming the value. */
static int toy_reject(void *vctx, int by, const void *xnew, char *text, size_t textlen)
{
    ToyCtx *c = vctx;
    const Toy *s = xnew;
    int kind = by == TP_REFUSED_BY_SIMULATE ? c->reject_kind_sim : c->reject_kind_val;
    int k = kind >= 0 && kind < TP_REJECT_KINDS ? kind : TP_REJECT_UNSPECIFIED;
    char words[TP_REJECT_TEXT_MAX];
    if (by == TP_REFUSED_BY_SIMULATE) {
        snprintf(words, sizeof words, "speed (%.17g, %.17g) beyond %g at t = %.17g", s->vel[0], s->vel[1], c->vmax,
                 s->t);
    } else {
        snprintf(words, sizeof words, "position (%.17g, %.17g) outside +-%g", s->pos[0], s->pos[1], c->bound);
    }
    /* every rejection is asked about once without text; the first of a kind once more with */
    if (!text && c->rejects[k]++ == 0) {
        c->first_iter[k] = c->control_calls;
        memcpy(c->first_text[k], words, sizeof words);
    }
    if (text) {
        c->text_calls[k]++;
        snprintf(text, textlen, "%s", words);
    }
    return kind;
}

static int toy_valid(void *vctx, const void *x)
{
    ToyCtx *c = vctx;
    c->valid_calls++;
    if (c->fail_valid_at && c->valid_calls >= c->fail_valid_at) {
        return TP_CB_ERROR;
    }
    const Toy *s = x;
    return fabs(s->pos[0]) <= c->bound && fabs(s->pos[1]) <= c->bound;
}

static int toy_is_goal(const ToyCtx *c, const Toy *s)
{
    if (c->goal_time > 0.0) {
        return s->t >= c->goal_time - 1e-9;
    }
    return dist2(s, c->goal) <= c->goal_r * c->goal_r;
}

static int toy_goal(void *vctx, const void *x)
{
    ToyCtx *c = vctx;
    c->goal_calls++;
    if (c->fail_goal_at && c->goal_calls >= c->fail_goal_at) {
        return TP_CB_ERROR;
    }
    return toy_is_goal(c, x);
}

static double toy_quality(void *vctx, const void *x)
{
    ToyCtx *c = vctx;
    return sqrt(dist2(x, c->goal));
}

/* Cost = total |force| impulse along the path (differs from the step count). */
static double toy_cost(void *vctx, const tpTree *tree, const int32_t *path, int len)
{
    ToyCtx *c = vctx;
    if (c->cost_nan) {
        return NAN;
    }
    double cost = 0.0;
    for (int k = 1; k < len; ++k) {
        const double *a = tpTree_Action(tree, path[k]);
        cost += hypot(a[0], a[1]) * TOY_DT;
        if (tpTree_Node(tree, path[k])->parent != path[k - 1]) {
            return NAN;
        }
    }
    return cost;
}

static double toy_const_cost(void *vctx, const tpTree *tree, const int32_t *path, int len)
{
    (void)vctx;
    (void)tree;
    (void)path;
    (void)len;
    return 2.5;
}

static double toy_const_quality(void *vctx, const void *x)
{
    (void)vctx;
    (void)x;
    return 1.0;
}

static ToyCtx toy_ctx(void)
{
    ToyCtx c;
    memset(&c, 0, sizeof c);
    c.goal[0] = 5.0;
    c.goal[1] = 5.0;
    c.goal_r = 0.75;
    c.bound = 10.0;
    c.max_busy = 8;
    c.fmax = 2.0;
    return c;
}

static tpProblem toy_problem(ToyCtx *c)
{
    tpProblem p;
    memset(&p, 0, sizeof p);
    p.ctx = c;
    p.state_bytes = sizeof(Toy);
    p.action_dim = 2;
    p.sample_dim = 2;
    p.key_dim = 2;
    p.key_is_euclidean = true;
    p.initial_state = toy_initial;
    p.sample = toy_sample;
    p.key = toy_key;
    p.control = toy_control;
    p.simulate = toy_simulate;
    p.valid = toy_valid;
    p.goal = toy_goal;
    p.quality = toy_quality;
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* Tree checks                                                                                 */

/* Structure Algorithm 2 must produce, and that every state equals Sim(parent, action). */
static void check_tree(const tpTree *tree, ToyCtx *c)
{
    int32_t n = tpTree_Count(tree);
    assert_true(n >= 1);
    const tpNode *root = tpTree_Node(tree, 0);
    assert_int_equal(root->parent, -1);
    assert_int_equal(root->depth, 0);
    assert_int_equal(root->flags, 0);
    const double *a0 = tpTree_Action(tree, 0);
    assert_true(a0[0] == 0.0 && a0[1] == 0.0);
    int32_t *kids = calloc((size_t)n, sizeof *kids);
    assert_non_null(kids);
    long saved_sim = c->sim_calls, saved_fail = c->fail_sim_at;
    c->fail_sim_at = 0;
    for (int32_t i = 1; i < n; ++i) {
        const tpNode *nd = tpTree_Node(tree, i);
        assert_true(nd->parent >= 0 && nd->parent < i);
        const tpNode *p = tpTree_Node(tree, nd->parent);
        assert_int_equal(nd->depth, p->depth + 1);
        /* goal nodes are closed */
        assert_false(p->flags & TP_NODE_GOAL);
        /* a busy node's only child is the very next node (greedy single-branch continuation) */
        if (p->flags & TP_NODE_BUSY) {
            assert_int_equal(p->nchildren, 1);
            assert_int_equal(nd->parent, i - 1);
        }
        kids[nd->parent]++;
        /* replay the physics half: the stored state is exactly Sim(parent, action) */
        Toy re = *(const Toy *)tpTree_State(tree, nd->parent);
        toy_simulate(c, tpTree_State(tree, nd->parent), tpTree_Action(tree, i), &re);
        const Toy *s = tpTree_State(tree, i);
        assert_memory_equal(re.pos, s->pos, sizeof re.pos);
        assert_memory_equal(re.vel, s->vel, sizeof re.vel);
        /* flags agree with the state */
        assert_int_equal(!!(nd->flags & TP_NODE_BUSY), s->counter > 0);
        assert_int_equal(!!(nd->flags & TP_NODE_GOAL), toy_is_goal(c, s));
    }
    for (int32_t i = 0; i < n; ++i) {
        const tpNode *nd = tpTree_Node(tree, i);
        assert_int_equal(kids[i], nd->nchildren);
        if (nd->flags & TP_NODE_BUSY) {
            assert_true(nd->nchildren <= 1);
        }
    }
    c->sim_calls = saved_sim;
    c->fail_sim_at = saved_fail;
    free(kids);
}

static void check_solution_path(const tpTree *tree, int32_t leaf)
{
    int len = tpTree_Path(tree, leaf, NULL, 0);
    assert_int_equal(len, tpTree_Node(tree, leaf)->depth + 1);
    int32_t *path = malloc((size_t)len * sizeof *path);
    assert_non_null(path);
    /* too small a buffer: nothing written, needed length returned */
    if (len > 1) {
        path[0] = -7;
        assert_int_equal(tpTree_Path(tree, leaf, path, len - 1), len);
        assert_int_equal(path[0], -7);
    }
    assert_int_equal(tpTree_Path(tree, leaf, path, len), len);
    assert_int_equal(path[0], 0);
    assert_int_equal(path[len - 1], leaf);
    for (int k = 1; k < len; ++k) {
        assert_int_equal(tpTree_Node(tree, path[k])->parent, path[k - 1]);
    }
    free(path);
}

static tpPlanner *make(const tpPlannerDef *def, const tpProblem *p)
{
    char err[256] = "";
    tpPlanner *pl = tpCreatePlanner(def, p, err, sizeof err);
    if (!pl) {
        fprintf(stderr, "create failed: %s\n", err);
    }
    assert_non_null(pl);
    return pl;
}

/* ------------------------------------------------------------------------------------------ */
/* Tests                                                                                       */

static void solve_with(tpPlannerKind kind, double mu, int use_y, double goal_bias, uint32_t seed)
{
    ToyCtx c = toy_ctx();
    c.use_y = use_y;
    c.goal_bias = goal_bias;
    c.search_s = 7.0;
    tpProblem p = toy_problem(&c);
    p.search_seconds = toy_search_seconds;
    tpPlannerDef def = tpDefaultPlannerDef();
    def.kind = kind;
    def.mu = mu;
    def.seed = seed;
    def.max_iters = 40000;
    tpPlanner *pl = make(&def, &p);
    c.planner = pl;
    c.mu = mu;
    c.check_rrt = kind == TP_PLANNER_RRT;
    c.check_bgt = kind == TP_PLANNER_BGT;
    tpPlanResult r;
    assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_SOLVED);
    assert_int_equal(r.status, TP_PLAN_SOLVED);
    const tpTree *tree = tpPlanner_Tree(pl);
    assert_int_equal(r.nsolutions, 1);
    assert_int_equal(r.best_solution, 0);
    assert_int_equal(r.best, r.solutions[0]);
    assert_true(tpTree_Node(tree, r.best)->flags & TP_NODE_GOAL);
    assert_true(toy_goal(&c, tpTree_State(tree, r.best)));
    assert_true(r.costs[0] == (double)tpTree_Node(tree, r.best)->depth);
    /* the goal was found on the last iteration */
    assert_int_equal(r.best, tpTree_Count(tree) - 1);
    assert_int_equal(r.stats.nodes, tpTree_Count(tree));
    assert_int_equal(r.stats.nodes, 1 + r.stats.iterations - r.stats.rejected);
    assert_int_equal(r.stats.solutions, 1);
    assert_true(r.stats.iterations < def.max_iters);
    /* t_search is what the problem's search_seconds grew by during the run: 0.25 per control call
       (the toy starts at 7, so a planner that reported the running total would fail) */
    assert_true(r.stats.t_search == 0.25 * (double)r.stats.iterations);
    assert_true(tpTree_MemoryBytes(tree) >= (size_t)tpTree_Count(tree) * (sizeof(Toy) + sizeof(tpNode)));
    check_tree(tree, &c);
    check_solution_path(tree, r.best);
    assert_true(c.selection_checks > 0);
    assert_int_equal(c.selection_errors, 0);
    assert_int_equal(c.y_errors, 0);
    tpDestroyPlanner(pl);
}

static void test_rrt_solves(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 5; ++seed) {
        solve_with(TP_PLANNER_RRT, 1000.0, 1, 0.0, seed);
    }
}

static void test_bgt_solves(void **state)
{
    (void)state;
    /* BGT keeps the average leaf depth near mu * AvgBranchingFactor, so mu must allow the
     * ~35 steps the goal needs; the tactic's "toward the goal" skill does the rest. */
    for (uint32_t seed = 1; seed <= 5; ++seed) {
        solve_with(TP_PLANNER_BGT, 1000.0, 0, 0.25, seed);
        solve_with(TP_PLANNER_BGT, 50.0, 0, 0.5, seed);
    }
}

static void test_bgt_choose_nonleaf(void **state)
{
    (void)state;
    assert_true(tpBgt_ChooseNonLeaf(10.0, 2.0, 4.0)); /* 5 > 4 */
    assert_false(tpBgt_ChooseNonLeaf(8.0, 2.0, 4.0)); /* 4 is not > 4 */
    assert_false(tpBgt_ChooseNonLeaf(3.0, 1.0, 4.0));
    assert_true(tpBgt_ChooseNonLeaf(3.0, 1.0, 2.9));
    assert_false(tpBgt_ChooseNonLeaf(0.0, 1.0, 1e-9)); /* a lone root: always a leaf */
    assert_true(tpBgt_ChooseNonLeaf(1.0, 0.0, 0.5));   /* no branching yet counts as 1 */
    assert_false(tpBgt_ChooseNonLeaf(100.0, 3.0, 1000.0));
    assert_true(tpBgt_ChooseNonLeaf(100.0, 3.0, 33.0));
}

typedef struct Shape {
    double avg_branching; /* edges / non-leaves */
    int32_t max_depth;
    int32_t nodes;
} Shape;

static Shape bgt_shape(double mu, uint32_t seed)
{
    ToyCtx c = toy_ctx();
    c.goal[0] = 100.0; /* unreachable */
    c.bound = 1e9;
    tpProblem p = toy_problem(&c);
    tpPlannerDef def = tpDefaultPlannerDef();
    def.mu = mu;
    def.seed = seed;
    def.max_iters = 3000;
    tpPlanner *pl = make(&def, &p);
    c.planner = pl;
    c.check_bgt = 1;
    c.mu = mu;
    tpPlanResult r;
    assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_APPROXIMATE);
    const tpTree *tree = tpPlanner_Tree(pl);
    Shape sh = {0.0, 0, tpTree_Count(tree)};
    double edges = 0.0, nonleaves = 0.0;
    for (int32_t i = 0; i < sh.nodes; ++i) {
        const tpNode *nd = tpTree_Node(tree, i);
        if (nd->nchildren) {
            edges += nd->nchildren;
            nonleaves += 1.0;
        }
        sh.max_depth = nd->depth > sh.max_depth ? nd->depth : sh.max_depth;
    }
    sh.avg_branching = edges / nonleaves;
    assert_int_equal(c.selection_errors, 0);
    assert_true(c.selection_checks > 0);
    check_tree(tree, &c);
    tpDestroyPlanner(pl);
    return sh;
}

static void test_bgt_responds_to_mu(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        Shape bushy = bgt_shape(0.01, seed);
        Shape mid = bgt_shape(5.0, seed);
        Shape thin = bgt_shape(1e9, seed);
        assert_int_equal(bushy.nodes, 3001);
        assert_int_equal(thin.nodes, 3001);
        assert_true(bushy.avg_branching > mid.avg_branching);
        assert_true(mid.avg_branching > thin.avg_branching);
        assert_true(bushy.max_depth < mid.max_depth);
        assert_true(mid.max_depth < thin.max_depth);
        /* huge mu only ever extends leaves: a single chain */
        assert_true(thin.avg_branching == 1.0);
        assert_int_equal(thin.max_depth, 3000);
    }
}

static void test_many_worlds(void **state)
{
    (void)state;
    for (int use_cost = 0; use_cost <= 1; ++use_cost) {
        ToyCtx c = toy_ctx();
        c.use_y = 1;
        c.goal_r = 1.5;
        tpProblem p = toy_problem(&c);
        if (use_cost) {
            p.solution_cost = toy_cost;
        }
        tpPlannerDef def = tpDefaultPlannerDef();
        def.kind = TP_PLANNER_RRT;
        def.solutions = 5;
        def.seed = 11;
        tpPlanner *pl = make(&def, &p);
        tpPlanResult r;
        assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_SOLVED);
        const tpTree *tree = tpPlanner_Tree(pl);
        assert_int_equal(r.nsolutions, 5);
        assert_int_equal(r.stats.solutions, 5);
        assert_true(r.best_solution >= 0 && r.best_solution < 5);
        assert_int_equal(r.best, r.solutions[r.best_solution]);
        int distinct_costs = 0;
        for (int s = 0; s < 5; ++s) {
            int32_t leaf = r.solutions[s];
            assert_true(tpTree_Node(tree, leaf)->flags & TP_NODE_GOAL);
            if (s > 0) {
                assert_true(leaf > r.solutions[s - 1]); /* in the order found */
            }
            int len = tpTree_Path(tree, leaf, NULL, 0);
            int32_t path[4096];
            assert_true(len <= 4096);
            tpTree_Path(tree, leaf, path, len);
            double want = use_cost ? toy_cost(&c, tree, path, len) : (double)(len - 1);
            assert_true(r.costs[s] == want);
            /* the chosen one is minimal, and the first of equals */
            assert_true(r.costs[r.best_solution] <= r.costs[s]);
            if (s < r.best_solution) {
                assert_true(r.costs[s] > r.costs[r.best_solution]);
            }
            distinct_costs += s > 0 && r.costs[s] != r.costs[0];
        }
        /* otherwise the test could not tell the minimum from the first */
        assert_true(distinct_costs > 0);
        check_tree(tree, &c);
        tpDestroyPlanner(pl);
    }
}

static void test_goal_nodes_closed(void **state)
{
    (void)state;
    /* The goal is "3 steps into the future": every depth-3 node is a goal, so goal leaves
     * pile up and would be picked often if they were selectable. */
    for (int kind = 0; kind <= 1; ++kind) {
        const double mus[3] = {0.5, 2.0, 1000.0};
        for (int m = 0; m < (kind == TP_PLANNER_BGT ? 3 : 1); ++m) {
            ToyCtx c = toy_ctx();
            c.goal_time = 3 * TOY_DT;
            c.use_y = 1;
            tpProblem p = toy_problem(&c);
            tpPlannerDef def = tpDefaultPlannerDef();
            def.kind = (tpPlannerKind)kind;
            def.mu = mus[m];
            def.solutions = 300;
            def.max_iters = 20000;
            tpPlanner *pl = make(&def, &p);
            c.planner = pl;
            c.check_bgt = kind == TP_PLANNER_BGT;
            c.check_rrt = kind == TP_PLANNER_RRT;
            c.mu = def.mu;
            tpPlanResult r;
            assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_SOLVED);
            assert_int_equal(r.nsolutions, 300);
            const tpTree *tree = tpPlanner_Tree(pl);
            check_tree(tree, &c);
            for (int32_t i = 0; i < tpTree_Count(tree); ++i) {
                assert_true(tpTree_Node(tree, i)->depth <= 3);
            }
            assert_int_equal(c.selection_errors, 0);
            tpDestroyPlanner(pl);
        }
    }
}

static void test_ties_pick_first(void **state)
{
    (void)state;
    /* Equal costs: the earliest solution wins. Equal qualities: a node at a decision point (not
     * busy), then the deepest, then the lowest index; never the root (the 0-step plan it was). */
    ToyCtx c = toy_ctx();
    c.goal_time = 4 * TOY_DT;
    tpProblem p = toy_problem(&c);
    p.solution_cost = toy_const_cost;
    tpPlannerDef def = tpDefaultPlannerDef();
    def.mu = 2.0;
    def.solutions = 6;
    tpPlanner *pl = make(&def, &p);
    tpPlanResult r;
    assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_SOLVED);
    assert_int_equal(r.best_solution, 0);
    assert_int_equal(r.best, r.solutions[0]);
    tpDestroyPlanner(pl);

    c = toy_ctx();
    c.goal[0] = 100.0;
    p = toy_problem(&c);
    p.quality = toy_const_quality;
    def.solutions = 1;
    def.max_iters = 200;
    pl = make(&def, &p);
    assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_APPROXIMATE);
    const tpTree *tree = tpPlanner_Tree(pl);
    int32_t want = 1;
    for (int32_t i = 2; i < tpTree_Count(tree); ++i) {
        const tpNode *ni = tpTree_Node(tree, i), *nw = tpTree_Node(tree, want);
        const bool bi = (ni->flags & TP_NODE_BUSY) != 0, bw = (nw->flags & TP_NODE_BUSY) != 0;
        if (bi != bw ? !bi : ni->depth > nw->depth) {
            want = i;
        }
    }
    assert_true(want > 0);
    assert_int_equal(r.best, want);
    tpDestroyPlanner(pl);
}

static void test_approximate(void **state)
{
    (void)state;
    for (int kind = 0; kind <= 1; ++kind) {
        for (int with_quality = 0; with_quality <= 1; ++with_quality) {
            ToyCtx c = toy_ctx();
            c.goal[0] = 30.0; /* outside the valid region */
            c.bound = 2.0;
            c.goal_bias = 0.5; /* pushes into the bound, so states get rejected */
            c.use_y = kind == TP_PLANNER_RRT;
            tpProblem p = toy_problem(&c);
            if (!with_quality) {
                p.quality = NULL;
            }
            tpPlannerDef def = tpDefaultPlannerDef();
            def.kind = (tpPlannerKind)kind;
            def.mu = 1000.0;
            def.max_iters = 2500;
            tpPlanner *pl = make(&def, &p);
            tpPlanResult r;
            assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_APPROXIMATE);
            assert_int_equal(r.status, TP_PLAN_APPROXIMATE);
            assert_int_equal(r.nsolutions, 0);
            assert_int_equal(r.best_solution, -1);
            assert_int_equal(r.stats.iterations, 2500);
            assert_true(r.stats.rejected > 0); /* the bound matters here */
            const tpTree *tree = tpPlanner_Tree(pl);
            assert_int_equal(tpTree_Count(tree), 1 + 2500 - r.stats.rejected);
            int32_t want = 0;
            for (int32_t i = 1; i < tpTree_Count(tree); ++i) {
                if (with_quality ? toy_quality(&c, tpTree_State(tree, i)) < toy_quality(&c, tpTree_State(tree, want))
                                 : tpTree_Node(tree, i)->depth > tpTree_Node(tree, want)->depth) {
                    want = i;
                }
            }
            assert_int_equal(r.best, want);
            assert_true(want > 0);
            check_tree(tree, &c);
            tpDestroyPlanner(pl);
        }
    }
}

/* Unrest of the toy: 0 below 0.6 m/s (it cruises at fmax dt / (1 - damping) = 2 m/s and slows
 * where a new force turns it back), else speed / 0.6 (as tpCond_Unrest, >= 1); NaN once
 * ctx->cost_nan asks for a callback error. */
static double toy_unrest(void *vctx, const void *x)
{
    const ToyCtx *c = vctx;
    const Toy *s = x;
    const double sp = hypot(s->vel[0], s->vel[1]);
    return c->cost_nan ? NAN : sp < 0.6 ? 0.0 : sp / 0.6;
}

/* The toy's stand-in for "rests on something": its x is at most 2 m; beyond, it is "in the air"
 * and its exact unrest is 1e6 more than its lower bound (as the domain's AIRBORNE). */
static double toy_unrest_exact(void *vctx, const void *x)
{
    const double u = toy_unrest(vctx, x);
    return ((const Toy *)x)->pos[0] <= 2.0 ? u : u + 1e6;
}

/* The animator audit: with problem.unrest the approximate answer is the node with the least exact
 * unrest, the best quality among those (the deeper, then the earliest on ties), never the root
 * while a node has a better quality: at rest when the search found such a node, not the
 * best-quality node in full flight, which quality alone picks here. */
static void test_approximate_at_rest(void **state)
{
    (void)state;
    for (int kind = 0; kind <= 1; ++kind) {
        ToyCtx c = toy_ctx();
        c.goal[0] = 30.0; /* out of reach */
        c.use_y = kind == TP_PLANNER_RRT;
        tpProblem p = toy_problem(&c);
        p.unrest = toy_unrest;
        p.unrest_exact = (kind == 1) ? toy_unrest_exact : NULL; /* BK-BGT: the nodes at rest must have landed */
        tpPlannerDef def = tpDefaultPlannerDef();
        def.kind = (tpPlannerKind)kind;
        def.max_iters = 1500;
        tpPlanner *pl = make(&def, &p);
        tpPlanResult r;
        assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_APPROXIMATE);
        const tpTree *tree = tpPlanner_Tree(pl);
        int32_t want = -1, by_quality = 0;
        bool progress = false;
        for (int32_t i = 1; i < tpTree_Count(tree); ++i) {
            progress = progress || toy_quality(&c, tpTree_State(tree, i)) < toy_quality(&c, tpTree_State(tree, 0));
        }
        for (int32_t i = progress ? 1 : 0; i < tpTree_Count(tree); ++i) {
            const void *x = tpTree_State(tree, i);
            if (want < 0) {
                want = i;
                continue;
            }
            const void *w = tpTree_State(tree, want);
            const double u = p.unrest_exact ? toy_unrest_exact(&c, x) : toy_unrest(&c, x);
            const double uw = p.unrest_exact ? toy_unrest_exact(&c, w) : toy_unrest(&c, w);
            const double q = toy_quality(&c, x), qw = toy_quality(&c, w);
            if (u < uw ||
                (u == uw && (q < qw || (q == qw && tpTree_Node(tree, i)->depth > tpTree_Node(tree, want)->depth)))) {
                want = i;
            }
            if (toy_quality(&c, x) < toy_quality(&c, tpTree_State(tree, by_quality))) {
                by_quality = i;
            }
        }
        assert_int_equal(r.best, want);
        assert_true(want > 0);                                             /* not the root */
        assert_true(toy_unrest(&c, tpTree_State(tree, want)) == 0.0);      /* at rest */
        assert_true(toy_unrest(&c, tpTree_State(tree, by_quality)) > 0.0); /* quality alone: moving */
        if (p.unrest_exact) {
            assert_true(toy_unrest_exact(&c, tpTree_State(tree, want)) == 0.0); /* landed */
        }
        tpDestroyPlanner(pl);
        c = toy_ctx(); /* a callback error stops the run */
        c.goal[0] = 30.0;
        c.use_y = kind == TP_PLANNER_RRT;
        p = toy_problem(&c);
        p.unrest = toy_unrest;
        c.cost_nan = 1;
        def.max_iters = 50;
        pl = make(&def, &p);
        assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_ERROR);
        tpDestroyPlanner(pl);
    }
}

static void run_signature(tpPlannerKind kind, uint32_t seed, tpPlanner **out)
{
    ToyCtx *c = malloc(sizeof *c);
    assert_non_null(c);
    *c = toy_ctx();
    c->goal[0] = 100.0;
    c->use_y = 1;
    tpProblem p = toy_problem(c);
    tpPlannerDef def = tpDefaultPlannerDef();
    def.kind = kind;
    def.mu = 3.0;
    def.seed = seed;
    def.max_iters = 6000; /* > 4096 nodes: crosses a state chunk boundary */
    *out = make(&def, &p);
    tpPlanResult r;
    assert_int_equal(tpPlanner_Run(*out, &r), TP_PLAN_APPROXIMATE);
    check_tree(tpPlanner_Tree(*out), c);
    free(c); /* the tree is only read from here on */
}

static int same_tree(const tpTree *a, const tpTree *b)
{
    if (tpTree_Count(a) != tpTree_Count(b)) {
        return 0;
    }
    for (int32_t i = 0; i < tpTree_Count(a); ++i) {
        const tpNode *na = tpTree_Node(a, i), *nb = tpTree_Node(b, i);
        if (na->parent != nb->parent || na->flags != nb->flags || na->nchildren != nb->nchildren ||
            memcmp(tpTree_State(a, i), tpTree_State(b, i), sizeof(Toy)) != 0 ||
            memcmp(tpTree_Action(a, i), tpTree_Action(b, i), 2 * sizeof(double)) != 0) {
            return 0;
        }
    }
    return 1;
}

static void test_determinism(void **state)
{
    (void)state;
    for (int kind = 0; kind <= 1; ++kind) {
        tpPlanner *a, *b, *other;
        run_signature((tpPlannerKind)kind, 7, &a);
        run_signature((tpPlannerKind)kind, 7, &b);
        run_signature((tpPlannerKind)kind, 8, &other);
        assert_true(tpTree_Count(tpPlanner_Tree(a)) > 4096);
        assert_true(same_tree(tpPlanner_Tree(a), tpPlanner_Tree(b)));
        assert_false(same_tree(tpPlanner_Tree(a), tpPlanner_Tree(other)));
        tpDestroyPlanner(a);
        tpDestroyPlanner(b);
        tpDestroyPlanner(other);
    }
}

/* The anytime search (tpPlanner_Search): 6000 iterations in runs of 1, 999, 2000 and the rest
 * build the tree tpPlanner_Run builds and pick the same answer; a re-root keeps exactly the
 * chosen node's subtree (its root that node's state) and searches on; a re-root to the initial
 * state leaves the root alone. */
static int32_t descendants(const tpTree *t, int32_t k)
{
    int32_t n = 0;
    for (int32_t i = k + 1; i < tpTree_Count(t); ++i) {
        for (int32_t j = tpTree_Node(t, i)->parent; j >= k; j = tpTree_Node(t, j)->parent) {
            if (j == k) {
                ++n;
                break;
            }
        }
    }
    return n;
}

static void test_anytime(void **state)
{
    (void)state;
    for (int kind = 0; kind <= 1; ++kind) {
        tpPlanner *a;
        run_signature((tpPlannerKind)kind, 7, &a);
        tpPlanResult ra;
        tpPlanner_Run(a, &ra); /* "call once": the first run's result again */
        ToyCtx c = toy_ctx();
        c.goal[0] = 100.0;
        c.use_y = 1;
        tpProblem p = toy_problem(&c);
        tpPlannerDef def = tpDefaultPlannerDef();
        def.kind = (tpPlannerKind)kind;
        def.mu = 3.0;
        def.seed = 7;
        def.max_iters = 6000;
        tpPlanner *b = make(&def, &p);
        const int64_t runs[] = {1, 999, 2000, 1000000};
        bool done = false;
        for (int i = 0; i < 4 && !done; ++i) {
            assert_int_equal(tpPlanner_Search(b, runs[i], INFINITY, &done), TP_PLAN_APPROXIMATE);
        }
        assert_true(done);
        assert_int_equal(tpPlanner_Iterations(b), 6000);
        tpPlanResult rb;
        assert_int_equal(tpPlanner_Best(b, &rb), TP_PLAN_APPROXIMATE);
        assert_true(same_tree(tpPlanner_Tree(a), tpPlanner_Tree(b)));
        assert_int_equal(rb.best, ra.best);
        /* the node at depth 3 of the answer's path, and its subtree */
        int32_t path[4096];
        const int len = tpTree_Path(tpPlanner_Tree(b), rb.best, path, 4096);
        assert_true(len > 4);
        const int32_t k = path[3];
        const int32_t below = descendants(tpPlanner_Tree(b), k);
        Toy xk;
        memcpy(&xk, tpTree_State(tpPlanner_Tree(b), k), sizeof xk);
        assert_true(tpPlanner_Reroot(b, k));
        const tpTree *t = tpPlanner_Tree(b);
        assert_int_equal(tpTree_Count(t), below + 1);
        assert_memory_equal(tpTree_State(t, 0), &xk, sizeof xk);
        assert_int_equal(tpTree_Node(t, 0)->parent, -1);
        assert_int_equal(tpPlanner_Iterations(b), 0);
        assert_int_equal(tpPlanner_Search(b, 500, INFINITY, &done), TP_PLAN_APPROXIMATE);
        assert_int_equal(tpPlanner_Iterations(b), 500);
        assert_true(tpTree_Count(tpPlanner_Tree(b)) > below + 1);
        check_tree(tpPlanner_Tree(b), &c);
        assert_int_equal(tpPlanner_Best(b, &rb), TP_PLAN_APPROXIMATE);
        /* a deadline already past runs nothing */
        const int32_t n = tpTree_Count(tpPlanner_Tree(b));
        tpPlanner_Search(b, 1000, 0.0, &done);
        assert_int_equal(tpTree_Count(tpPlanner_Tree(b)), n);
        assert_true(tpPlanner_RecheckGoals(b));
        assert_true(tpPlanner_Reroot(b, -1));
        assert_int_equal(tpTree_Count(tpPlanner_Tree(b)), 1);
        tpDestroyPlanner(a);
        tpDestroyPlanner(b);
    }
}

/* iteration_bound (OR-parallel search): a bound lowered during the run stops it exactly there,
 * with the tree of a run given that max_iters; a bound that never bites changes nothing; the
 * solutions' iteration numbers are those of the iterations that found them. */
typedef struct BoundCalls {
    int64_t calls, lower_after, to;
} BoundCalls;

static int64_t lowering_bound(void *user)
{
    BoundCalls *b = user;
    return ++b->calls > b->lower_after ? b->to : INT64_MAX;
}

static void test_iteration_bound(void **state)
{
    (void)state;
    ToyCtx c = toy_ctx();
    c.goal[0] = 100.0; /* unreachable: the run goes on until a bound stops it */
    c.use_y = 1;
    tpProblem p = toy_problem(&c);
    tpPlannerDef def = tpDefaultPlannerDef();
    def.seed = 5;
    def.max_iters = 120;
    tpPlanner *plain = make(&def, &p);
    tpPlanResult r0, r1;
    assert_int_equal(tpPlanner_Run(plain, &r0), TP_PLAN_APPROXIMATE);
    def.max_iters = 100000;
    BoundCalls b = {0, 50, 120};
    def.iteration_bound = lowering_bound;
    def.iteration_bound_user = &b;
    tpPlanner *bounded = make(&def, &p);
    assert_int_equal(tpPlanner_Run(bounded, &r1), TP_PLAN_APPROXIMATE);
    assert_int_equal(r1.stats.iterations, 120);
    assert_int_equal(b.calls, 121); /* asked before every iteration, and once more to stop */
    assert_true(same_tree(tpPlanner_Tree(plain), tpPlanner_Tree(bounded)));
    assert_int_equal(r0.best, r1.best);
    tpDestroyPlanner(plain);
    tpDestroyPlanner(bounded);

    /* many worlds: solution_iters, and a bound that never bites */
    ToyCtx m = toy_ctx();
    m.use_y = 1;
    m.goal_r = 1.5;
    tpProblem pm = toy_problem(&m);
    tpPlannerDef dm = tpDefaultPlannerDef();
    dm.kind = TP_PLANNER_RRT;
    dm.solutions = 5;
    dm.seed = 11;
    tpPlanner *a = make(&dm, &pm);
    BoundCalls never = {0, INT64_MAX, 0};
    dm.iteration_bound = lowering_bound;
    dm.iteration_bound_user = &never;
    tpPlanner *bb = make(&dm, &pm);
    tpPlanResult ra, rb;
    assert_int_equal(tpPlanner_Run(a, &ra), TP_PLAN_SOLVED);
    assert_int_equal(tpPlanner_Run(bb, &rb), TP_PLAN_SOLVED);
    assert_int_equal(ra.nsolutions, 5);
    assert_int_equal(rb.nsolutions, 5);
    assert_int_equal(ra.solution_iters[4], ra.stats.iterations); /* the 5th solution ended the run */
    for (int s = 0; s < 5; ++s) {
        assert_true(s == 0 || ra.solution_iters[s] > ra.solution_iters[s - 1]);
        assert_int_equal(ra.solution_iters[s], rb.solution_iters[s]);
        assert_int_equal(ra.solutions[s], rb.solutions[s]);
    }
    assert_true(same_tree(tpPlanner_Tree(a), tpPlanner_Tree(bb)));
    tpDestroyPlanner(a);
    tpDestroyPlanner(bb);
}

static void test_sampling_every_non_busy_iteration(void **state)
{
    (void)state;
    for (int kind = 0; kind <= 1; ++kind) {
        ToyCtx c = toy_ctx();
        c.goal[0] = 100.0;
        tpProblem p = toy_problem(&c);
        p.valid = NULL; /* no rejections: each iteration adds exactly one node */
        tpPlannerDef def = tpDefaultPlannerDef();
        def.kind = (tpPlannerKind)kind;
        def.mu = 3.0;
        def.max_iters = 1500;
        tpPlanner *pl = make(&def, &p);
        tpPlanResult r;
        assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_APPROXIMATE);
        const tpTree *tree = tpPlanner_Tree(pl);
        assert_int_equal(tpTree_Count(tree), 1501);
        long continuations = 0;
        for (int32_t i = 1; i < tpTree_Count(tree); ++i) {
            continuations += (tpTree_Node(tree, tpTree_Node(tree, i)->parent)->flags & TP_NODE_BUSY) != 0;
        }
        assert_true(continuations > 100);
        assert_int_equal(c.sample_calls, 1500 - continuations);
        assert_int_equal(c.y_errors, 0);
        tpDestroyPlanner(pl);
    }
}

static void test_zero_y_without_sampler(void **state)
{
    (void)state;
    ToyCtx c = toy_ctx();
    c.use_y = 1; /* steers toward y = (0, 0) */
    tpProblem p = toy_problem(&c);
    p.sample = NULL;
    tpPlannerDef def = tpDefaultPlannerDef();
    def.kind = TP_PLANNER_RRT;
    def.max_iters = 300;
    tpPlanner *pl = make(&def, &p);
    tpPlanResult r;
    assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_APPROXIMATE);
    /* always the node nearest the origin is expanded, so the tree stays near it */
    const tpTree *tree = tpPlanner_Tree(pl);
    for (int32_t i = 0; i < tpTree_Count(tree); ++i) {
        assert_true(sqrt(dist2(tpTree_State(tree, i), (const double[2]){0.0, 0.0})) < 3.0);
    }
    tpDestroyPlanner(pl);
}

static void expect_invalid(const tpPlannerDef *def, const tpProblem *p, const char *needle)
{
    char err[256] = "";
    tpPlanner *pl = tpCreatePlanner(def, p, err, sizeof err);
    assert_null(pl);
    if (!strstr(err, needle)) {
        fprintf(stderr, "error '%s' does not mention '%s'\n", err, needle);
        fail();
    }
}

static void test_invalid_def(void **state)
{
    (void)state;
    ToyCtx c = toy_ctx();
    const tpProblem good = toy_problem(&c);
    const tpPlannerDef dflt = tpDefaultPlannerDef();
    tpPlannerDef d;
    tpProblem p;

    d = dflt;
    d.mu = -1.0;
    expect_invalid(&d, &good, "planner.mu must be > 0 (got -1)");
    d.mu = 0.0;
    expect_invalid(&d, &good, "planner.mu");
    d = dflt;
    d.max_iters = 0;
    expect_invalid(&d, &good, "planner.max_iters");
    d = dflt;
    d.solutions = 0;
    expect_invalid(&d, &good, "planner.solutions");
    d = dflt;
    d.dead_end = 256;
    expect_invalid(&d, &good, "planner.dead_end must be 0..255 (got 256)");
    d.dead_end = -1;
    expect_invalid(&d, &good, "planner.dead_end");
    d = dflt;
    d.time_limit = -0.5;
    expect_invalid(&d, &good, "planner.time_limit");
    d = dflt;
    p = good;
    p.control = NULL;
    expect_invalid(&d, &p, "problem.control");
    p = good;
    p.simulate = NULL;
    expect_invalid(&d, &p, "problem.simulate");
    p = good;
    p.goal = NULL;
    expect_invalid(&d, &p, "problem.goal");
    p = good;
    p.initial_state = NULL;
    expect_invalid(&d, &p, "problem.initial_state");
    d.kind = TP_PLANNER_RRT;
    p = good;
    p.key_dim = 0;
    expect_invalid(&d, &p, "problem.key_dim");
    p = good;
    p.key = NULL;
    expect_invalid(&d, &p, "problem.key");
    /* BGT needs no key */
    d.kind = TP_PLANNER_BGT;
    char err[64];
    tpPlanner *pl = tpCreatePlanner(&d, &p, err, sizeof err);
    assert_non_null(pl);
    tpDestroyPlanner(pl);
    tpDestroyPlanner(NULL);
}

static void test_callback_errors(void **state)
{
    (void)state;
    for (int which = 0; which < 5; ++which) {
        for (int kind = 0; kind <= 1; ++kind) {
            ToyCtx c = toy_ctx();
            c.use_y = 1;
            c.goal_bias = 0.5;
            c.goal_r = 1.5;
            tpProblem p = toy_problem(&c);
            p.solution_cost = toy_cost;
            switch (which) {
            case 0:
                c.fail_control_at = 50;
                break;
            case 1:
                c.fail_sim_at = 60;
                break;
            case 2:
                c.fail_goal_at = 30;
                break;
            case 3:
                c.fail_valid_at = 40;
                break;
            default:
                c.cost_nan = 1;
                break;
            }
            tpPlannerDef def = tpDefaultPlannerDef();
            def.kind = (tpPlannerKind)kind;
            def.mu = 1000.0;
            def.solutions = 2;
            def.max_iters = 20000;
            tpPlanner *pl = make(&def, &p);
            tpPlanResult r;
            assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_ERROR);
            assert_int_equal(r.status, TP_PLAN_ERROR);
            assert_int_equal(r.best, -1);
            assert_int_equal(r.best_solution, -1);
            if (r.nsolutions > 0) {
                assert_non_null(r.costs);
                assert_non_null(r.solutions);
            }
            if (which < 4) {
                /* stopped right away: no further callbacks after the failing one */
                long calls = which == 0   ? c.control_calls
                             : which == 1 ? c.sim_calls
                             : which == 2 ? c.goal_calls
                                          : c.valid_calls;
                long at = which == 0   ? c.fail_control_at
                          : which == 1 ? c.fail_sim_at
                          : which == 2 ? c.fail_goal_at
                                       : c.fail_valid_at;
                assert_int_equal(calls, at);
                assert_true(tpTree_Count(tpPlanner_Tree(pl)) <= at);
            } else {
                assert_int_equal(r.nsolutions, 2);
            }
            /* a second Run reports the same outcome */
            tpPlanResult r2;
            assert_int_equal(tpPlanner_Run(pl, &r2), TP_PLAN_ERROR);
            tpDestroyPlanner(pl);
        }
    }
}

static int progress_calls;
static void on_progress(void *user, const tpPlanStats *st)
{
    int *calls = user;
    (*calls)++;
    assert_true(st->elapsed >= 0.0);
    assert_true(st->nodes >= 1 && st->nodes <= st->iterations + 1);
}

static void test_progress(void **state)
{
    (void)state;
    ToyCtx c = toy_ctx();
    c.goal[0] = 100.0;
    tpProblem p = toy_problem(&c);
    tpPlannerDef def = tpDefaultPlannerDef();
    def.max_iters = 200;
    def.progress = on_progress;
    def.progress_user = &progress_calls;
    def.progress_interval = 0.0; /* every iteration */
    progress_calls = 0;
    tpPlanner *pl = make(&def, &p);
    tpPlanResult r;
    assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_APPROXIMATE);
    assert_int_equal(progress_calls, 200);
    tpDestroyPlanner(pl);

    /* A (tiny) time limit stops the run long before max_iters. */
    def = tpDefaultPlannerDef();
    def.max_iters = 100000000;
    def.time_limit = 1e-9;
    pl = make(&def, &p);
    assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_APPROXIMATE);
    assert_true(r.stats.iterations < 1000);
    assert_int_equal(r.stats.nodes, tpTree_Count(tpPlanner_Tree(pl)));
    tpDestroyPlanner(pl);
}

/* Rejections are counted by the kind the problem reports, the first of each described. */
static void test_rejection_reasons(void **state)
{
    (void)state;
    ToyCtx c = toy_ctx();
    c.goal[0] = 100.0; /* unreachable: the run goes to max_iters */
    c.bound = 3.0;
    c.vmax = 1.5;
    c.reject_kind_sim = TP_REJECT_OUT_OF_RANGE;
    c.reject_kind_val = TP_REJECT_VALID;
    tpProblem p = toy_problem(&c);
    p.reject = toy_reject;
    tpPlannerDef def = tpDefaultPlannerDef();
    def.max_iters = 3000;
    def.seed = 5;
    tpPlanner *pl = make(&def, &p);
    tpPlanResult r;
    assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_APPROXIMATE);
    const tpRejectStat *out = &r.stats.reject[TP_REJECT_OUT_OF_RANGE], *val = &r.stats.reject[TP_REJECT_VALID];
    /* both reasons occur, and they are all there is */
    assert_true(out->count > 0 && val->count > 0);
    assert_int_equal(out->count + val->count, r.stats.rejected);
    assert_int_equal(r.stats.nodes, 1 + r.stats.iterations - r.stats.rejected);
    for (int k = 0; k < TP_REJECT_KINDS; ++k) {
        assert_int_equal(r.stats.reject[k].count, c.rejects[k]);
        /* the words are asked for once per kind, for its first rejection */
        assert_int_equal(c.text_calls[k], c.rejects[k] > 0 ? 1 : 0);
        if (c.rejects[k] == 0) {
            assert_int_equal(r.stats.reject[k].iteration, 0);
            assert_string_equal(r.stats.reject[k].first, "");
            continue;
        }
        assert_int_equal(r.stats.reject[k].iteration, c.first_iter[k]);
        assert_string_equal(r.stats.reject[k].first, c.first_text[k]);
    }
    assert_non_null(strstr(out->first, "beyond 1.5"));
    assert_non_null(strstr(val->first, "outside +-3"));
    assert_true(out->iteration >= 1 && out->iteration <= r.stats.iterations);
    tpDestroyPlanner(pl);

    /* The same run without the callback: the same counts, all unspecified, no words. */
    ToyCtx c2 = toy_ctx();
    c2.goal[0] = 100.0;
    c2.bound = 3.0;
    c2.vmax = 1.5;
    p = toy_problem(&c2);
    pl = make(&def, &p);
    tpPlanResult r2;
    assert_int_equal(tpPlanner_Run(pl, &r2), TP_PLAN_APPROXIMATE);
    assert_int_equal(r2.stats.rejected, r.stats.rejected);
    assert_int_equal(r2.stats.reject[TP_REJECT_UNSPECIFIED].count, r.stats.rejected);
    assert_int_equal(r2.stats.reject[TP_REJECT_UNSPECIFIED].iteration,
                     out->iteration < val->iteration ? out->iteration : val->iteration);
    assert_string_equal(r2.stats.reject[TP_REJECT_UNSPECIFIED].first, "");
    tpDestroyPlanner(pl);

    /* A kind out of range counts as unspecified (and its words are kept). */
    ToyCtx c3 = toy_ctx();
    c3.goal[0] = 100.0;
    c3.bound = 3.0;
    c3.vmax = 1.5;
    c3.reject_kind_sim = 99;
    c3.reject_kind_val = TP_REJECT_VALID;
    p = toy_problem(&c3);
    p.reject = toy_reject;
    pl = make(&def, &p);
    tpPlanResult r3;
    assert_int_equal(tpPlanner_Run(pl, &r3), TP_PLAN_APPROXIMATE);
    assert_int_equal(r3.stats.reject[TP_REJECT_UNSPECIFIED].count, out->count);
    assert_int_equal(r3.stats.reject[TP_REJECT_VALID].count, val->count);
    assert_string_equal(r3.stats.reject[TP_REJECT_UNSPECIFIED].first, out->first);
    tpDestroyPlanner(pl);

    /* names */
    assert_string_equal(tpRejectKind_Name(TP_REJECT_STATIC_PENETRATION), "static_penetration");
    assert_string_equal(tpRejectKind_Label(TP_REJECT_OUT_OF_RANGE), "out of range");
    assert_int_equal(tpRejectKind_Find("valid"), TP_REJECT_VALID);
    assert_int_equal(tpRejectKind_Find("Valid"), -1);
    assert_null(tpRejectKind_Name(TP_REJECT_KINDS));
}

/* Valid only one step from the root: every child of a depth-1 node is invalid (a dead end). */
static int toy_valid_first_step(void *vctx, const void *x)
{
    (void)vctx;
    return ((const Toy *)x)->t <= 1.5 * TOY_DT;
}

/* Counts of a run of the dead-end problem: nodes, rejected, dead ends, and the retired nodes
 * found in the tree (selectable flags but out of the selection lists). */
static void dead_end_run(int dead_end, tpPlanStats *st, int64_t *retired)
{
    ToyCtx c = toy_ctx();
    c.goal[0] = 100.0; /* unreachable */
    c.max_busy = 1;    /* no busy continuations: every expansion is a selection */
    tpProblem p = toy_problem(&c);
    p.valid = toy_valid_first_step;
    tpPlannerDef def = tpDefaultPlannerDef();
    def.max_iters = 2000;
    def.dead_end = dead_end;
    tpPlanner *pl = make(&def, &p);
    tpPlanResult r;
    assert_int_equal(tpPlanner_Run(pl, &r), TP_PLAN_APPROXIMATE);
    *st = r.stats;
    const tpTree *tree = tpPlanner_Tree(pl);
    char why[256] = "";
    assert_true(tpTree_Check(tree, why, sizeof why));
    *retired = 0;
    for (int32_t i = 0; i < tpTree_Count(tree); ++i) {
        const tpNode *n = tpTree_Node(tree, i);
        assert_true(n->depth <= 1);
        *retired += n->slot < 0 && !(n->flags & (TP_NODE_BUSY | TP_NODE_GOAL));
    }
    tpDestroyPlanner(pl);
}

/* BK-BGT retires a node after dead_end invalid children in a row: on a problem where every node
 * one step from the root is a dead end, each of them makes exactly dead_end invalid children and
 * is retired, so the search keeps branching from the root; without retirement (0, the paper's
 * BGT) it spends nearly every iteration on the same few dead ends. */
static void test_dead_ends(void **state)
{
    (void)state;
    tpPlanStats on, off;
    int64_t retired_on, retired_off;
    dead_end_run(8, &on, &retired_on);
    dead_end_run(0, &off, &retired_off);
    assert_int_equal(off.dead_ends, 0);
    assert_int_equal(retired_off, 0);
    assert_true(on.dead_ends > 0);
    assert_int_equal(retired_on, on.dead_ends);
    /* every rejection is a child of a depth-1 node: 8 for each retired one, fewer for the others */
    const int64_t live = on.nodes - 1 - on.dead_ends;
    assert_true(on.rejected >= 8 * on.dead_ends && on.rejected <= 8 * on.dead_ends + 7 * live);
    /* retirement sends the search back to the root: many more first steps explored */
    assert_true(on.nodes > 4 * off.nodes);
    /* deterministic */
    tpPlanStats again;
    int64_t retired_again;
    dead_end_run(8, &again, &retired_again);
    assert_int_equal(again.nodes, on.nodes);
    assert_int_equal(again.rejected, on.rejected);
    assert_int_equal(again.dead_ends, on.dead_ends);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bgt_choose_nonleaf),
        cmocka_unit_test(test_anytime),
        cmocka_unit_test(test_rrt_solves),
        cmocka_unit_test(test_bgt_solves),
        cmocka_unit_test(test_dead_ends),
        cmocka_unit_test(test_bgt_responds_to_mu),
        cmocka_unit_test(test_many_worlds),
        cmocka_unit_test(test_goal_nodes_closed),
        cmocka_unit_test(test_ties_pick_first),
        cmocka_unit_test(test_approximate),
        cmocka_unit_test(test_approximate_at_rest),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_iteration_bound),
        cmocka_unit_test(test_sampling_every_non_busy_iteration),
        cmocka_unit_test(test_zero_y_without_sampler),
        cmocka_unit_test(test_invalid_def),
        cmocka_unit_test(test_callback_errors),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_rejection_reasons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
