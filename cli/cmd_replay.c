/* tplan replay: re-run a plan's recorded controls through the domain and check every state
 * bit for bit, then check the goal. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_validate.h"
#include "cmd_opts.h"
#include "tp/base.h"
#include "tplan/version.h"

static void replay_usage(FILE *f)
{
    fprintf(f, "usage: tplan replay PLAN.json [options]\n"
               "\n"
               "Loads the plan's domain script (the script and the files it read, embedded in the plan;\n"
               "older plans: the path recorded in the plan) with its recorded --set overrides,\n"
               "re-simulates the recorded controls from the recorded initial state and checks\n"
               "that every body's state matches the recorded trajectory bit for bit, and that the goal holds\n"
               "at the end of a solved plan.\n"
               "\n"
               "  --domain FILE   use this script (and the files of its folder) instead of the ones\n"
               "                  embedded in the plan\n"
               "  --all           check every recorded solution (many-worlds), not just the selected one\n"
               "  --check         also report the deepest overlap of every touching body pair (m, and the\n"
               "                  step), and fail when a pair overlapped deeper than its limit: the\n"
               "                  limits the planner held every state to, recorded in the plan\n"
               "                  (the domain's max_static_penetration for a body in static geometry,\n"
               "                  max_body_penetration between moving bodies; 5 mm by default)\n"
               "  --tolerance M   check both kinds of pair against M metres instead (0 = no limit)\n"
               "  --load-time-limit S, --call-time-limit S   the script's time limits, as in 'tplan plan'\n"
               "                  (default 10 s each)\n"
               "  --hard-deadline S  stop S s after the start, whatever it is doing (exit 4; default: none;\n"
               "                  the plan's script still running 10 s + 10 %% past one of its time\n"
               "                  limits is stopped so in any case)\n"
               "  -q, --quiet     print nothing but errors\n"
               "  -h, --help      this help\n"
               "\n"
               "exit status: 0 everything matches, 1 a state differs, the goal does not hold (the first\n"
               "differing step is printed) or --check found a pair deeper than its limit, 2 bad input\n"
               "(unreadable plan, script error), 4 stopped at the hard deadline.\n");
}

/* Rebuilds --set parameters from the plan's "overrides" object. Strings point into `json`, or
 * into `bufs` for numbers and booleans. Errors name the plan file and the override. */
static bool params_from_overrides(const char *plan, const char *text, cJSON **json, tpCliParams *params,
                                  char (*bufs)[64])
{
    *json = NULL;
    if (!text) {
        return true;
    }
    char q[512];
    tpCli_Escape(plan, q, sizeof q);
    *json = cJSON_Parse(text);
    if (!*json || !cJSON_IsObject(*json)) {
        tpLog(TP_LOG_ERROR, "%s: overrides: not a JSON object", q);
        return false;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, *json)
    {
        char qn[256];
        tpCli_Escape(it->string, qn, sizeof qn);
        if (params->n >= TP_MAX_PARAMS) {
            tpLog(TP_LOG_ERROR, "%s: overrides: more than %d parameters", q, TP_MAX_PARAMS);
            return false;
        }
        tpScriptParam *p = &params->items[params->n];
        p->name = it->string;
        if (!it->string[0]) {
            tpLog(TP_LOG_ERROR, "%s: overrides: a parameter with an empty name", q);
            return false;
        } else if (cJSON_IsString(it)) {
            p->value = it->valuestring;
        } else if (cJSON_IsNumber(it)) {
            snprintf(bufs[params->n], 64, "%.17g", it->valuedouble);
            p->value = bufs[params->n];
        } else if (cJSON_IsBool(it)) {
            p->value = cJSON_IsTrue(it) ? "true" : "false";
        } else {
            tpLog(TP_LOG_ERROR, "%s: overrides.%s: expected a string, a number or a boolean", q, qn);
            return false;
        }
        params->n++;
    }
    return true;
}

/* A script error caused by one of the plan's overrides (re-applied as parameters: the library's
 * message says "set NAME=VALUE"): the message names the plan file and the override instead of an
 * option the user never gave. */
