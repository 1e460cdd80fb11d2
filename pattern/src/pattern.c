/* Target patterns: the built-in 5x7 font, the PBM/PGM reader and the rasterisation of a
 * bitmap into target cells (see tp/pattern.h). */
#include "tp/pattern.h"

#include "tp/base.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Font: 7 rows of 5 bits per glyph, bit 4 = leftmost column.                                  */

typedef struct tpGlyph {
    char c;
    uint8_t rows[TP_FONT_H];
} tpGlyph;

static const tpGlyph k_font[] = {
    {'A', {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}}, {'B', {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}},
    {'C', {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}}, {'D', {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C}},
    {'E', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}}, {'F', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10}},
    {'G', {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F}}, {'H', {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}},
    {'I', {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}}, {'J', {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C}},
    {'K', {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}}, {'L', {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}},
    {'M', {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11}}, {'N', {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}},
    {'O', {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}}, {'P', {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10}},
    {'Q', {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D}}, {'R', {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}},
    {'S', {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}}, {'T', {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}},
    {'U', {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}}, {'V', {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}},
    {'W', {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A}}, {'X', {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11}},
    {'Y', {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04}}, {'Z', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F}},
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}}, {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}}, {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {' ', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}}, {'!', {0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04}},
    {'"', {0x0A, 0x0A, 0x0A, 0x00, 0x00, 0x00, 0x00}}, {'\'', {0x04, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00}},
    {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}}, {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}},
    {'+', {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}}, {',', {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}},
    {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}}, {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}},
    {'/', {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}}, {':', {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00}},
    {'=', {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}}, {'?', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04}},
    {'_', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F}}, {'#', {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A}},
};

static const tpGlyph *find_glyph(char c)
{
    char u = (char)toupper((unsigned char)c);
    for (size_t i = 0; i < sizeof k_font / sizeof k_font[0]; ++i) {
        if (k_font[i].c == u) {
            return &k_font[i];
        }
    }
    return NULL;
}

void tpBitmap_Free(tpBitmap *bm)
{
    if (bm) {
        free(bm->px);
        memset(bm, 0, sizeof *bm);
    }
}

/* A bitmap as the readers leave it: a size within the limits, pixels and every pixel 0 or 1. Used
   only by TP_INVARIANT, which in Release names it inside sizeof (hence unused for clang). */
__attribute__((unused)) static bool bitmap_ok(const tpBitmap *bm)
{
    if (bm->w < 1 || bm->h < 1 || (size_t)bm->w * (size_t)bm->h > TP_PNM_MAX_PIXELS || !bm->px) {
        return false;
    }
    for (size_t i = 0; i < (size_t)bm->w * (size_t)bm->h; ++i) {
        if (bm->px[i] > 1) {
            return false;
        }
    }
    return true;
}

static bool alloc_bitmap(tpBitmap *bm, int w, int h)
{
    bm->w = w;
    bm->h = h;
    bm->px = calloc((size_t)w * (size_t)h, 1);
    return bm->px != NULL;
}

