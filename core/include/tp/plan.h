/* tplan core: plan recordings (the JSON plan file) and search-tree files.
 * Output is data: the viewer, exporters, replay and tests read only these files.
 * Formats are documented in docs/plan-format.md and docs/tree-format.md. */
#ifndef TP_PLAN_H
#define TP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tp/planner.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_PLAN_FORMAT "tplan-plan"
#define TP_PLAN_VERSION 1       /* a plan from the domain's initial state (every plan before the embedding audit) */
#define TP_PLAN_VERSION_START 2 /* a plan from a given start state: version 1 and the member "start" */
#define TP_PLAN_VERSION_MOTORS                                                                                         \
    3 /* a plan with driven motors: the member "motors" and each                                                       \
         alternative's "motor_targets"; "start" optional */
#define TP_PLAN_VERSION_PARTS                                                                                          \
    4                                      /* a plan with a compound body: its member "compound" (origin and parts);   \
                                              "start" and "motors" optional, otherwise as version 3 */
#define TP_PLAN_MAX_PARTS 64               /* parts of one compound body (TP_MAX_PARTS) */
#define TP_PLAN_MAX_MOTORS 4096            /* driven motor axes a plan records */
#define TP_PLAN_MAX_MOTOR_SPEED 1e5        /* rad/s or m/s: the largest |target| (TP_MAX_ANGVEL, TP_MAX_SPEED) */
#define TP_PLAN_MAX_START_TIME 1e9         /* s: the latest start time a plan records */
#define TP_PLAN_START_QUAT_TOL 1e-6        /* a start state's quaternions have a norm within 1 +- this */
#define TP_STATE_DOUBLES 13                /* pos[3] m, quat[4] (w,x,y,z), vel[3] m/s, angvel[3] rad/s (world frame) */
#define TP_CONTROL_DOUBLES 6               /* force[3] N, torque[3] N·m (world frame) */
#define TP_PLAN_MAX_REPORTS 8              /* named figures in stats.report */
#define TP_PLAN_MAX_WARNINGS 64            /* strings in stats.warnings */
#define TP_PLAN_MAX_WARNING_BYTES 4096     /* bytes of one of them */
#define TP_PLAN_MAX_MESH_VERTICES 1000000  /* a mesh body's recorded vertices (tp/mesh.h's cap) */
#define TP_PLAN_MAX_MESH_TRIANGLES 2000000 /* ... and triangles */
#define TP_PLAN_MAX_SOURCES 1024           /* files in "sources" (the script and what it read) */
#define TP_PLAN_MAX_SOURCE_PATH 1024       /* bytes of one source's path */

/// One part of a compound body in a recording (tpPlanBody.parts).
typedef struct tpPlanPart {
    char shape[12];     /* "box", "sphere", "cylinder", "capsule" or "mesh" */
    double size[3];     /* as tpPlanBody.size for the shape (m); mesh: 0 */
    double pos[3];      /* m: the part frame's origin in the body frame */
    double quat[4];     /* w,x,y,z: the part frame in the body frame (unit) */
    int nvertices;      /* mesh: 4..TP_PLAN_MAX_MESH_VERTICES, else 0 */
    double *vertices;   /* nvertices x 3 (m, part frame); owned by the record */
    int ntriangles;     /* mesh: >= 1, else 0 */
    int32_t *triangles; /* ntriangles x 3 vertex indices */
} tpPlanPart;

