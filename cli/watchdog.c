/* tplan command-line program: the hard deadline of the commands that run domain scripts.
 *
 * A script's time limits are checked inside the Lua state (the count hook, the bounded library
 * functions): that cannot stop a C call nobody checks, and a plan file from a stranger carries a
 * script `tplan replay` runs. So the process also keeps a deadline of its own, as the service does
 * for its workers: a thread wakes every TP_WATCHDOG_POLL s and ends the process (one line on
 * stderr, temporary files removed, exit TP_EXIT_HARD_DEADLINE) when
 *  - the script has been running TP_CLI_HARD_GRACE s + 10 % of its limit past an armed limit
 *    (the load limit, a callback's limit: tpScriptDef.on_deadline tells us each arm and disarm), or
 *  - the command has been running longer than --hard-deadline S.
 * The thread touches only atomics and the clock until it fires. A command that forks workers stops
 * it first (tpCli_WatchdogPause: with a second thread alive at fork, children deadlocked in the
 * sanitizers' allocator, e2e_parallel under ASan) and starts it again after; each worker starts
 * its own (tpCli_WatchdogAfterFork).
 * Starting the thread waits until it runs (a semaphore it posts first): a process that forked or
 * exited while the new thread was still being set up could catch the sanitizers' leak checker
 * half way through registering it (LeakSanitizer's thread-start race, google/sanitizers#1836), a
 * fatal error at exit that came and went with the machine's load (e2e_hardening under ASan). */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tp/base.h"

#define TP_WATCHDOG_POLL 0.05 /* s between two looks at the clock */

/* The armed limit (tpClock times; deadline 0 = none), written by the thread running the script,
 * read by the watchdog: a sequence count around the two stores (odd = being written). */
static atomic_uint s_seq;
static _Atomic double s_armed, s_deadline;
static _Atomic(const char *) s_script; /* tpScriptDef.path of the armed script (its caller's string) */
/* Set before the thread starts, then read only. */
static double s_started, s_total; /* the command's start, its --hard-deadline (s; 0 = none) */
static char s_label[1024];        /* what the message names: the script or plan; "" = s_script */
static bool s_running, s_paused;
static pthread_t s_thread;
static atomic_bool s_stop;  /* asks the thread to end (tpCli_WatchdogPause) */
static atomic_bool s_alive; /* the thread is running: set by it first, cleared as it returns */
static sem_t s_up;          /* posted by the thread once s_alive is set (start_thread waits) */

void tpCli_WatchdogOnDeadline(void *user, double armed, double deadline)
{
    atomic_fetch_add(&s_seq, 1);
    atomic_store(&s_armed, armed);
    atomic_store(&s_deadline, deadline);
    atomic_store(&s_script, (const char *)user);
    atomic_fetch_add(&s_seq, 1);
}

static void fire(const char *msg)
{
    char line[2048];
    const char *script = atomic_load(&s_script);
    int n = snprintf(line, sizeof line, "tplan: error: %s: %s\n",
                     s_label[0] ? s_label
                     : script   ? script
                                : "tplan",
                     msg);
    tpFile_RemoveTemps();
    if (n > 0) {
        ssize_t w = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w; /* nothing more to do if stderr is gone */
    }
    _exit(TP_EXIT_HARD_DEADLINE);
}

static void *watch(void *arg)
{
    (void)arg;
    atomic_store(&s_alive, true);
    sem_post(&s_up);
    const struct timespec poll = {0, (long)(TP_WATCHDOG_POLL * 1e9)};
    for (;;) {
        nanosleep(&poll, NULL);
        if (atomic_load(&s_stop)) {
            atomic_store(&s_alive, false);
            return NULL;
        }
        unsigned seq;
        double armed, deadline;
        do {
            seq = atomic_load(&s_seq);
            armed = atomic_load(&s_armed);
            deadline = atomic_load(&s_deadline);
        } while ((seq & 1u) || seq != atomic_load(&s_seq));
        double now = tpClock_Now();
        char msg[1024];
        if (deadline > 0) {
            double limit = deadline - armed;
            if (now >= deadline + TP_CLI_HARD_GRACE + 0.1 * limit) {
                snprintf(msg, sizeof msg,
                         "the script ran %.1f s, %.1f s past its time limit of %g s, in a call the limit could not "
                         "interrupt: stopped at the hard deadline (the limit plus %g s + 10 %%)",
                         now - armed, now - deadline, limit, TP_CLI_HARD_GRACE);
                fire(msg);
            }
        }
        if (s_total > 0 && now - s_started >= s_total) {
            snprintf(msg, sizeof msg,
                     "still running %.1f s after the start: stopped at the hard deadline (--hard-deadline %g)",
                     now - s_started, s_total);
            fire(msg);
        }
    }
    return NULL;
}

static bool start_thread(void)
{
    pthread_attr_t a;
    if (pthread_attr_init(&a) != 0) {
        return false;
    }
    pthread_attr_setstacksize(&a, 64 * 1024);
    atomic_store(&s_stop, false);
    bool ok = sem_init(&s_up, 0, 0) == 0;
    if (ok && !(ok = pthread_create(&s_thread, &a, watch, NULL) == 0)) {
        sem_destroy(&s_up);
    }
    pthread_attr_destroy(&a);
    if (ok) { /* the handshake: return only once the thread runs */
        while (sem_wait(&s_up) != 0 && errno == EINTR) {
        }
        sem_destroy(&s_up);
        TP_ASSERT(atomic_load(&s_alive));
    }
    return ok;
}

bool tpCli_WatchdogRunning(void)
{
    return atomic_load(&s_alive);
}

void tpCli_WatchdogPause(void)
{
    if (!s_running) {
        return;
    }
    atomic_store(&s_stop, true);
    pthread_join(s_thread, NULL);
    s_running = false;
    s_paused = true;
}

void tpCli_WatchdogResume(void)
{
    if (!s_paused) {
        return;
    }
    s_paused = false;
    s_running = start_thread();
    if (!s_running) {
        tpLog(TP_LOG_ERROR, "cannot start the hard-deadline thread again");
    }
}

bool tpCli_WatchdogStart(const char *label, double hard_deadline)
{
    if (s_running) {
        return true;
    }
    s_started = tpClock_Now();
    s_total = hard_deadline;
    tpStrCopy(s_label, sizeof s_label, label ? label : "");
    s_running = start_thread();
    if (!s_running) {
        tpLog(TP_LOG_ERROR, "cannot start the hard-deadline thread");
    }
    return s_running;
}

void tpCli_WatchdogAfterFork(void)
{
    s_total = 0; /* the command's deadline is the parent's, and the child dies with it: one line */
    const bool watch_it = s_running || s_paused;
    s_running = s_paused = false;
    if (watch_it && !(s_running = start_thread())) {
        _exit(TP_EXIT_FAILURE); /* a worker without its deadline could run for ever */
    }
}

void tpCli_WatchScript(tpScriptDef *def)
{
    def->on_deadline = tpCli_WatchdogOnDeadline;
    def->on_deadline_user = (void *)(def->name ? def->name : def->path); /* the caller's: outlives the run */
}
