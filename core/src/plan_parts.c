/* The parts of a compound body in a plan file (member "compound" of a body, version
 * TP_PLAN_VERSION_PARTS, docs/plan-format.md): {"origin": [3], "parts": [{"shape", "size", "pos",
 * "quat"} | {"shape": "mesh", "pos", "quat", "vertices", "triangles"}, ...]}. Lifetime, writer
 * check, writer and a strict reader (every member known, every number in range). */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/base.h"
#include "tp/plan.h"

static const char *const k_part_shapes[] = {"box", "sphere", "cylinder", "capsule", "mesh", NULL};

/* s is one of the part shapes (plan_write.c's tpPlan_IsOneOf is not called: plan_write.c calls this
 * file, and the folder keeps no file-level cycle). */
static bool is_part_shape(const char *s)
{
    for (int k = 0; k_part_shapes[k]; ++k) {
        if (strcmp(s, k_part_shapes[k]) == 0) {
            return true;
        }
    }
    return false;
}

void tpPlan_FreeParts(tpPlanBody *b)
{
    for (int k = 0; k < b->nparts && b->parts; ++k) {
        free(b->parts[k].vertices);
        free(b->parts[k].triangles);
    }
    free(b->parts);
    b->parts = NULL;
    b->nparts = 0;
}

static int size_count(const char *shape)
{
    return strcmp(shape, "box") == 0 ? 3 : strcmp(shape, "sphere") == 0 ? 1 : strcmp(shape, "mesh") == 0 ? 0 : 2;
}

/* The first problem of part p ("" and true if none), its field after `field` into err. */
static bool part_problem(const tpPlanPart *p, const char *field, char *err, size_t errlen)
{
    if (!is_part_shape(p->shape)) {
        return tpPlan_Failf(err, errlen, "%s.shape: \"%s\" is not box, sphere, cylinder, capsule or mesh", field,
                            p->shape);
    }
    for (int j = 0; j < size_count(p->shape); ++j) {
        if (!(p->size[j] > 0.0 && p->size[j] <= TP_MAX_COORD)) {
            return tpPlan_Failf(err, errlen, "%s.size[%d]: %.17g is not a length in (0, %g] m", field, j, p->size[j],
                                TP_MAX_COORD);
        }
    }
    for (int j = 0; j < 3; ++j) {
        if (!(fabs(p->pos[j]) <= TP_MAX_COORD)) {
            return tpPlan_Failf(err, errlen, "%s.pos[%d]: %.17g is not within +-%g m", field, j, p->pos[j],
                                TP_MAX_COORD);
        }
    }
    const double qn =
        sqrt(p->quat[0] * p->quat[0] + p->quat[1] * p->quat[1] + p->quat[2] * p->quat[2] + p->quat[3] * p->quat[3]);
    if (!(fabs(qn - 1.0) <= TP_PLAN_START_QUAT_TOL)) {
        return tpPlan_Failf(err, errlen, "%s.quat: its norm %.17g is not 1", field, qn);
    }
    const bool mesh = strcmp(p->shape, "mesh") == 0;
    if (mesh != (p->nvertices > 0) ||
        (mesh && (p->nvertices < 4 || p->nvertices > TP_PLAN_MAX_MESH_VERTICES || p->ntriangles < 1 ||
                  p->ntriangles > TP_PLAN_MAX_MESH_TRIANGLES || !p->vertices || !p->triangles))) {
        return tpPlan_Failf(err, errlen, "%s: %d vertices and %d triangles on a \"%s\" part", field, p->nvertices,
                            p->ntriangles, p->shape);
    }
    for (int k = 0; k < 3 * p->nvertices; ++k) {
        if (!(fabs(p->vertices[k]) <= TP_MAX_COORD)) {
            return tpPlan_Failf(err, errlen, "%s.vertices[%d][%d]: %.17g is not within +-%g m", field, k / 3, k % 3,
                                p->vertices[k], TP_MAX_COORD);
        }
    }
    for (int k = 0; k < 3 * p->ntriangles; ++k) {
        if (p->triangles[k] < 0 || p->triangles[k] >= p->nvertices) {
            return tpPlan_Failf(err, errlen, "%s.triangles[%d][%d]: %d is not a vertex index (%d vertices)", field,
                                k / 3, k % 3, (int)p->triangles[k], p->nvertices);
        }
    }
    return true;
}

bool tpPlan_CheckParts(const tpPlanRecord *rec, char *err, size_t errlen)
{
    for (int i = 0; i < rec->nbodies; ++i) {
        const tpPlanBody *b = &rec->bodies[i];
        const bool compound = strcmp(b->shape, "compound") == 0;
        if (compound != (b->nparts > 0) || b->nparts > TP_PLAN_MAX_PARTS || (b->nparts > 0 && !b->parts)) {
            return tpPlan_Failf(err, errlen, "bodies[%d].compound: %d parts on a \"%s\" body (a compound has 1 to %d)",
                                i, b->nparts, b->shape, TP_PLAN_MAX_PARTS);
        }
        for (int k = 0; k < b->nparts; ++k) {
            char field[64];
            snprintf(field, sizeof field, "bodies[%d].compound.parts[%d]", i, k);
            if (!part_problem(&b->parts[k], field, err, errlen)) {
                return false;
            }
        }
    }
    return true;
}

