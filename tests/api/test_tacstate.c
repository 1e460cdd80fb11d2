/* The tactics' state and the conditions' memory in a tplan_state ("what the tactics need
 * to resume"), through libtplan.so:
 *   - pool_kick (a tp.sequence goal: cushion, red, pocket): the state after the cushion hit holds
 *     the sequence's progress and the stroke still busy; simulating the plan's remaining controls
 *     from it gives the rest of the trajectory and of the memory bit for bit; a plan from it
 *     continues the same shot to the goal without a second cushion (its suffix, bit for bit) and
 *     replays; without the memory (or the tactics) the same state gives another plan.
 *   - soccer: a state mid-lob resumes in the lob (not in go_to_ball, σ_init) and the continuation's
 *     controls are the original's until the lob ends; without the tactics it restarts.
 *   - the state file round trip (version 2) and bad tactics / memory naming the field.
 *   - tplan_simulate drops the tactics; a search re-rooted on the state its plan's controls
 *     simulate to takes them from the matching node. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tplan/tplan.h"

#define POOL_KICK TP_SOURCE_DOMAINS "/pool_kick.lua"
#define SOCCER TP_SOURCE_DOMAINS "/soccer.lua"

static tplan_domain *load(const char *path)
{
    tplan_error e;
    tplan_domain *d = tplan_domain_load_file(path, NULL, 0, NULL, &e);
    if (!d) {
        fail_msg("load %s: %s", path, e.message);
    }
    return d;
}

static tplan_result *plan_from(tplan_domain *d, const tplan_state *start)
{
    tplan_error e;
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.seed = 1;
    def.start = start;
    tplan_result *r = tplan_plan(d, &def, &e);
    if (!r) {
        fail_msg("plan: %s", e.message);
    }
    return r;
}

/* Whether r2's trajectory (every body) is r's from step m on, for r2's steps (bit for bit). */
static bool suffix_of(const tplan_result *r, int m, const tplan_result *r2, int upto)
{
    for (int b = 0; b < tplan_result_body_count(r); ++b) {
        int rows = 0, rows2 = 0;
        const double *x = tplan_result_states(r, b, &rows);
        const double *x2 = tplan_result_states(r2, b, &rows2);
        if (rows <= 1) {
            continue; /* a static body's pose */
        }
        if (m + upto >= rows || upto >= rows2 ||
            memcmp(x + (size_t)m * 13, x2, sizeof(double) * 13 * (size_t)(upto + 1)) != 0) {
            return false;
        }
    }
    return true;
}

static int skill_at(const tplan_result *r, tplan_domain *d, int step, const char *tactic, int *busy)
{
    tplan_error e;
    tplan_state *s = tplan_result_state(r, d, step, &e);
    assert_non_null(s);
    int skill = -1;
    assert_int_equal(tplan_state_get_tactic(s, tactic, &skill, busy, NULL, NULL, NULL, &e), TPLAN_OK);
    tplan_state_free(s);
    return skill;
}

/* ---- pool_kick: the sequence's memory -------------------------------------------------------- */

