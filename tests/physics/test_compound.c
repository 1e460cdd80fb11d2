/* Compound bodies (docs/physics.md "Compound bodies"): named scenes through the
 * public API, each with both solvers:
 *
 *   compoundMass    mass, centre of mass and inertia of a dumbbell (two spheres and a cylinder), a
 *                   table (a top and four legs), turned parts and a mesh part against the closed
 *                   form computed here, to 1e-12 relative; tpCompound_Centre moves the frame
 *   compoundTable   a table dropped 2 cm onto the floor rests on its four legs: no part sinks more
 *                   than 5 mm, every leg's foot is on the floor, the top stays level
 *   compoundBowl    a moving bowl of five boxes holds a ball dropped into it on its base (its hull
 *                   would hold it on top)
 *   compoundStatic  a static shelf holds a box on its top board, a scripted compound's paddles push
 *                   a ball: parts of static and kinematic bodies collide at their places
 *   compoundSpin    an L of two boxes spun free without gravity keeps its energy within 1 % and its
 *                   |L| within 0.1 % over 10 s, the standard of a single box (printed beside it)
 *   compoundPurity  a chain of Sim calls with compounds (one thrown fast: the swept pass poses
 *                   every part) is bit-identical with unrelated steps and restores in between
 *   compoundErrors  bad parts get an error naming parts[k] and the field
 *
 *   test_compound [--sleep] [<case>]    e.g. compoundTable_step; ctest: conformance_compound..._<solver>
 *
 * Every figure is printed; no check asserts a timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/base.h"
#include "tp/mathx.h"
#include "tp/physics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"

#include <ode/ode.h>

#include "plain_ode.h"

typedef struct CScene {
    Scene s;
    tpPartDef parts[4][8]; /* up to 4 compounds of 8 parts */
    int ncomp;
} CScene;

static tpPartDef *part(tpPartDef *p, tpShapeKind shape, double a, double b, double c, double x, double y, double z)
{
    *p = tpDefaultPartDef();
    p->shape = shape;
    p->size[0] = a, p->size[1] = b, p->size[2] = c;
    p->pos[0] = x, p->pos[1] = y, p->pos[2] = z;
    return p;
}

/* A compound body from n parts (copied into the scene), its frame moved to its centre of mass when
 * it is dynamic. */
static tpBodyDef *addCompound(CScene *cs, const char *name, const tpPartDef *parts, int n, double mass, double x,
                              double y, double z)
{
    assert_true(cs->ncomp < 4 && n <= 8);
    tpPartDef *mine = cs->parts[cs->ncomp++];
    memcpy(mine, parts, (size_t)n * sizeof *mine);
    tpBodyDef *b = sceneAdd(&cs->s, name, TP_BODY_PASSIVE, TP_SHAPE_COMPOUND);
    b->parts = mine;
    b->nparts = n;
    b->mass = mass;
    b->pos[0] = x, b->pos[1] = y, b->pos[2] = z;
    char err[256] = "";
    if (!tpCompound_Centre(b, mine, err, sizeof err))
        fail_msg("tpCompound_Centre: %s", err);
    return b;
}

static double relErr(const double *a, const double *b, int n)
{
    double num = 0.0, den = 0.0;
    for (int k = 0; k < n; k++) {
        num = fmax(num, fabs(a[k] - b[k]));
        den = fmax(den, fabs(b[k]));
    }
    return den > 0.0 ? num / den : num;
}

/* The 4 legs and the top of a table: top 0.6 x 0.4 x 0.04 m with its underside at 0.36 m, legs
 * cylinders r 2.5 cm, 0.36 m long at (+-0.26, +-0.16); in the artist's frame (origin on the floor). */
#define TOP_X 0.6
#define TOP_Y 0.4
#define TOP_Z 0.04
#define LEG_R 0.025
#define LEG_L 0.36
#define LEG_X 0.26
#define LEG_Y 0.16
static int tableParts(tpPartDef *p)
{
    part(&p[0], TP_SHAPE_BOX, TOP_X, TOP_Y, TOP_Z, 0, 0, LEG_L + 0.5 * TOP_Z);
    for (int k = 0; k < 4; k++)
        part(&p[1 + k], TP_SHAPE_CYLINDER, LEG_R, LEG_L, 0, k & 1 ? -LEG_X : LEG_X, k & 2 ? -LEG_Y : LEG_Y,
             0.5 * LEG_L);
    return 5;
}

