/* What the grid-navigation family shares between nav_skill.c (nav_to, follow_field, drive_track)
 * and nav_path_skill.c (follow_path): the tpNavDef defaults, checks and script fields. */
#ifndef TP_NAV_SKILL_H
#define TP_NAV_SKILL_H

#include "skill_kind.h"
#include "tp/nav.h"

/// tpNavDef's defaults (cell 0.1 m, radius 0, lookahead 0.4 m, replan 1 s).
void tpSkill_NavDefaults(tpSkillDef *def);
/// The checks of a tpNavDef kind (point required, grid constants, follow_path's replan).
bool tpSkill_ValidateNav(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                         size_t errlen);
/// The path follower's constants for a navigation skill: Kuffner's defaults with the skill's yaw
/// gains (ktheta = kyaw, komega = kyaw_rate, max_omega = max_yaw_rate), the cruise speed (m/s), the
/// look-ahead, the stop radius (the skill's tolerance), the turning speed (10 % of cruise) and dt.
tpNavFollowDef tpSkill_FollowerDef(const tpSkillDef *sk, const tpSkillCall *call, double cruise);
/// The typed script fields of follow_path, every tpNavDef field (nav_to and follow_field read fewer).
extern const tpSkillField tpSkill_NavFields[];

#endif
