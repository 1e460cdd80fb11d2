/* tplan lua: host callbacks (dynamic Π rows, Lua conditions, metrics, custom skills) and the
 * views they hand to Lua (state, action, custom-skill context).
 *
 * Every callback runs a C "runner" under lua_pcall with the message handler, so nothing
 * raised inside Lua (or by our own checks on what it returned) can longjmp across planner
 * frames; an error lands in tpDomain_SetError and the callback reports failure. Views point
 * into the caller's memory, so every view made during a call is registered in the domain's
 * live table and marked invalid when the call returns: a view kept by the script raises on
 * use instead of reading freed memory. */
#include "lua_internal.h"
#include "tp/mathx.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Views                                                                                       */

typedef struct tplView {
    tplLive live;
    tpStateView v;
} tplView;

typedef struct tplAction {
    tplLive live;
    const tpWorld *world;
    const double *a;
} tplAction;

typedef struct tplCtx {
    tplLive live;
    tpSkillCall *call;
    tplDomain *dom;
} tplCtx;

/* Registers the userdata at the top of the stack in the domain's live table. */
static void tplTrack(lua_State *L, const tplDomain *dom)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, dom->liveref);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
}

/* Expires the views registered after the first `keep` (those of the call that returns; a
 * callback can run inside another: a tp.motion function evaluated by a custom skill's ctx). */
static void tplExpire(lua_State *L, const tplDomain *dom, lua_Integer keep)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, dom->liveref);
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = n; i > keep; i--) {
        lua_rawgeti(L, -1, i);
        tplLive *lv = lua_touserdata(L, -1);
        if (lv)
            lv->valid = false;
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawseti(L, -2, i);
    }
    lua_pop(L, 1);
}

static tplView *tplPushView(lua_State *L, tplDomain *dom, const tpStateView *x)
{
    tplView *v = lua_newuserdatauv(L, sizeof *v, 1);
    v->live.valid = true;
    v->v = *x;
    luaL_setmetatable(L, TPL_VIEW);
    lua_rawgeti(L, LUA_REGISTRYINDEX, dom->namesref);
    lua_setiuservalue(L, -2, 1);
    tplTrack(L, dom);
    return v;
}

static void tplPushAction(lua_State *L, tplDomain *dom, const tpWorld *world, const double *a)
{
    tplAction *ac = lua_newuserdatauv(L, sizeof *ac, 1);
    ac->live.valid = true;
    ac->world = world;
    ac->a = a;
    luaL_setmetatable(L, TPL_ACTION);
    lua_rawgeti(L, LUA_REGISTRYINDEX, dom->namesref);
    lua_setiuservalue(L, -2, 1);
    tplTrack(L, dom);
}

static void tplExpired(lua_State *L, const char *type)
{
    tplError(L, "%s used after its callback returned (views are valid only during the call)", type);
}

/* Body index of the name at `arg`, looked up in the user value 1 (name -> index) of the
 * userdata at 1. */
static int tplViewBody(lua_State *L, int arg, const tpWorld *world)
{
    const char *name = luaL_checkstring(L, arg);
    lua_getiuservalue(L, 1, 1);
    lua_pushvalue(L, arg);
    if (lua_rawget(L, -2) != LUA_TNUMBER) {
        luaL_Buffer b;
        lua_pop(L, 2);
        luaL_buffinit(L, &b);
        int n = tpWorld_BodyCount(world);
        for (int i = 0; i < n; i++) {
            if (i)
                luaL_addstring(&b, ", ");
            luaL_addstring(&b, tpWorld_Body(world, i)->name);
        }
        luaL_pushresult(&b);
        tplError(L, "unknown body '%s' (bodies: %s)", name, lua_tostring(L, -1));
    }
    int i = (int)lua_tointeger(L, -1);
    lua_pop(L, 2);
    return i;
}

static tplView *tplCheckView(lua_State *L)
{
    tplView *v = luaL_checkudata(L, 1, TPL_VIEW);
    if (!v->live.valid)
        tplExpired(L, "state view");
    return v;
}

static tpBodyState tplViewState(lua_State *L, tplView *v)
{
    int i = tplViewBody(L, 2, v->v.world);
    tpBodyState s;
    tpWorld_BodyState(v->v.world, v->v.bodies, v->v.t, i, &s);
    return s;
}