/* ------------------------------------------------------------------------------------------ */
/* Mass properties                                                                             */

static void compoundMass(tpSolverKind solver, Checks *c)
{
    /* 1. a dumbbell along x: spheres r 0.05 at +-0.2, a bar (cylinder r 0.01, length 0.3) turned to x;
       density shares: masses by volume */
    CScene cs;
    memset(&cs, 0, sizeof cs);
    sceneInit(&cs.s, solver);
    tpPartDef db[3];
    const double rs = 0.05, d = 0.2, rb = 0.01, lb = 0.3, M = 2.0;
    part(&db[0], TP_SHAPE_SPHERE, rs, 0, 0, -d, 0, 0);
    part(&db[1], TP_SHAPE_SPHERE, rs, 0, 0, d, 0, 0);
    part(&db[2], TP_SHAPE_CYLINDER, rb, lb, 0, 0, 0, 0);
    db[2].quat[0] = cos(PI / 4), db[2].quat[2] = sin(PI / 4); /* z turned onto x */
    addCompound(&cs, "dumbbell", db, 3, M, 0, 0, 1);
    /* 2. the table, the top given 3 kg, the legs sharing the rest (1 kg) by volume */
    tpPartDef tb[5];
    tableParts(tb);
    tb[0].mass = 3.0;
    const tpBodyDef *table = addCompound(&cs, "table", tb, 5, 4.0, 2, 0, 0);
    /* 3. two boxes, one turned 30 degrees about z and 20 about x, one a closed mesh of a box */
    static const double cube[24] = {-0.1, -0.05, -0.02, 0.1, -0.05, -0.02, 0.1, 0.05, -0.02, -0.1, 0.05, -0.02,
                                    -0.1, -0.05, 0.02,  0.1, -0.05, 0.02,  0.1, 0.05, 0.02,  -0.1, 0.05, 0.02};
    static const int32_t tris[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                     1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
    tpPartDef tw[2];
    part(&tw[0], TP_SHAPE_BOX, 0.3, 0.1, 0.05, 0.1, 0.2, -0.1);
    const double qz[4] = {cos(PI / 12), 0, 0, sin(PI / 12)}, qx[4] = {cos(PI / 18), sin(PI / 18), 0, 0};
    tw[0].quat[0] = qz[0] * qx[0], tw[0].quat[1] = qz[0] * qx[1], tw[0].quat[2] = qz[3] * qx[1],
    tw[0].quat[3] = qz[3] * qx[0];
    part(&tw[1], TP_SHAPE_MESH, 0, 0, 0, -0.2, 0, 0.05);
    tw[1].mesh = (tpMeshView){8, cube, 12, tris};
    tw[1].mass = 0.5;
    addCompound(&cs, "turned", tw, 2, 1.5, -2, 0, 1);
    tpWorld *w = mustCreate(&cs.s);

    /* the dumbbell's closed form: spheres 2/5 m r^2 + m d^2 off axis; the bar m (3 r^2 + l^2)/12
       across, m r^2 / 2 along x */
    const double vs = 4.0 / 3.0 * PI * rs * rs * rs, vb = PI * rb * rb * lb, rho = M / (2 * vs + vb);
    const double ms = rho * vs, mb = rho * vb;
    const double Ix = 2 * 0.4 * ms * rs * rs + 0.5 * mb * rb * rb;
    const double Iy = 2 * (0.4 * ms * rs * rs + ms * d * d) + mb * (3 * rb * rb + lb * lb) / 12.0;
    const double Idb[9] = {Ix, 0, 0, 0, Iy, 0, 0, 0, Iy};
    double I[9];
    assert_true(tpWorld_BodyInertia(w, 0, I));
    const double e1 = relErr(I, Idb, 9);
    check(c, e1 <= 1e-12, "dumbbell: inertia (%.15g, %.15g, %.15g) matches the closed form to %.2g (<= 1e-12)", I[0],
          I[4], I[8], e1);
    double pm[3], com[3], Ic[9];
    assert_true(tpCompound_MassProperties(tpWorld_Body(w, 0), pm, com, Ic, NULL, 0));
    const double mexp[3] = {ms, ms, mb};
    const double em = relErr(pm, mexp, 3);
    check(c, em <= 1e-12 && fabs(com[0]) + fabs(com[1]) + fabs(com[2]) <= 1e-15,
          "dumbbell: part masses %.6g %.6g %.6g kg by volume (to %.2g), centre at the origin", pm[0], pm[1], pm[2], em);

    /* the table: the top 3 kg, legs 0.25 kg each; centre of mass height h, inertia about it */
    const double mt = 3.0, ml = 0.25;
    const double zt = LEG_L + 0.5 * TOP_Z, zl = 0.5 * LEG_L, h = (mt * zt + 4 * ml * zl) / (mt + 4 * ml);
    const double Itx = mt * (TOP_Y * TOP_Y + TOP_Z * TOP_Z) / 12 + mt * (zt - h) * (zt - h);
    const double Ity = mt * (TOP_X * TOP_X + TOP_Z * TOP_Z) / 12 + mt * (zt - h) * (zt - h);
    const double Itz = mt * (TOP_X * TOP_X + TOP_Y * TOP_Y) / 12;
    const double Ila = ml * (3 * LEG_R * LEG_R + LEG_L * LEG_L) / 12, Ilz = 0.5 * ml * LEG_R * LEG_R;
    const double Itab[9] = {Itx + 4 * (Ila + ml * (LEG_Y * LEG_Y + (zl - h) * (zl - h))), 0, 0, 0,
                            Ity + 4 * (Ila + ml * (LEG_X * LEG_X + (zl - h) * (zl - h))), 0, 0, 0,
                            Itz + 4 * (Ilz + ml * (LEG_X * LEG_X + LEG_Y * LEG_Y))};
    assert_true(tpWorld_BodyInertia(w, 1, I));
    const double e2 = relErr(I, Itab, 9);
    check(c, e2 <= 1e-12, "table: inertia (%.15g, %.15g, %.15g) matches the closed form to %.2g (<= 1e-12)", I[0], I[4],
          I[8], e2);
    check(c, fabs(table->pos[2] - h) <= 1e-15 && fabs(table->mesh_origin[2] + h) <= 1e-15,
          "table: its frame moved up to the centre of mass (%.15g m; closed form %.15g), the artist's origin %.15g "
          "below",
          table->pos[2], h, -table->mesh_origin[2]);

    /* the turned box and the mesh box: R I R^T + parallel axis, computed here from the parts */
    double R[9];
    double q0[4];
    memcpy(q0, tw[0].quat, sizeof q0);
    tpQuat_Normalize(q0);
    tpQuat_ToMatrix(q0, R);
    const double m0 = 1.0, m1 = 0.5;
    const double J0[3] = {m0 * (0.1 * 0.1 + 0.05 * 0.05) / 12, m0 * (0.3 * 0.3 + 0.05 * 0.05) / 12,
                          m0 * (0.3 * 0.3 + 0.1 * 0.1) / 12};
    const double J1[3] = {m1 * (0.1 * 0.1 + 0.04 * 0.04) / 12, m1 * (0.2 * 0.2 + 0.04 * 0.04) / 12,
                          m1 * (0.2 * 0.2 + 0.1 * 0.1) / 12};
    const double p0[3] = {0.1, 0.2, -0.1}, p1[3] = {-0.2, 0, 0.05};
    double cm[3], Iexp[9];
    for (int i = 0; i < 3; i++)
        cm[i] = (m0 * p0[i] + m1 * p1[i]) / (m0 + m1);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double rot = 0;
            for (int k = 0; k < 3; k++)
                rot += R[3 * i + k] * J0[k] * R[3 * j + k];
            const double a[3] = {p0[0] - cm[0], p0[1] - cm[1], p0[2] - cm[2]};
            const double b[3] = {p1[0] - cm[0], p1[1] - cm[1], p1[2] - cm[2]};
            const double aa = a[0] * a[0] + a[1] * a[1] + a[2] * a[2], bb = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
            Iexp[3 * i + j] =
                rot + m0 * ((i == j) * aa - a[i] * a[j]) + (i == j) * J1[i] + m1 * ((i == j) * bb - b[i] * b[j]);
        }
    }
    assert_true(tpWorld_BodyInertia(w, 2, I));
    const double e3 = relErr(I, Iexp, 9);
    check(c, e3 <= 1e-12, "turned box + mesh box: the full tensor (Ixy %.6g, Ixz %.6g, Iyz %.6g) to %.2g (<= 1e-12)",
          I[1], I[2], I[5], e3);
    tpDestroyWorld(w);
}
CASE(compoundMass)

