/* The tplan program's shared pieces (cli/cli_util.c, cli/plan_run.c) without running the
 * program: the getopt wrapper every subcommand uses, number parsing with ranges, the planner
 * options as a run definition (tplan_run_def), --set, output/input clashes, escaping, how a
 * built-in domain is named, the hard deadline (cli/watchdog.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

enum { OPT_X = TP_OPT_FIRST_FREE };

static const struct option k_own[] = {
    {"out", required_argument, NULL, 'o'},
    {"flag", no_argument, NULL, OPT_X},
    {NULL, 0, NULL, 0},
};

/* The option code of the run definition's field `name` (tpCli_FieldOptions). */
static int field_opt(const char *name)
{
    const tpRunField *f = tpRun_FindField(name);
    assert_non_null(f);
    return TP_OPT_FIELD + (int)(f - tpRun_Fields);
}

/* Runs tpCli_NextOption over argv and writes the codes (and values) it returned into out. */
static void parse_all(char **argv, int argc, char *out, size_t cap)
{
    struct option longopts[64];
    tpCli_FieldOptions(k_own, longopts, 64);
    tpCliArgs a = {.argc = argc, .argv = argv, .cmd = "test", .shortopts = "qo:", .longopts = longopts};
    out[0] = '\0';
    int c;
    while ((c = tpCli_NextOption(&a)) != -1) {
        char item[128];
        if (c == 1) {
            snprintf(item, sizeof item, "[%s]", a.value);
        } else if (c == '?' || c == ':') {
            snprintf(item, sizeof item, "<bad>");
        } else {
            snprintf(item, sizeof item, "%d=%s", c, a.value ? a.value : "");
        }
        strncat(out, item, cap - strlen(out) - 1);
    }
}

static void test_next_option(void **state)
{
    (void)state;
    char out[512];
    char *v1[] = {"plan", "dom.lua", "--seed", "7", "-q", "--out=x.json", "more", NULL};
    parse_all(v1, 7, out, sizeof out);
    /* positional arguments in order, both option forms, -q without a value */
    assert_non_null(strstr(out, "[dom.lua]"));
    assert_non_null(strstr(out, "=7"));
    assert_non_null(strstr(out, "111=x.json")); /* 'o' */
    assert_non_null(strstr(out, "[more]"));
    /* "--" ends the options: what follows is positional, even "--seed" */
    char *v2[] = {"plan", "--", "--seed", "a", NULL};
    parse_all(v2, 4, out, sizeof out);
    assert_string_equal(out, "[--seed][a]");
    /* long options must be spelt in full; a missing value and an unknown option are refused */
    char *v3[] = {"plan", "--se", "1", NULL};
    parse_all(v3, 3, out, sizeof out);
    assert_non_null(strstr(out, "<bad>"));
    char *v4[] = {"plan", "--seed", NULL};
    parse_all(v4, 2, out, sizeof out);
    assert_string_equal(out, "<bad>");
    char *v5[] = {"plan", "--nope", NULL};
    parse_all(v5, 2, out, sizeof out);
    assert_string_equal(out, "<bad>");
}

static void test_numbers(void **state)
{
    (void)state;
    long long n;
    double d;
    assert_true(tpCli_ParseInt("--seed", "4294967295", 0, 4294967295LL, &n));
    assert_int_equal(n, 4294967295LL);
    assert_false(tpCli_ParseInt("--seed", "4294967296", 0, 4294967295LL, &n));
    assert_false(tpCli_ParseInt("--seed", " 7", 0, 10, &n));
    assert_false(tpCli_ParseInt("--seed", "7 ", 0, 10, &n));
    assert_false(tpCli_ParseInt("--seed", "0x10", 0, 100, &n));
    assert_false(tpCli_ParseInt("--seed", "", 0, 100, &n));
    assert_false(tpCli_ParseInt("--seed", "99999999999999999999", 0, 100, &n));
    assert_true(tpCli_ParseDouble("--mu", "2.5", 0, true, INFINITY, &d));
    assert_true(d == 2.5);
    assert_false(tpCli_ParseDouble("--mu", "0", 0, true, INFINITY, &d)); /* lower bound open */
    assert_true(tpCli_ParseDouble("--time-limit", "0", 0, false, INFINITY, &d));
    assert_false(tpCli_ParseDouble("--mu", "nan", 0, true, INFINITY, &d));
    assert_false(tpCli_ParseDouble("--mu", "inf", 0, true, INFINITY, &d));
    assert_false(tpCli_ParseDouble("--mu", "1e999", 0, true, INFINITY, &d));
}