static int tplPush3(lua_State *L, const double *p)
{
    for (int k = 0; k < 3; k++)
        lua_pushnumber(L, p[k]);
    return 3;
}

static int tplViewPos(lua_State *L)
{
    tplView *v = tplCheckView(L);
    tpBodyState s = tplViewState(L, v);
    return tplPush3(L, s.pos);
}

static int tplViewVel(lua_State *L)
{
    tplView *v = tplCheckView(L);
    tpBodyState s = tplViewState(L, v);
    return tplPush3(L, s.vel);
}

static int tplViewAngvel(lua_State *L)
{
    tplView *v = tplCheckView(L);
    tpBodyState s = tplViewState(L, v);
    return tplPush3(L, s.angvel);
}

static int tplViewQuat(lua_State *L)
{
    tplView *v = tplCheckView(L);
    tpBodyState s = tplViewState(L, v);
    for (int k = 0; k < 4; k++)
        lua_pushnumber(L, s.quat[k]);
    return 4;
}

static int tplViewYaw(lua_State *L)
{
    tplView *v = tplCheckView(L);
    tpBodyState s = tplViewState(L, v);
    lua_pushnumber(L, tpQuat_Yaw(s.quat));
    return 1;
}

static int tplViewSpeed(lua_State *L)
{
    tplView *v = tplCheckView(L);
    tpBodyState s = tplViewState(L, v);
    lua_pushnumber(L, sqrt(s.vel[0] * s.vel[0] + s.vel[1] * s.vel[1] + s.vel[2] * s.vel[2]));
    return 1;
}

/* __index: s.t, else a method; anything else is a typo and raises. Upvalue 1: methods. */
static int tplViewIndex(lua_State *L)
{
    tplView *v = luaL_checkudata(L, 1, TPL_VIEW);
    const char *key = luaL_checkstring(L, 2);
    if (strcmp(key, "t") == 0) {
        if (!v->live.valid)
            tplExpired(L, "state view");
        lua_pushnumber(L, v->v.t);
        return 1;
    }
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TNIL)
        tplError(L, "tp.state has no field '%s' (fields: t, pos, vel, angvel, quat, yaw, speed)", key);
    return 1;
}

static int tplActionVec(lua_State *L, int off)
{
    tplAction *ac = luaL_checkudata(L, 1, TPL_ACTION);
    if (!ac->live.valid)
        tplExpired(L, "action view");
    int i = tplViewBody(L, 2, ac->world);
    int slot = tpWorld_ControlSlot(ac->world, i);
    double zero[3] = {0, 0, 0};
    return tplPush3(L, slot >= 0 && ac->a ? ac->a + 6 * slot + off : zero);
}

static int tplActionForce(lua_State *L)
{
    return tplActionVec(L, 0);
}

static int tplActionTorque(lua_State *L)
{
    return tplActionVec(L, 3);
}

/* ------------------------------------------------------------------------------------------ */
/* Custom-skill context                                                                        */

static tplCtx *tplCheckCtx(lua_State *L)
{
    tplCtx *c = luaL_checkudata(L, 1, TPL_CTX);
    if (!c->live.valid)
        tplExpired(L, "skill context");
    return c;
}

static double tplArgNumber(lua_State *L, int arg)
{
    double v = luaL_checknumber(L, arg);
    if (!isfinite(v))
        tplError(L, "bad argument #%d (finite number expected, got %g)", arg - 1, v);
    return v;
}

static int tplCtxUniform(lua_State *L)
{
    tplCtx *c = tplCheckCtx(L);
    double lo = tplArgNumber(L, 2), hi = tplArgNumber(L, 3);
    if (lo > hi)
        tplError(L, "ctx:uniform: lo must be <= hi (got %g > %g)", lo, hi);
    lua_pushnumber(L, tpRng_Uniform(c->call->rng, lo, hi));
    return 1;
}

static int tplCtxNormal(lua_State *L)
{
    tplCtx *c = tplCheckCtx(L);
    double m = tplArgNumber(L, 2), sd = tplArgNumber(L, 3);
    if (sd < 0)
        tplError(L, "ctx:normal: sd must be >= 0 (got %g)", sd);
    lua_pushnumber(L, tpRng_Normal(c->call->rng, m, sd));
    return 1;
}

