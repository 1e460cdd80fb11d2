/* tplan lua: mesh bodies (tp.mesh, its file reading) and glTF scenes (tp.scene). Files are read
 * through the sandbox (inside the script's folder, capped); the readers are tp/mesh.h's. */
#include "lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tplMeshRead(lua_State *L, const char *what, const char *file, bool y_up, double scale, tpMesh *out)
{
    const tpMeshLimits lim = tpDefaultMeshLimits();
    char label[256];
    snprintf(label, sizeof label, "%sfile", what);
    const char *path = tplDataPath(L, label, file);
    char err[512];
    size_t len = 0;
    char *data = tplReadData(L, path, lim.max_bytes, &len, err, sizeof err);
    lua_pop(L, 1); /* path */
    if (!data)
        tplError(L, "%s%s", what, err);
    bool ok = tpMesh_Read(file, data, len, &lim, y_up, scale, out, err, sizeof err);
    free(data);
    if (!ok)
        tplError(L, "%s%s", what, err);
}

void tplMeshAttach(lua_State *L, int bidx, tplBody *b, tpMesh *m, const char *file, double mass, double density,
                   double com[3])
{
    bidx = lua_absindex(L, bidx);
    const bool moving = b->def.cls != TP_BODY_STATIC;
    double vol = 0, I[9];
    com[0] = com[1] = com[2] = 0;
    if (moving) {
        char why[256];
        tpMeshView v = tpMesh_View(m);
        if (!tpMesh_CheckClosed(&v, why, sizeof why)) {
            tpMesh_Free(m);
            tplError(L, "%s '%s': %s cannot be a moving body: %s", b->ctor, b->def.name, file, why);
        }
        tpMesh_MassProperties(&v, &vol, com, I);
        for (int i = 0; i < m->nvertices; i++)
            for (int k = 0; k < 3; k++)
                m->vertices[3 * i + k] -= com[k];
    }
    /* one userdata holds the arrays: collected with the body, counted by the memory limit */
    size_t vbytes = (size_t)m->nvertices * 3 * sizeof(double), tbytes = (size_t)m->ntriangles * 3 * sizeof(int32_t);
    unsigned char *store = lua_newuserdatauv(L, vbytes + tbytes, 0);
    memcpy(store, m->vertices, vbytes);
    memcpy(store + vbytes, m->triangles, tbytes);
    b->def.mesh.nvertices = m->nvertices;
    b->def.mesh.ntriangles = m->ntriangles;
    b->def.mesh.vertices = (const double *)(void *)store;
    b->def.mesh.triangles = (const int32_t *)(void *)(store + vbytes);
    tpMesh_Free(m);
    lua_setiuservalue(L, bidx, 3);
    if (moving) {
        b->def.mass = mass > 0 ? mass : density * vol;
        if (!(b->def.mass > 0) && (mass > 0 || density > 0))
            tplError(L, "%s '%s': mass %g kg from density %g and volume %g m^3 is not positive", b->ctor, b->def.name,
                     b->def.mass, density, vol);
    }
    /* what viewers and recordings show: the box about the origin holding the mesh */
    double lo[3], hi[3];
    tpMesh_Bounds(&b->def.mesh, lo, hi);
    for (int k = 0; k < 3; k++)
        b->def.size[k] = 2.0 * fmax(fabs(lo[k]), fabs(hi[k]));
}

void tplMeshPlace(tplBody *b, const double com[3])
{
    for (int k = 0; k < 3; k++)
        b->def.mesh_origin[k] = -com[k];
    double q[4], R[9];
    memcpy(q, b->def.quat, sizeof q);
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++)
        q[k] = n > 0 ? q[k] / n : (k == 0);
    tpQuat_ToMatrix(q, R);
    for (int k = 0; k < 3; k++)
        b->def.pos[k] += R[3 * k] * com[0] + R[3 * k + 1] * com[1] + R[3 * k + 2] * com[2];
}

/* ------------------------------------------------------------------------------------------ */
/* tp.scene                                                                                    */

static const char *const tplSceneOptFields[] = {"data", "default", "density", "color", NULL};

/* Appends a warning to the registry's list tp.domain adds to the domain's warnings. */
static void tplSceneNote(lua_State *L, const char *where, const char *msg)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_SCENE_NOTES) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, TPL_REG_SCENE_NOTES);
    }
    lua_pushfstring(L, "%stp.scene: %s", where, msg);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
}