static bool print_override_error(const char *plan, const tpCliParams *params, const char *err)
{
    for (int i = 0; i < params->n; ++i) {
        const tpScriptParam *p = &params->items[i];
        char set[600], unknown[300], qv[512];
        snprintf(set, sizeof set, "set %s=%s", p->name, p->value);
        snprintf(unknown, sizeof unknown, "unknown parameter '%s'", p->name);
        const char *at = strstr(err, set);
        if (!at) { /* the Lua layer echoes values escaped */
            snprintf(set, sizeof set, "set %s=%s", p->name, tpCli_Escape(p->value, qv, sizeof qv));
            at = strstr(err, set);
        }
        if (!at && !strstr(err, unknown)) {
            continue;
        }
        char msg[4096];
        if (at) { /* "file:line: set NAME=VALUE: why" -> "file:line: 'VALUE': why" */
            snprintf(msg, sizeof msg, "%.*s'%s'%s", (int)(at - err), err, p->value, at + strlen(set));
        } else {
            snprintf(msg, sizeof msg, "%s", err);
        }
        char q[512], qn[256], line[8192];
        snprintf(line, sizeof line, "%s: overrides.%s: %s", tpCli_Escape(plan, q, sizeof q),
                 tpCli_Escape(p->name, qn, sizeof qn), msg);
        tpCli_PrintError(line);
        return true;
    }
    return false;
}

