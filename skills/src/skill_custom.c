/* The custom kind: f is supplied by the host (tpCustomDef: a Lua function through the binding),
 * called every step with tpSkill_Run's contract. A row of skills.c's table. */
#include "skill_internal.h"
#include "skill_kind.h"
#include "tp/base.h"

static int run_custom(const tpSkillDef *sk, tpSkillCall *call)
{
    return sk->custom.fn ? sk->custom.fn(sk->custom.user, sk->custom.id, call) : -1;
}

static bool validate_custom(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                            size_t errlen)
{
    (void)kind;
    (void)world;
    if (!sk->custom.fn) {
        tpErrorf(err, errlen, "skill '%s' (custom): no function", sk->name);
        return false;
    }
    return true;
}

/* `run` (the Lua function) is read by the binding itself */
static const char *const k_custom_keys[] = {"name", "body", "target", "run", NULL};
static const tpSkillField k_custom_fields[] = {TP_SKILL_FIELDS_END};
const tpSkillKindInfo tpSkillKindCustom = {
    .name = "custom",
    .validate = validate_custom,
    .run = run_custom,
    .vars = TP_SKILL_VARS,
    .timeout = 6.0,
    .accepted = k_custom_keys,
    .fields = k_custom_fields,
};
