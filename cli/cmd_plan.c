/* tplan plan: run BK-RRT or BK-BGT on a domain script and write the plan file. */
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_validate.h"
#include "cmd_opts.h"
#include "par.h"
#include "tp/base.h"

static void plan_usage(FILE *f)
{
    fprintf(f, "usage: tplan plan DOMAIN [options]\n"
               "\n"
               "Plans the domain script DOMAIN (a path, or a built-in name: see 'tplan domains').\n"
               "Defaults for every planner option come from the script's `planner` table.\n"
               "\n");
    tpCli_FieldHelp(f); /* the run definition's fields (tp/run_fields.h) */
    fprintf(f, "  --jobs N            N independent searches in N worker processes (1..256; default 1),\n"
               "                      worker k seeded (seed + k * 0x9E3779B9) mod 2^32; the answer does\n"
               "                      not depend on timing: the solution found in the fewest iterations,\n"
               "                      ties to the lowest worker; with --solutions K the best K of the\n"
               "                      workers' solutions by (cost, iterations, worker); --jobs 1 is the\n"
               "                      run without --jobs; --tree/--view re-run the selected worker's\n"
               "                      search (docs/parallel.md)\n"
               "  --mpi               the same search with one worker per MPI rank, tplan-mpi only (mpirun\n"
               "                      -np R tplan-mpi plan ... --mpi): the same plan as --jobs R; rank 0\n"
               "                      writes the files\n"
               "  --hard-deadline S   stop the command S s after it started, whatever it is doing (exit 4;\n"
               "                      default: none; a script still running 10 s + 10 %% past one of its\n"
               "                      time limits is stopped so in any case)\n"
               "  --set NAME=VALUE    override a script parameter read with tp.param (repeatable)\n"
               "  --state FILE        plan from this state (a state file: 'tplan state', docs/embedding.md)\n"
               "                      instead of the domain's initial state; the plan records it\n"
               "  --from-plan PLAN    refine: keep world --world K (default 0) of PLAN up to --until T s and\n"
               "                      plan the rest again from there; the plan is the two spliced\n"
               "  --world K, --until T, --where QUERY   with --from-plan: the world, the time, and an extra\n"
               "                      goal (a 'tplan worlds' query) the selected solution must satisfy\n"
               "  -o, --out FILE      plan file to write (default: <domain name>.plan.json)\n"
               "  --no-out            do not write a plan file\n"
               "  --tree FILE         also write the search tree (docs/tree-format.md)\n"
               "  --preview FILE      while planning, write the best world so far to FILE whenever it\n"
               "                      changes (docs/cli.md; the Blender add-on shows it)\n"
               "  --view              watch the tree grow in a window, then play the plan (close to exit)\n"
               "  --view-quit-after N with --view: close the playback after N frames (scripted runs)\n"
               "  -q, --quiet         print nothing but warnings and errors\n"
               "  -h, --help          this help\n"
               "\n"
               "exit status: 0 solved, 3 approximate (no solution; the best node by the domain's quality\n"
               "metric is written), 2 bad input, 1 internal failure, 4 stopped at the hard deadline.\n");
}

#define TP_PROGRESS_LINE_EVERY 5.0 /* s: a progress line when stderr is no terminal (a log) */

typedef struct ProgressState {
    bool tty;              /* stderr is a terminal: one line rewritten in place */
    bool log;              /* stderr is a file or a pipe (not -q): a line every TP_PROGRESS_LINE_EVERY s */
    bool shown;            /* the in-place line was drawn (a newline ends it) */
    double every;          /* s between logged lines (TPLAN_PROGRESS_EVERY, default TP_PROGRESS_LINE_EVERY) */
    double next_log;       /* s of planning of the next logged line */
    tpCliLive *live;       /* --view, else NULL */
    tpCliPreview *preview; /* --preview, else NULL */
} ProgressState;

