/* tplan viewer: the interactive window (tplan view), offline frames (tplan render) and the live
 * view of a running planner (tplan plan --view). One GLFW window per process, single-threaded. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image_write.h>

#include "internal.h"
#include "tp/base.h"

/* ---- loading ---- */

static char glfw_error[512];

static void on_glfw_error(int code, const char *msg)
{
    snprintf(glfw_error, sizeof glfw_error, "GLFW error %d: %s", code, msg);
}

/* Reads the plan and the optional tree; prints the reason and returns TP_VIEWER_BAD_INPUT on any
 * problem, TP_VIEWER_OK otherwise. */
static int load_inputs(const char *cmd, const char *plan_path, const char *tree_path, int world, tpPlanRecord *rec,
                       tpTreeRecord *tree, bool *has_tree)
{
    char err[2048];
    memset(rec, 0, sizeof *rec);
    memset(tree, 0, sizeof *tree);
    *has_tree = false;
    if (!tpPlanRecord_Read(rec, plan_path, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "cannot read plan: %s", err);
        return TP_VIEWER_BAD_INPUT;
    }
    if (tree_path) {
        if (!tpTreeRecord_Read(tree, tree_path, err, sizeof err)) {
            tpLog(TP_LOG_ERROR, "cannot read tree: %s", err);
            tpPlanRecord_Free(rec);
            return TP_VIEWER_BAD_INPUT;
        }
        *has_tree = true;
        for (int i = 0; i < tree->nbodies; ++i) { /* a tree of another plan is refused up front */
            bool found = false;
            for (int b = 0; b < rec->nbodies && !found; ++b) {
                found = rec->bodies[b].moving && strcmp(rec->bodies[b].name, tree->body_names[i]) == 0;
            }
            if (!found) {
                tpLog(TP_LOG_ERROR, "%s: body '%s' is not a moving body of %s (tree of another plan?)", tree_path,
                      tree->body_names[i], plan_path);
                tpPlanRecord_Free(rec);
                tpTreeRecord_Free(tree);
                *has_tree = false;
                return TP_VIEWER_BAD_INPUT;
            }
        }
    }
    if (world < 0 || world >= rec->nworlds) {
        tpLog(TP_LOG_ERROR, "%s: --world %d: the plan has %d world(s)", cmd, world + 1, rec->nworlds);
        tpPlanRecord_Free(rec);
        tpTreeRecord_Free(tree);
        *has_tree = false;
        return TP_VIEWER_BAD_INPUT;
    }
    return TP_VIEWER_OK;
}

/* Opens a window with a compatibility (legacy) OpenGL >= 3.1 context. NULL with a message. */
static GLFWwindow *open_window(int w, int h, const char *title, bool visible, char *err, size_t errlen)
{
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        tpErrorf(err, errlen, "cannot open a window (%s); is a display available? Without one, run under xvfb-run",
                 glfw_error[0] ? glfw_error : "glfwInit failed");
        return NULL;
    }
    glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
    /* no multisampling in the window: it costs 4x under Mesa's software renderer (llvmpipe) */
    glfwWindowHint(GLFW_SAMPLES, 0);
    GLFWwindow *win = glfwCreateWindow(w, h, title, NULL, NULL);
    if (!win) {
        tpErrorf(err, errlen, "cannot create an OpenGL window (%s)", glfw_error[0] ? glfw_error : "unknown error");
        glfwTerminate();
        return NULL;
    }
    glfwMakeContextCurrent(win);
    const char *ver = (const char *)glGetString(GL_VERSION);
    int major = 0;
    int minor = 0;
    if (!ver || sscanf(ver, "%d.%d", &major, &minor) != 2 || major < 3 || (major == 3 && minor < 1)) {
        tpErrorf(err, errlen, "OpenGL 3.1 or newer is needed (this context: %s)", ver ? ver : "unknown");
        glfwDestroyWindow(win);
        glfwTerminate();
        return NULL;
    }
    return win;
}

/* ---- application state ---- */

typedef struct App {
    GLFWwindow *win;
    const tpPlanRecord *rec;
    tpVScene scene;
    bool scene_ok;
    tpViewerDef def;
    tpViewCamera cam, cam_home;
    double t;     /* s of motion shown */
    double speed; /* playback speed factor */
    bool playing;
    bool help;
    bool tree, trails, contacts, overlay, goal, joints;
    unsigned nav; /* TP_VIEW_NAV_* layers on */
    int world;
    /* mouse */
    bool orbit, pan, scrub;
    double mx, my;
    /* live view */
    const char *live_status; /* non-NULL while planning */
    bool offline;            /* tplan render: no key hint, no pause state in the overlay */
    /* frame rate */
    double fps_t0;
    long fps_frames;
    double fps_last;
} App;

static double duration(const App *a)
{
    if (a->world < 0 || a->world >= a->rec->nworlds) {
        return 0;
    }
    return a->rec->worlds[a->world].nsteps * a->rec->dt;
}

static int step_of(const App *a)
{
    return a->rec->dt > 0 ? (int)floor(a->t / a->rec->dt + 1e-9) : 0;
}

static void set_time(App *a, double t)
{
    double d = duration(a);
    a->t = t < 0 ? 0 : (t > d ? d : t);
}

static void png_out(void *context, void *data, int size)
{
    fwrite(data, 1, (size_t)size, context);
}

/* One frame, written under a temporary name and renamed into place (tpFile_OpenOut): an interrupted
   render leaves whole frames only. */
