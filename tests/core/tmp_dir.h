/* A private temporary directory for a cmocka test group's files: tmp_dir_setup / tmp_dir_teardown
 * as the group's setup and teardown, tmp_path(name) for the files in it. */
#ifndef TP_TEST_TMP_DIR_H
#define TP_TEST_TMP_DIR_H

/// Group setup: makes a new directory /tmp/tp_test_XXXXXX. 0 on success.
int tmp_dir_setup(void **state);
/// Group teardown: removes the directory with the files and empty directories in it. 0 on success.
int tmp_dir_teardown(void **state);
/// The path of name inside the directory, in one of 8 rotating static buffers (so up to 8 results
/// may be in use at once); fails the test if it does not fit.
const char *tmp_path(const char *name);

#endif
