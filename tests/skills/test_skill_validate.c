/* The skills' invariants (skills/src/skill_validate.c): the table of kinds, a definition of every
 * kind as tpDefaultSkillDef makes it, one call's variables V, the skill cache and a collected clip
 * search tree pass their validate functions, and each rule, broken once on purpose (on copies of
 * the rows, or a field set to a bad value and then put back), fails with its own message -- so a
 * rule that can never fail would show here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "break_rule.h"
#include "nav_cache.h"
#include "nav_overlay.h"
#include "skill_cache.h"
#include "skill_internal.h"
#include "skill_kind.h"
#include "skill_validate.h"
#include "skill_world.h"
#include "tp/base.h"
#include "tp/skills.h"

/* Mutable copies of the rows (g_rows) and the table of pointers to them (g_table). */
static tpSkillKindInfo g_rows[TP_SKILL_KIND_COUNT];
static const tpSkillKindInfo *g_table[TP_SKILL_KIND_COUNT];

static void copy_table(void)
{
    const tpSkillKindInfo *const *real = tpSkillKind_Table();
    for (int i = 0; i < TP_SKILL_KIND_COUNT; i++) {
        g_rows[i] = *real[i];
        g_table[i] = &g_rows[i];
    }
}

/* A copy of a row's typed fields (with the end marker) into out; the count. */
static int copy_fields(const tpSkillKindInfo *k, tpSkillField *out, int cap)
{
    int n = 0;
    while (k->fields[n].name) {
        assert_true(n + 1 < cap);
        out[n] = k->fields[n];
        n++;
    }
    out[n] = k->fields[n];
    return n;
}

static int field_index(const tpSkillField *f, const char *name)
{
    for (int i = 0; f[i].name; i++)
        if (strcmp(f[i].name, name) == 0)
            return i;
    fail_msg("no field '%s'", name);
    return -1;
}

/* A constant 2D point distribution (m). */
static tpDist point2(double x, double y)
{
    tpDist d = tpDist_Const(x);
    d.dim = 2;
    d.a[1] = y;
    return d;
}

static void test_kinds_table(void **state)
{
    (void)state;
    copy_table();
    EXPECT_VALID(tpSkillKinds_Valid, g_table);
    tpSkillKindInfo *kick = &g_rows[TP_SKILL_KICK], *push = &g_rows[TP_SKILL_PUSH];
    BREAK_RULE(tpSkillKinds_Valid, g_table, kick->name, "", "skill kind 3: no row, no name or an empty alias");
    BREAK_RULE(tpSkillKinds_Valid, g_table, g_table[TP_SKILL_KICK], NULL, "skill kind 3: no row");
    BREAK_RULE(tpSkillKinds_Valid, g_table, push->alias, "kick", "skill kind 'push': its name or alias is kind 3's");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kick->run, NULL, "skill kind 'kick': no run function");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kick->vars, 0, "skill kind 'kick': 0 variables (1..16");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kick->vars, TP_SKILL_VARS + 1, "17 variables");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kick->timeout, NAN, "skill kind 'kick': default timeout nan s");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kick->accepted, NULL, "skill kind 'kick': no accepted keys");
    static const char *const twice[] = {"name", "body", "name", NULL}, *const nameless[] = {"body", NULL};
    BREAK_RULE(tpSkillKinds_Valid, g_table, kick->accepted, twice, "accepted key 2 ('name') is empty, repeated");
    BREAK_RULE(tpSkillKinds_Valid, g_table, g_rows[TP_SKILL_CUSTOM].accepted, nameless,
               "skill kind 'custom': 'name' is not among its accepted keys");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kick->fields, NULL, "skill kind 'kick': no typed fields list");

    tpSkillField kf[32];
    copy_fields(kick, kf, 32);
    kick->fields = kf;
    EXPECT_VALID(tpSkillKinds_Valid, g_table);
    const int ground = field_index(kf, "ground");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kf[0].name, "bogus", "field 'bogus' is not among its accepted keys");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kf[1].name, "point", "field 'point' is field 0's too");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kf[0].type, (tpSkillFieldType)99, "field 'point' of type 99");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kf[0].offset, 0, "field 'point' at byte 0, outside the kind's member");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kf[0].offset, sizeof(tpSkillDef), "outside the kind's member");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kf[ground].offset, kf[ground].offset + 2, "field 'ground' at byte");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kf[0].dmin, 0, "field 'point' of dimensions 0..3");
    BREAK_RULE(tpSkillKinds_Valid, g_table, kf[ground].dmax, 1, "field 'ground' of dimensions 0..1");

    tpSkillKindInfo *motor = &g_rows[TP_SKILL_MOTOR];
    tpSkillField mf[32];
    copy_fields(motor, mf, 32);
    motor->fields = mf;
    const int range = field_index(mf, "range");
    BREAK_RULE(tpSkillKinds_Valid, g_table, mf[range - 1].offset, offsetof(tpSkillDef, motor.duration),
               "skill kind 'motor': range 'range' does not follow the distribution it sets");
    /* the real table, as skills.c hands it in */
    EXPECT_VALID(tpSkillKinds_Valid, tpSkillKind_Table());
}