static bool write_png(const char *path, int w, int h, const uint8_t *rgb, int stride)
{
    tpFileOut o;
    FILE *f = tpFile_OpenOut(&o, path, "wb", NULL, 0);
    if (!f) {
        return false;
    }
    if (!stbi_write_png_to_func(png_out, f, w, h, 3, rgb, stride)) {
        tpFile_AbortOut(&o);
        return false;
    }
    return tpFile_CommitOut(&o, NULL, 0);
}

/* Timeline bar geometry in window coordinates (origin top-left). */
static void timeline_rect(int w, int h, float r[4])
{
    r[0] = 16, r[1] = (float)h - 26, r[2] = (float)w - 32, r[3] = 10;
}

/* Name of the skill tactic k applies at step si ("-" before the first step, "?" if out of range). */
static const char *active_skill(const App *a, int k, int si)
{
    const tpPlanRecord *rec = a->rec;
    const tpPlanTactic *tc = &rec->tactics[k];
    if (si < 0 || !rec->worlds[a->world].active || !rec->worlds[a->world].active[k]) {
        return "-";
    }
    int32_t idx = rec->worlds[a->world].active[k][si];
    return (idx >= 0 && idx < tc->nskills) ? tc->skills[idx] : "?";
}

#define MAX_TACTIC_LINES 8

/* Appends the active skill of each tactic at step si to txt (n characters used so far): one line
   per tactic, or for many tactics (many dice) one line counting the tactics per skill name. */
static int skills_text(const App *a, int si, char *txt, size_t cap, int n)
{
    const tpPlanRecord *rec = a->rec;
    if (rec->ntactics <= MAX_TACTIC_LINES) {
        for (int k = 0; k < rec->ntactics && n < (int)cap - 200; ++k) {
            n += snprintf(txt + n, cap - (size_t)n, "%s (%s): %s\n", rec->tactics[k].name, rec->tactics[k].body,
                          active_skill(a, k, si));
        }
        return n;
    }
    enum { MAXNAMES = 16 };
    const char *names[MAXNAMES];
    int counts[MAXNAMES], nn = 0, other = 0;
    for (int k = 0; k < rec->ntactics; ++k) {
        const char *sk = active_skill(a, k, si);
        int j = 0;
        while (j < nn && strcmp(names[j], sk) != 0) {
            ++j;
        }
        if (j == nn && nn < MAXNAMES) {
            names[nn] = sk, counts[nn++] = 0;
        }
        if (j < nn) {
            counts[j]++;
        } else {
            other++;
        }
    }
    n += snprintf(txt + n, cap - (size_t)n, "%d tactics:", rec->ntactics);
    for (int shown = 0; shown < 6 && n < (int)cap - 100; ++shown) { /* most frequent first */
        int best = -1;
        for (int j = 0; j < nn; ++j) {
            if (counts[j] > 0 && (best < 0 || counts[j] > counts[best])) {
                best = j;
            }
        }
        if (best < 0) {
            break;
        }
        n += snprintf(txt + n, cap - (size_t)n, "%s %s %d", shown ? "," : "", names[best], counts[best]);
        counts[best] = 0;
    }
    if (other > 0) {
        n += snprintf(txt + n, cap - (size_t)n, ", other %d", other);
    }
    n += snprintf(txt + n, cap - (size_t)n, "\n");
    return n;
}

