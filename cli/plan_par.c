/* tplan plan --jobs N: N independent searches (seeds tpPar_Seed) in N worker processes, with an
 * answer that does not depend on timing (docs/parallel.md):
 *
 *  - a worker stops when it has K solutions (--solutions, default 1) and publishes the iteration
 *    that found its K-th; every worker stops before an iteration beyond the least published count
 *    (tpPlannerDef.iteration_bound), so the others stop early;
 *  - B = the fewest iterations any worker needed for K solutions (unbounded when none got there).
 *    Every worker always completes its iterations 1..B (the bound never falls below B), so the
 *    solutions found at iterations <= B are the same whatever the timing: they are the pool;
 *  - K = 1: the solution with the fewest iterations wins, ties to the lowest worker index;
 *    K > 1: the best K of the pool by (cost, iterations, worker);
 *  - no solution at all (every worker ran to max_iters): the best node by (exact unrest, quality),
 *    as one run's fallback (docs/lua-api.md#fallbacks), ties to the lowest worker.
 *
 * The workers only report summaries at first; the coordinator decides, then asks the workers that
 * own kept solutions for their plan records (with exactly those solutions) and merges them. The
 * transport (tpParLink) is fork + pipes + a MAP_SHARED bound here, MPI in par_mpi.c. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_validate.h"
#include "par.h"
#include "tp/base.h"

uint32_t tpPar_Seed(uint32_t seed, int k)
{
    return seed + (uint32_t)k * 0x9E3779B9u; /* unsigned: wraps modulo 2^32 */
}

/* ------------------------------------------------------------------------------------------ */
/* Messages: a blob is its length (uint64) then its bytes.                                     */

static bool send_blob(const tpParLink *l, int peer, const void *buf, size_t n)
{
    uint64_t len = n;
    return l->send(l->ctx, peer, &len, sizeof len) && (n == 0 || l->send(l->ctx, peer, buf, n));
}

/* Receives a blob into a malloc'd buffer (*out, NUL-terminated); false on a broken link. */
static bool recv_blob(const tpParLink *l, int peer, char **out, size_t *n)
{
    uint64_t len = 0;
    *out = NULL;
    if (!l->recv(l->ctx, peer, &len, sizeof len) || len > ((uint64_t)1 << 40)) {
        return false;
    }
    char *b = malloc((size_t)len + 1);
    if (!b || (len > 0 && !l->recv(l->ctx, peer, b, (size_t)len))) {
        free(b);
        return false;
    }
    b[len] = '\0';
    *out = b;
    *n = (size_t)len;
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Worker                                                                                      */

static int64_t link_bound(void *user)
{
    const tpParLink *l = user;
    return tpCli_StopRequested ? 0 : l->bound(l->ctx);
}

int tpPar_WorkerSearch(const tpParTask *task, int k, const tpParLink *link, tpCliRun *run)
{
    tpParSummary s;
    memset(&s, 0, sizeof s);
    tpCliPlanOpts o = *task->opts;
    uint32_t seed0 = o.run.seed >= 0 ? (uint32_t)o.run.seed : 0;
    bool script_seed = o.run.seed < 0; /* no --seed: the script's planner.seed is the run's seed */
    if (script_seed) {
        /* the script's default seed must be known first: load it once (cheap next to planning) */
        char e[256];
        tpScriptDef def = tpCli_ScriptDef(&o, task->path, task->params, task->nparams);
        tpScript *sc = tpCreateScript(&def, e, sizeof e);
        seed0 = sc ? tpDomain_Def(tpScript_Domain(sc))->planner.seed : 1;
        tpDestroyScript(sc);
    }
    s.seed = tpPar_Seed(seed0, k);
    o.run.seed = s.seed;
    o.iteration_bound = link_bound;
    o.iteration_bound_user = (void *)link;
    o.warn = o.warn && k == 0; /* the same domain in every worker: one says it */
    s.rc = tpCli_PlanRun(task->path, task->params, task->nparams, &o, NULL, run, s.err, sizeof s.err);
    s.requested = run->pd.solutions > 0 ? run->pd.solutions : 1;
    const int64_t *iters = NULL;
    const double *costs = NULL;
    if (s.rc == TP_EXIT_OK) {
        const tpPlanResult *r = &run->res;
        s.status = (int32_t)r->status;
        s.nsolutions = r->nsolutions;
        s.stats = r->stats;
        const tpTree *tree = tpPlanner_Tree(run->planner);
        s.memory_bytes = (int64_t)tpTree_MemoryBytes(tree);
        tpProblem p = tpDomain_Problem(run->domain);
        s.state_bytes = p.state_bytes;
        s.action_dim = p.action_dim;
        s.by_rest = p.unrest != NULL;
        iters = r->solution_iters;
        costs = r->costs;
        if (r->nsolutions >= run->pd.solutions) {
            link->publish(link->ctx, r->solution_iters[run->pd.solutions - 1]);
        } else if (r->nsolutions == 0) {
            const void *xb = tpTree_State(tree, r->best);
            s.quality = p.quality(p.ctx, xb);
            s.unrest = tpCli_BestUnrest(run);
        }
    }
    TP_VALIDATE(tpParSummary_Valid, &s);
    if (!link->send(link->ctx, TP_PAR_COORD, &s, sizeof s) ||
        (s.nsolutions > 0 && (!link->send(link->ctx, TP_PAR_COORD, iters, (size_t)s.nsolutions * sizeof *iters) ||
                              !link->send(link->ctx, TP_PAR_COORD, costs, (size_t)s.nsolutions * sizeof *costs)))) {
        return TP_EXIT_FAILURE;
    }
    return TP_EXIT_OK;
}

/* Writes rec as a plan file and reads the bytes back (the writer takes a path). */
static char *record_bytes(const tpPlanRecord *rec, size_t *len, char *err, size_t errlen)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tplan-worker-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a temporary file in %s: %s", dir && *dir ? dir : "/tmp", strerror(errno));
        return NULL;
    }
    close(fd);
    char *text = NULL;
    if (tpPlanRecord_Write(rec, path, err, errlen)) {
        text = tpFile_Read(path, (size_t)1 << 40, len, err, errlen);
    }
    unlink(path);
    return text;
}

