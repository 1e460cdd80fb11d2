/* glTF 2.0 / GLB scenes: the mesh nodes of the default scene with their world poses, turned from
 * glTF's y up to tplan's z up, and the physics their OMI_physics_body extension or extras ask for.
 * Only what tplan needs is read (POSITION and indices of triangle primitives); everything that is
 * read is checked against what it points into before it is touched. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "mesh_internal.h"
#include "tp/base.h"

typedef struct tpBuf {
    const unsigned char *data;
    size_t len;
    unsigned char *owned; /* decoded data: URI, freed at the end */
} tpBuf;

typedef struct tpGltf {
    const char *name;
    char *err;
    size_t errlen;
    tpMeshLimits limits;
    cJSON *root;
    tpBuf *bufs;
    int nbufs;
    long total_vertices, total_triangles; /* over all nodes, against the caps */
} tpGltf;

#define FAIL(g, ...)                                                                                                   \
    do {                                                                                                               \
        char m_[256];                                                                                                  \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                                          \
        tpErrorf((g)->err, (g)->errlen, "%s: %s", (g)->name, m_);                                                      \
        return false;                                                                                                  \
    } while (0)

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A non-negative integer member (or def when absent); false when present but not one. */
static bool member_int(tpGltf *g, const cJSON *o, const char *key, long def, long max, long *out, const char *where)
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

static const cJSON *array_item(const cJSON *root, const char *key, long i)
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

static bool load_buffers(tpGltf *g, const unsigned char *bin, size_t binlen)
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
        if (!cJSON_IsObject(b) || !member_int(g, b, "byteLength", -2, (long)g->limits.max_bytes, &blen, "buffers[]"))
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
        if (!cJSON_IsString(uri) || strncmp(uri->valuestring, "data:", 5) != 0)
            FAIL(g, "buffers[%d]: only embedded buffers (data: URIs) or a GLB's own chunk are read; export as .glb", i);
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
    const cJSON *a = array_item(g->root, "accessors", idx);
    if (!cJSON_IsObject(a))
        FAIL(g, "accessor %ld does not exist", idx);
    if (cJSON_GetObjectItemCaseSensitive(a, "sparse"))
        FAIL(g, "accessors[%ld]: sparse accessors are not supported", idx);
    long view, off, count, ctype;
    const long maxn = indices ? 3L * g->limits.max_triangles : g->limits.max_vertices;
    if (!member_int(g, a, "bufferView", -2, 1L << 30, &view, "accessors[]") ||
        !member_int(g, a, "byteOffset", 0, 1L << 40, &off, "accessors[]") ||
        !member_int(g, a, "count", -2, 1L << 40, &count, "accessors[]") ||
        !member_int(g, a, "componentType", -2, 6000, &ctype, "accessors[]"))
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
    const cJSON *bv = array_item(g->root, "bufferViews", view);
    if (!cJSON_IsObject(bv))
        FAIL(g, "accessors[%ld]: bufferView %ld does not exist", idx, view);
    long buf, voff, vlen, stride;
    if (!member_int(g, bv, "buffer", -2, 1L << 30, &buf, "bufferViews[]") ||
        !member_int(g, bv, "byteOffset", 0, 1L << 40, &voff, "bufferViews[]") ||
        !member_int(g, bv, "byteLength", -2, 1L << 40, &vlen, "bufferViews[]") ||
        !member_int(g, bv, "byteStride", 0, 252, &stride, "bufferViews[]"))
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
static bool read_mesh(tpGltf *g, long mi, const double s[3], tpMesh *out)
{
    const cJSON *mesh = array_item(g->root, "meshes", mi);
    if (!cJSON_IsObject(mesh))
        FAIL(g, "mesh %ld does not exist", mi);
    const cJSON *prims = cJSON_GetObjectItemCaseSensitive(mesh, "primitives");
    if (!cJSON_IsArray(prims))
        FAIL(g, "meshes[%ld]: primitives must be an array", mi);
    tpMeshBuild b = {.name = g->name, .limits = g->limits, .err = g->err, .errlen = g->errlen};
    const cJSON *p;
    int pi = 0;
    cJSON_ArrayForEach(p, prims)
    {
        long mode, pos, ind;
        if (!cJSON_IsObject(p) || !member_int(g, p, "mode", 4, 6, &mode, "primitives[]") ||
            !member_int(g, p, "indices", -1, 1L << 30, &ind, "primitives[]"))
            goto fail;
        if (mode != 4) {
            tpErrorf(g->err, g->errlen, "%s: meshes[%ld].primitives[%d]: mode %ld is not triangles (4)", g->name, mi,
                     pi, mode);
            goto fail;
        }
        const cJSON *attr = cJSON_GetObjectItemCaseSensitive(p, "attributes");
        if (!cJSON_IsObject(attr) || !member_int(g, attr, "POSITION", -2, 1L << 30, &pos, "attributes")) {
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
        }
        pi++;
    }
    if (!tpMesh_Weld(&b.mesh)) {
        tpErrorf(g->err, g->errlen, "%s: out of memory", g->name);
        goto fail;
    }
    *out = b.mesh;
    return true;
fail:
    tpMesh_Free(&b.mesh);
    return false;
}

