/* The Lua layer's invariants (lua/src/lua_validate.c): a loaded script (tests/lua/scripts/ok.lua),
 * its limits and its tp.domain, and the userdata the constructors make (run in the script's own
 * state), pass their validate functions; each rule, broken once on purpose (a field set to a bad
 * value, then put back), fails with its own message -- so a rule that can never fail would show
 * here. Reads the internals (lua_internal.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "break_rule.h"
#include "lua_internal.h"
#include "tp/base.h"
#include "tp/lua.h"

static tpScript *load_ok(void)
{
    char path[1024], err[1024] = "";
    snprintf(path, sizeof path, "%s/ok.lua", TP_TEST_SCRIPTS);
    tpScript *s = tpLoadScript(path, NULL, 0, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    return s;
}

static void test_limits(void **state)
{
    (void)state;
    tpScript *s = load_ok();
    EXPECT_VALID(tplLimits_Valid, &s->limits);
    assert_true(s->limits.nfiles >= 2); /* ok.lua and lib/common.lua */
    tplLimits lim = s->limits;          /* a copy: its files are the script's, left as they are */
    lim.deadline_what = lim.load_what;  /* the copy's own buffer (the script's names the original) */
    EXPECT_VALID(tplLimits_Valid, &lim);
    BREAK_RULE(tplLimits_Valid, &lim, lim.max_bytes, 0, "limits: ");
    BREAK_RULE(tplLimits_Valid, &lim, lim.used, lim.max_bytes + 1, "bytes of Lua and");
    BREAK_RULE(tplLimits_Valid, &lim, lim.external, lim.max_bytes - lim.used + 1, "of C held, cap");
    BREAK_RULE(tplLimits_Valid, &lim, lim.tripped, 3, "limits: tripped 3");
    BREAK_TERMINATION(tplLimits_Valid, &lim, lim.msg, "limits: a message, position, path or limit name");
    BREAK_TERMINATION(tplLimits_Valid, &lim, lim.run_what, "is not terminated");
    BREAK_RULE(tplLimits_Valid, &lim, lim.tripped, TPL_TRIP_TIME, "limits: tripped 1 with no message");
    BREAK_RULE(tplLimits_Valid, &lim, lim.deadline, -1.0, "limits: deadline -1, run deadline 0, call limit 10 s");
    BREAK_RULE(tplLimits_Valid, &lim, lim.run_deadline, INFINITY, "run deadline inf");
    BREAK_RULE(tplLimits_Valid, &lim, lim.call_seconds, 0.0, "call limit 0 s");
    BREAK_RULE(tplLimits_Valid, &lim, lim.deadline_what, "elsewhere", "the deadline is named by no buffer");
    lim.deadline = 5.0;
    lim.deadline_what = lim.call_what;
    EXPECT_VALID(tplLimits_Valid, &lim);
    BREAK_RULE(tplLimits_Valid, &lim, lim.deadline_what, NULL, "limits: a deadline armed with no name");
    lim.deadline = 0.0;
    BREAK_RULE(tplLimits_Valid, &lim, lim.nfiles, (int)lim.files_cap + 1, "files read, room for");
    BREAK_RULE(tplLimits_Valid, &lim, lim.files, NULL, "files read, room for");
    tpScriptFile fl[2] = {lim.files[0], lim.files[1]};
    const unsigned char bytes[3] = {'a', 'b', 'c'};
    lim.files = fl;
    lim.nfiles = 2;
    lim.files_cap = 2;
    EXPECT_VALID(tplLimits_Valid, &lim);
    BREAK_RULE(tplLimits_Valid, &lim, fl[1].path, NULL, "limits: file 1 has no path, no bytes or no NUL");
    fl[1] = (tpScriptFile){s->limits.files[1].path, bytes, 2}; /* bytes[2] is 'c': no NUL after them */
    EXPECT_BROKEN(tplLimits_Valid, &lim, "limits: file 1 has no path, no bytes or no NUL after its 2 bytes");
    fl[1] = s->limits.files[1];
    EXPECT_VALID(tplLimits_Valid, &lim);
    BREAK_RULE(tplLimits_Valid, &lim, fl[1].path, fl[0].path, "limits: file 1 is 'ok.lua', as file 0");
    BREAK_RULE(tplLimits_Valid, &lim, lim.nembedded, 2, "limits: 2 files of a plan");
    BREAK_RULE(tplLimits_Valid, &lim, lim.embedded, fl, "limits: 0 files of a plan");
    tpDestroyScript(s);
}

