/* tplan tactics: Tactics <S, Π, σ_init>, the transition function G (Algorithm 1), goal and
 * validity conditions, and tpDomain: the planning problem that the core planner runs
 * (state layout, control = tactics + skills, simulate = physics, recording and replay). */
#ifndef TP_TACTICS_H
#define TP_TACTICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp/plan.h"
#include "tp/planner.h"
#include "tp/physics.h"
#include "tp/skills.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_MAX_SAMPLE_DIMS 8

/* ------------------------------------------------------------------------------------------ */
/* Transition function G                                                                       */

/// Algorithm 1: given the k transition probabilities Π(σ, j, x) for j = 0..k-1 (all >= 0),
/// draws rndVal in [0, max(1, probSum)) and returns the first j whose running sum exceeds it,
/// or σ (stay) when none does or probSum == 0.
int tpTactic_G(const double *probs, int k, int sigma, tpRng *rng);

/// A read-only view of a planning state handed to host callbacks (Lua).
typedef struct tpStateView {
    const tpWorld *world;
    const tpBodyState *bodies; /* stored states (tpWorld_StateSlot order) */
    double t;                  /* s */
    const int32_t *memory;     /* the temporal conditions' memory (tpCond.mem slots: progress of a
                                  sequence, the sticky flags of ever/never/within_time/at_time) as
                                  the state carries it; NULL for a domain without them */
} tpStateView;

/// Dynamic Π row: writes probs[0..k-1] = Π(sigma, j, x). Returns 0, or -1 on error (the host
/// keeps its message; see tpDomain_Error).
typedef int (*tpPiFn)(void *user, int tactic, int sigma, const tpStateView *x, double *probs);

/// Tactic definition. tpCreateDomain deep-copies it.
typedef struct tpTacticDef {
    char name[TP_NAME_MAX];
    int body;     /* body the tactic drives (informational; skills name their bodies) */
    bool foreign; /* a deterministic prediction model for a foreign body: its busy flag
                     does not count toward b_and (it never marks a decision point) */
    int nskills;  /* k >= 1 */
    const tpSkillDef *skills;
    const double *pi;       /* k*k row-major Π(σ, σ') constants; NULL if pi_fn covers all rows */
    const bool *pi_dynamic; /* k flags: row σ comes from pi_fn (NULL: none) */
    tpPiFn pi_fn;
    void *pi_user;
    int initial; /* σ_init: the skill active in the initial state. It runs first (G is
                    first applied when it is no longer busy), so a tactic
                    wait -> drive -> kick starts by waiting. */
} tpTacticDef;

/* ------------------------------------------------------------------------------------------ */
/* Conditions: X_goal and X_valid as data, evaluated in C on every new node                    */

typedef enum {
    TP_COND_TRUE = 0,
    TP_COND_IN_CIRCLE,   /* body's xy within `radius` of centre xy */
    TP_COND_IN_SPHERE,   /* body's xyz within `radius` of centre */
    TP_COND_IN_BOX,      /* lo <= body position <= hi (per axis) */
    TP_COND_SPEED_BELOW, /* |linear velocity| < value */
    TP_COND_SPEED_ABOVE, /* |linear velocity| > value */
    TP_COND_NEAR,        /* distance between body and other centres < value */
    TP_COND_TOUCHING,    /* body and other touched in the last step (contact pair) */
    TP_COND_MOVED,       /* body's position differs from its initial one by more than value, or its
                            speed exceeds value (m, m/s) */
    TP_COND_AND,
    TP_COND_OR,
    TP_COND_NOT,
    TP_COND_CALLBACK, /* host function */
    TP_COND_ARRANGED, /* at least `fraction` of the `targets` bodies are within `radius` of their own target
                         points (planar for target_dim 2) and, if value > 0, slower than value (m/s) */
    TP_COND_HEADING,  /* body's planar speed > value (m/s) and its planar velocity points within radius (rad)
                         of the direction from the body to centre xy */
    TP_COND_UPRIGHT,  /* the body's local axis `center` (unit vector, body frame) is within radius (rad) of
                         world +z */
    TP_COND_TILTED,   /* the body's local axis `center` is more than radius (rad) away from world +z */
    TP_COND_SETTLED,  /* every `targets` body has |velocity| < value (m/s, unchecked if infinite) and
                         |angular velocity| < angular (rad/s, unchecked if infinite) */
    /* Temporal conditions (docs/lua-api.md "Conditions over time"): their value is read from the
       state's memory (tpStateView.memory[mem]), which tpCond_Observe updates at every physics step
       from the step's state: the planner's every new node, busy ones included, and every replayed
       step. The start state is not observed. */
    TP_COND_SEQUENCE,    /* children held in order, each at a step strictly after the previous one's;
                            memory: how many have (0..nchildren); true once all have */
    TP_COND_EVER,        /* children[0] held at some observed step; memory 0/1 */
    TP_COND_NEVER,       /* children[0] held at no observed step (so far); memory 0/1 (as EVER) */
    TP_COND_WITHIN_TIME, /* children[0] held at some observed step with t0 <= t <= t1 (s); memory 0/1 */
    TP_COND_AT_TIME,     /* children[0] held at the first observed step with t >= t0 (s); memory 0
                            before it, 1 held, 2 did not */
} tpCondKind;

