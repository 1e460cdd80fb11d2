/* tplan lua: the library functions that can run long in one C call, bounded by the limits.
 *
 * The count hook sees only Lua VM instructions: a single call of a C library function that loops
 * inside C is out of its sight, and a script could hold the CPU for ever with one line —
 * string.find(("a"):rep(1e6), ("a*"):rep(30) .. "b") backtracks exponentially, string.rep("", n)
 * loops n times producing nothing, table.move({}, 1, 1e14, 2) moves 1e14 nils, table.insert or
 * table.sort on a table whose __len says 2^31 shift or sort that many elements (and table.concat
 * reads that many through a C __index, for as long as the memory lasts). Each is replaced
 * here by a version that calls tplCheckLimits as it goes (every TPL_CHECK_EVERY steps), so it
 * stops at the armed deadline with the usual "file:line: time limit exceeded (...)".
 *
 * Pattern matching (find, match, gmatch, gsub) is our own backtracking matcher for the Lua 5.4
 * pattern language as the reference manual defines it (section 6.4.1), with the same results and
 * error messages as the standard library's; it counts its steps (one per match attempt, plus the
 * characters scanned by a repetition, %b or a back-reference). A plain find (no specials, or
 * `plain`) is memmem: linear, where the standard library's is quadratic in the worst case. */
#define _GNU_SOURCE /* memmem */
#include "lua_internal.h"

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#define TPL_CHECK_EVERY 16384 /* steps between two clock checks (well under 1 ms) */
#define TPL_MAXCAPTURES 32    /* LUA_MAXCAPTURES */
#define TPL_MATCH_DEPTH 200   /* MAXCCALLS of lstrlib: the matcher's recursion depth */
#define TPL_CAP_UNFINISHED (-1)
#define TPL_CAP_POSITION (-2)
#define TPL_SPECIALS "^$*+?.([%-"

/* ------------------------------------------------------------------------------------------ */
/* The matcher                                                                                 */

typedef struct tplMatch {
    const char *src_init, *src_end, *p_end;
    lua_State *L;
    int depth; /* recursion left */
    int level; /* captures open or closed */
    size_t steps;
    struct {
        const char *init;
        ptrdiff_t len; /* or TPL_CAP_* */
    } capture[TPL_MAXCAPTURES];
} tplMatch;

static void tplStep(tplMatch *ms, size_t n)
{
    ms->steps += n;
    if (ms->steps >= TPL_CHECK_EVERY) {
        ms->steps = 0;
        tplCheckLimits(ms->L);
    }
}

static int tplCheckCapture(tplMatch *ms, int l)
{
    l -= '1';
    if (l < 0 || l >= ms->level || ms->capture[l].len == TPL_CAP_UNFINISHED)
        return luaL_error(ms->L, "invalid capture index %%%d", l + 1);
    return l;
}

static int tplCaptureToClose(tplMatch *ms)
{
    for (int level = ms->level - 1; level >= 0; level--)
        if (ms->capture[level].len == TPL_CAP_UNFINISHED)
            return level;
    return luaL_error(ms->L, "invalid pattern capture");
}

