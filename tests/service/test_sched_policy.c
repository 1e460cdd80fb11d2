/* The scheduler's choice of the next job and its deadline arithmetic (service/src/sched_testing.h),
 * without processes: the priorities docs/service.md promises, case by case, and the time limits of
 * asynchronous and synchronous jobs, a synchronous job's reserve, the hard deadline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "service_internal.h"

static svcJob jobs[16];

static svcJob *job(int i, int64_t id, svcStatus st, bool sync, const char *client)
{
    memset(&jobs[i], 0, sizeof jobs[i]);
    jobs[i].id = id;
    jobs[i].status = st;
    jobs[i].sync = sync;
    snprintf(jobs[i].client, sizeof jobs[i].client, "%s", client);
    return &jobs[i];
}

static void test_nothing_queued(void **state)
{
    (void)state;
    assert_null(svcSched_Pick(NULL, 0, 0));
    svcJob *a[2] = {job(0, 1, SVC_RUNNING, false, "a"), job(1, 2, SVC_RUNNING, true, "b")};
    assert_null(svcSched_Pick(a, 2, 0));
}

static void test_oldest_first(void **state)
{
    (void)state;
    svcJob *a[3] = {job(0, 9, SVC_QUEUED, false, "a"), job(1, 4, SVC_QUEUED, false, "a"),
                    job(2, 7, SVC_QUEUED, false, "a")};
    assert_ptr_equal(svcSched_Pick(a, 3, 0), a[1]);
}

static void test_synchronous_first(void **state)
{
    (void)state;
    /* a game's /v1/plan job, newer and from a client already running two, still goes first */
    svcJob *a[5] = {job(0, 1, SVC_QUEUED, false, "studio"), job(1, 2, SVC_RUNNING, false, "game"),
                    job(2, 3, SVC_RUNNING, false, "game"), job(3, 8, SVC_QUEUED, true, "game"),
                    job(4, 5, SVC_QUEUED, true, "other")};
    assert_ptr_equal(svcSched_Pick(a, 5, 0), a[4]); /* among synchronous ones: fewer running, then oldest */
    a[4]->status = SVC_RUNNING;
    assert_ptr_equal(svcSched_Pick(a, 5, 0), a[3]);
}

static void test_fewest_running_client_first(void **state)
{
    (void)state;
    /* client "a" holds both workers and queued the oldest job: "b"'s newer job goes first */
    svcJob *a[4] = {job(0, 1, SVC_RUNNING, false, "a"), job(1, 2, SVC_RUNNING, false, "a"),
                    job(2, 3, SVC_QUEUED, false, "a"), job(3, 6, SVC_QUEUED, false, "b")};
    assert_ptr_equal(svcSched_Pick(a, 4, 0), a[3]);
    /* equal running counts: the oldest */
    a[1]->client[0] = 'b';
    assert_ptr_equal(svcSched_Pick(a, 4, 0), a[2]);
}

static void test_unknown_client_counts_none(void **state)
{
    (void)state;
    /* after a restart queued jobs have no client: they count no running job, oldest first */
    svcJob *a[4] = {job(0, 1, SVC_RUNNING, false, ""), job(1, 2, SVC_QUEUED, false, "a"),
                    job(2, 5, SVC_QUEUED, false, ""), job(3, 3, SVC_RUNNING, false, "a")};
    assert_ptr_equal(svcSched_Pick(a, 4, 0), a[2]);
}