#define TP_COND_KIND_COUNT (TP_COND_AT_TIME + 1)
#define TP_COND_TIME_EPS 1e-9   /* s: time windows are widened by this for the roundoff of t + dt sums */
#define TP_COND_MAX_MEMORY 4096 /* temporal conditions a domain's goal and valid conditions hold together */

typedef int (*tpCondFn)(void *user, int id, const tpStateView *x); /* 1 true, 0 false, -1 error */

/// A condition tree node. Built with tpCreateCond; a parent owns its children.
typedef struct tpCond {
    tpCondKind kind;
    int body, other;     /* body indices (-1 unused) */
    double center[3];    /* m */
    double radius;       /* m */
    double lo[3], hi[3]; /* m */
    double value;        /* m/s or m (see kinds) */
    int nchildren;
    struct tpCond **children;
    tpCondFn fn;
    void *user;
    int id;
    int ntargets;          /* ARRANGED: bodies and their target points (owned arrays) */
    int *target_bodies;    /* ntargets body indices */
    double *target_points; /* 3 per target, m */
    int target_dim;        /* 2: planar distance, 3: 3D distance */
    double fraction;       /* ARRANGED: in (0, 1] */
    double angular;        /* SETTLED: rad/s */
    double t0, t1;         /* WITHIN_TIME: the window [t0, t1]; AT_TIME: the time t0 (s) */
    int mem;               /* temporal kinds: their memory slot (tpCond_AssignMemory), -1 before */
    char label[160];       /* how the host's script wrote it, for reports of rejected states (e.g.
                              "tp.inside 'box' (stack.lua:12)", "function (stack.lua:30)"); "":
                              a generic name from the kind and the bodies */
} tpCond;

