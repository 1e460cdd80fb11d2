/* glTF 2.0 / GLB documents: buffers (data: URIs, a GLB's chunk, the caller's external files),
 * accessors, triangle meshes (repaired: degenerate triangles dropped, near vertices welded) and node
 * transforms. The node tree and the physics extensions are in gltf_scene.c. Only what tplan needs is
 * read (POSITION and indices of triangle primitives); everything that is read is checked against
 * what it points into before it is touched. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_internal.h"
#include "tp/json_text.h"
#include "tp/util.h"

#define FAIL TP_GLTF_FAIL

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A non-negative integer member (or def when absent); false when present but not one. */
bool tpGltfI_Int(tpGltf *g, const cJSON *o, const char *key, long def, long max, long *out, const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        *out = def;
        return def >= 0 || def == -1;
    }
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > (double)max ||
        v->valuedouble != floor(v->valuedouble))
        FAIL(g, "%s.%s: expected an integer in [0, %ld]", where, key, max);
    *out = (long)v->valuedouble;
    return true;
}

const cJSON *tpGltfI_Item(const cJSON *root, const char *key, long i)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!cJSON_IsArray(a) || i < 0 || i >= cJSON_GetArraySize(a))
        return NULL;
    return cJSON_GetArrayItem(a, (int)i);
}

static int b64(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* An external buffer's uri: relative, inside the .gltf's folder (no scheme, no absolute path, no
 * "..", no backslash), percent escapes valid. NULL when fine, else why not. */
static const char *uri_problem(const char *u)
{
    if (!u[0])
        return "an empty uri";
    if (u[0] == '/' || strchr(u, '\\'))
        return "an absolute path or a backslash (a relative path inside the file's folder is read)";
    for (const char *p = u; *p && *p != '/'; p++)
        if (*p == ':')
            return "a URL (only files beside the .gltf, inside the script's folder, are read)";
    for (const char *p = u; *p; p++) {
        if (*p == '%' && !(isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])))
            return "a bad percent escape";
        if ((p == u || p[-1] == '/') && p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
            return "\"..\" (only files inside the script's folder are read)";
        if (*p == '%' && p[1] == '0' && p[2] == '0')
            return "a NUL byte";
    }
    return NULL;
}

bool tpGltf_BufferUris(const char *name, const void *data, size_t len, const char **uris, int max, int *n, char **store,
                       char *err, size_t errlen)
{
    *n = 0;
    *store = NULL;
    const unsigned char *d = data;
    if (len >= 4 && memcmp(d, "glTF", 4) == 0) {
        /* a GLB may name external buffers too: its JSON chunk */
        if (len < 20)
            return true; /* tpGltf_ReadScene says what is wrong */
        uint32_t clen = le32(d + 12);
        if (clen > len - 20)
            return true;
        data = d + 20;
        len = clen;
    }
    size_t stop = 0;
    cJSON *root = tpJson_ParseDocument(data, len, &stop);
    if (!root)
        return true; /* tpGltf_ReadScene reports the JSON error */
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "buffers"), *b;
    size_t need = 1;
    cJSON_ArrayForEach(b, a)
    {
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(b, "uri");
        if (cJSON_IsString(u) && strncmp(u->valuestring, "data:", 5) != 0)
            need += strlen(u->valuestring) + 1;
    }
    char *buf = malloc(need);
    if (!buf) {
        cJSON_Delete(root);
        tpErrorf(err, errlen, "%s: out of memory", name);
        return false;
    }
    size_t at = 0;
    int i = 0;
    bool ok = true;
    cJSON_ArrayForEach(b, a)
    {
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(b, "uri");
        if (cJSON_IsString(u) && strncmp(u->valuestring, "data:", 5) != 0) {
            const char *why = uri_problem(u->valuestring);
            if (why || strlen(u->valuestring) >= 256 || *n >= max) {
                tpErrorf(err, errlen, "%s: buffers[%d]: uri \"%.80s\": %s", name, i, u->valuestring,
                         why                             ? why
                         : strlen(u->valuestring) >= 256 ? "longer than 255 bytes"
                                                         : "too many external buffers");
                ok = false;
                break;
            }
            size_t l = strlen(u->valuestring);
            memcpy(buf + at, u->valuestring, l + 1);
            uris[(*n)++] = buf + at;
            at += l + 1;
        }
        i++;
    }
    cJSON_Delete(root);
    if (!ok) {
        free(buf);
        *n = 0;
        return false;
    }
    *store = buf;
    return true;
}

