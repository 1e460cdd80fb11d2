/* tplan viewer: the navigation overlays recorded in the plan ("overlays", docs/plan-format.md):
 * occupancy grids, harmonic potentials as a colour map with gradient arrows, planned paths, local
 * maps and vehicle search trees. The viewer only reads what the skills recorded; nothing is
 * recomputed. Layers lie flat just above the ground and are drawn after it without depth test,
 * before the bodies (which then cover them where they stand in front). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tp/base.h"

/* Viridis-like ramp, t in [0, 1] (0 dark blue: far from the goal, 1 yellow: at the goal). */
static void ramp(double t, float out[3])
{
    static const float c[5][3] = {{0.267f, 0.005f, 0.329f},
                                  {0.229f, 0.322f, 0.546f},
                                  {0.128f, 0.567f, 0.551f},
                                  {0.369f, 0.789f, 0.383f},
                                  {0.993f, 0.906f, 0.144f}};
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double x = t * 4;
    int k = (int)floor(x);
    k = k > 3 ? 3 : k;
    float f = (float)(x - k);
    for (int i = 0; i < 3; ++i) {
        out[i] = c[k][i] + f * (c[k + 1][i] - c[k][i]);
    }
}

typedef struct RankRef {
    double v;
    size_t k;
} RankRef;

static int cmp_rank(const void *a, const void *b)
{
    const RankRef *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v ? 1 : (x->k > y->k) - (x->k < y->k);
}

/* FIELD colours by rank (histogram equalised): log10 u spans hundreds of decades deep in a maze,
   so a linear scale would show one colour. Cells without a value stay transparent. */
static bool field_colours(const tpPlanOverlay *o, float *rgba)
{
    size_t nc = (size_t)o->nx * (size_t)o->ny, m = 0;
    RankRef *r = malloc((nc + 1) * sizeof *r);
    if (!r) {
        return false;
    }
    for (size_t k = 0; k < nc; ++k) {
        rgba[4 * k + 3] = 0;
        if (!isnan(o->values[k])) {
            r[m].v = o->values[k];
            r[m++].k = k;
        }
    }
    qsort(r, m, sizeof *r, cmp_rank);
    for (size_t q = 0; q < m; ++q) {
        float *c = rgba + 4 * r[q].k;
        ramp(m > 1 ? (double)q / (double)(m - 1) : 1.0, c);
        c[3] = 0.55f;
    }
    free(r);
    return true;
}

/* WINDOW colours: the level is already linear in log10 u over [vmin, 0]. */
static void window_colours(const tpPlanOverlay *o, float *rgba)
{
    size_t nc = (size_t)o->nx * (size_t)o->ny;
    for (size_t k = 0; k < nc; ++k) {
        float *c = rgba + 4 * k;
        if (o->levels[k] == TP_OVERLAY_NONE) {
            c[0] = 0.15f, c[1] = 0.15f, c[2] = 0.15f, c[3] = 0.6f; /* fixed cells (walls, others): dark */
        } else {
            ramp(o->levels[k] / 254.0, c);
            c[3] = 0.7f;
        }
    }
}

/* Height of the layers: the highest upward plane not above the lowest body, else the bottom of
   the scene, plus a few millimetres. */
static double ground_height(const tpVScene *sc)
{
    const tpPlanRecord *rec = sc->rec;
    double z = -INFINITY;
    for (int b = 0; b < rec->nbodies; ++b) {
        const tpPlanBody *pb = &rec->bodies[b];
        if (!pb->shape || strcmp(pb->shape, "plane") != 0) {
            continue;
        }
        double nl = sqrt(pb->size[0] * pb->size[0] + pb->size[1] * pb->size[1] + pb->size[2] * pb->size[2]);
        if (nl > 0 && pb->size[2] / nl > 0.99) {
            double h = pb->size[3] / pb->size[2];
            if (h <= sc->lo[2] + 1e-6 && h > z) {
                z = h;
            }
        }
    }
    return (isfinite(z) ? z : sc->lo[2]) + 0.004;
}

