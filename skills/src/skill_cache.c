/* The skill cache (tpSkillCache, tp/skills.h): what the navigation kinds share -- the static
 * bodies' navigation shapes, the bounds of their footprints per height band, their grown rasters
 * per grid definition and the search clock -- and one slot per kind (or family) for the kind's own
 * caches, which the kind fills and the cache frees with the destructor given with the slot. It
 * knows no kind: nav_skill.c, nav_path_skill.c and ride.c keep their caches in their slots.
 *
 * Everything is keyed by exactly its inputs, so a hit and a recomputation give the same result.
 * Belongs to the loaded domain; not thread-safe (a domain plans on one thread). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skill_cache.h"
#include "skill_internal.h"
#include "skill_validate.h"
#include "tp/base.h"
#include "tp/nav.h"

int tpSkill_NavShapes(const tpBodyDef *b, tpNavShape out[3])
{
    memset(out, 0, 3 * sizeof out[0]);
    if (b->marker) {
        return 0; /* drawn, never collides: not an obstacle */
    }
    const double *q = b->quat;
    /* body z axis in world: third column of the rotation */
    double zx = 2 * (q[1] * q[3] + q[0] * q[2]), zy = 2 * (q[2] * q[3] - q[0] * q[1]);
    bool vertical = fabs(zx) < 1e-9 && fabs(zy) < 1e-9;
    switch (b->shape) {
    case TP_SHAPE_BOX:
        out[0] = tpNav_ShapeBox(b->pos[0], b->pos[1], b->pos[2], b->size[0] / 2, b->size[1] / 2, b->size[2] / 2, 0);
        tpNav_ShapeSetQuat(&out[0], q);
        return 1;
    case TP_SHAPE_MESH: /* conservative: the oriented bounding box of its vertices (its parts') */
    case TP_SHAPE_COMPOUND: {
        double lo[3], hi[3], c[3], R[9], w[3];
        if (b->shape == TP_SHAPE_MESH)
            tpMesh_Bounds(&b->mesh, lo, hi);
        else
            tpCompound_Bounds(b, lo, hi);
        for (int k = 0; k < 3; ++k) {
            c[k] = 0.5 * (lo[k] + hi[k]);
        }
        tpQuat_ToMatrix(q, R);
        for (int k = 0; k < 3; ++k) {
            w[k] = b->pos[k] + R[3 * k] * c[0] + R[3 * k + 1] * c[1] + R[3 * k + 2] * c[2];
        }
        out[0] =
            tpNav_ShapeBox(w[0], w[1], w[2], 0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), 0.5 * (hi[2] - lo[2]), 0);
        tpNav_ShapeSetQuat(&out[0], q);
        return 1;
    }
    case TP_SHAPE_SPHERE:
        out[0].kind = TP_NAV_SPHERE;
        memcpy(out[0].center, b->pos, sizeof b->pos);
        out[0].radius = b->size[0];
        return 1;
    case TP_SHAPE_CYLINDER:
    case TP_SHAPE_CAPSULE: {
        double r = b->size[0], hl = b->size[1] / 2;
        bool capsule = b->shape == TP_SHAPE_CAPSULE;
        if (!vertical) { /* conservative: the oriented box around it */
            out[0] = tpNav_ShapeBox(b->pos[0], b->pos[1], b->pos[2], r, r, hl + (capsule ? r : 0), 0);
            tpNav_ShapeSetQuat(&out[0], q);
            return 1;
        }
        out[0].kind = TP_NAV_DISC;
        out[0].center[0] = b->pos[0];
        out[0].center[1] = b->pos[1];
        out[0].radius = r;
        out[0].z_lo = b->pos[2] - hl;
        out[0].z_hi = b->pos[2] + hl;
        if (!capsule) {
            return 1;
        }
        for (int k = 0; k < 2; ++k) {
            out[1 + k].kind = TP_NAV_SPHERE;
            out[1 + k].center[0] = b->pos[0];
            out[1 + k].center[1] = b->pos[1];
            out[1 + k].center[2] = b->pos[2] + (k ? hl : -hl);
            out[1 + k].radius = r;
        }
        return 3;
    }
    case TP_SHAPE_PLANE:
        out[0].kind = TP_NAV_HALFSPACE;
        memcpy(out[0].plane, b->plane, sizeof b->plane);
        return 1;
    }
    return 0;
}

