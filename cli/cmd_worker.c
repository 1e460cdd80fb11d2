/* tplan worker: the planning process of `tplan serve` (protocol: service/include/tp/service.h).
 * Reads one job per line on stdin, plans it exactly as `tplan plan` would (same plan bytes for the
 * same inputs), writes the plan and tree into the job's folder and reports progress and the result
 * as JSON lines on fd 3. Not meant to be run by hand. */
#define _GNU_SOURCE /* getline, prctl */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "par.h"
#include "tp/base.h"
#include "tp/json_text.h"
#include "tp/service.h"

/* The job's log (DATA/jobs/ID/log.txt, GET /v1/jobs/ID/log): what its script print()s, never the
 * server's log. At most TP_SERVICE_MAX_LOG_BYTES are kept (then one line says how much was left
 * out), and the text is made safe to show: bytes that are not UTF-8, and control characters but
 * tab and newline, are written as \xHH, so a script can neither break a terminal nor forge lines
 * of another log. */
typedef struct JobLog {
    FILE *file;  /* the log file (append) */
    size_t kept; /* bytes written to it */
    size_t dropped;
    unsigned char pend[4]; /* an incomplete UTF-8 sequence at the end of the last write */
    int npend;
} JobLog;

/* Appends s to out (room for 4 * 4100 bytes: every byte escaped) within the log's cap. */
static void log_put(JobLog *lg, char *out, size_t *nout, const char *s, size_t n)
{
    if (lg->kept + n > TP_SERVICE_MAX_LOG_BYTES) {
        lg->dropped += n;
        return;
    }
    memcpy(out + *nout, s, n);
    *nout += n;
    lg->kept += n;
}

/* Length of the valid UTF-8 sequence at p (n bytes available): 1..4, 0 = invalid, -1 = cut short. */
static int utf8_len(const unsigned char *p, size_t n)
{
    int len = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || (len == 2 && p[0] < 0xC2) || (len == 4 && p[0] > 0xF4)) {
        return 0;
    }
    for (int i = 1; i < len; ++i) {
        if ((size_t)i >= n) {
            return -1;
        }
        if ((p[i] & 0xC0) != 0x80) {
            return 0;
        }
    }
    if ((len == 3 && p[0] == 0xE0 && p[1] < 0xA0) || (len == 3 && p[0] == 0xED && p[1] >= 0xA0) ||
        (len == 4 && p[0] == 0xF0 && p[1] < 0x90) || (len == 4 && p[0] == 0xF4 && p[1] >= 0x90)) {
        return 0; /* overlong, surrogate, beyond U+10FFFF */
    }
    return len;
}

static ssize_t log_write(void *cookie, const char *buf, size_t size)
{
    JobLog *lg = cookie;
    unsigned char tmp[4 + 4096];
    char out[4 * (4 + 4096)];
    size_t done = 0;
    while (done < size && lg->kept < TP_SERVICE_MAX_LOG_BYTES) {
        size_t take = size - done < 4096 ? size - done : 4096;
        memcpy(tmp, lg->pend, (size_t)lg->npend);
        memcpy(tmp + lg->npend, buf + done, take);
        size_t n = (size_t)lg->npend + take, i = 0, nout = 0;
        lg->npend = 0;
        done += take;
        while (i < n) {
            int len = utf8_len(tmp + i, n - i);
            if (len < 0) { /* a sequence cut by the end of this write: the next one completes it */
                memcpy(lg->pend, tmp + i, n - i);
                lg->npend = (int)(n - i);
                break;
            }
            if (len == 0 || (tmp[i] < 0x20 && tmp[i] != '\n' && tmp[i] != '\t') || tmp[i] == 0x7F) {
                char esc[8];
                snprintf(esc, sizeof esc, "\\x%02X", tmp[i]);
                log_put(lg, out, &nout, esc, 4);
                ++i;
            } else {
                log_put(lg, out, &nout, (const char *)tmp + i, (size_t)len);
                i += (size_t)len;
            }
        }
        fwrite(out, 1, nout, lg->file); /* unbuffered: one write, kept even if a --jobs child _exits */
    }
    lg->dropped += size - done;
    return (ssize_t)size;
}

