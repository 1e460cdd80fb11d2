/* tplan render / tplan view end to end (run under xvfb-run, see xvfb.sh): plan minigolf, render
 * its first and last frames and check the pixels; refuse corrupt plan and tree files with exit 2.
 * Usage: test_viewer_frames TPLAN DOMAIN WORKDIR */
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
static char g_plan[1024], g_tree[1024], g_many[1024];

/* The ball is white: lit, it shows as light grey. Nothing else in the minigolf scene is (green
 * ground, brown walls, red bar, dark robot), with trails, tree, overlay and goal region off (the
 * goal's translucent disc over the hole has light pixels at its rim, where a ball ends). */
static bool ball_pixel(const unsigned char *p)
{
    int mx = p[0], mn = p[0];
    for (int k = 1; k < 3; ++k) {
        mx = p[k] > mx ? p[k] : mx;
        mn = p[k] < mn ? p[k] : mn;
    }
    return mn > 140 && mx - mn < 40;
}

static int ball_pixels_near(const unsigned char *img, double cx, double cy, int r)
{
    int n = 0;
    for (int y = (int)cy - r; y <= (int)cy + r; ++y) {
        for (int x = (int)cx - r; x <= (int)cx + r; ++x) {
            if (x >= 0 && y >= 0 && x < W && y < H && ball_pixel(img + ((size_t)y * W + x) * 3)) {
                ++n;
            }
        }
    }
    return n;
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_plan, sizeof g_plan, "%s/mg.json", g_work);
    snprintf(g_tree, sizeof g_tree, "%s/mg.tree", g_work);
    int rc = vtRun("'%s' plan '%s' --planner rrt --seed 1 --max-iters 200000 -q -o '%s' --tree '%s'", g_tplan, g_domain,
                   g_plan, g_tree);
    if (rc != 0) {
        return -1; /* the RRT solves seed 1 */
    }
    snprintf(g_many, sizeof g_many, "%s/many.json", g_work);
    /* seed 2: its two solutions' balls part by 2.6 m (seed 1's, since speculative contacts, by 0.26 m) */
    rc = vtRun("'%s' plan '%s' --planner rrt --seed 2 --solutions 2 --max-iters 200000 -q -o '%s'", g_tplan, g_domain,
               g_many);
    return rc == 0 ? 0 : -1;
}

/* Frames 0 and last: the ball's colour is where its recorded position projects, and only there. */
static void test_ball_in_first_and_last_frame(void **state)
{
    (void)state;
    assert_int_equal(
        vtRun("'%s' render '%s' --out '%s/plain' --size %dx%d --frames 0,last --no-trails --no-overlay --no-goal -q",
              g_tplan, g_plan, g_work, W, H),
        0);
    tpPlanRecord rec;
    char err[1024];
    assert_true(tpPlanRecord_Read(&rec, g_plan, err, sizeof err));
    int ball = -1;
    for (int b = 0; b < rec.nbodies; ++b) {
        if (strcmp(rec.bodies[b].name, "ball") == 0) {
            ball = b;
        }
    }
    assert_true(ball >= 0);
    int last = tpView_FrameCount(&rec, 0, 60) - 1;
    tpViewCamera cam;
    vtDefaultCamera(&cam, &rec, W, H);
    double px[2], py[2];
    unsigned char *img[2];
    for (int k = 0; k < 2; ++k) {
        char path[1200];
        snprintf(path, sizeof path, "%s/plain/frame_%06d.png", g_work, k ? last : 0);
        img[k] = vtLoadPng(path, W, H);
        double p[3], q[4];
        tpView_BodyPose(&rec, 0, ball, (k ? last : 0) / 60.0, p, q);
        assert_true(tpViewCamera_Project(&cam, W, H, p, &px[k], &py[k]));
        /* not blank: many distinct colours */
        int distinct = 0;
        for (size_t i = 3 * 97; i < (size_t)W * H * 3 && distinct < 50; i += 3 * 97) {
            distinct += memcmp(img[k] + i, img[k] + i - 3 * 97, 3) != 0;
        }
        assert_true(distinct >= 50);
    }
    /* the ball travelled far enough for the two positions to be told apart */
    assert_true(hypot(px[1] - px[0], py[1] - py[0]) > 40);
    for (int k = 0; k < 2; ++k) {
        int here = ball_pixels_near(img[k], px[k], py[k], 6);
        int other = ball_pixels_near(img[k], px[1 - k], py[1 - k], 6);
        print_message("frame %s: ball at (%.1f, %.1f): %d ball pixels there, %d at the other frame's position\n",
                      k ? "last" : "0", px[k], py[k], here, other);
        assert_true(here >= 4);
        assert_int_equal(other, 0);
    }
    free(img[0]);
    free(img[1]);
    tpPlanRecord_Free(&rec);
}

