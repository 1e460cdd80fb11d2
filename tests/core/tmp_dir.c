#include "tmp_dir.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[64]; /* the directory of this test process, "" before tmp_dir_setup */

const char *tmp_path(const char *name)
{
    static char buf[8][384];
    static int slot;
    char *p = buf[slot++ % 8];
    if (snprintf(p, sizeof buf[0], "%s/%s", g_dir, name) >= (int)sizeof buf[0]) {
        fail_msg("temporary path too long: %s", name);
    }
    return p;
}

int tmp_dir_setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/tp_test_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

int tmp_dir_teardown(void **state)
{
    (void)state;
    DIR *d = opendir(g_dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                const char *p = tmp_path(e->d_name);
                if (rmdir(p) != 0) {
                    unlink(p);
                }
            }
        }
        closedir(d);
    }
    return rmdir(g_dir);
}
