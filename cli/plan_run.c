/* Shared by `tplan plan` and `tplan bench`: the planner options of the command line, and one
 * planning run (load the script fresh, planner defaults from its `planner` table overridden by
 * the options, create the planner, run it). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_validate.h"
#include "tp/base.h"

void tpCli_PlanOptsInit(tpCliPlanOpts *o)
{
    memset(o, 0, sizeof *o);
    tplan_run_def_init(&o->run);
}

void tpCli_FieldOptions(const struct option *own, struct option *out, int cap)
{
    TP_ASSERT(tpRun_FieldCount <= TP_OPT_HARD_DEADLINE - TP_OPT_FIELD);
    int n = 0;
    for (int i = 0; i < tpRun_FieldCount && n < cap - 1; ++i) {
        const tpRunField *f = &tpRun_Fields[i];
        if ((f->who & TP_RUNF_CLI) && f->flag) {
            out[n++] = (struct option){f->flag + 2, f->arg ? required_argument : no_argument, NULL, TP_OPT_FIELD + i};
        }
    }
    for (int i = 0; own[i].name && n < cap - 1; ++i) {
        out[n++] = own[i];
    }
    TP_ASSERT(n < cap);
    out[n] = (struct option){NULL, 0, NULL, 0};
}

const tpRunField *tpCli_FieldOf(int code)
{
    const int i = code - TP_OPT_FIELD;
    if (i < 0 || i >= tpRun_FieldCount || !(tpRun_Fields[i].who & TP_RUNF_CLI)) {
        return NULL;
    }
    return &tpRun_Fields[i];
}

void tpCli_FieldHelp(FILE *f)
{
    for (int i = 0; i < tpRun_FieldCount; ++i) {
        const tpRunField *r = &tpRun_Fields[i];
        if (!(r->who & TP_RUNF_CLI) || !r->flag) {
            continue;
        }
        char opt[64];
        snprintf(opt, sizeof opt, "%s%s%s", r->flag, r->arg ? " " : "", r->arg ? r->arg : "");
        fprintf(f, "  %-19s ", opt);
        for (const char *p = r->help; *p; ++p) { /* continuation lines under the text */
            fputc(*p, f);
            if (*p == '\n') {
                fprintf(f, "%22s", "");
            }
        }
        fputc('\n', f);
    }
}

bool tpCli_ParseField(const tpRunField *row, const char *v, double *out)
{
    char q[256];
    if (!row->arg) {
        *out = row->flag_sets;
        return true;
    }
    if (row->type == TP_RUNF_PLANNER) {
        for (int k = TPLAN_PLANNER_RRT; k <= TPLAN_PLANNER_BGT; ++k) {
            if (strcmp(v, tpRun_PlannerNames[k]) == 0) {
                *out = k;
                return true;
            }
        }
        tpLog(TP_LOG_ERROR, "%s expects rrt or bgt (got '%s')", row->flag, tpCli_Escape(v, q, sizeof q));
        return false;
    }
    if (row->type == TP_RUNF_DOUBLE) {
        return tpCli_ParseDouble(row->flag, v, row->lo, row->lo_open, row->hi, out);
    }
    long long n = 0;
    const long long lo = (long long)row->lo + (row->lo_open ? 1 : 0);
    const long long hi = isfinite(row->hi) ? (long long)row->hi : LLONG_MAX;
    if (!tpCli_ParseInt(row->flag, v, lo, hi, &n)) {
        return false;
    }
    *out = (double)n;
    return true;
}

/* Parses an option into the run definition: its row's range (tp/run_fields.h), then
 * tplan_run_def_check, whose message names the field: the command line names the flag. */
int tpCli_PlannerOption(tpCliPlanOpts *o, int code, const char *v)
{
    const tpRunField *row = tpCli_FieldOf(code);
    double d = 0;
    if (!row) {
        return 0;
    }
    if (!tpCli_ParseField(row, v, &d)) {
        return -1;
    }
    tpRun_FieldSet(&o->run, row, d);
    tplan_error e;
    if (tplan_run_def_check(&o->run, &e) != TPLAN_OK) {
        const tpRunField *bad = tpRun_FindField(e.field);
        tpLog(TP_LOG_ERROR, "%s: %s", bad && bad->flag ? bad->flag : "run definition", e.message);
        return -1;
    }
    return 1;
}

