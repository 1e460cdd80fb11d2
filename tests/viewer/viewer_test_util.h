/* Helpers shared by the viewer's end-to-end tests (test_viewer_frames, _nav, _view): running
 * tplan through the shell, reading and writing whole files, loading rendered PNG frames, the
 * command line and the renderer's default camera. They report problems through cmocka (fail_msg /
 * assert_*), so call them from inside a test. */
#ifndef TP_VIEWER_TEST_UTIL_H
#define TP_VIEWER_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "tp/plan.h"
#include "tp/viewer.h"

/// Runs a shell command (printf-style); returns its exit status, fails the test if it died from
/// a signal.
int vtRun(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/// The whole file, NUL-terminated (malloc'd, the caller frees); *len = its size in bytes. NULL if
/// it cannot be opened.
char *vtSlurp(const char *path, size_t *len);
/// Writes len bytes of data to path; fails the test if it cannot.
void vtSpit(const char *path, const char *data, size_t len);
/// Loads an RGB PNG (stbi; free with free()); fails the test unless it exists and is w x h.
unsigned char *vtLoadPng(const char *path, int w, int h);
/// The command line TPLAN DOMAIN WORKDIR of a viewer test: sets the three (pointers into argv) and
/// makes WORKDIR. False, after printing the usage (domain_name names the DOMAIN argument), when
/// the count is wrong.
bool vtArgs(int argc, char **argv, const char *domain_name, const char **tplan, const char **domain, const char **work);
/// The renderer's default camera for rec in a w x h frame: fitted to the scene, then the domain's
/// recorded view when it has one.
void vtDefaultCamera(tpViewCamera *cam, const tpPlanRecord *rec, int w, int h);

#endif
