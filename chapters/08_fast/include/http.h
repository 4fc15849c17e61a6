/*
** http.h -- chapter 07: an incremental HTTP/1.1 parser, for responses (the
** client) and requests (the server).
**
** The parser does no I/O and allocates nothing. You give it bytes as they
** arrive from the socket, in pieces of any size (one byte at a time works),
** and it tells you what they were: a status line, a header, a piece of the
** body, the end of the message. Everything it reports points into the bytes
** you gave it; it copies nothing and stores no body.
**
** Why a pull API, one event per call, and not callbacks
** ------------------------------------------------------
** There are two classic shapes for a push parser in C. llhttp (Node's) calls
** your callbacks from inside its parse function: on_header_field,
** on_body, ... picohttpparser parses a whole header block per call and
** leaves the body to you. We do neither: http_parse() returns one event and
** how many bytes it used, and you call it again for the next one:
**
**     http_event ev;
**     int rc = http_parse(&p, buf + start, end - start, &ev);
**     start += ev.consumed;      // always, whatever rc is
**     if (rc == HTTP_HEADER) ...ev.name, ev.value...
**
** The reason is the coroutines of the earlier chapters. A callback runs on
** the parser's C stack, in the middle of http_parse(); a taal coroutine that
** wants to await inside it (to write a body piece to a slow peer, say)
** cannot, because its await returns from its body function, and that return
** would have to unwind through the parser. So a callback API forces the
** caller to buffer whatever a callback sees until the parser returns. With
** one event per call, http_parse() has always returned before the caller
** does anything: the coroutine handles the event, awaits whatever it likes,
** and calls http_parse() again when it is ready. The parser's whole state
** is the http_parser struct, so it does not mind how long that takes.
**
** The one rule that comes with it: lines are never split
** -------------------------------------------------------
** A status line, a header line or a chunk-size line is reported only once
** all of it, with its CRLF, is in one call's input. Bytes of a line whose
** end has not arrived yet are not consumed (ev.consumed stops before them),
** and you must pass them again, at the start of the next call's input,
** followed by whatever arrived since. That is exactly what a stream's read
** buffer does anyway: keep the unconsumed tail, read more after it. In
** exchange, every name and value is one contiguous span of your buffer, and
** the parser needs no line buffer of its own. It remembers how far it has
** already looked for the line's end, so feeding a line one byte at a time
** costs no rescanning.
**
** The longest line the limits allow must therefore fit in your buffer:
** http_min_buffer() says how big it must be. With a buffer at least that
** big, HTTP_NEED_MORE never comes back while the buffer is full (a line
** that would not fit is HTTP_ESTART_TOO_LONG or HTTP_EHEADER_TOO_LONG
** first), so a stream that moves the unconsumed tail to the front of its
** buffer before each read always has room to read into.
**
** Body bytes are not lines: they are consumed, and reported, as soon as
** they arrive, however few.
**
** Decisions, with the reasons in http.c:
**   - Lines end in CRLF. A bare LF is an error (HTTP_EBARE_LF), not an
**     alternative line ending: parsers that disagree on where a line ends
**     are how request smuggling works.
**   - Content-Length and Transfer-Encoding together, two different
**     Content-Length values, or any Transfer-Encoding other than exactly
**     "chunked" are errors, in both directions.
**   - A response with neither Content-Length nor Transfer-Encoding is read
**     until the connection closes (call http_parse_eof()), and the
**     connection is then not kept alive. A request without either has no
**     body.
**   - Every size has a bound in http_limits; going over one is an error of
**     its own, never a crash and never a silent cut.
*/
#ifndef HTTP_H
#define HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** @file
 *  @brief Chapter 07: an incremental, allocation-free HTTP/1.1 parser.
 */

/* ------------------------------------------------------------------------ */
/** @name Results
 *  Every function returns an int: HTTP_OK, an event (positive), or an error
 *  (negative). http_parse() returns the event it found, HTTP_NEED_MORE when
 *  its input ran out first, or an error; http_strerror() names each value.
 *  @{
 */