bool tpVNav_Init(tpVScene *sc, char *err, size_t errlen)
{
    const tpPlanRecord *rec = sc->rec;
    sc->nav_z = ground_height(sc);
    if (rec->noverlays <= 0) {
        return true;
    }
    sc->nav_rgba = calloc((size_t)rec->noverlays, sizeof *sc->nav_rgba);
    if (!sc->nav_rgba) {
        tpErrorf(err, errlen, "out of memory for the overlays");
        return false;
    }
    for (int k = 0; k < rec->noverlays; ++k) {
        const tpPlanOverlay *o = &rec->overlays[k];
        if (o->kind != TP_OVERLAY_FIELD && o->kind != TP_OVERLAY_WINDOW) {
            continue;
        }
        sc->nav_rgba[k] = malloc((size_t)o->nx * (size_t)o->ny * 4 * sizeof(float));
        if (!sc->nav_rgba[k] || (o->kind == TP_OVERLAY_FIELD && !field_colours(o, sc->nav_rgba[k]))) {
            tpErrorf(err, errlen, "out of memory for overlay %d", k);
            return false;
        }
        if (o->kind == TP_OVERLAY_WINDOW) {
            window_colours(o, sc->nav_rgba[k]);
        }
    }
    return true;
}

void tpVNav_Free(tpVScene *sc)
{
    if (sc->nav_rgba) {
        for (int k = 0; k < sc->rec->noverlays; ++k) {
            free(sc->nav_rgba[k]);
        }
    }
    free(sc->nav_rgba);
    sc->nav_rgba = NULL;
}

static bool at_step(const tpPlanOverlay *o, int step)
{
    return o->first <= step && step <= o->last;
}

int tpVNav_Focus(const tpPlanRecord *rec, int step)
{
    int any = -1;
    for (int k = 0; k < rec->noverlays; ++k) {
        const tpPlanOverlay *o = &rec->overlays[k];
        if ((o->kind != TP_OVERLAY_GRID && o->kind != TP_OVERLAY_FIELD) || !at_step(o, step)) {
            continue;
        }
        const char *body = rec->tactics[o->tactic].body;
        for (int b = 0; b < rec->nbodies; ++b) {
            if (strcmp(rec->bodies[b].name, body) == 0 && rec->bodies[b].cls &&
                strcmp(rec->bodies[b].cls, "active") == 0) {
                return o->tactic;
            }
        }
        if (any < 0) {
            any = o->tactic;
        }
    }
    return any;
}

/* Coloured cells of a grid-shaped layer (rgba per cell; alpha 0 cells skipped). */
static void draw_cells(const tpPlanOverlay *o, const float *rgba, double z)
{
    glBegin(GL_QUADS);
    for (int j = 0; j < o->ny; ++j) {
        double y0 = o->origin[1] + j * o->cell, y1 = y0 + o->cell;
        for (int i = 0; i < o->nx; ++i) {
            const float *c = rgba + 4 * ((size_t)j * o->nx + i);
            if (c[3] <= 0) {
                continue;
            }
            double x0 = o->origin[0] + i * o->cell, x1 = x0 + o->cell;
            glColor4fv(c);
            glVertex3d(x0, y0, z), glVertex3d(x1, y0, z), glVertex3d(x1, y1, z), glVertex3d(x0, y1, z);
        }
    }
    glEnd();
}

static void draw_outline(const tpPlanOverlay *o, double z)
{
    double x0 = o->origin[0], y0 = o->origin[1], x1 = x0 + o->nx * o->cell, y1 = y0 + o->ny * o->cell;
    glBegin(GL_LINE_LOOP);
    glVertex3d(x0, y0, z), glVertex3d(x1, y0, z), glVertex3d(x1, y1, z), glVertex3d(x0, y1, z);
    glEnd();
}

