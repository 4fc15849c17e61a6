/*
** http_client.c -- chapter 07: the seed's "session": GET requests over one
** keep-alive connection per host, pipelined.
**
** A request is a coroutine (taal_http_get) in three steps:
**
**   1. Make sure its host has a connection: open it, or, if another
**      request is opening it, wait for that (an event), and look again.
**   2. Write the request, and take a place in the host's line of readers
**      (a chapter 03 lock, whose waiters are served first come, first
**      served), in one step: nothing can come between the two, so the line
**      is in the order the requests were sent, which is the order HTTP/1.1
**      sends the responses in.
**   3. With its turn, read responses until its own is complete. Normally
**      the first one is its own. But a request given up after it was sent
**      (cancelled, timed out) has left the line, and its response, or the
**      rest of it, is still coming: the parser's state lives with the host,
**      not the request, so the next reader carries on where it stopped,
**      reads that response to its end, and drops it.
**
** Step 3 is the reason the parser is a pull parser (http.h): the request
** parses, awaits more bytes, and parses on, and can stop at any await and
** leave the parser to someone else.
**
** What breaks a connection: a malformed response, the server closing it
** mid-response, a response that says "Connection: close". Then the host's
** generation moves on, and every request still in line that was sent on
** the old connection fails with TAAL_ECONNABORTED: its response will never
** come. The next request opens a new connection.
*/
#include "internal.h"
#include "taal_http.h"

#include <stdio.h>
#include <string.h>

/* ---- the session ----------------------------------------------------------- */

int taal_http_session_open(taal_http_session *session)
{
    if (session == NULL)
        return TAAL_EINVAL;
    taal_loop *loop = taal_running_loop();
    if (loop == NULL || taal_current_task() == NULL)
        return TAAL_ENOTASK;
    memset(session, 0, sizeof *session);
    session->loop = loop;
    session->limits = http_limits_default();
    session->limits.max_body = TAAL_HTTP_MAX_BODY;
    session->open = true;
    return TAAL_OK;
}

static taal_http_host *find_host(taal_http_session *session, const char *name, size_t len)
{
    for (size_t i = 0; i < session->host_count; i++) {
        taal_http_host *h = &session->hosts[i];
        if (strlen(h->name) == len && memcmp(h->name, name, len) == 0)
            return h;
    }
    return NULL;
}

int taal_http_session_map(taal_http_session *session, const char *name,
                          const char *address, int port)
{
    if (session == NULL || !session->open || name == NULL || address == NULL ||
        strlen(name) >= sizeof session->hosts[0].name ||
        strlen(address) >= sizeof session->hosts[0].address || port < 1 || port > 65535)
        return TAAL_EINVAL;
    if (find_host(session, name, strlen(name)) != NULL)
        return TAAL_EBUSY;
    if (session->host_count == TAAL_HTTP_MAX_HOSTS)
        return TAAL_EFULL;
    taal_http_host *h = &session->hosts[session->host_count];
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->address, sizeof h->address, "%s", address);
    h->port = port;
    int rc = taal_event_init(&h->connected, session->loop, h->name);
    if (rc == TAAL_OK)
        rc = taal_lock_init(&h->turn, session->loop, h->name);
    if (rc == TAAL_OK)
        rc = http_parser_init(&h->parser, HTTP_RESPONSE, &session->limits);
    if (rc == TAAL_OK)
        session->host_count++;
    return rc == HTTP_OK ? TAAL_OK : TAAL_EINVAL;
}

/* The connection is given up: closed at once, and every request sent on it
 * that is still in line will see that its generation has passed. */
static void host_break(taal_http_host *h)
{
    if (h->stream != NULL)
        taal_stream_abort(h->stream);
    h->stream = NULL;
    h->generation++;
}

int taal_http_session_close(taal_http_session *session)
{
    if (session == NULL)
        return TAAL_EINVAL;
    if (!session->open)
        return TAAL_OK;
    for (size_t i = 0; i < session->host_count; i++) {
        taal_http_host *h = &session->hosts[i];
        if (h->connecting || taal_lock_locked(&h->turn))
            return TAAL_EBUSY;
    }
    for (size_t i = 0; i < session->host_count; i++) {
        taal_http_host *h = &session->hosts[i];
        if (h->stream != NULL)
            taal_stream_close(h->stream); /* polite: what it wrote still goes */
        h->stream = NULL;
        taal_lock_destroy(&h->turn);
        taal_event_destroy(&h->connected);
    }
    session->open = false;
    return TAAL_OK;
}