static void draw_overlay(App *a, int w, int h)
{
    const tpPlanRecord *rec = a->rec;
    const float white[4] = {1, 1, 1, 1}, dim[4] = {0.75f, 0.78f, 0.85f, 1}, panel[4] = {0, 0, 0, 0.55f};
    float sc = h >= 600 ? 2.0f : 1.5f;
    char txt[4096];
    int n = 0;
    int nsteps = (a->world >= 0 && a->world < rec->nworlds) ? rec->worlds[a->world].nsteps : 0;
    /* the script's file name only: plans of older versions recorded the path as given */
    const char *file = rec->domain_file ? rec->domain_file : "?", *slash = strrchr(file, '/');
    n += snprintf(txt + n, sizeof txt - (size_t)n, "%s  (%s)\n", rec->domain_name ? rec->domain_name : "?",
                  slash ? slash + 1 : file);
    n += snprintf(txt + n, sizeof txt - (size_t)n, "planner %s  seed %u  %s\n",
                  rec->planner && strcmp(rec->planner, "rrt") == 0 ? "BK-RRT" : "BK-BGT", rec->seed,
                  a->live_status ? "planning..." : (rec->status ? rec->status : "?"));
    if (a->live_status) {
        n += snprintf(txt + n, sizeof txt - (size_t)n, "%s\n", a->live_status);
    } else {
        int st = step_of(a);
        n += snprintf(txt + n, sizeof txt - (size_t)n, "step %d / %d   t %.2f / %.2f s   speed %gx  %s\n",
                      st > nsteps ? nsteps : st, nsteps, a->t, duration(a), a->speed,
                      a->playing || a->offline ? "" : "(paused)");
        n += snprintf(txt + n, sizeof txt - (size_t)n, "world %d / %d%s   cost %g\n", a->world + 1, rec->nworlds,
                      a->world == rec->selected ? " (selected)" : "",
                      rec->nworlds > 0 ? rec->worlds[a->world].cost : 0.0);
        n += snprintf(txt + n, sizeof txt - (size_t)n, "nodes %lld   iterations %lld   planning %.3f s\n",
                      (long long)rec->nodes, (long long)rec->iterations, rec->t_total);
        int si = st < nsteps ? st : nsteps - 1;
        n = skills_text(a, si, txt, sizeof txt, n);
        for (int k = 0; k < rec->ntemporal && k < MAX_TACTIC_LINES && n < (int)sizeof txt - 300; ++k) {
            char line[256]; /* what each condition over time remembers after this step */
            tpPlanRecord_TemporalText(rec, a->world, st, k, line, sizeof line);
            n += snprintf(txt + n, sizeof txt - (size_t)n, "%s\n", line);
        }
    }
    if (rec->noverlays > 0) {
        static const char *const names[6] = {"G grid", "F field", "A arrows", "Y paths", "W windows", "V trees"};
        n += snprintf(txt + n, sizeof txt - (size_t)n, "nav:");
        for (int k = 0; k < 6; ++k) {
            n += snprintf(txt + n, sizeof txt - (size_t)n, " %s %s", names[k], (a->nav >> k) & 1 ? "on" : "off");
        }
        n += snprintf(txt + n, sizeof txt - (size_t)n, "%s\n",
                      a->world == rec->selected ? "" : " (recorded for the selected world only)");
    }
    if (a->contacts) {
        n += snprintf(txt + n, sizeof txt - (size_t)n, "contacts: %d (approximate, from geometry)\n",
                      tpVScene_ContactCount(&a->scene, a->t));
    }
    if (n > 0 && txt[n - 1] == '\n') {
        txt[--n] = '\0';
    }
    float tw, th;
    tpVText_Size(txt, sc, &tw, &th);
    tpVText_Rect(6, 6, tw + 16, th + 12, panel);
    tpVText_Draw(14, 12, sc, txt, white);

    /* legend: each moving body's own colour (as drawn, and as its trail and tree branches) */
    float y = 12, line = 12 * sc + 4;
    int nmoving = 0, listed = 0;
    for (int b = 0; b < rec->nbodies; ++b) {
        nmoving += a->scene.palette[b] >= 0;
    }
    for (int b = 0; b < rec->nbodies; ++b) {
        if (a->scene.palette[b] < 0) {
            continue;
        }
        if (y + 3 * line > h - 60 && listed + 1 < nmoving) { /* keep room for "+N more" and the tree */
            char more[48];
            float lw, lh;
            snprintf(more, sizeof more, "+%d more", nmoving - listed);
            tpVText_Size(more, sc, &lw, &lh);
            tpVText_Rect((float)w - lw - 40, y - 4, lw + 34, 12 * sc + 2, panel);
            tpVText_Draw((float)w - lw - 16, y, sc, more, dim);
            y += line;
            break;
        }
        ++listed;
        float rgb[3], lw, lh;
        tpVScene_KeyColour(&a->scene, b, rgb);
        float col[4] = {rgb[0], rgb[1], rgb[2], 1};
        tpVText_Size(rec->bodies[b].name, sc, &lw, &lh);
        tpVText_Rect((float)w - lw - 40, y - 4, lw + 34, 12 * sc + 2, panel);
        const float edge[4] = {0.7f, 0.7f, 0.7f, 1}; /* a dark body's swatch stays visible */
        tpVText_Rect((float)w - lw - 35, y + 1, 14, 10, edge);
        tpVText_Rect((float)w - lw - 34, y + 2, 12, 8, col);
        tpVText_Draw((float)w - lw - 16, y, sc, rec->bodies[b].name, white); /* legible on any colour */
        y += line;
    }
    if (a->scene.has_tree && a->tree) {
        char tl[160];
        int64_t done = a->scene.cache_valid ? a->scene.cache_progress : 0;
        char prog[48] = "";
        if (done < a->scene.tree_nnodes) {
            snprintf(prog, sizeof prog, ", drawing %d %%", (int)(100 * done / a->scene.tree_nnodes));
        }
        snprintf(tl, sizeof tl, "tree: %lld nodes%s%s", (long long)a->scene.tree_nnodes,
                 a->scene.tree_nbodies < a->scene.tree_nbodies_file ? " (first bodies only)" : "", prog);
        float lw, lh;
        tpVText_Size(tl, sc, &lw, &lh);
        tpVText_Rect((float)w - lw - 40, y - 4, lw + 34, 12 * sc + 2, panel);
        tpVText_Draw((float)w - lw - 16, y, sc, tl, dim);
    }

    /* timeline */
    float r[4];
    timeline_rect(w, h, r);
    const float bg[4] = {1, 1, 1, 0.18f}, fg[4] = {1.0f, 0.75f, 0.2f, 0.9f};
    tpVText_Rect(r[0], r[1], r[2], r[3], bg);
    double d = duration(a);
    float frac = d > 0 ? (float)(a->t / d) : 0;
    tpVText_Rect(r[0], r[1], r[2] * frac, r[3], fg);
    tpVText_Rect(r[0] + r[2] * frac - 2, r[1] - 4, 4, r[3] + 8, white);
    if (!a->offline) { /* a rendered frame has no keys */
        const char *hint = "H: help";
        float hw, hh;
        tpVText_Size(hint, sc * 0.75f, &hw, &hh);
        tpVText_Draw((float)w - hw - 16, r[1] - 12 * sc * 0.75f - 6, sc * 0.75f, hint, dim);
    }

    if (a->help) {
        static const char *help = "space      play / pause\n"
                                  "left/right step back / forward (up/down: 10 steps)\n"
                                  "[ ]        slower / faster\n"
                                  "R          restart\n"
                                  "N / P      next / previous solution (many worlds)\n"
                                  "T          search tree on/off\n"
                                  "L          trails on/off\n"
                                  "K          contact points (approximate, from geometry)\n"
                                  "E          goal regions on/off\n"
                                  "J          joints (anchors and axes) on/off\n"
                                  "O          overlay on/off\n"
                                  "G / F / A  navigation: grid, potential field, gradient arrows\n"
                                  "Y / W / V  navigation: paths, local windows, vehicle trees\n"
                                  "C          reset camera (fit to scene)\n"
                                  "left drag  orbit    right/middle drag  pan    wheel  zoom\n"
                                  "timeline   click or drag to seek\n"
                                  "H          this help      Esc / Q  quit";
        float hw2, hh2;
        tpVText_Size(help, sc, &hw2, &hh2);
        float x0 = ((float)w - hw2) / 2, y0 = ((float)h - hh2) / 2;
        const float hp[4] = {0, 0, 0, 0.8f};
        tpVText_Rect(x0 - 16, y0 - 16, hw2 + 32, hh2 + 32, hp);
        tpVText_Draw(x0, y0, sc, help, white);
    }
}

