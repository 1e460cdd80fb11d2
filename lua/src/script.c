/* tplan lua: loading a domain script — the sandboxed lua_State, `require`, tp.param and the
 * --set overrides, the `tp` module itself, and the tpScript object.
 *
 * Sandbox: base, package, coroutine, table, string, math and utf8 only (no io, os, debug);
 * binary chunks are refused everywhere (they can crash the VM); math.random/randomseed raise
 * (a run's randomness must come from the planner's seeded generator); print goes to stderr so
 * it never mixes with machine-readable output. */
#include "lua_internal.h"

#include "tp/base.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tpScript {
    lua_State *L;
    tpDomain *domain; /* owned by the tp.domain userdata kept in the registry */
    char hash[32];
    char *params_json;
};

#define TPL_REG_DOMAIN "tp.script.domain"

/* ------------------------------------------------------------------------------------------ */
/* tp.param                                                                                    */

static int tplParam(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    if (!name[0])
        tplError(L, "tp.param: the name must not be empty");
    int dt = lua_type(L, 2);
    if (dt != LUA_TNUMBER && dt != LUA_TSTRING && dt != LUA_TBOOLEAN)
        tplError(L, "tp.param('%s', ...): the default must be a number, a string or a boolean (got %s)", name,
                 luaL_typename(L, 2));
    lua_settop(L, 2);
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_READ);
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, name);
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS);
    if (lua_getfield(L, -1, name) != LUA_TSTRING) {
        lua_pushvalue(L, 2);
        return 1;
    }
    const char *value = lua_tostring(L, -1);
    if (dt == LUA_TNUMBER) {
        if (!lua_stringtonumber(L, value))
            tplError(L, "--set %s=%s: expected a number", name, value);
        double v = lua_tonumber(L, -1);
        if (!isfinite(v))
            tplError(L, "--set %s=%s: expected a finite number", name, value);
        /* the value takes the default's subtype where it can: 4.0 with --set 5 stays a float */
        if (!lua_isinteger(L, 2) && lua_isinteger(L, -1)) {
            lua_pop(L, 1);
            lua_pushnumber(L, v);
        }
    } else if (dt == LUA_TBOOLEAN) {
        if (strcmp(value, "true") == 0)
            lua_pushboolean(L, 1);
        else if (strcmp(value, "false") == 0)
            lua_pushboolean(L, 0);
        else
            tplError(L, "--set %s=%s: expected true or false", name, value);
    } else {
        lua_pushvalue(L, -1);
    }
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_USED);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
    return 1;
}

void tplOpenParams(lua_State *L)
{
    lua_pushcfunction(L, tplParam);
    lua_setfield(L, -2, "param");
}

int luaopen_tp(lua_State *L)
{
    lua_newtable(L);
    tplOpenDist(L);
    tplOpenSkills(L);
    tplOpenScene(L);
    tplOpenTactics(L);
    tplOpenArrange(L);
    tplOpenDomain(L);
    tplOpenParams(L);
    tplOpenViews(L);
    tplOpenNav(L);
    lua_pushliteral(L, "tplan "
                       "0.1");
    lua_setfield(L, -2, "version");
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Sandbox                                                                                     */

static int tplDisabled(lua_State *L)
{
    return tplError(L, "%s is disabled: sampling must use tp distributions (determinism)",
                    lua_tostring(L, lua_upvalueindex(1)));
}

static int tplPrint(lua_State *L)
{
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        size_t len = 0;
        const char *s = luaL_tolstring(L, i, &len);
        if (i > 1)
            fputc('\t', stderr);
        fwrite(s, 1, len, stderr);
        lua_pop(L, 1);
    }
    fputc('\n', stderr);
    return 0;
}

/* load() with the mode forced to text. Upvalue 1: the original load. */
static int tplLoad(lua_State *L)
{
    int n = lua_gettop(L);
    lua_settop(L, n > 4 ? 4 : (n < 2 ? 2 : n)); /* absent chunk name -> nil: load's default */
    int top = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushliteral(L, "t");
    if (n >= 4)
        lua_pushvalue(L, 4); /* an absent env differs from an explicit nil env */
    lua_call(L, n >= 4 ? 4 : 3, LUA_MULTRET);
    return lua_gettop(L) - top;
}

