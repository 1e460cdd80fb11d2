/* The C skill primitives: f(C, D, V, x, a) -> (a', V', b).
 *
 * Each primitive samples its distributions only on its fresh call (a decision point), stores
 * what it sampled in V, and then runs a deterministic controller, reporting busy until the
 * segment ends. V[TP_V_START] always holds the start time; each kind names its other variables
 * with a `<KIND>_V_<NAME>` enum above its f (skill_internal.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "skill_internal.h"
#include "tp/base.h"

static const char *const k_kind_names[TP_SKILL_KIND_COUNT] = {
    "wait",   "drive_to", "turn_to", "kick",         "push",        "impulse", "spin",  "brake",       "random",
    "custom", "steer",    "nav_to",  "follow_field", "drive_track", "chip",    "guard", "follow_path", "ride",
};

const char *tpSkillKind_Name(tpSkillKind kind)
{
    return (kind >= 0 && kind < TP_SKILL_KIND_COUNT) ? k_kind_names[kind] : "?";
}

int tpSkillKind_FromName(const char *name)
{
    for (int i = 0; i < TP_SKILL_KIND_COUNT; ++i) {
        if (strcmp(name, k_kind_names[i]) == 0) {
            return i;
        }
    }
    if (strcmp(name, "dribble") == 0) {
        return TP_SKILL_PUSH;
    }
    if (strcmp(name, "hold") == 0) {
        return TP_SKILL_BRAKE;
    }
    return -1;
}

tpSkillDef tpDefaultSkillDef(tpSkillKind kind)
{
    TP_ASSERT(kind >= 0 && kind < TP_SKILL_KIND_COUNT);
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
    switch (kind) {
    case TP_SKILL_WAIT:
        s.wait.trigger_speed = 0.05;
        break;
    case TP_SKILL_KICK:
    case TP_SKILL_PUSH:
        s.kick.ground = -1;
        s.kick.approach = 0.2;
        s.kick.trigger_speed = 0.05;
        break;
    case TP_SKILL_IMPULSE:
        s.impulse.trigger_speed = 0.05;
        break;
    case TP_SKILL_SPIN:
        s.spin.trigger_speed = 0.05;
        break;
    case TP_SKILL_STEER:
        s.steer.min_z = -HUGE_VAL;
        s.steer.max_z = HUGE_VAL;
        break;
    case TP_SKILL_NAV_TO:
    case TP_SKILL_FOLLOW_FIELD:
    case TP_SKILL_FOLLOW_PATH:
        s.nav.cell = 0.1;
        s.nav.radius = 0.0;
        s.nav.lookahead = 0.4;
        s.nav.replan = 1.0;
        break;
    case TP_SKILL_CHIP:
        s.chip.approach = 0.2;
        s.chip.trigger_speed = 0.05;
        break;
    case TP_SKILL_GUARD:
        s.guard.approach = 0.2;
        break;
    case TP_SKILL_RIDE:
        s.ride.cell = 0.1;
        s.ride.jump_vz = 2.0;
        s.ride.jump_vh = 2.0;
        break;
    default: /* drive_to, turn_to, brake, random, custom, drive_track: zeros and unset */
        break;
    }
    tpStrCopy(s.name, sizeof s.name, tpSkillKind_Name(kind));
    return s;
}

static double default_timeout(const tpSkillDef *sk)
{
    if (sk->gains.timeout > 0) {
        return sk->gains.timeout;
    }
    switch (sk->kind) {
    case TP_SKILL_PUSH:
        return 8.0;
    case TP_SKILL_SPIN:
        return 10.0;
    case TP_SKILL_WAIT:
        return 20.0;
    case TP_SKILL_NAV_TO:
    case TP_SKILL_FOLLOW_PATH:
    case TP_SKILL_FOLLOW_FIELD:
        return 30.0;
    case TP_SKILL_RIDE:
        return 40.0;
    default:
        return 6.0;
    }
}

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

double tpSkill_DefaultTimeout(const tpSkillDef *sk)
{
    return default_timeout(sk);
}

/* One named number of a def: finite, >= 0, and > 0 when `positive`. */
typedef struct {
    const char *n;
    double v;
    bool positive;
} SkillNum;

static bool check_nums(const tpSkillDef *sk, const SkillNum *nums, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(nums[i].v) || nums[i].v < 0 || (nums[i].positive && nums[i].v == 0)) {
            tpErrorf(err, errlen, "skill '%s': %s must be %s (got %g)", sk->name, nums[i].n,
                     nums[i].positive ? "> 0" : ">= 0", nums[i].v);
            return false;
        }
    }
    return true;
}

/* One named distribution of a def, with its allowed dimensions. */
typedef struct {
    const char *n;
    const tpDist *d;
    int dmin, dmax;
} SkillDist;

