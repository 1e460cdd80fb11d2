/* BK-RRT and BK-BGT (Zickler & Veloso 2009, Sec. 5): the shared forward-planning loop of
 * Algorithm 2 with either nearest-neighbour (RRT) or balanced-growth (Algorithm 3) node
 * selection, plus many-worlds selection of the best of K solutions (Sec. 5.2).
 *
 * The loop is written for a physics step of a few microseconds: no allocation per node (the
 * next node is built in place in the tree's arena), four clock reads per iteration (each
 * phase boundary is shared by two phases), and no callbacks beyond those the problem needs. */
#include "tp/planner.h"

#include "nn_index.h"
#include "planner_testing.h"
#include "tp/base.h"
#include "tree_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Iterations between two reads of the wall clock in the planning loop (a power of two). */
#define TP_WALL_EVERY 16

/* Near misses (tpPlannerDef.near_miss). */
#define TP_NEAR_MISS_DRAWS 256     /* draws of a chain kept (a throw takes a handful; later ones are fresh) */
#define TP_NEAR_MISS_SIGMA_LO 1e-4 /* a replay's move: its standard deviation (units of a [0, 1) draw) is */
#define TP_NEAR_MISS_SIGMA_HI 3e-2 /* log-uniform between these, a pattern search's steps at every scale */

/* One of the best chain ends so far: where it started and the draws that made it. */
typedef struct NearMiss {
    double q;    /* the end's quality (lower is better) */
    int32_t src; /* the node the chain was expanded from */
    int n;       /* draws */
    double draws[TP_NEAR_MISS_DRAWS];
} NearMiss;

/* Ticks from a to b; 0 if the counter went back (a time-stamp counter read on another core that
 * is not in step: never on the machines tplan targets, but a wrapped difference would swamp the
 * sums). */
static uint64_t tickSpan(uint64_t a, uint64_t b)
{
    return b > a ? b - a : 0;
}

/* Tick sums of the five intervals of an iteration of the planning loop. */
typedef struct LoopTicks {
    uint64_t select, copy, tactics, physics, check;
} LoopTicks;

/* The interval sums into st in seconds (spt: seconds per tick), with the skills' search time. */
static void storeTimes(tpPlanStats *st, const LoopTicks *k, double spt, double t_search)
{
    st->t_select = spt * (double)k->select;
    st->t_copy = spt * (double)k->copy;
    st->t_tactics = spt * (double)k->tactics;
    st->t_search = t_search;
    st->t_physics = spt * (double)k->physics;
    st->t_check = spt * (double)k->check;
}

/* Seconds per tick over [(c0, k0), (c1, k1)] (wall clock, ticks); 0 when no tick passed. */
static double tickSeconds(double c0, uint64_t k0, double c1, uint64_t k1)
{
    return k1 > k0 && c1 > c0 ? (c1 - c0) / (double)(k1 - k0) : 0.0;
}

/* The planning loop's state between two calls (an anytime search resumes it). */
typedef struct tpLoop {
    bool begun;          /* the root is in */
    bool done;           /* the search cannot go on: its K solutions, nothing selectable, its memory
                            bound, max_iters, an error */
    tpPlanStatus status; /* TP_PLAN_APPROXIMATE, or TP_PLAN_ERROR */
    bool busy;           /* the last new node is continued greedily */
    int32_t last;        /* ... that node */
    int32_t chain;       /* BK-RRT: the selected node the current busy chain started from (dead ends) */
    int64_t iter;        /* iterations executed (since the last re-root) */
    LoopTicks k;         /* tick sums of the intervals */
    double t_start;      /* s, wall clock: the search's (or the last re-root's) start */
    double c_loop;       /* s and ticks at the loop's start (tickSeconds) */
    uint64_t k_loop;
    double next_progress; /* s: the next progress report */
    double search0;       /* s: problem.search_seconds at the start */
    double t_wall_prev;   /* s and iteration of the last clock read that measured iterations */
    int64_t iter_wall_prev;
    int64_t wall_mask; /* iterations between clock reads - 1 */
    double seconds;    /* s spent in the loop over every call (anytime) */
} tpLoop;

struct tpPlanner {
    tpPlannerDef def;
    tpProblem prob;
    tpTree *tree;
    tpNnIndex *nn; /* BK-RRT with a plain Euclidean distance: exact NN index over the tree's
                      selectable keys (NULL: linear scan). Kept out of the tree so that
                      tpTree_MemoryBytes, which plan files record, does not depend on it. */
    tpRng rng;
    double *y; /* the current sample (sized max(sample_dim, key_dim, 1), zero-filled) */

    int32_t *solutions; /* goal leaves in the order found */
    double *costs;      /* their costs (filled after the search) */
    int64_t *sol_iters; /* the iteration (1-based) that found each */
    int nsolutions;

    uint8_t *fails; /* dead ends: invalid children in a row of each node (fails_cap entries) */
    int32_t fails_cap;

    unsigned char *coast; /* def.coast_steps states of the coast after a segment (NULL: none) */
    double *coast_action; /* the zero action of a coast step (action_dim doubles) */

    bool ran;
    tpPlanResult result;

    tpLoop loop;
    bool anytime;     /* tpPlanner_Search: the clock read every iteration, the nodes valued as made */
    double *u, *q;    /* anytime: each node's unrest and quality (nvalued of them, values_cap room) */
    int8_t *exact_of; /* ... 1 once its u is exact (problem.unrest_exact asked), else 0 */
    int32_t nvalued, values_cap;
    int ncosted; /* anytime: the first ncosted solutions have their cost in costs */

    NearMiss *near; /* near_miss > 0: the best chain ends, best first (nnear of TP_NEAR_MISS_KEEP) */
    int nnear;
    double *rec;    /* near_miss > 0: the draws of the chain under way (TP_NEAR_MISS_DRAWS) */
    tpRngTape tape; /* ... on rng, recording into rec */
};

tpPlannerDef tpDefaultPlannerDef(void)
{
    tpPlannerDef def;
    memset(&def, 0, sizeof def);
    def.kind = TP_PLANNER_BGT;
    def.mu = 1000.0;
    def.max_iters = 50000;
    def.time_limit = 0.0;
    def.solutions = 1;
    def.seed = 1;
    def.progress = NULL;
    def.progress_user = NULL;
    def.progress_interval = 0.25;
    def.nn_index = true;
    def.dead_end = 8;
    return def;
}

/* Rejection reasons: one row per tpRejectKind, in the enum's order. */
static const struct {
    const char *name, *label;
} k_reject_kinds[TP_REJECT_KINDS] = {
    {"static_penetration", "static penetration"},
    {"body_penetration", "body penetration"},
    {"out_of_range", "out of range"},
    {"valid", "valid"},
    {"unspecified", "unspecified"},
};