int tpPar_WorkerRecord(const tpParTask *task, const tpParLink *link, tpCliRun *run)
{
    int32_t nkeep = 0;
    int32_t *keep = NULL;
    bool ok = link->recv(link->ctx, TP_PAR_COORD, &nkeep, sizeof nkeep);
    if (ok && nkeep > 0) {
        keep = malloc((size_t)nkeep * sizeof *keep);
        ok = keep && link->recv(link->ctx, TP_PAR_COORD, keep, (size_t)nkeep * sizeof *keep);
    }
    if (!ok || nkeep == 0) {
        free(keep);
        tpCli_PlanRunFree(run);
        return ok ? TP_EXIT_OK : TP_EXIT_FAILURE;
    }
    /* nkeep < 0: the approximate answer as is; else only the kept solutions in the order sent
       (the pool's: cheapest first), the selected one the cheapest (earliest on ties, as the
       planner's own many-worlds choice): the first, so the plan file, which writes the selected
       world first and the others in order, keeps the order sent */
    tpPlanResult res = run->res;
    int32_t *sols = NULL;
    double *costs = NULL;
    if (nkeep > 0) {
        sols = malloc((size_t)nkeep * sizeof *sols);
        costs = malloc((size_t)nkeep * sizeof *costs);
        ok = sols && costs;
        for (int i = 0; ok && i < nkeep; ++i) {
            ok = keep[i] >= 0 && keep[i] < run->res.nsolutions;
            if (ok) {
                sols[i] = run->res.solutions[keep[i]];
                costs[i] = run->res.costs[keep[i]];
            }
        }
        res.nsolutions = nkeep;
        res.solutions = sols;
        res.costs = costs;
        res.best_solution = 0;
        for (int i = 1; ok && i < nkeep; ++i) {
            if (costs[i] < costs[res.best_solution]) {
                res.best_solution = i;
            }
        }
        if (ok) {
            res.best = sols[res.best_solution];
        }
    }
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    char err[1024] = "out of memory";
    char *text = NULL;
    size_t len = 0;
    if (ok && tpCli_RecordResult(run, task->path, &res, &rec, err, sizeof err)) {
        text = record_bytes(&rec, &len, err, sizeof err);
    }
    /* an empty blob tells the coordinator the record failed; the message follows */
    ok = text ? send_blob(link, TP_PAR_COORD, text, len)
              : send_blob(link, TP_PAR_COORD, "", 0) && send_blob(link, TP_PAR_COORD, err, strlen(err));
    tpPlanRecord_Free(&rec);
    free(text);
    free(sols);
    free(costs);
    free(keep);
    tpCli_PlanRunFree(run);
    return ok ? TP_EXIT_OK : TP_EXIT_FAILURE;
}

