/* The navigation invariants (nav/src/nav_validate.c): every structure built through the public
 * API passes its check, and each rule, broken once on purpose, fails with its own message (so a
 * check that can never fail would show here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nav_internal.h"
#include "nav_space_internal.h"
#include "tp/nav.h"

/* Asserts that ok is false and why contains want. */
static void expect_broken(bool ok, const char *why, const char *want)
{
    if (ok || !strstr(why, want)) {
        print_error("expected a broken rule with '%s', got %s: '%s'\n", want, ok ? "valid" : "broken", why);
        fail();
    }
}

/* A 20 x 12 grid with a wall and a finished A* search over it. */
static tpNavGrid *searched_grid(void)
{
    tpNavGridDef d = tpDefaultNavGridDef();
    d.nx = 20;
    d.ny = 12;
    tpNavGrid *g = tpCreateNavGrid(&d, NULL, 0);
    assert_non_null(g);
    for (int j = 0; j < 9; ++j) {
        tpNavGrid_SetObstacle(g, 10, j, true);
    }
    tpNavPlanDef pd = tpDefaultNavPlanDef();
    tpNavPath path = {0};
    assert_int_equal(tpNav_PlanCells(g, &pd, 1, 1, 18, 1, &path), TP_NAV_OK);
    tpNavPath_Free(&path);
    return g;
}

/* The first cell whose stamp is st, -1 if none. */
static int32_t cell_stamped(const tpNavGrid *g, uint8_t st, bool with_parent)
{
    for (int32_t c = 0; c < g->def.nx * g->def.ny; ++c) {
        if (g->stamp[c] == st && (!with_parent || g->parent[c] >= 0)) {
            return c;
        }
    }
    return -1;
}

static void test_grid_rules(void **state)
{
    (void)state;
    char why[320] = "";
    tpNavGrid *g = searched_grid();
    assert_true(tpNavGrid_Valid(g, why, sizeof why));
    assert_true(g->open.len > 1); /* the search stopped at the target with cells still open */
    const int32_t open = cell_stamped(g, g->gen, true), closed = cell_stamped(g, (uint8_t)(g->gen + 1), true);
    assert_true(open >= 0 && closed >= 0);

    g->def.cell = 0;
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "grid: definition");
    g->def.cell = 0.1;
    g->cells[5] = 7;
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "has flags 7");
    g->cells[5] = TP_NAV_FREE;
    g->scratch_bytes--;
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "search scratch");
    g->scratch_bytes++;
    g->gen++;
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "generation");
    g->gen--;
    uint8_t st = g->stamp[0];
    g->stamp[0] = (uint8_t)(g->gen + 2);
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "newer than this search's");
    g->stamp[0] = st;
    double gc = g->g[closed];
    g->g[closed] = NAN; /* named at the cell, or at a child of it scanned first */
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "cost");
    g->g[closed] = -1e300; /* finite, but below its parent's cost */
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "has cost");
    g->g[closed] = 0.0;
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "not more than its parent");
    g->g[closed] = gc;
    int32_t p = g->parent[closed];
    g->parent[closed] = (int32_t)(g->def.nx * g->def.ny);
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "not a reached cell");
    g->parent[closed] = p;
    g->cells[closed] = TP_NAV_GROWN;
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "but is not free");
    g->cells[closed] = TP_NAV_FREE;
    g->open.len--; /* the last entry's cell is still stamped open */
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "open");
    g->open.len++;
    assert_true(tpNavGrid_Valid(g, why, sizeof why));
    /* the open list's own rules */
    g->open.e[1].id = -3;
    expect_broken(tpNavOpen_Valid(&g->open, g->pos, 240, why, sizeof why), why, "holds cell -3");
    g->open.e[1].id = g->open.e[0].id;
    expect_broken(tpNavOpen_Valid(&g->open, g->pos, 240, why, sizeof why), why, "its position says");
    tpDestroyNavGrid(g);
    g = searched_grid();
    tpHeapSlot t = g->open.e[0];
    g->open.e[0] = g->open.e[1];
    g->open.e[1] = t;
    g->pos[g->open.e[0].id] = 0;
    g->pos[g->open.e[1].id] = 1;
    if (tpHeapSlot_Less(&g->open.e[1], &g->open.e[0])) {
        expect_broken(tpNavOpen_Valid(&g->open, g->pos, 240, why, sizeof why), why, "heap order");
    }
    g->open.len = g->open.cap + 1;
    expect_broken(tpNavOpen_Valid(&g->open, g->pos, 240, why, sizeof why), why, "entries in room for");
    g->open.len = 0;
    tpDestroyNavGrid(g);
    /* a grid that never searched has no scratch, no generation and no open cell */
    tpNavGridDef d = tpDefaultNavGridDef();
    g = tpCreateNavGrid(&d, NULL, 0);
    assert_true(tpNavGrid_Valid(g, why, sizeof why));
    g->gen = 2;
    expect_broken(tpNavGrid_Valid(g, why, sizeof why), why, "no search scratch");
    tpDestroyNavGrid(g);
}

