/* libtplan inside a host program that has state of its own (docs/embedding.md,
 * Host safety), through the shared libtplan.so:
 * - a comma-decimal locale set by the host (setlocale, or uselocale on one thread) changes no plan
 *   byte, and plans made there replay; the host's locale is its own again after every call and
 *   inside the callbacks;
 * - ODE's process-wide handlers and random seed are the host's after loading, planning, replaying
 *   and freeing, and the host's ODE keeps working after libtplan's last world is gone;
 * - the script's print() and the library's messages reach the run definition's output callback and
 *   never the host's stdout or stderr (file descriptors 1 and 2 captured);
 * - the run definition's JSON reader refuses trailing text, its writer an invalid definition.
 * The comma locale (tp_COMMA.UTF-8: only LC_NUMERIC differs from C) is built by CMake with
 * localedef from comma_locale.def into LOCPATH. */
#define _GNU_SOURCE /* uselocale, newlocale */
#include <fcntl.h>
#include <locale.h>
#include <ode/ode.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tplan/tplan.h"

#define DOMAINS TP_SOURCE_DOMAINS
#define COMMA_LOCALE "tp_COMMA.UTF-8"

/* A small domain whose name and a parameter go through Lua's number formatting and parsing. */
static const char k_push[] = "local tp = require 'tp'\n"
                             "local speed = tp.param('speed', 2.5)\n"
                             "print('hello', 1.5, speed)\n"
                             "return tp.domain {\n"
                             "  name = 'push' .. tostring(speed / 2), dt = 1/60,\n"
                             "  bodies = {\n"
                             "    tp.plane { name = 'floor' },\n"
                             "    tp.sphere { name = 'ball', class = 'active', radius = 0.05, mass = 0.2,\n"
                             "                pos = {0, 0, 0.05}, max_force = 50 } },\n"
                             "  tactics = { tp.tactic { name = 'push', body = 'ball', skills = {\n"
                             "    tp.skill.impulse { name = 'roll', speed = tp.uniform(0.5, speed),\n"
                             "                       direction = tp.angle(-0.4, 0.4) } } } },\n"
                             "  goal = tp.inside { body = 'ball', min = {0.3, -0.5}, max = {5, 0.5} },\n"
                             "  planner = { max_iters = 2000 },\n"
                             "}\n";

/* What the output callback received. */
typedef struct Output {
    int prints, messages;
    char text[8192]; /* the print()s, concatenated */
    int comma_seen;  /* calls that saw the host's comma decimal point */
} Output;

static void on_output(void *user, tplan_output_kind kind, const char *text, size_t len)
{
    Output *o = user;
    if (kind == TPLAN_OUTPUT_PRINT) {
        o->prints++;
        size_t n = strlen(o->text);
        if (n + len < sizeof o->text) {
            memcpy(o->text + n, text, len);
            o->text[n + len] = '\0';
        }
    } else {
        o->messages++;
    }
    o->comma_seen += localeconv()->decimal_point[0] == ',';
}

static int progress_comma; /* progress calls that saw the host's comma decimal point */
static int on_progress(void *user, const tplan_progress *p)
{
    (void)user;
    (void)p;
    progress_comma += localeconv()->decimal_point[0] == ',';
    return 0;
}

static size_t upto_timing(const char *p)
{
    const char *t = strstr(p, "\"timing\"");
    return t ? (size_t)(t - p) : strlen(p);
}

/* A plan of path (params) with seed, its bytes (caller frees); replays it and checks the code. */
static char *plan_bytes(const char *path, const tplan_param *params, int nparams, int seed)
{
    tplan_error e;
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.seed = seed;
    tplan_domain *d = tplan_domain_load_file(path, params, nparams, NULL, &e);
    if (!d) {
        fail_msg("load %s: %s", path, e.message);
    }
    tplan_result *r = tplan_plan_progress(d, &def, on_progress, NULL, 1e-4, &e);
    if (!r) {
        fail_msg("plan %s: %s", path, e.message);
    }
    size_t len;
    const char *bytes = tplan_result_plan(r, &len);
    if (tplan_replay(d, bytes, len, &e) != TPLAN_OK) {
        fail_msg("replay %s in locale %s: %s", path, setlocale(LC_NUMERIC, NULL), e.message);
    }
    char *copy = strdup(bytes);
    assert_non_null(copy);
    tplan_result_free(r);
    tplan_domain_free(d);
    return copy;
}

