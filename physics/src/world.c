/* tplan physics: scene validation, ODE world construction and the read-only queries.
 * Stepping, collisions and snapshots live in step.c. */
#include "world_internal.h"

#include "tp/base.h"
#include "tp/mathx.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Defaults                                                                                    */

tpSceneDef tpDefaultSceneDef(void)
{
    tpSceneDef d;
    memset(&d, 0, sizeof d);
    d.gravity[2] = -9.81;
    d.dt = 1.0 / 60.0;
    d.solver = TP_SOLVER_STEP;
    d.quickstep_iters = 20;
    d.erp = 0.2;
    d.cfm = 1e-5;
    d.max_contacts = 8;
    d.substeps = 1;
    d.max_static_penetration = 0.005;
    d.max_body_penetration = 0.005;
    d.sleep_speed = 0.005;
    d.friction_cone = true;
    d.sleep_time = 0.25;
    return d;
}

tpBodyDef tpDefaultBodyDef(void)
{
    tpBodyDef b;
    memset(&b, 0, sizeof b);
    b.cls = TP_BODY_PASSIVE;
    b.shape = TP_SHAPE_BOX;
    b.size[0] = b.size[1] = b.size[2] = 1.0;
    b.plane[2] = 1.0; /* z-up ground if someone switches the shape to a plane */
    b.mass = 1.0;
    b.quat[0] = 1.0;
    for (int k = 0; k < 4; k++)
        b.color[k] = 1.0f;
    b.material = 0;
    b.motion.kind = TP_MOTION_TACTIC;
    b.motion.axis[2] = 1.0;
    b.motion.period = 1.0;
    return b;
}

tpMaterialDef tpDefaultMaterialDef(void)
{
    tpMaterialDef m;
    memset(&m, 0, sizeof m);
    tpStrCopy(m.name, sizeof m.name, "default");
    m.friction = 0.5;
    m.restitution = 0.0;
    m.rolling_friction = 0.0;
    m.bounce_velocity = 0.01;
    return m;
}

/* ------------------------------------------------------------------------------------------ */
/* ODE library lifetime: one dInitODE2 for any number of worlds (ODE keeps global state).      */

/* Worlds in use in the process, guarded by g_ode_lock (the embedding API lets several threads
 * create and destroy worlds); the second piece of process-wide state besides the log level.
 *
 * A host program may use ODE itself (a game's physics, a robot simulator): libtplan leaves ODE's
 * process-wide settings as the host set them whenever no tplan step is running.
 * - dInitODE2 / dCloseODE: one pair for all of tplan's worlds. ODE counts them (odeinit.cpp:
 *   dCloseODE finalises only when every dInitODE2 has been closed), so a host's own dInitODE2
 *   keeps ODE alive after tplan's last world goes. ODE's count is unguarded: a host must not call
 *   dInitODE2 / dCloseODE while another thread loads, plans, replays or frees a tplan domain.
 * - The error, debug and message handlers: tplan's are installed only while at least one thread
 *   is inside tpOde_Solve (g_ode_stepping) and the host's put back when the last one leaves.
 *   While installed they pass a message raised by any other thread (the host's own step) to the
 *   host's handler, or print it as ODE's default would.
 * - ODE's random generator (quickstep's row shuffle): set to 0 for each quickstep and put back to
 *   the host's seed after it, under g_ode_lock. */
static int g_ode_users;
static int g_ode_stepping; /* threads inside tpOde_Solve; under g_ode_lock */
static pthread_mutex_t g_ode_lock = PTHREAD_MUTEX_INITIALIZER;
/* The host's handlers while tplan's are installed (NULL: ODE's default); atomic because a host
 * thread may raise a message (and read them) while a tplan thread restores them. */
static _Atomic(dMessageFunction *) g_host_error, g_host_debug, g_host_message;
static _Thread_local bool g_in_solve; /* this thread is inside tpOde_Solve */

/* A message that is not tplan's: the host's handler, else what ODE prints without one. */
static void ode_to_host(dMessageFunction *host, const char *what, int num, const char *msg, va_list ap)
{
    if (host) {
        host(num, msg, ap);
        return;
    }
    fprintf(stderr, "\n%s %d: ", what, num);
    vfprintf(stderr, msg, ap);
    fprintf(stderr, "\n");
    fflush(stderr);
}

static void ode_v_log(tpLogLevel level, int num, const char *msg, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, msg, ap);
    tpLog(level, "ODE (%d): %s", num, buf);
}
static void ode_error(int num, const char *msg, va_list ap)
{
    if (!g_in_solve) {
        ode_to_host(atomic_load(&g_host_error), "ODE Error", num, msg, ap);
        return;
    }
    ode_v_log(TP_LOG_ERROR, num, msg, ap);
}
static void ode_debug(int num, const char *msg, va_list ap)
{
    if (!g_in_solve) {
        ode_to_host(atomic_load(&g_host_debug), "ODE INTERNAL ERROR", num, msg, ap);
        return;
    }
    ode_v_log(TP_LOG_ERROR, num, msg, ap);
}
/* ODE reports one thing through its message handler that the physics must act on: its Dantzig
 * LCP solver (dWorldStep) giving up on a degenerate pivot ("LCP internal error, s <= 0"). It then
 * zeroes every force it had not solved yet, so bodies resting on each other free-fall for the
 * step (two boxes stacked exactly touching fell through the floor). The message handler is ODE's
 * only channel for that, and it is process-wide: the count is per thread (worlds are stepped by
 * one thread at a time), read before and after each step by step.c, which then solves the
 * substep again with the iterative solver. At hundreds of thousands of steps per plan the
 * messages themselves would drown the log, so they go to the debug level. */
static _Thread_local unsigned long g_lcp_failures;

static void ode_message(int num, const char *msg, va_list ap)
{
    if (!g_in_solve) {
        ode_to_host(atomic_load(&g_host_message), "ODE Message", num, msg, ap);
        return;
    }
    if (num == d_ERR_LCP)
        g_lcp_failures++;
    ode_v_log(TP_LOG_DEBUG, num, msg, ap);
}

/* Under g_ode_lock: the first thread to enter a solve installs tplan's handlers, the last to
 * leave puts the host's back. */
static void solve_enter_locked(void)
{
    if (g_ode_stepping++ == 0) {
        atomic_store(&g_host_error, dGetErrorHandler());
        atomic_store(&g_host_debug, dGetDebugHandler());
        atomic_store(&g_host_message, dGetMessageHandler());
        dSetErrorHandler(ode_error);
        dSetDebugHandler(ode_debug);
        dSetMessageHandler(ode_message);
    }
}

