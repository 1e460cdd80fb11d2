/* The embedding API (tplan/tplan.h): domains, plans and replays as handles over tp/run.h.
 * Nothing here prints: every call that does work runs as a tpCall (call.h): the C locale for its
 * numbers, the library's messages (tpLog) and the script's print() to the host's output callback. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "call.h"
#include "tp/base.h"
#include "tp/query.h"
#include "tp/run.h"

const char *tplan_version(void)
{
    return TPLAN_VERSION;
}

int tplan_version_number(void)
{
    return TPLAN_VERSION_NUMBER;
}

const char *tplan_code_name(tplan_code code)
{
    static const char *const names[] = {
        "TPLAN_OK",        "TPLAN_ERR_ARGUMENT",  "TPLAN_ERR_NOMEM",    "TPLAN_ERR_IO",          "TPLAN_ERR_SCRIPT",
        "TPLAN_ERR_LIMIT", "TPLAN_ERR_PLAN_FILE", "TPLAN_ERR_MISMATCH", "TPLAN_ERR_UNSUPPORTED", "TPLAN_ERR_INTERNAL",
    };
    return (int)code >= 0 && (size_t)code < sizeof names / sizeof names[0] ? names[code] : "TPLAN_ERR_UNKNOWN";
}

/* ------------------------------------------------------------------------------------------ */
/* Domains                                                                                     */

static tplan_domain *domain_new_(const char *path, const char *source, size_t len, const tplan_param *params,
                                 int nparams, const tplan_run_def *def, tplan_error *err)
{
    if (!path || nparams < 0 || (nparams > 0 && !params)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s", !path ? "no script path or name (NULL)" : "bad parameters");
        return NULL;
    }
    for (int i = 0; i < nparams; ++i) {
        if (!params[i].name || !params[i].value) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "parameter %d: NULL name or value", i);
            return NULL;
        }
    }
    tplan_run_def limits;
    if (!tpRun_FullDef(def, &limits, err)) {
        return NULL;
    }
    tplan_domain *d = calloc(1, sizeof *d);
    bool ok = d != NULL;
    if (ok) {
        d->limits = limits;
        d->path = strdup(path);
        d->source = source ? malloc(len + 1) : NULL;
        d->source_len = len;
        d->params = nparams > 0 ? calloc((size_t)nparams, sizeof *d->params) : NULL;
        ok = d->path && (!source || d->source) && (nparams == 0 || d->params);
    }
    if (ok && source) {
        memcpy(d->source, source, len);
        d->source[len] = '\0';
    }
    for (int i = 0; ok && i < nparams; ++i) {
        d->params[i].name = strdup(params[i].name);
        d->params[i].value = strdup(params[i].value);
        d->nparams = i + 1;
        ok = d->params[i].name && d->params[i].value;
    }
    if (!ok) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        tplan_domain_free(d);
        return NULL;
    }
    if (tpApi_DomainLoad(d, &d->script, err) != TPLAN_OK) {
        tplan_domain_free(d);
        return NULL;
    }
    tpApi_SetOk(err);
    return d;
}

static tplan_domain *domain_new(const char *path, const char *source, size_t len, const tplan_param *params,
                                int nparams, const tplan_run_def *def, tplan_error *err)
{
    void *user;
    tplan_output_fn output = tpApi_DefOutput(def, &user);
    tpCall call;
    tpCall_Begin(&call, output, user);
    tplan_domain *d = domain_new_(path, source, len, params, nparams, def, err);
    tpCall_End(&call);
    return d;
}

tplan_domain *tplan_domain_load_file(const char *path, const tplan_param *params, int nparams, const tplan_run_def *def,
                                     tplan_error *err)
{
    return domain_new(path, NULL, 0, params, nparams, def, err);
}

tplan_domain *tplan_domain_load_string(const char *name, const char *source, size_t len, const tplan_param *params,
                                       int nparams, const tplan_run_def *def, tplan_error *err)
{
    if (!source) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no script text (NULL)");
        return NULL;
    }
    return domain_new(name, source, len, params, nparams, def, err);
}