tpScriptDef tpCli_ScriptDef(const tpCliPlanOpts *o, const char *path, const tpScriptParam *params, int nparams)
{
    tpScriptDef def = tpRun_ScriptDef(&o->run, path, o->source, o->source_len, params, nparams);
    def.name = o->name;
    def.print_to = o->print_to;
    tpCli_WatchScript(&def);
    return def;
}

void tpCli_PrintWarnings(const tpDomain *domain)
{
    const int n = tpDomain_WarningCount(domain);
    if (n > 0) {
        fflush(stdout);
    }
    for (int i = 0; i < n; ++i) {
        tpLog(TP_LOG_WARN, "%s", tpDomain_Warning(domain, i));
    }
}

void tpCli_ScriptWarnings(const tpCliPlanOpts *o, const char *path, const tpScriptParam *params, int nparams)
{
    char err[256];
    tpScriptDef def = tpCli_ScriptDef(o, path, params, nparams);
    tpScript *s = tpCreateScript(&def, err, sizeof err);
    if (s) {
        tpCli_PrintWarnings(tpScript_Domain(s));
    }
    tpDestroyScript(s);
}

/* An output must not replace a file the script read (a module, a track, an image), or the next
   run of the domain would fail: false with "OUT is ...: refusing to overwrite an input" in err. */
static bool outputs_spare_inputs(const tpScript *script, const char *path, const tpCliPlanOpts *o, char *err,
                                 size_t errlen)
{
    int n = 0;
    const tpScriptFile *files = tpScript_Files(script, &n);
    const char *slash = strrchr(path, '/');
    int dir = slash ? (int)(slash - path) + 1 : 0;
    for (int k = 1; k < n && !o->source; ++k) {
        char disk[4096];
        snprintf(disk, sizeof disk, "%.*s%s", dir, path, files[k].path);
        for (int i = 0; i < o->noutputs; ++i) {
            if (o->outputs[i].path && tpCli_SameFile(o->outputs[i].path, disk)) {
                char q1[512], q2[512];
                snprintf(err, errlen, "%s '%s' is '%s', a file the domain script read: refusing to overwrite an input",
                         o->outputs[i].what, tpCli_Escape(o->outputs[i].path, q1, sizeof q1),
                         tpCli_Escape(files[k].path, q2, sizeof q2));
                return false;
            }
        }
    }
    return true;
}

/* What the program does once the script is loaded, before planning: refuse an output that is one
   of the script's inputs, print the domain's warnings. */
typedef struct LoadedCheck {
    const tpCliPlanOpts *o;
    const char *path;
} LoadedCheck;

static bool on_loaded(void *user, tpScript *script, tplan_error *err)
{
    const LoadedCheck *c = user;
    if (!outputs_spare_inputs(script, c->path, c->o, err->message, sizeof err->message)) {
        err->code = TPLAN_ERR_ARGUMENT;
        return false;
    }
    if (c->o->warn) {
        tpCli_PrintWarnings(tpScript_Domain(script));
    }
    return true;
}

int tpCli_PlanRun(const char *path, const tpScriptParam *params, int nparams, const tpCliPlanOpts *o,
                  const tpCliProgress *progress, tpCliRun *run, char *err, size_t errlen)
{
    TP_VALIDATE(tpCliPlanOpts_Valid, o);
    tpScriptDef sdef = tpCli_ScriptDef(o, path, params, nparams);
    tpRunHooks hooks;
    memset(&hooks, 0, sizeof hooks);
    if (progress) {
        hooks.progress = progress->fn;
        hooks.progress_user = progress->user;
        hooks.progress_interval = progress->interval;
    }
    hooks.iteration_bound = o->iteration_bound;
    hooks.iteration_bound_user = o->iteration_bound_user;
    LoadedCheck check = {o, path};
    hooks.loaded = on_loaded;
    hooks.loaded_user = &check;
    tplan_run_def def = o->run;
    def.jobs = 1; /* --jobs runs OR-parallel searches of one run each (par.h) */
    tplan_error e;
    if (tpRun_Plan(&def, &sdef, &hooks, run, &e) != TPLAN_OK) {
        snprintf(err, errlen, "%s", e.message);
        return TP_EXIT_BAD_INPUT;
    }
    return TP_EXIT_OK;
}