/* Affine transforms: row-major 3x4 [R | t]. */
static void mul34(const double a[12], const double b[12], double out[12])
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

static bool numbers_(const cJSON *a, int n, double *out)
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

static bool local_(tpGltf *g, const cJSON *node, long ni, double m[12])
{
    double mat[16];
    const cJSON *jm = cJSON_GetObjectItemCaseSensitive(node, "matrix");
    if (jm) {
        if (!numbers_(jm, 16, mat))
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
    if ((jt && !numbers_(jt, 3, t)) || (jr && !numbers_(jr, 4, q)) || (js && !numbers_(js, 3, s)))
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

static void matrix_to_quat(const double R[9], double q[4])
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

/* Physics of a node: OMI_physics_body first, then extras. *mesh_index may be replaced by the
 * collider shape's mesh. */
static bool node_physics(tpGltf *g, const cJSON *node, long ni, tpGltfNode *out, long *mesh_index)
{
    out->convex = true;
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(node, "extensions");
    const cJSON *omi = ext ? cJSON_GetObjectItemCaseSensitive(ext, "OMI_physics_body") : NULL;
    if (omi) {
        const cJSON *motion = cJSON_GetObjectItemCaseSensitive(omi, "motion");
        const cJSON *type = motion ? cJSON_GetObjectItemCaseSensitive(motion, "type") : NULL;
        if (cJSON_IsString(type)) {
            if (strcmp(type->valuestring, "dynamic") == 0)
                out->cls = TP_GLTF_PASSIVE;
            else if (strcmp(type->valuestring, "static") == 0 || strcmp(type->valuestring, "kinematic") == 0)
                out->cls = TP_GLTF_STATIC;
            else
                FAIL(g, "nodes[%ld] '%s': OMI_physics_body.motion.type \"%s\" (static, kinematic or dynamic)", ni,
                     out->name, type->valuestring);
            const cJSON *mass = cJSON_GetObjectItemCaseSensitive(motion, "mass");
            if (mass) {
                if (!cJSON_IsNumber(mass) || !(mass->valuedouble > 0) || !isfinite(mass->valuedouble))
                    FAIL(g, "nodes[%ld] '%s': OMI_physics_body.motion.mass must be > 0", ni, out->name);
                out->mass = mass->valuedouble;
            }
        }
        const cJSON *coll = cJSON_GetObjectItemCaseSensitive(omi, "collider");
        long si;
        if (coll && member_int(g, coll, "shape", -1, 1L << 20, &si, "OMI_physics_body.collider") && si >= 0) {
            const cJSON *rext = cJSON_GetObjectItemCaseSensitive(g->root, "extensions");
            const cJSON *shapes = rext ? cJSON_GetObjectItemCaseSensitive(rext, "OMI_physics_shape") : NULL;
            const cJSON *shape = shapes ? array_item(shapes, "shapes", si) : NULL;
            const cJSON *st = shape ? cJSON_GetObjectItemCaseSensitive(shape, "type") : NULL;
            if (!cJSON_IsString(st))
                FAIL(g, "nodes[%ld] '%s': OMI_physics_body.collider.shape %ld does not exist", ni, out->name, si);
            if (strcmp(st->valuestring, "trimesh") == 0 || strcmp(st->valuestring, "convex") == 0) {
                out->convex = strcmp(st->valuestring, "convex") == 0;
                const cJSON *sub = cJSON_GetObjectItemCaseSensitive(shape, st->valuestring);
                long m;
                if (sub && member_int(g, sub, "mesh", -1, 1L << 30, &m, "OMI_physics_shape") && m >= 0)
                    *mesh_index = m;
            }
        }
    }
    const cJSON *extras = cJSON_GetObjectItemCaseSensitive(node, "extras");
    if (cJSON_IsObject(extras)) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(extras, "tplan_class");
        if (c) {
            if (!cJSON_IsString(c))
                FAIL(g, "nodes[%ld] '%s': extras.tplan_class must be a string", ni, out->name);
            if (strcmp(c->valuestring, "static") == 0)
                out->cls = TP_GLTF_STATIC;
            else if (strcmp(c->valuestring, "passive") == 0)
                out->cls = TP_GLTF_PASSIVE;
            else if (strcmp(c->valuestring, "active") == 0)
                out->cls = TP_GLTF_ACTIVE;
            else
                FAIL(g, "nodes[%ld] '%s': extras.tplan_class \"%s\" (static, passive or active)", ni, out->name,
                     c->valuestring);
        }
        const char *keys[2] = {"mass", "density"};
        double *vals[2] = {&out->mass, &out->density};
        for (int k = 0; k < 2; k++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(extras, keys[k]);
            if (!v)
                continue;
            if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || !isfinite(v->valuedouble))
                FAIL(g, "nodes[%ld] '%s': extras.%s must be a number > 0", ni, out->name, keys[k]);
            *vals[k] = v->valuedouble;
        }
        const cJSON *mat = cJSON_GetObjectItemCaseSensitive(extras, "material");
        if (mat) {
            if (!cJSON_IsString(mat) || strlen(mat->valuestring) >= TP_GLTF_NAME_MAX)
                FAIL(g, "nodes[%ld] '%s': extras.material must be a string of under %d bytes", ni, out->name,
                     TP_GLTF_NAME_MAX);
            snprintf(out->material, sizeof out->material, "%s", mat->valuestring);
        }
    }
    return true;
}

