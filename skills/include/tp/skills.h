/* tplan skills: sampling distributions and the C skill primitives (Sec. 4, Fig. 4).
 *
 * A Skill s = <C, D, f>: C are the constant fields of tpSkillDef (gains, limits, bodies),
 * D its tpDist fields, and f is tpSkill_Run. f reads the world state x, may use the RRT sample
 * y (on the first call after the tactic selected it: "fresh", V = {y}), keeps its variables in
 * V between calls, adds its control to the action a, and reports busy while it executes a
 * deterministic segment (the planner then continues that branch greedily). */
#ifndef TP_SKILLS_H
#define TP_SKILLS_H

#include <stdbool.h>
#include <stddef.h>

#include "tp/mathx.h" /* tpQuat_Yaw, tpAngle_Wrap (declared here before) */
#include "tp/nav.h"
#include "tp/physics.h"
#include "tp/plan.h"
#include "tp/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_SKILL_VARS 16       /* doubles of skill variables V per tactic */
#define TP_DIST_MAX_CHOICES 16 /* entries of a discrete-choice distribution */

/* ------------------------------------------------------------------------------------------ */
/* Distributions D                                                                             */

typedef enum {
    TP_DIST_UNSET = 0, /* not given: the skill uses its documented default */
    TP_DIST_CONST,     /* always a */
    TP_DIST_UNIFORM,   /* per component uniform in [a, b) (boxes, intervals, angle ranges) */
    TP_DIST_NORMAL,    /* per component normal, mean a, standard deviation b */
    TP_DIST_CHOICE,    /* one of `choices` (dim values each) with relative `weights` */
    TP_DIST_DISC,      /* 2D point uniform by area in the annulus centre a[0..1], radii b[0] <= r <= b[1] */
    TP_DIST_SAMPLE,    /* the RRT sample: y[offset .. offset+dim) (0 if y is shorter) */
} tpDistKind;

/// A sampling distribution over scalars (dim 1) or 2D/3D points (dim 2, 3). Plain value type.
typedef struct tpDist {
    tpDistKind kind;
    int dim;                                 /* 1..3 */
    double a[3];                             /* CONST value, UNIFORM lower bound, NORMAL mean, DISC centre */
    double b[3];                             /* UNIFORM upper bound, NORMAL sd, DISC radii (b[0] inner, b[1] outer) */
    int offset;                              /* SAMPLE: first index into y */
    int nchoices;                            /* CHOICE */
    double choices[TP_DIST_MAX_CHOICES * 3]; /* CHOICE values: entry i at choices[3*i .. 3*i+dim) */
    double weights[TP_DIST_MAX_CHOICES];     /* CHOICE weights (>= 0, sum > 0) */
    double spread[TP_DIST_MAX_CHOICES];      /* CHOICE: the picked value is then drawn uniformly
                                                within this radius of it (dim 1: an interval, 2: a
                                                disc by area, 3: a ball); 0 = exactly the value */
} tpDist;

/// Constant distribution helpers (dim 1).
tpDist tpDist_Const(double v);
tpDist tpDist_Uniform(double lo, double hi);
/// Checks a distribution; false with a message naming `field` on bad parameters.
bool tpDist_Validate(const tpDist *d, const char *field, char *err, size_t errlen);
/// Draws one value (d->dim doubles) into out. `y` (ydim doubles) feeds TP_DIST_SAMPLE; may be NULL.
void tpDist_Sample(const tpDist *d, tpRng *rng, const double *y, int ydim, double *out);

/* ------------------------------------------------------------------------------------------ */
/* Skills                                                                                      */

