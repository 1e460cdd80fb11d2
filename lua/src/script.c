/* tplan lua: loading a domain script — the sandboxed lua_State, `require`, tp.param and the
 * --set overrides, the `tp` module itself, and the tpScript object.
 *
 * Sandbox: base, package, coroutine, table, string, math and utf8 only (no io, os, debug);
 * binary chunks are refused everywhere (they can crash the VM); math.random/randomseed raise
 * (a run's randomness must come from the planner's seeded generator); print goes to stderr so
 * it never mixes with machine-readable output, or to the caller's function (tpScriptDef.print_fn:
 * the embedding API, which never writes to the host's stdio). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "lua_internal.h"

#include "tp/base.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TPL_REG_DOMAIN "tp.script.domain"

/* ------------------------------------------------------------------------------------------ */
/* tp.param                                                                                    */

/* value for a one-line message: control bytes escaped (\n, \x01), cut at 80 bytes. */
static const char *tplShown(const char *value, char *out, size_t cap)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)value; *p && n + 8 < cap; p++) {
        if (p - (const unsigned char *)value >= 80) {
            n += (size_t)snprintf(out + n, cap - n, "...");
            break;
        }
        if (*p == '\n')
            n += (size_t)snprintf(out + n, cap - n, "\\n");
        else if (*p < 0x20 || *p == 0x7f)
            n += (size_t)snprintf(out + n, cap - n, "\\x%02x", *p);
        else
            out[n++] = (char)*p;
    }
    out[n] = '\0';
    return out;
}

static void tplJsonString(luaL_Buffer *b, const char *s);

/* Appends the declaration of a parameter read for the first time to the TPL_REG_PARAMS_DECL array,
 * as one JSON object: {"name","type","default"[,"min","max","integer"][,"choices"]} (the default at
 * 2, a string parameter's choices, if any, the array at 3). */
static void tplDeclareParam(lua_State *L, const char *name, double lo, double hi, bool integer, bool ranged,
                            bool choices)
{
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_DECL);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "{\"name\":");
    tplJsonString(&b, name);
    char num[160];
    switch (lua_type(L, 2)) {
    case LUA_TNUMBER:
        if (lua_isinteger(L, 2))
            snprintf(num, sizeof num, ",\"type\":\"number\",\"default\":%lld", (long long)lua_tointeger(L, 2));
        else
            snprintf(num, sizeof num, ",\"type\":\"number\",\"default\":%.17g", lua_tonumber(L, 2));
        luaL_addstring(&b, num);
        break;
    case LUA_TBOOLEAN:
        luaL_addstring(&b, lua_toboolean(L, 2) ? ",\"type\":\"boolean\",\"default\":true"
                                               : ",\"type\":\"boolean\",\"default\":false");
        break;
    default:
        luaL_addstring(&b, ",\"type\":\"string\",\"default\":");
        tplJsonString(&b, lua_tostring(L, 2));
        break;
    }
    if (ranged) {
        if (isfinite(lo)) {
            snprintf(num, sizeof num, ",\"min\":%.17g", lo);
            luaL_addstring(&b, num);
        }
        if (isfinite(hi)) {
            snprintf(num, sizeof num, ",\"max\":%.17g", hi);
            luaL_addstring(&b, num);
        }
        luaL_addstring(&b, integer ? ",\"integer\":true" : ",\"integer\":false");
    }
    if (choices) {
        luaL_addstring(&b, ",\"choices\":[");
        lua_Integer n = (lua_Integer)lua_rawlen(L, 3);
        for (lua_Integer i = 1; i <= n; ++i) {
            lua_rawgeti(L, 3, i);
            const char *c = lua_tostring(L, -1);
            lua_pop(L, 1);
            if (i > 1)
                luaL_addchar(&b, ',');
            tplJsonString(&b, c); /* the strings stay alive: the table at 3 holds them */
        }
        luaL_addchar(&b, ']');
    }
    luaL_addchar(&b, '}');
    luaL_pushresult(&b);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
}