/* The goal region: minigolf's plan records the hole as a circle for the ball, and the
 * frame drawn with it differs from the frame drawn with --no-goal around the hole, and only there. */
static void test_goal_region_drawn(void **state)
{
    (void)state;
    tpPlanRecord rec;
    char err[1024];
    assert_true(tpPlanRecord_Read(&rec, g_plan, err, sizeof err));
    assert_int_equal(rec.ngoal_regions, 1);
    const tpPlanGoalRegion *g = &rec.goal_regions[0];
    assert_int_equal(g->kind, TP_GOAL_CIRCLE);
    assert_string_equal(rec.bodies[g->body].name, "ball");
    for (int k = 0; k < 2; ++k) {
        assert_int_equal(vtRun("'%s' render '%s' --out '%s/goal%d' --size %dx%d --frames 0 --no-trails %s -q", g_tplan,
                               g_plan, g_work, k, W, H, k ? "--no-goal" : ""),
                         0);
    }
    char p0[1200], p1[1200];
    snprintf(p0, sizeof p0, "%s/goal0/frame_000000.png", g_work);
    snprintf(p1, sizeof p1, "%s/goal1/frame_000000.png", g_work);
    unsigned char *a = vtLoadPng(p0, W, H), *b = vtLoadPng(p1, W, H);
    tpViewCamera cam;
    vtDefaultCamera(&cam, &rec, W, H);
    /* the hole's edge, at the ball's height, sets how far from its centre the column shows */
    double c[3] = {g->center[0], g->center[1], 0.021}, e[3] = {g->center[0] + g->radius, g->center[1], 0.021};
    double cx, cy, ex, ey;
    assert_true(tpViewCamera_Project(&cam, W, H, c, &cx, &cy));
    assert_true(tpViewCamera_Project(&cam, W, H, e, &ex, &ey));
    double reach = 2.0 * hypot(ex - cx, ey - cy) + 4;
    long near = 0, far = 0;
    for (int y = 0; y < H; ++y) {
        for (int x = 0; x < W; ++x) {
            if (memcmp(a + 3 * ((size_t)y * W + x), b + 3 * ((size_t)y * W + x), 3) != 0) {
                if (hypot(x - cx, y - cy) <= reach) {
                    ++near;
                } else {
                    ++far;
                }
            }
        }
    }
    print_message("goal region: %ld pixels changed within %.1f px of the hole at (%.1f, %.1f), %ld elsewhere\n", near,
                  reach, cx, cy, far);
    assert_true(near >= 20);
    assert_int_equal(far, 0);
    free(a), free(b);
    tpPlanRecord_Free(&rec);
}

/* The tree layer changes the picture; the overlay (--hud) too. */
static void test_tree_layer_toggles(void **state)
{
    (void)state;
    assert_int_equal(
        vtRun("'%s' render '%s' --out '%s/t0' --size %dx%d --frames 0 --no-overlay -q", g_tplan, g_plan, g_work, W, H),
        0);
    assert_int_equal(vtRun("'%s' render '%s' --tree '%s' --out '%s/t1' --size %dx%d --frames 0 --no-overlay -q",
                           g_tplan, g_plan, g_tree, g_work, W, H),
                     0);
    assert_int_equal(vtRun("'%s' render '%s' --tree '%s' --out='%s/t2' --size=%dx%d --frames=0 --hud -q", g_tplan,
                           g_plan, g_tree, g_work, W, H),
                     0);
    char p0[1200], p1[1200], p2[1200];
    snprintf(p0, sizeof p0, "%s/t0/frame_000000.png", g_work);
    snprintf(p1, sizeof p1, "%s/t1/frame_000000.png", g_work);
    snprintf(p2, sizeof p2, "%s/t2/frame_000000.png", g_work);
    unsigned char *a = vtLoadPng(p0, W, H), *b = vtLoadPng(p1, W, H), *c = vtLoadPng(p2, W, H);
    long tree_diff = 0, overlay_diff = 0;
    for (size_t i = 0; i < (size_t)W * H; ++i) {
        tree_diff += memcmp(a + 3 * i, b + 3 * i, 3) != 0;
        overlay_diff += memcmp(b + 3 * i, c + 3 * i, 3) != 0;
    }
    print_message("pixels changed by the tree layer: %ld, by the overlay: %ld\n", tree_diff, overlay_diff);
    assert_true(tree_diff > 2000);
    assert_true(overlay_diff > 2000);
    free(a), free(b), free(c);
}

