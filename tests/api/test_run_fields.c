/* The table of a run's fields (tp/run_fields.h, api/src/run_fields.c) and what reads it: the
 * table's own invariants, the check, the JSON reader and writer and the service's request reader
 * row by row (each row's range is what each of them takes, its name what each error names), and
 * the docs' tables against it (docs/cli.md's options, docs/service.md's request members,
 * docs/embedding.md's JSON members, service/openapi.json's request): a row added or changed
 * without its docs fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/lua.h" /* TP_SCRIPT_DEFAULT_*_TIME only: nothing of tp_lua is linked */
#include "tp/run_def.h"
#include "tp/run_fields.h"

/* A value of the row just inside its range, and one just outside (NAN: none outside). */
static double inside(const tpRunField *f)
{
    if (!f->has_unset && f->init == f->lo) {
        return f->hi; /* the default is not written: another value */
    }
    return f->lo_open ? (f->type == TP_RUNF_DOUBLE ? f->lo + 0.5 : f->lo + 1) : f->lo;
}

static double outside_below(const tpRunField *f)
{
    if (f->type == TP_RUNF_BOOL || f->type == TP_RUNF_PLANNER) {
        return NAN; /* no number is such a value: tested by type */
    }
    double v = f->lo_open ? f->lo : f->lo - 1;
    return f->has_unset && v == f->unset ? v - 1 : v;
}

static void test_table_invariants(void **state)
{
    (void)state;
    assert_true(tpRun_FieldCount > 0 && tpRun_FieldCount <= 32);
    for (int i = 0; i < tpRun_FieldCount; ++i) {
        const tpRunField *f = &tpRun_Fields[i];
        assert_non_null(f->name);
        assert_ptr_equal(tpRun_FindField(f->name), f); /* names unique */
        /* not the size, nor the members that are not JSON (output, output_user, start); the fields
           added since them come after them (the ABI grows only at the end) */
        assert_true(f->offset >= sizeof(size_t) &&
                    (f->offset < offsetof(tplan_run_def, output) ||
                     f->offset >= offsetof(tplan_run_def, start) + sizeof(const tplan_state *)));
        assert_true(f->lo <= f->hi);
        assert_non_null(f->unit);
        assert_non_null(f->help);
        if (f->flag) {
            assert_true(strncmp(f->flag, "--", 2) == 0);
            assert_ptr_equal(tpRun_FindFlag(f->flag), f); /* flags unique */
        }
        assert_false((f->who & TP_RUNF_SERVICE) && (f->who & TP_RUNF_SERVER)); /* one or the other */
        assert_true(f->svc_bound >= TP_RUNF_BOUND_NONE && f->svc_bound < TP_RUNF_BOUND_COUNT);
        if (f->has_unset) { /* the unset value is outside the range (else it could not mean "not given") */
            assert_false(tpRun_FieldInRange(f, f->unset, f->lo, f->lo_open, f->hi));
            assert_non_null(f->unset_means);
            assert_true(f->init == f->unset);
        } else {
            assert_true(tpRun_FieldInRange(f, f->init, f->lo, f->lo_open, f->hi));
        }
        for (int k = 0; k < i; ++k) {
            assert_true(tpRun_Fields[k].offset != f->offset);
        }
    }
    /* the defaults are the table's */
    tplan_run_def d;
    tplan_run_def_init(&d);
    for (int i = 0; i < tpRun_FieldCount; ++i) {
        assert_true(tpRun_FieldGet(&d, &tpRun_Fields[i]) == tpRun_Fields[i].init);
    }
    /* what 0 means for the script limits is the sandbox's default (the service sets them so) */
    assert_true(TP_SCRIPT_DEFAULT_LOAD_TIME == TP_RUN_SCRIPT_TIME_DEFAULT);
    assert_true(TP_SCRIPT_DEFAULT_CALL_TIME == TP_RUN_SCRIPT_TIME_DEFAULT);
    char ten[32];
    snprintf(ten, sizeof ten, "%g", TP_RUN_SCRIPT_TIME_DEFAULT);
    assert_string_equal(tpRun_FindField("load_time_limit")->unset_means, ten);
    assert_string_equal(tpRun_FindField("call_time_limit")->unset_means, ten);
    assert_null(tpRun_FindField("nope"));
    assert_null(tpRun_FindFlag("--nope"));
}

