/* Private to physics/: the tpWorld layout shared by world.c (creation, queries) and step.c
 * (Sim, collisions, snapshots). The only header that includes <ode/ode.h> besides the .c files. */
#ifndef TP_WORLD_INTERNAL_H
#define TP_WORLD_INTERNAL_H

#include "tp/physics.h"

#include <math.h>
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

/// ODE data of a mesh body (mesh_geom.c): a triangle mesh (static) or a convex hull (moving).
typedef struct tpMeshRt tpMeshRt;

/// Runtime data of one body.
typedef struct tpBodyRt {
    dBodyID body;           /* NULL for static bodies (geom only) */
    dGeomID geom;           /* one geom per body; its data holds the body index (the canonical id) */
    int state_slot;         /* -1 for static and kinematic */
    int control_slot;       /* -1 unless active or foreign TACTIC */
    bool kinematic;         /* foreign ROTATE / LINEAR / OSCILLATE */
    double axis[3];         /* ROTATE: unit axis */
    double mass;            /* kg (dynamic bodies) */
    double thickness;       /* m: smallest half extent (moving bodies) */
    uint32_t contact_stamp; /* tpWorld.stamp of the last substep in which it had a contact */
    uint32_t sweep_stamp;   /* tpWorld.stamp of the last substep in which it was fast */
    double vsweep[3];       /* m/s: its velocity over a free substep (set every substep for every
                               moving body; the swept pass moves the fast ones by it) */
    double inflate;         /* m: how much its geom grows in the swept pass (set with vsweep) */
    double travel;          /* m: |vsweep| h, its sweep's length in the substep (set with vsweep) */
    double vfree[3];        /* m/s: its velocity after the substep if only its support touched it
                               (what tpContacts_Discover calls unsurprising; set with vsweep) */
    double radius;          /* m: bounding radius about the centre of mass (dynamic bodies; the sweep of a
                               spinning body is |omega| * radius per second) */
    tpMeshRt *mesh;         /* TP_SHAPE_MESH: ODE's data for its geom (owned), else NULL */
    int ngeoms;             /* its geoms: 1, or a compound's parts (every per-geom loop uses these) */
    dGeomID *geoms;         /* ngeoms: &geom, or the compound's in tpWorld.part_geom (geom = geoms[0]) */
    tpMeshRt **meshes;      /* ngeoms: &mesh, or the compound's in tpWorld.part_mesh (NULL: a primitive) */
    int part0;              /* compound: its first part in tpWorld.parts, else -1 */
    bool asleep;            /* sleeping in this step (its ODE body disabled; contacts see it as static) */
    bool woke;              /* was asleep at the step's start and a touch woke it */
    bool surprised;         /* state bodies: tpContacts_Discover's current round found it surprised */
    bool acted;             /* a non-zero action acts on it in this step */
    bool gyro;              /* dynamic with unequal principal moments: tplan keeps its angular momentum
                               (step.c, conserve_momentum) instead of ODE's gyroscopic term */
    double inertia[9];      /* kg m^2: body-frame inertia tensor, row-major (dynamic bodies) */
    double inertia_inv[9];  /* 1 / (kg m^2): its inverse (0 if it has none) */
    bool in_chain;          /* reached by an impact chain's momentum in this solve (tpContacts_NeedPoisson) */
    bool in_flight;         /* no contact in this substep: a gyro body keeps its momentum (step.c) */
    int partner;            /* its first moving partner among the substep's contacts, -1 none, and ... */
    bool partners2;         /* ... whether it has another (contacts.c, note_partners) */
    double dv_free[3];      /* m/s: what gravity and the action add to its velocity over the substep */
    double dv_pred[3];      /* m/s: ... less what pushes into its contacts (the friction direction's
                               prediction: a car pressed on the road slides along a wall, not down it) */
    double dw_pred[3];      /* rad/s: ... and the action's torque to its angular velocity (set with the
                               substep's contact joints: the friction direction's prediction) */
    bool pinned;            /* the position projection leaves it alone in this substep (project.c) */
    bool stirs;             /* wakes the sleepers it touches: scripted, acted on, fast at the substep's
                               start or woken (a still awake body only leans on them) */
} tpBodyRt;