static void test_script(void **state)
{
    (void)state;
    tpScript *s = load_ok();
    EXPECT_VALID(tplScript_Valid, s);
    BREAK_RULE(tplScript_Valid, s, s->L, NULL, "script: no Lua state, domain or name");
    BREAK_RULE(tplScript_Valid, s, s->domain, NULL, "script: no Lua state, domain or name");
    BREAK_RULE(tplScript_Valid, s, s->limits.path[0], 'X', "the limits name it 'X");
    BREAK_RULE(tplScript_Valid, s, s->hash[12], 'G', "(fnv1a64: and 16 hex digits)");
    BREAK_RULE(tplScript_Valid, s, s->hash[3], 'X', "hash 'fnvXa64:");
    BREAK_TERMINATION(tplScript_Valid, s, s->hash, "(fnv1a64: and 16 hex digits)");
    char array[] = "[]", object[] = "{}";
    BREAK_RULE(tplScript_Valid, s, s->params_json, array, "parameters JSON missing or not an object and an array");
    BREAK_RULE(tplScript_Valid, s, s->params_info_json, object, "parameters JSON");
    BREAK_RULE(tplScript_Valid, s, s->limits.nfiles, 0, "the files read do not start with the script");
    BREAK_RULE(tplScript_Valid, s, s->limits.deadline, 3.0, "armed (deadline 3) between callbacks");
    BREAK_RULE(tplScript_Valid, s, s->limits.tripped, 9, "limits: tripped 9"); /* through the limits */
    tpScript_SetDeadline(s, 0.0, "the test's limit");                          /* validated there too */
    EXPECT_VALID(tplScript_Valid, s);

    lua_getfield(s->L, LUA_REGISTRYINDEX, "tp.script.domain");
    tplDomain *d = luaL_checkudata(s->L, -1, TPL_DOMAIN);
    lua_pop(s->L, 1);
    EXPECT_VALID(tplDomain_Valid, d);
    BREAK_RULE(tplDomain_Valid, d, d->L, NULL, "tp.domain: no Lua state or no domain");
    BREAK_RULE(tplDomain_Valid, d, d->domain, NULL, "tp.domain: no Lua state or no domain");
    BREAK_RULE(tplDomain_Valid, d, d->fnref, LUA_NOREF, "tp.domain: registry reference 0 is -2");
    BREAK_RULE(tplDomain_Valid, d, d->liveref, 0, "tp.domain: registry reference 4 is 0");
    BREAK_RULE(tplDomain_Valid, d, d->quality_id, 0, "tp.domain: quality function 0");
    BREAK_RULE(tplDomain_Valid, d, d->solution_id, -2, "solution metric -2 (ids from 1, -1 = none)");
    BREAK_TERMINATION(tplDomain_Valid, d, d->where, "tp.domain: a call site, path or pending message");
    BREAK_TERMINATION(tplDomain_Valid, d, d->pending, "is not terminated");
    tpDestroyScript(s);
}

