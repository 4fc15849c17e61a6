/*
** http_server.c -- chapter 07: a small HTTP/1.1 server, with fixed
** responses or handler coroutines, for the examples and the tests.
**
** Each connection is a task (taal_start_server) running conn_body: parse
** a request from the stream's buffer (awaiting more bytes when the parser
** needs them), answer it, and go on while the connection is kept alive.
** Requests pipelined by a client are simply already in the buffer.
**
** A request is judged when its head is complete (judge()): a method the
** server does not know, one the route does not allow, a missing Host or a
** body too large for a handler is answered at once, and the connection is
** closed without reading the body; a request that will be read and asks
** for it (Expect: 100-continue) is told "100 Continue" then, before its
** body is waited for. A route with a handler gets the request copied out
** of the stream (method, path, query, fields, body) and its handler is
** awaited in the connection's task, as a child coroutine whose frame the
** server allocates.
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
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifndef _WIN32
#include <sys/resource.h>
#endif

enum { PIECE = 16384 };

/* The defaults of the site's limits. */
#define HEADER_TIMEOUT 10.0
#define IDLE_TIMEOUT 5.0
/* Seconds a refused request's body is read and dropped, at most. */
#define LINGER 5.0
#define MAX_CONNECTIONS 256
/* Descriptors the default cap leaves to the rest of the process. */
#define SPARE_DESCRIPTORS 16

/* parse_some() stopped: the request is refused (f->refuse says how). */
#define REFUSED 100

typedef struct taal_http_conn {
    taal_coro co;
    taal_stream *stream;  /* the connection (taal_start_server sets it) */
    taal_http_site *site; /* what to serve */
    taal_task *task;      /* the task serving it */
    size_t cap;           /* the site's max_connections, or the default */
    struct taal_http_conn *idle_prev, *idle_next; /* in the site's idle list */
    bool idle;                        /* on it: waiting for a request's first byte */
    bool kept;                        /* a request was answered on it before */
    bool started;                     /* the request's first byte has come */
    bool idle_done;                   /* and the wait was moved to header_timeout */
    taal_timeout timeout;             /* the wait for one request */
    int rc;                           /* what parsing said last */
    http_parser parser;               /* the request being read */
    const taal_http_route *route;     /* its route, or the 404 */
    unsigned method;                  /* its method's bit, 0 if unknown */
    int hosts;                        /* how many Host fields it had */
    bool expect;                      /* it said Expect: 100-continue */
    int refuse;                       /* the status it is refused with, or 0 */
    bool head;                        /* a HEAD request: no body */
    int st;                           /* the status of the last await */
    size_t have;                      /* bytes of an unfinished line */
    taal_http_server_request request; /* a handler's request */
    taal_http_response response;      /* and its response */
    taal_http_handler *handler;       /* the handler's frame, while it runs */
    const char *body;                 /* the body being sent */
    size_t length, repeat;            /* its length, how many times */
    size_t rep, off;                  /* where in it the sending is */
    bool chunked, keep;               /* how, and whether to go on after */
    time_t date_at;                   /* the second `date` was made for */
    char date[40];                    /* the Date header's value */
    char line[1024];                  /* a status line and headers, or a chunk's size */
} conn_frame;

static const taal_http_route not_found = {
    .path = "", .status = 404, .content_type = "text/plain", .body = "not found\n"};

/* The reason phrases of RFC 9110 section 15, for every status it names. */
static const char *reason(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 205: return "Reset Content";
    case 206: return "Partial Content";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 305: return "Use Proxy";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 407: return "Proxy Authentication Required";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 417: return "Expectation Failed";
    case 421: return "Misdirected Request";
    case 422: return "Unprocessable Content";
    case 426: return "Upgrade Required";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
    }
}

/* The methods the server knows, in the order an Allow header lists them.
 * Methods are case-sensitive (RFC 9110 9.1): "get" is not GET. */
