/* MPI transport of the OR-parallel search (par.h) and of `bench --mpi` (built with TP_MPI).
 *
 * Rank r is worker r; rank 0 is also the coordinator (its own worker's messages go through an
 * in-memory queue). Data messages (summaries, decisions, plan records) travel on one duplicated
 * communicator, point to point, in chunks of at most 256 MiB. The bound: a rank that reaches K
 * solutions sends its iteration count to every other rank (MPI_Isend on a second communicator);
 * each rank polls for those (MPI_Iprobe) at most every millisecond from the planner's
 * iteration_bound callback. When its search ends, a rank that did not publish sends "no bound",
 * so every rank receives exactly one bound message from every other rank and none is left over
 * (docs/parallel.md). */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "tp/base.h"
#include "tp/util.h"

#define CHUNK ((size_t)1 << 28) /* bytes per MPI message (counts are ints) */
enum { TAG_DATA = 1, TAG_BOUND = 2 };

static MPI_Comm g_data = MPI_COMM_NULL, g_bound = MPI_COMM_NULL;
static int g_rank, g_size;

bool tpMpi_Init(int *rank, int *size)
{
    int started = 0;
    MPI_Initialized(&started);
    if (!started && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        tpLog(TP_LOG_ERROR, "--mpi: MPI_Init failed (run under mpirun, see docs/parallel.md)");
        return false;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &g_data);
    MPI_Comm_dup(MPI_COMM_WORLD, &g_bound);
    MPI_Comm_rank(g_data, &g_rank);
    MPI_Comm_size(g_data, &g_size);
    *rank = g_rank;
    *size = g_size;
    if (g_size > TP_PAR_MAX_WORKERS) {
        if (g_rank == 0) {
            tpLog(TP_LOG_ERROR, "--mpi: at most %d ranks (got %d)", TP_PAR_MAX_WORKERS, g_size);
        }
        tpMpi_Finalize();
        return false;
    }
    if (g_rank != 0) { /* rank 0 speaks for the run: the others print errors only */
        tpLog_SetLevel(TP_LOG_ERROR);
        if (!freopen("/dev/null", "w", stdout)) {
            tpLog(TP_LOG_ERROR, "--mpi: cannot silence rank %d's output", g_rank);
        }
    }
    return true;
}

void tpMpi_Finalize(void)
{
    if (g_data != MPI_COMM_NULL) {
        MPI_Comm_free(&g_data);
        MPI_Comm_free(&g_bound);
    }
    MPI_Finalize();
}

bool tpMpi_SendBytes(int to, const void *buf, size_t n)
{
    const char *p = buf;
    do {
        int c = (int)(n < CHUNK ? n : CHUNK);
        if (MPI_Send(p, c, MPI_BYTE, to, TAG_DATA, g_data) != MPI_SUCCESS) {
            return false;
        }
        p += c;
        n -= (size_t)c;
    } while (n > 0);
    return true;
}

bool tpMpi_RecvBytes(int from, void *buf, size_t n)
{
    char *p = buf;
    do {
        int c = (int)(n < CHUNK ? n : CHUNK);
        MPI_Status st;
        int got = -1;
        if (MPI_Recv(p, c, MPI_BYTE, from, TAG_DATA, g_data, &st) != MPI_SUCCESS ||
            MPI_Get_count(&st, MPI_BYTE, &got) != MPI_SUCCESS || got != c) {
            return false;
        }
        p += c;
        n -= (size_t)c;
    } while (n > 0);
    return true;
}

int tpMpi_Broadcast(int v)
{
    MPI_Bcast(&v, 1, MPI_INT, 0, g_data);
    return v;
}

typedef struct MpiLink {
    char *q; /* rank 0: its own worker's messages to and from the coordinator, a FIFO */
    size_t qlen, qcap, qpos;
    int64_t bound; /* least published iteration count received so far */
    int64_t mine;  /* what this rank published (INT64_MAX: no bound) */
    bool published;
    bool got[TP_PAR_MAX_WORKERS];         /* a bound message from that rank was received */
    MPI_Request sent[TP_PAR_MAX_WORKERS]; /* the Isends of this rank's bound */
    double next_poll;                     /* tpClock_Now before which bound() does not poll */
} MpiLink;