bool tpGltf_UriPath(const char *name, const char *uri, char *out, size_t outlen)
{
    const char *slash = strrchr(name, '/');
    size_t dir = slash ? (size_t)(slash - name) + 1 : 0, o = 0;
    if (dir >= outlen)
        return false;
    memcpy(out, name, dir);
    o = dir;
    for (const char *p = uri; *p; p++) {
        int c = (unsigned char)*p;
        if (c == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
            char hex[3] = {p[1], p[2], 0};
            c = (int)strtol(hex, NULL, 16);
            p += 2;
        }
        if (o + 1 >= outlen)
            return false;
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return true;
}

static bool load_buffers(tpGltf *g, const unsigned char *bin, size_t binlen, const tpGltfFile *files, int nfiles)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(g->root, "buffers");
    int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
    if (n > 1024)
        FAIL(g, "%d buffers (at most 1024)", n);
    g->bufs = calloc((size_t)(n > 0 ? n : 1), sizeof *g->bufs);
    if (!g->bufs)
        FAIL(g, "out of memory");
    g->nbufs = n;
    for (int i = 0; i < n; i++) {
        const cJSON *b = cJSON_GetArrayItem(a, i);
        long blen;
        if (!cJSON_IsObject(b) || !tpGltfI_Int(g, b, "byteLength", -2, (long)g->limits.max_bytes, &blen, "buffers[]"))
            FAIL(g, "buffers[%d]: expected an object with byteLength", i);
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(b, "uri");
        if (!uri) {
            if (i != 0 || !bin)
                FAIL(g, "buffers[%d]: no uri and no GLB binary chunk", i);
            if ((size_t)blen > binlen)
                FAIL(g, "buffers[%d]: byteLength %ld beyond the binary chunk (%zu bytes)", i, blen, binlen);
            g->bufs[i].data = bin;
            g->bufs[i].len = (size_t)blen;
            continue;
        }
        if (!cJSON_IsString(uri))
            FAIL(g, "buffers[%d]: uri must be a string", i);
        if (strncmp(uri->valuestring, "data:", 5) != 0) {
            /* an external file beside the .gltf, read by the caller (tpGltf_BufferUris) */
            const char *why = uri_problem(uri->valuestring);
            if (why)
                FAIL(g, "buffers[%d]: uri \"%.80s\": %s", i, uri->valuestring, why);
            const tpGltfFile *f = NULL;
            for (int k = 0; k < nfiles && !f; k++)
                if (files[k].uri && strcmp(files[k].uri, uri->valuestring) == 0)
                    f = &files[k];
            if (!f)
                FAIL(g,
                     "buffers[%d]: the external file \"%.80s\" was not read (tp.scene reads the .bin "
                     "files beside a .gltf, tp.mesh embedded buffers only: export as .glb)",
                     i, uri->valuestring);
            if (!f->data)
                FAIL(g, "buffers[%d]: \"%.80s\": %s", i, uri->valuestring, f->why ? f->why : "cannot be read");
            if ((size_t)blen > f->len)
                FAIL(g, "buffers[%d]: byteLength %ld beyond the %zu bytes of \"%.80s\"", i, blen, f->len,
                     uri->valuestring);
            g->bufs[i].data = f->data;
            g->bufs[i].len = (size_t)blen;
            continue;
        }
        const char *comma = strstr(uri->valuestring, ";base64,");
        if (!comma)
            FAIL(g, "buffers[%d]: the data: URI is not base64", i);
        const char *s = comma + 8;
        size_t slen = strlen(s);
        unsigned char *out = malloc(slen / 4 * 3 + 3);
        if (!out)
            FAIL(g, "out of memory");
        size_t o = 0;
        uint32_t acc = 0;
        int bits = 0;
        for (size_t k = 0; k < slen && s[k] != '='; k++) {
            int v = b64((unsigned char)s[k]);
            if (v < 0) {
                free(out);
                FAIL(g, "buffers[%d]: bad base64 character at offset %zu", i, k);
            }
            acc = acc << 6 | (uint32_t)v;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                out[o++] = (unsigned char)(acc >> bits);
            }
        }
        g->bufs[i].owned = out;
        if ((size_t)blen > o)
            FAIL(g, "buffers[%d]: byteLength %ld beyond its %zu decoded bytes", i, blen, o);
        g->bufs[i].data = out;
        g->bufs[i].len = (size_t)blen;
    }
    return true;
}