/* The end of the single-character class at p (a character, %x, . or a [set]). */
static const char *tplClassEnd(tplMatch *ms, const char *p)
{
    char c = *p++;
    if (c == '%') {
        if (p == ms->p_end)
            luaL_error(ms->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        if (*p == '^')
            p++;
        do { /* the first character of a set is a member even when it is ']' */
            if (p == ms->p_end)
                luaL_error(ms->L, "malformed pattern (missing ']')");
            if (*(p++) == '%' && p < ms->p_end)
                p++;
        } while (*p != ']');
        return p + 1;
    }
    return p;
}

static bool tplMatchClass(int c, int cl)
{
    bool res;
    switch (tolower(cl)) {
    case 'a':
        res = isalpha(c);
        break;
    case 'c':
        res = iscntrl(c);
        break;
    case 'd':
        res = isdigit(c);
        break;
    case 'g':
        res = isgraph(c);
        break;
    case 'l':
        res = islower(c);
        break;
    case 'p':
        res = ispunct(c);
        break;
    case 's':
        res = isspace(c);
        break;
    case 'u':
        res = isupper(c);
        break;
    case 'w':
        res = isalnum(c);
        break;
    case 'x':
        res = isxdigit(c);
        break;
    default:
        return cl == c; /* an escaped character: itself */
    }
    return isupper(cl) ? !res : res;
}

/* c against the set from p ('[') to ec (its ']'). */
static bool tplMatchSet(int c, const char *p, const char *ec)
{
    bool sig = true;
    if (*(p + 1) == '^') {
        sig = false;
        p++;
    }
    while (++p < ec) {
        if (*p == '%') {
            p++;
            if (tplMatchClass(c, (unsigned char)*p))
                return sig;
        } else if (*(p + 1) == '-' && p + 2 < ec) {
            p += 2;
            if ((unsigned char)*(p - 2) <= c && c <= (unsigned char)*p)
                return sig;
        } else if ((unsigned char)*p == c)
            return sig;
    }
    return !sig;
}

static bool tplSingleMatch(tplMatch *ms, const char *s, const char *p, const char *ep)
{
    if (s >= ms->src_end)
        return false;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.':
        return true;
    case '%':
        return tplMatchClass(c, (unsigned char)*(p + 1));
    case '[':
        return tplMatchSet(c, p, ep - 1);
    default:
        return (unsigned char)*p == c;
    }
}

static const char *tplDoMatch(tplMatch *ms, const char *s, const char *p);

static const char *tplMatchBalance(tplMatch *ms, const char *s, const char *p)
{
    if (p >= ms->p_end - 1)
        luaL_error(ms->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= ms->src_end || *s != *p)
        return NULL;
    const char *start = s;
    int b = *p, e = *(p + 1), cont = 1;
    while (++s < ms->src_end) {
        if (((s - start) & 0xFFFF) == 0) /* a check every 64 Ki characters of a long scan */
            tplStep(ms, 0x10000);
        if (*s == e) {
            if (--cont == 0) {
                tplStep(ms, (size_t)((s - start) & 0xFFFF));
                return s + 1;
            }
        } else if (*s == b)
            cont++;
    }
    tplStep(ms, (size_t)((s - start) & 0xFFFF));
    return NULL;
}

static const char *tplMaxExpand(tplMatch *ms, const char *s, const char *p, const char *ep)
{
    ptrdiff_t i = 0;
    while (tplSingleMatch(ms, s + i, p, ep)) /* a check every 64 Ki characters of a long run */
        if ((++i & 0xFFFF) == 0)
            tplStep(ms, 0x10000);
    tplStep(ms, (size_t)(i & 0xFFFF));
    for (; i >= 0; i--) { /* the longest repetition first, then one less */
        const char *res = tplDoMatch(ms, s + i, ep + 1);
        if (res)
            return res;
    }
    return NULL;
}

static const char *tplMinExpand(tplMatch *ms, const char *s, const char *p, const char *ep)
{
    for (;;) {
        const char *res = tplDoMatch(ms, s, ep + 1);
        if (res)
            return res;
        if (!tplSingleMatch(ms, s, p, ep))
            return NULL;
        s++; /* one more repetition */
    }
}

static const char *tplStartCapture(tplMatch *ms, const char *s, const char *p, ptrdiff_t what)
{
    if (ms->level >= TPL_MAXCAPTURES)
        luaL_error(ms->L, "too many captures");
    ms->capture[ms->level].init = s;
    ms->capture[ms->level].len = what;
    ms->level++;
    const char *res = tplDoMatch(ms, s, p);
    if (!res)
        ms->level--; /* undo the capture */
    return res;
}

static const char *tplEndCapture(tplMatch *ms, const char *s, const char *p)
{
    int l = tplCaptureToClose(ms);
    ms->capture[l].len = s - ms->capture[l].init;
    const char *res = tplDoMatch(ms, s, p);
    if (!res)
        ms->capture[l].len = TPL_CAP_UNFINISHED;
    return res;
}

