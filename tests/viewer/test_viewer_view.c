/* A domain's default camera (tp.domain { view = ... }, plan member "view"): it round-trips through
 * the plan file, a file without it reads as unset, bad values are refused, and the renderer uses it
 * when no --camera is given (its first frame differs from the fitted camera's, equals the frame
 * rendered with the same view given as --camera, and puts the robot where the view projects it).
 * Usage: test_viewer_view TPLAN DOMAIN WORKDIR (under xvfb-run, see xvfb.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/plan.h"
#include "tp/viewer.h"
#include "viewer_test_util.h"

enum { W = 320, H = 240 };
static const char *g_tplan, *g_domain, *g_work;
static char g_plan[1024];

static int setup(void **state)
{
    (void)state;
    snprintf(g_plan, sizeof g_plan, "%s/view.json", g_work);
    /* an approximate plan is enough: only the scene and the view matter */
    int rc = vtRun("'%s' plan '%s' --max-iters 50 -q -o '%s'", g_tplan, g_domain, g_plan);
    return rc == 0 || rc == 3 ? 0 : -1;
}

static void test_view_round_trip(void **state)
{
    (void)state;
    char err[512] = "", path[1200];
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    assert_true(tpPlanRecord_Read(&rec, g_plan, err, sizeof err));
    assert_true(rec.view.set); /* the domain script sets one */
    rec.view.yaw = -12.5, rec.view.pitch = 61.25, rec.view.distance = 3.75;
    rec.view.has_target = true;
    rec.view.target[0] = 0.5, rec.view.target[1] = -0.25, rec.view.target[2] = 0.125;
    snprintf(path, sizeof path, "%s/view_rt.json", g_work);
    assert_true(tpPlanRecord_Write(&rec, path, err, sizeof err));
    tpPlanRecord back;
    memset(&back, 0, sizeof back);
    assert_true(tpPlanRecord_Read(&back, path, err, sizeof err));
    assert_true(back.view.set && back.view.has_target);
    assert_true(back.view.yaw == -12.5 && back.view.pitch == 61.25 && back.view.distance == 3.75);
    assert_true(back.view.target[0] == 0.5 && back.view.target[1] == -0.25 && back.view.target[2] == 0.125);
    tpPlanRecord_Free(&back);

    /* no view: written without the member, read back unset */
    rec.view.set = false;
    assert_true(tpPlanRecord_Write(&rec, path, err, sizeof err));
    memset(&back, 0, sizeof back);
    assert_true(tpPlanRecord_Read(&back, path, err, sizeof err));
    assert_false(back.view.set);
    tpPlanRecord_Free(&back);

    /* the writer refuses a view the viewer could not use */
    rec.view.set = true;
    rec.view.pitch = 95;
    assert_false(tpPlanRecord_Write(&rec, path, err, sizeof err));
    assert_non_null(strstr(err, "view"));
    tpPlanRecord_Free(&rec);
}

static void test_view_refused_when_bad(void **state)
{
    (void)state;
    const char *bad[] = {
        "\"view\": {\"yaw\": 0, \"pitch\": 90.5}",
        "\"view\": {\"yaw\": 0, \"pitch\": 10, \"distance\": -1}",
        "\"view\": {\"yaw\": \"up\", \"pitch\": 10}",
        "\"view\": {\"pitch\": 10}",
        "\"view\": {\"yaw\": 0, \"pitch\": 10, \"target\": [1, 2]}",
        "\"view\": [0, 10]",
    };
    /* the plan's own "view" line replaced by each bad one */
    FILE *in = fopen(g_plan, "rb");
    assert_non_null(in);
    static char text[1 << 22];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    char *v = strstr(text, "\"view\": {");
    assert_non_null(v);
    char *end = strstr(v, "},\n");
    assert_non_null(end);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char path[1200], err[512] = "";
        snprintf(path, sizeof path, "%s/bad_view_%zu.json", g_work, i);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(text, 1, (size_t)(v - text), f);
        fputs(bad[i], f);
        fputs(end + 1, f);
        fclose(f);
        tpPlanRecord rec;
        memset(&rec, 0, sizeof rec);
        if (tpPlanRecord_Read(&rec, path, err, sizeof err)) {
            fail_msg("%s: read, expected a refusal", bad[i]);
        }
        assert_non_null(strstr(err, "view"));
        tpPlanRecord_Free(&rec);
    }
}

static long frame_diff(const unsigned char *a, const unsigned char *b)
{
    long d = 0;
    for (size_t i = 0; i < (size_t)W * H * 3; ++i) {
        d += a[i] != b[i];
    }
    return d;
}

static void test_renderer_uses_view(void **state)
{
    (void)state;
    char err[512] = "", path[1200], nov[1200];
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    assert_true(tpPlanRecord_Read(&rec, g_plan, err, sizeof err));
    assert_true(rec.view.set);
    /* the same plan without its view */
    snprintf(nov, sizeof nov, "%s/noview.json", g_work);
    tpPlanRecord copy = rec;
    copy.view.set = false;
    assert_true(tpPlanRecord_Write(&copy, nov, err, sizeof err));
    /* the view as --camera (yaw, pitch, distance and target of the camera the viewer builds) */
    tpViewCamera cam;
    tpViewCamera_Fit(&cam, &rec, (double)W / H);
    tpViewCamera fitted = cam;
    tpViewCamera_SetView(&cam, &rec.view, &rec, (double)W / H);
    assert_true(cam.yaw != fitted.yaw || cam.pitch != fitted.pitch);
    char camera[256];
    snprintf(camera, sizeof camera, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", cam.yaw * 180 / 3.14159265358979323846,
             cam.pitch * 180 / 3.14159265358979323846, cam.dist, cam.target[0], cam.target[1], cam.target[2]);
    const char *opts = "--frames 0 --no-trails --no-overlay -q";
    assert_int_equal(vtRun("'%s' render '%s' --out '%s/v' --size %dx%d %s", g_tplan, g_plan, g_work, W, H, opts), 0);
    assert_int_equal(vtRun("'%s' render '%s' --out '%s/n' --size %dx%d %s", g_tplan, nov, g_work, W, H, opts), 0);
    assert_int_equal(
        vtRun("'%s' render '%s' --out '%s/c' --size %dx%d --camera %s %s", g_tplan, nov, g_work, W, H, camera, opts),
        0);
    unsigned char *img[3];
    const char *dirs[3] = {"v", "n", "c"};
    for (int k = 0; k < 3; ++k) {
        snprintf(path, sizeof path, "%s/%s/frame_000000.png", g_work, dirs[k]);
        img[k] = vtLoadPng(path, W, H);
        assert_non_null(img[k]);
    }
    long d_fit = frame_diff(img[0], img[1]), d_cam = frame_diff(img[0], img[2]);
    /* the recorded view changes the picture, and it is the camera --camera gives (up to the
       rounding of the printed angles: a handful of edge pixels at most) */
    assert_true(d_fit > (long)W * H / 10);
    assert_true(d_cam < (long)W * H / 200);
    for (int k = 0; k < 3; ++k) {
        free(img[k]);
    }
    tpPlanRecord_Free(&rec);
}

int main(int argc, char **argv)
{
    if (!vtArgs(argc, argv, "DOMAIN", &g_tplan, &g_domain, &g_work)) {
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_round_trip),
        cmocka_unit_test(test_view_refused_when_bad),
        cmocka_unit_test(test_renderer_uses_view),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
