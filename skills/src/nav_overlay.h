/* Private: overlay emission of the navigation skills (nav_overlay.c), used by nav_skill.c only
 * while a plan is recorded (tpSkillCall.overlay != NULL). */
#ifndef TP_NAV_OVERLAY_H
#define TP_NAV_OVERLAY_H

#include "tp/nav.h"
#include "tp/plan.h"

/// The occupancy grid (free / obstacle / grown per cell).
void tpNavOverlay_Grid(tpOverlaySink *sink, const tpNavGrid *grid);
/// A planned polyline (npoints x (x, y), m).
void tpNavOverlay_Path(tpOverlaySink *sink, const double *points, int npoints);
#define TP_NAV_OVERLAY_FIELD_SIDE 250 /* fields are decimated to at most this many cells a side */

/// The harmonic map of `field` on `grid`, as log10 of the closeness u (rounded to 1e-3), decimated
/// to at most TP_NAV_OVERLAY_FIELD_SIDE cells a side (every k-th cell, k = ceil(side / 250)).
void tpNavOverlay_Field(tpOverlaySink *sink, const tpNavGrid *grid, const tpNavField *field);
/// The n x n local map phi centred on the cell of pos (as tpNav_LocalStep lays it out), quantized;
/// kept only every sink->window_every steps of the owner's segment.
void tpNavOverlay_Window(tpOverlaySink *sink, const tpNavGrid *grid, const double pos[2], int n, const double *phi);

/// Collects a clip search tree through tpNavCarPlanDef.on_node. Zero-initialise.
typedef struct tpNavOverlayTree {
    int n;           /* nodes collected */
    size_t cap;      /* nodes points and parent have room for */
    double *points;  /* n x (x, y), m (owned until tpNavOverlay_Tree) */
    int32_t *parent; /* n: parent node, -1 for the root (owned until tpNavOverlay_Tree) */
    bool failed;     /* an allocation failed or a node came out of order */
} tpNavOverlayTree;

/// tpNavCarPlanDef.on_node callback (user = a tpNavOverlayTree).
void tpNavOverlay_TreeNode(void *user, int id, int parent, int clip, const double pose[3]);
/// Emits the collected tree with the chosen path (best = tpNavCarDecision.best) and empties it.
void tpNavOverlay_Tree(tpOverlaySink *sink, tpNavOverlayTree *tree, int best);

#endif
