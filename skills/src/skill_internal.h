/* Private helpers shared by the skill primitives: body kinematics and the PD drive controller. */
#ifndef TP_SKILL_INTERNAL_H
#define TP_SKILL_INTERNAL_H

#include <math.h>

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
    double imin;       /* kg·m², the smallest principal moment of inertia (free bodies' angular damping) */
    bool planar;       /* the body's force is planar (tpBodyDef.planar_force): the drive controller's model */
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
 * with an enum `<KIND>_V_<NAME>` next to its f (e.g. KICK_V_PHASE in skill_kick.c), and a kind that
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
/// The PI law of tpCtl_YawTorque for a yaw-rate error e (rad/s, commanded minus actual):
/// izz * (kyaw_rate * e + kyaw_rate² * integral), N·m; the integral (rad) lives in *integral,
/// clamped so that it alone stays within max_torque; integral NULL gives a pure P law.
double tpCtl_YawRateTorque(const tpSkillGains *g, const tpCtlBody *cb, double e, double *integral, double dt);
/// Commanded velocity toward point p (xy) that arrives at rest: min(cruise, kp*d, sqrt(1.4*a*d)).
void tpCtl_GoToVelocity(const tpSkillGains *g, const tpCtlBody *cb, const double p[2], double cruise, double v[2]);
/// Full brake: force opposing the velocity, torque opposing the yaw rate. Adds to the action.
void tpCtl_Brake(const tpSkillGains *g, const tpSkillCall *call, const tpCtlBody *cb);
/* skill_cache.c: the domain's skill cache (tpSkillCache). It holds what several kinds share (the
 * static bodies' bounds and grown rasters, the search clock) and one slot per kind (or family)
 * for the kind's own caches, which the cache frees with the destructor stored with them. */
/// Bounds (x0, y0, x1, y1, m) of the footprints of the static bodies but `self` in the band
/// [z_min, z_max] and of the points a and b, with a margin (used by the grids). The static part is
/// computed once per (world, self, band) and kept in `cache`. Returns the hash of the geometry of
/// those static bodies (part of a grid's cache key).
uint64_t tpSkill_NavBounds(tpSkillCache *cache, const tpWorld *world, int self, double z_min, double z_max,
                           const double a[2], const double b[2], double margin, double bounds[4]);
/// The hash of the geometry of the static bodies but `self` (as tpSkill_NavBounds returns it).
uint64_t tpSkill_StaticsKey(tpSkillCache *cache, const tpWorld *world, int self, double z_min, double z_max);
/// The definition of a grid of `cell` m covering `bounds` (x0, y0, x1, y1, m) in the height band
/// [z_min, z_max]: coarser cells when a side would exceed max_side cells, at least 1 x 1 cells.
tpNavGridDef tpSkill_GridOver(const double bounds[4], double cell, int max_side, double z_min, double z_max);
/// Rasterises every static body of the world but `self` into the grid (not grown).
void tpSkill_AddStatics(tpNavGrid *grid, const tpWorld *world, int self);
/// Adds the wall-clock seconds since t0 (a tpClock_Now) to the cache's search total (see
/// tpSkillCache_SearchSeconds); NULL cache: nothing. The navigation kinds bracket their searches.
void tpSkill_SearchDone(tpSkillCache *cache, double t0);
/// The grid of `def` holding the raster of every static body of `world` but `self`, grown by
/// def->radius (m, >= 0): kept by the cache for the last few (world, self, def) asked for, so it is
/// rasterised and grown once (self counts only when it is a static body). Owned by the cache, read-only, valid until
/// the next call. NULL when out of memory or on a bad def.
const tpNavGrid *tpSkill_StaticGrid(tpSkillCache *cache, const tpWorld *world, int self, const tpNavGridDef *def);
/// The slot of a kind's own cache in `cache` (a family shares the slot of one of its kinds): NULL
/// until the kind stores something there; the kind allocates and replaces it, and the cache calls
/// `destroy` on it (when not NULL) when it is destroyed (the last `destroy` given for the slot).
void **tpSkillCache_Slot(tpSkillCache *cache, tpSkillKind kind, void (*destroy)(void *));

/* skill_support.c: what every kind's f and validate share. */
/// Samples `point` (the kind's point distribution) in the skill's frame (sk->frame, target, toward),
/// resolved to world coordinates (m, z = 0 for 2D).
void tpSkill_SamplePoint(const tpSkillDef *sk, const tpDist *point, tpSkillCall *call, const tpCtlBody *self,
                         double out[3]);
