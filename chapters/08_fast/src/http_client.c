/*
** http_client.c -- chapter 07: the seed's "session": requests over one
** keep-alive connection per host, taking turns or pipelined.
**
** A request is a coroutine (taal_http_get) in three steps:
**
**   1. Make sure its host has a connection with room for it (no more than
**      session->pipeline requests in flight): open it, or, if another
**      request is opening it, wait for that (an event); if it is full,
**      wait for a response to end (another event); and look again.
**   2. Write the request, and take a place in the host's line of readers
**      (a chapter 03 lock, whose waiters are served first come, first
**      served), in one step: nothing can come between the two, so the line
**      is in the order the requests were sent, which is the order HTTP/1.1
**      sends the responses in.
**   3. With its turn, read its response: the next one on the connection,
**      unless a request before it was given up after it was sent (then
**      that one's response comes first, and nobody wants it: the reader
**      ends the connection instead of reading it).
**
** Step 3 is the reason the parser is a pull parser (http.h): the request
** parses, awaits more bytes, and parses on. Interim responses (1xx) are
** read and skipped on the way: a request's response is its final one.
**
** What ends a connection: a response that says "Connection: close" (it is
** the last one the server sends), a malformed response, the server closing
** it, a read error, a request given up after it was sent. Then the host's
** generation moves on, and every request still in line that was sent on
** the old connection learns that its response will never come there.
** After a "close", that is no failure: the server did not process the
** requests behind it (RFC 9112 9.6), so each is sent again on a new
** connection. Otherwise, an idempotent request that had no byte of its
** response is sent again (may_retry(): a bounded number of times), and
** any other fails with TAAL_ECONNABORTED: the server may have acted on it.
**
** A connection that is closing takes no new requests: from the moment a
** response's headers say "close", a write on it fails, or a request in
** line is given up, a request that comes waits until the line of those
** sent on it has been read (it takes the turn, and gives it back), then
** opens a new connection. A failed write never closes the connection under
** the request reading from it: what the server sent before is still read,
** and a complete response is still its request's.
*/
#include "internal.h"
#include "taal_http.h"

#include <stddef.h>
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
    session->pipeline = 1;
    session->max_redirects = TAAL_HTTP_MAX_REDIRECTS;
    int rc = taal_event_init(&session->idle, loop, "http session");
    if (rc != TAAL_OK)
        return rc;
    session->open = true;
    return TAAL_OK;
}

/* ASCII lower case, whatever the locale: host names and schemes. */
static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* A host as URLs write it, without a default port: "h:80" and "h:" are "h"
 * (RFC 3986 6.2.3). The length of what is left. */
static size_t host_key(const char *name, size_t len)
{
    if (len >= 3 && memcmp(name + len - 3, ":80", 3) == 0)
        return len - 3;
    if (len >= 1 && name[len - 1] == ':')
        return len - 1;
    return len;
}

/* The host named by the @p len bytes at @p name, compared ignoring ASCII
 * case and a default port, as URLs mean them (RFC 3986 6.2.2). */
static taal_http_host *find_host(taal_http_session *session, const char *name, size_t len)
{
    len = host_key(name, len);
    for (size_t i = 0; i < session->host_count; i++) {
        taal_http_host *h = session->hosts[i];
        size_t hl = host_key(h->name, strlen(h->name)), k = 0;
        while (k < len && k < hl &&
               lower((unsigned char)name[k]) == lower((unsigned char)h->name[k]))
            k++;
        if (k == len && k == hl)
            return h;
    }
    return NULL;
}

/* A host name may hold no byte that would end it in a URL or break the
 * Host line it is sent in: no control byte, space, '/', '?', '#', '@'. */
static bool host_name_ok(const char *name)
{
    if (*name == '\0')
        return false;
    for (const unsigned char *c = (const unsigned char *)name; *c != '\0'; c++)
        if (*c <= ' ' || *c == 0x7f || strchr("/?#@", *c) != NULL)
            return false;
    return true;
}