static void solve_leave_locked(void)
{
    if (--g_ode_stepping == 0) {
        dSetErrorHandler(atomic_load(&g_host_error));
        dSetDebugHandler(atomic_load(&g_host_debug));
        dSetMessageHandler(atomic_load(&g_host_message));
    }
}

int tpOde_Solve(dWorldID world, double h, bool exact)
{
    int ok;
    pthread_mutex_lock(&g_ode_lock);
    solve_enter_locked();
    g_in_solve = true;
    if (exact) { /* dWorldStep needs no shared state: threads solve at the same time */
        pthread_mutex_unlock(&g_ode_lock);
        ok = dWorldStep(world, h);
        pthread_mutex_lock(&g_ode_lock);
    } else {
        const unsigned long host_seed = dRandGetSeed();
        dRandSetSeed(0);
        ok = dWorldQuickStep(world, h);
        dRandSetSeed(host_seed);
    }
    g_in_solve = false;
    solve_leave_locked();
    pthread_mutex_unlock(&g_ode_lock);
    return ok;
}

unsigned long tpOde_LcpFailures(void)
{
    return g_lcp_failures;
}

static void ode_acquire(void)
{
    pthread_mutex_lock(&g_ode_lock);
    if (g_ode_users++ == 0) {
        dInitODE2(0);
    }
    /* ODE's per-thread collision data: once per thread that steps worlds (a no-op when there). */
    dAllocateODEDataForThread(dAllocateMaskAll);
    pthread_mutex_unlock(&g_ode_lock);
}

static void ode_release(void)
{
    pthread_mutex_lock(&g_ode_lock);
    if (--g_ode_users == 0) {
        dCloseODE(); /* ODE's own count: a host's dInitODE2 keeps it initialised */
    }
    pthread_mutex_unlock(&g_ode_lock);
}

/* The inertia tensor of a dynamic body and its inverse, kept for the friction direction's
 * prediction (contacts.c) and the momentum of free flight (step.c). A body whose principal moments
 * differ turns its angular velocity as it rotates (the intermediate-axis flip). ODE 0.16's
 * gyroscopic term is implicit: stable, but it drains a free box's rotational energy (a box spun
 * about its intermediate axis lost 12.7 % in 10 s at 1/60 s and flipped 5 times where the exact
 * motion flips twice). Such bodies (gyro) turn it off while in free flight and keep their angular
 * momentum instead (step.c, gyro_modes and conserve_momentum). */
static void setup_inertia(tpBodyRt *r, const dMass *m)
{
    const double *I = m->I; /* rows of 4 */
    const double a = I[0], b = I[1], c = I[2], d = I[4], e = I[5], f = I[6], g = I[8], h = I[9], k = I[10];
    const bool isotropic = b == 0.0 && c == 0.0 && d == 0.0 && f == 0.0 && g == 0.0 && h == 0.0 && a == e && e == k;
    const double det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g);
    const double M[9] = {a, b, c, d, e, f, g, h, k};
    memcpy(r->inertia, M, sizeof M);
    memset(r->inertia_inv, 0, sizeof r->inertia_inv);
    r->gyro = !isotropic && det > 0.0;
    if (!(fabs(det) > 0.0))
        return;
    const double inv[9] = {(e * k - f * h) / det, (c * h - b * k) / det, (b * f - c * e) / det,
                           (f * g - d * k) / det, (a * k - c * g) / det, (c * d - a * f) / det,
                           (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det};
    memcpy(r->inertia_inv, inv, sizeof inv);
}

/* ------------------------------------------------------------------------------------------ */
/* Validation                                                                                  */

