/* tplan core: the search tree and the BK-RRT / BK-BGT planners (Zickler & Veloso 2009, Sec. 5).
 *
 * The planner is generic over tpProblem, a narrow interface in the spirit of OMPL's
 * StatePropagator: it never sees ODE, Lua or tactics, only opaque fixed-size state blobs,
 * action vectors of doubles and a handful of callbacks. That keeps it testable on toy
 * problems with no physics at all (tests/core). */
#ifndef TP_PLANNER_H
#define TP_PLANNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tpTree tpTree;

/* ------------------------------------------------------------------------------------------ */
/* Problem interface                                                                           */

/// Callback results: callbacks that can fail (a Lua error, say) return TP_CB_ERROR and leave a
/// message in their context; the planner then stops with TP_PLAN_ERROR.
enum { TP_CB_FALSE = 0, TP_CB_TRUE = 1, TP_CB_ERROR = -1 };

/// Why a new state was rejected (tpPlanStats.reject): what the problem's `reject` callback
/// answers. The order is the order of reports; names in tpRejectKind_Name.
typedef enum {
    TP_REJECT_STATIC_PENETRATION = 0, /* a moving body sank into static geometry past the limit */
    TP_REJECT_BODY_PENETRATION,       /* two moving bodies overlapped past the limit */
    TP_REJECT_OUT_OF_RANGE,           /* a body's state, or the action, left its physical range */
    TP_REJECT_VALID,                  /* the problem's valid() refused the state */
    TP_REJECT_UNSPECIFIED,            /* no reason given (no `reject` callback, or an unknown kind) */
    TP_REJECT_KINDS
} tpRejectKind;

/// Which callback refused a new state (the `by` argument of tpProblem.reject).
typedef enum { TP_REFUSED_BY_SIMULATE = 0, TP_REFUSED_BY_VALID = 1 } tpRefusal;

#define TP_REJECT_TEXT_MAX 256 /* bytes of a rejection's description, with the NUL */
#define TP_NEAR_MISS_KEEP 8    /* near misses kept (tpPlannerDef.near_miss) */

/// "static_penetration", "body_penetration", "out_of_range", "valid", "unspecified" (the keys of
/// plan files' stats.rejections); NULL out of range.
const char *tpRejectKind_Name(tpRejectKind kind);
/// The same in words for people ("static penetration", ...); NULL out of range.
const char *tpRejectKind_Label(tpRejectKind kind);
/// The kind named `name` (tpRejectKind_Name), -1 if none.
int tpRejectKind_Find(const char *name);

/// How many nodes one approximate answer asks problem.unrest_exact of, at most (the physics is
/// asked: tpWorld_Supported per resting body).
#define TP_FALLBACK_CHECKS 256