enum {
    HTTP_OK = 0, /**< success (the functions other than the parse calls) */

    /* Events. */
    HTTP_NEED_MORE = 1,    /**< the input ran out: call again with more bytes */
    HTTP_STATUS_LINE = 2,  /**< response: status_code, version_minor, ev.reason */
    HTTP_REQUEST_LINE = 3, /**< request: ev.method, ev.target, version_minor */
    HTTP_HEADER = 4,       /**< one header field: ev.name, ev.value */
    HTTP_HEADERS_DONE = 5, /**< the empty line: framing and keep_alive are known */
    HTTP_BODY = 6,         /**< ev.body: the next bytes of the body, never empty */
    HTTP_TRAILER = 7,      /**< one trailer field of a chunked body: ev.name, ev.value */
    HTTP_MESSAGE_DONE = 8, /**< the message is complete; see http_parser_reset() */
    HTTP_CLOSED = 9,       /**< http_parse_eof(): closed between messages, cleanly */

    /* Errors in the message. */
    HTTP_EINVAL = -1,              /**< bad argument, or kept bytes dropped */
    HTTP_ESTATUS_LINE = -2,        /**< malformed status line */
    HTTP_EREQUEST_LINE = -3,       /**< malformed request line */
    HTTP_EVERSION = -4,            /**< a version other than HTTP/1.x */
    HTTP_ESTATUS_CODE = -5,        /**< status code not 3 digits, 100-999 */
    HTTP_EBARE_LF = -6,            /**< a line ends in LF without CR */
    HTTP_EHEADER_NAME = -7,        /**< empty name, or a non-token byte in it */
    HTTP_EHEADER_SPACE = -8,       /**< whitespace in a name, e.g. before ':' */
    HTTP_ENO_COLON = -9,           /**< header line without ':' */
    HTTP_EHEADER_VALUE = -10,      /**< control byte (NUL, CR, ...) in a value */
    HTTP_EOBS_FOLD = -11,          /**< header line starting with whitespace */
    HTTP_ECONTENT_LENGTH = -12,    /**< not 1*DIGIT, or over 64 bits */
    HTTP_ECL_CONFLICT = -13,       /**< two different Content-Length values */
    HTTP_ECL_AND_TE = -14,         /**< Content-Length and Transfer-Encoding */
    HTTP_ETRANSFER_ENCODING = -15, /**< anything but exactly "chunked" */
    HTTP_ECHUNK_SIZE = -16,        /**< not hex digits [BWS ";" extensions] */
    HTTP_ECHUNK_END = -17,         /**< chunk data not followed by CRLF */
    HTTP_EEOF = -18,               /**< closed in the middle of a message */

    /* Errors for going over one of the http_limits. */
    HTTP_ESTART_TOO_LONG = -19,      /**< start line over max_start_line */
    HTTP_EHEADER_TOO_LONG = -20,     /**< field line over max_header_line */
    HTTP_ETOO_MANY_HEADERS = -21,    /**< more fields than max_headers */
    HTTP_EHEADERS_TOO_LARGE = -22,   /**< field lines over max_header_bytes */
    HTTP_ECHUNK_DIGITS = -23,        /**< more hex digits than max_chunk_digits */
    HTTP_ECHUNK_LINE_TOO_LONG = -24, /**< chunk-size line over max_chunk_line */
    HTTP_EBODY_TOO_LARGE = -25       /**< body (declared or sent) over max_body */
};

/** A short English description of a result ("invalid chunk size"). Never
 *  NULL; a value that is none of the above gives "unknown result". */
const char *http_strerror(int result);

/** The status code a server should answer a request that failed to parse
 *  with @p error: 413 for a body too large, 414 for a request line too
 *  long, 431 for headers over a bound, 501 for a Transfer-Encoding it does
 *  not support, 505 for a version other than 1.x, and 400 for the rest. */