/* `async with session:` (chapter 06's TAAL_ASYNC_WITH): the enter opens the
 * session and gives it as the block's value, the exit closes it. Neither
 * waits. An exit that finds a request still waiting fails with TAAL_EBUSY
 * and leaves the session open: closing the loop closes its connections. */
static int session_enter(void *manager, taal_block *block, bool resumed)
{
    (void)resumed;
    int rc = taal_http_session_open(manager);
    if (rc == TAAL_OK)
        block->value = manager;
    return rc;
}

static int session_exit(void *manager, taal_block *block, bool resumed)
{
    (void)block;
    (void)resumed;
    return taal_http_session_close(manager);
}

const taal_actx_type taal__http_session_actx = {"http session", session_enter,
                                                session_exit};

/* ---- one request ---------------------------------------------------------------- */

static int get_body(taal_coro *self);

int taal_http_get_init(taal_http_get *get, taal_http_session *session, const char *url)
{
    if (get == NULL || session == NULL || url == NULL)
        return TAAL_EINVAL;
    memset(get, 0, sizeof *get);
    taal_coro_init(&get->co, get_body);
    get->session = session;
    get->url = url;
    return TAAL_OK;
}

void taal_http_get_free(taal_http_get *get)
{
    if (get == NULL)
        return;
    taal__free(get->body);
    get->body = NULL;
    get->body_len = get->body_cap = 0;
}

/* "http://host[:port]/path": the host as the session knows it, the path
 * (or "/"). Only http: TLS is a library of its own. */
static int parse_url(taal_http_get *g)
{
    static const char scheme[] = "http://";
    if (!g->session->open || strncmp(g->url, scheme, sizeof scheme - 1) != 0)
        return TAAL_EINVAL;
    const char *authority = g->url + sizeof scheme - 1;
    const char *slash = strchr(authority, '/');
    size_t len = slash != NULL ? (size_t)(slash - authority) : strlen(authority);
    g->path = slash != NULL ? slash : "/";
    g->host = find_host(g->session, authority, len);
    return g->host != NULL ? TAAL_OK : TAAL_EADDR;
}

/* A new connection for the host: responses start with the next request. */
static void host_attach(taal_http_host *h, taal_stream *stream)
{
    h->stream = stream;
    h->generation++;
    h->next_read = h->next_ticket;
    http_parser_reset(&h->parser);
}

static int send_request(taal_http_get *g)
{
    taal_http_host *h = g->host;
    int n = snprintf(g->request, sizeof g->request, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n",
                     g->path, h->name);
    if (n < 0 || (size_t)n >= sizeof g->request)
        return TAAL_EINVAL; /* a path that long: refuse rather than cut it */
    int rc = taal_stream_write(h->stream, g->request, (size_t)n);
    if (rc != TAAL_OK) {
        host_break(h);
        return rc;
    }
    g->stream = h->stream;
    g->generation = h->generation;
    g->ticket = h->next_ticket++;
    return TAAL_OK;
}

/* Appends body bytes, growing the buffer by doubling (the parser bounds
 * the total), with room for a final NUL. */
static int keep_body(taal_http_get *g, http_span piece)
{
    if (g->body_len + piece.len + 1 > g->body_cap) {
        size_t cap = g->body_cap ? g->body_cap : 1024;
        while (cap < g->body_len + piece.len + 1)
            cap *= 2;
        char *body = taal__realloc(g->body, cap);
        if (body == NULL)
            return TAAL_ENOMEM;
        g->body = body;
        g->body_cap = cap;
    }
    memcpy(g->body + g->body_len, piece.at, piece.len);
    g->body_len += piece.len;
    g->body[g->body_len] = '\0';
    return TAAL_OK;
}

/* A parser error as the request's status. */
static int failed(taal_http_get *g, int error)
{
    g->http_error = error;
    if (error == HTTP_EEOF)
        return TAAL_EEOF;
    if (error <= HTTP_ESTART_TOO_LONG && error >= HTTP_EBODY_TOO_LARGE)
        return TAAL_ELIMIT;
    return TAAL_EPROTO;
}

