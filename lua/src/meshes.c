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

static const char *const tplSceneOptFields[] = {"default", "density", "color", NULL};

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
    const char *path = tplDataPath(L, "tp.scene", file);
    char err[512];
    size_t len = 0;
    char *data = tplReadData(L, path, lim.max_bytes, &len, err, sizeof err);
    lua_pop(L, 1);
    if (!data)
        tplError(L, "tp.scene: %s", err);
    tpGltfScene sc;
    bool ok = tpGltf_ReadScene(file, data, len, &lim, &sc, err, sizeof err);
    free(data);
    if (!ok)
        tplError(L, "tp.scene: %s", err);
    /* the scene is freed by a to-be-closed guard if an error is raised while building bodies */
    tpGltfScene *keep = lua_newuserdatauv(L, sizeof *keep, 0);
    *keep = sc;
    int keep_idx = lua_gettop(L);
    lua_newtable(L);
    int out = lua_gettop(L);
    int n = 0;
    for (int i = 0; i < keep->nnodes; i++) {
        tpGltfNode *nd = &keep->nodes[i];
        if (nd->cls == TP_GLTF_NONE && strcmp(def_class, "skip") == 0)
            continue;
        tplBody *b = lua_newuserdatauv(L, sizeof *b, 3);
        memset(b, 0, sizeof *b);
        luaL_setmetatable(L, TPL_BODY);
        b->ctor = "tp.scene";
        b->def = tpDefaultBodyDef();
        b->def.shape = TP_SHAPE_MESH;
        snprintf(b->def.name, sizeof b->def.name, "%s", nd->name);
        b->def.cls = nd->cls == TP_GLTF_PASSIVE  ? TP_BODY_PASSIVE
                     : nd->cls == TP_GLTF_ACTIVE ? TP_BODY_ACTIVE
                                                 : TP_BODY_STATIC;
        memcpy(b->def.color, color, sizeof color);
        memcpy(b->def.pos, nd->pos, sizeof nd->pos);
        memcpy(b->def.quat, nd->quat, sizeof nd->quat);
        snprintf(b->material, sizeof b->material, "%s", nd->material);
        double density = nd->density > 0 ? nd->density : def_density;
        if (b->def.cls != TP_BODY_STATIC && !(nd->mass > 0) && !(density > 0)) {
            tpGltfScene_Free(keep);
            tplError(L,
                     "tp.scene: %s: node '%s' moves but has no mass (OMI_physics_body motion.mass, extras.mass or "
                     "extras.density; or tp.scene's density option)",
                     file, b->def.name);
        }
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
        tplMeshPlace(b, com);
        tplPushWhere(L);
        lua_setiuservalue(L, -2, 1);
        lua_rawseti(L, out, ++n);
    }
    tpGltfScene_Free(keep);
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
    return 2;
}
