/* The skills' invariants (the house audit's): the table of kinds (tpSkillKinds_Valid: one row per
 * kind with a unique name, a run function, its V count, its accepted keys and typed fields that lie
 * inside the kind's union member), a definition as the code builds it (tpSkillDef_ValidIn: the
 * defaults, or a front end's reading of the typed fields), one call's skill variables V
 * (tpSkillVars_Valid), the domain's skill cache (tpSkillCache_Valid), the grid-navigation family's
 * own caches in it (tpNavCache_Valid) and a collected clip search tree (tpNavOverlayTree_Valid). Run through
 * TP_VALIDATE (Debug and sanitizer builds) where the structure is made or changed: skills.c, skill_cache.c,
 * nav_skill.c, nav_overlay.c and the Lua constructor of a skill (lua/src/skill_ctors.c).
 * tests/skills/test_skill_validate.c breaks each rule once. Reads only; calls nothing of skills/src (skills.c hands its
 * table in). */
#include <math.h>
#include <string.h>

#include "nav_cache.h"
#include "nav_overlay.h"
#include "skill_cache.h"
#include "skill_internal.h"
#include "skill_kind.h"
#include "skill_validate.h"
#include "tp/base.h"

#define TP_SKILL_MAX_KEYS 64 /* accepted keys of one kind (the longest list has about 30) */

/* Bytes of a typed field's value in tpSkillDef. */
static size_t field_size(tpSkillFieldType t)
{
    switch (t) {
    case TP_FIELD_DIST:
    case TP_FIELD_DURATION:
    case TP_FIELD_RANGE:
        return sizeof(tpDist);
    case TP_FIELD_NONNEG:
    case TP_FIELD_NUMBER:
        return sizeof(double);
    case TP_FIELD_BOOL:
        return sizeof(bool);
    case TP_FIELD_BODY:
    case TP_FIELD_JOINT:
        return sizeof(int);
    }
    return 0;
}

static bool finite_all(const double *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            return false;
        }
    }
    return true;
}

static bool is_dist(tpSkillFieldType t)
{
    return t == TP_FIELD_DIST || t == TP_FIELD_DURATION || t == TP_FIELD_RANGE;
}

static bool listed(const char *const *keys, const char *key)
{
    for (int i = 0; keys[i]; i++) {
        if (strcmp(keys[i], key) == 0) {
            return true;
        }
    }
    return false;
}

static bool valid_keys(const tpSkillKindInfo *k, char *why, size_t cap)
{
    if (!k->accepted) {
        return tpBroken(why, cap, "skill kind '%s': no accepted keys", k->name);
    }
    for (int i = 0; k->accepted[i]; i++) {
        bool dup = false;
        for (int j = 0; j < i; j++) {
            dup = dup || strcmp(k->accepted[j], k->accepted[i]) == 0;
        }
        if (i >= TP_SKILL_MAX_KEYS || !k->accepted[i][0] || dup) {
            return tpBroken(why, cap, "skill kind '%s': accepted key %d ('%s') is empty, repeated or past %d", k->name,
                            i, k->accepted[i], TP_SKILL_MAX_KEYS);
        }
    }
    if (!listed(k->accepted, "name")) {
        return tpBroken(why, cap, "skill kind '%s': 'name' is not among its accepted keys", k->name);
    }
    return true;
}

