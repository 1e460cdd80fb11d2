/* tplan viewer: the 3D scene (bodies, ground, trails, search tree, approximate contacts) drawn
 * with legacy OpenGL and vertex buffer objects. Body meshes are unit shapes scaled per body; the
 * tree is uploaded once as line segments grouped by body, so a frame is a handful of draw calls
 * however large the tree is. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tp/base.h"
#include "tp/mathx.h"
#include "tp/util.h"

/* Segments uploaded at most (all bodies together); larger trees show their first bodies only. */
#define TREE_MAX_SEGMENTS (12 * 1000 * 1000)

void tpVScene_KeyColour(const tpVScene *sc, int b, float rgb[3])
{
    /* the body's own colour, as it is drawn: the legend, its trail and its tree branches all match
       what the viewer sees in the scene (bodies of one colour share it) */
    memcpy(rgb, sc->rec->bodies[b].color, 3 * sizeof *rgb);
}

/* The colour of body b's lines (trail, tree): its own colour, lifted toward white when it is too
   dark to see on the dark background (the black pool ball's trail is grey, not invisible). */
static void line_colour(const tpVScene *sc, int b, float rgb[3])
{
    tpVScene_KeyColour(sc, b, rgb);
    float m = fmaxf(rgb[0], fmaxf(rgb[1], rgb[2]));
    if (m < 0.4f) {
        float k = (0.4f - m) / (1.0f - m); /* mix with white so that the brightest channel is 0.4 */
        for (int i = 0; i < 3; ++i) {
            rgb[i] += k * (1.0f - rgb[i]);
        }
    }
}

/* ---- meshes: interleaved normal (3 floats) + vertex (3 floats), GL_TRIANGLES ---- */

typedef struct MeshBuf {
    float *v;   /* n vertices of 6 floats (owned; room for cap) */
    int n;      /* vertices */
    size_t cap; /* vertices v has room for */
} MeshBuf;

static void mesh_put(MeshBuf *m, const float nrm[3], const float p[3])
{
    float *v = tpArray_Grow(m->v, &m->cap, (size_t)m->n + 1, 6 * sizeof *v);
    if (!v) {
        abort(); /* a few kilobytes; out of memory here is unrecoverable */
    }
    m->v = v;
    memcpy(m->v + (size_t)m->n * 6, nrm, 3 * sizeof *nrm);
    memcpy(m->v + (size_t)m->n * 6 + 3, p, 3 * sizeof *p);
    m->n++;
}

static void mesh_box(MeshBuf *m)
{
    for (int axis = 0; axis < 3; ++axis) {
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            int a = (axis + 1) % 3, b = (axis + 2) % 3;
            float nrm[3] = {0, 0, 0};
            nrm[axis] = (float)sgn;
            float c[4][3];
            const float uv[4][2] = {{-0.5f, -0.5f}, {0.5f, -0.5f}, {0.5f, 0.5f}, {-0.5f, 0.5f}};
            for (int k = 0; k < 4; ++k) {
                c[k][axis] = 0.5f * sgn;
                c[k][a] = uv[k][0];
                c[k][b] = uv[k][1] * sgn; /* keep counter-clockwise winding seen from outside */
            }
            int tri[6] = {0, 1, 2, 0, 2, 3};
            for (int k = 0; k < 6; ++k) {
                mesh_put(m, nrm, c[tri[k]]);
            }
        }
    }
}

static void sphere_point(int i, int j, int nlat, int nlon, float out[3])
{
    double th = TP_PI * i / nlat, ph = 2 * TP_PI * j / nlon;
    out[0] = (float)(sin(th) * cos(ph));
    out[1] = (float)(sin(th) * sin(ph));
    out[2] = (float)cos(th);
}

static void mesh_sphere_n(MeshBuf *m, int nlat, int nlon)
{
    for (int i = 0; i < nlat; ++i) {
        for (int j = 0; j < nlon; ++j) {
            float p[4][3];
            sphere_point(i, j, nlat, nlon, p[0]);
            sphere_point(i + 1, j, nlat, nlon, p[1]);
            sphere_point(i + 1, j + 1, nlat, nlon, p[2]);
            sphere_point(i, j + 1, nlat, nlon, p[3]);
            int tri[6] = {0, 1, 2, 0, 2, 3};
            for (int k = 0; k < 6; ++k) {
                mesh_put(m, p[tri[k]], p[tri[k]]); /* unit sphere: normal = position */
            }
        }
    }
}

static void mesh_sphere(MeshBuf *m)
{
    mesh_sphere_n(m, 14, 24);
}
/* for spheres a few pixels across (many pegs): a ninth of the vertices */
static void mesh_sphere_coarse(MeshBuf *m)
{
    mesh_sphere_n(m, 6, 8);
}

/* Radius 1, length 1 along z, centred, with caps. */
static void mesh_cylinder(MeshBuf *m)
{
    const int n = 24;
    for (int j = 0; j < n; ++j) {
        double a0 = 2 * TP_PI * j / n, a1 = 2 * TP_PI * (j + 1) / n;
        float c0 = (float)cos(a0), s0 = (float)sin(a0), c1 = (float)cos(a1), s1 = (float)sin(a1);
        float n0[3] = {c0, s0, 0}, n1[3] = {c1, s1, 0};
        float p00[3] = {c0, s0, -0.5f}, p10[3] = {c1, s1, -0.5f}, p11[3] = {c1, s1, 0.5f}, p01[3] = {c0, s0, 0.5f};
        mesh_put(m, n0, p00), mesh_put(m, n1, p10), mesh_put(m, n1, p11);
        mesh_put(m, n0, p00), mesh_put(m, n1, p11), mesh_put(m, n0, p01);
        float up[3] = {0, 0, 1}, dn[3] = {0, 0, -1}, ct[3] = {0, 0, 0.5f}, cb[3] = {0, 0, -0.5f};
        mesh_put(m, up, ct), mesh_put(m, up, p01), mesh_put(m, up, p11);
        mesh_put(m, dn, cb), mesh_put(m, dn, p10), mesh_put(m, dn, p00);
    }
}

static bool is_shape(const tpPlanBody *b, const char *s)
{
    /* a mesh body is a box to the contact and tree drawings (size: its full extents about its
       origin); draw_body draws its own triangles */
    if (strcmp(b->shape, "mesh") == 0 || strcmp(b->shape, "compound") == 0) /* a compound too: draw_body */
        return strcmp(s, "box") == 0;                                       /* draws its parts */
    return strcmp(b->shape, s) == 0;
}

/* Uploads a mesh body's triangles (body frame, one flat normal per triangle) into *vbo; the
 * vertex count, 0 when it has none or they cannot be held (it is then drawn as its box). */
static int upload_body_mesh(const tpPlanBody *b, GLuint *vbo)
{
    if (strcmp(b->shape, "mesh") != 0 || b->mesh_ntriangles <= 0 || !b->mesh_vertices || !b->mesh_triangles) {
        return 0;
    }
    size_t nv = (size_t)b->mesh_ntriangles * 3;
    float *v = malloc(nv * 6 * sizeof *v);
    if (!v) {
        return 0;
    }
    for (int t = 0; t < b->mesh_ntriangles; ++t) {
        const double *p[3];
        for (int k = 0; k < 3; ++k) {
            p[k] = b->mesh_vertices + 3 * (size_t)b->mesh_triangles[3 * t + k]; /* indices checked by the reader */
        }
        double e1[3], e2[3], n[3];
        for (int c = 0; c < 3; ++c) {
            e1[c] = p[1][c] - p[0][c];
            e2[c] = p[2][c] - p[0][c];
        }
        n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2],
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; ++k) {
            float *o = v + ((size_t)t * 3 + (size_t)k) * 6;
            for (int c = 0; c < 3; ++c) {
                o[c] = l > 0 ? (float)(n[c] / l) : (c == 2 ? 1.0f : 0.0f);
                o[3 + c] = (float)p[k][c];
            }
        }
    }
    glGenBuffers(1, vbo);
    glBindBuffer(GL_ARRAY_BUFFER, *vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(nv * 6 * sizeof *v), v, GL_STATIC_DRAW);
    free(v);
    return (int)nv;
}