static double norm3(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static bool all_finite(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

static bool check_waypoints(const tpMotionDef *m, const char *who, char *err, size_t errlen)
{
    if (m->npoints < 2 || m->npoints > TP_MAX_WAYPOINTS) {
        tpErrorf(err, errlen, "%s: motion needs 2..%d waypoints (got %d)", who, TP_MAX_WAYPOINTS, m->npoints);
        return false;
    }
    if ((int)m->loop < TP_LOOP_ONCE || (int)m->loop > TP_LOOP_PINGPONG) {
        tpErrorf(err, errlen, "%s: motion.loop must be a tpMotionLoop (got %d)", who, (int)m->loop);
        return false;
    }
    if (!(m->pause >= 0) || m->pause > 1e6) {
        tpErrorf(err, errlen, "%s: motion.pause must be in [0, 1e6] s (got %g)", who, m->pause);
        return false;
    }
    for (int k = 0; k < m->npoints; k++) {
        for (int i = 0; i < 4; i++) {
            if (!(fabs(m->points[k][i]) <= TP_MAX_COORD)) {
                tpErrorf(err, errlen, "%s: motion.points[%d][%d] = %g is outside +-%g", who, k, i, m->points[k][i],
                         TP_MAX_COORD);
                return false;
            }
        }
    }
    int legs = m->loop == TP_LOOP_CYCLE ? m->npoints : m->npoints - 1;
    for (int k = 0; k < legs; k++) {
        if (!(m->leg_time[k] >= 1e-3) || m->leg_time[k] > 1e6) {
            tpErrorf(err, errlen, "%s: motion leg %d takes %g s (must be in [0.001, 1e6])", who, k, m->leg_time[k]);
            return false;
        }
        const double *a = m->points[k], *b = m->points[(k + 1) % m->npoints];
        double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        if (norm3(d) / m->leg_time[k] > TP_MAX_SPEED || fabs(b[3] - a[3]) / m->leg_time[k] > TP_MAX_ANGVEL) {
            tpErrorf(err, errlen, "%s: motion leg %d is faster than %g m/s or %g rad/s", who, k, TP_MAX_SPEED,
                     TP_MAX_ANGVEL);
            return false;
        }
    }
    return true;
}

/* Label used in messages: the quoted name, or the index for a body without a usable name. */
static void body_label(const tpBodyDef *b, int i, char *out, size_t cap)
{
    if (memchr(b->name, '\0', TP_NAME_MAX) != NULL && b->name[0] != '\0')
        snprintf(out, cap, "body \"%s\"", b->name);
    else
        snprintf(out, cap, "body #%d", i);
}

static bool check_material(double friction, double restitution, double rolling, double bounce_vel, const char *what,
                           char *err, size_t errlen)
{
    if (!(friction >= 0.0) || !isfinite(friction)) {
        tpErrorf(err, errlen, "%s: friction must be finite and >= 0 (got %g)", what, friction);
        return false;
    }
    if (!(restitution >= 0.0 && restitution <= 1.0)) {
        tpErrorf(err, errlen, "%s: restitution must be in [0, 1] (got %g)", what, restitution);
        return false;
    }
    if (!(rolling >= 0.0) || !isfinite(rolling)) {
        tpErrorf(err, errlen, "%s: rolling_friction must be finite and >= 0 (got %g)", what, rolling);
        return false;
    }
    if (!(bounce_vel >= 0.0) || !isfinite(bounce_vel)) {
        tpErrorf(err, errlen, "%s: bounce_velocity must be finite and >= 0 (got %g)", what, bounce_vel);
        return false;
    }
    return true;
}

static bool is_dynamic(const tpBodyDef *b)
{
    return b->cls == TP_BODY_PASSIVE || b->cls == TP_BODY_ACTIVE ||
           (b->cls == TP_BODY_FOREIGN && b->motion.kind == TP_MOTION_TACTIC);
}

/* Reports the first body (in order) whose name an earlier body has. */
static bool check_body_names(const tpSceneDef *def, char *err, size_t errlen)
{
    int earlier = -1;
    const int i = def->nbodies > 0
                      ? tpNames_FirstDuplicate(def->bodies[0].name, sizeof def->bodies[0], def->nbodies, &earlier)
                      : -1;
    if (i == -2) {
        tpErrorf(err, errlen, "scene: out of memory checking %d body names", def->nbodies);
        return false;
    }
    if (i >= 0) {
        char who[TP_NAME_MAX + 16];
        body_label(&def->bodies[i], i, who, sizeof who);
        tpErrorf(err, errlen, "%s: duplicate name (also body #%d)", who, earlier);
        return false;
    }
    return true;
}

static bool check_body(const tpSceneDef *def, int i, char *err, size_t errlen)
{
    const tpBodyDef *b = &def->bodies[i];
    char who[TP_NAME_MAX + 16];
    body_label(b, i, who, sizeof who);

    if (memchr(b->name, '\0', TP_NAME_MAX) == NULL) {
        tpErrorf(err, errlen, "%s: name is not terminated within %d bytes", who, TP_NAME_MAX);
        return false;
    }
    if (b->name[0] == '\0') {
        tpErrorf(err, errlen, "%s: name must not be empty", who);
        return false;
    }
    int cc = tpName_ControlByte(b->name);
    if (cc >= 0) {
        tpErrorf(err, errlen, "body #%d: name has a control character (byte 0x%02x at offset %d)", i,
                 (unsigned char)b->name[cc], cc);
        return false;
    }
    if ((int)b->cls < TP_BODY_STATIC || (int)b->cls > TP_BODY_FOREIGN) {
        tpErrorf(err, errlen, "%s: cls must be a tpBodyClass (got %d)", who, (int)b->cls);
        return false;
    }
    if ((int)b->shape < TP_SHAPE_BOX || (int)b->shape > TP_SHAPE_COMPOUND) {
        tpErrorf(err, errlen, "%s: shape must be a tpShapeKind (got %d)", who, (int)b->shape);
        return false;
    }
    if (b->material < 0 || b->material >= def->nmaterials) {
        tpErrorf(err, errlen, "%s: material index %d out of range [0, %d)", who, b->material, def->nmaterials);
        return false;
    }
    if (b->marker && b->cls != TP_BODY_STATIC) {
        tpErrorf(err, errlen, "%s: only a static body can be a marker", who);
        return false;
    }

    if (b->shape == TP_SHAPE_PLANE) {
        /* A plane has no finite mass or extent: ODE only supports it as a static geom. */
        if (b->cls != TP_BODY_STATIC) {
            tpErrorf(err, errlen, "%s: a plane must be static", who);
            return false;
        }
        if (!all_finite(b->plane, 4)) {
            tpErrorf(err, errlen, "%s: plane coefficients must be finite", who);
            return false;
        }
        double nn = norm3(b->plane);
        if (!(nn >= 1e-6) || nn > 1e6) {
            tpErrorf(err, errlen, "%s: plane normal (plane[0..2]) must have a length in [1e-6, 1e6] (got %g)", who, nn);
            return false;
        }
        if (fabs(b->plane[3]) / nn > TP_MAX_COORD) {
            tpErrorf(err, errlen, "%s: the plane is %g m from the origin (at most %g)", who, fabs(b->plane[3]) / nn,
                     TP_MAX_COORD);
            return false;
        }
        return true;
    }

    if (b->shape == TP_SHAPE_MESH && !tpMeshGeom_Check(b, who, err, errlen))
        return false;
    if (b->shape == TP_SHAPE_COMPOUND && !tpCompound_Check(b, who, err, errlen))
        return false;
    static const char *const axis_name[3] = {"size[0]", "size[1]", "size[2]"};
    int nsize = b->shape == TP_SHAPE_BOX                                     ? 3
                : b->shape == TP_SHAPE_SPHERE                                ? 1
                : b->shape == TP_SHAPE_MESH || b->shape == TP_SHAPE_COMPOUND ? 0
                                                                             : 2;
    for (int k = 0; k < nsize; k++) {
        if (!(b->size[k] > 0.0) || !isfinite(b->size[k])) {
            tpErrorf(err, errlen, "%s: %s must be > 0 (got %g)", who, axis_name[k], b->size[k]);
            return false;
        }
    }
    if (!all_finite(b->pos, 3) || !all_finite(b->vel, 3) || !all_finite(b->angvel, 3)) {
        tpErrorf(err, errlen, "%s: pos, vel and angvel must be finite", who);
        return false;
    }
    for (int k = 0; k < nsize; k++) {
        if (b->size[k] < TP_MIN_SIZE || b->size[k] > TP_MAX_SIZE) {
            tpErrorf(err, errlen, "%s: %s = %g is outside [%g, %g] m", who, axis_name[k], b->size[k], TP_MIN_SIZE,
                     TP_MAX_SIZE);
            return false;
        }
    }
    static const struct {
        const char *field;
        double max;
        const char *unit;
    } ranges[3] = {{"pos", TP_MAX_COORD, "m"}, {"vel", TP_MAX_SPEED, "m/s"}, {"angvel", TP_MAX_ANGVEL, "rad/s"}};
    const double *vecs[3] = {b->pos, b->vel, b->angvel};
    for (int v = 0; v < 3; v++) {
        for (int k = 0; k < 3; k++) {
            if (fabs(vecs[v][k]) > ranges[v].max) {
                tpErrorf(err, errlen, "%s: %s[%d] = %g is outside +-%g %s", who, ranges[v].field, k, vecs[v][k],
                         ranges[v].max, ranges[v].unit);
                return false;
            }
        }
    }
    if (!all_finite(b->quat, 4) || (b->quat[0] == 0.0 && b->quat[1] == 0.0 && b->quat[2] == 0.0 && b->quat[3] == 0.0)) {
        tpErrorf(err, errlen, "%s: quat must be finite and non-zero", who);
        return false;
    }
    if (is_dynamic(b) && (!(b->mass > 0.0) || !isfinite(b->mass))) {
        tpErrorf(err, errlen, "%s: mass must be > 0 (got %g)", who, b->mass);
        return false;
    }
    if (is_dynamic(b) && (b->mass < TP_MIN_MASS || b->mass > TP_MAX_MASS)) {
        tpErrorf(err, errlen, "%s: mass = %g is outside [%g, %g] kg", who, b->mass, TP_MIN_MASS, TP_MAX_MASS);
        return false;
    }
    if (!(b->max_force >= 0.0) || !(b->max_torque >= 0.0)) {
        tpErrorf(err, errlen, "%s: max_force and max_torque must be >= 0 (got %g, %g)", who, b->max_force,
                 b->max_torque);
        return false;
    }
    if (b->max_force > TP_MAX_FORCE || b->max_torque > TP_MAX_FORCE) {
        tpErrorf(err, errlen, "%s: max_force and max_torque must be <= %g (got %g, %g)", who, TP_MAX_FORCE,
                 b->max_force, b->max_torque);
        return false;
    }
    if (!(b->linear_damping >= 0.0 && b->linear_damping <= 1.0) ||
        !(b->angular_damping >= 0.0 && b->angular_damping <= 1.0)) {
        tpErrorf(err, errlen, "%s: linear_damping and angular_damping must be in [0, 1] (got %g, %g)", who,
                 b->linear_damping, b->angular_damping);
        return false;
    }
    if (b->cls == TP_BODY_FOREIGN) {
        const tpMotionDef *m = &b->motion;
        if ((int)m->kind < TP_MOTION_TACTIC || (int)m->kind > TP_MOTION_FUNCTION) {
            tpErrorf(err, errlen, "%s: motion.kind must be a tpMotionKind (got %d)", who, (int)m->kind);
            return false;
        }
        if (!all_finite(m->axis, 3) || !isfinite(m->rate) || !isfinite(m->phase) || !all_finite(m->vel, 3) ||
            !all_finite(m->amplitude, 3)) {
            tpErrorf(err, errlen, "%s: motion parameters must be finite", who);
            return false;
        }
        if (fabs(m->rate) > TP_MAX_ANGVEL || fabs(m->phase) > 1e6 || norm3(m->vel) > TP_MAX_SPEED ||
            norm3(m->amplitude) > TP_MAX_COORD || norm3(m->axis) > 1e6) {
            tpErrorf(err, errlen,
                     "%s: motion parameters out of range (|rate| <= %g rad/s, |vel| <= %g m/s, |amplitude| <= %g m, "
                     "|phase| <= 1e6 rad)",
                     who, TP_MAX_ANGVEL, TP_MAX_SPEED, TP_MAX_COORD);
            return false;
        }
        if (m->kind == TP_MOTION_ROTATE && norm3(m->axis) <= 0.0) {
            tpErrorf(err, errlen, "%s: motion.axis must not be zero", who);
            return false;
        }
        if (m->kind == TP_MOTION_FUNCTION && m->fn == NULL) {
            tpErrorf(err, errlen, "%s: motion.fn must be set for a function motion", who);
            return false;
        }
        if (m->kind == TP_MOTION_WAYPOINTS && !check_waypoints(m, who, err, errlen))
            return false;
        if (m->kind == TP_MOTION_OSCILLATE && (!(m->period >= 1e-3) || !(m->period <= 1e9))) {
            tpErrorf(err, errlen, "%s: motion.period must be in [0.001, 1e9] s (got %g)", who, m->period);
            return false;
        }
    }
    return true;
}

static bool check_scene(const tpSceneDef *def, char *err, size_t errlen)
{
    if (def == NULL) {
        tpErrorf(err, errlen, "scene: definition is NULL");
        return false;
    }
    if (!(def->dt >= 1e-6) || !(def->dt <= 1.0)) {
        tpErrorf(err, errlen, "scene: dt must be in [1e-6, 1] s (got %g)", def->dt);
        return false;
    }
    if (!all_finite(def->gravity, 3) || norm3(def->gravity) > 1e4) {
        tpErrorf(err, errlen, "scene: gravity must be finite and at most 1e4 m/s^2");
        return false;
    }
    if (def->solver != TP_SOLVER_STEP && def->solver != TP_SOLVER_QUICKSTEP) {
        tpErrorf(err, errlen, "scene: solver must be a tpSolverKind (got %d)", (int)def->solver);
        return false;
    }
    if (def->solver == TP_SOLVER_QUICKSTEP && def->quickstep_iters < 1) {
        tpErrorf(err, errlen, "scene: quickstep_iters must be >= 1 (got %d)", def->quickstep_iters);
        return false;
    }
    if (!(def->erp >= 0.0 && def->erp <= 1.0)) {
        tpErrorf(err, errlen, "scene: erp must be in [0, 1] (got %g)", def->erp);
        return false;
    }
    if (!(def->max_static_penetration >= 0.0) || def->max_static_penetration > 1e3) {
        tpErrorf(err, errlen, "scene: max_static_penetration must be in [0, 1000] m (got %g)",
                 def->max_static_penetration);
        return false;
    }
    if (!(def->max_body_penetration >= 0.0) || def->max_body_penetration > 1e3) {
        tpErrorf(err, errlen, "scene: max_body_penetration must be in [0, 1000] m (got %g)", def->max_body_penetration);
        return false;
    }
    if (!(def->cfm >= 0.0) || !isfinite(def->cfm)) {
        tpErrorf(err, errlen, "scene: cfm must be >= 0 (got %g)", def->cfm);
        return false;
    }
    if (!(def->sleep_speed >= 0.0 && def->sleep_speed <= 1.0)) {
        tpErrorf(err, errlen, "scene: sleep_speed must be in [0, 1] m/s (0 = never sleep; got %g)", def->sleep_speed);
        return false;
    }
    if (def->sleep_speed > 0.0 && !(def->sleep_time > 0.0 && def->sleep_time <= 60.0)) {
        tpErrorf(err, errlen, "scene: sleep_time must be in (0, 60] s (got %g)", def->sleep_time);
        return false;
    }
    /* dCollide takes the contact limit in the low 16 bits of its flags. */
    if (def->max_contacts < 1 || def->max_contacts > 0xffff) {
        tpErrorf(err, errlen, "scene: max_contacts must be in [1, 65535] (got %d)", def->max_contacts);
        return false;
    }
    if (def->substeps < 1 || def->substeps > 64) {
        tpErrorf(err, errlen, "scene: substeps must be in [1, 64] (got %d)", def->substeps);
        return false;
    }
    if (def->nmaterials < 1 || def->materials == NULL || def->nmaterials > TP_MAX_MATERIALS) {
        tpErrorf(err, errlen, "scene: 1 to %d materials are required (nmaterials = %d)", TP_MAX_MATERIALS,
                 def->nmaterials);
        return false;
    }
    for (int i = 0; i < def->nmaterials; i++) {
        const tpMaterialDef *m = &def->materials[i];
        char who[TP_NAME_MAX + 32];
        if (memchr(m->name, '\0', TP_NAME_MAX) != NULL && m->name[0] != '\0')
            snprintf(who, sizeof who, "material \"%s\"", m->name);
        else
            snprintf(who, sizeof who, "material #%d", i);
        if (!check_material(m->friction, m->restitution, m->rolling_friction, m->bounce_velocity, who, err, errlen))
            return false;
    }
    if (def->ncontacts < 0 || (def->ncontacts > 0 && def->contacts == NULL)) {
        tpErrorf(err, errlen, "scene: contacts is NULL but ncontacts = %d", def->ncontacts);
        return false;
    }
    for (int i = 0; i < def->ncontacts; i++) {
        const tpContactDef *c = &def->contacts[i];
        char who[32];
        snprintf(who, sizeof who, "contact #%d", i);
        if (c->material_a < 0 || c->material_a >= def->nmaterials || c->material_b < 0 ||
            c->material_b >= def->nmaterials) {
            tpErrorf(err, errlen, "%s: material index out of range [0, %d) (got %d, %d)", who, def->nmaterials,
                     c->material_a, c->material_b);
            return false;
        }
        if (!check_material(c->friction, c->restitution, c->rolling_friction, c->bounce_velocity, who, err, errlen))
            return false;
    }
    if (def->nbodies < 0 || (def->nbodies > 0 && def->bodies == NULL)) {
        tpErrorf(err, errlen, "scene: bodies is NULL but nbodies = %d", def->nbodies);
        return false;
    }
    if (def->nbodies > TP_MAX_BODIES) {
        tpErrorf(err, errlen, "scene: %d bodies, at most %d", def->nbodies, TP_MAX_BODIES);
        return false;
    }
    for (int i = 0; i < def->nbodies; i++)
        if (!check_body(def, i, err, errlen))
            return false;
    if (!tpJoints_Check(def, err, errlen))
        return false;
    return check_body_names(def, err, errlen);
}

/* ------------------------------------------------------------------------------------------ */
/* Construction                                                                                */

static double max_of(double a, double b)
{
    return a > b ? a : b;
}

tpPairSurface tpWorld_PairSurface(const tpWorld *w, int a, int b)
{
    TP_ASSERT(a >= 0 && a < w->def.nbodies && b >= 0 && b < w->def.nbodies);
    const tpSurface *s = &w->surfaces[w->bodies[a].material * w->def.nmaterials + w->bodies[b].material];
    tpPairSurface out = {s->mu, s->bounce, s->rho, s->bounce_vel};
    return out;
}

int tpWorld_RestingFriction(const tpWorld *w, int body, double *force)
{
    TP_ASSERT(body >= 0 && body < w->def.nbodies && force);
    const tpBodyDef *b = &w->bodies[body];
    *force = 0.0;
    const double *g = w->def.gravity;
    double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    /* Only an upright box on a horizontal floor slides rather than rolls (z up, gravity down). */
    if (b->shape != TP_SHAPE_BOX || !is_dynamic(b) || !(gn > 0) || g[0] != 0.0 || g[1] != 0.0 || g[2] >= 0.0)
        return -1;
    double qn = sqrt(b->quat[0] * b->quat[0] + b->quat[3] * b->quat[3]);
    double q2 = b->quat[0] * b->quat[0] + b->quat[1] * b->quat[1] + b->quat[2] * b->quat[2] + b->quat[3] * b->quat[3];
    if (!(q2 > 0) || qn * qn < 0.999 * q2)
        return -1;                                                  /* tilted about x or y */
    const double bottom = b->pos[2] - 0.5 * b->size[2], tol = 0.01; /* m */
    int support = -1;
    for (int i = 0; i < w->def.nbodies && support < 0; i++) {
        const tpBodyDef *s = &w->bodies[i];
        if (s->cls != TP_BODY_STATIC || s->marker)
            continue;
        if (s->shape == TP_SHAPE_PLANE) {
            double nn = sqrt(s->plane[0] * s->plane[0] + s->plane[1] * s->plane[1] + s->plane[2] * s->plane[2]);
            if (s->plane[0] == 0.0 && s->plane[1] == 0.0 && s->plane[2] > 0 && fabs(bottom - s->plane[3] / nn) <= tol)
                support = i;
        } else if (s->shape == TP_SHAPE_BOX && s->quat[1] == 0.0 && s->quat[2] == 0.0 && s->quat[3] == 0.0) {
            bool over =
                fabs(b->pos[0] - s->pos[0]) <= 0.5 * s->size[0] && fabs(b->pos[1] - s->pos[1]) <= 0.5 * s->size[1];
            if (over && fabs(bottom - (s->pos[2] + 0.5 * s->size[2])) <= tol)
                support = i;
        }
    }
    if (support >= 0)
        *force = tpWorld_PairSurface(w, body, support).friction * b->mass * gn;
    return support;
}

/* Pair table: the mixing rule, then the explicit tpContactDefs (later entries win). The bounce
 * threshold mixes by max, the conservative choice: a pair bounces only above both thresholds. */
static void build_surfaces(tpWorld *w)
{
    int n = w->def.nmaterials;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            const tpMaterialDef *a = &w->materials[i], *b = &w->materials[j];
            tpSurface *s = &w->surfaces[i * n + j];
            s->mu = sqrt(a->friction * b->friction);
            s->bounce = max_of(a->restitution, b->restitution);
            s->rho = max_of(a->rolling_friction, b->rolling_friction);
            s->bounce_vel = max_of(a->bounce_velocity, b->bounce_velocity);
        }
    }
    for (int c = 0; c < w->def.ncontacts; c++) {
        const tpContactDef *cd = &w->contacts[c];
        tpSurface s = {cd->friction, cd->restitution, cd->bounce_velocity, cd->rolling_friction};
        w->surfaces[cd->material_a * n + cd->material_b] = s;
        w->surfaces[cd->material_b * n + cd->material_a] = s;
    }
}