/// Allocates a zeroed condition of the given kind (body = other = -1).
tpCond *tpCreateCond(tpCondKind kind);
/// Appends child to an AND/OR/NOT node (takes ownership). Returns false on allocation failure.
bool tpCond_Add(tpCond *parent, tpCond *child);
/// Frees a condition tree. NULL is allowed.
void tpDestroyCond(tpCond *cond);
/// A deep copy of a condition tree (children and target arrays; fn and user are shared), NULL
/// when cond is NULL or out of memory. Free it with tpDestroyCond.
tpCond *tpCond_Copy(const tpCond *cond);
/// ARRANGED, SETTLED: copies n body indices and n target points (3 doubles each; z ignored when dim == 2).
bool tpCond_SetTargets(tpCond *cond, int n, const int *bodies, const double *points, int dim);
/// Whether the tree holds a temporal condition (SEQUENCE ... AT_TIME). cond may be NULL.
bool tpCond_IsTemporal(const tpCond *cond);
/// Numbers the tree's temporal nodes' memory slots (tpCond.mem) from *next on, in tree order
/// (pre-order), advancing *next. cond may be NULL.
void tpCond_AssignMemory(tpCond *cond, int *next);
/// Updates the memory of every temporal node of the tree (mem: the state's slots, read and written)
/// from the state v just made by a physics step (its time, bodies and the world's contacts of that
/// step), children before parents, so that a temporal condition nested in another is up to date
/// when the outer one reads it. v->memory must be mem. Returns 0, or -1 on a host error.
int tpCond_Observe(const tpCond *cond, const tpStateView *v, const tpBodyState *initial_all, int32_t *mem);
/// The temporal nodes of a tree in slot order: calls fn(user, node) for each. cond may be NULL.
void tpCond_EachTemporal(const tpCond *cond, void (*fn)(void *user, const tpCond *node), void *user);
/// ARRANGED: the fraction of its bodies that are on target in x (0..1).
double tpCond_ArrangedFraction(const tpCond *cond, const tpStateView *x);
/// Whether the condition asks for rest: it is a SETTLED condition or an AND with one among its
/// operands (through nested ANDs; not under OR or NOT). cond may be NULL (false).
bool tpCond_RequiresRest(const tpCond *cond);
/// How far x is from the rest that cond asks for (its SETTLED conditions as tpCond_RequiresRest
/// finds them), dimensionless: summed over their bodies, 0 for a body below both its limits, else
/// the larger of |v| / speed and |w| / angular (at least 1). 0 exactly when every one of them
/// holds; 0 for a condition that asks for no rest. cond may be NULL.
double tpCond_Unrest(const tpCond *cond, const tpStateView *x);
/// The spatial leaves of a goal condition as plan goal regions (the member "goal" of a plan file),
/// in tree order, at most cap into out: IN_CIRCLE and IN_SPHERE as a circle or sphere, IN_BOX as a
/// box (bounds beyond TP_MAX_COORD unbounded), ARRANGED as one circle or sphere per body, through
/// AND and OR; nothing under NOT nor for the other kinds, nor for leaves a plan cannot record
/// (tpPlanGoalRegion_Valid for nbodies bodies). Returns the number written. cond may be NULL.
int tpCond_GoalRegions(const tpCond *cond, int nbodies, tpPlanGoalRegion *out, int cap);

/* ------------------------------------------------------------------------------------------ */
/* Metrics                                                                                     */

typedef enum {
    TP_METRIC_DEFAULT = 0, /* quality: deepest node; solution: number of steps */
    TP_METRIC_DISTANCE,    /* distance of `body` to `point` at the node (quality) or at the end */
    TP_METRIC_STEPS,       /* number of steps */
    TP_METRIC_EFFORT,      /* sum over steps of |force| * dt of the controlled bodies listed in
                              `bodies` (all controlled bodies when nbodies == 0), N·s */
    TP_METRIC_CALLBACK,    /* host function */
    TP_METRIC_ARRANGED,    /* 1 - the on-target fraction of an ARRANGED condition `cond` (quality: at the node;
                              solution and report: at the end) */
    TP_METRIC_PEAK_FORCE,  /* largest |force| / (mass * |gravity|) over the steps and the controlled bodies
                              listed in `bodies` (all when nbodies == 0): control force per weight */
} tpMetricKind;

/// Host metric: states root..end (len entries) and the actions that produced them (actions[0] is
/// the root's zero action). Returns the cost (lower is better) or NaN on error.
typedef double (*tpMetricFn)(void *user, int id, const tpStateView *states, const double *const *actions, int len);

typedef struct tpMetricDef {
    tpMetricKind kind;
    int body;        /* DISTANCE */
    double point[3]; /* DISTANCE: m */
    bool planar;     /* DISTANCE: ignore z */
    int nbodies;     /* EFFORT */
    int bodies[16];  /* EFFORT: body indices */
    tpMetricFn fn;   /* CALLBACK */
    void *user;
    int id;
    tpCond *cond; /* ARRANGED: the condition (tpCreateDomain copies it; the caller keeps its own) */
} tpMetricDef;

/* ------------------------------------------------------------------------------------------ */
/* Sampling space Y and the BK-RRT distance                                                    */

