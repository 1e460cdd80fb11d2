/* tplan api: the table of a run's fields (model: Redis's static_configs[] in config.c). One row per
 * field of tplan_run_def that a caller sets by value: its name (the library's and the JSON member's),
 * type, default, range, unit, help and who may set it. The run definition's checks, its JSON reader
 * and writer, the tplan program's planner options and their --help (and so the man pages, made from
 * --help), the service's bounds on a request and the docs' tables (a unit test compares them) all
 * read it: adding a field is one row in api/src/run_fields.c. In-project interface; not installed. */
#ifndef TP_RUN_FIELDS_H
#define TP_RUN_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// How a field is stored in tplan_run_def and written in JSON.
typedef enum tpRunFieldType {
    TP_RUNF_PLANNER = 0, /* tplan_planner; JSON "rrt" / "bgt" (tpRun_PlannerNames) */
    TP_RUNF_BOOL = 1,    /* int 0 / 1; JSON false / true */
    TP_RUNF_INT = 2,     /* int; JSON an integer */
    TP_RUNF_INT64 = 3,   /* int64_t; JSON an integer (at most 2^53: a double holds it exactly) */
    TP_RUNF_DOUBLE = 4,  /* double; JSON a number */
} tpRunFieldType;

/// Who may set a field (tpRunField.who, bits); the embedding API (libtplan) sets every field.
enum {
    TP_RUNF_CLI = 1u << 0,     /* `tplan plan` and `tplan bench` take its flag (tpRunField.flag) */
    TP_RUNF_SERVICE = 1u << 1, /* a service request may give it (POST /v1/jobs, /v1/plan) */
    TP_RUNF_SERVER = 1u << 2,  /* the service's server sets it: a request giving it is refused */
};

/// Which of the service's options bounds a request's field from above (tpRunField.svc_bound;
/// the service supplies the values: tpRun_ReadRequestField).
typedef enum tpRunBound {
    TP_RUNF_BOUND_NONE = 0,       /* the row's svc_hi (or the library's hi) */
    TP_RUNF_BOUND_MAX_TIME = 1,   /* s: tplan serve --max-time */
    TP_RUNF_BOUND_WORKERS = 2,    /* the server's workers */
    TP_RUNF_BOUND_MAX_MEMORY = 3, /* MB: tplan serve --max-memory */
    TP_RUNF_BOUND_COUNT = 4,
} tpRunBound;

/// One field of the run definition.
typedef struct tpRunField {
    const char *name; /* the library's and the JSON member's name: "time_limit" (error.field) */
    tpRunFieldType type;
    size_t offset; /* of the member in tplan_run_def */
    double init;   /* tplan_run_def_init's value */
    double lo, hi; /* range of a value given (JSON, flag): lo excluded when lo_open; hi may be INFINITY */
    bool lo_open;
    bool has_unset;          /* `unset` is allowed too: it means "not given" (unset_means) */
    double unset;            /* the value that leaves the field to the domain or the library's default */
    const char *unset_means; /* "the domain's", "2048", "no bound", "10" */
    const char *zero_means;  /* a 0 in the range means this ("none": time_limit); NULL */
    const char *unit;        /* "s", "MB" or "" */
    const char *flag;        /* the command line's name: "--time-limit" (NULL: none) */
    const char *arg;         /* its value in --help: "S" (NULL: a flag without a value, setting `flag_sets`) */
    double flag_sets;        /* the value a flag without a value sets (--no-nn-index: 0) */
    const char *help;        /* `tplan plan --help`'s text (lines after the first start with "\n") */
    unsigned who;            /* TP_FIELD_* bits */
    double svc_lo, svc_hi;   /* the service's range of a request's value (NAN: the library's lo, hi) */
    bool svc_lo_open;
    tpRunBound svc_bound; /* the service's option that bounds it from above, else TP_RUNF_BOUND_NONE */
} tpRunField;

/// The table (api/src/run_fields.c): tpRun_FieldCount rows, in the order the JSON writer writes them.
extern const tpRunField tpRun_Fields[];
extern const int tpRun_FieldCount;
/// "rrt", "bgt": the JSON and command-line names of TPLAN_PLANNER_RRT (index 1) and _BGT (2).
extern const char *const tpRun_PlannerNames[3];

/// The row of a field by its name (NULL: none), and by its command-line flag ("--time-limit").
const tpRunField *tpRun_FindField(const char *name);
const tpRunField *tpRun_FindFlag(const char *flag);
/// The field's value in def, as a double (the planner: its enum value).
double tpRun_FieldGet(const void *def, const tpRunField *f);
/// Sets the field's value in def (v in its range or its unset value; converted to its type).
void tpRun_FieldSet(void *def, const tpRunField *f, double v);
/// True when v is in the field's range lo..hi (an integer for the integer types; finite).
bool tpRun_FieldInRange(const tpRunField *f, double v, double lo, bool lo_open, double hi);
/// What a value of the field must be, for messages: "an integer in 0..4294967295", "a number of
/// seconds >= 0 (0: none)", in the range lo..hi given; the planner and the booleans as JSON writes
/// them ("\"rrt\" or \"bgt\"", "true or false") when json, else as C does. Returns buf.
const char *tpRun_FieldRange(const tpRunField *f, double lo, bool lo_open, double hi, bool json, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
