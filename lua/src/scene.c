/* tplan lua: scene constructors: tp.material, tp.contact, the body shapes and the motions
 * of kinematic foreign bodies. Each checks its own fields; names of materials are resolved
 * later by tp.domain. */
#include "lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void tplSetWhere(lua_State *L)
{
    tplPushWhere(L);
    lua_setiuservalue(L, -2, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* Materials and pair overrides                                                                */

static const char *const tplMaterialFields[] = {
    "name", "friction", "restitution", "rolling_friction", "bounce_velocity", NULL};

static void tplSurface(lua_State *L, const char *what, double *f, double *e, double *r, double *bv)
{
    *f = tplNumber(L, 1, what, "friction", *f, false);
    if (!(*f >= 0))
        tplError(L, "%sfriction must be >= 0 (got %g)", what, *f);
    *e = tplNumber(L, 1, what, "restitution", *e, false);
    if (!(*e >= 0 && *e <= 1))
        tplError(L, "%srestitution must be in [0, 1] (got %g)", what, *e);
    *r = tplNumber(L, 1, what, "rolling_friction", *r, false);
    if (!(*r >= 0))
        tplError(L, "%srolling_friction must be >= 0 (got %g)", what, *r);
    *bv = tplNumber(L, 1, what, "bounce_velocity", *bv, false);
    if (!(*bv >= 0))
        tplError(L, "%sbounce_velocity must be >= 0 (got %g)", what, *bv);
}

static int tplNewMaterial(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.material", tplMaterialFields, 0);
    tplMaterial *m = lua_newuserdatauv(L, sizeof *m, 1);
    luaL_setmetatable(L, TPL_MATERIAL);
    m->def = tpDefaultMaterialDef();
    if (!tplString(L, 1, "tp.material: ", "name", m->def.name, sizeof m->def.name) || !m->def.name[0])
        tplError(L, "tp.material: 'name' is required");
    char what[128];
    snprintf(what, sizeof what, "tp.material '%s': ", m->def.name);
    tplSurface(L, what, &m->def.friction, &m->def.restitution, &m->def.rolling_friction, &m->def.bounce_velocity);
    tplSetWhere(L);
    return 1;
}

static const char *const tplContactFields[] = {"friction", "restitution", "rolling_friction", "bounce_velocity", NULL};

static int tplNewContact(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.contact", tplContactFields, 2);
    tplContact *c = lua_newuserdatauv(L, sizeof *c, 1);
    memset(c, 0, sizeof *c);
    luaL_setmetatable(L, TPL_CONTACT);
    for (int i = 0; i < 2; i++) {
        if (lua_rawgeti(L, 1, i + 1) != LUA_TSTRING)
            tplError(L, "tp.contact: entry %d: expected a material name, got %s", i + 1, tplTypeName(L, -1));
        size_t len = 0;
        const char *s = lua_tolstring(L, -1, &len);
        if (len >= TP_NAME_MAX)
            tplError(L, "tp.contact: material name '%s' is too long", s);
        memcpy(i ? c->b : c->a, s, len + 1);
        lua_pop(L, 1);
    }
    /* NAN marks "not given": tp.domain fills it from the two materials' mixing rule */
    c->friction = c->restitution = c->rolling_friction = c->bounce_velocity = NAN;
    char what[192];
    snprintf(what, sizeof what, "tp.contact '%s'/'%s': ", c->a, c->b);
    const char *keys[] = {"friction", "restitution", "rolling_friction", "bounce_velocity"};
    double *vals[] = {&c->friction, &c->restitution, &c->rolling_friction, &c->bounce_velocity};
    for (int i = 0; i < 4; i++) {
        *vals[i] = tplNumber(L, 1, what, keys[i], NAN, false);
        if (*vals[i] < 0)
            tplError(L, "%s%s must be >= 0 (got %g)", what, keys[i], *vals[i]);
    }
    if (c->restitution > 1)
        tplError(L, "%srestitution must be in [0, 1] (got %g)", what, c->restitution);
    TP_VALIDATE(tplContact_Valid, c);
    tplSetWhere(L);
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Motions                                                                                     */

static tplMotion *tplNewMotion(lua_State *L, tpMotionKind kind)
{
    tplMotion *m = lua_newuserdatauv(L, sizeof *m, 1);
    memset(m, 0, sizeof *m);
    luaL_setmetatable(L, TPL_MOTION);
    m->def.kind = kind;
    m->def.axis[2] = 1.0;
    m->def.period = 1.0;
    return m;
}

static int tplRotate(lua_State *L)
{
    static const char *const known[] = {"rate", "axis", "phase", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.rotate", known, 0);
    tplMotion *m = tplNewMotion(L, TP_MOTION_ROTATE);
    m->def.rate = tplReqNumber(L, 1, "tp.rotate: ", "rate");
    m->def.phase = tplNumber(L, 1, "tp.rotate: ", "phase", 0.0, false);
    if (tplVector(L, 1, "tp.rotate: ", "axis", m->def.axis, 3, 3, false)) {
        double n =
            sqrt(m->def.axis[0] * m->def.axis[0] + m->def.axis[1] * m->def.axis[1] + m->def.axis[2] * m->def.axis[2]);
        if (!(n > 0))
            tplError(L, "tp.rotate: axis must not be zero");
        for (int k = 0; k < 3; k++)
            m->def.axis[k] /= n;
    }
    return 1;
}

static int tplLinear(lua_State *L)
{
    static const char *const known[] = {"vel", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.linear", known, 0);
    tplMotion *m = tplNewMotion(L, TP_MOTION_LINEAR);
    if (!tplVector(L, 1, "tp.linear: ", "vel", m->def.vel, 3, 3, false))
        tplError(L, "tp.linear: 'vel' is required");
    return 1;
}

static int tplOscillate(lua_State *L)
{
    static const char *const known[] = {"amplitude", "period", "phase", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.oscillate", known, 0);
    tplMotion *m = tplNewMotion(L, TP_MOTION_OSCILLATE);
    if (!tplVector(L, 1, "tp.oscillate: ", "amplitude", m->def.amplitude, 3, 3, false))
        tplError(L, "tp.oscillate: 'amplitude' is required");
    m->def.period = tplReqNumber(L, 1, "tp.oscillate: ", "period");
    if (!(m->def.period > 0))
        tplError(L, "tp.oscillate: period must be > 0 (got %g)", m->def.period);
    m->def.phase = tplNumber(L, 1, "tp.oscillate: ", "phase", 0.0, false);
    return 1;
}

/* tp.waypoints { points = {{x, y, z [, yaw]}, ...}, speed = v | times = {...}, pause = s,
 * loop = "once" | "cycle" | "pingpong" }: points are offsets from the body's pos. */
static int tplWaypoints(lua_State *L)
{
    static const char *const known[] = {"points", "speed", "times", "pause", "loop", NULL};
    const char *what = "tp.waypoints: ";
    luaL_checktype(L, 1, LUA_TTABLE);
    tplCheckFields(L, 1, "tp.waypoints", known, 0);
    tplMotion *m = tplNewMotion(L, TP_MOTION_WAYPOINTS);
    tpMotionDef *d = &m->def;
    if (tplField(L, 1, "points") != LUA_TTABLE)
        tplError(L, "%s'points' is required: an array of {x, y, z} or {x, y, z, yaw}", what);
    int n = (int)lua_rawlen(L, -1);
    if (n < 2 || n > TP_MAX_WAYPOINTS)
        tplError(L, "%spoints: 2..%d points (got %d)", what, TP_MAX_WAYPOINTS, n);
    for (int k = 0; k < n; k++) {
        char label[64];
        snprintf(label, sizeof label, "tp.waypoints: points[%d]", k + 1);
        lua_rawgeti(L, -1, k + 1);
        tplToVector(L, lua_gettop(L), label, d->points[k], 3, 4, false);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    d->npoints = n;
    char loop[16] = "pingpong";
    tplString(L, 1, what, "loop", loop, sizeof loop);
    if (strcmp(loop, "once") == 0)
        d->loop = TP_LOOP_ONCE;
    else if (strcmp(loop, "cycle") == 0)
        d->loop = TP_LOOP_CYCLE;
    else if (strcmp(loop, "pingpong") == 0)
        d->loop = TP_LOOP_PINGPONG;
    else
        tplError(L, "%sloop must be \"once\", \"cycle\" or \"pingpong\" (got \"%s\")", what, loop);
    d->pause = tplNumber(L, 1, what, "pause", 0.0, false);
    if (!(d->pause >= 0))
        tplError(L, "%spause must be >= 0 (got %g)", what, d->pause);
    const int legs = d->loop == TP_LOOP_CYCLE ? n : n - 1;
    bool has_speed = tplField(L, 1, "speed") != LUA_TNIL;
    lua_pop(L, 1);
    int tt = tplField(L, 1, "times");
    lua_pop(L, 1);
    if (has_speed == (tt != LUA_TNIL))
        tplError(L, "%sgive exactly one of 'speed' (m/s along the path) and 'times' (s per leg)", what);
    if (has_speed) {
        double v = tplReqNumber(L, 1, what, "speed");
        if (!(v > 0))
            tplError(L, "%sspeed must be > 0 (got %g)", what, v);
        for (int k = 0; k < legs; k++) {
            const double *a = d->points[k], *b = d->points[(k + 1) % n];
            double dist =
                sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
            d->leg_time[k] = dist / v;
            if (!(d->leg_time[k] >= 1e-3))
                tplError(L, "%spoints %d and %d are the same point (a leg needs a length, or use 'times')", what, k + 1,
                         (k + 1) % n + 1);
        }
    } else {
        double times[TP_MAX_WAYPOINTS];
        int nt = tplVector(L, 1, what, "times", times, 1, TP_MAX_WAYPOINTS, false);
        if (nt != legs)
            tplError(L, "%stimes: one duration per leg: %d for %d points with loop \"%s\" (got %d)", what, legs, n,
                     loop, nt);
        for (int k = 0; k < legs; k++) {
            if (!(times[k] >= 1e-3))
                tplError(L, "%stimes[%d] must be >= 0.001 s (got %g)", what, k + 1, times[k]);
            d->leg_time[k] = times[k];
        }
    }
    return 1;
}

/* tp.motion(function(t) return pos, quat [, linvel, angvel] end): the function is the motion's
 * user value 1; tp.domain registers it as a host callback (tplMotionCallback). */
static int tplMotionNew(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TFUNCTION)
        tplError(L, "tp.motion: expected a function of t returning pos, quat [, linvel, angvel], got %s",
                 tplTypeName(L, 1));
    tplNewMotion(L, TP_MOTION_FUNCTION);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Bodies                                                                                      */

/* Fields of every solid body, around its shape's size fields (the order of error messages). */
#define TPL_BODY_HEAD "name", "class", "material", "color"
#define TPL_BODY_TAIL                                                                                                  \
    "mass", "pos", "quat", "yaw", "vel", "angvel", "max_force", "max_torque", "planar", "linear_damping",              \
        "angular_damping", "motion", "marker"

static const char *const tplBoxFields[] = {TPL_BODY_HEAD, "size", TPL_BODY_TAIL, NULL};
static const char *const tplSphereFields[] = {TPL_BODY_HEAD, "radius", TPL_BODY_TAIL, NULL};
static const char *const tplCylinderFields[] = {TPL_BODY_HEAD, "radius", "length", TPL_BODY_TAIL, NULL};
static const char *const tplPlaneFields[] = {TPL_BODY_HEAD, "normal", "offset", "marker", NULL};
static const char *const tplMeshFields[] = {TPL_BODY_HEAD, "file", "scale", "up", "density", TPL_BODY_TAIL, NULL};
static const char *const tplCompoundFields[] = {TPL_BODY_HEAD, "parts", "density", TPL_BODY_TAIL, NULL};

static tpBodyClass tplClass(lua_State *L, const char *what, tpBodyClass def)
{
    char cls[16];
    if (!tplString(L, 1, what, "class", cls, sizeof cls))
        return def;
    if (strcmp(cls, "static") == 0)
        return TP_BODY_STATIC;
    if (strcmp(cls, "passive") == 0)
        return TP_BODY_PASSIVE;
    if (strcmp(cls, "active") == 0)
        return TP_BODY_ACTIVE;
    if (strcmp(cls, "foreign") == 0)
        return TP_BODY_FOREIGN;
    tplError(L, "%sclass must be \"static\", \"passive\", \"active\" or \"foreign\" (got \"%s\")", what, cls);
    return def;
}

static double tplPositive(lua_State *L, const char *what, const char *key)
{
    double v = tplReqNumber(L, 1, what, key);
    if (!(v > 0))
        tplError(L, "%s%s must be > 0 (got %g)", what, key, v);
    return v;
}

static double tplNonNegative(lua_State *L, const char *what, const char *key)
{
    double v = tplNumber(L, 1, what, key, 0.0, false);
    if (!(v >= 0))
        tplError(L, "%s%s must be >= 0 (got %g)", what, key, v);
    return v;
}

static bool tplHas(lua_State *L, const char *key)
{
    bool has = tplField(L, 1, key) != LUA_TNIL;
    lua_pop(L, 1);
    return has;
}

static void tplColor(lua_State *L, const char *what, float *color)
{
    double c[4] = {1, 1, 1, 1};
    if (!tplVector(L, 1, what, "color", c, 3, 4, false))
        return;
    for (int k = 0; k < 4; k++) {
        if (!(c[k] >= 0 && c[k] <= 1))
            tplError(L, "%scolor[%d] must be in [0, 1] (got %g)", what, k + 1, c[k]);
        color[k] = (float)c[k];
    }
}

/* Upvalue 1: shape kind. */
static int tplBodyNew(lua_State *L)
{
    tpShapeKind shape = (tpShapeKind)lua_tointeger(L, lua_upvalueindex(1));
    static const char *const ctors[] = {"tp.box",   "tp.sphere", "tp.cylinder", "tp.capsule",
                                        "tp.plane", "tp.mesh",   "tp.compound"};
    const char *ctor = ctors[shape];
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *const *known = shape == TP_SHAPE_BOX        ? tplBoxFields
                               : shape == TP_SHAPE_SPHERE   ? tplSphereFields
                               : shape == TP_SHAPE_PLANE    ? tplPlaneFields
                               : shape == TP_SHAPE_MESH     ? tplMeshFields
                               : shape == TP_SHAPE_COMPOUND ? tplCompoundFields
                                                            : tplCylinderFields;
    tplCheckFields(L, 1, ctor, known, 0);

    tplBody *b = lua_newuserdatauv(L, sizeof *b, 3);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, TPL_BODY);
    b->ctor = ctor;
    b->def = tpDefaultBodyDef();
    b->def.shape = shape;
    char what[160];
    snprintf(what, sizeof what, "%s: ", ctor);
    if (!tplString(L, 1, what, "name", b->def.name, sizeof b->def.name) || !b->def.name[0])
        tplError(L, "%s: 'name' is required", ctor);
    snprintf(what, sizeof what, "%s '%s': ", ctor, b->def.name);
    tplString(L, 1, what, "material", b->material, sizeof b->material);
    tplColor(L, what, b->def.color);

    if (shape == TP_SHAPE_PLANE) {
        b->def.cls = tplClass(L, what, TP_BODY_STATIC);
        if (b->def.cls != TP_BODY_STATIC)
            tplError(L, "%sa plane must be static", what);
        double n[3] = {0, 0, 1};
        tplVector(L, 1, what, "normal", n, 3, 3, false);
        if (!(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 0))
            tplError(L, "%snormal must not be zero", what);
        memcpy(b->def.plane, n, sizeof n);
        b->def.plane[3] = tplNumber(L, 1, what, "offset", 0.0, false);
        TP_VALIDATE(tplBody_Valid, b);
        tplSetWhere(L);
        return 1;
    }

    b->def.cls = tplClass(L, what, TP_BODY_PASSIVE);
    switch (shape) {
    case TP_SHAPE_BOX:
        if (!tplVector(L, 1, what, "size", b->def.size, 3, 3, false))
            tplError(L, "%s'size' is required", what);
        for (int k = 0; k < 3; k++)
            if (!(b->def.size[k] > 0))
                tplError(L, "%ssize[%d] must be > 0 (got %g)", what, k + 1, b->def.size[k]);
        break;
    case TP_SHAPE_SPHERE:
        b->def.size[0] = tplPositive(L, what, "radius");
        b->def.size[1] = b->def.size[2] = 0;
        break;
    case TP_SHAPE_MESH:
    case TP_SHAPE_COMPOUND:
        break; /* after the class and the motion: the mesh and the parts are read below */
    default:
        b->def.size[0] = tplPositive(L, what, "radius");
        b->def.size[1] = tplPositive(L, what, "length");
        b->def.size[2] = 0;
        break;
    }

    /* motion: only foreign bodies; without one a foreign body is driven by a foreign tactic */
    bool kinematic = false;
    if (tplField(L, 1, "motion") != LUA_TNIL) {
        const tplMotion *m = luaL_testudata(L, -1, TPL_MOTION);
        if (!m)
            tplError(L, "%smotion: expected tp.rotate, tp.linear, tp.oscillate, tp.waypoints or tp.motion, got %s",
                     what, tplTypeName(L, -1));
        if (b->def.cls != TP_BODY_FOREIGN)
            tplError(L, "%smotion is only allowed for class \"foreign\"", what);
        b->def.motion = m->def;
        if (m->def.kind == TP_MOTION_FUNCTION) {
            lua_getiuservalue(L, -1, 1); /* the function, kept by the body (at 2) as its user value 2 */
            lua_setiuservalue(L, 2, 2);
        }
        kinematic = true;
    }
    lua_pop(L, 1);
    bool dynamic = b->def.cls != TP_BODY_STATIC && !kinematic;
    bool controlled = b->def.cls == TP_BODY_ACTIVE || (b->def.cls == TP_BODY_FOREIGN && !kinematic);

    double com[3] = {0, 0, 0};
    if (shape == TP_SHAPE_MESH) {
        char file[1024];
        if (!tplString(L, 1, what, "file", file, sizeof file) || !file[0])
            tplError(L, "%s'file' is required (an .obj, .stl, .gltf or .glb inside the script's folder)", what);
        double scale = tplNumber(L, 1, what, "scale", 1.0, false);
        char up[8] = "z";
        tplString(L, 1, what, "up", up, sizeof up);
        if (strcmp(up, "z") != 0 && strcmp(up, "y") != 0)
            tplError(L, "%sup must be \"z\" or \"y\" (got \"%s\")", what, up);
        double density = tplNumber(L, 1, what, "density", 0.0, false);
        if (tplHas(L, "density") && !(density > 0))
            tplError(L, "%sdensity must be > 0 (got %g)", what, density);
        if (tplHas(L, "density") && tplHas(L, "mass"))
            tplError(L, "%sgive either mass or density, not both", what);
        if (!(scale > 0))
            tplError(L, "%sscale must be > 0 (got %g)", what, scale);
        tpMesh m;
        tplMeshRead(L, what, file, strcmp(up, "y") == 0, scale, &m);
        double mass = tplHas(L, "mass") ? tplPositive(L, what, "mass") : 0.0;
        tplMeshAttach(L, 2, b, &m, file, mass, density, com);
        if (dynamic && !tplHas(L, "mass") && !tplHas(L, "density"))
            tplError(L, "%s'mass' or 'density' is required for a %s body", what,
                     b->def.cls == TP_BODY_ACTIVE ? "active" : "moving");
    }
    if (shape == TP_SHAPE_COMPOUND)
        tplCompoundRead(L, 2, b, what, dynamic);
    if (shape != TP_SHAPE_MESH && shape != TP_SHAPE_COMPOUND && (tplHas(L, "mass") || dynamic)) {
        if (!tplHas(L, "mass")) {
            static const char *const cls[] = {"static", "passive", "active", "foreign"};
            tplError(L, "%s'mass' is required for a %s body", what, cls[b->def.cls]);
        }
        b->def.mass = tplPositive(L, what, "mass");
    }
    tplVector(L, 1, what, "pos", b->def.pos, 3, 3, false);
    if (tplHas(L, "quat") && tplHas(L, "yaw"))
        tplError(L, "%sgive either quat or yaw, not both", what);
    if (tplVector(L, 1, what, "quat", b->def.quat, 4, 4, false)) {
        double n = 0;
        for (int k = 0; k < 4; k++)
            n += b->def.quat[k] * b->def.quat[k];
        if (!(n > 0))
            tplError(L, "%squat must not be zero", what);
    }
    if (tplHas(L, "yaw")) {
        double yaw = tplNumber(L, 1, what, "yaw", 0.0, false);
        b->def.quat[0] = cos(0.5 * yaw);
        b->def.quat[1] = b->def.quat[2] = 0;
        b->def.quat[3] = sin(0.5 * yaw);
    }
    if ((tplHas(L, "vel") || tplHas(L, "angvel")) && !dynamic)
        tplError(L, "%svel and angvel are only allowed for moving (non-static, non-kinematic) bodies", what);
    tplVector(L, 1, what, "vel", b->def.vel, 3, 3, false);
    tplVector(L, 1, what, "angvel", b->def.angvel, 3, 3, false);
    if ((tplHas(L, "max_force") || tplHas(L, "max_torque") || tplHas(L, "planar")) && !controlled)
        tplError(
            L, "%smax_force, max_torque and planar are only for controlled bodies (active, or foreign without motion)",
            what);
    b->def.max_force = tplNonNegative(L, what, "max_force");
    b->def.max_torque = tplNonNegative(L, what, "max_torque");
    b->def.planar_force = tplBool(L, 1, what, "planar", false);
    b->def.linear_damping = tplNonNegative(L, what, "linear_damping");
    b->def.angular_damping = tplNonNegative(L, what, "angular_damping");
    b->def.marker = tplBool(L, 1, what, "marker", false);
    if (b->def.marker && b->def.cls != TP_BODY_STATIC)
        tplError(L, "%smarker is only for static bodies (drawn, never colliding)", what);
    if (shape == TP_SHAPE_MESH)
        tplMeshPlace(b, com);
    if (shape == TP_SHAPE_COMPOUND && dynamic)
        tplCompoundCentre(L, b, what);
    TP_VALIDATE(tplBody_Valid, b);
    tplSetWhere(L);
    return 1;
}

static const luaL_Reg tplSceneFns[] = {
    {"material", tplNewMaterial}, {"contact", tplNewContact},  {"rotate", tplRotate},
    {"linear", tplLinear},        {"oscillate", tplOscillate}, {"waypoints", tplWaypoints},
    {"motion", tplMotionNew},     {"scene", tplSceneFile},     {NULL, NULL},
};

void tplOpenScene(lua_State *L)
{
    const char *types[] = {TPL_MATERIAL, TPL_CONTACT, TPL_BODY, TPL_MOTION};
    for (int i = 0; i < 4; i++) {
        luaL_newmetatable(L, types[i]);
        lua_pop(L, 1);
    }
    luaL_setfuncs(L, tplSceneFns, 0);
    static const struct {
        const char *name;
        tpShapeKind shape;
    } shapes[] = {{"box", TP_SHAPE_BOX},          {"sphere", TP_SHAPE_SPHERE}, {"cylinder", TP_SHAPE_CYLINDER},
                  {"capsule", TP_SHAPE_CAPSULE},  {"plane", TP_SHAPE_PLANE},   {"mesh", TP_SHAPE_MESH},
                  {"compound", TP_SHAPE_COMPOUND}};
    for (int i = 0; i < 7; i++) {
        lua_pushinteger(L, shapes[i].shape);
        lua_pushcclosure(L, tplBodyNew, 1);
        lua_setfield(L, -2, shapes[i].name);
    }
    tplOpenJoints(L);
}