static const char *tplMatchCapture(tplMatch *ms, const char *s, int l)
{
    l = tplCheckCapture(ms, l);
    size_t len = (size_t)ms->capture[l].len;
    tplStep(ms, len);
    if ((size_t)(ms->src_end - s) >= len && memcmp(ms->capture[l].init, s, len) == 0)
        return s + len;
    return NULL;
}

/* The end of the match of pattern p (to p_end) at s, or NULL. One step per call. */
static const char *tplDoMatch(tplMatch *ms, const char *s, const char *p)
{
    if (ms->depth-- == 0)
        luaL_error(ms->L, "pattern too complex");
    tplStep(ms, 1);
    while (p != ms->p_end) {
        const char *ep;
        switch (*p) {
        case '(':
            if (*(p + 1) == ')')
                s = tplStartCapture(ms, s, p + 2, TPL_CAP_POSITION);
            else
                s = tplStartCapture(ms, s, p + 1, TPL_CAP_UNFINISHED);
            goto done;
        case ')':
            s = tplEndCapture(ms, s, p + 1);
            goto done;
        case '$':
            if (p + 1 != ms->p_end)
                goto single; /* not at the end: a literal '$' */
            s = s == ms->src_end ? s : NULL;
            goto done;
        case '%':
            switch (*(p + 1)) {
            case 'b':
                s = tplMatchBalance(ms, s, p + 2);
                if (!s)
                    goto done;
                p += 4;
                continue;
            case 'f': {
                p += 2;
                if (*p != '[')
                    luaL_error(ms->L, "missing '[' after '%%f' in pattern");
                ep = tplClassEnd(ms, p);
                int prev = s == ms->src_init ? '\0' : (unsigned char)*(s - 1);
                int cur = s < ms->src_end ? (unsigned char)*s : '\0';
                if (!tplMatchSet(prev, p, ep - 1) && tplMatchSet(cur, p, ep - 1)) {
                    p = ep;
                    continue;
                }
                s = NULL;
                goto done;
            }
            case '0':
            case '1':
            case '2':
            case '3':
            case '4':
            case '5':
            case '6':
            case '7':
            case '8':
            case '9':
                s = tplMatchCapture(ms, s, (unsigned char)*(p + 1));
                if (!s)
                    goto done;
                p += 2;
                continue;
            default:
                goto single;
            }
        default:
        single:
            ep = tplClassEnd(ms, p);
            if (!tplSingleMatch(ms, s, p, ep)) {
                if (*ep == '*' || *ep == '?' || *ep == '-') { /* zero repetitions are fine */
                    p = ep + 1;
                    continue;
                }
                s = NULL;
                goto done;
            }
            switch (*ep) {
            case '?': {
                const char *res = tplDoMatch(ms, s + 1, ep + 1);
                if (res) {
                    s = res;
                    goto done;
                }
                p = ep + 1;
                continue;
            }
            case '+':
                s = tplMaxExpand(ms, s + 1, p, ep);
                goto done;
            case '*':
                s = tplMaxExpand(ms, s, p, ep);
                goto done;
            case '-':
                s = tplMinExpand(ms, s, p, ep);
                goto done;
            default:
                s++;
                p = ep;
                continue;
            }
        }
    }
done:
    ms->depth++;
    return s;
}

static void tplMatchInit(tplMatch *ms, lua_State *L, const char *s, size_t ls, const char *p, size_t lp)
{
    ms->L = L;
    ms->src_init = s;
    ms->src_end = s + ls;
    ms->p_end = p + lp;
    ms->steps = 0;
}

static void tplMatchReset(tplMatch *ms)
{
    ms->level = 0;
    ms->depth = TPL_MATCH_DEPTH;
}