static int tplParam(lua_State *L)
{
    char shown[128];
    const char *name = luaL_checkstring(L, 1);
    if (!name[0])
        tplError(L, "tp.param: the name must not be empty");
    int dt = lua_type(L, 2);
    if (dt != LUA_TNUMBER && dt != LUA_TSTRING && dt != LUA_TBOOLEAN)
        tplError(L, "tp.param('%s', ...): the default must be a number, a string or a boolean (got %s)", name,
                 luaL_typename(L, 2));
    /* optional third argument {min =, max =, integer =}: a number's allowed range; {choices = {...}}:
     * a string's allowed values (a form shows them as a list) */
    double lo = -HUGE_VAL, hi = HUGE_VAL;
    bool integer = false, ranged = false, choices = false;
    if (!lua_isnoneornil(L, 3) && dt == LUA_TSTRING) {
        char what[96];
        snprintf(what, sizeof what, "tp.param('%s', ...): ", name);
        luaL_checktype(L, 3, LUA_TTABLE);
        static const char *const known_s[] = {"choices", NULL};
        tplCheckFields(L, 3, what, known_s, 0);
        if (lua_getfield(L, 3, "choices") != LUA_TTABLE)
            tplError(L, "%schoices must be a list of strings", what);
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        if (n < 1 || n > 64)
            tplError(L, "%schoices must list 1 to 64 strings", what);
        bool has_default = false;
        for (lua_Integer i = 1; i <= n; ++i) {
            if (lua_rawgeti(L, -1, i) != LUA_TSTRING)
                tplError(L, "%schoices[%d] must be a string", what, (int)i);
            has_default = has_default || strcmp(lua_tostring(L, -1), lua_tostring(L, 2)) == 0;
            lua_pop(L, 1);
        }
        if (!has_default)
            tplError(L, "%sthe default '%s' is not one of its choices", what,
                     tplShown(lua_tostring(L, 2), shown, sizeof shown));
        lua_replace(L, 3); /* the choices list itself at 3 */
        choices = true;
    } else if (!lua_isnoneornil(L, 3)) {
        char what[96];
        snprintf(what, sizeof what, "tp.param('%s', ...): ", name);
        if (dt != LUA_TNUMBER)
            tplError(L, "%sa range (third argument) needs a number default", what);
        luaL_checktype(L, 3, LUA_TTABLE);
        static const char *const known[] = {"min", "max", "integer", NULL};
        tplCheckFields(L, 3, what, known, 0);
        lo = tplNumber(L, 3, what, "min", -HUGE_VAL, true);
        hi = tplNumber(L, 3, what, "max", HUGE_VAL, true);
        integer = tplBool(L, 3, what, "integer", false);
        if (!(lo <= hi))
            tplError(L, "%smin must be <= max (got %g > %g)", what, lo, hi);
        ranged = true;
        double d = lua_tonumber(L, 2);
        if (d < lo || d > hi || (integer && d != floor(d)))
            tplError(L, "%sthe default %g is outside its own range", what, d);
    }
    lua_settop(L, 3);
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_READ);
    if (lua_getfield(L, -1, name) == LUA_TNIL)
        tplDeclareParam(L, name, lo, hi, integer, ranged, choices);
    lua_pop(L, 1);
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
            tplError(L, "set %s=%s: expected a number", name, tplShown(value, shown, sizeof shown));
        double v = lua_tonumber(L, -1);
        if (!isfinite(v))
            tplError(L, "set %s=%s: expected a finite number", name, tplShown(value, shown, sizeof shown));
        if (ranged && (v < lo || v > hi || (integer && v != floor(v)))) {
            char range[128];
            snprintf(range, sizeof range, "%s in [%g, %g]", integer ? "an integer" : "a number", lo, hi);
            tplError(L, "set %s=%s: expected %s", name, tplShown(value, shown, sizeof shown), range);
        }
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
            tplError(L, "set %s=%s: expected true or false", name, tplShown(value, shown, sizeof shown));
    } else {
        bool listed = !choices;
        for (lua_Integer i = 1; !listed && i <= (lua_Integer)lua_rawlen(L, 3); ++i) {
            lua_rawgeti(L, 3, i);
            listed = strcmp(lua_tostring(L, -1), value) == 0;
            lua_pop(L, 1);
        }
        if (!listed) {
            luaL_Buffer b; /* "expected one of chain, single" */
            luaL_buffinit(L, &b);
            for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, 3); ++i) {
                lua_rawgeti(L, 3, i);
                const char *c = lua_tostring(L, -1); /* kept alive by the table at 3 */
                lua_pop(L, 1);                       /* the stack is balanced between buffer calls */
                luaL_addstring(&b, i > 1 ? ", " : "");
                luaL_addstring(&b, c);
            }
            luaL_pushresult(&b);
            tplError(L, "set %s=%s: expected one of %s", name, tplShown(value, shown, sizeof shown),
                     lua_tostring(L, -1));
        }
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