static void test_field_and_crowd_rules(void **state)
{
    (void)state;
    char why[320] = "";
    tpNavGridDef gd = tpDefaultNavGridDef();
    gd.nx = 30;
    gd.ny = 10;
    gd.cell = 0.25;
    tpNavGrid *g = tpCreateNavGrid(&gd, NULL, 0);
    for (int i = 0; i < 30; ++i) {
        tpNavGrid_SetObstacle(g, i, 0, true);
    }
    for (int j = 6; j < 10; ++j) { /* a closed pocket at (25..29, 7..9): cut cells */
        tpNavGrid_SetObstacle(g, 24, j, true);
    }
    for (int i = 24; i < 30; ++i) {
        tpNavGrid_SetObstacle(g, i, 6, true);
    }
    int goal[2] = {28, 2};
    tpNavField *f = tpCreateNavField(g, goal, 1, NULL, NULL, 0);
    assert_non_null(f);
    assert_true(tpNavField_Valid(f, why, sizeof why));
    const size_t gc = 2 * 30 + 28, wall = 0, cut = 8 * 30 + 27, free_c = 5 * 30 + 5;
    assert_int_equal(f->kind[cut], F_CUT);
    f->cell = -1;
    expect_broken(tpNavField_Valid(f, why, sizeof why), why, "field: 30 x 10");
    f->cell = 0.25;
    f->iters = -1;
    expect_broken(tpNavField_Valid(f, why, sizeof why), why, "iterations");
    f->iters = 0;
    f->u[gc] = 0.5;
    expect_broken(tpNavField_Valid(f, why, sizeof why), why, "goal cell");
    f->u[gc] = 1.0;
    f->u[wall] = 0.1;
    expect_broken(tpNavField_Valid(f, why, sizeof why), why, "wall cell");
    f->u[wall] = 0.0;
    f->u[cut] = 0.1;
    expect_broken(tpNavField_Valid(f, why, sizeof why), why, "unconnected cell");
    f->u[cut] = 0.0;
    double u = f->u[free_c];
    f->u[free_c] = 1.5;
    expect_broken(tpNavField_Valid(f, why, sizeof why), why, "free cell");
    f->u[free_c] = u;
    f->kind[free_c] = 9;
    expect_broken(tpNavField_Valid(f, why, sizeof why), why, "has kind 9");
    f->kind[free_c] = F_FREE;
    f->kind[gc] = F_FREE;
    expect_broken(tpNavField_Valid(f, why, sizeof why), why, "no goal cell");
    f->kind[gc] = F_GOAL;
    assert_true(tpNavField_Valid(f, why, sizeof why));

    tpNavCrowd *c = tpCreateNavCrowd(g, NULL, 0);
    tpNavPedDef pd = tpDefaultNavPedDef();
    pd.pos[0] = 1.0;
    pd.pos[1] = 1.2;
    pd.ngoals = 1;
    pd.goals[0] = f;
    pd.behaviour = TP_NAV_BEHAVE_HARMONIC;
    assert_int_equal(tpNavCrowd_Add(c, &pd, NULL, 0), 0);
    for (int t = 0; t < 20; ++t) {
        tpNavCrowd_Step(c, t);
    }
    assert_true(tpNavCrowd_Valid(c, why, sizeof why));
    tpNavPed *p = &c->peds[0];
    c->n = (int)c->cap + 1;
    expect_broken(tpNavCrowd_Valid(c, why, sizeof why), why, "pedestrians in room for");
    c->n = 1;
    p->goal = 2;
    expect_broken(tpNavCrowd_Valid(c, why, sizeof why), why, "is at goal 2 of 1");
    p->goal = 0;
    double dx = p->dir[0];
    p->dir[0] = 2 * dx + 1;
    expect_broken(tpNavCrowd_Valid(c, why, sizeof why), why, "not a unit direction");
    p->dir[0] = dx;
    double *local = p->local;
    p->has_local = true;
    p->local = NULL;
    expect_broken(tpNavCrowd_Valid(c, why, sizeof why), why, "local map");
    p->local = local;
    double sf = p->speed_factor;
    p->speed_factor = -0.5;
    expect_broken(tpNavCrowd_Valid(c, why, sizeof why), why, "speed factor");
    p->speed_factor = sf;
    assert_true(tpNavCrowd_Valid(c, why, sizeof why));
    tpDestroyNavCrowd(c);
    tpDestroyNavField(f);
    tpDestroyNavGrid(g);
}