static int find_body(const tpPlanRecord *rec, const char *name)
{
    for (int b = 0; b < rec->nbodies; ++b) {
        if (strcmp(rec->bodies[b].name, name) == 0) {
            return b;
        }
    }
    fail_msg("no body %s", name);
    return -1;
}

/* The frame where the two solutions' balls are farthest apart on screen, into *best and pw;
 * returns that distance (px). */
static double farthest_frame(const tpPlanRecord *rec, const tpViewCamera *cam, int ball, int *best, double pw[2][2])
{
    int n = tpView_FrameCount(rec, 0, 60), n1 = tpView_FrameCount(rec, 1, 60);
    double bestd = -1;
    *best = 0;
    for (int k = 0; k < (n < n1 ? n : n1); ++k) {
        double p[2][2];
        for (int w = 0; w < 2; ++w) {
            double pos[3], q[4];
            tpView_BodyPose(rec, w, ball, k / 60.0, pos, q);
            assert_true(tpViewCamera_Project(cam, W, H, pos, &p[w][0], &p[w][1]));
        }
        double d = hypot(p[1][0] - p[0][0], p[1][1] - p[0][1]);
        if (d > bestd) {
            bestd = d, *best = k;
            memcpy(pw, p, 4 * sizeof(double));
        }
    }
    return bestd;
}

/* Many worlds: --world 2 renders the second solution (the ball where that solution has it). The
 * first seed (from 2) whose two solutions' balls part by more than 40 px somewhere: how far
 * they part depends on the physics, which the test is not about. */
static void test_render_second_world(void **state)
{
    (void)state;
    tpPlanRecord rec;
    char err[1024];
    /* top-down (walls never hide the ball), centred on the scene as --camera does */
    const char *top = "-90,89,3.3";
    tpViewCamera cam;
    int best = 0, ball = -1;
    double bestd = -1, pw[2][2] = {{0, 0}, {0, 0}};
    for (int seed = 2;; ++seed) {
        assert_true(tpPlanRecord_Read(&rec, g_many, err, sizeof err));
        assert_int_equal(rec.nworlds, 2);
        ball = find_body(&rec, "ball");
        tpViewCamera_Fit(&cam, &rec, (double)W / H);
        assert_true(tpViewCamera_Parse(&cam, top, err, sizeof err));
        bestd = farthest_frame(&rec, &cam, ball, &best, pw);
        if (bestd > 40 || seed == 8)
            break;
        tpPlanRecord_Free(&rec);
        assert_int_equal(vtRun("'%s' plan '%s' --planner rrt --seed %d --solutions 2 --max-iters 200000 -q -o '%s'",
                               g_tplan, g_domain, seed + 1, g_many),
                         0);
    }
    assert_true(bestd > 40);
    /* --no-goal: the hole's goal column is drawn in the ball's own colour (white), which the ball
       pixel test would count where both balls end */
    for (int w = 0; w < 2; ++w) {
        assert_int_equal(vtRun("'%s' render '%s' --world %d --out '%s/world%d' --size %dx%d --frames %d --no-trails "
                               "--no-goal --no-overlay --camera %s -q",
                               g_tplan, g_many, w + 1, g_work, w + 1, W, H, best, top),
                         0);
        char path[1200];
        snprintf(path, sizeof path, "%s/world%d/frame_%06d.png", g_work, w + 1, best);
        unsigned char *img = vtLoadPng(path, W, H);
        int here = ball_pixels_near(img, pw[w][0], pw[w][1], 6);
        int other = ball_pixels_near(img, pw[1 - w][0], pw[1 - w][1], 6);
        print_message("world %d, frame %d: %d ball pixels at its ball, %d at the other world's\n", w + 1, best, here,
                      other);
        assert_true(here >= 4);
        assert_int_equal(other, 0);
        free(img);
    }
    assert_int_equal(vtRun("'%s' render '%s' --world 3 --out '%s/world3' -q 2>/dev/null", g_tplan, g_many, g_work), 2);
    tpPlanRecord_Free(&rec);
}

