/*
** http.c -- chapter 07: an incremental HTTP/1.1 parser (RFC 9112).
**
** A message is a start line, header lines, an empty line, and a body whose
** end the headers say how to find. The parser walks through it as a state
** machine, one state per kind of thing it expects next:
**
**   START --> HEADER --+--> BODY_LENGTH ---------------------------+--> DONE
**     (status or       |    (also a body of 0 or no body at all)   |
**     request line)    +--> CHUNK_SIZE --> CHUNK_DATA --> CHUNK_END|
**                      |       ^   | size 0                  |     |
**                      |       |   +--> TRAILER -------------|-----+
**                      |       +-----------------------------+
**                      +--> BODY_EOF --(http_parse_eof)------------+
**
** Each state has a handler, on_...(), that looks at the input left in this
** call and either reports an event, reports that it needs more, fails, or
** consumes something that is no event of its own (a chunk-size line, the
** CRLF after a chunk) and says STEP_AGAIN, which runs the next handler at
** once. http_parse() loops over the handlers until one returns anything
** else, so every call returns at most one event.
**
** The decisions a reader might question, and why:
**
**  1. Lines end in CRLF, and only CRLF. RFC 9112 (section 2.2) lets a
**     recipient accept a bare LF too, and many do, but two parsers that
**     disagree on where a line ends will disagree on where a message ends,
**     and that disagreement is request smuggling: Node's parser had it as
**     CVE-2022-32214 (bare LF in headers), Go's as CVE-2025-22871 (bare LF
**     after a chunk size), h11 as CVE-2025-43859 (the CRLF after chunk
**     data). Being strict is one comparison here; being lenient would be
**     one more in find_line().
**  2. A bare CR inside a line is never a line ending either: it is a
**     control byte, which every field's check rejects (CVE-2023-30589 was
**     llhttp reading "X: \rTransfer-Encoding: chunked" as two headers).
**  3. Framing is unambiguous or an error (RFC 9112 section 6.3, read
**     strictly): Content-Length together with Transfer-Encoding, two
**     different Content-Length values, a Content-Length that is not plain
**     digits (no sign, no list, no spaces), and any Transfer-Encoding but a
**     single "chunked" are all rejected, in requests and responses alike,
**     even where the body would be ignored (HEAD, 204, 304).
**  4. Whatever the limits say, nothing can overflow: a Content-Length that
**     does not fit in 64 bits is invalid, and a chunk size has at most 16
**     hex digits, which is 64 bits exactly.
*/
#include "http.h"

#include <string.h>

/* Where in the message the parser is; see the diagram above. */
enum {
    ST_START,       /* expecting the status or request line */
    ST_HEADER,      /* expecting a header line or the empty line */
    ST_BODY_LENGTH, /* `remaining` body bytes to go (maybe none) */
    ST_BODY_EOF,    /* body bytes until the connection closes */
    ST_CHUNK_SIZE,  /* expecting a chunk-size line */
    ST_CHUNK_DATA,  /* `remaining` bytes of the chunk to go */
    ST_CHUNK_END,   /* expecting the CRLF after a chunk's data */
    ST_TRAILER,     /* expecting a trailer line or the empty line */
    ST_DONE,        /* the message is complete */
    ST_CLOSED,      /* the connection closed between messages */
    ST_ERROR        /* stopped by p->error */
};

/* A handler consumed something that is no event; run the next handler. */
#define STEP_AGAIN 100

/* ---- results ------------------------------------------------------------ */

