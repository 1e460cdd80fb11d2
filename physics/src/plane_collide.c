/* tplan physics: the contacts of a sphere, a cylinder or a capsule against a plane, tplan's own
 * instead of ODE's (contacts.c calls them in place of dCollide; ODE's process-wide collider
 * table is left alone, so a host program that uses ODE itself gets ODE's own colliders).
 *
 * Why not ODE's: its plane colliders keep a feature only when it is at or below the plane
 * (depth >= 0). A box set on a ramp "exactly touching", as a script writes it, has its four
 * bottom corners at depths of a few 1e-17 m either side of zero, so ODE returns three of them
 * (or one): the box pivots on the missing corner in the first step and spins off sideways
 * (incline_spin: a tan 0.68 ramp; the sideways run of 1.1 m in 3 s was the friction direction's,
 * contacts.c, but the first step's wobble is this). A cylinder or a capsule lying on the floor
 * keeps one end of its line of contact the same way and rolls off course; a sphere exactly
 * touching gets no contact at all and drops g h^2. Boxes stay with ODE's collider (below). These keep every feature
 * within TP_PLANE_SLOP of the plane: a point slightly above it is a contact with a negative depth, which the contact
 * joint turns into "may close this gap within the substep, no more" (contacts.c, TP_CONTACT_GAP), so it never pulls and
 * never pushes early. Cylinders: ODE's own collider returns the deepest rim point alone as soon as a cylinder tilts by
 * a hair, and a cylinder pushed along the floor then rocks rim to rim (the maze robot sank 6 mm in five steps); this
 * one takes, for each cap, the lowest rim point and the points 90, 180 and 270 degrees from it.
 *
 * Every function is a function of the two geoms' poses only (purity). The normal follows ODE's
 * convention: it points from the second geom into the first (moving the first geom along it
 * separates the pair). */
#include "world_internal.h"

#include <math.h>
#include <string.h>

/* m: a feature this far above the plane is still a contact (with its gap as a negative depth). */
#define TP_PLANE_SLOP 1e-4

/* At most 8 candidate points for any shape (a cylinder's 2 x 4 rim points). */
typedef struct tpPlanePoints {
    double p[8][3];
    double depth[8];
    int n;
} tpPlanePoints;

/* Adds point p (depth below the plane: positive inside) when it is within the slop, keeping the
 * list deepest first (ties keep the order of generation, so the result is a function of the pose). */
static void add_point(tpPlanePoints *s, const double p[3], double depth)
{
    if (!(depth > -TP_PLANE_SLOP))
        return;
    int j = s->n++;
    while (j > 0 && s->depth[j - 1] < depth) {
        memcpy(s->p[j], s->p[j - 1], sizeof s->p[j]);
        s->depth[j] = s->depth[j - 1];
        j--;
    }
    memcpy(s->p[j], p, sizeof s->p[j]);
    s->depth[j] = depth;
}

static double plane_depth(const dVector4 pl, const double p[3])
{
    return pl[3] - (pl[0] * p[0] + pl[1] * p[1] + pl[2] * p[2]);
}

static int sphere_points(dGeomID g, const dVector4 pl, tpPlanePoints *s)
{
    const dReal r = dGeomSphereGetRadius(g);
    const dReal *c = dGeomGetPosition(g);
    const double p[3] = {c[0] - r * pl[0], c[1] - r * pl[1], c[2] - r * pl[2]};
    add_point(s, p, plane_depth(pl, p));
    return 1;
}

/* A capsule's two end spheres: a lying capsule gets both ends of its line of contact. */
static int capsule_points(dGeomID g, const dVector4 pl, tpPlanePoints *s)
{
    dReal r, len;
    dGeomCapsuleGetParams(g, &r, &len);
    const dReal *c = dGeomGetPosition(g), *R = dGeomGetRotation(g);
    for (int end = 0; end < 2; end++) {
        const double hz = end == 0 ? -0.5 * len : 0.5 * len;
        double p[3];
        for (int i = 0; i < 3; i++)
            p[i] = c[i] + hz * R[4 * i + 2] - r * pl[i];
        add_point(s, p, plane_depth(pl, p));
    }
    return 2;
}

