/*
** taal_http.h -- chapter 07: an HTTP/1.1 client and a small server, on
** taal's streams and the parser of http.h.
**
**   Python (aiohttp)                  taal
**   --------------------------------  -------------------------------------
**   async with ClientSession() as s:  TAAL_ASYNC_WITH(&f->with, &f->session) {
**                                         ... (the body) ...
**                                     } TAAL_ASYNC_WITH_END(&f->with);
**                                     (or taal_http_session_open(), ..., _close())
**   async with s.get(url) as r:       taal_http_get_init(&f->get, &f->session, url);
**       data = await r.text()         TAAL_AWAIT_STATUS(f->st, &f->get);
**                                     ... f->get.status_code, f->get.body ...
**                                     taal_http_get_free(&f->get);
**   s.request("POST", url,            taal_http_request_init(&f->req, &f->session,
**             data=body,                                     "POST", url);
**             headers={"X-A": "b"})   taal_http_request_body(&f->req, body, len);
**                                     taal_http_request_header(&f->req, "X-A", "b");
**   r.headers["Location"]             taal_http_get_header(&f->req, "location")
**
** (A session is a manager for chapter 06's TAAL_ASYNC_WITH: its enter
** opens it, its exit closes it, however the block ends. A request's
** response is freed by hand.)
**
** The session keeps one keep-alive connection per host. By default,
** requests made at the same time take turns on it: one is written when the
** one before has had its response, as aiohttp does (it never pipelines,
** and opens more connections instead; taal keeps one per host). With the
** session's `pipeline` set to N, up to N share it by *pipelining*: each is
** written at once, and the responses, which HTTP/1.1 sends in request
** order, are read in that order, each by the request it answers. Many
** servers and proxies mishandle pipelining, which is why it is not the
** default; a server known to handle it (nginx does) gains a round trip per
** request.
**
** A request given up (cancelled, timed out) after it was sent takes its
** connection down: its response may still come, and nobody will read it.
** If it was reading, the connection is ended at once; if it was in line,
** nothing more is written on the connection, and the reader who reaches
** its response ends it there. The requests behind it were not answered.
**
** A request whose connection ended before a byte of its response came (the
** server had closed an idle keep-alive connection, or closes after every
** response, or a request before it took the connection down) is sent
** again on a new connection if its method is idempotent (GET, HEAD, PUT,
** DELETE, OPTIONS, TRACE: RFC 9110 9.2.2), at most TAAL_HTTP_MAX_RETRIES
** times; any other fails with TAAL_ECONNABORTED (or TAAL_EEOF, if it was
** reading), since the server may have processed it.
**
** A response that says "Connection: close" is the last on its connection:
** no request is written on it after that, and those already written behind
** it, which the server does not process (RFC 9112 9.6), are sent again on
** a new connection. Interim responses (1xx, such as 103 Early Hints) are
** skipped: the request reads on to its final response (RFC 9110 15.2).
**
** Names are never looked up in DNS (getaddrinfo blocks the loop): a
** session reaches the hosts it was told about with taal_http_session_map(),
** by numeric address, like an /etc/hosts of its own.
*/
#ifndef TAAL_HTTP_H
#define TAAL_HTTP_H

#include "http.h"
#include "taal.h"

/** @file
 *  @brief Chapter 07: an HTTP/1.1 client session and a small HTTP server.
 */

/* ------------------------------------------------------------------------ */
/** @name The client session
 *  @{
 */

/** The longest request head (request line and header fields) a request
 *  may have: 8 KiB, the line bound of nginx and Apache. A longer one (a
 *  long URL, many headers) is refused with TAAL_EINVAL. */
#define TAAL_HTTP_MAX_REQUEST_HEAD 8192
/** How many times a request is sent again after its connection ended
 *  before a byte of its response came, while it was the one reading (an
 *  idempotent one; see taal_http_get). A request in line behind others
 *  when the connection ended is sent again without counting: that happens
 *  only as many times as those before it are answered or fail. */