/// The planning problem. All callbacks receive `ctx` first. State blobs are `state_bytes` long,
/// opaque to the planner, and copied with memcpy (no pointers inside them).
typedef struct tpProblem {
    void *ctx;             /* owned by the caller */
    size_t state_bytes;    /* size of one state blob x (bodies + tactic state + time) */
    int action_dim;        /* doubles per action a (0 allowed) */
    int sample_dim;        /* dims of a sample y from SampleRandomState (0 = no sampling space) */
    int key_dim;           /* dims of a node's nearest-neighbour key (BK-RRT); 0 = RRT unavailable */
    bool key_is_euclidean; /* distance(key, y) is Euclidean over the first key_dim dims of y:
                              allows a spatial index for NN (exact fallback otherwise) */

    /// Writes x_init.
    void (*initial_state)(void *ctx, void *x);
    /// SampleRandomState(Y): writes sample_dim doubles to y. NULL: y is all zeros.
    void (*sample)(void *ctx, tpRng *rng, double *y);
    /// BK-RRT only, right after sample: writes y[sample_dim .. key_dim), the part of the sample only
    /// the nearest-neighbour key compares (a key over several bodies, one draw each). BK-BGT never
    /// calls it, so its random stream does not depend on the key. NULL: nothing.
    void (*sample_key)(void *ctx, tpRng *rng, double *y);
    /// Projects a state onto its NN key (key_dim doubles). Called once per node and cached.
    void (*key)(void *ctx, const void *x, double *key);
    /// Distance from a node (given by its cached key) to a sample y. Need not be symmetric or
    /// metric. NULL with key_is_euclidean: plain Euclidean distance.
    double (*distance)(void *ctx, const double *key, const double *y);
    /// The Tactics half of one iteration (Algorithm 2, the loop over tactics): reads x and y,
    /// writes the non-physical part of xnew (tactic indices, skill variables, busy flags) and
    /// the action (zero-filled by the planner before the call). Returns TP_CB_TRUE when every
    /// active skill reports busy (b_and), TP_CB_FALSE otherwise, TP_CB_ERROR on failure.
    int (*control)(void *ctx, const void *x, const double *y, tpRng *rng, void *xnew, double *action);
    /// The physics half: Sim(x, a, dt). Writes the physical part of xnew (bodies and time).
    /// Must be a pure function of (x, action). Returns TP_CB_ERROR on failure, TP_CB_FALSE when
    /// xnew is not a usable state (the physics left its valid ranges: the node is rejected like
    /// an invalid one), else TP_CB_TRUE.
    int (*simulate)(void *ctx, const void *x, const double *action, void *xnew);
    /// x in X_valid? NULL: every state is valid. Called right after simulate on every new node.
    int (*valid)(void *ctx, const void *x);
    /// Why the simulate() (by = TP_REFUSED_BY_SIMULATE) or valid() (TP_REFUSED_BY_VALID) call just
    /// made refused xnew: called right after the refusing call, before any other callback. Returns
    /// a tpRejectKind (anything else counts as TP_REJECT_UNSPECIFIED). text is NULL, except for
    /// the first rejection of each kind in a run: then the problem also writes a one-line
    /// description of it (at most textlen bytes with the NUL; "" is allowed). So the common call
    /// must be cheap; the description may take its time. NULL: every rejection is unspecified.
    int (*reject)(void *ctx, int by, const void *xnew, char *text, size_t textlen);
    /// x in X_goal? Required.
    int (*goal)(void *ctx, const void *x);
    /// Quality of a non-goal node for the approximate answer: lower is better; NAN on a callback
    /// error (the planner stops with TP_PLAN_ERROR). NULL: the deepest node is returned. The root
    /// (a 0-step plan) is never the answer while another node has a better quality.
    double (*quality)(void *ctx, const void *x);
    /// How far a node is from rest, >= 0, 0 there; NAN on a callback error: a cheap lower bound of
    /// unrest_exact (the bodies' speeds alone). With it the approximate answer is judged at rest
    /// first (docs/lua-api.md#fallbacks): the node with the least exact unrest, quality breaking
    /// ties, then depth (the deeper); a node at rest when the search found one, else the closest
    /// to rest. NULL: quality first (then the nodes at a decision point, not TP_NODE_BUSY, then the
    /// deeper).
    double (*unrest)(void *ctx, const void *x);
    /// With unrest: the node's exact unrest, >= unrest(x): a body that rests on nothing (in the
    /// air: the apex of a throw, a body falling out of the scene) counts as far from rest
    /// whatever its speed. It asks the physics, so it is asked lazily: of the best node by the
    /// lower bounds until the best is exact, at most TP_FALLBACK_CHECKS nodes per answer (then the
    /// best of those asked). NAN on a callback error. NULL: unrest is exact.
    double (*unrest_exact)(void *ctx, const void *x);
    /// Whether node x may be the approximate answer (within the artist's shot: not shorter than
    /// its minimum length), TP_CB_TRUE/TP_CB_FALSE, TP_CB_ERROR on error. The answer is the best
    /// eligible node; when none is, the best of all. NULL: every node is eligible.
    int (*eligible)(void *ctx, const void *x);
    /// Cost of a solution (many-worlds selection): lower is better. `path` lists node indices
    /// root..goal (len entries). NULL: number of steps (len - 1). Returns NAN on error.
    double (*solution_cost)(void *ctx, const tpTree *tree, const int32_t *path, int len);
    /// Seconds that control() has spent so far inside the skills' own searches (the navigation
    /// planners: grids, A*, harmonic fields, local maps, move trees, space-time graphs): a
    /// running total, read at the start and the end of a run for tpPlanStats.t_search. NULL:
    /// none. Only reported; it never affects the search.
    double (*search_seconds)(void *ctx);
} tpProblem;

