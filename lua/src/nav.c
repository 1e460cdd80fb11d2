/* tplan lua: tp.nav, the navigation grid of tp/nav.h for scripts (see docs/lua-api.md,
 * "Navigation: tp.nav"). Grids, fields, crowds, move trees and followers are userdata freed by
 * __gc; every function is a pure computation on its arguments (no randomness, no hidden state),
 * so scripts stay deterministic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lua_internal.h"
#include "tp/nav.h"

#define TPL_NAVGRID "tp.nav.grid"
#define TPL_NAVFOLLOWER "tp.nav.follower"
#define TPL_NAVFIELD "tp.nav.field"
#define TPL_NAVCROWD "tp.nav.crowd"
#define TPL_NAVTREE "tp.nav.move_tree"
#define TPL_NAVSPACE "tp.nav.space"
#define TPL_NAVSPACEAGENT "tp.nav.space_agent"

/* A grid, field, crowd, space or move tree: a userdata of its class's metatable holding the owned
 * object, NULL until created and after __gc (a crowd has user value 1 = its grid, 2 = a list of
 * the fields its pedestrians use, kept alive). */
typedef struct tplHandle {
    void *ptr;
    size_t charged; /* bytes counted against the script's memory limit (tplCharge) */
} tplHandle;

/* One kind of handle: its metatable, the noun of its messages and its destructor (one row each
 * below; one __gc, tplHandleGc, serves them all). */
typedef struct tplHandleClass {
    const char *tname;        /* metatable name */
    const char *noun;         /* "grid": "tp.nav: the grid was freed" */
    void (*destroy)(void *p); /* frees the object (never called with NULL) */
} tplHandleClass;

static void tplFreeGrid(void *p)
{
    tpDestroyNavGrid(p);
}
static void tplFreeField(void *p)
{
    tpDestroyNavField(p);
}
static void tplFreeCrowd(void *p)
{
    tpDestroyNavCrowd(p);
}
static void tplFreeSpace(void *p)
{
    tpDestroyNavSpace(p);
}
static void tplFreeTree(void *p)
{
    tpDestroyNavMoveTree(p);
}

static const tplHandleClass tplGridClass = {TPL_NAVGRID, "grid", tplFreeGrid};
static const tplHandleClass tplFieldClass = {TPL_NAVFIELD, "field", tplFreeField};
static const tplHandleClass tplCrowdClass = {TPL_NAVCROWD, "crowd", tplFreeCrowd};
static const tplHandleClass tplSpaceClass = {TPL_NAVSPACE, "space", tplFreeSpace};
static const tplHandleClass tplTreeClass = {TPL_NAVTREE, "move tree", tplFreeTree};

/* Pushes a new handle of class `cls` with nuv user values; ptr NULL (set it next). */
static tplHandle *tplNewHandle(lua_State *L, const tplHandleClass *cls, int nuv)
{
    tplHandle *h = lua_newuserdatauv(L, sizeof *h, nuv);
    h->ptr = NULL;
    h->charged = 0;
    luaL_setmetatable(L, cls->tname);
    return h;
}

/* Raises "tp.nav.<err>" when the handle's object could not be created (ptr still NULL). */
static void tplHandleMade(lua_State *L, const tplHandle *h, const char *err)
{
    if (!h->ptr)
        tplError(L, "tp.nav.%s", err);
}

/* The object of the handle at idx; raises if it is not of class `cls` or was freed. */
static void *tplCheckHandle(lua_State *L, int idx, const tplHandleClass *cls)
{
    tplHandle *h = luaL_checkudata(L, idx, cls->tname);
    if (!h->ptr)
        tplError(L, "tp.nav: the %s was freed", cls->noun);
    return h->ptr;
}

/* Counts the C memory the handle will hold against the script's memory limit (before it is
 * allocated: a script must not get past the limit through objects Lua's collector cannot see). */
static void tplChargeHandle(lua_State *L, tplHandle *h, size_t bytes)
{
    tplCharge(L, bytes);
    h->charged = bytes;
}

/* __gc of every handle class (upvalue 1: its tplHandleClass): frees the object, once. */
static int tplHandleGc(lua_State *L)
{
    const tplHandleClass *cls = lua_touserdata(L, lua_upvalueindex(1));
    tplHandle *h = luaL_checkudata(L, 1, cls->tname);
    void *ptr = h->ptr;
    h->ptr = NULL;
    tplUncharge(L, h->charged);
    h->charged = 0;
    if (ptr)
        cls->destroy(ptr);
    return 0;
}

/* Sets field `key` of the table on top of the stack (results of the methods below). */
static void tplSetNumber(lua_State *L, const char *key, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, key);
}
static void tplSetInteger(lua_State *L, const char *key, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, key);
}
static void tplSetBool(lua_State *L, const char *key, bool v)
{
    lua_pushboolean(L, v);
    lua_setfield(L, -2, key);
}

typedef struct tplNavFollower {
    tpNavFollower f;
} tplNavFollower;

static tpNavGrid *tplCheckGrid(lua_State *L, int idx)
{
    return tplCheckHandle(L, idx, &tplGridClass);
}

static const char *const tplShapeFields[] = {"kind", "center", "half", "yaw", "radius", "z", "points", "plane", NULL};

/* Reads the shape at idx: a plain table {kind = ...} or a body made by tp.box/tp.sphere/... .
 * Returns the number of nav shapes written to out (<= 3). */