/// A contact joint of the current substep, kept so that the substep can be solved again (the
/// Dantzig fallback) without colliding twice.
typedef struct tpPendingContact {
    dContact c;       /* as handed to dJointCreateContact, less the friction direction (set from
                         the velocities when the joint is made) */
    int a, b;         /* body indices, a < b */
    bool speculative; /* from the swept pass or a discovery: limits the pair's approach to its gap */
    bool spec_bounce; /* a speculative contact that bounces within the substep (motionN > 0) */
    bool discovered;  /* from a discovery round (tpContacts_Discover) */
    bool bounces;     /* it bounces in this solve (tpContacts_NeedPoisson, at the start velocities) */
    double gap;       /* m: a speculative contact's gap, which it lets the pair close */
    double rest_f;    /* N along the normal: the restitution force of a Poisson solve (0: none) */
} tpPendingContact;

/// A pair touching at the substep's start and where its real contacts are in tpWorld.pend.
typedef struct tpTouch {
    uint64_t key;     /* (a << 32) | b */
    int first, count; /* pend[first .. first + count) */
    double deepest;   /* m: its deepest contact then */
} tpTouch;

/* Mesh bodies (mesh_geom.c) */
/// Checks the mesh of body b (who: its label for messages); moving bodies need a closed mesh
/// centred on its centre of mass. False with a message naming the body and the problem.
bool tpMeshGeom_Check(const tpBodyDef *b, const char *who, char *err, size_t errlen);
/// Copies b's mesh into the world (b->mesh then points at the copy) and creates its geom in
/// space: a triangle mesh when static, the convex hull when moving. NULL with a message in err.
dGeomID tpMeshGeom_Create(dSpaceID space, tpBodyDef *b, tpMeshRt **rt, char *err, size_t errlen);
/// Frees what tpMeshGeom_Create allocated (after the geom was destroyed). NULL is allowed.
void tpMeshGeom_Free(tpMeshRt *rt);
/// Mass of a moving mesh body: `total` kg with the mesh's inertia (volume integration).
void tpMeshGeom_Mass(const tpBodyDef *b, double total, dMass *m);
/// Bounding radius about the origin and smallest half extent of the bounding box (m).
double tpMeshGeom_Radius(const tpBodyDef *b);
double tpMeshGeom_Thickness(const tpBodyDef *b);
/// Largest extent of the bounding box (m), for the hash space's levels.
double tpMeshGeom_Extent(const tpBodyDef *b);
/// Grows a moving mesh body's hull by at least m on every face (m = 0: back to its size).
void tpMeshGeom_Inflate(tpMeshRt *rt, dGeomID g, double m);

/* Defined in compound.c (world.c uses them): a body's (or a part's, as a body of its shape)
 * bounding radius about its origin and smallest half extent (m). */
double tpShape_Radius(const tpBodyDef *b);
double tpShape_Thickness(const tpBodyDef *b);

/* Compound bodies (compound.c) */
/// Checks compound body b's parts (who: its label); a message naming parts[k] and the field.
bool tpCompound_Check(const tpBodyDef *b, const char *who, char *err, size_t errlen);
/// Copies the compounds' parts into w->parts (b->parts then point at the copies) and sets every
/// body's geom list (tpBodyRt.ngeoms, geoms, meshes, part0). False with a message (out of memory).
bool tpCompound_Copy(tpWorld *w, char *err, size_t errlen);
/// Creates compound body i's part geoms in w's space (data: the body index; placed on the ODE
/// body with their offsets, or at their world poses when static). False with a message.
bool tpCompound_CreateGeoms(tpWorld *w, int i, char *err, size_t errlen);
/// ODE mass of compound b: `total` kg, inertia about the body origin (its centre of mass).
void tpCompound_Mass(const tpBodyDef *b, double total, dMass *m);
/// Bounding radius about the body origin, smallest half extent of a part, largest extent (m).
double tpCompound_Radius(const tpBodyDef *b);
double tpCompound_Thickness(const tpBodyDef *b);
double tpCompound_Extent(const tpBodyDef *b);
/// Puts compound body i's part geoms at the body pose (p, q) through offsets (the swept pass).
void tpCompound_PoseGeoms(tpWorld *w, int i, const double p[3], const double q[4]);
/// Puts the part geoms back on their body-frame offsets.
void tpCompound_ResetOffsets(tpWorld *w, int i);
/// Frees the parts' mesh data (after the space destroyed their geoms).
void tpCompound_Free(tpWorld *w);