static FILE *log_open(JobLog *lg, const char *path)
{
    memset(lg, 0, sizeof *lg);
    lg->file = fopen(path, "we"); /* a job planned again after a restart starts a new log */
    if (!lg->file) {
        return NULL;
    }
    setvbuf(lg->file, NULL, _IONBF, 0);
    cookie_io_functions_t io = {NULL, log_write, NULL, NULL};
    FILE *f = fopencookie(lg, "w", io);
    if (!f) {
        fclose(lg->file);
        return NULL;
    }
    setvbuf(f, NULL, _IOLBF, 0); /* line by line: the log can be read while the job runs */
    return f;
}

/* Closes the job's log; its size in bytes (0 = nothing printed: the file is removed). */
static size_t log_close(JobLog *lg, FILE *f, const char *path)
{
    if (!f) {
        return 0;
    }
    fclose(f); /* flushes into lg */
    char out[32];
    size_t nout = 0;
    for (int i = 0; i < lg->npend; ++i) { /* a sequence the output ended inside */
        char esc[8];
        snprintf(esc, sizeof esc, "\\x%02X", lg->pend[i]);
        log_put(lg, out, &nout, esc, 4);
    }
    fwrite(out, 1, nout, lg->file);
    if (lg->dropped > 0) {
        fprintf(lg->file, "[tplan: %zu more bytes of output left out: a job's log keeps %zu bytes]\n", lg->dropped,
                (size_t)TP_SERVICE_MAX_LOG_BYTES);
    }
    long size = ftell(lg->file);
    fclose(lg->file);
    if (size <= 0) {
        unlink(path);
        return 0;
    }
    return (size_t)size;
}

/* POST /v1/jobs/{id}/stop: the server sends SIGUSR1 to the worker's process group; the search (and
 * each search of a "jobs" > 1 job, children that inherit the handler) ends before its next iteration
 * as at max_iters and the best plan is written. Planning is otherwise untouched. */
static double answer_by = 0; /* unix s: a synchronous job's search ends here whatever its load took; 0 = none */

static double unix_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t stop_bound(void *user)
{
    (void)user;
    return tpCli_StopRequested || (answer_by > 0 && unix_now() >= answer_by) ? 0 : INT64_MAX;
}

/* The server queues SIGUSR1 with the job's id (sigqueue): a request that arrives before the worker
 * read that job's line is kept (stop_id) and one for a job already done never stops the next. The
 * worker forwards it to its process group (plain kill: the searches of a "jobs" > 1 job). */
static volatile sig_atomic_t stop_id = 0, current_id = 0;

static void on_stop_signal(int sig, siginfo_t *info, void *uctx)
{
    (void)sig;
    (void)uctx;
    if (info->si_code == SI_QUEUE) {
        stop_id = info->si_value.sival_int;
        if (stop_id == current_id && current_id != 0) {
            tpCli_StopRequested = 1;
            kill(0, SIGUSR1);
        }
    } else {
        tpCli_StopRequested = 1;
    }
}

typedef struct WorkerProgress {
    FILE *ev;
    tpCliRun *run;
    int64_t scanned; /* tree nodes whose quality is already in best */
    double best;     /* lowest quality so far (NAN: none or no quality metric) */
} WorkerProgress;

static void send_event(FILE *ev, cJSON *o)
{
    char *line = cJSON_PrintUnformatted(o);
    if (line) {
        fputs(line, ev);
        fputc('\n', ev);
        fflush(ev);
        free(line);
    }
}

/* Progress: the best quality among the nodes added since the last call (quality is a pure function
 * of a state, so evaluating it here changes nothing in the search), then one event line. */