static bool check_dists(const tpSkillDef *sk, const SkillDist *dists, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; ++i) {
        char field[96];
        snprintf(field, sizeof field, "skill '%s': %s", sk->name, dists[i].n);
        if (!tpDist_Validate(dists[i].d, field, err, errlen)) {
            return false;
        }
        if (dists[i].d->kind != TP_DIST_UNSET && (dists[i].d->dim < dists[i].dmin || dists[i].d->dim > dists[i].dmax)) {
            tpErrorf(err, errlen, "%s: expected dimension %d..%d (got %d)", field, dists[i].dmin, dists[i].dmax,
                     dists[i].d->dim);
            return false;
        }
    }
    return true;
}

#define NUMS(...)                                                                                                      \
    do {                                                                                                               \
        const SkillNum nums_[] = {__VA_ARGS__};                                                                        \
        if (!check_nums(sk, nums_, sizeof nums_ / sizeof nums_[0], err, errlen)) {                                     \
            return false;                                                                                              \
        }                                                                                                              \
    } while (0)
#define DISTS(...)                                                                                                     \
    do {                                                                                                               \
        const SkillDist dists_[] = {__VA_ARGS__};                                                                      \
        if (!check_dists(sk, dists_, sizeof dists_ / sizeof dists_[0], err, errlen)) {                                 \
            return false;                                                                                              \
        }                                                                                                              \
    } while (0)

static bool require_point(const tpSkillDef *sk, const tpDist *point, char *err, size_t errlen)
{
    if (point->kind == TP_DIST_UNSET) {
        tpErrorf(err, errlen, "skill '%s' (%s): 'point' is required", sk->name, tpSkillKind_Name(sk->kind));
        return false;
    }
    return true;
}