static bool mpi_send(void *ctx, int peer, const void *buf, size_t n)
{
    MpiLink *m = ctx;
    int to = peer == TP_PAR_COORD ? 0 : peer;
    if (to != g_rank) {
        return tpMpi_SendBytes(to, buf, n);
    }
    char *q = tpArray_Grow(m->q, &m->qcap, m->qlen + n, 1);
    if (!q) {
        return false;
    }
    m->q = q;
    memcpy(m->q + m->qlen, buf, n);
    m->qlen += n;
    return true;
}

static bool mpi_recv(void *ctx, int peer, void *buf, size_t n)
{
    MpiLink *m = ctx;
    int from = peer == TP_PAR_COORD ? 0 : peer;
    if (from != g_rank) {
        return tpMpi_RecvBytes(from, buf, n);
    }
    if (m->qlen - m->qpos < n) {
        return false;
    }
    memcpy(buf, m->q + m->qpos, n);
    m->qpos += n;
    return true;
}

/* Receives the bound messages that have arrived (all of them, blocking, when wait). */
static void poll_bounds(MpiLink *m, bool wait)
{
    for (int r = 0; r < g_size; ++r) {
        if (r == g_rank || m->got[r]) {
            continue;
        }
        int flag = 1;
        if (!wait) {
            MPI_Iprobe(r, TAG_BOUND, g_bound, &flag, MPI_STATUS_IGNORE);
        }
        if (flag) {
            int64_t v = INT64_MAX;
            MPI_Recv(&v, 1, MPI_INT64_T, r, TAG_BOUND, g_bound, MPI_STATUS_IGNORE);
            m->got[r] = true;
            m->bound = v < m->bound ? v : m->bound;
        }
    }
}

static int64_t mpi_bound(void *ctx)
{
    MpiLink *m = ctx;
    double now = tpClock_Now();
    if (now >= m->next_poll) {
        poll_bounds(m, false);
        m->next_poll = now + 0.001;
    }
    return m->bound;
}

static void mpi_publish(void *ctx, int64_t iters)
{
    MpiLink *m = ctx;
    if (m->published) {
        return;
    }
    m->published = true;
    m->mine = iters;
    m->bound = iters < m->bound ? iters : m->bound;
    for (int r = 0; r < g_size; ++r) {
        m->sent[r] = MPI_REQUEST_NULL;
        if (r != g_rank) {
            MPI_Isend(&m->mine, 1, MPI_INT64_T, r, TAG_BOUND, g_bound, &m->sent[r]);
        }
    }
}

/* After the search: one bound message to and from every other rank, then none is in flight. */
static void finish_bounds(MpiLink *m)
{
    mpi_publish(m, INT64_MAX);
    poll_bounds(m, true);
    MPI_Waitall(g_size, m->sent, MPI_STATUSES_IGNORE);
}

int tpMpi_Plan(const tpParTask *task, tpParOutcome *out, char *err, size_t errlen)
{
    MpiLink *m = calloc(1, sizeof *m);
    memset(out, 0, sizeof *out);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return TP_EXIT_FAILURE;
    }
    m->bound = INT64_MAX;
    const tpParLink link = {m, mpi_send, mpi_recv, mpi_bound, mpi_publish};
    tpCliRun run;
    int code = tpPar_WorkerSearch(task, g_rank, &link, &run);
    finish_bounds(m);
    if (g_rank == 0) {
        int dc = code == TP_EXIT_OK ? tpPar_Decide(task, &link, out, err, errlen) : code;
        int wc = tpPar_WorkerRecord(task, &link, &run); /* rank 0's worker: its decision is queued */
        code = dc != TP_EXIT_OK ? dc : wc;
        if (code == TP_EXIT_OK) {
            code = tpPar_Collect(task, &link, out, err, errlen);
        }
    } else if (code == TP_EXIT_OK) {
        code = tpPar_WorkerRecord(task, &link, &run);
    } else {
        tpCli_PlanRunFree(&run);
    }
    free(m->q);
    free(m);
    return code;
}
