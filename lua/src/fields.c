/* tplan lua: field readers shared by every constructor.
 *
 * Every reader raises a Lua error naming the field and the offending value, so a typo or a
 * wrong type in a domain script fails at the line of the constructor call. `what` is a
 * message prefix that ends with its own separator ("tp.box 'robot': ", "tp.domain: planner."). */
#include "lua_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tplError(lua_State *L, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    luaL_where(L, 1); /* the Lua line that called the running C function */
    lua_pushstring(L, msg);
    lua_concat(L, 2);
    return lua_error(L);
}

int tplErrorAt(lua_State *L, const char *where, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* where comes from luaL_where: "file:line: ", separator included */
    lua_pushfstring(L, "%s%s", where, msg);
    return lua_error(L);
}

const char *tplTypeName(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TUSERDATA && lua_getmetatable(L, idx)) {
        lua_getfield(L, -1, "__name");
        const char *name = lua_tostring(L, -1); /* interned in the metatable: stays valid */
        lua_pop(L, 2);
        if (name)
            return name;
    }
    return luaL_typename(L, idx);
}

bool tplIsKnown(const char *key, const char *const *known)
{
    for (int i = 0; known[i]; i++)
        if (strcmp(key, known[i]) == 0)
            return true;
    return false;
}

void tplPushJoined(lua_State *L, const char *const *names)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; names[i]; i++) {
        if (i)
            luaL_addstring(&b, ", ");
        luaL_addstring(&b, names[i]);
    }
    luaL_pushresult(&b);
}

const char *tplFirstUnknownKey(lua_State *L, int idx, const char *const *known, int narray, bool *bad_array)
{
    idx = lua_absindex(L, idx);
    luaL_checkstack(L, 6, NULL);
    /* Lua randomises string hashing per run, so lua_next order differs between runs: collect
     * the alphabetically first unknown key so the message never depends on it. */
    const char *first = NULL;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING) {
            const char *k = lua_tostring(L, -1);
            if (!tplIsKnown(k, known) && (!first || strcmp(k, first) < 0))
                first = k; /* key stays in the table */
        } else if (bad_array) {
            lua_Integer i = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
            if (i < 1 || i > narray)
                *bad_array = true;
        }
    }
    return first;
}

void tplCheckFields(lua_State *L, int idx, const char *what, const char *const *known, int narray)
{
    tplCheckKeys(L, idx, what, known, narray, "field");
}

void tplCheckKeys(lua_State *L, int idx, const char *what, const char *const *known, int narray, const char *noun)
{
    bool bad_array = false;
    const char *first = tplFirstUnknownKey(L, idx, known, narray, &bad_array);
    if (first) {
        tplPushJoined(L, known);
        tplError(L, "unknown %s '%s' in %s (known: %s)", noun, first, what, lua_tostring(L, -1));
    }
    if (bad_array) {
        if (narray == 0)
            tplError(L, "%s: unexpected array entry (fields must be named)", what);
        tplError(L, "%s: expected at most %d unnamed entries", what, narray);
    }
}

int tplField(lua_State *L, int idx, const char *key)
{
    idx = lua_absindex(L, idx);
    lua_pushstring(L, key);
    return lua_rawget(L, idx);
}

double tplNumber(lua_State *L, int idx, const char *what, const char *key, double def, bool allow_inf)
{
    int t = tplField(L, idx, key);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return def;
    }
    if (t != LUA_TNUMBER)
        tplError(L, "%s%s: expected a number, got %s", what, key, tplTypeName(L, -1));
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (isnan(v))
        tplError(L, "%s%s: expected a number, got nan", what, key);
    if (!allow_inf && isinf(v))
        tplError(L, "%s%s must be finite (got %g)", what, key, v);
    return v;
}

double tplReqNumber(lua_State *L, int idx, const char *what, const char *key)
{
    int t = tplField(L, idx, key);
    lua_pop(L, 1);
    if (t == LUA_TNIL)
        tplError(L, "%s'%s' is required", what, key);
    return tplNumber(L, idx, what, key, 0.0, false);
}

long long tplInteger(lua_State *L, int idx, const char *what, const char *key, long long def, long long lo,
                     long long hi)
{
    int t = tplField(L, idx, key);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return def;
    }
    if (t != LUA_TNUMBER)
        tplError(L, "%s%s: expected an integer, got %s", what, key, tplTypeName(L, -1));
    int ok = 0;
    lua_Integer v = lua_tointegerx(L, -1, &ok);
    if (!ok)
        tplError(L, "%s%s: expected an integer, got %g", what, key, lua_tonumber(L, -1));
    lua_pop(L, 1);
    if (v < lo || v > hi)
        tplError(L, "%s%s must be in [%lld, %lld] (got %lld)", what, key, lo, hi, (long long)v);
    return v;
}

bool tplBool(lua_State *L, int idx, const char *what, const char *key, bool def)
{
    int t = tplField(L, idx, key);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return def;
    }
    if (t != LUA_TBOOLEAN)
        tplError(L, "%s%s: expected a boolean, got %s", what, key, tplTypeName(L, -1));
    bool v = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

bool tplString(lua_State *L, int idx, const char *what, const char *key, char *out, size_t cap)
{
    int t = tplField(L, idx, key);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return false;
    }
    if (t != LUA_TSTRING)
        tplError(L, "%s%s: expected a string, got %s", what, key, tplTypeName(L, -1));
    size_t len = 0;
    const char *s = lua_tolstring(L, -1, &len);
    if (len >= cap)
        tplError(L, "%s%s: '%s' is too long (at most %d bytes)", what, key, s, (int)cap - 1);
    if (strlen(s) != len)
        tplError(L, "%s%s: embedded zero byte", what, key);
    memcpy(out, s, len + 1);
    lua_pop(L, 1);
    return true;
}

