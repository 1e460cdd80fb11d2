/* tplan physics: an ODE world built from a scene description, with a pure Sim(x, a, Δt).
 *
 * This is the only module that includes <ode/ode.h>; no ODE type appears here.
 * Sim purity (see docs/architecture.md and the guide): every step restores the full state
 * x first, generates contacts in a canonical order, resets ODE's random seed, and never uses
 * auto-disable. A chain of tpWorld_Step calls is therefore bit-identical however many
 * unrelated steps happen in between. */
#ifndef TP_PHYSICS_H
#define TP_PHYSICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_NAME_MAX 64

/// Rigid-body classes of the paper (Sec. 3.1, Fig. 2).
typedef enum {
    TP_BODY_STATIC = 0,  /* never moves: ground, walls (a geom without an ODE body) */
    TP_BODY_PASSIVE = 1, /* moves only through contacts and gravity */
    TP_BODY_ACTIVE = 2,  /* actively controlled by the planner (receives forces/torques) */
    TP_BODY_FOREIGN = 3, /* controlled outside the planner: predictable motion or a deterministic tactic */
} tpBodyClass;

/// Body shapes. A mesh body collides as an ODE triangle mesh when static and as the convex hull
/// of its vertices when it moves (docs/physics.md, "Mesh bodies"). A compound is one rigid body of
/// several parts (tpPartDef; docs/physics.md, "Compound bodies").
typedef enum {
    TP_SHAPE_BOX = 0,
    TP_SHAPE_SPHERE,
    TP_SHAPE_CYLINDER,
    TP_SHAPE_CAPSULE,
    TP_SHAPE_PLANE,
    TP_SHAPE_MESH,
    TP_SHAPE_COMPOUND,
} tpShapeKind;

#define TP_MAX_PARTS 64 /* parts of one compound body */

/// One part of a compound body (tpBodyDef.parts): a shape placed in the body's frame. The parts of
/// one body never collide with each other; each collides with the rest of the world as a body of
/// its own shape would (a mesh part as its convex hull when the body moves, as its triangles when
/// it is static).
typedef struct tpPartDef {
    tpShapeKind shape; /* box, sphere, cylinder, capsule or mesh (not plane or compound) */
    double size[3];    /* as tpBodyDef.size (m); unused for a mesh part */
    tpMeshView mesh;   /* TP_SHAPE_MESH: triangles in the part's frame (m); closed when the body moves.
                          Owned by the caller: tpCreateWorld copies them */
    double pos[3];     /* m: the part frame's origin in the body frame */
    double quat[4];    /* w,x,y,z: the part frame's orientation in the body frame (normalised on creation) */
    double mass;       /* kg, >= 0: 0 = its volume's share, at one uniform density, of what the body's
                          mass leaves after the parts that give theirs */
} tpPartDef;

/// A box part of 1 m at the body's origin, unrotated, mass 0 (its volume's share).
tpPartDef tpDefaultPartDef(void);
/// The volume (m^3) of part p's shape (a mesh's by volume integration; 0 for plane or compound).
double tpPart_Volume(const tpPartDef *p);

/// Motion of a foreign body.
typedef enum {
    TP_MOTION_TACTIC = 0, /* dynamic body driven by a deterministic tactic (forces, like active) */
    TP_MOTION_ROTATE,     /* kinematic: spins about `axis` through its initial position at `rate` rad/s */
    TP_MOTION_LINEAR,     /* kinematic: p(t) = p0 + vel * t */
    TP_MOTION_OSCILLATE,  /* kinematic: p(t) = p0 + amplitude * sin(2π t / period + phase) */
    TP_MOTION_WAYPOINTS,  /* kinematic: piecewise linear through points, pausing at each stop */
    TP_MOTION_FUNCTION,   /* kinematic: the pose is a host function of t (tp.motion in Lua) */
} tpMotionKind;

/// How a waypoint motion goes on after its last point.
typedef enum {
    TP_LOOP_ONCE = 0, /* stops at the last point for good */
    TP_LOOP_CYCLE,    /* last point -> first point -> ... */
    TP_LOOP_PINGPONG, /* back through the points in reverse, then forward again */
} tpMotionLoop;

#define TP_MAX_WAYPOINTS 16

struct tpBodyState;

/// State of a TP_MOTION_FUNCTION body at time t (s), computed by the host (the Lua layer runs the
/// script's function): writes out->pos (m, world), out->quat (w,x,y,z, unit length), out->vel
/// (m/s) and out->angvel (rad/s, world frame); the velocities are what contacts see, so a body
/// resting on it rides along. Must depend on t only (Sim purity). Returns false on an error, with
/// a message in err (the host's own words, "file:line: ..." for a script): the world keeps the
/// first one (tpWorld_FatalError) and every later tpWorld_Step fails.
typedef bool (*tpMotionFn)(void *user, int id, double t, struct tpBodyState *out, char *err, size_t errlen);