#define TAAL_HTTP_MAX_RETRIES 2
/** The default bound on the redirects a request follows (aiohttp's
 *  max_redirects). */
#define TAAL_HTTP_MAX_REDIRECTS 10
/** The http_error of a request that ended with TAAL_ELIMIT because it was
 *  redirected more than its session's max_redirects times (not a parser
 *  result: those are all above it). */
#define TAAL_HTTP_ETOO_MANY_REDIRECTS (-100)
/** The default bound on a response body: 1 MiB. */
#define TAAL_HTTP_MAX_BODY (1u << 20)

/** A host a session can reach, and its one connection. */
typedef struct taal_http_host {
    char name[64];         /**< as in the URL: "api.example" or "api.example:8080" */
    char address[48];      /**< the numeric address it stands for */
    int port;              /**< and the port */
    taal_stream *stream;   /**< its keep-alive connection, or NULL */
    bool connecting;       /**< a request is opening the connection */
    taal_event connected;  /**< set when that attempt is over */
    taal_event room;       /**< set when one fewer request is in flight on the
                                connection, or it ended: a request waiting to
                                write looks again */
    taal_lock turn;        /**< whose response is read next: the lock's FIFO
                                is the order the requests were sent in */
    uint32_t generation;   /**< which connection this is: a request sent on
                                an older one has lost its response */
    uint32_t closed_clean; /**< the last generation that ended after a
                                response saying "Connection: close": the
                                requests sent on it behind that response were
                                never processed, and are sent again */
    bool closing;          /**< the connection takes no more requests (a
                                response said close, or a write on it failed);
                                those in line still read what it brings */
    uint64_t next_ticket;  /**< the number of the next request sent */
    uint64_t next_read;    /**< the number of the response to read next */
    http_parser parser;    /**< where that response's parsing is */
    bool between;          /**< the parser is between responses: the next
                                one is parsed under the session's limits as
                                they are when it starts */
} taal_http_host;

/** A client session: aiohttp.ClientSession. Caller storage, in a task's
 *  frame. */
typedef struct taal_http_session {
    taal_loop *loop;                /**< the loop it runs on */
    taal_http_host **hosts;         /**< the hosts it knows, each allocated once */
    size_t host_count;              /**< how many */
    size_t host_cap;                /**< the room in hosts */
    http_limits limits;             /**< bounds on every response (the
                                         parser's defaults, with max_body
                                         TAAL_HTTP_MAX_BODY); change them
                                         at any time: each response is
                                         parsed under them as they are
                                         when it starts. Invalid ones
                                         (http_parser_init() refuses
                                         them) fail it with TAAL_EINVAL */
    unsigned pipeline;              /**< the most requests in flight on
                                         one connection: 1 (the default;
                                         0 counts as 1) sends one at a
                                         time, as aiohttp; more
                                         pipelines (see the top of
                                         this file). Read as each
                                         request is written */
    unsigned max_redirects;         /**< redirects a GET or HEAD follows
                                         [TAAL_HTTP_MAX_REDIRECTS]; 0:
                                         none */
    bool open;                      /**< between open and close */
    bool closing;                   /**< its `async with` exit is ending its requests */
    struct taal_http_get *requests; /**< the requests in progress */
    taal_event idle;                /**< set when the last of them has ended */
} taal_http_session;

/** Opens @p session on the running loop (call it inside a task). Responses
 *  are bounded by the parser's default limits, with bodies of at most
 *  TAAL_HTTP_MAX_BODY. TAAL_EINVAL, TAAL_ENOTASK. */
int taal_http_session_open(taal_http_session *session);

/** Tells @p session that the host @p name (as URLs write it, with its
 *  port if they give one) is at the numeric @p address and @p port. URLs
 *  find it ignoring ASCII case, and ":80" is the same as no port.
 *  TAAL_EINVAL (too long, NULL, empty, a byte a host name cannot have:
 *  a control byte, space, '/', '?', '#', '@'; a bad port), TAAL_EBUSY
 *  (already known), TAAL_ENOMEM. A session knows as many hosts as memory
 *  allows; each is looked up by a walk of them all. */
