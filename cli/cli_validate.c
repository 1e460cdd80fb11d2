/* tplan: the invariants of the command line's data (cli_validate.h): the parsed options of plan,
 * replay, bench and export, the OR-parallel summaries and decision, the --preview and --view
 * states, the bench's run records. Each rule is a property the code keeps (a range a parse checked,
 * a count against its capacity, a NUL terminator, a cross-reference in range); each is broken once
 * in tests/cli/test_cli_validate.c. Reads only. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cli_validate.h"
#include "tp/base.h"

/* s is a C string within its array of cap bytes. */
static bool terminated(const char *s, size_t n)
{
    return memchr(s, '\0', n) != NULL;
}

/* NaN and infinities fail; so does a value below 0. */
static bool nonneg(double x)
{
    return isfinite(x) && x >= 0;
}

bool tpCliParams_Valid(const tpCliParams *p, char *why, size_t cap)
{
    if (p->n < 0 || p->n > TP_MAX_PARAMS) {
        return tpBroken(why, cap, "--set: %d options, at most %d", p->n, TP_MAX_PARAMS);
    }
    for (int i = 0; i < p->n; ++i) {
        const tpScriptParam *it = &p->items[i];
        if (!it->name || !it->name[0] || !it->value) {
            return tpBroken(why, cap, "--set %d: name '%s', value %s", i, it->name ? it->name : "(null)",
                            it->value ? "given" : "missing");
        }
        for (int k = 0; k < i; ++k) {
            if (strcmp(p->items[k].name, it->name) == 0) {
                return tpBroken(why, cap, "--set %s: given twice (%d and %d)", it->name, k, i);
            }
        }
    }
    return true;
}

bool tpCliPlanOpts_Valid(const tpCliPlanOpts *o, char *why, size_t cap)
{
    if (o->run.size != sizeof o->run) {
        return tpBroken(why, cap, "run definition: size %zu, not %zu (not initialised)", o->run.size, sizeof o->run);
    }
    tplan_error e;
    if (tplan_run_def_check(&o->run, &e) != TPLAN_OK) {
        return tpBroken(why, cap, "run definition: %s", e.message);
    }
    if (!o->source && o->source_len != 0) {
        return tpBroken(why, cap, "script text: %zu bytes of no text", o->source_len);
    }
    if (o->noutputs < 0 || (o->noutputs > 0 && !o->outputs)) {
        return tpBroken(why, cap, "outputs: %d files in %s", o->noutputs, o->outputs ? "a list" : "no list");
    }
    if (o->iteration_bound_user && !o->iteration_bound) {
        return tpBroken(why, cap, "iteration bound: a user pointer without a callback");
    }
    return true;
}

bool tpCliPlanCmd_Valid(const tpCliPlanCmd *p, char *why, size_t cap)
{
    if (!p->domain_arg) {
        return tpBroken(why, cap, "plan: no domain");
    }
    if (p->jobs < 1 || p->jobs > TP_PAR_MAX_WORKERS) {
        return tpBroken(why, cap, "plan: --jobs %lld not in 1..%d", p->jobs, TP_PAR_MAX_WORKERS);
    }
    if (p->view_quit < 0 || p->view_quit > 1000000000) {
        return tpBroken(why, cap, "plan: --view-quit-after %lld", p->view_quit);
    }
    if (!(p->hard_deadline >= 0)) {
        return tpBroken(why, cap, "plan: --hard-deadline %g s", p->hard_deadline);
    }
    if (p->no_out && p->out) {
        return tpBroken(why, cap, "plan: --no-out, yet an output '%s'", p->out);
    }
    if (p->mpi && p->jobs > 1) {
        return tpBroken(why, cap, "plan: --mpi with --jobs %lld", p->jobs);
    }
    if (p->preview && (p->jobs > 1 || p->mpi)) {
        return tpBroken(why, cap, "plan: --preview with %s", p->mpi ? "--mpi" : "--jobs");
    }
    if (!p->refine.plan_path && (p->until_set || p->refine.where || p->refine.world)) {
        return tpBroken(why, cap, "plan: --world, --until or --where without --from-plan");
    }
    if (p->refine.plan_path && (!p->until_set || p->state_path || p->jobs > 1 || p->mpi)) {
        return tpBroken(why, cap, "plan: --from-plan %s",
                        !p->until_set ? "without --until" : "with --state, --jobs or --mpi");
    }
    if (p->refine.world < 0 || p->refine.world > 1000000000 || !(p->refine.until >= 0) ||
        !(p->refine.until <= TP_PLAN_MAX_START_TIME)) {
        return tpBroken(why, cap, "plan: --world %lld, --until %g s", p->refine.world, p->refine.until);
    }
    return tpCliParams_Valid(&p->params, why, cap) && tpCliPlanOpts_Valid(&p->o, why, cap);
}