static bool valid_field(const tpSkillKindInfo *k, int i, char *why, size_t cap)
{
    const tpSkillField *f = &k->fields[i];
    if (!listed(k->accepted, f->name)) {
        return tpBroken(why, cap, "skill kind '%s': field '%s' is not among its accepted keys", k->name, f->name);
    }
    for (int j = 0; j < i; j++) {
        if (strcmp(k->fields[j].name, f->name) == 0) {
            return tpBroken(why, cap, "skill kind '%s': field '%s' is field %d's too", k->name, f->name, j);
        }
    }
    const size_t size = field_size(f->type);
    if (!size) {
        return tpBroken(why, cap, "skill kind '%s': field '%s' of type %d", k->name, f->name, (int)f->type);
    }
    const size_t align = f->type == TP_FIELD_BOOL ? 1 : f->type == TP_FIELD_BODY || f->type == TP_FIELD_JOINT ? 4 : 8;
    if (f->offset < offsetof(tpSkillDef, wait) || f->offset + size > sizeof(tpSkillDef) || f->offset % align != 0) {
        return tpBroken(why, cap, "skill kind '%s': field '%s' at byte %zu, outside the kind's member", k->name,
                        f->name, f->offset);
    }
    if (f->type == TP_FIELD_DIST ? !(1 <= f->dmin && f->dmin <= f->dmax && f->dmax <= 3)
                                 : f->dmin != 0 || f->dmax != 0) {
        return tpBroken(why, cap, "skill kind '%s': field '%s' of dimensions %d..%d", k->name, f->name, f->dmin,
                        f->dmax);
    }
    if (f->type == TP_FIELD_RANGE &&
        (i == 0 || !is_dist(k->fields[i - 1].type) || k->fields[i - 1].type == TP_FIELD_RANGE ||
         k->fields[i - 1].offset != f->offset)) {
        return tpBroken(why, cap, "skill kind '%s': range '%s' does not follow the distribution it sets", k->name,
                        f->name);
    }
    return true;
}

static bool valid_kind(const tpSkillKindInfo *const *rows, int i, char *why, size_t cap)
{
    const tpSkillKindInfo *k = rows[i];
    if (!k || !k->name || !k->name[0] || (k->alias && !k->alias[0])) {
        return tpBroken(why, cap, "skill kind %d: no row, no name or an empty alias", i);
    }
    for (int j = 0; j < i; j++) {
        const char *n[2] = {rows[j]->name, rows[j]->alias};
        for (int a = 0; a < 2; a++) {
            if (n[a] && (strcmp(n[a], k->name) == 0 || (k->alias && strcmp(n[a], k->alias) == 0))) {
                return tpBroken(why, cap, "skill kind '%s': its name or alias is kind %d's too", k->name, j);
            }
        }
    }
    if (!k->run) {
        return tpBroken(why, cap, "skill kind '%s': no run function", k->name);
    }
    if (k->vars < 1 || k->vars > TP_SKILL_VARS) {
        return tpBroken(why, cap, "skill kind '%s': %d variables (1..%d: V[0] is the start time)", k->name, k->vars,
                        TP_SKILL_VARS);
    }
    if (!(k->timeout >= 0) || !isfinite(k->timeout)) {
        return tpBroken(why, cap, "skill kind '%s': default timeout %g s", k->name, k->timeout);
    }
    if (!valid_keys(k, why, cap)) {
        return false;
    }
    if (!k->fields) {
        return tpBroken(why, cap, "skill kind '%s': no typed fields list", k->name);
    }
    for (int f = 0; k->fields[f].name; f++) {
        if (!valid_field(k, f, why, cap)) {
            return false;
        }
    }
    return true;
}

bool tpSkillKinds_Valid(const tpSkillKindInfo *const *rows, char *why, size_t cap)
{
    for (int i = 0; i < TP_SKILL_KIND_COUNT; i++) {
        if (!valid_kind(rows, i, why, cap)) {
            return false;
        }
    }
    return true;
}

/* A distribution of a typed field: unset, or of a known kind and a dimension in dmin..dmax. */
static bool dist_ok(const tpDist *d, int dmin, int dmax)
{
    return d->kind == TP_DIST_UNSET ||
           (d->kind >= TP_DIST_CONST && d->kind <= TP_DIST_SAMPLE && d->dim >= dmin && d->dim <= dmax);
}

