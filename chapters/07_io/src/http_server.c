/*
** http_server.c -- chapter 07: a small HTTP/1.1 server with fixed
** responses, for the examples and the tests.
**
** Each connection is a task (taal_start_server) running conn_body: parse
** a request from the stream's buffer (awaiting more bytes when the parser
** needs them), answer it, and go on while the connection is kept alive.
** Requests pipelined by a client are simply already in the buffer.
**
** The body goes out in pieces of 16 KiB with a drain after each one. A
** client that does not read fills the kernel's buffers, then the stream's
** own up to its high-water mark; drain then waits, and the handler with
** it. Memory per connection is bounded by the high-water mark plus one
** piece, whatever the size of the response and the speed of the reader.
**
** What a client can hold, and for how long (taal_http_site's limits):
**
**   - a connection that says nothing: a kept-alive one is closed after
**     idle_timeout without the first byte of a request, a new one after
**     header_timeout;
**   - a request sent slowly (slowloris): from its first byte, the whole
**     request must arrive within header_timeout, or it gets 408 and the
**     connection is closed. Each wait is a chapter 05 timeout scope around
**     the reads of one request;
**   - connections themselves: at most max_connections at once. One more
**     takes the place of the connection idle longest (waiting for a
**     request's first byte: it is cancelled and closed, as nginx reuses
**     its idle keep-alive connections); with none idle, it gets 503 and is
**     closed. So idle connections never keep a working client out, and the
**     server never runs out of descriptors if the cap is under the limit.
*/
#define _POSIX_C_SOURCE 200809L

#include "internal.h"
#include "taal_http.h"

#include <stdarg.h>
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>

enum { PIECE = 16384 };

/* The defaults of the site's limits. */
#define HEADER_TIMEOUT 10.0
#define IDLE_TIMEOUT 5.0
#define MAX_CONNECTIONS 256
/* Descriptors the default cap leaves to the rest of the process. */
#define SPARE_DESCRIPTORS 16

typedef struct taal_http_conn {
    taal_coro co;
    taal_stream *stream;  /* the connection (taal_start_server sets it) */
    taal_http_site *site; /* what to serve */
    taal_task *task;      /* the task serving it */
    size_t cap;           /* the site's max_connections, or the default */
    struct taal_http_conn *idle_prev, *idle_next; /* in the site's idle list */
    bool idle;                    /* on it: waiting for a request's first byte */
    bool kept;                    /* a request was answered on it before */
    bool started;                 /* the request's first byte has come */
    bool idle_done;               /* and the wait was moved to header_timeout */
    taal_timeout timeout;         /* the wait for one request */
    int rc;                       /* what parsing said last */
    http_parser parser;           /* the request being read */
    const taal_http_route *route; /* its response, or NULL: 404 */
    bool head;                    /* a HEAD request: no body */
    int st;                       /* the status of the last await */
    size_t have;                  /* bytes of an unfinished line */
    const char *body;             /* the body being sent */
    size_t length, repeat;        /* its length, how many times */
    size_t rep, off;              /* where in it the sending is */
    bool chunked, keep;           /* how, and whether to go on after */
    char line[320];               /* a status line and headers, or a chunk's size */
} conn_frame;

static const taal_http_route not_found = {"", 404, "text/plain", "not found\n",
                                          0,  0,   false};

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
    }
}

static const taal_http_route *route_for(const taal_http_site *site, http_span target)
{
    for (size_t i = 0; i < site->count; i++) {
        const taal_http_route *r = &site->routes[i];
        if (strlen(r->path) == target.len && memcmp(r->path, target.at, target.len) == 0)
            return r;
    }
    return &not_found;
}

/* Parses what is buffered: HTTP_MESSAGE_DONE, HTTP_NEED_MORE (f->have
 * set), or the parser's error. The route is chosen at the request line,
 * while the target's bytes are still in the buffer. */
static int parse_some(conn_frame *f)
{
    const char *data;
    size_t len = taal_stream_peek(f->stream, &data);
    if (len > 0)
        f->started = true;
    for (;;) {
        http_event ev;
        int rc = http_parse(&f->parser, data, len, &ev);
        data += ev.consumed;
        len -= ev.consumed;
        taal_stream_consume(f->stream, ev.consumed);
        if (rc == HTTP_REQUEST_LINE) {
            f->route = route_for(f->site, ev.target);
            f->head = http_span_is(ev.method, "HEAD");
        } else if (rc == HTTP_NEED_MORE) {
            f->have = len;
            return rc;
        } else if (rc == HTTP_MESSAGE_DONE || rc < 0) {
            return rc;
        }
    }
}