int tpPar_Worker(const tpParTask *task, int k, const tpParLink *link)
{
    tpCliRun run;
    if (tpPar_WorkerSearch(task, k, link, &run) != TP_EXIT_OK) {
        tpCli_PlanRunFree(&run);
        return TP_EXIT_FAILURE;
    }
    return tpPar_WorkerRecord(task, link, &run);
}

/* ------------------------------------------------------------------------------------------ */
/* Coordinator                                                                                 */

typedef struct PoolEntry {
    double cost;
    int64_t iters;
    int worker, index; /* index: the solution's place in the worker's list (order found) */
    int world;         /* its world in the worker's record (kept solutions, in pool order) */
} PoolEntry;

/* K = 1: (iterations, worker); the index breaks no real tie (one solution per worker counts). */
static int cmp_pool_iters(const void *pa, const void *pb)
{
    const PoolEntry *a = pa, *b = pb;
    if (a->iters != b->iters) {
        return a->iters < b->iters ? -1 : 1;
    }
    if (a->worker != b->worker) {
        return a->worker < b->worker ? -1 : 1;
    }
    return a->index < b->index ? -1 : a->index > b->index;
}

/* K > 1: (cost, iterations, worker). */
static int cmp_pool_cost(const void *pa, const void *pb)
{
    const PoolEntry *a = pa, *b = pb;
    if (a->cost != b->cost) {
        return a->cost < b->cost ? -1 : 1;
    }
    return cmp_pool_iters(pa, pb);
}

/* The pool (solutions found at iterations <= B), ordered by the rule, cut to K; *n its length. */
static PoolEntry *make_pool(const tpParOutcome *out, int K, int *n)
{
    int total = 0;
    for (int k = 0; k < out->nworkers; ++k) {
        for (int j = 0; j < out->workers[k].nsolutions; ++j) {
            total += out->iters[k][j] <= out->bound;
        }
    }
    PoolEntry *pool = calloc((size_t)(total > 0 ? total : 1), sizeof *pool);
    if (!pool) {
        return NULL;
    }
    int m = 0;
    for (int k = 0; k < out->nworkers; ++k) {
        for (int j = 0; j < out->workers[k].nsolutions; ++j) {
            if (out->iters[k][j] <= out->bound) {
                pool[m++] = (PoolEntry){out->costs[k][j], out->iters[k][j], k, j, 0};
            }
        }
    }
    qsort(pool, (size_t)m, sizeof *pool, K > 1 ? cmp_pool_cost : cmp_pool_iters);
    *n = m < K ? m : K;
    return pool;
}