const char *http_strerror(int result)
{
    switch (result) {
    case HTTP_OK: return "ok";
    case HTTP_NEED_MORE: return "need more input";
    case HTTP_STATUS_LINE: return "status line";
    case HTTP_REQUEST_LINE: return "request line";
    case HTTP_HEADER: return "header";
    case HTTP_HEADERS_DONE: return "end of headers";
    case HTTP_BODY: return "body";
    case HTTP_TRAILER: return "trailer";
    case HTTP_MESSAGE_DONE: return "end of message";
    case HTTP_CLOSED: return "connection closed between messages";
    case HTTP_EINVAL: return "invalid argument";
    case HTTP_ESTATUS_LINE: return "malformed status line";
    case HTTP_EREQUEST_LINE: return "malformed request line";
    case HTTP_EVERSION: return "unsupported HTTP version";
    case HTTP_ESTATUS_CODE: return "invalid status code";
    case HTTP_EBARE_LF: return "line ends in LF without CR";
    case HTTP_EHEADER_NAME: return "invalid header name";
    case HTTP_EHEADER_SPACE: return "whitespace in header name";
    case HTTP_ENO_COLON: return "missing colon in header";
    case HTTP_EHEADER_VALUE: return "invalid header value";
    case HTTP_EOBS_FOLD: return "obsolete line folding in header";
    case HTTP_ECONTENT_LENGTH: return "invalid Content-Length";
    case HTTP_ECL_CONFLICT: return "conflicting Content-Length values";
    case HTTP_ECL_AND_TE: return "conflicting Content-Length and Transfer-Encoding";
    case HTTP_ETRANSFER_ENCODING: return "unsupported Transfer-Encoding";
    case HTTP_ECHUNK_SIZE: return "invalid chunk size";
    case HTTP_ECHUNK_END: return "missing CRLF after chunk data";
    case HTTP_EEOF: return "unexpected end of message";
    case HTTP_ESTART_TOO_LONG: return "start line too long";
    case HTTP_EHEADER_TOO_LONG: return "header line too long";
    case HTTP_ETOO_MANY_HEADERS: return "too many headers";
    case HTTP_EHEADERS_TOO_LARGE: return "headers too large";
    case HTTP_ECHUNK_DIGITS: return "chunk size has too many digits";
    case HTTP_ECHUNK_LINE_TOO_LONG: return "chunk-size line too long";
    case HTTP_EBODY_TOO_LARGE: return "body too large";
    default: return "unknown result";
    }
}

/* RFC 9110 section 15 names a status for each bound a server can enforce. */
int http_error_status(int error)
{
    switch (error) {
    case HTTP_EBODY_TOO_LARGE: return 413; /* Content Too Large */
    case HTTP_ESTART_TOO_LONG: return 414; /* URI Too Long */
    case HTTP_EHEADER_TOO_LONG:            /* Request Header Fields Too Large */
    case HTTP_ETOO_MANY_HEADERS:
    case HTTP_EHEADERS_TOO_LARGE: return 431;
    case HTTP_ETRANSFER_ENCODING: return 501; /* Not Implemented (RFC 9112 6.1) */
    case HTTP_EVERSION: return 505;           /* HTTP Version Not Supported */
    default: return 400;                      /* Bad Request */
    }
}

/* ---- limits and set-up -------------------------------------------------- */

http_limits http_limits_default(void)
{
    http_limits limits = {
        .max_start_line = 8192,
        .max_header_line = 8192,
        .max_headers = 100,
        .max_header_bytes = 65536,
        .max_chunk_digits = 16,
        .max_chunk_line = 1024,
        .max_body = (uint64_t)16 << 20,
        .max_empty_lines = 4,
    };
    return limits;
}

/* A line and its CRLF, the longest of the three kinds of line. */
size_t http_min_buffer(const http_limits *limits)
{
    http_limits def = http_limits_default();
    const http_limits *l = limits != NULL ? limits : &def;
    size_t longest = l->max_start_line;
    if (l->max_header_line > longest)
        longest = l->max_header_line;
    if (l->max_chunk_line > longest)
        longest = l->max_chunk_line;
    return longest + 2;
}

/* find_line() adds 2 to a line limit, so a limit must leave room for it. */
static bool limits_valid(const http_limits *l)
{
    const size_t most = SIZE_MAX / 2;
    return l->max_chunk_digits >= 1 && l->max_chunk_digits <= 16 &&
           l->max_start_line <= most && l->max_header_line <= most &&
           l->max_chunk_line <= most;
}

int http_parser_init(http_parser *p, http_kind kind, const http_limits *limits)
{
    http_limits def = http_limits_default();
    if (limits == NULL)
        limits = &def;
    if (p == NULL || (kind != HTTP_RESPONSE && kind != HTTP_REQUEST) ||
        !limits_valid(limits))
        return HTTP_EINVAL;
    p->kind = kind;
    p->limits = *limits;
    http_parser_reset(p);
    return HTTP_OK;
}

/* Zero is the right start for every field but the two that outlive a message. */
void http_parser_reset(http_parser *p)
{
    if (p == NULL)
        return;
    http_kind kind = p->kind;
    http_limits limits = p->limits;
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->limits = limits;
    p->state = ST_START;
}

