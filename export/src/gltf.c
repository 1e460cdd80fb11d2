/* glTF 2.0 writer (.glb, .gltf + .bin). Streamed: the binary data is generated twice from the plan
 * record, once to lay out buffer views and accessors (lengths, counts, min/max) and once to write
 * it after the JSON, so memory stays at the plan plus the JSON and small per-body key lists. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "gltf_layout.h"
#include "tp/base.h"
#include "tp/util.h"

enum {
    GL_ARRAY_BUFFER = TP_GL_ARRAY_BUFFER,
    GL_ELEMENT_ARRAY_BUFFER = TP_GL_ELEMENT_ARRAY_BUFFER,
    GL_FLOAT = TP_GL_FLOAT,
    GL_UNSIGNED_SHORT = TP_GL_UNSIGNED_SHORT,
    GL_UNSIGNED_INT = TP_GL_UNSIGNED_INT,
};
enum { MODE_LINES = TP_GL_LINES, MODE_LINE_STRIP = TP_GL_LINE_STRIP, MODE_TRIANGLES = TP_GL_TRIANGLES };
enum { PATH_HEIGHT_MM = 20 }; /* navigation paths are drawn this far above z = 0 */

/* the layout's types (gltf_layout.h) by their short names */
typedef tpXView View;
typedef tpXAcc Acc;
typedef tpXMaterial Material;
typedef tpXPrim Prim;
typedef tpXMeshEntry Mesh;
typedef tpXKeys Keys;

typedef struct G {
    const tpPlanRecord *rec;
    const tpExportDef *def;
    FILE *f; /* NULL while laying out */
    int64_t off;
    unsigned char buf[1 << 16];
    size_t nbuf;
    bool io_error;
    View *views; /* nviews buffer views (owned; capacity cview) */
    int nviews;
    size_t cview;
    Acc *accs; /* naccs accessors (owned; capacity caccs) */
    int naccs;
    size_t caccs;
    Material *mats; /* nmats materials (owned; capacity cmats) */
    int nmats;
    size_t cmats;
    Mesh *meshes; /* nmeshes meshes (owned; capacity cmeshes) */
    int nmeshes;
    size_t cmeshes;
    int *body_mesh;     /* per body: mesh index or -1 */
    int *part_mesh;     /* per body: the mesh of its first mesh part (the others follow), or -1 */
    const double **st0; /* per body: its state at t = 0 in the main world (json_all) */
    double scene_center[3], plane_half;
    int nw;         /* exported worlds (animations) */
    int *worlds;    /* their indices in rec->worlds */
    Keys *keys;     /* nw x nbodies x 2 (translation, rotation) */
    int *times_acc; /* per exported world: the shared time accessor (no reduction), or -1 */
    float *ftimes;  /* scratch: max steps + 1 */
    float *fvals;   /* scratch: (max steps + 1) x 4 */
    double *dvals;  /* scratch: (max steps + 1) x 4 */
    tpXTree tree;   /* the scene file's node tree (tree.src NULL: the flat layout) */
    double *w0;     /* per body: its node's world translation and rotation at t = 0 (7, y up) */
    int first;      /* the first node after the bodies' and the mesh-only ones */
    bool oom;
    int64_t total; /* bytes of the GLB file */
} G;

/* ------------------------------------------------------------------------------------------ */
/* Binary output                                                                              */

static void flush(G *g)
{
    if (g->f && g->nbuf > 0 && fwrite(g->buf, 1, g->nbuf, g->f) != g->nbuf) {
        g->io_error = true;
    }
    g->nbuf = 0;
}

static void put_bytes(G *g, const void *p, size_t n)
{
    g->off += (int64_t)n;
    if (!g->f) {
        return;
    }
    if (g->nbuf + n > sizeof g->buf) {
        flush(g);
        if (n > sizeof g->buf) {
            if (fwrite(p, 1, n, g->f) != n) {
                g->io_error = true;
            }
            return;
        }
    }
    memcpy(g->buf + g->nbuf, p, n);
    g->nbuf += n;
}

static void put_u32(G *g, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put_bytes(g, b, 4);
}

static void put_u16(G *g, uint16_t v)
{
    unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    put_bytes(g, b, 2);
}

static void put_f32(G *g, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(g, u);
}

static void pad4(G *g)
{
    while (g->off % 4) {
        unsigned char z = 0;
        put_bytes(g, &z, 1);
    }
}

static int begin_view(G *g, int target)
{
    pad4(g);
    View *v = tpArray_Grow(g->views, &g->cview, (size_t)g->nviews + 1, sizeof *v);
    if (!v) {
        g->oom = true;
        return -1;
    }
    g->views = v;
    g->views[g->nviews] = (View){g->off, 0, target};
    return g->nviews++;
}

static void end_view(G *g, int view)
{
    if (view >= 0) {
        g->views[view].length = g->off - g->views[view].offset;
    }
}

static int add_acc(G *g, int view, int ctype, int64_t count, int ncomp)
{
    Acc *a = tpArray_Grow(g->accs, &g->caccs, (size_t)g->naccs + 1, sizeof *a);
    if (!a) {
        g->oom = true;
        return -1;
    }
    g->accs = a;
    g->accs[g->naccs] = (Acc){view, ctype, count, ncomp, false, {0}, {0}};
    return g->naccs++;
}

static void acc_minmax(G *g, int acc, const float *v, int64_t count, int ncomp)
{
    if (acc < 0) {
        return;
    }
    Acc *a = &g->accs[acc];
    a->minmax = true;
    for (int k = 0; k < ncomp; ++k) {
        a->min[k] = INFINITY, a->max[k] = -INFINITY;
    }
    for (int64_t i = 0; i < count; ++i) {
        for (int k = 0; k < ncomp; ++k) {
            a->min[k] = fmin(a->min[k], (double)v[i * ncomp + k]);
            a->max[k] = fmax(a->max[k], (double)v[i * ncomp + k]);
        }
    }
}