/* package.searchers[2] replacement: Lua files from package.path, text chunks only.
 * Upvalue 1: the package table. */
static int tplSearcher(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_getfield(L, lua_upvalueindex(1), "searchpath");
    lua_pushstring(L, name);
    lua_getfield(L, lua_upvalueindex(1), "path");
    lua_call(L, 2, 2);
    if (lua_isnil(L, -2))
        return 1; /* the "no file ..." message */
    const char *file = lua_tostring(L, -2);
    if (luaL_loadfilex(L, file, "t") != LUA_OK) {
        /* one line, starting with the module's file:line (require is a C function: no where) */
        const char *m = tplPushFullPath(L, lua_tostring(L, -1), file);
        lua_pushfstring(L, "%s (loading module '%s')", m, name);
        return lua_error(L);
    }
    lua_pushstring(L, file);
    return 2;
}

typedef struct tplSetupArgs {
    const char *path;
    const tpScriptParam *params;
    int nparams;
} tplSetupArgs;

static int tplSetup(lua_State *L)
{
    tplSetupArgs *a = lua_touserdata(L, 1);
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},          {LUA_LOADLIBNAME, luaopen_package},
        {LUA_COLIBNAME, luaopen_coroutine}, {LUA_TABLIBNAME, luaopen_table},
        {LUA_STRLIBNAME, luaopen_string},   {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},    {NULL, NULL},
    };
    for (const luaL_Reg *l = libs; l->func; l++) {
        luaL_requiref(L, l->name, l->func, 1);
        lua_pop(L, 1);
    }
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    lua_getfield(L, g, "load");
    lua_pushcclosure(L, tplLoad, 1);
    lua_setfield(L, g, "load");
    lua_pushnil(L);
    lua_setfield(L, g, "loadfile");
    lua_pushnil(L);
    lua_setfield(L, g, "dofile");
    lua_pushcfunction(L, tplPrint);
    lua_setfield(L, g, "print");
    lua_getfield(L, g, "math");
    const char *rnd[] = {"random", "randomseed"};
    for (int i = 0; i < 2; i++) {
        lua_pushfstring(L, "math.%s", rnd[i]);
        lua_pushcclosure(L, tplDisabled, 1);
        lua_setfield(L, -2, rnd[i]);
    }
    lua_pop(L, 1);

    /* require: <script dir>/lib/?.lua and <script dir>/?.lua first; no C modules */
    lua_getfield(L, g, "package");
    int pkg = lua_gettop(L);
    const char *slash = strrchr(a->path, '/');
    if (slash)
        lua_pushlstring(L, a->path, (size_t)(slash - a->path) + 1);
    else
        lua_pushliteral(L, "./");
    const char *dir = lua_tostring(L, -1);
    lua_pushvalue(L, -1); /* the script's directory, for data files next to it (tp.nav.track) */
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_SCRIPT_DIR);
    lua_getfield(L, pkg, "path");
    lua_pushfstring(L, "%slib/?.lua;%s?.lua;%s", dir, dir, lua_tostring(L, -1));
    lua_setfield(L, pkg, "path");
    lua_pop(L, 2);
    lua_pushliteral(L, "");
    lua_setfield(L, pkg, "cpath");
    lua_createtable(L, 2, 0);
    lua_getfield(L, pkg, "searchers");
    lua_rawgeti(L, -1, 1); /* the preload searcher */
    lua_rawseti(L, -3, 1);
    lua_pop(L, 1);
    lua_pushvalue(L, pkg);
    lua_pushcclosure(L, tplSearcher, 1);
    lua_rawseti(L, -2, 2);
    lua_setfield(L, pkg, "searchers");

    /* the tp module: global and require "tp" */
    luaL_requiref(L, "tp", luaopen_tp, 1);
    lua_pop(L, 1);

    /* --set overrides */
    lua_newtable(L);
    for (int i = 0; i < a->nparams; i++) {
        const tpScriptParam *p = &a->params[i];
        if (!p->name || !p->name[0] || !p->value)
            tplError(L, "%s: --set: a parameter needs a name and a value", a->path);
        if (lua_getfield(L, -1, p->name) != LUA_TNIL)
            tplError(L, "%s: --set %s given more than once", a->path, p->name);
        lua_pop(L, 1);
        lua_pushstring(L, p->value);
        lua_setfield(L, -2, p->name);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_READ);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_USED);
    lua_pushstring(L, a->path);
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_PATH);
    return 0;
}

