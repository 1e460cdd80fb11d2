#include "skill_world.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/mathx.h"

void sw_init(SkWorld *w, double friction)
{
    memset(w, 0, sizeof *w);
    w->mats[0] = tpDefaultMaterialDef();
    w->mats[0].friction = friction;
    w->mats[1] = tpDefaultMaterialDef();
    tpStrCopy(w->mats[1].name, TP_NAME_MAX, "robot");
    w->mats[1].friction = 0.05;
    w->scene = tpDefaultSceneDef();
    tpBodyDef g = tpDefaultBodyDef();
    tpStrCopy(g.name, TP_NAME_MAX, "ground");
    g.cls = TP_BODY_STATIC;
    g.shape = TP_SHAPE_PLANE;
    g.plane[2] = 1.0;
    sw_add(w, g);
    w->watch = -1;
}

int sw_add(SkWorld *w, tpBodyDef b)
{
    assert_true(w->nbodies < SW_MAX_BODIES);
    w->bodies[w->nbodies] = b;
    return w->nbodies++;
}

tpBodyDef sw_robot(const char *name, double x, double y)
{
    tpBodyDef b = tpDefaultBodyDef();
    tpStrCopy(b.name, TP_NAME_MAX, name);
    b.cls = TP_BODY_ACTIVE;
    b.size[0] = b.size[1] = 0.18;
    b.size[2] = 0.15;
    b.mass = 2.5;
    b.pos[0] = x;
    b.pos[1] = y;
    b.pos[2] = 0.075;
    b.max_force = 20;
    b.max_torque = 2;
    b.planar_force = true;
    b.material = 1;
    return b;
}

tpBodyDef sw_car(const char *name, double x, double y)
{
    tpBodyDef b = sw_robot(name, x, y);
    b.size[0] = 4;
    b.size[1] = 1.8;
    b.size[2] = 1.2;
    b.pos[2] = 0.6;
    b.mass = 1500;
    b.max_force = 0;
    b.max_torque = 0;
    return b;
}

tpBodyDef sw_ball(const char *name, double x, double y)
{
    tpBodyDef b = tpDefaultBodyDef();
    tpStrCopy(b.name, TP_NAME_MAX, name);
    b.cls = TP_BODY_PASSIVE;
    b.shape = TP_SHAPE_SPHERE;
    b.size[0] = SW_BALL_R;
    b.mass = 0.046;
    b.pos[0] = x;
    b.pos[1] = y;
    b.pos[2] = SW_BALL_R;
    return b;
}

tpBodyDef sw_wall(const char *name, double x, double y, double sx, double sy)
{
    tpBodyDef b = tpDefaultBodyDef();
    tpStrCopy(b.name, TP_NAME_MAX, name);
    b.cls = TP_BODY_STATIC;
    b.size[0] = sx;
    b.size[1] = sy;
    b.size[2] = 0.3;
    b.pos[0] = x;
    b.pos[1] = y;
    b.pos[2] = 0.15;
    return b;
}

tpDist sw_point2(double x, double y)
{
    tpDist d = tpDist_Const(x);
    d.dim = 2;
    d.a[1] = y;
    return d;
}

void sw_start(SkWorld *w)
{
    w->scene.nmaterials = 2;
    w->scene.materials = w->mats;
    w->scene.nbodies = w->nbodies;
    w->scene.bodies = w->bodies;
    char err[512] = "";
    w->world = tpCreateWorld(&w->scene, err, sizeof err);
    if (!w->world) {
        fail_msg("tpCreateWorld: %s", err);
    }
    w->x = calloc((size_t)tpWorld_StateCount(w->world) + 1, sizeof *w->x);
    w->action = calloc((size_t)tpWorld_ControlCount(w->world) * 6 + 1, sizeof *w->action);
    assert_non_null(w->x);
    assert_non_null(w->action);
    tpWorld_InitialState(w->world, w->x);
    w->cache = tpCreateSkillCache();
    assert_non_null(w->cache);
    tpRng_Seed(&w->rng, 7);
}

int sw_step(SkWorld *w, const tpSkillDef *sk, bool fresh)
{
    memset(w->action, 0, sizeof *w->action * (size_t)tpWorld_ControlCount(w->world) * 6);
    tpSkillCall call = {
        .world = w->world,
        .x = w->x,
        .t = w->t,
        .dt = w->scene.dt,
        .y = w->y,
        .ydim = w->ydim,
        .rng = &w->rng,
        .fresh = fresh,
        .V = w->V,
        .action = w->action,
        .overlay = w->overlay,
        .cache = w->cache,
    };
    int r = tpSkill_Run(sk, &call);
    assert_true(r >= 0);
    assert_true(tpWorld_Step(w->world, w->x, w->t, w->action, w->x));
    w->t += w->scene.dt;
    w->steps++;
    if (w->watch >= 0) {
        w->max_speed_seen = fmax(w->max_speed_seen, sw_speed(w, w->watch));
    }
    return r;
}

int sw_run(SkWorld *w, const tpSkillDef *sk, int max_steps)
{
    char err[512] = "";
    if (!tpSkill_Validate(sk, w->world, err, sizeof err)) {
        fail_msg("tpSkill_Validate: %s", err);
    }
    for (int i = 0; i < max_steps; ++i) {
        if (sw_step(w, sk, i == 0) == 0) {
            return i + 1;
        }
    }
    return max_steps + 1;
}

const tpBodyState *sw_body(const SkWorld *w, int body)
{
    int slot = tpWorld_StateSlot(w->world, body);
    assert_true(slot >= 0);
    return &w->x[slot];
}

double sw_yaw(const SkWorld *w, int body)
{
    return tpQuat_Yaw(sw_body(w, body)->quat);
}

double sw_speed(const SkWorld *w, int body)
{
    const tpBodyState *s = sw_body(w, body);
    return hypot(s->vel[0], s->vel[1]);
}

void sw_free(SkWorld *w)
{
    tpDestroySkillCache(w->cache);
    tpDestroyWorld(w->world);
    free(w->x);
    free(w->action);
    w->cache = NULL;
    w->world = NULL;
    w->x = NULL;
    w->action = NULL;
}
