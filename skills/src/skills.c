/* The C skill primitives' public entry points, driven by one table: k_kinds maps every
 * tpSkillKind to its descriptor row (skill_kind.h), defined in the file that runs the kind. The
 * entry points do what every kind shares (the shared defaults and checks, the fresh call's V) and
 * leave the rest to the row; no switch over kinds is left here.
 *
 * Each primitive samples its distributions only on its fresh call (a decision point), stores
 * what it sampled in V, and then runs a deterministic controller, reporting busy until the
 * segment ends. V[TP_V_START] always holds the start time; each kind names its other variables
 * with a `<KIND>_V_<NAME>` enum above its f (skill_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skill_cache.h"
#include "skill_internal.h"
#include "skill_kind.h"
#include "skill_validate.h"
#include "tp/base.h"

/* The rows, one per kind, each defined in its kind's (or family's) file. */
extern const tpSkillKindInfo tpSkillKindWait, tpSkillKindDriveTo, tpSkillKindTurnTo,
    tpSkillKindBrake;                                                                         /* skill_drive.c */
extern const tpSkillKindInfo tpSkillKindKick, tpSkillKindPush;                                /* skill_kick.c */
extern const tpSkillKindInfo tpSkillKindImpulse, tpSkillKindSpin, tpSkillKindRandom;          /* skill_force.c */
extern const tpSkillKindInfo tpSkillKindCustom;                                               /* skill_custom.c */
extern const tpSkillKindInfo tpSkillKindSteer;                                                /* steer.c */
extern const tpSkillKindInfo tpSkillKindNavTo, tpSkillKindFollowField, tpSkillKindDriveTrack; /* nav_skill.c */
extern const tpSkillKindInfo tpSkillKindFollowPath;                                           /* nav_path_skill.c */
extern const tpSkillKindInfo tpSkillKindChip;                                                 /* chip.c */
extern const tpSkillKindInfo tpSkillKindGuard;                                                /* guard.c */
extern const tpSkillKindInfo tpSkillKindRide;                                                 /* ride.c */
extern const tpSkillKindInfo tpSkillKindMotor;                                                /* skill_motor.c */
extern const tpSkillKindInfo tpSkillKindThrow, tpSkillKindNudge;                              /* throw.c */

static const tpSkillKindInfo *const k_kinds[TP_SKILL_KIND_COUNT] = {
    [TP_SKILL_WAIT] = &tpSkillKindWait,
    [TP_SKILL_DRIVE_TO] = &tpSkillKindDriveTo,
    [TP_SKILL_TURN_TO] = &tpSkillKindTurnTo,
    [TP_SKILL_KICK] = &tpSkillKindKick,
    [TP_SKILL_PUSH] = &tpSkillKindPush,
    [TP_SKILL_IMPULSE] = &tpSkillKindImpulse,
    [TP_SKILL_SPIN] = &tpSkillKindSpin,
    [TP_SKILL_BRAKE] = &tpSkillKindBrake,
    [TP_SKILL_RANDOM] = &tpSkillKindRandom,
    [TP_SKILL_CUSTOM] = &tpSkillKindCustom,
    [TP_SKILL_STEER] = &tpSkillKindSteer,
    [TP_SKILL_NAV_TO] = &tpSkillKindNavTo,
    [TP_SKILL_FOLLOW_FIELD] = &tpSkillKindFollowField,
    [TP_SKILL_DRIVE_TRACK] = &tpSkillKindDriveTrack,
    [TP_SKILL_CHIP] = &tpSkillKindChip,
    [TP_SKILL_GUARD] = &tpSkillKindGuard,
    [TP_SKILL_FOLLOW_PATH] = &tpSkillKindFollowPath,
    [TP_SKILL_RIDE] = &tpSkillKindRide,
    [TP_SKILL_MOTOR] = &tpSkillKindMotor,
    [TP_SKILL_THROW] = &tpSkillKindThrow,
    [TP_SKILL_NUDGE] = &tpSkillKindNudge,
};
_Static_assert(TP_SKILL_NUDGE + 1 == TP_SKILL_KIND_COUNT, "k_kinds needs a row for every kind");

/* Made here rather than in skill_cache.c (which frees it) so that the table of kinds is checked once
 * per loaded domain, which makes one cache (skill_cache.c may not call this file: the kinds call it). */
tpSkillCache *tpCreateSkillCache(void)
{
    TP_VALIDATE(tpSkillKinds_Valid, k_kinds);
    return calloc(1, sizeof(tpSkillCache));
}

const tpSkillKindInfo *const *tpSkillKind_Table(void)
{
    return k_kinds;
}

static const tpSkillKindInfo *kind_info(tpSkillKind kind)
{
    TP_ASSERT(kind >= 0 && kind < TP_SKILL_KIND_COUNT && k_kinds[kind]);
    return k_kinds[kind];
}

const char *tpSkillKind_Name(tpSkillKind kind)
{
    return (kind >= 0 && kind < TP_SKILL_KIND_COUNT) ? k_kinds[kind]->name : "?";
}

const char *tpSkillKind_Alias(tpSkillKind kind)
{
    return (kind >= 0 && kind < TP_SKILL_KIND_COUNT) ? k_kinds[kind]->alias : NULL;
}

