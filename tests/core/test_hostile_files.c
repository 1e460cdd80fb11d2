/* Untrusted files: every reader refuses non-regular files (a FIFO must not hang it,
 * /dev/zero must not be read forever) and files over its size cap with one message naming the
 * file; the plan reader refuses values outside the physical ranges of tp/base.h and NULs in
 * strings; the track reader bounds counts, lengths and values; tpPattern_Cells refuses images
 * whose lit pixels are too sparse instead of looping for hours. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tp/base.h"
#include "tp/nav.h"
#include "tp/pattern.h"
#include "tp/plan.h"

#include "tmp_dir.h"

static void spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* A FIFO with no writer (opening it for reading without O_NONBLOCK blocks forever), a directory,
 * /dev/zero (endless), and a sparse file one byte over `cap` (nothing to read, the size decides). */
static const char *special_file(int kind, size_t cap)
{
    const char *p;
    switch (kind) {
    case 0:
        p = tmp_path("fifo");
        unlink(p);
        assert_int_equal(mkfifo(p, 0600), 0);
        return p;
    case 1:
        p = tmp_path("dir");
        rmdir(p);
        assert_int_equal(mkdir(p, 0700), 0);
        return p;
    case 2:
        return "/dev/zero";
    default:
        p = tmp_path("huge");
        spit(p, "", 0);
        assert_int_equal(truncate(p, (off_t)cap + 1), 0);
        return p;
    }
}

/* err starts with "path: " and contains want. */
static void assert_refusal(const char *err, const char *path, const char *want)
{
    if (strncmp(err, path, strlen(path)) != 0 || err[strlen(path)] != ':' || !strstr(err, want)) {
        fail_msg("expected \"%s: ...%s...\", got \"%s\"", path, want, err);
    }
}

static const char *const k_special_want[4] = {"not a regular file", "not a regular file", "not a regular file",
                                              "larger than"};

/* ------------------------------------------------------------------------------------------ */
/* Plan files                                                                                 */

static const char k_plan[] =
    "{\"format\": \"tplan-plan\", \"version\": 1,\n"
    " \"domain\": {\"name\": \"t\", \"file\": \"t.lua\", \"hash\": \"fnv1a64:0123456789abcdef\"},\n"
    " \"seed\": 1, \"planner\": {\"algorithm\": \"bgt\", \"mu\": 1000, \"max_iters\": 10, \"time_limit\": 0, "
    "\"solutions\": 1},\n"
    " \"status\": \"solved\", \"dt\": 0.016666666666666666, \"steps\": 1, \"cost\": 1,\n"
    " \"bodies\": [\n"
    "  {\"name\": \"ground\", \"class\": \"static\", \"shape\": \"plane\", \"size\": [0, 0, 1, 0], "
    "\"color\": [1, 1, 1, 1],\n"
    "   \"pose\": [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]},\n"
    "  {\"name\": \"robot\", \"class\": \"active\", \"shape\": \"box\", \"size\": [0.2, 0.2, 0.2, 0], "
    "\"color\": [1, 1, 1, 1],\n"
    "   \"trajectory\": [[0, 0, 0.1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],\n"
    "                  [0.5, 0, 0.1, 0.6, 0, 0, 0.8, 3, 0, 0, 0, 0, 7]],\n"
    "   \"controls\": [[1, 2, 3, 4, 5, 6]]}],\n"
    " \"tactics\": [{\"name\": \"t\", \"body\": \"robot\", \"skills\": [\"wait\"], \"active\": [0]}],\n"
    " \"alternatives\": [],\n"
    " \"stats\": {\"iterations\": 1, \"nodes\": 2, \"rejected\": 0, \"solutions\": 1, \"memory_bytes\": 100,\n"
    "  \"report\": {\"on_target\": 0.5},\n"
    "  \"timing\": {\"select\": 0, \"tactics\": 0, \"physics\": 0, \"check\": 0, \"total\": 0}}}\n";

