/* The glTF export's invariants (export/src/gltf_validate.c): a layout as the writer lays one out (two
 * meshes' views and accessors, a material, a body's animation keys) and the meshes the writer
 * builds of every shape pass tpXLayout_Valid and tpXMesh_Valid, and each rule, broken once on
 * purpose (then restored), fails with its own message -- so a rule that can never fail would show
 * here. (Every export of the test suites runs the same checks in Debug and sanitizer builds.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "break_rule.h"
#include "export_internal.h"
#include "gltf_layout.h"

/* A box mesh (24 vertices: positions and normals, 36 indices as u16) and a line strip (4 vertices,
 * no indices); a body's keys: 3 of 5 samples (times, translations). Views in order, 4-aligned. */
static tpXView g_views[7];
static tpXAcc g_accs[7];
static tpXMaterial g_mats[1];
static tpXPrim g_prims[2];
static tpXMeshEntry g_meshes[2];
static int32_t g_idx[3] = {0, 2, 4};
static tpXKeys g_keys[2];
static int g_body_mesh[1];

static tpXLayout make_layout(void)
{
    const struct {
        int target, ctype, ncomp;
        int64_t count;
    } a[7] = {{TP_GL_ARRAY_BUFFER, TP_GL_FLOAT, 3, 24},
              {TP_GL_ARRAY_BUFFER, TP_GL_FLOAT, 3, 24},
              {TP_GL_ELEMENT_ARRAY_BUFFER, TP_GL_UNSIGNED_SHORT, 1, 36},
              {TP_GL_ARRAY_BUFFER, TP_GL_FLOAT, 3, 4},
              {TP_GL_ARRAY_BUFFER, TP_GL_FLOAT, 3, 4},
              {0, TP_GL_FLOAT, 1, 3},
              {0, TP_GL_FLOAT, 3, 3}};
    int64_t off = 0;
    for (int i = 0; i < 7; i++) {
        const int64_t len = a[i].count * a[i].ncomp * (a[i].ctype == TP_GL_UNSIGNED_SHORT ? 2 : 4);
        g_views[i] = (tpXView){off, len, a[i].target};
        g_accs[i] = (tpXAcc){i, a[i].ctype, a[i].count, a[i].ncomp, i == 0 || i == 5, {-1, -1, -1, 0}, {1, 1, 1, 0}};
        off = (off + len + 3) / 4 * 4;
    }
    g_mats[0] = (tpXMaterial){{0.2f, 0.5f, 0.8f, 1.0f}, false, NULL};
    g_prims[0] = (tpXPrim){TP_GL_TRIANGLES, 0, 0, 1, 2};
    g_prims[1] = (tpXPrim){TP_GL_LINE_STRIP, 0, 3, 4, -1};
    g_meshes[0] = (tpXMeshEntry){"box", 0, -1, -1, -1, 0, 1, &g_prims[0]};
    g_meshes[1] = (tpXMeshEntry){"path", -1, -1, 0, -1, 0, 1, &g_prims[1]};
    g_keys[0] = (tpXKeys){3, g_idx, 5, 6};
    g_keys[1] = (tpXKeys){0, NULL, 0, 0}; /* the rotation channel of a body that does not move */
    g_body_mesh[0] = 0;
    return (tpXLayout){g_views, 7, g_accs, 7, g_mats, 1, g_meshes, 2, g_keys, 2, 1, g_body_mesh, off};
}

static void test_view_rules(void **state)
{
    (void)state;
    tpXLayout l = make_layout();
    EXPECT_VALID(tpXLayout_Valid, &l);
    BREAK_RULE(tpXLayout_Valid, &l, l.bytes, l.bytes + 2, "bytes");
    BREAK_RULE(tpXLayout_Valid, &l, l.nviews, -1, "layout: -1 views");
    BREAK_RULE(tpXLayout_Valid, &l, g_views[1].offset, g_views[1].offset + 2, "view 1: offset");
    BREAK_RULE(tpXLayout_Valid, &l, g_views[2].offset, g_views[1].offset, "view 2: bytes");
    BREAK_RULE(tpXLayout_Valid, &l, g_views[6].length, l.bytes, "view 6: bytes");
    BREAK_RULE(tpXLayout_Valid, &l, g_views[3].target, 7, "view 3: target 7");
}