/* Appends to the head being built in f->line, after its first *used bytes.
 * snprintf() returns the length it would have written, which may be more
 * than the room there was: adding that to *used unchecked would move the
 * next write past the end of the line. False when it did not fit. */
static bool append(conn_frame *f, size_t *used, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static bool append(conn_frame *f, size_t *used, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(f->line + *used, sizeof f->line - *used, format, args);
    va_end(args);
    if (n < 0 || (size_t)n >= sizeof f->line - *used)
        return false;
    *used += (size_t)n;
    return true;
}

/* Queues the status line and headers of `route` (or of an error status
 * with an empty body, which also ends the connection), and sets up the
 * body. TAAL_ELIMIT for a head that
 * does not fit in the line (taal_http_serve() refuses the routes that
 * would make one). */
static int start_response(conn_frame *f, const taal_http_route *route, int status)
{
    f->body = route != NULL ? route->body : "";
    f->length = route != NULL ? (route->length ? route->length : strlen(route->body)) : 0;
    f->repeat = route != NULL && route->repeat ? route->repeat : 1;
    f->chunked = route != NULL && route->chunked;
    if (route == NULL)
        f->keep = f->head = false;
    if (f->head)
        f->repeat = 0;
    size_t used = 0;
    bool fits =
        append(f, &used, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n", status, reason(status),
               route != NULL && route->content_type ? route->content_type : "text/plain");
    if (fits && f->chunked)
        fits = append(f, &used, "Transfer-Encoding: chunked\r\n");
    else if (fits)
        fits = append(f, &used, "Content-Length: %zu\r\n",
                      f->length * (route != NULL && route->repeat ? route->repeat : 1));
    if (fits)
        fits = append(f, &used, "%s\r\n", f->keep ? "" : "Connection: close\r\n");
    if (!fits)
        return TAAL_ELIMIT;
    f->rep = f->off = 0;
    return taal_stream_write(f->stream, f->line, used);
}

/* Queues the next piece of the body (with its chunk framing); 1 when
 * there is none left. */
static int next_piece(conn_frame *f)
{
    if (f->off == f->length) {
        f->off = 0;
        f->rep++;
    }
    if (f->rep >= f->repeat || f->length == 0)
        return 1;
    size_t n = f->length - f->off < PIECE ? f->length - f->off : PIECE;
    int rc = TAAL_OK;
    if (f->chunked) {
        int k = snprintf(f->line, sizeof f->line, "%zx\r\n", n);
        rc = taal_stream_write(f->stream, f->line, (size_t)k);
    }
    if (rc == TAAL_OK)
        rc = taal_stream_write(f->stream, f->body + f->off, n);
    if (rc == TAAL_OK && f->chunked)
        rc = taal_stream_write(f->stream, "\r\n", 2);
    f->off += n;
    return rc;
}

/* ---- the limits ---------------------------------------------------------------- */

static double limit_or(double value, double default_value)
{
    return value > 0 ? value : default_value;
}

/* The connections waiting for a request's first byte, the longest idle
 * first: the ones to close when a new connection needs room. */
static void idle_add(conn_frame *f)
{
    taal_http_site *site = f->site;
    f->idle = true;
    f->idle_next = NULL;
    f->idle_prev = site->idle_last;
    if (site->idle_last != NULL)
        site->idle_last->idle_next = f;
    else
        site->idle_first = f;
    site->idle_last = f;
}

static void idle_remove(conn_frame *f)
{
    taal_http_site *site = f->site;
    if (!f->idle)
        return;
    if (f->idle_prev != NULL)
        f->idle_prev->idle_next = f->idle_next;
    else
        site->idle_first = f->idle_next;
    if (f->idle_next != NULL)
        f->idle_next->idle_prev = f->idle_prev;
    else
        site->idle_last = f->idle_prev;
    f->idle = false;
}

/* The default cap: MAX_CONNECTIONS, or fewer if the process may not open
 * that many descriptors, so that the server stops at its cap, where idle
 * connections make room, before accept() fails with EMFILE, where nothing
 * does. */
static size_t default_cap(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= MAX_CONNECTIONS + SPARE_DESCRIPTORS)
        return MAX_CONNECTIONS;
    return rl.rlim_cur > SPARE_DESCRIPTORS + 1 ? (size_t)rl.rlim_cur - SPARE_DESCRIPTORS
                                               : 1;
}

/* A new connection over the cap: room is made by cancelling the connection
 * idle longest (it closes as it wakes), or there is none. */
static bool make_room(taal_http_site *site, size_t cap)
{
    if (site->active <= cap)
        return true;
    conn_frame *victim = site->idle_first;
    if (victim == NULL)
        return false;
    idle_remove(victim);
    taal_task_cancel(victim->task);
    site->evicted++;
    return true;
}

