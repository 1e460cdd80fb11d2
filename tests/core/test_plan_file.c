/* Plan (JSON) and tree (binary) files: exact round trips, byte-identical rewrites, and
 * refusals of damaged or foreign files with messages that name the file and the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan_testing.h"
#include "tp/base.h"
#include "tp/plan.h"
#include "tplan/version.h"

#include "tmp_dir.h"

static char *slurp(const char *path, size_t *len)
{
    char err[512];
    char *buf = tpFile_Read(path, TP_MAX_PLAN_BYTES, len, err, sizeof err);
    if (!buf) {
        fail_msg("%s", err);
    }
    return buf;
}

static void spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Tiny LCG: the corruption tests must be repeatable and must not touch global rand(). */
static uint32_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* ------------------------------------------------------------------------------------------ */
/* A record full of awkward values                                                            */

static double awkward(int i)
{
    const double v[] = {0.1,
                        1.0 / 3.0,
                        -0.0,
                        1e-300,
                        5e-324,
                        DBL_MAX,
                        -DBL_MAX,
                        9007199254740993.0,
                        123456789012345678.0,
                        0.0,
                        1e22,
                        DBL_MIN,
                        -2.5,
                        nextafter(1.0, 2.0),
                        6.02214076e23,
                        -1e-310,
                        100.0};
    return v[i % (int)(sizeof v / sizeof v[0])];
}

/* awkward(i) brought within +-max (the physical ranges of tp/base.h) with other awkward bits. */
static double awkward_within(int i, double max)
{
    double v = awkward(i);
    return fabs(v) <= max ? v : copysign(max / 3.0, v);
}

/* A state row of awkward numbers that the plan's physical ranges accept: the quaternion is
 * normalised (its bits stay awkward), the rest clamped. */
static void physical_state(double *row, int k)
{
    for (int j = 0; j < TP_STATE_DOUBLES; ++j) {
        row[j] = awkward_within(k + j, j < 3 ? TP_MAX_COORD : j < 7 ? 10.0 : j < 10 ? TP_MAX_SPEED : TP_MAX_ANGVEL);
    }
    row[3] += 1.0;
    double n = sqrt(row[3] * row[3] + row[4] * row[4] + row[5] * row[5] + row[6] * row[6]);
    for (int j = 3; j < 7; ++j) {
        row[j] /= n;
    }
}

static void build_record(tpPlanRecord *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->domain_name = strdup("minigolf");
    rec->domain_file = strdup("domains/mini golf \"v2\".lua");
    rec->domain_hash = strdup("fnv1a64:0123456789abcdef");
    rec->seed = 4294967295u;
    rec->planner = strdup("bgt");
    rec->mu = 0.1;
    rec->max_iters = 9007199254740992;
    rec->time_limit = 1.0 / 3.0;
    rec->solutions_requested = 2;
    rec->status = strdup("approximate");
    rec->dt = 0.01;
    rec->overrides = strdup("{\"planner.mu\":0.25,\"goal\":{\"x\":1,\"tags\":[\"a\",\"b\"]}}");

    rec->nbodies = 4;
    rec->bodies = calloc(4, sizeof *rec->bodies);
    const char *names[] = {"ground", "ball", "robot", "wall\t\"north\"\\"};
    const char *cls[] = {"static", "passive", "active", "static"};
    const char *shapes[] = {"plane", "sphere", "box", "box"};
    for (int i = 0; i < 4; ++i) {
        tpPlanBody *b = &rec->bodies[i];
        b->name = strdup(names[i]);
        b->cls = strdup(cls[i]);
        b->shape = strdup(shapes[i]);
        for (int j = 0; j < 4; ++j) {
            /* Used lengths are in (0, TP_MAX_COORD]; a plane's coefficients may have any sign. */
            double v = awkward_within(i * 4 + j, TP_MAX_COORD);
            b->size[j] = i == 0 || v > 0 ? v : 0.75;
        }
        b->color[0] = 0.1f;
        b->color[1] = 1.0f / 3.0f;
        b->color[2] = i * 0.25f;
        b->color[3] = 1.0f;
        b->moving = i == 1 || i == 2;
        b->controlled = i == 2;
        if (!b->moving) {
            physical_state(b->pose, i * 3);
        }
    }
    rec->ntactics = 2;
    rec->tactics = calloc(2, sizeof *rec->tactics);
    rec->tactics[0].name = strdup("putt");
    rec->tactics[0].body = strdup("robot");
    rec->tactics[0].nskills = 3;
    rec->tactics[0].skills = calloc(3, sizeof(char *));
    rec->tactics[0].skills[0] = strdup("wait");
    rec->tactics[0].skills[1] = strdup("drive");
    rec->tactics[0].skills[2] = strdup("kick");
    rec->tactics[1].name = strdup("watch");
    rec->tactics[1].body = strdup("ball");
    rec->tactics[1].nskills = 1;
    rec->tactics[1].skills = calloc(1, sizeof(char *));
    rec->tactics[1].skills[0] = strdup("wait");

    /* Two worlds, the second selected, so the reader's reordering is exercised. */
    rec->nworlds = 2;
    rec->worlds = calloc(2, sizeof *rec->worlds);
    rec->selected = 1;
    const int steps[2] = {6, 4};
    for (int w = 0; w < 2; ++w) {
        tpPlanWorld *pw = &rec->worlds[w];
        assert_true(tpPlanWorld_Alloc(pw, rec, steps[w]));
        pw->cost = w ? 1.0 / 3.0 : 1e-300;
        int k = w * 7;
        for (int i = 0; i < 4; ++i) {
            if (pw->traj[i]) {
                for (int r = 0; r <= steps[w]; ++r) {
                    physical_state(pw->traj[i] + r * TP_STATE_DOUBLES, k);
                    k += TP_STATE_DOUBLES;
                }
            }
            if (pw->controls[i]) {
                for (int j = 0; j < steps[w] * TP_CONTROL_DOUBLES; ++j) {
                    pw->controls[i][j] = awkward_within(k++, TP_MAX_FORCE);
                }
            }
        }
        for (int s = 0; s < steps[w]; ++s) {
            pw->active[0][s] = (s + w) % 3;
            pw->active[1][s] = 0;
        }
    }
    rec->max_static_penetration = 0.005;
    rec->max_body_penetration = 0.0125;
    rec->iterations = 9007199254740991;
    rec->nodes = 1234567;
    rec->rejected = 15;
    rec->rejections[TP_REJECT_STATIC_PENETRATION].count = 10;
    rec->rejections[TP_REJECT_STATIC_PENETRATION].iteration = 3;
    strcpy(rec->rejections[TP_REJECT_STATIC_PENETRATION].first,
           "'crate' 0.06 m into static 'floor' (limit 0.05 m) in the step from t = 0.5 s");
    rec->rejections[TP_REJECT_VALID].count = 5;
    rec->rejections[TP_REJECT_VALID].iteration = 40;
    strcpy(rec->rejections[TP_REJECT_VALID].first, "function (\"a b\".lua:3) was false \xc2\xb1");
    rec->nsolutions = 1;
    rec->memory_bytes = 123456789012;
    rec->nreports = 2;
    strcpy(rec->report_names[0], "on_target");
    rec->report_values[0] = 0.9025;
    strcpy(rec->report_names[1], "peak \"force\"");
    rec->report_values[1] = 1.0 / 7.0;
    rec->t_select = 0.1;
    rec->t_tactics = 1.0 / 3.0;
    rec->t_physics = 5e-324;
    rec->t_check = 0.0;
    rec->t_total = 12.5;
    rec->nodes_first = 1000;
    rec->t_first = 0.25;
}

static void assert_bits_equal(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (memcmp(&a[i], &b[i], sizeof(double)) != 0) {
            fail_msg("double %zu differs: %.17g vs %.17g", i, a[i], b[i]);
        }
    }
}

static void assert_world_equal(const tpPlanRecord *ra, const tpPlanWorld *a, const tpPlanWorld *b)
{
    assert_int_equal(a->nsteps, b->nsteps);
    assert_bits_equal(&a->cost, &b->cost, 1);
    for (int i = 0; i < ra->nbodies; ++i) {
        assert_int_equal(a->traj[i] != NULL, b->traj[i] != NULL);
        assert_int_equal(a->controls[i] != NULL, b->controls[i] != NULL);
        if (a->traj[i]) {
            assert_bits_equal(a->traj[i], b->traj[i], (size_t)(a->nsteps + 1) * TP_STATE_DOUBLES);
        }
        if (a->controls[i]) {
            assert_bits_equal(a->controls[i], b->controls[i], (size_t)a->nsteps * TP_CONTROL_DOUBLES);
        }
    }
    for (int t = 0; t < ra->ntactics; ++t) {
        assert_memory_equal(a->active[t], b->active[t], (size_t)a->nsteps * sizeof(int32_t));
    }
}