/* |v[k]| <= max for k < n, NaN failing (the physical ranges of a state, an action's bounds). */
static inline bool tpWithin(const double *v, int n, double max)
{
    for (int k = 0; k < n; k++)
        if (!(fabs(v[k]) <= max))
            return false;
    return true;
}

/* quickstep's sweeps per solve: the scene's quickstep_iters, 20 where it is not set (a scene whose
 * solver is not quickstep need not set it). step.c raises it for a tall stack (TP_TALL_STACK). */
static inline int tpWorld_QuickIters(const tpSceneDef *def)
{
    return def->quickstep_iters > 0 ? def->quickstep_iters : 20;
}

/* Plane contacts (plane_collide.c) */
/// Contacts of a sphere, cylinder or capsule geom against a plane geom into out (at most
/// max), in ODE's convention for the pair in the order (plane, shape) when plane_first, else
/// (shape, plane); features up to 0.1 mm above the plane come with their gap as a negative
/// depth. -1 when the shape is of another class (ODE's collider then).
int tpPlane_Collide(dGeomID shape, dGeomID plane, bool plane_first, int max, dContactGeom *out);

#define TP_DISCOVER_ROUNDS_MAX 3 /* step.c: solves again after a discovery, per substep */

struct tpWorld {
    tpSceneDef def;           /* copy; its arrays point at the copies below */
    tpMaterialDef *materials; /* def.nmaterials */
    tpContactDef *contacts;   /* def.ncontacts */
    tpBodyDef *bodies;        /* def.nbodies, quaternions normalised */
    tpBodyRt *rt;             /* def.nbodies */
    tpPartDef *parts;         /* nparts: every compound's parts, body after body (quaternions
                                 normalised, meshes pointing at the world's copies) */
    dGeomID *part_geom;       /* nparts: their geoms (owned by the space) */
    tpMeshRt **part_mesh;     /* nparts: their mesh data (owned; NULL for primitive parts) */
    int nparts;
    int max_geoms;       /* the most geoms of one body (1 without compounds) */
    tpSurface *surfaces; /* nmaterials x nmaterials, row-major */

    int nstate, ncontrol, nkinematic;
    int *state_body;   /* nstate body indices */
    int *control_body; /* ncontrol body indices */
    int *kin_body;     /* nkinematic body indices */

    dWorldID world;
    dThreadingImplementationID threading; /* the world's own (tpCreateWorld); NULL: ODE's shared one */
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
    dContactGeom *cgeoms; /* 2 max_contacts entries (compound scenes: for each pair of parts): one pair at two poses
                             (contacts.c sweep_samples) */
    double *action;       /* 6 * ncontrol: the clamped copy of the caller's action */
    double body_depth;    /* m: deepest overlap between two moving bodies, last step */
    int static_pair[2];   /* bodies of the deepest static overlap (-1 = none), last step */
    int body_pair[2];     /* bodies of the deepest moving-body overlap (-1 = none), last step */