/* The static part of a grid of `world` for body `self` in [z_min, z_max], from the memo or
 * computed into it. */
static const StaticMemo *staticsFor(tpSkillCache *c, const tpWorld *world, int self, double z_min, double z_max)
{
    /* Only a static self changes the result: every moving body shares one entry (a crowd's
     * pedestrians would otherwise each need their own). */
    if (self < 0 || self >= tpWorld_BodyCount(world) || tpWorld_Body(world, self)->cls != TP_BODY_STATIC) {
        self = -1;
    }
    for (int k = 0; k < NAV_STATIC_MEMO; ++k) {
        const StaticMemo *m = &c->statics[k];
        if (m->world == world && m->self == self && m->z_min == z_min && m->z_max == z_max) {
            return m;
        }
    }
    StaticMemo *m = &c->statics[c->next_static];
    c->next_static = (c->next_static + 1) % NAV_STATIC_MEMO;
    m->world = world;
    m->self = self;
    m->z_min = z_min;
    m->z_max = z_max;
    m->key = 0;
    m->lo[0] = m->lo[1] = INFINITY;
    m->hi[0] = m->hi[1] = -INFINITY;
    const int nb = tpWorld_BodyCount(world);
    for (int i = 0; i < nb; ++i) {
        const tpBodyDef *d = tpWorld_Body(world, i);
        if (d->cls != TP_BODY_STATIC || i == self) {
            continue;
        }
        double geo[15] = {d->shape,   d->size[0],  d->size[1],  d->size[2],  d->pos[0],
                          d->pos[1],  d->pos[2],   d->quat[0],  d->quat[1],  d->quat[2],
                          d->quat[3], d->plane[0], d->plane[1], d->plane[2], d->plane[3]};
        uint64_t h[2] = {m->key, tpHash_Fnv1a64(geo, sizeof geo)};
        m->key = tpHash_Fnv1a64(h, sizeof h);
        if (d->shape == TP_SHAPE_PLANE) {
            continue;
        }
        tpNavShape sh[3];
        int n = tpSkill_NavShapes(d, sh);
        for (int k = 0; k < n; ++k) {
            double fp[32][2];
            int np = 0;
            if (sh[k].kind == TP_NAV_BOX) {
                np = tpNav_Footprint(&sh[k], z_min, z_max, fp);
            } else {
                double r = sh[k].radius;
                fp[0][0] = sh[k].center[0] - r;
                fp[0][1] = sh[k].center[1] - r;
                fp[1][0] = sh[k].center[0] + r;
                fp[1][1] = sh[k].center[1] + r;
                np = 2;
            }
            for (int j = 0; j < np; ++j) {
                m->lo[0] = fmin(m->lo[0], fp[j][0]);
                m->lo[1] = fmin(m->lo[1], fp[j][1]);
                m->hi[0] = fmax(m->hi[0], fp[j][0]);
                m->hi[1] = fmax(m->hi[1], fp[j][1]);
            }
        }
    }
    TP_VALIDATE(tpSkillCache_Valid, c); /* a new entry (O(entries): not on a hit) */
    return m;
}

static void boundsOf(const StaticMemo *m, const double a[2], const double b[2], double margin, double bounds[4])
{
    /* fmin / fmax are exact, so the order in which the points enter does not matter */
    bounds[0] = fmin(fmin(a[0], b[0]), m->lo[0]) - margin;
    bounds[1] = fmin(fmin(a[1], b[1]), m->lo[1]) - margin;
    bounds[2] = fmax(fmax(a[0], b[0]), m->hi[0]) + margin;
    bounds[3] = fmax(fmax(a[1], b[1]), m->hi[1]) + margin;
}

uint64_t tpSkill_NavBounds(tpSkillCache *cache, const tpWorld *world, int self, double z_min, double z_max,
                           const double a[2], const double b[2], double margin, double bounds[4])
{
    const StaticMemo *m = staticsFor(cache, world, self, z_min, z_max);
    boundsOf(m, a, b, margin, bounds);
    return m->key;
}

double tpSkillCache_SearchSeconds(const tpSkillCache *cache)
{
    return cache ? cache->search_s : 0.0;
}

void tpSkill_SearchDone(tpSkillCache *cache, double t0)
{
    if (cache) {
        cache->search_s += tpClock_Now() - t0;
    }
}