/* Many bodies and tactics (a quick dice instance): renders with its tree and contacts; the dice's
   own colours show in the last frame. */
static void test_dice_renders(void **state)
{
    (void)state;
    char domain[1200], plan[1200], tree[1200];
    snprintf(domain, sizeof domain, "%s", g_domain);
    char *slash = strrchr(domain, '/');
    snprintf(slash ? slash + 1 : domain, sizeof domain - (size_t)(slash ? slash + 1 - domain : 0), "dice.lua");
    snprintf(plan, sizeof plan, "%s/dice.json", g_work);
    snprintf(tree, sizeof tree, "%s/dice.tree", g_work);
    int rc = vtRun("'%s' plan '%s' --set count=30 --set text=I --set force=0.3 -q -o '%s' --tree '%s'", g_tplan, domain,
                   plan, tree);
    assert_true(rc == 0 || rc == 3);
    assert_int_equal(vtRun("'%s' render '%s' --tree '%s' --contacts --out '%s/dice_all' --size %dx%d --frames last -q",
                           g_tplan, plan, tree, g_work, W, H),
                     0);
    /* the colour check on a frame without the layers (contact dots are red like the dice) */
    assert_int_equal(vtRun("'%s' render '%s' --no-trails --no-overlay --out '%s/dice' --size %dx%d --frames last -q",
                           g_tplan, plan, g_work, W, H),
                     0);
    tpPlanRecord rec;
    char err[1024];
    assert_true(tpPlanRecord_Read(&rec, plan, err, sizeof err));
    char path[1200];
    snprintf(path, sizeof path, "%s/dice/frame_%06d.png", g_work, tpView_FrameCount(&rec, 0, 60) - 1);
    unsigned char *img = vtLoadPng(path, W, H);
    /* the dice's colours (lit: shades of them) are in the picture */
    int found = 0;
    for (size_t i = 0; i < (size_t)W * H; ++i) {
        const unsigned char *p = img + 3 * i;
        bool match = false;
        for (int b = 0; b < rec.nbodies && !match; ++b) {
            const float *col = rec.bodies[b].color;
            if (!rec.bodies[b].moving) {
                continue;
            }
            double k = 0;
            for (int c = 0; c < 3; ++c) {
                k = fmax(k, p[c] / (255.0 * fmax(col[c], 1e-3)));
            }
            match = k > 0.3;
            for (int c = 0; c < 3 && match; ++c) {
                match = fabs(p[c] - k * 255 * col[c]) < 12;
            }
        }
        found += match;
    }
    print_message("pixels in a die's colour: %d\n", found);
    assert_true(found >= 30);
    free(img);
    tpPlanRecord_Free(&rec);
}

/* The interactive viewer opens, draws a few frames and closes (--quit-after; options written
 * --opt=value, the other tests write --opt value). */
static void test_view_smoke(void **state)
{
    (void)state;
    char out[1200];
    snprintf(out, sizeof out, "%s/view.txt", g_work);
    assert_int_equal(vtRun("'%s' view '%s' --tree='%s' --size=320x240 --quit-after=5 --fps --contacts >'%s'", g_tplan,
                           g_plan, g_tree, out),
                     0);
    size_t n;
    char *txt = vtSlurp(out, &n);
    assert_non_null(txt);
    assert_non_null(strstr(txt, "average fps"));
    free(txt);
}