static void on_progress(void *user, const tpPlanStats *s)
{
    ProgressState *ps = user;
    if (ps->live) {
        tpCliLive_Progress(ps->live, s);
    }
    if (ps->preview) {
        tpCliPreview_Progress(ps->preview, s, false);
    }
    if (ps->log && s->elapsed >= ps->next_log) { /* so a log shows where a long run went */
        ps->next_log = (floor(s->elapsed / ps->every) + 1.0) * ps->every;
        fprintf(stderr, "planning: %.1f s, %lld iterations, %lld nodes, %d solutions\n", s->elapsed,
                (long long)s->iterations, (long long)s->nodes, s->solutions);
        fflush(stderr);
    }
    if (!ps->tty || s->elapsed < 1.0) {
        return;
    }
    fprintf(stderr, "\r  planning: %6.1f s  %10lld iterations  %9lld nodes  %d solutions ", s->elapsed,
            (long long)s->iterations, (long long)s->nodes, s->solutions);
    fflush(stderr);
    ps->shown = true;
}

/* The control the plan used: totals, then each controlled body (at most 8 named; more:
 * the one with the most impulse). */
static void print_control(const tpPlanRecord *rec, const tpPlanWorld *w)
{
    tpPlanControl total, *per = calloc((size_t)rec->nbodies + 1, sizeof *per);
    if (!per) {
        return;
    }
    tpPlanWorld_Control(rec, w, per, &total);
    int ncontrolled = 0, most = -1;
    for (int i = 0; i < rec->nbodies; ++i) {
        if (rec->bodies[i].controlled) {
            ncontrolled++;
            most = (most < 0 || per[i].impulse > per[most].impulse) ? i : most;
        }
    }
    if (ncontrolled > 0) {
        printf("control    %.4g N s impulse, %.4g N m s angular, %.4g J work, forces during %.3g s (%d of %d steps)\n",
               total.impulse, total.angular_impulse, total.work, total.time, total.steps, w->nsteps);
        printf("           ");
        for (int i = 0, n = 0; i < rec->nbodies; ++i) {
            if (!rec->bodies[i].controlled || (ncontrolled > 8 && i != most)) {
                continue;
            }
            printf("%s%s %.3g N s %.3g J %d step%s", n++ ? ", " : (ncontrolled > 8 ? "most: " : ""),
                   rec->bodies[i].name, per[i].impulse, per[i].work, per[i].steps, per[i].steps == 1 ? "" : "s");
        }
        printf("\n");
    }
    free(per);
}

/* What chose an approximate answer (docs/lua-api.md#fallbacks): by_rest, the fallback judged at rest,
 * with the chosen node's exact unrest (0: at rest and landed); else by quality alone. */
typedef struct {
    bool by_rest;
    double unrest;
} FallbackSeen;