/* The planner options fill the run definition; anything left out stays "the domain's". */
static void test_planner_options(void **state)
{
    (void)state;
    tpCliPlanOpts o;
    tpCli_PlanOptsInit(&o);
    assert_int_equal(o.run.seed, -1);
    assert_true(o.run.time_limit == -1);
    assert_int_equal(tpCli_PlannerOption(&o, field_opt("seed"), "12"), 1);
    assert_int_equal(tpCli_PlannerOption(&o, field_opt("planner"), "rrt"), 1);
    assert_int_equal(tpCli_PlannerOption(&o, field_opt("time_limit"), "0"), 1);
    assert_int_equal(tpCli_PlannerOption(&o, field_opt("nn_index"), NULL), 1);
    assert_int_equal(tpCli_PlannerOption(&o, field_opt("memory_mb"), "64"), 1);
    assert_int_equal(tpCli_PlannerOption(&o, field_opt("search_memory_mb"), "100"), 1);
    assert_int_equal(o.run.seed, 12);
    assert_int_equal(o.run.planner, TPLAN_PLANNER_RRT);
    assert_true(o.run.time_limit == 0);
    assert_int_equal(o.run.nn_index, 0);
    assert_int_equal(o.run.memory_limit_mb, 64);
    assert_int_equal(o.run.search_memory_mb, 100);
    tplan_error e;
    assert_int_equal(tplan_run_def_check(&o.run, &e), TPLAN_OK);
    char *json = tplan_run_def_to_json(&o.run);
    assert_non_null(strstr(json, "\"seed\":12"));
    tplan_free(json);
    /* refusals leave a message and a -1; an option that is not a planner option is 0 */
    assert_int_equal(tpCli_PlannerOption(&o, field_opt("planner"), "astar"), -1);
    assert_int_equal(tpCli_PlannerOption(&o, field_opt("seed"), "-1"), -1);
    assert_int_equal(tpCli_PlannerOption(&o, field_opt("memory_mb"), "15"), -1);
    assert_int_equal(tpCli_PlannerOption(&o, field_opt("solutions"), "0"), -1);
    assert_int_equal(tpCli_PlannerOption(&o, 'q', NULL), 0);
    assert_int_equal(o.run.seed, 12); /* a refused value changed nothing that was checked */
}

/* --help's planner lines and the getopt entries are the table's rows (tp/run_fields.h), and a
   library message's field words become the flags. */
static void test_field_options(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    tpCli_FieldHelp(f);
    fclose(f);
    struct option longopts[64];
    tpCli_FieldOptions(k_own, longopts, 64);
    int nrows = 0;
    for (int i = 0; i < tpRun_FieldCount; ++i) {
        const tpRunField *r = &tpRun_Fields[i];
        if (!(r->who & TP_RUNF_CLI)) {
            assert_null(tpCli_FieldOf(TP_OPT_FIELD + i));
            continue;
        }
        char line[96];
        snprintf(line, sizeof line, "  %s%s%s ", r->flag, r->arg ? " " : "", r->arg ? r->arg : "");
        assert_non_null(strstr(text, line));
        char first[64];
        snprintf(first, sizeof first, "%.40s", r->help);
        assert_non_null(strstr(text, first));
        assert_string_equal(longopts[nrows].name, r->flag + 2);
        assert_int_equal(longopts[nrows].has_arg, r->arg ? required_argument : no_argument);
        assert_ptr_equal(tpCli_FieldOf(longopts[nrows].val), r);
        ++nrows;
    }
    assert_string_equal(longopts[nrows].name, "out"); /* then the command's own */
    assert_null(longopts[nrows + 2].name);
    free(text);
    char buf[256];
    assert_string_equal(tpCli_FlagWords("x.lua:3: memory limit of 64 MB exceeded (memory_mb)", buf, sizeof buf),
                        "x.lua:3: memory limit of 64 MB exceeded (--memory-limit)");
    assert_string_equal(tpCli_FlagWords("time limit exceeded (time_limit 2 s, plus 1 s of grace)", buf, sizeof buf),
                        "time limit exceeded (--time-limit 2 s, plus 1 s of grace)");
    assert_string_equal(tpCli_FlagWords("ran longer than 1 s: call_time_limit)", buf, sizeof buf),
                        "ran longer than 1 s: --call-time-limit)");
}