int taal_http_session_map(taal_http_session *session, const char *name,
                          const char *address, int port);

/** Closes @p session: its connections are closed (what they buffered is
 *  still sent). Every request must be over. TAAL_EBUSY (nothing closed) if
 *  one is still waiting; TAAL_EINVAL. Closing twice is harmless.
 *
 *  The session's `async with` exit does not refuse, as aiohttp's
 *  `__aexit__` does not: it cancels the task of every request still in
 *  progress (those requests end with TAAL_ECANCELLED), waits until they
 *  have ended, and then closes. */
int taal_http_session_close(taal_http_session *session);

/** A GET request and its response: a coroutine to await directly (it is
 *  embedded in its caller's frame). Initialise it with taal_http_get_init(),
 *  await it with TAAL_AWAIT_STATUS, read the response, free it. */
typedef struct taal_http_get {
    taal_coro co;               /**< the coroutine header */
    taal_http_session *session; /**< the session it goes through */
    const char *url;            /**< "http://host[:port]/path"; not copied */
    bool no_redirects;          /**< set it (after the init) not to follow
                                     redirects (aiohttp's allow_redirects=False) */
    bool stream_body;           /**< set it (after the init) for the await to end
                                     once the headers are in; then read the body
                                     with taal_http_read (see there) */

    /* The response, once the await ended with TAAL_OK. */
    int status_code; /**< e.g. 200, 404: the final response's, never a 1xx */
    char *body;      /**< the body, NUL-terminated; NULL if empty */
    size_t body_len; /**< its length */
    int http_error;  /**< the parser's result (HTTP_E...) behind TAAL_EPROTO,
                          TAAL_ELIMIT or TAAL_EEOF; HTTP_OK otherwise */

    /* Private: the request's progress. */
    char *headers;              /**< the response's fields, "name\0value\0" each */
    size_t headers_len;         /**< the bytes of them */
    size_t headers_cap;         /**< their allocation */
    size_t header_count;        /**< how many fields */
    taal_task *task;            /**< the task it runs in */
    struct taal_http_get *prev; /**< the one before, in the session's requests */
    struct taal_http_get *next; /**< the one after, in the session's requests */
    taal_http_host *host;       /**< where it goes */
    taal_stream *stream;        /**< the connection it was sent on */
    uint32_t generation;        /**< that connection's generation */
    uint64_t ticket;            /**< its place in the order of requests */
    size_t body_cap;            /**< the body's allocation */
    size_t have;                /**< bytes buffered the parser could not use yet */
    bool holding;               /**< it holds the host's turn */
    bool resend;                /**< it must be sent again, on a new connection */
    bool write_failed;          /**< a write of it failed once already */
    char *final_url;            /**< the URL a redirect led to, allocated */
    unsigned redirects;         /**< redirects followed */
    bool streaming;             /**< its body is being streamed: it holds the
                                     host's turn, and its connection */
    bool stream_ended;          /**< its streamed body was read to the end */
    unsigned retries;           /**< times it was sent again after its connection
                                     ended before a byte of its response */
    char method[24];            /**< the method, e.g. "GET" */
    bool head;                  /**< it is HEAD: its response has no body */
    char *fields;               /**< the caller's header fields, "name: value\r\n"
                                     each, allocated */
    size_t fields_len;          /**< their bytes */
    bool user_agent;            /**< one of them is User-Agent */
    const void *send;           /**< the request body (caller storage) */
    size_t send_len;            /**< its length */
    bool has_send;              /**< a body was given (maybe empty) */
    uint32_t waited;            /**< the generation whose line it waited out */
    int st;                     /**< the status of the last await */
    char *request;              /**< the request's bytes (its head), allocated */
    size_t request_len;         /**< their length */
} taal_http_get;

