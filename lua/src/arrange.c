/* Lua bindings for "arrange many bodies" domains (the many-dice domain, paper Sec. 6.4):
 *   tp.arranged { bodies, points, radius, speed, fraction }  a condition (and metric)
 *   tp.peak_force { bodies }                                 a metric (control force per weight)
 *   tp.pattern { text | image, count, pitch, invert }        target cells from core/pattern.h
 * The pattern code is C in core/ because an image must be read from a file (scripts have no
 * io library) and the same rasteriser serves tests without Lua. */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua_internal.h"
#include "tp/pattern.h"

static void tplSetWhere1(lua_State *L)
{
    tplPushWhere(L);
    lua_setiuservalue(L, -2, 1);
}

/* Reads array field `key` of the table at 1 into a new table (pushed) and returns its length. */
static int tplArrayField(lua_State *L, const char *ctor, const char *key)
{
    if (tplField(L, 1, key) != LUA_TTABLE)
        tplError(L, "%s: %s: expected an array, got %s", ctor, key, tplTypeName(L, -1));
    return (int)lua_rawlen(L, -1);
}

/* tp.arranged { bodies = {names}, points = {{x, y[, z]}, ...}, radius, speed = 0, fraction = 1 } */
static int tplArranged(lua_State *L)
{
    static const char *const known[] = {"bodies", "points", "radius", "speed", "fraction", NULL};
    const char *ctor = "tp.arranged";
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    tplCheckFields(L, 1, ctor, known, 0);
    int nb = tplArrayField(L, ctor, "bodies"); /* 2 */
    int np = tplArrayField(L, ctor, "points"); /* 3 */
    if (nb < 1)
        tplError(L, "%s: bodies: needs at least one body", ctor);
    if (np != nb)
        tplError(L, "%s: points: expected %d points (one per body), got %d", ctor, nb, np);
    lua_createtable(L, nb, 0); /* 4: names */
    lua_createtable(L, np, 0); /* 5: points as flat xyz */
    int dim = 0;
    for (int i = 0; i < nb; i++) {
        if (lua_rawgeti(L, 2, i + 1) != LUA_TSTRING)
            tplError(L, "%s: bodies[%d]: expected a body name, got %s", ctor, i + 1, tplTypeName(L, -1));
        lua_rawseti(L, 4, i + 1);
        lua_rawgeti(L, 3, i + 1);
        char label[64];
        snprintf(label, sizeof label, "%s: points[%d]", ctor, i + 1);
        double p[3] = {0, 0, 0};
        int d = tplToVector(L, lua_gettop(L), label, p, 2, 3, false);
        lua_pop(L, 1);
        if (dim && d != dim)
            tplError(L, "%s: all points must have the same dimension (points[1] has %d, points[%d] has %d)", label, dim,
                     i + 1, d);
        dim = d;
        for (int k = 0; k < 3; k++) {
            lua_pushnumber(L, p[k]);
            lua_rawseti(L, 5, 3 * i + k + 1);
        }
    }
    double radius = tplReqNumber(L, 1, "tp.arranged: ", "radius");
    if (!(radius > 0))
        tplError(L, "%s: radius must be > 0 (got %g)", ctor, radius);
    double speed = tplNumber(L, 1, "tp.arranged: ", "speed", 0.0, false);
    if (!(speed >= 0))
        tplError(L, "%s: speed must be >= 0 (got %g)", ctor, speed);
    double fraction = tplNumber(L, 1, "tp.arranged: ", "fraction", 1.0, false);
    if (!(fraction > 0 && fraction <= 1))
        tplError(L, "%s: fraction must be in (0, 1] (got %g)", ctor, fraction);
    tplCond *c = lua_newuserdatauv(L, sizeof *c, 2); /* 6 */
    memset(c, 0, sizeof *c);
    luaL_setmetatable(L, TPL_COND);
    c->kind = TP_COND_ARRANGED;
    c->depth = 1;
    c->radius = radius;
    c->value = speed;
    c->fraction = fraction;
    c->dim = dim;
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, 4);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, 5);
    lua_rawseti(L, -2, 2);
    lua_setiuservalue(L, 6, 2);
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere1(L);
    return 1;
}