bool tpVScene_Init(tpVScene *sc, const tpPlanRecord *rec, char *err, size_t errlen)
{
    memset(sc, 0, sizeof *sc);
    sc->rec = rec;
    sc->world = -1;
    sc->palette = malloc((size_t)(rec->nbodies > 0 ? rec->nbodies : 1) * sizeof *sc->palette);
    sc->trail_first = malloc((size_t)(rec->nbodies > 0 ? rec->nbodies : 1) * sizeof *sc->trail_first);
    sc->body_vbo = calloc((size_t)(rec->nbodies > 0 ? rec->nbodies : 1), sizeof *sc->body_vbo);
    sc->body_verts = calloc((size_t)(rec->nbodies > 0 ? rec->nbodies : 1), sizeof *sc->body_verts);
    if (!sc->palette || !sc->trail_first || !sc->body_vbo || !sc->body_verts) {
        tpErrorf(err, errlen, "out of memory");
        return false;
    }
    int nmoving = 0;
    for (int b = 0; b < rec->nbodies; ++b) {
        sc->palette[b] = rec->bodies[b].moving ? nmoving++ : -1;
    }
    void (*build[TP_MESH_COUNT])(MeshBuf *) = {mesh_box, mesh_sphere, mesh_cylinder, mesh_sphere_coarse};
    glGenBuffers(TP_MESH_COUNT, sc->mesh_vbo);
    for (int i = 0; i < TP_MESH_COUNT; ++i) {
        MeshBuf m = {0};
        build[i](&m);
        glBindBuffer(GL_ARRAY_BUFFER, sc->mesh_vbo[i]);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)m.n * 6 * sizeof(float)), m.v, GL_STATIC_DRAW);
        sc->mesh_verts[i] = m.n;
        free(m.v);
    }
    for (int b = 0; b < rec->nbodies; ++b) {
        sc->body_verts[b] = upload_body_mesh(&rec->bodies[b], &sc->body_vbo[b]);
    }
    glGenBuffers(1, &sc->trail_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    tpView_SceneBounds(rec, sc->lo, sc->hi); /* the same set the camera fits */
    if (!tpVNav_Init(sc, err, errlen)) {
        return false;
    }
    TP_VALIDATE(tpVScene_Valid, sc);
    return true;
}

void tpVScene_SetWorld(tpVScene *sc, int world)
{
    const tpPlanRecord *rec = sc->rec;
    if (world < 0 || world >= rec->nworlds) {
        sc->world = -1;
        return;
    }
    const tpPlanWorld *w = &rec->worlds[world];
    int nmoving = 0;
    for (int b = 0; b < rec->nbodies; ++b) {
        sc->trail_first[b] = (rec->bodies[b].moving && w->traj && w->traj[b]) ? nmoving++ : -1;
    }
    sc->trail_len = w->nsteps + 1;
    size_t nv = (size_t)nmoving * (size_t)sc->trail_len;
    float *v = malloc((nv ? nv : 1) * 3 * sizeof *v);
    if (!v) {
        sc->world = -1;
        return;
    }
    for (int b = 0; b < rec->nbodies; ++b) {
        if (sc->trail_first[b] < 0) {
            continue;
        }
        float *o = v + (size_t)sc->trail_first[b] * sc->trail_len * 3;
        for (int i = 0; i < sc->trail_len; ++i) {
            for (int k = 0; k < 3; ++k) {
                o[(size_t)i * 3 + k] = (float)w->traj[b][(size_t)i * TP_STATE_DOUBLES + k];
            }
        }
        sc->trail_first[b] *= sc->trail_len;
    }
    glBindBuffer(GL_ARRAY_BUFFER, sc->trail_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(nv * 3 * sizeof *v), v, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    free(v);
    sc->world = world;
    sc->generation++;
    TP_VALIDATE(tpVScene_Valid, sc);
}

/* Tree vertex: position (m) and colour; segments are node-major: node i >= 1 owns vertices
   2 (i - 1) D .. 2 i D - 1 (D = bodies drawn), a (parent, node) pair per body, so a growing tree
   only appends and a range of nodes is one draw call. */
typedef struct TreeVert {
    float p[3];
    uint8_t c[4];
} TreeVert;

static void tree_clear(tpVScene *sc)
{
    sc->generation++;
    if (sc->has_tree) {
        GLuint bufs[3] = {sc->tree_vbo, sc->tree_sel_vbo, sc->tree_goal_vbo};
        glDeleteBuffers(3, bufs);
    }
    for (int i = 0; i < sc->tree_nbodies; ++i) {
        free(sc->tree_names[i]);
    }
    free(sc->tree_names);
    free(sc->tree_body);
    sc->tree_names = NULL;
    sc->tree_body = NULL;
    sc->has_tree = false;
    sc->tree_nbodies = sc->tree_nbodies_file = 0;
    sc->tree_nnodes = sc->tree_cap = sc->tree_nsel = sc->tree_ngoal = 0;
}

/* Bytes of the segment buffer for n nodes. */
static size_t seg_bytes(const tpVScene *sc, int64_t n)
{
    return n > 1 ? (size_t)(n - 1) * (size_t)sc->tree_nbodies * 2 * sizeof(TreeVert) : 0;
}

/* Grows the segment buffer to hold n nodes, keeping the first sc->tree_nnodes (GPU-side copy). */
static bool tree_reserve(tpVScene *sc, int64_t n)
{
    if (n <= sc->tree_cap) {
        return true;
    }
    int64_t cap = sc->tree_cap * 2 > n ? sc->tree_cap * 2 : n;
    cap = cap < 1024 ? 1024 : cap;
    GLuint nb;
    glGenBuffers(1, &nb);
    glBindBuffer(GL_ARRAY_BUFFER, nb);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)seg_bytes(sc, cap), NULL, GL_DYNAMIC_DRAW);
    if (glGetError() == GL_OUT_OF_MEMORY) {
        glDeleteBuffers(1, &nb);
        return false;
    }
    size_t used = seg_bytes(sc, sc->tree_nnodes);
    if (used > 0) {
        glBindBuffer(GL_COPY_READ_BUFFER, sc->tree_vbo);
        glBindBuffer(GL_COPY_WRITE_BUFFER, nb);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, (GLsizeiptr)used);
        glBindBuffer(GL_COPY_READ_BUFFER, 0);
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    }
    glDeleteBuffers(1, &sc->tree_vbo);
    sc->tree_vbo = nb;
    sc->tree_cap = cap;
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return true;
}