/* A copy of malloc'd bytes as a userdata (collected with the call's values, so that an error raised
 * later leaks nothing); frees the malloc'd ones. Pushes the userdata, returns its bytes. */
static const char *tplKeepBytes(lua_State *L, char *bytes, size_t len)
{
    char *ud = lua_newuserdatauv(L, len + 1, 0);
    memcpy(ud, bytes, len);
    ud[len] = '\0';
    free(bytes);
    return ud;
}

/* Compound bodies' storage (also tp.compound's, compound_ctor.c) */

/* A new table (the body's keep list) as user value 3 of the body at bidx, and on the stack. */
int tplKeepTable(lua_State *L, int bidx)
{
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, bidx, 3);
    return lua_gettop(L);
}

/* A copy of a mesh's arrays in a userdata appended to the keep table; p->mesh then points at it. */
void tplKeepMesh(lua_State *L, int keep, tpPartDef *p, const tpMeshView *m)
{
    size_t vbytes = (size_t)m->nvertices * 3 * sizeof(double), tbytes = (size_t)m->ntriangles * 3 * sizeof(int32_t);
    unsigned char *store = lua_newuserdatauv(L, vbytes + tbytes, 0);
    memcpy(store, m->vertices, vbytes);
    memcpy(store + vbytes, m->triangles, tbytes);
    p->mesh.nvertices = m->nvertices;
    p->mesh.ntriangles = m->ntriangles;
    p->mesh.vertices = (const double *)(void *)store;
    p->mesh.triangles = (const int32_t *)(void *)(store + vbytes);
    lua_rawseti(L, keep, (lua_Integer)lua_rawlen(L, keep) + 1);
}

tpPartDef *tplKeepParts(lua_State *L, int keep, int n)
{
    tpPartDef *parts = lua_newuserdatauv(L, (size_t)n * sizeof *parts, 0);
    for (int k = 0; k < n; k++)
        parts[k] = tpDefaultPartDef();
    lua_rawseti(L, keep, (lua_Integer)lua_rawlen(L, keep) + 1);
    return parts;
}

void tplCompoundStore(lua_State *L, int bidx, tplBody *b, const tpPartDef *src, int n)
{
    bidx = lua_absindex(L, bidx);
    int keep = tplKeepTable(L, bidx);
    tpPartDef *parts = tplKeepParts(L, keep, n);
    for (int k = 0; k < n; k++) {
        parts[k] = src[k];
        if (src[k].shape == TP_SHAPE_MESH)
            tplKeepMesh(L, keep, &parts[k], &src[k].mesh);
    }
    lua_pop(L, 1); /* keep */
    b->def.shape = TP_SHAPE_COMPOUND;
    b->def.parts = parts;
    b->def.nparts = n;
}

/* A moving body of several colliders (TP_GLTF_SHAPE_COMPOUND): a compound of one part each, its
 * mass the body's or `density` over the parts' volume, its frame moved to its centre of mass (the
 * node's origin recorded as the compound's origin). Frees `keep` before raising. */