/// Static description of one body in a recording.
typedef struct tpPlanBody {
    char *name;                    /* unique body name */
    char *cls;                     /* "static", "passive", "active" or "foreign" */
    char *shape;                   /* "box", "sphere", "cylinder", "capsule", "plane", "mesh" or "compound" */
    double size[4];                /* box: full extents x,y,z (m); sphere: radius; cylinder/capsule: radius,
                                      length (m, along local z); plane: normal a,b,c and offset d (ax+by+cz=d) */
    float color[4];                /* RGBA in [0,1] */
    bool moving;                   /* has a trajectory (passive, active, foreign); false: `pose` only */
    bool controlled;               /* has per-step controls (active, and tactic-driven foreign bodies) */
    double pose[TP_STATE_DOUBLES]; /* pose of a non-moving body (velocities zero) */
    /* shape "mesh" only, optional (0 vertices: none recorded): the body's triangles in its frame
       (m; a moving body's frame is centred on its centre of mass) and where the origin of the
       artist's object (the mesh file's, the glTF node's) is in that frame, so exporters can write
       the original object back. Owned by the record. */
    int mesh_nvertices;      /* <= TP_PLAN_MAX_MESH_VERTICES */
    double *mesh_vertices;   /* mesh_nvertices x 3 */
    int mesh_ntriangles;     /* <= TP_PLAN_MAX_MESH_TRIANGLES */
    int32_t *mesh_triangles; /* mesh_ntriangles x 3 indices into the vertices, counter-clockwise from outside */
    double mesh_origin[3];   /* m, body frame (a compound's too: where its artist's origin is) */
    /* shape "compound" only (version TP_PLAN_VERSION_PARTS): its parts, in the body frame (a moving
       body's frame is its centre of mass); size[] is the box about the origin that holds them */
    int nparts;        /* 1..TP_PLAN_MAX_PARTS, 0 for other shapes */
    tpPlanPart *parts; /* nparts; owned by the record */
} tpPlanBody;

/// One solution ("world"): trajectories, controls and active skills over nsteps steps.
typedef struct tpPlanWorld {
    double cost;       /* solution metric (lower is better) */
    int nsteps;        /* number of Δt steps; states are nsteps+1 (initial state first) */
    double **traj;     /* per body: (nsteps+1) × 13 doubles, NULL for non-moving bodies */
    double **controls; /* per body: nsteps × 6 doubles, NULL for uncontrolled bodies; row i is
                          the control applied from state i to state i+1 */
    int32_t **active;  /* per tactic: nsteps skill indices (skill applied at step i) */
    double *targets;   /* nsteps x tpPlanRecord.nmotors driven motors' target speeds (rad/s or m/s;
                          row i: the targets from state i to i+1, in the record's motor order); NULL
                          when the record has no driven motors */
    uint8_t *rest;     /* in memory only, never written: (nsteps+1) x nbodies rest counts of the
                          bodies (tpWorld_StepRest) as the planner had them (tpDomain_Record); NULL
                          when read from a file (a replay gives them) */
    uint8_t *tactics;  /* in memory only, never written: (nsteps+1) x tpPlanRecord.tactic_bytes bytes,
                          the tactics' part of each state (σ, busy, started, skill variables: the
                          domain's tpTacticState layout) as the planner had it (tpDomain_Record);
                          NULL when read from a file */
    int ntchanges;     /* changes of the temporal conditions' memory along this world (member
                          "temporal".changes; 0 without temporal conditions) */
    int32_t *tchanges; /* ntchanges x (step, condition, value): after step `step` (1..nsteps) the
                          memory of tpPlanRecord.temporal[condition] became value; by step, then
                          condition, each a change of the value before. Step 0 (member "temporal"
                          version 2): the memory the plan started from (a start state's, issue
                          37), changes from 0. Heap-owned */
} tpPlanWorld;

/// One tactic in a recording.
typedef struct tpPlanTactic {
    char *name; /* tactic name */
    char *body; /* name of the body it controls */
    int nskills;
    char **skills; /* skill names, indexed by tpPlanWorld.active values */
} tpPlanTactic;

/// One driven motor axis in a recording (member "motors"): its joint and axis. Heap-owned.
typedef struct tpPlanMotor {
    char *joint; /* the joint's name (a driven motor's joint is named) */
    int axis;    /* 0 or 1 (written 1 or 2, as scripts number them) */
} tpPlanMotor;

