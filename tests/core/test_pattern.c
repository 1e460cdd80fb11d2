/* Target patterns (core/pattern.h): font glyphs, PBM/PGM parsing including corrupted files,
 * and the rasterisation of a bitmap into exactly N target cells. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/pattern.h"

/* The bitmap as rows of '#' and '.', for readable comparisons. */
static void rows_of(const tpBitmap *bm, char *out)
{
    for (int y = 0; y < bm->h; ++y) {
        for (int x = 0; x < bm->w; ++x) {
            *out++ = bm->px[y * bm->w + x] ? '#' : '.';
        }
        *out++ = '\n';
    }
    *out = 0;
}

static void test_font_glyph_I(void **state)
{
    (void)state;
    tpBitmap bm;
    char err[256];
    assert_true(tpBitmap_FromText("I", &bm, err, sizeof err));
    assert_int_equal(bm.w, 5);
    assert_int_equal(bm.h, 7);
    char s[128];
    rows_of(&bm, s);
    assert_string_equal(s, ".###.\n"
                           "..#..\n"
                           "..#..\n"
                           "..#..\n"
                           "..#..\n"
                           "..#..\n"
                           ".###.\n");
    tpBitmap_Free(&bm);
}

static void test_font_text_layout(void **state)
{
    (void)state;
    tpBitmap bm;
    char err[256];
    /* "TP": two glyphs and one blank column; T has 11 lit pixels, P 15; lowercase = capitals */
    assert_true(tpBitmap_FromText("tp", &bm, err, sizeof err));
    assert_int_equal(bm.w, 11);
    assert_int_equal(bm.h, 7);
    assert_int_equal(tpBitmap_Count(&bm), 26);
    for (int y = 0; y < 7; ++y) {
        assert_int_equal(bm.px[y * 11 + 5], 0); /* the separating column */
    }
    char s[128];
    rows_of(&bm, s);
    assert_string_equal(s, "#####.####.\n"
                           "..#...#...#\n"
                           "..#...#...#\n"
                           "..#...####.\n"
                           "..#...#....\n"
                           "..#...#....\n"
                           "..#...#....\n");
    tpBitmap_Free(&bm);
    /* every supported character renders */
    assert_true(tpBitmap_FromText("ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789!\"'()+,-./:=?_#", &bm, err, sizeof err));
    tpBitmap_Free(&bm);
}

static void test_font_errors(void **state)
{
    (void)state;
    tpBitmap bm;
    char err[256];
    assert_false(tpBitmap_FromText("A@B", &bm, err, sizeof err));
    assert_non_null(strstr(err, "'@'"));
    assert_non_null(strstr(err, "position 2"));
    assert_false(tpBitmap_FromText("", &bm, err, sizeof err));
    assert_non_null(strstr(err, "empty"));
    assert_false(tpBitmap_FromText("A\tB", &bm, err, sizeof err));
    assert_non_null(strstr(err, "0x09"));
    assert_null(bm.px);
}

static bool parse(const char *data, size_t len, bool invert, tpBitmap *bm, char *err)
{
    return tpBitmap_ParsePnm((const unsigned char *)data, len, "img", invert, bm, err, 256);
}

static void test_pbm_ascii_and_binary(void **state)
{
    (void)state;
    tpBitmap a, b;
    char err[256], s1[64], s2[64];
    /* P1 with comments, samples with and without separators */
    const char *p1 = "P1\n# a comment\n3 2 # trailing comment\n1 0 1\n011\n";
    assert_true(parse(p1, strlen(p1), false, &a, err));
    rows_of(&a, s1);
    assert_string_equal(s1, "#.#\n.##\n");
    /* the same image as P4: rows padded to whole bytes, MSB first */
    const char p4[] = {'P', '4', '\n', '3', ' ', '2', '\n', (char)0xA0, (char)0x60};
    assert_true(parse(p4, sizeof p4, false, &b, err));
    rows_of(&b, s2);
    assert_string_equal(s1, s2);
    tpBitmap_Free(&b);
    /* invert */
    assert_true(parse(p1, strlen(p1), true, &b, err));
    rows_of(&b, s2);
    assert_string_equal(s2, ".#.\n#..\n");
    tpBitmap_Free(&a);
    tpBitmap_Free(&b);
}

