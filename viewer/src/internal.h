/* tplan viewer: internal interface between the scene drawing (draw.c, text.c) and the
 * applications (app.c: interactive viewer, renderer, live view). Not installed. */
#ifndef TP_VIEWER_INTERNAL_H
#define TP_VIEWER_INTERNAL_H

#define GL_GLEXT_PROTOTYPES 1
#define GLFW_INCLUDE_GLEXT 1
#include <GLFW/glfw3.h>

#include <stdint.h>

#include "tp/viewer.h"

enum { TP_MESH_BOX, TP_MESH_SPHERE, TP_MESH_CYLINDER, TP_MESH_SPHERE_COARSE, TP_MESH_COUNT };

/// GPU-side scene of one recording. Everything here is owned by the scene except `rec`.
typedef struct tpVScene {
    const tpPlanRecord *rec; /* not owned; must outlive the scene */
    int world;               /* world whose trails are uploaded (-1: none yet) */
    GLuint mesh_vbo[TP_MESH_COUNT];
    int mesh_verts[TP_MESH_COUNT];
    GLuint *body_vbo;    /* per plan body: its own triangles (a "mesh" body with triangles), 0 = none */
    int *body_verts;     /* per plan body: vertices in body_vbo */
    double eye[3];       /* camera of the frame being drawn, for the level of detail of spheres */
    double px_per_rad;   /* pixels per radian near the image centre */
    int *palette;        /* per plan body: index among the moving bodies, -1 for the others */
    double lo[3], hi[3]; /* scene bounds (m), planes excluded */

    /* trails: per moving plan body, nsteps+1 positions of the current world */
    GLuint trail_vbo;
    int *trail_first; /* per plan body, first vertex (or -1) */
    int trail_len;    /* vertices per moving body */

    /* search tree */
    bool has_tree;
    int tree_nbodies; /* bodies drawn (may be fewer than in the file when the tree is huge) */
    int tree_nbodies_file;
    int *tree_body;    /* per drawn tree body: index of that body in the plan */
    char **tree_names; /* per drawn tree body: name (owned copies) */
    int64_t tree_nnodes;
    int64_t tree_cap;   /* nodes the segment buffer can hold */
    int64_t tree_nsel;  /* selected-branch segments per body */
    int64_t tree_ngoal; /* goal nodes */
    GLuint tree_vbo, tree_sel_vbo, tree_goal_vbo;

    /* Static layers (tree, whole trails) are drawn into an offscreen texture and reused while the
       camera, size and layers stay the same: a frame then costs the bodies, not the tree. */
    GLuint cache_fbo, cache_tex, cache_depth;
    int cache_w, cache_h;
    bool cache_valid;
    tpViewCamera cache_cam;
    bool cache_tree, cache_trails;
    unsigned cache_generation;
    int64_t cache_progress; /* tree nodes drawn into the cache so far */
    unsigned generation;    /* bumped whenever the tree or the world changes */

    /* navigation overlays (overlay.c): per plan overlay, RGBA colours of its cells (FIELD and
       WINDOW layers, nx*ny*4 floats; NULL for the others), and the height they are drawn at */
    float **nav_rgba;
    double nav_z;
} tpVScene;

/// Per-frame drawing options.
typedef struct tpVFrame {
    int width, height; /* framebuffer pixels */
    double t;          /* s, time of motion shown */
    tpViewCamera cam;
    bool tree, trails, contacts;
    bool goal;        /* the plan's goal regions */
    bool joints;      /* the plan's joints: anchor markers and axis lines */
    bool progressive; /* add a big tree to the cache over several frames (interactive use) */
    unsigned nav;     /* TP_VIEW_NAV_* layers to draw (0: none) */
} tpVFrame;

/// Builds meshes and the bounds; needs a current GL context. False with a message on failure.
bool tpVScene_Init(tpVScene *sc, const tpPlanRecord *rec, char *err, size_t errlen);
/// Uploads a tree (NULL: remove the tree). Tree bodies are matched to plan bodies by name; a name
/// that is not a moving body of the plan is refused (false with a message naming it).
bool tpVScene_SetTree(tpVScene *sc, const tpTreeRecord *tree, const char *tree_path, char *err, size_t errlen);
/// Like tpVScene_SetTree for a tree that only grew since the last call (the live view): uploads
/// and draws only the new nodes. Falls back to a full upload when the bodies differ.
bool tpVScene_GrowTree(tpVScene *sc, const tpTreeRecord *tree, char *err, size_t errlen);
/// Uploads the trails of a world.
void tpVScene_SetWorld(tpVScene *sc, int world);
/// Draws the 3D scene into the current framebuffer (clears it first).
void tpVScene_Draw(tpVScene *sc, const tpVFrame *f);
/// Frees GL objects and memory (the context must still be current).
void tpVScene_Free(tpVScene *sc);
/// RGB colour (0..1) of plan body b's legend entry: the body's own colour (its trail and tree
/// branches too, lifted toward white when too dark to see on the background).
void tpVScene_KeyColour(const tpVScene *sc, int b, float rgb[3]);

/// World-axis-aligned bounds (m) of the scene the camera fits (camera.c): the static bodies, the
/// moving bodies at every recorded state that has not fallen away (a margin below the stage's
/// floor), and the goal regions (their bounded sides).
void tpView_SceneBounds(const tpPlanRecord *rec, double lo[3], double hi[3]);
/// Where goal circle g applies in height (camera.c): the z (m) of its body's centre at the first
/// state of the selected world at which the centre is within the circle, else at the world's start
/// (a circle bounds x and y only: its column is drawn at the height where the body meets it).
double tpView_GoalCircleZ(const tpPlanRecord *rec, const tpPlanGoalRegion *g);
/// The lowest point of body b below its centre as drawn upright (m).
double tpView_HalfHeight(const tpPlanBody *b);

/// Prepares the navigation overlays of sc->rec (colours, height); false with a message on failure.
bool tpVNav_Init(tpVScene *sc, char *err, size_t errlen);
/// Draws the overlays of the layers in f->nav that belong to the step shown (only for the selected
/// world, whose solution they were recorded from). Called after the ground, before the bodies.
void tpVNav_Draw(const tpVScene *sc, const tpVFrame *f);
void tpVNav_Free(tpVScene *sc);
/// Tactic whose grid / field is drawn at step `step` (-1 if none): the first tactic driving an
/// active body that has one there, else the first tactic that has one.
int tpVNav_Focus(const tpPlanRecord *rec, int step);

/// The invariants of a camera, a frame and a scene's CPU side (scene_validate.c): false with the
/// first broken rule in why. Run through TP_VALIDATE in Debug and sanitizer builds.
bool tpViewCamera_Valid(const tpViewCamera *cam, char *why, size_t cap);
bool tpVFrame_Valid(const tpVFrame *f, char *why, size_t cap);
bool tpVScene_Valid(const tpVScene *sc, char *why, size_t cap);

/// Number of approximate contacts at time t (drawn when the layer is on); see draw.c.
int tpVScene_ContactCount(const tpVScene *sc, double t);

/* 2D overlay in pixel coordinates (origin top-left), drawn with stb_easy_font. */
void tpVText_Begin(int width, int height);
void tpVText_End(void);
/// Draws text (may contain newlines) at (x, y) with a scale factor; returns the width in pixels.
float tpVText_Draw(float x, float y, float scale, const char *text, const float rgba[4]);
/// Size of text in pixels at a scale.
void tpVText_Size(const char *text, float scale, float *w, float *h);
/// Filled rectangle.
void tpVText_Rect(float x, float y, float w, float h, const float rgba[4]);

#endif