/// Kinds of navigation overlay layers (see docs/plan-format.md, "overlays").
typedef enum {
    TP_OVERLAY_GRID = 0, /* occupancy grid: free / obstacle / grown cells */
    TP_OVERLAY_FIELD,    /* harmonic potential map: log10 of the closeness u = 1 - phi per cell */
    TP_OVERLAY_PATH,     /* planned polyline */
    TP_OVERLAY_WINDOW,   /* an agent's local potential map (n x n cells), quantized */
    TP_OVERLAY_TREE,     /* a vehicle's clip search tree of one decision */
    TP_OVERLAY_KIND_COUNT
} tpOverlayKind;

#define TP_OVERLAY_NONE 255 /* WINDOW level: no value (a fixed obstacle or border cell, u = 0) */

/// One overlay layer of the selected solution: what a navigation skill computed, recorded so that
/// the viewer can draw it without recomputing anything. Arrays are heap-owned by the record.
typedef struct tpPlanOverlay {
    tpOverlayKind kind;
    int tactic;      /* owner: index into tpPlanRecord.tactics */
    int first, last; /* steps of the selected solution it belongs to, inclusive */
    /* GRID, FIELD, WINDOW: cell (i, j) covers [x0 + i cell, x0 + (i+1) cell) x [y0 + j cell, ...);
       arrays are row-major with index j * nx + i */
    double origin[2]; /* m: x0, y0 */
    double cell;      /* m */
    int nx, ny;
    uint8_t *cells;  /* GRID: nx*ny flags 0 free, 1 obstacle, 2 grown */
    double *values;  /* FIELD: nx*ny log10(u) (m: none), NAN where u = 0 (blocked, unreachable) */
    uint8_t *levels; /* WINDOW: nx*ny levels 0..254 of log10(u) linear in [vmin, 0], or TP_OVERLAY_NONE */
    double vmin;     /* WINDOW: log10(u) of level 0 (< 0) */
    int npoints;     /* PATH: polyline vertices; TREE: nodes (node 0 is the root) */
    double *points;  /* PATH, TREE: npoints x (x, y), m */
    int32_t *parent; /* TREE: per node its parent node (< its own index), -1 for the root */
    uint8_t *chosen; /* TREE: per node 1 if it is on the chosen clip sequence */
} tpPlanOverlay;

/// A file the domain script read, embedded in the plan (member "sources"): `tplan replay` loads the
/// script from these, so that the plan replays wherever it and the domain are. Heap-owned.
typedef struct tpPlanSource {
    char *path;          /* relative to the script's folder, '/' between names, no "." or ".."
                            ("maze.lua", "lib/walls.lua", "tracks/final.json") */
    char *hash;          /* "fnv1a64:<16 hex digits>" of the bytes */
    unsigned char *data; /* len bytes, followed by a NUL that len does not count */
    size_t len;
} tpPlanSource;

/// True when path can name a source: relative, '/' between non-empty names, none "." or "..", no
/// control characters or backslashes, 1..TP_PLAN_MAX_SOURCE_PATH bytes.
bool tpPlan_IsSourcePath(const char *path);
/// Writes "fnv1a64:<16 hex digits>" of data[0..len) (the plan's hash strings) into out.
void tpPlan_HashString(const void *data, size_t len, char out[32]);

/// A domain's default camera (optional member "view" of a plan file): an orbit camera in the
/// terms of the viewer's --camera YAW,PITCH,DIST[,TX,TY,TZ]. Plain value type.
typedef struct tpPlanView {
    bool set;         /* false: none recorded (viewers fit their camera to the scene) */
    double yaw;       /* degrees, azimuth of the eye around the target (0: eye on the +x side) */
    double pitch;     /* degrees, elevation of the eye above the target, in [-89.9, 89.9] */
    double distance;  /* m, eye to target, > 0; 0: the viewer fits it (the scene in view from yaw, pitch) */
    bool has_target;  /* false: the target is the centre of the fitted scene */
    double target[3]; /* m, the point looked at */
} tpPlanView;

