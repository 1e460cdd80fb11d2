/* tplan bench --plot: the paper's Fig. 13 for this machine — BK-RRT's cumulative time breakdown
 * (node selection, tactics and skills, physics, other) against the tree size, sampled through
 * the planner's progress callback during one long run, plotted with gnuplot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "tp/base.h"
#include "tp/util.h"

#define SAMPLE_INTERVAL 0.02 /* s between samples of the breakdown */

typedef struct Fig13 {
    tpBenchSample *v;
    size_t n, cap;
    bool oom;
    bool tty;
    const char *label;
} Fig13;

static void add_sample(Fig13 *f, const tpPlanStats *s, double total)
{
    tpBenchSample *p = tpArray_Grow(f->v, &f->cap, f->n + 1, sizeof *p);
    if (!p) {
        f->oom = true;
        return;
    }
    f->v = p;
    f->v[f->n++] = (tpBenchSample){s->nodes, s->iterations, s->t_select, s->t_tactics, s->t_physics, s->t_check, total};
}

static void on_sample(void *user, const tpPlanStats *s)
{
    Fig13 *f = user;
    add_sample(f, s, s->elapsed);
    if (f->tty) {
        fprintf(stderr, "\r\033[K  fig13 %s rrt: %.1f s, %lld iterations, %lld nodes", f->label, s->elapsed,
                (long long)s->iterations, (long long)s->nodes);
        fflush(stderr);
    }
}

/* Selection time per iteration around `nodes`: the slope of the cumulative selection time
 * between the samples that bracket it (s per iteration); NaN if the run never got there. */
static double selection_slope(const Fig13 *f, int64_t nodes, int64_t *at)
{
    for (size_t i = 1; i < f->n; ++i) {
        /* the last sample also counts when within 3 % of the size: a run of N iterations ends a
           little short of N nodes (rejected states add none) */
        if (f->v[i].nodes >= nodes || (i + 1 == f->n && (double)f->v[i].nodes >= 0.97 * (double)nodes)) {
            *at = f->v[i].nodes;
            /* widen the window to at least ~2 % of the iterations for a steadier estimate */
            size_t a = i - 1, b = i;
            while (a > 0 && f->v[b].iterations - f->v[a].iterations < nodes / 50) {
                --a;
            }
            while (b + 1 < f->n && f->v[b].iterations - f->v[a].iterations < nodes / 50) {
                ++b;
            }
            int64_t di = f->v[b].iterations - f->v[a].iterations;
            return di > 0 ? (f->v[b].t_select - f->v[a].t_select) / (double)di : NAN;
        }
    }
    return NAN;
}

static bool gnuplot_available(void)
{
    const char *path = getenv("PATH");
    if (!path) {
        return false;
    }
    char buf[4096];
    const char *p = path;
    while (*p) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)len, len ? p : ".");
        if (access(buf, X_OK) == 0) {
            return true;
        }
        if (!e) {
            break;
        }
        p = e + 1;
    }
    return false;
}

