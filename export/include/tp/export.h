/* tplan export: plan recordings to glTF 2.0 (.glb / .gltf + .bin) and CSV for offline animation
 * (Blender, game engines, ffmpeg pipelines). Reads only recordings (tp/plan.h): links tp_core only.
 * Formats and axis conventions: docs/export.md. */
#ifndef TP_EXPORT_H
#define TP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Output formats of tpExport_Write.
typedef enum {
    TP_EXPORT_GLB = 0, /* one binary glTF 2.0 file */
    TP_EXPORT_GLTF,    /* glTF 2.0 JSON + a .bin beside it (same base name) */
    TP_EXPORT_CSV,     /* a folder with states.csv and controls.csv (and motors.csv for a plan with
                          driven joint motors: step, t, joint, axis, target) */
} tpExportFormat;

/// One axis of an exported joint (as physics' tpJointAxisDef): limit, spring, motor.
typedef struct tpExportJointAxis {
    bool limit;
    double lo, hi;                   /* rad or m */
    double stiffness, damping, rest; /* a spring when stiffness > 0 (N m/rad or N/m, N m s/rad or N s/m, rad or m) */
    bool motor;
    double speed, max_force; /* rad/s or m/s; N m or N */
} tpExportJointAxis;

/// A joint of the plan's domain, for the glTF writer's OMI_physics_joint (a recording does not keep
/// its joints: `tplan export` reads them from the plan's own script).
typedef struct tpExportJoint {
    char name[64];    /* "" = unnamed */
    const char *kind; /* "hinge", "slider", "ball", "fixed", "universal", "hinge2" or "distance" (static) */
    int a, b;         /* body indices of the record; b = -1: the world */
    double anchor[3], anchor2[3], axis[3], axis2[3]; /* m, unit: world frame (z up) at the initial poses */
    double length;                                   /* distance: m */
    bool collide;
    tpExportJointAxis axes[2];
} tpExportJoint;

/// Whether the glTF writer can carry joint j as OMI_physics_joint: every kind but a hinge2 whose
/// steering and spin axes are not perpendicular (OMI has no wheel joint: a hinge2 is written as the
/// 6-DOF joint of a universal, its suspension a linear spring along the steering axis, marked
/// extras.tplan_kind = "hinge2" for tp.scene; docs/export.md). False with the reason in why.
bool tpExport_JointWritable(const tpExportJoint *j, char *why, size_t whylen);

/// One node of the glTF file the plan's scene came from (tp.scene), for an export that writes the
/// file's own tree of nodes back (tpExportSource).
typedef struct tpExportSourceNode {
    char name[64];    /* the node's name ("" = none) */
    int parent;       /* index of its parent in the source's nodes, -1: a root of the scene */
    int body;         /* the record body this node is (a body node, by name), -1: none */
    double world[12]; /* row-major 3x4 [R S | t]: the node's world transform in the file (glTF axes, y up, m) */
    bool collider;    /* the node carries a collider in the file (not being a body node itself) */
} tpExportSourceNode;

/// The node tree of the scene's glTF file (parents before children is not required). A body's node
/// is written at the body's place in the tree, animated relative to its parent, which must be a
/// still node (not a body) without scale; every other node keeps its name and its place, without
/// the file's meshes and physics (the body nodes carry tplan's). Joint nodes of the file are left out
/// (the export writes its own). NULL: the flat layout (every body a root).
typedef struct tpExportSource {
    int nnodes;
    const tpExportSourceNode *nodes; /* nnodes (not owned) */
} tpExportSource;

/// Why `src` cannot be written as a tree for `rec` (a body under another body, a body's parent with a
/// scale or a shear, a parent index out of range): false with the reason, naming the node, in why.
bool tpExport_SourceUsable(const tpExportSource *src, const tpPlanRecord *rec, char *why, size_t whylen);

/// What the recording does not keep of the scene's physics: the bodies' masses and the joints.
typedef struct tpExportPhysics {
    const double *mass; /* per body of the record (nbodies), kg; 0 = static, scripted or unknown */
    int njoints;
    const tpExportJoint *joints;  /* njoints */
    const tpExportSource *source; /* the scene's glTF tree (tp.scene), NULL: the flat layout */
} tpExportPhysics;