static void draw_frame(App *a, int w, int h, bool progressive)
{
    tpVFrame f;
    memset(&f, 0, sizeof f);
    f.progressive = progressive;
    f.width = w, f.height = h, f.t = a->t, f.cam = a->cam;
    f.tree = a->tree, f.trails = a->trails, f.contacts = a->contacts, f.goal = a->goal, f.joints = a->joints;
    f.nav = a->nav;
    tpVScene_Draw(&a->scene, &f);
    if (a->overlay) {
        tpVText_Begin(w, h);
        draw_overlay(a, w, h);
        tpVText_End();
    }
}

static void set_world(App *a, int world)
{
    if (a->rec->nworlds <= 0) {
        return;
    }
    world = ((world % a->rec->nworlds) + a->rec->nworlds) % a->rec->nworlds;
    a->world = world;
    tpVScene_SetWorld(&a->scene, world);
    set_time(a, a->t);
}

/* ---- input ---- */

/* Non-printable keys (space, arrows, Home/End, Esc, F1) come as key events; letters and
   brackets come as characters, so that they follow the user's keyboard layout. */
static void on_key(GLFWwindow *win, int key, int scancode, int action, int mods)
{
    (void)scancode, (void)mods;
    App *a = glfwGetWindowUserPointer(win);
    if (action != GLFW_PRESS && action != GLFW_REPEAT) {
        return;
    }
    double dt = a->rec->dt;
    switch (key) {
    case GLFW_KEY_SPACE:
        if (!a->playing && a->t >= duration(a)) {
            a->t = 0;
        }
        a->playing = !a->playing;
        break;
    case GLFW_KEY_RIGHT:
    case GLFW_KEY_LEFT:
    case GLFW_KEY_UP:
    case GLFW_KEY_DOWN: {
        int k = (key == GLFW_KEY_RIGHT || key == GLFW_KEY_LEFT) ? 1 : 10;
        int sgn = (key == GLFW_KEY_RIGHT || key == GLFW_KEY_UP) ? 1 : -1;
        a->playing = false;
        set_time(a, (step_of(a) + sgn * k) * dt);
        break;
    }
    case GLFW_KEY_HOME:
        set_time(a, 0);
        break;
    case GLFW_KEY_END:
        set_time(a, duration(a));
        break;
    case GLFW_KEY_F1:
        a->help = !a->help;
        break;
    case GLFW_KEY_ESCAPE:
        glfwSetWindowShouldClose(win, GLFW_TRUE);
        break;
    default:
        break;
    }
}

/* Keys: letters act the same in either case. */
static void on_char(GLFWwindow *win, unsigned int cp)
{
    App *a = glfwGetWindowUserPointer(win);
    const unsigned int c = cp >= 'A' && cp <= 'Z' ? cp - 'A' + 'a' : cp;
    /* layer toggles: navigation overlay layers, then the on/off displays */
    static const struct {
        unsigned int key;
        unsigned layer;
    } nav_keys[] = {
        {'g', TP_VIEW_NAV_GRID},  {'f', TP_VIEW_NAV_FIELD},   {'a', TP_VIEW_NAV_ARROWS},
        {'y', TP_VIEW_NAV_PATHS}, {'w', TP_VIEW_NAV_WINDOWS}, {'v', TP_VIEW_NAV_TREES},
    };
    for (size_t k = 0; k < sizeof nav_keys / sizeof nav_keys[0]; ++k) {
        if (c == nav_keys[k].key) {
            a->nav ^= nav_keys[k].layer;
            return;
        }
    }
    bool *flag = c == 't'               ? &a->tree
                 : c == 'l'             ? &a->trails
                 : c == 'k'             ? &a->contacts
                 : c == 'e'             ? &a->goal
                 : c == 'j'             ? &a->joints
                 : c == 'o'             ? &a->overlay
                 : c == 'h' || c == '?' ? &a->help
                                        : NULL;
    if (flag) {
        *flag = !*flag;
        return;
    }
    switch (c) {
    case '[':
        a->speed = fmax(a->speed / 2, 1.0 / 64);
        break;
    case ']':
        a->speed = fmin(a->speed * 2, 64);
        break;
    case 'r':
        a->t = 0, a->playing = true;
        break;
    case 'n':
        set_world(a, a->world + 1);
        break;
    case 'p':
        set_world(a, a->world - 1);
        break;
    case 'c':
        a->cam = a->cam_home;
        break;
    case 'q':
        glfwSetWindowShouldClose(win, GLFW_TRUE);
        break;
    default:
        break;
    }
}

