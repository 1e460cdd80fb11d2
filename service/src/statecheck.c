/* tplan service: the state check of POST /v1/jobs (docs/service.md, "state"). A job's "state" must fit
 * its domain (the bodies it names, their overlaps, the tactics and memory slots): only the domain's
 * script can tell, and the server runs no script (service.h). The front end keeps one `tplan worker`
 * of its own, the checker, started on the first check: it loads the job's script under the check's
 * limits (SVC_CHECK_TIME for the load, SVC_CHECK_MEMORY_MB of Lua heap, the workers' address-space
 * limit), binds the state as the job's run will and answers; it keeps its last loaded domains, so a
 * repeated submission (same script or domain, `set` and limits) costs a bind, not a load. A check
 * the server waits SVC_CHECK_WAIT for at most, whatever the script does: past that the checker is
 * killed (a hostile script cannot hold the front end), the submission is queued unchecked (its
 * worker checks the state, as before: bad_state) and the script's key is remembered, so that the
 * same script is not tried again. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "service_internal.h"
#include "tp/base.h"
#include "tp/json_text.h"
#include "tp/run_def.h"

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool skipped(const tpService *svc, uint64_t key)
{
    for (int i = 0; i < svc->check_nskip; ++i) {
        if (svc->check_skip[i] == key) {
            return true;
        }
    }
    return false;
}

static void skip(tpService *svc, uint64_t key)
{
    if (skipped(svc, key)) {
        return;
    }
    svc->check_skip[svc->check_next] = key;
    svc->check_next = (svc->check_next + 1) % SVC_CHECK_SKIP;
    svc->check_nskip += svc->check_nskip < SVC_CHECK_SKIP;
}

/* The checker's answer line into buf (NUL-terminated, without the newline) by deadline (monotonic
 * s); false when it did not come (timeout, end of file, an error). */
static bool read_line(int fd, char *buf, size_t cap, double deadline)
{
    size_t n = 0;
    for (;;) {
        double left = deadline - mono_now();
        if (left <= 0) {
            return false;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return false;
        }
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        if (got <= 0) {
            return false;
        }
        n += (size_t)got;
        buf[n] = '\0';
        char *nl = memchr(buf, '\n', n);
        if (nl) {
            *nl = '\0';
            return true;
        }
        if (n + 1 >= cap) {
            return false;
        }
    }
}

/* The check's message for the checker (tp/service.h's protocol, "type":"check"); NULL when out of
 * memory. *key: what the load depends on (the limits, `set`, the domain or script), hashed. */
static char *check_message(const tpService *svc, const cJSON *req, const char *domain, const char *script,
                           double time_limit, int memory_mb, uint64_t *key)
{
    tplan_run_def run;
    tplan_run_def_init(&run);
    const double t = time_limit < SVC_CHECK_TIME ? time_limit : SVC_CHECK_TIME;
    run.time_limit = t;
    run.load_time_limit = t;
    run.call_time_limit = t;
    run.memory_limit_mb = memory_mb < SVC_CHECK_MEMORY_MB ? memory_mb : SVC_CHECK_MEMORY_MB;
    run.search_memory_mb = run.memory_limit_mb;
    tpJson_ResetFailed(); /* the checker's message must be whole: its print checks what follows */
    cJSON *m = cJSON_CreateObject();
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "type", "check");
    tpJson_Put(r, "state", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(req, "state"), true));
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(req, "set");
    if (set) {
        tpJson_Put(r, "set", cJSON_Duplicate(set, true));
    }
    tpJson_Put(m, "request", r);
    bool ok = tpRun_WriteJsonFields(&run, cJSON_AddObjectToObject(m, "run"));
    char path[4096] = "";
    if (script) {
        cJSON_AddStringToObject(m, "script", script);
    } else {
        snprintf(path, sizeof path, "%s/%s.lua", svc->def.domains_dir, domain);
        cJSON_AddStringToObject(m, "domain_path", path);
    }
    char *head = ok ? tpJson_PrintChecked(cJSON_GetObjectItemCaseSensitive(m, "run")) : NULL;
    char *sets = set ? tpJson_PrintChecked(set) : NULL;
    uint64_t h = tpHash_Fnv1a64(head ? head : "", head ? strlen(head) : 0);
    h ^= tpHash_Fnv1a64(sets ? sets : "", sets ? strlen(sets) : 0) * 0x9E3779B97F4A7C15ull;
    h ^= tpHash_Fnv1a64(script ? script : path, strlen(script ? script : path)) * 0xC2B2AE3D27D4EB4Full;
    *key = h;
    free(head);
    free(sets);
    char *line = ok && tpJson_ExactNumbers(r) ? tpJson_PrintChecked(m) : NULL; /* a state's to the bit */
    cJSON_Delete(m);
    return line;
}

