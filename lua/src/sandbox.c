/* tplan lua: the sandbox a domain script runs in, and its limits.
 *
 * The environment is an allow-list (docs/lua-api.md, "Environment"): the standard libraries
 * are opened, then every global and every library field that is not listed below is removed,
 * so nothing new in a future Lua release slips in. There is no `package` library at all (no
 * loadlib, searchpath, cpath or searchers: no route to C code or to the file system); `require`
 * is ours and loads text modules from the script's own folder only.
 *
 * Limits, as the trusted embedders of Lua do them (Redis's lua-time-limit, Luau's interrupts; the
 * accounting, the hook and the trips are limits.c, a leaf the bounded library calls too):
 *  - memory: the state's allocator counts every byte and refuses to grow past the cap;
 *  - time: a count hook (limits.c: every TPL_HOOK_EVERY VM instructions) compares the clock with the
 *    armed deadline: the script's top level has the load limit, every callback during
 *    planning the call limit (and the run's --time-limit when it comes first);
 *  - once a limit has tripped the state is poisoned: pcall, xpcall, coroutine.resume,
 *    coroutine.close and coroutine.wrap's functions re-raise the limit error, so a script cannot
 *    catch it and go on;
 *  - no script code runs where Lua has hooks off: __gc metamethods are refused (Lua runs
 *    finalizers with hooks off), the script's xpcall handler is not called for a limit error
 *    (Lua calls it from inside our hook), a coroutine stopped inside the hook is never closed
 *    (Lua leaves it with hooks off: its __close would run unchecked);
 *  - the library functions that loop in C out of the hook's sight are bounded (bounded.c);
 *  - each arm of the deadline is reported to the host (tpScriptDef.on_deadline), whose hard
 *    deadline stops what nothing above can (a C call nobody checks). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "lua_internal.h"

#include "tp/base.h"
#include "tp/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TPL_REG_LOADED "tp.loaded" /* module name -> value returned by the module */
#define TPL_MODULE_NAME_MAX 128

/* Continuation of pcall / xpcall (as lbaselib's finishpcall), re-raising a tripped limit. */
static int tplFinishPcall(lua_State *L, int status, lua_KContext extra)
{
    tplRethrow(L);
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int tplPcall(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, tplFinishPcall);
    return tplFinishPcall(L, status, 0);
}

/* The message handler xpcall installs in place of the script's (upvalue 1). Lua calls a message
 * handler from inside the function that raised the error: for a limit error that is our hook,
 * and Lua runs a hook with hooks off, so the script's handler would run there with no time limit
 * (an endless loop in it was never stopped). Once a limit has tripped the handler's result is
 * thrown away anyway (tplFinishPcall raises the limit again), so it is not called at all. */
static int tplXpcallHandler(lua_State *L)
{
    tplLimits *lim = tplGetLimits(L);
    if (lim->tripped) {
        lua_pushstring(L, lim->msg);
        return 1;
    }
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, 1);
    return 1;
}

static int tplXpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, tplXpcallHandler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, tplFinishPcall);
    return tplFinishPcall(L, status, 2);
}

/* coroutine.resume / coroutine.close: the original (upvalue 1), then the re-raise check.
 * The check comes first too: a coroutine stopped by a limit error was stopped inside our hook,
 * and Lua leaves such a coroutine with hooks off (lua_resume's error path does not undo the
 * hook's "no hooks while a hook runs"), so closing it would run its pending __close metamethods
 * with no time limit (a __close that called coroutine.close on it looped for ever). */
static int tplCoWrapped(lua_State *L)
{
    tplRethrow(L);
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    tplRethrow(L);
    return lua_gettop(L);
}

/* The function coroutine.wrap returns (upvalue 1: the coroutine), as lcorolib's, but a coroutine
 * stopped by a limit is not closed: Lua's wrap closes a coroutine that failed (runs its pending
 * __close metamethods) before raising the error again, and one stopped inside our hook has hooks
 * off (see tplCoWrapped), so a looping __close there ran for ever. The limit error goes on as it
 * is; other errors close the coroutine (hooks on) and get the caller's position, as in Lua. */
