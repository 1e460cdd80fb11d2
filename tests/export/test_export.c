/* Unit tests of the exporter's pieces (export/): the y-up conversion, quaternion continuity, the
 * keyframe reducer's guarantee (checked by an independent evaluation), a synthetic plan written as
 * GLB / glTF and read back (animation within the tolerance at every step), the CSV round trip bit
 * for bit, and failures that leave no file behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glb_read.h"
#include "tp/export.h"
#include "tp/mathx.h"

#define TP_TEST_PI 3.14159265358979323846

static uint64_t lcg_state = 12345;
static double rnd(void) /* deterministic uniform [0, 1) */
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg_state >> 11) / 9007199254740992.0;
}

static void quat_rotate(const double q[4], const double v[3], double out[3]) /* q = (w, x, y, z) */
{
    double r[9];
    tpQuat_ToMatrix(q, r);
    for (int i = 0; i < 3; ++i) {
        out[i] = r[3 * i] * v[0] + r[3 * i + 1] * v[1] + r[3 * i + 2] * v[2];
    }
}

static void random_quat(double q[4])
{
    double n = 0;
    for (int k = 0; k < 4; ++k) {
        q[k] = rnd() * 2 - 1;
        n += q[k] * q[k];
    }
    for (int k = 0; k < 4; ++k) {
        q[k] /= sqrt(n);
    }
}

static void test_yup(void **state)
{
    (void)state;
    double v[3] = {1, 2, 3}, y[3];
    tpExport_VecToYup(v, y);
    assert_true(y[0] == 1 && y[1] == 3 && y[2] == -2); /* z up becomes y up, y becomes -z (Blender) */
    /* 90 degrees about z (up) becomes 90 degrees about y (up) */
    double qz[4] = {cos((TP_TEST_PI / 4)), 0, 0, sin((TP_TEST_PI / 4))}, qy[4];
    tpExport_QuatToYup(qz, qy);
    assert_true(fabs(qy[0]) < 1e-15 && fabs(qy[1] - sin((TP_TEST_PI / 4))) < 1e-15 && fabs(qy[2]) < 1e-15 &&
                fabs(qy[3] - cos((TP_TEST_PI / 4))) < 1e-15);
    /* for any rotation and point: converting the rotated point = rotating the converted point */
    for (int it = 0; it < 1000; ++it) {
        double q[4], p[3] = {rnd() - 0.5, rnd() - 0.5, rnd() - 0.5}, rp[3], a[3], cp[3], b[3], g[4];
        random_quat(q);
        quat_rotate(q, p, rp);
        tpExport_VecToYup(rp, a);
        tpExport_QuatToYup(q, g);
        double gw[4] = {g[3], g[0], g[1], g[2]};
        assert_true(fabs(gw[0] * gw[0] + gw[1] * gw[1] + gw[2] * gw[2] + gw[3] * gw[3] - 1) < 1e-14);
        tpExport_VecToYup(p, cp);
        quat_rotate(gw, cp, b);
        for (int k = 0; k < 3; ++k) {
            assert_true(fabs(a[k] - b[k]) < 1e-14);
        }
    }
}

static void test_quat_continuity(void **state)
{
    (void)state;
    enum { N = 400 };
    double q[N * 4], orig[N * 4];
    for (int i = 0; i < N; ++i) { /* a spin of 20 turns about a tilted axis, signs flipped at random */
        double a = 20 * 2 * TP_TEST_PI * i / N / 2, s = rnd() < 0.5 ? -1 : 1;
        double ax[3] = {0.6, 0, 0.8};
        q[4 * i] = s * cos(a);
        for (int k = 0; k < 3; ++k) {
            q[4 * i + 1 + k] = s * sin(a) * ax[k];
        }
    }
    memcpy(orig, q, sizeof q);
    tpExport_QuatContinuity(q, N);
    for (int i = 0; i < N; ++i) {
        double same = 0, dot = 0;
        for (int k = 0; k < 4; ++k) {
            same += q[4 * i + k] * orig[4 * i + k];
            dot += i ? q[4 * i + k] * q[4 * (i - 1) + k] : 1;
        }
        assert_true(fabs(fabs(same) - 1) < 1e-12); /* the same rotation */
        assert_true(dot > 0);                      /* no flip between neighbours */
    }
    tpExport_QuatContinuity(NULL, 0);
}

