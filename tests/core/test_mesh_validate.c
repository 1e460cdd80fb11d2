/* The meshes' invariants (mesh/src/mesh_validate.c): meshes and glTF scenes as the readers return
 * them pass tpMesh_Valid and tpGltfScene_Valid, and each rule, broken once on purpose (then
 * restored), fails with its own message -- so a rule that can never fail would show here. The
 * scene is the fuzz corpus's (tests/fuzz/corpus/mesh/omi_joints_gltf: every shape, compounds,
 * hinge, slider, ball and fixed joints). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "break_rule.h"
#include "tp/mesh.h"

/* A corpus file (its first byte picks the fuzz target's format: skipped), read whole. */
static tpGltfScene read_scene(const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TP_MESH_CORPUS, file);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n > 1 && n < sizeof buf);
    tpGltfScene sc;
    char err[512] = "";
    if (!tpGltf_ReadScene("scene.gltf", buf + 1, n - 1, NULL, NULL, 0, &sc, err, sizeof err)) {
        fail_msg("%s: %s", file, err);
    }
    EXPECT_VALID(tpGltfScene_Valid, &sc);
    return sc;
}

static void test_mesh_rules(void **state)
{
    (void)state;
    const double z[3] = {-1, 0, 1}, r[3] = {0, 0.5, 0};
    tpMesh m;
    assert_true(tpMesh_Lathe(z, r, 3, 8, &m));
    EXPECT_VALID(tpMesh_Valid, &m);
    BREAK_RULE(tpMesh_Valid, &m, m.nvertices, -1, "mesh: -1 vertices");
    BREAK_RULE(tpMesh_Valid, &m, m.vertices, NULL, "without their arrays");
    BREAK_RULE(tpMesh_Valid, &m, m.vertices[7], NAN, "vertex 2 is not finite");
    BREAK_RULE(tpMesh_Valid, &m, m.triangles[4], m.nvertices, "triangle 1 has vertex index");
    BREAK_RULE(tpMesh_Valid, &m, m.triangles[0], -1, "triangle 0 has vertex index -1");
    tpMesh_Free(&m);
}

/* The first node of shape `shape`, else fails. */
static tpGltfNode *node_of(tpGltfScene *sc, tpGltfShape shape)
{
    for (int i = 0; i < sc->nnodes; i++)
        if (sc->nodes[i].shape == shape)
            return &sc->nodes[i];
    fail_msg("no node of shape %d", (int)shape);
    return NULL;
}

static void test_node_rules(void **state)
{
    (void)state;
    tpGltfScene sc = read_scene("omi_joints_gltf");
    assert_true(sc.nnodes >= 2);
    tpGltfNode *nd = &sc.nodes[1];
    BREAK_RULE(tpGltfScene_Valid, &sc, sc.nnodes, -1, "scene: -1 nodes");
    BREAK_RULE(tpGltfScene_Valid, &sc, sc.nwarnings, TP_GLTF_MAX_WARNINGS + 1, "warnings (at most");
    BREAK_RULE(tpGltfScene_Valid, &sc, sc.nwarnings, sc.nwarnings + 1, "is empty or not terminated");
    BREAK_RULE(tpGltfScene_Valid, &sc, nd->name[0], '\0', "node 1: its name or material");
    char keep[TP_GLTF_NAME_MAX];
    memcpy(keep, nd->name, sizeof keep);
    memcpy(nd->name, sc.nodes[0].name, sizeof keep);
    EXPECT_BROKEN(tpGltfScene_Valid, &sc, "of node 0 too");
    memcpy(nd->name, keep, sizeof keep);
    BREAK_RULE(tpGltfScene_Valid, &sc, nd->body, -1, "body node -1");
    BREAK_RULE(tpGltfScene_Valid, &sc, nd->quat[0], nd->quat[0] + 0.01, "quaternion not unit");
    BREAK_RULE(tpGltfScene_Valid, &sc, nd->shape, (tpGltfShape)9, "shape 9");
    BREAK_RULE(tpGltfScene_Valid, &sc, nd->cls, (tpGltfClass)9, "class 9");
    BREAK_RULE(tpGltfScene_Valid, &sc, nd->size[1], -1.0, "size (");
    BREAK_RULE(tpGltfScene_Valid, &sc, nd->mass, -1.0, "mass -1 kg");
    BREAK_RULE(tpGltfScene_Valid, &sc, nd->angvel[2], INFINITY, "initial velocities");
    BREAK_RULE(tpGltfScene_Valid, &sc, nd->mesh.nvertices, -2, "its mesh");
    tpGltfNode *any = &sc.nodes[0];
    tpGltfShape keep_shape = any->shape;
    tpGltfClass keep_cls = any->cls;
    any->shape = TP_GLTF_SHAPE_PLANE;
    any->cls = TP_GLTF_ACTIVE;
    EXPECT_BROKEN(tpGltfScene_Valid, &sc, "(a plane is static)");
    any->shape = keep_shape;
    any->cls = keep_cls;
    /* the compound and its parts */
    tpGltfNode *c = node_of(&sc, TP_GLTF_SHAPE_COMPOUND);
    BREAK_RULE(tpGltfScene_Valid, &sc, c->nparts, 1, "with 1 parts");
    BREAK_RULE(tpGltfScene_Valid, &sc, c->shape, TP_GLTF_SHAPE_BOX, "parts (a compound has");
    BREAK_TERMINATION(tpGltfScene_Valid, &sc, c->parts[1].name, "part 1's name");
    BREAK_RULE(tpGltfScene_Valid, &sc, c->parts[1].shape, TP_GLTF_SHAPE_PLANE, "part 1 has shape");
    BREAK_RULE(tpGltfScene_Valid, &sc, c->parts[0].pos[2], NAN, "part 0's pose");
    BREAK_RULE(tpGltfScene_Valid, &sc, c->parts[0].size[0], -0.5, "part 0's size");
    BREAK_RULE(tpGltfScene_Valid, &sc, c->parts[0].mesh.ntriangles, -1, "part 0's mesh");
    tpGltfScene_Free(&sc);
}

