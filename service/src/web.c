/* tplan service: the static web page (web/ of the source tree, or --web DIR). Only GET and HEAD;
 * a path with an empty, "." or ".." segment, a hidden segment (".git") or a backslash is refused
 * before the file system is touched, and the resolved file must still lie inside the web root
 * (symbolic links cannot leave it). Only regular files with a known type are served. */
#define _GNU_SOURCE /* realpath */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http_internal.h"

static const struct {
    const char *ext, *type;
} types[] = {
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".json", "application/json"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".ico", "image/x-icon"},
    {".map", "application/json"},
    {".wasm", "application/wasm"},
    {".txt", "text/plain; charset=utf-8"},
};

static const char *type_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; ++i) {
        if (strcmp(dot, types[i].ext) == 0) {
            return types[i].type;
        }
    }
    return NULL;
}

/* false for a path that must not reach the file system */
static bool safe_path(const char *p)
{
    if (p[0] != '/' || strchr(p, '\\') || strlen(p) > 900) {
        return false;
    }
    for (const char *seg = p + 1; *seg;) {
        const char *end = strchr(seg, '/');
        size_t n = end ? (size_t)(end - seg) : strlen(seg);
        if (n == 0 || seg[0] == '.') { /* "", ".", "..", ".hidden" */
            return false;
        }
        if (!end) {
            break;
        }
        seg = end + 1;
        if (!*seg) {
            return false; /* a trailing slash: a directory */
        }
    }
    return true;
}

enum MHD_Result svcWeb_Serve(svcReq *rq)
{
    tpService *svc = rq->svc;
    if (strcmp(rq->method, "GET") != 0 && strcmp(rq->method, "HEAD") != 0) {
        svcHttp_Header(rq, "Allow", "GET, HEAD");
        return svcHttp_Error(rq, 405, "method_not_allowed", NULL, "%s is not allowed on %s", rq->method, rq->path);
    }
    if (!svc->web_root) {
        return svcHttp_Error(rq, 404, "not_found", NULL, "no web page (the server runs without --web)");
    }
    const char *p = strcmp(rq->path, "/") == 0 ? "/index.html" : rq->path;
    if (!safe_path(p)) {
        return svcHttp_Error(rq, 404, "not_found", NULL, "no such file");
    }
    const char *type = type_of(p);
    char joined[PATH_MAX + 1024], real[PATH_MAX];
    snprintf(joined, sizeof joined, "%s%s", svc->web_root, p);
    size_t rootlen = strlen(svc->web_root);
    if (!type || !realpath(joined, real) || strncmp(real, svc->web_root, rootlen) != 0 || real[rootlen] != '/') {
        return svcHttp_Error(rq, 404, "not_found", NULL, "no such file");
    }
    int fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (fd >= 0) {
            close(fd);
        }
        return svcHttp_Error(rq, 404, "not_found", NULL, "no such file");
    }
    struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd);
    /* the page itself is revalidated each time; third-party modules (node_modules) are versioned
     * by the lock file and may be kept for a day */
    bool vendor = strncmp(p, "/node_modules/", 14) == 0;
    svcHttp_Header(rq, "Cache-Control", vendor ? "public, max-age=86400" : "no-cache");
    svcHttp_Header(rq, "X-Content-Type-Options", "nosniff");
    return svcHttp_Send(rq, 200, r, type);
}