void tplan_domain_free(tplan_domain *d)
{
    if (!d) {
        return;
    }
    tpCall call;
    tpCall_Begin(&call, d->limits.output, d->limits.output_user);
    tpDestroyScript(d->script);
    tpCall_End(&call);
    for (int i = 0; i < d->nparams; ++i) {
        free((char *)d->params[i].name);
        free((char *)d->params[i].value);
    }
    free(d->params);
    free(d->source);
    free(d->path);
    free(d);
}

const char *tplan_domain_name(const tplan_domain *d)
{
    return d ? tpDomain_Def(tpScript_Domain(d->script))->name : NULL;
}

int tplan_domain_body_count(const tplan_domain *d)
{
    return d ? tpWorld_BodyCount(tpDomain_World(tpScript_Domain(d->script))) : 0;
}

const char *tplan_domain_body_name(const tplan_domain *d, int body)
{
    if (!d || body < 0 || body >= tplan_domain_body_count(d)) {
        return NULL;
    }
    return tpWorld_Body(tpDomain_World(tpScript_Domain(d->script)), body)->name;
}

const char *tplan_domain_params_json(const tplan_domain *d)
{
    return d ? tpScript_ParamsInfoJson(d->script) : NULL;
}

int tplan_domain_warning_count(const tplan_domain *d)
{
    return d ? tpDomain_WarningCount(tpScript_Domain(d->script)) : 0;
}

const char *tplan_domain_warning(const tplan_domain *d, int i)
{
    if (!d || i < 0 || i >= tplan_domain_warning_count(d)) {
        return NULL;
    }
    return tpDomain_Warning(tpScript_Domain(d->script), i);
}

/* ------------------------------------------------------------------------------------------ */
/* Planning                                                                                    */

bool tpApi_PlanDef(const tplan_domain *d, const tplan_run_def *def0, tplan_run_def *def, tplan_error *err)
{
    if (!tpRun_FullDef(def0, def, err)) {
        return false;
    }
    /* the script limits are the domain's (it was loaded with them) unless the run sets its own */
    def->memory_limit_mb = def->memory_limit_mb > 0 ? def->memory_limit_mb : d->limits.memory_limit_mb;
    def->load_time_limit = def->load_time_limit > 0 ? def->load_time_limit : d->limits.load_time_limit;
    def->call_time_limit = def->call_time_limit > 0 ? def->call_time_limit : d->limits.call_time_limit;
    return true;
}

/* The caller's progress callback, and its answer: stop before the next iteration. */
typedef struct tpProgressLink {
    tplan_progress_fn fn;
    void *user;
    tpCall *call;    /* the plan's call: the host's locale while fn runs */
    int64_t stop_at; /* INT64_MAX: not stopped */
} tpProgressLink;

static void on_progress(void *user, const tpPlanStats *s)
{
    tpProgressLink *l = user;
    tplan_progress p = {s->iterations, s->nodes, s->rejected, s->solutions, s->elapsed};
    if (l->fn && l->stop_at == INT64_MAX) {
        tpCall_ToHost(l->call);
        const int stop = l->fn(l->user, &p);
        tpCall_FromHost(l->call);
        if (stop != 0) {
            l->stop_at = s->iterations; /* the next iteration (iterations + 1) is beyond the bound */
        }
    }
}

static int64_t stop_bound(void *user)
{
    return ((const tpProgressLink *)user)->stop_at;
}

