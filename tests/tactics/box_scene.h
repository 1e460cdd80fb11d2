/* tests/tactics: a ground plane and one box ("box", at x = 2, z = 0.5) whose x a test sets, and
 * tp.inside-like leaves on the box's x: the scene of the condition tests (test_cond_blame.c,
 * test_temporal.c). Include after cmocka.h. */
#ifndef TP_TEST_BOX_SCENE_H
#define TP_TEST_BOX_SCENE_H

#include <string.h>

#include "tp/base.h"
#include "tp/tactics.h"

#include "../physics/scene_fixture.h"

enum { B_GROUND, B_BOX, NB };

typedef struct Scene {
    tpMaterialDef mat;
    tpBodyDef bodies[NB];
    tpWorld *world;
    tpBodyState x[1]; /* the box */
} Scene;

static void make_world(Scene *s)
{
    memset(s, 0, sizeof *s);
    s->mat = tpDefaultMaterialDef();
    s->bodies[B_GROUND] = tpDefaultBodyDef();
    tpStrCopy(s->bodies[B_GROUND].name, TP_NAME_MAX, "ground");
    s->bodies[B_GROUND].cls = TP_BODY_STATIC;
    s->bodies[B_GROUND].shape = TP_SHAPE_PLANE;
    s->bodies[B_GROUND].plane[2] = 1.0;
    s->bodies[B_BOX] = tpDefaultBodyDef();
    tpStrCopy(s->bodies[B_BOX].name, TP_NAME_MAX, "box");
    s->bodies[B_BOX].pos[0] = 2.0;
    s->bodies[B_BOX].pos[2] = 0.5;
    s->world = tpTest_WorldOf(&s->mat, s->bodies, NB, s->x);
}

/* the box's x in [lo, hi] */
static tpCond *in_x(double lo, double hi, const char *label)
{
    tpCond *c = tpCreateCond(TP_COND_IN_BOX);
    c->body = B_BOX;
    c->lo[0] = lo;
    c->hi[0] = hi;
    c->lo[1] = c->lo[2] = -1e9;
    c->hi[1] = c->hi[2] = 1e9;
    if (label) {
        tpStrCopy(c->label, sizeof c->label, label);
    }
    return c;
}

#endif