/* The broad phase (see tpSpaceKind). Hash levels span the smallest to the largest finite body
 * extent, so each geom lands in cells about its own size. */
static dSpaceID create_space(const tpSceneDef *def)
{
    switch (def->space) {
    case TP_SPACE_SIMPLE:
        return dSimpleSpaceCreate(0);
    case TP_SPACE_SAP:
        return dSweepAndPruneSpaceCreate(0, dSAP_AXES_XYZ);
    case TP_SPACE_HASH: {
        double lo = 1e300, hi = 0;
        for (int i = 0; i < def->nbodies; i++) {
            const tpBodyDef *b = &def->bodies[i];
            if (b->shape == TP_SHAPE_PLANE)
                continue;
            double e = b->shape == TP_SHAPE_BOX    ? fmax(b->size[0], fmax(b->size[1], b->size[2]))
                       : b->shape == TP_SHAPE_MESH ? tpMeshGeom_Extent(b)
                       : b->shape == TP_SHAPE_COMPOUND
                           ? tpCompound_Extent(b)
                           : 2.0 * b->size[0] + (b->shape == TP_SHAPE_SPHERE ? 0.0 : b->size[1]);
            lo = fmin(lo, e);
            hi = fmax(hi, e);
        }
        dSpaceID s = dHashSpaceCreate(0);
        if (hi > 0) {
            int minl = (int)floor(log2(lo)), maxl = (int)ceil(log2(hi));
            dHashSpaceSetLevels(s, minl, maxl > minl ? maxl : minl + 1);
        }
        return s;
    }
    case TP_SPACE_AUTO:
    default:
        return def->nbodies > 32 ? dHashSpaceCreate(0) : dSimpleSpaceCreate(0);
    }
}

