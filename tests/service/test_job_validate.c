/* The service's invariants of a job's record, its status changes and a request's parse result
 * (service/src/job_validate.c): a record, a change and a request as the code leaves them pass, and
 * each rule, broken once on purpose (then restored), fails with its own message -- so a rule that
 * can never fail would show here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "break_rule.h"
#include "http_internal.h"

static char g_domain[] = "minigolf";
static double g_series[2][3] = {{0.5, NAN, 10}, {1.0, 0.25, 40}};

/* Job 7, running since t = 1000 s (a retry of job 3, on its second attempt). */
static svcJob running_job(void)
{
    svcJob j;
    memset(&j, 0, sizeof j);
    j.id = 7;
    j.status = SVC_RUNNING;
    j.domain = g_domain;
    j.created = 990, j.started = 1000;
    j.iterations = 120, j.nodes = 300, j.solutions = 1, j.best_quality = 0.25, j.elapsed = 1.5;
    j.series = g_series, j.nseries = 2;
    j.priority = 5, j.retries = 2, j.failures = 1, j.retry_of = 3, j.attempt = 2;
    snprintf(j.client, sizeof j.client, "127.0.0.1");
    return j;
}

static void test_job(void **state)
{
    (void)state;
    svcJob j = running_job();
    EXPECT_VALID(svcValid_Job, &j);
    assert_true(svcValid_Job(&j, NULL, 0)); /* why may be NULL */
    BREAK_RULE(svcValid_Job, &j, j.id, 0, "job: id 0");
    BREAK_RULE(svcValid_Job, &j, j.status, SVC_NSTATUS, "job 7: status 6");
    BREAK_RULE(svcValid_Job, &j, j.domain, NULL, "job 7: no domain");
    BREAK_RULE(svcValid_Job, &j, j.created, NAN, "job 7: created at nan");
    BREAK_RULE(svcValid_Job, &j, j.status, SVC_QUEUED,
               "job 7: queued, yet started at 1000, finished at 0, 120 iterations");
    BREAK_RULE(svcValid_Job, &j, j.finished, 1003, "job 7: running, started at 1000, finished at 1003");
    BREAK_RULE(svcValid_Job, &j, j.status, SVC_SOLVED, "job 7: solved, finished at 0");
    BREAK_RULE(svcValid_Job, &j, j.nodes, -1, "job 7: 120 iterations, -1 nodes, 1 solutions, 1.5 s");
    BREAK_RULE(svcValid_Job, &j, j.nseries, SVC_SERIES_POINTS + 1, "job 7: 65 progress rows, at most 64");
    BREAK_RULE(svcValid_Job, &j, j.priority, SVC_PRIORITY_MAX + 1, "job 7: priority 101");
    BREAK_RULE(svcValid_Job, &j, j.failures, 3, "job 7: 3 failures of 2 retries, 0 failed reads");
    BREAK_RULE(svcValid_Job, &j, j.retry_of, 7, "job 7: runs job 7 again");
    BREAK_RULE(svcValid_Job, &j, j.run_at, -1, "job 7: run at -1");
    BREAK_TERMINATION(svcValid_Job, &j, j.client, "job 7: an error code, client or control message not terminated");
    snprintf(j.err_code, sizeof j.err_code, "cancelled");
    EXPECT_BROKEN(svcValid_Job, &j, "job 7: running with error 'cancelled'");
    j.err_code[0] = '\0';
    BREAK_RULE(svcValid_Job, &j, j.ctl, 'q', "job 7: control request 'q'");
    BREAK_RULE(svcValid_Job, &j, j.attempt, -1, "job 7: attempt -1");
    /* its end: cancelled, its files removed */
    j.status = SVC_CANCELLED, j.finished = 1003;
    snprintf(j.err_code, sizeof j.err_code, "cancelled");
    EXPECT_VALID(svcValid_Job, &j);
    BREAK_RULE(svcValid_Job, &j, j.has_tree, true, "job 7: cancelled with a plan, a tree or 0 bytes of files");
    BREAK_RULE(svcValid_Job, &j, j.interim, (char *)"{\"n\":1}", "job 7: cancelled with an interim plan");
    /* queued again (after a crash): started and progress cleared */
    j = running_job();
    j.status = SVC_QUEUED, j.started = 0, j.iterations = j.nodes = 0, j.solutions = 0, j.nseries = 0;
    EXPECT_VALID(svcValid_Job, &j);
    j.interim = (char *)"{\"n\":1}"; /* a drain's hand-back: queued with its interim plan */
    EXPECT_VALID(svcValid_Job, &j);
    j.interim = NULL;
}

