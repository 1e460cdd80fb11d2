/* tplan service: the HTTP layer (libmicrohttpd, one thread per connection, so a handler may block
 * on svc->changed: SSE streams, DELETE of a running job, the synchronous /v1/plan). Routing, bearer
 * tokens, request bodies, the /v1 handlers and the static web page. Every error body is
 * {"error":{"code":"...","message":"..."}}; every request is logged on one line and counted.
 *
 * Hostile clients (docs/service.md#connections): a thread per connection means an idle connection
 * costs a thread, so (1) one client address may hold at most max_per_address connections
 * (libmicrohttpd closes the others at once), (2) every connection must deliver a complete request
 * within request_timeout of opening or of its previous answer, however slowly it trickles bytes
 * (libmicrohttpd's own timeout restarts on every byte): a reaper thread shuts down the sockets of
 * late ones, (3) at most max_connections are open at all, and (4) connections still waiting for
 * their request may hold at most three quarters of them: a new connection beyond that closes the
 * one that has waited longest (a client from many addresses cannot hold the rest idle either: an
 * ordinary request arrives within milliseconds, a slow client's waits for ever). */
#define _GNU_SOURCE /* strcasestr, memmem */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <microhttpd.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <strings.h>

#include "http_internal.h"
#include "tp/base.h"
#include "tp/json_text.h"

#define SVC_STREAM_STALL_ROUNDS 8 /* reaper rounds (0.25 s) an event stream's socket may stay full: 2 s */
#define SVC_STREAM_SNDBUF 16384   /* bytes: SO_SNDBUF of an event stream's socket (events are ~1 KB) */

/* ---- responses -------------------------------------------------------------------------- */

/* The request comes from the --cors-origin page: whoever else asks gets no CORS header. */
static bool cors_allowed(svcReq *rq)
{
    const char *origin = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, "Origin");
    return rq->svc->def.cors_origin && origin && strcmp(origin, rq->svc->def.cors_origin) == 0;
}

static void cors_headers(svcReq *rq, struct MHD_Response *resp)
{
    if (cors_allowed(rq)) {
        MHD_add_response_header(resp, "Access-Control-Allow-Origin", rq->svc->def.cors_origin);
        MHD_add_response_header(resp, "Vary", "Origin");
        MHD_add_response_header(resp, "Access-Control-Expose-Headers",
                                "Location, ETag, Content-Range, Retry-After, X-Tplan-Job, X-Tplan-Status, "
                                "Idempotent-Replayed");
    }
}

void svcHttp_Log(svcReq *rq, unsigned code)
{
    tpService *svc = rq->svc;
    pthread_mutex_lock(&svc->mu);
    svcMetrics_Request(svc, rq->route, code);
    pthread_mutex_unlock(&svc->mu);
    svcLog(svc, "%s %s %u %.1f ms", rq->method, rq->path, code, (svcNow() - rq->t0) * 1000.0);
}

enum MHD_Result svcHttp_Send(svcReq *rq, unsigned code, struct MHD_Response *resp, const char *type)
{
    if (!resp) {
        return MHD_NO;
    }
    TP_VALIDATE(svcValid_Request, rq); /* its response headers all added */
    if (type) {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    }
    for (int i = 0; i < rq->nheaders; ++i) {
        MHD_add_response_header(resp, rq->headers[i][0], rq->headers[i][1]);
    }
    cors_headers(rq, resp);
    enum MHD_Result r = MHD_queue_response(rq->conn, code, resp);
    MHD_destroy_response(resp);
    svcHttp_Log(rq, code);
    return r;
}

void svcHttp_Header(svcReq *rq, const char *name, const char *value)
{
    if (rq->nheaders < SVC_MAX_HEADERS) {
        snprintf(rq->headers[rq->nheaders][0], sizeof rq->headers[0][0], "%s", name);
        snprintf(rq->headers[rq->nheaders][1], sizeof rq->headers[0][1], "%s", value);
        rq->nheaders++;
    }
}

enum MHD_Result svcHttp_Text(svcReq *rq, unsigned code, const char *body, const char *type)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    return svcHttp_Send(rq, code, r, type);
}

/* 500 with a body that needs no memory: what is left when an answer could not be made. */
static enum MHD_Result out_of_memory(svcReq *rq)
{
    static const char body[] = "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}";
    struct MHD_Response *r = MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    svcHttp_Header(rq, "Cache-Control", "no-store");
    return svcHttp_Send(rq, 500, r, "application/json");
}