static void on_progress(void *user, const tpPlanStats *s)
{
    WorkerProgress *wp = user;
    const tpTree *tree = wp->run->planner ? tpPlanner_Tree(wp->run->planner) : NULL;
    tpProblem prob = tpDomain_Problem(wp->run->domain);
    if (tree && prob.quality) {
        int32_t n = tpTree_Count(tree);
        for (int32_t i = (int32_t)wp->scanned; i < n; ++i) {
            double q = prob.quality(prob.ctx, tpTree_State(tree, i));
            if (isfinite(q) && (isnan(wp->best) || q < wp->best)) {
                wp->best = q;
            }
        }
        wp->scanned = n;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "progress");
    cJSON_AddNumberToObject(o, "iterations", (double)s->iterations);
    cJSON_AddNumberToObject(o, "nodes", (double)s->nodes);
    cJSON_AddNumberToObject(o, "solutions", s->solutions);
    tpJson_Put(o, "best_quality", isfinite(wp->best) ? cJSON_CreateNumber(wp->best) : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "elapsed", s->elapsed);
    send_event(wp->ev, o);
    cJSON_Delete(o);
}

/* The summary `tplan plan` prints, as a JSON object (docs/service.md), from the plan record. */
static cJSON *summary_json(const tpPlanRecord *rec)
{
    const tpPlanWorld *w = &rec->worlds[rec->selected];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "domain", rec->domain_name);
    cJSON_AddStringToObject(o, "planner", rec->planner);
    cJSON_AddNumberToObject(o, "mu", rec->mu);
    cJSON_AddNumberToObject(o, "seed", rec->seed);
    cJSON_AddNumberToObject(o, "max_iters", (double)rec->max_iters);
    cJSON_AddNumberToObject(o, "time_limit", rec->time_limit);
    cJSON_AddNumberToObject(o, "solutions", rec->solutions_requested);
    cJSON_AddStringToObject(o, "status", rec->status);
    cJSON_AddNumberToObject(o, "nsolutions", rec->nsolutions);
    cJSON_AddNumberToObject(o, "steps", w->nsteps);
    cJSON_AddNumberToObject(o, "duration", w->nsteps * rec->dt);
    cJSON_AddNumberToObject(o, "cost", isfinite(w->cost) ? w->cost : 0);
    cJSON_AddNumberToObject(o, "iterations", (double)rec->iterations);
    cJSON_AddNumberToObject(o, "nodes", (double)rec->nodes);
    cJSON_AddNumberToObject(o, "rejected", (double)rec->rejected);
    cJSON *rj = tpCli_RejectionsJson(rec->rejections);
    if (rj) {
        tpJson_Put(o, "rejections", rj);
    }
    cJSON_AddNumberToObject(o, "tree_mb", (double)rec->memory_bytes / 1048576.0);
    cJSON *rep = cJSON_AddObjectToObject(o, "report");
    for (int i = 0; i < rec->nreports; ++i) {
        cJSON_AddNumberToObject(rep, rec->report_names[i], rec->report_values[i]);
    }
    if (rec->nwarnings > 0) { /* the domain's warnings (stats.warnings of the plan file) */
        cJSON *warn = cJSON_AddArrayToObject(o, "warnings");
        for (int i = 0; i < rec->nwarnings; ++i) {
            tpJson_Append(warn, cJSON_CreateString(rec->warnings[i]));
        }
    }
    cJSON *t = cJSON_AddObjectToObject(o, "time");
    cJSON_AddNumberToObject(t, "total", rec->t_total);
    cJSON_AddNumberToObject(t, "physics", rec->t_physics);
    cJSON_AddNumberToObject(t, "tactics", rec->t_tactics);
    cJSON_AddNumberToObject(t, "selection", rec->t_select);
    cJSON_AddNumberToObject(t, "checks", rec->t_check);
    if (rec->nodes_first > 0 && isfinite(rec->t_first)) {
        cJSON_AddNumberToObject(t, "first_solution", rec->t_first);
    }
    return o;
}

/* --jobs: which worker's search was selected, and each worker's search (docs/parallel.md). */
static void add_workers(cJSON *sum, const tpParOutcome *oc)
{
    cJSON_AddNumberToObject(sum, "selected_worker", oc->owner);
    cJSON *arr = cJSON_AddArrayToObject(sum, "workers");
    for (int k = 0; k < oc->nworkers; ++k) {
        const tpParSummary *w = &oc->workers[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "seed", w->seed);
        cJSON_AddNumberToObject(o, "iterations", (double)w->stats.iterations);
        cJSON_AddNumberToObject(o, "nodes", (double)w->stats.nodes);
        cJSON_AddNumberToObject(o, "solutions", w->nsolutions);
        tpJson_Append(arr, o);
    }
}

