/* tplan viewer: plays back plan recordings and draws search trees (GLFW 3.3 + OpenGL), and
 * renders numbered PNG frames without a screen (`tplan view`, `tplan render`).
 *
 * The viewer reads only recordings (core/include/tp/plan.h): the JSON plan file and the binary
 * tree file. It never links ODE or Lua. Legacy (compatibility-profile) OpenGL with vertex buffers
 * and framebuffer objects (OpenGL >= 3.1, e.g. Mesa llvmpipe). */
#ifndef TP_VIEWER_H
#define TP_VIEWER_H

#include <stdbool.h>
#include <stddef.h>

#include "tp/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Camera (pure math, no OpenGL: usable by tests to find where a body lands in a frame)         */

/// Orbit camera around a target point; world z is up.
typedef struct tpViewCamera {
    double target[3]; /* m, the point looked at */
    double yaw;       /* rad, azimuth of the eye around the target (0: eye on +x) */
    double pitch;     /* rad, elevation of the eye above the target's horizontal plane */
    double dist;      /* m, eye to target */
    double fovy;      /* rad, vertical field of view */
} tpViewCamera;

/// Fits the camera to the scene of a recording (every non-plane static body and every position
/// of every moving body in every world, but those that fell away: more than half the stage's
/// largest extent, at least 0.5 m, below its floor, the lowest of the static bodies, the first
/// poses and the horizontal planes; planes are infinite and ignored) so that all of it is in view
/// for the given aspect ratio (width / height).
void tpViewCamera_Fit(tpViewCamera *cam, const tpPlanRecord *rec, double aspect);
/// Parses "--camera YAW,PITCH,DIST[,TX,TY,TZ]" (degrees, degrees, metres, metres) into cam.
/// Fields not given (the target) keep their value. False with a message on a malformed value.
bool tpViewCamera_Parse(tpViewCamera *cam, const char *text, char *err, size_t errlen);
/// Applies a recorded default view (degrees, metres) to cam: without a target cam keeps its own;
/// without a distance (0) the distance is fitted to rec's scene as tpViewCamera_Fit does.
void tpViewCamera_SetView(tpViewCamera *cam, const tpPlanView *view, const tpPlanRecord *rec, double aspect);
/// Eye position (m).
void tpViewCamera_Eye(const tpViewCamera *cam, double eye[3]);
/// Column-major 4x4 view and projection matrices for an image of width x height pixels.
void tpViewCamera_Matrices(const tpViewCamera *cam, int width, int height, float view[16], float proj[16]);
/// Projects a world point to pixel coordinates (x right, y down, origin at the top-left corner
/// of the image). False when the point is behind the camera.
bool tpViewCamera_Project(const tpViewCamera *cam, int width, int height, const double p[3], double *px, double *py);

/// Position (m) and orientation (w,x,y,z) of body b of world w at time t (s) of the recording,
/// interpolated linearly between steps (normalized-lerp for the orientation); t is clamped to
/// [0, nsteps·dt]. Non-moving bodies return their pose.
void tpView_BodyPose(const tpPlanRecord *rec, int world, int body, double t, double pos[3], double quat[4]);

/* ------------------------------------------------------------------------------------------ */
/* Viewer and renderer                                                                         */

/// Navigation overlay layers (the plan's "overlays", see docs/viewer.md), as bits of
/// tpViewerDef.nav_layers. Keys in the window: G, F, A, Y, W, V.
enum {
    TP_VIEW_NAV_GRID = 1,     /* occupancy grids: obstacle and grown cells */
    TP_VIEW_NAV_FIELD = 2,    /* harmonic potential as a colour map over the ground */
    TP_VIEW_NAV_ARROWS = 4,   /* its gradient (the descent direction) as arrows on a decimated grid */
    TP_VIEW_NAV_PATHS = 8,    /* planned paths */
    TP_VIEW_NAV_WINDOWS = 16, /* agents' local potential maps */
    TP_VIEW_NAV_TREES = 32,   /* vehicle clip search trees */
    TP_VIEW_NAV_ALL = 63
};

/// Parses a layer list "grid,field,arrows,paths,windows,trees", "all" or "none" into bits.
/// False with a message on an unknown name.
bool tpView_ParseNavLayers(const char *text, unsigned *bits, char *err, size_t errlen);