const char *tpRejectKind_Name(tpRejectKind kind)
{
    return (unsigned)kind < TP_REJECT_KINDS ? k_reject_kinds[kind].name : NULL;
}

const char *tpRejectKind_Label(tpRejectKind kind)
{
    return (unsigned)kind < TP_REJECT_KINDS ? k_reject_kinds[kind].label : NULL;
}

int tpRejectKind_Find(const char *name)
{
    for (int k = 0; name && k < TP_REJECT_KINDS; ++k) {
        if (strcmp(name, k_reject_kinds[k].name) == 0) {
            return k;
        }
    }
    return -1;
}

/* Counts a rejection by its reason; the problem describes only the first of each kind, so the
 * common case costs one cheap callback. iter is 1-based. */
static void note_rejection(tpPlanner *pl, int by, const void *xnew, int64_t iter)
{
    const tpProblem *p = &pl->prob;
    tpPlanStats *st = &pl->result.stats;
    st->rejected++;
    int kind = p->reject ? p->reject(p->ctx, by, xnew, NULL, 0) : TP_REJECT_UNSPECIFIED;
    if (kind < 0 || kind >= TP_REJECT_KINDS) {
        kind = TP_REJECT_UNSPECIFIED;
    }
    tpRejectStat *r = &st->reject[kind];
    if (r->count++ == 0) {
        r->iteration = iter;
        r->first[0] = '\0';
        if (p->reject) {
            (void)p->reject(p->ctx, by, xnew, r->first, sizeof r->first);
            r->first[sizeof r->first - 1] = '\0';
        }
    }
}

static bool validate(const tpPlannerDef *def, const tpProblem *p, char *err, size_t errlen)
{
    if (!def || !p) {
        tpErrorf(err, errlen, "planner: definition and problem must not be NULL");
        return false;
    }
    if (def->kind != TP_PLANNER_BGT && def->kind != TP_PLANNER_RRT) {
        tpErrorf(err, errlen, "planner.kind must be BGT or RRT (got %d)", (int)def->kind);
        return false;
    }
    if (!(def->mu > 0.0)) {
        tpErrorf(err, errlen, "planner.mu must be > 0 (got %g)", def->mu);
        return false;
    }
    if (def->max_iters <= 0) {
        tpErrorf(err, errlen, "planner.max_iters must be > 0 (got %lld)", (long long)def->max_iters);
        return false;
    }
    if (def->dead_end < 0 || def->dead_end > 255) {
        tpErrorf(err, errlen, "planner.dead_end must be 0..255 (got %d)", def->dead_end);
        return false;
    }
    if (def->coast_steps < 0 || def->coast_steps > 100000) {
        tpErrorf(err, errlen, "planner.coast_steps must be 0..100000 (got %d)", def->coast_steps);
        return false;
    }
    if (def->solutions < 1) {
        tpErrorf(err, errlen, "planner.solutions must be >= 1 (got %d)", def->solutions);
        return false;
    }
    if (!(def->time_limit >= 0.0)) {
        tpErrorf(err, errlen, "planner.time_limit must be >= 0 (got %g)", def->time_limit);
        return false;
    }
    if (!(def->near_miss >= 0.0 && def->near_miss <= 1.0)) {
        tpErrorf(err, errlen, "planner.near_miss must be 0..1 (got %g)", def->near_miss);
        return false;
    }
    if (!(def->progress_interval >= 0.0)) {
        tpErrorf(err, errlen, "planner.progress_interval must be >= 0 (got %g)", def->progress_interval);
        return false;
    }
    if (!p->initial_state) {
        tpErrorf(err, errlen, "problem.initial_state must not be NULL");
        return false;
    }
    if (!p->control) {
        tpErrorf(err, errlen, "problem.control must not be NULL");
        return false;
    }
    if (!p->simulate) {
        tpErrorf(err, errlen, "problem.simulate must not be NULL");
        return false;
    }
    if (!p->goal) {
        tpErrorf(err, errlen, "problem.goal must not be NULL");
        return false;
    }
    if (p->action_dim < 0 || p->sample_dim < 0 || p->key_dim < 0) {
        tpErrorf(err, errlen, "problem.action_dim, sample_dim and key_dim must be >= 0 (got %d, %d, %d)", p->action_dim,
                 p->sample_dim, p->key_dim);
        return false;
    }
    if (def->kind == TP_PLANNER_RRT) {
        if (p->key_dim <= 0) {
            tpErrorf(err, errlen, "planner.kind = RRT requires problem.key_dim > 0 (got %d)", p->key_dim);
            return false;
        }
        if (!p->key) {
            tpErrorf(err, errlen, "planner.kind = RRT requires problem.key (got NULL)");
            return false;
        }
        if (!p->distance && !p->key_is_euclidean) {
            tpErrorf(err, errlen, "planner.kind = RRT requires problem.distance or problem.key_is_euclidean");
            return false;
        }
    }
    return true;
}

tpPlanner *tpCreatePlanner(const tpPlannerDef *def, const tpProblem *problem, char *err, size_t errlen)
{
    TP_ASSERT(def && problem);
    if (!validate(def, problem, err, errlen)) {
        return NULL;
    }
    tpPlanner *pl = calloc(1, sizeof *pl);
    if (!pl) {
        tpErrorf(err, errlen, "planner: out of memory");
        return NULL;
    }
    pl->def = *def;
    pl->prob = *problem;
    tpSelMode mode = def->kind == TP_PLANNER_RRT ? TP_SEL_RRT : TP_SEL_BGT;
    pl->tree = tpCreateTree(problem->state_bytes, problem->action_dim, problem->key_dim, mode);
    /* The Euclidean NN reads key_dim entries of y even if the sampler writes fewer. */
    int ydim = problem->sample_dim > problem->key_dim ? problem->sample_dim : problem->key_dim;
    pl->y = calloc((size_t)(ydim > 0 ? ydim : 1), sizeof(double));
    if (def->coast_steps > 0) {
        pl->coast = malloc((size_t)def->coast_steps * problem->state_bytes);
        pl->coast_action = calloc((size_t)(problem->action_dim > 0 ? problem->action_dim : 1), sizeof(double));
    }
    if (def->near_miss > 0.0) {
        pl->near = calloc(TP_NEAR_MISS_KEEP, sizeof *pl->near);
        pl->rec = calloc(TP_NEAR_MISS_DRAWS, sizeof *pl->rec);
    }
    if (!pl->tree || !pl->y || (def->coast_steps > 0 && (!pl->coast || !pl->coast_action)) ||
        (def->near_miss > 0.0 && (!pl->near || !pl->rec))) {
        tpErrorf(err, errlen, "planner: out of memory");
        tpDestroyPlanner(pl);
        return NULL;
    }
    if (def->nn_index && mode == TP_SEL_RRT && !problem->distance) {
        /* Without the index (allocation failure) the linear scan gives the same answer. */
        pl->nn = tpCreateNnIndex(problem->key_dim);
    }
    pl->result.best = -1;
    pl->result.best_solution = -1;
    return pl;
}