/// True when v is a usable view: finite, distance >= 0, |pitch| <= 89.9 degrees.
bool tpPlanView_Valid(const tpPlanView *v);

#define TP_PLAN_MAX_GOAL_REGIONS 4096 /* regions in "goal" (a 400-dice arrangement: 400) */
#define TP_PLAN_MAX_GOAL_RADIUS 1e7   /* m: the largest goal disc or ball radius a plan records */

/// Kinds of goal regions (member "goal" of a plan file, docs/plan-format.md).
typedef enum {
    TP_GOAL_CIRCLE = 0, /* the body's centre within `radius` of center x, y (any height): tp.within with 2 numbers */
    TP_GOAL_SPHERE,     /* the body's centre within `radius` of center x, y, z: tp.within with 3 numbers */
    TP_GOAL_BOX,        /* lo <= the body's centre <= hi on every axis: tp.inside */
    TP_GOAL_KIND_COUNT
} tpGoalRegionKind;

/// One spatial leaf of the domain's goal condition, recorded so that viewers can draw where the
/// goal is (they never load the script). Plain value type.
typedef struct tpPlanGoalRegion {
    tpGoalRegionKind kind;
    int body;            /* index into tpPlanRecord.bodies: the body whose centre must be in the region */
    double center[3];    /* m, world frame: CIRCLE x, y (center[2] unused, 0); SPHERE x, y, z; within +-TP_MAX_COORD */
    double radius;       /* m, CIRCLE and SPHERE, in (0, TP_PLAN_MAX_GOAL_RADIUS] */
    double lo[3], hi[3]; /* m, BOX: per axis, -INFINITY / INFINITY where the region is unbounded on that
                            side (written null); finite bounds within +-TP_MAX_COORD, lo <= hi, at
                            least one finite */
} tpPlanGoalRegion;

/// Names of the goal region kinds ("circle", "sphere", "box"), NULL if out of range.
const char *tpGoalRegionKind_Name(tpGoalRegionKind kind);
/// Empty when region g fits a record of nbodies bodies (the ranges above), else the reason
/// ("radius: 0 is not in (0, 1e+07] m") in why (cap bytes). Returns true when it fits.
bool tpPlanGoalRegion_Valid(const tpPlanGoalRegion *g, int nbodies, char *why, size_t cap);

#define TP_PLAN_MAX_JOINTS 4096 /* joints in "joints" (TP_MAX_JOINTS) */
#define TP_PLAN_JOINT_KINDS 7   /* tpPlan_JointKindName: "hinge" .. "distance" */
#define TP_PLAN_JOINT_NAME 64   /* bytes of a joint name with its NUL (TP_NAME_MAX) */

/// One joint of the domain (optional member "joints", any version: drawing only, replay does not
/// read it), recorded so that viewers can draw where each joint is and its axes (they never load
/// the script). Anchors and axes are in the frame of the body that holds them, so that a viewer
/// places them with that body's pose at any step. Plain value type but `name` (heap-owned).
typedef struct tpPlanJoint {
    char *name;        /* the joint's name, "" when the script gave none; heap-owned */
    int kind;          /* 0 .. TP_PLAN_JOINT_KINDS - 1 (tpPlan_JointKindName: physics' tpJointKind order) */
    int body_a;        /* index into tpPlanRecord.bodies: the first body (it moves) */
    int body_b;        /* index into tpPlanRecord.bodies, or -1: the world */
    double anchor[3];  /* m, body_a's frame: the pivot (a distance joint: its point on a) */
    double axis[3];    /* body_a's frame: axis 1, unit (hinge, slider, universal, hinge2 steering), else 0 */
    double anchor2[3]; /* m, body_b's frame (the world's when body_b = -1): the pivot as b holds it (a
                          distance joint: its point on b); within +-TP_MAX_COORD */
    double axis2[3];   /* body_b's frame (world): axis 2, unit (universal, hinge2 spin), else 0 */
} tpPlanJoint;

