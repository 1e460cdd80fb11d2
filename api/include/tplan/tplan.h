/* SPDX-License-Identifier: MIT -- Copyright (c) 2026 the tplan authors (LICENSE) */
/* tplan: the embedding API of libtplan (docs/embedding.md).
 *
 * Plans forces and torques for rigid bodies so that an ODE simulation reaches a goal, guided by
 * Tactics and Skills written in Lua (Zickler & Veloso 2009): load a domain script, plan it with a
 * run definition, read the plan (status, per-body trajectories and controls, the plan file's
 * bytes), replay a plan against its domain. Everything the `tplan` program plans goes through
 * the same run definition (tplan_run_def) and gives the same plan bytes.
 *
 * Conventions:
 * - Every function that can fail takes a `tplan_error *` last (NULL allowed: no message) and
 *   reports a tplan_code there; functions returning a handle return NULL on failure. Nothing
 *   here prints, exits, aborts on bad input or touches global state the caller can see
 *   (signals, the locale, stdio, ODE's handlers and random seed: docs/embedding.md, Host
 *   safety). Numbers are read and written in the C locale whatever the host's locale; the
 *   script's print() and the library's messages go to the run definition's `output`.
 * - Ownership: a handle is freed with its own *_free function (NULL allowed); strings and arrays
 *   returned by accessors belong to the handle and stay valid until it is freed. Strings are
 *   UTF-8, NUL-terminated.
 * - Units: SI (m, kg, s, N, N·m, rad). State rows are 13 doubles: position x,y,z (m), orientation
 *   quaternion w,x,y,z, linear velocity (m/s) and angular velocity (rad/s), world frame, z up.
 *   Control rows are 6 doubles: force x,y,z (N) and torque x,y,z (N·m), world frame.
 * - Threads: thread-compatible. Distinct handles may be used from different threads at the same
 *   time (each domain has its own Lua state and ODE world); one handle must not be used by two
 *   threads at once. A plan is computed in the calling thread, single-threaded.
 * - Determinism: the same domain (script bytes and parameters) and run definition give a
 *   byte-identical plan, on every thread and in every process of the same version.
 * - Stability: symbols are added, never changed, within a major version (the SONAME's number);
 *   tplan_run_def only grows at its end, and its `size` member keeps older callers working. */
#ifndef TPLAN_H
#define TPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "tplan/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TPLAN_API __attribute__((visibility("default")))
#else
#define TPLAN_API
#endif

/* ------------------------------------------------------------------------------------------ */
/* Versions and errors                                                                         */

/// The library's version ("0.1.0"): TPLAN_VERSION of the library actually loaded, which may be
/// newer than the header the caller compiled against.
TPLAN_API const char *tplan_version(void);
/// The same as a number: major * 10000 + minor * 100 + patch (TPLAN_VERSION_NUMBER).
TPLAN_API int tplan_version_number(void);

/// What went wrong. The numbers are stable.
typedef enum tplan_code {
    TPLAN_OK = 0,
    TPLAN_ERR_ARGUMENT = 1,    /* a NULL argument, or a run definition field out of range (error.field) */
    TPLAN_ERR_NOMEM = 2,       /* out of memory */
    TPLAN_ERR_IO = 3,          /* a file that cannot be read or written */
    TPLAN_ERR_SCRIPT = 4,      /* the domain script failed: syntax, runtime error, bad field or value
                                  (the message starts with "file:line:") */
    TPLAN_ERR_LIMIT = 5,       /* the script exceeded its memory or time limit */
    TPLAN_ERR_PLAN_FILE = 6,   /* bytes that are not a valid plan file, or a plan of another domain */
    TPLAN_ERR_MISMATCH = 7,    /* replay: a state differs from the recording, or the goal fails */
    TPLAN_ERR_UNSUPPORTED = 8, /* asked for what this library does not do (jobs > 1) */
    TPLAN_ERR_INTERNAL = 9,    /* a bug: please report it with the message */
} tplan_code;

/// Where a failing call says why. Zero it or leave it as a previous call left it: every call
/// that takes one sets code (TPLAN_OK on success) and, on failure, field and message.
typedef struct tplan_error {
    tplan_code code;
    char field[64];     /* the run definition's field at fault ("seed"), else "" */
    char message[2048]; /* one line; "" when code is TPLAN_OK */
} tplan_error;