static int tplToShapes(lua_State *L, int idx, const char *label, tpNavShape out[3])
{
    idx = lua_absindex(L, idx);
    if (luaL_testudata(L, idx, TPL_BODY)) {
        const tplBody *b = lua_touserdata(L, idx);
        return tpSkill_NavShapes(&b->def, out);
    }
    if (lua_type(L, idx) != LUA_TTABLE)
        tplError(L, "%s: expected a shape table or a body (tp.box, tp.sphere, ...), got %s", label,
                 tplTypeName(L, idx));
    char what[160];
    snprintf(what, sizeof what, "%s.", label);
    tplCheckFields(L, idx, label, tplShapeFields, 0);
    char kind[16] = "";
    if (!tplString(L, idx, what, "kind", kind, sizeof kind))
        tplError(L, "%s: 'kind' is required (box, sphere, disc, polygon, halfspace)", label);
    tpNavShape *s = &out[0];
    memset(s, 0, sizeof *s);
    double z[2] = {-INFINITY, INFINITY};
    if (strcmp(kind, "box") == 0) {
        double c[3] = {0, 0, 0}, h[3] = {0, 0, 0};
        if (!tplVector(L, idx, what, "center", c, 2, 3, false) || !tplVector(L, idx, what, "half", h, 2, 3, false))
            tplError(L, "%s: box needs 'center' and 'half'", label);
        double yaw = tplNumber(L, idx, what, "yaw", 0.0, false);
        *s = tpNav_ShapeBox(c[0], c[1], c[2], h[0], h[1], h[2], yaw);
        tplField(L, idx, "half");
        bool flat = lua_rawlen(L, -1) == 2;
        lua_pop(L, 1);
        if (flat) { /* {hx, hy}: a prism through every band */
            s->center[2] = 0;
            s->half[2] = 1e30;
        }
    } else if (strcmp(kind, "sphere") == 0) {
        s->kind = TP_NAV_SPHERE;
        if (!tplVector(L, idx, what, "center", s->center, 3, 3, false))
            tplError(L, "%s: sphere needs 'center' (3 numbers)", label);
        s->radius = tplReqNumber(L, idx, what, "radius");
    } else if (strcmp(kind, "disc") == 0) {
        s->kind = TP_NAV_DISC;
        if (!tplVector(L, idx, what, "center", s->center, 2, 2, false))
            tplError(L, "%s: disc needs 'center' (2 numbers)", label);
        s->radius = tplReqNumber(L, idx, what, "radius");
        tplVector(L, idx, what, "z", z, 2, 2, true);
        s->z_lo = z[0];
        s->z_hi = z[1];
    } else if (strcmp(kind, "polygon") == 0) {
        s->kind = TP_NAV_POLYGON;
        if (tplField(L, idx, "points") != LUA_TTABLE)
            tplError(L, "%s: polygon needs 'points' (a list of {x, y})", label);
        int n = (int)lua_rawlen(L, -1);
        if (n < 1 || n > TP_NAV_POLY_MAX)
            tplError(L, "%s.points: expected 1 to %d points (got %d)", label, TP_NAV_POLY_MAX, n);
        for (int i = 0; i < n; i++) {
            char pl[192];
            snprintf(pl, sizeof pl, "%s.points[%d]", label, i + 1);
            lua_rawgeti(L, -1, i + 1);
            tplToVector(L, -1, pl, s->points[i], 2, 2, false);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        s->npoints = n;
        tplVector(L, idx, what, "z", z, 2, 2, true);
        s->z_lo = z[0];
        s->z_hi = z[1];
    } else if (strcmp(kind, "halfspace") == 0) {
        s->kind = TP_NAV_HALFSPACE;
        if (!tplVector(L, idx, what, "plane", s->plane, 4, 4, false))
            tplError(L, "%s: halfspace needs 'plane' {a, b, c, d} (a x + b y + c z <= d)", label);
    } else {
        tplError(L, "%s.kind: unknown shape kind \"%s\" (box, sphere, disc, polygon, halfspace)", label, kind);
    }
    char err[256];
    if (!tpNav_ShapeValidate(s, err, sizeof err))
        tplError(L, "%s: %s", label, err);
    return 1;
}

static void tplAddShapes(lua_State *L, tpNavGrid *g, int idx, const char *label)
{
    tpNavShape sh[3];
    int n = tplToShapes(L, idx, label, sh);
    for (int k = 0; k < n; k++) {
        char err[256];
        if (tpNavGrid_AddShape(g, &sh[k], err, sizeof err) < 0)
            tplError(L, "%s: %s", label, err);
    }
}

static const char *const tplGridFields[] = {"origin", "cell", "size", "band", "radius", "shapes", NULL};

/* tp.nav.grid{origin, cell, size, band, radius, shapes} */
static int tplGridNew(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *what = "tp.nav.grid: ";
    tplCheckFields(L, 1, "tp.nav.grid", tplGridFields, 0);
    tpNavGridDef d = tpDefaultNavGridDef();
    double v[2];
    if (tplVector(L, 1, what, "origin", v, 2, 2, false)) {
        d.x0 = v[0];
        d.y0 = v[1];
    }
    d.cell = tplNumber(L, 1, what, "cell", d.cell, false);
    if (tplVector(L, 1, what, "size", v, 2, 2, false)) {
        if (v[0] != floor(v[0]) || v[1] != floor(v[1]))
            tplError(L, "tp.nav.grid: size must be two whole numbers of cells (got %g, %g)", v[0], v[1]);
        if (v[0] < 1 || v[1] < 1 || v[0] * v[1] > (double)(1 << 26))
            tplError(L, "tp.nav.grid: size must be >= 1 cell each way and at most 2^26 cells (got %g x %g)", v[0],
                     v[1]);
        d.nx = (int)v[0];
        d.ny = (int)v[1];
    }
    if (tplVector(L, 1, what, "band", v, 2, 2, false)) {
        d.z_min = v[0];
        d.z_max = v[1];
    }
    double radius = tplNumber(L, 1, what, "radius", 0.0, false);
    char err[256];
    tplHandle *ud = tplNewHandle(L, &tplGridClass, 0);
    tplChargeHandle(L, ud, (size_t)d.nx * (size_t)d.ny); /* a byte per cell */
    tpNavGrid *grid = ud->ptr = tpCreateNavGrid(&d, err, sizeof err);
    tplHandleMade(L, ud, err);
    int ud_idx = lua_gettop(L);
    int t = tplField(L, 1, "shapes");
    if (t == LUA_TTABLE) {
        int n = (int)lua_rawlen(L, -1);
        for (int i = 0; i < n; i++) {
            char label[64];
            snprintf(label, sizeof label, "tp.nav.grid: shapes[%d]", i + 1);
            lua_rawgeti(L, -1, i + 1);
            tplAddShapes(L, grid, -1, label);
            lua_pop(L, 1);
        }
    } else if (t != LUA_TNIL) {
        tplError(L, "tp.nav.grid: shapes: expected a list, got %s", tplTypeName(L, -1));
    }
    lua_pop(L, 1);
    if (radius < 0)
        tplError(L, "tp.nav.grid: radius must be >= 0 (got %g)", radius);
    tpNavGrid_Grow(grid, radius);
    lua_pushvalue(L, ud_idx);
    return 1;
}

/* g:add(shape) -> cells met; growth is redone with the grid's radius */
static int tplGridAdd(lua_State *L)
{
    tpNavGrid *g = tplCheckGrid(L, 1);
    int before = tpNavGrid_BlockedCount(g);
    tplAddShapes(L, g, 2, "grid:add");
    tpNavGrid_Grow(g, tpNavGrid_Def(g)->radius);
    lua_pushinteger(L, tpNavGrid_BlockedCount(g) - before);
    return 1;
}

/* g:grow(radius) */
static int tplGridGrow(lua_State *L)
{
    tpNavGrid *g = tplCheckGrid(L, 1);
    double r = luaL_checknumber(L, 2);
    if (!(r >= 0) || isinf(r))
        tplError(L, "grid:grow: radius must be finite and >= 0 (got %g)", r);
    tpNavGrid_Grow(g, r);
    return 0;
}

/* g:cell(x, y) -> "free" | "obstacle" | "grown" | "outside", i, j (0-based) */
static int tplGridCell(lua_State *L)
{
    tpNavGrid *g = tplCheckGrid(L, 1);
    double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3);
    int i, j;
    if (!tpNavGrid_CellOf(g, x, y, &i, &j)) {
        lua_pushliteral(L, "outside");
        return 1;
    }
    int c = tpNavGrid_Cell(g, i, j);
    lua_pushstring(L, c == TP_NAV_FREE ? "free" : c == TP_NAV_OBSTACLE ? "obstacle" : "grown");
    lua_pushinteger(L, i);
    lua_pushinteger(L, j);
    return 3;
}