/* Pushes capture i (the whole match s..e when there are none and i is 0). */
static void tplPushCapture(tplMatch *ms, int i, const char *s, const char *e)
{
    if (i >= ms->level) {
        if (i != 0)
            luaL_error(ms->L, "invalid capture index %%%d", i + 1);
        lua_pushlstring(ms->L, s, (size_t)(e - s));
        return;
    }
    ptrdiff_t l = ms->capture[i].len;
    if (l == TPL_CAP_UNFINISHED)
        luaL_error(ms->L, "unfinished capture");
    else if (l == TPL_CAP_POSITION)
        lua_pushinteger(ms->L, (ms->capture[i].init - ms->src_init) + 1);
    else
        lua_pushlstring(ms->L, ms->capture[i].init, (size_t)l);
}

static int tplPushCaptures(tplMatch *ms, const char *s, const char *e)
{
    int n = ms->level == 0 && s ? 1 : ms->level;
    luaL_checkstack(ms->L, n, "too many captures");
    for (int i = 0; i < n; i++)
        tplPushCapture(ms, i, s, e);
    return n;
}

/* string.find's and string.match's init: 1-based, negative from the end, clipped at 1. */
static size_t tplInit(lua_State *L, int arg, size_t len)
{
    lua_Integer pos = luaL_optinteger(L, arg, 1);
    if (pos > 0)
        return (size_t)pos;
    if (pos == 0 || pos < -(lua_Integer)len)
        return 1;
    return len + (size_t)pos + 1;
}

static bool tplNoSpecials(const char *p, size_t l)
{
    size_t upto = 0;
    do { /* the pattern may hold NULs: strpbrk each NUL-terminated piece */
        if (strpbrk(p + upto, TPL_SPECIALS))
            return false;
        upto += strlen(p + upto) + 1;
    } while (upto <= l);
    return true;
}

static int tplFindAux(lua_State *L, bool find)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = tplInit(L, 3, ls) - 1;
    if (init > ls) {
        luaL_pushfail(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || tplNoSpecials(p, lp))) {
        const char *hit = lp == 0 ? s + init : memmem(s + init, ls - init, p, lp);
        if (hit) {
            lua_pushinteger(L, (hit - s) + 1);
            lua_pushinteger(L, (lua_Integer)((hit - s) + (ptrdiff_t)lp));
            return 2;
        }
        luaL_pushfail(L);
        return 1;
    }
    tplMatch ms;
    const char *s1 = s + init;
    bool anchor = *p == '^';
    if (anchor) {
        p++;
        lp--;
    }
    tplMatchInit(&ms, L, s, ls, p, lp);
    do {
        tplMatchReset(&ms);
        const char *e = tplDoMatch(&ms, s1, p);
        if (e) {
            if (find) {
                lua_pushinteger(L, (s1 - s) + 1);
                lua_pushinteger(L, e - s);
                return tplPushCaptures(&ms, NULL, NULL) + 2;
            }
            return tplPushCaptures(&ms, s1, e);
        }
    } while (s1++ < ms.src_end && !anchor);
    luaL_pushfail(L);
    return 1;
}

static int tplStrFind(lua_State *L)
{
    return tplFindAux(L, true);
}

static int tplStrMatch(lua_State *L)
{
    return tplFindAux(L, false);
}

/* The iterator of string.gmatch: upvalues 1 the subject, 2 the pattern, 3 the state. */
typedef struct tplGmatchState {
    size_t pos;     /* where the next match may start */
    ptrdiff_t last; /* the end of the last match (-1: none): an empty match there is skipped */
} tplGmatchState;

static int tplGmatchNext(lua_State *L)
{
    size_t ls, lp;
    const char *s = lua_tolstring(L, lua_upvalueindex(1), &ls);
    const char *p = lua_tolstring(L, lua_upvalueindex(2), &lp);
    tplGmatchState *gm = lua_touserdata(L, lua_upvalueindex(3));
    tplMatch ms;
    tplMatchInit(&ms, L, s, ls, p, lp);
    for (const char *src = s + gm->pos; src <= ms.src_end; src++) {
        tplMatchReset(&ms);
        const char *e = tplDoMatch(&ms, src, p);
        if (e && e - s != gm->last) {
            gm->pos = (size_t)(e - s);
            gm->last = e - s;
            return tplPushCaptures(&ms, src, e);
        }
    }
    gm->pos = ls + 1; /* done: the next call finds nothing */
    return 0;
}