/* takes ownership of body (malloc'd) */
enum MHD_Result svcHttp_JsonOwned(svcReq *rq, unsigned code, char *body)
{
    if (!body) {
        return out_of_memory(rq);
    }
    svcUtf8Repair(body); /* a script's message or an echoed path may hold any bytes */
    size_t n = strlen(body);
    struct MHD_Response *r = MHD_create_response_from_buffer(n, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
    }
    svcHttp_Header(rq, "Cache-Control", "no-store");
    return svcHttp_Send(rq, code, r, "application/json");
}

enum MHD_Result svcHttp_Error(svcReq *rq, unsigned code, const char *err_code, const char *field, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON *o = cJSON_CreateObject();
    cJSON *e = cJSON_AddObjectToObject(o, "error");
    cJSON_AddStringToObject(e, "code", err_code);
    cJSON_AddStringToObject(e, "message", msg);
    if (field) {
        cJSON_AddStringToObject(e, "field", field);
    }
    char *body = tpJson_PrintChecked(o);
    cJSON_Delete(o);
    return svcHttp_JsonOwned(rq, code, body);
}

/* ---- auth ------------------------------------------------------------------------------- */

/* Compares in time that depends only on the lengths, never on where the first difference is. */
static bool token_equal(const char *given, size_t glen, const char *want, size_t wlen)
{
    unsigned char diff = glen != wlen;
    for (size_t i = 0; i < wlen; ++i) {
        diff |= (unsigned char)(want[i] ^ (i < glen ? given[i] : 0));
    }
    return diff == 0;
}

bool svcHttp_Authorized(svcReq *rq)
{
    tpService *svc = rq->svc;
    if (!svc->token) {
        return true;
    }
    const char *h = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (h && strncasecmp(h, "Bearer ", 7) == 0) {
        const char *t = h + 7;
        return token_equal(t, strlen(t), svc->token, svc->token_len);
    }
    /* EventSource cannot send headers: GET requests may carry ?access_token= instead */
    const char *q = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, "access_token");
    if (q && strcmp(rq->method, "GET") == 0) {
        return token_equal(q, strlen(q), svc->token, svc->token_len);
    }
    return false;
}

/* ---- CORS preflights ---------------------------------------------------------------------- */

/* A CORS preflight (OPTIONS) of the --cors-origin page: no token needed (browsers send none). */
enum MHD_Result svcHttp_Preflight(svcReq *rq)
{
    rq->route = "other";
    if (!cors_allowed(rq)) {
        return svcHttp_Error(rq, 403, "cors_forbidden", "Origin",
                             "this origin may not call the API from a browser (see --cors-origin)");
    }
    svcHttp_Header(rq, "Access-Control-Allow-Methods", "GET, HEAD, POST, DELETE");
    svcHttp_Header(rq, "Access-Control-Allow-Headers",
                   "Authorization, Content-Type, Idempotency-Key, Range, If-None-Match, Accept-Encoding");
    svcHttp_Header(rq, "Access-Control-Max-Age", "600");
    struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    return svcHttp_Send(rq, 204, r, NULL);
}

/* ---- connections and their request deadlines -------------------------------------------- */

/* One open connection. Entries are added and removed by libmicrohttpd's connection notifications,
 * which it calls before it closes the socket: an fd in the list is still this connection's. */
typedef struct svcConn {
    struct svcConn *prev, *next;
    int fd;
    double deadline;    /* svcNow() by which the current request must be complete; 0 = none (answering) */
    char addr[64];      /* the client's address, for the log and the stream caps */
    int64_t stream_job; /* the job whose event stream it carries (svcHttp_BeginStream), 0 = none */
    int stalled;        /* reaper rounds in a row its stream's socket could take no more bytes */
} svcConn;

struct svcConns {
    pthread_mutex_t mu; /* guards the list and the log counters (svc->mu may be held, never taken under it) */
    pthread_cond_t stop_cv;
    bool stop;
    pthread_t reaper;
    bool reaper_started;
    svcConn head; /* sentinel of a circular list */
    int count;    /* connections in the list */
    int evicted;  /* closed to make room since the reaper's last log line */
    char evicted_addr[64];
    char stalled_addr[64]; /* the client of the last event stream check_streams closed */
    double log_second;
    int log_lines, log_dropped; /* libmicrohttpd's messages in the current second, and those dropped */
};