/** Any request, not only GET: the same struct, a name that reads well. */
typedef struct taal_http_get taal_http_request;

/** Prepares @p get to fetch @p url through @p session: a GET, i.e.
 *  taal_http_request_init(get, session, "GET", url). TAAL_EINVAL. */
int taal_http_get_init(taal_http_get *get, taal_http_session *session, const char *url);

/** Prepares @p req to send @p method (a token, at most 23 bytes: GET, HEAD,
 *  POST, PUT, DELETE, PATCH, OPTIONS, ...) to @p url through @p session
 *  (`session.request(method, url)`). The URL is not copied: it must last
 *  until the await ends. A response to HEAD has no body, whatever its
 *  headers say. TAAL_EINVAL (NULL, a method that is not a token). Call it
 *  first: it forgets headers and a body set before. */
int taal_http_request_init(taal_http_request *req, taal_http_session *session,
                           const char *method, const char *url);

/** Adds the header field @p name: @p value to @p req (`headers=`), both
 *  copied; call it after the init and before the await. Fields are sent in
 *  the order added, after Host. A User-Agent replaces the default one,
 *  `taal/` TAAL_VERSION. TAAL_EINVAL: a name that is not a token, a value
 *  with a control byte other than tab (CR, LF, NUL), one of the fields the
 *  client writes itself (Host, Content-Length, Transfer-Encoding,
 *  Connection, TE, Upgrade), or fields over TAAL_HTTP_MAX_REQUEST_HEAD;
 *  TAAL_ENOMEM. taal_http_get_free() frees them. */
int taal_http_request_header(taal_http_request *req, const char *name, const char *value);

/** Gives @p req a body: the @p len bytes at @p data (`data=`), caller
 *  storage that must last until the await ends, sent with Content-Length
 *  (a POST, PUT or PATCH without a body says Content-Length: 0). It is
 *  copied into the request's buffer, with the head, when the await starts,
 *  so a body is bounded by the memory for one copy and the stream's write
 *  limit (TAAL_EWFULL). TAAL_EINVAL (NULL with a length). */
int taal_http_request_body(taal_http_request *req, const void *data, size_t len);

/** The longest piece of a streamed body: 16 KiB. */
#define TAAL_HTTP_PIECE 16384

/** One piece of a streamed body (`await response.content.readany()`): a
 *  coroutine to await directly. For a request with stream_body set, whose
 *  await has ended with TAAL_OK (status and headers in, the body not yet),
 *  init it and await it, again for each piece, until `end`:
 *
 *      taal_http_read_init(&f->rd, &f->req);
 *      TAAL_AWAIT_STATUS(f->st, &f->rd);
 *      ... f->rd.data, f->rd.len, or f->rd.end ...
 *
 *  A piece is at most TAAL_HTTP_PIECE bytes (or the longest line the
 *  session's limits allow, if that is more), in the request's own buffer
 *  (`body`, reused): valid until the next read or taal_http_get_free().
 *  Bytes are read from the socket only as the pieces are asked for (the
 *  stream reads one buffer ahead, 64 KiB): a reader that stops stops the
 *  server, by TCP's flow control, and memory stays bounded whatever the
 *  body's size. Until the body has ended, the request holds its
 *  connection: no other request to its host is read (or, without
 *  pipelining, sent). taal_http_get_free() before the end ends the
 *  connection, since the rest of the body is still on it; free a streamed
 *  request before the session closes (taal_http_session_close() is
 *  TAAL_EBUSY until then). Read from the task that awaited the request.
 *  Redirects are followed before the stream starts. The session's
 *  max_body does not bound a streamed body, which is never held whole;
 *  the other limits hold. Errors: TAAL_EINVAL (not a streamed
 *  request, or it failed), TAAL_EEOF, TAAL_EPROTO, TAAL_ELIMIT (with the
 *  request's http_error), TAAL_ECONNABORTED, TAAL_ECANCELLED, TAAL_ENOMEM;
 *  each ends the connection. */
