/* tplan physics: compound bodies -- one rigid body of several parts (boxes, spheres, cylinders,
 * capsules, convex meshes) placed in the body's frame. Each part is an ODE geom on the one ODE
 * body, placed by a geom offset; the body's frame is its centre of mass (ODE requires it), so the
 * parts' offsets are relative to that centre. The parts of one body never meet: ODE's spaces skip
 * pairs of geoms on the same body, and tplan's broad-phase callback skips a body paired with
 * itself. Mass properties are the parts' closed forms combined with the parallel-axis theorem. */
#include "mesh_geom_internal.h"

#include "tp/base.h"
#include "tp/mathx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tpPartDef tpDefaultPartDef(void)
{
    tpPartDef p;
    memset(&p, 0, sizeof p);
    p.shape = TP_SHAPE_BOX;
    p.size[0] = p.size[1] = p.size[2] = 1.0;
    p.quat[0] = 1.0;
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* Mass properties                                                                             */

/* A part's volume (m^3), its centre of mass in its own frame (m) and its inertia per unit mass
 * about that centre in its own axes (m^2, row-major): the closed forms (a capsule as ODE's
 * dMassSetCapsule: a cylinder and two hemispheres), a mesh by volume integration. */
static void part_unit(const tpPartDef *p, double *vol, double c[3], double J[9])
{
    memset(J, 0, 9 * sizeof *J);
    c[0] = c[1] = c[2] = 0.0;
    const double r = p->size[0], l = p->size[1];
    switch (p->shape) {
    case TP_SHAPE_BOX: {
        const double x = p->size[0] * p->size[0], y = p->size[1] * p->size[1], z = p->size[2] * p->size[2];
        *vol = p->size[0] * p->size[1] * p->size[2];
        J[0] = (y + z) / 12.0;
        J[4] = (x + z) / 12.0;
        J[8] = (x + y) / 12.0;
        return;
    }
    case TP_SHAPE_SPHERE:
        *vol = 4.0 / 3.0 * TP_PI * r * r * r;
        J[0] = J[4] = J[8] = 0.4 * r * r;
        return;
    case TP_SHAPE_CYLINDER:
        *vol = TP_PI * r * r * l;
        J[0] = J[4] = (3.0 * r * r + l * l) / 12.0;
        J[8] = 0.5 * r * r;
        return;
    case TP_SHAPE_CAPSULE: {
        const double vc = TP_PI * r * r * l, vs = 4.0 / 3.0 * TP_PI * r * r * r;
        *vol = vc + vs;
        const double fc = vc / *vol, fs = vs / *vol; /* mass fractions of the cylinder and the caps */
        J[0] = J[4] = fc * (0.25 * r * r + l * l / 12.0) + fs * (0.4 * r * r + 0.375 * r * l + 0.25 * l * l);
        J[8] = (0.5 * fc + 0.4 * fs) * r * r;
        return;
    }
    case TP_SHAPE_MESH: {
        double I[9];
        tpMesh_MassProperties(&p->mesh, vol, c, I);
        for (int k = 0; k < 9; k++)
            J[k] = *vol > 0.0 ? I[k] / *vol : 0.0;
        return;
    }
    case TP_SHAPE_PLANE:
    case TP_SHAPE_COMPOUND:
        break;
    }
    *vol = 0.0;
}

double tpPart_Volume(const tpPartDef *p)
{
    double vol, c[3], J[9];
    part_unit(p, &vol, c, J);
    return vol;
}

/* q normalised into out (the identity for a zero quaternion: checked elsewhere). */
static void unit_quat(const double q[4], double out[4])
{
    memcpy(out, q, 4 * sizeof *out);
    if (tpQuat_Norm(out) > 0.0)
        tpQuat_Normalize(out);
    else
        out[0] = 1.0, out[1] = out[2] = out[3] = 0.0;
}

/* The masses of the parts (kg) from the body's total: given ones as given, the others their
 * volume's share of the rest. */
static bool part_masses(const tpBodyDef *b, double *mass, const double *vol, char *err, size_t errlen)
{
    double given = 0.0, vfree = 0.0;
    int nfree = 0, last_given = -1;
    for (int k = 0; k < b->nparts; k++) {
        if (b->parts[k].mass > 0.0) {
            given += b->parts[k].mass;
            last_given = k;
        } else {
            vfree += vol[k];
            nfree++;
        }
    }
    if (nfree == 0) {
        if (fabs(given - b->mass) > 1e-9 * b->mass) {
            tpErrorf(err, errlen,
                     "body \"%s\": parts[%d].mass: the parts' masses add up to %.17g kg, not the body's %.17g", b->name,
                     last_given + 1, given, b->mass);
            return false;
        }
    } else if (!(given < b->mass) || !(vfree > 0.0)) {
        tpErrorf(err, errlen,
                 "body \"%s\": parts[%d].mass: the parts' given masses (%g kg) leave nothing of the body's %g kg for "
                 "the parts without one",
                 b->name, last_given + 1, given, b->mass);
        return false;
    }
    const double rest = b->mass - given;
    for (int k = 0; k < b->nparts; k++)
        mass[k] = b->parts[k].mass > 0.0 ? b->parts[k].mass : rest * (vol[k] / vfree);
    return true;
}

bool tpCompound_MassProperties(const tpBodyDef *b, double *part_mass, double com[3], double inertia[9], char *err,
                               size_t errlen)
{
    TP_ASSERT(b && b->shape == TP_SHAPE_COMPOUND && b->nparts >= 1 && b->nparts <= TP_MAX_PARTS);
    double vol[TP_MAX_PARTS], m[TP_MAX_PARTS], c[TP_MAX_PARTS][3], J[TP_MAX_PARTS][9], R[TP_MAX_PARTS][9];
    const int n = b->nparts < TP_MAX_PARTS ? b->nparts : TP_MAX_PARTS;
    for (int k = 0; k < n; k++) {
        double lc[3], q[4];
        part_unit(&b->parts[k], &vol[k], lc, J[k]);
        unit_quat(b->parts[k].quat, q);
        tpQuat_ToMatrix(q, R[k]);
        for (int i = 0; i < 3; i++) /* the part's centre of mass in the body frame */
            c[k][i] = b->parts[k].pos[i] + R[k][3 * i] * lc[0] + R[k][3 * i + 1] * lc[1] + R[k][3 * i + 2] * lc[2];
    }
    if (!part_masses(b, m, vol, err, errlen))
        return false;
    double total = 0.0, mc[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < n; k++) {
        total += m[k];
        for (int i = 0; i < 3; i++)
            mc[i] += m[k] * c[k][i];
    }
    for (int i = 0; i < 3; i++)
        com[i] = mc[i] / total;
    memset(inertia, 0, 9 * sizeof *inertia);
    for (int k = 0; k < n; k++) {
        const double d[3] = {c[k][0] - com[0], c[k][1] - com[1], c[k][2] - com[2]};
        const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                double rot = 0.0; /* (R J R^T)_ij */
                for (int a = 0; a < 3; a++)
                    for (int e = 0; e < 3; e++)
                        rot += R[k][3 * i + a] * J[k][3 * a + e] * R[k][3 * j + e];
                inertia[3 * i + j] += m[k] * (rot + (i == j ? dd : 0.0) - d[i] * d[j]);
            }
        }
        if (part_mass)
            part_mass[k] = m[k];
    }
    for (int i = 0; i < 3; i++) /* exactly symmetric: ODE's mass check wants it */
        for (int j = 0; j < i; j++)
            inertia[3 * i + j] = inertia[3 * j + i];
    return true;
}