typedef enum {
    TP_SKILL_WAIT = 0,     /* hold still for a sampled `duration`; with a `target`, also until the target
                              body rests (speed < trigger_speed; at most `timeout`, default 20 s) */
    TP_SKILL_DRIVE_TO,     /* drive to a sampled `point` (and `heading`), PD-controlled within limits */
    TP_SKILL_TURN_TO,      /* turn in place to a sampled `heading` */
    TP_SKILL_KICK,         /* approach `target` body from behind, strike it toward `point` at `speed` */
    TP_SKILL_PUSH,         /* dribble: keep pushing `target` body toward `point` at `speed` */
    TP_SKILL_IMPULSE,      /* apply a sampled `force` (vector) for a sampled `duration` once */
    TP_SKILL_SPIN,         /* after the body is hit (speed > trigger_speed), a small sampled force
                              (`force`, magnitude) toward `point` for `duration`: a perturbation */
    TP_SKILL_BRAKE,        /* hold: oppose the body's motion until it rests (or `duration` passes) */
    TP_SKILL_RANDOM,       /* kinodynamic-RRT extend: random force toward y (or random direction),
                              held for a sampled `duration` */
    TP_SKILL_CUSTOM,       /* f supplied by the host (e.g. a Lua function), called every step */
    TP_SKILL_STEER,        /* a small bounded horizontal force steering the body toward a sampled `point`
                              for a sampled `duration`, only while its height is within [min_z, max_z]
                              (a phase of a fall: many-dice, Sec. 6.4) */
    TP_SKILL_NAV_TO,       /* go to a sampled `point` around the static bodies: grid plan (Kuffner 1998,
                              tp/nav.h) at skill start, then the path-following controller (skills/src/nav_skill.c) */
    TP_SKILL_FOLLOW_FIELD, /* go to a sampled `point` by Dapper's potential fields: the harmonic map of the
                          static bodies for that goal, and every step a 15 x 15 local map around the body in
                          which every other moving body is an obstacle (skills/src/nav_skill.c) */
    TP_SKILL_DRIVE_TRACK,  /* drive the body as the Appendix A car of Adam (2007) toward a sampled `point`:
                           at every clip boundary a finite-horizon A* over the move tree (walls = the edges
                           of the static bodies, traffic = the other moving bodies at their velocities), then
                           the chosen clip's controls through tpNavCar_Forces (skills/src/nav_skill.c) */
    TP_SKILL_CHIP,         /* approach `target` from behind, creep into reach, then a kicker device launches
                              it toward `point` at `loft` above the ground (3D; the target needs a control
                              slot: the kicker's impulse is a force on it); skills/src/chip.c */
    TP_SKILL_GUARD,        /* keep the body between `target` and the protected `point`, `approach` m from
                              the point along the line point -> target (defenders, goalies); busy forever;
                              skills/src/guard.c */
    TP_SKILL_FOLLOW_PATH,  /* go to a sampled `point` around the static AND the moving bodies: like NAV_TO, but
                           the fresh call plans on a grid of the static bodies plus every other moving body at
                           its current pose, and the segment ends after `nav_replan` seconds (or at the end of
                           the planned leg), where the tactic re-selects the skill and it replans from the
                           current state: a goal on a moving `target` (frame "target") or moving obstacles are
                           followed (skills/src/nav_path_skill.c) */
    TP_SKILL_RIDE,         /* cross moving surfaces to a sampled `point` (Lopez 2011 through tp/nav.h's tpNavSpace): the
                              fresh call observes the scene's boxes over the last 24 s and routes over the learnt
                              graph; then walk to the boarding point, wait until the relation holds plus a sampled
                              margin (`duration`), step on (or, with `jump`, hop: one step of take-off force, a
                              ballistic flight), stay while carried; the segment ends on the next surface
                              (skills/src/ride.c) */
    TP_SKILL_MOTOR,        /* set a driven joint motor's target speed (a sampled `speed`, or a servo toward a
                              sampled `angle`) for a sampled
                              `duration`: swing a lever, spin a wheel, release a catapult; the joint's
                              motor must be declared `driven` (skills/src/skill_motor.c) */
    TP_SKILL_THROW,        /* passive direction: after a sampled delay `at`, one release step gives the body
                              exactly a sampled linear and angular velocity, then no force at all: the rest
                              is pure physics (skills/src/throw.c) */
    TP_SKILL_NUDGE,        /* passive direction: when the body is hit (its velocity jumps), one step
                              turns its new velocity by a sampled angle within `deflection`, the change
                              bounded by `budget` times the impact's own impulse (skills/src/throw.c) */
    TP_SKILL_KIND_COUNT
} tpSkillKind;

/// Frame in which sampled points are interpreted.
typedef enum {
    TP_FRAME_WORLD = 0, /* absolute world coordinates */
    TP_FRAME_TARGET,    /* offset from the `target` body's position (world axes) at skill start */
    TP_FRAME_BODY,      /* offset from the controlled body's position (world axes) at skill start */
} tpFrame;

typedef struct tpSkillCall tpSkillCall;

