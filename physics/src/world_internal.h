/* Private to physics/: the tpWorld layout shared by world.c (creation, queries) and step.c
 * (Sim, collisions, snapshots). The only header that includes <ode/ode.h> besides the .c files. */
#ifndef TP_WORLD_INTERNAL_H
#define TP_WORLD_INTERNAL_H

#include "tp/physics.h"

#include <ode/ode.h>

/* ODE is built for double precision on Debian (ode/precision.h defines dDOUBLE); the state
 * round trip through tpBodyState relies on dReal being exactly double. */
#ifndef dDOUBLE
#error "tplan physics needs ODE built with double precision (dDOUBLE)"
#endif

/* Collision category bits. dSpaceCollide reports a pair when either geom's category matches
 * the other's collide mask, so static and kinematic geoms only ever meet dynamic ones. */
enum { TP_CAT_STATIC = 1u, TP_CAT_KINEMATIC = 2u, TP_CAT_DYNAMIC = 4u };

/// Mixed surface parameters for one ordered pair of materials.
typedef struct tpSurface {
    double mu;         /* Coulomb friction */
    double bounce;     /* restitution in [0, 1] */
    double bounce_vel; /* m/s */
    double rho;        /* rolling friction (m) */
} tpSurface;

/// Runtime data of one body.
typedef struct tpBodyRt {
    dBodyID body;     /* NULL for static bodies (geom only) */
    dGeomID geom;     /* one geom per body; its data holds the body index (the canonical id) */
    int state_slot;   /* -1 for static and kinematic */
    int control_slot; /* -1 unless active or foreign TACTIC */
    bool kinematic;   /* foreign ROTATE / LINEAR / OSCILLATE */
    double axis[3];   /* ROTATE: unit axis */
} tpBodyRt;

struct tpWorld {
    tpSceneDef def;           /* copy; its arrays point at the copies below */
    tpMaterialDef *materials; /* def.nmaterials */
    tpContactDef *contacts;   /* def.ncontacts */
    tpBodyDef *bodies;        /* def.nbodies, quaternions normalised */
    tpBodyRt *rt;             /* def.nbodies */
    tpSurface *surfaces;      /* nmaterials x nmaterials, row-major */

    int nstate, ncontrol, nkinematic;
    int *state_body;   /* nstate body indices */
    int *control_body; /* ncontrol body indices */
    int *kin_body;     /* nkinematic body indices */

    dWorldID world;
    dSpaceID space;
    dJointGroupID group;

    /* Per-step scratch, preallocated so that a step never allocates (grown rarely). */
    uint64_t *pairs; /* candidate pairs, (a << 32) | b with a < b */
    int npairs, cap_pairs;
    tpContactInfo *infos; /* touching pairs of the last step (all substeps), cap_infos entries */
    int ninfos;
    size_t cap_infos;     /* entries infos and merge have room for */
    double static_depth;  /* m: deepest moving-body overlap with static geometry, last step */
    tpContactInfo *merge; /* scratch for merging the substeps' pairs, cap_infos entries */
    dContactGeom *cgeoms; /* max_contacts entries for one dCollide call */
    double *action;       /* 6 * ncontrol: the clamped copy of the caller's action */

    /* Why the last step failed (tpWorld_LastFailure), and what its checks need to say so. */
    tpStepFailure failure;  /* kind TP_STEP_OK after a step that succeeded */
    int static_a, static_b; /* the pair of the static_depth overlap (body indices, a < b), -1: none */
    int static_sub;         /* the substep whose collision pass saw it */
    int substep;            /* the substep being simulated (def.substeps: the check after the last) */

    double time; /* s, time of the live world */
    /* Snapshot taken by the last Restore, returned verbatim until the next step: ODE
     * renormalises a quaternion on every dBodySetQuaternion, which may change its last bit, so
     * reading q back from ODE would not round-trip exactly. */
    unsigned char *restored;
    bool live_restored;
    /* First error of a FUNCTION motion ("" = none). Heap memory, so that evaluating a body's
     * pose (const world) can record it. */
    char *motion_error; /* TP_MOTION_ERROR_MAX bytes */
};

#define TP_MOTION_ERROR_MAX 1280 /* bytes of tpWorld.motion_error */

/* Defined in step.c, used by world.c. */
void tpWorld_MotionAt(const tpWorld *w, int body, double t, tpBodyState *out);
bool tpWorld_CallMotion(const tpWorld *w, int body, double t, tpBodyState *out);
bool tpWorld_GrowPairs(tpWorld *w, int cap);

#endif