/* The collision category and mask of every geom of body r. */
static void set_bits(const tpBodyRt *r, unsigned long category, unsigned long collide)
{
    for (int g = 0; g < r->ngeoms; g++) {
        dGeomSetCategoryBits(r->geoms[g], category);
        dGeomSetCollideBits(r->geoms[g], collide);
    }
}

static dGeomID create_geom(dSpaceID space, const tpBodyDef *b)
{
    switch (b->shape) {
    case TP_SHAPE_BOX:
        return dCreateBox(space, b->size[0], b->size[1], b->size[2]);
    case TP_SHAPE_SPHERE:
        return dCreateSphere(space, b->size[0]);
    case TP_SHAPE_CYLINDER:
        return dCreateCylinder(space, b->size[0], b->size[1]);
    case TP_SHAPE_CAPSULE:
        return dCreateCapsule(space, b->size[0], b->size[1]);
    case TP_SHAPE_PLANE:
        return dCreatePlane(space, b->plane[0], b->plane[1], b->plane[2], b->plane[3]);
    case TP_SHAPE_MESH:
    case TP_SHAPE_COMPOUND:
        break; /* tpMeshGeom_Create, tpCompound_CreateGeoms */
    }
    return NULL;
}

static void shape_mass(const tpBodyDef *b, double total, dMass *m)
{
    switch (b->shape) {
    case TP_SHAPE_BOX:
        dMassSetBoxTotal(m, total, b->size[0], b->size[1], b->size[2]);
        break;
    case TP_SHAPE_SPHERE:
        dMassSetSphereTotal(m, total, b->size[0]);
        break;
    case TP_SHAPE_CYLINDER:
        dMassSetCylinderTotal(m, total, 3, b->size[0], b->size[1]);
        break;
    case TP_SHAPE_CAPSULE:
        dMassSetCapsuleTotal(m, total, 3, b->size[0], b->size[1]);
        break;
    case TP_SHAPE_PLANE:
        dMassSetZero(m);
        break;
    case TP_SHAPE_MESH:
        tpMeshGeom_Mass(b, total, m);
        break;
    case TP_SHAPE_COMPOUND:
        tpCompound_Mass(b, total, m);
        break;
    }
}

