/* tplan lua: tp.joint -- a joint between two bodies (or a body and the world), checked field by
 * field here with the script line; tp.domain resolves its body names (tplResolveJoints). The
 * physics checks it again (physics/src/joints.c) for C callers. */
#include "lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const tplJointFields[] = {"name",    "kind",   "bodies",  "anchor", "anchor2", "axis",
                                             "axis2",   "length", "collide", "limit",  "limit2",  "spring",
                                             "spring2", "motor",  "motor2",  NULL};
static const char *const tplJointKinds[] = {"hinge",     "slider", "ball",     "fixed",
                                            "universal", "hinge2", "distance", NULL};
static const char *const tplLimitFields[] = {"lo", "hi", "bounce", NULL};
static const char *const tplSpringFields[] = {"stiffness", "damping", "rest", NULL};
static const char *const tplMotorFields[] = {"speed", "max_force", "max_torque", "driven", "max_speed", NULL};

/* Reads sub-table `key` (limit, spring or motor, axis k) into ax; false if absent. */
static bool tplJointAxis(lua_State *L, const char *what, const char *key, int k, tpJointAxisDef *ax)
{
    const int t = tplField(L, 1, key);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return false;
    }
    if (t != LUA_TTABLE)
        tplError(L, "%s%s: expected a table, got %s", what, key, tplTypeName(L, -1));
    const int idx = lua_gettop(L);
    char sub[192];
    snprintf(sub, sizeof sub, "%s%s.", what, key);
    (void)k;
    if (key[0] == 'l') { /* limit = {lo, hi} or {lo = , hi = , bounce = } */
        tplCheckFields(L, idx, sub, tplLimitFields, 2);
        double lohi[2] = {NAN, NAN};
        for (int i = 0; i < 2; i++) {
            if (lua_rawgeti(L, idx, i + 1) != LUA_TNIL)
                lohi[i] = luaL_checknumber(L, -1);
            lua_pop(L, 1);
        }
        ax->lo = tplNumber(L, idx, sub, "lo", lohi[0], false);
        ax->hi = tplNumber(L, idx, sub, "hi", lohi[1], false);
        if (isnan(ax->lo) || isnan(ax->hi))
            tplError(L, "%s%s: needs lo and hi ({lo, hi} or {lo = ..., hi = ...})", what, key);
        if (ax->lo > ax->hi)
            tplError(L, "%s%s: lo = %g is above hi = %g", what, key, ax->lo, ax->hi);
        ax->bounce = tplNumber(L, idx, sub, "bounce", 0.0, false);
        if (!(ax->bounce >= 0 && ax->bounce <= 1))
            tplError(L, "%s%s.bounce must be in [0, 1] (got %g)", what, key, ax->bounce);
        ax->limit = true;
    } else if (key[0] == 's') {
        tplCheckFields(L, idx, sub, tplSpringFields, 0);
        ax->stiffness = tplNumber(L, idx, sub, "stiffness", 0.0, false);
        ax->damping = tplNumber(L, idx, sub, "damping", 0.0, false);
        ax->rest = tplNumber(L, idx, sub, "rest", 0.0, false);
        if (ax->stiffness < 0)
            tplError(L, "%s%s.stiffness must be >= 0 (got %g)", what, key, ax->stiffness);
        if (ax->damping < 0)
            tplError(L, "%s%s.damping must be >= 0 (got %g)", what, key, ax->damping);
        if (ax->stiffness == 0 && ax->damping == 0)
            tplError(L, "%s%s: give stiffness (N/m or N m/rad) or damping (N s/m or N m s/rad)", what, key);
    } else {
        tplCheckFields(L, idx, sub, tplMotorFields, 0);
        /* driven: the target speed is the action's (tp.skill.motor); speed is then the default */
        ax->driven = tplBool(L, idx, sub, "driven", false);
        ax->speed = ax->driven ? tplNumber(L, idx, sub, "speed", 0.0, false) : tplReqNumber(L, idx, sub, "speed");
        const bool has_max = tplField(L, idx, "max_speed") != LUA_TNIL;
        lua_pop(L, 1);
        if (has_max && !ax->driven)
            tplError(L, "%s%s.max_speed: only for a driven motor (driven = true)", what, key);
        ax->max_speed = tplNumber(L, idx, sub, "max_speed", 0.0, false);
        if (has_max && !(ax->max_speed > 0))
            tplError(L, "%s%s.max_speed must be > 0 (got %g)", what, key, ax->max_speed);
        if (has_max && fabs(ax->speed) > ax->max_speed)
            tplError(L, "%s%s.speed = %g is beyond its max_speed %g", what, key, ax->speed, ax->max_speed);
        const bool f = tplField(L, idx, "max_force") != LUA_TNIL, tq = tplField(L, idx, "max_torque") != LUA_TNIL;
        lua_pop(L, 2);
        if (f == tq)
            tplError(L, "%s%s: give max_force (N, a slider) or max_torque (N m, a rotation)", what, key);
        ax->max_force = tplNumber(L, idx, sub, f ? "max_force" : "max_torque", 0.0, false);
        if (!(ax->max_force > 0))
            tplError(L, "%s%s.%s must be > 0 (got %g)", what, key, f ? "max_force" : "max_torque", ax->max_force);
        ax->motor = true;
    }
    lua_pop(L, 1);
    return true;
}

