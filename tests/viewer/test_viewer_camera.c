/* Viewer math without OpenGL: projection, fit-to-scene, --camera parsing, pose interpolation and
 * frame counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/viewer.h"

#define DEG (TP_PI / 180.0)

/* A record with a 4 x 2 m box lying still and a sphere rolling from x = -1 to x = 1 in 10 steps
 * (quarter turn about z over the run). */
static void make_record(tpPlanRecord *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->dt = 0.1;
    rec->nbodies = 2;
    rec->bodies = calloc(2, sizeof *rec->bodies);
    tpPlanBody *box = &rec->bodies[0], *ball = &rec->bodies[1];
    box->name = strdup("table"), box->cls = strdup("static"), box->shape = strdup("box");
    box->size[0] = 4, box->size[1] = 2, box->size[2] = 0.2;
    box->pose[3] = 1;
    box->pose[2] = -0.1;
    ball->name = strdup("ball"), ball->cls = strdup("passive"), ball->shape = strdup("sphere");
    ball->size[0] = 0.1;
    ball->moving = true;
    rec->nworlds = 1;
    rec->worlds = calloc(1, sizeof *rec->worlds);
    assert_true(tpPlanWorld_Alloc(&rec->worlds[0], rec, 10));
    for (int i = 0; i <= 10; ++i) {
        double *s = rec->worlds[0].traj[1] + i * TP_STATE_DOUBLES;
        s[0] = -1 + 0.2 * i, s[2] = 0.1;
        double a = 0.5 * (TP_PI / 2) * i / 10; /* half angle */
        s[3] = cos(a), s[6] = sin(a);
    }
}

static void test_project_center(void **state)
{
    (void)state;
    tpViewCamera cam = {{1, 2, 3}, 30 * DEG, 40 * DEG, 5, 45 * DEG};
    double px, py;
    assert_true(tpViewCamera_Project(&cam, 640, 480, cam.target, &px, &py));
    assert_true(fabs(px - 320) < 1e-3 && fabs(py - 240) < 1e-3);
    /* a point above the target appears above the centre (smaller y) */
    double up[3] = {1, 2, 3.5};
    assert_true(tpViewCamera_Project(&cam, 640, 480, up, &px, &py));
    assert_true(py < 240);
    /* a point behind the eye does not project */
    double eye[3], behind[3];
    tpViewCamera_Eye(&cam, eye);
    for (int i = 0; i < 3; ++i) {
        behind[i] = eye[i] + (eye[i] - cam.target[i]);
    }
    assert_false(tpViewCamera_Project(&cam, 640, 480, behind, &px, &py));
}

static void test_fit_keeps_scene_in_view(void **state)
{
    (void)state;
    tpPlanRecord rec;
    make_record(&rec);
    tpViewCamera cam;
    tpViewCamera_Fit(&cam, &rec, 16.0 / 9);
    const int w = 1280, h = 720;
    double minx = w, maxx = 0;
    for (int k = 0; k < 8; ++k) { /* corners of the table */
        double p[3] = {k & 1 ? 2 : -2, k & 2 ? 1 : -1, k & 4 ? 0 : -0.2}, px, py;
        assert_true(tpViewCamera_Project(&cam, w, h, p, &px, &py));
        assert_true(px >= 0 && px <= w && py >= 0 && py <= h);
        minx = fmin(minx, px), maxx = fmax(maxx, px);
    }
    /* and it is not tiny: the table spans more than half the width */
    assert_true(maxx - minx > 0.5 * w);
    tpPlanRecord_Free(&rec);
}

/* The animator audit (fall_camera): a ball rolls off the table (no floor under it) and falls 2 km; the
 * camera frames the table and the ball's roll, not the fall: the table is not a speck, and the
 * ball's first position is in view. With a floor plane 1 m below, a ball resting on the floor is
 * framed as before (it did not fall away). */