void tpDestroyPlanner(tpPlanner *planner)
{
    if (!planner) {
        return;
    }
    tpDestroyTree(planner->tree);
    tpDestroyNnIndex(planner->nn);
    free(planner->y);
    free(planner->solutions);
    free(planner->costs);
    free(planner->sol_iters);
    free(planner->fails);
    free(planner->coast);
    free(planner->coast_action);
    free(planner->u);
    free(planner->q);
    free(planner->exact_of);
    free(planner->near);
    free(planner->rec);
    free(planner);
}

const tpTree *tpPlanner_Tree(const tpPlanner *planner)
{
    return planner ? planner->tree : NULL;
}

size_t tpPlanner_IndexBytes(const tpPlanner *planner)
{
    return planner ? tpNnIndex_Bytes(planner->nn) : 0;
}

/* Adds the root (x_init). BGT: a selectable leaf; RRT: its key enters the NN list. */
static bool add_root(tpPlanner *pl)
{
    tpTree *tree = pl->tree;
    if (tpTree_Prepare(tree) != 0) {
        tpLog(TP_LOG_ERROR, "planner: out of memory");
        return false;
    }
    void *x = tpTree_StateMut(tree, 0);
    memset(x, 0, tree->state_bytes);
    memset(tpTree_ActionMut(tree, 0), 0, (size_t)tree->action_dim * sizeof(double));
    pl->prob.initial_state(pl->prob.ctx, x);
    if (tree->mode == TP_SEL_RRT) {
        pl->prob.key(pl->prob.ctx, x, tpTree_NextKey(tree));
    }
    tpTree_Commit(tree, -1, 0);
    return true;
}

/* Whether node i is a better approximate answer than node b (b < 0: none yet): the least unrest
 * u, then the best quality q; then not the root (a 0-step plan); then, without unrest (robots:
 * docs/lua-api.md#fallbacks), a node at a decision point (not busy: the controlled body is not mid-manoeuvre); then the
 * deeper node, so that a tie (a ball nothing touched yet) is no 0-step plan; the earliest node on full ties. */
static bool fallback_better(const tpPlanner *pl, const double *u, const double *q, int32_t i, int32_t b)
{
    if (b < 0) {
        return true;
    }
    if (u[i] != u[b]) {
        return u[i] < u[b];
    }
    if (q[i] != q[b]) {
        return q[i] < q[b];
    }
    if (i == 0 || b == 0) { /* a 0-step plan loses every tie */
        return b == 0;
    }
    const tpNode *ni = &pl->tree->nodes[i], *nb = &pl->tree->nodes[b];
    const bool busy_i = (ni->flags & TP_NODE_BUSY) != 0, busy_b = (nb->flags & TP_NODE_BUSY) != 0;
    if (!pl->prob.unrest && busy_i != busy_b) {
        return !busy_i;
    }
    return ni->depth > nb->depth;
}

/* The approximate answer from each node's unrest u and quality q (n nodes; u INFINITY for a node
 * that is not eligible) into pl->result.best: the best by fallback_better, the root left out while
 * another node has a better quality. u holds lower bounds: the best node's is made exact
 * (problem.unrest_exact) until the best is exact, at most TP_FALLBACK_CHECKS times, then the best of
 * the exact ones. exact: which u are exact (the anytime cache, kept; NULL: scratch). False on a
 * callback error or out of memory. */
static bool pick_best(tpPlanner *pl, double *u, const double *q, int8_t *exact, int32_t n)
{
    tpPlanResult *r = &pl->result;
    bool skip_root = false;
    for (int32_t i = 1; i < n && !skip_root; ++i) {
        skip_root = q[i] < q[0];
    }
    int8_t *scratch = NULL;
    if (pl->prob.unrest_exact && !exact) {
        scratch = calloc((size_t)n, 1);
        if (!scratch) {
            tpLog(TP_LOG_ERROR, "planner: out of memory");
            return false;
        }
        exact = scratch;
    }
    bool ok = true;
    for (int checks = 0;; ++checks) {
        const bool exact_only = pl->prob.unrest_exact && checks >= TP_FALLBACK_CHECKS;
        int32_t best = -1;
        for (int32_t i = skip_root ? 1 : 0; i < n; ++i) {
            if ((!exact_only || exact[i] || isinf(u[i])) && fallback_better(pl, u, q, i, best)) {
                best = i;
            }
        }
        r->best = best;
        if (!pl->prob.unrest_exact || best < 0 || exact[best] || isinf(u[best]) || exact_only) {
            break;
        }
        const double e = pl->prob.unrest_exact(pl->prob.ctx, tpTree_StateMut(pl->tree, best));
        if (isnan(e)) {
            ok = false; /* the message is in the problem's context */
            break;
        }
        u[best] = fmax(u[best], e);
        exact[best] = 1;
    }
    if (ok && r->best < 0) { /* every node asked was worse than the TP_FALLBACK_CHECKS asked: none */
        r->best = skip_root ? 1 : 0;
    }
    free(scratch);
    return ok;
}

/* The value of node i (u: its unrest's lower bound, INFINITY when it is not eligible; q: its
 * quality, or its depth negated). False on a callback error. */
static bool value_node(tpPlanner *pl, int32_t i, double *u, double *q)
{
    const tpProblem *p = &pl->prob;
    void *x = tpTree_StateMut(pl->tree, i);
    *u = p->unrest ? p->unrest(p->ctx, x) : 0.0;
    *q = p->quality ? p->quality(p->ctx, x) : -(double)pl->tree->nodes[i].depth;
    const int e = p->eligible ? p->eligible(p->ctx, x) : TP_CB_TRUE;
    if (e == TP_CB_FALSE) {
        *u = INFINITY;
    }
    return e >= 0 && !isnan(*u) && !isnan(*q); /* else a callback error: the message is in the problem's context */
}

/* Many-worlds (Sec. 5.2): cost every solution and pick the cheapest (earliest on ties);
 * without a solution, the node closest to rest (problem.unrest) and, among those, the best by quality (or the
 * deepest). False on a callback error. */