static int tplCtxAdd(lua_State *L, int off)
{
    tplCtx *c = tplCheckCtx(L);
    int i = tplViewBody(L, 2, c->call->world);
    int slot = tpWorld_ControlSlot(c->call->world, i);
    if (slot < 0)
        tplError(L, "body '%s' is not controlled (only active bodies and foreign bodies without a motion take forces)",
                 lua_tostring(L, 2));
    double f[3];
    for (int k = 0; k < 3; k++)
        f[k] = tplArgNumber(L, 3 + k);
    for (int k = 0; k < 3; k++)
        c->call->action[6 * slot + off + k] += f[k];
    return 0;
}

static int tplCtxForce(lua_State *L)
{
    return tplCtxAdd(L, 0);
}

static int tplCtxTorque(lua_State *L)
{
    return tplCtxAdd(L, 3);
}

/* __index: state, fresh, t, dt, y, v, else a method. Upvalue 1: methods. User values:
 * 1 names, 2 cached state view, 3 cached v proxy. */
static int tplCtxIndex(lua_State *L)
{
    tplCtx *c = luaL_checkudata(L, 1, TPL_CTX);
    const char *key = luaL_checkstring(L, 2);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
        return 1;
    if (!c->live.valid)
        tplExpired(L, "skill context");
    tpSkillCall *call = c->call;
    if (strcmp(key, "state") == 0) {
        if (lua_getiuservalue(L, 1, 2) != LUA_TNIL)
            return 1;
        tpStateView x = {call->world, call->x, call->t, NULL};
        tplPushView(L, c->dom, &x);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, 2);
        return 1;
    }
    if (strcmp(key, "fresh") == 0) {
        lua_pushboolean(L, call->fresh);
        return 1;
    }
    if (strcmp(key, "t") == 0) {
        lua_pushnumber(L, call->t);
        return 1;
    }
    if (strcmp(key, "dt") == 0) {
        lua_pushnumber(L, call->dt);
        return 1;
    }
    if (strcmp(key, "y") == 0) {
        lua_createtable(L, call->ydim, 0);
        for (int i = 0; i < call->ydim && call->y; i++) {
            lua_pushnumber(L, call->y[i]);
            lua_rawseti(L, -2, i + 1);
        }
        return 1;
    }
    if (strcmp(key, "v") == 0) {
        if (lua_getiuservalue(L, 1, 3) != LUA_TNIL)
            return 1;
        lua_newuserdatauv(L, 1, 1); /* the proxy: its only state is the ctx in user value 1 */
        luaL_setmetatable(L, TPL_VARS);
        lua_pushvalue(L, 1);
        lua_setiuservalue(L, -2, 1);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, 3);
        return 1;
    }
    return tplError(L, "ctx has no field '%s' (fields: state, fresh, t, dt, y, v, uniform, normal, force, torque)",
                    key);
}

static double *tplVarsSlot(lua_State *L)
{
    luaL_checkudata(L, 1, TPL_VARS);
    lua_getiuservalue(L, 1, 1);
    tplCtx *c = luaL_checkudata(L, -1, TPL_CTX);
    lua_pop(L, 1);
    if (!c->live.valid)
        tplExpired(L, "ctx.v");
    int ok = 0;
    lua_Integer i = lua_tointegerx(L, 2, &ok);
    if (!ok || i < 1 || i > TP_SKILL_VARS)
        tplError(L, "ctx.v: index must be an integer 1..%d (got %s)", TP_SKILL_VARS, luaL_tolstring(L, 2, NULL));
    return &c->call->V[i - 1];
}

static int tplVarsIndex(lua_State *L)
{
    lua_pushnumber(L, *tplVarsSlot(L));
    return 1;
}

static int tplVarsNewIndex(lua_State *L)
{
    double *slot = tplVarsSlot(L);
    if (lua_type(L, 3) != LUA_TNUMBER)
        tplError(L, "ctx.v: values must be numbers (got %s)", luaL_typename(L, 3));
    *slot = lua_tonumber(L, 3);
    return 0;
}

