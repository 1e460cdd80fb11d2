/* tplan lua: sampling distributions (tp.const, tp.uniform, ...) and skill constructors
 * (tp.skill.<kind>). Both map one-to-one onto tpDist and tpSkillDef (skills.h). */
#include "lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Distributions                                                                               */

static tpDist *tplNewDist(lua_State *L, tpDistKind kind, int dim)
{
    tpDist *d = lua_newuserdatauv(L, sizeof *d, 0);
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->dim = dim;
    luaL_setmetatable(L, TPL_DIST);
    return d;
}

/* A number or a 1..3 vector argument; returns its dim. */
static int tplArgVector(lua_State *L, int arg, const char *fn, const char *argname, double *out)
{
    if (lua_type(L, arg) == LUA_TNUMBER) {
        out[0] = lua_tonumber(L, arg);
        if (!isfinite(out[0]))
            tplError(L, "%s: %s must be finite (got %g)", fn, argname, out[0]);
        return 1;
    }
    if (lua_type(L, arg) != LUA_TTABLE)
        tplError(L, "%s: %s: expected a number or a vector, got %s", fn, argname, tplTypeName(L, arg));
    char label[128];
    snprintf(label, sizeof label, "%s: %s", fn, argname);
    return tplToVector(L, arg, label, out, 1, 3, false);
}

static int tplConst(lua_State *L)
{
    double v[3];
    int n = tplArgVector(L, 1, "tp.const", "value", v);
    tpDist *d = tplNewDist(L, TP_DIST_CONST, n);
    memcpy(d->a, v, sizeof v);
    return 1;
}

static int tplUniformImpl(lua_State *L, const char *fn)
{
    double lo[3], hi[3];
    int n = tplArgVector(L, 1, fn, "lo", lo);
    int m = tplArgVector(L, 2, fn, "hi", hi);
    if (n != m)
        tplError(L, "%s: lo and hi differ in dimension (%d and %d)", fn, n, m);
    for (int i = 0; i < n; i++)
        if (lo[i] > hi[i])
            tplError(L, "%s: lo must be <= hi (got %g > %g)", fn, lo[i], hi[i]);
    tpDist *d = tplNewDist(L, TP_DIST_UNIFORM, n);
    memcpy(d->a, lo, sizeof lo);
    memcpy(d->b, hi, sizeof hi);
    return 1;
}

static int tplUniform(lua_State *L)
{
    return tplUniformImpl(L, "tp.uniform");
}

static int tplAngle(lua_State *L)
{
    double lo = luaL_checknumber(L, 1), hi = luaL_checknumber(L, 2);
    if (!isfinite(lo) || !isfinite(hi))
        tplError(L, "tp.angle: bounds must be finite");
    if (lo > hi)
        tplError(L, "tp.angle: lo must be <= hi (got %g > %g)", lo, hi);
    tpDist *d = tplNewDist(L, TP_DIST_UNIFORM, 1);
    d->a[0] = lo;
    d->b[0] = hi;
    return 1;
}

static int tplNormal(lua_State *L)
{
    double mean[3], sd[3];
    int n = tplArgVector(L, 1, "tp.normal", "mean", mean);
    int m = tplArgVector(L, 2, "tp.normal", "sd", sd);
    if (m == 1)
        for (int i = 1; i < n; i++)
            sd[i] = sd[0]; /* one sd for every component */
    else if (m != n)
        tplError(L, "tp.normal: mean and sd differ in dimension (%d and %d)", n, m);
    for (int i = 0; i < n; i++)
        if (sd[i] < 0)
            tplError(L, "tp.normal: sd must be >= 0 (got %g)", sd[i]);
    tpDist *d = tplNewDist(L, TP_DIST_NORMAL, n);
    memcpy(d->a, mean, sizeof mean);
    memcpy(d->b, sd, sizeof sd);
    return 1;
}