static void put_array(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int k = 0; k < n; ++k) {
        fputs(k ? ", " : "", f);
        char buf[40]; /* the writer's digits (plan_pack.c): the parts' numbers are finite */
        fwrite(buf, 1, (size_t)tpPlan_FormatNumber(v[k], buf), f);
    }
    fputc(']', f);
}

void tpPlan_PutParts(FILE *f, const tpPlanBody *b)
{
    if (b->nparts <= 0) {
        return;
    }
    fputs(",\n      \"compound\": {\"origin\": ", f);
    put_array(f, b->mesh_origin, 3);
    fputs(", \"parts\": [", f);
    for (int k = 0; k < b->nparts; ++k) {
        const tpPlanPart *p = &b->parts[k];
        fprintf(f, "%s\n        {\"shape\": \"%s\"", k ? "," : "", p->shape);
        if (size_count(p->shape) > 0) {
            fputs(", \"size\": ", f);
            put_array(f, p->size, size_count(p->shape));
        }
        fputs(", \"pos\": ", f);
        put_array(f, p->pos, 3);
        fputs(", \"quat\": ", f);
        put_array(f, p->quat, 4);
        if (p->nvertices > 0) {
            fputs(",\n         \"vertices\": [", f);
            for (int v = 0; v < p->nvertices; ++v) {
                fputs(v ? ", " : "", f);
                put_array(f, p->vertices + 3 * v, 3);
            }
            fputs("],\n         \"triangles\": [", f);
            for (int t = 0; t < p->ntriangles; ++t) {
                const int32_t *x = p->triangles + 3 * t;
                fprintf(f, "%s[%" PRId32 ", %" PRId32 ", %" PRId32 "]", t ? ", " : "", x[0], x[1], x[2]);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputs("]}", f);
}

/* An array of exactly n numbers into out. */
static bool numbers(const cJSON *a, int n, double *out, const char *file, const char *field, char *err, size_t errlen)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) {
        return tpPlan_Failf(err, errlen, "%s: %s: expected an array of %d numbers", file, field, n);
    }
    int k = 0;
    for (const cJSON *e = a->child; e; e = e->next, ++k) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            return tpPlan_Failf(err, errlen, "%s: %s[%d]: expected a finite number", file, field, k);
        }
        out[k] = e->valuedouble;
    }
    return true;
}

/* Rows of 3 numbers (vertices, or triangles as doubles): an array of 1..max of them, into a new
 * block (*out, count in *n). */
static bool rows3(const cJSON *a, int max, double **out, int *n, const char *file, const char *field, char *err,
                  size_t errlen)
{
    int m = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    if (m < 1 || m > max) {
        return tpPlan_Failf(err, errlen, "%s: %s: expected an array of 1 to %d rows", file, field, max);
    }
    *out = malloc((size_t)m * 3 * sizeof **out);
    if (!*out) {
        return tpPlan_Failf(err, errlen, "%s: %s: out of memory", file, field);
    }
    *n = m;
    int k = 0;
    char sub[96];
    for (const cJSON *e = a->child; e; e = e->next, ++k) {
        snprintf(sub, sizeof sub, "%s[%d]", field, k);
        if (!numbers(e, 3, *out + 3 * k, file, sub, err, errlen)) {
            return false;
        }
    }
    return true;
}