static void test_accessor_rules(void **state)
{
    (void)state;
    tpXLayout l = make_layout();
    BREAK_RULE(tpXLayout_Valid, &l, g_accs[2].view, 7, "accessor 2: view 7 of 7");
    BREAK_RULE(tpXLayout_Valid, &l, g_accs[0].ctype, 5121, "of type 5121");
    BREAK_RULE(tpXLayout_Valid, &l, g_accs[0].ncomp, 2, "of 2 components");
    BREAK_RULE(tpXLayout_Valid, &l, g_accs[4].count, 5, "accessor 4: 60 bytes in view 4 of 48");
    BREAK_RULE(tpXLayout_Valid, &l, g_views[2].target, TP_GL_ARRAY_BUFFER, "accessor 2: type 5123 x 1");
    BREAK_RULE(tpXLayout_Valid, &l, g_accs[0].min[1], 2.0, "accessor 0: component 1 in [2, 1]");
}

static void test_mesh_rules(void **state)
{
    (void)state;
    tpXLayout l = make_layout();
    BREAK_RULE(tpXLayout_Valid, &l, g_mats[0].rgba[3], 1.5f, "material 0: colour component 3");
    BREAK_RULE(tpXLayout_Valid, &l, g_meshes[1].nprims, 0, "mesh 1 'path': 0 primitives");
    BREAK_RULE(tpXLayout_Valid, &l, g_prims[0].mode, 0, "mesh 0 primitive 0: mode 0");
    BREAK_RULE(tpXLayout_Valid, &l, g_prims[1].material, 1, "material 1 of 1");
    BREAK_RULE(tpXLayout_Valid, &l, g_prims[0].pos, 2, "position accessor 2");
    BREAK_RULE(tpXLayout_Valid, &l, g_prims[0].nrm, 4, "normal 4");
    g_accs[2].count = 35; /* and its view of 35 indices */
    g_views[2].length = 70;
    EXPECT_BROKEN(tpXLayout_Valid, &l, "not of whole triangles");
    g_accs[2].count = 36;
    g_views[2].length = 72;
    EXPECT_VALID(tpXLayout_Valid, &l);
    BREAK_RULE(tpXLayout_Valid, &l, g_body_mesh[0], 1, "body 0: mesh 1 of 2 is not a body's");
}

static void test_key_rules(void **state)
{
    (void)state;
    tpXLayout l = make_layout();
    BREAK_RULE(tpXLayout_Valid, &l, g_idx[0], 1, "keys 0: key 0 at sample 1");
    BREAK_RULE(tpXLayout_Valid, &l, g_idx[2], 2, "keys 0: key 2 at sample 2");
    BREAK_RULE(tpXLayout_Valid, &l, g_keys[0].in, 6, "times accessor 6");
    BREAK_RULE(tpXLayout_Valid, &l, g_accs[5].minmax, false, "times accessor 5");
    BREAK_RULE(tpXLayout_Valid, &l, g_keys[0].out, 5, "values accessor 5");
}

static void test_xmesh_rules(void **state)
{
    (void)state;
    const char *shapes[] = {"box", "sphere", "capsule", "cylinder"};
    const double sizes[4][4] = {{0.5, 0.3, 0.2, 0}, {0.1, 0, 0, 0}, {0.05, 0.2, 0, 0}, {0.1, 0.3, 0, 0}};
    for (int s = 0; s < 4; s++) {
        tpPlanBody pb;
        memset(&pb, 0, sizeof pb);
        pb.shape = (char *)shapes[s];
        memcpy(pb.size, sizes[s], sizeof pb.size);
        pb.pose[3] = 1;
        tpXMesh m;
        assert_true(tpXMesh_Shape(&pb, &m));
        EXPECT_VALID(tpXMesh_Valid, &m);
        tpXMesh_Free(&m);
    }
    tpXMesh m;
    assert_true(tpXMesh_Pips(0.1, &m));
    EXPECT_VALID(tpXMesh_Valid, &m);
    BREAK_RULE(tpXMesh_Valid, &m, m.nverts, -1, "mesh: -1 vertices");
    BREAK_RULE(tpXMesh_Valid, &m, m.nrm, NULL, "(or their arrays missing)");
    BREAK_RULE(tpXMesh_Valid, &m, m.nidx, m.nidx - 1, "not whole triangles");
    BREAK_RULE(tpXMesh_Valid, &m, m.pos[4], NAN, "vertex 1 is not finite");
    BREAK_RULE(tpXMesh_Valid, &m, m.nrm[7], m.nrm[7] + 0.5f, "vertex 2's normal has length");
    BREAK_RULE(tpXMesh_Valid, &m, m.idx[5], (uint32_t)m.nverts, "index 5 is");
    tpXMesh_Free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_rules), cmocka_unit_test(test_accessor_rules), cmocka_unit_test(test_mesh_rules),
        cmocka_unit_test(test_key_rules),  cmocka_unit_test(test_xmesh_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