static void test_fit_ignores_falls(void **state)
{
    (void)state;
    tpPlanRecord rec;
    make_record(&rec);
    for (int i = 0; i <= 10; ++i) { /* rolls 1 m, then falls: 2 km by the last step */
        double *s = rec.worlds[0].traj[1] + i * TP_STATE_DOUBLES;
        s[0] = 1 + 0.1 * i, s[2] = i < 2 ? 0.1 : -2000.0 * (i - 1) / 9;
    }
    tpViewCamera cam;
    tpViewCamera_Fit(&cam, &rec, 16.0 / 9);
    const int w = 1280, h = 720;
    double minx = w, maxx = 0, px, py;
    for (int k = 0; k < 8; ++k) { /* the table's corners: in view, over half the width */
        double p[3] = {k & 1 ? 2 : -2, k & 2 ? 1 : -1, k & 4 ? 0 : -0.2};
        assert_true(tpViewCamera_Project(&cam, w, h, p, &px, &py));
        assert_true(px >= 0 && px <= w && py >= 0 && py <= h);
        minx = fmin(minx, px), maxx = fmax(maxx, px);
    }
    assert_true(maxx - minx > 0.4 * w);
    assert_true(tpViewCamera_Project(&cam, w, h, rec.worlds[0].traj[1], &px, &py));
    assert_true(px >= 0 && px <= w && py >= 0 && py <= h);
    /* a floor plane 1 m below the table: the ball lying on it is part of the scene */
    tpPlanRecord_Free(&rec);
    make_record(&rec);
    rec.nbodies = 3;
    rec.bodies = realloc(rec.bodies, 3 * sizeof *rec.bodies);
    assert_non_null(rec.bodies);
    memset(&rec.bodies[2], 0, sizeof rec.bodies[2]);
    tpPlanBody *floor = &rec.bodies[2];
    floor->name = strdup("floor"), floor->cls = strdup("static"), floor->shape = strdup("plane");
    floor->size[2] = 1, floor->size[3] = -1.2;
    for (int i = 0; i <= 10; ++i) {
        double *s = rec.worlds[0].traj[1] + i * TP_STATE_DOUBLES;
        s[0] = 2.5, s[2] = i == 0 ? 0.1 : -1.1;
    }
    tpViewCamera_Fit(&cam, &rec, 16.0 / 9);
    double on_floor[3] = {2.5, 0, -1.1};
    assert_true(tpViewCamera_Project(&cam, w, h, on_floor, &px, &py));
    assert_true(px >= 0 && px <= w && py >= 0 && py <= h);
    tpPlanRecord_Free(&rec);
}

/* declared in viewer/src/internal.h (GL); the math lives in camera.c */
void tpView_SceneBounds(const tpPlanRecord *rec, double lo[3], double hi[3]);
double tpView_GoalCircleZ(const tpPlanRecord *rec, const tpPlanGoalRegion *g);

/* Goal regions where they apply: the fit holds a goal sphere off the stage, a box's
 * bounded sides but not its open ones, and a circle (which bounds x, y only) is placed at the
 * height where the ball meets it: the ball rolls off the table onto a floor 1 m below, into a hole
 * there, so the column is on the floor, not at the table's height the ball started from. */