/* The constructors' results, made in the script's own state (left on its stack, in this order). */
static const char k_ctors[] =
    "local tp = require 'tp'\n"
    "return tp.tactic { name = 't', body = 'robot', start = 'wait', skills = {\n"
    "    tp.skill.wait { name = 'wait' }, tp.skill.kick { name = 'kick', target = 'ball' } },\n"
    "  transitions = { wait = { kick = 1 }, kick = function(s) return { wait = 1 } end } },\n"
    "  tp.within { body = 'ball', center = {1, 2}, radius = 0.1 },\n"
    "  tp.inside { body = 'ball', max = {1, 2, 3} },\n"
    "  tp.near { body = 'a', other = 'b', distance = 0.5 },\n"
    "  tp.all { tp.slower { body = 'ball', speed = 1 }, function() return true end },\n"
    "  tp.within_time { tp.moved { body = 'bar' }, from = 1, to = 2 },\n"
    "  tp.arranged { bodies = {'a', 'b'}, points = {{0, 0}, {1, 0}}, radius = 0.1 },\n"
    "  tp.distance { body = 'ball', to = {1, 2}, planar = true },\n"
    "  tp.effort { bodies = {'robot', 'arm'} },\n"
    "  tp.skill.kick { name = 'k', target = 'ball', ground = 'green', arrive_speed = 0.2,\n"
    "                  point = {1, 0} },\n"
    "  tp.skill.motor { name = 'm', joint = 'hinge', speed = 1 },\n"
    "  tp.box { name = 'crate', size = {1, 1, 1}, mass = 2, material = 'wood' },\n"
    "  tp.plane { name = 'floor' },\n"
    "  tp.joint { kind = 'hinge', bodies = {'a', 'b'}, anchor = {0, 0, 0}, axis = {0, 0, 1} },\n"
    "  tp.contact { 'green', 'wall', restitution = 0.8 }\n";
enum {
    U_TACTIC = 1,
    U_WITHIN,
    U_INSIDE,
    U_NEAR,
    U_ALL,
    U_WINDOW,
    U_ARRANGED,
    U_DISTANCE,
    U_EFFORT,
    U_KICK,
    U_MOTOR,
    U_BOX,
    U_PLANE,
    U_JOINT,
    U_CONTACT,
    U_COUNT = U_CONTACT
};

static tpScript *g_script;

static void *ud(int i, const char *tname)
{
    return luaL_checkudata(g_script->L, i, tname);
}

static int setup_ctors(void **state)
{
    (void)state;
    g_script = load_ok();
    lua_State *L = g_script->L;
    lua_settop(L, 0);
    if (luaL_loadbufferx(L, k_ctors, sizeof k_ctors - 1, "=ctors", "t") != LUA_OK ||
        lua_pcall(L, 0, LUA_MULTRET, 0) != LUA_OK) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        return -1;
    }
    return lua_gettop(L) == U_COUNT ? 0 : -1;
}

static int teardown_ctors(void **state)
{
    (void)state;
    lua_settop(g_script->L, 0);
    tpDestroyScript(g_script);
    return 0;
}

static void test_tactic(void **state)
{
    (void)state;
    tplTactic *t = ud(U_TACTIC, TPL_TACTIC);
    EXPECT_VALID(tplTactic_Valid, t);
    BREAK_RULE(tplTactic_Valid, t, t->name[0], '\0', "tp.tactic: name empty or a name not terminated");
    BREAK_TERMINATION(tplTactic_Valid, t, t->body, "tp.tactic: name empty or a name not terminated");
    BREAK_RULE(tplTactic_Valid, t, t->nskills, 0, "tp.tactic 't': start 0 of 0 skills");
    BREAK_RULE(tplTactic_Valid, t, t->initial, 2, "tp.tactic 't': start 2 of 2 skills");
    BREAK_RULE(tplTactic_Valid, t, t->initial, -1, "start -1 of 2");
    BREAK_RULE(tplTactic_Valid, t, t->pi, NULL, "tp.tactic 't': Π and its dynamic rows are not one block");
    BREAK_RULE(tplTactic_Valid, t, t->dynamic, t->dynamic + 1, "are not one block");
    assert_true(t->dynamic[1] && !t->dynamic[0]);
    BREAK_RULE(tplTactic_Valid, t, t->pi[1], -0.5, "tp.tactic 't': Π[0][1] = -0.5 (finite, >= 0)");
    BREAK_RULE(tplTactic_Valid, t, t->pi[0], NAN, "Π[0][0] = nan");
    BREAK_RULE(tplTactic_Valid, t, t->pi[2], 0.5, "tp.tactic 't': row 1 is a function and holds Π[1][0] = 0.5");
}