/// The code's name ("TPLAN_ERR_SCRIPT"); "TPLAN_ERR_UNKNOWN" for a number that is none.
TPLAN_API const char *tplan_code_name(tplan_code code);

/// Frees memory the library returned to the caller (tplan_run_def_to_json). NULL allowed.
TPLAN_API void tplan_free(void *p);

/* ------------------------------------------------------------------------------------------ */
/* Output                                                                                      */

/// What a piece of output is.
typedef enum tplan_output_kind {
    TPLAN_OUTPUT_PRINT = 0,   /* the script's print(): its bytes, values tab-separated, the '\n' included */
    TPLAN_OUTPUT_INFO = 1,    /* a library message the tplan program prints (one line, no '\n') */
    TPLAN_OUTPUT_WARNING = 2, /* ... that it prints after "warning: " */
    TPLAN_OUTPUT_ERROR = 3,   /* ... after "error: " (a failing call's err.message may repeat it) */
} tplan_output_kind;

/// Receives output: len bytes at text (not NUL-terminated), in the thread of the call that made
/// them, with the host's locale in force. It must not free or use the handle of that call.
typedef void (*tplan_output_fn)(void *user, tplan_output_kind kind, const char *text, size_t len);

/* ------------------------------------------------------------------------------------------ */
/* A planning run                                                                              */

/// Which planner: the domain's choice (its `planner` table; BK-BGT unless it says otherwise),
/// BK-RRT or BK-BGT.
typedef enum tplan_planner {
    TPLAN_PLANNER_DOMAIN = 0,
    TPLAN_PLANNER_RRT = 1,
    TPLAN_PLANNER_BGT = 2,
} tplan_planner;

/// A state of a domain's world (below, "States"): plain data the caller owns.
typedef struct tplan_state tplan_state;

/// One planning run: every front end (tplan plan, tplan bench, the service's jobs, this API)
/// reads its options into this struct and checks it with tplan_run_def_check. A value meaning
/// "the domain's" leaves the domain script's own `planner` table in force.
/// Initialise with tplan_run_def_init (defaults below), then set what you need.
typedef struct tplan_run_def {
    size_t size;              /* sizeof(tplan_run_def) as the caller compiled it (set by init) */
    tplan_planner planner;    /* default TPLAN_PLANNER_DOMAIN */
    double mu;                /* BK-BGT's μ (target leaf depth / branching factor), > 0; 0 (default): the domain's */
    int64_t seed;             /* 0..4294967295: seeds the run's one RNG; -1 (default): the domain's */
    int64_t max_iters;        /* iterations, >= 1; 0 (default): the domain's */
    double time_limit;        /* s of wall time for planning, 0 = none; < 0 (default -1): the domain's.
                                 A run stopped by it returns its best (approximate) plan */
    int solutions;            /* many-worlds: plan until this many solutions, 1..1000000;
                                 0 (default): the domain's */
    int nn_index;             /* 1 (default): the exact spatial index for BK-RRT's nearest neighbour;
                                 0: a linear scan (same plan, for measurements) */
    int jobs;                 /* OR-parallel searches, 1..256 (default 1). The library plans in the
                                 calling thread: > 1 is for the tplan program (fork), refused here */
    int64_t memory_limit_mb;  /* MB the script's Lua state may hold, 16..1073741824; 0 (default): 2048 */
    double load_time_limit;   /* s for the script's top level, (0, 1e6]; 0 (default): 10 */
    double call_time_limit;   /* s for one Lua callback while planning, (0, 1e6]; 0 (default): 10 */
    int64_t search_memory_mb; /* MB the search (tree and index) may hold, 1..1073741824; 0 (default):
                                 no bound. At the bound the run stops with its best plan so far */
    tplan_output_fn output;   /* the script's print() and the library's messages during the call
                                 given this def; NULL (default): dropped. A domain keeps its load
                                 def's for its replays and for plans whose def has none. Not JSON */
    void *output_user;        /* passed to output (not owned: with a load def, it must outlive the domain) */
    const tplan_state *start; /* plan from this state (checked against the domain when planning: a bad
                                 one fails with TPLAN_ERR_ARGUMENT naming its field); NULL (default):
                                 the domain's initial state. Not owned, read during the call only. Not
                                 JSON */
    double near_miss;         /* the probability, 0..1, that an iteration re-expands one of the best chains
                                 so far with its draws moved a little (docs/architecture.md "Near
                                 misses"); -1 (default): the domain's (0, off, unless its script says) */
} tplan_run_def;