static int tplCoWrapCall(lua_State *L)
{
    tplRethrow(L);
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int narg = lua_gettop(L);
    lua_Debug ar;
    bool dead = lua_status(co) != LUA_OK && lua_status(co) != LUA_YIELD;
    bool suspended =
        !dead && co != L && (lua_status(co) == LUA_YIELD || (!lua_getstack(co, 0, &ar) && lua_gettop(co) > 0));
    if (lua_status(co) == LUA_OK && !lua_getstack(co, 0, &ar) && lua_gettop(co) == 0)
        dead = true;
    if (!suspended) {
        luaL_where(L, 1);
        lua_pushfstring(L, "cannot resume %s coroutine", dead ? "dead" : "non-suspended");
        lua_concat(L, 2);
        return lua_error(L);
    }
    if (!lua_checkstack(co, narg))
        return luaL_error(L, "too many arguments to resume");
    lua_xmove(L, co, narg);
    int nres = 0;
    int status = lua_resume(co, L, narg, &nres);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            return luaL_error(L, "too many results to resume");
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1);
    tplRethrow(L); /* stopped by a limit: leave it unclosed (hooks off in it) */
#if LUA_VERSION_RELEASE_NUM >= 50406
    status = lua_closethread(co, L);
#else
    status = lua_resetthread(co);
#endif
    tplRethrow(L); /* a __close ran into a limit */
    lua_xmove(co, L, 1);
    if (status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int tplCoWrap(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, tplCoWrapCall, 1);
    return 1;
}

/* setmetatable without __gc: Lua runs finalizers with hooks off, so a loop in one could hold
 * the CPU forever; no domain needs them. Upvalue 1: the original. */
static int tplSetMetatable(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            tplError(L, "setmetatable: __gc metamethods are not allowed in domain scripts");
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* collectgarbage with the harmless options only ("stop" would let memory grow unchecked by
 * the collector, "incremental"/"generational" change nothing a script needs). */
static int tplCollectGarbage(lua_State *L)
{
    static const char *const opts[] = {"collect", "count", "step", "isrunning", NULL};
    int o = luaL_checkoption(L, 1, "collect", opts);
    switch (o) {
    case 0:
        lua_gc(L, LUA_GCCOLLECT);
        lua_pushinteger(L, 0);
        return 1;
    case 1: {
        int k = lua_gc(L, LUA_GCCOUNT), b = lua_gc(L, LUA_GCCOUNTB);
        lua_pushnumber(L, (lua_Number)k + ((lua_Number)b / 1024));
        return 1;
    }
    case 2:
        lua_pushboolean(L, lua_gc(L, LUA_GCSTEP, (int)luaL_optinteger(L, 2, 0)));
        return 1;
    default:
        lua_pushboolean(L, lua_gc(L, LUA_GCISRUNNING));
        return 1;
    }
}

static int tplDisabled(lua_State *L)
{
    return tplError(L, "%s is disabled: sampling must use tp distributions (determinism)",
                    lua_tostring(L, lua_upvalueindex(1)));
}

static int tplPrint(lua_State *L)
{
    const tplLimits *lim = tplGetLimits(L);
    if (lim->print_fn) { /* the whole line, then one call */
        int n = lua_gettop(L);
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        for (int i = 1; i <= n; i++) {
            if (i > 1)
                luaL_addchar(&b, '\t');
            luaL_tolstring(L, i, NULL);
            luaL_addvalue(&b);
        }
        luaL_addchar(&b, '\n');
        luaL_pushresult(&b);
        size_t len = 0;
        const char *line = lua_tolstring(L, -1, &len);
        lim->print_fn(lim->print_user, line, len);
        return 0;
    }
    FILE *out = tplGetLimits(L)->print_to ? tplGetLimits(L)->print_to : stderr;
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        size_t len = 0;
        const char *s = luaL_tolstring(L, i, &len);
        if (i > 1)
            fputc('\t', out);
        fwrite(s, 1, len, out);
        lua_pop(L, 1);
    }
    fputc('\n', out);
    return 0;
}

#define TPL_LOAD_PIECE 65536 /* bytes of a string chunk the parser gets at a time */

/* The reader load() gets instead of a long string chunk (upvalue 1 the string, 2 the offset so
 * far): the parser is one C call that can run for minutes on a few hundred MB of text, so it gets
 * the text a piece at a time and the limits are checked between two pieces. */