/// The kind names of "joints" ("hinge", "slider", "ball", "fixed", "universal", "hinge2",
/// "distance"), NULL if out of range.
const char *tpPlan_JointKindName(int kind);
/// True when joint j fits a record of nbodies bodies (the ranges above), else false with the reason
/// ("axis: not a unit vector (length 0.5)") in why (cap bytes).
bool tpPlanJoint_Valid(const tpPlanJoint *j, int nbodies, char *why, size_t cap);

#define TP_PLAN_TEMPORAL_VERSION                                                                                       \
    2                                     /* the version of the member "temporal" (its own, not the file's): 2 when a  \
                                             world starts from a memory not all 0 (changes at step 0), else 1 */
#define TP_PLAN_MAX_TEMPORAL 4096         /* temporal conditions a plan records (TP_COND_MAX_MEMORY) */
#define TP_PLAN_MAX_TEMPORAL_SIZE 1000000 /* the largest memory value (a sequence's length) */

/// One temporal condition of the domain's goal or valid condition (member "temporal": tp.sequence,
/// tp.ever, tp.never, tp.within_time, tp.at_time), in its memory slot's order. Heap-owned.
typedef struct tpPlanTemporal {
    char *name; /* how the script wrote it: "tp.sequence (pool.lua:310)" */
    char *kind; /* "sequence", "ever", "never", "within_time" or "at_time" */
    int size;   /* the largest memory value: a sequence's number of conditions (its progress runs
                   0..size), 1 for ever, never and within_time (a flag), 2 for at_time (1 held, 2 not) */
} tpPlanTemporal;

