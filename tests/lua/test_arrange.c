/* Tests for the "arrange many bodies" bindings (lua/src/arrange.c and the domain's report):
 * tp.pattern, the steer skill, tp.arranged as goal / quality / report, tp.peak_force, the
 * broad-phase option and the compact tactic states; and their errors at the script's line.
 * Fixtures: scripts/arrange_ok.lua and scripts/err_*.lua. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/lua.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fixture(const char *name)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s", TP_TEST_SCRIPTS, name);
    return buf;
}

static void expect_error(const char *name, int line, const char *what)
{
    char err[2048] = "";
    const char *path = fixture(name);
    tpScript *s = tpLoadScript(path, NULL, 0, err, sizeof err);
    if (s)
        tpDestroyScript(s);
    assert_null(s);
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%s:%d:", path, line);
    if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what))
        fprintf(stderr, "expected \"%s ...%s...\"\n     got \"%s\"\n", prefix, what, err);
    assert_memory_equal(err, prefix, strlen(prefix));
    assert_non_null(strstr(err, what));
}

static void test_arrange_plans(void **state)
{
    (void)state;
    char err[2048] = "";
    tpScript *s = tpLoadScript(fixture("arrange_ok.lua"), NULL, 0, err, sizeof err);
    if (!s)
        fprintf(stderr, "%s\n", err);
    assert_non_null(s);
    tpDomain *d = tpScript_Domain(s);
    const tpDomainDef *def = tpDomain_Def(d);
    assert_int_equal(tpWorld_Def(tpDomain_World(d))->space, TP_SPACE_SAP);
    assert_int_equal(def->tactics[0].skills[0].kind, TP_SKILL_STEER);
    assert_true(def->tactics[0].skills[0].steer.max_z == 1.0 && isinf(def->tactics[0].skills[0].steer.min_z));
    /* steer keeps 6 variables: 3 tactics of 8 + 48 bytes after t and 3 body states */
    assert_int_equal(tpDomain_TacticVars(d, 0), 6);
    tpProblem p = tpDomain_Problem(d);
    assert_int_equal((int)p.state_bytes,
                     8 + 3 * 13 * 8 + 3 * (8 + 6 * 8) + 8); /* + the rest counts (sleeping), padded */
    /* actions: d1 is planar (fx, fy, tz), d2 and d3 keep 6 doubles */
    assert_int_equal(p.action_dim, 3 + 6 + 6);
    assert_int_equal(def->nreports, 3);
    assert_int_equal(def->goal->kind, TP_COND_ARRANGED);
    assert_int_equal(def->goal->ntargets, 3);
    assert_int_equal(def->quality.kind, TP_METRIC_ARRANGED);
    assert_int_equal(def->solution.kind, TP_METRIC_PEAK_FORCE);

    tpPlanner *pl = tpCreatePlanner(&def->planner, &p, err, sizeof err);
    assert_non_null(pl);
    tpPlanResult res;
    assert_int_equal(tpPlanner_Run(pl, &res), TP_PLAN_SOLVED);
    const tpTree *tree = tpPlanner_Tree(pl);
    double v[3];
    assert_true(tpDomain_Reports(d, tree, res.best, v));
    assert_true(v[0] == 1.0); /* every box rests on its cell */
    /* peak force per weight of d1: at most its sampled bound 0.2 N over 0.1 kg * 9.81 */
    assert_true(v[1] > 0.1 && v[1] <= 0.2 / (0.1 * 9.81) + 1e-12);
    assert_true(v[2] == (double)tpTree_Node(tree, res.best)->depth);
    /* the root (boxes 10 cm off their cells) is off target: quality 1 - 0 */
    assert_true(p.quality(p.ctx, tpTree_State(tree, 0)) == 1.0);
    tpDestroyPlanner(pl);
    tpDestroyScript(s);
}

/* The broad phase changes speed only: every space gives the same solution, bit for bit. */
static void test_spaces_agree(void **state)
{
    (void)state;
    const char *spaces[] = {"sap", "simple", "hash", "auto"};
    unsigned char *first = NULL;
    size_t bytes = 0;
    for (int k = 0; k < 4; ++k) {
        char err[2048] = "";
        tpScriptParam par = {"space", spaces[k]};
        tpScript *s = tpLoadScript(fixture("arrange_ok.lua"), &par, 1, err, sizeof err);
        assert_non_null(s);
        tpDomain *d = tpScript_Domain(s);
        assert_int_equal((int)tpWorld_Def(tpDomain_World(d))->space, k == 3   ? TP_SPACE_AUTO
                                                                     : k == 0 ? TP_SPACE_SAP
                                                                     : k == 1 ? TP_SPACE_SIMPLE
                                                                              : TP_SPACE_HASH);
        tpProblem p = tpDomain_Problem(d);
        tpPlanner *pl = tpCreatePlanner(&tpDomain_Def(d)->planner, &p, err, sizeof err);
        tpPlanResult res;
        assert_int_equal(tpPlanner_Run(pl, &res), TP_PLAN_SOLVED);
        const tpTree *tree = tpPlanner_Tree(pl);
        if (!first) {
            bytes = p.state_bytes;
            first = malloc(bytes);
            memcpy(first, tpTree_State(tree, res.best), bytes);
        } else {
            assert_int_equal(p.state_bytes, bytes);
            assert_memory_equal(first, tpTree_State(tree, res.best), bytes);
        }
        tpDestroyPlanner(pl);
        tpDestroyScript(s);
    }
    free(first);
}

static void test_arrange_errors(void **state)
{
    (void)state;
    expect_error("err_arranged.lua", 2, "tp.arranged: points: expected 2 points (one per body), got 1");
    expect_error("err_pattern.lua", 2, "tp.pattern: pattern text: character '~' (position 2)");
    expect_error("err_pattern_img.lua", 2, "no_such.pgm: cannot open");
    expect_error("err_steer.lua", 2, "min_z must be <= max_z (got 2, 1)");
    expect_error("err_report.lua", 2, "report[2]: duplicate name 'x'");
    expect_error("err_space.lua", 2, "space must be \"auto\", \"simple\", \"hash\" or \"sap\" (got \"octree\")");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arrange_plans),
        cmocka_unit_test(test_spaces_agree),
        cmocka_unit_test(test_arrange_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