    /* Contacts of the current substep (real and speculative), for joint creation and the
     * fallback solve; grown rarely. */
    tpPendingContact *pend;
    int npend, cap_pend;
    dJointFeedback *feedback;   /* one per speculative contact of the substep (cap_pend entries) */
    struct tpProjContact *proj; /* the position projection's contacts (project.c), cap_proj entries */
    int nproj, cap_proj;
    double (*proj_start)[3]; /* nstate: the state bodies' positions when the projection began */
    tpTouch *touch;          /* the pairs touching at the substep's start, sorted by key */
    int ntouch, cap_touch;
    int *fast;             /* indices of the fast bodies of the substep (nbodies entries) */
    tpBodyState *sub0;     /* nstate states at the substep's start (Dantzig fallback) */
    tpBodyState *subc;     /* nstate: the velocities a Poisson solve's restitution phase starts from */
    int32_t *island;       /* 3 def.nbodies: the substep's contact islands and stack levels (step.c find_stiff) */
    uint32_t stamp;        /* substep counter for tpBodyRt.contact_stamp (wraps harmlessly) */
    int64_t lcp_nudges;    /* substeps solved again by dWorldStep with the nudge (statistics) */
    int64_t lcp_fallbacks; /* ... and then by the iterative solver (statistics) */
    int64_t speculative;   /* speculative contacts created (statistics) */
    int64_t discovered;    /* contacts added after a solve found an unforeseen overlap (statistics) */
    int64_t slept;         /* body steps slept through (statistics) */
    int64_t woken;         /* sleepers woken by a touch (statistics) */
    int rest_steps;        /* steps at rest before a body sleeps (0: never) */
    bool inelastic;        /* the contact joints of this solve carry no bounce (a Poisson solve) */
    bool feedback_all;     /* ... and every joint gets a feedback record, at its pend index */
    int nrestitution;      /* contacts with a restitution force (rest_f) in this solve */
    int64_t poisson;       /* substeps solved with Poisson restitution (statistics) */
    int64_t stiff;         /* quickstep substeps whose stiff islands the Dantzig LCP solved (statistics) */
    bool stiff_solved;     /* the last solve was such a substep (island[] marks its stiff bodies -1) */
    int quick_height;      /* layers of the tallest stack quickstep solves in this substep (find_stiff) */
    int64_t tall;          /* quickstep substeps with more sweeps for a tall stack (statistics) */
    double sub_t;          /* s: the start time of the substep being solved (scripted bodies' poses) */
    int nasleep;           /* bodies asleep now (this step) */
    /* pend[0 .. run[0]) are the substep's real contacts; pend[run[r] .. run[r + 1]) for r < nrun
     * the runs of speculative ones (the swept pass's, then each discovery round's), each in pair
     * order */
    int run[TP_DISCOVER_ROUNDS_MAX + 2];
    int nrun;

    /* Joints (joints.c); all NULL / 0 without joints. */
    tpJointDef *joints;   /* def.njoints, axes unit length, distance lengths resolved */
    dJointID *joint_id;   /* def.njoints ODE joints (in no group: tplan's contact group is emptied) */
    dJointID *motor_id;   /* 2 def.njoints, [2 j + k]: the motor of joint j's axis k when it is a joint of
                             its own (a motor on a limit: joints.c, create_motor_joint), else NULL */
    int32_t *joint_root;  /* def.nbodies: the root body of each body's jointed group (itself if none) */
    uint8_t *joint_flags; /* def.nbodies, by root: TP_JOINT_GROUP_* */
    int *joint_min;       /* def.nbodies scratch, by root (sleeping) */
    uint64_t *nocollide;  /* sorted broad-phase keys (a << 32 | b, a < b) of jointed pairs that do not collide */
    int nnocollide;
    int joint_springs; /* axes with a spring: their ERP and CFM follow the solve's step */
    double joint_h;    /* s: the step the springs' ERP and CFM were last set for (-1: none) */
    int nmotor;        /* driven motor axes (tpWorld_MotorCount) */
    int *motor_joint;  /* nmotor: joint index of each motor slot */
    int *motor_axis;   /* nmotor: its axis (0, 1) */
    double *motor_max; /* nmotor: the largest |target| (rad/s or m/s) */

    /* Why the last step failed (tpWorld_LastFailure), and what its checks need to say so. */
    tpStepFailure failure; /* kind TP_STEP_OK after a step that succeeded */
    int static_sub;        /* the substep whose collision pass saw the static_depth overlap */
    int body_sub;          /* ... and the body_depth one */
    int substep;           /* the substep being simulated (the step's count: the check after the last) */

