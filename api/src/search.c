/* Anytime planning under a hard deadline (tplan/tplan.h, "Anytime search").
 *
 * A search owns a planning run prepared once (tpRun_Prepare: its own copy of the script, the
 * domain, the planner with its root): everything heavy happens in tplan_search_new, so that a run
 * costs only the loop and the extraction of its best plan. The loop (tpPlanner_Search) reads the
 * clock before every iteration and between the coast's physics steps and stops at the deadline
 * less a reserve for the extraction (its measured cost, kept with a margin), so the call returns
 * within its budget. Nothing here prints: every call is a tpCall (call.h). */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "call.h"
#include "tp/base.h"
#include "tp/run.h"

/* The most solutions (worlds) the best plan of a search records: each world is its path's states of
 * every body (pool: 0.1-0.3 ms to record), and a search keeping thousands of solutions would record
 * them all in every run. A search asking for at most this many (every shipped domain asks for 1-3)
 * records them all, as tplan_plan. */
#define TPLAN_SEARCH_WORLDS 3
#define TPLAN_SEARCH_KEY (TPLAN_SEARCH_WORLDS + 3) /* worlds_key's length */

struct tplan_search {
    tplan_domain *domain; /* not owned: must outlive the search */
    tplan_run_def def;    /* the run definition (copied; start and time_limit cleared) */
    tpRun run;            /* its own script, domain and planner */
    tplan_result *best;   /* the best plan at the end of the last call (owned; NULL once taken) */
    tpPlanRecord like;    /* the embedded sources of the first extraction, copied into the next ones */
    bool has_like;
    atomic_int cancel; /* set by tplan_search_cancel from any thread, cleared when a run returns */
    double reserve;    /* s of a timed run kept for the extraction of its plan */
    tplan_code failed; /* TPLAN_OK, or why the search cannot go on (a callback failed) */
    char failed_msg[sizeof(((tplan_error *)0)->message)];
    bool done;                        /* the planner cannot go on from this root */
    int32_t sol[TPLAN_SEARCH_WORLDS]; /* the solutions a plan records when there are more (trim_solutions) */
    double cost[TPLAN_SEARCH_WORLDS];
    int64_t iters[TPLAN_SEARCH_WORLDS];
    int64_t key[TPLAN_SEARCH_KEY]; /* the worlds s->best records (worlds_key), when key_valid */
    bool key_valid;
    int64_t kept; /* nodes the last re-root kept (0: it restarted) */
};

/* The planner's iteration bound: 0 (stop before the next iteration) once cancelled. */
static int64_t cancel_bound(void *user)
{
    tplan_search *s = user;
    return atomic_load_explicit(&s->cancel, memory_order_relaxed) ? 0 : INT64_MAX;
}

/* Starts a call on s: the C locale, its output (the def's, else the domain's). */
static void search_begin(const tplan_search *s, tpCall *call)
{
    void *user;
    tplan_output_fn out = tpApi_DefOutput(&s->def, &user);
    if (!out) {
        out = s->domain->limits.output;
        user = s->domain->limits.output_user;
    }
    tpCall_Begin(call, out, user);
}

/* The embedded sources of rec into like (zeroed first; free it with tpPlanRecord_Free). */
static bool copy_sources(tpPlanRecord *like, const tpPlanRecord *rec)
{
    memset(like, 0, sizeof *like);
    like->sources = calloc((size_t)(rec->nsources > 0 ? rec->nsources : 1), sizeof *like->sources);
    bool ok = like->sources != NULL;
    for (int k = 0; ok && k < rec->nsources; ++k) {
        const tpPlanSource *f = &rec->sources[k];
        tpPlanSource *t = &like->sources[k];
        like->nsources = k + 1;
        t->path = strdup(f->path);
        t->hash = strdup(f->hash);
        t->data = malloc(f->len + 1);
        ok = t->path && t->hash && t->data;
        if (ok) {
            memcpy(t->data, f->data, f->len + 1);
            t->len = f->len;
        }
    }
    if (!ok) {
        tpPlanRecord_Free(like);
    }
    return ok;
}