/// Fills def with the defaults above. Use the macro: it passes the struct's size as compiled.
#define tplan_run_def_init(def) tplan_run_def_init_((def), sizeof *(def))
TPLAN_API void tplan_run_def_init_(tplan_run_def *def, size_t size);
/// Checks every field against its range: TPLAN_OK, or TPLAN_ERR_ARGUMENT naming the field.
TPLAN_API tplan_code tplan_run_def_check(const tplan_run_def *def, tplan_error *err);
/// Reads a JSON object (len bytes at json, UTF-8) into def, over its current values: the fields
/// "planner" ("rrt" | "bgt"), "mu", "seed", "max_iters", "time_limit", "solutions", "nn_index"
/// (boolean), "jobs", "memory_mb", "load_time_limit", "call_time_limit", "search_memory_mb", "near_miss". Strict: an
/// unknown or repeated field, a value of the wrong type or out of range is refused naming the field, and so is text
/// that is not one JSON object and whitespace (trailing text, a NUL byte).
TPLAN_API tplan_code tplan_run_def_from_json(tplan_run_def *def, const char *json, size_t len, tplan_error *err);
/// The fields that differ from the defaults as a JSON object ("{}" for the defaults); what
/// tplan_run_def_from_json reads back to the same definition (output and output_user are not
/// written). Free with tplan_free; NULL for a NULL or invalid def (tplan_run_def_check names the
/// field) or when out of memory.
TPLAN_API char *tplan_run_def_to_json(const tplan_run_def *def);

/* ------------------------------------------------------------------------------------------ */
/* Domains                                                                                     */

typedef struct tplan_domain tplan_domain;

/// A script parameter, read by the script as tp.param(name, default) (`tplan plan --set`).
typedef struct tplan_param {
    const char *name;
    const char *value; /* converted to a number or boolean when the default is one */
} tplan_param;

/// Loads the domain script at path with nparams parameters (params may be NULL when 0) and the
/// script limits of def (memory_limit_mb, load_time_limit; NULL: the defaults). The script
/// may require modules and read data files in its own folder only (the sandbox,
/// docs/lua-api.md). Copies what it needs; NULL on failure (TPLAN_ERR_IO, _SCRIPT, _LIMIT).
TPLAN_API tplan_domain *tplan_domain_load_file(const char *path, const tplan_param *params, int nparams,
                                               const tplan_run_def *def, tplan_error *err);
/// The same from the script's text (len bytes); name stands for the file in messages
/// ("game.lua"). A script from a string has no folder: it can require only "tp".
TPLAN_API tplan_domain *tplan_domain_load_string(const char *name, const char *source, size_t len,
                                                 const tplan_param *params, int nparams, const tplan_run_def *def,
                                                 tplan_error *err);
TPLAN_API void tplan_domain_free(tplan_domain *domain);
/// The domain's name (`tp.domain { name = ... }`).
TPLAN_API const char *tplan_domain_name(const tplan_domain *domain);
/// Bodies of the scene, static ones included, in the script's order (NULL when out of range).
TPLAN_API int tplan_domain_body_count(const tplan_domain *domain);
TPLAN_API const char *tplan_domain_body_name(const tplan_domain *domain, int body);
/// The parameters the script declared with tp.param, as a JSON array (docs/lua-api.md).
TPLAN_API const char *tplan_domain_params_json(const tplan_domain *domain);
/// The domain's warnings ("file:line: body 'robot' cannot slide: ..."), which the tplan program
/// prints before planning.
TPLAN_API int tplan_domain_warning_count(const tplan_domain *domain);
TPLAN_API const char *tplan_domain_warning(const tplan_domain *domain, int i);

/* ------------------------------------------------------------------------------------------ */
/* Planning                                                                                    */

typedef struct tplan_result tplan_result;