/* The checks of a kick or push (the kick member). */
static bool validate_kick(const tpSkillDef *sk, const tpWorld *world, char *err, size_t errlen)
{
    const tpKickDef *k = &sk->kick;
    bool kick = sk->kind == TP_SKILL_KICK;
    NUMS({"approach", k->approach, true}, {"transfer", k->transfer, false}, {"trigger_speed", k->trigger_speed, false});
    DISTS({"point", &k->point, 2, 3}, {"speed", &k->speed, 1, 1}, {"arrive_speed", &k->arrive_speed, 1, 1},
          {"direction", &k->direction, 1, 3});
    bool has_dir = k->direction.kind != TP_DIST_UNSET;
    bool arrive = k->arrive_speed.kind != TP_DIST_UNSET;
    if (!kick) {
        if (has_dir) {
            tpErrorf(err, errlen, "skill '%s' (%s): 'direction' is for impulse and kick", sk->name,
                     tpSkillKind_Name(sk->kind));
            return false;
        }
        if (arrive) {
            tpErrorf(err, errlen, "skill '%s': 'arrive_speed' is for kick, instead of 'speed'", sk->name);
            return false;
        }
        if (k->point.kind == TP_DIST_UNSET) {
            tpErrorf(err, errlen, "skill '%s' (%s): 'point' (where to send the target) is required", sk->name,
                     tpSkillKind_Name(sk->kind));
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

/* The checks of the kind's own fields (its union member). */
static bool validate_kind(const tpSkillDef *sk, const tpWorld *world, char *err, size_t errlen)
{
    switch (sk->kind) {
    case TP_SKILL_WAIT:
        NUMS({"trigger_speed", sk->wait.trigger_speed, false});
        DISTS({"duration", &sk->wait.duration, 1, 1});
        return true;
    case TP_SKILL_DRIVE_TO:
    case TP_SKILL_TURN_TO:
        DISTS({"point", &sk->drive.point, 2, 3}, {"heading", &sk->drive.heading, 1, 1},
              {"speed", &sk->drive.speed, 1, 1});
        if (sk->kind == TP_SKILL_TURN_TO && sk->drive.heading.kind == TP_DIST_UNSET) {
            tpErrorf(err, errlen, "skill '%s' (turn_to): 'heading' is required", sk->name);
            return false;
        }
        return sk->kind == TP_SKILL_TURN_TO || require_point(sk, &sk->drive.point, err, errlen);
    case TP_SKILL_KICK:
    case TP_SKILL_PUSH:
        return validate_kick(sk, world, err, errlen);
    case TP_SKILL_IMPULSE: {
        const tpImpulseDef *im = &sk->impulse;
        NUMS({"trigger_speed", im->trigger_speed, false});
        DISTS({"duration", &im->duration, 1, 1}, {"speed", &im->speed, 1, 1}, {"force", &im->force, 1, 3},
              {"direction", &im->direction, 1, 3});
        bool has_force = im->force.kind != TP_DIST_UNSET, has_speed = im->speed.kind != TP_DIST_UNSET;
        if (has_force == has_speed) {
            tpErrorf(err, errlen, "skill '%s' (impulse): give 'force' or 'speed' (one of them)", sk->name);
            return false;
        }
        if (im->direction.kind != TP_DIST_UNSET && has_force && im->force.dim != 1) {
            tpErrorf(err, errlen,
                     "skill '%s' (impulse): with 'direction', 'force' is a magnitude (dimension 1, got %d)", sk->name,
                     im->force.dim);
            return false;
        }
        return true;
    }
    case TP_SKILL_SPIN:
        NUMS({"trigger_speed", sk->spin.trigger_speed, false});
        DISTS({"point", &sk->spin.point, 2, 3}, {"force", &sk->spin.force, 1, 1},
              {"duration", &sk->spin.duration, 1, 1});
        return true;
    case TP_SKILL_BRAKE:
        DISTS({"duration", &sk->brake.duration, 1, 1});
        return true;
    case TP_SKILL_RANDOM:
        DISTS({"force", &sk->random.force, 1, 1}, {"duration", &sk->random.duration, 1, 1});
        return true;
    case TP_SKILL_CUSTOM:
        if (!sk->custom.fn) {
            tpErrorf(err, errlen, "skill '%s' (custom): no function", sk->name);
            return false;
        }
        return true;
    case TP_SKILL_STEER:
        DISTS({"point", &sk->steer.point, 2, 3}, {"force", &sk->steer.force, 1, 1},
              {"duration", &sk->steer.duration, 1, 1});
        if (isnan(sk->steer.min_z) || isnan(sk->steer.max_z) || sk->steer.min_z > sk->steer.max_z) {
            tpErrorf(err, errlen, "skill '%s' (steer): min_z must be <= max_z (got %g, %g)", sk->name, sk->steer.min_z,
                     sk->steer.max_z);
            return false;
        }
        return true;
    case TP_SKILL_NAV_TO:
    case TP_SKILL_FOLLOW_FIELD:
    case TP_SKILL_FOLLOW_PATH:
        DISTS({"point", &sk->nav.point, 2, 3}, {"speed", &sk->nav.speed, 1, 1});
        if (!require_point(sk, &sk->nav.point, err, errlen)) {
            return false;
        }
        if (!(sk->nav.cell > 0) || !isfinite(sk->nav.cell) || !(sk->nav.radius >= 0) || !isfinite(sk->nav.radius) ||
            !(sk->nav.lookahead > 0) || !isfinite(sk->nav.lookahead)) {
            tpErrorf(err, errlen, "skill '%s' (%s): nav_cell and nav_lookahead must be > 0, nav_radius >= 0", sk->name,
                     tpSkillKind_Name(sk->kind));
            return false;
        }
        if (sk->kind == TP_SKILL_FOLLOW_PATH && (!(sk->nav.replan > 0) || !isfinite(sk->nav.replan))) {
            tpErrorf(err, errlen, "skill '%s' (follow_path): nav_replan must be > 0", sk->name);
            return false;
        }
        return true;
    case TP_SKILL_DRIVE_TRACK:
        DISTS({"point", &sk->track.point, 2, 3}, {"lane", &sk->track.lane, 1, 1}, {"horizon", &sk->track.horizon, 1, 1},
              {"speed", &sk->track.speed, 1, 1});
        return require_point(sk, &sk->track.point, err, errlen);
    case TP_SKILL_CHIP:
        NUMS({"approach", sk->chip.approach, true}, {"trigger_speed", sk->chip.trigger_speed, false});
        DISTS({"point", &sk->chip.point, 2, 3}, {"speed", &sk->chip.speed, 1, 1}, {"loft", &sk->chip.loft, 1, 1});
        return require_point(sk, &sk->chip.point, err, errlen) && tpSkill_ValidateChip(sk, world, err, errlen);
    case TP_SKILL_GUARD:
        NUMS({"approach", sk->guard.approach, true});
        DISTS({"point", &sk->guard.point, 2, 3});
        return require_point(sk, &sk->guard.point, err, errlen);
    case TP_SKILL_RIDE:
        DISTS({"point", &sk->ride.point, 2, 3}, {"duration", &sk->ride.margin, 1, 1});
        if (!require_point(sk, &sk->ride.point, err, errlen)) {
            return false;
        }
        if (!(sk->ride.cell > 0) || !isfinite(sk->ride.cell)) {
            tpErrorf(err, errlen, "skill '%s' (ride): nav_cell must be > 0", sk->name);
            return false;
        }
        if (!(sk->ride.jump_vz >= 0) || !(sk->ride.jump_vz <= TP_MAX_SPEED) || !(sk->ride.jump_vh >= 0) ||
            !(sk->ride.jump_vh <= TP_MAX_SPEED) || !(sk->ride.walk_force >= 0) ||
            !(sk->ride.walk_force <= TP_MAX_FORCE)) {
            tpErrorf(err, errlen,
                     "skill '%s' (ride): jump_vz and jump_vh must be in [0, %g] m/s, walk_force in [0, %g] N", sk->name,
                     TP_MAX_SPEED, TP_MAX_FORCE);
            return false;
        }
        return true;
    default:
        return true;
    }
}

bool tpSkill_Validate(const tpSkillDef *sk, const tpWorld *world, char *err, size_t errlen)
{
    TP_ASSERT(sk && world);
    int nb = tpWorld_BodyCount(world);
    if (sk->kind < 0 || sk->kind >= TP_SKILL_KIND_COUNT) {
        tpErrorf(err, errlen, "skill '%s': unknown kind %d", sk->name, (int)sk->kind);
        return false;
    }
    bool needs_body = sk->kind != TP_SKILL_WAIT && sk->kind != TP_SKILL_CUSTOM;
    if (sk->body >= nb || (needs_body && sk->body < 0)) {
        tpErrorf(err, errlen, "skill '%s' (%s): 'body' must name a body", sk->name, tpSkillKind_Name(sk->kind));
        return false;
    }
    if (needs_body && tpWorld_ControlSlot(world, sk->body) < 0) {
        tpErrorf(err, errlen,
                 "skill '%s': body '%s' is not actively controlled (class active or tactic-driven foreign)", sk->name,
                 tpWorld_Body(world, sk->body)->name);
        return false;
    }
    bool needs_target = sk->kind == TP_SKILL_KICK || sk->kind == TP_SKILL_PUSH || sk->kind == TP_SKILL_CHIP ||
                        sk->kind == TP_SKILL_GUARD || sk->frame == TP_FRAME_TARGET;
    if (sk->target >= nb || (needs_target && sk->target < 0)) {
        tpErrorf(err, errlen, "skill '%s' (%s): 'target' must name a body", sk->name, tpSkillKind_Name(sk->kind));
        return false;
    }
    if (sk->target >= 0 && sk->target == sk->body) {
        tpErrorf(err, errlen, "skill '%s': 'target' must differ from 'body'", sk->name);
        return false;
    }
    NUMS({"max_speed", sk->gains.max_speed, true}, {"max_yaw_rate", sk->gains.max_yaw_rate, true},
         {"kp", sk->gains.kp, true}, {"kv", sk->gains.kv, true}, {"kyaw", sk->gains.kyaw, true},
         {"kyaw_rate", sk->gains.kyaw_rate, true}, {"tolerance", sk->gains.tolerance, true},
         {"angle_tolerance", sk->gains.angle_tolerance, true}, {"timeout", sk->gains.timeout, false});
    return validate_kind(sk, world, err, errlen);
}

#undef NUMS
#undef DISTS

/* Samples the kind's `point` into out[0..2] (z = 0 for 2D) in the skill's frame, resolved to world. */
static void sample_point(const tpSkillDef *sk, const tpDist *point, tpSkillCall *call, const tpCtlBody *self,
                         double out[3])
{
    double p[3] = {0, 0, 0};
    tpDist_Sample(point, call->rng, call->y, call->ydim, p);
    const double *origin = NULL;
    tpBodyState ts;
    if (sk->frame == TP_FRAME_TARGET && sk->target >= 0) {
        tpWorld_BodyState(call->world, call->x, call->t, sk->target, &ts);
        origin = ts.pos;
    } else if (sk->frame == TP_FRAME_BODY && self) {
        origin = self->s.pos;
    }
    if (origin && sk->has_toward) {
        /* the offset's +x axis points from the origin toward `toward` (world x if they coincide) */
        double ux = sk->toward[0] - origin[0], uy = sk->toward[1] - origin[1];
        double n = sqrt(ux * ux + uy * uy);
        if (n > 1e-9) {
            ux /= n;
            uy /= n;
        } else {
            ux = 1.0;
            uy = 0.0;
        }
        double px = p[0], py = p[1];
        p[0] = ux * px - uy * py;
        p[1] = uy * px + ux * py;
    }
    if (origin) {
        for (int i = 0; i < 3; ++i) {
            p[i] += origin[i];
        }
    }
    memcpy(out, p, sizeof p);
}

static double sample1(const tpDist *d, tpSkillCall *call, double fallback)
{
    if (d->kind == TP_DIST_UNSET) {
        return fallback;
    }
    double v[3] = {0, 0, 0};
    tpDist_Sample(d, call->rng, call->y, call->ydim, v);
    return v[0];
}

/* Draws a unit world direction into out: dim 1 is a yaw angle (rad), dim 2/3 a vector (normalised;
 * a zero vector means `yaw`); unset means the yaw angle `yaw`. */
static void sample_direction(const tpDist *d, tpSkillCall *call, double yaw, double out[3])
{
    double v[3] = {0, 0, 0};
    if (d->kind != TP_DIST_UNSET) {
        tpDist_Sample(d, call->rng, call->y, call->ydim, v);
    }
    if (d->kind == TP_DIST_UNSET || d->dim == 1) {
        double a = d->kind == TP_DIST_UNSET ? yaw : v[0];
        out[0] = cos(a);
        out[1] = sin(a);
        out[2] = 0.0;
        return;
    }
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(n > 0)) {
        out[0] = cos(yaw);
        out[1] = sin(yaw);
        out[2] = 0.0;
        return;
    }
    for (int k = 0; k < 3; ++k) {
        out[k] = v[k] / n;
    }
}

void tpSkill_SamplePoint(const tpSkillDef *sk, const tpDist *point, tpSkillCall *call, const tpCtlBody *self,
                         double out[3])
{
    sample_point(sk, point, call, self, out);
}

double tpSkill_Sample1(const tpDist *d, tpSkillCall *call, double fallback)
{
    return sample1(d, call, fallback);
}

/* Time-based busy flag: still busy if the segment ends after the state this step produces. */
static int busy_until(const tpSkillCall *call, double t_end)
{
    return (call->t + call->dt < t_end - 1e-9) ? 1 : 0;
}

static double hypot2(double x, double y)
{
    return sqrt(x * x + y * y);
}

/* ---- wait ---------------------------------------------------------------------------------- */
enum {
    WAIT_V_END = 1, /* s: end of the sampled duration */
};

static int run_wait(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    if (call->fresh) {
        double d = sample1(&sk->wait.duration, call, sk->target >= 0 ? 0.0 : 1.0);
        V[WAIT_V_END] = call->t + (d > 0 ? d : 0);
    }
    tpCtlBody cb;
    if (tpCtl_Load(call, sk->body, &cb) && cb.slot >= 0) {
        tpCtl_Brake(&sk->gains, call, &cb); /* hold still while waiting */
    }
    if (sk->target >= 0 && call->t - V[TP_V_START] < default_timeout(sk)) {
        /* watch a target: also busy until it comes to rest (e.g. a kicked ball settling) */
        tpBodyState ts;
        tpWorld_BodyState(call->world, call->x, call->t, sk->target, &ts);
        double sp = sqrt(ts.vel[0] * ts.vel[0] + ts.vel[1] * ts.vel[1] + ts.vel[2] * ts.vel[2]);
        if (sp >= sk->wait.trigger_speed) {
            return 1;
        }
    }
    return busy_until(call, V[WAIT_V_END]);
}

/* ---- drive_to / turn_to ------------------------------------------------------------------- */
enum {
    DRIVE_V_X = 1,           /* m, world: the point to reach (turn_to: the start position) */
    DRIVE_V_Y = 2,           /* m */
    DRIVE_V_Z = 3,           /* m (unused by the planar controller) */
    DRIVE_V_HEADING = 4,     /* rad: yaw to reach */
    DRIVE_V_HAS_HEADING = 5, /* 1 when a heading was given, else 0 */
    DRIVE_V_CRUISE = 6,      /* m/s: cruise speed */
};

static int run_drive(const tpSkillDef *sk, tpSkillCall *call, bool turn_only)
{
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        if (turn_only) {
            V[DRIVE_V_X] = cb.s.pos[0];
            V[DRIVE_V_Y] = cb.s.pos[1];
            V[DRIVE_V_Z] = cb.s.pos[2];
        } else {
            sample_point(sk, &sk->drive.point, call, &cb, V + DRIVE_V_X);
        }
        V[DRIVE_V_HAS_HEADING] = sk->drive.heading.kind != TP_DIST_UNSET;
        V[DRIVE_V_HEADING] = V[DRIVE_V_HAS_HEADING] ? sample1(&sk->drive.heading, call, 0.0) : 0.0;
        double cruise = sample1(&sk->drive.speed, call, sk->gains.max_speed);
        V[DRIVE_V_CRUISE] =
            cruise > sk->gains.max_speed ? sk->gains.max_speed : (cruise > 0 ? cruise : sk->gains.max_speed);
    }
    double err = hypot2(V[DRIVE_V_X] - cb.s.pos[0], V[DRIVE_V_Y] - cb.s.pos[1]);
    double speed = hypot2(cb.s.vel[0], cb.s.vel[1]);
    bool has_heading = V[DRIVE_V_HAS_HEADING] != 0.0;
    bool at_heading = !has_heading || fabs(tpCtl_YawError(&cb, V[DRIVE_V_HEADING])) < sk->gains.angle_tolerance;
    bool arrived = err < sk->gains.tolerance && speed < 0.05 && at_heading && fabs(cb.s.angvel[2]) < 0.5;
    bool timed_out = call->t - V[TP_V_START] >= default_timeout(sk);
    double vcmd[2], f[3];
    tpCtl_GoToVelocity(&sk->gains, &cb, V + DRIVE_V_X, V[DRIVE_V_CRUISE], vcmd);
    tpCtl_TrackVelocity(&sk->gains, &cb, vcmd, V, call->dt, f);
    tpCtl_Apply(call, &cb, f, tpCtl_YawTorque(&sk->gains, &cb, has_heading, V[DRIVE_V_HEADING], V, call->dt));
    return (arrived || timed_out) ? 0 : 1;
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

static int run_kick(const tpSkillDef *sk, tpSkillCall *call, bool push)
{
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
            sample_direction(&k->direction, call, 0.0, d);
            p[0] = ball.pos[0] + d[0];
            p[1] = ball.pos[1] + d[1];
        } else {
            sample_point(sk, &k->point, call, &cb, p);
        }
        V[KICK_V_DEST_X] = p[0];
        V[KICK_V_DEST_Y] = p[1];
        if (k->arrive_speed.kind != TP_DIST_UNSET) {
            double va = sample1(&k->arrive_speed, call, 0.0);
            int ground = kick_ground(sk, call->world);
            tpPairSurface ps = tpWorld_PairSurface(call->world, sk->target, ground);
            const double *gv = tpWorld_Def(call->world)->gravity;
            double g = sqrt(gv[0] * gv[0] + gv[1] * gv[1] + gv[2] * gv[2]);
            double dist = hypot2(p[0] - ball.pos[0], p[1] - ball.pos[1]);
            V[KICK_V_SPEED] = tpKick_DepartureSpeed(ps.friction, ps.rolling_friction,
                                                    tpWorld_Body(call->world, sk->target)->size[0], g, dist, va);
        } else {
            V[KICK_V_SPEED] = sample1(&k->speed, call, 0.5 * sk->gains.max_speed);
        }
        set_phase(V, PH_APPROACH, call->t);
    }
    double t = call->t;
    double ball_speed = hypot2(ball.vel[0], ball.vel[1]);
    double target_r = tpCtl_Radius(call->world, sk->target);
    double f[3] = {0, 0, 0};
    double vcmd[2];
    if (t - V[TP_V_START] >= default_timeout(sk) && (int)V[KICK_V_PHASE] != PH_BRAKE) {
        set_phase(V, PH_BRAKE, t);
    }
    int phase = (int)V[KICK_V_PHASE];
    if (phase == PH_APPROACH) {
        double dx = V[KICK_V_DEST_X] - ball.pos[0], dy = V[KICK_V_DEST_Y] - ball.pos[1];
        double dn = hypot2(dx, dy);
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
        if (!push) {
            double vs = kick_strike_speed(sk, call, &cb, V[KICK_V_SPEED]);
            run = fmax(run, vs * vs / (2.0 * 0.8 * cb.max_accel));
        }
        double stand = cb.radius + target_r + run;
        double rx = cb.s.pos[0] - ball.pos[0], ry = cb.s.pos[1] - ball.pos[1];
        double along = rx * dx + ry * dy;
        double lateral = -rx * dy + ry * dx;
        double clear = cb.radius + target_r + 0.05;
        /* Line up `stand` behind the target -- or closer, down to half the run-up, when we are
         * already behind it: a target near a wall leaves no room for the full stand-off. */
        double min_stand = cb.radius + target_r + 0.5 * run;
        double back = stand;
        if (along < -min_stand && along > -stand && fabs(lateral) < clear) {
            back = -along;
        }
        double goal[2] = {ball.pos[0] - dx * back, ball.pos[1] - dy * back};
        /* Go around the target when we are on its far side: aim for a point beside it first. */
        if (along > -0.5 * stand && fabs(lateral) < clear) {
            double side = lateral >= 0 ? 1.0 : -1.0;
            goal[0] = ball.pos[0] - dy * side * clear * 1.5 - dx * 0.5 * stand;
            goal[1] = ball.pos[1] + dx * side * clear * 1.5 - dy * 0.5 * stand;
        }
        tpCtl_GoToVelocity(&sk->gains, &cb, goal, sk->gains.max_speed, vcmd);
        tpCtl_TrackVelocity(&sk->gains, &cb, vcmd, V, call->dt, f);
        tpCtl_Apply(call, &cb, f, tpCtl_YawTorque(&sk->gains, &cb, true, heading, V, call->dt));
        double err = hypot2(goal[0] - cb.s.pos[0], goal[1] - cb.s.pos[1]);
        /* Strike only when lined up: the ball leaves along the striking face's normal, so the
         * heading error becomes the shot's direction error. */
        bool lined_up = err < 0.01 && hypot2(cb.s.vel[0], cb.s.vel[1]) < 0.05 &&
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
            bool reached = tx * dx + ty * dy <= 0.0 || hypot2(tx, ty) < sk->gains.tolerance;
            bool lost = along > 0.0 || hypot2(rx, ry) > cb.radius + target_r + 2.0 * k->approach;
            if (reached || lost) {
                set_phase(V, PH_BRAKE, t);
            }
        } else if (ball_speed > 0.05 || along > 0.0) {
            set_phase(V, PH_BRAKE, t); /* the strike happened (or we passed the target) */
        }
        return 1;
    }
    tpCtl_Brake(&sk->gains, call, &cb);
    bool stopped = hypot2(cb.s.vel[0], cb.s.vel[1]) < 0.05 && fabs(cb.s.angvel[2]) < 0.3;
    if (k->follow && t - V[TP_V_START] < default_timeout(sk) + 20.0 &&
        sqrt(ball.vel[0] * ball.vel[0] + ball.vel[1] * ball.vel[1] + ball.vel[2] * ball.vel[2]) >= k->trigger_speed) {
        return 1; /* follow-through: the target still moves */
    }
    return (stopped || t - V[KICK_V_PHASE_START] > 1.5) ? 0 : 1;
}