static bool tplIsZero(const double v[3])
{
    return v[0] == 0 && v[1] == 0 && v[2] == 0;
}

static int tplJointNew(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.joint", tplJointFields, 0);
    tplJoint *j = lua_newuserdatauv(L, sizeof *j, 1);
    memset(j, 0, sizeof *j);
    luaL_setmetatable(L, TPL_JOINT);
    j->def = tpDefaultJointDef();
    tplString(L, 1, "tp.joint: ", "name", j->def.name, sizeof j->def.name);
    char what[160];
    if (j->def.name[0])
        snprintf(what, sizeof what, "tp.joint '%s': ", j->def.name);
    else
        snprintf(what, sizeof what, "tp.joint: ");
    char kind[16] = "";
    if (!tplString(L, 1, what, "kind", kind, sizeof kind))
        tplError(L, "%s'kind' is required (hinge, slider, ball, fixed, universal, hinge2, distance)", what);
    int k = 0;
    while (tplJointKinds[k] && strcmp(tplJointKinds[k], kind) != 0)
        k++;
    if (!tplJointKinds[k])
        tplError(L, "%skind must be hinge, slider, ball, fixed, universal, hinge2 or distance (got \"%s\")", what,
                 kind);
    j->def.kind = (tpJointKind)k;
    const tpJointKind jk = j->def.kind;

    /* bodies = {a} or {a, b}; b "world" or absent: the world */
    if (tplField(L, 1, "bodies") != LUA_TTABLE)
        tplError(L, "%sbodies: expected {a} or {a, b} (body names; b may be \"world\")", what);
    const int bt = lua_gettop(L), nb = (int)lua_rawlen(L, bt);
    if (nb < 1 || nb > 2)
        tplError(L, "%sbodies: expected 1 or 2 body names (got %d)", what, nb);
    for (int i = 0; i < nb; i++) {
        if (lua_rawgeti(L, bt, i + 1) != LUA_TSTRING)
            tplError(L, "%sbodies[%d]: expected a body name, got %s", what, i + 1, tplTypeName(L, -1));
        size_t len = 0;
        const char *s = lua_tolstring(L, -1, &len);
        if (len == 0 || len >= TP_NAME_MAX)
            tplError(L, "%sbodies[%d]: a body name of 1 to %d bytes (got %zu)", what, i + 1, TP_NAME_MAX - 1, len);
        memcpy(i ? j->b : j->a, s, len + 1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (strcmp(j->b, "world") == 0)
        j->b[0] = '\0';
    if (strcmp(j->a, "world") == 0)
        tplError(L, "%sbodies[1]: the first body must be a body (the world goes second)", what);
    if (strcmp(j->a, j->b) == 0)
        tplError(L, "%sbodies: joins body '%s' to itself", what, j->a);

    const bool needs_anchor =
        jk == TP_JOINT_HINGE || jk == TP_JOINT_BALL || jk == TP_JOINT_UNIVERSAL || jk == TP_JOINT_HINGE2;
    j->has_anchor = tplVector(L, 1, what, "anchor", j->def.anchor, 3, 3, false) > 0;
    if (needs_anchor && !j->has_anchor)
        tplError(L, "%sanchor is required for a %s joint ({x, y, z} in m, world frame)", what, kind);
    j->has_anchor2 = tplVector(L, 1, what, "anchor2", j->def.anchor2, 3, 3, false) > 0;
    if (j->has_anchor2 && jk != TP_JOINT_DISTANCE)
        tplError(L, "%sanchor2 is only for a distance joint", what);
    const bool uses_axis =
        jk == TP_JOINT_HINGE || jk == TP_JOINT_SLIDER || jk == TP_JOINT_UNIVERSAL || jk == TP_JOINT_HINGE2;
    const bool uses_axis2 = jk == TP_JOINT_UNIVERSAL || jk == TP_JOINT_HINGE2;
    if (tplVector(L, 1, what, "axis", j->def.axis, 3, 3, false) > 0) {
        if (!uses_axis)
            tplError(L, "%saxis: a %s joint has no axis", what, kind);
        if (tplIsZero(j->def.axis))
            tplError(L, "%saxis must not be zero", what);
    } else if (jk == TP_JOINT_UNIVERSAL || jk == TP_JOINT_HINGE2) {
        tplError(L, "%saxis is required for a %s joint", what, kind);
    }
    if (tplVector(L, 1, what, "axis2", j->def.axis2, 3, 3, false) > 0) {
        if (!uses_axis2)
            tplError(L, "%saxis2: a %s joint has one axis", what, kind);
        if (tplIsZero(j->def.axis2))
            tplError(L, "%saxis2 must not be zero", what);
    } else if (uses_axis2) {
        tplError(L, "%saxis2 is required for a %s joint", what, kind);
    }
    j->def.length = tplNumber(L, 1, what, "length", -1.0, false);
    if (tplField(L, 1, "length") != LUA_TNIL && (jk != TP_JOINT_DISTANCE || j->def.length < 0))
        tplError(L, "%slength: %s", what, jk != TP_JOINT_DISTANCE ? "only for a distance joint" : "must be >= 0");
    lua_pop(L, 1);
    j->def.collide = tplBool(L, 1, what, "collide", false);

    static const char *const keys[2][3] = {{"limit", "spring", "motor"}, {"limit2", "spring2", "motor2"}};
    const int naxes = tpJointAxisCount(jk);
    for (int ax = 0; ax < 2; ax++) {
        for (int f = 0; f < 3; f++) {
            if (!tplJointAxis(L, what, keys[ax][f], ax, &j->def.axes[ax]))
                continue;
            const bool spin = jk == TP_JOINT_HINGE2 && ax == 1;
            if (ax >= naxes || (spin && f < 2))
                tplError(L, "%s%s: a %s joint has no %s%s", what, keys[ax][f], kind, keys[0][f],
                         naxes > 0 && ax >= naxes ? " on a second axis"
                         : spin                   ? " on its spin axis"
                                                  : "");
        }
        const tpJointAxisDef *a = &j->def.axes[ax];
        if (a->limit && (a->stiffness > 0 || a->damping > 0) && jk != TP_JOINT_HINGE2)
            tplError(L, "%s%s and %s on the same axis are not supported (ODE's stop holds both)", what, keys[ax][1],
                     keys[ax][0]);
        const bool rotation = jk != TP_JOINT_SLIDER;
        if (rotation && a->limit && (a->lo < -TP_PI || a->hi > TP_PI))
            tplError(L, "%s%s: [%g, %g] rad is outside [-pi, pi]", what, keys[ax][0], a->lo, a->hi);
        if (rotation && fabs(a->rest) > TP_PI)
            tplError(L, "%s%s.rest = %g rad is outside [-pi, pi]", what, keys[ax][1], a->rest);
        if (jk == TP_JOINT_HINGE2 && a->rest != 0)
            tplError(L, "%sspring.rest must be 0 for a hinge2 (its suspension rests where it starts)", what);
    }
    if ((j->def.axes[0].driven || j->def.axes[1].driven) && !j->def.name[0])
        tplError(
            L, "%sa joint with a driven motor needs a name (skills and plans name it: tp.skill.motor { joint = ... })",
            what);
    if (uses_axis2) { /* universal: perpendicular axes; hinge2: not parallel ones */
        const double *x = j->def.axis, *y = j->def.axis2;
        const double c = (x[0] * y[0] + x[1] * y[1] + x[2] * y[2]) /
                         sqrt((x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) * (y[0] * y[0] + y[1] * y[1] + y[2] * y[2]));
        if (jk == TP_JOINT_UNIVERSAL && fabs(c) > 1e-6)
            tplError(L, "%saxis2 must be perpendicular to axis (cos = %g)", what, c);
        if (jk == TP_JOINT_HINGE2 && fabs(c) > 1.0 - 1e-6)
            tplError(L, "%saxis2 must not be parallel to axis", what);
    }
    TP_VALIDATE(tplJoint_Valid, j);
    tplPushWhere(L);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

void tplOpenJoints(lua_State *L)
{
    luaL_newmetatable(L, TPL_JOINT);
    lua_pop(L, 1);
    lua_pushcfunction(L, tplJointNew);
    lua_setfield(L, -2, "joint");
}