static void test_higher_priority_first(void **state)
{
    (void)state;
    /* a newer job of priority 5 goes before older ones of priority 0 and -3, even from a client
       already running one; within a priority, FIFO (the oldest) */
    svcJob *a[6] = {job(0, 1, SVC_QUEUED, false, "a"),  job(1, 2, SVC_QUEUED, false, "b"),
                    job(2, 9, SVC_QUEUED, false, "c"),  job(3, 7, SVC_QUEUED, false, "c"),
                    job(4, 3, SVC_RUNNING, false, "c"), job(5, 4, SVC_QUEUED, false, "d")};
    a[1]->priority = -3;
    a[2]->priority = 5;
    a[3]->priority = 5;
    a[5]->priority = -3;
    assert_ptr_equal(svcSched_Pick(a, 6, 0), a[3]); /* 5 before 0 and -3; 7 before 9 */
    a[3]->status = SVC_RUNNING;
    assert_ptr_equal(svcSched_Pick(a, 6, 0), a[2]); /* still 5: its client runs two now */
    a[2]->status = SVC_RUNNING;
    assert_ptr_equal(svcSched_Pick(a, 6, 0), a[0]); /* 0 before -3 */
    a[0]->status = SVC_RUNNING;
    assert_ptr_equal(svcSched_Pick(a, 6, 0), a[1]); /* -3: the oldest */
    /* negative priorities only: the higher (less negative) first */
    a[1]->priority = -100;
    assert_ptr_equal(svcSched_Pick(a, 6, 0), a[5]);
}

static void test_synchronous_before_any_priority(void **state)
{
    (void)state;
    /* a /v1/plan job of priority -100 still goes before a batch job of priority 100; among
       synchronous jobs, the priority orders them too */
    svcJob *a[3] = {job(0, 1, SVC_QUEUED, false, "a"), job(1, 5, SVC_QUEUED, true, "b"),
                    job(2, 6, SVC_QUEUED, true, "b")};
    a[0]->priority = 100;
    a[1]->priority = -100;
    a[2]->priority = -99;
    assert_ptr_equal(svcSched_Pick(a, 3, 0), a[2]);
    a[2]->status = SVC_RUNNING;
    assert_ptr_equal(svcSched_Pick(a, 3, 0), a[1]);
}

static void test_not_before_run_at(void **state)
{
    (void)state;
    /* a scheduled job (run_at after now) is not taken, whatever its priority or age; at its time it is */
    svcJob *a[3] = {job(0, 1, SVC_QUEUED, false, "a"), job(1, 2, SVC_QUEUED, false, "a"),
                    job(2, 3, SVC_QUEUED, false, "a")};
    a[0]->run_at = 1000.0;
    a[0]->priority = 100;
    a[1]->run_at = 500.0;
    assert_ptr_equal(svcSched_Pick(a, 3, 100.0), a[2]);
    a[2]->status = SVC_RUNNING;
    assert_null(svcSched_Pick(a, 3, 499.9));
    assert_ptr_equal(svcSched_Pick(a, 3, 500.0), a[1]);
    assert_ptr_equal(svcSched_Pick(a, 3, 1000.0), a[0]); /* both due: the higher priority */
}

static void test_concurrency_limits(void **state)
{
    (void)state;
    /* limit 0 (bit 0) at most 1, limit 1 (bit 1) at most 2: a job of a full limit is passed over,
       the next in the order taken; a job under two limits waits for both */
    const int max[2] = {1, 2};
    svcJob *a[5] = {job(0, 1, SVC_RUNNING, false, "a"), job(1, 2, SVC_QUEUED, false, "a"),
                    job(2, 3, SVC_QUEUED, false, "a"), job(3, 4, SVC_QUEUED, false, "a"),
                    job(4, 5, SVC_QUEUED, false, "a")};
    a[0]->limit_mask = 1u;
    a[1]->limit_mask = 1u;      /* limit 0 is full */
    a[2]->limit_mask = 1u | 2u; /* limit 0 full too */
    a[3]->limit_mask = 2u;
    assert_ptr_equal(svcSched_PickLimited(a, 5, 0, max, 2), a[3]);
    assert_ptr_equal(svcSched_Pick(a, 5, 0), a[1]); /* no limits: the oldest */
    a[3]->status = SVC_RUNNING;
    assert_ptr_equal(svcSched_PickLimited(a, 5, 0, max, 2), a[4]);
    a[4]->status = SVC_RUNNING;
    assert_null(svcSched_PickLimited(a, 5, 0, max, 2));
    a[0]->status = SVC_SOLVED; /* limit 0 frees: the oldest of it */
    assert_ptr_equal(svcSched_PickLimited(a, 5, 0, max, 2), a[1]);
    a[1]->status = SVC_RUNNING;
    a[3]->limit_mask = 1u | 2u; /* now a[1] holds limit 0 and a[3] both: a[2] (both) waits */
    assert_null(svcSched_PickLimited(a, 5, 0, max, 2));
    a[1]->status = SVC_CANCELLED;
    a[3]->limit_mask = 2u; /* limit 0 free, limit 1 has a[3]: a[2] needs one more of limit 1: fits (2) */
    assert_ptr_equal(svcSched_PickLimited(a, 5, 0, max, 2), a[2]);
}