static int tplVarsLen(lua_State *L)
{
    lua_pushinteger(L, TP_SKILL_VARS);
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Callbacks                                                                                   */

/* "source:linedefined:" of the function at idx (pushed), for messages about what it returned. */
static const char *tplFuncWhere(lua_State *L, int idx)
{
    lua_Debug ar;
    lua_pushvalue(L, idx);
    lua_getinfo(L, ">S", &ar);
    return lua_pushfstring(L, "%s:%d:", ar.short_src, ar.linedefined);
}

static void tplPushFn(lua_State *L, const tplDomain *dom, int id)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, dom->fnref);
    lua_rawgeti(L, -1, id);
    lua_remove(L, -2);
    if (lua_type(L, -1) != LUA_TFUNCTION)
        tplError(L, "internal error: no Lua callback %d", id);
}

static void tplSetError(tplDomain *dom, const char *msg)
{
    char buf[2048];
    tplFixPath(buf, sizeof buf, msg ? msg : "Lua error", dom->path, dom->short_src);
    if (dom->domain)
        tpDomain_SetError(dom->domain, buf);
    else
        tpStrCopy(dom->pending, sizeof dom->pending, buf);
}

/* Runs runner(args) protected; returns 0, or -1 after storing the message. */
static int tplInvoke(tplDomain *dom, lua_CFunction runner, void *args)
{
    lua_State *L = dom->L;
    int top = lua_gettop(L);
    if (!lua_checkstack(L, 8)) {
        tplSetError(dom, "Lua stack exhausted");
        return -1;
    }
    /* Nested in another callback, or run while the script loads (tp.motion functions checked by
     * tp.domain): the running deadline stays, and only this call's views expire. */
    tplLimits *lim = tplGetLimits(L);
    const double deadline = lim->deadline;
    const char *deadline_what = lim->deadline_what;
    if (deadline <= 0)
        tplArm(L, lim->call_seconds, lim->call_what);
    lua_rawgeti(L, LUA_REGISTRYINDEX, dom->liveref);
    lua_Integer keep = (lua_Integer)lua_rawlen(L, -1);
    lua_pop(L, 1);
    lua_pushcfunction(L, tplMsgHandler);
    lua_pushcfunction(L, runner);
    lua_pushlightuserdata(L, args);
    int rc = lua_pcall(L, 1, 0, top + 1);
    if (rc != LUA_OK)
        tplSetError(dom, tplErrorText(L, -1));
    if (deadline <= 0)
        tplDisarm(L);
    else {
        lim->deadline = deadline;
        lim->deadline_what = deadline_what;
    }
    tplExpire(L, dom, keep);
    lua_settop(L, top);
    return rc == LUA_OK ? 0 : -1;
}

typedef struct tplPiArgs {
    tplDomain *dom;
    int tactic, sigma;
    const tpStateView *x;
    double *probs;
} tplPiArgs;

static int tplPiRun(lua_State *L)
{
    tplPiArgs *a = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->dom->skillsref);
    lua_rawgeti(L, -1, a->tactic + 1);
    int names = lua_gettop(L);
    int k = (int)lua_rawlen(L, names);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->dom->piref);
    lua_rawgeti(L, -1, a->tactic + 1);
    lua_rawgeti(L, -1, a->sigma + 1);
    int fn = lua_gettop(L);
    if (lua_type(L, fn) != LUA_TFUNCTION)
        tplError(L, "internal error: no Π row function");
    lua_rawgeti(L, names, a->sigma + 1);
    const char *row = lua_tostring(L, -1);
    const char *where = tplFuncWhere(L, fn);
    lua_pushvalue(L, fn);
    tplPushView(L, a->dom, a->x);
    lua_call(L, 1, 1);
    int res = lua_gettop(L);
    if (lua_type(L, res) != LUA_TTABLE)
        tplError(L, "%s transitions.%s: the row function must return a table {skill = probability}, got %s", where, row,
                 tplTypeName(L, res));
    /* unknown keys: report the alphabetically first, never the first in iteration order */
    const char *bad = NULL;
    bool nonstring = false;
    lua_pushnil(L);
    while (lua_next(L, res)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            nonstring = true;
            continue;
        }
        lua_pushvalue(L, -1);
        if (lua_rawget(L, names) == LUA_TNIL) {
            const char *key = lua_tostring(L, -2);
            if (!bad || strcmp(key, bad) < 0)
                bad = key;
        }
        lua_pop(L, 1);
    }
    if (bad)
        tplError(L, "%s transitions.%s: the row function returned an unknown skill '%s'", where, row, bad);
    if (nonstring)
        tplError(L, "%s transitions.%s: the row function must return skill names as keys", where, row);
    for (int j = 0; j < k; j++) {
        lua_rawgeti(L, names, j + 1);
        int t = lua_rawget(L, res);
        double p = 0;
        if (t == LUA_TNUMBER)
            p = lua_tonumber(L, -1);
        else if (t != LUA_TNIL) {
            const char *got = luaL_typename(L, -1);
            lua_rawgeti(L, names, j + 1); /* the key: the skill's name */
            tplError(L, "%s transitions.%s: probability of '%s' must be a number, got %s", where, row,
                     lua_tostring(L, -1), got);
        }
        lua_pop(L, 1);
        if (!(p >= 0) || !isfinite(p)) {
            lua_rawgeti(L, names, j + 1);
            tplError(L, "%s transitions.%s.%s: probability must be >= 0 (got %g)", where, row, lua_tostring(L, -1), p);
        }
        a->probs[j] = p;
    }
    return 0;
}

