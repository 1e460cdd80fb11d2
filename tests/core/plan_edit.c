/* Plan-file test helpers (plan_edit.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_edit.h"
#include "tmp_dir.h"
#include "tp/base.h"

char *plan_slurp(const char *path, size_t *len)
{
    char *t = tpFile_Read(path, TP_MAX_PLAN_BYTES, len, NULL, 0);
    assert_non_null(t);
    return t;
}

void plan_spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    fclose(f);
}

static bool zeroed(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; ++i) {
        if (c[i]) {
            return false;
        }
    }
    return true;
}

void plan_expect_edit_refused(const tpPlanRecord *rec, const char *from, const char *to, const char *want)
{
    char err[600] = "";
    const char *p = tmp_path("good.json"), *q = tmp_path("bad.json");
    assert_true(tpPlanRecord_Write(rec, p, err, sizeof err));
    size_t n;
    char *text = plan_slurp(p, &n);
    char *at = strstr(text, from);
    if (!at) {
        fail_msg("'%s' is not in the plan", from);
    }
    size_t nf = strlen(from), nt = strlen(to);
    char *bad = malloc(n - nf + nt + 1);
    assert_non_null(bad);
    memcpy(bad, text, (size_t)(at - text));
    memcpy(bad + (at - text), to, nt);
    memcpy(bad + (at - text) + nt, at + nf, n - (size_t)(at - text) - nf + 1);
    plan_spit(q, bad);
    tpPlanRecord back;
    memset(&back, 0xab, sizeof back);
    bool ok = tpPlanRecord_Read(&back, q, err, sizeof err);
    if (ok || !strstr(err, want) || strncmp(err, q, strlen(q)) != 0) {
        fail_msg("expected a refusal naming the file with \"%s\", got %s: \"%s\"", want, ok ? "success" : "failure",
                 err);
    }
    assert_true(zeroed(&back, sizeof back)); /* the record is left zeroed */
    free(text);
    free(bad);
}

char *plan_round_trip(const tpPlanRecord *rec, tpPlanRecord *back)
{
    char err[600] = "";
    const char *a = tmp_path("a.json"), *b = tmp_path("b.json");
    if (!tpPlanRecord_Write(rec, a, err, sizeof err) || !tpPlanRecord_Read(back, a, err, sizeof err)) {
        fail_msg("%s", err);
    }
    if (!tpPlanRecord_Write(back, b, err, sizeof err)) {
        fail_msg("%s", err);
    }
    size_t la, lb;
    char *ta = plan_slurp(a, &la), *tb = plan_slurp(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(ta, tb, la); /* written, read and written again: the same bytes */
    free(tb);
    return ta;
}

void plan_expect_absent(const tpPlanRecord *rec, const char *absent, tpPlanRecord *back)
{
    char err[600] = "";
    const char *a = tmp_path("a.json");
    if (!tpPlanRecord_Write(rec, a, err, sizeof err)) {
        fail_msg("%s", err);
    }
    size_t la;
    char *ta = plan_slurp(a, &la);
    if (strstr(ta, absent)) {
        fail_msg("'%s' is in the plan", absent);
    }
    free(ta);
    if (back && !tpPlanRecord_Read(back, a, err, sizeof err)) {
        fail_msg("%s", err);
    }
}

void plan_expect_write_refused(const tpPlanRecord *rec, const char *want)
{
    char err[600] = "";
    if (tpPlanRecord_Write(rec, tmp_path("w.json"), err, sizeof err) || !strstr(err, want)) {
        fail_msg("expected the writer to refuse with \"%s\", got \"%s\"", want, err);
    }
}

void plan_header(tpPlanRecord *rec, const char *name, int nbodies)
{
    memset(rec, 0, sizeof *rec);
    char file[256];
    snprintf(file, sizeof file, "%s.lua", name);
    rec->domain_name = strdup(name);
    rec->domain_file = strdup(file);
    rec->domain_hash = strdup("fnv1a64:0123456789abcdef");
    rec->planner = strdup("bgt");
    rec->status = strdup("solved");
    rec->dt = 0.01;
    rec->nbodies = nbodies;
    rec->bodies = calloc((size_t)nbodies, sizeof *rec->bodies);
}

void plan_static_body(tpPlanRecord *rec, int i, const char *name)
{
    tpPlanBody *b = &rec->bodies[i];
    b->name = strdup(name);
    b->cls = strdup("static");
    b->shape = strdup("box");
    b->size[0] = b->size[1] = b->size[2] = 0.1;
    b->color[3] = 1.0f;
    b->pose[3] = 1.0; /* identity quaternion */
}

void plan_expect_built_edit_refused(void (*build)(tpPlanRecord *), const char *from, const char *to, const char *want)
{
    tpPlanRecord rec;
    build(&rec);
    plan_expect_edit_refused(&rec, from, to, want);
    tpPlanRecord_Free(&rec);
}