/// What to export and how. Get one from tpDefaultExportDef(); the writer keeps no pointer to it.
typedef struct tpExportDef {
    tpExportFormat format;
    int world;                      /* solution exported as the main animation / CSV: 0 = the selected one */
    double tolerance;               /* m: keyframe reduction of translations; 0 = a key at every step */
    double angle_tolerance;         /* rad: reduction of rotations; < 0 = tolerance / the body's bounding
                                       radius (a surface point then moves at most `tolerance` more) */
    bool alternatives;              /* glTF: one more animation per other many-worlds solution */
    bool overlays;                  /* glTF: the navigation paths of the plan as line meshes */
    const tpTreeRecord *tree;       /* glTF: the search tree as a line mesh; NULL = none (not owned) */
    const tpExportPhysics *physics; /* glTF: masses and joints for the OMI extensions (every body is
                                       written with OMI_physics_body / OMI_physics_shape); NULL = none
                                       known: no masses, no joints (not owned) */
} tpExportDef;

/// Default definition: GLB, selected world, no reduction, no extras.
tpExportDef tpDefaultExportDef(void);

/// Figures of one export (for the CLI's summary and the tests).
typedef struct tpExportStats {
    int64_t keys_full;  /* animation keys without reduction (steps + 1 per moving body and channel) */
    int64_t keys_kept;  /* keys written */
    double max_pos_err; /* m: largest translation error of the written keys at any step (float32 included) */
    double max_ang_err; /* rad: largest rotation error at any step */
    int64_t bytes;      /* bytes written (all files) */
    int nodes, meshes, materials, animations;
} tpExportStats;

/// Writes rec (validated by tpPlanRecord_Read) to path in def->format. Files are written under a
/// temporary name in the same directory and renamed at the end, so a failure leaves no partial
/// output. stats may be NULL. On failure returns false with one line in err.
bool tpExport_Write(const tpPlanRecord *rec, const char *path, const tpExportDef *def, tpExportStats *stats, char *err,
                    size_t errlen);

/* ------------------------------------------------------------------------------------------ */
/* Pieces of the writer, public for the unit tests.                                           */

/// tplan's z-up world (x, y, z) to glTF's y-up (x, z, -y) (what Blender's exporter does).
void tpExport_VecToYup(const double v[3], double out[3]);
/// A z-up rotation (w, x, y, z) to the y-up glTF quaternion (x, y, z, w), normalised.
void tpExport_QuatToYup(const double q_wxyz[4], double out_xyzw[4]);
/// Makes a sequence of n quaternions (4 doubles each, any component order) sign-continuous in
/// place: each is negated when its dot product with the previous one is negative. q may be NULL if n is 0.
void tpExport_QuatContinuity(double *q, int n);

/// Channel kinds of the keyframe reducer.
typedef enum { TP_KEYS_TRANSLATION = 0, TP_KEYS_ROTATION } tpKeyChannel;

/// Keyframe reduction of one channel of n >= 1 samples at times[i] (s, strictly increasing):
/// stored[i] is the value as written (float32, 3 or 4 per sample; rotations x, y, z, w, unit,
/// sign-continuous), exact[i] the plan's value (double, same layout). Marks in keep[] (n bytes)
/// the keys to write, always the first and the last, so that interpolating the kept stored keys
/// (LINEAR: lerp; rotations: slerp and also per-component lerp normalised, as Blender samples)
/// at every times[i] is within tol of exact[i] (m for translations, rad of rotation angle).
/// Returns the number of keys kept; *max_err gets the largest error at any sample (may be NULL).
int tpExport_ReduceKeys(tpKeyChannel channel, const float *times, const float *stored, const double *exact, int n,
                        double tol, uint8_t *keep, double *max_err);
/// Error (m or rad) of the channel interpolated between stored keys a < b at sample i (a <= i <= b).
double tpExport_KeyError(tpKeyChannel channel, const float *times, const float *stored, const double *exact, int a,
                         int b, int i);

#ifdef __cplusplus
}
#endif
#endif