int tplPiCallback(void *user, int tactic, int sigma, const tpStateView *x, double *probs)
{
    tplPiArgs a = {user, tactic, sigma, x, probs};
    return tplInvoke(user, tplPiRun, &a);
}

typedef struct tplCondArgs {
    tplDomain *dom;
    int id;
    const tpStateView *x;
    int result;
} tplCondArgs;

static int tplCondRun(lua_State *L)
{
    tplCondArgs *a = lua_touserdata(L, 1);
    tplPushFn(L, a->dom, a->id);
    int fn = lua_gettop(L);
    lua_pushvalue(L, fn);
    tplPushView(L, a->dom, a->x);
    lua_call(L, 1, 1);
    if (lua_type(L, -1) != LUA_TBOOLEAN) {
        const char *got = luaL_typename(L, -1);
        tplError(L, "%s condition function must return a boolean, got %s", tplFuncWhere(L, fn), got);
    }
    a->result = lua_toboolean(L, -1) ? 1 : 0;
    return 0;
}

int tplCondCallback(void *user, int id, const tpStateView *x)
{
    tplCondArgs a = {user, id, x, 0};
    if (tplInvoke(user, tplCondRun, &a) != 0)
        return -1;
    return a.result;
}

typedef struct tplMotionArgs {
    tplDomain *dom;
    int id;
    double t;         /* s */
    tpBodyState *out; /* the body's state at t */
} tplMotionArgs;

/* One call fn(t) -> pos, quat [, linvel, angvel] (fn at `fn`, its definition site `where`):
 * types, sizes and finiteness checked; the quaternion is taken as is when its length is within
 * 1e-9 of 1, normalised when within 1e-3, refused beyond. True when velocities were returned. */
static bool tplMotionCall(lua_State *L, int fn, const char *where, double t, tpBodyState *out)
{
    lua_pushvalue(L, fn);
    lua_pushnumber(L, t);
    lua_call(L, 1, 4);
    int r = lua_gettop(L) - 3;
    static const char *const names[] = {"pos", "quat", "linvel", "angvel"};
    double *dst[] = {out->pos, out->quat, out->vel, out->angvel};
    bool given[4];
    for (int k = 0; k < 4; k++)
        given[k] = !lua_isnil(L, r + k);
    if (given[2] != given[3])
        tplError(L, "%s tp.motion function: return both linvel and angvel, or neither (got %s, %s)", where,
                 tplTypeName(L, r + 2), tplTypeName(L, r + 3));
    for (int k = 0; k < 4; k++) {
        if (k >= 2 && !given[k])
            continue;
        char label[512];
        snprintf(label, sizeof label, "%s tp.motion function: %s (result %d)", where, names[k], k + 1);
        tplToVector(L, r + k, label, dst[k], k == 1 ? 4 : 3, k == 1 ? 4 : 3, false);
    }
    lua_settop(L, r - 1);
    double *q = out->quat;
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(fabs(n - 1.0) <= 1e-3))
        tplError(L, "%s tp.motion function: quat must be a unit quaternion {w, x, y, z} (length %g)", where, n);
    if (fabs(n - 1.0) > 1e-9) /* rounding is left alone: the pose stays what the function computed */
        for (int k = 0; k < 4; k++)
            q[k] /= n;
    return given[2];
}

