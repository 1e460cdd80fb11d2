/* The invariants of a glTF export's binary layout (tpXLayout_Valid, gltf_layout.h) and of the
 * meshes the writers build (tpXMesh_Valid, export_internal.h). The layout: buffer views 4-byte
 * aligned, in order, not overlapping and within the data; accessors of a known component type and
 * shape filling their own view exactly, min <= max; materials' colours in [0, 1]; meshes'
 * primitives (mode, material, a VEC3 float position and normal of one count, unsigned scalar
 * indices of whole triangles or lines); each body's mesh a body mesh; animation keys from sample 0
 * strictly increasing with n times and n values. Run through TP_VALIDATE after the layout pass of
 * every glTF export and on every mesh built, in Debug and sanitizer builds;
 * tests/export/test_export_validate.c breaks each rule once. Reads only. */
#include <math.h>

#include "export_internal.h"
#include "gltf_layout.h"
#include "tp/base.h"

static int comp_bytes(int ctype)
{
    return ctype == TP_GL_FLOAT || ctype == TP_GL_UNSIGNED_INT ? 4 : ctype == TP_GL_UNSIGNED_SHORT ? 2 : 0;
}

static bool valid_views(const tpXLayout *l, char *why, size_t cap)
{
    if (l->nviews < 0 || l->naccs < 0 || l->nmats < 0 || l->nmeshes < 0 || l->nkeys < 0 || l->bytes < 0 ||
        l->bytes % 4 != 0) {
        return tpBroken(why, cap, "layout: %d views, %d accessors, %d materials, %d meshes, %d key lists, %lld bytes",
                        l->nviews, l->naccs, l->nmats, l->nmeshes, l->nkeys, (long long)l->bytes);
    }
    int64_t end = 0;
    for (int i = 0; i < l->nviews; i++) {
        const tpXView *v = &l->views[i];
        if (v->offset % 4 != 0) {
            return tpBroken(why, cap, "view %d: offset %lld is not 4-byte aligned", i, (long long)v->offset);
        }
        if (v->length < 0 || v->offset < end || v->offset + v->length > l->bytes) {
            return tpBroken(why, cap, "view %d: bytes %lld + %lld, after %lld, of %lld", i, (long long)v->offset,
                            (long long)v->length, (long long)end, (long long)l->bytes);
        }
        if (v->target != 0 && v->target != TP_GL_ARRAY_BUFFER && v->target != TP_GL_ELEMENT_ARRAY_BUFFER) {
            return tpBroken(why, cap, "view %d: target %d", i, v->target);
        }
        end = v->offset + v->length;
    }
    return true;
}

static bool valid_accessors(const tpXLayout *l, char *why, size_t cap)
{
    for (int i = 0; i < l->naccs; i++) {
        const tpXAcc *a = &l->accs[i];
        if (a->view < 0 || a->view >= l->nviews) {
            return tpBroken(why, cap, "accessor %d: view %d of %d", i, a->view, l->nviews);
        }
        if (comp_bytes(a->ctype) == 0 || (a->ncomp != 1 && a->ncomp != 3 && a->ncomp != 4) || a->count < 0) {
            return tpBroken(why, cap, "accessor %d: %lld of %d components of type %d", i, (long long)a->count, a->ncomp,
                            a->ctype);
        }
        const tpXView *v = &l->views[a->view];
        const int64_t size = a->count * a->ncomp * comp_bytes(a->ctype);
        if (size != v->length) {
            return tpBroken(why, cap, "accessor %d: %lld bytes in view %d of %lld", i, (long long)size, a->view,
                            (long long)v->length);
        }
        if (v->target == TP_GL_ELEMENT_ARRAY_BUFFER ? a->ctype == TP_GL_FLOAT || a->ncomp != 1
                                                    : a->ctype != TP_GL_FLOAT) {
            return tpBroken(why, cap, "accessor %d: type %d x %d in a view of target %d", i, a->ctype, a->ncomp,
                            v->target);
        }
        for (int k = 0; a->minmax && a->count > 0 && k < a->ncomp; k++) {
            if (!(a->min[k] <= a->max[k]) || !isfinite(a->min[k]) || !isfinite(a->max[k])) {
                return tpBroken(why, cap, "accessor %d: component %d in [%g, %g]", i, k, a->min[k], a->max[k]);
            }
        }
    }
    return true;
}

/* Accessor i is -1 (when `none` is allowed) or an accessor of ncomp floats. */
static bool float_acc(const tpXLayout *l, int i, int ncomp, bool none)
{
    if (i < 0 || i >= l->naccs) {
        return none && i == -1;
    }
    return l->accs[i].ctype == TP_GL_FLOAT && l->accs[i].ncomp == ncomp;
}