/// Predictable motion of a kinematic foreign body; the pose is a function of time only.
typedef struct tpMotionDef {
    tpMotionKind kind;
    double axis[3];      /* ROTATE: unit axis (default z) */
    double rate;         /* ROTATE: rad/s */
    double phase;        /* ROTATE: initial angle (rad); OSCILLATE: phase (rad) */
    double vel[3];       /* LINEAR: m/s */
    double amplitude[3]; /* OSCILLATE: m */
    double period;       /* OSCILLATE: s (> 0) */
    /* WAYPOINTS: p(t) = p0 + points[k] (xyz, m) and yaw about world z (points[k][3], rad) applied
     * to the initial orientation; from each stop the body pauses `pause` s, then moves to the
     * next stop at constant velocity in leg_time[k] s (leg k: point k -> point (k+1) % npoints;
     * pingpong legs backwards take the forward leg's time). Position is continuous in t, the
     * velocity reported is the one that moves it, so bodies resting on it ride along. */
    int npoints;                        /* 2..TP_MAX_WAYPOINTS */
    double points[TP_MAX_WAYPOINTS][4]; /* m, m, m, rad; points[0] is usually zero */
    double leg_time[TP_MAX_WAYPOINTS];  /* s, >= 1e-3 (npoints - 1 legs; npoints for CYCLE) */
    double pause;                       /* s at every stop, >= 0 */
    tpMotionLoop loop;
    /* FUNCTION: state = fn(user, fn_id, t) in world coordinates, one call per evaluation of the
     * body (each step, each tpWorld_BodyState); the body's pos and quat are replaced by the pose
     * at t = 0 on creation. */
    tpMotionFn fn; /* FUNCTION: host callback, pure in t; required */
    void *user;    /* FUNCTION: passed to fn; owned by the host, must outlive the world */
    int fn_id;     /* FUNCTION: the host's id of the function, passed to fn */
} tpMotionDef;

/// Surface material. Pair properties: friction = sqrt(f1*f2), restitution = max(e1, e2),
/// rolling friction = max(r1, r2), unless a tpContactDef overrides the pair.
typedef struct tpMaterialDef {
    char name[TP_NAME_MAX];
    double friction;         /* Coulomb μ (>= 0); dInfinity not allowed */
    double restitution;      /* bounce coefficient in [0, 1] */
    double rolling_friction; /* ODE rolling-friction coefficient rho (>= 0, m) */
    double bounce_velocity;  /* minimum incoming speed for a bounce (m/s, >= 0) */
} tpMaterialDef;

/// Explicit properties for a pair of materials (overrides the mixing rule).
typedef struct tpContactDef {
    int material_a, material_b; /* indices into tpSceneDef.materials */
    double friction, restitution, rolling_friction, bounce_velocity;
} tpContactDef;

/// One body of the scene. Get defaults from tpDefaultBodyDef().
typedef struct tpBodyDef {
    char name[TP_NAME_MAX]; /* unique, non-empty */
    tpBodyClass cls;
    tpShapeKind shape;
    double size[3];        /* box: full extents x,y,z (m); sphere: radius in [0]; cylinder and capsule:
                              radius in [0], length in [1] (along local z) */
    double plane[4];       /* plane only: a,b,c,d with a*x+b*y+c*z = d (normal need not be unit) */
    double mass;           /* kg, > 0 for non-static bodies (ignored for static/kinematic) */
    double pos[3];         /* initial position (m, world) */
    double quat[4];        /* initial orientation (w,x,y,z), normalised on creation */
    double vel[3];         /* initial linear velocity (m/s) */
    double angvel[3];      /* initial angular velocity (rad/s) */
    int material;          /* index into tpSceneDef.materials; default 0 */
    float color[4];        /* RGBA for viewers */
    double max_force;      /* controlled bodies: |F| limit (N); 0 = unlimited */
    double max_torque;     /* controlled bodies: |τ| limit (N·m); 0 = unlimited */
    bool planar_force;     /* controlled bodies: force restricted to the xy plane, torque to z */
    double linear_damping; /* ODE per-body damping (0 = none) */
    double angular_damping;
    tpMotionDef motion; /* foreign bodies only */
    bool marker;        /* static bodies only: recorded and drawn, but never collides (a hole, a
                           goal zone on the floor) */
    /* TP_SHAPE_MESH only: the triangles in the body's frame (m). Static: any triangle soup (a
       bucket, a bowl, terrain). Moving (dynamic or scripted): a closed, outward-facing mesh
       (tpMesh_CheckClosed) whose centre of mass is the body's origin (within 1e-6 of its size;
       tpMesh_MassProperties gives it), collided as its convex hull; the inertia comes from the
       mesh by volume integration, scaled to `mass`. size[] is not used. The arrays stay owned by
       the caller: tpCreateWorld copies them. */
    tpMeshView mesh;
    double mesh_origin[3]; /* TP_SHAPE_MESH, TP_SHAPE_COMPOUND: where the origin of the artist's object
                              (the mesh file's, the glTF node's, the script's compound frame) is in the
                              body frame (m); recorded for exporters, not used by the physics. 0 when
                              the body frame is the file's. */
    /* TP_SHAPE_COMPOUND only: 1..TP_MAX_PARTS parts in the body's frame, owned by the caller
       (tpCreateWorld copies them and their meshes). A dynamic compound's frame is its centre of
       mass: the parts' combined centre of mass must be the origin (within 1e-6 of its size);
       tpCompound_Centre moves a body's frame there. mass is the body's total; size[] is set by
       tpCreateWorld (in its copy) to the full extents of the box about the origin that holds the
       parts, what skills and viewers use as the body's footprint. */
    const tpPartDef *parts;
    int nparts;
} tpBodyDef;

