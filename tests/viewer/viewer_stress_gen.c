/* Writes a synthetic big recording for measuring the viewer's frame rate (not a test): NDICE dice
 * tumbling on a ground plane for 600 steps, and a random search tree of NNODES nodes that records
 * the positions of the first TREE_BODIES dice. Deterministic (one tpRng, seed 1).
 * Usage: viewer_stress_gen PLAN.json TREE NDICE NNODES TREE_BODIES
 * Then: xvfb-run -a -s "-screen 0 1280x1024x24" tplan view PLAN.json --tree TREE --fps --quit-after 300 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/plan.h"
#include "tp/rng.h"

#define NSTEPS 600

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s PLAN.json TREE NDICE NNODES TREE_BODIES\n", argv[0]);
        return 2;
    }
    int ndice = atoi(argv[3]), ntb = atoi(argv[5]);
    long nnodes = atol(argv[4]);
    if (ndice < 1 || nnodes < 1 || ntb < 1 || ntb > ndice || nnodes > 2000000000L) {
        fprintf(stderr, "bad counts\n");
        return 2;
    }
    tpRng rng;
    tpRng_Seed(&rng, 1);
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    rec.domain_name = strdup("dice");
    rec.domain_file = strdup("(synthetic: viewer_stress_gen)");
    rec.domain_hash = strdup("fnv1a64:0000000000000000");
    rec.seed = 1;
    rec.planner = strdup("bgt");
    rec.mu = 1000;
    rec.max_iters = nnodes;
    rec.solutions_requested = 1;
    rec.status = strdup("solved");
    rec.dt = 1.0 / 60;
    rec.nbodies = ndice + 1;
    rec.bodies = calloc((size_t)rec.nbodies, sizeof *rec.bodies);
    tpPlanBody *g = &rec.bodies[0];
    g->name = strdup("ground"), g->cls = strdup("static"), g->shape = strdup("plane");
    g->size[2] = 1;
    g->color[0] = 0.35f, g->color[1] = 0.38f, g->color[2] = 0.42f, g->color[3] = 1;
    g->pose[3] = 1;
    int side = (int)ceil(sqrt(ndice));
    for (int i = 0; i < ndice; ++i) {
        tpPlanBody *b = &rec.bodies[i + 1];
        char name[32];
        snprintf(name, sizeof name, "die%d", i);
        b->name = strdup(name), b->cls = strdup("passive"), b->shape = strdup("box");
        b->size[0] = b->size[1] = b->size[2] = 0.1;
        for (int k = 0; k < 3; ++k) {
            b->color[k] = (float)tpRng_Uniform(&rng, 0.3, 1.0);
        }
        b->color[3] = 1;
        b->moving = true;
    }
    rec.nworlds = 1;
    rec.worlds = calloc(1, sizeof *rec.worlds);
    if (!tpPlanWorld_Alloc(&rec.worlds[0], &rec, NSTEPS)) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < ndice; ++i) { /* slide and spin in a spiral, settling on the ground */
        double x0 = (i % side - side / 2.0) * 0.25, y0 = (i / side - side / 2.0) * 0.25;
        double vx = tpRng_Uniform(&rng, -0.5, 0.5), vy = tpRng_Uniform(&rng, -0.5, 0.5);
        double spin = tpRng_Uniform(&rng, -3, 3);
        for (int s = 0; s <= NSTEPS; ++s) {
            double t = s * rec.dt, f = 1 - exp(-t);
            double *st = rec.worlds[0].traj[i + 1] + (size_t)s * TP_STATE_DOUBLES;
            st[0] = x0 + vx * f, st[1] = y0 + vy * f, st[2] = 0.05;
            double a = 0.5 * spin * f;
            st[3] = cos(a), st[6] = sin(a);
            st[7] = vx * exp(-t), st[8] = vy * exp(-t), st[12] = spin * exp(-t);
        }
    }
    rec.worlds[0].cost = NSTEPS;
    rec.iterations = rec.nodes = nnodes;
    rec.nsolutions = 1;
    char err[1024];
    if (!tpPlanRecord_Write(&rec, argv[1], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    /* tree: random parents among earlier nodes, positions a random step from the parent's */
    tpTreeRecord tr;
    memset(&tr, 0, sizeof tr);
    tr.nbodies = ntb;
    tr.body_names = calloc((size_t)ntb, sizeof *tr.body_names);
    tr.nnodes = nnodes;
    tr.parent = malloc((size_t)nnodes * sizeof *tr.parent);
    tr.flags = calloc((size_t)nnodes, 1);
    tr.pos = malloc((size_t)nnodes * (size_t)ntb * 3 * sizeof *tr.pos);
    if (!tr.body_names || !tr.parent || !tr.flags || !tr.pos) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int b = 0; b < ntb; ++b) {
        tr.body_names[b] = rec.bodies[b + 1].name;
        for (int k = 0; k < 3; ++k) {
            tr.pos[(size_t)b * 3 + (size_t)k] = (float)rec.worlds[0].traj[b + 1][k];
        }
    }
    tr.parent[0] = -1;
    for (long i = 1; i < nnodes; ++i) {
        long p = (long)tpRng_Below(&rng, (uint32_t)i);
        tr.parent[i] = (int32_t)p;
        for (int b = 0; b < ntb; ++b) {
            float *q = tr.pos + ((size_t)i * ntb + b) * 3, *pp = tr.pos + ((size_t)p * ntb + b) * 3;
            q[0] = pp[0] + (float)tpRng_Uniform(&rng, -0.03, 0.03);
            q[1] = pp[1] + (float)tpRng_Uniform(&rng, -0.03, 0.03);
            q[2] = 0.05f;
        }
    }
    for (long i = nnodes - 1; i >= 0; i = tr.parent[i]) { /* a "selected solution" branch */
        tr.flags[i] |= 4;
    }
    tr.flags[nnodes - 1] |= 2;
    if (!tpTreeRecord_Write(&tr, argv[2], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("wrote %s (%d dice, %d steps) and %s (%ld nodes x %d bodies)\n", argv[1], ndice, NSTEPS, argv[2], nnodes,
           ntb);
    free(tr.body_names);
    free(tr.parent);
    free(tr.flags);
    free(tr.pos);
    tpPlanRecord_Free(&rec);
    return 0;
}