typedef enum {
    TP_DISTANCE_MIN_TIME = 0, /* the paper's estimate: minimal time for `body` to reach y[0..1]
                                 (and heading y[2] if sample_dim >= 3) under max_accel / max_angaccel */
    TP_DISTANCE_EUCLIDEAN,    /* |pos(body) - y| over the first min(sample_dim, 3) dims */
} tpDistanceKind;

/* Bodies a BK-RRT key may list (tpSamplingDef.bodies): 3 dims each, within the nearest-neighbour
 * index's 255 dims. */
#define TP_MAX_KEY_BODIES 64

typedef struct tpSamplingDef {
    int ndists;      /* y is the concatenation of these (sample_dim = sum of dims) */
    tpDist dists[4]; /* e.g. a 2D box over the field, then a heading */
    tpDistanceKind distance;
    int body;                      /* body whose state is compared with y; -1: first controlled */
    int nbodies;                   /* > 0 (euclidean only): compare these bodies instead of `body`: the key
                                      is their positions (sample_dim <= 3 dims each) and y one draw of the
                                      distributions per body, so the distance is Euclidean over all of them (the
                                      RRT's state-space distance over these bodies); skills see the first draw */
    int bodies[TP_MAX_KEY_BODIES]; /* their indices (nbodies of them) */
    double max_accel;              /* m/s², 0: max_force / mass of that body */
    double max_angaccel;           /* rad/s², 0: derived from max_torque and the inertia about z */
} tpSamplingDef;

/* ------------------------------------------------------------------------------------------ */
/* Domain = the planning problem                                                               */

#define TP_MAX_REPORTS 8

/// A named figure of the selected plan (e.g. the on-target fraction of a many-dice arrangement).
/// Its value is the metric evaluated on the plan's path, except ARRANGED, which reports the
/// on-target fraction itself (0..1) rather than 1 - fraction.
typedef struct tpReportDef {
    char name[TP_NAME_MAX];
    tpMetricDef metric;
} tpReportDef;

/// How the approximate answer (no goal node within the limits) is judged: docs/lua-api.md#fallbacks.
typedef enum {
    TP_FALLBACK_AUTO = 0, /* REST when the goal asks for rest (a tp.settled in it), else QUALITY */
    TP_FALLBACK_REST,     /* an animation shot: at rest and landed first (the goal's settled bodies, or
                             every passive and active body), then quality */
    TP_FALLBACK_QUALITY,  /* a robot: quality first, then a node at a decision point, then the deeper */
} tpFallbackKind;

/// Domain definition. tpCreateDomain copies all of it, deep: tactics, skills, Π, and the goal,
/// valid and metric condition trees; the caller keeps (and frees) everything it passed, whether
/// the call succeeds or fails. Host pointers (callbacks' `user`) are shared, never owned.
typedef struct tpDomainDef {
    char name[TP_NAME_MAX];
    char description[256];
    tpSceneDef scene;
    int ntactics;
    const tpTacticDef *tactics;
    tpCond *goal;  /* required (copied by tpCreateDomain) */
    tpCond *valid; /* NULL: X_valid = X (copied by tpCreateDomain) */
    tpSamplingDef sampling;
    tpMetricDef quality;  /* approximate answer */
    tpMetricDef solution; /* many-worlds selection */
    tpFallbackKind fallback;
    /* The shot's length (s of state time): a goal holds no earlier than shot_min, a state later
       than shot_max is invalid, and an approximate answer ends in between when a node does.
       0, 0: none (shot_max 0 is no maximum). */
    double shot_min, shot_max;
    tpPlannerDef planner; /* the domain's planner defaults (the command line overrides them) */
    int nreports;         /* named figures printed with the plan and stored in its stats */
    tpReportDef reports[TP_MAX_REPORTS];
    tpPlanView view; /* the default camera, recorded in plans for viewers (view.set false: none) */
    /* Optional (NULL: none): scene.nbodies strings, where each body is defined ("file:line", the
       script's line of its constructor), put before the warnings about it. Not kept. */
    const char *const *body_where;
    /* Optional: warnings found while the script built the definition (tp.scene's about the file it
       read: "file:line: tp.scene: x.gltf: nodes not used: ..."), kept first and as given (one line
       each, cut at TP_WARNING_MAX). Not kept. */
    int nnotes;
    const char *const *notes;
} tpDomainDef;