/// Mass properties of compound body b (shape TP_SHAPE_COMPOUND, mass b->mass): each part's mass
/// (kg, into part_mass: b->nparts entries, may be NULL), the centre of mass (m, body frame) and the
/// inertia tensor about it (kg·m², row-major, body axes): each part's closed form (box, sphere,
/// cylinder, capsule; a mesh by volume integration) turned into the body frame and moved to the
/// centre of mass (parallel-axis theorem). False with a message naming parts[k] and the field when
/// the parts' masses do not add up (given masses beyond b->mass, or all given and not b->mass).
/// Checks nothing else (tpCreateWorld does).
bool tpCompound_MassProperties(const tpBodyDef *b, double *part_mass, double com[3], double inertia[9], char *err,
                               size_t errlen);
/// Moves compound body b's frame to its centre of mass: `parts` (b->nparts entries, what b->parts
/// points to, owned by the caller) are shifted by minus the centre, b->pos by the centre turned by
/// b->quat, and b->mesh_origin records where the old origin is in the new frame. Poses of the body
/// (states, plans, replays) are then its centre of mass's. False as tpCompound_MassProperties.
bool tpCompound_Centre(tpBodyDef *b, tpPartDef *parts, char *err, size_t errlen);
/// Axis-aligned bounds (m, body frame) of compound b's parts: of each part's own bounding box
/// (a mesh's vertices) turned into the body frame, so conservative for turned parts.
void tpCompound_Bounds(const tpBodyDef *b, double lo[3], double hi[3]);

/// Joint kinds (ODE's joints; docs/lua-api.md "Joints"). Angles and positions are measured from
/// the bodies' initial poses (0 there), as body a relative to body b.
typedef enum {
    TP_JOINT_HINGE = 0, /* one rotation about axis through anchor */
    TP_JOINT_SLIDER,    /* one translation along axis, no rotation */
    TP_JOINT_BALL,      /* rotations about anchor */
    TP_JOINT_FIXED,     /* glues a to b as they are */
    TP_JOINT_UNIVERSAL, /* rotations about axis (on a) and axis2 (on b, perpendicular to axis) */
    TP_JOINT_HINGE2,    /* a wheel: a = chassis, b = wheel; steering about axis (on a), spin about
                           axis2 (on b); axis 1's spring is a suspension along axis */
    TP_JOINT_DISTANCE,  /* anchor on a and anchor2 on b stay `length` apart (a rod: pulls and pushes) */
} tpJointKind;

#define TP_JOINT_KINDS 7

/// Limit, spring and motor of one joint axis (angles in rad and torques in N·m for a rotation,
/// m and N for a translation). A spring pulls toward `rest` with `stiffness` (N·m/rad or N/m)
/// and `damping` (N·m·s/rad or N·s/m), made into ODE's ERP and CFM for each solve's time step h
/// (ERP = h k / (h k + c), CFM = 1 / (h k + c)): an implicit spring, stable at any stiffness.
typedef struct tpJointAxisDef {
    bool limit;       /* lo <= angle (position) <= hi */
    double lo, hi;    /* rad (within [-pi, pi]) or m; lo <= hi */
    double bounce;    /* restitution of the limit, [0, 1] */
    double stiffness; /* >= 0; 0 = no spring. Not with a limit on the same axis (ODE's stop holds both) */
    double damping;   /* >= 0 (a damper alone: stiffness 0, damping > 0 is not supported; use a motor
                         with speed 0 as a brake) */
    double rest;      /* the spring's rest angle (rad, within [-pi, pi]) or position (m); hinge2: 0 */
    bool motor;       /* a velocity motor on this axis */
    double speed;     /* motor: target rad/s or m/s (driven: the target of a zero-filled default action
                         is NOT this; see `driven`) */
    double max_force; /* motor: the most torque (N·m) or force (N) it gives, > 0 */
    bool driven;      /* motor: its target speed is part of the action (tpWorld_MotorCount): each step
                         sets it; `speed` is then only the tactics' default (what a step without a
                         skill driving it asks for) */
    double max_speed; /* driven: |target| <= max_speed (rad/s or m/s; 0 = TP_MAX_ANGVEL for a rotation,
                         TP_MAX_SPEED for a slider); tpWorld_ClampAction clamps to it */
} tpJointAxisDef;