static int tplLoadPiece(lua_State *L)
{
    tplCheckLimits(L);
    size_t len;
    const char *src = lua_tolstring(L, lua_upvalueindex(1), &len);
    size_t off = (size_t)lua_tointeger(L, lua_upvalueindex(2));
    size_t n = len - off < TPL_LOAD_PIECE ? len - off : TPL_LOAD_PIECE;
    lua_pushinteger(L, (lua_Integer)(off + n));
    lua_replace(L, lua_upvalueindex(2));
    lua_pushlstring(L, src + off, n);
    return 1;
}

/* load() with the mode forced to text. Upvalue 1: the original load. */
static int tplLoad(lua_State *L)
{
    int n = lua_gettop(L);
    lua_settop(L, n > 4 ? 4 : (n < 2 ? 2 : n)); /* absent chunk name -> nil: load's default */
    int top = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    if (lua_type(L, 1) == LUA_TSTRING && lua_rawlen(L, 1) > TPL_LOAD_PIECE) {
        if (lua_isnil(L, 2)) { /* a string chunk's default name is the string */
            lua_pushstring(L, lua_tostring(L, 1));
            lua_replace(L, 2);
        }
        lua_pushvalue(L, 1);
        lua_pushinteger(L, 0);
        lua_pushcclosure(L, tplLoadPiece, 2);
    } else
        lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushliteral(L, "t");
    if (n >= 4)
        lua_pushvalue(L, 4); /* an absent env differs from an explicit nil env */
    lua_call(L, n >= 4 ? 4 : 3, LUA_MULTRET);
    tplRethrow(L); /* the reader stopped at a limit: load would return it as its error */
    return lua_gettop(L) - top;
}

/* ------------------------------------------------------------------------------------------ */
/* require: "tp", or a text module from the script's folder                                    */

static int tplRequire(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_LOADED); /* 2 */
    if (lua_getfield(L, 2, name) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    size_t len = strlen(name);
    bool ok = len > 0 && len < TPL_MODULE_NAME_MAX && name[0] != '.' && name[len - 1] != '.' &&
              strstr(name, "..") == NULL &&
              strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == len;
    if (!ok)
        tplError(L, "require '%s': not a module name (letters, digits, '_', '-' and '.' between names)", name);
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_SCRIPT_DIR);
    if (!lua_isstring(L, -1))
        tplError(L,
                 "require '%s': the script has no folder (it was submitted as text): only \"tp\" can be "
                 "required",
                 name);
    const char *dir = lua_tostring(L, -1);
    char rel[TPL_MODULE_NAME_MAX];
    tpStrCopy(rel, sizeof rel, name);
    for (char *c = rel; *c; c++)
        if (*c == '.')
            *c = '/';
    const char *cand[2];
    cand[0] = lua_pushfstring(L, "%slib/%s.lua", dir, rel);
    cand[1] = lua_pushfstring(L, "%s%s.lua", dir, rel);
    char err[512];
    for (int i = 0; i < 2; i++) {
        size_t n = 0;
        if (!tplDataExists(L, cand[i]))
            continue; /* not this candidate (a dangling link is one, and is refused below) */
        char *src = tplReadData(L, cand[i], TP_MAX_SCRIPT_BYTES, &n, err, sizeof err);
        if (!src)
            tplError(L, "require '%s': %s", name, err);
        const char *chunk = lua_pushfstring(L, "@%s", cand[i]);
        int rc = luaL_loadbufferx(L, src, n, chunk, "t");
        free(src);
        if (rc != LUA_OK) {
            /* one line, starting with the module's file:line (require is a C function: no where) */
            const char *m = tplPushFullPath(L, lua_tostring(L, -1), cand[i]);
            lua_pushfstring(L, "%s (loading module '%s')", m, name);
            return lua_error(L);
        }
        lua_pushstring(L, name);
        lua_pushstring(L, cand[i]);
        lua_call(L, 2, 1);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_pushboolean(L, 1);
        }
        lua_pushvalue(L, -1);
        lua_setfield(L, 2, name);
        return 1;
    }
    return tplError(L, "module '%s' not found (looked for %s and %s%s)", name, cand[0], cand[1],
                    tplGetLimits(L)->embedded ? " among the files recorded in the plan" : "");
}

/* ------------------------------------------------------------------------------------------ */
/* The allow-list                                                                              */