/* Element k of an accessor as doubles: reads count x ncomp values of a checked accessor. */
typedef struct tpAcc {
    const unsigned char *base;
    size_t stride;
    long count;
    int ncomp, ctype; /* components, glTF componentType */
} tpAcc;

static bool read_accessor(tpGltf *g, long idx, int want_comp, bool indices, tpAcc *acc)
{
    const cJSON *a = tpGltfI_Item(g->root, "accessors", idx);
    if (!cJSON_IsObject(a))
        FAIL(g, "accessor %ld does not exist", idx);
    if (cJSON_GetObjectItemCaseSensitive(a, "sparse"))
        FAIL(g, "accessors[%ld]: sparse accessors are not supported", idx);
    long view, off, count, ctype;
    const long maxn = indices ? 3L * g->limits.max_triangles : g->limits.max_vertices;
    if (!tpGltfI_Int(g, a, "bufferView", -2, 1L << 30, &view, "accessors[]") ||
        !tpGltfI_Int(g, a, "byteOffset", 0, 1L << 40, &off, "accessors[]") ||
        !tpGltfI_Int(g, a, "count", -2, 1L << 40, &count, "accessors[]") ||
        !tpGltfI_Int(g, a, "componentType", -2, 6000, &ctype, "accessors[]"))
        FAIL(g, "accessors[%ld]: needs bufferView, count and componentType", idx);
    if (count > maxn)
        FAIL(g, "accessors[%ld]: count %ld beyond the cap of %ld", idx, count, maxn);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(a, "type");
    const char *want = want_comp == 3 ? "VEC3" : "SCALAR";
    if (!cJSON_IsString(type) || strcmp(type->valuestring, want) != 0)
        FAIL(g, "accessors[%ld]: type must be %s", idx, want);
    int csize;
    if (indices) {
        if (ctype != 5121 && ctype != 5123 && ctype != 5125)
            FAIL(g, "accessors[%ld]: indices must be unsigned byte, short or int (componentType %ld)", idx, ctype);
        csize = ctype == 5121 ? 1 : ctype == 5123 ? 2 : 4;
    } else {
        if (ctype != 5126)
            FAIL(g, "accessors[%ld]: positions must be floats (componentType 5126, got %ld)", idx, ctype);
        const cJSON *nz = cJSON_GetObjectItemCaseSensitive(a, "normalized");
        if (cJSON_IsTrue(nz))
            FAIL(g, "accessors[%ld]: normalized positions are not supported", idx);
        csize = 4;
    }
    const cJSON *bv = tpGltfI_Item(g->root, "bufferViews", view);
    if (!cJSON_IsObject(bv))
        FAIL(g, "accessors[%ld]: bufferView %ld does not exist", idx, view);
    long buf, voff, vlen, stride;
    if (!tpGltfI_Int(g, bv, "buffer", -2, 1L << 30, &buf, "bufferViews[]") ||
        !tpGltfI_Int(g, bv, "byteOffset", 0, 1L << 40, &voff, "bufferViews[]") ||
        !tpGltfI_Int(g, bv, "byteLength", -2, 1L << 40, &vlen, "bufferViews[]") ||
        !tpGltfI_Int(g, bv, "byteStride", 0, 252, &stride, "bufferViews[]"))
        FAIL(g, "bufferViews[%ld]: needs buffer and byteLength", view);
    if (buf >= g->nbufs)
        FAIL(g, "bufferViews[%ld]: buffer %ld does not exist", view, buf);
    const size_t elem = (size_t)csize * (size_t)want_comp;
    if (stride == 0)
        stride = (long)elem;
    if ((size_t)stride < elem)
        FAIL(g, "bufferViews[%ld]: byteStride %ld is shorter than an element (%zu bytes)", view, stride, elem);
    if ((size_t)voff > g->bufs[buf].len || (size_t)vlen > g->bufs[buf].len - (size_t)voff)
        FAIL(g, "bufferViews[%ld]: bytes %ld..%ld beyond buffer %ld (%zu bytes)", view, voff, voff + vlen, buf,
             g->bufs[buf].len);
    if (count > 0) {
        /* the last element must end inside the view: off + stride (count - 1) + elem <= vlen */
        double need = (double)off + (double)stride * (double)(count - 1) + (double)elem;
        if (need > (double)vlen)
            FAIL(g, "accessors[%ld]: %ld elements from byte %ld need %.0f bytes, the view has %ld", idx, count, off,
                 need, vlen);
    }
    if ((off % csize) != 0 || ((voff + off) % csize) != 0)
        FAIL(g, "accessors[%ld]: misaligned byteOffset", idx);
    acc->base = g->bufs[buf].data + voff + off;
    acc->stride = (size_t)stride;
    acc->count = count;
    acc->ncomp = want_comp;
    acc->ctype = (int)ctype;
    return true;
}

