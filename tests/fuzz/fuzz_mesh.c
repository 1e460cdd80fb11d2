/* Fuzz target: the mesh readers (tpMesh_Read for OBJ, STL, glTF and GLB; tpGltf_ReadScene) and
 * what the physics runs on an accepted mesh (tpMesh_CheckClosed, tpMesh_MassProperties). The first
 * byte picks the file name's extension (0 .obj, 1 .stl, 2 .gltf, 3 .glb), the rest is the file.
 * Every input must be refused with a message naming the file, or give a mesh whose indices are in
 * range, whose coordinates are finite and whose counts are within the caps. Small caps keep each
 * input fast. */
#include <math.h>
#include <string.h>

#include "fuzz_util.h"
#include "tp/mesh.h"

static void checkMesh(const tpMesh *m, const tpMeshLimits *lim, const char *what)
{
    if (m->nvertices < 0 || m->nvertices > lim->max_vertices || m->ntriangles < 0 || m->ntriangles > lim->max_triangles)
        tpFuzz_Fail("%s: %d vertices, %d triangles beyond the caps", what, m->nvertices, m->ntriangles);
    for (int i = 0; i < 3 * m->nvertices; i++)
        if (!isfinite(m->vertices[i]))
            tpFuzz_Fail("%s: vertex %d not finite", what, i / 3);
    for (int i = 0; i < 3 * m->ntriangles; i++)
        if (m->triangles[i] < 0 || m->triangles[i] >= m->nvertices)
            tpFuzz_Fail("%s: index %d of triangle %d out of range", what, (int)m->triangles[i], i / 3);
    tpMeshView v = tpMesh_View(m);
    char why[256];
    if (tpMesh_CheckClosed(&v, why, sizeof why)) {
        double vol, com[3], I[9];
        tpMesh_MassProperties(&v, &vol, com, I);
        if (!(vol > 0) || !isfinite(com[0] + com[1] + com[2]))
            tpFuzz_Fail("%s: a closed mesh with volume %g", what, vol);
    } else if (why[0] == '\0') {
        tpFuzz_Fail("%s: refused as a solid without a reason", what);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const char *const names[4] = {"fuzz.obj", "fuzz.stl", "fuzz.gltf", "fuzz.glb"};
    const char *name = names[data[0] & 3];
    tpMeshLimits lim = tpDefaultMeshLimits();
    lim.max_vertices = 20000;
    lim.max_triangles = 40000;
    lim.max_nodes = 500;
    char err[1024] = "";
    tpMesh m;
    if (tpMesh_Read(name, data + 1, size - 1, &lim, (data[0] & 4) != 0, 1.0, &m, err, sizeof err)) {
        checkMesh(&m, &lim, name);
        tpMesh_Free(&m);
    } else if (strncmp(err, name, strlen(name)) != 0 || strlen(err) < strlen(name) + 4) {
        tpFuzz_Fail("refusal without a proper message: \"%s\"", err);
    }
    if ((data[0] & 3) >= 2) {
        tpGltfScene sc;
        if (tpGltf_ReadScene(name, data + 1, size - 1, &lim, NULL, 0, &sc, err, sizeof err)) {
            for (int i = 0; i < sc.nnodes; i++) {
                const tpGltfNode *nd = &sc.nodes[i];
                double qn = nd->quat[0] * nd->quat[0] + nd->quat[1] * nd->quat[1] + nd->quat[2] * nd->quat[2] +
                            nd->quat[3] * nd->quat[3];
                if (!(fabs(qn - 1) < 1e-6) || !isfinite(nd->pos[0] + nd->pos[1] + nd->pos[2]) ||
                    memchr(nd->name, '\0', sizeof nd->name) == NULL)
                    tpFuzz_Fail("node %d: bad pose or name", i);
                checkMesh(&nd->mesh, &lim, nd->name);
            }
            tpGltfScene_Free(&sc);
        } else if (strncmp(err, name, strlen(name)) != 0) {
            tpFuzz_Fail("scene refusal without a proper message: \"%s\"", err);
        }
    }
    return 0;
}