/* tplan plan --view: the live window opens, plays, closes, and the plan is the same as without it. */
static void test_plan_live_view(void **state)
{
    (void)state;
    char live[1200];
    snprintf(live, sizeof live, "%s/live.json", g_work);
    assert_int_equal(vtRun("'%s' plan '%s' --planner rrt --seed 1 --max-iters 200000 -q -o '%s' --view "
                           "--view-quit-after 5",
                           g_tplan, g_domain, live),
                     0);
    size_t n1 = 0, n2 = 0;
    char *a = vtSlurp(g_plan, &n1), *b = vtSlurp(live, &n2);
    assert_non_null(a);
    assert_non_null(b);
    char *ta = strstr(a, "\"timing\""), *tb = strstr(b, "\"timing\"");
    assert_non_null(ta);
    assert_non_null(tb);
    assert_int_equal(ta - a, tb - b);
    assert_memory_equal(a, b, (size_t)(ta - a)); /* byte-identical apart from stats.timing */
    free(a);
    free(b);
}

/* tplan plan --view when planning ends before the first progress report (one iteration: the
 * first report is due progress_interval after the start): the window opens on the finished plan
 * instead of dereferencing a run the live view had not been given yet (it crashed). */
static void test_plan_live_view_no_progress(void **state)
{
    (void)state;
    assert_int_equal(vtRun("'%s' plan '%s' --max-iters 1 --no-out -q --view --view-quit-after 3", g_tplan, g_domain),
                     3);
}

/* Expects exit 2 and a message naming the file from view and render on a bad input. */
static void expect_refused(const char *what, const char *plan, const char *tree)
{
    char errf[1200], treearg[1200] = "";
    snprintf(errf, sizeof errf, "%s/err.txt", g_work);
    if (tree) {
        snprintf(treearg, sizeof treearg, "--tree '%s'", tree);
    }
    const char *bad = tree ? tree : plan;
    for (int mode = 0; mode < 2; ++mode) {
        int rc = mode ? vtRun("'%s' view '%s' %s --quit-after 2 >/dev/null 2>'%s'", g_tplan, plan, treearg, errf)
                      : vtRun("'%s' render '%s' %s --out '%s/bad' --frames 0 -q >/dev/null 2>'%s'", g_tplan, plan,
                              treearg, g_work, errf);
        size_t n;
        char *msg = vtSlurp(errf, &n);
        assert_non_null(msg);
        print_message("%s (%s): exit %d: %s", what, mode ? "view" : "render", rc, msg);
        if (rc != 2) {
            fail_msg("%s: exit %d, expected 2", what, rc);
        }
        const char *base = strrchr(bad, '/') ? strrchr(bad, '/') + 1 : bad;
        if (!strstr(msg, base)) {
            fail_msg("%s: the message does not name %s: %s", what, base, msg);
        }
        free(msg);
    }
}

/* The plan text (n bytes) with the byte `off` bytes into the first `needle` set to `c`, written
 * to WORKDIR/file: view and render must refuse it. */
static void expect_edit_refused(const char *what, const char *plan, size_t n, const char *needle, size_t off, char c,
                                const char *file)
{
    char *v = strdup(plan), *at = strstr(v, needle), p[1200];
    assert_non_null(at);
    at[off] = c;
    snprintf(p, sizeof p, "%s/%s", g_work, file);
    vtSpit(p, v, n);
    expect_refused(what, p, NULL);
    free(v);
}