static void test_status_change(void **state)
{
    (void)state;
    svcStatusChange c = {SVC_QUEUED, SVC_RUNNING, false, false};
    EXPECT_VALID(svcValid_StatusChange, &c);
    BREAK_RULE(svcValid_StatusChange, &c, c.to, (svcStatus)-1, "status change: 0 to -1");
    BREAK_RULE(svcValid_StatusChange, &c, c.from, SVC_SOLVED, "status change: solved to running of a final job");
    BREAK_RULE(svcValid_StatusChange, &c, c.again, true,
               "status change: queued to running written again, but not a final job's own end");
    BREAK_RULE(svcValid_StatusChange, &c, c.to, SVC_APPROXIMATE,
               "status change: queued to approximate (a plan comes from a run)");
    c.to = SVC_APPROXIMATE, c.interim = true; /* a stop of a queued job with an interim plan keeps it */
    EXPECT_VALID(svcValid_StatusChange, &c);
    BREAK_RULE(svcValid_StatusChange, &c, c.to, SVC_SOLVED,
               "status change: queued to solved (a plan comes from a run)");
    c.to = SVC_RUNNING, c.interim = false;
    c.from = SVC_RUNNING, c.to = SVC_QUEUED; /* a crash with retries left, or a restart */
    EXPECT_VALID(svcValid_StatusChange, &c);
    BREAK_RULE(svcValid_StatusChange, &c, c.to, SVC_RUNNING,
               "status change: running to running (only a queued job starts)");
    c.from = c.to = SVC_FAILED, c.again = true; /* retry_unstored */
    EXPECT_VALID(svcValid_StatusChange, &c);
    c.from = SVC_QUEUED, c.to = SVC_CANCELLED, c.again = false;
    EXPECT_VALID(svcValid_StatusChange, &c);
}

static void test_request(void **state)
{
    (void)state;
    tpService svc;
    static char body[32] = "{\"domain\": \"pool\"}";
    svcReq *rq = calloc(1, sizeof *rq);
    assert_non_null(rq);
    rq->svc = &svc;
    rq->conn = (struct MHD_Connection *)&svc; /* never used: a stand-in */
    rq->route = "/v1/jobs";
    snprintf(rq->method, sizeof rq->method, "POST");
    snprintf(rq->path, sizeof rq->path, "/v1/jobs");
    rq->t0 = 1.7e9;
    rq->body = body, rq->len = strlen(body), rq->cap = sizeof body;
    snprintf(rq->headers[0][0], sizeof rq->headers[0][0], "Location");
    snprintf(rq->headers[0][1], sizeof rq->headers[0][1], "/v1/jobs/7");
    rq->nheaders = 1;
    EXPECT_VALID(svcValid_Request, rq);
    BREAK_RULE(svcValid_Request, rq, rq->route, NULL, "request: no route");
    BREAK_TERMINATION(svcValid_Request, rq, rq->path, "request: method or path not terminated, or no method");
    BREAK_RULE(svcValid_Request, rq, rq->t0, 0, "request: arrived at 0");
    BREAK_RULE(svcValid_Request, rq, rq->len, 32, "request: a body of 32 bytes in 32");
    BREAK_RULE(svcValid_Request, rq, body[rq->len], 'x', "request: the body of 18 bytes not terminated");
    BREAK_RULE(svcValid_Request, rq, rq->too_big, true, "request: too big, yet a body of 18 bytes kept");
    BREAK_RULE(svcValid_Request, rq, rq->nheaders, SVC_MAX_HEADERS + 1, "request: 13 response headers, at most 12");
    BREAK_RULE(svcValid_Request, rq, rq->headers[0][0][0], '\0',
               "request: response header 0 unnamed or not terminated");
    /* no body (a GET), or one too big to keep */
    rq->body = NULL, rq->len = rq->cap = 0, rq->too_big = true;
    EXPECT_VALID(svcValid_Request, rq);
    free(rq);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job),
        cmocka_unit_test(test_status_change),
        cmocka_unit_test(test_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