typedef struct tplAllowed {
    const char *lib; /* NULL: the globals */
    const char *const *names;
} tplAllowed;

/* Keeps only the listed string keys of the table at idx. */
static void tplKeepOnly(lua_State *L, int idx, const char *const *names)
{
    idx = lua_absindex(L, idx);
    lua_newtable(L); /* the keys to drop (a table may not be changed while traversed) */
    int drop = lua_gettop(L);
    lua_Integer ndrop = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        bool keep = false;
        if (lua_type(L, -1) == LUA_TSTRING) {
            const char *k = lua_tostring(L, -1);
            for (const char *const *n = names; *n && !keep; n++)
                keep = strcmp(*n, k) == 0;
        }
        if (!keep) {
            lua_pushvalue(L, -1);
            lua_rawseti(L, drop, ++ndrop);
        }
    }
    for (lua_Integer i = 1; i <= ndrop; i++) {
        lua_rawgeti(L, drop, i);
        lua_pushnil(L);
        lua_rawset(L, idx);
    }
    lua_pop(L, 1);
}

static const char *const tplAllowGlobals[] = {
    "assert", "error",        "getmetatable", "ipairs",         "next",    "pairs",
    "pcall",  "print",        "rawequal",     "rawget",         "rawlen",  "rawset",
    "select", "setmetatable", "tonumber",     "tostring",       "type",    "xpcall",
    "_G",     "_VERSION",     "load",         "collectgarbage", "require", "string",
    "table",  "math",         "utf8",         "coroutine",      "tp",      NULL,
};
static const char *const tplAllowString[] = {"byte",  "char",  "find",     "format", "gmatch",  "gsub",
                                             "len",   "lower", "match",    "rep",    "reverse", "sub",
                                             "upper", "pack",  "packsize", "unpack", NULL};
static const char *const tplAllowTable[] = {"concat", "insert", "move", "pack", "remove", "sort", "unpack", NULL};
static const char *const tplAllowMath[] = {"abs", "acos",       "asin", "atan", "ceil",   "cos",        "deg",
                                           "exp", "floor",      "fmod", "huge", "log",    "max",        "maxinteger",
                                           "min", "mininteger", "modf", "pi",   "rad",    "sin",        "sqrt",
                                           "tan", "tointeger",  "type", "ult",  "random", "randomseed", NULL};
static const char *const tplAllowCoroutine[] = {"close",  "create", "isyieldable", "resume", "running",
                                                "status", "wrap",   "yield",       NULL};
static const char *const tplAllowUtf8[] = {"char", "charpattern", "codes", "codepoint", "len", "offset", NULL};

/* Replaces field `name` of the table at idx by fn with the old value as upvalue 1. */
static void tplWrap(lua_State *L, int idx, const char *name, lua_CFunction fn)
{
    idx = lua_absindex(L, idx);
    lua_getfield(L, idx, name);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, idx, name);
}

void tplOpenSandbox(lua_State *L)
{
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},
        {LUA_COLIBNAME, luaopen_coroutine},
        {LUA_TABLIBNAME, luaopen_table},
        {LUA_STRLIBNAME, luaopen_string},
        {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},
        {NULL, NULL},
    };
    for (const luaL_Reg *l = libs; l->func; l++) {
        luaL_requiref(L, l->name, l->func, 1);
        lua_pop(L, 1);
    }
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_LOADED);

    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    tplWrap(L, g, "load", tplLoad);
    tplWrap(L, g, "setmetatable", tplSetMetatable);
    lua_pushcfunction(L, tplPcall);
    lua_setfield(L, g, "pcall");
    lua_pushcfunction(L, tplXpcall);
    lua_setfield(L, g, "xpcall");
    lua_pushcfunction(L, tplPrint);
    lua_setfield(L, g, "print");
    lua_pushcfunction(L, tplCollectGarbage);
    lua_setfield(L, g, "collectgarbage");
    lua_pushcfunction(L, tplRequire);
    lua_setfield(L, g, "require");
    lua_getfield(L, g, "math");
    const char *rnd[] = {"random", "randomseed"};
    for (int i = 0; i < 2; i++) {
        lua_pushfstring(L, "math.%s", rnd[i]);
        lua_pushcclosure(L, tplDisabled, 1);
        lua_setfield(L, -2, rnd[i]);
    }
    lua_pop(L, 1);
    tplOpenBounded(L);
    lua_getfield(L, g, "coroutine");
    tplWrap(L, -1, "resume", tplCoWrapped);
    tplWrap(L, -1, "close", tplCoWrapped);
    lua_pushcfunction(L, tplCoWrap);
    lua_setfield(L, -2, "wrap");
    lua_pop(L, 1);

    static const tplAllowed allowed[] = {
        {"string", tplAllowString},       {"table", tplAllowTable}, {"math", tplAllowMath},
        {"coroutine", tplAllowCoroutine}, {"utf8", tplAllowUtf8},   {NULL, tplAllowGlobals},
    };
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
        if (allowed[i].lib)
            lua_getfield(L, g, allowed[i].lib);
        else
            lua_pushvalue(L, g);
        tplKeepOnly(L, -1, allowed[i].names);
        lua_pop(L, 1);
    }
    /* The string metatable (its __index is the filtered string table) is locked, so a script
     * cannot change how every string in the state behaves for the host. */
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
}

