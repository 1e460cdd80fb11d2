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

/* The fields each kind accepts (docs/lua-api.md lists them); any other field is an error naming
 * the skill, its kind and the field. TPL_GAINS: the drive controller's constants, for the kinds
 * that drive their body with it; TPL_FRAMED: the frame of a kind's `point`. */
#define TPL_GAINS "max_speed", "max_yaw_rate", "kp", "kv", "kyaw", "kyaw_rate", "tolerance", "angle_tolerance"
#define TPL_FRAMED "target", "frame", "toward", "point"
static const char *const tplWaitFields[] = {"name",          "body",    "target",  "duration",
                                            "trigger_speed", "timeout", TPL_GAINS, NULL};
static const char *const tplDriveToFields[] = {"name",  "body",    TPL_FRAMED, "heading",
                                               "speed", "timeout", TPL_GAINS,  NULL};
static const char *const tplTurnToFields[] = {"name", "body", "heading", "speed", "timeout", TPL_GAINS, NULL};
static const char *const tplKickFields[] = {"name",          "body",    TPL_FRAMED, "direction", "speed",
                                            "arrive_speed",  "ground",  "approach", "transfer",  "follow",
                                            "trigger_speed", "timeout", TPL_GAINS,  NULL};
static const char *const tplPushFields[] = {"name",   "body",          TPL_FRAMED, "speed",   "approach",
                                            "follow", "trigger_speed", "timeout",  TPL_GAINS, NULL};
static const char *const tplImpulseFields[] = {"name",     "body",   "force",         "speed",   "direction",
                                               "duration", "follow", "trigger_speed", "timeout", NULL};
static const char *const tplSpinFields[] = {"name",   "body", TPL_FRAMED,  "force",   "duration", "trigger_speed",
                                            "follow", "aim",  "tolerance", "timeout", NULL};
static const char *const tplBrakeFields[] = {"name", "body", "duration", "timeout", TPL_GAINS, NULL};
static const char *const tplRandomFields[] = {"name", "body", "force", "duration", NULL};
static const char *const tplCustomFields[] = {"name", "body", "target", "run", NULL};
static const char *const tplSteerFields[] = {"name",  "body",  "target",    "frame", "point", "force",     "duration",
                                             "min_z", "max_z", "max_speed", "kp",    "kv",    "tolerance", NULL};
static const char *const tplNavToFields[] = {"name",       "body",          TPL_FRAMED, "speed",   "nav_cell",
                                             "nav_radius", "nav_lookahead", "timeout",  TPL_GAINS, NULL};
static const char *const tplFollowFieldFields[] = {"name",       "body",    TPL_FRAMED, "speed", "nav_cell",
                                                   "nav_radius", "timeout", TPL_GAINS,  NULL};
static const char *const tplFollowPathFields[] = {"name",       "body",          TPL_FRAMED,   "speed",   "nav_cell",
                                                  "nav_radius", "nav_lookahead", "nav_replan", "timeout", TPL_GAINS,
                                                  NULL};
static const char *const tplDriveTrackFields[] = {"name",  "body", "point",   "lane", "horizon",
                                                  "speed", "togo", TPL_GAINS, NULL};
static const char *const tplChipFields[] = {"name",   "body",          TPL_FRAMED, "speed",   "loft", "approach",
                                            "follow", "trigger_speed", "timeout",  TPL_GAINS, NULL};
static const char *const tplGuardFields[] = {"name", "body", TPL_FRAMED, "approach", "mark", TPL_GAINS, NULL};
static const char *const tplRideFields[] = {"name",    "body",    TPL_FRAMED,   "duration", "nav_cell", "jump",
                                            "jump_vz", "jump_vh", "walk_force", "timeout",  TPL_GAINS,  NULL};

