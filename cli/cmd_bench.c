/* tplan bench: every domain x planner over N seeds, a Table 1 style summary next to the paper's
 * numbers (Zickler & Veloso 2009, Sec. 6.5), the Fig. 13 time breakdown, raw per-run records as
 * JSON or CSV, and optionally the Fig. 13 plot (bench_plot.c). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench.h"
#include "cli_validate.h"
#include "cmd_opts.h"
#include "par.h"
#include "tp/base.h"
#include "tp/util.h"
#include "tp/json_text.h"

#define DEFAULT_DOMAINS                                                                                                \
    "minigolf,minigolf_random,soccer,pool,dice,catapult,pool_kick,pool_bank,pile,tower,curling,rube_goldberg,parking"

/* "  --mu M, --time-limit S, ...   as in 'tplan plan'": the planner options of the table (tp/run_fields.h)
   but those bench has its own way (--planners, --seed and --max-iters above). */
static void bench_field_list(FILE *f)
{
    int col = fprintf(f, " ");
    for (int i = 0; i < tpRun_FieldCount; ++i) {
        const tpRunField *r = &tpRun_Fields[i];
        if (!(r->who & TP_RUNF_CLI) || !r->flag || r->type == TP_RUNF_PLANNER || strcmp(r->name, "seed") == 0 ||
            strcmp(r->name, "max_iters") == 0) {
            continue;
        }
        if (col > 70) {
            col = fprintf(f, ",\n                     ") - 2;
        } else if (col > 1) {
            col += fprintf(f, ",");
        }
        col += fprintf(f, " %s%s%s", r->flag, r->arg ? " " : "", r->arg ? r->arg : "");
    }
    fprintf(f, "   as in 'tplan plan'\n");
}

static void bench_usage(FILE *f)
{
    fprintf(f, "usage: tplan bench [options]\n"
               "\n"
               "Runs every domain with every planner over N seeds (1..N), each run on a freshly loaded\n"
               "script with the script's planner defaults overridden by the options (as 'tplan plan'),\n"
               "and prints per row: success rate, median and 90th-percentile planning time, median\n"
               "nodes, the Fig. 13 breakdown (selection / tactics+skills / physics / other as shares of\n"
               "the total) and the paper's Table 1 time and nodes.\n"
               "\n"
               "  --domains LIST      comma-separated names or paths (default " DEFAULT_DOMAINS ");\n"
               "                      minigolf_random is the ablation: minigolf with the random tactic\n"
               "  --planners LIST     rrt,bgt (default both)\n"
               "  --seeds N           seeds 1..N per row (default 20)\n"
               "  --seed S            first seed (default 1)\n"
               "  --max-iters N       maximum planner iterations per run (default: the script's)\n");
    bench_field_list(f);
    fprintf(f, "  --set [DOMAIN:]NAME=VALUE   script parameter, for every domain or only DOMAIN\n"
               "  --out FILE          raw per-run records, FILE.json or FILE.csv\n"
               "  --plot FILE.png     Fig. 13: BK-RRT breakdown against tree size (data in FILE.png.dat;\n"
               "                      needs gnuplot for the PNG)\n"
               "  --plot-domain D     domain of the plot run (default: the first domain found)\n"
               "  --plot-iters N      iterations of the plot run (default: --max-iters or 100000)\n"
               "  --jobs N            run each row's seeds in N worker processes (1..256; default 1): the\n"
               "                      same records in the same order, timing and peak memory aside\n"
               "  --mpi               spread each row's seeds over the MPI ranks (mpirun -np R tplan bench\n"
               "                      ... --mpi; rank r: seeds r, r + R, ...); rank 0 prints and writes the\n"
               "                      records, the same as a sequential run's (docs/parallel.md)\n"
               "  -q, --quiet         no progress line (warnings and errors still print)\n"
               "  -h, --help          this help\n"
               "\n"
               "exit status: 0 every row ran, 3 some domain was not found or failed (the others ran and\n"
               "the files were written), 2 bad options, 1 cannot write an output file or plot, 4 a\n"
               "domain's script ran 10 s + 10 %% past one of its time limits (the hard deadline).\n");
}

/* Table 1 of the paper (Pentium 4): average time (s) and nodes; NaN / -1 = not reported. */
typedef struct PaperRow {
    const char *domain;
    double time[2]; /* [BGT, RRT] */
    long nodes[2];
} PaperRow;

static const PaperRow kPaper[] = {
    {"soccer", {11.1, 9.6}, {11088, 9752}},
    {"minigolf", {2.5, 5.3}, {8094, 13042}},
    {"pool", {0.4, 2.7}, {191, 451}},
    {"dice", {204.0, NAN}, {-1, -1}}, /* BK-BGT only, with a preset tree size */
};

static bool push_run(tpBenchRuns *r, const tpBenchRun *run)
{
    tpBenchRun *p = tpArray_Grow(r->v, &r->cap, r->n + 1, sizeof *p);
    if (!p) {
        return false;
    }
    TP_VALIDATE(tpBenchRun_Valid, run);
    r->v = p;
    r->v[r->n++] = *run;
    return true;
}

/* BK-RRT needs a sampling space Y; domains without one (dice) are BK-BGT only. A script that
 * fails to load answers true: the run itself then reports the error. */
