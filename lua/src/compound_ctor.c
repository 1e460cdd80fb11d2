/* tp.compound's parts: one rigid body of several shapes (docs/lua-api.md, "Compound bodies").
 * The parts live in userdata kept in a table, the body's user value 3 (meshes.c's tplKeep*:
 * collected with the body, counted by the memory limit); tp.domain keeps that table alive with the
 * domain. Calls meshes.c, never the reverse (no file-level cycle). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lua_internal.h"

#include <lauxlib.h>

static const char *const tplBoxPartFields[] = {"shape", "size", "pos", "quat", "yaw", "mass", NULL};
static const char *const tplSpherePartFields[] = {"shape", "radius", "pos", "quat", "yaw", "mass", NULL};
static const char *const tplRoundPartFields[] = {"shape", "radius", "length", "pos", "quat", "yaw", "mass", NULL};
static const char *const tplMeshPartFields[] = {"shape", "file", "scale", "up", "pos", "quat", "yaw", "mass", NULL};

/* Part k (1-based) of the table at idx into p. */
static void read_part(lua_State *L, int idx, int keep, const char *what, int k, bool moving, tpPartDef *p)
{
    char pw[200], label[200];
    snprintf(pw, sizeof pw, "%sparts[%d].", what, k);
    snprintf(label, sizeof label, "%sparts[%d]", what, k);
    char shape[16] = "";
    if (!tplString(L, idx, pw, "shape", shape, sizeof shape) || !shape[0])
        tplError(L, "%sparts[%d].shape is required (box, sphere, cylinder, capsule or mesh)", what, k);
    static const struct {
        const char *name;
        tpShapeKind kind;
        const char *const *fields;
    } kinds[] = {{"box", TP_SHAPE_BOX, tplBoxPartFields},
                 {"sphere", TP_SHAPE_SPHERE, tplSpherePartFields},
                 {"cylinder", TP_SHAPE_CYLINDER, tplRoundPartFields},
                 {"capsule", TP_SHAPE_CAPSULE, tplRoundPartFields},
                 {"mesh", TP_SHAPE_MESH, tplMeshPartFields}};
    int kind = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(shape, kinds[i].name) == 0)
            kind = i;
    if (strcmp(shape, "plane") == 0)
        tplError(L, "%sparts[%d].shape: a plane cannot be a part (a plane is a static tp.plane of its own)", what, k);
    if (kind < 0)
        tplError(L, "%sparts[%d].shape: unknown shape \"%s\" (expected box, sphere, cylinder, capsule or mesh)", what,
                 k, shape);
    tplCheckFields(L, idx, label, kinds[kind].fields, 0);
    p->shape = kinds[kind].kind;
    switch (p->shape) {
    case TP_SHAPE_BOX:
        if (!tplVector(L, idx, pw, "size", p->size, 3, 3, false))
            tplError(L, "%sparts[%d].size is required (full extents x, y, z in m)", what, k);
        for (int a = 0; a < 3; a++)
            if (!(p->size[a] > 0))
                tplError(L, "%sparts[%d].size[%d] must be > 0 (got %g)", what, k, a + 1, p->size[a]);
        break;
    case TP_SHAPE_MESH: {
        char file[1024] = "", up[8] = "z";
        if (!tplString(L, idx, pw, "file", file, sizeof file) || !file[0])
            tplError(L, "%sparts[%d].file is required (an .obj, .stl, .gltf or .glb inside the script's folder)", what,
                     k);
        tplString(L, idx, pw, "up", up, sizeof up);
        if (strcmp(up, "z") != 0 && strcmp(up, "y") != 0)
            tplError(L, "%sparts[%d].up must be \"z\" or \"y\" (got \"%s\")", what, k, up);
        double scale = tplNumber(L, idx, pw, "scale", 1.0, false);
        if (!(scale > 0))
            tplError(L, "%sparts[%d].scale must be > 0 (got %g)", what, k, scale);
        tpMesh m;
        tplMeshRead(L, pw, file, strcmp(up, "y") == 0, scale, &m);
        tpMeshView v = tpMesh_View(&m);
        char why[256];
        if (moving && !tpMesh_CheckClosed(&v, why, sizeof why)) {
            tpMesh_Free(&m);
            tplError(L, "%sparts[%d].file: %s cannot be a part of a moving body: %s", what, k, file, why);
        }
        tplKeepMesh(L, keep, p, &v);
        tpMesh_Free(&m);
        break;
    }
    default: {
        double r = tplReqNumber(L, idx, pw, "radius");
        if (!(r > 0))
            tplError(L, "%sparts[%d].radius must be > 0 (got %g)", what, k, r);
        p->size[0] = r;
        p->size[1] = p->size[2] = 0.0;
        if (p->shape != TP_SHAPE_SPHERE) {
            double l = tplReqNumber(L, idx, pw, "length");
            if (!(l > 0))
                tplError(L, "%sparts[%d].length must be > 0 (got %g)", what, k, l);
            p->size[1] = l;
        }
        break;
    }
    }
    tplVector(L, idx, pw, "pos", p->pos, 3, 3, false);
    lua_pushstring(L, "quat");
    bool has_quat = lua_rawget(L, idx) != LUA_TNIL;
    lua_pushstring(L, "yaw");
    bool has_yaw = lua_rawget(L, idx) != LUA_TNIL;
    lua_pop(L, 2);
    if (has_quat && has_yaw)
        tplError(L, "%sparts[%d]: give either quat or yaw, not both", what, k);
    if (tplVector(L, idx, pw, "quat", p->quat, 4, 4, false) &&
        !(p->quat[0] * p->quat[0] + p->quat[1] * p->quat[1] + p->quat[2] * p->quat[2] + p->quat[3] * p->quat[3] > 0))
        tplError(L, "%sparts[%d].quat must not be zero", what, k);
    if (has_yaw) {
        double yaw = tplNumber(L, idx, pw, "yaw", 0.0, false);
        p->quat[0] = cos(0.5 * yaw);
        p->quat[1] = p->quat[2] = 0.0;
        p->quat[3] = sin(0.5 * yaw);
    }
    lua_pushstring(L, "mass");
    bool has_mass = lua_rawget(L, idx) != LUA_TNIL;
    lua_pop(L, 1);
    if (has_mass) {
        p->mass = tplNumber(L, idx, pw, "mass", 0.0, false);
        if (!(p->mass > 0))
            tplError(L, "%sparts[%d].mass must be > 0 (got %g)", what, k, p->mass);
    }
}