/* k_plan with the first `from` replaced by `to` (both non-empty). */
static char *plan_with(const char *from, const char *to)
{
    const char *at = strstr(k_plan, from);
    if (!at) {
        fail_msg("\"%s\" is not in the test plan", from);
    }
    size_t n = strlen(k_plan), nf = strlen(from), nt = strlen(to), pre = (size_t)(at - k_plan);
    char *out = malloc(n - nf + nt + 1);
    assert_non_null(out);
    memcpy(out, k_plan, pre);
    memcpy(out + pre, to, nt);
    memcpy(out + pre + nt, at + nf, n - pre - nf + 1);
    return out;
}

/* Parses text from an exact-size heap copy (no terminator: ASan sees any read past the end). */
static bool parse_exact(const char *text, size_t len, tpPlanRecord *rec, char *err, size_t errlen)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    bool ok = tpPlanRecord_Parse(rec, copy, len, "p.json", err, errlen);
    free(copy);
    return ok;
}

static void expect_plan_refused(const char *from, const char *to, const char *want)
{
    char *text = plan_with(from, to);
    char err[512] = "";
    tpPlanRecord rec;
    if (parse_exact(text, strlen(text), &rec, err, sizeof err)) {
        tpPlanRecord_Free(&rec);
        fail_msg("\"%s\" -> \"%s\" was accepted", from, to);
    }
    assert_refusal(err, "p.json", want);
    /* One line: the CLI prints it as is. */
    assert_null(strchr(err, '\n'));
    free(text);
}

static void test_plan_valid_base(void **state)
{
    (void)state;
    char err[512] = "";
    tpPlanRecord rec;
    if (!parse_exact(k_plan, strlen(k_plan), &rec, err, sizeof err)) {
        fail_msg("the test plan is refused: %s", err);
    }
    assert_int_equal(rec.nbodies, 2);
    assert_true(rec.worlds[0].controls[1][5] == 6.0);
    tpPlanRecord_Free(&rec);
    /* An escaped backslash before "u0000" is a backslash, not a NUL. */
    char *text = plan_with("\"robot\"", "\"rob\\\\u0000ot\"");
    char *fixed = NULL;
    {
        const char *at = strstr(text, "\"body\": \"robot\"");
        assert_non_null(at);
        size_t n = strlen(text), pre = (size_t)(at - text);
        const char *to = "\"body\": \"rob\\\\u0000ot\"";
        fixed = malloc(n + strlen(to) + 1);
        memcpy(fixed, text, pre);
        strcpy(fixed + pre, to);
        strcat(fixed, at + strlen("\"body\": \"robot\""));
    }
    if (!parse_exact(fixed, strlen(fixed), &rec, err, sizeof err)) {
        fail_msg("a name with an escaped backslash is refused: %s", err);
    }
    assert_string_equal(rec.bodies[1].name, "rob\\u0000ot");
    tpPlanRecord_Free(&rec);
    free(fixed);
    free(text);
}

static void test_plan_ranges(void **state)
{
    (void)state;
    /* The repro of the hostile-input audit: a 1e308 torque reached ODE on replay and aborted the process. */
    expect_plan_refused("[1, 2, 3, 4, 5, 6]", "[1, 2, 3, 4, 5, 1e308]",
                        "bodies[1].controls[0][5]: 1e+308 is outside +-1e+12");
    expect_plan_refused("[1, 2, 3, 4, 5, 6]", "[-2e12, 2, 3, 4, 5, 6]",
                        "bodies[1].controls[0][0]: -2000000000000 is outside");
    expect_plan_refused("[0.5, 0, 0.1,", "[2e6, 0, 0.1,", "bodies[1].trajectory[1][0]: 2000000 is outside +-1e+06");
    expect_plan_refused("0.8, 3, 0, 0,", "0.8, 3, 2e5, 0,", "bodies[1].trajectory[1][8]: 200000 is outside +-100000");
    expect_plan_refused("0, 0, 0, 7]]", "0, 0, 0, -1e300]]", "bodies[1].trajectory[1][12]: -1.0000000000000001e+300");
    expect_plan_refused("0.6, 0, 0, 0.8", "0.6, 0, 0, 0.9", "bodies[1].trajectory[1][3]: the quaternion");
    expect_plan_refused("[0, 0, 0.1, 1, 0, 0, 0,", "[0, 0, 0.1, 0, 0, 0, 0,", "trajectory[0][3]: the quaternion");
    expect_plan_refused("[0, 0, 0, 1, 0, 0, 0,", "[0, 0, 1e7, 1, 0, 0, 0,", "bodies[0].pose[2]: 10000000 is outside");
    expect_plan_refused("[0.2, 0.2, 0.2, 0]", "[0.2, 0, 0.2, 0]", "bodies[1].size[1]: 0 is not a length");
    expect_plan_refused("[0.2, 0.2, 0.2, 0]", "[0.2, 0.2, 1e300, 0]", "bodies[1].size[2]: 1.0000000000000001e+300");
    expect_plan_refused("[0, 0, 1, 0]", "[0, 0, 0, 0]", "bodies[0].size[0]: the plane's normal");
    expect_plan_refused("\"dt\": 0.016666666666666666", "\"dt\": 0", "dt: 0 is not a step length");
    expect_plan_refused("\"dt\": 0.016666666666666666", "\"dt\": -1", "dt: -1 is not a step length");
    expect_plan_refused("\"on_target\": 0.5", "\"on_target\": 1e999", "stats.report: on_target: number out of range");
}

