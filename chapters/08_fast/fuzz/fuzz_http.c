/*
** fuzz_http.c -- a libFuzzer target for the HTTP parser.
**
** The first two bytes of an input choose how to parse the rest:
**
**   byte 0, bit 0   0 = responses, 1 = requests
**           bit 1   responses answer HEAD
**           bit 2   tiny limits (so that every bound is reachable in a few
**                   bytes); bits 4-7 then pick max_chunk_digits, 1 to 16
**   byte 1          seeds the sizes of the pieces the message arrives in
**
** The message is parsed twice: once in one piece, straight from the
** fuzzer's own buffer (so that ASan sees any read past its end), and once
** through a stream-like buffer of exactly http_min_buffer() bytes, fed in
** pieces whose sizes come from byte 1. Both runs must agree on everything
** (events, names and values, body bytes, the final result), and every call
** of both must keep the parser's promises:
**
**   - consumed <= len, and every span lies inside the bytes consumed;
**   - a BODY event is never empty; body bytes never exceed max_body, and a
**     Content-Length message ends with exactly that many;
**   - the stream buffer never fills up while the parser waits for a line;
**   - the parser makes progress: no two results in a row without consuming
**     a byte, except NEED_MORE and the MESSAGE_DONE after a body;
**   - an error sticks until reset; the end of input completes the message,
**     closes cleanly, or is an error, never anything else;
**   - after all that, a reset parser parses a good message correctly.
**
** A broken promise calls abort(), which libFuzzer reports as a crash and
** fuzz_replay.c as a failed test.
*/
#include "http.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Says which promise broke, then aborts: libFuzzer saves the input. */
static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_http.c:%d: broken promise: %s\n", line, what);
    abort();
}

#define require(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

/* ---- what a run saw ------------------------------------------------------- */

/* FNV-1a over everything reported, and the counts to compare. Body bytes
 * are hashed without their event type, so that how the body was cut into
 * pieces does not change the digest. */
typedef struct run {
    uint64_t hash;
    uint64_t body;
    int result; /* the last error, or what the end of input said */
} run;

static void hash_bytes(run *r, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        r->hash = (r->hash ^ (unsigned char)s[i]) * 0x100000001b3u;
}

static void hash_int(run *r, long long v)
{
    char b[sizeof v];
    memcpy(b, &v, sizeof v);
    hash_bytes(r, b, sizeof b);
}

static void hash_span(run *r, http_span s)
{
    hash_int(r, (long long)s.len);
    hash_bytes(r, s.at, s.len);
}

static void hash_event(run *r, const http_parser *p, int rc, const http_event *ev)
{
    if (rc == HTTP_BODY) {
        hash_bytes(r, ev->body.at, ev->body.len);
        r->body += ev->body.len;
        return;
    }
    hash_int(r, rc);
    hash_span(r, ev->reason);
    hash_span(r, ev->method);
    hash_span(r, ev->target);
    hash_span(r, ev->name);
    hash_span(r, ev->value);
    if (rc == HTTP_STATUS_LINE)
        hash_int(r, p->status_code * 100 + p->version_minor);
    if (rc == HTTP_HEADERS_DONE)
        hash_int(r, (long long)(p->framing * 2 + p->keep_alive) ^
                        (long long)p->content_length);
}

/* ---- one call, checked ---------------------------------------------------- */

static void check_spans(const http_event *ev, const char *data)
{
    const http_span spans[] = {ev->reason, ev->method, ev->target,
                               ev->name,   ev->value,  ev->body};
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++)
        if (spans[i].len > 0)
            require(spans[i].at >= data &&
                    spans[i].at + spans[i].len <= data + ev->consumed);
}

/* Calls http_parse() and checks what every call must keep. */
static int parse_checked(http_parser *p, const char *data, size_t len, http_event *ev)
{
    int rc = http_parse(p, data, len, ev);
    require(ev->consumed <= len);
    check_spans(ev, data);
    require(p->body_bytes <= p->limits.max_body);
    if (rc == HTTP_BODY)
        require(ev->body.len > 0);
    if (rc == HTTP_MESSAGE_DONE && p->framing == HTTP_FRAMING_LENGTH)
        require(p->body_bytes == p->content_length);
    if (rc < 0) {
        http_event again;
        require(http_parse(p, data + ev->consumed, len - ev->consumed, &again) == rc);
        require(again.consumed == 0 && http_parse_eof(p) == rc);
    }
    return rc;
}

/* ---- the two ways of feeding ---------------------------------------------- */

typedef struct setup {
    http_kind kind;
    bool head;
    http_limits limits;
} setup;