static double acc_get(const tpAcc *a, long k, int c)
{
    const unsigned char *p = a->base + (size_t)k * a->stride;
    switch (a->ctype) {
    case 5121:
        return p[c];
    case 5123:
        return (double)((unsigned)p[2 * c] | (unsigned)p[2 * c + 1] << 8);
    case 5125:
        return (double)le32(p + 4 * c);
    default: {
        uint32_t u = le32(p + 4 * c);
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    }
}

/* The triangles of mesh `mi`, vertices scaled per axis by s (glTF local axes) then turned to z
 * up, into out. */
/* Repairs what exporters write: vertices within 1e-6 of the mesh's size become one (glTF splits
 * vertices at UV and normal seams; Godot's UV sphere has rings of coincident vertices at its poles
 * and a seam that misses by rounding), then triangles that have two corners the same or no area
 * (1e-12 of the size squared, tpMesh_CheckClosed's test) are dropped. Counts what was not an exact
 * duplicate in *rep, with the first dropped triangle as the file numbers it (prim_tri: per
 * triangle its primitive and that primitive's first vertex); last, the mesh is put in its canonical
 * order (tpMesh_Canonicalize), so an exporter's order of vertices and triangles does not reach the
 * physics. False when out of memory. */
static bool repair(tpMesh *m, const int32_t *prim_tri, tpGltfRepair *rep)
{
    long welded = 0;
    int32_t *orig = NULL;
    if (m->ntriangles > 0) {
        orig = malloc((size_t)m->ntriangles * 3 * sizeof *orig);
        if (!orig)
            return false;
        memcpy(orig, m->triangles, (size_t)m->ntriangles * 3 * sizeof *orig);
    }
    double lo[3], hi[3], ext = 0;
    tpMeshView v0 = tpMesh_View(m);
    tpMesh_Bounds(&v0, lo, hi);
    for (int k = 0; k < 3; k++)
        ext = fmax(ext, hi[k] - lo[k]);
    if (!tpMesh_WeldNear(m, 1e-6 * ext, &welded)) {
        free(orig);
        return false;
    }
    int kept = 0;
    long dropped = 0;
    for (int t = 0; t < m->ntriangles; t++) {
        const int32_t *tr = m->triangles + 3 * t;
        const double *a = m->vertices + 3 * tr[0], *b = m->vertices + 3 * tr[1], *c = m->vertices + 3 * tr[2];
        double u[3], w[3];
        for (int k = 0; k < 3; k++) {
            u[k] = b[k] - a[k];
            w[k] = c[k] - a[k];
        }
        double n0 = u[1] * w[2] - u[2] * w[1], n1 = u[2] * w[0] - u[0] * w[2], n2 = u[0] * w[1] - u[1] * w[0];
        double area2 = sqrt(n0 * n0 + n1 * n1 + n2 * n2);
        if (tr[0] == tr[1] || tr[1] == tr[2] || tr[0] == tr[2] || !(area2 > 1e-12 * ext * ext)) {
            if (dropped++ == 0 && rep && rep->first_tri < 0) {
                int pi = prim_tri[2 * t], base = prim_tri[2 * t + 1];
                long first = 0; /* the triangle's index within its primitive */
                for (int k = t - 1; k >= 0 && prim_tri[2 * k] == pi; k--)
                    first++;
                rep->first_tri = first;
                rep->first_prim = pi;
                for (int k = 0; k < 3; k++)
                    rep->first_v[k] = orig[3 * t + k] - base;
            }
            continue;
        }
        memmove(m->triangles + 3 * kept, tr, 3 * sizeof *tr);
        kept++;
    }
    m->ntriangles = kept;
    free(orig);
    if (rep) {
        rep->degenerate += dropped;
        rep->welded += welded;
    }
    return tpMesh_Canonicalize(m);
}

bool tpGltfI_ReadMesh(tpGltf *g, long mi, const double s[3], tpMesh *out, tpGltfRepair *rep)
{
    const cJSON *mesh = tpGltfI_Item(g->root, "meshes", mi);
    if (!cJSON_IsObject(mesh))
        FAIL(g, "mesh %ld does not exist", mi);
    const cJSON *prims = cJSON_GetObjectItemCaseSensitive(mesh, "primitives");
    if (!cJSON_IsArray(prims))
        FAIL(g, "meshes[%ld]: primitives must be an array", mi);
    tpMeshBuild b = {.name = g->name, .limits = g->limits, .err = g->err, .errlen = g->errlen};
    int32_t *prim_tri = NULL; /* per triangle: its primitive and the primitive's first vertex */
    size_t ptcap = 0;
    const cJSON *p;
    int pi = 0;
    cJSON_ArrayForEach(p, prims)
    {
        long mode, pos, ind;
        if (!cJSON_IsObject(p) || !tpGltfI_Int(g, p, "mode", 4, 6, &mode, "primitives[]") ||
            !tpGltfI_Int(g, p, "indices", -1, 1L << 30, &ind, "primitives[]"))
            goto fail;
        if (mode != 4) {
            tpErrorf(g->err, g->errlen, "%s: meshes[%ld].primitives[%d]: mode %ld is not triangles (4)", g->name, mi,
                     pi, mode);
            goto fail;
        }
        const cJSON *attr = cJSON_GetObjectItemCaseSensitive(p, "attributes");
        if (!cJSON_IsObject(attr) || !tpGltfI_Int(g, attr, "POSITION", -2, 1L << 30, &pos, "attributes")) {
            tpErrorf(g->err, g->errlen, "%s: meshes[%ld].primitives[%d]: no POSITION attribute", g->name, mi, pi);
            goto fail;
        }
        tpAcc pa, ia;
        if (!read_accessor(g, pos, 3, false, &pa) || (ind >= 0 && !read_accessor(g, ind, 1, true, &ia)))
            goto fail;
        g->total_vertices += pa.count;
        if (g->total_vertices > g->limits.max_vertices) {
            tpErrorf(g->err, g->errlen, "%s: more than %d vertices in all", g->name, g->limits.max_vertices);
            goto fail;
        }
        int base = b.mesh.nvertices;
        for (long k = 0; k < pa.count; k++) {
            double x = acc_get(&pa, k, 0) * s[0], y = acc_get(&pa, k, 1) * s[1], z = acc_get(&pa, k, 2) * s[2];
            const double v[3] = {x, -z, y}; /* y up -> z up */
            if (!tpMeshB_AddVertex(&b, v))
                goto fail;
        }
        long n = ind >= 0 ? ia.count : pa.count;
        if (n % 3 != 0) {
            tpErrorf(g->err, g->errlen, "%s: meshes[%ld].primitives[%d]: %ld indices is not a multiple of 3", g->name,
                     mi, pi, n);
            goto fail;
        }
        g->total_triangles += n / 3;
        if (g->total_triangles > g->limits.max_triangles) {
            tpErrorf(g->err, g->errlen, "%s: more than %d triangles in all", g->name, g->limits.max_triangles);
            goto fail;
        }
        for (long k = 0; k < n; k += 3) {
            long t[3];
            for (int c = 0; c < 3; c++) {
                t[c] = ind >= 0 ? (long)acc_get(&ia, k + c, 0) : k + c;
                if (t[c] >= pa.count) {
                    tpErrorf(g->err, g->errlen, "%s: meshes[%ld].primitives[%d]: index %ld out of range (%ld vertices)",
                             g->name, mi, pi, t[c], pa.count);
                    goto fail;
                }
            }
            if (!tpMeshB_AddTriangle(&b, base + (int)t[0], base + (int)t[1], base + (int)t[2]))
                goto fail;
            int32_t *pt = tpArray_Grow(prim_tri, &ptcap, (size_t)b.mesh.ntriangles, 2 * sizeof *pt);
            if (!pt) {
                tpErrorf(g->err, g->errlen, "%s: out of memory", g->name);
                goto fail;
            }
            prim_tri = pt;
            prim_tri[2 * (b.mesh.ntriangles - 1)] = pi;
            prim_tri[2 * (b.mesh.ntriangles - 1) + 1] = base;
        }
        pi++;
    }
    if (!repair(&b.mesh, prim_tri, rep)) {
        tpErrorf(g->err, g->errlen, "%s: out of memory", g->name);
        goto fail;
    }
    free(prim_tri);
    *out = b.mesh;
    return true;
fail:
    free(prim_tri);
    tpMesh_Free(&b.mesh);
    return false;
}

/* Affine transforms: row-major 3x4 [R | t]. */
void tpGltfI_Mul34(const double a[12], const double b[12], double out[12])
{
    double r[12];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 4; j++) {
            double v = j == 3 ? a[4 * i + 3] : 0.0;
            for (int k = 0; k < 3; k++)
                v += a[4 * i + k] * b[4 * k + j];
            r[4 * i + j] = v;
        }
    }
    memcpy(out, r, sizeof r);
}