bool tpCompound_Centre(tpBodyDef *b, tpPartDef *parts, char *err, size_t errlen)
{
    TP_ASSERT(b && parts == b->parts);
    double com[3], I[9], q[4], R[9];
    if (!tpCompound_MassProperties(b, NULL, com, I, err, errlen))
        return false;
    for (int k = 0; k < b->nparts; k++)
        for (int i = 0; i < 3; i++)
            parts[k].pos[i] -= com[i];
    unit_quat(b->quat, q);
    tpQuat_ToMatrix(q, R);
    for (int i = 0; i < 3; i++) {
        b->pos[i] += R[3 * i] * com[0] + R[3 * i + 1] * com[1] + R[3 * i + 2] * com[2];
        b->mesh_origin[i] -= com[i];
    }
    return true;
}

void tpCompound_Mass(const tpBodyDef *b, double total, dMass *m)
{
    tpBodyDef t = *b;
    t.mass = total;
    double com[3], I[9];
    if (!tpCompound_MassProperties(&t, NULL, com, I, NULL, 0)) { /* a kinematic body's unused mass */
        dMassSetSphereTotal(m, total, 1.0);
        return;
    }
    dMassSetParameters(m, total, 0, 0, 0, I[0], I[4], I[8], I[1], I[2], I[5]);
}

