/* tplan lua: tp.tactic (skills and the transition table Π), the condition constructors of
 * X_goal / X_valid and the metric constructors. Body names are kept as strings here and
 * resolved by tp.domain, which reports a bad one at the line of the constructor call. */
#include "lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void tplSetWhere(lua_State *L)
{
    tplPushWhere(L);
    lua_setiuservalue(L, -2, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* Tactics                                                                                     */

static const char *const tplTacticFields[] = {"name", "body", "start", "skills", "transitions", "foreign", NULL};

static int tplNewTactic(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.tactic", tplTacticFields, 0);
    tplTactic *tc = lua_newuserdatauv(L, sizeof *tc, 4);
    memset(tc, 0, sizeof *tc);
    luaL_setmetatable(L, TPL_TACTIC);
    int ud = lua_gettop(L);
    if (!tplString(L, 1, "tp.tactic: ", "name", tc->name, sizeof tc->name) || !tc->name[0])
        tplError(L, "tp.tactic: 'name' is required");
    char what[160];
    snprintf(what, sizeof what, "tp.tactic '%s': ", tc->name);
    tplString(L, 1, what, "body", tc->body, sizeof tc->body);
    tc->foreign = tplBool(L, 1, what, "foreign", false);

    /* skills: an array, copied so that later changes to the script's table cannot matter */
    if (tplField(L, 1, "skills") != LUA_TTABLE)
        tplError(L, "%sskills: expected an array of skills, got %s", what, tplTypeName(L, -1));
    int src = lua_gettop(L);
    int k = (int)lua_rawlen(L, src);
    if (k < 1)
        tplError(L, "%sskills must not be empty", what);
    {
        lua_Integer count = 0;
        lua_pushnil(L);
        while (lua_next(L, src)) {
            lua_pop(L, 1);
            count++;
        }
        if (count != k)
            tplError(L, "%sskills must be an array (no named entries)", what);
    }
    luaL_checkstack(L, k + 8, NULL);
    const char **names = lua_newuserdatauv(L, sizeof(char *) * ((size_t)k + 1), 0); /* GC'd scratch */
    lua_createtable(L, k, 0);
    for (int i = 0; i < k; i++) {
        lua_rawgeti(L, src, i + 1);
        const tplSkill *sk = luaL_testudata(L, -1, TPL_SKILL);
        if (!sk)
            tplError(L, "%sskills[%d]: expected a skill (tp.skill.<kind>), got %s", what, i + 1, tplTypeName(L, -1));
        names[i] = sk->def.name; /* userdata memory: stays put while the copy table holds it */
        for (int j = 0; j < i; j++)
            if (strcmp(names[j], names[i]) == 0)
                tplError(L, "%sduplicate skill name '%s'", what, names[i]);
        lua_rawseti(L, -2, i + 1);
    }
    names[k] = NULL;
    lua_setiuservalue(L, ud, 2);
    tc->nskills = k;

    char start[TP_NAME_MAX];
    tc->initial = 0;
    if (tplString(L, 1, what, "start", start, sizeof start)) {
        tc->initial = -1;
        for (int i = 0; i < k; i++)
            if (strcmp(start, names[i]) == 0)
                tc->initial = i;
        if (tc->initial < 0)
            tplError(L, "%sstart: unknown skill '%s'", what, start);
    }

    /* Π: constant rows in a k*k matrix, dynamic rows as functions; rows and entries are looked
     * up by skill name in skill order, never by table iteration order */
    size_t bytes = sizeof(double) * (size_t)k * (size_t)k + sizeof(bool) * (size_t)k;
    void *mem = lua_newuserdatauv(L, bytes, 0);
    memset(mem, 0, bytes);
    tc->pi = mem;
    tc->dynamic = (bool *)(tc->pi + (size_t)k * (size_t)k);
    lua_setiuservalue(L, ud, 4);
    lua_newtable(L);
    int dyn = lua_gettop(L);
    int tt = tplField(L, 1, "transitions");
    int trans = lua_gettop(L);
    if (tt != LUA_TNIL) {
        if (tt != LUA_TTABLE)
            tplError(L, "%stransitions: expected a table, got %s", what, tplTypeName(L, -1));
        char tw[200];
        snprintf(tw, sizeof tw, "tp.tactic '%s' transitions", tc->name);
        tplCheckKeys(L, trans, tw, names, 0, "skill");
        for (int i = 0; i < k; i++) {
            int rt = tplField(L, trans, names[i]);
            if (rt == LUA_TFUNCTION) {
                tc->dynamic[i] = true;
                lua_rawseti(L, dyn, i + 1);
                continue;
            }
            if (rt != LUA_TNIL) {
                if (rt != LUA_TTABLE)
                    tplError(L, "%stransitions.%s: expected a table or a function, got %s", what, names[i],
                             tplTypeName(L, -1));
                char rw[200];
                snprintf(rw, sizeof rw, "tp.tactic '%s' transitions.%s", tc->name, names[i]);
                tplCheckKeys(L, -1, rw, names, 0, "skill");
                for (int j = 0; j < k; j++) {
                    char pw[200];
                    snprintf(pw, sizeof pw, "%stransitions.%s.", what, names[i]);
                    double p = tplNumber(L, -1, pw, names[j], 0.0, false);
                    if (p < 0)
                        tplError(L, "%stransitions.%s.%s: probability must be >= 0 (got %g)", what, names[i], names[j],
                                 p);
                    tc->pi[(size_t)i * (size_t)k + (size_t)j] = p;
                }
            }
            lua_pop(L, 1);
        }
    }
    lua_settop(L, dyn);
    lua_setiuservalue(L, ud, 3);
    lua_settop(L, ud);
    TP_VALIDATE(tplTactic_Valid, tc);
    tplSetWhere(L);
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Conditions                                                                                  */

static tplCond *tplNewCond(lua_State *L, tpCondKind kind)
{
    tplCond *c = lua_newuserdatauv(L, sizeof *c, 2);
    memset(c, 0, sizeof *c);
    luaL_setmetatable(L, TPL_COND);
    c->kind = kind;
    c->depth = 1;
    return c;
}

static void tplCondBody(lua_State *L, const char *ctor, tplCond *c, bool other)
{
    char what[128];
    snprintf(what, sizeof what, "%s: ", ctor);
    if (!tplString(L, 1, what, "body", c->body, sizeof c->body))
        tplError(L, "%s: 'body' is required", ctor);
    if (other && !tplString(L, 1, what, "other", c->other, sizeof c->other))
        tplError(L, "%s: 'other' is required", ctor);
}

static int tplWithin(lua_State *L)
{
    static const char *const known[] = {"body", "center", "radius", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.within", known, 0);
    tplCond *c = tplNewCond(L, TP_COND_IN_CIRCLE);
    tplCondBody(L, "tp.within", c, false);
    int n = tplVector(L, 1, "tp.within: ", "center", c->center, 2, 3, false);
    if (!n)
        tplError(L, "tp.within: 'center' is required");
    c->kind = n == 2 ? TP_COND_IN_CIRCLE : TP_COND_IN_SPHERE;
    c->radius = tplReqNumber(L, 1, "tp.within: ", "radius");
    if (!(c->radius > 0))
        tplError(L, "tp.within: radius must be > 0 (got %g)", c->radius);
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere(L);
    return 1;
}

static int tplInside(lua_State *L)
{
    static const char *const known[] = {"body", "min", "max", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.inside", known, 0);
    tplCond *c = tplNewCond(L, TP_COND_IN_BOX);
    tplCondBody(L, "tp.inside", c, false);
    for (int k = 0; k < 3; k++) {
        c->lo[k] = -INFINITY;
        c->hi[k] = INFINITY;
    }
    int a = tplVector(L, 1, "tp.inside: ", "min", c->lo, 1, 3, true);
    int b = tplVector(L, 1, "tp.inside: ", "max", c->hi, 1, 3, true);
    if (!a && !b)
        tplError(L, "tp.inside: give 'min', 'max' or both");
    for (int k = 0; k < 3; k++)
        if (c->lo[k] > c->hi[k])
            tplError(L, "tp.inside: min[%d] must be <= max[%d] (got %g > %g)", k + 1, k + 1, c->lo[k], c->hi[k]);
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere(L);
    return 1;
}

/* Upvalue 1: kind (SPEED_BELOW / SPEED_ABOVE); upvalue 2: constructor name. */
static int tplSpeedCond(lua_State *L)
{
    static const char *const known[] = {"body", "speed", NULL};
    tpCondKind kind = (tpCondKind)lua_tointeger(L, lua_upvalueindex(1));
    const char *ctor = lua_tostring(L, lua_upvalueindex(2));
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, ctor, known, 0);
    tplCond *c = tplNewCond(L, kind);
    tplCondBody(L, ctor, c, false);
    char what[64];
    snprintf(what, sizeof what, "%s: ", ctor);
    c->value = tplReqNumber(L, 1, what, "speed");
    if (kind == TP_COND_SPEED_BELOW && !(c->value > 0))
        tplError(L, "%s: speed must be > 0 (got %g)", ctor, c->value);
    if (!(c->value >= 0))
        tplError(L, "%s: speed must be >= 0 (got %g)", ctor, c->value);
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere(L);
    return 1;
}

static int tplNear(lua_State *L)
{
    static const char *const known[] = {"body", "other", "distance", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.near", known, 0);
    tplCond *c = tplNewCond(L, TP_COND_NEAR);
    tplCondBody(L, "tp.near", c, true);
    c->value = tplReqNumber(L, 1, "tp.near: ", "distance");
    if (!(c->value > 0))
        tplError(L, "tp.near: distance must be > 0 (got %g)", c->value);
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere(L);
    return 1;
}

/* tp.heading { body, to, angle, speed = 0.01 }: moving (planar) toward the point `to` */
static int tplHeading(lua_State *L)
{
    static const char *const known[] = {"body", "to", "angle", "speed", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.heading", known, 0);
    tplCond *c = tplNewCond(L, TP_COND_HEADING);
    tplCondBody(L, "tp.heading", c, false);
    if (!tplVector(L, 1, "tp.heading: ", "to", c->center, 2, 2, false))
        tplError(L, "tp.heading: 'to' (a 2-vector) is required");
    c->radius = tplReqNumber(L, 1, "tp.heading: ", "angle");
    if (!(c->radius >= 0 && c->radius <= 3.14159265358979323846))
        tplError(L, "tp.heading: angle must be in [0, pi] rad (got %g)", c->radius);
    c->value = 0.01;
    if (tplField(L, 1, "speed") != LUA_TNIL) {
        if (!lua_isnumber(L, -1))
            tplError(L, "tp.heading: speed: expected a number, got %s", tplTypeName(L, -1));
        c->value = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    if (!(c->value >= 0))
        tplError(L, "tp.heading: speed must be >= 0 (got %g)", c->value);
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere(L);
    return 1;
}

/* tp.touching { body, other } or { body, others = {names} }: the latter is the OR of the pairs */
static int tplTouching(lua_State *L)
{
    static const char *const known[] = {"body", "other", "others", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    tplCheckFields(L, 1, "tp.touching", known, 0);
    int t = tplField(L, 1, "others"); /* 2 */
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        tplCond *c = tplNewCond(L, TP_COND_TOUCHING);
        tplCondBody(L, "tp.touching", c, true);
        TP_VALIDATE(tplCond_Valid, c);
        tplSetWhere(L);
        return 1;
    }
    char body[TP_NAME_MAX];
    if (!tplString(L, 1, "tp.touching: ", "body", body, sizeof body))
        tplError(L, "tp.touching: 'body' is required");
    if (t != LUA_TTABLE)
        tplError(L, "tp.touching '%s': others: expected an array of body names, got %s", body, tplTypeName(L, 2));
    if (tplField(L, 1, "other") != LUA_TNIL)
        tplError(L, "tp.touching '%s': give 'other' or 'others', not both", body);
    lua_pop(L, 1);
    int n = (int)lua_rawlen(L, 2);
    if (n < 1)
        tplError(L, "tp.touching '%s': others: needs at least one body", body);
    tplCond *g = tplNewCond(L, TP_COND_OR); /* 3 */
    g->depth = 2;
    lua_createtable(L, n, 0); /* 4 */
    for (int i = 0; i < n; i++) {
        if (lua_rawgeti(L, 2, i + 1) != LUA_TSTRING)
            tplError(L, "tp.touching '%s': others[%d]: expected a body name, got %s", body, i + 1, tplTypeName(L, -1));
        size_t len = 0;
        const char *name = lua_tolstring(L, -1, &len);
        if (len >= TP_NAME_MAX)
            tplError(L, "tp.touching '%s': others[%d]: name too long", body, i + 1);
        tplCond *c = tplNewCond(L, TP_COND_TOUCHING);
        memcpy(c->body, body, sizeof c->body);
        memcpy(c->other, name, len + 1);
        TP_VALIDATE(tplCond_Valid, c);
        tplSetWhere(L);
        lua_rawseti(L, 4, i + 1);
        lua_pop(L, 1);
    }
    lua_setiuservalue(L, 3, 2);
    TP_VALIDATE(tplCond_Valid, g);
    tplSetWhere(L);
    return 1;
}

static int tplMoved(lua_State *L)
{
    static const char *const known[] = {"body", "tolerance", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.moved", known, 0);
    tplCond *c = tplNewCond(L, TP_COND_MOVED);
    tplCondBody(L, "tp.moved", c, false);
    c->value = tplNumber(L, 1, "tp.moved: ", "tolerance", 1e-3, false);
    if (!(c->value >= 0))
        tplError(L, "tp.moved: tolerance must be >= 0 (got %g)", c->value);
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere(L);
    return 1;
}

/* Upvalue 1: kind (UPRIGHT / TILTED); upvalue 2: constructor name.
 * tp.upright { body, tolerance, axis = {0, 0, 1} } / tp.tilted { body, more_than, axis } */
static int tplOrientCond(lua_State *L)
{
    tpCondKind kind = (tpCondKind)lua_tointeger(L, lua_upvalueindex(1));
    const char *ctor = lua_tostring(L, lua_upvalueindex(2));
    const char *angle = kind == TP_COND_UPRIGHT ? "tolerance" : "more_than";
    const char *const known[] = {"body", angle, "axis", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, ctor, known, 0);
    tplCond *c = tplNewCond(L, kind);
    tplCondBody(L, ctor, c, false);
    char what[160];
    snprintf(what, sizeof what, "%s '%s': ", ctor, c->body);
    c->radius = tplReqNumber(L, 1, what, angle);
    if (!(c->radius >= 0 && c->radius <= 3.14159265358979323846))
        tplError(L, "%s%s must be in [0, pi] rad (got %g)", what, angle, c->radius);
    c->center[0] = c->center[1] = 0.0;
    c->center[2] = 1.0;
    if (tplVector(L, 1, what, "axis", c->center, 3, 3, false)) {
        double n = sqrt(c->center[0] * c->center[0] + c->center[1] * c->center[1] + c->center[2] * c->center[2]);
        if (!(n > 0) || !isfinite(n))
            tplError(L, "%saxis must be a non-zero vector (got {%g, %g, %g})", what, c->center[0], c->center[1],
                     c->center[2]);
        for (int k = 0; k < 3; k++)
            c->center[k] /= n;
    }
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere(L);
    return 1;
}

/* tp.settled { bodies = {names}, speed = m/s, angular = rad/s }: at least one of the two speeds */
static int tplSettled(lua_State *L)
{
    static const char *const known[] = {"bodies", "speed", "angular", NULL};
    const char *ctor = "tp.settled";
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    tplCheckFields(L, 1, ctor, known, 0);
    if (tplField(L, 1, "bodies") != LUA_TTABLE) /* 2 */
        tplError(L, "%s: bodies: expected an array of body names, got %s", ctor, tplTypeName(L, -1));
    int n = (int)lua_rawlen(L, 2);
    if (n < 1)
        tplError(L, "%s: bodies: needs at least one body", ctor);
    lua_createtable(L, n, 0); /* 3: a copy, so a later change to the script's table does not matter */
    for (int i = 0; i < n; i++) {
        if (lua_rawgeti(L, 2, i + 1) != LUA_TSTRING)
            tplError(L, "%s: bodies[%d]: expected a body name, got %s", ctor, i + 1, tplTypeName(L, -1));
        if (lua_rawlen(L, -1) >= TP_NAME_MAX)
            tplError(L, "%s: bodies[%d]: name too long", ctor, i + 1);
        lua_rawseti(L, 3, i + 1);
    }
    char what[160];
    lua_rawgeti(L, 3, 1);
    snprintf(what, sizeof what, "%s '%s'%s: ", ctor, lua_tostring(L, -1), n > 1 ? ", ..." : "");
    lua_pop(L, 1);
    double speed = tplNumber(L, 1, what, "speed", INFINITY, true);
    double angular = tplNumber(L, 1, what, "angular", INFINITY, true);
    if (isinf(speed) && isinf(angular))
        tplError(L, "%sgive 'speed' (m/s), 'angular' (rad/s) or both", what);
    if (!(speed > 0))
        tplError(L, "%sspeed must be > 0 (got %g)", what, speed);
    if (!(angular > 0))
        tplError(L, "%sangular must be > 0 (got %g)", what, angular);
    tplCond *c = tplNewCond(L, TP_COND_SETTLED); /* 4 */
    c->value = speed;
    c->radius = angular; /* carried to tpCond.angular by tp.domain */
    lua_createtable(L, 1, 0);
    lua_pushvalue(L, 3);
    lua_rawseti(L, -2, 1);
    lua_setiuservalue(L, 4, 2);
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere(L);
    return 1;
}

/* Depth of a child (a condition or a function); raises on anything else. */
static int tplChildDepth(lua_State *L, int idx, const char *label)
{
    if (lua_type(L, idx) == LUA_TFUNCTION)
        return 1;
    const tplCond *c = luaL_testudata(L, idx, TPL_COND);
    if (!c)
        tplError(L, "%s: expected a condition or a function, got %s", label, tplTypeName(L, idx));
    return c->depth;
}

/* Upvalue 1: kind (AND / OR); upvalue 2: constructor name. */
static int tplGroup(lua_State *L)
{
    tpCondKind kind = (tpCondKind)lua_tointeger(L, lua_upvalueindex(1));
    const char *ctor = lua_tostring(L, lua_upvalueindex(2));
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)lua_rawlen(L, 1);
    static const char *const none[] = {NULL};
    tplCheckFields(L, 1, ctor, none, n);
    if (n < 1)
        tplError(L, "%s: expected at least one condition", ctor);
    tplCond *c = tplNewCond(L, kind);
    int ud = lua_gettop(L);
    lua_createtable(L, n, 0);
    int depth = 0;
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        char label[64];
        snprintf(label, sizeof label, "%s: entry %d", ctor, i + 1);
        int d = tplChildDepth(L, -1, label);
        if (d > depth)
            depth = d;
        lua_rawseti(L, -2, i + 1);
    }
    lua_setiuservalue(L, ud, 2);
    c->depth = depth + 1;
    if (c->depth > TPL_COND_MAX_DEPTH)
        tplError(L, "%s: conditions nested deeper than %d", ctor, TPL_COND_MAX_DEPTH);
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere(L);
    return 1;
}

/* Upvalue 1: kind (NOT / EVER / NEVER); upvalue 2: constructor name. tp.negate(c), tp.ever(c),
 * tp.never(c): one operand, a condition or a function. */
static int tplUnaryCond(lua_State *L)
{
    tpCondKind kind = (tpCondKind)lua_tointeger(L, lua_upvalueindex(1));
    const char *ctor = lua_tostring(L, lua_upvalueindex(2));
    luaL_checkany(L, 1);
    lua_settop(L, 1);
    int d = tplChildDepth(L, 1, ctor);
    tplCond *c = tplNewCond(L, kind);
    c->depth = d + 1;
    if (c->depth > TPL_COND_MAX_DEPTH)
        tplError(L, "%s: conditions nested deeper than %d", ctor, TPL_COND_MAX_DEPTH);
    lua_createtable(L, 1, 0);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    lua_setiuservalue(L, -2, 2);
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere(L);
    return 1;
}

/* Upvalue 1: kind (WITHIN_TIME / AT_TIME); upvalue 2: constructor name.
 * tp.within_time { c, from = s, to = s } / tp.at_time { c, t = s } */
static int tplTimeCond(lua_State *L)
{
    tpCondKind kind = (tpCondKind)lua_tointeger(L, lua_upvalueindex(1));
    const char *ctor = lua_tostring(L, lua_upvalueindex(2));
    static const char *const window[] = {"from", "to", NULL}, *const at[] = {"t", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    const int n = (int)lua_rawlen(L, 1);
    tplCheckFields(L, 1, ctor, kind == TP_COND_WITHIN_TIME ? window : at, n);
    if (n != 1)
        tplError(L, "%s: expected one condition (entry 1), got %d entries", ctor, n);
    lua_rawgeti(L, 1, 1); /* 2 */
    char label[64];
    snprintf(label, sizeof label, "%s: entry 1", ctor);
    int d = tplChildDepth(L, 2, label);
    char what[64];
    snprintf(what, sizeof what, "%s: ", ctor);
    double t0, t1;
    if (kind == TP_COND_WITHIN_TIME) {
        t0 = tplNumber(L, 1, what, "from", 0.0, false);
        t1 = tplNumber(L, 1, what, "to", INFINITY, true);
        if (!(t0 >= 0))
            tplError(L, "%sfrom must be >= 0 s (got %g)", what, t0);
        if (!(t0 <= t1))
            tplError(L, "%sfrom must be <= to (got from = %g > to = %g)", what, t0, t1);
        if (isinf(t1))
            t1 = 1e300; /* the window stays open (finite for the checks in C) */
    } else {
        t0 = t1 = tplReqNumber(L, 1, what, "t");
        if (!(t0 >= 0) || !isfinite(t0))
            tplError(L, "%st must be a finite time >= 0 s (got %g)", what, t0);
    }
    tplCond *c = tplNewCond(L, kind); /* 3 */
    c->t0 = t0;
    c->t1 = t1;
    c->depth = d + 1;
    if (c->depth > TPL_COND_MAX_DEPTH)
        tplError(L, "%s: conditions nested deeper than %d", ctor, TPL_COND_MAX_DEPTH);
    lua_createtable(L, 1, 0);
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, 1);
    lua_setiuservalue(L, 3, 2);
    TP_VALIDATE(tplCond_Valid, c);
    tplSetWhere(L);
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Metrics                                                                                     */

static tplMetric *tplNewMetric(lua_State *L, tpMetricKind kind)
{
    tplMetric *m = lua_newuserdatauv(L, sizeof *m, 1);
    memset(m, 0, sizeof *m);
    luaL_setmetatable(L, TPL_METRIC);
    m->kind = kind;
    return m;
}

static int tplDistance(lua_State *L)
{
    static const char *const known[] = {"body", "to", "planar", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.distance", known, 0);
    tplMetric *m = tplNewMetric(L, TP_METRIC_DISTANCE);
    if (!tplString(L, 1, "tp.distance: ", "body", m->body, sizeof m->body))
        tplError(L, "tp.distance: 'body' is required");
    int n = tplVector(L, 1, "tp.distance: ", "to", m->point, 2, 3, false);
    if (!n)
        tplError(L, "tp.distance: 'to' is required");
    m->planar = tplBool(L, 1, "tp.distance: ", "planar", n == 2);
    if (n == 2 && !m->planar)
        tplError(L, "tp.distance: a 2D 'to' needs planar = true");
    TP_VALIDATE(tplMetric_Valid, m);
    tplSetWhere(L);
    return 1;
}

static int tplEffort(lua_State *L)
{
    static const char *const known[] = {"bodies", NULL};
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.effort", known, 0);
    tplMetric *m = tplNewMetric(L, TP_METRIC_EFFORT);
    int t = tplField(L, 1, "bodies");
    if (t != LUA_TNIL) {
        if (t != LUA_TTABLE)
            tplError(L, "tp.effort: bodies: expected an array of body names, got %s", tplTypeName(L, -1));
        int n = (int)lua_rawlen(L, -1);
        if (n > 16)
            tplError(L, "tp.effort: at most 16 bodies (got %d)", n);
        for (int i = 0; i < n; i++) {
            if (lua_rawgeti(L, -1, i + 1) != LUA_TSTRING)
                tplError(L, "tp.effort: bodies[%d]: expected a body name, got %s", i + 1, tplTypeName(L, -1));
            size_t len = 0;
            const char *s = lua_tolstring(L, -1, &len);
            if (len >= TP_NAME_MAX)
                tplError(L, "tp.effort: bodies[%d]: name too long", i + 1);
            memcpy(m->bodies[i], s, len + 1);
            lua_pop(L, 1);
        }
        m->nbodies = n;
    }
    lua_pop(L, 1);
    TP_VALIDATE(tplMetric_Valid, m);
    tplSetWhere(L);
    return 1;
}

static const luaL_Reg tplTacticFns[] = {
    {"tactic", tplNewTactic},
    {"within", tplWithin},
    {"inside", tplInside},
    {"near", tplNear},
    {"touching", tplTouching},
    {"moved", tplMoved},
    {"distance", tplDistance},
    {"effort", tplEffort},
    {"heading", tplHeading},
    {"settled", tplSettled},
    {NULL, NULL},
};

void tplOpenTactics(lua_State *L)
{
    const char *types[] = {TPL_TACTIC, TPL_COND, TPL_METRIC};
    for (int i = 0; i < 3; i++) {
        luaL_newmetatable(L, types[i]);
        lua_pop(L, 1);
    }
    luaL_setfuncs(L, tplTacticFns, 0);
    static const struct {
        const char *name;
        tpCondKind kind;
        lua_CFunction fn;
    } closures[] = {{"slower", TP_COND_SPEED_BELOW, tplSpeedCond},
                    {"faster", TP_COND_SPEED_ABOVE, tplSpeedCond},
                    {"all", TP_COND_AND, tplGroup},
                    {"any", TP_COND_OR, tplGroup},
                    {"upright", TP_COND_UPRIGHT, tplOrientCond},
                    {"tilted", TP_COND_TILTED, tplOrientCond},
                    {"sequence", TP_COND_SEQUENCE, tplGroup},
                    {"negate", TP_COND_NOT, tplUnaryCond},
                    {"ever", TP_COND_EVER, tplUnaryCond},
                    {"never", TP_COND_NEVER, tplUnaryCond},
                    {"within_time", TP_COND_WITHIN_TIME, tplTimeCond},
                    {"at_time", TP_COND_AT_TIME, tplTimeCond}};
    for (int i = 0; i < (int)(sizeof closures / sizeof closures[0]); i++) {
        lua_pushinteger(L, closures[i].kind);
        lua_pushfstring(L, "tp.%s", closures[i].name);
        lua_pushcclosure(L, closures[i].fn, 2);
        lua_setfield(L, -2, closures[i].name);
    }
}