static bool alloc_arrays(tpWorld *w)
{
    const tpSceneDef *d = &w->def;
    int nb = d->nbodies > 0 ? d->nbodies : 1;
    w->materials = calloc((size_t)d->nmaterials, sizeof *w->materials);
    w->contacts = calloc((size_t)(d->ncontacts > 0 ? d->ncontacts : 1), sizeof *w->contacts);
    w->bodies = calloc((size_t)nb, sizeof *w->bodies);
    w->rt = calloc((size_t)nb, sizeof *w->rt);
    w->surfaces = calloc((size_t)d->nmaterials * (size_t)d->nmaterials, sizeof *w->surfaces);
    w->state_body = calloc((size_t)nb, sizeof(int));
    w->control_body = calloc((size_t)nb, sizeof(int));
    w->kin_body = calloc((size_t)nb, sizeof(int));
    w->cgeoms = calloc(2 * (size_t)d->max_contacts, sizeof *w->cgeoms); /* two poses of one pair (contacts.c) */
    int nmotor = 0; /* driven motor axes: their targets follow the forces in an action */
    for (int j = 0; j < d->njoints; j++)
        for (int k = 0; k < 2; k++)
            nmotor += d->joints[j].axes[k].motor && d->joints[j].axes[k].driven;
    w->action = calloc((size_t)nb * 6 + (size_t)nmotor, sizeof(double));
    w->restored = malloc(sizeof(double) + (size_t)nb * sizeof(tpBodyState));
    w->fatal_error = calloc(TP_FATAL_ERROR_MAX, 1);
    w->fast = calloc((size_t)nb, sizeof *w->fast);
    w->sub0 = calloc((size_t)nb, sizeof *w->sub0);
    w->subc = calloc((size_t)nb, sizeof *w->subc);
    w->island = calloc(3 * (size_t)nb, sizeof *w->island);
    w->proj_start = calloc((size_t)nb, sizeof *w->proj_start);
    return w->fast && w->sub0 && w->subc && w->island && w->proj_start && w->restored && w->fatal_error &&
           w->materials && w->contacts && w->bodies && w->rt && w->surfaces && w->state_body && w->control_body &&
           w->kin_body && w->cgeoms && w->action;
}

