/* kick and push (dribble): approach the `target` from behind and strike it toward `point` (kick), or
 * keep pushing it there (push); one family, one run function, two rows of skills.c's table. The
 * approach (tpKick_ApproachGoal) is shared with chip.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "skill_internal.h"
#include "skill_kind.h"
#include "tp/base.h"

#define KICK_TIMEOUT 6.0 /* s */
#define PUSH_TIMEOUT 8.0 /* s */

/* The body a kicked ball rolls on: the skill's `ground`, else the first static plane. */
static int kick_ground(const tpSkillDef *sk, const tpWorld *world)
{
    if (sk->kick.ground >= 0) {
        return sk->kick.ground;
    }
    for (int i = 0; i < tpWorld_BodyCount(world); ++i) {
        const tpBodyDef *b = tpWorld_Body(world, i);
        if (b->cls == TP_BODY_STATIC && b->shape == TP_SHAPE_PLANE) {
            return i;
        }
    }
    return -1;
}

double tpKick_DepartureSpeed(double mu, double rho, double radius, double g, double dist, double arrive)
{
    dist = dist > 0.0 ? dist : 0.0;
    arrive = arrive > 0.0 ? arrive : 0.0;
    if (mu <= 0.0 || g <= 0.0 || radius <= 0.0) {
        return arrive; /* frictionless: it slides on unbraked */
    }
    double slide = sqrt(arrive * arrive + 2.0 * mu * g * dist); /* arriving while still sliding */
    /* Sliding: v drops at mu g while friction (mu N r) spins the ball up against the rolling
     * resistance (rho N); it rolls (omega r = v) at v1 = c v0. */
    double spin = 3.5 * mu - 2.5 * rho / radius;
    if (spin <= mu) {
        return slide; /* the rolling resistance wins: it never rolls */
    }
    double c = 1.0 - mu / spin;
    double roll = rho * g / (1.4 * radius); /* m/s² while rolling */
    /* arrive² = c² v0² - 2 roll (dist - (1 - c²) v0² / (2 mu g)) */
    double k = c * c + (1.0 - c * c) * roll / (mu * g);
    double v0 = sqrt((arrive * arrive + 2.0 * roll * dist) / k);
    double slid = (1.0 - c * c) * v0 * v0 / (2.0 * mu * g);
    return slid <= dist ? v0 : slide;
}

/* The checks of a kick or push (the kick member). */
static bool validate_kick(const tpSkillKindInfo *kind, const tpSkillDef *sk, const tpWorld *world, char *err,
                          size_t errlen)
{
    const tpKickDef *k = &sk->kick;
    bool kick = sk->kind == TP_SKILL_KICK;
    TP_SKILL_NUMS({"approach", k->approach, true}, {"transfer", k->transfer, false},
                  {"trigger_speed", k->trigger_speed, false});
    TP_SKILL_DISTS({"point", &k->point, 2, 3}, {"speed", &k->speed, 1, 1}, {"arrive_speed", &k->arrive_speed, 1, 1},
                   {"direction", &k->direction, 1, 3});
    bool has_dir = k->direction.kind != TP_DIST_UNSET;
    bool arrive = k->arrive_speed.kind != TP_DIST_UNSET;
    if (!kick) {
        if (has_dir) {
            tpErrorf(err, errlen, "skill '%s' (%s): 'direction' is for impulse and kick", sk->name, kind->name);
            return false;
        }
        if (arrive) {
            tpErrorf(err, errlen, "skill '%s': 'arrive_speed' is for kick, instead of 'speed'", sk->name);
            return false;
        }
        if (k->point.kind == TP_DIST_UNSET) {
            tpErrorf(err, errlen, "skill '%s' (%s): 'point' (where to send the target) is required", sk->name,
                     kind->name);
            return false;
        }
        return true;
    }
    if (has_dir && (k->point.kind != TP_DIST_UNSET || arrive || k->direction.dim > 2)) {
        tpErrorf(err, errlen,
                 "skill '%s' (kick): 'direction' (an angle or a 2-vector) replaces 'point' and needs 'speed' "
                 "(not 'point' or 'arrive_speed')",
                 sk->name);
        return false;
    }
    if (!has_dir && k->point.kind == TP_DIST_UNSET) {
        tpErrorf(err, errlen, "skill '%s' (kick): 'point' (where to send the target) or 'direction' is required",
                 sk->name);
        return false;
    }
    if (k->speed.kind == TP_DIST_UNSET && !arrive) {
        tpErrorf(err, errlen, "skill '%s' (kick): 'speed' or 'arrive_speed' is required", sk->name);
        return false;
    }
    if (arrive) {
        if (k->speed.kind != TP_DIST_UNSET) {
            tpErrorf(err, errlen, "skill '%s': 'arrive_speed' is for kick, instead of 'speed'", sk->name);
            return false;
        }
        if (tpWorld_Body(world, sk->target)->shape != TP_SHAPE_SPHERE) {
            tpErrorf(err, errlen, "skill '%s': 'arrive_speed' needs a sphere target ('%s' is not one)", sk->name,
                     tpWorld_Body(world, sk->target)->name);
            return false;
        }
        if (k->ground >= tpWorld_BodyCount(world) || kick_ground(sk, world) < 0) {
            tpErrorf(err, errlen, "skill '%s': 'arrive_speed' needs a 'ground' body (the scene has no static plane)",
                     sk->name);
            return false;
        }
    }
    return true;
}