/// Caches of the navigation skills (grids, A* paths, harmonic fields, move trees, to-go fields),
/// keyed by exactly their inputs, so a hit and a recomputation give the same result. One per
/// loaded domain (tpDomain owns one): two domains in one process, or the jobs of a long-lived
/// service worker, share nothing, and destroying the domain frees it all. A cache serves the
/// world its skills run in and remembers that world's static bodies by its address (they never
/// change after tpCreateWorld): destroy the cache with, or before, that world, never reuse it
/// for another.
typedef struct tpSkillCache tpSkillCache;
/// A new empty cache (NULL when out of memory). Destroy with tpDestroySkillCache.
tpSkillCache *tpCreateSkillCache(void);
/// Frees the cache and everything in it. NULL is allowed.
void tpDestroySkillCache(tpSkillCache *cache);
/// Wall-clock seconds the navigation skills have spent in their own searches with this cache so
/// far (grids, A* paths, harmonic fields, local maps, move-tree A*, space-time graphs): a running
/// total for the planner's time breakdown (tpProblem.search_seconds). 0 for NULL.
double tpSkillCache_SearchSeconds(const tpSkillCache *cache);

/// Host-supplied f for TP_SKILL_CUSTOM: same contract as tpSkill_Run.
typedef int (*tpSkillFn)(void *user, int skill_id, tpSkillCall *call);

/// The constants of the drive controller every moving kind shares (skills/src/motion.c: a PI
/// law on the planar velocity and one on the yaw rate) and of its end test. Plain value type;
/// tpDefaultSkillDef fills the defaults.
typedef struct tpSkillGains {
    double max_speed;       /* m/s, cap on the body's commanded speed (default 1.5) */
    double max_yaw_rate;    /* rad/s (default 6) */
    double kp;              /* 1/s: position gain, commanded velocity = kp * error (default 4) */
    double kv;              /* 1/s: velocity gain, force = mass * kv * (v_cmd - v) (default 12) */
    double kyaw;            /* 1/s: yaw gain (default 6) */
    double kyaw_rate;       /* 1/s: yaw-rate gain (default 10) */
    double tolerance;       /* m: done when within it (default 0.02) */
    double angle_tolerance; /* rad (default 0.08) */
    double timeout;         /* s: longest busy segment, 0 = the kind's default (drive 6, kick 6, push 8) */
} tpSkillGains;

/* Per-kind definitions (Box2D style: one def struct per kind). tpSkillDef holds what every kind
 * shares and, in an anonymous union selected by `kind`, the kind's own struct; tpDefaultSkillDef
 * fills that member's defaults. A distribution left unset (TP_DIST_UNSET) takes the documented
 * default. The Lua binding accepts exactly the fields of the kind (docs/lua-api.md). */

/// TP_SKILL_WAIT.
typedef struct tpWaitDef {
    tpDist duration;      /* s, dim 1 (unset: 1 s, or 0 s with a `target`) */
    double trigger_speed; /* m/s: with a `target`, also wait until its speed is below this, at most
                             `timeout` (default 0.05) */
} tpWaitDef;

/// TP_SKILL_DRIVE_TO and TP_SKILL_TURN_TO.
typedef struct tpDriveDef {
    tpDist point;   /* m, dim 2 or 3, DRIVE_TO only (required): where to drive, in the skill's frame */
    tpDist heading; /* rad, dim 1: yaw about +z to reach (TURN_TO: required; DRIVE_TO: unset = any) */
    tpDist speed;   /* m/s, dim 1: cruise speed (unset, <= 0 or above max_speed: max_speed) */
} tpDriveDef;

/// TP_SKILL_KICK and TP_SKILL_PUSH (dribble).
typedef struct tpKickDef {
    tpDist point;         /* m, dim 2 or 3: where to send the target, in the skill's frame (required,
                             except for a kick with `direction`) */
    tpDist direction;     /* KICK only, dim 1 (yaw, rad) or 2 (a vector, normalised): instead of
                             `point`, the target leaves along it (needs `speed`); unset: use point */
    tpDist speed;         /* m/s, dim 1: kick: the target's departure speed (unset: 0.5 max_speed);
                             push: its dribbling speed (capped by max_speed) */
    tpDist arrive_speed;  /* m/s, dim 1, KICK only (instead of `speed`): the target's speed when it
                             reaches `point`; the departure speed comes from tpKick_DepartureSpeed (a
                             sphere sliding, then rolling, on `ground`). 0 places the target there */
    int ground;           /* KICK with arrive_speed: body index the target rolls on; -1 (default) =
                             the first static plane of the scene */
    double approach;      /* m: stand-off behind the target (default 0.2) */
    double transfer;      /* KICK only: target speed per striking speed; 0 (default) = from the pair's
                             restitution and masses */
    bool follow;          /* after the strike, stay busy until the target rests (speed below
                             trigger_speed): the roll is part of the deterministic segment, so no
                             decision point interrupts it (default false) */
    double trigger_speed; /* m/s: the target's resting speed for `follow` (default 0.05) */
} tpKickDef;

