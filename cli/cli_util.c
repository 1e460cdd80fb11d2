/* Helpers shared by the tplan subcommands. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "cli_validate.h"
#include "tp/base.h"
#include "tp/util.h"

volatile sig_atomic_t tpCli_StopRequested = 0;

bool tpCli_OneArgument(const char *value, const char **slot)
{
    if (*slot) {
        char q[512];
        tpLog(TP_LOG_ERROR, "unexpected argument '%s'", tpCli_Escape(value, q, sizeof q));
        return false;
    }
    *slot = value;
    return true;
}

bool tpCli_AddParam(tpCliParams *params, char *arg)
{
    char *eq = strchr(arg, '=');
    char q[512];
    if (!eq || eq == arg) {
        tpLog(TP_LOG_ERROR, "--set expects name=value (got '%s')", tpCli_Escape(arg, q, sizeof q));
        return false;
    }
    if (params->n >= TP_MAX_PARAMS) {
        tpLog(TP_LOG_ERROR, "too many --set options (at most %d)", TP_MAX_PARAMS);
        return false;
    }
    *eq = '\0';
    for (int i = 0; i < params->n; ++i) {
        if (strcmp(params->items[i].name, arg) == 0) {
            tpLog(TP_LOG_ERROR, "--set %s given twice", tpCli_Escape(arg, q, sizeof q));
            return false;
        }
    }
    params->items[params->n].name = arg;
    params->items[params->n].value = eq + 1;
    params->n++;
    TP_VALIDATE(tpCliParams_Valid, params);
    return true;
}

const char *tpCli_DataDir(const char *what, const char *source_dir)
{
    /* an installed tplan: PREFIX/bin/tplan next to PREFIX/share/tplan/WHAT (cmake --install);
     * the answers are kept (one per folder name) so that the pointer stays valid */
    enum { TP_DATA_DIRS = 4 };
    static struct {
        char what[32];
        char dir[4096];
        bool installed;
    } cache[TP_DATA_DIRS];
    static int ncache;
    for (int i = 0; i < ncache; ++i) {
        if (strcmp(cache[i].what, what) == 0) {
            return cache[i].installed ? cache[i].dir : source_dir;
        }
    }
    if (ncache == TP_DATA_DIRS || strlen(what) >= sizeof cache[0].what) {
        return source_dir;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
        *slash = '\0';
    }
    struct stat st;
    int k = ncache++;
    snprintf(cache[k].what, sizeof cache[k].what, "%s", what);
    cache[k].installed =
        slash &&
        snprintf(cache[k].dir, sizeof cache[k].dir, "%s/../share/tplan/%s", exe, what) < (int)sizeof cache[k].dir &&
        stat(cache[k].dir, &st) == 0 && S_ISDIR(st.st_mode);
    char real[PATH_MAX];
    if (cache[k].installed && realpath(cache[k].dir, real) && strlen(real) < sizeof cache[k].dir) {
        snprintf(cache[k].dir, sizeof cache[k].dir, "%s", real); /* PREFIX/share/tplan/WHAT, no ".." */
    }
    return cache[k].installed ? cache[k].dir : source_dir;
}