/* ------------------------------------------------------------------------------------------ */
/* Search tree                                                                                 */

/// Node flags.
enum {
    TP_NODE_BUSY = 1u << 0, /* b_and: every active skill was busy; never selected for expansion */
    TP_NODE_GOAL = 1u << 1, /* in X_goal; closed (not expanded again) */
};

/// One tree node. States, actions and keys live in chunked side arenas indexed the same way.
typedef struct tpNode {
    int32_t parent;    /* index of the parent, -1 for the root */
    int32_t depth;     /* steps from the root (the root has depth 0) */
    int32_t nchildren; /* number of children */
    int32_t slot;      /* planner-internal: index in its selection array, -1 if none */
    uint32_t flags;    /* TP_NODE_* */
} tpNode;

/// Number of nodes in the tree.
int32_t tpTree_Count(const tpTree *tree);
/// Node i (0 <= i < count). The pointer is valid until the tree grows.
const tpNode *tpTree_Node(const tpTree *tree, int32_t i);
/// State blob of node i (state_bytes long). Valid until the tree is destroyed (chunks never move).
const void *tpTree_State(const tpTree *tree, int32_t i);
/// Action that produced node i from its parent (action_dim doubles; zeros for the root).
const double *tpTree_Action(const tpTree *tree, int32_t i);
/// Writes the indices root..leaf into out (capacity cap) and returns the path length
/// (depth + 1). If cap is too small nothing is written and the needed length is returned.
int tpTree_Path(const tpTree *tree, int32_t leaf, int32_t *out, int cap);
/// Bytes of heap memory held by the tree (nodes, states, actions, keys, selection arrays).
/// BK-RRT's optional nearest-neighbour index belongs to the planner (tpPlanner_IndexBytes), so
/// recorded plans do not depend on tpPlannerDef.nn_index.
size_t tpTree_MemoryBytes(const tpTree *tree);

/* ------------------------------------------------------------------------------------------ */
/* Planner                                                                                     */

typedef enum { TP_PLANNER_BGT = 0, TP_PLANNER_RRT = 1 } tpPlannerKind;

/// Progress report for long runs (called from inside tpPlanner_Run).
typedef struct tpPlanStats tpPlanStats;
typedef void (*tpProgressFn)(void *user, const tpPlanStats *stats);

/// Planner definition. Get defaults from tpDefaultPlannerDef(); tpCreatePlanner copies it.
typedef struct tpPlannerDef {
    tpPlannerKind kind;       /* BK-BGT (default) or BK-RRT */
    double mu;                /* BGT: target AvgLeafDepth / AvgBranchingFactor; > 0. Default 1000 */
    int64_t max_iters;        /* z: maximum iterations; > 0. Default 50000 */
    double time_limit;        /* seconds of wall time; 0 = no limit. Checked every 16 iterations
                                 (the wall clock is read that often). Default 0 */
    int solutions;            /* K: keep planning until K solutions (many-worlds). Default 1 */
    uint32_t seed;            /* seeds the run's MT19937 (init_genrand). Default 1 */
    tpProgressFn progress;    /* may be NULL */
    void *progress_user;      /* passed to progress */
    double progress_interval; /* seconds between progress calls, checked every 16 iterations;
                                 0 = after every iteration. Default 0.25 */
    bool nn_index;            /* BK-RRT with a plain Euclidean distance (key_is_euclidean and no
                                 distance callback): use the exact spatial index for the nearest
                                 neighbour. Same selections, hence the same plan, either way;
                                 false = linear scan (for measurements). Default true */
    /* OR-parallel search (tplan plan --jobs, docs/parallel.md): a bound on the iterations that may
       shrink while the run goes on (another worker found a solution). Called before every
       iteration with iteration_bound_user; the run stops, as at max_iters, before iteration n
       (1-based) when n > the value returned. It only ever cuts a run short, so a run it does not
       stop is exactly the run without it. NULL (the default): no bound. */
    int64_t (*iteration_bound)(void *user);
    void *iteration_bound_user;
    size_t memory_limit; /* bytes the search may hold (the tree and the nearest-neighbour index,
                            as tpTree_MemoryBytes + tpPlanner_IndexBytes); 0 = no limit. Checked
                            before every iteration: once reached, the run stops as at max_iters,
                            with what it found (solved, or approximate: the best node), and
                            stats.memory_limited is set. The same bound gives the same stop, so
                            the plan is deterministic. Default 0 */
    int dead_end;        /* BK-BGT and BK-RRT: a node whose last dead_end expansions in a row all made
                            invalid states (a die pair that overlaps whatever the action, a crowd falling
                            into the same collision, a pile whose next box always slides out) is retired:
                            never selected again, so the search branches from the rest of the tree
                            instead of spending its iterations there (BK-RRT: its key's region goes to
                            the nearest live node). 0 = never (the paper's planners); 0..255.
                            Deterministic: a function of the run. Default 8 */
    int coast_steps;     /* where a skill's segment ends (a decision point that is no goal), up to this many
                            steps of zero action are simulated and the goal tested at each: when it holds,
                            those steps join the tree as busy nodes ending in the goal (a ball still rolling
                            when its stroke's segment ended comes to rest a few steps later: the hard-problems audit's
                            goals the planner stepped over); else nothing is kept. 0 = off; 0..100000.
                            Default 0 */
    double near_miss;    /* near misses (docs/architecture.md "Near misses"): the probability, 0..1, that an
                            iteration which would select a node re-expands instead the start of one of the
                            TP_NEAR_MISS_KEEP best chains so far (by quality: the valid, non-goal nodes where a
                            chain of busy nodes ended), its random draws given back moved by a small
                            amount, so its skills sample near that chain's parameters. 0 = off (the
                            planners as before, plan for plan). Default 0 */
} tpPlannerDef;