/* g:blocked_count() */
static int tplGridCount(lua_State *L)
{
    lua_pushinteger(L, tpNavGrid_BlockedCount(tplCheckGrid(L, 1)));
    return 1;
}

static void tplPushPoints(lua_State *L, const double *pts, int n)
{
    lua_createtable(L, n, 0);
    for (int k = 0; k < n; k++) {
        lua_createtable(L, 2, 0);
        lua_pushnumber(L, pts[2 * k]);
        lua_rawseti(L, -2, 1);
        lua_pushnumber(L, pts[2 * k + 1]);
        lua_rawseti(L, -2, 2);
        lua_rawseti(L, -2, k + 1);
    }
}

/* Sets field `key` of the table on top of the stack to the pair {xy[0], xy[1]}. */
static void tplSetPair(lua_State *L, const char *key, const double xy[2])
{
    tplPushPoints(L, xy, 1);
    lua_rawgeti(L, -1, 1);
    lua_setfield(L, -3, key);
    lua_pop(L, 1);
}

static const char *const tplPlanFields[] = {"algo", "diag", "smooth", NULL};

/* g:plan(start, goal [, {algo, diag, smooth}]) -> path table or nil, reason */
static int tplGridPlan(lua_State *L)
{
    tpNavGrid *g = tplCheckGrid(L, 1);
    double s[2], e[2];
    tplToVector(L, 2, "grid:plan: start", s, 2, 2, false);
    tplToVector(L, 3, "grid:plan: goal", e, 2, 2, false);
    tpNavPlanDef d = tpDefaultNavPlanDef();
    if (!lua_isnoneornil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        tplCheckFields(L, 4, "grid:plan options", tplPlanFields, 0);
        char algo[16] = "";
        if (tplString(L, 4, "grid:plan: ", "algo", algo, sizeof algo)) {
            if (strcmp(algo, "astar") == 0)
                d.algo = TP_NAV_ASTAR;
            else if (strcmp(algo, "dijkstra") == 0)
                d.algo = TP_NAV_DIJKSTRA;
            else
                tplError(L, "grid:plan: algo must be \"astar\" or \"dijkstra\" (got \"%s\")", algo);
        }
        d.diag = tplNumber(L, 4, "grid:plan: ", "diag", d.diag, false);
        if (d.diag < 1 || d.diag > 2)
            tplError(L, "grid:plan: diag must be in [1, 2] (got %g)", d.diag);
        d.smooth = tplBool(L, 4, "grid:plan: ", "smooth", false);
    }
    tpNavPath p = {0};
    tpNavResult r = tpNav_Plan(g, &d, s, e, &p);
    if (r != TP_NAV_OK) {
        tpNavPath_Free(&p);
        lua_pushnil(L);
        lua_pushstring(L, tpNavResult_Name(r));
        return 2;
    }
    lua_createtable(L, 0, 5);
    tplPushPoints(L, p.points, p.npoints);
    lua_setfield(L, -2, "points");
    tplSetNumber(L, "cost", p.cost);
    tplSetNumber(L, "length", p.length);
    tplSetInteger(L, "cells", p.ncells);
    tplSetInteger(L, "expanded", p.expanded);
    tpNavPath_Free(&p);
    return 1;
}

/* g:line_of_sight(a, b) */
static int tplGridLos(lua_State *L)
{
    tpNavGrid *g = tplCheckGrid(L, 1);
    double a[2], b[2];
    tplToVector(L, 2, "grid:line_of_sight: a", a, 2, 2, false);
    tplToVector(L, 3, "grid:line_of_sight: b", b, 2, 2, false);
    lua_pushboolean(L, tpNav_LineOfSight(g, a, b));
    return 1;
}

/* g:info() -> {origin, cell, size, band, radius} */
static int tplGridInfo(lua_State *L)
{
    const tpNavGridDef *d = tpNavGrid_Def(tplCheckGrid(L, 1));
    lua_createtable(L, 0, 5);
    double o[2] = {d->x0, d->y0}, sz[2] = {d->nx, d->ny}, band[2] = {d->z_min, d->z_max};
    tplSetPair(L, "origin", o);
    tplSetPair(L, "size", sz);
    tplSetPair(L, "band", band);
    tplSetNumber(L, "cell", d->cell);
    tplSetNumber(L, "radius", d->radius);
    return 1;
}

/* ---- follower ---- */

static const char *const tplFollowFields[] = {"kp",        "ktheta",      "kv",         "komega",
                                              "dt",        "speed",       "theta_turn", "turn_speed",
                                              "lookahead", "stop_radius", "max_omega",  NULL};

/* tp.nav.follower(points [, {kp, ktheta, ...}]) */
static int tplFollowerNew(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    tpNavFollowDef d = tpDefaultNavFollowDef();
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        tplCheckFields(L, 2, "tp.nav.follower options", tplFollowFields, 0);
        double *p[] = {&d.kp,         &d.ktheta,     &d.kv,        &d.komega,      &d.dt,       &d.speed,
                       &d.theta_turn, &d.turn_speed, &d.lookahead, &d.stop_radius, &d.max_omega};
        for (int i = 0; tplFollowFields[i]; i++) {
            *p[i] = tplNumber(L, 2, "tp.nav.follower: ", tplFollowFields[i], *p[i], false);
            if (!(*p[i] >= 0) || (*p[i] == 0 && (p[i] == &d.dt || p[i] == &d.speed || p[i] == &d.lookahead)))
                tplError(L, "tp.nav.follower: %s must be %s (got %g)", tplFollowFields[i],
                         (p[i] == &d.dt || p[i] == &d.speed || p[i] == &d.lookahead) ? "> 0" : ">= 0", *p[i]);
        }
    }
    int n = (int)lua_rawlen(L, 1);
    if (n < 1)
        tplError(L, "tp.nav.follower: points: expected at least one {x, y}");
    tplNavFollower *ud = lua_newuserdatauv(L, sizeof *ud, 0);
    memset(ud, 0, sizeof *ud);
    luaL_setmetatable(L, TPL_NAVFOLLOWER);
    tpNavFollower_Init(&ud->f, &d);
    double *pts = lua_newuserdatauv(L, sizeof(double) * 2 * (size_t)n, 0); /* scratch, collected */
    for (int i = 0; i < n; i++) {
        char label[64];
        snprintf(label, sizeof label, "tp.nav.follower: points[%d]", i + 1);
        lua_rawgeti(L, 1, i + 1);
        tplToVector(L, -1, label, pts + 2 * i, 2, 2, false);
        lua_pop(L, 1);
    }
    if (!tpNavFollower_SetPath(&ud->f, pts, n, pts[0], pts[1]))
        tplError(L, "tp.nav.follower: out of memory");
    lua_pop(L, 1);
    return 1;
}

static int tplFollowerGc(lua_State *L)
{
    tplNavFollower *ud = luaL_checkudata(L, 1, TPL_NAVFOLLOWER);
    tpNavFollower_Free(&ud->f);
    return 0;
}