int http_error_status(int error);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Limits
 *  @{
 */

/** Every bound the parser enforces. Each field's default is in brackets;
 *  http_limits_default() returns them all. Line lengths do not count the
 *  CRLF. The defaults follow Apache and nginx (8 KiB lines, 100 fields). */
typedef struct http_limits {
    size_t max_start_line;     /**< status or request line [8192] */
    size_t max_header_line;    /**< one header or trailer line [8192] */
    size_t max_headers;        /**< header fields plus trailer fields [100] */
    size_t max_header_bytes;   /**< header plus trailer lines, each with its CRLF,
                                    without the start line or the empty line [65536] */
    unsigned max_chunk_digits; /**< hex digits of one chunk size, leading zeros
                                    included; 1 to 16, so no size overflows [16] */
    size_t max_chunk_line;     /**< one chunk-size line, extensions included [1024] */
    uint64_t max_body;         /**< body bytes: the Content-Length, the sum of the
                                    chunk sizes, or what a read-to-close body
                                    received [16 MiB] */
    size_t max_empty_lines;    /**< requests: empty lines skipped before a
                                    request line; one more is
                                    HTTP_EREQUEST_LINE [4] */
} http_limits;

/** The default limits. */
http_limits http_limits_default(void);

/** The smallest read buffer that holds the longest line @p limits allow,
 *  with its CRLF (NULL means the defaults). A caller that keeps unconsumed
 *  bytes in a smaller buffer can stall on a long valid line. */
size_t http_min_buffer(const http_limits *limits);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name The parser
 *  @{
 */

/** Which side of the connection the parser is on. */
typedef enum http_kind {
    HTTP_RESPONSE, /**< a client parsing the responses it receives */
    HTTP_REQUEST   /**< a server parsing the requests it receives */
} http_kind;

/** How the body of the message is delimited; known at HTTP_HEADERS_DONE. */
typedef enum http_framing {
    HTTP_FRAMING_NONE,    /**< no body (204, 304, 1xx, HEAD, a request without one) */
    HTTP_FRAMING_LENGTH,  /**< exactly content_length bytes */
    HTTP_FRAMING_CHUNKED, /**< Transfer-Encoding: chunked */
    HTTP_FRAMING_EOF      /**< a response body that ends when the connection closes */
} http_framing;

/** A run of bytes inside the input of the call that reported it. Valid
 *  until the caller moves or overwrites those bytes; not NUL-terminated. */
typedef struct http_span {
    const char *at; /**< first byte; NULL when len is 0 and nothing was set */
    size_t len;     /**< number of bytes */
} http_span;

/** What one http_parse() call found. Only the fields its event names are
 *  set; the others are empty. */
typedef struct http_event {
    size_t consumed;  /**< every call: bytes of its input used up; the next
                           call's input starts after them */
    http_span reason; /**< HTTP_STATUS_LINE: the reason phrase, maybe empty */
    http_span method; /**< HTTP_REQUEST_LINE: the method, e.g. "GET" */
    http_span target; /**< HTTP_REQUEST_LINE: the request target, e.g. "/a?b" */
    http_span name;   /**< HTTP_HEADER, HTTP_TRAILER: the field name, as sent */
    http_span value;  /**< HTTP_HEADER, HTTP_TRAILER: the value, without the
                           whitespace around it; maybe empty */
    http_span body;   /**< HTTP_BODY: body bytes, never empty */
} http_event;

/** The parser's state. The caller provides the storage (on the stack, in a
 *  coroutine frame, in a connection struct) and reads the fields of the
 *  first two groups; only the parser writes any of them. */
typedef struct http_parser {
    /* Set by http_parser_init(); the same for every message. */
    http_kind kind;     /**< responses or requests */
    http_limits limits; /**< the bounds in force */

    /* The current message, valid from the event named. */
    int status_code;         /**< HTTP_STATUS_LINE: 100 to 999 (0 for requests) */
    int version_minor;       /**< start line: the x of HTTP/1.x; 0 means 1.0 rules */
    http_framing framing;    /**< HTTP_HEADERS_DONE: how the body is delimited */
    uint64_t content_length; /**< HTTP_HEADERS_DONE: the Content-Length value
                                  (0 if none): the body's length for
                                  HTTP_FRAMING_LENGTH, the length a GET would
                                  have had for a response to HEAD */
    bool keep_alive;         /**< HTTP_HEADERS_DONE: may the connection carry
                                  another message after this one? */
    uint64_t body_bytes;     /**< body bytes reported so far */
    bool head;               /**< responses: the request was HEAD, so no body */

    /* Private: the parser's position and what the headers said. */
    int state;            /**< where in the message the parser is */
    int error;            /**< the error that stopped it, for later calls */
    size_t scanned;       /**< bytes of the pending line already searched */
    uint64_t remaining;   /**< bytes left of the body or of the chunk */
    uint64_t declared;    /**< chunked: the sum of the chunk sizes so far */
    size_t fields;        /**< header and trailer fields so far */
    size_t field_bytes;   /**< their lines' bytes so far */
    size_t empty_lines;   /**< empty lines skipped before the request line */
    bool has_length;      /**< a Content-Length header was seen */
    bool has_te;          /**< a Transfer-Encoding header was seen */
    bool te_other;        /**< it named a coding other than chunked */
    unsigned te_chunked;  /**< how many times it named chunked */
    bool conn_close;      /**< Connection: close */
    bool conn_keep_alive; /**< Connection: keep-alive */
} http_parser;

/** Prepares @p p to parse messages of @p kind within @p limits (NULL: the
 *  defaults; they are copied). Returns HTTP_OK, or HTTP_EINVAL for a NULL
 *  parser, an unknown kind, max_chunk_digits outside 1 to 16, or a line
 *  limit over SIZE_MAX / 2. */
int http_parser_init(http_parser *p, http_kind kind, const http_limits *limits);

/** Forgets the current message, keeping the kind and the limits: call it
 *  after HTTP_MESSAGE_DONE to parse the next message on a keep-alive
 *  connection, starting with the bytes after those consumed. Also clears
 *  the error state, but after an error the connection's framing is lost:
 *  close it rather than parse on. */
void http_parser_reset(http_parser *p);

/** Tells a response parser that the request it answers was HEAD, so that
 *  the response has no body whatever its headers say. Call it after init
 *  or reset and before the headers are done. Returns HTTP_OK, or
 *  HTTP_EINVAL for a request parser or a call after HTTP_HEADERS_DONE. */
int http_parser_set_head(http_parser *p, bool head);

/** Parses the next event out of the @p len bytes at @p data and fills in
 *  @p ev (consumed first of all). @p data starts with the bytes the last
 *  call did not consume, if it returned HTTP_NEED_MORE; @p data may be
 *  NULL when @p len is 0.
 *
 *  Returns the event, HTTP_NEED_MORE (some bytes may still have been
 *  consumed), or an error. An error sticks: later calls return it again,
 *  consuming nothing, until http_parser_reset(). After HTTP_MESSAGE_DONE,
 *  calls return HTTP_MESSAGE_DONE again, consuming nothing, until reset.
 *  HTTP_EINVAL does not stick: it means this call's arguments were wrong
 *  (NULL pointers, or fewer bytes than the last call kept). */
int http_parse(http_parser *p, const char *data, size_t len, http_event *ev);

/** Tells the parser the connection has closed: no more bytes will come.
 *  Returns HTTP_MESSAGE_DONE if that completes the message (a read-to-close
 *  body), HTTP_CLOSED if no byte of a next message had arrived, or
 *  HTTP_EEOF if the message was cut short (in the start line, the headers,
 *  a Content-Length body, a chunk, or the trailers); a stuck error or a
 *  finished message returns what http_parse() would. Call it only after
 *  http_parse() has returned HTTP_NEED_MORE for all the bytes received. */
int http_parse_eof(http_parser *p);

/** True if @p span equals the NUL-terminated @p text, ignoring ASCII case:
 *  the way to compare header names ("content-type") and tokens. */
bool http_span_is(http_span span, const char *text);
/** @} */

#endif /* HTTP_H */