static bool choose_best(tpPlanner *pl)
{
    const tpTree *tree = pl->tree;
    tpPlanResult *r = &pl->result;
    r->best = -1;
    r->best_solution = -1;
    if (pl->nsolutions > 0) {
        int32_t maxlen = 0;
        /* an anytime search costs each solution once (ncosted of them are: their paths stay
           until a re-root); a run costs them all at its end */
        const int first = pl->anytime ? pl->ncosted : 0;
        for (int s = first; s < pl->nsolutions; ++s) {
            int32_t len = tree->nodes[pl->solutions[s]].depth + 1;
            maxlen = len > maxlen ? len : maxlen;
        }
        int32_t *path = pl->prob.solution_cost ? malloc((size_t)maxlen * sizeof(int32_t)) : NULL;
        if (pl->prob.solution_cost && !path) {
            free(path);
            tpLog(TP_LOG_ERROR, "planner: out of memory");
            return false;
        }
        for (int s = first; s < pl->nsolutions; ++s) {
            int32_t leaf = pl->solutions[s];
            double cost;
            if (pl->prob.solution_cost) {
                int len = tpTree_Path(tree, leaf, path, maxlen);
                cost = pl->prob.solution_cost(pl->prob.ctx, tree, path, len);
                if (isnan(cost)) {
                    free(path);
                    return false;
                }
            } else {
                cost = (double)tree->nodes[leaf].depth;
            }
            pl->costs[s] = cost;
        }
        free(path);
        pl->ncosted = pl->nsolutions;
        for (int s = 0; s < pl->nsolutions; ++s) { /* the cheapest, the earliest on ties */
            if (r->best_solution < 0 || pl->costs[s] < pl->costs[r->best_solution]) {
                r->best_solution = s;
            }
        }
        r->best = pl->solutions[r->best_solution];
        return true;
    }
    int32_t n = tree->count;
    if (pl->anytime) { /* every node valued as it was made (value_nodes) */
        TP_ASSERT(pl->nvalued == n);
        return pick_best(pl, pl->u, pl->q, pl->exact_of, n);
    }
    /* Without unrest and eligibility: by quality alone, one pass and no allocation (this also runs
     * when the tree ran out of memory, the approximate answer of a search stopped by its memory
     * limit). */
    const bool ranked = pl->prob.unrest || pl->prob.eligible;
    double *u = ranked ? malloc((size_t)n * sizeof *u) : NULL;
    double *q = ranked ? malloc((size_t)n * sizeof *q) : NULL;
    if (!u || !q) {
        if (ranked)
            tpLog(TP_LOG_WARN, "planner: out of memory for the approximate answer's rest check: the best "
                               "node by quality alone");
        free(u);
        free(q);
        double best_q = NAN;
        for (int32_t i = 0; i < n; ++i) {
            const double qi = pl->prob.quality ? pl->prob.quality(pl->prob.ctx, tpTree_StateMut((tpTree *)tree, i))
                                               : -(double)tree->nodes[i].depth;
            if (isnan(qi))
                return false; /* a callback error: the message is in the problem's context */
            /* the best quality; on ties not the root, a node at a decision point, then the deeper (as
               fallback_better) */
            const tpNode *ni = &tree->nodes[i], *nb = r->best < 0 ? NULL : &tree->nodes[r->best];
            const bool busy_i = (ni->flags & TP_NODE_BUSY) != 0;
            if (!nb || qi < best_q ||
                (qi == best_q &&
                 (r->best == 0 || (busy_i != ((nb->flags & TP_NODE_BUSY) != 0) ? !busy_i : ni->depth > nb->depth)))) {
                r->best = i;
                best_q = qi;
            }
        }
        return true;
    }
    bool ok = true;
    for (int32_t i = 0; i < n && ok; ++i) {
        ok = value_node(pl, i, &u[i], &q[i]);
    }
    ok = ok && pick_best(pl, u, q, NULL, n);
    free(u);
    free(q);
    return ok;
}

static bool push_solution(tpPlanner *pl, int32_t node, int64_t iter, double t_start)
{
    if (pl->nsolutions == 0) {
        pl->result.stats.t_first = tpClock_Now() - t_start;
        pl->result.stats.nodes_first = pl->tree->count;
    }
    /* K is known up front, so one allocation of K entries suffices. */
    if (!pl->solutions) {
        pl->solutions = malloc((size_t)pl->def.solutions * sizeof(int32_t));
        pl->sol_iters = malloc((size_t)pl->def.solutions * sizeof(int64_t));
        if (!pl->solutions || !pl->sol_iters) {
            return false;
        }
    }
    pl->sol_iters[pl->nsolutions] = iter;
    pl->solutions[pl->nsolutions++] = node;
    return true;
}

/* A segment ended at node `from` (valid, no goal): up to def.coast_steps steps of zero action from
 * it, the goal tested after each. When it holds at step k, steps 1..k become nodes (busy, the
 * last the goal) and a solution: 1. Else nothing is kept: 0 (the coast stopped at an invalid state, or
 * the tree cannot grow). TP_CB_ERROR on a callback error. */
static int coast(tpPlanner *pl, int32_t from, int64_t iter, double t_start, double deadline)
{
    const tpProblem *p = &pl->prob;
    const size_t sb = p->state_bytes, ab = (size_t)p->action_dim * sizeof(double);
    const void *x = tpTree_State(pl->tree, from);
    for (int k = 0; k < pl->def.coast_steps; ++k) {
        if (deadline < INFINITY && tpClock_Now() >= deadline) {
            return 0; /* an anytime search's deadline, between two physics steps: a miss */
        }
        void *xn = pl->coast + (size_t)k * sb;
        memcpy(xn, x, sb);
        memset(pl->coast_action, 0, ab);
        int rc = p->simulate(p->ctx, x, pl->coast_action, xn);
        int ok = rc == TP_CB_TRUE ? (p->valid ? p->valid(p->ctx, xn) : TP_CB_TRUE) : rc;
        int g = ok == TP_CB_TRUE ? p->goal(p->ctx, xn) : ok;
        if (rc == TP_CB_ERROR || ok == TP_CB_ERROR || g == TP_CB_ERROR) {
            return TP_CB_ERROR;
        }
        if (ok != TP_CB_TRUE) {
            return 0;
        }
        if (g) {
            int32_t parent = from;
            for (int j = 0; j <= k; ++j) {
                const int32_t slot = tpTree_Prepare(pl->tree);
                if (slot < 0) {
                    return 0; /* the run stops at its next Prepare with what it found */
                }
                memcpy(tpTree_StateMut(pl->tree, slot), pl->coast + (size_t)j * sb, sb);
                memset(tpTree_ActionMut(pl->tree, slot), 0, ab);
                tpTree_Commit(pl->tree, parent, j < k ? TP_NODE_BUSY : TP_NODE_GOAL);
                parent = slot;
            }
            pl->result.stats.coast_solutions++;
            return push_solution(pl, parent, iter, t_start) ? 1 : TP_CB_ERROR;
        }
        x = xn;
    }
    return 0;
}