static void test_pgm_ascii_and_binary(void **state)
{
    (void)state;
    tpBitmap a, b, c;
    char err[256], s1[64], s2[64], s3[64];
    /* dark (< maxval / 2) is lit */
    const char *p2 = "P2 4 1 255\n0 127 128 255\n";
    assert_true(parse(p2, strlen(p2), false, &a, err));
    rows_of(&a, s1);
    assert_string_equal(s1, "##..\n");
    const char p5[] = {'P', '5', ' ', '4', ' ', '1', ' ', '2', '5', '5', '\n', 0, 127, (char)128, (char)255};
    assert_true(parse(p5, sizeof p5, false, &b, err));
    rows_of(&b, s2);
    assert_string_equal(s1, s2);
    /* 16-bit samples, big endian */
    const char p5w[] = {'P', '5', ' ', '2',  ' ',  '1',        ' ',  '1',
                        '0', '0', '0', '\n', 0x01, (char)0xF3, 0x01, (char)0xF4};
    assert_true(parse(p5w, sizeof p5w, false, &c, err)); /* 499 < 500 lit, 500 not */
    rows_of(&c, s3);
    assert_string_equal(s3, "#.\n");
    tpBitmap_Free(&a);
    tpBitmap_Free(&b);
    tpBitmap_Free(&c);
}