/* ------------------------------------------------------------------------------------------ */
/* A table on the floor                                                                        */

/* World z of a leg's lowest point: the foot disc's centre less the rim's reach below it. */
static double footZ(const tpBodyState *s, const tpPartDef *leg)
{
    double R[9];
    tpQuat_ToMatrix(s->quat, R);
    const double f[3] = {leg->pos[0], leg->pos[1], leg->pos[2] - 0.5 * leg->size[1]};
    const double z = s->pos[2] + R[6] * f[0] + R[7] * f[1] + R[8] * f[2];
    return z - leg->size[0] * sqrt(fmax(0.0, 1.0 - R[8] * R[8]));
}

/* Plain ODE, the control: the same table as one dBody with a geom per part (dGeomSetOffset*), the
 * inertia tplan computed, on the plane z = 0, with the default scene's parameters (erp 0.2, cfm
 * 1e-5, world.c's surface layer, dContactApprox1, mu 0.5 (the default material's), 8 contacts per
 * geom pair, 1/60 s); ODE's own colliders. Its centre of mass after 3 s into z, its tilt into tilt. */
typedef struct PlainTable {
    dWorldID world;
    dJointGroupID group;
} PlainTable;

static void plainTableCallback(void *data, dGeomID a, dGeomID b)
{
    PlainTable *p = data;
    plainContacts(p->world, p->group, a, b);
}