int taal_http_session_map(taal_http_session *session, const char *name,
                          const char *address, int port)
{
    if (session == NULL || !session->open || name == NULL || address == NULL ||
        !host_name_ok(name) || strlen(name) >= sizeof((taal_http_host *)0)->name ||
        strlen(address) >= sizeof((taal_http_host *)0)->address || port < 1 ||
        port > 65535)
        return TAAL_EINVAL;
    if (find_host(session, name, strlen(name)) != NULL)
        return TAAL_EBUSY;
    /* Each host is an allocation of its own, which never moves: requests
     * point at it, and its event and lock are linked to by their waiters.
     * Only the array of pointers grows, by doubling. */
    if (session->host_count == session->host_cap) {
        size_t cap = session->host_cap ? 2 * session->host_cap : 4;
        taal_http_host **hosts = taal__realloc(session->hosts, cap * sizeof *hosts);
        if (hosts == NULL)
            return TAAL_ENOMEM;
        session->hosts = hosts;
        session->host_cap = cap;
    }
    taal_http_host *h = taal__alloc(sizeof *h);
    if (h == NULL)
        return TAAL_ENOMEM;
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->address, sizeof h->address, "%s", address);
    h->port = port;
    int rc = taal_event_init(&h->connected, session->loop, h->name);
    if (rc == TAAL_OK)
        rc = taal_event_init(&h->room, session->loop, h->name);
    if (rc == TAAL_OK)
        rc = taal_lock_init(&h->turn, session->loop, h->name);
    if (rc == TAAL_OK)
        rc = http_parser_init(&h->parser, HTTP_RESPONSE, &session->limits);
    if (rc != HTTP_OK) {
        taal__free(h);
        return TAAL_EINVAL;
    }
    session->hosts[session->host_count++] = h;
    return TAAL_OK;
}

/* The connection is given up: closed at once, and every request sent on it
 * that is still in line will see that its generation has passed. */
static void host_break(taal_http_host *h)
{
    if (h->stream != NULL)
        taal_stream_abort(h->stream);
    h->stream = NULL;
    h->closing = false;
    h->generation++;
    taal_event_set(&h->room); /* who waits to write opens a new one */
}

int taal_http_session_close(taal_http_session *session)
{
    if (session == NULL)
        return TAAL_EINVAL;
    if (!session->open)
        return TAAL_OK;
    for (size_t i = 0; i < session->host_count; i++) {
        taal_http_host *h = session->hosts[i];
        if (h->connecting || taal_lock_locked(&h->turn))
            return TAAL_EBUSY;
    }
    if (session->requests != NULL)
        return TAAL_EBUSY;
    for (size_t i = 0; i < session->host_count; i++) {
        taal_http_host *h = session->hosts[i];
        if (h->stream != NULL)
            taal_stream_close(h->stream); /* polite: what it wrote still goes */
        taal_lock_destroy(&h->turn);
        taal_event_destroy(&h->room);
        taal_event_destroy(&h->connected);
        taal__free(h);
    }
    taal__free(session->hosts);
    session->hosts = NULL;
    session->host_count = session->host_cap = 0;
    taal_event_destroy(&session->idle);
    session->open = false;
    session->closing = false;
    return TAAL_OK;
}

/* `async with session:` (chapter 06's TAAL_ASYNC_WITH): the enter opens the
 * session and gives it as the block's value, the exit closes it. The enter
 * never waits. The exit, as aiohttp's __aexit__, closes whatever is still
 * in progress: it cancels the task of every request that has not ended,
 * waits (on the session's `idle` event) until the last one has, and
 * closes. Nothing new can start meanwhile: the session is `closing`. */
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
    taal_http_session *session = manager;
    if (resumed) {
        int rc = taal__handed(&session->idle.waiters);
        if (rc != TAAL_OK)
            return rc; /* the exit itself was cancelled: still closing */
    } else if (session->open && session->requests != NULL) {
        session->closing = true;
        taal_event_clear(&session->idle);
        for (taal_http_get *g = session->requests; g != NULL; g = g->next)
            taal_task_cancel(g->task);
    }
    if (session->requests != NULL)
        return taal__event_wait(&session->idle);
    return taal_http_session_close(session);
}

const taal_actx_type taal__http_session_actx = {"http session", session_enter,
                                                session_exit};

/* ---- one request ---------------------------------------------------------------- */

static int get_body(taal_coro *self);

/* A token (RFC 9110 5.6.2): a method, a field name. */
static bool is_token(const char *text)
{
    if (text == NULL || *text == '\0')
        return false;
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
              (*c >= 'A' && *c <= 'Z') || strchr("!#$%&'*+-.^_`|~", *c) != NULL))
            return false;
    return true;
}

/* Zeroes the @p size bytes of a coroutine's struct at @p frame, all but
 * its header (a taal_coro, first): an init may be called again on a struct
 * in a task's frame (a second request, a read per piece), and the header's
 * link on the task's list of coroutines (chapter 06's "never awaited") must
 * stay for taal_coro_init() to find; cleared, it cut the list, and the task
 * reported a misuse each time. taal_coro_init() resets the rest of it. */
static void clear_after_header(void *frame, size_t size)
{
    memset((char *)frame + sizeof(taal_coro), 0, size - sizeof(taal_coro));
}
_Static_assert(offsetof(taal_http_get, co) == 0, "a request's header comes first");
_Static_assert(offsetof(taal_http_read, co) == 0, "a read's header comes first");