/* ---- the deadline arithmetic ------------------------------------------------------------------- */

static void test_asynchronous_time_limit_is_its_own(void **state)
{
    (void)state;
    /* a job of POST /v1/jobs plans for its time_limit whatever the clock says */
    assert_true(svcSched_TimeLimit(false, 20.0, 0.0, 1000.0) == 20.0);
    assert_true(svcSched_TimeLimit(false, 20.0, 900.0, 1000.0) == 20.0);
}

static void test_synchronous_time_limit_ends_at_its_answer(void **state)
{
    (void)state;
    /* POST /v1/plan?wait: the search ends at answer_by, within the job's own limit */
    assert_true(svcSched_TimeLimit(true, 20.0, 1002.5, 1000.0) == 2.5);
    assert_true(svcSched_TimeLimit(true, 1.0, 1002.5, 1000.0) == 1.0);
    /* already late: the shortest search, never a negative or zero limit (0 would mean none) */
    assert_true(svcSched_TimeLimit(true, 20.0, 999.0, 1000.0) == 0.01);
    assert_true(svcSched_TimeLimit(true, 20.0, 1000.0, 1000.0) == 0.01);
}

static void test_answer_by_keeps_a_reserve(void **state)
{
    (void)state;
    /* before any measure: 0.08 s before the deadline */
    assert_true(fabs(svcSched_AnswerBy(110.0, 100.0, NULL, 0) - 109.92) < 1e-9);
    /* measured: 1.5 times the longest of the last costs plus 0.01 s */
    const double spent[] = {0.1, 0.4, 0.2};
    assert_true(fabs(svcSched_AnswerBy(110.0, 100.0, spent, 3) - (110.0 - 0.61)) < 1e-9);
    /* only the first nspent count */
    assert_true(fabs(svcSched_AnswerBy(110.0, 100.0, spent, 1) - (110.0 - 0.16)) < 1e-9);
    /* never more than half the wait: a 0.5 s wait keeps at least 0.25 s of search */
    assert_true(fabs(svcSched_AnswerBy(100.5, 100.0, spent, 3) - 100.25) < 1e-9);
}

static void test_hard_deadline(void **state)
{
    (void)state;
    /* 10 s and 10 % of the limit past the limit */
    assert_true(fabs(svcSched_HardDeadline(50.0, 20.0) - 82.0) < 1e-9);
    assert_true(fabs(svcSched_HardDeadline(50.0, 0.01) - 60.011) < 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_queued),
        cmocka_unit_test(test_oldest_first),
        cmocka_unit_test(test_synchronous_first),
        cmocka_unit_test(test_fewest_running_client_first),
        cmocka_unit_test(test_unknown_client_counts_none),
        cmocka_unit_test(test_higher_priority_first),
        cmocka_unit_test(test_synchronous_before_any_priority),
        cmocka_unit_test(test_not_before_run_at),
        cmocka_unit_test(test_concurrency_limits),
        cmocka_unit_test(test_asynchronous_time_limit_is_its_own),
        cmocka_unit_test(test_synchronous_time_limit_ends_at_its_answer),
        cmocka_unit_test(test_answer_by_keeps_a_reserve),
        cmocka_unit_test(test_hard_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