static const char *const tplAgentFields[] = {"x", "y", "theta", "v", "omega", NULL};

/* f:step(agent) -> new agent table, done. agent = {x, y, theta, v, omega} */
static int tplFollowerStep(lua_State *L)
{
    tplNavFollower *ud = luaL_checkudata(L, 1, TPL_NAVFOLLOWER);
    luaL_checktype(L, 2, LUA_TTABLE);
    tplCheckFields(L, 2, "follower:step agent", tplAgentFields, 0);
    tpNavAgent a;
    a.x = tplReqNumber(L, 2, "follower:step: ", "x");
    a.y = tplReqNumber(L, 2, "follower:step: ", "y");
    a.theta = tplNumber(L, 2, "follower:step: ", "theta", 0.0, false);
    a.v = tplNumber(L, 2, "follower:step: ", "v", 0.0, false);
    a.omega = tplNumber(L, 2, "follower:step: ", "omega", 0.0, false);
    tpNavFollower_Step(&ud->f, &a);
    lua_createtable(L, 0, 5);
    const char *k[] = {"x", "y", "theta", "v", "omega"};
    double v[] = {a.x, a.y, a.theta, a.v, a.omega};
    for (int i = 0; i < 5; i++) {
        lua_pushnumber(L, v[i]);
        lua_setfield(L, -2, k[i]);
    }
    lua_pushboolean(L, ud->f.done);
    return 2;
}

/* ---- harmonic fields and crowds ---- */

static const char *const tplFieldFields[] = {"omega", "tol", "max_iters", NULL};

/* tp.nav.field(grid, goals [, {omega, tol, max_iters}]); goals: list of {x, y} world points */
static int tplFieldNew(lua_State *L)
{
    tpNavGrid *g = tplCheckGrid(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    int n = (int)lua_rawlen(L, 2);
    if (n < 1)
        tplError(L, "tp.nav.field: goals: expected a list of {x, y} points");
    tpNavFieldDef d = tpDefaultNavFieldDef();
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        tplCheckFields(L, 3, "tp.nav.field options", tplFieldFields, 0);
        d.omega = tplNumber(L, 3, "tp.nav.field: ", "omega", d.omega, false);
        d.tol = tplNumber(L, 3, "tp.nav.field: ", "tol", d.tol, false);
        d.max_iters = (int)tplInteger(L, 3, "tp.nav.field: ", "max_iters", d.max_iters, 1, 100000000);
    }
    int *cells = lua_newuserdatauv(L, sizeof(int) * 2 * (size_t)n, 0); /* scratch */
    for (int i = 0; i < n; i++) {
        char label[64];
        double p[2];
        snprintf(label, sizeof label, "tp.nav.field: goals[%d]", i + 1);
        lua_rawgeti(L, 2, i + 1);
        tplToVector(L, -1, label, p, 2, 2, false);
        lua_pop(L, 1);
        if (!tpNavGrid_CellOf(g, p[0], p[1], &cells[2 * i], &cells[2 * i + 1]))
            tplError(L, "%s: (%g, %g) is outside the grid", label, p[0], p[1]);
    }
    tplHandle *ud = tplNewHandle(L, &tplFieldClass, 0);
    const tpNavGridDef *gd = tpNavGrid_Def(g);
    tplChargeHandle(L, ud, (size_t)gd->nx * (size_t)gd->ny * (1 + sizeof(double))); /* kind + potential */
    char err[256];
    ud->ptr = tpCreateNavField(g, cells, n, &d, err, sizeof err);
    tplHandleMade(L, ud, err);
    return 1;
}

static tpNavField *tplCheckField(lua_State *L, int idx)
{
    return tplCheckHandle(L, idx, &tplFieldClass);
}

/* f:descent(x, y) -> dx, dy (unit) or nil */
static int tplFieldDescent(lua_State *L)
{
    double dir[2];
    if (!tpNavField_Descent(tplCheckField(L, 1), luaL_checknumber(L, 2), luaL_checknumber(L, 3), dir)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushnumber(L, dir[0]);
    lua_pushnumber(L, dir[1]);
    return 2;
}

/* f:closeness(i, j) -> u = 1 - phi of cell (i, j) (0-based) */
static int tplFieldCloseness(lua_State *L)
{
    tpNavField *f = tplCheckField(L, 1);
    lua_pushnumber(L, tpNavField_Closeness(f, (int)luaL_checkinteger(L, 2), (int)luaL_checkinteger(L, 3)));
    return 1;
}

static int tplFieldStats(lua_State *L)
{
    tpNavField *f = tplCheckField(L, 1);
    lua_pushinteger(L, tpNavField_Iterations(f));
    lua_pushnumber(L, tpNavField_Residual(f));
    return 2;
}

/* tp.nav.crowd(grid) */
static int tplCrowdNew(lua_State *L)
{
    tpNavGrid *g = tplCheckGrid(L, 1);
    tplHandle *ud = tplNewHandle(L, &tplCrowdClass, 2);
    char err[256];
    ud->ptr = tpCreateNavCrowd(g, err, sizeof err);
    tplHandleMade(L, ud, err);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    lua_newtable(L);
    lua_setiuservalue(L, -2, 2);
    return 1;
}

static tpNavCrowd *tplCheckCrowd(lua_State *L, int idx)
{
    return tplCheckHandle(L, idx, &tplCrowdClass);
}

static const char *const tplPedFields[] = {"pos", "dir",   "radius",     "step",   "ma",
                                           "eps", "v",     "behaviour",  "sine_w", "point",
                                           "n",   "relax", "free_width", "goals",  NULL};

/* c:add{pos, goals = {field, ...}, ...} -> index (1-based) */
static int tplCrowdAdd(lua_State *L)
{
    tpNavCrowd *c = tplCheckCrowd(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    const char *what = "crowd:add: ";
    tplCheckFields(L, 2, "crowd:add", tplPedFields, 0);
    tpNavPedDef d = tpDefaultNavPedDef();
    if (!tplVector(L, 2, what, "pos", d.pos, 2, 2, false))
        tplError(L, "crowd:add: 'pos' is required");
    tplVector(L, 2, what, "dir", d.dir, 2, 2, false);
    d.radius = tplNumber(L, 2, what, "radius", d.radius, false);
    d.step = tplNumber(L, 2, what, "step", d.step, false);
    d.ma = tplNumber(L, 2, what, "ma", d.ma, false);
    d.eps = tplNumber(L, 2, what, "eps", d.eps, false);
    tplVector(L, 2, what, "v", d.v, 2, 2, false);
    d.sine_w = tplNumber(L, 2, what, "sine_w", d.sine_w, false);
    tplVector(L, 2, what, "point", d.point, 2, 2, false);
    d.n = (int)tplInteger(L, 2, what, "n", d.n, 5, 63);
    d.relax = (int)tplInteger(L, 2, what, "relax", d.relax, 1, 100000);
    d.free_width = (int)tplInteger(L, 2, what, "free_width", d.free_width, 0, 30);
    char beh[16] = "";
    if (tplString(L, 2, what, "behaviour", beh, sizeof beh)) {
        const char *names[] = {"constant", "harmonic", "sine", "toward", "orthogonal"};
        int k = 0;
        while (k < 5 && strcmp(beh, names[k]) != 0)
            k++;
        if (k == 5)
            tplError(L, "crowd:add: behaviour must be constant, harmonic, sine, toward or orthogonal (got \"%s\")",
                     beh);
        d.behaviour = (tpNavBehaviour)k;
    }
    if (tplField(L, 2, "goals") != LUA_TTABLE)
        tplError(L, "crowd:add: 'goals' (a list of tp.nav.field) is required");
    int n = (int)lua_rawlen(L, -1);
    if (n < 1 || n > TP_NAV_MAX_GOALS)
        tplError(L, "crowd:add: goals: expected 1 to %d fields (got %d)", TP_NAV_MAX_GOALS, n);
    lua_getiuservalue(L, 1, 2); /* keep-alive list */
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, -2, i + 1);
        if (!luaL_testudata(L, -1, TPL_NAVFIELD))
            tplError(L, "crowd:add: goals[%d]: expected a tp.nav.field, got %s", i + 1, tplTypeName(L, -1));
        d.goals[i] = tplCheckField(L, -1);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    }
    lua_pop(L, 2);
    d.ngoals = n;
    char err[256];
    int k = tpNavCrowd_Add(c, &d, err, sizeof err);
    if (k < 0)
        tplError(L, "crowd:add: %s", err);
    lua_pushinteger(L, k + 1);
    return 1;
}