static svcConn *conn_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* The connection's request deadline (0 while it is answered); a new deadline also ends its stream. */
static void conn_set_deadline(tpService *svc, struct MHD_Connection *conn, double deadline)
{
    svcConn *c = conn_of(conn);
    if (c) {
        pthread_mutex_lock(&svc->conns->mu);
        c->deadline = deadline;
        if (deadline > 0) {
            c->stream_job = 0;
            c->stalled = 0;
        }
        pthread_mutex_unlock(&svc->conns->mu);
    }
}

bool svcHttp_StreamOpen(tpService *svc, struct MHD_Connection *conn)
{
    svcConn *c = conn_of(conn);
    if (!c) {
        return true;
    }
    pthread_mutex_lock(&svc->conns->mu); /* under svc->mu: the reaper never takes svc->mu holding this one */
    bool open = c->stream_job != 0;
    pthread_mutex_unlock(&svc->conns->mu);
    return open;
}

unsigned svcHttp_BeginStream(svcReq *rq, int64_t id, char *msg, size_t cap)
{
    tpService *svc = rq->svc;
    struct svcConns *cs = svc->conns;
    svcConn *c = conn_of(rq->conn);
    if (!c) {
        snprintf(msg, cap, "the server cannot follow this connection");
        return 503;
    }
    int max_all = svc->def.max_streams > 0 ? svc->def.max_streams
                                           : (svc->def.max_connections / 8 > 1 ? svc->def.max_connections / 8 : 1);
    int all = 0, mine = 0, job = 0;
    unsigned code = 0;
    pthread_mutex_lock(&cs->mu);
    for (svcConn *o = cs->head.next; o != &cs->head; o = o->next) {
        if (o->stream_job) {
            ++all;
            mine += strcmp(o->addr, c->addr) == 0;
            job += o->stream_job == id;
        }
    }
    if (mine >= svc->def.max_streams_per_address) {
        code = 429;
        snprintf(msg, cap, "this client address has %d event streams open, the most it may (--max-streams-per-address)",
                 mine);
    } else if (job >= svc->def.max_streams_per_job) {
        code = 429;
        snprintf(msg, cap, "job %lld has %d event streams open, the most one job may (--max-streams-per-job)",
                 (long long)id, job);
    } else if (all >= max_all) {
        code = 503;
        snprintf(msg, cap, "the server has %d event streams open, the most it takes (--max-streams)", all);
    } else {
        c->stream_job = id;
        c->stalled = 0;
        /* a fixed send buffer (the kernel doubles it: 32 KiB), so that "full" means the client reads
           nothing: Linux sizes a new socket's buffer to its first window, about 1.3 MB on loopback */
        int sndbuf = SVC_STREAM_SNDBUF;
        setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    }
    pthread_mutex_unlock(&cs->mu);
    return code;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    tpService *svc = cls;
    struct svcConns *cs = svc->conns;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        svcConn *c = calloc(1, sizeof *c);
        const union MHD_ConnectionInfo *fi = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ai = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (!c || !fi) {
            free(c);
            return; /* untracked: libmicrohttpd's own idle timeout still applies */
        }
        c->fd = fi->connect_fd;
        c->deadline = svcNow() + svc->def.request_timeout;
        const struct sockaddr *sa = ai ? ai->client_addr : NULL;
        if (sa && sa->sa_family == AF_INET) {
            inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, c->addr, sizeof c->addr);
        } else if (sa && sa->sa_family == AF_INET6) {
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, c->addr, sizeof c->addr);
        }
        pthread_mutex_lock(&cs->mu);
        c->next = cs->head.next;
        c->prev = &cs->head;
        cs->head.next->prev = c;
        cs->head.next = c;
        if (++cs->count > svc->def.max_connections - svc->def.max_connections / 4) {
            int waiting = 0;
            svcConn *oldest = NULL;
            for (svcConn *o = cs->head.next; o != &cs->head; o = o->next) {
                if (o->deadline > 0) {
                    ++waiting;
                    oldest = !oldest || o->deadline < oldest->deadline ? o : oldest;
                }
            }
            if (oldest && oldest != c && waiting > svc->def.max_connections - svc->def.max_connections / 4) {
                shutdown(oldest->fd, SHUT_RDWR);
                oldest->deadline = 0;
                cs->evicted++;
                snprintf(cs->evicted_addr, sizeof cs->evicted_addr, "%s", oldest->addr);
            }
        }
        pthread_mutex_unlock(&cs->mu);
        *socket_context = c;
    } else if (*socket_context) {
        svcConn *c = *socket_context;
        pthread_mutex_lock(&cs->mu);
        c->prev->next = c->next;
        c->next->prev = c->prev;
        cs->count--;
        pthread_mutex_unlock(&cs->mu);
        free(c);
        *socket_context = NULL;
    }
}