/* ---- impulse ------------------------------------------------------------------------------- */
enum {
    IMPULSE_V_FORCE_X = 1, /* N, world: the force held during the segment (x, y, z) */
    IMPULSE_V_FORCE_Y = 2,
    IMPULSE_V_FORCE_Z = 3,
    IMPULSE_V_END = 4, /* s: end of the force phase */
};

static int run_impulse(const tpSkillDef *sk, tpSkillCall *call)
{
    const tpImpulseDef *im = &sk->impulse;
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        double fv[3] = {0, 0, 0};
        if (im->speed.kind != TP_DIST_UNSET) {
            /* speed + direction: the force that changes a free body's velocity by `speed` over
             * `duration` (F = m dv / T); contacts and the body's max_force are not compensated */
            double dv = sample1(&im->speed, call, 0.0), d[3];
            sample_direction(&im->direction, call, cb.yaw, d);
            double T = sample1(&im->duration, call, call->dt);
            double m = T > 0 ? cb.mass * dv / T : 0.0;
            for (int k = 0; k < 3; ++k) {
                V[IMPULSE_V_FORCE_X + k] = m * d[k];
            }
            V[IMPULSE_V_END] = call->t + T;
        } else {
            tpDist_Sample(&im->force, call->rng, call->y, call->ydim, fv);
            if (im->force.dim == 1) { /* magnitude only: along `direction`, else the body's heading */
                double m = fv[0], d[3];
                sample_direction(&im->direction, call, cb.yaw, d);
                for (int k = 0; k < 3; ++k) {
                    fv[k] = m * d[k];
                }
            }
            memcpy(V + IMPULSE_V_FORCE_X, fv, sizeof fv);
            V[IMPULSE_V_END] = call->t + sample1(&im->duration, call, call->dt);
        }
    }
    if (im->follow && call->t >= V[IMPULSE_V_END] - 1e-9) { /* follow-through: the force phase is over */
        return (call->t - V[TP_V_START] < default_timeout(sk) && tpCtl_WorldMoving(call, im->trigger_speed)) ? 1 : 0;
    }
    tpCtl_Apply(call, &cb, V + IMPULSE_V_FORCE_X, 0.0);
    return im->follow ? 1 : busy_until(call, V[IMPULSE_V_END]);
}

