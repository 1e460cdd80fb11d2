/* tplan core: target patterns for "arrange many bodies" domains (the many-dice domain of
 * Zickler & Veloso 2009, Sec. 6.4): a built-in 5x7 bitmap font, a PBM/PGM reader, and the
 * rasterisation of a bitmap into N target cells on a regular grid.
 *
 * Plain C with no dependencies, so the Lua layer can expose it and tests can check it
 * without physics. */
#ifndef TP_PATTERN_H
#define TP_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A binary image, rows top to bottom. px[y * w + x] is 1 for a lit (pattern) pixel, else 0.
/// Heap-owned: free with tpBitmap_Free.
typedef struct tpBitmap {
    int w, h;
    uint8_t *px;
} tpBitmap;

#define TP_FONT_W 5 /* glyph width in pixels */
#define TP_FONT_H 7 /* glyph height in pixels */
#define TP_PNM_MAX_PIXELS (16 << 20)
#define TP_PATTERN_MAX_GRID (16 << 20) /* cells of the grid tpPattern_Cells may try */

/// Renders `text` with the built-in 5x7 font (A-Z, a-z drawn as capitals, 0-9, space and
/// ! " ' ( ) + , - . / : = ? _ #), glyphs separated by one blank column. False with a message
/// naming the first unsupported character (and its position) on bad input or an empty text.
bool tpBitmap_FromText(const char *text, tpBitmap *out, char *err, size_t errlen);

/// Reads a Netpbm bitmap or greymap: P1 / P4 (1 = black = lit) or P2 / P5 (maxval 1..65535;
/// a pixel is lit when darker than half of maxval). `invert` swaps lit and unlit. Comments
/// (#) are allowed in the header (and between P1/P2 samples). False with "path: reason" on a
/// missing file, bad magic, bad or missing size/maxval, a sample out of range, a truncated
/// raster, or more than TP_PNM_MAX_PIXELS pixels.
bool tpBitmap_ReadPnm(const char *path, bool invert, tpBitmap *out, char *err, size_t errlen);
/// Same, from a memory buffer; `name` is used in messages.
bool tpBitmap_ParsePnm(const unsigned char *data, size_t len, const char *name, bool invert, tpBitmap *out, char *err,
                       size_t errlen);

/// Frees the pixels and zeroes the bitmap. NULL is allowed.
void tpBitmap_Free(tpBitmap *bm);

/// Number of lit pixels.
int tpBitmap_Count(const tpBitmap *bm);

/// Rasterises the bitmap into exactly n target cells of a square grid with spacing `pitch` (m):
/// the grid's cell size (in pixels) is the largest for which at least n cells have a lit centre
/// pixel, so the pattern fills n cells as evenly as possible; when more than n cells are lit,
/// n of them are kept, spread evenly in row-major order. Writes xy[2*i], xy[2*i+1] (m), centred
/// on the origin, +y up (image rows run down), in row-major order (top row first). Returns the
/// number of cells written (n), or -1 with a message when the bitmap has no lit pixel, n < 1, or
/// the lit pixels are so sparse that the grid would need more than TP_PATTERN_MAX_GRID cells.
int tpPattern_Cells(const tpBitmap *bm, int n, double pitch, double *xy, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