/* Every row: a value inside its range passes the check and goes through JSON and back; one just
   outside is refused by the check and by the reader, both naming the row. */
static void test_rows_check_and_json(void **state)
{
    (void)state;
    for (int i = 0; i < tpRun_FieldCount; ++i) {
        const tpRunField *f = &tpRun_Fields[i];
        tplan_run_def d;
        tplan_run_def_init(&d);
        tpRun_FieldSet(&d, f, inside(f));
        tplan_error e;
        assert_int_equal(tpRun_CheckDef(&d, &e), TPLAN_OK);
        char *json = tpRun_DefToJson(&d);
        assert_non_null(json);
        assert_non_null(strstr(json, f->name));
        tplan_run_def back;
        tplan_run_def_init(&back);
        assert_int_equal(tpRun_DefFromJson(&back, json, strlen(json), &e), TPLAN_OK);
        assert_true(tpRun_FieldGet(&back, f) == inside(f));
        free(json);

        const double bad = outside_below(f);
        char text[160];
        if (isnan(bad)) {
            snprintf(text, sizeof text, "{\"%s\": 7}", f->name); /* the wrong type */
            tpRun_FieldSet(&d, f, 7);
        } else {
            snprintf(text, sizeof text, "{\"%s\": %.17g}", f->name, bad);
            tpRun_FieldSet(&d, f, bad);
        }
        assert_int_equal(tpRun_CheckDef(&d, &e), TPLAN_ERR_ARGUMENT);
        assert_string_equal(e.field, f->name);
        assert_non_null(strstr(e.message, f->name));
        assert_null(tpRun_DefToJson(&d)); /* never "{}" for an invalid def */
        tplan_run_def_init(&back);
        assert_int_equal(tpRun_DefFromJson(&back, text, strlen(text), &e), TPLAN_ERR_ARGUMENT);
        assert_string_equal(e.field, f->name);
        if (isfinite(f->hi) && f->type != TP_RUNF_BOOL && f->type != TP_RUNF_PLANNER) {
            snprintf(text, sizeof text, "{\"%s\": %.17g}", f->name, f->hi + fmax(1, f->hi));
            assert_int_equal(tpRun_DefFromJson(&back, text, strlen(text), &e), TPLAN_ERR_ARGUMENT);
            assert_string_equal(e.field, f->name);
        }
    }
}

static int read_request(const char *json, const double bounds[TP_RUNF_BOUND_COUNT], tplan_run_def *d, tplan_error *e)
{
    cJSON *o = cJSON_Parse(json);
    assert_non_null(o);
    int r = tpRun_ReadRequestField(d, o->child, bounds, e);
    cJSON_Delete(o);
    return r;
}

/* The service's request reader: the server's fields refused, the service's ranges and the
   server's bounds (its options) taken from the table, the JSON member named. */
static void test_request_reader(void **state)
{
    (void)state;
    double bounds[TP_RUNF_BOUND_COUNT] = {0};
    bounds[TP_RUNF_BOUND_MAX_TIME] = 600;
    bounds[TP_RUNF_BOUND_WORKERS] = 4;
    bounds[TP_RUNF_BOUND_MAX_MEMORY] = 4096;
    tplan_run_def d;
    tplan_run_def_init(&d);
    tplan_error e;
    assert_int_equal(read_request("{\"time_limit\": 600}", bounds, &d, &e), 1);
    assert_true(d.time_limit == 600);
    assert_int_equal(read_request("{\"time_limit\": 600.5}", bounds, &d, &e), -1);
    assert_string_equal(e.field, "time_limit");
    assert_non_null(strstr(e.message, "(0, 600]"));
    assert_int_equal(read_request("{\"time_limit\": 0}", bounds, &d, &e), -1); /* a job has a limit */
    assert_int_equal(read_request("{\"jobs\": 5}", bounds, &d, &e), -1);
    assert_non_null(strstr(e.message, "1..4 (the server's workers)"));
    assert_int_equal(read_request("{\"jobs\": 4}", bounds, &d, &e), 1);
    assert_int_equal(read_request("{\"memory_mb\": 4097}", bounds, &d, &e), -1);
    assert_string_equal(e.field, "memory_mb");
    assert_int_equal(read_request("{\"solutions\": 10001}", bounds, &d, &e), -1);
    assert_int_equal(read_request("{\"solutions\": 10000}", bounds, &d, &e), 1);
    assert_int_equal(read_request("{\"max_iters\": 1e13}", bounds, &d, &e), -1);
    assert_int_equal(read_request("{\"seed\": 4294967295}", bounds, &d, &e), 1);
    assert_int_equal(read_request("{\"call_time_limit\": 1}", bounds, &d, &e), -1);
    assert_string_equal(e.field, "call_time_limit");
    assert_non_null(strstr(e.message, "set by the server"));
    assert_int_equal(read_request("{\"domain\": \"pool\"}", bounds, &d, &e), 0); /* the service's own */
}

