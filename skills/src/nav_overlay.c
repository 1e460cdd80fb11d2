/* Overlay emission of the navigation skills: converts what nav_to, follow_field and drive_track
 * computed (grids, paths, harmonic fields, local maps, clip search trees) into plan overlays
 * (tp/plan.h, tpOverlaySink). Only called while a plan is recorded (tpSkillCall.overlay != NULL),
 * never while planning. Everything here is a pure function of its inputs, so recordings stay
 * byte-identical. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nav_overlay.h"
#include "skill_validate.h"
#include "tp/base.h"
#include "tp/util.h"

void tpNavOverlay_Grid(tpOverlaySink *s, const tpNavGrid *g)
{
    const tpNavGridDef *d = tpNavGrid_Def(g);
    tpPlanOverlay o;
    memset(&o, 0, sizeof o);
    o.kind = TP_OVERLAY_GRID;
    o.origin[0] = d->x0;
    o.origin[1] = d->y0;
    o.cell = d->cell;
    o.nx = d->nx;
    o.ny = d->ny;
    o.cells = malloc((size_t)d->nx * (size_t)d->ny);
    if (!o.cells) {
        s->failed = true;
        return;
    }
    for (int j = 0; j < d->ny; ++j) {
        for (int i = 0; i < d->nx; ++i) {
            o.cells[(size_t)j * d->nx + i] = (uint8_t)tpNavGrid_Cell(g, i, j);
        }
    }
    tpOverlaySink_Add(s, &o);
}

void tpNavOverlay_Path(tpOverlaySink *s, const double *points, int npoints)
{
    if (npoints < 1) {
        return;
    }
    tpPlanOverlay o;
    memset(&o, 0, sizeof o);
    o.kind = TP_OVERLAY_PATH;
    o.npoints = npoints;
    o.points = malloc(2 * (size_t)npoints * sizeof *o.points);
    if (!o.points) {
        s->failed = true;
        return;
    }
    memcpy(o.points, points, 2 * (size_t)npoints * sizeof *o.points);
    tpOverlaySink_Add(s, &o);
}

/* log10 of a closeness rounded to 1e-3 (NaN for u <= 0): compact in the file, plenty for display. */
static double roundedLog(double u)
{
    return u > 0 ? round(log10(u) * 1000.0) / 1000.0 : NAN;
}

void tpNavOverlay_Field(tpOverlaySink *s, const tpNavGrid *g, const tpNavField *f)
{
    const tpNavGridDef *d = tpNavGrid_Def(g);
    /* decimated to at most TP_NAV_OVERLAY_FIELD_SIDE cells a side: coarse cell (I, J) of k x k
       grid cells takes the value of the grid cell at its middle (clamped to the grid) */
    int side = d->nx > d->ny ? d->nx : d->ny;
    int k = (side + TP_NAV_OVERLAY_FIELD_SIDE - 1) / TP_NAV_OVERLAY_FIELD_SIDE;
    tpPlanOverlay o;
    memset(&o, 0, sizeof o);
    o.kind = TP_OVERLAY_FIELD;
    o.origin[0] = d->x0;
    o.origin[1] = d->y0;
    o.cell = k * d->cell;
    o.nx = (d->nx + k - 1) / k;
    o.ny = (d->ny + k - 1) / k;
    o.values = malloc((size_t)o.nx * (size_t)o.ny * sizeof *o.values);
    if (!o.values) {
        s->failed = true;
        return;
    }
    for (int j = 0; j < o.ny; ++j) {
        int gj = j * k + k / 2 < d->ny ? j * k + k / 2 : d->ny - 1;
        for (int i = 0; i < o.nx; ++i) {
            int gi = i * k + k / 2 < d->nx ? i * k + k / 2 : d->nx - 1;
            o.values[(size_t)j * o.nx + i] = roundedLog(tpNavField_Closeness(f, gi, gj));
        }
    }
    tpOverlaySink_Add(s, &o);
}

void tpNavOverlay_Window(tpOverlaySink *s, const tpNavGrid *g, const double pos[2], int n, const double *phi)
{
    int every = s->window_every > 0 ? s->window_every : 1;
    int ci, cj;
    if ((s->step - s->seg_start) % every != 0 || !tpNavGrid_CellOf(g, pos[0], pos[1], &ci, &cj)) {
        return;
    }
    const tpNavGridDef *d = tpNavGrid_Def(g);
    const int h = n / 2;
    tpPlanOverlay o;
    memset(&o, 0, sizeof o);
    o.kind = TP_OVERLAY_WINDOW;
    o.origin[0] = d->x0 + (ci - h) * d->cell; /* the local map's corner, as in tpNav_LocalStep */
    o.origin[1] = d->y0 + (cj - h) * d->cell;
    o.cell = d->cell;
    o.nx = o.ny = n;
    o.levels = malloc((size_t)n * (size_t)n);
    if (!o.levels) {
        s->failed = true;
        return;
    }
    double lo = 0.0;
    for (int q = 0; q < n * n; ++q) {
        double u = 1.0 - phi[q];
        lo = u > 0 ? fmin(lo, log10(u)) : lo;
    }
    o.vmin = fmin(floor(lo), -1.0);
    for (int q = 0; q < n * n; ++q) {
        double u = 1.0 - phi[q];
        o.levels[q] = u > 0 ? (uint8_t)lround(254.0 * (log10(u) - o.vmin) / -o.vmin) : TP_OVERLAY_NONE;
    }
    tpOverlaySink_Add(s, &o);
}

void tpNavOverlay_TreeNode(void *user, int id, int parent, int clip, const double pose[3])
{
    (void)clip;
    tpNavOverlayTree *t = user;
    if (t->failed || id != t->n) { /* ids come in order 0, 1, 2, ... */
        t->failed = true;
        return;
    }
    if ((size_t)t->n == t->cap) {
        size_t cap = tpArray_NextCap(t->cap, t->cap + 1, 2 * sizeof(double));
        double *p = cap ? tpArray_Resize(t->points, cap, 2 * sizeof *p) : NULL;
        int32_t *q = p ? tpArray_Resize(t->parent, cap, sizeof *q) : NULL;
        if (p) {
            t->points = p;
        }
        if (!q) {
            t->failed = true;
            return;
        }
        t->parent = q;
        t->cap = cap;
    }
    t->points[2 * t->n] = pose[0];
    t->points[2 * t->n + 1] = pose[1];
    t->parent[t->n++] = parent;
}

void tpNavOverlay_Tree(tpOverlaySink *s, tpNavOverlayTree *t, int best)
{
    TP_VALIDATE(tpNavOverlayTree_Valid, t);
    if (t->failed || t->n < 1) {
        s->failed = s->failed || t->failed;
        free(t->points);
        free(t->parent);
        memset(t, 0, sizeof *t);
        return;
    }
    tpPlanOverlay o;
    memset(&o, 0, sizeof o);
    o.kind = TP_OVERLAY_TREE;
    o.npoints = t->n;
    o.points = t->points;
    o.parent = t->parent;
    o.chosen = calloc((size_t)t->n, 1);
    memset(t, 0, sizeof *t);
    if (!o.chosen) {
        s->failed = true;
        tpPlanOverlay_Free(&o);
        return;
    }
    for (int k = best; k >= 0 && k < o.npoints; k = o.parent[k]) {
        o.chosen[k] = 1;
    }
    tpOverlaySink_Add(s, &o);
}