static void test_move_tree_rules(void **state)
{
    (void)state;
    char why[320] = "";
    tpNavCarDef car = tpDefaultNavCarDef();
    tpNavMoveTreeDef md = tpDefaultNavMoveTreeDef();
    tpNavMoveTree *t = tpCreateNavMoveTree(&car, &md, why, sizeof why);
    assert_non_null(t);
    assert_true(tpNavMoveTree_Valid(t, why, sizeof why));
    const int nl = t->def.nlevels;
    t->nclips = -1;
    expect_broken(tpNavMoveTree_Valid(t, why, sizeof why), why, "clips");
    t->nclips = t->start[nl];
    t->start[0] = 1;
    expect_broken(tpNavMoveTree_Valid(t, why, sizeof why), why, "level index spans");
    t->start[0] = 0;
    int s1 = t->start[1];
    t->start[1] = -1;
    expect_broken(tpNavMoveTree_Valid(t, why, sizeof why), why, "starts at");
    t->start[1] = s1;
    int first = t->by_level[0];
    t->by_level[0] = t->by_level[t->nclips - 1]; /* a clip of the top level listed under level 0 */
    expect_broken(tpNavMoveTree_Valid(t, why, sizeof why), why, "which does not start there");
    t->by_level[0] = first;
    tpNavClip *c = &t->clips[t->nclips - 1];
    int to = c->to;
    c->to = nl;
    expect_broken(tpNavMoveTree_Valid(t, why, sizeof why), why, "goes from level");
    c->to = to;
    int nf = c->nframes;
    c->nframes = TP_NAV_CLIP_FRAMES + 1;
    expect_broken(tpNavMoveTree_Valid(t, why, sizeof why), why, "frames");
    c->nframes = nf;
    double r = c->bound[2];
    c->bound[2] = 0;
    expect_broken(tpNavMoveTree_Valid(t, why, sizeof why), why, "bounding circle");
    c->bound[2] = r;
    double top = t->top_speed;
    t->top_speed = 0;
    expect_broken(tpNavMoveTree_Valid(t, why, sizeof why), why, "top speed");
    t->top_speed = top;
    assert_true(tpNavMoveTree_Valid(t, why, sizeof why));
    tpDestroyNavMoveTree(t);
}

