/* tplan export: the node tree of the glTF file a plan's scene came from (tp.scene), read from the
 * plan's embedded sources, so that the glTF export writes the file's own hierarchy and names back
 * (tpExportSource, docs/export.md). Only the tree is read here (names, parents, transforms); the
 * bodies, shapes and joints come from the plan and its script, as in the flat layout. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "tp/base.h"
#include "tp/export.h"
#include "tp/plan.h"

static bool ends_with(const char *s, const char *tail)
{
    const size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The JSON text of a .gltf, or of a .glb's first chunk, parsed; NULL when it is neither. */
static cJSON *parse_doc(const tpPlanSource *src)
{
    const unsigned char *d = src->data;
    if (src->len >= 20 && memcmp(d, "glTF", 4) == 0) {
        const uint32_t clen = (uint32_t)d[12] | (uint32_t)d[13] << 8 | (uint32_t)d[14] << 16 | (uint32_t)d[15] << 24;
        if (memcmp(d + 16, "JSON", 4) != 0 || (size_t)clen > src->len - 20)
            return NULL;
        return cJSON_ParseWithLength((const char *)d + 20, clen);
    }
    return cJSON_ParseWithLength((const char *)d, src->len);
}

/* A node's local transform as a row-major 3x4 [R S | t] (glTF axes): its matrix, or T R S. */
static void local_of(const cJSON *node, double m[12])
{
    static const double I[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    memcpy(m, I, sizeof I);
    const cJSON *mat = cJSON_GetObjectItemCaseSensitive(node, "matrix");
    if (cJSON_IsArray(mat) && cJSON_GetArraySize(mat) == 16) {
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++)
                m[4 * r + c] = cJSON_GetArrayItem(mat, 4 * c + r)->valuedouble; /* column-major */
        return;
    }
    double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    const cJSON *a;
    if (cJSON_IsArray(a = cJSON_GetObjectItemCaseSensitive(node, "translation")) && cJSON_GetArraySize(a) == 3)
        for (int k = 0; k < 3; k++)
            t[k] = cJSON_GetArrayItem(a, k)->valuedouble;
    if (cJSON_IsArray(a = cJSON_GetObjectItemCaseSensitive(node, "rotation")) && cJSON_GetArraySize(a) == 4)
        for (int k = 0; k < 4; k++)
            q[k] = cJSON_GetArrayItem(a, k)->valuedouble;
    if (cJSON_IsArray(a = cJSON_GetObjectItemCaseSensitive(node, "scale")) && cJSON_GetArraySize(a) == 3)
        for (int k = 0; k < 3; k++)
            s[k] = cJSON_GetArrayItem(a, k)->valuedouble;
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const double x = n > 0 ? q[0] / n : 0, y = n > 0 ? q[1] / n : 0, z = n > 0 ? q[2] / n : 0, w = n > 0 ? q[3] / n : 1;
    const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
                         2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                         2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y)};
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            m[4 * r + c] = R[3 * r + c] * s[c];
        m[4 * r + 3] = t[r];
    }
}

static void mul34(const double a[12], const double b[12], double out[12])
{
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 4; c++) {
            double v = c == 3 ? a[4 * r + 3] : 0.0;
            for (int k = 0; k < 3; k++)
                v += a[4 * r + k] * b[4 * k + c];
            out[4 * r + c] = v;
        }
    }
}

/* The node carries a collider (OMI_physics_body.collider, an OMI_physics_shape of its own, or
   KHR_physics_rigid_bodies.collider). */
static bool has_collider(const cJSON *node)
{
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(node, "extensions");
    const cJSON *omi = ext ? cJSON_GetObjectItemCaseSensitive(ext, "OMI_physics_body") : NULL;
    const cJSON *khr = ext ? cJSON_GetObjectItemCaseSensitive(ext, "KHR_physics_rigid_bodies") : NULL;
    return (omi && cJSON_GetObjectItemCaseSensitive(omi, "collider")) ||
           (ext && cJSON_GetObjectItemCaseSensitive(ext, "OMI_physics_shape")) ||
           (khr && cJSON_GetObjectItemCaseSensitive(khr, "collider"));
}

static bool is_joint_node(const cJSON *node)
{
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(node, "extensions");
    const cJSON *khr = ext ? cJSON_GetObjectItemCaseSensitive(ext, "KHR_physics_rigid_bodies") : NULL;
    return ext && (cJSON_GetObjectItemCaseSensitive(ext, "OMI_physics_joint") ||
                   (khr && cJSON_GetObjectItemCaseSensitive(khr, "joint")));
}