/* res with at most TPLAN_SEARCH_WORLDS of its solutions (the first ones found, the selected one
 * last when it is not among them) into out, their arrays in s's room: what the plan records. */
static void trim_solutions(tplan_search *s, const tpPlanResult *res, tpPlanResult *out)
{
    *out = *res;
    if (res->nsolutions <= TPLAN_SEARCH_WORLDS) {
        return;
    }
    const int n = TPLAN_SEARCH_WORLDS;
    for (int k = 0; k < n; ++k) {
        const int from = k == n - 1 && res->best_solution >= n - 1 ? res->best_solution : k;
        s->sol[k] = res->solutions[from];
        s->cost[k] = res->costs[from];
        s->iters[k] = res->solution_iters[from];
    }
    out->nsolutions = n;
    out->solutions = s->sol;
    out->costs = s->cost;
    out->solution_iters = s->iters;
    out->best_solution = res->best_solution < n - 1 ? res->best_solution : n - 1;
}

/* What a best plan records beyond its statistics: its status, its selected node and the worlds. */
static void worlds_key(const tpPlanResult *res, int64_t key[TPLAN_SEARCH_KEY])
{
    key[0] = res->status;
    key[1] = res->status == TP_PLAN_SOLVED ? res->best_solution : res->best;
    key[2] = res->nsolutions;
    for (int k = 0; k < TPLAN_SEARCH_WORLDS; ++k) {
        key[3 + k] = k < res->nsolutions ? res->solutions[k] : -1;
    }
}

/* The last plan's record with the statistics of res, field by field as tpDomain_Record writes
 * them; the plan file formatted from it, if any, is dropped (formatted again when asked for). */
static void restat(tplan_result *r, const tpRun *run, const tpPlanResult *res)
{
    tpPlanRecord *rec = &r->rec;
    const tpPlanStats *st = &res->stats;
    rec->iterations = st->iterations;
    rec->nodes = st->nodes;
    rec->rejected = st->rejected;
    memcpy(rec->rejections, st->reject, sizeof rec->rejections);
    rec->nsolutions = st->solutions;
    rec->memory_bytes = (int64_t)tpTree_MemoryBytes(tpPlanner_Tree(run->planner));
    rec->t_select = st->t_select;
    rec->t_tactics = st->t_tactics;
    rec->t_physics = st->t_physics;
    rec->t_check = st->t_check;
    rec->t_total = st->t_total;
    rec->nodes_first = st->nodes_first > 0 ? st->nodes_first : 0;
    rec->t_first = st->t_first;
    pthread_mutex_lock(&r->lock);
    free(r->plan);
    r->plan = NULL;
    r->plan_len = 0;
    r->plan_error[0] = '\0';
    pthread_mutex_unlock(&r->lock);
}

/* The best plan so far into s->best: a new record, or, when its worlds are the last plan's (a
 * long search's best plan changes rarely, and recording its worlds is most of a run's extraction),
 * the last record with the new statistics. */
static tplan_code extract(tplan_search *s, tplan_error *err)
{
    tpRun *run = &s->run;
    run->status = tpPlanner_Best(run->planner, &run->res);
    if (run->status == TP_PLAN_ERROR) {
        return tpRun_PlanFailure(run, err);
    }
    tpPlanResult res;
    trim_solutions(s, &run->res, &res);
    int64_t key[TPLAN_SEARCH_KEY];
    worlds_key(&res, key);
    if (s->best && s->key_valid && memcmp(key, s->key, sizeof key) == 0) {
        restat(s->best, run, &res);
        return TPLAN_OK;
    }
    s->key_valid = false;
    tplan_result *r = tpApi_ResultNew();
    char msg[512] = "out of memory";
    if (!r || !tpRun_RecordLike(run, s->domain->path, &res, s->has_like ? &s->like : NULL, &r->rec, msg, sizeof msg)) {
        const tplan_code code = strstr(msg, "out of memory") ? TPLAN_ERR_NOMEM : TPLAN_ERR_INTERNAL;
        tpRun_Fail(err, code, NULL, "%s", msg);
        tplan_result_free(r);
        return code;
    }
    tplan_result_free(s->best);
    s->best = r;
    memcpy(s->key, key, sizeof key);
    s->key_valid = true;
    if (!s->has_like) { /* best effort: without it the next extractions hash the sources again */
        s->has_like = copy_sources(&s->like, &r->rec);
    }
    return TPLAN_OK;
}