/* The first joint of kind `kind` in the scene, else fails. */
static tpGltfJoint *joint_of(tpGltfScene *sc, tpGltfJointKind kind)
{
    for (int j = 0; j < sc->njoints; j++)
        if (sc->joints[j].kind == kind)
            return &sc->joints[j];
    fail_msg("no joint of kind %d", (int)kind);
    return NULL;
}

static void test_joint_rules(void **state)
{
    (void)state;
    tpGltfScene sc = read_scene("omi_joints_gltf");
    assert_true(sc.njoints > 0);
    BREAK_RULE(tpGltfScene_Valid, &sc, sc.joints, NULL, "joints (or their arrays missing)");
    tpGltfJoint *j = joint_of(&sc, TP_GLTF_JOINT_HINGE);
    BREAK_TERMINATION(tpGltfScene_Valid, &sc, j->b, "a name is not terminated");
    BREAK_RULE(tpGltfScene_Valid, &sc, j->kind, (tpGltfJointKind)11, "kind 11");
    BREAK_RULE(tpGltfScene_Valid, &sc, j->a[0], '#', "not both the scene's");
    char keep[TP_GLTF_NAME_MAX];
    memcpy(keep, j->b, sizeof keep);
    memcpy(j->b, j->a, sizeof keep);
    EXPECT_BROKEN(tpGltfScene_Valid, &sc, "to itself");
    memcpy(j->b, keep, sizeof keep);
    BREAK_RULE(tpGltfScene_Valid, &sc, j->length, -1.0, "length -1 m");
    BREAK_RULE(tpGltfScene_Valid, &sc, j->axis[0], j->axis[0] + 0.5, "is not unit");
    BREAK_RULE(tpGltfScene_Valid, &sc, j->axes[1].damping, -1.0, "axis 1's spring");
    j->axes[0].limit = true;
    j->axes[0].lo = 1;
    j->axes[0].hi = 0;
    EXPECT_BROKEN(tpGltfScene_Valid, &sc, "axis 0's limit [1, 0]");
    j->axes[0].hi = 2;
    EXPECT_VALID(tpGltfScene_Valid, &sc);
    j->kind = TP_GLTF_JOINT_UNIVERSAL; /* its second axis checked too */
    EXPECT_VALID(tpGltfScene_Valid, &sc);
    BREAK_RULE(tpGltfScene_Valid, &sc, j->axis2[2], j->axis2[2] + 0.5, "axis 2 (");
    j->kind = TP_GLTF_JOINT_HINGE;
    tpGltfScene_Free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_rules),
        cmocka_unit_test(test_node_rules),
        cmocka_unit_test(test_joint_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
