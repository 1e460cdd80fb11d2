/* Jointed test scenes (tests/physics/test_joints.c, test_joint_chain.c): a Scene with joints. */
#ifndef TP_TEST_JOINT_SCENE_H
#define TP_TEST_JOINT_SCENE_H

#include "conformance.h"

#define MAX_JOINTS 40 /* a catenary chain of 32 links has 33 */

typedef struct JScene {
    Scene s;
    tpJointDef joints[MAX_JOINTS];
} JScene;

static void jInit(JScene *j, tpSolverKind solver)
{
    memset(j, 0, sizeof *j);
    sceneInit(&j->s, solver);
    j->s.def.joints = j->joints;
}

static tpJointDef *jAdd(JScene *j, tpJointKind kind, int a, int b)
{
    assert_true(j->s.def.njoints < MAX_JOINTS);
    tpJointDef *jd = &j->joints[j->s.def.njoints++];
    *jd = tpDefaultJointDef();
    jd->kind = kind;
    jd->body_a = a;
    jd->body_b = b;
    return jd;
}

static tpBodyDef *addSphere(Scene *s, const char *name, double r, double mass, double x, double y, double z)
{
    tpBodyDef *b = sceneAdd(s, name, TP_BODY_PASSIVE, TP_SHAPE_SPHERE);
    b->size[0] = r;
    b->mass = mass;
    b->pos[0] = x, b->pos[1] = y, b->pos[2] = z;
    return b;
}

#endif