typedef struct tplSetupArgs {
    const char *path;    /* the script as messages name it */
    const char *dir;     /* its folder as messages name it, trailing slash ("" or "domains/");
                            NULL: none (text source) */
    const char *diskdir; /* the folder to read files from (trailing slash); NULL: none (text
                            source, or the files of a plan) */
    const tpScriptParam *params;
    int nparams;
} tplSetupArgs;

static int tplSetup(lua_State *L)
{
    tplSetupArgs *a = lua_touserdata(L, 1);
    tplOpenSandbox(L);
    if (a->dir) {
        lua_pushstring(L, a->dir);
        lua_setfield(L, LUA_REGISTRYINDEX, TPL_SCRIPT_DIR);
    }
    if (a->diskdir) {
        /* require and data files (tp.nav.track, tp.pattern images) are confined to this folder */
        lua_pushstring(L, a->diskdir);
        lua_setfield(L, LUA_REGISTRYINDEX, TPL_SCRIPT_DISKDIR);
        char *real = realpath(a->diskdir, NULL);
        if (!real)
            tplError(L, "%s: cannot resolve the script's folder: %s", a->path, strerror(errno));
        lua_pushstring(L, real);
        free(real);
        lua_setfield(L, LUA_REGISTRYINDEX, TPL_SCRIPT_REALDIR);
    }

    /* the tp module: global and require "tp" */
    luaL_requiref(L, "tp", luaopen_tp, 1);
    tplLockMetatables(L);
    lua_getfield(L, LUA_REGISTRYINDEX, "tp.loaded");
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "tp");
    lua_pop(L, 2);

    /* --set overrides */
    lua_newtable(L);
    for (int i = 0; i < a->nparams; i++) {
        const tpScriptParam *p = &a->params[i];
        if (!p->name || !p->name[0] || !p->value)
            tplError(L, "%s: set: a parameter needs a name and a value", a->path);
        if (lua_getfield(L, -1, p->name) != LUA_TNIL)
            tplError(L, "%s: set %s given more than once", a->path, p->name);
        lua_pop(L, 1);
        lua_pushstring(L, p->value);
        lua_setfield(L, -2, p->name);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_READ);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_USED);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_DECL);
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
    const char *json;      /* in the registry */
    const char *info_json; /* in the registry */
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
    /* the declarations, in the order the script read them */
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_PARAMS_DECL);
    int decl = lua_gettop(L);
    luaL_buffinit(L, &b);
    luaL_addchar(&b, '[');
    for (lua_Integer k = 1; k <= (lua_Integer)lua_rawlen(L, decl); k++) {
        if (k > 1)
            luaL_addchar(&b, ',');
        lua_rawgeti(L, decl, k);
        luaL_addvalue(&b);
    }
    luaL_addchar(&b, ']');
    luaL_pushresult(&b);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "tp.params.info");
    a->info_json = lua_tostring(L, -1);
    lua_pushvalue(L, 2);
    lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_DOMAIN);
    a->domain = dom->domain;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* tpScript                                                                                    */

static void tplScriptError(lua_State *L, const char *path, char *err, size_t errlen)
{
    const char *msg = tplErrorText(L, -1);
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_SHORT_SRC);
    const char *short_src = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
    if (err && errlen)
        tplFixPath(err, errlen, msg, path, short_src);
    lua_pop(L, 1);
}

tpScriptDef tpDefaultScriptDef(void)
{
    tpScriptDef d;
    memset(&d, 0, sizeof d);
    d.memory_limit = TP_SCRIPT_DEFAULT_MEMORY;
    d.load_time_limit = TP_SCRIPT_DEFAULT_LOAD_TIME;
    d.call_time_limit = TP_SCRIPT_DEFAULT_CALL_TIME;
    return d;
}

