/* tplan export: an output file written under a temporary name beside it and renamed into place
 * on success (tpXTemp_*), so a failed or interrupted export never leaves half a file where the
 * user asked for one. A leaf the writers (csv.c, gltf.c) call; it calls nothing of export/. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_internal.h"
#include "tp/base.h"

bool tpXTemp_Open(tpXTemp *t, const char *path, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    if (!*base || strlen(path) + 16 >= sizeof t->tmp_path) {
        tpErrorf(err, errlen, "cannot write %s: not a file name", path);
        return false;
    }
    snprintf(t->final_path, sizeof t->final_path, "%s", path);
    snprintf(t->tmp_path, sizeof t->tmp_path, "%.*s.%s.XXXXXX", dirlen, path, base);
    int fd = mkstemp(t->tmp_path);
    if (fd < 0) {
        tpErrorf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        t->tmp_path[0] = '\0';
        return false;
    }
    mode_t mask = umask(022); /* mkstemp creates 0600; the result gets the usual 0666 & ~umask */
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        /* not fatal: the file stays private */
    }
    t->f = fdopen(fd, "wb");
    if (!t->f) {
        tpErrorf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        remove(t->tmp_path);
        t->tmp_path[0] = '\0';
        return false;
    }
    return true;
}

bool tpXTemp_Commit(tpXTemp *t, char *err, size_t errlen)
{
    int bad = ferror(t->f);
    int rc = fclose(t->f);
    t->f = NULL;
    if (bad || rc != 0) {
        tpErrorf(err, errlen, "cannot write %s: %s", t->final_path, bad ? "write error" : strerror(errno));
        remove(t->tmp_path);
        t->tmp_path[0] = '\0';
        return false;
    }
    if (rename(t->tmp_path, t->final_path) != 0) {
        tpErrorf(err, errlen, "cannot write %s: %s", t->final_path, strerror(errno));
        remove(t->tmp_path);
        t->tmp_path[0] = '\0';
        return false;
    }
    t->tmp_path[0] = '\0';
    return true;
}

void tpXTemp_Abort(tpXTemp *t)
{
    if (t->f) {
        fclose(t->f);
        t->f = NULL;
    }
    if (t->tmp_path[0]) {
        remove(t->tmp_path);
        t->tmp_path[0] = '\0';
    }
}
