/* The service's request-body checks (service/src/reqcheck.c), without a server: UTF-8 by RFC 3629
 * (overlong forms, surrogates, beyond U+10FFFF), \u0000 inside strings (not an escaped backslash
 * followed by "u0000"), members given twice at any depth, and a body of hundreds of thousands of
 * members, which the pairwise duplicate check once took minutes of a server thread over (a 4 MiB
 * body; 80,000 members took 17 s): here it must finish well inside the test's time limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reqcheck_testing.h"

static void test_utf8(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        size_t bad; /* offset of the first bad byte, (size_t)-1 = valid */
    } cases[] = {
        {"plain ascii", (size_t)-1},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xb1", (size_t)-1}, /* 2-, 3- and 4-byte characters */
        {"\xef\xbf\xbf \xf4\x8f\xbf\xbf", (size_t)-1},             /* U+FFFF and U+10FFFF */
        {"ab\xff", 2},                                             /* never valid */
        {"a\xc0\xaf", 1},                                          /* overlong '/' */
        {"\xe0\x80\xaf", 0},                                       /* overlong, 3 bytes */
        {"x\xed\xa0\x80", 1},                                      /* a UTF-16 surrogate */
        {"\xf4\x90\x80\x80", 0},                                   /* beyond U+10FFFF */
        {"ok \xe2\x82", 3},                                        /* cut short */
        {"\xc3(", 0},                                              /* bad continuation */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        size_t got = svcUtf8Invalid(cases[i].s, strlen(cases[i].s));
        if (got != cases[i].bad) {
            fail_msg("case %zu: first bad byte %zu, expected %zu", i, got, cases[i].bad);
        }
    }
    char s[] = "a\xff"
               "b\xc3\xa9"
               "c\xed\xa0\x80";
    svcUtf8Repair(s);
    assert_string_equal(s, "a?b\xc3\xa9"
                           "c???");
    assert_true(svcUtf8Invalid(s, strlen(s)) == (size_t)-1);
}

/* svcBodyCheck of text: the expected verdict, and a message/field containing want/want_field. */
static void expect(const char *text, bool ok, const char *want, const char *want_field)
{
    cJSON *req = cJSON_Parse(text);
    assert_non_null(req);
    char msg[256] = "", field[128] = "x";
    bool got = svcBodyCheck(text, strlen(text), req, msg, sizeof msg, field, sizeof field);
    cJSON_Delete(req);
    if (got != ok || (want && !strstr(msg, want)) || (want_field && strcmp(field, want_field) != 0)) {
        fail_msg("%s: %s \"%s\" (field \"%s\"), expected %s \"%s\"", text, got ? "accepted" : "refused", msg, field,
                 ok ? "accepted" : "refused", want ? want : "");
    }
}

static void test_body_checks(void **state)
{
    (void)state;
    expect("{\"domain\": \"minigolf\", \"seed\": 3}", true, NULL, "");
    expect("{\"domain\": \"minigolf\\u0000junk\"}", false, "\\u0000", "");
    expect("{\"a\": \"back\\\\u0000slash\"}", true, NULL, ""); /* "\\" then "u0000": no NUL */
    expect("{\"a\": \"\\u0001\"}", true, NULL, "");
    expect("{\"seed\": 1, \"domain\": \"pool\", \"seed\": 2}", false, "given twice", "seed");
    expect("{\"set\": {\"n\": 1, \"m\": 2, \"n\": 3}}", false, "given twice", "n");
    expect("{\"tags\": [{\"k\": 1}, {\"k\": 1, \"k\": 2}]}", false, "given twice", "k");
    expect("{\"set\": {\"n\": 1}, \"tags\": [{\"n\": 1}], \"n\": 2}", true, NULL, ""); /* other objects */
    const char bad_utf8[] = "{\"name\": \"\xff\"}";
    cJSON *req = cJSON_Parse(bad_utf8);
    char msg[256], field[64];
    assert_false(svcBodyCheck(bad_utf8, strlen(bad_utf8), req, msg, sizeof msg, field, sizeof field));
    assert_non_null(strstr(msg, "not UTF-8: byte 10"));
    cJSON_Delete(req);
}

/* A 4 MiB body of unique members with one repeated at the end, and one with none. */
static void test_many_members(void **state)
{
    (void)state;
    const int n = 400000;
    size_t cap = (size_t)n * 16 + 64, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text + len, cap - len, "{\"set\": {");
    for (int i = 0; i < n; ++i) {
        len += (size_t)snprintf(text + len, cap - len, "%s\"%x\": 1", i ? ", " : "", i);
    }
    for (int twice = 0; twice < 2; ++twice) {
        size_t end = len;
        if (twice) {
            end += (size_t)snprintf(text + end, cap - end, ", \"%x\": 2", n / 2);
        }
        snprintf(text + end, cap - end, "}}");
        cJSON *req = cJSON_Parse(text);
        assert_non_null(req);
        char msg[256] = "", field[64] = "";
        bool ok = svcBodyCheck(text, strlen(text), req, msg, sizeof msg, field, sizeof field);
        cJSON_Delete(req);
        assert_true(ok == !twice);
        if (twice) {
            char want[16];
            snprintf(want, sizeof want, "%x", n / 2);
            assert_string_equal(field, want);
        }
    }
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_body_checks),
        cmocka_unit_test(test_many_members),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