static void test_plan_strings(void **state)
{
    (void)state;
    /* cJSON cut the name at the NUL and the plan was accepted with body "rob". */
    expect_plan_refused("\"robot\"", "\"rob\\u0000ot\"",
                        "invalid JSON: line 8, column 16: \\u0000 (NUL) inside a string");
    expect_plan_refused("\"t.lua\"", "\"t\\u0000.lua\"", "\\u0000 (NUL)");
    expect_plan_refused("\"seed\"", "\"se\\u0000ed\"", "\\u0000 (NUL)");
    expect_plan_refused("\"wait\"", "\"w\\u0000\"", "\\u0000 (NUL)");
    /* Bytes that are not UTF-8 (a stray 0xFF, a UTF-16 surrogate, an overlong '/', a sequence cut
     * short): passed on into an exported glTF's JSON before (repro plan_reader_accepts_non_utf8). */
    expect_plan_refused("\"robot\"",
                        "\"rob\xff"
                        "ot\"",
                        "line 8, column 16: byte 0xFF is not UTF-8");
    expect_plan_refused("\"t.lua\"",
                        "\"t\xed\xb3\xbf"
                        ".lua\"",
                        "byte 0xED is not UTF-8");
    expect_plan_refused("\"t.lua\"",
                        "\"..\xc0\xaf"
                        "t.lua\"",
                        "byte 0xC0 is not UTF-8");
    expect_plan_refused("\"wait\"", "\"w\xe2\x82\"", "byte 0xE2 is not UTF-8");
    expect_plan_refused("\"wait\"", "\"w\xf4\x90\x80\x80\"", "byte 0xF4 is not UTF-8"); /* above U+10FFFF */
    /* well-formed UTF-8 of every length is taken as it is */
    {
        char *ok = plan_with("\"name\": \"t\"", "\"name\": \"t\xc3\xa9\xe2\x82\xac\xf0\x9f\x8e\xb1\"");
        char err0[512] = "";
        tpPlanRecord rec0;
        assert_true(parse_exact(ok, strlen(ok), &rec0, err0, sizeof err0));
        assert_string_equal(rec0.domain_name, "t\xc3\xa9\xe2\x82\xac\xf0\x9f\x8e\xb1");
        tpPlanRecord_Free(&rec0);
        free(ok);
    }
    /* Text after the plan, and a raw NUL byte. */
    char err[512] = "";
    tpPlanRecord rec;
    size_t n = strlen(k_plan);
    char *text = malloc(n + 8);
    memcpy(text, k_plan, n);
    memcpy(text + n, "  x", 3);
    assert_false(parse_exact(text, n + 3, &rec, err, sizeof err));
    assert_refusal(err, "p.json", "invalid JSON at line 17, column 3");
    text[10] = '\0';
    assert_false(parse_exact(text, n, &rec, err, sizeof err));
    assert_refusal(err, "p.json", "NUL byte in the file (offset 10)");
    free(text);
}