/* items[0..n) split in place inside buf (bufcap bytes), each non-empty. */
static bool valid_list(const char *what, char *const *items, int n, const char *buf, size_t bufcap, char *why,
                       size_t cap)
{
    if (n < 1 || n > TP_BENCH_MAX_LIST) {
        return tpBroken(why, cap, "bench: %s has %d entries, 1..%d", what, n, TP_BENCH_MAX_LIST);
    }
    for (int i = 0; i < n; ++i) {
        if (!items[i] || items[i] < buf || items[i] >= buf + bufcap || !items[i][0]) {
            return tpBroken(why, cap, "bench: %s entry %d is not a word of its list", what, i);
        }
    }
    return true;
}

bool tpCliBenchCmd_Valid(const tpCliBenchCmd *b, char *why, size_t cap)
{
    if (!terminated(b->domains_buf, sizeof b->domains_buf) || !terminated(b->planners_buf, sizeof b->planners_buf)) {
        return tpBroken(why, cap, "bench: --domains or --planners not terminated");
    }
    if (b->seeds < 1 || b->seeds > 100000) {
        return tpBroken(why, cap, "bench: --seeds %lld not in 1..100000", b->seeds);
    }
    if (b->jobs < 1 || b->jobs > TP_BENCH_MAX_JOBS) {
        return tpBroken(why, cap, "bench: --jobs %lld not in 1..%d", b->jobs, TP_BENCH_MAX_JOBS);
    }
    if (b->plot_iters < 0) {
        return tpBroken(why, cap, "bench: --plot-iters %lld", b->plot_iters);
    }
    if (b->mpi && b->jobs > 1) {
        return tpBroken(why, cap, "bench: --mpi with --jobs %lld", b->jobs);
    }
    if (b->nsets < 0 || b->nsets > TP_MAX_PARAMS) {
        return tpBroken(why, cap, "bench: %d --set options, at most %d", b->nsets, TP_MAX_PARAMS);
    }
    for (int i = 0; i < b->nsets; ++i) {
        const char *eq = b->sets[i] ? strchr(b->sets[i], '=') : NULL;
        if (!eq || eq == b->sets[i] || eq[-1] == ':') {
            return tpBroken(why, cap, "bench: --set %d is not [domain:]name=value", i);
        }
    }
    if (!valid_list("--domains", b->domains, b->ndomains, b->domains_buf, sizeof b->domains_buf, why, cap) ||
        !valid_list("--planners", b->planners, b->nplanners, b->planners_buf, sizeof b->planners_buf, why, cap)) {
        return false;
    }
    for (int i = 0; i < b->nplanners; ++i) {
        const tpPlannerKind want = strcmp(b->planners[i], "rrt") == 0 ? TP_PLANNER_RRT : TP_PLANNER_BGT;
        if (b->kinds[i] != want || (want == TP_PLANNER_BGT && strcmp(b->planners[i], "bgt") != 0)) {
            return tpBroken(why, cap, "bench: planner %d '%s' has kind %d", i, b->planners[i], (int)b->kinds[i]);
        }
    }
    if ((long long)b->first_seed + b->seeds - 1 > (long long)UINT32_MAX) {
        return tpBroken(why, cap, "bench: seeds %u..%lld past 32 bits", b->first_seed,
                        (long long)b->first_seed + b->seeds - 1);
    }
    if (b->out) {
        const size_t n = strlen(b->out);
        if (!(n >= 5 && strcmp(b->out + n - 5, ".json") == 0) && !(n >= 4 && strcmp(b->out + n - 4, ".csv") == 0)) {
            return tpBroken(why, cap, "bench: --out '%s' is neither .json nor .csv", b->out);
        }
    }
    return tpCliPlanOpts_Valid(&b->o, why, cap);
}

