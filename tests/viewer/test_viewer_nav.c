/* Navigation overlays in tplan render (run under xvfb-run, see xvfb.sh): plan the maze, render a
 * frame with and without the overlay layers, check that the layers change the picture, that the
 * recorded path's colour (magenta) lies along the path and only with the path layer on, and that
 * plans with a corrupted overlay section are refused by view and render with exit 2.
 * Usage: test_viewer_nav TPLAN MAZE_DOMAIN WORKDIR */
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

#define W 640
#define H 360

static const char *g_tplan, *g_domain, *g_work;
static char g_plan[1024];
static int g_frame; /* maze: dt = 1/60 s, so frame k at 60 fps shows step k */

static unsigned char *render(const char *name, const char *nav)
{
    char dir[1200], path[1300];
    snprintf(dir, sizeof dir, "%s/%s", g_work, name);
    assert_int_equal(vtRun("'%s' render '%s' --out '%s' --size %dx%d --frames %d --no-trails --no-overlay --nav %s -q",
                           g_tplan, g_plan, dir, W, H, g_frame, nav),
                     0);
    snprintf(path, sizeof path, "%s/frame_%06d.png", dir, g_frame);
    return vtLoadPng(path, W, H);
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_plan, sizeof g_plan, "%s/maze.json", g_work);
    if (vtRun("'%s' plan '%s' --seed 1 -q -o '%s'", g_tplan, g_domain, g_plan) != 0) {
        return -1;
    }
    /* the frame: a few steps into the segment whose path has the most vertices */
    tpPlanRecord rec;
    char err[1024];
    if (!tpPlanRecord_Read(&rec, g_plan, err, sizeof err)) {
        return -1;
    }
    int best = -1;
    for (int k = 0; k < rec.noverlays; ++k) {
        const tpPlanOverlay *o = &rec.overlays[k];
        if (o->kind == TP_OVERLAY_PATH && (best < 0 || o->npoints > rec.overlays[best].npoints)) {
            best = k;
        }
    }
    g_frame = best >= 0 ? rec.overlays[best].first + 5 : 0;
    tpPlanRecord_Free(&rec);
    return best >= 0 ? 0 : -1;
}

static int differing(const unsigned char *a, const unsigned char *b)
{
    int n = 0;
    for (size_t k = 0; k < (size_t)W * H; ++k) {
        n += abs(a[3 * k] - b[3 * k]) + abs(a[3 * k + 1] - b[3 * k + 1]) + abs(a[3 * k + 2] - b[3 * k + 2]) > 30;
    }
    return n;
}

static bool magenta(const unsigned char *p)
{
    return p[0] > 190 && p[1] < 110 && p[2] > 150;
}

static bool magenta_near(const unsigned char *img, double x, double y)
{
    for (int dy = -2; dy <= 2; ++dy) {
        for (int dx = -2; dx <= 2; ++dx) {
            int px = (int)lround(x) + dx, py = (int)lround(y) + dy;
            if (px >= 0 && py >= 0 && px < W && py < H && magenta(img + ((size_t)py * W + px) * 3)) {
                return true;
            }
        }
    }
    return false;
}

static int count_magenta(const unsigned char *img)
{
    int n = 0;
    for (size_t k = 0; k < (size_t)W * H; ++k) {
        n += magenta(img + 3 * k);
    }
    return n;
}

/* The maze plan records a grid and a path per nav_to segment; each layer changes the picture. */
static void test_layers_change_pixels(void **state)
{
    (void)state;
    tpPlanRecord rec;
    char err[1024];
    assert_true(tpPlanRecord_Read(&rec, g_plan, err, sizeof err));
    int ngrid = 0, npath = 0;
    for (int k = 0; k < rec.noverlays; ++k) {
        ngrid += rec.overlays[k].kind == TP_OVERLAY_GRID;
        npath += rec.overlays[k].kind == TP_OVERLAY_PATH;
    }
    assert_true(ngrid >= 1);
    assert_true(npath >= 1);
    tpPlanRecord_Free(&rec);

    unsigned char *none = render("nav_none", "none"), *all = render("nav_all", "all");
    unsigned char *grid = render("nav_grid", "grid"), *paths = render("nav_paths", "paths");
    int d_all = differing(none, all), d_grid = differing(none, grid), d_paths = differing(none, paths);
    printf("pixels changed: all layers %d, grid %d, paths %d (of %d)\n", d_all, d_grid, d_paths, W * H);
    assert_true(d_all > W * H / 100);
    assert_true(d_grid > W * H / 100); /* the grown band along every wall */
    assert_true(d_paths > 200);
    assert_int_equal(count_magenta(none), 0);
    assert_int_equal(count_magenta(grid), 0);
    free(none), free(all), free(grid), free(paths);
}