/* ---- the docs against the table ---------------------------------------------------------- */

static char *read_doc(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/%s", TP_SOURCE_DIR, name);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, fp), (size_t)n);
    s[n] = '\0';
    fclose(fp);
    return s;
}

/* The table row of doc (a line "| `key..." in the section starting at `section`), NUL-terminated
   into buf; NULL when there is none. */
static const char *doc_row(const char *doc, const char *section, const char *key, char *buf, size_t cap)
{
    const char *s = strstr(doc, section);
    assert_non_null(s);
    const char *end = strstr(s + strlen(section), "\n## ");
    char start[96];
    snprintf(start, sizeof start, "\n| `%s", key);
    for (const char *p = strstr(s, start); p && (!end || p < end); p = strstr(p + 1, start)) {
        const char c = p[strlen(start)];
        if (c == '`' || c == ' ') { /* the whole key: `--seed N` or `seed` */
            const char *nl = strchr(p + 1, '\n');
            size_t n = nl ? (size_t)(nl - p - 1) : strlen(p + 1);
            snprintf(buf, cap, "%.*s", (int)(n < cap ? n : cap - 1), p + 1);
            return buf;
        }
    }
    return NULL;
}

static void test_docs_tables(void **state)
{
    (void)state;
    char *cli = read_doc("cli.md"), *svc = read_doc("service.md"), *emb = read_doc("embedding.md");
    char row[4096];
    for (int i = 0; i < tpRun_FieldCount; ++i) {
        const tpRunField *f = &tpRun_Fields[i];
        if ((f->who & TP_RUNF_CLI) && f->flag) { /* tplan plan's options table */
            char key[64];
            size_t n = (size_t)snprintf(key, sizeof key, "%s%s", f->flag, f->arg ? " " : "");
            for (const char *a = f->arg ? f->arg : ""; *a && n + 3 < sizeof key; ++a) { /* '|' is "\|" in a table */
                if (*a == '|') {
                    key[n++] = '\\';
                }
                key[n++] = *a;
            }
            key[n] = '\0';
            const char *r = doc_row(cli, "\n## tplan plan", key, row, sizeof row);
            if (!r) {
                fail_msg("docs/cli.md's tplan plan table has no row `%s` (the field %s)", key, f->name);
            }
            if (f->has_unset && strspn(f->unset_means, "0123456789") == strlen(f->unset_means)) {
                char dflt[64];
                snprintf(dflt, sizeof dflt, "default %s", f->unset_means);
                if (!strstr(r, dflt)) {
                    fail_msg("docs/cli.md: the row `%s` does not say \"%s\" (the table's)", key, dflt);
                }
            }
        }
        if (f->who & TP_RUNF_SERVICE) { /* the service's request members */
            const char *r = doc_row(svc, "\n### `POST /v1/jobs`", f->name, row, sizeof row);
            if (!r) {
                fail_msg("docs/service.md's request table has no row `%s`", f->name);
            }
            if (isfinite(f->svc_hi)) {
                char hi[64];
                snprintf(hi, sizeof hi, "..%.0f", f->svc_hi);
                if (!strstr(r, hi)) {
                    fail_msg("docs/service.md: the row `%s` does not say its bound \"%s\" (the table's)", f->name, hi);
                }
            }
        }
        if (f->who & TP_RUNF_SERVER) { /* named in the sentence on the server's fields */
            char name[80];
            snprintf(name, sizeof name, "`%s`", f->name);
            const char *p = strstr(svc, "are the server's to set");
            assert_non_null(p);
            const char *sentence = p;
            while (sentence > svc && sentence[-1] != '.') {
                --sentence;
            }
            const char *found = strstr(sentence, name);
            if (!found || found > p) {
                fail_msg("docs/service.md does not name %s among the fields the server sets", name);
            }
        }
        char member[80]; /* embedding.md's list of the JSON members */
        snprintf(member, sizeof member, "`%s`", f->name);
        const char *list = strstr(emb, "| `tplan_run_def_from_json`");
        assert_non_null(list);
        const char *found = strstr(list, member);
        if (!found || found > strchr(list, '\n')) {
            fail_msg("docs/embedding.md's tplan_run_def_from_json row does not name %s", member);
        }
    }
    free(cli);
    free(svc);
    free(emb);
}