/* Uploads the segments of nodes [from, to) (the buffer must hold `to` nodes). */
static bool tree_upload(tpVScene *sc, const tpTreeRecord *tree, int64_t from, int64_t to)
{
    from = from < 1 ? 1 : from;
    if (to <= from) {
        return true;
    }
    int D = sc->tree_nbodies, nb = tree->nbodies;
    size_t nv = (size_t)(to - from) * (size_t)D * 2;
    TreeVert *v = malloc(nv * sizeof *v);
    if (!v) {
        return false;
    }
    uint8_t col[8][4];
    TreeVert *o = v;
    for (int64_t i = from; i < to; ++i) {
        const float *p = tree->pos + (size_t)i * nb * 3, *q = tree->pos + (size_t)tree->parent[i] * nb * 3;
        for (int b = 0; b < D; ++b) {
            uint8_t c[4];
            if (b < 8 && i == from) {
                float rgb[3];
                line_colour(sc, sc->tree_body[b], rgb);
                for (int k = 0; k < 3; ++k) {
                    col[b][k] = (uint8_t)(rgb[k] * 255 + 0.5f);
                }
                col[b][3] = 140; /* alpha 0.55 */
            }
            if (b < 8) {
                memcpy(c, col[b], 4);
            } else {
                float rgb[3];
                line_colour(sc, sc->tree_body[b], rgb);
                c[0] = (uint8_t)(rgb[0] * 255 + 0.5f), c[1] = (uint8_t)(rgb[1] * 255 + 0.5f);
                c[2] = (uint8_t)(rgb[2] * 255 + 0.5f), c[3] = 140;
            }
            memcpy(o[0].p, q + b * 3, sizeof o[0].p), memcpy(o[0].c, c, 4);
            memcpy(o[1].p, p + b * 3, sizeof o[1].p), memcpy(o[1].c, c, 4);
            o += 2;
        }
    }
    glBindBuffer(GL_ARRAY_BUFFER, sc->tree_vbo);
    glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)seg_bytes(sc, from), (GLsizeiptr)(nv * sizeof *v), v);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    free(v);
    return true;
}

/* Rebuilds the (small) buffers of the selected branch and the goal nodes from the flags. */
static bool tree_marks(tpVScene *sc, const tpTreeRecord *tree)
{
    int64_t n = tree->nnodes, nsel = 0, ngoal = 0;
    int D = sc->tree_nbodies, nb = tree->nbodies;
    for (int64_t i = 0; i < n; ++i) {
        nsel += i > 0 && (tree->flags[i] & 4) && (tree->flags[tree->parent[i]] & 4);
        ngoal += (tree->flags[i] & 2) != 0;
    }
    size_t nv = (size_t)(nsel * D * 2 + ngoal * D);
    float *v = malloc((nv ? nv : 1) * 3 * sizeof *v);
    if (!v) {
        return false;
    }
    float *sel = v, *goal = v + (size_t)(nsel * D * 6);
    for (int b = 0; b < D; ++b) { /* selected: body-major, drawn with one colour per body */
        for (int64_t i = 1; i < n; ++i) {
            if ((tree->flags[i] & 4) && (tree->flags[tree->parent[i]] & 4)) {
                memcpy(sel, tree->pos + ((size_t)tree->parent[i] * nb + b) * 3, 3 * sizeof *sel);
                memcpy(sel + 3, tree->pos + ((size_t)i * nb + b) * 3, 3 * sizeof *sel);
                sel += 6;
            }
        }
    }
    for (int64_t i = 0; i < n; ++i) {
        if (tree->flags[i] & 2) {
            for (int b = 0; b < D; ++b) {
                memcpy(goal, tree->pos + ((size_t)i * nb + b) * 3, 3 * sizeof *goal);
                goal += 3;
            }
        }
    }
    glBindBuffer(GL_ARRAY_BUFFER, sc->tree_sel_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)(nsel * D * 6) * sizeof *v), v, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, sc->tree_goal_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)(ngoal * D * 3) * sizeof *v), v + nsel * D * 6, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    free(v);
    sc->tree_nsel = nsel;
    sc->tree_ngoal = ngoal;
    return true;
}

bool tpVScene_SetTree(tpVScene *sc, const tpTreeRecord *tree, const char *tree_path, char *err, size_t errlen)
{
    tree_clear(sc);
    if (!tree) {
        return true;
    }
    const tpPlanRecord *rec = sc->rec;
    int nb = tree->nbodies;
    int *pal = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *pal);
    if (!pal) {
        tpErrorf(err, errlen, "out of memory");
        return false;
    }
    for (int i = 0; i < nb; ++i) {
        pal[i] = -1;
        for (int b = 0; b < rec->nbodies; ++b) {
            if (rec->bodies[b].moving && strcmp(rec->bodies[b].name, tree->body_names[i]) == 0) {
                pal[i] = b;
            }
        }
        if (pal[i] < 0) {
            tpErrorf(err, errlen, "%s: body '%s' is not a moving body of the plan (tree of another plan?)", tree_path,
                     tree->body_names[i]);
            free(pal);
            return false;
        }
    }
    int64_t n = tree->nnodes;
    int64_t nseg = n > 1 ? n - 1 : 0;
    int drawn = nb;
    while (drawn > 1 && nseg * drawn > TREE_MAX_SEGMENTS) {
        --drawn;
    }
    sc->tree_names = calloc((size_t)(drawn > 0 ? drawn : 1), sizeof *sc->tree_names);
    if (!sc->tree_names) {
        free(pal);
        tpErrorf(err, errlen, "out of memory");
        return false;
    }
    for (int b = 0; b < drawn; ++b) {
        sc->tree_names[b] = strdup(tree->body_names[b]);
    }
    GLuint bufs[3];
    glGenBuffers(3, bufs);
    sc->tree_vbo = bufs[0], sc->tree_sel_vbo = bufs[1], sc->tree_goal_vbo = bufs[2];
    sc->tree_body = pal;
    sc->has_tree = true;
    sc->tree_nbodies = drawn;
    sc->tree_nbodies_file = nb;
    if (!tree_reserve(sc, n) || !tree_upload(sc, tree, 0, n) || !tree_marks(sc, tree)) {
        tpErrorf(err, errlen, "%s: out of memory for %lld nodes", tree_path, (long long)n);
        tree_clear(sc);
        return false;
    }
    sc->tree_nnodes = n;
    sc->generation++;
    TP_VALIDATE(tpVScene_Valid, sc);
    return true;
}

bool tpVScene_GrowTree(tpVScene *sc, const tpTreeRecord *tree, char *err, size_t errlen)
{
    bool same = sc->has_tree && tree && tree->nbodies == sc->tree_nbodies_file && tree->nnodes >= sc->tree_nnodes &&
                (tree->nnodes - 1) * (int64_t)sc->tree_nbodies <= TREE_MAX_SEGMENTS;
    for (int b = 0; same && b < sc->tree_nbodies; ++b) {
        same = strcmp(sc->tree_names[b], tree->body_names[b]) == 0;
    }
    if (!same) {
        return tpVScene_SetTree(sc, tree, "(tree)", err, errlen);
    }
    int64_t n = tree->nnodes;
    if (!tree_reserve(sc, n) || !tree_upload(sc, tree, sc->tree_nnodes, n) || !tree_marks(sc, tree)) {
        tpErrorf(err, errlen, "out of memory for %lld tree nodes", (long long)n);
        tree_clear(sc);
        return false;
    }
    sc->tree_nnodes = n; /* no generation change: the cache only adds the new nodes */
    TP_VALIDATE(tpVScene_Valid, sc);
    return true;
}

