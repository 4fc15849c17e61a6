/*
** peer_serve.c -- chapter 07's HTTP server for clients nobody here wrote
** (curl, ab, wrk: tests/peers/README.md).
**
**   peer_serve [--seconds N] [--write-bodies DIR]
**
** Serves four routes on 127.0.0.1, on a port the kernel picks:
**   /         a line of text
**   /chunked  about 20 KB, sent with Transfer-Encoding: chunked
**   /big      1 MiB (a 1 KiB block sent 1,024 times)
**   /empty    an empty body
** prints "port N" as soon as it listens, and runs until SIGTERM or SIGINT,
** or for N seconds (--seconds, 60 by default), then closes the server,
** waits for its connections' handlers, and prints what it served on
** stderr. --write-bodies writes each route's exact body to DIR/root,
** DIR/chunked, DIR/big and DIR/empty first, for the caller to compare
** with what its client received. It serves fixed routes only
** (taal_http_serve).
*/
#define _POSIX_C_SOURCE 200809L

#include "taal.h"
#include "taal_http.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char root_body[] = "hello from taal's server\n";
static char chunked_body[20 * 1000 + 1]; /* 1,000 numbered lines of 20 bytes */
static char block[1024];                 /* /big: this, 1,024 times */

/* Fields named: the route may gain fields of its own (prefix routes,
 * handlers) that a positional initializer would leave out with a warning. */
static taal_http_route routes[] = {
    {.path = "/", .status = 200, .content_type = "text/plain", .body = root_body},
    {.path = "/chunked",
     .status = 200,
     .content_type = "text/plain",
     .body = chunked_body,
     .chunked = true},
    {.path = "/big",
     .status = 200,
     .content_type = "application/octet-stream",
     .body = block,
     .length = sizeof block,
     .repeat = 1024},
    {.path = "/empty", .status = 200, .content_type = "text/plain", .body = ""},
};
enum { ROUTES = sizeof routes / sizeof routes[0], BIG_REPEAT = 1024 };

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void make_bodies(void)
{
    for (int i = 0; i < 1000; i++)
        snprintf(chunked_body + 20 * i, 21, "chunked line %06d\n", i);
    for (size_t i = 0; i < sizeof block; i++)
        block[i] = (char)('a' + i % 26);
    block[sizeof block - 1] = '\n';
}

static int write_file(const char *dir, const char *name, const char *data, size_t len,
                      size_t times)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *out = fopen(path, "wb");
    if (out == NULL)
        return -1;
    for (size_t i = 0; i < times; i++)
        if (len != 0 && fwrite(data, 1, len, out) != len)
            break;
    return fclose(out) == 0 ? 0 : -1;
}

static int write_bodies(const char *dir)
{
    int bad = write_file(dir, "root", root_body, strlen(root_body), 1);
    bad |= write_file(dir, "chunked", chunked_body, strlen(chunked_body), 1);
    bad |= write_file(dir, "big", block, sizeof block, BIG_REPEAT);
    bad |= write_file(dir, "empty", "", 0, 1);
    return bad;
}

typedef struct serve_main {
    taal_coro co;
    double seconds;
    taal_http_site site;
    taal_server *server;
    double until;
    taal_sleep nap;
    int st;
} serve_main;

static int serve_main_body(taal_coro *self)
{
    serve_main *f = (serve_main *)self;
    TAAL_BEGIN(f);
    f->site = (taal_http_site){.routes = routes, .count = ROUTES};
    f->st = taal_http_serve(taal_running_loop(), "127.0.0.1", 0, &f->site, &f->server);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    printf("port %d\n", f->server->port);
    fflush(stdout);
    f->until = taal_loop_time(taal_running_loop()) + f->seconds;
    while (!stop && taal_loop_time(taal_running_loop()) < f->until) {
        taal_sleep_init(&f->nap, 0.05);
        TAAL_AWAIT_STATUS(f->st, &f->nap);
        if (f->st != TAAL_OK)
            break;
    }
    fprintf(stderr, "peer_serve: %zu connections, %zu requests, last error %s\n",
            f->server->accepted, f->site.requests,
            f->site.last_error != 0 ? taal_strerror(f->site.last_error) : "none");
    TAAL_SERVER_CLOSE_STATUS(f->st, f->server);
    TAAL_END();
}

int main(int argc, char **argv)
{
    serve_main frame = {.seconds = 60};
    const char *dir = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seconds") == 0)
            frame.seconds = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--write-bodies") == 0)
            dir = argv[i + 1];
        else
            break;
    }
    if (argc % 2 == 0 || frame.seconds <= 0) {
        fprintf(stderr, "usage: peer_serve [--seconds N] [--write-bodies DIR]\n");
        return 2;
    }
    make_bodies();
    if (dir != NULL && write_bodies(dir) != 0) {
        fprintf(stderr, "peer_serve: cannot write the bodies in %s\n", dir);
        return 2;
    }
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    taal_loop_options options = {.clock = TAAL_CLOCK_MONOTONIC};
    int rc = taal_run(serve_main_body, &frame, sizeof frame, &options, NULL);
    if (rc != TAAL_OK)
        fprintf(stderr, "peer_serve: %s\n", taal_strerror(rc));
    return rc == TAAL_OK ? 0 : 1;
}
