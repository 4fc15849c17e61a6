/*
** echo.c -- loopback echo: round trips per second of 64-byte messages,
** over 1 connection and over 100 at once, server and clients in one loop.
**
**   async def client(n):
**       reader, writer = await asyncio.open_connection(host, port)
**       for _ in range(n):
**           writer.write(message)          # 64 bytes
**           await reader.readexactly(64)   # the echo
**
**   async def echo(reader, writer):
**       while data := await reader.read(4096):
**           writer.write(data)
**
** Usage: bench_echo [ROUND_TRIPS [CONNECTIONS]]: ROUND_TRIPS in all, over
** one connection, then over CONNECTIONS at once (ROUND_TRIPS / CONNECTIONS
** each). Each round trip is two writes, two reads and the loop's polls on
** both sides: it measures the I/O path of the loop, the streams and the
** kernel's loopback, not the network.
**
** The server runs in a child process (fork), on a loop of its own, as an
** echo server would: with two cores, the two sides then work at the same
** time, which only many connections can use (one connection is a
** ping-pong). The child tells the parent its port through a pipe, and is
** stopped with SIGTERM at the end. echo.py does the same.
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MESSAGE = 64 };

typedef struct echo {
    taal_coro co;
    taal_stream *stream;
    char data[4096];
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
        if (taal_stream_write(f->stream, f->data, f->n) != TAAL_OK)
            break;
        TAAL_STREAM_DRAIN_STATUS(f->st, f->stream); /* a no-op unless paused */
    }
    taal_stream_close(f->stream);
    TAAL_END();
}

/* The child: serves until it is stopped, after telling the parent its port. */
typedef struct server_main {
    taal_coro co;
    int pipe_fd;
    taal_server *server;
} server_main;

static int server_main_body(taal_coro *self)
{
    server_main *f = (server_main *)self;
    int rc, port;
    TAAL_BEGIN(f);
    rc = taal_start_server(taal_running_loop(), "127.0.0.1", 0, echo_body, NULL,
                           sizeof(echo), offsetof(echo, stream), &f->server);
    port = rc == TAAL_OK ? f->server->port : -1;
    if (write(f->pipe_fd, &port, sizeof port) != (ssize_t)sizeof port || rc != TAAL_OK)
        TAAL_FAIL(rc != TAAL_OK ? rc : TAAL_EIO);
    close(f->pipe_fd);
    for (;;) /* serve until SIGTERM */
        TAAL_SLEEP(3600);
    TAAL_END();
}

typedef struct client {
    taal_coro co;
    int port;
    long n, i;
    taal_stream *stream;
    char data[MESSAGE];
    size_t got;
    int st;
} client;

static int client_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    memset(f->data, 'e', sizeof f->data);
    for (f->i = 0; f->i < f->n; f->i++) {
        f->st = taal_stream_write(f->stream, f->data, MESSAGE);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
        TAAL_STREAM_READEXACTLY_STATUS(f->st, f->stream, f->data, MESSAGE, f->got);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
    }
    TAAL_STREAM_CLOSE_STATUS(f->st, f->stream);
    TAAL_END();
}

typedef struct echo_main {
    taal_coro co;
    long round_trips, connections;
    int port;
    taal_future **clients;
    taal_future *all;
    int round;  /* 0: one connection; 1: many */
    long conns; /* connections this round */
    int64_t start;
} echo_main;

static int echo_main_body(taal_coro *self)
{
    echo_main *f = (echo_main *)self;
    taal_loop *loop = taal_running_loop();
    int rc;
    TAAL_BEGIN(f);
    for (f->round = 0; f->round < 2; f->round++) {
        f->conns = f->round == 0 ? 1 : f->connections;
        f->start = bench_now_ns();
        for (long i = 0; i < f->conns; i++) {
            taal_task *task;
            client c = {.port = f->port, .n = f->round_trips / f->conns};
            rc = taal_task_create(loop, client_body, &c, sizeof c, NULL, &task);
            if (rc != TAAL_OK)
                TAAL_FAIL(rc);
            f->clients[i] = taal_task_future(task);
        }
        rc = taal_gather(loop, (size_t)f->conns, f->clients, &f->all);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
        TAAL_AWAIT_FUTURE(f->all);
        double seconds = (double)(bench_now_ns() - f->start) / 1e9;
        for (long i = 0; i < f->conns; i++)
            taal_future_release(f->clients[i]);
        taal_future_release(f->all);
        bench_metric(f->round == 0 ? "round_trips_1_conn" : "round_trips_100_conns",
                     (double)(f->round_trips / f->conns * f->conns) / seconds, "per_s");
    }
    TAAL_END();
}

int main(int argc, char **argv)
{
    echo_main frame = {0};
    frame.round_trips = bench_arg(argc, argv, 1, 200000, 1, 1000000000);
    frame.connections = bench_arg(argc, argv, 2, 100, 1, 10000);
    frame.clients = malloc((size_t)frame.connections * sizeof *frame.clients);
    if (frame.clients == NULL)
        return 1;
    printf("# echo: %ld round trips of %d bytes, over 1 connection and over %ld\n",
           frame.round_trips, MESSAGE, frame.connections);
    fflush(stdout);
    int fds[2];
    if (pipe(fds) != 0)
        return 1;
    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        close(fds[0]);
        server_main server = {.pipe_fd = fds[1]};
        _exit(bench_main("bench_echo server", server_main_body, &server, sizeof server));
    }
    close(fds[1]);
    int status = 1;
    if (read(fds[0], &frame.port, sizeof frame.port) == (ssize_t)sizeof frame.port &&
        frame.port > 0)
        status = bench_main("bench_echo", echo_main_body, &frame, sizeof frame);
    close(fds[0]);
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
    free(frame.clients);
    return status;
}