/* Seeks to the time under window x on the timeline. */
static void scrub_to(App *a, double x)
{
    int w, h;
    glfwGetWindowSize(a->win, &w, &h);
    float r[4];
    timeline_rect(w, h, r);
    double f = (x - r[0]) / r[2];
    set_time(a, (f < 0 ? 0 : f > 1 ? 1 : f) * duration(a));
}

static void on_button(GLFWwindow *win, int button, int action, int mods)
{
    (void)mods;
    App *a = glfwGetWindowUserPointer(win);
    /* a->mx, a->my: where the pointer was at this event (on_cursor follows the events in order).
       glfwGetCursorPos would ask the X server where the pointer is *now*: behind a busy event
       loop, that is where later motion has already taken it, and a click lands elsewhere. */
    if (action == GLFW_RELEASE) {
        a->orbit = a->pan = a->scrub = false;
        return;
    }
    int w, h;
    glfwGetWindowSize(win, &w, &h);
    float r[4];
    timeline_rect(w, h, r);
    if (button == GLFW_MOUSE_BUTTON_LEFT && a->overlay && a->mx >= r[0] - 4 && a->mx <= r[0] + r[2] + 4 &&
        a->my >= r[1] - 8 && a->my <= r[1] + r[3] + 8) {
        a->scrub = true;
        scrub_to(a, a->mx);
    } else if (button == GLFW_MOUSE_BUTTON_LEFT) {
        a->orbit = true;
    } else {
        a->pan = true;
    }
}

static void on_cursor(GLFWwindow *win, double x, double y)
{
    App *a = glfwGetWindowUserPointer(win);
    double dx = x - a->mx, dy = y - a->my;
    a->mx = x, a->my = y;
    if (a->scrub) {
        scrub_to(a, x);
    } else if (a->orbit) {
        a->cam.yaw -= dx * 0.008;
        a->cam.pitch = fmax(-1.55, fmin(1.55, a->cam.pitch + dy * 0.008));
    } else if (a->pan) {
        int w, h;
        glfwGetWindowSize(win, &w, &h);
        double k = 2 * a->cam.dist * tan(a->cam.fovy / 2) / (h > 0 ? h : 1); /* m per pixel at the target */
        double cy = cos(a->cam.yaw), sy = sin(a->cam.yaw), sp = sin(a->cam.pitch), cp = cos(a->cam.pitch);
        double right[3] = {-sy, cy, 0}, up[3] = {-sp * cy, -sp * sy, cp};
        for (int i = 0; i < 3; ++i) {
            a->cam.target[i] += k * (-dx * right[i] + dy * up[i]);
        }
    }
}

static void on_scroll(GLFWwindow *win, double dx, double dy)
{
    (void)dx;
    App *a = glfwGetWindowUserPointer(win);
    a->cam.dist *= pow(0.88, dy);
    a->cam.dist = fmax(a->cam.dist, 1e-3);
}

/* ---- main loop ---- */

static void app_init_state(App *a, const tpPlanRecord *rec, const tpViewerDef *def, bool has_tree)
{
    a->rec = rec;
    a->def = *def;
    a->speed = 1;
    a->playing = true;
    a->tree = def->show_tree && has_tree;
    a->trails = def->show_trails;
    a->contacts = def->show_contacts;
    a->goal = def->show_goal;
    a->joints = def->show_joints;
    a->overlay = def->show_overlay;
    a->nav = def->nav_layers & TP_VIEW_NAV_ALL;
    a->world = rec->nworlds > 0 ? (def->world >= 0 && def->world < rec->nworlds ? def->world : 0) : -1;
    int w = def->width, h = def->height;
    tpViewCamera_Fit(&a->cam_home, rec, (double)w / h);
    if (rec->view.set) { /* the domain's default view (over the fitted camera: its target if none) */
        tpViewCamera_SetView(&a->cam_home, &rec->view, rec, (double)w / h);
    }
    char err[256];
    if (def->camera && !tpViewCamera_Parse(&a->cam_home, def->camera, err, sizeof err)) {
        tpLog(TP_LOG_WARN, "%s (using the fitted camera)", err); /* validated by the caller */
    }
    a->cam = a->cam_home;
}

/* Checks def->camera before any window opens; false with a message. */
static bool camera_ok(const tpViewerDef *def)
{
    tpViewCamera c = {{0, 0, 0}, 0, 0, 1, 1};
    char err[256];
    if (def->camera && !tpViewCamera_Parse(&c, def->camera, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "%s", err);
        return false;
    }
    return true;
}