static const struct {
    const char *name;
    unsigned bit;
} methods[] = {{"GET", TAAL_HTTP_GET},         {"HEAD", TAAL_HTTP_HEAD},
               {"POST", TAAL_HTTP_POST},       {"PUT", TAAL_HTTP_PUT},
               {"DELETE", TAAL_HTTP_DELETE},   {"CONNECT", TAAL_HTTP_CONNECT},
               {"OPTIONS", TAAL_HTTP_OPTIONS}, {"TRACE", TAAL_HTTP_TRACE},
               {"PATCH", TAAL_HTTP_PATCH}};

static unsigned method_bit(http_span method)
{
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strlen(methods[i].name) == method.len &&
            memcmp(methods[i].name, method.at, method.len) == 0)
            return methods[i].bit;
    return 0;
}

/* What a route allows: GET and HEAD by default, and HEAD wherever GET. */
static unsigned allowed(const taal_http_route *r)
{
    unsigned m = r->methods ? r->methods : TAAL_HTTP_GET;
    return m & TAAL_HTTP_GET ? m | TAAL_HTTP_HEAD : m;
}

/* The length of the path in a request target: up to its '?', if any. */
static size_t path_length(http_span target)
{
    const char *q = memchr(target.at, '?', target.len);
    return q != NULL ? (size_t)(q - target.at) : target.len;
}

/* The first route whose path is the target's, or (prefix routes) begins
 * it; the query is not part of the match. */
static const taal_http_route *route_for(const taal_http_site *site, http_span target)
{
    size_t len = path_length(target);
    for (size_t i = 0; i < site->count; i++) {
        const taal_http_route *r = &site->routes[i];
        size_t n = strlen(r->path);
        if ((n == len || (r->prefix && n < len)) && memcmp(r->path, target.at, n) == 0)
            return r;
    }
    return &not_found;
}

/* ---- a handler's request and response ----------------------------------------- */

/* Makes room for `more` bytes after the first `len` of *buf. */
static int grow(char **buf, size_t *cap, size_t len, size_t more)
{
    if (more <= *cap - len)
        return TAAL_OK;
    if (more > SIZE_MAX / 2 - len)
        return TAAL_ENOMEM;
    size_t want = *cap ? *cap : 256;
    while (want - len < more)
        want *= 2;
    char *p = taal__realloc(*buf, want);
    if (p == NULL)
        return TAAL_ENOMEM;
    *buf = p;
    *cap = want;
    return TAAL_OK;
}

/* Appends `n` bytes and a NUL to the request's text. */
static int text_add(taal_http_server_request *r, const char *at, size_t n)
{
    int rc = grow(&r->text, &r->text_cap, r->text_len, n + 1);
    if (rc != TAAL_OK)
        return rc;
    if (n > 0)
        memcpy(r->text + r->text_len, at, n);
    r->text[r->text_len + n] = '\0';
    r->text_len += n + 1;
    return TAAL_OK;
}

/* The request line: "method\0path\0query\0". */
static int request_start(taal_http_server_request *r, http_span method, http_span target)
{
    size_t len = path_length(target);
    size_t q = len < target.len ? len + 1 : target.len;
    r->text_len = r->field_count = r->body_len = 0;
    int rc = text_add(r, method.at, method.len);
    if (rc == TAAL_OK)
        rc = text_add(r, target.at, len);
    if (rc == TAAL_OK)
        rc = text_add(r, target.at + q, target.len - q);
    r->fields_start = r->text_len;
    return rc;
}

/* The head is complete: the pointers into the text, which moves no more. */
static void request_ready(taal_http_server_request *r, int version_minor)
{
    r->method = r->text;
    r->path = r->method + strlen(r->method) + 1;
    r->query = r->path + strlen(r->path) + 1;
    r->version_minor = version_minor;
    r->body = "";
}

static int request_body(taal_http_server_request *r, http_span piece)
{
    int rc = grow(&r->data, &r->data_cap, r->body_len, piece.len + 1);
    if (rc != TAAL_OK)
        return rc;
    memcpy(r->data + r->body_len, piece.at, piece.len);
    r->body_len += piece.len;
    r->data[r->body_len] = '\0';
    r->body = r->data;
    return TAAL_OK;
}

/* Between requests: a body buffer grown past KEEP_BODY for one large
 * upload is let go, so that a kept-alive connection holds no more than
 * that while it waits. */
