/* A test shim, preloaded (LD_PRELOAD) into one worker node by service_cluster.py's script_read test:
 * the node's first read of a job's script (the statement start_job runs right after a claim, in
 * service/src/store_pg.c pg_load_script) is held until the test says go, so that the test can stop
 * PostgreSQL in exactly the window between the claim and that read, which a restart of the database
 * hit only now and then (the job then failed "internal" instead of being handed back).
 *
 * TPLAN_TEST_PG_HOLD_DIR: a folder; the shim creates held-PID in it when it holds the read and waits
 * (polling every 10 ms: a file is the event, at most 120 s) for a file named go there. Any other
 * statement, and every later read, passes through to libpq unchanged. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef PGresult *(*exec_params_fn)(PGconn *, const char *, int, const Oid *, const char *const *, const int *,
                                    const int *, int);

static void hold(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/held-%d", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (f) {
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/go", dir);
    const struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 12000 && access(path, F_OK) != 0; ++i) {
        nanosleep(&tick, NULL);
    }
}

PGresult *PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                       const char *const *paramValues, const int *paramLengths, const int *paramFormats,
                       int resultFormat)
{
    static int held;
    void *sym = dlsym(RTLD_NEXT, "PQexecParams"); /* libpq's own (ISO C has no object-to-function cast) */
    exec_params_fn real;
    memcpy(&real, &sym, sizeof real);
    const char *dir = getenv("TPLAN_TEST_PG_HOLD_DIR");
    if (dir && !held && strncmp(command, "SELECT script FROM jobs", 23) == 0) {
        held = 1; /* one hold: the handed-back job's next read passes */
        hold(dir);
    }
    return real(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}