/* Event streams whose socket could take no more bytes for SVC_STREAM_STALL_ROUNDS reaper rounds (the
 * client reads nothing: its buffers and the kernel's are full), or whose client closed its end, are
 * shut down: their thread then fails its next write and libmicrohttpd closes the connection. A stream
 * waits on svc->changed up to 15 s between writes, so a client gone away would otherwise count against
 * the caps until then. cs->mu held; returns how many stuck ones were closed, *gone_count all those
 * ended (the stuck and the left). */
static int check_streams(struct svcConns *cs, int *gone_count)
{
    int closed = 0;
    for (svcConn *c = cs->head.next; c != &cs->head; c = c->next) {
        if (!c->stream_job) {
            continue;
        }
        struct pollfd p = {.fd = c->fd, .events = POLLOUT | POLLRDHUP};
        int rc = poll(&p, 1, 0);
        bool gone = rc > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
        c->stalled = rc >= 0 && !(p.revents & POLLOUT) ? c->stalled + 1 : 0;
        if (gone || c->stalled >= SVC_STREAM_STALL_ROUNDS) {
            shutdown(c->fd, SHUT_RDWR);
            c->stream_job = 0; /* no longer counted, though its thread may take a moment to see it */
            c->stalled = 0;
            if (!gone) { /* a client leaving is ordinary: only the stuck ones are logged */
                snprintf(cs->stalled_addr, sizeof cs->stalled_addr, "%s", c->addr);
                ++closed;
            }
            ++*gone_count;
        }
    }
    return closed;
}

/* Shuts down the sockets of connections past their request deadline (their threads then see the
 * end of the stream and close them), and the event streams check_streams finds stuck, four times a
 * second. */
static void *reaper_main(void *arg)
{
    tpService *svc = arg;
    struct svcConns *cs = svc->conns;
    pthread_mutex_lock(&cs->mu);
    while (!cs->stop) {
        double now = svcNow();
        int closed = 0;
        char last[64] = "";
        for (svcConn *c = cs->head.next; c != &cs->head; c = c->next) {
            if (c->deadline > 0 && now > c->deadline) {
                shutdown(c->fd, SHUT_RDWR);
                c->deadline = 0;
                snprintf(last, sizeof last, "%s", c->addr);
                ++closed;
            }
        }
        int ended = 0, streams = check_streams(cs, &ended);
        char saddr[64];
        snprintf(saddr, sizeof saddr, "%s", cs->stalled_addr);
        int evicted = cs->evicted;
        char eaddr[64];
        snprintf(eaddr, sizeof eaddr, "%s", cs->evicted_addr);
        cs->evicted = 0;
        if (closed > 0 || evicted > 0 || ended > 0) {
            pthread_mutex_unlock(&cs->mu);
            if (ended > 0) { /* their threads wait for a change of their job: they end now */
                pthread_mutex_lock(&svc->mu);
                pthread_cond_broadcast(&svc->changed);
                pthread_mutex_unlock(&svc->mu);
            }
            if (streams > 0) {
                svcLog(svc,
                       "http: closed %d event stream%s whose client read nothing for %g s, its socket's buffer "
                       "full (last from %s)",
                       streams, streams == 1 ? "" : "s", SVC_STREAM_STALL_ROUNDS * 0.25, saddr[0] ? saddr : "?");
            }
            if (closed > 0) {
                svcLog(svc, "http: closed %d connection%s without a complete request within %g s (last from %s)",
                       closed, closed == 1 ? "" : "s", svc->def.request_timeout, last[0] ? last : "?");
            }
            if (evicted > 0) {
                svcLog(svc,
                       "http: closed %d connection%s that waited longest for a request, to make room (last from %s)",
                       evicted, evicted == 1 ? "" : "s", eaddr[0] ? eaddr : "?");
            }
            pthread_mutex_lock(&cs->mu);
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 250000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec += 1;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&cs->stop_cv, &cs->mu, &ts);
    }
    pthread_mutex_unlock(&cs->mu);
    return NULL;
}

