/* The service's request path under allocation failures, one at a time: a real HTTP server (the
 * service's own libmicrohttpd layer and routes, on loopback) over an SQLite store, without workers,
 * and a client here that sends each request below once to count the allocations of tplan's code
 * while the server answers it (cJSON's too, through the service's checked allocator), then again with the
 * n-th of them failing, for every n. Each answer must be clean: the request's own status, or a
 * 500 / 503 whose body is the service's JSON error, or -- when not even an error could be made -- the
 * connection closed without an answer; never a 4xx that blames the client for the server's lack of
 * memory, never a crash; the server answers /v1/health afterwards, and nothing leaks (the sanitizer
 * build: detect_leaks=1). The hook is tests/core/fault_hook.c (-Wl,--wrap, as test_store_faults). */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fault_hook.h"
#include "http_internal.h"
#include "service_internal.h"
#include "tp/json_text.h"

static char g_dir[] = "/tmp/tp_request_faults_XXXXXX";
static char g_spec[300];
static tpService g_svc;
static char *g_log;
static size_t g_log_len;

/* ---- a client ------------------------------------------------------------------------------- */

typedef struct Answer {
    int status; /* 0: the connection closed without an answer */
    char body[8192];
} Answer;

/* Sends one request (Connection: close) and reads the whole answer. */
static void request(const char *method, const char *path, const char *body, Answer *a)
{
    memset(a, 0, sizeof *a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)svcHttp_Port(&g_svc))};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    char head[512];
    int n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n",
                     method, path, body ? strlen(body) : 0);
    assert_true(write(fd, head, (size_t)n) == n);
    if (body) {
        assert_true(write(fd, body, strlen(body)) == (ssize_t)strlen(body));
    }
    char buf[16384];
    size_t got = 0;
    ssize_t r;
    while (got < sizeof buf - 1 && (r = read(fd, buf + got, sizeof buf - 1 - got)) > 0) {
        got += (size_t)r;
    }
    buf[got] = '\0';
    close(fd);
    if (sscanf(buf, "HTTP/1.1 %d", &a->status) != 1) {
        a->status = 0;
    }
    const char *b = strstr(buf, "\r\n\r\n");
    snprintf(a->body, sizeof a->body, "%s", b ? b + 4 : "");
}

/* ---- the server ------------------------------------------------------------------------------ */

static int start_server(void **state)
{
    (void)state;
    fault_reset(-1);
    memset(&g_svc, 0, sizeof g_svc);
    g_svc.def = tpDefaultServiceDef();
    g_svc.def.store = g_spec;
    g_svc.def.port = 0;
    g_svc.data_dir = g_dir;
    g_svc.log = open_memstream(&g_log, &g_log_len);
    pthread_mutex_init(&g_svc.mu, NULL);
    pthread_mutex_init(&g_svc.check_mu, NULL);
    pthread_cond_init(&g_svc.changed, NULL);
    if (pipe2(g_svc.wake, O_NONBLOCK | O_CLOEXEC) != 0) { /* the scheduler's wake-up, read by nobody here */
        return -1;
    }
    char err[1024] = "";
    if (!svcStore_Open(&g_svc, err, sizeof err) || !svcHttp_Start(&g_svc, svcRoute, err, sizeof err)) {
        fprintf(stderr, "cannot start the server: %s\n", err);
        return -1;
    }
    return 0;
}

static int stop_server(void **state)
{
    (void)state;
    fault_reset(-1);
    svcHttp_Stop(&g_svc);
    svcSched_Stop(&g_svc); /* no scheduler thread: frees the jobs the requests queued */
    svcStore_Close(&g_svc);
    close(g_svc.wake[0]);
    close(g_svc.wake[1]);
    fclose(g_svc.log);
    free(g_log);
    pthread_mutex_destroy(&g_svc.mu);
    pthread_mutex_destroy(&g_svc.check_mu);
    pthread_cond_destroy(&g_svc.changed);
    return 0;
}

/* ---- the requests ---------------------------------------------------------------------------- */

typedef struct Req {
    const char *what, *method, *path, *body;
    int status; /* its answer when nothing fails */
    bool same;  /* that answer's body is the same every time (no new job, no clock in it) */
} Req;

static const char k_script[] =
    "{\"script\":\"local tp = require 'tp'\\nreturn tp.domain { name = 'f', bodies = { tp.plane { name = 'g' } }, "
    "tactics = {}, goal = function(s) return true end }\\n\",\"seed\":3,\"name\":\"shot-1\",\"tags\":[\"a\",\"b\"],"
    "\"time_limit\":5,\"priority\":4}";