/*
** Parses what the connection has buffered, taking out what the parser used.
** Returns HTTP_MESSAGE_DONE, HTTP_NEED_MORE (with g->have, the bytes of an
** unfinished line it must see again), or a taal error. The response's
** status and body are kept only if it is the request's own.
*/
static int parse_some(taal_http_get *g)
{
    http_parser *p = &g->host->parser;
    const char *data;
    size_t len = taal_stream_peek(g->stream, &data);
    for (;;) {
        http_event ev;
        int rc = http_parse(p, data, len, &ev);
        data += ev.consumed;
        len -= ev.consumed;
        taal_stream_consume(g->stream, ev.consumed);
        if (rc == HTTP_NEED_MORE) {
            g->have = len;
            return HTTP_NEED_MORE;
        }
        if (rc == HTTP_MESSAGE_DONE)
            return rc;
        if (rc < 0)
            return failed(g, rc);
        if (rc == HTTP_STATUS_LINE && g->response)
            g->status_code = p->status_code;
        if (rc == HTTP_BODY && g->response && keep_body(g, ev.body) != TAAL_OK)
            return TAAL_ENOMEM;
    }
}

/* A response is complete: the next one is the next request's; a response
 * that does not keep the connection alive ends it. */
static void response_done(taal_http_host *h)
{
    bool keep = h->parser.keep_alive;
    h->next_read++;
    http_parser_reset(&h->parser);
    if (!keep)
        host_break(h);
}

static int get_body(taal_coro *self)
{
    taal_http_get *g = (taal_http_get *)self;
    int rc;
    TAAL_BEGIN(g);
    rc = parse_url(g);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);

    /* 1. A connection to the host. */
    while (g->host->stream == NULL) {
        if (g->host->connecting) {
            TAAL_EVENT_WAIT_STATUS(g->st, &g->host->connected);
            if (g->st != TAAL_OK)
                TAAL_FAIL(g->st);
            continue;
        }
        g->host->connecting = true;
        taal_event_clear(&g->host->connected);
        TAAL_OPEN_CONNECTION_STATUS(g->st, g->stream, g->host->address, g->host->port);
        g->host->connecting = false;
        taal_event_set(&g->host->connected);
        if (g->st != TAAL_OK)
            TAAL_FAIL(g->st);
        host_attach(g->host, g->stream);
    }

    /* 2. Send, and take a place in line, with no await between. */
    rc = send_request(g);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_LOCK_STATUS(g->st, &g->host->turn);
    if (g->st != TAAL_OK)
        TAAL_FAIL(g->st); /* gave up in line: the next reader drops its response */
    g->holding = true;

    /* 3. Read responses until its own is complete. */
    for (;;) {
        if (g->generation != g->host->generation) {
            g->st = TAAL_ECONNABORTED; /* the connection it was sent on is gone */
            break;
        }
        /* LAB(pipeline) BEGIN: is the response to read next this request's own? */
        g->response = g->host->next_read == g->ticket;
        /* LAB(pipeline) END: g->response = true; */
        rc = parse_some(g);
        if (rc == HTTP_MESSAGE_DONE) {
            response_done(g->host);
            if (g->response) {
                g->st = TAAL_OK;
                break;
            }
            continue; /* that was a response nobody waits for any more */
        }
        if (rc != HTTP_NEED_MORE) {
            g->st = rc;
            host_break(g->host);
            break;
        }
        TAAL_STREAM_FILL_STATUS(g->st, g->stream, g->have);
        if (g->st == TAAL_EEOF) {
            rc = http_parse_eof(&g->host->parser);
            if (rc == HTTP_MESSAGE_DONE)
                continue; /* a body read to the end of the connection */
            g->st = failed(g, rc == HTTP_CLOSED ? HTTP_EEOF : rc);
            host_break(g->host);
            break;
        }
        if (g->st == TAAL_ECANCELLED)
            break; /* the parser keeps its place: the next reader finishes */
        if (g->st != TAAL_OK) {
            host_break(g->host);
            break;
        }
    }
    g->holding = false;
    taal_lock_release(&g->host->turn);
    if (g->st != TAAL_OK) {
        taal_http_get_free(g);
        TAAL_FAIL(g->st);
    }
    TAAL_END();
}