/// One joint. Get defaults from tpDefaultJointDef(). The anchor and axes are in the world frame at
/// the bodies' initial poses.
typedef struct tpJointDef {
    char name[TP_NAME_MAX]; /* optional (may be empty); unique when set */
    tpJointKind kind;
    int body_a;             /* body index: a moving body (dynamic or scripted) */
    int body_b;             /* body index, or -1 for the world; not body_a. Static: like the world */
    double anchor[3];       /* m, world: hinge, ball, universal, hinge2 pivot; distance: the point on a */
    double anchor2[3];      /* m, world: distance only, the point on b */
    double axis[3];         /* hinge, slider, universal axis 1, hinge2 steering axis: non-zero (normalised) */
    double axis2[3];        /* universal (perpendicular to axis), hinge2 spin axis (not parallel to axis) */
    double length;          /* distance: m, >= 0; negative = the initial distance of the anchors */
    bool collide;           /* the two bodies collide with each other (default false: a hinge's parts
                               overlap at the pin) */
    tpJointAxisDef axes[2]; /* axis 1, axis 2 (universal, hinge2 spin: motor only) */
} tpJointDef;

/// A hinge between body 0 and the world, anchor at the origin, axis z, no limit, spring or motor,
/// distance length -1 (the initial distance), bodies not colliding.
tpJointDef tpDefaultJointDef(void);
/// The kind's name ("hinge", "slider", "ball", "fixed", "universal", "hinge2", "distance"), "?" if none.
const char *tpJointKindName(tpJointKind kind);
/// How many axes of the kind take a limit, spring or motor: hinge, slider 1; universal 2 (limits,
/// springs, motors); hinge2 2 (axis 1 limit, suspension spring and motor; axis 2 motor only);
/// ball, fixed 0; distance 0.
int tpJointAxisCount(tpJointKind kind);

typedef enum { TP_SOLVER_STEP = 0, TP_SOLVER_QUICKSTEP = 1 } tpSolverKind;

/// Collision broad phase (ODE space). Every choice reports the same touching pairs, and contacts
/// are generated in a canonical order anyway, so the choice changes speed, never results.
typedef enum {
    TP_SPACE_AUTO = 0, /* simple space up to 32 bodies, hash space above (default) */
    TP_SPACE_SIMPLE,   /* O(n^2) pair tests: best for a handful of bodies */
    TP_SPACE_HASH,     /* multi-resolution hash grid, cell levels fitted to the body sizes */
    TP_SPACE_SAP,      /* sweep and prune: many similar bodies spread along the axes */
} tpSpaceKind;

/// Scene definition. tpCreateWorld copies everything; the arrays stay owned by the caller.
typedef struct tpSceneDef {
    double gravity[3];   /* m/s², default (0, 0, -9.81) */
    double dt;           /* Δt in s, > 0, default 1/60 */
    tpSolverKind solver; /* default TP_SOLVER_STEP (dWorldStep) */
    int quickstep_iters; /* default 20 */
    double erp, cfm;     /* ODE error reduction / constraint force mixing; defaults 0.2, 1e-5 */
    int max_contacts;    /* per geom pair, default 8 */
    int substeps;        /* ODE steps per Δt, each Δt / substeps with the same action (collision
                            detection runs every substep, so a fast small body cannot pass
                            through a thin one between two steps); 1..64, default 1 */
    tpSpaceKind space;   /* broad phase, default TP_SPACE_AUTO */
    /* Penetration limits (m; 0 = no check). A step after which a moving body overlaps static
       geometry (floor, walls) deeper than max_static_penetration, or two moving bodies (dynamic or
       scripted) overlap deeper than max_body_penetration, is invalid: a scripted body crushing a
       crate through the floor, a body driven into a wall, a stack sinking. The physics keeps
       ordinary motion well inside both (speculative contacts for fast bodies, the Dantzig
       fallback): see docs/physics.md. `tplan replay --check` uses the same limits (recorded in
       the plan file). Defaults 0.005 and 0.005. */
    double max_static_penetration;
    double max_body_penetration;
    /* Sleeping (tpWorld_StepRest; docs/physics.md "Sleeping"): a body whose speed, and whose
       angular speed times its bounding radius, stayed at most sleep_speed (m/s) at the end of
       every step for sleep_time (s) while it touched something and no action acted on it is put
       to rest (velocities zeroed) and no longer simulated until an action, a moving body or a
       scripted body touches it. sleep_speed 0 = never. Defaults 0.005 m/s and 0.25 s. */
    double sleep_speed;
    double sleep_time;
    /* Friction as an isotropic cone (default true): each contact's first friction direction is the
       slip the substep would make without friction (docs/physics.md, "Friction direction").
       false: the slip at the substep's start, the rule before the contact audit, under which ODE's second
       friction row holds sideways slip up to mu N (pushes and strokes bend toward the first
       row's direction); kept for domains calibrated on it (pool). */
    bool friction_cone;
    int nmaterials;
    const tpMaterialDef *materials; /* at least one */
    int ncontacts;
    const tpContactDef *contacts;
    int nbodies;
    const tpBodyDef *bodies;
    int njoints; /* 0..TP_MAX_JOINTS; created after the bodies, in this order */
    const tpJointDef *joints;
} tpSceneDef;

