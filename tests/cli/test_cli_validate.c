/* The command line's invariants (cli/cli_validate.c): the parsed options of plan, bench, export
 * and replay, an OR-parallel summary and decision, the --preview and --view states and the bench's
 * run records, each as the code leaves it, pass; each rule, broken once on purpose (then restored),
 * fails with its own message -- so a rule that can never fail would show here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "break_rule.h"
#include "cli_validate.h"

static char g_set1[] = "w", g_set1v[] = "3", g_set2[] = "speed", g_set2v[] = "1.5";

/* Two --set options and the planner options' defaults. */
static void fill_params(tpCliParams *p)
{
    memset(p, 0, sizeof *p);
    p->n = 2;
    p->items[0] = (tpScriptParam){g_set1, g_set1v};
    p->items[1] = (tpScriptParam){g_set2, g_set2v};
}

static void test_params_and_opts(void **state)
{
    (void)state;
    tpCliParams p;
    fill_params(&p);
    EXPECT_VALID(tpCliParams_Valid, &p);
    assert_true(tpCliParams_Valid(&p, NULL, 0)); /* why may be NULL */
    BREAK_RULE(tpCliParams_Valid, &p, p.n, TP_MAX_PARAMS + 1, "--set: 65 options, at most 64");
    BREAK_RULE(tpCliParams_Valid, &p, p.items[1].name, "", "--set 1: name ''");
    BREAK_RULE(tpCliParams_Valid, &p, p.items[1].name, "w", "--set w: given twice (0 and 1)");

    tpCliPlanOpts o;
    tpCli_PlanOptsInit(&o);
    EXPECT_VALID(tpCliPlanOpts_Valid, &o);
    BREAK_RULE(tpCliPlanOpts_Valid, &o, o.run.size, 8, "run definition: size 8");
    BREAK_RULE(tpCliPlanOpts_Valid, &o, o.run.max_iters, -5, "run definition: ");
    BREAK_RULE(tpCliPlanOpts_Valid, &o, o.source_len, 12, "script text: 12 bytes of no text");
    BREAK_RULE(tpCliPlanOpts_Valid, &o, o.noutputs, 2, "outputs: 2 files in no list");
    BREAK_RULE(tpCliPlanOpts_Valid, &o, o.iteration_bound_user, (void *)&o, "iteration bound: a user pointer");
}

static void test_plan_cmd(void **state)
{
    (void)state;
    tpCliPlanCmd p;
    memset(&p, 0, sizeof p);
    p.jobs = 1;
    tpCli_PlanOptsInit(&p.o);
    fill_params(&p.params);
    p.domain_arg = "minigolf";
    p.preview = "preview.json";
    EXPECT_VALID(tpCliPlanCmd_Valid, &p);
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.domain_arg, NULL, "plan: no domain");
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.jobs, 257, "plan: --jobs 257 not in 1..256");
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.view_quit, -1, "plan: --view-quit-after -1");
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.hard_deadline, NAN, "plan: --hard-deadline nan s");
    p.no_out = true;
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.out, "x.plan.json", "plan: --no-out, yet an output 'x.plan.json'");
    p.no_out = false;
    p.preview = NULL;
    p.mpi = true;
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.jobs, 4, "plan: --mpi with --jobs 4");
    p.preview = "preview.json";
    EXPECT_BROKEN(tpCliPlanCmd_Valid, &p, "plan: --preview with --mpi");
    p.mpi = false;
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.jobs, 2, "plan: --preview with --jobs");
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.refine.where, "solved",
               "plan: --world, --until or --where without --from-plan");
    p.preview = NULL;
    p.refine.plan_path = "old.plan.json";
    p.until_set = true;
    p.refine.until = 2.5;
    EXPECT_VALID(tpCliPlanCmd_Valid, &p);
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.until_set, false, "plan: --from-plan without --until");
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.state_path, "s.json", "plan: --from-plan with --state, --jobs or --mpi");
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.refine.until, -1, "plan: --world 0, --until -1 s");
    /* the parts: --set and the planner options */
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.params.n, -1, "--set: -1 options");
    BREAK_RULE(tpCliPlanCmd_Valid, &p, p.o.source_len, 3, "script text: 3 bytes");
}