/* The tree of one document's default scene into out (heap-owned *nodes); the count of record
   bodies it names; -1 when it is not a glTF document with a scene. */
static int read_tree(const cJSON *doc, const tpPlanRecord *rec, tpExportSourceNode **nodes, int *nnodes)
{
    const cJSON *jn = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    const cJSON *scenes = cJSON_GetObjectItemCaseSensitive(doc, "scenes");
    const cJSON *si = cJSON_GetObjectItemCaseSensitive(doc, "scene");
    const int nn = cJSON_IsArray(jn) ? cJSON_GetArraySize(jn) : 0;
    const cJSON *scene = cJSON_GetArrayItem(scenes, cJSON_IsNumber(si) ? (int)si->valuedouble : 0);
    const cJSON *roots = scene ? cJSON_GetObjectItemCaseSensitive(scene, "nodes") : NULL;
    if (nn == 0 || !cJSON_IsArray(roots))
        return -1;
    /* walk the scene from its roots (depth first, every node once): file index -> out index */
    int *map = malloc(sizeof(int) * (size_t)nn), *stack = malloc(sizeof(int) * (size_t)nn * 2);
    tpExportSourceNode *out = calloc((size_t)nn, sizeof *out);
    if (!map || !stack || !out) {
        free(map), free(stack), free(out);
        return -1;
    }
    for (int i = 0; i < nn; i++)
        map[i] = -2;
    int n = 0, top = 0, named = 0;
    for (int k = cJSON_GetArraySize(roots) - 1; k >= 0; k--) { /* reversed: popped in the file's order */
        const cJSON *r = cJSON_GetArrayItem(roots, k);
        const int i = cJSON_IsNumber(r) ? (int)r->valuedouble : -1;
        if (i >= 0 && i < nn && map[i] == -2 && top < 2 * nn)
            stack[top++] = i, stack[top++] = -1;
    }
    while (top > 0) {
        const int parent = stack[--top], i = stack[--top];
        if (map[i] != -2)
            continue;
        const cJSON *node = cJSON_GetArrayItem(jn, i);
        double local[12];
        local_of(node, local);
        int up = parent; /* a joint node is left out: its children hang from its parent */
        double pw[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
        if (up >= 0)
            memcpy(pw, out[up].world, sizeof pw);
        double world[12];
        mul34(pw, local, world);
        if (is_joint_node(node)) {
            map[i] = -1;
        } else {
            tpExportSourceNode *o = &out[n];
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(node, "name");
            snprintf(o->name, sizeof o->name, "%s", cJSON_IsString(nm) ? nm->valuestring : "");
            o->parent = up;
            o->body = -1;
            memcpy(o->world, world, sizeof world);
            for (int b = 0; o->name[0] && b < rec->nbodies; b++)
                if (strcmp(rec->bodies[b].name, o->name) == 0)
                    o->body = b;
            named += o->body >= 0;
            o->collider = o->body < 0 && has_collider(node);
            map[i] = n++;
        }
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(node, "children");
        const int me = map[i] >= 0 ? map[i] : up;
        for (int j = cJSON_GetArraySize(ch) - 1; j >= 0; j--) {
            const cJSON *c = cJSON_GetArrayItem(ch, j);
            const int k = cJSON_IsNumber(c) ? (int)c->valuedouble : -1;
            if (k >= 0 && k < nn && map[k] == -2 && top + 2 <= 2 * nn) {
                stack[top++] = k, stack[top++] = me;
            }
        }
    }
    free(map);
    free(stack);
    *nodes = out;
    *nnodes = n;
    return named;
}

bool tpCli_ExportSource(const tpPlanRecord *rec, tpExportSource *src, tpExportSourceNode **nodes)
{
    memset(src, 0, sizeof *src);
    *nodes = NULL;
    int best = 0;
    for (int f = 0; f < rec->nsources; f++) {
        const tpPlanSource *ps = &rec->sources[f];
        if (!ends_with(ps->path, ".gltf") && !ends_with(ps->path, ".glb"))
            continue;
        cJSON *doc = parse_doc(ps);
        tpExportSourceNode *t = NULL;
        int n = 0;
        const int named = doc ? read_tree(doc, rec, &t, &n) : -1;
        cJSON_Delete(doc);
        if (named > best) { /* the file that names the most of the plan's bodies */
            free(*nodes);
            *nodes = t;
            src->nnodes = n;
            best = named;
        } else {
            free(t);
        }
    }
    src->nodes = *nodes;
    return best > 0;
}