bool tpGltfI_Numbers(const cJSON *a, int n, double *out)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return false;
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || fabs(v->valuedouble) > 1e6)
            return false;
        out[i++] = v->valuedouble;
    }
    return true;
}

bool tpGltfI_Local(tpGltf *g, const cJSON *node, long ni, double m[12])
{
    double mat[16];
    const cJSON *jm = cJSON_GetObjectItemCaseSensitive(node, "matrix");
    if (jm) {
        if (!tpGltfI_Numbers(jm, 16, mat))
            FAIL(g, "nodes[%ld].matrix: expected 16 finite numbers", ni);
        for (int i = 0; i < 3; i++) /* column-major */
            for (int j = 0; j < 4; j++)
                m[4 * i + j] = mat[4 * j + i];
        return true;
    }
    double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    const cJSON *jt = cJSON_GetObjectItemCaseSensitive(node, "translation");
    const cJSON *jr = cJSON_GetObjectItemCaseSensitive(node, "rotation");
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(node, "scale");
    if ((jt && !tpGltfI_Numbers(jt, 3, t)) || (jr && !tpGltfI_Numbers(jr, 4, q)) || (js && !tpGltfI_Numbers(js, 3, s)))
        FAIL(g, "nodes[%ld]: translation, rotation and scale must be 3, 4 and 3 finite numbers", ni);
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 1e-6))
        FAIL(g, "nodes[%ld].rotation: zero quaternion", ni);
    const double qw[4] = {q[3] / n, q[0] / n, q[1] / n, q[2] / n};
    double R[9];
    tpMesh_QuatToMatrix(qw, R);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            m[4 * i + j] = R[3 * i + j] * s[j];
        m[4 * i + 3] = t[i];
    }
    return true;
}