static bool read_part(const cJSON *o, tpPlanPart *p, const char *file, const char *field, char *err, size_t errlen)
{
    static const char *const known[] = {"shape", "size", "pos", "quat", "vertices", "triangles", NULL};
    if (!cJSON_IsObject(o)) {
        return tpPlan_Failf(err, errlen, "%s: %s: expected an object", file, field);
    }
    for (const cJSON *e = o->child; e; e = e->next) {
        bool ok = false;
        for (int k = 0; e->string && known[k] && !ok; ++k) {
            ok = strcmp(e->string, known[k]) == 0;
        }
        if (!ok) {
            return tpPlan_Failf(err, errlen, "%s: %s: unknown member \"%s\"", file, field, e->string ? e->string : "");
        }
    }
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(o, "shape");
    if (!cJSON_IsString(shape) || !is_part_shape(shape->valuestring)) {
        return tpPlan_Failf(err, errlen,
                            "%s: %s.shape: expected \"box\", \"sphere\", \"cylinder\", \"capsule\" or \"mesh\"", file,
                            field);
    }
    snprintf(p->shape, sizeof p->shape, "%s", shape->valuestring);
    char sub[96];
    const int ns = size_count(p->shape);
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(o, "size");
    snprintf(sub, sizeof sub, "%s.size", field);
    if ((ns > 0 || size) && !numbers(size, ns, p->size, file, sub, err, errlen)) {
        return false;
    }
    snprintf(sub, sizeof sub, "%s.pos", field);
    if (!numbers(cJSON_GetObjectItemCaseSensitive(o, "pos"), 3, p->pos, file, sub, err, errlen)) {
        return false;
    }
    snprintf(sub, sizeof sub, "%s.quat", field);
    if (!numbers(cJSON_GetObjectItemCaseSensitive(o, "quat"), 4, p->quat, file, sub, err, errlen)) {
        return false;
    }
    const cJSON *verts = cJSON_GetObjectItemCaseSensitive(o, "vertices");
    const cJSON *tris = cJSON_GetObjectItemCaseSensitive(o, "triangles");
    const bool mesh = strcmp(p->shape, "mesh") == 0;
    if (mesh != (verts != NULL) || mesh != (tris != NULL)) {
        return tpPlan_Failf(err, errlen, "%s: %s: \"vertices\" and \"triangles\" go with a mesh part and only there",
                            file, field);
    }
    if (mesh) {
        double *td = NULL;
        int nt = 0;
        snprintf(sub, sizeof sub, "%s.vertices", field);
        if (!rows3(verts, TP_PLAN_MAX_MESH_VERTICES, &p->vertices, &p->nvertices, file, sub, err, errlen)) {
            return false;
        }
        snprintf(sub, sizeof sub, "%s.triangles", field);
        bool ok = rows3(tris, TP_PLAN_MAX_MESH_TRIANGLES, &td, &nt, file, sub, err, errlen);
        p->triangles = ok ? malloc((size_t)nt * 3 * sizeof *p->triangles) : NULL;
        if (ok && !p->triangles) {
            ok = tpPlan_Failf(err, errlen, "%s: %s: out of memory", file, sub);
        }
        for (int k = 0; ok && k < 3 * nt; ++k) {
            if (!(td[k] >= 0 && td[k] < p->nvertices && td[k] == floor(td[k]))) {
                ok = tpPlan_Failf(err, errlen, "%s: %s[%d][%d]: %.17g is not a vertex index (%d vertices)", file, sub,
                                  k / 3, k % 3, td[k], p->nvertices);
            } else {
                p->triangles[k] = (int32_t)td[k];
            }
        }
        free(td);
        if (!ok) {
            return false;
        }
        p->ntriangles = nt;
    }
    char why[256];
    if (!part_problem(p, field, why, sizeof why)) {
        return tpPlan_Failf(err, errlen, "%s: %s", file, why);
    }
    return true;
}

bool tpPlan_ReadParts(const char *file, const cJSON *body, const char *base, tpPlanBody *b, int version, char *err,
                      size_t errlen)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(body, "compound");
    const bool compound = strcmp(b->shape, "compound") == 0;
    if (!c && !compound) {
        return true;
    }
    if (version < TP_PLAN_VERSION_PARTS) {
        return tpPlan_Failf(err, errlen, "%s: %s: a version %d plan has no compound bodies (version %d has)", file,
                            base, version, TP_PLAN_VERSION_PARTS);
    }
    if (!compound || !cJSON_IsObject(c)) {
        return tpPlan_Failf(err, errlen, "%s: %s.compound: %s", file, base,
                            compound ? "a compound body needs its \"compound\" object"
                                     : "only a body of shape \"compound\" carries one");
    }
    for (const cJSON *e = c->child; e; e = e->next) {
        if (!e->string || (strcmp(e->string, "origin") != 0 && strcmp(e->string, "parts") != 0)) {
            return tpPlan_Failf(err, errlen, "%s: %s.compound: unknown member \"%s\"", file, base,
                                e->string ? e->string : "");
        }
    }
    char field[64];
    snprintf(field, sizeof field, "%s.compound.origin", base);
    if (!numbers(cJSON_GetObjectItemCaseSensitive(c, "origin"), 3, b->mesh_origin, file, field, err, errlen)) {
        return false;
    }
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(c, "parts");
    const int n = cJSON_IsArray(parts) ? cJSON_GetArraySize(parts) : -1;
    if (n < 1 || n > TP_PLAN_MAX_PARTS) {
        return tpPlan_Failf(err, errlen, "%s: %s.compound.parts: expected an array of 1 to %d parts", file, base,
                            TP_PLAN_MAX_PARTS);
    }
    b->parts = calloc((size_t)n, sizeof *b->parts);
    if (!b->parts) {
        return tpPlan_Failf(err, errlen, "%s: %s.compound.parts: out of memory", file, base);
    }
    b->nparts = n;
    int k = 0;
    for (const cJSON *e = parts->child; e; e = e->next, ++k) {
        snprintf(field, sizeof field, "%s.compound.parts[%d]", base, k);
        if (!read_part(e, &b->parts[k], file, field, err, errlen)) {
            return false;
        }
    }
    return true;
}
