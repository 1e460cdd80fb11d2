/* The viewer's invariants (internal.h): a camera (tpViewCamera_Valid: finite target and angles, a
 * positive distance, a field of view within (0, pi), a pitch short of the poles), a frame
 * (tpVFrame_Valid: its size, time, layers and camera) and a scene's CPU side (tpVScene_Valid: the
 * world shown, the shape meshes and each body's own, the palette of the moving bodies, the bounds,
 * the trails' vertex ranges, the tree's bodies and counts against its buffer, the cache's progress,
 * the overlays' colours). Run through TP_VALIDATE when a scene is built or changes (world, tree)
 * and at every frame drawn, in Debug and sanitizer builds; tests/viewer/test_viewer_validate.c
 * breaks each rule once. Reads only; no OpenGL call. */
#include <math.h>

#include "internal.h"
#include "tp/base.h"

bool tpViewCamera_Valid(const tpViewCamera *c, char *why, size_t cap)
{
    if (!isfinite(c->target[0]) || !isfinite(c->target[1]) || !isfinite(c->target[2]) || !isfinite(c->yaw)) {
        return tpBroken(why, cap, "camera: target (%g, %g, %g) or yaw %g not finite", c->target[0], c->target[1],
                        c->target[2], c->yaw);
    }
    if (!(fabs(c->pitch) < 0.5 * TP_PI)) {
        return tpBroken(why, cap, "camera: pitch %g rad (within (-pi/2, pi/2): the eye never above the target)",
                        c->pitch);
    }
    if (!(c->dist > 0) || !isfinite(c->dist)) {
        return tpBroken(why, cap, "camera: distance %g m", c->dist);
    }
    if (!(c->fovy > 0 && c->fovy < TP_PI)) {
        return tpBroken(why, cap, "camera: field of view %g rad", c->fovy);
    }
    return true;
}

bool tpVFrame_Valid(const tpVFrame *f, char *why, size_t cap)
{
    if (f->width <= 0 || f->height <= 0) {
        return tpBroken(why, cap, "frame: %d x %d pixels", f->width, f->height);
    }
    if (!(f->t >= 0) || !isfinite(f->t)) {
        return tpBroken(why, cap, "frame: time %g s", f->t);
    }
    if (f->nav & ~(unsigned)TP_VIEW_NAV_ALL) {
        return tpBroken(why, cap, "frame: navigation layers 0x%x", f->nav);
    }
    return tpViewCamera_Valid(&f->cam, why, cap);
}

static bool valid_meshes(const tpVScene *sc, char *why, size_t cap)
{
    const tpPlanRecord *rec = sc->rec;
    if (sc->world < -1 || sc->world >= rec->nworlds) {
        return tpBroken(why, cap, "scene: world %d of %d", sc->world, rec->nworlds);
    }
    for (int i = 0; i < TP_MESH_COUNT; i++) {
        if (sc->mesh_verts[i] <= 0 || sc->mesh_verts[i] % 3 != 0 || !sc->mesh_vbo[i]) {
            return tpBroken(why, cap, "scene: shape mesh %d has %d vertices in buffer %u", i, sc->mesh_verts[i],
                            (unsigned)sc->mesh_vbo[i]);
        }
    }
    for (int b = 0; b < rec->nbodies; b++) {
        if (sc->body_verts[b] < 0 || sc->body_verts[b] % 3 != 0 || (sc->body_verts[b] > 0) != (sc->body_vbo[b] != 0)) {
            return tpBroken(why, cap, "scene: body %d has %d vertices of its own in buffer %u", b, sc->body_verts[b],
                            (unsigned)sc->body_vbo[b]);
        }
    }
    int nmoving = 0;
    for (int b = 0; b < rec->nbodies; b++) {
        if (sc->palette[b] != (rec->bodies[b].moving ? nmoving++ : -1)) {
            return tpBroken(why, cap, "scene: body %d has palette entry %d (%d moving bodies before it)", b,
                            sc->palette[b], rec->bodies[b].moving ? nmoving - 1 : nmoving);
        }
    }
    for (int k = 0; k < 3; k++) {
        if (!(sc->lo[k] <= sc->hi[k]) || !isfinite(sc->lo[k]) || !isfinite(sc->hi[k])) {
            return tpBroken(why, cap, "scene: bounds [%g, %g] on axis %d", sc->lo[k], sc->hi[k], k);
        }
    }
    return true;
}

/* The trails of the world shown: one range of trail_len vertices per moving body with a
 * trajectory, in body order, none for the others. */