static void test_pool_kick_resumes_the_sequence(void **unused)
{
    (void)unused;
    tplan_error e;
    tplan_domain *d = load(POOL_KICK);
    tplan_result *r = plan_from(d, NULL);
    assert_int_equal(tplan_result_status(r), TPLAN_SOLVED);
    const int steps = tplan_result_steps(r);
    /* the first step after which the sequence has its cushion (memory slot 0 = 1), then 10 more */
    int m = -1;
    for (int i = 0; i <= steps && m < 0; ++i) {
        tplan_state *si = tplan_result_state(r, d, i, &e);
        assert_non_null(si);
        assert_int_equal(tplan_state_memory_count(si), 3); /* sequence, never, ever */
        if (tplan_state_memory(si)[0] == 1) {
            m = i + 10;
        }
        tplan_state_free(si);
    }
    assert_true(m > 0 && m < steps - 10);
    tplan_state *s = tplan_result_state(r, d, m, &e);
    assert_non_null(s);
    assert_int_equal(tplan_state_memory(s)[0], 1);
    assert_int_equal(tplan_state_tactic_count(s), 1);
    int skill = -1, busy = -1, started = -1, nvars = 16;
    double vars[16];
    assert_int_equal(tplan_state_get_tactic(s, "cue_ball", &skill, &busy, &started, vars, &nvars, &e), TPLAN_OK);
    assert_int_equal(skill, 0);
    assert_int_equal(busy, 1); /* the stroke follows the balls until they rest */
    assert_int_equal(started, 1);
    assert_true(nvars >= 1);

    /* its file: version 2 with the tactics and the memory, read back to the same bytes */
    char *text = tplan_state_to_json(s);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"version\": 2,"));
    assert_non_null(strstr(text, "\"tactics\": {\n  \"cue_ball\": {\"skill\": 0, \"busy\": true, \"started\": true"));
    assert_non_null(strstr(text, "\"memory\": [1, 0, 1]}"));
    tplan_state *back = tplan_state_from_json(d, text, strlen(text), &e);
    assert_non_null(back);
    char *text2 = tplan_state_to_json(back);
    assert_string_equal(text, text2);
    tplan_free(text2);
    tplan_state_free(back);

    /* (a) the plan's remaining controls from it, one step at a time: the plan's states and memory */
    const int nc = tplan_domain_control_count(d);
    assert_int_equal(nc, 1);
    const double *ctl = tplan_result_controls(r, tplan_result_body_index(r, "cue"));
    tplan_state *sim = tplan_state_copy(s);
    assert_int_equal(tplan_state_tactic_count(sim), 1);
    for (int i = m; i < steps; ++i) {
        tplan_simulate_def sd;
        tplan_simulate_def_init(&sd);
        sd.steps = 1;
        sd.controls = ctl + (size_t)i * 6;
        assert_int_equal(tplan_simulate(d, sim, &sd, &e), TPLAN_OK);
        tplan_state *want = tplan_result_state(r, d, i + 1, &e);
        assert_non_null(want);
        for (int k = 0; k < tplan_state_body_count(want); ++k) {
            double a[13], b[13];
            int ra = 0, rb = 0;
            const char *name = tplan_state_body_name(want, k);
            assert_int_equal(tplan_state_get_body(want, name, a, &ra, &e), TPLAN_OK);
            assert_int_equal(tplan_state_get_body(sim, name, b, &rb, &e), TPLAN_OK);
            assert_memory_equal(a, b, sizeof a);
            assert_int_equal(ra, rb);
        }
        assert_memory_equal(tplan_state_memory(want), tplan_state_memory(sim), 3 * sizeof(int32_t));
        /* the memory goes on with the world; the tactics' state does not (the caller's controls,
           not the tactics, moved it: docs/embedding.md), where the plan's own state has them */
        assert_int_equal(tplan_state_tactic_count(sim), 0);
        assert_int_equal(tplan_state_tactic_count(want), 1);
        tplan_state_free(want);
    }
    assert_int_equal(tplan_state_memory(sim)[0], 3); /* the whole kick, from the cushion on */
    tplan_state_free(sim);

    /* a plan from it: the same shot goes on to the goal, no second cushion needed, bit for bit */
    tplan_result *r2 = plan_from(d, s);
    assert_int_equal(tplan_result_status(r2), TPLAN_SOLVED);
    assert_int_equal(tplan_result_steps(r2), steps - m);
    assert_true(suffix_of(r, m, r2, steps - m));
    size_t len = 0;
    const char *bytes = tplan_result_plan(r2, &len);
    assert_non_null(bytes);
    assert_non_null(strstr(bytes, "\"temporal\": {\"version\": 2,"));
    assert_non_null(strstr(bytes, "\"changes\": [[[0, 0, 1], [0, 2, 1], ["));
    assert_int_equal(tplan_replay(d, bytes, len, &e), TPLAN_OK);
    /* the plan file gives its start state's memory back */
    tplan_state *p0 = tplan_state_from_plan(d, bytes, len, 0, 0, &e);
    assert_non_null(p0);
    assert_memory_equal(tplan_state_memory(p0), tplan_state_memory(s), 3 * sizeof(int32_t));
    tplan_state_free(p0);
    tplan_result_free(r2);
    /* the original plan's file: its search made again gives the tactics at step m, exactly */
    const char *orig = tplan_result_plan(r, &len);
    tplan_state *pm = tplan_state_from_plan_tactics(d, orig, len, 0, m, &e);
    assert_non_null(pm);
    char *tm = tplan_state_to_json(pm);
    assert_string_equal(tm, text);
    tplan_free(tm);
    tplan_state_free(pm);
    tplan_state *plain = tplan_state_from_plan(d, orig, len, 0, m, &e); /* without: the memory only */
    assert_int_equal(tplan_state_tactic_count(plain), 0);
    assert_int_equal(tplan_state_memory_count(plain), 3);
    tplan_state_free(plain);

    /* controls: the state without its memory (the cushion forgotten) does not give that plan */
    tplan_state *forgot = tplan_state_copy(s);
    assert_int_equal(tplan_state_set_memory(forgot, NULL, -1, &e), TPLAN_OK);
    assert_int_equal(tplan_state_memory_count(forgot), -1);
    tplan_result *r3 = plan_from(d, forgot);
    assert_false(tplan_result_status(r3) == TPLAN_SOLVED && tplan_result_steps(r3) == steps - m &&
                 suffix_of(r, m, r3, steps - m));
    tplan_result_free(r3);
    tplan_state_free(forgot);
    /* ... nor without its tactics (a new stroke mid-roll) */
    tplan_state *fresh = tplan_state_copy(s);
    tplan_state_clear_tactics(fresh);
    assert_int_equal(tplan_state_tactic_count(fresh), 0);
    tplan_result *r4 = plan_from(d, fresh);
    assert_false(tplan_result_steps(r4) == steps - m && suffix_of(r, m, r4, steps - m));
    tplan_result_free(r4);
    tplan_state_free(fresh);

    tplan_free(text);
    tplan_state_free(s);
    tplan_result_free(r);
    tplan_domain_free(d);
}

