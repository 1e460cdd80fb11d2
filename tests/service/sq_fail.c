/* A test shim, preloaded (LD_PRELOAD) into one server by service_crash.py's script_read test: the
 * first TPLAN_TEST_SQ_FAIL reads of a job's script (the statement start_job runs before a job is sent
 * to its worker, service/src/store_sqlite.c sq_load_script) fail as SQLite's SQLITE_BUSY would, so
 * that the test sees the job tried again after its backoff rather than failed. Every other
 * statement passes through to SQLite unchanged. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

typedef int (*prepare_fn)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);

int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n, sqlite3_stmt **st, const char **tail)
{
    static int failed = 0; /* the server's scheduler thread is the only one that runs this statement */
    const char *env = getenv("TPLAN_TEST_SQ_FAIL");
    if (env && strncmp(sql, "SELECT script FROM jobs WHERE id=", 33) == 0 && failed < atoi(env)) {
        ++failed;
        *st = NULL;
        return SQLITE_BUSY;
    }
    void *sym = dlsym(RTLD_NEXT, "sqlite3_prepare_v2"); /* SQLite's own (ISO C has no object-to-function cast) */
    prepare_fn next;
    memcpy(&next, &sym, sizeof next);
    return next(db, sql, n, st, tail);
}