/// Draws one scalar from d, or `fallback` when d is unset.
double tpSkill_Sample1(const tpDist *d, tpSkillCall *call, double fallback);
/// Draws a unit world direction into out: dim 1 is a yaw angle (rad), dim 2/3 a vector (normalised;
/// a zero vector means `yaw`); unset means the yaw angle `yaw`.
void tpSkill_SampleDirection(const tpDist *d, tpSkillCall *call, double yaw, double out[3]);
/// Samples a navigation goal into V[NAV_V_GOAL_X..Y] (sk->nav.point in the skill's frame) and the cruise
/// speed into V[NAV_V_CRUISE] (sk->nav.speed if in (0, max_speed), else max_speed).
void tpSkill_NavGoal(const tpSkillDef *sk, tpSkillCall *call, const tpCtlBody *cb, double *V);
/// The navigation kinds' prologue: NULL when the call has no cache (the caches live in the domain:
/// a host that runs them must give one; f then returns -1), else loads the body into cb and
/// returns its definition.
const tpBodyDef *tpSkill_NavBegin(const tpSkillDef *sk, const tpSkillCall *call, tpCtlBody *cb);
/// The path follower's output (tpNavFollower_Control: forward acceleration acc, m/s², and the
/// commanded yaw rate omega_cmd, rad/s) as a planar force and a torque on the body, with the integral of
/// the forward speed error in V[TP_V_INTEGRAL_X] (kv: the follower's velocity gain, 1/s) and the yaw
/// rate's PI law (tpCtl_YawRateTorque, the skill's kyaw_rate, integral in V[yaw_slot]); both
/// integrals reset when done (nav_skill.h's tpSkill_FollowerDef gives the follower the skill's gains).
void tpSkill_FollowerApply(const tpSkillDef *sk, tpSkillCall *call, const tpCtlBody *cb, bool done, double acc,
                           double omega_cmd, double kv, int yaw_slot);

/// Time-based busy flag: 1 if the segment ends after the state this step produces, else 0.
int tpSkill_BusyUntil(const tpSkillCall *call, double t_end);
/// The longest busy segment (s): sk->gains.timeout when set (> 0), else the kind's default.
double tpSkill_Timeout(const tpSkillDef *sk, double kind_default);
/// Planar norm sqrt(x² + y²) (not hypot: the plans' bits depend on this exact expression).
static inline double tpSkill_Norm2(double x, double y)
{
    return sqrt(x * x + y * y);
}
/// Half the height of a body's shape along its own z axis (m): box size[2] / 2, sphere radius,
/// cylinder size[1] / 2, capsule size[1] / 2 + radius; 0 for a plane.
double tpSkill_HalfHeight(const tpBodyDef *body);

/// One named number of a def: finite, >= 0, and > 0 when `positive`.
typedef struct tpSkillNum {
    const char *n;
    double v;
    bool positive;
} tpSkillNum;
/// One named distribution of a def, with its allowed dimensions.
typedef struct tpSkillDistCheck {
    const char *n;
    const tpDist *d;
    int dmin, dmax;
} tpSkillDistCheck;
/// Checks named numbers / distributions; false with "skill 'name': field ..." in err.
bool tpSkill_CheckNums(const tpSkillDef *sk, const tpSkillNum *nums, size_t n, char *err, size_t errlen);
bool tpSkill_CheckDists(const tpSkillDef *sk, const tpSkillDistCheck *dists, size_t n, char *err, size_t errlen);
/// "skill 'name' (kind): 'point' is required" when point is unset (`kind`: the kind's name).
bool tpSkill_RequirePoint(const tpSkillDef *sk, const char *kind, const tpDist *point, char *err, size_t errlen);
/* In a validate function with parameters (sk, world, err, errlen): return false on the first
 * failing number / distribution. */
#define TP_SKILL_NUMS(...)                                                                                             \
    do {                                                                                                               \
        const tpSkillNum nums_[] = {__VA_ARGS__};                                                                      \
        if (!tpSkill_CheckNums(sk, nums_, sizeof nums_ / sizeof nums_[0], err, errlen)) {                              \
            return false;                                                                                              \
        }                                                                                                              \
    } while (0)
#define TP_SKILL_DISTS(...)                                                                                            \
    do {                                                                                                               \
        const tpSkillDistCheck dists_[] = {__VA_ARGS__};                                                               \
        if (!tpSkill_CheckDists(sk, dists_, sizeof dists_ / sizeof dists_[0], err, errlen)) {                          \
            return false;                                                                                              \
        }                                                                                                              \
    } while (0)

/* rest.c */
/// True while any stored (moving) body of the world is faster than `speed` (m/s) in x: the
/// follow-through test of impulse and spin ("the shot is over when everything rests").
bool tpCtl_WorldMoving(const tpSkillCall *call, double speed);

/* skill_kick.c: the approach both kick and chip drive (chip.c uses it). */
/// The point (m, world xy) to drive to so the body (cb) lines up `stand` m behind the target at
/// `ball` for a shot along the unit direction (dx, dy): straight behind -- or closer, down to
/// `min_stand` m, when it is already behind within `clear` of the line (a target near a wall leaves
/// no room for the full stand-off; chip passes min_stand = stand) -- or, when the body is on the
/// target's far side (less than stand / 2 behind it, within `clear` of the line), a point beside
/// the target first.
void tpKick_ApproachGoal(const tpCtlBody *cb, const double ball[2], double dx, double dy, double stand,
                         double min_stand, double clear, double goal[2]);

#endif