static void test_skill_def(void **state)
{
    (void)state;
    for (int k = 0; k < TP_SKILL_KIND_COUNT; k++) {
        tpSkillDef d = tpDefaultSkillDef((tpSkillKind)k);
        EXPECT_VALID(tpSkillDef_Valid, &d);
    }
    tpSkillDef d = tpDefaultSkillDef(TP_SKILL_KICK);
    d.kick.point = point2(1.0, 2.0);
    d.kick.follow = true;
    d.kick.ground = 0;
    EXPECT_VALID(tpSkillDef_Valid, &d);
    BREAK_RULE(tpSkillDef_Valid, &d, d.kind, TP_SKILL_KIND_COUNT, "skill def: kind 21");
    BREAK_RULE(tpSkillDef_Valid, &d, d.kind, (tpSkillKind)-1, "skill def: kind -1");
    BREAK_TERMINATION(tpSkillDef_Valid, &d, d.name, "skill def (kick): name empty or not terminated");
    BREAK_RULE(tpSkillDef_Valid, &d, d.name[0], '\0', "skill def (kick): name empty");
    BREAK_RULE(tpSkillDef_Valid, &d, d.frame, (tpFrame)7, "skill 'kick': frame 7, toward 0");
    BREAK_RULE(tpSkillDef_Valid, &d, d.has_toward, true, "skill 'kick': frame 0, toward 1");
    d.frame = TP_FRAME_TARGET;
    d.has_toward = true;
    EXPECT_VALID(tpSkillDef_Valid, &d);
    BREAK_RULE(tpSkillDef_Valid, &d, d.toward[1], INFINITY, "skill 'kick': frame 1, toward 1");
    BREAK_RULE(tpSkillDef_Valid, &d, d.body, -2, "skill 'kick': body -2, target -1");
    BREAK_RULE(tpSkillDef_Valid, &d, d.target, -5, "skill 'kick': body -1, target -5");
    BREAK_RULE(tpSkillDef_Valid, &d, d.gains.kp, -1.0, "skill 'kick': gain 2 is -1 (finite, >= 0)");
    BREAK_RULE(tpSkillDef_Valid, &d, d.gains.timeout, NAN, "skill 'kick': gain 8 is nan");
    BREAK_RULE(tpSkillDef_Valid, &d, d.kick.point, tpDist_Const(1.0),
               "skill 'kick': point: distribution kind 1 of dimension 1 (2..3)");
    BREAK_RULE(tpSkillDef_Valid, &d, d.kick.speed.kind, (tpDistKind)42,
               "skill 'kick': speed: distribution kind 42 of dimension 0 (1..1)");
    BREAK_RULE(tpSkillDef_Valid, &d, d.kick.approach, -0.1, "skill 'kick': approach = -0.1 (finite, >= 0)");
    BREAK_RULE(tpSkillDef_Valid, &d, d.kick.transfer, INFINITY, "skill 'kick': transfer = inf");
    BREAK_RULE(tpSkillDef_Valid, &d, d.kick.ground, -3, "skill 'kick': ground index -3 (-1 = none)");
    {
        const unsigned char two = 2;
        memcpy(&d.kick.follow, &two, 1); /* a bool holding 2: what a bad cast or memcpy leaves */
        EXPECT_BROKEN(tpSkillDef_Valid, &d, "skill 'kick': follow holds byte 2, not a bool");
        d.kick.follow = true;
        EXPECT_VALID(tpSkillDef_Valid, &d);
    }
    tpSkillDef w = tpDefaultSkillDef(TP_SKILL_WAIT);
    w.wait.duration = tpDist_Uniform(0.0, 2.0);
    EXPECT_VALID(tpSkillDef_Valid, &w);
    BREAK_RULE(tpSkillDef_Valid, &w, w.wait.duration.a[0], -0.5,
               "skill 'wait': duration duration of kind 2, dimension 1, from -0.5 s");
    BREAK_RULE(tpSkillDef_Valid, &w, w.wait.duration.dim, 2, "skill 'wait': duration duration of kind 2, dimension 2");
    tpSkillDef m = tpDefaultSkillDef(TP_SKILL_MOTOR);
    BREAK_RULE(tpSkillDef_Valid, &m, m.motor.joint, -2, "skill 'motor': joint index -2");
}