static void plainTable(tpSolverKind solver, const tpBodyDef *b, const double I[9], double *z, double *tilt)
{
    dInitODE2(0);
    PlainTable p;
    p.world = dWorldCreate();
    dSpaceID space = dSimpleSpaceCreate(0);
    p.group = dJointGroupCreate(0);
    const bool quick = solver == TP_SOLVER_QUICKSTEP;
    dWorldSetGravity(p.world, 0, 0, -G);
    dWorldSetERP(p.world, 0.2);
    dWorldSetCFM(p.world, 1e-5);
    dWorldSetContactSurfaceLayer(p.world, quick ? 0.001 : 0.0001);
    dWorldSetQuickStepNumIterations(p.world, 20);
    dCreatePlane(space, 0, 0, 1, 0);
    dBodyID body = dBodyCreate(p.world);
    dMass m;
    dMassSetParameters(&m, b->mass, 0, 0, 0, I[0], I[4], I[8], I[1], I[2], I[5]);
    dBodySetMass(body, &m);
    dBodySetPosition(body, b->pos[0], b->pos[1], b->pos[2]);
    for (int k = 0; k < b->nparts; k++) {
        const tpPartDef *q = &b->parts[k];
        dGeomID g = q->shape == TP_SHAPE_BOX ? dCreateBox(space, q->size[0], q->size[1], q->size[2])
                                             : dCreateCylinder(space, q->size[0], q->size[1]);
        dGeomSetBody(g, body);
        dGeomSetOffsetPosition(g, q->pos[0], q->pos[1], q->pos[2]);
    }
    for (int i = 0; i < 180; i++) {
        dSpaceCollide(space, &p, plainTableCallback);
        if (quick)
            dWorldQuickStep(p.world, 1.0 / 60.0);
        else
            dWorldStep(p.world, 1.0 / 60.0);
        dJointGroupEmpty(p.group);
    }
    const dReal *R = dBodyGetRotation(body);
    *z = dBodyGetPosition(body)[2];
    *tilt = acos(R[10] > 1.0 ? 1.0 : R[10]);
    dJointGroupDestroy(p.group);
    dSpaceDestroy(space);
    dWorldDestroy(p.world);
    dCloseODE();
}