static void tplSceneCompound(lua_State *L, const char *file, const tpGltfNode *nd, tpGltfScene *keep, tplBody *b,
                             bool dynamic, double density)
{
    static const tpShapeKind kinds[] = {
        [TP_GLTF_SHAPE_MESH] = TP_SHAPE_MESH,         [TP_GLTF_SHAPE_BOX] = TP_SHAPE_BOX,
        [TP_GLTF_SHAPE_SPHERE] = TP_SHAPE_SPHERE,     [TP_GLTF_SHAPE_CAPSULE] = TP_SHAPE_CAPSULE,
        [TP_GLTF_SHAPE_CYLINDER] = TP_SHAPE_CYLINDER, [TP_GLTF_SHAPE_PLANE] = TP_SHAPE_PLANE,
        [TP_GLTF_SHAPE_COMPOUND] = TP_SHAPE_COMPOUND};
    tpPartDef parts[TP_MAX_PARTS];
    const int n = nd->nparts < TP_MAX_PARTS ? nd->nparts : TP_MAX_PARTS;
    double vol = 0.0;
    for (int k = 0; k < n; k++) {
        const tpGltfPart *gp = &nd->parts[k];
        parts[k] = tpDefaultPartDef();
        parts[k].shape = kinds[gp->shape];
        memcpy(parts[k].size, gp->size, sizeof parts[k].size);
        memcpy(parts[k].pos, gp->pos, sizeof parts[k].pos);
        memcpy(parts[k].quat, gp->quat, sizeof parts[k].quat);
        parts[k].mesh = tpMesh_View(&gp->mesh);
        char why[256];
        if (gp->shape == TP_GLTF_SHAPE_MESH && b->def.cls != TP_BODY_STATIC &&
            !tpMesh_CheckClosed(&parts[k].mesh, why, sizeof why)) {
            char name[TP_GLTF_NAME_MAX];
            snprintf(name, sizeof name, "%s", gp->name);
            tpGltfScene_Free(keep);
            tplError(L, "tp.scene: %s: node '%s' (collider '%s' of a moving body) cannot be a part: its mesh %s", file,
                     b->def.name, name, why);
        }
        vol += tpPart_Volume(&parts[k]);
    }
    tplCompoundStore(L, -1, b, parts, n); /* copies the meshes: the scene may go */
    b->def.mass = !dynamic ? 0.0 : nd->mass > 0 ? nd->mass : density * vol;
    char err[400];
    if (dynamic && !tpCompound_Centre(&b->def, (tpPartDef *)(uintptr_t)b->def.parts, err, sizeof err)) {
        tpGltfScene_Free(keep);
        tplError(L, "tp.scene: %s: node '%s': %s", file, b->def.name, err);
    }
}