    double time; /* s, time of the live world */
    /* Snapshot taken by the last Restore, returned verbatim until the next step: ODE
     * renormalises a quaternion on every dBodySetQuaternion, which may change its last bit, so
     * reading q back from ODE would not round-trip exactly. */
    unsigned char *restored;
    bool live_restored;
    /* First fatal error ("" = none): a FUNCTION motion's, or out of memory for the contacts
     * (tpWorld_OutOfMemory). Heap memory, so that evaluating a body's pose (const world) can record
     * it. */
    char *fatal_error; /* TP_FATAL_ERROR_MAX bytes */
};

#define TP_FATAL_ERROR_MAX 1280 /* bytes of tpWorld.fatal_error */

/// Records that the physics ran out of memory for `what` (the world's fatal error, unless one is
/// there already; the step's failure kind TP_STEP_NO_MEMORY): the step fails, and so does every
/// later one.
void tpWorld_OutOfMemory(tpWorld *w, const char *what);

/// out = R M R^T v: a body-frame 3x3 matrix M (row-major; an inertia tensor or its inverse)
/// applied to the world-frame vector v, R a rotation matrix in ODE's layout (rows of 4).
static inline void tpMat_BodyTimes(const dReal *R, const double *M, const double v[3], double out[3])
{
    double b[3], c[3];
    for (int i = 0; i < 3; i++)
        b[i] = R[i] * v[0] + R[4 + i] * v[1] + R[8 + i] * v[2];
    for (int i = 0; i < 3; i++)
        c[i] = M[3 * i] * b[0] + M[3 * i + 1] * b[1] + M[3 * i + 2] * b[2];
    for (int i = 0; i < 3; i++)
        out[i] = R[4 * i] * c[0] + R[4 * i + 1] * c[1] + R[4 * i + 2] * c[2];
}

/// The part of body i's angular velocity om (rad/s, world frame) that moves the space its shape
/// occupies, into out: none for a sphere, all but the spin about its own axis for a cylinder or a
/// capsule (a rolling wheel sweeps its translation only: turning it by its spin in the swept pass
/// put speculative contacts on rim points ahead of the true one, which braked it), all of it
/// for the other shapes. What sweeps and adaptive substeps use; the contact velocities are the
/// material ones.
static inline void tpWorld_ShapeSpin(const tpWorld *w, int i, const dReal *om, double out[3])
{
    const tpShapeKind shape = w->bodies[i].shape;
    if (shape == TP_SHAPE_SPHERE) {
        out[0] = out[1] = out[2] = 0.0;
        return;
    }
    out[0] = om[0], out[1] = om[1], out[2] = om[2];
    if (shape == TP_SHAPE_CYLINDER || shape == TP_SHAPE_CAPSULE) {
        const dReal *R = dBodyGetRotation(w->rt[i].body);
        const double ax[3] = {R[2], R[6], R[10]}; /* the body's z axis, the shape's */
        const double s = om[0] * ax[0] + om[1] * ax[1] + om[2] * ax[2];
        for (int k = 0; k < 3; k++)
            out[k] -= s * ax[k];
    }
}

/* Defined in contacts.c, called by step.c once per substep (in this order: Collide at the start
 * poses, Speculate for the fast bodies, then the solve with CreateJoints, Discover and solve again
 * while it finds something, Record), and DepthPass after a step in scenes with scripted bodies. */
/* The most substeps a step takes (fast bodies ask for more). */
#define TP_MAX_SUBSTEPS 64
/* The most poses a pair's sweep is collided at within one substep (contacts.c, sweep_samples). */
#define TP_SWEEP_SAMPLES_MAX 16
/* A body may travel at most this many times its thickness (smallest half extent) in one step:
 * TP_MAX_SUBSTEPS substeps of TP_SWEEP_SAMPLES_MAX samples, each sample at most one thickness
 * further, so that no wall, however thin, lies unseen between two samples. Faster is refused
 * (TP_STEP_VALUE_SWEEP). */