void tpVScene_Free(tpVScene *sc)
{
    tree_clear(sc);
    if (sc->cache_fbo) {
        glDeleteFramebuffers(1, &sc->cache_fbo);
        glDeleteTextures(1, &sc->cache_tex);
        glDeleteRenderbuffers(1, &sc->cache_depth);
    }
    if (sc->mesh_vbo[0]) {
        glDeleteBuffers(TP_MESH_COUNT, sc->mesh_vbo);
        glDeleteBuffers(1, &sc->trail_vbo);
    }
    for (int b = 0; sc->body_vbo && sc->rec && b < sc->rec->nbodies; ++b) {
        if (sc->body_vbo[b]) {
            glDeleteBuffers(1, &sc->body_vbo[b]);
        }
    }
    free(sc->body_vbo);
    free(sc->body_verts);
    free(sc->palette);
    free(sc->trail_first);
    tpVNav_Free(sc);
    memset(sc, 0, sizeof *sc);
}

/* ---- drawing ---- */

static void quat_matrix(const double p[3], const double q[4], float m[16])
{
    double r[9]; /* row-major */
    tpQuat_ToMatrix(q, r);
    for (int c = 0; c < 3; ++c) { /* m is column-major */
        for (int k = 0; k < 3; ++k) {
            m[c * 4 + k] = (float)r[k * 3 + c];
        }
        m[c * 4 + 3] = 0;
    }
    m[12] = (float)p[0], m[13] = (float)p[1], m[14] = (float)p[2], m[15] = 1;
}

static void draw_mesh(const tpVScene *sc, int mesh)
{
    glBindBuffer(GL_ARRAY_BUFFER, sc->mesh_vbo[mesh]);
    glNormalPointer(GL_FLOAT, 6 * sizeof(float), (const void *)0);
    glVertexPointer(3, GL_FLOAT, 6 * sizeof(float), (const void *)(3 * sizeof(float)));
    glDrawArrays(GL_TRIANGLES, 0, sc->mesh_verts[mesh]);
}

/* The sphere mesh for a sphere of radius r (m) at p: coarse below 15 pixels of radius. */
static int sphere_mesh(const tpVScene *sc, const double p[3], double r)
{
    double d = sqrt((p[0] - sc->eye[0]) * (p[0] - sc->eye[0]) + (p[1] - sc->eye[1]) * (p[1] - sc->eye[1]) +
                    (p[2] - sc->eye[2]) * (p[2] - sc->eye[2]));
    return d > 0 && r / d * sc->px_per_rad < 15 ? TP_MESH_SPHERE_COARSE : TP_MESH_SPHERE;
}

/* A box, sphere, cylinder or capsule of sizes s at the current matrix (pos: where it is, for the
 * sphere's level of detail). */
static void draw_shape(const tpVScene *sc, const char *shape, const double *s, const double pos[3])
{
    const tpPlanBody probe = {.shape = (char *)(uintptr_t)shape};
    const tpPlanBody *b = &probe;
    if (is_shape(b, "box")) {
        glScaled(s[0], s[1], s[2]);
        draw_mesh(sc, TP_MESH_BOX);
    } else if (is_shape(b, "sphere")) {
        glScaled(s[0], s[0], s[0]);
        draw_mesh(sc, sphere_mesh(sc, pos, s[0]));
    } else if (is_shape(b, "cylinder")) {
        glScaled(s[0], s[0], s[1]);
        draw_mesh(sc, TP_MESH_CYLINDER);
    } else if (is_shape(b, "capsule")) {
        glPushMatrix();
        glScaled(s[0], s[0], s[1]);
        draw_mesh(sc, TP_MESH_CYLINDER);
        glPopMatrix();
        for (int e = -1; e <= 1; e += 2) {
            glPushMatrix();
            glTranslated(0, 0, 0.5 * e * s[1]);
            glScaled(s[0], s[0], s[0]);
            draw_mesh(sc, sphere_mesh(sc, pos, s[0]));
            glPopMatrix();
        }
    }
}