static char g_set_q[] = "pool:w=3";

static void fill_bench(tpCliBenchCmd *b)
{
    memset(b, 0, sizeof *b);
    snprintf(b->domains_buf, sizeof b->domains_buf, "minigolf,pool");
    snprintf(b->planners_buf, sizeof b->planners_buf, "rrt,bgt");
    b->domains_buf[8] = b->planners_buf[3] = '\0'; /* as strtok leaves them */
    b->domains[0] = b->domains_buf, b->domains[1] = b->domains_buf + 9;
    b->planners[0] = b->planners_buf, b->planners[1] = b->planners_buf + 4;
    b->ndomains = b->nplanners = 2;
    b->kinds[0] = TP_PLANNER_RRT, b->kinds[1] = TP_PLANNER_BGT;
    b->seeds = 20;
    b->jobs = 1;
    b->first_seed = 1;
    b->sets[0] = g_set_q;
    b->nsets = 1;
    b->out = "runs.csv";
    tpCli_PlanOptsInit(&b->o);
}

static void test_bench_cmd(void **state)
{
    (void)state;
    tpCliBenchCmd b;
    fill_bench(&b);
    EXPECT_VALID(tpCliBenchCmd_Valid, &b);
    BREAK_TERMINATION(tpCliBenchCmd_Valid, &b, b.planners_buf, "bench: --domains or --planners not terminated");
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.seeds, 0, "bench: --seeds 0 not in 1..100000");
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.jobs, 300, "bench: --jobs 300 not in 1..256");
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.plot_iters, -2, "bench: --plot-iters -2");
    b.mpi = true;
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.jobs, 2, "bench: --mpi with --jobs 2");
    b.mpi = false;
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.nsets, 65, "bench: 65 --set options, at most 64");
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.sets[0], "pool:=3", "bench: --set 0 is not [domain:]name=value");
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.ndomains, 0, "bench: --domains has 0 entries, 1..16");
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.planners[1], "bgt", "bench: --planners entry 1 is not a word of its list");
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.kinds[1], TP_PLANNER_RRT, "bench: planner 1 'bgt' has kind 1");
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.first_seed, 4294967290u, "bench: seeds 4294967290..4294967309 past 32 bits");
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.out, "runs.txt", "bench: --out 'runs.txt' is neither .json nor .csv");
    BREAK_RULE(tpCliBenchCmd_Valid, &b, b.o.noutputs, -1, "outputs: -1 files");
}

static void test_export_and_replay(void **state)
{
    (void)state;
    tpCliExportCmd e;
    memset(&e, 0, sizeof e);
    e.def = tpDefaultExportDef();
    e.plan = "p.plan.json";
    e.out = "p.glb";
    e.tree_path = "p.tree";
    EXPECT_VALID(tpCliExportCmd_Valid, &e);
    BREAK_RULE(tpCliExportCmd_Valid, &e, e.out, NULL, "export: no -o OUT");
    BREAK_RULE(tpCliExportCmd_Valid, &e, e.def.format, (tpExportFormat)7, "export: format 7");
    BREAK_RULE(tpCliExportCmd_Valid, &e, e.def.tolerance, -0.5, "export: --tolerance -0.5 m");
    BREAK_RULE(tpCliExportCmd_Valid, &e, e.def.world, -1, "export: world -1 (--world 0)");
    BREAK_RULE(tpCliExportCmd_Valid, &e, e.def.format, TP_EXPORT_CSV, "export: a glTF option with --format csv");

    tpCliReplayCmd r;
    memset(&r, 0, sizeof r);
    r.plan_path = "p.plan.json";
    r.tolerance = -1;
    EXPECT_VALID(tpCliReplayCmd_Valid, &r);
    BREAK_RULE(tpCliReplayCmd_Valid, &r, r.plan_path, NULL, "replay: no plan");
    BREAK_RULE(tpCliReplayCmd_Valid, &r, r.tolerance, 2000, "replay: --tolerance 2000 m");
    BREAK_RULE(tpCliReplayCmd_Valid, &r, r.hard_deadline, -3, "replay: --hard-deadline -3 s");
    BREAK_RULE(tpCliReplayCmd_Valid, &r, r.call_time_limit, INFINITY,
               "replay: --load-time-limit 0 s, --call-time-limit inf s");
}

