/* The service's invariants (service/src/validate.c): a consistent scheduler state and metrics pass,
 * and each rule fails on a state corrupted to break it, naming what broke. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "service_internal.h"

typedef struct Fixture {
    tpService svc;
    svcJob jobs[3];
    svcJob *active[3];
    svcWorker workers[3];
    char buf[16];
} Fixture;

/* Two batch workers and one interactive: job 1 queued, job 2 running on worker 1, job 3 queued. */
static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    f->svc.active = f->active;
    f->svc.cap_active = 3;
    f->svc.nactive = 3;
    f->svc.workers = f->workers;
    f->svc.nworkers = 2;
    f->svc.ninteractive = 1;
    f->svc.nprocs = 3;
    for (int i = 0; i < 3; ++i) {
        f->jobs[i].id = i + 1;
        f->jobs[i].status = SVC_QUEUED;
        f->jobs[i].worker = -1;
        f->jobs[i].jobs = 1;
        f->jobs[i].run.time_limit = 10;
        f->active[i] = &f->jobs[i];
        f->workers[i].pid = 100 + i;
        f->workers[i].in_fd = 10 + i;
        f->workers[i].ev_fd = 20 + i;
        f->workers[i].interactive = i == 2;
    }
    f->jobs[1].status = SVC_RUNNING;
    f->jobs[1].worker = 1;
    f->workers[1].job = 2;
    f->workers[1].buf = f->buf;
    f->workers[1].cap = sizeof f->buf;
    f->workers[1].len = 3;
    f->svc.metrics.plan_hist[2] = 2;
    f->svc.metrics.plan_hist[SVC_HIST_BUCKETS] = 1;
    f->svc.metrics.plan_count = 3;
    f->svc.metrics.plan_sum = 4.5;
    f->svc.metrics.jobs_finished[SVC_SOLVED] = 2;
    f->svc.metrics.jobs_finished[SVC_APPROXIMATE] = 1;
    f->svc.metrics.jobs_finished[SVC_FAILED] = 7;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

/* The rule broken names itself: why contains `words`. */
static void fails(Fixture *f, const char *words)
{
    char why[320] = "";
    assert_false(svcValid_Scheduler(&f->svc, why, sizeof why) && svcValid_Metrics(&f->svc.metrics, why, sizeof why));
    if (!strstr(why, words)) {
        fail_msg("expected '%s' in: %s", words, why);
    }
}

static void test_consistent(void **state)
{
    Fixture *f = *state;
    char why[320] = "";
    assert_true(svcValid_Scheduler(&f->svc, why, sizeof why));
    assert_true(svcValid_Metrics(&f->svc.metrics, why, sizeof why));
    assert_true(svcValid_Scheduler(&f->svc, NULL, 0)); /* why may be NULL */
    f->jobs[2].status = SVC_SOLVED;                    /* a final job waiting to be stored again */
    f->jobs[2].unstored = true;
    assert_true(svcValid_Scheduler(&f->svc, why, sizeof why));
}

static void test_active_list(void **state)
{
    Fixture *f = *state;
    f->svc.nactive = 4;
    fails(f, "active list: 4 jobs in room for 3");
    f->svc.nactive = 3;
    f->active[1] = NULL;
    fails(f, "active[1]: NULL");
    f->active[1] = &f->jobs[1];
    f->jobs[2].id = 1;
    fails(f, "job 1: twice in the active list (0 and 2)");
    f->jobs[2].id = 0;
    fails(f, "active[2]: an id <= 0");
}

static void test_job_states(void **state)
{
    Fixture *f = *state;
    f->jobs[0].status = SVC_CANCELLED;
    fails(f, "job 1: cancelled but active");
    f->jobs[0].status = SVC_RUNNING;
    fails(f, "job 1: running on no worker");
    f->jobs[0].status = SVC_QUEUED;
    f->jobs[0].worker = 0;
    fails(f, "job 1: queued but on worker 0");
    f->jobs[0].worker = 5;
    fails(f, "job 1: worker 5 of 3");
    f->jobs[0].worker = -1;
    f->jobs[0].jobs = 0;
    fails(f, "job 1: jobs 0");
    f->jobs[0].jobs = 1;
    f->jobs[0].sync = true; /* POST /v1/plan: answered by its deadline */
    fails(f, "job 1: synchronous without a deadline (0)");
    f->jobs[0].sync_deadline = 1e9;
    char why[320] = "";
    assert_true(svcValid_Scheduler(&f->svc, why, sizeof why));
}