/* ---- libmicrohttpd callbacks ------------------------------------------------------------ */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    tpService *svc = cls;
    svcReq *rq = *con_cls;
    if (!rq) {
        rq = calloc(1, sizeof *rq);
        if (!rq) {
            return MHD_NO;
        }
        rq->svc = svc;
        rq->conn = conn;
        rq->t0 = svcNow();
        rq->route = "other";
        snprintf(rq->method, sizeof rq->method, "%s", method);
        snprintf(rq->path, sizeof rq->path, "%s", url);
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > TP_SERVICE_MAX_BODY_BYTES) {
            rq->too_big = true;
        }
        *con_cls = rq;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        if (!rq->too_big) {
            size_t need = rq->len + *upload_data_size + 1;
            if (need > TP_SERVICE_MAX_BODY_BYTES + 1) {
                rq->too_big = true;
                free(rq->body);
                rq->body = NULL;
                rq->len = rq->cap = 0;
            } else {
                if (need > rq->cap) {
                    size_t cap = need * 2 > TP_SERVICE_MAX_BODY_BYTES + 1 ? TP_SERVICE_MAX_BODY_BYTES + 1 : need * 2;
                    char *grown = realloc(rq->body, cap);
                    if (!grown) {
                        return MHD_NO;
                    }
                    rq->body = grown;
                    rq->cap = cap;
                }
                memcpy(rq->body + rq->len, upload_data, *upload_data_size);
                rq->len += *upload_data_size;
                rq->body[rq->len] = '\0';
            }
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    conn_set_deadline(svc, conn, 0); /* the request is complete: no deadline while it is answered */
    TP_VALIDATE(svcValid_Request, rq);
    tpJson_ResetFailed(); /* the answer's JSON is checked for this request's failed allocations only */
    return svc->http_handler(rq);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    tpService *svc = cls;
    (void)toe;
    conn_set_deadline(svc, conn, svcNow() + svc->def.request_timeout); /* the next request on a kept-alive one */
    svcReq *rq = *con_cls;
    if (rq) {
        free(rq->body);
        free(rq);
        *con_cls = NULL;
    }
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Percent-decoding of the path and the query values, in place, except that %00 stays as it is: a
 * decoded NUL would silently cut a path short ("/index.html%00/../x" served as "/index.html") or a
 * value (a token). With it kept, such a path names no file and such a value matches nothing. */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *s)
{
    (void)cls;
    (void)conn;
    char *out = s;
    for (const char *in = s; *in;) {
        int hi = in[0] == '%' ? hex_value(in[1]) : -1;
        int lo = hi >= 0 ? hex_value(in[2]) : -1;
        if (lo >= 0 && (hi | lo) != 0) {
            *out++ = (char)(hi * 16 + lo);
            in += 3;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    return (size_t)(out - s);
}

/* libmicrohttpd's messages, at most 10 a second: a client refused again and again (too many
 * connections from its address) must not flood the log. */
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    tpService *svc = cls;
    struct svcConns *cs = svc->conns;
    double now = svcNow();
    int dropped = 0;
    bool show = true;
    if (cs) {
        pthread_mutex_lock(&cs->mu);
        if (now - cs->log_second >= 1.0) {
            cs->log_second = now;
            dropped = cs->log_dropped;
            cs->log_lines = cs->log_dropped = 0;
        }
        show = ++cs->log_lines <= 10;
        cs->log_dropped += !show;
        pthread_mutex_unlock(&cs->mu);
    }
    if (dropped > 0) {
        svcLog(svc, "http: (%d more messages of libmicrohttpd left out)", dropped);
    }
    if (show) {
        char msg[512];
        vsnprintf(msg, sizeof msg, fmt, ap);
        svcLog(svc, "http: %s", msg);
    }
}

static void free_conns(tpService *svc)
{
    struct svcConns *cs = svc->conns;
    if (!cs) {
        return;
    }
    if (cs->reaper_started) {
        pthread_mutex_lock(&cs->mu);
        cs->stop = true;
        pthread_cond_signal(&cs->stop_cv);
        pthread_mutex_unlock(&cs->mu);
        pthread_join(cs->reaper, NULL);
    }
    pthread_mutex_destroy(&cs->mu);
    pthread_cond_destroy(&cs->stop_cv);
    free(cs);
    svc->conns = NULL;
}

bool svcHttp_Start(tpService *svc, svcHttpHandler handler, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_ITC;
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, svc->def.bind, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)svc->def.port);
    } else if (inet_pton(AF_INET6, svc->def.bind, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)svc->def.port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, errlen, "--bind %s: not an IPv4 or IPv6 address", svc->def.bind);
        return false;
    }
    svc->http_handler = handler;
    struct svcConns *cs = calloc(1, sizeof *cs);
    if (!cs) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    pthread_mutex_init(&cs->mu, NULL);
    pthread_cond_init(&cs->stop_cv, NULL);
    cs->head.next = cs->head.prev = &cs->head;
    svc->conns = cs;
    if (pthread_create(&cs->reaper, NULL, reaper_main, svc) != 0) {
        free_conns(svc);
        snprintf(err, errlen, "cannot start a thread");
        return false;
    }
    cs->reaper_started = true;
    svc->httpd = MHD_start_daemon(
        flags, (uint16_t)svc->def.port, NULL, NULL, on_request, svc, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, svc,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_NOTIFY_COMPLETED, on_completed, svc,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, svc, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)svc->def.max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)svc->def.max_per_address,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120, MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
    if (!svc->httpd) {
        free_conns(svc);
        snprintf(err, errlen, "cannot listen on %s port %d (in use, or not an address of this machine)", svc->def.bind,
                 svc->def.port);
        return false;
    }
    return true;
}