/* The OMI_physics_body member `key` ("motion", "collider") of a node, or NULL. */
static const cJSON *omi_(const cJSON *node, const char *key)
{
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(node, "extensions");
    const cJSON *omi = ext ? cJSON_GetObjectItemCaseSensitive(ext, "OMI_physics_body") : NULL;
    return omi ? cJSON_GetObjectItemCaseSensitive(omi, key) : NULL;
}

/* Godot 4 writes a rigid body as a node with OMI_physics_body.motion and children: a collider
 * node (OMI_physics_body.collider, a convex or trimesh shape) and a visual mesh node. A node
 * without physics of its own under such a body: a collider becomes the body (its shape's mesh,
 * the body's name, class and mass); a mesh node becomes it too when the body has no collider
 * below it, and is skipped (visual only) when it has one. anc: the nearest ancestor with a
 * motion, has_coll[anc]: a collider below it. Returns 1 to keep the node, 0 to skip it, -1 on an
 * error (in g->err). */
static int inherit(tpGltf *g, const cJSON *nodes, int anc, const char *has_coll, bool own_collider, long mi,
                   tpGltfNode *out)
{
    if (anc < 0 || out->cls != TP_GLTF_NONE)
        return 1;
    if (!own_collider && (mi < 0 || has_coll[anc]))
        return 0; /* a visual mesh of a body that has colliders, or no mesh at all */
    const cJSON *an = cJSON_GetArrayItem(nodes, anc);
    tpGltfNode body;
    memset(&body, 0, sizeof body);
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(an, "name");
    if (cJSON_IsString(nm) && nm->valuestring[0] && strlen(nm->valuestring) < TP_GLTF_NAME_MAX)
        snprintf(body.name, sizeof body.name, "%s", nm->valuestring);
    else
        snprintf(body.name, sizeof body.name, "node%d", anc);
    long unused = -1;
    if (!node_physics(g, an, anc, &body, &unused))
        return -1;
    out->cls = body.cls;
    out->mass = body.mass;
    if (out->density == 0)
        out->density = body.density;
    if (!out->material[0])
        snprintf(out->material, sizeof out->material, "%s", body.material);
    if (cJSON_GetObjectItemCaseSensitive(an, "mesh") == NULL)
        snprintf(out->name, sizeof out->name, "%s", body.name); /* the body's only shape: its name */
    return 1;
}

