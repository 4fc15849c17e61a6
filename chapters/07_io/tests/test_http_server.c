/*
** test_http_server.c -- chapter 07: the bundled HTTP server against
** clients that misbehave: routes it cannot send, a flood of empty lines,
** connections that stay idle or send their request a byte at a time, more
** connections than it takes, and a client that never reads; through all of
** which a normal client is still answered.
*/
#include "http_support.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>

/* A raw client: connects, writes `request` (`len` bytes, or strlen), and
 * reads what comes back until the server closes, into `out` (at most
 * `cap` - 1 bytes kept, NUL-terminated; `got` counts them all). */
typedef struct raw_client {
    taal_coro co;
    int port;
    const char *request;
    size_t len;
    char *out;
    size_t cap, got, n;
    int st;
    taal_stream *stream;
    char buf[4096];
} raw_client;

static int raw_client_body(taal_coro *self)
{
    raw_client *f = (raw_client *)self;
    TAAL_BEGIN(f);
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->st =
        taal_stream_write(f->stream, f->request, f->len ? f->len : strlen(f->request));
    for (;;) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->buf, sizeof f->buf, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
        for (size_t i = 0; i < f->n; i++, f->got++)
            if (f->got + 1 < f->cap)
                f->out[f->got] = f->buf[i];
    }
    if (f->cap > 0)
        f->out[f->got + 1 < f->cap ? f->got : f->cap - 1] = '\0';
    taal_stream_abort(f->stream);
    TAAL_END();
}

/* Serves `routes` and runs one raw client against it: what
 * taal_http_serve() said in *served, what the client read in `out`. */
static void exchange(const taal_http_route *routes, size_t count, const char *request,
                     size_t len, char *out, size_t cap, int *served)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_http_site site = {.routes = routes, .count = count};
    taal_server *server = NULL;
    int rc = taal_http_serve(&loop, "127.0.0.1", 0, &site, &server);
    if (rc == TAAL_OK) {
        raw_client c = {
            .port = server->port, .request = request, .len = len, .out = out, .cap = cap};
        CHECK_EQ(run_task(&loop, raw_client_body, &c, sizeof c), TAAL_OK);
        taal_server_release(server);
    }
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
    *served = rc;
}

/* ---- routes it cannot send -------------------------------------------------- */

/* The head of a response is built in a line of 320 bytes: a content type of
 * 300 once made the next snprintf write past its end, on the first request. */