static void test_params(void **state)
{
    (void)state;
    tpCliParams p = {0};
    char a[] = "speed=2.5", b[] = "mode=single", c[] = "speed=3", d[] = "noequals", e[] = "=x";
    assert_true(tpCli_AddParam(&p, a));
    assert_true(tpCli_AddParam(&p, b));
    assert_int_equal(p.n, 2);
    assert_string_equal(p.items[0].name, "speed");
    assert_string_equal(p.items[0].value, "2.5");
    assert_false(tpCli_AddParam(&p, c)); /* given twice */
    assert_false(tpCli_AddParam(&p, d));
    assert_false(tpCli_AddParam(&p, e));
    assert_int_equal(p.n, 2);
}

static void test_escape_and_names(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(tpCli_Escape("a\nb\t\x1b", buf, sizeof buf), "a\\nb\\t\\x1b");
    assert_string_equal(tpCli_Escape(NULL, buf, sizeof buf), "");
    char small[8];
    tpCli_Escape("abcdefghij", small, sizeof small);
    assert_true(strlen(small) > 0 && strlen(small) < sizeof small); /* cut (room kept for an escape), terminated */
    assert_int_equal(strncmp(small, "abcdefghij", strlen(small)), 0);
    /* a built-in domain is named by its file name, a path as given */
    char path[4096];
    assert_true(tpCli_ResolveDomain("minigolf", path, sizeof path));
    assert_string_equal(tpCli_DomainName("minigolf", path), "minigolf.lua");
    assert_null(tpCli_DomainName(path, path));
    assert_false(tpCli_ResolveDomain("no_such_domain_xyz", path, sizeof path));
    /* a build tree's tplan uses the source tree's folders */
    assert_string_equal(tpCli_DataDir("domains", TP_SOURCE_DOMAINS), TP_SOURCE_DOMAINS);
}

/* An output may not be an input, nor another output. */
static void test_check_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/tplan_test_cli_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char in[4200], out[4200], link[4200];
    snprintf(in, sizeof in, "%s/plan.json", dir);
    snprintf(out, sizeof out, "%s/./plan.json", dir);
    snprintf(link, sizeof link, "%s/other.json", dir);
    FILE *f = fopen(in, "w");
    fclose(f);
    assert_int_equal(symlink(in, link), 0);
    const tpCliFile same[] = {{"the plan", in, false}, {"--out", out, true}};
    assert_false(tpCli_CheckFiles(same, 2)); /* the same file by another spelling */
    const tpCliFile linked[] = {{"the plan", in, false}, {"--out", link, true}};
    assert_false(tpCli_CheckFiles(linked, 2)); /* through a link */
    char fresh[4200], fresh2[4200];
    snprintf(fresh, sizeof fresh, "%s/new.glb", dir);
    snprintf(fresh2, sizeof fresh2, "%s/../%s/new.glb", dir, strrchr(dir, '/') + 1);
    const tpCliFile two_outs[] = {{"--out", fresh, true}, {"--tree", fresh2, true}};
    assert_false(tpCli_CheckFiles(two_outs, 2)); /* two outputs, one file not yet there */
    const tpCliFile fine[] = {{"the plan", in, false}, {"--out", fresh, true}, {"--tree", NULL, true}};
    assert_true(tpCli_CheckFiles(fine, 3));
    const tpCliFile devnull[] = {{"--out", "/dev/null", true}, {"--tree", "/dev/null", true}};
    assert_true(tpCli_CheckFiles(devnull, 2));
    unlink(link);
    unlink(in);
    rmdir(dir);
}