static bool walk_(tpGltf *g, tpGltfScene *sc, const cJSON *nodes, int nn, const int *roots, int nroots,
                  const char *has_coll)
{
    /* iterative depth-first walk; every node has at most one parent (checked), so a node is
     * visited at most once and the stack never holds more than nn entries */
    typedef struct {
        int node;
        int anc; /* nearest ancestor with an OMI_physics_body motion, -1 */
        double world[12];
    } tpFrame;
    tpFrame *stack = malloc((size_t)(nn > 0 ? nn : 1) * sizeof *stack);
    if (!stack)
        FAIL(g, "out of memory");
    int top = 0;
    static const double ident[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    for (int r = nroots - 1; r >= 0; r--) {
        stack[top].node = roots[r];
        stack[top].anc = -1;
        memcpy(stack[top].world, ident, sizeof ident);
        top++;
    }
    bool ok = true;
    while (ok && top > 0) {
        tpFrame f = stack[--top];
        const cJSON *node = cJSON_GetArrayItem(nodes, f.node);
        double local[12], world[12];
        if (!local_(g, node, f.node, local)) {
            ok = false;
            break;
        }
        mul34(f.world, local, world);
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(node, "children");
        int nch = cJSON_IsArray(ch) ? cJSON_GetArraySize(ch) : 0;
        for (int c = nch - 1; c >= 0 && top < nn; c--) {
            stack[top].node = (int)cJSON_GetArrayItem(ch, c)->valuedouble;
            stack[top].anc = omi_(node, "motion") ? f.node : f.anc;
            memcpy(stack[top].world, world, sizeof world);
            top++;
        }
        long mi;
        if (!member_int(g, node, "mesh", -1, 1L << 30, &mi, "nodes[]")) {
            ok = false;
            break;
        }
        tpGltfNode out;
        memset(&out, 0, sizeof out);
        out.index = f.node;
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(node, "name");
        if (cJSON_IsString(nm) && nm->valuestring[0]) {
            if (strlen(nm->valuestring) >= TP_GLTF_NAME_MAX) {
                tpErrorf(g->err, g->errlen, "%s: nodes[%d]: name longer than %d bytes", g->name, f.node,
                         TP_GLTF_NAME_MAX - 1);
                ok = false;
                break;
            }
            snprintf(out.name, sizeof out.name, "%s", nm->valuestring);
        } else {
            snprintf(out.name, sizeof out.name, "node%d", f.node);
        }
        if (!node_physics(g, node, f.node, &out, &mi)) {
            ok = false;
            break;
        }
        const bool own_collider = omi_(node, "collider") != NULL && omi_(node, "motion") == NULL;
        int keep = inherit(g, nodes, f.anc, has_coll, own_collider, mi, &out);
        if (keep < 0) {
            ok = false;
            break;
        }
        if (keep == 0)
            continue;
        if (mi < 0)
            continue;
        /* world = [R S | t] in glTF axes: columns orthogonal, positive scale, no mirror */
        double s[3], R[9];
        for (int j = 0; j < 3; j++) {
            s[j] = sqrt(world[j] * world[j] + world[4 + j] * world[4 + j] + world[8 + j] * world[8 + j]);
            if (!(s[j] > 1e-9) || s[j] > 1e6) {
                tpErrorf(g->err, g->errlen, "%s: node '%s': scale %g along its axis %d", g->name, out.name, s[j], j);
                ok = false;
                break;
            }
            for (int i = 0; i < 3; i++)
                R[3 * i + j] = world[4 * i + j] / s[j];
        }
        if (!ok)
            break;
        double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                     R[2] * (R[3] * R[7] - R[4] * R[6]);
        double d01 = R[0] * R[1] + R[3] * R[4] + R[6] * R[7], d02 = R[0] * R[2] + R[3] * R[5] + R[6] * R[8],
               d12 = R[1] * R[2] + R[4] * R[5] + R[7] * R[8];
        if (fabs(d01) > 1e-5 || fabs(d02) > 1e-5 || fabs(d12) > 1e-5 || !(det > 0)) {
            tpErrorf(g->err, g->errlen, "%s: node '%s': its world transform %s", g->name, out.name,
                     det > 0 ? "shears (a non-uniform scale under a rotation)" : "mirrors (a negative scale)");
            ok = false;
            break;
        }
        /* tplan frame: R' = A R A^T, p = A t with A (x, y, z) = (x, -z, y) */
        const double Rz[9] = {R[0], -R[2], R[1], -R[6], R[8], -R[7], R[3], -R[5], R[4]};
        matrix_to_quat(Rz, out.quat);
        out.pos[0] = world[3];
        out.pos[1] = -world[11];
        out.pos[2] = world[7];
        if (!read_mesh(g, mi, s, &out.mesh)) {
            ok = false;
            break;
        }
        tpGltfNode *grown = realloc(sc->nodes, (size_t)(sc->nnodes + 1) * sizeof *grown);
        if (!grown) {
            tpMesh_Free(&out.mesh);
            tpErrorf(g->err, g->errlen, "%s: out of memory", g->name);
            ok = false;
            break;
        }
        sc->nodes = grown;
        sc->nodes[sc->nnodes++] = out;
    }
    free(stack);
    return ok;
}

static bool scene_(tpGltf *g, tpGltfScene *sc)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(g->root, "nodes");
    int nn = cJSON_IsArray(nodes) ? cJSON_GetArraySize(nodes) : 0;
    if (nn > g->limits.max_nodes)
        FAIL(g, "%d nodes (at most %d)", nn, g->limits.max_nodes);
    int *parent = malloc((size_t)(nn > 0 ? nn : 1) * sizeof *parent);
    int *roots = malloc((size_t)(nn > 0 ? nn : 1) * sizeof *roots);
    char *seen = calloc((size_t)(nn > 0 ? nn : 1), 1);
    bool ok = parent && roots && seen;
    if (!ok)
        tpErrorf(g->err, g->errlen, "%s: out of memory", g->name);
    for (int i = 0; ok && i < nn; i++)
        parent[i] = -1;
    for (int i = 0; ok && i < nn; i++) {
        const cJSON *node = cJSON_GetArrayItem(nodes, i);
        if (!cJSON_IsObject(node)) {
            tpErrorf(g->err, g->errlen, "%s: nodes[%d] is not an object", g->name, i);
            ok = false;
            break;
        }
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(node, "children"), *c;
        if (ch && !cJSON_IsArray(ch)) {
            tpErrorf(g->err, g->errlen, "%s: nodes[%d].children must be an array", g->name, i);
            ok = false;
            break;
        }
        cJSON_ArrayForEach(c, ch)
        {
            double v = cJSON_IsNumber(c) ? c->valuedouble : -1;
            if (!(v >= 0 && v < nn && v == floor(v))) {
                tpErrorf(g->err, g->errlen, "%s: nodes[%d].children: %g is not a node index", g->name, i, v);
                ok = false;
                break;
            }
            int k = (int)v;
            if (parent[k] >= 0 || k == i) {
                tpErrorf(g->err, g->errlen, "%s: node %d has two parents (%d and %d): not a tree", g->name, k,
                         parent[k] >= 0 ? parent[k] : i, i);
                ok = false;
                break;
            }
            parent[k] = i;
        }
    }
    /* the scene's roots: the default scene, else the first, else every parentless node */
    int nroots = 0;
    if (ok) {
        long si;
        const cJSON *scenes = cJSON_GetObjectItemCaseSensitive(g->root, "scenes");
        ok = member_int(g, g->root, "scene", 0, 1L << 20, &si, "glTF");
        const cJSON *scene = ok && cJSON_IsArray(scenes) ? cJSON_GetArrayItem(scenes, (int)si) : NULL;
        if (ok && cJSON_IsArray(scenes) && !scene) {
            tpErrorf(g->err, g->errlen, "%s: scene %ld does not exist", g->name, si);
            ok = false;
        }
        const cJSON *rn = scene ? cJSON_GetObjectItemCaseSensitive(scene, "nodes") : NULL, *r;
        if (scene) {
            cJSON_ArrayForEach(r, rn)
            {
                double v = cJSON_IsNumber(r) ? r->valuedouble : -1;
                if (v >= 0 && v < nn && v == floor(v) && parent[(int)v] >= 0) {
                    tpErrorf(g->err, g->errlen,
                             "%s: scenes[%ld].nodes: node %d is also a child of node %d (a root "
                             "cannot have a parent: a cycle?)",
                             g->name, si, (int)v, parent[(int)v]);
                    ok = false;
                    break;
                }
                if (!(v >= 0 && v < nn && v == floor(v)) || seen[(int)v]) {
                    tpErrorf(g->err, g->errlen, "%s: scenes[%ld].nodes: %g is not a node index (or listed twice)",
                             g->name, si, v);
                    ok = false;
                    break;
                }
                seen[(int)v] = 1;
                roots[nroots++] = (int)v;
            }
        } else {
            for (int i = 0; ok && i < nn; i++)
                if (parent[i] < 0)
                    roots[nroots++] = i;
        }
    }
    /* every node must hang off a parentless node: with one parent each, the others are in a cycle */
    for (int i = 0; ok && i < nn; i++) {
        int k = i, steps = 0;
        while (parent[k] >= 0 && steps <= nn) {
            k = parent[k];
            steps++;
            if (k == i || steps > nn) {
                tpErrorf(g->err, g->errlen, "%s: the node tree has a cycle through node %d", g->name, i);
                ok = false;
                break;
            }
        }
    }
    /* which bodies (nodes with a motion) have a collider node below them */
    char *has_coll = calloc((size_t)(nn > 0 ? nn : 1), 1);
    if (ok && !has_coll) {
        tpErrorf(g->err, g->errlen, "%s: out of memory", g->name);
        ok = false;
    }
    for (int i = 0; ok && i < nn; i++) {
        const cJSON *node = cJSON_GetArrayItem(nodes, i);
        if (!omi_(node, "collider") || omi_(node, "motion"))
            continue;
        for (int k = parent[i], steps = 0; k >= 0 && steps <= nn; k = parent[k], steps++) {
            if (omi_(cJSON_GetArrayItem(nodes, k), "motion")) {
                has_coll[k] = 1;
                break;
            }
        }
    }
    if (ok)
        ok = walk_(g, sc, nodes, nn, roots, nroots, has_coll);
    free(has_coll);
    free(parent);
    free(roots);
    free(seen);
    return ok;
}