static void test_conditions(void **state)
{
    (void)state;
    tplCond *w = ud(U_WITHIN, TPL_COND), *box = ud(U_INSIDE, TPL_COND), *near = ud(U_NEAR, TPL_COND);
    tplCond *all = ud(U_ALL, TPL_COND), *win = ud(U_WINDOW, TPL_COND), *arr = ud(U_ARRANGED, TPL_COND);
    tplCond *const every[] = {w, box, near, all, win, arr};
    for (int i = 0; i < 6; i++)
        EXPECT_VALID(tplCond_Valid, every[i]);
    BREAK_RULE(tplCond_Valid, w, w->kind, TP_COND_TRUE, "condition: kind 0");
    BREAK_RULE(tplCond_Valid, w, w->kind, TP_COND_CALLBACK, "condition: kind 12");
    BREAK_RULE(tplCond_Valid, w, w->kind, (tpCondKind)TP_COND_KIND_COUNT, "condition: kind");
    BREAK_RULE(tplCond_Valid, w, w->depth, 2, "condition of kind 1: depth 2 (leaves 1, groups 2..64)");
    BREAK_RULE(tplCond_Valid, all, all->depth, 1, "condition of kind 9: depth 1");
    BREAK_RULE(tplCond_Valid, all, all->depth, TPL_COND_MAX_DEPTH + 1, "depth 65");
    BREAK_RULE(tplCond_Valid, w, w->body[0], '\0', "condition of kind 1: its body or other body is missing");
    BREAK_TERMINATION(tplCond_Valid, near, near->other, "condition of kind 6: its body or other body");
    BREAK_RULE(tplCond_Valid, near, near->other[0], '\0', "condition of kind 6: its body or other body is missing");
    BREAK_RULE(tplCond_Valid, w, w->center[1], NAN, "condition on 'ball': centre, radius 0.1 or value 0");
    BREAK_RULE(tplCond_Valid, w, w->radius, -1.0, "radius -1");
    BREAK_RULE(tplCond_Valid, near, near->value, NAN, "condition on 'a': centre, radius 0 or value nan");
    BREAK_RULE(tplCond_Valid, box, box->lo[2], 4.0, "condition on 'ball': box axis 2 from 4 to 3");
    BREAK_RULE(tplCond_Valid, box, box->hi[0], NAN, "box axis 0 from -inf to nan");
    BREAK_RULE(tplCond_Valid, win, win->t0, -1.0, "condition of kind 21: time window -1..2 s");
    BREAK_RULE(tplCond_Valid, win, win->t0, 3.0, "time window 3..2 s");
    BREAK_RULE(tplCond_Valid, win, win->t1, INFINITY, "time window 1..inf s");
    BREAK_RULE(tplCond_Valid, arr, arr->fraction, 0.0, "condition of kind 13: fraction 0, dimension 2");
    BREAK_RULE(tplCond_Valid, arr, arr->dim, 4, "fraction 1, dimension 4");
    BREAK_RULE(tplCond_Valid, w, w->fraction, 0.5, "condition of kind 1: fraction 0.5, dimension 0");
    BREAK_RULE(tplCond_Valid, w, w->dim, 2, "condition of kind 1: fraction 0, dimension 2");
}

