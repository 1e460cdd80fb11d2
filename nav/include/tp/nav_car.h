/* tplan navigation: the planar car of Adam (2007) Appendix A, its automatic move trees, the
 * finite-horizon A* over them, and track files. Part of tp_nav: tp/nav.h includes every part. */
#ifndef TP_NAV_CAR_H
#define TP_NAV_CAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp/nav_grid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Vehicles (Adam 2007): the planar car of Appendix A, automatic move trees, finite-horizon A*  */
/*
 * Frame: x forward, y left, heading and yaw rate counter-clockwise, steering positive to the left
 * (the mirror image of the thesis's y-right frame; every formula of Appendix A is odd in the
 * mirrored quantities, so it carries over unchanged).
 */

/// Car constants (Appendix A). Get them from tpDefaultNavCarDef().
typedef struct tpNavCarDef {
    double drag;          /* DRAG 4.0: air drag factor, N per (m/s)^2 */
    double resistance;    /* RESISTANCE 20.0: rolling resistance, N per m/s */
    double ca_r;          /* CAR -4.20: rear cornering stiffness (per rad, of the normalised force) */
    double ca_f;          /* CAF -4.0: front cornering stiffness */
    double max_grip;      /* MAXGRIP 3.0: cap of the normalised lateral force */
    double cg_front;      /* m, CG to front axle (1) */
    double cg_rear;       /* m, CG to rear axle (1) */
    double mass;          /* kg (1500) */
    double inertia;       /* kg m^2 (1500) */
    double gravity;       /* m/s^2 (9.8, as in the thesis) */
    double traction;      /* N per throttle unit (100) */
    double length, width; /* m, collision rectangle (4.0 x 1.8) */
} tpNavCarDef;

tpNavCarDef tpDefaultNavCarDef(void);

/// Planar car state in the world frame.
typedef struct tpNavCarState {
    double x, y, heading; /* m, m, rad */
    double vx, vy, omega; /* m/s (world), rad/s */
} tpNavCarState;

/// Forces of one evaluation.
typedef struct tpNavCarForces {
    double force[2];  /* N, world frame (apply at the CG) */
    double torque;    /* N m about +z */
    double lat_front; /* N, lateral force of the front axle (car frame, + = left) */
    double lat_rear;  /* N, rear axle */
    double sideslip;  /* rad, beta = atan2(v_lat, v_long) */
} tpNavCarForces;

/// Appendix A: forces and torque for a state and controls (steer in rad, throttle and brake in
/// [0, 100]). Pure; usable to drive a physics body.
void tpNavCar_Forces(const tpNavCarDef *car, const tpNavCarState *s, double steer, double throttle, double brake,
                     tpNavCarForces *out);
/// One explicit Euler step (velocity, then position with the new velocity, as in Appendix A).
void tpNavCar_Step(const tpNavCarDef *car, tpNavCarState *s, double steer, double throttle, double brake, double dt);

/// Move-tree construction options. Get defaults from tpDefaultNavMoveTreeDef().
typedef struct tpNavMoveTreeDef {
    int nlevels;       /* speed levels (7: Stop, sm1, sm2, Med, mf1, mf2, Fast) */
    double levels[8];  /* m/s (0, 4, 8, 12, 16, 20, 24) */
    int nsteer;        /* turn sharpnesses per side (3) */
    double steer[4];   /* rad (0.05, 0.15, 0.45); sharp ones survive only at low speed */
    double skid_steer; /* rad, the skid clips' steering, on full brakes (0.5) */
    double clip_time;  /* s per clip (25 frames at 30 Hz = 0.8333) */
    double frame_dt;   /* s between recorded frames (1/30) */
    int substeps;      /* physics steps per frame (4) */
    double match_eps;  /* |dvx| + |dvy| + |domega| below which an end state matches a level (1.0) */
    double skid_slip;  /* rad: a clip whose rear tyre slip angle exceeds this is a skid (0.3; ordinary turns stay below
                          0.25) */
} tpNavMoveTreeDef;

tpNavMoveTreeDef tpDefaultNavMoveTreeDef(void);

#define TP_NAV_CLIP_FRAMES 64

/// One motion clip: the car's pose relative to the clip's start (start at the origin, heading 0)
/// at every frame, simulated from the steady straight state of level `from`.
typedef struct tpNavClip {
    int from, to;                           /* speed levels at the start and (matched) end */
    double steer;                           /* rad, the turn phase's steering (0 = straight) */
    bool skid;                              /* the rear tyres slid: max rear slip angle > skid_slip */
    double rear_slip;                       /* rad, largest |rear slip angle| while faster than 1 m/s */
    double max_slip;                        /* rad, largest |sideslip| while faster than 1 m/s */
    int nframes;                            /* frames after the start (clip_time / frame_dt) */
    double frame[TP_NAV_CLIP_FRAMES][3];    /* x, y (m), heading (rad) relative to the start */
    double frame_cs[TP_NAV_CLIP_FRAMES][2]; /* cos and sin of each frame's relative heading */
    double control[TP_NAV_CLIP_FRAMES][3];  /* steer (rad), throttle, brake at the start of each frame */
    double end_vel[3];                      /* end velocity in the car frame: forward, left (m/s), yaw rate (rad/s) */
    double end_error;                       /* |dvx| + |dvy| + |domega| to level `to`'s steady state */
    double bound[3]; /* x, y, r (m): a circle around every frame's car rectangle (quick rejects) */
} tpNavClip;