static void compoundTable(tpSolverKind solver, Checks *c)
{
    CScene cs;
    memset(&cs, 0, sizeof cs);
    sceneInit(&cs.s, solver);
    addFloor(&cs.s, NULL);
    tpPartDef tb[5];
    tableParts(tb);
    addCompound(&cs, "table", tb, 5, 4.0, 0, 0, 0.02);
    /* the control first: it opens and closes ODE itself, which must not happen under a live world */
    double I[9], com[3], zc, tc;
    assert_true(tpCompound_MassProperties(&cs.s.bodies[1], NULL, com, I, NULL, 0));
    plainTable(solver, &cs.s.bodies[1], I, &zc, &tc);
    tpWorld *w = mustCreate(&cs.s);
    const tpBodyDef *b = tpWorld_Body(w, 1);
    tpBodyState x[1];
    tpWorld_InitialState(w, x);
    Depth dep = {0};
    double tilt = 0.0, low = 0.0, high = -1.0;
    for (int i = 0; i < 180; i++) {
        assert_true(simStep(w, x, i, &dep));
        tilt = fmax(tilt, tiltOf(&x[0]));
        if (i >= 60) { /* after the landing: every foot on the floor */
            for (int k = 1; k <= 4; k++) {
                const double z = footZ(&x[0], &b->parts[k]);
                low = fmin(low, z);
                high = fmax(high, z);
            }
        }
    }
    tpDestroyWorld(w);
    check(c, dep.worst <= MAX_DEPTH, "deepest overlap %.2f mm (<= 5 mm), at step %d", 1e3 * dep.worst, dep.step);
    check(c, low >= -MAX_DEPTH, "no foot sinks more than 5 mm (lowest %.3f mm)", 1e3 * low);
    check(c, high <= 0.001 && high >= -MAX_DEPTH,
          "it rests on all four legs: every foot within [-5, 1] mm of the floor (highest %.3f mm)", 1e3 * high);
    check(c, tilt <= 0.002, "the top stays level: tilt at most %.2g rad (<= 0.002)", tilt);
    check(c, fabs(x[0].pos[0]) <= 1e-3 && fabs(x[0].pos[1]) <= 1e-3, "it stays where it landed (moved %.3g, %.3g mm)",
          1e3 * x[0].pos[0], 1e3 * x[0].pos[1]);
    /* the control: plain ODE rests the same body at the same height, as level */
    check(c, fabs(x[0].pos[2] - zc) <= 1e-3 && tc <= 0.002,
          "plain ODE's table rests at %.4f m (tplan %.4f m, within 1 mm), tilted %.2g rad", zc, x[0].pos[2], tc);
}
CASE(compoundTable)

/* ------------------------------------------------------------------------------------------ */
/* A moving bowl of convex parts                                                               */

/* A passive bowl (a 0.3 m square base 2 cm thick and four 0.15 m walls 1 cm thick, 1 kg, one body)
 * on the floor and a 0.1 kg ball of radius 4 cm dropped into it from 0.4 m: the ball comes to rest
 * on the bowl's base inside its walls (its centre at base top + radius), where one convex hull of
 * the bowl (a filled box) would hold it on the walls' top; the bowl stays level on the floor. */
static void compoundBowl(tpSolverKind solver, Checks *c)
{
    CScene cs;
    memset(&cs, 0, sizeof cs);
    sceneInit(&cs.s, solver);
    addFloor(&cs.s, NULL);
    const double L = 0.3, T = 0.02, H = 0.15, W = 0.01, r = 0.04;
    tpPartDef bowl[5];
    part(&bowl[0], TP_SHAPE_BOX, L, L, T, 0, 0, 0.5 * T);
    part(&bowl[1], TP_SHAPE_BOX, W, L, H, 0.5 * (L - W), 0, T + 0.5 * H);
    part(&bowl[2], TP_SHAPE_BOX, W, L, H, -0.5 * (L - W), 0, T + 0.5 * H);
    part(&bowl[3], TP_SHAPE_BOX, L - 2 * W, W, H, 0, 0.5 * (L - W), T + 0.5 * H);
    part(&bowl[4], TP_SHAPE_BOX, L - 2 * W, W, H, 0, -0.5 * (L - W), T + 0.5 * H);
    addCompound(&cs, "bowl", bowl, 5, 1.0, 0, 0, 0);
    tpBodyDef *ball = sceneAdd(&cs.s, "ball", TP_BODY_PASSIVE, TP_SHAPE_SPHERE);
    ball->size[0] = r;
    ball->mass = 0.1;
    ball->pos[0] = 0.02, ball->pos[2] = 0.4;
    tpWorld *w = mustCreate(&cs.s);
    tpBodyState x[2];
    tpWorld_InitialState(w, x);
    Depth dep = {0};
    for (int i = 0; i < 240; i++)
        assert_true(simStep(w, x, i, &dep));
    tpDestroyWorld(w);
    const double rest = T + r;
    check(c, fabs(x[1].pos[2] - rest) <= MAX_DEPTH,
          "the ball rests on the base inside the walls: its centre at %.4f m (base top + radius %.4f m; on the "
          "walls' top it would be %.3f m)",
          x[1].pos[2], rest, T + H + r);
    check(c, fabs(x[1].pos[0]) <= 0.5 * L - W - r + 1e-3 && fabs(x[1].pos[1]) <= 0.5 * L - W - r + 1e-3,
          "inside the walls (x %.3f, y %.3f m)", x[1].pos[0], x[1].pos[1]);
    check(c, tiltOf(&x[0]) <= 0.01 && dep.worst <= MAX_DEPTH,
          "the bowl stays level (tilt %.2g rad); deepest overlap %.2f mm (<= 5 mm)", tiltOf(&x[0]), 1e3 * dep.worst);
}
CASE(compoundBowl)