typedef struct taal_http_read {
    taal_coro co;           /**< the coroutine header */
    taal_http_request *req; /**< the request whose body it reads */
    const char *data;       /**< the piece, once the await ended with TAAL_OK */
    size_t len;             /**< its length; 0 at the end */
    bool end;               /**< the body has ended: no piece, and no more */
    int st;                 /**< private: the status of its last await */
} taal_http_read;

/** Prepares @p rd to read the next piece of @p req's streamed body.
 *  TAAL_EINVAL. */
int taal_http_read_init(taal_http_read *rd, taal_http_request *req);

/** The URL of the response @p req has: its own, or where the redirects it
 *  followed led (aiohttp's `response.url`); owned by @p req, valid until
 *  taal_http_get_free() (after which it is the URL it was given). */
const char *taal_http_request_url(const taal_http_request *req);

/** Frees the response body and headers of @p get (harmless twice). */
void taal_http_get_free(taal_http_get *get);

/** How many header fields the response of @p get had (0 before it came,
 *  and after taal_http_get_free()). Fields are kept in the order they
 *  came, names as sent; trailers of a chunked body are not among them. */
size_t taal_http_get_header_count(const taal_http_get *get);

/** The @p index-th header field of the response: its name and value, both
 *  NUL-terminated and owned by @p get. False (and NULLs) when there is no
 *  such field. */
bool taal_http_get_header_at(const taal_http_get *get, size_t index, const char **name,
                             const char **value);

/** The value of the first header field named @p name, compared ignoring
 *  ASCII case (`response.headers["content-type"]`), or NULL if there is
 *  none. */
const char *taal_http_get_header(const taal_http_get *get, const char *name);

/** What a request ends with, besides TAAL_OK (any final status code is
 *  TAAL_OK: a 404 is a response, as aiohttp does not raise for it either).
 *  On an error, status_code is 0 and there are no headers and no body.
 *   - TAAL_EINVAL: not an http:// URL (the scheme in any case); a URL with
 *     a control byte (CR, LF, NUL, tab, DEL: a request line cannot carry
 *     them, and a CR/LF would smuggle a second request), with userinfo
 *     ("user@host": a password in the clear, and no authentication here to
 *     use it), or whose request head would be over
 *     TAAL_HTTP_MAX_REQUEST_HEAD; the session's limits invalid; or the
 *     session is not open (or its exit is closing it). Nothing was sent.
 *     Other bytes a request line cannot carry (space, "<>\^`{|}, bytes
 *     over 0x7F) are sent as %XX, and a #fragment is never sent;
 *   - TAAL_EADDR: a host the session was not told about (no DNS), also
 *     in a redirect's Location;
 *   - TAAL_ELIMIT with http_error TAAL_HTTP_ETOO_MANY_REDIRECTS: a GET or
 *     HEAD redirected (301, 302, 303, 307, 308 with a Location) more than
 *     the session's max_redirects times. Within the bound, each redirect
 *     is followed on the session, to an absolute URL (of a host it knows)
 *     or one relative to the request's (a path, "//host/path", or a name
 *     in the same directory; dot segments are sent as they are), unless
 *     the request set no_redirects. Other methods get the 3xx itself;
 *   - the connect's: TAAL_ECONNREFUSED, TAAL_EMFILE, ...;
 *   - TAAL_EEOF: the server closed before the response was complete (or,
 *     for a request that is not sent again, before it began);
 *   - TAAL_EPROTO: a malformed response, or a 101 Switching Protocols
 *     (http_error HTTP_ESTATUS_CODE: no GET here asks to switch);
 *     TAAL_ELIMIT: one over a bound, such as a body that never ends
 *     (http_error says which); the connection is then closed;
 *   - TAAL_ECONNABORTED: the connection the request was sent on failed
 *     (reset, a read error, a response before it that was malformed) or
 *     was closed before its response came; or writing it failed twice,
 *     on two connections. A request behind a response that said
 *     "Connection: close", or whose write failed once, is not aborted: it
 *     is sent again on a new connection, and so is an idempotent request
 *     whose connection ended before a byte of its response came, up to
 *     TAAL_HTTP_MAX_RETRIES times;
 *   - TAAL_ECANCELLED (or TAAL_ETIMEDOUT from a timeout scope around it),
 *     also when the session's `async with` exit ends it; given up after it
 *     was sent, it takes its connection down (see the top of this file);
 *   - TAAL_EWFULL: too many requests written and not yet sent;
 *   - TAAL_ENOMEM. */
