/* Clean renders for deliverables: `tplan render` draws the scene only by default
 * (no text overlay, legend, key hint or timeline: its frame is pixel-identical to --no-overlay, and
 * the corners where the overlay and legend go hold no text-white pixels while the --hud frame has
 * them); with --hud the legend's swatch of every moving body is the body's own colour (the soccer
 * robot is blue in the scene and in its legend entry, not the old palette's orange); and the
 * number of frames covers the motion exactly, ceil(duration x fps), not one frame more.
 * Usage: test_viewer_clean TPLAN DOMAIN WORKDIR (DOMAIN: soccer.lua; under xvfb-run, see xvfb.sh). */
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

enum { W = 640, H = 360 };
static const char *g_tplan, *g_domain, *g_work;
static char g_plan[1024];

static int setup(void **state)
{
    (void)state;
    snprintf(g_plan, sizeof g_plan, "%s/clean.json", g_work);
    /* an approximate plan is enough: the scene, the legend and the duration matter */
    int rc = vtRun("'%s' plan '%s' --seed 1 --max-iters 300 -q -o '%s'", g_tplan, g_domain, g_plan);
    return rc == 0 || rc == 3 ? 0 : -1;
}

/* Pixels of the rectangle [x0, x1) x [y0, y1) that are (near) pure white: the overlay's text. */
static int white_pixels(const unsigned char *img, int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) {
            const unsigned char *p = img + 3 * ((size_t)y * W + x);
            n += p[0] >= 250 && p[1] >= 250 && p[2] >= 250;
        }
    }
    return n;
}

static unsigned char *render(const char *name, const char *opts)
{
    char path[1200];
    assert_int_equal(vtRun("'%s' render '%s' --out '%s/%s' --size %dx%d --frames 0 %s -q", g_tplan, g_plan, g_work,
                           name, W, H, opts),
                     0);
    snprintf(path, sizeof path, "%s/%s/frame_000000.png", g_work, name);
    return vtLoadPng(path, W, H);
}

static void test_clean_by_default(void **state)
{
    (void)state;
    unsigned char *plain = render("default", ""), *off = render("off", "--no-overlay"), *hud = render("hud", "--hud");
    assert_memory_equal(plain, off, (size_t)W * H * 3); /* the default is the scene only */
    /* top left: the overlay's text; top right: the legend; bottom: the timeline */
    int tl = white_pixels(plain, 0, 0, W / 2, H / 3), tr = white_pixels(plain, W / 2, 0, W, H / 3);
    int tl_hud = white_pixels(hud, 0, 0, W / 2, H / 3), tr_hud = white_pixels(hud, W / 2, 0, W, H / 3);
    print_message("white pixels: top left %d (--hud %d), top right %d (--hud %d)\n", tl, tl_hud, tr, tr_hud);
    assert_int_equal(tl, 0);
    assert_int_equal(tr, 0);
    assert_true(tl_hud > 200 && tr_hud > 50); /* the test can see text where it is */
    free(plain);
    free(off);
    free(hud);
}

static void test_legend_body_colours(void **state)
{
    (void)state;
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    char err[512];
    assert_true(tpPlanRecord_Read(&rec, g_plan, err, sizeof err));
    unsigned char *hud = render("legend", "--hud --no-trails");
    int checked = 0;
    for (int b = 0; b < rec.nbodies; ++b) {
        if (!rec.bodies[b].moving) {
            continue;
        }
        int want[3], found = 0;
        for (int c = 0; c < 3; ++c) {
            want[c] = (int)lrintf(rec.bodies[b].color[c] * 255);
        }
        /* the legend's swatches are flat rectangles (no lighting) in the top right corner */
        for (int y = 0; y < H / 2; ++y) {
            for (int x = W / 2; x < W; ++x) {
                const unsigned char *p = hud + 3 * ((size_t)y * W + x);
                found += abs(p[0] - want[0]) <= 2 && abs(p[1] - want[1]) <= 2 && abs(p[2] - want[2]) <= 2;
            }
        }
        print_message("%s: colour %d,%d,%d, %d legend pixels\n", rec.bodies[b].name, want[0], want[1], want[2], found);
        assert_true(found >= 40); /* a 12 x 8 swatch, some of it possibly shared by bodies of one colour */
        ++checked;
    }
    assert_true(checked >= 2);
    free(hud);
    tpPlanRecord_Free(&rec);
}

static void test_frame_count(void **state)
{
    (void)state;
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    char err[512];
    assert_true(tpPlanRecord_Read(&rec, g_plan, err, sizeof err));
    double dur = rec.worlds[0].nsteps * rec.dt;
    const double fps[] = {60, 24, 7};
    for (int i = 0; i < 3; ++i) {
        int want = (int)ceil(dur * fps[i] - 1e-9);
        assert_int_equal(tpView_FrameCount(&rec, 0, fps[i]), want);
        /* the renderer's "last" frame is frame want - 1, and there is none after it */
        char dir[1100], path[1200];
        snprintf(dir, sizeof dir, "%s/count%d", g_work, i);
        assert_int_equal(
            vtRun("'%s' render '%s' --out '%s' --size 32x32 --fps %g --frames last -q", g_tplan, g_plan, dir, fps[i]),
            0);
        snprintf(path, sizeof path, "%s/frame_%06d.png", dir, want - 1);
        free(vtLoadPng(path, 32, 32));
        assert_int_equal(vtRun("'%s' render '%s' --out '%s' --size 32x32 --fps %g --frames %d -q 2>/dev/null", g_tplan,
                               g_plan, dir, fps[i], want),
                         2);
    }
    print_message("%.4f s of motion: %d frames at 60 fps\n", dur, tpView_FrameCount(&rec, 0, 60));
    tpPlanRecord_Free(&rec);
}

int main(int argc, char **argv)
{
    if (!vtArgs(argc, argv, "DOMAIN", &g_tplan, &g_domain, &g_work)) {
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_by_default),
        cmocka_unit_test(test_legend_body_colours),
        cmocka_unit_test(test_frame_count),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