/* Independent evaluation of kept keys: LINEAR between the bracketing kept keys at each sample. */
static double eval_error(tpKeyChannel ch, const float *t, const float *st, const double *ex, const uint8_t *keep, int n)
{
    int a = 0;
    double worst = 0;
    for (int b = 1; b < n; ++b) {
        if (!keep[b]) {
            continue;
        }
        for (int i = a; i <= b; ++i) {
            double u = ((double)t[i] - t[a]) / ((double)t[b] - t[a]);
            if (ch == TP_KEYS_TRANSLATION) {
                double d = 0;
                for (int k = 0; k < 3; ++k) {
                    double v = st[3 * a + k] + u * ((double)st[3 * b + k] - st[3 * a + k]) - ex[3 * i + k];
                    d += v * v;
                }
                worst = fmax(worst, sqrt(d));
            } else {
                double A[4], B[4], dot = 0, na = 0, nb = 0;
                for (int k = 0; k < 4; ++k) {
                    A[k] = st[4 * a + k], B[k] = st[4 * b + k];
                    na += A[k] * A[k], nb += B[k] * B[k];
                }
                for (int k = 0; k < 4; ++k) {
                    A[k] /= sqrt(na), B[k] /= sqrt(nb);
                    dot += A[k] * B[k];
                }
                assert_true(dot >= 0); /* kept keys are sign-continuous */
                double th = acos(fmin(1, dot)), wa = 1 - u, wb = u, s[4], l = 0, e = 0;
                if (th > 1e-9) {
                    wa = sin((1 - u) * th) / sin(th), wb = sin(u * th) / sin(th);
                }
                for (int k = 0; k < 4; ++k) {
                    s[k] = wa * A[k] + wb * B[k];
                    l += s[k] * s[k];
                }
                for (int k = 0; k < 4; ++k) {
                    e += s[k] / sqrt(l) * ex[4 * i + k];
                }
                worst = fmax(worst, 2 * acos(fmin(1, fabs(e))));
            }
        }
        a = b;
    }
    return worst;
}