const char *tpCli_DomainsDir(void)
{
    const char *env = getenv("TPLAN_DOMAINS");
    return (env && *env) ? env : tpCli_DataDir("domains", TP_SOURCE_DOMAINS);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool tpCli_ResolveDomain(const char *arg, char *out, size_t cap)
{
    if (is_file(arg)) {
        tpStrCopy(out, cap, arg);
        return true;
    }
    if (!strchr(arg, '/')) {
        size_t n = strlen(arg);
        bool has_ext = n > 4 && strcmp(arg + n - 4, ".lua") == 0;
        int w = snprintf(out, cap, "%s/%s%s", tpCli_DomainsDir(), arg, has_ext ? "" : ".lua");
        if (w > 0 && (size_t)w < cap && is_file(out)) {
            return true;
        }
    }
    return false;
}

const char *tpCli_DomainName(const char *arg, const char *resolved)
{
    if (strcmp(arg, resolved) == 0) {
        return NULL;
    }
    const char *slash = strrchr(resolved, '/');
    return slash ? slash + 1 : resolved;
}

/* A number as written by a person: starts with a digit (or a sign or a point before one), so that
   nothing strtoll / strtod would skip or interpret (spaces, "nan", "inf") gets through. */
static bool plain_number(const char *s, bool allow_point)
{
    const char *p = s + (s[0] == '-' || s[0] == '+');
    return isdigit((unsigned char)p[0]) || (allow_point && p[0] == '.' && isdigit((unsigned char)p[1]));
}

bool tpCli_ParseInt(const char *opt, const char *s, long long min, long long max, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = s && plain_number(s, false) ? strtoll(s, &end, 10) : 0;
    if (!s || !end || *end || errno || v < min || v > max) {
        char range[64], q[256];
        if (max == LLONG_MAX) {
            snprintf(range, sizeof range, ">= %lld", min);
        } else {
            snprintf(range, sizeof range, "in %lld..%lld", min, max);
        }
        tpLog(TP_LOG_ERROR, "%s expects an integer %s (got '%s')", opt, range, tpCli_Escape(s, q, sizeof q));
        return false;
    }
    *out = v;
    return true;
}

bool tpCli_ParseDouble(const char *opt, const char *s, double lo, bool lo_open, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = s && plain_number(s, true) ? strtod(s, &end) : NAN;
    if (!s || !end || *end || errno || !isfinite(v) || v < lo || (lo_open && v == lo) || v > hi) {
        char range[80] = "", q[256];
        if (isfinite(lo) && isfinite(hi)) {
            snprintf(range, sizeof range, " in %c%g, %g]", lo_open ? '(' : '[', lo, hi);
        } else if (isfinite(lo)) {
            snprintf(range, sizeof range, " %s %g", lo_open ? ">" : ">=", lo);
        }
        tpLog(TP_LOG_ERROR, "%s expects a number%s (got '%s')", opt, range, tpCli_Escape(s, q, sizeof q));
        return false;
    }
    *out = v;
    return true;
}

const char *tpCli_Escape(const char *s, char *buf, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p && n + 5 < cap; ++p) {
        unsigned char c = *p;
        if (c >= 0x20 && c != 0x7f) {
            buf[n++] = (char)c;
            continue;
        }
        buf[n++] = '\\';
        if (c == '\n' || c == '\t' || c == '\r') {
            buf[n++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
        } else {
            buf[n++] = 'x';
            buf[n++] = hex[c >> 4];
            buf[n++] = hex[c & 15];
        }
    }
    if (cap > 0) {
        buf[n < cap ? n : cap - 1] = '\0';
    }
    return buf;
}

const char *tpCli_FlagWords(const char *msg, char *buf, size_t cap)
{
    /* the forms the libraries write a field's name in (lua/src/script.c, limits.c, api/src/run.c,
       tactics/src/record.c): "(time_limit 2 s ...)", "(memory_mb)", "...: call_time_limit)", each
       field of the table (tp/run_fields.h) with a flag; and `set` for --set */
    enum { NFORMS = 3, MAXW = NFORMS * 32 + 3 };
    static const char *const forms[NFORMS][2] = {{"(%s)", "(%s)"}, {"(%s ", "(%s "}, {": %s)", ": %s)"}};
    char text[MAXW][2][48];
    const char *words[MAXW][2];
    int n = 0;
    for (int i = 0; i < tpRun_FieldCount; ++i) {
        const tpRunField *f = &tpRun_Fields[i];
        if (!(f->who & TP_RUNF_CLI) || !f->flag) {
            continue;
        }
        for (int k = 0; k < NFORMS && n < MAXW - 3; ++k, ++n) {
            snprintf(text[n][0], sizeof text[n][0], forms[k][0], f->name);
            snprintf(text[n][1], sizeof text[n][1], forms[k][1], f->flag);
            words[n][0] = text[n][0];
            words[n][1] = text[n][1];
        }
    }
    static const char *const set_words[3][2] = {
        {": set: ", ": --set: "}, {": set ", ": --set "}, {"other set values", "other --set values"}};
    for (int k = 0; k < 3; ++k, ++n) {
        words[n][0] = set_words[k][0];
        words[n][1] = set_words[k][1];
    }
    return tpWords_Replace(msg, (const char *const(*)[2])words, n, buf, cap);
}

void tpCli_PrintError(const char *msg)
{
    size_t cap = 2 * strlen(msg) + 64; /* a replacement at most doubles the bytes it replaces (tpCli_FlagWords) */
    char *mapped = malloc(cap);
    const char *err = mapped ? tpCli_FlagWords(msg, mapped, cap) : msg;
    const char *tb = strstr(err, "\nstack traceback:");
    size_t len = tb ? (size_t)(tb - err) : strlen(err);
    while (len > 0 && err[len - 1] == '\n') {
        --len;
    }
    for (size_t i = 0; i < len; ++i) {
        unsigned char c = (unsigned char)err[i];
        if (c >= 0x20 && c != 0x7f) {
            fputc(c, stderr);
        } else {
            char one[2] = {(char)c, '\0'}, q[8];
            fputs(tpCli_Escape(one, q, sizeof q), stderr);
        }
    }
    fputc('\n', stderr);
    if (tb) {
        fputs(tb + 1, stderr);
        if (tb[strlen(tb) - 1] != '\n') {
            fputc('\n', stderr);
        }
    }
    free(mapped);
}

/* ---- options ---- */

int tpCli_NextOption(tpCliArgs *a)
{
    if (a->rest) { /* after "--": everything is positional */
        if (optind < a->argc) {
            a->value = a->argv[optind++];
            a->name = NULL;
            return 1;
        }
        return -1;
    }
    if (!a->started) {
        optind = 0; /* glibc: start over, and read the ordering from shortopts again */
        a->started = true;
    }
    char shortopts[64];
    /* '-': positional arguments come back in order as code 1 (overrides POSIXLY_CORRECT);
       ':': a missing value is reported as ':' instead of a message of getopt's own */
    snprintf(shortopts, sizeof shortopts, "-:%s", a->shortopts);
    opterr = 0;
    int tok = optind > 0 ? optind : 1; /* the argument getopt looks at (long options are never clustered) */
    int idx = -1;
    int c = getopt_long(a->argc, a->argv, shortopts, a->longopts, &idx);
    const char *arg = tok < a->argc ? a->argv[tok] : "";
    char q[256];
    a->value = optarg;
    a->name = arg;
    if (c == -1) {
        if (optind < a->argc) { /* "--" ended the options */
            a->rest = true;
            a->value = a->argv[optind++];
            a->name = NULL;
            return 1;
        }
        return -1;
    }
    if (c == 1) {
        a->name = NULL;
        return 1;
    }
    size_t namelen = strcspn(arg, "=");
    if (idx >= 0) { /* refuse abbreviations: an option must keep meaning the same when others are added */
        const char *full = a->longopts[idx].name;
        if (strncmp(arg, "--", 2) != 0 || namelen != strlen(full) + 2 || strncmp(arg + 2, full, namelen - 2) != 0) {
            c = '?';
            optopt = 0;
        }
    }
    if (c == '?' || c == ':') {
        bool is_long = strncmp(arg, "--", 2) == 0;
        char name[256];
        if (is_long) { /* the option as written, without its "=value" */
            char raw[256];
            snprintf(raw, sizeof raw, "%.*s", (int)namelen, arg);
            snprintf(name, sizeof name, "%s", tpCli_Escape(raw, q, sizeof q));
        } else {
            snprintf(name, sizeof name, "-%c", optopt ? optopt : '?');
        }
        if (c == ':') {
            tpLog(TP_LOG_ERROR, "option '%s' needs a value (see 'tplan %s --help')", name, a->cmd);
        } else if (is_long && optopt != 0) {
            tpLog(TP_LOG_ERROR, "option '%s' takes no value (see 'tplan %s --help')", name, a->cmd);
        } else {
            tpLog(TP_LOG_ERROR, "unknown option '%s' (see 'tplan %s --help')", name, a->cmd);
        }
        return '?';
    }
    if (idx < 0) {
        snprintf(a->namebuf, sizeof a->namebuf, "-%c", c);
    } else {
        snprintf(a->namebuf, sizeof a->namebuf, "--%s", a->longopts[idx].name);
    }
    a->name = a->namebuf;
    return c;
}

/* ---- files named on the command line ---- */

typedef struct FileId {
    bool special; /* an existing file that is not a regular file: never compared */
    bool exists;
    dev_t dev;
    ino_t ino;
    char resolved[4200]; /* real directory + base name, for a file not yet there */
} FileId;

static void file_id(const char *path, FileId *id)
{
    memset(id, 0, sizeof *id);
    struct stat st;
    if (stat(path, &st) == 0) {
        id->exists = true;
        id->special = !S_ISREG(st.st_mode);
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        return;
    }
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? (slash == path ? "/" : path) : ".");
    char real[PATH_MAX];
    if (realpath(dir, real)) {
        snprintf(id->resolved, sizeof id->resolved, "%s/%s", real, slash ? slash + 1 : path);
    } else {
        snprintf(id->resolved, sizeof id->resolved, "%s", path); /* the write will fail anyway */
    }
}