static void note_peak(conn_frame *f)
{
    if (f->stream->peak > f->site->peak)
        f->site->peak = f->stream->peak;
}

static int conn_body(taal_coro *self)
{
    conn_frame *f = (conn_frame *)self;
    int rc;
    TAAL_BEGIN(f);
    http_parser_init(&f->parser, HTTP_REQUEST, NULL);
    f->task = taal_current_task();
    f->site->active++;
    if (!make_room(f->site, f->cap)) { /* full of connections that are all busy */
        f->site->refused++;
        start_response(f, NULL, 503);
        goto close;
    }
    for (;;) {
        /* 1. A request, within its time: a kept-alive connection waits
         * idle_timeout for its first byte, then header_timeout for the
         * rest; a new one, header_timeout for all of it. */
        f->started = false;
        f->st = taal_timeout_open(
            &f->timeout, f->kept ? limit_or(f->site->idle_timeout, IDLE_TIMEOUT)
                                 : limit_or(f->site->header_timeout, HEADER_TIMEOUT));
        if (f->st != TAAL_OK)
            break;
        while ((f->rc = parse_some(f)) == HTTP_NEED_MORE) {
            if (f->started && f->kept && !f->idle_done) {
                f->idle_done = true; /* the first byte came: the head's clock now */
                taal_timeout_reschedule(
                    &f->timeout, taal_loop_time(taal_running_loop()) +
                                     limit_or(f->site->header_timeout, HEADER_TIMEOUT));
            }
            if (!f->started)
                idle_add(f);
            TAAL_STREAM_FILL_STATUS(f->st, f->stream, f->have);
            idle_remove(f);
            if (f->st != TAAL_OK)
                break;
        }
        f->st = taal_timeout_close(&f->timeout, f->st);
        if (f->st == TAAL_ETIMEDOUT) {
            f->site->timeouts++;
            if (f->started) /* a request begun and not finished: say why */
                start_response(f, NULL, 408);
            break;
        }
        if (f->st == TAAL_EEOF && http_parse_eof(&f->parser) == HTTP_CLOSED)
            break; /* the client is done: a clean end */
        if (f->st != TAAL_OK) {
            f->site->last_error = f->st;
            break;
        }
        if (f->rc < 0) { /* a bad request: say which status, and hang up */
            start_response(f, NULL, http_error_status(f->rc));
            break;
        }

        /* 2. Its response, a piece at a time. */
        f->keep = f->parser.keep_alive;
        f->st = start_response(f, f->route, f->route->status);
        while (f->st == TAAL_OK && (rc = next_piece(f)) == TAAL_OK) {
            note_peak(f);
            if (f->stream->paused)
                f->site->drains++;
            TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
        }
        if (f->st == TAAL_OK && rc != 1)
            f->st = rc;
        note_peak(f);
        if (f->st != TAAL_OK) {
            f->site->last_error = f->st;
            break;
        }
        if (f->chunked)
            f->st = taal_stream_write(f->stream, "0\r\n\r\n", 5);
        f->site->requests++;
        if (!f->keep || f->st != TAAL_OK)
            break;
        http_parser_reset(&f->parser);
        f->kept = true;
        f->idle_done = false;
    }
close:
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    f->site->active--;
    TAAL_END();
}

/* A route the server can send: a path, a body, a three-digit status, and a
 * content type short enough for the head's line and free of control bytes
 * (a CR or LF in it would end the header early: header injection). */
static bool route_valid(const taal_http_route *r)
{
    if (r->path == NULL || r->body == NULL || r->status < 100 || r->status > 999)
        return false;
    if (r->content_type == NULL)
        return true;
    size_t len = strlen(r->content_type);
    if (len > TAAL_HTTP_MAX_CONTENT_TYPE)
        return false;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)r->content_type[i] < 0x20 || r->content_type[i] == 0x7f)
            return false;
    return true;
}

int taal_http_serve(taal_loop *loop, const char *host, int port, taal_http_site *site,
                    taal_server **server)
{
    if (site == NULL || (site->count > 0 && site->routes == NULL))
        return TAAL_EINVAL;
    for (size_t i = 0; i < site->count; i++)
        if (!route_valid(&site->routes[i]))
            return TAAL_EINVAL;
    conn_frame frame = {.site = site,
                        .cap = site->max_connections ? site->max_connections
                                                     : default_cap()};
    return taal_start_server(loop, host, port, conn_body, &frame, sizeof frame,
                             offsetof(conn_frame, stream), server);
}