/* Reads the job's run definition (the message's "run": the server's, sched.c) into o with the run
 * definition's own reader; the server wrote it, so a failure here is the server's bug, reported as such. */
static bool run_options(const cJSON *run, tpCliPlanOpts *o, char *err, size_t errlen)
{
    if (!cJSON_IsObject(run)) {
        snprintf(err, errlen, "the job has no run definition (\"run\")");
        return false;
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, run)
    {
        tplan_error e;
        int r = tpRun_ReadJsonField(&o->run, v, &e);
        if (r <= 0) {
            snprintf(err, errlen, "run: %.1000s", r < 0 ? e.message : "a member that is no run definition field");
            return false;
        }
    }
    return true;
}

/* The `set` object as --set parameters; values are written as `tplan plan --set` would take them. */
static int request_params(const cJSON *req, tpScriptParam *params, char values[][64])
{
    int n = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(req, "set"))
    {
        if (n >= TP_MAX_PARAMS) {
            break;
        }
        params[n].name = v->string;
        if (cJSON_IsString(v)) {
            params[n].value = v->valuestring;
        } else if (cJSON_IsBool(v)) {
            params[n].value = cJSON_IsTrue(v) ? "true" : "false";
        } else {
            double d = v->valuedouble;
            if (d == floor(d) && fabs(d) < 9e15) {
                snprintf(values[n], 64, "%lld", (long long)d);
            } else {
                snprintf(values[n], 64, "%.17g", d);
            }
            params[n].value = values[n];
        }
        ++n;
    }
    return n;
}

/* tplan's own messages while a job runs (the domain's warnings, the planner's and ODE's messages)
 * go to the server's stderr as before, which the workers share with it, but name the job, so that
 * an operator can tell whose they are; control characters (a body name is the script's text) are
 * escaped, so one message stays one line and cannot pose as the server's. */
static void job_log_sink(void *user, tpLogLevel level, const char *msg)
{
    if (level < TP_LOG_INFO) {
        return; /* the threshold tplan's log has without --verbose */
    }
    char line[4 * 2048 + 128];
    size_t n = (size_t)snprintf(line, 128, "tplan: job %lld: %s", *(const long long *)user,
                                level == TP_LOG_ERROR  ? "error: "
                                : level == TP_LOG_WARN ? "warning: "
                                                       : "");
    for (const unsigned char *p = (const unsigned char *)msg; *p && n < sizeof line - 6; ++p) {
        if (*p < 0x20 || *p == 0x7f) {
            n += (size_t)snprintf(line + n, 5, "\\x%02X", *p);
        } else {
            line[n++] = (char)*p;
        }
    }
    line[n++] = '\n';
    fwrite(line, 1, n, stderr); /* one write: lines of workers running at once do not mix */
}