/* Whether tree node state x is the state (bodies, rest counts, time) within tol. */
static bool node_matches(const tpDomain *d, const void *x, const tpBodyState *b, const uint8_t *rest, double t, int ns,
                         double tol)
{
    if (!(fabs(tpState_Time(x) - t) <= tol)) {
        return false;
    }
    const tpBodyState *nb = tpState_Bodies(x);
    const uint8_t *nr = tpState_Rest(d, x);
    for (int k = 0; k < ns; ++k) {
        if (nr[k] != rest[k]) {
            return false;
        }
        const double *u = nb[k].pos, *v = b[k].pos; /* pos, quat, vel, angvel: 13 doubles in a row */
        _Static_assert(sizeof(tpBodyState) == 13 * sizeof(double), "tpBodyState is 13 doubles");
        for (int i = 0; i < 13; ++i) {
            if (!(fabs(u[i] - v[i]) <= tol)) {
                return false;
            }
        }
    }
    return true;
}

/* The node whose state is (b, rest, t) within tol: the best plan's path first (the game played
 * its first steps), then the whole tree in index order; -1 when none. */
static int32_t find_node(tplan_search *s, const tpBodyState *b, const uint8_t *rest, double t, double tol)
{
    const tpTree *tree = tpPlanner_Tree(s->run.planner);
    const int ns = tpWorld_StateCount(tpDomain_World(s->run.domain));
    const int32_t leaf = s->run.res.best;
    if (leaf >= 0 && leaf < tpTree_Count(tree)) {
        for (int32_t i = leaf; i >= 0; i = tpTree_Node(tree, i)->parent) {
            if (node_matches(s->run.domain, tpTree_State(tree, i), b, rest, t, ns, tol)) {
                return i;
            }
        }
    }
    for (int32_t i = 0; i < tpTree_Count(tree); ++i) {
        if (node_matches(s->run.domain, tpTree_State(tree, i), b, rest, t, ns, tol)) {
            return i;
        }
    }
    return -1;
}

static tplan_search *search_new(tplan_domain *d, const tplan_run_def *def0, const tplan_state *start, tplan_error *err)
{
    tplan_search *s = calloc(1, sizeof *s);
    if (!s) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    s->domain = d;
    atomic_init(&s->cancel, 0);
    if (!tpApi_PlanDef(d, def0, &s->def, err)) {
        free(s);
        return NULL;
    }
    if (start) {
        s->def.start = start;
    }
    /* the budget of each run is its deadline; a domain's time_limit would count from the start */
    s->def.time_limit = 0;
    tpRunHooks hooks;
    memset(&hooks, 0, sizeof hooks);
    hooks.progress_interval = 1e9;
    hooks.iteration_bound = cancel_bound;
    hooks.iteration_bound_user = s;
    tpScriptDef sdef = tpApi_ScriptDef(d, &s->def);
    tplan_code code = tpRun_Prepare(&s->def, &sdef, &hooks, &s->run, err);
    s->def.start = NULL; /* read during this call only */
    if (code == TPLAN_OK) {
        /* the root (the tree's first chunk) and a first extraction, whose cost is the first reserve */
        const double t0 = tpClock_Now();
        if (tpPlanner_Search(s->run.planner, 0, INFINITY, &s->done) == TP_PLAN_ERROR) {
            code = tpRun_PlanFailure(&s->run, err);
        } else {
            code = extract(s, err);
        }
        s->reserve = 1.5 * (tpClock_Now() - t0) + 50e-6;
    }
    if (code != TPLAN_OK) {
        tplan_search_free(s);
        return NULL;
    }
    tpApi_SetOk(err);
    return s;
}

