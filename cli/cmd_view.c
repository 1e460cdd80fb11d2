/* tplan view / tplan render: the viewer (viewer/, tp_viewer) on plan and tree files. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "tp/base.h"
#include "tp/viewer.h"

/* The exit status of a viewer result (docs/cli.md). */
static int exit_code(tpViewerStatus st)
{
    return st == TP_VIEWER_OK ? TP_EXIT_OK : st == TP_VIEWER_BAD_INPUT ? TP_EXIT_BAD_INPUT : TP_EXIT_FAILURE;
}

static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path) {
        return false;
    }
    char buf[4096];
    while (*path) {
        const char *c = strchr(path, ':');
        size_t len = c ? (size_t)(c - path) : strlen(path);
        if (len > 0 && len + strlen(prog) + 2 < sizeof buf) {
            memcpy(buf, path, len);
            buf[len] = '/';
            strcpy(buf + len + 1, prog);
            if (access(buf, X_OK) == 0) {
                return true;
            }
        }
        path += len + (c ? 1 : 0);
    }
    return false;
}

/* True when path names a file that render writes into out_dir (frame_NNNNNN.png there), whether or
 * not out_dir exists yet. */
static bool is_frame_path(const char *path, const char *out_dir)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (strncmp(base, "frame_", 6) != 0) {
        return false;
    }
    size_t digits = strspn(base + 6, "0123456789");
    if (digits < 6 || strcmp(base + 6 + digits, ".png") != 0) {
        return false;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? (slash == path ? "/" : path) : ".");
    struct stat a, b;
    if (stat(dir, &a) == 0 && stat(out_dir, &b) == 0) {
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    }
    return tpCli_SameFile(dir, out_dir); /* not there yet: the same real parent and name */
}

/* `render --video`: the frames of out_dir encoded by ffmpeg (a program of the PATH) into video.
 * ffmpeg writes a hidden temporary file beside video (with video's extension, which tells ffmpeg the
 * format), renamed over video once complete: a symbolic link at video is replaced, never written
 * through, and a failed encoding leaves video as it was. A device or FIFO is written directly. */
static int encode_video(const char *out_dir, double fps, const char *video)
{
    if (!on_path("ffmpeg")) {
        tpLog(TP_LOG_ERROR, "--video: ffmpeg is not on the PATH; the frames are in %s", out_dir);
        return TP_EXIT_FAILURE;
    }
    char tmp[4200];
    struct stat st;
    bool direct = stat(video, &st) == 0 && !S_ISREG(st.st_mode);
    if (direct) {
        snprintf(tmp, sizeof tmp, "%s", video);
    } else {
        const char *slash = strrchr(video, '/');
        int dirlen = slash ? (int)(slash - video + 1) : 0;
        const char *base = video + dirlen, *dot = strrchr(base, '.');
        int stem = dot && dot > base ? (int)(dot - base) : (int)strlen(base);
        int fd = -1;
        for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
            snprintf(tmp, sizeof tmp, "%.*s.%.*s.tmp-%ld-%d%s", dirlen, video, stem, base, (long)getpid(), attempt,
                     dot && dot > base ? dot : "");
            fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); /* ours, a regular file */
            if (fd < 0 && errno != EEXIST) {
                break;
            }
        }
        if (fd < 0) {
            tpLog(TP_LOG_ERROR, "--video %s: cannot open for writing: %s", video, strerror(errno));
            return TP_EXIT_FAILURE;
        }
        close(fd);
    }
    char pattern[4200], rate[32];
    snprintf(pattern, sizeof pattern, "%s/frame_%%06d.png", out_dir);
    snprintf(rate, sizeof rate, "%g", fps);
    pid_t pid = fork();
    if (pid < 0) {
        tpLog(TP_LOG_ERROR, "--video: cannot start ffmpeg: %s", strerror(errno));
        return TP_EXIT_FAILURE;
    }
    if (pid == 0) {
        char *args[] = {"ffmpeg",
                        "-nostdin", /* never read the terminal (a background job would stop) */
                        "-y",
                        "-loglevel",
                        "error",
                        "-framerate",
                        rate,
                        "-i",
                        pattern,
                        "-c:v",
                        "libx264",
                        "-pix_fmt",
                        "yuv420p",
                        "-vf",
                        "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                        tmp,
                        NULL};
        execvp("ffmpeg", args);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        tpLog(TP_LOG_ERROR, "--video: ffmpeg failed encoding %s", video);
        if (!direct) {
            unlink(tmp);
        }
        return TP_EXIT_FAILURE;
    }
    if (!direct && rename(tmp, video) != 0) {
        tpLog(TP_LOG_ERROR, "--video %s: write error: %s", video, strerror(errno));
        unlink(tmp);
        return TP_EXIT_FAILURE;
    }
    return TP_EXIT_OK;
}

