/* tplan viewer: its definitions' defaults and option parsing, which need no window and no OpenGL.
 * This file and camera.c are the whole tp_viewer of a build without the viewer (TP_VIEWER=OFF), so
 * that the program parses `view`, `render` and `plan --view` options the same way before it
 * refuses them; they link neither GLFW nor OpenGL. */
#include <string.h>

#include "tp/base.h"
#include "tp/viewer.h"

tpViewerDef tpDefaultViewerDef(void)
{
    tpViewerDef d;
    memset(&d, 0, sizeof d);
    d.width = 1280;
    d.height = 720;
    d.show_tree = true;
    d.show_trails = true;
    d.show_contacts = false;
    d.show_goal = true;
    d.show_joints = true;
    d.show_overlay = true;
    d.nav_layers = TP_VIEW_NAV_ALL;
    return d;
}

tpRenderDef tpDefaultRenderDef(void)
{
    tpRenderDef d;
    memset(&d, 0, sizeof d);
    d.view = tpDefaultViewerDef();
    d.view.show_overlay = false; /* deliverable frames: the scene only; --hud adds the text and legend */
    d.fps = 60;
    return d;
}

static const char *const k_layer_names[] = {"grid", "field", "arrows", "paths", "windows", "trees"};

bool tpView_ParseNavLayers(const char *text, unsigned *bits, char *err, size_t errlen)
{
    if (!text) {
        tpErrorf(err, errlen, "--nav: missing layer list");
        return false;
    }
    unsigned b = 0;
    const char *p = text;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        bool known = false;
        if (n == 3 && strncmp(p, "all", 3) == 0) {
            b = TP_VIEW_NAV_ALL, known = true;
        } else if (n == 4 && strncmp(p, "none", 4) == 0) {
            known = true;
        }
        for (int k = 0; k < 6 && !known; ++k) {
            if (strlen(k_layer_names[k]) == n && strncmp(p, k_layer_names[k], n) == 0) {
                b |= 1u << k, known = true;
            }
        }
        if (!known) {
            tpErrorf(err, errlen,
                     "--nav: unknown layer '%.*s' in '%s' (expected grid, field, arrows, paths, windows, trees, "
                     "all or none, separated by commas)",
                     (int)n, p, text);
            return false;
        }
        p += n + (c ? 1 : 0);
    }
    *bits = b;
    return true;
}