static tplan_result *plan_progress(tplan_domain *d, const tplan_run_def *def0, tplan_progress_fn fn, void *user,
                                   double interval, tpCall *call, tplan_error *err)
{
    if (!d) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no domain (NULL)");
        return NULL;
    }
    if (fn && !(interval > 0 && interval < 1e9)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "progress interval must be a number of seconds > 0");
        return NULL;
    }
    tplan_run_def def;
    if (!tpApi_PlanDef(d, def0, &def, err)) {
        return NULL;
    }
    tpProgressLink link = {fn, user, call, INT64_MAX};
    tpRunHooks hooks;
    memset(&hooks, 0, sizeof hooks);
    hooks.progress = on_progress;
    hooks.progress_user = &link;
    hooks.progress_interval = fn ? interval : 1e9;
    hooks.iteration_bound = fn ? stop_bound : NULL;
    hooks.iteration_bound_user = &link;
    tpScriptDef sdef = tpApi_ScriptDef(d, &def);
    tpRun run;
    tplan_result *r = NULL;
    tplan_code code = tpRun_Plan(&def, &sdef, &hooks, &run, err);
    if (code == TPLAN_OK) {
        r = tpApi_ResultNew();
        char msg[sizeof err->message] = "out of memory";
        if (!r || !tpRun_Record(&run, d->path, &run.res, &r->rec, msg, sizeof msg)) {
            code = strstr(msg, "out of memory") ? TPLAN_ERR_NOMEM : TPLAN_ERR_INTERNAL;
            tpRun_Fail(err, code, NULL, "%s", msg);
            tplan_result_free(r);
            r = NULL;
        }
    }
    tpRun_Free(&run);
    if (r) {
        tpApi_SetOk(err);
    }
    return r;
}

tplan_result *tplan_plan_progress(tplan_domain *d, const tplan_run_def *def, tplan_progress_fn fn, void *user,
                                  double interval, tplan_error *err)
{
    void *out_user; /* the plan's def's output, else the domain's */
    tplan_output_fn output = tpApi_DefOutput(def, &out_user);
    if (!output && d) {
        output = d->limits.output;
        out_user = d->limits.output_user;
    }
    tpCall call;
    tpCall_Begin(&call, output, out_user);
    tplan_result *r = plan_progress(d, def, fn, user, interval, &call, err);
    tpCall_End(&call);
    return r;
}

tplan_result *tplan_plan(tplan_domain *d, const tplan_run_def *def, tplan_error *err)
{
    return tplan_plan_progress(d, def, NULL, NULL, 0, err);
}

tplan_result *tpApi_ResultNew(void)
{
    tplan_result *r = calloc(1, sizeof *r);
    if (r && pthread_mutex_init(&r->lock, NULL) != 0) {
        free(r);
        r = NULL;
    }
    return r;
}