/* Worker k of three: K = 2; worker 0 found 2 solutions (iterations 10, 40), worker 1 one (at 25),
 * worker 2 none (approximate: its fallback's figures). B = 40 (worker 0's second). */
typedef struct Par {
    tpParSummary w[3];
    int64_t it0[2], it1[1], it2[1];
    double c0[2], c1[1], c2[1];
    int64_t *iters[3];
    double *costs[3];
    tpParOutcome o;
} Par;

static void fill_par(Par *p)
{
    memset(p, 0, sizeof *p);
    for (int k = 0; k < 3; ++k) {
        tpParSummary *s = &p->w[k];
        s->rc = TP_EXIT_OK;
        s->status = k < 2 ? TP_PLAN_SOLVED : TP_PLAN_APPROXIMATE;
        s->seed = 1u + (uint32_t)k * 0x9E3779B9u; /* tpPar_Seed(1, k) */
        s->nsolutions = k == 0 ? 2 : k == 1 ? 1 : 0;
        s->requested = 2;
        s->stats.nodes = 100 + k;
        s->stats.iterations = 50;
        s->memory_bytes = 4096;
        s->state_bytes = 208;
        s->action_dim = 3;
        s->by_rest = 1;
    }
    p->w[2].quality = 0.75;
    p->w[2].unrest = 0.25;
    p->it0[0] = 10, p->it0[1] = 40, p->it1[0] = 25;
    p->c0[0] = 3, p->c0[1] = 1, p->c1[0] = 2;
    p->iters[0] = p->it0, p->iters[1] = p->it1, p->iters[2] = p->it2;
    p->costs[0] = p->c0, p->costs[1] = p->c1, p->costs[2] = p->c2;
    p->o.workers = p->w;
    p->o.iters = p->iters;
    p->o.costs = p->costs;
    p->o.nworkers = 3;
    p->o.owner = 0;
    p->o.stats_worker = 0;
    p->o.bound = 40;
    p->o.pooled = 2;
}

static void test_par(void **state)
{
    (void)state;
    Par *p = malloc(sizeof *p);
    assert_non_null(p);
    fill_par(p);
    tpParSummary *s = &p->w[2];
    EXPECT_VALID(tpParSummary_Valid, s);
    BREAK_RULE(tpParSummary_Valid, s, s->rc, 9, "summary: exit code 9");
    BREAK_TERMINATION(tpParSummary_Valid, s, s->err, "summary: message not terminated");
    BREAK_RULE(tpParSummary_Valid, s, s->requested, 0, "summary: 0 solutions of 0 asked for");
    BREAK_RULE(tpParSummary_Valid, s, s->by_rest, 2, "summary: by_rest 2");
    BREAK_RULE(tpParSummary_Valid, s, s->status, 2, "summary: status 2 of a run that planned");
    BREAK_RULE(tpParSummary_Valid, s, s->status, TP_PLAN_SOLVED, "summary: solved with 0 solutions");
    BREAK_RULE(tpParSummary_Valid, s, s->unrest, -1, "summary: unrest -1");
    BREAK_RULE(tpParSummary_Valid, s, s->stats.nodes, 0, "summary: 0 nodes, 50 iterations");
    s = &p->w[0];
    BREAK_RULE(tpParSummary_Valid, s, s->quality, 0.5, "summary: solved, yet a fallback's quality 0.5");
    s->rc = TP_EXIT_BAD_INPUT; /* a failed run: its message only */
    s->status = 77;
    EXPECT_VALID(tpParSummary_Valid, s);
    s->rc = TP_EXIT_OK;
    s->status = TP_PLAN_SOLVED;

    tpParOutcome *o = &p->o;
    EXPECT_VALID(tpParOutcome_Valid, o);
    BREAK_RULE(tpParOutcome_Valid, o, o->nworkers, 0, "outcome: 0 workers");
    BREAK_RULE(tpParOutcome_Valid, o, p->w[1].rc, -1, "summary: exit code -1");
    BREAK_RULE(tpParOutcome_Valid, o, p->w[1].requested, 1, "outcome: worker 1 asked for 1 solutions, worker 0 for 2");
    BREAK_RULE(tpParOutcome_Valid, o, p->it0[1], 5, "outcome: worker 0's solution 1 at iteration 5, before 10");
    BREAK_RULE(tpParOutcome_Valid, o, o->stats_worker, 3, "outcome: owner 0, statistics of worker 3, of 3");
    BREAK_RULE(tpParOutcome_Valid, o, o->bound, 25, "outcome: B = 25 is not worker 0's K-th solution");
    BREAK_RULE(tpParOutcome_Valid, o, o->pooled, 1, "outcome: 1 solutions pooled, 3 within B for K = 2");
    /* nobody reached K: B unbounded, every solution pooled up to K, worker 2 the fallback's owner */
    p->w[0].nsolutions = 1;
    o->bound = INT64_MAX;
    o->owner = o->stats_worker = 2;
    EXPECT_VALID(tpParOutcome_Valid, o);
    free(p);
}

