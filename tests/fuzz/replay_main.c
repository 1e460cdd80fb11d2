/* main() for the fuzz targets outside libFuzzer: runs every file named on the command line (a
 * directory: every file in it, sorted) through LLVMFuzzerTestOneInput once. A crash, an abort
 * (a broken property) or a sanitizer report fails the run; the inputs are the committed seeds and
 * regressions (tests/fuzz/corpus, tests/fuzz/regressions), so this is what ctest runs. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

static int g_count;

static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            unsigned char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
            }
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", path);
        exit(2);
    }
    /* An exact-size copy, so that ASan sees any read past the end as libFuzzer would. */
    unsigned char *exact = malloc(len ? len : 1);
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    ++g_count;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        run_file(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        exit(2);
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue; /* ".", "..", and hidden files such as .gitkeep */
        }
        names = realloc(names, (n + 1) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n > 1) {
        qsort(names, n, sizeof *names, cmp_names);
    }
    for (size_t i = 0; i < n; ++i) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, names[i]);
        run_path(p);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        run_path(argv[i]);
    }
    printf("%s: %d inputs ran clean\n", argv[0], g_count);
    return 0;
}