#define TP_MAX_JOINTS 100000 /* joints in one scene */

/// Defaults (see field comments). materials/bodies are NULL: the caller fills them.
tpSceneDef tpDefaultSceneDef(void);
/// A passive unit box, identity orientation, white, material 0.
tpBodyDef tpDefaultBodyDef(void);
/// friction 0.5, restitution 0, rolling friction 0, bounce velocity 0.01.
tpMaterialDef tpDefaultMaterialDef(void);

/// State of one moving body. Plain value type; 13 doubles, the order used in recordings.
typedef struct tpBodyState {
    double pos[3];    /* m, world frame */
    double quat[4];   /* w,x,y,z */
    double vel[3];    /* m/s */
    double angvel[3]; /* rad/s, world frame */
} tpBodyState;

/// A contact pair touched during the last step (between body indices a < b; -1 never appears).
/// With substeps, the pairs that touched in any substep, each once (point of its first substep).
typedef struct tpContactInfo {
    int a, b;         /* body indices, a < b */
    double pos[3];    /* first contact point (m) */
    double depth;     /* penetration at that point (m) */
    double max_depth; /* deepest penetration of the pair over its contact points and substeps (m) */
} tpContactInfo;

typedef struct tpWorld tpWorld;

/// Builds the ODE world. Returns NULL and writes a message naming the body and field to err on
/// an invalid definition (non-positive mass or dt, bad size, duplicate name, bad material index...).
tpWorld *tpCreateWorld(const tpSceneDef *def, char *err, size_t errlen);
/// Destroys the world. NULL is allowed.
void tpDestroyWorld(tpWorld *world);

/// Number of bodies (all classes), in definition order.
int tpWorld_BodyCount(const tpWorld *world);
/// The (copied) definition of body i, 0 <= i < tpWorld_BodyCount (TP_ASSERT; Release: NULL).
const tpBodyDef *tpWorld_Body(const tpWorld *world, int i);
/// Body index by name, -1 if none.
int tpWorld_FindBody(const tpWorld *world, const char *name);
/// The inertia tensor (kg·m², row-major 3 x 3, in the body frame about its centre of mass) the
/// physics gives body i: from its shape and mass, for a mesh by volume integration scaled to its
/// mass. False (zeros) for a body without dynamics (static, kinematic).
bool tpWorld_BodyInertia(const tpWorld *world, int i, double inertia[9]);
/// Number of joints, in definition order.
int tpWorld_JointCount(const tpWorld *world);
/// The (copied) definition of joint j, 0 <= j < tpWorld_JointCount (TP_ASSERT; Release: NULL);
/// its axes are unit length and its distance length resolved (>= 0).
const tpJointDef *tpWorld_Joint(const tpWorld *world, int j);
/// Joint index by name, -1 if none (or name empty).
int tpWorld_FindJoint(const tpWorld *world, const char *name);
/// The angle (rad) or position (m) of joint j's axis k (0, 1) and its rate (rad/s, m/s) in the live
/// world (as the last step or restore left it): ODE's own reading. Distance: the anchors' distance
/// (axis 0). False (zeros) for an axis the kind does not have.
bool tpWorld_JointPosition(const tpWorld *world, int j, int k, double *pos, double *rate);
/// The angle (rad) or position (m) of joint j's axis k in the stored states x at time t (a pure
/// function of the states, for a servo target: tp.skill.motor { angle }): hinge, slider, hinge2's
/// steering (k = 0) only, equal to tpWorld_JointPosition after a restore of x (to rounding; tested).
/// False (*pos = 0) for another kind or axis. x: tpWorld_StateCount entries.
bool tpWorld_JointPositionAt(const tpWorld *world, const tpBodyState *x, double t, int j, int k, double *pos);
/// A position servo on motor slot m (tp.skill.motor { angle }): the target speed (rad/s or m/s)
/// gain * (target - position at x), clamped to +-tpWorld_MotorMaxSpeed. `target` in rad or m,
/// `gain` in 1/s (> 0). 0 when the slot's axis has no position (tpWorld_JointPositionAt).
double tpWorld_ServoSpeed(const tpWorld *world, const tpBodyState *x, double t, int m, double target, double gain);
/// The (copied) scene definition; its arrays point into the world's copies.
const tpSceneDef *tpWorld_Def(const tpWorld *world);