/// What a running plan reports (every progress_interval seconds).
typedef struct tplan_progress {
    int64_t iterations; /* loop iterations so far */
    int64_t nodes;      /* nodes in the search tree */
    int64_t rejected;   /* new states refused (docs/cli.md: the reasons) */
    int solutions;      /* goal nodes found */
    double elapsed;     /* s since planning started */
} tplan_progress;

/// Called from the planning thread; return nonzero to stop planning now: the result is then
/// the best plan found so far (solved if a solution was found, else approximate).
typedef int (*tplan_progress_fn)(void *user, const tplan_progress *progress);

/// Plans the domain with def (NULL: the defaults): the script is run afresh for each plan, so
/// planning the same domain twice gives the same plan. NULL on failure (TPLAN_ERR_ARGUMENT for
/// a bad def, _SCRIPT for a failing callback, _LIMIT, _NOMEM).
TPLAN_API tplan_result *tplan_plan(tplan_domain *domain, const tplan_run_def *def, tplan_error *err);
/// The same with progress reports every interval seconds (> 0; fn may be NULL).
TPLAN_API tplan_result *tplan_plan_progress(tplan_domain *domain, const tplan_run_def *def, tplan_progress_fn fn,
                                            void *user, double interval, tplan_error *err);
TPLAN_API void tplan_result_free(tplan_result *result);

/// Solved: the goal holds at the end; approximate: no solution within the limits, the best
/// state's branch by the domain's quality.
typedef enum tplan_status { TPLAN_SOLVED = 0, TPLAN_APPROXIMATE = 1 } tplan_status;
TPLAN_API tplan_status tplan_result_status(const tplan_result *result);
/// Δt steps of the plan (states are steps + 1, the initial state first) and Δt (s).
TPLAN_API int tplan_result_steps(const tplan_result *result);
TPLAN_API double tplan_result_dt(const tplan_result *result);
/// The plan's bodies (all of the scene's, static ones included), by index or name (-1: none).
TPLAN_API int tplan_result_body_count(const tplan_result *result);
TPLAN_API const char *tplan_result_body_name(const tplan_result *result, int body);
TPLAN_API int tplan_result_body_index(const tplan_result *result, const char *name);
/// The body's states: (steps + 1) rows of 13 doubles (see Units above); a body that never moves
/// (static) has one row, its pose. NULL when out of range.
TPLAN_API const double *tplan_result_states(const tplan_result *result, int body, int *rows);
/// The controls applied to the body: steps rows of 6 doubles, row i from state i to state i+1;
/// NULL for a body the plan does not control.
TPLAN_API const double *tplan_result_controls(const tplan_result *result, int body);
/// The control the plan used (docs/plan-format.md, "control"): for `body` (-1: all controlled bodies
/// together) out = {impulse N s, angular impulse N m s, work J, time s during which any force or
/// torque acted}; zeros for a body the plan does not control. Returns 1, or 0 (out zeroed) when
/// result is NULL or body is out of range.
TPLAN_API int tplan_result_control(const tplan_result *result, int body, double out[4]);
/// The driven joint motors of the plan (plan format version 3; 0 for a plan without them): motor
/// m's joint name and axis (1 or 2, in *axis; may be NULL), NULL when out of range; and their
/// targets: steps rows of tplan_result_motor_count doubles (rad/s or m/s), row i from state i to
/// state i+1, NULL without driven motors.
TPLAN_API int tplan_result_motor_count(const tplan_result *result);
TPLAN_API const char *tplan_result_motor_joint(const tplan_result *result, int m, int *axis);
TPLAN_API const double *tplan_result_motor_targets(const tplan_result *result);
/// Search statistics: iterations, nodes in the tree, solutions found, wall time (s).
TPLAN_API int64_t tplan_result_iterations(const tplan_result *result);
TPLAN_API int64_t tplan_result_nodes(const tplan_result *result);
TPLAN_API int tplan_result_solutions(const tplan_result *result);
TPLAN_API double tplan_result_seconds(const tplan_result *result);
/// The plan file (docs/plan-format.md) as `tplan plan -o` writes it: *len bytes (len may be
/// NULL), NUL-terminated. Replay it with tplan_replay or `tplan replay`. Formatted on the first
/// call (tplan_plan does not spend that time for a host that reads only the arrays), then kept;
/// NULL with *len 0 when out of memory.
TPLAN_API const char *tplan_result_plan(const tplan_result *result, size_t *len);
/// Writes those bytes to the file at path, replacing it only once complete (a temporary file
/// renamed into place: a failed write leaves the file as it was). TPLAN_ERR_IO with the reason
/// for a path that cannot be written.
TPLAN_API tplan_code tplan_result_write_plan(const tplan_result *result, const char *path, tplan_error *err);