/* ---- kick / push --------------------------------------------------------------------------- */
enum {
    KICK_V_DEST_X = 1,      /* m, world: where the target is sent */
    KICK_V_DEST_Y = 2,      /* m */
    KICK_V_SPEED = 3,       /* m/s: the target's departure speed (push: its dribbling speed) */
    KICK_V_PHASE = 4,       /* PH_APPROACH, PH_STRIKE (push: dribble) or PH_BRAKE */
    KICK_V_PHASE_START = 5, /* s: when the phase began */
    KICK_V_DIR_X = 6,       /* unit vector: the striking direction locked at the end of the approach */
    KICK_V_DIR_Y = 7,
    KICK_V_BEST_ERR = 8,  /* m: closest distance to the lining-up point so far (stall detection) */
    KICK_V_BEST_TIME = 9, /* s: when KICK_V_BEST_ERR last improved by 1 cm */
};
enum { PH_APPROACH = 0, PH_STRIKE = 1, PH_BRAKE = 2 };

void tpKick_ApproachGoal(const tpCtlBody *cb, const double ball[2], double dx, double dy, double stand,
                         double min_stand, double clear, double goal[2])
{
    double rx = cb->s.pos[0] - ball[0], ry = cb->s.pos[1] - ball[1];
    double along = rx * dx + ry * dy;
    double lateral = -rx * dy + ry * dx;
    double back = stand;
    if (along < -min_stand && along > -stand && fabs(lateral) < clear) {
        back = -along;
    }
    goal[0] = ball[0] - dx * back;
    goal[1] = ball[1] - dy * back;
    /* Go around the target when we are on its far side: aim for a point beside it first. */
    if (along > -0.5 * stand && fabs(lateral) < clear) {
        double side = lateral >= 0 ? 1.0 : -1.0;
        goal[0] = ball[0] - dy * side * clear * 1.5 - dx * 0.5 * stand;
        goal[1] = ball[1] + dx * side * clear * 1.5 - dy * 0.5 * stand;
    }
}

static void set_phase(double *V, int phase, double t)
{
    V[KICK_V_PHASE] = phase;
    V[KICK_V_PHASE_START] = t;
    /* a new phase tracks a new velocity: the old integral would push the body sideways */
    V[TP_V_INTEGRAL_X] = 0.0;
    V[TP_V_INTEGRAL_Y] = 0.0;
    V[TP_V_YAW_INTEGRAL] = 0.0;
}

/* Speed of the striking body (m/s) that sends the target off at v_target: momentum exchange
 * with the pair's restitution, unless the skill sets `transfer`; capped by max_speed. */
static double kick_strike_speed(const tpSkillDef *sk, const tpSkillCall *call, const tpCtlBody *cb, double v_target)
{
    double transfer = sk->kick.transfer;
    if (transfer <= 0) {
        double e = tpWorld_PairSurface(call->world, sk->body, sk->target).restitution;
        double mt = tpWorld_Body(call->world, sk->target)->mass;
        transfer = (1.0 + e) * cb->mass / (cb->mass + (mt > 0 ? mt : 0));
    }
    return fmin(v_target / transfer, sk->gains.max_speed);
}