static void run_job(FILE *ev, const cJSON *m)
{
    double t_start = tpClock_Now();
    long long job_id = (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "id"));
    tpLog_SetThreadSink(job_log_sink, &job_id); /* (forked OR-parallel workers inherit it) */
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(m, "request");
    const cJSON *dir = cJSON_GetObjectItemCaseSensitive(m, "dir");
    const cJSON *script = cJSON_GetObjectItemCaseSensitive(m, "script");
    const cJSON *dpath = cJSON_GetObjectItemCaseSensitive(m, "domain_path");
    double every = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "progress"));
    /* a synchronous job: the server's deadline for the end of the search (the planner's own time
     * limit starts after the script's load, which a loaded machine can make long) */
    double by = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "answer_by"));
    answer_by = isfinite(by) && by > 0 ? by : 0;
    cJSON *done = cJSON_CreateObject();
    cJSON_AddStringToObject(done, "type", "done");
    tpCliPlanOpts o;
    tpCli_PlanOptsInit(&o);
    char err[2048] = "";
    /* the run definition the server made of the request and its own limits (sched.c) */
    bool req_ok = run_options(cJSON_GetObjectItemCaseSensitive(m, "run"), &o, err, sizeof err);
    /* "state": plan from it (the server read it with the same reader; the domain checks the rest) */
    tplan_state *start = NULL;
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(req, "state");
    if (req_ok && state) {
        /* to the bit (cJSON's printer may move a number's last bit); the subtree is read no more */
        char *text = tpJson_ExactNumbers((cJSON *)state) ? cJSON_PrintUnformatted(state) : NULL;
        tplan_error e;
        start = text ? tpState_Parse(text, strlen(text), &e) : NULL;
        cJSON_free(text);
        if (!start) {
            snprintf(err, sizeof err, "request: %.1000s", text ? e.message : "out of memory");
            req_ok = false;
        }
        o.run.start = start;
    }
    o.run.jobs = 1;                 /* the request's jobs are the OR-parallel task's workers (below) */
    o.iteration_bound = stop_bound; /* with "jobs" > 1 the OR-parallel link checks the flag itself */
    const char *path = cJSON_IsString(dpath) ? dpath->valuestring : "job.lua";
    /* a built-in domain is named by its file name in messages and plans, never by the server's
       install path; its plan embeds the files it read (plan_run.c), so it replays anywhere */
    const char *slash = strrchr(path, '/');
    o.name = slash ? slash + 1 : NULL;
    if (cJSON_IsString(script)) {
        o.source = script->valuestring;
        o.source_len = strlen(script->valuestring);
    }
    tpScriptParam params[TP_MAX_PARAMS];
    char values[TP_MAX_PARAMS][64];
    int nparams = request_params(req, params, values);
    long long jobs = (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(req, "jobs"));
    bool want_tree = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "tree"));
    char planp[4096], treep[4096], logp[4096];
    snprintf(logp, sizeof logp, "%s/log.txt", cJSON_IsString(dir) ? dir->valuestring : ".");
    JobLog lg;
    o.print_to = log_open(&lg, logp);
    snprintf(planp, sizeof planp, "%s/plan.json", cJSON_IsString(dir) ? dir->valuestring : ".");
    snprintf(treep, sizeof treep, "%s/tree.bin", cJSON_IsString(dir) ? dir->valuestring : ".");
    tpCliRun run;
    memset(&run, 0, sizeof run);
    WorkerProgress wp = {ev, &run, 0, NAN};
    const tpCliProgress progress = {on_progress, &wp, isfinite(every) && every > 0 ? every : 0.25};
    tpParTask task = {path, params, nparams, &o, jobs > 1 ? (int)jobs : 1};
    tpParOutcome oc;
    memset(&oc, 0, sizeof oc);
    tpPlanRecord own;
    memset(&own, 0, sizeof own);
    tpPlanRecord *rec = &own;
    int code;
    bool tree_ok = false;
    if (!req_ok) {
        code = TP_EXIT_FAILURE;
    } else if (task.nworkers > 1) { /* the OR-parallel search (no progress reports during the race) */
        code = tpPar_PlanFork(&task, &oc, err, sizeof err);
        rec = &oc.rec;
        if (code == TP_EXIT_OK && want_tree) {
            int rc = tpPar_RerunSelected(&task, &oc, NULL, &run, err, sizeof err);
            tree_ok = rc == TP_EXIT_OK && tpCli_WriteTree(run.domain, tpPlanner_Tree(run.planner), &run.res, treep);
        }
    } else {
        code = tpCli_PlanRun(path, params, nparams, &o, &progress, &run, err, sizeof err);
        if (code == TP_EXIT_OK && !tpCli_RecordRun(&run, path, &own, err, sizeof err)) {
            code = TP_EXIT_FAILURE;
        }
        tree_ok = code == TP_EXIT_OK && want_tree &&
                  tpCli_WriteTree(run.domain, tpPlanner_Tree(run.planner), &run.res, treep);
    }
    if (code == TP_EXIT_OK && !tpPlanRecord_Write(rec, planp, err, sizeof err)) {
        code = TP_EXIT_FAILURE;
    }
    if (code == TP_EXIT_OK && want_tree && !tree_ok) {
        code = TP_EXIT_FAILURE;
        snprintf(err, sizeof err, "cannot write the tree file");
    }
    const char *status = "failed";
    if (code == TP_EXIT_OK) {
        bool solved = strcmp(rec->status, "solved") == 0;
        status = solved ? "solved" : "approximate";
        cJSON *sum = summary_json(rec);
        /* the worker's whole run: script load, planning, recording, plan and tree files */
        cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(sum, "time"), "worker", tpClock_Now() - t_start);
        if (task.nworkers > 1) {
            add_workers(sum, &oc);
        }
        /* the statistics the plan records: the run's own, or (OR-parallel) those of the worker
         * whose search decided the outcome (docs/parallel.md) */
        const tpPlanStats *ps = task.nworkers > 1 ? &oc.workers[oc.stats_worker].stats : &run.res.stats;
        if (ps->memory_limited) {
            char msg[256];
            snprintf(msg, sizeof msg,
                     "the search reached its memory bound (memory_mb %lld: %.1f MB in %lld nodes%s); the plan is "
                     "the best found by then",
                     (long long)o.run.search_memory_mb, (double)ps->mem_bytes / 1048576.0, (long long)ps->nodes,
                     task.nworkers > 1 ? ", in the worker whose statistics the plan records" : "");
            cJSON_AddStringToObject(sum, "stopped", "memory_limit");
            cJSON_AddStringToObject(sum, "stopped_message", msg);
        }
        tpJson_Put(done, "summary", sum);
        cJSON_AddBoolToObject(done, "plan", true);
        cJSON_AddBoolToObject(done, "tree", tree_ok);
        cJSON_AddNumberToObject(done, "iterations", (double)rec->iterations);
        cJSON_AddNumberToObject(done, "nodes", (double)rec->nodes);
        cJSON_AddNumberToObject(done, "solutions", rec->nsolutions);
        cJSON_AddNumberToObject(done, "elapsed", rec->t_total);
        /* approximate: the selected node is the best by quality, and its quality is the cost */
        double best = solved ? wp.best : rec->worlds[rec->selected].cost;
        if (isfinite(best)) {
            cJSON_AddNumberToObject(done, "best_quality", best);
        }
    } else {
        cJSON *e = cJSON_AddObjectToObject(done, "error");
        /* the sandbox's limit messages name the limit; anything else is the script's own error */
        const char *ecode =
            code == TP_EXIT_FAILURE              ? "internal"
            : strncmp(err, "state: ", 7) == 0    ? "bad_state" /* a state that does not fit the domain */
            : strstr(err, "time limit exceeded") ? "time_limit"
            : strstr(err, "memory limit of") || strstr(err, "out of memory") || strstr(err, "not enough memory")
                ? "memory_limit"
                : "script_error";
        cJSON_AddStringToObject(e, "code", ecode);
        cJSON_AddStringToObject(e, "message", err);
    }
    cJSON_AddStringToObject(done, "status", status);
    tpCli_PlanRunFree(&run); /* the script is gone: nothing prints any more */
    cJSON_AddNumberToObject(done, "log_bytes", (double)log_close(&lg, o.print_to, logp));
    send_event(ev, done);
    cJSON_Delete(done);
    tpPlanRecord_Free(&own);
    tpPar_OutcomeFree(&oc);
    tplan_state_free(start);
    tpLog_SetThreadSink(NULL, NULL);
}

