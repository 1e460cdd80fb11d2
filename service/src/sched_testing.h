/* tplan service: the scheduler's policy, a pure function of the active jobs (sched.c), for the
 * scheduler (service_internal.h includes this) and its unit test (tests/service/test_sched_policy.c
 * includes only this header of the scheduler's). */
#ifndef TP_SERVICE_SCHED_TESTING_H
#define TP_SERVICE_SCHED_TESTING_H

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

#endif
