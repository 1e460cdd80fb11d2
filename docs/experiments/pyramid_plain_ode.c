/* plain ODE control for docs/physics.md "Large stacks: the 210-cube pyramid": the 210-cube pyramid, quickstep.
 * Build: gcc -O2 pyramid_plain_ode.c -o plain -lode -lm. Run: ./plain iters substeps max_contacts erp cfm layer sor mu
 * (TRACE=1 prints the top cube every 0.5 s). */
#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>
static dWorldID W;
static dJointGroupID G;
static int MAXC;
static double MU = 0.6;

static void near(void *d, dGeomID a, dGeomID b)
{
    (void)d;
    dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
    dContactGeom cg[8];
    int n = dCollide(a, b, MAXC, cg, sizeof cg[0]);
    for (int i = 0; i < n; i++) {
        dContact c = {0};
        c.surface.mode = dContactApprox1;
        c.surface.mu = MU;
        c.geom = cg[i];
        dJointID j = dJointCreateContact(W, G, &c);
        dJointAttach(j, ba, bb);
    }
}
static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20, sub = argc > 2 ? atoi(argv[2]) : 1;
    MAXC = argc > 3 ? atoi(argv[3]) : 8;
    if (argc > 8)
        MU = atof(argv[8]);
    double erp = argc > 4 ? atof(argv[4]) : 0.2, cfm = argc > 5 ? atof(argv[5]) : 1e-5,
           layer = argc > 6 ? atof(argv[6]) : 0.001;
    double sor = argc > 7 ? atof(argv[7]) : 1.3;
    dInitODE();
    W = dWorldCreate();
    dSpaceID S = dHashSpaceCreate(0);
    G = dJointGroupCreate(0);
    dWorldSetGravity(W, 0, 0, -9.81);
    dWorldSetERP(W, erp);
    dWorldSetCFM(W, cfm);
    dWorldSetQuickStepNumIterations(W, iters);
    dWorldSetContactSurfaceLayer(W, layer);
    dWorldSetQuickStepW(W, sor);
    dCreatePlane(S, 0, 0, 1, 0);
    dBodyID bodies[210];
    int nb = 0;
    for (int row = 0; row < 20; row++) {
        int cnt = 20 - row;
        double x0 = -0.5 * (cnt - 1) * 0.105;
        for (int k = 0; k < cnt; k++) {
            dBodyID b = dBodyCreate(W);
            dMass m;
            dMassSetBoxTotal(&m, 0.5, .1, .1, .1);
            dBodySetMass(b, &m);
            dBodySetPosition(b, x0 + k * 0.105, 0, (row + 0.5) * 0.1);
            dGeomID g = dCreateBox(S, .1, .1, .1);
            dGeomSetBody(g, b);
            bodies[nb++] = b;
        }
    }
    const double *p = dBodyGetPosition(bodies[209]);
    double z0 = p[2], x00 = p[0], worst = 0, tfail = -1;
    double t0 = cpu();
    for (int i = 0; i < 600; i++)
        for (int s = 0; s < sub; s++) {
            dSpaceCollide(S, 0, near);
            dRandSetSeed(0);
            dWorldQuickStep(W, 1.0 / 60 / sub);
            dJointGroupEmpty(G);
            p = dBodyGetPosition(bodies[209]);
            double d = sqrt(pow(p[0] - x00, 2) + pow(p[2] - z0, 2));
            if (d > worst)
                worst = d;
            if (s == sub - 1 && (i % 30) == 29 && getenv("TRACE"))
                printf("t %.2f top dz %.1f mm dx %.1f mm\n", (i + 1) / 60.0, 1e3 * (p[2] - z0), 1e3 * (p[0] - x00));
            if (d > 0.05 && tfail < 0)
                tfail = (i + 1) / 60.0;
        }
    printf("plain ODE iters %d sub %d maxc %d erp %g cfm %g layer %g sor %g: top moved %.3f mm (10 mm at %.2f s), %.3f "
           "ms/step\n",
           iters, sub, MAXC, erp, cfm, layer, sor, 1e3 * worst, tfail, 1e3 * (cpu() - t0) / 600);
    return 0;
}
