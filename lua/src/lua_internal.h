/* tplan lua: private declarations shared by the binding files.
 *
 * Constructors (tp.box, tp.skill.kick, tp.within, ...) validate their own fields at call time
 * and return userdata holding the C definition plus the call site ("file:line:") and any names
 * they refer to. Names are resolved by tp.domain, which reports a bad reference at the call
 * site of the constructor that made it. No C globals: everything lives in the lua_State. */
#ifndef TP_LUA_INTERNAL_H
#define TP_LUA_INTERNAL_H
/* Registry keys: the loaded script's directory with a trailing slash as messages name it (the
 * folder of tpScriptDef.name: "" for a built-in domain), the folder files are read from (as
 * given, trailing slash) and that folder resolved (realpath, no trailing slash). DIR is absent for
 * a script submitted as text (no folder); DISKDIR and REALDIR also when the script and its files
 * come from a plan (tpScriptDef.files). */
#define TPL_SCRIPT_DIR "tplan.script_dir"
#define TPL_SCRIPT_DISKDIR "tplan.script_diskdir"
#define TPL_SCRIPT_REALDIR "tplan.script_realdir"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdbool.h>

#include "tp/base.h"
#include "tp/lua.h"

/* Metatable names, one per userdata type. */
#define TPL_DIST "tp.dist"
#define TPL_MATERIAL "tp.material"
#define TPL_CONTACT "tp.contact"
#define TPL_BODY "tp.body"
#define TPL_JOINT "tp.joint"
#define TPL_MOTION "tp.motion"
#define TPL_SKILL "tp.skill"
#define TPL_TACTIC "tp.tactic"
#define TPL_COND "tp.cond"
#define TPL_METRIC "tp.metric"
#define TPL_DOMAIN "tp.domain"
#define TPL_CONDGUARD "tp.condguard"
#define TPL_WORLDGUARD "tp.worldguard"
#define TPL_VIEW "tp.state"
#define TPL_ACTION "tp.action"
#define TPL_CTX "tp.ctx"
#define TPL_VARS "tp.vars"

/* Registry keys. */
#define TPL_REG_PARAMS "tp.params"           /* name -> --set value string */
#define TPL_REG_PARAMS_READ "tp.params.read" /* name -> true for every tp.param call */
#define TPL_REG_PARAMS_USED "tp.params.used" /* name -> converted override value */
#define TPL_REG_PARAMS_DECL "tp.params.decl" /* array: JSON text of each declared parameter */

#define TPL_COND_MAX_DEPTH 64 /* deeper trees are refused: conversion recurses in C */

/* ------------------------------------------------------------------------------------------ */
/* Userdata payloads                                                                           */

/// tp.material: user value 1 = call site.
typedef struct tplMaterial {
    tpMaterialDef def;
} tplMaterial;

/// tp.contact: pair override by material names; user value 1 = call site.
typedef struct tplContact {
    char a[TP_NAME_MAX], b[TP_NAME_MAX];
    double friction, restitution, rolling_friction, bounce_velocity; /* NAN: mixing rule */
} tplContact;

/// tp.rotate / tp.linear / ... / tp.motion: a kinematic motion for a foreign body; user value 1 =
/// the function of tp.motion.
typedef struct tplMotion {
    tpMotionDef def;
} tplMotion;

/// tp.box / tp.sphere / ...: user value 1 = call site, 2 = the tp.motion function (if any).
typedef struct tplBody {
    tpBodyDef def;
    char material[TP_NAME_MAX]; /* "" = the first material */
    const char *ctor;           /* "tp.box", ... (static string) */
} tplBody;

/// tp.joint: user value 1 = call site. Body names resolved by tp.domain.
typedef struct tplJoint {
    tpJointDef def;
    char a[TP_NAME_MAX], b[TP_NAME_MAX]; /* b "" = the world */
    bool has_anchor, has_anchor2;        /* distance: absent = the body's centre (b's, or required) */
} tplJoint;