static void test_metrics(void **state)
{
    (void)state;
    tplMetric *d = ud(U_DISTANCE, TPL_METRIC), *e = ud(U_EFFORT, TPL_METRIC);
    EXPECT_VALID(tplMetric_Valid, d);
    EXPECT_VALID(tplMetric_Valid, e);
    BREAK_RULE(tplMetric_Valid, d, d->kind, TP_METRIC_DEFAULT, "metric: kind 0");
    BREAK_RULE(tplMetric_Valid, d, d->kind, TP_METRIC_CALLBACK, "metric: kind 4");
    BREAK_RULE(tplMetric_Valid, d, d->kind, (tpMetricKind)(TP_METRIC_PEAK_FORCE + 1), "metric: kind 7");
    BREAK_RULE(tplMetric_Valid, d, d->body[0], '\0', "metric of kind 1: body missing or not terminated");
    BREAK_TERMINATION(tplMetric_Valid, d, d->body, "metric of kind 1: body missing or not terminated");
    BREAK_RULE(tplMetric_Valid, d, d->point[2], NAN, "or a point not finite");
    BREAK_RULE(tplMetric_Valid, e, e->nbodies, 17, "metric of kind 3: 17 bodies (at most 16)");
    BREAK_RULE(tplMetric_Valid, e, e->nbodies, -1, "metric of kind 3: -1 bodies");
    BREAK_RULE(tplMetric_Valid, e, e->bodies[1][0], '\0', "metric of kind 3: body 1 empty or not terminated");
    BREAK_TERMINATION(tplMetric_Valid, e, e->bodies[0], "metric of kind 3: body 0 empty or not terminated");
}

static void test_skills(void **state)
{
    (void)state;
    tplSkill *k = ud(U_KICK, TPL_SKILL), *m = ud(U_MOTOR, TPL_SKILL);
    EXPECT_VALID(tplSkill_Valid, k);
    EXPECT_VALID(tplSkill_Valid, m);
    assert_string_equal(k->ground, "green");
    assert_string_equal(m->joint, "hinge");
    BREAK_TERMINATION(tplSkill_Valid, k, k->target, "tp.skill: a body, target, ground or joint name");
    BREAK_TERMINATION(tplSkill_Valid, m, m->joint, "is not terminated");
    BREAK_RULE(tplSkill_Valid, k, k->def.gains.kp, -1.0, "tp.skill: skill 'k': gain 2 is -1");
    BREAK_RULE(tplSkill_Valid, k, k->def.kick.point.dim, 1, "tp.skill: skill 'k': point: distribution kind 1");
    BREAK_RULE(tplSkill_Valid, k, k->ground_offset, 0, "tp.skill 'k': body field 'green' at byte 0");
    BREAK_RULE(tplSkill_Valid, k, k->ground_offset, offsetof(tpSkillDef, kick.approach), "not one of its kind's");
    BREAK_RULE(tplSkill_Valid, m, m->ground_offset, offsetof(tpSkillDef, motor.joint), "tp.skill 'm': body field ''");
    BREAK_RULE(tplSkill_Valid, m, m->joint[0], '\0', "tp.skill 'm': joint field '' at byte");
    BREAK_RULE(tplSkill_Valid, k, k->joint_offset, offsetof(tpSkillDef, kick.ground), "tp.skill 'k': joint field ''");
}