/* The state of a tp.motion body at a->t: one call when the function returns velocities, else
 * three (t - h, t, t + h) and central differences: v = (p+ - p-) / 2h, ω = 2 vec(q' q*). */
static int tplMotionRun(lua_State *L)
{
    tplMotionArgs *a = lua_touserdata(L, 1);
    tplPushFn(L, a->dom, a->id);
    int fn = lua_gettop(L);
    const char *where = tplFuncWhere(L, fn);
    tpBodyState *s = a->out, lo, hi;
    const bool given = tplMotionCall(L, fn, where, a->t, s);
    if (!given) {
        const double h = TPL_MOTION_FD_STEP;
        tplMotionCall(L, fn, where, a->t - h, &lo);
        tplMotionCall(L, fn, where, a->t + h, &hi);
        double dq[4], dot_lo = 0, dot_hi = 0;
        for (int k = 0; k < 4; k++) {
            dot_lo += lo.quat[k] * s->quat[k];
            dot_hi += hi.quat[k] * s->quat[k];
        }
        for (int k = 0; k < 4; k++) /* q and -q are the same rotation: difference in q's hemisphere */
            dq[k] = ((dot_hi < 0 ? -hi.quat[k] : hi.quat[k]) - (dot_lo < 0 ? -lo.quat[k] : lo.quat[k])) / (2 * h);
        for (int k = 0; k < 3; k++)
            s->vel[k] = (hi.pos[k] - lo.pos[k]) / (2 * h);
        const double *q = s->quat, *v = q + 1, *dv = dq + 1;
        const double c[3] = {dv[1] * v[2] - dv[2] * v[1], dv[2] * v[0] - dv[0] * v[2], dv[0] * v[1] - dv[1] * v[0]};
        for (int k = 0; k < 3; k++)
            s->angvel[k] = 2 * (q[0] * dv[k] - dq[0] * v[k] - c[k]);
    }
    if (!tpWorld_StateInRange(s))
        tplError(L, "%s tp.motion function: out of range (|pos| <= %g m, |linvel| <= %g m/s, |angvel| <= %g rad/s%s)",
                 where, TP_MAX_COORD, TP_MAX_SPEED, TP_MAX_ANGVEL,
                 given ? "" : "; velocities by finite differences: a jump in the pose?");
    return 0;
}

bool tplMotionCallback(void *user, int id, double t, tpBodyState *out, char *err, size_t errlen)
{
    tplDomain *dom = user;
    tplMotionArgs a = {dom, id, t, out};
    if (tplInvoke(dom, tplMotionRun, &a) != 0) {
        tpStrCopy(err, errlen, dom->domain ? tpDomain_Error(dom->domain) : dom->pending);
        return false;
    }
    return true;
}

typedef struct tplMetricArgs {
    tplDomain *dom;
    int id;
    const tpStateView *states;
    const double *const *actions;
    int len;
    double result;
} tplMetricArgs;

static int tplMetricRun(lua_State *L)
{
    tplMetricArgs *a = lua_touserdata(L, 1);
    tplPushFn(L, a->dom, a->id);
    int fn = lua_gettop(L);
    lua_pushvalue(L, fn);
    if (a->id == a->dom->quality_id) {
        /* quality: the node's own state */
        tplPushView(L, a->dom, &a->states[a->len - 1]);
    } else {
        /* solution metric: path[1..n] state views, path.n, path.actions[i] action views */
        lua_createtable(L, a->len, 2);
        lua_createtable(L, a->len, 0);
        for (int i = 0; i < a->len; i++) {
            tplPushView(L, a->dom, &a->states[i]);
            lua_rawseti(L, -3, i + 1);
            tplPushAction(L, a->dom, a->states[i].world, a->actions ? a->actions[i] : NULL);
            lua_rawseti(L, -2, i + 1);
        }
        lua_setfield(L, -2, "actions");
        lua_pushinteger(L, a->len);
        lua_setfield(L, -2, "n");
    }
    lua_call(L, 1, 1);
    if (lua_type(L, -1) != LUA_TNUMBER || isnan(lua_tonumber(L, -1))) {
        const char *got = lua_type(L, -1) == LUA_TNUMBER ? "nan" : luaL_typename(L, -1);
        tplError(L, "%s metric function must return a number, got %s", tplFuncWhere(L, fn), got);
    }
    a->result = lua_tonumber(L, -1);
    return 0;
}