int tpPar_Decide(const tpParTask *task, const tpParLink *link, tpParOutcome *out, char *err, size_t errlen)
{
    const int n = task->nworkers;
    memset(out, 0, sizeof *out);
    out->nworkers = n;
    out->owner = out->stats_worker = -1;
    out->bound = INT64_MAX;
    out->workers = calloc((size_t)n, sizeof *out->workers);
    out->iters = calloc((size_t)n, sizeof *out->iters);
    out->costs = calloc((size_t)n, sizeof *out->costs);
    if (!out->workers || !out->iters || !out->costs) {
        snprintf(err, errlen, "out of memory");
        return TP_EXIT_FAILURE;
    }
    for (int k = 0; k < n; ++k) {
        tpParSummary *s = &out->workers[k];
        if (!link->recv(link->ctx, k, s, sizeof *s)) {
            snprintf(err, errlen, "plan worker %d stopped without a report", k);
            return TP_EXIT_FAILURE;
        }
        size_t ns = s->nsolutions > 0 ? (size_t)s->nsolutions : 0;
        out->iters[k] = calloc(ns + 1, sizeof **out->iters);
        out->costs[k] = calloc(ns + 1, sizeof **out->costs);
        if (!out->iters[k] || !out->costs[k] ||
            (ns > 0 && (!link->recv(link->ctx, k, out->iters[k], ns * sizeof **out->iters) ||
                        !link->recv(link->ctx, k, out->costs[k], ns * sizeof **out->costs)))) {
            snprintf(err, errlen, "plan worker %d: lost its report", k);
            return TP_EXIT_FAILURE;
        }
    }
    for (int k = 0; k < n; ++k) { /* a failed run (a script error) fails the whole run: the lowest worker's message */
        if (out->workers[k].rc != TP_EXIT_OK) {
            snprintf(err, errlen, "%s", out->workers[k].err);
            int32_t none = 0; /* release every worker (MPI ranks wait for a decision) */
            for (int j = 0; j < n; ++j) {
                link->send(link->ctx, j, &none, sizeof none);
            }
            return out->workers[k].rc;
        }
    }
    const int K = out->workers[0].requested;
    for (int k = 0; k < n; ++k) { /* B: the fewest iterations to K solutions */
        const tpParSummary *s = &out->workers[k];
        if (s->nsolutions >= K && out->iters[k][K - 1] < out->bound) {
            out->bound = out->iters[k][K - 1];
            out->stats_worker = k; /* strict <: the lowest worker on ties */
        }
    }
    int np = 0;
    PoolEntry *pool = make_pool(out, K, &np);
    if (!pool) {
        snprintf(err, errlen, "out of memory");
        return TP_EXIT_FAILURE;
    }
    int32_t *nkeep = calloc((size_t)n, sizeof *nkeep);
    if (!nkeep) {
        free(pool);
        snprintf(err, errlen, "out of memory");
        return TP_EXIT_FAILURE;
    }
    out->pooled = np;
    if (np > 0) {
        out->owner = pool[0].worker;
        for (int i = 0; i < np; ++i) {
            nkeep[pool[i].worker]++;
        }
    } else { /* nobody solved: every worker ran to max_iters; the least unrest, then the best quality
                (as one run's fallback), ties the lowest worker */
        for (int k = 0; k < n; ++k) {
            const tpParSummary *w = &out->workers[k], *o = out->owner < 0 ? NULL : &out->workers[out->owner];
            if (!o || w->unrest < o->unrest || (w->unrest == o->unrest && w->quality < o->quality)) {
                out->owner = k;
            }
        }
        nkeep[out->owner] = -1;
    }
    if (out->stats_worker < 0) {
        out->stats_worker = out->owner;
    }
    int32_t *idx = calloc((size_t)(np > 0 ? np : 1), sizeof *idx);
    bool ok = idx != NULL;
    for (int k = 0; k < n && ok; ++k) { /* the kept solutions of worker k, in pool order: cheapest first */
        int m = 0;
        for (int i = 0; i < np; ++i) {
            if (pool[i].worker == k) {
                idx[m++] = pool[i].index;
            }
        }
        ok = link->send(link->ctx, k, &nkeep[k], sizeof nkeep[k]) &&
             (m == 0 || link->send(link->ctx, k, idx, (size_t)m * sizeof *idx));
    }
    free(idx);
    free(pool);
    free(nkeep);
    if (!ok) {
        snprintf(err, errlen, "lost a plan worker");
        return TP_EXIT_FAILURE;
    }
    TP_VALIDATE(tpParOutcome_Valid, out);
    return TP_EXIT_OK;
}

/* Moves the world of pool entry e out of its worker's record into dst (the source zeroed). */
static void take_world(tpPlanRecord *recs, const PoolEntry *e, tpPlanWorld *dst)
{
    tpPlanWorld *src = &recs[e->worker].worlds[e->world];
    *dst = *src;
    memset(src, 0, sizeof *src);
}