bool tpBitmap_FromText(const char *text, tpBitmap *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t n = text ? strlen(text) : 0;
    if (n == 0) {
        tpErrorf(err, errlen, "pattern text is empty");
        return false;
    }
    if (n > 256) {
        tpErrorf(err, errlen, "pattern text is too long (%zu characters, at most 256)", n);
        return false;
    }
    for (size_t i = 0; i < n; ++i) {
        if (!find_glyph(text[i])) {
            unsigned char c = (unsigned char)text[i];
            if (isprint(c)) {
                tpErrorf(err, errlen, "pattern text: character '%c' (position %zu) is not in the built-in font", c,
                         i + 1);
            } else {
                tpErrorf(err, errlen, "pattern text: byte 0x%02x (position %zu) is not in the built-in font", c, i + 1);
            }
            return false;
        }
    }
    int w = (int)n * (TP_FONT_W + 1) - 1;
    if (!alloc_bitmap(out, w, TP_FONT_H)) {
        tpErrorf(err, errlen, "out of memory");
        return false;
    }
    for (size_t i = 0; i < n; ++i) {
        const tpGlyph *g = find_glyph(text[i]);
        int x0 = (int)i * (TP_FONT_W + 1);
        for (int r = 0; r < TP_FONT_H; ++r) {
            for (int c = 0; c < TP_FONT_W; ++c) {
                out->px[r * w + x0 + c] = (uint8_t)((g->rows[r] >> (TP_FONT_W - 1 - c)) & 1u);
            }
        }
    }
    TP_INVARIANT(bitmap_ok(out));
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Netpbm                                                                                      */

typedef struct tpPnmIn {
    const unsigned char *p;
    size_t len, pos;
    const char *name;
    char *err;
    size_t errlen;
} tpPnmIn;

/* Skips whitespace and # comments (to the end of the line). */
static void skip_space(tpPnmIn *in)
{
    while (in->pos < in->len) {
        unsigned char c = in->p[in->pos];
        if (c == '#') {
            while (in->pos < in->len && in->p[in->pos] != '\n' && in->p[in->pos] != '\r') {
                in->pos++;
            }
        } else if (isspace(c)) {
            in->pos++;
        } else {
            return;
        }
    }
}

/* Reads an unsigned decimal integer token (after whitespace/comments). */
static bool read_uint(tpPnmIn *in, const char *what, long max, long *out)
{
    skip_space(in);
    if (in->pos >= in->len) {
        tpErrorf(in->err, in->errlen, "%s: truncated: missing %s", in->name, what);
        return false;
    }
    if (!isdigit(in->p[in->pos])) {
        unsigned char c = in->p[in->pos];
        tpErrorf(in->err, in->errlen, "%s: %s: expected a number, got %s%c%s (byte %zu)", in->name, what,
                 isprint(c) ? "'" : "byte 0x", isprint(c) ? c : '?', isprint(c) ? "'" : "", in->pos + 1);
        return false;
    }
    long v = 0;
    while (in->pos < in->len && isdigit(in->p[in->pos])) {
        v = v * 10 + (in->p[in->pos] - '0');
        if (v > max) {
            tpErrorf(in->err, in->errlen, "%s: %s is too large (more than %ld)", in->name, what, max);
            return false;
        }
        in->pos++;
    }
    if (in->pos < in->len && !isspace(in->p[in->pos]) && in->p[in->pos] != '#') {
        tpErrorf(in->err, in->errlen, "%s: %s: unexpected byte after the number (byte %zu)", in->name, what,
                 in->pos + 1);
        return false;
    }
    *out = v;
    return true;
}

bool tpBitmap_ParsePnm(const unsigned char *data, size_t len, const char *name, bool invert, tpBitmap *out, char *err,
                       size_t errlen)
{
    memset(out, 0, sizeof *out);
    tpPnmIn in = {data, len, 0, name ? name : "image", err, errlen};
    if (len < 2 || data[0] != 'P' || data[1] < '1' || data[1] > '6') {
        tpErrorf(err, errlen, "%s: not a Netpbm image (expected magic P1, P2, P4 or P5)", in.name);
        return false;
    }
    int kind = data[1] - '0';
    if (kind == 3 || kind == 6) {
        tpErrorf(err, errlen, "%s: colour images (P%d) are not supported; use a PBM (P1/P4) or PGM (P2/P5)", in.name,
                 kind);
        return false;
    }
    in.pos = 2;
    if (in.pos < len && !isspace(data[in.pos]) && data[in.pos] != '#') {
        tpErrorf(err, errlen, "%s: not a Netpbm image (bad magic)", in.name);
        return false;
    }
    long w = 0, h = 0, maxval = 1;
    if (!read_uint(&in, "width", INT_MAX, &w) || !read_uint(&in, "height", INT_MAX, &h)) {
        return false;
    }
    if (w < 1 || h < 1) {
        tpErrorf(err, errlen, "%s: width and height must be >= 1 (got %ld x %ld)", in.name, w, h);
        return false;
    }
    if ((double)w * (double)h > TP_PNM_MAX_PIXELS) {
        tpErrorf(err, errlen, "%s: image too large (%ld x %ld, at most %d pixels)", in.name, w, h, TP_PNM_MAX_PIXELS);
        return false;
    }
    bool grey = kind == 2 || kind == 5;
    if (grey) {
        if (!read_uint(&in, "maxval", 65535, &maxval)) {
            return false;
        }
        if (maxval < 1) {
            tpErrorf(err, errlen, "%s: maxval must be 1..65535 (got %ld)", in.name, maxval);
            return false;
        }
    }
    if (kind == 4 || kind == 5) {
        /* Exactly one whitespace byte separates the header from the raster. */
        if (in.pos >= len || !isspace(data[in.pos])) {
            tpErrorf(err, errlen, "%s: truncated: no raster after the header", in.name);
            return false;
        }
        in.pos++;
    }
    if (!alloc_bitmap(out, (int)w, (int)h)) {
        tpErrorf(err, errlen, "%s: out of memory", in.name);
        return false;
    }
    size_t npx = (size_t)w * (size_t)h;
    const double half = (double)maxval / 2.0;
    if (kind == 1 || kind == 2) {
        for (size_t i = 0; i < npx; ++i) {
            char what[96];
            snprintf(what, sizeof what, "pixel %zu (row %zu, column %zu)", i + 1, i / (size_t)w + 1, i % (size_t)w + 1);
            long v;
            if (kind == 1) {
                /* P1 samples need no separators: each is a single 0 or 1. */
                skip_space(&in);
                if (in.pos >= len) {
                    tpErrorf(err, errlen, "%s: truncated: %zu of %zu pixels", in.name, i, npx);
                    tpBitmap_Free(out);
                    return false;
                }
                unsigned char c = data[in.pos++];
                if (c != '0' && c != '1') {
                    tpErrorf(err, errlen, "%s: %s: expected 0 or 1 (byte %zu)", in.name, what, in.pos);
                    tpBitmap_Free(out);
                    return false;
                }
                out->px[i] = (uint8_t)(c == '1');
            } else {
                skip_space(&in);
                if (in.pos >= len) {
                    tpErrorf(err, errlen, "%s: truncated: %zu of %zu pixels", in.name, i, npx);
                    tpBitmap_Free(out);
                    return false;
                }
                if (!read_uint(&in, what, 65535, &v)) {
                    tpBitmap_Free(out);
                    return false;
                }
                if (v > maxval) {
                    tpErrorf(err, errlen, "%s: %s: value %ld exceeds maxval %ld", in.name, what, v, maxval);
                    tpBitmap_Free(out);
                    return false;
                }
                out->px[i] = (uint8_t)((double)v < half);
            }
        }
    } else if (kind == 4) {
        size_t row_bytes = ((size_t)w + 7) / 8;
        if (len - in.pos < row_bytes * (size_t)h) {
            tpErrorf(err, errlen, "%s: truncated raster: %zu of %zu bytes", in.name, len - in.pos,
                     row_bytes * (size_t)h);
            tpBitmap_Free(out);
            return false;
        }
        for (long y = 0; y < h; ++y) {
            const unsigned char *row = data + in.pos + (size_t)y * row_bytes;
            for (long x = 0; x < w; ++x) {
                out->px[(size_t)y * (size_t)w + (size_t)x] = (uint8_t)((row[x >> 3] >> (7 - (x & 7))) & 1u);
            }
        }
    } else { /* P5 */
        size_t bps = maxval < 256 ? 1 : 2;
        if (len - in.pos < npx * bps) {
            tpErrorf(err, errlen, "%s: truncated raster: %zu of %zu bytes", in.name, len - in.pos, npx * bps);
            tpBitmap_Free(out);
            return false;
        }
        const unsigned char *r = data + in.pos;
        for (size_t i = 0; i < npx; ++i) {
            long v = bps == 1 ? r[i] : ((long)r[2 * i] << 8 | r[2 * i + 1]);
            if (v > maxval) {
                tpErrorf(err, errlen, "%s: pixel %zu (row %zu, column %zu): value %ld exceeds maxval %ld", in.name,
                         i + 1, i / (size_t)w + 1, i % (size_t)w + 1, v, maxval);
                tpBitmap_Free(out);
                return false;
            }
            out->px[i] = (uint8_t)((double)v < half);
        }
    }
    if (invert) {
        for (size_t i = 0; i < npx; ++i) {
            out->px[i] ^= 1u;
        }
    }
    TP_INVARIANT(bitmap_ok(out));
    return true;
}

bool tpBitmap_ReadPnm(const char *path, bool invert, tpBitmap *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t len = 0;
    char *buf = tpFile_Read(path, TP_MAX_DATA_BYTES, &len, err, errlen);
    if (!buf) {
        return false;
    }
    bool ok = tpBitmap_ParsePnm((const unsigned char *)buf, len, path, invert, out, err, errlen);
    free(buf);
    return ok;
}

int tpBitmap_Count(const tpBitmap *bm)
{
    int n = 0;
    for (size_t i = 0; i < (size_t)bm->w * (size_t)bm->h; ++i) {
        n += bm->px[i] != 0;
    }
    return n;
}

/* ------------------------------------------------------------------------------------------ */
/* Rasterisation into cells                                                                    */

/* Grid of cells of size c pixels over the bitmap: a cell is lit when the pixel under its
 * centre is lit. Writes the lit flags to `lit` (cols*rows, may be NULL) and returns the count. */
static int lit_cells(const tpBitmap *bm, double c, int *cols, int *rows, uint8_t *lit)
{
    int nc = (int)((double)bm->w / c + 0.999999);
    int nr = (int)((double)bm->h / c + 0.999999);
    nc = nc < 1 ? 1 : nc;
    nr = nr < 1 ? 1 : nr;
    int n = 0;
    for (int j = 0; j < nr; ++j) {
        /* the grid is stretched to cover the image exactly, so c = 1 samples every pixel once */
        int py = (int)(((double)j + 0.5) * (double)bm->h / (double)nr);
        py = py >= bm->h ? bm->h - 1 : py;
        TP_INVARIANT(py >= 0); /* cell centres inside the image */
        for (int i = 0; i < nc; ++i) {
            int px = (int)(((double)i + 0.5) * (double)bm->w / (double)nc);
            px = px >= bm->w ? bm->w - 1 : px;
            TP_INVARIANT(px >= 0);
            uint8_t on = bm->px[(size_t)py * (size_t)bm->w + (size_t)px];
            if (lit) {
                lit[(size_t)j * (size_t)nc + (size_t)i] = on;
            }
            n += on;
        }
    }
    *cols = nc;
    *rows = nr;
    return n;
}

int tpPattern_Cells(const tpBitmap *bm, int n, double pitch, double *xy, char *err, size_t errlen)
{
    if (n < 1) {
        tpErrorf(err, errlen, "pattern: the number of cells must be >= 1 (got %d)", n);
        return -1;
    }
    if (!bm || !bm->px || tpBitmap_Count(bm) == 0) {
        tpErrorf(err, errlen, "pattern: the image has no lit pixel");
        return -1;
    }
    if (n > 1000000) {
        tpErrorf(err, errlen, "pattern: too many cells (%d, at most 1000000)", n);
        return -1;
    }
    /* Shrink the cell size geometrically from the whole image until n cells are lit; the count
     * is not monotonic in c, but the first (largest) c that reaches n is what we want. */
    double c = (double)(bm->w > bm->h ? bm->w : bm->h);
    int cols = 0, rows = 0, count = 0, nlit = tpBitmap_Count(bm);
    for (int k = 0; k < 100000; ++k, c *= 0.99) {
        /* With cells of a pixel or more, distinct cells sample distinct pixels, so at most nlit
         * cells are lit: those sizes cannot reach n > nlit and need no count (same c sequence). */
        if (c >= 1.0 && n > nlit) {
            continue;
        }
        /* Few lit pixels in a large image need cells far smaller than a pixel: bound the grid (and
         * with it the work, a geometric sum of grids) instead of looping for hours. */
        if (((double)bm->w / c + 1.0) * ((double)bm->h / c + 1.0) > TP_PATTERN_MAX_GRID) {
            tpErrorf(err, errlen,
                     "pattern: the image has too few lit pixels for %d cells (%d lit of %d x %d; the grid would "
                     "need more than %d cells)",
                     n, nlit, bm->w, bm->h, TP_PATTERN_MAX_GRID);
            return -1;
        }
        count = lit_cells(bm, c, &cols, &rows, NULL);
        if (count >= n) {
            break;
        }
    }
    if (count < n) {
        tpErrorf(err, errlen, "pattern: cannot place %d cells on the image", n);
        return -1;
    }
    uint8_t *lit = malloc((size_t)cols * (size_t)rows);
    int *idx = malloc(sizeof *idx * (size_t)count);
    if (!lit || !idx) {
        free(lit);
        free(idx);
        tpErrorf(err, errlen, "out of memory");
        return -1;
    }
    int again = lit_cells(bm, c, &cols, &rows, lit);
    int m = 0;
    for (int k = 0; k < cols * rows; ++k) {
        if (lit[k]) {
            idx[m++] = k;
        }
    }
    TP_INVARIANT(again == count && m == count && m >= n); /* the same grid, counted the same */
    for (int k = 0, prev = -1; k < n; ++k) {
        /* k-th of n spread evenly over the m lit cells (all of them when m == n). */
        int cell = idx[(int)(((int64_t)k * m) / n)];
        TP_INVARIANT(cell > prev); /* distinct cells in row-major order (m >= n) */
        prev = cell;
        int i = cell % cols, j = cell / cols;
        xy[2 * k] = ((double)i - (double)(cols - 1) / 2.0) * pitch;
        xy[2 * k + 1] = ((double)(rows - 1) / 2.0 - (double)j) * pitch;
    }
    free(lit);
    free(idx);
    return n;
}