/* tp.peak_force { bodies = {...} }: like tp.effort */
static int tplPeakForce(lua_State *L)
{
    static const char *const known[] = {"bodies", NULL};
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.peak_force", known, 0);
    tplMetric *m = lua_newuserdatauv(L, sizeof *m, 1);
    memset(m, 0, sizeof *m);
    luaL_setmetatable(L, TPL_METRIC);
    m->kind = TP_METRIC_PEAK_FORCE;
    int t = tplField(L, 1, "bodies");
    if (t != LUA_TNIL) {
        if (t != LUA_TTABLE)
            tplError(L, "tp.peak_force: bodies: expected an array of body names, got %s", tplTypeName(L, -1));
        int n = (int)lua_rawlen(L, -1);
        if (n > 16)
            tplError(L, "tp.peak_force: at most 16 bodies (got %d; omit 'bodies' for all)", n);
        for (int i = 0; i < n; i++) {
            if (lua_rawgeti(L, -1, i + 1) != LUA_TSTRING)
                tplError(L, "tp.peak_force: bodies[%d]: expected a body name, got %s", i + 1, tplTypeName(L, -1));
            size_t len = 0;
            const char *s = lua_tolstring(L, -1, &len);
            if (len >= TP_NAME_MAX)
                tplError(L, "tp.peak_force: bodies[%d]: name too long", i + 1);
            memcpy(m->bodies[i], s, len + 1);
            lua_pop(L, 1);
        }
        m->nbodies = n;
    }
    lua_pop(L, 1);
    TP_VALIDATE(tplMetric_Valid, m);
    tplSetWhere1(L);
    return 1;
}

/* tp.pattern { text = "TP" | image = "logo.pgm", count = 400, pitch = 0.15, invert = false }
 * -> array of count {x, y} cell centres (m), centred on the origin, top row first. A relative
 * image path is relative to the script's directory. */
static int tplPattern(lua_State *L)
{
    static const char *const known[] = {"text", "image", "count", "pitch", "invert", NULL};
    const char *ctor = "tp.pattern";
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    tplCheckFields(L, 1, ctor, known, 0);
    int tt = tplField(L, 1, "text");
    int ti = tplField(L, 1, "image");
    lua_pop(L, 2);
    if ((tt == LUA_TNIL) == (ti == LUA_TNIL))
        tplError(L, "%s: give exactly one of 'text' and 'image'", ctor);
    long long count = tplInteger(L, 1, "tp.pattern: ", "count", 0, 1, 100000);
    if (count < 1)
        tplError(L, "%s: 'count' is required (number of target cells, 1..100000)", ctor);
    double pitch = tplReqNumber(L, 1, "tp.pattern: ", "pitch");
    if (!(pitch > 0))
        tplError(L, "%s: pitch must be > 0 (got %g)", ctor, pitch);
    bool invert = tplBool(L, 1, "tp.pattern: ", "invert", false);
    char err[512] = "";
    tpBitmap bm;
    bool ok;
    if (tt != LUA_TNIL) {
        if (tt != LUA_TSTRING) {
            tplField(L, 1, "text");
            tplError(L, "%s: text: expected a string, got %s", ctor, tplTypeName(L, -1));
        }
        tplField(L, 1, "text");
        ok = tpBitmap_FromText(lua_tostring(L, -1), &bm, err, sizeof err);
        lua_pop(L, 1);
        if (ok && invert) {
            for (size_t i = 0; i < (size_t)bm.w * (size_t)bm.h; i++)
                bm.px[i] ^= 1u;
        }
    } else {
        if (ti != LUA_TSTRING) {
            tplField(L, 1, "image");
            tplError(L, "%s: image: expected a file name, got %s", ctor, tplTypeName(L, -1));
        }
        tplField(L, 1, "image");
        /* a file inside the script's folder only (an untrusted script must not probe others) */
        char what[64];
        snprintf(what, sizeof what, "%s: image", ctor);
        const char *img = tplDataPath(L, what, lua_tostring(L, -1));
        size_t len = 0;
        unsigned char *data = (unsigned char *)tplReadData(L, img, TP_MAX_DATA_BYTES, &len, err, sizeof err);
        ok = data && tpBitmap_ParsePnm(data, len, img, invert, &bm, err, sizeof err);
        free(data);
    }
    if (!ok)
        tplError(L, "%s: %s", ctor, err);
    double *xy = malloc(sizeof *xy * 2 * (size_t)count);
    if (!xy) {
        tpBitmap_Free(&bm);
        tplError(L, "%s: out of memory", ctor);
    }
    int n = tpPattern_Cells(&bm, (int)count, pitch, xy, err, sizeof err);
    tpBitmap_Free(&bm);
    if (n < 0) {
        free(xy);
        tplError(L, "%s: %s", ctor, err);
    }
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 2, 0);
        lua_pushnumber(L, xy[2 * i]);
        lua_rawseti(L, -2, 1);
        lua_pushnumber(L, xy[2 * i + 1]);
        lua_rawseti(L, -2, 2);
        lua_rawseti(L, -2, i + 1);
    }
    free(xy);
    return 1;
}

static const luaL_Reg tplArrangeFns[] = {
    {"arranged", tplArranged},
    {"peak_force", tplPeakForce},
    {"pattern", tplPattern},
    {NULL, NULL},
};

void tplOpenArrange(lua_State *L)
{
    luaL_setfuncs(L, tplArrangeFns, 0);
}