static int tplCrowdStep(lua_State *L)
{
    tpNavCrowd_Step(tplCheckCrowd(L, 1), (int)luaL_optinteger(L, 2, 0));
    return 0;
}

static int tplCrowdCount(lua_State *L)
{
    lua_pushinteger(L, tpNavCrowd_Count(tplCheckCrowd(L, 1)));
    return 1;
}

/* c:ped(k) -> {pos = {x, y}, dir = {dx, dy}, goal = next goal (1-based; ngoals + 1 = done), speed = F_a} */
static int tplCrowdPed(lua_State *L)
{
    tpNavCrowd *c = tplCheckCrowd(L, 1);
    lua_Integer k = luaL_checkinteger(L, 2);
    if (k < 1 || k > tpNavCrowd_Count(c))
        tplError(L, "crowd:ped: index %lld out of 1..%d", (long long)k, tpNavCrowd_Count(c));
    const tpNavPed *p = tpNavCrowd_Ped(c, (int)k - 1);
    lua_createtable(L, 0, 4);
    tplSetPair(L, "pos", p->pos);
    tplSetPair(L, "dir", p->dir);
    tplSetInteger(L, "goal", p->goal + 1);
    tplSetNumber(L, "speed", p->speed_factor);
    return 1;
}

static void tplNewClass(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction gc)
{
    luaL_newmetatable(L, name);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
}

/* The metatable of a handle class: its methods, and tplHandleGc as __gc. */
static void tplNewHandleClass(lua_State *L, const tplHandleClass *cls, const luaL_Reg *methods)
{
    luaL_newmetatable(L, cls->tname);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pushlightuserdata(L, (void *)cls);
    lua_pushcclosure(L, tplHandleGc, 1);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
}

/* ---- space-time navigation over moving surfaces (Lopez et al. 2011) ---- */

static const char *const tplSpaceFields[] = {"height",    "radius",        "edge",    "step_up",    "step_down",
                                             "step_gap",  "jump",          "jump_vz", "jump_vh",    "land_speed",
                                             "gravity",   "speed",         "cell",    "horizon",    "max_nodes",
                                             "min_valid", "max_rel_speed", "epsilon", "check_time", NULL};

static tpNavSpace *tplCheckSpace(lua_State *L, int idx)
{
    return tplCheckHandle(L, idx, &tplSpaceClass);
}

/* Charges the space's growth since the last charge (its search scratch grows with the surfaces
 * searched; it is charged after the call that grew it). */
static void tplSpaceRecharge(lua_State *L, int idx)
{
    tplHandle *h = luaL_checkudata(L, idx, TPL_NAVSPACE);
    size_t now = tpNavSpace_Bytes(h->ptr);
    if (now > h->charged) {
        tplCharge(L, now - h->charged);
        h->charged = now;
    }
}

/* tp.nav.space(nbodies [, {height, radius, ...}]) */
static int tplSpaceNew(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1);
    if (n < 1 || n > TP_NAV_SPACE_MAX_BODIES)
        tplError(L, "tp.nav.space: nbodies: expected 1 to %d, got %lld", TP_NAV_SPACE_MAX_BODIES, (long long)n);
    tpNavSpaceDef d = tpDefaultNavSpaceDef();
    if (!lua_isnoneornil(L, 2)) {
        const char *what = "tp.nav.space: ";
        luaL_checktype(L, 2, LUA_TTABLE);
        tplCheckFields(L, 2, "tp.nav.space options", tplSpaceFields, 0);
        double *p[] = {&d.height,  &d.radius,    &d.edge,          &d.step_up, &d.step_down, &d.step_gap, NULL,
                       &d.jump_vz, &d.jump_vh,   &d.land_speed,    &d.gravity, &d.speed,     &d.cell,     &d.horizon,
                       NULL,       &d.min_valid, &d.max_rel_speed, &d.epsilon, &d.check_time};
        for (int i = 0; tplSpaceFields[i]; i++)
            if (p[i])
                *p[i] = tplNumber(L, 2, what, tplSpaceFields[i], *p[i], false);
        d.jump = tplBool(L, 2, what, "jump", d.jump);
        d.max_nodes = (int)tplInteger(L, 2, what, "max_nodes", d.max_nodes, 1, 100000000);
    }
    tplHandle *ud = tplNewHandle(L, &tplSpaceClass, 0);
    /* the fixed part: bodies, the n x n edge and obstruction maps */
    tplChargeHandle(L, ud, (size_t)n * (size_t)n * 2 * sizeof(int) + (size_t)n * 128);
    char err[256];
    ud->ptr = tpCreateNavSpace(&d, (int)n, err, sizeof err);
    if (!ud->ptr)
        tplError(L, "tp.nav.space: %s", err);
    tplSpaceRecharge(L, -1);
    return 1;
}

static const char *const tplSpaceBodyFields[] = {"center", "half", "yaw", "vel", "yaw_rate", "surface", NULL};