static void finish(tpPlanner *pl, tpPlanStatus status, double t_start)
{
    tpPlanResult *r = &pl->result;
    if (pl->nsolutions > 0) {
        /* NaN until costed, so even an errored run hands out a readable costs array. An anytime
           search reads its best plan many times: its costed solutions keep their costs. */
        const int keep = pl->anytime ? pl->ncosted : 0;
        double *c = realloc(keep > 0 ? pl->costs : (free(pl->costs), NULL), (size_t)pl->nsolutions * sizeof(double));
        pl->costs = c;
        if (!c) {
            tpLog(TP_LOG_ERROR, "planner: out of memory");
            status = TP_PLAN_ERROR;
            pl->nsolutions = 0;
            pl->ncosted = 0;
        } else {
            for (int s = keep; s < pl->nsolutions; ++s) {
                pl->costs[s] = NAN;
            }
        }
    }
    if (status != TP_PLAN_ERROR && !choose_best(pl)) {
        status = TP_PLAN_ERROR;
    }
    if (status == TP_PLAN_ERROR) {
        r->best = -1;
        r->best_solution = -1;
    } else {
        status = pl->nsolutions > 0 ? TP_PLAN_SOLVED : TP_PLAN_APPROXIMATE;
    }
    r->status = status;
    r->nsolutions = pl->nsolutions;
    r->solutions = pl->solutions;
    r->costs = pl->costs;
    r->solution_iters = pl->sol_iters;
    r->stats.nodes = pl->tree->count;
    r->stats.solutions = pl->nsolutions;
    double now = tpClock_Now();
    r->stats.t_total = now - t_start;
    r->stats.elapsed = now - t_start;
}

/* Dead ends (BK-BGT and, since the hard-problems audit, BK-RRT): node src made an invalid child (ok false) or a
 * valid one; after def.dead_end invalid ones in a row it is retired (tpTree_Retire). Where the
 * count cannot be kept (out of memory) the search goes on without retiring, as the paper's. */
static void note_expansion(tpPlanner *pl, int32_t src, bool ok)
{
    if (pl->def.dead_end <= 0 || src < 0) {
        return;
    }
    if (src >= pl->fails_cap) {
        int32_t cap = pl->fails_cap > 0 ? pl->fails_cap : 1024;
        while (cap <= src) {
            cap *= 2;
        }
        uint8_t *f = realloc(pl->fails, (size_t)cap);
        if (!f) {
            return;
        }
        memset(f + pl->fails_cap, 0, (size_t)(cap - pl->fails_cap));
        pl->fails = f;
        pl->fails_cap = cap;
    }
    if (ok) {
        pl->fails[src] = 0;
    } else if (++pl->fails[src] >= pl->def.dead_end && tpTree_Node(pl->tree, src)->slot >= 0) {
        tpTree_Retire(pl->tree, src);
        pl->result.stats.dead_ends++;
    }
}

/* Starts a search: seeds the RNG, adds the root. False when the root cannot be added. */
static bool loop_begin(tpPlanner *pl)
{
    tpLoop *lp = &pl->loop;
    const tpProblem *p = &pl->prob;
    memset(lp, 0, sizeof *lp);
    lp->begun = true;
    lp->status = TP_PLAN_APPROXIMATE;
    lp->last = -1;
    lp->chain = -1;
    lp->t_start = tpClock_Now();
    tpPlanStats *st = &pl->result.stats;
    memset(st, 0, sizeof *st);
    st->t_first = NAN;
    st->nodes_first = -1;
    tpRng_Seed(&pl->rng, pl->def.seed);
    pl->nnear = 0;
    if (pl->def.near_miss > 0.0) {
        pl->tape = (tpRngTape){.rec = pl->rec, .cap = TP_NEAR_MISS_DRAWS};
        pl->rng.tape = &pl->tape;
    }
    if (!add_root(pl)) {
        lp->status = TP_PLAN_ERROR;
        lp->done = true;
        return false;
    }
    /* The five intervals of an iteration are timed in ticks (tpClock_Ticks: 12 ns a read where
       there is a time-stamp counter, against 25-40 ns for clock_gettime on this project's virtual
       machines, where five reads an iteration were 4 % of a light domain's run) and converted to
       seconds with the ratio of the two clocks over the loop (tickSeconds). The wall clock is
       read every TP_WALL_EVERY iterations, for the time limit and the progress report (every
       iteration in an anytime search: its deadline is hard). */
    lp->next_progress = lp->t_start + pl->def.progress_interval;
    lp->search0 = p->search_seconds ? p->search_seconds(p->ctx) : 0.0;
    lp->c_loop = tpClock_Now();
    lp->k_loop = tpClock_Ticks();
    lp->t_wall_prev = lp->t_start;
    return true;
}

/* Values (unrest, quality) of the nodes not valued yet (an anytime search's cache, so that
 * reading its best plan costs no callback per node). False on a callback error. */
static bool value_nodes(tpPlanner *pl)
{
    tpTree *tree = pl->tree;
    if (tree->count > pl->values_cap) {
        int32_t cap = pl->values_cap > 0 ? pl->values_cap : 1024;
        while (cap < tree->count) {
            cap = cap > INT32_MAX / 2 ? INT32_MAX : cap * 2;
        }
        double *u = realloc(pl->u, (size_t)cap * sizeof *u);
        if (u) {
            pl->u = u;
        }
        double *q = realloc(pl->q, (size_t)cap * sizeof *q);
        if (q) {
            pl->q = q;
        }
        int8_t *l = realloc(pl->exact_of, (size_t)cap);
        if (l) {
            pl->exact_of = l;
        }
        if (!u || !q || !l) {
            tpLog(TP_LOG_ERROR, "planner: out of memory");
            return false;
        }
        pl->values_cap = cap;
    }
    for (; pl->nvalued < tree->count; ++pl->nvalued) {
        const int32_t i = pl->nvalued;
        pl->exact_of[i] = 0; /* not asked yet */
        if (!value_node(pl, i, &pl->u[i], &pl->q[i])) {
            return false;
        }
    }
    return true;
}

/* Near misses: starts an iteration that selects a node. With probability def.near_miss (and a near
 * miss kept), the node to expand is the start of one of the kept chains, drawn uniformly, and the
 * tape plays that chain's draws back moved by a log-uniform sigma; else -1 (select as usual). The
 * tape then records from here. */
static int32_t near_pick(tpPlanner *pl)
{
    tpRngTape *t = &pl->tape;
    t->play = NULL;
    t->nplay = 0;
    t->pos = 0;
    int32_t src = -1;
    if (pl->nnear > 0 && tpRng_Res53(&pl->rng) < pl->def.near_miss) {
        const int i = (int)tpRng_Below(&pl->rng, (uint32_t)pl->nnear);
        NearMiss *m = &pl->near[i];
        if (tpTree_Node(pl->tree, m->src)->slot < 0) { /* retired since: forgotten */
            memmove(m, m + 1, (size_t)(pl->nnear - i - 1) * sizeof *m);
            pl->nnear--;
        } else {
            const double lo = log(TP_NEAR_MISS_SIGMA_LO), hi = log(TP_NEAR_MISS_SIGMA_HI);
            t->sigma = exp(lo + (hi - lo) * tpRng_Res53(&pl->rng));
            t->play = m->draws; /* read until the chain ends, before near_note can move it */
            t->nplay = m->n;
            src = m->src;
            pl->result.stats.near_miss_iters++;
        }
    }
    t->nrec = 0;
    return src;
}

