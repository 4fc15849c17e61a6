/*
** drive.h -- feeds a message to the parser the way a stream would, and
** writes down what the parser said, for test_http.c.
**
** A stream reads into a buffer, hands the parser the bytes it has not
** consumed yet, and keeps whatever the parser leaves for the next read. The
** driver here does the same with the input cut into pieces: whole, cut once
** at any offset, or one byte at a time. What the parser reports becomes a
** transcript, one line of text, e.g.
**
**   status 200 1.1 [OK] | Content-Length: 5 | headers length 5 keep |
**   body 5 [hello] | done | eof closed
**
** Consecutive body pieces are merged into one "body N [...]" entry, so that
** the transcript does not depend on how the input was cut: a test states
** the transcript once, and expect() checks that every cut gives it. The
** driver also checks the invariants every call must keep (spans inside the
** input, consumed within bounds, errors that stick) and writes any breach
** into the transcript, where it fails the comparison.
*/
#ifndef DRIVE_H
#define DRIVE_H

#include "http.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---- transcripts -------------------------------------------------------- */

enum { SHOWN_MAX = 64 }; /* bytes of one value or body shown in a transcript */

typedef struct transcript {
    char text[4096];
    size_t len;
    size_t body_len;      /* body bytes of the entry being merged */
    char body[SHOWN_MAX]; /* their first SHOWN_MAX bytes */
} transcript;