/* tp.choice's argument `arg`: a list of exactly n finite numbers >= 0, named `what` in errors. */
static void tplChoiceList(lua_State *L, int arg, int n, const char *what, double *out)
{
    luaL_checktype(L, arg, LUA_TTABLE);
    if ((int)lua_rawlen(L, arg) != n)
        tplError(L, "tp.choice: expected %d %s, got %d", n, what, (int)lua_rawlen(L, arg));
    for (int i = 0; i < n; i++) {
        if (lua_rawgeti(L, arg, i + 1) != LUA_TNUMBER)
            tplError(L, "tp.choice: %s[%d]: expected a number, got %s", what, i + 1, tplTypeName(L, -1));
        out[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (!(out[i] >= 0) || !isfinite(out[i]))
            tplError(L, "tp.choice: %s[%d] must be >= 0 (got %g)", what, i + 1, out[i]);
    }
}

static int tplChoice(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)lua_rawlen(L, 1);
    if (n < 1 || n > TP_DIST_MAX_CHOICES)
        tplError(L, "tp.choice: expected 1 to %d values, got %d", TP_DIST_MAX_CHOICES, n);
    double vals[TP_DIST_MAX_CHOICES * 3], w[TP_DIST_MAX_CHOICES];
    int dim = 0;
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        char label[64];
        snprintf(label, sizeof label, "values[%d]", i + 1);
        double v[3];
        int di = tplArgVector(L, lua_gettop(L), "tp.choice", label, v);
        lua_pop(L, 1);
        if (i == 0)
            dim = di;
        if (di != dim)
            tplError(L, "tp.choice: values[%d] has dimension %d, values[1] has %d", i + 1, di, dim);
        memcpy(&vals[i * 3], v, sizeof v);
    }
    double sum = 0;
    if (lua_isnoneornil(L, 2)) {
        for (int i = 0; i < n; i++)
            w[i] = 1.0;
        sum = n;
    } else {
        tplChoiceList(L, 2, n, "weights", w);
        for (int i = 0; i < n; i++)
            sum += w[i];
        if (!(sum > 0))
            tplError(L, "tp.choice: the weights must have a positive sum");
    }
    /* optional spread: a number (every value) or one number per value, each >= 0 */
    double spread[TP_DIST_MAX_CHOICES] = {0};
    if (lua_type(L, 3) == LUA_TNUMBER) {
        double s = lua_tonumber(L, 3);
        if (!(s >= 0) || !isfinite(s))
            tplError(L, "tp.choice: spread must be >= 0 (got %g)", s);
        for (int i = 0; i < n; i++)
            spread[i] = s;
    } else if (!lua_isnoneornil(L, 3)) {
        if (!lua_istable(L, 3))
            tplError(L, "tp.choice: spread: expected a number or a list of %d numbers, got %s", n, tplTypeName(L, 3));
        tplChoiceList(L, 3, n, "spread", spread);
    }
    tpDist *d = tplNewDist(L, TP_DIST_CHOICE, dim);
    d->nchoices = n;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < dim; k++)
            d->choices[i * 3 + k] = vals[i * 3 + k];
        d->weights[i] = w[i];
        d->spread[i] = spread[i];
    }
    if (dim == 1 || n == 1)
        d->a[0] = d->choices[0];
    return 1;
}

static int tplDisc(lua_State *L)
{
    double c[3];
    luaL_checktype(L, 1, LUA_TTABLE);
    tplToVector(L, 1, "tp.disc: center", c, 2, 2, false);
    double r0 = luaL_checknumber(L, 2), r1 = luaL_checknumber(L, 3);
    if (!isfinite(r0) || !isfinite(r1))
        tplError(L, "tp.disc: radii must be finite");
    if (r0 < 0)
        tplError(L, "tp.disc: r_min must be >= 0 (got %g)", r0);
    if (r1 < r0)
        tplError(L, "tp.disc: r_max must be >= r_min (got %g < %g)", r1, r0);
    tpDist *d = tplNewDist(L, TP_DIST_DISC, 2);
    d->a[0] = c[0];
    d->a[1] = c[1];
    d->b[0] = r0;
    d->b[1] = r1;
    return 1;
}

static int tplSample(lua_State *L)
{
    lua_Integer off = luaL_checkinteger(L, 1);
    lua_Integer dim = luaL_optinteger(L, 2, 1);
    if (dim < 1 || dim > 3)
        tplError(L, "tp.sample: dim must be 1, 2 or 3 (got %lld)", (long long)dim);
    if (off < 0 || off + dim > TP_MAX_SAMPLE_DIMS)
        tplError(L, "tp.sample: offset %lld + dim %lld exceeds the %d sample dimensions", (long long)off,
                 (long long)dim, TP_MAX_SAMPLE_DIMS);
    tpDist *d = tplNewDist(L, TP_DIST_SAMPLE, (int)dim);
    d->offset = (int)off;
    return 1;
}