/* Runs the loaded chunk at 1; leaves its first result. */
static int tplRun(lua_State *L)
{
    lua_settop(L, 1);
    lua_call(L, 0, 1);
    return 1;
}

static int tplCmpStr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Pushes the string keys of the table at idx as an array sorted by strcmp (table.sort would
 * use strcoll, which depends on the locale). */
static void tplSortedKeys(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING)
            n++;
    }
    const char **keys = lua_newuserdatauv(L, sizeof(char *) * (n ? n : 1), 0);
    size_t i = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING && i < n)
            keys[i++] = lua_tostring(L, -1); /* the table keeps it */
    }
    qsort(keys, i, sizeof *keys, tplCmpStr);
    lua_createtable(L, (int)i, 0);
    for (size_t k = 0; k < i; k++) {
        lua_pushstring(L, keys[k]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_remove(L, -2);
}

static void tplJsonString(luaL_Buffer *b, const char *s)
{
    luaL_addchar(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        if (*p == '"' || *p == '\\') {
            luaL_addchar(b, '\\');
            luaL_addchar(b, (char)*p);
        } else if (*p < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            luaL_addstring(b, esc);
        } else {
            luaL_addchar(b, (char)*p);
        }
    }
    luaL_addchar(b, '"');
}

typedef struct tplFinishArgs {
    const tpScriptParam *params;
    int nparams;
    tpDomain *domain;
    const char *json; /* in the registry */
} tplFinishArgs;

/* Checks the result at 2 and the --set names; pushes the params JSON. */
static int tplFinish(lua_State *L)
{
    tplFinishArgs *a = lua_touserdata(L, 1);
    tplDomain *dom = luaL_testudata(L, 2, TPL_DOMAIN);
    if (!dom || !dom->domain) {
        lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_PATH);
        tplError(L, "%s: the script must return tp.domain { ... } (got %s)", lua_tostring(L, -1), tplTypeName(L, 2));
    }
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_READ);
    int read = lua_gettop(L);
    for (int i = 0; i < a->nparams; i++) {
        if (lua_getfield(L, read, a->params[i].name) != LUA_TNIL) {
            lua_pop(L, 1);
            continue;
        }
        tplSortedKeys(L, read);
        int keys = lua_gettop(L);
        int n = (int)lua_rawlen(L, keys);
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        if (n == 0)
            luaL_addstring(&b, "the script reads no parameters");
        else
            luaL_addstring(&b, "the script reads: ");
        for (int k = 1; k <= n; k++) {
            if (k > 1)
                luaL_addstring(&b, ", ");
            lua_rawgeti(L, keys, k);
            luaL_addvalue(&b);
        }
        luaL_pushresult(&b);
        tplErrorAt(L, dom->where, "unknown parameter '%s' (%s)", a->params[i].name, lua_tostring(L, -1));
    }
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_USED);
    int used = lua_gettop(L);
    tplSortedKeys(L, used);
    int keys = lua_gettop(L);
    int n = (int)lua_rawlen(L, keys);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addchar(&b, '{');
    for (int k = 1; k <= n; k++) {
        lua_rawgeti(L, keys, k);
        const char *name = lua_tostring(L, -1);
        lua_pop(L, 1); /* the keys array keeps the string */
        if (k > 1)
            luaL_addchar(&b, ',');
        tplJsonString(&b, name);
        luaL_addchar(&b, ':');
        lua_getfield(L, used, name);
        if (lua_type(L, -1) == LUA_TNUMBER) {
            char num[64];
            if (lua_isinteger(L, -1))
                snprintf(num, sizeof num, "%lld", (long long)lua_tointeger(L, -1));
            else
                snprintf(num, sizeof num, "%.17g", lua_tonumber(L, -1));
            lua_pop(L, 1);
            luaL_addstring(&b, num);
        } else if (lua_type(L, -1) == LUA_TBOOLEAN) {
            bool v = lua_toboolean(L, -1);
            lua_pop(L, 1);
            luaL_addstring(&b, v ? "true" : "false");
        } else {
            const char *s = lua_tostring(L, -1);
            lua_pop(L, 1); /* the used table keeps s alive */
            tplJsonString(&b, s);
        }
    }
    luaL_addchar(&b, '}');
    luaL_pushresult(&b);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "tp.params.json");
    a->json = lua_tostring(L, -1);
    lua_pushvalue(L, 2);
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_DOMAIN);
    a->domain = dom->domain;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* tpScript                                                                                    */