/// A whole plan recording. All strings and arrays are heap-owned by the record
/// (free with tpPlanRecord_Free).
typedef struct tpPlanRecord {
    char *domain_name;     /* e.g. "minigolf" */
    char *domain_file;     /* the script's file name in its folder ("maze.lua"; older files: the
                              path as given on the command line) */
    char *domain_hash;     /* "fnv1a64:<16 hex digits>" of the script bytes */
    char *tplan_version;   /* the version of tplan that wrote the file ("0.1.0"; member "tplan"); NULL
                              in files older than it. The writer always writes its own version */
    int nsources;          /* files embedded (optional member "sources"; 0 in older files) */
    tpPlanSource *sources; /* the script (sources[0], path = domain_file), then the modules, tracks
                              and images it read, in the order first read */
    uint32_t seed;
    char *planner; /* "rrt" or "bgt" */
    double mu;     /* BGT ratio */
    int64_t max_iters;
    double time_limit;       /* s, 0 = none */
    int solutions_requested; /* K */
    char *status;            /* "solved" or "approximate" */
    double dt;               /* s */
    /* The penetration limits the planner held every state to (optional member "limits"; both -1
     * in files written before it existed): m, 0 = not checked. `tplan replay --check` checks
     * against these. */
    double max_static_penetration, max_body_penetration;
    /* The start state (member "start", version TP_PLAN_VERSION_START): the first row of every
     * trajectory is the state the plan was made from, at start_time, with these rest counts
     * (tpWorld_StepRest). Without it (version 1) the plan starts from the domain's initial state
     * at 0 with every count 0. */
    bool has_start;
    double start_time;              /* s, in [0, TP_PLAN_MAX_START_TIME]; 0 without a start */
    uint8_t *start_rest;            /* nbodies counts (0 for bodies without a stored state); NULL without a start */
    char *overrides;                /* JSON object text of --set overrides, or NULL */
    tpPlanView view;                /* the domain's default camera (optional member "view") */
    int ngoal_regions;              /* spatial leaves of the goal (optional member "goal"; 0: none, or an
                                       older file) */
    tpPlanGoalRegion *goal_regions; /* ngoal_regions regions, heap-owned, in the goal tree's order */
    int njoints;                    /* the domain's joints (optional member "joints"; 0: none, or an older file) */
    tpPlanJoint *joints;            /* njoints, heap-owned, in the domain's joint order */

    size_t tactic_bytes; /* in memory only: bytes of one step's tpPlanWorld.tactics (0: none) */
    int nbodies;
    tpPlanBody *bodies;
    int ntactics;
    tpPlanTactic *tactics;
    int nmotors;         /* driven motor axes (version TP_PLAN_VERSION_MOTORS; 0 in older files) */
    tpPlanMotor *motors; /* nmotors, in the action's order (tpWorld_MotorJoint) */
    int nworlds;         /* >= 1 */
    tpPlanWorld *worlds;
    int selected; /* index of the chosen world */

    /* statistics (deterministic part) */
    int64_t iterations, nodes, rejected;
    tpRejectStat rejections[TP_REJECT_KINDS]; /* rejected by reason (optional member
                                                 stats.rejections: all zero when absent) */
    int nsolutions;
    int64_t memory_bytes; /* tree memory at the end of the run */
    int nreports;         /* domain reports of the selected plan (stats.report), in domain order */
    char report_names[TP_PLAN_MAX_REPORTS][64];
    double report_values[TP_PLAN_MAX_REPORTS];
    int nwarnings;       /* the domain's warnings (stats.warnings, optional: written only when > 0) */
    char **warnings;     /* nwarnings strings, one line each ("file:line: body 'robot' cannot slide: ...") */
    int64_t nodes_first; /* tree size when the first solution was found; 0 = not recorded
                            (written only when > 0: optional member stats.first_solution_nodes) */
    /* timing (the only non-deterministic part; kept in stats.timing) */
    double t_select, t_tactics, t_physics, t_check, t_total;
    double t_first; /* s to the first solution (stats.timing.first_solution, written with
                       nodes_first) */
    /* the temporal conditions (optional member "temporal"; 0 / NULL without them, and in older
       files); each world's memory changes are in tpPlanWorld.tchanges */
    int ntemporal;
    tpPlanTemporal *temporal;
    char *goal_unmet; /* the goal's false sub-condition at the selected world's end when the run is
                         approximate ("tp.sequence (pool.lua:310) was false: step 2 of 3 (...) not
                         reached at t = 1.2 s"), else NULL; written in "temporal" when there is one */
    /* navigation overlays of the selected solution (optional member "overlays"; 0 / NULL if none) */
    int noverlays;
    tpPlanOverlay *overlays;
} tpPlanRecord;

/// The control a solution used (passive direction shows as almost none): what the
/// controls of its controlled bodies add up to over its steps. Plain value type.
typedef struct tpPlanControl {
    double impulse;         /* N s: sum over steps of |force| dt */
    double angular_impulse; /* N m s: sum over steps of |torque| dt */
    double work;            /* J: sum over steps of (force . v + torque . w) dt, v and w the step's mean
                               velocities (its two states, trapezoid) */
    double time;            /* s: dt times the steps in which any force or torque acted (a total: steps
                               in which any body was acted on) */
    int steps;              /* the number of those steps */
} tpPlanControl;

/// The control report of world w of rec: per_body[i] for each body (zeros for uncontrolled ones;
/// NULL: not wanted) and the total over the controlled bodies (NULL: not wanted). A pure function
/// of the controls and trajectories, so a reader recomputes what the writer wrote.
void tpPlanWorld_Control(const tpPlanRecord *rec, const tpPlanWorld *w, tpPlanControl *per_body, tpPlanControl *total);

/// Allocates the per-world arrays of w for a record's bodies/tactics (zero-filled).
/// Returns false on allocation failure.
bool tpPlanWorld_Alloc(tpPlanWorld *w, const tpPlanRecord *rec, int nsteps);