static bool valid_typed(const tpSkillDef *sk, const tpSkillField *f, char *why, size_t cap)
{
    const void *p = (const char *)sk + f->offset;
    const tpDist *d = p;
    switch (f->type) {
    case TP_FIELD_DIST:
        if (!dist_ok(d, f->dmin, f->dmax)) {
            return tpBroken(why, cap, "skill '%s': %s: distribution kind %d of dimension %d (%d..%d)", sk->name,
                            f->name, (int)d->kind, d->dim, f->dmin, f->dmax);
        }
        return true;
    case TP_FIELD_DURATION:
        if (!dist_ok(d, 1, 1) || ((d->kind == TP_DIST_CONST || d->kind == TP_DIST_UNIFORM) && !(d->a[0] >= 0))) {
            return tpBroken(why, cap, "skill '%s': duration %s of kind %d, dimension %d, from %g s", sk->name, f->name,
                            (int)d->kind, d->dim, d->a[0]);
        }
        return true;
    case TP_FIELD_NONNEG: {
        const double v = *(const double *)p;
        if (!(v >= 0) || !isfinite(v)) {
            return tpBroken(why, cap, "skill '%s': %s = %g (finite, >= 0)", sk->name, f->name, v);
        }
        return true;
    }
    case TP_FIELD_BOOL: {
        unsigned char byte;
        memcpy(&byte, p, 1);
        if (byte > 1) {
            return tpBroken(why, cap, "skill '%s': %s holds byte %u, not a bool", sk->name, f->name, byte);
        }
        return true;
    }
    case TP_FIELD_BODY:
    case TP_FIELD_JOINT:
        if (*(const int *)p < -1) {
            return tpBroken(why, cap, "skill '%s': %s index %d (-1 = none)", sk->name, f->name, *(const int *)p);
        }
        return true;
    case TP_FIELD_NUMBER: /* +-inf allowed */
    case TP_FIELD_RANGE:  /* the distribution before it */
        return true;
    }
    return true;
}

bool tpSkillDef_ValidIn(const tpSkillDef *sk, const tpSkillKindInfo *const *kinds, char *why, size_t cap)
{
    if (sk->kind < 0 || sk->kind >= TP_SKILL_KIND_COUNT) {
        return tpBroken(why, cap, "skill def: kind %d", (int)sk->kind);
    }
    if (!memchr(sk->name, '\0', sizeof sk->name) || !sk->name[0]) {
        return tpBroken(why, cap, "skill def (%s): name empty or not terminated", kinds[sk->kind]->name);
    }
    if (sk->frame < TP_FRAME_WORLD || sk->frame > TP_FRAME_BODY ||
        (sk->has_toward && (sk->frame == TP_FRAME_WORLD || !isfinite(sk->toward[0]) || !isfinite(sk->toward[1])))) {
        return tpBroken(why, cap, "skill '%s': frame %d, toward %d (a finite point, not in the world frame)", sk->name,
                        (int)sk->frame, (int)sk->has_toward);
    }
    if (sk->body < -1 || sk->target < -1) {
        return tpBroken(why, cap, "skill '%s': body %d, target %d (-1 = none)", sk->name, sk->body, sk->target);
    }
    const tpSkillGains *g = &sk->gains;
    const double gains[] = {g->max_speed, g->max_yaw_rate,    g->kp,     g->kv, g->kyaw, g->kyaw_rate,
                            g->tolerance, g->angle_tolerance, g->timeout};
    for (size_t i = 0; i < sizeof gains / sizeof gains[0]; i++) {
        if (!(gains[i] >= 0) || !isfinite(gains[i])) {
            return tpBroken(why, cap, "skill '%s': gain %zu is %g (finite, >= 0)", sk->name, i, gains[i]);
        }
    }
    for (const tpSkillField *f = kinds[sk->kind]->fields; f->name; f++) {
        if (!valid_typed(sk, f, why, cap)) {
            return false;
        }
    }
    return true;
}

bool tpSkillVars_Valid(const tpSkillVars *v, char *why, size_t cap)
{
    if (!isfinite(v->V[TP_V_START]) || !(v->V[TP_V_START] <= v->t)) {
        return tpBroken(why, cap, "skill %s: V start time %g s, the call's time %g s", v->kind->name, v->V[TP_V_START],
                        v->t);
    }
    for (int i = v->kind->vars; i < TP_SKILL_VARS; i++) {
        if (v->V[i] != 0.0) {
            return tpBroken(why, cap, "skill %s: V[%d] = %g, past its %d stored variables (lost at the next step)",
                            v->kind->name, i, v->V[i], v->kind->vars);
        }
    }
    return true;
}