/* The body of scene node nd into a new tp body userdata (pushed). */
static void tplSceneBody(lua_State *L, const char *file, tpGltfNode *nd, tpGltfScene *keep, const float color[4],
                         double def_density)
{
    tplBody *b = lua_newuserdatauv(L, sizeof *b, 3);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, TPL_BODY);
    b->ctor = "tp.scene";
    b->def = tpDefaultBodyDef();
    snprintf(b->def.name, sizeof b->def.name, "%s", nd->name);
    b->def.cls = nd->cls == TP_GLTF_PASSIVE || nd->cls == TP_GLTF_KINEMATIC ? TP_BODY_PASSIVE
                 : nd->cls == TP_GLTF_ACTIVE                                ? TP_BODY_ACTIVE
                                                                            : TP_BODY_STATIC;
    memcpy(b->def.color, color, 4 * sizeof *color);
    memcpy(b->def.pos, nd->pos, sizeof nd->pos);
    memcpy(b->def.quat, nd->quat, sizeof nd->quat);
    snprintf(b->material, sizeof b->material, "%s", nd->material);
    b->def.marker = nd->marker;
    if (nd->cls == TP_GLTF_KINEMATIC) {
        /* moved by its initial velocities: a scripted (foreign) body on tp.linear or tp.rotate */
        b->def.cls = TP_BODY_FOREIGN;
        b->def.motion.axis[2] = 1.0;
        b->def.motion.period = 1.0;
        const double *v = nd->vel, *w = nd->angvel;
        if (v[0] != 0 || v[1] != 0 || v[2] != 0) {
            b->def.motion.kind = TP_MOTION_LINEAR;
            memcpy(b->def.motion.vel, v, 3 * sizeof *v);
        } else {
            const double n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
            b->def.motion.kind = TP_MOTION_ROTATE;
            b->def.motion.rate = n;
            for (int k = 0; k < 3; k++)
                b->def.motion.axis[k] = w[k] / n;
        }
    } else if (b->def.cls != TP_BODY_STATIC) {
        memcpy(b->def.vel, nd->vel, sizeof nd->vel);
        memcpy(b->def.angvel, nd->angvel, sizeof nd->angvel);
    }
    const bool dynamic = b->def.cls == TP_BODY_PASSIVE || b->def.cls == TP_BODY_ACTIVE;
    double density = nd->density > 0 ? nd->density : def_density;
    if (dynamic && !(nd->mass > 0) && !(density > 0)) {
        tpGltfScene_Free(keep);
        tplError(L,
                 "tp.scene: %s: node '%s' moves but has no mass (OMI_physics_body or KHR_physics_rigid_bodies "
                 "motion.mass, extras.mass or extras.density; or tp.scene's density option)",
                 file, b->def.name);
    }
    switch (nd->shape) {
    case TP_GLTF_SHAPE_BOX:
    case TP_GLTF_SHAPE_SPHERE:
    case TP_GLTF_SHAPE_CAPSULE:
    case TP_GLTF_SHAPE_CYLINDER: {
        static const tpShapeKind kinds[] = {[TP_GLTF_SHAPE_BOX] = TP_SHAPE_BOX,
                                            [TP_GLTF_SHAPE_SPHERE] = TP_SHAPE_SPHERE,
                                            [TP_GLTF_SHAPE_CAPSULE] = TP_SHAPE_CAPSULE,
                                            [TP_GLTF_SHAPE_CYLINDER] = TP_SHAPE_CYLINDER};
        b->def.shape = kinds[nd->shape];
        memcpy(b->def.size, nd->size, sizeof nd->size);
        if (dynamic) {
            double vol = nd->shape == TP_GLTF_SHAPE_BOX      ? nd->size[0] * nd->size[1] * nd->size[2]
                         : nd->shape == TP_GLTF_SHAPE_SPHERE ? 4.0 / 3.0 * TP_PI * pow(nd->size[0], 3)
                         : nd->shape == TP_GLTF_SHAPE_CYLINDER
                             ? TP_PI * nd->size[0] * nd->size[0] * nd->size[1]
                             : TP_PI * nd->size[0] * nd->size[0] * (nd->size[1] + 4.0 / 3.0 * nd->size[0]);
            b->def.mass = nd->mass > 0 ? nd->mass : density * vol;
        }
        break;
    }
    case TP_GLTF_SHAPE_PLANE: {
        double R[9];
        tpQuat_ToMatrix(nd->quat, R);
        b->def.shape = TP_SHAPE_PLANE;
        b->def.plane[0] = R[2];
        b->def.plane[1] = R[5];
        b->def.plane[2] = R[8];
        b->def.plane[3] = R[2] * nd->pos[0] + R[5] * nd->pos[1] + R[8] * nd->pos[2];
        break;
    }
    case TP_GLTF_SHAPE_MESH: {
        b->def.shape = TP_SHAPE_MESH;
        char where[TP_GLTF_NAME_MAX + 300];
        snprintf(where, sizeof where, "%s (node '%s')", file, nd->name);
        double com[3];
        tpMesh m = nd->mesh;
        memset(&nd->mesh, 0, sizeof nd->mesh); /* tplMeshAttach frees it */
        if (b->def.cls != TP_BODY_STATIC) {
            char why[256];
            tpMeshView v = tpMesh_View(&m);
            if (!tpMesh_CheckClosed(&v, why, sizeof why)) {
                tpMesh_Free(&m);
                tpGltfScene_Free(keep);
                tplError(L, "tp.scene: %s: node '%s' cannot be a moving body: its mesh %s", file, b->def.name, why);
            }
        }
        tplMeshAttach(L, -1, b, &m, where, nd->mass, density, com);
        if (b->def.cls == TP_BODY_FOREIGN)
            b->def.mass = 0;
        tplMeshPlace(b, com);
        break;
    }
    case TP_GLTF_SHAPE_COMPOUND:
        tplSceneCompound(L, file, nd, keep, b, dynamic, density);
        break;
    }
    tplPushWhere(L);
    lua_setiuservalue(L, -2, 1);
}

/* The joints of a scene as tp.joint values, in a new table (pushed): tp.domain resolves their
 * body names as it does a script's. */