/* ---- state checks (POST /v1/jobs with a "state": service/src/statecheck.c) -------------------- */

/* The domains a check loaded, the most recently used first: a repeated submission (the same script
 * or built-in domain, `set` and limits: the key, compared whole) binds its state without a load.
 * A loaded domain is only ever bound against (tpState_Bind, tpState_BindTactics: no planning), so
 * one load serves any number of checks. */
#define CHECK_CACHE 4
typedef struct CheckEntry {
    char *key; /* the run definition, the `set` object, the path and the script text (malloc'd) */
    size_t key_len;
    tpScript *script;
} CheckEntry;
static CheckEntry check_cache[CHECK_CACHE];

static void check_drop_log(void *user, tpLogLevel level, const char *msg)
{
    (void)user, (void)level, (void)msg; /* the job's run says it all again, with its id */
}

/* {"type":"check","request":{...},"script":"..."?|"domain_path":"..."?,"run":{...}}: binds the
 * request's state to the domain as the job's run would, without planning. Answers
 * {"type":"checked","result":"ok"|"bad_state"|"unchecked","field":F?,"message":M?}: "unchecked"
 * when the script itself did not load (its error is the job's to report, with its log). */
static void check_state(FILE *ev, const cJSON *m)
{
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(m, "request");
    const cJSON *script = cJSON_GetObjectItemCaseSensitive(m, "script");
    const cJSON *dpath = cJSON_GetObjectItemCaseSensitive(m, "domain_path");
    const cJSON *runj = cJSON_GetObjectItemCaseSensitive(m, "run");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(req, "state");
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "type", "checked");
    const char *result = "unchecked";
    char err[2048] = "", field[128] = "";
    tpCliPlanOpts o;
    tpCli_PlanOptsInit(&o);
    char *text = state && tpJson_ExactNumbers((cJSON *)state) ? cJSON_PrintUnformatted(state) : NULL;
    tplan_error e;
    tplan_state *st = text ? tpState_Parse(text, strlen(text), &e) : NULL;
    cJSON_free(text);
    /* the key: everything the load depends on */
    cJSON *k = cJSON_CreateObject();
    cJSON_AddItemReferenceToObject(k, "run", (cJSON *)runj);
    cJSON_AddItemReferenceToObject(k, "set", (cJSON *)cJSON_GetObjectItemCaseSensitive(req, "set"));
    cJSON_AddStringToObject(k, "path", cJSON_IsString(dpath) ? dpath->valuestring : "");
    char *head = cJSON_PrintUnformatted(k);
    cJSON_Delete(k);
    const char *src = cJSON_IsString(script) ? script->valuestring : "";
    size_t hl = head ? strlen(head) : 0, sl = strlen(src);
    char *key = head ? malloc(hl + sl + 2) : NULL;
    if (key) {
        memcpy(key, head, hl + 1);
        memcpy(key + hl + 1, src, sl + 1);
    }
    free(head);
    const size_t key_len = hl + sl + 2;
    int hit = -1;
    for (int i = 0; key && i < CHECK_CACHE && hit < 0; ++i) {
        if (check_cache[i].key && check_cache[i].key_len == key_len && memcmp(check_cache[i].key, key, key_len) == 0) {
            hit = i;
        }
    }
    tpScript *loaded = hit >= 0 ? check_cache[hit].script : NULL;
    cJSON_AddBoolToObject(out, "cached", loaded != NULL);
    static FILE *devnull = NULL; /* every cached script's print_to: it lives as long as they do */
    if (!devnull) {
        devnull = fopen("/dev/null", "w");
    }
    if (st && key && hit < 0 && run_options(runj, &o, err, sizeof err)) {
        const char *path = cJSON_IsString(dpath) ? dpath->valuestring : "job.lua";
        const char *slash = strrchr(path, '/');
        o.name = slash ? slash + 1 : NULL;
        if (cJSON_IsString(script)) {
            o.source = script->valuestring;
            o.source_len = sl;
        }
        tpScriptParam params[TP_MAX_PARAMS];
        char values[TP_MAX_PARAMS][64];
        int nparams = request_params(req, params, values);
        /* the run's limits; no watchdog (the server kills a check past its time: statecheck.c) and
           print() goes nowhere (the job's run has its log) */
        tpScriptDef sdef = tpRun_ScriptDef(&o.run, path, o.source, o.source_len, params, nparams);
        sdef.name = o.name;
        sdef.print_to = devnull;
        tpLog_SetThreadSink(check_drop_log, NULL);
        loaded = devnull ? tpCreateScript(&sdef, err, sizeof err) : NULL;
        tpLog_SetThreadSink(NULL, NULL);
        if (loaded) { /* the least recently used entry makes room */
            hit = CHECK_CACHE - 1;
            free(check_cache[hit].key);
            tpDestroyScript(check_cache[hit].script);
            check_cache[hit] = (CheckEntry){key, key_len, loaded};
            key = NULL;
        }
    }
    if (loaded) {
        CheckEntry first = check_cache[hit]; /* to the front */
        memmove(check_cache + 1, check_cache, sizeof *check_cache * (size_t)hit);
        check_cache[0] = first;
        tpDomain *d = tpScript_Domain(loaded);
        const int ns = tpWorld_StateCount(tpDomain_World(d));
        tpBodyState *x = calloc((size_t)(ns > 0 ? ns : 1), sizeof *x);
        uint8_t *rest = calloc((size_t)(ns > 0 ? ns : 1), 1);
        tplan_error be;
        memset(&be, 0, sizeof be);
        if (x && rest) {
            bool ok = tpState_Bind(st, d, x, rest, &be) && tpState_BindTactics(st, d, NULL, NULL, &be);
            result = ok ? "ok" : "bad_state";
            snprintf(err, sizeof err, "%s", ok ? "" : be.message);
            snprintf(field, sizeof field, "%s", ok ? "" : be.field);
        }
        free(x);
        free(rest);
    }
    cJSON_AddStringToObject(out, "result", result);
    if (field[0]) {
        cJSON_AddStringToObject(out, "field", field);
    }
    if (err[0]) {
        cJSON_AddStringToObject(out, "message", err);
    }
    send_event(ev, out);
    cJSON_Delete(out);
    free(key);
    tplan_state_free(st);
}