static void assert_same_plan(const char *a, const char *b, const char *what)
{
    size_t na = upto_timing(a), nb = upto_timing(b);
    if (na != nb || memcmp(a, b, na) != 0) {
        fail_msg("%s: the plan differs from the C locale's", what);
    }
}

static char *push_name(void)
{
    tplan_error e;
    tplan_param p = {"speed", "3.25"}; /* read by the script as a number */
    tplan_domain *d = tplan_domain_load_string("push.lua", k_push, sizeof k_push - 1, &p, 1, NULL, &e);
    if (!d) {
        fail_msg("load push: %s", e.message);
    }
    char *name = strdup(tplan_domain_name(d));
    tplan_domain_free(d);
    return name;
}

static void test_comma_locale(void **state)
{
    (void)state;
    const char *golf = DOMAINS "/minigolf.lua", *pool = DOMAINS "/pool.lua";
    tplan_param pp[3] = {{"mode", "single"}, {"target", "purple"}, {"layout", "cue:-0.8,0.2"}};
    setlocale(LC_ALL, "C");
    char *golf_c = plan_bytes(golf, NULL, 0, 2), *pool_c = plan_bytes(pool, pp, 3, 1);
    char *name_c = push_name();
    assert_string_equal(name_c, "push1.625");

    if (!setlocale(LC_ALL, COMMA_LOCALE)) {
        fail_msg("the test locale %s is missing (LOCPATH=%s): it is built with localedef from the Debian "
                 "package locales (.ci/install-deps)",
                 COMMA_LOCALE, getenv("LOCPATH") ? getenv("LOCPATH") : "(unset)");
    }
    assert_string_equal(localeconv()->decimal_point, ",");
    progress_comma = 0;
    char *golf_l = plan_bytes(golf, NULL, 0, 2), *pool_l = plan_bytes(pool, pp, 3, 1);
    assert_true(progress_comma > 0); /* the progress callback runs in the host's locale */
    assert_same_plan(golf_c, golf_l, "minigolf, setlocale comma");
    assert_same_plan(pool_c, pool_l, "pool, setlocale comma");
    char *name_l = push_name();
    assert_string_equal(name_l, "push1.625");
    /* the run definition's JSON */
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.time_limit = 0.5;
    char *json = tplan_run_def_to_json(&def);
    assert_non_null(json);
    assert_string_equal(json, "{\"time_limit\":0.5}");
    tplan_free(json);
    tplan_error e;
    assert_int_equal(tplan_run_def_from_json(&def, "{\"mu\": 0.25}", 12, &e), TPLAN_OK);
    assert_true(def.mu == 0.25);
    /* and the host's locale is its own after the calls */
    char buf[16];
    snprintf(buf, sizeof buf, "%.1f", 1.5);
    assert_string_equal(buf, "1,5");
    assert_string_equal(localeconv()->decimal_point, ",");

    /* a host thread with its own locale (uselocale): the same, and that locale is kept. A copy of
       the global one: glibc 2.36's newlocale leaks its LOCPATH list (LeakSanitizer) */
    locale_t comma = duplocale(LC_GLOBAL_LOCALE);
    assert_non_null(comma);
    setlocale(LC_ALL, "C");
    uselocale(comma);
    char *golf_t = plan_bytes(golf, NULL, 0, 2);
    assert_same_plan(golf_c, golf_t, "minigolf, uselocale comma");
    assert_true(uselocale((locale_t)0) == comma);
    uselocale(LC_GLOBAL_LOCALE);
    freelocale(comma);
    free(golf_c);
    free(pool_c);
    free(golf_l);
    free(pool_l);
    free(golf_t);
    free(name_c);
    free(name_l);
}

/* ---- ODE ---- */

static int host_errors, host_messages;
static void host_error(int num, const char *msg, va_list ap)
{
    (void)num, (void)msg, (void)ap;
    host_errors++;
}
static void host_message(int num, const char *msg, va_list ap)
{
    (void)num, (void)msg, (void)ap;
    host_messages++;
}