/** @} */

/* ------------------------------------------------------------------------ */
/** @name The server
 *  A small server for the examples and tests. Each connection is a task
 *  (taal_start_server) that reads requests with the parser, answers them in
 *  order, and writes each body in pieces, draining after each one: a client
 *  that reads slowly makes the connection's task wait, never the server
 *  buffer without bound.
 *
 *  A route answers the requests whose path (the target without its
 *  `?query`) it matches, exactly or as a prefix; the first route that
 *  matches, in the order given, answers. It answers with a fixed response,
 *  or with what its handler coroutine makes of the request.
 *
 *  What the server answers by itself (RFC 9110, 9112): 404 for a path no
 *  route matches; 501 for a method it does not know, 405 (with an `Allow`
 *  header) for one the route does not allow; 400 for an HTTP/1.1 request
 *  without exactly one `Host`; 413 for a handler's request body over the
 *  site's max_body; the parser's status for a request it cannot parse
 *  (400, 413, 414, 431, 501, 505); 500 for a handler that fails. Each of
 *  those is answered as soon as it is known, and the connection is
 *  closed, gently: writing is shut, and what the client still sends is
 *  read and dropped for up to 5 s, so that its unread body does not make
 *  the kernel reset the connection under the response. A request with `Expect:
 * 100-continue` that will be read gets `HTTP/1.1 100 Continue` before its body is. Every
 * response has a `Date` and the reason phrase RFC 9110 gives its status; 1xx, 204 and 304
 * have neither a body nor a Content-Length, a response to HEAD has the headers of the GET
 * and no body. An HTTP/1.0 client that asks for keep-alive is told `Connection:
 * keep-alive` and kept; one that does not is answered and closed, and is never sent a
 * chunked body (it gets a Content-Length).
 *  @{
 */

/** The longest content type a route may have. */
#define TAAL_HTTP_MAX_CONTENT_TYPE 128
/** The most bytes a route's own header fields may take, as sent. */
#define TAAL_HTTP_MAX_ROUTE_HEADERS 512
/** The default bound on a request body a handler reads: 1 MiB. */
#define TAAL_HTTP_MAX_REQUEST_BODY (1u << 20)

/** The methods the server knows, as bits of taal_http_route.methods. Any
 *  other method gets 501. */
enum {
    TAAL_HTTP_GET = 1u << 0,     /**< GET (a route that allows it allows HEAD) */
    TAAL_HTTP_HEAD = 1u << 1,    /**< HEAD */
    TAAL_HTTP_POST = 1u << 2,    /**< POST */
    TAAL_HTTP_PUT = 1u << 3,     /**< PUT */
    TAAL_HTTP_DELETE = 1u << 4,  /**< DELETE */
    TAAL_HTTP_CONNECT = 1u << 5, /**< CONNECT */
    TAAL_HTTP_OPTIONS = 1u << 6, /**< OPTIONS */
    TAAL_HTTP_TRACE = 1u << 7,   /**< TRACE */
    TAAL_HTTP_PATCH = 1u << 8    /**< PATCH */
};

/** A request as a handler sees it: everything copied out of the stream,
 *  NUL-terminated, owned by the server, valid until the handler ends. */