static bool valid_meshes(const tpXLayout *l, char *why, size_t cap)
{
    for (int i = 0; i < l->nmats; i++) {
        for (int k = 0; k < 4; k++) {
            if (!(l->mats[i].rgba[k] >= 0.0f && l->mats[i].rgba[k] <= 1.0f)) {
                return tpBroken(why, cap, "material %d: colour component %d is %g", i, k, (double)l->mats[i].rgba[k]);
            }
        }
    }
    for (int m = 0; m < l->nmeshes; m++) {
        const tpXMeshEntry *x = &l->meshes[m];
        if (x->nprims < 1 || !x->prims) {
            return tpBroken(why, cap, "mesh %d '%s': %d primitives", m, x->name, x->nprims);
        }
        for (int p = 0; p < x->nprims; p++) {
            const tpXPrim *pr = &x->prims[p];
            if (pr->mode != TP_GL_LINES && pr->mode != TP_GL_LINE_STRIP && pr->mode != TP_GL_TRIANGLES) {
                return tpBroken(why, cap, "mesh %d primitive %d: mode %d", m, p, pr->mode);
            }
            if (pr->material < 0 || pr->material >= l->nmats) {
                return tpBroken(why, cap, "mesh %d primitive %d: material %d of %d", m, p, pr->material, l->nmats);
            }
            if (!float_acc(l, pr->pos, 3, false) || !float_acc(l, pr->nrm, 3, true) ||
                (pr->nrm >= 0 && l->accs[pr->nrm].count != l->accs[pr->pos].count)) {
                return tpBroken(why, cap, "mesh %d primitive %d: position accessor %d, normal %d", m, p, pr->pos,
                                pr->nrm);
            }
            if (pr->idx >= 0) {
                const tpXAcc *a = pr->idx < l->naccs ? &l->accs[pr->idx] : NULL;
                const int per = pr->mode == TP_GL_TRIANGLES ? 3 : pr->mode == TP_GL_LINES ? 2 : 1;
                if (!a || a->ctype == TP_GL_FLOAT || a->ncomp != 1 || a->count % per != 0) {
                    return tpBroken(why, cap, "mesh %d primitive %d: index accessor %d not of whole %s", m, p, pr->idx,
                                    per == 3 ? "triangles" : "lines");
                }
            }
        }
    }
    for (int b = 0; b < l->nbodies; b++) {
        const int m = l->body_mesh[b];
        if (m < -1 || m >= l->nmeshes || (m >= 0 && l->meshes[m].body < 0)) {
            return tpBroken(why, cap, "body %d: mesh %d of %d is not a body's", b, m, l->nmeshes);
        }
    }
    return true;
}

static bool valid_keys(const tpXLayout *l, char *why, size_t cap)
{
    for (int i = 0; i < l->nkeys; i++) {
        const tpXKeys *k = &l->keys[i];
        if (k->n <= 0) {
            continue; /* a body that does not move */
        }
        for (int j = 0; k->idx && j < k->n; j++) {
            if (k->idx[j] < 0 || (j == 0 ? k->idx[j] != 0 : k->idx[j] <= k->idx[j - 1])) {
                return tpBroken(why, cap, "keys %d: key %d at sample %d (from 0, strictly increasing)", i, j,
                                (int)k->idx[j]);
            }
        }
        if (!float_acc(l, k->in, 1, false) || l->accs[k->in].count != k->n || !l->accs[k->in].minmax) {
            return tpBroken(why, cap, "keys %d: %d keys, times accessor %d", i, k->n, k->in);
        }
        if ((!float_acc(l, k->out, 3, false) && !float_acc(l, k->out, 4, false)) || l->accs[k->out].count != k->n) {
            return tpBroken(why, cap, "keys %d: %d keys, values accessor %d", i, k->n, k->out);
        }
    }
    return true;
}

bool tpXLayout_Valid(const tpXLayout *l, char *why, size_t cap)
{
    return valid_views(l, why, cap) && valid_accessors(l, why, cap) && valid_meshes(l, why, cap) &&
           valid_keys(l, why, cap);
}

bool tpXMesh_Valid(const tpXMesh *m, char *why, size_t cap)
{
    if (m->nverts < 0 || m->nidx < 0 || (m->nverts > 0 && (!m->pos || !m->nrm)) || (m->nidx > 0 && !m->idx)) {
        return tpBroken(why, cap, "mesh: %d vertices, %d indices (or their arrays missing)", m->nverts, m->nidx);
    }
    if (m->nidx % 3 != 0) {
        return tpBroken(why, cap, "mesh: %d indices, not whole triangles", m->nidx);
    }
    for (int i = 0; i < m->nverts; i++) {
        const float *p = m->pos + 3 * i, *n = m->nrm + 3 * i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
            return tpBroken(why, cap, "mesh: vertex %d is not finite", i);
        }
        const double len = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
        if (!(fabs(len - 1.0) <= 1e-3)) {
            return tpBroken(why, cap, "mesh: vertex %d's normal has length %g", i, len);
        }
    }
    for (int i = 0; i < m->nidx; i++) {
        if (m->idx[i] >= (uint32_t)m->nverts) {
            return tpBroken(why, cap, "mesh: index %d is %u of %d vertices", i, (unsigned)m->idx[i], m->nverts);
        }
    }
    return true;
}