/* ------------------------------------------------------------------------------------------ */
/* Static and scripted compounds                                                               */

/* A static shelf (two boards 0.3 and 0.6 m up on two posts, placed by the body's pose, turned 90
 * degrees about z) holds a box dropped on its top board; a scripted compound (a hub and two
 * paddles spinning about z at 2 rad/s) pushes a ball away: parts of static and kinematic bodies
 * collide at their places too. */
static void compoundStatic(tpSolverKind solver, Checks *c)
{
    CScene cs;
    memset(&cs, 0, sizeof cs);
    sceneInit(&cs.s, solver);
    addFloor(&cs.s, NULL);
    tpPartDef shelf[4];
    part(&shelf[0], TP_SHAPE_BOX, 0.3, 0.8, 0.02, 0, 0, 0.3);
    part(&shelf[1], TP_SHAPE_BOX, 0.3, 0.8, 0.02, 0, 0, 0.6);
    part(&shelf[2], TP_SHAPE_BOX, 0.3, 0.02, 0.6, 0, 0.39, 0.3);
    part(&shelf[3], TP_SHAPE_BOX, 0.3, 0.02, 0.6, 0, -0.39, 0.3);
    tpBodyDef *sb = addCompound(&cs, "shelf", shelf, 4, 1.0, 0, 0, 0);
    sb->cls = TP_BODY_STATIC;
    sb->quat[0] = cos(PI / 4), sb->quat[3] = sin(PI / 4); /* the boards run along x */
    addBox(&cs.s, "box", 0.1, 0.1, 0.1, 0.5, 0.2, 0, 0.7);
    tpPartDef pad[3];
    part(&pad[0], TP_SHAPE_CYLINDER, 0.03, 0.1, 0, 0, 0, 0);
    part(&pad[1], TP_SHAPE_BOX, 0.3, 0.02, 0.08, 0.18, 0, 0);
    part(&pad[2], TP_SHAPE_BOX, 0.3, 0.02, 0.08, -0.18, 0, 0);
    tpBodyDef *pb = addCompound(&cs, "paddle", pad, 3, 1.0, 2, 0, 0.05);
    pb->cls = TP_BODY_FOREIGN;
    pb->motion.kind = TP_MOTION_ROTATE;
    pb->motion.rate = 2.0;
    tpBodyDef *ball = sceneAdd(&cs.s, "ball", TP_BODY_PASSIVE, TP_SHAPE_SPHERE);
    ball->size[0] = 0.03;
    ball->mass = 0.05;
    ball->pos[0] = 2.0, ball->pos[1] = 0.2, ball->pos[2] = 0.03;
    tpWorld *w = mustCreate(&cs.s);
    tpBodyState x[2];
    tpWorld_InitialState(w, x);
    Depth dep = {0};
    for (int i = 0; i < 180; i++)
        assert_true(simStep(w, x, i, &dep));
    tpDestroyWorld(w);
    check(c, fabs(x[0].pos[2] - (0.61 + 0.05)) <= MAX_DEPTH,
          "the box rests on the static shelf's top board: its centre at %.4f m (0.66)", x[0].pos[2]);
    const double d = hypot(x[1].pos[0] - 2.0, x[1].pos[1]);
    check(c, d > 0.35, "the spinning paddles pushed the ball out of their reach: %.3f m from the hub (> 0.35)", d);
    check(c, dep.worst <= MAX_DEPTH, "deepest overlap %.2f mm (<= 5 mm)", 1e3 * dep.worst);
}
CASE(compoundStatic)