static void test_reduce_guarantee(void **state)
{
    (void)state;
    enum { N = 1200 };
    float *t = malloc(sizeof(float) * N), *st = malloc(sizeof(float) * 4 * N);
    double *ex = malloc(sizeof(double) * 4 * N);
    uint8_t *keep = malloc(N);
    double dt = 1.0 / 60;
    for (int i = 0; i < N; ++i) {
        t[i] = (float)(i * dt);
    }
    const double tols[] = {1e-2, 1e-3, 1e-4, 1e-5};
    for (int trial = 0; trial < 6; ++trial) {
        /* translation: a bouncing ball with friction, rests, then jitter (a die settling) */
        double p[3] = {0, 0, 1}, v[3] = {rnd() * 4 - 2, rnd() * 4 - 2, 0};
        for (int i = 0; i < N; ++i) {
            for (int k = 0; k < 3; ++k) {
                p[k] += v[k] * dt;
            }
            v[2] -= 9.81 * dt;
            if (p[2] < 0) {
                p[2] = -p[2], v[2] = -0.7 * v[2], v[0] *= 0.9, v[1] *= 0.9;
            }
            double jit = i > 900 ? 1e-5 * (rnd() - 0.5) * (trial + 1) : 0;
            ex[3 * i] = p[0] + jit, ex[3 * i + 1] = p[2], ex[3 * i + 2] = -p[1];
        }
        for (int i = 0; i < 3 * N; ++i) {
            st[i] = (float)ex[i];
        }
        for (size_t k = 0; k < sizeof tols / sizeof tols[0]; ++k) {
            double err;
            int kept = tpExport_ReduceKeys(TP_KEYS_TRANSLATION, t, st, ex, N, tols[k], keep, &err);
            assert_true(keep[0] && keep[N - 1]);
            int count = 0;
            for (int i = 0; i < N; ++i) {
                count += keep[i];
            }
            assert_int_equal(count, kept);
            double check = eval_error(TP_KEYS_TRANSLATION, t, st, ex, keep, N);
            assert_true(check <= tols[k]);
            assert_true(fabs(check - err) <= 1e-12);
            assert_true(kept < N || tols[k] < 1e-3); /* it does reduce (no chord within 1e-4 of a fall) */
        }
        /* rotation: a spin with a varying rate about a wobbling axis, including fast turns */
        double ang = 0;
        for (int i = 0; i < N; ++i) {
            double rate = 3 + 20 * sin(i * 0.01 * (trial + 1)) * sin(i * 0.01 * (trial + 1));
            ang += rate * dt;
            double ax[3] = {sin(i * 0.003), cos(i * 0.003), 0.3}, n = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + 0.09);
            ex[4 * i + 3] = cos(ang / 2);
            for (int k = 0; k < 3; ++k) {
                ex[4 * i + k] = sin(ang / 2) * ax[k] / n;
            }
        }
        for (int i = 1; i < N; ++i) { /* continuity as the writer does it */
            double d = 0;
            for (int k = 0; k < 4; ++k) {
                d += ex[4 * i + k] * ex[4 * i - 4 + k];
            }
            for (int k = 0; d < 0 && k < 4; ++k) {
                ex[4 * i + k] = -ex[4 * i + k];
            }
        }
        for (int i = 0; i < 4 * N; ++i) {
            st[i] = (float)ex[i];
        }
        for (size_t k = 0; k < sizeof tols / sizeof tols[0]; ++k) {
            double err;
            int kept = tpExport_ReduceKeys(TP_KEYS_ROTATION, t, st, ex, N, tols[k], keep, &err);
            assert_true(keep[0] && keep[N - 1]);
            double check = eval_error(TP_KEYS_ROTATION, t, st, ex, keep, N);
            assert_true(check <= tols[k] + 1e-7); /* acos above loses ~1e-8 near 0 */
            assert_true(err <= tols[k]);
            assert_true(kept < N || tols[k] < 1e-4);
        }
    }
    /* tolerance 0 keeps every key; one sample keeps one */
    assert_int_equal(tpExport_ReduceKeys(TP_KEYS_TRANSLATION, t, st, ex, N, 0, keep, NULL), N);
    assert_int_equal(tpExport_ReduceKeys(TP_KEYS_TRANSLATION, t, st, ex, 1, 1e-3, keep, NULL), 1);
    free(t), free(st), free(ex), free(keep);
}

/* A small synthetic plan: a ground plane, a static box, a thrown spinning ball, a sliding
 * capsule; two worlds. */
static void make_plan(tpPlanRecord *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->domain_name = strdup("synthetic");
    rec->domain_file = strdup("synthetic.lua");
    rec->domain_hash = strdup("fnv1a64:0000000000000000");
    rec->planner = strdup("bgt");
    rec->status = strdup("solved");
    rec->dt = 1.0 / 60;
    rec->nbodies = 4;
    rec->bodies = calloc(4, sizeof *rec->bodies);
    const char *names[] = {"ground", "crate", "ball", "pill"}, *cls[] = {"static", "static", "active", "passive"},
               *shapes[] = {"plane", "box", "sphere", "capsule"};
    double sizes[4][4] = {{0, 0, 1, 0}, {0.5, 0.3, 0.2, 0}, {0.1, 0, 0, 0}, {0.05, 0.2, 0, 0}};
    for (int b = 0; b < 4; ++b) {
        tpPlanBody *pb = &rec->bodies[b];
        pb->name = strdup(names[b]);
        pb->cls = strdup(cls[b]);
        pb->shape = strdup(shapes[b]);
        memcpy(pb->size, sizes[b], sizeof pb->size);
        pb->color[0] = 0.2f * (float)b, pb->color[1] = 0.5f, pb->color[2] = 0.8f, pb->color[3] = 1;
        pb->moving = b >= 2;
        pb->controlled = b == 2;
        pb->pose[3] = 1;
        pb->pose[0] = b == 1 ? 1.5 : 0, pb->pose[2] = b == 1 ? 0.1 : 0;
    }
    rec->ntactics = 1;
    rec->tactics = calloc(1, sizeof *rec->tactics);
    rec->tactics[0].name = strdup("throw");
    rec->tactics[0].body = strdup("ball");
    rec->tactics[0].nskills = 2;
    rec->tactics[0].skills = calloc(2, sizeof(char *));
    rec->tactics[0].skills[0] = strdup("wait");
    rec->tactics[0].skills[1] = strdup("kick");
    rec->nworlds = 2;
    rec->worlds = calloc(2, sizeof *rec->worlds);
    for (int w = 0; w < 2; ++w) {
        int n = w ? 150 : 240;
        assert_true(tpPlanWorld_Alloc(&rec->worlds[w], rec, n));
        rec->worlds[w].cost = n;
        for (int i = 0; i <= n; ++i) {
            double t = i * rec->dt;
            double *s = rec->worlds[w].traj[2] + (size_t)i * TP_STATE_DOUBLES;
            s[0] = (1 + w) * t, s[1] = 0.3 * t, s[2] = 0.1 + fabs(2 * t - 4.9 * t * t * (1 - 0.1 * t));
            double a = 9 * t; /* spinning */
            s[3] = cos(a / 2), s[4] = 0, s[5] = sin(a / 2), s[6] = 0;
            s[7] = 1 + w;
            double *c = rec->worlds[w].traj[3] + (size_t)i * TP_STATE_DOUBLES;
            c[0] = -1 + 0.5 * t, c[1] = 0.2 * sin(t), c[2] = 0.05, c[3] = cos(t), c[6] = sin(t);
            if (i < n) {
                double *u = rec->worlds[w].controls[2] + (size_t)i * TP_CONTROL_DOUBLES;
                u[0] = i == 3 ? -0.0 : 0.1 * i, u[1] = 1e-300, u[2] = 5e-324, u[3] = 0.1, u[4] = -1.0 / 3;
                rec->worlds[w].active[0][i] = i > 10;
            }
        }
    }
}