/* ------------------------------------------------------------------------------------------ */
/* Checks                                                                                      */

static bool finite_n(const double *v, int n)
{
    for (int k = 0; k < n; k++)
        if (!isfinite(v[k]))
            return false;
    return true;
}

static bool is_dynamic_body(const tpBodyDef *b)
{
    return b->cls == TP_BODY_PASSIVE || b->cls == TP_BODY_ACTIVE ||
           (b->cls == TP_BODY_FOREIGN && b->motion.kind == TP_MOTION_TACTIC);
}

static bool check_part(const tpBodyDef *b, int k, const char *who, char *err, size_t errlen)
{
    const tpPartDef *p = &b->parts[k];
    const int n = k + 1; /* 1-based, as a script counts its parts */
    if (p->shape == TP_SHAPE_PLANE || p->shape == TP_SHAPE_COMPOUND || (int)p->shape < TP_SHAPE_BOX ||
        (int)p->shape > TP_SHAPE_COMPOUND) {
        tpErrorf(err, errlen, "%s: parts[%d].shape must be box, sphere, cylinder, capsule or mesh (got %s)", who, n,
                 p->shape == TP_SHAPE_PLANE      ? "plane"
                 : p->shape == TP_SHAPE_COMPOUND ? "compound"
                                                 : "?");
        return false;
    }
    static const char *const field[3] = {"size[0]", "size[1]", "size[2]"};
    const int nsize = p->shape == TP_SHAPE_BOX      ? 3
                      : p->shape == TP_SHAPE_SPHERE ? 1
                      : p->shape == TP_SHAPE_MESH   ? 0
                                                    : 2;
    for (int a = 0; a < nsize; a++) {
        if (!(p->size[a] >= TP_MIN_SIZE && p->size[a] <= TP_MAX_SIZE)) {
            tpErrorf(err, errlen, "%s: parts[%d].%s = %g must be in [%g, %g] m", who, n, field[a], p->size[a],
                     TP_MIN_SIZE, TP_MAX_SIZE);
            return false;
        }
    }
    if (!finite_n(p->pos, 3) || fabs(p->pos[0]) > TP_MAX_SIZE || fabs(p->pos[1]) > TP_MAX_SIZE ||
        fabs(p->pos[2]) > TP_MAX_SIZE) {
        tpErrorf(err, errlen, "%s: parts[%d].pos must be finite and within +-%g m", who, n, TP_MAX_SIZE);
        return false;
    }
    if (!finite_n(p->quat, 4) || !(tpQuat_Norm(p->quat) > 0.0)) {
        tpErrorf(err, errlen, "%s: parts[%d].quat must be finite and non-zero", who, n);
        return false;
    }
    if (!(p->mass >= 0.0) || p->mass > TP_MAX_MASS) {
        tpErrorf(err, errlen, "%s: parts[%d].mass must be in [0, %g] kg (0: its volume's share; got %g)", who, n,
                 TP_MAX_MASS, p->mass);
        return false;
    }
    if (p->shape == TP_SHAPE_MESH) {
        char label[TP_NAME_MAX + 48];
        snprintf(label, sizeof label, "%s: parts[%d]", who, n);
        tpBodyDef t = *b; /* the soup checks of a static mesh body, then closed if it moves */
        t.cls = TP_BODY_STATIC;
        t.shape = TP_SHAPE_MESH;
        t.mesh = p->mesh;
        if (!tpMeshGeom_Check(&t, label, err, errlen))
            return false;
        char why[200];
        if (b->cls != TP_BODY_STATIC && !tpMesh_CheckClosed(&p->mesh, why, sizeof why)) {
            tpErrorf(err, errlen, "%s.mesh: a moving body's mesh part must be closed: %s", label, why);
            return false;
        }
    }
    return true;
}