tpScript *tpLoadScript(const char *path, const tpScriptParam *params, int nparams, char *err, size_t errlen)
{
    tpScriptDef def = tpDefaultScriptDef();
    def.path = path;
    def.params = params;
    def.nparams = nparams;
    return tpCreateScript(&def, err, errlen);
}

/* malloc'd "<folder of path>/" ("" or `nodir` when path has no slash); NULL when out of memory. */
static char *tplFolderOf(const char *path, const char *nodir)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + 1 : strlen(nodir);
    char *dir = malloc(n + 1);
    if (dir) {
        memcpy(dir, slash ? path : nodir, n);
        dir[n] = '\0';
    }
    return dir;
}

tpScript *tpCreateScript(const tpScriptDef *def, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!def || !def->path || !def->path[0] || def->nparams < 0 || (def->nparams > 0 && !def->params) ||
        !(def->load_time_limit >= 0) || !(def->call_time_limit >= 0) || (def->files && def->nfiles < 1) ||
        (def->files && def->source)) {
        tpErrorf(err, errlen, "tpCreateScript: no script path, bad parameter list, files or limits");
        return NULL;
    }
    const char *path = def->path;
    /* messages and chunk names use `name`; files are read from `path`'s folder (or the plan's) */
    const char *name = def->files || !def->name || !def->name[0] ? path : def->name;
    size_t len = 0;
    char *src = NULL;
    if (def->files) {
        if (def->files[0].len > TP_MAX_SCRIPT_BYTES) {
            tpErrorf(err, errlen, "%s: the script is larger than %zu bytes", name, TP_MAX_SCRIPT_BYTES);
            return NULL;
        }
        len = def->files[0].len;
    } else if (def->source) {
        if (def->source_len > TP_MAX_SCRIPT_BYTES) {
            tpErrorf(err, errlen, "%s: the script is larger than %zu bytes", path, TP_MAX_SCRIPT_BYTES);
            return NULL;
        }
        len = def->source_len;
    } else {
        src = tpFile_Read(path, TP_MAX_SCRIPT_BYTES, &len, err, errlen);
        if (!src) {
            size_t n = strlen(path);
            if (name != path && err && strncmp(err, path, n) == 0) { /* name it as messages do */
                char tail[512];
                tpStrCopy(tail, sizeof tail, err + n);
                snprintf(err, errlen, "%s%s", name, tail);
            }
            return NULL;
        }
    }
    const char *text = def->files ? (const char *)def->files[0].data : def->source ? def->source : src;
    tpScript *s = calloc(1, sizeof *s);
    if (!s || !(s->name = strdup(name))) {
        free(s);
        free(src);
        tpErrorf(err, errlen, "%s: out of memory", name);
        return NULL;
    }
    s->limits.max_bytes = def->memory_limit > 0 ? def->memory_limit : TP_SCRIPT_DEFAULT_MEMORY;
    s->limits.print_to = def->print_to;
    s->limits.print_fn = def->print_fn;
    s->limits.print_user = def->print_user;
    s->limits.on_deadline = def->on_deadline;
    s->limits.on_deadline_user = def->on_deadline_user;
    tpStrCopy(s->limits.path, sizeof s->limits.path, name);
    s->limits.call_seconds = def->call_time_limit > 0 ? def->call_time_limit : TP_SCRIPT_DEFAULT_CALL_TIME;
    s->limits.embedded = def->files;
    s->limits.nembedded = def->files ? def->nfiles : 0;
    double load_limit = def->load_time_limit > 0 ? def->load_time_limit : TP_SCRIPT_DEFAULT_LOAD_TIME;
    /* the script is the first file it read, named by its file name (a plan's sources[0]) */
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    if (tplRecordFile(&s->limits, base, text, len) < 0) {
        tplFreeFiles(&s->limits); /* the table may have grown before the copy failed */
        free(s->name);
        free(s);
        free(src);
        tpErrorf(err, errlen, "%s: out of memory", name);
        return NULL;
    }
    lua_State *L = lua_newstate(tplAlloc, &s->limits);
    if (!L) {
        tplFreeFiles(&s->limits);
        free(s->name);
        free(s);
        free(src);
        tpErrorf(err, errlen, "%s: out of memory", name);
        return NULL;
    }
    s->L = L;
    tplInstallLimits(L, &s->limits);
    snprintf(s->hash, sizeof s->hash, "fnv1a64:%016llx", (unsigned long long)tpHash_Fnv1a64(text, len));
    snprintf(s->limits.load_what, sizeof s->limits.load_what,
             "the script's top level ran longer than %g s: load_time_limit", load_limit);
    snprintf(s->limits.call_what, sizeof s->limits.call_what, "one callback ran longer than %g s: call_time_limit",
             s->limits.call_seconds);
    tplArm(L, load_limit, s->limits.load_what);

    /* the folder as messages name it: "" for a renamed (built-in) or embedded script, else the
       path's own ("./" when it has none, as before) */
    char *dir = NULL, *diskdir = NULL;
    if (!def->source) {
        dir = tplFolderOf(name, name != path || def->files ? "" : "./");
        diskdir = def->files ? NULL : tplFolderOf(path, "./");
        if (!dir || (!def->files && !diskdir)) {
            tpErrorf(err, errlen, "%s: out of memory", name);
            goto fail;
        }
    }
    tplSetupArgs setup = {name, dir, diskdir, def->params, def->nparams};
    lua_pushcfunction(L, tplSetup);
    lua_pushlightuserdata(L, &setup);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        tplScriptError(L, name, err, errlen);
        goto fail;
    }
    lua_pushcfunction(L, tplMsgHandler); /* 1 */
    lua_pushcfunction(L, tplRun);        /* 2 */
    const char *chunkname = lua_pushfstring(L, "@%s", name);
    int rc = luaL_loadbufferx(L, text, len, chunkname, "t"); /* 4: the chunk */
    lua_remove(L, 3);
    if (rc != LUA_OK) {
        tplScriptError(L, name, err, errlen);
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
        tplScriptError(L, name, err, errlen);
        goto fail;
    }
    /* stack: handler, result */
    tplFinishArgs fin = {def->params, def->nparams, NULL, NULL, NULL};
    lua_pushcfunction(L, tplFinish);
    lua_pushlightuserdata(L, &fin);
    lua_pushvalue(L, 2);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        tplScriptError(L, name, err, errlen);
        goto fail;
    }
    s->params_json = malloc(strlen(fin.json) + 1);
    if (!s->params_json) {
        tpErrorf(err, errlen, "%s: out of memory", name);
        goto fail;
    }
    memcpy(s->params_json, fin.json, strlen(fin.json) + 1);
    s->params_info_json = strdup(fin.info_json);
    if (!s->params_info_json) {
        tpErrorf(err, errlen, "%s: out of memory", name);
        goto fail;
    }
    s->domain = fin.domain;
    lua_settop(L, 0);
    lua_gc(L, LUA_GCCOLLECT); /* drop unreturned domains and scratch now, not mid-planning */
    tplDisarm(L);
    TP_VALIDATE(tplScript_Valid, s);
    free(dir);
    free(diskdir);
    return s;

