/* Private helpers shared by the plan writer and reader (not part of the public contract).
 * Both sides apply the same rules so that the writer never produces a file the reader refuses. */
#ifndef TP_PLAN_INTERNAL_H
#define TP_PLAN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tp/plan.h"
#include "plan_testing.h" /* the plan files' numbers, also for tests */

/* Accepted values of the enumerated string fields (NULL-terminated lists). */
extern const char *const tpPlan_Classes[];    /* body "class" */
extern const char *const tpPlan_Shapes[];     /* body "shape" */
extern const char *const tpPlan_Statuses[];   /* "status" */
extern const char *const tpPlan_Algorithms[]; /* planner "algorithm" */

/* The name checks (plan_text.c). */
/// True if s (may be NULL) equals one of the strings in the NULL-terminated list.
bool tpPlan_IsOneOf(const char *s, const char *const *list);

/// True if s is "fnv1a64:" followed by exactly 16 lowercase hex digits.
bool tpPlan_IsHashString(const char *s);

/// Finds two equal strings among names[0..n) (none may be NULL) in O(n log n).
/// Returns true and their indices (first < second) if there is a duplicate.
bool tpPlan_FindDuplicate(const char *const *names, int n, int *first, int *second);

/* Physical ranges (plan_range.c, limits in tp/base.h). Each returns -1 if the row is fine, else the
 * index of the first bad entry with the reason in why (a non-unit quaternion is reported at 3). */
#define TP_PLAN_MAX_DT 1e3    /* s: a plan's step length dt is in (0, TP_PLAN_MAX_DT] */
#define TP_PLAN_QUAT_TOL 1e-6 /* |norm^2 - 1| allowed for a recorded quaternion (ODE keeps ~1e-15) */
/// A 13-number state: |position| <= TP_MAX_COORD, unit quaternion, |velocities| within range.
int tpPlan_StateProblem(const double *s, char *why, size_t cap);
/// A 6-number control: every |component| <= TP_MAX_FORCE.
int tpPlan_ControlProblem(const double *c, char *why, size_t cap);
/// A body's size for its shape (a valid shape name): used lengths in (0, TP_MAX_COORD], a plane's
/// coefficients within +-TP_MAX_COORD and its normal non-zero.
int tpPlan_SizeProblem(const char *shape, const double *size, char *why, size_t cap);

/// The record's rejections by reason (stats.rejections): every kind in use has a count in
/// 1..rejected, a first iteration in 1..iterations and a one-line description (no control
/// characters) shorter than TP_REJECT_TEXT_MAX; when any is in use the counts add up to rejected.
/// False with the field ("stats.rejections.valid.count") and the reason.
bool tpPlan_RejectionsProblem(const tpPlanRecord *rec, char *field, size_t fcap, char *why, size_t cap);

/* The leaf writers (plan_text.c). */
/// A JSON string literal.
void tpPlan_PutString(FILE *f, const char *s);
/// A double as its shortest exact text (tpPlan_FormatDouble, tp/plan.h).
void tpPlan_PutDouble(FILE *f, double v);
/// A float (a color) as the shortest digits that read back, through strtod and a cast, to it.
void tpPlan_PutFloat(FILE *f, float v);

/* Overlays (plan_overlay.c). */
struct cJSON;
/// Frees rec->overlays and zeroes the count.
void tpPlan_FreeOverlays(tpPlanRecord *rec);
/// Checks the overlays against the record (writer side); false with "overlays[k].field: reason".
bool tpPlan_CheckOverlays(const tpPlanRecord *rec, char *err, size_t errlen);
/// Writes the "overlays" member (and its trailing comma) if there are any.
void tpPlan_PutOverlays(FILE *f, const tpPlanRecord *rec);
/// Reads the optional "overlays" member of a parsed plan (after bodies, tactics and worlds).
bool tpPlan_ReadOverlays(const char *file, const struct cJSON *root, tpPlanRecord *rec, char *err, size_t errlen);

/* Embedded sources (plan_sources.c). */
/// Frees rec->sources and zeroes the count.
void tpPlan_FreeSources(tpPlanRecord *rec);
/// Writes the message into err (if any) and returns false: the plan files' one-line failures
/// (plan_range.c, a leaf: the readers and writers of every part of the file use it).
bool tpPlan_Failf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/// Checks the sources (writer side): paths, hashes against the bytes, sources[0] = domain.file and
/// domain.hash; false with "sources[k].field: reason".
bool tpPlan_CheckSources(const tpPlanRecord *rec, char *err, size_t errlen);
/// Writes the "sources" member (and its trailing comma) if there are any.
void tpPlan_PutSources(FILE *f, const tpPlanRecord *rec);
/// Reads the optional "sources" member of a parsed plan (after the header) and checks it as above.
bool tpPlan_ReadSources(const char *file, const struct cJSON *root, tpPlanRecord *rec, char *err, size_t errlen);

