/*
** echo_server.c -- asyncio's TCP echo server (the example of the asyncio
** streams documentation), and three clients for it in the same program.
**
** The server reads one message from each connection, echoes it, and
** closes it. The clients connect one after another, each sending a
** message and waiting for it to come back; then the server is closed and
** waits for its last connection's handler to end (Python 3.12's
** Server.wait_closed). It listens on 127.0.0.1 on a port the kernel picks,
** so that it never collides with anything. docs/seeds/echo_server.py is
** the Python twin.
*/
#include "taal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *const messages[] = {"Hello, World!", "नमस्ते", "bye"};
enum { CLIENTS = sizeof messages / sizeof messages[0] };

static int connections; /* the server's count */

/* async def handle_echo(reader, writer) */
typedef struct handle_echo {
    taal_coro co;
    taal_stream *stream; /* the server puts the connection here */
    char data[100];
    size_t n;
    int number, st;
} handle_echo;

static int handle_echo_body(taal_coro *self)
{
    handle_echo *f = (handle_echo *)self;
    TAAL_BEGIN(f);
    f->number = ++connections;
    TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    printf("server: connection %d sent '%.*s'\n", f->number, (int)f->n, f->data);
    f->st = taal_stream_write(f->stream, f->data, f->n);
    if (f->st == TAAL_OK)
        TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

/* async def tcp_echo_client(message) */
typedef struct client {
    taal_coro co;
    int port, i, st;
    taal_stream *stream;
    char data[100];
    size_t n;
} client;

static int client_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->st = taal_stream_write(f->stream, messages[f->i], strlen(messages[f->i]));
    TAAL_STREAM_READ_STATUS(f->st, f->stream, f->data, sizeof f->data, f->n);
    if (f->st == TAAL_OK)
        printf("client %d: '%.*s' came back\n", f->i + 1, (int)f->n, f->data);
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

typedef struct echo_main {
    taal_coro co;
    taal_server *server;
    client c;
    int i, st;
} echo_main;

static int echo_main_body(taal_coro *self)
{
    echo_main *f = (echo_main *)self;
    TAAL_BEGIN(f);
    f->st =
        taal_start_server(taal_running_loop(), "127.0.0.1", 0, handle_echo_body, NULL,
                          sizeof(handle_echo), offsetof(handle_echo, stream), &f->server);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    puts("echo server on 127.0.0.1, on a port the kernel chose");
    for (f->i = 0; f->i < CLIENTS; f->i++) {
        /* field by field, then taal_coro_init(): assigning the whole frame
         * (f->c = (client){...}) would overwrite the header's link in the
         * task's list of coroutines, which taal reports as a misuse */
        f->c.port = f->server->port;
        f->c.i = f->i;
        taal_coro_init(&f->c.co, client_body);
        TAAL_AWAIT(&f->c);
    }
    TAAL_SERVER_CLOSE_STATUS(f->st, f->server);
    printf("server closed after %d connections\n", connections);
    TAAL_END();
}

int main(void)
{
    int rc = taal_run(echo_main_body, NULL, sizeof(echo_main), NULL, NULL);
    if (rc != TAAL_OK)
        fprintf(stderr, "echo_server: %s\n", taal_strerror(rc));
    return rc == TAAL_OK ? 0 : 1;
}
