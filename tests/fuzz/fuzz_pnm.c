/* Fuzz target: the PBM/PGM reader (tpBitmap_ParsePnm) and the rasterisation into target cells
 * (tpPattern_Cells) that tp.pattern runs on the image. Every input must be refused with a message
 * naming the image, or give a bitmap whose cells lie on the grid's pitch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tp/pattern.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024] = "";
    tpBitmap bm;
    /* The input's length picks invert and the cell count, so both vary with the input. */
    bool invert = size % 2 == 1;
    if (!tpBitmap_ParsePnm(data, size, "fuzz.pgm", invert, &bm, err, sizeof err)) {
        if (strncmp(err, "fuzz.pgm: ", 10) != 0) {
            tpFuzz_Fail("refusal without a proper message: \"%s\"", err);
        }
        return 0;
    }
    if (bm.w < 1 || bm.h < 1 || (double)bm.w * bm.h > TP_PNM_MAX_PIXELS) {
        tpFuzz_Fail("accepted a %d x %d image", bm.w, bm.h);
    }
    int n = 1 + (int)(size % 400);
    double *xy = malloc(sizeof *xy * 2 * (size_t)n);
    int got = tpPattern_Cells(&bm, n, 0.25, xy, err, sizeof err);
    if (got != n && got != -1) {
        tpFuzz_Fail("tpPattern_Cells returned %d for %d cells", got, n);
    }
    for (int i = 0; i < 2 * got; ++i) {
        /* Centred cells on a 0.25 m pitch: multiples of 0.125 m. */
        if (!isfinite(xy[i]) || fmod(fabs(xy[i]), 0.125) != 0.0) {
            tpFuzz_Fail("cell coordinate %.17g is not on the grid", xy[i]);
        }
    }
    free(xy);
    tpBitmap_Free(&bm);
    return 0;
}