/// What is drawn and how. Get defaults from tpDefaultViewerDef().
typedef struct tpViewerDef {
    int width, height;   /* window / image size in pixels. Default 1280 x 720 */
    bool show_tree;      /* search tree layer (needs a tree). Default true when a tree is given */
    bool show_trails;    /* trajectories of the moving bodies up to the current time. Default true */
    bool show_contacts;  /* approximate contacts derived from geometry. Default false */
    bool show_goal;      /* the plan's goal regions (member "goal"), translucent. Default true */
    bool show_joints;    /* the plan's joints (member "joints"): anchor markers and axis lines. Default true */
    bool show_overlay;   /* text overlay and timeline. Default true */
    bool print_fps;      /* view: print the frame rate once a second and at exit. Default false */
    int quit_after;      /* view: close after this many frames (0 = when the user closes it) */
    bool print_state;    /* view: print the playback state, layers and camera at exit (scripted tests) */
    const char *camera;  /* "--camera" text (tpViewCamera_Parse) applied over the camera fitted to
                            the scene, so YAW,PITCH,DIST keeps the scene's centre as the target;
                            NULL (default): the fitted camera */
    int world;           /* world shown first (index into rec->worlds; 0 = the selected one) */
    unsigned nav_layers; /* TP_VIEW_NAV_* bits of the navigation overlays drawn (when the plan has
                            any). Default TP_VIEW_NAV_ALL */
} tpViewerDef;

/// Default viewer definition (see the field comments).
tpViewerDef tpDefaultViewerDef(void);

/// Offline rendering. Get defaults from tpDefaultRenderDef().
typedef struct tpRenderDef {
    tpViewerDef view;    /* size, layers and camera */
    const char *out_dir; /* directory of the frames (created if missing); required */
    double fps;          /* frames per second of motion. Default 60 */
    const char *frames;  /* which frames, e.g. "0,10-20,last"; NULL: all */
    bool quiet;          /* print nothing but errors */
} tpRenderDef;

tpRenderDef tpDefaultRenderDef(void);

/// What tpViewer_Run and tpViewer_Render report (the message is logged); the program decides what
/// that means for its exit status.
typedef enum {
    TP_VIEWER_OK = 0,
    TP_VIEWER_FAILURE = 1,   /* no window or OpenGL context, an I/O error */
    TP_VIEWER_BAD_INPUT = 2, /* an unreadable or corrupt file (the message names the file and field),
                                a bad option value */
} tpViewerStatus;

/// Opens the interactive viewer on a plan file and an optional tree file (NULL: none) and runs
/// until the window is closed.
tpViewerStatus tpViewer_Run(const char *plan_path, const char *tree_path, const tpViewerDef *def);

/// Renders PNG frames frame_000000.png, ... of the world def->view.world into def->out_dir.
tpViewerStatus tpViewer_Render(const char *plan_path, const char *tree_path, const tpRenderDef *def);

/// Number of frames a recording gives at `fps` frames per second: ceil(duration · fps), at least 1
/// (frame k shows time k / fps, so the frames last exactly as long as the motion).
int tpView_FrameCount(const tpPlanRecord *rec, int world, double fps);

/* ------------------------------------------------------------------------------------------ */
/* Live view of a running planner                                                              */

/// A live viewer fed by the planner's progress callback (tplan plan --view). Single-threaded:
/// the planner calls tpLiveView_Update from its progress callback (on the planner's thread),
/// which draws one frame and polls window events; nothing runs concurrently with the planner.
typedef struct tpLiveView tpLiveView;

/// Opens the window for a world described by rec (bodies only: trajectories may be empty,
/// nworlds 0 is allowed). rec is copied where needed; NULL with a message when no window opens.
tpLiveView *tpCreateLiveView(const tpPlanRecord *rec, const tpViewerDef *def, char *err, size_t errlen);
/// Replaces the tree drawn (tree is read, not kept) and draws a frame with the given status text.
/// Returns false when the user closed the window.
bool tpLiveView_Update(tpLiveView *lv, const tpTreeRecord *tree, const char *status);
/// Handles pending window events without redrawing (cheap). False when the window was closed.
bool tpLiveView_Poll(tpLiveView *lv);
/// Switches to playback of a finished recording (and its tree, may be NULL) and runs until the
/// window is closed. Takes no ownership.
void tpLiveView_Play(tpLiveView *lv, const tpPlanRecord *rec, const tpTreeRecord *tree);
/// Closes the window. NULL is allowed.
void tpDestroyLiveView(tpLiveView *lv);

#ifdef __cplusplus
}
#endif
#endif