/* ------------------------------------------------------------------------------------------ */
/* States and stepping                                                              */

/* A state holds what the planner's Sim needs to go on from a moment of the world: the time (s)
 * and, for every moving body with a state of its own (passive, active and tactic-driven foreign
 * bodies; not static ones, nor scripted ones, whose pose is a function of the time), its pose,
 * velocity (a row of 13 doubles, see Units above) and rest count (steps in a row it ended at rest,
 * 0..255: tplan's sleeping, docs/physics.md). Bodies are named as in the domain. A state is plain
 * data: copy it, set it, keep it; it names its domain, and every call that takes one checks it
 * against the domain it is given (same name and bodies; finite, within the physical ranges, unit
 * quaternions, rest counts within the domain's, no two bodies overlapping beyond the domain's
 * penetration limits), failing with TPLAN_ERR_ARGUMENT and the field ("bodies.cue.quaternion").
 * Its JSON form, the state file, is in docs/embedding.md ("States"). A plan starts from one with
 * tplan_run_def.start; tplan_simulate steps one. */

#define TPLAN_STATE_FORMAT "tplan-state" /* the state file's "format" */
#define TPLAN_STATE_VERSION 2            /* ... and its newest "version" (1: bodies and time only, still read) */

/// The domain's initial state (time 0, rest counts 0): what a plan starts from by default, in
/// the domain's body order. Free with tplan_state_free.
TPLAN_API tplan_state *tplan_state_new(const tplan_domain *domain, tplan_error *err);
/// A copy of s (NULL for NULL or when out of memory).
TPLAN_API tplan_state *tplan_state_copy(const tplan_state *s);
TPLAN_API void tplan_state_free(tplan_state *s);
/// Reads a state file's text (len bytes) for domain, strictly: an unknown, missing or repeated
/// field or body, another domain, a non-finite number, a quaternion of norm other than 1, a time
/// < 0, an overlap beyond the limits are refused naming the field. The state is in the domain's
/// body order.
TPLAN_API tplan_state *tplan_state_from_json(tplan_domain *domain, const char *json, size_t len, tplan_error *err);
/// The state file's text, numbers written so that they read back to the same bits: reading it
/// gives the same state. Free with tplan_free; NULL for NULL or when out of memory.
TPLAN_API char *tplan_state_to_json(const tplan_state *s);
/// The name of the state's domain.
TPLAN_API const char *tplan_state_domain(const tplan_state *s);
/// The time (s) and setting it (>= 0, finite).
TPLAN_API double tplan_state_time(const tplan_state *s);
TPLAN_API tplan_code tplan_state_set_time(tplan_state *s, double t, tplan_error *err);
/// The state's bodies, by index or name (-1: none).
TPLAN_API int tplan_state_body_count(const tplan_state *s);
TPLAN_API const char *tplan_state_body_name(const tplan_state *s, int body);
TPLAN_API int tplan_state_body_index(const tplan_state *s, const char *name);
/// A body's row of 13 doubles and its rest count (rest may be NULL).
TPLAN_API tplan_code tplan_state_get_body(const tplan_state *s, const char *name, double row[13], int *rest,
                                          tplan_error *err);
/// Sets a body's row (finite, unit quaternion) and rest count (0..255; 0 for a body that is not at
/// rest). Overlaps are checked where the state is used.
TPLAN_API tplan_code tplan_state_set_body(tplan_state *s, const char *name, const double row[13], int rest,
                                          tplan_error *err);
/// The state at step 0..steps of a result's selected solution, exactly as the planner had it
/// (rest counts included); domain is the one it was planned in.
TPLAN_API tplan_state *tplan_result_state(const tplan_result *result, const tplan_domain *domain, int step,
                                          tplan_error *err);