#define TP_MAX_SWEEP_THICKNESSES (TP_MAX_SUBSTEPS * TP_SWEEP_SAMPLES_MAX)
/* A step cuts a substep at a lively bounce (contacts.c) at most this many times. */
#define TP_MAX_CUTS 16
/* A substep is solved again after a discovery (contacts.c) at most this many times. */
#define TP_DISCOVER_ROUNDS TP_DISCOVER_ROUNDS_MAX
/// The real contacts at the substep's start poses into w->pend, and the touching record (keep:
/// add to the earlier substeps' pairs).
void tpContacts_Collide(tpWorld *w, bool keep);
/// The swept pass: speculative contacts for the fast bodies over a substep of h s. Returns h, or
/// the time of the first lively bounce short of a surface when split allows cutting there.
double tpContacts_Speculate(tpWorld *w, double h, bool split);
/// Wakes the sleepers that a stirring body touches in w->pend (real or speculative), and those
/// they touch in turn; true when it woke any.
bool tpContacts_Wake(tpWorld *w);
/// True when neither body of a pending contact is simulated (static or asleep): it makes no joint.
static inline bool tpContacts_Dormant(const tpWorld *w, const tpPendingContact *p)
{
    const tpBodyRt *a = &w->rt[p->a], *b = &w->rt[p->b];
    return (a->body == NULL || a->asleep) && (b->body == NULL || b->asleep);
}
/// Wakes sleeper s within a step: simulated again from here on, and it stirs what it touches.
static inline void tpWorld_Wake(tpWorld *w, tpBodyRt *s)
{
    s->asleep = false;
    s->woke = true;
    s->stirs = true;
    dBodyEnable(s->body);
    w->nasleep--;
    w->woken++;
}
/// The substep's contact joints from w->pend for a substep of h s (friction direction from the
/// current velocities; a contact with a negative depth may close that gap within the substep).
void tpContacts_CreateJoints(tpWorld *w, double h);
/// After a solve: contacts for overlaps the solve caused that no contact foresaw; true when it
/// added some (the substep is then solved again from w->sub0).
bool tpContacts_Discover(tpWorld *w, double h);
/// Whether the substep's bounces form an impact chain: a bouncing contact whose body also touches
/// another moving body, where ODE's per-contact (Newton) restitution targets can make energy; marks
/// the chain's bodies (tpBodyRt.in_chain). Call with the bodies at the substep's start.
bool tpContacts_NeedPoisson(tpWorld *w);
/// After the inelastic solve of a Poisson substep: each bouncing contact's restitution force, e
/// times its compression force (from the feedback records); how many. Also marks which contacts
/// bounce (NeedPoisson, at the substep's start velocities).
int tpContacts_RestitutionForces(tpWorld *w);
/// The speculative contacts the solver used join the touching record.
void tpContacts_Record(tpWorld *w);
/// The candidate pairs at the current poses into w->pairs, sorted.
void tpContacts_PairsNow(tpWorld *w);
/// Grows body i's geom by m (m) on every side (0: back to its size).
void tpContacts_Inflate(tpWorld *w, int i, double m);
/// The contacts of bodies a < b at the current poses into w->cgeoms, in canonical order (ODE's
/// normal separates a from b when a moves along it); their count.
int tpContacts_CollidePair(tpWorld *w, int a, int b);
/// Pushes apart, on the poses alone, the overlap beyond a slop that the substep's solve left
/// (project.c; solver "quickstep").
void tpContacts_Project(tpWorld *w);
/// The deepest overlaps at the current poses, without joints (after a step with scripted bodies).
void tpContacts_DepthPass(tpWorld *w);
/* Whether `body` touches another body at the current poses: a contact of its pairs deeper than
 * -gap (m; the plane colliders report gaps within their slop as negative depths). Only looks, as
 * DepthPass. */
bool tpContacts_Touching(tpWorld *w, int body, double gap);

/// The first of n names (NUL-terminated, `stride` bytes apart from `first`; empty ones skipped)
/// that an earlier one repeats, that one's index in *earlier; -1 if none, -2 out of memory. Linear.
int tpNames_FirstDuplicate(const char *first, size_t stride, int n, int *earlier);