#define KEEP_BODY 65536

static void request_done(taal_http_server_request *r)
{
    if (r->data_cap > KEEP_BODY) {
        taal__free(r->data);
        r->data = NULL;
        r->data_cap = 0;
    }
}

static void request_free(taal_http_server_request *r)
{
    taal__free(r->text);
    taal__free(r->data);
    *r = (taal_http_server_request){0};
}

size_t taal_http_server_request_header_count(const taal_http_server_request *request)
{
    return request != NULL ? request->field_count : 0;
}

bool taal_http_server_request_header_at(const taal_http_server_request *request,
                                        size_t index, const char **name,
                                        const char **value)
{
    const char *n = NULL, *v = NULL;
    if (request != NULL && index < request->field_count) {
        n = request->text + request->fields_start;
        for (size_t i = 0;; i++) {
            v = n + strlen(n) + 1;
            if (i == index)
                break;
            n = v + strlen(v) + 1;
        }
    }
    if (name != NULL)
        *name = n;
    if (value != NULL)
        *value = n != NULL ? v : NULL;
    return n != NULL;
}

static bool same_name(const char *a, const char *b)
{
    return http_span_is((http_span){a, strlen(a)}, b);
}

const char *taal_http_server_request_header(const taal_http_server_request *request,
                                            const char *name)
{
    const char *n, *v;
    if (name == NULL)
        return NULL;
    for (size_t i = 0; taal_http_server_request_header_at(request, i, &n, &v); i++)
        if (same_name(n, name))
            return v;
    return NULL;
}

/* A token (RFC 9110 5.6.2): the bytes a field name may have. */
static bool is_token(const char *s)
{
    if (s == NULL || *s == '\0')
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || strchr("!#$%&'*+-.^_`|~", *s) != NULL))
            return false;
    return true;
}

/* A field value: no control byte but HTAB, no DEL. A CR or LF would end
 * the field early and start one of the caller's choosing (injection). */
static bool is_value(const char *s)
{
    if (s == NULL)
        return false;
    for (; *s; s++)
        if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
            return false;
    return true;
}

/* The fields the server writes itself, which a route or handler may not. */
static bool reserved(const char *name)
{
    return same_name(name, "Date") || same_name(name, "Content-Length") ||
           same_name(name, "Transfer-Encoding") || same_name(name, "Connection");
}

int taal_http_response_header(taal_http_response *response, const char *name,
                              const char *value)
{
    if (response == NULL || !is_token(name) || !is_value(value) || reserved(name))
        return TAAL_EINVAL;
    size_t n = strlen(name), v = strlen(value);
    int rc =
        grow(&response->fields, &response->fields_cap, response->fields_len, n + v + 4);
    if (rc != TAAL_OK)
        return rc;
    char *at = response->fields + response->fields_len;
    memcpy(at, name, n);
    memcpy(at + n, ": ", 2);
    memcpy(at + n + 2, value, v);
    memcpy(at + n + 2 + v, "\r\n", 2);
    response->fields_len += n + v + 4;
    if (same_name(name, "Content-Type"))
        response->has_type = true;
    return TAAL_OK;
}

int taal_http_response_write(taal_http_response *response, const void *data, size_t n)
{
    if (response == NULL || (data == NULL && n > 0))
        return TAAL_EINVAL;
    int rc = grow(&response->body, &response->body_cap, response->body_len, n);
    if (rc != TAAL_OK || n == 0)
        return rc;
    memcpy(response->body + response->body_len, data, n);
    response->body_len += n;
    return TAAL_OK;
}

/* A fresh response for the next request, keeping the allocations. */
static void response_reset(taal_http_response *r)
{
    r->status = 200;
    r->fields_len = r->body_len = 0;
    r->has_type = false;
}

static void response_free(taal_http_response *r)
{
    taal__free(r->fields);
    taal__free(r->body);
    *r = (taal_http_response){0};
}

/* ---- reading a request ---------------------------------------------------------- */

static size_t max_body(const taal_http_site *site)
{
    return site->max_body ? site->max_body : TAAL_HTTP_MAX_REQUEST_BODY;
}

