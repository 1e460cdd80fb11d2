/* tplan state: the state at a step of a plan, as a state file (docs/embedding.md, "States");
 * tplan simulate: a state stepped with controls through the planner's own physics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tp/base.h"

#define TP_MAX_STATE_BYTES (256u << 20) /* a state file of 400 dice is 130 KB */

tplan_state *tpCli_ReadState(const char *path)
{
    char err[1024], q[512];
    size_t len = 0;
    char *text = tpFile_Read(path, TP_MAX_STATE_BYTES, &len, err, sizeof err);
    if (!text) {
        tpLog(TP_LOG_ERROR, "%s", err);
        return NULL;
    }
    tplan_error e;
    tplan_state *s = tpState_Parse(text, len, &e);
    free(text);
    if (!s) { /* "state: bodies.cue: ..." -> "FILE: bodies.cue: ..." */
        tpLog(TP_LOG_ERROR, "%s: %s", tpCli_Escape(path, q, sizeof q),
              strncmp(e.message, "state: ", 7) == 0 ? e.message + 7 : e.message);
    }
    return s;
}

/* Writes a state file to path, or to stdout for NULL or "-". False after printing why. */
static bool write_state(const tplan_state *s, const char *path)
{
    char *text = tpState_ToJson(s);
    if (!text) {
        tpLog(TP_LOG_ERROR, "out of memory");
        return false;
    }
    const size_t len = strlen(text);
    bool ok;
    char err[512];
    if (!path || strcmp(path, "-") == 0) {
        ok = fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0;
        snprintf(err, sizeof err, "stdout: write error");
    } else {
        tpFileOut out;
        FILE *f = tpFile_OpenOut(&out, path, "wb", err, sizeof err);
        ok = f && fwrite(text, 1, len, f) == len;
        if (f && !ok) {
            tpFile_AbortOut(&out);
        }
        ok = ok && tpFile_CommitOut(&out, err, sizeof err);
    }
    if (!ok) {
        char q[512];
        tpLog(TP_LOG_ERROR, "%s: %s", path ? tpCli_Escape(path, q, sizeof q) : "stdout", err);
    }
    free(text);
    return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* tplan state                                                                                 */

static void state_usage(FILE *f)
{
    fprintf(f, "usage: tplan state PLAN.json --step N [options]\n"
               "\n"
               "Writes the state of the plan's world at step N (0 = its start) as a state file: every moving\n"
               "body's pose, velocity and rest count and the time, exactly as the planner had them (the plan\n"
               "is replayed bit for bit up to there in its domain, embedded in the plan). 'tplan plan DOMAIN\n"
               "--state FILE' plans from it, 'tplan simulate DOMAIN --state FILE' steps it.\n"
               "\n"
               "  --step N        the step, 0..the world's steps (required)\n"
               "  --world W       the plan's world: 0 its selected solution (default), k its alternative k\n"
               "  --domain FILE   use this script instead of the one embedded in the plan\n"
               "  --tactics       add the tactics' state (each tactic's skill, busy flag and skill variables,\n"
               "                  which a plan file does not record) by making the plan's search again: a\n"
               "                  planning run's time; exit 1 when that search is not the plan bit for bit\n"
               "  -o, --out FILE  write the state there (default: stdout)\n"
               "  -h, --help      this help\n"
               "\n"
               "exit status: 0 written, 1 the replay differs from the plan, 2 bad input.\n");
}

int tpCmd_State(int argc, char **argv)
{
    enum { OPT_STEP = TP_OPT_FIRST_FREE, OPT_WORLD, OPT_DOMAIN, OPT_TACTICS };
    static const struct option longopts[] = {
        {"step", required_argument, NULL, OPT_STEP},
        {"world", required_argument, NULL, OPT_WORLD},
        {"domain", required_argument, NULL, OPT_DOMAIN},
        {"tactics", no_argument, NULL, OPT_TACTICS},
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool tactics = false;
    tpCliArgs args = {.argc = argc, .argv = argv, .cmd = "state", .shortopts = "ho:", .longopts = longopts};
    const char *plan_path = NULL, *out = NULL, *domain = NULL;
    long long step = -1, world = 0;
    int c;
    while ((c = tpCli_NextOption(&args)) != -1) {
        switch (c) {
        case 'h':
            state_usage(stdout);
            return TP_EXIT_OK;
        case 'o':
            out = args.value;
            break;
        case OPT_STEP:
            if (!tpCli_ParseInt("--step", args.value, 0, 1000000000, &step)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case OPT_WORLD:
            if (!tpCli_ParseInt("--world", args.value, 0, 1000000000, &world)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case OPT_DOMAIN:
            domain = args.value;
            break;
        case OPT_TACTICS:
            tactics = true;
            break;
        case 1:
            if (!tpCli_OneArgument(args.value, &plan_path)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        default:
            return TP_EXIT_BAD_INPUT;
        }
    }
    if (!plan_path || step < 0) {
        if (plan_path) {
            tpLog(TP_LOG_ERROR, "--step N is required (0 = the plan's start)");
        } else {
            state_usage(stderr);
        }
        return TP_EXIT_BAD_INPUT;
    }
    char err[2048] = "";
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    if (!tpPlanRecord_Read(&rec, plan_path, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "%s", err);
        return TP_EXIT_BAD_INPUT;
    }
    int code = TP_EXIT_BAD_INPUT;
    tpScriptFile *files = NULL;
    tpScript *script = NULL;
    char q[512];
    tpCli_Escape(plan_path, q, sizeof q);
    if (world >= rec.nworlds) {
        tpLog(TP_LOG_ERROR, "%s: --world %lld: the plan has worlds 0..%d", q, world, rec.nworlds - 1);
    } else if (step > rec.worlds[world].nsteps) {
        tpLog(TP_LOG_ERROR, "%s: --step %lld: world %lld has steps 0..%d", q, step, world, rec.worlds[world].nsteps);
    } else if ((script = tpCli_LoadPlanScript(plan_path, domain, &rec, true, false, &files))) {
        tplan_error e;
        tplan_state *s = tpState_FromPlan(tpScript_Domain(script), &rec, (int)world, (int)step, &e);
        tpScriptFile *files2 = NULL;
        tpScript *fresh = s && tactics ? tpCli_LoadPlanScript(plan_path, domain, &rec, true, true, &files2) : NULL;
        if (s && tactics && (!fresh || !tpState_RemakeTactics(fresh, &rec, (int)world, (int)step, s, &e))) {
            if (!fresh) {
                e.code = TPLAN_ERR_SCRIPT;
                snprintf(e.message, sizeof e.message, "the plan's script could not be loaded again");
            }
            tplan_state_free(s);
            s = NULL;
        }
        tpDestroyScript(fresh);
        free(files2);
        if (!s) {
            tpLog(TP_LOG_ERROR, "%s: %s", q, e.message);
            code = e.code == TPLAN_ERR_MISMATCH || e.code == TPLAN_ERR_NOMEM ? TP_EXIT_FAILURE : TP_EXIT_BAD_INPUT;
        } else {
            code = write_state(s, out) ? TP_EXIT_OK : TP_EXIT_FAILURE;
        }
        tplan_state_free(s);
    }
    tpDestroyScript(script);
    free(files);
    tpPlanRecord_Free(&rec);
    return code;
}

/* ------------------------------------------------------------------------------------------ */
/* tplan simulate                                                                              */

static void simulate_usage(FILE *f)
{
    fprintf(f, "usage: tplan simulate DOMAIN --state FILE [options]\n"
               "\n"
               "Steps the state in FILE (a state file: 'tplan state', docs/embedding.md) through the domain's\n"
               "physics exactly as the planner does (its substeps, sleeping and rest counts), and writes the\n"
               "state at the end. With a plan's controls from the plan's start state, the result is the\n"
               "plan's state at that step bit for bit ('tplan state PLAN --step N').\n"
               "\n"
               "  --state FILE      the state to start from (required)\n"
               "  --controls PLAN   apply the controls of this plan file's world (its controlled bodies must\n"
               "                    be the domain's); without it, no forces\n"
               "  --world W         the plan's world: 0 its selected solution (default), k its alternative k\n"
               "  --steps N         steps to make (>= 1; default: all of the plan's world; required without\n"
               "                    --controls)\n"
               "  --set NAME=VALUE  override a script parameter read with tp.param (repeatable)\n"
               "  -o, --out FILE    write the state there (default: stdout)\n"
               "  -h, --help        this help\n"
               "\n"
               "exit status: 0 written, 2 bad input (a state or controls that do not fit the domain, a step\n"
               "that leaves the physical ranges or the penetration limits), 1 internal failure.\n");
}

/* The controls of world w of the plan at path for the domain, steps rows of 6 doubles per control
 * slot (malloc'd), and *steps (the world's when 0 on entry, else checked against it). NULL after
 * printing why. */
static double *plan_controls(const char *path, long long w, const tpWorld *world, long long *steps, double **targets)
{
    char err[2048], q[512];
    tpCli_Escape(path, q, sizeof q);
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    if (!tpPlanRecord_Read(&rec, path, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "%s", err);
        return NULL;
    }
    double *a = NULL;
    const int nc = tpWorld_ControlCount(world);
    if (w >= rec.nworlds) {
        tpLog(TP_LOG_ERROR, "%s: --world %lld: the plan has worlds 0..%d", q, w, rec.nworlds - 1);
    } else if (*steps > rec.worlds[w].nsteps) {
        tpLog(TP_LOG_ERROR, "%s: --steps %lld: world %lld has %d steps", q, *steps, w, rec.worlds[w].nsteps);
    } else if (rec.worlds[w].nsteps == 0) {
        tpLog(TP_LOG_ERROR, "%s: world %lld has no steps", q, w);
    } else {
        *steps = *steps > 0 ? *steps : rec.worlds[w].nsteps;
        a = calloc((size_t)*steps * 6 * (size_t)nc + 1, sizeof *a);
        if (!a) {
            tpLog(TP_LOG_ERROR, "out of memory");
        }
        for (int k = 0; a && k < nc; ++k) {
            const char *name = tpWorld_Body(world, tpWorld_ControlBody(world, k))->name;
            int b = 0;
            while (b < rec.nbodies && strcmp(rec.bodies[b].name, name) != 0) {
                ++b;
            }
            if (b == rec.nbodies || !rec.worlds[w].controls[b]) {
                tpLog(TP_LOG_ERROR, "%s: the plan has no controls for body '%s' of the domain", q, name);
                free(a);
                a = NULL;
                break;
            }
            for (long long i = 0; i < *steps; ++i) {
                memcpy(a + ((size_t)i * (size_t)nc + (size_t)k) * 6, rec.worlds[w].controls[b] + (size_t)i * 6,
                       6 * sizeof *a);
            }
        }
    }
    const int nm = tpWorld_MotorCount(world);
    if (a && nm > 0) { /* the driven motors' targets, matched by joint name and axis */
        *targets = calloc((size_t)*steps * (size_t)nm + 1, sizeof **targets);
        for (int m = 0; *targets && m < nm; ++m) {
            int axis = 0;
            const char *name = tpWorld_Joint(world, tpWorld_MotorJoint(world, m, &axis))->name;
            int e = 0;
            while (e < rec.nmotors && (strcmp(rec.motors[e].joint, name) != 0 || rec.motors[e].axis != axis)) {
                ++e;
            }
            if (e == rec.nmotors) {
                tpLog(TP_LOG_ERROR, "%s: the plan has no motor targets for joint '%s' axis %d of the domain", q, name,
                      axis + 1);
                free(*targets);
                *targets = NULL;
                break;
            }
            for (long long i = 0; i < *steps; ++i) {
                (*targets)[(size_t)i * (size_t)nm + (size_t)m] =
                    rec.worlds[w].targets[(size_t)i * (size_t)rec.nmotors + (size_t)e];
            }
        }
        if (!*targets) {
            free(a);
            a = NULL;
        }
    }
    tpPlanRecord_Free(&rec);
    return a;
}

int tpCmd_Simulate(int argc, char **argv)
{
    enum { OPT_STATE = TP_OPT_FIRST_FREE, OPT_CONTROLS, OPT_WORLD, OPT_STEPS, OPT_SET };
    static const struct option longopts[] = {
        {"state", required_argument, NULL, OPT_STATE},
        {"controls", required_argument, NULL, OPT_CONTROLS},
        {"world", required_argument, NULL, OPT_WORLD},
        {"steps", required_argument, NULL, OPT_STEPS},
        {"set", required_argument, NULL, OPT_SET},
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    tpCliArgs args = {.argc = argc, .argv = argv, .cmd = "simulate", .shortopts = "ho:", .longopts = longopts};
    const char *domain_arg = NULL, *state_path = NULL, *controls = NULL, *out = NULL;
    long long world = 0, steps = 0;
    tpCliParams params = {0};
    int c;
    while ((c = tpCli_NextOption(&args)) != -1) {
        switch (c) {
        case 'h':
            simulate_usage(stdout);
            return TP_EXIT_OK;
        case 'o':
            out = args.value;
            break;
        case OPT_STATE:
            state_path = args.value;
            break;
        case OPT_CONTROLS:
            controls = args.value;
            break;
        case OPT_WORLD:
            if (!tpCli_ParseInt("--world", args.value, 0, 1000000000, &world)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case OPT_STEPS:
            if (!tpCli_ParseInt("--steps", args.value, 1, 1000000000, &steps)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case OPT_SET:
            if (!tpCli_AddParam(&params, (char *)args.value)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case 1:
            if (!tpCli_OneArgument(args.value, &domain_arg)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        default:
            return TP_EXIT_BAD_INPUT;
        }
    }
    if (!domain_arg || !state_path || (!controls && steps == 0)) {
        if (!domain_arg) {
            simulate_usage(stderr);
        } else {
            tpLog(TP_LOG_ERROR, "%s",
                  !state_path ? "--state FILE is required" : "--steps N is required without --controls");
        }
        return TP_EXIT_BAD_INPUT;
    }
    char path[4096], q[512];
    if (!tpCli_ResolveDomain(domain_arg, path, sizeof path)) {
        tpLog(TP_LOG_ERROR, "no such domain '%s' (not a file, and not a built-in: see 'tplan domains')",
              tpCli_Escape(domain_arg, q, sizeof q));
        return TP_EXIT_BAD_INPUT;
    }
    tplan_state *s = tpCli_ReadState(state_path);
    if (!s) {
        return TP_EXIT_BAD_INPUT;
    }
    tpCliPlanOpts o;
    tpCli_PlanOptsInit(&o);
    o.name = tpCli_DomainName(domain_arg, path);
    tpScriptDef sdef = tpCli_ScriptDef(&o, path, params.items, params.n);
    char err[2048] = "";
    tpScript *script = tpCreateScript(&sdef, err, sizeof err);
    int code = TP_EXIT_BAD_INPUT;
    double *a = NULL, *targets = NULL;
    if (!script) {
        tpCli_PrintError(err);
    } else if (!controls ||
               (a = plan_controls(controls, world, tpDomain_World(tpScript_Domain(script)), &steps, &targets))) {
        tplan_error e;
        if (tpState_Simulate(tpScript_Domain(script), s, (int)steps, a, targets, NULL, &e) != TPLAN_OK) {
            tpLog(TP_LOG_ERROR, "%s: %s", tpCli_Escape(state_path, q, sizeof q),
                  strncmp(e.message, "state: ", 7) == 0 ? e.message + 7 : e.message);
            code = e.code == TPLAN_ERR_NOMEM ? TP_EXIT_FAILURE : TP_EXIT_BAD_INPUT;
        } else {
            code = write_state(s, out) ? TP_EXIT_OK : TP_EXIT_FAILURE;
        }
    }
    free(a);
    free(targets);
    tpDestroyScript(script);
    tplan_state_free(s);
    return code;
}
