/* Helpers shared by the viewer's end-to-end tests (test_viewer_frames, test_viewer_nav): running
 * tplan through the shell, reading and writing whole files, loading rendered PNG frames. They
 * report problems through cmocka (fail_msg / assert_*), so call them from inside a test. */
#ifndef TP_VIEWER_TEST_UTIL_H
#define TP_VIEWER_TEST_UTIL_H

#include <stddef.h>

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

#endif