void tplLockMetatables(lua_State *L)
{
    /* luaL_newmetatable registers each as registry[name] with __name = name */
    lua_pushnil(L);
    while (lua_next(L, LUA_REGISTRYINDEX)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TTABLE &&
            strncmp(lua_tostring(L, -2), "tp.", 3) == 0) {
            lua_getfield(L, -1, "__name");
            bool ours = lua_rawequal(L, -1, -3);
            lua_pop(L, 1);
            if (ours) {
                lua_pushliteral(L, "locked");
                lua_setfield(L, -2, "__metatable");
            }
        }
        lua_pop(L, 1); /* the value; the key stays for lua_next */
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Data files named by a script                                                                */

/* True when name is relative and has no "." or ".." component and no empty one. */
static bool tplCleanName(const char *name)
{
    if (!name[0] || name[0] == '/')
        return false;
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        p += n;
        if (*p == '/')
            p++;
    }
    return true;
}

const char *tplDataPath(lua_State *L, const char *what, const char *name)
{
    if (!tplCleanName(name))
        tplError(L, "%s: '%s' must be a path inside the script's folder (relative, no '..')", what, name);
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_SCRIPT_DIR);
    if (!lua_isstring(L, -1))
        tplError(L, "%s: '%s': the script has no folder (it was submitted as text), so it cannot read files", what,
                 name);
    const char *path = lua_pushfstring(L, "%s%s", lua_tostring(L, -1), name);
    lua_remove(L, -2);
    return path;
}

/* The name of path (from tplDataPath: "<script dir><name>") relative to the script's folder. */
static const char *tplRelName(lua_State *L, const char *path)
{
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_SCRIPT_DIR);
    const char *dir = lua_tostring(L, -1);
    size_t n = dir ? strlen(dir) : 0;
    lua_pop(L, 1); /* the registry keeps the string */
    return dir && strncmp(path, dir, n) == 0 ? path + n : path;
}

/* Pushes the path to read path from on the disk ("<folder as given><name>"); NULL (nothing
 * pushed) when the script has no folder on the disk. */