/* Framing is decided at the empty line, so the flag must be in by then. */
int http_parser_set_head(http_parser *p, bool head)
{
    if (p == NULL || p->kind != HTTP_RESPONSE ||
        (p->state != ST_START && p->state != ST_HEADER))
        return HTTP_EINVAL;
    p->head = head;
    return HTTP_OK;
}

/* ---- characters --------------------------------------------------------- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The value of a hex digit, or -1. */
static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A byte of a token (RFC 9110 5.6.2): header names, methods, codings. */
static bool is_tchar(char ch)
{
    unsigned char c = (unsigned char)ch;
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    /* strchr() also finds the string's own terminating NUL: rule NUL out. */
    return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* A byte allowed in a field value, a reason phrase or a chunk extension:
 * tab, space, visible ASCII and the obsolete bytes 0x80-0xFF; never a
 * control byte (NUL, CR, LF, DEL, ...). */
static bool is_text(char ch)
{
    unsigned char c = (unsigned char)ch;
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static bool all_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_text(s[i]))
            return false;
    return true;
}

/* A byte of a request target: visible ASCII, nothing else (RFC 9112 3.2). */
static bool is_target_char(char c)
{
    return c > 0x20 && c < 0x7f;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static char ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool http_span_is(http_span span, const char *text)
{
    if (text == NULL || (span.at == NULL && span.len > 0))
        return false;
    for (size_t i = 0; i < span.len; i++)
        if (text[i] == '\0' || ascii_lower(span.at[i]) != ascii_lower(text[i]))
            return false;
    return text[span.len] == '\0';
}

/* ---- lines -------------------------------------------------------------- */

/* Marks the first n bytes of this call's remaining input as used. */
static void take(http_event *ev, size_t n)
{
    ev->consumed += n;
}

/*
** Looks for the end of the line that starts at in[0], of which the first
** p->scanned bytes were searched by an earlier call. Returns HTTP_OK with
** the line's length (without its CRLF) in *len; HTTP_NEED_MORE if the end
** has not arrived, remembering how far it searched; `too_long` if the line
** is longer than `limit`; HTTP_EBARE_LF for an LF without a CR.
**
** It searches at most limit + 2 bytes: a longer line is an error however
** much of it has arrived, and the caller's buffer never holds more of it.
*/
static int find_line(http_parser *p, const char *in, size_t n, size_t limit, int too_long,
                     size_t *len)
{
    size_t window = n > limit && n - limit >= 2 ? limit + 2 : n;
    const char *lf = memchr(in + p->scanned, '\n', window - p->scanned);
    if (lf == NULL) {
        if (window == limit + 2)
            return too_long;
        p->scanned = n;
        return HTTP_NEED_MORE;
    }
    size_t at = (size_t)(lf - in);
    if (at == 0 || in[at - 1] != '\r')
        return HTTP_EBARE_LF;
    p->scanned = 0;
    *len = at - 1;
    return HTTP_OK;
}

/* ---- the start line ----------------------------------------------------- */

/* Reads "HTTP/d.d" at s (8 bytes): `malformed` if it is not that shape,
 * HTTP_EVERSION if the major version is not 1. */
static int parse_version(http_parser *p, const char *s, int malformed)
{
    if (memcmp(s, "HTTP/", 5) != 0 || !is_digit(s[5]) || s[6] != '.' || !is_digit(s[7]))
        return malformed;
    if (s[5] != '1')
        return HTTP_EVERSION;
    p->version_minor = s[7] - '0';
    return HTTP_OK;
}

/*
** status-line = HTTP-version SP status-code SP [ reason-phrase ]
**
** Tolerated: a line that ends right after the code, without the SP that
** should come before an empty reason. Servers send it, and the reason is
** only ever for people (RFC 9112 4 tells clients to ignore it).
*/
static int parse_status_line(http_parser *p, const char *line, size_t len, http_event *ev)
{
    if (len < 9 || line[8] != ' ')
        return HTTP_ESTATUS_LINE;
    int rc = parse_version(p, line, HTTP_ESTATUS_LINE);
    if (rc != HTTP_OK)
        return rc;
    if (len < 12 || line[9] < '1' || line[9] > '9' || !is_digit(line[10]) ||
        !is_digit(line[11]) || (len > 12 && line[12] != ' '))
        return HTTP_ESTATUS_CODE;
    size_t skip = len > 12 ? 13 : 12;
    if (!all_text(line + skip, len - skip))
        return HTTP_ESTATUS_LINE;
    p->status_code = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    ev->reason = (http_span){line + skip, len - skip};
    return HTTP_STATUS_LINE;
}

/* request-line = method SP request-target SP HTTP-version */
static int parse_request_line(http_parser *p, const char *line, size_t len,
                              http_event *ev)
{
    size_t i = 0;
    while (i < len && is_tchar(line[i]))
        i++;
    if (i == 0 || i == len || line[i] != ' ')
        return HTTP_EREQUEST_LINE;
    size_t target = ++i;
    while (i < len && is_target_char(line[i]))
        i++;
    if (i == target || i == len || line[i] != ' ' || len - i - 1 != 8)
        return HTTP_EREQUEST_LINE;
    int rc = parse_version(p, line + i + 1, HTTP_EREQUEST_LINE);
    if (rc != HTTP_OK)
        return rc;
    ev->method = (http_span){line, target - 1};
    ev->target = (http_span){line + target, i - target};
    return HTTP_REQUEST_LINE;
}

/*
** The first line of a message. A server ignores empty lines before a
** request line (RFC 9112 2.2: some clients send a CRLF after a POST body),
** but only a few: each is consumed, so without a bound a peer could send
** CRLFs forever and never be told no. A client has no such excuse for a
** response.
*/
static int on_start_line(http_parser *p, const char *in, size_t n, http_event *ev)
{
    size_t len = 0;
    int rc = find_line(p, in, n, p->limits.max_start_line, HTTP_ESTART_TOO_LONG, &len);
    if (rc != HTTP_OK)
        return rc;
    if (len == 0 && p->kind == HTTP_REQUEST) {
        if (p->empty_lines == p->limits.max_empty_lines)
            return HTTP_EREQUEST_LINE;
        p->empty_lines++;
        take(ev, 2);
        return STEP_AGAIN;
    }
    if (p->kind == HTTP_RESPONSE)
        rc = parse_status_line(p, in, len, ev);
    else
        rc = parse_request_line(p, in, len, ev);
    if (rc < 0)
        return rc;
    take(ev, len + 2);
    p->state = ST_HEADER;
    return rc;
}

/* ---- header fields ------------------------------------------------------ */

/*
** field-line = field-name ":" OWS field-value OWS
**
** Splits a header or trailer line into its name and value. Whitespace
** between the name and the colon is an error, not something to trim
** (RFC 9112 5.1: it once let "Transfer-Encoding :" mean different things
** to different parsers).
*/
static int split_field(const char *line, size_t len, http_span *name, http_span *value)
{
    size_t i = 0;
    while (i < len && is_tchar(line[i]))
        i++;
    if (i == len)
        return HTTP_ENO_COLON;
    if (is_space(line[i]))
        return HTTP_EHEADER_SPACE;
    if (line[i] != ':' || i == 0)
        return HTTP_EHEADER_NAME;
    size_t start = i + 1, end = len;
    while (start < end && is_space(line[start]))
        start++;
    while (end > start && is_space(line[end - 1]))
        end--;
    if (!all_text(line + start, end - start))
        return HTTP_EHEADER_VALUE;
    *name = (http_span){line, i};
    *value = (http_span){line + start, end - start};
    return HTTP_OK;
}

/*
** Takes the next element of a comma-separated list (RFC 9110 5.6.1) off
** the front of *list into *elem, without the whitespace around it. Empty
** elements ("a, , b") are skipped, as the RFC asks. False when none is left.
*/
static bool next_element(http_span *list, http_span *elem)
{
    while (list->len > 0) {
        size_t i = 0;
        while (i < list->len && list->at[i] != ',')
            i++;
        http_span e = {list->at, i};
        size_t skip = i < list->len ? i + 1 : i;
        list->at += skip;
        list->len -= skip;
        while (e.len > 0 && is_space(e.at[0]))
            e.at++, e.len--;
        while (e.len > 0 && is_space(e.at[e.len - 1]))
            e.len--;
        if (e.len > 0) {
            *elem = e;
            return true;
        }
    }
    return false;
}

/* Content-Length = 1*DIGIT, one value, the same in every copy of the header. */
static int note_content_length(http_parser *p, http_span value)
{
    uint64_t n = 0;
    if (value.len == 0)
        return HTTP_ECONTENT_LENGTH;
    for (size_t i = 0; i < value.len; i++) {
        if (!is_digit(value.at[i]))
            return HTTP_ECONTENT_LENGTH;
        unsigned d = (unsigned)(value.at[i] - '0');
        if (n > (UINT64_MAX - d) / 10)
            return HTTP_ECONTENT_LENGTH;
        n = n * 10 + d;
    }
    if (p->has_length && n != p->content_length)
        return HTTP_ECL_CONFLICT;
    p->has_length = true;
    p->content_length = n;
    return HTTP_OK;
}

/* Counts the codings; whether they are acceptable is decided at the empty
 * line, once every Transfer-Encoding header has been seen. */
static void note_transfer_encoding(http_parser *p, http_span value)
{
    http_span coding;
    p->has_te = true;
    while (next_element(&value, &coding)) {
        if (http_span_is(coding, "chunked"))
            p->te_chunked++;
        else
            p->te_other = true;
    }
}

static void note_connection(http_parser *p, http_span value)
{
    http_span option;
    while (next_element(&value, &option)) {
        if (http_span_is(option, "close"))
            p->conn_close = true;
        else if (http_span_is(option, "keep-alive"))
            p->conn_keep_alive = true;
    }
}

/* The three headers that decide framing and keep-alive. */
static int note_header(http_parser *p, http_span name, http_span value)
{
    if (http_span_is(name, "content-length"))
        return note_content_length(p, value);
    if (http_span_is(name, "transfer-encoding"))
        note_transfer_encoding(p, value);
    else if (http_span_is(name, "connection"))
        note_connection(p, value);
    return HTTP_OK;
}

/* 1xx, 204 and 304 responses and responses to HEAD end at the empty line. */
static bool has_no_body(const http_parser *p)
{
    return p->kind == HTTP_RESPONSE && (p->head || p->status_code < 200 ||
                                        p->status_code == 204 || p->status_code == 304);
}

/*
** At the empty line: how will the body end, and may the connection carry
** another message? RFC 9112 6.3 lists the framing rules in order; 9.3 the
** keep-alive ones (1.1 persists unless "close", 1.0 only with "keep-alive").
*/
static int decide_framing(http_parser *p)
{
    if (p->has_length && p->has_te)
        return HTTP_ECL_AND_TE;
    if (p->has_te && (p->te_other || p->te_chunked != 1))
        return HTTP_ETRANSFER_ENCODING;
    bool v11 = p->version_minor >= 1;
    p->keep_alive = !p->conn_close && (v11 || p->conn_keep_alive);
    if (has_no_body(p))
        p->framing = HTTP_FRAMING_NONE;
    else if (p->has_te)
        p->framing = HTTP_FRAMING_CHUNKED;
    else if (p->has_length)
        p->framing = HTTP_FRAMING_LENGTH;
    else
        p->framing = p->kind == HTTP_REQUEST ? HTTP_FRAMING_NONE : HTTP_FRAMING_EOF;
    if (p->framing == HTTP_FRAMING_LENGTH && p->content_length > p->limits.max_body)
        return HTTP_EBODY_TOO_LARGE;
    /* A read-to-close body ends the connection by definition; 101 hands it
     * to another protocol; Transfer-Encoding in a 1.0 message means some
     * hop did not understand it (RFC 9112 6.1), so trust no later framing. */
    if (p->framing == HTTP_FRAMING_EOF || p->status_code == 101 || (p->has_te && !v11))
        p->keep_alive = false;
    return HTTP_OK;
}

/* Enters the body state that the framing names. */
static int headers_done(http_parser *p)
{
    int rc = decide_framing(p);
    if (rc != HTTP_OK)
        return rc;
    /* No body is a Content-Length body of 0: one state serves both. */
    p->remaining = p->framing == HTTP_FRAMING_LENGTH ? p->content_length : 0;
    switch (p->framing) {
    case HTTP_FRAMING_NONE:
    case HTTP_FRAMING_LENGTH: p->state = ST_BODY_LENGTH; break;
    case HTTP_FRAMING_CHUNKED: p->state = ST_CHUNK_SIZE; break;
    case HTTP_FRAMING_EOF: p->state = ST_BODY_EOF; break;
    }
    return HTTP_HEADERS_DONE;
}

/* Header and trailer fields share one count and one byte budget. */
static int check_field_bounds(http_parser *p, size_t len)
{
    if (p->fields == p->limits.max_headers)
        return HTTP_ETOO_MANY_HEADERS;
    if (len + 2 > p->limits.max_header_bytes - p->field_bytes)
        return HTTP_EHEADERS_TOO_LARGE;
    p->fields++;
    p->field_bytes += len + 2;
    return HTTP_OK;
}

/*
** A header line (trailer false) or a trailer line (true), or the empty line
** that ends them. A line that starts with whitespace would continue the
** previous one (obs-fold), which RFC 9112 5.2 lets a recipient reject.
** Trailer fields are reported but never change the framing.
*/
static int on_field_line(http_parser *p, const char *in, size_t n, http_event *ev,
                         bool trailer)
{
    size_t len = 0;
    int rc = find_line(p, in, n, p->limits.max_header_line, HTTP_EHEADER_TOO_LONG, &len);
    if (rc != HTTP_OK)
        return rc;
    if (len == 0) {
        take(ev, 2);
        if (!trailer)
            return headers_done(p);
        p->state = ST_DONE;
        return HTTP_MESSAGE_DONE;
    }
    if (is_space(in[0]))
        return HTTP_EOBS_FOLD;
    if ((rc = check_field_bounds(p, len)) != HTTP_OK ||
        (rc = split_field(in, len, &ev->name, &ev->value)) != HTTP_OK)
        return rc;
    if (!trailer && (rc = note_header(p, ev->name, ev->value)) != HTTP_OK)
        return rc;
    take(ev, len + 2);
    return trailer ? HTTP_TRAILER : HTTP_HEADER;
}

/* ---- the body ----------------------------------------------------------- */

/* Reports the next n bytes as body. */
static int report_body(http_parser *p, const char *in, size_t n, http_event *ev)
{
    ev->body = (http_span){in, n};
    take(ev, n);
    p->body_bytes += n;
    return HTTP_BODY;
}

/* The smaller of what arrived and what is still due. */
static size_t smaller(size_t n, uint64_t due)
{
    return due < n ? (size_t)due : n;
}

/* A Content-Length body, and the empty body of a message without one. */
static int on_length_body(http_parser *p, const char *in, size_t n, http_event *ev)
{
    if (p->remaining == 0) {
        p->state = ST_DONE;
        return HTTP_MESSAGE_DONE;
    }
    if (n == 0)
        return HTTP_NEED_MORE;
    size_t k = smaller(n, p->remaining);
    p->remaining -= k;
    return report_body(p, in, k, ev);
}

/* A read-to-close body: everything until http_parse_eof(), up to max_body.
 * The bytes within the bound are reported before the error, so that "one
 * byte over" fails on that byte, as it does for the other framings. */
static int on_eof_body(http_parser *p, const char *in, size_t n, http_event *ev)
{
    if (n == 0)
        return HTTP_NEED_MORE;
    uint64_t room = p->limits.max_body - p->body_bytes;
    if (room == 0)
        return HTTP_EBODY_TOO_LARGE;
    return report_body(p, in, smaller(n, room), ev);
}

/*
** chunk-size [ BWS ";" chunk-ext ] -- RFC 9112 7.1. Extensions are
** skipped, but must be text: a CR in one is how a bare-CR line end would
** sneak through. Whitespace after the size is allowed only before a ";".
*/
static int parse_chunk_size(const http_parser *p, const char *line, size_t len,
                            uint64_t *size)
{
    size_t i = 0;
    uint64_t v = 0;
    for (; i < len && hex_value(line[i]) >= 0; i++) {
        if (i == p->limits.max_chunk_digits)
            return HTTP_ECHUNK_DIGITS;
        v = v << 4 | (uint64_t)hex_value(line[i]);
    }
    if (i == 0)
        return HTTP_ECHUNK_SIZE;
    size_t digits = i;
    while (i < len && is_space(line[i]))
        i++;
    if (i == len ? i != digits : line[i] != ';')
        return HTTP_ECHUNK_SIZE;
    if (!all_text(line + i, len - i))
        return HTTP_ECHUNK_SIZE;
    *size = v;
    return HTTP_OK;
}

/* A chunk-size line: the next chunk's data, or (size 0) the trailers. */
static int on_chunk_size(http_parser *p, const char *in, size_t n, http_event *ev)
{
    size_t len = 0;
    uint64_t size = 0;
    int rc =
        find_line(p, in, n, p->limits.max_chunk_line, HTTP_ECHUNK_LINE_TOO_LONG, &len);
    if (rc != HTTP_OK || (rc = parse_chunk_size(p, in, len, &size)) != HTTP_OK)
        return rc;
    if (size > p->limits.max_body - p->declared)
        return HTTP_EBODY_TOO_LARGE;
    p->declared += size;
    p->remaining = size;
    p->state = size == 0 ? ST_TRAILER : ST_CHUNK_DATA;
    take(ev, len + 2);
    return STEP_AGAIN;
}

static int on_chunk_data(http_parser *p, const char *in, size_t n, http_event *ev)
{
    if (n == 0)
        return HTTP_NEED_MORE;
    size_t k = smaller(n, p->remaining);
    p->remaining -= k;
    if (p->remaining == 0)
        p->state = ST_CHUNK_END;
    return report_body(p, in, k, ev);
}

/* The CRLF after a chunk's data: exactly those two bytes, checked one at a
 * time so that a wrong first byte fails without waiting for a second. */
static int on_chunk_end(http_parser *p, const char *in, size_t n, http_event *ev)
{
    if (n == 0)
        return HTTP_NEED_MORE;
    if (in[0] != '\r')
        return HTTP_ECHUNK_END;
    if (n == 1)
        return HTTP_NEED_MORE;
    if (in[1] != '\n')
        return HTTP_ECHUNK_END;
    take(ev, 2);
    p->state = ST_CHUNK_SIZE;
    return STEP_AGAIN;
}

/* ---- driving ------------------------------------------------------------ */

/* Runs the handler of the current state on what is left of the input. */
static int step(http_parser *p, const char *in, size_t n, http_event *ev)
{
    switch (p->state) {
    case ST_START: return on_start_line(p, in, n, ev);
    case ST_HEADER: return on_field_line(p, in, n, ev, false);
    case ST_BODY_LENGTH: return on_length_body(p, in, n, ev);
    case ST_BODY_EOF: return on_eof_body(p, in, n, ev);
    case ST_CHUNK_SIZE: return on_chunk_size(p, in, n, ev);
    case ST_CHUNK_DATA: return on_chunk_data(p, in, n, ev);
    case ST_CHUNK_END: return on_chunk_end(p, in, n, ev);
    case ST_TRAILER: return on_field_line(p, in, n, ev, true);
    case ST_DONE: return HTTP_MESSAGE_DONE;
    case ST_CLOSED: return HTTP_CLOSED;
    default: return p->error;
    }
}

/* Stops the parser at an error, for this call and every later one. */
static int fail(http_parser *p, int error)
{
    p->state = ST_ERROR;
    p->error = error;
    p->scanned = 0;
    return error;
}

/*
** The loop that makes one call one event: handlers that consume without an
** event say STEP_AGAIN. It ends, because each STEP_AGAIN consumed at least
** two bytes of a finite input. `nothing` stands in for a NULL input, since
** even NULL + 0 is undefined behaviour in C.
*/
int http_parse(http_parser *p, const char *data, size_t len, http_event *ev)
{
    static const char nothing[1];
    if (ev != NULL)
        memset(ev, 0, sizeof *ev);
    if (p == NULL || ev == NULL || (data == NULL && len > 0) || len < p->scanned)
        return HTTP_EINVAL;
    if (data == NULL)
        data = nothing;
    int rc;
    do
        rc = step(p, data + ev->consumed, len - ev->consumed, ev);
    while (rc == STEP_AGAIN);
    if (rc < 0) {
        size_t consumed = ev->consumed;
        memset(ev, 0, sizeof *ev);
        ev->consumed = consumed;
        return fail(p, rc);
    }
    return rc;
}

/*
** End of input. It completes a read-to-close body, or a message whose last
** event the caller has not asked for yet; it is a clean close before any
** byte of a message; anywhere else it cuts a message short.
*/
int http_parse_eof(http_parser *p)
{
    if (p == NULL)
        return HTTP_EINVAL;
    switch (p->state) {
    case ST_START:
        if (p->scanned > 0)
            break;
        p->state = ST_CLOSED;
        return HTTP_CLOSED;
    case ST_BODY_LENGTH:
        if (p->remaining > 0)
            break;
        /* fall through */
    case ST_BODY_EOF: p->state = ST_DONE; return HTTP_MESSAGE_DONE;
    case ST_DONE: return HTTP_MESSAGE_DONE;
    case ST_CLOSED: return HTTP_CLOSED;
    case ST_ERROR: return p->error;
    default: break;
    }
    return fail(p, HTTP_EEOF);
}
