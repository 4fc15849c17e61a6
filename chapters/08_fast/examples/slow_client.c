/*
** slow_client.c -- back-pressure: a client that asks for 32 MiB and does
** not read them.
**
** The server (taal_http_serve) writes the body in pieces of 16 KiB and
** drains after each. The client reads the status line, then sleeps for a
** second without reading. First the kernel's buffers fill (the client's
** receive buffer, the server's send buffer), then the client's stream
** stops reading ahead (its 64 KiB buffer is full), then the server's
** stream buffers what the kernel will not take, up to its high-water mark
** of 64 KiB, and the handler waits in drain. Nothing grows without bound:
** the server holds at most the high-water mark plus one piece, however big
** the response. When the client reads again, the whole body comes through.
**
** A second client asks for the same and hangs up without reading: the
** server's next send fails (the connection is reset), its handler ends
** with that error, and its stream is closed and freed.
** docs/seeds/slow_client.py is the Python twin.
*/
#include "taal.h"
#include "taal_http.h"

#include <stdio.h>
#include <string.h>

enum { BLOCK = 65536, BLOCKS = 512 }; /* 32 MiB */

static char block[BLOCK];
static const taal_http_route routes[] = {
    {.path = "/big", .status = 200, .body = block, .length = BLOCK, .repeat = BLOCKS}};
static const char request[] = "GET /big HTTP/1.1\r\nHost: localhost\r\n\r\n";

typedef struct slow {
    taal_coro co;
    taal_http_site site;
    taal_server *server;
    taal_stream *stream;
    char line[256];
    char data[65536];
    size_t n;
    uint64_t total;
    int st;
} slow;

static const char *yes_no(bool b)
{
    return b ? "yes" : "no";
}

static int slow_body(taal_coro *self)
{
    slow *f = (slow *)self;
    TAAL_BEGIN(f);
    memset(block, 'x', sizeof block);
    f->site = (taal_http_site){.routes = routes, .count = 1};
    f->st = taal_http_serve(taal_running_loop(), "127.0.0.1", 0, &f->site, &f->server);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);

    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->server->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_stream_write(f->stream, request, strlen(request));
    TAAL_STREAM_READLINE_STATUS(f->st, f->stream, f->line, sizeof f->line, f->n);
    printf("client: %.*s\n", (int)(f->n > 2 ? f->n - 2 : 0), f->line); /* no CRLF */
    puts("client: not reading for a second");
    TAAL_SLEEP(1);
    printf("server: waiting in drain: %s\n", yes_no(f->site.drains > 0));
    printf("server: never held more than 64 KiB + one 16 KiB piece: %s\n",
           yes_no(f->site.peak <= TAAL_STREAM_HIGH_WATER + 16384));
    printf("client: buffer full, not reading ahead: %s\n",
           yes_no(taal_stream_buffered(f->stream) == TAAL_STREAM_BUFFER));
    do /* the rest of the headers, to the empty line */
        TAAL_STREAM_READLINE_STATUS(f->st, f->stream, f->line, sizeof f->line, f->n);
    while (f->st == TAAL_OK && f->n > 2);
    while (f->st == TAAL_OK && f->total < (uint64_t)BLOCK * BLOCKS) { /* the body */
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
        if (f->n == 0)
            break;
        f->total += f->n;
    }
    printf("client: read all %llu MiB once it read again\n",
           (unsigned long long)(f->total >> 20));
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);

    puts("-- a client that hangs up without reading --");
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->server->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_stream_write(f->stream, request, strlen(request));
    TAAL_STREAM_READLINE_STATUS(f->st, f->stream, f->line, sizeof f->line, f->n);
    taal_stream_abort(f->stream); /* unread bytes in its buffer: the kernel resets */
    TAAL_SERVER_CLOSE_STATUS(f->st, f->server); /* waits for the handler to end */
    printf("server: the handler gave up with an error: %s\n",
           yes_no(f->site.last_error == TAAL_ECONNRESET ||
                  f->site.last_error == TAAL_EPIPE));
    printf("server: answered %zu of 2 requests in full\n", f->site.requests);
    TAAL_END();
}

int main(void)
{
    int rc = taal_run(slow_body, NULL, sizeof(slow), NULL, NULL);
    if (rc != TAAL_OK)
        fprintf(stderr, "slow_client: %s\n", taal_strerror(rc));
    return rc == TAAL_OK ? 0 : 1;
}