static void test_sync_reserve(void **state)
{
    Fixture *f = *state;
    char why[320] = "";
    f->svc.sync_spent[0] = 0.2, f->svc.sync_spent[1] = 0.05;
    f->svc.nsync_spent = 2, f->svc.sync_next = 2;
    assert_true(svcValid_Scheduler(&f->svc, why, sizeof why));
    f->svc.sync_next = SVC_SYNC_SAMPLES;
    fails(f, "sync reserve: 2 samples, next at 32, of 32");
    f->svc.sync_next = 2;
    f->svc.sync_spent[1] = -0.5;
    fails(f, "sync reserve: sample 1 is -0.5 s");
    f->svc.sync_spent[1] = 0.05;
    assert_true(svcValid_Scheduler(&f->svc, why, sizeof why));
}

static void test_limits(void **state)
{
    Fixture *f = *state;
    f->svc.nlimits = 1;
    snprintf(f->svc.limit_tag[0], sizeof f->svc.limit_tag[0], "gpu");
    f->svc.limit_max[0] = 1;
    f->jobs[0].limit_mask = 1u; /* queued: not counted */
    f->jobs[1].limit_mask = 1u; /* running: 1 of 1 */
    char why[320] = "";
    assert_true(svcValid_Scheduler(&f->svc, why, sizeof why));
    f->jobs[0].status = SVC_RUNNING; /* job 1 on worker 0 too: 2 of 1 */
    f->jobs[0].worker = 0;
    f->workers[0].job = 1;
    fails(f, "limit 'gpu': 2 jobs running, at most 1");
    f->jobs[0].status = SVC_QUEUED;
    f->jobs[0].worker = -1;
    f->workers[0].job = 0;
    assert_true(svcValid_Scheduler(&f->svc, why, sizeof why));
    /* the table itself */
    f->svc.nlimits = TP_SERVICE_MAX_LIMITS + 1;
    fails(f, "limits: 33 of at most 32");
    f->svc.nlimits = 2;
    snprintf(f->svc.limit_tag[1], sizeof f->svc.limit_tag[1], "gpu");
    f->svc.limit_max[1] = 3;
    fails(f, "limit 1: tag 'gpu' is limit 0's too");
    f->svc.limit_tag[1][0] = '\0';
    fails(f, "limit 1: tag '', at most 3 running");
    f->svc.nlimits = 1;
    f->svc.limit_max[0] = 0;
    fails(f, "limit 0: tag 'gpu', at most 0 running");
    f->svc.limit_max[0] = 1;
    f->jobs[2].limit_mask = 2u; /* a limit the table does not have */
    fails(f, "job 3: limit mask 0x2 for 1 limits");
}

static void test_workers(void **state)
{
    Fixture *f = *state;
    f->workers[1].job = 3;
    fails(f, "job 2: on worker 1, which runs job 3");
    f->workers[1].job = 2;
    f->workers[0].job = 1;
    fails(f, "worker 0: runs job 1, which is not active on it");
    f->workers[0].job = 0;
    f->workers[1].reserved_for = 3;
    fails(f, "worker 1: runs job 2 and is reserved for job 3");
    f->workers[1].reserved_for = 0;
    f->workers[2].interactive = false;
    fails(f, "worker 2: batch, but in the interactive range");
    f->workers[2].interactive = true;
    f->workers[0].ev_fd = -1;
    fails(f, "worker 0: pid 100 without its pipes");
    f->workers[0].ev_fd = 20;
    f->workers[1].len = 17;
    fails(f, "worker 1: event buffer 17 of 16 bytes");
    f->workers[1].len = 3;
    f->workers[1].job_started = 100, f->workers[1].job_limit = 10, f->workers[1].hard_deadline = 121;
    assert_true(svcValid_Scheduler(&f->svc, NULL, 0));
    f->workers[1].hard_deadline = 99;
    fails(f, "worker 1: job sent at 100 with a limit of 10 s, killed at 99");
    f->workers[1].hard_deadline = 121;
    f->svc.nprocs = 4;
    fails(f, "workers: 4 processes for 2 batch + 1 interactive");
}

static void test_metrics(void **state)
{
    Fixture *f = *state;
    f->svc.metrics.plan_hist[0] = 1;
    fails(f, "metrics: 4 planning times in the histogram, 3 counted");
    f->svc.metrics.plan_hist[0] = 0;
    f->svc.metrics.jobs_finished[SVC_SOLVED] = 1;
    fails(f, "metrics: 3 planning times for 2 solved or approximate jobs");
    f->svc.metrics.jobs_finished[SVC_SOLVED] = 2;
    f->svc.metrics.plan_sum = -1;
    fails(f, "metrics: planning seconds -1 over 3 jobs");
    f->svc.metrics.plan_sum = 4.5;
    f->svc.metrics.jobs_finished[SVC_RUNNING] = 1;
    fails(f, "metrics: 0 queued and 1 running jobs counted as finished");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_consistent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_active_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_states, setup, teardown),
        cmocka_unit_test_setup_teardown(test_workers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync_reserve, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