/// Default planner definition (see field comments).
tpPlannerDef tpDefaultPlannerDef(void);

typedef enum {
    TP_PLAN_SOLVED = 0,      /* at least one goal node found */
    TP_PLAN_APPROXIMATE = 1, /* no goal node within the limits: the fallback's best node */
    TP_PLAN_ERROR = 2,       /* a callback failed (see the problem's own error message) */
} tpPlanStatus;

/// Rejections of one kind in a run, with the first one described.
typedef struct tpRejectStat {
    int64_t count;                  /* new states rejected for this reason */
    int64_t iteration;              /* 1-based iteration of the first of them; 0 when count == 0 */
    char first[TP_REJECT_TEXT_MAX]; /* the problem's description of the first ("" if none) */
} tpRejectStat;

/// Statistics of one run. Times are wall-clock seconds (the breakdown of the paper's Fig. 13).
struct tpPlanStats {
    int64_t iterations;      /* loop iterations executed */
    int64_t nodes;           /* nodes in the tree (including the root) */
    int64_t rejected;        /* new states outside X_valid (not added): the sum of reject[].count */
    int64_t dead_ends;       /* nodes retired after tpPlannerDef.dead_end invalid children in a row */
    int64_t near_miss_iters; /* iterations that re-expanded a near miss (tpPlannerDef.near_miss) */
    int64_t coast_solutions; /* solutions found by the coast after a segment (tpPlannerDef.coast_steps) */
    int solutions;           /* goal nodes found */
    double t_select;         /* node selection (NN / BGT selection, sampling y) */
    double t_copy;           /* the copy of the source state into the new node before control() (and
                                the action's zeroing): memory-bound, the source being any old node */
    double t_tactics;        /* control(): tactics and skills */
    double t_search;         /* the part of t_tactics spent in the skills' own searches
                                (tpProblem.search_seconds; 0 without it) */
    double t_physics;        /* simulate(): the physics engine */
    double t_check;          /* valid(), goal(), key() on new nodes */
    double t_total;          /* the whole run */
    double t_first;          /* s from the start to the first solution (the time the paper's Table 1
                                reports: its planners stop there); NAN when none was found */
    int64_t nodes_first;     /* nodes in the tree when the first solution was found; -1 when none */
    double elapsed;          /* seconds since the start (for progress reports) */
    bool memory_limited;     /* the run stopped at memory_limit, or because the tree could not grow
                                (an allocation failed: the run keeps what it found) */
    int64_t mem_bytes;       /* the search's bytes when the run stopped (tree + index) */