/// The state at step of world (0: the plan's selected solution, k: its alternative k) of a plan
/// file, found by replaying it in the domain up to there (bit for bit, else TPLAN_ERR_MISMATCH;
/// TPLAN_ERR_PLAN_FILE for bytes that are no plan of this domain).
TPLAN_API tplan_state *tplan_state_from_plan(tplan_domain *domain, const char *plan, size_t len, int world, int step,
                                             tplan_error *err);

/* The tactics and the conditions over time (state file version 2): a state may also
 * hold where each tactic is (its active skill's index, busy, started, and the skill's variables:
 * sampled parameters, phases, step counters, integrals) and the memory of the goal's and valid
 * condition's tp.sequence / ever / never / within_time / at_time (one integer each, in the plan's
 * "temporal" order). A plan from such a state resumes them: a tactic mid-skill goes on in that
 * skill, a sequence half done needs only its rest. A state without them (tplan_state_new, a
 * version 1 file) starts the tactics afresh (σ_init) with the memory all 0, as at t = 0.
 * tplan_result_state gives both, exactly; tplan_state_from_plan the memory (a plan file does not
 * record the tactics' variables). tplan_simulate steps the memory with the bodies and drops the
 * tactics' state (the caller's controls moved the world, not the tactics). */

/// The state's tactics: 0 when it gives none (they start afresh); else the domain's, by index.
TPLAN_API int tplan_state_tactic_count(const tplan_state *s);
TPLAN_API const char *tplan_state_tactic_name(const tplan_state *s, int tactic);
/// Tactic `name`'s state: its active skill's index (*skill), *busy and *started (0 or 1), and its
/// skill variables: *nvars on entry the room at vars (may be 0 with vars NULL), on return their
/// count (all are written when they fit, else none and TPLAN_ERR_ARGUMENT). Out pointers may be NULL.
TPLAN_API tplan_code tplan_state_get_tactic(const tplan_state *s, const char *name, int *skill, int *busy, int *started,
                                            double *vars, int *nvars, tplan_error *err);
/// Sets tactic `name`'s state (a tactic the state gives): skill >= 0, busy and started 0 or 1 (busy
/// only when started), nvars finite variables (the tactic's count; the skill index and the count
/// are checked against the domain where the state is used).
TPLAN_API tplan_code tplan_state_set_tactic(tplan_state *s, const char *name, int skill, int busy, int started,
                                            const double *vars, int nvars, tplan_error *err);
/// The temporal conditions' memory: its count (-1: the state gives none, all 0) and values.
TPLAN_API int tplan_state_memory_count(const tplan_state *s);
TPLAN_API const int32_t *tplan_state_memory(const tplan_state *s);
/// Sets the memory to n values (0..1000000 each; checked against the domain where used); values
/// NULL or n < 0: none given.
TPLAN_API tplan_code tplan_state_set_memory(tplan_state *s, const int32_t *values, int n, tplan_error *err);
/// Drops the tactics' state (they start afresh from the state, σ_init); the memory stays.
TPLAN_API void tplan_state_clear_tactics(tplan_state *s);

/// tplan_state_from_plan with the tactics' state too, which a plan file does not record: makes the
/// plan's search again (its seed, planner, μ, iteration count and solutions, from its start) and,
/// when that gives the plan bit for bit, takes the tactics at the step from the search's own
/// states. A whole planning run's cost. TPLAN_ERR_MISMATCH when the search made again is not the
/// plan (a plan of `--jobs`, of planner options the file does not record, from a state with
/// tactics, or of another build).
TPLAN_API tplan_state *tplan_state_from_plan_tactics(tplan_domain *domain, const char *plan, size_t len, int world,
                                                     int step, tplan_error *err);

/// Controlled bodies: actions have 6 doubles (force x,y,z N, torque x,y,z N·m, world frame) for
/// each, in this order; tplan_domain_control_body gives the body index (-1 when out of range).
TPLAN_API int tplan_domain_control_count(const tplan_domain *domain);
TPLAN_API int tplan_domain_control_body(const tplan_domain *domain, int k);
/// Driven joint motors (a joint's motor declared driven = true): each step's action also
/// sets one target speed (rad/s, m/s for a slider) per driven motor, in this order;
/// tplan_domain_motor_joint gives motor m's joint name (owned by the domain) and its axis (1 or 2)
/// in *axis (may be NULL); NULL (axis 0) when out of range.
TPLAN_API int tplan_domain_motor_count(const tplan_domain *domain);
TPLAN_API const char *tplan_domain_motor_joint(const tplan_domain *domain, int m, int *axis);