typedef struct tpNavMoveTree tpNavMoveTree;

/// Builds the move tree by simulating clips (the thesis's future work 5.1): from every level's
/// steady state, straight / left / right turns of every sharpness toward the same, the next and
/// the previous level (a turn phase, then a yaw-damping straightening phase), and skid clips
/// (sharp steering with the brakes) from Med and faster; a clip is kept only if its end state
/// matches a level's steady state within match_eps. NULL on bad options.
tpNavMoveTree *tpCreateNavMoveTree(const tpNavCarDef *car, const tpNavMoveTreeDef *def, char *err, size_t errlen);
void tpDestroyNavMoveTree(tpNavMoveTree *tree);
int tpNavMoveTree_ClipCount(const tpNavMoveTree *tree);
const tpNavClip *tpNavMoveTree_Clip(const tpNavMoveTree *tree, int k);
/// Clips starting at a level (indices into the tree), and its count.
int tpNavMoveTree_ClipsFrom(const tpNavMoveTree *tree, int level, const int **clips);
const tpNavMoveTreeDef *tpNavMoveTree_Def(const tpNavMoveTree *tree);

/// A car moving at constant velocity (an obstacle), or along a known path (a scripted body whose
/// future poses are known: traffic that follows the road round a corner).
typedef struct tpNavTrafficCar {
    double pos[2], vel[2]; /* m, m/s at time 0 */
    double heading;        /* rad */
    double length, width;  /* m */
    /* Optional known motion (npath 0 = none: constant velocity from pos at vel, heading fixed).
       npath >= 2: the pose at time k * path_dt is path[k] = {x, y, heading} (m, m, rad; heading
       continuous, not wrapped), linearly interpolated between samples; before 0 the first pose,
       after the last it moves on at the last interval's velocity and heading. pos, vel and
       heading are then not used. */
    int npath;
    const double (*path)[3]; /* npath samples; not owned, must outlive the calls using the track */
    double path_dt;          /* s between samples, > 0 */
} tpNavTrafficCar;

/// A track: walls as 2D segments, traffic, a goal point and a finish line.
typedef struct tpNavTrack {
    int nwalls;
    const double (*walls)[4]; /* x0, y0, x1, y1 (m) */
    int ncars;
    const tpNavTrafficCar *cars;
    double goal[2];   /* A* heads here (straight-line distance / top speed) */
    double finish[4]; /* finish line segment; crossing it ends the run */
} tpNavTrack;

typedef struct tpNavToGo tpNavToGo;

/// Distance-to-goal field of a track for the A* heuristic (the thesis's straight-line distance
/// ignores the walls, its weakness 5.4): the walls rasterised on a grid of `cell` m over their
/// bounding box and the goal (plus a margin), 8-connected Dijkstra (diagonal sqrt 2) from the
/// goal cell; h = max(0, cells * cell / 1.0824 - 2 cell) (octile length is at most 1.0824 times
/// the Euclidean one; the 2-cell slack covers walls that block a whole cell). Each wall is drawn
/// as a quad 0.02 cell wide around its segment (and 0.01 cell beyond each end), so it blocks
/// whatever its alignment: a wall on a cell boundary blocks the cells on both sides, one through
/// cell corners blocks the diagonal steps across it. NULL on bad input.
tpNavToGo *tpCreateNavToGo(const tpNavTrack *track, double cell, char *err, size_t errlen);
void tpDestroyNavToGo(tpNavToGo *togo);
/// Distance to go (m) from a point; the straight-line distance off the grid or in a blocked cell.
double tpNavToGo_Distance(const tpNavToGo *togo, const tpNavTrack *track, double x, double y);

/// Working memory of tpNavCar_Plan (nodes, heap, closed set, per-decision scene data), kept across
/// decisions so that a search neither allocates nor first-touches fresh pages. It holds nothing from
/// one call to the next: a decision is the same with a fresh scratch, a reused one or none. One
/// search at a time per scratch. tpCreateNavCarScratch returns NULL when out of memory.
typedef struct tpNavCarScratch tpNavCarScratch;
tpNavCarScratch *tpCreateNavCarScratch(void);
/// Frees a scratch and its buffers. NULL is allowed.
void tpDestroyNavCarScratch(tpNavCarScratch *scratch);