static char tmpdir[256];

static void path_in(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", tmpdir, name);
}

static int count_hidden(void) /* temporary files left behind ('.name.XXXXXX') */
{
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        n += e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    }
    closedir(d);
    return n;
}

static void test_gltf_roundtrip(void **state)
{
    (void)state;
    tpPlanRecord rec;
    make_plan(&rec);
    char path[512], err[512];
    const double tols[] = {0, 1e-4, 1e-3};
    for (int fmt = 0; fmt < 2; ++fmt) {
        for (size_t k = 0; k < 3; ++k) {
            tpExportDef def = tpDefaultExportDef();
            def.format = fmt ? TP_EXPORT_GLTF : TP_EXPORT_GLB;
            def.tolerance = tols[k];
            def.alternatives = true;
            path_in(path, sizeof path, fmt ? "s.gltf" : "s.glb");
            tpExportStats st;
            assert_true(tpExport_Write(&rec, path, &def, &st, err, sizeof err));
            assert_int_equal(st.nodes, 4);
            assert_int_equal(st.animations, 2);
            assert_true(st.keys_full == 2 * (241 + 151) * 2);
            assert_true(tols[k] == 0 ? st.keys_kept == st.keys_full : st.keys_kept < st.keys_full / 2);
            tpTestGltf g;
            assert_true(tpTestGltf_Load(&g, path, err, sizeof err));
            const cJSON *nodes = cJSON_GetObjectItem(g.json, "nodes");
            assert_int_equal(cJSON_GetArraySize(nodes), 4);
            for (int b = 0; b < 4; ++b) {
                assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, b), "name")),
                                    rec.bodies[b].name);
            }
            double scale[4] = {0, 0, 0.1, 0.15};
            for (int a = 0; a < 2; ++a) {
                double pe, ae;
                assert_true(tpTestGltf_AnimError(&g, a, &rec, a, scale, &pe, &ae, err, sizeof err));
                double bound = tols[k] > 0 ? tols[k] : 1e-5; /* float32 of coordinates up to ~80 m */
                if (!(pe <= bound && ae <= bound * (1 + 1e-9))) {
                    print_message("format %d tol %g anim %d: pos %g ang %g\n", fmt, tols[k], a, pe, ae);
                }
                assert_true(pe <= bound);
                assert_true(ae <= bound * (1 + 1e-9));
            }
            /* the static crate's node holds its pose, converted to y-up */
            const cJSON *tr = cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 1), "translation");
            assert_true(cJSON_GetArrayItem(tr, 0)->valuedouble == 1.5 && cJSON_GetArrayItem(tr, 1)->valuedouble == 0.1);
            /* the ground plane's node: its quad's frame (local y = the normal, +z up here: glTF +y),
               with a KHR_implicit_shapes plane collider (OMI_physics_shape has no plane) */
            const cJSON *ground = cJSON_GetArrayItem(nodes, 0);
            const cJSON *gq = cJSON_GetObjectItem(ground, "rotation");
            assert_non_null(cJSON_GetObjectItem(ground, "translation"));
            assert_true(fabs(cJSON_GetArrayItem(gq, 0)->valuedouble) < 1e-12 &&
                        fabs(cJSON_GetArrayItem(gq, 2)->valuedouble) < 1e-12); /* about y only: y stays y */
            const cJSON *gx =
                cJSON_GetObjectItem(cJSON_GetObjectItem(ground, "extensions"), "KHR_physics_rigid_bodies");
            assert_non_null(cJSON_GetObjectItem(gx, "collider"));
            tpTestGltf_Free(&g);
        }
    }
    assert_int_equal(count_hidden(), 0);
    tpPlanRecord_Free(&rec);
}

