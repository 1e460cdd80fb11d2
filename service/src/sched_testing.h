/* tplan service: the scheduler's policy, a pure function of the active jobs, and its deadline
 * arithmetic (sched.c), for the scheduler (service_internal.h includes this) and its unit test
 * (tests/service/test_sched_policy.c includes only this header of the scheduler's). */
#ifndef TP_SERVICE_SCHED_TESTING_H
#define TP_SERVICE_SCHED_TESTING_H

#include <stdbool.h>

struct svcJob;

/// The queued job a free worker takes next among active[0..nactive) (queued and running jobs):
/// synchronous (POST /v1/plan) jobs first; then the highest priority (the request's "priority");
/// within a priority, the job of the client with the fewest jobs
/// running (fairness: a client holding both workers does not take the next one before another
/// client's job; a job whose client is unknown, "" after a restart, counts none); the oldest
/// (smallest id) among equals. A job whose run_at (unix s) is after now is not due: never taken.
/// NULL when none is queued and due.
struct svcJob *svcSched_Pick(struct svcJob *const *active, int nactive, double now);
/// svcSched_Pick under concurrency limits: a queued job whose limit_mask has a bit i set while
/// limit_max[i] jobs with that bit already run is not taken (the next one in the order may be);
/// nlimits 0 (limit_max NULL) is svcSched_Pick.
struct svcJob *svcSched_PickLimited(struct svcJob *const *active, int nactive, double now, const int *limit_max,
                                    int nlimits);

/// When a synchronous job's search must end (unix s): its deadline less the reserve for writing the
/// plan and answering, 1.5 times the longest of the last nspent measured costs spent[] (s from a
/// search's end to its plan being ready) plus 0.01 s, or 0.08 s before any was measured; at most
/// half the time from the job's creation to its deadline.
double svcSched_AnswerBy(double deadline, double created, const double *spent, int nspent);
/// The planner's time limit (s) of a job started at now (unix s): its own time_limit, or for a
/// synchronous job what is left until answer_by, within its time_limit and at least 0.01 s.
double svcSched_TimeLimit(bool sync, double time_limit, double answer_by, double now);
/// When the worker of a job started at `started` (s, the scheduler's clock) with the planner's
/// time limit `limit` is killed: 10 s and 10 % of the limit past it.
double svcSched_HardDeadline(double started, double limit);

#endif