/// tp.skill.<kind>: user value 1 = call site, 2 = run function (custom only).
typedef struct tplSkill {
    tpSkillDef def;
    char body[TP_NAME_MAX], target[TP_NAME_MAX]; /* body names, "" = unset */
    char ground[TP_NAME_MAX];                    /* the kind's TP_FIELD_BODY field (kick's `ground`), "" = unset */
    size_t ground_offset;                        /* where in def that body's index goes (0 = none given) */
    char joint[TP_NAME_MAX];                     /* the kind's TP_FIELD_JOINT field (motor's `joint`), "" = unset */
    size_t joint_offset;                         /* where in def that joint's index goes (0 = none given) */
} tplSkill;

/// tp.tactic: user value 1 = call site, 2 = array of tp.skill, 3 = dynamic rows
/// (skill index 1..k -> function), 4 = a plain userdata holding `pi` and `dynamic`, so the
/// constant Π (k*k doubles, row-major) is garbage-collected with the tactic.
typedef struct tplTactic {
    char name[TP_NAME_MAX], body[TP_NAME_MAX]; /* body "" = unset */
    bool foreign;
    int nskills;
    int initial;
    double *pi;
    bool *dynamic;
} tplTactic;

/// tp.within / tp.all / ...: user value 1 = call site, 2 = children array (conds or functions).
typedef struct tplCond {
    tpCondKind kind;
    char body[TP_NAME_MAX], other[TP_NAME_MAX];
    double center[3], radius, lo[3], hi[3], value;
    int depth;
    double fraction; /* tp.arranged; its bodies and points are user value 2 {names, points} */
    int dim;
    double t0, t1; /* tp.within_time: the window (s); tp.at_time: t0 (s) */
} tplCond;

/// tp.distance / tp.effort: user value 1 = call site.
typedef struct tplMetric {
    tpMetricKind kind;
    char body[TP_NAME_MAX];
    double point[3];
    bool planar;
    int nbodies;
    char bodies[16][TP_NAME_MAX];
} tplMetric;

/// tp.domain result: the built tpDomain and the host side of its callbacks. Userdata memory
/// never moves, so its address is the `user` pointer of every callback.
typedef struct tplDomain {
    lua_State *L;
    tpDomain *domain;    /* owned; destroyed by __gc (lua_close for the returned one) */
    int fnref;           /* registry ref: flat array id -> function (conditions, metrics, skills) */
    int piref;           /* registry ref: [tactic+1][sigma+1] -> dynamic Π row function */
    int namesref;        /* registry ref: body name -> index */
    int skillsref;       /* registry ref: [tactic+1] -> {i -> skill name, name -> i} */
    int liveref;         /* registry ref: views handed to the running callback (expired after it) */
    int quality_id;      /* fn id of a Lua quality function, -1 if none */
    int solution_id;     /* fn id of a Lua solution metric, -1 if none */
    char where[512];     /* call site of tp.domain ("file:line:") */
    char path[1024];     /* the script path as given, and Lua's possibly shortened form of it, */
    char short_src[128]; /* so callback messages can name the full path */
    char pending[512];   /* callback error raised before the domain existed */
} tplDomain;

/// Common head of every view userdata (state, action, ctx): cleared when its callback returns.
typedef struct tplLive {
    bool valid;
} tplLive;

#define TPL_REG_PATH "tp.path"               /* the script path as given */
#define TPL_REG_SCENE_NOTES "tp.scene.notes" /* array: tp.scene's warnings, for tp.domain (tplDomainNew) */
#define TPL_REG_SHORT_SRC "tp.short_src"     /* Lua's chunk id of the script (may start with "...") */

/* ------------------------------------------------------------------------------------------ */
/* Field helpers (fields.c). `what` names the constructor in messages ("tp.box 'robot'").       */