/* The mesh of node `name`: its primitives (NULL if it has no mesh). */
static const cJSON *node_prims(const tpTestGltf *g, const char *name)
{
    const cJSON *nodes = cJSON_GetObjectItem(g->json, "nodes"), *n;
    cJSON_ArrayForEach(n, nodes)
    {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(n, "name")), name) == 0) {
            const cJSON *mi = cJSON_GetObjectItem(n, "mesh");
            const cJSON *meshes = cJSON_GetObjectItem(g->json, "meshes");
            return mi ? cJSON_GetObjectItem(cJSON_GetArrayItem(meshes, mi->valueint), "primitives") : NULL;
        }
    }
    return NULL;
}

/* Dice: a moving cube of the dice domain gets a second primitive, its pips (21 discs of
 * 13 vertices, six on local +z, which is glTF's +y, one on -z); a static box does not, and the same
 * cube in another domain does not. */
static void test_gltf_dice(void **state)
{
    (void)state;
    char path[512], err[512];
    for (int dice = 0; dice < 2; ++dice) {
        tpPlanRecord rec;
        make_plan(&rec);
        free(rec.domain_name);
        rec.domain_name = strdup(dice ? "dice" : "synthetic");
        tpPlanBody *pill = &rec.bodies[3];
        free(pill->shape);
        pill->shape = strdup("box");
        pill->size[0] = pill->size[1] = pill->size[2] = 0.1, pill->size[3] = 0;
        tpExportDef def = tpDefaultExportDef();
        path_in(path, sizeof path, "dice.glb");
        tpExportStats st;
        assert_true(tpExport_Write(&rec, path, &def, &st, err, sizeof err));
        tpTestGltf g;
        assert_true(tpTestGltf_Load(&g, path, err, sizeof err));
        assert_int_equal(cJSON_GetArraySize(node_prims(&g, "crate")), 1);
        const cJSON *prims = node_prims(&g, "pill");
        assert_int_equal(cJSON_GetArraySize(prims), dice ? 2 : 1);
        if (dice) {
            const cJSON *pr = cJSON_GetArrayItem(prims, 1);
            int count, ncomp;
            double *pos = tpTestGltf_Accessor(
                &g, cJSON_GetObjectItem(cJSON_GetObjectItem(pr, "attributes"), "POSITION")->valueint, &count, &ncomp);
            assert_non_null(pos);
            assert_int_equal(count, 21 * 13);
            int top = 0, bottom = 0;
            for (int i = 0; i < count; ++i) {
                top += pos[3 * i + 1] > 0.05, bottom += pos[3 * i + 1] < -0.05;
                for (int c = 0; c < 3; ++c) {
                    assert_true(fabs(pos[3 * i + c]) <= 0.0504); /* on the die, just above its faces */
                }
            }
            assert_int_equal(top, 6 * 13);
            assert_int_equal(bottom, 1 * 13);
            free(pos);
            /* the pips' material is white on this dark die */
            int mat = cJSON_GetObjectItem(pr, "material")->valueint;
            const cJSON *f = cJSON_GetObjectItem(
                cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(g.json, "materials"), mat),
                                    "pbrMetallicRoughness"),
                "baseColorFactor");
            assert_true(cJSON_GetArrayItem(f, 0)->valuedouble > 0.8);
        }
        tpTestGltf_Free(&g);
        tpPlanRecord_Free(&rec);
    }
}