/* ---- soccer: a tactic mid-skill --------------------------------------------------------------- */

static void test_soccer_resumes_mid_skill(void **unused)
{
    (void)unused;
    tplan_error e;
    tplan_domain *d = load(SOCCER);
    tplan_result *r = plan_from(d, NULL);
    const int steps = tplan_result_steps(r);
    /* a step in the middle of a busy skill of the attacker that is not its σ_init (go_to_ball, 0) */
    int m = -1, end = -1, skill = -1;
    for (int i = 1; i < steps && end < 0; ++i) {
        int busy = 0;
        const int k = skill_at(r, d, i, "attacker", &busy);
        if (m < 0 && k != 0 && busy) {
            skill = k;
            m = i;
        } else if (m >= 0 && (k != skill || !busy)) {
            end = i; /* the first state after which the skill changes or is done */
        }
    }
    end = m > 0 && end < 0 ? steps : end; /* the skill runs to the plan's end */
    assert_true(m > 0 && end > m + 4);
    m = (m + end) / 2;
    tplan_state *s = tplan_result_state(r, d, m, &e);
    assert_non_null(s);
    int k = -1, busy = -1;
    assert_int_equal(tplan_state_get_tactic(s, "attacker", &k, &busy, NULL, NULL, NULL, &e), TPLAN_OK);
    assert_int_equal(k, skill);
    assert_int_equal(busy, 1);

    /* resumed: the same skill at its first step, and the original's states until it ends */
    tplan_result *r2 = plan_from(d, s);
    assert_true(tplan_result_steps(r2) >= end - m);
    int b2 = 0;
    assert_int_equal(skill_at(r2, d, 1, "attacker", &b2), skill);
    assert_true(suffix_of(r, m, r2, end - m));

    /* the control: without the tactics the attacker restarts at go_to_ball */
    tplan_state *fresh = tplan_state_copy(s);
    tplan_state_clear_tactics(fresh);
    tplan_result *r3 = plan_from(d, fresh);
    assert_int_equal(skill_at(r3, d, 1, "attacker", &b2), 0);
    assert_false(suffix_of(r, m, r3, end - m));
    tplan_result_free(r3);
    tplan_state_free(fresh);
    tplan_result_free(r2);
    tplan_state_free(s);
    tplan_result_free(r);
    tplan_domain_free(d);
}