/* Runs fn in a child with stderr into a pipe: its exit status and what it wrote (into out). */
static int in_child(void (*fn)(double), double arg, char *out, size_t cap)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], STDERR_FILENO);
        fn(arg);
        _exit(99); /* fn does not return: the watchdog ends the process */
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fd[0], out + n, cap - 1 - n)) > 0) {
        n += (size_t)r;
    }
    out[n] = '\0';
    close(fd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A script armed 20 s ago with a 5 s limit, still running (a C call the limit could not stop). */
static void overdue_script(double unused)
{
    (void)unused;
    assert_true(tpCli_WatchdogStart("unit.lua", 0));
    double now = tpClock_Now();
    tpCli_WatchdogOnDeadline(NULL, now - 20, now - 15);
    for (;;) {
        pause();
    }
}

/* The same with no label (bench): the message names the script that overran. */
static void overdue_unlabelled(double unused)
{
    (void)unused;
    assert_true(tpCli_WatchdogStart(NULL, 0));
    double now = tpClock_Now();
    tpCli_WatchdogOnDeadline((void *)"domains/dice.lua", now - 30, now - 20);
    for (;;) {
        pause();
    }
}

static void hard_deadline_only(double seconds)
{
    assert_true(tpCli_WatchdogStart("unit.plan.json", seconds));
    for (;;) {
        pause();
    }
}

/* The hard deadline (cli/watchdog.c): past the armed limit by 10 s + 10 %, or past --hard-deadline,
   the process ends with exit 4 and one line saying how long it ran against which limit. */
static void test_watchdog(void **state)
{
    (void)state;
    char out[2048];
    assert_int_equal(in_child(overdue_script, 0, out, sizeof out), TP_EXIT_HARD_DEADLINE);
    assert_non_null(strstr(out, "tplan: error: unit.lua: the script ran 20."));
    assert_non_null(strstr(out, "s, 15."));
    assert_non_null(strstr(out, "s past its time limit of 5 s"));
    assert_non_null(strstr(out, "stopped at the hard deadline (the limit plus 10 s + 10 %)"));
    assert_non_null(strchr(out, '\n'));
    assert_int_equal(strchr(out, '\n')[1], '\0'); /* one line */
    assert_int_equal(in_child(overdue_unlabelled, 0, out, sizeof out), TP_EXIT_HARD_DEADLINE);
    assert_non_null(strstr(out, "tplan: error: domains/dice.lua: the script ran 30."));
    assert_non_null(strstr(out, "s past its time limit of 10 s"));
    assert_int_equal(in_child(hard_deadline_only, 0.01, out, sizeof out), TP_EXIT_HARD_DEADLINE);
    assert_non_null(strstr(out, "tplan: error: unit.plan.json: still running "));
    assert_non_null(strstr(out, "s after the start: stopped at the hard deadline (--hard-deadline 0.01)\n"));
}

/* The start handshake (cli/watchdog.c): Start and Resume return with the thread already running,
   Pause with it gone; without the handshake the thread is usually not yet scheduled on return. */
static void started_and_paused(double rounds)
{
    int bad = 0;
    if (!tpCli_WatchdogStart("unit", 0) || !tpCli_WatchdogRunning()) {
        bad |= 1;
    }
    for (int i = 0; i < (int)rounds; i++) {
        tpCli_WatchdogPause();
        if (tpCli_WatchdogRunning()) {
            bad |= 2;
        }
        tpCli_WatchdogResume();
        if (!tpCli_WatchdogRunning()) {
            bad |= 4;
        }
    }
    _exit(bad);
}

static void test_watchdog_started(void **state)
{
    (void)state;
    char out[256];
    assert_int_equal(in_child(started_and_paused, 20, out, sizeof out), 0);
}

int main(void)
{
    tpLog_SetLevel(TP_LOG_QUIET); /* the refusals' messages are expected */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next_option),   cmocka_unit_test(test_numbers),  cmocka_unit_test(test_planner_options),
        cmocka_unit_test(test_field_options), cmocka_unit_test(test_params),   cmocka_unit_test(test_escape_and_names),
        cmocka_unit_test(test_check_files),   cmocka_unit_test(test_watchdog), cmocka_unit_test(test_watchdog_started),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