void tpCli_PlanRunFree(tpCliRun *run)
{
    tpRun_Free(run);
}

double tpCli_BestUnrest(const tpCliRun *run)
{
    const tpProblem p = tpDomain_Problem(run->domain);
    const void *x = tpTree_State(tpPlanner_Tree(run->planner), run->res.best);
    return p.unrest_exact ? p.unrest_exact(p.ctx, x) : p.unrest ? p.unrest(p.ctx, x) : 0.0;
}

bool tpCli_RecordResult(const tpCliRun *run, const char *path, const tpPlanResult *res, tpPlanRecord *rec, char *err,
                        size_t errlen)
{
    return tpRun_Record(run, path, res, rec, err, errlen);
}

bool tpCli_RecordRun(const tpCliRun *run, const char *path, tpPlanRecord *rec, char *err, size_t errlen)
{
    return tpRun_Record(run, path, &run->res, rec, err, errlen);
}

bool tpCli_WriteTree(const tpDomain *domain, const tpTree *tree, const tpPlanResult *res, const char *path)
{
    const tpWorld *w = tpDomain_World(domain);
    int nb = tpWorld_BodyCount(w);
    tpTreeRecord tr;
    memset(&tr, 0, sizeof tr);
    int *bodies = calloc((size_t)nb, sizeof *bodies);
    tr.body_names = calloc((size_t)nb, sizeof *tr.body_names);
    tr.nnodes = tpTree_Count(tree);
    tr.parent = calloc((size_t)tr.nnodes, sizeof *tr.parent);
    tr.flags = calloc((size_t)tr.nnodes, sizeof *tr.flags);
    bool ok = bodies && tr.body_names && tr.parent && tr.flags;
    for (int b = 0; ok && b < nb; ++b) {
        if (tpWorld_Body(w, b)->cls != TP_BODY_STATIC) {
            bodies[tr.nbodies] = b;
            tr.body_names[tr.nbodies++] = (char *)tpWorld_Body(w, b)->name;
        }
    }
    tr.pos = ok ? calloc((size_t)tr.nnodes * (size_t)(tr.nbodies > 0 ? tr.nbodies : 1) * 3, sizeof *tr.pos) : NULL;
    ok = ok && tr.pos;
    for (int64_t i = 0; ok && i < tr.nnodes; ++i) {
        const tpNode *n = tpTree_Node(tree, (int32_t)i);
        tr.parent[i] = n->parent;
        tr.flags[i] = (uint8_t)(((n->flags & TP_NODE_BUSY) ? 1 : 0) | ((n->flags & TP_NODE_GOAL) ? 2 : 0));
        const void *x = tpTree_State(tree, (int32_t)i);
        for (int k = 0; k < tr.nbodies; ++k) {
            tpBodyState s;
            tpWorld_BodyState(w, tpState_Bodies(x), tpState_Time(x), bodies[k], &s);
            for (int c = 0; c < 3; ++c) {
                tr.pos[((size_t)i * (size_t)tr.nbodies + (size_t)k) * 3 + (size_t)c] = (float)s.pos[c];
            }
        }
    }
    if (ok && res->best >= 0) { /* mark the chosen branch */
        for (int32_t i = res->best; i >= 0; i = tpTree_Node(tree, i)->parent) {
            tr.flags[i] |= 4;
        }
    }
    char err[512] = "out of memory";
    ok = ok && tpTreeRecord_Write(&tr, path, err, sizeof err);
    if (!ok) {
        tpLog(TP_LOG_ERROR, "cannot write tree %s: %s", path, err);
    }
    free(bodies);
    free(tr.body_names);
    free(tr.parent);
    free(tr.flags);
    free(tr.pos);
    return ok;
}