bool tpCliExportCmd_Valid(const tpCliExportCmd *e, char *why, size_t cap)
{
    if (!e->plan || !e->out) {
        return tpBroken(why, cap, "export: %s", e->plan ? "no -o OUT" : "no plan");
    }
    if (e->def.format != TP_EXPORT_GLB && e->def.format != TP_EXPORT_GLTF && e->def.format != TP_EXPORT_CSV) {
        return tpBroken(why, cap, "export: format %d", (int)e->def.format);
    }
    if (!nonneg(e->def.tolerance) || e->def.tolerance > 1e6 || isnan(e->def.angle_tolerance) ||
        e->def.angle_tolerance > 1e6) {
        return tpBroken(why, cap, "export: --tolerance %g m, --angle-tolerance %g rad", e->def.tolerance,
                        e->def.angle_tolerance);
    }
    if (e->def.world < 0 || e->def.world >= 1000000) {
        return tpBroken(why, cap, "export: world %d (--world %d)", e->def.world, e->def.world + 1);
    }
    if (e->def.format == TP_EXPORT_CSV && (e->tree_path || e->def.alternatives || e->def.overlays)) {
        return tpBroken(why, cap, "export: a glTF option with --format csv");
    }
    return true;
}

bool tpCliReplayCmd_Valid(const tpCliReplayCmd *r, char *why, size_t cap)
{
    if (!r->plan_path) {
        return tpBroken(why, cap, "replay: no plan");
    }
    if (isnan(r->tolerance) || r->tolerance > 1000) {
        return tpBroken(why, cap, "replay: --tolerance %g m", r->tolerance);
    }
    if (!(r->hard_deadline >= 0)) {
        return tpBroken(why, cap, "replay: --hard-deadline %g s", r->hard_deadline);
    }
    if (!nonneg(r->load_time_limit) || r->load_time_limit > 1e6 || !nonneg(r->call_time_limit) ||
        r->call_time_limit > 1e6) {
        return tpBroken(why, cap, "replay: --load-time-limit %g s, --call-time-limit %g s", r->load_time_limit,
                        r->call_time_limit);
    }
    return true;
}

bool tpParSummary_Valid(const tpParSummary *s, char *why, size_t cap)
{
    if (s->rc < TP_EXIT_OK || s->rc > TP_EXIT_HARD_DEADLINE) {
        return tpBroken(why, cap, "summary: exit code %d", (int)s->rc);
    }
    if (!terminated(s->err, sizeof s->err)) {
        return tpBroken(why, cap, "summary: message not terminated");
    }
    if (s->requested < 1 || s->nsolutions < 0) {
        return tpBroken(why, cap, "summary: %d solutions of %d asked for", (int)s->nsolutions, (int)s->requested);
    }
    if (s->by_rest != 0 && s->by_rest != 1) {
        return tpBroken(why, cap, "summary: by_rest %d", (int)s->by_rest);
    }
    if (s->rc != TP_EXIT_OK) {
        return true; /* a failed run reports its message only */
    }
    if (s->status != TP_PLAN_SOLVED && s->status != TP_PLAN_APPROXIMATE) {
        return tpBroken(why, cap, "summary: status %d of a run that planned", (int)s->status);
    }
    if ((s->status == TP_PLAN_SOLVED) != (s->nsolutions > 0)) {
        return tpBroken(why, cap, "summary: %s with %d solutions",
                        s->status == TP_PLAN_SOLVED ? "solved" : "approximate", (int)s->nsolutions);
    }
    if (s->nsolutions > 0 && (s->quality != 0 || s->unrest != 0)) {
        return tpBroken(why, cap, "summary: solved, yet a fallback's quality %g and unrest %g", s->quality, s->unrest);
    }
    if (s->unrest < 0) {
        return tpBroken(why, cap, "summary: unrest %g", s->unrest);
    }
    if (s->stats.nodes < 1 || s->stats.iterations < 0 || s->memory_bytes < 0 || s->state_bytes == 0 ||
        s->action_dim < 0) {
        return tpBroken(why, cap,
                        "summary: %lld nodes, %lld iterations, %lld bytes, states of %llu bytes, actions of %d",
                        (long long)s->stats.nodes, (long long)s->stats.iterations, (long long)s->memory_bytes,
                        (unsigned long long)s->state_bytes, (int)s->action_dim);
    }
    return true;
}