fail:
    free(dir);
    free(diskdir);
    free(src);
    tpDestroyScript(s);
    return NULL;
}

void tpScript_SetDeadline(tpScript *script, double deadline, const char *what)
{
    if (!script)
        return;
    script->limits.run_deadline = deadline;
    tpStrCopy(script->limits.run_what, sizeof script->limits.run_what, what ? what : "the run's time limit");
    TP_VALIDATE(tplScript_Valid, script);
}

void tpDestroyScript(tpScript *script)
{
    if (!script)
        return;
    if (script->limits.deadline > 0 && script->limits.on_deadline) /* failed while armed (a load error) */
        script->limits.on_deadline(script->limits.on_deadline_user, 0, 0);
    if (script->L)
        lua_close(script->L); /* finalizes the tp.domain userdata: frees the domain */
    free(script->params_json);
    free(script->params_info_json);
    tplFreeFiles(&script->limits);
    free(script->name);
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

const char *tpScript_Name(const tpScript *script)
{
    return script && script->name ? script->name : "";
}

const tpScriptFile *tpScript_Files(const tpScript *script, int *n)
{
    *n = script ? script->limits.nfiles : 0;
    return script ? script->limits.files : NULL;
}

const char *tpScript_ParamsJson(const tpScript *script)
{
    return script && script->params_json ? script->params_json : "{}";
}

const char *tpScript_ParamsInfoJson(const tpScript *script)
{
    return script && script->params_info_json ? script->params_info_json : "[]";
}