tpWorld *tpCreateWorld(const tpSceneDef *def, char *err, size_t errlen)
{
    TP_ASSERT(def); /* Release: "scene: definition is NULL" */
    if (!check_scene(def, err, errlen))
        return NULL;

    tpWorld *w = calloc(1, sizeof *w);
    if (w == NULL) {
        tpErrorf(err, errlen, "scene: out of memory");
        return NULL;
    }
    w->def = *def;
    if (def->sleep_speed > 0.0) {
        double k = ceil(def->sleep_time / def->dt - 1e-9); /* 0.25 s at 1/60 s: 15 steps, not 16 */
        w->rest_steps = k < 1.0 ? 1 : k > 255.0 ? 255 : (int)k;
    }
    if (!alloc_arrays(w)) {
        tpDestroyWorld(w);
        tpErrorf(err, errlen, "scene: out of memory");
        return NULL;
    }
    memcpy(w->materials, def->materials, (size_t)def->nmaterials * sizeof *w->materials);
    if (def->ncontacts > 0)
        memcpy(w->contacts, def->contacts, (size_t)def->ncontacts * sizeof *w->contacts);
    if (def->nbodies > 0)
        memcpy(w->bodies, def->bodies, (size_t)def->nbodies * sizeof *w->bodies);
    w->def.materials = w->materials;
    w->def.contacts = w->contacts;
    w->def.bodies = w->bodies;
    if (!tpCompound_Copy(w, err, errlen)) {
        tpDestroyWorld(w);
        return NULL;
    }
    build_surfaces(w);

    ode_acquire();
    w->world = dWorldCreate();
    /* ODE's default stepping "threading" is one process-wide object without locks: a world
     * stepped while another thread steps another world aborts in it. Each world its own. */
    w->threading = dThreadingAllocateSelfThreadedImplementation();
    if (w->threading) {
        dWorldSetStepThreadingImplementation(w->world, dThreadingImplementationGetFunctions(w->threading),
                                             w->threading);
    }
    w->space = create_space(def);
    w->group = dJointGroupCreate(0);
    dWorldSetGravity(w->world, def->gravity[0], def->gravity[1], def->gravity[2]);
    dWorldSetERP(w->world, def->erp);
    dWorldSetCFM(w->world, def->cfm);
    /* Auto-disable keeps per-body idle counters that a state x cannot carry. */
    dWorldSetAutoDisableFlag(w->world, 0);
    dWorldSetQuickStepNumIterations(w->world, tpWorld_QuickIters(def));
    /* A thin allowed penetration keeps resting contacts from chattering in and out of touch.
     * The exact solver leaves resting bodies still, so 0.1 mm serves (a stack of ten sinks 1 mm
     * in all); the iterative one leaves residual velocities that a 1 mm layer absorbs (at 0.1 mm
     * two stacked boxes never come to rest). docs/physics.md has the figures. */
    dWorldSetContactSurfaceLayer(w->world, def->solver == TP_SOLVER_QUICKSTEP ? 0.001 : 0.0001);

    for (int i = 0; i < def->nbodies; i++) {
        tpBodyDef *b = &w->bodies[i];
        tpBodyRt *r = &w->rt[i];
        r->state_slot = -1;
        r->control_slot = -1;
        if (b->cls == TP_BODY_FOREIGN && b->motion.kind == TP_MOTION_FUNCTION) {
            /* its definition's pose is the function's at t = 0, for every reader of the def */
            tpBodyState s0;
            if (!tpWorld_CallMotion(w, i, 0.0, &s0)) {
                tpErrorf(err, errlen, "%s", w->fatal_error);
                tpDestroyWorld(w);
                return NULL;
            }
            memcpy(b->pos, s0.pos, sizeof b->pos);
            memcpy(b->quat, s0.quat, sizeof b->quat);
        }
        if (b->shape == TP_SHAPE_PLANE) {
            /* The plane pose is in plane[]; keep a well-formed quaternion for BodyState. */
            if (!all_finite(b->quat, 4) || (b->quat[0] == 0 && b->quat[1] == 0 && b->quat[2] == 0 && b->quat[3] == 0)) {
                b->quat[0] = 1.0;
                b->quat[1] = b->quat[2] = b->quat[3] = 0.0;
            }
        }
        tpQuat_Normalize(b->quat);

        if (b->shape == TP_SHAPE_COMPOUND) {
            if (!tpCompound_CreateGeoms(w, i, err, errlen)) { /* placed when static */
                tpDestroyWorld(w);
                return NULL;
            }
        } else {
            r->geom = b->shape == TP_SHAPE_MESH ? tpMeshGeom_Create(w->space, b, &r->mesh, err, errlen)
                                                : create_geom(w->space, b);
            if (r->geom == NULL) {
                tpDestroyWorld(w);
                return NULL;
            }
            dGeomSetData(r->geom, (void *)(intptr_t)i);
        }

        if (b->cls == TP_BODY_STATIC) {
            if (b->shape != TP_SHAPE_PLANE && b->shape != TP_SHAPE_COMPOUND) {
                dGeomSetPosition(r->geom, b->pos[0], b->pos[1], b->pos[2]);
                dGeomSetQuaternion(r->geom, b->quat);
            }
            /* a marker is in no collision category: the broad phase never pairs it */
            set_bits(r, b->marker ? 0 : TP_CAT_STATIC, b->marker ? 0 : TP_CAT_DYNAMIC);
            continue;
        }

        r->body = dBodyCreate(w->world);
        dMass m;
        shape_mass(b, b->mass > 0.0 ? b->mass : 1.0, &m);
        dBodySetMass(r->body, &m);
        for (int g = 0; g < r->ngeoms; g++)
            dGeomSetBody(r->geoms[g], r->body);
        if (b->shape == TP_SHAPE_COMPOUND)
            tpCompound_ResetOffsets(w, i); /* the parts' offsets in the body frame */
        dBodySetPosition(r->body, b->pos[0], b->pos[1], b->pos[2]);
        dBodySetQuaternion(r->body, b->quat);
        dBodySetLinearVel(r->body, b->vel[0], b->vel[1], b->vel[2]);
        dBodySetAngularVel(r->body, b->angvel[0], b->angvel[1], b->angvel[2]);
        dBodySetAutoDisableFlag(r->body, 0);
        r->radius = tpShape_Radius(b);
        r->thickness = tpShape_Thickness(b);
        r->mass = m.mass;

        if (is_dynamic(b)) {
            setup_inertia(r, &m);
            if (b->linear_damping > 0.0)
                dBodySetLinearDamping(r->body, b->linear_damping);
            if (b->angular_damping > 0.0)
                dBodySetAngularDamping(r->body, b->angular_damping);
            r->state_slot = w->nstate;
            w->state_body[w->nstate++] = i;
            if (b->cls != TP_BODY_PASSIVE) {
                r->control_slot = w->ncontrol;
                w->control_body[w->ncontrol++] = i;
            }
            set_bits(r, TP_CAT_DYNAMIC, TP_CAT_STATIC | TP_CAT_KINEMATIC | TP_CAT_DYNAMIC);
        } else {
            /* Kinematic: infinite mass, pose and velocity written from t before every step. The
             * velocity matters: contacts use it to push dynamic bodies. */
            dBodySetKinematic(r->body);
            r->kinematic = true;
            double n = norm3(b->motion.axis);
            for (int k = 0; k < 3; k++)
                r->axis[k] = n > 0.0 ? b->motion.axis[k] / n : (k == 2 ? 1.0 : 0.0);
            w->kin_body[w->nkinematic++] = i;
            set_bits(r, TP_CAT_KINEMATIC, TP_CAT_DYNAMIC);
        }
    }

    if (!tpWorld_GrowPairs(w, 4 * (def->nbodies > 0 ? def->nbodies : 1))) {
        tpDestroyWorld(w);
        tpErrorf(err, errlen, "scene: out of memory");
        return NULL;
    }
    /* Put kinematic bodies at their t = 0 pose so the live world starts consistent. */
    for (int k = 0; k < w->nkinematic; k++) {
        tpBodyState s;
        int i = w->kin_body[k];
        tpWorld_MotionAt(w, i, 0.0, &s);
        dBodySetPosition(w->rt[i].body, s.pos[0], s.pos[1], s.pos[2]);
        dBodySetQuaternion(w->rt[i].body, s.quat);
        dBodySetLinearVel(w->rt[i].body, s.vel[0], s.vel[1], s.vel[2]);
        dBodySetAngularVel(w->rt[i].body, s.angvel[0], s.angvel[1], s.angvel[2]);
    }
    /* joints last: ODE measures the bodies' relative poses when a joint is attached */
    if (!tpJoints_Create(w, err, errlen)) {
        tpDestroyWorld(w);
        return NULL;
    }
    w->time = 0.0;
    TP_VALIDATE(tpWorld_Valid, w);
    return w;
}