static int run_kick(const tpSkillDef *sk, tpSkillCall *call)
{
    const bool push = sk->kind == TP_SKILL_PUSH;
    const double timeout = tpSkill_Timeout(sk, push ? PUSH_TIMEOUT : KICK_TIMEOUT);
    const tpKickDef *k = &sk->kick;
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    tpBodyState ball;
    tpWorld_BodyState(call->world, call->x, call->t, sk->target, &ball);
    if (call->fresh) {
        double p[3];
        if (k->direction.kind != TP_DIST_UNSET) {
            /* speed + direction: a point 1 m from the target along the direction (only its
             * direction from the target is used by a kick) */
            double d[3];
            tpSkill_SampleDirection(&k->direction, call, 0.0, d);
            p[0] = ball.pos[0] + d[0];
            p[1] = ball.pos[1] + d[1];
        } else {
            tpSkill_SamplePoint(sk, &k->point, call, &cb, p);
        }
        V[KICK_V_DEST_X] = p[0];
        V[KICK_V_DEST_Y] = p[1];
        if (k->arrive_speed.kind != TP_DIST_UNSET) {
            double va = tpSkill_Sample1(&k->arrive_speed, call, 0.0);
            int ground = kick_ground(sk, call->world);
            tpPairSurface ps = tpWorld_PairSurface(call->world, sk->target, ground);
            const double *gv = tpWorld_Def(call->world)->gravity;
            double g = sqrt(gv[0] * gv[0] + gv[1] * gv[1] + gv[2] * gv[2]);
            double dist = tpSkill_Norm2(p[0] - ball.pos[0], p[1] - ball.pos[1]);
            V[KICK_V_SPEED] = tpKick_DepartureSpeed(ps.friction, ps.rolling_friction,
                                                    tpWorld_Body(call->world, sk->target)->size[0], g, dist, va);
        } else {
            V[KICK_V_SPEED] = tpSkill_Sample1(&k->speed, call, 0.5 * sk->gains.max_speed);
        }
        set_phase(V, PH_APPROACH, call->t);
    }
    double t = call->t;
    double ball_speed = tpSkill_Norm2(ball.vel[0], ball.vel[1]);
    double target_r = tpCtl_Radius(call->world, sk->target);
    double f[3] = {0, 0, 0};
    double vcmd[2];
    if (t - V[TP_V_START] >= timeout && (int)V[KICK_V_PHASE] != PH_BRAKE) {
        set_phase(V, PH_BRAKE, t);
    }
    int phase = (int)V[KICK_V_PHASE];
    if (phase == PH_APPROACH) {
        double dx = V[KICK_V_DEST_X] - ball.pos[0], dy = V[KICK_V_DEST_Y] - ball.pos[1];
        double dn = tpSkill_Norm2(dx, dy);
        if (dn < 1e-9) {
            dx = 1.0;
            dy = 0.0;
            dn = 1.0;
        }
        dx /= dn;
        dy /= dn;
        double heading = atan2(dy, dx);
        /* the run-up: room to reach the striking speed at 80 % of the force limit */
        double run = k->approach;
        double min_run = 0.5 * run;
        if (!push) {
            double vs = kick_strike_speed(sk, call, &cb, V[KICK_V_SPEED]);
            run = fmax(run, vs * vs / (2.0 * 0.8 * cb.max_accel));
            /* never less than the full force limit needs: from closer the strike comes too slow
             * (a minigolf shot from 14 cm where 16 cm were needed left at 2.06 m/s for 2.31) */
            min_run = fmax(0.5 * run, vs * vs / (2.0 * cb.max_accel));
        }
        double stand = cb.radius + target_r + run;
        double clear = cb.radius + target_r + 0.05;
        /* Line up `stand` behind the target -- or closer, down to `min_run`, when we are already
         * behind it: a target near a wall leaves no room for the full stand-off. */
        double min_stand = cb.radius + target_r + min_run;
        double goal[2];
        tpKick_ApproachGoal(&cb, ball.pos, dx, dy, stand, min_stand, clear, goal);
        tpCtl_GoToVelocity(&sk->gains, &cb, goal, sk->gains.max_speed, vcmd);
        tpCtl_TrackVelocity(&sk->gains, &cb, vcmd, V, call->dt, f);
        tpCtl_Apply(call, &cb, f, tpCtl_YawTorque(&sk->gains, &cb, true, heading, V, call->dt));
        double err = tpSkill_Norm2(goal[0] - cb.s.pos[0], goal[1] - cb.s.pos[1]);
        /* Strike only when lined up: the ball leaves along the striking face's normal, so the
         * heading error becomes the shot's direction error; and from rest (4 mm, 1 cm/s): a
         * sliding striker keeps its sideways drift through the strike (docs/physics.md, the
         * friction pyramid's second row) and hands it to the ball -- with 1 cm and 5 cm/s
         * minigolf's shots left 0.5-1 degree off the aim and BK-BGT needed 1.3 times the nodes. */
        bool lined_up = err < 0.004 && tpSkill_Norm2(cb.s.vel[0], cb.s.vel[1]) < 0.01 &&
                        fabs(tpCtl_YawError(&cb, heading)) < 0.25 * sk->gains.angle_tolerance &&
                        fabs(cb.s.angvel[2]) < 0.1;
        /* friction can stall the last millimetres: after 2 s, roughly lined up is good enough */
        bool close_enough = t - V[KICK_V_PHASE_START] > 2.0 && err < 0.03 &&
                            fabs(tpCtl_YawError(&cb, heading)) < sk->gains.angle_tolerance;
        /* Give up when stalled: no 1 cm of progress for a second (the spot behind the target
         * is blocked, e.g. by a wall); a timeout would waste the rest of the segment. */
        if (call->fresh || err < V[KICK_V_BEST_ERR] - 0.01) {
            V[KICK_V_BEST_ERR] = err;
            V[KICK_V_BEST_TIME] = t;
        } else if (t - V[KICK_V_BEST_TIME] > 1.0 && !lined_up && !close_enough) {
            set_phase(V, PH_BRAKE, t);
            return 1;
        }
        if (lined_up || close_enough) {
            V[KICK_V_DIR_X] = dx;
            V[KICK_V_DIR_Y] = dy;
            set_phase(V, PH_STRIKE, t);
        }
        return 1;
    }
    if (phase == PH_STRIKE) {
        double dx = V[KICK_V_DIR_X], dy = V[KICK_V_DIR_Y];
        double strike =
            push ? fmin(V[KICK_V_SPEED], sk->gains.max_speed) : kick_strike_speed(sk, call, &cb, V[KICK_V_SPEED]);
        /* Stay on the line through the target along the locked direction. */
        double rx = cb.s.pos[0] - ball.pos[0], ry = cb.s.pos[1] - ball.pos[1];
        double lateral = -rx * dy + ry * dx;
        if (push) {
            vcmd[0] = dx * strike + dy * sk->gains.kp * lateral;
            vcmd[1] = dy * strike - dx * sk->gains.kp * lateral;
            tpCtl_TrackVelocity(&sk->gains, &cb, vcmd, V, call->dt, f);
        } else {
            /* Full force along the line until the striking speed (the run-up is sized for it),
             * then hold it; a P law on the lateral offset keeps the face on the line. */
            double v_along = cb.s.vel[0] * dx + cb.s.vel[1] * dy;
            double v_side = cb.s.vel[0] * dy - cb.s.vel[1] * dx;
            double e = strike - v_along;
            double f_along = e > 0.05 ? cb.max_force : cb.mass * sk->gains.kv * e;
            double f_side = cb.mass * sk->gains.kv * (sk->gains.kp * lateral - v_side);
            f[0] = dx * f_along + dy * f_side;
            f[1] = dy * f_along - dx * f_side;
            f[2] = 0.0;
        }
        tpCtl_Apply(call, &cb, f, tpCtl_YawTorque(&sk->gains, &cb, true, atan2(dy, dx), V, call->dt));
        double along = rx * dx + ry * dy;
        if (push) {
            double tx = V[KICK_V_DEST_X] - ball.pos[0], ty = V[KICK_V_DEST_Y] - ball.pos[1];
            bool reached = tx * dx + ty * dy <= 0.0 || tpSkill_Norm2(tx, ty) < sk->gains.tolerance;
            bool lost = along > 0.0 || tpSkill_Norm2(rx, ry) > cb.radius + target_r + 2.0 * k->approach;
            if (reached || lost) {
                set_phase(V, PH_BRAKE, t);
            }
        } else if (ball_speed > 0.05 || along > 0.0) {
            set_phase(V, PH_BRAKE, t); /* the strike happened (or we passed the target) */
        }
        return 1;
    }
    tpCtl_Brake(&sk->gains, call, &cb);
    bool stopped = tpSkill_Norm2(cb.s.vel[0], cb.s.vel[1]) < 0.05 && fabs(cb.s.angvel[2]) < 0.3;
    if (k->follow && t - V[TP_V_START] < timeout + 20.0 &&
        sqrt(ball.vel[0] * ball.vel[0] + ball.vel[1] * ball.vel[1] + ball.vel[2] * ball.vel[2]) >= k->trigger_speed) {
        return 1; /* follow-through: the target still moves */
    }
    return (stopped || t - V[KICK_V_PHASE_START] > 1.5) ? 0 : 1;
}

