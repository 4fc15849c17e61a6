/*
** http_support.h -- a raw HTTP server for chapter 07's client tests: it
** answers each request, in order, with bytes of the test's choosing, so
** that every fault a real server can commit can be committed on purpose.
**
**   /ok          200 with a Content-Length body, "hello"
**   /chunked     200 with a chunked body, "hello", and a trailer
**   /cut/N       the first N bytes of /chunked, then a hang-up
**   /cutlen/N    the first N bytes of /ok, then a hang-up
**   /malformed   a status code that is not a number
**   /huge        a Content-Length of 2 MB (over the session's 1 MiB)
**   /longheader  a header line of 9,000 bytes
**   /close       200, "ok", Connection: close, then a hang-up
**   /ok-close    /ok, then a hang-up without a word (an idle keep-alive
**                connection that the server closes)
**   /other       200 with a Content-Length body, "world"
**   /slow/N      /ok after N seconds
**   /silent      nothing, ever
**   /early       100 Continue, 103 Early Hints (with a Link), then 200
**                "hello" with an X-Final header
**   /switch      101 Switching Protocols, unasked
**   /extra       /ok with more bytes after its body than Content-Length said
**   /nocontent   204 No Content with a body, which a 204 never has
**   /notmodified 304 Not Modified with a body, likewise
**   /forever     200 with a chunked body that never ends
**   /hangup      nothing: the server hangs up at once
**   /r301        301 to http://T.EXAMPLE/other (absolute, the host in capitals)
**   /r302        302 to /ok
**   /r307        307 to echo?x=1 (relative to its directory: /echo?x=1)
**   /loop        302 to /loop, for ever
**   /away        302 to http://elsewhere.example/, a host the session does not know
**   /echo...     200 with the request's head (its request line and fields,
**   /?...        up to the empty line) and its body (by Content-Length) as
**                the body
*/
#ifndef TAAL_HTTP_SUPPORT_H
#define TAAL_HTTP_SUPPORT_H

#include "io_support.h"
#include "taal_http.h"

#include <stddef.h>
#include <stdlib.h>