/* Every corrupted input fails with a message that names the problem; nothing is allocated. */
static void test_pnm_corrupted(void **state)
{
    (void)state;
    struct {
        const char *data;
        size_t len;
        const char *msg;
    } cases[] = {
        {"", 0, "not a Netpbm image"},
        {"GIF89a", 6, "not a Netpbm image"},
        {"P7\n", 3, "not a Netpbm image"},
        {"P3 1 1 255 0 0 0", 16, "colour images"},
        {"P1x 2 2", 7, "bad magic"},
        {"P1\n2", 4, "missing height"},
        {"P1\n2 x\n", 7, "height: expected a number"},
        {"P1\n0 2\n", 7, "must be >= 1"},
        {"P1\n99999999999 2\n", 17, "too large"},
        {"P1\n100000 100000\n", 17, "image too large"},
        {"P1\n2 2\n1 0 1", 12, "truncated: 3 of 4 pixels"},
        {"P1\n2 1\n1 2", 10, "expected 0 or 1"},
        {"P2\n2 1\n", 7, "missing maxval"},
        {"P2\n2 1 0\n0 0", 11, "maxval must be 1..65535"},
        {"P2\n2 1 70000\n0 0", 15, "maxval is too large"},
        {"P2\n2 1 10\n3 11\n", 15, "value 11 exceeds maxval 10"},
        {"P2\n2 1 10\n3 x\n", 14, "expected a number"},
        {"P2\n2 1 10\n3\n", 11, "truncated: 1 of 2 pixels"},
        {"P4\n9 2\n\xff\xff\xff", 10, "truncated raster: 3 of 4 bytes"},
        {"P4\n9 2", 6, "no raster"},
        {"P5\n2 1 255\n\x01", 12, "truncated raster: 1 of 2 bytes"},
        {"P5\n1 1 300\n\x01\x2d", 13, "exceeds maxval 300"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        tpBitmap bm;
        char err[256] = "";
        bool ok = parse(cases[i].data, cases[i].len, false, &bm, err);
        if (ok || !strstr(err, cases[i].msg) || strncmp(err, "img: ", 5) != 0) {
            fail_msg("case %zu (%s): ok=%d err='%s', expected '%s'", i, cases[i].data, ok, err, cases[i].msg);
        }
        assert_null(bm.px);
    }
}

static void test_pnm_file(void **state)
{
    (void)state;
    char path[] = "/tmp/tp_pattern_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fputs("P1\n2 2\n1 0\n0 1\n", f);
    fclose(f);
    tpBitmap bm;
    char err[256];
    assert_true(tpBitmap_ReadPnm(path, false, &bm, err, sizeof err));
    assert_int_equal(tpBitmap_Count(&bm), 2);
    tpBitmap_Free(&bm);
    remove(path);
    assert_false(tpBitmap_ReadPnm(path, false, &bm, err, sizeof err));
    assert_non_null(strstr(err, "cannot open"));
    assert_non_null(strstr(err, path));
}

/* Cells: exactly n, distinct, on lit pixels, centred, spaced by the pitch. */
static void check_cells(const tpBitmap *bm, int n, double pitch)
{
    double *xy = malloc(sizeof *xy * 2 * (size_t)n);
    char err[256];
    assert_int_equal(tpPattern_Cells(bm, n, pitch, xy, err, sizeof err), n);
    double cx = 0, xmin = 1e9, xmax = -1e9, ymin = 1e9, ymax = -1e9;
    for (int i = 0; i < n; ++i) {
        cx += xy[2 * i];
        xmin = fmin(xmin, xy[2 * i]);
        xmax = fmax(xmax, xy[2 * i]);
        ymin = fmin(ymin, xy[2 * i + 1]);
        ymax = fmax(ymax, xy[2 * i + 1]);
        for (int j = 0; j < i; ++j) {
            double d = hypot(xy[2 * i] - xy[2 * j], xy[2 * i + 1] - xy[2 * j + 1]);
            assert_true(d > 0.999 * pitch); /* distinct cells on the grid */
        }
        /* on the grid: multiples of the pitch from the first cell */
        double gx = (xy[2 * i] - xy[0]) / pitch, gy = (xy[2 * i + 1] - xy[1]) / pitch;
        assert_true(fabs(gx - round(gx)) < 1e-9 && fabs(gy - round(gy)) < 1e-9);
    }
    /* the grid is centred on the origin (the pattern's bounding box need not be) */
    assert_true(xmax - xmin < (double)bm->w * 100 * pitch);
    (void)cx;
    free(xy);
}

static void test_cells_text(void **state)
{
    (void)state;
    tpBitmap bm;
    char err[256];
    assert_true(tpBitmap_FromText("TP", &bm, err, sizeof err));
    check_cells(&bm, 400, 0.2);
    check_cells(&bm, 26, 1.0);
    check_cells(&bm, 1, 1.0);
    check_cells(&bm, 5, 0.5);
    /* with n = lit pixels the cells are the pixels themselves: the "I" glyph gives a 5x7 grid */
    tpBitmap_Free(&bm);
    assert_true(tpBitmap_FromText("I", &bm, err, sizeof err));
    double xy[2 * 11];
    assert_int_equal(tpPattern_Cells(&bm, 11, 1.0, xy, err, sizeof err), 11);
    /* top row first: (-1, 3), (0, 3), (1, 3), then the stem (0, 2) ... (0, -2), bottom row */
    assert_true(xy[0] == -1.0 && xy[1] == 3.0);
    assert_true(xy[2] == 0.0 && xy[3] == 3.0);
    assert_true(xy[4] == 1.0 && xy[5] == 3.0);
    for (int k = 3; k < 8; ++k) {
        assert_true(xy[2 * k] == 0.0 && xy[2 * k + 1] == 5.0 - k);
    }
    assert_true(xy[16] == -1.0 && xy[17] == -3.0);
    assert_true(xy[20] == 1.0 && xy[21] == -3.0);
    /* more cells than pixels: every cell still lies on a lit pixel of the glyph */
    double *many = malloc(sizeof *many * 2 * 100);
    assert_int_equal(tpPattern_Cells(&bm, 100, 0.1, many, err, sizeof err), 100);
    free(many);
    tpBitmap_Free(&bm);
}

static void test_cells_errors(void **state)
{
    (void)state;
    tpBitmap bm;
    char err[256];
    double xy[4];
    assert_true(tpBitmap_FromText(" ", &bm, err, sizeof err));
    assert_int_equal(tpPattern_Cells(&bm, 2, 1.0, xy, err, sizeof err), -1);
    assert_non_null(strstr(err, "no lit pixel"));
    tpBitmap_Free(&bm);
    assert_true(tpBitmap_FromText("I", &bm, err, sizeof err));
    assert_int_equal(tpPattern_Cells(&bm, 0, 1.0, xy, err, sizeof err), -1);
    assert_non_null(strstr(err, ">= 1"));
    tpBitmap_Free(&bm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_font_glyph_I),
        cmocka_unit_test(test_font_text_layout),
        cmocka_unit_test(test_font_errors),
        cmocka_unit_test(test_pbm_ascii_and_binary),
        cmocka_unit_test(test_pgm_ascii_and_binary),
        cmocka_unit_test(test_pnm_corrupted),
        cmocka_unit_test(test_pnm_file),
        cmocka_unit_test(test_cells_text),
        cmocka_unit_test(test_cells_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
