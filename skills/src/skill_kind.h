/* One skill kind as one row: everything tplan knows about a kind lives in the file that runs it
 * (or its family's file), in a tpSkillKindInfo; skills.c's table maps each tpSkillKind to its row
 * and the public entry points (tpDefaultSkillDef, tpSkill_Validate, tpSkill_Run,
 * tpSkill_VarCount, tpSkillKind_Name, tpSkillKind_Fields) only read rows. Adding a kind: the
 * enum value and def struct in tp/skills.h, a file defining its row, one row in skills.c's table
 * (CONTRIBUTING.md, "Add a skill kind"). A kind file calls only downward (skill_internal.h's
 * helpers, its own family), never skills.c. */
#ifndef TP_SKILL_KIND_H
#define TP_SKILL_KIND_H

#include <stdbool.h>
#include <stddef.h>

#include "tp/skills.h"

/// The descriptor of one kind. Static storage, read-only.
typedef struct tpSkillKindInfo tpSkillKindInfo;
struct tpSkillKindInfo {
    const char *name;  /* "kick": the Lua constructor tp.skill.<name>, plan files, messages */
    const char *alias; /* another name for the same kind ("dribble"), NULL = none */
    /* Fills the kind's union member with its defaults (the shared fields are set already);
       NULL: zeros. */
    void (*defaults)(tpSkillDef *def);
    /* The checks of the kind's own fields against a world, after the shared ones (bodies exist,
       gains are valid); false with a message in err. `kind` is this row (its name for messages).
       NULL: nothing to check. */
    bool (*validate)(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err, size_t errlen);
    /* The checks that need no world, run by tpSkill_CheckFields (front ends) and before validate;
       the message names no skill (the caller prefixes it). NULL: none. */
    bool (*check)(const tpSkillDef *sk, char *err, size_t errlen);
    /* f: tpSkill_Run's contract (V zeroed and V[TP_V_START] set on a fresh planning call). */
    int (*run)(const tpSkillDef *sk, tpSkillCall *call);
    int vars;                    /* V slots stored per tactic (tpSkill_VarCount): TP_SKILL_VARS unless fewer */
    double timeout;              /* s: the longest busy segment when gains.timeout is 0 (tpSkill_Timeout) */
    bool needs_body;             /* `body` must name a controlled body */
    bool needs_target;           /* `target` must name a body */
    bool self_target;            /* `target` may be the skill's own `body` (wait: until it itself rests) */
    const char *const *accepted; /* every key a script may give, NULL-terminated (tpSkillKind_Fields) */
    const tpSkillField *fields;  /* the kind's own typed fields, ending with a NULL name */
};

/// The table of rows, TP_SKILL_KIND_COUNT of them in tpSkillKind order (skills.c; static storage):
/// for the tests of its invariants (tpSkillKinds_Valid, skill_validate.h).
const tpSkillKindInfo *const *tpSkillKind_Table(void);

/* The keys every kind that drives its body with the shared controller accepts (tpSkillGains), and
 * the keys of a kind whose `point` is sampled in a frame; for `accepted` lists. */
#define TP_SKILL_GAIN_KEYS "max_speed", "max_yaw_rate", "kp", "kv", "kyaw", "kyaw_rate", "tolerance", "angle_tolerance"
#define TP_SKILL_FRAMED_KEYS "target", "frame", "toward", "point"

/* A typed field of the member `m` of tpSkillDef: TP_SKILL_DIST(kick, point, 2, 3). */
#define TP_SKILL_DIST(member, f, lo, hi)                                                                               \
    {                                                                                                                  \
#f, TP_FIELD_DIST, offsetof(tpSkillDef, member.f), lo, hi                                                      \
    }
#define TP_SKILL_FIELD(key, type, member, f)                                                                           \
    {                                                                                                                  \
        key, type, offsetof(tpSkillDef, member.f), 0, 0                                                                \
    }
#define TP_SKILL_FIELDS_END                                                                                            \
    {                                                                                                                  \
        NULL, TP_FIELD_DIST, 0, 0, 0                                                                                   \
    }

#endif