/// Contact parameters of a pair of bodies' materials, exactly as the physics applies them
/// (the mixing rule of tpMaterialDef, or the pair's tpContactDef).
typedef struct tpPairSurface {
    double friction;         /* Coulomb μ */
    double restitution;      /* bounce coefficient */
    double rolling_friction; /* rho (m): rolling resistance torque = rho * normal force */
    double bounce_velocity;  /* m/s */
} tpPairSurface;

/// The surface parameters used when bodies a and b touch (valid body indices: TP_ASSERT).
tpPairSurface tpWorld_PairSurface(const tpWorld *world, int a, int b);

/// The static body an upright dynamic box rests on at its initial pose (its bottom within 1 cm
/// of a horizontal plane or the top of an unrotated static box), and in *force the Coulomb
/// friction force (N) holding it there: mu of the pair x mass x |g|. -1 (force 0) for other
/// shapes, tilted bodies, gravity not along -z, or no support. Used to warn of a controlled body
/// whose max_force cannot make it slide. `body` must be a valid index (TP_ASSERT).
int tpWorld_RestingFriction(const tpWorld *world, int body, double *force);

/// Number of state slots: bodies whose state is stored in x (passive, active and
/// tactic-driven foreign bodies). Static and kinematic bodies are functions of time.
int tpWorld_StateCount(const tpWorld *world);
/// State slot of body i, or -1 if its pose is a function of time.
int tpWorld_StateSlot(const tpWorld *world, int body);
/// Number of controlled bodies (active + tactic-driven foreign); an action has 6 doubles each,
/// then one double per driven motor (tpWorld_MotorCount).
int tpWorld_ControlCount(const tpWorld *world);
/// Number of driven motor axes (tpJointAxisDef.driven), in joint order then axis order: motor slot
/// m's target speed (rad/s or m/s) is action[6 * tpWorld_ControlCount + m].
int tpWorld_MotorCount(const tpWorld *world);
/// Doubles in a full action: 6 * tpWorld_ControlCount + tpWorld_MotorCount.
int tpWorld_ActionCount(const tpWorld *world);
/// Joint index of motor slot m (0 <= m < tpWorld_MotorCount: TP_ASSERT; Release: -1); its axis
/// (0, 1) in *axis (may be NULL).
int tpWorld_MotorJoint(const tpWorld *world, int m, int *axis);
/// Motor slot of joint j's axis k, or -1 when that axis has no driven motor.
int tpWorld_MotorSlot(const tpWorld *world, int j, int k);
/// The largest |target| (rad/s or m/s) motor slot m takes: its max_speed, or the kind's range.
double tpWorld_MotorMaxSpeed(const tpWorld *world, int m);
/// Control slot of body i (its force is action[6*slot..+2], torque action[6*slot+3..+5]), or -1.
int tpWorld_ControlSlot(const tpWorld *world, int body);
/// Body index of control slot k.
int tpWorld_ControlBody(const tpWorld *world, int slot);
/// Body index of state slot k.
int tpWorld_StateBody(const tpWorld *world, int slot);

/// Writes the initial state: StateCount() entries.
void tpWorld_InitialState(const tpWorld *world, tpBodyState *x);
/// Pose and velocity of any body at time t given the stored states x (static: its definition;
/// kinematic: its motion at t; otherwise x[slot]). `body` must be a valid index (TP_ASSERT).
void tpWorld_BodyState(const tpWorld *world, const tpBodyState *x, double t, int body, tpBodyState *out);

/// Clamps an action to the controlled bodies' limits (max_force, max_torque, planar_force) and the
/// driven motors' targets to +-tpWorld_MotorMaxSpeed (a non-finite target is left for Step to refuse).
void tpWorld_ClampAction(const tpWorld *world, double *action);

