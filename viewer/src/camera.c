/* tplan viewer: camera math, scene fitting and pose interpolation (no OpenGL here). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/mathx.h"
#include "tp/viewer.h"

/* declared in internal.h (which draws with GL; this file has no GL) */
void tpView_SceneBounds(const tpPlanRecord *rec, double lo[3], double hi[3]);
double tpView_GoalCircleZ(const tpPlanRecord *rec, const tpPlanGoalRegion *g);
double tpView_HalfHeight(const tpPlanBody *b);

#define DEG (TP_PI / 180.0)

void tpViewCamera_Eye(const tpViewCamera *cam, double eye[3])
{
    double cp = cos(cam->pitch);
    eye[0] = cam->target[0] + cam->dist * cp * cos(cam->yaw);
    eye[1] = cam->target[1] + cam->dist * cp * sin(cam->yaw);
    eye[2] = cam->target[2] + cam->dist * sin(cam->pitch);
}

static void normalize3(double v[3])
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 0) {
        v[0] /= n, v[1] /= n, v[2] /= n;
    }
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

void tpViewCamera_Matrices(const tpViewCamera *cam, int width, int height, float view[16], float proj[16])
{
    double eye[3], f[3], s[3], u[3], up[3] = {0, 0, 1};
    tpViewCamera_Eye(cam, eye);
    for (int i = 0; i < 3; ++i) {
        f[i] = cam->target[i] - eye[i];
    }
    normalize3(f);
    cross3(f, up, s);
    if (s[0] * s[0] + s[1] * s[1] + s[2] * s[2] < 1e-12) { /* looking straight down or up */
        double alt[3] = {0, 1, 0};
        cross3(f, alt, s);
    }
    normalize3(s);
    cross3(s, f, u);
    /* gluLookAt, column-major */
    double m[16] = {s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0, 0, 0, 0, 1};
    m[12] = -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]);
    m[13] = -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
    m[14] = f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2];
    for (int i = 0; i < 16; ++i) {
        view[i] = (float)m[i];
    }
    /* gluPerspective; near/far follow the orbit distance */
    double aspect = height > 0 ? (double)width / height : 1.0;
    double zn = fmax(cam->dist * 0.01, 1e-4), zf = cam->dist * 100.0 + 100.0;
    double t = 1.0 / tan(cam->fovy / 2);
    memset(proj, 0, 16 * sizeof *proj);
    proj[0] = (float)(t / aspect);
    proj[5] = (float)t;
    proj[10] = (float)((zf + zn) / (zn - zf));
    proj[11] = -1.0f;
    proj[14] = (float)(2 * zf * zn / (zn - zf));
}

bool tpViewCamera_Project(const tpViewCamera *cam, int width, int height, const double p[3], double *px, double *py)
{
    float v[16], pr[16];
    tpViewCamera_Matrices(cam, width, height, v, pr);
    double e[4], c[4];
    for (int r = 0; r < 4; ++r) {
        e[r] = v[r] * p[0] + v[4 + r] * p[1] + v[8 + r] * p[2] + v[12 + r];
    }
    for (int r = 0; r < 4; ++r) {
        c[r] = pr[r] * e[0] + pr[4 + r] * e[1] + pr[8 + r] * e[2] + pr[12 + r] * e[3];
    }
    if (c[3] <= 0) {
        return false;
    }
    *px = (c[0] / c[3] + 1) * 0.5 * width;
    *py = (1 - c[1] / c[3]) * 0.5 * height;
    return true;
}

/* Grows [lo, hi] by the world-axis-aligned box of body b at state x (pos, quat). */
static void grow_body(double lo[3], double hi[3], const tpPlanBody *b, const double *x)
{
    const double *s = b->size;
    double h[3] = {0, 0, 0}; /* half extents in the body frame (m) */
    if (strcmp(b->shape, "box") == 0 || strcmp(b->shape, "mesh") == 0) {
        h[0] = 0.5 * s[0], h[1] = 0.5 * s[1], h[2] = 0.5 * s[2];
    } else if (strcmp(b->shape, "sphere") == 0) {
        h[0] = h[1] = h[2] = s[0];
    } else if (strcmp(b->shape, "capsule") == 0) {
        h[0] = h[1] = s[0], h[2] = s[0] + 0.5 * s[1];
    } else if (strcmp(b->shape, "cylinder") == 0) {
        h[0] = h[1] = s[0], h[2] = 0.5 * s[1];
    }
    double r[9];
    tpQuat_ToMatrix(x + 3, r);
    for (int i = 0; i < 3; ++i) {
        double e = fabs(r[3 * i]) * h[0] + fabs(r[3 * i + 1]) * h[1] + fabs(r[3 * i + 2]) * h[2];
        lo[i] = fmin(lo[i], x[i] - e);
        hi[i] = fmax(hi[i], x[i] + e);
    }
}