static void kick_defaults(tpSkillDef *def)
{
    def->kick.ground = -1;
    def->kick.approach = 0.2;
    def->kick.trigger_speed = 0.05;
}

static const char *const k_kick_keys[] = {"name",          "body",    TP_SKILL_FRAMED_KEYS, "direction", "speed",
                                          "arrive_speed",  "ground",  "approach",           "transfer",  "follow",
                                          "trigger_speed", "timeout", TP_SKILL_GAIN_KEYS,   NULL};
static const tpSkillField k_kick_fields[] = {
    TP_SKILL_DIST(kick, point, 2, 3),
    TP_SKILL_DIST(kick, speed, 1, 1),
    TP_SKILL_DIST(kick, arrive_speed, 1, 1),
    TP_SKILL_FIELD("ground", TP_FIELD_BODY, kick, ground),
    TP_SKILL_DIST(kick, direction, 1, 2),
    TP_SKILL_FIELD("follow", TP_FIELD_BOOL, kick, follow),
    TP_SKILL_FIELD("approach", TP_FIELD_NONNEG, kick, approach),
    TP_SKILL_FIELD("transfer", TP_FIELD_NONNEG, kick, transfer),
    TP_SKILL_FIELD("trigger_speed", TP_FIELD_NONNEG, kick, trigger_speed),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindKick = {
    .name = "kick",
    .defaults = kick_defaults,
    .validate = validate_kick,
    .run = run_kick,
    .vars = TP_SKILL_VARS,
    .timeout = KICK_TIMEOUT,
    .needs_body = true,
    .needs_target = true,
    .accepted = k_kick_keys,
    .fields = k_kick_fields,
};

static const char *const k_push_keys[] = {
    "name",          "body",    TP_SKILL_FRAMED_KEYS, "speed", "approach", "follow",
    "trigger_speed", "timeout", TP_SKILL_GAIN_KEYS,   NULL};
static const tpSkillField k_push_fields[] = {
    TP_SKILL_DIST(kick, point, 2, 3),
    TP_SKILL_DIST(kick, speed, 1, 1),
    TP_SKILL_FIELD("follow", TP_FIELD_BOOL, kick, follow),
    TP_SKILL_FIELD("approach", TP_FIELD_NONNEG, kick, approach),
    TP_SKILL_FIELD("trigger_speed", TP_FIELD_NONNEG, kick, trigger_speed),
    TP_SKILL_FIELDS_END,
};
const tpSkillKindInfo tpSkillKindPush = {
    .name = "push",
    .alias = "dribble",
    .defaults = kick_defaults,
    .validate = validate_kick,
    .run = run_kick,
    .vars = TP_SKILL_VARS,
    .timeout = PUSH_TIMEOUT,
    .needs_body = true,
    .needs_target = true,
    .accepted = k_push_keys,
    .fields = k_push_fields,
};
