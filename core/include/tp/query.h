/* tplan core: many-worlds browsing. Per-world summaries of a plan (each
 * solution's duration, cost, control, end state, when the goal's regions and temporal conditions
 * held) and space-time queries over its worlds ("ball inside [0,1]x[0,1]x[0,2] between 2 3 and
 * never ball touches vase and ends at rest"), evaluated on the plan's trajectories only: the CLI
 * (`tplan worlds`), libtplan (tplan_worlds) and the service (GET /v1/jobs/{id}/worlds) share this one
 * evaluator. Grammar and semantics: docs/cli.md, "tplan worlds". Pure functions of the record. */
#ifndef TP_QUERY_H
#define TP_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tp/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_QUERY_MAX_CLAUSES 32   /* clauses of one query (joined by "and") */
#define TP_QUERY_MAX_TEXT 4096    /* bytes of a query's text */
#define TP_QUERY_MAX_RANK 8       /* keys of one ranking */
#define TP_QUERY_REST_SPEED 0.05  /* m/s: "at rest" is |v| <= this ... */
#define TP_QUERY_REST_ANGULAR 0.2 /* rad/s: ... and |w| <= this (tp.settled's example values) */
#define TP_QUERY_TOUCH_GAP 0.005  /* m: two bodies closer than this touch (the default penetration limit) */

/// What one clause tests (docs/cli.md lists the words).
typedef enum {
    TP_QUERY_INSIDE = 0, /* body's centre inside the box at some state of the window */
    TP_QUERY_STAYS,      /* ... at every state of the window ("always inside") */
    TP_QUERY_ENDS,       /* ... at the world's last state ("ends inside") */
    TP_QUERY_TOUCHES,    /* body and other within TP_QUERY_TOUCH_GAP at some state of the window */
    TP_QUERY_REST,       /* body (-1: every moving body) at rest at the last state ("ends at rest") */
    TP_QUERY_NUMBER,     /* a figure of the world (duration, cost, ...) compared with a value */
    TP_QUERY_KIND_COUNT
} tpQueryKind;

/// Figures a world is compared and ranked by.
typedef enum {
    TP_QUERY_DURATION = 0, /* s: steps x dt */
    TP_QUERY_COST,         /* the solution metric */
    TP_QUERY_STEPS,        /* steps */
    TP_QUERY_IMPULSE,      /* N s: the control's total impulse */
    TP_QUERY_WORK,         /* J: the control's total work */
    TP_QUERY_CONTROL_TIME, /* s: the time during which any force acted */
    TP_QUERY_END_SPEED,    /* m/s: the fastest moving body's speed at the last state */
    TP_QUERY_FIGURE_COUNT
} tpQueryFigure;

/// One clause of a query. Plain value type.
typedef struct tpQueryClause {
    tpQueryKind kind;
    bool negate;          /* "not" / "never": the clause holds when the test does not */
    int body, other;      /* indices into the record's bodies (-1: none / every moving body) */
    double lo[3], hi[3];  /* m: the box, lo < hi per axis (+-INFINITY allowed for "inf") */
    double t0, t1;        /* s: the window of plan time, t0 <= t1 (-INFINITY..INFINITY: the whole world) */
    tpQueryFigure figure; /* TP_QUERY_NUMBER */
    int cmp;              /* TP_QUERY_NUMBER: '<', '>', 'l' (<=), 'g' (>=), '=' */
    double value;         /* TP_QUERY_NUMBER: the value compared with */
} tpQueryClause;

/// A parsed query: every clause must hold (an empty query holds for every world). Plain value type.
typedef struct tpQuery {
    int nclauses;
    tpQueryClause clauses[TP_QUERY_MAX_CLAUSES];
} tpQuery;

/// Parses text (NUL-terminated) against rec's bodies into q. False with a one-line message naming
/// the clause and its field in err: "query: clause 2 (touches): unknown body 'vaze' (bodies: ...)",
/// "query: clause 1 (inside): empty region: x 2 >= 1".
bool tpQuery_Parse(tpQuery *q, const tpPlanRecord *rec, const char *text, char *err, size_t errlen);

/// True when every clause of q holds for world w (index into rec->worlds) of rec.
bool tpQuery_Holds(const tpQuery *q, const tpPlanRecord *rec, int w);

/// Figure f of world w of rec (the units of tpQueryFigure).
double tpQuery_Figure(const tpPlanRecord *rec, int w, tpQueryFigure f);

/// Parses a ranking "duration,-impulse" (keys of tpQueryFigure by name, '-' first: largest first)
/// into figs/desc (TP_QUERY_MAX_RANK each); returns the number of keys, -1 with a message in err.
int tpQuery_ParseRank(const char *text, tpQueryFigure *figs, bool *desc, char *err, size_t errlen);

/// The record's worlds in file order (the selected one first, then the alternatives in order):
/// order[k] is the index into rec->worlds of world k, the number `--world k` names (rec->nworlds
/// entries, caller's).
void tpQuery_FileOrder(const tpPlanRecord *rec, int *order);

/// Makes world w (an index into rec->worlds) the selected solution (`tplan worlds --pick`, refine's
/// --where). What belongs to the old selection only goes: its navigation overlays, the goal's unmet
/// part and the domain's report figures. Nothing changes when w is already selected.
void tpQuery_Select(tpPlanRecord *rec, int w);

/// Writes world k's (file order) summary as one JSON object on one line: world, selected, steps,
/// duration, cost, control (total), end (per moving body: x, y, z, speed), at_rest, goal (per goal
/// region: the first time its body was inside or null, and whether it is inside at the end) and
/// temporal (the memory changes as [t, condition, value]). docs/plan-format.md, "worlds".
void tpQuery_PutSummary(FILE *f, const tpPlanRecord *rec, int k);

/// The browser's answer, as JSON text (heap, *out, NUL-terminated, caller frees): {"worlds": [every
/// world's summary with "match": its query result], "order": [the matching worlds' numbers, ranked]}.
/// query and rank may be NULL or empty (every world, in file order). False with a message in err
/// (the parse errors above; "out of memory").
bool tpQuery_Browse(const tpPlanRecord *rec, const char *query, const char *rank, char **out, size_t *len, char *err,
                    size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