bool tpParOutcome_Valid(const tpParOutcome *o, char *why, size_t cap)
{
    if (o->nworkers < 1 || o->nworkers > TP_PAR_MAX_WORKERS || !o->workers || !o->iters || !o->costs) {
        return tpBroken(why, cap, "outcome: %d workers", o->nworkers);
    }
    const int K = o->workers[0].requested;
    int64_t m = 0; /* solutions found within B: the pool before the cut to K */
    for (int k = 0; k < o->nworkers; ++k) {
        const tpParSummary *s = &o->workers[k];
        if (!tpParSummary_Valid(s, why, cap)) {
            return false;
        }
        if (s->requested != K) {
            return tpBroken(why, cap, "outcome: worker %d asked for %d solutions, worker 0 for %d", k,
                            (int)s->requested, K);
        }
        for (int j = 0; j < s->nsolutions; ++j) {
            if (j > 0 && o->iters[k][j] < o->iters[k][j - 1]) {
                return tpBroken(why, cap, "outcome: worker %d's solution %d at iteration %lld, before %lld", k, j,
                                (long long)o->iters[k][j], (long long)o->iters[k][j - 1]);
            }
            m += o->iters[k][j] <= o->bound;
        }
    }
    if (o->owner < 0 || o->owner >= o->nworkers || o->stats_worker < 0 || o->stats_worker >= o->nworkers) {
        return tpBroken(why, cap, "outcome: owner %d, statistics of worker %d, of %d", o->owner, o->stats_worker,
                        o->nworkers);
    }
    const tpParSummary *sw = &o->workers[o->stats_worker];
    if (o->bound != INT64_MAX && (sw->nsolutions < K || o->iters[o->stats_worker][K - 1] != o->bound)) {
        return tpBroken(why, cap, "outcome: B = %lld is not worker %d's K-th solution", (long long)o->bound,
                        o->stats_worker);
    }
    if ((int64_t)o->pooled != (m < K ? m : K)) {
        return tpBroken(why, cap, "outcome: %d solutions pooled, %lld within B for K = %d", o->pooled, (long long)m, K);
    }
    return true;
}

bool tpCliPreview_Valid(const tpCliPreview *pv, char *why, size_t cap)
{
    if (!pv->run || !pv->path) {
        return tpBroken(why, cap, "preview: no %s", pv->run ? "file" : "run");
    }
    if (pv->scanned < 0 || pv->best < -1 || pv->best >= (pv->scanned > 0 ? pv->scanned : 1)) {
        return tpBroken(why, cap, "preview: best node %d of %d scanned", (int)pv->best, (int)pv->scanned);
    }
    if (pv->written < -1 || pv->written >= (pv->scanned > 0 ? pv->scanned : 1)) {
        return tpBroken(why, cap, "preview: node %d written of %d scanned", (int)pv->written, (int)pv->scanned);
    }
    if (pv->count < 0 || (pv->count == 0) != (pv->written < 0)) {
        return tpBroken(why, cap, "preview: %d files written, the last of node %d", pv->count, (int)pv->written);
    }
    if (pv->best < 0 && (pv->best_goal || !isnan(pv->best_quality))) {
        return tpBroken(why, cap, "preview: no best node, yet %s", pv->best_goal ? "a goal" : "a quality");
    }
    if (pv->best >= 0 && !pv->best_goal && (!isfinite(pv->best_unrest) || !isfinite(pv->best_key))) {
        return tpBroken(why, cap, "preview: best node %d with unrest %g, key %g", (int)pv->best, pv->best_unrest,
                        pv->best_key);
    }
    if (isnan(pv->next_write)) {
        return tpBroken(why, cap, "preview: next write at %g s", pv->next_write);
    }
    return true;
}