/* A memo's bounds: finite with lo <= hi, or none at all (+inf, -inf). */
static bool bounds_ok(double lo, double hi)
{
    return (isfinite(lo) && isfinite(hi) && lo <= hi) || (lo == INFINITY && hi == -INFINITY);
}

bool tpSkillCache_Valid(const tpSkillCache *c, char *why, size_t cap)
{
    if (!(c->search_s >= 0) || !isfinite(c->search_s)) {
        return tpBroken(why, cap, "skill cache: search time %g s", c->search_s);
    }
    if (c->next_static < 0 || c->next_static >= NAV_STATIC_MEMO || c->next_static_grown < 0 ||
        c->next_static_grown >= NAV_STATIC_GRIDS) {
        return tpBroken(why, cap, "skill cache: next entries %d of %d, %d of %d", c->next_static, NAV_STATIC_MEMO,
                        c->next_static_grown, NAV_STATIC_GRIDS);
    }
    for (int k = 0; k < NAV_STATIC_MEMO; k++) {
        const StaticMemo *m = &c->statics[k];
        if (!m->world) {
            continue;
        }
        if (m->self < -1 || !(m->z_min <= m->z_max)) {
            return tpBroken(why, cap, "skill cache: statics %d: self %d, band %g..%g m", k, m->self, m->z_min,
                            m->z_max);
        }
        if (!bounds_ok(m->lo[0], m->hi[0]) || !bounds_ok(m->lo[1], m->hi[1])) {
            return tpBroken(why, cap, "skill cache: statics %d: bounds %g..%g x %g..%g m", k, m->lo[0], m->hi[0],
                            m->lo[1], m->hi[1]);
        }
        for (int j = 0; j < k; j++) {
            const StaticMemo *o = &c->statics[j];
            if (o->world == m->world && o->self == m->self && o->z_min == m->z_min && o->z_max == m->z_max) {
                return tpBroken(why, cap, "skill cache: statics %d has the key of entry %d (one would never be found)",
                                k, j);
            }
        }
    }
    for (int k = 0; k < NAV_STATIC_GRIDS; k++) {
        const StaticGrid *e = &c->statics_grown[k];
        if (e->grid && (!e->world || e->self < -1)) {
            return tpBroken(why, cap, "skill cache: grown grid %d: no world or self %d", k, e->self);
        }
    }
    for (int k = 0; k < TP_SKILL_KIND_COUNT; k++) {
        if (c->kinds[k].p && !c->kinds[k].destroy) {
            return tpBroken(why, cap, "skill cache: kind %d's slot holds a cache and no destructor", k);
        }
    }
    return true;
}

bool tpNavOverlayTree_Valid(const tpNavOverlayTree *t, char *why, size_t cap)
{
    if (t->failed) {
        return true; /* dropped whole: nothing of it is emitted */
    }
    if (t->n < 0 || (size_t)t->n > t->cap) {
        return tpBroken(why, cap, "overlay tree: %d nodes, room for %zu", t->n, t->cap);
    }
    if (t->cap > 0 && (!t->points || !t->parent)) {
        return tpBroken(why, cap, "overlay tree: room for %zu nodes and no arrays", t->cap);
    }
    for (int i = 0; i < t->n; i++) {
        if (t->parent[i] < -1 || t->parent[i] >= i) {
            return tpBroken(why, cap, "overlay tree: node %d's parent is %d (an earlier node, or -1)", i, t->parent[i]);
        }
        if (!isfinite(t->points[2 * i]) || !isfinite(t->points[2 * i + 1])) {
            return tpBroken(why, cap, "overlay tree: node %d is not finite", i);
        }
    }
    return true;
}