static bool same_file(const FileId *x, const FileId *y)
{
    if (x->special || y->special || x->exists != y->exists) {
        return false;
    }
    return x->exists ? x->dev == y->dev && x->ino == y->ino : strcmp(x->resolved, y->resolved) == 0;
}

bool tpCli_SameFile(const char *a, const char *b)
{
    FileId x, y;
    file_id(a, &x);
    file_id(b, &y);
    return same_file(&x, &y);
}

bool tpCli_CheckFiles(const tpCliFile *files, int n)
{
    for (int i = 0; i < n; ++i) {
        if (!files[i].path || !files[i].output) {
            continue;
        }
        FileId a;
        file_id(files[i].path, &a);
        for (int j = 0; j < n; ++j) {
            if (j == i || !files[j].path || (files[j].output && j > i)) {
                continue; /* a pair of outputs is reported once */
            }
            FileId b;
            file_id(files[j].path, &b);
            if (!same_file(&a, &b)) {
                continue;
            }
            char q1[512], q2[512];
            tpCli_Escape(files[i].path, q1, sizeof q1);
            tpCli_Escape(files[j].path, q2, sizeof q2);
            if (files[j].output) {
                tpLog(TP_LOG_ERROR, "%s '%s' and %s '%s' are the same file: each output needs its own file",
                      files[j].what, q2, files[i].what, q1);
            } else {
                tpLog(TP_LOG_ERROR, "%s '%s' is %s '%s': refusing to overwrite an input", files[i].what, q1,
                      files[j].what, q2);
            }
            return false;
        }
    }
    return true;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int tpCli_DomainFiles(const char *dir, char **names, int cap)
{
    DIR *d = opendir(dir);
    if (!d) {
        tpLog(TP_LOG_ERROR, "cannot open the domains directory %s", dir);
        return -1;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < cap) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".lua") == 0 && (names[n] = strdup(e->d_name))) {
            names[n++][len - 4] = '\0';
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_name);
    return n;
}

void tpCli_PrintRejections(FILE *f, const tpRejectStat *reject)
{
    for (int k = 0; k < TP_REJECT_KINDS; ++k) {
        const tpRejectStat *r = &reject[k];
        if (r->count <= 0) {
            continue;
        }
        fprintf(f, "rejected   %lld %s, first at iteration %lld%s%s\n", (long long)r->count,
                tpRejectKind_Label((tpRejectKind)k), (long long)r->iteration, r->first[0] ? ": " : "", r->first);
    }
}

cJSON *tpCli_RejectionsJson(const tpRejectStat *reject)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; o && k < TP_REJECT_KINDS; ++k) {
        const tpRejectStat *r = &reject[k];
        if (r->count <= 0) {
            continue;
        }
        cJSON *e = cJSON_AddObjectToObject(o, tpRejectKind_Name((tpRejectKind)k));
        if (!e || !cJSON_AddNumberToObject(e, "count", (double)r->count) ||
            !cJSON_AddNumberToObject(e, "iteration", (double)r->iteration) ||
            !cJSON_AddStringToObject(e, "first", r->first)) {
            cJSON_Delete(o);
            return NULL;
        }
    }
    return o;
}
