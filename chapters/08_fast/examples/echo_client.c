/*
** echo_client.c -- every way of reading a stream, against an echo server.
**
** The client sends three lines in one write, then ends its side of the
** stream (write_eof: the server reads the end of the stream). The server,
** a task of this program, sends back everything it reads until then, and
** closes. The client reads the echo back with each of the reads of
** asyncio's StreamReader: readline, readexactly, readuntil, read, and a
** read at the end of the stream, which is the only read that returns no
** bytes; and a readexactly there fails with the end of the stream
** (asyncio's IncompleteReadError). Bytes are shown as Python shows them.
** docs/seeds/echo_client.py is the Python twin.
*/
#include "taal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char sent[] = "alpha\nbeta\ngamma delta\n";

/* Prints `n` bytes as Python's repr() of bytes shows ASCII text. */
static void show(const char *call, const char *data, size_t n)
{
    printf("%s -> b'", call);
    for (size_t i = 0; i < n; i++) {
        if (data[i] == '\n')
            fputs("\\n", stdout);
        else
            putchar(data[i]);
    }
    puts("'");
}

/* The server: echo everything until the end of the stream, then close. */
typedef struct echo {
    taal_coro co;
    taal_stream *stream;
    char data[256];
    size_t n;
    int st;
} echo;

static int echo_body(taal_coro *self)
{
    echo *f = (echo *)self;
    TAAL_BEGIN(f);
    for (;;) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
        f->st = taal_stream_write(f->stream, f->data, f->n);
        if (f->st == TAAL_OK)
            TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
    }
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

typedef struct client {
    taal_coro co;
    taal_server *server;
    const char *host;
    taal_stream *stream;
    char data[64];
    size_t n;
    int st;
} client;

static int client_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    /* IPv6's loopback if the machine has it, else IPv4's: both are numeric. */
    f->host = "::1";
    f->st = taal_start_server(taal_running_loop(), f->host, 0, echo_body, NULL,
                              sizeof(echo), offsetof(echo, stream), &f->server);
    if (f->st != TAAL_OK) {
        f->host = "127.0.0.1";
        f->st = taal_start_server(taal_running_loop(), f->host, 0, echo_body, NULL,
                                  sizeof(echo), offsetof(echo, stream), &f->server);
    }
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, f->host, f->server->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_stream_write(f->stream, sent, strlen(sent));
    taal_stream_write_eof(f->stream);
    printf("sent %zu bytes in three lines, then the end of the stream\n", strlen(sent));

    TAAL_STREAM_READLINE_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    show("readline()", f->data, f->n);
    TAAL_STREAM_READEXACTLY_STATUS(f->st, f->stream, f->data, 5, f->n);
    show("readexactly(5)", f->data, f->n);
    TAAL_STREAM_READUNTIL_STATUS(f->st, f->stream, " ", 1, f->data, sizeof f->data, f->n);
    show("readuntil(b' ')", f->data, f->n);
    TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    show("read(64)", f->data, f->n);
    TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    show("read(64)", f->data, f->n);
    TAAL_STREAM_READEXACTLY_STATUS(f->st, f->stream, f->data, 1, f->n);
    printf("readexactly(1) -> %s, after %zu bytes\n", taal_strerror(f->st), f->n);

    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_SERVER_CLOSE_STATUS(f->st, f->server);
    TAAL_END();
}

int main(void)
{
    int rc = taal_run(client_body, NULL, sizeof(client), NULL, NULL);
    if (rc != TAAL_OK)
        fprintf(stderr, "echo_client: %s\n", taal_strerror(rc));
    return rc == TAAL_OK ? 0 : 1;
}