/// Sim(x, a, Δt): restores x (states at time t), applies action (6 doubles per control slot,
/// world frame, then one target speed per driven motor; clamped first; NULL: zeros), steps once, and writes the new
/// states to xnew (may equal x). Pure: the result depends only on (x, t, action). Returns false when an action
/// component is non-finite or beyond TP_MAX_FORCE (nothing is simulated), or when a state left the ranges of
/// tpWorld_StateInRange during the step (the remaining substeps are skipped), or when a moving body overlapped static
/// geometry deeper than max_static_penetration: xnew is then not a physical state and must be discarded (the planner
/// makes it an invalid node). No body sleeps (every body is simulated every step): tpWorld_StepRest with no rest
/// counters.
bool tpWorld_Step(tpWorld *world, const tpBodyState *x, double t, const double *action, tpBodyState *xnew);
/// Sim with sleeping: rest[k] (one byte per state slot, part of the state like x) counts the
/// steps in a row that body slot k ended at rest, up to tpWorld_RestSteps; a body whose count
/// has reached it, whose velocities are exactly 0 and that gets no action sleeps through the step
/// (xnew = x for it) unless a moving body or a scripted body touches it. rest_new gets the new
/// counts (may equal rest). rest NULL: all counts 0; rest_new NULL: nobody sleeps (as
/// tpWorld_Step). Pure: the result depends only on (x, rest, t, action).
bool tpWorld_StepRest(tpWorld *world, const tpBodyState *x, const uint8_t *rest, double t, const double *action,
                      tpBodyState *xnew, uint8_t *rest_new);
/// Steps at rest after which a body sleeps: ceil(sleep_time / dt), 1..255; 0 when sleep_speed is 0.
int tpWorld_RestSteps(const tpWorld *world);
/// True when s is finite, inside TP_MAX_COORD / TP_MAX_SPEED / TP_MAX_ANGVEL and its quaternion
/// has a length in (0.5, 2).
bool tpWorld_StateInRange(const tpBodyState *s);

/// Why a step failed (tpStepFailure.kind).
typedef enum {
    TP_STEP_OK = 0,             /* the last step succeeded (or none was made) */
    TP_STEP_BAD_ACTION,         /* an action component non-finite or beyond TP_MAX_FORCE: nothing simulated */
    TP_STEP_OUT_OF_RANGE,       /* a body's state left tpWorld_StateInRange */
    TP_STEP_STATIC_PENETRATION, /* a moving body overlapped static geometry deeper than max_static_penetration */
    TP_STEP_BODY_PENETRATION,   /* two moving bodies overlapped deeper than the moving-body limit */
    TP_STEP_MOTION_ERROR,       /* a TP_MOTION_FUNCTION body's function failed (tpWorld_FatalError) */
    TP_STEP_NO_MEMORY,          /* the contacts could not be stored (tpWorld_FatalError): nothing simulated */
} tpStepFailureKind;

/// The quantity a TP_STEP_OUT_OF_RANGE or TP_STEP_BAD_ACTION failure is about.
typedef enum {
    TP_STEP_VALUE_NONE = 0,
    TP_STEP_VALUE_POSITION, /* pos[axis], m; limit TP_MAX_COORD */
    TP_STEP_VALUE_SPEED,    /* vel[axis], m/s; limit TP_MAX_SPEED */
    TP_STEP_VALUE_ANGVEL,   /* angvel[axis], rad/s; limit TP_MAX_ANGVEL */
    TP_STEP_VALUE_QUAT,     /* squared norm of the quaternion (axis -1); allowed in (0.25, 4) */
    TP_STEP_VALUE_FORCE,    /* action force[axis], N; limit TP_MAX_FORCE */
    TP_STEP_VALUE_TORQUE,   /* action torque[axis], N·m; limit TP_MAX_FORCE */
    TP_STEP_VALUE_SWEEP,    /* the speed of a body's fastest point |v| + |w| r (axis -1), m/s, beyond what
                               the substeps and sweep samples follow for its thickness: 1024 times its
                               smallest half extent per step (TP_MAX_SWEEP_THICKNESSES); faster, it could
                               pass a thin wall unseen, so the step is refused instead */
    TP_STEP_VALUE_MOTOR,    /* a driven motor's target speed (tpStepFailure.joint, axis = its axis 0 or 1),
                               rad/s or m/s; limit TP_MAX_ANGVEL or TP_MAX_SPEED */
} tpStepValue;

/// Why the last tpWorld_Step / tpWorld_StepLive returned false: plain data, reset by every step.
typedef struct tpStepFailure {
    tpStepFailureKind kind;
    int a, b;         /* body indices, -1 if unused. Penetration: a is the moving body (for
                         static penetration; the lower index of two moving ones), b the other */
    tpStepValue what; /* OUT_OF_RANGE, BAD_ACTION: the quantity; else TP_STEP_VALUE_NONE */
    int axis;         /* component of `what` (0..2: x, y, z), -1 for a norm */
    double value;     /* the offending value (penetration: depth in m) */
    double limit;     /* the limit it broke (m, m/s, rad/s, N; QUAT: 4, or 0.25 for a short one) */
    int substep;      /* 0-based substep in which it happened; substeps = after the last one (the
                         static check of scenes with scripted bodies); -1 before stepping */
    int substeps;     /* substeps per step of the world */
    double t;         /* s, time at the start of the failed step */
    int joint;        /* BAD_ACTION on a motor target (TP_STEP_VALUE_MOTOR): the joint index, else -1 */
} tpStepFailure;