/* One interactive frame: advance time, draw, swap, poll. */
static void app_frame(App *a, double *last)
{
    double now = glfwGetTime();
    double dtw = now - *last;
    *last = now;
    if (a->playing && !a->scrub && !a->live_status) {
        a->t += dtw * a->speed;
        if (a->t >= duration(a)) {
            a->t = duration(a);
            a->playing = false;
        }
    }
    int fw, fh;
    glfwGetFramebufferSize(a->win, &fw, &fh);
    if (fw > 0 && fh > 0) {
        draw_frame(a, fw, fh, !a->live_status); /* while planning, each redraw shows the whole tree */
    }
    glfwSwapBuffers(a->win);
    glfwPollEvents();
    a->fps_frames++;
    if (a->def.print_fps && now - a->fps_t0 >= 1.0) {
        a->fps_last = (double)a->fps_frames / (now - a->fps_t0);
        printf("fps %.1f (%.2f ms/frame, %dx%d)\n", a->fps_last, 1000.0 / a->fps_last, fw, fh);
        fflush(stdout);
        a->fps_t0 = now;
        a->fps_frames = 0;
    }
}

static void app_install_callbacks(App *a)
{
    glfwSetWindowUserPointer(a->win, a);
    glfwGetCursorPos(a->win, &a->mx, &a->my); /* from now on, from the events (on_cursor) */
    glfwSetKeyCallback(a->win, on_key);
    glfwSetCharCallback(a->win, on_char);
    glfwSetMouseButtonCallback(a->win, on_button);
    glfwSetCursorPosCallback(a->win, on_cursor);
    glfwSetScrollCallback(a->win, on_scroll);
}

tpViewerStatus tpViewer_Run(const char *plan_path, const char *tree_path, const tpViewerDef *def)
{
    if (!camera_ok(def)) {
        return TP_VIEWER_BAD_INPUT;
    }
    tpPlanRecord rec;
    tpTreeRecord tree;
    bool has_tree;
    int code = load_inputs("view", plan_path, tree_path, def->world, &rec, &tree, &has_tree);
    if (code != TP_VIEWER_OK) {
        return code;
    }
    char err[1024], title[600];
    snprintf(title, sizeof title, "tplan view - %s", plan_path);
    GLFWwindow *win = open_window(def->width, def->height, title, true, err, sizeof err);
    if (!win) {
        tpLog(TP_LOG_ERROR, "%s", err);
        tpPlanRecord_Free(&rec);
        tpTreeRecord_Free(&tree);
        return TP_VIEWER_FAILURE;
    }
    App *a = calloc(1, sizeof *a);
    code = TP_VIEWER_FAILURE;
    if (!a) {
        goto out;
    }
    a->win = win;
    app_init_state(a, &rec, def, has_tree);
    if (!tpVScene_Init(&a->scene, &rec, err, sizeof err) ||
        !tpVScene_SetTree(&a->scene, has_tree ? &tree : NULL, tree_path, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "%s", err);
        code = TP_VIEWER_BAD_INPUT;
        goto out;
    }
    a->scene_ok = true;
    tpVScene_SetWorld(&a->scene, a->world);
    tpTreeRecord_Free(&tree); /* uploaded */
    app_install_callbacks(a);
    glfwSwapInterval(def->print_fps ? 0 : 1);
    if (def->print_fps) {
        printf("renderer: %s, OpenGL %s; %d bodies, tree %lld nodes x %d bodies\n",
               (const char *)glGetString(GL_RENDERER), (const char *)glGetString(GL_VERSION), rec.nbodies,
               (long long)a->scene.tree_nnodes, a->scene.tree_nbodies);
    }
    double last = glfwGetTime(), start = last;
    a->fps_t0 = last;
    long frames = 0;
    while (!glfwWindowShouldClose(win)) {
        app_frame(a, &last);
        ++frames;
        if (def->quit_after > 0 && frames >= def->quit_after) {
            break;
        }
    }
    if (def->print_state) {
        printf("state: step %d t %.4f world %d speed %g playing %d tree %d trails %d contacts %d overlay %d help %d "
               "camera %.4f %.4f %.4f target %.4f %.4f %.4f nav %u\n",
               step_of(a), a->t, a->world + 1, a->speed, a->playing, a->tree, a->trails, a->contacts, a->overlay,
               a->help, a->cam.yaw * 180 / TP_PI, a->cam.pitch * 180 / TP_PI, a->cam.dist, a->cam.target[0],
               a->cam.target[1], a->cam.target[2], a->nav);
    }
    if (def->print_fps) {
        double el = glfwGetTime() - start;
        printf("average fps %.1f over %ld frames (%.2f s)\n", el > 0 ? frames / el : 0.0, frames, el);
    }
    code = TP_VIEWER_OK;
out:
    if (a && a->scene_ok) {
        tpVScene_Free(&a->scene);
    } else if (a) {
        tpVScene_Free(&a->scene);
    }
    free(a);
    glfwDestroyWindow(win);
    glfwTerminate();
    tpPlanRecord_Free(&rec);
    tpTreeRecord_Free(&tree);
    return code;
}

/* ---- offline rendering ---- */