int tpSkillKind_FromName(const char *name)
{
    for (int i = 0; i < TP_SKILL_KIND_COUNT; ++i) {
        if (strcmp(name, k_kinds[i]->name) == 0) {
            return i;
        }
    }
    for (int i = 0; i < TP_SKILL_KIND_COUNT; ++i) {
        if (k_kinds[i]->alias && strcmp(name, k_kinds[i]->alias) == 0) {
            return i;
        }
    }
    return -1;
}

const tpSkillField *tpSkillKind_Fields(tpSkillKind kind, const char *const **accepted)
{
    const tpSkillKindInfo *info = kind_info(kind);
    if (accepted) {
        *accepted = info->accepted;
    }
    return info->fields;
}

tpSkillDef tpDefaultSkillDef(tpSkillKind kind)
{
    const tpSkillKindInfo *info = kind_info(kind);
    tpSkillDef s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.body = -1;
    s.target = -1;
    s.frame = TP_FRAME_WORLD;
    s.gains.max_speed = 1.5;
    s.gains.max_yaw_rate = 6.0;
    s.gains.kp = 4.0;
    s.gains.kv = 12.0;
    s.gains.kyaw = 6.0;
    s.gains.kyaw_rate = 10.0;
    s.gains.tolerance = 0.02;
    s.gains.angle_tolerance = 0.08;
    if (info->defaults) {
        info->defaults(&s);
    }
    tpStrCopy(s.name, sizeof s.name, info->name);
    TP_VALIDATE(tpSkillDef_Valid, &s);
    return s;
}

bool tpSkillDef_Valid(const tpSkillDef *sk, char *why, size_t cap)
{
    return tpSkillDef_ValidIn(sk, k_kinds, why, cap);
}

bool tpSkill_CheckFields(const tpSkillDef *sk, char *err, size_t errlen)
{
    TP_ASSERT(sk);
    const tpSkillKindInfo *info = kind_info(sk->kind);
    return !info->check || info->check(sk, err, errlen);
}

bool tpSkill_Validate(const tpSkillDef *sk, const tpWorld *world, char *err, size_t errlen)
{
    TP_ASSERT(sk && world);
    int nb = tpWorld_BodyCount(world);
    if (sk->kind < 0 || sk->kind >= TP_SKILL_KIND_COUNT) {
        tpErrorf(err, errlen, "skill '%s': unknown kind %d", sk->name, (int)sk->kind);
        return false;
    }
    const tpSkillKindInfo *info = k_kinds[sk->kind];
    if (sk->body >= nb || (info->needs_body && sk->body < 0)) {
        tpErrorf(err, errlen, "skill '%s' (%s): 'body' must name a body", sk->name, info->name);
        return false;
    }
    if (info->needs_body && tpWorld_ControlSlot(world, sk->body) < 0) {
        tpErrorf(err, errlen,
                 "skill '%s': body '%s' is not actively controlled (class active or tactic-driven foreign)", sk->name,
                 tpWorld_Body(world, sk->body)->name);
        return false;
    }
    bool needs_target = info->needs_target || sk->frame == TP_FRAME_TARGET;
    if (sk->target >= nb || (needs_target && sk->target < 0)) {
        tpErrorf(err, errlen, "skill '%s' (%s): 'target' must name a body", sk->name, info->name);
        return false;
    }
    if (sk->target >= 0 && sk->target == sk->body && !info->self_target) {
        tpErrorf(err, errlen, "skill '%s': 'target' must differ from 'body'", sk->name);
        return false;
    }
    TP_SKILL_NUMS({"max_speed", sk->gains.max_speed, true}, {"max_yaw_rate", sk->gains.max_yaw_rate, true},
                  {"kp", sk->gains.kp, true}, {"kv", sk->gains.kv, true}, {"kyaw", sk->gains.kyaw, true},
                  {"kyaw_rate", sk->gains.kyaw_rate, true}, {"tolerance", sk->gains.tolerance, true},
                  {"angle_tolerance", sk->gains.angle_tolerance, true}, {"timeout", sk->gains.timeout, false});
    if (info->validate && !info->validate(info, sk, world, err, errlen)) {
        return false;
    }
    char msg[256];
    if (info->check && !info->check(sk, msg, sizeof msg)) {
        tpErrorf(err, errlen, "skill '%s' (%s): %s", sk->name, info->name, msg);
        return false;
    }
    return true;
}

int tpSkill_Run(const tpSkillDef *skill, tpSkillCall *call)
{
    TP_ASSERT(skill && call && call->world && call->V && call->action);
    const tpSkillKindInfo *info = kind_info(skill->kind);
    if (call->fresh && !call->overlay) { /* a recording replay brings the planning call's V */
        memset(call->V, 0, sizeof(double) * TP_SKILL_VARS);
        call->V[TP_V_START] = call->t;
    }
    const int rc = info->run(skill, call);
    if (rc >= 0 && skill->kind != TP_SKILL_CUSTOM) { /* a custom skill's V is the host's */
        TP_VALIDATE(tpSkillVars_Valid, (&(tpSkillVars){info, call->V, call->t}));
    }
    return rc;
}

int tpSkill_VarCount(const tpSkillDef *skill)
{
    TP_ASSERT(skill);
    return kind_info(skill->kind)->vars;
}