/// Zeroed definition with default scene, sampling, metrics and planner.
tpDomainDef tpDefaultDomainDef(void);

/// One tactic's part of a planning state.
typedef struct tpTacticState {
    int32_t sigma;   /* active skill index σ */
    uint8_t busy;    /* b_i */
    uint8_t started; /* 0 only in the initial state: σ_init has not run yet */
    uint8_t pad[2];
    double V[]; /* tpDomain_TacticVars(domain, tactic) doubles: only the variables its skills use
                   (tpSkill_VarCount), so 400 small tactics do not each carry 16 doubles */
} tpTacticState;

typedef struct tpDomain tpDomain;

/// Builds the world and the problem. NULL with a message naming the field on invalid input.
tpDomain *tpCreateDomain(const tpDomainDef *def, char *err, size_t errlen);
/// NULL is allowed.
void tpDestroyDomain(tpDomain *domain);

const tpWorld *tpDomain_World(const tpDomain *domain);
const tpDomainDef *tpDomain_Def(const tpDomain *domain);
/// The problem the core planner runs (ctx = domain; valid while the domain lives).
tpProblem tpDomain_Problem(tpDomain *domain);
#define TP_MAX_WARNINGS 16 /* warnings a domain keeps (the last one counts the rest) */
#define TP_WARNING_MAX 512 /* bytes of one warning, with its NUL */

/// Number of warnings tpCreateDomain found: problems that are not errors but make the domain
/// unlikely to be solved (a controlled body whose max_force cannot overcome its floor friction).
/// They are the domain's data, never printed by the library; docs/lua-api.md#warnings.
int tpDomain_WarningCount(const tpDomain *domain);
/// Warning i (0 <= i < tpDomain_WarningCount), one line: "file:line: message" when the definition
/// gave body_where, else "domain 'name': message". Owned by the domain.
const char *tpDomain_Warning(const tpDomain *domain, int i);

/// Why BK-RRT cannot plan this domain, in the script's words (one line naming what to declare),
/// or NULL when it can (a sampling space and a body to compare with y). Static storage.
const char *tpDomain_WhyNoRRT(const tpDomain *domain);

/// Message left by the last failing host callback ("" if none).
const char *tpDomain_Error(const tpDomain *domain);
/// Stores a host callback's error message (used by the Lua layer).
void tpDomain_SetError(tpDomain *domain, const char *msg);

/// State blob accessors (x is state_bytes long; a tactic index must be valid: TP_ASSERT).
double tpState_Time(const void *x);
const tpBodyState *tpState_Bodies(const void *x);
/// The rest counts of a state blob of domain (tpWorld_StateCount of them, the domain's order).
const uint8_t *tpState_Rest(const tpDomain *domain, const void *x);
const tpTacticState *tpState_Tactic(const tpDomain *domain, const void *x, int tactic);
/// Number of skill variables V stored for a tactic (<= TP_SKILL_VARS).
int tpDomain_TacticVars(const tpDomain *domain, int tactic);

/// Fills a plan record (metadata, all solution worlds or the approximate path, stats) from a
/// finished run. `rec` is an output: whatever it held is overwritten, not freed (pass a fresh
/// one); free it with tpPlanRecord_Free, also after a failure. Strings are copied. Returns false on
/// allocation failure.
bool tpDomain_Record(const tpDomain *domain, const tpTree *tree, const tpPlanResult *result,
                     const tpPlannerDef *planner, tpPlanRecord *rec, char *err, size_t errlen);

/// What a replay found (tpDomain_Replay and the functions built on it).
typedef enum {
    TP_REPLAY_MATCH = 0,    /* every step reproduced bit for bit */
    TP_REPLAY_MISMATCH = 1, /* a step differs (or left the physical ranges): *step, message in err */
    TP_REPLAY_MISFIT = 2,   /* the recording does not fit the domain (bodies, dt, initial state), a
                               motion function failed, or out of memory: message in err */
} tpReplayStatus;