static bool has_sampling_space(const tpCliPlanOpts *o, const char *path, const tpScriptParam *params, int nparams)
{
    char err[1024];
    tpScriptDef def = tpCli_ScriptDef(o, path, params, nparams);
    tpScript *s = tpCreateScript(&def, err, sizeof err);
    if (s == NULL) {
        return true;
    }
    bool has = tpDomain_Problem(tpScript_Domain(s)).key_dim > 0;
    tpDestroyScript(s);
    return has;
}

static const char *kind_name(tpPlannerKind k)
{
    return k == TP_PLANNER_RRT ? "rrt" : "bgt";
}

static int split_list(char *s, char **items, int cap, const char *what)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (*tok == '\0') {
            continue;
        }
        if (n == cap) {
            tpLog(TP_LOG_ERROR, "%s: at most %d entries", what, cap);
            return -1;
        }
        items[n++] = tok;
    }
    if (n == 0) {
        tpLog(TP_LOG_ERROR, "%s: empty list", what);
    }
    return n;
}

/* Domain label of an argument: "minigolf" for "minigolf" and for "dir/minigolf.lua". */
static void domain_label(const char *arg, char *out, size_t cap)
{
    const char *b = strrchr(arg, '/');
    b = b ? b + 1 : arg;
    snprintf(out, cap, "%s", b);
    size_t len = strlen(out);
    if (len > 4 && strcmp(out + len - 4, ".lua") == 0) {
        out[len - 4] = '\0';
    }
}

