/* tplan api: the run definition's encoding (tplan_run_def of tplan/tplan.h): its defaults,
 * ranges, checks and JSON reader and writer, in their own small library (tp_rundef: api/src/
 * run_fields.c, on core and cJSON; no Lua, no ODE) that the api and the service both link. In-project
 * interface; not installed. */
#ifndef TP_RUN_DEF_H
#define TP_RUN_DEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp/physics.h" /* tpBodyState, TP_NAME_MAX: types only (tp_rundef links no physics) */
#include "tp/run_fields.h"
#include "tplan/tplan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

/* Ranges of the run definition's fields: the table's (tp/run_fields.h, api/src/run_fields.c) */
#define TP_RUN_SEED_MAX 4294967295LL
#define TP_RUN_MAX_SOLUTIONS 1000000
#define TP_RUN_MAX_JOBS 256
#define TP_RUN_MIN_MEMORY_MB 16
#define TP_RUN_MAX_MEMORY_MB (1LL << 30)
#define TP_RUN_MAX_SCRIPT_TIME 1e6 /* s: load_time_limit, call_time_limit */
#define TP_RUN_SCRIPT_TIME_DEFAULT                                                                                     \
    10.0 /* s: what their 0 means (tp/lua.h's TP_SCRIPT_DEFAULT_*_TIME: run.c checks)                                  \
          */

/// def (NULL: the defaults) checked (tplan_run_def_check) and copied into full, this library's
/// whole struct: the fields an older caller's smaller struct lacks stay at their defaults. False
/// with err set (TPLAN_ERR_ARGUMENT naming the field).
bool tpRun_FullDef(const tplan_run_def *def, tplan_run_def *full, tplan_error *err);
/// Reads one member of a JSON object (item->string is its name) into def: 1 taken, 0 not a
/// field of the run definition (the caller's own, or unknown), -1 a bad value (err names the
/// field). For readers of larger objects (the service's requests) that hold run fields among
/// their own.
int tpRun_ReadJsonField(tplan_run_def *def, const struct cJSON *item, tplan_error *err);
/// tpRun_ReadJsonField for the service's requests (tp/run_fields.h): a field the server sets
/// (TP_RUNF_SERVER) is refused, the others are read in the service's range of their row, bounded
/// from above by bounds[row.svc_bound] (s, workers, MB: the server's options). The one check of a
/// request's run field: 1 taken, 0 not a field, -1 refused (err names the JSON member).
int tpRun_ReadRequestField(tplan_run_def *def, const struct cJSON *item, const double bounds[TP_RUNF_BOUND_COUNT],
                           tplan_error *err);