/* A clean answer of request q with allocation n failing. */
static void answered_cleanly(const Req *q, long n, const Answer *a, const Answer *usual)
{
    if (a->status == q->status && q->same && strcmp(a->body, usual->body) != 0) {
        fail_msg("%s, allocation %ld failing: %d, but not the usual answer:\n%s\nfor\n%s", q->what, n, a->status,
                 a->body, usual->body);
    }
    if (a->status == q->status || a->status == 0) {
        return; /* as without failures, or closed: not even an error could be made */
    }
    if (a->status != 500 && a->status != 503) {
        fail_msg("%s, allocation %ld failing: %d %s (expected %d, or 500/503 for the lack of memory)", q->what, n,
                 a->status, a->body, q->status);
    }
    cJSON *e = cJSON_Parse(a->body);
    const cJSON *err = e ? cJSON_GetObjectItemCaseSensitive(e, "error") : NULL;
    const cJSON *code = err ? cJSON_GetObjectItemCaseSensitive(err, "code") : NULL;
    if (!cJSON_IsString(code)) {
        fail_msg("%s, allocation %ld failing: %d without the JSON error body: %s", q->what, n, a->status, a->body);
    }
    cJSON_Delete(e);
}

static void every_failure(const Req *q)
{
    static Answer a, usual; /* 8 KB each: off the stack */
    fault_reset(-1);
    request(q->method, q->path, q->body, &a);
    fault_reset(-1);
    /* counted from the request's first byte to its answer's last: the server's work for it */
    fault_reset(-1);
    g_fault_calls = 0;
    request(q->method, q->path, q->body, &a);
    long total = g_fault_calls;
    usual = a;
    if (a.status != q->status) {
        fail_msg("%s: %d %s (expected %d)", q->what, a.status, a.body, q->status);
    }
    long errors = 0, closed = 0;
    for (long n = 1; n <= total; ++n) {
        fault_reset(n);
        request(q->method, q->path, q->body, &a);
        fault_reset(-1);
        answered_cleanly(q, n, &a, &usual);
        errors += a.status == 500 || a.status == 503;
        closed += a.status == 0;
        if (a.status == 201) { /* a job accepted with a failure on the way is whole when read back */
            cJSON *o = cJSON_Parse(a.body);
            const cJSON *id = o ? cJSON_GetObjectItemCaseSensitive(o, "id") : NULL;
            if (!cJSON_IsNumber(id)) {
                fail_msg("%s, allocation %ld failing: 201 without the job's id: %s", q->what, n, a.body);
            }
            char path[64];
            snprintf(path, sizeof path, "/v1/jobs/%lld", (long long)id->valuedouble);
            cJSON_Delete(o);
            static Answer j;
            request("GET", path, NULL, &j);
            o = cJSON_Parse(j.body);
            const cJSON *req = o ? cJSON_GetObjectItemCaseSensitive(o, "request") : NULL;
            const cJSON *name = o ? cJSON_GetObjectItemCaseSensitive(o, "name") : NULL;
            const cJSON *tags = o ? cJSON_GetObjectItemCaseSensitive(o, "tags") : NULL;
            if (j.status != 200 || !cJSON_IsObject(req) || !cJSON_IsString(name) || cJSON_GetArraySize(tags) != 2 ||
                !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(req, "seed"))) {
                fail_msg("%s, allocation %ld failing: the job accepted reads back as %d %s", q->what, n, j.status,
                         j.body);
            }
            cJSON_Delete(o);
        }
        Answer h;
        request("GET", "/v1/health", NULL, &h);
        if (h.status != 200) {
            fail_msg("%s, allocation %ld failing: the server's health after it: %d %s", q->what, n, h.status, h.body);
        }
    }
    printf("%s: %ld allocations, %ld runs with one failing: %ld answered 500/503, %ld closed, the rest as usual\n",
           q->what, total, total, errors, closed);
}

static const Req k_requests[] = {
    {"POST /v1/jobs with a script", "POST", "/v1/jobs", k_script, 201, false},
    {"GET /v1/jobs/1", "GET", "/v1/jobs/1", NULL, 200, true},
    {"GET /v1/jobs?tag=a", "GET", "/v1/jobs?tag=a&limit=5", NULL, 200, true},
    {"GET /v1/health", "GET", "/v1/health", NULL, 200, false},
    {"GET /metrics", "GET", "/metrics", NULL, 200, false},
    {"POST /v1/jobs with a bad field", "POST", "/v1/jobs", "{\"script\":\"return 1\",\"seed\":-5}", 400, true},
};

static void test_submit(void **state)
{
    (void)state;
    every_failure(&k_requests[0]);
}

static void test_reads(void **state)
{
    (void)state;
    for (int i = 1; i < 5; ++i) {
        every_failure(&k_requests[i]);
    }
}

static void test_refusal(void **state)
{
    (void)state;
    every_failure(&k_requests[5]);
}

int main(void)
{
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(g_spec, sizeof g_spec, "sqlite:%s/tplan.db", g_dir);
    tpJson_UseCheckedAllocator(); /* as tpRunService: cJSON's allocations are tplan's (so the hook's too) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_submit),
        cmocka_unit_test(test_reads),
        cmocka_unit_test(test_refusal),
    };
    int rc = cmocka_run_group_tests(tests, start_server, stop_server);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "could not remove %s\n", g_dir);
    }
    return rc;
}