static void print_summary(const char *path, const tpPlannerDef *pd, const tpPlanResult *res, const tpPlanRecord *rec,
                          FallbackSeen fb, size_t state_bytes, int action_dim, const char *out)
{
    const tpPlanStats *s = &res->stats;
    const tpPlanWorld *w = &rec->worlds[rec->selected];
    printf("domain     %s (%s)\n", rec->domain_name, path);
    printf("planner    %s", pd->kind == TP_PLANNER_RRT ? "BK-RRT" : "BK-BGT");
    if (pd->kind == TP_PLANNER_BGT) {
        printf("  mu=%g", pd->mu);
    }
    printf("  seed=%u  max-iters=%lld", pd->seed, (long long)pd->max_iters);
    if (pd->time_limit > 0) {
        printf("  time-limit=%gs", pd->time_limit);
    }
    if (pd->solutions > 1) {
        printf("  solutions=%d", pd->solutions);
    }
    printf("\n");
    if (res->status == TP_PLAN_SOLVED) {
        printf("status     solved (%d solution%s%s)\n", res->nsolutions, res->nsolutions == 1 ? "" : "s",
               res->nsolutions > 1 ? ", best selected" : "");
    } else {
        if (!fb.by_rest) {
            printf("status     approximate: no solution within the limits; best node by quality %.6g\n", w->cost);
        } else {
            printf("status     approximate: no solution within the limits; %s (fallback by rest), quality %.6g\n",
                   fb.unrest == 0.0 ? "the best node at rest and landed" : "the closest to rest found", w->cost);
        }
        if (rec->goal_unmet) { /* the best node's false part of the goal (a sequence: the step it waits for) */
            printf("goal       not reached: %s\n", rec->goal_unmet);
        }
    }
    if (s->memory_limited) {
        printf("stopped    at the search's memory bound: %.1f MB (--search-memory, or out of memory)\n",
               (double)s->mem_bytes / 1048576.0);
    }
    printf("plan       %d steps (%.2f s of motion), cost %.6g\n", w->nsteps, w->nsteps * rec->dt, w->cost);
    print_control(rec, w);
    printf("search     %lld iterations, %lld nodes, %lld rejected (invalid), %.1f MB tree\n", (long long)s->iterations,
           (long long)s->nodes, (long long)s->rejected, rec->memory_bytes / 1048576.0);
    if (s->dead_ends > 0) {
        printf("dead ends  %lld nodes retired: each made %d invalid states in a row (%s)\n", (long long)s->dead_ends,
               pd->dead_end,
               pd->kind == TP_PLANNER_RRT ? "BK-RRT: a node of the same distance wins over them"
                                          : "BK-BGT stops selecting them");
    }
    tpCli_PrintRejections(stdout, s->reject);
    struct rusage ru;
    double peak_mb = getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss / 1024.0 : 0.0; /* Linux: KiB */
    if (getrusage(RUSAGE_CHILDREN, &ru) == 0 && (double)ru.ru_maxrss / 1024.0 > peak_mb) {
        peak_mb = (double)ru.ru_maxrss / 1024.0; /* --jobs: the largest worker */
    }
    printf("memory     %.1f KB per node (state %zu B + action %zu B), peak resident %.1f MB\n",
           s->nodes > 0 ? (double)rec->memory_bytes / (double)s->nodes / 1024.0 : 0.0, state_bytes,
           (size_t)action_dim * sizeof(double), peak_mb);
    if (rec->nreports > 0) {
        printf("report    ");
        for (int i = 0; i < rec->nreports; ++i) {
            printf("%s %s %.6g", i ? "," : "", rec->report_names[i], rec->report_values[i]);
        }
        printf("\n");
    }
    double tot = s->t_total > 0 ? s->t_total : 1e-12;
    double other = s->t_total - s->t_physics - s->t_tactics - s->t_copy - s->t_select - s->t_check;
    printf("time       %.3f s: physics %.1f %%, tactics/skills %.1f %%, state copy %.1f %%, selection %.1f %%, "
           "checks %.1f %%, other %.1f %%\n",
           s->t_total, 100 * s->t_physics / tot, 100 * s->t_tactics / tot, 100 * s->t_copy / tot,
           100 * s->t_select / tot, 100 * s->t_check / tot, 100 * (other > 0 ? other : 0) / tot);
    if (s->t_search > 0) { /* the navigation skills' own planners, inside tactics/skills */
        printf("           of which the skills' navigation searches %.1f %% (physics %.1f %% of the rest)\n",
               100 * s->t_search / tot,
               s->t_total - s->t_search > 0 ? 100 * s->t_physics / (s->t_total - s->t_search) : 0.0);
    }
    if (s->solutions > 1 && s->nodes_first > 0) {
        printf("first      solution after %.3f s, %lld nodes (then %d more for the selection)\n", s->t_first,
               (long long)s->nodes_first, s->solutions - 1);
    }
    if (out) {
        printf("wrote      %s\n", out);
    }
}

/* The outputs of a command (what plan_parallel needs of tpCmd_Plan's options). */
typedef struct PlanOutputs {
    const char *out, *tree_out;
    bool no_out, quiet, view;
    long long view_quit;
} PlanOutputs;

/* The plan file's default name, DOMAIN.plan.json, into buf (cap bytes), and the files of the run
   checked with it (tpCli_CheckFiles, which logs what is wrong): false if one cannot be used. */