/* ------------------------------------------------------------------------------------------ */
/* Free rotation                                                                               */

typedef struct Drift {
    double dE, dL;
} Drift;

/* Spins body 0 of s without gravity at w0 for 10 s; the energy and |L| drifts from its inertia. */
static Drift spin(Scene *s, const double w0[3])
{
    s->def.gravity[2] = 0.0;
    memcpy(s->bodies[0].angvel, w0, 3 * sizeof *w0);
    tpWorld *w = mustCreate(s);
    double I[9];
    assert_true(tpWorld_BodyInertia(w, 0, I));
    tpBodyState x[1];
    tpWorld_InitialState(w, x);
    Drift d = {0, 0};
    double E0 = -1, L0 = -1;
    for (int i = 0; i <= 600; i++) {
        if (i > 0)
            assert_true(simStep(w, x, i - 1, NULL));
        double R[9], wb[3], Lb[3];
        tpQuat_ToMatrix(x[0].quat, R);
        for (int j = 0; j < 3; j++)
            wb[j] = R[j] * x[0].angvel[0] + R[3 + j] * x[0].angvel[1] + R[6 + j] * x[0].angvel[2];
        for (int j = 0; j < 3; j++)
            Lb[j] = I[3 * j] * wb[0] + I[3 * j + 1] * wb[1] + I[3 * j + 2] * wb[2];
        const double E = 0.5 * (wb[0] * Lb[0] + wb[1] * Lb[1] + wb[2] * Lb[2]);
        const double L = sqrt(Lb[0] * Lb[0] + Lb[1] * Lb[1] + Lb[2] * Lb[2]);
        if (i == 0) {
            E0 = E, L0 = L;
            continue;
        }
        d.dE = fmax(d.dE, fabs(E - E0) / E0);
        d.dL = fmax(d.dL, fabs(L - L0) / L0);
    }
    tpDestroyWorld(w);
    return d;
}

static void compoundSpin(tpSolverKind solver, Checks *c)
{
    /* an L: a 0.3 x 0.1 x 0.1 bar and a 0.1 x 0.2 x 0.1 foot at its end (off-diagonal inertia) */
    const double w0[3] = {0.3, 4.0, 0.2};
    CScene cs;
    memset(&cs, 0, sizeof cs);
    sceneInit(&cs.s, solver);
    tpPartDef l[2];
    part(&l[0], TP_SHAPE_BOX, 0.3, 0.1, 0.1, 0, 0, 0);
    part(&l[1], TP_SHAPE_BOX, 0.1, 0.2, 0.1, 0.1, 0.15, 0);
    addCompound(&cs, "L", l, 2, 1.0, 0, 0, 1);
    const Drift dc = spin(&cs.s, w0);
    Scene box;
    sceneInit(&box, solver);
    addBox(&box, "box", 0.1, 0.2, 0.3, 1.0, 0, 0, 1);
    const Drift db = spin(&box, w0);
    printf("conformance %s: a single box 0.1 x 0.2 x 0.3: energy drift %.4f %%, |L| drift %.5f %%\n", c->name,
           100 * db.dE, 100 * db.dL);
    check(c, dc.dE <= 0.01, "the L compound's energy drifts at most %.4f %% in 10 s (<= 1 %%, as a box)", 100 * dc.dE);
    check(c, dc.dL <= 0.001, "its |L| drifts at most %.5f %% (<= 0.1 %%)", 100 * dc.dL);
}
CASE(compoundSpin)

/* ------------------------------------------------------------------------------------------ */
/* Purity                                                                                      */

