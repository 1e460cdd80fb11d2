/* The guard skill (TP_SKILL_GUARD): keep a body between a moving `target` (a ball) and a
 * protected `point` (a goal). The body drives, within its force and speed limits, to the spot
 * `approach` m from the point along the line point -> target (never beyond the target itself,
 * less a clearance), facing the target. It re-aims every step and never ends (busy forever), so
 * it is meant for deterministic foreign tactics: defenders blocking the ball-goal line, a goalie
 * tracking the ball in front of its goal.
 *
 * V layout: V[1..2] protected point (m, sampled once), V[13] yaw and V[14..15] velocity-error
 * integrals of the controller. */
#include <math.h>

#include "skill_internal.h"

int tpSkill_RunGuard(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        double p[3];
        tpSkill_SamplePoint(sk, call, &cb, p);
        V[1] = p[0];
        V[2] = p[1];
    }
    tpBodyState ball;
    tpWorld_BodyState(call->world, call->x, call->t, sk->target, &ball);
    double ux = ball.pos[0] - V[1], uy = ball.pos[1] - V[2];
    double n = sqrt(ux * ux + uy * uy);
    double goal[2] = {V[1], V[2]};
    double heading = 0.0;
    if (n > 1e-9) {
        ux /= n;
        uy /= n;
        /* never step onto the ball: stop a body radius plus the ball's radius short of it */
        double limit = n - cb.radius - tpCtl_Radius(call->world, sk->target);
        double d = sk->mark ? n - sk->approach : sk->approach; /* marking: `approach` in front of the ball */
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
    tpCtl_GoToVelocity(sk, &cb, goal, sk->max_speed, vcmd);
    tpCtl_TrackVelocity(sk, &cb, vcmd, V, call->dt, f);
    tpCtl_Apply(call, &cb, f, tpCtl_YawTorque(sk, &cb, n > 1e-9, heading, V, call->dt));
    return 1;
}
