/* Shared basics: clock, logging, hashing, string helpers. */
#include "tp/base.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#endif
#include <unistd.h>

/* The log threshold is the one process-wide setting: it only filters messages and never
 * influences planning results. */
static tpLogLevel s_log_level = TP_LOG_INFO;
/* A thread's own destination for its messages (the embedding API: a library never prints). */
static _Thread_local tpLogSink s_log_sink;
static _Thread_local void *s_log_sink_user;

uint64_t tpClock_Ticks(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    return __rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

double tpClock_Now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tpLog_SetLevel(tpLogLevel level)
{
    s_log_level = level;
}

void tpLog_SetThreadSink(tpLogSink sink, void *user)
{
    s_log_sink = sink;
    s_log_sink_user = user;
}

void tpLog_GetThreadSink(tpLogSink *sink, void **user)
{
    *sink = s_log_sink;
    *user = s_log_sink_user;
}

void tpLog(tpLogLevel level, const char *fmt, ...)
{
    if (s_log_sink) {
        char msg[2048];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        size_t n = strlen(msg);
        if (n > 0 && msg[n - 1] == '\n') {
            msg[n - 1] = '\0';
        }
        s_log_sink(s_log_sink_user, level, msg);
        return;
    }
    if (level < s_log_level) {
        return;
    }
    const char *prefix = level == TP_LOG_ERROR ? "error: " : level == TP_LOG_WARN ? "warning: " : "";
    char small[1024], *msg = small;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (len >= (int)sizeof small) {
        msg = malloc((size_t)len + 1);
        if (msg) {
            va_start(ap, fmt);
            vsnprintf(msg, (size_t)len + 1, fmt, ap);
            va_end(ap);
        } else {
            msg = small; /* cut at sizeof small */
        }
    }
    /* A message quotes what scripts and files say (names, error texts): a control character other
     * than a line break or a tab is written as \xNN, so none reaches the terminal (an escape
     * sequence in a body name could recolour or clear it). One write per message. */
    size_t n = strlen(msg);
    char *out = malloc(n * 4 + 32);
    if (!out) {
        fprintf(stderr, "tplan: %s(message lost: out of memory)\n", prefix);
    } else {
        size_t o = (size_t)snprintf(out, 32, "tplan: %s", prefix);
        for (size_t i = 0; i < n; ++i) {
            unsigned char c = (unsigned char)msg[i];
            if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
                o += (size_t)snprintf(out + o, 5, "\\x%02x", c);
            } else {
                out[o++] = (char)c;
            }
        }
        if (n == 0 || msg[n - 1] != '\n') {
            out[o++] = '\n';
        }
        fwrite(out, 1, o, stderr);
        free(out);
    }
    if (msg != small) {
        free(msg);
    }
}

uint64_t tpHash_Fnv1a64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < len; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

void tpStrCopy(char *dst, size_t cap, const char *src)
{
    if (cap == 0) {
        return;
    }
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) {
        n = cap - 1;
    }
    if (n) {
        memcpy(dst, src, n);
    }
    dst[n] = '\0';
}

int tpName_ControlByte(const char *name)
{
    for (const unsigned char *c = (const unsigned char *)name; *c; ++c) {
        if (*c < 0x20 || *c == 0x7f) {
            return (int)(c - (const unsigned char *)name);
        }
    }
    return -1;
}

void tpAssert_Fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, expr);
    fflush(stderr);
    abort();
}

/* tpErrorf and tpBroken: the message into err if there is room for one. */
static void error_v(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err && errlen > 0) {
        vsnprintf(err, errlen, fmt, ap);
    }
}

void tpErrorf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_v(err, errlen, fmt, ap);
    va_end(ap);
}

bool tpBroken(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_v(why, cap, fmt, ap);
    va_end(ap);
    return false;
}

char *tpFile_Read(const char *path, size_t max_bytes, size_t *len, char *err, size_t errlen)
{
    /* O_NONBLOCK: opening a FIFO with no writer must not hang before fstat can refuse it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        tpErrorf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        tpErrorf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        tpErrorf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > max_bytes) {
        tpErrorf(err, errlen, "%s: larger than %zu bytes", path, max_bytes);
        close(fd);
        return NULL;
    }
    /* The size may change while reading: read at most max_bytes + 1 and refuse the excess. */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            if (cap > max_bytes) {
                free(buf);
                tpErrorf(err, errlen, "%s: larger than %zu bytes", path, max_bytes);
                close(fd);
                return NULL;
            }
            size_t bigger = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            char *nb = realloc(buf, bigger + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap = bigger;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            int saved = errno;
            free(buf);
            close(fd);
            tpErrorf(err, errlen, "%s: read error: %s", path, strerror(saved));
            return NULL;
        }
        if (got == 0) {
            break;
        }
        n += (size_t)got;
    }
    close(fd);
    if (!buf) {
        tpErrorf(err, errlen, "%s: out of memory reading the file", path);
        return NULL;
    }
    if (n > max_bytes) {
        free(buf);
        tpErrorf(err, errlen, "%s: larger than %zu bytes", path, max_bytes);
        return NULL;
    }
    buf[n] = '\0';
    if (len) {
        *len = n;
    }
    return buf;
}

/* ---- atomic output files ---- */