/* ---- spin ---------------------------------------------------------------------------------- */
enum {
    SPIN_V_AIM_X = 1,      /* m, world: the point the body is pushed (or steered) toward */
    SPIN_V_AIM_Y = 2,      /* m */
    SPIN_V_FORCE = 3,      /* N: force magnitude (aim: the lateral force limit) */
    SPIN_V_DURATION = 4,   /* s: length of the push once it starts */
    SPIN_V_PUSHING = 5,    /* 0 while waiting for the hit, 1 once pushing */
    SPIN_V_PUSH_START = 6, /* s: when the body was hit */
};

static int run_spin(const tpSkillDef *sk, tpSkillCall *call)
{
    const tpSpinDef *sp = &sk->spin;
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        double p[3];
        sample_point(sk, &sp->point, call, &cb, p);
        V[SPIN_V_AIM_X] = p[0];
        V[SPIN_V_AIM_Y] = p[1];
        V[SPIN_V_FORCE] = sample1(&sp->force, call, 0.0);
        V[SPIN_V_DURATION] = sample1(&sp->duration, call, 0.5);
        V[SPIN_V_PUSHING] = 0;
    }
    double speed = hypot2(cb.s.vel[0], cb.s.vel[1]);
    if (V[SPIN_V_PUSHING] == 0) {
        if (speed > sp->trigger_speed) {
            V[SPIN_V_PUSHING] = 1;
            V[SPIN_V_PUSH_START] = call->t;
        } else {
            if (sp->follow && call->t - V[TP_V_START] > 0.5 * call->dt && !tpCtl_WorldMoving(call, sp->trigger_speed)) {
                return 0; /* follow-through: everything rests and this body was never hit */
            }
            return call->t - V[TP_V_START] < default_timeout(sk) ? 1 : 0;
        }
    }
    if (sp->follow && call->t >= V[SPIN_V_PUSH_START] + V[SPIN_V_DURATION] - 1e-9) { /* follow-through after the push */
        return (call->t - V[TP_V_START] < default_timeout(sk) && tpCtl_WorldMoving(call, sp->trigger_speed)) ? 1 : 0;
    }
    double dx = V[SPIN_V_AIM_X] - cb.s.pos[0], dy = V[SPIN_V_AIM_Y] - cb.s.pos[1];
    double dn = hypot2(dx, dy);
    if (sp->aim) {
        /* Pure pursuit: the arc through the point tangent to the velocity has curvature
           2 sin(e) / d (heading error e, distance d); the lateral force that keeps the body on it
           is m_eff v^2 2 sin(e) / d with m_eff = 7/5 m, the effective mass of a rolling solid
           sphere pushed at its centre. Fed back every step, so throw, sliding and the cloth's
           bending of the path are corrected as they happen; a body on course gets no force. */
        double vx = cb.s.vel[0], vy = cb.s.vel[1];
        if (speed > sp->trigger_speed && dn > sk->gains.tolerance && vx * dx + vy * dy > 0.0) {
            double sin_e = (vx * dy - vy * dx) / (speed * dn);
            double lat = 1.4 * cb.mass * speed * speed * 2.0 * sin_e / dn;
            lat = fmin(fmax(lat, -V[SPIN_V_FORCE]), V[SPIN_V_FORCE]);
            double f[3] = {-lat * vy / speed, lat * vx / speed, 0.0};
            tpCtl_Apply(call, &cb, f, 0.0);
        }
    } else if (dn > 1e-9) {
        double f[3] = {V[SPIN_V_FORCE] * dx / dn, V[SPIN_V_FORCE] * dy / dn, 0.0};
        tpCtl_Apply(call, &cb, f, 0.0);
    }
    return sp->follow ? 1 : busy_until(call, V[SPIN_V_PUSH_START] + V[SPIN_V_DURATION]);
}