/* ---- bad tactics and memory: a code and the field --------------------------------------------- */

static void bad(tplan_domain *d, const char *base, const char *from, const char *to, const char *field,
                const char *words)
{
    const char *at = strstr(base, from);
    assert_non_null(at);
    const size_t n = strlen(base) - strlen(from) + strlen(to);
    char *text = malloc(n + 1);
    assert_non_null(text);
    memcpy(text, base, (size_t)(at - base));
    strcpy(text + (at - base), to);
    strcat(text, at + strlen(from));
    tplan_error e;
    tplan_state *s = tplan_state_from_json(d, text, strlen(text), &e);
    if (s || e.code != TPLAN_ERR_ARGUMENT || strcmp(e.field, field) != 0 || !strstr(e.message, words) ||
        strchr(e.message, '\n')) {
        fail_msg("%s -> %s: field '%s', message '%s'", from, to, e.field, e.message);
    }
    tplan_state_free(s);
    free(text);
}

static void test_bad_tactics_and_memory(void **unused)
{
    (void)unused;
    tplan_error e;
    tplan_domain *d = load(POOL_KICK);
    tplan_result *r = plan_from(d, NULL);
    tplan_state *s = tplan_result_state(r, d, 30, &e);
    assert_non_null(s);
    char *t = tplan_state_to_json(s);
    assert_non_null(t);
    bad(d, t, "\"skill\": 0", "\"skill\": 1", "tactics.cue_ball.skill", "not a skill of the tactic (0..0");
    bad(d, t, "\"skill\": 0", "\"skill\": -1", "tactics.cue_ball.skill", "expected the index");
    bad(d, t, "\"skill\": 0", "\"skill\": 0.5", "tactics.cue_ball.skill", "expected the index");
    bad(d, t, "\"busy\": true", "\"busy\": 1", "tactics.cue_ball.busy", "true or false");
    bad(d, t, "\"started\": true", "\"started\": false", "tactics.cue_ball.busy", "has not started");
    bad(d, t, "\"vars\": [", "\"vars\": [1, ", "tactics.cue_ball.vars", "skill variables");
    bad(d, t, "\"vars\": [", "\"vars\": [\"x\", ", "tactics.cue_ball.vars", "expected a number");
    bad(d, t, "\"busy\": true", "\"busy\": true, \"mood\": 1", "tactics.cue_ball.mood", "unknown field");
    bad(d, t, "\"cue_ball\": {", "\"ghost\": {", "tactics.ghost", "no such tactic");
    bad(d, t, "\"memory\": [1, 0, 1]", "\"memory\": [1, 0]", "memory", "2 values given");
    bad(d, t, "\"memory\": [1, 0, 1]", "\"memory\": [4, 0, 1]", "memory[0]", "beyond the condition's 3");
    bad(d, t, "\"memory\": [1, 0, 1]", "\"memory\": [1, -1, 1]", "memory[1]", "expected an integer");
    bad(d, t, "\"memory\": [1, 0, 1]", "\"memory\": {}", "memory", "expected an array");
    bad(d, t, "\"version\": 2", "\"version\": 1", "tactics", "a version 1 state has none");
    bad(d, t, "\"version\": 2", "\"version\": 3", "version", "expected 1 or 2");
    /* the tactics given, none missing */
    bad(d, t, "\"tactics\": {\n  \"cue_ball\"", "\"tactics\": {}, \"x\": {\n  \"cue_ball\"", "x", "unknown field");
    tplan_free(t);
    /* the setters check what they can without the domain */
    assert_int_equal(tplan_state_set_tactic(s, "cue_ball", 0, 1, 0, NULL, 0, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "tactics.cue_ball.started");
    assert_int_equal(tplan_state_set_tactic(s, "nobody", 0, 0, 1, NULL, 0, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "tactics.nobody");
    const int32_t big[3] = {1, 2000000, 0};
    assert_int_equal(tplan_state_set_memory(s, big, 3, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "memory[1]");
    /* a skill index the domain does not have is refused when planning from it */
    assert_int_equal(tplan_state_set_tactic(s, "cue_ball", 3, 0, 1, NULL, 0, &e), TPLAN_OK);
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.start = s;
    assert_null(tplan_plan(d, &def, &e));
    assert_int_equal(e.code, TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "tactics.cue_ball.skill");
    tplan_state_free(s);
    tplan_result_free(r);
    tplan_domain_free(d);
}

/* ---- a simulated state carries no tactics; a re-root on it takes them from the tree -------- */

/* tplan_simulate drops the tactics (docs/embedding.md); a search re-rooted on the state its best
 * plan's controls simulate to finds that node bit for bit, and its plans start with the node's
 * tactics: those the plan itself has at that step. */
static void test_reroot_on_simulated_takes_tactics(void **unused)
{
    (void)unused;
    tplan_domain *d = load(POOL_KICK);
    tplan_error e;
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.seed = 1;
    tplan_search *s = tplan_search_new(d, &def, NULL, &e);
    assert_non_null(s);
    assert_int_equal(tplan_search_run_iterations(s, 200, &e), TPLAN_OK);
    const tplan_result *best = tplan_search_best(s);
    const int steps = tplan_result_steps(best);
    assert_true(steps >= 2);
    const int m = steps / 2;
    tplan_state *want = tplan_result_state(best, d, m, &e);
    assert_non_null(want);
    assert_int_equal(tplan_state_tactic_count(want), 1);
    tplan_state *sim = tplan_state_new(d, &e);
    assert_non_null(sim);
    tplan_simulate_def sd;
    tplan_simulate_def_init(&sd);
    sd.steps = m;
    sd.controls = tplan_result_controls(best, tplan_result_body_index(best, "cue"));
    assert_non_null(sd.controls);
    assert_int_equal(tplan_simulate(d, sim, &sd, &e), TPLAN_OK);
    assert_int_equal(tplan_state_tactic_count(sim), 0);
    int64_t kept = 0;
    assert_int_equal(tplan_search_reroot(s, sim, 0, &kept, &e), TPLAN_OK);
    assert_true(kept > 0); /* found, not restarted */
    tplan_state *now = tplan_result_state(tplan_search_best(s), d, 0, &e);
    assert_non_null(now);
    assert_int_equal(tplan_state_tactic_count(now), 1);
    int sk[2], busy[2], started[2], nv[2] = {16, 16};
    double vars[2][16];
    const tplan_state *two[2] = {want, now};
    for (int k = 0; k < 2; ++k) {
        assert_int_equal(tplan_state_get_tactic(two[k], "cue_ball", &sk[k], &busy[k], &started[k], vars[k], &nv[k], &e),
                         TPLAN_OK);
    }
    assert_int_equal(sk[0], sk[1]);
    assert_int_equal(busy[0], busy[1]);
    assert_int_equal(started[0], started[1]);
    assert_int_equal(nv[0], nv[1]);
    assert_memory_equal(vars[0], vars[1], sizeof(double) * (size_t)nv[0]);
    tplan_state_free(now);
    tplan_state_free(sim);
    tplan_state_free(want);
    tplan_search_free(s);
    tplan_domain_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_kick_resumes_the_sequence),
        cmocka_unit_test(test_soccer_resumes_mid_skill),
        cmocka_unit_test(test_bad_tactics_and_memory),
        cmocka_unit_test(test_reroot_on_simulated_takes_tactics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
