/* Private: the layout of the grid-navigation family's own caches (nav_skill.c: nav_to, follow_field,
 * drive_track), kept in the skill cache's nav_to slot; shared with skill_validate.c, which checks
 * it (tpNavCache_Valid; tests/skills/test_skill_validate.c breaks each rule through it). */
#ifndef TP_NAV_CACHE_H
#define TP_NAV_CACHE_H

#include <stdint.h>

#include "tp/nav.h"
#include "tp/physics.h"

#define NAV_GRID_CACHE 4
#define NAV_PATH_CACHE 64
#define NAV_MAX_SIDE 1000

typedef struct NavPathEntry {
    int si, sj, gi, gj;
    int npoints; /* 0 = no path */
    double *points;
} NavPathEntry;

#define NAV_FIELD_CACHE 32

typedef struct NavFieldEntry {
    int gi, gj;        /* goal cell */
    tpNavField *field; /* harmonic map for it, owned */
} NavFieldEntry;

typedef struct NavGridEntry {
    uint64_t key;     /* hash of the static bodies and the grid parameters */
    double params[6]; /* cell, radius, z_min, z_max, and a check copy */
    tpNavGrid *grid;
    NavPathEntry paths[NAV_PATH_CACHE];
    int next_path; /* round-robin replacement */
    NavFieldEntry fields[NAV_FIELD_CACHE];
    int next_field;
} NavGridEntry;

#define TRACK_DEPTH 4     /* clips of horizon per decision */
#define TRACK_NODES 5000  /* node limit per decision */
#define TRACK_PATH_DT 0.1 /* s between the sampled future poses of scripted traffic */
#define TRACK_MAX_WALLS 512

#define TRACK_TOGO_CACHE 8  /* to-go fields kept per scene (one per goal point) */
#define TRACK_TOGO_CELL 0.5 /* m */

typedef struct TrackCache {
    uint64_t key;
    tpNavMoveTree *tree;
    int nwalls;
    double walls[TRACK_MAX_WALLS][4];
    double togo_goal[TRACK_TOGO_CACHE][2]; /* m: the goal of each field below */
    tpNavToGo *togo[TRACK_TOGO_CACHE];     /* owned; NULL = empty slot */
    int next_togo;                         /* round-robin replacement */
    tpNavCarScratch *scratch;              /* owned: the A*'s buffers, reused by every decision; NULL = none yet */
    double (*paths)[3];                    /* owned: the sampled future poses of scripted traffic (a decision's) */
    int path_cap;                          /* samples paths holds */
} TrackCache;

/* The moving (non-static) bodies of the cache's world in index order, with what follow_field's
 * neighbour scan reads of each: the list and radii built once, since a body's class, shape and
 * state slot never change after tpCreateWorld, and the positions once per control step (the scan
 * ran tpWorld_Body, tpCtl_Radius and a full tpWorld_BodyState per body per call: 120 pedestrians
 * a step, each over every body). */
typedef struct MoverMemo MoverMemo;

struct MoverMemo {
    const tpWorld *world; /* not owned (the domain's world); NULL = not built */
    int count;
    int *body;         /* owned: count body indices */
    int *slot;         /* owned: the state slot of each, -1 = a pose that is a function of time */
    double *radius;    /* owned: m, tpCtl_Radius of each */
    double max_radius; /* m: the largest of them (0 with none) */
    double *pos;       /* owned: m, world (x, y) of each at tpSkillCall.step `step` */
    uint64_t step;     /* the step pos belongs to; 0 = none (filled for the call alone) */
    /* With a step: the positions in buckets, a grid of nu x nv squares of side `side` from
     * (x0, y0) clamped at its edges; bucket b lists its movers in index order as
     * items[start[b] .. start[b + 1]). Non-finite positions are in no bucket but in `loose`. */
    double x0, y0, side; /* m */
    int nu, nv, nloose;
    int *start; /* owned: MOVER_BUCKETS + 1 */
    int *items; /* owned: count */
    int *loose; /* owned: count */
    int *cand;  /* owned: count, a query's scratch */
};

#define MOVER_SIDE 2.0     /* m: the buckets' least side */
#define MOVER_BUCKETS 4096 /* at most 64 x 64 buckets (wider scenes get wider buckets) */

/* nav_to's last lookup: the grid and path entries that gridFor and pathFor returned for these
 * inputs. A segment asks for the same ones at every control step, and a hit of either lookup
 * changes nothing, so skipping both gives the same entries -- once they are checked to still hold
 * what they held (a slot may have been refilled since: then the lookups run). */
typedef struct NavToMemo {
    const tpWorld *world; /* NULL: empty */
    int self;
    double in[8]; /* params (4), start (2), goal (2) */
    NavGridEntry *ge;
    uint64_t grid_key; /* ge->key then */
    NavPathEntry *pe;
    int cells[4]; /* pe's si, sj, gi, gj then */
} NavToMemo;

/* The family's own caches (nav_to, follow_field, drive_track), in the skill cache's nav_to slot. */
typedef struct NavCache {
    NavGridEntry grids[NAV_GRID_CACHE];
    int next_grid; /* round-robin replacement */
    TrackCache track;
    MoverMemo movers; /* follow_field's moving bodies (MoverMemo) */
    NavToMemo navto;  /* nav_to's last grid and path lookup */
} NavCache;

#endif
