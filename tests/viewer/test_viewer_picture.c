/* The picture in rendered frames: a scene without a floor is drawn without a grid
 * (a reference grid was drawn below it, read as a floor that is not there), and the dice domain's
 * dice show their pips (white on the red dice), where the same plan under another domain's name
 * draws plain boxes; the joints of a plan (its "joints") are drawn, an anchor marker and an axis
 * line in the joint colour, and not with --no-joints; a ball that falls off a table far out of the
 * scene does not make the table a speck (the camera frames the action, not the fall).
 * Usage: test_viewer_picture TPLAN DICE_DOMAIN WORKDIR (under xvfb-run, see xvfb.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/plan.h"
#include "viewer_test_util.h"

enum { W = 320, H = 240 };

static const char *g_tplan, *g_domain, *g_work;

/* Pixels that are light and grey (all channels within 12 of each other, the darkest above lo). */
static int grey_pixels(const unsigned char *img, int lo)
{
    int n = 0;
    for (size_t i = 0; i < (size_t)W * H; ++i) {
        const unsigned char *p = img + 3 * i;
        int mn = p[0] < p[1] ? (p[0] < p[2] ? p[0] : p[2]) : (p[1] < p[2] ? p[1] : p[2]);
        int mx = p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
        n += mx - mn <= 12 && mn > lo;
    }
    return n;
}

/* A red crate drifting in zero gravity, no floor: no grid lines, only the crate and the background. */
static void test_no_grid_without_floor(void **state)
{
    (void)state;
    char script[1200], plan[1200], png[1400];
    snprintf(script, sizeof script, "%s/nofloor.lua", g_work);
    const char *lua = "local tp = require 'tp'\n"
                      "return tp.domain { name = 'nofloor', dt = 1 / 60, gravity = { 0, 0, 0 },\n"
                      "  bodies = { tp.box { name = 'crate', class = 'passive', size = { 0.5, 0.5, 0.5 }, mass = 1,\n"
                      "    pos = { 0, 0, 1 }, vel = { 0.5, 0, 0 }, color = { 0.9, 0.2, 0.2, 1 } } },\n"
                      "  goal = tp.within { body = 'crate', center = { 1, 0, 1 }, radius = 0.2 } }\n";
    vtSpit(script, lua, strlen(lua));
    snprintf(plan, sizeof plan, "%s/nofloor.json", g_work);
    assert_int_equal(vtRun("'%s' plan '%s' -q -o '%s'", g_tplan, script, plan), 0);
    assert_int_equal(vtRun("'%s' render '%s' --out '%s/nofloor' --size %dx%d --frames 0 --no-trails --no-goal -q",
                           g_tplan, plan, g_work, W, H),
                     0);
    snprintf(png, sizeof png, "%s/nofloor/frame_000000.png", g_work);
    unsigned char *img = vtLoadPng(png, W, H);
    int grey = grey_pixels(img, 60); /* the grid's lines were (0.5, 0.5, 0.55) at 60 %: about 90 */
    print_message("light grey pixels without a floor: %d\n", grey);
    assert_true(grey < 10);
    free(img);
}

/* Pixels of the dice's pips: near white (the dice are red, the floor brown). */
static int white_pixels(const char *dir, int frame)
{
    char png[1400];
    snprintf(png, sizeof png, "%s/frame_%06d.png", dir, frame);
    unsigned char *img = vtLoadPng(png, W, H);
    int n = grey_pixels(img, 200);
    free(img);
    return n;
}

static void test_dice_show_pips(void **state)
{
    (void)state;
    char plan[1200], other[1200], dir[1200], odir[1200];
    snprintf(plan, sizeof plan, "%s/dice.json", g_work);
    int rc = vtRun("'%s' plan '%s' --set count=30 --set text=I --set force=0.3 -q -o '%s'", g_tplan, g_domain, plan);
    assert_true(rc == 0 || rc == 3);
    /* the same plan under another domain's name: its cubes are plain boxes */
    snprintf(other, sizeof other, "%s/dicey.json", g_work);
    assert_int_equal(
        vtRun("sed 's/\"domain\": {\"name\": \"dice\"/\"domain\": {\"name\": \"dicey\"/' '%s' > '%s'", plan, other), 0);
    tpPlanRecord rec;
    char err[1024];
    assert_true(tpPlanRecord_Read(&rec, other, err, sizeof err));
    assert_string_equal(rec.domain_name, "dicey");
    int last = tpView_FrameCount(&rec, 0, 60) - 1;
    tpPlanRecord_Free(&rec);
    /* close above the pattern, below the pegs */
    snprintf(dir, sizeof dir, "%s/pips", g_work);
    snprintf(odir, sizeof odir, "%s/nopips", g_work);
    const char *opts = "--frames last --no-trails --no-overlay --no-goal --camera -90,70,1.2,0,0,0 -q";
    assert_int_equal(vtRun("'%s' render '%s' --out '%s' --size %dx%d %s", g_tplan, plan, dir, W, H, opts), 0);
    assert_int_equal(vtRun("'%s' render '%s' --out '%s' --size %dx%d %s", g_tplan, other, odir, W, H, opts), 0);
    int pips = white_pixels(dir, last), none = white_pixels(odir, last);
    print_message("white pixels: %d with pips, %d without\n", pips, none);
    assert_true(none < 10);
    assert_true(pips > 200);
}

