/* The files a plan embeds (member "sources"): exact round trips of text and binary
 * files (UTF-8 as "text", anything else as canonical "base64"), byte-identical rewrites, and
 * refusals, by the writer and by the reader, of a file whose bytes no longer match its hash (an
 * embedded script edited after planning), of paths that leave the script's folder, of duplicate
 * paths, of a first file that is not domain.file, and of malformed entries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/plan.h"

#include "plan_edit.h"
#include "tmp_dir.h"

static void set_source(tpPlanSource *s, const char *path, const void *data, size_t len)
{
    char hash[32];
    tpPlan_HashString(data, len, hash);
    s->path = strdup(path);
    s->hash = strdup(hash);
    s->data = malloc(len + 1);
    memcpy(s->data, data, len);
    s->data[len] = '\0';
    s->len = len;
}

static const char k_script[] =
    "-- \"e\" \\ caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xb2\n\tlocal tp = require \"tp\"\r\n\x01";
static const unsigned char k_image[] = {'P', '5', '\n', '2', ' ', '1', '\n', '2', '5', '5', '\n', 0, 0xff, 0x80};

/* A minimal record whose script e.lua read lib/m.lua, a binary image and an empty file. */
static void build(tpPlanRecord *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->domain_name = strdup("e");
    rec->domain_file = strdup("e.lua");
    char hash[32];
    tpPlan_HashString(k_script, strlen(k_script), hash);
    rec->domain_hash = strdup(hash);
    rec->planner = strdup("bgt");
    rec->status = strdup("approximate");
    rec->dt = 0.01;
    rec->nworlds = 1;
    rec->worlds = calloc(1, sizeof *rec->worlds);
    assert_true(tpPlanWorld_Alloc(&rec->worlds[0], rec, 0));
    rec->nsources = 4;
    rec->sources = calloc(4, sizeof *rec->sources);
    set_source(&rec->sources[0], "e.lua", k_script, strlen(k_script));
    set_source(&rec->sources[1], "lib/m.lua", "return 1\n", 9);
    set_source(&rec->sources[2], "img/mark.pgm", k_image, sizeof k_image);
    set_source(&rec->sources[3], "tracks/empty.json", "", 0);
}

static void test_round_trip(void **state)
{
    (void)state;
    tpPlanRecord rec, back;
    build(&rec);
    char *ta = plan_round_trip(&rec, &back);
    assert_int_equal(back.nsources, 4);
    for (int k = 0; k < 4; ++k) {
        assert_string_equal(back.sources[k].path, rec.sources[k].path);
        assert_string_equal(back.sources[k].hash, rec.sources[k].hash);
        assert_int_equal(back.sources[k].len, rec.sources[k].len);
        assert_memory_equal(back.sources[k].data, rec.sources[k].data, rec.sources[k].len);
        assert_int_equal(back.sources[k].data[back.sources[k].len], 0); /* NUL after the bytes */
    }
    /* text stays readable; the image (NUL, 0xff) is base64 */
    assert_non_null(strstr(ta, "\"path\": \"lib/m.lua\""));
    assert_non_null(strstr(ta, "\"text\": \"return 1\\n\""));
    assert_non_null(strstr(ta, "\"base64\": \"UDUKMiAxCjI1NQoA/4A=\""));
    assert_non_null(strstr(ta, "caf\xc3\xa9")); /* UTF-8 as is */
    free(ta);
    tpPlanRecord_Free(&back);
    tpPlanRecord_Free(&rec);
}

static void test_writer_refusals(void **state)
{
    (void)state;
    tpPlanRecord rec;
    build(&rec);
    rec.sources[1].data[0] = 'R'; /* the bytes changed, the hash did not */
    plan_expect_write_refused(&rec, "sources[1]: the bytes of 'lib/m.lua' hash to");
    rec.sources[1].data[0] = 'r';
    static const char *const bad[] = {"../m.lua", "/etc/passwd", "lib//m.lua", "lib/./m.lua", "lib/",
                                      "",         "a\\b",        "lib/../../x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        assert_false(tpPlan_IsSourcePath(bad[i]));
        char *keep = rec.sources[1].path;
        rec.sources[1].path = (char *)bad[i];
        plan_expect_write_refused(&rec, "sources[1].path");
        rec.sources[1].path = keep;
    }
    assert_true(tpPlan_IsSourcePath("lib/m.lua") && tpPlan_IsSourcePath("a..b/.x"));
    free(rec.sources[2].path);
    rec.sources[2].path = strdup("lib/m.lua");
    plan_expect_write_refused(&rec, "sources[2].path: \"lib/m.lua\" is also the path of sources[1]");
    free(rec.sources[2].path);
    rec.sources[2].path = strdup("img/mark.pgm");
    free(rec.domain_file);
    rec.domain_file = strdup("/home/someone/e.lua"); /* the script as given: no longer accepted with sources */
    plan_expect_write_refused(&rec, "sources[0].path: \"e.lua\" is not the script of domain.file");
    tpPlanRecord_Free(&rec);
}

/* Writes build()'s plan, applies an edit to its text and expects the reader to refuse it. */
#define expect_edit_refused(from, to, want) plan_expect_built_edit_refused(build, from, to, want)

static void test_reader_refusals(void **state)
{
    (void)state;
    /* an embedded module or script edited in the plan: its hash no longer matches */
    expect_edit_refused("return 1", "return 2", "sources[1]: the bytes of 'lib/m.lua' hash to");
    expect_edit_refused("local tp", "local TP", "the embedded file was changed after planning");
    expect_edit_refused("UDUKMiAxCjI1NQoA/4A=", "UDUKMiAxCjI1NQoA/4B=", "sources[2].base64: not canonical base64");
    expect_edit_refused("UDUKMiAxCjI1NQoA/4A=", "UDUKMiAxCjI1NQoA/4A", "sources[2].base64: not canonical base64");
    expect_edit_refused("UDUKMiAxCjI1NQoA/4A=", "UDUKMiAxCjI1NQoA/4A=\", \"text\": \"x",
                        "sources[2]: expected exactly one of");
    expect_edit_refused("\"path\": \"lib/m.lua\"", "\"path\": \"../m.lua\"", "sources[1].path");
    expect_edit_refused("\"path\": \"lib/m.lua\"", "\"path\": \"e.lua\"", "is also the path of sources[0]");
    expect_edit_refused("\"path\": \"e.lua\"", "\"path\": \"f.lua\"", "is not the script of domain.file");
    expect_edit_refused("\"path\": \"lib/m.lua\", \"hash\"", "\"path\": \"lib/m.lua\", \"hush\"",
                        "expected the strings \"path\" and \"hash\"");
    expect_edit_refused("\"sources\": [", "\"sources\": 7, \"x\": [", "sources: expected an array");
    expect_edit_refused("\"text\": \"return 1\\n\"", "\"text\": \"\\udfff\"", "invalid JSON");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_writer_refusals),
        cmocka_unit_test(test_reader_refusals),
    };
    return cmocka_run_group_tests(tests, tmp_dir_setup, tmp_dir_teardown);
}