/*
** Parses data[*start..end) until the parser needs more, resetting it after
** each message. Returns HTTP_NEED_MORE or the error that stopped it.
*/
static int pump(http_parser *p, const setup *s, const char *buf, size_t *start,
                size_t end, run *r)
{
    int idle = 0; /* results in a row that consumed nothing */
    for (;;) {
        http_event ev;
        int rc = parse_checked(p, buf + *start, end - *start, &ev);
        *start += ev.consumed;
        idle = ev.consumed > 0 ? 0 : idle + 1;
        require(idle <= 2);
        if (rc == HTTP_NEED_MORE)
            return rc;
        hash_event(r, p, rc, &ev);
        if (rc < 0)
            return rc;
        require(rc != HTTP_CLOSED);
        if (rc == HTTP_MESSAGE_DONE) {
            http_parser_reset(p);
            require(http_parser_set_head(p, s->head) ==
                    (s->kind == HTTP_RESPONSE ? HTTP_OK : HTTP_EINVAL));
        }
    }
}

/* The end of input: it must settle the message one way or another. */
static void finish(http_parser *p, run *r)
{
    int rc = http_parse_eof(p);
    require(rc == HTTP_MESSAGE_DONE || rc == HTTP_CLOSED || rc < 0);
    require(rc != HTTP_EINVAL);
    hash_int(r, rc);
    r->result = rc;
}

static void start_parser(http_parser *p, const setup *s, run *r)
{
    memset(r, 0, sizeof *r);
    r->hash = 0xcbf29ce484222325u;
    require(http_parser_init(p, s->kind, &s->limits) == HTTP_OK);
    http_parser_set_head(p, s->head);
}

/* Run A: the whole message in one call, read in place. */
static void run_whole(http_parser *p, const setup *s, const char *msg, size_t n, run *r)
{
    size_t start = 0;
    start_parser(p, s, r);
    int rc = pump(p, s, msg, &start, n, r);
    if (rc < 0)
        r->result = rc;
    else
        finish(p, r);
}

/* The next piece's size: 1 to `most` bytes, from a xorshift generator. */
static size_t next_piece(uint32_t *x, size_t most)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return 1 + *x % most;
}

/*
** Run B: as a stream would, through a buffer of exactly http_min_buffer()
** bytes (heap-allocated, so that ASan guards its end too), keeping the
** unconsumed tail at the front and appending each piece after it.
*/
static void run_pieces(http_parser *p, const setup *s, const char *msg, size_t n,
                       uint8_t seed, run *r)
{
    const size_t sizes[] = {1, 3, 17, 4096};
    size_t cap = http_min_buffer(&s->limits), start = 0, end = 0, fed = 0;
    char *buf = malloc(cap);
    uint32_t x = 0x9e3779b9u ^ seed;
    require(buf != NULL);
    start_parser(p, s, r);
    while (fed < n) {
        size_t piece = next_piece(&x, sizes[seed & 3]);
        memmove(buf, buf + start, end - start);
        end -= start;
        start = 0;
        require(end < cap); /* a full buffer here is a stalled stream */
        piece = piece < n - fed ? piece : n - fed;
        piece = piece < cap - end ? piece : cap - end;
        memcpy(buf + end, msg + fed, piece);
        end += piece, fed += piece;
        int rc = pump(p, s, buf, &start, end, r);
        if (rc < 0) {
            r->result = rc;
            free(buf);
            return;
        }
    }
    finish(p, r);
    free(buf);
}

/* ---- reuse after reset ---------------------------------------------------- */

/* Whatever state the parser was left in, a reset makes it parse this. */
static void check_reusable(http_parser *p, const setup *s)
{
    static const char response[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
    static const char request[] = "POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi";
    const char *msg = s->kind == HTTP_RESPONSE ? response : request;
    size_t n = strlen(msg), at = 0;
    const int want[] = {s->kind == HTTP_RESPONSE ? HTTP_STATUS_LINE : HTTP_REQUEST_LINE,
                        HTTP_HEADER, HTTP_HEADERS_DONE, HTTP_BODY, HTTP_MESSAGE_DONE};
    http_parser_reset(p);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        http_event ev;
        require(parse_checked(p, msg + at, n - at, &ev) == want[i]);
        at += ev.consumed;
    }
    require(at == n && p->body_bytes == 2 && p->keep_alive);
}

/* ---- the target ------------------------------------------------------------ */

/* Small enough that a short input reaches every bound. */
static http_limits tiny_limits(uint8_t mode)
{
    http_limits l = http_limits_default();
    l.max_start_line = 32;
    l.max_header_line = 24;
    l.max_headers = 4;
    l.max_header_bytes = 64;
    l.max_chunk_digits = 1 + (unsigned)(mode >> 4);
    l.max_chunk_line = 12;
    l.max_body = 64;
    return l;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    setup s;
    s.kind = data[0] & 1 ? HTTP_REQUEST : HTTP_RESPONSE;
    s.head = (data[0] & 2) != 0 && s.kind == HTTP_RESPONSE;
    s.limits = data[0] & 4 ? tiny_limits(data[0]) : http_limits_default();
    const char *msg = (const char *)data + 2;
    size_t n = size - 2;

    http_parser p;
    run whole, pieces;
    run_whole(&p, &s, msg, n, &whole);
    run_pieces(&p, &s, msg, n, data[1], &pieces);
    require(whole.hash == pieces.hash);
    require(whole.body == pieces.body);
    require(whole.result == pieces.result);
    check_reusable(&p, &s);
    return 0;
}