/* b was read from a file written from a: b's world 0 is a's selected world, then the others. */
static void assert_record_equal(const tpPlanRecord *a, const tpPlanRecord *b)
{
    assert_string_equal(a->domain_name, b->domain_name);
    assert_string_equal(a->domain_file, b->domain_file);
    assert_string_equal(a->domain_hash, b->domain_hash);
    assert_int_equal(a->seed, b->seed);
    assert_string_equal(a->planner, b->planner);
    assert_bits_equal(&a->mu, &b->mu, 1);
    assert_int_equal(a->max_iters, b->max_iters);
    assert_bits_equal(&a->time_limit, &b->time_limit, 1);
    assert_int_equal(a->solutions_requested, b->solutions_requested);
    assert_string_equal(a->status, b->status);
    assert_bits_equal(&a->dt, &b->dt, 1);
    assert_bits_equal(&a->max_static_penetration, &b->max_static_penetration, 1);
    assert_bits_equal(&a->max_body_penetration, &b->max_body_penetration, 1);
    assert_int_equal(a->overrides != NULL, b->overrides != NULL);
    if (a->overrides) {
        assert_string_equal(a->overrides, b->overrides);
    }
    assert_int_equal(a->nbodies, b->nbodies);
    for (int i = 0; i < a->nbodies; ++i) {
        const tpPlanBody *x = &a->bodies[i], *y = &b->bodies[i];
        assert_string_equal(x->name, y->name);
        assert_string_equal(x->cls, y->cls);
        assert_string_equal(x->shape, y->shape);
        assert_bits_equal(x->size, y->size, 4);
        assert_memory_equal(x->color, y->color, sizeof x->color);
        assert_int_equal(x->moving, y->moving);
        assert_int_equal(x->controlled, y->controlled);
        if (!x->moving) {
            assert_bits_equal(x->pose, y->pose, TP_STATE_DOUBLES);
        }
    }
    assert_int_equal(a->ntactics, b->ntactics);
    for (int t = 0; t < a->ntactics; ++t) {
        assert_string_equal(a->tactics[t].name, b->tactics[t].name);
        assert_string_equal(a->tactics[t].body, b->tactics[t].body);
        assert_int_equal(a->tactics[t].nskills, b->tactics[t].nskills);
        for (int s = 0; s < a->tactics[t].nskills; ++s) {
            assert_string_equal(a->tactics[t].skills[s], b->tactics[t].skills[s]);
        }
    }
    assert_int_equal(a->nworlds, b->nworlds);
    assert_int_equal(b->selected, 0);
    assert_world_equal(a, &a->worlds[a->selected], &b->worlds[0]);
    int k = 1;
    for (int w = 0; w < a->nworlds; ++w) {
        if (w != a->selected) {
            assert_world_equal(a, &a->worlds[w], &b->worlds[k++]);
        }
    }
    assert_int_equal(a->iterations, b->iterations);
    assert_int_equal(a->nodes, b->nodes);
    assert_int_equal(a->rejected, b->rejected);
    for (int r = 0; r < TP_REJECT_KINDS; ++r) {
        assert_int_equal(a->rejections[r].count, b->rejections[r].count);
        assert_int_equal(a->rejections[r].iteration, b->rejections[r].iteration);
        assert_string_equal(a->rejections[r].first, b->rejections[r].first);
    }
    assert_int_equal(a->nsolutions, b->nsolutions);
    assert_int_equal(a->memory_bytes, b->memory_bytes);
    assert_int_equal(a->nreports, b->nreports);
    for (int i = 0; i < a->nreports; ++i) {
        assert_string_equal(a->report_names[i], b->report_names[i]);
        assert_bits_equal(&a->report_values[i], &b->report_values[i], 1);
    }
    const double ta[5] = {a->t_select, a->t_tactics, a->t_physics, a->t_check, a->t_total};
    const double tb[5] = {b->t_select, b->t_tactics, b->t_physics, b->t_check, b->t_total};
    assert_bits_equal(ta, tb, 5);
    assert_int_equal(a->nodes_first, b->nodes_first);
    if (a->nodes_first > 0) {
        assert_bits_equal(&a->t_first, &b->t_first, 1);
    }
}

