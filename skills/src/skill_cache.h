/* Private: the layout of the skill cache (tpSkillCache, tp/skills.h), shared by skill_cache.c, which
 * fills it, and skill_validate.c, which checks it (tpSkillCache_Valid; tests/skills/test_skill_validate.c
 * breaks each rule through this layout). */
#ifndef TP_SKILL_CACHE_H
#define TP_SKILL_CACHE_H

#include <stdint.h>

#include "tp/nav.h"
#include "tp/skills.h"

#define NAV_STATIC_MEMO 8

/* What the static bodies contribute to a grid, per (world, self, height band): the hash of
 * their geometry (part of a grid's key) and the bounds of their footprints in the band. Static
 * bodies never move or change after tpCreateWorld, so this is computed once instead of on every
 * call (it was over a third of a crowd run: 120 pedestrians a step, each hashing and
 * rasterising the bounds of every wall). */
typedef struct StaticMemo {
    const tpWorld *world; /* not owned (the domain's world, which outlives the cache); NULL = empty */
    int self;             /* the static body left out, -1 = none (self is a moving body) */
    double z_min, z_max;  /* m: the band of the bounds */
    uint64_t key;         /* hash of every static body's geometry but self's */
    double lo[2], hi[2];  /* m: bounds of the footprints (+inf / -inf when there are none) */
} StaticMemo;

#define NAV_STATIC_GRIDS 8

/* follow_path's raster of the static bodies for one grid definition (radius included), grown. */
typedef struct StaticGrid {
    tpNavGrid *grid;      /* owned; NULL = empty slot */
    const tpWorld *world; /* not owned: the world it was rasterised from */
    int self;             /* the body left out */
} StaticGrid;

/* The slot of one kind's own cache. */
typedef struct KindSlot {
    void *p;                  /* owned through destroy; NULL = empty */
    void (*destroy)(void *p); /* frees p */
} KindSlot;

struct tpSkillCache {
    double search_s; /* s, wall clock: running total of the searches (tpSkill_SearchDone) */
    StaticMemo statics[NAV_STATIC_MEMO];
    int next_static; /* round-robin replacement */
    /* the grown rasters of the static bodies for the last grid definitions asked for (follow_path:
       a leg with the clearance squeezed asks for another radius and grid) */
    StaticGrid statics_grown[NAV_STATIC_GRIDS];
    int next_static_grown;               /* round-robin replacement */
    KindSlot kinds[TP_SKILL_KIND_COUNT]; /* each kind's own caches (tpSkillCache_Slot) */
};

#endif