void tplToDist(lua_State *L, int idx, const char *label, tpDist *out, int mindim, int maxdim)
{
    idx = lua_absindex(L, idx);
    tpDist d;
    memset(&d, 0, sizeof d);
    if (lua_type(L, idx) == LUA_TNUMBER) {
        d.kind = TP_DIST_CONST;
        d.dim = 1;
        d.a[0] = lua_tonumber(L, idx);
        if (!isfinite(d.a[0]))
            tplError(L, "%s must be finite (got %g)", label, d.a[0]);
    } else if (lua_type(L, idx) == LUA_TTABLE) {
        d.kind = TP_DIST_CONST;
        d.dim = tplToVector(L, idx, label, d.a, 1, 3, false);
    } else {
        const tpDist *u = luaL_testudata(L, idx, TPL_DIST);
        if (!u)
            tplError(L, "%s: expected a distribution, number or vector, got %s", label, tplTypeName(L, idx));
        d = *u;
    }
    if (d.dim < mindim || d.dim > maxdim) {
        if (mindim == maxdim)
            tplError(L, "%s: expected dimension %d, got %d", label, mindim, d.dim);
        tplError(L, "%s: expected dimension %d to %d, got %d", label, mindim, maxdim, d.dim);
    }
    *out = d;
}

void tplDistField(lua_State *L, int idx, const char *what, const char *key, tpDist *out, int mindim, int maxdim)
{
    idx = lua_absindex(L, idx);
    if (tplField(L, idx, key) == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    char label[256];
    snprintf(label, sizeof label, "%s%s", what, key);
    tplToDist(L, -1, label, out, mindim, maxdim);
    lua_pop(L, 1);
}

static const luaL_Reg tplDistFns[] = {
    {"const", tplConst}, {"uniform", tplUniform}, {"normal", tplNormal}, {"choice", tplChoice},
    {"disc", tplDisc},   {"sample", tplSample},   {"angle", tplAngle},   {NULL, NULL},
};

void tplOpenDist(lua_State *L)
{
    luaL_newmetatable(L, TPL_DIST);
    lua_pop(L, 1);
    luaL_setfuncs(L, tplDistFns, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Skills                                                                                      */

/* The fields each kind accepts (docs/lua-api.md lists them) come from the kind's descriptor row
 * (tpSkillKind_Fields): the accepted keys, in the order a message lists them, and the kind's own
 * typed fields, read generically below; any other field is an error naming the skill, its kind
 * and the field. */
static const char *const *tplKindKeys(tpSkillKind kind)
{
    const char *const *keys = NULL;
    tpSkillKind_Fields(kind, &keys);
    return keys;
}

/* Raises "skill 'NAME' (KIND): unknown field 'F' (KIND takes: ...)" for the alphabetically first
 * string key of the table at idx that the kind does not accept (lua_next's order varies between
 * runs). Before the name is known (or when it is not a string) the skill is "tp.skill.KIND". */
static void tplCheckSkillFields(lua_State *L, int idx, const char *ctor, tpSkillKind kind)
{
    const char *const *known = tplKindKeys(kind);
    const char *first = tplFirstUnknownKey(L, idx, known, 0, NULL);
    if (!first)
        return;
    tplPushJoined(L, known);
    const char *list = lua_tostring(L, -1);
    const char *kname = tpSkillKind_Name(kind);
    if (tplField(L, idx, "name") == LUA_TSTRING)
        tplError(L, "skill '%s' (%s): unknown field '%s' (%s takes: %s)", lua_tostring(L, -1), kname, first, kname,
                 list);
    tplError(L, "%s: unknown field '%s' (%s takes: %s)", ctor, first, kname, list);
}

/* Controller constants of tpSkillGains, read in this order (each >= 0). */
static const char *const tplGainsConsts[] = {
    "max_speed", "max_yaw_rate", "kp", "kv", "kyaw", "kyaw_rate", "tolerance", "angle_tolerance", "timeout", NULL,
};

static double *tplGainsConst(tpSkillGains *g, int i)
{
    double *p[] = {&g->max_speed, &g->max_yaw_rate,    &g->kp,     &g->kv, &g->kyaw, &g->kyaw_rate,
                   &g->tolerance, &g->angle_tolerance, &g->timeout};
    return p[i];
}

/* An optional constant that must be >= 0 (finite). */
static double tplSkillNum(lua_State *L, const char *what, const char *key, double def)
{
    double v = tplNumber(L, 1, what, key, def, false);
    if (v < 0)
        tplError(L, "%s%s must be >= 0 (got %g)", what, key, v);
    return v;
}

/* A duration distribution must never produce a negative time when it is a constant/interval. */
static void tplDuration(lua_State *L, const char *what, const char *key, tpDist *d)
{
    tplDistField(L, 1, what, key, d, 1, 1);
    if ((d->kind == TP_DIST_CONST || d->kind == TP_DIST_UNIFORM) && d->a[0] < 0)
        tplError(L, "%s%s must be >= 0 (got %g)", what, key, d->a[0]);
}

/* Reads the kind's own fields (table at index 1) into its member of sk->def, as the kind's row
 * lists them (tpSkillKind_Fields), then runs the kind's world-free checks. */
static void tplReadKindFields(lua_State *L, const char *what, tplSkill *sk)
{
    tpSkillDef *d = &sk->def;
    for (const tpSkillField *f = tpSkillKind_Fields(d->kind, NULL); f->name; f++) {
        void *p = (char *)d + f->offset;
        switch (f->type) {
        case TP_FIELD_DIST:
            tplDistField(L, 1, what, f->name, p, f->dmin, f->dmax);
            break;
        case TP_FIELD_DURATION:
            tplDuration(L, what, f->name, p);
            break;
        case TP_FIELD_NONNEG:
            *(double *)p = tplSkillNum(L, what, f->name, *(double *)p);
            break;
        case TP_FIELD_NUMBER:
            *(double *)p = tplNumber(L, 1, what, f->name, *(double *)p, true);
            break;
        case TP_FIELD_BOOL:
            *(bool *)p = tplBool(L, 1, what, f->name, *(bool *)p);
            break;
        case TP_FIELD_BODY: /* a body name, resolved when the domain is built (domain.c) */
            if (tplString(L, 1, what, f->name, sk->ground, sizeof sk->ground))
                sk->ground_offset = f->offset;
            break;
        case TP_FIELD_JOINT: /* a joint name, resolved when the domain is built (domain_build.c) */
            if (tplString(L, 1, what, f->name, sk->joint, sizeof sk->joint))
                sk->joint_offset = f->offset;
            break;
        case TP_FIELD_RANGE: /* {lo, hi}: uniform, instead of the distribution field of the same offset */
            if (tplField(L, 1, f->name) != LUA_TNIL) {
                lua_pop(L, 1);
                if (((tpDist *)p)->kind != TP_DIST_UNSET)
                    tplError(L, "%sgive %s = {lo, hi} or a distribution of the same value, not both", what, f->name);
                double lohi[2];
                tplVector(L, 1, what, f->name, lohi, 2, 2, false);
                if (!(lohi[0] <= lohi[1]))
                    tplError(L, "%s%s: lo = %g is above hi = %g", what, f->name, lohi[0], lohi[1]);
                *(tpDist *)p = tpDist_Uniform(lohi[0], lohi[1]);
            } else {
                lua_pop(L, 1);
            }
            break;
        }
    }
    char err[256];
    if (!tpSkill_CheckFields(d, err, sizeof err))
        tplError(L, "%s%s", what, err);
}

/* Upvalue 1: kind; upvalue 2: constructor name ("tp.skill.kick"). */
static int tplSkillNew(lua_State *L)
{
    tpSkillKind kind = (tpSkillKind)lua_tointeger(L, lua_upvalueindex(1));
    const char *ctor = lua_tostring(L, lua_upvalueindex(2));
    luaL_checktype(L, 1, LUA_TTABLE);
    bool custom = kind == TP_SKILL_CUSTOM;
    tplCheckSkillFields(L, 1, ctor, kind);
    tplCheckFields(L, 1, ctor, tplKindKeys(kind), 0); /* the string keys passed above: array entries */

    tplSkill *sk = lua_newuserdatauv(L, sizeof *sk, 2);
    memset(sk, 0, sizeof *sk);
    luaL_setmetatable(L, TPL_SKILL);
    sk->def = tpDefaultSkillDef(kind);
    char what[160];
    snprintf(what, sizeof what, "%s: ", ctor);
    if (!tplString(L, 1, what, "name", sk->def.name, sizeof sk->def.name) || !sk->def.name[0])
        tplError(L, "%s: 'name' is required", ctor);
    snprintf(what, sizeof what, "%s '%s': ", ctor, sk->def.name);
    tplString(L, 1, what, "body", sk->body, sizeof sk->body);
    tplString(L, 1, what, "target", sk->target, sizeof sk->target);

    if (custom) {
        if (tplField(L, 1, "run") != LUA_TFUNCTION)
            tplError(L, "%srun: expected a function, got %s", what, tplTypeName(L, -1));
        lua_setiuservalue(L, -2, 2);
    } else {
        char frame[16] = "";
        if (tplString(L, 1, what, "frame", frame, sizeof frame)) {
            if (strcmp(frame, "world") == 0)
                sk->def.frame = TP_FRAME_WORLD;
            else if (strcmp(frame, "target") == 0)
                sk->def.frame = TP_FRAME_TARGET;
            else if (strcmp(frame, "body") == 0)
                sk->def.frame = TP_FRAME_BODY;
            else
                tplError(L, "%sframe must be \"world\", \"target\" or \"body\" (got \"%s\")", what, frame);
        }
        if (sk->def.frame == TP_FRAME_TARGET && !sk->target[0])
            tplError(L, "%sframe \"target\" needs a 'target' body", what);
        if (tplVector(L, 1, what, "toward", sk->def.toward, 2, 2, false)) {
            if (sk->def.frame == TP_FRAME_WORLD)
                tplError(L, "%stoward needs frame \"target\" or \"body\" (the sampled point is an offset)", what);
            sk->def.has_toward = true;
        }
        tplReadKindFields(L, what, sk);
        for (int i = 0; tplGainsConsts[i]; i++) {
            double *p = tplGainsConst(&sk->def.gains, i);
            *p = tplSkillNum(L, what, tplGainsConsts[i], *p);
        }
    }
    TP_VALIDATE(tplSkill_Valid, sk);
    tplPushWhere(L);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

static int tplSkillIndex(lua_State *L)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int k = 0; k < TP_SKILL_KIND_COUNT; k++) {
        const char *alias = tpSkillKind_Alias((tpSkillKind)k);
        if (k)
            luaL_addstring(&b, ", ");
        luaL_addstring(&b, tpSkillKind_Name((tpSkillKind)k));
        if (alias) {
            luaL_addstring(&b, ", ");
            luaL_addstring(&b, alias);
        }
    }
    luaL_pushresult(&b);
    return tplError(L, "tp.skill.%s: unknown skill kind (kinds: %s)", luaL_optstring(L, 2, "?"), lua_tostring(L, -1));
}

/* tp.skill.<name> for a kind's name (and alias): upvalues kind and "tp.skill.<name>". */
static void tplSetSkillCtor(lua_State *L, tpSkillKind kind, const char *name)
{
    lua_pushinteger(L, kind);
    lua_pushfstring(L, "tp.skill.%s", name);
    lua_pushcclosure(L, tplSkillNew, 2);
    lua_setfield(L, -2, name);
}

void tplOpenSkills(lua_State *L)
{
    luaL_newmetatable(L, TPL_SKILL);
    lua_pop(L, 1);
    lua_createtable(L, 0, TP_SKILL_KIND_COUNT + 2);
    for (int k = 0; k < TP_SKILL_KIND_COUNT; k++) {
        tplSetSkillCtor(L, (tpSkillKind)k, tpSkillKind_Name((tpSkillKind)k));
        if (tpSkillKind_Alias((tpSkillKind)k))
            tplSetSkillCtor(L, (tpSkillKind)k, tpSkillKind_Alias((tpSkillKind)k));
    }
    /* tp.skill.typo raises instead of returning nil (which would fail later as "call a nil") */
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, tplSkillIndex);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "skill");
}