/* Near misses: a chain from src ended at a valid node that is no goal, of quality q: kept if it
 * is among the TP_NEAR_MISS_KEEP best (strictly better than the last kept when they are full). */
static void near_note(tpPlanner *pl, int32_t src, double q)
{
    int i = pl->nnear < TP_NEAR_MISS_KEEP ? pl->nnear : TP_NEAR_MISS_KEEP - 1;
    if (pl->nnear == TP_NEAR_MISS_KEEP && !(q < pl->near[i].q)) {
        return;
    }
    for (; i > 0 && q < pl->near[i - 1].q; --i) {
        pl->near[i] = pl->near[i - 1];
    }
    NearMiss *m = &pl->near[i];
    m->q = q;
    m->src = src;
    m->n = pl->tape.nrec;
    memcpy(m->draws, pl->rec, (size_t)m->n * sizeof *m->draws);
    if (pl->nnear < TP_NEAR_MISS_KEEP) {
        pl->nnear++;
    }
}

/* The loop of Algorithm 2 from where it stopped, until iteration iter_end (<= max_iters) or the
 * wall clock reaches deadline (s of tpClock_Now; INFINITY: none). Sets pl->loop.done when the
 * search cannot go on (its K solutions, nothing selectable, its memory bound, an error). */
static void search_loop(tpPlanner *pl, int64_t iter_end, double deadline)
{
    tpLoop *lp = &pl->loop;
    tpTree *tree = pl->tree;
    const tpProblem *p = &pl->prob;
    void *ctx = p->ctx;
    const tpPlannerDef *def = &pl->def;
    tpPlanStats *st = &pl->result.stats;
    const bool rrt = tree->mode == TP_SEL_RRT;
    const size_t state_bytes = p->state_bytes;
    const size_t action_bytes = (size_t)p->action_dim * sizeof(double);
    const double time_limit = def->time_limit;
    const double t_start = lp->t_start;
    const double progress_interval = def->progress_interval;
    double (*distance)(void *, const double *, const double *) = p->distance;
    double *y = pl->y;
    const bool anytime = pl->anytime;
    const bool near_on = def->near_miss > 0.0;

    bool busy = lp->busy;
    int32_t last = lp->last; /* the previous iteration's new node (busy continuation source) */
    int32_t chain = lp->chain;
    LoopTicks k = lp->k;
    uint64_t k0 = tpClock_Ticks();
    const int64_t wall_mask_fast = anytime || (def->progress && !(progress_interval > 0.0)) ? 0 : TP_WALL_EVERY - 1;
    /* Slow iterations (a scene of 100,000 bodies: over a second each) read the clock at every
       iteration, so that the time limit is not passed by 15 of them; the clock's cost is then
       nothing beside an iteration. Only when the limit is checked changes, never the search. The
       first iterations read it until one is measured. */
    int64_t wall_mask = anytime ? 0 : lp->wall_mask;
    int64_t iter = lp->iter;
    tpPlanStatus status = lp->status;
    bool done = lp->done || pl->nsolutions >= def->solutions; /* a re-root may keep K solutions */

    for (; !done && iter < iter_end; ++iter) {
        double t0 = 0.0; /* s, wall clock: read every TP_WALL_EVERY iterations (every one for
                            a progress report asked for at every iteration, or an anytime search) */
        if ((iter & wall_mask) == 0) {
            t0 = tpClock_Now();
            if (iter > lp->iter_wall_prev) {
                wall_mask = (t0 - lp->t_wall_prev) > 1e-4 * (double)(iter - lp->iter_wall_prev) ? 0 : wall_mask_fast;
                lp->t_wall_prev = t0;
                lp->iter_wall_prev = iter;
            }
            if ((time_limit > 0.0 && t0 - t_start >= time_limit) || t0 >= deadline) {
                break;
            }
        }
        if (def->iteration_bound && iter >= def->iteration_bound(def->iteration_bound_user)) {
            break; /* another worker's solution needed fewer iterations (docs/parallel.md), or a cancel */
        }
        if (def->memory_limit > 0 && tpTree_MemoryBytes(tree) + tpNnIndex_Bytes(pl->nn) >= def->memory_limit) {
            st->memory_limited = true; /* the search's memory bound: stop with what was found */
            done = true;
            break;
        }
        if (def->progress && t0 > 0.0 && t0 >= lp->next_progress) {
            st->iterations = iter;
            st->nodes = tree->count;
            st->solutions = pl->nsolutions;
            storeTimes(st, &k, tickSeconds(lp->c_loop, lp->k_loop, t0, k0),
                       p->search_seconds ? p->search_seconds(p->ctx) - lp->search0 : 0.0);
            st->elapsed = t0 - t_start;
            def->progress(def->progress_user, st);
            lp->next_progress = tpClock_Now() + progress_interval;
            k0 = tpClock_Ticks(); /* the report's own time is in no interval */
        }

        /* --- selection --- */
        int32_t src;
        const bool selected = !busy; /* a busy continuation's source is not selectable anyway */
        if (busy) {
            src = last;
        } else {
            const int32_t near = near_on ? near_pick(pl) : -1;
            if (p->sample) {
                p->sample(ctx, &pl->rng, y);
            }
            if (rrt && p->sample_key) {
                p->sample_key(ctx, &pl->rng, y);
            }
            src = near >= 0 ? near
                  : rrt     ? tpTree_SelectNearest(tree, pl->nn, y, distance, ctx)
                            : tpTree_SelectBgt(tree, def->mu, &pl->rng);
            if (src < 0) {
                done = true;
                break; /* every node is busy, a goal or retired: nothing left to expand */
            }
            chain = src;
        }
        const int32_t slot = tpTree_Prepare(tree);
        if (slot < 0) {
            /* the tree could not grow (a process memory limit): the tree is intact, so the run
               ends with what it found, as at a memory_limit */
            tpLog(TP_LOG_WARN, "planner: out of memory after %lld nodes: stopping with what was found",
                  (long long)tree->count);
            st->memory_limited = true;
            done = true;
            break;
        }
        const void *x = tpTree_StateMut(tree, src);
        void *xnew = tpTree_StateMut(tree, slot);
        double *a = tpTree_ActionMut(tree, slot);
        const uint64_t k1 = tpClock_Ticks();
        k.select += tickSpan(k0, k1);

        /* --- tactics: xnew <- x; a <- 0; control --- */
        memcpy(xnew, x, state_bytes);
        memset(a, 0, action_bytes);
        const uint64_t k1c = tpClock_Ticks();
        k.copy += tickSpan(k1, k1c);
        int b_and = p->control(ctx, x, y, &pl->rng, xnew, a);
        const uint64_t k2 = tpClock_Ticks();
        k.tactics += tickSpan(k1c, k2);
        if (b_and == TP_CB_ERROR) {
            status = TP_PLAN_ERROR;
            break;
        }

        /* --- physics --- */
        int rc = p->simulate(ctx, x, a, xnew);
        const uint64_t k3 = tpClock_Ticks();
        k.physics += tickSpan(k2, k3);
        if (rc == TP_CB_ERROR) {
            status = TP_PLAN_ERROR;
            break;
        }

        /* --- checks (a state simulate refused is invalid without asking) --- */
        int ok = rc == TP_CB_FALSE ? TP_CB_FALSE : p->valid ? p->valid(ctx, xnew) : TP_CB_TRUE;
        if (ok == TP_CB_ERROR) {
            status = TP_PLAN_ERROR;
            break;
        }
        /* BK-BGT counts the selected node's own child; BK-RRT the whole busy chain from it (issue
           39: the pile's throw is valid at its release and fails when the box lands out, steps
           later, so the node the RRT kept choosing never counted a failure) */
        if (selected && !rrt) {
            note_expansion(pl, src, ok != 0);
        } else if (rrt && !ok) {
            note_expansion(pl, chain, false);
        }
        bool stop = false;
        if (ok) {
            int g = p->goal(ctx, xnew);
            if (g == TP_CB_ERROR) {
                status = TP_PLAN_ERROR;
                break;
            }
            uint32_t flags = (b_and ? TP_NODE_BUSY : 0u) | (g ? TP_NODE_GOAL : 0u);
            if (rrt && (g || !b_and)) {
                note_expansion(pl, chain, true); /* the chain ended in a node that can be expanded */
            }
            /* Only selectable nodes need a key: the NN search never looks at the others. */
            if (rrt && !(flags & (TP_NODE_BUSY | TP_NODE_GOAL))) {
                p->key(ctx, xnew, tpTree_NextKey(tree));
            }
            tpTree_Commit(tree, src, flags);
            if (g) {
                busy = false;
                if (!push_solution(pl, slot, iter + 1, t_start)) {
                    tpLog(TP_LOG_ERROR, "planner: out of memory");
                    status = TP_PLAN_ERROR;
                    break;
                }
                stop = pl->nsolutions >= def->solutions;
            } else {
                busy = b_and != 0;
                last = slot;
                if (near_on && !busy) { /* a chain ended: a near miss? */
                    const double q = p->quality ? p->quality(ctx, xnew) : -(double)tree->nodes[slot].depth;
                    if (isnan(q)) {
                        status = TP_PLAN_ERROR; /* the message is in the problem's context */
                        break;
                    }
                    near_note(pl, chain, q);
                }
                int c = busy || def->coast_steps == 0 ? 0 : coast(pl, slot, iter + 1, t_start, deadline);
                if (c == TP_CB_ERROR) {
                    status = TP_PLAN_ERROR;
                    break;
                }
                stop = c == 1 && pl->nsolutions >= def->solutions;
            }
        } else {
            note_rejection(pl, rc == TP_CB_FALSE ? TP_REFUSED_BY_SIMULATE : TP_REFUSED_BY_VALID, xnew, iter + 1);
            busy = false;
        }
        if (anytime && !value_nodes(pl)) {
            status = TP_PLAN_ERROR;
            break;
        }
        k0 = tpClock_Ticks();
        k.check += tickSpan(k3, k0);
        if (stop) {
            ++iter;
            done = true;
            break;
        }
    }
    if (status == TP_PLAN_ERROR) {
        done = true;
    }
    if (iter >= def->max_iters) {
        done = true;
    }
    lp->busy = busy;
    lp->last = last;
    lp->chain = chain;
    lp->k = k;
    lp->wall_mask = wall_mask;
    lp->iter = iter;
    lp->status = status;
    lp->done = done;

    st->iterations = iter;
    st->mem_bytes = (int64_t)(tpTree_MemoryBytes(tree) + tpNnIndex_Bytes(pl->nn));
    storeTimes(st, &k, tickSeconds(lp->c_loop, lp->k_loop, tpClock_Now(), tpClock_Ticks()),
               p->search_seconds ? p->search_seconds(p->ctx) - lp->search0 : 0.0);
    if (status == TP_PLAN_ERROR) {
        /* The failed iteration still counts as executed. */
        st->iterations = iter + 1;
    }
}

