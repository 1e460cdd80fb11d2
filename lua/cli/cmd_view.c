/* tplan view / tplan render: the viewer (viewer/, tp_viewer) on plan and tree files. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tp/base.h"
#include "tp/viewer.h"

static void view_usage(FILE *f)
{
    fprintf(f, "usage: tplan view PLAN.json [--tree TREE] [options]\n"
               "\n"
               "Opens a window (GLFW + OpenGL) that plays back the plan: the bodies with their shapes and\n"
               "colours, the ground grid, the trails of the moving bodies and, with --tree, the search tree\n"
               "(every node's position of every moving body joined to its parent's, one colour per body;\n"
               "the selected solution highlighted). Press H in the window for the keys.\n"
               "\n"
               "  --tree FILE         search tree written by 'tplan plan --tree FILE'\n"
               "  --size WxH          window size in pixels (default 1280x720)\n"
               "  --camera Y,P,D[,X,Y,Z]  yaw, pitch (degrees), distance (m) [and target (m); default: the\n"
               "                      scene's centre]; default camera: fitted to the scene\n"
               "  --world K           start with solution K (1 = the selected one; many-worlds plans)\n"
               "  --no-tree           start with the tree layer off (T toggles it)\n"
               "  --no-trails         start with the trails off (L)\n"
               "  --contacts          start with the approximate contact points on (K)\n"
               "  --no-overlay        start without the text overlay and timeline (O)\n"
               "  --nav LIST          navigation layers shown at start (plans with overlays): a comma\n"
               "                      list of grid, field, arrows, paths, windows, trees; all (default)\n"
               "                      or none (keys G F A Y W V)\n"
               "  --fps               print the frame rate once a second and the average at exit\n"
               "                      (also turns vsync off so the number measures the renderer)\n"
               "  --quit-after N      close after N frames (benchmarks, smoke tests)\n"
               "  --print-state       print the step, layers and camera when the window closes\n"
               "  -h, --help          this help\n"
               "\n"
               "Keys: space play/pause, left/right step, up/down 10 steps, [ ] speed, R restart,\n"
               "N/P next/previous solution, T tree, L trails, K contacts, O overlay, C reset camera,\n"
               "G/F/A/Y/W/V navigation grid/field/arrows/paths/windows/trees,\n"
               "H help, Esc quit. Mouse: left drag orbit, right/middle drag pan, wheel zoom, click or\n"
               "drag the timeline to seek.\n"
               "\n"
               "exit status: 0 closed normally, 2 bad option or unreadable/corrupt plan or tree file,\n"
               "1 no window could be opened (no display: run under xvfb-run).\n");
}

static void render_usage(FILE *f)
{
    fprintf(f, "usage: tplan render PLAN.json --out DIR [options]\n"
               "\n"
               "Renders the plan's motion offscreen, with the same look as 'tplan view', into numbered PNG\n"
               "frames DIR/frame_000000.png, ... (frame k shows time k/FPS). Needs an X display; on a\n"
               "machine without one, run it under xvfb-run.\n"
               "\n"
               "  --out DIR           output directory (created if missing)\n"
               "  --size WxH          image size in pixels (default 1280x720)\n"
               "  --fps N             frames per second of motion (default 60)\n"
               "  --frames LIST       only these frames, e.g. 0,10-20,last (default: all)\n"
               "  --camera Y,P,D[,X,Y,Z]  yaw, pitch (degrees), distance (m) [and target (m); default: the\n"
               "                      scene's centre]; default camera: fitted to the scene\n"
               "  --tree FILE         draw this search tree\n"
               "  --world K           render solution K (1 = the selected one)\n"
               "  --no-trails         no trails\n"
               "  --contacts          draw approximate contact points (derived from geometry)\n"
               "  --no-overlay        no text overlay and timeline\n"
               "  --nav LIST          navigation layers (plans with overlays): a comma list of grid,\n"
               "                      field, arrows, paths, windows, trees; all (default) or none\n"
               "  --video FILE        also encode the frames with ffmpeg (must be on the PATH)\n"
               "  -q, --quiet         print nothing but errors\n"
               "  -h, --help          this help\n"
               "\n"
               "exit status: 0 frames written, 2 bad option or unreadable/corrupt plan or tree file,\n"
               "1 no OpenGL context (no display), cannot write a frame, or ffmpeg failed.\n");
}

static bool parse_size(const char *v, int *w, int *h)
{
    char tail;
    if (!v || sscanf(v, "%dx%d%c", w, h, &tail) != 2 || *w < 16 || *h < 16 || *w > 8192 || *h > 8192) {
        tpLog(TP_LOG_ERROR, "--size expects WxH between 16x16 and 8192x8192 (got '%s')", v ? v : "");
        return false;
    }
    return true;
}

/* An argument of view or render that no option took: the plan file, given once. An unknown option
 * or a second file is an error (logged; returns TP_EXIT_BAD_INPUT). */
static int plan_argument(const char *a, const char **plan, const char *cmd)
{
    if (a[0] == '-' && a[1] != '\0') {
        tpLog(TP_LOG_ERROR, "unknown option '%s' (see 'tplan %s --help')", a, cmd);
        return TP_EXIT_BAD_INPUT;
    }
    if (*plan) {
        tpLog(TP_LOG_ERROR, "unexpected argument '%s'", a);
        return TP_EXIT_BAD_INPUT;
    }
    *plan = a;
    return TP_EXIT_OK;
}