static bool is_zeroed(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; ++i) {
        if (c[i]) {
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Plan tests                                                                                 */

/* The writer's numbers: exactly the shortest of %.15g / %.17g that reads back (its fast path
 * skips the %.15g attempt when the 17 digits rule it out), for values of every kind. */
static void reference_number(double v, char *out, size_t cap)
{
    snprintf(out, cap, "%.15g", v);
    double back = strtod(out, NULL);
    if (memcmp(&back, &v, sizeof v) != 0) {
        snprintf(out, cap, "%.17g", v);
    }
}

static void test_number_format(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    enum { N = 400000 };
    double *v = malloc(sizeof *v * N);
    assert_non_null(v);
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < N; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double u = (double)(s >> 11) / 9007199254740992.0;
        switch (i % 8) {
        case 0:
            v[i] = (u - 0.5) * 20.0;
            break; /* simulated-looking */
        case 1:
            v[i] = (double)(int64_t)(s % 2000001) / 1000.0 - 1000.0;
            break; /* short decimals */
        case 2:
            v[i] = ldexp(u, (int)(s % 200) - 100);
            break; /* any magnitude */
        case 3:
            v[i] = (double)(int64_t)(s % 100000) * 1e-7;
            break;
        case 4: {
            uint64_t bits = s;
            memcpy(&v[i], &bits, sizeof bits);
            if (!isfinite(v[i]))
                v[i] = u;
        } break;
        case 5:
            v[i] = nextafter(pow(10.0, (double)(int)(s % 40) - 20), (s & 1) ? 0.0 : 1e300);
            break;
        case 6:
            v[i] = (double)(int64_t)(s % 1000000007) * pow(10.0, -(double)(s % 16));
            break;
        default:
            v[i] = u * 1e-300 * ((s & 2) ? 1e-10 : 1.0);
            break; /* tiny, subnormal */
        }
    }
    const double special[] = {0.0,
                              -0.0,
                              1.0,
                              -1.0,
                              0.1,
                              0.2,
                              0.3,
                              1.0 / 3.0,
                              2.0 / 3.0,
                              1e300,
                              -1e-300,
                              5e-324,
                              DBL_MAX,
                              DBL_MIN,
                              9.9999999999999998,
                              0.016666666666666666,
                              100.0,
                              1e15,
                              1e16,
                              1e17,
                              123456789012345678.0};
    const int ns = (int)(sizeof special / sizeof special[0]);
    for (int i = 0; i < ns; ++i) {
        v[i] = special[i];
    }
    for (int i = 0; i < N; ++i) {
        tpPlan_PutDouble(f, v[i]);
        fputc('\n', f);
    }
    assert_int_equal(fclose(f), 0);
    char *line = text, ref[40];
    for (int i = 0; i < N; ++i) {
        char *end = strchr(line, '\n');
        assert_non_null(end);
        *end = '\0';
        reference_number(v[i], ref, sizeof ref);
        if (strcmp(line, ref) != 0) {
            fail_msg("value %d (%a): wrote %s, expected %s", i, v[i], line, ref);
        }
        line = end + 1;
    }
    free(text);
    free(v);
}

static void test_world_alloc(void **state)
{
    (void)state;
    tpPlanRecord rec;
    build_record(&rec);
    tpPlanWorld w;
    assert_true(tpPlanWorld_Alloc(&w, &rec, 3));
    assert_int_equal(w.nsteps, 3);
    assert_null(w.traj[0]);
    assert_null(w.controls[1]);
    assert_non_null(w.traj[1]);
    assert_non_null(w.controls[2]);
    assert_true(is_zeroed(w.traj[2], 4 * TP_STATE_DOUBLES * sizeof(double)));
    assert_true(is_zeroed(w.controls[2], 3 * TP_CONTROL_DOUBLES * sizeof(double)));
    assert_true(is_zeroed(w.active[0], 3 * sizeof(int32_t)));
    /* Hand the world to the record so that tpPlanRecord_Free releases it. */
    tpPlanWorld *more = realloc(rec.worlds, 3 * sizeof *more);
    assert_non_null(more);
    rec.worlds = more;
    rec.worlds[rec.nworlds++] = w;
    tpPlanRecord_Free(&rec);
    assert_true(is_zeroed(&rec, sizeof rec));
    tpPlanRecord_Free(NULL);
}

static void test_plan_round_trip(void **state)
{
    (void)state;
    char err[512] = "";
    tpPlanRecord orig, back;
    build_record(&orig);
    const char *a = tmp_path("a.json"), *b = tmp_path("b.json"), *c = tmp_path("c.json");
    assert_true(tpPlanRecord_Write(&orig, a, err, sizeof err));
    assert_true(tpPlanRecord_Read(&back, a, err, sizeof err));
    assert_record_equal(&orig, &back);

    /* Identical records give identical bytes, whether written again or rewritten from the read. */
    assert_true(tpPlanRecord_Write(&back, b, err, sizeof err));
    assert_true(tpPlanRecord_Write(&orig, c, err, sizeof err));
    size_t la, lb, lc;
    char *fa = slurp(a, &la), *fb = slurp(b, &lb), *fc = slurp(c, &lc);
    assert_int_equal(la, lb);
    assert_memory_equal(fa, fb, la);
    assert_int_equal(la, lc);
    assert_memory_equal(fa, fc, la);

    /* The timing is the only nondeterministic part and closes the file. */
    const char *timing = strstr(fa, "\"timing\"");
    assert_non_null(timing);
    assert_non_null(strstr(fa, "\"memory_bytes\""));
    assert_true(strstr(fa, "\"memory_bytes\"") < timing);
    assert_null(strchr(timing, '['));
    assert_string_equal(fa + la - 5, "}}\n}\n");
    assert_non_null(strstr(fa, "\"format\": \"tplan-plan\""));
    assert_non_null(strstr(fa, "-0,")); /* negative zero keeps its sign */
    /* the reasons of the rejections: deterministic, so before the timing, in kind order */
    const char *rj = strstr(fa, "\"rejections\": {");
    assert_non_null(rj);
    assert_true(rj < timing);
    assert_non_null(strstr(rj, "\"static_penetration\": {\"count\": 10, \"iteration\": 3, \"first\": "));
    assert_true(strstr(rj, "\"static_penetration\"") < strstr(rj, "\"valid\": {\"count\": 5"));
    assert_null(strstr(rj, "\"out_of_range\""));

    /* Changing only the timing changes only the bytes after "timing". */
    back.t_total = 99.0;
    assert_true(tpPlanRecord_Write(&back, b, err, sizeof err));
    free(fb);
    fb = slurp(b, &lb);
    size_t prefix = (size_t)(timing - fa);
    assert_memory_equal(fa, fb, prefix);
    assert_string_not_equal(fa + prefix, fb + prefix);

    free(fa);
    free(fb);
    free(fc);
    tpPlanRecord_Free(&back);

    /* A read record (selected = 0) also survives a second round trip. */
    assert_true(tpPlanRecord_Read(&back, a, err, sizeof err));
    tpPlanRecord again;
    assert_true(tpPlanRecord_Write(&back, c, err, sizeof err));
    assert_true(tpPlanRecord_Read(&again, c, err, sizeof err));
    assert_record_equal(&back, &again);
    tpPlanRecord_Free(&again);
    tpPlanRecord_Free(&back);
    tpPlanRecord_Free(&orig);
}

static void test_plan_minimal(void **state)
{
    (void)state;
    /* No bodies, no tactics, no alternatives, no overrides, zero steps: empty arrays everywhere. */
    char err[512] = "";
    tpPlanRecord rec = {0}, back;
    rec.domain_name = strdup("empty");
    rec.domain_file = strdup("e.lua");
    rec.domain_hash = strdup("fnv1a64:ffffffffffffffff");
    rec.planner = strdup("rrt");
    rec.status = strdup("solved");
    rec.dt = 1.0 / 60.0;
    rec.nworlds = 1;
    rec.worlds = calloc(1, sizeof *rec.worlds);
    assert_true(tpPlanWorld_Alloc(&rec.worlds[0], &rec, 0));
    const char *p = tmp_path("min.json");
    assert_true(tpPlanRecord_Write(&rec, p, err, sizeof err));
    assert_true(tpPlanRecord_Read(&back, p, err, sizeof err));
    assert_record_equal(&rec, &back);
    assert_null(back.overrides);
    /* nothing rejected: no "rejections" member (such files keep their old bytes) */
    size_t len;
    char *text = slurp(p, &len);
    assert_null(strstr(text, "rejections"));
    free(text);
    tpPlanRecord_Free(&back);
    tpPlanRecord_Free(&rec);
}

/* Reads text written to a file and expects a refusal whose message contains `want`. */
static void expect_refusal(const char *text, size_t len, const char *want)
{
    const char *p = tmp_path("bad.json");
    spit(p, text, len);
    char err[512] = "";
    tpPlanRecord rec;
    memset(&rec, 0xab, sizeof rec);
    bool ok = tpPlanRecord_Read(&rec, p, err, sizeof err);
    if (ok || !strstr(err, want)) {
        fail_msg("expected a refusal containing \"%s\", got %s: \"%s\"", want, ok ? "success" : "failure", err);
    }
    assert_true(strncmp(err, p, strlen(p)) == 0); /* messages name the file */
    assert_true(is_zeroed(&rec, sizeof rec));
}

/* text with the first occurrence of `from` (after `after`, if given) replaced by `to`. */
static char *replace(const char *text, const char *after, const char *from, const char *to)
{
    const char *start = after ? strstr(text, after) : text;
    assert_non_null(start);
    const char *at = strstr(start, from);
    assert_non_null(at);
    size_t n = strlen(text), nf = strlen(from), nt = strlen(to);
    char *out = malloc(n - nf + nt + 1);
    size_t pre = (size_t)(at - text);
    memcpy(out, text, pre);
    memcpy(out + pre, to, nt);
    memcpy(out + pre + nt, at + nf, n - pre - nf + 1);
    return out;
}

static void expect_edit_refused(const char *text, const char *after, const char *from, const char *to, const char *want)
{
    char *bad = replace(text, after, from, to);
    expect_refusal(bad, strlen(bad), want);
    free(bad);
}

/* A compound body: version 4 with the body's "compound" (origin and parts, a mesh
 * part with its triangles), read back to the same record and bytes; the strict reader refuses a
 * compound in an older version, a compound without parts, parts on another shape, a bad size, an
 * unknown member and a mesh part's bad index. */
static void test_plan_compound(void **state)
{
    (void)state;
    char err[512] = "";
    tpPlanRecord orig, back;
    build_record(&orig);
    tpPlanBody *b = &orig.bodies[1];
    free(b->shape);
    b->shape = strdup("compound");
    b->size[0] = b->size[1] = b->size[2] = 0.5, b->size[3] = 0;
    b->mesh_origin[2] = -0.125;
    b->nparts = 2;
    b->parts = calloc(2, sizeof *b->parts);
    assert_non_null(b->parts);
    snprintf(b->parts[0].shape, sizeof b->parts[0].shape, "box");
    b->parts[0].size[0] = 0.5, b->parts[0].size[1] = 0.25, b->parts[0].size[2] = 1.0 / 3.0;
    b->parts[0].pos[2] = 0.1;
    b->parts[0].quat[0] = 1;
    tpPlanPart *m = &b->parts[1];
    snprintf(m->shape, sizeof m->shape, "mesh");
    m->pos[0] = -0.2;
    m->quat[0] = sqrt(0.5), m->quat[3] = sqrt(0.5);
    static const double v[12] = {0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1};
    static const int32_t t[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    m->nvertices = 4, m->ntriangles = 4;
    m->vertices = malloc(sizeof v), m->triangles = malloc(sizeof t);
    memcpy(m->vertices, v, sizeof v);
    memcpy(m->triangles, t, sizeof t);
    char *text;
    size_t len;
    assert_true(tpPlanRecord_WriteMem(&orig, &text, &len, err, sizeof err));
    assert_non_null(strstr(text, "\"version\": 4,"));
    assert_non_null(strstr(text, "\"compound\": {\"origin\": [0, 0, -0.125], \"parts\": ["));
    assert_true(tpPlanRecord_Parse(&back, text, len, "p.json", err, sizeof err));
    const tpPlanBody *r = &back.bodies[1];
    assert_string_equal(r->shape, "compound");
    assert_int_equal(r->nparts, 2);
    assert_string_equal(r->parts[0].shape, "box");
    assert_true(r->parts[0].size[2] == 1.0 / 3.0 && r->parts[0].pos[2] == 0.1 && r->mesh_origin[2] == -0.125);
    assert_string_equal(r->parts[1].shape, "mesh");
    assert_int_equal(r->parts[1].nvertices, 4);
    assert_memory_equal(r->parts[1].vertices, v, sizeof v);
    assert_memory_equal(r->parts[1].triangles, t, sizeof t);
    assert_true(r->parts[1].quat[3] == sqrt(0.5));
    char *again;
    size_t alen;
    assert_true(tpPlanRecord_WriteMem(&back, &again, &alen, err, sizeof err));
    assert_int_equal(alen, len);
    assert_memory_equal(again, text, len);
    free(again);
    tpPlanRecord_Free(&back);
    expect_edit_refused(text, NULL, "\"version\": 4", "\"version\": 3",
                        "bodies[1]: a version 3 plan has no compound bodies (version 4 has)");
    expect_edit_refused(text, NULL, "\"compound\": {\"origin\"", "\"compoundx\": {\"origin\"",
                        "bodies[1].compound: a compound body needs its \"compound\" object");
    expect_edit_refused(text, NULL, "\"shape\": \"compound\"", "\"shape\": \"box\"",
                        "bodies[1].compound: only a body of shape \"compound\" carries one");
    expect_edit_refused(text, NULL, "[0.5, 0.25, ", "[-0.5, 0.25, ",
                        "bodies[1].compound.parts[0].size[0]: -0.5 is not a length");
    expect_edit_refused(text, NULL, "{\"shape\": \"box\", ", "{\"shape\": \"box\", \"mass\": 1, ",
                        "bodies[1].compound.parts[0]: unknown member \"mass\"");
    expect_edit_refused(text, NULL, "[0, 2, 1]", "[0, 2, 9]",
                        "bodies[1].compound.parts[1].triangles[0][2]: 9 is not a vertex index (4 vertices)");
    expect_edit_refused(text, NULL, "\"parts\": [", "\"parts\": [], \"x\": [",
                        "bodies[1].compound: unknown member \"x\"");
    free(text);
    /* the writer checks too */
    b->parts[0].size[1] = 0;
    assert_false(tpPlanRecord_WriteMem(&orig, &text, &len, err, sizeof err));
    assert_non_null(strstr(err, "bodies[1].compound.parts[0].size[1]"));
    tpPlanRecord_Free(&orig);
}

/* A plan from a start state: version 2 with "start" (time, the rest counts that are
 * not 0 by body name), read back to the same record and bytes; refused with a bad time or count,
 * a static or unknown body. */
static void test_plan_start(void **state)
{
    (void)state;
    char err[512] = "";
    tpPlanRecord orig, back;
    build_record(&orig);
    orig.has_start = true;
    orig.start_time = 1.6666666666666656;
    orig.start_rest = calloc((size_t)orig.nbodies, 1);
    assert_non_null(orig.start_rest);
    orig.start_rest[1] = 15;
    char *text;
    size_t len;
    assert_true(tpPlanRecord_WriteMem(&orig, &text, &len, err, sizeof err));
    assert_non_null(strstr(text, "\"version\": 2,"));
    assert_non_null(strstr(text, "\"start\": {\"time\": 1.6666666666666656, \"rest\": {\"ball\": 15}},"));
    assert_true(tpPlanRecord_Parse(&back, text, len, "p.json", err, sizeof err));
    assert_true(back.has_start);
    assert_true(back.start_time == orig.start_time);
    assert_memory_equal(back.start_rest, orig.start_rest, (size_t)orig.nbodies);
    char *again;
    size_t len2;
    assert_true(tpPlanRecord_WriteMem(&back, &again, &len2, err, sizeof err));
    const char *t1 = strstr(text, "\"timing\""), *t2 = strstr(again, "\"timing\"");
    assert_true(t1 && t2 && t1 - text == t2 - again);
    assert_memory_equal(text, again, (size_t)(t1 - text));
    expect_edit_refused(text, NULL, "\"time\": 1.6666666666666656", "\"time\": -1", "start.time: -1 is not a time");
    expect_edit_refused(text, NULL, "\"ball\": 15", "\"ball\": 256", "start.rest.ball: expected an integer in 0..255");
    expect_edit_refused(text, NULL, "\"ball\": 15", "\"ground\": 1", "start.rest.ground: a static body has no rest");
    expect_edit_refused(text, NULL, "\"ball\": 15", "\"ghost\": 1", "start.rest.ghost: no such body");
    expect_edit_refused(text, NULL, "\"rest\": {", "\"spin\": 1, \"rest\": {", "start: unknown field \"spin\"");
    free(text);
    free(again);
    tpPlanRecord_Free(&back);
    tpPlanRecord_Free(&orig);
}

/* A mesh body's recorded triangles and origin: written, read back equal, and refused
 * when an index leaves the vertices, a coordinate is out of range or the body is no mesh. */
static void test_plan_mesh(void **state)
{
    (void)state;
    char err[512] = "";
    tpPlanRecord rec = {0}, back;
    rec.domain_name = strdup("m");
    rec.domain_file = strdup("m.lua");
    rec.domain_hash = strdup("fnv1a64:ffffffffffffffff");
    rec.planner = strdup("rrt");
    rec.status = strdup("solved");
    rec.dt = 1.0 / 60.0;
    rec.nbodies = 1;
    rec.bodies = calloc(1, sizeof *rec.bodies);
    tpPlanBody *b = &rec.bodies[0];
    b->name = strdup("bucket");
    b->cls = strdup("static");
    b->shape = strdup("mesh");
    b->size[0] = b->size[1] = b->size[2] = 2;
    b->color[3] = 1;
    b->pose[3] = 1;
    static const double v[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.25, 0.5, 1};
    static const int32_t t[6] = {0, 1, 2, 0, 3, 1};
    b->mesh_nvertices = 4;
    b->mesh_vertices = malloc(sizeof v);
    memcpy(b->mesh_vertices, v, sizeof v);
    b->mesh_ntriangles = 2;
    b->mesh_triangles = malloc(sizeof t);
    memcpy(b->mesh_triangles, t, sizeof t);
    b->mesh_origin[0] = -0.125, b->mesh_origin[2] = 0.5;
    rec.nworlds = 1;
    rec.worlds = calloc(1, sizeof *rec.worlds);
    assert_true(tpPlanWorld_Alloc(&rec.worlds[0], &rec, 0));
    const char *p = tmp_path("mesh.json");
    assert_true(tpPlanRecord_Write(&rec, p, err, sizeof err));
    assert_true(tpPlanRecord_Read(&back, p, err, sizeof err));
    assert_record_equal(&rec, &back);
    assert_int_equal(back.bodies[0].mesh_nvertices, 4);
    assert_int_equal(back.bodies[0].mesh_ntriangles, 2);
    assert_memory_equal(back.bodies[0].mesh_vertices, v, sizeof v);
    assert_memory_equal(back.bodies[0].mesh_triangles, t, sizeof t);
    assert_memory_equal(back.bodies[0].mesh_origin, b->mesh_origin, sizeof b->mesh_origin);
    tpPlanRecord_Free(&back);
    size_t len;
    char *text = slurp(p, &len);
    expect_edit_refused(text, NULL, "[0, 3, 1]", "[0, 3, 4]",
                        "bodies[0].mesh.triangles[1][2]: 4 is not a vertex index (4 vertices)");
    expect_edit_refused(text, NULL, "[0.25, 0.5, 1]", "[0.25, 0.5, 1e300]", "bodies[0].mesh.vertices[3][2]");
    expect_edit_refused(text, NULL, "\"shape\": \"mesh\"", "\"shape\": \"box\"",
                        "bodies[0].mesh: only a body of shape \"mesh\" carries one");
    expect_edit_refused(text, NULL, "\"origin\": ", "\"orig\": ", "bodies[0].mesh: needs \"origin\"");
    free(text);
    /* the writer refuses what the reader would */
    b->mesh_triangles[5] = 9;
    assert_false(tpPlanRecord_Write(&rec, tmp_path("mesh2.json"), err, sizeof err));
    assert_non_null(strstr(err, "bodies[0].mesh.triangles[1][2]: 9 is not a vertex index"));
    tpPlanRecord_Free(&rec);
}

static void test_plan_refusals(void **state)
{
    (void)state;
    char err[512] = "";
    tpPlanRecord rec;
    build_record(&rec);
    const char *good = tmp_path("good.json");
    assert_true(tpPlanRecord_Write(&rec, good, err, sizeof err));
    size_t len;
    char *text = slurp(good, &len);

    tpPlanRecord out;
    assert_false(tpPlanRecord_Read(&out, tmp_path("missing.json"), err, sizeof err));
    assert_non_null(strstr(err, "missing.json: cannot open"));
    assert_true(is_zeroed(&out, sizeof out));

    expect_refusal(text, len / 2, "invalid JSON at line");
    expect_refusal(text, len / 2, "truncated");
    /* an error after the packed matrices names its true line (the placeholders once overwrote the
     * line break after each matrix's "[", shifting later lines up by one per matrix) */
    {
        char *bad = replace(text, NULL, "\"stats\": {", "\"stats\": {,");
        size_t line = 1;
        for (const char *q = bad; q < strstr(bad, "\"stats\": {,"); ++q) {
            line += *q == '\n';
        }
        char want[64];
        snprintf(want, sizeof want, "invalid JSON at line %zu, column", line);
        assert_true(line > 20);
        expect_refusal(bad, strlen(bad), want);
        free(bad);
    }
    expect_refusal("", 0, "empty file");
    expect_refusal("[1, 2]", 6, "not a tplan plan file");
    expect_edit_refused(text, NULL, "\"tplan-plan\"", "\"other-plan\"", "not a tplan plan file");
    expect_edit_refused(text, NULL, "\"on_target\": 0.9025", "\"on_target\": \"high\"",
                        "stats.report: on_target: expected a number, got a string");
    expect_edit_refused(text, NULL, "\"report\": {", "\"report\": [1], \"x\": {", "stats.report: expected an object");
    expect_edit_refused(text, NULL, "\"first_solution_nodes\": 1000", "\"first_solution_nodes\": 2000000",
                        "stats.first_solution_nodes: must be in 1..nodes (1234567), got 2000000");
    expect_edit_refused(text, NULL, ", \"first_solution\": 0.25", "", "stats.timing");
    expect_edit_refused(text, NULL, "\"version\": 1", "\"version\": 5",
                        "version: unsupported plan version 5 (this tplan reads versions 1, 2, 3 and 4)");
    /* version 3 has driven motors, and only it has them */
    expect_edit_refused(text, NULL, "\"version\": 1", "\"version\": 3",
                        "motors: a version 3 plan needs 1 to 4096 driven motors: expected an array, got nothing");
    expect_edit_refused(text, NULL, "\"steps\":", "\"motors\": [], \"steps\":",
                        "motors: a version 1 plan has no driven motors (version 3 has)");
    /* version 2 is version 1 with a start state, and only it has one */
    expect_edit_refused(text, NULL, "\"version\": 1", "\"version\": 2",
                        "start: a version 2 plan needs a start state: expected an object, got nothing");
    expect_edit_refused(text, NULL, "\"dt\": 0.01,", "\"dt\": 0.01, \"start\": {\"time\": 1, \"rest\": {}},",
                        "start: a version 1 plan has no start state");
    expect_edit_refused(text, NULL, "\"dt\": 0.01,", "", ": missing field \"dt\"");
    expect_edit_refused(text, NULL, "\"seed\": 4294967295", "\"seed\": \"7\"", "seed: expected a number, got a string");
    expect_edit_refused(text, NULL, "\"seed\": 4294967295", "\"seed\": 4294967296", "seed: expected an integer");
    expect_edit_refused(text, NULL, "\"cost\": 0.33333333333333331", "\"cost\": 1e999", "cost: number out of range");
    expect_edit_refused(text, NULL, "\"class\": \"passive\"", "\"class\": \"ghost\"", "bodies[1].class: unknown value");
    expect_edit_refused(text, NULL, "\"name\": \"ball\"", "\"name\": \"ground\"",
                        "bodies[1].name: \"ground\" is also the name of bodies[0]");
    expect_edit_refused(text, NULL, "\"body\": \"robot\"", "\"body\": \"robbie\"", "tactics[0].body: no body named");
    expect_edit_refused(text, NULL, "\"domain\": {", "\"domain\": {\"name\": \"x\", ", "duplicate member \"name\"");

    /* bodies[1] (the ball) trajectory row 4 loses its last number. */
    {
        const char *ball = strstr(text, "\"name\": \"ball\"");
        const char *row = strstr(ball, "\"trajectory\": [\n");
        for (int i = 0; i < 5; ++i) {
            row = strchr(row, '\n') + 1;
        }
        const char *close = strchr(row, ']');
        const char *comma = close;
        while (*comma != ',') {
            --comma;
        }
        size_t pre = (size_t)(comma - text);
        char *bad = malloc(len + 1);
        memcpy(bad, text, pre);
        memcpy(bad + pre, close, len - (size_t)(close - text) + 1);
        expect_refusal(bad, strlen(bad), "bad.json: bodies[1].trajectory[4]: expected 13 numbers, got 12");
        free(bad);
    }
    /* A row too many in the selected trajectory. */
    expect_edit_refused(text, "\"name\": \"ball\"", "\"trajectory\": [\n",
                        "\"trajectory\": [\n[0,0,0,0,0,0,0,0,0,0,0,0,0],",
                        "bodies[1].trajectory: expected 5 rows (steps + 1), got 6");
    /* Skill index past the tactic's skills (tactics[0] has 3 skills). */
    expect_edit_refused(text, "\"name\": \"putt\"", "\"active\": [1", "\"active\": [7",
                        "tactics[0].active[0]: skill index 7 out of range [0, 3)");
    expect_edit_refused(text, "\"name\": \"putt\"", "\"active\": [1", "\"active\": [0.5",
                        "tactics[0].active[0]: skill index 0.5 out of range");
    /* Alternatives must name existing bodies and tactics, and cover all of them. */
    expect_edit_refused(text, "\"alternatives\"", "\"ball\": [", "\"bal\": [",
                        "alternatives[0].trajectories: no moving body named \"bal\"");
    expect_edit_refused(text, "\"alternatives\"", "\"watch\": [", "\"wotch\": [",
                        "alternatives[0].active: no tactic named \"wotch\"");
    expect_edit_refused(text, "\"alternatives\"", "\"controls\": {", "\"controls\": {\"ball\": [], ",
                        "alternatives[0].controls: no controlled body named \"ball\"");
    expect_edit_refused(text, "\"alternatives\"", "\"steps\": 6", "\"steps\": 2000000000",
                        "alternatives[0].trajectories.ball: expected 2000000001 rows (steps + 1), got 7");
    /* "tplan": the writer's version, MAJOR.MINOR.PATCH (optional: older files lack it) */
    assert_non_null(strstr(text, "\"tplan\": \"" TPLAN_VERSION "\""));
    expect_edit_refused(text, NULL, "\"tplan\": \"" TPLAN_VERSION "\"", "\"tplan\": \"0.1\"",
                        "tplan: expected a version \"MAJOR.MINOR.PATCH\", got \"0.1\"");
    expect_edit_refused(text, NULL, "\"tplan\": \"" TPLAN_VERSION "\"", "\"tplan\": 1", "tplan: expected a string");
    expect_edit_refused(text, NULL, "\"tplan\": \"" TPLAN_VERSION "\"", "\"tplan\": \"1.2.3x\"",
                        "tplan: expected a version \"MAJOR.MINOR.PATCH\", got \"1.2.3x\"");
    /* the penetration limits: optional, both or none, depths in [0, 1000] m */
    expect_edit_refused(text, NULL, "\"max_body_penetration\": 0.0125", "\"max_body_penetration\": -1",
                        "limits.max_body_penetration: -1 is not a depth in [0, 1000] m");
    expect_edit_refused(text, NULL, "\"max_static_penetration\": 0.005", "\"max_static_penetration\": \"5 mm\"",
                        "limits.max_static_penetration: expected a number, got a string");
    expect_edit_refused(text, NULL, ", \"max_body_penetration\": 0.0125", "",
                        "limits: missing field \"max_body_penetration\"");
    expect_edit_refused(text, NULL, "\"limits\": {", "\"limits\": [], \"x\": {", "limits: expected an object");
    /* stats.rejections, checked as strictly as the rest */
    const char *sp = "\"static_penetration\": {\"count\": 10";
    expect_edit_refused(text, NULL, "\"static_penetration\":", "\"sinking\":",
                        "stats.rejections: unknown reason \"sinking\" (expected one of static_penetration, "
                        "body_penetration, out_of_range, valid, unspecified)");
    expect_edit_refused(text, NULL, sp, "\"static_penetration\": {\"count\": 11",
                        "stats.rejections: the counts add up to 16, not stats.rejected (15)");
    expect_edit_refused(text, NULL, sp, "\"static_penetration\": {\"count\": 0",
                        "stats.rejections.static_penetration.count: must be >= 1");
    expect_edit_refused(text, NULL, sp, "\"static_penetration\": {\"count\": \"10\"",
                        "stats.rejections.static_penetration.count: expected a number, got a string");
    expect_edit_refused(text, NULL, "\"iteration\": 3,", "\"iteration\": 0,",
                        "stats.rejections.static_penetration.iteration: must be in 1..stats.iterations");
    expect_edit_refused(text, NULL, "\"iteration\": 3,", "",
                        "stats.rejections.static_penetration: missing field \"iteration\"");
    expect_edit_refused(text, NULL, "\"first\": \"'crate'", "\"first\": 7, \"x\": \"",
                        "stats.rejections.static_penetration: unknown field \"x\"");
    expect_edit_refused(text, NULL, "\"first\": \"'crate'", "\"first\": [\"'crate'\"], \"y\": \"",
                        "stats.rejections.static_penetration: unknown field \"y\"");
    expect_edit_refused(text, NULL, "\"first\": \"'crate'", "\"first\": \"\\n'crate'",
                        "stats.rejections.static_penetration.first: control character 0x0a at byte 0");
    expect_edit_refused(text, NULL, "\"rejections\": {", "\"rejections\": [1], \"r\": {",
                        "stats.rejections: expected an object, got an array");
    expect_edit_refused(text, NULL, sp, "\"out_of_range\": 3, \"static_penetration\": {\"count\": 10",
                        "stats.rejections.out_of_range: expected an object, got a number");
    expect_edit_refused(text, NULL, sp, "\"valid\": {}, \"static_penetration\": {\"count\": 10",
                        "stats.rejections: duplicate member \"valid\"");
    {
        /* a first example longer than a record holds */
        char longer[400] = "\"first\": \"";
        memset(longer + strlen(longer), 'a', 300);
        expect_edit_refused(text, NULL, "\"first\": \"", longer,
                            "stats.rejections.static_penetration.first: longer than 255 bytes");
    }
    {
        /* files older than the member read as before, with no reasons */
        const char *from = strstr(text, "    \"rejections\"");
        const char *to = strstr(from, "    \"timing\"");
        assert_non_null(from);
        assert_non_null(to);
        char *old = malloc(len + 1);
        memcpy(old, text, (size_t)(from - text));
        strcpy(old + (from - text), to);
        const char *p = tmp_path("old.json");
        spit(p, old, strlen(old));
        tpPlanRecord o;
        if (!tpPlanRecord_Read(&o, p, err, sizeof err)) {
            fail_msg("a plan without stats.rejections is refused: %s", err);
        }
        assert_int_equal(o.rejected, 15);
        for (int k = 0; k < TP_REJECT_KINDS; ++k) {
            assert_int_equal(o.rejections[k].count, 0);
        }
        tpPlanRecord_Free(&o);
        free(old);
    }
    free(text);

    /* The writer checks the reasons too. */
    rec.rejections[TP_REJECT_VALID].count = 4;
    assert_false(tpPlanRecord_Write(&rec, tmp_path("r.json"), err, sizeof err));
    assert_non_null(strstr(err, "stats.rejections: the counts add up to 14, not stats.rejected (15)"));
    rec.rejections[TP_REJECT_VALID].count = 5;
    rec.rejections[TP_REJECT_VALID].iteration = 0;
    assert_false(tpPlanRecord_Write(&rec, tmp_path("r.json"), err, sizeof err));
    assert_non_null(strstr(err, "stats.rejections.valid.iteration: must be in 1..stats.iterations"));
    rec.rejections[TP_REJECT_VALID].iteration = 40;

    /* The writer refuses non-finite numbers, names the field, and leaves no file behind. */
    const char *nanfile = tmp_path("nan.json");
    rec.worlds[0].traj[1][5 * TP_STATE_DOUBLES + 2] = NAN;
    assert_false(tpPlanRecord_Write(&rec, nanfile, err, sizeof err));
    assert_non_null(strstr(err, "alternatives[0].trajectories.ball[5][2]: not a finite number"));
    assert_int_equal(access(nanfile, F_OK), -1);
    rec.worlds[0].traj[1][5 * TP_STATE_DOUBLES + 2] = 0.0;
    rec.worlds[1].controls[2][0] = -INFINITY;
    assert_false(tpPlanRecord_Write(&rec, nanfile, err, sizeof err));
    assert_non_null(strstr(err, "bodies[2].controls[0][0]: not a finite number"));
    rec.worlds[1].controls[2][0] = 0.0;
    rec.dt = NAN;
    assert_false(tpPlanRecord_Write(&rec, nanfile, err, sizeof err));
    assert_non_null(strstr(err, "dt"));
    rec.dt = 0.01;
    rec.worlds[1].active[0][2] = 3;
    assert_false(tpPlanRecord_Write(&rec, nanfile, err, sizeof err));
    assert_non_null(strstr(err, "tactics[0].active[2]: skill index 3 out of range"));
    rec.worlds[1].active[0][2] = 0;
    free(rec.overrides);
    rec.overrides = strdup("[1]");
    assert_false(tpPlanRecord_Write(&rec, nanfile, err, sizeof err));
    assert_non_null(strstr(err, "overrides: not a JSON object"));
    assert_int_equal(access(nanfile, F_OK), -1);
    tpPlanRecord_Free(&rec);
}

static void test_plan_random_corruption(void **state)
{
    (void)state;
    char err[512];
    tpPlanRecord rec;
    build_record(&rec);
    const char *good = tmp_path("fuzz-src.json"), *p = tmp_path("fuzz.json");
    assert_true(tpPlanRecord_Write(&rec, good, err, sizeof err));
    tpPlanRecord_Free(&rec);
    size_t len;
    char *text = slurp(good, &len);
    char *buf = malloc(len + 1);
    uint64_t seed = 12345;
    int refused = 0;
    for (int iter = 0; iter < 300; ++iter) {
        memcpy(buf, text, len);
        size_t n = len;
        int flips = 1 + (int)(lcg(&seed) % 4);
        for (int f = 0; f < flips; ++f) {
            size_t at = lcg(&seed) % len;
            /* Mostly printable damage (digits, quotes, brackets) plus raw bit flips. */
            const char pool[] = "0123456789-+.eE\"[]{},: \n\\x";
            buf[at] = (iter % 3) ? pool[lcg(&seed) % (sizeof pool - 1)] : (char)(buf[at] ^ (1 + lcg(&seed) % 255));
        }
        if (iter % 10 == 0) {
            n = lcg(&seed) % len; /* random truncation as well */
        }
        spit(p, buf, n);
        err[0] = '\0';
        tpPlanRecord out;
        if (tpPlanRecord_Read(&out, p, err, sizeof err)) {
            tpPlanRecord_Free(&out);
        } else {
            assert_true(strlen(err) > strlen(p) + 2);
            assert_true(strncmp(err, p, strlen(p)) == 0);
            ++refused;
        }
    }
    assert_true(refused > 0);
    free(buf);
    free(text);
}

/* ------------------------------------------------------------------------------------------ */
/* Tree tests                                                                                 */

static void build_tree(tpTreeRecord *t, int64_t nnodes)
{
    memset(t, 0, sizeof *t);
    t->nbodies = 3;
    t->body_names = calloc(3, sizeof(char *));
    t->body_names[0] = strdup("ball");
    t->body_names[1] = strdup("robot");
    t->body_names[2] = strdup("opponent \xc3\xa9");
    t->nnodes = nnodes;
    t->parent = malloc((size_t)nnodes * sizeof(int32_t));
    t->flags = malloc((size_t)nnodes);
    t->pos = malloc((size_t)nnodes * 9 * sizeof(float));
    uint64_t seed = 99;
    const float odd[] = {-0.0f, FLT_MIN / 4, FLT_MAX, 0.1f, -1e-3f, 12345.678f};
    for (int64_t i = 0; i < nnodes; ++i) {
        t->parent[i] = i == 0 ? -1 : (int32_t)(lcg(&seed) % (uint32_t)i);
        t->flags[i] = (uint8_t)(lcg(&seed) % 8);
        for (int j = 0; j < 9; ++j) {
            t->pos[i * 9 + j] = (i % 2 ? -1.0f : 1.0f) * odd[(i + j) % 6];
        }
    }
}

static void test_tree_round_trip(void **state)
{
    (void)state;
    char err[512] = "";
    tpTreeRecord t, back;
    build_tree(&t, 200);
    const char *p = tmp_path("tree.bin");
    assert_true(tpTreeRecord_Write(&t, p, err, sizeof err));
    assert_true(tpTreeRecord_Read(&back, p, err, sizeof err));
    assert_int_equal(back.nbodies, 3);
    for (int i = 0; i < 3; ++i) {
        assert_string_equal(t.body_names[i], back.body_names[i]);
    }
    assert_int_equal(back.nnodes, 200);
    assert_memory_equal(t.parent, back.parent, 200 * sizeof(int32_t));
    assert_memory_equal(t.flags, back.flags, 200);
    assert_memory_equal(t.pos, back.pos, 200 * 9 * sizeof(float));

    /* Layout as documented: header, names, arrays, then FNV-1a-64 of all that, little-endian. */
    size_t len;
    char *bytes = slurp(p, &len);
    size_t names = (2 + 4) + (2 + 5) + (2 + 11);
    assert_int_equal(len, 24 + names + 200 * (4 + 1 + 36) + 8);
    assert_memory_equal(bytes, TP_TREE_MAGIC, 8);
    assert_int_equal((unsigned char)bytes[8], 1);
    uint64_t sum = 0;
    for (int i = 0; i < 8; ++i) {
        sum |= (uint64_t)(unsigned char)bytes[len - 8 + (size_t)i] << (8 * i);
    }
    assert_true(sum == tpHash_Fnv1a64(bytes, len - 8));
    /* parent[0] starts the parent array: the root's -1 is ff ff ff ff. */
    assert_memory_equal(bytes + 24 + names, "\xff\xff\xff\xff", 4);
    free(bytes);
    tpTreeRecord_Free(&back);

    /* An empty tree is valid too. */
    tpTreeRecord empty = {0};
    assert_true(tpTreeRecord_Write(&empty, p, err, sizeof err));
    assert_true(tpTreeRecord_Read(&back, p, err, sizeof err));
    assert_int_equal(back.nnodes, 0);
    assert_int_equal(back.nbodies, 0);
    tpTreeRecord_Free(&back);
    tpTreeRecord_Free(&t);
    tpTreeRecord_Free(NULL);
}

static void expect_tree_refusal(const void *data, size_t len, const char *want)
{
    const char *p = tmp_path("bad.bin");
    spit(p, data, len);
    char err[512] = "";
    tpTreeRecord rec;
    memset(&rec, 0xab, sizeof rec);
    bool ok = tpTreeRecord_Read(&rec, p, err, sizeof err);
    if (ok || !strstr(err, want)) {
        fail_msg("expected a refusal containing \"%s\", got %s: \"%s\"", want, ok ? "success" : "failure", err);
    }
    assert_true(strncmp(err, p, strlen(p)) == 0);
    assert_true(is_zeroed(&rec, sizeof rec));
}

static void reseal(char *bytes, size_t len)
{
    uint64_t sum = tpHash_Fnv1a64(bytes, len - 8);
    for (int i = 0; i < 8; ++i) {
        bytes[len - 8 + (size_t)i] = (char)(sum >> (8 * i));
    }
}

static void test_tree_refusals(void **state)
{
    (void)state;
    char err[512] = "";
    tpTreeRecord t;
    build_tree(&t, 50);
    const char *p = tmp_path("tree2.bin");
    assert_true(tpTreeRecord_Write(&t, p, err, sizeof err));
    size_t len;
    char *bytes = slurp(p, &len);
    char *bad = malloc(len);

    tpTreeRecord out;
    assert_false(tpTreeRecord_Read(&out, tmp_path("nope.bin"), err, sizeof err));
    assert_non_null(strstr(err, "cannot open"));

    expect_tree_refusal(bytes, len / 2, "truncated");
    expect_tree_refusal(bytes, len - 1, "truncated");
    expect_tree_refusal(bytes, 5, "too short");
    memcpy(bad, bytes, len);
    bad[0] = 'X';
    expect_tree_refusal(bad, len, "bad magic");
    memcpy(bad, bytes, len);
    bad[8] = 2;
    expect_tree_refusal(bad, len, "unsupported tree version 2");
    memcpy(bad, bytes, len);
    bad[len - 20] ^= 0x10;
    expect_tree_refusal(bad, len, "checksum mismatch");
    memcpy(bad, bytes, len);
    bad[len - 1] ^= 0x01;
    expect_tree_refusal(bad, len, "checksum mismatch");
    /* Absurd counts are refused from the header, before any allocation. */
    memcpy(bad, bytes, len);
    bad[23] = 0x7f;
    expect_tree_refusal(bad, len, "absurd node count");
    memcpy(bad, bytes, len);
    bad[15] = 0x40;
    expect_tree_refusal(bad, len, "absurd body count");
    memcpy(bad, bytes, len);
    bad[16] = 49; /* one node fewer than the data holds */
    expect_tree_refusal(bad, len, "unexpected bytes");
    /* A well-sealed file with a parent that is not an earlier node. */
    size_t names = (2 + 4) + (2 + 5) + (2 + 11);
    memcpy(bad, bytes, len);
    memcpy(bad + 24 + names + 4 * 7, "\x07\x00\x00\x00", 4);
    reseal(bad, len);
    expect_tree_refusal(bad, len, "node 7: parent 7 is not an earlier node");
    memcpy(bad, bytes, len);
    memcpy(bad + 24 + names + 4 * 3, "\x00\x01\x00\x00", 4);
    reseal(bad, len);
    expect_tree_refusal(bad, len, "node 3: parent 256 is not an earlier node");

    /* Random damage never crashes the reader. */
    uint64_t seed = 7;
    for (int iter = 0; iter < 200; ++iter) {
        memcpy(bad, bytes, len);
        for (int f = 0; f < 1 + iter % 3; ++f) {
            bad[lcg(&seed) % len] ^= (char)(1 + lcg(&seed) % 255);
        }
        const char *q = tmp_path("fuzz.bin");
        spit(q, bad, len);
        if (tpTreeRecord_Read(&out, q, err, sizeof err)) {
            tpTreeRecord_Free(&out);
        } else {
            assert_true(strncmp(err, q, strlen(q)) == 0);
        }
    }

    /* The writer refuses what the reader would refuse. */
    t.parent[10] = 10;
    assert_false(tpTreeRecord_Write(&t, p, err, sizeof err));
    assert_non_null(strstr(err, "node 10: parent 10 is not an earlier node"));
    t.parent[10] = 0;
    t.pos[30] = NAN;
    assert_false(tpTreeRecord_Write(&t, p, err, sizeof err));
    assert_non_null(strstr(err, "not finite"));

    free(bad);
    free(bytes);
    tpTreeRecord_Free(&t);
}

/* ---- overlays ---- */

static void add_overlays(tpPlanRecord *rec)
{
    rec->noverlays = 5;
    rec->overlays = calloc(5, sizeof *rec->overlays);
    tpPlanOverlay *g = &rec->overlays[0], *f = &rec->overlays[1], *pa = &rec->overlays[2], *w = &rec->overlays[3],
                  *t = &rec->overlays[4];
    g->kind = TP_OVERLAY_GRID, g->tactic = 0, g->first = 0, g->last = 3;
    g->origin[0] = -0.35, g->origin[1] = 1.0 / 3.0, g->cell = 0.05, g->nx = 7, g->ny = 3;
    g->cells = malloc(21);
    for (int k = 0; k < 21; ++k) {
        g->cells[k] = (uint8_t)((k / 4) % 3);
    }
    f->kind = TP_OVERLAY_FIELD, f->tactic = 1, f->first = 1, f->last = 2;
    f->origin[0] = 0, f->origin[1] = -2, f->cell = 0.25, f->nx = 3, f->ny = 2;
    f->values = malloc(6 * sizeof(double));
    const double fv[6] = {0, -0.001, -123.456, NAN, -300.5, -0.0};
    memcpy(f->values, fv, sizeof fv);
    pa->kind = TP_OVERLAY_PATH, pa->tactic = 0, pa->first = 2, pa->last = 3, pa->npoints = 3;
    pa->points = malloc(6 * sizeof(double));
    for (int k = 0; k < 6; ++k) {
        pa->points[k] = awkward(k);
    }
    w->kind = TP_OVERLAY_WINDOW, w->tactic = 1, w->first = 3, w->last = 3;
    w->origin[0] = 1.5, w->origin[1] = 2.5, w->cell = 0.25, w->nx = w->ny = 3, w->vmin = -7;
    w->levels = malloc(9);
    for (int k = 0; k < 9; ++k) {
        w->levels[k] = (uint8_t)(k == 4 ? TP_OVERLAY_NONE : k * 31);
    }
    t->kind = TP_OVERLAY_TREE, t->tactic = 0, t->first = 0, t->last = 1, t->npoints = 4;
    t->points = malloc(8 * sizeof(double));
    t->parent = malloc(4 * sizeof(int32_t));
    t->chosen = calloc(4, 1);
    for (int k = 0; k < 8; ++k) {
        t->points[k] = awkward(k + 11);
    }
    const int32_t par[4] = {-1, 0, 0, 2};
    memcpy(t->parent, par, sizeof par);
    t->chosen[0] = t->chosen[2] = t->chosen[3] = 1;
}

static void assert_overlays_equal(const tpPlanRecord *a, const tpPlanRecord *b)
{
    assert_int_equal(a->noverlays, b->noverlays);
    for (int k = 0; k < a->noverlays; ++k) {
        const tpPlanOverlay *x = &a->overlays[k], *y = &b->overlays[k];
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->tactic, y->tactic);
        assert_int_equal(x->first, y->first);
        assert_int_equal(x->last, y->last);
        assert_int_equal(x->nx, y->nx);
        assert_int_equal(x->ny, y->ny);
        assert_int_equal(x->npoints, y->npoints);
        assert_bits_equal(x->origin, y->origin, 2);
        assert_bits_equal(&x->cell, &y->cell, 1);
        assert_bits_equal(&x->vmin, &y->vmin, 1);
        size_t nc = (size_t)x->nx * (size_t)x->ny, np = (size_t)x->npoints;
        assert_int_equal(x->cells != NULL, y->cells != NULL);
        assert_int_equal(x->values != NULL, y->values != NULL);
        assert_int_equal(x->levels != NULL, y->levels != NULL);
        if (x->cells) {
            assert_memory_equal(x->cells, y->cells, nc);
        }
        if (x->values) {
            for (size_t q = 0; q < nc; ++q) { /* NaN (no value) reads back as NaN */
                if (isnan(x->values[q])) {
                    assert_true(isnan(y->values[q]));
                } else {
                    assert_bits_equal(&x->values[q], &y->values[q], 1);
                }
            }
        }
        if (x->levels) {
            assert_memory_equal(x->levels, y->levels, nc);
        }
        if (np) {
            assert_bits_equal(x->points, y->points, 2 * np);
        }
        if (x->parent) {
            assert_memory_equal(x->parent, y->parent, np * sizeof(int32_t));
            assert_memory_equal(x->chosen, y->chosen, np);
        }
    }
}

static void test_plan_overlays(void **state)
{
    (void)state;
    char err[512] = "";
    tpPlanRecord orig, back;
    build_record(&orig);
    add_overlays(&orig);
    const char *a = tmp_path("ov_a.json"), *b = tmp_path("ov_b.json");
    assert_true(tpPlanRecord_Write(&orig, a, err, sizeof err));
    assert_true(tpPlanRecord_Read(&back, a, err, sizeof err));
    assert_record_equal(&orig, &back);
    assert_overlays_equal(&orig, &back);
    assert_true(tpPlanRecord_Write(&back, b, err, sizeof err));
    size_t la, lb;
    char *fa = slurp(a, &la), *fb = slurp(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(fa, fb, la);
    /* compact encodings, and the overlays before the stats (timing stays last) */
    assert_non_null(strstr(fa, "\"cells\": \"4.4#4+4.4#1+\""));
    assert_non_null(strstr(fa, "\"levels\": \"001f3e5dff9bbad9f8\""));
    assert_non_null(strstr(fa, "null"));
    assert_true(strstr(fa, "\"overlays\"") < strstr(fa, "\"stats\""));
    tpPlanRecord_Free(&back);

    /* corrupted overlay sections are refused with the field named */
    expect_edit_refused(fa, "\"overlays\"", "4.4#4+4.4#1+", "4.4#4+4.4#2+", "overlays[0].cells: the runs cover more");
    expect_edit_refused(fa, "\"overlays\"", "4.4#4+4.4#1+", "4.4#4+4.4#1", "overlays[0].cells: bad run");
    expect_edit_refused(fa, "\"overlays\"", "4.4#4+4.4#1+", "4.4#4+4.4#1x", "overlays[0].cells: bad run");
    expect_edit_refused(fa, "\"overlays\"", "\"tactic\": \"watch\"", "\"tactic\": \"nobody\"",
                        "overlays[1].tactic: no tactic named \"nobody\"");
    expect_edit_refused(fa, "\"overlays\"", "\"steps\": [2, 3]", "\"steps\": [2, 4]", "overlays[2].steps: [2, 4]");
    expect_edit_refused(fa, "\"overlays\"", "\"steps\": [2, 3]", "\"steps\": [3, 2]", "overlays[2].steps");
    expect_edit_refused(fa, "\"overlays\"", "001f3e5dff", "001f3e5dfg", "overlays[3].levels: not a lowercase hex");
    expect_edit_refused(fa, "\"overlays\"", "001f3e5dff9bbad9f8", "001f",
                        "overlays[3].levels: expected a string of 18");
    expect_edit_refused(fa, "\"overlays\"", "\"kind\": \"window\"", "\"kind\": \"blob\"", "overlays[3].kind");
    expect_edit_refused(fa, "\"overlays\"", ", 2]]", ", 3]]", "overlays[4].nodes[3]: parent 3");
    expect_edit_refused(fa, "\"overlays\"", "\"chosen\": [0, 2, 3]", "\"chosen\": [0, 2, 4]", "overlays[4].chosen[2]");
    expect_edit_refused(fa, "\"overlays\"", "\"size\": [3, 2]", "\"size\": [3, 3]", "overlays[1].log10u: expected");
    expect_edit_refused(fa, "\"overlays\"", "\"cell\": 0.05", "\"cell\": 0", "overlays[0].cell");
    expect_edit_refused(fa, NULL, "\"overlays\": [", "\"overlays\": 7, \"old\": [", "overlays: expected an array");
    free(fa);
    free(fb);

    /* the writer refuses what the reader would refuse */
    orig.overlays[2].last = 9;
    assert_false(tpPlanRecord_Write(&orig, b, err, sizeof err));
    assert_non_null(strstr(err, "overlays[2].steps"));
    orig.overlays[2].last = 3;
    orig.overlays[4].parent[1] = 3;
    assert_false(tpPlanRecord_Write(&orig, b, err, sizeof err));
    assert_non_null(strstr(err, "overlays[4].nodes[1]"));
    tpPlanRecord_Free(&orig);

    /* a plan without overlays (every plan before them) reads with none */
    build_record(&orig);
    assert_true(tpPlanRecord_Write(&orig, a, err, sizeof err));
    assert_true(tpPlanRecord_Read(&back, a, err, sizeof err));
    assert_int_equal(back.noverlays, 0);
    assert_null(back.overlays);
    fa = slurp(a, &la);
    assert_null(strstr(fa, "\"overlays\""));
    free(fa);
    tpPlanRecord_Free(&back);
    tpPlanRecord_Free(&orig);
}

/* The recording sink: step ranges, closing, and merging of repeated content. */
static void test_overlay_sink(void **state)
{
    (void)state;
    tpOverlaySink s;
    memset(&s, 0, sizeof s);
    for (int step = 0; step < 6; ++step) { /* the same path emitted at steps 0..2, another from 3 */
        tpPlanOverlay o;
        memset(&o, 0, sizeof o);
        o.kind = TP_OVERLAY_PATH;
        o.npoints = 1;
        o.points = calloc(2, sizeof(double));
        o.points[0] = step < 3 ? 1.0 : 2.0;
        s.tactic = 1;
        s.step = step;
        tpOverlaySink_Add(&s, &o);
        if (step == 1) {
            tpOverlaySink_Close(&s, 1, 1); /* a segment ends; the next one re-emits the same path */
        }
    }
    tpOverlaySink_Close(&s, -1, 5);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.items[0].first, 0);
    assert_int_equal(s.items[0].last, 2);
    assert_int_equal(s.items[1].first, 3);
    assert_int_equal(s.items[1].last, 5);
    assert_int_equal(s.items[1].tactic, 1);
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    assert_true(tpOverlaySink_Take(&s, &rec));
    assert_int_equal(rec.noverlays, 2);
    assert_int_equal(s.n, 0);
    tpPlanRecord_Free(&rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_number_format),          cmocka_unit_test(test_world_alloc),
        cmocka_unit_test(test_plan_round_trip),        cmocka_unit_test(test_plan_minimal),
        cmocka_unit_test(test_plan_refusals),          cmocka_unit_test(test_plan_mesh),
        cmocka_unit_test(test_plan_random_corruption), cmocka_unit_test(test_plan_overlays),
        cmocka_unit_test(test_overlay_sink),           cmocka_unit_test(test_tree_round_trip),
        cmocka_unit_test(test_tree_refusals),          cmocka_unit_test(test_plan_start),
        cmocka_unit_test(test_plan_compound),
    };
    return cmocka_run_group_tests(tests, tmp_dir_setup, tmp_dir_teardown);
}