int taal_http_request_init(taal_http_request *req, taal_http_session *session,
                           const char *method, const char *url)
{
    if (req == NULL || session == NULL || url == NULL || !is_token(method) ||
        strlen(method) >= sizeof req->method)
        return TAAL_EINVAL;
    clear_after_header(req, sizeof *req);
    taal_coro_init(&req->co, get_body);
    req->session = session;
    req->url = url;
    snprintf(req->method, sizeof req->method, "%s", method);
    req->head = strcmp(method, "HEAD") == 0;
    return TAAL_OK;
}

int taal_http_get_init(taal_http_get *get, taal_http_session *session, const char *url)
{
    return taal_http_request_init(get, session, "GET", url);
}

/* The fields the client writes itself, from what it knows: a caller's
 * would contradict them (RFC 9112 6.1, 6.2, 7.6.1). */
static bool own_field(const char *name)
{
    static const char *const own[] = {
        "Host", "Content-Length", "Transfer-Encoding", "Connection", "TE", "Upgrade"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (http_span_is((http_span){name, strlen(name)}, own[i]))
            return true;
    return false;
}

int taal_http_request_header(taal_http_request *req, const char *name, const char *value)
{
    if (req == NULL || !is_token(name) || value == NULL || own_field(name))
        return TAAL_EINVAL;
    for (const unsigned char *c = (const unsigned char *)value; *c != '\0'; c++)
        if ((*c < 0x20 && *c != '\t') || *c == 0x7f)
            return TAAL_EINVAL; /* CR or LF would end the field */
    size_t n = strlen(name), v = strlen(value);
    if (req->fields_len + n + v + 4 > TAAL_HTTP_MAX_REQUEST_HEAD)
        return TAAL_EINVAL;
    char *fields = taal__realloc(req->fields, req->fields_len + n + v + 4);
    if (fields == NULL)
        return TAAL_ENOMEM;
    req->fields = fields;
    char *at = fields + req->fields_len;
    memcpy(at, name, n);
    memcpy(at + n, ": ", 2);
    memcpy(at + n + 2, value, v);
    memcpy(at + n + 2 + v, "\r\n", 2);
    req->fields_len += n + v + 4;
    if (http_span_is((http_span){name, n}, "User-Agent"))
        req->user_agent = true;
    return TAAL_OK;
}

int taal_http_request_body(taal_http_request *req, const void *data, size_t len)
{
    if (req == NULL || (data == NULL && len > 0))
        return TAAL_EINVAL;
    req->send = data;
    req->send_len = len;
    req->has_send = true;
    return TAAL_OK;
}

static void stream_over(taal_http_get *g, bool broken);

void taal_http_get_free(taal_http_get *get)
{
    if (get == NULL)
        return;
    if (get->streaming)
        stream_over(get, true); /* its body not read to the end: nobody will */
    taal__free(get->body);
    get->body = NULL;
    get->body_len = get->body_cap = 0;
    taal__free(get->headers);
    get->headers = NULL;
    taal__free(get->request);
    get->request = NULL;
    taal__free(get->fields);
    get->fields = NULL;
    get->fields_len = 0;
    taal__free(get->final_url);
    get->final_url = NULL;
    get->headers_len = get->headers_cap = get->header_count = 0;
}

/* The fields are one buffer of "name\0value\0" pairs, in order: a walk from
 * the start finds the index-th (at most max_headers of them). */
bool taal_http_get_header_at(const taal_http_get *get, size_t index, const char **name,
                             const char **value)
{
    if (name != NULL)
        *name = NULL;
    if (value != NULL)
        *value = NULL;
    if (get == NULL || index >= get->header_count)
        return false;
    const char *at = get->headers;
    for (size_t i = 0; i < index; i++) {
        at += strlen(at) + 1; /* the name */
        at += strlen(at) + 1; /* the value */
    }
    if (name != NULL)
        *name = at;
    if (value != NULL)
        *value = at + strlen(at) + 1;
    return true;
}

size_t taal_http_get_header_count(const taal_http_get *get)
{
    return get == NULL ? 0 : get->header_count;
}

const char *taal_http_get_header(const taal_http_get *get, const char *name)
{
    const char *field, *value;
    if (name == NULL)
        return NULL;
    for (size_t i = 0; taal_http_get_header_at(get, i, &field, &value); i++)
        if (http_span_is((http_span){field, strlen(field)}, name))
            return value;
    return NULL;
}

/*
** "http://host[:port][/path][?query][#fragment]", the scheme in any case.
** Checked before anything is sent:
**   - a control byte (CR, LF, NUL, ..., DEL) anywhere is refused: in a
**     request line it would end the line, and what follows would be read
**     as another request (request smuggling);
**   - userinfo ("user@host") is refused: it is a password in the clear in
**     every log, and this client has no authentication to send it with;
**   - the fragment is the client's own business and is never sent (as
**     curl and browsers do).
** The request target is what is left after the authority; a query without
** a path gets the path "/" (RFC 9112 3.2.1).
*/
static int parse_url(taal_http_get *g, http_span *target)
{
    static const char scheme[] = "http://";
    if (!g->session->open || g->session->closing)
        return TAAL_EINVAL;
    const char *url = taal_http_request_url(g);
    for (const unsigned char *c = (const unsigned char *)url; *c != '\0'; c++)
        if (*c < 0x20 || *c == 0x7f)
            return TAAL_EINVAL;
    for (size_t i = 0; i < sizeof scheme - 1; i++)
        if (lower((unsigned char)url[i]) != scheme[i])
            return TAAL_EINVAL; /* only http: TLS is a library of its own */
    const char *authority = url + sizeof scheme - 1;
    size_t len = strcspn(authority, "/?#");
    if (memchr(authority, '@', len) != NULL)
        return TAAL_EINVAL;
    target->at = authority + len;
    target->len = strcspn(target->at, "#");
    g->host = find_host(g->session, authority, len);
    return g->host != NULL ? TAAL_OK : TAAL_EADDR;
}

const char *taal_http_request_url(const taal_http_request *req)
{
    if (req == NULL)
        return NULL;
    return req->final_url != NULL ? req->final_url : req->url;
}

/* Where a redirect's @p location leads, from the request's URL (which
 * parse_url() has checked: it starts "http://", in some case): an
 * absolute URL as it is; "//host/path" with the scheme; "/path" and
 * "?query" on the same host; anything else in the same directory (RFC
 * 3986 5.2, without removing dot segments: servers do). The result
 * becomes the request's final_url. TAAL_ENOMEM. */
static int follow(taal_http_get *g, const char *location)
{
    const char *base = taal_http_request_url(g);
    const char *authority = base + 7;
    size_t host_len = strcspn(authority, "/?#");
    const char *path = authority + host_len;
    size_t keep = 0; /* bytes of base that come first */
    const char *join = "";
    size_t scheme = strspn(location, "abcdefghijklmnopqrstuvwxyz"
                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
    if (scheme > 0 && location[scheme] == ':') {
        keep = 0; /* absolute */
    } else if (location[0] == '/' && location[1] == '/') {
        join = "http:";
    } else if (location[0] == '/') {
        keep = 7 + host_len;
    } else if (location[0] == '?') {
        keep = 7 + host_len + strcspn(path, "?#");
    } else {
        size_t path_len = strcspn(path, "?#"), last = 0;
        for (size_t i = 0; i < path_len; i++)
            if (path[i] == '/')
                last = i + 1;
        keep = 7 + host_len + last;
        if (last == 0)
            join = "/";
    }
    size_t len = keep + strlen(join) + strlen(location);
    char *url = taal__alloc(len + 1);
    if (url == NULL)
        return TAAL_ENOMEM;
    snprintf(url, len + 1, "%.*s%s%s", (int)keep, base, join, location);
    taal__free(g->final_url);
    g->final_url = url;
    return TAAL_OK;
}

/* Is @p g's response a redirect it follows? Only for GET and HEAD (a POST
 * redirected is the program's decision), with a Location, unless it or
 * its session (max_redirects 0) says not to. */
static const char *redirect_to(const taal_http_get *g)
{
    int code = g->status_code;
    if (g->no_redirects || g->session->max_redirects == 0 ||
        (strcmp(g->method, "GET") != 0 && !g->head) ||
        (code != 301 && code != 302 && code != 303 && code != 307 && code != 308))
        return NULL;
    const char *location = taal_http_get_header(g, "location");
    return location != NULL && *location != '\0' ? location : NULL;
}

/* Bytes a request target cannot carry as they are (RFC 3986 2.1, and what
 * browsers encode): sent as %XX. A '%' is left alone: the URL is taken to
 * be encoded already where it says so. */
static bool must_encode(unsigned char c)
{
    return c == ' ' || c >= 0x80 || (c != '\0' && strchr("\"<>\\^`{|}", c) != NULL);
}

/* Appends @p n bytes at *at, or only counts them when @p out is NULL. */
static void put(char *out, size_t *at, const char *bytes, size_t n)
{
    if (out != NULL)
        memcpy(out + *at, bytes, n);
    *at += n;
}

/* The request's head (and nothing of its body), written at @p out, or only
 * measured when @p out is NULL; its length. */
static size_t compose(const taal_http_get *g, http_span target, char *out)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t at = 0;
    char length[48];
    put(out, &at, g->method, strlen(g->method));
    put(out, &at, " ", 1);
    if (target.len == 0 || target.at[0] == '?')
        put(out, &at, "/", 1);
    for (size_t i = 0; i < target.len; i++) {
        unsigned char c = (unsigned char)target.at[i];
        if (must_encode(c)) {
            char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
            put(out, &at, esc, 3);
        } else {
            put(out, &at, target.at + i, 1);
        }
    }
    put(out, &at, " HTTP/1.1\r\nHost: ", 17);
    put(out, &at, g->host->name, strlen(g->host->name));
    put(out, &at, "\r\n", 2);
    if (!g->user_agent)
        put(out, &at, "User-Agent: taal/" TAAL_VERSION "\r\n",
            sizeof "User-Agent: taal/" TAAL_VERSION "\r\n" - 1);
    if (g->fields_len > 0)
        put(out, &at, g->fields, g->fields_len);
    /* a body's length; and 0 for a POST, PUT or PATCH without one, whose
     * server would otherwise wait for one or answer 411 (RFC 9110 8.6) */
    if (g->has_send || strcmp(g->method, "POST") == 0 || strcmp(g->method, "PUT") == 0 ||
        strcmp(g->method, "PATCH") == 0) {
        int n = snprintf(length, sizeof length, "Content-Length: %zu\r\n", g->send_len);
        put(out, &at, length, (size_t)n);
    }
    put(out, &at, "\r\n", 2);
    return at;
}

/* The request's bytes, in a buffer of their size. TAAL_EINVAL over
 * TAAL_HTTP_MAX_REQUEST_HEAD (most servers refuse a longer head anyway:
 * nginx and Apache at 8 KiB a line), TAAL_ENOMEM. */
static int build_request(taal_http_get *g, http_span target)
{
    size_t len = compose(g, target, NULL);
    if (len > TAAL_HTTP_MAX_REQUEST_HEAD || g->send_len > SIZE_MAX - len)
        return TAAL_EINVAL;
    g->request = taal__alloc(len + g->send_len);
    if (g->request == NULL)
        return TAAL_ENOMEM;
    g->request_len = compose(g, target, g->request);
    if (g->send_len > 0) /* one write, head and body: never half a request */
        memcpy(g->request + g->request_len, g->send, g->send_len);
    g->request_len += g->send_len;
    return TAAL_OK;
}

/* A new connection for the host: responses start with the next request. */
static void host_attach(taal_http_host *h, taal_stream *stream)
{
    h->stream = stream;
    h->generation++;
    h->next_read = h->next_ticket;
    http_parser_reset(&h->parser);
    h->between = true;
    taal_event_set(&h->room);
}

/* A request in progress is on the session's list, which its exit walks. */
static void track(taal_http_get *g)
{
    taal_http_session *session = g->session;
    g->task = taal_current_task();
    g->prev = NULL;
    g->next = session->requests;
    if (session->requests != NULL)
        session->requests->prev = g;
    session->requests = g;
}

/* Off the list; the last one off tells a waiting exit. */
static void untrack(taal_http_get *g)
{
    taal_http_session *session = g->session;
    if (g->prev != NULL)
        g->prev->next = g->next;
    else
        session->requests = g->next;
    if (g->next != NULL)
        g->next->prev = g->prev;
    g->prev = g->next = NULL;
    if (session->requests == NULL)
        taal_event_set(&session->idle);
}

/* Writes the request on the host's connection. A write that fails because
 * the connection failed (reset, broken pipe) sent nothing of this request:
 * the connection is closing, not broken, since a request before this one
 * may still be reading its response from it. */
static int send_request(taal_http_get *g)
{
    taal_http_host *h = g->host;
    int rc = taal_stream_write(h->stream, g->request, g->request_len);
    if (rc != TAAL_OK) {
        if (rc != TAAL_EWFULL && rc != TAAL_ENOMEM)
            h->closing = true;
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

/* Keeps a header field of the request's own response, growing the buffer
 * by doubling (the parser bounds the fields' count and bytes). */
static int keep_header(taal_http_get *g, http_span name, http_span value)
{
    size_t need = g->headers_len + name.len + value.len + 2;
    if (need > g->headers_cap) {
        size_t cap = g->headers_cap ? g->headers_cap : 256;
        while (cap < need)
            cap *= 2;
        char *headers = taal__realloc(g->headers, cap);
        if (headers == NULL)
            return TAAL_ENOMEM;
        g->headers = headers;
        g->headers_cap = cap;
    }
    char *at = g->headers + g->headers_len;
    memcpy(at, name.at, name.len);
    at[name.len] = '\0';
    memcpy(at + name.len + 1, value.at, value.len);
    at[name.len + 1 + value.len] = '\0';
    g->headers_len = need;
    g->header_count++;
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
** status, headers and body are kept only if it is the request's own.
**
** An interim response (1xx) ends at its empty line, and the final one
** follows on the same connection: it is skipped, whosever it is (RFC 9110
** 15.2), and what it said is forgotten. 101 Switching Protocols is the one
** 1xx that is final, and changes the protocol: no GET here asks for that.
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
        if (rc < 0)
            return failed(g, rc);
        if (rc == HTTP_STATUS_LINE && p->status_code == 101)
            return failed(g, HTTP_ESTATUS_CODE);
        if (rc == HTTP_MESSAGE_DONE && p->status_code < 200) {
            http_parser_reset(p); /* an interim response: the final one follows */
            if (g->head)
                http_parser_set_head(p, true);
            continue;
        }
        if (rc == HTTP_MESSAGE_DONE)
            return rc;
        if (rc == HTTP_HEADERS_DONE && p->status_code >= 200 && !p->keep_alive)
            g->host->closing = true; /* the last response: send no more */
        if (rc == HTTP_HEADERS_DONE && p->status_code >= 200 && g->stream_body &&
            redirect_to(g) == NULL)
            return rc; /* the body is read piece by piece: taal_http_read */
        if (rc == HTTP_STATUS_LINE) {
            g->status_code = p->status_code;
            g->headers_len = g->header_count = 0; /* an interim one's are gone */
        }
        if (rc == HTTP_HEADER && keep_header(g, ev.name, ev.value) != TAAL_OK)
            return TAAL_ENOMEM;
        if (rc == HTTP_BODY && keep_body(g, ev.body) != TAAL_OK)
            return TAAL_ENOMEM;
    }
}

/* A response is complete: the next one is the next request's. A response
 * that does not keep the connection alive ends it, cleanly: the requests
 * behind it can be sent again. Bytes after the last response of all answer
 * no request (a body longer than its Content-Length, a 204 with a body):
 * they end the connection too, before they are read as a response. */
static void response_done(taal_http_host *h)
{
    bool keep = h->parser.keep_alive;
    h->next_read++;
    http_parser_reset(&h->parser);
    h->between = true;
    taal_event_set(&h->room); /* one fewer in flight */
    if (!keep)
        h->closed_clean = h->generation;
    if (!keep || (h->next_read == h->next_ticket && taal_stream_buffered(h->stream) > 0))
        host_break(h);
}

/* How many requests may be in flight on one connection. */
static uint64_t depth(const taal_http_session *session)
{
    return session->pipeline > 1 ? session->pipeline : 1;
}

/* May @p g, whose connection ended before a byte of its response came, be
 * sent again on a new one? The server may have processed it, so only if
 * doing it twice is the same as doing it once: an idempotent method (RFC
 * 9110 9.2.2), as aiohttp, curl and browsers do; and a bounded number of
 * times, in case the server closes whatever comes. */
static bool may_retry(const taal_http_get *g)
{
    /* LAB(retry) BEGIN: an idempotent method (RFC 9110 9.2.2), and a retry left */
    static const char *const idempotent[] = {"GET",    "HEAD",    "PUT",
                                             "DELETE", "OPTIONS", "TRACE"};
    if (g->retries >= TAAL_HTTP_MAX_RETRIES)
        return false;
    for (size_t i = 0; i < sizeof idempotent / sizeof idempotent[0]; i++)
        if (strcmp(g->method, idempotent[i]) == 0)
            return true;
    return false;
    /* LAB(retry) END: (void)g; return false; */
}

static int get_body(taal_coro *self)
{
    taal_http_get *g = (taal_http_get *)self;
    int rc;
    TAAL_BEGIN(g);
    {
        http_span target;
        rc = parse_url(g, &target);
        if (rc == TAAL_OK)
            rc = build_request(g, target);
        if (rc != TAAL_OK) {
            g->status_code = 0;
            TAAL_FAIL(rc);
        }
    }
    track(g);

send_again:
    /* 1. A connection to the host that takes requests, with room for one
     * more in flight (session->pipeline). One that is closing is left to
     * those in its line: take the turn after them, and give it back; the
     * last of them has ended it, or nobody was reading and it is ended now. */
    for (;;) {
        if (g->host->closing) {
            g->waited = g->host->generation;
            TAAL_LOCK_STATUS(g->st, &g->host->turn);
            if (g->st != TAAL_OK)
                goto done;
            if (g->host->closing && g->host->generation == g->waited)
                host_break(g->host);
            taal_lock_release(&g->host->turn);
            continue;
        }
        if (g->host->stream != NULL &&
            g->host->next_ticket - g->host->next_read >= depth(g->session)) {
            taal_event_clear(&g->host->room); /* its turn to write comes later */
            TAAL_EVENT_WAIT_STATUS(g->st, &g->host->room);
            if (g->st != TAAL_OK)
                goto done;
            continue;
        }
        if (g->host->stream != NULL)
            break;
        if (g->host->connecting) {
            TAAL_EVENT_WAIT_STATUS(g->st, &g->host->connected);
            if (g->st != TAAL_OK)
                goto done;
            continue;
        }
        g->host->connecting = true;
        taal_event_clear(&g->host->connected);
        TAAL_OPEN_CONNECTION_STATUS(g->st, g->stream, g->host->address, g->host->port);
        g->host->connecting = false;
        taal_event_set(&g->host->connected);
        if (g->st != TAAL_OK)
            goto done;
        host_attach(g->host, g->stream);
    }

    /* 2. Send, and take a place in line, with no await between. A write
     * that failed sent nothing: once, the request goes to a new connection. */
    g->st = send_request(g);
    if (g->st != TAAL_OK && g->host->closing && !g->write_failed) {
        g->write_failed = true;
        goto send_again;
    }
    if (g->st != TAAL_OK) {
        if (g->host->closing)
            g->st = TAAL_ECONNABORTED; /* failed on two connections */
        goto done;
    }
    TAAL_LOCK_STATUS(g->st, &g->host->turn);
    if (g->st != TAAL_OK) {
        /* given up in line, after it was sent: its response will still
         * come, and nobody wants it. Nothing more is written on this
         * connection; the reader who reaches that response ends it. */
        if (g->generation == g->host->generation && g->host->stream != NULL) {
            g->host->closing = true;
            taal_event_set(&g->host->room);
        }
        goto done;
    }
    g->holding = true;

    /* 3. Read its response. */
    for (;;) {
        if (g->generation != g->host->generation) {
            /* the connection it was sent on is gone, before a byte of its
             * response came. After a "close", the server never processed
             * it; an idempotent request may be sent again in any case */
            g->resend = g->generation == g->host->closed_clean || may_retry(g);
            g->st = TAAL_ECONNABORTED;
            break;
        }
        /* LAB(pipeline) BEGIN: the response to read next is not its own: end the line */
        if (g->host->next_read != g->ticket) {
            host_break(g->host); /* a request before it was given up */
            continue;
        }
        /* LAB(pipeline) END: (void)0; */
        if (g->host->between) {
            /* a response starts: under the session's limits as they are now */
            http_limits limits = g->session->limits;
            if (g->stream_body)
                limits.max_body = UINT64_MAX; /* never held whole: no bound */
            if (http_parser_init(&g->host->parser, HTTP_RESPONSE, &limits) != HTTP_OK) {
                g->st = TAAL_EINVAL;
                host_break(g->host); /* its response is nobody's now */
                break;
            }
            if (g->head)
                http_parser_set_head(&g->host->parser, true);
            g->host->between = false;
        }
        rc = parse_some(g);
        if (rc == HTTP_MESSAGE_DONE) {
            response_done(g->host);
            g->st = TAAL_OK;
            break;
        }
        if (rc == HTTP_HEADERS_DONE) {
            g->st = TAAL_OK; /* streamed: it keeps the turn until its body ends */
            g->streaming = true;
            break;
        }
        if (rc != HTTP_NEED_MORE) {
            g->st = rc;
            host_break(g->host);
            break;
        }
        TAAL_STREAM_FILL_STATUS(g->st, g->stream, g->have);
        if (g->st == TAAL_ECANCELLED) {
            host_break(g->host); /* given up while reading: its connection too */
            break;
        }
        if (g->st != TAAL_OK) {
            /* the end of the stream, a reset, a read error: the line ends */
            rc = http_parse_eof(&g->host->parser);
            if (g->st == TAAL_EEOF && rc == HTTP_MESSAGE_DONE)
                continue; /* a body read to the end of the connection */
            if (rc == HTTP_CLOSED && may_retry(g)) {
                g->retries++; /* not a byte of its response came: stale */
                g->resend = true;
            }
            if (g->st == TAAL_EEOF)
                g->st = failed(g, rc == HTTP_CLOSED ? HTTP_EEOF : rc);
            else
                g->st = TAAL_ECONNABORTED;
            host_break(g->host);
            break;
        }
    }
    if (!g->streaming) {
        g->holding = false;
        taal_lock_release(&g->host->turn);
    }
    if (g->resend) {
        g->resend = false;
        g->http_error = HTTP_OK;
        g->status_code = 0;
        g->body_len = g->headers_len = g->header_count = 0;
        goto send_again;
    }
    if (g->st == TAAL_OK && redirect_to(g) != NULL) {
        /* 4. A redirect: the same request, to where it leads, on the
         * session's connection to that host (a host it knows) */
        if (g->redirects >= g->session->max_redirects) {
            g->st = TAAL_ELIMIT;
            g->http_error = TAAL_HTTP_ETOO_MANY_REDIRECTS;
            goto done;
        }
        g->st = follow(g, redirect_to(g));
        if (g->st == TAAL_OK) {
            http_span target;
            g->redirects++;
            g->retries = 0;
            g->write_failed = false;
            g->status_code = 0;
            g->body_len = g->headers_len = g->header_count = 0;
            taal__free(g->request);
            g->request = NULL;
            g->st = parse_url(g, &target);
            if (g->st == TAAL_OK)
                g->st = build_request(g, target);
        }
        if (g->st == TAAL_OK)
            goto send_again;
    }

done:
    untrack(g);
    taal__free(g->request);
    g->request = NULL;
    if (g->st != TAAL_OK) {
        g->status_code = 0; /* no response: no status, headers or body */
        taal_http_get_free(g);
        TAAL_FAIL(g->st);
    }
    TAAL_END();
}

/* ---- a body read piece by piece ------------------------------------------------- */

/* The body of a streamed request is over: at its end (the connection goes
 * on), or given up (@p broken: the rest of it is on the connection, which
 * therefore ends). The request gives back the turn it kept. */
static void stream_over(taal_http_get *g, bool broken)
{
    if (broken)
        host_break(g->host);
    g->streaming = false;
    g->holding = false;
    taal_lock_release(&g->host->turn);
}

/* The next piece of the body, copied into the request's piece buffer: at
 * most TAAL_HTTP_PIECE bytes of input are parsed at a time (more if a line
 * the limits allow is longer), so a piece is never longer. Returns
 * HTTP_BODY (the piece in g->body, g->body_len), HTTP_MESSAGE_DONE,
 * HTTP_NEED_MORE (g->have set), or a taal error. */
static int next_piece(taal_http_get *g)
{
    http_parser *p = &g->host->parser;
    size_t most = http_min_buffer(&p->limits);
    most = most > TAAL_HTTP_PIECE ? most : TAAL_HTTP_PIECE;
    if (g->body_cap < most + 1) {
        char *piece = taal__realloc(g->body, most + 1);
        if (piece == NULL)
            return TAAL_ENOMEM;
        g->body = piece;
        g->body_cap = most + 1;
    }
    const char *data;
    size_t len = taal_stream_peek(g->stream, &data);
    for (;;) {
        http_event ev;
        size_t part = len < most ? len : most;
        int rc = http_parse(p, data, part, &ev);
        data += ev.consumed;
        len -= ev.consumed;
        taal_stream_consume(g->stream, ev.consumed);
        if (rc == HTTP_NEED_MORE && part < len + ev.consumed && ev.consumed > 0)
            continue; /* only a part was parsed: on with the rest */
        if (rc == HTTP_NEED_MORE) {
            g->have = len;
            return HTTP_NEED_MORE;
        }
        if (rc < 0)
            return failed(g, rc);
        if (rc == HTTP_BODY) {
            g->body_len = ev.body.len; /* at most `most` */
            memcpy(g->body, ev.body.at, g->body_len);
            g->body[g->body_len] = '\0';
            return HTTP_BODY;
        }
        if (rc == HTTP_MESSAGE_DONE)
            return rc;
        /* a trailer: not kept */
    }
}

static int read_body(taal_coro *self)
{
    taal_http_read *r = (taal_http_read *)self;
    taal_http_get *g = r->req;
    int rc;
    TAAL_BEGIN(r);
    r->data = NULL;
    r->len = 0;
    r->end = false;
    for (;;) {
        if (!g->streaming) {
            if (!g->stream_ended)
                TAAL_FAIL(TAAL_EINVAL); /* not a streamed request, or it failed */
            r->end = true;
            break;
        }
        rc = next_piece(g);
        if (rc == HTTP_BODY) {
            r->data = g->body;
            r->len = g->body_len;
            break;
        }
        if (rc == HTTP_MESSAGE_DONE) {
            response_done(g->host);
            stream_over(g, false);
            g->body_len = 0;
            g->stream_ended = true;
            r->end = true;
            break;
        }
        if (rc != HTTP_NEED_MORE) {
            stream_over(g, true);
            TAAL_FAIL(rc);
        }
        TAAL_STREAM_FILL_STATUS(r->st, g->stream, g->have);
        if (r->st == TAAL_EEOF) {
            rc = http_parse_eof(&g->host->parser);
            if (rc == HTTP_MESSAGE_DONE)
                continue; /* a body read to the end of the connection */
            stream_over(g, true);
            TAAL_FAIL(failed(g, rc == HTTP_CLOSED ? HTTP_EEOF : rc));
        }
        if (r->st != TAAL_OK) {
            stream_over(g, true); /* given up, or the connection failed */
            TAAL_FAIL(r->st == TAAL_ECANCELLED ? r->st : TAAL_ECONNABORTED);
        }
    }
    TAAL_END();
}

int taal_http_read_init(taal_http_read *rd, taal_http_request *req)
{
    if (rd == NULL || req == NULL)
        return TAAL_EINVAL;
    clear_after_header(rd, sizeof *rd);
    taal_coro_init(&rd->co, read_body);
    rd->req = req;
    return TAAL_OK;
}