/* The stage's floor (m) and its margin: the lowest point of the static bodies, the moving bodies'
 * first poses and the horizontal planes; half the stage's largest extent, at least 0.5 m. */
static void stage_floor(const tpPlanRecord *rec, double *floor, double *margin)
{
    double lo[3], hi[3];
    for (int i = 0; i < 3; ++i) {
        lo[i] = INFINITY, hi[i] = -INFINITY;
    }
    double plane_z = INFINITY;
    for (int b = 0; b < rec->nbodies; ++b) {
        const tpPlanBody *pb = &rec->bodies[b];
        const double *n = pb->size;
        if (strcmp(pb->shape, "plane") == 0) {
            const double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            if (nn > 0 && n[2] > 0.9 * nn) { /* a floor: ax + by + cz = d, its height at the origin */
                plane_z = fmin(plane_z, n[3] / n[2]);
            }
        } else if (!pb->moving) {
            grow_body(lo, hi, pb, pb->pose);
        } else {
            for (int w = 0; w < rec->nworlds; ++w) {
                if (rec->worlds[w].traj && rec->worlds[w].traj[b]) {
                    grow_body(lo, hi, pb, rec->worlds[w].traj[b]);
                }
            }
        }
    }
    double ext = 0;
    for (int i = 0; i < 3; ++i) {
        ext = hi[i] > lo[i] ? fmax(ext, hi[i] - lo[i]) : ext;
    }
    *floor = fmin(lo[2], plane_z);
    *margin = fmax(0.5 * ext, 0.5);
}

void tpView_SceneBounds(const tpPlanRecord *rec, double lo[3], double hi[3])
{
    for (int i = 0; i < 3; ++i) {
        lo[i] = INFINITY, hi[i] = -INFINITY;
    }
    /* A moving body that fell a margin below the stage's floor (off a table with no floor under
     * it, through a hole) has left the scene: its fall is not framed (a 2 km fall made the table a
     * speck). */
    double floor, margin;
    stage_floor(rec, &floor, &margin);
    const double cutoff = isfinite(floor) ? floor - margin : -INFINITY;
    for (int b = 0; b < rec->nbodies; ++b) {
        const tpPlanBody *pb = &rec->bodies[b];
        if (strcmp(pb->shape, "plane") == 0) {
            continue;
        }
        if (!pb->moving) {
            grow_body(lo, hi, pb, pb->pose);
            continue;
        }
        for (int w = 0; w < rec->nworlds; ++w) {
            const tpPlanWorld *wd = &rec->worlds[w];
            if (!wd->traj || !wd->traj[b]) {
                continue;
            }
            for (int i = 0; i <= wd->nsteps; ++i) {
                const double *x = wd->traj[b] + (size_t)i * TP_STATE_DOUBLES;
                if (i == 0 || x[2] >= cutoff) {
                    grow_body(lo, hi, pb, x);
                }
            }
        }
    }
    /* the goal regions: where the action is meant to go (a target off the stage is framed too);
       an open side does not extend the bounds */
    for (int r = 0; r < rec->ngoal_regions && lo[0] <= hi[0]; ++r) {
        const tpPlanGoalRegion *g = &rec->goal_regions[r];
        double glo[3], ghi[3];
        if (g->kind == TP_GOAL_BOX) {
            for (int k = 0; k < 3; ++k) {
                glo[k] = isfinite(g->lo[k]) ? g->lo[k] : isfinite(g->hi[k]) ? fmin(g->hi[k], hi[k]) : lo[k];
                ghi[k] = isfinite(g->hi[k]) ? g->hi[k] : isfinite(g->lo[k]) ? fmax(g->lo[k], lo[k]) : hi[k];
            }
        } else {
            const double z = g->kind == TP_GOAL_CIRCLE ? tpView_GoalCircleZ(rec, g) : g->center[2];
            const double dz = g->kind == TP_GOAL_CIRCLE ? tpView_HalfHeight(&rec->bodies[g->body]) : g->radius;
            glo[0] = g->center[0] - g->radius, ghi[0] = g->center[0] + g->radius;
            glo[1] = g->center[1] - g->radius, ghi[1] = g->center[1] + g->radius;
            glo[2] = z - dz, ghi[2] = z + dz;
        }
        for (int k = 0; k < 3; ++k) {
            lo[k] = fmin(lo[k], glo[k]);
            hi[k] = fmax(hi[k], ghi[k]);
        }
    }
    if (!(lo[0] <= hi[0])) { /* nothing but planes */
        for (int i = 0; i < 3; ++i) {
            lo[i] = -1, hi[i] = 1;
        }
    }
}