/// "file: message" into err (the readers of the optional members: plan_control.c,
/// plan_temporal.c); always false, so a reader can `return tpPlan_FileFail(...)`.
bool tpPlan_FileFail(const char *file, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The control report (plan_control.c). */
/// Writes ",\n  \"control\": {...}" (one line, no trailing comma) for the selected world.
void tpPlan_PutControl(FILE *f, const tpPlanRecord *rec);
/// Reads the optional "control" member (after the worlds) and checks it strictly: exactly its
/// members, every controlled body once, each figure finite and in its range (not compared with the
/// controls); false with "file: control.bodies.ball.time: ... is negative".
bool tpPlan_ReadControl(const char *file, const struct cJSON *root, const tpPlanRecord *rec, char *err, size_t errlen);

/* Per-world summaries (plan_worlds.c, tp/query.h). */
/// Writes the "worlds" member (and its trailing comma) when rec has more than one world.
void tpPlan_PutWorlds(FILE *f, const tpPlanRecord *rec);
/// Reads the optional "worlds" member (after the worlds and goal) and checks it strictly (not compared
/// with the trajectories); false with "file: worlds.summaries[1].steps: ...".
bool tpPlan_ReadWorlds(const char *file, const struct cJSON *root, const tpPlanRecord *rec, char *err, size_t errlen);

/* Goal regions (plan_goal.c). */
/// Frees rec->goal_regions and zeroes the count.
void tpPlan_FreeGoal(tpPlanRecord *rec);
/* plan_parts.c: the parts of compound bodies (member "compound", version TP_PLAN_VERSION_PARTS) */
/// Frees body b's parts (the block and the mesh parts' arrays).
void tpPlan_FreeParts(tpPlanBody *b);
/// The writer's check of every body's parts; a message naming bodies[i].compound.parts[k] and the field.
bool tpPlan_CheckParts(const tpPlanRecord *rec, char *err, size_t errlen);
/// Writes body b's member "compound" (nothing for a body without parts).
void tpPlan_PutParts(FILE *f, const tpPlanBody *b);
/// Reads body `body`'s member "compound" (at path `base`) into b (shape already read): required for
/// shape "compound", refused elsewhere and before `version` TP_PLAN_VERSION_PARTS. "file: field: why".
bool tpPlan_ReadParts(const char *file, const struct cJSON *body, const char *base, tpPlanBody *b, int version,
                      char *err, size_t errlen);
/// Checks the goal regions (writer side); false with "goal.regions[k].field: reason".
bool tpPlan_CheckGoal(const tpPlanRecord *rec, char *err, size_t errlen);
/// Writes ",\n  \"goal\": {...}" (one line, no trailing comma) if there are regions.
void tpPlan_PutGoal(FILE *f, const tpPlanRecord *rec);
/// Reads the optional "goal" member of a parsed plan (after the bodies) and checks it as above.
bool tpPlan_ReadGoal(const char *file, const struct cJSON *root, tpPlanRecord *rec, char *err, size_t errlen);

/* Joints (plan_joints.c). */
/// Frees rec->joints (and their names) and zeroes the count.
void tpPlan_FreeJoints(tpPlanRecord *rec);
/// Checks the joints (writer side); false with "joints[k].field: reason".
bool tpPlan_CheckJoints(const tpPlanRecord *rec, char *err, size_t errlen);
/// Writes ",\n  \"joints\": [...]" (one line per joint, no trailing comma) if there are joints.
void tpPlan_PutJoints(FILE *f, const tpPlanRecord *rec);
/// Reads the optional "joints" member of a parsed plan (after the bodies) and checks it as above.
bool tpPlan_ReadJoints(const char *file, const struct cJSON *root, tpPlanRecord *rec, char *err, size_t errlen);

/* Temporal conditions (plan_temporal.c). */
/// Frees rec->temporal and rec->goal_unmet and zeroes the count (tpPlanWorld_FreeArrays frees tchanges).
void tpPlan_FreeTemporal(tpPlanRecord *rec);
/// Checks the temporal member (writer side); false with "temporal.field: reason".
bool tpPlan_CheckTemporal(const tpPlanRecord *rec, char *err, size_t errlen);
/// Writes ",\n  \"temporal\": {...}" (no trailing comma) if the record has temporal conditions.
void tpPlan_PutTemporal(FILE *f, const tpPlanRecord *rec);
/// Reads the optional "temporal" member of a parsed plan (after the worlds) and checks it as above.
bool tpPlan_ReadTemporal(const char *file, const struct cJSON *root, tpPlanRecord *rec, char *err, size_t errlen);

/* Packed trajectories (plan_pack.c): the reader's fast path for the big number matrices. */
/// One matrix of rows x cols finite doubles lifted out of the text before cJSON parses it.
typedef struct tpPlanPacked {
    int rows, cols;
    double *data; /* rows * cols, row-major (owned by the table) */
    bool taken;   /* the reader asked for it (tpPlan_Packed): a plan read whole took every one */
} tpPlanPacked;

typedef struct tpPlanPackTable {
    int n;               /* matrices held */
    size_t cap;          /* matrices items has room for */
    tpPlanPacked *items; /* n matrices (owned) */
} tpPlanPackTable;

/// Replaces, in place, every well-formed trajectory / controls matrix of the JSON text (bodies[i].
/// trajectory and .controls, alternatives[k].trajectories.* and .controls.*: arrays of rows of
/// exactly 13 / 6 plain JSON numbers, all finite) by a string placeholder, keeping the line breaks,
/// and stores its numbers (parsed with strtod as cJSON would) in the table. Anything irregular is
/// left to cJSON and the reader's checks, so messages are unchanged. Text with a 0x01 byte is
/// left alone (the placeholder's marker). A table that cannot grow stops the packing.
void tpPlan_PackMatrices(char *text, size_t len, tpPlanPackTable *table);
/// The packed matrix a placeholder item stands for (marked taken), or NULL (item may be NULL).
const tpPlanPacked *tpPlan_Packed(tpPlanPackTable *table, const struct cJSON *item);
/// True when the reader took every packed matrix: packing happens only at the places the reader
/// reads, so a plan read without error leaves none behind (a TP_INVARIANT of the reader).
bool tpPlan_AllPackedTaken(const tpPlanPackTable *table);
/// Frees the table's matrices and zeroes it.
void tpPlan_FreePacked(tpPlanPackTable *table);

#endif