static void compoundPurity(tpSolverKind solver, Checks *c)
{
    CScene cs;
    memset(&cs, 0, sizeof cs);
    sceneInit(&cs.s, solver);
    addFloor(&cs.s, NULL);
    tpPartDef tb[5], db[3];
    tableParts(tb);
    addCompound(&cs, "table", tb, 5, 4.0, 0, 0, 0.3);
    part(&db[0], TP_SHAPE_SPHERE, 0.05, 0, 0, -0.2, 0, 0);
    part(&db[1], TP_SHAPE_CAPSULE, 0.05, 0.2, 0, 0.2, 0, 0);
    part(&db[2], TP_SHAPE_BOX, 0.4, 0.02, 0.02, 0, 0, 0);
    tpBodyDef *d = addCompound(&cs, "dumbbell", db, 3, 1.0, 0.05, 0.02, 1.2);
    d->vel[2] = -9.0; /* fast: the swept pass and the speculative contacts pose its parts */
    d->angvel[0] = 6.0;
    addBox(&cs.s, "crate", 0.2, 0.2, 0.2, 1.0, 0.8, 0, 0.1);
    tpWorld *w = mustCreate(&cs.s);
    const int n = tpWorld_StateCount(w);
    assert_int_equal(n, 3);
    tpBodyState a[3], b[3], other[3];
    tpWorld_InitialState(w, a);
    memcpy(b, a, sizeof a);
    memcpy(other, a, sizeof a);
    unsigned char *snap = malloc(tpWorld_SnapshotSize(w));
    assert_non_null(snap);
    const double dt = cs.s.def.dt;
    const int steps = 120;
    for (int i = 0; i < steps; i++)
        assert_true(tpWorld_Step(w, a, i * dt, NULL, a));
    const tpPhysicsStats st = tpWorld_Stats(w);
    for (int i = 0; i < steps; i++) {
        tpWorld_Snapshot(w, snap);
        tpWorld_Step(w, other, (i + 3) * dt, NULL, other);
        tpWorld_Restore(w, snap);
        assert_true(tpWorld_Step(w, b, i * dt, NULL, b));
    }
    const bool same = memcmp(a, b, sizeof a) == 0;
    tpDestroyWorld(w);
    free(snap);
    check(c, same, "the %d-step chain with two compounds is bit-identical with other steps and restores between",
          steps);
    check(c, st.speculative > 0, "the fast compound made %lld speculative contacts", (long long)st.speculative);
    check(c, a[1].pos[2] < 0.5, "the dumbbell fell onto the table or the floor (z %.3f m)", a[1].pos[2]);
}
CASE(compoundPurity)

/* ------------------------------------------------------------------------------------------ */
/* Bad definitions                                                                             */

static void expectError(Checks *c, const Scene *s, const char *want)
{
    char err[400] = "";
    tpWorld *w = tpCreateWorld(&s->def, err, sizeof err);
    tpDestroyWorld(w);
    check(c, w == NULL && strstr(err, want) != NULL, "refused naming \"%s\": %s", want, err);
}

static void compoundErrors(tpSolverKind solver, Checks *c)
{
    tpPartDef p[2];
    part(&p[0], TP_SHAPE_BOX, 0.1, 0.1, 0.1, 0, 0, 0);
    part(&p[1], TP_SHAPE_BOX, 0.1, 0.1, 0.1, 0, 0, 0);
    Scene s;
    sceneInit(&s, solver);
    tpBodyDef *b = sceneAdd(&s, "c", TP_BODY_PASSIVE, TP_SHAPE_COMPOUND);
    b->parts = p;
    b->nparts = 0;
    expectError(c, &s, "parts must have 1 to 64 parts");
    b->nparts = 2;
    p[1].size[1] = -1.0;
    expectError(c, &s, "parts[2].size[1]");
    p[1].size[1] = 0.1;
    p[1].shape = TP_SHAPE_PLANE;
    expectError(c, &s, "parts[2].shape");
    p[1].shape = (tpShapeKind)42;
    expectError(c, &s, "parts[2].shape");
    p[1].shape = TP_SHAPE_BOX;
    p[0].mass = -1.0;
    expectError(c, &s, "parts[1].mass");
    p[0].mass = 2.0; /* more than the body's 1 kg */
    expectError(c, &s, "parts[1].mass");
    p[0].mass = 0.0;
    p[1].pos[0] = 0.5; /* the centre of mass is not the origin */
    expectError(c, &s, "centre of mass");
    p[1].pos[0] = 0.0;
    b->mass = 0.0;
    expectError(c, &s, "mass must be > 0");
    b->mass = 1.0;
    char err[256] = "";
    tpWorld *w = tpCreateWorld(&s.def, err, sizeof err);
    check(c, w != NULL, "the mended compound is accepted (%s)", w ? "ok" : err);
    tpDestroyWorld(w);
}
CASE(compoundErrors)

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CASE_TESTS(compoundMass),   CASE_TESTS(compoundTable), CASE_TESTS(compoundSpin),   CASE_TESTS(compoundPurity),
        CASE_TESTS(compoundErrors), CASE_TESTS(compoundBowl),  CASE_TESTS(compoundStatic),
    };
    return runCases(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