/// The failure record of the last step (kind TP_STEP_OK after a successful one). Owned by the
/// world, overwritten by the next step.
const tpStepFailure *tpWorld_LastFailure(const tpWorld *world);

/// Whether the states x (StateCount entries) at time t overlap within the scene's penetration
/// limits, as the first collision pass of a step from them sees it (scripted bodies at their
/// poses at t; no step is made, nobody sleeps): false when a moving body overlaps static geometry
/// deeper than max_static_penetration or two moving bodies overlap deeper than
/// max_body_penetration, with *out (may be NULL) as a failed step fills it (kind
/// TP_STEP_STATIC_PENETRATION or TP_STEP_BODY_PENETRATION, the bodies a and b, the depth and the
/// limit; substep -1: before stepping); true with kind TP_STEP_OK. A state refused here fails
/// every step from it. Leaves tpWorld_LastFailure, StaticDepth and BodyDepth as they were; the live
/// world is undefined after (Sim restores anyway; a live world, tpWorld_StepLive, continues from x).
bool tpWorld_CheckOverlap(tpWorld *world, const tpBodyState *x, double t, tpStepFailure *out);

/// The world's first fatal error since it was created ("" if none), owned by the world: a
/// TP_MOTION_FUNCTION body's function that failed (its message with the body and the time
/// appended: the body is then at its initial pose wherever it is evaluated), or the physics out of
/// memory for its contacts ("physics: out of memory for contact joints"). After either every
/// tpWorld_Step returns false: callers that can report errors check this after a failed step (or
/// after evaluating body states).
const char *tpWorld_FatalError(const tpWorld *world);

/// Deepest overlap (m) of a moving body with static geometry seen by the last tpWorld_Step (its
/// substeps' contacts, and after the step in scenes with scripted bodies).
double tpWorld_StaticDepth(const tpWorld *world);
/// Deepest overlap (m) between two moving bodies seen by the last tpWorld_Step's contacts.
double tpWorld_BodyDepth(const tpWorld *world);
#define TP_SUPPORT_GAP 0.005 /* m: how far below a body tpWorld_Supported looks for a support */
/// Whether body `body` rests on something at state x, time t (scripted bodies at their poses at
/// t), without stepping: moved TP_SUPPORT_GAP along gravity (not moved without gravity) it touches
/// another body. False for a body that stopped in the air (the apex of a throw). Leaves the last
/// step's record as it was; the next tpWorld_Step restores its own state, as always.
bool tpWorld_Supported(tpWorld *world, const tpBodyState *x, double t, int body);

/// Solver statistics since the world was created (not part of any state; for reports).
typedef struct tpPhysicsStats {
    int64_t lcp_nudges;    /* substeps whose Dantzig LCP solve (solver "step") gave up on a degenerate
                              pivot and were solved again with the degeneracy broken */
    int64_t lcp_fallbacks; /* ... of which that failed too and the iterative solver solved them */
    int64_t speculative;   /* speculative contacts made for fast bodies */
    int64_t discovered;    /* contacts added when a solve drove a pair into an unforeseen overlap
                              (the substep is then solved again) */
    int64_t slept;         /* body steps not simulated because the body slept (tpWorld_StepRest) */
    int64_t woken;         /* sleeping bodies woken by a touch within a step */
    int64_t poisson;       /* substeps of an impact chain solved with Poisson's restitution (twice) */
    int64_t stiff;         /* solver "quickstep": substeps whose islands of unequal masses (a heavy body
                              on a light one) the Dantzig LCP solved while quickstep solved the rest */
    int64_t tall;          /* solver "quickstep": substeps whose sweeps were raised for a stack of 4 or more
                              layers too large for the Dantzig LCP (quickstep_iters per layer) */
} tpPhysicsStats;
tpPhysicsStats tpWorld_Stats(const tpWorld *world);

/// Contacts generated by the last tpWorld_Step (one entry per touching body pair, sorted).
int tpWorld_ContactCount(const tpWorld *world);
const tpContactInfo *tpWorld_Contacts(const tpWorld *world);

/// Snapshot of the whole simulation state (time + all stored body states): size in bytes.
size_t tpWorld_SnapshotSize(const tpWorld *world);
/// Writes the live ODE world's state (as left by the last step or restore) into buf.
void tpWorld_Snapshot(const tpWorld *world, void *buf);
/// Restores the live ODE world from a snapshot. Legal only between steps.
void tpWorld_Restore(tpWorld *world, const void *buf);
/// Time of the live world (s).
double tpWorld_Time(const tpWorld *world);

#ifdef __cplusplus
}
#endif
#endif