static void test_plan_rejections(void **state)
{
    (void)state;
    /* stats.rejections is untrusted text printed by the viewer and the service: one line, known
       reasons, counts that add up */
    const char *ok = "\"rejected\": 3, \"rejections\": {\"valid\": {\"count\": 3, \"iteration\": 1, "
                     "\"first\": \"function (t.lua:3) was false\"}}";
    char *text = plan_with("\"rejected\": 0", ok);
    char err[512] = "";
    tpPlanRecord rec;
    if (!parse_exact(text, strlen(text), &rec, err, sizeof err)) {
        fail_msg("a plan with rejections is refused: %s", err);
    }
    assert_int_equal(rec.rejections[TP_REJECT_VALID].count, 3);
    tpPlanRecord_Free(&rec);
    free(text);
    expect_plan_refused("\"rejected\": 0", "\"rejected\": 0, \"rejections\": {\"\\u001b[2J\": {}}",
                        "stats.rejections: unknown reason");
    expect_plan_refused("\"rejected\": 0",
                        "\"rejected\": 1, \"rejections\": {\"valid\": {\"count\": 1, \"iteration\": 1, "
                        "\"first\": \"\\u001b[2J\"}}",
                        "stats.rejections.valid.first: control character 0x1b at byte 0");
    expect_plan_refused("\"rejected\": 0",
                        "\"rejected\": 1, \"rejections\": {\"valid\": {\"count\": 9007199254740993, "
                        "\"iteration\": 1, \"first\": \"\"}}",
                        "stats.rejections.valid.count: must be in 1..stats.rejected (1), got 9007199254740992");
    expect_plan_refused("\"rejected\": 0",
                        "\"rejected\": 1, \"rejections\": {\"valid\": {\"count\": 1, \"iteration\": 2, "
                        "\"first\": \"\"}}",
                        "stats.rejections.valid.iteration: must be in 1..stats.iterations (1), got 2");
}

static void test_plan_grid_budget(void **state)
{
    (void)state;
    /* A grid overlay of 2^26 cells is 10 bytes of run-length string: one is the most a plan may
     * hold (2^26 cells in all); more used to be allocated too (64 MB each from 120 bytes). */
    const char *grid = "{\"kind\": \"grid\", \"tactic\": \"t\", \"steps\": [0, 0], \"origin\": [0, 0], "
                       "\"cell\": 0.1, \"size\": [8192, 8192], \"cells\": \"67108864.\"}";
    for (int n = 1; n <= 2; ++n) {
        char overlays[2048] = " \"overlays\": [";
        for (int k = 0; k < n; ++k) {
            strcat(overlays, k ? ", " : "");
            strcat(overlays, grid);
        }
        strcat(overlays, "],\n \"stats\"");
        char *text = plan_with(" \"stats\"", overlays);
        char err[512] = "";
        tpPlanRecord rec;
        bool ok = parse_exact(text, strlen(text), &rec, err, sizeof err);
        if (n == 1) {
            if (!ok) {
                fail_msg("one grid refused: %s", err);
            }
            assert_int_equal(rec.noverlays, 1);
            tpPlanRecord_Free(&rec);
        } else {
            assert_false(ok);
            assert_refusal(err, "p.json", "overlays[1].size: the grids hold more than 67108864 cells in all");
        }
        free(text);
    }
}

static void test_plan_placeholder(void **state)
{
    (void)state;
    /* The reader lifts well-formed matrices out of the text and leaves a string placeholder that
     * starts with byte 0x01; a string the file spells "\u00010" passed for the robot's matrix, so
     * the ball silently got the robot's trajectory. */
    expect_plan_refused("\"controls\": [[1, 2, 3, 4, 5, 6]]}",
                        "\"controls\": [[1, 2, 3, 4, 5, 6]]},\n  {\"name\": \"ball\", \"class\": \"passive\", "
                        "\"shape\": \"sphere\", \"size\": [0.1, 0, 0, 0], \"color\": [1, 1, 1, 1], "
                        "\"trajectory\": \"\\u00010\"}",
                        "bodies[2].trajectory: expected an array, got a string");
}

