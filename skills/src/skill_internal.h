/* Private helpers shared by the skill primitives: body kinematics and the PD drive controller. */
#ifndef TP_SKILL_INTERNAL_H
#define TP_SKILL_INTERNAL_H

#include "tp/mathx.h"
#include "tp/skills.h"

/// What a controller needs to know about the controlled body this step.
typedef struct tpCtlBody {
    int body;          /* body index */
    int slot;          /* control slot, -1 if the body takes no forces */
    tpBodyState s;     /* state at the call's time */
    double mass;       /* kg */
    double izz;        /* kg·m², inertia about the vertical axis */
    double max_force;  /* N (a large number when unlimited) */
    double max_torque; /* N·m */
    double max_accel;  /* m/s², max_force / mass */
    double yaw;        /* rad */
    double yaw_period; /* rad: yaw symmetry of the shape (π/2 for boxes with square base, 2π otherwise) */
    double radius;     /* m: horizontal half-extent, for stand-off distances */
} tpCtlBody;

/// Loads the controlled body's state and limits. Returns false if body < 0.
bool tpCtl_Load(const tpSkillCall *call, int body, tpCtlBody *cb);
/// Horizontal half-extent of any body (sphere radius, box half diagonal...), m.
double tpCtl_Radius(const tpWorld *world, int body);
/// Heading error to `want` modulo the body's yaw symmetry, in (-period/2, period/2].
double tpCtl_YawError(const tpCtlBody *cb, double want);
/// Adds a force/torque to the body's action slot, clamped to its limits (planar: xy force, z torque).
void tpCtl_Apply(const tpSkillCall *call, const tpCtlBody *cb, const double f[3], double tz);
/* The skill variables V (TP_SKILL_VARS doubles per tactic) have a named layout: never index V
 * with a bare number. Every kind shares these slots; each kind names its own variables in V[1..12]
 * with an enum `<KIND>_V_<NAME>` next to its f (e.g. KICK_V_PHASE in skills.c), and a kind that
 * does not run the PI controllers below may reuse slots 13..15 (follow_path does). */
enum {
    TP_V_START = 0,         /* s: time of the fresh call (tpSkill_Run sets it) */
    TP_V_YAW_INTEGRAL = 13, /* rad: integral of the yaw-rate error (tpCtl_YawTorque) */
    TP_V_INTEGRAL_X = 14,   /* m: integral of the planar velocity error, x (tpCtl_TrackVelocity) */
    TP_V_INTEGRAL_Y = 15,   /* m: the same, y */
};
_Static_assert(TP_V_INTEGRAL_Y < TP_SKILL_VARS, "the shared V slots must fit in TP_SKILL_VARS");
/* The goal of the grid-navigation kinds (nav_to, follow_field, follow_path), filled by
 * tpSkill_NavGoal. */
enum {
    NAV_V_GOAL_X = 1, /* m, world */
    NAV_V_GOAL_Y = 2, /* m, world */
    NAV_V_CRUISE = 3, /* m/s: cruise speed */
};

/// Force to track a commanded planar velocity: mass * (kv * e + ki * integral(e)), e = v_cmd - v.
/// The integral (kept in V[TP_V_INTEGRAL_X], V[TP_V_INTEGRAL_Y], clamped against wind-up) overcomes ground friction
/// that a pure P law would stall against; pass V = NULL for a pure P law.
void tpCtl_TrackVelocity(const tpSkillGains *g, const tpCtlBody *cb, const double vcmd[2], double *V, double dt,
                         double f[3]);
/// Torque to reach yaw `want` (when has_heading) or to stop turning otherwise: a PI law on the
/// yaw-rate error, so that small heading errors still overcome the ground's friction torque
/// (a P law stalls a box on the green 0.1 rad off). The integral lives in V[TP_V_YAW_INTEGRAL]
/// (clamped against wind-up); pass V = NULL for a pure P law.
double tpCtl_YawTorque(const tpSkillGains *g, const tpCtlBody *cb, bool has_heading, double want, double *V, double dt);
/// Commanded velocity toward point p (xy) that arrives at rest: min(cruise, kp*d, sqrt(1.4*a*d)).
void tpCtl_GoToVelocity(const tpSkillGains *g, const tpCtlBody *cb, const double p[2], double cruise, double v[2]);
/// Full brake: force opposing the velocity, torque opposing the yaw rate. Adds to the action.
void tpCtl_Brake(const tpSkillGains *g, const tpSkillCall *call, const tpCtlBody *cb);
/// f of the steer kind (steer.c).
int tpSteer_Run(const tpSkillDef *sk, tpSkillCall *call);