static void test_bodies(void **state)
{
    (void)state;
    tplBody *b = ud(U_BOX, TPL_BODY), *p = ud(U_PLANE, TPL_BODY);
    EXPECT_VALID(tplBody_Valid, b);
    EXPECT_VALID(tplBody_Valid, p);
    BREAK_RULE(tplBody_Valid, b, b->def.name[0], '\0', "body: name empty, a name not terminated or no constructor");
    BREAK_TERMINATION(tplBody_Valid, b, b->material, "body: name empty, a name not terminated");
    BREAK_RULE(tplBody_Valid, b, b->ctor, NULL, "or no constructor");
    BREAK_RULE(tplBody_Valid, b, b->ctor, "box", "or no constructor");
    BREAK_RULE(tplBody_Valid, b, b->def.shape, (tpShapeKind)9, "tp.box 'crate': shape 9, class 1, marker 0");
    BREAK_RULE(tplBody_Valid, b, b->def.cls, (tpBodyClass)7, "tp.box 'crate': shape 0, class 7");
    BREAK_RULE(tplBody_Valid, b, b->def.marker, true, "tp.box 'crate': shape 0, class 1, marker 1");
    BREAK_RULE(tplBody_Valid, p, p->def.cls, TP_BODY_PASSIVE, "tp.plane 'floor': shape 4, class 1");
    BREAK_RULE(tplBody_Valid, b, b->def.mass, -1.0, "tp.box 'crate': mass, force, torque or damping 0 is -1");
    BREAK_RULE(tplBody_Valid, b, b->def.max_force, INFINITY, "mass, force, torque or damping 1 is inf");
    BREAK_RULE(tplBody_Valid, b, b->def.angular_damping, NAN, "damping 4 is nan");
    BREAK_RULE(tplBody_Valid, b, b->def.pos[1], NAN, "tp.box 'crate': position, velocity or orientation not finite");
    BREAK_RULE(tplBody_Valid, b, b->def.quat[0], 0.0, "(or a zero quaternion)");
    BREAK_RULE(tplBody_Valid, b, b->def.angvel[2], INFINITY, "position, velocity or orientation not finite");
}

static void test_joint_contact(void **state)
{
    (void)state;
    tplJoint *j = ud(U_JOINT, TPL_JOINT);
    tplContact *c = ud(U_CONTACT, TPL_CONTACT);
    EXPECT_VALID(tplJoint_Valid, j);
    EXPECT_VALID(tplContact_Valid, c);
    BREAK_RULE(tplJoint_Valid, j, j->a[0], '\0', "tp.joint: bodies '' and 'b'");
    BREAK_RULE(tplJoint_Valid, j, j->b[0], 'a', "tp.joint: bodies 'a' and 'a'");
    char world[] = "world";
    memcpy(j->a, world, sizeof world);
    EXPECT_BROKEN(tplJoint_Valid, j, "tp.joint: bodies 'world' and 'b' (a body, then another or the world)");
    j->a[0] = 'a';
    j->a[1] = '\0';
    EXPECT_VALID(tplJoint_Valid, j);
    BREAK_TERMINATION(tplJoint_Valid, j, j->b, "tp.joint: bodies");
    BREAK_RULE(tplJoint_Valid, j, j->def.kind, (tpJointKind)9, "tp.joint '': kind 9 with a second anchor 0");
    BREAK_RULE(tplJoint_Valid, j, j->has_anchor2, true, "tp.joint '': kind 0 with a second anchor 1");
    BREAK_RULE(tplJoint_Valid, j, j->def.axes[1].driven, true, "tp.joint on 'a': a driven motor and no name");
    BREAK_TERMINATION(tplContact_Valid, c, c->a, "tp.contact: a material name is not terminated");
    BREAK_RULE(tplContact_Valid, c, c->friction, -1.0, "tp.contact 'green'/'wall': coefficient 0 is -1");
    BREAK_RULE(tplContact_Valid, c, c->bounce_velocity, INFINITY, "coefficient 3 is inf (finite, >= 0, or NAN)");
    BREAK_RULE(tplContact_Valid, c, c->restitution, 1.5, "tp.contact 'green'/'wall': restitution 1.5 above 1");
}

int main(void)
{
    const struct CMUnitTest plain[] = {cmocka_unit_test(test_limits), cmocka_unit_test(test_script)};
    const struct CMUnitTest ctors[] = {
        cmocka_unit_test(test_tactic), cmocka_unit_test(test_conditions), cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_skills), cmocka_unit_test(test_bodies),     cmocka_unit_test(test_joint_contact),
    };
    int failed = cmocka_run_group_tests_name("script", plain, NULL, NULL);
    return failed + cmocka_run_group_tests_name("constructors", ctors, setup_ctors, teardown_ctors);
}