static void test_plan_special_files(void **state)
{
    (void)state;
    for (int kind = 0; kind < 4; ++kind) {
        const char *p = special_file(kind, TP_MAX_PLAN_BYTES);
        char err[512] = "";
        tpPlanRecord rec;
        assert_false(tpPlanRecord_Read(&rec, p, err, sizeof err));
        assert_refusal(err, p, k_special_want[kind]);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Tree files                                                                                 */

static void test_tree_special_files(void **state)
{
    (void)state;
    for (int kind = 0; kind < 3; ++kind) {
        const char *p = special_file(kind, 0);
        char err[512] = "";
        tpTreeRecord rec;
        assert_false(tpTreeRecord_Read(&rec, p, err, sizeof err));
        assert_refusal(err, p, "not a regular file");
    }
    /* A header claiming 2^20 + 1 bodies in a file long enough for their 2-byte name lengths. */
    const char *p = tmp_path("bodies.tree");
    size_t len = (size_t)3 << 20;
    unsigned char *bytes = calloc(len, 1);
    assert_non_null(bytes);
    memcpy(bytes, TP_TREE_MAGIC, 8);
    bytes[8] = TP_TREE_VERSION;
    uint32_t nb = (1u << 20) + 1;
    for (int i = 0; i < 4; ++i) {
        bytes[12 + i] = (unsigned char)(nb >> (8 * i));
    }
    spit(p, bytes, len);
    free(bytes);
    char err[512] = "";
    tpTreeRecord rec;
    assert_false(tpTreeRecord_Read(&rec, p, err, sizeof err));
    assert_refusal(err, p, "absurd body count 1048577");
}

/* ------------------------------------------------------------------------------------------ */
/* Images and patterns                                                                        */

static void test_pnm_special_files(void **state)
{
    (void)state;
    for (int kind = 0; kind < 4; ++kind) {
        const char *p = special_file(kind, TP_MAX_DATA_BYTES);
        char err[512] = "";
        tpBitmap bm;
        assert_false(tpBitmap_ReadPnm(p, false, &bm, err, sizeof err));
        assert_refusal(err, p, k_special_want[kind]);
        assert_null(bm.px);
    }
}

static void test_pattern_sparse(void **state)
{
    (void)state;
    /* One lit pixel in 4096 x 4096: 400 cells need cells of 1/20 pixel, a grid of 6.7e9 cells per
     * try (the loop ran for hours and overflowed int); now refused. */
    tpBitmap bm = {4096, 4096, calloc((size_t)4096 * 4096, 1)};
    assert_non_null(bm.px);
    bm.px[(size_t)2000 * 4096 + 3000] = 1;
    double xy[2 * 400];
    char err[512] = "";
    assert_int_equal(tpPattern_Cells(&bm, 400, 0.2, xy, err, sizeof err), -1);
    assert_non_null(strstr(err, "too few lit pixels for 400 cells (1 lit of 4096 x 4096"));
    /* Sparse but possible: 1 lit pixel of 8 x 8, 16 cells (cells of a quarter pixel). */
    tpBitmap small = {8, 8, calloc(64, 1)};
    small.px[3 * 8 + 5] = 1;
    assert_int_equal(tpPattern_Cells(&small, 16, 0.2, xy, err, sizeof err), 16);
    tpBitmap_Free(&small);
    tpBitmap_Free(&bm);
}

/* ------------------------------------------------------------------------------------------ */
/* Track files                                                                                */

static const char k_track[] = "{\"name\": \"t\", \"walls\": [[0, -5, 100, -5], [0, 5, 100, 5]],\n"
                              " \"cars\": [{\"pos\": [30, 0], \"vel\": [5, 0], \"heading\": 0.5}],\n"
                              " \"start\": [0, 0, 0], \"goal\": [120, 0], \"finish\": [90, -5, 90, 5]}\n";

static void expect_track(const char *text, size_t len, const char *want)
{
    char *copy = malloc(len ? len : 1);
    memcpy(copy, text, len);
    char err[512] = "";
    tpNavTrackFile *t = tpNavTrack_Parse(copy, len, "t.json", err, sizeof err);
    free(copy);
    if (!want) {
        if (!t) {
            fail_msg("refused: %s", err);
        }
        tpNavTrack_Free(t);
        return;
    }
    if (t) {
        tpNavTrack_Free(t);
        fail_msg("accepted, expected \"%s\"", want);
    }
    assert_refusal(err, "t.json", want);
}

static void expect_track_edit(const char *from, const char *to, const char *want)
{
    const char *at = strstr(k_track, from);
    assert_non_null(at);
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - k_track), k_track, to, at + strlen(from));
    expect_track(buf, strlen(buf), want);
}

