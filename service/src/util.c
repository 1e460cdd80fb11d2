/* tplan service: job records as API objects, statuses, the log, error classification. */
#define _GNU_SOURCE /* dirfd */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "service_internal.h"
#include "tp/json_text.h"

double svcNow(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const status_names[SVC_NSTATUS] = {"queued",      "running", "solved",
                                                      "approximate", "failed",  "cancelled"};

const char *svcStatusName(svcStatus s)
{
    return (unsigned)s < SVC_NSTATUS ? status_names[s] : "unknown";
}

bool svcStatusFinal(svcStatus s)
{
    return s >= SVC_SOLVED;
}

int svcStatusFromName(const char *name)
{
    for (int i = 0; i < SVC_NSTATUS; ++i) {
        if (name && strcmp(name, status_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

void svcLog(tpService *svc, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* one line: control characters of echoed values (paths, messages) are replaced, and so are
       bytes that are not UTF-8 */
    for (char *p = line; *p; ++p) {
        if ((unsigned char)*p < 0x20) {
            *p = ' ';
        }
    }
    svcUtf8Repair(line);
    time_t t = time(NULL);
    struct tm tm;
    char stamp[32];
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    flockfile(svc->log);
    fprintf(svc->log, "%s %s\n", stamp, line);
    fflush(svc->log);
    funlockfile(svc->log);
}

void svcJobFree(svcJob *job)
{
    if (!job) {
        return;
    }
    free(job->domain);
    free(job->request);
    free(job->request_shown);
    free(job->script);
    free(job->name);
    free(job->tags);
    free(job->summary);
    free(job->series);
    free(job->err_message);
    free(job->interim);
    free(job);
}

bool svcJob_ReadRun(svcJob *job, double time_limit)
{
    tplan_run_def_init(&job->run);
    job->run_read = true;
    if (job->request) { /* a job to run: its request's run fields (cJSON: the store's text is whole) */
        cJSON *req = cJSON_Parse(job->request);
        job->run_read = cJSON_IsObject(req);
        const cJSON *fields = job->run_read ? req : NULL;
        const cJSON *f;
        cJSON_ArrayForEach(f, fields)
        {
            tplan_error e;
            if (tpRun_ReadJsonField(&job->run, f, &e) < 0) {
                job->run_read = false;
            }
        }
        cJSON_Delete(req);
    }
    job->run.time_limit = time_limit;
    return job->run_read;
}

/* The request as a job object shows it: a `set` string longer than SVC_SHOWN_SET_BYTES is shown as
 * {"bytes": N}. A request may carry 64 strings of 64 KiB, and the job object goes out in every
 * list, SSE event and GET: echoing them made each answer up to 4 MiB (the worker reads the stored
 * request, which keeps them whole). */
#define SVC_SHOWN_SET_BYTES 1024
static cJSON *shown_request(const svcJob *job)
{
    if (job->request_shown) { /* parsing a 4 MiB request for each SSE event cost more than all else */
        return cJSON_Parse(job->request_shown);
    }
    if (!job->request) {
        return NULL;
    }
    cJSON *req = job->request ? cJSON_Parse(job->request) : NULL;
    cJSON *set = cJSON_GetObjectItemCaseSensitive(req, "set");
    for (cJSON *v = set ? set->child : NULL; v; v = v->next) {
        if (cJSON_IsString(v) && strlen(v->valuestring) > SVC_SHOWN_SET_BYTES) {
            cJSON *b = cJSON_CreateObject();
            if (b) {
                cJSON_AddNumberToObject(b, "bytes", (double)strlen(v->valuestring));
                cJSON_ReplaceItemInObjectCaseSensitive(set, v->string, b); /* frees v */
                v = b;
            }
        }
    }
    /* a job object is built under svc->mu (active jobs) or from a private copy: the cache is safe */
    ((svcJob *)job)->request_shown = req ? tpJson_PrintChecked(req) : NULL;
    return req;
}

static cJSON *number_or_null(double v, bool set)
{
    return set && isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

cJSON *svcJobToCJson(const svcJob *job)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) {
        return NULL;
    }
    char url[96];
    cJSON_AddNumberToObject(o, "id", (double)job->id);
    cJSON_AddStringToObject(o, "status", svcStatusName(job->status));
    cJSON_AddStringToObject(o, "domain", job->domain ? job->domain : "");
    tpJson_Put(o, "name", job->name ? cJSON_CreateString(job->name) : cJSON_CreateNull());
    cJSON *tags = job->tags ? cJSON_Parse(job->tags) : NULL;
    tpJson_Put(o, "tags", cJSON_IsArray(tags) ? tags : cJSON_CreateArray());
    if (tags && !cJSON_IsArray(tags)) {
        cJSON_Delete(tags);
    }
    cJSON *req = shown_request(job);
    tpJson_Put(o, "request", req ? req : cJSON_CreateObject());
    cJSON_AddNumberToObject(o, "priority", job->priority);
    tpJson_Put(o, "run_at", job->run_at > 0 ? cJSON_CreateNumber(job->run_at) : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "retries", job->retries);
    cJSON_AddNumberToObject(o, "failures", job->failures);
    tpJson_Put(o, "retry_of", job->retry_of > 0 ? cJSON_CreateNumber((double)job->retry_of) : cJSON_CreateNull());
    tpJson_Put(o, "created", number_or_null(job->created, job->created > 0));
    tpJson_Put(o, "started", number_or_null(job->started, job->started > 0));
    tpJson_Put(o, "finished", number_or_null(job->finished, job->finished > 0));
    cJSON *p = cJSON_AddObjectToObject(o, "progress");
    if (p) {
        cJSON_AddNumberToObject(p, "iterations", (double)job->iterations);
        cJSON_AddNumberToObject(p, "nodes", (double)job->nodes);
        cJSON_AddNumberToObject(p, "solutions", job->solutions);
        tpJson_Put(p, "best_quality", number_or_null(job->best_quality, true));
        cJSON_AddNumberToObject(p, "elapsed", job->elapsed);
    }
    cJSON *sum = job->summary ? cJSON_Parse(job->summary) : NULL;
    tpJson_Put(o, "summary", sum ? sum : cJSON_CreateNull());
    if (job->err_code[0]) {
        cJSON *e = cJSON_AddObjectToObject(o, "error");
        if (e) {
            cJSON_AddStringToObject(e, "code", job->err_code);
            cJSON_AddStringToObject(e, "message", job->err_message ? job->err_message : "");
        }
    } else {
        cJSON_AddNullToObject(o, "error");
    }
    snprintf(url, sizeof url, "/v1/jobs/%lld/plan", (long long)job->id);
    tpJson_Put(o, "plan", job->has_plan ? cJSON_CreateString(url) : cJSON_CreateNull());
    /* a drain's hand-back kept its best plan: served by GET .../plan until the job ends */
    cJSON *interim = job->interim && !svcStatusFinal(job->status) ? cJSON_Parse(job->interim) : NULL;
    if (cJSON_IsObject(interim)) {
        cJSON_DeleteItemFromObjectCaseSensitive(interim, "summary"); /* the interrupted run's: kept for a stop */
        cJSON_AddStringToObject(interim, "url", url);
        tpJson_Put(o, "interim_plan", interim);
    } else {
        cJSON_Delete(interim);
        cJSON_AddNullToObject(o, "interim_plan");
    }
    snprintf(url, sizeof url, "/v1/jobs/%lld/tree", (long long)job->id);
    tpJson_Put(o, "tree", job->has_tree ? cJSON_CreateString(url) : cJSON_CreateNull());
    /* always linked: the log exists once the script printed (404 "printed nothing" until then) */
    snprintf(url, sizeof url, "/v1/jobs/%lld/log", (long long)job->id);
    cJSON_AddStringToObject(o, "log", url);
    return o;
}

const char *svcJobShownRequest(svcJob *job)
{
    if (!job->request_shown) {
        cJSON_Delete(shown_request(job)); /* sets job->request_shown */
    }
    return job->request_shown;
}

int64_t svcJobRecordBytes(const svcJob *job, bool with_script)
{
    return (int64_t)((job->request ? strlen(job->request) : 0) + (job->summary ? strlen(job->summary) : 0) +
                     (job->err_message ? strlen(job->err_message) : 0) + (with_script ? job->script_len : 0));
}

char *svcJobJson(const svcJob *job)
{
    cJSON *o = svcJobToCJson(job);
    char *s = o ? tpJson_PrintChecked(o) : NULL;
    cJSON_Delete(o);
    return s;
}

void svcJobPath(const tpService *svc, int64_t id, const char *name, char *out, size_t cap)
{
    if (name) {
        snprintf(out, cap, "%s/jobs/%lld/%s", svc->data_dir, (long long)id, name);
    } else {
        snprintf(out, cap, "%s/jobs/%lld", svc->data_dir, (long long)id);
    }
}

/* A job's folder holds only regular files written by its worker (plan.json, tree.bin and their
 * temporary names while being written): no subfolders, nothing to follow. */
int64_t svcJobFilesBytes(tpService *svc, int64_t id)
{
    char dir[4096];
    svcJobPath(svc, id, NULL, dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d) {
        return 0;
    }
    int64_t total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat sb;
        if (e->d_name[0] != '.' && fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode)) {
            total += (int64_t)sb.st_size;
        }
    }
    closedir(d);
    return total;
}

/* Removes the files of the flat folder dir and the folder, but what keep says (SVC_KEEP_LOG: a
 * non-empty log.txt; SVC_KEEP_INTERIM: the interim plan's interim.N.json). */
static void remove_folder(const char *dir, unsigned keep)
{
    DIR *d = opendir(dir);
    if (!d) {
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat sb; /* the worker creates the log at once: an empty one (nothing printed) goes too */
        bool log = (keep & SVC_KEEP_LOG) && strcmp(e->d_name, "log.txt") == 0 &&
                   fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && sb.st_size > 0;
        size_t len = strlen(e->d_name);
        bool interim = (keep & SVC_KEEP_INTERIM) && strncmp(e->d_name, "interim.", 8) == 0 && len > 13 &&
                       strcmp(e->d_name + len - 5, ".json") == 0;
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && !log && !interim) {
            unlinkat(dirfd(d), e->d_name, 0);
        }
    }
    closedir(d);
    rmdir(dir); /* fails while a file is kept: the folder stays with it */
}

void svcJobRemoveFiles(tpService *svc, int64_t id, unsigned keep)
{
    char dir[4096];
    svcJobPath(svc, id, NULL, dir, sizeof dir);
    remove_folder(dir, keep);
}

void svcInterimFile(int n, char *out, size_t cap)
{
    snprintf(out, cap, "interim.%d.json", n);
}

int svcInterimNumber(const svcJob *job)
{
    cJSON *o = job->interim ? cJSON_Parse(job->interim) : NULL;
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "n");
    int k = cJSON_IsNumber(n) && n->valuedouble >= 1 && n->valuedouble < 1e9 ? (int)n->valuedouble : 0;
    cJSON_Delete(o);
    return k;
}