static void test_skill_vars(void **state)
{
    (void)state;
    const tpSkillKindInfo *const *rows = tpSkillKind_Table();
    double V[TP_SKILL_VARS] = {0};
    V[TP_V_START] = 1.0;
    V[TP_V_INTEGRAL_Y] = 0.25; /* kick keeps all 16 */
    tpSkillVars v = {rows[TP_SKILL_KICK], V, 2.0};
    EXPECT_VALID(tpSkillVars_Valid, &v);
    BREAK_RULE(tpSkillVars_Valid, &v, V[TP_V_START], 3.0, "skill kick: V start time 3 s, the call's time 2 s");
    BREAK_RULE(tpSkillVars_Valid, &v, V[TP_V_START], NAN, "skill kick: V start time nan s");
    V[TP_V_INTEGRAL_Y] = 0.0;
    v.kind = rows[TP_SKILL_MOTOR];
    EXPECT_VALID(tpSkillVars_Valid, &v);
    BREAK_RULE(tpSkillVars_Valid, &v, V[5], 1.0, "skill motor: V[5] = 1, past its 4 stored variables");
}

static void test_skill_cache(void **state)
{
    (void)state;
    tpSkillCache *c = tpCreateSkillCache();
    assert_non_null(c);
    EXPECT_VALID(tpSkillCache_Valid, c);
    int world_stand_in = 0; /* the memo compares world addresses only */
    const tpWorld *world = (const tpWorld *)&world_stand_in;
    StaticMemo *m = &c->statics[0];
    *m = (StaticMemo){world, -1, 0.0, 1.0, 7, {-1.0, -2.0}, {1.0, 2.0}};
    c->statics[1] = (StaticMemo){world, 3, 0.0, 1.0, 9, {INFINITY, INFINITY}, {-INFINITY, -INFINITY}};
    c->next_static = 2;
    EXPECT_VALID(tpSkillCache_Valid, c);
    BREAK_RULE(tpSkillCache_Valid, c, c->search_s, -1.0, "skill cache: search time -1 s");
    BREAK_RULE(tpSkillCache_Valid, c, c->next_static, NAV_STATIC_MEMO, "skill cache: next entries 8 of 8, 0 of 8");
    BREAK_RULE(tpSkillCache_Valid, c, c->next_static_grown, -1, "skill cache: next entries 2 of 8, -1 of 8");
    BREAK_RULE(tpSkillCache_Valid, c, m->self, -2, "skill cache: statics 0: self -2, band 0..1 m");
    BREAK_RULE(tpSkillCache_Valid, c, m->z_min, 2.0, "skill cache: statics 0: self -1, band 2..1 m");
    BREAK_RULE(tpSkillCache_Valid, c, m->lo[1], NAN, "skill cache: statics 0: bounds -1..1 x nan..2 m");
    BREAK_RULE(tpSkillCache_Valid, c, m->hi[0], -3.0, "skill cache: statics 0: bounds -1..-3");
    BREAK_RULE(tpSkillCache_Valid, c, c->statics[1].lo[0], 0.0, "skill cache: statics 1: bounds 0..-inf");
    BREAK_RULE(tpSkillCache_Valid, c, c->statics[1].self, -1,
               "skill cache: statics 1 has the key of entry 0 (one would never be found)");
    int grid_stand_in = 0;
    BREAK_RULE(tpSkillCache_Valid, c, c->statics_grown[2].grid, (tpNavGrid *)&grid_stand_in,
               "skill cache: grown grid 2: no world or self 0");
    c->statics_grown[2].world = world;
    c->statics_grown[2].grid = (tpNavGrid *)&grid_stand_in;
    EXPECT_VALID(tpSkillCache_Valid, c);
    c->statics_grown[2].grid = NULL;
    BREAK_RULE(tpSkillCache_Valid, c, c->kinds[TP_SKILL_RIDE].p, (void *)&grid_stand_in,
               "skill cache: kind 17's slot holds a cache and no destructor");
    c->statics_grown[2].world = NULL;
    tpDestroySkillCache(c);
}

