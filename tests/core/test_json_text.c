/* tpJson_IsDocument, the syntax check that allocates nothing (core/src/json_text.c): it must say yes
 * only to what cJSON reads (so that a NULL from cJSON on such a text means out of memory), and yes to
 * the documents tplan's files and requests are. Cases by hand, then 20,000 texts made by mutating
 * them byte by byte with a fixed generator: whenever the check says yes, cJSON must read the text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "tp/json_text.h"

static bool is_doc(const char *s)
{
    return tpJson_IsDocument(s, strlen(s));
}

static const char *const k_good[] = {
    "{}",
    " [ ] ",
    "0",
    "-0.5e+10",
    "\"a\\u00e9\\ud83d\\ude00\\n\\\"\"",
    "{\"seed\":7,\"planner\":\"bgt\",\"nn_index\":false,\"mu\":1e3,\"x\":[1,2,{\"y\":null}]}",
    "\n\t{\"a\" : [true , false, null, -12.25E-3]}\r\n",
    "\"a\tb\x01\"", /* raw control characters in a string: cJSON reads them (the packed matrices) */
};

static const char *const k_bad[] = {
    "",
    "   ",
    "{",
    "{\"a\":1,}",
    "[1,]",
    "{\"a\" 1}",
    "{1:2}",
    "01",
    "1.",
    ".5",
    "+1",
    "1e",
    "tru",
    "nul",
    "\"abc",
    "\"a\\x\"",
    "\"\\ud800\"",        /* a lone high surrogate: cJSON refuses it */
    "\"\\udc00\"",        /* a lone low one */
    "\"\\ud800\\u0041\"", /* a high one not followed by a low one */
    "{} {}",
    "[1] x",
};

static void test_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof k_good / sizeof *k_good; ++i) {
        if (!is_doc(k_good[i])) {
            fail_msg("refused a document: %s", k_good[i]);
        }
        size_t stop = 0;
        cJSON *root = tpJson_ParseDocument(k_good[i], strlen(k_good[i]), &stop);
        assert_non_null(root);
        cJSON_Delete(root);
    }
    for (size_t i = 0; i < sizeof k_bad / sizeof *k_bad; ++i) {
        if (is_doc(k_bad[i])) {
            fail_msg("took for a document: %s", k_bad[i]);
        }
        /* cJSON itself is laxer ("01", "1.", a raw tab in a string read): what it refuses is
           broken text, never taken for a lack of memory */
        size_t stop = 0;
        cJSON *root = tpJson_ParseDocument(k_bad[i], strlen(k_bad[i]), &stop);
        assert_true(root != NULL || stop != TP_JSON_NO_MEMORY);
        cJSON_Delete(root);
    }
    /* nesting: 512 levels are a document, 513 are not (cJSON's own limit is 1000) */
    char deep[1100];
    memset(deep, '[', 512);
    memset(deep + 512, ']', 512);
    assert_true(tpJson_IsDocument(deep, 1024));
    memset(deep, '[', 513);
    memset(deep + 513, ']', 513);
    assert_false(tpJson_IsDocument(deep, 1026));
    /* a length shorter than the text: only the bytes given count */
    assert_true(tpJson_IsDocument("[1]xyz", 3));
    assert_false(tpJson_IsDocument("[1]", 2));
}

static void test_mutations_agree_with_cjson(void **state)
{
    (void)state;
    uint64_t rng = 0x9E3779B97F4A7C15u;
    const char alphabet[] = "{}[],:\"\\u0123456789abcdefABCDEF.eE+- \ttrufalsn\x01";
    int yes = 0;
    for (int round = 0; round < 20000; ++round) {
        char text[256];
        const char *base = k_good[(size_t)round % (sizeof k_good / sizeof *k_good)];
        size_t len = strlen(base);
        memcpy(text, base, len);
        for (int m = 0; m < 1 + round % 3; ++m) {
            rng = rng * 6364136223846793005u + 1442695040888963407u;
            size_t at = (size_t)(rng >> 33) % (len + 1);
            char c = alphabet[(rng >> 20) % (sizeof alphabet - 1)];
            int op = (int)((rng >> 12) % 3);
            if (op == 0 && at < len) { /* replace */
                text[at] = c;
            } else if (op == 1 && len + 1 < sizeof text) { /* insert */
                memmove(text + at + 1, text + at, len - at);
                text[at] = c;
                ++len;
            } else if (at < len) { /* delete */
                memmove(text + at, text + at + 1, len - at - 1);
                --len;
            }
        }
        if (tpJson_IsDocument(text, len)) {
            ++yes;
            cJSON *root = cJSON_ParseWithLength(text, len);
            if (!root) {
                fail_msg("a document to the check, not to cJSON: %.*s", (int)len, text);
            }
            cJSON_Delete(root);
        }
    }
    printf("%d of 20000 mutated texts are documents; cJSON reads each of them\n", yes);
    assert_true(yes > 100); /* the mutations leave enough documents to compare */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_mutations_agree_with_cjson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
