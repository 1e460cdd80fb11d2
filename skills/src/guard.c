/* The guard skill (TP_SKILL_GUARD): keep a body between a moving `target` (a ball) and a
 * protected `point` (a goal). The body drives, within its force and speed limits, to the spot
 * `approach` m from the point along the line point -> target (never beyond the target itself,
 * less a clearance), facing the target. It re-aims every step and never ends (busy forever), so
 * it is meant for deterministic foreign tactics: defenders blocking the ball-goal line, a goalie
 * tracking the ball in front of its goal.
 *
 * Besides the controller's integrals (TP_V_YAW_INTEGRAL, TP_V_INTEGRAL_X/Y) it keeps the protected
 * point, sampled once. */
#include <math.h>

#include "skill_internal.h"
#include "skill_kind.h"

enum {
    GUARD_V_POINT_X = 1, /* m, world: the protected point */
    GUARD_V_POINT_Y = 2, /* m */
};

static int run_guard(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        double p[3];
        tpSkill_SamplePoint(sk, &sk->guard.point, call, &cb, p);
        V[GUARD_V_POINT_X] = p[0];
        V[GUARD_V_POINT_Y] = p[1];
    }
    tpBodyState ball;
    tpWorld_BodyState(call->world, call->x, call->t, sk->target, &ball);
    double ux = ball.pos[0] - V[GUARD_V_POINT_X], uy = ball.pos[1] - V[GUARD_V_POINT_Y];
    double n = sqrt(ux * ux + uy * uy);
    double goal[2] = {V[GUARD_V_POINT_X], V[GUARD_V_POINT_Y]};
    double heading = 0.0;
    if (n > 1e-9) {
        ux /= n;
        uy /= n;
        /* never step onto the ball: stop a body radius plus the ball's radius short of it */
        double limit = n - cb.radius - tpCtl_Radius(call->world, sk->target);
        double d =
            sk->guard.mark ? n - sk->guard.approach : sk->guard.approach; /* marking: `approach` in front of the ball */
        if (d > limit) {
            d = limit;
        }
        if (d < 0) {
            d = 0;
        }
        goal[0] += ux * d;
        goal[1] += uy * d;
        heading = atan2(uy, ux); /* face the ball (it lies ahead along u) */
    }
    double vcmd[2], f[3];
    tpCtl_GoToVelocity(&sk->gains, &cb, goal, sk->gains.max_speed, vcmd);
    tpCtl_TrackVelocity(&sk->gains, &cb, vcmd, V, call->dt, f);
    tpCtl_Apply(call, &cb, f, tpCtl_YawTorque(&sk->gains, &cb, n > 1e-9, heading, V, call->dt));
    return 1;
}

static void guard_defaults(tpSkillDef *def)
{
    def->guard.approach = 0.2;
}

static bool validate_guard(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                           size_t errlen)
{
    (void)world;
    TP_SKILL_NUMS({"approach", sk->guard.approach, true});
    TP_SKILL_DISTS({"point", &sk->guard.point, 2, 3});
    return tpSkill_RequirePoint(sk, kind->name, &sk->guard.point, err, errlen);
}

static const char *const k_guard_keys[] = {"name", "body", TP_SKILL_FRAMED_KEYS, "approach", "mark", TP_SKILL_GAIN_KEYS,
                                           NULL};
static const tpSkillField k_guard_fields[] = {
    TP_SKILL_DIST(guard, point, 2, 3),
    TP_SKILL_FIELD("mark", TP_FIELD_BOOL, guard, mark),
    TP_SKILL_FIELD("approach", TP_FIELD_NONNEG, guard, approach),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindGuard = {
    .name = "guard",
    .defaults = guard_defaults,
    .validate = validate_guard,
    .run = run_guard,
    .vars = TP_SKILL_VARS,
    .timeout = 6.0,
    .needs_body = true,
    .needs_target = true,
    .accepted = k_guard_keys,
    .fields = k_guard_fields,
};