void tpDestroyWorld(tpWorld *w)
{
    if (w == NULL)
        return;
    if (w->world != NULL) {
        dJointGroupDestroy(w->group);
        dSpaceDestroy(w->space); /* destroys the geoms it holds (cleanup mode is on by default) */
        dWorldDestroy(w->world); /* destroys the bodies */
        for (int i = 0; w->rt && i < w->def.nbodies; i++)
            tpMeshGeom_Free(w->rt[i].mesh); /* after its geom */
        if (w->threading) {
            dThreadingFreeImplementation(w->threading);
        }
        ode_release();
    }
    free(w->materials);
    free(w->contacts);
    free(w->bodies);
    free(w->rt);
    free(w->surfaces);
    free(w->state_body);
    free(w->control_body);
    free(w->kin_body);
    free(w->cgeoms);
    free(w->action);
    free(w->pairs);
    free(w->infos);
    free(w->merge);
    free(w->restored);
    free(w->fatal_error);
    free(w->fast);
    free(w->sub0);
    free(w->subc);
    free(w->island);
    free(w->proj_start);
    free(w->pend);
    free(w->feedback);
    free(w->proj);
    free(w->touch);
    tpJoints_Free(w);
    tpCompound_Free(w); /* the parts' mesh data after their geoms (with the space) */
    free(w);
}

/* ------------------------------------------------------------------------------------------ */
/* Queries                                                                                     */

int tpWorld_BodyCount(const tpWorld *w)
{
    return w->def.nbodies;
}

const tpBodyDef *tpWorld_Body(const tpWorld *w, int i)
{
    TP_ASSERT(i >= 0 && i < w->def.nbodies); /* Release: NULL */
    return (i >= 0 && i < w->def.nbodies) ? &w->bodies[i] : NULL;
}

int tpWorld_FindBody(const tpWorld *w, const char *name)
{
    if (name == NULL)
        return -1;
    for (int i = 0; i < w->def.nbodies; i++)
        if (strcmp(w->bodies[i].name, name) == 0)
            return i;
    return -1;
}

const tpSceneDef *tpWorld_Def(const tpWorld *w)
{
    return &w->def;
}

int tpWorld_RestSteps(const tpWorld *w)
{
    return w->rest_steps;
}

int tpWorld_StateCount(const tpWorld *w)
{
    return w->nstate;
}

int tpWorld_StateSlot(const tpWorld *w, int body)
{
    return (body >= 0 && body < w->def.nbodies) ? w->rt[body].state_slot : -1;
}

int tpWorld_ControlCount(const tpWorld *w)
{
    return w->ncontrol;
}

bool tpWorld_BodyInertia(const tpWorld *w, int i, double inertia[9])
{
    memset(inertia, 0, 9 * sizeof *inertia);
    if (i < 0 || i >= w->def.nbodies || !w->rt[i].body) {
        return false;
    }
    dMass m;
    dBodyGetMass(w->rt[i].body, &m);
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
            inertia[3 * r + c] = m.I[4 * r + c]; /* ODE's dMatrix3 rows are padded to 4 */
        }
    }
    return true;
}

int tpWorld_ControlSlot(const tpWorld *w, int body)
{
    return (body >= 0 && body < w->def.nbodies) ? w->rt[body].control_slot : -1;
}

int tpWorld_ControlBody(const tpWorld *w, int slot)
{
    return (slot >= 0 && slot < w->ncontrol) ? w->control_body[slot] : -1;
}

int tpWorld_StateBody(const tpWorld *w, int slot)
{
    return (slot >= 0 && slot < w->nstate) ? w->state_body[slot] : -1;
}

void tpWorld_InitialState(const tpWorld *w, tpBodyState *x)
{
    for (int k = 0; k < w->nstate; k++) {
        const tpBodyDef *b = &w->bodies[w->state_body[k]];
        memcpy(x[k].pos, b->pos, sizeof x[k].pos);
        memcpy(x[k].quat, b->quat, sizeof x[k].quat);
        memcpy(x[k].vel, b->vel, sizeof x[k].vel);
        memcpy(x[k].angvel, b->angvel, sizeof x[k].angvel);
    }
}

bool tpWorld_GrowPairs(tpWorld *w, int cap)
{
    if (cap <= w->cap_pairs)
        return true;
    uint64_t *p = realloc(w->pairs, (size_t)cap * sizeof *p);
    if (p == NULL)
        return false;
    w->pairs = p;
    w->cap_pairs = cap;
    return true;
}

void tpWorld_ClampAction(const tpWorld *w, double *action)
{
    for (int k = 0; k < w->ncontrol; k++) {
        const tpBodyDef *b = &w->bodies[w->control_body[k]];
        double *f = action + 6 * k, *tau = f + 3;
        if (b->planar_force) {
            f[2] = 0.0;
            tau[0] = tau[1] = 0.0;
        }
        if (b->max_force > 0.0) {
            double n = norm3(f);
            if (n > b->max_force) {
                double s = b->max_force / n;
                for (int j = 0; j < 3; j++)
                    f[j] *= s;
            }
        }
        if (b->max_torque > 0.0) {
            double n = norm3(tau);
            if (n > b->max_torque) {
                double s = b->max_torque / n;
                for (int j = 0; j < 3; j++)
                    tau[j] *= s;
            }
        }
    }
    double *target = action + 6 * w->ncontrol;
    for (int m = 0; m < w->nmotor; m++) {
        const double lim = w->motor_max[m];
        if (target[m] > lim)
            target[m] = lim;
        else if (target[m] < -lim)
            target[m] = -lim;
    }
}