/* Options shared by view and render. Returns 1 if consumed (advancing *i), 0 if not ours, -1 on error. */
static int common_option(int argc, char **argv, int *i, tpViewerDef *vd, const char **tree)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    char err[512];
    if (strcmp(a, "--no-trails") == 0) {
        vd->show_trails = false;
        return 1;
    }
    if (strcmp(a, "--contacts") == 0) {
        vd->show_contacts = true;
        return 1;
    }
    if (strcmp(a, "--no-overlay") == 0) {
        vd->show_overlay = false;
        return 1;
    }
    if (strcmp(a, "--nav") == 0) {
        if (!tpView_ParseNavLayers(v, &vd->nav_layers, err, sizeof err)) {
            tpLog(TP_LOG_ERROR, "%s", err);
            return -1;
        }
        ++*i;
        return 1;
    }
    bool takes =
        strcmp(a, "--tree") == 0 || strcmp(a, "--size") == 0 || strcmp(a, "--camera") == 0 || strcmp(a, "--world") == 0;
    if (!takes) {
        return 0;
    }
    if (!v) {
        tpLog(TP_LOG_ERROR, "%s: missing value", a);
        return -1;
    }
    ++*i;
    if (strcmp(a, "--tree") == 0) {
        *tree = v;
    } else if (strcmp(a, "--size") == 0) {
        if (!parse_size(v, &vd->width, &vd->height)) {
            return -1;
        }
    } else if (strcmp(a, "--camera") == 0) {
        tpViewCamera check = {{0, 0, 0}, 0, 0, 1, 1};
        if (!tpViewCamera_Parse(&check, v, err, sizeof err)) {
            tpLog(TP_LOG_ERROR, "%s", err);
            return -1;
        }
        vd->camera = v; /* applied over the fitted camera by the viewer */
    } else {
        long long k;
        if (!tpCli_ParseInt(a, v, 1, &k) || k > 1000000) {
            tpLog(TP_LOG_ERROR, "--world expects a solution number >= 1");
            return -1;
        }
        vd->world = (int)k - 1;
    }
    return 1;
}

int tpCmd_View(int argc, char **argv)
{
    tpViewerDef vd = tpDefaultViewerDef();
    const char *plan = NULL, *tree = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        int c = common_option(argc, argv, &i, &vd, &tree);
        if (c < 0) {
            return TP_EXIT_BAD_INPUT;
        } else if (c > 0) {
            continue;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            view_usage(stdout);
            return TP_EXIT_OK;
        } else if (strcmp(a, "--no-tree") == 0) {
            vd.show_tree = false;
        } else if (strcmp(a, "--fps") == 0) {
            vd.print_fps = true;
        } else if (strcmp(a, "--print-state") == 0) {
            vd.print_state = true;
        } else if (strcmp(a, "--quit-after") == 0) {
            long long n;
            if (i + 1 >= argc || !tpCli_ParseInt(a, argv[i + 1], 1, &n) || n > 1000000000) {
                tpLog(TP_LOG_ERROR, "--quit-after expects a number of frames >= 1");
                return TP_EXIT_BAD_INPUT;
            }
            vd.quit_after = (int)n;
            ++i;
        } else if (plan_argument(a, &plan, "view") != TP_EXIT_OK) {
            return TP_EXIT_BAD_INPUT;
        }
    }
    if (!plan) {
        view_usage(stderr);
        return TP_EXIT_BAD_INPUT;
    }
    return tpViewer_Run(plan, tree, &vd);
}

int tpCmd_Render(int argc, char **argv)
{
    tpRenderDef rd = tpDefaultRenderDef();
    const char *plan = NULL, *tree = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int c = common_option(argc, argv, &i, &rd.view, &tree);
        if (c < 0) {
            return TP_EXIT_BAD_INPUT;
        } else if (c > 0) {
            continue;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            render_usage(stdout);
            return TP_EXIT_OK;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            rd.quiet = true;
        } else if (a[0] == '-' && a[1] != '\0' && !v &&
                   (strcmp(a, "--out") == 0 || strcmp(a, "--fps") == 0 || strcmp(a, "--frames") == 0 ||
                    strcmp(a, "--video") == 0)) {
            tpLog(TP_LOG_ERROR, "%s: missing value", a);
            return TP_EXIT_BAD_INPUT;
        } else if (strcmp(a, "--out") == 0 || strcmp(a, "-o") == 0) {
            rd.out_dir = argv[++i];
        } else if (strcmp(a, "--fps") == 0) {
            if (!tpCli_ParseDouble(a, v, &rd.fps) || !(rd.fps > 0) || rd.fps > 1000) {
                tpLog(TP_LOG_ERROR, "--fps expects a number of frames per second in (0, 1000]");
                return TP_EXIT_BAD_INPUT;
            }
            ++i;
        } else if (strcmp(a, "--frames") == 0) {
            rd.frames = argv[++i];
        } else if (strcmp(a, "--video") == 0) {
            rd.video = argv[++i];
        } else if (plan_argument(a, &plan, "render") != TP_EXIT_OK) {
            return TP_EXIT_BAD_INPUT;
        }
    }
    if (!plan) {
        render_usage(stderr);
        return TP_EXIT_BAD_INPUT;
    }
    if (!rd.out_dir) {
        tpLog(TP_LOG_ERROR, "render: --out DIR is required (see 'tplan render --help')");
        return TP_EXIT_BAD_INPUT;
    }
    if (rd.video && rd.frames) {
        tpLog(TP_LOG_ERROR, "render: --video encodes every frame; it cannot be combined with --frames");
        return TP_EXIT_BAD_INPUT;
    }
    return tpViewer_Render(plan, tree, &rd);
}