int tpCmd_Worker(int argc, char **argv)
{
    long long rlimit_mb = 0;
    bool checker = false; /* the front end's state checker (service/src/statecheck.c) */
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--check") == 0) {
            checker = true;
        } else if (strcmp(argv[i], "--rlimit-as") == 0 && i + 1 < argc) {
            if (!tpCli_ParseInt("--rlimit-as", argv[++i], 64, 1LL << 30, &rlimit_mb)) {
                return TP_EXIT_BAD_INPUT;
            }
        } else {
            fprintf(stderr,
                    "usage: tplan worker [--rlimit-as MB] [--check]  (started by 'tplan serve'; reads jobs on stdin, "
                    "writes events on fd 3)\n");
            return TP_EXIT_BAD_INPUT;
        }
    }
    /* never outlive the server; the checker is started by a connection's thread, whose end would
       kill it: it ends when its standard input closes (the server's end), its loads bounded in time */
    if (!checker) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_stop_signal;
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sigset_t usr1; /* the server starts workers with it blocked: from here on it stops the current job */
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_UNBLOCK, &usr1, NULL);
    if (getppid() == 1) {
        return TP_EXIT_FAILURE;
    }
    if (rlimit_mb > 0) {
        struct rlimit rl = {(rlim_t)rlimit_mb << 20, (rlim_t)rlimit_mb << 20};
        setrlimit(RLIMIT_AS, &rl);
    }
    FILE *ev = fdopen(3, "w");
    if (!ev) {
        fprintf(stderr, "tplan worker: fd 3 is not open (started by 'tplan serve' only)\n");
        return TP_EXIT_BAD_INPUT;
    }
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        cJSON *m = cJSON_Parse(line);
        if (!cJSON_IsObject(m)) {
            cJSON *done = cJSON_CreateObject();
            cJSON_AddStringToObject(done, "type", "done");
            cJSON_AddStringToObject(done, "status", "failed");
            cJSON *e = cJSON_AddObjectToObject(done, "error");
            cJSON_AddStringToObject(e, "code", "internal");
            cJSON_AddStringToObject(e, "message", "the worker received an unreadable job");
            send_event(ev, done);
            cJSON_Delete(done);
        } else {
            current_id = (sig_atomic_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "id"));
            tpCli_StopRequested = stop_id == current_id; /* asked before the line was read */
            const cJSON *type = cJSON_GetObjectItemCaseSensitive(m, "type");
            if (cJSON_IsString(type) && strcmp(type->valuestring, "check") == 0) {
                alarm(10); /* whatever the script does in C, a check ends (the server waits 3 s for it) */
                check_state(ev, m);
                alarm(0);
            } else {
                run_job(ev, m);
            }
            current_id = 0;
            tpCli_StopRequested = 0;
        }
        cJSON_Delete(m);
    }
    free(line);
    fclose(ev);
    return TP_EXIT_OK;
}