static void test_space_rules(void **state)
{
    (void)state;
    char why[320] = "";
    tpNavSpaceDef d = tpDefaultNavSpaceDef();
    tpNavSpace *sp = tpCreateNavSpace(&d, 3, why, sizeof why);
    assert_non_null(sp);
    assert_true(tpNavSpace_Valid(sp, why, sizeof why));
    tpNavSpaceBody b[3] = {
        tpNavSpace_Box(2, 0, -0.5, 2, 2, 0.5, 0),        /* floor A: x in [0, 4] */
        tpNavSpace_Box(-2, 0, -0.5, 2, 2, 0.5, 0),       /* floor B: x in [-4, 0], next to A */
        tpNavSpace_Box(1, 0, 0.25, 0.25, 0.25, 0.25, 0), /* a crate on A */
    };
    for (int k = 0; k < 5; ++k) {
        assert_true(tpNavSpace_Update(sp, 0.1 * k, b, why, sizeof why));
    }
    assert_true(tpNavSpace_Valid(sp, why, sizeof why));
    assert_true(sp->nedges >= 2);
    const int nedges = sp->nedges;
    sp->nedges = (int)sp->cap_edges + 1;
    expect_broken(tpNavSpace_Valid(sp, why, sizeof why), why, "edges in room for");
    sp->nedges = nedges;
    assert_true(tpNavSpace_Valid(sp, why, sizeof why));
    double t_first = sp->t_first;
    sp->t_first = sp->t + 1;
    expect_broken(tpNavSpace_Valid(sp, why, sizeof why), why, "updates");
    sp->t_first = t_first;
    tpNavSpaceEdge *e = &sp->edges[0];
    const size_t k0 = (size_t)e->from * 3 + (size_t)e->to;
    sp->edge_of[k0] = -1;
    expect_broken(tpNavSpace_Valid(sp, why, sizeof why), why, "edges are indexed by their pair");
    sp->edge_of[k0] = 1; /* the pair names another edge */
    expect_broken(tpNavSpace_Valid(sp, why, sizeof why), why, "which joins others");
    sp->edge_of[k0] = 0;
    int to = e->to;
    e->to = e->from;
    sp->edge_of[k0] = -1;
    sp->edge_of[(size_t)e->from * 3 + (size_t)e->from] = 0;
    expect_broken(tpNavSpace_Valid(sp, why, sizeof why), why, "joins");
    sp->edge_of[(size_t)e->from * 3 + (size_t)e->from] = -1;
    e->to = to;
    sp->edge_of[k0] = 0;
    assert_true(tpNavSpace_Valid(sp, why, sizeof why));
    int nvalid = e->nvalid;
    e->nvalid = e->periods + 1;
    expect_broken(tpNavSpace_Valid(sp, why, sizeof why), why, "history");
    e->nvalid = nvalid;
    bool valid = e->valid, stable = e->stable;
    e->valid = false;
    e->stable = true;
    expect_broken(tpNavSpace_Valid(sp, why, sizeof why), why, "stable 1, valid 0");
    e->valid = valid;
    e->stable = stable;
    const int nobst = sp->nobst[0];
    sp->nobst[0] = 4;
    expect_broken(tpNavSpace_Valid(sp, why, sizeof why), why, "obstructions of 3 bodies");
    sp->nobst[0] = 1;
    const int o = sp->obst[0];
    sp->obst[0] = 0;
    expect_broken(tpNavSpace_Valid(sp, why, sizeof why), why, "surface 0 is obstructed by body 0");
    sp->obst[0] = o;
    sp->nobst[0] = nobst;
    tpDestroyNavSpace(sp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_rules),
        cmocka_unit_test(test_field_and_crowd_rules),
        cmocka_unit_test(test_move_tree_rules),
        cmocka_unit_test(test_space_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