    tpRejectStat reject[TP_REJECT_KINDS]; /* the rejections by reason (tpProblem.reject) */
};

/// Result of a run; arrays are owned by the planner and valid until it is destroyed.
typedef struct tpPlanResult {
    tpPlanStatus status;
    int32_t best;   /* selected solution leaf, or best approximate node */
    int nsolutions; /* goal leaves found, in the order found */
    const int32_t *solutions;
    const double *costs;           /* cost of each solution (solution_cost or steps) */
    const int64_t *solution_iters; /* iterations executed when each solution was found (1-based:
                                      the iteration that found it); for the OR-parallel merge */
    int best_solution;             /* index into solutions of the selected one, -1 if none */
    tpPlanStats stats;
} tpPlanResult;

typedef struct tpPlanner tpPlanner;

/// Creates a planner for `problem` (copied; problem->ctx must outlive the planner). Returns
/// NULL and writes a message to err when the definition is invalid (mu <= 0, max_iters <= 0,
/// RRT requested with key_dim == 0, missing goal/control/simulate callbacks).
tpPlanner *tpCreatePlanner(const tpPlannerDef *def, const tpProblem *problem, char *err, size_t errlen);
/// Runs the search (Algorithm 2 with the selection of Sec. 5 / Algorithm 3). Call once.
tpPlanStatus tpPlanner_Run(tpPlanner *planner, tpPlanResult *result);
/// The search tree (valid until the planner is destroyed).
const tpTree *tpPlanner_Tree(const tpPlanner *planner);
/// Bytes held by the nearest-neighbour index (0 when none is used).
size_t tpPlanner_IndexBytes(const tpPlanner *planner);
/// An anytime search (tplan_search, docs/embedding.md): instead of tpPlanner_Run, call this as many
/// times as wanted. Each call resumes the loop where the last one stopped (the first adds the
/// root) and runs at most `iterations` more (>= 0), stopping before an iteration once the wall
/// clock (tpClock_Now) reaches `deadline` (s; INFINITY: none), which is read before every
/// iteration and between the coast's steps. Iteration budgets alone make it deterministic: the
/// same sequence of budgets gives the same tree, and so does any split of the same total (the
/// loop's state is kept whole between calls). *done (may be NULL) says the search cannot go on
/// (its K solutions, nothing selectable, max_iters or memory_limit since the last re-root, an
/// error). Nodes are valued (quality, unrest) as they are made, so tpPlanner_Best costs no
/// callback per node. Returns TP_PLAN_SOLVED once a solution is in the tree, TP_PLAN_ERROR on a
/// callback error, else TP_PLAN_APPROXIMATE.
tpPlanStatus tpPlanner_Search(tpPlanner *planner, int64_t iterations, double deadline, bool *done);
/// The best plan of an anytime search so far, as tpPlanner_Run would report it after the same
/// iterations: the selected solution or the approximate answer (result's arrays valid until the
/// next call on the planner). stats.t_total is the time spent in tpPlanner_Search.
tpPlanStatus tpPlanner_Best(tpPlanner *planner, tpPlanResult *result);
/// Iterations an anytime search ran since its start or last re-root.
int64_t tpPlanner_Iterations(const tpPlanner *planner);
/// Receding horizon: re-roots an anytime search. keep >= 0: node keep's subtree becomes the tree
/// (its root keep, selectable again; retirements, dead-end counts and the solutions inside it
/// kept); keep < 0: a new tree whose root is problem.initial_state (the caller changed what it
/// writes). The RNG stream goes on (it is not reseeded); the iteration count, the limits and the
/// statistics start again, and every node is valued again. False when out of memory.
bool tpPlanner_Reroot(tpPlanner *planner, int32_t keep);
/// Whether every node's goal flag still agrees with problem.goal (after a change of what the goal
/// compares with): false on the first disagreement or a callback error.
bool tpPlanner_RecheckGoals(tpPlanner *planner);
/// Frees the planner, its tree and result arrays. NULL is allowed.
void tpDestroyPlanner(tpPlanner *planner);

#ifdef __cplusplus
}
#endif
#endif