static void draw_grid(const tpPlanOverlay *o, double z)
{
    static const float obstacle[4] = {0.60f, 0.08f, 0.08f, 0.55f}, grown[4] = {1.0f, 0.55f, 0.10f, 0.35f};
    glBegin(GL_QUADS);
    for (int j = 0; j < o->ny; ++j) {
        double y0 = o->origin[1] + j * o->cell, y1 = y0 + o->cell;
        for (int i = 0; i < o->nx; ++i) {
            uint8_t f = o->cells[(size_t)j * o->nx + i];
            if (f == 0) {
                continue;
            }
            double x0 = o->origin[0] + i * o->cell, x1 = x0 + o->cell;
            glColor4fv(f == 1 ? obstacle : grown);
            glVertex3d(x0, y0, z), glVertex3d(x1, y0, z), glVertex3d(x1, y1, z), glVertex3d(x0, y1, z);
        }
    }
    glEnd();
    glColor4f(0.85f, 0.85f, 0.9f, 0.5f);
    glLineWidth(1);
    draw_outline(o, z);
}

/* Value of a field cell, NaN outside or without a value. */
static double field_at(const tpPlanOverlay *o, int i, int j)
{
    return (i < 0 || j < 0 || i >= o->nx || j >= o->ny) ? NAN : o->values[(size_t)j * o->nx + i];
}

/* One difference along an axis: central where both neighbours have values, else one-sided. */
static double diff(const tpPlanOverlay *o, int i, int j, int di, int dj)
{
    double c = field_at(o, i, j), p = field_at(o, i + di, j + dj), m = field_at(o, i - di, j - dj);
    if (!isnan(p) && !isnan(m)) {
        return 0.5 * (p - m);
    }
    return !isnan(p) ? p - c : !isnan(m) ? c - m : 0.0;
}

/* Gradient arrows (toward the goal: up the closeness u, down the potential phi) on every
   s-th cell, s chosen for about 30 arrows across the larger side. */
static void draw_arrows(const tpPlanOverlay *o, double z)
{
    int s = (o->nx > o->ny ? o->nx : o->ny) / 30;
    s = s < 1 ? 1 : s;
    double len = 0.75 * s * o->cell, head = 0.3 * len;
    glColor4f(1, 1, 1, 0.85f);
    glLineWidth(1.5f);
    glBegin(GL_LINES);
    for (int j = s / 2; j < o->ny; j += s) {
        for (int i = s / 2; i < o->nx; i += s) {
            if (isnan(field_at(o, i, j))) {
                continue;
            }
            double gx = diff(o, i, j, 1, 0), gy = diff(o, i, j, 0, 1), gl = hypot(gx, gy);
            if (!(gl > 0) || !isfinite(gl)) {
                continue;
            }
            gx /= gl, gy /= gl;
            double cx = o->origin[0] + (i + 0.5) * o->cell, cy = o->origin[1] + (j + 0.5) * o->cell;
            double ax = cx - 0.5 * len * gx, ay = cy - 0.5 * len * gy, bx = cx + 0.5 * len * gx,
                   by = cy + 0.5 * len * gy;
            glVertex3d(ax, ay, z), glVertex3d(bx, by, z);
            for (int side = -1; side <= 1; side += 2) { /* head: two strokes at +-30 degrees */
                double hx = -gx * 0.866 - side * gy * 0.5, hy = -gy * 0.866 + side * gx * 0.5;
                glVertex3d(bx, by, z), glVertex3d(bx + head * hx, by + head * hy, z);
            }
        }
    }
    glEnd();
    glLineWidth(1);
}