static const char *const *const tplKindFields[TP_SKILL_KIND_COUNT] = {
    [TP_SKILL_WAIT] = tplWaitFields,
    [TP_SKILL_DRIVE_TO] = tplDriveToFields,
    [TP_SKILL_TURN_TO] = tplTurnToFields,
    [TP_SKILL_KICK] = tplKickFields,
    [TP_SKILL_PUSH] = tplPushFields,
    [TP_SKILL_IMPULSE] = tplImpulseFields,
    [TP_SKILL_SPIN] = tplSpinFields,
    [TP_SKILL_BRAKE] = tplBrakeFields,
    [TP_SKILL_RANDOM] = tplRandomFields,
    [TP_SKILL_CUSTOM] = tplCustomFields,
    [TP_SKILL_STEER] = tplSteerFields,
    [TP_SKILL_NAV_TO] = tplNavToFields,
    [TP_SKILL_FOLLOW_FIELD] = tplFollowFieldFields,
    [TP_SKILL_DRIVE_TRACK] = tplDriveTrackFields,
    [TP_SKILL_CHIP] = tplChipFields,
    [TP_SKILL_GUARD] = tplGuardFields,
    [TP_SKILL_FOLLOW_PATH] = tplFollowPathFields,
    [TP_SKILL_RIDE] = tplRideFields,
};
_Static_assert(TP_SKILL_RIDE + 1 == TP_SKILL_KIND_COUNT, "tplKindFields needs a field list for every kind");

/* Raises "skill 'NAME' (KIND): unknown field 'F' (KIND takes: ...)" for the alphabetically first
 * string key of the table at idx that the kind does not accept (lua_next's order varies between
 * runs). Before the name is known (or when it is not a string) the skill is "tp.skill.KIND". */