bool svcJobDetachFiles(tpService *svc, int64_t id, char *out, size_t cap)
{
    char dir[4096];
    svcJobPath(svc, id, NULL, dir, sizeof dir);
    snprintf(out, cap, "%s/deleted", svc->data_dir);
    mkdir(out, 0755); /* EEXIST: there already */
    snprintf(out, cap, "%s/deleted/%lld", svc->data_dir, (long long)id);
    if (rename(dir, out) == 0) {
        return true;
    }
    svcJobRemoveFiles(svc, id, 0); /* no folder (ENOENT), or none could be made: at once */
    return false;
}

void svcRemoveDetached(const char *dir)
{
    remove_folder(dir, 0);
}

/* ---- views of the scheduler's state (mu held), shared by the scheduler, the stores and the metrics ---- */

int svcCountActive(tpService *svc, svcStatus status)
{
    int n = 0;
    for (int i = 0; i < svc->nactive; ++i) {
        n += svc->active[i]->status == status;
    }
    return n;
}

int svcCountBusy(tpService *svc, bool interactive)
{
    int n = 0;
    for (int i = interactive ? svc->nworkers : 0; i < (interactive ? svc->nprocs : svc->nworkers); ++i) {
        n += svc->workers[i].job != 0 || svc->workers[i].reserved_for != 0;
    }
    return n;
}

void svcWakeScheduler(tpService *svc)
{
    char c = 1;
    ssize_t r = write(svc->wake[1], &c, 1); /* non-blocking: a full pipe already wakes it */
    (void)r;
}

uint32_t svcLimitMask(const tpService *svc, const char *tags)
{
    if (!tags || svc->nlimits == 0) {
        return 0;
    }
    cJSON *arr = cJSON_Parse(tags);
    uint32_t mask = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, arr)
    {
        for (int l = 0; cJSON_IsString(t) && l < svc->nlimits; ++l) {
            mask |= strcmp(t->valuestring, svc->limit_tag[l]) == 0 ? 1u << l : 0u;
        }
    }
    cJSON_Delete(arr);
    return mask;
}