/// The run's fields that differ from the defaults, added to the JSON object o (false when out
/// of memory).
bool tpRun_WriteJsonFields(const tplan_run_def *def, struct cJSON *o);
/// The len bytes at json as one JSON object and nothing else (whitespace around it): the root
/// (cJSON_Delete it), or NULL with TPLAN_ERR_ARGUMENT and a message starting with `what` (text
/// after the value, not JSON, not an object, a NUL byte or "\u0000"; line and column).
struct cJSON *tpRun_ParseJsonObject(const char *what, const char *json, size_t len, tplan_error *err);
/// Sets err (may be NULL) to code with a printf-style message (one line) and field (may be NULL).
void tpRun_Fail(tplan_error *err, tplan_code code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/// tplan_run_def_check, tplan_run_def_from_json and tplan_run_def_to_json without the API's call
/// frame (call.h: the C locale for the call): the caller is inside one, or a program in the C locale.
tplan_code tpRun_CheckDef(const tplan_run_def *def, tplan_error *err);
tplan_code tpRun_DefFromJson(tplan_run_def *def, const char *json, size_t len, tplan_error *err);
char *tpRun_DefToJson(const tplan_run_def *def);

/* ------------------------------------------------------------------------------------------ */
/* States (state_text.c): the value behind tplan_state and its file, no domain needed          */

#define TP_STATE_MAX_VARS 16        /* skill variables of one tactic at most (TP_SKILL_VARS, checked in state.c) */
#define TP_STATE_MAX_TACTICS 100000 /* tactics a state file names at most */
#define TP_STATE_MAX_MEMORY 4096    /* temporal memory slots at most (TP_COND_MAX_MEMORY) */
#define TP_STATE_MAX_MEMORY_VALUE 1000000 /* the largest memory value (TP_PLAN_MAX_TEMPORAL_SIZE) */

/// One tactic's part of a state (the tactics resume where they were): plain data, checked
/// against the domain where the state is used (tpState_BindTactics).
typedef struct tpStateTactic {
    char name[TP_NAME_MAX];         /* the tactic's name */
    int skill;                      /* σ: index of its active skill in the tactic's skills */
    bool busy;                      /* b: the skill is still running (false: a decision point) */
    bool started;                   /* false only before σ_init's first step (then busy is false) */
    int nvars;                      /* skill variables stored (the domain's tpDomain_TacticVars) */
    double vars[TP_STATE_MAX_VARS]; /* V: the skill's sampled parameters, phases, counters, integrals */
} tpStateTactic;

struct tplan_state {
    char domain[TP_NAME_MAX];   /* the domain's name */
    int n;                      /* bodies (the domain's moving bodies with a stored state) */
    char (*names)[TP_NAME_MAX]; /* n names: the domain's state order, or a parsed file's order */
    tpBodyState *x;             /* n states */
    uint8_t *rest;              /* n rest counts (tpWorld_StepRest) */
    double t;                   /* s */
    /* What the tactics and the conditions over time resume from (state file version 2): absent,
       the tactics start afresh (σ_init) and the memory is all 0, as at t = 0 */
    bool has_tactics;
    int ntactics;           /* tactics given (has_tactics): the domain's, in its order or the file's */
    tpStateTactic *tactics; /* ntactics (owned; NULL when none) */
    bool has_memory;
    int nmemory;     /* the temporal conditions' memory slots given (has_memory) */
    int32_t *memory; /* nmemory values (owned; NULL when none), tpCond.mem order */
};

/// A state of n bodies of the domain named `domain`, zeroed (names ""); NULL when out of memory.
tplan_state *tpState_New(const char *domain, int n);
/// Reads a state file's text strictly (docs/embedding.md, "States"), its bodies in the file's
/// order: NULL with TPLAN_ERR_ARGUMENT naming the field for anything else.
tplan_state *tpState_Parse(const char *json, size_t len, tplan_error *err);
/// The state file's text (malloc'd, NUL-terminated; NULL when out of memory).
char *tpState_ToJson(const tplan_state *s);
/// A body's four vectors in the state file's order and their lengths: position (3), quaternion
/// (4), velocity (3), angular_velocity (3); tpState_Vector(x, v) is vector v of x.
extern const char *const tpState_VectorNames[4];
extern const int tpState_VectorLengths[4];
double *tpState_Vector(tpBodyState *x, int v);
/// The index of the body named `name` in s (-1: none).
int tpState_FindBody(const tplan_state *s, const char *name);
/// The index of the tactic named `name` in s (-1: none, or no tactics given).
int tpState_FindTactic(const tplan_state *s, const char *name);
/// Replaces s's tactics (n of them, copied; NULL or n < 0: none given) and its memory (m values,
/// copied; NULL or m < 0: none given). False when out of memory (s unchanged).
bool tpState_SetMind(tplan_state *s, const tpStateTactic *tactics, int n, const int32_t *memory, int m);

/// The invariants (run_validate.c) of the table of a run's fields (n rows: unique names and flags,
/// members inside tplan_run_def, ranges holding each default but not the unset value, the service's
/// ranges inside the library's) and of a state (names, finite states, unit quaternions, time, the
/// tactics' skills and variables, the memory): false with the first broken rule in why. Run through
/// TP_VALIDATE in Debug and sanitizer builds.
bool tpRun_FieldsValid(const tpRunField *rows, int n, char *why, size_t cap);
bool tpState_Valid(const tplan_state *s, char *why, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