TEST(a_route_whose_head_would_not_fit_or_would_inject_a_header_is_refused)
{
    static char long_type[300];
    memset(long_type, 'a', sizeof long_type - 1);
    const taal_http_route too_long[] = {{"/", 200, long_type, "x", 0, 0, false}};
    char out[1024];
    int served;
    exchange(too_long, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
    const taal_http_route injected[] = {
        {"/", 200, "text/plain\r\nSet-Cookie: a=b", "x", 0, 0, false}};
    exchange(injected, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
    const taal_http_route no_status[] = {{"/", 42, NULL, "x", 0, 0, false}};
    exchange(no_status, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
    const taal_http_route no_body[] = {{"/", 200, NULL, NULL, 0, 0, false}};
    exchange(no_body, 1, "GET / HTTP/1.1\r\n\r\n", 0, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_EINVAL);
}

TEST(the_longest_content_type_allowed_is_sent_whole)
{
    static char type[TAAL_HTTP_MAX_CONTENT_TYPE + 1];
    memset(type, 't', TAAL_HTTP_MAX_CONTENT_TYPE);
    const taal_http_route routes[] = {{"/", 200, type, "body", 0, 0, false}};
    char out[1024], want[256];
    int served;
    exchange(routes, 1, "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 0, out, sizeof out,
             &served);
    CHECK_EQ(served, TAAL_OK);
    snprintf(want, sizeof want, "Content-Type: %s\r\n", type);
    CHECK(strstr(out, want) != NULL);
    CHECK(strstr(out, "\r\n\r\nbody") != NULL);
}

/* ---- a flood of empty lines --------------------------------------------------- */

TEST(a_flood_of_empty_lines_before_a_request_gets_400_and_the_connection_closes)
{
    static char flood[200000]; /* one write: under TAAL_STREAM_MAX_WRITE */
    for (size_t i = 0; i < sizeof flood; i += 2)
        memcpy(flood + i, "\r\n", 2);
    const taal_http_route routes[] = {{"/", 200, NULL, "x", 0, 0, false}};
    char out[256];
    int served;
    exchange(routes, 1, flood, sizeof flood, out, sizeof out, &served);
    CHECK_EQ(served, TAAL_OK);
    CHECK(strncmp(out, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
    CHECK(strstr(out, "Connection: close\r\n") != NULL);
}

/* ---- clients that hold on ----------------------------------------------------- */

/* One client of the crowd, by what it does: */
typedef enum behaviour {
    IDLE,   /* connects and says nothing */
    LORIS,  /* sends a request a header line a second, never ending it */
    FLOOD,  /* sends empty lines as fast as the server takes them */
    SULK,   /* asks for a big body and never reads it */
    NORMAL, /* asks for / and reads the answer, timing it */
    KEEP    /* asks for / on a kept-alive connection, then says nothing */
} behaviour;

typedef struct client {
    taal_coro co;
    int port;
    behaviour kind;
    double start_at;  /* when it connects (loop time) */
    double *answered; /* NORMAL: seconds from connecting to the answer */
    int *status;      /* the status code it got, 0 for none */
    int *ended;       /* counts clients whose connection the server ended */
    taal_stream *stream;
    char buf[8192];
    size_t n;
    int st, i;
    double began;
} client;

static int client_body(taal_coro *self)
{
    client *f = (client *)self;
    TAAL_BEGIN(f);
    if (f->start_at > 0)
        TAAL_SLEEP(f->start_at - taal_loop_time(taal_running_loop()));
    f->began = taal_loop_time(taal_running_loop());
    TAAL_OPEN_CONNECTION_STATUS(f->st, f->stream, "127.0.0.1", f->port);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    if (f->kind == LORIS) {
        taal_stream_write(f->stream, "GET / HTTP/1.1\r\n", 16);
        for (f->i = 0; f->i < 60; f->i++) { /* a minute, unless ended first */
            TAAL_SLEEP(1);
            if (taal_stream_write(f->stream, "X-Slow: yes\r\n", 13) != TAAL_OK ||
                taal_stream_buffered(f->stream) > 0 || taal_stream_at_eof(f->stream))
                break;
        }
    } else if (f->kind == FLOOD) {
        memset(f->buf, '\n', sizeof f->buf);
        for (f->i = 0; f->i < (int)sizeof f->buf; f->i += 2)
            f->buf[f->i] = '\r';
        for (f->i = 0; f->i < 1000; f->i++) { /* 8 MB at most */
            f->st = taal_stream_write(f->stream, f->buf, sizeof f->buf);
            if (f->st == TAAL_OK)
                TAAL_STREAM_DRAIN_STATUS(f->st, f->stream);
            if (f->st != TAAL_OK || taal_stream_buffered(f->stream) > 0)
                break;
        }
    } else if (f->kind == SULK) {
        taal_stream_write(f->stream, "GET /big HTTP/1.1\r\n\r\n", 21);
        TAAL_SLEEP(30);
        taal_stream_abort(f->stream);
        TAAL_RETURN();
    } else if (f->kind == NORMAL || f->kind == KEEP) {
        taal_stream_write(f->stream, "GET / HTTP/1.1\r\n\r\n", 18);
    }
    /* Read until the server ends the connection (or a minute passes). */
    for (;;) {
        TAAL_STREAM_READ_STATUS(f->st, f->stream, f->buf, sizeof f->buf, f->n);
        if (f->st != TAAL_OK || f->n == 0)
            break;
        if (f->status != NULL && *f->status == 0 && f->n >= 12 &&
            strncmp(f->buf, "HTTP/1.1 ", 9) == 0) {
            *f->status = atoi(f->buf + 9);
            if (f->answered != NULL)
                *f->answered = taal_loop_time(taal_running_loop()) - f->began;
            if (f->kind == NORMAL)
                break;
        }
    }
    if (f->kind != NORMAL && f->ended != NULL)
        ++*f->ended;
    taal_stream_abort(f->stream);
    TAAL_END();
}

/* Runs `count` clients against a server of `site` on the virtual clock
 * until all have ended; the loop time it took in *took. */
static void run_clients(taal_http_site *site, client *clients, size_t count, double *took)
{
    int fds = open_fds();
    taal_loop loop;
    open_loop(&loop);
    taal_server *server = NULL;
    CHECK_EQ(taal_http_serve(&loop, "127.0.0.1", 0, site, &server), TAAL_OK);
    taal_task **tasks = calloc(count, sizeof *tasks);
    for (size_t i = 0; i < count; i++) {
        clients[i].port = server->port;
        CHECK_EQ(taal_task_create(&loop, client_body, &clients[i], sizeof clients[i],
                                  NULL, &tasks[i]),
                 TAAL_OK);
    }
    for (size_t i = 0; i < count; i++) {
        taal_run_until_complete(&loop, taal_task_future(tasks[i]));
        taal_task_release(tasks[i]);
    }
    free(tasks);
    *took = taal_loop_time(&loop);
    taal_server_release(server);
    for (int i = 0; i < 50 && live_objects(&loop) > 0; i++)
        taal_run_once(&loop);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(open_fds(), fds);
}

static const taal_http_route home[] = {{"/", 200, NULL, "home\n", 0, 0, false}};

/* Slowloris: a request that never ends is cut off header_timeout after it
 * began, with 408; before, it held its connection for as long as it liked. */
TEST(a_request_that_never_ends_gets_408_after_the_header_timeout)
{
    taal_http_site site = {.routes = home, .count = 1, .header_timeout = 3};
    int status = 0, ended = 0;
    client c = {.kind = LORIS, .status = &status, .ended = &ended};
    double took;
    run_clients(&site, &c, 1, &took);
    CHECK_EQ(status, 408);
    CHECK_EQ(ended, 1);
    CHECK(took >= 3 && took <= 4); /* it notices at its next line, at 4 s */
    CHECK_EQ(site.timeouts, 1);
    CHECK_EQ(site.active, 0);
}

/* A new connection that says nothing has header_timeout; a kept-alive one
 * that says nothing more has idle_timeout, and is closed without a word. */
TEST(silent_connections_are_closed_after_their_timeouts)
{
    taal_http_site site = {
        .routes = home, .count = 1, .header_timeout = 3, .idle_timeout = 2};
    int status[2] = {0, 0}, ended = 0;
    client c[2] = {{.kind = IDLE, .status = &status[0], .ended = &ended},
                   {.kind = KEEP, .status = &status[1], .ended = &ended}};
    double took;
    run_clients(&site, c, 2, &took);
    CHECK_EQ(status[0], 0); /* nothing said, nothing answered */
    CHECK_EQ(status[1], 200);
    CHECK_EQ(ended, 2);
    CHECK(took >= 3 && took < 4); /* idle's 3 s; keep's 2 s came first */
    CHECK_EQ(site.timeouts, 2);
    CHECK_EQ(site.requests, 1);
}

/* At the cap, a new connection takes the place of the one idle longest;
 * when none is idle, it gets 503. */
TEST(over_the_connection_cap_the_longest_idle_goes_or_the_newcomer_gets_503)
{
    taal_http_site site = {.routes = home, .count = 1, .max_connections = 2};
    double answered = -1;
    int status[3] = {0, 0, 0}, ended = 0;
    client idle[3] = {
        {.kind = IDLE, .status = &status[0], .ended = &ended},
        {.kind = IDLE, .status = &status[1], .ended = &ended, .start_at = 0.1},
        {.kind = NORMAL, .status = &status[2], .answered = &answered, .start_at = 0.2}};
    double took;
    run_clients(&site, idle, 3, &took);
    CHECK_EQ(status[2], 200);
    CHECK(answered >= 0 && answered < 0.1);
    CHECK_EQ(site.evicted, 1);
    CHECK_EQ(site.refused, 0);
    CHECK_EQ(site.active, 0);

    taal_http_site full = {.routes = home, .count = 1, .max_connections = 2};
    int got[3] = {0, 0, 0};
    ended = 0;
    client busy[3] = {
        {.kind = LORIS, .status = &got[0], .ended = &ended},
        {.kind = LORIS, .status = &got[1], .ended = &ended, .start_at = 0.1},
        {.kind = NORMAL, .status = &got[2], .start_at = 0.2}};
    run_clients(&full, busy, 3, &took);
    CHECK_EQ(got[2], 503);
    CHECK_EQ(full.refused, 1);
    CHECK_EQ(got[0], 408); /* and the two slow ones time out in the end */
    CHECK_EQ(got[1], 408);
}

/* The crowd: 1,000 idle connections, 200 slow requests, a flood of empty
 * lines and a client that never reads, all at once, and a normal client
 * is answered within a second, twice. The descriptor limit is raised for
 * the crowd (the test process holds both ends of every connection), or,
 * where the hard limit is too low, the crowd is scaled down to fit. */
TEST(the_server_survives_a_crowd_and_still_answers_a_normal_client_within_a_second)
{
    enum { IDLE_COUNT = 1000, LORIS_COUNT = 200 };
    size_t idle_count = IDLE_COUNT, loris_count = LORIS_COUNT;
    struct rlimit rl;
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
    rlim_t want = 3 * (IDLE_COUNT + LORIS_COUNT) + 256;
    if (rl.rlim_cur < want) {
        struct rlimit raised = rl;
        raised.rlim_cur =
            rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) /* valgrind may refuse */
            rl = raised;
    }
    if (rl.rlim_cur < want) { /* a hard limit too low: scale the crowd down */
        double scale = (double)(rl.rlim_cur - 256) / (double)(want - 256);
        idle_count = (size_t)(IDLE_COUNT * scale);
        loris_count = (size_t)(LORIS_COUNT * scale);
        fprintf(stderr, "descriptor limit %ld: %zu idle, %zu slow\n", (long)rl.rlim_cur,
                idle_count, loris_count);
    }
    static char big[1 << 20];
    memset(big, 'b', sizeof big);
    const taal_http_route routes[] = {{"/", 200, NULL, "home\n", 0, 0, false},
                                      {"/big", 200, NULL, big, sizeof big, 4, false}};
    taal_http_site site = {.routes = routes, .count = 2};
    size_t count = idle_count + loris_count + 4;
    client *c = calloc(count, sizeof *c);
    double answered[2] = {-1, -1};
    int status[2] = {0, 0}, flood_status = 0, ended = 0;
    size_t k = 0;
    for (size_t i = 0; i < idle_count; i++) /* 100 more every 10 ms */
        c[k++] =
            (client){.kind = IDLE, .ended = &ended, .start_at = 0.01 * (double)(i / 100)};
    for (size_t i = 0; i < loris_count; i++)
        c[k++] = (client){
            .kind = LORIS, .ended = &ended, .start_at = 0.5 + 0.01 * (double)(i / 100)};
    c[k++] = (client){.kind = FLOOD, .status = &flood_status, .start_at = 0.8};
    c[k++] = (client){.kind = SULK, .start_at = 0.8};
    c[k++] = (client){
        .kind = NORMAL, .status = &status[0], .answered = &answered[0], .start_at = 1};
    c[k++] = (client){
        .kind = NORMAL, .status = &status[1], .answered = &answered[1], .start_at = 6};
    double took;
    run_clients(&site, c, count, &took);
    free(c);
    CHECK_EQ(status[0], 200);
    CHECK(answered[0] >= 0 && answered[0] < 1);
    CHECK_EQ(status[1], 200);
    CHECK(answered[1] >= 0 && answered[1] < 1);
    CHECK_EQ(flood_status, 400);
    CHECK_EQ(ended, (int)(idle_count + loris_count)); /* the server ended them all */
    CHECK(site.evicted > 0);
    CHECK(site.drains > 0); /* the client that never read held its handler */
    CHECK_EQ(site.active, 0);
}

/* ---- few descriptors ------------------------------------------------------------ */

typedef struct sleeper {
    taal_coro co;
    double seconds;
} sleeper;

static int sleeper_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->seconds);
    TAAL_END();
}

/* A blocking client socket connected to 127.0.0.1:port, or -1. */
static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&to, sizeof to) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The case: with the descriptor limit at 40, idle connections took
 * every descriptor, and the server sat in its EMFILE retry while a normal
 * client waited in the kernel's queue. The default cap now follows the
 * limit (40 less 16), so the server stops at its cap, where an idle
 * connection makes room, before it runs out. The server runs in a child
 * process, which lowers its own limit (and is killed at the end); the
 * clients are plain blocking sockets of the test's. */
TEST(with_few_descriptors_the_default_cap_keeps_idle_connections_from_starving_a_client)
{
    const char *preload = getenv("LD_PRELOAD");
    if (preload != NULL && strstr(preload, "vgpreload") != NULL) {
        fprintf(stderr, "skipped under valgrind: its own descriptors do not fit "
                        "under a limit of 40 in the child\n");
        return;
    }
    int port_pipe[2];
    CHECK_EQ(pipe(port_pipe), 0);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        close(port_pipe[0]);
        struct rlimit rl;
        getrlimit(RLIMIT_NOFILE, &rl);
        rl.rlim_cur = 40;
        setrlimit(RLIMIT_NOFILE, &rl);
        taal_loop loop;
        taal_loop_options options = {.clock = TAAL_CLOCK_MONOTONIC};
        taal_http_site site = {.routes = home, .count = 1};
        taal_server *server = NULL;
        int port = -1;
        if (taal_loop_init(&loop, &options) == TAAL_OK &&
            taal_http_serve(&loop, "127.0.0.1", 0, &site, &server) == TAAL_OK)
            port = server->port;
        if (write(port_pipe[1], &port, sizeof port) != sizeof port || port < 0)
            _exit(1);
        run_task(&loop, sleeper_body, &(sleeper){.seconds = 30}, sizeof(sleeper));
        _exit(0);
    }
    close(port_pipe[1]);
    int port = -1;
    CHECK_EQ(read(port_pipe[0], &port, sizeof port), (ssize_t)sizeof port);
    close(port_pipe[0]);
    CHECK(port > 0);
    int idle[40];
    for (int i = 0; i < 40; i++)
        idle[i] = dial(port);
    int fd = dial(port);
    CHECK(fd >= 0);
    struct timeval wait = {.tv_sec = 25}; /* valgrind is slow; the child lives 30 s */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    char answer[64] = {0};
    CHECK_EQ(send(fd, "GET / HTTP/1.1\r\n\r\n", 18, 0), 18);
    ssize_t got = recv(fd, answer, sizeof answer - 1, 0);
    close(fd);
    for (int i = 0; i < 40; i++)
        if (idle[i] >= 0)
            close(idle[i]);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    CHECK(got >= 12);
    CHECK(strncmp(answer, "HTTP/1.1 200", 12) == 0);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_route_whose_head_would_not_fit_or_would_inject_a_header_is_refused),
    TEST_ENTRY(the_longest_content_type_allowed_is_sent_whole),
    TEST_ENTRY(
        a_flood_of_empty_lines_before_a_request_gets_400_and_the_connection_closes),
    TEST_ENTRY(
        with_few_descriptors_the_default_cap_keeps_idle_connections_from_starving_a_client),
    TEST_ENTRY(a_request_that_never_ends_gets_408_after_the_header_timeout),
    TEST_ENTRY(silent_connections_are_closed_after_their_timeouts),
    TEST_ENTRY(over_the_connection_cap_the_longest_idle_goes_or_the_newcomer_gets_503),
    TEST_ENTRY(
        the_server_survives_a_crowd_and_still_answers_a_normal_client_within_a_second),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