static const PaperRow *paper_row(const char *label)
{
    for (size_t i = 0; i < sizeof kPaper / sizeof kPaper[0]; ++i) {
        if (strcmp(kPaper[i].domain, label) == 0) {
            return &kPaper[i];
        }
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* Percentile by the nearest-rank method on a sorted array (p in (0, 100]). */
static double percentile(const double *sorted, size_t n, double p)
{
    if (n == 0) {
        return NAN;
    }
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    rank = rank < 1 ? 1 : rank > n ? n : rank;
    return sorted[rank - 1];
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    if (n == 0) {
        return NAN;
    }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void print_header(void)
{
    printf("%-18s %-6s %4s %7s %8s %8s %8s %8s | %6s %7s %7s %6s | %9s %7s\n", "domain", "plan.", "runs", "solved",
           "t_first", "t_med", "t_p90", "nodes", "select", "tactics", "physics", "other", "paper t", "nodes");
}

/* Prints the summary row of runs[first..n) (one domain x planner). */
static void print_row(const char *label, tpPlannerKind kind, const tpBenchRun *runs, size_t count)
{
    double *t = malloc((count ? count : 1) * sizeof *t);
    double *nd = malloc((count ? count : 1) * sizeof *nd);
    double *tf = malloc((count ? count : 1) * sizeof *tf);
    if (!t || !nd || !tf) {
        free(t);
        free(nd);
        free(tf);
        printf("%-18s %-6s (out of memory)\n", label, kind_name(kind));
        return;
    }
    size_t solved = 0;
    double sel = 0, tac = 0, phy = 0, tot = 0;
    for (size_t i = 0; i < count; ++i) {
        t[i] = runs[i].time;
        tf[i] = runs[i].t_first;
        nd[i] = (double)runs[i].nodes;
        solved += runs[i].solved;
        sel += runs[i].t_select;
        tac += runs[i].t_tactics;
        phy += runs[i].t_physics;
        tot += runs[i].time;
    }
    double tmed = median(t, count);
    double tp90 = percentile(t, count, 90.0);
    double tfmed = median(tf, count); /* unsolved runs count as infinitely slow */
    char tfs[32] = "-";
    if (isfinite(tfmed)) {
        snprintf(tfs, sizeof tfs, "%.3fs", tfmed);
    }
    double nmed = median(nd, count);
    double other = tot - sel - tac - phy;
    tot = tot > 0 ? tot : 1e-12;
    const PaperRow *pr = paper_row(label);
    int k = kind == TP_PLANNER_RRT ? 1 : 0;
    char pt[32] = "-", pn[32] = "-";
    if (pr && !isnan(pr->time[k])) {
        snprintf(pt, sizeof pt, "%.1fs", pr->time[k]);
    }
    if (pr && pr->nodes[k] >= 0) {
        snprintf(pn, sizeof pn, "%ld", pr->nodes[k]);
    } else if (pr && !isnan(pr->time[k])) {
        snprintf(pn, sizeof pn, "preset");
    }
    printf("%-18s %-6s %4zu %6.1f%% %8s %7.3fs %7.3fs %8.0f | %5.1f%% %6.1f%% %6.1f%% %5.1f%% | %9s %7s\n", label,
           kind == TP_PLANNER_RRT ? "BK-RRT" : "BK-BGT", count, count ? 100.0 * (double)solved / (double)count : 0.0,
           tfs, tmed, tp90, nmed, 100 * sel / tot, 100 * tac / tot, 100 * phy / tot,
           100 * (other > 0 ? other : 0) / tot, pt, pn);
    fflush(stdout);
    free(t);
    free(nd);
    free(tf);
}

typedef struct Progress {
    bool tty;
    const char *label;
    tpPlannerKind kind;
    uint32_t run, runs;
} Progress;

static void on_progress(void *user, const tpPlanStats *s)
{
    const Progress *p = user;
    if (!p->tty) {
        return;
    }
    fprintf(stderr, "\r\033[K  %s %s run %u/%u: %.1f s, %lld iterations, %lld nodes", p->label, kind_name(p->kind),
            p->run, p->runs, s->elapsed, (long long)s->iterations, (long long)s->nodes);
    fflush(stderr);
}

static void clear_progress(const Progress *p)
{
    if (p->tty) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Output files                                                                                */

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static bool write_json(const char *path, const tpBenchRuns *runs, int seeds, const tpCliPlanOpts *o)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *arr = cJSON_CreateArray();
    bool ok = root && arr;
    if (ok) {
        cJSON_AddStringToObject(root, "tplan_bench", "1");
        cJSON_AddNumberToObject(root, "seeds", seeds);
        if (o->run.max_iters > 0) {
            cJSON_AddNumberToObject(root, "max_iters", (double)o->run.max_iters);
        }
        cJSON_AddBoolToObject(root, "nn_index", o->run.nn_index != 0);
        tpJson_Put(root, "runs", arr);
    } else {
        cJSON_Delete(arr);
    }
    for (size_t i = 0; ok && i < runs->n; ++i) {
        const tpBenchRun *r = &runs->v[i];
        cJSON *j = cJSON_CreateObject();
        cJSON *b = cJSON_CreateObject();
        if (!j || !b) {
            cJSON_Delete(j);
            cJSON_Delete(b);
            ok = false;
            break;
        }
        cJSON_AddStringToObject(j, "domain", r->domain);
        cJSON_AddStringToObject(j, "planner", kind_name(r->kind));
        cJSON_AddNumberToObject(j, "seed", r->seed);
        cJSON_AddBoolToObject(j, "solved", r->solved);
        cJSON_AddNumberToObject(j, "time", r->time);
        if (r->solved) {
            cJSON_AddNumberToObject(j, "time_first", r->t_first);
            cJSON_AddNumberToObject(j, "nodes_first", (double)r->nodes_first);
        } else {
            cJSON_AddNullToObject(j, "time_first");
            cJSON_AddNullToObject(j, "nodes_first");
        }
        cJSON_AddNumberToObject(j, "nodes", (double)r->nodes);
        cJSON_AddNumberToObject(j, "iterations", (double)r->iterations);
        cJSON_AddNumberToObject(j, "rejected", (double)r->rejected);
        cJSON *rj = tpCli_RejectionsJson(r->rejections);
        if (!rj) {
            cJSON_Delete(j);
            cJSON_Delete(b);
            ok = false;
            break;
        }
        tpJson_Put(j, "rejections", rj);
        cJSON_AddNumberToObject(j, "solution_steps", r->steps);
        cJSON_AddNumberToObject(j, "tree_bytes", (double)r->tree_bytes);
        cJSON_AddNumberToObject(j, "maxrss_kb", (double)r->maxrss_kb);
        cJSON_AddNumberToObject(b, "select", r->t_select);
        cJSON_AddNumberToObject(b, "tactics", r->t_tactics);
        cJSON_AddNumberToObject(b, "search", r->t_search);
        cJSON_AddNumberToObject(b, "copy", r->t_copy);
        cJSON_AddNumberToObject(b, "physics", r->t_physics);
        cJSON_AddNumberToObject(b, "check", r->t_check);
        double other = r->time - r->t_select - r->t_copy - r->t_tactics - r->t_physics - r->t_check;
        cJSON_AddNumberToObject(b, "other", other > 0 ? other : 0);
        tpJson_Put(j, "breakdown", b);
        tpJson_Append(arr, j);
    }
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    tpFileOut fo;
    FILE *f = text ? tpFile_OpenOut(&fo, path, "w", NULL, 0) : NULL;
    if (f) {
        fputs(text, f);
        fputc('\n', f);
        ok = tpFile_CommitOut(&fo, NULL, 0);
    }
    free(text);
    return f && ok;
}

static bool write_csv(const char *path, const tpBenchRuns *runs)
{
    tpFileOut o;
    FILE *f = tpFile_OpenOut(&o, path, "w", NULL, 0);
    if (!f) {
        return false;
    }
    fprintf(f, "domain,planner,seed,solved,time_s,nodes,iterations,solution_steps,tree_bytes,maxrss_kb,"
               "select_s,tactics_s,physics_s,check_s,other_s,first_time_s,first_nodes,search_s,copy_s\n");
    for (size_t i = 0; i < runs->n; ++i) {
        const tpBenchRun *r = &runs->v[i];
        double other = r->time - r->t_select - r->t_copy - r->t_tactics - r->t_physics - r->t_check;
        char first[64] = ","; /* empty fields when unsolved */
        if (r->solved) {
            snprintf(first, sizeof first, "%.6f,%lld", r->t_first, (long long)r->nodes_first);
        }
        fprintf(f, "%s,%s,%u,%d,%.6f,%lld,%lld,%d,%lld,%ld,%.6f,%.6f,%.6f,%.6f,%.6f,%s,%.6f,%.6f\n", r->domain,
                kind_name(r->kind), r->seed, r->solved ? 1 : 0, r->time, (long long)r->nodes, (long long)r->iterations,
                r->steps, (long long)r->tree_bytes, r->maxrss_kb, r->t_select, r->t_tactics, r->t_physics, r->t_check,
                other > 0 ? other : 0, first, r->t_search, r->t_copy);
    }
    return tpFile_CommitOut(&o, NULL, 0);
}

/* ------------------------------------------------------------------------------------------ */

/* Applies [DOMAIN:]NAME=VALUE options to one domain: the unqualified ones and those for label. */
static int params_for(char *const *sets, int nsets, const char *label, tpScriptParam *out, char *storage,
                      size_t storage_cap)
{
    int n = 0;
    size_t used = 0;
    for (int i = 0; i < nsets; ++i) {
        const char *s = sets[i];
        const char *colon = strchr(s, ':');
        const char *eq = strchr(s, '=');
        if (colon && eq && colon < eq) {
            size_t len = (size_t)(colon - s);
            if (strlen(label) != len || strncmp(s, label, len) != 0) {
                continue;
            }
            s = colon + 1;
            eq = strchr(s, '=');
        }
        size_t need = strlen(s) + 1;
        if (used + need > storage_cap) {
            break;
        }
        char *copy = storage + used;
        memcpy(copy, s, need);
        used += need;
        copy[eq - s] = '\0';
        out[n].name = copy;
        out[n].value = copy + (eq - s) + 1;
        ++n;
    }
    return n;
}

/* One run of the benchmark: seed `seed` of (path, kind), into *r. TP_EXIT_OK, or another exit
 * code with the message in err. */
static int bench_one(const char *path, const tpScriptParam *params, int nparams, const tpCliPlanOpts *ro0,
                     const char *label, tpPlannerKind kind, uint32_t seed, const tpCliProgress *progress, tpBenchRun *r,
                     char *err, size_t errlen)
{
    tpCliPlanOpts ro = *ro0;
    ro.run.seed = seed;
    tpCliRun run;
    int rc = tpCli_PlanRun(path, params, nparams, &ro, progress, &run, err, errlen);
    if (rc != TP_EXIT_OK) {
        tpCli_PlanRunFree(&run);
        return rc;
    }
    memset(r, 0, sizeof *r);
    snprintf(r->domain, sizeof r->domain, "%s", label);
    r->kind = kind;
    r->seed = seed;
    r->solved = run.status == TP_PLAN_SOLVED;
    const tpPlanStats *st = &run.res.stats;
    r->time = st->t_total;
    r->t_first = r->solved && st->nodes_first > 0 ? st->t_first : INFINITY;
    r->nodes_first = r->solved ? st->nodes_first : -1;
    r->nodes = st->nodes;
    r->iterations = st->iterations;
    r->rejected = st->rejected;
    memcpy(r->rejections, st->reject, sizeof r->rejections);
    const tpTree *tree = tpPlanner_Tree(run.planner);
    r->steps = run.res.best >= 0 ? tpTree_Node(tree, run.res.best)->depth : -1;
    r->tree_bytes = (int64_t)(tpTree_MemoryBytes(tree) + tpPlanner_IndexBytes(run.planner));
    struct rusage ru;
    r->maxrss_kb = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
    r->t_select = st->t_select;
    r->t_tactics = st->t_tactics;
    r->t_search = st->t_search;
    r->t_copy = st->t_copy;
    r->t_physics = st->t_physics;
    r->t_check = st->t_check;
    tpCli_PlanRunFree(&run);
    return TP_EXIT_OK;
}

/* What a bench worker sends back per seed (a plain struct over a pipe: same binary). */
typedef struct WorkerRecord {
    int64_t index; /* seed - first seed */
    int32_t rc;
    tpBenchRun run;
    char err[512];
} WorkerRecord;

/* Appends the records of one row (indexed by seed - first seed) to runs in seed order; stops at
 * the first failure, as a sequential run does, printing the row's error. */
static bool gather_records(const WorkerRecord *recs, const bool *have, const char *label, tpPlannerKind kind,
                           uint32_t first_seed, long long seeds, tpBenchRuns *runs)
{
    bool ok = true;
    for (long long s = 0; s < seeds && ok; ++s) {
        if (have[s] && recs[s].rc != TP_EXIT_OK) {
            printf("%-18s %-6s error: %s\n", label, kind_name(kind), recs[s].err);
            ok = false;
        } else if (!have[s]) {
            printf("%-18s %-6s error: no record for seed %u\n", label, kind_name(kind), first_seed + (uint32_t)s);
            ok = false;
        } else if (!push_run(runs, &recs[s].run)) {
            tpLog(TP_LOG_ERROR, "out of memory");
            ok = false;
        }
    }
    fflush(stdout);
    return ok;
}

/* The seeds of one row over `jobs` worker processes: worker k runs seeds k, k + jobs, ... (each
 * run loads the script fresh, exactly as a sequential run does, so its record is the same but for
 * timing and peak memory). The records are appended to runs in seed order. False (the row's error
 * printed) when a run failed or a worker died. */
static bool bench_parallel(const char *path, const tpScriptParam *params, int nparams, const tpCliPlanOpts *ro,
                           const char *label, tpPlannerKind kind, uint32_t first_seed, long long seeds, int jobs,
                           tpBenchRuns *runs)
{
    if (jobs > seeds) {
        jobs = (int)seeds;
    }
    WorkerRecord *recs = calloc((size_t)seeds, sizeof *recs);
    bool *have = calloc((size_t)seeds, sizeof *have);
    pid_t pids[TP_BENCH_MAX_JOBS];
    int fds[TP_BENCH_MAX_JOBS];
    int started = 0;
    bool ok = recs && have;
    fflush(stdout);
    fflush(stderr);
    tpCli_WatchdogPause(); /* no second thread at fork (watchdog.c) */
    for (int k = 0; k < jobs && ok; ++k) {
        int pfd[2];
        if (pipe(pfd) != 0) {
            ok = false;
            break;
        }
        const pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0) {
            close(pfd[0]);
            close(pfd[1]);
            ok = false;
            break;
        }
        if (pid == 0) { /* worker */
            /* it dies with the bench (a bench stopped at its hard deadline, or killed, takes its
               workers with it) */
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
                _exit(1);
            }
            tpCli_WatchdogAfterFork();
            close(pfd[0]);
            for (int j = 0; j < started; ++j) {
                close(fds[j]);
            }
            WorkerRecord w;
            for (long long s = k; s < seeds; s += jobs) {
                memset(&w, 0, sizeof w);
                w.index = s;
                w.rc = bench_one(path, params, nparams, ro, label, kind, first_seed + (uint32_t)s, NULL, &w.run, w.err,
                                 sizeof w.err);
                if (!tpFd_WriteAll(pfd[1], &w, sizeof w) || w.rc != TP_EXIT_OK) {
                    break;
                }
            }
            close(pfd[1]);
            _exit(0);
        }
        close(pfd[1]);
        pids[started] = pid;
        fds[started++] = pfd[0];
    }
    tpCli_WatchdogResume();
    for (int k = 0; k < started; ++k) { /* a worker blocked on a full pipe waits for its turn */
        WorkerRecord w;
        while (tpFd_ReadAll(fds[k], &w, sizeof w)) {
            if (w.index >= 0 && w.index < seeds) {
                recs[w.index] = w;
                have[w.index] = true;
            }
        }
        close(fds[k]);
    }
    for (int k = 0; k < started; ++k) {
        int status = 0;
        while (waitpid(pids[k], &status, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("%-18s %-6s error: bench worker %d died (%s %d)\n", label, kind_name(kind), k,
                   WIFSIGNALED(status) ? "signal" : "status",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
            ok = false;
        }
    }
    if (!recs || !have || started < jobs) {
        tpLog(TP_LOG_ERROR, "bench --jobs: cannot start the worker processes");
        ok = false;
    }
    ok = ok && gather_records(recs, have, label, kind, first_seed, seeds, runs);
    free(recs);
    free(have);
    return ok;
}

/* The seeds of one row over the MPI ranks: rank r runs seeds r, r + R, ... and sends each record
 * to rank 0 (all of them, even after a failure, so that no message is left over), which appends
 * them to runs in seed order. True on ranks other than 0. */
static bool bench_mpi(const char *path, const tpScriptParam *params, int nparams, const tpCliPlanOpts *ro,
                      const char *label, tpPlannerKind kind, uint32_t first_seed, long long seeds, int rank, int size,
                      tpBenchRuns *runs)
{
    WorkerRecord *recs = rank == 0 ? calloc((size_t)seeds, sizeof *recs) : malloc(sizeof *recs);
    bool *have = rank == 0 ? calloc((size_t)seeds, sizeof *have) : NULL;
    bool ok = recs && (rank != 0 || have);
    for (long long s = rank; s < seeds; s += size) {
        WorkerRecord *w = rank == 0 ? &recs[s] : recs;
        memset(w, 0, sizeof *w);
        w->index = s;
        w->rc = bench_one(path, params, nparams, ro, label, kind, first_seed + (uint32_t)s, NULL, &w->run, w->err,
                          sizeof w->err);
        if (rank != 0) {
            ok = tpMpi_SendBytes(0, w, sizeof *w) && ok;
        } else {
            have[s] = true;
        }
    }
    for (long long s = 0; rank == 0 && s < seeds; ++s) {
        if (s % size != 0) {
            have[s] = tpMpi_RecvBytes((int)(s % size), &recs[s], sizeof recs[s]) && recs[s].index == s;
        }
    }
    if (!ok) {
        tpLog(TP_LOG_ERROR, "bench --mpi: out of memory or a lost message");
    }
    ok = ok && (rank != 0 || gather_records(recs, have, label, kind, first_seed, seeds, runs));
    free(recs);
    free(have);
    return ok;
}

/* The whole command; *mpi_started is set once MPI runs (tpCmd_Bench then ends it on every rank). */
/* The options of `tplan bench` that are not planner options. */
enum {
    OPT_DOMAINS = TP_OPT_FIRST_FREE,
    OPT_PLANNERS,
    OPT_SEEDS,
    OPT_PLOT_ITERS,
    OPT_SET,
    OPT_PLOT,
    OPT_PLOT_DOMAIN,
    OPT_JOBS,
    OPT_MPI
};

/* Reads one option that is not a planner option into b: 1 taken, or an exit code. */
static int bench_option(tpCliBenchCmd *b, int c, const tpCliArgs *args)
{
    const char *v = args->value;
    char q[512];
    switch (c) {
    case 'h':
        bench_usage(stdout);
        return TP_EXIT_OK;
    case 'q':
        b->quiet = true;
        return 1;
    case OPT_DOMAINS:
    case OPT_PLANNERS: {
        char *dst = c == OPT_DOMAINS ? b->domains_buf : b->planners_buf;
        size_t cap = c == OPT_DOMAINS ? sizeof b->domains_buf : sizeof b->planners_buf;
        if (strlen(v) >= cap) {
            tpLog(TP_LOG_ERROR, "%s: list too long", args->name);
            return TP_EXIT_BAD_INPUT;
        }
        snprintf(dst, cap, "%s", v);
        return 1;
    }
    case OPT_SEEDS:
        return tpCli_ParseInt("--seeds", v, 1, 100000, &b->seeds) ? 1 : TP_EXIT_BAD_INPUT;
    case OPT_JOBS:
        return tpCli_ParseInt("--jobs", v, 1, TP_BENCH_MAX_JOBS, &b->jobs) ? 1 : TP_EXIT_BAD_INPUT;
    case OPT_MPI:
        b->mpi = true;
        return 1;
    case OPT_PLOT_ITERS:
        return tpCli_ParseInt("--plot-iters", v, 1, LLONG_MAX, &b->plot_iters) ? 1 : TP_EXIT_BAD_INPUT;
    case OPT_SET: {
        const char *eq = strchr(v, '=');
        if (!eq || eq == v || eq[-1] == ':') {
            tpLog(TP_LOG_ERROR, "--set expects [domain:]name=value (got '%s')", tpCli_Escape(v, q, sizeof q));
            return TP_EXIT_BAD_INPUT;
        }
        if (b->nsets == TP_MAX_PARAMS) {
            tpLog(TP_LOG_ERROR, "too many --set options (at most %d)", TP_MAX_PARAMS);
            return TP_EXIT_BAD_INPUT;
        }
        b->sets[b->nsets++] = (char *)v; /* points into argv */
        return 1;
    }
    case 'o':
        b->out = v;
        if (!ends_with(v, ".json") && !ends_with(v, ".csv")) {
            tpLog(TP_LOG_ERROR, "--out: the file name must end in .json or .csv (got '%s')",
                  tpCli_Escape(v, q, sizeof q));
            return TP_EXIT_BAD_INPUT;
        }
        return 1;
    case OPT_PLOT:
        b->plot = v;
        return 1;
    case OPT_PLOT_DOMAIN:
        b->plot_domain = v;
        return 1;
    case 1:
        tpLog(TP_LOG_ERROR, "unexpected argument '%s' (see 'tplan bench --help')", tpCli_Escape(v, q, sizeof q));
        return TP_EXIT_BAD_INPUT;
    default:
        return TP_EXIT_BAD_INPUT;
    }
}

/* Parses and checks the command line into b: -1 to go on, else the exit code. */
static int bench_parse(int argc, char **argv, tpCliBenchCmd *b)
{
    memset(b, 0, sizeof *b);
    snprintf(b->domains_buf, sizeof b->domains_buf, "%s", DEFAULT_DOMAINS);
    snprintf(b->planners_buf, sizeof b->planners_buf, "rrt,bgt");
    b->seeds = 20;
    b->jobs = 1;
    tpCli_PlanOptsInit(&b->o);
    static const struct option own[] = {
        {"domains", required_argument, NULL, OPT_DOMAINS},
        {"planners", required_argument, NULL, OPT_PLANNERS},
        {"seeds", required_argument, NULL, OPT_SEEDS},
        {"plot-iters", required_argument, NULL, OPT_PLOT_ITERS},
        {"set", required_argument, NULL, OPT_SET},
        {"out", required_argument, NULL, 'o'},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"plot-domain", required_argument, NULL, OPT_PLOT_DOMAIN},
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"mpi", no_argument, NULL, OPT_MPI},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct option longopts[64];
    tpCli_FieldOptions(own, longopts, 64);
    tpCliArgs args = {.argc = argc, .argv = argv, .cmd = "bench", .shortopts = "hqo:", .longopts = longopts};
    int c;
    while ((c = tpCli_NextOption(&args)) != -1) {
        if (tpCli_FieldOf(c) && tpCli_FieldOf(c)->type == TP_RUNF_PLANNER) {
            tpLog(TP_LOG_ERROR, "--planner: use --planners rrt,bgt with bench");
            return TP_EXIT_BAD_INPUT;
        }
        int po = tpCli_PlannerOption(&b->o, c, args.value);
        if (po < 0) {
            return TP_EXIT_BAD_INPUT;
        }
        int r = po > 0 ? 1 : bench_option(b, c, &args);
        if (r != 1) {
            return r;
        }
    }
    b->ndomains = split_list(b->domains_buf, b->domains, TP_BENCH_MAX_LIST, "--domains");
    b->nplanners = split_list(b->planners_buf, b->planners, TP_BENCH_MAX_LIST, "--planners");
    if (b->ndomains <= 0 || b->nplanners <= 0) {
        return TP_EXIT_BAD_INPUT;
    }
    for (int p = 0; p < b->nplanners; ++p) {
        if (strcmp(b->planners[p], "rrt") == 0) {
            b->kinds[p] = TP_PLANNER_RRT;
        } else if (strcmp(b->planners[p], "bgt") == 0) {
            b->kinds[p] = TP_PLANNER_BGT;
        } else {
            tpLog(TP_LOG_ERROR, "--planners: expected rrt or bgt (got '%s')", b->planners[p]);
            return TP_EXIT_BAD_INPUT;
        }
    }
    b->first_seed = b->o.run.seed >= 0 ? (uint32_t)b->o.run.seed : 1u;
    if ((long long)b->first_seed + b->seeds - 1 > 4294967295LL) {
        tpLog(TP_LOG_ERROR, "--seed + --seeds exceeds the seed range");
        return TP_EXIT_BAD_INPUT;
    }
    /* outputs: each its own file, none of them a domain script */
    char plot_dat[4096] = "";
    if (b->plot) {
        snprintf(plot_dat, sizeof plot_dat, "%s.dat", b->plot);
    }
    tpCliFile files[TP_BENCH_MAX_LIST + 3] = {
        {"--out", b->out, true}, {"--plot", b->plot, true}, {"--plot data", b->plot ? plot_dat : NULL, true}};
    char scripts[TP_BENCH_MAX_LIST][4096];
    int nfiles = 3;
    for (int d = 0; d < b->ndomains; ++d) {
        if (tpCli_ResolveDomain(b->domains[d], scripts[d], sizeof scripts[d])) {
            files[nfiles++] = (tpCliFile){"the domain script", scripts[d], false};
        }
    }
    if (!tpCli_CheckFiles(files, nfiles)) {
        return TP_EXIT_BAD_INPUT;
    }
    if (b->mpi && b->jobs > 1) {
        tpLog(TP_LOG_ERROR, "--mpi and --jobs: the seeds are spread over the MPI ranks (mpirun -np R)");
        return TP_EXIT_BAD_INPUT;
    }
    return -1;
}

/* One row: every seed of (domain path, planner p) into runs, then its summary line. False when
   the row failed (its runs are dropped, reported); -1 in *oom when memory ran out. */
static bool bench_row(const tpCliBenchCmd *b, const tpCliPlanOpts *dom_o, const char *path, const char *label,
                      const tpScriptParam *params, int nparams, int p, int rank, int nranks, Progress *prog,
                      tpBenchRuns *runs, bool *oom)
{
    size_t first = runs->n;
    const tpPlannerKind kind = b->kinds[p];
    tpCliPlanOpts ro = *dom_o;
    ro.run.planner = kind == TP_PLANNER_RRT ? TPLAN_PLANNER_RRT : TPLAN_PLANNER_BGT;
    ro.run.seed = b->first_seed;
    prog->label = label;
    prog->kind = kind;
    prog->runs = (uint32_t)b->seeds;
    const tpCliProgress progress = {on_progress, prog, 0.25};
    bool failed = false;
    if (b->mpi) {
        failed = !bench_mpi(path, params, nparams, &ro, label, kind, b->first_seed, b->seeds, rank, nranks, runs);
    } else if (b->jobs > 1) {
        failed = !bench_parallel(path, params, nparams, &ro, label, kind, b->first_seed, b->seeds, (int)b->jobs, runs);
    } else {
        for (long long s = 0; s < b->seeds && !failed; ++s) {
            prog->run = (uint32_t)s + 1;
            on_progress(prog, &(tpPlanStats){0});
            tpBenchRun r;
            char err[2048] = "";
            if (bench_one(path, params, nparams, &ro, label, kind, b->first_seed + (uint32_t)s, &progress, &r, err,
                          sizeof err) != TP_EXIT_OK) {
                clear_progress(prog);
                printf("%-18s %-6s error: %s\n", label, kind_name(kind), err);
                fflush(stdout);
                failed = true;
            } else if (!push_run(runs, &r)) {
                clear_progress(prog);
                tpLog(TP_LOG_ERROR, "out of memory");
                *oom = true;
                return false;
            }
        }
    }
    clear_progress(prog);
    if (failed) {
        runs->n = first; /* a row with an error is not summarised */
        return false;
    }
    TP_VALIDATE(tpBenchRuns_Valid, runs); /* once a row: the records of every row so far */
    print_row(label, kind, runs->v + first, runs->n - first);
    return true;
}

/* After the rows: the --out file and the --plot figure. The exit code, from the rows' one. */
static int bench_report(const tpCliBenchCmd *b, const tpBenchRuns *runs, const char *plot_path, const char *plot_label,
                        bool tty, int code)
{
    if (b->out) {
        bool ok = ends_with(b->out, ".csv") ? write_csv(b->out, runs) : write_json(b->out, runs, (int)b->seeds, &b->o);
        if (!ok) {
            tpLog(TP_LOG_ERROR, "cannot write %s", b->out);
            code = TP_EXIT_FAILURE;
        } else {
            printf("wrote %s (%zu runs)\n", b->out, runs->n);
        }
    }
    if (!b->plot) {
        return code;
    }
    if (!plot_path) {
        tpLog(TP_LOG_ERROR, "--plot: no domain to plot (%s not among the domains found)",
              b->plot_domain ? b->plot_domain : "none");
        return code == TP_EXIT_FAILURE ? code : TP_EXIT_APPROXIMATE;
    }
    int64_t iters = b->plot_iters > 0 ? b->plot_iters : b->o.run.max_iters > 0 ? b->o.run.max_iters : 100000;
    tpScriptParam params[TP_MAX_PARAMS];
    char storage[8192];
    int nparams = params_for((char **)b->sets, b->nsets, plot_label, params, storage, sizeof storage);
    tpCliPlanOpts po = b->o;
    po.run.seed = b->first_seed;
    int rc = tpBench_Fig13(plot_path, plot_label, params, nparams, &po, iters, b->plot, tty);
    if (rc == TP_EXIT_FAILURE) {
        code = TP_EXIT_FAILURE;
    } else if (rc != TP_EXIT_OK && code == TP_EXIT_OK) {
        code = TP_EXIT_APPROXIMATE;
    }
    return code;
}

static int bench_main(int argc, char **argv, bool *mpi_started)
{
    tpCliBenchCmd b;
    int code = bench_parse(argc, argv, &b);
    if (code >= 0) {
        return code;
    }
    TP_VALIDATE(tpCliBenchCmd_Valid, &b); /* the parse kept its rules (cli_validate.c) */
    if (!tpCli_WatchdogStart(NULL, 0)) {  /* a domain's script past its time limits ends the bench */
        return TP_EXIT_FAILURE;
    }
    if (b.quiet) {
        tpLog_SetLevel(TP_LOG_WARN);
    }
    int rank = 0, nranks = 1;
    if (b.mpi && !(*mpi_started = tpMpi_Init(&rank, &nranks))) {
        return TP_EXIT_BAD_INPUT;
    }
    if (rank != 0) {
        b.quiet = true; /* rank 0 prints and writes */
        b.out = NULL;
        b.plot = NULL;
    }
    Progress prog = {!b.quiet && isatty(2), NULL, TP_PLANNER_BGT, 0, 0};
    tpBenchRuns runs = {0};
    bool partial = false;
    const char *plot_path = NULL;
    char plot_path_buf[4096];
    char plot_label[256] = "";
    printf("tplan bench: %lld seed%s per row (from %u)", b.seeds, b.seeds == 1 ? "" : "s", b.first_seed);
    if (b.o.run.max_iters > 0) {
        printf(", max-iters %lld", (long long)b.o.run.max_iters);
    }
    printf("%s; times are medians / 90th percentiles over all runs (unsolved ones included);\n"
           "shares are of the summed planning time; paper = Table 1 (Pentium 4, averages)\n",
           !b.o.run.nn_index ? ", no NN index" : "");
    print_header();
    for (int d = 0; d < b.ndomains; ++d) {
        char label[256], path[4096];
        domain_label(b.domains[d], label, sizeof label);
        if (!tpCli_ResolveDomain(b.domains[d], path, sizeof path)) {
            printf("%-18s domain not found (no file, no built-in %s/%s.lua): skipped\n", label, tpCli_DomainsDir(),
                   label);
            fflush(stdout);
            partial = true;
            continue;
        }
        if (b.plot && !plot_path &&
            (!b.plot_domain || strcmp(b.plot_domain, b.domains[d]) == 0 || strcmp(b.plot_domain, label) == 0)) {
            snprintf(plot_path_buf, sizeof plot_path_buf, "%s", path);
            snprintf(plot_label, sizeof plot_label, "%s", label);
            plot_path = plot_path_buf;
        }
        tpScriptParam params[TP_MAX_PARAMS];
        char storage[8192];
        int nparams = params_for(b.sets, b.nsets, label, params, storage, sizeof storage);
        tpCliPlanOpts dom_o = b.o;
        dom_o.name = tpCli_DomainName(b.domains[d], path); /* messages name a built-in by its file name */
        if (!b.mpi || rank == 0) {
            tpCli_ScriptWarnings(&dom_o, path, params, nparams); /* once per domain, before its rows */
        }
        for (int p = 0; p < b.nplanners; ++p) {
            if (b.kinds[p] == TP_PLANNER_RRT && !has_sampling_space(&dom_o, path, params, nparams)) {
                printf("%-18s %-6s n/a: the domain has no sampling space (BK-BGT only; Table 1 has no BK-RRT time "
                       "either)\n",
                       label, kind_name(b.kinds[p]));
                fflush(stdout);
                continue;
            }
            bool oom = false;
            if (!bench_row(&b, &dom_o, path, label, params, nparams, p, rank, nranks, &prog, &runs, &oom)) {
                if (oom) {
                    free(runs.v);
                    return TP_EXIT_FAILURE;
                }
                partial = true;
            }
        }
    }
    code = bench_report(&b, &runs, plot_path, plot_label, prog.tty, partial ? TP_EXIT_APPROXIMATE : TP_EXIT_OK);
    free(runs.v);
    return code;
}

int tpCmd_Bench(int argc, char **argv)
{
    bool mpi = false;
    int code = bench_main(argc, argv, &mpi);
    if (mpi) {
        code = tpMpi_Broadcast(code); /* every rank exits as rank 0 does */
        tpMpi_Finalize();
    }
    return code;
}
