/* Allocation failures, taken one at a time: every file reader of tplan (plans, trees, tracks,
 * PBM/PGM images, meshes, glTF scenes) and the planner are run with the n-th allocation of
 * tplan's own code failing, for every n up to the number a successful run makes. Each run must
 * fail cleanly -- false or NULL with a message -- or succeed, never crash; the sanitizer build
 * (make test-asan, detect_leaks=1) fails the test on any leak of a failure path.
 *
 * The hook (fault_hook.c): this test is linked with -Wl,--wrap for malloc, calloc, realloc and
 * strdup, so every call to them from tplan's static libraries comes there first (SQLite's way: fail
 * at the n-th call). Allocations inside shared libraries (cJSON's parser, libc's own) are not
 * counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/mesh.h"
#include "tp/nav.h"
#include "tp/pattern.h"
#include "tp/plan.h"
#include "tp/planner.h"
#include "fault_hook.h"

/* The bytes of a file of the fuzz corpus (read without the hook). */
static char *corpus(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", TP_CORPUS, name);
    fault_reset(-1);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = __real_malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* One reader under every failing allocation: run(data, len, err) returns true on success and
   frees what it read in every case. */
typedef bool (*Reader)(const char *data, size_t len, char *err, size_t errlen);

static void every_failure(const char *file, Reader run)
{
    size_t len;
    char *data = corpus(file, &len);
    char err[1024];
    fault_reset(-1);
    assert_true(run(data, len, err, sizeof err)); /* the file reads when nothing fails */
    const long total = g_fault_calls;
    assert_true(total > 0);
    long failed = 0;
    for (long n = 1; n <= total; ++n) {
        err[0] = '\0';
        fault_reset(n);
        bool ok = run(data, len, err, sizeof err);
        fault_reset(-1);
        if (!ok) {
            ++failed;
            if (err[0] == '\0') {
                fail_msg("%s: allocation %ld of %ld failed without a message", file, n, total);
            }
        }
    }
    /* most failures must be reported (a few may hit allocations whose failure is survivable) */
    assert_true(failed * 2 >= total);
    printf("%s: %ld allocations, each failed once: %ld runs refused with a message, %ld coped\n", file, total, failed,
           total - failed);
    free(data);
}

/* A plan read while an allocation failed must be the plan read without failures: the readers'
   fallbacks (the duplicate check's quadratic scan, parsing without packed matrices) change
   nothing. The reference bytes are the record written back by a run without failures. */
static char *g_plan_ref;
static size_t g_plan_ref_len;

static bool read_plan(const char *data, size_t len, char *err, size_t errlen)
{
    tpPlanRecord rec;
    bool ok = tpPlanRecord_Parse(&rec, data, len, "plan.json", err, errlen);
    if (ok) {
        const long at = g_fault_at, calls = g_fault_calls;
        g_fault_at = -1; /* write back without failures, and without counting */
        char *out = NULL;
        size_t n = 0;
        assert_true(tpPlanRecord_WriteMem(&rec, &out, &n, err, errlen));
        if (!g_plan_ref) {
            g_plan_ref = out;
            g_plan_ref_len = n;
        } else {
            if (n != g_plan_ref_len || memcmp(out, g_plan_ref, n) != 0) {
                fail_msg("the plan read while allocation %ld failed differs from the plan read without failures", at);
            }
            free(out);
        }
        g_fault_at = at;
        g_fault_calls = calls;
    }
    tpPlanRecord_Free(&rec);
    return ok;
}

static void every_plan_failure(const char *file)
{
    free(g_plan_ref);
    g_plan_ref = NULL;
    every_failure(file, read_plan);
    free(g_plan_ref);
    g_plan_ref = NULL;
}

static bool read_track(const char *data, size_t len, char *err, size_t errlen)
{
    tpNavTrackFile *t = tpNavTrack_Parse(data, len, "track.json", err, errlen);
    tpNavTrack_Free(t);
    return t != NULL;
}

static bool read_pnm(const char *data, size_t len, char *err, size_t errlen)
{
    tpBitmap bm;
    memset(&bm, 0, sizeof bm);
    bool ok = tpBitmap_ParsePnm((const unsigned char *)data, len, "image.pgm", false, &bm, err, errlen);
    tpBitmap_Free(&bm);
    return ok;
}

/* (The mesh corpus' files start with a byte that picks the fuzz target's file name: skipped.) */
static bool read_mesh(const char *data, size_t len, char *err, size_t errlen, const char *name)
{
    ++data, --len;
    tpMeshLimits lim = tpDefaultMeshLimits();
    tpMesh m;
    memset(&m, 0, sizeof m);
    bool ok = tpMesh_Read(name, data, len, &lim, false, 1.0, &m, err, errlen);
    tpMesh_Free(&m);
    return ok;
}

static bool read_obj(const char *data, size_t len, char *err, size_t errlen)
{
    return read_mesh(data, len, err, errlen, "die.obj");
}

static bool read_stl(const char *data, size_t len, char *err, size_t errlen)
{
    return read_mesh(data, len, err, errlen, "die.stl");
}

static bool read_scene(const char *data, size_t len, char *err, size_t errlen)
{
    tpMeshLimits lim = tpDefaultMeshLimits();
    tpGltfScene sc;
    memset(&sc, 0, sizeof sc);
    bool ok = tpGltf_ReadScene("scene.glb", data + 1, len - 1, &lim, NULL, 0, &sc, err, errlen);
    tpGltfScene_Free(&sc);
    return ok;
}

static void test_plan_reader(void **state)
{
    (void)state;
    every_plan_failure("plan/minigolf.json");
    every_plan_failure("plan/sources.json");
    every_plan_failure("plan/goal.json");     /* the goal regions' allocations */
    every_plan_failure("plan/compound.json"); /* a compound's parts (plan version 4) */
}

static void test_other_readers(void **state)
{
    (void)state;
    every_failure("track/cornered_cars.json", read_track);
    every_failure("pnm/grey.pgm", read_pnm);
    every_failure("mesh/die_obj", read_obj);
    every_failure("mesh/die_stl", read_stl);
    every_failure("mesh/scene2_glb", read_scene);
    every_failure("mesh/omi_khr_mixed_gltf", read_scene);        /* KHR shapes, triggers, a tapered mesh */
    every_failure("mesh/omi_dynamic_compound_gltf", read_scene); /* a moving body of two colliders */
    every_failure("mesh/omi_static_compound_collider_gltf", read_scene);
    every_failure("mesh/omi_joints_gltf", read_scene);         /* every shape, OMI drafts' joints, a KHR plane */
    every_failure("mesh/khr_door_joint_gltf", read_scene);     /* KHR physicsJoints with a limit */
    every_failure("mesh/omi_pendulum_joint_gltf", read_scene); /* OMI physicsJoints, connectedNode */
}

/* The plan writer: a record read without failures, written to memory with each allocation failing. */
static void test_plan_writer(void **state)
{
    (void)state;
    size_t len;
    char *data = corpus("plan/maze.json", &len);
    char err[1024];
    tpPlanRecord rec;
    fault_reset(-1);
    assert_true(tpPlanRecord_Parse(&rec, data, len, "maze.json", err, sizeof err));
    char *out = NULL;
    size_t outlen = 0;
    fault_reset(-1);
    assert_true(tpPlanRecord_WriteMem(&rec, &out, &outlen, err, sizeof err));
    free(out);
    const long total = g_fault_calls;
    for (long n = 1; n <= total; ++n) {
        fault_reset(n);
        out = NULL;
        err[0] = '\0';
        bool ok = tpPlanRecord_WriteMem(&rec, &out, &outlen, err, sizeof err);
        fault_reset(-1);
        assert_true(ok || (out == NULL && err[0] != '\0'));
        free(out);
    }
    tpPlanRecord_Free(&rec);
    free(data);
}

/* A tiny planning problem: a point on a line, actions push it, the goal is x >= 1. */
typedef struct Line {
    double x;
} Line;

static void line_initial(void *ctx, void *x)
{
    (void)ctx;
    ((Line *)x)->x = 0;
}

static int line_control(void *ctx, const void *x, const double *y, tpRng *rng, void *xnew, double *a)
{
    (void)ctx, (void)x, (void)y, (void)xnew;
    *a = tpRng_Uniform(rng, -0.1, 0.3);
    return TP_CB_FALSE;
}

static int line_simulate(void *ctx, const void *x, const double *a, void *xnew)
{
    (void)ctx;
    ((Line *)xnew)->x = ((const Line *)x)->x + *a;
    return TP_CB_TRUE;
}

static int line_goal(void *ctx, const void *x)
{
    (void)ctx;
    return ((const Line *)x)->x >= 1.0 ? TP_CB_TRUE : TP_CB_FALSE;
}

static double line_quality(void *ctx, const void *x)
{
    (void)ctx;
    return 1.0 - ((const Line *)x)->x;
}

static void test_planner(void **state)
{
    (void)state;
    tpProblem p;
    memset(&p, 0, sizeof p);
    p.state_bytes = sizeof(Line);
    p.action_dim = 1;
    p.initial_state = line_initial;
    p.control = line_control;
    p.simulate = line_simulate;
    p.goal = line_goal;
    p.quality = line_quality;
    tpPlannerDef def = tpDefaultPlannerDef();
    def.max_iters = 3000;
    def.solutions = 3;
    char err[256];
    long total = 0;
    for (long n = 0; n == 0 || n <= total; ++n) {
        fault_reset(n == 0 ? -1 : n);
        tpPlanner *pl = tpCreatePlanner(&def, &p, err, sizeof err);
        tpPlanResult r;
        tpPlanStatus st = pl ? tpPlanner_Run(pl, &r) : TP_PLAN_ERROR;
        (void)r;
        if (n == 0) {
            total = g_fault_calls;
            assert_int_equal(st, TP_PLAN_SOLVED);
        }
        fault_reset(-1);
        assert_true(pl != NULL || err[0] != '\0');
        tpDestroyPlanner(pl);
    }
    printf("planner: %ld allocations, each failed once\n", total);
}

int main(void)
{
    tpLog_SetLevel(TP_LOG_QUIET);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_reader),
        cmocka_unit_test(test_other_readers),
        cmocka_unit_test(test_plan_writer),
        cmocka_unit_test(test_planner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