static int tplStrGmatch(lua_State *L)
{
    size_t ls;
    luaL_checklstring(L, 1, &ls);
    luaL_checkstring(L, 2);
    size_t init = tplInit(L, 3, ls) - 1;
    lua_settop(L, 2);
    tplGmatchState *gm = lua_newuserdatauv(L, sizeof *gm, 0);
    gm->pos = init > ls ? ls + 1 : init;
    gm->last = -1;
    lua_pushcclosure(L, tplGmatchNext, 3);
    return 1;
}

/* gsub's replacement string: %0-%9 captures, %% a '%'. */
static void tplAddString(tplMatch *ms, luaL_Buffer *b, const char *s, const char *e)
{
    lua_State *L = ms->L;
    size_t l;
    const char *news = lua_tolstring(L, 3, &l);
    for (size_t i = 0; i < l; i++) {
        if (news[i] != '%') {
            luaL_addchar(b, news[i]);
            continue;
        }
        char c = ++i < l ? news[i] : '\0';
        if (c == '%')
            luaL_addchar(b, '%');
        else if (c == '0')
            luaL_addlstring(b, s, (size_t)(e - s));
        else if (isdigit((unsigned char)c)) {
            tplPushCapture(ms, c - '1', s, e);
            luaL_tolstring(L, -1, NULL);
            lua_remove(L, -2);
            luaL_addvalue(b);
        } else
            luaL_error(L, "invalid use of '%c' in replacement string", '%');
    }
}

static void tplAddValue(tplMatch *ms, luaL_Buffer *b, const char *s, const char *e, int tr)
{
    lua_State *L = ms->L;
    if (tr == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = tplPushCaptures(ms, s, e);
        lua_call(L, n, 1);
    } else if (tr == LUA_TTABLE) {
        tplPushCapture(ms, 0, s, e);
        lua_gettable(L, 3);
    } else {
        tplAddString(ms, b, s, e);
        return;
    }
    if (!lua_toboolean(L, -1)) { /* nil or false: keep the original text */
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
    } else if (!lua_isstring(L, -1))
        luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    else
        luaL_addvalue(b);
}

static int tplStrGsub(lua_State *L)
{
    size_t srcl, lp;
    const char *src = luaL_checklstring(L, 1, &srcl);
    const char *p = luaL_checklstring(L, 2, &lp);
    const char *last = NULL;
    int tr = lua_type(L, 3);
    lua_Integer max_s = luaL_optinteger(L, 4, (lua_Integer)srcl + 1);
    luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                     "string/function/table");
    bool anchor = *p == '^';
    if (anchor) {
        p++;
        lp--;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    tplMatch ms;
    tplMatchInit(&ms, L, src, srcl, p, lp);
    lua_Integer n = 0;
    while (n < max_s) {
        tplMatchReset(&ms);
        const char *e = tplDoMatch(&ms, src, p);
        if (e && e != last) {
            n++;
            tplAddValue(&ms, &b, src, e, tr);
            src = last = e;
        } else if (src < ms.src_end)
            luaL_addchar(&b, *src++);
        else
            break;
        if (anchor)
            break;
    }
    luaL_addlstring(&b, src, (size_t)(ms.src_end - src));
    luaL_pushresult(&b);
    lua_pushinteger(L, n);
    return 2;
}

/* string.rep, with the result built by doubling (a few memcpy calls, a check between two)
 * instead of n copies one at a time: Lua's loops n times even when each copy is empty
 * (string.rep("", math.maxinteger) never ends), and one byte at a time up to the memory limit
 * takes seconds past any time limit. Same results and errors as Lua's. */
