/* Tests for the tp.heading condition (TP_COND_HEADING): a ball rolling along +x heads toward a
 * point ahead of it within the angle, not toward one to its side or behind it, not when it is
 * slower than `speed`; a bad angle is an error at the script's line. Fixtures:
 * scripts/heading.lua and scripts/err_heading.lua. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tp/lua.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fixture(const char *name)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s", TP_TEST_SCRIPTS, name);
    return buf;
}

/* 1 if the initial state of heading.lua with these parameters satisfies its goal */
static int heading_goal(const char *vx, const char *tx, const char *ty, const char *angle)
{
    tpScriptParam params[] = {{"vx", vx}, {"tx", tx}, {"ty", ty}, {"angle", angle}};
    char err[2048] = "";
    tpScript *s = tpLoadScript(fixture("heading.lua"), params, 4, err, sizeof err);
    if (!s)
        fprintf(stderr, "%s\n", err);
    assert_non_null(s);
    tpProblem p = tpDomain_Problem(tpScript_Domain(s));
    void *x = malloc(p.state_bytes);
    assert_non_null(x);
    p.initial_state(p.ctx, x);
    int r = p.goal(p.ctx, x);
    free(x);
    tpDestroyScript(s);
    return r;
}

static void test_heading(void **state)
{
    (void)state;
    assert_int_equal(heading_goal("1", "2", "0", "0.1"), 1);    /* straight ahead */
    assert_int_equal(heading_goal("1", "2", "0.1", "0.1"), 1);  /* 2.9 degrees off, within 5.7 */
    assert_int_equal(heading_goal("1", "2", "0.5", "0.1"), 0);  /* 14 degrees off */
    assert_int_equal(heading_goal("1", "2", "0.5", "0.3"), 1);  /* ... within 17 */
    assert_int_equal(heading_goal("1", "-2", "0", "3"), 0);     /* behind: 180 degrees */
    assert_int_equal(heading_goal("1", "-2", "0.1", "3.1"), 1); /* 177 degrees off, within 178 */
    assert_int_equal(heading_goal("0.2", "2", "0", "0.1"), 0);  /* slower than speed = 0.5 */
    assert_int_equal(heading_goal("-1", "-2", "0", "0.1"), 1);  /* rolling the other way */
}

static void test_heading_error(void **state)
{
    (void)state;
    char err[2048] = "";
    const char *path = fixture("err_heading.lua");
    tpScript *s = tpLoadScript(path, NULL, 0, err, sizeof err);
    assert_null(s);
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%s:4:", path);
    if (strncmp(err, prefix, strlen(prefix)) != 0)
        fprintf(stderr, "expected \"%s ...\", got \"%s\"\n", prefix, err);
    assert_memory_equal(err, prefix, strlen(prefix));
    assert_non_null(strstr(err, "tp.heading: angle must be in [0, pi]"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heading),
        cmocka_unit_test(test_heading_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