/// Replays world w of a plan: restores the recorded initial state, applies the recorded controls
/// step by step through Sim, and compares every moving body's state bit for bit. On
/// TP_REPLAY_MISMATCH, *step (may be NULL) is the first differing step (1-based).
tpReplayStatus tpDomain_Replay(tpDomain *domain, const tpPlanRecord *rec, int w, int *step, char *err, size_t errlen);
/// Called after each replayed step (1-based) with the world as the step left it (its contacts).
typedef void (*tpStepObserver)(void *user, int step, const tpWorld *world);
/// The deepest penetration of one touching body pair during a replay.
typedef struct tpPenetration {
    int a, b;         /* body indices, a < b */
    double depth;     /* m: deepest overlap over all steps, contact points and substeps */
    int step;         /* the step (1-based) where it happened */
    bool static_pair; /* one of the two is static geometry (floor, wall, cushion) */
} tpPenetration;

/// Replays world w like tpDomain_Replay (the temporal conditions' memory too) and evaluates the goal at
/// its end, with the last step's contacts and the replayed memory: *goal 1, 0 or -1 (a host error,
/// message in tpDomain_Error); -1 unless the replay matches.
tpReplayStatus tpDomain_ReplayGoal(tpDomain *domain, const tpPlanRecord *rec, int w, int *goal, int *step, char *err,
                                   size_t errlen);
/// Replays world w like tpDomain_Replay and records, per body pair that touched, the deepest
/// penetration and its step. On TP_REPLAY_MATCH *pairs is a new array of *npairs entries sorted
/// by (a, b) that the caller frees; otherwise NULL.
tpReplayStatus tpDomain_CheckPenetration(tpDomain *domain, const tpPlanRecord *rec, int w, tpPenetration **pairs,
                                         int *npairs, char *err, size_t errlen);
/// tpDomain_Replay that calls observe (may be NULL) after every step.
tpReplayStatus tpDomain_ReplayObserved(tpDomain *domain, const tpPlanRecord *rec, int w, tpStepObserver observe,
                                       void *user, int *step, char *err, size_t errlen);
/// Values of the domain's reports (nreports doubles) for the path root..leaf of a tree.
/// Returns false (message in tpDomain_Error) when a callback metric fails.
bool tpDomain_Reports(tpDomain *domain, const tpTree *tree, int32_t leaf, double *values);

/// Evaluates X_goal on a bare body-state array at time t (for replay's final check): 1, 0 or -1
/// (-1 too for a goal with temporal conditions: it needs tpDomain_GoalHoldsWith).
int tpDomain_GoalHolds(tpDomain *domain, const tpBodyState *bodies, double t);
/// tpDomain_GoalHolds with the temporal conditions' memory (tpDomain_MemoryCount int32, as a replay
/// computes it: tpDomain_ReplayMemory; NULL when the domain has none).
int tpDomain_GoalHoldsWith(tpDomain *domain, const tpBodyState *bodies, const int32_t *memory, double t);
/// Temporal memory slots of the domain's goal and valid conditions (0 without tp.sequence & co).
int tpDomain_MemoryCount(const tpDomain *domain);

/* ------------------------------------------------------------------------------------------ */
/* Start states and stepping (plan from the world as it is, step it)                 */

#define TP_MAX_START_TIME 1e9 /* s: the latest time a start state may have (TP_PLAN_MAX_START_TIME) */
#define TP_START_QUAT_TOL TP_PLAN_START_QUAT_TOL /* a start state's quaternions: norm within 1 +- this */

/// Whether x (tpWorld_StateCount states, slot order), rest (as many rest counts; NULL: all 0) at
/// time t can start a plan or a simulation: t finite in [0, TP_MAX_START_TIME], every state within
/// tpWorld_StateInRange with a unit quaternion (TP_START_QUAT_TOL), every count at most
/// tpWorld_RestSteps, and no overlap beyond the scene's penetration limits (tpWorld_CheckOverlap).
/// False with a one-line message in err and in field (may be NULL) where the problem is
/// ("time", "bodies.cue.quaternion", "bodies.cue.rest", "bodies.cue" for an overlap).
bool tpDomain_CheckState(tpDomain *domain, const tpBodyState *x, const uint8_t *rest, double t, char *field,
                         size_t fieldlen, char *err, size_t errlen);