/* Appends printf-style text, cutting it at the end of the buffer. */
static void note(transcript *t, const char *format, ...)
{
    va_list ap;
    size_t room = sizeof t->text - t->len;
    va_start(ap, format);
    int n = vsnprintf(t->text + t->len, room, format, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* Appends bytes with \r, \n, \t, \\ and non-ASCII escaped, at most SHOWN_MAX. */
static void note_bytes(transcript *t, const char *s, size_t n)
{
    for (size_t i = 0; i < n && i < SHOWN_MAX; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\r')
            note(t, "\\r");
        else if (c == '\n')
            note(t, "\\n");
        else if (c == '\t')
            note(t, "\\t");
        else if (c == '\\')
            note(t, "\\\\");
        else if (c < 0x20 || c >= 0x7f)
            note(t, "\\x%02x", c);
        else
            note(t, "%c", c);
    }
    if (n > SHOWN_MAX)
        note(t, "...");
}

/* Starts a new entry, writing out a merged body first. */
static void entry(transcript *t)
{
    if (t->body_len > 0) {
        if (t->len > 0)
            note(t, " | ");
        note(t, "body %zu [", t->body_len);
        note_bytes(t, t->body, t->body_len);
        note(t, "]");
        t->body_len = 0;
    }
    if (t->len > 0)
        note(t, " | ");
}

static void add_body(transcript *t, http_span body)
{
    for (size_t i = 0; i < body.len; i++, t->body_len++)
        if (t->body_len < SHOWN_MAX)
            t->body[t->body_len] = body.at[i];
}

static const char *framing_name(http_framing f)
{
    switch (f) {
    case HTTP_FRAMING_NONE: return "none";
    case HTTP_FRAMING_LENGTH: return "length";
    case HTTP_FRAMING_CHUNKED: return "chunked";
    case HTTP_FRAMING_EOF: return "eof";
    }
    return "?";
}

/* Writes one event down. */
static void note_event(transcript *t, const http_parser *p, int rc, const http_event *ev)
{
    if (rc == HTTP_BODY) {
        add_body(t, ev->body);
        return;
    }
    entry(t);
    if (rc == HTTP_STATUS_LINE) {
        note(t, "status %d 1.%d [", p->status_code, p->version_minor);
        note_bytes(t, ev->reason.at, ev->reason.len);
        note(t, "]");
    } else if (rc == HTTP_REQUEST_LINE) {
        note(t, "request ");
        note_bytes(t, ev->method.at, ev->method.len);
        note(t, " ");
        note_bytes(t, ev->target.at, ev->target.len);
        note(t, " 1.%d", p->version_minor);
    } else if (rc == HTTP_HEADER || rc == HTTP_TRAILER) {
        note(t, "%s", rc == HTTP_TRAILER ? "trailer " : "");
        note_bytes(t, ev->name.at, ev->name.len);
        note(t, ": ");
        note_bytes(t, ev->value.at, ev->value.len);
    } else if (rc == HTTP_HEADERS_DONE) {
        note(t, "headers %s", framing_name(p->framing));
        if (p->framing == HTTP_FRAMING_LENGTH)
            note(t, " %llu", (unsigned long long)p->content_length);
        note(t, " %s", p->keep_alive ? "keep" : "close");
    } else if (rc == HTTP_MESSAGE_DONE) {
        note(t, "done");
    } else {
        note(t, "error: %s", http_strerror(rc));
    }
}

/* ---- the driver --------------------------------------------------------- */

/* How to parse: the kind, HEAD or not, the limits (NULL: defaults), and the
 * read buffer's size (0: big enough for any test input). */
typedef struct drive_opts {
    http_kind kind;
    bool head;
    const http_limits *limits;
    size_t capacity;
} drive_opts;

enum { DRIVE_BUFFER = 1 << 16 };

/* True if every span the event names lies inside the bytes it consumed. */
static bool spans_inside(const http_event *ev, const char *data)
{
    const http_span spans[] = {ev->reason, ev->method, ev->target,
                               ev->name,   ev->value,  ev->body};
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
        const http_span *s = &spans[i];
        if (s->len > 0 && (s->at < data || s->at + s->len > data + ev->consumed))
            return false;
    }
    return true;
}

/* The checks every call must pass; a breach goes into the transcript. */
static void check_call(transcript *t, const http_parser *p, int rc, const char *data,
                       size_t len, const http_event *ev)
{
    if (ev->consumed > len)
        note(t, " | BREACH: consumed %zu of %zu", ev->consumed, len);
    if (!spans_inside(ev, data))
        note(t, " | BREACH: span outside the input");
    if (rc == HTTP_BODY && ev->body.len == 0)
        note(t, " | BREACH: empty body event");
    if (p->body_bytes > p->limits.max_body)
        note(t, " | BREACH: body over max_body");
    if (rc == HTTP_MESSAGE_DONE && p->framing == HTTP_FRAMING_LENGTH &&
        p->body_bytes != p->content_length)
        note(t, " | BREACH: body %llu of %llu", (unsigned long long)p->body_bytes,
             (unsigned long long)p->content_length);
}

/* After an error, the parser must keep saying it and consume nothing. */
static void check_sticky(transcript *t, http_parser *p, int error, const char *data,
                         size_t len)
{
    http_event ev;
    int again = http_parse(p, data, len, &ev);
    if (again != error || ev.consumed != 0 || http_parse_eof(p) != error)
        note(t, " | BREACH: error did not stick");
}

/*
** Parses buf[*start..end) until the parser needs more, resetting it after
** each complete message. Returns the last result: HTTP_NEED_MORE, or an
** error.
*/
static int pump(http_parser *p, const drive_opts *o, const char *buf, size_t *start,
                size_t end, transcript *t)
{
    for (;;) {
        http_event ev;
        const char *data = buf + *start;
        size_t len = end - *start;
        int rc = http_parse(p, data, len, &ev);
        check_call(t, p, rc, data, len, &ev);
        *start += ev.consumed;
        if (rc == HTTP_NEED_MORE)
            return rc;
        note_event(t, p, rc, &ev);
        if (rc < 0) {
            check_sticky(t, p, rc, buf + *start, end - *start);
            return rc;
        }
        if (rc == HTTP_MESSAGE_DONE) {
            http_parser_reset(p);
            http_parser_set_head(p, o->head);
        }
    }
}

/* Tells the parser the input has ended; returns what it said. */
static int finish(http_parser *p, transcript *t)
{
    int rc = http_parse_eof(p);
    entry(t);
    if (rc == HTTP_CLOSED)
        note(t, "eof closed");
    else if (rc == HTTP_MESSAGE_DONE)
        note(t, "eof done");
    else
        note(t, "eof error: %s", http_strerror(rc));
    return rc;
}

/* The length of the piece that starts at `fed`: everything up to `cut`,
 * then the rest; or `stride` bytes at a time if stride is not 0. */
static size_t piece_length(size_t fed, size_t n, size_t cut, size_t stride)
{
    if (stride > 0)
        return n - fed < stride ? n - fed : stride;
    return fed < cut ? cut - fed : n - fed;
}

/*
** Feeds in[0..n) in pieces (see piece_length) through a buffer of
** o->capacity bytes, then signals the end of input. Writes the transcript
** into *t and returns the last result: an error, or what the end said.
*/
static int drive(const drive_opts *o, const char *in, size_t n, size_t cut, size_t stride,
                 transcript *t)
{
    static char buf[DRIVE_BUFFER];
    size_t cap = o->capacity > 0 ? o->capacity : sizeof buf;
    size_t start = 0, end = 0, fed = 0;
    http_parser p;
    memset(t, 0, sizeof *t);
    if (http_parser_init(&p, o->kind, o->limits) != HTTP_OK) {
        note(t, "init failed");
        return HTTP_EINVAL;
    }
    http_parser_set_head(&p, o->head);
    while (fed < n) {
        size_t piece = piece_length(fed, n, cut, stride);
        while (piece > 0) {
            memmove(buf, buf + start, end - start); /* keep the unconsumed tail */
            end -= start;
            start = 0;
            size_t k = piece < cap - end ? piece : cap - end;
            if (k == 0) {
                note(t, " | BREACH: stalled with a full buffer");
                return HTTP_EINVAL;
            }
            memcpy(buf + end, in + fed, k);
            end += k, fed += k, piece -= k;
            int rc = pump(&p, o, buf, &start, end, t);
            if (rc < 0)
                return rc;
        }
    }
    return finish(&p, t);
}

/*
** True if `in` gives the transcript `want` fed whole, cut at every offset
** (every few offsets for long inputs), and one byte at a time; otherwise
** prints the first difference and returns false.
*/
static bool expect(const drive_opts *o, const char *in, size_t n, const char *want)
{
    transcript t;
    size_t every = n <= 600 ? 1 : n / 300;
    for (size_t cut = 0; cut <= n + 1; cut += (cut == 0 || cut + every > n) ? 1 : every) {
        bool bytewise = cut == n + 1; /* the last round: one byte at a time */
        drive(o, in, n, bytewise ? 0 : cut, bytewise ? 1 : 0, &t);
        if (strcmp(t.text, want) != 0) {
            fprintf(stderr, "input cut %s %zu:\n  expected: %s\n       got: %s\n",
                    bytewise ? "every" : "at", bytewise ? (size_t)1 : cut, want, t.text);
            return false;
        }
    }
    return true;
}

#endif /* DRIVE_H */
