/* The meshes' invariants (tpMesh_Valid, tpGltfScene_Valid, tp/mesh.h): a mesh's counts and arrays,
 * finite coordinates and triangle indices in range; a glTF scene's bodies (unique names, unit
 * orientations, shapes and classes of the enums, sizes and masses, a compound's parts), its
 * warnings and its joints (bodies among the scene's, unit axes, ordered limits). Run through
 * TP_VALIDATE when a reader returns a mesh or a scene and when tpMesh_Lathe builds one, in Debug
 * and sanitizer builds; tests/core/test_mesh_validate.c breaks each rule once. Reads only. */
#include <math.h>
#include <string.h>

#include "tp/base.h"
#include "tp/mesh.h"

#define UNIT_TOL 1e-6 /* |length - 1| of a unit quaternion or axis */

static bool finite3(const double v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static bool unit(const double *v, int n)
{
    double s = 0;
    for (int k = 0; k < n; k++)
        s += v[k] * v[k];
    return isfinite(s) && fabs(sqrt(s) - 1.0) <= UNIT_TOL;
}

static bool terminated(const char *s, size_t n)
{
    return memchr(s, '\0', n) != NULL;
}

bool tpMesh_Valid(const tpMesh *m, char *why, size_t cap)
{
    if (m->nvertices < 0 || m->ntriangles < 0) {
        return tpBroken(why, cap, "mesh: %d vertices, %d triangles", m->nvertices, m->ntriangles);
    }
    if ((m->nvertices > 0 && !m->vertices) || (m->ntriangles > 0 && !m->triangles)) {
        return tpBroken(why, cap, "mesh: %d vertices, %d triangles without their arrays", m->nvertices, m->ntriangles);
    }
    for (int i = 0; i < m->nvertices; i++) {
        if (!finite3(m->vertices + 3 * i)) {
            return tpBroken(why, cap, "mesh: vertex %d is not finite", i);
        }
    }
    for (int t = 0; t < 3 * m->ntriangles; t++) {
        if (m->triangles[t] < 0 || m->triangles[t] >= m->nvertices) {
            return tpBroken(why, cap, "mesh: triangle %d has vertex index %d of %d", t / 3, (int)m->triangles[t],
                            m->nvertices);
        }
    }
    return true;
}

static bool valid_part(const tpGltfNode *nd, int k, char *why, size_t cap)
{
    const tpGltfPart *p = &nd->parts[k];
    if (!terminated(p->name, sizeof p->name)) {
        return tpBroken(why, cap, "node '%s': part %d's name is not terminated", nd->name, k);
    }
    if (p->shape < TP_GLTF_SHAPE_MESH || p->shape > TP_GLTF_SHAPE_CYLINDER) {
        return tpBroken(why, cap,
                        "node '%s': part %d has shape %d (a compound's part is a box, sphere, capsule, "
                        "cylinder or mesh)",
                        nd->name, k, (int)p->shape);
    }
    if (!finite3(p->pos) || !unit(p->quat, 4)) {
        return tpBroken(why, cap, "node '%s': part %d's pose is not finite or its quaternion not unit", nd->name, k);
    }
    if (!finite3(p->size) || p->size[0] < 0 || p->size[1] < 0 || p->size[2] < 0) {
        return tpBroken(why, cap, "node '%s': part %d's size (%g, %g, %g)", nd->name, k, p->size[0], p->size[1],
                        p->size[2]);
    }
    if (!tpMesh_Valid(&p->mesh, why, cap)) {
        return tpBroken(why, cap, "node '%s': part %d's mesh", nd->name, k);
    }
    return true;
}

static bool valid_node(const tpGltfScene *sc, int i, char *why, size_t cap)
{
    const tpGltfNode *nd = &sc->nodes[i];
    if (!terminated(nd->name, sizeof nd->name) || !nd->name[0] || !terminated(nd->material, sizeof nd->material)) {
        return tpBroken(why, cap, "node %d: its name or material is empty or not terminated", i);
    }
    for (int j = 0; j < i; j++) {
        if (strcmp(sc->nodes[j].name, nd->name) == 0) {
            return tpBroken(why, cap, "node %d: the name '%s' of node %d too", i, nd->name, j);
        }
    }
    if (nd->index < 0 || nd->body < 0) {
        return tpBroken(why, cap, "node '%s': glTF node %d, body node %d", nd->name, nd->index, nd->body);
    }
    if (!finite3(nd->pos) || !unit(nd->quat, 4)) {
        return tpBroken(why, cap, "node '%s': the pose is not finite or the quaternion not unit", nd->name);
    }
    if (nd->shape < TP_GLTF_SHAPE_MESH || nd->shape > TP_GLTF_SHAPE_COMPOUND) {
        return tpBroken(why, cap, "node '%s': shape %d", nd->name, (int)nd->shape);
    }
    if (nd->cls < TP_GLTF_NONE || nd->cls > TP_GLTF_KINEMATIC) {
        return tpBroken(why, cap, "node '%s': class %d", nd->name, (int)nd->cls);
    }
    if (!finite3(nd->size) || nd->size[0] < 0 || nd->size[1] < 0 || nd->size[2] < 0) {
        return tpBroken(why, cap, "node '%s': size (%g, %g, %g)", nd->name, nd->size[0], nd->size[1], nd->size[2]);
    }
    if (!(nd->mass >= 0) || !isfinite(nd->mass) || !(nd->density >= 0) || !isfinite(nd->density)) {
        return tpBroken(why, cap, "node '%s': mass %g kg, density %g kg/m^3", nd->name, nd->mass, nd->density);
    }
    if (!finite3(nd->vel) || !finite3(nd->angvel)) {
        return tpBroken(why, cap, "node '%s': its initial velocities are not finite", nd->name);
    }
    if (nd->shape == TP_GLTF_SHAPE_PLANE && nd->cls != TP_GLTF_STATIC && nd->cls != TP_GLTF_NONE) {
        return tpBroken(why, cap, "node '%s': a plane of class %d (a plane is static)", nd->name, (int)nd->cls);
    }
    if (!tpMesh_Valid(&nd->mesh, why, cap)) {
        return tpBroken(why, cap, "node '%s': its mesh", nd->name);
    }
    if (nd->shape == TP_GLTF_SHAPE_COMPOUND ? nd->nparts < 2 || nd->nparts > TP_GLTF_MAX_PARTS || !nd->parts
                                            : nd->nparts != 0) {
        return tpBroken(why, cap, "node '%s': shape %d with %d parts (a compound has 2..%d, others none)", nd->name,
                        (int)nd->shape, nd->nparts, TP_GLTF_MAX_PARTS);
    }
    for (int k = 0; k < nd->nparts; k++) {
        if (!valid_part(nd, k, why, cap)) {
            return false;
        }
    }
    return true;
}

/* The index of the body named `name` among the scene's nodes, -1 when none is. */
static int body_named(const tpGltfScene *sc, const char *name)
{
    for (int i = 0; i < sc->nnodes; i++)
        if (strcmp(sc->nodes[i].name, name) == 0)
            return i;
    return -1;
}

static bool valid_joint(const tpGltfScene *sc, int j, char *why, size_t cap)
{
    const tpGltfJoint *jt = &sc->joints[j];
    if (!terminated(jt->name, sizeof jt->name) || !terminated(jt->a, sizeof jt->a) ||
        !terminated(jt->b, sizeof jt->b)) {
        return tpBroken(why, cap, "joint %d: a name is not terminated", j);
    }
    if (jt->kind < TP_GLTF_JOINT_HINGE || jt->kind > TP_GLTF_JOINT_DISTANCE) {
        return tpBroken(why, cap, "joint '%s': kind %d", jt->name, (int)jt->kind);
    }
    if (body_named(sc, jt->a) < 0 || (jt->b[0] && body_named(sc, jt->b) < 0)) {
        return tpBroken(why, cap, "joint '%s': bodies '%s' and '%s', not both the scene's", jt->name, jt->a, jt->b);
    }
    if (strcmp(jt->a, jt->b) == 0) {
        return tpBroken(why, cap, "joint '%s': joins '%s' to itself", jt->name, jt->a);
    }
    if (!finite3(jt->anchor) || !finite3(jt->anchor2) || !isfinite(jt->length) || jt->length < 0) {
        return tpBroken(why, cap, "joint '%s': anchors or length %g m not finite or negative", jt->name, jt->length);
    }
    const bool two = jt->kind == TP_GLTF_JOINT_UNIVERSAL || jt->kind == TP_GLTF_JOINT_HINGE2;
    if ((jt->kind == TP_GLTF_JOINT_HINGE || jt->kind == TP_GLTF_JOINT_SLIDER || two) && !unit(jt->axis, 3)) {
        return tpBroken(why, cap, "joint '%s': axis (%g, %g, %g) is not unit", jt->name, jt->axis[0], jt->axis[1],
                        jt->axis[2]);
    }
    if (two && !unit(jt->axis2, 3)) {
        return tpBroken(why, cap, "joint '%s': axis 2 (%g, %g, %g) is not unit", jt->name, jt->axis2[0], jt->axis2[1],
                        jt->axis2[2]);
    }
    for (int a = 0; a < 2; a++) {
        const tpGltfJointAxis *x = &jt->axes[a];
        if (x->limit && !(x->lo <= x->hi)) {
            return tpBroken(why, cap, "joint '%s': axis %d's limit [%g, %g]", jt->name, a, x->lo, x->hi);
        }
        if (!isfinite(x->stiffness) || !isfinite(x->damping) || !isfinite(x->speed) || !isfinite(x->max_force) ||
            x->stiffness < 0 || x->damping < 0 || x->max_force < 0) {
            return tpBroken(why, cap, "joint '%s': axis %d's spring (%g, %g) or motor (%g, %g)", jt->name, a,
                            x->stiffness, x->damping, x->speed, x->max_force);
        }
    }
    return true;
}

bool tpGltfScene_Valid(const tpGltfScene *sc, char *why, size_t cap)
{
    if (sc->nnodes < 0 || (sc->nnodes > 0 && !sc->nodes) || sc->njoints < 0 || (sc->njoints > 0 && !sc->joints)) {
        return tpBroken(why, cap, "scene: %d nodes, %d joints (or their arrays missing)", sc->nnodes, sc->njoints);
    }
    if (sc->nwarnings < 0 || sc->nwarnings > TP_GLTF_MAX_WARNINGS) {
        return tpBroken(why, cap, "scene: %d warnings (at most %d)", sc->nwarnings, TP_GLTF_MAX_WARNINGS);
    }
    for (int w = 0; w < sc->nwarnings; w++) {
        if (!terminated(sc->warnings[w], sizeof sc->warnings[w]) || !sc->warnings[w][0]) {
            return tpBroken(why, cap, "scene: warning %d is empty or not terminated", w);
        }
    }
    for (int i = 0; i < sc->nnodes; i++) {
        if (!valid_node(sc, i, why, cap)) {
            return false;
        }
    }
    for (int j = 0; j < sc->njoints; j++) {
        if (!valid_joint(sc, j, why, cap)) {
            return false;
        }
    }
    return true;
}