/// Frees the arrays of one world allocated for nbodies bodies and ntactics tactics, zeroes it.
void tpPlanWorld_FreeArrays(tpPlanWorld *w, int nbodies, int ntactics);

/// Frees everything the record owns and zeroes it. NULL is allowed.
void tpPlanRecord_Free(tpPlanRecord *rec);

/// True when body b of rec is drawn as a die (pips on its faces): the plan's domain is
/// "dice" (domains/dice.lua) and b is a moving box with three equal sides. Read from members every
/// plan already has, so the dice plans keep their bytes. rec and b must not be NULL.
bool tpPlanBody_IsDie(const tpPlanRecord *rec, const tpPlanBody *b);

/// The number a die shows on face `face` (0..5 = its local +x, -x, +y, -y, +z, -z), the pips'
/// centres on that face in out[0..n) as (u, v) in units of the half side (each in [-1, 1]) and, in
/// *radius, the pips' radius in the same unit. Six is on local +z, the face up when the die is
/// upright (tp.upright's default axis): one on -z, two on +y, three on +x, four on -x, five on -y
/// (opposite faces add up to seven; one, two, three counter-clockwise about their corner, as on a
/// western die). u and v are the face's own axes: (y, z) for the x faces, (z, x) for the y faces,
/// (x, y) for the z faces, so that (u, v, normal) is right-handed on the + faces. Returns n (1..6).
int tpDie_Face(int face, double out[6][2], double *radius);

/// The memory of rec's temporal conditions after step `step` of world w (0: the start, every value
/// 0 but a start state's), from the world's recorded changes: rec->ntemporal values into mem (caller's). Steps past the
/// world's end give its last values.
void tpPlanRecord_TemporalAt(const tpPlanRecord *rec, int w, int step, int32_t *mem);
/// What temporal condition k remembers after step `step` of world w, in words, into out (cap bytes):
/// "tp.sequence (kick.lua:3): 2 of 3", "... held", "... not yet", "... holds" / "... broken" (never),
/// "... pending" / "... held" / "... failed" (at_time), as the web page's player shows it.
void tpPlanRecord_TemporalText(const tpPlanRecord *rec, int w, int step, int k, char *out, size_t cap);

/// Writes v (finite) into buf (at least 40 bytes) as plan files write numbers: the shortest of
/// %.15g and %.17g that reads back to the same bits, "0" and "-0" for zeros, '.' for the point
/// whatever the locale. Returns the length.
int tpPlan_FormatDouble(double v, char *buf);

/// Writes the record as JSON (format version TP_PLAN_VERSION, TP_PLAN_VERSION_START for a
/// record with a start state, TP_PLAN_VERSION_MOTORS for one with driven motors). Doubles are printed so that
/// they parse back to the identical bits. Output is byte-identical for identical records,
/// apart from stats.timing. Returns false and fills err on I/O failure.
bool tpPlanRecord_Write(const tpPlanRecord *rec, const char *path, char *err, size_t errlen);
/// The same bytes into a new NUL-terminated buffer (*out, malloc'd: the caller frees it; *len
/// bytes without the NUL). False with a message in err (invalid record, out of memory).
bool tpPlanRecord_WriteMem(const tpPlanRecord *rec, char **out, size_t *len, char *err, size_t errlen);

/// Reads and validates a plan file. On any problem (missing file, bad JSON, wrong format or
/// version, missing/ill-typed field, inconsistent array lengths) returns false with a message
/// naming the file and the field, e.g. "plan.json: bodies[1].trajectory[4]: expected 13 numbers".
bool tpPlanRecord_Read(tpPlanRecord *rec, const char *path, char *err, size_t errlen);
/// Same as tpPlanRecord_Read, from the len bytes at text (need not be NUL-terminated, not kept);
/// name (not NULL) stands for the file in messages. Reading a file refuses a non-regular file or
/// one larger than TP_MAX_PLAN_BYTES; both refuse values outside the physical ranges of tp/base.h
/// and "\u0000" in strings.
bool tpPlanRecord_Parse(tpPlanRecord *rec, const char *text, size_t len, const char *name, char *err, size_t errlen);