typedef struct taal_http_server_request {
    const char *method; /**< "GET", "POST", ... as sent */
    const char *path;   /**< the target without its query: "/users/1" */
    const char *query;  /**< what followed the '?', or "" (not decoded) */
    int version_minor;  /**< 1 for HTTP/1.1, 0 for HTTP/1.0 */
    const char *body;   /**< the body, read whole, NUL-terminated ("" if none) */
    size_t body_len;    /**< its length, at most the site's max_body */

    /* Private: the copies. */
    char *text;          /**< "method\0path\0query\0" then "name\0value\0" each */
    size_t text_len;     /**< the bytes of it */
    size_t text_cap;     /**< its allocation */
    size_t field_count;  /**< how many header fields */
    size_t fields_start; /**< where in text the fields begin */
    char *data;          /**< the body's allocation */
    size_t data_cap;     /**< its size */
} taal_http_server_request;

/** How many header fields @p request had. */
size_t taal_http_server_request_header_count(const taal_http_server_request *request);

/** The @p index-th header field of @p request, as sent: false (and NULLs)
 *  when there is none. */
bool taal_http_server_request_header_at(const taal_http_server_request *request,
                                        size_t index, const char **name,
                                        const char **value);

/** The value of the first header field named @p name (ignoring ASCII
 *  case), or NULL. */
const char *taal_http_server_request_header(const taal_http_server_request *request,
                                            const char *name);

/** The response a handler fills in. It starts as a 200 with no body. */
typedef struct taal_http_response {
    int status; /**< 200 to 999 [200]; 1xx is refused (500) */

    /* Private: what the handler set. */
    char *fields;      /**< header lines, "Name: value\r\n" each */
    size_t fields_len; /**< their bytes */
    size_t fields_cap; /**< their allocation */
    bool has_type;     /**< one of them is Content-Type */
    char *body;        /**< the body */
    size_t body_len;   /**< its length */
    size_t body_cap;   /**< its allocation */
} taal_http_response;

/** Adds the header field @p name: @p value to @p response. The server
 *  writes Date, Content-Length, Transfer-Encoding and Connection itself:
 *  those names are refused. A Content-Type replaces the default
 *  (text/plain). TAAL_EINVAL for a name that is not a token or a value
 *  with a control byte (a CR or LF would inject a header); TAAL_ENOMEM. */
int taal_http_response_header(taal_http_response *response, const char *name,
                              const char *value);

/** Appends @p n bytes at @p data to the body of @p response. TAAL_ENOMEM,
 *  TAAL_EINVAL. */
int taal_http_response_write(taal_http_response *response, const void *data, size_t n);

/** The head of a handler's frame: a handler is a coroutine whose frame is
 *  a struct that begins with this one, followed by its own fields
 *  (`typedef struct { taal_http_handler h; int st; ... } my_handler;`).
 *  The server allocates the frame (the route's handler_size bytes, zeroed),
 *  fills in this head and awaits the coroutine in the connection's task.
 *  The handler reads @p request, fills @p response and ends: TAAL_OK sends
 *  the response (a HEAD gets its head only), an error sends 500 instead.
 *  A client that goes away while its handler runs does not stop it (as
 *  aiohttp's handlers are not cancelled by default): the handler runs to
 *  its end and its response is dropped. */
typedef struct taal_http_handler {
    taal_coro co;                        /**< the coroutine header */
    taal_http_server_request *request;   /**< the request, read whole */
    taal_http_response *response;        /**< the response to fill in */
    void *data;                          /**< the route's handler_data */
    const struct taal_http_route *route; /**< the route that matched */
} taal_http_handler;