bool tpCompound_Check(const tpBodyDef *b, const char *who, char *err, size_t errlen)
{
    if (b->parts == NULL || b->nparts < 1 || b->nparts > TP_MAX_PARTS) {
        tpErrorf(err, errlen, "%s: parts must have 1 to %d parts (got %d)", who, TP_MAX_PARTS,
                 b->parts == NULL ? 0 : b->nparts);
        return false;
    }
    for (int k = 0; k < b->nparts; k++)
        if (!check_part(b, k, who, err, errlen))
            return false;
    if (!is_dynamic_body(b))
        return true;
    if (!(b->mass >= TP_MIN_MASS && b->mass <= TP_MAX_MASS))
        return true; /* the body check names the mass */
    double com[3], I[9];
    if (!tpCompound_MassProperties(b, NULL, com, I, err, errlen))
        return false;
    const double ext = tpCompound_Extent(b);
    if (sqrt(com[0] * com[0] + com[1] * com[1] + com[2] * com[2]) > 1e-6 * ext) {
        tpErrorf(err, errlen,
                 "%s: the parts' centre of mass (%g, %g, %g) is not the body's origin (tpCompound_Centre moves it "
                 "there)",
                 who, com[0], com[1], com[2]);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Sizes                                                                                       */

/* The body definition of part p alone (its shape, size and mesh), for the shape functions. */
static tpBodyDef part_body(const tpBodyDef *b, const tpPartDef *p)
{
    tpBodyDef t = *b;
    t.shape = p->shape;
    memcpy(t.size, p->size, sizeof t.size);
    t.mesh = p->mesh;
    t.parts = NULL;
    t.nparts = 0;
    return t;
}

/* Sizes of every shape (world.c's too: here so that this file calls no file that calls it). */

/* Bounding radius (m) of a shape about its centre: how far a point of it can be from the centre
 * of mass, which bounds the sweep of a spinning body. */
double tpShape_Radius(const tpBodyDef *b)
{
    switch (b->shape) {
    case TP_SHAPE_BOX:
        return 0.5 * sqrt(b->size[0] * b->size[0] + b->size[1] * b->size[1] + b->size[2] * b->size[2]);
    case TP_SHAPE_SPHERE:
        return b->size[0];
    case TP_SHAPE_CYLINDER:
        return sqrt(b->size[0] * b->size[0] + 0.25 * b->size[1] * b->size[1]);
    case TP_SHAPE_CAPSULE:
        return b->size[0] + 0.5 * b->size[1];
    case TP_SHAPE_MESH:
        return tpMeshGeom_Radius(b);
    case TP_SHAPE_COMPOUND:
        return tpCompound_Radius(b);
    case TP_SHAPE_PLANE:
        break;
    }
    return 0.0;
}

/* The smallest half extent of a shape (m): a body that moves further than this in one substep
 * can pass through a body of its own size between two collision tests. */
double tpShape_Thickness(const tpBodyDef *b)
{
    switch (b->shape) {
    case TP_SHAPE_BOX: {
        double m = b->size[0] < b->size[1] ? b->size[0] : b->size[1];
        return 0.5 * (m < b->size[2] ? m : b->size[2]);
    }
    case TP_SHAPE_SPHERE:
    case TP_SHAPE_CAPSULE:
        return b->size[0];
    case TP_SHAPE_CYLINDER:
        return b->size[0] < 0.5 * b->size[1] ? b->size[0] : 0.5 * b->size[1];
    case TP_SHAPE_MESH:
        return tpMeshGeom_Thickness(b);
    case TP_SHAPE_COMPOUND:
        return tpCompound_Thickness(b);
    case TP_SHAPE_PLANE:
        break;
    }
    return 0.0;
}

double tpCompound_Radius(const tpBodyDef *b)
{
    double r = 0.0;
    for (int k = 0; k < b->nparts; k++) {
        const tpPartDef *p = &b->parts[k];
        const tpBodyDef t = part_body(b, p);
        const double d = sqrt(p->pos[0] * p->pos[0] + p->pos[1] * p->pos[1] + p->pos[2] * p->pos[2]);
        r = fmax(r, d + tpShape_Radius(&t));
    }
    return r;
}

double tpCompound_Thickness(const tpBodyDef *b)
{
    double th = INFINITY;
    for (int k = 0; k < b->nparts; k++) {
        const tpBodyDef t = part_body(b, &b->parts[k]);
        th = fmin(th, tpShape_Thickness(&t));
    }
    return isfinite(th) ? th : 0.0;
}

void tpCompound_Bounds(const tpBodyDef *b, double lo[3], double hi[3])
{
    for (int i = 0; i < 3; i++)
        lo[i] = b->nparts > 0 ? INFINITY : 0.0, hi[i] = b->nparts > 0 ? -INFINITY : 0.0;
    for (int k = 0; k < b->nparts; k++) {
        const tpPartDef *p = &b->parts[k];
        double plo[3], phi[3], q[4], R[9];
        const double r = p->size[0], hl = 0.5 * p->size[1];
        switch (p->shape) {
        case TP_SHAPE_MESH:
            tpMesh_Bounds(&p->mesh, plo, phi);
            break;
        case TP_SHAPE_BOX:
            for (int i = 0; i < 3; i++)
                phi[i] = 0.5 * p->size[i], plo[i] = -phi[i];
            break;
        default: /* sphere; cylinder and capsule along z */
            phi[0] = phi[1] = r;
            phi[2] = p->shape == TP_SHAPE_SPHERE ? r : p->shape == TP_SHAPE_CAPSULE ? hl + r : hl;
            for (int i = 0; i < 3; i++)
                plo[i] = -phi[i];
            break;
        }
        unit_quat(p->quat, q);
        tpQuat_ToMatrix(q, R);
        for (int c = 0; c < 8; c++) {
            const double v[3] = {c & 1 ? phi[0] : plo[0], c & 2 ? phi[1] : plo[1], c & 4 ? phi[2] : plo[2]};
            for (int i = 0; i < 3; i++) {
                const double x = p->pos[i] + R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
                lo[i] = fmin(lo[i], x);
                hi[i] = fmax(hi[i], x);
            }
        }
    }
}

double tpCompound_Extent(const tpBodyDef *b)
{
    return 2.0 * tpCompound_Radius(b);
}

/* ------------------------------------------------------------------------------------------ */
/* Geoms                                                                                       */

bool tpCompound_Copy(tpWorld *w, char *err, size_t errlen)
{
    int total = 0;
    w->max_geoms = 1;
    for (int i = 0; i < w->def.nbodies; i++) {
        const tpBodyDef *b = &w->bodies[i];
        if (b->shape == TP_SHAPE_COMPOUND) {
            total += b->nparts;
            w->max_geoms = b->nparts > w->max_geoms ? b->nparts : w->max_geoms;
        }
    }
    if (total > 0) {
        w->parts = calloc((size_t)total, sizeof *w->parts);
        w->part_geom = calloc((size_t)total, sizeof *w->part_geom);
        w->part_mesh = calloc((size_t)total, sizeof *w->part_mesh);
        /* one dCollide per pair of parts, each with room for max_contacts, at two poses (contacts.c) */
        const size_t ncg = 2 * (size_t)w->def.max_contacts * (size_t)w->max_geoms * (size_t)w->max_geoms;
        dContactGeom *cg = realloc(w->cgeoms, ncg * sizeof *cg);
        if (cg)
            w->cgeoms = cg;
        if (!w->parts || !w->part_geom || !w->part_mesh || !cg) {
            tpErrorf(err, errlen, "scene: out of memory for the compound bodies' parts");
            return false;
        }
    }
    for (int i = 0; i < w->def.nbodies; i++) {
        tpBodyDef *b = &w->bodies[i];
        tpBodyRt *r = &w->rt[i];
        r->part0 = -1;
        r->ngeoms = 1;
        r->geoms = &r->geom;
        r->meshes = &r->mesh;
        if (b->shape != TP_SHAPE_COMPOUND)
            continue;
        r->part0 = w->nparts;
        r->ngeoms = b->nparts;
        r->geoms = w->part_geom + w->nparts;
        r->meshes = w->part_mesh + w->nparts;
        memcpy(w->parts + w->nparts, b->parts, (size_t)b->nparts * sizeof *w->parts);
        b->parts = w->parts + w->nparts;
        for (int k = 0; k < b->nparts; k++)
            unit_quat(w->parts[w->nparts + k].quat, w->parts[w->nparts + k].quat);
        w->nparts += b->nparts;
        double lo[3], hi[3]; /* size: the box about the origin that holds the parts (for skills) */
        tpCompound_Bounds(b, lo, hi);
        for (int a = 0; a < 3; a++)
            b->size[a] = 2.0 * fmax(fabs(lo[a]), fabs(hi[a]));
    }
    return true;
}

/* pw = p + R(q) v, qw = q * qv: the world pose of a frame (v, qv) given in the frame (p, q). */
static void compose(const double p[3], const double q[4], const double v[3], const double qv[4], double pw[3],
                    double qw[4])
{
    double R[9];
    tpQuat_ToMatrix(q, R);
    for (int i = 0; i < 3; i++)
        pw[i] = p[i] + R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
    qw[0] = q[0] * qv[0] - q[1] * qv[1] - q[2] * qv[2] - q[3] * qv[3];
    qw[1] = q[0] * qv[1] + q[1] * qv[0] + q[2] * qv[3] - q[3] * qv[2];
    qw[2] = q[0] * qv[2] - q[1] * qv[3] + q[2] * qv[0] + q[3] * qv[1];
    qw[3] = q[0] * qv[3] + q[1] * qv[2] - q[2] * qv[1] + q[3] * qv[0];
}

bool tpCompound_CreateGeoms(tpWorld *w, int i, char *err, size_t errlen)
{
    tpBodyDef *b = &w->bodies[i];
    tpBodyRt *r = &w->rt[i];
    for (int k = 0; k < b->nparts; k++) {
        tpPartDef *p = &w->parts[r->part0 + k];
        dGeomID g = NULL;
        switch (p->shape) {
        case TP_SHAPE_BOX:
            g = dCreateBox(w->space, p->size[0], p->size[1], p->size[2]);
            break;
        case TP_SHAPE_SPHERE:
            g = dCreateSphere(w->space, p->size[0]);
            break;
        case TP_SHAPE_CYLINDER:
            g = dCreateCylinder(w->space, p->size[0], p->size[1]);
            break;
        case TP_SHAPE_CAPSULE:
            g = dCreateCapsule(w->space, p->size[0], p->size[1]);
            break;
        case TP_SHAPE_MESH: {
            tpBodyDef t = part_body(b, p);
            g = tpMeshGeom_Create(w->space, &t, &r->meshes[k], err, errlen);
            p->mesh = t.mesh; /* the world's copy */
            break;
        }
        default:
            break;
        }
        if (g == NULL) {
            if (err && err[0] == '\0')
                tpErrorf(err, errlen, "body '%s': parts[%d]: cannot create its geom", b->name, k + 1);
            return false;
        }
        r->geoms[k] = g;
        dGeomSetData(g, (void *)(intptr_t)i);
        if (b->cls == TP_BODY_STATIC) {
            double pw[3], qw[4];
            compose(b->pos, b->quat, p->pos, p->quat, pw, qw);
            dGeomSetPosition(g, pw[0], pw[1], pw[2]);
            dGeomSetQuaternion(g, qw);
        }
    }
    r->geom = r->geoms[0];
    return true;
}

void tpCompound_PoseGeoms(tpWorld *w, int i, const double p[3], const double q[4])
{
    const tpBodyRt *r = &w->rt[i];
    for (int k = 0; k < r->ngeoms; k++) {
        const tpPartDef *part = &w->parts[r->part0 + k];
        double pw[3], qw[4];
        compose(p, q, part->pos, part->quat, pw, qw);
        dGeomSetOffsetWorldQuaternion(r->geoms[k], qw);
        dGeomSetOffsetWorldPosition(r->geoms[k], pw[0], pw[1], pw[2]);
    }
}

void tpCompound_ResetOffsets(tpWorld *w, int i)
{
    const tpBodyRt *r = &w->rt[i];
    for (int k = 0; k < r->ngeoms; k++) {
        const tpPartDef *part = &w->parts[r->part0 + k];
        dGeomSetOffsetPosition(r->geoms[k], part->pos[0], part->pos[1], part->pos[2]);
        dGeomSetOffsetQuaternion(r->geoms[k], part->quat);
    }
}

void tpCompound_Free(tpWorld *w)
{
    for (int k = 0; k < w->nparts; k++)
        tpMeshGeom_Free(w->part_mesh ? w->part_mesh[k] : NULL);
    free(w->parts);
    free(w->part_geom);
    free(w->part_mesh);
}