/// luaL_error with C printf formatting (%g prints -1, not Lua's -1.0): raises "file:line: msg"
/// naming the Lua line that called the running C function.
int tplError(lua_State *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/// True if key is one of the NULL-terminated names.
bool tplIsKnown(const char *key, const char *const *names);
/// Pushes the NULL-terminated names joined by ", " (for "known: ..." messages).
void tplPushJoined(lua_State *L, const char *const *names);
/// The alphabetically first string key of the table at idx that is not in `known` (so a message
/// never depends on lua_next's order), NULL if none; the string lives in the table. With
/// bad_array, also sets *bad_array when a key is neither a string nor an integer in 1..narray
/// (other keys are ignored with NULL).
const char *tplFirstUnknownKey(lua_State *L, int idx, const char *const *known, int narray, bool *bad_array);
/// Raises "where message" (where is a stored call site "file:line:").
int tplErrorAt(lua_State *L, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/// Raises unless every string key of the table at idx is in known (NULL-terminated); reports
/// the alphabetically first unknown key. Array entries 1..narray are allowed; other keys are not.
void tplCheckFields(lua_State *L, int idx, const char *what, const char *const *known, int narray);
/// Pushes field `key` of the table at idx (raw). Returns its type.
int tplField(lua_State *L, int idx, const char *key);
/// tplCheckFields with another noun in the message ("unknown skill 'x' in ...").
void tplCheckKeys(lua_State *L, int idx, const char *what, const char *const *known, int narray, const char *noun);
/// Type name of the value at idx (userdata of ours by their metatable name).
const char *tplTypeName(lua_State *L, int idx);

/// Optional number (def if nil). Raises on a non-number or a non-finite number unless allow_inf.
double tplNumber(lua_State *L, int idx, const char *what, const char *key, double def, bool allow_inf);
/// Required number.
double tplReqNumber(lua_State *L, int idx, const char *what, const char *key);
/// Optional integer in [lo, hi].
long long tplInteger(lua_State *L, int idx, const char *what, const char *key, long long def, long long lo,
                     long long hi);
/// Optional boolean.
bool tplBool(lua_State *L, int idx, const char *what, const char *key, bool def);
/// Optional string copied into out (cap bytes); returns false if absent. Raises if too long.
bool tplString(lua_State *L, int idx, const char *what, const char *key, char *out, size_t cap);
/// Optional vector of mindim..maxdim numbers; returns its dim, 0 if absent.
int tplVector(lua_State *L, int idx, const char *what, const char *key, double *out, int mindim, int maxdim,
              bool allow_inf);
/// True when msg already starts with a position: "<chunk>:<line>:" where the chunk is a file
/// name ending in ".lua" or a load()ed "[string ...]".
bool tplHasPosition(const char *msg);
/// Reads the value at idx (absolute) as a vector; raises naming `label` on a bad value.
int tplToVector(lua_State *L, int idx, const char *label, double *out, int mindim, int maxdim, bool allow_inf);
/// The call site of the caller of the running C function, "file:line:" (pushed).
void tplPushWhere(lua_State *L);

/* ------------------------------------------------------------------------------------------ */
/* Distributions (skill_ctors.c)                                                                */

/// Reads the value at idx as a distribution (tp.dist, number or vector) of a dim in
/// [mindim, maxdim]; raises naming `label`.
void tplToDist(lua_State *L, int idx, const char *label, tpDist *out, int mindim, int maxdim);
/// Optional distribution field; leaves *out unset (TP_DIST_UNSET) when absent.
void tplDistField(lua_State *L, int idx, const char *what, const char *key, tpDist *out, int mindim, int maxdim);
/// Registers tp.const, tp.uniform, ... into the table at -1.
void tplOpenDist(lua_State *L);
/// Registers tp.skill.* into the table at -1.
void tplOpenSkills(lua_State *L);

/* ------------------------------------------------------------------------------------------ */
/* Modules                                                                                     */

/// Registers tp.material, tp.contact, tp.box, ... and the motions into the table at -1.
void tplOpenScene(lua_State *L);
/// Registers tp.joint in the table at the top of the stack (joint_ctor.c).
void tplOpenJoints(lua_State *L);
/* Compound bodies (compound_ctor.c) */
/// tp.compound: reads the parts of the table at 1 into body b (the userdata at bidx; they live in
/// its user value 3) and its mass (mass, density over the parts without one, or the parts' sum;
/// required when `dynamic`); raises "what parts[k].field ..." on bad input.
void tplCompoundRead(lua_State *L, int bidx, tplBody *b, const char *what, bool dynamic);
/// Gives body b (the userdata at bidx) copies of n parts (and of their meshes) as a compound
/// (meshes.c, with the three below).
void tplCompoundStore(lua_State *L, int bidx, tplBody *b, const tpPartDef *parts, int n);
/// A new keep table as user value 3 of the body at bidx (and on the stack); its index.
int tplKeepTable(lua_State *L, int bidx);
/// n default parts in a userdata appended to the keep table at index keep.
tpPartDef *tplKeepParts(lua_State *L, int keep, int n);
/// A copy of mesh m in a userdata appended to the keep table; p->mesh then points at it.
void tplKeepMesh(lua_State *L, int keep, tpPartDef *p, const tpMeshView *m);
/// Moves a dynamic compound's frame to its centre of mass (tpCompound_Centre); raises on an error.
void tplCompoundCentre(lua_State *L, tplBody *b, const char *what);
/* Mesh bodies and glTF scenes (meshes.c) */
/// Reads a mesh file named by a script (inside its folder, tp/mesh.h caps); raises "what: ...".
void tplMeshRead(lua_State *L, const char *what, const char *file, bool y_up, double scale, tpMesh *out);
/// Gives body b (the userdata at bidx) mesh m (freed here): a moving body's mesh must be closed
/// (else raises naming file) and is moved so that its centre of mass is the origin (com: where
/// that was in the file's frame); its mass is `mass`, or density x volume. The vertices live in a
/// userdata kept as the body's user value 3.
void tplMeshAttach(lua_State *L, int bidx, tplBody *b, tpMesh *m, const char *file, double mass, double density,
                   double com[3]);
/// Moves a body placed by its file's origin to its centre of mass: pos += R(quat) com.
void tplMeshPlace(tplBody *b, const double com[3]);
/// tp.scene(file [, options]): the bodies of a glTF scene.
int tplSceneFile(lua_State *L);
/// Registers tp.tactic, conditions and metrics into the table at -1.
void tplOpenTactics(lua_State *L);
/// tp.arranged, tp.peak_force, tp.pattern (arrange.c).
void tplOpenArrange(lua_State *L);
/// Registers tp.domain into the table at -1.
void tplOpenDomain(lua_State *L);
/// Creates the metatables of the state/action/ctx views.
void tplOpenViews(lua_State *L);
/// Registers tp.nav (navigation grids and the path follower, nav.c) into the table at -1.
void tplOpenNav(lua_State *L);
/// Registers tp.param into the table at -1.
void tplOpenParams(lua_State *L);
/// Opens the whole `tp` module: pushes the table.
int luaopen_tp(lua_State *L);

/* ------------------------------------------------------------------------------------------ */
/* Sandbox and limits (sandbox.c)                                                              */

enum { TPL_TRIP_NONE = 0, TPL_TRIP_TIME, TPL_TRIP_MEMORY };

/// The limits of one lua_State; its address is in the state's extra space. Owned by tpScript.
typedef struct tplLimits {
    size_t max_bytes;          /* allocator cap (bytes) */
    size_t used;               /* bytes allocated now */
    size_t external;           /* bytes of C objects held by Lua handles (nav grids, fields): counted
                                  against max_bytes too, since Lua's collector does not see them */
    double deadline;           /* tpClock_Now() time after which the hook raises; 0 = none */
    const char *deadline_what; /* which limit the deadline is, for the message (one of the
                                  buffers below) */
    double call_seconds;       /* limit of one callback while planning (s) */
    double run_deadline;       /* the planning run's --time-limit, absolute; 0 = none */
    char load_what[96], call_what[96], run_what[96];
    int tripped;     /* TPL_TRIP_*: once set, every protected call re-raises msg */
    char msg[512];   /* "file:line: time limit exceeded (...)" */
    char where[400]; /* "file:line: " of the script when the hook last ran */
    char path[400];  /* the script's name, for a message with no line */
    /* the files the script read (tpScript_Files; paths and bytes owned), and the files of a plan
       to read instead of the disk (not owned; NULL: the disk) */
    tpScriptFile *files;
    int nfiles;
    size_t files_cap;
    const tpScriptFile *embedded;
    int nembedded;
    FILE *print_to; /* print()'s stream (tpScriptDef.print_to); NULL = stderr */
    void (*print_fn)(void *user, const char *text, size_t len); /* tpScriptDef.print_fn: before print_to */
    void *print_user;
    void (*on_deadline)(void *user, double armed, double deadline); /* tpScriptDef.on_deadline */
    void *on_deadline_user;
} tplLimits;

/// lua_Alloc counting into the tplLimits ud and refusing to grow past max_bytes.
void *tplAlloc(void *ud, void *ptr, size_t osize, size_t nsize);
/// The limits of L's main state.
tplLimits *tplGetLimits(lua_State *L);
/// Sets __metatable on every metatable of ours (registry "tp.*"): a script can neither read
/// nor replace the methods and __gc of the host's userdata.
void tplLockMetatables(lua_State *L);
/// Stores lim in L's extra space and installs the count hook.
void tplInstallLimits(lua_State *L, tplLimits *lim);
/// Opens the allow-listed libraries (see sandbox.c) with our print, load, require, pcall...
void tplOpenSandbox(lua_State *L);
/// Arms the deadline now + seconds (0 = none), or the run's deadline if that comes first;
/// `what` (kept, not copied: a buffer of the limits) names it. Arms do not nest.
void tplArm(lua_State *L, double seconds, const char *what);
/// No deadline (between callbacks, after loading).
void tplDisarm(lua_State *L);
/// Counts `bytes` of C memory about to be held by a Lua handle against the memory limit; raises
/// the memory-limit error (file:line) when it does not fit. Undo with tplUncharge.
void tplCharge(lua_State *L, size_t bytes);
void tplUncharge(lua_State *L, size_t bytes);
/// Trips the time limit from a C function that checked the deadline itself (a long
/// computation out of the hook's sight) and raises "file:line: time limit exceeded (...)".
int tplLimitExceeded(lua_State *L);
/// For C functions that loop without running Lua instructions (the bounded string and table
/// functions of bounded.c): raises the limit error when a limit has tripped or the armed
/// deadline has passed, as the hook would.
void tplCheckLimits(lua_State *L);
/// Raises the limit error again when a limit has tripped in this state (after every protected call
/// a script can make); else nothing (limits.c).
void tplRethrow(lua_State *L);
/// Trips limit `kind` (TPL_TRIP_*) from a C function, naming the nearest script line, and raises
/// the limit error (a limit already tripped is raised as it is).
int tplTripFromC(lua_State *L, int kind);
/// Replaces the library functions that can loop long in one C call (string matching, string.rep,
/// table.move/insert/remove/sort) by versions that call tplCheckLimits as they go (bounded.c).
void tplOpenBounded(lua_State *L);
/// The message of the error at idx, or the limit's message when a limit tripped.
const char *tplErrorText(lua_State *L, int idx);
/// Pushes "<script dir><name>" for a data file a script names; raises (naming `what`) when
/// name is absolute or has a ".." component, or the script has no folder.
const char *tplDataPath(lua_State *L, const char *what, const char *name);
/// True when path (from tplDataPath; existing) resolves inside the script's folder; else a message in err.
bool tplConfined(lua_State *L, const char *path, char *err, size_t errlen);
/// The bytes of a file of the script's folder (path from tplDataPath: "<script dir><name>"), with
/// a NUL after them (malloc'd; the caller frees): from the disk, confined to the folder
/// (tplConfined), or from the plan's files when the script came from one. Records the file for
/// tpScript_Files (raises when a file read twice changed in between). NULL with a message naming
/// the path in err.
char *tplReadData(lua_State *L, const char *path, size_t max_bytes, size_t *len, char *err, size_t errlen);
/// True when the script's folder holds path (from tplDataPath): on the disk (a dangling link
/// counts, so that reading it reports it), or among the plan's files.
bool tplDataExists(lua_State *L, const char *path);
/// Records a file the script read (copies path and bytes) for tpScript_Files. Returns 1 when new,
/// 0 when the same bytes were recorded before, -1 when different bytes were (the file changed),
/// -2 when out of memory.
int tplRecordFile(tplLimits *lim, const char *path, const void *data, size_t len);
/// Frees the recorded files.
void tplFreeFiles(tplLimits *lim);

/// The loaded script (tp/lua.h's tpScript; script.c makes and frees it).
struct tpScript {
    lua_State *L;
    tplLimits limits; /* the state's allocator and hook read it: freed after lua_close */
    tpDomain *domain; /* owned by the tp.domain userdata kept in the registry */
    char hash[32];
    char *name; /* how messages name the script (tpScript_Name) */
    char *params_json;
    char *params_info_json; /* the declared parameters (tpScript_ParamsInfoJson) */
};

/* ------------------------------------------------------------------------------------------ */
/* Invariants (lua_validate.c): `bool valid(obj, why, cap)`, false with the first broken rule in  */
/* why, run through TP_VALIDATE (tp/base.h) where the object is made or changed.                 */

/// A state's limits: used + external bytes within max_bytes, a known trip (with its message), the
/// buffers terminated, deadlines finite >= 0 and named by one of the limits' buffers, a call limit
/// > 0, the files read within their array (paths unique, bytes NUL-terminated), the plan's files.
bool tplLimits_Valid(const tplLimits *lim, char *why, size_t cap);
/// A loaded script: its state, domain and name, the limits' path its name, the hash
/// "fnv1a64:<16 hex>", the parameters' JSON an object and an array, the script first among the
/// files read, no deadline armed (between callbacks), and valid limits.
bool tplScript_Valid(const tpScript *s, char *why, size_t cap);
/// tp.domain's result once built: its state and domain, the five registry references, the quality
/// and solution function ids (>= 1, or -1 = none), its strings terminated.
bool tplDomain_Valid(const tplDomain *d, char *why, size_t cap);
/// tp.tactic: a name, 1..k skills with the start among them, Π (k x k, finite, >= 0) and the dynamic
/// flags in one block, a dynamic row's constant entries all 0.
bool tplTactic_Valid(const tplTactic *t, char *why, size_t cap);
/// A condition constructor's userdata: a kind a script can make, depth 1 for a leaf and 2..64 for a
/// group, the body names it needs, finite centre, radius and value >= 0, lo <= hi, a time window
/// 0 <= t0 <= t1 (finite), and tp.arranged's fraction and dimension (0 for every other kind).
bool tplCond_Valid(const tplCond *c, char *why, size_t cap);
/// A metric constructor's userdata: a kind a script can make, its body (distance), a finite point,
/// 0..16 named bodies.
bool tplMetric_Valid(const tplMetric *m, char *why, size_t cap);
/// tp.skill.<kind>: names terminated, the def valid (tpSkillDef_Valid), the body and joint fields
/// given by name at the offset of a TP_FIELD_BODY / TP_FIELD_JOINT field of the kind (0 = none).
bool tplSkill_Valid(const tplSkill *s, char *why, size_t cap);
/// tp.box and the other bodies: a name, its constructor, shape and class in range (a plane or a
/// marker static), mass, limits and damping finite >= 0, finite pose and velocities, a non-zero
/// quaternion.
bool tplBody_Valid(const tplBody *b, char *why, size_t cap);
/// tp.joint: a body and another (or the world, ""), a kind, a second anchor only on a distance
/// joint, a name when a motor is driven.
bool tplJoint_Valid(const tplJoint *j, char *why, size_t cap);
/// tp.contact: material names terminated, each coefficient NAN (the mixing rule) or finite >= 0,
/// restitution at most 1.
bool tplContact_Valid(const tplContact *c, char *why, size_t cap);

/* Host callbacks (host.c); `user` is a tplDomain. */
int tplPiCallback(void *user, int tactic, int sigma, const tpStateView *x, double *probs);
int tplCondCallback(void *user, int id, const tpStateView *x);
/// tpMotionFn of tp.motion: runs function `id` at t (three times, for finite-difference
/// velocities, when it returns none) and checks what it returned.
bool tplMotionCallback(void *user, int id, double t, tpBodyState *out, char *err, size_t errlen);
#define TPL_MOTION_FD_STEP 1e-3 /* s: step of the central differences of tp.motion velocities */
double tplMetricCallback(void *user, int id, const tpStateView *states, const double *const *actions, int len);
int tplSkillCallback(void *user, int skill_id, tpSkillCall *call);

/// Message handler: stringifies non-string errors; appends a Lua stack traceback only when the
/// environment variable TPLAN_TRACEBACK is set (not "0"): by default a message is one line.
int tplMsgHandler(lua_State *L);
/// Copies msg into out, replacing a leading shortened chunk id ("...ipts/x.lua:3:") by the
/// full path, so every message starts with the path as given.
void tplFixPath(char *out, size_t cap, const char *msg, const char *path, const char *short_src);
/// Pushes msg with a leading shortened chunk id of `path` ("...ory/helper.lua:3:") replaced by
/// the full path (msg unchanged otherwise); returns the pushed string.
const char *tplPushFullPath(lua_State *L, const char *msg, const char *path);

#endif
