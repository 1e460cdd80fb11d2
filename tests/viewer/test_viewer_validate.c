/* The viewer's invariants (viewer/src/scene_validate.c), without OpenGL: a scene's CPU side as
 * tpVScene_Init, tpVScene_SetWorld and tpVScene_SetTree leave it (buffer names stand in for the
 * GL objects), a frame and a fitted camera pass tpVScene_Valid, tpVFrame_Valid and
 * tpViewCamera_Valid, and each rule, broken once on purpose (then restored), fails with its own
 * message -- so a rule that can never fail would show here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "break_rule.h"
#include "internal.h"
#include "tp/base.h"

#define NSTEPS 4

/* A still floor box, a moving ball with a trajectory, a moving crate without one (not recorded in
 * this world) and a field overlay of 2 x 1 cells. */
static tpPlanBody g_bodies[3];
static tpPlanWorld g_world;
static double g_traj[NSTEPS + 1][13];
static double *g_trajs[3];
static tpPlanOverlay g_overlay;
static tpPlanRecord g_rec;
static int g_palette[3], g_trail_first[3], g_body_verts[3], g_tree_body[2];
static GLuint g_body_vbo[3];
static char g_name[] = "ball";
static char *g_tree_names[1] = {g_name};
static float g_rgba[8] = {0, 0.5f, 1, 1, 1, 0.5f, 0, 1};
static float *g_nav[1] = {g_rgba};

static tpVScene make_scene(void)
{
    memset(&g_rec, 0, sizeof g_rec);
    for (int b = 0; b < 3; b++) {
        memset(&g_bodies[b], 0, sizeof g_bodies[b]);
        g_bodies[b].moving = b > 0;
        g_bodies[b].shape = (char *)(b == 1 ? "sphere" : "box");
        g_bodies[b].size[0] = g_bodies[b].size[1] = g_bodies[b].size[2] = b == 0 ? 2.0 : 0.1;
        g_bodies[b].pose[3] = 1;
        g_bodies[b].name = (char *)(b == 0 ? "floor" : b == 1 ? "ball" : "crate");
        g_bodies[b].cls = (char *)(b == 0 ? "static" : "active");
        g_palette[b] = b - 1;
        g_body_verts[b] = b == 2 ? 36 : 0; /* the crate: a mesh of its own */
        g_body_vbo[b] = b == 2 ? 9 : 0;
    }
    for (int i = 0; i <= NSTEPS; i++) {
        g_traj[i][0] = 0.1 * i, g_traj[i][2] = 0.1, g_traj[i][3] = 1;
    }
    g_trajs[0] = NULL, g_trajs[1] = &g_traj[0][0], g_trajs[2] = NULL;
    g_world = (tpPlanWorld){.nsteps = NSTEPS, .traj = g_trajs};
    g_overlay = (tpPlanOverlay){.kind = TP_OVERLAY_FIELD, .nx = 2, .ny = 1, .cell = 0.5};
    g_rec.nbodies = 3;
    g_rec.bodies = g_bodies;
    g_rec.nworlds = 1;
    g_rec.worlds = &g_world;
    g_rec.noverlays = 1;
    g_rec.overlays = &g_overlay;
    g_trail_first[0] = -1, g_trail_first[1] = 0, g_trail_first[2] = -1;
    g_tree_body[0] = 1, g_tree_body[1] = 2;
    tpVScene sc = {.rec = &g_rec,
                   .world = 0,
                   .mesh_vbo = {1, 2, 3, 4},
                   .mesh_verts = {36, 960, 240, 96},
                   .body_vbo = g_body_vbo,
                   .body_verts = g_body_verts,
                   .palette = g_palette,
                   .lo = {-1, -1, 0},
                   .hi = {1, 1, 0.5},
                   .trail_vbo = 5,
                   .trail_first = g_trail_first,
                   .trail_len = NSTEPS + 1,
                   .has_tree = true,
                   .tree_nbodies = 1,
                   .tree_nbodies_file = 2,
                   .tree_body = g_tree_body,
                   .tree_names = g_tree_names,
                   .tree_nnodes = 40,
                   .tree_cap = 1024,
                   .tree_nsel = 3,
                   .tree_ngoal = 1,
                   .tree_vbo = 6,
                   .tree_sel_vbo = 7,
                   .tree_goal_vbo = 8,
                   .cache_fbo = 10,
                   .cache_w = 64,
                   .cache_h = 48,
                   .cache_valid = true,
                   .cache_generation = 2,
                   .cache_progress = 40,
                   .generation = 2,
                   .nav_rgba = g_nav};
    return sc;
}