/* sp:update(t, bodies): bodies = list of {center, half, yaw, vel, yaw_rate, surface}, one per body */
static int tplSpaceUpdate(lua_State *L)
{
    tpNavSpace *sp = tplCheckSpace(L, 1);
    double t = luaL_checknumber(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    int n = tpNavSpace_BodyCount(sp);
    if ((int)lua_rawlen(L, 3) != n)
        tplError(L, "space:update: bodies: expected %d bodies, got %d", n, (int)lua_rawlen(L, 3));
    tpNavSpaceBody *b = lua_newuserdatauv(L, sizeof *b * (size_t)n, 0); /* scratch, collected */
    for (int k = 0; k < n; k++) {
        char what[64];
        snprintf(what, sizeof what, "space:update: bodies[%d].", k + 1);
        lua_rawgeti(L, 3, k + 1);
        if (!lua_istable(L, -1))
            tplError(L, "space:update: bodies[%d]: expected a table, got %s", k + 1, tplTypeName(L, -1));
        tplCheckFields(L, -1, what, tplSpaceBodyFields, 0);
        b[k] = tpNavSpace_Box(0, 0, 0, 0, 0, 0, 0);
        if (!tplVector(L, -1, what, "center", b[k].center, 3, 3, false) ||
            !tplVector(L, -1, what, "half", b[k].half, 3, 3, false))
            tplError(L, "space:update: bodies[%d]: 'center' and 'half' (3 numbers each) are required", k + 1);
        tplVector(L, -1, what, "vel", b[k].vel, 3, 3, false);
        b[k].yaw = tplNumber(L, -1, what, "yaw", 0.0, false);
        b[k].yaw_rate = tplNumber(L, -1, what, "yaw_rate", 0.0, false);
        b[k].surface = tplBool(L, -1, what, "surface", true);
        lua_pop(L, 1);
    }
    char err[256];
    if (!tpNavSpace_Update(sp, t, b, err, sizeof err))
        tplError(L, "space:update: %s", err);
    tplSpaceRecharge(L, 1);
    return 0;
}

static void tplPushEdge(lua_State *L, const tpNavSpace *sp, const tpNavSpaceEdge *e)
{
    lua_createtable(L, 0, 14);
    tplSetInteger(L, "from", e->from + 1);
    tplSetInteger(L, "to", e->to + 1);
    lua_pushstring(L, e->kind == TP_NAV_REL_JUMP ? "jump" : "step");
    lua_setfield(L, -2, "kind");
    tplSetBool(L, "valid", e->valid);
    tplSetBool(L, "stable", e->stable);
    tplSetBool(L, "periodic", tpNavSpace_EdgePeriodic(e));
    tplSetInteger(L, "periods", e->periods);
    tplSetNumber(L, "mean_valid", e->mean_valid);
    tplSetNumber(L, "mean_invalid", e->mean_invalid);
    tplSetNumber(L, "mean_speed", e->mean_speed);
    double c = tpNavSpace_EdgeCost(sp, e);
    if (c >= 0)
        lua_pushnumber(L, c);
    else
        lua_pushnil(L);
    lua_setfield(L, -2, "cost");
    tplSetPair(L, "access", e->access);
    tplSetPair(L, "land", e->land);
}

static int tplSurfaceArg(lua_State *L, const tpNavSpace *sp, int idx, const char *what)
{
    lua_Integer k = luaL_checkinteger(L, idx);
    if (k < 1 || k > tpNavSpace_BodyCount(sp))
        tplError(L, "%s: expected a body index 1 to %d, got %lld", what, tpNavSpace_BodyCount(sp), (long long)k);
    return (int)k - 1;
}

/* sp:edges() -> list of edge tables */
static int tplSpaceEdges(lua_State *L)
{
    tpNavSpace *sp = tplCheckSpace(L, 1);
    int n = tpNavSpace_EdgeCount(sp);
    lua_createtable(L, n, 0);
    for (int k = 0; k < n; k++) {
        tplPushEdge(L, sp, tpNavSpace_Edge(sp, k));
        lua_rawseti(L, -2, k + 1);
    }
    return 1;
}

/* sp:edge(from, to) -> edge table or nil */
static int tplSpaceEdge(lua_State *L)
{
    tpNavSpace *sp = tplCheckSpace(L, 1);
    const tpNavSpaceEdge *e =
        tpNavSpace_FindEdge(sp, tplSurfaceArg(L, sp, 2, "space:edge: from"), tplSurfaceArg(L, sp, 3, "space:edge: to"));
    if (e)
        tplPushEdge(L, sp, e);
    else
        lua_pushnil(L);
    return 1;
}

/* sp:route(from, to) -> list of surfaces, cost; or nil */
static int tplSpaceRoute(lua_State *L)
{
    tpNavSpace *sp = tplCheckSpace(L, 1);
    tpNavSpaceRoute r;
    if (!tpNavSpace_Route(sp, tplSurfaceArg(L, sp, 2, "space:route: from"), tplSurfaceArg(L, sp, 3, "space:route: to"),
                          &r)) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, r.nsurfaces, 0);
    for (int k = 0; k < r.nsurfaces; k++) {
        lua_pushinteger(L, r.surfaces[k] + 1);
        lua_rawseti(L, -2, k + 1);
    }
    lua_pushnumber(L, r.cost);
    return 2;
}

