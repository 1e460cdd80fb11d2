/* Helpers shared by the viewer's end-to-end tests; see viewer_test_util.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <stb_image.h>

#include "tp/base.h"
#include "viewer_test_util.h"

int vtRun(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st)) {
        fail_msg("'%s' did not exit normally (signal %d)", cmd, WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    }
    return WEXITSTATUS(st);
}

char *vtSlurp(const char *path, size_t *len)
{
    return tpFile_Read(path, TP_MAX_PLAN_BYTES, len, NULL, 0);
}

void vtSpit(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

unsigned char *vtLoadPng(const char *path, int w, int h)
{
    int iw, ih, c;
    unsigned char *img = stbi_load(path, &iw, &ih, &c, 3);
    if (!img) {
        fail_msg("cannot load %s", path);
    }
    assert_int_equal(iw, w);
    assert_int_equal(ih, h);
    return img;
}

bool vtArgs(int argc, char **argv, const char *domain_name, const char **tplan, const char **domain, const char **work)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s TPLAN %s WORKDIR\n", argv[0], domain_name);
        return false;
    }
    *tplan = argv[1], *domain = argv[2], *work = argv[3];
    mkdir(*work, 0777);
    return true;
}

void vtDefaultCamera(tpViewCamera *cam, const tpPlanRecord *rec, int w, int h)
{
    tpViewCamera_Fit(cam, rec, (double)w / h);
    if (rec->view.set) {
        tpViewCamera_SetView(cam, &rec->view, rec, (double)w / h);
    }
}