/// TP_SKILL_IMPULSE.
typedef struct tpImpulseDef {
    tpDist force;         /* N: a magnitude along `direction` or the body's heading (dim 1) or a
                             vector (dim 2: xy, dim 3); exactly one of force and speed is set */
    tpDist speed;         /* m/s, dim 1: instead of `force`, the velocity change of a free body over
                             `duration` along `direction` or the heading (F = m dv / T) */
    tpDist direction;     /* world direction, dim 1 (yaw, rad) or 2/3 (a vector, normalised); unset:
                             the body's heading */
    tpDist duration;      /* s, dim 1: how long the force is held (unset: one step) */
    bool follow;          /* after the force phase, stay busy until every moving body rests (speed
                             below trigger_speed) or `timeout` passes (default false) */
    double trigger_speed; /* m/s: resting speed for `follow` (default 0.05) */
} tpImpulseDef;

/// TP_SKILL_SPIN.
typedef struct tpSpinDef {
    tpDist point;         /* m, dim 2 or 3: where the force pushes (or, with aim, steers) the body,
                             in the skill's frame (unset: the frame's origin) */
    tpDist force;         /* N, dim 1: force magnitude (aim: the lateral force limit); unset: 0 */
    tpDist duration;      /* s, dim 1: length of the push once the body is hit (unset: 0.5) */
    double trigger_speed; /* m/s: the push starts once the body moves faster (default 0.05); with
                             follow, also the resting speed */
    bool follow;          /* after the push, stay busy until every moving body rests or `timeout`
                             passes; a body never hit also ends once everything rests (default false) */
    bool aim;             /* instead of a constant push toward `point`, steer the body's path onto
                             it after the hit (pure pursuit: the lateral force 7/5 m v^2 2 sin(e) / d
                             that bends the path onto the arc through the point, for heading error e
                             and distance d; zero on course), clamped to `force`, until `duration`
                             ends, the point is within `tolerance` or behind the body (default false) */
} tpSpinDef;

/// TP_SKILL_BRAKE (hold).
typedef struct tpBrakeDef {
    tpDist duration; /* s, dim 1: brake this long; unset (default): until the body rests or `timeout` */
} tpBrakeDef;

/// TP_SKILL_RANDOM.
typedef struct tpRandomDef {
    tpDist force;    /* N, dim 1: force magnitude (unset: uniform in [0, the body's max_force)) */
    tpDist duration; /* s, dim 1: how long the force is held (unset: one step) */
} tpRandomDef;

/// TP_SKILL_CUSTOM: f supplied by the host.
typedef struct tpCustomDef {
    tpSkillFn fn; /* required: called every step with (user, id, call) */
    void *user;   /* passed to fn (not owned; must outlive the domain) */
    int id;       /* passed to fn (default 0) */
} tpCustomDef;

/// TP_SKILL_STEER.
typedef struct tpSteerDef {
    tpDist point;    /* m, dim 2 or 3: where to steer, in the skill's frame (unset: straight down) */
    tpDist force;    /* N, dim 1: the horizontal force limit (unset: 0, no force) */
    tpDist duration; /* s, dim 1: length of the segment (unset: 0.25; at least one step) */
    double min_z;    /* m: the skill acts only while the body's height is in [min_z, max_z]; leaving */
    double max_z;    /* m: the band ends the segment (defaults -inf, +inf) */
} tpSteerDef;