static void tplCheckSkillFields(lua_State *L, int idx, const char *ctor, tpSkillKind kind)
{
    const char *const *known = tplKindFields[kind];
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
static void tplDuration(lua_State *L, const char *what, tpDist *d)
{
    tplDistField(L, 1, what, "duration", d, 1, 1);
    if ((d->kind == TP_DIST_CONST || d->kind == TP_DIST_UNIFORM) && d->a[0] < 0)
        tplError(L, "%sduration must be >= 0 (got %g)", what, d->a[0]);
}

/* Reads the kind's own fields (table at index 1) into its member of sk->def. */
static void tplReadKindFields(lua_State *L, const char *what, tplSkill *sk)
{
    tpSkillDef *d = &sk->def;
    switch (d->kind) {
    case TP_SKILL_WAIT:
        tplDuration(L, what, &d->wait.duration);
        d->wait.trigger_speed = tplSkillNum(L, what, "trigger_speed", d->wait.trigger_speed);
        break;
    case TP_SKILL_DRIVE_TO:
    case TP_SKILL_TURN_TO:
        tplDistField(L, 1, what, "point", &d->drive.point, 2, 3);
        tplDistField(L, 1, what, "heading", &d->drive.heading, 1, 1);
        tplDistField(L, 1, what, "speed", &d->drive.speed, 1, 1);
        break;
    case TP_SKILL_KICK:
    case TP_SKILL_PUSH:
        tplDistField(L, 1, what, "point", &d->kick.point, 2, 3);
        tplDistField(L, 1, what, "speed", &d->kick.speed, 1, 1);
        tplDistField(L, 1, what, "arrive_speed", &d->kick.arrive_speed, 1, 1);
        tplString(L, 1, what, "ground", sk->ground, sizeof sk->ground);
        tplDistField(L, 1, what, "direction", &d->kick.direction, 1, 2);
        d->kick.follow = tplBool(L, 1, what, "follow", false);
        d->kick.approach = tplSkillNum(L, what, "approach", d->kick.approach);
        d->kick.transfer = tplSkillNum(L, what, "transfer", d->kick.transfer);
        d->kick.trigger_speed = tplSkillNum(L, what, "trigger_speed", d->kick.trigger_speed);
        break;
    case TP_SKILL_IMPULSE:
        tplDuration(L, what, &d->impulse.duration);
        tplDistField(L, 1, what, "speed", &d->impulse.speed, 1, 1);
        /* a vector, or a magnitude along `direction` or the body's heading */
        tplDistField(L, 1, what, "force", &d->impulse.force, 1, 3);
        tplDistField(L, 1, what, "direction", &d->impulse.direction, 1, 3);
        d->impulse.follow = tplBool(L, 1, what, "follow", false);
        d->impulse.trigger_speed = tplSkillNum(L, what, "trigger_speed", d->impulse.trigger_speed);
        break;
    case TP_SKILL_SPIN:
        tplDuration(L, what, &d->spin.duration);
        tplDistField(L, 1, what, "point", &d->spin.point, 2, 3);
        tplDistField(L, 1, what, "force", &d->spin.force, 1, 1);
        d->spin.follow = tplBool(L, 1, what, "follow", false);
        d->spin.aim = tplBool(L, 1, what, "aim", false);
        d->spin.trigger_speed = tplSkillNum(L, what, "trigger_speed", d->spin.trigger_speed);
        break;
    case TP_SKILL_BRAKE:
        tplDuration(L, what, &d->brake.duration);
        break;
    case TP_SKILL_RANDOM:
        tplDuration(L, what, &d->random.duration);
        tplDistField(L, 1, what, "force", &d->random.force, 1, 1);
        break;
    case TP_SKILL_STEER:
        tplDuration(L, what, &d->steer.duration);
        tplDistField(L, 1, what, "point", &d->steer.point, 2, 3);
        tplDistField(L, 1, what, "force", &d->steer.force, 1, 1);
        d->steer.min_z = tplNumber(L, 1, what, "min_z", d->steer.min_z, true);
        d->steer.max_z = tplNumber(L, 1, what, "max_z", d->steer.max_z, true);
        if (!(d->steer.min_z <= d->steer.max_z))
            tplError(L, "%smin_z must be <= max_z (got %g, %g)", what, d->steer.min_z, d->steer.max_z);
        break;
    case TP_SKILL_NAV_TO:
    case TP_SKILL_FOLLOW_FIELD:
    case TP_SKILL_FOLLOW_PATH:
        tplDistField(L, 1, what, "point", &d->nav.point, 2, 3);
        tplDistField(L, 1, what, "speed", &d->nav.speed, 1, 1);
        d->nav.cell = tplSkillNum(L, what, "nav_cell", d->nav.cell);
        d->nav.radius = tplSkillNum(L, what, "nav_radius", d->nav.radius);
        d->nav.lookahead = tplSkillNum(L, what, "nav_lookahead", d->nav.lookahead);
        d->nav.replan = tplSkillNum(L, what, "nav_replan", d->nav.replan);
        break;
    case TP_SKILL_DRIVE_TRACK:
        tplDistField(L, 1, what, "point", &d->track.point, 2, 3);
        tplDistField(L, 1, what, "lane", &d->track.lane, 1, 1);
        tplDistField(L, 1, what, "horizon", &d->track.horizon, 1, 1);
        tplDistField(L, 1, what, "speed", &d->track.speed, 1, 1);
        d->track.togo = tplBool(L, 1, what, "togo", false);
        break;
    case TP_SKILL_CHIP:
        tplDistField(L, 1, what, "point", &d->chip.point, 2, 3);
        tplDistField(L, 1, what, "speed", &d->chip.speed, 1, 1);
        tplDistField(L, 1, what, "loft", &d->chip.loft, 1, 1);
        d->chip.follow = tplBool(L, 1, what, "follow", false);
        d->chip.approach = tplSkillNum(L, what, "approach", d->chip.approach);
        d->chip.trigger_speed = tplSkillNum(L, what, "trigger_speed", d->chip.trigger_speed);
        break;
    case TP_SKILL_GUARD:
        tplDistField(L, 1, what, "point", &d->guard.point, 2, 3);
        d->guard.mark = tplBool(L, 1, what, "mark", false);
        d->guard.approach = tplSkillNum(L, what, "approach", d->guard.approach);
        break;
    case TP_SKILL_RIDE:
        tplDistField(L, 1, what, "point", &d->ride.point, 2, 3);
        tplDuration(L, what, &d->ride.margin);
        d->ride.cell = tplSkillNum(L, what, "nav_cell", d->ride.cell);
        d->ride.jump = tplBool(L, 1, what, "jump", false);
        d->ride.jump_vz = tplSkillNum(L, what, "jump_vz", d->ride.jump_vz);
        d->ride.jump_vh = tplSkillNum(L, what, "jump_vh", d->ride.jump_vh);
        d->ride.walk_force = tplSkillNum(L, what, "walk_force", d->ride.walk_force);
        break;
    default: /* custom: read by the caller */
        break;
    }
}

/* Upvalue 1: kind; upvalue 2: constructor name ("tp.skill.kick"). */
static int tplSkillNew(lua_State *L)
{
    tpSkillKind kind = (tpSkillKind)lua_tointeger(L, lua_upvalueindex(1));
    const char *ctor = lua_tostring(L, lua_upvalueindex(2));
    luaL_checktype(L, 1, LUA_TTABLE);
    bool custom = kind == TP_SKILL_CUSTOM;
    tplCheckSkillFields(L, 1, ctor, kind);
    tplCheckFields(L, 1, ctor, tplKindFields[kind], 0); /* the string keys passed above: array entries */

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
    tplPushWhere(L);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

static const struct {
    const char *name;
    tpSkillKind kind;
} tplSkillKinds[] = {
    {"wait", TP_SKILL_WAIT},
    {"drive_to", TP_SKILL_DRIVE_TO},
    {"turn_to", TP_SKILL_TURN_TO},
    {"kick", TP_SKILL_KICK},
    {"push", TP_SKILL_PUSH},
    {"dribble", TP_SKILL_PUSH},
    {"impulse", TP_SKILL_IMPULSE},
    {"spin", TP_SKILL_SPIN},
    {"brake", TP_SKILL_BRAKE},
    {"hold", TP_SKILL_BRAKE},
    {"random", TP_SKILL_RANDOM},
    {"custom", TP_SKILL_CUSTOM},
    {"steer", TP_SKILL_STEER},
    {"nav_to", TP_SKILL_NAV_TO},
    {"follow_field", TP_SKILL_FOLLOW_FIELD},
    {"drive_track", TP_SKILL_DRIVE_TRACK},
    {"chip", TP_SKILL_CHIP},
    {"guard", TP_SKILL_GUARD},
    {"follow_path", TP_SKILL_FOLLOW_PATH},
    {"ride", TP_SKILL_RIDE},
};

static int tplSkillIndex(lua_State *L)
{
    return tplError(L,
                    "tp.skill.%s: unknown skill kind (kinds: wait, drive_to, turn_to, kick, push, dribble, "
                    "impulse, spin, brake, hold, random, steer, custom, nav_to, follow_path, follow_field, "
                    "drive_track, chip, guard, ride)",
                    luaL_optstring(L, 2, "?"));
}

void tplOpenSkills(lua_State *L)
{
    luaL_newmetatable(L, TPL_SKILL);
    lua_pop(L, 1);
    lua_createtable(L, 0, (int)(sizeof tplSkillKinds / sizeof tplSkillKinds[0]));
    for (size_t i = 0; i < sizeof tplSkillKinds / sizeof tplSkillKinds[0]; i++) {
        lua_pushinteger(L, tplSkillKinds[i].kind);
        lua_pushfstring(L, "tp.skill.%s", tplSkillKinds[i].name);
        lua_pushcclosure(L, tplSkillNew, 2);
        lua_setfield(L, -2, tplSkillKinds[i].name);
    }
    /* tp.skill.typo raises instead of returning nil (which would fail later as "call a nil") */
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, tplSkillIndex);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "skill");
}