tpPlanStatus tpPlanner_Run(tpPlanner *planner, tpPlanResult *result)
{
    tpPlanner *pl = planner;
    TP_ASSERT(pl); /* Release: TP_PLAN_ERROR */
    if (!pl) {
        return TP_PLAN_ERROR;
    }
    if (pl->ran || pl->loop.begun) {
        /* "Call once": a second call just reports the first run again. */
        if (result) {
            *result = pl->result;
        }
        return pl->result.status;
    }
    pl->ran = true;
    if (loop_begin(pl)) {
        search_loop(pl, pl->def.max_iters, INFINITY);
    }
    finish(pl, pl->loop.status, pl->loop.t_start);
    if (result) {
        *result = pl->result;
    }
    char why[256] = "";
    TP_INVARIANT(tpTree_Check(pl->tree, why, sizeof why)); /* debug and sanitizer builds: O(nodes) */
    TP_INVARIANT(!pl->nn || tpNnIndex_Check(pl->nn, pl->tree, why, sizeof why)); /* O(n log n) */
    return pl->result.status;
}

/* ------------------------------------------------------------------------------------------ */
/* Anytime search (tplan_search): the loop resumed call after call, re-rooted on observed states */

tpPlanStatus tpPlanner_Search(tpPlanner *pl, int64_t iterations, double deadline, bool *done)
{
    TP_ASSERT(pl && !pl->ran && iterations >= 0);
    if (!pl->loop.begun) {
        pl->anytime = true;
        tpTree_SetSmallPages(pl->tree, true);
        if (loop_begin(pl) && !value_nodes(pl)) {
            pl->loop.status = TP_PLAN_ERROR;
            pl->loop.done = true;
        }
    }
    const double t0 = tpClock_Now();
    const int64_t end = iterations < pl->def.max_iters - pl->loop.iter ? pl->loop.iter + iterations : pl->def.max_iters;
    search_loop(pl, end, deadline);
    pl->loop.seconds += tpClock_Now() - t0;
    if (done) {
        *done = pl->loop.done;
    }
    return pl->loop.status == TP_PLAN_ERROR ? TP_PLAN_ERROR : pl->nsolutions > 0 ? TP_PLAN_SOLVED : TP_PLAN_APPROXIMATE;
}