static void tplSceneJoints(lua_State *L, const tpGltfScene *sc)
{
    lua_createtable(L, sc->njoints, 0);
    for (int i = 0; i < sc->njoints; i++) {
        const tpGltfJoint *gj = &sc->joints[i];
        tplJoint *j = lua_newuserdatauv(L, sizeof *j, 1);
        memset(j, 0, sizeof *j);
        luaL_setmetatable(L, TPL_JOINT);
        j->def = tpDefaultJointDef();
        snprintf(j->def.name, sizeof j->def.name, "%s", gj->name);
        j->def.kind = (tpJointKind)gj->kind;
        snprintf(j->a, sizeof j->a, "%s", gj->a);
        snprintf(j->b, sizeof j->b, "%s", gj->b);
        memcpy(j->def.anchor, gj->anchor, sizeof j->def.anchor);
        memcpy(j->def.anchor2, gj->anchor2, sizeof j->def.anchor2);
        memcpy(j->def.axis, gj->axis, sizeof j->def.axis);
        memcpy(j->def.axis2, gj->axis2, sizeof j->def.axis2);
        j->has_anchor = true;
        j->has_anchor2 = gj->kind == TP_GLTF_JOINT_DISTANCE;
        j->def.length = gj->kind == TP_GLTF_JOINT_DISTANCE ? gj->length : -1.0;
        j->def.collide = gj->collide;
        for (int k = 0; k < 2; k++) {
            const tpGltfJointAxis *x = &gj->axes[k];
            tpJointAxisDef *d = &j->def.axes[k];
            d->limit = x->limit;
            d->lo = x->lo;
            d->hi = x->hi;
            d->stiffness = x->spring ? x->stiffness : 0.0;
            d->damping = x->spring ? x->damping : 0.0;
            d->rest = x->spring ? x->rest : 0.0;
            d->motor = x->motor;
            d->speed = x->speed;
            d->max_force = x->max_force;
        }
        tplPushWhere(L);
        lua_setiuservalue(L, -2, 1);
        lua_rawseti(L, -2, i + 1);
    }
}

/* Grows the world-space box (lo, hi) and the radius about pos by the body-frame point v (R the
   body's rotation, row-major). */
static void tplBoundsAdd(const double R[9], const double pos[3], const double v[3], double lo[3], double hi[3],
                         double *radius)
{
    double r2 = 0;
    for (int k = 0; k < 3; k++) {
        double w = R[3 * k] * v[0] + R[3 * k + 1] * v[1] + R[3 * k + 2] * v[2];
        lo[k] = fmin(lo[k], pos[k] + w);
        hi[k] = fmax(hi[k], pos[k] + w);
        r2 += w * w;
    }
    *radius = fmax(*radius, sqrt(r2));
}