/** One route: which requests it answers, and how. */
typedef struct taal_http_route {
    const char *path;           /**< the path it answers (the query is not
                                     compared): exactly, or every path that
                                     begins with it if prefix is set */
    int status;                 /**< its fixed status code, 200 to 999 */
    const char *content_type;   /**< NULL: text/plain; at most
                                     TAAL_HTTP_MAX_CONTENT_TYPE bytes, no
                                     control bytes (no CR, no LF) */
    const char *body;           /**< the fixed body (NULL only with a handler) */
    size_t length;              /**< its length; 0: strlen(body) */
    size_t repeat;              /**< send the body this many times over (0: once) */
    bool chunked;               /**< send it with Transfer-Encoding: chunked */
    bool prefix;                /**< match every path that begins with path */
    unsigned methods;           /**< TAAL_HTTP_GET | ...; 0: GET (and HEAD) */
    const char *const *headers; /**< its own header fields, as pairs: name,
                                     value, name, value, ..., NULL (e.g. a
                                     Location for a 301); names tokens,
                                     values free of control bytes, at most
                                     TAAL_HTTP_MAX_ROUTE_HEADERS bytes */
    taal_body_fn handler;       /**< NULL: the fixed response above; else the
                                     coroutine that makes the response (see
                                     taal_http_handler), status, content_type,
                                     body, length, repeat and chunked unused */
    size_t handler_size;        /**< its frame's size; 0: sizeof(taal_http_handler) */
    void *handler_data;         /**< passed to it in taal_http_handler.data */
} taal_http_route;

/** What a server serves, its limits, and what it saw. Caller storage that
 *  must outlive the server. A path with no route gets 404 "not found\n".
 *  A limit left 0 takes its default, in brackets. */
typedef struct taal_http_site {
    const taal_http_route *routes; /**< the routes, tried in order */
    size_t count;                  /**< how many */
    size_t requests;               /**< requests answered so far */
    size_t drains;                 /**< times a handler waited in drain */
    size_t peak;                   /**< the most any connection buffered to send */
    int last_error;                /**< the last connection error (TAAL_EPIPE...) */

    /* The limits: what a client may hold, and for how long. */
    double header_timeout;  /**< seconds for a whole request to arrive, from its
                                 first byte (on a new connection, from the
                                 connection's start); then 408, and the
                                 connection is closed [10] */
    double idle_timeout;    /**< seconds a kept-alive connection may wait for
                                 the first byte of its next request; then it is
                                 closed [5] */
    size_t max_connections; /**< connections served at once [256, or the soft
                                 RLIMIT_NOFILE less 16 if that is lower]; one
                                 more takes the place of the connection idle
                                 longest (it is closed), or, none being idle,
                                 gets 503 and is closed. Keep it under the
                                 descriptor limit: at EMFILE, nothing makes
                                 room */
    size_t max_body;        /**< the longest request body a handler is given
                                 [TAAL_HTTP_MAX_REQUEST_BODY]; a longer one
                                 gets 413 (before its body is read, if it
                                 declared its length) */

    /* What the limits did. */
    size_t active;   /**< connections open now */
    size_t timeouts; /**< connections closed by one of the timeouts */
    size_t evicted;  /**< idle connections closed to make room for a new one */
    size_t refused;  /**< connections answered 503 for want of room */

    /* Private: the connections waiting for a request's first byte. */
    struct taal_http_conn *idle_first; /**< the one that has waited longest */
    struct taal_http_conn *idle_last;  /**< the one that has waited least */
} taal_http_site;

/** Starts serving @p site on the numeric @p host and @p port (0: any; read
 *  it in (*server)->port). Close it as any server (taal.h:
 *  TAAL_SERVER_CLOSE_STATUS). TAAL_EINVAL for a route that breaks the rules
 *  of taal_http_route (no path; no body and no handler; a status not of
 *  three digits or a 1xx; a content type too long or with a control byte;
 *  a header whose name is not a token or whose value has a control byte,
 *  or too many of them; a handler_size smaller than taal_http_handler);
 *  the errors of taal_start_server(). */
int taal_http_serve(taal_loop *loop, const char *host, int port, taal_http_site *site,
                    taal_server **server);
/** @} */

#endif /* TAAL_HTTP_H */