bool tpCliLive_Valid(const tpCliLive *live, char *why, size_t cap)
{
    const tpTreeRecord *tr = &live->tr;
    if (!terminated(live->status, sizeof live->status)) {
        return tpBroken(why, cap, "live: status line not terminated");
    }
    if (tr->nnodes < 0 || tr->nnodes > live->cap) {
        return tpBroken(why, cap, "live: %lld nodes in room for %lld", (long long)tr->nnodes, (long long)live->cap);
    }
    if (live->cap > 0 && (!tr->parent || !tr->flags || !tr->pos)) {
        return tpBroken(why, cap, "live: room for %lld nodes without its arrays", (long long)live->cap);
    }
    if (tr->nbodies < 0 || (tr->nbodies > 0 && (!live->bodies || !tr->body_names))) {
        return tpBroken(why, cap, "live: %d bodies recorded", tr->nbodies);
    }
    for (int k = 0; k < tr->nbodies; ++k) {
        if (live->bodies[k] < (k > 0 ? live->bodies[k - 1] + 1 : 0) || !tr->body_names[k]) {
            return tpBroken(why, cap, "live: recorded body %d is world body %d", k, live->bodies[k]);
        }
    }
    const int64_t last = tr->nnodes - 1; /* the newest node's parent is an older node (the root's is -1) */
    if (last >= 0 && (tr->parent[last] < -1 || tr->parent[last] >= last || (last > 0 && tr->parent[last] < 0))) {
        return tpBroken(why, cap, "live: node %lld has parent %d", (long long)last, (int)tr->parent[last]);
    }
    return true;
}

bool tpBenchRun_Valid(const tpBenchRun *r, char *why, size_t cap)
{
    if (!terminated(r->domain, sizeof r->domain) || !r->domain[0]) {
        return tpBroken(why, cap, "bench run: no domain label");
    }
    if (r->kind != TP_PLANNER_BGT && r->kind != TP_PLANNER_RRT) {
        return tpBroken(why, cap, "bench run %s: planner kind %d", r->domain, (int)r->kind);
    }
    if (r->nodes < 1 || r->iterations < 0 || r->steps < -1 || r->steps >= r->nodes) {
        return tpBroken(why, cap, "bench run %s: %lld nodes, %lld iterations, %d steps", r->domain, (long long)r->nodes,
                        (long long)r->iterations, r->steps);
    }
    if (r->solved ? r->nodes_first < 1 || r->nodes_first > r->nodes || !nonneg(r->t_first)
                  : r->nodes_first != -1 || !isinf(r->t_first)) {
        return tpBroken(why, cap, "bench run %s: %s, first solution at %lld nodes, %g s", r->domain,
                        r->solved ? "solved" : "unsolved", (long long)r->nodes_first, r->t_first);
    }
    if (r->tree_bytes < 0 || r->maxrss_kb < -1) {
        return tpBroken(why, cap, "bench run %s: tree %lld bytes, peak %ld kB", r->domain, (long long)r->tree_bytes,
                        r->maxrss_kb);
    }
    const double t[] = {r->time, r->t_select, r->t_tactics, r->t_physics, r->t_check, r->t_search, r->t_copy};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) {
        if (!nonneg(t[i])) {
            return tpBroken(why, cap, "bench run %s: time %zu of the breakdown is %g s", r->domain, i, t[i]);
        }
    }
    int64_t sum = 0;
    for (int k = 0; k < TP_REJECT_KINDS; ++k) {
        const tpRejectStat *s = &r->rejections[k];
        if (s->count < 0 || (s->count == 0) != (s->iteration == 0) || s->iteration < 0 ||
            s->iteration > r->iterations) {
            return tpBroken(why, cap, "bench run %s: %lld rejections of kind %d, the first at iteration %lld",
                            r->domain, (long long)s->count, k, (long long)s->iteration);
        }
        if (!terminated(s->first, sizeof s->first)) {
            return tpBroken(why, cap, "bench run %s: rejection %d's description not terminated", r->domain, k);
        }
        sum += s->count;
    }
    if (sum != r->rejected) {
        return tpBroken(why, cap, "bench run %s: %lld rejected, the reasons add up to %lld", r->domain,
                        (long long)r->rejected, (long long)sum);
    }
    return true;
}

bool tpBenchRuns_Valid(const tpBenchRuns *runs, char *why, size_t cap)
{
    if (runs->n > runs->cap || (runs->cap > 0 && !runs->v)) {
        return tpBroken(why, cap, "bench runs: %zu in room for %zu", runs->n, runs->cap);
    }
    for (size_t i = 0; i < runs->n; ++i) {
        if (!tpBenchRun_Valid(&runs->v[i], why, cap)) {
            return false;
        }
    }
    return true;
}