void tplan_result_free(tplan_result *r)
{
    if (!r) {
        return;
    }
    tpPlanRecord_Free(&r->rec);
    free(r->plan);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static const tpPlanWorld *selected_(const tplan_result *r)
{
    return &r->rec.worlds[r->rec.selected];
}

tplan_status tplan_result_status(const tplan_result *r)
{
    return r && strcmp(r->rec.status, "solved") == 0 ? TPLAN_SOLVED : TPLAN_APPROXIMATE;
}

int tplan_result_steps(const tplan_result *r)
{
    return r ? selected_(r)->nsteps : 0;
}

double tplan_result_dt(const tplan_result *r)
{
    return r ? r->rec.dt : 0.0;
}

int tplan_result_body_count(const tplan_result *r)
{
    return r ? r->rec.nbodies : 0;
}

const char *tplan_result_body_name(const tplan_result *r, int body)
{
    return r && body >= 0 && body < r->rec.nbodies ? r->rec.bodies[body].name : NULL;
}

int tplan_result_body_index(const tplan_result *r, const char *name)
{
    for (int i = 0; r && name && i < r->rec.nbodies; ++i) {
        if (strcmp(r->rec.bodies[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

const double *tplan_result_states(const tplan_result *r, int body, int *rows)
{
    if (rows) {
        *rows = 0;
    }
    if (!r || body < 0 || body >= r->rec.nbodies) {
        return NULL;
    }
    const tpPlanBody *b = &r->rec.bodies[body];
    const tpPlanWorld *w = selected_(r);
    if (b->moving && w->traj[body]) {
        if (rows) {
            *rows = w->nsteps + 1;
        }
        return w->traj[body];
    }
    if (rows) {
        *rows = 1;
    }
    return b->pose;
}

const double *tplan_result_controls(const tplan_result *r, int body)
{
    if (!r || body < 0 || body >= r->rec.nbodies) {
        return NULL;
    }
    return selected_(r)->controls[body];
}

int tplan_result_control(const tplan_result *r, int body, double out[4])
{
    memset(out, 0, 4 * sizeof *out);
    if (!r || body < -1 || body >= r->rec.nbodies) {
        return 0;
    }
    tpPlanControl total, one, *per = NULL;
    if (body >= 0) {
        per = calloc((size_t)r->rec.nbodies, sizeof *per);
        if (!per) {
            return 0;
        }
    }
    tpPlanWorld_Control(&r->rec, selected_(r), per, body < 0 ? &total : NULL);
    one = body < 0 ? total : per[body];
    free(per);
    out[0] = one.impulse;
    out[1] = one.angular_impulse;
    out[2] = one.work;
    out[3] = one.time;
    return 1;
}

int tplan_result_motor_count(const tplan_result *r)
{
    return r ? r->rec.nmotors : 0;
}

const char *tplan_result_motor_joint(const tplan_result *r, int m, int *axis)
{
    const bool ok = r && m >= 0 && m < r->rec.nmotors;
    if (axis) {
        *axis = ok ? r->rec.motors[m].axis + 1 : 0;
    }
    return ok ? r->rec.motors[m].joint : NULL;
}

const double *tplan_result_motor_targets(const tplan_result *r)
{
    return r && r->rec.nmotors > 0 ? selected_(r)->targets : NULL;
}

int64_t tplan_result_iterations(const tplan_result *r)
{
    return r ? r->rec.iterations : 0;
}

int64_t tplan_result_nodes(const tplan_result *r)
{
    return r ? r->rec.nodes : 0;
}

int tplan_result_solutions(const tplan_result *r)
{
    return r ? r->rec.nsolutions : 0;
}

double tplan_result_seconds(const tplan_result *r)
{
    return r ? r->rec.t_total : 0.0;
}

/* The plan file's bytes, formatted now if not yet (the result's cache: the struct is the
 * library's own heap object, so writing it through a const pointer is defined). False with the
 * reason in r->plan_error when formatting fails (out of memory, or a record that is not valid: a
 * bug). */
static bool result_format(const tplan_result *cr)
{
    tplan_result *r = (tplan_result *)cr;
    pthread_mutex_lock(&r->lock);
    if (!r->plan && !r->plan_error[0]) {
        tpCall call;
        tpCall_Begin(&call, NULL, NULL);
        if (!tpPlanRecord_WriteMem(&r->rec, &r->plan, &r->plan_len, r->plan_error, sizeof r->plan_error)) {
            r->plan = NULL;
            r->plan_len = 0;
            if (!r->plan_error[0]) {
                snprintf(r->plan_error, sizeof r->plan_error, "out of memory");
            }
        }
        tpCall_End(&call);
    }
    const bool ok = r->plan != NULL;
    pthread_mutex_unlock(&r->lock);
    return ok;
}

const char *tplan_result_plan(const tplan_result *r, size_t *len)
{
    const bool ok = r && result_format(r);
    if (len) {
        *len = ok ? r->plan_len : 0;
    }
    return ok ? r->plan : NULL;
}

static tplan_code write_plan(const tplan_result *r, const char *path, tplan_error *err)
{
    if (!r || !path) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s", !r ? "no result (NULL)" : "no path (NULL)");
        return TPLAN_ERR_ARGUMENT;
    }
    if (!result_format(r)) {
        const tplan_code code = strstr(r->plan_error, "out of memory") ? TPLAN_ERR_NOMEM : TPLAN_ERR_INTERNAL;
        tpRun_Fail(err, code, NULL, "%s", r->plan_error);
        return code;
    }
    tpFileOut out;
    char msg[512];
    FILE *f = tpFile_OpenOut(&out, path, "wb", msg, sizeof msg);
    if (!f) {
        tpRun_Fail(err, TPLAN_ERR_IO, NULL, "%s: %s", path, msg);
        return TPLAN_ERR_IO;
    }
    if (fwrite(r->plan, 1, r->plan_len, f) != r->plan_len) {
        tpFile_AbortOut(&out);
        tpRun_Fail(err, TPLAN_ERR_IO, NULL, "%s: write error", path);
        return TPLAN_ERR_IO;
    }
    if (!tpFile_CommitOut(&out, msg, sizeof msg)) {
        tpRun_Fail(err, TPLAN_ERR_IO, NULL, "%s: %s", path, msg);
        return TPLAN_ERR_IO;
    }
    tpApi_SetOk(err);
    return TPLAN_OK;
}

tplan_code tplan_result_write_plan(const tplan_result *r, const char *path, tplan_error *err)
{
    tpCall call;
    tpCall_Begin(&call, NULL, NULL);
    tplan_code code = write_plan(r, path, err);
    tpCall_End(&call);
    return code;
}

/* ------------------------------------------------------------------------------------------ */
/* Replay                                                                                      */

tplan_code tplan_replay(tplan_domain *d, const char *plan, size_t len, tplan_error *err)
{
    if (!d || !plan) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s", !d ? "no domain (NULL)" : "no plan bytes (NULL)");
        return TPLAN_ERR_ARGUMENT;
    }
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    char msg[sizeof err->message];
    tpCall call;
    tpCall_Begin(&call, d->limits.output, d->limits.output_user);
    tplan_code code = TPLAN_OK;
    tpScript *script = NULL;
    if (!tpPlanRecord_Parse(&rec, plan, len, "plan", msg, sizeof msg)) {
        code = tpApi_MisfitCode(msg);
        tpRun_Fail(err, code, NULL, "%s", msg);
    } else if ((code = tpApi_DomainLoad(d, &script, err)) == TPLAN_OK) {
        switch (tpRun_ReplayWorld(tpScript_Domain(script), &rec, rec.selected, msg, sizeof msg)) {
        case TP_RUN_REPLAY_OK:
            break;
        case TP_RUN_REPLAY_MISFIT:
            code = tpApi_MisfitCode(msg);
            break;
        case TP_RUN_REPLAY_MISMATCH:
        case TP_RUN_REPLAY_GOAL_FAILS:
            code = TPLAN_ERR_MISMATCH;
            break;
        default:
            code = TPLAN_ERR_SCRIPT;
            break;
        }
        if (code != TPLAN_OK) {
            tpRun_Fail(err, code, NULL, "%s", msg);
        }
    }
    tpDestroyScript(script);
    tpCall_End(&call);
    tpPlanRecord_Free(&rec);
    if (code == TPLAN_OK) {
        tpApi_SetOk(err);
    }
    return code;
}

char *tplan_worlds(const char *plan, size_t len, const char *where, const char *rank, size_t *out_len, tplan_error *err)
{
    if (out_len) {
        *out_len = 0;
    }
    if (!plan) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no plan bytes (NULL)");
        return NULL;
    }
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    char msg[sizeof err->message];
    char *text = NULL;
    size_t n = 0;
    if (!tpPlanRecord_Parse(&rec, plan, len, "plan", msg, sizeof msg)) {
        tpRun_Fail(err, tpApi_MisfitCode(msg), NULL, "%s", msg);
    } else if (!tpQuery_Browse(&rec, where, rank, &text, &n, msg, sizeof msg)) {
        const bool nomem = strcmp(msg, "out of memory") == 0;
        tpRun_Fail(err, nomem ? TPLAN_ERR_NOMEM : TPLAN_ERR_ARGUMENT,
                   nomem                           ? NULL
                   : strncmp(msg, "query", 5) == 0 ? "where"
                                                   : "rank",
                   "%s", msg);
    }
    tpPlanRecord_Free(&rec);
    if (text) {
        if (out_len) {
            *out_len = n;
        }
        tpApi_SetOk(err);
    }
    return text;
}