/* sp:locate({x, y, z}) -> surface, {lx, ly}; or nil */
static int tplSpaceLocate(lua_State *L)
{
    tpNavSpace *sp = tplCheckSpace(L, 1);
    double w[3], l[2];
    tplToVector(L, 2, "space:locate: point", w, 3, 3, false);
    int k = tpNavSpace_Locate(sp, w, l);
    if (k < 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushinteger(L, k + 1);
    tplPushPoints(L, l, 1);
    lua_rawgeti(L, -1, 1);
    lua_remove(L, -2);
    return 2;
}

/* sp:stats() -> counters and cumulative milliseconds */
static int tplSpaceStats(lua_State *L)
{
    const tpNavSpaceStats *s = tpNavSpace_Stats(tplCheckSpace(L, 1));
    lua_createtable(L, 0, 10);
    const char *ik[] = {"updates", "checks", "plans", "routes", "obstruction_tests", "expanded"};
    long long iv[] = {s->updates, s->checks, s->plans, s->routes, s->obstruction_tests, s->expanded};
    for (int k = 0; k < 6; k++) {
        lua_pushinteger(L, iv[k]);
        lua_setfield(L, -2, ik[k]);
    }
    const char *dk[] = {"cd_ms", "graph_ms", "plan_ms", "obstruction_ms"};
    double dv[] = {s->cd_ms, s->graph_ms, s->plan_ms, s->obstruction_ms};
    for (int k = 0; k < 4; k++) {
        lua_pushnumber(L, dv[k]);
        lua_setfield(L, -2, dk[k]);
    }
    return 1;
}

typedef struct tplNavSpaceAgent {
    tpNavSpaceAgent a;
} tplNavSpaceAgent;

static const char *const tplSpaceAgentFields[] = {"surface", "at", "goal_surface", "goal", "t", NULL};

/* sp:agent{surface, at = {x, y}, goal_surface, goal = {x, y}, t} -> agent (keeps the space alive) */
static int tplSpaceAgentNew(lua_State *L)
{
    tpNavSpace *sp = tplCheckSpace(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    const char *what = "space:agent: ";
    tplCheckFields(L, 2, "space:agent", tplSpaceAgentFields, 0);
    int n = tpNavSpace_BodyCount(sp);
    long long s = tplInteger(L, 2, what, "surface", 0, 1, n), gs = tplInteger(L, 2, what, "goal_surface", 0, 1, n);
    if (s == 0 || gs == 0)
        tplError(L, "space:agent: 'surface' and 'goal_surface' (body indices) are required");
    double at[2], goal[2];
    if (!tplVector(L, 2, what, "at", at, 2, 2, false) || !tplVector(L, 2, what, "goal", goal, 2, 2, false))
        tplError(L, "space:agent: 'at' and 'goal' ({x, y} in the surface's frame) are required");
    double t = tplNumber(L, 2, what, "t", 0.0, false);
    tplNavSpaceAgent *ud = lua_newuserdatauv(L, sizeof *ud, 1);
    memset(ud, 0, sizeof *ud);
    luaL_setmetatable(L, TPL_NAVSPACEAGENT);
    tpNavSpaceAgent_Init(&ud->a, (int)s - 1, at, (int)gs - 1, goal, t);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

static int tplSpaceAgentGc(lua_State *L)
{
    tplNavSpaceAgent *ud = luaL_checkudata(L, 1, TPL_NAVSPACEAGENT);
    tpNavSpaceAgent_Free(&ud->a);
    return 0;
}

/* agent:step(t) -> {mode, surface, pos, local, replans, transfers, wait_time} */
static int tplSpaceAgentStep(lua_State *L)
{
    tplNavSpaceAgent *ud = luaL_checkudata(L, 1, TPL_NAVSPACEAGENT);
    double t = luaL_checknumber(L, 2);
    lua_getiuservalue(L, 1, 1);
    tpNavSpace *sp = tplCheckSpace(L, -1);
    tpNavAgentMode m = tpNavSpaceAgent_Step(sp, &ud->a, t);
    tplSpaceRecharge(L, -1);
    lua_pop(L, 1);
    const tpNavSpaceAgent *a = &ud->a;
    lua_createtable(L, 0, 7);
    lua_pushstring(L, tpNavAgentMode_Name(m));
    lua_setfield(L, -2, "mode");
    tplSetInteger(L, "surface", a->surface + 1);
    lua_createtable(L, 3, 0);
    for (int k = 0; k < 3; k++) {
        lua_pushnumber(L, a->pos[k]);
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "pos");
    tplSetPair(L, "local", a->local);
    tplSetInteger(L, "replans", a->replans);
    tplSetInteger(L, "transfers", a->transfers);
    tplSetNumber(L, "wait_time", a->wait_time);
    return 1;
}

/* ---- vehicles ---- */

static tpNavMoveTree *tplCheckTree(lua_State *L, int idx)
{
    return tplCheckHandle(L, idx, &tplTreeClass);
}

/* tp.nav.move_tree() -> the automatically built move tree with the Appendix A car */
static int tplTreeNew(lua_State *L)
{
    tpNavCarDef car = tpDefaultNavCarDef();
    tplHandle *ud = tplNewHandle(L, &tplTreeClass, 0);
    char err[256];
    ud->ptr = tpCreateNavMoveTree(&car, NULL, err, sizeof err);
    tplHandleMade(L, ud, err);
    return 1;
}

/* tree:clips() -> list of {from, to, steer, skid, frames} (levels 1-based as in Lua) */
static int tplTreeClips(lua_State *L)
{
    const tpNavMoveTree *tree = tplCheckTree(L, 1);
    int n = tpNavMoveTree_ClipCount(tree);
    lua_createtable(L, n, 0);
    for (int k = 0; k < n; k++) {
        const tpNavClip *c = tpNavMoveTree_Clip(tree, k);
        lua_createtable(L, 0, 5);
        tplSetInteger(L, "from", c->from + 1);
        tplSetInteger(L, "to", c->to + 1);
        tplSetNumber(L, "steer", c->steer);
        tplSetBool(L, "skid", c->skid);
        tplSetInteger(L, "frames", c->nframes);
        lua_rawseti(L, -2, k + 1);
    }
    return 1;
}

static const char *const tplTrackFields[] = {"walls", "cars", "goal", "finish", NULL};
static const char *const tplDriveFields[] = {"depth",    "node_limit",  "togo_cell", "start",
                                             "max_time", "closed_cell", NULL};
static const char *const tplTrafficFields[] = {"pos", "vel", "heading", "length", "width", NULL};

static void tplPushVector(lua_State *L, const double *v, int n)
{
    lua_createtable(L, n, 0);
    for (int k = 0; k < n; k++) {
        lua_pushnumber(L, v[k]);
        lua_rawseti(L, -2, k + 1);
    }
}

/* tp.nav.track(name) -> {name, walls, cars, start, goal, finish}: reads <script dir>/tracks/
 * <name>.json (docs/navigation.md, "Track files"); the table has the shape tp.nav.drive takes. */
static int tplTrack(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    if (!name[0] || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(name))
        tplError(L, "tp.nav.track: '%s' is not a track name (letters, digits, '_' and '-' only)", name);
    char err[512];
    const char *path = tplDataPath(L, "tp.nav.track", lua_pushfstring(L, "tracks/%s.json", name));
    size_t len = 0;
    char *text = tplReadData(L, path, TP_MAX_DATA_BYTES, &len, err, sizeof err); /* recorded for the plan */
    tpNavTrackFile *tf = text ? tpNavTrack_Parse(text, len, path, err, sizeof err) : NULL;
    free(text);
    if (!tf)
        tplError(L, "tp.nav.track: %s", err);
    lua_createtable(L, 0, 6);
    lua_pushstring(L, tf->name);
    lua_setfield(L, -2, "name");
    lua_createtable(L, tf->track.nwalls, 0);
    for (int i = 0; i < tf->track.nwalls; i++) {
        tplPushVector(L, tf->walls[i], 4);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "walls");
    lua_createtable(L, tf->track.ncars, 0);
    for (int i = 0; i < tf->track.ncars; i++) {
        const tpNavTrafficCar *c = &tf->cars[i];
        lua_createtable(L, 0, 5);
        tplPushVector(L, c->pos, 2);
        lua_setfield(L, -2, "pos");
        tplPushVector(L, c->vel, 2);
        lua_setfield(L, -2, "vel");
        tplSetNumber(L, "heading", c->heading);
        tplSetNumber(L, "length", c->length);
        tplSetNumber(L, "width", c->width);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "cars");
    tplPushVector(L, tf->start, 3);
    lua_setfield(L, -2, "start");
    tplPushVector(L, tf->track.goal, 2);
    lua_setfield(L, -2, "goal");
    tplPushVector(L, tf->track.finish, 4);
    lua_setfield(L, -2, "finish");
    tpNavTrack_Free(tf);
    return 1;
}

static bool tplDriveOnClip(void *user, const double pose[3], int clip)
{
    (void)pose;
    (void)clip;
    const tplLimits *lim = user;
    return !(lim->deadline > 0 && tpClock_Now() > lim->deadline);
}

/* tp.nav.drive(tree, track, opts) -> {finished, crashed, time, clips, skids} */
static int tplDrive(lua_State *L)
{
    const tpNavMoveTree *tree = tplCheckTree(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    tplCheckFields(L, 2, "tp.nav.drive track", tplTrackFields, 0);
    tpNavTrack tr;
    memset(&tr, 0, sizeof tr);
    if (!tplVector(L, 2, "tp.nav.drive: track.", "goal", tr.goal, 2, 2, false))
        tplError(L, "tp.nav.drive: track.goal is required");
    if (!tplVector(L, 2, "tp.nav.drive: track.", "finish", tr.finish, 4, 4, false))
        tplError(L, "tp.nav.drive: track.finish {x0, y0, x1, y1} is required");
    int nw = tplField(L, 2, "walls") == LUA_TTABLE ? (int)lua_rawlen(L, -1) : 0;
    double(*walls)[4] = lua_newuserdatauv(L, sizeof(double) * 4 * (size_t)(nw + 1), 0);
    for (int i = 0; i < nw; i++) {
        char label[64];
        snprintf(label, sizeof label, "tp.nav.drive: track.walls[%d]", i + 1);
        lua_rawgeti(L, -2, i + 1);
        tplToVector(L, -1, label, walls[i], 4, 4, false);
        lua_pop(L, 1);
    }
    int nc = tplField(L, 2, "cars") == LUA_TTABLE ? (int)lua_rawlen(L, -1) : 0;
    tpNavTrafficCar *cars = lua_newuserdatauv(L, sizeof *cars * (size_t)(nc + 1), 0);
    for (int i = 0; i < nc; i++) {
        char label[64];
        snprintf(label, sizeof label, "tp.nav.drive: track.cars[%d]", i + 1);
        lua_rawgeti(L, -2, i + 1);
        if (!lua_istable(L, -1))
            tplError(L, "%s: expected a table", label);
        tplCheckFields(L, -1, label, tplTrafficFields, 0);
        char what[80];
        snprintf(what, sizeof what, "%s.", label);
        memset(&cars[i], 0, sizeof cars[i]);
        tplVector(L, -1, what, "pos", cars[i].pos, 2, 2, false);
        tplVector(L, -1, what, "vel", cars[i].vel, 2, 2, false);
        cars[i].heading = tplNumber(L, -1, what, "heading", 0.0, false);
        cars[i].length = tplNumber(L, -1, what, "length", 4.0, false);
        cars[i].width = tplNumber(L, -1, what, "width", 1.8, false);
        lua_pop(L, 1);
    }
    tr.nwalls = nw;
    tr.walls = (const double(*)[4])walls;
    tr.ncars = nc;
    tr.cars = cars;
    tpNavCarPlanDef pd = tpDefaultNavCarPlanDef();
    double start[3] = {0, 0, 0}, max_time = 60.0, togo_cell = 0.5;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        tplCheckFields(L, 3, "tp.nav.drive options", tplDriveFields, 0);
        pd.depth = (int)tplInteger(L, 3, "tp.nav.drive: ", "depth", pd.depth, 1, 64);
        pd.node_limit = (int)tplInteger(L, 3, "tp.nav.drive: ", "node_limit", pd.node_limit, 1, 10000000);
        togo_cell = tplNumber(L, 3, "tp.nav.drive: ", "togo_cell", togo_cell, false);
        tplVector(L, 3, "tp.nav.drive: ", "start", start, 3, 3, false);
        max_time = tplNumber(L, 3, "tp.nav.drive: ", "max_time", max_time, false);
        pd.closed_cell = tplNumber(L, 3, "tp.nav.drive: ", "closed_cell", pd.closed_cell, false);
        if (!(pd.closed_cell >= 0))
            tplError(L, "tp.nav.drive: closed_cell must be >= 0 (got %g)", pd.closed_cell);
    }
    char err[256];
    tpNavToGo *togo = NULL;
    if (togo_cell > 0 && !(togo = tpCreateNavToGo(&tr, togo_cell, err, sizeof err)))
        tplError(L, "tp.nav.drive: %s", err);
    pd.togo = togo;
    /* a long drive runs in C, out of the instruction hook's sight: the deadline is checked at
     * every decision instead */
    tpNavDriveResult r = tpNavCar_Drive(tree, &tr, &pd, start, 0, max_time, tplDriveOnClip, tplGetLimits(L));
    tpDestroyNavToGo(togo);
    if (r.stopped)
        tplLimitExceeded(L);
    lua_createtable(L, 0, 5);
    tplSetBool(L, "finished", r.finished);
    tplSetBool(L, "crashed", r.crashed);
    tplSetNumber(L, "time", r.time);
    tplSetInteger(L, "clips", r.clips);
    tplSetInteger(L, "skids", r.skids);
    return 1;
}

void tplOpenNav(lua_State *L)
{
    static const luaL_Reg grid_methods[] = {
        {"add", tplGridAdd},           {"grow", tplGridGrow},           {"cell", tplGridCell}, {"plan", tplGridPlan},
        {"line_of_sight", tplGridLos}, {"blocked_count", tplGridCount}, {"info", tplGridInfo}, {NULL, NULL},
    };
    tplNewHandleClass(L, &tplGridClass, grid_methods);
    static const luaL_Reg follower_methods[] = {{"step", tplFollowerStep}, {NULL, NULL}};
    tplNewClass(L, TPL_NAVFOLLOWER, follower_methods, tplFollowerGc);
    static const luaL_Reg field_methods[] = {
        {"descent", tplFieldDescent}, {"closeness", tplFieldCloseness}, {"stats", tplFieldStats}, {NULL, NULL}};
    tplNewHandleClass(L, &tplFieldClass, field_methods);
    static const luaL_Reg crowd_methods[] = {
        {"add", tplCrowdAdd}, {"step", tplCrowdStep}, {"count", tplCrowdCount}, {"ped", tplCrowdPed}, {NULL, NULL}};
    tplNewHandleClass(L, &tplCrowdClass, crowd_methods);
    static const luaL_Reg tree_methods[] = {{"clips", tplTreeClips}, {NULL, NULL}};
    tplNewHandleClass(L, &tplTreeClass, tree_methods);
    static const luaL_Reg space_methods[] = {
        {"update", tplSpaceUpdate}, {"edges", tplSpaceEdges}, {"edge", tplSpaceEdge},      {"route", tplSpaceRoute},
        {"locate", tplSpaceLocate}, {"stats", tplSpaceStats}, {"agent", tplSpaceAgentNew}, {NULL, NULL}};
    tplNewHandleClass(L, &tplSpaceClass, space_methods);
    static const luaL_Reg agent_methods[] = {{"step", tplSpaceAgentStep}, {NULL, NULL}};
    tplNewClass(L, TPL_NAVSPACEAGENT, agent_methods, tplSpaceAgentGc);
    static const luaL_Reg nav_fns[] = {
        {"space", tplSpaceNew}, {"move_tree", tplTreeNew},    {"drive", tplDrive},
        {"track", tplTrack},    {"field", tplFieldNew},       {"crowd", tplCrowdNew},
        {"grid", tplGridNew},   {"follower", tplFollowerNew}, {NULL, NULL},
    };
    lua_createtable(L, 0, 8);
    luaL_setfuncs(L, nav_fns, 0);
    lua_setfield(L, -2, "nav");
}