/* The head is complete: is the request refused, and with which status? A
 * refusal is sent at once, before any of the body is read, and the
 * connection is closed after it. A request that will be read and asked
 * for it is told "100 Continue" (RFC 9110 10.1.1), so that the client
 * sends its body; one refused is not, so that the client need not. */
static int judge(conn_frame *f)
{
    const http_parser *p = &f->parser;
    if (p->version_minor >= 1 && f->hosts != 1)
        return 400; /* RFC 9112 3.2: exactly one Host in 1.1 */
    if (f->method == 0)
        return 501;
    if (f->route != &not_found && !(allowed(f->route) & f->method))
        return 405;
    bool has_body = p->framing != HTTP_FRAMING_NONE;
    if (f->route->handler != NULL) {
        if (p->framing == HTTP_FRAMING_LENGTH && p->content_length > max_body(f->site))
            return 413;
        request_ready(&f->request, p->version_minor);
    }
    if (f->expect && has_body && p->version_minor >= 1) {
        static const char go_on[] = "HTTP/1.1 100 Continue\r\n\r\n";
        taal_stream_write(f->stream, go_on, sizeof go_on - 1); /* an error shows later */
    }
    return 0;
}

/* One event of the request, by what it is. */
static int on_event(conn_frame *f, int rc, const http_event *ev)
{
    bool collect = f->route != NULL && f->route->handler != NULL;
    int st = TAAL_OK;
    if (rc == HTTP_REQUEST_LINE) {
        f->route = route_for(f->site, ev->target);
        f->method = method_bit(ev->method);
        f->head = f->method == TAAL_HTTP_HEAD;
        if (f->route->handler != NULL)
            st = request_start(&f->request, ev->method, ev->target);
    } else if (rc == HTTP_HEADER) {
        if (http_span_is(ev->name, "Host"))
            f->hosts++;
        else if (http_span_is(ev->name, "Expect") &&
                 http_span_is(ev->value, "100-continue"))
            f->expect = true;
        if (collect) {
            st = text_add(&f->request, ev->name.at, ev->name.len);
            if (st == TAAL_OK)
                st = text_add(&f->request, ev->value.at, ev->value.len);
            f->request.field_count++;
        }
    } else if (rc == HTTP_HEADERS_DONE) {
        f->refuse = judge(f);
    } else if (rc == HTTP_BODY && collect) {
        if (f->request.body_len + ev->body.len > max_body(f->site))
            f->refuse = 413; /* a chunked body that grew too large */
        else
            st = request_body(&f->request, ev->body);
    }
    if (st != TAAL_OK)
        f->refuse = 500;
    return f->refuse ? REFUSED : rc;
}

/* Parses what is buffered: HTTP_MESSAGE_DONE, HTTP_NEED_MORE (f->have
 * set), REFUSED (f->refuse set) or the parser's error. Each event is
 * handled while its bytes are still in the buffer. */
static int parse_some(conn_frame *f)
{
    const char *data;
    size_t len = taal_stream_peek(f->stream, &data);
    if (len > 0)
        f->started = true;
    for (;;) {
        http_event ev;
        int rc = http_parse(&f->parser, data, len, &ev);
        if (rc > 0 && rc != HTTP_NEED_MORE && rc != HTTP_MESSAGE_DONE)
            rc = on_event(f, rc, &ev);
        data += ev.consumed;
        len -= ev.consumed;
        taal_stream_consume(f->stream, ev.consumed);
        if (rc == HTTP_NEED_MORE) {
            f->have = len;
            return rc;
        } else if (rc == HTTP_MESSAGE_DONE || rc == REFUSED || rc < 0) {
            return rc;
        }
    }
}

/* ---- writing a response ---------------------------------------------------------- */

/* Appends to the head being built in f->line, after its first *used bytes.
 * snprintf() returns the length it would have written, which may be more
 * than the room there was: adding that to *used unchecked would move the
 * next write past the end of the line. False when it did not fit. */
static bool append(conn_frame *f, size_t *used, const char *format, ...)
    TAAL__PRINTF(3, 4);

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