/// TP_SKILL_NAV_TO, TP_SKILL_FOLLOW_FIELD and TP_SKILL_FOLLOW_PATH (Lua: nav_cell, nav_radius, ...).
typedef struct tpNavDef {
    tpDist point;     /* m, dim 2 or 3 (required): the goal, in the skill's frame */
    tpDist speed;     /* m/s, dim 1: cruise speed (unset, <= 0 or above max_speed: max_speed) */
    double cell;      /* m: grid cell size (default 0.1) */
    double radius;    /* m: obstacle growth; 0 (default) = nav_to, follow_path: the body's horizontal
                         radius + lookahead / 2, follow_field: the body's horizontal radius */
    double lookahead; /* m, NAV_TO and FOLLOW_PATH: look-ahead distance along the path (default 0.4) */
    double replan;    /* s, FOLLOW_PATH only: longest segment before replanning (default 1) */
} tpNavDef;

/// TP_SKILL_DRIVE_TRACK. lane and horizon are sampled at every decision point (fresh call), so a
/// planner's tree branches there; unset keeps the plain behaviour.
typedef struct tpDriveTrackDef {
    tpDist point;   /* m, dim 2 or 3 (required): the goal, world coordinates */
    tpDist lane;    /* m, dim 1: lateral offset of the A* goal from `point`, to the left of the
                       direction car -> point (unset: 0, no draw) */
    tpDist horizon; /* clips, dim 1: A* horizon of this decision, rounded and clamped to 1..8
                       (unset: 4) */
    tpDist speed;   /* m/s, dim 1: top speed of this decision: the A* keeps only clips ending at a
                       speed level at most this (braking from above it is allowed; unset: any) */
    bool togo;      /* A* heuristic: the shortest path around the walls to the goal (a to-go field,
                       0.5 m cells, cached per goal) instead of the straight line (default false) */
} tpDriveTrackDef;

/// TP_SKILL_CHIP.
typedef struct tpChipDef {
    tpDist point;         /* m, dim 2 or 3 (required): where to send the target, in the skill's frame */
    tpDist speed;         /* m/s, dim 1: launch speed (unset or 0: the ballistic speed that lands the
                             target on `point`) */
    tpDist loft;          /* rad, dim 1: launch angle above the horizontal (unset: 0.5); 0 = flat */
    double approach;      /* m: stand-off behind the target before creeping in (default 0.2) */
    bool follow;          /* after the launch, stay busy until the target rests (default false) */
    double trigger_speed; /* m/s: the target's resting speed for `follow` (default 0.05) */
} tpChipDef;

/// TP_SKILL_GUARD.
typedef struct tpGuardDef {
    tpDist point;    /* m, dim 2 or 3 (required): the protected point, in the skill's frame */
    double approach; /* m: distance from the point along point -> target (default 0.2) */
    bool mark;       /* measure `approach` from the target instead of the protected point
                        (man-marking: stay `approach` m in front of the ball; default false) */
} tpGuardDef;

/// TP_SKILL_RIDE.
typedef struct tpRideDef {
    tpDist point;  /* m, dim 2 or 3 (required): the goal, in the skill's frame */
    tpDist margin; /* s, dim 1 (Lua: duration): extra wait after the boarding relation holds
                      (unset: 0.2) */
    double cell;   /* m (Lua: nav_cell): grid cell size of the walks (default 0.1) */
    /* The optional jump of the character (skills/src/ride.c). With `jump` the nav space is planned
       with JUMP relations (Lopez 2011's ballistic hop within jump_vz / jump_vh, landing vertical
       speed <= 3 m/s), the standable inset shrinks to a quarter of the body's width plus 2 cm (it
       must take off from, and land near, a border), and the skill takes off with one step of force
       through the body's control slot (so the body's max_force, not planar, must allow
       m (dv / dt + g)); walking forces are capped by walk_force. */
    bool jump;         /* the character may hop between surfaces (default false) */
    double jump_vz;    /* m/s: largest vertical take-off speed (default 2, the paper's) */
    double jump_vh;    /* m/s: largest horizontal take-off speed, world frame (default 2, the paper's) */
    double walk_force; /* N: cap on the walking controller's force; 0 = the body's max_force (default 0) */
} tpRideDef;