/* ---- brake --------------------------------------------------------------------------------- */
enum {
    BRAKE_V_END = 1, /* s: end of the sampled duration; 0 = until the body rests */
};

static int run_brake(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        V[BRAKE_V_END] =
            sk->brake.duration.kind == TP_DIST_UNSET ? 0.0 : call->t + sample1(&sk->brake.duration, call, 0.0);
    }
    tpCtl_Brake(&sk->gains, call, &cb);
    if (V[BRAKE_V_END] > 0) {
        return busy_until(call, V[BRAKE_V_END]);
    }
    bool rest = hypot2(cb.s.vel[0], cb.s.vel[1]) < 0.02 && fabs(cb.s.angvel[2]) < 0.05;
    return (rest || call->t - V[TP_V_START] >= default_timeout(sk)) ? 0 : 1;
}

/* ---- random (kinodynamic RRT extend) ------------------------------------------------------- */
enum {
    RANDOM_V_FORCE_X = 1, /* N, world: the random force (x, y, z = 0) */
    RANDOM_V_FORCE_Y = 2,
    RANDOM_V_FORCE_Z = 3,
    RANDOM_V_TORQUE_Z = 4, /* N·m: the random yaw torque */
    RANDOM_V_END = 5,      /* s: end of the sampled duration */
};