tpNavGridDef tpSkill_GridOver(const double bounds[4], double cell, int max_side, double z_min, double z_max)
{
    tpNavGridDef gd = tpDefaultNavGridDef();
    gd.cell = cell;
    double w = bounds[2] - bounds[0], h = bounds[3] - bounds[1];
    if (fmax(w, h) / gd.cell > max_side) { /* coarser cells for huge scenes */
        gd.cell = fmax(w, h) / max_side;
    }
    gd.x0 = bounds[0];
    gd.y0 = bounds[1];
    gd.nx = (int)ceil(w / gd.cell);
    gd.ny = (int)ceil(h / gd.cell);
    gd.nx = gd.nx < 1 ? 1 : gd.nx;
    gd.ny = gd.ny < 1 ? 1 : gd.ny;
    gd.z_min = z_min;
    gd.z_max = z_max;
    return gd;
}

uint64_t tpSkill_StaticsKey(tpSkillCache *cache, const tpWorld *world, int self, double z_min, double z_max)
{
    return staticsFor(cache, world, self, z_min, z_max)->key;
}

void tpSkill_AddStatics(tpNavGrid *grid, const tpWorld *world, int self)
{
    const int nb = tpWorld_BodyCount(world);
    for (int i = 0; i < nb; ++i) {
        const tpBodyDef *d = tpWorld_Body(world, i);
        if (d->cls != TP_BODY_STATIC || i == self) {
            continue;
        }
        tpNavShape sh[3];
        int n = tpSkill_NavShapes(d, sh);
        for (int k = 0; k < n; ++k) {
            tpNavGrid_AddShape(grid, &sh[k], NULL, 0);
        }
    }
}

static bool sameGridDef(const tpNavGridDef *a, const tpNavGridDef *b)
{
    return a->x0 == b->x0 && a->y0 == b->y0 && a->cell == b->cell && a->nx == b->nx && a->ny == b->ny &&
           a->z_min == b->z_min && a->z_max == b->z_max && a->radius == b->radius;
}

const tpNavGrid *tpSkill_StaticGrid(tpSkillCache *cache, const tpWorld *world, int self, const tpNavGridDef *def)
{
    /* only a static self changes the raster: every moving body shares one entry */
    if (self < 0 || self >= tpWorld_BodyCount(world) || tpWorld_Body(world, self)->cls != TP_BODY_STATIC) {
        self = -1;
    }
    for (int k = 0; k < NAV_STATIC_GRIDS; ++k) {
        const StaticGrid *e = &cache->statics_grown[k];
        if (e->grid && e->world == world && e->self == self && sameGridDef(tpNavGrid_Def(e->grid), def)) {
            return e->grid;
        }
    }
    StaticGrid *e = &cache->statics_grown[cache->next_static_grown];
    cache->next_static_grown = (cache->next_static_grown + 1) % NAV_STATIC_GRIDS;
    tpNavGridDef raw = *def;
    raw.radius = 0.0;
    if (!(e->grid && tpNavGrid_Reset(e->grid, &raw, NULL, 0))) {
        tpDestroyNavGrid(e->grid);
        e->grid = tpCreateNavGrid(&raw, NULL, 0);
        if (!e->grid) {
            return NULL;
        }
    }
    e->world = world;
    e->self = self;
    tpSkill_AddStatics(e->grid, world, self);
    tpNavGrid_Grow(e->grid, def->radius); /* a radius that Grow normalises never matches again */
    TP_VALIDATE(tpSkillCache_Valid, cache);
    return e->grid;
}

void **tpSkillCache_Slot(tpSkillCache *cache, tpSkillKind kind, void (*destroy)(void *))
{
    TP_ASSERT(cache && kind >= 0 && kind < TP_SKILL_KIND_COUNT);
    cache->kinds[kind].destroy = destroy;
    return &cache->kinds[kind].p;
}

void tpDestroySkillCache(tpSkillCache *c)
{
    if (!c) {
        return;
    }
    TP_VALIDATE(tpSkillCache_Valid, c);
    for (int k = 0; k < NAV_STATIC_GRIDS; ++k) {
        tpDestroyNavGrid(c->statics_grown[k].grid);
    }
    for (int k = 0; k < TP_SKILL_KIND_COUNT; ++k) {
        if (c->kinds[k].p && c->kinds[k].destroy) {
            c->kinds[k].destroy(c->kinds[k].p);
        }
    }
    free(c);
}