/* A float array as its own buffer view and accessor. */
static int emit_floats(G *g, const float *v, int64_t count, int ncomp, int target, bool minmax)
{
    int view = begin_view(g, target);
    for (int64_t i = 0; i < count * ncomp; ++i) {
        put_f32(g, v[i]);
    }
    end_view(g, view);
    int acc = add_acc(g, view, GL_FLOAT, count, ncomp);
    if (minmax) {
        acc_minmax(g, acc, v, count, ncomp);
    }
    return acc;
}

static int emit_indices(G *g, const uint32_t *idx, int64_t count, int64_t nverts)
{
    bool small = nverts <= 65535;
    int view = begin_view(g, GL_ELEMENT_ARRAY_BUFFER);
    for (int64_t i = 0; i < count; ++i) {
        if (small) {
            put_u16(g, (uint16_t)idx[i]);
        } else {
            put_u32(g, idx[i]);
        }
    }
    end_view(g, view);
    return add_acc(g, view, small ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT, count, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* Scene content                                                                              */

static int find_material(G *g, const float rgba[4], bool double_sided)
{
    for (int i = 0; i < g->nmats; ++i) {
        if (memcmp(g->mats[i].rgba, rgba, sizeof(float) * 4) == 0 && g->mats[i].double_sided == double_sided) {
            return i;
        }
    }
    Material *m = tpArray_Grow(g->mats, &g->cmats, (size_t)g->nmats + 1, sizeof *m);
    if (!m) {
        g->oom = true;
        return 0;
    }
    g->mats = m;
    memcpy(m[g->nmats].rgba, rgba, sizeof(float) * 4);
    m[g->nmats].double_sided = double_sided;
    m[g->nmats].name = NULL;
    return g->nmats++;
}

static Mesh *new_mesh(G *g, int nprims)
{
    Mesh *m = tpArray_Grow(g->meshes, &g->cmeshes, (size_t)g->nmeshes + 1, sizeof *m);
    if (!m) {
        g->oom = true;
        return NULL;
    }
    g->meshes = m;
    Mesh *x = &m[g->nmeshes];
    memset(x, 0, sizeof *x);
    x->body = x->tree_body = x->overlay = x->part_body = -1;
    x->prims = calloc((size_t)nprims, sizeof *x->prims);
    if (!x->prims) {
        g->oom = true;
        return NULL;
    }
    x->nprims = nprims;
    ++g->nmeshes;
    return x;
}

/* Position (z up) of a body's node at state st: the body's own, or for a mesh body with a
 * recorded mesh the origin of the artist's object, st.pos + R(st.quat) mesh_origin. */
static bool is_plane(const tpPlanBody *b)
{
    return strcmp(b->shape, "plane") == 0;
}

/* Decides the meshes (shared by bodies with the same shape, size and colour) and materials. */
static void plan_meshes(G *g)
{
    const tpPlanRecord *rec = g->rec;
    for (int b = 0; b < rec->nbodies && !g->oom; ++b) {
        const tpPlanBody *pb = &rec->bodies[b];
        int mat = find_material(g, pb->color, is_plane(pb));
        g->body_mesh[b] = -1;
        if (!is_plane(pb) && pb->mesh_nvertices == 0 && pb->nparts == 0) { /* a recorded mesh, parts: its own */
            for (int m = 0; m < g->nmeshes; ++m) {
                const tpPlanBody *o = g->meshes[m].body >= 0 ? &rec->bodies[g->meshes[m].body] : NULL;
                if (o && !is_plane(o) && o->mesh_nvertices == 0 && strcmp(o->shape, pb->shape) == 0 &&
                    memcmp(o->size, pb->size, sizeof pb->size) == 0 && g->meshes[m].prims[0].material == mat &&
                    tpPlanBody_IsDie(rec, o) == tpPlanBody_IsDie(rec, pb)) {
                    g->body_mesh[b] = m;
                    break;
                }
            }
        }
        if (g->body_mesh[b] >= 0) {
            continue;
        }
        if (is_plane(pb) && !(fabs(pb->size[0]) + fabs(pb->size[1]) + fabs(pb->size[2]) > 0)) {
            continue; /* no normal: nothing to draw (the node stays, without a mesh) */
        }
        bool die = tpPlanBody_IsDie(rec, pb);
        Mesh *m = new_mesh(g, die ? 2 : 1);
        if (!m) {
            return;
        }
        m->body = b;
        m->prims[0].material = mat;
        m->prims[0].mode = MODE_TRIANGLES;
        if (die) { /* its pips: a second primitive, white on a dark die, near-black on a light one */
            float lum = 0.3f * pb->color[0] + 0.59f * pb->color[1] + 0.11f * pb->color[2];
            float c = lum > 0.6f ? 0.08f : 0.95f;
            const float pip[4] = {c, c, c, 1};
            int pm = find_material(g, pip, false);
            m->prims[1].material = pm;
            m->prims[1].mode = MODE_TRIANGLES;
        }
        if (is_plane(pb)) {
            snprintf(m->name, sizeof m->name, "%s plane", pb->name);
        } else if (pb->mesh_nvertices > 0 || pb->nparts > 0) {
            snprintf(m->name, sizeof m->name, "%s", pb->name);
        } else {
            snprintf(m->name, sizeof m->name, "%s %.6gx%.6gx%.6g", pb->shape, pb->size[0], pb->size[1], pb->size[2]);
        }
        g->body_mesh[b] = g->nmeshes - 1;
    }
    for (int b = 0; b < rec->nbodies && !g->oom; ++b) { /* a compound's mesh parts: their colliders */
        const tpPlanBody *pb = &rec->bodies[b];
        g->part_mesh[b] = -1;
        for (int k = 0; k < pb->nparts; ++k) {
            if (strcmp(pb->parts[k].shape, "mesh") != 0) {
                continue;
            }
            Mesh *m = new_mesh(g, 1);
            if (!m) {
                return;
            }
            m->part_body = b;
            m->part = k;
            m->prims[0].material = find_material(g, pb->color, false);
            m->prims[0].mode = MODE_TRIANGLES;
            snprintf(m->name, sizeof m->name, "%s part %d", pb->name, k + 1);
            if (g->part_mesh[b] < 0) {
                g->part_mesh[b] = g->nmeshes - 1;
            }
        }
    }
    const tpTreeRecord *tr = g->def->tree;
    if (tr && tr->nnodes > 1 && tr->nbodies > 0 && !g->oom) {
        Mesh *m = new_mesh(g, tr->nbodies);
        if (m) {
            snprintf(m->name, sizeof m->name, "search tree");
            m->tree_body = 0;
            for (int k = 0; k < tr->nbodies; ++k) {
                float rgba[4] = {0.8f, 0.8f, 0.8f, 1};
                for (int b = 0; b < rec->nbodies; ++b) {
                    if (strcmp(rec->bodies[b].name, tr->body_names[k]) == 0) {
                        memcpy(rgba, rec->bodies[b].color, sizeof rgba);
                        rgba[3] = 1;
                    }
                }
                g->meshes[g->nmeshes - 1].prims[k].material = find_material(g, rgba, true);
                g->meshes[g->nmeshes - 1].prims[k].mode = MODE_LINES;
            }
        }
    }
    if (g->def->overlays) {
        float magenta[4] = {1, 0, 1, 1};
        for (int o = 0; o < rec->noverlays && !g->oom; ++o) {
            const tpPlanOverlay *ov = &rec->overlays[o];
            if (ov->kind != TP_OVERLAY_PATH || ov->npoints < 2) {
                continue;
            }
            int mat = find_material(g, magenta, true);
            Mesh *m = new_mesh(g, 1);
            if (!m) {
                return;
            }
            m->overlay = o;
            m->prims[0].material = mat;
            m->prims[0].mode = MODE_LINE_STRIP;
            snprintf(m->name, sizeof m->name, "path %s steps %d-%d", rec->tactics[ov->tactic].name, ov->first,
                     ov->last);
        }
    }
}

/* A triangle primitive's positions, normals and indices from x (freed). */
static void emit_prim(G *g, Prim *p, tpXMesh *x)
{
    TP_VALIDATE(tpXMesh_Valid, x);
    p->pos = emit_floats(g, x->pos, x->nverts, 3, GL_ARRAY_BUFFER, true);
    p->nrm = emit_floats(g, x->nrm, x->nverts, 3, GL_ARRAY_BUFFER, false);
    p->idx = emit_indices(g, x->idx, x->nidx, x->nverts);
    tpXMesh_Free(x);
}

static void emit_mesh_data(G *g)
{
    const tpPlanRecord *rec = g->rec;
    for (int mi = 0; mi < g->nmeshes && !g->oom; ++mi) {
        Mesh *m = &g->meshes[mi];
        if (m->body >= 0) {
            tpXMesh x;
            const tpPlanBody *pb = &rec->bodies[m->body];
            bool ok = is_plane(pb) ? tpXMesh_Plane(pb, g->scene_center, g->plane_half, &x) : tpXMesh_Shape(pb, &x);
            if (!ok) {
                g->oom = true;
                return;
            }
            emit_prim(g, &m->prims[0], &x);
            if (m->nprims == 2) { /* a die's pips */
                if (!tpXMesh_Pips(pb->size[0], &x)) {
                    g->oom = true;
                    return;
                }
                emit_prim(g, &m->prims[1], &x);
            }
        } else if (m->part_body >= 0) { /* the part's mesh in its own frame */
            const tpPlanPart *pp = &rec->bodies[m->part_body].parts[m->part];
            tpPlanBody part;
            memset(&part, 0, sizeof part);
            part.shape = "mesh";
            part.mesh_nvertices = pp->nvertices;
            part.mesh_vertices = pp->vertices;
            part.mesh_ntriangles = pp->ntriangles;
            part.mesh_triangles = pp->triangles;
            tpXMesh x;
            if (!tpXMesh_Shape(&part, &x)) {
                g->oom = true;
                return;
            }
            emit_prim(g, &m->prims[0], &x);
        } else if (m->tree_body >= 0) {
            const tpTreeRecord *tr = g->def->tree;
            for (int k = 0; k < tr->nbodies; ++k) {
                int view = begin_view(g, GL_ARRAY_BUFFER);
                float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
                for (int64_t i = 0; i < tr->nnodes; ++i) {
                    const float *p = tr->pos + ((size_t)i * tr->nbodies + k) * 3;
                    double z[3] = {p[0], p[1], p[2]}, y[3];
                    tpExport_VecToYup(z, y);
                    for (int c = 0; c < 3; ++c) {
                        float f = (float)y[c];
                        put_f32(g, f);
                        lo[c] = fminf(lo[c], f), hi[c] = fmaxf(hi[c], f);
                    }
                }
                end_view(g, view);
                int acc = add_acc(g, view, GL_FLOAT, tr->nnodes, 3);
                if (acc >= 0) {
                    g->accs[acc].minmax = true;
                    for (int c = 0; c < 3; ++c) {
                        g->accs[acc].min[c] = lo[c], g->accs[acc].max[c] = hi[c];
                    }
                }
                m->prims[k].pos = acc;
                m->prims[k].nrm = -1;
                bool small = tr->nnodes <= 65535;
                view = begin_view(g, GL_ELEMENT_ARRAY_BUFFER);
                for (int64_t i = 1; i < tr->nnodes; ++i) { /* a segment from each node's parent to it */
                    if (small) {
                        put_u16(g, (uint16_t)tr->parent[i]), put_u16(g, (uint16_t)i);
                    } else {
                        put_u32(g, (uint32_t)tr->parent[i]), put_u32(g, (uint32_t)i);
                    }
                }
                end_view(g, view);
                m->prims[k].idx =
                    add_acc(g, view, small ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT, 2 * (tr->nnodes - 1), 1);
            }
        } else if (m->overlay >= 0) {
            const tpPlanOverlay *ov = &rec->overlays[m->overlay];
            float *v = malloc(sizeof(float) * 3 * (size_t)ov->npoints);
            if (!v) {
                g->oom = true;
                return;
            }
            for (int i = 0; i < ov->npoints; ++i) {
                double z[3] = {ov->points[2 * i], ov->points[2 * i + 1], PATH_HEIGHT_MM * 1e-3}, y[3];
                tpExport_VecToYup(z, y);
                for (int c = 0; c < 3; ++c) {
                    v[3 * i + c] = (float)y[c];
                }
            }
            m->prims[0].pos = emit_floats(g, v, ov->npoints, 3, GL_ARRAY_BUFFER, true);
            m->prims[0].nrm = m->prims[0].idx = -1;
            free(v);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Animation samples                                                                          */

static Keys *keys_of(G *g, int wi, int b, int ch)
{
    return &g->keys[((size_t)wi * g->rec->nbodies + b) * 2 + ch];
}

/* Fills g->ftimes, g->fvals (as written) and g->dvals (exact, y-up) for one body and channel. */
static void samples(G *g, int w, int b, int ch)
{
    const tpPlanWorld *pw = &g->rec->worlds[w];
    const double *tr = pw->traj[b];
    int n = pw->nsteps + 1;
    for (int i = 0; i < n; ++i) {
        g->ftimes[i] = (float)(i * g->rec->dt);
        const double *s = tr + (size_t)i * TP_STATE_DOUBLES;
        if (ch == 0) {
            double p[3];
            tpX_NodeOrigin(&g->rec->bodies[b], s, p);
            tpExport_VecToYup(p, g->dvals + 3 * i);
            tpXTree_Local(&g->tree, b, g->dvals + 3 * i, NULL);
        } else {
            double p[3] = {0, 0, 0};
            tpExport_QuatToYup(s + 3, g->dvals + 4 * i);
            tpXTree_Local(&g->tree, b, p, g->dvals + 4 * i);
        }
    }
    int nc = ch == 0 ? 3 : 4;
    if (ch == 1) {
        tpExport_QuatContinuity(g->dvals, n);
    }
    for (int i = 0; i < n * nc; ++i) {
        g->fvals[i] = (float)g->dvals[i];
    }
}

static bool reduce_all(G *g, tpExportStats *st)
{
    const tpPlanRecord *rec = g->rec;
    const tpExportDef *def = g->def;
    uint8_t *keep = NULL;
    int maxn = 0;
    for (int wi = 0; wi < g->nw; ++wi) {
        maxn = rec->worlds[g->worlds[wi]].nsteps + 1 > maxn ? rec->worlds[g->worlds[wi]].nsteps + 1 : maxn;
    }
    keep = malloc((size_t)maxn);
    if (!keep) {
        return false;
    }
    for (int wi = 0; wi < g->nw; ++wi) {
        int w = g->worlds[wi], n = rec->worlds[w].nsteps + 1;
        for (int b = 0; b < rec->nbodies; ++b) {
            if (!rec->bodies[b].moving) {
                continue;
            }
            for (int ch = 0; ch < 2; ++ch) {
                Keys *k = keys_of(g, wi, b, ch);
                double tol = ch == 0 ? def->tolerance
                             : def->angle_tolerance >= 0
                                 ? def->angle_tolerance
                                 : def->tolerance / fmax(tpX_BoundingRadius(&rec->bodies[b]), 1e-6);
                samples(g, w, b, ch);
                double err = 0;
                tpKeyChannel kc = ch == 0 ? TP_KEYS_TRANSLATION : TP_KEYS_ROTATION;
                st->keys_full += n;
                if (tol > 0) {
                    k->n = tpExport_ReduceKeys(kc, g->ftimes, g->fvals, g->dvals, n, tol, keep, &err);
                    k->idx = malloc(sizeof(int32_t) * (size_t)k->n);
                    if (!k->idx) {
                        free(keep);
                        return false;
                    }
                    int j = 0;
                    for (int i = 0; i < n; ++i) {
                        if (keep[i]) {
                            k->idx[j++] = i;
                        }
                    }
                } else {
                    k->n = n;
                    for (int i = 0; i < n; ++i) {
                        err = fmax(err, tpExport_KeyError(kc, g->ftimes, g->fvals, g->dvals, i, i, i));
                    }
                }
                st->keys_kept += k->n;
                if (ch == 0) {
                    st->max_pos_err = fmax(st->max_pos_err, err);
                } else {
                    st->max_ang_err = fmax(st->max_ang_err, err);
                }
            }
        }
    }
    free(keep);
    return true;
}

static void emit_animation_data(G *g)
{
    const tpPlanRecord *rec = g->rec;
    for (int wi = 0; wi < g->nw && !g->oom; ++wi) {
        int w = g->worlds[wi], n = rec->worlds[w].nsteps + 1;
        g->times_acc[wi] = -1;
        for (int b = 0; b < rec->nbodies && !g->oom; ++b) {
            if (!rec->bodies[b].moving) {
                continue;
            }
            for (int ch = 0; ch < 2; ++ch) {
                Keys *k = keys_of(g, wi, b, ch);
                int nc = ch == 0 ? 3 : 4;
                samples(g, w, b, ch);
                if (k->idx) {
                    int view = begin_view(g, 0);
                    for (int j = 0; j < k->n; ++j) {
                        put_f32(g, g->ftimes[k->idx[j]]);
                    }
                    end_view(g, view);
                    k->in = add_acc(g, view, GL_FLOAT, k->n, 1);
                    if (k->in >= 0) {
                        g->accs[k->in].minmax = true;
                        g->accs[k->in].min[0] = g->ftimes[k->idx[0]];
                        g->accs[k->in].max[0] = g->ftimes[k->idx[k->n - 1]];
                    }
                    view = begin_view(g, 0);
                    for (int j = 0; j < k->n; ++j) {
                        for (int c = 0; c < nc; ++c) {
                            put_f32(g, g->fvals[(size_t)k->idx[j] * nc + c]);
                        }
                    }
                    end_view(g, view);
                    k->out = add_acc(g, view, GL_FLOAT, k->n, nc);
                } else {
                    if (g->times_acc[wi] < 0) {
                        g->times_acc[wi] = emit_floats(g, g->ftimes, n, 1, 0, true);
                    }
                    k->in = g->times_acc[wi];
                    k->out = emit_floats(g, g->fvals, n, nc, 0, false);
                }
            }
        }
    }
}

static void emit_all(G *g)
{
    g->off = 0;
    g->nviews = g->naccs = 0;
    emit_mesh_data(g);
    emit_animation_data(g);
    pad4(g);
    flush(g);
}

/* ------------------------------------------------------------------------------------------ */
/* JSON                                                                                       */

static double srgb_to_linear(float c)
{
    double x = c;
    return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
}

static const char *type_name(int ncomp)
{
    return ncomp == 1 ? "SCALAR" : ncomp == 3 ? "VEC3" : "VEC4";
}

/* A compound body's parts in its node's extras ("parts": shape, size, pos and quat in the frame of
 * the node, the artist's: z up as in the plan), so that the file carries what collides. */
static void json_parts(tpXStr *s, const tpPlanBody *pb)
{
    if (pb->nparts <= 0) {
        return;
    }
    tpXStr_Put(s, ",\"parts\":[");
    for (int k = 0; k < pb->nparts; ++k) {
        const tpPlanPart *p = &pb->parts[k];
        tpXStr_Put(s, k ? ",{\"shape\":" : "{\"shape\":");
        tpXStr_String(s, p->shape);
        tpXStr_Put(s, ",\"size\":[");
        for (int c = 0; c < 3; ++c) {
            tpXStr_Put(s, c ? "," : ""), tpXStr_Num(s, p->size[c]);
        }
        tpXStr_Put(s, "],\"pos\":[");
        for (int c = 0; c < 3; ++c) {
            tpXStr_Put(s, c ? "," : ""), tpXStr_Num(s, p->pos[c] - pb->mesh_origin[c]);
        }
        tpXStr_Put(s, "],\"quat\":[");
        for (int c = 0; c < 4; ++c) {
            tpXStr_Put(s, c ? "," : ""), tpXStr_Num(s, p->quat[c]);
        }
        tpXStr_Put(s, "]}");
    }
    tpXStr_Put(s, "]");
}

static void json_nodes(G *g, const tpXOmi *omi, tpXStr *s, int *nnodes)
{
    const tpPlanRecord *rec = g->rec;
    int n = 0;
    tpXStr_Put(s, "\"nodes\":[");
    for (int b = 0; b < rec->nbodies; ++b) {
        const tpPlanBody *pb = &rec->bodies[b];
        tpXStr_Put(s, "%s\n{\"name\":", n++ ? "," : "");
        tpXStr_String(s, pb->name);
        if (g->body_mesh[b] >= 0) {
            tpXStr_Put(s, ",\"mesh\":%d", g->body_mesh[b]);
        }
        double t[3], q[4];
        bool placed = is_plane(pb) && tpX_PlaneNode(pb, g->scene_center, t, q); /* its quad's frame */
        if (!is_plane(pb)) {
            const double *st = pb->moving ? rec->worlds[g->worlds[0]].traj[b] : pb->pose;
            double p[3];
            tpX_NodeOrigin(pb, st, p);
            tpExport_VecToYup(p, t);
            tpExport_QuatToYup(st + 3, q);
            placed = true;
        }
        if (placed) {
            memcpy(g->w0 + 7 * b, t, 3 * sizeof *t);
            memcpy(g->w0 + 7 * b + 3, q, 4 * sizeof *q);
            tpXTree_Local(&g->tree, b, t, q); /* relative to its parent in the scene file */
            tpXStr_Put(s, ",\"translation\":[");
            for (int k = 0; k < 3; ++k) {
                tpXStr_Put(s, k ? "," : ""), tpXStr_Num(s, t[k]);
            }
            tpXStr_Put(s, "],\"rotation\":[");
            for (int k = 0; k < 4; ++k) {
                tpXStr_Put(s, k ? "," : ""), tpXStr_Num(s, q[k]);
            }
            tpXStr_Put(s, "]");
        }
        tpXStr_Put(s, ",\"extras\":{\"class\":");
        tpXStr_String(s, pb->cls);
        if (strcmp(pb->cls, "active") == 0) { /* what tp.scene reads back (OMI has no "active") */
            tpXStr_Put(s, ",\"tplan_class\":\"active\"");
        }
        tpXStr_Put(s, ",\"shape\":");
        tpXStr_String(s, pb->shape);
        tpXStr_Put(s, ",\"size\":[");
        for (int k = 0; k < 4; ++k) {
            tpXStr_Put(s, k ? "," : ""), tpXStr_Num(s, pb->size[k]);
        }
        tpXStr_Put(s, "]");
        json_parts(s, pb);
        tpXStr_Put(s, "}");
        tpXOmi_Body(omi, b, s);
        tpXStr_Put(s, "}");
    }
    for (int m = 0; m < g->nmeshes; ++m) {
        if (g->meshes[m].body >= 0 || g->meshes[m].part_body >= 0) {
            continue;
        }
        tpXStr_Put(s, ",\n{\"name\":");
        tpXStr_String(s, g->meshes[m].name);
        tpXStr_Put(s, ",\"mesh\":%d}", m);
        ++n;
    }
    tpXOmi_Nodes(omi, s);
    int *shape = malloc(sizeof(int) * (size_t)(rec->nbodies > 0 ? rec->nbodies : 1));
    if (shape == NULL) {
        s->oom = true;
        return;
    }
    for (int b = 0; b < rec->nbodies; ++b) {
        shape[b] = tpXOmi_ShapeIndex(omi, b, 0);
    }
    tpXTree_Nodes(&g->tree, g->w0, shape, s);
    free(shape);
    tpXStr_Put(s, "]");
    *nnodes = n;
}

static void json_meshes(G *g, tpXStr *s)
{
    tpXStr_Put(s, ",\n\"meshes\":[");
    for (int m = 0; m < g->nmeshes; ++m) {
        const Mesh *x = &g->meshes[m];
        tpXStr_Put(s, "%s\n{\"name\":", m ? "," : "");
        tpXStr_String(s, x->name);
        tpXStr_Put(s, ",\"primitives\":[");
        for (int p = 0; p < x->nprims; ++p) {
            const Prim *pr = &x->prims[p];
            tpXStr_Put(s, "%s{\"attributes\":{\"POSITION\":%d", p ? "," : "", pr->pos);
            if (pr->nrm >= 0) {
                tpXStr_Put(s, ",\"NORMAL\":%d", pr->nrm);
            }
            tpXStr_Put(s, "}");
            if (pr->idx >= 0) {
                tpXStr_Put(s, ",\"indices\":%d", pr->idx);
            }
            tpXStr_Put(s, ",\"material\":%d,\"mode\":%d}", pr->material, pr->mode);
        }
        tpXStr_Put(s, "]}");
    }
    tpXStr_Put(s, "]");
    tpXStr_Put(s, ",\n\"materials\":[");
    for (int i = 0; i < g->nmats; ++i) {
        const Material *m = &g->mats[i];
        tpXStr_Put(s, "%s\n{\"name\":\"colour %.6g %.6g %.6g %.6g\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[",
                   i ? "," : "", m->rgba[0], m->rgba[1], m->rgba[2], m->rgba[3]);
        for (int k = 0; k < 3; ++k) {
            tpXStr_Put(s, k ? "," : ""), tpXStr_Num(s, srgb_to_linear(m->rgba[k]));
        }
        tpXStr_Put(s, ","), tpXStr_Num(s, m->rgba[3]);
        tpXStr_Put(s, "],\"metallicFactor\":0,\"roughnessFactor\":0.5}");
        if (m->rgba[3] < 1) {
            tpXStr_Put(s, ",\"alphaMode\":\"BLEND\"");
        }
        if (m->double_sided) {
            tpXStr_Put(s, ",\"doubleSided\":true");
        }
        tpXStr_Put(s, "}");
    }
    tpXStr_Put(s, "]");
}

static void json_animations(G *g, tpXStr *s)
{
    const tpPlanRecord *rec = g->rec;
    bool any = false;
    for (int wi = 0; wi < g->nw; ++wi) {
        int nch = 0;
        for (int b = 0; b < rec->nbodies; ++b) {
            nch += rec->bodies[b].moving ? 2 : 0;
        }
        if (nch == 0) {
            continue;
        }
        tpXStr_Put(s, "%s\n{\"name\":", any ? "," : ",\n\"animations\":[");
        any = true;
        char name[64];
        if (g->worlds[wi] == rec->selected) {
            snprintf(name, sizeof name, "plan");
        } else {
            snprintf(name, sizeof name, "solution %d", g->worlds[wi] + 1);
        }
        tpXStr_String(s, name);
        tpXStr_Put(s, ",\"extras\":{\"cost\":");
        tpXStr_Num(s, rec->worlds[g->worlds[wi]].cost);
        tpXStr_Put(s, ",\"steps\":%d},\"channels\":[", rec->worlds[g->worlds[wi]].nsteps);
        int k = 0;
        for (int b = 0; b < rec->nbodies; ++b) {
            if (!rec->bodies[b].moving) {
                continue;
            }
            for (int ch = 0; ch < 2; ++ch) {
                tpXStr_Put(s, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"%s\"}}", k ? "," : "", k, b,
                           ch == 0 ? "translation" : "rotation");
                ++k;
            }
        }
        tpXStr_Put(s, "],\"samplers\":[");
        k = 0;
        for (int b = 0; b < rec->nbodies; ++b) {
            if (!rec->bodies[b].moving) {
                continue;
            }
            for (int ch = 0; ch < 2; ++ch) {
                const Keys *ky = keys_of(g, wi, b, ch);
                tpXStr_Put(s, "%s{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"}", k++ ? "," : "", ky->in,
                           ky->out);
            }
        }
        tpXStr_Put(s, "]}");
    }
    if (any) {
        tpXStr_Put(s, "]");
    }
}

static void json_buffers(G *g, tpXStr *s, const char *bin_uri)
{
    tpXStr_Put(s, ",\n\"accessors\":[");
    for (int i = 0; i < g->naccs; ++i) {
        const Acc *a = &g->accs[i];
        tpXStr_Put(s, "%s\n{\"bufferView\":%d,\"componentType\":%d,\"count\":%lld,\"type\":\"%s\"", i ? "," : "",
                   a->view, a->ctype, (long long)a->count, type_name(a->ncomp));
        if (a->minmax) {
            tpXStr_Put(s, ",\"min\":[");
            for (int k = 0; k < a->ncomp; ++k) {
                tpXStr_Put(s, k ? "," : ""), tpXStr_Num(s, a->min[k]);
            }
            tpXStr_Put(s, "],\"max\":[");
            for (int k = 0; k < a->ncomp; ++k) {
                tpXStr_Put(s, k ? "," : ""), tpXStr_Num(s, a->max[k]);
            }
            tpXStr_Put(s, "]");
        }
        tpXStr_Put(s, "}");
    }
    tpXStr_Put(s, "],\n\"bufferViews\":[");
    for (int i = 0; i < g->nviews; ++i) {
        const View *v = &g->views[i];
        tpXStr_Put(s, "%s\n{\"buffer\":0,\"byteOffset\":%lld,\"byteLength\":%lld", i ? "," : "", (long long)v->offset,
                   (long long)v->length);
        if (v->target) {
            tpXStr_Put(s, ",\"target\":%d", v->target);
        }
        tpXStr_Put(s, "}");
    }
    tpXStr_Put(s, "],\n\"buffers\":[{\"byteLength\":%lld", (long long)g->off);
    if (bin_uri) {
        tpXStr_Put(s, ",\"uri\":");
        tpXStr_String(s, bin_uri);
    }
    tpXStr_Put(s, "}]");
}

/* The plan's goal regions (its "goal", docs/plan-format.md) in asset.extras, as the plan has them:
   in tplan's frame (z up, m), not glTF's, since they are data for tools rather than nodes. */
static void json_goal(const tpPlanRecord *rec, tpXStr *s)
{
    if (rec->ngoal_regions <= 0) {
        return;
    }
    tpXStr_Put(s, ",\"goal\":{\"frame\":\"tplan (+Z up, m)\",\"regions\":[");
    for (int i = 0; i < rec->ngoal_regions; ++i) {
        const tpPlanGoalRegion *r = &rec->goal_regions[i];
        tpXStr_Put(s, "%s{\"kind\":", i ? "," : "");
        tpXStr_String(s, tpGoalRegionKind_Name(r->kind));
        tpXStr_Put(s, ",\"body\":");
        tpXStr_String(s, rec->bodies[r->body].name);
        if (r->kind == TP_GOAL_BOX) {
            for (int side = 0; side < 2; ++side) {
                const double *v = side ? r->hi : r->lo;
                tpXStr_Put(s, side ? "],\"max\":[" : ",\"min\":[");
                for (int k = 0; k < 3; ++k) {
                    tpXStr_Put(s, k ? "," : "");
                    if (isfinite(v[k])) {
                        tpXStr_Num(s, v[k]);
                    } else {
                        tpXStr_Put(s, "null");
                    }
                }
            }
            tpXStr_Put(s, "]}");
            continue;
        }
        tpXStr_Put(s, ",\"center\":[");
        for (int k = 0; k < (r->kind == TP_GOAL_CIRCLE ? 2 : 3); ++k) {
            tpXStr_Put(s, k ? "," : "");
            tpXStr_Num(s, r->center[k]);
        }
        tpXStr_Put(s, "],\"radius\":");
        tpXStr_Num(s, r->radius);
        tpXStr_Put(s, "}");
    }
    tpXStr_Put(s, "]}");
}

static void json_all(G *g, tpXStr *s, const char *bin_uri, tpExportStats *st)
{
    const tpPlanRecord *rec = g->rec;
    tpXStr_Put(s, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"tplan export\",\"extras\":{\"domain\":");
    tpXStr_String(s, rec->domain_name);
    tpXStr_Put(s, ",\"seed\":%u,\"status\":", rec->seed);
    tpXStr_String(s, rec->status);
    tpXStr_Put(s, ",\"dt\":");
    tpXStr_Num(s, rec->dt);
    tpXStr_Put(s, ",\"up\":\"glTF +Y (tplan +Z)\"");
    json_goal(rec, s);
    tpXStr_Put(s, "}},\n\"scene\":0,\"scenes\":[{\"name\":");
    tpXStr_String(s, rec->domain_name);
    int nnodes = 0;
    for (int b = 0; b < rec->nbodies; ++b) {
        g->st0[b] = rec->bodies[b].moving ? rec->worlds[g->worlds[0]].traj[b] : rec->bodies[b].pose;
    }
    const tpXOmi omi = {.rec = rec,
                        .ph = g->def->physics,
                        .st0 = g->st0,
                        .body_mesh = g->body_mesh,
                        .part_mesh = g->part_mesh,
                        .first = g->first,
                        .tree = &g->tree,
                        .w0 = g->w0};
    tpXStr nodes = {0};
    json_nodes(g, &omi, &nodes, &nnodes);
    tpXStr_Put(s, ",\"nodes\":[");
    for (int i = 0, k = 0; i < nnodes; ++i) { /* a body under a node of the scene file is no root */
        if (i >= rec->nbodies || tpXTree_IsRoot(&g->tree, i)) {
            tpXStr_Put(s, "%s%d", k++ ? "," : "", i);
        }
    }
    tpXOmi_Roots(&omi, s);
    tpXTree_Roots(&g->tree, s);
    tpXStr_Put(s, "]}],\n");
    if (nodes.oom) {
        s->oom = true;
    } else {
        tpXStr_Put(s, "%s", nodes.s);
    }
    free(nodes.s);
    json_meshes(g, s);
    json_animations(g, s);
    json_buffers(g, s, bin_uri);
    tpXOmi_Document(&omi, s);
    tpXStr_Put(s, "}\n");
    st->nodes = nnodes + tpXOmi_ExtraNodes(&omi) + g->tree.extra;
    st->meshes = g->nmeshes;
    st->materials = g->nmats;
}

/* ------------------------------------------------------------------------------------------ */

static void g_free(G *g)
{
    free(g->views);
    free(g->accs);
    free(g->mats);
    for (int m = 0; m < g->nmeshes; ++m) {
        free(g->meshes[m].prims);
    }
    free(g->meshes);
    free(g->body_mesh);
    free(g->part_mesh);
    free(g->st0);
    if (g->keys) {
        for (size_t i = 0; i < (size_t)g->nw * g->rec->nbodies * 2; ++i) {
            free(g->keys[i].idx);
        }
    }
    free(g->keys);
    free(g->worlds);
    free(g->times_acc);
    free(g->ftimes);
    free(g->fvals);
    free(g->dvals);
    free(g->w0);
    tpXTree_Free(&g->tree);
}

#if TP_ASSERT_ON
/* The layout's view of g (gltf_layout.h), for its invariants. */
static tpXLayout layout_of(const G *g)
{
    return (tpXLayout){g->views,        g->nviews,    g->accs,    g->naccs, g->mats,
                       g->nmats,        g->meshes,    g->nmeshes, g->keys,  g->nw * g->rec->nbodies * 2,
                       g->rec->nbodies, g->body_mesh, g->off};
}
#endif

static bool write_glb(G *g, const tpXStr *json, tpXTemp *t, char *err, size_t errlen)
{
    size_t jlen = (json->n + 3) & ~(size_t)3;
    int64_t bin = g->off, total = 12 + 8 + (int64_t)jlen + (bin > 0 ? 8 + bin : 0);
    if (total > (int64_t)UINT32_MAX) {
        tpErrorf(err, errlen, "the GLB would be %lld bytes, over the format's 4 GiB (use --tolerance)",
                 (long long)total);
        return false;
    }
    g->f = t->f;
    g->off = 0;
    g->total = total;
    put_u32(g, 0x46546C67u); /* "glTF" */
    put_u32(g, 2);
    put_u32(g, (uint32_t)total);
    put_u32(g, (uint32_t)jlen);
    put_u32(g, 0x4E4F534Au); /* "JSON" */
    put_bytes(g, json->s, json->n);
    for (size_t i = json->n; i < jlen; ++i) {
        put_bytes(g, " ", 1);
    }
    if (bin > 0) {
        put_u32(g, (uint32_t)bin);
        put_u32(g, 0x004E4942u); /* "BIN\0" */
        flush(g);
        emit_all(g); /* offsets restart at 0 inside the chunk */
    }
    flush(g);
    return true;
}

bool tpX_WriteGltf(const tpPlanRecord *rec, const char *path, const tpExportDef *def, tpExportStats *st, char *err,
                   size_t errlen)
{
    G *g = calloc(1, sizeof *g);
    if (!g) {
        tpErrorf(err, errlen, "out of memory");
        return false;
    }
    g->rec = rec;
    g->def = def;
    bool ok = false;
    tpXStr json = {0};
    tpXTemp tj = {0}, tb = {0};
    /* worlds: the chosen one first, then (--alternatives) the others in file order */
    g->worlds = malloc(sizeof(int) * (size_t)rec->nworlds);
    g->body_mesh = malloc(sizeof(int) * (size_t)(rec->nbodies > 0 ? rec->nbodies : 1));
    g->part_mesh = malloc(sizeof(int) * (size_t)(rec->nbodies > 0 ? rec->nbodies : 1));
    g->st0 = malloc(sizeof(double *) * (size_t)(rec->nbodies > 0 ? rec->nbodies : 1));
    if (!g->worlds || !g->body_mesh || !g->part_mesh || !g->st0) {
        goto oom;
    }
    g->worlds[g->nw++] = def->world;
    for (int w = 0; def->alternatives && w < rec->nworlds; ++w) {
        if (w != def->world) {
            g->worlds[g->nw++] = w;
        }
    }
    int maxn = 1;
    for (int wi = 0; wi < g->nw; ++wi) {
        maxn = rec->worlds[g->worlds[wi]].nsteps + 1 > maxn ? rec->worlds[g->worlds[wi]].nsteps + 1 : maxn;
    }
    g->keys = calloc((size_t)g->nw * (size_t)(rec->nbodies > 0 ? rec->nbodies : 1) * 2, sizeof *g->keys);
    g->times_acc = malloc(sizeof(int) * (size_t)g->nw);
    g->ftimes = malloc(sizeof(float) * (size_t)maxn);
    g->fvals = malloc(sizeof(float) * 4 * (size_t)maxn);
    g->dvals = malloc(sizeof(double) * 4 * (size_t)maxn);
    if (!g->keys || !g->times_acc || !g->ftimes || !g->fvals || !g->dvals) {
        goto oom;
    }
    double lo[3], hi[3], ext = 0;
    tpX_SceneBounds(rec, lo, hi);
    for (int k = 0; k < 3; ++k) {
        g->scene_center[k] = 0.5 * (lo[k] + hi[k]);
        ext = fmax(ext, hi[k] - lo[k]);
    }
    g->plane_half = ext * 0.75 + 0.5; /* as the viewer draws planes */
    plan_meshes(g);
    g->first = rec->nbodies;
    for (int m = 0; m < g->nmeshes; ++m) {
        g->first += g->meshes[m].body < 0 && g->meshes[m].part_body < 0;
    }
    {
        const tpXOmi count = {.rec = rec, .ph = def->physics, .first = g->first};
        g->w0 = calloc((size_t)(rec->nbodies > 0 ? rec->nbodies : 1) * 7, sizeof *g->w0);
        if (!g->w0 || !tpXTree_Init(&g->tree, rec, def->physics ? def->physics->source : NULL, g->first,
                                    g->first + tpXOmi_ExtraNodes(&count))) {
            goto oom;
        }
    }
    if (g->oom || !reduce_all(g, st)) {
        goto oom;
    }
    emit_all(g); /* layout pass: nothing is written */
    if (g->oom) {
        goto oom;
    }
#if TP_ASSERT_ON
    const tpXLayout lay = layout_of(g);
    TP_VALIDATE(tpXLayout_Valid, &lay);
#endif
    st->animations = 0;
    for (int b = 0; b < rec->nbodies; ++b) {
        st->animations = rec->bodies[b].moving ? g->nw : st->animations;
    }
    bool glb = def->format == TP_EXPORT_GLB;
    char bin_path[4096], bin_uri[4096];
    if (!glb) {
        /* x.gltf -> x.bin beside it, referenced by its file name */
        size_t len = strlen(path);
        const char *dot = len > 5 && strcmp(path + len - 5, ".gltf") == 0 ? path + len - 5 : path + len;
        snprintf(bin_path, sizeof bin_path, "%.*s.bin", (int)(dot - path), path);
        const char *slash = strrchr(bin_path, '/');
        /* a relative URI: the file name, percent-encoded outside the unreserved characters */
        size_t u = 0;
        for (const unsigned char *c = (const unsigned char *)(slash ? slash + 1 : bin_path);
             *c && u + 4 < sizeof bin_uri; ++c) {
            bool plain = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
                         strchr("-._~", *c) != NULL;
            u += (size_t)snprintf(bin_uri + u, sizeof bin_uri - u, plain ? "%c" : "%%%02X", *c);
        }
    }
    json_all(g, &json, glb ? NULL : bin_uri, st);
    if (json.oom) {
        goto oom;
    }
    if (!tpXTemp_Open(&tj, path, err, errlen)) {
        goto out;
    }
    if (glb) {
        if (!write_glb(g, &json, &tj, err, errlen)) {
            goto out;
        }
    } else {
        if (!tpXTemp_Open(&tb, bin_path, err, errlen)) {
            goto out;
        }
        g->f = tb.f;
        emit_all(g);
        if (fwrite(json.s, 1, json.n, tj.f) != json.n) {
            g->io_error = true;
        }
    }
    if (g->io_error) {
        tpErrorf(err, errlen, "cannot write %s: write error", path);
        goto out;
    }
    int64_t bytes = glb ? g->total : g->off + (int64_t)json.n;
    if (!glb && !tpXTemp_Commit(&tb, err, errlen)) {
        goto out;
    }
    if (!tpXTemp_Commit(&tj, err, errlen)) {
        if (!glb) {
            remove(bin_path);
        }
        goto out;
    }
    st->bytes = bytes;
    ok = true;
    goto out;
oom:
    tpErrorf(err, errlen, "out of memory");
out:
    tpXTemp_Abort(&tb);
    tpXTemp_Abort(&tj);
    free(json.s);
    g_free(g);
    free(g);
    return ok;
}