static void test_csv_roundtrip(void **state)
{
    (void)state;
    tpPlanRecord rec;
    make_plan(&rec);
    char dir[512], path[600], err[512], line[4096];
    path_in(dir, sizeof dir, "csv");
    tpExportDef def = tpDefaultExportDef();
    def.format = TP_EXPORT_CSV;
    def.world = 1;
    assert_true(tpExport_Write(&rec, dir, &def, NULL, err, sizeof err));
    snprintf(path, sizeof path, "%s/controls.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "step,t,body,fx,fy,fz,tx,ty,tz,tactic,skill\n");
    const tpPlanWorld *w = &rec.worlds[1];
    for (int i = 0; i < w->nsteps; ++i) {
        assert_non_null(fgets(line, sizeof line, f));
        char *fl[16] = {0}, *p = line;
        int n = 0;
        line[strcspn(line, "\n")] = 0;
        while (n < 16) { /* split at commas (no quoted fields here) */
            fl[n++] = p;
            p = strchr(p, ',');
            if (!p) {
                break;
            }
            *p++ = 0;
        }
        assert_true(n >= 11);
        assert_int_equal(atoi(fl[0]), i);
        double t = strtod(fl[1], NULL), want = i * rec.dt;
        assert_memory_equal(&t, &want, sizeof t);
        assert_string_equal(fl[2], "ball");
        for (int k = 0; k < 6; ++k) {
            double v = strtod(fl[3 + k], NULL);
            assert_memory_equal(&v, &w->controls[2][i * 6 + k], sizeof v); /* -0, 1e-300, 5e-324 too */
        }
        assert_string_equal(fl[9], "throw");
        assert_string_equal(fl[10], i > 10 ? "kick" : "wait");
    }
    assert_null(fgets(line, sizeof line, f));
    fclose(f);
    snprintf(path, sizeof path, "%s/states.csv", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        ++rows;
    }
    fclose(f);
    assert_int_equal(rows, 1 + (w->nsteps + 1) * 2); /* header + two moving bodies per state */
    tpPlanRecord_Free(&rec);
}

static void test_no_partial_file(void **state)
{
    (void)state;
    tpPlanRecord rec;
    make_plan(&rec);
    char path[512], err[512];
    tpExportDef def = tpDefaultExportDef();
    assert_false(tpExport_Write(&rec, "/nonexistent-dir/x.glb", &def, NULL, err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent-dir/x.glb"));
    /* the output is an existing directory: rename fails, the temporary file is removed */
    path_in(path, sizeof path, "adir");
    mkdir(path, 0777);
    assert_false(tpExport_Write(&rec, path, &def, NULL, err, sizeof err));
    assert_int_equal(count_hidden(), 0);
    /* an existing file is kept when the export fails (here: a bad --world) */
    path_in(path, sizeof path, "keep.glb");
    FILE *f = fopen(path, "w");
    fputs("old", f);
    fclose(f);
    def.world = 5;
    assert_false(tpExport_Write(&rec, path, &def, NULL, err, sizeof err));
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_size, 3);
    /* CSV into a path that is a file */
    def = tpDefaultExportDef();
    def.format = TP_EXPORT_CSV;
    assert_false(tpExport_Write(&rec, path, &def, NULL, err, sizeof err));
    assert_int_equal(count_hidden(), 0);
    tpPlanRecord_Free(&rec);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "test_export_tmp_%d", (int)getpid());
    mkdir(tmpdir, 0777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yup),
        cmocka_unit_test(test_quat_continuity),
        cmocka_unit_test(test_reduce_guarantee),
        cmocka_unit_test(test_gltf_roundtrip),
        cmocka_unit_test(test_gltf_dice),
        cmocka_unit_test(test_csv_roundtrip),
        cmocka_unit_test(test_no_partial_file),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (rc == 0) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) {
            fprintf(stderr, "could not remove %s\n", tmpdir);
        }
    }
    return rc;
}