/* The path layer's colour lies along the polyline recorded for the step shown. */
static void test_path_colour_along_path(void **state)
{
    (void)state;
    tpPlanRecord rec;
    char err[1024];
    assert_true(tpPlanRecord_Read(&rec, g_plan, err, sizeof err));
    const tpPlanOverlay *path = NULL;
    for (int k = 0; k < rec.noverlays; ++k) {
        const tpPlanOverlay *o = &rec.overlays[k];
        if (o->kind == TP_OVERLAY_PATH && o->first <= g_frame && g_frame <= o->last) {
            path = o;
        }
    }
    assert_non_null(path);
    assert_true(path->npoints >= 2);
    tpViewCamera cam;
    vtDefaultCamera(&cam, &rec, W, H);
    unsigned char *img = render("nav_paths", "paths"), *none = render("nav_none", "none");
    int samples = 0, hits = 0, hits_none = 0;
    for (int k = 0; k + 1 < path->npoints; ++k) {
        for (int q = 1; q < 10; ++q) { /* points inside each segment (the robot may cover a few) */
            double s = q / 10.0,
                   p[3] = {path->points[2 * k] + s * (path->points[2 * k + 2] - path->points[2 * k]),
                           path->points[2 * k + 1] + s * (path->points[2 * k + 3] - path->points[2 * k + 1]), 0.004};
            double x, y;
            if (!tpViewCamera_Project(&cam, W, H, p, &x, &y) || x < 0 || y < 0 || x >= W || y >= H) {
                continue;
            }
            ++samples;
            hits += magenta_near(img, x, y);
            hits_none += magenta_near(none, x, y);
        }
    }
    printf("path samples %d: magenta at %d with the path layer, %d without\n", samples, hits, hits_none);
    assert_true(samples >= 18); /* at least two segments */
    assert_true(hits >= samples * 8 / 10);
    assert_int_equal(hits_none, 0);
    free(img);
    free(none);
    tpPlanRecord_Free(&rec);
}

/* Replaces the first `from` after "overlays" with `to`, writes it as `name`, and expects exit 2 from
 * view and render with a message naming the overlay field. */
static void expect_refused(const char *text, const char *from, const char *to, const char *want)
{
    const char *ov = strstr(text, "\"overlays\"");
    assert_non_null(ov);
    const char *at = strstr(ov, from);
    assert_non_null(at);
    char path[1200], log[1200];
    snprintf(path, sizeof path, "%s/bad_overlay.json", g_work);
    snprintf(log, sizeof log, "%s/bad_overlay.log", g_work);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(text, 1, (size_t)(at - text), f);
    fputs(to, f);
    fputs(at + strlen(from), f);
    fclose(f);
    assert_int_equal(vtRun("'%s' render '%s' --out '%s/bad' --frames 0 -q 2>'%s'", g_tplan, path, g_work, log), 2);
    size_t n;
    char *msg = vtSlurp(log, &n);
    assert_non_null(msg);
    if (!strstr(msg, want)) {
        fail_msg("render: expected a message with \"%s\", got \"%s\"", want, msg);
    }
    free(msg);
    assert_int_equal(vtRun("'%s' view '%s' --quit-after 1 2>'%s'", g_tplan, path, log), 2);
    msg = vtSlurp(log, &n);
    assert_non_null(msg);
    if (!strstr(msg, want)) {
        fail_msg("view: expected a message with \"%s\", got \"%s\"", want, msg);
    }
    free(msg);
}

static void test_corrupt_overlays_refused(void **state)
{
    (void)state;
    size_t n;
    char *text = vtSlurp(g_plan, &n);
    assert_non_null(text);
    expect_refused(text, "\"cells\": \"", "\"cells\": \"9", "overlays[0].cells: the runs cover");
    expect_refused(text, "\"kind\": \"path\"", "\"kind\": \"pth\"", "overlays[1].kind");
    expect_refused(text, "\"steps\": [0, ", "\"steps\": [-1, ", "overlays[0].steps");
    expect_refused(text, "\"tactic\": \"walker\"", "\"tactic\": \"walk\"", "overlays[0].tactic: no tactic named");
    expect_refused(text, "\"points\": [[", "\"points\": [[\"x\", ", "overlays[1].points[0]");
    assert_int_equal(vtRun("'%s' render '%s' --out '%s/x' --nav grid,bogus -q 2>/dev/null", g_tplan, g_plan, g_work),
                     2);
    free(text);
}

int main(int argc, char **argv)
{
    if (!vtArgs(argc, argv, "MAZE_DOMAIN", &g_tplan, &g_domain, &g_work)) {
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layers_change_pixels),
        cmocka_unit_test(test_path_colour_along_path),
        cmocka_unit_test(test_corrupt_overlays_refused),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