int tpPar_Collect(const tpParTask *task, const tpParLink *link, tpParOutcome *out, char *err, size_t errlen)
{
    const int n = task->nworkers;
    tpPlanRecord *recs = calloc((size_t)n, sizeof *recs);
    int np = 0;
    PoolEntry *pool = make_pool(out, out->workers[0].requested, &np);
    int code = recs && pool ? TP_EXIT_OK : TP_EXIT_FAILURE;
    snprintf(err, errlen, "out of memory");
    for (int k = 0; k < n && code == TP_EXIT_OK; ++k) {
        bool wanted = k == out->owner;
        for (int i = 0; i < np; ++i) {
            wanted = wanted || pool[i].worker == k;
        }
        if (!wanted) {
            continue;
        }
        char *text = NULL, *msg = NULL;
        size_t len = 0, mlen = 0;
        char name[64];
        snprintf(name, sizeof name, "plan of worker %d", k);
        if (!recv_blob(link, k, &text, &len)) {
            snprintf(err, errlen, "plan worker %d stopped without its plan", k);
            code = TP_EXIT_FAILURE;
        } else if (len == 0) {
            bool got = recv_blob(link, k, &msg, &mlen);
            snprintf(err, errlen, "plan worker %d: %s", k, got ? msg : "cannot record its plan");
            code = TP_EXIT_FAILURE;
        } else if (!tpPlanRecord_Parse(&recs[k], text, len, name, err, errlen)) {
            code = TP_EXIT_FAILURE;
        }
        free(text);
        free(msg);
    }
    if (code == TP_EXIT_OK && np > 0) {
        /* world j of worker k's record is its j-th kept solution in pool order (as sent) */
        for (int i = 0; i < np; ++i) {
            for (int m = 0; m < i; ++m) {
                pool[i].world += pool[m].worker == pool[i].worker;
            }
        }
        tpPlanWorld *worlds = calloc((size_t)np, sizeof *worlds);
        bool fits = worlds != NULL;
        for (int i = 0; fits && i < np; ++i) {
            fits = pool[i].world < recs[pool[i].worker].nworlds;
        }
        if (!fits) {
            free(worlds);
            snprintf(err, errlen, "the workers' plans do not match their reports");
            code = TP_EXIT_FAILURE;
        } else {
            tpPlanRecord *base = &recs[out->owner];
            for (int i = 0; i < np; ++i) {
                take_world(recs, &pool[i], &worlds[i]);
            }
            tpPlanRecord old; /* what is left of the base's own worlds, freed as a record */
            memset(&old, 0, sizeof old);
            old.nbodies = base->nbodies;
            old.ntactics = base->ntactics;
            old.worlds = base->worlds;
            old.nworlds = base->nworlds;
            tpPlanRecord_Free(&old);
            base->worlds = worlds; /* the pool order: the selected solution first */
            base->nworlds = np;
            base->selected = 0;
            base->nsolutions = np;
        }
    }
    if (code == TP_EXIT_OK) {
        /* statistics: the worker that set B (it stopped by itself there, so they do not depend on
           timing); without B, the owner's (it ran to max_iters) */
        const tpParSummary *s = &out->workers[out->stats_worker];
        tpPlanRecord *base = &recs[out->owner];
        base->iterations = s->stats.iterations;
        base->nodes = s->stats.nodes;
        base->rejected = s->stats.rejected;
        memcpy(base->rejections, s->stats.reject, sizeof base->rejections);
        base->memory_bytes = s->memory_bytes;
        base->nodes_first = s->stats.nodes_first > 0 ? s->stats.nodes_first : 0;
        base->t_first = s->stats.t_first;
        base->t_select = s->stats.t_select;
        base->t_tactics = s->stats.t_tactics;
        base->t_physics = s->stats.t_physics;
        base->t_check = s->stats.t_check;
        base->t_total = s->stats.t_total;
        out->rec = *base;
        memset(base, 0, sizeof *base);
    }
    for (int k = 0; recs && k < n; ++k) {
        tpPlanRecord_Free(&recs[k]);
    }
    free(recs);
    free(pool);
    return code;
}

void tpPar_OutcomeFree(tpParOutcome *out)
{
    tpPlanRecord_Free(&out->rec);
    for (int k = 0; k < out->nworkers; ++k) {
        free(out->iters ? out->iters[k] : NULL);
        free(out->costs ? out->costs[k] : NULL);
    }
    free(out->iters);
    free(out->costs);
    free(out->workers);
    memset(out, 0, sizeof *out);
}

/* ------------------------------------------------------------------------------------------ */
/* Transport: forked processes, two pipes each, the bound in a MAP_SHARED page                  */

typedef struct ForkLink {
    _Atomic int64_t *bound; /* shared by all processes (mmap MAP_SHARED | MAP_ANONYMOUS) */
    int to_worker[TP_PAR_MAX_WORKERS], from_worker[TP_PAR_MAX_WORKERS]; /* coordinator's ends */
    int to_coord, from_coord;                                           /* a worker's ends */
} ForkLink;

static bool fork_send(void *ctx, int peer, const void *buf, size_t n)
{
    ForkLink *f = ctx;
    return tpFd_WriteAll(peer == TP_PAR_COORD ? f->to_coord : f->to_worker[peer], buf, n);
}