/// Frees the arrays of one overlay and zeroes it. NULL is allowed.
void tpPlanOverlay_Free(tpPlanOverlay *ov);
/// Name of an overlay kind ("grid", "field", "path", "window", "tree"), NULL if out of range.
const char *tpOverlayKind_Name(tpOverlayKind kind);

/// Collects overlays while a plan is recorded: the recorder replays the selected solution and the
/// navigation skills emit what they computed (tpSkillCall.overlay). Items are appended in emission
/// order, which is deterministic. Zero-initialise; free with tpOverlaySink_Free unless the items
/// were moved into a record with tpOverlaySink_Take.
typedef struct tpOverlaySink {
    int tactic;           /* owner of the items emitted next (set by the recorder) */
    int step;             /* step being replayed (set by the recorder) */
    int window_every;     /* WINDOW items are kept every this many steps of a segment (>= 1) */
    int seg_start;        /* step at which the owner's current skill segment started */
    int n;                /* items held */
    size_t cap;           /* items allocated */
    tpPlanOverlay *items; /* n items (owned; room for cap); first = step; last = -1 while open */
    bool failed;          /* an allocation failed (the sink then drops what it is given) */
} tpOverlaySink;

/// Adds an item (ownership of its arrays passes to the sink, which frees them on failure). The
/// item belongs to the sink's tactic from its step on; an open item of the same tactic and kind is
/// closed at the step before. An item equal in content to the latest item of the same tactic and
/// kind, when that one is open or ended at the step before, extends it instead (one grid for many
/// consecutive segments).
void tpOverlaySink_Add(tpOverlaySink *sink, tpPlanOverlay *item);
/// Closes every open item of `tactic` (-1: every tactic) at step `last`.
void tpOverlaySink_Close(tpOverlaySink *sink, int tactic, int last);
/// Moves the items into rec (replacing its overlays). False on a failed allocation earlier.
bool tpOverlaySink_Take(tpOverlaySink *sink, tpPlanRecord *rec);
void tpOverlaySink_Free(tpOverlaySink *sink);

/* ------------------------------------------------------------------------------------------ */
/* Tree files (binary, for the viewer): node parents and the position of every moving body.   */

#define TP_TREE_MAGIC "TPTREE\0\1"
#define TP_TREE_VERSION 1

/// In-memory tree recording. Heap-owned; free with tpTreeRecord_Free.
typedef struct tpTreeRecord {
    int nbodies; /* moving bodies recorded per node */
    char **body_names;
    int64_t nnodes;
    int32_t *parent; /* nnodes entries, -1 for the root */
    uint8_t *flags;  /* nnodes entries: bit0 busy, bit1 goal, bit2 on the selected solution */
    float *pos;      /* nnodes × nbodies × 3, m */
} tpTreeRecord;

/// Writes a tree file (little-endian, documented in docs/tree-format.md).
bool tpTreeRecord_Write(const tpTreeRecord *rec, const char *path, char *err, size_t errlen);
/// Reads and validates a tree file; false with a reason on truncation or bad magic/version.
bool tpTreeRecord_Read(tpTreeRecord *rec, const char *path, char *err, size_t errlen);
/// Frees the arrays of one world allocated for nbodies bodies and ntactics tactics, zeroes it.
void tpPlanWorld_FreeArrays(tpPlanWorld *w, int nbodies, int ntactics);

/// Frees everything the record owns and zeroes it. NULL is allowed.
void tpTreeRecord_Free(tpTreeRecord *rec);

#ifdef __cplusplus
}
#endif
#endif