tpPlanStatus tpPlanner_Best(tpPlanner *pl, tpPlanResult *result)
{
    TP_ASSERT(pl && pl->anytime);
    tpPlanStatus status = pl->loop.status;
    if (status != TP_PLAN_ERROR && !value_nodes(pl)) {
        status = TP_PLAN_ERROR;
    }
    finish(pl, status, pl->loop.t_start);
    pl->result.stats.t_total = pl->loop.seconds; /* the time spent searching, not since the start */
    if (result) {
        *result = pl->result;
    }
    return pl->result.status;
}

int64_t tpPlanner_Iterations(const tpPlanner *pl)
{
    return pl ? pl->loop.iter : 0;
}

/* Node `keep`'s subtree of the tree becomes the tree, keep its root, rebuilt in place in the same
 * memory (no allocation but the index map: a re-root in a game's frame faults no page): nodes in
 * their order (parents first; node i moves to map[i] <= i, so a state is moved before its slot is
 * reused), with the selection lists, the retirements, the dead-end counts, the solutions and the
 * loop's busy continuation carried over. False when out of memory (the tree is then untouched). */
static bool keep_subtree(tpPlanner *pl, int32_t keep)
{
    tpTree *t = pl->tree;
    const int32_t n = t->count;
    int32_t *map = malloc((size_t)n * sizeof *map);
    int32_t kept = 0;
    for (int32_t i = 0; map && i < n; ++i) {
        const int32_t parent = t->nodes[i].parent;
        map[i] = i == keep ? 0 : (i > keep && parent >= 0 && map[parent] >= 0) ? ++kept : -1;
    }
    if (!map || !tpTree_Clear(t, n)) {
        free(map);
        return false;
    }
    const size_t sb = t->state_bytes, ab = (size_t)t->action_dim * sizeof(double);
    for (int32_t i = 0; i < n; ++i) {
        if (map[i] < 0) {
            continue;
        }
        const tpNode o = t->nodes[i]; /* read before any commit can write it (they write below i) */
        const int32_t slot = tpTree_Prepare(t);
        TP_INVARIANT(slot == map[i]); /* the memory is there: Prepare allocates nothing */
        if (slot != i) {
            memmove(tpTree_StateMut(t, slot), tpTree_StateMut(t, i), sb);
            memmove(tpTree_ActionMut(t, slot), tpTree_ActionMut(t, i), ab);
        }
        if (i == keep) {
            memset(tpTree_ActionMut(t, slot), 0, ab);
        }
        /* the root is selectable again whatever its skills were doing (a busy node is expanded by
           its continuation, which the new root no longer has) */
        const uint32_t flags = i == keep ? (o.flags & TP_NODE_GOAL) : o.flags;
        if (t->mode == TP_SEL_RRT && !(flags & (TP_NODE_BUSY | TP_NODE_GOAL))) {
            pl->prob.key(pl->prob.ctx, tpTree_StateMut(t, slot), tpTree_NextKey(t));
        }
        tpTree_Commit(t, i == keep ? -1 : map[o.parent], flags);
        if (!(flags & (TP_NODE_BUSY | TP_NODE_GOAL)) && o.slot < 0 && i != keep) {
            tpTree_Retire(t, slot); /* retired as a dead end before */
        }
        if (i < pl->fails_cap) {
            pl->fails[slot] = i == keep ? 0 : pl->fails[i];
        }
    }
    if (pl->fails_cap > t->count) {
        memset(pl->fails + t->count, 0, (size_t)(pl->fails_cap - t->count));
    }
    int ns = 0;
    for (int s = 0; s < pl->nsolutions; ++s) {
        if (map[pl->solutions[s]] >= 0) {
            pl->sol_iters[ns] = pl->sol_iters[s];
            pl->solutions[ns++] = map[pl->solutions[s]];
        }
    }
    pl->nsolutions = ns;
    tpLoop *lp = &pl->loop;
    lp->last = lp->last >= 0 && map[lp->last] > 0 ? map[lp->last] : -1;
    lp->chain = lp->chain >= 0 && map[lp->chain] >= 0 ? map[lp->chain] : -1;
    lp->busy = lp->busy && lp->last >= 0;
    free(map);
    return true;
}

bool tpPlanner_Reroot(tpPlanner *pl, int32_t keep)
{
    TP_ASSERT(pl && pl->anytime && keep < (pl->tree ? pl->tree->count : 0));
    tpLoop *lp = &pl->loop;
    if (keep >= 0) {
        if (!keep_subtree(pl, keep)) {
            return false;
        }
    } else {
        if (!tpTree_Clear(pl->tree, 1)) {
            return false;
        }
        if (pl->fails_cap > 0) {
            memset(pl->fails, 0, (size_t)pl->fails_cap);
        }
        pl->nsolutions = 0;
        lp->busy = false;
        lp->last = -1;
        lp->chain = -1;
        if (!add_root(pl)) { /* the problem's initial state: the caller set it to the observed one */
            return false;
        }
    }
    pl->nnear = 0; /* the near misses' nodes moved or are gone */
    /* the nearest-neighbour index is rebuilt from the new tree's keys as it is searched */
    if (pl->nn) {
        tpDestroyNnIndex(pl->nn);
        pl->nn = tpCreateNnIndex(pl->prob.key_dim);
    }
    /* the RNG goes on where it was: the same calls give the same searches. The iteration count,
       the limits (max_iters, memory) and the statistics start again; every value is asked again
       (the goal's comparisons with the start state changed with it) */
    pl->nvalued = 0;
    pl->ncosted = 0; /* the kept solutions' paths are shorter now */
    lp->iter = 0;
    lp->iter_wall_prev = 0;
    lp->done = false;
    lp->status = TP_PLAN_APPROXIMATE;
    tpPlanStats *st = &pl->result.stats;
    memset(st, 0, sizeof *st);
    st->t_first = NAN;
    st->nodes_first = -1;
    lp->k = (LoopTicks){0, 0, 0, 0, 0};
    lp->c_loop = tpClock_Now();
    lp->k_loop = tpClock_Ticks();
    lp->t_start = lp->c_loop;
    lp->seconds = 0;
    return value_nodes(pl);
}

bool tpPlanner_RecheckGoals(tpPlanner *pl)
{
    const tpProblem *p = &pl->prob;
    for (int32_t i = 0; i < pl->tree->count; ++i) {
        const int g = p->goal(p->ctx, tpTree_State(pl->tree, i));
        if (g < 0 || (g != 0) != ((pl->tree->nodes[i].flags & TP_NODE_GOAL) != 0)) {
            return false;
        }
    }
    return true;
}