/* service/openapi.json's JobRequest: a member per field a request may give, none for the server's,
   each of the row's type and with the service's range where the document states one. */
static void test_openapi_request(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/service/openapi.json", TP_SOURCE_DIR);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "components"), "schemas"),
            "JobRequest"),
        "properties");
    assert_non_null(props);
    static const char *const types[] = {[TP_RUNF_PLANNER] = NULL,
                                        [TP_RUNF_BOOL] = "boolean",
                                        [TP_RUNF_INT] = "integer",
                                        [TP_RUNF_INT64] = "integer",
                                        [TP_RUNF_DOUBLE] = "number"};
    for (int i = 0; i < tpRun_FieldCount; ++i) {
        const tpRunField *f = &tpRun_Fields[i];
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(props, f->name);
        if (!(f->who & TP_RUNF_SERVICE)) {
            if (p) {
                fail_msg("service/openapi.json's JobRequest has %s, which the server sets", f->name);
            }
            continue;
        }
        if (!p) {
            fail_msg("service/openapi.json's JobRequest has no member %s", f->name);
        }
        if (f->type == TP_RUNF_PLANNER) {
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(p, "enum");
            assert_int_equal(cJSON_GetArraySize(e), 2);
            assert_string_equal(cJSON_GetArrayItem(e, 0)->valuestring, tpRun_PlannerNames[1]);
            assert_string_equal(cJSON_GetArrayItem(e, 1)->valuestring, tpRun_PlannerNames[2]);
            continue;
        }
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "type");
        if (!cJSON_IsString(t) || strcmp(t->valuestring, types[f->type]) != 0) {
            fail_msg("service/openapi.json: %s is not of type %s", f->name, types[f->type]);
        }
        if (f->type == TP_RUNF_BOOL) {
            continue;
        }
        const double lo = isnan(f->svc_lo) ? f->lo : f->svc_lo;
        const bool lo_open = isnan(f->svc_lo) ? f->lo_open : f->svc_lo_open;
        const double hi = isnan(f->svc_hi) ? f->hi : f->svc_hi;
        const cJSON *min = cJSON_GetObjectItemCaseSensitive(p, lo_open ? "exclusiveMinimum" : "minimum");
        if (!cJSON_IsNumber(min) || min->valuedouble != lo) {
            fail_msg("service/openapi.json: %s's %s is not %g (the table's)", f->name,
                     lo_open ? "exclusiveMinimum" : "minimum", lo);
        }
        const cJSON *max = cJSON_GetObjectItemCaseSensitive(p, "maximum");
        if (f->svc_bound == TP_RUNF_BOUND_NONE && isfinite(hi) && (!cJSON_IsNumber(max) || max->valuedouble != hi)) {
            fail_msg("service/openapi.json: %s's maximum is not %.0f (the table's)", f->name, hi);
        }
        if (f->svc_bound != TP_RUNF_BOUND_NONE && max) {
            fail_msg("service/openapi.json: %s's maximum is the server's option, not a number", f->name);
        }
    }
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_invariants), cmocka_unit_test(test_rows_check_and_json),
        cmocka_unit_test(test_request_reader),   cmocka_unit_test(test_docs_tables),
        cmocka_unit_test(test_openapi_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