static char *tplReadFile(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        tpErrorf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (!buf || bad) {
        free(buf);
        tpErrorf(err, errlen, "%s: cannot read the file", path);
        return NULL;
    }
    *len = n;
    return buf;
}

static void tplScriptError(lua_State *L, const char *path, char *err, size_t errlen)
{
    const char *msg = lua_tostring(L, -1);
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_SHORT_SRC);
    const char *short_src = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
    if (err && errlen)
        tplFixPath(err, errlen, msg ? msg : "Lua error", path, short_src);
    lua_pop(L, 1);
}

tpScript *tpLoadScript(const char *path, const tpScriptParam *params, int nparams, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!path || nparams < 0 || (nparams > 0 && !params)) {
        tpErrorf(err, errlen, "tpLoadScript: no script path or bad parameter list");
        return NULL;
    }
    size_t len = 0;
    char *src = tplReadFile(path, &len, err, errlen);
    if (!src)
        return NULL;
    tpScript *s = calloc(1, sizeof *s);
    lua_State *L = s ? luaL_newstate() : NULL;
    if (!L) {
        free(s);
        free(src);
        tpErrorf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    s->L = L;
    snprintf(s->hash, sizeof s->hash, "fnv1a64:%016llx", (unsigned long long)tpHash_Fnv1a64(src, len));

    tplSetupArgs setup = {path, params, nparams};
    lua_pushcfunction(L, tplSetup);
    lua_pushlightuserdata(L, &setup);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        tplScriptError(L, path, err, errlen);
        goto fail;
    }
    lua_pushcfunction(L, tplMsgHandler); /* 1 */
    lua_pushcfunction(L, tplRun);        /* 2 */
    const char *chunkname = lua_pushfstring(L, "@%s", path);
    int rc = luaL_loadbufferx(L, src, len, chunkname, "t"); /* 4: the chunk */
    lua_remove(L, 3);
    if (rc != LUA_OK) {
        tplScriptError(L, path, err, errlen);
        goto fail;
    }
    {
        lua_Debug ar;
        lua_pushvalue(L, 3);
        lua_getinfo(L, ">S", &ar);
        lua_pushstring(L, ar.short_src);
        lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_SHORT_SRC);
    }
    free(src);
    src = NULL;
    if (lua_pcall(L, 1, 1, 1) != LUA_OK) {
        tplScriptError(L, path, err, errlen);
        goto fail;
    }
    /* stack: handler, result */
    tplFinishArgs fin = {params, nparams, NULL, NULL};
    lua_pushcfunction(L, tplFinish);
    lua_pushlightuserdata(L, &fin);
    lua_pushvalue(L, 2);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        tplScriptError(L, path, err, errlen);
        goto fail;
    }
    s->params_json = malloc(strlen(fin.json) + 1);
    if (!s->params_json) {
        tpErrorf(err, errlen, "%s: out of memory", path);
        goto fail;
    }
    memcpy(s->params_json, fin.json, strlen(fin.json) + 1);
    s->domain = fin.domain;
    lua_settop(L, 0);
    lua_gc(L, LUA_GCCOLLECT); /* drop unreturned domains and scratch now, not mid-planning */
    return s;

fail:
    free(src);
    tpDestroyScript(s);
    return NULL;
}

void tpDestroyScript(tpScript *script)
{
    if (!script)
        return;
    if (script->L)
        lua_close(script->L); /* finalizes the tp.domain userdata: frees the domain */
    free(script->params_json);
    free(script);
}

tpDomain *tpScript_Domain(tpScript *script)
{
    return script ? script->domain : NULL;
}

const char *tpScript_Hash(const tpScript *script)
{
    return script ? script->hash : "";
}

const char *tpScript_ParamsJson(const tpScript *script)
{
    return script && script->params_json ? script->params_json : "{}";
}