/* Parses the options into o: -1 to go on, else the exit code (--help, a bad option). */
static int replay_parse(int argc, char **argv, tpCliReplayCmd *o)
{
    memset(o, 0, sizeof *o);
    o->tolerance = -1.0;
    enum { OPT_DOMAIN = TP_OPT_FIRST_FREE, OPT_ALL, OPT_CHECK, OPT_TOLERANCE, OPT_LOAD_TIME, OPT_CALL_TIME };
    static const struct option longopts[] = {
        {"domain", required_argument, NULL, OPT_DOMAIN},
        {"all", no_argument, NULL, OPT_ALL},
        {"check", no_argument, NULL, OPT_CHECK},
        {"tolerance", required_argument, NULL, OPT_TOLERANCE},
        {"hard-deadline", required_argument, NULL, TP_OPT_HARD_DEADLINE},
        {"load-time-limit", required_argument, NULL, OPT_LOAD_TIME}, /* the run definition's fields' */
        {"call-time-limit", required_argument, NULL, OPT_CALL_TIME},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    tpCliArgs args = {.argc = argc, .argv = argv, .cmd = "replay", .shortopts = "hq", .longopts = longopts};
    int c;
    while ((c = tpCli_NextOption(&args)) != -1) {
        switch (c) {
        case 'h':
            replay_usage(stdout);
            return TP_EXIT_OK;
        case 'q':
            o->quiet = true;
            break;
        case OPT_ALL:
            o->all = true;
            break;
        case OPT_DOMAIN:
            o->domain_override = args.value;
            break;
        case OPT_CHECK:
            o->check = true;
            break;
        case OPT_LOAD_TIME:
        case OPT_CALL_TIME:
            if (!tpCli_ParseField(tpRun_FindField(c == OPT_LOAD_TIME ? "load_time_limit" : "call_time_limit"),
                                  args.value, c == OPT_LOAD_TIME ? &o->load_time_limit : &o->call_time_limit)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case TP_OPT_HARD_DEADLINE:
            if (!tpCli_ParseDouble(args.name, args.value, 0, false, INFINITY, &o->hard_deadline)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case OPT_TOLERANCE:
            if (!tpCli_ParseDouble(args.name, args.value, 0, false, 1000, &o->tolerance)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case 1:
            if (!tpCli_OneArgument(args.value, &o->plan_path)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        default:
            return TP_EXIT_BAD_INPUT;
        }
    }
    if (!o->plan_path) {
        replay_usage(stderr);
        return TP_EXIT_BAD_INPUT;
    }
    return -1;
}

static void mute_print(void *user, const char *text, size_t len)
{
    (void)user, (void)text, (void)len;
}

/* Loads the plan's script: the one embedded in the plan with every file it read (sources, checked
   against their hashes by the reader), wherever the plan and the domain are; or, with --domain FILE
   and for plans written before sources existed, a script from the disk. *files (freed by the
   caller) holds the embedded files the script reads. NULL after printing why. */
static tpScript *replay_load(const tpCliReplayCmd *o, const tpPlanRecord *rec, tpScriptFile **files)
{
    *files = NULL;
    bool embedded = !o->domain_override && rec->nsources > 0;
    char path[4096];
    const char *want = o->domain_override ? o->domain_override : rec->domain_file;
    if (!embedded && !tpCli_ResolveDomain(want, path, sizeof path)) {
        char q[512];
        tpLog(TP_LOG_ERROR, "%s: domain script '%s' not found (use --domain FILE)", o->plan_path,
              tpCli_Escape(want, q, sizeof q));
        return NULL;
    }
    *files = embedded ? calloc((size_t)rec->nsources, sizeof **files) : NULL;
    cJSON *ov = NULL;
    tpCliParams params = {0};
    char bufs[TP_MAX_PARAMS][64];
    if ((embedded && !*files) || !params_from_overrides(o->plan_path, rec->overrides, &ov, &params, bufs)) {
        cJSON_Delete(ov);
        return NULL;
    }
    tpScriptDef sdef = tpDefaultScriptDef();
    if (o->load_time_limit > 0) {
        sdef.load_time_limit = o->load_time_limit;
    }
    if (o->call_time_limit > 0) {
        sdef.call_time_limit = o->call_time_limit;
    }
    sdef.params = params.items;
    sdef.nparams = params.n;
    if (embedded) {
        for (int k = 0; k < rec->nsources; ++k) {
            (*files)[k] = (tpScriptFile){rec->sources[k].path, rec->sources[k].data, rec->sources[k].len};
        }
        sdef.path = rec->sources[0].path;
        sdef.files = *files;
        sdef.nfiles = rec->nsources;
    } else {
        sdef.path = path;
        sdef.name = tpCli_DomainName(want, path);
    }
    if (o->mute) {
        sdef.print_fn = mute_print;
    }
    tpCli_WatchScript(&sdef); /* a plan from a stranger runs its script: the hard deadline holds */
    char err[2048] = "";
    tpScript *script = tpCreateScript(&sdef, err, sizeof err);
    if (!script && !print_override_error(o->plan_path, &params, err)) {
        tpCli_PrintError(err);
    }
    cJSON_Delete(ov);
    if (script && strcmp(tpScript_Hash(script), rec->domain_hash) != 0) {
        tpLog(TP_LOG_WARN, "%s: the script changed since planning (hash %s, plan recorded %s)", tpScript_Name(script),
              tpScript_Hash(script), rec->domain_hash);
    }
    if (script && embedded && !o->quiet) {
        printf("script: %s and %d more file%s embedded in the plan\n", rec->sources[0].path, rec->nsources - 1,
               rec->nsources == 2 ? "" : "s");
    }
    return script;
}

tpScript *tpCli_LoadPlanScript(const char *plan_path, const char *domain_override, const tpPlanRecord *rec, bool quiet,
                               bool mute, tpScriptFile **files)
{
    tpCliReplayCmd o;
    memset(&o, 0, sizeof o);
    o.plan_path = plan_path;
    o.domain_override = domain_override;
    o.quiet = quiet;
    o.mute = mute;
    return replay_load(&o, rec, files);
}

/* Replays world w (the run's replay: bit for bit, then the goal) and, with --check, its overlaps;
   reports it. The exit code of this world. */
static int replay_world(const tpCliReplayCmd *o, tpDomain *domain, const tpPlanRecord *rec, int w)
{
    char err[2048] = "";
    switch (tpRun_ReplayWorld(domain, rec, w, err, sizeof err)) {
    case TP_RUN_REPLAY_MISFIT: {
        char shown[sizeof err + 64];
        tpLog(TP_LOG_ERROR, "%s: %s", o->plan_path, tpCli_FlagWords(err, shown, sizeof shown));
        /* out of memory is an internal failure (docs/cli.md's exit 1), not a plan that does not fit */
        return strstr(err, "out of memory") ? TP_EXIT_FAILURE : TP_EXIT_BAD_INPUT;
    }
    case TP_RUN_REPLAY_MISMATCH:
        fprintf(stderr, "tplan: replay MISMATCH in world %d: %s\n", w, err);
        if (rec->tplan_version && strcmp(rec->tplan_version, TPLAN_VERSION) != 0) {
            fprintf(stderr, "tplan: the plan was written by tplan %s; this is tplan %s\n", rec->tplan_version,
                    TPLAN_VERSION);
        }
        return TP_EXIT_FAILURE;
    case TP_RUN_REPLAY_ERROR: /* a condition of the goal failed (the script's message) */
        tpCli_PrintError(err);
        return TP_EXIT_BAD_INPUT;
    case TP_RUN_REPLAY_GOAL_FAILS:
        fprintf(stderr, "tplan: replay of world %d matches, but the goal does not hold at its end\n", w);
        return TP_EXIT_FAILURE;
    case TP_RUN_REPLAY_OK:
        break;
    }
    if (!o->quiet) {
        printf("world %d: %d steps replayed bit for bit%s\n", w, rec->worlds[w].nsteps,
               strcmp(rec->status, "solved") == 0 ? "; goal holds" : " (approximate plan)");
    }
    if (!o->check) {
        return TP_EXIT_OK;
    }
    /* the limits the planner held the plan to (older files: the domain's own) */
    const tpSceneDef *sd = tpWorld_Def(tpDomain_World(domain));
    double st = o->tolerance >= 0                  ? o->tolerance
                : rec->max_static_penetration >= 0 ? rec->max_static_penetration
                                                   : sd->max_static_penetration;
    double bt = o->tolerance >= 0                ? o->tolerance
                : rec->max_body_penetration >= 0 ? rec->max_body_penetration
                                                 : sd->max_body_penetration;
    int over = tpCli_ReplayCheck(domain, rec, w, st, bt, 12, o->quiet, err, sizeof err);
    if (over < 0) {
        tpCli_PrintError(err);
    } else if (over > 0) {
        fprintf(stderr,
                "tplan: check of world %d: %d pair%s overlapped deeper than their limit (static geometry %g m, "
                "moving bodies %g m)\n",
                w, over, over == 1 ? "" : "s", st, bt);
    }
    return over == 0 ? TP_EXIT_OK : TP_EXIT_FAILURE;
}

int tpCmd_Replay(int argc, char **argv)
{
    tpCliReplayCmd o;
    int code = replay_parse(argc, argv, &o);
    if (code >= 0) {
        return code;
    }
    TP_VALIDATE(tpCliReplayCmd_Valid, &o); /* the parse kept its rules (cli_validate.c) */
    if (!tpCli_WatchdogStart(o.plan_path, o.hard_deadline)) {
        return TP_EXIT_FAILURE;
    }
    char err[2048] = "";
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    if (!tpPlanRecord_Read(&rec, o.plan_path, err, sizeof err)) {
        fprintf(stderr, "tplan: error: %s\n", err);
        return TP_EXIT_BAD_INPUT;
    }
    tpScriptFile *files = NULL;
    tpScript *script = replay_load(&o, &rec, &files);
    code = script ? TP_EXIT_OK : TP_EXIT_BAD_INPUT;
    int first = o.all ? 0 : rec.selected, last = o.all ? rec.nworlds - 1 : rec.selected;
    for (int w = first; script && w <= last && code == TP_EXIT_OK; ++w) {
        code = replay_world(&o, tpScript_Domain(script), &rec, w);
    }
    if (code == TP_EXIT_OK && !o.quiet) {
        printf("replay OK: %s\n", o.plan_path);
    }
    tpDestroyScript(script);
    free(files);
    tpPlanRecord_Free(&rec);
    return code;
}