void tpGltfI_MatrixToQuat(const double R[9], double q[4])
{
    double tr = R[0] + R[4] + R[8];
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q[0] = 0.25 * s;
        q[1] = (R[7] - R[5]) / s;
        q[2] = (R[2] - R[6]) / s;
        q[3] = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double s = sqrt(1.0 + R[0] - R[4] - R[8]) * 2;
        q[0] = (R[7] - R[5]) / s;
        q[1] = 0.25 * s;
        q[2] = (R[1] + R[3]) / s;
        q[3] = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
        double s = sqrt(1.0 + R[4] - R[0] - R[8]) * 2;
        q[0] = (R[2] - R[6]) / s;
        q[1] = (R[1] + R[3]) / s;
        q[2] = 0.25 * s;
        q[3] = (R[5] + R[7]) / s;
    } else {
        double s = sqrt(1.0 + R[8] - R[0] - R[4]) * 2;
        q[0] = (R[3] - R[1]) / s;
        q[1] = (R[2] + R[6]) / s;
        q[2] = (R[5] + R[7]) / s;
        q[3] = 0.25 * s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++)
        q[k] /= n;
    if (q[0] < 0) /* one hemisphere: the same file gives the same numbers */
        for (int k = 0; k < 4; k++)
            q[k] = -q[k];
}