/// Search options. Get defaults from tpDefaultNavCarPlanDef().
typedef struct tpNavCarPlanDef {
    int depth;             /* horizon in clips (6) */
    int node_limit;        /* nodes generated per decision (45000) */
    int checks;            /* collision checks per clip_time of clip, evenly spread, the last at its end (12: at
                              24 m/s the car moves 1.7 m between checks, less than its width) */
    const tpNavToGo *togo; /* NULL: straight-line heuristic as in the thesis (default NULL) */
    /* Optional observer of the search (recordings and viewers; default NULL): called for the root
       (id 0, parent -1, clip -1) and for every generated node, with its end pose (x, y, heading). */
    void (*on_node)(void *user, int id, int parent, int clip, const double pose[3]);
    void *on_node_user;
    double closed_cell;       /* m: > 0 enables a closed set keyed on the discretised state (x, y in cells of
                                 this size, heading in closed_angle bins, speed level): a child whose cell already
                                 holds a node reached no later (g) with no more clips (depth) is dropped.
                                 0 = off, the plain tree search of the thesis (default 0) */
    double closed_angle;      /* rad: heading bin of the closed set (default 0.1745 = 10 degrees) */
    tpNavCarScratch *scratch; /* not owned: buffers reused across calls (grown as needed); NULL = the call
                                 allocates and frees its own (default NULL) */
    int max_level;            /* highest speed level a clip may end at (a clip slowing down from above it is
                                 allowed); -1 = any (default) */
} tpNavCarPlanDef;

tpNavCarPlanDef tpDefaultNavCarPlanDef(void);

/// The planned decision.
typedef struct tpNavCarDecision {
    int clip;      /* clip to play next (-1: every clip collides) */
    int nodes;     /* nodes generated */
    int depth;     /* depth of the chosen path's end */
    double f;      /* its g + h (s) */
    bool finishes; /* the chosen path crosses the finish line */
    int best;      /* node id (as given to on_node) of the chosen path's end, -1 if none */
} tpNavCarDecision;

/// One finite-horizon A* decision from pose (x, y, heading) at speed level `level` and time t:
/// node cost g = elapsed time, h = straight-line distance to the goal / top clip speed
/// (admissible), children collide-checked against the walls and the traffic at time t + their
/// frame times. The first node popped at the horizon (or across the finish line) is the best
/// path, since f never decreases along pops; at the node limit the best open node is taken.
tpNavCarDecision tpNavCar_Plan(const tpNavMoveTree *tree, const tpNavTrack *track, const tpNavCarPlanDef *def,
                               const double pose[3], int level, double t);
/// True if the car rectangle at pose (x, y, heading) at time t touches a wall or a traffic car.
bool tpNavCar_Collides(const tpNavMoveTree *tree, const tpNavTrack *track, const double pose[3], double t);

#define TP_NAV_TRACK_MAX_WALLS 65536 /* walls in a track file */
#define TP_NAV_TRACK_MAX_CARS 4096   /* cars in a track file */
#define TP_NAV_TRACK_MAX_ANGLE 1e3   /* rad: |heading| in a track file */

/// A track read from a data file (see docs/navigation.md, "Track files"). Owns its arrays.
typedef struct tpNavTrackFile {
    char name[64];
    tpNavTrack track; /* points into walls / cars below */
    double start[3];  /* x, y, heading */
    double (*walls)[4];
    tpNavTrafficCar *cars;
} tpNavTrackFile;

/// Reads a JSON track file: {"name", "walls": [[x0, y0, x1, y1], ...], "cars": [{"pos": [x, y],
/// "vel": [vx, vy], "heading", "length", "width"}, ...], "start": [x, y, heading], "goal": [x, y],
/// "finish": [x0, y0, x1, y1]}. NULL with a message naming the file and the field on bad input:
/// a non-regular file or one larger than TP_MAX_DATA_BYTES, more than TP_NAV_TRACK_MAX_WALLS walls
/// or TP_NAV_TRACK_MAX_CARS cars, a name of 64 bytes or more, coordinates, lengths and widths
/// beyond +-TP_MAX_COORD, speeds beyond TP_MAX_SPEED, headings beyond +-TP_NAV_TRACK_MAX_ANGLE.
/// The caller frees the result with tpNavTrack_Free.
tpNavTrackFile *tpNavTrack_Load(const char *path, char *err, size_t errlen);
/// Same as tpNavTrack_Load, from the len bytes at text (need not be NUL-terminated, not kept);
/// path (not NULL) stands for the file in messages.
tpNavTrackFile *tpNavTrack_Parse(const char *text, size_t len, const char *path, char *err, size_t errlen);
/// Frees a track file and its arrays. NULL is allowed.
void tpNavTrack_Free(tpNavTrackFile *track);

/// Result of a drive.
typedef struct tpNavDriveResult {
    bool finished, crashed;
    double time;            /* s at the finish or the crash (or the limit) */
    int clips, skids;       /* clips played, of which skid clips */
    double max_decision_ms; /* slowest decision (wall clock; reporting only) */
    bool stopped;           /* on_clip asked to stop */
} tpNavDriveResult;

/// Drives a track by replanning at every clip boundary and playing the chosen clip (aligned to
/// the current pose) until the finish line, a collision, or `max_time`. `on_clip` (may be NULL)
/// sees every decision; returning false stops the drive there (r.stopped: a caller's deadline).
tpNavDriveResult tpNavCar_Drive(const tpNavMoveTree *tree, const tpNavTrack *track, const tpNavCarPlanDef *def,
                                const double start[3], int level, double max_time,
                                bool (*on_clip)(void *user, const double pose[3], int clip), void *user);

#ifdef __cplusplus
}
#endif
#endif