/* A host thread raising ODE messages while libtplan plans on another: every one reaches the
 * host's handler, also while tplan's own handlers are installed for a step. */
static _Atomic int host_stop;
static _Atomic long host_sent, host_received;
static void host_counting(int num, const char *msg, va_list ap)
{
    (void)msg, (void)ap;
    if (num == 4242) {
        host_received++;
    }
}
static void *host_thread(void *arg)
{
    (void)arg;
    dAllocateODEDataForThread(dAllocateMaskAll);
    while (!host_stop) {
        dMessage(4242, "the host's own message");
        host_sent++;
    }
    return NULL;
}

static void test_ode_state(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C");
    dInitODE2(0); /* the host's own ODE, before and after libtplan's */
    dAllocateODEDataForThread(dAllocateMaskAll);
    dSetErrorHandler(host_error);
    dSetDebugHandler(host_error);
    dSetMessageHandler(host_message);
    dRandSetSeed(12345);
    tplan_param dice = {"count", "4"}; /* quickstep: ODE's random generator */
    free(plan_bytes(DOMAINS "/minigolf.lua", NULL, 0, 1));
    free(plan_bytes(DOMAINS "/dice.lua", &dice, 1, 1));
    assert_true(dGetErrorHandler() == host_error);
    assert_true(dGetDebugHandler() == host_error);
    assert_true(dGetMessageHandler() == host_message);
    assert_int_equal(dRandGetSeed(), 12345);
    assert_int_equal(host_errors + host_messages, 0); /* tplan's messages stay tplan's */
    /* libtplan's last world is gone: the host's ODE is still initialised (colliders, TLS) */
    dWorldID world = dWorldCreate();
    dSpaceID space = dSimpleSpaceCreate(0);
    dGeomID plane = dCreatePlane(space, 0, 0, 1, 0);
    dGeomID ball = dCreateSphere(space, 0.1);
    dBodyID body = dBodyCreate(world);
    dGeomSetBody(ball, body);
    dBodySetPosition(body, 0, 0, 0.09);
    dWorldSetGravity(world, 0, 0, -9.81);
    assert_int_equal(dWorldQuickStep(world, 0.01), 1);
    dContactGeom c[4];
    assert_int_equal(dCollide(ball, plane, 4, c, sizeof c[0]), 1);
    assert_true(c[0].depth > 0.0);
    dSpaceDestroy(space);
    dWorldDestroy(world);

    dSetMessageHandler(host_counting);
    pthread_t host;
    assert_int_equal(pthread_create(&host, NULL, host_thread, NULL), 0);
    free(plan_bytes(DOMAINS "/minigolf.lua", NULL, 0, 1)); /* every step swaps the handlers */
    host_stop = 1;
    pthread_join(host, NULL);
    assert_true(host_sent > 0);
    assert_int_equal(host_received, host_sent);
    assert_true(dGetMessageHandler() == host_counting);
    dCloseODE();
    dSetErrorHandler(NULL);
    dSetDebugHandler(NULL);
    dSetMessageHandler(NULL);
}

/* ---- no byte to the host's stdio ---- */