/* A compound's parts, each at its place in the body frame; a mesh part as the box of its vertices. */
static void draw_parts(const tpVScene *sc, const tpPlanBody *b, const double pos[3])
{
    for (int k = 0; k < b->nparts; ++k) {
        const tpPlanPart *p = &b->parts[k];
        float m[16];
        quat_matrix(p->pos, p->quat, m);
        glPushMatrix();
        glMultMatrixf(m);
        if (strcmp(p->shape, "mesh") == 0) {
            double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
            for (int v = 0; v < p->nvertices; ++v) {
                for (int c = 0; c < 3; ++c) {
                    lo[c] = fmin(lo[c], p->vertices[3 * v + c]);
                    hi[c] = fmax(hi[c], p->vertices[3 * v + c]);
                }
            }
            const double size[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
            glTranslated(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
            draw_shape(sc, "box", size, pos);
        } else {
            draw_shape(sc, p->shape, p->size, pos);
        }
        glPopMatrix();
    }
}

/* The pips of a die (tpPlanBody_IsDie) on the unit cube of the current matrix (draw_shape's scale):
 * discs just above each face, white on a dark die and near-black on a light one, lit as the face. */
static void draw_pips(const tpPlanBody *b)
{
    float lum = 0.3f * b->color[0] + 0.59f * b->color[1] + 0.11f * b->color[2];
    float c = lum > 0.6f ? 0.08f : 0.95f;
    glColor4f(c, c, c, b->color[3]);
    enum { SEG = 12 };
    glBegin(GL_TRIANGLES);
    for (int f = 0; f < 6; ++f) {
        int ax = f / 2, ua = (ax + 1) % 3, va = (ax + 2) % 3;
        double sign = (f % 2) ? -1 : 1, uv[6][2], r;
        int n = tpDie_Face(f, uv, &r);
        double nrm[3] = {0, 0, 0};
        nrm[ax] = sign;
        glNormal3dv(nrm);
        for (int k = 0; k < n; ++k) {
            for (int s = 0; s < SEG; ++s) {
                double a0 = 6.283185307179586 * s / SEG * sign, a1 = 6.283185307179586 * (s + 1) / SEG * sign;
                double p[3][3] = {{0}};
                const double du[3] = {0, cos(a0), cos(a1)}, dv[3] = {0, sin(a0), sin(a1)};
                for (int v = 0; v < 3; ++v) {
                    p[v][ax] = sign * 0.503; /* just above the face: no depth fight with the box */
                    p[v][ua] = 0.5 * (uv[k][0] + r * du[v]);
                    p[v][va] = 0.5 * (uv[k][1] + r * dv[v]);
                    glVertex3dv(p[v]);
                }
            }
        }
    }
    glEnd();
}

static void draw_body(const tpVScene *sc, const tpPlanBody *b, const double pos[3], const double quat[4])
{
    float m[16];
    quat_matrix(pos, quat, m);
    glPushMatrix();
    glMultMatrixf(m);
    glColor4fv(b->color);
    int own = (int)(b - sc->rec->bodies);
    if (sc->body_verts && own >= 0 && own < sc->rec->nbodies && sc->body_verts[own] > 0) {
        glBindBuffer(GL_ARRAY_BUFFER, sc->body_vbo[own]); /* a mesh body: its own triangles */
        glNormalPointer(GL_FLOAT, 6 * sizeof(float), (const void *)0);
        glVertexPointer(3, GL_FLOAT, 6 * sizeof(float), (const void *)(3 * sizeof(float)));
        glDrawArrays(GL_TRIANGLES, 0, sc->body_verts[own]);
    } else if (b->nparts > 0) {
        draw_parts(sc, b, pos);
    } else {
        draw_shape(sc, b->shape, b->size, pos);
        if (tpPlanBody_IsDie(sc->rec, b)) {
            draw_pips(b); /* draw_shape left the box's scale on the matrix */
        }
    }
    glPopMatrix();
}

/* The goal regions (the plan's "goal", docs/plan-format.md), as the web page draws them:
   translucent, in their body's key colour, after the bodies and without writing depth (a body
   inside one stays in view). A circle bounds x and y only: a column of the body's height standing
   where the body meets it (its bottom at the first state of the selected world inside the circle,
   its start if none: a hole on a lower floor is drawn on that floor, not at the table's height the
   ball started from); a sphere a ball; a box with its open sides cut at the scene's bounds. */
static void draw_goal(const tpVScene *sc)
{
    const tpPlanRecord *rec = sc->rec;
    const double lift = 2e-4 * fmax(1e-3, sqrt((sc->hi[0] - sc->lo[0]) * (sc->hi[0] - sc->lo[0]) +
                                               (sc->hi[1] - sc->lo[1]) * (sc->hi[1] - sc->lo[1]) +
                                               (sc->hi[2] - sc->lo[2]) * (sc->hi[2] - sc->lo[2])));
    glDepthMask(GL_FALSE);
    for (int i = 0; i < rec->ngoal_regions; ++i) {
        const tpPlanGoalRegion *g = &rec->goal_regions[i];
        const tpPlanBody *b = &rec->bodies[g->body];
        float rgb[3];
        tpVScene_KeyColour(sc, g->body, rgb);
        glColor4f(rgb[0], rgb[1], rgb[2], 0.3f);
        glPushMatrix();
        if (g->kind == TP_GOAL_CIRCLE) {
            double half = tpView_HalfHeight(b), h = fmax(2 * half, lift);
            double bottom = tpView_GoalCircleZ(rec, g) - half + lift;
            glTranslated(g->center[0], g->center[1], bottom + 0.5 * h);
            glScaled(g->radius, g->radius, h);
            draw_mesh(sc, TP_MESH_CYLINDER);
        } else if (g->kind == TP_GOAL_SPHERE) {
            glTranslated(g->center[0], g->center[1], g->center[2]);
            glScaled(g->radius, g->radius, g->radius);
            draw_mesh(sc, TP_MESH_SPHERE);
        } else {
            double lo[3], hi[3];
            for (int k = 0; k < 3; ++k) {
                lo[k] = isfinite(g->lo[k]) ? g->lo[k] : fmin(sc->lo[k], isfinite(g->hi[k]) ? g->hi[k] : sc->lo[k]);
                hi[k] = isfinite(g->hi[k]) ? g->hi[k] : fmax(sc->hi[k], lo[k]);
                hi[k] = fmax(hi[k], lo[k] + lift); /* a flat region stays visible */
            }
            glTranslated(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
            glScaled(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
            draw_mesh(sc, TP_MESH_BOX);
        }
        glPopMatrix();
    }
    glDepthMask(GL_TRUE);
}

/* The joints (the plan's "joints", docs/plan-format.md), as the web page draws them: each anchor a
   small ball in JOINT_RGB, axis 1 (held by the first body) a line through it, axis 2 (held by the
   second: a universal's, a hinge2's spin) a line in JOINT2_RGB, a distance joint's rod a line
   between its two points (both marked). Drawn over everything (no depth test): an anchor usually lies inside the
   bodies it joins. Sizes follow the scene's extent. */
static const float JOINT_RGB[3] = {1.0f, 0.15f, 1.0f},
                   JOINT2_RGB[3] = {0.1f, 0.9f, 1.0f}; /* magenta, cyan: no key colour */

/* local (in body's frame; the world's for -1) to the world at time t: a point, or a direction. */
static void joint_world(const tpPlanRecord *rec, int world, int body, double t, const double local[3], bool point,
                        double out[3])
{
    if (body < 0) {
        memcpy(out, local, 3 * sizeof *out);
        return;
    }
    double p[3], q[4], r[9];
    tpView_BodyPose(rec, world, body, t, p, q);
    tpQuat_ToMatrix(q, r);
    for (int i = 0; i < 3; ++i) {
        out[i] = (point ? p[i] : 0) + r[3 * i] * local[0] + r[3 * i + 1] * local[1] + r[3 * i + 2] * local[2];
    }
}

static void joint_marker(const tpVScene *sc, const double at[3], double radius)
{
    glPushMatrix();
    glTranslated(at[0], at[1], at[2]);
    glScaled(radius, radius, radius);
    draw_mesh(sc, TP_MESH_SPHERE);
    glPopMatrix();
}

static void joint_line(const double a[3], const double b[3])
{
    glBegin(GL_LINES);
    glVertex3dv(a);
    glVertex3dv(b);
    glEnd();
}

static void draw_joints(const tpVScene *sc, int world, double t)
{
    const tpPlanRecord *rec = sc->rec;
    double ext = 0;
    for (int k = 0; k < 3; ++k) {
        ext = fmax(ext, sc->hi[k] - sc->lo[k]);
    }
    const double radius = fmin(fmax(0.012 * ext, 0.01), 0.05), half = fmin(fmax(0.1 * ext, 0.1), 0.6);
    glDisable(GL_DEPTH_TEST);
    glLineWidth(3);
    for (int i = 0; i < rec->njoints; ++i) {
        const tpPlanJoint *j = &rec->joints[i];
        double at[3], at2[3], ax[3], ax2[3], p0[3], p1[3];
        joint_world(rec, world, j->body_a, t, j->anchor, true, at);
        joint_world(rec, world, j->body_b, t, j->anchor2, true, at2);
        joint_world(rec, world, j->body_a, t, j->axis, false, ax);
        joint_world(rec, world, j->body_b, t, j->axis2, false, ax2);
        glColor4f(JOINT_RGB[0], JOINT_RGB[1], JOINT_RGB[2], 1);
        joint_marker(sc, at, radius);
        if (strcmp(tpPlan_JointKindName(j->kind), "distance") == 0) {
            joint_line(at, at2); /* the rod */
            joint_marker(sc, at2, radius);
            continue;
        }
        if (ax[0] != 0 || ax[1] != 0 || ax[2] != 0) {
            for (int k = 0; k < 3; ++k) {
                p0[k] = at[k] - half * ax[k], p1[k] = at[k] + half * ax[k];
            }
            joint_line(p0, p1);
        }
        if (ax2[0] != 0 || ax2[1] != 0 || ax2[2] != 0) {
            glColor4f(JOINT2_RGB[0], JOINT2_RGB[1], JOINT2_RGB[2], 1);
            for (int k = 0; k < 3; ++k) {
                p0[k] = at2[k] - 0.6 * half * ax2[k], p1[k] = at2[k] + 0.6 * half * ax2[k];
            }
            joint_line(p0, p1);
        }
    }
    glLineWidth(1);
    glEnable(GL_DEPTH_TEST);
}

/* An orthonormal basis (u, v) of the plane with unit normal n. */
static void plane_basis(const double n[3], double u[3], double v[3])
{
    double a[3] = {1, 0, 0};
    if (fabs(n[0]) > 0.9) {
        a[0] = 0, a[1] = 1;
    }
    u[0] = a[1] * n[2] - a[2] * n[1], u[1] = a[2] * n[0] - a[0] * n[2], u[2] = a[0] * n[1] - a[1] * n[0];
    double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int i = 0; i < 3; ++i) {
        u[i] /= l;
    }
    v[0] = n[1] * u[2] - n[2] * u[1], v[1] = n[2] * u[0] - n[0] * u[2], v[2] = n[0] * u[1] - n[1] * u[0];
}

/* Grid spacing: a power of ten giving 10..100 lines over the extent. */
static double grid_step(double extent)
{
    double s = pow(10, floor(log10(fmax(extent, 1e-3) / 10)));
    return s;
}

static void draw_ground(const tpVScene *sc)
{
    const tpPlanRecord *rec = sc->rec;
    double c[3], ext = 0;
    for (int i = 0; i < 3; ++i) {
        c[i] = 0.5 * (sc->lo[i] + sc->hi[i]);
        ext = fmax(ext, sc->hi[i] - sc->lo[i]);
    }
    double half = ext * 0.75 + 0.5;
    /* only a plane gets a grid: a scene without a floor shows none (a reference grid
       drawn below such a scene read as a floor that is not there) */
    for (int b = 0; b < rec->nbodies; ++b) {
        const tpPlanBody *pb = &rec->bodies[b];
        if (!is_shape(pb, "plane")) {
            continue;
        }
        double n[3] = {pb->size[0], pb->size[1], pb->size[2]};
        double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(nl > 0)) {
            continue;
        }
        for (int i = 0; i < 3; ++i) {
            n[i] /= nl;
        }
        double d = pb->size[3] / nl, u[3], v[3], o[3];
        double off = n[0] * c[0] + n[1] * c[1] + n[2] * c[2] - d;
        for (int i = 0; i < 3; ++i) {
            o[i] = c[i] - off * n[i];
        }
        plane_basis(n, u, v);
        glEnable(GL_LIGHTING);
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(1, 1);
        glColor4fv(pb->color);
        glNormal3dv(n);
        glBegin(GL_QUADS);
        for (int k = 0; k < 4; ++k) {
            double su = (k == 0 || k == 3) ? -half : half, sv = k < 2 ? -half : half;
            glVertex3d(o[0] + su * u[0] + sv * v[0], o[1] + su * u[1] + sv * v[1], o[2] + su * u[2] + sv * v[2]);
        }
        glEnd();
        glDisable(GL_POLYGON_OFFSET_FILL);
        glDisable(GL_LIGHTING);
        /* grid lines on the plane */
        double step = grid_step(2 * half);
        int nl2 = (int)ceil(half / step);
        glColor4f(pb->color[0] * 0.7f, pb->color[1] * 0.7f, pb->color[2] * 0.7f, 0.8f);
        glLineWidth(1);
        glBegin(GL_LINES);
        for (int k = -nl2; k <= nl2; ++k) {
            double a = k * step;
            for (int dir = 0; dir < 2; ++dir) {
                const double *e1 = dir ? u : v, *e2 = dir ? v : u;
                double p0[3], p1[3];
                for (int i = 0; i < 3; ++i) {
                    p0[i] = o[i] + a * e1[i] - half * e2[i];
                    p1[i] = o[i] + a * e1[i] + half * e2[i];
                }
                glVertex3dv(p0), glVertex3dv(p1);
            }
        }
        glEnd();
    }
}

/* Nodes [from, to) of the tree: each node's segment to its parent, per body, and the node points. */
static void draw_tree_range(const tpVScene *sc, int64_t from, int64_t to)
{
    from = from < 1 ? 1 : from;
    if (!sc->has_tree || to <= from) {
        return;
    }
    glDisable(GL_LIGHTING);
    glDepthMask(GL_FALSE);
    glLineWidth(1);
    glPointSize(2);
    glBindBuffer(GL_ARRAY_BUFFER, sc->tree_vbo);
    glEnableClientState(GL_COLOR_ARRAY);
    glVertexPointer(3, GL_FLOAT, sizeof(TreeVert), (const void *)0);
    glColorPointer(4, GL_UNSIGNED_BYTE, sizeof(TreeVert), (const void *)offsetof(TreeVert, c));
    GLint first = (GLint)((from - 1) * sc->tree_nbodies * 2);
    GLsizei count = (GLsizei)((to - from) * sc->tree_nbodies * 2);
    glDrawArrays(GL_LINES, first, count);
    glDrawArrays(GL_POINTS, first, count); /* each node, and its parent again */
    glDisableClientState(GL_COLOR_ARRAY);
    glDepthMask(GL_TRUE);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* The selected solution (thick, lighter) and the goal nodes (yellow), over the rest of the tree
   (drawn before the bodies, without writing depth, so that bodies cover it). */
static void draw_tree_solution(const tpVScene *sc)
{
    if (!sc->has_tree) {
        return;
    }
    glDisable(GL_LIGHTING);
    glDisable(GL_DEPTH_TEST);
    glDepthMask(GL_FALSE);
    float rgb[3];
    glLineWidth(3);
    glBindBuffer(GL_ARRAY_BUFFER, sc->tree_sel_vbo);
    glVertexPointer(3, GL_FLOAT, 0, 0);
    for (int b = 0; b < sc->tree_nbodies; ++b) {
        line_colour(sc, sc->tree_body[b], rgb);
        glColor4f(0.5f + 0.5f * rgb[0], 0.5f + 0.5f * rgb[1], 0.5f + 0.5f * rgb[2], 1.0f);
        glDrawArrays(GL_LINES, (GLint)(2 * sc->tree_nsel * b), (GLsizei)(2 * sc->tree_nsel));
    }
    glPointSize(7);
    glColor4f(1, 1, 0.3f, 1);
    glBindBuffer(GL_ARRAY_BUFFER, sc->tree_goal_vbo);
    glVertexPointer(3, GL_FLOAT, 0, 0);
    glDrawArrays(GL_POINTS, 0, (GLsizei)(sc->tree_ngoal * sc->tree_nbodies));
    glEnable(GL_DEPTH_TEST);
    glDepthMask(GL_TRUE);
    glLineWidth(1);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* Bright (travelled) trail segments drawn per frame, all bodies together: with many bodies each
   shows only its most recent steps (a 400-dice plan: the last 150 steps). */
#define TRAIL_BUDGET 60000

/* Trails: the whole path faint (static: cached with the tree), the travelled part bright. */
static void draw_trails(const tpVScene *sc, double t, bool whole)
{
    if (sc->world < 0) {
        return;
    }
    const tpPlanRecord *rec = sc->rec;
    int upto = rec->dt > 0 ? (int)floor(t / rec->dt + 1e-9) + 1 : 1;
    if (upto > sc->trail_len) {
        upto = sc->trail_len;
    }
    glDisable(GL_LIGHTING);
    glBindBuffer(GL_ARRAY_BUFFER, sc->trail_vbo);
    glVertexPointer(3, GL_FLOAT, 0, 0);
    glLineWidth(1.0f); /* wide lines are slow under llvmpipe; bright vs faint tells the parts apart */
    int nmoving = 0;
    for (int b = 0; b < rec->nbodies; ++b) {
        nmoving += sc->trail_first[b] >= 0;
    }
    int tail = nmoving > 0 ? TRAIL_BUDGET / nmoving : upto;
    int first = whole || upto <= tail + 1 ? 0 : upto - tail - 1;
    float rgb[3];
    for (int b = 0; b < rec->nbodies; ++b) {
        if (sc->trail_first[b] < 0) {
            continue;
        }
        line_colour(sc, b, rgb);
        glColor4f(rgb[0], rgb[1], rgb[2], whole ? 0.35f : 1.0f);
        glDrawArrays(GL_LINE_STRIP, sc->trail_first[b] + first, whole ? sc->trail_len : upto - first);
    }
    glLineWidth(1);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* ---- approximate contacts from geometry (the plan file records no contacts) ---- */

#define CONTACT_TOL 0.003 /* m: surfaces closer than this count as touching */
#define MAX_CONTACTS 4096

typedef struct Geo {
    const tpPlanBody *b;
    double p[3], r[9]; /* position and rotation (row-major, world = R * local + p) */
    double radius;     /* bounding sphere, m */
} Geo;

static void geo_make(Geo *g, const tpPlanBody *b, const double p[3], const double q[4])
{
    g->b = b;
    memcpy(g->p, p, sizeof g->p);
    tpQuat_ToMatrix(q, g->r);
    const double *s = b->size;
    g->radius = is_shape(b, "box")        ? 0.5 * sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2])
                : is_shape(b, "sphere")   ? s[0]
                : is_shape(b, "capsule")  ? s[0] + 0.5 * s[1]
                : is_shape(b, "cylinder") ? sqrt(s[0] * s[0] + 0.25 * s[1] * s[1])
                                          : INFINITY;
}

static void to_local(const Geo *g, const double w[3], double l[3])
{
    double d[3] = {w[0] - g->p[0], w[1] - g->p[1], w[2] - g->p[2]};
    for (int i = 0; i < 3; ++i) {
        l[i] = g->r[i] * d[0] + g->r[3 + i] * d[1] + g->r[6 + i] * d[2];
    }
}

static void to_world(const Geo *g, const double l[3], double w[3])
{
    for (int i = 0; i < 3; ++i) {
        w[i] = g->r[3 * i] * l[0] + g->r[3 * i + 1] * l[1] + g->r[3 * i + 2] * l[2] + g->p[i];
    }
}

/* Closest point of g's solid to the world point p. */
static void closest(const Geo *g, const double p[3], double out[3])
{
    const double *s = g->b->size;
    if (is_shape(g->b, "plane")) {
        double nl = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        double dd = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2] - s[3]) / nl;
        for (int i = 0; i < 3; ++i) {
            out[i] = p[i] - (dd > 0 ? dd : 0) * s[i] / nl;
        }
        return;
    }
    double l[3], c[3];
    to_local(g, p, l);
    if (is_shape(g->b, "box")) {
        for (int i = 0; i < 3; ++i) {
            c[i] = fmax(-0.5 * s[i], fmin(0.5 * s[i], l[i]));
        }
    } else if (is_shape(g->b, "sphere") || is_shape(g->b, "capsule")) {
        double hl = is_shape(g->b, "capsule") ? 0.5 * s[1] : 0;
        double a[3] = {0, 0, fmax(-hl, fmin(hl, l[2]))};
        double d[3] = {l[0] - a[0], l[1] - a[1], l[2] - a[2]};
        double dn = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double k = dn > s[0] ? s[0] / dn : 1;
        for (int i = 0; i < 3; ++i) {
            c[i] = a[i] + k * d[i];
        }
    } else { /* cylinder */
        double rr = sqrt(l[0] * l[0] + l[1] * l[1]);
        double k = rr > s[0] ? s[0] / rr : 1;
        c[0] = l[0] * k, c[1] = l[1] * k, c[2] = fmax(-0.5 * s[1], fmin(0.5 * s[1], l[2]));
    }
    to_world(g, c, out);
}

static double dist3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* Contacts of a's features (corners, rim points, sphere caps) with b's solid. */
static int contacts_one_way(const Geo *a, const Geo *b, double (*out)[3], int n)
{
    const double *s = a->b->size;
    double pts[24][3], rad[24];
    int np = 0;
    if (is_shape(a->b, "box")) {
        for (int k = 0; k < 8; ++k, ++np) {
            double l[3] = {(k & 1 ? 0.5 : -0.5) * s[0], (k & 2 ? 0.5 : -0.5) * s[1], (k & 4 ? 0.5 : -0.5) * s[2]};
            to_world(a, l, pts[np]);
            rad[np] = 0;
        }
    } else if (is_shape(a->b, "sphere")) {
        memcpy(pts[0], a->p, sizeof pts[0]);
        rad[0] = s[0];
        np = 1;
    } else if (is_shape(a->b, "capsule")) {
        for (int e = -1; e <= 1; e += 2, ++np) {
            double l[3] = {0, 0, 0.5 * e * s[1]};
            to_world(a, l, pts[np]);
            rad[np] = s[0];
        }
    } else if (is_shape(a->b, "cylinder")) {
        for (int k = 0; k < 16; ++k, ++np) {
            double ang = 2 * TP_PI * (k % 8) / 8;
            double l[3] = {s[0] * cos(ang), s[0] * sin(ang), (k < 8 ? -0.5 : 0.5) * s[1]};
            to_world(a, l, pts[np]);
            rad[np] = 0;
        }
    }
    for (int k = 0; k < np && n < MAX_CONTACTS; ++k) {
        double c[3];
        closest(b, pts[k], c);
        if (dist3(c, pts[k]) < rad[k] + CONTACT_TOL) {
            memcpy(out[n++], c, sizeof c);
        }
    }
    return n;
}

/* Fills out (MAX_CONTACTS) with approximate contact points at time t; returns the count. */
static int find_contacts(const tpVScene *sc, double t, double (*out)[3])
{
    const tpPlanRecord *rec = sc->rec;
    Geo *g = malloc((size_t)(rec->nbodies > 0 ? rec->nbodies : 1) * sizeof *g);
    if (!g) {
        return 0;
    }
    for (int b = 0; b < rec->nbodies; ++b) {
        double p[3], q[4];
        tpView_BodyPose(rec, sc->world < 0 ? 0 : sc->world, b, t, p, q);
        geo_make(&g[b], &rec->bodies[b], p, q);
    }
    int n = 0;
    for (int i = 0; i < rec->nbodies && n < MAX_CONTACTS; ++i) {
        if (!rec->bodies[i].moving) {
            continue;
        }
        for (int j = 0; j < rec->nbodies && n < MAX_CONTACTS; ++j) {
            if (j == i || (rec->bodies[j].moving && j < i)) {
                continue; /* each moving pair once; moving-static pairs always */
            }
            if (isfinite(g[j].radius) && dist3(g[i].p, g[j].p) > g[i].radius + g[j].radius + CONTACT_TOL) {
                continue;
            }
            n = contacts_one_way(&g[i], &g[j], out, n);
            if (!is_shape(g[j].b, "plane")) {
                n = contacts_one_way(&g[j], &g[i], out, n);
            }
        }
    }
    free(g);
    return n;
}

int tpVScene_ContactCount(const tpVScene *sc, double t)
{
    double(*pts)[3] = malloc(MAX_CONTACTS * sizeof *pts);
    int n = pts ? find_contacts(sc, t, pts) : 0;
    free(pts);
    return n;
}

static void draw_contacts(const tpVScene *sc, double t)
{
    double(*pts)[3] = malloc(MAX_CONTACTS * sizeof *pts);
    if (!pts) {
        return;
    }
    int n = find_contacts(sc, t, pts);
    glDisable(GL_LIGHTING);
    glDisable(GL_DEPTH_TEST);
    glPointSize(7);
    glColor4f(1, 0.1f, 0.1f, 1);
    glBegin(GL_POINTS);
    for (int i = 0; i < n; ++i) {
        glVertex3dv(pts[i]);
    }
    glEnd();
    glEnable(GL_DEPTH_TEST);
    free(pts);
}

static bool cam_equal(const tpViewCamera *a, const tpViewCamera *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* Makes sure the cache texture exists at the frame's size; false if no framebuffer can be made. */
static bool cache_alloc(tpVScene *sc, int w, int h)
{
    if (sc->cache_fbo && sc->cache_w == w && sc->cache_h == h) {
        return true;
    }
    if (!sc->cache_fbo) {
        glGenFramebuffers(1, &sc->cache_fbo);
        glGenTextures(1, &sc->cache_tex);
        glGenRenderbuffers(1, &sc->cache_depth);
    }
    glBindTexture(GL_TEXTURE_2D, sc->cache_tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    glBindRenderbuffer(GL_RENDERBUFFER, sc->cache_depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, sc->cache_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, sc->cache_tex, 0);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, sc->cache_depth);
    bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    sc->cache_w = w, sc->cache_h = h;
    sc->cache_valid = false;
    return ok;
}

static void set_camera(const tpVFrame *f)
{
    float view[16], proj[16];
    tpViewCamera_Matrices(&f->cam, f->width, f->height, view, proj);
    glMatrixMode(GL_PROJECTION);
    glLoadMatrixf(proj);
    glMatrixMode(GL_MODELVIEW);
    glLoadMatrixf(view);
}

/* Tree segments added to the cache per frame when drawing progressively (about 40 ms under
   llvmpipe): a huge tree fills in over a few frames instead of freezing the window. */
#define CHUNK_SEGMENTS 150000

/* Brings the cached static layers up to date. When the camera, size, layers or data changed, the
   cache is cleared and the whole trails are drawn; then the tree is added in node order (so a
   partly drawn tree is the tree as it was earlier in the search): all at once, or CHUNK_SEGMENTS
   per frame when f->progressive. The texture holds premultiplied colour over transparency. */
static void cache_update(tpVScene *sc, const tpVFrame *f, GLint target_fbo)
{
    bool same = sc->cache_valid && sc->cache_w == f->width && sc->cache_h == f->height &&
                cam_equal(&sc->cache_cam, &f->cam) && sc->cache_tree == f->tree && sc->cache_trails == f->trails &&
                sc->cache_generation == sc->generation;
    int64_t total = f->tree && sc->has_tree ? sc->tree_nnodes : 0;
    if (same && sc->cache_progress >= total) {
        return;
    }
    if (!cache_alloc(sc, f->width, f->height)) {
        sc->cache_valid = false;
        glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)target_fbo);
        return;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, sc->cache_fbo);
    glViewport(0, 0, f->width, f->height);
    set_camera(f);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glEnableClientState(GL_VERTEX_ARRAY);
    if (!same) {
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        if (f->trails) {
            draw_trails(sc, 0, true);
        }
        sc->cache_progress = 0;
        sc->cache_valid = true;
        sc->cache_cam = f->cam;
        sc->cache_tree = f->tree;
        sc->cache_trails = f->trails;
        sc->cache_generation = sc->generation;
    }
    if (sc->cache_progress < total) {
        int64_t per = CHUNK_SEGMENTS / (sc->tree_nbodies > 0 ? sc->tree_nbodies : 1);
        int64_t to = f->progressive ? sc->cache_progress + (per > 1 ? per : 1) : total;
        to = to < total ? to : total;
        draw_tree_range(sc, sc->cache_progress, to);
        sc->cache_progress = to;
        if (to == total) {
            draw_tree_solution(sc); /* on top of the whole tree */
        }
    }
    glDisableClientState(GL_VERTEX_ARRAY);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)target_fbo);
}