/// TP_SKILL_MOTOR. The target is set, not added: the last skill (in tactic order) that sets a
/// motor in a step wins, and a step in which no skill sets it runs the motor at its declared speed.
typedef struct tpMotorDef {
    int joint;       /* joint index whose axis has a driven motor (Lua: joint = "name"); required */
    double axis;     /* which axis: 1 or 2 (a universal's or hinge2's second axis); default 1 */
    tpDist speed;    /* rad/s (m/s for a slider), dim 1: the target (Lua: speed = v or a distribution, or
                        range = {lo, hi}: uniform); required, within the motor's max_speed */
    tpDist duration; /* s, dim 1: how long the target is held (unset: 1 s; at least one step) */
    tpDist angle;    /* rad (m for a slider), dim 1: a servo's target position instead of `speed` (Lua:
                        angle = v or a distribution, or angle_range = {lo, hi}): each step the target
                        speed is tpWorld_ServoSpeed(gain * (angle - the joint's reading)); hinge,
                        slider, hinge2 steering (axis 1) only, within the axis's limit */
    double gain;     /* 1/s, > 0: the servo's gain (default TP_MOTOR_SERVO_GAIN) */
} tpMotorDef;

#define TP_MOTOR_SERVO_GAIN 10.0 /* 1/s: tpMotorDef.gain's default (the error decays as exp(-10 t)) */

/// TP_SKILL_THROW (passive direction). The release is a one-step force and torque on the
/// body's control slot, F = m (v_s - v) / dt - m g and tau = I(q) (w_s - w) / dt (I: the world-frame
/// inertia tensor the physics uses), so the action carries it, Sim stays a pure function of
/// (state, action) and a plan replays it bit for bit: the state after the release step has exactly
/// the sampled velocity (to rounding) and then flies free. Contacts during the release step are not
/// compensated (release from the air, or away from what the body touches). The body's max_force and
/// max_torque must be unset (unlimited): a throw by an animator is not a robot's drive, and a clamp
/// would make it inexact (checked when the domain is built).
typedef struct tpThrowDef {
    tpDist velocity;         /* m/s, dim 3, world: the release velocity (instead of speed + direction) */
    tpDist point;            /* m, dim 3, world: instead of a velocity, aim: the velocity that brings the
                                body's centre there after `flight_time` in free flight (exact for the
                                step's integrator: v = (p - p0) / (n dt) - g dt (n - 1) / 2, n steps) */
    tpDist flight_time;      /* s, dim 1, > 0: with `point` (unset: 1 s), rounded to whole steps (>= 1) */
    tpDist speed;            /* m/s, dim 1: the release speed along `direction` (unset with no velocity: 0) */
    tpDist direction;        /* world direction, dim 1 (yaw, rad) or 2/3 (a vector, normalised); unset:
                                the body's heading */
    tpDist loft;             /* rad, dim 1: elevation above the horizontal of a yaw or 2D direction
                                (unset: 0); not with a 3D direction */
    tpDist angular_velocity; /* rad/s, dim 1 (about world z) or 3 (world): the release spin (unset: 0) */
    tpDist at;               /* s, dim 1, >= 0: delay from the skill's start to the release step (unset:
                                0, the first step); until then no force acts */
    bool follow;             /* after the release, stay busy (no force) until every moving body rests
                                (speed below trigger_speed) or `timeout` passes (default false) */
    double trigger_speed;    /* m/s: resting speed for `follow` (default 0.05) */
} tpThrowDef;

/// TP_SKILL_NUDGE (Twigg & James's Many-Worlds Browsing perturbations). The skill keeps
/// the body's velocity of the previous step; when a step changes it by more than gravity's dv plus
/// `trigger` (an impact of impulse J = m |dv - g dt|), the next step's force turns the new velocity
/// v about world z by the sampled `turn` (clamped to +-deflection) and scales its magnitude by
/// 1 + `scale`, the change m |dv'| clamped to budget * J: a correction no larger than a fraction of
/// the hit that causes it. Then no force. Same force channel and limits rule as throw.
typedef struct tpNudgeDef {
    tpDist turn;       /* rad, dim 1: the deflection about world z (unset: uniform in [-deflection,
                          deflection]); clamped to +-deflection */
    tpDist scale;      /* dim 1: relative change of the speed after the hit (unset: 0) */
    double budget;     /* >= 0: the nudge's impulse at most this fraction of the impact's (default 0.25) */
    double deflection; /* rad, >= 0: the largest turn (default 0.0873, 5 degrees) */
    double trigger;    /* m/s, >= 0: a velocity jump beyond gravity's counted as a hit (default 0.2) */
} tpNudgeDef;