static void test_overlay_tree(void **state)
{
    (void)state;
    tpNavOverlayTree t;
    memset(&t, 0, sizeof t);
    EXPECT_VALID(tpNavOverlayTree_Valid, &t);
    const double pose[3][3] = {{0, 0, 0}, {0.5, 0, 0}, {1.0, 0.2, 0}};
    const int parent[3] = {-1, 0, 1};
    for (int i = 0; i < 3; i++)
        tpNavOverlay_TreeNode(&t, i, parent[i], 0, pose[i]);
    assert_int_equal(t.n, 3);
    assert_false(t.failed);
    EXPECT_VALID(tpNavOverlayTree_Valid, &t);
    BREAK_RULE(tpNavOverlayTree_Valid, &t, t.n, (int)t.cap + 1, "overlay tree: ");
    BREAK_RULE(tpNavOverlayTree_Valid, &t, t.n, -1, "overlay tree: -1 nodes");
    BREAK_RULE(tpNavOverlayTree_Valid, &t, t.points, NULL, "and no arrays");
    BREAK_RULE(tpNavOverlayTree_Valid, &t, t.parent[2], 2, "overlay tree: node 2's parent is 2 (an earlier node");
    BREAK_RULE(tpNavOverlayTree_Valid, &t, t.parent[0], -2, "overlay tree: node 0's parent is -2");
    BREAK_RULE(tpNavOverlayTree_Valid, &t, t.points[3], INFINITY, "overlay tree: node 1 is not finite");
    t.parent[2] = 7;
    t.failed = true; /* a failed tree is dropped whole: nothing of it is checked */
    EXPECT_VALID(tpNavOverlayTree_Valid, &t);
    free(t.points);
    free(t.parent);
}

/* sw_step with a control step id (the movers of follow_field are bucketed only with one). */
static void step_id(SkWorld *w, const tpSkillDef *sk, bool fresh)
{
    memset(w->action, 0, sizeof *w->action * (size_t)tpWorld_ControlCount(w->world) * 6);
    tpSkillCall call = {.world = w->world,
                        .x = w->x,
                        .t = w->t,
                        .dt = w->scene.dt,
                        .rng = &w->rng,
                        .fresh = fresh,
                        .V = w->V,
                        .action = w->action,
                        .cache = w->cache,
                        .step = (uint64_t)w->steps + 1};
    assert_true(tpSkill_Run(sk, &call) >= 0);
    assert_true(tpWorld_Step(w->world, w->x, w->t, w->action, w->x));
    w->t += w->scene.dt;
    w->steps++;
}

static NavCache *nav_cache_of(const SkWorld *w)
{
    NavCache *nc = w->cache->kinds[TP_SKILL_NAV_TO].p;
    assert_non_null(nc);
    return nc;
}

/* nav_to and follow_field around a wall, beside another robot: the family's grids, paths, field
 * and moving bodies. */