static bool valid_trails(const tpVScene *sc, char *why, size_t cap)
{
    const tpPlanRecord *rec = sc->rec;
    if (sc->world < 0) {
        return true;
    }
    const tpPlanWorld *w = &rec->worlds[sc->world];
    if (sc->trail_len != w->nsteps + 1 || !sc->trail_vbo) {
        return tpBroken(why, cap, "trails: %d vertices per body for a world of %d steps", sc->trail_len, w->nsteps);
    }
    int next = 0;
    for (int b = 0; b < rec->nbodies; b++) {
        const bool has = rec->bodies[b].moving && w->traj && w->traj[b];
        if (sc->trail_first[b] != (has ? next : -1)) {
            return tpBroken(why, cap, "trails: body %d's first vertex %d (expected %d)", b, sc->trail_first[b],
                            has ? next : -1);
        }
        next += has ? sc->trail_len : 0;
    }
    return true;
}

static bool valid_tree(const tpVScene *sc, char *why, size_t cap)
{
    const tpPlanRecord *rec = sc->rec;
    if (!sc->has_tree) {
        if (sc->tree_nbodies || sc->tree_nnodes || sc->tree_cap || sc->tree_nsel || sc->tree_ngoal) {
            return tpBroken(why, cap, "tree: none, yet %d bodies, %lld nodes", sc->tree_nbodies,
                            (long long)sc->tree_nnodes);
        }
        return true;
    }
    if (sc->tree_nbodies < 0 || sc->tree_nbodies > sc->tree_nbodies_file || !sc->tree_body || !sc->tree_names) {
        return tpBroken(why, cap, "tree: %d bodies drawn of %d", sc->tree_nbodies, sc->tree_nbodies_file);
    }
    for (int i = 0; i < sc->tree_nbodies_file; i++) {
        const int b = sc->tree_body[i];
        if (b < 0 || b >= rec->nbodies || !rec->bodies[b].moving) {
            return tpBroken(why, cap, "tree: body %d is plan body %d, not a moving one", i, b);
        }
    }
    for (int i = 0; i < sc->tree_nbodies; i++) {
        if (!sc->tree_names[i]) {
            return tpBroken(why, cap, "tree: body %d has no name", i);
        }
    }
    if (sc->tree_nnodes < 0 || sc->tree_nnodes > sc->tree_cap || !sc->tree_vbo) {
        return tpBroken(why, cap, "tree: %lld nodes in a buffer of %lld", (long long)sc->tree_nnodes,
                        (long long)sc->tree_cap);
    }
    if (sc->tree_nsel < 0 || sc->tree_nsel > sc->tree_nnodes || sc->tree_ngoal < 0 ||
        sc->tree_ngoal > sc->tree_nnodes) {
        return tpBroken(why, cap, "tree: %lld selected segments, %lld goal nodes of %lld nodes",
                        (long long)sc->tree_nsel, (long long)sc->tree_ngoal, (long long)sc->tree_nnodes);
    }
    return true;
}

static bool valid_cache(const tpVScene *sc, char *why, size_t cap)
{
    if (sc->cache_w < 0 || sc->cache_h < 0 || (sc->cache_valid && (!sc->cache_fbo || !sc->cache_w))) {
        return tpBroken(why, cap, "cache: %d x %d, valid %d, framebuffer %u", sc->cache_w, sc->cache_h, sc->cache_valid,
                        (unsigned)sc->cache_fbo);
    }
    if (sc->cache_progress < 0 || sc->cache_generation > sc->generation) {
        return tpBroken(why, cap, "cache: progress %lld, generation %u of %u", (long long)sc->cache_progress,
                        sc->cache_generation, sc->generation);
    }
    const tpPlanRecord *rec = sc->rec;
    for (int k = 0; k < rec->noverlays; k++) {
        const tpPlanOverlay *o = &rec->overlays[k];
        const bool coloured = o->kind == TP_OVERLAY_FIELD || o->kind == TP_OVERLAY_WINDOW;
        if (coloured != (sc->nav_rgba && sc->nav_rgba[k] != NULL)) {
            return tpBroken(why, cap, "overlay %d: of kind %d, colours %s", k, (int)o->kind,
                            coloured ? "missing" : "made");
        }
        for (size_t i = 0; coloured && i < (size_t)o->nx * (size_t)o->ny * 4; i++) {
            const float c = sc->nav_rgba[k][i];
            if (!(c >= 0.0f && c <= 1.0f)) {
                return tpBroken(why, cap, "overlay %d: colour component %zu is %g", k, i, (double)c);
            }
        }
    }
    return true;
}

bool tpVScene_Valid(const tpVScene *sc, char *why, size_t cap)
{
    if (!sc->rec || !sc->palette || !sc->trail_first || !sc->body_vbo || !sc->body_verts) {
        return tpBroken(why, cap, "scene: no recording or a per-body array missing");
    }
    return valid_meshes(sc, why, cap) && valid_trails(sc, why, cap) && valid_tree(sc, why, cap) &&
           valid_cache(sc, why, cap);
}