void tpGltfI_Warn(tpGltf *g, const char *fmt, ...)
{
    tpGltfScene *sc = g->scene;
    g->warnings_seen++;
    if (g->warnings_seen > TP_GLTF_MAX_WARNINGS) {
        snprintf(sc->warnings[TP_GLTF_MAX_WARNINGS - 1], TP_GLTF_WARNING_MAX, "%s: %d more warnings not shown", g->name,
                 g->warnings_seen - (TP_GLTF_MAX_WARNINGS - 1));
        sc->nwarnings = TP_GLTF_MAX_WARNINGS;
        return;
    }
    char *w = sc->warnings[sc->nwarnings++];
    int n = snprintf(w, TP_GLTF_WARNING_MAX, "%s: ", g->name);
    if (n < 0 || n >= TP_GLTF_WARNING_MAX)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w + n, TP_GLTF_WARNING_MAX - (size_t)n, fmt, ap);
    va_end(ap);
}

bool tpGltfI_Open(tpGltf *g, const void *data, size_t len, const tpGltfFile *files, int nfiles)
{
    const char *name = g->name;
    char *err = g->err;
    size_t errlen = g->errlen;
    if (len > g->limits.max_bytes)
        FAIL(g, "%zu bytes, more than the %zu allowed", len, g->limits.max_bytes);
    const unsigned char *d = data;
    const char *json = data;
    size_t jlen = len;
    const unsigned char *bin = NULL;
    size_t binlen = 0;
    if (len >= 4 && memcmp(d, "glTF", 4) == 0) {
        if (len < 20)
            FAIL(g, "GLB: %zu bytes is too short for a header", len);
        uint32_t ver = le32(d + 4), total = le32(d + 8), clen = le32(d + 12), ctype = le32(d + 16);
        if (ver != 2)
            FAIL(g, "GLB: version %u (only 2)", ver);
        if (total > len || total < 20)
            FAIL(g, "GLB: header says %u bytes, the file has %zu (and a GLB has at least 20)", total, len);
        if (ctype != 0x4E4F534Au || clen > total - 20)
            FAIL(g, "GLB: the first chunk must be JSON and inside the file");
        json = (const char *)d + 20;
        jlen = clen;
        size_t next = 20 + (size_t)clen;
        if (next + 8 <= total) {
            uint32_t blen = le32(d + next), btype = le32(d + next + 4);
            if (btype == 0x004E4942u) {
                if (blen > total - next - 8)
                    FAIL(g, "GLB: the binary chunk runs past the end of the file");
                bin = d + next + 8;
                binlen = blen;
            }
        }
    }
    char why[160];
    if (!tpJson_CheckText(json, jlen, why, sizeof why))
        FAIL(g, "%s", why);
    size_t stop = 0;
    g->root = tpJson_ParseDocument(json, jlen, &stop);
    if (!g->root && stop == TP_JSON_NO_MEMORY)
        FAIL(g, "out of memory reading the JSON");
    if (!g->root) {
        size_t line, col;
        tpJson_LineColumn(json, jlen, stop, &line, &col);
        FAIL(g, "JSON error at line %zu, column %zu", line, col);
    }
    bool ok = cJSON_IsObject(g->root);
    if (!ok)
        tpErrorf(err, errlen, "%s: not a glTF document (the top level must be an object)", name);
    const cJSON *asset = ok ? cJSON_GetObjectItemCaseSensitive(g->root, "asset") : NULL;
    const cJSON *ver = asset ? cJSON_GetObjectItemCaseSensitive(asset, "version") : NULL;
    if (ok && (!cJSON_IsString(ver) || strncmp(ver->valuestring, "2.", 2) != 0)) {
        tpErrorf(err, errlen, "%s: asset.version must be \"2.x\"", name);
        ok = false;
    }
    if (ok)
        ok = load_buffers(g, bin, binlen, files, nfiles);
    return ok;
}