static void view_usage(FILE *f)
{
    fprintf(f,
            "usage: tplan view PLAN.json [--tree TREE] [options]\n"
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
            "  --no-goal           start without the goal regions (E)\n"
            "  --no-joints         start without the joints' anchors and axes (J)\n"
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
            "N/P next/previous solution, T tree, L trails, K contacts, E goal, J joints, O overlay, C reset camera,\n"
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
               "frames DIR/frame_000000.png, ... (frame k shows time k/FPS; ceil(duration x FPS) frames,\n"
               "as long as the motion). Frames show the scene only, for deliverables; --hud adds the\n"
               "viewer's text. Needs an X display; on a machine without one, run it under xvfb-run.\n"
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
               "  --no-goal           no goal regions (the plan's \"goal\": translucent, drawn by default)\n"
               "  --no-joints         no joints (the plan's \"joints\": anchors and axes, drawn by default)\n"
               "  --hud               draw the text overlay (domain, planner, step, skills), the legend\n"
               "                      of the moving bodies and the timeline; default: the scene only\n"
               "  --no-overlay        no overlay (the default; kept for older command lines)\n"
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
    char tail, q[256];
    if (!v || !isdigit((unsigned char)v[0]) || sscanf(v, "%dx%d%c", w, h, &tail) != 2 || *w < 16 || *h < 16 ||
        *w > 8192 || *h > 8192) {
        tpLog(TP_LOG_ERROR, "--size expects WxH between 16x16 and 8192x8192 (got '%s')", tpCli_Escape(v, q, sizeof q));
        return false;
    }
    return true;
}

/* Long options shared by view and render, and their codes. */
enum {
    OPT_TREE = TP_OPT_FIRST_FREE,
    OPT_SIZE,
    OPT_CAMERA,
    OPT_WORLD,
    OPT_NO_TRAILS,
    OPT_CONTACTS,
    OPT_NO_GOAL,
    OPT_NO_JOINTS,
    OPT_NO_OVERLAY,
    OPT_NAV,
    OPT_NO_TREE, /* view only */
    OPT_FPS,     /* view: a flag; render: frames per second */
    OPT_QUIT_AFTER,
    OPT_PRINT_STATE,
    OPT_FRAMES, /* render only */
    OPT_VIDEO,
    OPT_HUD,
};
// clang-format off
#define COMMON_LONGOPTS                                             \
    {"tree", required_argument, NULL, OPT_TREE},                    \
    {"size", required_argument, NULL, OPT_SIZE},                    \
    {"camera", required_argument, NULL, OPT_CAMERA},                \
    {"world", required_argument, NULL, OPT_WORLD},                  \
    {"no-trails", no_argument, NULL, OPT_NO_TRAILS},                \
    {"contacts", no_argument, NULL, OPT_CONTACTS},                  \
    {"no-goal", no_argument, NULL, OPT_NO_GOAL},                    \
    {"no-joints", no_argument, NULL, OPT_NO_JOINTS},                \
    {"no-overlay", no_argument, NULL, OPT_NO_OVERLAY},              \
    {"nav", required_argument, NULL, OPT_NAV},                      \
    {"help", no_argument, NULL, 'h'}
// clang-format on

/* Options shared by view and render. Returns 1 if taken, 0 if not ours, -1 on error (logged). */
static int common_option(int code, const char *v, tpViewerDef *vd, const char **tree)
{
    char err[512];
    switch (code) {
    case OPT_NO_TRAILS:
        vd->show_trails = false;
        return 1;
    case OPT_CONTACTS:
        vd->show_contacts = true;
        return 1;
    case OPT_NO_GOAL:
        vd->show_goal = false;
        return 1;
    case OPT_NO_JOINTS:
        vd->show_joints = false;
        return 1;
    case OPT_NO_OVERLAY:
        vd->show_overlay = false;
        return 1;
    case OPT_NAV:
        if (!tpView_ParseNavLayers(v, &vd->nav_layers, err, sizeof err)) {
            tpCli_PrintError(err[0] ? err : "--nav: bad list");
            return -1;
        }
        return 1;
    case OPT_TREE:
        *tree = v;
        return 1;
    case OPT_SIZE:
        return parse_size(v, &vd->width, &vd->height) ? 1 : -1;
    case OPT_CAMERA: {
        tpViewCamera check = {{0, 0, 0}, 0, 0, 1, 1};
        if (!tpViewCamera_Parse(&check, v, err, sizeof err)) {
            tpCli_PrintError(err);
            return -1;
        }
        vd->camera = v; /* applied over the fitted camera by the viewer */
        return 1;
    }
    case OPT_WORLD: {
        long long k;
        if (!tpCli_ParseInt("--world", v, 1, 1000000, &k)) {
            return -1;
        }
        vd->world = (int)k - 1;
        return 1;
    }
    default:
        return 0;
    }
}

int tpCmd_View(int argc, char **argv)
{
    tpViewerDef vd = tpDefaultViewerDef();
    const char *plan = NULL, *tree = NULL;
    static const struct option longopts[] = {
        COMMON_LONGOPTS,
        {"no-tree", no_argument, NULL, OPT_NO_TREE},
        {"fps", no_argument, NULL, OPT_FPS},
        {"print-state", no_argument, NULL, OPT_PRINT_STATE},
        {"quit-after", required_argument, NULL, OPT_QUIT_AFTER},
        {NULL, 0, NULL, 0},
    };
    tpCliArgs args = {.argc = argc, .argv = argv, .cmd = "view", .shortopts = "h", .longopts = longopts};
    int c;
    while ((c = tpCli_NextOption(&args)) != -1) {
        int k = common_option(c, args.value, &vd, &tree);
        if (k < 0) {
            return TP_EXIT_BAD_INPUT;
        } else if (k > 0) {
            continue;
        }
        switch (c) {
        case 'h':
            view_usage(stdout);
            return TP_EXIT_OK;
        case OPT_NO_TREE:
            vd.show_tree = false;
            break;
        case OPT_FPS:
            vd.print_fps = true;
            break;
        case OPT_PRINT_STATE:
            vd.print_state = true;
            break;
        case OPT_QUIT_AFTER: {
            long long n;
            if (!tpCli_ParseInt("--quit-after", args.value, 1, 1000000000, &n)) {
                return TP_EXIT_BAD_INPUT;
            }
            vd.quit_after = (int)n;
            break;
        }
        case 1:
            if (!tpCli_OneArgument(args.value, &plan)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        default:
            return TP_EXIT_BAD_INPUT;
        }
    }
    if (!plan) {
        view_usage(stderr);
        return TP_EXIT_BAD_INPUT;
    }
    return exit_code(tpViewer_Run(plan, tree, &vd));
}

int tpCmd_Render(int argc, char **argv)
{
    tpRenderDef rd = tpDefaultRenderDef();
    const char *video = NULL;
    const char *plan = NULL, *tree = NULL;
    static const struct option longopts[] = {
        COMMON_LONGOPTS,
        {"out", required_argument, NULL, 'o'},
        {"fps", required_argument, NULL, OPT_FPS},
        {"frames", required_argument, NULL, OPT_FRAMES},
        {"video", required_argument, NULL, OPT_VIDEO},
        {"hud", no_argument, NULL, OPT_HUD},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    tpCliArgs args = {.argc = argc, .argv = argv, .cmd = "render", .shortopts = "hqo:", .longopts = longopts};
    int c;
    while ((c = tpCli_NextOption(&args)) != -1) {
        const char *v = args.value;
        int k = common_option(c, v, &rd.view, &tree);
        if (k < 0) {
            return TP_EXIT_BAD_INPUT;
        } else if (k > 0) {
            continue;
        }
        switch (c) {
        case 'h':
            render_usage(stdout);
            return TP_EXIT_OK;
        case 'q':
            rd.quiet = true;
            break;
        case 'o':
            rd.out_dir = v;
            break;
        case OPT_FPS:
            if (!tpCli_ParseDouble("--fps", v, 0, true, 1000, &rd.fps)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case OPT_FRAMES:
            rd.frames = v;
            break;
        case OPT_VIDEO:
            video = v;
            break;
        case OPT_HUD:
            rd.view.show_overlay = true;
            break;
        case 1:
            if (!tpCli_OneArgument(v, &plan)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        default:
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
    if (video && rd.frames) {
        tpLog(TP_LOG_ERROR, "render: --video encodes every frame; it cannot be combined with --frames");
        return TP_EXIT_BAD_INPUT;
    }
    /* the video must not replace the plan or the tree it is made from */
    const tpCliFile files[] = {{"the plan file", plan, false}, {"--tree", tree, false}, {"--video", video, true}};
    if (!tpCli_CheckFiles(files, 3)) {
        return TP_EXIT_BAD_INPUT;
    }
    /* nor be one of the frames, and no frame may replace the plan or the tree */
    for (int i = 0; i < 3; ++i) {
        if (files[i].path && is_frame_path(files[i].path, rd.out_dir)) {
            tpLog(TP_LOG_ERROR, "render: %s %s is where a frame is written (--out %s): refusing to overwrite it",
                  files[i].what, files[i].path, rd.out_dir);
            return TP_EXIT_BAD_INPUT;
        }
    }
    int code = exit_code(tpViewer_Render(plan, tree, &rd));
    if (code == TP_EXIT_OK && video) {
        code = encode_video(rd.out_dir, rd.fps, video);
        if (code == TP_EXIT_OK && !rd.quiet) {
            printf("wrote %s\n", video);
        }
    }
    return code;
}