/* Gnuplot string literal: single quotes, with any single quote doubled. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; ++s) {
        if (*s == '\'') {
            fputc('\'', f);
        }
        fputc(*s, f);
    }
    fputc('\'', f);
}

static bool run_gnuplot(const char *dat, const char *png, const char *label, bool index)
{
    FILE *g = popen("gnuplot", "w");
    if (!g) {
        return false;
    }
    fputs("set terminal pngcairo size 1000,620 noenhanced\nset output ", g);
    put_quoted(g, png);
    fputs("\nset title ", g);
    char title[512];
    snprintf(title, sizeof title, "BK-RRT breakdown vs tree size: %s, NN %s", label, index ? "index" : "linear scan");
    put_quoted(g, title);
    fputs("\nset xlabel 'tree size (nodes)'\nset ylabel 'share of the accumulated planning time (%)'\n"
          "set yrange [0:100]\nset key outside bottom center horizontal\nset grid\n"
          "set y2label 'accumulated time (s)'\nset y2tics\nset ytics nomirror\nplot ",
          g);
    const char *cols[][2] = {{"7", "node selection"}, {"8", "tactics and skills"}, {"9", "physics"}, {"10", "other"}};
    for (int c = 0; c < 4; ++c) {
        put_quoted(g, dat);
        fprintf(g, " using 1:%s with lines lw 2 title '%s', ", cols[c][0], cols[c][1]);
    }
    put_quoted(g, dat);
    fputs(" using 1:6 axes x1y2 with lines dt 2 lc rgb 'black' title 'total time (s)'\n", g);
    int st = pclose(g);
    return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int tpBench_Fig13(const char *path, const char *label, const tpScriptParam *params, int nparams,
                  const tpCliPlanOpts *opts, int64_t iters, const char *png, bool tty)
{
    Fig13 f = {NULL, 0, 0, false, tty, label};
    tpCliPlanOpts o = *opts;
    o.run.planner = TPLAN_PLANNER_RRT;
    o.run.max_iters = iters;
    /* Keep growing the tree after goals are found (many-worlds with an unreachable K), so the
     * breakdown covers tree sizes up to `iters` nodes. */
    o.run.solutions = TP_RUN_MAX_SOLUTIONS;
    const tpCliProgress progress = {on_sample, &f, SAMPLE_INTERVAL};
    tpCliRun run;
    char err[2048] = "";
    printf("fig13: BK-RRT on %s, seed %lld, up to %lld iterations (the run continues past solutions)\n", label,
           (long long)opts->run.seed, (long long)iters);
    fflush(stdout);
    int rc = tpCli_PlanRun(path, params, nparams, &o, &progress, &run, err, sizeof err);
    if (tty) {
        fprintf(stderr, "\r\033[K");
    }
    if (rc != TP_EXIT_OK) {
        printf("fig13: error: %s\n", err);
        tpCli_PlanRunFree(&run);
        free(f.v);
        return rc;
    }
    add_sample(&f, &run.res.stats, run.res.stats.t_total);
    const bool index = run.pd.nn_index && tpPlanner_IndexBytes(run.planner) > 0;
    tpCli_PlanRunFree(&run);
    if (f.oom) {
        tpLog(TP_LOG_ERROR, "fig13: out of memory");
        free(f.v);
        return TP_EXIT_FAILURE;
    }

    char dat[4096];
    snprintf(dat, sizeof dat, "%s.dat", png);
    tpFileOut dout;
    FILE *d = tpFile_OpenOut(&dout, dat, "w", NULL, 0);
    bool ok = d != NULL;
    if (ok) {
        fprintf(d,
                "# tplan bench fig13: BK-RRT on %s (nearest neighbour: %s); cumulative times in s, shares in %%\n"
                "# nodes iterations select_s tactics_s physics_s total_s select_pct tactics_pct physics_pct "
                "other_pct\n",
                label, index ? "spatial index" : "linear scan");
        for (size_t i = 0; i < f.n; ++i) {
            const tpBenchSample *s = &f.v[i];
            double tot = s->t_total > 0 ? s->t_total : 1e-12;
            double other = s->t_total - s->t_select - s->t_tactics - s->t_physics;
            fprintf(d, "%lld %lld %.6f %.6f %.6f %.6f %.3f %.3f %.3f %.3f\n", (long long)s->nodes,
                    (long long)s->iterations, s->t_select, s->t_tactics, s->t_physics, s->t_total,
                    100 * s->t_select / tot, 100 * s->t_tactics / tot, 100 * s->t_physics / tot,
                    100 * (other > 0 ? other : 0) / tot);
        }
        ok = tpFile_CommitOut(&dout, NULL, 0);
    }
    if (!ok) {
        tpLog(TP_LOG_ERROR, "fig13: cannot write %s", dat);
        free(f.v);
        return TP_EXIT_FAILURE;
    }
    const tpBenchSample *last = &f.v[f.n - 1];
    printf("fig13: %lld nodes in %.2f s (selection %.1f %%), %zu samples in %s\n", (long long)last->nodes,
           last->t_total, 100 * last->t_select / (last->t_total > 0 ? last->t_total : 1e-12), f.n, dat);
    const int64_t sizes[3] = {10000, 50000, 100000};
    for (int k = 0; k < 3; ++k) {
        int64_t at = 0;
        double sl = selection_slope(&f, sizes[k], &at);
        if (isnan(sl)) {
            printf("fig13: selection per iteration at %6lld nodes: (tree never got that big)\n", (long long)sizes[k]);
        } else {
            printf("fig13: selection per iteration at %6lld nodes: %.2f us (sampled at %lld nodes)\n",
                   (long long)sizes[k], sl * 1e6, (long long)at);
        }
    }
    free(f.v);
    if (!gnuplot_available()) {
        printf("fig13: gnuplot is not installed: no PNG; the data is in %s (install gnuplot-nox)\n", dat);
        return TP_EXIT_OK;
    }
    /* gnuplot writes a temporary file beside the PNG, renamed into place once gnuplot succeeded */
    tpFileOut pout;
    FILE *p = tpFile_OpenOut(&pout, png, "wb", NULL, 0);
    if (p) {
        fclose(pout.f);
        pout.f = NULL;
    }
    if (!p || !run_gnuplot(dat, pout.tmp ? pout.tmp : png, label, index) || !tpFile_CommitOut(&pout, NULL, 0)) {
        if (p) {
            tpFile_AbortOut(&pout);
        }
        tpLog(TP_LOG_ERROR, "fig13: gnuplot failed to write %s", png);
        return TP_EXIT_FAILURE;
    }
    printf("wrote %s\n", png);
    return TP_EXIT_OK;
}