static int tplStrRep(lua_State *L)
{
    size_t l, lsep;
    const char *s = luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *sep = luaL_optlstring(L, 3, "", &lsep);
    const size_t max = (size_t)INT_MAX; /* lstrlib's MAXSIZE */
    if (n <= 0 || (l == 0 && lsep == 0)) {
        lua_pushliteral(L, "");
        return 1;
    }
    if (l + lsep < l || l + lsep > max / (lua_Unsigned)n)
        return luaL_error(L, "resulting string too large");
    size_t total = (size_t)n * l + (size_t)(n - 1) * lsep;
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, total);
    /* n - 1 units "s sep", then s: the units by doubling what is already there */
    size_t unit = l + lsep, units = total - l, done = 0;
    if (units > 0) {
        memcpy(p, s, l);
        memcpy(p + l, sep, lsep);
        done = unit;
        while (done < units) {
            size_t more = units - done < done ? units - done : done;
            memcpy(p + done, p, more);
            done += more;
            tplCheckLimits(L);
        }
    }
    memcpy(p + done, s, l);
    luaL_pushresultsize(&b, total);
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Tables                                                                                      */

/* The standard library's check that arg is a table or has the metamethods of the operations. */
static void tplCheckTab(lua_State *L, int arg, bool read, bool write)
{
    if (lua_type(L, arg) == LUA_TTABLE)
        return;
    if (lua_getmetatable(L, arg)) {
        bool ok = true;
        const char *need[] = {read ? "__index" : NULL, write ? "__newindex" : NULL, "__len"};
        for (int i = 0; i < 3 && ok; i++) {
            if (!need[i])
                continue;
            lua_pushstring(L, need[i]);
            ok = lua_rawget(L, -2) != LUA_TNIL;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        if (ok)
            return;
    }
    luaL_checktype(L, arg, LUA_TTABLE);
}

/* table.sort's comparison (upvalue 1: the script's, or nil for <): one step of the sort each. */
static int tplSortLess(lua_State *L)
{
    size_t *count = lua_touserdata(L, lua_upvalueindex(2));
    if (++*count % TPL_CHECK_EVERY == 0)
        tplCheckLimits(L);
    if (lua_isnil(L, lua_upvalueindex(1))) {
        lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

/* table.sort: the standard one (upvalue 1) with the comparison above, so a sort of 2^31 elements
 * (a __len that says so) stops at the deadline like any loop. */
static int tplTableSort(lua_State *L)
{
    tplCheckTab(L, 1, true, true); /* here, so that a refusal names table.sort (not '?') */
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    size_t *count = lua_newuserdatauv(L, sizeof *count, 0);
    *count = 0;
    lua_pushcclosure(L, tplSortLess, 2);
    lua_replace(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 0);
    return 0;
}

/* table.move: the standard one (upvalue 1), called on TPL_CHECK_EVERY elements at a time with a
 * check between two. Chunks go in the order the whole move would (backwards when the destination
 * overlaps the source above it), so the result is the same. */
static int tplTableMove(lua_State *L)
{
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3), t = luaL_checkinteger(L, 4);
    int tt = !lua_isnoneornil(L, 5) ? 5 : 1;
    lua_settop(L, 5);
    if (e < f ||
        (lua_Unsigned)e - (lua_Unsigned)f < TPL_CHECK_EVERY) { /* nothing to chunk: the standard checks and move */
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        lua_call(L, 5, 1);
        return 1;
    }
    /* the standard argument checks on the whole range, before any chunk moves */
    luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
    lua_Integer n = e - f + 1;
    luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
    bool backwards = !(t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ)));
    for (lua_Integer done = 0; done < n; done += TPL_CHECK_EVERY) {
        lua_Integer len = n - done < TPL_CHECK_EVERY ? n - done : TPL_CHECK_EVERY;
        lua_Integer off = backwards ? n - done - len : done;
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushvalue(L, 1);
        lua_pushinteger(L, f + off);
        lua_pushinteger(L, f + off + len - 1);
        lua_pushinteger(L, t + off);
        lua_pushvalue(L, tt);
        lua_call(L, 5, 0);
        tplCheckLimits(L);
    }
    lua_pushvalue(L, tt);
    return 1;
}

/* table.insert and table.remove, as the standard ones, with a check while they shift elements:
 * the shift is as long as #t says, and __len may say anything. */