/* For each cap, the lowest rim point and the rim points 90, 180 and 270 degrees from it: a
 * standing cylinder gets its whole base, a lying one both ends of its line of contact. */
static int cylinder_points(dGeomID g, const dVector4 pl, tpPlanePoints *s)
{
    dReal r, len;
    dGeomCylinderGetParams(g, &r, &len);
    const dReal *c = dGeomGetPosition(g), *R = dGeomGetRotation(g);
    const double ax[3] = {R[2], R[6], R[10]}, u0[3] = {R[0], R[4], R[8]};
    const double na = pl[0] * ax[0] + pl[1] * ax[1] + pl[2] * ax[2];
    /* the direction in the cap's plane toward the plane: -(n - (n.a) a), normalised */
    double dn[3] = {-(pl[0] - na * ax[0]), -(pl[1] - na * ax[1]), -(pl[2] - na * ax[2])};
    const double dl = sqrt(dn[0] * dn[0] + dn[1] * dn[1] + dn[2] * dn[2]);
    if (dl < 1e-12) { /* upright: any rim direction will do */
        memcpy(dn, u0, sizeof dn);
    } else {
        for (int k = 0; k < 3; k++)
            dn[k] /= dl;
    }
    const double dm[3] = {ax[1] * dn[2] - ax[2] * dn[1], ax[2] * dn[0] - ax[0] * dn[2], ax[0] * dn[1] - ax[1] * dn[0]};
    for (int cap = 0; cap < 2; cap++) {
        const double hz = cap == 0 ? -0.5 * len : 0.5 * len;
        for (int q = 0; q < 4; q++) {
            const double cs = q == 0 ? 1.0 : q == 2 ? -1.0 : 0.0, sn = q == 1 ? 1.0 : q == 3 ? -1.0 : 0.0;
            double p[3];
            for (int k = 0; k < 3; k++)
                p[k] = c[k] + hz * ax[k] + r * (cs * dn[k] + sn * dm[k]);
            add_point(s, p, plane_depth(pl, p));
        }
    }
    return 8;
}

int tpPlane_Collide(dGeomID shape, dGeomID plane, bool plane_first, int max, dContactGeom *out)
{
    dVector4 pl;
    dGeomPlaneGetParams(plane, pl); /* a x + b y + c z = d, (a, b, c) unit, pointing out of it */
    tpPlanePoints s;
    s.n = 0;
    int keep;
    switch (dGeomGetClass(shape)) {
    case dBoxClass:
        /* ODE's own: it keeps the corners at depth >= 0, so a box set exactly touching gets 3 of
         * its 4 bottom corners (the fourth rounds to -1e-17 m) and wobbles in its first steps, as
         * in plain ODE (incline: up to 1 rad/s, then it slides straight at the exact acceleration).
         * A collider of the kind above with all 4 was tried: the physics figures were exact, but
         * minigolf's robot (a box set exactly touching the green) then solved BK-RRT on 94 % of
         * 80 seeds instead of 100 %, with the robot sunk into full contact on both colliders worse
         * still: the kick's tuning leans on the 3-corner start; the notes. */
        return -1;
    case dSphereClass:
        keep = sphere_points(shape, pl, &s);
        break;
    case dCapsuleClass:
        keep = capsule_points(shape, pl, &s);
        break;
    case dCylinderClass:
        keep = cylinder_points(shape, pl, &s);
        break;
    default:
        return -1; /* not one of ours: ODE's collider */
    }
    int n = s.n < keep ? s.n : keep;
    if (n > max)
        n = max;
    const double sign = plane_first ? -1.0 : 1.0;
    for (int i = 0; i < n; i++) {
        dContactGeom *g = &out[i];
        memset(g, 0, sizeof *g);
        memcpy(g->pos, s.p[i], 3 * sizeof(double));
        for (int k = 0; k < 3; k++)
            g->normal[k] = sign * pl[k];
        g->depth = s.depth[i];
        g->g1 = plane_first ? plane : shape;
        g->g2 = plane_first ? shape : plane;
        g->side1 = g->side2 = -1;
    }
    return n;
}