static bool default_plan_out(const tpPlanRecord *rec, const char *path, const char *tree_out, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s.plan.json", rec->domain_name);
    const tpCliFile files[] = {
        {"the domain script", path, false}, {"--tree", tree_out, true}, {"the plan file", buf, true}};
    return tpCli_CheckFiles(files, 3);
}

/* Writes the plan file; false (logged) if it could not be written. */
static bool write_plan(const tpPlanRecord *rec, const char *out)
{
    char err[2048] = "";
    if (!tpPlanRecord_Write(rec, out, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "cannot write plan: %s", err);
        return false;
    }
    return true;
}

/* --jobs N > 1 or --mpi: the OR-parallel search (par.h), then the same outputs as one run. With
 * --tree or --view the winning worker's search runs again here (same seed, stopped at B: the same
 * tree, deterministic) since the workers' trees stay in their processes. */
static int plan_parallel(const char *path, const tpCliParams *params, const tpCliPlanOpts *o, int jobs, bool mpi,
                         PlanOutputs po)
{
    tpParTask task = {path, params->items, params->n, o, jobs};
    tpParOutcome oc;
    memset(&oc, 0, sizeof oc);
    char err[2048] = "";
    int code;
    if (mpi) {
        int rank = 0, size = 1;
        if (!tpMpi_Init(&rank, &size)) {
            return TP_EXIT_BAD_INPUT;
        }
        task.nworkers = size;
        code = tpMpi_Plan(&task, &oc, err, sizeof err);
        if (rank != 0) {
            code = tpMpi_Broadcast(code); /* every rank exits as rank 0 does */
            tpPar_OutcomeFree(&oc);
            tpMpi_Finalize();
            return code;
        }
    } else {
        code = tpPar_PlanFork(&task, &oc, err, sizeof err);
    }
    tpPlanRecord *rec = &oc.rec;
    const char *out = po.no_out ? NULL : po.out, *tree_out = po.tree_out;
    char default_out[512];
    if (code != TP_EXIT_OK) {
        tpCli_PrintError(err);
    } else if (!out && !po.no_out) {
        out = default_out;
        if (!default_plan_out(rec, path, tree_out, default_out, sizeof default_out)) {
            code = TP_EXIT_BAD_INPUT;
        }
    }
    if (code == TP_EXIT_OK && out && !write_plan(rec, out)) {
        code = TP_EXIT_FAILURE;
    }
    const tpParSummary *win = code == TP_EXIT_OK ? &oc.workers[oc.owner] : NULL;
    if (code == TP_EXIT_OK && (tree_out || po.view)) {
        tpCliRun run;
        tpCliLive live;
        memset(&live, 0, sizeof live);
        ProgressState ps = {.live = po.view ? &live : NULL}; /* the rerun of the winner: no progress lines */
        if (po.view) {
            live.run = &run;
            live.domain_file = path;
            live.def = tpDefaultViewerDef();
            live.def.quit_after = (int)po.view_quit;
        }
        const tpCliProgress progress = {on_progress, &ps, 0.05};
        int rc = tpPar_RerunSelected(&task, &oc, po.view ? &progress : NULL, &run, err, sizeof err);
        if (rc != TP_EXIT_OK) {
            tpCli_PrintError(err);
            code = rc;
        } else {
            if (tree_out && !tpCli_WriteTree(run.domain, tpPlanner_Tree(run.planner), &run.res, tree_out)) {
                code = TP_EXIT_FAILURE;
            }
            if (po.view) {
                tpCliLive_Finish(&live, rec, tpPlanner_Tree(run.planner), &run.res);
            }
        }
        tpCliLive_Free(&live);
        tpCli_PlanRunFree(&run);
    }
    if (win && !po.quiet) {
        const tpParSummary *sw = &oc.workers[oc.stats_worker];
        tpPlannerDef pd = tpDefaultPlannerDef();
        pd.kind = strcmp(rec->planner, "rrt") == 0 ? TP_PLANNER_RRT : TP_PLANNER_BGT;
        pd.mu = rec->mu;
        pd.seed = oc.workers[0].seed;
        pd.max_iters = rec->max_iters;
        pd.time_limit = rec->time_limit;
        pd.solutions = rec->solutions_requested;
        tpPlanResult res;
        memset(&res, 0, sizeof res);
        res.status = strcmp(rec->status, "solved") == 0 ? TP_PLAN_SOLVED : TP_PLAN_APPROXIMATE;
        res.nsolutions = rec->nsolutions;
        res.stats = sw->stats;
        const FallbackSeen fb = {win->by_rest != 0, win->unrest};
        print_summary(o->name ? o->name : path, &pd, &res, rec, fb, (size_t)win->state_bytes, win->action_dim,
                      code == TP_EXIT_OK ? out : NULL);
        printf("workers    %d %s; ", oc.nworkers, mpi ? "MPI ranks" : "processes");
        if (oc.bound < INT64_MAX) {
            printf("B = %lld iterations to %d solution%s; ", (long long)oc.bound, pd.solutions,
                   pd.solutions == 1 ? "" : "s");
        } else {
            printf("no worker reached %d solution%s; ", pd.solutions, pd.solutions == 1 ? "" : "s");
        }
        printf("selected: worker %d (seed %u)\n", oc.owner, win->seed);
        for (int k = 0; k < oc.nworkers; ++k) {
            const tpParSummary *w = &oc.workers[k];
            printf("  worker %-3d seed %-10u %10lld iterations %9lld nodes %4d solution%s", k, w->seed,
                   (long long)w->stats.iterations, (long long)w->stats.nodes, w->nsolutions,
                   w->nsolutions == 1 ? " " : "s");
            if (w->nsolutions > 0) {
                printf("  first at iteration %lld", (long long)oc.iters[k][0]);
            }
            printf("%s\n", k == oc.owner ? "  <- selected" : "");
        }
    }
    if (code == TP_EXIT_OK && strcmp(rec->status, "solved") != 0) {
        code = TP_EXIT_APPROXIMATE;
    }
    tpPar_OutcomeFree(&oc);
    if (mpi) {
        code = tpMpi_Broadcast(code);
        tpMpi_Finalize();
    }
    return code;
}