tplan_search *tplan_search_new(tplan_domain *d, const tplan_run_def *def, const tplan_state *start, tplan_error *err)
{
    if (!d) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no domain (NULL)");
        return NULL;
    }
    void *user;
    tplan_output_fn output = tpApi_DefOutput(def, &user);
    if (!output) {
        output = d->limits.output;
        user = d->limits.output_user;
    }
    tpCall call;
    tpCall_Begin(&call, output, user);
    tplan_search *s = search_new(d, def, start, err);
    tpCall_End(&call);
    return s;
}

void tplan_search_free(tplan_search *s)
{
    if (!s) {
        return;
    }
    tpCall call;
    search_begin(s, &call);
    tpRun_Free(&s->run);
    tpCall_End(&call);
    tplan_result_free(s->best);
    if (s->has_like) {
        tpPlanRecord_Free(&s->like);
    }
    free(s);
}

/* One run: budget s of wall clock (> 0), or iterations (>= 0) when budget is 0. */
static tplan_code search_run(tplan_search *s, double budget, int64_t iterations, tplan_error *err)
{
    const double t_call = tpClock_Now();
    if (s->failed != TPLAN_OK) {
        tpRun_Fail(err, s->failed, NULL, "the search failed earlier: %s", s->failed_msg);
        return s->failed;
    }
    tpRun *run = &s->run;
    double deadline = INFINITY;
    if (budget > 0) {
        /* the reserve is at most half the budget: an extraction measured long because the thread
           was preempted must not starve the next runs */
        deadline = t_call + budget - (s->reserve < 0.5 * budget ? s->reserve : 0.5 * budget);
        /* a Lua callback still running a second after the budget is stuck: the hook stops it */
        tpScript_SetDeadline(run->script, t_call + budget + 1.0, "the search's budget, plus 1 s of grace");
    } else {
        tpScript_SetDeadline(run->script, 0, NULL);
    }
    tplan_code code = TPLAN_OK;
    if (s->done && s->best) {
        /* nothing can change until a re-root: the best plan stands */
    } else if (tpPlanner_Search(run->planner, budget > 0 ? INT64_MAX : iterations, deadline, &s->done) ==
               TP_PLAN_ERROR) {
        code = tpRun_PlanFailure(run, err);
    } else {
        const double t_ex = tpClock_Now();
        code = extract(s, err);
        const double spent = tpClock_Now() - t_ex;
        /* the next reserve: this extraction with a margin, shrinking slowly when extractions get
           cheaper (a plan's cost grows with its length, not with the tree) */
        const double want = 1.5 * spent + 50e-6;
        s->reserve = want > 0.7 * s->reserve ? want : 0.7 * s->reserve;
    }
    if (code != TPLAN_OK && code != TPLAN_ERR_NOMEM) {
        s->failed = code;
        snprintf(s->failed_msg, sizeof s->failed_msg, "%s", err ? err->message : "a callback failed");
    }
    atomic_store(&s->cancel, 0);
    if (code == TPLAN_OK) {
        tpApi_SetOk(err);
    }
    return code;
}

static tplan_code search_call(tplan_search *s, double budget, int64_t iterations, tplan_error *err)
{
    if (!s) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "no search (NULL)");
        return TPLAN_ERR_ARGUMENT;
    }
    tpCall call;
    search_begin(s, &call);
    tplan_code code = search_run(s, budget, iterations, err);
    tpCall_End(&call);
    return code;
}

tplan_code tplan_search_run(tplan_search *s, double budget, tplan_error *err)
{
    if (!(budget > 0 && budget <= 1e9)) { /* NaN too */
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "budget", "budget: %g is not a number of seconds in (0, 1e9]", budget);
        return TPLAN_ERR_ARGUMENT;
    }
    return search_call(s, budget, 0, err);
}

tplan_code tplan_search_run_iterations(tplan_search *s, int64_t iterations, tplan_error *err)
{
    if (iterations < 1) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "iterations", "iterations: %lld is not a number of iterations >= 1",
                   (long long)iterations);
        return TPLAN_ERR_ARGUMENT;
    }
    return search_call(s, 0, iterations, err);
}