/// What tplan_simulate does. Initialise with tplan_simulate_def_init, then set steps.
typedef struct tplan_simulate_def {
    size_t size;                 /* sizeof(tplan_simulate_def) as the caller compiled it (set by init) */
    int steps;                   /* Δt steps to make, >= 1 (default 0: refused, field "steps") */
    const double *controls;      /* steps rows of 6 * tplan_domain_control_count doubles, row i applied from
                                    state i to state i + 1 (clamped to the bodies' limits, as the planner's);
                                    NULL (default): no forces */
    double *trajectory;          /* NULL (default), or room for (steps + 1) rows of 13 * tplan_state_body_count
                                    doubles: the state's bodies at every step, the start first, in the state's
                                    body order */
    const double *motor_targets; /* steps rows of tplan_domain_motor_count target speeds (rad/s or m/s),
                                    each within its motor's max_speed; NULL (default): every driven
                                    motor at its declared speed (since the joints audit: older callers' size
                                    stops before it) */
} tplan_simulate_def;

#define tplan_simulate_def_init(def) tplan_simulate_def_init_((def), sizeof *(def))
TPLAN_API void tplan_simulate_def_init_(tplan_simulate_def *def, size_t size);
/// Steps the state def->steps times with exactly the planner's Sim (its substeps, sleeping and
/// rest counts, time t + dt per step): a plan's controls from its start state give its
/// trajectory bit for bit. On failure the state is unchanged: TPLAN_ERR_ARGUMENT for a bad state,
/// steps or controls, or a step that leaves the physical ranges or the penetration limits (the
/// message names the step and the bodies), TPLAN_ERR_SCRIPT for a scripted body's failing function.
TPLAN_API tplan_code tplan_simulate(tplan_domain *domain, tplan_state *state, const tplan_simulate_def *def,
                                    tplan_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Anytime search: plan across calls under a hard deadline, re-root on what happened   */

/* A search lives across calls, as OMPL's planner does across solve(ptc) calls: run it for a budget,
 * read the best plan so far, run it again; re-root it on the state the world is now in (receding
 * horizon). Everything heavy (loading the script afresh, the tree's first memory, the root) is done
 * by tplan_search_new; a run is the search loop, which reads the clock before every iteration and
 * between the physics steps of a coast, and the extraction of the best plan's arrays, for which it
 * keeps a reserve (its measured cost with a margin, at most half the budget): tplan_search_run
 * returns within its budget when the thread is not preempted and that extraction (0.1-0.3 ms for
 * pool's plans) takes less than half of it (figures in docs/embedding.md). The plan file's bytes are formatted only
 * when asked for (tplan_result_plan), outside any budget. Determinism: runs with iteration budgets are deterministic:
 * the same calls (budgets, re-roots) give byte-identical plans, and any split of N iterations into runs gives the plan
 * tplan_plan gives with max_iters N (apart from stats.timing). How far a wall-clock budget gets depends on the machine,
 * so its plans do not repeat. */
typedef struct tplan_search tplan_search;

/// A search of domain (not owned: it must outlive the search) with def (NULL: the defaults; its
/// time_limit is not used: each run has its budget; max_iters and search_memory_mb bound the search
/// from each root) from start (NULL: def->start, else the domain's initial state; read during the
/// call only). def's output callback (else the domain's) receives the output of every call on the
/// search, so its output_user must outlive the search. NULL on failure, as tplan_plan (a bad start:
/// TPLAN_ERR_ARGUMENT naming its field).
/// The best plan is the root alone until a run. Free with tplan_search_free.
TPLAN_API tplan_search *tplan_search_new(tplan_domain *domain, const tplan_run_def *def, const tplan_state *start,
                                         tplan_error *err);
TPLAN_API void tplan_search_free(tplan_search *search);
/// Searches on for at most budget s of wall clock (0 < budget <= 1e9, else TPLAN_ERR_ARGUMENT,
/// field "budget"), then makes the best plan so far (tplan_search_best), and returns. A search that
/// is done (tplan_search_done) returns at once. TPLAN_ERR_SCRIPT (or _LIMIT) for a failing callback:
/// the search is then dead (every later run fails the same way).
TPLAN_API tplan_code tplan_search_run(tplan_search *search, double budget, tplan_error *err);
/// The same for at most `iterations` iterations (>= 1, else field "iterations"), whatever time they
/// take: the deterministic budget.
TPLAN_API tplan_code tplan_search_run_iterations(tplan_search *search, int64_t iterations, tplan_error *err);
/// The best plan at the end of the last run or re-root (solved, else approximate; its iterations
/// and nodes count from the last re-root). With more than 3 solutions it records 3 of them as its
/// worlds (the first two found and the selected one; tplan_result_solutions still counts them all):
/// recording each is the extraction's cost. Owned by the search: valid until its next run, re-root
/// or free. NULL for NULL.
TPLAN_API const tplan_result *tplan_search_best(const tplan_search *search);
/// The same best plan handed to the caller, who frees it with tplan_result_free (a binding keeps
/// it beyond the next run); tplan_search_best is then NULL until the next run or re-root.
TPLAN_API tplan_result *tplan_search_take_best(tplan_search *search);
/// 1 when running on changes nothing until a re-root: the search has its solutions (run_def
/// `solutions`), nothing left to expand, or reached max_iters or its memory bound; or it failed.
TPLAN_API int tplan_search_done(const tplan_search *search);
/// Stops the search's current run before its next iteration (it returns TPLAN_OK with the best plan
/// so far), or the next run if none is going on. Safe from any thread, also while the search runs.
TPLAN_API void tplan_search_cancel(tplan_search *search);
/// Receding horizon: the world is now in state `observed` (checked as a plan's start: a state of
/// another domain, a missing or unknown body, a time < 0 are TPLAN_ERR_ARGUMENT naming the field).
/// When a node of the tree holds that state (every number of every body, rest counts equal, and the
/// time, within tolerance >= 0: 0 means bit for bit, what a game gets by stepping the best plan's
/// controls with tplan_simulate), its subtree is kept as the new tree, its own state the new start,
/// and *kept (may be NULL) is its node count; otherwise (or when the goal's verdict on a kept node
/// would change with the new start) the search restarts from observed with *kept 0. Either way the
/// random stream goes on (not reseeded: the same calls give the same searches) and the iteration
/// count starts again. The best plan then starts from the new root.
TPLAN_API tplan_code tplan_search_reroot(tplan_search *search, const tplan_state *observed, double tolerance,
                                         int64_t *kept, tplan_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Replay                                                                                      */

/// Re-simulates the selected solution of a plan file (len bytes) in the domain, from its
/// recorded initial state with its recorded controls, and checks every state bit for bit and,
/// for a solved plan, the goal at the end. TPLAN_OK when everything matches; TPLAN_ERR_MISMATCH
/// with the first differing step in the message; TPLAN_ERR_PLAN_FILE for bytes that are not a
/// valid plan or a plan of another scene. The domain must be loaded with the plan's parameters.
TPLAN_API tplan_code tplan_replay(tplan_domain *domain, const char *plan, size_t len, tplan_error *err);

/// Many-worlds browsing (docs/embedding.md): the worlds of the plan file in plan[0..len)
/// (0 its selected solution, k its alternative k), each one's summary (duration, cost, control, end
/// state, when the goal regions and temporal conditions held) and whether it satisfies the
/// space-time query `where` ("ball inside [0,1]x[0,1]x[0,2] between 2 3 and never ball touches vase
/// and ends at rest"; NULL or "": every world), and the matching worlds ranked by `rank`
/// ("duration,-impulse"; NULL: file order), as JSON {"worlds": [...], "order": [...]}: the answer of
/// `tplan worlds --json` and GET /v1/jobs/{id}/worlds, byte for byte. Returns the text (free with
/// tplan_free; its length in *out_len if not NULL), NULL with TPLAN_ERR_ARGUMENT and the field
/// ("where", "rank") for a bad query, TPLAN_ERR_PLAN_FILE for bytes that are no plan. No domain is
/// needed: it reads the plan's trajectories only.
TPLAN_API char *tplan_worlds(const char *plan, size_t len, const char *where, const char *rank, size_t *out_len,
                             tplan_error *err);

#ifdef __cplusplus
}
#endif
#endif