/* The temporary files open right now, for tpFile_RemoveTemps in a signal handler (which can reach
   nothing else): the second process-wide state beside the log level, and like it never touching
   results. Threads claim and free slots under s_temp_lock (libtplan's handles may write plans from
   several threads at once); the handler takes no lock: it reads the flags, atomic and lock-free,
   and a slot's path is written before its flag is set (release) and read after (acquire). */
#define TP_MAX_TEMPS 8
static char s_temp_path[TP_MAX_TEMPS][4096];
static atomic_int s_temp_used[TP_MAX_TEMPS];
static pthread_mutex_t s_temp_lock = PTHREAD_MUTEX_INITIALIZER;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler needs lock-free atomic ints");

static int temp_register(const char *tmp)
{
    int slot = -1; /* none free: not removable from a signal handler, still renamed or removed normally */
    pthread_mutex_lock(&s_temp_lock);
    for (int i = 0; i < TP_MAX_TEMPS && slot < 0; ++i) {
        if (!atomic_load_explicit(&s_temp_used[i], memory_order_acquire) && strlen(tmp) < sizeof s_temp_path[i]) {
            memcpy(s_temp_path[i], tmp, strlen(tmp) + 1);
            atomic_store_explicit(&s_temp_used[i], 1, memory_order_release);
            slot = i;
        }
    }
    pthread_mutex_unlock(&s_temp_lock);
    return slot;
}

static void temp_unregister(const char *tmp)
{
    pthread_mutex_lock(&s_temp_lock);
    for (int i = 0; i < TP_MAX_TEMPS; ++i) {
        if (atomic_load_explicit(&s_temp_used[i], memory_order_acquire) && strcmp(s_temp_path[i], tmp) == 0) {
            atomic_store_explicit(&s_temp_used[i], 0, memory_order_release);
            break;
        }
    }
    pthread_mutex_unlock(&s_temp_lock);
}

void tpFile_RemoveTemps(void)
{
    for (int i = 0; i < TP_MAX_TEMPS; ++i) {
        if (atomic_exchange_explicit(&s_temp_used[i], 0, memory_order_acq_rel)) {
            unlink(s_temp_path[i]);
        }
    }
}

FILE *tpFile_OpenOut(tpFileOut *o, const char *path, const char *mode, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    struct stat st;
    bool exists = stat(path, &st) == 0;
    o->path = strdup(path);
    if (!o->path) {
        tpErrorf(err, errlen, "cannot open for writing: out of memory");
        return NULL;
    }
    if (exists && !S_ISREG(st.st_mode)) { /* /dev/null, a FIFO: nothing to replace, write through */
        o->f = fopen(path, mode);
        if (!o->f) {
            tpErrorf(err, errlen, "cannot open for writing: %s", strerror(errno));
            free(o->path);
            o->path = NULL;
        }
        return o->f;
    }
    /* The temporary file is a hidden sibling, so rename() stays within one file system. */
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    size_t cap = strlen(path) + 64;
    o->tmp = malloc(cap);
    int fd = -1;
    for (int attempt = 0; o->tmp && fd < 0 && attempt < 100; ++attempt) {
        snprintf(o->tmp, cap, "%.*s.%s.tmp-%ld-%d", dirlen, path, path + dirlen, (long)getpid(), attempt);
        /* 0666 and the umask, as fopen would create it; an existing file keeps its permissions */
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) {
            break;
        }
    }
    if (fd < 0) {
        tpErrorf(err, errlen, "cannot open for writing: %s", o->tmp ? strerror(errno) : "out of memory");
        free(o->tmp);
        free(o->path);
        memset(o, 0, sizeof *o);
        return NULL;
    }
    temp_register(o->tmp);
    if (exists) {
        (void)fchmod(fd, st.st_mode & 07777);
    }
    o->f = fdopen(fd, mode);
    if (!o->f) {
        tpErrorf(err, errlen, "cannot open for writing: %s", strerror(errno));
        close(fd);
        tpFile_AbortOut(o);
        return NULL;
    }
    return o->f;
}

bool tpFile_CommitOut(tpFileOut *o, char *err, size_t errlen)
{
    int saved = 0;
    bool ok = true;
    if (o->f) {
        ok = ferror(o->f) == 0;
        saved = errno;
        if (fclose(o->f) != 0 && ok) {
            ok = false;
            saved = errno;
        }
        o->f = NULL;
    }
    if (ok && o->tmp && rename(o->tmp, o->path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        tpErrorf(err, errlen, "write error: %s", strerror(saved ? saved : EIO));
        if (o->tmp) {
            unlink(o->tmp);
        }
    }
    if (o->tmp) {
        temp_unregister(o->tmp);
    }
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    return ok;
}

void tpFile_AbortOut(tpFileOut *o)
{
    if (o->f) {
        fclose(o->f);
    }
    if (o->tmp) {
        unlink(o->tmp);
        temp_unregister(o->tmp);
    }
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}

bool tpFd_WriteAll(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

bool tpFd_ReadAll(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t g = read(fd, p, n);
        if (g < 0 && errno == EINTR) {
            continue;
        }
        if (g <= 0) {
            return false;
        }
        p += g;
        n -= (size_t)g;
    }
    return true;
}
