/* tplan lua: the limits of a script's state: the allocator that counts its bytes against the cap,
 * the count hook that compares the clock with the armed deadline, the trips that poison the state,
 * and tplCheckLimits for the C loops of the bounded library (bounded.c) and the sandbox's wrapped
 * functions (sandbox.c, which explains the rules). A leaf: it calls nothing else of lua/src. */
#include "lua_internal.h"

#include "tp/base.h"
#include "tp/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TPL_HOOK_EVERY 1000 /* VM instructions between two clock checks */

tplLimits *tplGetLimits(lua_State *L)
{
    return *(tplLimits **)lua_getextraspace(L);
}

/* ------------------------------------------------------------------------------------------ */
/* Memory                                                                                      */

void *tplAlloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    tplLimits *lim = ud;
    size_t old = ptr ? osize : 0; /* without ptr, osize is a type tag, not a size */
    if (nsize == 0) {
        free(ptr);
        lim->used -= old;
        return NULL;
    }
    if (nsize > old && (nsize - old > lim->max_bytes || lim->used + lim->external + (nsize - old) > lim->max_bytes)) {
        if (!lim->tripped) {
            /* no Lua call here (we are inside an allocation): the position is the hook's last,
             * else the script's name alone */
            lim->tripped = TPL_TRIP_MEMORY;
            if (lim->where[0])
                snprintf(lim->msg, sizeof lim->msg, "%smemory limit of %zu MB exceeded (memory_mb)", lim->where,
                         lim->max_bytes >> 20);
            else
                snprintf(lim->msg, sizeof lim->msg, "%s: memory limit of %zu MB exceeded (memory_mb)", lim->path,
                         lim->max_bytes >> 20);
        }
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p)
        lim->used = lim->used - old + nsize;
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* Time                                                                                        */

/* "path:line: " of the running Lua function (its full chunk name), or "" for a C function. */
static void tplRunningWhere(lua_State *L, lua_Debug *ar, char *out, size_t cap)
{
    out[0] = '\0';
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
        snprintf(out, cap, "%s:%d: ", ar->source[0] == '@' ? ar->source + 1 : ar->short_src, ar->currentline);
}

/* Raises the limit error again when a limit has tripped (called after every protected call a
 * script can make, and by the hook). */
void tplRethrow(lua_State *L)
{
    tplLimits *lim = tplGetLimits(L);
    if (lim->tripped) {
        lua_pushstring(L, lim->msg);
        lua_error(L);
    }
}

static void tplHook(lua_State *L, lua_Debug *ar)
{
    tplLimits *lim = tplGetLimits(L);
    /* remember where the script was, so a memory error (which has no position) can name it */
    tplRunningWhere(L, ar, lim->where, sizeof lim->where);
    tplRethrow(L);
    if (lim->deadline > 0 && tpClock_Now() > lim->deadline) {
        lim->tripped = TPL_TRIP_TIME;
        snprintf(lim->msg, sizeof lim->msg, "%stime limit exceeded (%s)", lim->where,
                 lim->deadline_what ? lim->deadline_what : "");
        lua_pushstring(L, lim->msg);
        lua_error(L);
    }
}

/* Trips a limit from a C function (not the hook, not the allocator), naming the calling script
 * line, and raises the limit error; a limit already tripped is raised as it is. */
int tplTripFromC(lua_State *L, int kind)
{
    tplLimits *lim = tplGetLimits(L);
    if (!lim->tripped) {
        lua_Debug ar;
        char where[sizeof lim->where] = "";
        /* the nearest script line: the caller may be a library function (table.sort's comparison
         * is called by table.sort) */
        for (int level = 1; !where[0] && lua_getstack(L, level, &ar); level++)
            tplRunningWhere(L, &ar, where, sizeof where);
        lim->tripped = kind;
        if (kind == TPL_TRIP_MEMORY)
            snprintf(lim->msg, sizeof lim->msg, "%smemory limit of %zu MB exceeded (memory_mb)", where,
                     lim->max_bytes >> 20);
        else
            snprintf(lim->msg, sizeof lim->msg, "%stime limit exceeded (%s)", where,
                     lim->deadline_what ? lim->deadline_what : "");
    }
    lua_pushstring(L, lim->msg);
    return lua_error(L);
}

void tplCharge(lua_State *L, size_t bytes)
{
    tplLimits *lim = tplGetLimits(L);
    if (bytes > lim->max_bytes || lim->used + lim->external + bytes > lim->max_bytes)
        tplTripFromC(L, TPL_TRIP_MEMORY);
    lim->external += bytes;
    TP_VALIDATE(tplLimits_Valid, lim);
}

void tplUncharge(lua_State *L, size_t bytes)
{
    tplLimits *lim = tplGetLimits(L);
    lim->external -= bytes < lim->external ? bytes : lim->external;
    TP_VALIDATE(tplLimits_Valid, lim);
}

int tplLimitExceeded(lua_State *L)
{
    return tplTripFromC(L, TPL_TRIP_TIME);
}

void tplArm(lua_State *L, double seconds, const char *what)
{
    tplLimits *lim = tplGetLimits(L);
    double now = tpClock_Now();
    double d = seconds > 0 ? now + seconds : 0;
    const char *w = what;
    if (lim->run_deadline > 0 && (d == 0 || lim->run_deadline < d)) {
        d = lim->run_deadline;
        w = lim->run_what;
    }
    lim->deadline = d;
    lim->deadline_what = w;
    if (lim->on_deadline)
        lim->on_deadline(lim->on_deadline_user, now, d);
}

void tplDisarm(lua_State *L)
{
    tplLimits *lim = tplGetLimits(L);
    lim->deadline = 0;
    if (lim->on_deadline)
        lim->on_deadline(lim->on_deadline_user, 0, 0);
}

const char *tplErrorText(lua_State *L, int idx)
{
    tplLimits *lim = tplGetLimits(L);
    if (lim->tripped)
        return lim->msg;
    const char *m = lua_tostring(L, idx);
    return m ? m : "Lua error";
}

/* ------------------------------------------------------------------------------------------ */
/* Wrapped base functions                                                                      */

void tplCheckLimits(lua_State *L)
{
    tplLimits *lim = tplGetLimits(L);
    if (lim->tripped)
        tplRethrow(L);
    if (lim->deadline > 0 && tpClock_Now() > lim->deadline)
        tplTripFromC(L, TPL_TRIP_TIME);
}

void tplInstallLimits(lua_State *L, tplLimits *lim)
{
    TP_VALIDATE(tplLimits_Valid, lim);
    *(tplLimits **)lua_getextraspace(L) = lim;
    lua_sethook(L, tplHook, LUA_MASKCOUNT, TPL_HOOK_EVERY);
}