static void draw_path(const tpPlanOverlay *o, double z)
{
    glColor4f(1.0f, 0.15f, 0.85f, 1.0f); /* magenta (docs/viewer.md) */
    glLineWidth(3);
    glBegin(GL_LINE_STRIP);
    for (int k = 0; k < o->npoints; ++k) {
        glVertex3d(o->points[2 * k], o->points[2 * k + 1], z);
    }
    glEnd();
    glPointSize(7);
    glBegin(GL_POINTS);
    for (int k = 0; k < o->npoints; ++k) {
        glVertex3d(o->points[2 * k], o->points[2 * k + 1], z);
    }
    glEnd();
    glLineWidth(1);
}

static void draw_search_tree(const tpPlanOverlay *o, double z)
{
    glLineWidth(1);
    glColor4f(0.55f, 0.9f, 1.0f, 0.35f);
    glBegin(GL_LINES);
    for (int k = 1; k < o->npoints; ++k) {
        int p = o->parent[k];
        glVertex3d(o->points[2 * p], o->points[2 * p + 1], z), glVertex3d(o->points[2 * k], o->points[2 * k + 1], z);
    }
    glEnd();
    glLineWidth(3);
    glColor4f(1, 1, 1, 0.95f);
    glBegin(GL_LINES);
    for (int k = 1; k < o->npoints; ++k) {
        if (o->chosen[k]) {
            int p = o->parent[k];
            glVertex3d(o->points[2 * p], o->points[2 * p + 1], z);
            glVertex3d(o->points[2 * k], o->points[2 * k + 1], z);
        }
    }
    glEnd();
    glLineWidth(1);
}

void tpVNav_Draw(const tpVScene *sc, const tpVFrame *f)
{
    const tpPlanRecord *rec = sc->rec;
    if (sc->world != rec->selected || rec->nworlds < 1) {
        return; /* overlays were recorded from the selected solution */
    }
    int nsteps = rec->worlds[rec->selected].nsteps;
    int step = rec->dt > 0 ? (int)floor(f->t / rec->dt + 1e-9) : 0;
    step = step >= nsteps ? nsteps - 1 : step;
    step = step < 0 ? 0 : step;
    int focus = tpVNav_Focus(rec, step);
    double z = sc->nav_z;
    glDisable(GL_LIGHTING);
    glDisable(GL_DEPTH_TEST);
    glDepthMask(GL_FALSE);
    /* bottom to top: field, grid, windows, arrows, trees, paths */
    static const tpOverlayKind order[6] = {TP_OVERLAY_FIELD, TP_OVERLAY_GRID, TP_OVERLAY_WINDOW,
                                           TP_OVERLAY_FIELD, TP_OVERLAY_TREE, TP_OVERLAY_PATH};
    static const unsigned bit[6] = {TP_VIEW_NAV_FIELD,  TP_VIEW_NAV_GRID,  TP_VIEW_NAV_WINDOWS,
                                    TP_VIEW_NAV_ARROWS, TP_VIEW_NAV_TREES, TP_VIEW_NAV_PATHS};
    for (int pass = 0; pass < 6; ++pass) {
        if (!(f->nav & bit[pass])) {
            continue;
        }
        for (int k = 0; k < rec->noverlays; ++k) {
            const tpPlanOverlay *o = &rec->overlays[k];
            if (o->kind != order[pass] || !at_step(o, step)) {
                continue;
            }
            bool focused = o->tactic == focus;
            switch (pass) {
            case 0:
                if (focused) {
                    draw_cells(o, sc->nav_rgba[k], z);
                }
                break;
            case 1:
                if (focused) {
                    draw_grid(o, z);
                }
                break;
            case 2:
                draw_cells(o, sc->nav_rgba[k], z);
                glColor4f(1, 1, 1, 0.8f);
                draw_outline(o, z);
                break;
            case 3:
                if (focused) {
                    draw_arrows(o, z);
                }
                break;
            case 4:
                draw_search_tree(o, z);
                break;
            default:
                draw_path(o, z);
                break;
            }
        }
    }
    glDepthMask(GL_TRUE);
    glEnable(GL_DEPTH_TEST);
}