/* (i, j) is a cell of grid g. */
static bool in_grid(const tpNavGrid *g, int i, int j)
{
    const tpNavGridDef *d = tpNavGrid_Def(g);
    return i >= 0 && j >= 0 && i < d->nx && j < d->ny;
}

static bool valid_grid_entry(const NavGridEntry *e, int k, char *why, size_t cap)
{
    if (!e->grid) {
        for (int p = 0; p < NAV_PATH_CACHE; p++) {
            if (e->paths[p].points) {
                return tpBroken(why, cap, "nav cache: grid %d is empty and holds path %d", k, p);
            }
        }
        return true;
    }
    const double *q = e->params;
    if (!(q[0] > 0) || !isfinite(q[0]) || !(q[1] >= 0) || !isfinite(q[1]) || !(q[2] <= q[3])) {
        return tpBroken(why, cap, "nav cache: grid %d: cell %g m, radius %g m, band %g..%g m", k, q[0], q[1], q[2],
                        q[3]);
    }
    if (e->next_path < 0 || e->next_path >= NAV_PATH_CACHE || e->next_field < 0 || e->next_field >= NAV_FIELD_CACHE) {
        return tpBroken(why, cap, "nav cache: grid %d: next path %d, next field %d", k, e->next_path, e->next_field);
    }
    for (int p = 0; p < NAV_PATH_CACHE; p++) {
        const NavPathEntry *pe = &e->paths[p];
        if (pe->npoints < 0 || (!pe->points && pe->npoints != 0)) {
            return tpBroken(why, cap, "nav cache: grid %d: path %d has %d points", k, p, pe->npoints);
        }
        if (pe->points && (!in_grid(e->grid, pe->si, pe->sj) || !in_grid(e->grid, pe->gi, pe->gj))) {
            return tpBroken(why, cap, "nav cache: grid %d: path %d from cell (%d, %d) to (%d, %d), outside the grid", k,
                            p, pe->si, pe->sj, pe->gi, pe->gj);
        }
        for (int i = 0; i < pe->npoints; i++) {
            if (!isfinite(pe->points[2 * i]) || !isfinite(pe->points[2 * i + 1])) {
                return tpBroken(why, cap, "nav cache: grid %d: path %d: point %d is not finite", k, p, i);
            }
        }
    }
    for (int f = 0; f < NAV_FIELD_CACHE; f++) {
        const NavFieldEntry *fe = &e->fields[f];
        if (fe->field && !in_grid(e->grid, fe->gi, fe->gj)) {
            return tpBroken(why, cap, "nav cache: grid %d: field %d toward cell (%d, %d), outside the grid", k, f,
                            fe->gi, fe->gj);
        }
    }
    return true;
}

static bool valid_track(const TrackCache *t, char *why, size_t cap)
{
    if (t->nwalls < 0 || t->nwalls > TRACK_MAX_WALLS || t->next_togo < 0 || t->next_togo >= TRACK_TOGO_CACHE ||
        t->path_cap < 0 || (t->path_cap > 0 && !t->paths)) {
        return tpBroken(why, cap, "nav cache: track: %d walls (at most %d), next to-go %d, %d path samples", t->nwalls,
                        TRACK_MAX_WALLS, t->next_togo, t->path_cap);
    }
    for (int w = 0; w < t->nwalls; w++) {
        if (!finite_all(t->walls[w], 4)) {
            return tpBroken(why, cap, "nav cache: track: wall %d is not finite", w);
        }
    }
    for (int q = 0; q < TRACK_TOGO_CACHE; q++) {
        if (t->togo[q] && !finite_all(t->togo_goal[q], 2)) {
            return tpBroken(why, cap, "nav cache: track: to-go field %d toward a goal that is not finite", q);
        }
    }
    return true;
}

/* The bucket of a finite coordinate along an axis of n buckets from o (nav_skill.c's moverBucket). */
static int mover_bucket(double v, double o, double side, int n)
{
    double b = floor((v - o) / side);
    return b < 0 ? 0 : b >= n ? n - 1 : (int)b;
}