static void test_nav_cache(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.3);
    const int robot = sw_add(&w, sw_robot("robot", -1, 0));
    sw_add(&w, sw_robot("other", -0.5, 0.6));
    sw_add(&w, sw_wall("wall", 0, 0, 0.1, 1.2));
    sw_add(&w, sw_wall("post_a", -2.5, -2.0, 0.1, 0.1)); /* so that the grids reach the robot */
    sw_add(&w, sw_wall("post_b", 2.5, 2.0, 0.1, 0.1));
    sw_start(&w);
    tpSkillDef nav = tpDefaultSkillDef(TP_SKILL_NAV_TO), field = tpDefaultSkillDef(TP_SKILL_FOLLOW_FIELD);
    nav.body = field.body = robot;
    nav.nav.point = field.nav.point = sw_point2(1.0, 0.0);
    for (int i = 0; i < 3; i++)
        step_id(&w, &nav, i == 0);
    for (int i = 0; i < 3; i++)
        step_id(&w, &field, i == 0);
    NavCache *nc = nav_cache_of(&w);
    EXPECT_VALID(tpNavCache_Valid, nc);
    NavGridEntry *g = NULL, *empty = NULL;
    for (int k = 0; k < NAV_GRID_CACHE; k++) {
        if (nc->grids[k].grid && nc->grids[k].paths[0].points && !g)
            g = &nc->grids[k];
        if (!nc->grids[k].grid && !empty)
            empty = &nc->grids[k];
    }
    assert_non_null(g);
    assert_non_null(empty);
    NavPathEntry *p = &g->paths[0];
    assert_true(p->npoints > 0);
    BREAK_RULE(tpNavCache_Valid, nc, nc->next_grid, NAV_GRID_CACHE, "nav cache: next grid 4 of 4");
    BREAK_RULE(tpNavCache_Valid, nc, g->params[0], 0.0, "cell 0 m, radius");
    BREAK_RULE(tpNavCache_Valid, nc, g->params[2], g->params[3] + 1.0, "m, band");
    BREAK_RULE(tpNavCache_Valid, nc, g->next_path, NAV_PATH_CACHE, "next path 64, next field");
    BREAK_RULE(tpNavCache_Valid, nc, g->next_field, -1, "next field -1");
    BREAK_RULE(tpNavCache_Valid, nc, p->npoints, -1, "path 0 has -1 points");
    BREAK_RULE(tpNavCache_Valid, nc, p->si, -1, "path 0 from cell (-1, ");
    BREAK_RULE(tpNavCache_Valid, nc, p->gj, 1 << 20, "), outside the grid");
    BREAK_RULE(tpNavCache_Valid, nc, p->points[1], NAN, "path 0: point 0 is not finite");
    double marker[2] = {0, 0};
    BREAK_RULE(tpNavCache_Valid, nc, empty->paths[3].points, marker, "is empty and holds path 3");
    NavFieldEntry *f = NULL;
    for (int k = 0; k < NAV_GRID_CACHE && !f; k++)
        for (int q = 0; q < NAV_FIELD_CACHE && !f; q++)
            if (nc->grids[k].fields[q].field)
                f = &nc->grids[k].fields[q];
    assert_non_null(f);
    BREAK_RULE(tpNavCache_Valid, nc, f->gi, -1, "field 0 toward cell (-1, ");
    assert_non_null(nc->navto.world);
    BREAK_RULE(tpNavCache_Valid, nc, nc->navto.pe, g->paths + NAV_PATH_CACHE,
               "nav cache: nav_to's last lookup points outside the grids and their paths");
    BREAK_RULE(tpNavCache_Valid, nc, nc->navto.ge, nc->grids + NAV_GRID_CACHE, "nav_to's last lookup");

    MoverMemo *m = &nc->movers;
    assert_int_equal(m->count, 2);
    assert_true(m->step != 0);
    EXPECT_VALID(tpNavMovers_Valid, m);
    BREAK_RULE(tpNavCache_Valid, nc, m->body[1], m->body[0], "nav cache: movers: mover 1 is body 1 (slot");
    BREAK_RULE(tpNavMovers_Valid, m, m->slot[0], -2, "mover 0 is body 1 (slot -2");
    BREAK_RULE(tpNavMovers_Valid, m, m->radius[1], -1.0, "radius -1 m), not in index order");
    BREAK_RULE(tpNavMovers_Valid, m, m->max_radius, m->max_radius + 1.0, "nav cache: movers: largest radius");
    BREAK_RULE(tpNavMovers_Valid, m, m->cand, NULL, "nav cache: movers: 2 of them, or an array missing");
    BREAK_RULE(tpNavMovers_Valid, m, m->nu, 65, "nav cache: movers: 65 x 1 buckets");
    BREAK_RULE(tpNavMovers_Valid, m, m->side, 1.0, "buckets of 1 m");
    BREAK_RULE(tpNavMovers_Valid, m, m->start[0], 1, "buckets of 2 m holding");
    BREAK_RULE(tpNavMovers_Valid, m, m->nloose, 1, "and 1 loose of 2");
    assert_int_equal(m->nu * m->nv, 1); /* both within 2 m: one bucket */
    BREAK_RULE(tpNavMovers_Valid, m, m->items[0], 1, "bucket 0 lists mover 1 out of order or not its own");
    BREAK_RULE(tpNavMovers_Valid, m, m->pos[2], INFINITY, "bucket 0 lists mover 1");
    /* a mover listed loose while its position is finite */
    m->start[1] = 1;
    m->nloose = 1;
    m->loose[0] = 1;
    EXPECT_BROKEN(tpNavMovers_Valid, m, "nav cache: movers: loose mover 1 has a finite position");
    m->start[1] = 2;
    m->nloose = 0;
    EXPECT_VALID(tpNavCache_Valid, nc);
    sw_free(&w);
}