static const char *tplDiskPath(lua_State *L, const char *path)
{
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_SCRIPT_DISKDIR);
    if (!lua_isstring(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    const char *disk = lua_pushfstring(L, "%s%s", lua_tostring(L, -1), tplRelName(L, path));
    lua_remove(L, -2);
    return disk;
}

static const tpScriptFile *tplEmbedded(const tplLimits *lim, const char *rel)
{
    for (int i = 0; i < lim->nembedded; i++)
        if (strcmp(lim->embedded[i].path, rel) == 0)
            return &lim->embedded[i];
    return NULL;
}

bool tplDataExists(lua_State *L, const char *path)
{
    tplLimits *lim = tplGetLimits(L);
    if (lim->embedded)
        return tplEmbedded(lim, tplRelName(L, path)) != NULL;
    const char *disk = tplDiskPath(L, path);
    if (!disk)
        return false;
    struct stat st;
    bool there = !(lstat(disk, &st) != 0 && errno == ENOENT);
    lua_pop(L, 1);
    return there;
}

/* Rewrites a message about `disk` (tpFile_Read's, realpath's) to name `shown` instead. */
static void tplRename(char *err, size_t errlen, const char *disk, const char *shown)
{
    size_t n = strlen(disk);
    if (err && errlen && strncmp(err, disk, n) == 0 && strcmp(disk, shown) != 0) {
        char tail[512];
        tpStrCopy(tail, sizeof tail, err + n);
        snprintf(err, errlen, "%s%s", shown, tail);
    }
}

bool tplConfined(lua_State *L, const char *path, char *err, size_t errlen)
{
    if (tplGetLimits(L)->embedded)
        return true; /* the plan's files are the folder */
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_SCRIPT_REALDIR);
    const char *root = lua_tostring(L, -1);
    lua_pop(L, 1); /* the registry keeps the string */
    const char *disk = root ? tplDiskPath(L, path) : NULL;
    if (!disk) {
        tpErrorf(err, errlen, "the script has no folder");
        return false;
    }
    char *real = realpath(disk, NULL);
    lua_pop(L, 1);
    if (!real) {
        tpErrorf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    size_t n = strlen(root);
    bool inside = strncmp(real, root, n) == 0 && (real[n] == '/' || (n > 0 && root[n - 1] == '/'));
    free(real);
    if (!inside) {
        tpErrorf(err, errlen, "%s: outside the script's folder (a link that leaves it?)", path);
        return false;
    }
    return true;
}

int tplRecordFile(tplLimits *lim, const char *path, const void *data, size_t len)
{
    for (int i = 0; i < lim->nfiles; i++)
        if (strcmp(lim->files[i].path, path) == 0)
            return lim->files[i].len == len && memcmp(lim->files[i].data, data, len) == 0 ? 0 : -1;
    tpScriptFile *f = tpArray_Grow(lim->files, &lim->files_cap, (size_t)lim->nfiles + 1, sizeof *f);
    if (!f)
        return -2;
    lim->files = f;
    char *p = strdup(path);
    unsigned char *d = malloc(len + 1);
    if (!p || !d) {
        free(p);
        free(d);
        return -2;
    }
    memcpy(d, data, len);
    d[len] = '\0';
    f[lim->nfiles++] = (tpScriptFile){p, d, len};
    TP_VALIDATE(tplLimits_Valid, lim);
    return 1;
}

void tplFreeFiles(tplLimits *lim)
{
    for (int i = 0; i < lim->nfiles; i++) {
        free((char *)lim->files[i].path);
        free((unsigned char *)lim->files[i].data);
    }
    free(lim->files);
    lim->files = NULL;
    lim->nfiles = 0;
    lim->files_cap = 0;
}

char *tplReadData(lua_State *L, const char *path, size_t max_bytes, size_t *len, char *err, size_t errlen)
{
    tplLimits *lim = tplGetLimits(L);
    const char *rel = tplRelName(L, path);
    char *data = NULL;
    if (lim->embedded) {
        const tpScriptFile *f = tplEmbedded(lim, rel);
        if (!f) {
            tpErrorf(err, errlen,
                     "%s: not among the files recorded in the plan (the script read other files when it "
                     "was planned)",
                     path);
            return NULL;
        }
        if (f->len > max_bytes) {
            tpErrorf(err, errlen, "%s: larger than %zu bytes", path, max_bytes);
            return NULL;
        }
        data = malloc(f->len + 1);
        if (!data) {
            tpErrorf(err, errlen, "%s: out of memory", path);
            return NULL;
        }
        memcpy(data, f->data, f->len);
        data[f->len] = '\0';
        *len = f->len;
    } else {
        if (!tplConfined(L, path, err, errlen))
            return NULL;
        const char *disk = tplDiskPath(L, path);
        if (!disk) {
            tpErrorf(err, errlen, "%s: the script has no folder", path);
            return NULL;
        }
        data = tpFile_Read(disk, max_bytes, len, err, errlen);
        tplRename(err, errlen, disk, path);
        lua_pop(L, 1);
        if (!data)
            return NULL;
    }
    int rc = tplRecordFile(lim, rel, data, *len);
    if (rc < 0) {
        tpErrorf(err, errlen,
                 rc == -1 ? "%s: the file changed while the script ran (read twice, different bytes)"
                          : "%s: out of memory",
                 path);
        free(data);
        return NULL;
    }
    return data;
}