/// A skill definition: the constants C and distributions D every kind shares, and the kind's own
/// in the union member named in `kind`'s comment. Get defaults with tpDefaultSkillDef(kind); the
/// domain copies it (tpDomainDef), so the caller keeps and frees whatever it points to.
typedef struct tpSkillDef {
    char name[TP_NAME_MAX]; /* unique within its tactic (default: the kind's name) */
    tpSkillKind kind;       /* selects the union member; set by tpDefaultSkillDef, never change it after */
    int body;               /* controlled body index (must have a control slot, except WAIT/CUSTOM);
                               default -1 */
    int target;             /* other body (the kicked ball, the watched or guarded body, the
                               TP_FRAME_TARGET origin), -1 (default) = none */
    tpFrame frame;          /* frame of the kind's `point` (default world) */
    bool has_toward;        /* true: with frame "target" or "body", `point` is sampled in a frame whose +x
                               axis points from the frame's origin (the target's or the body's position
                               at skill start) toward the world point `toward`, so "ahead" means "toward
                               the goal" (default false) */
    double toward[2];       /* m, world xy; used only when has_toward */
    tpSkillGains gains;     /* the controller's constants (every kind that drives its body) */
    union {
        tpWaitDef wait;        /* WAIT */
        tpDriveDef drive;      /* DRIVE_TO, TURN_TO */
        tpKickDef kick;        /* KICK, PUSH */
        tpImpulseDef impulse;  /* IMPULSE */
        tpSpinDef spin;        /* SPIN */
        tpBrakeDef brake;      /* BRAKE */
        tpRandomDef random;    /* RANDOM */
        tpCustomDef custom;    /* CUSTOM */
        tpSteerDef steer;      /* STEER */
        tpNavDef nav;          /* NAV_TO, FOLLOW_FIELD, FOLLOW_PATH */
        tpDriveTrackDef track; /* DRIVE_TRACK */
        tpChipDef chip;        /* CHIP */
        tpGuardDef guard;      /* GUARD */
        tpRideDef ride;        /* RIDE */
        tpMotorDef motor;      /* MOTOR */
        tpThrowDef throw_;     /* THROW */
        tpNudgeDef nudge;      /* NUDGE */
    };
} tpSkillDef;

/// Departure speed (m/s) for a solid sphere struck centrally, with no spin, to have speed
/// `arrive` (m/s) after `dist` (m) on a flat ground: it first slides (Coulomb friction `mu`,
/// spun up by friction against ODE's rolling resistance `rho` (m)) until it rolls, then rolls,
/// braked at rho * g / (1.4 * radius). g in m/s², radius in m.
double tpKick_DepartureSpeed(double mu, double rho, double radius, double g, double dist, double arrive);

/// Defaults for `kind` (see field comments): the shared fields and the kind's union member;
/// body = target = -1, distributions unset. `kind` must be a valid kind (TP_ASSERT).
tpSkillDef tpDefaultSkillDef(tpSkillKind kind);
/// Name of a kind ("wait", "drive_to", ...), and the reverse lookup (-1 if unknown; the aliases
/// "dribble" and "hold" name push and brake).
const char *tpSkillKind_Name(tpSkillKind kind);
int tpSkillKind_FromName(const char *name);
/// Alias of a kind ("dribble" for push, "hold" for brake), NULL for none.
const char *tpSkillKind_Alias(tpSkillKind kind);

/// How a script gives one of a kind's own fields (tpSkillField.type).
typedef enum {
    TP_FIELD_DIST,     /* a distribution (tpDist at `offset`), dimension dmin..dmax */
    TP_FIELD_DURATION, /* a duration distribution (tpDist, dim 1) whose constant or interval is >= 0 */
    TP_FIELD_NONNEG,   /* a finite number >= 0 (double) */
    TP_FIELD_NUMBER,   /* a number, +-inf allowed (double) */
    TP_FIELD_BOOL,     /* a boolean (bool) */
    TP_FIELD_BODY,     /* a body name, resolved to its index (int) when the domain is built */
    TP_FIELD_JOINT,    /* a joint name, resolved to its index (int) when the domain is built */
    TP_FIELD_RANGE,    /* {lo, hi} with lo <= hi: a uniform distribution (tpDist, dim 1) for the same
                          tpDist as the field before it (giving both is an error) */
} tpSkillFieldType;

/// One field of a kind's definition as a script names it: `offset` is the byte offset of its
/// value in tpSkillDef (inside the kind's union member). Plain value type.
typedef struct tpSkillField {
    const char *name; /* the script's key ("point", "nav_cell") */
    tpSkillFieldType type;
    size_t offset;  /* offsetof(tpSkillDef, <member>.<field>) */
    int dmin, dmax; /* TP_FIELD_DIST: allowed dimensions */
} tpSkillField;