static int tplTableInsert(lua_State *L)
{
    tplCheckTab(L, 1, true, true);
    lua_Integer e = (lua_Integer)((lua_Unsigned)luaL_len(L, 1) + 1u); /* the first empty element (wraps as Lua's) */
    lua_Integer pos;
    switch (lua_gettop(L)) {
    case 2:
        pos = e;
        break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        for (lua_Integer i = e; i > pos; i--) {
            if ((e - i) % TPL_CHECK_EVERY == TPL_CHECK_EVERY - 1)
                tplCheckLimits(L);
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        break;
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

static int tplTableRemove(lua_State *L)
{
    tplCheckTab(L, 1, true, true);
    lua_Integer size = luaL_len(L, 1);
    lua_Integer pos = luaL_optinteger(L, 2, size);
    if (pos != size) /* the argument number as the linked Lua names it (5.4.6 corrected it to 2) */
        luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, LUA_VERSION_RELEASE_NUM >= 50406 ? 2 : 1,
                      "position out of bounds");
    lua_geti(L, 1, pos);
    for (; pos < size; pos++) {
        if (pos % TPL_CHECK_EVERY == 0)
            tplCheckLimits(L);
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

/* table.concat: the standard one (upvalue 1) on TPL_CHECK_EVERY elements at a time, the pieces
 * joined with sep, a check between two: with a __len that says 2^40 and an __index that is a C
 * function, one call of the standard one reads elements until the memory limit, for many
 * seconds. Same result and errors (the pieces are the same ranges of absolute indices). */
static int tplTableConcat(lua_State *L)
{
    tplCheckTab(L, 1, true, false);
    size_t lsep;
    luaL_optlstring(L, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    lua_settop(L, 4);
    lua_Integer last = lua_isnoneornil(L, 4) ? luaL_len(L, 1) : luaL_checkinteger(L, 4);
    if (i > last || (lua_Unsigned)last - (lua_Unsigned)i < TPL_CHECK_EVERY) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 2);
        lua_pushinteger(L, i);
        lua_pushinteger(L, last);
        lua_call(L, 4, 1);
        return 1;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (lua_Integer from = i;; from += TPL_CHECK_EVERY) {
        lua_Integer to = (lua_Unsigned)last - (lua_Unsigned)from < TPL_CHECK_EVERY ? last : from + TPL_CHECK_EVERY - 1;
        if (from > i && lsep > 0)
            luaL_addlstring(&b, lua_tostring(L, 2), lsep);
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 2);
        lua_pushinteger(L, from);
        lua_pushinteger(L, to);
        lua_call(L, 4, 1);
        luaL_addvalue(&b);
        tplCheckLimits(L);
        if (to == last)
            break;
    }
    luaL_pushresult(&b);
    return 1;
}

/* Replaces field name of the table at idx by fn, with the old value as upvalue 1. */
static void tplReplace(lua_State *L, int idx, const char *name, lua_CFunction fn, bool keep_old)
{
    idx = lua_absindex(L, idx);
    if (keep_old) {
        lua_getfield(L, idx, name);
        lua_pushcclosure(L, fn, 1);
    } else
        lua_pushcfunction(L, fn);
    lua_setfield(L, idx, name);
}

void tplOpenBounded(lua_State *L)
{
    lua_getglobal(L, "string");
    tplReplace(L, -1, "find", tplStrFind, false);
    tplReplace(L, -1, "match", tplStrMatch, false);
    tplReplace(L, -1, "gmatch", tplStrGmatch, false);
    tplReplace(L, -1, "gsub", tplStrGsub, false);
    tplReplace(L, -1, "rep", tplStrRep, false);
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    tplReplace(L, -1, "sort", tplTableSort, true);
    tplReplace(L, -1, "move", tplTableMove, true);
    tplReplace(L, -1, "insert", tplTableInsert, false);
    tplReplace(L, -1, "remove", tplTableRemove, false);
    tplReplace(L, -1, "concat", tplTableConcat, true);
    lua_pop(L, 1);
}
