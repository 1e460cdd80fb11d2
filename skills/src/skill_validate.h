/* Private: the skills' validate functions (skill_validate.c), each `bool valid(obj, why, cap)`: false
 * with the first broken rule in why (TP_VALIDATE's shape, tp/base.h). tpSkillDef_Valid, the one a
 * front end calls, is public (tp/skills.h). */
#ifndef TP_SKILL_VALIDATE_H
#define TP_SKILL_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "nav_cache.h"
#include "nav_overlay.h"
#include "skill_kind.h"

/// The table of kinds (skills.c's k_kinds: TP_SKILL_KIND_COUNT rows): names and aliases unique, a
/// run function, 1..TP_SKILL_VARS variables, a finite timeout, accepted keys unique and holding
/// "name", typed fields among them, unique, of a known type, inside the kind's union member, with
/// DIST dimensions in 1..3 and a RANGE right after the distribution it sets.
bool tpSkillKinds_Valid(const tpSkillKindInfo *const *rows, char *why, size_t cap);
/// A definition as the code builds it (tpDefaultSkillDef, a front end's reading of the typed fields;
/// kinds: the table): kind, name, frame and toward, body and target >= -1, finite gains >= 0, and
/// each typed field of its kind holding a value of its type (tp/skills.h's tpSkillFieldType).
bool tpSkillDef_ValidIn(const tpSkillDef *sk, const tpSkillKindInfo *const *kinds, char *why, size_t cap);

/// One call's skill variables as tpSkill_Run leaves them (not the host-run custom kind's).
typedef struct tpSkillVars {
    const tpSkillKindInfo *kind; /* the skill's row */
    const double *V;             /* TP_SKILL_VARS doubles */
    double t;                    /* s: the call's time */
} tpSkillVars;
/// V[TP_V_START] finite and not after t; V beyond the kind's `vars` still zero (the domain stores
/// only `vars` of them per tactic: a kind writing past them would lose them at the next step).
bool tpSkillVars_Valid(const tpSkillVars *v, char *why, size_t cap);
/// The skill cache (skill_cache.h's layout): search time finite >= 0, round-robin cursors in range,
/// each memo of the static bodies with a band, finite bounds (or none) and a key no other entry
/// has, each grown grid with its world, each kind's cache with its destructor.
bool tpSkillCache_Valid(const tpSkillCache *c, char *why, size_t cap);
/// The grid-navigation family's caches (nav_cache.h): cursors in range; each grid with its
/// parameters and no paths when empty, its paths' cells inside it (their points finite), its fields'
/// goal cells inside it; nav_to's last lookup inside the grids; the track's walls and to-go goals;
/// the moving bodies in index order with their largest radius and, for a step, each in its bucket.
bool tpNavCache_Valid(const NavCache *c, char *why, size_t cap);
/// follow_field's moving bodies (part of tpNavCache_Valid, and alone once per control step): in
/// index order, state slots >= -1, radii finite >= 0 with their largest; for a step, each finite
/// one in its own bucket in index order, the rest loose.
bool tpNavMovers_Valid(const MoverMemo *m, char *why, size_t cap);
/// A collected clip search tree (unless failed): n within cap, its arrays, every parent an earlier
/// node or -1 (so the walk from the best node ends), finite points.
bool tpNavOverlayTree_Valid(const tpNavOverlayTree *t, char *why, size_t cap);

#endif