/* Joints (joints.c) */
enum {
    TP_JOINT_GROUP_JOINTED = 1, /* the group has a joint */
    TP_JOINT_GROUP_HELD = 2,    /* ... to the world or a static body: at rest it is supported */
    TP_JOINT_GROUP_AWAKE = 4,   /* ... to a scripted body, or a motor with a target speed: never sleeps */
};
/// Checks def's joints against its bodies (after the bodies' checks); a message naming the joint
/// and the field.
bool tpJoints_Check(const tpSceneDef *def, char *err, size_t errlen);
/// Copies the joints and creates the ODE joints (the bodies at their initial poses), the groups
/// and the no-collide pairs. False with a message (out of memory).
bool tpJoints_Create(tpWorld *w, char *err, size_t errlen);
/// Frees what tpJoints_Create allocated (the ODE joints go with the world).
void tpJoints_Free(tpWorld *w);
/// The broad-phase key (a << 32 | b, a < b) is a jointed pair that does not collide.
bool tpJoints_NoCollide(const tpWorld *w, uint64_t key);
/// After a solve: translates the awake dynamic bodies of hinge, ball, universal, hinge2 and
/// distance joints so that each joint's anchors are within TP_JOINT_SLOP of each other (joints.c;
/// velocities untouched).
void tpJoints_Project(tpWorld *w);
/// The springs' ERP and CFM for a solve of h s (a no-op when already set for h).
void tpJoints_SetStep(tpWorld *w, double h);
/// After the sleepers are chosen (tpBodyRt.asleep): a jointed group sleeps only when all of it does.
void tpJoints_SleepGroups(tpWorld *w);
/// Wakes the sleepers jointed to an awake body; true when it woke any (tpContacts_Wake repeats).
bool tpJoints_Wake(tpWorld *w);
/// Body `body`'s group is jointed to the world or a static body.
bool tpJoints_Held(const tpWorld *w, int body);
/// After the rest counts of a step: no member of a group reaches rest_steps before all do.
void tpJoints_CountRest(tpWorld *w, uint8_t *rest_new);
/// Jointed bodies are not in free flight (step.c, gyro_modes).
void tpJoints_InFlight(tpWorld *w);
/// Sets the driven motors' ODE target speeds from an action's motor part (nmotor doubles, checked
/// and clamped by the caller).
void tpJoints_Drive(tpWorld *w, const double *targets);
/// The first driven motor whose target in `targets` (nmotor doubles) is non-finite or beyond its
/// kind's range (TP_MAX_ANGVEL, TP_MAX_SPEED), filling w->failure; -1 if none.
int tpJoints_BadTarget(tpWorld *w, const double *targets);

/* Defined in step.c, used by world.c. */
void tpWorld_MotionAt(const tpWorld *w, int body, double t, tpBodyState *out);
bool tpWorld_CallMotion(const tpWorld *w, int body, double t, tpBodyState *out);
bool tpWorld_GrowPairs(tpWorld *w, int cap);
/* Defined in world.c: how many times ODE's Dantzig LCP solver gave up on this thread ("LCP
 * internal error, s <= 0"), a running count read before and after a dWorldStep. */
unsigned long tpOde_LcpFailures(void);
/// One ODE solve of world over h seconds: dWorldStep (exact) or dWorldQuickStep. Quickstep
/// shuffles constraint rows with ODE's one process-wide generator: it is reset to the same seed
/// before each solve, under a lock, so that worlds stepped by several threads stay deterministic.
int tpOde_Solve(dWorldID world, double h, bool exact);

/* Invariants (world_validate.c): true when w's tables, bodies, step lists and joints are consistent,
 * else false with the first broken rule in why (NULL allowed). Run through TP_VALIDATE (tp/base.h)
 * after tpCreateWorld and after every step that succeeded, in Debug and sanitizer builds; a test
 * (tests/physics/test_world_validate.c) breaks each rule once. */
bool tpWorld_Valid(const tpWorld *w, char *why, size_t cap);

#endif