static void test_corrupt_inputs_refused(void **state)
{
    (void)state;
    size_t n = 0, tn = 0;
    char *plan = vtSlurp(g_plan, &n), *tree = vtSlurp(g_tree, &tn);
    assert_non_null(plan);
    assert_non_null(tree);
    char p[1200];
#define BAD(name) (snprintf(p, sizeof p, "%s/%s", g_work, name), p)
    vtSpit(BAD("truncated.json"), plan, n / 2);
    expect_refused("truncated plan", p, NULL);
    vtSpit(BAD("empty.json"), plan, 0);
    expect_refused("empty plan", p, NULL);
    expect_edit_refused("wrong version", plan, n, "\"version\": 1", 11, '7', "version7.json");
    expect_edit_refused("wrong format", plan, n, "tplan-plan", 0, 'x', "format.json");
    expect_edit_refused("missing trajectory", plan, n, "\"trajectory\"", 10, 'x', "notraj.json");
    expect_edit_refused("malformed JSON", plan, n, "\"dt\": ", 6, '"', "badjson.json");
    char garbage[4096];
    for (size_t i = 0; i < sizeof garbage; ++i) {
        garbage[i] = (char)((i * 2654435761u) >> 13);
    }
    vtSpit(BAD("garbage.json"), garbage, sizeof garbage);
    expect_refused("binary garbage", p, NULL);
    expect_refused("missing plan file", BAD("no_such_plan.json"), NULL);
    /* trees */
    vtSpit(BAD("truncated.tree"), tree, tn - 100);
    expect_refused("truncated tree", g_plan, p);
    char *t = malloc(tn);
    memcpy(t, tree, tn);
    t[tn / 2] ^= 0x40;
    vtSpit(BAD("flipped.tree"), t, tn);
    expect_refused("tree with a flipped byte", g_plan, p);
    memcpy(t, tree, tn);
    t[8] = 2; /* version 2 */
    vtSpit(BAD("v2.tree"), t, tn);
    expect_refused("tree version 2", g_plan, p);
    expect_refused("plan given as the tree", g_plan, g_plan);
    /* a valid tree whose body is not in the plan */
    char *names[1] = {"ghost"};
    int32_t parent[2] = {-1, 0};
    uint8_t flags[2] = {0, 0};
    float pos[6] = {0, 0, 0, 1, 0, 0};
    tpTreeRecord other = {1, names, 2, parent, flags, pos};
    char err[512];
    assert_true(tpTreeRecord_Write(&other, BAD("ghost.tree"), err, sizeof err));
    expect_refused("tree of another plan", g_plan, p);
    free(t);
    free(plan);
    free(tree);
#undef BAD
}

/* --video without ffmpeg on the PATH: the frames are written, exit 1 with a message. */
static void test_video_without_ffmpeg(void **state)
{
    (void)state;
    char errf[1200], frame[1200];
    snprintf(errf, sizeof errf, "%s/video_err.txt", g_work);
    snprintf(frame, sizeof frame, "%s/video/frame_000000.png", g_work);
    int rc = vtRun("env PATH=/nonexistent '%s' render '%s' --out '%s/video' --size 64x64 --fps 2 --video '%s/x.mp4' "
                   "-q 2>'%s'",
                   g_tplan, g_plan, g_work, g_work, errf);
    assert_int_equal(rc, 1);
    size_t n;
    char *msg = vtSlurp(errf, &n);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "ffmpeg is not on the PATH"));
    free(msg);
    FILE *f = fopen(frame, "rb");
    assert_non_null(f);
    fclose(f);
}

/* Bad options: exit 2. */
static void test_bad_options(void **state)
{
    (void)state;
    const char *cmds[] = {
        "render '%s' --out /tmp/x --size 10x10",
        "render '%s' --out /tmp/x --fps 0",
        "render '%s' --out /tmp/x --frames 5-2",
        "render '%s' --out /tmp/x --frames 999999",
        "render '%s' --out /tmp/x --camera 1,2",
        "render '%s'",
        "view '%s' --bogus",
        "view '%s' --world 9",
        "render '%s' --out /tmp/x --frames 0 --video /tmp/x.mp4",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; ++i) {
        char c[1200];
        snprintf(c, sizeof c, cmds[i], g_plan);
        int rc = vtRun("'%s' %s >/dev/null 2>&1", g_tplan, c);
        if (rc != 2) {
            fail_msg("tplan %s: exit %d, expected 2", c, rc);
        }
    }
}

int main(int argc, char **argv)
{
    if (!vtArgs(argc, argv, "DOMAIN", &g_tplan, &g_domain, &g_work)) {
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ball_in_first_and_last_frame),
        cmocka_unit_test(test_tree_layer_toggles),
        cmocka_unit_test(test_goal_region_drawn),
        cmocka_unit_test(test_render_second_world),
        cmocka_unit_test(test_dice_renders),
        cmocka_unit_test(test_view_smoke),
        cmocka_unit_test(test_plan_live_view),
        cmocka_unit_test(test_plan_live_view_no_progress),
        cmocka_unit_test(test_corrupt_inputs_refused),
        cmocka_unit_test(test_video_without_ffmpeg),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