/* Parses the options into p: -1 to go on, else the exit code (--help, a bad option). */
static int plan_parse(int argc, char **argv, tpCliPlanCmd *p)
{
    memset(p, 0, sizeof *p);
    p->jobs = 1;
    tpCli_PlanOptsInit(&p->o);
    enum {
        OPT_SET = TP_OPT_FIRST_FREE,
        OPT_NO_OUT,
        OPT_TREE,
        OPT_VIEW,
        OPT_VIEW_QUIT,
        OPT_JOBS,
        OPT_MPI,
        OPT_STATE,
        OPT_FROM_PLAN,
        OPT_WORLD,
        OPT_UNTIL,
        OPT_WHERE,
        OPT_PREVIEW
    };
    static const struct option own[] = {
        {"set", required_argument, NULL, OPT_SET},
        {"state", required_argument, NULL, OPT_STATE},
        {"from-plan", required_argument, NULL, OPT_FROM_PLAN},
        {"world", required_argument, NULL, OPT_WORLD},
        {"until", required_argument, NULL, OPT_UNTIL},
        {"where", required_argument, NULL, OPT_WHERE},
        {"out", required_argument, NULL, 'o'},
        {"no-out", no_argument, NULL, OPT_NO_OUT},
        {"tree", required_argument, NULL, OPT_TREE},
        {"preview", required_argument, NULL, OPT_PREVIEW},
        {"view", no_argument, NULL, OPT_VIEW},
        {"view-quit-after", required_argument, NULL, OPT_VIEW_QUIT},
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"mpi", no_argument, NULL, OPT_MPI},
        {"hard-deadline", required_argument, NULL, TP_OPT_HARD_DEADLINE},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct option longopts[64];
    tpCli_FieldOptions(own, longopts, 64);
    tpCliArgs args = {.argc = argc, .argv = argv, .cmd = "plan", .shortopts = "hqo:", .longopts = longopts};
    int c;
    while ((c = tpCli_NextOption(&args)) != -1) {
        const char *v = args.value;
        int po = tpCli_PlannerOption(&p->o, c, v);
        if (po < 0) {
            return TP_EXIT_BAD_INPUT;
        } else if (po > 0) {
            continue;
        }
        switch (c) {
        case 'h':
            plan_usage(stdout);
            return TP_EXIT_OK;
        case 'q':
            p->quiet = true;
            break;
        case 'o':
            p->out = v;
            break;
        case OPT_NO_OUT:
            p->no_out = true;
            break;
        case OPT_VIEW:
            if (!TP_HAVE_VIEWER) { /* plan_view.c has no window to open */
                tpLog(TP_LOG_ERROR, "plan --view: this tplan was built without the viewer (TP_VIEWER=OFF)");
                return TP_EXIT_BAD_INPUT;
            }
            p->view = true;
            break;
        case OPT_SET:
            if (!tpCli_AddParam(&p->params, (char *)v)) { /* v points into argv */
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case OPT_TREE:
            p->tree_out = v;
            break;
        case OPT_PREVIEW:
            p->preview = v;
            break;
        case OPT_STATE:
            p->state_path = v;
            break;
        case OPT_FROM_PLAN:
            p->refine.plan_path = v;
            break;
        case OPT_WORLD:
            if (!tpCli_ParseInt("--world", v, 0, 1000000000, &p->refine.world)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case OPT_UNTIL:
            if (!tpCli_ParseDouble("--until", v, 0, false, TP_PLAN_MAX_START_TIME, &p->refine.until)) {
                return TP_EXIT_BAD_INPUT;
            }
            p->until_set = true;
            break;
        case OPT_WHERE:
            p->refine.where = v;
            break;
        case OPT_JOBS:
            if (!tpCli_ParseInt("--jobs", v, 1, TP_PAR_MAX_WORKERS, &p->jobs)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case OPT_MPI:
            p->mpi = true;
            break;
        case TP_OPT_HARD_DEADLINE:
            if (!tpCli_ParseDouble("--hard-deadline", v, 0, false, INFINITY, &p->hard_deadline)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case OPT_VIEW_QUIT:
            if (!tpCli_ParseInt("--view-quit-after", v, 1, 1000000000, &p->view_quit)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case 1:
            if (!tpCli_OneArgument(v, &p->domain_arg)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        default: /* '?': reported */
            return TP_EXIT_BAD_INPUT;
        }
    }
    if (!p->domain_arg) {
        plan_usage(stderr);
        return TP_EXIT_BAD_INPUT;
    }
    if (p->mpi && p->jobs > 1) {
        tpLog(TP_LOG_ERROR, "--mpi and --jobs: the number of workers is the number of MPI ranks (mpirun -np R)");
        return TP_EXIT_BAD_INPUT;
    }
    if (p->preview && (p->jobs > 1 || p->mpi)) {
        tpLog(TP_LOG_ERROR, "--preview cannot go with --jobs or --mpi (one search writes it)");
        return TP_EXIT_BAD_INPUT;
    }
    if (p->no_out) {
        p->out = NULL;
    }
    if (!p->refine.plan_path && (p->until_set || p->refine.where || p->refine.world)) {
        tpLog(TP_LOG_ERROR, "--world, --until and --where refine a plan: they need --from-plan PLAN");
        return TP_EXIT_BAD_INPUT;
    }
    if (p->refine.plan_path && (!p->until_set || p->state_path || p->jobs > 1 || p->mpi)) {
        tpLog(TP_LOG_ERROR, !p->until_set ? "--from-plan PLAN needs --until T (the time up to which the world is kept)"
                                          : "--from-plan cannot go with --state, --jobs or --mpi");
        return TP_EXIT_BAD_INPUT;
    }
    return -1;
}

/* Writes what a finished run produced -- the plan file (by default DOMAIN.plan.json), the tree
   file -- and prints the summary. The exit code. */
static int plan_report(tpCliPlanCmd *p, const char *path, tpCliRun *run, const tpPlanRecord *rec)
{
    int code = TP_EXIT_OK;
    char default_out[512];
    const char *out = p->out, *tree_out = p->tree_out;
    if (!out && !p->no_out) {
        out = default_out;
        if (!default_plan_out(rec, path, tree_out, default_out, sizeof default_out)) {
            code = TP_EXIT_BAD_INPUT;
            out = NULL;
            tree_out = NULL;
        }
    }
    if (out && !write_plan(rec, out)) {
        code = TP_EXIT_FAILURE;
    }
    if (code == TP_EXIT_OK && tree_out &&
        !tpCli_WriteTree(run->domain, tpPlanner_Tree(run->planner), &run->res, tree_out)) {
        code = TP_EXIT_FAILURE;
    }
    if (!p->quiet) {
        const tpProblem problem = tpDomain_Problem(run->domain);
        FallbackSeen fb = {problem.unrest != NULL, 0.0};
        if (fb.by_rest && run->res.status == TP_PLAN_APPROXIMATE) {
            fb.unrest = tpCli_BestUnrest(run);
        }
        print_summary(p->o.name ? p->o.name : path, &run->pd, &run->res, rec, fb, problem.state_bytes,
                      problem.action_dim, code == TP_EXIT_OK ? out : NULL);
    }
    if (code == TP_EXIT_OK && run->status == TP_PLAN_APPROXIMATE) {
        code = TP_EXIT_APPROXIMATE;
    }
    return code;
}

static int plan_run(tpCliPlanCmd *p, const char *path);

int tpCmd_Plan(int argc, char **argv)
{
    tpCliPlanCmd p;
    int code = plan_parse(argc, argv, &p);
    if (code >= 0) {
        return code;
    }
    TP_VALIDATE(tpCliPlanCmd_Valid, &p); /* the parse kept its rules (cli_validate.c) */
    if (p.quiet) {
        tpLog_SetLevel(TP_LOG_WARN); /* warnings are not chatter: a script must learn its robot cannot move */
    }
    p.o.warn = true;
    char path[4096];
    if (!tpCli_ResolveDomain(p.domain_arg, path, sizeof path)) {
        char q[512];
        tpLog(TP_LOG_ERROR, "no such domain '%s' (not a file, and not a built-in: see 'tplan domains')",
              tpCli_Escape(p.domain_arg, q, sizeof q));
        return TP_EXIT_BAD_INPUT;
    }
    p.o.name = tpCli_DomainName(p.domain_arg, path); /* a built-in is named "maze.lua", not by its install path */
    if (!tpCli_WatchdogStart(p.o.name ? p.o.name : path, p.hard_deadline)) {
        return TP_EXIT_FAILURE;
    }
    /* before planning: an output must not replace the script, nor another output (nor, once the
       script has run, a file it read: tpCli_PlanRun) */
    const tpCliFile files[] = {{"the domain script", path, false},
                               {"--out", p.out, true},
                               {"--tree", p.tree_out, true},
                               {"--preview", p.preview, true}};
    if (!tpCli_CheckFiles(files, 4)) {
        return TP_EXIT_BAD_INPUT;
    }
    p.o.outputs = files + 1;
    p.o.noutputs = 3;
    if (p.state_path) { /* read now (its syntax); checked against the domain once the script is loaded */
        if (!(p.state = tpCli_ReadState(p.state_path))) {
            return TP_EXIT_BAD_INPUT;
        }
        p.o.run.start = p.state;
    }
    if (p.refine.plan_path) { /* the state at --until of the chosen world */
        if (!tpCli_RefineStart(&p.refine, path, &p.state)) {
            tpCli_RefineFree(&p.refine);
            return TP_EXIT_BAD_INPUT;
        }
        p.o.run.start = p.state;
    }
    code = plan_run(&p, path);
    tplan_state_free(p.state);
    tpCli_RefineFree(&p.refine);
    return code;
}

/* Plans (one run, or OR-parallel ones) and reports. The exit code. */
static int plan_run(tpCliPlanCmd *p0, const char *path)
{
    tpCliPlanCmd p = *p0;
    int code;
    if (p.jobs > 1 || p.mpi) {
        PlanOutputs po = {p.out, p.tree_out, p.no_out, p.quiet, p.view, p.view_quit};
        return plan_parallel(path, &p.params, &p.o, (int)p.jobs, p.mpi, po);
    }
    char err[2048] = "";
    tpCliRun run;
    tpCliLive live;
    memset(&live, 0, sizeof live);
    tpCliPreview preview = {.run = &run, .path = p.preview, .best = -1, .written = -1, .best_quality = NAN};
    bool tty = isatty(2);
    ProgressState ps = {.tty = !p.quiet && tty,
                        .log = !p.quiet && !tty,
                        .every = TP_PROGRESS_LINE_EVERY,
                        .live = p.view ? &live : NULL,
                        .preview = p.preview ? &preview : NULL};
    const char *every = getenv("TPLAN_PROGRESS_EVERY"); /* s between logged lines (docs/cli.md) */
    if (every && *every) {
        char *end;
        double v = strtod(every, &end);
        ps.every = *end == '\0' && v >= 0.1 && v <= 3600.0 ? v : ps.every;
    }
    ps.next_log = ps.every;
    if (p.view) {
        live.run = &run; /* bound before planning: the live view never sees a half-set run */
        live.domain_file = path;
        live.def = tpDefaultViewerDef();
        live.def.quit_after = (int)p.view_quit;
    }
    /* with --view, poll the window often; redraws are rate-limited (plan_view.c) */
    const tpCliProgress progress = {on_progress, &ps, p.view ? 0.05 : 0.25};
    code = tpCli_PlanRun(path, p.params.items, p.params.n, &p.o, &progress, &run, err, sizeof err);
    if (ps.shown) {
        fprintf(stderr, "\n");
    }
    if (code == TP_EXIT_OK && p.preview) { /* the last preview: the run's whole tree looked at */
        tpCliPreview_Progress(&preview, &run.res.stats, true);
    }
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    if (code != TP_EXIT_OK) {
        if (p.state_path && strncmp(err, "state: ", 7) == 0) { /* a state that does not fit the domain */
            char q[512];
            tpLog(TP_LOG_ERROR, "%s: %s", tpCli_Escape(p.state_path, q, sizeof q), err + 7);
        } else if (run.script && !run.planner) {
            char shown[sizeof err + 256];
            tpLog(TP_LOG_ERROR, "%s", tpCli_FlagWords(err, shown, sizeof shown)); /* an invalid planner definition */
        } else {
            tpCli_PrintError(err); /* script errors name file:line themselves */
        }
    } else if (!tpCli_RecordRun(&run, path, &rec, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "%s", err);
        code = TP_EXIT_FAILURE;
    } else if (p.refine.plan_path && (code = tpCli_RefineFinish(&p.refine, &rec, err, sizeof err)) != TP_EXIT_OK &&
               code != TP_EXIT_APPROXIMATE) {
        tpLog(TP_LOG_ERROR, "--from-plan: %s", err);
    } else {
        int refined = code;
        code = plan_report(&p, path, &run, &rec);
        code = code == TP_EXIT_OK ? refined : code;
        if (p.preview && !p.quiet) {
            printf("preview    %d written to %s (the last: %d steps%s)\n", preview.count, p.preview,
                   preview.written >= 0 ? tpTree_Node(tpPlanner_Tree(run.planner), preview.written)->depth : 0,
                   preview.best_goal ? ", a solution" : "");
        }
        if (p.view) {
            tpCliLive_Finish(&live, &rec, tpPlanner_Tree(run.planner), &run.res);
        }
    }
    tpPlanRecord_Free(&rec);
    tpCliLive_Free(&live);
    tpCli_PlanRunFree(&run);
    return code;
}