int tplToVector(lua_State *L, int idx, const char *label, double *out, int mindim, int maxdim, bool allow_inf)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE) {
        if (mindim == maxdim)
            tplError(L, "%s: expected a vector of %d numbers, got %s", label, mindim, tplTypeName(L, idx));
        tplError(L, "%s: expected a vector of %d to %d numbers, got %s", label, mindim, maxdim, tplTypeName(L, idx));
    }
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    /* count every key too: {x = 1, y = 2} has rawlen 0 and must not read as an empty vector */
    lua_Integer count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        count++;
    }
    if (n < mindim || n > maxdim || count != n) {
        if (mindim == maxdim)
            tplError(L, "%s: expected a vector of %d numbers", label, mindim);
        tplError(L, "%s: expected a vector of %d to %d numbers", label, mindim, maxdim);
    }
    for (int i = 0; i < (int)n; i++) {
        if (lua_rawgeti(L, idx, i + 1) != LUA_TNUMBER)
            tplError(L, "%s[%d]: expected a number, got %s", label, i + 1, tplTypeName(L, -1));
        double v = lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (isnan(v) || (!allow_inf && isinf(v)))
            tplError(L, "%s[%d] must be finite (got %g)", label, i + 1, v);
        out[i] = v;
    }
    return (int)n;
}

int tplVector(lua_State *L, int idx, const char *what, const char *key, double *out, int mindim, int maxdim,
              bool allow_inf)
{
    idx = lua_absindex(L, idx);
    if (tplField(L, idx, key) == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    char label[256];
    snprintf(label, sizeof label, "%s%s", what, key);
    int n = tplToVector(L, -1, label, out, mindim, maxdim, allow_inf);
    lua_pop(L, 1);
    return n;
}

void tplPushWhere(lua_State *L)
{
    luaL_where(L, 1);
}

bool tplHasPosition(const char *msg)
{
    for (const char *p = msg; *p && *p != '\n'; p++) {
        if (p[0] != ':' || !(p[1] >= '0' && p[1] <= '9'))
            continue;
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q != ':')
            continue;
        size_t n = (size_t)(p - msg);
        return (n >= 4 && strncmp(p - 4, ".lua", 4) == 0) || strncmp(msg, "[string ", 8) == 0;
    }
    return false;
}

int tplMsgHandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else if (lua_isnil(L, 1))
            msg = "error(nil) raised (an error without a message)";
        else
            msg = lua_pushfstring(L, "error object is a %s value", luaL_typename(L, 1));
    }
    /* Lua names a file by its shortened chunk id ("...ectory/helper.lua:3:" for a long path):
     * when a function on the stack comes from that file, name it by its full path (a module
     * loaded by require, whose path tplFixPath does not know). */
    lua_Debug ar;
    bool positioned = false;
    for (int level = 0; lua_getstack(L, level, &ar); ++level) {
        if (!lua_getinfo(L, "S", &ar) || ar.source[0] != '@')
            continue;
        size_t n = strlen(ar.short_src);
        if (n > 0 && strncmp(msg, ar.short_src, n) == 0 && msg[n] == ':') {
            if (strcmp(ar.short_src, ar.source + 1) != 0)
                msg = lua_pushfstring(L, "%s%s", ar.source + 1, msg + n);
            positioned = true;
            break;
        }
    }
    /* An error raised inside a C function (table.sort's comparison, a yield outside a
     * coroutine, error(nil)) carries no position: name the nearest line of a script on the
     * stack, so every message is "file:line: message". */
    if (!positioned && !tplHasPosition(msg)) {
        for (int level = 1; lua_getstack(L, level, &ar); ++level) {
            if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 && ar.source[0] == '@') {
                msg = lua_pushfstring(L, "%s:%d: %s", ar.source + 1, ar.currentline, msg);
                break;
            }
        }
    }
    /* One line, "file:line: message", for every error (raised by error(), by a tp.* function or
     * by a bad return value); the Lua stack traceback only when TPLAN_TRACEBACK is set (not "0"):
     * it is for debugging the host, the message already names the line of the mistake. */
    const char *tb = getenv("TPLAN_TRACEBACK");
    if (tb && tb[0] && strcmp(tb, "0") != 0) {
        luaL_traceback(L, L, msg, 1);
    } else {
        lua_pushstring(L, msg);
    }
    return 1;
}

const char *tplPushFullPath(lua_State *L, const char *msg, const char *path)
{
    /* a long chunk id is "..." followed by the path's last characters */
    size_t len = strlen(path);
    if (strncmp(msg, "...", 3) == 0) {
        for (size_t m = len; m > 0; --m) {
            if (strncmp(msg + 3, path + len - m, m) == 0 && msg[3 + m] == ':') {
                return lua_pushfstring(L, "%s%s", path, msg + 3 + m);
            }
        }
    }
    return lua_pushstring(L, msg);
}

void tplFixPath(char *out, size_t cap, const char *msg, const char *path, const char *short_src)
{
    size_t n = strlen(short_src);
    if (n > 0 && strcmp(path, short_src) != 0 && strncmp(msg, short_src, n) == 0 && msg[n] == ':') {
        snprintf(out, cap, "%s%s", path, msg + n);
        return;
    }
    snprintf(out, cap, "%s", msg);
}