int svcHttp_Port(tpService *svc)
{
    const union MHD_DaemonInfo *info = svc->httpd ? MHD_get_daemon_info(svc->httpd, MHD_DAEMON_INFO_BIND_PORT) : NULL;
    return info ? info->port : svc->def.port;
}

void svcHttp_Stop(tpService *svc)
{
    if (svc->httpd) {
        MHD_stop_daemon(svc->httpd);
        svc->httpd = NULL;
    }
    free_conns(svc);
}

/* ---- query parameters -------------------------------------------------------------------------- */

typedef struct QueryScan {
    const char *allowed; /* "a, b, c" */
    const char *bad;     /* the first unknown (or repeated) key */
    bool repeated;       /* bad is known but given twice: which one would count is no one's guess */
    const char *seen[16];
    int nseen;
} QueryScan;

static enum MHD_Result query_key(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    (void)value;
    QueryScan *q = cls;
    if (strcmp(key, "access_token") == 0) { /* the token of EventSource and links (any GET) */
        return MHD_YES;
    }
    size_t n = strlen(key);
    for (const char *p = q->allowed; n > 0 && (p = strstr(p, key)); p += n) {
        bool starts = p == q->allowed || p[-1] == ' ';
        bool ends = p[n] == '\0' || p[n] == ',';
        if (starts && ends) {
            for (int i = 0; i < q->nseen; ++i) {
                if (strcmp(q->seen[i], key) == 0) {
                    q->bad = key;
                    q->repeated = true;
                    return MHD_NO;
                }
            }
            if (q->nseen < 16) {
                q->seen[q->nseen++] = key;
            }
            return MHD_YES;
        }
    }
    q->bad = key;
    return MHD_NO;
}

const char *svcHttp_UnknownQuery(svcReq *rq, const char *allowed)
{
    QueryScan q = {.allowed = allowed};
    MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, query_key, &q);
    rq->query_repeated = q.repeated;
    return q.bad;
}

enum MHD_Result svcHttp_BadQuery(svcReq *rq, const char *key, const char *allowed)
{
    char shown[64];
    size_t i = 0;
    for (; key[i] && i < 40; ++i) { /* the name as sent, printable ASCII only */
        shown[i] = (unsigned char)key[i] >= 0x20 && (unsigned char)key[i] < 0x7f ? key[i] : '?';
    }
    shown[i] = '\0';
    if (rq->query_repeated) {
        return svcHttp_Error(rq, 400, "bad_field", shown, "query parameter '%s' is given more than once", shown);
    }
    return svcHttp_Error(rq, 400, "bad_field", shown, "unknown query parameter '%s' (known here: %s)", shown, allowed);
}