bool tpGltf_ReadScene(const char *name, const void *data, size_t len, const tpMeshLimits *limits, tpGltfScene *out,
                      char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    tpGltf g = {.name = name, .err = err, .errlen = errlen, .limits = limits ? *limits : tpDefaultMeshLimits()};
    if (len > g.limits.max_bytes)
        FAIL(&g, "%zu bytes, more than the %zu allowed", len, g.limits.max_bytes);
    const unsigned char *d = data;
    const char *json = data;
    size_t jlen = len;
    const unsigned char *bin = NULL;
    size_t binlen = 0;
    if (len >= 4 && memcmp(d, "glTF", 4) == 0) {
        if (len < 20)
            FAIL(&g, "GLB: %zu bytes is too short for a header", len);
        uint32_t ver = le32(d + 4), total = le32(d + 8), clen = le32(d + 12), ctype = le32(d + 16);
        if (ver != 2)
            FAIL(&g, "GLB: version %u (only 2)", ver);
        if (total > len || total < 20)
            FAIL(&g, "GLB: header says %u bytes, the file has %zu (and a GLB has at least 20)", total, len);
        if (ctype != 0x4E4F534Au || clen > total - 20)
            FAIL(&g, "GLB: the first chunk must be JSON and inside the file");
        json = (const char *)d + 20;
        jlen = clen;
        size_t next = 20 + (size_t)clen;
        if (next + 8 <= total) {
            uint32_t blen = le32(d + next), btype = le32(d + next + 4);
            if (btype == 0x004E4942u) {
                if (blen > total - next - 8)
                    FAIL(&g, "GLB: the binary chunk runs past the end of the file");
                bin = d + next + 8;
                binlen = blen;
            }
        }
    }
    char why[160];
    if (!tpJson_CheckText(json, jlen, why, sizeof why))
        FAIL(&g, "%s", why);
    size_t stop = 0;
    g.root = tpJson_ParseDocument(json, jlen, &stop);
    if (!g.root) {
        size_t line, col;
        tpJson_LineColumn(json, jlen, stop, &line, &col);
        FAIL(&g, "JSON error at line %zu, column %zu", line, col);
    }
    bool ok = cJSON_IsObject(g.root);
    if (!ok)
        tpErrorf(err, errlen, "%s: not a glTF document (the top level must be an object)", name);
    const cJSON *asset = ok ? cJSON_GetObjectItemCaseSensitive(g.root, "asset") : NULL;
    const cJSON *ver = asset ? cJSON_GetObjectItemCaseSensitive(asset, "version") : NULL;
    if (ok && (!cJSON_IsString(ver) || strncmp(ver->valuestring, "2.", 2) != 0)) {
        tpErrorf(err, errlen, "%s: asset.version must be \"2.x\"", name);
        ok = false;
    }
    if (ok)
        ok = load_buffers(&g, bin, binlen) && scene_(&g, out);
    for (int i = 0; i < g.nbufs; i++)
        free(g.bufs[i].owned);
    free(g.bufs);
    cJSON_Delete(g.root);
    if (!ok)
        tpGltfScene_Free(out);
    return ok;
}

void tpGltfScene_Free(tpGltfScene *sc)
{
    if (sc == NULL)
        return;
    for (int i = 0; i < sc->nnodes; i++)
        tpMesh_Free(&sc->nodes[i].mesh);
    free(sc->nodes);
    memset(sc, 0, sizeof *sc);
}