/// Makes (x, rest, t) the root of every plan from now on (and what tp.moved compares with):
/// copied; the tactics start afresh (σ_init) as at t = 0. The caller checked it
/// (tpDomain_CheckState). False when out of memory (nothing changed).
bool tpDomain_SetStart(tpDomain *domain, const tpBodyState *x, const uint8_t *rest, double t);
/// True when a start was set; then *x, *rest (nstate entries, the domain's) and *t hold it.
bool tpDomain_Start(const tpDomain *domain, const tpBodyState **x, const uint8_t **rest, double *t);
/// One Sim step exactly as the planner and replay make it (tpWorld_StepRest with the rest
/// counts, then t + dt): x and rest (nstate each) are updated in place, *t advanced. action has
/// 6 doubles per control slot, then one target per driven motor (tpWorld_ActionCount; clamped by
/// the physics, as the planner's). False when the step
/// fails (x, rest then hold no physical state): tpDomain_DescribeFailure says why, or
/// tpWorld_FatalError for a scripted body's failing function.
bool tpDomain_Step(tpDomain *domain, tpBodyState *x, uint8_t *rest, double *t, const double *action);
/// One line on a failed step (f: tpWorld_LastFailure of the domain's world), naming the bodies.
void tpDomain_DescribeFailure(const tpDomain *domain, const tpStepFailure *f, char *out, size_t outlen);
/// What the tactics and the temporal conditions resume from: after tpDomain_SetStart
/// (which makes them start afresh), part (tpDomain_TacticBytes bytes: every tactic's
/// tpTacticState, as a state blob holds them; NULL: afresh, σ_init not started) and mem
/// (tpDomain_MemoryCount slots; NULL: all 0) become the start's, copied. The caller checked them
/// (σ in range, flags 0/1, memory within tpDomain_MemorySize). False when out of memory.
bool tpDomain_SetStartTactics(tpDomain *domain, const void *part, const int32_t *mem);
/// The start's tactics part and memory (NULL each: afresh); true when either is set.
bool tpDomain_StartTactics(const tpDomain *domain, const void **part, const int32_t **mem);
/// Bytes of the tactics' part of a state blob (every tactic's tpTacticState, V included).
size_t tpDomain_TacticBytes(const tpDomain *domain);
/// The tactics' part of a state blob x (tpDomain_TacticBytes bytes).
const void *tpState_TacticsPart(const tpDomain *domain, const void *x);
/// Tactic `tactic`'s state within a tactics part (the caller's bytes: writable when part is).
tpTacticState *tpDomain_TacticPart(const tpDomain *domain, const void *part, int tactic);
/// The temporal memory of a state blob (tpDomain_MemoryCount int32), NULL when the domain has none.
const int32_t *tpDomain_Memory(const tpDomain *domain, const void *x);
/// Number of tactics, and tactic i's definition (the domain's copy).
int tpDomain_TacticCount(const tpDomain *domain);
const tpTacticDef *tpDomain_Tactic(const tpDomain *domain, int tactic);
/// After tpDomain_Step made (x, t): updates the temporal conditions' memory mem (tpDomain_MemoryCount
/// slots) from it, as the planner and replay do after every step. 0, or -1 on a host error
/// (tpDomain_Error).
int tpDomain_ObserveStep(tpDomain *domain, const tpBodyState *x, double t, int32_t *mem);
/// The largest value temporal memory slot `slot` holds (a sequence's length, 1 for a flag, 2 for
/// at_time); 0 for no such slot.
int tpDomain_MemorySize(const tpDomain *domain, int slot);
/// Replays world w of rec like tpDomain_Replay, but only its first `upto` steps (0..nsteps), and
/// returns the state there: x and rest (nstate entries each, caller's) and *t. A plan with a start
/// state (rec->has_start) is replayed from it, and the domain's start becomes it.
tpReplayStatus tpDomain_ReplayTo(tpDomain *domain, const tpPlanRecord *rec, int w, int upto, tpBodyState *x,
                                 uint8_t *rest, double *t, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