static int run_random(const tpSkillDef *sk, tpSkillCall *call)
{
    double *V = call->V;
    tpCtlBody cb;
    tpCtl_Load(call, sk->body, &cb);
    if (call->fresh) {
        double mag = sample1(&sk->random.force, call, -1.0);
        if (mag < 0) {
            mag = tpRng_Uniform(call->rng, 0.0, cb.max_force);
        }
        double ang;
        if (call->y && call->ydim >= 2) { /* extend toward the sample y */
            ang = atan2(call->y[1] - cb.s.pos[1], call->y[0] - cb.s.pos[0]);
        } else {
            ang = tpRng_Uniform(call->rng, -TP_PI, TP_PI);
        }
        V[RANDOM_V_FORCE_X] = mag * cos(ang);
        V[RANDOM_V_FORCE_Y] = mag * sin(ang);
        V[RANDOM_V_FORCE_Z] = 0.0;
        V[RANDOM_V_TORQUE_Z] = tpRng_Uniform(call->rng, -cb.max_torque, cb.max_torque);
        V[RANDOM_V_END] = call->t + sample1(&sk->random.duration, call, call->dt);
    }
    tpCtl_Apply(call, &cb, V + RANDOM_V_FORCE_X, V[RANDOM_V_TORQUE_Z]);
    return busy_until(call, V[RANDOM_V_END]);
}