const tplan_result *tplan_search_best(const tplan_search *s)
{
    return s ? s->best : NULL;
}

tplan_result *tplan_search_take_best(tplan_search *s)
{
    tplan_result *r = s ? s->best : NULL;
    if (s) {
        s->best = NULL;
    }
    return r;
}

int tplan_search_done(const tplan_search *s)
{
    return s && (s->done || s->failed != TPLAN_OK);
}

void tplan_search_cancel(tplan_search *s)
{
    if (s) {
        atomic_store(&s->cancel, 1);
    }
}

static tplan_code reroot(tplan_search *s, const tplan_state *observed, double tol, tplan_error *err)
{
    tpDomain *d = s->run.domain;
    const int ns = tpWorld_StateCount(tpDomain_World(d));
    tpBodyState *x = calloc((size_t)(ns > 0 ? ns : 1), sizeof *x);
    uint8_t *rest = calloc((size_t)(ns > 0 ? ns : 1), 1);
    tplan_code code = TPLAN_OK;
    if (!x || !rest) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        code = TPLAN_ERR_NOMEM;
    } else if (!tpState_Bind(observed, d, x, rest, err) || !tpState_BindTactics(observed, d, NULL, NULL, err)) {
        code = err ? err->code : TPLAN_ERR_ARGUMENT;
    }
    if (code == TPLAN_OK) {
        const int32_t node = find_node(s, x, rest, observed->t, tol);
        s->key_valid = false; /* node indices and the start change */
        bool kept = false;
        if (node >= 0) {
            /* the node's own state becomes the start (it differs from the observed one by at most
               tol): its subtree's states follow from it, and its plans replay from it */
            const void *nx = tpTree_State(tpPlanner_Tree(s->run.planner), node);
            kept = tpDomain_SetStart(d, tpState_Bodies(nx), tpState_Rest(d, nx), tpState_Time(nx)) &&
                   tpDomain_SetStartTactics(d, tpState_TacticsPart(d, nx), tpDomain_Memory(d, nx)) &&
                   tpPlanner_Reroot(s->run.planner, node);
            /* the goal may compare with the start (tp.moved): the kept nodes must agree with it */
            kept = kept && tpPlanner_RecheckGoals(s->run.planner);
        }
        s->kept = kept ? tpTree_Count(tpPlanner_Tree(s->run.planner)) : 0;
        if (!kept && !(tpDomain_SetStart(d, x, rest, observed->t) && tpState_ApplyTactics(observed, d, err) &&
                       tpPlanner_Reroot(s->run.planner, -1))) {
            tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
            code = s->failed = TPLAN_ERR_NOMEM;
            snprintf(s->failed_msg, sizeof s->failed_msg, "out of memory re-rooting");
        }
        s->done = false;
        if (code == TPLAN_OK) {
            code = extract(s, err);
        }
    }
    free(x);
    free(rest);
    if (code == TPLAN_OK) {
        tpApi_SetOk(err);
    }
    return code;
}

tplan_code tplan_search_reroot(tplan_search *s, const tplan_state *observed, double tolerance, int64_t *kept,
                               tplan_error *err)
{
    if (kept) {
        *kept = 0;
    }
    if (!s || !observed) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, NULL, "%s", !s ? "no search (NULL)" : "no observed state (NULL)");
        return TPLAN_ERR_ARGUMENT;
    }
    if (!(tolerance >= 0 && tolerance <= 1e9)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "tolerance", "tolerance: %g is not a number in [0, 1e9]", tolerance);
        return TPLAN_ERR_ARGUMENT;
    }
    if (s->failed != TPLAN_OK) {
        tpRun_Fail(err, s->failed, NULL, "the search failed earlier: %s", s->failed_msg);
        return s->failed;
    }
    tpCall call;
    search_begin(s, &call);
    tplan_code code = reroot(s, observed, tolerance, err);
    tpCall_End(&call);
    if (kept) {
        *kept = s->kept;
    }
    return code;
}
