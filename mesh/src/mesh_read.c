/* tplan mesh: tpMesh_Read, a mesh from the bytes of a file by its format: Wavefront OBJ and STL
 * (mesh.c's readers) or glTF (gltf_scene.c: every node's mesh placed by its world pose), then the
 * axes and scale. Above both readers, so neither depends on the other. */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "gltf_internal.h"
#include "tp/base.h"
#include "mesh_internal.h"
#include "tp/base.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (n < m)
        return false;
    for (size_t i = 0; i < m; i++)
        if (tolower((unsigned char)s[n - m + i]) != suffix[i])
            return false;
    return true;
}

bool tpMesh_Read(const char *name, const void *data, size_t len, const tpMeshLimits *limits, bool y_up, double scale,
                 tpMesh *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    tpMeshLimits lim = limits ? *limits : tpDefaultMeshLimits();
    if (!(scale > 0) || !isfinite(scale)) {
        tpErrorf(err, errlen, "%s: scale must be > 0 (got %g)", name, scale);
        return false;
    }
    if (len > lim.max_bytes) {
        tpErrorf(err, errlen, "%s: %zu bytes, more than the %zu allowed", name, len, lim.max_bytes);
        return false;
    }
    const unsigned char *d = data;
    bool glb = len >= 4 && memcmp(d, "glTF", 4) == 0;
    if (glb || ends_with(name, ".glb") || ends_with(name, ".gltf")) {
        tpGltfScene sc;
        if (!tpGltf_ReadScene(name, data, len, &lim, NULL, 0, &sc, err, errlen))
            return false;
        /* every node's mesh placed by its world pose */
        tpMeshBuild b = {.name = name, .limits = lim, .err = err, .errlen = errlen};
        bool ok = true;
        for (int n = 0; ok && n < sc.nnodes; n++) {
            const tpGltfNode *nd = &sc.nodes[n];
            double R[9];
            tpMesh_QuatToMatrix(nd->quat, R);
            int base = b.mesh.nvertices;
            for (int i = 0; ok && i < nd->mesh.nvertices; i++) {
                const double *v = nd->mesh.vertices + 3 * i;
                double w[3];
                for (int k = 0; k < 3; k++)
                    w[k] = (R[3 * k] * v[0] + R[3 * k + 1] * v[1] + R[3 * k + 2] * v[2] + nd->pos[k]) * scale;
                ok = tpMeshB_AddVertex(&b, w);
            }
            for (int t = 0; ok && t < nd->mesh.ntriangles; t++) {
                const int32_t *tr = nd->mesh.triangles + 3 * t;
                ok = tpMeshB_AddTriangle(&b, base + tr[0], base + tr[1], base + tr[2]);
            }
        }
        tpGltfScene_Free(&sc);
        if (!tpMeshB_Finish(&b, ok, "the scene has no triangles")) {
            return false;
        }
        *out = b.mesh;
        return true;
    }
    tpMeshBuild b = {.name = name, .limits = lim, .err = err, .errlen = errlen};
    bool ok;
    if (ends_with(name, ".obj")) {
        ok = tpMeshI_ReadObj(&b, data, len);
    } else if (ends_with(name, ".stl") || tpMeshI_IsBinaryStl(d, len)) {
        ok = tpMeshI_ReadStl(&b, d, len);
    } else {
        tpErrorf(err, errlen, "%s: unknown mesh format (use .obj, .stl, .gltf or .glb)", name);
        ok = false;
    }
    if (!tpMeshB_Finish(&b, ok, "no triangles")) {
        return false;
    }
    tpMesh_Transform(&b.mesh, y_up, scale);
    TP_VALIDATE(tpMesh_Valid, &b.mesh);
    *out = b.mesh;
    return true;
}