static void test_goal_regions_apply(void **state)
{
    (void)state;
    tpPlanRecord rec;
    make_record(&rec);
    for (int i = 0; i <= 10; ++i) { /* on the table to x = 1, then on the floor at z = -1.1 */
        double *s = rec.worlds[0].traj[1] + i * TP_STATE_DOUBLES;
        s[0] = -1 + 0.3 * i, s[2] = i <= 6 ? 0.1 : -1.1;
    }
    double lo[3], hi[3];
    tpView_SceneBounds(&rec, lo, hi);
    const double hi0 = hi[0];
    rec.ngoal_regions = 3;
    rec.goal_regions = calloc(3, sizeof *rec.goal_regions);
    tpPlanGoalRegion *c = &rec.goal_regions[0], *sph = &rec.goal_regions[1], *box = &rec.goal_regions[2];
    c->kind = TP_GOAL_CIRCLE, c->body = 1, c->center[0] = 1.7, c->radius = 0.05;
    sph->kind = TP_GOAL_SPHERE, sph->body = 1, sph->center[0] = 6, sph->center[2] = 0.5, sph->radius = 0.25;
    box->kind = TP_GOAL_BOX, box->body = 1;
    box->lo[0] = -1, box->hi[0] = 1, box->lo[1] = -1, box->hi[1] = INFINITY, box->lo[2] = -INFINITY, box->hi[2] = 3;
    assert_true(fabs(tpView_GoalCircleZ(&rec, c) - (-1.1)) < 1e-12); /* step 9: x 1.7, on the floor */
    c->center[0] = -0.4;                                             /* met on the table (step 2) */
    assert_true(fabs(tpView_GoalCircleZ(&rec, c) - 0.1) < 1e-12);
    c->center[0] = 9; /* never met: the start's height */
    assert_true(fabs(tpView_GoalCircleZ(&rec, c) - 0.1) < 1e-12);
    tpView_SceneBounds(&rec, lo, hi);
    assert_true(hi[0] >= 9.05 && hi[0] > hi0); /* the circle never met, then the sphere, framed */
    assert_true(hi[2] >= 3);                   /* the box's top */
    assert_true(hi[1] < 1.5 && lo[2] > -1.5);  /* its open sides do not stretch the frame */
    tpPlanRecord_Free(&rec);
}

static void test_camera_parse(void **state)
{
    (void)state;
    char err[256];
    tpViewCamera cam = {{0, 0, 0}, 0, 0, 1, 45 * DEG};
    assert_true(tpViewCamera_Parse(&cam, "90,30,4", err, sizeof err));
    assert_true(fabs(cam.yaw - 90 * DEG) < 1e-12 && fabs(cam.pitch - 30 * DEG) < 1e-12 && cam.dist == 4);
    assert_true(tpViewCamera_Parse(&cam, "0,10,2,1,2,3", err, sizeof err));
    assert_true(cam.target[0] == 1 && cam.target[1] == 2 && cam.target[2] == 3);
    const char *bad[] = {"", "x", "1,2", "1,2,3,4", "1,2,-3", "1,95,3", "1,2,3,", "1,,3", "1,2,3,4,5,6,7"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        err[0] = '\0';
        assert_false(tpViewCamera_Parse(&cam, bad[i], err, sizeof err));
        assert_non_null(strstr(err, "--camera"));
    }
}

static void test_pose_interpolation(void **state)
{
    (void)state;
    tpPlanRecord rec;
    make_record(&rec);
    double p[3], q[4];
    tpView_BodyPose(&rec, 0, 1, 0.25, p, q); /* between steps 2 and 3 */
    assert_true(fabs(p[0] - (-1 + 0.2 * 2.5)) < 1e-12);
    assert_true(fabs(q[0] * q[0] + q[3] * q[3] - 1) < 1e-12);
    tpView_BodyPose(&rec, 0, 1, -5, p, q); /* clamped to the start */
    assert_true(p[0] == -1);
    tpView_BodyPose(&rec, 0, 1, 99, p, q); /* clamped to the end */
    assert_true(fabs(p[0] - 1) < 1e-12);
    tpView_BodyPose(&rec, 0, 0, 0.5, p, q); /* static body: its pose */
    assert_true(p[2] == -0.1 && q[0] == 1);
    assert_int_equal(tpView_FrameCount(&rec, 0, 60), 60); /* 1 s of motion: 60 frames of 1/60 s */
    assert_int_equal(tpView_FrameCount(&rec, 0, 25), 25);
    assert_int_equal(tpView_FrameCount(&rec, 0, 2.5), 3); /* 2.5 frames' time: the last one covers the end */
    assert_int_equal(tpView_FrameCount(&rec, 1, 25), 0);  /* no such world */
    tpPlanRecord_Free(&rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_project_center),    cmocka_unit_test(test_fit_keeps_scene_in_view),
        cmocka_unit_test(test_fit_ignores_falls), cmocka_unit_test(test_goal_regions_apply),
        cmocka_unit_test(test_camera_parse),      cmocka_unit_test(test_pose_interpolation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