void tpGltfI_Close(tpGltf *g)
{
    for (int i = 0; i < g->nbufs; i++)
        free(g->bufs[i].owned);
    free(g->bufs);
    g->bufs = NULL;
    g->nbufs = 0;
    cJSON_Delete(g->root);
    g->root = NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Warnings that name many nodes: one line each, "head: A, B, C and 4 more"                   */

void tpGltfI_ListAdd(tpGltfNames *l, const char *name)
{
    l->n++;
    size_t at = strlen(l->names), need = strlen(name) + 2;
    if (at + need + 1 < sizeof l->names) {
        snprintf(l->names + at, sizeof l->names - at, "%s%s", at ? ", " : "", name);
        l->shown++;
    }
}

void tpGltfI_ListFlush(tpGltf *g, const tpGltfNames *l)
{
    if (l->n == 0)
        return;
    if (l->n > l->shown)
        tpGltfI_Warn(g, "%s: %s and %d more", l->head, l->names, l->n - l->shown);
    else
        tpGltfI_Warn(g, "%s: %s", l->head, l->names);
}

/* world = [R S | t] in glTF axes into the scale along the node's axes, and the pose in tplan's frame
 * (z up): false (a message naming the node) when it shears or mirrors. */
bool tpGltfI_Decompose(tpGltf *g, const double world[12], const char *name, double s[3], double pos[3], double quat[4])
{
    double R[9];
    for (int j = 0; j < 3; j++) {
        s[j] = sqrt(world[j] * world[j] + world[4 + j] * world[4 + j] + world[8 + j] * world[8 + j]);
        if (!(s[j] > 1e-9) || s[j] > 1e6)
            FAIL(g, "node '%s': scale %g along its axis %d", name, s[j], j);
        for (int i = 0; i < 3; i++)
            R[3 * i + j] = world[4 * i + j] / s[j];
    }
    double det =
        R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]);
    double d01 = R[0] * R[1] + R[3] * R[4] + R[6] * R[7], d02 = R[0] * R[2] + R[3] * R[5] + R[6] * R[8],
           d12 = R[1] * R[2] + R[4] * R[5] + R[7] * R[8];
    if (fabs(d01) > 1e-5 || fabs(d02) > 1e-5 || fabs(d12) > 1e-5 || !(det > 0))
        FAIL(g, "node '%s': its world transform %s", name,
             det > 0 ? "shears (a non-uniform scale under a rotation)" : "mirrors (a negative scale)");
    /* tplan frame: R' = A R A^T, p = A t with A (x, y, z) = (x, -z, y) */
    const double Rz[9] = {R[0], -R[2], R[1], -R[6], R[8], -R[7], R[3], -R[5], R[4]};
    tpGltfI_MatrixToQuat(Rz, quat);
    pos[0] = world[3];
    pos[1] = -world[11];
    pos[2] = world[7];
    return true;
}