/* Pixels of the joint colour (1, 0.15, 1): magenta, drawn over everything. */
static int joint_pixels(const unsigned char *img)
{
    int n = 0;
    for (size_t i = 0; i < (size_t)W * H; ++i) {
        const unsigned char *p = img + 3 * i;
        n += p[0] > 200 && p[1] < 90 && p[2] > 200;
    }
    return n;
}

/* A grey bar on a hinge to the world (axis y) swinging down: its anchor and axis are drawn in the
 * joint colour (no body is magenta), and nothing of it with --no-joints. */
static void test_joints_drawn(void **state)
{
    (void)state;
    char script[1200], plan[1200], png[1400];
    snprintf(script, sizeof script, "%s/hinge.lua", g_work);
    const char *lua = "local tp = require 'tp'\n"
                      "return tp.domain { name = 'hinge', dt = 1 / 60,\n"
                      "  bodies = { tp.plane { name = 'floor', color = { 0.3, 0.3, 0.35, 1 } },\n"
                      "    tp.box { name = 'bar', class = 'passive', size = { 1, 0.1, 0.1 }, mass = 1,\n"
                      "    pos = { 0.5, 0, 1.5 }, color = { 0.6, 0.6, 0.6, 1 } } },\n"
                      "  joints = { tp.joint { name = 'pin', kind = 'hinge', bodies = { 'bar', 'world' },\n"
                      "    anchor = { 0, 0, 1.5 }, axis = { 0, 1, 0 } } },\n"
                      "  goal = function(s) return s.t > 0.1 end }\n";
    vtSpit(script, lua, strlen(lua));
    snprintf(plan, sizeof plan, "%s/hinge.json", g_work);
    assert_int_equal(vtRun("'%s' plan '%s' -q -o '%s'", g_tplan, script, plan), 0);
    int count[2];
    for (int off = 0; off < 2; ++off) {
        assert_int_equal(vtRun("'%s' render '%s' --out '%s/hinge%d' --size %dx%d --frames 0 --no-trails --no-goal "
                               "--camera 0,20,2,0.3,0,1.3 %s -q",
                               g_tplan, plan, g_work, off, W, H, off ? "--no-joints" : ""),
                         0);
        snprintf(png, sizeof png, "%s/hinge%d/frame_000000.png", g_work, off);
        unsigned char *img = vtLoadPng(png, W, H);
        count[off] = joint_pixels(img);
        free(img);
    }
    print_message("joint-coloured pixels: %d drawn, %d with --no-joints\n", count[0], count[1]);
    assert_true(count[0] > 25); /* measured 52 at 320 x 240 */
    assert_true(count[1] < 5);
}

/* The fall_camera (the repro turned into this test): a ball rolls off a table with no floor
 * below and falls; the fitted camera frames the table and the ball, not the fall: the table (white)
 * fills a good part of frame 0 instead of being a speck at the top of a 2 km line. */
static void test_fall_camera(void **state)
{
    (void)state;
    char script[1200], plan[1200], png[1400];
    snprintf(script, sizeof script, "%s/fall_camera.lua", g_work);
    const char *lua = "local tp = require 'tp'\n"
                      "return tp.domain { name = 'fall_camera', dt = 1 / 30, substeps = 4,\n"
                      "  bodies = {\n"
                      "    tp.box { name = 'table', class = 'static', size = {1, 1, 0.1}, pos = {0, 0, 0.7} },\n"
                      "    tp.sphere { name = 'ball', class = 'active', radius = 0.05, mass = 0.1, pos = {0, 0, 0.8},\n"
                      "                vel = {1, 0, 0} } },\n"
                      "  tactics = { tp.tactic { name = 'w', body = 'ball', skills = { tp.skill.wait { name = 'wait',\n"
                      "                duration = 1 } } } },\n"
                      "  goal = function(st) return st.t >= 20 end,\n"
                      "  planner = { max_iters = 600, seed = 1 } }\n";
    vtSpit(script, lua, strlen(lua));
    snprintf(plan, sizeof plan, "%s/fall.json", g_work);
    int rc = vtRun("'%s' plan '%s' -q -o '%s'", g_tplan, script, plan);
    assert_true(rc == 0 || rc == 3);
    tpPlanRecord rec;
    char err[1024];
    assert_true(tpPlanRecord_Read(&rec, plan, err, sizeof err));
    const tpPlanWorld *w = &rec.worlds[rec.selected];
    double lowest = w->traj[1][(size_t)w->nsteps * TP_STATE_DOUBLES + 2];
    print_message("the ball falls to z = %.1f m\n", lowest);
    assert_true(lowest < -50); /* it did fall away */
    tpPlanRecord_Free(&rec);
    assert_int_equal(vtRun("'%s' render '%s' --out '%s/fall' --size %dx%d --frames 0 --no-trails --no-goal -q", g_tplan,
                           plan, g_work, W, H),
                     0);
    snprintf(png, sizeof png, "%s/fall/frame_000000.png", g_work);
    unsigned char *img = vtLoadPng(png, W, H);
    int table = grey_pixels(img, 150); /* the table's top and the ball: light grey */
    print_message("the table covers %d of %d pixels\n", table, W * H);
    assert_true(table > W * H / 5);
    free(img);
}

int main(int argc, char **argv)
{
    if (!vtArgs(argc, argv, "DICE_DOMAIN", &g_tplan, &g_domain, &g_work)) {
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_grid_without_floor),
        cmocka_unit_test(test_dice_show_pips),
        cmocka_unit_test(test_joints_drawn),
        cmocka_unit_test(test_fall_camera),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