static void test_scene_rules(void **state)
{
    (void)state;
    tpVScene sc = make_scene();
    EXPECT_VALID(tpVScene_Valid, &sc);
    BREAK_RULE(tpVScene_Valid, &sc, sc.palette, NULL, "a per-body array missing");
    BREAK_RULE(tpVScene_Valid, &sc, sc.world, 1, "scene: world 1 of 1");
    BREAK_RULE(tpVScene_Valid, &sc, sc.mesh_verts[2], 241, "shape mesh 2 has 241 vertices");
    BREAK_RULE(tpVScene_Valid, &sc, g_body_vbo[2], 0, "body 2 has 36 vertices of its own in buffer 0");
    BREAK_RULE(tpVScene_Valid, &sc, g_palette[2], 0, "body 2 has palette entry 0");
    BREAK_RULE(tpVScene_Valid, &sc, sc.hi[2], -0.5, "bounds [0, -0.5] on axis 2");
}

static void test_trail_rules(void **state)
{
    (void)state;
    tpVScene sc = make_scene();
    BREAK_RULE(tpVScene_Valid, &sc, sc.trail_len, NSTEPS, "trails: 4 vertices per body");
    BREAK_RULE(tpVScene_Valid, &sc, g_trail_first[2], 5, "body 2's first vertex 5 (expected -1)");
    BREAK_RULE(tpVScene_Valid, &sc, g_trail_first[1], 2, "body 1's first vertex 2 (expected 0)");
    sc.world = -1; /* no trails uploaded: nothing to check */
    g_trail_first[1] = 7;
    EXPECT_VALID(tpVScene_Valid, &sc);
}

static void test_tree_rules(void **state)
{
    (void)state;
    tpVScene sc = make_scene();
    BREAK_RULE(tpVScene_Valid, &sc, sc.has_tree, false, "tree: none, yet 1 bodies");
    BREAK_RULE(tpVScene_Valid, &sc, sc.tree_nbodies, 3, "tree: 3 bodies drawn of 2");
    BREAK_RULE(tpVScene_Valid, &sc, g_tree_body[1], 0, "tree: body 1 is plan body 0");
    BREAK_RULE(tpVScene_Valid, &sc, g_tree_names[0], NULL, "tree: body 0 has no name");
    BREAK_RULE(tpVScene_Valid, &sc, sc.tree_cap, 39, "tree: 40 nodes in a buffer of 39");
    BREAK_RULE(tpVScene_Valid, &sc, sc.tree_ngoal, 41, "41 goal nodes of 40 nodes");
}

static void test_cache_rules(void **state)
{
    (void)state;
    tpVScene sc = make_scene();
    BREAK_RULE(tpVScene_Valid, &sc, sc.cache_fbo, 0, "cache: 64 x 48, valid 1, framebuffer 0");
    BREAK_RULE(tpVScene_Valid, &sc, sc.cache_generation, 3, "generation 3 of 2");
    BREAK_RULE(tpVScene_Valid, &sc, g_nav[0], NULL, "overlay 0: of kind");
    BREAK_RULE(tpVScene_Valid, &sc, g_rgba[6], 1.25f, "overlay 0: colour component 6 is 1.25");
}

static void test_frame_rules(void **state)
{
    (void)state;
    tpVFrame f = {.width = 640, .height = 480, .t = 0.5};
    tpViewCamera_Fit(&f.cam, &g_rec, 640.0 / 480.0);
    EXPECT_VALID(tpVFrame_Valid, &f);
    BREAK_RULE(tpVFrame_Valid, &f, f.height, 0, "frame: 640 x 0 pixels");
    BREAK_RULE(tpVFrame_Valid, &f, f.t, NAN, "frame: time");
    BREAK_RULE(tpVFrame_Valid, &f, f.nav, 64u, "navigation layers 0x40");
    BREAK_RULE(tpVFrame_Valid, &f, f.cam.target[1], INFINITY, "camera: target");
    BREAK_RULE(tpVFrame_Valid, &f, f.cam.pitch, 0.5 * TP_PI, "camera: pitch");
    BREAK_RULE(tpVFrame_Valid, &f, f.cam.dist, 0.0, "camera: distance 0 m");
    BREAK_RULE(tpVFrame_Valid, &f, f.cam.fovy, TP_PI, "camera: field of view");
}

int main(void)
{
    make_scene(); /* the record the camera fits */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scene_rules), cmocka_unit_test(test_trail_rules), cmocka_unit_test(test_tree_rules),
        cmocka_unit_test(test_cache_rules), cmocka_unit_test(test_frame_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