static void test_track_refusals(void **state)
{
    (void)state;
    expect_track(k_track, strlen(k_track), NULL);
    expect_track_edit("\"name\": \"t\"", "\"name\": \"t\\u0000x\"", "\\u0000 (NUL) inside a string");
    expect_track_edit("[0, 5, 100, 5]", "[0, 5, 1e7, 5]", "walls[1]: a coordinate is outside +-1e+06");
    expect_track_edit("\"vel\": [5, 0]", "\"vel\": [5, 1e9]", "cars[0].'vel'[1]: 1000000000 is outside");
    expect_track_edit("\"heading\": 0.5", "\"heading\": 1e300", "cars[0].'heading'");
    expect_track_edit("\"goal\": [120, 0]", "\"goal\": [1e300, 0]", "'goal'[0]");
    expect_track_edit("\"start\": [0, 0, 0]", "\"start\": [0, 0, -1e9]", "'start'[2]");
    expect_track_edit("\"name\": \"t\"",
                      "\"name\": \"0123456789012345678901234567890123456789012345678901234567890123\"",
                      "'name' is longer than 63 bytes");
    /* Text after the object was ignored, and a NUL byte cut the file short silently. */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s trailing", k_track);
    expect_track(buf, strlen(buf), "not a JSON object");
    memcpy(buf, k_track, sizeof k_track);
    buf[sizeof k_track - 1] = '\0';
    expect_track(buf, sizeof k_track, "NUL byte in the file");
    /* TP_NAV_TRACK_MAX_WALLS + 1 walls. */
    size_t cap = (size_t)(TP_NAV_TRACK_MAX_WALLS + 1) * 16 + 256, n = 0;
    char *big = malloc(cap);
    n += (size_t)snprintf(big + n, cap - n, "{\"walls\": [");
    for (int i = 0; i <= TP_NAV_TRACK_MAX_WALLS; ++i) {
        n += (size_t)snprintf(big + n, cap - n, "%s[0,0,1,1]", i ? "," : "");
    }
    n += (size_t)snprintf(big + n, cap - n, "], \"start\": [0,0,0], \"goal\": [1,1], \"finish\": [0,1,1,0]}");
    expect_track(big, n, "65537 walls and 0 cars (at most 65536 and 4096)");
    free(big);
    /* Files: a FIFO, a directory, /dev/zero, one byte over TP_MAX_DATA_BYTES. */
    for (int kind = 0; kind < 4; ++kind) {
        const char *p = special_file(kind, TP_MAX_DATA_BYTES);
        char err[512] = "";
        assert_null(tpNavTrack_Load(p, err, sizeof err));
        assert_refusal(err, p, k_special_want[kind]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_valid_base),   cmocka_unit_test(test_plan_ranges),
        cmocka_unit_test(test_plan_strings),      cmocka_unit_test(test_plan_special_files),
        cmocka_unit_test(test_plan_grid_budget),  cmocka_unit_test(test_plan_placeholder),
        cmocka_unit_test(test_plan_rejections),   cmocka_unit_test(test_tree_special_files),
        cmocka_unit_test(test_pnm_special_files), cmocka_unit_test(test_pattern_sparse),
        cmocka_unit_test(test_track_refusals),
    };
    return cmocka_run_group_tests(tests, tmp_dir_setup, tmp_dir_teardown);
}