static const char ok_response[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
static const char chunked_response[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                                       "X-A: b\r\n\r\n5\r\nhello\r\n0\r\nT: v\r\n\r\n";

typedef struct raw {
    taal_coro co;
    taal_stream *stream;
    char head[TAAL_HTTP_MAX_REQUEST_HEAD + 16];
    char big[TAAL_HTTP_MAX_REQUEST_HEAD + 1024];
    size_t n, body_n, got;
    int st;
    bool hang_up;
    bool forever; /* /forever: chunks until the client gives up */
} raw;

/* What to send for the request line in `head`; its length in *n, and
 * whether to hang up after. */
static inline const char *answer(raw *f, size_t *n, double *delay)
{
    const char *path = strchr(f->head, ' ') + 1; /* after the method */
    *delay = 0;
    f->hang_up = false;
    f->forever = false;
    if (strncmp(path, "/ok ", 4) == 0 || strncmp(path, "/slow/", 6) == 0) {
        if (path[1] == 's')
            *delay = atof(path + 6);
        *n = sizeof ok_response - 1;
        return ok_response;
    }
    if (strncmp(path, "/other ", 7) == 0) {
        static const char other[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nworld";
        *n = sizeof other - 1;
        return other;
    }
    if (strncmp(path, "/ok-close ", 10) == 0) {
        f->hang_up = true;
        *n = sizeof ok_response - 1;
        return ok_response;
    }
    if (strncmp(path, "/chunked ", 9) == 0) {
        *n = sizeof chunked_response - 1;
        return chunked_response;
    }
    if (strncmp(path, "/cut/", 5) == 0 || strncmp(path, "/cutlen/", 8) == 0) {
        bool len = path[4] == 'l';
        size_t most = len ? sizeof ok_response - 1 : sizeof chunked_response - 1;
        *n = (size_t)atoi(path + (len ? 8 : 5));
        *n = *n < most ? *n : most;
        f->hang_up = true;
        return len ? ok_response : chunked_response;
    }
    if (strncmp(path, "/malformed ", 11) == 0) {
        static const char bad[] = "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n";
        *n = sizeof bad - 1;
        return bad;
    }
    if (strncmp(path, "/huge ", 6) == 0) {
        static const char huge[] = "HTTP/1.1 200 OK\r\nContent-Length: 2000000\r\n\r\n";
        *n = sizeof huge - 1;
        return huge;
    }
    if (strncmp(path, "/longheader ", 12) == 0) {
        int k = snprintf(f->big, sizeof f->big, "HTTP/1.1 200 OK\r\nX-Long: ");
        memset(f->big + k, 'a', 9000);
        memcpy(f->big + k + 9000, "\r\n\r\n", 4);
        *n = (size_t)k + 9004;
        return f->big;
    }
    if (strncmp(path, "/close ", 7) == 0) {
        f->hang_up = true;
        static const char bye[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                                  "Connection: close\r\n\r\nok";
        *n = sizeof bye - 1;
        return bye;
    }
    if (strncmp(path, "/early ", 7) == 0) {
        static const char early[] = "HTTP/1.1 100 Continue\r\n\r\n"
                                    "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                                    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
                                    "X-Final: yes\r\n\r\nhello";
        *n = sizeof early - 1;
        return early;
    }
    if (strncmp(path, "/switch ", 8) == 0) {
        static const char up[] = "HTTP/1.1 101 Switching Protocols\r\n"
                                 "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
        *n = sizeof up - 1;
        return up;
    }
    if (strncmp(path, "/extra ", 7) == 0) {
        static const char extra[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
                                    "hello, and then some\r\n";
        *n = sizeof extra - 1;
        return extra;
    }
    if (strncmp(path, "/nocontent ", 11) == 0) {
        static const char none[] = "HTTP/1.1 204 No Content\r\n\r\nsurprise\r\n";
        *n = sizeof none - 1;
        return none;
    }
    if (strncmp(path, "/notmodified ", 13) == 0) {
        static const char same[] = "HTTP/1.1 304 Not Modified\r\n\r\nsurprise\r\n";
        *n = sizeof same - 1;
        return same;
    }
    if (strncmp(path, "/forever ", 9) == 0) {
        static const char head[] =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        f->forever = true;
        *n = sizeof head - 1;
        return head;
    }
    if (strncmp(path, "/echo", 5) == 0 || strncmp(path, "/?", 2) == 0) {
        size_t len = strlen(f->head);
        int k = snprintf(f->big, sizeof f->big,
                         "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", len);
        memcpy(f->big + k, f->head, len);
        *n = (size_t)k + (strncmp(f->head, "HEAD ", 5) == 0 ? 0 : len); /* no body */
        return f->big;
    }
    static const struct {
        const char *path, *response;
    } moved[] = {
        {"/r301 ",
         "HTTP/1.1 301 Moved Permanently\r\nLocation: http://T.EXAMPLE/other\r\n"
         "Content-Length: 5\r\n\r\nmoved"},
        {"/r302 ", "HTTP/1.1 302 Found\r\nLocation: /ok\r\nContent-Length: 0\r\n\r\n"},
        {"/r307 ", "HTTP/1.1 307 Temporary Redirect\r\nLocation: echo?x=1\r\n"
                   "Content-Length: 0\r\n\r\n"},
        {"/loop ", "HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n\r\n"},
        {"/away ", "HTTP/1.1 302 Found\r\nLocation: http://elsewhere.example/\r\n"
                   "Content-Length: 0\r\n\r\n"},
    };
    for (size_t i = 0; i < sizeof moved / sizeof moved[0]; i++)
        if (strncmp(path, moved[i].path, strlen(moved[i].path)) == 0) {
            *n = strlen(moved[i].response);
            return moved[i].response;
        }
    if (strncmp(path, "/hangup ", 8) == 0) {
        f->hang_up = true;
        *n = 0;
        return "";
    }
    *delay = 1e6; /* /silent */
    *n = 0;
    return "";
}

static inline int raw_body(taal_coro *self)
{
    raw *f = (raw *)self;
    const char *bytes;
    double delay;
    TAAL_BEGIN(f);
    for (;;) {
        TAAL_STREAM_READUNTIL_STATUS(f->st, f->stream, "\r\n\r\n", 4, f->head,
                                     sizeof f->head - 1, f->n);
        if (f->st != TAAL_OK)
            break;
        f->head[f->n] = '\0';
        { /* a request body, after the head; kept with it for /echo */
            const char *cl = strstr(f->head, "Content-Length: ");
            f->body_n = cl != NULL ? (size_t)atol(cl + 16) : 0;
        }
        if (f->body_n > sizeof f->head - 1 - f->n)
            break;
        if (f->body_n > 0) {
            TAAL_STREAM_READEXACTLY_STATUS(f->st, f->stream, f->head + f->n, f->body_n,
                                           f->got);
            if (f->st != TAAL_OK)
                break;
            f->n += f->body_n;
            f->head[f->n] = '\0';
        }
        answer(f, &f->n, &delay);
        if (delay > 0)
            TAAL_SLEEP_STATUS(f->st, delay);
        if (f->st != TAAL_OK)
            break;
        bytes = answer(f, &f->n, &delay);
        f->st = taal_stream_write(f->stream, bytes, f->n);
        while (f->st == TAAL_OK && f->forever) {
            memset(f->big, 'z', sizeof f->big);
            memcpy(f->big, "2000\r\n", 6); /* 8,192 bytes a chunk */
            memcpy(f->big + 6 + 8192, "\r\n", 2);
            f->st = taal_stream_write(f->stream, f->big, 6 + 8192 + 2);
            if (f->st == TAAL_OK)
                TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
        }
        if (f->st != TAAL_OK || f->hang_up)
            break;
    }
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

static inline taal_server *raw_server(taal_loop *loop)
{
    taal_server *server = NULL;
    taal_start_server(loop, "127.0.0.1", 0, raw_body, NULL, sizeof(raw),
                      offsetof(raw, stream), &server);
    return server;
}

/* A task that GETs each of its URLs at once through one session, and
 * keeps every status, status code and body. */
enum { MAX_GETS = 8 };

typedef struct one_get {
    taal_coro co;
    taal_http_session *session;
    const char *url; /* "POST http://...": that method (a word before the URL) */
    double start_at; /* > 0: sleep until then before the request */
    taal_http_get get;
    int st;
} one_get;

static inline int one_get_body(taal_coro *self)
{
    one_get *f = (one_get *)self;
    TAAL_BEGIN(f);
    if (f->start_at > 0)
        TAAL_SLEEP(f->start_at - taal_loop_time(taal_running_loop()));
    {
        const char *space =
            strncmp(f->url, "http", 4) == 0 || strncmp(f->url, "HTTP", 4) == 0
                ? NULL
                : strchr(f->url, ' ');
        char method[16] = "GET";
        if (space != NULL)
            snprintf(method, sizeof method, "%.*s", (int)(space - f->url), f->url);
        taal_http_request_init(&f->get, f->session, method,
                               space != NULL ? space + 1 : f->url);
    }
    TAAL_AWAIT_STATUS(f->st, &f->get);
    TAAL_FAIL(f->st);
    TAAL_END();
}

typedef struct result {
    int st, code, http_error;
    char body[512];
    char headers[128]; /* every field, "name: value\n" each */
    char x_final[16];  /* the value of X-Final, looked up as "x-FINAL" */
} result;

typedef struct fetcher {
    taal_coro co;
    int port;
    const char *urls[MAX_GETS];
    int count;
    double cancel_at[MAX_GETS]; /* > 0: cancel that request then */
    double start_at[MAX_GETS];  /* > 0: start that request then */
    unsigned pipeline;          /* > 0: the session's pipeline depth */
    taal_http_session session;
    taal_task *tasks[MAX_GETS];
    result results[MAX_GETS];
    int i, st;
} fetcher;

static inline int fetcher_body(taal_coro *self)
{
    fetcher *f = (fetcher *)self;
    TAAL_BEGIN(f);
    taal_http_session_open(&f->session);
    taal_http_session_map(&f->session, "t.example", "127.0.0.1", f->port);
    if (f->pipeline > 0)
        f->session.pipeline = f->pipeline;
    for (f->i = 0; f->i < f->count; f->i++)
        taal_task_create(taal_running_loop(), one_get_body,
                         &(one_get){.session = &f->session,
                                    .url = f->urls[f->i],
                                    .start_at = f->start_at[f->i]},
                         sizeof(one_get), NULL, &f->tasks[f->i]);
    for (f->i = 0; f->i < f->count; f->i++) {
        if (f->cancel_at[f->i] > 0) {
            TAAL_SLEEP(f->cancel_at[f->i] - taal_loop_time(taal_running_loop()));
            taal_task_cancel(f->tasks[f->i]);
        }
    }
    for (f->i = 0; f->i < f->count; f->i++) {
        TAAL_AWAIT_TASK_STATUS(f->st, f->tasks[f->i]);
        one_get *g = taal_task_frame(f->tasks[f->i]);
        result *r = &f->results[f->i];
        r->st = f->st;
        r->code = g->get.status_code;
        r->http_error = g->get.http_error;
        snprintf(r->body, sizeof r->body, "%s", g->get.body ? g->get.body : "");
        const char *name, *value;
        for (size_t k = 0; taal_http_get_header_at(&g->get, k, &name, &value); k++) {
            size_t used = strlen(r->headers);
            snprintf(r->headers + used, sizeof r->headers - used, "%s: %s\n", name,
                     value);
        }
        value = taal_http_get_header(&g->get, "x-FINAL");
        snprintf(r->x_final, sizeof r->x_final, "%s", value ? value : "");
        taal_http_get_free(&g->get);
        taal_task_release(f->tasks[f->i]);
    }
    f->st = taal_http_session_close(&f->session);
    TAAL_FAIL(f->st);
    TAAL_END();
}

/* What the last fetch_piped() saw: the connections its server accepted,
 * and the loop's (virtual) time when all its requests had ended. */
static struct {
    size_t accepted;
    double ended;
} raw_last;

/* Runs a fetcher of `count` URLs against a raw server, through a session
 * with `pipeline` requests in flight on a connection (0: the default); its
 * results are copied into `out`. Returns the fetcher's status; *leaks is
 * what the loop still held before it closed (must be 0). */
static inline int fetch_piped(const char *const urls[], int count,
                              const double *cancel_at, const double *start_at,
                              unsigned pipeline, result *out, int *leaks)
{
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = raw_server(&loop);
    if (server == NULL)
        return TAAL_EIO;
    fetcher *f = calloc(1, sizeof *f);
    f->port = server->port;
    f->count = count;
    f->pipeline = pipeline;
    for (int i = 0; i < count; i++) {
        f->urls[i] = urls[i];
        f->cancel_at[i] = cancel_at != NULL ? cancel_at[i] : 0;
        f->start_at[i] = start_at != NULL ? start_at[i] : 0;
    }
    taal_task *task = NULL;
    int rc = taal_task_create(&loop, fetcher_body, f, sizeof *f, "fetcher", &task);
    free(f);
    if (rc == TAAL_OK)
        rc = taal_run_until_complete(&loop, taal_task_future(task));
    raw_last.accepted = server->accepted;
    raw_last.ended = taal_loop_time(&loop);
    memcpy(out, ((fetcher *)taal_task_frame(task))->results, (size_t)count * sizeof *out);
    taal_task_release(task);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        if (taal_run_once(&loop) != TAAL_OK)
            break;
    *leaks = live_objects(&loop);
    taal_loop_close(&loop);
    return rc;
}

/* Through a session as it opens. */
static inline int fetch_all_at(const char *const urls[], int count,
                               const double *cancel_at, const double *start_at,
                               result *out, int *leaks)
{
    return fetch_piped(urls, count, cancel_at, start_at, 0, out, leaks);
}

/* All the URLs at once. */
static inline int fetch_all(const char *const urls[], int count, const double *cancel_at,
                            result *out, int *leaks)
{
    return fetch_all_at(urls, count, cancel_at, NULL, out, leaks);
}

#endif /* TAAL_HTTP_SUPPORT_H */