double tpView_HalfHeight(const tpPlanBody *b)
{
    const double *s = b->size;
    if (strcmp(b->shape, "sphere") == 0) {
        return s[0];
    }
    if (strcmp(b->shape, "cylinder") == 0) {
        return 0.5 * s[1];
    }
    if (strcmp(b->shape, "capsule") == 0) {
        return s[0] + 0.5 * s[1];
    }
    return strcmp(b->shape, "plane") == 0 ? 0 : 0.5 * s[2]; /* box, mesh, compound */
}

double tpView_GoalCircleZ(const tpPlanRecord *rec, const tpPlanGoalRegion *g)
{
    const tpPlanBody *b = &rec->bodies[g->body];
    const tpPlanWorld *w = rec->nworlds > 0 ? &rec->worlds[rec->selected] : NULL;
    const double *x = b->moving && w && w->traj ? w->traj[g->body] : NULL;
    if (!x) {
        return b->pose[2];
    }
    for (int i = 0; i <= w->nsteps; ++i) {
        const double *s = x + (size_t)i * TP_STATE_DOUBLES;
        const double dx = s[0] - g->center[0], dy = s[1] - g->center[1];
        if (dx * dx + dy * dy <= g->radius * g->radius) {
            return s[2];
        }
    }
    return x[2];
}

static void fit_distance(tpViewCamera *cam, const double lo[3], const double hi[3], double aspect, double radius);

void tpViewCamera_Fit(tpViewCamera *cam, const tpPlanRecord *rec, double aspect)
{
    double lo[3], hi[3];
    tpView_SceneBounds(rec, lo, hi);
    double radius = 0;
    for (int i = 0; i < 3; ++i) {
        cam->target[i] = 0.5 * (lo[i] + hi[i]);
        radius += 0.25 * (hi[i] - lo[i]) * (hi[i] - lo[i]);
    }
    radius = fmax(sqrt(radius), 0.05);
    cam->fovy = 45 * DEG;
    cam->yaw = -90 * DEG; /* eye on -y, looking toward +y: x runs left to right */
    cam->pitch = 55 * DEG;
    fit_distance(cam, lo, hi, aspect, radius);
}

/* The smallest distance (m) at which the box lo..hi is in view from cam's target, yaw and pitch;
 * radius (m) bounds the box around the target. */
static void fit_distance(tpViewCamera *cam, const double lo[3], const double hi[3], double aspect, double radius)
{
    double half = cam->fovy / 2;
    double halfx = atan(tan(half) * (aspect > 0 ? aspect : 1.0));
    cam->dist = radius / sin(fmin(half, halfx)) * 1.02; /* the bounding sphere always fits */
    /* tighten: the smallest distance at which all 8 corners of the box project inside 92 % of the
       image (bisection; the sphere distance is the upper bound) */
    int w = 1000, h = (int)fmax(1, 1000 / (aspect > 0 ? aspect : 1.0));
    double a = cam->dist * 0.1, b = cam->dist;
    for (int it = 0; it < 40; ++it) {
        cam->dist = 0.5 * (a + b);
        bool inside = true;
        for (int k = 0; k < 8 && inside; ++k) {
            double p[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]}, px, py;
            inside =
                tpViewCamera_Project(cam, w, h, p, &px, &py) && fabs(px / w - 0.5) < 0.46 && fabs(py / h - 0.5) < 0.46;
        }
        if (inside) {
            b = cam->dist;
        } else {
            a = cam->dist;
        }
    }
    cam->dist = b;
}

/* Parses one number of a comma list; advances *s past it and a following comma. */
static bool parse_num(const char **s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(*s, &end);
    if (end == *s || errno != 0 || !isfinite(v) || (*end != ',' && *end != '\0')) {
        return false;
    }
    *out = v;
    *s = *end == ',' ? end + 1 : end;
    return true;
}