/* Parses a frame list "0,5-9,last" into a bitmap of nframes entries. */
static bool parse_frames(const char *spec, int nframes, unsigned char *sel, char *err, size_t errlen)
{
    if (!spec) {
        memset(sel, 1, (size_t)nframes);
        return true;
    }
    memset(sel, 0, (size_t)nframes);
    const char *s = spec;
    while (*s) {
        long v[2];
        int nv = 0;
        for (;;) {
            if (strncmp(s, "last", 4) == 0) {
                v[nv++] = nframes - 1;
                s += 4;
            } else {
                char *end;
                errno = 0;
                long x = strtol(s, &end, 10);
                if (end == s || errno || x < 0) {
                    tpErrorf(err, errlen, "--frames: bad frame list '%s' (expected e.g. 0,10-20,last)", spec);
                    return false;
                }
                v[nv++] = x;
                s = end;
            }
            if (*s == '-' && nv == 1) {
                ++s;
                continue;
            }
            break;
        }
        if (*s != ',' && *s != '\0') {
            tpErrorf(err, errlen, "--frames: bad frame list '%s' (expected e.g. 0,10-20,last)", spec);
            return false;
        }
        if (*s == ',') {
            ++s;
        }
        long lo = v[0], hi = nv == 2 ? v[1] : v[0];
        if (lo > hi || hi >= nframes) {
            tpErrorf(err, errlen, "--frames: '%s' is outside the %d frames (0..%d)", spec, nframes, nframes - 1);
            return false;
        }
        for (long i = lo; i <= hi; ++i) {
            sel[i] = 1;
        }
    }
    return true;
}

tpViewerStatus tpViewer_Render(const char *plan_path, const char *tree_path, const tpRenderDef *def)
{
    const tpViewerDef *vd = &def->view;
    if (!camera_ok(vd)) {
        return TP_VIEWER_BAD_INPUT;
    }
    if (!def->out_dir || !def->out_dir[0]) {
        tpLog(TP_LOG_ERROR, "render: --out DIR is required");
        return TP_VIEWER_BAD_INPUT;
    }
    if (!(def->fps > 0) || def->fps > 1000) {
        tpLog(TP_LOG_ERROR, "render: --fps must be in (0, 1000]");
        return TP_VIEWER_BAD_INPUT;
    }
    if (vd->width < 16 || vd->height < 16 || vd->width > 8192 || vd->height > 8192) {
        tpLog(TP_LOG_ERROR, "render: --size must be between 16x16 and 8192x8192");
        return TP_VIEWER_BAD_INPUT;
    }
    tpPlanRecord rec;
    tpTreeRecord tree;
    bool has_tree;
    int code = load_inputs("render", plan_path, tree_path, vd->world, &rec, &tree, &has_tree);
    if (code != TP_VIEWER_OK) {
        return code;
    }
    char err[1024];
    App *a = calloc(1, sizeof *a);
    int world = vd->world;
    int nframes = tpView_FrameCount(&rec, world, def->fps);
    unsigned char *sel = malloc((size_t)nframes);
    uint8_t *pix = malloc((size_t)vd->width * vd->height * 4);
    uint8_t *row = malloc((size_t)vd->width * 4);
    GLFWwindow *win = NULL;
    GLuint fbo[2] = {0, 0}, rb[3] = {0, 0, 0};
    code = TP_VIEWER_FAILURE;
    if (!a || !sel || !pix || !row) {
        tpLog(TP_LOG_ERROR, "render: out of memory");
        goto out;
    }
    if (!parse_frames(def->frames, nframes, sel, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "%s", err);
        code = TP_VIEWER_BAD_INPUT;
        goto out;
    }
    if (mkdir(def->out_dir, 0777) != 0 && errno != EEXIST) {
        tpLog(TP_LOG_ERROR, "render: cannot create %s: %s", def->out_dir, strerror(errno));
        goto out;
    }
    win = open_window(64, 64, "tplan render", false, err, sizeof err);
    if (!win) {
        tpLog(TP_LOG_ERROR, "%s", err);
        goto out;
    }
    a->win = win;
    app_init_state(a, &rec, vd, has_tree);
    a->world = world;
    a->playing = true;
    a->offline = true; /* the overlay (--hud) of an animation frame says nothing about keys or pausing */
    if (!tpVScene_Init(&a->scene, &rec, err, sizeof err) ||
        !tpVScene_SetTree(&a->scene, has_tree ? &tree : NULL, tree_path, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "%s", err);
        code = TP_VIEWER_BAD_INPUT;
        goto out;
    }
    a->scene_ok = true;
    tpVScene_SetWorld(&a->scene, world);
    /* multisampled framebuffer, resolved into a single-sampled one for reading */
    GLint max_samples = 0;
    glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
    int samples = max_samples >= 4 ? 4 : 0;
    glGenFramebuffers(2, fbo);
    glGenRenderbuffers(3, rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, vd->width, vd->height);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, vd->width, vd->height);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo[0]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
    bool fb_ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindRenderbuffer(GL_RENDERBUFFER, rb[2]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, vd->width, vd->height);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo[1]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[2]);
    fb_ok = fb_ok && glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    if (!fb_ok) {
        tpLog(TP_LOG_ERROR, "render: cannot create a %dx%d offscreen framebuffer", vd->width, vd->height);
        goto out;
    }
    if (samples > 0) {
        glEnable(GL_MULTISAMPLE);
    }
    int written = 0;
    for (int k = 0; k < nframes; ++k) {
        if (!sel[k]) {
            continue;
        }
        a->t = k / def->fps;
        set_time(a, a->t);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo[0]);
        draw_frame(a, vd->width, vd->height, false);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo[0]);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo[1]);
        glBlitFramebuffer(0, 0, vd->width, vd->height, 0, 0, vd->width, vd->height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo[1]);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glReadPixels(0, 0, vd->width, vd->height, GL_RGB, GL_UNSIGNED_BYTE, pix);
        size_t stride = (size_t)vd->width * 3;
        for (int y = 0; y < vd->height / 2; ++y) { /* OpenGL rows are bottom-up */
            memcpy(row, pix + (size_t)y * stride, stride);
            memcpy(pix + (size_t)y * stride, pix + (size_t)(vd->height - 1 - y) * stride, stride);
            memcpy(pix + (size_t)(vd->height - 1 - y) * stride, row, stride);
        }
        char path[4200];
        snprintf(path, sizeof path, "%s/frame_%06d.png", def->out_dir, k);
        if (!write_png(path, vd->width, vd->height, pix, (int)stride)) {
            tpLog(TP_LOG_ERROR, "render: cannot write %s", path);
            goto out;
        }
        ++written;
    }
    if (!def->quiet) {
        printf("wrote %d of %d frames (%dx%d, %g fps, %.2f s of motion) to %s/frame_NNNNNN.png\n", written, nframes,
               vd->width, vd->height, def->fps, rec.worlds[world].nsteps * rec.dt, def->out_dir);
    }
    code = TP_VIEWER_OK;
