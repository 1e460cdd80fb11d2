/* A tiny physics world for unit tests of the skill primitives: a ground plane, a few bodies, and
 * a driver that calls tpSkill_Run and tpWorld_Step in turn, the way the domain problem does
 * (tactics/src/domain.c), without tactics or a planner. */
#ifndef TP_TEST_SKILL_WORLD_H
#define TP_TEST_SKILL_WORLD_H

#include <stdbool.h>

#include "tp/skills.h"

#define SW_MAX_BODIES 16
#define SW_MAX_STEPS 4000
#define SW_BALL_R                                                                                                      \
    0.0215 /* m: radius of sw_ball (a golf ball) */ /* 66.7 s at 60 Hz: longer than any skill's default timeout */

/// The test world. Zero-initialise with sw_init; owns the world, the cache and the trajectory.
typedef struct SkWorld {
    tpMaterialDef mats[2]; /* 0: ground and walls; 1: "robot" (the contacts of controlled boxes) */
    tpBodyDef bodies[SW_MAX_BODIES];
    int nbodies;
    tpSceneDef scene;        /* gravity, dt: change before sw_start */
    tpWorld *world;          /* after sw_start */
    tpSkillCache *cache;     /* the navigation skills' caches (a domain owns one) */
    tpBodyState *x;          /* current stored body states */
    double t;                /* s, time of x */
    double V[TP_SKILL_VARS]; /* the skill variables, kept between calls like a tactic's */
    double *action;          /* 6 doubles per control slot */
    tpRng rng;               /* seeded with 7 by sw_start */
    const double *y;         /* RRT sample handed to fresh calls (NULL: none) */
    int ydim;
    tpOverlaySink *overlay; /* non-NULL: handed to every call (a recording replay) */
    double max_speed_seen;  /* m/s: the fastest the `watch` body moved during sw_run */
    int watch;              /* body whose speed sw_run tracks (-1: none) */
    int steps;              /* steps taken so far */
} SkWorld;

/// A ground plane (material 0, friction `friction`) and nothing else; dt 1/60, gravity -9.81.
void sw_init(SkWorld *w, double friction);
/// Adds a body and returns its index.
int sw_add(SkWorld *w, tpBodyDef b);
/// An active planar box robot (0.18 x 0.18 x 0.15 m, 2.5 kg, 20 N, 2 N·m, material 1) at (x, y).
tpBodyDef sw_robot(const char *name, double x, double y);
/// A car for drive_track: a 4 x 1.8 x 1.2 m, 1,500 kg active box at (x, y) on the ground, its force
/// and torque left to the skill (max_force, max_torque 0), material 1.
tpBodyDef sw_car(const char *name, double x, double y);
/// A passive golf-sized ball (radius 0.0215 m, 46 g) resting on the ground at (x, y).
tpBodyDef sw_ball(const char *name, double x, double y);
/// A static wall box of footprint sx x sy (m), 0.3 m tall, centred at (x, y).
tpBodyDef sw_wall(const char *name, double x, double y, double sx, double sy);
/// A constant 2D vector distribution (a point in m, or a planar force in N).
tpDist sw_point2(double x, double y);
/// Builds the world from the bodies (fails the test on an error) and sets the initial state.
void sw_start(SkWorld *w);
/// One control + simulate step: tpSkill_Run (fresh as given), then tpWorld_Step. Returns the
/// skill's result (1 busy, 0 segment ends). Fails the test when the step is refused.
int sw_step(SkWorld *w, const tpSkillDef *sk, bool fresh);
/// Validates the skill, then runs one segment: a fresh call and steps until the skill reports
/// 0 or max_steps pass. Returns the number of steps the segment took (max_steps + 1 if it did not
/// end).
int sw_run(SkWorld *w, const tpSkillDef *sk, int max_steps);
/// The state of a moving body now.
const tpBodyState *sw_body(const SkWorld *w, int body);
/// Yaw (rad) and horizontal speed (m/s) of a moving body now.
double sw_yaw(const SkWorld *w, int body);
double sw_speed(const SkWorld *w, int body);
/// Frees what sw_start allocated.
void sw_free(SkWorld *w);

#endif