static void cache_compose(const tpVScene *sc)
{
    glMatrixMode(GL_PROJECTION);
    glPushMatrix();
    glLoadIdentity();
    glMatrixMode(GL_MODELVIEW);
    glPushMatrix();
    glLoadIdentity();
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_LIGHTING);
    glEnable(GL_TEXTURE_2D);
    glBindTexture(GL_TEXTURE_2D, sc->cache_tex);
    glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_REPLACE);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glBegin(GL_QUADS);
    glTexCoord2f(0, 0), glVertex2f(-1, -1);
    glTexCoord2f(1, 0), glVertex2f(1, -1);
    glTexCoord2f(1, 1), glVertex2f(1, 1);
    glTexCoord2f(0, 1), glVertex2f(-1, 1);
    glEnd();
    glBindTexture(GL_TEXTURE_2D, 0);
    glDisable(GL_TEXTURE_2D);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glEnable(GL_DEPTH_TEST);
    glMatrixMode(GL_PROJECTION);
    glPopMatrix();
    glMatrixMode(GL_MODELVIEW);
    glPopMatrix();
}

void tpVScene_Draw(tpVScene *sc, const tpVFrame *f)
{
    TP_VALIDATE(tpVFrame_Valid, f);
    TP_VALIDATE(tpVScene_Valid, sc);
    const tpPlanRecord *rec = sc->rec;
    GLint target_fbo = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target_fbo);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    tpViewCamera_Eye(&f->cam, sc->eye);
    sc->px_per_rad = 0.5 * f->height / tan(f->cam.fovy / 2);
    bool cached = (f->tree && sc->has_tree) || (f->trails && sc->world >= 0);
    if (cached) {
        cache_update(sc, f, target_fbo);
    }
    glViewport(0, 0, f->width, f->height);
    glClearColor(0.13f, 0.14f, 0.17f, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    set_camera(f);

    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glEnable(GL_NORMALIZE);
    glEnable(GL_COLOR_MATERIAL);
    glColorMaterial(GL_FRONT_AND_BACK, GL_AMBIENT_AND_DIFFUSE);
    glShadeModel(GL_SMOOTH);
    const float amb[4] = {0.30f, 0.30f, 0.32f, 1}, key[4] = {0.75f, 0.75f, 0.72f, 1},
                fill[4] = {0.20f, 0.22f, 0.25f, 1};
    const float keydir[4] = {0.35f, -0.55f, 1.0f, 0}, filldir[4] = {-0.5f, 0.6f, 0.4f, 0}, none[4] = {0, 0, 0, 1};
    glLightModelfv(GL_LIGHT_MODEL_AMBIENT, amb);
    glLightModeli(GL_LIGHT_MODEL_TWO_SIDE, GL_TRUE);
    glEnable(GL_LIGHT0);
    glLightfv(GL_LIGHT0, GL_POSITION, keydir); /* set under the view matrix: world-fixed lights */
    glLightfv(GL_LIGHT0, GL_DIFFUSE, key);
    glLightfv(GL_LIGHT0, GL_AMBIENT, none);
    glEnable(GL_LIGHT1);
    glLightfv(GL_LIGHT1, GL_POSITION, filldir);
    glLightfv(GL_LIGHT1, GL_DIFFUSE, fill);
    glLightfv(GL_LIGHT1, GL_AMBIENT, none);

    glEnableClientState(GL_VERTEX_ARRAY);
    draw_ground(sc);
    if (f->nav && rec->noverlays > 0) {
        tpVNav_Draw(sc, f); /* on the ground, under the trails, the tree and the bodies */
    }
    if (cached && sc->cache_valid) {
        cache_compose(sc); /* tree and whole trails over the ground, under the bodies */
    }

    glEnable(GL_LIGHTING);
    glEnableClientState(GL_NORMAL_ARRAY);
    int world = sc->world < 0 ? 0 : sc->world;
    for (int b = 0; b < rec->nbodies; ++b) {
        const tpPlanBody *pb = &rec->bodies[b];
        if (is_shape(pb, "plane")) {
            continue;
        }
        double p[3], q[4];
        tpView_BodyPose(rec, world, b, f->t, p, q);
        draw_body(sc, pb, p, q);
    }
    glDisableClientState(GL_NORMAL_ARRAY);
    glDisable(GL_LIGHTING);
    if (f->goal) {
        draw_goal(sc);
    }
    if (f->joints && rec->njoints > 0) {
        draw_joints(sc, world, f->t);
    }

    if (f->trails) {
        draw_trails(sc, f->t, false);
    }
    if (f->contacts) {
        draw_contacts(sc, f->t);
    }
    glDisableClientState(GL_VERTEX_ARRAY);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}