/* The world-space box (lo, hi) and bounding-sphere radius about its position of a body. */
static void tplBodyBounds(const tpBodyDef *d, double lo[3], double hi[3], double *radius)
{
    double q[4], R[9], n = 0;
    for (int k = 0; k < 4; k++)
        n += d->quat[k] * d->quat[k];
    n = sqrt(n);
    for (int k = 0; k < 4; k++)
        q[k] = n > 0 ? d->quat[k] / n : (k == 0);
    tpQuat_ToMatrix(q, R);
    double half[3] = {0, 0, 0};
    *radius = 0;
    for (int k = 0; k < 3; k++) { /* empty: a mesh's and a compound's points grow it */
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    if (d->shape == TP_SHAPE_MESH) {
        for (int i = 0; i < d->mesh.nvertices; i++) {
            tplBoundsAdd(R, d->pos, d->mesh.vertices + 3 * i, lo, hi, radius);
        }
        return;
    }
    if (d->shape == TP_SHAPE_COMPOUND) { /* the corners of its parts' box */
        double blo[3], bhi[3];
        tpCompound_Bounds(d, blo, bhi);
        for (int c = 0; c < 8; c++) {
            const double v[3] = {c & 1 ? bhi[0] : blo[0], c & 2 ? bhi[1] : blo[1], c & 4 ? bhi[2] : blo[2]};
            tplBoundsAdd(R, d->pos, v, lo, hi, radius);
        }
        return;
    }
    const double r = d->size[0], len = d->size[1];
    for (int k = 0; k < 3; k++) {
        const double a = fabs(R[3 * k + 2]); /* the shape's axis (z) along world axis k */
        switch (d->shape) {
        case TP_SHAPE_BOX:
            half[k] = 0.5 * (fabs(R[3 * k]) * d->size[0] + fabs(R[3 * k + 1]) * d->size[1] + a * d->size[2]);
            break;
        case TP_SHAPE_SPHERE:
            half[k] = r;
            break;
        case TP_SHAPE_CAPSULE:
            half[k] = 0.5 * len * a + r;
            break;
        default: /* cylinder */
            half[k] = 0.5 * len * a + r * sqrt(fmax(0.0, 1 - a * a));
            break;
        }
        lo[k] = d->pos[k] - half[k];
        hi[k] = d->pos[k] + half[k];
    }
    *radius = d->shape == TP_SHAPE_BOX
                  ? 0.5 * sqrt(d->size[0] * d->size[0] + d->size[1] * d->size[1] + d->size[2] * d->size[2])
              : d->shape == TP_SHAPE_SPHERE ? r
                                            : 0.5 * len + r;
}

static void tplPushVec3(lua_State *L, const double v[3])
{
    lua_createtable(L, 3, 0);
    for (int k = 0; k < 3; k++) {
        lua_pushnumber(L, v[k]);
        lua_rawseti(L, -2, k + 1);
    }
}

int tplSceneFile(lua_State *L)
{
    const char *file = luaL_checkstring(L, 1);
    char what[160];
    snprintf(what, sizeof what, "tp.scene: ");
    char def_class[16] = "static";
    double def_density = 0;
    float color[4] = {0.8f, 0.8f, 0.8f, 1.0f};
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        tplCheckFields(L, 2, "tp.scene", tplSceneOptFields, 0);
        tplString(L, 2, what, "default", def_class, sizeof def_class);
        if (strcmp(def_class, "static") != 0 && strcmp(def_class, "skip") != 0)
            tplError(L, "tp.scene: default must be \"static\" or \"skip\" (got \"%s\")", def_class);
        def_density = tplNumber(L, 2, what, "density", 0.0, false);
        if (!(def_density >= 0))
            tplError(L, "tp.scene: density must be > 0 (got %g)", def_density);
        double c[4] = {0.8, 0.8, 0.8, 1};
        if (tplVector(L, 2, what, "color", c, 3, 4, false))
            for (int k = 0; k < 4; k++) {
                if (!(c[k] >= 0 && c[k] <= 1))
                    tplError(L, "tp.scene: color[%d] must be in [0, 1] (got %g)", k + 1, c[k]);
                color[k] = (float)c[k];
            }
    }
    const tpMeshLimits lim = tpDefaultMeshLimits();
    char err[512];
    size_t len = 0;
    const char *data = NULL;
    bool from_data = false;
    /* data = the file's bytes in the script itself: a script without a folder (a job of tplan
     * serve, the Blender add-on's) can carry its scene; `file` then only names it in messages */
    if (!lua_isnoneornil(L, 2) && lua_getfield(L, 2, "data") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING)
            tplError(L, "tp.scene: data: expected a string (the bytes of a .glb or .gltf file), got %s",
                     luaL_typename(L, -1));
        data = lua_tolstring(L, -1, &len); /* kept on the stack */
        if (len > lim.max_bytes)
            tplError(L, "tp.scene: %s: data of %zu bytes, more than the %zu allowed", file, len, lim.max_bytes);
        from_data = true;
    } else {
        if (!lua_isnoneornil(L, 2))
            lua_pop(L, 1);
        const char *path = tplDataPath(L, "tp.scene", file);
        char *bytes = tplReadData(L, path, lim.max_bytes, &len, err, sizeof err);
        lua_pop(L, 1);
        if (!bytes)
            tplError(L, "tp.scene: %s", err);
        data = tplKeepBytes(L, bytes, len);
    }
    /* a .gltf's external buffers: files beside it, read through the same sandbox as the file */
    enum { MAX_FILES = 64 };
    const char *uris[MAX_FILES];
    tpGltfFile files[MAX_FILES];
    int nuris = 0;
    char *store = NULL;
    if (!tpGltf_BufferUris(file, data, len, uris, MAX_FILES, &nuris, &store, err, sizeof err))
        tplError(L, "tp.scene: %s", err);
    if (store) {
        size_t slen = 0;
        for (int i = 0; i < nuris; i++)
            slen = (size_t)(uris[i] - store) + strlen(uris[i]) + 1;
        const char *kept = tplKeepBytes(L, store, slen);
        for (int i = 0; i < nuris; i++)
            uris[i] = kept + (uris[i] - store);
    }
    size_t total = len;
    for (int i = 0; i < nuris; i++) {
        memset(&files[i], 0, sizeof files[i]);
        files[i].uri = uris[i];
        if (from_data) {
            files[i].why = "the scene came as data (no folder to read it from): export as .glb";
            continue;
        }
        char rel[1024];
        if (!tpGltf_UriPath(file, uris[i], rel, sizeof rel))
            tplError(L, "tp.scene: %s: buffer uri \"%s\" is too long", file, uris[i]);
        char label[1200];
        snprintf(label, sizeof label, "tp.scene: %s: buffer", file);
        const char *path = tplDataPath(L, label, rel);
        size_t flen = 0;
        char *bytes = tplReadData(L, path, lim.max_bytes - (total < lim.max_bytes ? total : lim.max_bytes), &flen, err,
                                  sizeof err);
        lua_pop(L, 1);
        if (!bytes) {
            lua_pushstring(L, err);
            files[i].why = lua_tostring(L, -1); /* kept on the stack */
            continue;
        }
        total += flen;
        files[i].data = tplKeepBytes(L, bytes, flen);
        files[i].len = flen;
    }
    tpGltfScene sc;
    bool ok = tpGltf_ReadScene(file, data, len, &lim, files, nuris, &sc, err, sizeof err);
    if (!ok)
        tplError(L, "tp.scene: %s", err);
    /* the scene is freed (tpGltfScene_Free) before any error is raised while building bodies */
    tpGltfScene *keep = lua_newuserdatauv(L, sizeof *keep, 0);
    *keep = sc;
    int keep_idx = lua_gettop(L);
    tplPushWhere(L);
    char where[512];
    snprintf(where, sizeof where, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    lua_newtable(L);
    int out = lua_gettop(L);
    int n = 0;
    char skipped[300] = "";
    int nskipped = 0, shown = 0;
    for (int i = 0; i < keep->nnodes; i++) {
        tpGltfNode *nd = &keep->nodes[i];
        if (nd->cls == TP_GLTF_NONE && strcmp(def_class, "skip") == 0) {
            size_t at = strlen(skipped);
            if (at + strlen(nd->name) + 3 < sizeof skipped) {
                snprintf(skipped + at, sizeof skipped - at, "%s%s", at ? ", " : "", nd->name);
                shown++;
            }
            nskipped++;
            continue;
        }
        tplSceneBody(L, file, nd, keep, color, def_density);
        lua_rawseti(L, out, ++n);
    }
    if (nskipped > 0) {
        lua_pushfstring(L,
                        "%s: mesh nodes without physics skipped (default = \"skip\"; mark them with "
                        "extras.tplan_class or a physics extension): %s%s",
                        file, skipped, nskipped > shown ? " and more" : "");
        tplSceneNote(L, where, lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    for (int i = 0; i < keep->nwarnings; i++)
        tplSceneNote(L, where, keep->warnings[i]);
    tplSceneJoints(L, keep); /* the fourth result, kept at keep_idx + 2 */
    lua_insert(L, keep_idx + 1);
    const int nmeshnodes = keep->nmeshnodes;
    char first[TP_GLTF_WARNING_MAX + 16] = "";
    if (keep->nwarnings > 0)
        snprintf(first, sizeof first, " (%s)", keep->warnings[0]);
    tpGltfScene_Free(keep);
    if (n == 0)
        tplError(L, "tp.scene: %s: no bodies: %s%s", file,
                 nmeshnodes == 0 ? "the scene has no node with a mesh, a collider or a trigger"
                 : nskipped > 0  ? "no node of the scene has physics (OMI_physics_body, KHR_physics_rigid_bodies or "
                                   "extras.tplan_class) and default = \"skip\""
                                 : "none of its nodes makes a body",
                 first);
    lua_remove(L, keep_idx);
    /* second result: the bodies' names, in the same order (bodies are opaque values) */
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, -2, i);
        const tplBody *b = lua_touserdata(L, -1);
        lua_pushstring(L, b->def.name);
        lua_rawseti(L, -3, i);
        lua_pop(L, 1);
    }
    /* third result: the regions of the triggers (marker bodies), name -> {center, min, max,
       radius}, world frame (m): ready for tp.inside / tp.within goals and conditions */
    lua_newtable(L);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, -3, i);
        const tplBody *b = lua_touserdata(L, -1);
        lua_pop(L, 1);
        if (!b->def.marker || b->def.shape == TP_SHAPE_PLANE)
            continue;
        double lo[3], hi[3], r;
        tplBodyBounds(&b->def, lo, hi, &r);
        lua_createtable(L, 0, 4);
        tplPushVec3(L, b->def.pos);
        lua_setfield(L, -2, "center");
        tplPushVec3(L, lo);
        lua_setfield(L, -2, "min");
        tplPushVec3(L, hi);
        lua_setfield(L, -2, "max");
        lua_pushnumber(L, r);
        lua_setfield(L, -2, "radius");
        lua_setfield(L, -2, b->def.name);
    }
    lua_pushvalue(L, -4); /* the joints */
    return 4;
}