int tpSkill_Run(const tpSkillDef *skill, tpSkillCall *call)
{
    TP_ASSERT(skill && call && call->world && call->V && call->action);
    TP_ASSERT(skill->kind >= 0 && skill->kind < TP_SKILL_KIND_COUNT);
    if (call->fresh && !call->overlay) { /* a recording replay brings the planning call's V */
        memset(call->V, 0, sizeof(double) * TP_SKILL_VARS);
        call->V[TP_V_START] = call->t;
    }
    switch (skill->kind) {
    case TP_SKILL_WAIT:
        return run_wait(skill, call);
    case TP_SKILL_DRIVE_TO:
        return run_drive(skill, call, false);
    case TP_SKILL_TURN_TO:
        return run_drive(skill, call, true);
    case TP_SKILL_KICK:
        return run_kick(skill, call, false);
    case TP_SKILL_PUSH:
        return run_kick(skill, call, true);
    case TP_SKILL_IMPULSE:
        return run_impulse(skill, call);
    case TP_SKILL_SPIN:
        return run_spin(skill, call);
    case TP_SKILL_BRAKE:
        return run_brake(skill, call);
    case TP_SKILL_RANDOM:
        return run_random(skill, call);
    case TP_SKILL_CUSTOM:
        return skill->custom.fn ? skill->custom.fn(skill->custom.user, skill->custom.id, call) : -1;
    case TP_SKILL_STEER:
        return tpSteer_Run(skill, call);
    case TP_SKILL_NAV_TO:
        return tpSkill_RunNavTo(skill, call);
    case TP_SKILL_FOLLOW_FIELD:
        return tpSkill_RunFollowField(skill, call);
    case TP_SKILL_DRIVE_TRACK:
        return tpSkill_RunDriveTrack(skill, call);
    case TP_SKILL_CHIP:
        return tpSkill_RunChip(skill, call);
    case TP_SKILL_GUARD:
        return tpSkill_RunGuard(skill, call);
    case TP_SKILL_FOLLOW_PATH:
        return tpSkill_RunFollowPath(skill, call);
    case TP_SKILL_RIDE:
        return tpSkill_RunRide(skill, call);
    default:
        return -1;
    }
}