/* Chapter 08: the head of every response is pieces of text and one or two
 * numbers, and vsnprintf() spent some 3,000 instructions a response
 * parsing its formats (callgrind, bench_http): put() and put_num() copy
 * the pieces instead. The same rule as append(): false, with nothing
 * counted, unless the piece fits with room left for a NUL. */
static bool put(conn_frame *f, size_t *used, const char *text)
{
    size_t n = strlen(text);
    if (n >= sizeof f->line - *used)
        return false;
    memcpy(f->line + *used, text, n);
    *used += n;
    return true;
}

/* A number in decimal, as printf's %zu writes it (a status code is one
 * too: 100 to 999, never negative). */
static bool put_num(conn_frame *f, size_t *used, unsigned long long value)
{
    char digits[24];
    size_t k = sizeof digits - 1;
    digits[k] = '\0';
    do {
        digits[--k] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    return put(f, used, digits + k);
}

/* The Date header's value, an IMF-fixdate (RFC 9110 5.6.7), made once a
 * second: "Sun, 06 Nov 1994 08:49:37 GMT". Not strftime(), whose day and
 * month names follow the locale. */
static const char *http_date(conn_frame *f)
{
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t now = time(NULL);
    struct tm tm;
    if (now != f->date_at && gmtime_r(&now, &tm) != NULL) {
        f->date_at = now;
        snprintf(f->date, sizeof f->date, "%s, %02d %s %04d %02d:%02d:%02d GMT",
                 days[tm.tm_wday % 7], tm.tm_mday, months[tm.tm_mon % 12],
                 tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
    }
    return f->date;
}

/* A status whose responses never have a body, nor a Content-Length. */
static bool bodiless(int status)
{
    return status < 200 || status == 204 || status == 304;
}

/* Queues the status line and headers of a response: `route`'s (with the
 * handler's fields and body if it has a handler), or an error status's
 * with an empty body, which also ends the connection. Sets up the body.
 * TAAL_ELIMIT for a head that does not fit in the line (taal_http_serve()
 * refuses the routes that would make one). */
static int start_response(conn_frame *f, const taal_http_route *route, int status)
{
    const taal_http_response *res = route != NULL && route->handler ? &f->response : NULL;
    f->body = res ? res->body : route != NULL ? route->body : "";
    f->length = res             ? res->body_len
                : route != NULL ? (route->length ? route->length : strlen(route->body))
                                : 0;
    f->repeat = route != NULL && route->repeat && !res ? route->repeat : 1;
    f->chunked = route != NULL && route->chunked && !res;
    if (route == NULL)
        f->keep = false;
    size_t total = f->length * f->repeat;
    if (f->chunked && f->parser.version_minor == 0)
        f->chunked = false; /* HTTP/1.0 knows no chunks: it gets the length */
    bool none = bodiless(status);
    if (f->head || none)
        f->repeat = 0;
    size_t used = 0;
    const char *type = res && res->has_type                   ? NULL
                       : route != NULL && route->content_type ? route->content_type
                                                              : "text/plain";
    bool fits = put(f, &used, "HTTP/1.1 ") && put_num(f, &used, (unsigned)status) &&
                put(f, &used, " ") && put(f, &used, reason(status)) &&
                put(f, &used, "\r\nDate: ") && put(f, &used, http_date(f)) &&
                put(f, &used, "\r\n");
    if (fits && type != NULL && !none)
        fits = put(f, &used, "Content-Type: ") && put(f, &used, type) &&
               put(f, &used, "\r\n");
    if (fits && status == 405) {
        unsigned m = allowed(f->route);
        fits = append(f, &used, "Allow: ");
        for (size_t i = 0, n = 0; fits && i < sizeof methods / sizeof methods[0]; i++)
            if (m & methods[i].bit)
                fits = append(f, &used, "%s%s", n++ ? ", " : "", methods[i].name);
        fits = fits && append(f, &used, "\r\n");
    }
    for (size_t i = 0; fits && route != NULL && route->headers && route->headers[i];
         i += 2)
        fits = put(f, &used, route->headers[i]) && put(f, &used, ": ") &&
               put(f, &used, route->headers[i + 1]) && put(f, &used, "\r\n");
    if (fits && !none && f->chunked)
        fits = put(f, &used, "Transfer-Encoding: chunked\r\n");
    else if (fits && !none)
        fits = put(f, &used, "Content-Length: ") && put_num(f, &used, total) &&
               put(f, &used, "\r\n");
    if (fits && !f->keep)
        fits = put(f, &used, "Connection: close\r\n");
    else if (fits && f->parser.version_minor == 0)
        fits = put(f, &used, "Connection: keep-alive\r\n");
    if (!fits)
        return TAAL_ELIMIT;
    f->rep = f->off = 0;
    if (res == NULL || res->fields_len == 0) { /* the head in one write */
        if (!put(f, &used, "\r\n"))
            return TAAL_ELIMIT;
        if (!f->chunked && f->repeat == 1 && f->length <= sizeof f->line - used) {
            memcpy(f->line + used, f->body, f->length); /* and a small body with it: */
            used += f->length;                          /* one send, one segment */
            f->off = f->length;
        }
        return taal_stream_write(f->stream, f->line, used);
    }
    int rc = taal_stream_write(f->stream, f->line, used);
    if (rc == TAAL_OK)
        rc = taal_stream_write(f->stream, res->fields, res->fields_len);
    return rc == TAAL_OK ? taal_stream_write(f->stream, "\r\n", 2) : rc;
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

/* The last chunk, after a chunked body that was sent: none after a HEAD's
 * head or a bodiless status, whose body is not there to end. */
static int end_body(conn_frame *f)
{
    return f->chunked && f->repeat > 0 ? taal_stream_write(f->stream, "0\r\n\r\n", 5)
                                       : TAAL_OK;
}

/* The handler's frame, zeroed, its head filled in; NULL without memory. */
static taal_http_handler *handler_new(conn_frame *f)
{
    const taal_http_route *r = f->route;
    size_t size = r->handler_size ? r->handler_size : sizeof(taal_http_handler);
    taal_http_handler *h = taal__alloc(size);
    if (h == NULL)
        return NULL;
    memset(h, 0, size);
    (taal_coro_init)(&h->co, r->handler);
    h->request = &f->request;
    h->response = &f->response;
    h->data = r->handler_data;
    h->route = r;
    response_reset(&f->response);
    return h;
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
#ifdef _WIN32
    /* Windows has no descriptor limit for sockets (they are handles, of
     * which a process may have about 16 million), so nothing to stay under:
     * the cap is MAX_CONNECTIONS. (WSAPoll has no limit on its array
     * either; select() would, at FD_SETSIZE, 64 by default.) */
    return MAX_CONNECTIONS;
#else
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= MAX_CONNECTIONS + SPARE_DESCRIPTORS)
        return MAX_CONNECTIONS;
    return rl.rlim_cur > SPARE_DESCRIPTORS + 1 ? (size_t)rl.rlim_cur - SPARE_DESCRIPTORS
                                               : 1;
#endif
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

/* The parser's limits: its defaults, with room for the site's max_body
 * if that is larger (a fixed route's body is read and dropped, a
 * handler's is bounded by max_body itself). */
static void parser_start(conn_frame *f)
{
    http_limits limits = http_limits_default();
    if (max_body(f->site) > limits.max_body)
        limits.max_body = max_body(f->site);
    http_parser_init(&f->parser, HTTP_REQUEST, &limits);
}

static int conn_body(taal_coro *self)
{
    conn_frame *f = (conn_frame *)self;
    int rc;
    TAAL_BEGIN(f);
    parser_start(f);
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
        f->hosts = 0;
        f->expect = false;
        f->refuse = 0;
        f->route = NULL;
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
        if (f->rc < 0 || f->rc == REFUSED) { /* say which status, and hang up */
            f->st =
                start_response(f, NULL, f->rc < 0 ? http_error_status(f->rc) : f->refuse);
            goto linger;
        }

        /* 2. A handler makes its response, in this task: a child
         * coroutine, whose frame is freed however it ends. */
        f->keep = f->parser.keep_alive;
        if (f->route->handler != NULL) {
            f->handler = handler_new(f);
            if (f->handler == NULL) {
                start_response(f, NULL, 500);
                break;
            }
            TAAL_AWAIT_STATUS(f->st, f->handler);
            taal__free(f->handler);
            f->handler = NULL;
            if (f->st == TAAL_ECANCELLED)
                break; /* the server is closing */
            if (f->st != TAAL_OK || f->response.status < 200 ||
                f->response.status > 999) {
                start_response(f, NULL, 500);
                break;
            }
        }

        /* 3. Its response, a piece at a time. */
        f->st = start_response(f, f->route,
                               f->route->handler ? f->response.status : f->route->status);
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
        f->st = end_body(f);
        request_done(&f->request);
        f->site->requests++;
        if (!f->keep || f->st != TAAL_OK)
            break;
        http_parser_reset(&f->parser);
        f->kept = true;
        f->idle_done = false;
    }
    goto close;

linger:
    /* 4. A lingering close, as nginx's: a request refused before its body
     * was read may still be sending it, and closing a socket with unread
     * bytes makes the kernel send a reset, which can destroy the response
     * before the client reads it (curl: "Failure when receiving data",
     * for a 405 to a 20 MB POST). So: send the response, shut writing
     * (the client reads it, then the end), and read and drop what still
     * comes, until the client closes or LINGER seconds have passed. */
    if (f->st == TAAL_OK)
        TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
    if (f->st == TAAL_OK)
        f->st = taal_stream_write_eof(f->stream);
    if (f->st == TAAL_OK && taal_timeout_open(&f->timeout, LINGER) == TAAL_OK) {
        while (f->st == TAAL_OK) {
            taal_stream_consume(f->stream, taal_stream_buffered(f->stream));
            TAAL_STREAM_FILL_STATUS(f->st, f->stream, 0);
        }
        f->st = taal_timeout_close(&f->timeout, f->st);
    }
close:
    request_free(&f->request);
    response_free(&f->response);
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    f->site->active--;
    TAAL_END();
}

/* A loop closed with this connection's task still running (no taal_run()
 * to cancel it) frees the task's frame without running the cleanup at
 * conn_body's `close:`; this is that cleanup, for what the frame points
 * at: the request's copies, the response, the handler's frame, and the
 * site's list of idle connections and its count, which outlive the loop. */
static void conn_abandon(void *frame)
{
    conn_frame *f = frame;
    taal__free(f->handler);
    f->handler = NULL;
    request_free(&f->request);
    response_free(&f->response);
    idle_remove(f);
    if (f->task != NULL) /* it counted itself active */
        f->site->active--;
    f->task = NULL;
}

/* A route the server can send: a path, a body or a handler, a final
 * three-digit status, a content type short enough for the head's line and
 * free of control bytes (a CR or LF in it would end the header early:
 * header injection), and fields of its own under the same rules. */
static bool route_valid(const taal_http_route *r)
{
    if (r->path == NULL)
        return false;
    if (r->handler != NULL && r->handler_size != 0 &&
        r->handler_size < sizeof(taal_http_handler))
        return false;
    if (r->handler == NULL && (r->body == NULL || r->status < 200 || r->status > 999))
        return false;
    size_t bytes = 0;
    for (size_t i = 0; r->headers != NULL && r->headers[i] != NULL; i += 2) {
        const char *name = r->headers[i], *value = r->headers[i + 1];
        if (!is_token(name) || !is_value(value) || reserved(name))
            return false;
        bytes += strlen(name) + strlen(value) + 4;
        if (bytes > TAAL_HTTP_MAX_ROUTE_HEADERS)
            return false;
    }
    if (r->content_type == NULL)
        return true;
    return strlen(r->content_type) <= TAAL_HTTP_MAX_CONTENT_TYPE &&
           is_value(r->content_type);
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
    int rc = taal_start_server(loop, host, port, conn_body, &frame, sizeof frame,
                               offsetof(conn_frame, stream), server);
    if (rc == TAAL_OK)
        (*server)->abandon = conn_abandon;
    return rc;
}