static void test_preview(void **state)
{
    (void)state;
    tpCliRun run;
    memset(&run, 0, sizeof run);
    tpCliPreview pv = {.run = &run, .path = "preview.json", .best = -1, .written = -1, .best_quality = NAN};
    EXPECT_VALID(tpCliPreview_Valid, &pv); /* before the first progress call */
    pv.scanned = 12;
    pv.best = 7, pv.best_quality = 0.5, pv.best_unrest = 0.1, pv.best_key = 0.5;
    pv.written = 3, pv.count = 2, pv.next_write = 4.25;
    EXPECT_VALID(tpCliPreview_Valid, &pv);
    BREAK_RULE(tpCliPreview_Valid, &pv, pv.path, NULL, "preview: no file");
    BREAK_RULE(tpCliPreview_Valid, &pv, pv.best, 12, "preview: best node 12 of 12 scanned");
    BREAK_RULE(tpCliPreview_Valid, &pv, pv.written, 20, "preview: node 20 written of 12 scanned");
    BREAK_RULE(tpCliPreview_Valid, &pv, pv.count, 0, "preview: 0 files written, the last of node 3");
    BREAK_RULE(tpCliPreview_Valid, &pv, pv.best_unrest, INFINITY, "preview: best node 7 with unrest inf");
    BREAK_RULE(tpCliPreview_Valid, &pv, pv.next_write, NAN, "preview: next write at nan s");
    pv.best = -1, pv.written = -1, pv.count = 0, pv.best_quality = NAN;
    EXPECT_VALID(tpCliPreview_Valid, &pv);
    BREAK_RULE(tpCliPreview_Valid, &pv, pv.best_quality, 0.5, "preview: no best node, yet a quality");
}

static void test_live(void **state)
{
    (void)state;
    static int32_t parent[4] = {-1, 0, 0, 2};
    static uint8_t flags[4];
    static float pos[4 * 2 * 3];
    static int bodies[2] = {1, 3};
    static char n1[] = "ball", n3[] = "crate";
    static char *names[2] = {n1, n3};
    tpCliLive live;
    memset(&live, 0, sizeof live);
    EXPECT_VALID(tpCliLive_Valid, &live); /* nothing copied yet */
    live.tr =
        (tpTreeRecord){.nbodies = 2, .body_names = names, .nnodes = 3, .parent = parent, .flags = flags, .pos = pos};
    live.bodies = bodies;
    live.cap = 4;
    snprintf(live.status, sizeof live.status, "planning: 0.1 s");
    EXPECT_VALID(tpCliLive_Valid, &live);
    BREAK_TERMINATION(tpCliLive_Valid, &live, live.status, "live: status line not terminated");
    BREAK_RULE(tpCliLive_Valid, &live, live.tr.nnodes, 5, "live: 5 nodes in room for 4");
    BREAK_RULE(tpCliLive_Valid, &live, live.tr.flags, NULL, "live: room for 4 nodes without its arrays");
    BREAK_RULE(tpCliLive_Valid, &live, live.bodies, NULL, "live: 2 bodies recorded");
    BREAK_RULE(tpCliLive_Valid, &live, bodies[1], 1, "live: recorded body 1 is world body 1");
    BREAK_RULE(tpCliLive_Valid, &live, parent[2], 2, "live: node 2 has parent 2");
}