bool tpViewCamera_Parse(tpViewCamera *cam, const char *text, char *err, size_t errlen)
{
    double v[6] = {cam->yaw / DEG, cam->pitch / DEG, cam->dist, cam->target[0], cam->target[1], cam->target[2]};
    const char *s = text;
    int n = 0;
    while (*s && n < 6) {
        if (!parse_num(&s, &v[n])) {
            tpErrorf(err, errlen, "--camera: value %d of '%s' is not a number (expected YAW,PITCH,DIST[,TX,TY,TZ])",
                     n + 1, text);
            return false;
        }
        ++n;
    }
    size_t len = strlen(text);
    if (*s || n < 3 || n == 4 || n == 5 || text[len - 1] == ',') {
        tpErrorf(err, errlen, "--camera: expected YAW,PITCH,DIST or YAW,PITCH,DIST,TX,TY,TZ, got '%s'", text);
        return false;
    }
    if (v[2] <= 0) {
        tpErrorf(err, errlen, "--camera: distance must be > 0 (got %g)", v[2]);
        return false;
    }
    if (fabs(v[1]) > 89.9) {
        tpErrorf(err, errlen, "--camera: pitch must be within -89.9..89.9 degrees (got %g)", v[1]);
        return false;
    }
    cam->yaw = v[0] * DEG;
    cam->pitch = v[1] * DEG;
    cam->dist = v[2];
    cam->target[0] = v[3], cam->target[1] = v[4], cam->target[2] = v[5];
    return true;
}

void tpViewCamera_SetView(tpViewCamera *cam, const tpPlanView *view, const tpPlanRecord *rec, double aspect)
{
    cam->yaw = view->yaw * DEG;
    cam->pitch = view->pitch * DEG;
    if (view->has_target) {
        memcpy(cam->target, view->target, sizeof cam->target);
    }
    if (view->distance > 0) {
        cam->dist = view->distance;
    } else {
        double lo[3], hi[3], radius = 0;
        tpView_SceneBounds(rec, lo, hi);
        for (int i = 0; i < 3; ++i) { /* the bounding sphere around the target */
            double d = fmax(fabs(hi[i] - cam->target[i]), fabs(cam->target[i] - lo[i]));
            radius += d * d;
        }
        fit_distance(cam, lo, hi, aspect, fmax(sqrt(radius), 0.05));
    }
}

void tpView_BodyPose(const tpPlanRecord *rec, int world, int body, double t, double pos[3], double quat[4])
{
    const tpPlanBody *pb = &rec->bodies[body];
    const tpPlanWorld *w = (world >= 0 && world < rec->nworlds) ? &rec->worlds[world] : NULL;
    if (!pb->moving || !w || !w->traj || !w->traj[body]) {
        memcpy(pos, pb->pose, 3 * sizeof *pos);
        memcpy(quat, pb->pose + 3, 4 * sizeof *quat);
        return;
    }
    double s = rec->dt > 0 ? t / rec->dt : 0;
    if (!(s > 0)) {
        s = 0;
    }
    if (s > w->nsteps) {
        s = w->nsteps;
    }
    int i = (int)floor(s);
    if (i >= w->nsteps) {
        i = w->nsteps > 0 ? w->nsteps - 1 : 0;
    }
    double f = s - i;
    const double *a = w->traj[body] + (size_t)i * TP_STATE_DOUBLES;
    const double *b = w->nsteps > 0 ? a + TP_STATE_DOUBLES : a;
    for (int k = 0; k < 3; ++k) {
        pos[k] = a[k] + f * (b[k] - a[k]);
    }
    double dot = 0;
    for (int k = 0; k < 4; ++k) {
        dot += a[3 + k] * b[3 + k];
    }
    double sign = dot < 0 ? -1 : 1, n = 0;
    for (int k = 0; k < 4; ++k) {
        quat[k] = a[3 + k] + f * (sign * b[3 + k] - a[3 + k]);
        n += quat[k] * quat[k];
    }
    n = sqrt(n);
    if (n > 0) {
        for (int k = 0; k < 4; ++k) {
            quat[k] /= n;
        }
    } else {
        quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
    }
}

int tpView_FrameCount(const tpPlanRecord *rec, int world, double fps)
{
    if (world < 0 || world >= rec->nworlds) {
        return 0;
    }
    /* frame k shows time k/fps and lasts 1/fps: ceil(duration * fps) frames cover the motion
       exactly, the video is as long as the motion (not one frame longer); at least one frame */
    double dur = rec->worlds[world].nsteps * rec->dt;
    int n = (int)ceil(dur * fps - 1e-9);
    return n > 1 ? n : 1;
}