static void test_output_not_stdio(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C");
    char path[] = "/tmp/tp_test_host_XXXXXX";
    int cap = mkstemp(path);
    assert_true(cap >= 0);
    fflush(stdout);
    fflush(stderr);
    int saved1 = dup(1), saved2 = dup(2);
    dup2(cap, 1);
    dup2(cap, 2);

    Output out;
    memset(&out, 0, sizeof out);
    tplan_run_def def;
    tplan_run_def_init(&def);
    def.output = on_output;
    def.output_user = &out;
    def.seed = 1;
    tplan_error e;
    tplan_domain *d = tplan_domain_load_string("push.lua", k_push, sizeof k_push - 1, NULL, 0, &def, &e);
    int prints_load = out.prints;
    tplan_run_def plain;
    tplan_run_def_init(&plain);
    plain.seed = 1;
    tplan_result *r = d ? tplan_plan(d, &plain, &e) : NULL; /* no output of its own: the domain's */
    int prints_plan = out.prints;
    tplan_result_free(r);
    tplan_domain_free(d);
    /* no callback at all: dropped */
    d = tplan_domain_load_string("push.lua", k_push, sizeof k_push - 1, NULL, 0, NULL, &e);
    r = d ? tplan_plan(d, NULL, &e) : NULL;
    tplan_result_free(r);
    tplan_domain_free(d);
    /* a shipped domain that prints (pool, single mode, every direct shot at black blocked) */
    Output pool;
    memset(&pool, 0, sizeof pool);
    tplan_run_def pdef;
    tplan_run_def_init(&pdef);
    pdef.output = on_output;
    pdef.output_user = &pool;
    tplan_param pp[2] = {{"mode", "single"}, {"target", "black"}};
    tplan_domain *pd = tplan_domain_load_file(DOMAINS "/pool.lua", pp, 2, &pdef, &e);
    tplan_domain_free(pd);
    tplan_domain *bad = tplan_domain_load_string("bad.lua", "print('x') error('boom')", 24, NULL, 0, NULL, &e);

    fflush(stdout);
    fflush(stderr);
    dup2(saved1, 1);
    dup2(saved2, 2);
    close(saved1);
    close(saved2);
    off_t captured = lseek(cap, 0, SEEK_END);
    close(cap);
    unlink(path);

    assert_null(bad);
    assert_int_equal(e.code, TPLAN_ERR_SCRIPT);
    assert_int_equal(captured, 0); /* not one byte on fd 1 or 2 */
    assert_int_equal(prints_load, 1);
    assert_int_equal(prints_plan, 2); /* the plan ran the script again */
    assert_string_equal(out.text, "hello\t1.5\t2.5\nhello\t1.5\t2.5\n");
    assert_int_equal(out.comma_seen, 0);
    assert_non_null(pd);
    assert_int_equal(pool.prints, 1);
    assert_non_null(strstr(pool.text, "pool: every direct shot at black has a ball in the way"));
}

/* ---- strict JSON ---- */

static void test_json_strict(void **state)
{
    (void)state;
    tplan_run_def def;
    tplan_run_def_init(&def);
    tplan_error e;
    assert_int_equal(tplan_run_def_from_json(&def, "{\"seed\": 3} trailing", 20, &e), TPLAN_ERR_ARGUMENT);
    assert_non_null(strstr(e.message, "text after the JSON value at line 1, column 13"));
    assert_int_equal(def.seed, -1); /* unchanged */
    assert_int_equal(tplan_run_def_from_json(&def, "{\"seed\": 3} {}", 15, &e), TPLAN_ERR_ARGUMENT);
    assert_int_equal(tplan_run_def_from_json(&def, "{\"seed\":1}\0junk", 15, &e), TPLAN_ERR_ARGUMENT);
    assert_non_null(strstr(e.message, "NUL byte"));
    assert_int_equal(tplan_run_def_from_json(&def, "{\"seed\": 3} \n\t", 14, &e), TPLAN_OK);
    assert_int_equal(def.seed, 3);
    assert_int_equal(tplan_run_def_from_json(&def, "{\"seed\": ", 9, &e), TPLAN_ERR_ARGUMENT);
    assert_non_null(strstr(e.message, "not valid JSON"));
    assert_int_equal(tplan_run_def_from_json(&def, "[1] x", 5, &e), TPLAN_ERR_ARGUMENT);

    assert_null(tplan_run_def_to_json(NULL));
    tplan_run_def_init(&def);
    def.mu = 0.0 / 0.0;
    assert_null(tplan_run_def_to_json(&def)); /* not "{}", which reads back as the defaults */
    assert_int_equal(tplan_run_def_check(&def, &e), TPLAN_ERR_ARGUMENT);
    assert_string_equal(e.field, "mu");
    tplan_run_def_init(&def);
    def.seed = -7;
    assert_null(tplan_run_def_to_json(&def));
    def.seed = 7;
    char *json = tplan_run_def_to_json(&def);
    assert_non_null(json);
    assert_string_equal(json, "{\"seed\":7}");
    tplan_free(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_strict),
        cmocka_unit_test(test_output_not_stdio),
        cmocka_unit_test(test_ode_state),
        cmocka_unit_test(test_comma_locale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