static bool fork_recv(void *ctx, int peer, void *buf, size_t n)
{
    ForkLink *f = ctx;
    return tpFd_ReadAll(peer == TP_PAR_COORD ? f->from_coord : f->from_worker[peer], buf, n);
}

static int64_t fork_bound(void *ctx)
{
    ForkLink *f = ctx;
    return atomic_load_explicit(f->bound, memory_order_relaxed);
}

static void fork_publish(void *ctx, int64_t iters)
{
    ForkLink *f = ctx;
    int64_t cur = atomic_load(f->bound);
    while (iters < cur && !atomic_compare_exchange_weak(f->bound, &cur, iters)) {
    }
}

int tpPar_PlanFork(const tpParTask *task, tpParOutcome *out, char *err, size_t errlen)
{
    const int n = task->nworkers;
    memset(out, 0, sizeof *out);
    ForkLink f;
    memset(&f, 0, sizeof f);
    void *page = mmap(NULL, sizeof *f.bound, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        snprintf(err, errlen, "--jobs: cannot map shared memory: %s", strerror(errno));
        return TP_EXIT_FAILURE;
    }
    f.bound = page;
    atomic_init(f.bound, INT64_MAX);
    const tpParLink link = {&f, fork_send, fork_recv, fork_bound, fork_publish};
    pid_t pids[TP_PAR_MAX_WORKERS];
    int started = 0;
    bool ok = true;
    fflush(stdout);
    fflush(stderr);
    tpCli_WatchdogPause(); /* no second thread at fork (watchdog.c) */
    for (int k = 0; k < n && ok; ++k) {
        int down[2], up[2];
        if (pipe(down) != 0) {
            ok = false;
            break;
        }
        if (pipe(up) != 0) {
            close(down[0]);
            close(down[1]);
            ok = false;
            break;
        }
        const pid_t parent = getpid();
        pid_t pid = fork();
        if (pid == 0) { /* worker k: its own ends only */
            /* a coordinator killed outright (SIGKILL, a service cancelling its job) takes its
               workers with it instead of leaving them to search until max_iters */
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
                _exit(1);
            }
            tpCli_WatchdogAfterFork(); /* its own script's limits: the coordinator's thread is not here */
            for (int j = 0; j < started; ++j) {
                close(f.to_worker[j]);
                close(f.from_worker[j]);
            }
            close(down[1]);
            close(up[0]);
            f.from_coord = down[0];
            f.to_coord = up[1];
            int rc = tpPar_Worker(task, k, &link);
            _exit(rc == TP_EXIT_OK ? 0 : 1);
        }
        close(down[0]);
        close(up[1]);
        if (pid < 0) {
            close(down[1]);
            close(up[0]);
            ok = false;
            break;
        }
        pids[started] = pid;
        f.to_worker[started] = down[1];
        f.from_worker[started++] = up[0];
    }
    tpCli_WatchdogResume();
    int code = TP_EXIT_FAILURE;
    if (!ok) {
        snprintf(err, errlen, "--jobs: cannot start the worker processes: %s", strerror(errno));
    } else {
        code = tpPar_Decide(task, &link, out, err, errlen);
        if (code == TP_EXIT_OK) {
            code = tpPar_Collect(task, &link, out, err, errlen);
        }
    }
    for (int k = 0; k < started; ++k) { /* closing the pipes releases a worker still waiting */
        close(f.to_worker[k]);
        close(f.from_worker[k]);
    }
    for (int k = 0; k < started; ++k) {
        int status = 0;
        while (waitpid(pids[k], &status, 0) < 0 && errno == EINTR) {
        }
        if (code == TP_EXIT_OK && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
            snprintf(err, errlen, "plan worker %d died (%s %d)", k, WIFSIGNALED(status) ? "signal" : "status",
                     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
            code = TP_EXIT_FAILURE;
        }
    }
    munmap(page, sizeof *f.bound);
    return code;
}

int tpPar_RerunSelected(const tpParTask *task, const tpParOutcome *out, const tpCliProgress *progress, tpCliRun *run,
                        char *err, size_t errlen)
{
    tpCliPlanOpts ro = *task->opts;
    ro.run.seed = out->workers[out->owner].seed;
    ro.run.max_iters = out->bound < out->rec.max_iters ? out->bound : out->rec.max_iters;
    ro.warn = false; /* worker 0 said them */
    return tpCli_PlanRun(task->path, task->params, task->nparams, &ro, progress, run, err, errlen);
}