svcCheck svcCheck_State(tpService *svc, const cJSON *req, const char *domain, const char *script, double time_limit,
                        int memory_mb, char *field, size_t fieldcap, char *msg, size_t msgcap)
{
    field[0] = msg[0] = '\0';
    uint64_t key = 0;
    char *line = check_message(svc, req, domain, script, time_limit, memory_mb, &key);
    if (!line) {
        return SVC_CHECK_UNCHECKED;
    }
    const double deadline = mono_now() + SVC_CHECK_WAIT;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)SVC_CHECK_WAIT;
    if (pthread_mutex_timedlock(&svc->check_mu, &until) != 0) { /* another check holds it that long */
        free(line);
        svcLog(svc, "state check: the checker is busy: the job is queued unchecked");
        return SVC_CHECK_UNCHECKED;
    }
    svcCheck result = SVC_CHECK_UNCHECKED;
    svcWorker *w = &svc->checker;
    if (skipped(svc, key) || svc->stopping) {
        __atomic_fetch_add(&svc->checks_skipped, 1, __ATOMIC_RELAXED);
        goto out;
    }
    if (w->pid <= 0) {
        /* the workers' command with --check: started from this handler's thread, which ends before the
           checker does, so it must not die with its parent thread (PR_SET_PDEATHSIG); it ends when its
           standard input closes, with the server */
        const char *argv[8];
        int n = 0;
        for (const char *const *a = svc->def.worker_argv; *a && n < 6; ++a) {
            argv[n++] = *a;
        }
        argv[n++] = "--check";
        argv[n] = NULL;
        w->interactive = true; /* at the server's nice: a submission waits for it */
        if (!svcSched_SpawnWorker(svc, w, argv)) {
            goto out;
        }
    }
    size_t len = strlen(line);
    line[len] = '\n'; /* replaces the terminator: write n + 1 bytes */
    char answer[4096];
    if (!tpFd_WriteAll(w->in_fd, line, len + 1) || !read_line(w->ev_fd, answer, sizeof answer, deadline)) {
        int status = svcSched_ReapWorker(w); /* stuck past the wait, or dead: the next check starts another */
        skip(svc, key);
        svcLog(svc,
               "state check: the checker %s (status %d): the job is queued unchecked, its script is not checked again",
               mono_now() >= deadline ? "took longer than its wait" : "ended", status);
        goto out;
    }
    cJSON *a = cJSON_Parse(answer);
    const char *res = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "result"));
    const char *f = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "field"));
    const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "message"));
    __atomic_fetch_add(&svc->checks_done, 1, __ATOMIC_SEQ_CST); /* first: a reader never sees more cached */
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "cached"))) {
        __atomic_fetch_add(&svc->checks_cached, 1, __ATOMIC_SEQ_CST);
    }
    if (res && strcmp(res, "ok") == 0) {
        result = SVC_CHECK_OK;
    } else if (res && strcmp(res, "bad_state") == 0) {
        result = SVC_CHECK_BAD;
        snprintf(field, fieldcap, "%s", f ? f : "");
        snprintf(msg, msgcap, "%s", m ? m : "the state does not fit the domain");
    } else { /* the script did not load within the check's limits: the job's run says why */
        skip(svc, key);
    }
    cJSON_Delete(a);
out:
    pthread_mutex_unlock(&svc->check_mu);
    free(line);
    return result;
}

void svcCheck_Stop(tpService *svc)
{
    pthread_mutex_lock(&svc->check_mu);
    if (svc->checker.pid > 0) {
        svcSched_ReapWorker(&svc->checker);
    }
    pthread_mutex_unlock(&svc->check_mu);
}