/// The fields a script may give for `kind` (tp.skill.<name>{...}): every accepted key, in the
/// order an "unknown field" message lists them, NULL-terminated (*accepted), and the kind's own
/// typed fields, in the order they are read, ending with a NULL name (return value). The shared
/// keys (name, body, target, frame, toward, the gains, timeout) are accepted but not in the typed
/// list; a custom kind's `run` is the host's. Static storage; `kind` must be valid (TP_ASSERT).
const tpSkillField *tpSkillKind_Fields(tpSkillKind kind, const char *const **accepted);
/// The checks of a kind's own fields that need no world (steer: min_z <= max_z), for a front end
/// to run right after reading them: false with a message (no "skill 'name'" prefix) in err.
bool tpSkill_CheckFields(const tpSkillDef *skill, char *err, size_t errlen);
/// Checks a skill against a world: bodies exist and are controllable, distributions are valid.
bool tpSkill_Validate(const tpSkillDef *skill, const tpWorld *world, char *err, size_t errlen);
/// The invariant of a definition as the code builds it (tpDefaultSkillDef, a front end that read its
/// typed fields, as lua/src/skill_ctors.c): kind, name, frame, body and target >= -1, finite gains
/// >= 0, every typed field of its kind holding a value of its type; false with the first broken rule
/// in why (TP_VALIDATE's shape; skills/src/skill_validate.c).
bool tpSkillDef_Valid(const tpSkillDef *skill, char *why, size_t cap);

/// Everything f sees and produces in one call.
struct tpSkillCall {
    const tpWorld *world;
    const tpBodyState *x; /* stored body states (tpWorld_StateSlot order) of the source node */
    double t;             /* s, time of x */
    double dt;            /* s */
    const double *y;      /* RRT sample (ydim doubles), may be NULL */
    int ydim;
    tpRng *rng;             /* the run's generator (sampling happens only when fresh) */
    bool fresh;             /* first call since G selected this skill: V holds zeros */
    double *V;              /* TP_SKILL_VARS doubles, persisted while busy */
    double *action;         /* full action vector (6 doubles per control slot: add to it; then one target
                               per driven motor, tpWorld_MotorCount: set it) */
    tpOverlaySink *overlay; /* NULL while planning. Set only when a plan is recorded (tactics/record):
                               the call replays one step of the solution, V already holds what the
                               planning call left in it (so a fresh call must not sample again), and
                               the navigation skills emit what they computed (grid, path, field, local
                               map, search tree) into the sink. Other kinds ignore it. */
    tpSkillCache *cache;    /* the domain's navigation caches (not owned); the navigation skills
                               fail without one, the other kinds ignore it */
    uint64_t step;          /* 0 = unknown, or the host's id of this control step: every call with
                               the same nonzero id (and cache) sees the same x and t, so the skills may
                               share work between them (follow_field: the moving bodies' positions).
                               A host gives each new (x, t) a new id and never reuses one. */
};

/// f(C, D, V, x, a) -> (a', V', b): returns 1 while busy, 0 when this step ends the skill's
/// deterministic segment, -1 on error (CUSTOM only).
int tpSkill_Run(const tpSkillDef *skill, tpSkillCall *call);
/// Number of skill variables V the kind uses (V[0] .. V[n-1]); the domain stores only these per
/// tactic (the maximum over its skills). TP_SKILL_VARS for kinds that may use them all.
int tpSkill_VarCount(const tpSkillDef *skill);

/// Navigation obstacles of one body at its definition pose (tp/nav.h): box -> BOX, sphere ->
/// SPHERE, vertical cylinder -> DISC, vertical capsule -> DISC + 2 SPHEREs, plane -> HALFSPACE;
/// a tilted cylinder or capsule -> its enclosing oriented BOX (conservative); a marker -> nothing
/// (it never collides). Returns the count (<= 3).
int tpSkill_NavShapes(const tpBodyDef *body, tpNavShape out[3]);

/// Moment of inertia of body i about its vertical (local z) axis (kg·m²): from its shape and mass,
/// for a mesh the physics' own (volume integration scaled to its mass), for a body without
/// dynamics its mass (a stand-in, as for any shape without a formula).
double tpBody_InertiaZ(const tpWorld *world, int body);

#ifdef __cplusplus
}
#endif
#endif