/// f of TP_SKILL_NAV_TO (skills/src/nav_skill.c).
int tpSkill_RunNavTo(const tpSkillDef *sk, tpSkillCall *call);
/// f of TP_SKILL_FOLLOW_FIELD (skills/src/nav_skill.c).
int tpSkill_RunFollowField(const tpSkillDef *sk, tpSkillCall *call);
/// f of TP_SKILL_DRIVE_TRACK (skills/src/nav_skill.c).
int tpSkill_RunDriveTrack(const tpSkillDef *sk, tpSkillCall *call);
/// f of TP_SKILL_FOLLOW_PATH (skills/src/nav_path_skill.c).
int tpSkill_RunFollowPath(const tpSkillDef *sk, tpSkillCall *call);
/// f of TP_SKILL_RIDE (skills/src/ride.c).
int tpSkill_RunRide(const tpSkillDef *sk, tpSkillCall *call);
/// Bounds (x0, y0, x1, y1, m) of the footprints of the static bodies but `self` in the band
/// [z_min, z_max] and of the points a and b, with a margin (nav_skill.c; used by the grids). The
/// static part is computed once per (world, self, band) and kept in `cache`.
void tpSkill_NavBounds(tpSkillCache *cache, const tpWorld *world, int self, double z_min, double z_max,
                       const double a[2], const double b[2], double margin, double bounds[4]);
/// Adds the wall-clock seconds since t0 (a tpClock_Now) to the cache's search total (see
/// tpSkillCache_SearchSeconds); NULL cache: nothing. The navigation kinds bracket their searches.
void tpSkill_SearchDone(tpSkillCache *cache, double t0);
/// The ride skill's observation checkpoints (ride.c), owned by the skill cache: the cache's slot
/// for them (never NULL), and their destructor (NULL allowed).
typedef struct tpRideCache tpRideCache;
tpRideCache **tpSkillCache_Ride(tpSkillCache *cache);
void tpDestroyRideCache(tpRideCache *rc);
/// The grid of `def` holding the raster of every static body of `world` but `self`, grown by
/// def->radius (m, >= 0): kept by the cache for the last few (world, self, def) asked for, so it is
/// rasterised and grown once (self counts only when it is a static body). Owned by the cache, read-only, valid until
/// the next call. NULL when out of memory or on a bad def.
const tpNavGrid *tpSkill_StaticGrid(tpSkillCache *cache, const tpWorld *world, int self, const tpNavGridDef *def);
/// follow_path's own caches (nav_path_skill.c), kept in the skill cache: the slot (NULL until
/// follow_path creates them) and their destructor (NULL allowed), which tpDestroySkillCache calls.
typedef struct tpLegCache tpLegCache;
tpLegCache **tpSkill_LegCache(tpSkillCache *cache);
void tpDestroyLegCache(tpLegCache *leg);
/// Default timeout of a kind when sk->gains.timeout is 0 (s).
double tpSkill_DefaultTimeout(const tpSkillDef *sk);
/* Shared by the skill source files (skills.c defines them). */
/// Samples `point` (the kind's point distribution) in the skill's frame (sk->frame, target, toward),
/// resolved to world coordinates (m, z = 0 for 2D).
void tpSkill_SamplePoint(const tpSkillDef *sk, const tpDist *point, tpSkillCall *call, const tpCtlBody *self,
                         double out[3]);
/// Draws one scalar from d, or `fallback` when d is unset.
double tpSkill_Sample1(const tpDist *d, tpSkillCall *call, double fallback);
/// Samples a navigation goal into V[NAV_V_GOAL_X..Y] (sk->nav.point in the skill's frame) and the cruise
/// speed into V[NAV_V_CRUISE] (sk->nav.speed if in (0, max_speed), else max_speed); nav_skill.c.
void tpSkill_NavGoal(const tpSkillDef *sk, tpSkillCall *call, const tpCtlBody *cb, double *V);

/* rest.c */
/// True while any stored (moving) body of the world is faster than `speed` (m/s) in x: the
/// follow-through test of impulse and spin ("the shot is over when everything rests").
bool tpCtl_WorldMoving(const tpSkillCall *call, double speed);

/* chip.c */
/// Extra checks of a chip skill (target controllable, loft range). false with a message.
bool tpSkill_ValidateChip(const tpSkillDef *sk, const tpWorld *world, char *err, size_t errlen);
int tpSkill_RunChip(const tpSkillDef *sk, tpSkillCall *call);
/* guard.c */
int tpSkill_RunGuard(const tpSkillDef *sk, tpSkillCall *call);

#endif
