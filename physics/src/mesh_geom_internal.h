/* Private to physics/: the ODE data of a mesh body (mesh_geom.c) and the polytope contacts of
 * moving hulls (mesh_collide.c). */
#ifndef TP_MESH_GEOM_INTERNAL_H
#define TP_MESH_GEOM_INTERNAL_H

#include "world_internal.h"

/// An edge of a polytope: its vertices and the faces on either side (v0 -> v1 runs
/// counter-clockwise in f0).
typedef struct tpPolyEdge {
    int v0, v1, f0, f1;
} tpPolyEdge;

/// Faces (loops counter-clockwise from outside, planes from the loops) and edges of a polytope.
typedef struct tpPolyTopo {
    int nf, ne, maxface;
    int *fstart, *fcount, *fidx; /* face f: fidx[fstart[f] .. + fcount[f]) */
    tpPolyEdge *e;
    double *plane; /* 4 per face: unit normal, offset, in the frame of the vertices given */
} tpPolyTopo;

/// The faces of the unit cube whose vertex i is ((i & 1) - 1/2, (i & 2) / 2 - 1/2, (i & 4) / 4 - 1/2),
/// counter-clockwise from outside, as face loops.
extern const unsigned tpBoxLoops[30];
/// Builds the topology of a polytope from its vertices v (3 per vertex) and face loops (per face:
/// count, then vertex indices). False when out of memory (t is then empty).
bool tpPolyTopo_Build(tpPolyTopo *t, const double *v, int nf, const unsigned *loops);
void tpPolyTopo_Free(tpPolyTopo *t);

struct tpMeshRt {
    int nvert, ntri;
    double *vertices; /* the world's copy of the mesh (3 per vertex, body frame) */
    int32_t *triangles;
    /* static: ODE's triangle mesh (for the pairs ODE collides: spheres, boxes, capsules...) and
       the world triangles in a uniform grid (for moving hulls, mesh_collide.c) */
    dTriMeshDataID tri;
    dTriIndex *indices;
    bool grid_ready;
    double *tw;                 /* 3 per vertex, world */
    double *tbox;               /* 6 per triangle: world bounding box lo, hi */
    uint32_t *tstamp;           /* per triangle: the query that saw it last */
    uint32_t stamp;             /* the current query */
    double glo[3];              /* grid origin (m) */
    double cell;                /* grid cell (m) */
    int gn[3];                  /* cells per axis */
    int *gstart, *gtri, *gfill; /* CSR: triangles of cell c are gtri[gstart[c] .. gstart[c + 1]) */
    /* moving: the hull; ODE keeps pointers to points/planes/polygons, so they live here */
    unsigned nplanes, npoints;
    double *planes;  /* 4 per face: unit normal, offset (n . x = d), as ODE wants them (inflated) */
    double *points;  /* 3 per hull vertex (inflated) */
    double *planes0; /* the uninflated planes and points */
    double *points0;
    unsigned *polygons;  /* per face: count, then the vertex indices counter-clockwise */
    double min_offset;   /* smallest plane offset (m): the inflation scale's reference */
    tpPolyTopo topo;     /* the hull's faces and edges */
    tpPolyTopo boxtopo;  /* a unit cube's (the boxes this hull meets are posed from it) */
    double *wv, *wplane; /* scratch: the hull in world coordinates */
};

/// Contacts of a moving mesh hull against a hull, a box or a static triangle mesh (either order;
/// rt NULL for a geom that is no mesh): up to cap into out, as dCollide would give them. -1 when
/// the pair is not one of those (ODE's collider serves it).
int tpMeshGeom_Collide(tpMeshRt *ra, dGeomID ga, tpMeshRt *rb, dGeomID gb, int cap, dContactGeom *out);

#endif
