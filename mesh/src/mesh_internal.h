/* Private helpers of the mesh readers (mesh.c, mesh_gltf.c). */
#ifndef TP_MESH_INTERNAL_H
#define TP_MESH_INTERNAL_H

#include "tp/mesh.h"

/// A mesh being read: growing arrays under the file's caps; errors go to err as "name: ...".
typedef struct tpMeshBuild {
    const char *name;
    tpMeshLimits limits;
    char *err;
    size_t errlen;
    tpMesh mesh;
    size_t vcap, tcap; /* allocated vertices and triangles (tpArray_Grow) */
} tpMeshBuild;

/// Appends a vertex (finite, |x| <= 1e6) or a triangle (indices not checked here); false with a
/// message on a cap or out of memory.
bool tpMeshB_AddVertex(tpMeshBuild *b, const double v[3]);
bool tpMeshB_AddTriangle(tpMeshBuild *b, int i0, int i1, int i2);
/// Ends a build: an empty mesh is the error "name: empty", the vertices are welded and the mesh
/// put in its canonical order (tpMesh_Canonicalize); on failure the mesh is freed. Returns ok.
bool tpMeshB_Finish(tpMeshBuild *b, bool ok, const char *empty);
/// The readers of mesh.c into a build (tpMesh_Read, mesh_read.c, chooses by the file's name).
bool tpMeshI_ReadObj(tpMeshBuild *b, const char *text, size_t len);
bool tpMeshI_ReadStl(tpMeshBuild *b, const unsigned char *d, size_t len);
/// The bytes are a binary STL (its triangle count matches its size).
bool tpMeshI_IsBinaryStl(const unsigned char *d, size_t len);
/// Merges vertices with identical coordinates; false when out of memory.
bool tpMesh_Weld(tpMesh *m);
/// Puts a welded mesh in its canonical order: vertices sorted by their coordinates (x, y, z), each
/// triangle turned to start at its smallest index (its winding kept), the triangles sorted. The
/// same solid read from files that list its vertices and triangles in any order then gives the
/// same arrays bit for bit, and with them the same hull, mass properties and plans (Blender's
/// glTF exporter writes a UV sphere's triangles in an order that varies between exports). False
/// when out of memory (the mesh is unchanged).
bool tpMesh_Canonicalize(tpMesh *m);
/// Merges vertices within eps (m, on every axis) of each other into the lowest-numbered one, keeping
/// the survivors in order; *welded counts those merged that were not bit-identical to it. False when
/// out of memory (the mesh unchanged).
bool tpMesh_WeldNear(tpMesh *m, double eps, long *welded);
/// y up -> z up (x, -z, y) when y_up, then times scale.
void tpMesh_Transform(tpMesh *m, bool y_up, double scale);
/// Row-major rotation matrix of a unit quaternion (w, x, y, z).
void tpMesh_QuatToMatrix(const double q[4], double R[9]);

#endif