out:
    if (win) {
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        if (fbo[0]) {
            glDeleteFramebuffers(2, fbo);
            glDeleteRenderbuffers(3, rb);
        }
        tpVScene_Free(&a->scene);
        glfwDestroyWindow(win);
        glfwTerminate();
    }
    free(a);
    free(sel);
    free(pix);
    free(row);
    tpPlanRecord_Free(&rec);
    tpTreeRecord_Free(&tree);
    return code;
}

/* ---- live view of a running planner ---- */

struct tpLiveView {
    App app;
    double last;   /* glfwGetTime of the previous frame */
    bool closed;   /* the user closed the window while planning */
    bool has_tree; /* a tree is uploaded */
};

tpLiveView *tpCreateLiveView(const tpPlanRecord *rec, const tpViewerDef *def, char *err, size_t errlen)
{
    tpLiveView *lv = calloc(1, sizeof *lv);
    if (!lv) {
        tpErrorf(err, errlen, "out of memory");
        return NULL;
    }
    GLFWwindow *win = open_window(def->width, def->height, "tplan plan --view", true, err, errlen);
    if (!win) {
        free(lv);
        return NULL;
    }
    App *a = &lv->app;
    a->win = win;
    app_init_state(a, rec, def, true);
    if (!tpVScene_Init(&a->scene, rec, err, errlen)) {
        tpVScene_Free(&a->scene);
        glfwDestroyWindow(win);
        glfwTerminate();
        free(lv);
        return NULL;
    }
    a->scene_ok = true;
    tpVScene_SetWorld(&a->scene, a->world);
    a->playing = false;
    a->live_status = "planning...";
    app_install_callbacks(a);
    glfwSwapInterval(0); /* never wait for the display while the planner waits for us */
    lv->last = glfwGetTime();
    a->fps_t0 = lv->last;
    return lv;
}

bool tpLiveView_Update(tpLiveView *lv, const tpTreeRecord *tree, const char *status)
{
    if (!lv || lv->closed) {
        return false;
    }
    App *a = &lv->app;
    char err[512];
    if (tree && tree->nnodes > 0) {
        if (!tpVScene_GrowTree(&a->scene, tree, err, sizeof err)) {
            tpLog(TP_LOG_WARN, "live view: %s", err);
        }
        lv->has_tree = a->scene.has_tree;
    }
    a->live_status = status ? status : "planning...";
    app_frame(a, &lv->last);
    if (glfwWindowShouldClose(a->win)) {
        lv->closed = true;
        return false;
    }
    return true;
}

bool tpLiveView_Poll(tpLiveView *lv)
{
    if (!lv || lv->closed) {
        return false;
    }
    glfwPollEvents();
    if (glfwWindowShouldClose(lv->app.win)) {
        lv->closed = true;
        return false;
    }
    return true;
}

void tpLiveView_Play(tpLiveView *lv, const tpPlanRecord *rec, const tpTreeRecord *tree)
{
    if (!lv || lv->closed) {
        return;
    }
    App *a = &lv->app;
    char err[512];
    tpViewCamera cam = a->cam, home = a->cam_home;
    bool tree_on = a->tree, trails = a->trails, contacts = a->contacts, overlay = a->overlay, goal = a->goal,
         joints = a->joints;
    unsigned nav = a->nav;
    tpVScene_Free(&a->scene);
    a->scene_ok = false;
    app_init_state(a, rec, &a->def, tree != NULL);
    a->cam = cam, a->cam_home = home; /* keep the user's view */
    a->tree = tree_on && tree != NULL, a->trails = trails, a->contacts = contacts, a->overlay = overlay;
    a->goal = goal, a->joints = joints;
    a->nav = nav;
    a->live_status = NULL;
    if (!tpVScene_Init(&a->scene, rec, err, sizeof err) ||
        !tpVScene_SetTree(&a->scene, tree, "(tree)", err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "live view: %s", err);
        return;
    }
    a->scene_ok = true;
    tpVScene_SetWorld(&a->scene, a->world);
    a->t = 0;
    a->playing = true;
    glfwSwapInterval(a->def.print_fps ? 0 : 1);
    lv->last = glfwGetTime();
    long frames = 0;
    while (!glfwWindowShouldClose(a->win)) {
        app_frame(a, &lv->last);
        if (a->def.quit_after > 0 && ++frames >= a->def.quit_after) {
            break;
        }
    }
}

void tpDestroyLiveView(tpLiveView *lv)
{
    if (!lv) {
        return;
    }
    tpVScene_Free(&lv->app.scene);
    glfwDestroyWindow(lv->app.win);
    glfwTerminate();
    free(lv);
}