double tplMetricCallback(void *user, int id, const tpStateView *states, const double *const *actions, int len)
{
    if (len < 1)
        return NAN;
    tplMetricArgs a = {user, id, states, actions, len, NAN};
    if (tplInvoke(user, tplMetricRun, &a) != 0)
        return NAN;
    return a.result;
}

typedef struct tplSkillArgs {
    tplDomain *dom;
    int id;
    tpSkillCall *call;
    int result;
} tplSkillArgs;

static int tplSkillRun(lua_State *L)
{
    tplSkillArgs *a = lua_touserdata(L, 1);
    tplPushFn(L, a->dom, a->id);
    int fn = lua_gettop(L);
    lua_pushvalue(L, fn);
    tplCtx *c = lua_newuserdatauv(L, sizeof *c, 3);
    c->live.valid = true;
    c->call = a->call;
    c->dom = a->dom;
    luaL_setmetatable(L, TPL_CTX);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->dom->namesref);
    lua_setiuservalue(L, -2, 1);
    tplTrack(L, a->dom);
    lua_call(L, 1, 1);
    int t = lua_type(L, -1);
    if (t != LUA_TBOOLEAN && t != LUA_TNIL) {
        const char *got = luaL_typename(L, -1);
        tplError(L, "%s custom skill must return true (busy) or false/nil (done), got %s", tplFuncWhere(L, fn), got);
    }
    a->result = lua_toboolean(L, -1) ? 1 : 0;
    return 0;
}

int tplSkillCallback(void *user, int skill_id, tpSkillCall *call)
{
    tplSkillArgs a = {user, skill_id, call, 0};
    if (tplInvoke(user, tplSkillRun, &a) != 0)
        return -1;
    return a.result;
}

/* ------------------------------------------------------------------------------------------ */
/* Metatables                                                                                  */

static int tplViewToString(lua_State *L)
{
    tplView *v = luaL_checkudata(L, 1, TPL_VIEW);
    char buf[64];
    snprintf(buf, sizeof buf, "tp.state (t = %g)", v->v.t);
    if (v->live.valid)
        lua_pushstring(L, buf);
    else
        lua_pushliteral(L, "tp.state (expired)");
    return 1;
}

static void tplMetaWithIndex(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction index)
{
    luaL_newmetatable(L, name);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_pushcclosure(L, index, 1);
    lua_setfield(L, -2, "__index");
}

void tplOpenViews(lua_State *L)
{
    static const luaL_Reg viewMethods[] = {
        {"pos", tplViewPos},   {"vel", tplViewVel}, {"angvel", tplViewAngvel},
        {"quat", tplViewQuat}, {"yaw", tplViewYaw}, {"speed", tplViewSpeed},
        {NULL, NULL},
    };
    tplMetaWithIndex(L, TPL_VIEW, viewMethods, tplViewIndex);
    lua_pushcfunction(L, tplViewToString);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);

    static const luaL_Reg actionMethods[] = {{"force", tplActionForce}, {"torque", tplActionTorque}, {NULL, NULL}};
    luaL_newmetatable(L, TPL_ACTION);
    luaL_newlib(L, actionMethods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    static const luaL_Reg ctxMethods[] = {
        {"uniform", tplCtxUniform},
        {"normal", tplCtxNormal},
        {"force", tplCtxForce},
        {"torque", tplCtxTorque},
        {NULL, NULL},
    };
    tplMetaWithIndex(L, TPL_CTX, ctxMethods, tplCtxIndex);
    lua_pop(L, 1);

    static const luaL_Reg varsMeta[] = {
        {"__index", tplVarsIndex}, {"__newindex", tplVarsNewIndex}, {"__len", tplVarsLen}, {NULL, NULL}};
    luaL_newmetatable(L, TPL_VARS);
    luaL_setfuncs(L, varsMeta, 0);
    lua_pop(L, 1);
}