void tplCompoundRead(lua_State *L, int bidx, tplBody *b, const char *what, bool dynamic)
{
    bidx = lua_absindex(L, bidx);
    if (tplField(L, 1, "parts") != LUA_TTABLE)
        tplError(L, "%sparts: expected a list of parts ({shape = \"box\", size = {...}, pos = {...}}, ...), got %s",
                 what, tplTypeName(L, -1));
    int list = lua_gettop(L);
    int n = (int)lua_rawlen(L, list);
    if (n < 1)
        tplError(L, "%sparts must have at least one part", what);
    if (n > TP_MAX_PARTS)
        tplError(L, "%sparts: %d parts (at most %d)", what, n, TP_MAX_PARTS);
    tplCheckFields(L, list, "tp.compound parts", (const char *const[]){NULL}, n);
    int keep = tplKeepTable(L, bidx);
    tpPartDef *parts = tplKeepParts(L, keep, n);
    for (int k = 0; k < n; k++) {
        if (lua_rawgeti(L, list, k + 1) != LUA_TTABLE)
            tplError(L, "%sparts[%d]: expected a table, got %s", what, k + 1, tplTypeName(L, -1));
        read_part(L, lua_gettop(L), keep, what, k + 1, b->def.cls != TP_BODY_STATIC, &parts[k]);
        lua_pop(L, 1);
    }
    lua_pop(L, 2); /* keep, list */
    b->def.parts = parts;
    b->def.nparts = n;

    /* the body's mass: `mass`, or `density` (kg/m^3) over the parts without a mass, or their sum */
    lua_pushstring(L, "mass");
    bool has_mass = lua_rawget(L, 1) != LUA_TNIL;
    lua_pushstring(L, "density");
    bool has_density = lua_rawget(L, 1) != LUA_TNIL;
    lua_pop(L, 2);
    if (has_mass && has_density)
        tplError(L, "%sgive either mass or density, not both", what);
    double given = 0.0, vfree = 0.0;
    int nfree = 0;
    for (int k = 0; k < n; k++) {
        if (parts[k].mass > 0) {
            given += parts[k].mass;
        } else {
            vfree += tpPart_Volume(&parts[k]);
            nfree++;
        }
    }
    if (has_mass) {
        b->def.mass = tplNumber(L, 1, what, "mass", 0.0, false);
        if (!(b->def.mass > 0))
            tplError(L, "%smass must be > 0 (got %g)", what, b->def.mass);
    } else if (has_density) {
        double density = tplNumber(L, 1, what, "density", 0.0, false);
        if (!(density > 0))
            tplError(L, "%sdensity must be > 0 (got %g)", what, density);
        b->def.mass = given + density * vfree;
    } else if (nfree == 0) {
        b->def.mass = given;
    } else if (dynamic) {
        tplError(L, "%s'mass' or 'density' is required for a moving compound (or a mass on every part)", what);
    }
}

void tplCompoundCentre(lua_State *L, tplBody *b, const char *what)
{
    char err[400];
    /* the parts are this body's own userdata (tplCompoundRead, tplCompoundStore) */
    if (!tpCompound_Centre(&b->def, (tpPartDef *)(uintptr_t)b->def.parts, err, sizeof err))
        tplError(L, "%s%s", what, err);
}
