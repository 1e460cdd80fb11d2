/* The run definition's invariants (api/src/run_validate.c): the table of a run's fields and a state
 * of three bodies with its tactics and memory pass tpRun_FieldsValid and tpState_Valid, and each
 * rule, broken once on purpose (on a copy of the table; then restored), fails with its own message
 * -- so a rule that can never fail would show here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "break_rule.h"
#include "tp/base.h"
#include "tp/run_def.h"
#include "tp/run_fields.h"

static tpRunField g_rows[32];

/* The table as a validate function of one argument (BREAK_RULE's shape). */
static bool rows_valid(const tpRunField *rows, char *why, size_t cap)
{
    return tpRun_FieldsValid(rows, tpRun_FieldCount, why, cap);
}

/* The row named `name` in the copy. */
static tpRunField *row(const char *name)
{
    for (int i = 0; i < tpRun_FieldCount; i++)
        if (strcmp(g_rows[i].name, name) == 0)
            return &g_rows[i];
    fail_msg("no run field '%s'", name);
    return NULL;
}

static void test_table_rules(void **state)
{
    (void)state;
    assert_true(tpRun_FieldCount <= 32);
    memcpy(g_rows, tpRun_Fields, sizeof *g_rows * (size_t)tpRun_FieldCount);
    EXPECT_VALID(rows_valid, g_rows);
    char why[320] = "";
    assert_false(tpRun_FieldsValid(g_rows, 0, why, sizeof why));
    assert_non_null(strstr(why, "run fields: 0 rows"));
    tpRunField *seed = row("seed"), *mu = row("mu"), *nn = row("nn_index"), *tl = row("time_limit");
    BREAK_RULE(rows_valid, g_rows, seed->help, "", "run field 2: its name, help or unit missing");
    BREAK_RULE(rows_valid, g_rows, seed->name, "mu", "its name or flag is field 1's too");
    BREAK_RULE(rows_valid, g_rows, seed->flag, "--mu", "its name or flag is field 1's too");
    BREAK_RULE(rows_valid, g_rows, seed->type, (tpRunFieldType)9, "run field 'seed': type 9");
    BREAK_RULE(rows_valid, g_rows, seed->offset, sizeof(tplan_run_def), "member at byte");
    BREAK_RULE(rows_valid, g_rows, seed->offset, seed->offset + 4, "member at byte");
    BREAK_RULE(rows_valid, g_rows, seed->lo, 0.5, "run field 'seed': range 0.5..");
    BREAK_RULE(rows_valid, g_rows, seed->hi, -1.0, "run field 'seed': range 0..-1");
    BREAK_RULE(rows_valid, g_rows, mu->init, -2.0, "run field 'mu': default -2");
    BREAK_RULE(rows_valid, g_rows, mu->lo_open, false, "run field 'mu': unset value 0 is a value of its range");
    BREAK_RULE(rows_valid, g_rows, tl->unset_means, NULL, "unset value -1 is a value");
    BREAK_RULE(rows_valid, g_rows, tl->flag, NULL, "flag (none) for who");
    BREAK_RULE(rows_valid, g_rows, tl->flag, "time-limit", "flag time-limit");
    BREAK_RULE(rows_valid, g_rows, nn->flag_sets, 2.0, "--no-nn-index sets 2");
    BREAK_RULE(rows_valid, g_rows, nn->who, nn->who | TP_RUNF_SERVER, "run field 'nn_index': who 0x7");
    BREAK_RULE(rows_valid, g_rows, nn->who, nn->who | 8u, "run field 'nn_index': who 0xb");
    BREAK_RULE(rows_valid, g_rows, tl->svc_lo, -1.0, "the service's range -1..");
    BREAK_RULE(rows_valid, g_rows, tl->svc_bound, TP_RUNF_BOUND_COUNT, "(bound 4)");
}

static tplan_state *make_state(void)
{
    tplan_state *s = tpState_New("pool", 3);
    assert_non_null(s);
    const char *names[3] = {"cue", "red", "black"};
    for (int k = 0; k < 3; k++) {
        tpStrCopy(s->names[k], sizeof s->names[k], names[k]);
        s->x[k].quat[0] = 1;
        s->x[k].pos[0] = 0.1 * k;
    }
    s->t = 1.5;
    tpStateTactic tac[2];
    memset(tac, 0, sizeof tac);
    tpStrCopy(tac[0].name, sizeof tac[0].name, "shoot");
    tac[0].skill = 1, tac[0].busy = true, tac[0].started = true, tac[0].nvars = 2;
    tac[0].vars[0] = 0.5, tac[0].vars[1] = -3;
    tpStrCopy(tac[1].name, sizeof tac[1].name, "wait");
    const int32_t mem[3] = {0, 4, 1000};
    assert_true(tpState_SetMind(s, tac, 2, mem, 3));
    EXPECT_VALID(tpState_Valid, s);
    return s;
}

static void test_state_rules(void **state)
{
    (void)state;
    tplan_state *s = make_state();
    BREAK_RULE(tpState_Valid, s, s->n, -1, "state: domain name, -1 bodies");
    BREAK_TERMINATION(tpState_Valid, s, s->domain, "state: domain name");
    BREAK_RULE(tpState_Valid, s, s->t, -0.5, "state: time -0.5 s");
    BREAK_RULE(tpState_Valid, s, s->names[1][0], '\0', "body 1's name is empty");
    memcpy(s->names[2], "red", 4);
    EXPECT_BROKEN(tpState_Valid, s, "state: body 2 is 'red', as body 1");
    memcpy(s->names[2], "black", 6);
    BREAK_RULE(tpState_Valid, s, s->x[1].angvel[2], NAN, "state: body 'red' is not finite");
    BREAK_RULE(tpState_Valid, s, s->x[0].quat[1], 0.1, "state: body 'cue''s quaternion is not unit");
    BREAK_RULE(tpState_Valid, s, s->has_tactics, false, "state: tactics given 0, 2 of them");
    BREAK_RULE(tpState_Valid, s, s->tactics[1].name[0], '\0', "tactic 1's name is empty");
    BREAK_RULE(tpState_Valid, s, s->tactics[0].nvars, TP_STATE_MAX_VARS + 1, "tactic 'shoot': skill 1, 17 variables");
    BREAK_RULE(tpState_Valid, s, s->tactics[0].skill, -1, "tactic 'shoot': skill -1");
    BREAK_RULE(tpState_Valid, s, s->tactics[0].started, false, "tactic 'shoot' is busy before its first step");
    BREAK_RULE(tpState_Valid, s, s->tactics[0].vars[1], INFINITY, "tactic 'shoot': variable 1 is inf");
    BREAK_RULE(tpState_Valid, s, s->nmemory, TP_STATE_MAX_MEMORY + 1, "state: memory given 1, 4097 slots");
    BREAK_RULE(tpState_Valid, s, s->memory[2], TP_STATE_MAX_MEMORY_VALUE + 1, "memory slot 2 holds 1000001");
    tplan_state_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_rules),
        cmocka_unit_test(test_state_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