static bool valid_buckets(const MoverMemo *m, char *why, size_t cap)
{
    const int nb = m->nu * m->nv;
    if (m->nu < 1 || m->nv < 1 || m->nu > 64 || m->nv > 64 || !(m->side >= MOVER_SIDE) || !isfinite(m->side) ||
        m->start[0] != 0 || m->nloose < 0 || m->start[nb] + m->nloose != m->count) {
        return tpBroken(why, cap, "nav cache: movers: %d x %d buckets of %g m holding %d and %d loose of %d", m->nu,
                        m->nv, m->side, nb > 0 && nb <= MOVER_BUCKETS ? m->start[nb] : -1, m->nloose, m->count);
    }
    for (int b = 0; b < nb; b++) {
        for (int s = m->start[b]; s < m->start[b + 1]; s++) {
            const int k = m->items[s];
            const double *p = m->pos + 2 * (k >= 0 && k < m->count ? k : 0);
            const bool ordered = s == m->start[b] || m->items[s - 1] < k;
            if (k < 0 || k >= m->count || !ordered || !isfinite(p[0]) || !isfinite(p[1]) ||
                mover_bucket(p[1], m->y0, m->side, m->nv) * m->nu + mover_bucket(p[0], m->x0, m->side, m->nu) != b) {
                return tpBroken(why, cap, "nav cache: movers: bucket %d lists mover %d out of order or not its own", b,
                                k);
            }
        }
    }
    for (int q = 0; q < m->nloose; q++) {
        const int k = m->loose[q];
        if (k < 0 || k >= m->count || (isfinite(m->pos[2 * k]) && isfinite(m->pos[2 * k + 1]))) {
            return tpBroken(why, cap, "nav cache: movers: loose mover %d has a finite position", k);
        }
    }
    return true;
}

bool tpNavMovers_Valid(const MoverMemo *m, char *why, size_t cap)
{
    if (!m->world) {
        return true;
    }
    if (m->count < 0 || !m->body || !m->slot || !m->radius || !m->pos || !m->start || !m->items || !m->loose ||
        !m->cand) {
        return tpBroken(why, cap, "nav cache: movers: %d of them, or an array missing", m->count);
    }
    double rmax = 0;
    for (int k = 0; k < m->count; k++) {
        if ((k > 0 && m->body[k] <= m->body[k - 1]) || m->body[k] < 0 || m->slot[k] < -1 || !(m->radius[k] >= 0) ||
            !isfinite(m->radius[k])) {
            return tpBroken(why, cap,
                            "nav cache: movers: mover %d is body %d (slot %d, radius %g m), not in index order", k,
                            m->body[k], m->slot[k], m->radius[k]);
        }
        rmax = fmax(rmax, m->radius[k]);
    }
    if (m->max_radius != rmax) {
        return tpBroken(why, cap, "nav cache: movers: largest radius %g m, the movers' is %g m", m->max_radius, rmax);
    }
    return m->step == 0 || valid_buckets(m, why, cap);
}

bool tpNavCache_Valid(const NavCache *c, char *why, size_t cap)
{
    if (c->next_grid < 0 || c->next_grid >= NAV_GRID_CACHE) {
        return tpBroken(why, cap, "nav cache: next grid %d of %d", c->next_grid, NAV_GRID_CACHE);
    }
    for (int k = 0; k < NAV_GRID_CACHE; k++) {
        if (!valid_grid_entry(&c->grids[k], k, why, cap)) {
            return false;
        }
    }
    const NavToMemo *n = &c->navto;
    if (n->world && (n->ge < c->grids || n->ge >= c->grids + NAV_GRID_CACHE || n->pe < n->ge->paths ||
                     n->pe >= n->ge->paths + NAV_PATH_CACHE)) {
        return tpBroken(why, cap, "nav cache: nav_to's last lookup points outside the grids and their paths");
    }
    return valid_track(&c->track, why, cap) && tpNavMovers_Valid(&c->movers, why, cap);
}
