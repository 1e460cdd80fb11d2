/* Plan-file test helpers shared by the plan tests (test_plan_sources.c, test_plan_goal.c, test_plan_joints.c,
 * test_plan_temporal.c, test_plan_control.c, test_plan_query.c): read and
 * write whole files, and "edit a written plan's text, expect the reader to refuse it". Files go in
 * the group's private directory (tmp_dir.h). */
#ifndef TP_TEST_PLAN_EDIT_H
#define TP_TEST_PLAN_EDIT_H

#include <stddef.h>

#include "tp/plan.h"

/// The bytes of the file at path (NUL-terminated, *len without the NUL; the caller frees); fails
/// the test if it cannot be read.
char *plan_slurp(const char *path, size_t *len);
/// Writes text (NUL-terminated) to path; fails the test on an error.
void plan_spit(const char *path, const char *text);
/// Writes rec to good.json, replaces the first `from` of its text by `to` into bad.json and expects
/// the reader to refuse that file with a message naming it and containing want, leaving the record
/// zeroed (checked). rec stays the caller's.
void plan_expect_edit_refused(const tpPlanRecord *rec, const char *from, const char *to, const char *want);
/// Zeroes rec and gives it a minimal header (domain `name`, file "<name>.lua", a hash, planner bgt,
/// status solved, dt 0.01) and nbodies zeroed bodies, for the member tests to build on.
void plan_header(tpPlanRecord *rec, const char *name, int nbodies);
/// Body i of rec: a static 0.1 m box named `name` at the origin.
void plan_static_body(tpPlanRecord *rec, int i, const char *name);
/// The same for a record made by build() (the test's own, filled from zero) and freed after.
void plan_expect_built_edit_refused(void (*build)(tpPlanRecord *), const char *from, const char *to, const char *want);
/// Writes rec to a.json, reads it back into *back (both must succeed), writes that to b.json and
/// expects the same bytes: the round trip of the member tests. Returns a.json's text (NUL-
/// terminated; the caller frees it and *back).
char *plan_round_trip(const tpPlanRecord *rec, tpPlanRecord *back);
/// Writes rec (a record without some member) to a.json and expects its text not to contain
/// `absent`; then, back not NULL, reads the file back into *back (which the caller frees).
void plan_expect_absent(const tpPlanRecord *rec, const char *absent, tpPlanRecord *back);
/// Expects the writer to refuse rec (to w.json) with a message containing want.
void plan_expect_write_refused(const tpPlanRecord *rec, const char *want);

#endif