static void fill_run(tpBenchRun *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->domain, sizeof r->domain, "minigolf");
    r->kind = TP_PLANNER_RRT;
    r->seed = 3;
    r->solved = true;
    r->time = 1.5, r->t_first = 0.75;
    r->nodes = 400, r->iterations = 300, r->nodes_first = 250, r->steps = 12;
    r->tree_bytes = 65536, r->maxrss_kb = 20000;
    r->t_select = 0.1, r->t_tactics = 0.4, r->t_physics = 0.8, r->t_check = 0.05, r->t_search = 0.2, r->t_copy = 0.01;
    r->rejections[TP_REJECT_OUT_OF_RANGE] = (tpRejectStat){.count = 4, .iteration = 17, .first = "ball: too fast"};
    r->rejected = 4;
}

static void test_bench_runs(void **state)
{
    (void)state;
    tpBenchRun v[2];
    fill_run(&v[0]);
    fill_run(&v[1]);
    tpBenchRun *r = &v[1];
    r->seed = 4, r->solved = false, r->t_first = INFINITY, r->nodes_first = -1;
    EXPECT_VALID(tpBenchRun_Valid, r);
    r = &v[0];
    EXPECT_VALID(tpBenchRun_Valid, r);
    BREAK_TERMINATION(tpBenchRun_Valid, r, r->domain, "bench run: no domain label");
    BREAK_RULE(tpBenchRun_Valid, r, r->kind, (tpPlannerKind)5, "bench run minigolf: planner kind 5");
    BREAK_RULE(tpBenchRun_Valid, r, r->steps, 400, "bench run minigolf: 400 nodes, 300 iterations, 400 steps");
    BREAK_RULE(tpBenchRun_Valid, r, r->nodes_first, -1, "bench run minigolf: solved, first solution at -1 nodes");
    BREAK_RULE(tpBenchRun_Valid, r, r->maxrss_kb, -7, "bench run minigolf: tree 65536 bytes, peak -7 kB");
    BREAK_RULE(tpBenchRun_Valid, r, r->t_physics, NAN, "bench run minigolf: time 3 of the breakdown is nan s");
    BREAK_RULE(tpBenchRun_Valid, r, r->rejections[TP_REJECT_OUT_OF_RANGE].iteration, 0,
               "bench run minigolf: 4 rejections of kind 2, the first at iteration 0");
    BREAK_TERMINATION(tpBenchRun_Valid, r, r->rejections[0].first, "rejection 0's description not terminated");
    BREAK_RULE(tpBenchRun_Valid, r, r->rejected, 5, "bench run minigolf: 5 rejected, the reasons add up to 4");

    tpBenchRuns runs = {v, 2, 2};
    EXPECT_VALID(tpBenchRuns_Valid, &runs);
    BREAK_RULE(tpBenchRuns_Valid, &runs, runs.n, 3, "bench runs: 3 in room for 2");
    BREAK_RULE(tpBenchRuns_Valid, &runs, v[1].t_first, 0.5, "bench run minigolf: unsolved, first solution at -1 nodes");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_and_opts),
        cmocka_unit_test(test_plan_cmd),
        cmocka_unit_test(test_bench_cmd),
        cmocka_unit_test(test_export_and_replay),
        cmocka_unit_test(test_par),
        cmocka_unit_test(test_preview),
        cmocka_unit_test(test_live),
        cmocka_unit_test(test_bench_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
