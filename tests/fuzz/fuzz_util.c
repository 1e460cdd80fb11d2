/* Scratch files and failure reports for the fuzz targets (see fuzz_util.h). */
#include "fuzz_util.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[512];

static void fuzz_remove_dir(void)
{
    DIR *d = opendir(g_dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                char p[1024];
                snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
                unlink(p);
            }
        }
        closedir(d);
    }
    rmdir(g_dir);
}

const char *tpFuzz_Path(const char *name)
{
    static char path[1024];
    if (!g_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(g_dir, sizeof g_dir, "%s/tp_fuzz_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(g_dir)) {
            perror("tp fuzz: mkdtemp");
            abort();
        }
        atexit(fuzz_remove_dir);
    }
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    return path;
}

void tpFuzz_WriteFile(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror("tp fuzz: writing a scratch file");
        abort();
    }
}

char *tpFuzz_ReadFile(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) {
        perror("tp fuzz: reading a scratch file");
        abort();
    }
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        perror("tp fuzz: reading a scratch file");
        abort();
    }
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

void tpFuzz_Fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tp fuzz: FINDING: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}