/* drive_track: the track's walls and to-go fields. */
static void test_nav_track(void **state)
{
    (void)state;
    SkWorld w;
    sw_init(&w, 0.8);
    tpBodyDef car = sw_car("car", 0, 0);
    const int body = sw_add(&w, car);
    sw_add(&w, sw_wall("far", 40, 30, 1, 1));
    sw_start(&w);
    tpSkillDef sk = tpDefaultSkillDef(TP_SKILL_DRIVE_TRACK);
    sk.body = body;
    sk.track.point = sw_point2(30.0, 8.0);
    for (int i = 0; i < 2; i++)
        step_id(&w, &sk, i == 0);
    NavCache *nc = nav_cache_of(&w);
    TrackCache *t = &nc->track;
    EXPECT_VALID(tpNavCache_Valid, nc);
    assert_true(t->nwalls > 0);
    BREAK_RULE(tpNavCache_Valid, nc, t->nwalls, TRACK_MAX_WALLS + 1, "nav cache: track: 513 walls (at most 512)");
    BREAK_RULE(tpNavCache_Valid, nc, t->next_togo, TRACK_TOGO_CACHE, "next to-go 8");
    BREAK_RULE(tpNavCache_Valid, nc, t->path_cap, -1, "-1 path samples");
    BREAK_RULE(tpNavCache_Valid, nc, t->walls[t->nwalls - 1][3], NAN, "nav cache: track: wall");
    int q = 0;
    while (q < TRACK_TOGO_CACHE && !t->togo[q])
        q++;
    tpNavToGo *const keep = q < TRACK_TOGO_CACHE ? t->togo[q] : NULL;
    if (q == TRACK_TOGO_CACHE) { /* no to-go field built: an occupied slot's stand-in (never read) */
        q = 0;
        t->togo[q] = (tpNavToGo *)&sk;
    }
    BREAK_RULE(tpNavCache_Valid, nc, t->togo_goal[q][1], NAN, "to-go field");
    t->togo[q] = keep;
    EXPECT_VALID(tpNavCache_Valid, nc);
    sw_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_table), cmocka_unit_test(test_skill_def),    cmocka_unit_test(test_skill_vars),
        cmocka_unit_test(test_skill_cache), cmocka_unit_test(test_overlay_tree), cmocka_unit_test(test_nav_cache),
        cmocka_unit_test(test_nav_track),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
